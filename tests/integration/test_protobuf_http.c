/* A client that speaks only protobuf (Accept and Content-Type
 * application/vnd.kubernetes.protobuf, bodies from nl_pb_encode_object)
 * against nodelet-mockapi over real HTTP: for every served kind, create,
 * a second create (409 AlreadyExists), update, a stale update (409
 * Conflict), get, list, delete with protobuf DeleteOptions, get (404), and
 * a watch whose frames carry ADDED, MODIFIED and DELETED. Every answer,
 * errors included, must be protobuf. Objects created in protobuf are
 * stored exactly as the same objects sent as JSON. */
#include <curl/curl.h>
#include <nodelet/meta.h>
#include <nodelet/protobuf.h>
#include <stdlib.h>
#include <string.h>

#include "../cu_main.h"
#include "http_client.h"

static mock_server *srv;
static const char *base;

/* No controller ticks: a built-in controller (node lifecycle) could write
 * a Node between a test's read and its update, a 409 seen once in ten. */
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

typedef struct {
	long code;
	char content_type[128];
	nl_buf body;
} pb_resp;

static size_t on_body(char *p, size_t size, size_t n, void *u)
{
	pb_resp *r = u;
	return nl_buf_add(&r->body, p, size * n) == 0 ? size * n : 0;
}

/* One request with a binary body (may be NULL) and the given Accept. */
static void pb_http(pb_resp *r, const char *method, const char *path, const nl_buf *body,
                    const char *accept, const char *content_type)
{
	char url[512], h1[160], h2[160];
	CURL *c = curl_easy_init();
	struct curl_slist *hs = NULL;
	memset(r, 0, sizeof(*r));
	nl_buf_init(&r->body, 0);
	snprintf(url, sizeof(url), "%s%s", base, path);
	snprintf(h1, sizeof(h1), "Accept: %s", accept);
	snprintf(h2, sizeof(h2), "Content-Type: %s", content_type);
	hs = curl_slist_append(hs, h1);
	hs = curl_slist_append(hs, h2);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hs);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	if (body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body->data);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)body->len);
	}
	CU_ASSERT_EQUAL_FATAL(curl_easy_perform(c), CURLE_OK);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->code);
	char *ct = NULL;
	curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ct);
	snprintf(r->content_type, sizeof(r->content_type), "%s", ct ? ct : "");
	curl_slist_free_all(hs);
	curl_easy_cleanup(c);
}

/* A protobuf-only request: the answer's object as JSON (new reference). */
static json_object *pb_call(long want, const char *method, const char *path, json_object *body)
{
	nl_buf b;
	pb_resp r;
	nl_buf_init(&b, 0);
	if (body)
		CU_ASSERT_EQUAL_FATAL(nl_pb_encode_object(&b, body), 0);
	pb_http(&r, method, path, body ? &b : NULL, NL_PB_CONTENT_TYPE, NL_PB_CONTENT_TYPE);
	nl_buf_free(&b);
	json_object *o = NULL;
	nl_err err = {0};
	CU_ASSERT_STRING_EQUAL(r.content_type, NL_PB_CONTENT_TYPE);
	int rc = nl_pb_decode_object(&o, NULL, r.body.data, r.body.len, &err);
	if (r.code != want || rc != 0)
		fprintf(stderr, "\n%s %s: want %ld got %ld (%s): %s\n", method, path, want, r.code,
		        err.msg, o ? json_object_to_json_string(o) : "");
	CU_ASSERT_EQUAL(r.code, want);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	nl_buf_free(&r.body);
	return o;
}

static void assert_status(json_object *st, int code, const char *reason, const char *message)
{
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(st, "kind"), "Status");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(st, "reason"), reason);
	CU_ASSERT_EQUAL(json_object_get_int(json_object_object_get(st, "code")), code);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(st, "message"), message);
}

