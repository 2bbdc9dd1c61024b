/* PATCH over real HTTP: the four patch types, the apiserver's errors for
 * each way a patch can go wrong (404, 409, 413, 415, 422), dryRun on every
 * write verb, nodes/status keeping spec, and server-side apply with its
 * managedFields and conflicts. Server in-process on port 0. */
#include <nodelet/buf.h>
#include <nodelet/meta.h>
#include <stdlib.h>
#include <string.h>

#include "../cu_main.h"
#include "http_client.h"

#define MERGE "application/merge-patch+json"
#define JSONP "application/json-patch+json"
#define SMP "application/strategic-merge-patch+json"
#define APPLY "application/apply-patch+yaml"
#define CMS "/api/v1/namespaces/default/configmaps"

static mock_server *srv;
static const char *base;

static int setup(void)
{
	return nl_test_suite_server(&srv, &base, NULL);
}

static int teardown(void)
{
	mock_server_free(srv);
	return 0;
}

/* One request; the caller owns the parsed answer. warning may be NULL. */
static json_object *call(long want, const char *method, const char *path, const char *body,
                         const char *type, char *warning)
{
	nl_http_resp r;
	CU_ASSERT_EQUAL_FATAL(nl_http(&r, base, method, path, body, type), 0);
	if (r.code != want)
		fprintf(stderr, "\n%s %s: want %ld got %ld: %s\n", method, path, want, r.code,
		        r.body);
	CU_ASSERT_EQUAL(r.code, want);
	if (warning)
		snprintf(warning, 512, "%s", r.warning);
	json_object *o = nl_http_json(&r);
	nl_http_resp_free(&r);
	return o;
}

static const char *str(json_object *o, const char *path)
{
	const char *s = nl_json_get_string(o, path);
	return s ? s : "";
}

/* POST a ConfigMap named name with data {"a":"1"}; returns its resourceVersion. */
static void make_cm(const char *name, char rv[32])
{
	char body[256];
	snprintf(body, sizeof(body),
	         "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\"},"
	         "\"data\":{\"a\":\"1\"}}",
	         name);
	json_object *c = call(201, "POST", CMS "?fieldManager=creator", body, NULL, NULL);
	snprintf(rv, 32, "%s", str(c, "metadata.resourceVersion"));
	json_object_put(c);
}

static void test_patch_http__merge_patch_updates_and_records_manager(void)
{
	char rv[32];
	make_cm("merge", rv);
	json_object *p = call(200, "PATCH", CMS "/merge?fieldManager=merger",
	                      "{\"data\":{\"a\":null,\"b\":\"2\"}}", MERGE, NULL);
	NL_ASSERT_JSON_EQ(nl_json_get_path(p, "data"), "{\"b\":\"2\"}");
	CU_ASSERT_STRING_NOT_EQUAL(str(p, "metadata.resourceVersion"), rv);
	json_object *mf = nl_json_get_path(p, "metadata");
	json_object_object_get_ex(mf, "managedFields", &mf);
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(mf), 2);
	json_object *e = json_object_array_get_idx(mf, 1);
	CU_ASSERT_STRING_EQUAL(str(e, "manager"), "merger");
	CU_ASSERT_STRING_EQUAL(str(e, "operation"), "Update");
	NL_ASSERT_JSON_EQ(nl_json_get_path(e, "fieldsV1"), "{\"f:data\":{\"f:b\":{}}}");
	json_object_put(p);
}

