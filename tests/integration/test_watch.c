/* Watch over real HTTP (server in-process on port 0, libcurl multi as the
 * client): the events kube-apiserver would send, resumption without gaps,
 * 410 for history the watch cache no longer has, bookmarks, timeouts,
 * sendInitialEvents, a client that vanishes while its connection is
 * suspended, a thousand concurrent watchers, and a clean stop. */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <nodelet/buf.h>
#include <nodelet/meta.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "../cu_main.h"
#include "http_client.h"

#define CACHE_SIZE 20
#define CROWD 1000

static mock_server *srv;
static const char *base;
static CURLM *multi;

/* --- a streaming client ---------------------------------------------------- */

typedef struct {
	CURL *easy;
	nl_buf buf; /* everything received */
	int done;   /* the transfer finished */
	CURLcode result;
} wconn;

static size_t on_data(char *p, size_t size, size_t n, void *userdata)
{
	wconn *c = userdata;
	return nl_buf_add(&c->buf, p, size * n) == 0 ? size * n : 0;
}

static wconn *w_open_at(CURLM *m, const char *url_base, const char *path)
{
	char url[2048];
	wconn *c = calloc(1, sizeof(*c));
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	nl_buf_init(&c->buf, 0);
	c->easy = curl_easy_init();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->easy);
	snprintf(url, sizeof(url), "%s%s", url_base, path);
	curl_easy_setopt(c->easy, CURLOPT_URL, url);
	curl_easy_setopt(c->easy, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c->easy, CURLOPT_WRITEDATA, c);
	curl_easy_setopt(c->easy, CURLOPT_PRIVATE, c);
	curl_easy_setopt(c->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->easy, CURLOPT_FORBID_REUSE, 1L);
	curl_multi_add_handle(m, c->easy);
	return c;
}

static wconn *w_open(const char *path)
{
	return w_open_at(multi, base, path);
}

/* Let curl work for up to ms milliseconds (less when something happens). */
static void pump(CURLM *m, int ms)
{
	int running = 0;
	curl_multi_perform(m, &running);
	curl_multi_poll(m, NULL, 0, ms, NULL);
	curl_multi_perform(m, &running);
	CURLMsg *msg;
	int left;
	while ((msg = curl_multi_info_read(m, &left))) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		wconn *c = NULL;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&c);
		c->done = 1;
		c->result = msg->data.result;
	}
}

static size_t count_lines(const wconn *c)
{
	size_t n = 0;
	for (size_t i = 0; i < c->buf.len; i++)
		n += c->buf.data[i] == '\n';
	return n;
}

/* Wait until c has n lines (or ended, or timeout); returns the line count. */
static size_t w_wait_lines(wconn *c, size_t n, int timeout_ms)
{
	int64_t end = nl_test_now_ms() + timeout_ms;
	while (count_lines(c) < n && !c->done && nl_test_now_ms() < end)
		pump(multi, 20);
	return count_lines(c);
}

static int w_wait_done(wconn *c, int timeout_ms)
{
	int64_t end = nl_test_now_ms() + timeout_ms;
	while (!c->done && nl_test_now_ms() < end)
		pump(multi, 20);
	return c->done;
}

static void w_close_at(CURLM *m, wconn *c)
{
	curl_multi_remove_handle(m, c->easy);
	curl_easy_cleanup(c->easy);
	nl_buf_free(&c->buf);
	free(c);
}

static void w_close(wconn *c)
{
	w_close_at(multi, c);
}

static long w_code(wconn *c)
{
	long code = 0;
	curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &code);
	return code;
}

