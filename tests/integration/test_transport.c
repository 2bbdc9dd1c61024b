/* The transport against a scripted server: what goes on the wire (User-
 * Agent, Accept, gzip, credentials, patch types, DeleteOptions), keep-alive
 * reuse, answers that are not a Status, exec credentials refreshed on 401,
 * tls-server-name and proxies. */
#include <nodelet/api.h>
#include <nodelet/meta.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cu_main.h"
#include "fake_http.h"

/* What the server saw of the last request, and what to answer. */
typedef struct {
	pthread_mutex_t mu;
	fake_http_req last; /* body not kept */
	char body[4096];
	int code;          /* answer with this status ... */
	const char *ct;    /* ... content type ... */
	const char *reply; /* ... body ... */
	const char *extra; /* ... and headers */
	int fail_first;    /* this many requests get `code`, then 200 */
	int answered;
	const char *token_ok; /* with exec: 401 unless "Bearer <token_ok>" */
	int gzip;
} script;

static const unsigned char zipped[] = {
    31,  139, 8,   0,   0,   0,   0,   0,   2,  255, 171, 86,  202, 206, 204, 75, 81,
    178, 82,  242, 75,  204, 77,  45,  46,  72, 76,  78,  85,  210, 81,  202, 77, 45,
    73,  76,  73,  44,  73,  84,  178, 170, 86, 202, 3,   138, 3,   165, 171, 50, 11,
    10,  82,  83,  148, 106, 107, 1,   113, 72, 140, 214, 49,  0,   0,   0};

static const char ns_json[] = "{\"kind\":\"Namespace\",\"metadata\":{\"name\":\"x\"}}";

static int handler(int fd, const fake_http_req *r, void *payload)
{
	script *s = payload;
	pthread_mutex_lock(&s->mu);
	s->last = *r;
	s->last.body = NULL;
	snprintf(s->body, sizeof(s->body), "%s", r->body);
	int n = s->answered++;
	int code = n < s->fail_first || s->fail_first < 0 ? s->code : 200;
	const char *ct = code == 200 ? "application/json" : s->ct;
	const char *body = code == 200 ? ns_json : s->reply;
	const char *extra = code == 200 ? NULL : s->extra;
	char auth[256];
	if (s->token_ok) {
		char want[256];
		snprintf(want, sizeof(want), "Bearer %s", s->token_ok);
		int ok = fake_http_header(r, "Authorization", auth, sizeof(auth)) &&
		         strcmp(auth, want) == 0;
		code = ok ? 200 : 401;
		ct = "application/json";
		body = ok ? ns_json
		          : "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
		            "\"Failure\",\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\","
		            "\"code\":401}";
		extra = NULL;
	}
	int gz = s->gzip;
	pthread_mutex_unlock(&s->mu);
	if (gz) {
		char head[256];
		int len = snprintf(head, sizeof(head),
		                   "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
		                   "Content-Encoding: gzip\r\nContent-Length: %zu\r\n\r\n",
		                   sizeof(zipped));
		return write(fd, head, (size_t)len) < 0 || write(fd, zipped, sizeof(zipped)) < 0;
	}
	return fake_http_reply(fd, code, extra, ct, body) != 0;
}

static fake_http *start(script *s)
{
	fake_http *f;
	pthread_mutex_init(&s->mu, NULL);
	CU_ASSERT_EQUAL_FATAL(fake_http_start(&f, handler, s), 0);
	return f;
}

static void stop(fake_http *f, script *s)
{
	fake_http_stop(f);
	pthread_mutex_destroy(&s->mu);
}

