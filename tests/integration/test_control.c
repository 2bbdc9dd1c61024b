/* Issue 4 over real HTTP (libcurl, server in-process on port 0): faults
 * fire exactly when their match and budget say, the journal records what a
 * client sent, the control API resets and dumps the store, and the
 * built-in controllers react on the server's (here virtual) clock. */
#include <curl/curl.h>
#include <nodelet/meta.h>
#include <nodelet/time.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../cu_main.h"
#include "http_client.h"
#include "mockapi.h"
#include "storage/store.h"

/* ------------------------------------------------------------------------
 * HTTP with a User-Agent, a timeout and the transport result */

typedef struct {
	CURLcode rc;
	long code;
	char *body;
	size_t len;
	char retry_after[32];
} call_t;

static size_t on_body(char *p, size_t size, size_t n, void *userdata)
{
	call_t *c = userdata;
	size_t add = size * n;
	char *grown = realloc(c->body, c->len + add + 1);
	if (!grown)
		return 0;
	memcpy(grown + c->len, p, add);
	c->body = grown;
	c->len += add;
	c->body[c->len] = '\0';
	return add;
}

static size_t on_header(char *line, size_t size, size_t n, void *userdata)
{
	call_t *c = userdata;
	size_t len = size * n;
	if (len > 13 && strncasecmp(line, "Retry-After: ", 13) == 0)
		snprintf(c->retry_after, sizeof(c->retry_after), "%.*s",
		         (int)strcspn(line + 13, "\r\n"), line + 13);
	return len;
}

static call_t call_full(const char *base, const char *method, const char *path, const char *body,
                        const char *ua, long timeout_ms)
{
	call_t c;
	char url[4096];
	memset(&c, 0, sizeof(c));
	CURL *h = curl_easy_init();
	struct curl_slist *hdrs = curl_slist_append(NULL, "Content-Type: application/json");
	snprintf(url, sizeof(url), "%s%s", base, path);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &c);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, &c);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	if (ua)
		curl_easy_setopt(h, CURLOPT_USERAGENT, ua);
	if (body) {
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
	}
	c.rc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &c.code);
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(h);
	if (!c.body)
		c.body = strdup("");
	return c;
}

static call_t call(const char *base, const char *method, const char *path, const char *body,
                   const char *ua)
{
	return call_full(base, method, path, body, ua, 30000);
}

/* The HTTP code of a request (0 when there was no answer). */
static long code_of(const char *base, const char *method, const char *path, const char *body,
                    const char *ua)
{
	call_t c = call(base, method, path, body, ua);
	long code = c.rc == CURLE_OK ? c.code : 0;
	free(c.body);
	return code;
}

/* Request, check the code, return the parsed body (caller frees). */
static json_object *req(const char *base, long want, const char *method, const char *path,
                        const char *body)
{
	call_t c = call(base, method, path, body, "test-control");
	if (c.rc != CURLE_OK || c.code != want)
		fprintf(stderr, "\n%s %s: want %ld got %ld (curl %d): %s\n", method, path, want,
		        c.code, (int)c.rc, c.body);
	CU_ASSERT_EQUAL(c.rc, CURLE_OK);
	CU_ASSERT_EQUAL(c.code, want);
	json_object *o = json_tokener_parse(c.body);
	free(c.body);
	return o;
}

static void req_ok(const char *base, long want, const char *method, const char *path,
                   const char *body)
{
	json_object_put(req(base, want, method, path, body));
}

static const char *str(json_object *o, const char *path)
{
	const char *s = nl_json_get_string(o, path);
	return s ? s : "";
}

static int64_t int_at(json_object *o, const char *key)
{
	json_object *v = NULL;
	return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v) : -1;
}

/* ------------------------------------------------------------------------
 * Servers */

static int64_t vnow;

static int64_t virtual_clock(void *payload)
{
	(void)payload;
	return vnow;
}

static void test_options(mock_options *o)
{
	mock_options_init(o);
	o->port = 0;
	o->random_seed = 1;
	o->random_seed_set = 1;
	/* Fault and journal tests want a store only they change. */
	o->controllers = "-nodelifecycle,-garbagecollector";
}

static mock_server *start_with(const mock_options *o)
{
	mock_server *s = NULL;
	nl_err err = {0};
	if (mock_server_new(&s, o, &err) != 0 || mock_server_start(s, &err) != 0) {
		fprintf(stderr, "server start failed: %s\n", err.msg);
		mock_server_free(s);
		CU_FAIL_FATAL("cannot start nodelet-mockapi in-process");
	}
	return s;
}

static mock_server *start(void)
{
	mock_options o;
	test_options(&o);
	return start_with(&o);
}

#define CM_PATH "/api/v1/namespaces/default/configmaps"
#define LEASES "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"

static void create_cm(const char *base, const char *name)
{
	char body[256];
	snprintf(body, sizeof(body),
	         "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\"},"
	         "\"data\":{\"k\":\"v\"}}",
	         name);
	req_ok(base, 201, "POST", CM_PATH, body);
}

static char *add_fault(const char *base, const char *spec)
{
	json_object *o = req(base, 201, "POST", "/mockapi/v1/faults", spec);
	json_object *first = json_object_array_get_idx(json_object_object_get(o, "items"), 0);
	char *id = strdup(str(first, "id"));
	json_object_put(o);
	return id;
}

static json_object *get_fault(const char *base, const char *id)
{
	char path[128];
	snprintf(path, sizeof(path), "/mockapi/v1/faults/%s", id);
	return req(base, 200, "GET", path, NULL);
}

static json_object *journal(const char *base, const char *query)
{
	char path[128];
	snprintf(path, sizeof(path), "/mockapi/v1/requests%s", query ? query : "");
	return req(base, 200, "GET", path, NULL);
}

static json_object *journal_items(json_object *j)
{
	return json_object_object_get(j, "items");
}

/* ------------------------------------------------------------------------
 * The control API itself */

static void test_control__faults_endpoints(void)
{
	mock_server *s = start();
	const char *b = mock_server_url(s);
	json_object *o = req(b, 201, "POST", "/mockapi/v1/faults",
	                     "{\"match\":{\"verb\":\"get\"},\"action\":{\"status\":500}}");
	NL_ASSERT_JSON_EQ(o, "{\"items\":[{\"id\":\"fault-1\",\"match\":{\"verb\":\"get\"},"
	                     "\"action\":{\"status\":500},\"times\":1,\"probability\":1.0,"
	                     "\"remaining\":1,\"matched\":0,\"fired\":0}]}");
	json_object_put(o);
	/* A list, in YAML, with a name of our own. */
	o = req(b, 201, "POST", "/mockapi/v1/faults",
	        "- {id: slow, action: {delayMs: [1, 2]}, times: 0}\n- action: {drop: true}\n");
	CU_ASSERT_EQUAL(json_object_array_length(json_object_object_get(o, "items")), 2);
	json_object_put(o);
	o = req(b, 200, "GET", "/mockapi/v1/faults", NULL);
	json_object *items = json_object_object_get(o, "items");
	CU_ASSERT_EQUAL(json_object_array_length(items), 3);
	CU_ASSERT_STRING_EQUAL(str(json_object_array_get_idx(items, 1), "id"), "slow");
	CU_ASSERT_TRUE(json_object_is_type(
	    json_object_object_get(json_object_array_get_idx(items, 1), "remaining"),
	    json_type_null));
	CU_ASSERT_EQUAL(int_at(o, "seed"), 1);
	json_object_put(o);

	o = req(b, 200, "GET", "/mockapi/v1/faults/slow", NULL);
	CU_ASSERT_EQUAL(int_at(o, "times"), 0);
	json_object_put(o);
	o = req(b, 409, "POST", "/mockapi/v1/faults",
	        "{\"id\":\"slow\",\"action\":{\"drop\":true}}");
	CU_ASSERT_STRING_EQUAL(str(o, "reason"), "AlreadyExists");
	json_object_put(o);
	o = req(b, 422, "POST", "/mockapi/v1/faults",
	        "{\"match\":{\"verbs\":\"get\"},\"action\":{}}");
	CU_ASSERT_STRING_EQUAL(str(o, "message"), "match.verbs: unknown field");
	json_object_put(o);
	req_ok(b, 400, "POST", "/mockapi/v1/faults", "{\"match\":");
	req_ok(b, 200, "DELETE", "/mockapi/v1/faults/slow", NULL);
	o = req(b, 404, "DELETE", "/mockapi/v1/faults/slow", NULL);
	CU_ASSERT_STRING_EQUAL(str(o, "message"), "fault \"slow\" not found");
	json_object_put(o);
	req_ok(b, 405, "PUT", "/mockapi/v1/faults", "{}");
	o = req(b, 200, "DELETE", "/mockapi/v1/faults", NULL);
	CU_ASSERT_EQUAL(json_object_array_length(json_object_object_get(o, "items")), 2);
	json_object_put(o);
	o = req(b, 200, "GET", "/mockapi/v1/faults", NULL);
	CU_ASSERT_EQUAL(json_object_array_length(json_object_object_get(o, "items")), 0);
	json_object_put(o);
	req_ok(b, 404, "GET", "/mockapi/v1/nothing", NULL);
	mock_server_free(s);
}