/* Line i (0-based) parsed; caller puts it. */
static json_object *w_event(const wconn *c, size_t i)
{
	const char *p = c->buf.data;
	for (size_t k = 0; p && k < i; k++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	const char *nl = p ? strchr(p, '\n') : NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(nl);
	char *line = strndup(p, (size_t)(nl - p));
	json_object *o = json_tokener_parse(line);
	free(line);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	return o;
}

static const char *str(json_object *o, const char *path)
{
	const char *s = nl_json_get_string(o, path);
	return s ? s : "";
}

/* Assert event i has type and (when name is not NULL) that name. */
static void assert_event(const wconn *c, size_t i, const char *type, const char *name,
                         const char *rv)
{
	json_object *o = w_event(c, i);
	if (strcmp(str(o, "type"), type) != 0 ||
	    (name && strcmp(str(o, "object.metadata.name"), name)) ||
	    (rv && strcmp(str(o, "object.metadata.resourceVersion"), rv)))
		fprintf(stderr, "\nevent %zu: want %s %s %s, got %s\n", i, type, name ? name : "",
		        rv ? rv : "", json_object_to_json_string(o));
	CU_ASSERT_STRING_EQUAL(str(o, "type"), type);
	if (name)
		CU_ASSERT_STRING_EQUAL(str(o, "object.metadata.name"), name);
	if (rv)
		CU_ASSERT_STRING_EQUAL(str(o, "object.metadata.resourceVersion"), rv);
	json_object_put(o);
}

/* --- plain requests ---------------------------------------------------------- */

/* method path body → the answer's resourceVersion (object or list). */
static void request_rv(char rv[32], long want, const char *method, const char *path,
                       const char *body)
{
	json_object *o = nl_http_expect(want, base, method, path, body, NULL);
	snprintf(rv, 32, "%s", str(o, "metadata.resourceVersion"));
	json_object_put(o);
}

static void current_rv(char rv[32])
{
	request_rv(rv, 200, "GET", "/api/v1/namespaces", NULL);
}

static void put_cm(char rv[32], long want, const char *method, const char *ns, const char *name,
                   const char *labels, const char *value)
{
	char path[256], body[512];
	snprintf(path, sizeof(path), "/api/v1/namespaces/%s/configmaps%s%s", ns,
	         strcmp(method, "POST") == 0 ? "" : "/", strcmp(method, "POST") == 0 ? "" : name);
	snprintf(body, sizeof(body),
	         "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\","
	         "\"labels\":%s},\"data\":{\"v\":\"%s\"}}",
	         name, labels ? labels : "{}", value);
	request_rv(rv, want, method, path, body);
}

static void make_namespace(const char *name)
{
	char rv[32], body[256];
	snprintf(body, sizeof(body),
	         "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"%s\"}}",
	         name);
	request_rv(rv, 201, "POST", "/api/v1/namespaces", body);
}

/* --- suite ------------------------------------------------------------------- */

static mock_server *start_server(const char *fixture)
{
	static const char *fixtures[1];
	mock_options o;
	mock_server *s = NULL;
	nl_err err = {0};
	mock_options_init(&o);
	o.port = 0;
	o.watch_cache_size = CACHE_SIZE;
	o.watch_bookmark_interval = 1;
	if (fixture) {
		fixtures[0] = fixture;
		o.fixtures = fixtures;
		o.nfixtures = 1;
	}
	if (mock_server_new(&s, &o, &err) != 0 || mock_server_start(s, &err) != 0) {
		fprintf(stderr, "cannot start server: %s\n", err.msg);
		mock_server_free(s);
		return NULL;
	}
	return s;
}

static int setup(void)
{
	/* A thousand watchers need two thousand descriptors in this process. */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	char *fixture = strdup(nl_test_fixture("manifests/sample.yaml"));
	srv = start_server(fixture);
	free(fixture);
	if (!srv)
		return 1;
	base = mock_server_url(srv);
	multi = curl_multi_init();
	return multi ? 0 : 1;
}

static int teardown(void)
{
	curl_multi_cleanup(multi);
	mock_server_free(srv);
	curl_global_cleanup();
	return 0;
}

/* --- tests ------------------------------------------------------------------- */

static void test_watch__initial_added_for_existing_objects(void)
{
	wconn *ns = w_open("/api/v1/namespaces/default/configmaps?watch=true");
	wconn *all = w_open("/api/v1/configmaps?watch=1");
	wconn *nodes = w_open("/api/v1/nodes?watch=true");
	CU_ASSERT_EQUAL_FATAL(w_wait_lines(ns, 1, 5000), 1);
	CU_ASSERT_EQUAL_FATAL(w_wait_lines(all, 2, 5000), 2);
	CU_ASSERT_EQUAL_FATAL(w_wait_lines(nodes, 1, 5000), 1);
	CU_ASSERT_EQUAL(w_code(ns), 200);
	char *ct = NULL;
	curl_easy_getinfo(ns->easy, CURLINFO_CONTENT_TYPE, &ct);
	CU_ASSERT_STRING_EQUAL(ct ? ct : "", "application/json");
	assert_event(ns, 0, "ADDED", "counter", NULL);
	/* Key order across namespaces: default/counter, kube-system/edge-config. */
	assert_event(all, 0, "ADDED", "counter", NULL);
	assert_event(all, 1, "ADDED", "edge-config", NULL);
	json_object *o = w_event(nodes, 0);
	CU_ASSERT_STRING_EQUAL(str(o, "object.kind"), "Node");
	CU_ASSERT_STRING_EQUAL(str(o, "object.apiVersion"), "v1");
	CU_ASSERT_STRING_EQUAL(str(o, "object.metadata.name"), "edge-1");
	json_object_put(o);
	/* Nothing else, and the streams stay open. */
	pump(multi, 100);
	CU_ASSERT_EQUAL(count_lines(ns), 1);
	CU_ASSERT_FALSE(ns->done);
	w_close(ns);
	w_close(all);
	w_close(nodes);
}

static void test_watch__resumes_after_rv_without_gaps_or_repeats(void)
{
	char rv[6][32];
	make_namespace("resume");
	put_cm(rv[0], 201, "POST", "resume", "seq", NULL, "0");
	for (int i = 1; i < 6; i++) {
		char v[8];
		snprintf(v, sizeof(v), "%d", i);
		put_cm(rv[i], 200, "PUT", "resume", "seq", NULL, v);
	}
	for (int from = 0; from < 6; from++) {
		char path[256];
		snprintf(path, sizeof(path),
		         "/api/v1/namespaces/resume/configmaps?watch=true&resourceVersion=%s",
		         rv[from]);
		wconn *c = w_open(path);
		size_t want = (size_t)(5 - from);
		CU_ASSERT_EQUAL(w_wait_lines(c, want, 5000), want);
		pump(multi, 50);
		CU_ASSERT_EQUAL(count_lines(c), want); /* no repeats */
		for (size_t i = 0; i < want && i < count_lines(c); i++)
			assert_event(c, i, "MODIFIED", "seq", rv[from + 1 + (int)i]);
		w_close(c);
	}
}

static void test_watch__modified_and_deleted_arrive_live(void)
{
	char rv[32], start[32], del[32];
	make_namespace("live");
	current_rv(start);
	char path[256];
	snprintf(path, sizeof(path),
	         "/api/v1/namespaces/live/configmaps?watch=true&resourceVersion=%s", start);
	wconn *c = w_open(path);
	pump(multi, 100); /* the watch is open and parked before the writes */
	put_cm(rv, 201, "POST", "live", "x", NULL, "1");
	/* Each event is flushed at once: it arrives well within a second. */
	int64_t t0 = nl_test_now_ms();
	CU_ASSERT_EQUAL(w_wait_lines(c, 1, 5000), 1);
	CU_ASSERT_TRUE(nl_test_now_ms() - t0 < 1000);
	assert_event(c, 0, "ADDED", "x", rv);
	put_cm(rv, 200, "PUT", "live", "x", NULL, "2");
	CU_ASSERT_EQUAL(w_wait_lines(c, 2, 5000), 2);
	assert_event(c, 1, "MODIFIED", "x", rv);
	nl_http_resp r;
	CU_ASSERT_EQUAL_FATAL(
	    nl_http(&r, base, "DELETE", "/api/v1/namespaces/live/configmaps/x", NULL, NULL), 0);
	CU_ASSERT_EQUAL(r.code, 200);
	nl_http_resp_free(&r);
	current_rv(del); /* the deletion took the last resourceVersion */
	CU_ASSERT_EQUAL(w_wait_lines(c, 3, 5000), 3);
	assert_event(c, 2, "DELETED", "x", del);
	w_close(c);
}

static void test_watch__label_selector_enter_and_leave(void)
{
	char rv[32], start[32];
	make_namespace("sel");
	current_rv(start);
	char path[256];
	snprintf(path, sizeof(path),
	         "/api/v1/namespaces/sel/configmaps?watch=true&labelSelector=app%%3Dweb&"
	         "resourceVersion=%s",
	         start);
	wconn *c = w_open(path);
	put_cm(rv, 201, "POST", "sel", "x", NULL, "1");
	char in[32], out[32];
	put_cm(in, 200, "PUT", "sel", "x", "{\"app\":\"web\"}", "2");
	put_cm(out, 200, "PUT", "sel", "x", "{\"app\":\"db\"}", "3");
	put_cm(rv, 200, "PUT", "sel", "x", NULL, "4");
	CU_ASSERT_EQUAL(w_wait_lines(c, 2, 5000), 2);
	pump(multi, 100);
	CU_ASSERT_EQUAL(count_lines(c), 2);
	assert_event(c, 0, "ADDED", "x", in);
	assert_event(c, 1, "DELETED", "x", out);
	w_close(c);
}

static void test_watch__bookmarks_when_allowed(void)
{
	char start[32];
	current_rv(start);
	wconn *c = w_open("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases?"
	                  "watch=true&allowWatchBookmarks=true&resourceVersion=0");
	CU_ASSERT_EQUAL_FATAL(w_wait_lines(c, 2, 5000), 2); /* ADDED edge-1, then a bookmark */
	assert_event(c, 0, "ADDED", "edge-1", NULL);
	json_object *o = w_event(c, 1);
	CU_ASSERT_STRING_EQUAL(str(o, "type"), "BOOKMARK");
	CU_ASSERT_STRING_EQUAL(str(o, "object.kind"), "Lease");
	uint64_t got = 0, min = 0;
	nl_rv_parse(&got, str(o, "object.metadata.resourceVersion"));
	nl_rv_parse(&min, start);
	CU_ASSERT_TRUE(got >= min);
	json_object_put(o);
	w_close(c);
}

static void test_watch__timeout_seconds_ends_stream(void)
{
	int64_t t0 = nl_test_now_ms();
	wconn *c = w_open("/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1");
	CU_ASSERT_TRUE(w_wait_done(c, 5000));
	int64_t took = nl_test_now_ms() - t0;
	CU_ASSERT_TRUE(took >= 900 && took < 3000);
	/* A clean end of the chunked stream, after the initial event. */
	CU_ASSERT_EQUAL(c->result, CURLE_OK);
	CU_ASSERT_EQUAL(count_lines(c), 1);
	w_close(c);
}

static void test_watch__too_old_rv_is_410_error_then_eof(void)
{
	char rv[32], first[32];
	make_namespace("old");
	put_cm(first, 201, "POST", "old", "x", NULL, "0");
	for (int i = 0; i < CACHE_SIZE + 5; i++)
		put_cm(rv, 200, "PUT", "old", "x", NULL, "u");
	char path[256];
	snprintf(path, sizeof(path),
	         "/api/v1/namespaces/old/configmaps?watch=true&resourceVersion=%s", first);
	wconn *c = w_open(path);
	CU_ASSERT_TRUE(w_wait_done(c, 5000));
	CU_ASSERT_EQUAL(c->result, CURLE_OK);
	CU_ASSERT_EQUAL(w_code(c), 200);
	CU_ASSERT_EQUAL_FATAL(count_lines(c), 1);
	json_object *o = w_event(c, 0);
	CU_ASSERT_STRING_EQUAL(str(o, "type"), "ERROR");
	CU_ASSERT_STRING_EQUAL(str(o, "object.kind"), "Status");
	CU_ASSERT_STRING_EQUAL(str(o, "object.reason"), "Expired");
	CU_ASSERT_EQUAL(json_object_get_int(nl_json_get_path(o, "object.code")), 410);
	char prefix[96];
	snprintf(prefix, sizeof(prefix), "too old resource version: %s (", first);
	CU_ASSERT_EQUAL(strncmp(str(o, "object.message"), prefix, strlen(prefix)), 0);
	json_object_put(o);
	w_close(c);
}

static void test_watch__exact_list_too_old_is_410(void)
{
	char rv[32];
	make_namespace("exact");
	put_cm(rv, 201, "POST", "exact", "x", NULL, "0");
	for (int i = 0; i < CACHE_SIZE + 2; i++)
		put_cm(rv, 200, "PUT", "exact", "x", NULL, "u");
	nl_http_resp r;
	CU_ASSERT_EQUAL_FATAL(nl_http(&r, base, "GET",
	                              "/api/v1/namespaces/exact/configmaps?resourceVersion=2&"
	                              "resourceVersionMatch=Exact",
	                              NULL, NULL),
	                      0);
	CU_ASSERT_EQUAL(r.code, 410);
	json_object *o = nl_http_json(&r);
	NL_ASSERT_JSON_EQ(o, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
	                     "\"status\":\"Failure\",\"message\":\"The resourceVersion for the "
	                     "provided list is too old.\",\"reason\":\"Expired\",\"code\":410}");
	json_object_put(o);
	nl_http_resp_free(&r);
}

static void test_watch__send_initial_events_then_end_bookmark(void)
{
	char start[32];
	current_rv(start);
	wconn *c = w_open("/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true&"
	                  "resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true");
	CU_ASSERT_EQUAL_FATAL(w_wait_lines(c, 2, 5000), 2);
	assert_event(c, 0, "ADDED", "counter", NULL);
	json_object *o = w_event(c, 1);
	CU_ASSERT_STRING_EQUAL(str(o, "type"), "BOOKMARK");
	json_object *ann = nl_json_get_path(o, "object.metadata.annotations");
	json_object *end = NULL;
	CU_ASSERT_TRUE(json_object_object_get_ex(ann, "k8s.io/initial-events-end", &end));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(end), "true");
	CU_ASSERT_STRING_EQUAL(str(o, "object.metadata.resourceVersion"), start);
	json_object_put(o);
	w_close(c);
}

