/* URL layout and verb dispatch, without HTTP: paths map to the right kind,
 * namespace, name and subresource, and unsupported methods get 405. */
#include <string.h>

#include "../cu_main.h"
#include "api/route.h"
#include "control/fixtures.h"
#include "core/request.h"
#include "handlers/api.h"
#include "mockapi.h"
#include "storage/store.h"

static void test_routing__core_namespaced_paths(void)
{
	mock_route r = mock_route_parse("/api/v1/namespaces/default/configmaps");
	CU_ASSERT_EQUAL(r.type, MOCK_ROUTE_COLLECTION);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r.res);
	CU_ASSERT_STRING_EQUAL(r.res->plural, "configmaps");
	CU_ASSERT_STRING_EQUAL(r.ns, "default");

	r = mock_route_parse("/api/v1/namespaces/default/configmaps/cm1");
	CU_ASSERT_EQUAL(r.type, MOCK_ROUTE_OBJECT);
	CU_ASSERT_STRING_EQUAL(r.name, "cm1");

	r = mock_route_parse("/api/v1/configmaps");
	CU_ASSERT_EQUAL(r.type, MOCK_ROUTE_COLLECTION);
	CU_ASSERT_STRING_EQUAL(r.ns, "");
	/* A namespaced object needs its namespace. */
	CU_ASSERT_EQUAL(mock_route_parse("/api/v1/configmaps/cm1").type, MOCK_ROUTE_NONE);
}

static void test_routing__namespaces_are_objects_too(void)
{
	mock_route r = mock_route_parse("/api/v1/namespaces/kube-system");
	CU_ASSERT_EQUAL(r.type, MOCK_ROUTE_OBJECT);
	CU_ASSERT_STRING_EQUAL(r.res->plural, "namespaces");
	CU_ASSERT_STRING_EQUAL(r.name, "kube-system");
	CU_ASSERT_EQUAL(mock_route_parse("/api/v1/namespaces").type, MOCK_ROUTE_COLLECTION);
	/* Cluster-scoped kinds do not exist under a namespace. */
	CU_ASSERT_EQUAL(mock_route_parse("/api/v1/namespaces/default/nodes").type, MOCK_ROUTE_NONE);
}

static void test_routing__groups_and_subresources(void)
{
	mock_route r = mock_route_parse("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/"
	                                "leases/edge-1");
	CU_ASSERT_EQUAL(r.type, MOCK_ROUTE_OBJECT);
	CU_ASSERT_STRING_EQUAL(r.res->kind, "Lease");
	CU_ASSERT_STRING_EQUAL(r.ns, "kube-node-lease");
	r = mock_route_parse("/api/v1/nodes/edge-1/status");
	CU_ASSERT_EQUAL(r.type, MOCK_ROUTE_OBJECT);
	CU_ASSERT_STRING_EQUAL(r.subresource, "status");
	/* Only nodes have a status subresource here; unknown ones are 404s. */
	CU_ASSERT_EQUAL(mock_route_parse("/api/v1/namespaces/default/configmaps/x/status").type,
	                MOCK_ROUTE_NONE);
	CU_ASSERT_EQUAL(mock_route_parse("/api/v1/nodes/edge-1/proxy").type, MOCK_ROUTE_NONE);
	CU_ASSERT_EQUAL(mock_route_parse("/apis/coordination.k8s.io/v2/namespaces/a/leases").type,
	                MOCK_ROUTE_NONE);
	CU_ASSERT_EQUAL(mock_route_parse("/apis/apps/v1/deployments").type, MOCK_ROUTE_NONE);
}

static void test_routing__malformed_paths(void)
{
	CU_ASSERT_EQUAL(mock_route_parse("").type, MOCK_ROUTE_NONE);
	CU_ASSERT_EQUAL(mock_route_parse("/").type, MOCK_ROUTE_NONE);
	CU_ASSERT_EQUAL(mock_route_parse("/api//v1/nodes").type, MOCK_ROUTE_NONE);
	CU_ASSERT_EQUAL(mock_route_parse("/api/v1/nodes/a/b/c/d/e/f/g/h/i").type, MOCK_ROUTE_NONE);
	char longname[400];
	memset(longname, 'a', sizeof(longname));
	memcpy(longname, "/api/v1/nodes/", 14);
	longname[sizeof(longname) - 1] = '\0';
	CU_ASSERT_TRUE(mock_route_parse(longname).bad_name);
}

static void test_routing__path_round_trip(void)
{
	char path[256];
	const mock_resource *lease = mock_resource_get(MOCK_KIND_LEASE);
	CU_ASSERT_EQUAL(mock_route_path(path, sizeof(path), lease, "ns1", "l1"), 0);
	CU_ASSERT_STRING_EQUAL(path, "/apis/coordination.k8s.io/v1/namespaces/ns1/leases/l1");
	mock_route r = mock_route_parse(path);
	CU_ASSERT_PTR_EQUAL(r.res, lease);
	CU_ASSERT_EQUAL(
	    mock_route_path(path, sizeof(path), mock_resource_get(MOCK_KIND_NODE), NULL, NULL), 0);
	CU_ASSERT_STRING_EQUAL(path, "/api/v1/nodes");
	CU_ASSERT_EQUAL(mock_route_path(path, 10, lease, "ns1", "l1"), -1);
}