static nl_client *client_with(nl_rest_config *cfg, nl_clock *clock)
{
	nl_client_options o;
	nl_client *c = NULL;
	nl_err err = {0};
	nl_client_options_init(&o);
	o.qps = -1;
	o.clock = clock;
	int rc = nl_client_new(&c, cfg, &o, &err);
	if (rc)
		fprintf(stderr, "client: %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	return c;
}

static nl_client *client_at(const char *url)
{
	nl_rest_config cfg = {0};
	cfg.server = (char *)url;
	return client_with(&cfg, NULL);
}

static const char *seen(script *s, const char *name, char *buf, size_t n)
{
	pthread_mutex_lock(&s->mu);
	const char *v = fake_http_header(&s->last, name, buf, n);
	pthread_mutex_unlock(&s->mu);
	return v;
}

static int get(nl_client *c, nl_result *res)
{
	json_object *out = NULL;
	int rc = nl_api_get(&out, c, "/api/v1/namespaces/x", res);
	json_object_put(out);
	return rc;
}

/* ------------------------------------------------------------------------ */

static void test_transport__request_headers(void)
{
	script s = {0};
	fake_http *f = start(&s);
	nl_client *c = client_at(fake_http_url(f));
	char v[256];
	CU_ASSERT_EQUAL(get(c, NULL), 0);
	CU_ASSERT_STRING_EQUAL(s.last.method, "GET");
	CU_ASSERT_STRING_EQUAL(s.last.target, "/api/v1/namespaces/x");
	CU_ASSERT_PTR_NOT_NULL_FATAL(seen(&s, "User-Agent", v, sizeof(v)));
	CU_ASSERT_NSTRING_EQUAL(v, "nodelet/", 8);
	CU_ASSERT_PTR_NOT_NULL(strstr(v, " (linux/"));
	CU_ASSERT_EQUAL(v[strlen(v) - 1], ')');
	CU_ASSERT_STRING_EQUAL(seen(&s, "Accept", v, sizeof(v)), "application/json");
	CU_ASSERT_PTR_NOT_NULL(strstr(seen(&s, "Accept-Encoding", v, sizeof(v)), "gzip"));
	CU_ASSERT_PTR_NULL(seen(&s, "Authorization", v, sizeof(v)));
	CU_ASSERT_PTR_NULL(seen(&s, "Content-Type", v, sizeof(v)));
	/* A body carries application/json and no Expect: 100-continue. */
	json_object *obj = nl_test_json("{\"metadata\":{\"name\":\"x\"}}"), *out = NULL;
	CU_ASSERT_EQUAL(nl_api_create(&out, c, "/api/v1/namespaces", obj, NULL, NULL), 0);
	CU_ASSERT_STRING_EQUAL(s.last.method, "POST");
	CU_ASSERT_STRING_EQUAL(seen(&s, "Content-Type", v, sizeof(v)), "application/json");
	CU_ASSERT_PTR_NULL(seen(&s, "Expect", v, sizeof(v)));
	CU_ASSERT_STRING_EQUAL(s.body, "{\"metadata\":{\"name\":\"x\"}}");
	json_object_put(obj);
	json_object_put(out);
	nl_client_free(c);
	stop(f, &s);
}

static void test_transport__user_agent_option(void)
{
	script s = {0};
	fake_http *f = start(&s);
	nl_rest_config cfg = {0};
	nl_client_options o;
	nl_client *c = NULL;
	char v[256];
	cfg.server = (char *)fake_http_url(f);
	nl_client_options_init(&o);
	o.user_agent = "scenario-runner/1.0";
	CU_ASSERT_EQUAL_FATAL(nl_client_new(&c, &cfg, &o, NULL), 0);
	CU_ASSERT_EQUAL(get(c, NULL), 0);
	CU_ASSERT_STRING_EQUAL(seen(&s, "User-Agent", v, sizeof(v)), "scenario-runner/1.0");
	nl_client_free(c);
	stop(f, &s);
}

static void test_transport__gzip_answers_are_decoded(void)
{
	script s = {0};
	s.gzip = 1;
	fake_http *f = start(&s);
	nl_client *c = client_at(fake_http_url(f));
	json_object *out = NULL;
	CU_ASSERT_EQUAL(nl_api_get(&out, c, "/api/v1/namespaces/zipped", NULL), 0);
	CU_ASSERT_STRING_EQUAL(nl_meta_name(out), "zipped");
	json_object_put(out);
	nl_client_free(c);
	stop(f, &s);
}

static void test_transport__keep_alive_reuses_one_connection(void)
{
	script s = {0};
	fake_http *f = start(&s);
	nl_client *c = client_at(fake_http_url(f));
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(get(c, NULL), 0);
	CU_ASSERT_EQUAL(fake_http_requests(f), 5);
	CU_ASSERT_EQUAL(fake_http_connections(f), 1);
	nl_client_free(c);
	stop(f, &s);
}

static void test_transport__bearer_and_basic_credentials(void)
{
	script s = {0};
	fake_http *f = start(&s);
	char v[256];
	nl_rest_config cfg = {0};
	cfg.server = (char *)fake_http_url(f);
	cfg.bearer_token = "s3cret";
	nl_client *c = client_with(&cfg, NULL);
	CU_ASSERT_EQUAL(get(c, NULL), 0);
	CU_ASSERT_STRING_EQUAL(seen(&s, "Authorization", v, sizeof(v)), "Bearer s3cret");
	nl_client_free(c);
	nl_rest_config basic = {0};
	basic.server = cfg.server;
	basic.username = "user";
	basic.password = "pass";
	c = client_with(&basic, NULL);
	CU_ASSERT_EQUAL(get(c, NULL), 0);
	CU_ASSERT_STRING_EQUAL(seen(&s, "Authorization", v, sizeof(v)), "Basic dXNlcjpwYXNz");
	nl_client_free(c);
	stop(f, &s);
}

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	fputs(text, fp);
	fclose(fp);
}

