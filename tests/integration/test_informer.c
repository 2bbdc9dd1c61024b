/* The informer: list (paged) then watch, a cache with add/update/delete
 * handlers, relist on 410 with the difference reported, periodic resync on
 * the clock, stop from a handler. */
#include <nodelet/api.h>
#include <nodelet/configmap.h>
#include <nodelet/informer.h>
#include <nodelet/meta.h>
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
	return nl_test_suite_server(&srv, &base, &o);
}

static int teardown(void)
{
	mock_server_free(srv);
	return 0;
}

#define MAX_LOG 64

typedef struct {
	char log[MAX_LOG][96]; /* "add a", "update a 12->13", "delete b" */
	size_t n;
	int errors;
	int resyncs; /* updates with old == new */
	nl_informer *stop_me;
} handled;

static void note(handled *h, const char *fmt, const char *a, const char *b, const char *c)
{
	if (h->n < MAX_LOG)
		snprintf(h->log[h->n++], sizeof(h->log[0]), fmt, a ? a : "", b ? b : "",
		         c ? c : "");
}

static void on_add(json_object *obj, void *payload)
{
	handled *h = payload;
	CU_ASSERT_PTR_NOT_NULL(nl_json_get_string(obj, "kind"));
	note(h, "add %s%s%s", nl_meta_name(obj), NULL, NULL);
	if (h->stop_me) {
		nl_informer_stop(h->stop_me);
		h->stop_me = NULL;
	}
}

static void on_update(json_object *old_obj, json_object *new_obj, void *payload)
{
	handled *h = payload;
	if (old_obj == new_obj) {
		h->resyncs++;
		return;
	}
	note(h, "update %s %s->%s", nl_meta_name(new_obj), nl_meta_resource_version(old_obj),
	     nl_meta_resource_version(new_obj));
}

static void on_delete(json_object *obj, void *payload)
{
	handled *h = payload;
	note(h, "delete %s%s%s", nl_meta_name(obj), NULL, NULL);
}

static void on_error(const nl_result *res, void *payload)
{
	handled *h = payload;
	(void)res;
	h->errors++;
}

static nl_informer *start(nl_client *c, const char *path, handled *h, int64_t resync, long page)
{
	nl_informer_options o = {0};
	nl_informer *inf = NULL;
	o.path = path;
	o.resync_usec = resync;
	o.page_size = page;
	o.handlers.on_add = on_add;
	o.handlers.on_update = on_update;
	o.handlers.on_delete = on_delete;
	o.on_error = on_error;
	o.payload = h;
	CU_ASSERT_EQUAL_FATAL(nl_informer_start(&inf, c, &o), 0);
	return inf;
}

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
	return ((handled *)p)->n >= want_n;
}

static int synced(void *p)
{
	return nl_informer_synced(p);
}

static void make_cm(nl_client *c, const char *ns, const char *name)
{
	json_object *cm, *out = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_configmap_new(&cm, ns, name), 0);
	CU_ASSERT_EQUAL(nl_configmap_create(&out, c, cm, NULL), 0);
	json_object_put(cm);
	json_object_put(out);
}

static int logged(const handled *h, const char *prefix)
{
	for (size_t i = 0; i < h->n; i++)
		if (strncmp(h->log[i], prefix, strlen(prefix)) == 0)
			return 1;
	return 0;
}

/* ------------------------------------------------------------------------ */

static void test_informer__list_then_watch_keeps_cache(void)
{
	nl_client *c = nl_test_client_at(base, NULL, -1);
	for (int i = 0; i < 5; i++) {
		char name[16];
		snprintf(name, sizeof(name), "pre-%d", i);
		make_cm(c, "kube-public", name);
	}
	handled h = {0};
	/* Pages of two: the first list takes three requests. */
	nl_informer *inf = start(c, "/api/v1/namespaces/kube-public/configmaps", &h, 0, 2);
	CU_ASSERT_TRUE(run_until(nl_client_loop(c), synced, inf));
	CU_ASSERT_EQUAL(nl_informer_lists(inf), 1);
	CU_ASSERT_EQUAL(nl_informer_count(inf), 5);
	CU_ASSERT_EQUAL(h.n, 5);
	json_object *cached = nl_informer_get(inf, "kube-public", "pre-3");
	CU_ASSERT_PTR_NOT_NULL_FATAL(cached);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(cached, "kind"), "ConfigMap");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(cached, "apiVersion"), "v1");

	/* Live changes reach the handlers and the cache. */
	json_object *cur = NULL, *out = NULL;
	CU_ASSERT_EQUAL(nl_configmap_get(&cur, c, "kube-public", "pre-1", NULL), 0);
	nl_configmap_set(cur, "k", "v");
	CU_ASSERT_EQUAL(nl_configmap_update(&out, c, cur, NULL), 0);
	CU_ASSERT_EQUAL(nl_configmap_delete(c, "kube-public", "pre-2", NULL, NULL), 0);
	make_cm(c, "kube-public", "live");
	want_n = 8;
	CU_ASSERT_TRUE(run_until(nl_client_loop(c), has_n, &h));
	char want[96];
	snprintf(want, sizeof(want), "update pre-1 %s->%s", nl_meta_resource_version(cur),
	         nl_meta_resource_version(out));
	CU_ASSERT_STRING_EQUAL(h.log[5], want);
	CU_ASSERT_STRING_EQUAL(h.log[6], "delete pre-2");
	CU_ASSERT_STRING_EQUAL(h.log[7], "add live");
	CU_ASSERT_EQUAL(nl_informer_count(inf), 5);
	CU_ASSERT_PTR_NULL(nl_informer_get(inf, "kube-public", "pre-2"));
	CU_ASSERT_STRING_EQUAL(nl_configmap_data(nl_informer_get(inf, "kube-public", "pre-1"), "k"),
	                       "v");
	CU_ASSERT_STRING_EQUAL(
	    nl_informer_resource_version(inf),
	    nl_meta_resource_version(nl_informer_get(inf, "kube-public", "live")));
	CU_ASSERT_EQUAL(h.errors, 0);
	json_object_put(cur);
	json_object_put(out);
	nl_informer_stop(inf);
	nl_client_free(c);
}

