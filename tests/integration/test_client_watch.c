/* Watch through the client: events in order from a resourceVersion; resume
 * after the server ends or cuts the stream — mid-event too — without losing
 * or repeating an event; bookmarks move the resume point; 410 stops the
 * watch with NL_EGONE. Against nodelet-mockapi (its watch cache and fault
 * injection) and a scripted server for byte-level control. */
#include <nodelet/api.h>
#include <nodelet/configmap.h>
#include <nodelet/meta.h>
#include <nodelet/watch.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../cu_main.h"
#include "client_util.h"
#include "fake_http.h"
#include "http_client.h"
#include "mockapi.h"

static mock_server *srv;
static const char *base;

static int setup(void)
{
	mock_options o;
	mock_options_init(&o);
	o.controller_tick_ms = 0;
	o.watch_cache_size = 20;
	o.watch_bookmark_interval = 1;
	return nl_test_suite_server(&srv, &base, &o);
}

static int teardown(void)
{
	mock_server_free(srv);
	return 0;
}

#define MAX_SEEN 64

typedef struct {
	char what[MAX_SEEN][96]; /* "TYPE name rv" */
	size_t n;
	int errors;
	int error_codes[8];
	int last_error;
	char error_msg[1024];
	nl_watch *stop_me; /* nl_watch_stop from inside the callback */
} seen;

static int on_event(const nl_watch_event *ev, void *payload)
{
	seen *s = payload;
	const char *name = nl_meta_name(ev->object), *rv = nl_meta_resource_version(ev->object);
	if (s->n < MAX_SEEN)
		snprintf(s->what[s->n++], sizeof(s->what[0]), "%s %s %s",
		         nl_watch_type_name(ev->type), name ? name : "-", rv ? rv : "-");
	if (s->stop_me) {
		nl_watch_stop(s->stop_me);
		s->stop_me = NULL;
	}
	return 0;
}

static void on_error(const nl_result *res, void *payload)
{
	seen *s = payload;
	if (s->errors < 8)
		s->error_codes[s->errors] = res->code;
	s->errors++;
	s->last_error = res->code;
	snprintf(s->error_msg, sizeof(s->error_msg), "%s", res->message);
}

/* Step the loop until cond(payload) or 10 s of real time. */
static int run_until(nl_loop *l, int (*cond)(void *), void *payload)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!cond(payload)) {
		if (nl_loop_step(l, 50) < 0)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 10)
			return 0;
	}
	return 1;
}

static size_t want_n;
static int has_n(void *p)
{
	return ((seen *)p)->n >= want_n;
}

static int has_error(void *p)
{
	return ((seen *)p)->errors > 0;
}

static void make_cm(nl_client *c, const char *ns, const char *name)
{
	json_object *cm, *out = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_configmap_new(&cm, ns, name), 0);
	CU_ASSERT_EQUAL(nl_configmap_create(&out, c, cm, NULL), 0);
	json_object_put(cm);
	json_object_put(out);
}

/* A list's resourceVersion: where a watch starts. */
static char *list_rv(nl_client *c, const char *path)
{
	json_object *list = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_api_list(&list, c, path, NULL, NULL), 0);
	char *rv = strdup(nl_meta_resource_version(list));
	json_object_put(list);
	return rv;
}

static nl_watch *watch_from(nl_client *c, const char *path, const char *rv, seen *s)
{
	nl_watch_options o = {0};
	nl_watch *w = NULL;
	o.path = path;
	o.resource_version = rv;
	o.on_event = on_event;
	o.on_error = on_error;
	o.payload = s;
	CU_ASSERT_EQUAL_FATAL(nl_watch_start(&w, c, &o), 0);
	return w;
}

static void assert_names_once(const seen *s, const char *type, int count)
{
	/* Every object w-0 ... w-(count-1) exactly once, in order. */
	CU_ASSERT_EQUAL(s->n, (size_t)count);
	for (int i = 0; i < count && (size_t)i < s->n; i++) {
		char want[64];
		snprintf(want, sizeof(want), "%s w-%d ", type, i);
		CU_ASSERT_NSTRING_EQUAL(s->what[i], want, strlen(want));
	}
}

/* ------------------------------------------------------------------------ */

