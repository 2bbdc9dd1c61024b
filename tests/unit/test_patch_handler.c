/* The PATCH handler without HTTP: how each engine's errors become the
 * apiserver's answers (400, 413, 422, 500), content types with parameters,
 * the field manager taken from the User-Agent, PatchOptions checks, names
 * that may not change, and apply creating (or refusing to, without a
 * namespace) objects, with dryRun storing nothing. */
#include <nodelet/meta.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../cu_main.h"
#include "api/route.h"
#include "control/fixtures.h"
#include "core/request.h"
#include "handlers/api.h"
#include "mockapi.h"
#include "storage/store.h"

#define MERGE "application/merge-patch+json"
#define SMP "application/strategic-merge-patch+json"
#define APPLY "application/apply-patch+yaml"
#define CM "/api/v1/namespaces/default/configmaps/x"

static mock_options opts;
static mock_api api;

static int setup(void)
{
	nl_err err = {0};
	mock_options_init(&opts);
	memset(&api, 0, sizeof(api));
	api.opts = &opts;
	if (mock_store_new(&api.store, NULL, NULL) != 0 || mock_fixtures_seed(&api, &err) != 0)
		return 1;
	return 0;
}

static int teardown(void)
{
	mock_store_free(api.store);
	return 0;
}

typedef struct {
	int code;
	json_object *body;
} answer;

/* One request; query is "k=v" pairs separated by '&' (copied), may be NULL. */
static answer handle(const char *method, const char *path, const char *query, const char *type,
                     const char *ua, const char *body)
{
	char q[512] = "";
	mock_request req;
	mock_response resp;
	answer a;
	memset(&req, 0, sizeof(req));
	req.method = method;
	req.path = path;
	req.content_type = type;
	req.user_agent = ua;
	req.body = body;
	req.body_len = body ? strlen(body) : 0;
	snprintf(q, sizeof(q), "%s", query ? query : "");
	for (char *save = NULL, *kv = strtok_r(q, "&", &save); kv && req.nquery < MOCK_MAX_QUERY;
	     kv = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(kv, '=');
		if (eq)
			*eq++ = '\0';
		req.query[req.nquery].key = kv;
		req.query[req.nquery++].value = eq ? eq : "";
	}
	mock_response_init(&resp);
	mock_api_handle(&api, &req, &resp);
	a.code = resp.code;
	a.body = resp.body.data ? json_tokener_parse(resp.body.data) : NULL;
	mock_response_free(&resp);
	return a;
}

static const char *str(json_object *o, const char *path)
{
	const char *s = nl_json_get_string(o, path);
	return s ? s : "";
}

static void make(const char *path, const char *body)
{
	char coll[256];
	snprintf(coll, sizeof(coll), "%s", path);
	*strrchr(coll, '/') = '\0';
	answer a = handle("POST", coll, NULL, "application/json", NULL, body);
	CU_ASSERT_EQUAL(a.code, 201);
	json_object_put(a.body);
}

static void remove_object(const char *path)
{
	answer a = handle("DELETE", path, NULL, NULL, NULL, NULL);
	json_object_put(a.body);
}

static void test_patch_handler__content_type_parameters_are_ignored(void)
{
	make(CM, "{\"metadata\":{\"name\":\"x\"},\"data\":{\"a\":\"1\"}}");
	answer a =
	    handle("PATCH", CM, NULL, MERGE "; charset=utf-8", NULL, "{\"data\":{\"a\":\"2\"}}");
	CU_ASSERT_EQUAL(a.code, 200);
	CU_ASSERT_STRING_EQUAL(str(a.body, "data.a"), "2");
	json_object_put(a.body);
	remove_object(CM);
}

/* interpretStrategicMergePatchError: a patch that is no map is 400, the
 * plain errors of strategicpatch are 500 without a reason. */
static void test_patch_handler__strategic_errors_map_like_the_apiserver(void)
{
	make("/api/v1/nodes/sn",
	     "{\"metadata\":{\"name\":\"sn\",\"ownerReferences\":[{"
	     "\"apiVersion\":\"v1\",\"kind\":\"K\",\"name\":\"o\",\"uid\":\"u1\"}]}}");
	answer a = handle("PATCH", "/api/v1/nodes/sn", NULL, SMP, NULL, "[1]");
	CU_ASSERT_EQUAL(a.code, 400);
	CU_ASSERT_STRING_EQUAL(str(a.body, "message"), "json: cannot unmarshal array into Go value "
	                                               "of type map[string]interface {}");
	json_object_put(a.body);

	a = handle("PATCH", "/api/v1/nodes/sn", NULL, SMP, NULL,
	           "{\"metadata\":{\"ownerReferences\":[{\"name\":\"x\"}]}}");
	CU_ASSERT_EQUAL(a.code, 500);
	CU_ASSERT_STRING_EQUAL(str(a.body, "reason"), "");
	CU_ASSERT_STRING_EQUAL(str(a.body, "message"),
	                       "map: map[name:x] does not contain declared merge key: uid");
	json_object_put(a.body);

	remove_object("/api/v1/nodes/sn");
}

