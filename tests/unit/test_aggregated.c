/* Aggregated discovery (apidiscovery.k8s.io/v2): the documents for /api and
 * /apis, their agreement with legacy discovery, and how the router serves
 * them (Content-Type parameters, ETag and 304, fallback to legacy). */
#include <nodelet/meta.h>
#include <string.h>

#include "../cu_main.h"
#include "control/fixtures.h"
#include "core/request.h"
#include "handlers/api.h"
#include "mockapi.h"
#include "nonresource/aggregated.h"
#include "storage/store.h"

#define AGG_V2 "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
#define AGG_V2BETA1 "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
#define KUBECTL_DISCOVERY AGG_V2 "," AGG_V2BETA1 ",application/json"

static mock_options opts;
static mock_api api;

static int setup(void)
{
	nl_err err = {0};
	mock_options_init(&opts);
	memset(&api, 0, sizeof(api));
	api.opts = &opts;
	api.port = 6443;
	return mock_store_new(&api.store, NULL, NULL) != 0 || mock_fixtures_seed(&api, &err) != 0;
}

static int teardown(void)
{
	mock_store_free(api.store);
	return 0;
}

static void get(mock_response *resp, const char *path, const char *accept, const char *inm)
{
	mock_request req;
	memset(&req, 0, sizeof(req));
	req.method = "GET";
	req.path = path;
	req.accept = accept;
	req.if_none_match = inm;
	mock_response_init(resp);
	mock_api_handle(&api, &req, resp);
}

static json_object *find_resource(json_object *resources, const char *name)
{
	for (size_t i = 0; i < json_object_array_length(resources); i++) {
		json_object *r = json_object_array_get_idx(resources, i);
		const char *res = json_object_get_string(json_object_object_get(r, "resource"));
		if (res && strcmp(res, name) == 0)
			return r;
	}
	return NULL;
}

static void test_aggregated__core_document(void)
{
	json_object *doc = mock_discovery_aggregated_doc(1, "v2");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(doc, "kind")),
	                       "APIGroupDiscoveryList");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(doc, "apiVersion")),
	                       "apidiscovery.k8s.io/v2");
	json_object *items = json_object_object_get(doc, "items");
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(items), 1);
	json_object *g = json_object_array_get_idx(items, 0);
	/* The core group has no name; Go writes the zero creationTimestamp as null. */
	NL_ASSERT_JSON_EQ(json_object_object_get(g, "metadata"), "{\"creationTimestamp\":null}");
	json_object *v = json_object_array_get_idx(json_object_object_get(g, "versions"), 0);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(v, "version")), "v1");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(v, "freshness")),
	                       "Current");
	json_object *res = json_object_object_get(v, "resources");
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(res), 5);
	static const char *const order[] = {"configmaps", "events", "namespaces", "nodes", "pods"};
	for (size_t i = 0; i < 5; i++)
		CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(
		                           json_object_array_get_idx(res, i), "resource")),
		                       order[i]);
	json_object *cm = find_resource(res, "configmaps");
	CU_ASSERT_PTR_NOT_NULL_FATAL(cm);
	NL_ASSERT_JSON_EQ(json_object_object_get(cm, "responseKind"),
	                  "{\"group\":\"\",\"version\":\"v1\",\"kind\":\"ConfigMap\"}");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(cm, "scope")),
	                       "Namespaced");
	CU_ASSERT_STRING_EQUAL(
	    json_object_get_string(json_object_object_get(cm, "singularResource")), "configmap");
	NL_ASSERT_JSON_EQ(json_object_object_get(cm, "shortNames"), "[\"cm\"]");
	CU_ASSERT_PTR_NULL(json_object_object_get(cm, "subresources"));
	json_object *nodes = find_resource(res, "nodes");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(nodes, "scope")),
	                       "Cluster");
	json_object *subs = json_object_object_get(nodes, "subresources");
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(subs), 1);
	json_object *st = json_object_array_get_idx(subs, 0);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(st, "subresource")),
	                       "status");
	NL_ASSERT_JSON_EQ(json_object_object_get(st, "responseKind"),
	                  "{\"group\":\"\",\"version\":\"v1\",\"kind\":\"Node\"}");
	json_object_put(doc);
}