/* Wait until the server holds n watchers (earlier tests' closed clients
 * are released by the hub's probe within about a second). */
static int settle(mock_server *s, size_t n, int timeout_ms)
{
	int64_t end = nl_test_now_ms() + timeout_ms;
	while (mock_server_watch_count(s) != n && nl_test_now_ms() < end)
		usleep(10000);
	return mock_server_watch_count(s) == n;
}

static void test_watch__vanished_client_is_released(void)
{
	CU_ASSERT_TRUE_FATAL(settle(srv, 0, 5000));
	size_t before = 0;
	wconn *c = w_open("/api/v1/namespaces/default/configmaps?watch=true");
	CU_ASSERT_EQUAL_FATAL(w_wait_lines(c, 1, 5000), 1);
	CU_ASSERT_EQUAL(mock_server_watch_count(srv), before + 1);
	pump(multi, 100); /* nothing more to send: the connection is suspended */
	w_close(c);       /* the client goes away without a word */
	int64_t t0 = nl_test_now_ms();
	CU_ASSERT_TRUE(settle(srv, before, 5000));
	CU_ASSERT_TRUE(nl_test_now_ms() - t0 < 3000);
}

static void test_watch__a_thousand_watchers_each_get_the_event(void)
{
	static wconn *crowd[CROWD];
	char start[32], rv[32];
	make_namespace("crowd");
	current_rv(start);
	char path[256];
	snprintf(path, sizeof(path),
	         "/api/v1/namespaces/crowd/configmaps?watch=true&resourceVersion=%s", start);
	CU_ASSERT_TRUE_FATAL(settle(srv, 0, 5000));
	size_t before = 0;
	for (int i = 0; i < CROWD; i++)
		crowd[i] = w_open(path);
	int64_t end = nl_test_now_ms() + 30000;
	while (mock_server_watch_count(srv) < before + CROWD && nl_test_now_ms() < end)
		pump(multi, 10);
	CU_ASSERT_EQUAL(mock_server_watch_count(srv), before + CROWD);
	put_cm(rv, 201, "POST", "crowd", "news", NULL, "1");
	size_t got = 0;
	end = nl_test_now_ms() + 30000;
	while (got < CROWD && nl_test_now_ms() < end) {
		pump(multi, 20);
		got = 0;
		for (int i = 0; i < CROWD; i++)
			got += count_lines(crowd[i]) == 1;
	}
	CU_ASSERT_EQUAL(got, CROWD);
	for (int i = 0; i < CROWD; i++) {
		CU_ASSERT_FALSE(crowd[i]->done);
		w_close(crowd[i]);
	}
	CU_ASSERT_TRUE(settle(srv, before, 10000));
}