static void test_patch_http__json_patch_applies_operations(void)
{
	char rv[32];
	make_cm("jsonp", rv);
	json_object *p = call(200, "PATCH", CMS "/jsonp",
	                      "[{\"op\":\"test\",\"path\":\"/data/a\",\"value\":\"1\"},"
	                      "{\"op\":\"add\",\"path\":\"/data/c\",\"value\":\"3\"},"
	                      "{\"op\":\"move\",\"from\":\"/data/a\",\"path\":\"/data/b\"}]",
	                      JSONP, NULL);
	NL_ASSERT_JSON_EQ(nl_json_get_path(p, "data"), "{\"b\":\"1\",\"c\":\"3\"}");
	json_object_put(p);

	/* A failed test is the generic 422 with the library's text as cause. */
	json_object *f =
	    call(422, "PATCH", CMS "/jsonp",
	         "[{\"op\":\"test\",\"path\":\"/data/b\",\"value\":\"x\"}]", JSONP, NULL);
	NL_ASSERT_JSON_EQ(f, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
	                     "\"status\":\"Failure\",\"message\":\"the server rejected our request "
	                     "due to an error in our request\",\"reason\":\"Invalid\",\"details\":"
	                     "{\"causes\":[{\"message\":\"testing value /data/b failed: test "
	                     "failed\"}]},\"code\":422}");
	json_object_put(f);
}

/* A patch that sets metadata.resourceVersion is conditional. */
static void test_patch_http__stale_resource_version_is_409(void)
{
	char rv[32], body[256];
	make_cm("cond", rv);
	snprintf(body, sizeof(body),
	         "{\"metadata\":{\"resourceVersion\":\"%s\"},\"data\":{\"a\":\"2\"}}", rv);
	json_object *ok = call(200, "PATCH", CMS "/cond", body, MERGE, NULL);
	json_object_put(ok);
	json_object *c = call(409, "PATCH", CMS "/cond", body, MERGE, NULL);
	NL_ASSERT_JSON_EQ(c,
	                  "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
	                  "\"Failure\",\"message\":\"Operation cannot be fulfilled on configmaps "
	                  "\\\"cond\\\": the object has been modified; please apply your changes "
	                  "to the latest version and try again\",\"reason\":\"Conflict\","
	                  "\"details\":{\"name\":\"cond\",\"kind\":\"configmaps\"},\"code\":409}");
	json_object_put(c);
}

static void test_patch_http__missing_object_is_404(void)
{
	json_object *nf = call(404, "PATCH", CMS "/nope", "{\"data\":{}}", MERGE, NULL);
	CU_ASSERT_STRING_EQUAL(str(nf, "message"), "configmaps \"nope\" not found");
	CU_ASSERT_STRING_EQUAL(str(nf, "reason"), "NotFound");
	json_object_put(nf);
}

/* json-c parses NaN/Infinity; stored, they would be served as invalid JSON.
 * Found by fuzzing: the patch body must be refused like Go's decoder does. */
static void test_patch_http__non_finite_numbers_are_refused(void)
{
	char rv[32];
	make_cm("nan", rv);
	json_object *r = call(400, "PATCH", CMS "/nan",
	                      "{\"metadata\":{\"managedFields\":[{\"manager\":\"x\",\"operation\":"
	                      "\"Update\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:data\":"
	                      "NaN}}]}}",
	                      MERGE, NULL);
	CU_ASSERT_STRING_EQUAL(str(r, "reason"), "BadRequest");
	json_object_put(r);
	json_object *g = call(200, "GET", CMS "/nan", NULL, NULL, NULL);
	CU_ASSERT_STRING_EQUAL(str(g, "metadata.resourceVersion"), rv);
	json_object_put(g);
}

static void test_patch_http__unknown_content_type_is_415(void)
{
	json_object *u = call(415, "PATCH", CMS "/nope", "{}", "application/json", NULL);
	NL_ASSERT_JSON_EQ(u,
	                  "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
	                  "\"Failure\",\"message\":\"the body of the request was in an unknown "
	                  "format - accepted media types include: application/json-patch+json, "
	                  "application/merge-patch+json, application/strategic-merge-patch+json, "
	                  "application/apply-patch+yaml\",\"reason\":\"UnsupportedMediaType\","
	                  "\"code\":415}");
	json_object_put(u);
}