/* A token file is read again once its copy is a minute old (in-cluster
 * token rotation), on the client's clock. */
static void test_transport__token_file_is_reread_every_minute(void)
{
	script s = {0};
	fake_http *f = start(&s);
	char dir[] = "/tmp/nl-token-XXXXXX", path[64], v[256];
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/token", dir);
	write_file(path, "tok-1\n");
	nl_clock *clock;
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&clock, 1000 * NL_USEC_PER_SEC), 0);
	nl_rest_config cfg = {0};
	cfg.server = (char *)fake_http_url(f);
	cfg.bearer_token_file = path;
	nl_client *c = client_with(&cfg, clock);
	CU_ASSERT_EQUAL(get(c, NULL), 0);
	CU_ASSERT_STRING_EQUAL(seen(&s, "Authorization", v, sizeof(v)), "Bearer tok-1");
	write_file(path, "tok-2\n");
	CU_ASSERT_EQUAL(get(c, NULL), 0);
	CU_ASSERT_STRING_EQUAL(seen(&s, "Authorization", v, sizeof(v)), "Bearer tok-1");
	nl_clock_advance(clock, 61 * NL_USEC_PER_SEC);
	CU_ASSERT_EQUAL(get(c, NULL), 0);
	CU_ASSERT_STRING_EQUAL(seen(&s, "Authorization", v, sizeof(v)), "Bearer tok-2");
	/* An unreadable file keeps the last good token. */
	unlink(path);
	nl_clock_advance(clock, 61 * NL_USEC_PER_SEC);
	CU_ASSERT_EQUAL(get(c, NULL), 0);
	CU_ASSERT_STRING_EQUAL(seen(&s, "Authorization", v, sizeof(v)), "Bearer tok-2");
	nl_client_free(c);
	nl_clock_free(clock);
	rmdir(dir);
	stop(f, &s);
}

/* Exec credentials: the token the plugin printed; after a 401 the plugin
 * runs again and the request is retried once with the new token. */
static void test_transport__exec_token_refreshed_on_401(void)
{
	script s = {0};
	s.token_ok = "token-2";
	fake_http *f = start(&s);
	char dir[] = "/tmp/nl-exec-XXXXXX", runs[64], v[256];
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	char *args[] = {NL_EXEC_PLUGIN, dir, "token", NULL};
	nl_exec_config exec = {0};
	exec.api_version = "client.authentication.k8s.io/v1";
	exec.command = "/bin/sh";
	exec.args = args;
	exec.interactive_mode = "Never";
	nl_rest_config cfg = {0};
	cfg.server = (char *)fake_http_url(f);
	cfg.exec = &exec;
	nl_client *c = client_with(&cfg, NULL);
	nl_result res = NL_RESULT_INIT;
	CU_ASSERT_EQUAL(get(c, &res), 0);
	CU_ASSERT_EQUAL(res.attempts, 2);
	CU_ASSERT_STRING_EQUAL(seen(&s, "Authorization", v, sizeof(v)), "Bearer token-2");
	/* token-2 is cached: no third run. */
	CU_ASSERT_EQUAL(get(c, &res), 0);
	CU_ASSERT_EQUAL(res.attempts, 1);
	snprintf(runs, sizeof(runs), "%s/runs", dir);
	FILE *fp = fopen(runs, "r");
	int n = 0, ch;
	while (fp && (ch = fgetc(fp)) != EOF)
		n += ch == '\n';
	if (fp)
		fclose(fp);
	CU_ASSERT_EQUAL(n, 2);
	/* A credential the server keeps refusing: 401 after one refresh. */
	pthread_mutex_lock(&s.mu);
	s.token_ok = "never";
	pthread_mutex_unlock(&s.mu);
	CU_ASSERT_EQUAL(get(c, &res), NL_EUNAUTHORIZED);
	CU_ASSERT_EQUAL(res.attempts, 2);
	CU_ASSERT_STRING_EQUAL(res.message, "Unauthorized");
	nl_result_clear(&res);
	nl_client_free(c);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
	stop(f, &s);
}