/* The server expires the first watch: the informer lists again and keeps
 * watching. */
static void test_informer__relists_on_410(void)
{
	nl_client *c = nl_test_client_at(base, NULL, -1);
	nl_err err = {0};
	make_cm(c, "kube-node-lease", "a");
	CU_ASSERT_EQUAL_FATAL(
	    mock_server_add_fault(
	        NULL, srv,
	        "{\"match\":{\"verb\":\"watch\",\"namespace\":\"kube-node-lease\"},"
	        "\"action\":{\"watch\":{\"expire\":true}},\"times\":1}",
	        &err),
	    0);
	handled h = {0};
	nl_informer *inf = start(c, "/api/v1/namespaces/kube-node-lease/configmaps", &h, 0, 0);
	CU_ASSERT_TRUE(run_until(nl_client_loop(c), synced, inf));
	while (nl_informer_lists(inf) < 2)
		CU_ASSERT_FATAL(nl_loop_step(nl_client_loop(c), 50) >= 0);
	make_cm(c, "kube-node-lease", "b");
	want_n = 2;
	CU_ASSERT_TRUE(run_until(nl_client_loop(c), has_n, &h));
	CU_ASSERT_STRING_EQUAL(h.log[0], "add a");
	CU_ASSERT_STRING_EQUAL(h.log[1], "add b"); /* the relist found nothing new */
	CU_ASSERT_EQUAL(h.errors, 0);              /* a 410 is handled, not reported */
	nl_informer_stop(inf);
	nl_client_free(c);
}

/* A scripted server: list 1 has a and b; the watch is expired; list 2 has
 * a (unchanged) and c; the next watch modifies a. */
typedef struct {
	pthread_mutex_t mu;
	int lists, watches;
} relist_script;

static int relist_server(int fd, const fake_http_req *r, void *payload)
{
	relist_script *s = payload;
	int watch = strstr(r->target, "watch=true") != NULL;
	pthread_mutex_lock(&s->mu);
	int n = watch ? s->watches++ : s->lists++;
	pthread_mutex_unlock(&s->mu);
	if (!watch)
		return fake_http_reply(
		           fd, 200, NULL, "application/json",
		           n == 0
		               ? "{\"kind\":\"ConfigMapList\",\"apiVersion\":\"v1\",\"metadata\":{"
		                 "\"resourceVersion\":\"10\"},\"items\":[{\"metadata\":{\"name\":"
		                 "\"a\",\"namespace\":\"d\",\"resourceVersion\":\"5\"}},{"
		                 "\"metadata\":"
		                 "{\"name\":\"b\",\"namespace\":\"d\",\"resourceVersion\":\"6\"}}]}"
		               : "{\"kind\":\"ConfigMapList\",\"apiVersion\":\"v1\",\"metadata\":{"
		                 "\"resourceVersion\":\"30\"},\"items\":[{\"metadata\":{\"name\":"
		                 "\"a\",\"namespace\":\"d\",\"resourceVersion\":\"5\"}},{"
		                 "\"metadata\":"
		                 "{\"name\":\"c\",\"namespace\":\"d\",\"resourceVersion\":\"25\"}}]"
		                 "}") != 0;
	fake_http_start_chunked(fd, 200, "application/json");
	const char *ev =
	    n == 0 ? (strstr(r->target, "resourceVersion=10")
	                  ? "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":"
	                    "\"v1\","
	                    "\"metadata\":{},\"status\":\"Failure\",\"message\":\"too old resource "
	                    "version: 10 (20)\",\"reason\":\"Expired\",\"code\":410}}\n"
	                  : "{\"type\":\"ERROR\",\"object\":{}}\n")
	    : n == 1 && strstr(r->target, "resourceVersion=30")
	        ? "{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\","
	          "\"metadata\":{\"name\":\"a\",\"namespace\":\"d\",\"resourceVersion\":\"31\"}}}\n"
	        : NULL;
	if (ev)
		fake_http_chunk(fd, ev, strlen(ev));
	if (n >= 1) /* keep the stream open a little, then end it */
		usleep(100000);
	fake_http_chunk(fd, NULL, 0);
	return 0;
}