static void test_patch_http__force_without_apply_is_422(void)
{
	json_object *f = call(422, "PATCH", CMS "/nope?force=true", "{}", MERGE, NULL);
	NL_ASSERT_JSON_EQ(f,
	                  "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
	                  "\"Failure\",\"message\":\"PatchOptions.meta.k8s.io \\\"\\\" is invalid: "
	                  "force: Forbidden: may not be specified for non-apply patch\",\"reason\":"
	                  "\"Invalid\",\"details\":{\"group\":\"meta.k8s.io\",\"kind\":"
	                  "\"PatchOptions\",\"causes\":[{\"reason\":\"FieldValueForbidden\","
	                  "\"message\":\"Forbidden: may not be specified for non-apply patch\","
	                  "\"field\":\"force\"}]},\"code\":422}");
	json_object_put(f);
	json_object *m = call(422, "PATCH", CMS "/nope", "{}", APPLY, NULL);
	CU_ASSERT_STRING_EQUAL(str(m, "message"), "PatchOptions.meta.k8s.io \"\" is invalid: "
	                                          "fieldManager: Required value: is required for "
	                                          "apply patch");
	json_object_put(m);
}

static void test_patch_http__too_many_json_patch_operations_is_413(void)
{
	char rv[32];
	make_cm("big", rv);
	nl_buf b;
	nl_buf_init(&b, 0);
	nl_buf_adds(&b, "[");
	for (int i = 0; i < 10001; i++)
		nl_buf_printf(&b, "%s{\"op\":\"test\",\"path\":\"/data/a\",\"value\":\"1\"}",
		              i ? "," : "");
	nl_buf_adds(&b, "]");
	json_object *t = call(413, "PATCH", CMS "/big", b.data, JSONP, NULL);
	CU_ASSERT_STRING_EQUAL(str(t, "reason"), "RequestEntityTooLarge");
	CU_ASSERT_STRING_EQUAL(str(t, "message"), "Request entity too large: The allowed maximum "
	                                          "operations in a JSON patch is 10000, got 10001");
	json_object_put(t);
	nl_buf_free(&b);
}

/* Unknown fields: a warning by default, 422 with Strict (patch rules). */
static void test_patch_http__unknown_fields_warn_or_fail(void)
{
	char rv[32], warning[512];
	make_cm("strict", rv);
	json_object *w = call(200, "PATCH", CMS "/strict", "{\"extra\":1}", MERGE, warning);
	CU_ASSERT_STRING_EQUAL(warning, "299 - \"unknown field \\\"extra\\\"\"");
	json_object_put(w);
	json_object *s =
	    call(422, "PATCH", CMS "/strict?fieldValidation=Strict", "{\"extra\":1}", SMP, NULL);
	CU_ASSERT_STRING_EQUAL(str(s, "reason"), "Invalid");
	CU_ASSERT_STRING_EQUAL(str(s, "message"),
	                       " \"\" is invalid: patch: Invalid value: \"map[extra:1]\": strict "
	                       "decoding error: unknown field \"extra\"");
	json_object_put(s);
}