/* A patched object of the wrong shape is 422 "patch: Invalid value", not
 * the 400 of a POST (the patcher wraps the decoder's error). */
static void test_patch_handler__type_errors_are_422_patch_invalid(void)
{
	make(CM, "{\"metadata\":{\"name\":\"x\"}}");
	answer a = handle("PATCH", CM, NULL, MERGE, NULL, "{\"data\":{\"a\":1}}");
	CU_ASSERT_EQUAL(a.code, 422);
	CU_ASSERT_STRING_EQUAL(str(a.body, "reason"), "Invalid");
	CU_ASSERT_EQUAL(
	    strncmp(str(a.body, "message"), " \"\" is invalid: patch: Invalid value: \"{", 39), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(str(a.body, "message"), "json: cannot unmarshal number"));
	json_object_put(a.body);
	remove_object(CM);
}

/* Both quoted values are Go's %q: the patched JSON's U+0085 as \u0085
 * (patch_handler's copy kept it raw) and a field manager's tab as \t
 * (write_request's copy wrote \x09). */
static void test_patch_handler__messages_quote_like_go(void)
{
	make(CM, "{\"metadata\":{\"name\":\"x\",\"annotations\":{\"a\":\"\\u0085\"}}}");
	answer a = handle("PATCH", CM, NULL, MERGE, NULL, "{\"data\":{\"a\":1}}");
	CU_ASSERT_EQUAL(a.code, 422);
	CU_ASSERT_PTR_NOT_NULL(strstr(str(a.body, "message"), "{\\\"a\\\":\\\"\\u0085\\\"}"));
	json_object_put(a.body);

	a = handle("PATCH", CM, "fieldManager=a\tb", MERGE, NULL, "{}");
	CU_ASSERT_EQUAL(a.code, 422);
	CU_ASSERT_STRING_EQUAL(str(a.body, "message"),
	                       "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Invalid "
	                       "value: \"a\\tb\": invalid character U+0009 (at position 1)");
	json_object_put(a.body);
	remove_object(CM);
}