static void test_aggregated__named_groups(void)
{
	json_object *doc = mock_discovery_aggregated_doc(0, "v2beta1");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(doc, "apiVersion")),
	                       "apidiscovery.k8s.io/v2beta1");
	json_object *items = json_object_object_get(doc, "items");
	/* in kube-apiserver's group order: the reviews' groups, CSRs', leases' */
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(items), 4);
	CU_ASSERT_STRING_EQUAL(
	    nl_json_get_string(json_object_array_get_idx(items, 0), "metadata.name"),
	    "authentication.k8s.io");
	CU_ASSERT_STRING_EQUAL(
	    nl_json_get_string(json_object_array_get_idx(items, 1), "metadata.name"),
	    "authorization.k8s.io");
	CU_ASSERT_STRING_EQUAL(
	    nl_json_get_string(json_object_array_get_idx(items, 2), "metadata.name"),
	    "certificates.k8s.io");
	json_object *g = json_object_array_get_idx(items, 3);
	NL_ASSERT_JSON_EQ(json_object_object_get(g, "metadata"),
	                  "{\"name\":\"coordination.k8s.io\",\"creationTimestamp\":null}");
	json_object *v = json_object_array_get_idx(json_object_object_get(g, "versions"), 0);
	json_object *lease = find_resource(json_object_object_get(v, "resources"), "leases");
	CU_ASSERT_PTR_NOT_NULL_FATAL(lease);
	NL_ASSERT_JSON_EQ(json_object_object_get(lease, "responseKind"),
	                  "{\"group\":\"coordination.k8s.io\",\"version\":\"v1\",\"kind\":"
	                  "\"Lease\"}");
	CU_ASSERT_PTR_NULL(json_object_object_get(lease, "shortNames"));
	json_object_put(doc);
}

/* Legacy and aggregated discovery list the same verbs, scope and short
 * names for every resource and subresource. */
static void compare_with_legacy(const char *legacy_path, json_object *agg_resources)
{
	mock_response r;
	get(&r, legacy_path, "application/json", NULL);
	CU_ASSERT_EQUAL_FATAL(r.code, 200);
	json_object *legacy = json_tokener_parse(r.body.data);
	mock_response_free(&r);
	json_object *list = json_object_object_get(legacy, "resources");
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		json_object *lr = json_object_array_get_idx(list, i);
		char name[96];
		snprintf(name, sizeof(name), "%s",
		         json_object_get_string(json_object_object_get(lr, "name")));
		char *slash = strchr(name, '/');
		if (slash)
			*slash = '\0';
		json_object *ar = find_resource(agg_resources, name);
		CU_ASSERT_PTR_NOT_NULL_FATAL(ar);
		if (slash) {
			json_object *subs = json_object_object_get(ar, "subresources");
			ar = NULL;
			for (size_t k = 0; k < json_object_array_length(subs); k++) {
				json_object *s = json_object_array_get_idx(subs, k);
				if (strcmp(json_object_get_string(
				               json_object_object_get(s, "subresource")),
				           slash + 1) == 0)
					ar = s;
			}
			CU_ASSERT_PTR_NOT_NULL_FATAL(ar);
		} else {
			int namespaced =
			    json_object_get_boolean(json_object_object_get(lr, "namespaced"));
			CU_ASSERT_STRING_EQUAL(
			    json_object_get_string(json_object_object_get(ar, "scope")),
			    namespaced ? "Namespaced" : "Cluster");
			json_object *sn = json_object_object_get(lr, "shortNames");
			CU_ASSERT_TRUE(
			    sn ? json_object_equal(sn, json_object_object_get(ar, "shortNames"))
			       : !json_object_object_get(ar, "shortNames"));
		}
		CU_ASSERT_TRUE(json_object_equal(json_object_object_get(lr, "verbs"),
		                                 json_object_object_get(ar, "verbs")));
	}
	json_object_put(legacy);
}

