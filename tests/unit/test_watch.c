/* The watch hub without sockets: what each watcher is sent for a sequence
 * of store changes (kube-apiserver's watch cache semantics: order,
 * resumption, 410 for history it no longer has, selectors that objects
 * enter and leave), bookmarks and timeouts, parking and waking, and the
 * request handler's validation and framing (JSON lines, protobuf frames).
 * Connections are fakes that count park and
 * wake calls. */
#include <nodelet/meta.h>
#include <nodelet/protobuf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cu_main.h"
#include "api/route.h"
#include "control/faults.h"
#include "core/request.h"
#include "handlers/api.h"
#include "mockapi.h"
#include "storage/store.h"
#include "watch/watch.h"

static mock_store *store;
static mock_watch_hub *hub;
static const mock_resource *cm;

typedef struct {
	int parked;
	int woken; /* written by the hub thread */
} fake_conn;

static void fake_park(void *c)
{
	((fake_conn *)c)->parked++;
}

static void fake_wake(void *c)
{
	__atomic_add_fetch(&((fake_conn *)c)->woken, 1, __ATOMIC_SEQ_CST);
}

static uint64_t rv_of(const char *json)
{
	json_object *o = json_tokener_parse(json);
	uint64_t rv = 0;
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_EQUAL(nl_rv_parse(&rv, nl_meta_resource_version(o)), 0);
	json_object_put(o);
	return rv;
}

static uint64_t write_obj(const mock_resource *r, mock_write_op op, const char *text)
{
	json_object *o = json_tokener_parse(text);
	char *out = NULL;
	size_t len = 0;
	nl_status *st = NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	int rc = mock_store_write(store, r, op, o, NULL, NULL, &out, &len, NULL, &st);
	json_object_put(o);
	if (rc != 0)
		fprintf(stderr, "\nwrite failed: %s\n", st && st->message ? st->message : "?");
	nl_status_free(st);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	uint64_t rv = rv_of(out);
	free(out);
	return rv;
}

/* Create (or update) ConfigMap ns/name with labels (a JSON object) and one
 * data value; returns its resourceVersion. */
static uint64_t put_cm(const char *ns, const char *name, const char *labels, const char *value,
                       mock_write_op op)
{
	char text[512];
	snprintf(text, sizeof(text),
	         "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\","
	         "\"namespace\":\"%s\",\"labels\":%s},\"data\":{\"v\":\"%s\"}}",
	         name, ns, labels ? labels : "{}", value);
	return write_obj(cm, op, text);
}

static uint64_t del_cm(const char *ns, const char *name)
{
	char *out = NULL;
	size_t len = 0;
	CU_ASSERT_EQUAL_FATAL(mock_store_delete(store, cm, ns, name, NULL, NULL, &out, &len, NULL),
	                      0);
	uint64_t rv = rv_of(out);
	free(out);
	return rv;
}