static void test_patch_handler__field_manager_comes_from_the_user_agent(void)
{
	make(CM, "{\"metadata\":{\"name\":\"x\"}}");
	answer a = handle("PATCH", CM, NULL, MERGE, "kubectl-edit/v1.32.0 (linux/amd64)",
	                  "{\"data\":{\"a\":\"1\"}}");
	CU_ASSERT_EQUAL(a.code, 200);
	json_object *mf = nl_json_get_path(a.body, "metadata");
	CU_ASSERT_TRUE_FATAL(json_object_object_get_ex(mf, "managedFields", &mf));
	CU_ASSERT_STRING_EQUAL(str(json_object_array_get_idx(mf, 0), "manager"), "kubectl-edit");
	json_object_put(a.body);

	char long_name[200], query[256];
	memset(long_name, 'm', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	snprintf(query, sizeof(query), "fieldManager=%s", long_name);
	a = handle("PATCH", CM, query, MERGE, NULL, "{}");
	CU_ASSERT_EQUAL(a.code, 422);
	CU_ASSERT_STRING_EQUAL(str(a.body, "message"), "PatchOptions.meta.k8s.io \"\" is invalid: "
	                                               "fieldManager: Too long: may not be more "
	                                               "than 128 bytes");
	json_object_put(a.body);
	/* force is a *bool the codec converts (Convert_Slice_string_To_Pointer_bool):
	 * any value, "maybe" or none, is set, so never a ParseBool 400. */
	static const char *const forces[] = {"force=maybe", "force=", "force=false"};
	for (size_t i = 0; i < sizeof(forces) / sizeof(forces[0]); i++) {
		a = handle("PATCH", CM, forces[i], MERGE, NULL, "{}");
		CU_ASSERT_EQUAL(a.code, 422);
		CU_ASSERT_STRING_EQUAL(
		    str(a.body, "message"),
		    "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: "
		    "may not be specified for non-apply patch");
		json_object_put(a.body);
	}
	remove_object(CM);
}

/* checkName: a patch may not rename or move the object. */
static void test_patch_handler__name_and_namespace_cannot_change(void)
{
	make(CM, "{\"metadata\":{\"name\":\"x\"}}");
	answer a = handle("PATCH", CM, NULL, MERGE, NULL, "{\"metadata\":{\"name\":\"y\"}}");
	CU_ASSERT_EQUAL(a.code, 400);
	CU_ASSERT_STRING_EQUAL(str(a.body, "message"),
	                       "the name of the object (y) does not match the name on the URL (x)");
	json_object_put(a.body);
	a = handle("PATCH", CM, NULL, MERGE, NULL,
	           "{\"metadata\":{\"namespace\":\"kube-system\"}}");
	CU_ASSERT_EQUAL(a.code, 400);
	CU_ASSERT_STRING_EQUAL(str(a.body, "message"), "the namespace of the object (kube-system) "
	                                               "does not match the namespace on the "
	                                               "request (default)");
	json_object_put(a.body);
	remove_object(CM);
}

/* Non-apply patches never create, not even for create-on-update kinds. */
static void test_patch_handler__only_apply_creates(void)
{
	const char *lease = "/apis/coordination.k8s.io/v1/namespaces/default/leases/l";
	answer a = handle("PATCH", lease, NULL, MERGE, NULL, "{\"spec\":{}}");
	CU_ASSERT_EQUAL(a.code, 404);
	CU_ASSERT_STRING_EQUAL(str(a.body, "message"),
	                       "leases.coordination.k8s.io \"l\" not found");
	json_object_put(a.body);

	const char *cfg = "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: l\n"
	                  "spec:\n  holderIdentity: me\n";
	a = handle("PATCH", lease, "fieldManager=me&dryRun=All", APPLY, NULL, cfg);
	CU_ASSERT_EQUAL(a.code, 201);
	CU_ASSERT_STRING_EQUAL(str(a.body, "spec.holderIdentity"), "me");
	json_object_put(a.body);
	a = handle("GET", lease, NULL, NULL, NULL, NULL);
	CU_ASSERT_EQUAL(a.code, 404);
	json_object_put(a.body);

	a = handle("PATCH", lease, "fieldManager=me", APPLY, NULL, cfg);
	CU_ASSERT_EQUAL(a.code, 201);
	json_object_put(a.body);
	a = handle("PATCH", lease, "fieldManager=me", APPLY, NULL, cfg);
	CU_ASSERT_EQUAL(a.code, 200);
	json_object_put(a.body);

	a = handle("PATCH", "/apis/coordination.k8s.io/v1/namespaces/nope/leases/l",
	           "fieldManager=me", APPLY, NULL, cfg);
	CU_ASSERT_EQUAL(a.code, 404);
	CU_ASSERT_STRING_EQUAL(str(a.body, "message"), "namespaces \"nope\" not found");
	json_object_put(a.body);

	a = handle("PATCH", lease, "fieldManager=me", APPLY, NULL, "a: [1\n");
	CU_ASSERT_EQUAL(a.code, 400);
	CU_ASSERT_EQUAL(strncmp(str(a.body, "message"), "error decoding YAML: ", 21), 0);
	json_object_put(a.body);
	remove_object(lease);
}

#define WRITERS 4
#define PATCHES 50

static void *patch_many(void *arg)
{
	long id = (long)arg, failed = 0;
	for (int i = 0; i < PATCHES; i++) {
		char body[64];
		snprintf(body, sizeof(body), "{\"data\":{\"k%ld-%d\":\"v\"}}", id, i);
		answer a = handle("PATCH", CM, NULL, MERGE, NULL, body);
		failed += a.code != 200;
		json_object_put(a.body);
	}
	return (void *)failed;
}

/* Concurrent writers: each patch is re-applied to the newer object instead
 * of failing with 409, and no write is lost (GuaranteedUpdate's loop). */
static void test_patch_handler__concurrent_patches_retry_instead_of_conflicting(void)
{
	pthread_t th[WRITERS];
	make(CM, "{\"metadata\":{\"name\":\"x\"}}");
	for (long i = 0; i < WRITERS; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, patch_many, (void *)i), 0);
	for (int i = 0; i < WRITERS; i++) {
		void *failed = NULL;
		pthread_join(th[i], &failed);
		CU_ASSERT_PTR_NULL(failed);
	}
	answer a = handle("GET", CM, NULL, NULL, NULL, NULL);
	CU_ASSERT_EQUAL(json_object_object_length(nl_json_get_path(a.body, "data")),
	                WRITERS * PATCHES);
	json_object_put(a.body);
	remove_object(CM);
}