/* ------------------------------------------------------------------------
 * Answers that are not (or are) a Status */

static void test_transport__plain_text_429_without_retry_after(void)
{
	script s = {0};
	s.code = 429;
	s.ct = "text/plain; charset=utf-8";
	s.reply = "Too many requests, please try again later.\n";
	s.fail_first = -1;
	fake_http *f = start(&s);
	nl_client *c = client_at(fake_http_url(f));
	nl_result res = NL_RESULT_INIT;
	CU_ASSERT_EQUAL(get(c, &res), NL_ETOOMANYREQUESTS);
	CU_ASSERT_EQUAL(res.attempts, 1); /* no Retry-After: client-go does not retry */
	CU_ASSERT_TRUE(nl_is_too_many_requests(&res));
	CU_ASSERT_TRUE(nl_is_unexpected_server_error(&res));
	CU_ASSERT_STRING_EQUAL(res.message, "the server has received too many requests and has "
	                                    "asked us to try again later (get namespaces x)");
	CU_ASSERT_STRING_EQUAL(res.status->causes[0].message,
	                       "Too many requests, please try again later.");
	nl_result_clear(&res);
	nl_client_free(c);
	stop(f, &s);
}

static void test_transport__retry_after_zero_retries_at_once(void)
{
	script s = {0};
	s.code = 429;
	s.ct = "text/plain";
	s.reply = "slow down";
	s.extra = "Retry-After: 0\r\n";
	s.fail_first = 3;
	fake_http *f = start(&s);
	nl_client *c = client_at(fake_http_url(f));
	nl_result res = NL_RESULT_INIT;
	CU_ASSERT_EQUAL(get(c, &res), 0);
	CU_ASSERT_EQUAL(res.attempts, 4);
	CU_ASSERT_EQUAL(fake_http_connections(f), 1); /* error answers keep the connection */
	nl_result_clear(&res);
	nl_client_free(c);
	stop(f, &s);
}

static void test_transport__status_bodies_pass_through(void)
{
	static const struct {
		int http;
		const char *body;
		int code;
		int (*pred)(const nl_result *);
	} cases[] = {
	    {401,
	     "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
	     "\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}",
	     NL_EUNAUTHORIZED, nl_is_unauthorized},
	    {403,
	     "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
	     "\"message\":\"namespaces \\\"x\\\" is forbidden: User \\\"system:anonymous\\\" "
	     "cannot "
	     "get resource \\\"namespaces\\\" in API group \\\"\\\" in the namespace \\\"x\\\"\","
	     "\"reason\":\"Forbidden\",\"details\":{\"name\":\"x\",\"kind\":\"namespaces\"},"
	     "\"code\":403}",
	     NL_EFORBIDDEN, nl_is_forbidden},
	    {410,
	     "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
	     "\"message\":\"too old resource version: 5 "
	     "(120)\",\"reason\":\"Expired\",\"code\":410}",
	     NL_EGONE, nl_is_resource_expired},
	    {503,
	     "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
	     "\"message\":\"service unavailable\",\"reason\":\"ServiceUnavailable\",\"code\":503}",
	     NL_ESERVER, nl_is_service_unavailable},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		script s = {0};
		s.code = cases[i].http;
		s.ct = "application/json";
		s.reply = cases[i].body;
		s.fail_first = -1;
		fake_http *f = start(&s);
		nl_client *c = client_at(fake_http_url(f));
		nl_result res = NL_RESULT_INIT;
		CU_ASSERT_EQUAL(get(c, &res), cases[i].code);
		CU_ASSERT_TRUE(cases[i].pred(&res));
		CU_ASSERT_FALSE(nl_is_unexpected_server_error(&res));
		json_object *want = json_tokener_parse(cases[i].body);
		json_object *got = nl_status_to_json(res.status);
		CU_ASSERT_TRUE(json_object_equal(want, got));
		CU_ASSERT_STRING_EQUAL(
		    res.message, json_object_get_string(json_object_object_get(want, "message")));
		json_object_put(want);
		json_object_put(got);
		nl_result_clear(&res);
		nl_client_free(c);
		stop(f, &s);
	}
}