static void env_start(size_t cache, unsigned bookmark_ms)
{
	cm = mock_resource_get(MOCK_KIND_CONFIGMAP);
	CU_ASSERT_EQUAL_FATAL(mock_store_new(&store, NULL, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(mock_watch_hub_new(&hub, store, cache, bookmark_ms), 0);
	const mock_resource *ns = mock_resource_get(MOCK_KIND_NAMESPACE);
	write_obj(ns, MOCK_WRITE_CREATE,
	          "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"a\"}}");
	write_obj(ns, MOCK_WRITE_CREATE,
	          "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"b\"}}");
}

static void env_stop(void)
{
	mock_watch_hub_free(hub);
	mock_store_free(store);
	hub = NULL;
	store = NULL;
}

/* A watcher of ConfigMaps from rv; ns/labels/fields may be NULL. */
static mock_watcher *open_cm(uint64_t rv, int check, const char *ns, const char *labels,
                             const char *fields)
{
	mock_watch_spec spec = {.r = cm, .ns = ns, .rv = rv, .check_expired = check};
	mock_watcher *w = NULL;
	spec.timeout_ms = 60000;
	CU_ASSERT_EQUAL_FATAL(nl_label_selector_parse(&spec.labels, labels, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(nl_field_selector_parse(&spec.fields, fields, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(mock_watch_open(&w, hub, &spec, NULL), 0);
	return w;
}

/* Everything w has to send now, in reads of step bytes; *end gets the
 * final result (0: nothing more now, MOCK_WATCH_END, MOCK_WATCH_ABORT). */
static char *drain(mock_watcher *w, size_t step, ssize_t *end)
{
	nl_buf b;
	char chunk[4096];
	ssize_t n;
	nl_buf_init(&b, 0);
	while ((n = mock_watch_read(w, chunk, step)) > 0)
		nl_buf_add(&b, chunk, (size_t)n);
	*end = n;
	nl_buf_adds(&b, "");
	return nl_buf_detach(&b, NULL);
}

typedef struct {
	char type[16];
	char name[64];
	uint64_t rv;
	char line[2048];
} event;

/* Split newline-terminated lines into events; returns the count. */
static size_t parse_events(event *ev, size_t max, const char *text)
{
	size_t n = 0;
	const char *p = text;
	while (*p && n < max) {
		const char *nl = strchr(p, '\n');
		CU_ASSERT_PTR_NOT_NULL_FATAL(nl);
		size_t len = (size_t)(nl - p);
		snprintf(ev[n].line, sizeof(ev[n].line), "%.*s", (int)len, p);
		json_object *o = json_tokener_parse(ev[n].line);
		CU_ASSERT_PTR_NOT_NULL_FATAL(o);
		const char *t = nl_json_get_string(o, "type");
		const char *name = nl_json_get_string(o, "object.metadata.name");
		snprintf(ev[n].type, sizeof(ev[n].type), "%s", t ? t : "");
		snprintf(ev[n].name, sizeof(ev[n].name), "%s", name ? name : "");
		ev[n].rv = 0;
		nl_rv_parse(&ev[n].rv, nl_json_get_string(o, "object.metadata.resourceVersion"));
		json_object_put(o);
		n++;
		p = nl + 1;
	}
	return n;
}

static size_t read_events(mock_watcher *w, event *ev, size_t max, ssize_t *end)
{
	char *text = drain(w, 4096, end);
	size_t n = parse_events(ev, max, text);
	free(text);
	return n;
}

static void test_watch__changes_in_order_with_deletion_rv(void)
{
	env_start(100, 60000);
	mock_watcher *w = open_cm(mock_store_rv(store), 0, NULL, NULL, NULL);
	uint64_t r1 = put_cm("a", "x", NULL, "1", MOCK_WRITE_CREATE);
	uint64_t r2 = put_cm("a", "x", NULL, "2", MOCK_WRITE_UPDATE);
	uint64_t r3 = del_cm("a", "x");
	event ev[8];
	ssize_t end;
	/* Reads of 7 bytes: lines cross many reads and still arrive whole. */
	char *text = drain(w, 7, &end);
	size_t n = parse_events(ev, 8, text);
	free(text);
	CU_ASSERT_EQUAL(end, 0);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	CU_ASSERT_STRING_EQUAL(ev[0].type, "ADDED");
	CU_ASSERT_EQUAL(ev[0].rv, r1);
	CU_ASSERT_STRING_EQUAL(ev[1].type, "MODIFIED");
	CU_ASSERT_EQUAL(ev[1].rv, r2);
	/* DELETED carries the last state with the deletion resourceVersion. */
	CU_ASSERT_STRING_EQUAL(ev[2].type, "DELETED");
	CU_ASSERT_EQUAL(ev[2].rv, r3);
	CU_ASSERT_PTR_NOT_NULL(strstr(ev[2].line, "\"data\":{\"v\":\"2\"}"));
	/* Compact lines with kind and apiVersion first, as the apiserver writes. */
	CU_ASSERT_EQUAL(strncmp(ev[0].line,
	                        "{\"type\":\"ADDED\",\"object\":{\"kind\":\"ConfigMap\","
	                        "\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"x\"",
	                        strlen("{\"type\":\"ADDED\",\"object\":{\"kind\":\"ConfigMap\","
	                               "\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"x\"")),
	                0);
	mock_watch_close(w);
	env_stop();
}

static void test_watch__resumes_after_rv_without_gaps(void)
{
	env_start(100, 60000);
	uint64_t rv[6];
	for (int i = 0; i < 6; i++) {
		char name[8];
		snprintf(name, sizeof(name), "c%d", i);
		rv[i] = put_cm("a", name, NULL, "v", MOCK_WRITE_CREATE);
	}
	for (int from = 0; from < 6; from++) {
		mock_watcher *w = open_cm(rv[from], 1, NULL, NULL, NULL);
		event ev[8];
		ssize_t end;
		size_t n = read_events(w, ev, 8, &end);
		CU_ASSERT_EQUAL(n, (size_t)(5 - from));
		for (size_t i = 0; i < n; i++)
			CU_ASSERT_EQUAL(ev[i].rv, rv[from + 1 + (int)i]);
		mock_watch_close(w);
	}
	env_stop();
}

static void test_watch__too_old_rv_is_one_410_error(void)
{
	env_start(4, 60000);
	for (int i = 0; i < 10; i++)
		put_cm("a", "x", NULL, i ? "u" : "c", i ? MOCK_WRITE_UPDATE : MOCK_WRITE_CREATE);
	uint64_t oldest = mock_watch_hub_oldest(hub, cm);
	/* Four changes kept: the first of them is the one after oldest. */
	CU_ASSERT_EQUAL(oldest, mock_store_rv(store) - 4);
	mock_watcher *w = open_cm(oldest - 1, 1, NULL, NULL, NULL);
	ssize_t end;
	char *text = drain(w, 4096, &end);
	char want[512];
	snprintf(want, sizeof(want),
	         "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\","
	         "\"metadata\":{},\"status\":\"Failure\",\"message\":\"too old resource version: "
	         "%llu (%llu)\",\"reason\":\"Expired\",\"code\":410}}\n",
	         (unsigned long long)(oldest - 1), (unsigned long long)oldest);
	CU_ASSERT_STRING_EQUAL(text, want);
	CU_ASSERT_EQUAL(end, MOCK_WATCH_END);
	free(text);
	mock_watch_close(w);
	/* Exactly the oldest is still complete. */
	w = open_cm(oldest, 1, NULL, NULL, NULL);
	event ev[8];
	CU_ASSERT_EQUAL(read_events(w, ev, 8, &end), 4);
	CU_ASSERT_EQUAL(end, 0);
	mock_watch_close(w);
	env_stop();
}

/* After mock_store_rewind the hub forgets what was undone: a watch from
 * the saved resourceVersion gets only what happens after the rewind, not
 * the changes taken back; an open watcher makes the rewind refuse. */
static void test_watch__rewind_forgets_the_undone_changes(void)
{
	env_start(100, 60000);
	mock_store_saved *saved = NULL;
	CU_ASSERT_EQUAL_FATAL(mock_store_save(&saved, store), 0);
	uint64_t rv0 = mock_store_rv(store);
	put_cm("a", "undone", NULL, "v", MOCK_WRITE_CREATE);
	mock_watcher *w = open_cm(rv0, 1, NULL, NULL, NULL);
	CU_ASSERT_EQUAL(mock_watch_hub_rewind(hub), NL_EINVAL);
	mock_watch_close(w);
	CU_ASSERT_EQUAL_FATAL(mock_store_rewind(store, saved), 0);
	CU_ASSERT_EQUAL(mock_watch_hub_rewind(hub), 0);
	CU_ASSERT_EQUAL(mock_watch_hub_oldest(hub, cm), rv0);
	uint64_t rv1 = put_cm("a", "kept", NULL, "v", MOCK_WRITE_CREATE);
	CU_ASSERT_EQUAL(rv1, rv0 + 1);
	w = open_cm(rv0, 1, NULL, NULL, NULL);
	event ev[4];
	ssize_t end;
	CU_ASSERT_EQUAL_FATAL(read_events(w, ev, 4, &end), 1);
	CU_ASSERT_STRING_EQUAL(ev[0].name, "kept");
	CU_ASSERT_EQUAL(ev[0].rv, rv1);
	mock_watch_close(w);
	mock_store_saved_free(saved);
	env_stop();
}

static void test_watch__label_selector_enter_and_leave(void)
{
	env_start(100, 60000);
	mock_watcher *w = open_cm(mock_store_rv(store), 0, NULL, "app=a", NULL);
	put_cm("a", "x", NULL, "1", MOCK_WRITE_CREATE);                             /* outside */
	uint64_t in = put_cm("a", "x", "{\"app\":\"a\"}", "2", MOCK_WRITE_UPDATE);  /* enters */
	uint64_t mod = put_cm("a", "x", "{\"app\":\"a\"}", "3", MOCK_WRITE_UPDATE); /* inside */
	uint64_t out = put_cm("a", "x", "{\"app\":\"b\"}", "4", MOCK_WRITE_UPDATE); /* leaves */
	put_cm("a", "x", NULL, "5", MOCK_WRITE_UPDATE);                             /* outside */
	del_cm("a", "x");                                                           /* outside */
	event ev[8];
	ssize_t end;
	size_t n = read_events(w, ev, 8, &end);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	CU_ASSERT_STRING_EQUAL(ev[0].type, "ADDED");
	CU_ASSERT_EQUAL(ev[0].rv, in);
	CU_ASSERT_STRING_EQUAL(ev[1].type, "MODIFIED");
	CU_ASSERT_EQUAL(ev[1].rv, mod);
	/* Leaving: DELETED with the new state (label app=b). */
	CU_ASSERT_STRING_EQUAL(ev[2].type, "DELETED");
	CU_ASSERT_EQUAL(ev[2].rv, out);
	CU_ASSERT_PTR_NOT_NULL(strstr(ev[2].line, "\"app\":\"b\""));
	mock_watch_close(w);
	env_stop();
}

static void test_watch__field_and_namespace_filters(void)
{
	env_start(100, 60000);
	uint64_t start = mock_store_rv(store);
	mock_watcher *by_name = open_cm(start, 0, NULL, NULL, "metadata.name=x");
	mock_watcher *by_ns = open_cm(start, 0, "b", NULL, NULL);
	mock_watcher *by_ns_field = open_cm(start, 0, NULL, NULL, "metadata.namespace!=a");
	put_cm("a", "x", NULL, "1", MOCK_WRITE_CREATE);
	put_cm("a", "y", NULL, "1", MOCK_WRITE_CREATE);
	put_cm("b", "x", NULL, "1", MOCK_WRITE_CREATE);
	put_cm("b", "z", NULL, "1", MOCK_WRITE_CREATE);
	event ev[8];
	ssize_t end;
	CU_ASSERT_EQUAL(read_events(by_name, ev, 8, &end), 2);
	CU_ASSERT_STRING_EQUAL(ev[0].name, "x");
	CU_ASSERT_STRING_EQUAL(ev[1].name, "x");
	CU_ASSERT_EQUAL(read_events(by_ns, ev, 8, &end), 2);
	CU_ASSERT_STRING_EQUAL(ev[1].name, "z");
	CU_ASSERT_EQUAL(read_events(by_ns_field, ev, 8, &end), 2);
	mock_watch_close(by_name);
	mock_watch_close(by_ns);
	mock_watch_close(by_ns_field);
	env_stop();
}

static void test_watch__slow_watcher_is_ended(void)
{
	env_start(4, 60000);
	mock_watcher *w = open_cm(mock_store_rv(store), 0, NULL, NULL, NULL);
	put_cm("a", "x", NULL, "0", MOCK_WRITE_CREATE);
	for (int i = 0; i < 5; i++)
		put_cm("a", "x", NULL, "u", MOCK_WRITE_UPDATE);
	/* Six changes, four kept: the missed ones are gone, so the stream
	 * ends (the client then resumes and gets 410). */
	ssize_t end;
	char *text = drain(w, 4096, &end);
	CU_ASSERT_STRING_EQUAL(text, "");
	CU_ASSERT_EQUAL(end, MOCK_WATCH_END);
	free(text);
	mock_watch_close(w);
	env_stop();
}

static void test_watch__bookmark_carries_current_rv(void)
{
	env_start(100, 20);
	mock_watch_spec spec = {.r = cm, .rv = mock_store_rv(store), .bookmarks = 1};
	mock_watcher *w = NULL;
	spec.timeout_ms = 60000;
	CU_ASSERT_EQUAL_FATAL(mock_watch_open(&w, hub, &spec, NULL), 0);
	put_cm("a", "x", NULL, "1", MOCK_WRITE_CREATE);
	/* A change of another kind moves the resourceVersion too. */
	write_obj(mock_resource_get(MOCK_KIND_NAMESPACE), MOCK_WRITE_CREATE,
	          "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"c\"}}");
	usleep(40000);
	event ev[4];
	ssize_t end;
	size_t n = read_events(w, ev, 4, &end);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_STRING_EQUAL(ev[0].type, "ADDED");
	CU_ASSERT_STRING_EQUAL(ev[1].type, "BOOKMARK");
	char want[256];
	snprintf(want, sizeof(want),
	         "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\","
	         "\"metadata\":{\"resourceVersion\":\"%llu\",\"creationTimestamp\":null}}}",
	         (unsigned long long)mock_store_rv(store));
	CU_ASSERT_STRING_EQUAL(ev[1].line, want);
	/* Not again before the interval. */
	CU_ASSERT_EQUAL(read_events(w, ev, 4, &end), 0);
	mock_watch_close(w);
	env_stop();
}

/* The end-of-initial-events bookmark of a Lease watch, and the zero-value
 * body of a Node and a CSR one (cluster-scoped paths). */
static void test_watch__bookmark_shape_per_kind(void)
{
	env_start(100, 60000);
	mock_options o;
	mock_options_init(&o);
	mock_api api = {.store = store, .opts = &o, .watch = hub};
	mock_request req;
	mock_response resp;
	memset(&req, 0, sizeof(req));
	req.method = "GET";
	req.path = "/apis/coordination.k8s.io/v1/namespaces/a/leases";
	const char *kv[][2] = {{"watch", "true"},
	                       {"sendInitialEvents", "true"},
	                       {"resourceVersionMatch", "NotOlderThan"},
	                       {"allowWatchBookmarks", "true"}};
	for (size_t i = 0; i < 4; i++)
		req.query[req.nquery++] = (mock_kv){kv[i][0], kv[i][1]};
	mock_response_init(&resp);
	mock_api_handle(&api, &req, &resp);
	CU_ASSERT_EQUAL_FATAL(resp.code, 200);
	ssize_t end;
	char *text = drain(resp.stream, 4096, &end);
	char want[512];
	snprintf(want, sizeof(want),
	         "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Lease\",\"apiVersion\":"
	         "\"coordination.k8s.io/v1\",\"metadata\":{\"resourceVersion\":\"%llu\","
	         "\"creationTimestamp\":null,\"annotations\":{\"k8s.io/"
	         "initial-events-end\":\"true\"}},\"spec\":{}}}\n",
	         (unsigned long long)mock_store_rv(store));
	CU_ASSERT_STRING_EQUAL(text, want);
	free(text);
	mock_response_free(&resp);

	req.path = "/api/v1/nodes";
	mock_response_init(&resp);
	mock_api_handle(&api, &req, &resp);
	CU_ASSERT_EQUAL_FATAL(resp.code, 200);
	text = drain(resp.stream, 4096, &end);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"kind\":\"Node\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"status\":{\"daemonEndpoints\":{\"kubeletEndpoint\":"
	                                    "{\"Port\":0}},\"nodeInfo\":{\"machineID\":\"\""));
	free(text);
	mock_response_free(&resp);

	/* a zero CSR: spec's request null and signerName "", status {} */
	req.path = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
	mock_response_init(&resp);
	mock_api_handle(&api, &req, &resp);
	CU_ASSERT_EQUAL_FATAL(resp.code, 200);
	text = drain(resp.stream, 4096, &end);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"kind\":\"CertificateSigningRequest\""));
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(text, "}},\"spec\":{\"request\":null,\"signerName\":\"\"},\"status\":{}}}\n"));
	free(text);
	mock_response_free(&resp);
	env_stop();
}

static void test_watch__timeout_ends_stream(void)
{
	env_start(100, 60000);
	mock_watch_spec spec = {.r = cm, .rv = mock_store_rv(store), .timeout_ms = 30};
	mock_watcher *w = NULL;
	CU_ASSERT_EQUAL_FATAL(mock_watch_open(&w, hub, &spec, NULL), 0);
	char buf[64];
	CU_ASSERT_EQUAL(mock_watch_read(w, buf, sizeof(buf)), 0);
	usleep(50000);
	CU_ASSERT_EQUAL(mock_watch_read(w, buf, sizeof(buf)), MOCK_WATCH_END);
	mock_watch_close(w);
	/* A negative timeoutSeconds ends at once, as a Go timer would. */
	spec.timeout_ms = -1;
	CU_ASSERT_EQUAL_FATAL(mock_watch_open(&w, hub, &spec, NULL), 0);
	CU_ASSERT_EQUAL(mock_watch_read(w, buf, sizeof(buf)), MOCK_WATCH_END);
	mock_watch_close(w);
	env_stop();
}

static int wait_woken(fake_conn *c, int want, int ms)
{
	for (int i = 0; i < ms; i++) {
		if (__atomic_load_n(&c->woken, __ATOMIC_SEQ_CST) >= want)
			return 1;
		usleep(1000);
	}
	return 0;
}

static void test_watch__parked_watcher_woken_by_matching_change(void)
{
	env_start(100, 60000);
	fake_conn ca = {0}, cb = {0};
	mock_watcher *wa = open_cm(mock_store_rv(store), 0, "a", NULL, NULL);
	mock_watcher *wb = open_cm(mock_store_rv(store), 0, "b", NULL, NULL);
	mock_watch_attach(wa, &ca, -1, fake_park, fake_wake);
	mock_watch_attach(wb, &cb, -1, fake_park, fake_wake);
	char buf[4096];
	CU_ASSERT_EQUAL(mock_watch_read(wa, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(mock_watch_read(wb, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(ca.parked, 1);
	CU_ASSERT_EQUAL(cb.parked, 1);
	put_cm("a", "x", NULL, "1", MOCK_WRITE_CREATE);
	CU_ASSERT_TRUE(wait_woken(&ca, 1, 2000));
	/* A change in another namespace does not wake b. */
	usleep(20000);
	CU_ASSERT_EQUAL(__atomic_load_n(&cb.woken, __ATOMIC_SEQ_CST), 0);
	CU_ASSERT_TRUE(mock_watch_read(wa, buf, sizeof(buf)) > 0);
	/* Stop wakes everyone parked; their streams end. */
	mock_watch_hub_stop(hub, 0);
	CU_ASSERT_EQUAL(__atomic_load_n(&cb.woken, __ATOMIC_SEQ_CST), 1);
	CU_ASSERT_EQUAL(mock_watch_read(wb, buf, sizeof(buf)), MOCK_WATCH_END);
	CU_ASSERT_EQUAL(mock_watch_read(wa, buf, sizeof(buf)), MOCK_WATCH_END);
	CU_ASSERT_EQUAL(mock_watch_hub_count(hub), 2);
	mock_watch_close(wa);
	mock_watch_close(wb);
	CU_ASSERT_EQUAL(mock_watch_hub_count(hub), 0);
	env_stop();
}

static void test_watch__parked_watcher_woken_for_timeout_and_bookmark(void)
{
	env_start(100, 30);
	fake_conn c1 = {0}, c2 = {0};
	mock_watch_spec spec = {.r = cm, .rv = mock_store_rv(store), .timeout_ms = 40};
	mock_watcher *w1 = NULL, *w2 = NULL;
	CU_ASSERT_EQUAL_FATAL(mock_watch_open(&w1, hub, &spec, NULL), 0);
	spec.timeout_ms = 60000;
	spec.bookmarks = 1;
	CU_ASSERT_EQUAL_FATAL(mock_watch_open(&w2, hub, &spec, NULL), 0);
	mock_watch_attach(w1, &c1, -1, fake_park, fake_wake);
	mock_watch_attach(w2, &c2, -1, fake_park, fake_wake);
	char buf[512];
	CU_ASSERT_EQUAL(mock_watch_read(w1, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(mock_watch_read(w2, buf, sizeof(buf)), 0);
	/* Woken when due, not at the hub's next one-second probe. */
	CU_ASSERT_TRUE(wait_woken(&c1, 1, 500));
	CU_ASSERT_TRUE(wait_woken(&c2, 1, 500));
	CU_ASSERT_EQUAL(mock_watch_read(w1, buf, sizeof(buf)), MOCK_WATCH_END);
	ssize_t n = mock_watch_read(w2, buf, sizeof(buf) - 1);
	CU_ASSERT_TRUE_FATAL(n > 0);
	buf[n] = '\0';
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"type\":\"BOOKMARK\""));
	mock_watch_close(w1);
	mock_watch_close(w2);
	env_stop();
}

/* --- the request handler, without HTTP ------------------------------------ */

static mock_options opts;

static mock_api api_of(void)
{
	mock_api api;
	memset(&api, 0, sizeof(api));
	mock_options_init(&opts);
	api.store = store;
	api.opts = &opts;
	api.watch = hub;
	return api;
}

/* GET path?query ("k=v&k2=v2", values not escaped) through the router. */
static void get(mock_response *resp, mock_api *api, const char *path, char *query,
                const mock_watch_fault *fault)
{
	mock_request req;
	memset(&req, 0, sizeof(req));
	req.method = "GET";
	req.path = path;
	req.watch_fault = fault;
	for (char *save = NULL, *kv = strtok_r(query, "&", &save);
	     kv && req.nquery < MOCK_MAX_QUERY; kv = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(kv, '=');
		if (eq)
			*eq = '\0';
		req.query[req.nquery].key = kv;
		req.query[req.nquery].value = eq ? eq + 1 : NULL;
		req.nquery++;
	}
	mock_response_init(resp);
	mock_api_handle(api, &req, resp);
}

/* The frames of a protobuf stream as JSON events {"type":…,"object":…}
 * (new references in out); returns the count, *end as drain's. */
static size_t pb_events(json_object **out, size_t max, mock_watcher *w, ssize_t *end)
{
	nl_buf b;
	char chunk[4096];
	ssize_t n;
	size_t count = 0;
	nl_buf_init(&b, 0);
	/* Small reads: frames cross read boundaries. */
	while ((n = mock_watch_read(w, chunk, 7)) > 0)
		nl_buf_add(&b, chunk, (size_t)n);
	*end = n;
	const unsigned char *p = (const unsigned char *)b.data, *e = p + b.len;
	while (p && p + 4 <= e && count < max) {
		size_t len = (size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3];
		CU_ASSERT_FATAL(p + 4 + len <= e);
		char type[16];
		json_object *obj = NULL;
		nl_err err = {0};
		CU_ASSERT_EQUAL_FATAL(
		    nl_pb_decode_watch_event(type, sizeof(type), &obj, p + 4, len, &err), 0);
		out[count] = json_object_new_object();
		json_object_object_add(out[count], "type", json_object_new_string(type));
		json_object_object_add(out[count], "object", obj);
		count++;
		p += 4 + len;
	}
	CU_ASSERT_PTR_EQUAL(p, e);
	nl_buf_free(&b);
	return count;
}

static void get_accept(mock_response *resp, mock_api *api, const char *path, const char *query,
                       const char *accept)
{
	mock_request req;
	char q[256];
	snprintf(q, sizeof(q), "%s", query);
	memset(&req, 0, sizeof(req));
	req.method = "GET";
	req.path = path;
	req.accept = accept;
	for (char *save = NULL, *kv = strtok_r(q, "&", &save); kv && req.nquery < MOCK_MAX_QUERY;
	     kv = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(kv, '=');
		if (eq)
			*eq = '\0';
		req.query[req.nquery].key = kv;
		req.query[req.nquery].value = eq ? eq + 1 : NULL;
		req.nquery++;
	}
	mock_response_init(resp);
	mock_api_handle(api, &req, resp);
}

/* A protobuf watch carries the same events as a JSON one, frame by frame:
 * initial ADDED, the end-of-initial-events BOOKMARK, MODIFIED, DELETED; a
 * too-old resourceVersion is one ERROR frame with the 410 Status. */
static void test_watch__handler_protobuf_frames_equal_json_lines(void)
{
	env_start(100, 60000);
	mock_api api = api_of();
	put_cm("a", "x", "{\"app\":\"web\"}", "1", MOCK_WRITE_CREATE);
	const char *q = "watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&"
	                "allowWatchBookmarks=true&resourceVersion=";
	mock_response pj, pp;
	get_accept(&pj, &api, "/api/v1/namespaces/a/configmaps", q, "application/json");
	get_accept(&pp, &api, "/api/v1/namespaces/a/configmaps", q,
	           "application/vnd.kubernetes.protobuf,application/json");
	CU_ASSERT_EQUAL_FATAL(pp.code, 200);
	CU_ASSERT_STRING_EQUAL(pp.content_type, NL_PB_WATCH_CONTENT_TYPE);
	CU_ASSERT_STRING_EQUAL(pj.content_type, "application/json");
	put_cm("a", "x", "{\"app\":\"web\"}", "2", MOCK_WRITE_UPDATE);
	del_cm("a", "x");
	event ev[8];
	json_object *pe[8];
	ssize_t end;
	size_t nj = read_events(pj.stream, ev, 8, &end);
	size_t np = pb_events(pe, 8, pp.stream, &end);
	CU_ASSERT_EQUAL(end, 0);
	CU_ASSERT_EQUAL_FATAL(nj, 4);
	CU_ASSERT_EQUAL_FATAL(np, nj);
	static const char *const types[] = {"ADDED", "BOOKMARK", "MODIFIED", "DELETED"};
	for (size_t i = 0; i < np; i++) {
		json_object *want = json_tokener_parse(ev[i].line);
		CU_ASSERT_STRING_EQUAL(nl_json_get_string(pe[i], "type"), types[i]);
		if (!json_object_equal(want, pe[i]))
			fprintf(stderr, "\nJSON %s\nPB   %s\n", ev[i].line,
			        json_object_to_json_string(pe[i]));
		CU_ASSERT_TRUE(json_object_equal(want, pe[i]));
		json_object_put(want);
		json_object_put(pe[i]);
	}
	mock_response_free(&pj);
	mock_response_free(&pp);

	env_stop();
	env_start(2, 60000);
	api = api_of();
	for (int i = 0; i < 5; i++)
		put_cm("a", "x", NULL, i ? "u" : "c", i ? MOCK_WRITE_UPDATE : MOCK_WRITE_CREATE);
	get_accept(&pp, &api, "/api/v1/namespaces/a/configmaps", "watch=1&resourceVersion=1",
	           "application/vnd.kubernetes.protobuf");
	CU_ASSERT_EQUAL_FATAL(pp.code, 200);
	CU_ASSERT_EQUAL_FATAL(pb_events(pe, 8, pp.stream, &end), 1);
	CU_ASSERT_EQUAL(end, MOCK_WATCH_END);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(pe[0], "type"), "ERROR");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(pe[0], "object.kind"), "Status");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(pe[0], "object.reason"), "Expired");
	CU_ASSERT_EQUAL(json_object_get_int(nl_json_get_path(pe[0], "object.code")), 410);
	json_object_put(pe[0]);
	mock_response_free(&pp);
	/* A Table cannot be protobuf: the next clause, JSON lines. */
	get_accept(&pp, &api, "/api/v1/namespaces/a/configmaps", "watch=1",
	           "application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1,"
	           "application/json;as=Table;g=meta.k8s.io;v=v1");
	CU_ASSERT_STRING_EQUAL(pp.content_type, "application/json");
	mock_response_free(&pp);
	env_stop();
}

static void test_watch__handler_initial_added_then_live(void)
{
	env_start(100, 60000);
	mock_api api = api_of();
	put_cm("a", "x", NULL, "1", MOCK_WRITE_CREATE);
	put_cm("b", "y", NULL, "1", MOCK_WRITE_CREATE);
	put_cm("a", "w", NULL, "1", MOCK_WRITE_CREATE);
	mock_response resp;
	char q[] = "watch=true";
	get(&resp, &api, "/api/v1/configmaps", q, NULL);
	CU_ASSERT_EQUAL(resp.code, 200);
	CU_ASSERT_PTR_NOT_NULL_FATAL(resp.stream);
	uint64_t rv = put_cm("b", "y", NULL, "2", MOCK_WRITE_UPDATE);
	event ev[8];
	ssize_t end;
	size_t n = read_events(resp.stream, ev, 8, &end);
	CU_ASSERT_EQUAL_FATAL(n, 4);
	/* Synthetic ADDED in key order (a/w, a/x, b/y), then the change. */
	CU_ASSERT_STRING_EQUAL(ev[0].name, "w");
	CU_ASSERT_STRING_EQUAL(ev[1].name, "x");
	CU_ASSERT_STRING_EQUAL(ev[2].name, "y");
	CU_ASSERT_STRING_EQUAL(ev[2].type, "ADDED");
	CU_ASSERT_STRING_EQUAL(ev[3].type, "MODIFIED");
	CU_ASSERT_EQUAL(ev[3].rv, rv);
	mock_response_free(&resp); /* closes the unserved watcher */
	CU_ASSERT_EQUAL(mock_watch_hub_count(hub), 0);
	env_stop();
}

static void test_watch__handler_send_initial_events_end_bookmark(void)
{
	env_start(100, 60000);
	mock_api api = api_of();
	put_cm("a", "x", NULL, "1", MOCK_WRITE_CREATE);
	uint64_t at = mock_store_rv(store);
	mock_response resp;
	char q[] = "watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&"
	           "allowWatchBookmarks=true&resourceVersion=";
	get(&resp, &api, "/api/v1/namespaces/a/configmaps", q, NULL);
	CU_ASSERT_EQUAL_FATAL(resp.code, 200);
	event ev[4];
	ssize_t end;
	CU_ASSERT_EQUAL_FATAL(read_events(resp.stream, ev, 4, &end), 2);
	CU_ASSERT_STRING_EQUAL(ev[0].type, "ADDED");
	char want[256];
	snprintf(want, sizeof(want),
	         "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\","
	         "\"metadata\":{\"resourceVersion\":\"%llu\",\"creationTimestamp\":null,"
	         "\"annotations\":{\"k8s.io/"
	         "initial-events-end\":\"true\"}}}}",
	         (unsigned long long)at);
	CU_ASSERT_STRING_EQUAL(ev[1].line, want);
	mock_response_free(&resp);

	/* Without allowWatchBookmarks the initial events come without the
	 * closing bookmark (the cacher only marks bookmarks it may send). */
	char q2[] = "watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan";
	get(&resp, &api, "/api/v1/namespaces/a/configmaps", q2, NULL);
	CU_ASSERT_EQUAL_FATAL(resp.code, 200);
	CU_ASSERT_EQUAL(read_events(resp.stream, ev, 4, &end), 1);
	mock_response_free(&resp);

	/* A resourceVersion the store has not reached: the stream is one
	 * ERROR with the 504 Timeout Status. */
	char q3[] = "watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&"
	            "resourceVersion=999999";
	get(&resp, &api, "/api/v1/namespaces/a/configmaps", q3, NULL);
	CU_ASSERT_EQUAL_FATAL(resp.code, 200);
	CU_ASSERT_EQUAL_FATAL(read_events(resp.stream, ev, 4, &end), 1);
	CU_ASSERT_STRING_EQUAL(ev[0].type, "ERROR");
	CU_ASSERT_PTR_NOT_NULL(strstr(ev[0].line, "Too large resource version: 999999"));
	CU_ASSERT_EQUAL(end, MOCK_WATCH_END);
	mock_response_free(&resp);
	env_stop();
}

/* kubectl get -w asks for Tables: each event's object is a one-row Table,
 * column definitions on the first event only. */
static void test_watch__handler_table_events_for_kubectl(void)
{
	env_start(100, 60000);
	mock_api api = api_of();
	put_cm("a", "x", NULL, "1", MOCK_WRITE_CREATE);
	mock_request req;
	mock_response resp;
	memset(&req, 0, sizeof(req));
	req.method = "GET";
	req.path = "/api/v1/namespaces/a/configmaps";
	req.accept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
	req.query[req.nquery++] = (mock_kv){"watch", "true"};
	mock_response_init(&resp);
	mock_api_handle(&api, &req, &resp);
	CU_ASSERT_EQUAL_FATAL(resp.code, 200);
	put_cm("a", "x", NULL, "2", MOCK_WRITE_UPDATE);
	event ev[4];
	ssize_t end;
	CU_ASSERT_EQUAL_FATAL(read_events(resp.stream, ev, 4, &end), 2);
	json_object *first = json_tokener_parse(ev[0].line);
	json_object *second = json_tokener_parse(ev[1].line);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(first, "type"), "ADDED");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(first, "object.kind"), "Table");
	CU_ASSERT_TRUE(json_object_is_type(nl_json_get_path(first, "object.columnDefinitions"),
	                                   json_type_array));
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(second, "type"), "MODIFIED");
	CU_ASSERT_PTR_NULL(nl_json_get_path(second, "object.columnDefinitions"));
	json_object_put(first);
	json_object_put(second);
	mock_response_free(&resp);
	env_stop();
}