/* --- memory: watchers that never read ------------------------------------- */

#define MEM_WATCHERS 100
#define MB (1024 * 1024)

/* A watch request on a raw socket whose receive buffer is small, so the
 * kernel takes little of the stream and the rest waits in the server. */
static int raw_watch(const char *path)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	CU_ASSERT_FATAL(fd >= 0);
	int small = 4096;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(mock_server_port(srv))};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	CU_ASSERT_EQUAL_FATAL(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	char req[512];
	int n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", path);
	CU_ASSERT_EQUAL_FATAL(write(fd, req, (size_t)n), n);
	return fd;
}

/* A metric's value from /metrics (the first line starting with name). */
static double metric(const char *name)
{
	nl_http_resp r;
	double v = -1;
	CU_ASSERT_EQUAL_FATAL(nl_http(&r, base, "GET", "/metrics", NULL, NULL), 0);
	for (const char *p = r.body; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, name, strlen(name)) == 0 && p[strlen(name)] == ' ')
			v = strtod(p + strlen(name) + 1, NULL);
	nl_http_resp_free(&r);
	return v;
}

static void put_big_cm(const char *method, const char *name, char fill)
{
	char path[128], rv[32];
	char *body = malloc(MB + 256);
	CU_ASSERT_PTR_NOT_NULL_FATAL(body);
	int n = snprintf(body, 256,
	                 "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
	                 "\"%s\"},\"data\":{\"v\":\"",
	                 name);
	memset(body + n, fill, MB);
	strcpy(body + n + MB, "\"}}");
	snprintf(path, sizeof(path), "/api/v1/namespaces/mem/configmaps%s%s",
	         strcmp(method, "POST") == 0 ? "" : "/", strcmp(method, "POST") == 0 ? "" : name);
	request_rv(rv, strcmp(method, "POST") == 0 ? 201 : 200, method, path, body);
	free(body);
}