/* dryRun=All answers as if stored and stores nothing, for every verb. */
static void test_patch_http__dry_run_changes_nothing(void)
{
	char rv[32];
	make_cm("dry", rv);
	json_object *p =
	    call(200, "PATCH", CMS "/dry?dryRun=All", "{\"data\":{\"a\":\"2\"}}", MERGE, NULL);
	CU_ASSERT_STRING_EQUAL(str(p, "data.a"), "2");
	CU_ASSERT_STRING_EQUAL(str(p, "metadata.resourceVersion"), rv);
	json_object_put(p);
	json_object *u =
	    call(200, "PUT", CMS "/dry?dryRun=All",
	         "{\"metadata\":{\"name\":\"dry\"},\"data\":{\"a\":\"3\"}}", NULL, NULL);
	CU_ASSERT_STRING_EQUAL(str(u, "data.a"), "3");
	json_object_put(u);
	json_object *d = call(200, "DELETE", CMS "/dry?dryRun=All", NULL, NULL, NULL);
	CU_ASSERT_STRING_EQUAL(str(d, "status"), "Success");
	json_object_put(d);
	d = call(200, "DELETE", CMS "/dry", "{\"kind\":\"DeleteOptions\",\"dryRun\":[\"All\"]}",
	         NULL, NULL);
	json_object_put(d);
	d = call(200, "DELETE", CMS "?dryRun=All&fieldSelector=metadata.name%3Ddry", NULL, NULL,
	         NULL);
	CU_ASSERT_STRING_EQUAL(str(d, "kind"), "ConfigMapList");
	CU_ASSERT_EQUAL(json_object_array_length(nl_json_get_path(d, "items")), 1);
	json_object_put(d);
	json_object *g = call(200, "GET", CMS "/dry", NULL, NULL, NULL);
	CU_ASSERT_STRING_EQUAL(str(g, "data.a"), "1");
	CU_ASSERT_STRING_EQUAL(str(g, "metadata.resourceVersion"), rv);
	json_object_put(g);

	json_object *c = call(201, "POST", CMS "?dryRun=All",
	                      "{\"metadata\":{\"name\":\"dry-new\"}}", NULL, NULL);
	CU_ASSERT_STRING_EQUAL(str(c, "metadata.name"), "dry-new");
	CU_ASSERT_STRING_EQUAL(str(c, "metadata.resourceVersion"), "");
	json_object_put(c);
	json_object *nf = call(404, "GET", CMS "/dry-new", NULL, NULL, NULL);
	json_object_put(nf);

	json_object *bad = call(422, "PATCH", CMS "/dry?dryRun=Some", "{}", MERGE, NULL);
	CU_ASSERT_STRING_EQUAL(str(bad, "message"),
	                       "PatchOptions.meta.k8s.io \"\" is invalid: "
	                       "dryRun: Unsupported value: []string{\"Some\"}: "
	                       "supported values: \"All\"");
	json_object_put(bad);
}

/* nodes/status: the strategic patch merges conditions by type and the
 * spec in the patch is ignored; the main resource ignores status. */
static void test_patch_http__node_status_patch_keeps_spec(void)
{
	json_object *n =
	    call(201, "POST", "/api/v1/nodes",
	         "{\"metadata\":{\"name\":\"pn\"},\"spec\":{\"podCIDR\":\"10.0.0.0/24\"},"
	         "\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\"}]}}",
	         NULL, NULL);
	json_object_put(n);
	json_object *s =
	    call(200, "PATCH", "/api/v1/nodes/pn/status",
	         "{\"spec\":{\"unschedulable\":true},\"status\":{\"conditions\":[{\"type\":"
	         "\"MemoryPressure\",\"status\":\"False\"}]}}",
	         SMP, NULL);
	CU_ASSERT_STRING_EQUAL(str(s, "spec.podCIDR"), "10.0.0.0/24");
	CU_ASSERT_PTR_NULL(nl_json_get_path(s, "spec.unschedulable"));
	json_object *conds = nl_json_get_path(s, "status");
	json_object_object_get_ex(conds, "conditions", &conds);
	CU_ASSERT_EQUAL(json_object_array_length(conds), 2);
	json_object_put(s);
	json_object *m =
	    call(200, "PATCH", "/api/v1/nodes/pn",
	         "{\"spec\":{\"unschedulable\":true},\"status\":{\"conditions\":[]}}", SMP, NULL);
	CU_ASSERT_TRUE(json_object_get_boolean(nl_json_get_path(m, "spec.unschedulable")));
	conds = nl_json_get_path(m, "status");
	json_object_object_get_ex(conds, "conditions", &conds);
	CU_ASSERT_EQUAL(json_object_array_length(conds), 2);
	json_object_put(m);
}

/* A patch that changes nothing stores nothing (no new resourceVersion). */
static void test_patch_http__no_op_patch_keeps_resource_version(void)
{
	char rv[32];
	make_cm("noop", rv);
	json_object *p = call(200, "PATCH", CMS "/noop?fieldManager=creator",
	                      "{\"data\":{\"a\":\"1\"}}", MERGE, NULL);
	CU_ASSERT_STRING_EQUAL(str(p, "metadata.resourceVersion"), rv);
	json_object_put(p);
}