static void expect_status(mock_api *api, const char *path, const char *query, int code,
                          const char *message)
{
	mock_response resp;
	char q[512];
	snprintf(q, sizeof(q), "%s", query);
	get(&resp, api, path, q, NULL);
	CU_ASSERT_EQUAL(resp.code, code);
	CU_ASSERT_PTR_NULL(resp.stream);
	json_object *o = json_tokener_parse(resp.body.data ? resp.body.data : "");
	const char *m = nl_json_get_string(o, "message");
	if (!m || strcmp(m, message) != 0)
		fprintf(stderr, "\n%s?%s\n  want %s\n  got  %s\n", path, query, message,
		        m ? m : "(none)");
	CU_ASSERT_TRUE(m && strcmp(m, message) == 0);
	json_object_put(o);
	mock_response_free(&resp);
}

static void test_watch__handler_refuses_bad_options(void)
{
	env_start(100, 60000);
	mock_api api = api_of();
	const char *p = "/api/v1/namespaces/a/configmaps";
	expect_status(&api, p, "watch=true&resourceVersionMatch=NotOlderThan", 422,
	              "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
	              "resourceVersionMatch is forbidden for watch unless sendInitialEvents is "
	              "provided");
	expect_status(&api, p, "watch=true&sendInitialEvents=true", 422,
	              "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
	              "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan");
	expect_status(&api, p, "watch=true&sendInitialEvents=false&resourceVersionMatch=Exact", 422,
	              "ListOptions.meta.k8s.io \"\" is invalid: [resourceVersionMatch: Forbidden: "
	              "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, "
	              "resourceVersionMatch: Unsupported value: \"Exact\": supported values: "
	              "\"NotOlderThan\"]");
	expect_status(&api, p, "watch=true&timeoutSeconds=soon", 400,
	              "strconv.ParseInt: parsing \"soon\": invalid syntax");
	expect_status(&api, p, "watch=true&fieldSelector=spec.foo=1", 400,
	              "\"spec.foo\" is not a known field selector: only \"metadata.name\", "
	              "\"metadata.namespace\"");
	/* The store words a malformed resourceVersion as it does for a list. */
	mock_response resp;
	char q[] = "watch=true&resourceVersion=abc";
	get(&resp, &api, p, q, NULL);
	CU_ASSERT_EQUAL(resp.code, 400);
	mock_response_free(&resp);
	/* Watch is a collection verb: the status subresource does not have it,
	 * the all-namespaces path does. */
	CU_ASSERT_TRUE(mock_route_allows(cm, "watch", 0));
	CU_ASSERT_FALSE(mock_route_allows(mock_resource_get(MOCK_KIND_NODE), "watch", 1));
	env_stop();
}