/* ------------------------------------------------------------------------
 * Patch types, write options, DeleteOptions on the wire */

static void test_transport__patch_content_types_and_options(void)
{
	script s = {0};
	fake_http *f = start(&s);
	nl_client *c = client_at(fake_http_url(f));
	char v[256];
	const nl_patch_type types[] = {NL_PATCH_JSON, NL_PATCH_MERGE, NL_PATCH_STRATEGIC,
	                               NL_PATCH_APPLY};
	for (size_t i = 0; i < 4; i++) {
		json_object *out = NULL;
		nl_write_options wo = {0};
		const char *p = "{\"data\":{\"a\":\"1\"}}";
		if (types[i] == NL_PATCH_APPLY) {
			wo.field_manager = "nodelet";
			wo.force = 1;
		}
		CU_ASSERT_EQUAL(nl_api_patch(&out, c, "/api/v1/namespaces/default/configmaps/x",
		                             types[i], p, strlen(p), &wo, NULL),
		                0);
		CU_ASSERT_STRING_EQUAL(s.last.method, "PATCH");
		CU_ASSERT_STRING_EQUAL(seen(&s, "Content-Type", v, sizeof(v)),
		                       nl_patch_content_type(types[i]));
		CU_ASSERT_STRING_EQUAL(s.body, p);
		json_object_put(out);
	}
	CU_ASSERT_STRING_EQUAL(
	    s.last.target,
	    "/api/v1/namespaces/default/configmaps/x?fieldManager=nodelet&force=true");
	json_object *out = NULL, *obj = nl_test_json("{\"metadata\":{\"name\":\"x\"}}");
	nl_write_options wo = {0};
	wo.dry_run = 1;
	wo.field_validation = "Strict";
	wo.field_manager = "a b";
	CU_ASSERT_EQUAL(
	    nl_api_update(&out, c, "/api/v1/namespaces/default/configmaps/x", obj, &wo, NULL), 0);
	CU_ASSERT_STRING_EQUAL(s.last.target, "/api/v1/namespaces/default/configmaps/x?dryRun=All&"
	                                      "fieldManager=a%20b&fieldValidation=Strict");
	json_object_put(out);
	json_object_put(obj);
	nl_client_free(c);
	stop(f, &s);
}

static void test_transport__delete_options_body(void)
{
	script s = {0};
	fake_http *f = start(&s);
	nl_client *c = client_at(fake_http_url(f));
	nl_delete_options d;
	nl_delete_options_init(&d);
	CU_ASSERT_EQUAL(nl_api_delete(NULL, c, "/api/v1/nodes/n1", &d, NULL), 0);
	CU_ASSERT_STRING_EQUAL(s.last.method, "DELETE");
	CU_ASSERT_STRING_EQUAL(s.body, ""); /* nothing set: no body */
	d.precondition_uid = "u-1";
	d.precondition_resource_version = "42";
	d.propagation_policy = "Foreground";
	d.grace_period_seconds = 0;
	CU_ASSERT_EQUAL(nl_api_delete(NULL, c, "/api/v1/nodes/n1", &d, NULL), 0);
	json_object *got = json_tokener_parse(s.body);
	NL_ASSERT_JSON_EQ(got, "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\","
	                       "\"gracePeriodSeconds\":0,\"preconditions\":{\"uid\":\"u-1\","
	                       "\"resourceVersion\":\"42\"},\"propagationPolicy\":\"Foreground\"}");
	json_object_put(got);
	nl_client_free(c);
	stop(f, &s);
}