static json_object *group_resources(json_object *doc, size_t i)
{
	json_object *g = json_object_array_get_idx(json_object_object_get(doc, "items"), i);
	json_object *v = json_object_array_get_idx(json_object_object_get(g, "versions"), 0);
	return json_object_object_get(v, "resources");
}

static void test_aggregated__agrees_with_legacy_discovery(void)
{
	json_object *core = mock_discovery_aggregated_doc(1, "v2");
	compare_with_legacy("/api/v1", group_resources(core, 0));
	json_object_put(core);
	json_object *named = mock_discovery_aggregated_doc(0, "v2");
	compare_with_legacy("/apis/authentication.k8s.io/v1", group_resources(named, 0));
	compare_with_legacy("/apis/authorization.k8s.io/v1", group_resources(named, 1));
	compare_with_legacy("/apis/certificates.k8s.io/v1", group_resources(named, 2));
	compare_with_legacy("/apis/coordination.k8s.io/v1", group_resources(named, 3));
	json_object_put(named);
}

/* The ETag value from resp->headers (quotes included), or "". */
static void etag_of(char *out, size_t cap, const mock_response *r)
{
	const char *e = strstr(r->headers, "ETag: ");
	out[0] = '\0';
	if (e)
		snprintf(out, cap, "%.*s", (int)strcspn(e + 6, "\r"), e + 6);
}

static void test_aggregated__served_when_asked(void)
{
	mock_response r;
	char tag[64];
	get(&r, "/api", KUBECTL_DISCOVERY, NULL);
	CU_ASSERT_EQUAL(r.code, 200);
	/* client-go recognizes the aggregated form by these parameters. */
	CU_ASSERT_STRING_EQUAL(r.content_type, AGG_V2);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.headers, "Vary: Accept\r\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.headers, "Cache-Control: public\r\n"));
	etag_of(tag, sizeof(tag), &r);
	CU_ASSERT_EQUAL(strlen(tag), 18);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.body.data, "\"kind\":\"APIGroupDiscoveryList\""));
	mock_response_free(&r);

	get(&r, "/api", KUBECTL_DISCOVERY, tag);
	CU_ASSERT_EQUAL(r.code, 304);
	CU_ASSERT_EQUAL(r.body.len, 0);
	mock_response_free(&r);

	get(&r, "/apis", AGG_V2BETA1, NULL);
	CU_ASSERT_EQUAL(r.code, 200);
	CU_ASSERT_STRING_EQUAL(r.content_type, AGG_V2BETA1);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.body.data, "\"coordination.k8s.io\""));
	mock_response_free(&r);

	get(&r, "/apis", "application/yaml;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
	    NULL);
	CU_ASSERT_STRING_EQUAL(
	    r.content_type, "application/yaml;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
	CU_ASSERT_EQUAL(strncmp(r.body.data, "apiVersion: apidiscovery.k8s.io/v2\n", 35), 0);
	mock_response_free(&r);
}

static void test_aggregated__legacy_otherwise(void)
{
	mock_response r;
	get(&r, "/api", "application/json, */*", NULL);
	CU_ASSERT_EQUAL(r.code, 200);
	CU_ASSERT_STRING_EQUAL(r.content_type, "application/json");
	CU_ASSERT_PTR_NOT_NULL(strstr(r.body.data, "\"kind\":\"APIVersions\""));
	mock_response_free(&r);
	get(&r, "/apis", NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.body.data, "\"kind\":\"APIGroupList\""));
	mock_response_free(&r);
	/* Only aggregated discovery of an unknown version: nothing acceptable. */
	get(&r, "/apis", "application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList",
	    NULL);
	CU_ASSERT_EQUAL(r.code, 406);
	mock_response_free(&r);
}

static CU_TestInfo tests[] = {
    {"core_document", test_aggregated__core_document},
    {"named_groups", test_aggregated__named_groups},
    {"agrees_with_legacy_discovery", test_aggregated__agrees_with_legacy_discovery},
    {"served_when_asked", test_aggregated__served_when_asked},
    {"legacy_otherwise", test_aggregated__legacy_otherwise},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"aggregated", setup, teardown, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