static void test_watch__list_exact_too_old_is_410(void)
{
	env_start(2, 60000);
	for (int i = 0; i < 5; i++)
		put_cm("a", "x", NULL, "v", i ? MOCK_WRITE_UPDATE : MOCK_WRITE_CREATE);
	mock_api api = api_of();
	const char *p = "/api/v1/namespaces/a/configmaps";
	expect_status(&api, p, "resourceVersion=3&resourceVersionMatch=Exact", 410,
	              "The resourceVersion for the provided list is too old.");
	mock_response resp;
	char q[64];
	snprintf(q, sizeof(q), "resourceVersion=%llu&resourceVersionMatch=Exact",
	         (unsigned long long)mock_store_rv(store));
	get(&resp, &api, p, q, NULL);
	CU_ASSERT_EQUAL(resp.code, 200);
	mock_response_free(&resp);
	/* NotOlderThan keeps the list's usual behaviour. */
	char q2[] = "resourceVersion=3&resourceVersionMatch=NotOlderThan";
	get(&resp, &api, p, q2, NULL);
	CU_ASSERT_EQUAL(resp.code, 200);
	mock_response_free(&resp);
	env_stop();
}

static void test_watch__faults_shape_the_stream(void)
{
	env_start(100, 60000);
	mock_api api = api_of();
	for (int i = 0; i < 3; i++) {
		char name[8];
		snprintf(name, sizeof(name), "c%d", i);
		put_cm("a", name, NULL, "v", MOCK_WRITE_CREATE);
	}
	const char *p = "/api/v1/namespaces/a/configmaps";
	mock_response resp;
	event ev[8];
	ssize_t end;

	/* closeAfterEvents counts the initial ADDED events. */
	mock_watch_fault close2 = {.close_after_events = 2};
	char q1[] = "watch=true";
	get(&resp, &api, p, q1, &close2);
	CU_ASSERT_EQUAL(read_events(resp.stream, ev, 8, &end), 2);
	CU_ASSERT_EQUAL(end, MOCK_WATCH_END);
	mock_response_free(&resp);

	mock_watch_fault close5 = {.close_after_events = 5};
	char q2[] = "watch=true";
	get(&resp, &api, p, q2, &close5);
	CU_ASSERT_EQUAL(read_events(resp.stream, ev, 8, &end), 3);
	put_cm("a", "c0", NULL, "w", MOCK_WRITE_UPDATE);
	put_cm("a", "c1", NULL, "w", MOCK_WRITE_UPDATE);
	put_cm("a", "c2", NULL, "w", MOCK_WRITE_UPDATE);
	CU_ASSERT_EQUAL(read_events(resp.stream, ev, 8, &end), 2);
	CU_ASSERT_EQUAL(end, MOCK_WATCH_END);
	mock_response_free(&resp);

	mock_watch_fault expire = {.expire = 1};
	char q3[] = "watch=true&resourceVersion=4";
	get(&resp, &api, p, q3, &expire);
	CU_ASSERT_EQUAL_FATAL(read_events(resp.stream, ev, 8, &end), 1);
	CU_ASSERT_STRING_EQUAL(ev[0].type, "ERROR");
	CU_ASSERT_PTR_NOT_NULL(strstr(ev[0].line, "\"code\":410"));
	CU_ASSERT_EQUAL(end, MOCK_WATCH_END);
	mock_response_free(&resp);

	mock_watch_fault stall = {.stall = 1};
	char q4[] = "watch=true&allowWatchBookmarks=true";
	get(&resp, &api, p, q4, &stall);
	put_cm("a", "c0", NULL, "x", MOCK_WRITE_UPDATE);
	CU_ASSERT_EQUAL(read_events(resp.stream, ev, 8, &end), 0);
	CU_ASSERT_EQUAL(end, 0);
	mock_response_free(&resp);
	env_stop();
}