static void test_client_watch__events_in_order_from_a_list(void)
{
	nl_client *c = nl_test_client_at(base, NULL, -1);
	const char *path = "/api/v1/namespaces/kube-public/configmaps";
	char *rv = list_rv(c, path);
	seen s = {0};
	nl_watch *w = watch_from(c, path, rv, &s);
	json_object *cm, *v1 = NULL, *v2 = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_configmap_new(&cm, "kube-public", "order"), 0);
	CU_ASSERT_EQUAL_FATAL(nl_configmap_create(&v1, c, cm, NULL), 0);
	nl_configmap_set(v1, "k", "v");
	CU_ASSERT_EQUAL_FATAL(nl_configmap_update(&v2, c, v1, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(nl_configmap_delete(c, "kube-public", "order", NULL, NULL), 0);
	want_n = 3;
	CU_ASSERT_TRUE(run_until(nl_client_loop(c), has_n, &s));
	CU_ASSERT_NSTRING_EQUAL(s.what[0], "ADDED order ", 12);
	CU_ASSERT_NSTRING_EQUAL(s.what[1], "MODIFIED order ", 15);
	CU_ASSERT_NSTRING_EQUAL(s.what[2], "DELETED order ", 14);
	/* The resume point is the last event's resourceVersion. */
	CU_ASSERT_STRING_EQUAL(strrchr(s.what[2], ' ') + 1, nl_watch_resource_version(w));
	CU_ASSERT_EQUAL(s.errors, 0);
	nl_watch_stop(w);
	json_object_put(cm);
	json_object_put(v1);
	json_object_put(v2);
	free(rv);
	nl_client_free(c);
}

/* The server ends the stream after two events: the watch resumes from the
 * second one's resourceVersion and gets the other three, each once. */
static void test_client_watch__resume_after_server_disconnect(void)
{
	nl_client *c = nl_test_client_at(base, NULL, -1);
	nl_err err = {0};
	const char *path = "/api/v1/namespaces/default/configmaps";
	char *rv = list_rv(c, path);
	CU_ASSERT_EQUAL_FATAL(
	    mock_server_add_fault(NULL, srv,
	                          "{\"match\":{\"verb\":\"watch\",\"resource\":\"configmaps\"},"
	                          "\"action\":{\"watch\":{\"closeAfterEvents\":2}},\"times\":1}",
	                          &err),
	    0);
	seen s = {0};
	nl_watch *w = watch_from(c, path, rv, &s);
	for (int i = 0; i < 5; i++) {
		char name[16];
		snprintf(name, sizeof(name), "w-%d", i);
		make_cm(c, "default", name);
	}
	want_n = 5;
	CU_ASSERT_TRUE(run_until(nl_client_loop(c), has_n, &s));
	/* Give a repeat the chance to show up. */
	for (int i = 0; i < 5; i++)
		nl_loop_step(nl_client_loop(c), 20);
	assert_names_once(&s, "ADDED", 5);
	CU_ASSERT_EQUAL(nl_watch_requests(w), 2);
	CU_ASSERT_EQUAL(s.errors, 0);
	nl_watch_stop(w);
	free(rv);
	nl_client_free(c);
}

static int two_requests(void *p)
{
	return nl_watch_requests(p) >= 2;
}

/* The server's timeoutSeconds ends the stream; a write right after is not
 * lost. */
static void test_client_watch__resume_after_server_timeout(void)
{
	nl_client *c = nl_test_client_at(base, NULL, -1);
	const char *path = "/api/v1/namespaces/kube-system/configmaps";
	char *rv = list_rv(c, path);
	seen s = {0};
	nl_watch_options o = {0};
	nl_watch *w = NULL;
	o.path = path;
	o.resource_version = rv;
	o.timeout_seconds = 1;
	o.on_event = on_event;
	o.on_error = on_error;
	o.payload = &s;
	CU_ASSERT_EQUAL_FATAL(nl_watch_start(&w, c, &o), 0);
	make_cm(c, "kube-system", "w-0");
	want_n = 1;
	CU_ASSERT_TRUE(run_until(nl_client_loop(c), has_n, &s));
	CU_ASSERT_TRUE(run_until(nl_client_loop(c), two_requests, w));
	make_cm(c, "kube-system", "w-1");
	want_n = 2;
	CU_ASSERT_TRUE(run_until(nl_client_loop(c), has_n, &s));
	assert_names_once(&s, "ADDED", 2);
	CU_ASSERT_EQUAL(s.errors, 0);
	nl_watch_stop(w);
	free(rv);
	nl_client_free(c);
}

/* ERROR event 410 from the server: NL_EGONE, and the watch stays quiet
 * until restarted. */
static void test_client_watch__expired_stops_with_gone(void)
{
	nl_client *c = nl_test_client_at(base, NULL, -1);
	nl_err err = {0};
	const char *path = "/api/v1/namespaces/kube-node-lease/configmaps";
	char *rv = list_rv(c, path);
	CU_ASSERT_EQUAL_FATAL(
	    mock_server_add_fault(
	        NULL, srv,
	        "{\"match\":{\"verb\":\"watch\",\"namespace\":\"kube-node-lease\"},"
	        "\"action\":{\"watch\":{\"expire\":true}},\"times\":1}",
	        &err),
	    0);
	seen s = {0};
	nl_watch *w = watch_from(c, path, rv, &s);
	CU_ASSERT_TRUE(run_until(nl_client_loop(c), has_error, &s));
	CU_ASSERT_EQUAL(s.last_error, NL_EGONE);
	CU_ASSERT_PTR_NOT_NULL(strstr(s.error_msg, "too old resource version"));
	for (int i = 0; i < 10; i++)
		nl_loop_step(nl_client_loop(c), 20);
	CU_ASSERT_EQUAL(nl_watch_requests(w), 1);
	CU_ASSERT_EQUAL(s.errors, 1);
	/* After a relist the owner restarts it. */
	char *rv2 = list_rv(c, path);
	CU_ASSERT_EQUAL(nl_watch_restart(w, rv2), 0);
	make_cm(c, "kube-node-lease", "w-0");
	want_n = 1;
	CU_ASSERT_TRUE(run_until(nl_client_loop(c), has_n, &s));
	assert_names_once(&s, "ADDED", 1);
	nl_watch_stop(w);
	free(rv);
	free(rv2);
	nl_client_free(c);
}

/* A resourceVersion older than the watch cache (20 changes here): 410. */
static void test_client_watch__too_old_resource_version_is_gone(void)
{
	nl_client *c = nl_test_client_at(base, NULL, -1);
	const char *path = "/api/v1/namespaces/default/configmaps";
	char *rv = list_rv(c, path);
	for (int i = 0; i < 30; i++) {
		char name[16];
		snprintf(name, sizeof(name), "old-%d", i);
		make_cm(c, "default", name);
	}
	seen s = {0};
	nl_watch *w = watch_from(c, path, rv, &s);
	CU_ASSERT_TRUE(run_until(nl_client_loop(c), has_error, &s));
	CU_ASSERT_EQUAL(s.last_error, NL_EGONE);
	CU_ASSERT_EQUAL(s.n, 0);
	nl_watch_stop(w);
	free(rv);
	nl_client_free(c);
}

static int rv_moved(void *p)
{
	void **a = p;
	return strcmp(nl_watch_resource_version(a[0]), a[1]) != 0;
}

/* Bookmarks (every second on this server) advance the resume point without
 * reaching on_event, unless asked for. */
static void test_client_watch__bookmarks_advance_resume_point(void)
{
	nl_client *c = nl_test_client_at(base, NULL, -1);
	const char *path = "/api/v1/namespaces/kube-public/leases";
	char *rv = list_rv(c, "/api/v1/namespaces/kube-public/configmaps");
	make_cm(c, "default", "bump"); /* the global resourceVersion moves on */
	seen s = {0};
	nl_watch *w =
	    watch_from(c, "/apis/coordination.k8s.io/v1/namespaces/kube-public/leases", rv, &s);
	void *args[2] = {w, rv};
	CU_ASSERT_TRUE(run_until(nl_client_loop(c), rv_moved, args));
	CU_ASSERT_EQUAL(s.n, 0);
	nl_watch_stop(w);
	seen b = {0};
	nl_watch_options o = {0};
	o.path = "/apis/coordination.k8s.io/v1/namespaces/kube-public/leases";
	o.resource_version = rv;
	o.deliver_bookmarks = 1;
	o.on_event = on_event;
	o.payload = &b;
	CU_ASSERT_EQUAL_FATAL(nl_watch_start(&w, c, &o), 0);
	want_n = 1;
	CU_ASSERT_TRUE(run_until(nl_client_loop(c), has_n, &b));
	CU_ASSERT_NSTRING_EQUAL(b.what[0], "BOOKMARK - ", 11);
	nl_watch_stop(w);
	(void)path;
	free(rv);
	nl_client_free(c);
}

static void test_client_watch__stop_from_inside_the_callback(void)
{
	nl_client *c = nl_test_client_at(base, NULL, -1);
	const char *path = "/api/v1/namespaces/kube-public/configmaps";
	char *rv = list_rv(c, path);
	seen s = {0};
	nl_watch *w = watch_from(c, path, rv, &s);
	s.stop_me = w;
	make_cm(c, "kube-public", "stop-1");
	make_cm(c, "kube-public", "stop-2");
	want_n = 1;
	CU_ASSERT_TRUE(run_until(nl_client_loop(c), has_n, &s));
	for (int i = 0; i < 10; i++)
		nl_loop_step(nl_client_loop(c), 20);
	CU_ASSERT_EQUAL(s.n, 1); /* nothing after the stop */
	CU_ASSERT_EQUAL(nl_loop_pending(nl_client_loop(c)), 0);
	free(rv);
	nl_client_free(c);
}

/* ------------------------------------------------------------------------
 * Byte-level control with a scripted server */

typedef struct {
	pthread_mutex_t mu;
	char targets[8][2048];
	int n;
} wire;

static const char ev11[] = "{\"type\":\"ADDED\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":"
                           "\"v1\",\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"11\"}}}\n";
static const char ev12[] =
    "{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":"
    "\"v1\",\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"12\"}}}\n";
static const char ev13[] = "{\"type\":\"ADDED\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":"
                           "\"v1\",\"metadata\":{\"name\":\"b\",\"resourceVersion\":\"13\"}}}\n";
static const char bm20[] =
    "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":"
    "\"v1\",\"metadata\":{\"resourceVersion\":\"20\"}}}\n";
static const char ev21[] =
    "{\"type\":\"DELETED\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":"
    "\"v1\",\"metadata\":{\"name\":\"b\",\"resourceVersion\":\"21\"}}}\n";
static const char err500[] =
    "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
    "\"status\":\"Failure\",\"message\":\"Internal error occurred: etcd hiccup\",\"reason\":"
    "\"InternalError\",\"code\":500}}\n";

/* Send text in chunks of odd sizes. */
static void dribble(int fd, const char *text, size_t len, size_t step)
{
	for (size_t at = 0; at < len; at += step)
		fake_http_chunk(fd, text + at, at + step > len ? len - at : step);
}

static int scripted(int fd, const fake_http_req *r, void *payload)
{
	wire *wi = payload;
	pthread_mutex_lock(&wi->mu);
	int n = wi->n++;
	if (n < 8)
		snprintf(wi->targets[n], sizeof(wi->targets[n]), "%s", r->target);
	pthread_mutex_unlock(&wi->mu);
	fake_http_start_chunked(fd, 200, "application/json");
	switch (n) {
	case 0: /* two events, then half of a third, and the connection dies */
		dribble(fd, ev11, strlen(ev11), 7);
		dribble(fd, ev12, strlen(ev12), 13);
		dribble(fd, ev13, 40, 3);
		return 1;
	case 1: /* the third whole, a bookmark, then an ERROR 500 */
		dribble(fd, ev13, strlen(ev13), 5);
		fake_http_chunk(fd, bm20, strlen(bm20));
		fake_http_chunk(fd, err500, strlen(err500));
		fake_http_chunk(fd, NULL, 0);
		return 0;
	case 2: /* after the backoff: from the bookmark on */
		fake_http_chunk(fd, ev21, strlen(ev21));
		fake_http_chunk(fd, NULL, 0);
		return 0;
	default: /* nothing more; end at once (the watch backs off) */
		usleep(50000);
		fake_http_chunk(fd, NULL, 0);
		return 0;
	}
}

static void test_client_watch__cut_mid_event_resumes_without_loss_or_repeat(void)
{
	wire wi = {0};
	fake_http *f;
	nl_clock *clock;
	pthread_mutex_init(&wi.mu, NULL);
	CU_ASSERT_EQUAL_FATAL(fake_http_start(&f, scripted, &wi), 0);
	/* A fake clock: the backoff after the ERROR event takes no real time. */
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&clock, 0), 0);
	nl_client *c = nl_test_client_at(fake_http_url(f), clock, -1);
	seen s = {0};
	nl_watch *w = watch_from(c, "/api/v1/namespaces/default/configmaps", "10", &s);
	want_n = 4;
	CU_ASSERT_TRUE(run_until(nl_client_loop(c), has_n, &s));
	CU_ASSERT_EQUAL_FATAL(s.n, 4);
	CU_ASSERT_STRING_EQUAL(s.what[0], "ADDED a 11");
	CU_ASSERT_STRING_EQUAL(s.what[1], "MODIFIED a 12");
	CU_ASSERT_STRING_EQUAL(s.what[2], "ADDED b 13");
	CU_ASSERT_STRING_EQUAL(s.what[3], "DELETED b 21");
	/* The cut was reported, then the ERROR event with its Status. */
	CU_ASSERT_EQUAL(s.errors, 2);
	CU_ASSERT_EQUAL(s.error_codes[0], NL_ETRANSPORT);
	CU_ASSERT_EQUAL(s.error_codes[1], NL_ESERVER);
	CU_ASSERT_STRING_EQUAL(s.error_msg, "Internal error occurred: etcd hiccup");
	pthread_mutex_lock(&wi.mu);
	CU_ASSERT_PTR_NOT_NULL(strstr(wi.targets[0], "resourceVersion=10"));
	CU_ASSERT_PTR_NOT_NULL(strstr(wi.targets[0], "watch=true"));
	CU_ASSERT_PTR_NOT_NULL(strstr(wi.targets[0], "allowWatchBookmarks=true"));
	CU_ASSERT_PTR_NOT_NULL(strstr(wi.targets[1], "resourceVersion=12"));
	CU_ASSERT_PTR_NOT_NULL(strstr(wi.targets[2], "resourceVersion=20"));
	pthread_mutex_unlock(&wi.mu);
	nl_watch_stop(w);
	nl_client_free(c);
	nl_clock_free(clock);
	fake_http_stop(f);
	pthread_mutex_destroy(&wi.mu);
}