/* The event types of a protobuf watch's frames for objects named name. */
static void watch_types(char *out, size_t cap, const char *path, const char *rv, const char *name)
{
	char url[512];
	pb_resp r;
	snprintf(url, sizeof(url), "%s?watch=1&timeoutSeconds=1&resourceVersion=%s", path, rv);
	pb_http(&r, "GET", url, NULL, NL_PB_CONTENT_TYPE, NL_PB_CONTENT_TYPE);
	CU_ASSERT_EQUAL(r.code, 200);
	CU_ASSERT_STRING_EQUAL(r.content_type, NL_PB_WATCH_CONTENT_TYPE);
	out[0] = '\0';
	const unsigned char *p = (const unsigned char *)r.body.data, *e = p + r.body.len;
	while (p && p + 4 <= e) {
		size_t len = (size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3];
		CU_ASSERT_FATAL(p + 4 + len <= e);
		char type[16];
		json_object *obj = NULL;
		nl_err err = {0};
		CU_ASSERT_EQUAL_FATAL(
		    nl_pb_decode_watch_event(type, sizeof(type), &obj, p + 4, len, &err), 0);
		const char *n = nl_json_get_string(obj, "metadata.name");
		if (n && strcmp(n, name) == 0) {
			size_t l = strlen(out);
			snprintf(out + l, cap - l, "%s%s", l ? " " : "", type);
		}
		json_object_put(obj);
		p += 4 + len;
	}
	nl_buf_free(&r.body);
}

typedef struct {
	const char *collection; /* the collection's path */
	const char *resource;   /* its resource name in messages */
	const char *name;
	const char *object; /* JSON of the object to create */
	const char *field;  /* a string field the update changes (dotted path) */
	int updatable;      /* PUT served on this kind */
} kind_case;

static void set_string(json_object *o, const char *path, const char *value)
{
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", path);
	char *last = strrchr(buf, '.');
	if (last)
		*last = '\0';
	json_object *parent = last ? nl_json_get_path(o, buf) : o;
	CU_ASSERT_PTR_NOT_NULL_FATAL(parent);
	json_object_object_add(parent, last ? last + 1 : buf, json_object_new_string(value));
}

static void run_kind(const kind_case *k)
{
	char path[256], msg[256], types[128];
	snprintf(path, sizeof(path), "%s/%s", k->collection, k->name);
	json_object *list = pb_call(200, "GET", k->collection, NULL);
	char start_rv[32];
	snprintf(start_rv, sizeof(start_rv), "%s",
	         nl_json_get_string(list, "metadata.resourceVersion"));
	json_object_put(list);

	json_object *obj = nl_test_json(k->object);
	json_object *created = pb_call(201, "POST", k->collection, obj);
	CU_ASSERT_PTR_NOT_NULL(nl_json_get_string(created, "metadata.uid"));
	json_object *st = pb_call(409, "POST", k->collection, obj);
	snprintf(msg, sizeof(msg), "%s \"%s\" already exists", k->resource, k->name);
	assert_status(st, 409, "AlreadyExists", msg);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(st, "details.name"), k->name);
	json_object_put(st);

	json_object *current = created;
	if (k->updatable) {
		json_object *changed = NULL;
		json_object_deep_copy(created, &changed, NULL);
		set_string(changed, k->field, "changed");
		json_object *updated = pb_call(200, "PUT", path, changed);
		CU_ASSERT_STRING_EQUAL(nl_json_get_string(updated, k->field), "changed");
		/* The same base again: its resourceVersion is stale now. */
		st = pb_call(409, "PUT", path, changed);
		snprintf(
		    msg, sizeof(msg),
		    "Operation cannot be fulfilled on %s \"%s\": the object has been modified; "
		    "please apply your changes to the latest version and try again",
		    k->resource, k->name);
		assert_status(st, 409, "Conflict", msg);
		json_object_put(st);
		json_object_put(changed);
		current = updated;
		json_object_put(created);
	}
	json_object *got = pb_call(200, "GET", path, NULL);
	CU_ASSERT_TRUE(json_object_equal(got, current));
	json_object_put(got);
	list = pb_call(200, "GET", k->collection, NULL);
	int found = 0;
	json_object *items = json_object_object_get(list, "items");
	CU_ASSERT_PTR_NOT_NULL(strstr(nl_json_get_string(list, "kind"), "List"));
	/* Items come without kind and apiVersion, as Go's lists write them. */
	json_object *bare = NULL;
	json_object_deep_copy(current, &bare, NULL);
	json_object_object_del(bare, "kind");
	json_object_object_del(bare, "apiVersion");
	for (size_t i = 0; i < json_object_array_length(items); i++)
		found |= json_object_equal(json_object_array_get_idx(items, i), bare);
	json_object_put(bare);
	if (!found)
		fprintf(stderr, "\n%s not in %s\n", json_object_to_json_string(current),
		        json_object_to_json_string(list));
	CU_ASSERT_TRUE(found);
	json_object_put(list);

	json_object *opts = nl_test_json("{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\","
	                                 "\"propagationPolicy\":\"Background\"}");
	json_object *answer = pb_call(200, "DELETE", path, opts);
	json_object_put(opts);
	int namespace = strcmp(k->resource, "namespaces") == 0;
	if (namespace) {
		/* Terminating; /finalize with no finalizer left deletes it */
		char fin[300];
		json_object *spec = json_object_new_object();
		json_object_object_add(spec, "finalizers", json_object_new_array());
		json_object_object_add(answer, "spec", spec);
		snprintf(fin, sizeof(fin), "%s/finalize", path);
		json_object_put(pb_call(200, "PUT", fin, answer));
	}
	json_object_put(answer);
	st = pb_call(404, "GET", path, NULL);
	snprintf(msg, sizeof(msg), "%s \"%s\" not found", k->resource, k->name);
	assert_status(st, 404, "NotFound", msg);
	json_object_put(st);

	watch_types(types, sizeof(types), k->collection, start_rv, k->name);
	CU_ASSERT_STRING_EQUAL(types, namespace      ? "ADDED MODIFIED MODIFIED DELETED"
	                              : k->updatable ? "ADDED MODIFIED DELETED"
	                                             : "ADDED DELETED");
	json_object_put(current);
	json_object_put(obj);
}