/* --- memory: shared lines, the backlog cap, the total limit ------------ */

/* A ConfigMap a/name with one data value of size bytes of ch. */
static uint64_t put_big(const char *name, size_t size, char ch, mock_write_op op)
{
	char *text = malloc(size + 256);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	int n = snprintf(text, 256,
	                 "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
	                 "\"%s\",\"namespace\":\"a\"},\"data\":{\"v\":\"",
	                 name);
	memset(text + n, ch, size);
	strcpy(text + n + size, "\"}}");
	uint64_t rv = write_obj(cm, op, text);
	free(text);
	return rv;
}

static mock_watch_stats stats(void)
{
	mock_watch_stats st;
	mock_watch_hub_stats(hub, &st);
	return st;
}

/* The hub thread closes slow watchers; wait (bounded) until it has. */
static void wait_terminated(uint64_t n)
{
	for (int i = 0; i < 300 && stats().terminated[MOCK_KIND_CONFIGMAP] < n; i++)
		usleep(10000);
	CU_ASSERT_EQUAL(stats().terminated[MOCK_KIND_CONFIGMAP], n);
}

#define WATCHERS 40
#define BIG (100 * 1024)

/* The watch cache serializes an object once per encoding and every
 * watcher writes those bytes: 40 JSON and 40 protobuf watchers of the same
 * state hold two lines, not 80 (issue 19: 1000 watchers of 3 x 1 MB held
 * 2.9 GB). A new version is a new line; the old one goes with the last
 * watcher that holds it, and nothing is left once all are closed. */