static int gone_410(int fd, const fake_http_req *r, void *payload)
{
	(void)r;
	(void)payload;
	return fake_http_reply(fd, 410, NULL, "application/json",
	                       "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
	                       "\"status\":\"Failure\",\"message\":\"too old resource version: 1 "
	                       "(50)\",\"reason\":\"Expired\",\"code\":410}") != 0;
}

static void test_client_watch__http_410_is_gone(void)
{
	fake_http *f;
	CU_ASSERT_EQUAL_FATAL(fake_http_start(&f, gone_410, NULL), 0);
	nl_client *c = nl_test_client_at(fake_http_url(f), NULL, -1);
	seen s = {0};
	nl_watch *w = watch_from(c, "/api/v1/nodes", "1", &s);
	CU_ASSERT_TRUE(run_until(nl_client_loop(c), has_error, &s));
	CU_ASSERT_EQUAL(s.last_error, NL_EGONE);
	CU_ASSERT_STRING_EQUAL(s.error_msg, "too old resource version: 1 (50)");
	nl_watch_stop(w);
	nl_client_free(c);
	fake_http_stop(f);
}

static CU_TestInfo tests[] = {
    {"events_in_order_from_a_list", test_client_watch__events_in_order_from_a_list},
    {"resume_after_server_disconnect", test_client_watch__resume_after_server_disconnect},
    {"resume_after_server_timeout", test_client_watch__resume_after_server_timeout},
    {"expired_stops_with_gone", test_client_watch__expired_stops_with_gone},
    {"too_old_resource_version_is_gone", test_client_watch__too_old_resource_version_is_gone},
    {"bookmarks_advance_resume_point", test_client_watch__bookmarks_advance_resume_point},
    {"stop_from_inside_the_callback", test_client_watch__stop_from_inside_the_callback},
    {"cut_mid_event_resumes_without_loss_or_repeat",
     test_client_watch__cut_mid_event_resumes_without_loss_or_repeat},
    {"http_410_is_gone", test_client_watch__http_410_is_gone},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {{"client_watch", setup, teardown, NULL, NULL, tests},
                                 CU_SUITE_INFO_NULL};
