/* nodelet-mockapi over real HTTP: CRUD, the exact Status bodies, and bad
 * input that must leave the store unchanged. Server in-process on port 0. */
#include <nodelet/meta.h>
#include <stdlib.h>
#include <string.h>

#include "../cu_main.h"
#include "http_client.h"
#include "storage/store.h"

static mock_server *srv;
static const char *base;

static int setup(void)
{
	static const char *fixtures[1];
	fixtures[0] = strdup(nl_test_fixture("manifests/sample.yaml"));
	mock_options o;
	nl_err err = {0};
	mock_options_init(&o);
	o.port = 0;
	o.fixtures = fixtures;
	o.nfixtures = 1;
	int rc = mock_server_new(&srv, &o, &err);
	free((void *)fixtures[0]);
	if (rc != 0 || mock_server_start(srv, &err) != 0) {
		fprintf(stderr, "cannot start server: %s\n", err.msg);
		return 1;
	}
	base = mock_server_url(srv);
	return 0;
}

static int teardown(void)
{
	mock_server_free(srv);
	return 0;
}

/* Request and parse; the caller owns the returned object. */
static json_object *req(long want, const char *method, const char *path, const char *body)
{
	return nl_http_expect(want, base, method, path, body, NULL);
}

/* Compare an answer with a golden Status under fixtures/status/. */
static void assert_golden(json_object *got, const char *golden)
{
	json_object *want = json_object_from_file(nl_test_fixture(golden));
	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	int eq = json_object_equal(got, want);
	if (!eq)
		fprintf(stderr, "\n%s\n  want %s\n  got  %s\n", golden,
		        json_object_to_json_string(want), json_object_to_json_string(got));
	CU_ASSERT_TRUE(eq);
	json_object_put(want);
}

static const char *str(json_object *o, const char *path)
{
	const char *s = nl_json_get_string(o, path);
	return s ? s : "";
}

static void test_http__version_reports_1_32(void)
{
	json_object *v = req(200, "GET", "/version", NULL);
	CU_ASSERT_STRING_EQUAL(str(v, "major"), "1");
	CU_ASSERT_STRING_EQUAL(str(v, "minor"), "32");
	json_object_put(v);
}

static void test_http__discovery_lists_served_resources(void)
{
	json_object *core = req(200, "GET", "/api/v1", NULL);
	json_object *res = nl_json_get_path(core, "resources");
	CU_ASSERT_PTR_NOT_NULL_FATAL(res);
	const char *want[] = {
	    "configmaps", "events",       "namespaces", "namespaces/finalize", "namespaces/status",
	    "nodes",      "nodes/status", "pods",       "pods/eviction",       "pods/status"};
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(res), 10);
	for (size_t i = 0; i < 10; i++)
		CU_ASSERT_STRING_EQUAL(str(json_object_array_get_idx(res, i), "name"), want[i]);
	json_object_put(core);

	json_object *groups = req(200, "GET", "/apis", NULL);
	NL_ASSERT_JSON_EQ(
	    groups,
	    "{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":["
	    "{\"name\":\"authentication.k8s.io\",\"versions\":[{\"groupVersion\":"
	    "\"authentication.k8s.io/v1\",\"version\":\"v1\"}],\"preferredVersion\":{"
	    "\"groupVersion\":\"authentication.k8s.io/v1\",\"version\":\"v1\"}},"
	    "{\"name\":\"authorization.k8s.io\",\"versions\":[{\"groupVersion\":"
	    "\"authorization.k8s.io/v1\",\"version\":\"v1\"}],\"preferredVersion\":{"
	    "\"groupVersion\":\"authorization.k8s.io/v1\",\"version\":\"v1\"}},"
	    "{\"name\":\"certificates.k8s.io\",\"versions\":[{\"groupVersion\":"
	    "\"certificates.k8s.io/v1\",\"version\":\"v1\"}],\"preferredVersion\":{"
	    "\"groupVersion\":\"certificates.k8s.io/v1\",\"version\":\"v1\"}},"
	    "{\"name\":\"coordination.k8s.io\",\"versions\":[{\"groupVersion\":\"coordination."
	    "k8s.io/v1\",\"version\":\"v1\"}],\"preferredVersion\":{\"groupVersion\":"
	    "\"coordination.k8s.io/v1\",\"version\":\"v1\"}}]}");
	json_object_put(groups);

	json_object *coord = req(200, "GET", "/apis/coordination.k8s.io/v1", NULL);
	json_object *lease = json_object_array_get_idx(nl_json_get_path(coord, "resources"), 0);
	CU_ASSERT_STRING_EQUAL(str(lease, "name"), "leases");
	CU_ASSERT_STRING_EQUAL(str(lease, "kind"), "Lease");
	json_object_put(coord);
}