static void test_watch__initial_lines_are_shared_by_watchers(void)
{
	env_start(100, 60000);
	mock_api api = api_of();
	put_big("big", BIG, 'z', MOCK_WRITE_CREATE);
	mock_response rj[WATCHERS], rp[WATCHERS];
	for (int i = 0; i < WATCHERS; i++) {
		get_accept(&rj[i], &api, "/api/v1/namespaces/a/configmaps", "watch=1",
		           "application/json");
		get_accept(&rp[i], &api, "/api/v1/namespaces/a/configmaps", "watch=1",
		           "application/vnd.kubernetes.protobuf");
		CU_ASSERT_EQUAL_FATAL(rj[i].code, 200);
		CU_ASSERT_EQUAL_FATAL(rp[i].code, 200);
	}
	mock_watch_stats st = stats();
	CU_ASSERT_EQUAL(st.watchers, 2 * WATCHERS);
	CU_ASSERT_EQUAL(st.shared, 2);
	CU_ASSERT(st.buffered > 2 * BIG && st.buffered < 2 * BIG + 2048);

	/* Each stream still carries the whole object. */
	char *text = drain(rj[0].stream, 4096, &(ssize_t){0});
	CU_ASSERT(strlen(text) > BIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "{\"type\":\"ADDED\",\"object\":{"));
	free(text);
	json_object *pe[2];
	ssize_t end;
	CU_ASSERT_EQUAL(pb_events(pe, 2, rp[0].stream, &end), 1);
	CU_ASSERT_EQUAL(strlen(nl_json_get_string(pe[0], "object.data.v")), BIG);
	json_object_put(pe[0]);

	/* A change: one shared MODIFIED line per encoding while it is being
	 * written, a new initial line for new watchers. */
	put_big("big", BIG, 'y', MOCK_WRITE_UPDATE);
	char chunk[64];
	CU_ASSERT(mock_watch_read(rj[1].stream, chunk, sizeof(chunk)) > 0); /* its ADDED */
	mock_response late;
	get_accept(&late, &api, "/api/v1/namespaces/a/configmaps", "watch=1", "application/json");
	CU_ASSERT_EQUAL_FATAL(late.code, 200);
	CU_ASSERT_EQUAL(stats().shared, 3); /* old JSON and protobuf, new JSON */
	mock_response_free(&late);
	CU_ASSERT_EQUAL(stats().shared, 2);

	for (int i = 0; i < WATCHERS; i++) {
		mock_response_free(&rj[i]);
		mock_response_free(&rp[i]);
	}
	st = stats();
	CU_ASSERT_EQUAL(st.watchers, 0);
	CU_ASSERT_EQUAL(st.shared, 0);
	CU_ASSERT_EQUAL(st.buffered, 0);
	env_stop();
}