/* A fault never locks the test out: control requests bypass faults and are
 * not journaled. */
static void test_control__control_requests_bypass_faults(void)
{
	mock_server *s = start();
	const char *b = mock_server_url(s);
	free(add_fault(b, "{\"action\":{\"drop\":true},\"times\":0}"));
	CU_ASSERT_EQUAL(code_of(b, "GET", "/version", NULL, NULL), 0);
	json_object *j = journal(b, NULL);
	CU_ASSERT_EQUAL(json_object_array_length(journal_items(j)), 1);
	json_object_put(j);
	req_ok(b, 200, "DELETE", "/mockapi/v1/faults", NULL);
	CU_ASSERT_EQUAL(code_of(b, "GET", "/version", NULL, NULL), 200);
	mock_server_free(s);
}

static void test_control__disabled_control_api_is_not_found(void)
{
	mock_options o;
	test_options(&o);
	o.disable_control_api = 1;
	mock_server *s = start_with(&o);
	json_object *st = req(mock_server_url(s), 404, "GET", "/mockapi/v1/faults", NULL);
	CU_ASSERT_STRING_EQUAL(str(st, "message"),
	                       "the server could not find the requested resource");
	json_object_put(st);
	req_ok(mock_server_url(s), 404, "POST", "/mockapi/v1/reset", NULL);
	mock_server_free(s);
}

/* ------------------------------------------------------------------------
 * Matching, field by field */

typedef struct {
	const char *match;
	/* a request the fault must not fire on, then one it must */
	const char *miss_method, *miss_path, *miss_ua;
	const char *hit_method, *hit_path, *hit_ua;
} match_case;

#define CM1 CM_PATH "/cm1"
#define CM1_BODY                                                                                   \
	"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cm1\"},\"data\":{" \
	"\"k\":\"v2\"}}"
#define NODE_BODY "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"}}"

static const char *body_for(const char *method, const char *path)
{
	if (strcmp(method, "PUT") != 0)
		return NULL;
	return strstr(path, "/nodes/") ? NODE_BODY : CM1_BODY;
}

static void test_control__each_match_field_fires_only_on_its_requests(void)
{
	static const match_case cases[] = {
	    {"{\"verb\":\"update\"}", "GET", CM1, NULL, "PUT", CM1, NULL},
	    {"{\"resource\":\"nodes/status\"}", "PUT", "/api/v1/nodes/n1", NULL, "PUT",
	     "/api/v1/nodes/n1/status", NULL},
	    {"{\"resource\":\"nodes\"}", "PUT", "/api/v1/nodes/n1/status", NULL, "PUT",
	     "/api/v1/nodes/n1", NULL},
	    {"{\"group\":\"coordination.k8s.io\"}", "GET", CM1, NULL, "GET", LEASES "/edge-1",
	     NULL},
	    {"{\"namespace\":\"kube-node-lease\"}", "GET", CM1, NULL, "GET", LEASES "/edge-1",
	     NULL},
	    {"{\"name\":\"cm1\"}", "GET", CM_PATH "/cm2", NULL, "GET", CM1, NULL},
	    {"{\"userAgent\":\"nodelet/\"}", "GET", CM1, "kubectl/v1.32.0", "GET", CM1,
	     "nodelet/0.1 (linux/amd64)"},
	    {"{\"verb\":\"list\",\"resource\":\"configmaps\"}", "GET", CM1, NULL, "GET", CM_PATH,
	     NULL},
	};
	mock_server *s = start();
	const char *b = mock_server_url(s);
	create_cm(b, "cm1");
	create_cm(b, "cm2");
	req_ok(b, 201, "POST", "/api/v1/nodes", NODE_BODY);
	req_ok(b, 201, "POST", LEASES,
	       "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{"
	       "\"name\":\"edge-1\"}}");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const match_case *c = &cases[i];
		char spec[256];
		snprintf(spec, sizeof(spec), "{\"match\":%s,\"action\":{\"status\":503}}",
		         c->match);
		char *id = add_fault(b, spec);
		long miss = code_of(b, c->miss_method, c->miss_path,
		                    body_for(c->miss_method, c->miss_path), c->miss_ua);
		long hit = code_of(b, c->hit_method, c->hit_path,
		                   body_for(c->hit_method, c->hit_path), c->hit_ua);
		long again = code_of(b, c->hit_method, c->hit_path,
		                     body_for(c->hit_method, c->hit_path), c->hit_ua);
		if (miss == 503 || hit != 503 || again == 503)
			fprintf(stderr, "\ncase %zu %s: miss %ld hit %ld again %ld\n", i, c->match,
			        miss, hit, again);
		CU_ASSERT_TRUE(miss >= 200 && miss < 300);
		CU_ASSERT_EQUAL(hit, 503);
		CU_ASSERT_TRUE(again >= 200 && again < 300); /* times 1: spent */
		json_object *f = get_fault(b, id);
		CU_ASSERT_EQUAL(int_at(f, "fired"), 1);
		CU_ASSERT_EQUAL(int_at(f, "remaining"), 0);
		CU_ASSERT_EQUAL(int_at(f, "matched"), 2);
		json_object_put(f);
		free(id);
		req_ok(b, 200, "DELETE", "/mockapi/v1/faults", NULL);
	}
	mock_server_free(s);
}

/* Without authentication every request's user is "", so a fault on a user
 * never fires (until the auth issue lands). */
static void test_control__user_match_needs_authentication(void)
{
	mock_server *s = start();
	const char *b = mock_server_url(s);
	char *id =
	    add_fault(b, "{\"match\":{\"user\":\"system:node:edge-1\"},\"action\":{\"status\":"
	                 "503}}");
	CU_ASSERT_EQUAL(code_of(b, "GET", "/api/v1/namespaces/default", NULL, NULL), 200);
	json_object *f = get_fault(b, id);
	CU_ASSERT_EQUAL(int_at(f, "matched"), 0);
	json_object_put(f);
	free(id);
	mock_server_free(s);
}

static void test_control__after_offsets_and_times_budget(void)
{
	mock_server *s = start();
	const char *b = mock_server_url(s);
	create_cm(b, "cm1");
	free(add_fault(b, "{\"match\":{\"name\":\"cm1\",\"after\":2},\"action\":{\"status\":500},"
	                  "\"times\":2}"));
	long want[] = {200, 200, 500, 500, 200, 200};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CU_ASSERT_EQUAL(code_of(b, "GET", CM1, NULL, NULL), want[i]);
	/* times 0: until removed. */
	char *id = add_fault(b, "{\"match\":{\"name\":\"cm1\"},\"action\":{\"status\":504},"
	                        "\"times\":0}");
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(code_of(b, "GET", CM1, NULL, NULL), 504);
	json_object *f = get_fault(b, id);
	CU_ASSERT_EQUAL(int_at(f, "fired"), 5);
	json_object_put(f);
	char path[128];
	snprintf(path, sizeof(path), "/mockapi/v1/faults/%s", id);
	req_ok(b, 200, "DELETE", path, NULL);
	CU_ASSERT_EQUAL(code_of(b, "GET", CM1, NULL, NULL), 200);
	free(id);
	mock_server_free(s);
}