static void test_protobuf_http__every_kind_every_verb(void)
{
	static const kind_case kinds[] = {
	    {"/api/v1/namespaces", "namespaces", "pb-ns",
	     "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"pb-ns\","
	     "\"labels\":{\"a\":\"b\"}}}",
	     "metadata.labels.a", 1},
	    {"/api/v1/nodes", "nodes", "pb-node",
	     "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"pb-node\","
	     "\"labels\":{\"a\":\"b\"}},"
	     "\"spec\":{\"podCIDR\":\"10.0.0.0/24\",\"taints\":[{\"key\":\"k\",\"value\":\"v\","
	     "\"effect\":\"NoSchedule\"}]},\"status\":{\"capacity\":{\"cpu\":\"2\",\"memory\":"
	     "\"1Gi\"}}}",
	     "metadata.labels.a", 1},
	    {"/api/v1/namespaces/default/configmaps", "configmaps", "pb-cm",
	     "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"pb-cm\"},"
	     "\"data\":{\"k\":\"v\"},\"binaryData\":{\"b\":\"AP8=\"}}",
	     "data.k", 1},
	    {"/api/v1/namespaces/default/events", "events", "pb-ev",
	     "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"pb-ev\"},"
	     "\"involvedObject\":{\"kind\":\"Node\",\"name\":\"pb-node\"},\"reason\":\"Test\","
	     "\"message\":\"m\",\"source\":{\"component\":\"test\"},\"firstTimestamp\":"
	     "\"2026-01-02T03:04:05Z\",\"lastTimestamp\":\"2026-01-02T03:04:05Z\",\"count\":1,"
	     "\"type\":\"Normal\"}",
	     "message", 1},
	    {"/apis/coordination.k8s.io/v1/namespaces/default/leases", "leases.coordination.k8s.io",
	     "pb-lease",
	     "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{\"name\":"
	     "\"pb-lease\"},\"spec\":{\"holderIdentity\":\"h\",\"leaseDurationSeconds\":40,"
	     "\"renewTime\":\"2026-01-02T03:04:05.123456Z\"}}",
	     "spec.holderIdentity", 1},
	};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		run_kind(&kinds[i]);
}

/* A subresource in protobuf: PUT nodes/<n>/status changes the status and
 * keeps the spec, as in JSON. */