/* Two watchers writing the same change share its line. */
static void test_watch__live_lines_are_shared_while_written(void)
{
	env_start(100, 60000);
	mock_watcher *w1 = open_cm(mock_store_rv(store), 0, NULL, NULL, NULL);
	mock_watcher *w2 = open_cm(mock_store_rv(store), 0, NULL, NULL, NULL);
	put_big("big", BIG, 'z', MOCK_WRITE_CREATE);
	char chunk[64];
	CU_ASSERT(mock_watch_read(w1, chunk, sizeof(chunk)) > 0);
	CU_ASSERT(mock_watch_read(w2, chunk, sizeof(chunk)) > 0);
	mock_watch_stats st = stats();
	CU_ASSERT_EQUAL(st.shared, 1);
	CU_ASSERT(st.buffered > BIG && st.buffered < BIG + 1024);
	mock_watch_close(w1);
	CU_ASSERT_EQUAL(stats().shared, 1);
	mock_watch_close(w2);
	CU_ASSERT_EQUAL(stats().buffered, 0);
	env_stop();
}

/* A watcher with more than --watch-backlog-bytes to write is closed as
 * the cacher closes an unresponsive watcher: what it held is released at
 * once, the line it had begun is finished, and the stream ends without an
 * ERROR event (the client resumes from its last resourceVersion). */