#define CFG(name, data) \
	"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " name "\ndata:\n  " data "\n"

static void test_patch_http__server_side_apply_owns_and_conflicts(void)
{
	json_object *c =
	    call(201, "PATCH", CMS "/ssa?fieldManager=alice", CFG("ssa", "key: one"), APPLY, NULL);
	CU_ASSERT_STRING_EQUAL(str(c, "data.key"), "one");
	CU_ASSERT_STRING_EQUAL(str(c, "metadata.namespace"), "default");
	json_object *mf = nl_json_get_path(c, "metadata");
	json_object_object_get_ex(mf, "managedFields", &mf);
	json_object *e = json_object_array_get_idx(mf, 0);
	CU_ASSERT_STRING_EQUAL(str(e, "manager"), "alice");
	CU_ASSERT_STRING_EQUAL(str(e, "operation"), "Apply");
	NL_ASSERT_JSON_EQ(nl_json_get_path(e, "fieldsV1"), "{\"f:data\":{\"f:key\":{}}}");
	json_object_put(c);

	json_object *x =
	    call(409, "PATCH", CMS "/ssa?fieldManager=bob", CFG("ssa", "key: two"), APPLY, NULL);
	NL_ASSERT_JSON_EQ(
	    x, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
	       "\"Failure\",\"message\":\"Apply failed with 1 conflict: conflict with "
	       "\\\"alice\\\": .data.key\",\"reason\":\"Conflict\",\"details\":{"
	       "\"causes\":[{\"reason\":\"FieldManagerConflict\",\"message\":"
	       "\"conflict with \\\"alice\\\"\",\"field\":\".data.key\"}]},\"code\":409}");
	json_object_put(x);

	json_object *f = call(200, "PATCH", CMS "/ssa?fieldManager=bob&force=true",
	                      CFG("ssa", "key: two"), APPLY, NULL);
	CU_ASSERT_STRING_EQUAL(str(f, "data.key"), "two");
	mf = nl_json_get_path(f, "metadata");
	json_object_object_get_ex(mf, "managedFields", &mf);
	CU_ASSERT_EQUAL(json_object_array_length(mf), 1);
	CU_ASSERT_STRING_EQUAL(str(json_object_array_get_idx(mf, 0), "manager"), "bob");
	json_object_put(f);

	/* bob stops applying key: nobody else owns it, so it goes. */
	json_object *g =
	    call(200, "PATCH", CMS "/ssa?fieldManager=bob", CFG("ssa", "other: x"), APPLY, NULL);
	NL_ASSERT_JSON_EQ(nl_json_get_path(g, "data"), "{\"other\":\"x\"}");
	json_object_put(g);
}

static CU_TestInfo tests[] = {
    {"non_finite_numbers_are_refused", test_patch_http__non_finite_numbers_are_refused},
    {"merge_patch_updates_and_records_manager",
     test_patch_http__merge_patch_updates_and_records_manager},
    {"json_patch_applies_operations", test_patch_http__json_patch_applies_operations},
    {"stale_resource_version_is_409", test_patch_http__stale_resource_version_is_409},
    {"missing_object_is_404", test_patch_http__missing_object_is_404},
    {"unknown_content_type_is_415", test_patch_http__unknown_content_type_is_415},
    {"force_without_apply_is_422", test_patch_http__force_without_apply_is_422},
    {"too_many_json_patch_operations_is_413",
     test_patch_http__too_many_json_patch_operations_is_413},
    {"unknown_fields_warn_or_fail", test_patch_http__unknown_fields_warn_or_fail},
    {"dry_run_changes_nothing", test_patch_http__dry_run_changes_nothing},
    {"node_status_patch_keeps_spec", test_patch_http__node_status_patch_keeps_spec},
    {"no_op_patch_keeps_resource_version", test_patch_http__no_op_patch_keeps_resource_version},
    {"server_side_apply_owns_and_conflicts", test_patch_http__server_side_apply_owns_and_conflicts},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"patch_http", setup, teardown, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