static void test_protobuf_http__status_subresource(void)
{
	json_object *node = nl_test_json("{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":"
	                                 "{\"name\":\"pb-status\"},\"spec\":{\"unschedulable\":"
	                                 "true}}");
	json_object *created = pb_call(201, "POST", "/api/v1/nodes", node);
	json_object *changed = NULL;
	json_object_deep_copy(created, &changed, NULL);
	json_object_object_add(json_object_object_get(changed, "spec"), "unschedulable",
	                       json_object_new_boolean(0));
	json_object *cond = nl_test_json("[{\"type\":\"Ready\",\"status\":\"True\","
	                                 "\"lastHeartbeatTime\":\"2026-01-02T03:04:05Z\","
	                                 "\"lastTransitionTime\":\"2026-01-02T03:04:05Z\","
	                                 "\"reason\":\"KubeletReady\",\"message\":\"ok\"}]");
	json_object_object_add(json_object_object_get(changed, "status"), "conditions", cond);
	json_object *after = pb_call(200, "PUT", "/api/v1/nodes/pb-status/status", changed);
	CU_ASSERT_TRUE(json_object_get_boolean(nl_json_get_path(after, "spec.unschedulable")));
	json_object *c0 =
	    json_object_array_get_idx(nl_json_get_path(after, "status.conditions"), 0);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(c0, "reason"), "KubeletReady");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(c0, "lastHeartbeatTime"), "2026-01-02T03:04:05Z");
	json_object_put(after);
	json_object_put(changed);
	json_object_put(created);
	json_object_put(node);
}

/* The same ConfigMap sent as JSON and as protobuf is stored alike. */
static void test_protobuf_http__stored_as_if_json(void)
{
	const char *text = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
	                   "\"same\",\"labels\":{\"x\":\"y\"}},"
	                   "\"data\":{\"a\":\"b\"},\"binaryData\":{\"c\":\"AAE=\"}}";
	nl_http_resp r;
	CU_ASSERT_EQUAL_FATAL(nl_http(&r, base, "POST",
	                              "/api/v1/namespaces/kube-public/configmaps?fieldManager=m",
	                              text, NULL),
	                      0);
	CU_ASSERT_EQUAL(r.code, 201);
	json_object *from_json = nl_http_json(&r);
	nl_http_resp_free(&r);
	json_object *obj = nl_test_json(text);
	nl_buf b;
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL_FATAL(nl_pb_encode_object(&b, obj), 0);
	pb_resp pr;
	pb_http(&pr, "POST", "/api/v1/namespaces/default/configmaps?fieldManager=m", &b,
	        "application/json", NL_PB_CONTENT_TYPE);
	CU_ASSERT_EQUAL(pr.code, 201);
	json_object *from_pb = json_tokener_parse(pr.body.data);
	nl_buf_free(&pr.body);
	nl_buf_free(&b);
	/* Only what the server assigns differs: uid, resourceVersion, times. */
	const char *assigned[] = {"uid", "resourceVersion", "creationTimestamp", "namespace"};
	for (size_t i = 0; i < 4; i++) {
		json_object_object_del(json_object_object_get(from_json, "metadata"), assigned[i]);
		json_object_object_del(json_object_object_get(from_pb, "metadata"), assigned[i]);
	}
	json_object *mf[2] = {nl_json_get_path(from_json, "metadata.managedFields"),
	                      nl_json_get_path(from_pb, "metadata.managedFields")};
	CU_ASSERT_PTR_NOT_NULL_FATAL(mf[0]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mf[1]);
	for (int i = 0; i < 2; i++)
		json_object_object_del(json_object_array_get_idx(mf[i], 0), "time");
	if (!json_object_equal(from_json, from_pb))
		fprintf(stderr, "\nJSON %s\nPB   %s\n", json_object_to_json_string(from_json),
		        json_object_to_json_string(from_pb));
	CU_ASSERT_TRUE(json_object_equal(from_json, from_pb));
	json_object_put(from_json);
	json_object_put(from_pb);
	json_object_put(obj);
}

static CU_TestInfo tests[] = {
    {"every_kind_every_verb", test_protobuf_http__every_kind_every_verb},
    {"status_subresource", test_protobuf_http__status_subresource},
    {"stored_as_if_json", test_protobuf_http__stored_as_if_json},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"protobuf_http", setup, teardown, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