/* Issue 19: 100 watchers of 3 x 1 MB ConfigMaps that never read held a
 * copy each (308 MB). Their initial events are now one shared copy; when
 * the ConfigMaps keep changing, each watcher's backlog passes
 * --watch-backlog-bytes (16 MiB) and the watch cache's rule closes it: the
 * lines are freed at once, and its stream ends without an ERROR event. */
static void test_watch__watchers_that_never_read_share_one_copy(void)
{
	static int fds[MEM_WATCHERS];
	make_namespace("mem");
	for (int i = 0; i < 3; i++) {
		char name[8];
		snprintf(name, sizeof(name), "big%d", i);
		put_big_cm("POST", name, 'a');
	}
	CU_ASSERT_TRUE_FATAL(settle(srv, 0, 5000));
	double slow0 = metric("apiserver_terminated_watchers_total{resource=\"configmaps\"}");
	for (int i = 0; i < MEM_WATCHERS; i++)
		fds[i] = raw_watch("/api/v1/namespaces/mem/configmaps?watch=true");
	CU_ASSERT_TRUE(settle(srv, MEM_WATCHERS, 10000));
	double held = metric("nodelet_mockapi_watch_buffer_bytes");
	CU_ASSERT(held >= 3.0 * MB && held < 4.0 * MB);

	/* Seventeen more megabytes of changes: every watcher is behind by
	 * more than 16 MiB. */
	for (int k = 0; k < 17; k++)
		put_big_cm("PUT", "big0", (char)('b' + k));
	int64_t end = nl_test_now_ms() + 10000;
	while (metric("apiserver_terminated_watchers_total{resource=\"configmaps\"}") <
	           (slow0 < 0 ? 0 : slow0) + MEM_WATCHERS &&
	       nl_test_now_ms() < end)
		usleep(20000);
	CU_ASSERT_EQUAL(metric("apiserver_terminated_watchers_total{resource=\"configmaps\"}"),
	                (slow0 < 0 ? 0 : slow0) + MEM_WATCHERS);
	/* What is left is at most the lines some had begun to write. */
	CU_ASSERT(metric("nodelet_mockapi_watch_buffer_bytes") < 4.0 * MB);

	/* One of them reads now: the rest of what it had begun, then the
	 * chunked stream's end; no ERROR event. */
	nl_buf got;
	nl_buf_init(&got, 0);
	char chunk[65536];
	ssize_t n;
	struct timeval tv = {10, 0};
	setsockopt(fds[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while ((n = read(fds[0], chunk, sizeof(chunk))) > 0) {
		nl_buf_add(&got, chunk, (size_t)n);
		if (got.len >= 5 && memcmp(got.data + got.len - 5, "0\r\n\r\n", 5) == 0)
			break;
	}
	CU_ASSERT(got.len >= 5 && memcmp(got.data + got.len - 5, "0\r\n\r\n", 5) == 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(got.data, "HTTP/1.1 200"));
	CU_ASSERT_PTR_NULL(strstr(got.data, "\"ERROR\""));
	nl_buf_free(&got);
	for (int i = 0; i < MEM_WATCHERS; i++)
		close(fds[i]);
	CU_ASSERT_TRUE(settle(srv, 0, 10000));
	CU_ASSERT_EQUAL(metric("nodelet_mockapi_watch_buffer_bytes"), 0);
	for (int i = 0; i < 3; i++) {
		char path[128], rv[32];
		snprintf(path, sizeof(path), "/api/v1/namespaces/mem/configmaps/big%d", i);
		request_rv(rv, 200, "DELETE", path, NULL);
	}
}

static void test_watch__stop_ends_open_streams_promptly(void)
{
	mock_server *s = start_server(NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CURLM *m = curl_multi_init();
	wconn *c[5];
	for (int i = 0; i < 5; i++)
		c[i] = w_open_at(m, mock_server_url(s), "/api/v1/namespaces?watch=true");
	int64_t end = nl_test_now_ms() + 5000;
	while (mock_server_watch_count(s) < 5 && nl_test_now_ms() < end)
		pump(m, 20);
	for (int i = 0; i < 50; i++) /* initial events delivered, connections parked */
		pump(m, 2);
	CU_ASSERT_EQUAL_FATAL(mock_server_watch_count(s), 5);
	int64_t t0 = nl_test_now_ms();
	mock_server_stop(s);
	CU_ASSERT_TRUE(nl_test_now_ms() - t0 < 2000);
	end = nl_test_now_ms() + 5000;
	for (int i = 0; i < 5; i++) {
		while (!c[i]->done && nl_test_now_ms() < end)
			pump(m, 20);
		CU_ASSERT_TRUE(c[i]->done);
		CU_ASSERT_EQUAL(c[i]->result, CURLE_OK); /* the chunked stream ended cleanly */
		CU_ASSERT_EQUAL(count_lines(c[i]), 4);   /* the four default namespaces */
	}
	for (int i = 0; i < 5; i++)
		w_close_at(m, c[i]);
	curl_multi_cleanup(m);
	mock_server_free(s);
}

static void test_watch__discovery_lists_watch(void)
{
	nl_http_resp r;
	CU_ASSERT_EQUAL_FATAL(nl_http(&r, base, "GET", "/api/v1", NULL, NULL), 0);
	json_object *o = nl_http_json(&r);
	json_object *res = nl_json_get_path(o, "resources");
	int cm_watch = 0, status_watch = 0;
	for (size_t i = 0; i < json_object_array_length(res); i++) {
		json_object *e = json_object_array_get_idx(res, i);
		json_object *verbs = nl_json_get_path(e, "verbs");
		for (size_t k = 0; k < json_object_array_length(verbs); k++) {
			if (strcmp(json_object_get_string(json_object_array_get_idx(verbs, k)),
			           "watch") != 0)
				continue;
			if (strcmp(str(e, "name"), "configmaps") == 0)
				cm_watch = 1;
			if (strcmp(str(e, "name"), "nodes/status") == 0)
				status_watch = 1;
		}
	}
	CU_ASSERT_TRUE(cm_watch);
	CU_ASSERT_FALSE(status_watch);
	json_object_put(o);
	nl_http_resp_free(&r);
}

static CU_TestInfo tests[] = {
    {"initial_added_for_existing_objects", test_watch__initial_added_for_existing_objects},
    {"resumes_after_rv_without_gaps_or_repeats",
     test_watch__resumes_after_rv_without_gaps_or_repeats},
    {"modified_and_deleted_arrive_live", test_watch__modified_and_deleted_arrive_live},
    {"label_selector_enter_and_leave", test_watch__label_selector_enter_and_leave},
    {"bookmarks_when_allowed", test_watch__bookmarks_when_allowed},
    {"timeout_seconds_ends_stream", test_watch__timeout_seconds_ends_stream},
    {"too_old_rv_is_410_error_then_eof", test_watch__too_old_rv_is_410_error_then_eof},
    {"exact_list_too_old_is_410", test_watch__exact_list_too_old_is_410},
    {"send_initial_events_then_end_bookmark", test_watch__send_initial_events_then_end_bookmark},
    {"vanished_client_is_released", test_watch__vanished_client_is_released},
    {"a_thousand_watchers_each_get_the_event", test_watch__a_thousand_watchers_each_get_the_event},
    {"stop_ends_open_streams_promptly", test_watch__stop_ends_open_streams_promptly},
    {"discovery_lists_watch", test_watch__discovery_lists_watch},
    {"watchers_that_never_read_share_one_copy",
     test_watch__watchers_that_never_read_share_one_copy},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"watch", setup, teardown, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