static void test_http__default_namespaces_exist(void)
{
	const char *names[] = {"default", "kube-node-lease", "kube-public", "kube-system"};
	json_object *list = req(200, "GET", "/api/v1/namespaces", NULL);
	json_object *items = nl_json_get_path(list, "items");
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(items), 4);
	for (size_t i = 0; i < 4; i++) {
		json_object *ns = json_object_array_get_idx(items, i);
		CU_ASSERT_STRING_EQUAL(nl_meta_name(ns), names[i]);
		CU_ASSERT_STRING_EQUAL(str(ns, "status.phase"), "Active");
	}
	json_object_put(list);
}

static void test_http__configmap_crud_and_conflict(void)
{
	const char *path = "/api/v1/namespaces/default/configmaps/crud";
	json_object *c = req(201, "POST", "/api/v1/namespaces/default/configmaps",
	                     "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
	                     "\"crud\"},\"data\":{\"a\":\"1\"}}");
	CU_ASSERT_EQUAL(strlen(str(c, "metadata.uid")), 36);
	CU_ASSERT_STRING_EQUAL(str(c, "metadata.namespace"), "default");
	CU_ASSERT_STRING_NOT_EQUAL(str(c, "metadata.creationTimestamp"), "");
	char rv1[32], uid[40];
	snprintf(rv1, sizeof(rv1), "%s", str(c, "metadata.resourceVersion"));
	snprintf(uid, sizeof(uid), "%s", str(c, "metadata.uid"));
	json_object_put(c);

	json_object *g = req(200, "GET", path, NULL);
	CU_ASSERT_STRING_EQUAL(str(g, "kind"), "ConfigMap");
	CU_ASSERT_STRING_EQUAL(str(g, "data.a"), "1");
	json_object_put(g);

	char body[512];
	snprintf(body, sizeof(body),
	         "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"crud\","
	         "\"resourceVersion\":\"%s\"},\"data\":{\"a\":\"2\"}}",
	         rv1);
	json_object *u = req(200, "PUT", path, body);
	CU_ASSERT_STRING_NOT_EQUAL(str(u, "metadata.resourceVersion"), rv1);
	CU_ASSERT_STRING_EQUAL(str(u, "metadata.uid"), uid);
	CU_ASSERT_STRING_EQUAL(str(u, "data.a"), "2");
	json_object_put(u);

	/* The same body again carries a stale resourceVersion now. */
	json_object *conflict = req(409, "PUT", path, body);
	NL_ASSERT_JSON_EQ(conflict,
	                  "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
	                  "\"Failure\",\"message\":\"Operation cannot be fulfilled on configmaps "
	                  "\\\"crud\\\": the object has been modified; please apply your changes "
	                  "to the latest version and try again\",\"reason\":\"Conflict\","
	                  "\"details\":{\"name\":\"crud\",\"kind\":\"configmaps\"},\"code\":409}");
	json_object_put(conflict);

	json_object *d = req(200, "DELETE", path, NULL);
	CU_ASSERT_STRING_EQUAL(str(d, "status"), "Success");
	CU_ASSERT_STRING_EQUAL(str(d, "details.uid"), uid);
	json_object_put(d);
	json_object *nf = req(404, "GET", path, NULL);
	CU_ASSERT_STRING_EQUAL(str(nf, "message"), "configmaps \"crud\" not found");
	json_object_put(nf);
}