/* routed: pass the route and attributes in the request, as the server does. */
static int handle_routed(const char *method, const char *path, const char *body, int routed)
{
	static mock_options opts;
	mock_api api;
	nl_err err = {0};
	mock_options_init(&opts);
	memset(&api, 0, sizeof(api));
	api.opts = &opts;
	CU_ASSERT_EQUAL_FATAL(mock_store_new(&api.store, NULL, NULL), 0);
	CU_ASSERT_EQUAL(mock_fixtures_seed(&api, &err), 0);
	mock_request req;
	memset(&req, 0, sizeof(req));
	req.method = method;
	req.path = path;
	req.body = body;
	req.body_len = body ? strlen(body) : 0;
	mock_route rt = mock_route_parse(path);
	mock_req_attrs attrs;
	mock_request_attrs_of_route(&attrs, &rt, method, NULL, NULL);
	if (routed) {
		req.route = &rt;
		req.attrs = &attrs;
	}
	mock_response resp;
	mock_response_init(&resp);
	mock_api_handle(&api, &req, &resp);
	int code = resp.code;
	mock_response_free(&resp);
	mock_store_free(api.store);
	return code;
}

static int handle(const char *method, const char *path, const char *body)
{
	int code = handle_routed(method, path, body, 0);
	CU_ASSERT_EQUAL(handle_routed(method, path, body, 1), code);
	return code;
}

static void test_routing__methods_per_route(void)
{
	CU_ASSERT_EQUAL(handle("GET", "/api/v1/configmaps", NULL), 200);
	/* The all-namespaces path only lists. */
	CU_ASSERT_EQUAL(handle("POST", "/api/v1/configmaps", "{}"), 405);
	CU_ASSERT_EQUAL(handle("DELETE", "/api/v1/configmaps", NULL), 405);
	CU_ASSERT_EQUAL(handle("PUT", "/api/v1/namespaces/default/configmaps", "{}"), 405);
	CU_ASSERT_EQUAL(handle("POST", "/api/v1/nodes/x", "{}"), 405);
	CU_ASSERT_EQUAL(handle("DELETE", "/api/v1/nodes/x/status", NULL), 405);
	/* Namespaces: no deletecollection; /finalize is PUT only. */
	CU_ASSERT_EQUAL(
	    handle("PUT", "/api/v1/namespaces/default", "{\"metadata\":{\"name\":\"default\"}}"),
	    200);
	CU_ASSERT_EQUAL(handle("GET", "/api/v1/namespaces/default/finalize", NULL), 405);
	CU_ASSERT_EQUAL(handle("GET", "/api/v1/namespaces/default", NULL), 200);
	CU_ASSERT_EQUAL(handle("DELETE", "/api/v1/namespaces", NULL), 405);
	CU_ASSERT_EQUAL(handle("BREW", "/api/v1/nodes", NULL), 405);
	CU_ASSERT_EQUAL(handle("GET", "/nonexistent", NULL), 404);
	CU_ASSERT_EQUAL(handle("GET", "/healthz", NULL), 200);
	CU_ASSERT_EQUAL(handle("POST", "/version", "{}"), 405);
}

/* The server routes once and hands route and attributes on: the same as
 * computing them from the path and method. */
static void test_routing__attrs_of_route_match_attrs(void)
{
	static const char *const paths[] = {
	    "/api/v1/namespaces/default/configmaps",
	    "/api/v1/namespaces/default/configmaps/cm1",
	    "/api/v1/nodes/edge-1/status",
	    "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1/",
	    "/api/v1/namespaces",
	    "/api/v1/namespaces/default",
	    "/healthz",
	    "/api/v1/nodes/a/b/c",
	    "",
	};
	static const char *const methods[] = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"};
	for (size_t p = 0; p < sizeof(paths) / sizeof(paths[0]); p++)
		for (size_t m = 0; m < sizeof(methods) / sizeof(methods[0]); m++) {
			mock_req_attrs a, b;
			mock_route rt = mock_route_parse(paths[p]);
			mock_request_attrs(&a, methods[m], paths[p], "true", "metadata.name=x");
			mock_request_attrs_of_route(&b, &rt, methods[m], "true", "metadata.name=x");
			CU_ASSERT_EQUAL(memcmp(&a, &b, sizeof(a)), 0);
		}
}

static void test_routing__discovery_verbs_match_dispatch(void)
{
	/* Every verb discovery advertises for nodes/status must be served. */
	const mock_resource *node = mock_resource_get(MOCK_KIND_NODE);
	CU_ASSERT_TRUE(mock_route_allows(node, "get", 1));
	CU_ASSERT_TRUE(mock_route_allows(node, "update", 1));
	CU_ASSERT_FALSE(mock_route_allows(node, "delete", 1));
	CU_ASSERT_TRUE(mock_route_allows(mock_resource_get(MOCK_KIND_NAMESPACE), "update", 0));
	CU_ASSERT_FALSE(
	    mock_route_allows(mock_resource_get(MOCK_KIND_NAMESPACE), "deletecollection", 0));
	CU_ASSERT_TRUE(
	    mock_route_allows_sub(mock_resource_get(MOCK_KIND_NAMESPACE), "update", "finalize"));
	CU_ASSERT_FALSE(
	    mock_route_allows_sub(mock_resource_get(MOCK_KIND_NAMESPACE), "get", "finalize"));
	CU_ASSERT_TRUE(mock_route_allows(mock_resource_get(MOCK_KIND_EVENT), "create", 0));
}

static CU_TestInfo tests[] = {
    {"core_namespaced_paths", test_routing__core_namespaced_paths},
    {"namespaces_are_objects_too", test_routing__namespaces_are_objects_too},
    {"groups_and_subresources", test_routing__groups_and_subresources},
    {"malformed_paths", test_routing__malformed_paths},
    {"path_round_trip", test_routing__path_round_trip},
    {"methods_per_route", test_routing__methods_per_route},
    {"discovery_verbs_match_dispatch", test_routing__discovery_verbs_match_dispatch},
    {"attrs_of_route_match_attrs", test_routing__attrs_of_route_match_attrs},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"routing", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