static void test_informer__relist_reports_the_difference(void)
{
	relist_script s = {0};
	fake_http *f;
	pthread_mutex_init(&s.mu, NULL);
	CU_ASSERT_EQUAL_FATAL(fake_http_start(&f, relist_server, &s), 0);
	nl_client *c = nl_test_client_at(fake_http_url(f), NULL, -1);
	handled h = {0};
	nl_informer *inf = start(c, "/api/v1/namespaces/d/configmaps", &h, 0, 0);
	want_n = 5;
	CU_ASSERT_TRUE(run_until(nl_client_loop(c), has_n, &h));
	CU_ASSERT_EQUAL_FATAL(h.n, 5);
	CU_ASSERT_STRING_EQUAL(h.log[0], "add a");
	CU_ASSERT_STRING_EQUAL(h.log[1], "add b");
	/* Relist: c is new, b is gone, a (same resourceVersion) is quiet. */
	CU_ASSERT_STRING_EQUAL(h.log[2], "add c");
	CU_ASSERT_STRING_EQUAL(h.log[3], "delete b");
	CU_ASSERT_STRING_EQUAL(h.log[4], "update a 5->31");
	CU_ASSERT_EQUAL(nl_informer_lists(inf), 2);
	CU_ASSERT_EQUAL(nl_informer_count(inf), 2);
	CU_ASSERT_PTR_NULL(nl_informer_get(inf, "d", "b"));
	nl_informer_stop(inf);
	nl_client_free(c);
	fake_http_stop(f);
	pthread_mutex_destroy(&s.mu);
}

/* Resync on the clock: every cached object to on_update(obj, obj). */
static void test_informer__periodic_resync(void)
{
	nl_clock *clock;
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&clock, 0), 0);
	nl_client *c = nl_test_client_at(base, clock, -1);
	handled h = {0};
	nl_informer *inf =
	    start(c, "/api/v1/namespaces/kube-public/configmaps", &h, 30 * NL_USEC_PER_SEC, 0);
	CU_ASSERT_TRUE(run_until(nl_client_loop(c), synced, inf));
	size_t cached = nl_informer_count(inf);
	CU_ASSERT(cached > 0);
	CU_ASSERT_EQUAL(h.resyncs, 0);
	nl_clock_advance(clock, 29 * NL_USEC_PER_SEC);
	CU_ASSERT_EQUAL(h.resyncs, 0);
	nl_clock_advance(clock, 1 * NL_USEC_PER_SEC);
	CU_ASSERT_EQUAL((size_t)h.resyncs, cached);
	nl_clock_advance(clock, 30 * NL_USEC_PER_SEC);
	CU_ASSERT_EQUAL((size_t)h.resyncs, 2 * cached);
	nl_informer_stop(inf);
	nl_client_free(c);
	nl_clock_free(clock);
}

static void test_informer__stop_from_a_handler(void)
{
	nl_client *c = nl_test_client_at(base, NULL, -1);
	make_cm(c, "default", "stopper-1");
	make_cm(c, "default", "stopper-2");
	handled h = {0};
	nl_informer *inf = start(c, "/api/v1/namespaces/default/configmaps", &h, 0, 0);
	h.stop_me = inf;
	want_n = 1;
	CU_ASSERT_TRUE(run_until(nl_client_loop(c), has_n, &h));
	for (int i = 0; i < 10; i++)
		nl_loop_step(nl_client_loop(c), 10);
	CU_ASSERT_EQUAL(h.n, 1);
	CU_ASSERT_EQUAL(nl_loop_pending(nl_client_loop(c)), 0);
	CU_ASSERT_FALSE(logged(&h, "delete"));
	nl_client_free(c);
}

static CU_TestInfo tests[] = {
    {"list_then_watch_keeps_cache", test_informer__list_then_watch_keeps_cache},
    {"relists_on_410", test_informer__relists_on_410},
    {"relist_reports_the_difference", test_informer__relist_reports_the_difference},
    {"periodic_resync", test_informer__periodic_resync},
    {"stop_from_a_handler", test_informer__stop_from_a_handler},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {{"informer", setup, teardown, NULL, NULL, tests},
                                 CU_SUITE_INFO_NULL};