static void test_http__lease_update_rules(void)
{
	const char *path = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/l1";
	const char *body = "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\","
	                   "\"metadata\":{\"name\":\"l1\"},\"spec\":{\"holderIdentity\":\"l1\","
	                   "\"leaseDurationSeconds\":40}}";
	/* Create-on-update, then an update without resourceVersion is refused. */
	json_object *c = req(201, "PUT", path, body);
	CU_ASSERT_STRING_EQUAL(str(c, "spec.holderIdentity"), "l1");
	json_object_put(c);
	json_object *inv = req(422, "PUT", path, body);
	CU_ASSERT_STRING_EQUAL(str(inv, "reason"), "Invalid");
	CU_ASSERT_STRING_EQUAL(str(inv, "message"),
	                       "leases.coordination.k8s.io \"l1\" is invalid: "
	                       "metadata.resourceVersion: Invalid value: 0x0: must be specified "
	                       "for an update");
	json_object_put(inv);

	const char *stale = "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\","
	                    "\"metadata\":{\"name\":\"x\",\"resourceVersion\":\"1\"},\"spec\":{}}";
	json_object *x =
	    req(201, "PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/x",
	        "{\"metadata\":{\"name\":\"x\"},\"spec\":{}}");
	json_object_put(x);
	json_object *conflict = req(
	    409, "PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/x", stale);
	assert_golden(conflict, "status/conflict-lease.json");
	json_object_put(conflict);
}

static void test_http__uid_in_body_is_a_precondition(void)
{
	json_object *c = req(201, "POST", "/api/v1/namespaces/default/configmaps",
	                     "{\"metadata\":{\"name\":\"uidpre\"}}");
	json_object_put(c);
	json_object *r = req(409, "PUT", "/api/v1/namespaces/default/configmaps/uidpre",
	                     "{\"metadata\":{\"name\":\"uidpre\",\"uid\":\"00000000-0000-4000-8000-"
	                     "000000000000\"},\"data\":{\"k\":\"v\"}}");
	CU_ASSERT_STRING_EQUAL(str(r, "reason"), "Conflict");
	CU_ASSERT_PTR_NOT_NULL(strstr(str(r, "message"), "Precondition failed: UID in "
	                                                 "precondition: 00000000-0000-4000-8000-"
	                                                 "000000000000, UID in object meta: "));
	json_object_put(r);
}

/* Bad input: each answers its 4xx and changes nothing. */
static void assert_refused_unchanged(long code, const char *reason, const char *method,
                                     const char *path, const char *body, const char *msg_prefix)
{
	nl_http_resp before, after;
	uint64_t rv = mock_store_rv(mock_server_store(srv));
	nl_http(&before, base, "GET", "/api/v1/namespaces/default/configmaps", NULL, NULL);
	json_object *r = req(code, method, path, body);
	CU_ASSERT_STRING_EQUAL(str(r, "kind"), "Status");
	CU_ASSERT_STRING_EQUAL(str(r, "reason"), reason);
	if (msg_prefix && strncmp(str(r, "message"), msg_prefix, strlen(msg_prefix)) != 0) {
		fprintf(stderr, "\n  message %s\n  wanted prefix %s\n", str(r, "message"),
		        msg_prefix);
		CU_FAIL("message prefix");
	}
	json_object_put(r);
	CU_ASSERT_EQUAL(mock_store_rv(mock_server_store(srv)), rv);
	nl_http(&after, base, "GET", "/api/v1/namespaces/default/configmaps", NULL, NULL);
	CU_ASSERT_STRING_EQUAL(before.body, after.body);
	nl_http_resp_free(&before);
	nl_http_resp_free(&after);
}