static void test_transport__list_options_query(void)
{
	script s = {0};
	fake_http *f = start(&s);
	nl_client *c = client_at(fake_http_url(f));
	nl_list_options lo = {0};
	json_object *out = NULL;
	lo.label_selector = "app=web,tier in (a,b)";
	lo.field_selector = "metadata.name=x";
	lo.resource_version = "0";
	lo.limit = 500;
	lo.continue_token = "tok/==";
	CU_ASSERT_EQUAL(nl_api_list(&out, c, "/api/v1/nodes", &lo, NULL), 0);
	CU_ASSERT_STRING_EQUAL(s.last.target,
	                       "/api/v1/nodes?labelSelector=app%3Dweb%2Ctier%20in%20%28a%2Cb%29&"
	                       "fieldSelector=metadata.name%3Dx&resourceVersion=0&limit=500&"
	                       "continue=tok%2F%3D%3D");
	json_object_put(out);
	nl_client_free(c);
	stop(f, &s);
}

/* ------------------------------------------------------------------------
 * Where the connection goes */

/* tls-server-name: the URL (SNI, verification) names it while the TCP
 * connection goes to the configured host. The fake server speaks no TLS, so
 * the handshake fails — after connecting, which is the point: resolving
 * "apiserver.invalid" would have failed first. */
static void test_transport__tls_server_name_connects_to_configured_host(void)
{
	script s = {0};
	fake_http *f = start(&s);
	char url[64];
	snprintf(url, sizeof(url), "https%s", fake_http_url(f) + 4);
	nl_rest_config cfg = {0};
	cfg.server = url;
	cfg.tls_server_name = "apiserver.invalid";
	nl_client *c = client_with(&cfg, NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(nl_client_server(c), "https://apiserver.invalid:"));
	nl_result res = NL_RESULT_INIT;
	int rc = get(c, &res);
	if (rc != NL_ETLS)
		fprintf(stderr, "\n  %s: %s\n", nl_strerror(rc), res.message);
	CU_ASSERT_EQUAL(rc, NL_ETLS);
	CU_ASSERT(fake_http_connections(f) >= 1);
	nl_result_clear(&res);
	nl_client_free(c);
	stop(f, &s);
}

/* proxy-url: requests go to the proxy with the absolute URL. */
static void test_transport__proxy_url(void)
{
	script s = {0};
	fake_http *f = start(&s);
	nl_rest_config cfg = {0};
	cfg.server = "http://apiserver.invalid:6443";
	cfg.proxy_url = (char *)fake_http_url(f);
	nl_client *c = client_with(&cfg, NULL);
	CU_ASSERT_EQUAL(get(c, NULL), 0);
	CU_ASSERT_STRING_EQUAL(s.last.target, "http://apiserver.invalid:6443/api/v1/namespaces/x");
	nl_client_free(c);
	stop(f, &s);
}

static CU_TestInfo tests[] = {
    {"request_headers", test_transport__request_headers},
    {"user_agent_option", test_transport__user_agent_option},
    {"gzip_answers_are_decoded", test_transport__gzip_answers_are_decoded},
    {"keep_alive_reuses_one_connection", test_transport__keep_alive_reuses_one_connection},
    {"bearer_and_basic_credentials", test_transport__bearer_and_basic_credentials},
    {"token_file_is_reread_every_minute", test_transport__token_file_is_reread_every_minute},
    {"exec_token_refreshed_on_401", test_transport__exec_token_refreshed_on_401},
    {"plain_text_429_without_retry_after", test_transport__plain_text_429_without_retry_after},
    {"retry_after_zero_retries_at_once", test_transport__retry_after_zero_retries_at_once},
    {"status_bodies_pass_through", test_transport__status_bodies_pass_through},
    {"patch_content_types_and_options", test_transport__patch_content_types_and_options},
    {"delete_options_body", test_transport__delete_options_body},
    {"list_options_query", test_transport__list_options_query},
    {"tls_server_name_connects_to_configured_host",
     test_transport__tls_server_name_connects_to_configured_host},
    {"proxy_url", test_transport__proxy_url},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {{"transport", NULL, NULL, NULL, NULL, tests}, CU_SUITE_INFO_NULL};