/* PATCH is served wherever update is, so discovery advertises it. */
static void test_patch_handler__served_where_update_is(void)
{
	answer a = handle("PATCH", "/api/v1/namespaces/default/finalize", NULL, MERGE, NULL, "{}");
	CU_ASSERT_EQUAL(a.code, 405);
	json_object_put(a.body);
	a = handle("PATCH", "/api/v1/namespaces/default/configmaps", NULL, MERGE, NULL, "{}");
	CU_ASSERT_EQUAL(a.code, 405);
	json_object_put(a.body);
	CU_ASSERT_TRUE(mock_route_allows(mock_resource_get(MOCK_KIND_NODE), "patch", 1));
	CU_ASSERT_TRUE(mock_route_allows(mock_resource_get(MOCK_KIND_LEASE), "patch", 0));
	CU_ASSERT_TRUE(mock_route_allows(mock_resource_get(MOCK_KIND_NAMESPACE), "patch", 0));
	CU_ASSERT_FALSE(
	    mock_route_allows_sub(mock_resource_get(MOCK_KIND_NAMESPACE), "patch", "finalize"));
}

/* Issue 19's JSON-patch bomb: each copy of the whole object into itself
 * doubles it. kube-apiserver stops it at JSONPatchMaxCopyBytes with 422
 * (NewGenericServerResponse around the library's error) and stores
 * nothing; before the limit 19 such operations took 1.8 GB. */
static void test_patch_handler__json_patch_copy_bomb_is_422(void)
{
	make(CM, "{\"metadata\":{\"name\":\"x\"},\"data\":{\"a\":\"1\"}}");
	answer before = handle("GET", CM, NULL, NULL, NULL, NULL);
	char ops[4096] = "[";
	for (int i = 0; i < 40; i++)
		snprintf(ops + strlen(ops), sizeof(ops) - strlen(ops),
		         "%s{\"op\":\"copy\",\"from\":\"\",\"path\":\"/data/x%d\"}", i ? "," : "",
		         i);
	strcat(ops, "]");
	answer a = handle("PATCH", CM, NULL, "application/json-patch+json", NULL, ops);
	CU_ASSERT_EQUAL(a.code, 422);
	CU_ASSERT_STRING_EQUAL(str(a.body, "reason"), "Invalid");
	json_object *causes = NULL, *details = NULL;
	json_object_object_get_ex(a.body, "details", &details);
	json_object_object_get_ex(details, "causes", &causes);
	const char *msg = str(json_object_array_get_idx(causes, 0), "message");
	CU_ASSERT_EQUAL(strncmp(msg,
	                        "Unable to complete the copy, the accumulated size increase of "
	                        "copy is ",
	                        70),
	                0);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, ", exceeding the limit 3145728"));
	answer after = handle("GET", CM, NULL, NULL, NULL, NULL);
	CU_ASSERT_STRING_EQUAL(str(after.body, "metadata.resourceVersion"),
	                       str(before.body, "metadata.resourceVersion"));
	CU_ASSERT_TRUE(json_object_equal(after.body, before.body));
	json_object_put(a.body);
	json_object_put(before.body);
	json_object_put(after.body);
	remove_object(CM);
}

static CU_TestInfo tests[] = {
    {"json_patch_copy_bomb_is_422", test_patch_handler__json_patch_copy_bomb_is_422},
    {"content_type_parameters_are_ignored",
     test_patch_handler__content_type_parameters_are_ignored},
    {"strategic_errors_map_like_the_apiserver",
     test_patch_handler__strategic_errors_map_like_the_apiserver},
    {"type_errors_are_422_patch_invalid", test_patch_handler__type_errors_are_422_patch_invalid},
    {"messages_quote_like_go", test_patch_handler__messages_quote_like_go},
    {"field_manager_comes_from_the_user_agent",
     test_patch_handler__field_manager_comes_from_the_user_agent},
    {"name_and_namespace_cannot_change", test_patch_handler__name_and_namespace_cannot_change},
    {"only_apply_creates", test_patch_handler__only_apply_creates},
    {"concurrent_patches_retry_instead_of_conflicting",
     test_patch_handler__concurrent_patches_retry_instead_of_conflicting},
    {"served_where_update_is", test_patch_handler__served_where_update_is},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"patch_handler", setup, teardown, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