static void test_http__bad_input_leaves_store_unchanged(void)
{
#define COLL "/api/v1/namespaces/default/configmaps"
	const char *coll = COLL;
	assert_refused_unchanged(400, "BadRequest", "POST", coll, "{\"metadata\":",
	                         "the object provided is unrecognized (must be of type ConfigMap): "
	                         "couldn't get version/kind; json parse error: ");
	/* summarizeData: a body that does not start with '{' is shown in hex. */
	assert_refused_unchanged(400, "BadRequest", "POST", coll, "[1,2]",
	                         "the object provided is unrecognized (must be of type ConfigMap): "
	                         "couldn't get version/kind; json parse error: json: cannot "
	                         "unmarshal non-object into Go value of type struct (5b312c325d)");
	assert_refused_unchanged(400, "BadRequest", "POST", coll,
	                         "{\"metadata\":{\"name\":\"t\"},\"data\":{\"a\":1}}",
	                         "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: ");
	assert_refused_unchanged(400, "BadRequest", "PUT",
	                         "/api/v1/namespaces/default/"
	                         "configmaps/counter",
	                         "{\"metadata\":{\"name\":\"other\"}}",
	                         "the name of the object (other) does not match the name on the "
	                         "URL (counter)");
	assert_refused_unchanged(400, "BadRequest", "POST", coll,
	                         "{\"metadata\":{\"name\":\"t\",\"namespace\":\"kube-system\"}}",
	                         "the namespace of the provided object does not match the "
	                         "namespace sent on the request");
	assert_refused_unchanged(422, "Invalid", "POST", coll,
	                         "{\"metadata\":{\"name\":\"Bad_Name\"}}",
	                         "ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: "
	                         "\"Bad_Name\": a lowercase RFC 1123 subdomain");
	assert_refused_unchanged(422, "Invalid", "POST", coll,
	                         "{\"metadata\":{\"name\":\"t\"},\"data\":{\"a/b\":\"x\"}}",
	                         "ConfigMap \"t\" is invalid: data[a/b]: Invalid value: \"a/b\": a "
	                         "valid config key");
	assert_refused_unchanged(409, "AlreadyExists", "POST", coll,
	                         "{\"metadata\":{\"name\":\"counter\"}}",
	                         "configmaps \"counter\" already exists");
	assert_refused_unchanged(404, "NotFound", "POST", "/api/v1/namespaces/nope/configmaps",
	                         "{\"metadata\":{\"name\":\"t\"}}",
	                         "namespaces \"nope\" not found");
	assert_refused_unchanged(405, "MethodNotAllowed", "POST", COLL "/counter", "{}",
	                         "the server does not allow this method on the requested "
	                         "resource");
	assert_refused_unchanged(404, "NotFound", "GET", "/api/v1/widgets", NULL,
	                         "the server could not find the requested resource");
	assert_refused_unchanged(409, "Conflict", "DELETE", COLL "/counter",
	                         "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\","
	                         "\"preconditions\":{\"resourceVersion\":\"1\"}}",
	                         "Operation cannot be fulfilled on ConfigMap \"counter\": the "
	                         "ResourceVersion in the precondition (1) does not match the "
	                         "ResourceVersion in record");
}