/* ------------------------------------------------------------------------
 * Actions */

static void test_control__status_faults_answer_a_status_body(void)
{
	mock_server *s = start();
	const char *b = mock_server_url(s);
	req_ok(b, 201, "POST", LEASES,
	       "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{"
	       "\"name\":\"edge-1\"},\"spec\":{\"holderIdentity\":\"edge-1\"}}");
	json_object *lease = req(b, 200, "GET", LEASES "/edge-1", NULL);
	free(add_fault(b, "{\"match\":{\"verb\":\"update\",\"resource\":\"leases\",\"group\":"
	                  "\"coordination.k8s.io\",\"namespace\":\"kube-node-lease\",\"name\":"
	                  "\"edge-1\"},\"action\":{\"status\":409}}"));
	json_object *st = req(b, 409, "PUT", LEASES "/edge-1", json_object_to_json_string(lease));
	NL_ASSERT_JSON_EQ(st,
	                  "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
	                  "\"status\":\"Failure\",\"message\":\"Operation cannot be fulfilled on "
	                  "leases.coordination.k8s.io \\\"edge-1\\\": the object has been "
	                  "modified; please apply your changes to the latest version and try "
	                  "again\",\"reason\":\"Conflict\",\"details\":{\"name\":\"edge-1\","
	                  "\"group\":\"coordination.k8s.io\",\"kind\":\"leases\"},\"code\":409}");
	json_object_put(st);
	/* The budget is spent: the same update now succeeds. */
	req_ok(b, 200, "PUT", LEASES "/edge-1", json_object_to_json_string(lease));
	json_object_put(lease);

	free(add_fault(b, "{\"action\":{\"status\":429,\"retryAfterSeconds\":3}}"));
	call_t c = call(b, "GET", "/api/v1/namespaces", NULL, NULL);
	CU_ASSERT_EQUAL(c.code, 429);
	CU_ASSERT_STRING_EQUAL(c.retry_after, "3");
	st = json_tokener_parse(c.body);
	CU_ASSERT_STRING_EQUAL(str(st, "reason"), "TooManyRequests");
	CU_ASSERT_EQUAL(int_at(json_object_object_get(st, "details"), "retryAfterSeconds"), 3);
	json_object_put(st);
	free(c.body);

	free(add_fault(b,
	               "{\"action\":{\"status\":200,\"body\":{\"kind\":\"Lease\",\"spec\":{}}}}"));
	st = req(b, 200, "GET", LEASES "/edge-1", NULL);
	NL_ASSERT_JSON_EQ(st, "{\"kind\":\"Lease\",\"spec\":{}}");
	json_object_put(st);
	mock_server_free(s);
}