static void test_watch__backlog_cap_ends_stream_without_error(void)
{
	env_start(1000, 60000);
	mock_watch_hub_set_limits(hub, 0, 64 * 1024);
	mock_watcher *idle = open_cm(mock_store_rv(store), 0, NULL, NULL, NULL);
	mock_watcher *begun = open_cm(mock_store_rv(store), 0, NULL, NULL, NULL);
	mock_watcher *other_ns = open_cm(mock_store_rv(store), 0, "b", NULL, NULL);
	put_big("c0", 16 * 1024, 'q', MOCK_WRITE_CREATE);
	char head[100];
	CU_ASSERT_EQUAL(mock_watch_read(begun, head, sizeof(head)), (ssize_t)sizeof(head));
	for (int i = 1; i < 6; i++) {
		char name[8];
		snprintf(name, sizeof(name), "c%d", i);
		put_big(name, 16 * 1024, 'q', MOCK_WRITE_CREATE);
	}
	/* 6 x 16 KiB: over 64 KiB for the two that select them; the watcher
	 * of namespace b selects none, so it has nothing to write. */
	wait_terminated(2);
	ssize_t end;
	char *text = drain(idle, 4096, &end);
	CU_ASSERT_STRING_EQUAL(text, "");
	CU_ASSERT_EQUAL(end, MOCK_WATCH_END);
	free(text);
	text = drain(begun, 4096, &end);
	CU_ASSERT_EQUAL(end, MOCK_WATCH_END);
	CU_ASSERT(strlen(text) > 16 * 1024);
	/* the rest of its first line, and nothing after it */
	CU_ASSERT_PTR_NULL(strstr(text, "\"type\":"));
	CU_ASSERT_EQUAL(text[strlen(text) - 1], '\n');
	CU_ASSERT_EQUAL(strchr(text, '\n'), text + strlen(text) - 1);
	free(text);
	CU_ASSERT_EQUAL(mock_watch_read(other_ns, head, sizeof(head)), 0);
	mock_watch_close(idle);
	mock_watch_close(begun);
	CU_ASSERT_EQUAL(stats().buffered, 0);
	mock_watch_close(other_ns);
	env_stop();
}

/* --watch-buffer-bytes bounds the lines of all watchers together: a watch
 * whose initial events do not fit is refused with the 429 of
 * --max-watches, a stream whose next line does not fit ends; shared lines
 * count once. */
static void test_watch__buffer_limit_refuses_and_ends_watches(void)
{
	env_start(100, 60000);
	mock_api api = api_of();
	put_big("big", BIG, 'z', MOCK_WRITE_CREATE);
	mock_watch_hub_set_limits(hub, BIG * 3 / 2, 0);
	mock_response r1, r2, r3;
	get_accept(&r1, &api, "/api/v1/namespaces/a/configmaps", "watch=1", "application/json");
	get_accept(&r2, &api, "/api/v1/namespaces/a/configmaps", "watch=1", "application/json");
	CU_ASSERT_EQUAL(r1.code, 200);
	CU_ASSERT_EQUAL(r2.code, 200); /* the same line: no more memory */
	put_big("big", BIG, 'y', MOCK_WRITE_UPDATE);
	get_accept(&r3, &api, "/api/v1/namespaces/a/configmaps", "watch=1", "application/json");
	CU_ASSERT_EQUAL(r3.code, 429);
	CU_ASSERT_EQUAL(r3.retry_after, 1);
	CU_ASSERT_STRING_EQUAL(r3.body.data, "Too many requests, please try again later.\n");
	CU_ASSERT_EQUAL(stats().refused, 1);
	mock_response_free(&r3);

	/* r1 writes its ADDED, then its MODIFIED does not fit beside the
	 * ADDED r2 still holds: r1's stream ends. */
	ssize_t end;
	char *text = drain(r1.stream, 4096, &end);
	CU_ASSERT_EQUAL(end, MOCK_WATCH_END);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"type\":\"ADDED\""));
	CU_ASSERT_PTR_NULL(strstr(text, "\"type\":\"MODIFIED\""));
	free(text);
	CU_ASSERT_EQUAL(stats().refused, 2);
	mock_response_free(&r1);
	mock_response_free(&r2);
	CU_ASSERT_EQUAL(stats().buffered, 0);
	get_accept(&r3, &api, "/api/v1/namespaces/a/configmaps", "watch=1", "application/json");
	CU_ASSERT_EQUAL(r3.code, 200);
	mock_response_free(&r3);
	env_stop();
}

static CU_TestInfo tests[] = {
    {"changes_in_order_with_deletion_rv", test_watch__changes_in_order_with_deletion_rv},
    {"resumes_after_rv_without_gaps", test_watch__resumes_after_rv_without_gaps},
    {"too_old_rv_is_one_410_error", test_watch__too_old_rv_is_one_410_error},
    {"label_selector_enter_and_leave", test_watch__label_selector_enter_and_leave},
    {"field_and_namespace_filters", test_watch__field_and_namespace_filters},
    {"slow_watcher_is_ended", test_watch__slow_watcher_is_ended},
    {"bookmark_carries_current_rv", test_watch__bookmark_carries_current_rv},
    {"bookmark_shape_per_kind", test_watch__bookmark_shape_per_kind},
    {"timeout_ends_stream", test_watch__timeout_ends_stream},
    {"parked_watcher_woken_by_matching_change",
     test_watch__parked_watcher_woken_by_matching_change},
    {"parked_watcher_woken_for_timeout_and_bookmark",
     test_watch__parked_watcher_woken_for_timeout_and_bookmark},
    {"handler_initial_added_then_live", test_watch__handler_initial_added_then_live},
    {"handler_protobuf_frames_equal_json_lines",
     test_watch__handler_protobuf_frames_equal_json_lines},
    {"handler_send_initial_events_end_bookmark",
     test_watch__handler_send_initial_events_end_bookmark},
    {"handler_table_events_for_kubectl", test_watch__handler_table_events_for_kubectl},
    {"handler_refuses_bad_options", test_watch__handler_refuses_bad_options},
    {"list_exact_too_old_is_410", test_watch__list_exact_too_old_is_410},
    {"faults_shape_the_stream", test_watch__faults_shape_the_stream},
    {"initial_lines_are_shared_by_watchers", test_watch__initial_lines_are_shared_by_watchers},
    {"live_lines_are_shared_while_written", test_watch__live_lines_are_shared_while_written},
    {"backlog_cap_ends_stream_without_error", test_watch__backlog_cap_ends_stream_without_error},
    {"buffer_limit_refuses_and_ends_watches", test_watch__buffer_limit_refuses_and_ends_watches},
    {"rewind_forgets_the_undone_changes", test_watch__rewind_forgets_the_undone_changes},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"watch", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