static void test_http__body_over_3mib_is_413(void)
{
	size_t n = 3u * 1024u * 1024u + 100;
	char *body = malloc(n + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(body);
	memset(body, ' ', n);
	body[n] = '\0';
	body[0] = '{';
	body[n - 1] = '}';
	assert_refused_unchanged(413, "RequestEntityTooLarge", "POST",
	                         "/api/v1/namespaces/default/configmaps", body,
	                         "Request entity too large: limit is 3145728");
	free(body);
}

static void test_http__list_selectors_and_paging(void)
{
	for (int i = 0; i < 5; i++) {
		char body[256];
		snprintf(body, sizeof(body),
		         "{\"metadata\":{\"name\":\"page-%d\",\"labels\":{\"tier\":\"%s\"}}}", i,
		         i % 2 ? "odd" : "even");
		json_object_put(
		    req(201, "POST", "/api/v1/namespaces/kube-public/configmaps", body));
	}
	json_object *even =
	    req(200, "GET", "/api/v1/namespaces/kube-public/configmaps?labelSelector=tier%3Deven",
	        NULL);
	CU_ASSERT_EQUAL(json_object_array_length(nl_json_get_path(even, "items")), 3);
	CU_ASSERT_STRING_EQUAL(str(even, "kind"), "ConfigMapList");
	json_object_put(even);
	json_object *notin =
	    req(200, "GET",
	        "/api/v1/configmaps?labelSelector=tier%20notin%20(even)&fieldSelector=metadata."
	        "namespace%3Dkube-public",
	        NULL);
	CU_ASSERT_EQUAL(json_object_array_length(nl_json_get_path(notin, "items")), 2);
	json_object_put(notin);

	/* Three pages of two, two and one. */
	char path[1024] = "/api/v1/namespaces/kube-public/configmaps?limit=2";
	int pages = 0, items = 0;
	for (;;) {
		json_object *page = req(200, "GET", path, NULL);
		items += (int)json_object_array_length(nl_json_get_path(page, "items"));
		pages++;
		const char *cont = nl_json_get_string(page, "metadata.continue");
		if (!cont || !*cont || pages > 5) {
			json_object_put(page);
			break;
		}
		char *esc = nl_http_escape(cont);
		snprintf(path, sizeof(path),
		         "/api/v1/namespaces/kube-public/configmaps?limit=2&continue=%s", esc);
		free(esc);
		json_object_put(page);
	}
	CU_ASSERT_EQUAL(pages, 3);
	CU_ASSERT_EQUAL(items, 5);
}

static void test_http__node_status_split(void)
{
	json_object *n = req(201, "POST", "/api/v1/nodes",
	                     "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":"
	                     "\"split\"},\"spec\":{\"podCIDR\":\"10.0.0.0/24\"},\"status\":{"
	                     "\"phase\":\"Running\"}}");
	json_object_put(n);
	/* Main resource: status changes ignored, spec kept. */
	json_object *u = req(200, "PUT", "/api/v1/nodes/split",
	                     "{\"metadata\":{\"name\":\"split\"},\"spec\":{\"podCIDR\":\"10.0.0.0/"
	                     "24\",\"unschedulable\":true},"
	                     "\"status\":{\"phase\":\"Terminated\"}}");
	CU_ASSERT_STRING_EQUAL(str(u, "status.phase"), "Running");
	CU_ASSERT_TRUE(json_object_get_boolean(nl_json_get_path(u, "spec.unschedulable")));
	json_object_put(u);
	/* Status subresource: spec changes ignored. */
	json_object *s = req(200, "PUT", "/api/v1/nodes/split/status",
	                     "{\"metadata\":{\"name\":\"split\"},\"spec\":{},\"status\":{"
	                     "\"phase\":\"Terminated\"}}");
	CU_ASSERT_STRING_EQUAL(str(s, "status.phase"), "Terminated");
	CU_ASSERT_TRUE(json_object_get_boolean(nl_json_get_path(s, "spec.unschedulable")));
	/* Go's field order even though spec came from the stored object (found
	 * by fuzzing: it used to follow status). */
	const char *order[5], *want[] = {"kind", "apiVersion", "metadata", "spec", "status"};
	int nkeys = 0;
	json_object_object_foreach(s, k, v)
	{
		(void)v;
		if (nkeys < 5)
			order[nkeys] = k;
		nkeys++;
	}
	CU_ASSERT_EQUAL_FATAL(nkeys, 5);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_STRING_EQUAL(order[i], want[i]);
	json_object_put(s);
}

/* json-c reads NaN and Infinity; Go's decoder refuses them, and stored they
 * would be served as invalid JSON (found by fuzzing: fieldsV1 kept NaN). */
static void test_http__non_json_numbers_are_refused(void)
{
	json_object *st = req(400, "POST", "/api/v1/namespaces/default/configmaps",
	                      "{\"metadata\":{\"name\":\"nan\",\"managedFields\":[{\"manager\":"
	                      "\"x\",\"operation\":\"Update\",\"fieldsType\":\"FieldsV1\","
	                      "\"fieldsV1\":{\"f:data\":NaN}}]}}");
	CU_ASSERT_STRING_EQUAL(str(st, "reason"), "BadRequest");
	CU_ASSERT_PTR_NOT_NULL(strstr(str(st, "message"), "invalid character 'N'"));
	json_object_put(st);
	json_object_put(req(400, "PUT", "/api/v1/namespaces/default/configmaps/nan",
	                    "{\"metadata\":{\"name\":\"nan\"},\"x\":-Infinity}"));
	json_object_put(req(404, "GET", "/api/v1/namespaces/default/configmaps/nan", NULL));
}

static void test_http__fixtures_are_loaded(void)
{
	json_object *n = req(200, "GET", "/api/v1/nodes/edge-1", NULL);
	CU_ASSERT_STRING_EQUAL(str(n, "spec.configSource.configMap.name"), "edge-config");
	json_object_put(n);
	json_object *l =
	    req(200, "GET", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/edge-1",
	        NULL);
	CU_ASSERT_STRING_EQUAL(str(l, "apiVersion"), "coordination.k8s.io/v1");
	json_object_put(l);
}

static void test_http__deletecollection_returns_deleted(void)
{
	json_object_put(req(201, "POST", "/api/v1/namespaces/kube-system/configmaps",
	                    "{\"metadata\":{\"name\":\"dc1\",\"labels\":{\"dc\":\"y\"}}}"));
	json_object_put(req(201, "POST", "/api/v1/namespaces/kube-system/configmaps",
	                    "{\"metadata\":{\"name\":\"dc2\",\"labels\":{\"dc\":\"y\"}}}"));
	json_object *d = req(
	    200, "DELETE", "/api/v1/namespaces/kube-system/configmaps?labelSelector=dc%3Dy", NULL);
	CU_ASSERT_STRING_EQUAL(str(d, "kind"), "ConfigMapList");
	CU_ASSERT_EQUAL(json_object_array_length(nl_json_get_path(d, "items")), 2);
	json_object_put(d);
	json_object *l =
	    req(200, "GET", "/api/v1/namespaces/kube-system/configmaps?labelSelector=dc%3Dy", NULL);
	CU_ASSERT_EQUAL(json_object_array_length(nl_json_get_path(l, "items")), 0);
	json_object_put(l);
}

/* Repeated GETs answer the same bytes, each with an Audit-Id of its own
 * (decision 0036 retired the reply cache for it); a change, an error or
 * another object in between is answered afresh. */
static void test_http__repeated_get_reuses_only_identical_answers(void)
{
	const char *path = "/api/v1/namespaces/default/configmaps/polled";
	json_object *c = req(201, "POST", "/api/v1/namespaces/default/configmaps",
	                     "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
	                     "\"polled\"},\"data\":{\"a\":\"1\"}}");
	json_object_put(c);
	nl_http_resp first, r;
	char id0[64], id[64];
	CU_ASSERT_EQUAL_FATAL(nl_http(&first, base, "GET", path, NULL, NULL), 0);
	nl_http_header(&first, "Audit-Id", id0, sizeof(id0));
	CU_ASSERT_EQUAL(strlen(id0), 36);
	/* Three identical GETs on two workers: one worker answers twice. */
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL_FATAL(nl_http(&r, base, "GET", path, NULL, NULL), 0);
		CU_ASSERT_EQUAL(r.code, 200);
		CU_ASSERT_STRING_EQUAL(r.content_type, "application/json");
		CU_ASSERT_STRING_EQUAL(r.body, first.body);
		CU_ASSERT_STRING_NOT_EQUAL(nl_http_header(&r, "Audit-Id", id, sizeof(id)), id0);
		CU_ASSERT_EQUAL(strlen(id), 36);
		nl_http_resp_free(&r);
	}

	CU_ASSERT_EQUAL_FATAL(nl_http(&r, base, "PATCH", path, "{\"data\":{\"a\":\"2\"}}",
	                              "application/merge-patch+json"),
	                      0);
	CU_ASSERT_EQUAL(r.code, 200);
	json_object *p = nl_http_json(&r);
	nl_http_resp_free(&r);
	char rv[32];
	snprintf(rv, sizeof(rv), "%s", str(p, "metadata.resourceVersion"));
	json_object_put(p);
	for (int i = 0; i < 3; i++) {
		json_object *g = req(200, "GET", path, NULL);
		CU_ASSERT_STRING_EQUAL(str(g, "data.a"), "2");
		CU_ASSERT_STRING_EQUAL(str(g, "metadata.resourceVersion"), rv);
		json_object_put(g);
		json_object *other = req(200, "GET", "/api/v1/namespaces/default", NULL);
		CU_ASSERT_STRING_EQUAL(str(other, "kind"), "Namespace");
		json_object_put(other);
	}
	json_object *d = req(200, "DELETE", path, NULL);
	json_object_put(d);
	for (int i = 0; i < 3; i++) {
		json_object *nf = req(404, "GET", path, NULL);
		CU_ASSERT_STRING_EQUAL(str(nf, "reason"), "NotFound");
		json_object_put(nf);
	}
	nl_http_resp_free(&first);
}

static CU_TestInfo tests[] = {
    {"version_reports_1_32", test_http__version_reports_1_32},
    {"discovery_lists_served_resources", test_http__discovery_lists_served_resources},
    {"default_namespaces_exist", test_http__default_namespaces_exist},
    {"configmap_crud_and_conflict", test_http__configmap_crud_and_conflict},
    {"lease_update_rules", test_http__lease_update_rules},
    {"uid_in_body_is_a_precondition", test_http__uid_in_body_is_a_precondition},
    {"bad_input_leaves_store_unchanged", test_http__bad_input_leaves_store_unchanged},
    {"body_over_3mib_is_413", test_http__body_over_3mib_is_413},
    {"list_selectors_and_paging", test_http__list_selectors_and_paging},
    {"node_status_split", test_http__node_status_split},
    {"non_json_numbers_are_refused", test_http__non_json_numbers_are_refused},
    {"fixtures_are_loaded", test_http__fixtures_are_loaded},
    {"deletecollection_returns_deleted", test_http__deletecollection_returns_deleted},
    {"repeated_get_reuses_only_identical_answers",
     test_http__repeated_get_reuses_only_identical_answers},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"http", setup, teardown, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