static double elapsed_ms(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

typedef struct {
	const char *base;
	long code;
	double ms;
} slow_call;

static void *slow_worker(void *arg)
{
	slow_call *c = arg;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	c->code = code_of(c->base, "GET", CM_PATH "/slow", NULL, NULL);
	c->ms = elapsed_ms(&t0);
	return NULL;
}

/* Two delayed requests and a normal one on the default two worker threads:
 * the normal one is answered at once (delays suspend the connection, they
 * do not hold a thread). */
static void test_control__latency_does_not_block_other_connections(void)
{
	mock_server *s = start();
	const char *b = mock_server_url(s);
	create_cm(b, "fast");
	free(add_fault(b, "{\"match\":{\"name\":\"slow\"},\"action\":{\"delayMs\":1500},\"times\":"
	                  "0}"));
	slow_call c1 = {b, 0, 0}, c2 = {b, 0, 0};
	pthread_t t1, t2;
	pthread_create(&t1, NULL, slow_worker, &c1);
	pthread_create(&t2, NULL, slow_worker, &c2);
	struct timespec pause = {0, 300 * 1000000L}, t0;
	nanosleep(&pause, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CU_ASSERT_EQUAL(code_of(b, "GET", CM_PATH "/fast", NULL, NULL), 200);
	double fast = elapsed_ms(&t0);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	if (fast > 500)
		fprintf(stderr, "\nundelayed request took %.0f ms\n", fast);
	CU_ASSERT_TRUE(fast < 500);
	/* The delay precedes the real handling: slow does not exist. */
	CU_ASSERT_EQUAL(c1.code, 404);
	CU_ASSERT_EQUAL(c2.code, 404);
	CU_ASSERT_TRUE(c1.ms >= 1450 && c2.ms >= 1450);
	json_object *j = journal(b, NULL);
	json_object *last = json_object_array_get_idx(journal_items(j), 3);
	CU_ASSERT_STRING_EQUAL(str(last, "fault"), "fault-1");
	CU_ASSERT_TRUE(json_object_get_double(json_object_object_get(last, "durationMs")) >= 1450);
	json_object_put(j);
	mock_server_free(s);
}

/* Stopping the server resumes delayed requests instead of waiting for them
 * (MHD must not stop with suspended connections). */
static void test_control__stop_does_not_wait_for_delays(void)
{
	mock_server *s = start();
	const char *b = mock_server_url(s);
	free(add_fault(b, "{\"match\":{\"name\":\"slow\"},\"action\":{\"delayMs\":60000}}"));
	slow_call c = {b, 0, 0};
	pthread_t t;
	pthread_create(&t, NULL, slow_worker, &c);
	struct timespec pause = {0, 200 * 1000000L}, t0;
	nanosleep(&pause, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	mock_server_free(s);
	pthread_join(t, NULL);
	CU_ASSERT_TRUE(elapsed_ms(&t0) < 5000);
	CU_ASSERT_TRUE(c.ms < 10000);
}

/* A client that gives up during a delay still leaves its journal entry. */
static void test_control__abandoned_delayed_request_is_journaled(void)
{
	mock_server *s = start();
	const char *b = mock_server_url(s);
	free(add_fault(b, "{\"action\":{\"delayMs\":400}}"));
	call_t c = call_full(b, "GET", "/version", NULL, NULL, 100);
	CU_ASSERT_EQUAL(c.rc, CURLE_OPERATION_TIMEDOUT);
	free(c.body);
	json_object *j = NULL;
	for (int i = 0; i < 40; i++) {
		struct timespec pause = {0, 50 * 1000000L};
		nanosleep(&pause, NULL);
		json_object_put(j);
		j = journal(b, NULL);
		if (json_object_array_length(journal_items(j)) == 1)
			break;
	}
	json_object *e = json_object_array_get_idx(journal_items(j), 0);
	CU_ASSERT_STRING_EQUAL(str(e, "fault"), "fault-1");
	CU_ASSERT_STRING_EQUAL(str(e, "path"), "/version");
	json_object_put(j);
	mock_server_free(s);
}

static void test_control__delay_range_and_combination(void)
{
	mock_server *s = start();
	const char *b = mock_server_url(s);
	free(add_fault(b, "{\"action\":{\"delayMs\":[200,300],\"status\":503}}"));
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CU_ASSERT_EQUAL(code_of(b, "GET", "/version", NULL, NULL), 503);
	double ms = elapsed_ms(&t0);
	CU_ASSERT_TRUE(ms >= 195 && ms < 1000);
	mock_server_free(s);
}

static void test_control__drop_truncate_and_malformed(void)
{
	mock_server *s = start();
	const char *b = mock_server_url(s);
	create_cm(b, "cm1");
	free(add_fault(b, "{\"match\":{\"name\":\"cm1\"},\"action\":{\"drop\":true}}"));
	call_t c = call(b, "GET", CM1, NULL, NULL);
	CU_ASSERT_EQUAL(c.rc, CURLE_GOT_NOTHING);
	CU_ASSERT_EQUAL(c.len, 0);
	free(c.body);

	free(add_fault(b, "{\"match\":{\"name\":\"cm1\"},\"action\":{\"truncate\":20}}"));
	c = call(b, "GET", CM1, NULL, NULL);
	CU_ASSERT_EQUAL(c.rc, CURLE_PARTIAL_FILE);
	CU_ASSERT_EQUAL(c.code, 200);
	CU_ASSERT_EQUAL(c.len, 20);
	CU_ASSERT_EQUAL(strncmp(c.body, "{\"kind\":\"ConfigMap\",", 20), 0);
	free(c.body);

	free(add_fault(b, "{\"match\":{\"name\":\"cm1\"},\"action\":{\"malformed\":true}}"));
	c = call(b, "GET", CM1, NULL, NULL);
	CU_ASSERT_EQUAL(c.rc, CURLE_OK);
	CU_ASSERT_EQUAL(c.code, 200);
	json_object *o = json_tokener_parse(c.body);
	CU_ASSERT_PTR_NULL(o);
	CU_ASSERT_TRUE(c.len > 10);
	json_object_put(o);
	free(c.body);

	free(add_fault(b, "{\"match\":{\"name\":\"cm1\"},\"action\":{\"malformed\":\"{oops\"}}"));
	c = call(b, "GET", CM1, NULL, NULL);
	CU_ASSERT_STRING_EQUAL(c.body, "{oops");
	free(c.body);

	/* Each fault fired once, then the object is served as usual. */
	CU_ASSERT_EQUAL(code_of(b, "GET", CM1, NULL, NULL), 200);
	json_object *j = journal(b, "?since=1");
	json_object *items = journal_items(j);
	CU_ASSERT_EQUAL(json_object_array_length(items), 5);
	CU_ASSERT_EQUAL(int_at(json_object_array_get_idx(items, 0), "code"), 0); /* dropped */
	CU_ASSERT_STRING_EQUAL(str(json_object_array_get_idx(items, 0), "fault"), "fault-1");
	CU_ASSERT_STRING_EQUAL(str(json_object_array_get_idx(items, 1), "fault"), "fault-2");
	CU_ASSERT_TRUE(json_object_is_type(
	    json_object_object_get(json_object_array_get_idx(items, 4), "fault"), json_type_null));
	json_object_put(j);
	mock_server_free(s);
}

/* A faulted write answers without touching the store: no new
 * resourceVersion, no object change. */
static void test_control__faulted_requests_leave_the_store_unchanged(void)
{
	mock_server *s = start();
	const char *b = mock_server_url(s);
	create_cm(b, "cm1");
	uint64_t rv = mock_store_rv(mock_server_store(s));
	free(add_fault(b, "{\"match\":{\"verb\":\"create\"},\"action\":{\"status\":500}}"));
	CU_ASSERT_EQUAL(code_of(b, "POST", CM_PATH,
	                        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{"
	                        "\"name\":\"new\"}}",
	                        NULL),
	                500);
	free(add_fault(b, "{\"match\":{\"verb\":\"update\"},\"action\":{\"truncate\":5}}"));
	call_t c = call(b, "PUT", CM1, CM1_BODY, NULL);
	CU_ASSERT_EQUAL(c.rc, CURLE_PARTIAL_FILE);
	free(c.body);
	free(add_fault(b, "{\"match\":{\"verb\":\"delete\"},\"action\":{\"drop\":true}}"));
	CU_ASSERT_EQUAL(code_of(b, "DELETE", CM1, NULL, NULL), 0);
	free(add_fault(b, "{\"match\":{\"verb\":\"update\"},\"action\":{\"malformed\":true}}"));
	CU_ASSERT_EQUAL(code_of(b, "PUT", CM1, CM1_BODY, NULL), 200);
	free(add_fault(b, "{\"match\":{\"verb\":\"deletecollection\"},\"action\":{\"status\":"
	                  "409}}"));
	CU_ASSERT_EQUAL(code_of(b, "DELETE", CM_PATH, NULL, NULL), 409);

	CU_ASSERT_EQUAL(mock_store_rv(mock_server_store(s)), rv);
	req_ok(b, 404, "GET", CM_PATH "/new", NULL);
	json_object *cm = req(b, 200, "GET", CM1, NULL);
	CU_ASSERT_STRING_EQUAL(str(cm, "data.k"), "v");
	json_object_put(cm);
	mock_server_free(s);
}

/* The same seed gives the same firing sequence; another seed another. */
static void firing_sequence(char *out, size_t n, uint64_t seed)
{
	mock_options o;
	test_options(&o);
	o.random_seed = seed;
	mock_server *s = start_with(&o);
	const char *b = mock_server_url(s);
	free(add_fault(b, "{\"match\":{\"name\":\"default\"},\"action\":{\"status\":503},\"times\":"
	                  "0,\"probability\":0.5}"));
	for (size_t i = 0; i < n; i++)
		out[i] =
		    code_of(b, "GET", "/api/v1/namespaces/default", NULL, NULL) == 503 ? 'x' : '.';
	out[n] = '\0';
	mock_server_free(s);
}

static void test_control__seeded_probability_repeats_across_runs(void)
{
	char a[41], b[41], c[41];
	firing_sequence(a, 40, 42);
	firing_sequence(b, 40, 42);
	firing_sequence(c, 40, 7);
	CU_ASSERT_STRING_EQUAL(a, b);
	CU_ASSERT_STRING_NOT_EQUAL(a, c);
	CU_ASSERT_PTR_NOT_NULL(strchr(a, 'x'));
	CU_ASSERT_PTR_NOT_NULL(strchr(a, '.'));
}

/* ------------------------------------------------------------------------
 * Watch faults */

static size_t count_lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_control__watch_faults_shape_the_stream(void)
{
	mock_server *s = start();
	const char *b = mock_server_url(s);
	create_cm(b, "w1");
	create_cm(b, "w2");
	create_cm(b, "w3");
	free(add_fault(b, "{\"action\":{\"watch\":{\"closeAfterEvents\":2}}}"));
	call_t c = call_full(b, "GET", CM_PATH "?watch=true", NULL, NULL, 5000);
	CU_ASSERT_EQUAL(c.rc, CURLE_OK);
	CU_ASSERT_EQUAL(c.code, 200);
	CU_ASSERT_EQUAL(count_lines(c.body), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.body, "\"type\":\"ADDED\""));
	free(c.body);

	free(add_fault(b, "{\"match\":{\"resource\":\"configmaps\"},\"action\":{\"watch\":{"
	                  "\"expire\":true}}}"));
	c = call_full(b, "GET", CM_PATH "?watch=true&resourceVersion=5", NULL, NULL, 5000);
	CU_ASSERT_EQUAL(c.rc, CURLE_OK);
	CU_ASSERT_EQUAL(c.code, 200);
	CU_ASSERT_EQUAL(count_lines(c.body), 1);
	json_object *ev = json_tokener_parse(c.body);
	CU_ASSERT_STRING_EQUAL(str(ev, "type"), "ERROR");
	CU_ASSERT_STRING_EQUAL(str(ev, "object.reason"), "Expired");
	CU_ASSERT_EQUAL(int_at(json_object_object_get(ev, "object"), "code"), 410);
	json_object_put(ev);
	free(c.body);

	/* A stalled watch answers 200 and then nothing. */
	free(add_fault(b, "{\"action\":{\"watch\":{\"stall\":true}}}"));
	c = call_full(b, "GET", CM_PATH "?watch=true", NULL, NULL, 700);
	CU_ASSERT_EQUAL(c.rc, CURLE_OPERATION_TIMEDOUT);
	CU_ASSERT_EQUAL(c.code, 200);
	CU_ASSERT_EQUAL(c.len, 0);
	free(c.body);
	/* Watch faults leave lists alone. */
	free(add_fault(b, "{\"action\":{\"watch\":{\"expire\":true}}}"));
	CU_ASSERT_EQUAL(code_of(b, "GET", CM_PATH, NULL, NULL), 200);
	mock_server_free(s);
}

/* ------------------------------------------------------------------------
 * Journal */

static void test_control__journal_records_a_client_s_calls_in_order(void)
{
	static const char *const verbs[] = {"create", "get", "update", "list", "delete", "get"};
	static const int codes[] = {201, 200, 200, 200, 200, 404};
	const char *body = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
	                   "\"j1\"}}";
	mock_server *s = start();
	const char *b = mock_server_url(s);
	CU_ASSERT_EQUAL(
	    code_of(b, "POST", CM_PATH "?fieldManager=test%20client", body, "journal/1"), 201);
	CU_ASSERT_EQUAL(code_of(b, "GET", CM_PATH "/j1", NULL, "journal/1"), 200);
	CU_ASSERT_EQUAL(code_of(b, "PUT", CM_PATH "/j1", body, "journal/1"), 200);
	CU_ASSERT_EQUAL(code_of(b, "GET", CM_PATH "?limit=5", NULL, "journal/1"), 200);
	CU_ASSERT_EQUAL(code_of(b, "DELETE", CM_PATH "/j1", NULL, "journal/1"), 200);
	CU_ASSERT_EQUAL(code_of(b, "GET", CM_PATH "/j1", NULL, "journal/1"), 404);

	json_object *j = journal(b, NULL);
	json_object *items = journal_items(j);
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(items), 6);
	CU_ASSERT_EQUAL(int_at(j, "lastSeq"), 6);
	for (size_t i = 0; i < 6; i++) {
		json_object *e = json_object_array_get_idx(items, i);
		CU_ASSERT_EQUAL(int_at(e, "seq"), (int64_t)i + 1);
		CU_ASSERT_STRING_EQUAL(str(e, "verb"), verbs[i]);
		CU_ASSERT_EQUAL(int_at(e, "code"), codes[i]);
		CU_ASSERT_STRING_EQUAL(str(e, "resource"), "configmaps");
		CU_ASSERT_STRING_EQUAL(str(e, "namespace"), "default");
		CU_ASSERT_STRING_EQUAL(str(e, "userAgent"), "journal/1");
		CU_ASSERT_STRING_EQUAL(str(e, "user"), "");
		int64_t t = 0;
		CU_ASSERT_EQUAL(nl_time_parse_micro(&t, str(e, "time")), 0);
	}
	json_object *create = json_object_array_get_idx(items, 0);
	CU_ASSERT_STRING_EQUAL(str(create, "name"), "");
	CU_ASSERT_STRING_EQUAL(str(create, "query"), "fieldManager=test%20client");
	CU_ASSERT_EQUAL(int_at(create, "requestBytes"), (int64_t)strlen(body));
	CU_ASSERT_STRING_EQUAL(str(json_object_array_get_idx(items, 1), "name"), "j1");
	CU_ASSERT_STRING_EQUAL(str(json_object_array_get_idx(items, 3), "query"), "limit=5");
	CU_ASSERT_STRING_EQUAL(str(json_object_array_get_idx(items, 5), "reason"), "NotFound");
	json_object_put(j);

	/* since: only what came after. */
	j = journal(b, "?since=4");
	items = journal_items(j);
	CU_ASSERT_EQUAL(json_object_array_length(items), 2);
	CU_ASSERT_EQUAL(int_at(json_object_array_get_idx(items, 0), "seq"), 5);
	json_object_put(j);
	req_ok(b, 400, "GET", "/mockapi/v1/requests?since=x", NULL);

	/* Clearing keeps the sequence going. */
	json_object *d = req(b, 200, "DELETE", "/mockapi/v1/requests", NULL);
	CU_ASSERT_EQUAL(int_at(d, "deleted"), 6);
	json_object_put(d);
	CU_ASSERT_EQUAL(code_of(b, "GET", "/version", NULL, NULL), 200);
	j = journal(b, NULL);
	items = journal_items(j);
	CU_ASSERT_EQUAL(json_object_array_length(items), 1);
	CU_ASSERT_EQUAL(int_at(json_object_array_get_idx(items, 0), "seq"), 7);
	CU_ASSERT_STRING_EQUAL(str(json_object_array_get_idx(items, 0), "verb"), "get");
	CU_ASSERT_STRING_EQUAL(str(json_object_array_get_idx(items, 0), "path"), "/version");
	json_object_put(j);
	mock_server_free(s);
}

static void test_control__journal_keeps_the_newest_entries(void)
{
	mock_options o;
	test_options(&o);
	o.journal_size = 5;
	mock_server *s = start_with(&o);
	const char *b = mock_server_url(s);
	for (int i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(code_of(b, "GET", "/version", NULL, NULL), 200);
	json_object *j = journal(b, NULL);
	json_object *items = journal_items(j);
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(items), 5);
	for (size_t i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(int_at(json_object_array_get_idx(items, i), "seq"), (int64_t)i + 4);
	json_object_put(j);
	/* since older than the oldest kept: everything kept. */
	j = journal(b, "?since=1");
	CU_ASSERT_EQUAL(json_object_array_length(journal_items(j)), 5);
	json_object_put(j);
	mock_server_free(s);
}

/* ------------------------------------------------------------------------
 * Reset, objects, startup faults, the C API */

static void test_control__reset_returns_to_the_seeded_state(void)
{
	mock_options o;
	static const char *fixtures[1];
	test_options(&o);
	fixtures[0] = strdup(nl_test_fixture("manifests/sample.yaml"));
	o.fixtures = fixtures;
	o.nfixtures = 1;
	mock_server *s = start_with(&o);
	free((void *)fixtures[0]);
	const char *b = mock_server_url(s);
	json_object *before =
	    req(b, 200, "GET", "/api/v1/namespaces/kube-system/configmaps/edge-config", NULL);
	create_cm(b, "extra");
	req_ok(b, 200, "DELETE", "/api/v1/namespaces/kube-system/configmaps/edge-config", NULL);
	free(add_fault(b, "{\"match\":{\"name\":\"nothing\"},\"action\":{\"drop\":true}}"));
	uint64_t rv = mock_store_rv(mock_server_store(s));

	json_object *r = req(b, 200, "POST", "/mockapi/v1/reset", NULL);
	uint64_t after_rv = 0;
	CU_ASSERT_EQUAL(nl_rv_parse(&after_rv, str(r, "resourceVersion")), 0);
	CU_ASSERT_TRUE(after_rv > rv); /* never backwards */
	json_object_put(r);

	req_ok(b, 404, "GET", CM_PATH "/extra", NULL);
	json_object *again =
	    req(b, 200, "GET", "/api/v1/namespaces/kube-system/configmaps/edge-config", NULL);
	CU_ASSERT_STRING_EQUAL(str(again, "data.nodelet"), str(before, "data.nodelet"));
	CU_ASSERT_STRING_NOT_EQUAL(str(again, "metadata.uid"), str(before, "metadata.uid"));
	json_object_put(again);
	json_object_put(before);
	req_ok(b, 200, "GET", "/api/v1/namespaces/kube-node-lease", NULL);
	req_ok(b, 200, "GET", "/api/v1/nodes/edge-1", NULL);
	json_object *f = req(b, 200, "GET", "/mockapi/v1/faults", NULL);
	CU_ASSERT_EQUAL(json_object_array_length(json_object_object_get(f, "items")), 0);
	json_object_put(f);
	json_object *j = journal(b, NULL);
	CU_ASSERT_EQUAL(json_object_array_length(journal_items(j)), 4); /* since the reset */
	json_object_put(j);
	mock_server_free(s);
}

static void test_control__objects_dump_and_load(void)
{
	mock_server *s = start();
	const char *b = mock_server_url(s);
	json_object *dump = req(b, 200, "GET", "/mockapi/v1/objects", NULL);
	CU_ASSERT_STRING_EQUAL(str(dump, "kind"), "List");
	json_object *items = json_object_object_get(dump, "items");
	CU_ASSERT_EQUAL(json_object_array_length(items), 4);
	json_object *first = json_object_array_get_idx(items, 0);
	CU_ASSERT_STRING_EQUAL(str(first, "kind"), "Namespace");
	CU_ASSERT_STRING_EQUAL(str(first, "apiVersion"), "v1");
	CU_ASSERT_STRING_EQUAL(str(first, "metadata.name"), "default");
	char rv[32];
	snprintf(rv, sizeof(rv), "%llu", (unsigned long long)mock_store_rv(mock_server_store(s)));
	CU_ASSERT_STRING_EQUAL(str(dump, "metadata.resourceVersion"), rv);
	json_object_put(dump);

	json_object *r = req(b, 200, "POST", "/mockapi/v1/objects",
	                     "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: loaded}\ndata: {a: "
	                     "b}\n---\napiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n"
	                     "  name: edge-9\n  namespace: kube-node-lease\n");
	CU_ASSERT_EQUAL(int_at(r, "loaded"), 2);
	json_object_put(r);
	json_object *cm = req(b, 200, "GET", CM_PATH "/loaded", NULL);
	CU_ASSERT_STRING_EQUAL(str(cm, "data.a"), "b");
	json_object_put(cm);
	req_ok(b, 200, "GET", LEASES "/edge-9", NULL);
	dump = req(b, 200, "GET", "/mockapi/v1/objects", NULL);
	CU_ASSERT_EQUAL(json_object_array_length(json_object_object_get(dump, "items")), 6);
	json_object_put(dump);
	r = req(b, 422, "POST", "/mockapi/v1/objects",
	        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"bad\"},"
	        "\"data\":{\"no/slash\":\"x\"}}");
	CU_ASSERT_PTR_NOT_NULL(strstr(str(r, "message"), "a valid config key"));
	json_object_put(r);
	req_ok(b, 400, "POST", "/mockapi/v1/objects", "{");
	mock_server_free(s);
}

static void test_control__faults_file_at_start(void)
{
	mock_options o;
	test_options(&o);
	char *path = strdup(nl_test_fixture("faults/startup.yaml"));
	o.faults_file = path;
	mock_server *s = start_with(&o);
	const char *b = mock_server_url(s);
	json_object *f = req(b, 200, "GET", "/mockapi/v1/faults", NULL);
	json_object *items = json_object_object_get(f, "items");
	CU_ASSERT_EQUAL(json_object_array_length(items), 2);
	CU_ASSERT_STRING_EQUAL(str(json_object_array_get_idx(items, 0), "match.name"), "edge-1");
	json_object_put(f);
	req_ok(b, 201, "POST", LEASES,
	       "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{"
	       "\"name\":\"edge-1\"}}");
	json_object *lease = req(b, 200, "GET", LEASES "/edge-1", NULL);
	req_ok(b, 409, "PUT", LEASES "/edge-1", json_object_to_json_string(lease));
	req_ok(b, 200, "PUT", LEASES "/edge-1", json_object_to_json_string(lease));
	json_object_put(lease);
	mock_server_free(s);

	/* A bad file stops the start with the field at fault. */
	mock_server *bad = NULL;
	nl_err err = {0};
	o.faults_file = nl_test_fixture("manifests/sample.yaml");
	CU_ASSERT_EQUAL(mock_server_new(&bad, &o, &err), NL_EINVALID);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--faults"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown field"));
	free(path);
}

static void test_control__c_api_for_in_process_tests(void)
{
	mock_server *s = start();
	const char *b = mock_server_url(s);
	char *id = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL(mock_server_add_fault(&id, s,
	                                      "{\"match\":{\"name\":\"default\"},\"action\":{"
	                                      "\"status\":410},\"times\":0}",
	                                      &err),
	                0);
	CU_ASSERT_STRING_EQUAL(id, "fault-1");
	CU_ASSERT_EQUAL(code_of(b, "GET", "/api/v1/namespaces/default", NULL, NULL), 410);
	char *j = NULL;
	CU_ASSERT_EQUAL(mock_server_journal(&j, s, 0), 0);
	json_object *jo = json_tokener_parse(j);
	json_object *e = json_object_array_get_idx(journal_items(jo), 0);
	CU_ASSERT_STRING_EQUAL(str(e, "fault"), "fault-1");
	CU_ASSERT_STRING_EQUAL(str(e, "reason"), "Expired");
	json_object_put(jo);
	free(j);
	CU_ASSERT_EQUAL(mock_server_remove_fault(s, id), 0);
	CU_ASSERT_EQUAL(mock_server_remove_fault(s, id), NL_ENOTFOUND);
	CU_ASSERT_EQUAL(code_of(b, "GET", "/api/v1/namespaces/default", NULL, NULL), 200);
	free(id);
	CU_ASSERT_EQUAL(mock_server_add_fault(NULL, s, "{\"action\":{\"status\":", &err),
	                NL_EPARSE);
	CU_ASSERT_EQUAL(mock_server_add_fault(NULL, s, "{\"action\":{\"status\":1}}", &err),
	                NL_EINVALID);
	CU_ASSERT_STRING_EQUAL(err.msg, "action.status: must be between 100 and 599");
	CU_ASSERT_EQUAL(mock_server_reset(s, &err), 0);
	mock_server_free(s);
}

/* ------------------------------------------------------------------------
 * Controllers on virtual time */

#define T0 1767225600000000LL /* 2026-01-01T00:00:00Z */
#define SEC 1000000LL

static mock_server *start_virtual(const char *controllers)
{
	mock_options o;
	test_options(&o);
	o.controllers = controllers;
	o.clock = virtual_clock;
	o.controller_tick_ms = 0;
	vnow = T0;
	return start_with(&o);
}

static void node_with_ready(const char *b, const char *name)
{
	char body[1024], ts[NL_TIME_BUFSZ];
	nl_time_format(ts, vnow);
	snprintf(body, sizeof(body),
	         "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"%s\"},"
	         "\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\","
	         "\"lastHeartbeatTime\":\"%s\",\"lastTransitionTime\":\"%s\",\"reason\":"
	         "\"KubeletReady\",\"message\":\"kubelet is posting ready status\"}]}}",
	         name, ts, ts);
	req_ok(b, 201, "POST", "/api/v1/nodes", body);
}

/* The agent's heartbeat: the lease's renewTime moves to now. */
static void renew_lease(const char *b, const char *name)
{
	char path[256], body[512], ts[NL_TIME_BUFSZ];
	nl_time_format_micro(ts, vnow);
	snprintf(path, sizeof(path), LEASES "/%s", name);
	snprintf(body, sizeof(body),
	         "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{"
	         "\"name\":\"%s\",\"namespace\":\"kube-node-lease\"},\"spec\":{\"holderIdentity\":"
	         "\"%s\",\"leaseDurationSeconds\":40,\"renewTime\":\"%s\"}}",
	         name, name, ts);
	json_object *cur = NULL;
	call_t c = call(b, "GET", path, NULL, NULL);
	if (c.code == 200)
		cur = json_tokener_parse(c.body);
	free(c.body);
	if (cur) {
		json_object *o = json_tokener_parse(body);
		nl_meta_set_string(o, "resourceVersion", nl_meta_resource_version(cur));
		req_ok(b, 200, "PUT", path, json_object_to_json_string(o));
		json_object_put(o);
		json_object_put(cur);
	} else {
		req_ok(b, 201, "POST", LEASES, body);
	}
}

/* The agent posts Ready=True with a fresh heartbeat. */
static void post_ready(const char *b, const char *name)
{
	char path[256], body[1024], ts[NL_TIME_BUFSZ];
	nl_time_format(ts, vnow);
	snprintf(path, sizeof(path), "/api/v1/nodes/%s/status", name);
	snprintf(body, sizeof(body),
	         "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"%s\"},"
	         "\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\","
	         "\"lastHeartbeatTime\":\"%s\",\"lastTransitionTime\":\"%s\",\"reason\":"
	         "\"KubeletReady\",\"message\":\"kubelet is posting ready status\"}]}}",
	         name, ts, ts);
	req_ok(b, 200, "PUT", path, body);
}

static json_object *node_condition(json_object *node, const char *type)
{
	json_object *conds = nl_json_get_path(node, "status");
	conds = conds ? json_object_object_get(conds, "conditions") : NULL;
	for (size_t i = 0; conds && i < json_object_array_length(conds); i++)
		if (strcmp(str(json_object_array_get_idx(conds, i), "type"), type) == 0)
			return json_object_array_get_idx(conds, i);
	return NULL;
}

/* "key:effect@timeAdded,..." for compact assertions. */
static void taints_of(char *out, size_t outlen, json_object *node)
{
	json_object *spec = json_object_object_get(node, "spec");
	json_object *t = spec ? json_object_object_get(spec, "taints") : NULL;
	out[0] = '\0';
	for (size_t i = 0; t && i < json_object_array_length(t); i++) {
		json_object *x = json_object_array_get_idx(t, i);
		size_t used = strlen(out);
		snprintf(out + used, outlen - used, "%s%s:%s@%s", i ? "," : "", str(x, "key"),
		         str(x, "effect"), str(x, "timeAdded"));
	}
}

static json_object *tick_and_get(mock_server *s, const char *name)
{
	char path[256];
	mock_server_tick(s);
	snprintf(path, sizeof(path), "/api/v1/nodes/%s", name);
	return req(mock_server_url(s), 200, "GET", path, NULL);
}

static void test_control__node_turns_unknown_and_tainted_then_recovers(void)
{
	char taints[512], want[512], ts[NL_TIME_BUFSZ], ts2[NL_TIME_BUFSZ];
	mock_server *s = start_virtual("*");
	const char *b = mock_server_url(s);
	node_with_ready(b, "edge-1");
	renew_lease(b, "edge-1");
	json_object *n = tick_and_get(s, "edge-1");
	CU_ASSERT_STRING_EQUAL(str(node_condition(n, "Ready"), "status"), "True");
	json_object_put(n);

	/* Renewed within the grace period: healthy. */
	vnow += 40 * SEC;
	renew_lease(b, "edge-1");
	json_object_put(tick_and_get(s, "edge-1"));
	vnow += 50 * SEC; /* exactly the grace period: not yet */
	n = tick_and_get(s, "edge-1");
	CU_ASSERT_STRING_EQUAL(str(node_condition(n, "Ready"), "status"), "True");
	json_object_put(n);

	/* Past the grace period: Unknown and the NoSchedule taint at once. */
	vnow += 5 * SEC;
	n = tick_and_get(s, "edge-1");
	json_object *ready = node_condition(n, "Ready");
	nl_time_format(ts, vnow);
	nl_time_format(ts2, T0);
	CU_ASSERT_STRING_EQUAL(str(ready, "status"), "Unknown");
	CU_ASSERT_STRING_EQUAL(str(ready, "reason"), "NodeStatusUnknown");
	CU_ASSERT_STRING_EQUAL(str(ready, "message"), "Kubelet stopped posting node status.");
	CU_ASSERT_STRING_EQUAL(str(ready, "lastTransitionTime"), ts);
	CU_ASSERT_STRING_EQUAL(str(ready, "lastHeartbeatTime"), ts2);
	CU_ASSERT_STRING_EQUAL(str(node_condition(n, "MemoryPressure"), "reason"),
	                       "NodeStatusNeverUpdated");
	taints_of(taints, sizeof(taints), n);
	snprintf(want, sizeof(want), "node.kubernetes.io/unreachable:NoSchedule@%s", ts);
	CU_ASSERT_STRING_EQUAL(taints, want);
	json_object_put(n);

	/* One monitor period later the NoExecute taint follows. */
	vnow += 5 * SEC;
	n = tick_and_get(s, "edge-1");
	nl_time_format(ts2, vnow);
	taints_of(taints, sizeof(taints), n);
	snprintf(want, sizeof(want),
	         "node.kubernetes.io/unreachable:NoSchedule@%s,node.kubernetes.io/"
	         "unreachable:NoExecute@%s",
	         ts, ts2);
	CU_ASSERT_STRING_EQUAL(taints, want);
	json_object_put(n);

	/* A renewed lease alone does not make it Ready: that is the agent's
	 * status update, as in kube-controller-manager. */
	vnow += 5 * SEC;
	renew_lease(b, "edge-1");
	n = tick_and_get(s, "edge-1");
	CU_ASSERT_STRING_EQUAL(str(node_condition(n, "Ready"), "status"), "Unknown");
	taints_of(taints, sizeof(taints), n);
	CU_ASSERT_PTR_NOT_NULL(strstr(taints, "NoExecute"));
	json_object_put(n);

	/* The agent posts Ready=True: the taints go, and renewals keep it so. */
	vnow += 1 * SEC;
	post_ready(b, "edge-1");
	vnow += 5 * SEC;
	n = tick_and_get(s, "edge-1");
	CU_ASSERT_STRING_EQUAL(str(node_condition(n, "Ready"), "status"), "True");
	taints_of(taints, sizeof(taints), n);
	CU_ASSERT_STRING_EQUAL(taints, "");
	json_object_put(n);
	for (int i = 0; i < 4; i++) {
		vnow += 40 * SEC;
		renew_lease(b, "edge-1");
		n = tick_and_get(s, "edge-1");
		CU_ASSERT_STRING_EQUAL(str(node_condition(n, "Ready"), "status"), "True");
		json_object_put(n);
	}
	mock_server_free(s);
}

static void test_control__node_that_never_reported_gets_unknown_conditions(void)
{
	char ts[NL_TIME_BUFSZ];
	mock_server *s = start_virtual("*");
	const char *b = mock_server_url(s);
	req_ok(b, 201, "POST", "/api/v1/nodes",
	       "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"silent\"}}");
	json_object_put(tick_and_get(s, "silent"));
	vnow += 60 * SEC; /* --node-startup-grace-period */
	json_object *n = tick_and_get(s, "silent");
	CU_ASSERT_PTR_NULL(node_condition(n, "Ready"));
	json_object_put(n);
	vnow += 5 * SEC;
	n = tick_and_get(s, "silent");
	json_object *ready = node_condition(n, "Ready");
	nl_time_format(ts, T0);
	CU_ASSERT_STRING_EQUAL(str(ready, "status"), "Unknown");
	CU_ASSERT_STRING_EQUAL(str(ready, "reason"), "NodeStatusNeverUpdated");
	CU_ASSERT_STRING_EQUAL(str(ready, "message"), "Kubelet never posted node status.");
	CU_ASSERT_STRING_EQUAL(str(ready, "lastHeartbeatTime"), ts);
	CU_ASSERT_PTR_NOT_NULL(node_condition(n, "DiskPressure"));
	CU_ASSERT_PTR_NOT_NULL(node_condition(n, "PIDPressure"));
	CU_ASSERT_PTR_NULL(node_condition(n, "NetworkUnavailable"));
	json_object_put(n);
	mock_server_free(s);
}

static void test_control__nodelifecycle_can_be_switched_off(void)
{
	mock_server *s = start_virtual("*,-nodelifecycle");
	const char *b = mock_server_url(s);
	node_with_ready(b, "edge-1");
	json_object_put(tick_and_get(s, "edge-1"));
	vnow += 120 * SEC;
	json_object *n = tick_and_get(s, "edge-1");
	CU_ASSERT_STRING_EQUAL(str(node_condition(n, "Ready"), "status"), "True");
	json_object_put(n);
	mock_server_free(s);

	mock_options o;
	mock_server *bad = NULL;
	nl_err err = {0};
	test_options(&o);
	o.controllers = "*,-nodes";
	CU_ASSERT_EQUAL(mock_server_new(&bad, &o, &err), NL_EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg, "--controllers: \"nodes\" is not in the list of known "
	                                "controllers (nodelifecycle, garbagecollector, namespace, "
	                                "tainteviction, podtermination, csrapproving, "
	                                "csrsigning)");
}

/* A Node and what it owns: its Lease and a ConfigMap. */
static char *node_with_dependents(const char *b, const char *name)
{
	char path[256], body[1024];
	snprintf(body, sizeof(body),
	         "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"%s\"}}", name);
	json_object *node = req(b, 201, "POST", "/api/v1/nodes", body);
	char *uid = strdup(str(node, "metadata.uid"));
	json_object_put(node);
	snprintf(body, sizeof(body),
	         "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{"
	         "\"name\":\"%s\",\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Node\","
	         "\"name\":\"%s\",\"uid\":\"%s\"}]}}",
	         name, name, uid);
	req_ok(b, 201, "POST", LEASES, body);
	snprintf(body, sizeof(body),
	         "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\","
	         "\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"%s\","
	         "\"uid\":\"%s\"}]}}",
	         name, name, uid);
	req_ok(b, 201, "POST", CM_PATH, body);
	snprintf(path, sizeof(path), LEASES "/%s", name);
	req_ok(b, 200, "GET", path, NULL);
	return uid;
}

static void test_control__deleting_a_node_collects_what_it_owns(void)
{
	mock_server *s = start_virtual("*");
	const char *b = mock_server_url(s);
	free(node_with_dependents(b, "edge-2"));
	mock_server_tick(s); /* live owners: nothing to collect */
	req_ok(b, 200, "GET", LEASES "/edge-2", NULL);
	req_ok(b, 200, "DELETE", "/api/v1/nodes/edge-2", NULL);
	mock_server_tick(s);
	req_ok(b, 404, "GET", LEASES "/edge-2", NULL);
	req_ok(b, 404, "GET", CM_PATH "/edge-2", NULL);
	mock_server_free(s);
}

static void test_control__orphan_propagation_keeps_dependents(void)
{
	mock_server *s = start_virtual("*");
	const char *b = mock_server_url(s);
	free(node_with_dependents(b, "edge-3"));
	req_ok(b, 200, "DELETE", "/api/v1/nodes/edge-3", "{\"propagationPolicy\":\"Orphan\"}");
	mock_server_tick(s);
	json_object *lease = req(b, 200, "GET", LEASES "/edge-3", NULL);
	CU_ASSERT_PTR_NULL(nl_json_get_path(lease, "metadata.ownerReferences"));
	json_object_put(lease);
	req_ok(b, 200, "GET", CM_PATH "/edge-3", NULL);

	/* The deprecated orphanDependents and the query parameter too. */
	free(node_with_dependents(b, "edge-4"));
	req_ok(b, 200, "DELETE", "/api/v1/nodes/edge-4?propagationPolicy=Orphan", NULL);
	mock_server_tick(s);
	req_ok(b, 200, "GET", LEASES "/edge-4", NULL);
	free(node_with_dependents(b, "edge-5"));
	req_ok(b, 200, "DELETE", "/api/v1/nodes/edge-5", "{\"orphanDependents\":true}");
	mock_server_tick(s);
	req_ok(b, 200, "GET", LEASES "/edge-5", NULL);
	mock_server_free(s);
}

static void test_control__dangling_owner_references(void)
{
	mock_server *s = start_virtual("*");
	const char *b = mock_server_url(s);
	char *uid = node_with_dependents(b, "edge-6");
	char body[1024];
	/* One owner that never existed: collected. */
	req_ok(b, 201, "POST", CM_PATH,
	       "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"ghost\","
	       "\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"gone\","
	       "\"uid\":\"00000000-0000-4000-8000-000000000000\"}]}}");
	/* A live owner and a gone one: only the reference goes. */
	snprintf(body, sizeof(body),
	         "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"half\","
	         "\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"gone\","
	         "\"uid\":\"00000000-0000-4000-8000-000000000000\"},{\"apiVersion\":\"v1\","
	         "\"kind\":\"Node\",\"name\":\"edge-6\",\"uid\":\"%s\"}]}}",
	         uid);
	req_ok(b, 201, "POST", CM_PATH, body);
	/* An owner of a kind this server does not serve is left alone. */
	req_ok(b, 201, "POST", CM_PATH,
	       "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"foreign\","
	       "\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"name\":"
	       "\"d\",\"uid\":\"00000000-0000-4000-8000-000000000001\"}]}}");
	mock_server_tick(s);
	req_ok(b, 404, "GET", CM_PATH "/ghost", NULL);
	json_object *half = req(b, 200, "GET", CM_PATH "/half", NULL);
	json_object *refs = nl_json_get_path(half, "metadata");
	refs = json_object_object_get(refs, "ownerReferences");
	CU_ASSERT_EQUAL(json_object_array_length(refs), 1);
	CU_ASSERT_STRING_EQUAL(str(json_object_array_get_idx(refs, 0), "uid"), uid);
	json_object_put(half);
	req_ok(b, 200, "GET", CM_PATH "/foreign", NULL);
	free(uid);
	mock_server_free(s);
}

static void test_control__garbagecollector_can_be_switched_off(void)
{
	mock_server *s = start_virtual("-garbagecollector");
	const char *b = mock_server_url(s);
	free(node_with_dependents(b, "edge-7"));
	req_ok(b, 200, "DELETE", "/api/v1/nodes/edge-7", NULL);
	mock_server_tick(s);
	req_ok(b, 200, "GET", LEASES "/edge-7", NULL);
	mock_server_free(s);
}

/* Real time: the controller thread collects within a few ticks. */
static void test_control__background_collection_in_real_time(void)
{
	mock_options o;
	test_options(&o);
	o.controllers = "*";
	mock_server *s = start_with(&o);
	const char *b = mock_server_url(s);
	free(node_with_dependents(b, "edge-8"));
	req_ok(b, 200, "DELETE", "/api/v1/nodes/edge-8", NULL);
	long code = 200;
	for (int i = 0; i < 60 && code == 200; i++) {
		struct timespec pause = {0, 50 * 1000000L};
		nanosleep(&pause, NULL);
		code = code_of(b, "GET", LEASES "/edge-8", NULL, NULL);
	}
	CU_ASSERT_EQUAL(code, 404);
	mock_server_free(s);
}

static int suite_init(void)
{
	return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : 1;
}

static int suite_clean(void)
{
	curl_global_cleanup();
	return 0;
}

static CU_TestInfo tests[] = {
    {"faults_endpoints", test_control__faults_endpoints},
    {"control_requests_bypass_faults", test_control__control_requests_bypass_faults},
    {"disabled_control_api_is_not_found", test_control__disabled_control_api_is_not_found},
    {"each_match_field_fires_only_on_its_requests",
     test_control__each_match_field_fires_only_on_its_requests},
    {"user_match_needs_authentication", test_control__user_match_needs_authentication},
    {"after_offsets_and_times_budget", test_control__after_offsets_and_times_budget},
    {"status_faults_answer_a_status_body", test_control__status_faults_answer_a_status_body},
    {"latency_does_not_block_other_connections",
     test_control__latency_does_not_block_other_connections},
    {"stop_does_not_wait_for_delays", test_control__stop_does_not_wait_for_delays},
    {"abandoned_delayed_request_is_journaled",
     test_control__abandoned_delayed_request_is_journaled},
    {"delay_range_and_combination", test_control__delay_range_and_combination},
    {"drop_truncate_and_malformed", test_control__drop_truncate_and_malformed},
    {"faulted_requests_leave_the_store_unchanged",
     test_control__faulted_requests_leave_the_store_unchanged},
    {"seeded_probability_repeats_across_runs",
     test_control__seeded_probability_repeats_across_runs},
    {"watch_faults_shape_the_stream", test_control__watch_faults_shape_the_stream},
    {"journal_records_a_client_s_calls_in_order",
     test_control__journal_records_a_client_s_calls_in_order},
    {"journal_keeps_the_newest_entries", test_control__journal_keeps_the_newest_entries},
    {"reset_returns_to_the_seeded_state", test_control__reset_returns_to_the_seeded_state},
    {"objects_dump_and_load", test_control__objects_dump_and_load},
    {"faults_file_at_start", test_control__faults_file_at_start},
    {"c_api_for_in_process_tests", test_control__c_api_for_in_process_tests},
    {"node_turns_unknown_and_tainted_then_recovers",
     test_control__node_turns_unknown_and_tainted_then_recovers},
    {"node_that_never_reported_gets_unknown_conditions",
     test_control__node_that_never_reported_gets_unknown_conditions},
    {"nodelifecycle_can_be_switched_off", test_control__nodelifecycle_can_be_switched_off},
    {"deleting_a_node_collects_what_it_owns", test_control__deleting_a_node_collects_what_it_owns},
    {"orphan_propagation_keeps_dependents", test_control__orphan_propagation_keeps_dependents},
    {"dangling_owner_references", test_control__dangling_owner_references},
    {"garbagecollector_can_be_switched_off", test_control__garbagecollector_can_be_switched_off},
    {"background_collection_in_real_time", test_control__background_collection_in_real_time},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"control", suite_init, suite_clean, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
