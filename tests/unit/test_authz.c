/* Authorization (mockapi/auth/authz.c) and NodeRestriction
 * (mockapi/auth/node_restriction.c): a table of (user, groups, request, the
 * node's config source) → allowed, or denied with kube-apiserver's exact
 * 403 text (responsewriters.Forbidden around the Node authorizer's reason;
 * admission.NewForbidden for NodeRestriction). */
#include <nodelet/meta.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cu_main.h"
#include "api/resources.h"
#include "auth/authz.h"
#include "auth/node_restriction.h"

static const char *const node_a[] = {"system:nodes", "system:authenticated"};
static const char *const masters[] = {"system:masters", "system:authenticated"};
static const char *const authed[] = {"system:authenticated"};
static const char *const anon[] = {"system:unauthenticated"};

/* The graph: node a's config source is kube-system/a-config; b has none. */
static int configmap_of(char ns[254], char name[254], const char *node, void *payload)
{
	(void)payload;
	if (strcmp(node, "a") != 0)
		return 0;
	strcpy(ns, "kube-system");
	strcpy(name, "a-config");
	return 1;
}

typedef struct {
	const char *user;
	const char *const *groups;
	size_t ngroups;
	const char *method;
	const char *path;
	const char *query;  /* "watch=1", "fieldSelector=metadata.name=x" or NULL */
	const char *denied; /* the 403 message, NULL when allowed */
} authz_case;

#define NODE(n) "system:node:" n, node_a, 2
#define MASTER "admin", masters, 2
#define ALICE "alice", authed, 1
#define ANON "system:anonymous", anon, 1
#define LEASES "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"

static const authz_case node_cases[] = {
    /* Nodes: read any, write through NodeRestriction, status update/patch only */
    {NODE("a"), "GET", "/api/v1/nodes", NULL, NULL},
    {NODE("a"), "GET", "/api/v1/nodes", "watch=1", NULL},
    {NODE("a"), "GET", "/api/v1/nodes/b", NULL, NULL},
    {NODE("a"), "POST", "/api/v1/nodes", NULL, NULL},
    {NODE("a"), "PUT", "/api/v1/nodes/a", NULL, NULL},
    {NODE("a"), "PATCH", "/api/v1/nodes/a", NULL, NULL},
    {NODE("a"), "PUT", "/api/v1/nodes/a/status", NULL, NULL},
    {NODE("a"), "PATCH", "/api/v1/nodes/a/status", NULL, NULL},
    {NODE("a"), "GET", "/api/v1/nodes/a/status", NULL,
     "nodes \"a\" is forbidden: User \"system:node:a\" cannot get resource \"nodes/status\" in "
     "API group \"\" at the cluster scope"},
    {NODE("a"), "DELETE", "/api/v1/nodes/a", NULL,
     "nodes \"a\" is forbidden: User \"system:node:a\" cannot delete resource \"nodes\" in API "
     "group \"\" at the cluster scope"},
    {NODE("a"), "DELETE", "/api/v1/nodes", NULL,
     "nodes is forbidden: User \"system:node:a\" cannot deletecollection resource \"nodes\" in "
     "API group \"\" at the cluster scope"},
    /* Leases: its own, in kube-node-lease; create's name is NodeRestriction's */
    {NODE("a"), "GET", LEASES "/a", NULL, NULL},
    {NODE("a"), "PUT", LEASES "/a", NULL, NULL},
    {NODE("a"), "PATCH", LEASES "/a", NULL, NULL},
    {NODE("a"), "DELETE", LEASES "/a", NULL, NULL},
    {NODE("a"), "POST", LEASES, NULL, NULL},
    {NODE("a"), "PUT", LEASES "/b", NULL,
     "leases.coordination.k8s.io \"b\" is forbidden: User \"system:node:a\" cannot update "
     "resource \"leases\" in API group \"coordination.k8s.io\" in the namespace "
     "\"kube-node-lease\": can only access node lease with the same name as the requesting "
     "node"},
    {NODE("a"), "GET", LEASES "/b", NULL,
     "leases.coordination.k8s.io \"b\" is forbidden: User \"system:node:a\" cannot get resource "
     "\"leases\" in API group \"coordination.k8s.io\" in the namespace \"kube-node-lease\": can "
     "only access node lease with the same name as the requesting node"},
    {NODE("a"), "GET", LEASES, NULL,
     "leases.coordination.k8s.io is forbidden: User \"system:node:a\" cannot list resource "
     "\"leases\" in API group \"coordination.k8s.io\" in the namespace \"kube-node-lease\": can "
     "only get, create, update, patch, or delete a node lease"},
    {NODE("a"), "GET", LEASES, "watch=true",
     "leases.coordination.k8s.io is forbidden: User \"system:node:a\" cannot watch resource "
     "\"leases\" in API group \"coordination.k8s.io\" in the namespace \"kube-node-lease\": can "
     "only get, create, update, patch, or delete a node lease"},
    {NODE("a"), "DELETE", LEASES, NULL,
     "leases.coordination.k8s.io is forbidden: User \"system:node:a\" cannot deletecollection "
     "resource \"leases\" in API group \"coordination.k8s.io\" in the namespace "
     "\"kube-node-lease\": can only get, create, update, patch, or delete a node lease"},
    {NODE("a"), "GET", "/apis/coordination.k8s.io/v1/namespaces/default/leases/a", NULL,
     "leases.coordination.k8s.io \"a\" is forbidden: User \"system:node:a\" cannot get resource "
     "\"leases\" in API group \"coordination.k8s.io\" in the namespace \"default\": can only "
     "access leases in the \"kube-node-lease\" system namespace"},
    /* ConfigMaps: only the one its config source references, read-only */
    {NODE("a"), "GET", "/api/v1/namespaces/kube-system/configmaps/a-config", NULL, NULL},
    {NODE("a"), "GET", "/api/v1/namespaces/kube-system/configmaps",
     "fieldSelector=metadata.name=a-config", NULL},
    {NODE("a"), "GET", "/api/v1/namespaces/kube-system/configmaps",
     "watch=1&fieldSelector=metadata.name=a-config", NULL},
    {NODE("a"), "GET", "/api/v1/namespaces/kube-system/configmaps/other", NULL,
     "configmaps \"other\" is forbidden: User \"system:node:a\" cannot get resource "
     "\"configmaps\" in API group \"\" in the namespace \"kube-system\": no relationship found "
     "between node 'a' and this object"},
    {NODE("a"), "GET", "/api/v1/namespaces/default/configmaps/a-config", NULL,
     "configmaps \"a-config\" is forbidden: User \"system:node:a\" cannot get resource "
     "\"configmaps\" in API group \"\" in the namespace \"default\": no relationship found "
     "between node 'a' and this object"},
    {NODE("b"), "GET", "/api/v1/namespaces/kube-system/configmaps/a-config", NULL,
     "configmaps \"a-config\" is forbidden: User \"system:node:b\" cannot get resource "
     "\"configmaps\" in API group \"\" in the namespace \"kube-system\": no relationship found "
     "between node 'b' and this object"},
    {NODE("a"), "GET", "/api/v1/namespaces/kube-system/configmaps", NULL,
     "configmaps is forbidden: User \"system:node:a\" cannot list resource \"configmaps\" in "
     "API group \"\" in the namespace \"kube-system\": No Object name found"},
    {NODE("a"), "GET", "/api/v1/configmaps", "fieldSelector=metadata.name=a-config",
     "configmaps \"a-config\" is forbidden: User \"system:node:a\" cannot list resource "
     "\"configmaps\" in API group \"\" at the cluster scope: can only read namespaced object of "
     "this type"},
    {NODE("a"), "PUT", "/api/v1/namespaces/kube-system/configmaps/a-config", NULL,
     "configmaps \"a-config\" is forbidden: User \"system:node:a\" cannot update resource "
     "\"configmaps\" in API group \"\" in the namespace \"kube-system\": can only read "
     "resources of this type"},
    {NODE("a"), "POST", "/api/v1/namespaces/default/configmaps", NULL,
     "configmaps is forbidden: User \"system:node:a\" cannot create resource \"configmaps\" in "
     "API group \"\" in the namespace \"default\": can only read resources of this type"},
    /* Events: create, update, patch */
    {NODE("a"), "POST", "/api/v1/namespaces/default/events", NULL, NULL},
    {NODE("a"), "PATCH", "/api/v1/namespaces/default/events/e1", NULL, NULL},
    {NODE("a"), "GET", "/api/v1/namespaces/default/events", NULL,
     "events is forbidden: User \"system:node:a\" cannot list resource \"events\" in API group "
     "\"\" in the namespace \"default\""},
    /* Namespaces: nothing */
    {NODE("a"), "GET", "/api/v1/namespaces", NULL,
     "namespaces is forbidden: User \"system:node:a\" cannot list resource \"namespaces\" in API "
     "group \"\" at the cluster scope"},
    {NODE("a"), "GET", "/api/v1/namespaces/default", NULL,
     "namespaces \"default\" is forbidden: User \"system:node:a\" cannot get resource "
     "\"namespaces\" in API group \"\" at the cluster scope"},
    /* Non-resource URLs: discovery and health roots for the authenticated */
    {NODE("a"), "GET", "/api", NULL, NULL},
    {NODE("a"), "GET", "/apis/coordination.k8s.io/v1", NULL, NULL},
    {NODE("a"), "GET", "/version", NULL, NULL},
    {NODE("a"), "GET", "/healthz", NULL, NULL},
    {NODE("a"), "GET", "/openapi/v3", NULL, NULL},
    {NODE("a"), "GET", "/healthz/ping", NULL,
     "forbidden: User \"system:node:a\" cannot get path \"/healthz/ping\""},
    {NODE("a"), "POST", "/api", NULL,
     "forbidden: User \"system:node:a\" cannot post path \"/api\""},
    /* Anonymous: nothing at all */
    {ANON, "GET", "/api", NULL, "forbidden: User \"system:anonymous\" cannot get path \"/api\""},
    {ANON, "GET", "/version", NULL,
     "forbidden: User \"system:anonymous\" cannot get path \"/version\""},
    {ANON, "GET", "/api/v1/nodes", NULL,
     "nodes is forbidden: User \"system:anonymous\" cannot list resource \"nodes\" in API group "
     "\"\" at the cluster scope"},
    /* system:masters: everything */
    {MASTER, "DELETE", "/api/v1/nodes/a", NULL, NULL},
    {MASTER, "PUT", LEASES "/b", NULL, NULL},
    {MASTER, "GET", "/healthz/ping", NULL, NULL},
    {MASTER, "POST", "/mockapi/v1/reset", NULL, NULL},
    /* Other users: discovery only */
    {ALICE, "GET", "/apis", NULL, NULL},
    {ALICE, "GET", "/api/v1/namespaces/default/configmaps/x", NULL,
     "configmaps \"x\" is forbidden: User \"alice\" cannot get resource \"configmaps\" in API "
     "group \"\" in the namespace \"default\""},
    {"system:node:x", authed, 1, "GET", "/api/v1/nodes", NULL,
     "nodes is forbidden: User \"system:node:x\" cannot list resource \"nodes\" in API group "
     "\"\" at the cluster scope"},
    {"system:node:", node_a, 2, "GET", "/api/v1/nodes", NULL,
     "nodes is forbidden: User \"system:node:\" cannot list resource \"nodes\" in API group "
     "\"\" at the cluster scope: unknown node for user \"system:node:\""},
    /* The user is quoted as Go's %q does, then HTML-escaped */
    {"a\"<b>&", authed, 1, "GET", "/x", NULL,
     "forbidden: User \"a\\\"&lt;b&gt;&amp;\" cannot get path \"/x\""},
};

/* Query "k=v&k2=v2" into the two parameters mock_request_attrs reads. */
static void query_params(const char **watch, const char **fs, char *buf, const char *query)
{
	*watch = *fs = NULL;
	if (!query)
		return;
	strcpy(buf, query);
	for (char *save = NULL, *kv = strtok_r(buf, "&", &save); kv;
	     kv = strtok_r(NULL, "&", &save)) {
		if (strncmp(kv, "watch=", 6) == 0)
			*watch = kv + 6;
		else if (strncmp(kv, "fieldSelector=", 14) == 0)
			*fs = kv + 14;
	}
}

static int run_case(nl_status **st, mock_authz_mode mode, const authz_case *c)
{
	char buf[256];
	const char *watch, *fs;
	mock_req_attrs a;
	query_params(&watch, &fs, buf, c->query);
	mock_request_attrs(&a, c->method, c->path, watch, fs);
	mock_authz_user u = {c->user, c->groups, c->ngroups};
	*st = NULL;
	return mock_authz_check(st, mode, &u, &a, c->path, configmap_of, NULL);
}

static void test_authz__node_mode_table(void)
{
	for (size_t i = 0; i < sizeof(node_cases) / sizeof(node_cases[0]); i++) {
		const authz_case *c = &node_cases[i];
		nl_status *st = NULL;
		int rc = run_case(&st, MOCK_AUTHZ_NODE, c);
		const char *got = st ? st->message : "(allowed)";
		const char *want = c->denied ? c->denied : "(allowed)";
		if (strcmp(got, want) != 0)
			fprintf(stderr, "\n%s %s %s?%s\n  want %s\n  got  %s\n", c->user, c->method,
			        c->path, c->query ? c->query : "", want, got);
		CU_ASSERT_EQUAL(rc, c->denied ? NL_EFORBIDDEN : 0);
		CU_ASSERT_STRING_EQUAL(got, want);
		if (st) {
			CU_ASSERT_EQUAL(st->code, 403);
			CU_ASSERT_STRING_EQUAL(st->reason, "Forbidden");
		}
		nl_status_free(st);
	}
}

static void test_authz__always_allow_allows_everyone(void)
{
	for (size_t i = 0; i < sizeof(node_cases) / sizeof(node_cases[0]); i++) {
		nl_status *st = NULL;
		CU_ASSERT_EQUAL(run_case(&st, MOCK_AUTHZ_ALWAYS_ALLOW, &node_cases[i]), 0);
		CU_ASSERT_PTR_NULL(st);
	}
}

/* The whole body: details name the object and its group and resource;
 * a non-resource denial has empty details, as NewForbidden sends them. */
static void test_authz__forbidden_bodies(void)
{
	authz_case lease = {NODE("a"), "PUT", LEASES "/b", NULL, "x"};
	nl_status *st = NULL;
	CU_ASSERT_EQUAL(run_case(&st, MOCK_AUTHZ_NODE, &lease), NL_EFORBIDDEN);
	json_object *o = nl_status_to_json(st);
	NL_ASSERT_JSON_EQ(
	    o, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
	       "\"message\":\"leases.coordination.k8s.io \\\"b\\\" is forbidden: User "
	       "\\\"system:node:a\\\" cannot update resource \\\"leases\\\" in API group "
	       "\\\"coordination.k8s.io\\\" in the namespace \\\"kube-node-lease\\\": can only "
	       "access node lease with the same name as the requesting node\",\"reason\":"
	       "\"Forbidden\",\"details\":{\"name\":\"b\",\"group\":\"coordination.k8s.io\","
	       "\"kind\":\"leases\"},\"code\":403}");
	json_object_put(o);
	nl_status_free(st);

	authz_case path = {ANON, "GET", "/api", NULL, "x"};
	CU_ASSERT_EQUAL(run_case(&st, MOCK_AUTHZ_NODE, &path), NL_EFORBIDDEN);
	o = nl_status_to_json(st);
	NL_ASSERT_JSON_EQ(o, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
	                     "\"status\":\"Failure\",\"message\":\"forbidden: User "
	                     "\\\"system:anonymous\\\" cannot get path \\\"/api\\\"\",\"reason\":"
	                     "\"Forbidden\",\"details\":{},\"code\":403}");
	json_object_put(o);
	nl_status_free(st);
}

static void test_authz__mode_names(void)
{
	mock_authz_mode m = MOCK_AUTHZ_NODE;
	nl_err err = {0};
	CU_ASSERT_EQUAL(mock_authz_mode_parse(&m, "AlwaysAllow", &err), 0);
	CU_ASSERT_EQUAL(m, MOCK_AUTHZ_ALWAYS_ALLOW);
	CU_ASSERT_EQUAL(mock_authz_mode_parse(&m, "Node", &err), 0);
	CU_ASSERT_EQUAL(m, MOCK_AUTHZ_NODE);
	CU_ASSERT_EQUAL(mock_authz_mode_parse(&m, "RBAC", &err), NL_EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg, "--authorization-mode: unsupported mode \"RBAC\": want "
	                                "AlwaysAllow or Node");
	CU_ASSERT_EQUAL(m, MOCK_AUTHZ_NODE);
}

/* ------------------------------------------------------------------------
 * NodeRestriction */

typedef struct {
	const char *user;
	mock_kind kind;
	const char *name; /* URL name; "" on create */
	const char *obj;
	const char *old; /* NULL: create */
	const char *denied;
} admit_case;

#define NODE_A_OBJ(extra) "{\"metadata\":{\"name\":\"a\"" extra "}}"

static const admit_case admit_cases[] = {
    {"system:node:a", MOCK_KIND_NODE, "", NODE_A_OBJ(""), NULL, NULL},
    {"system:node:a", MOCK_KIND_NODE, "", "{\"metadata\":{\"name\":\"b\"}}", NULL,
     "nodes \"b\" is forbidden: node \"a\" is not allowed to modify node \"b\""},
    {"system:node:a", MOCK_KIND_NODE, "b", "{\"metadata\":{\"name\":\"b\"}}",
     "{\"metadata\":{\"name\":\"b\"}}",
     "nodes \"b\" is forbidden: node \"a\" is not allowed to modify node \"b\""},
    {"system:node:a", MOCK_KIND_NODE, "",
     "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"configSource\":{\"configMap\":{}}}}", NULL,
     "nodes \"a\" is forbidden: node \"a\" is not allowed to create pods with a non-nil "
     "configSource"},
    {"system:node:a", MOCK_KIND_NODE, "",
     "{\"metadata\":{\"name\":\"a\",\"labels\":{\"kubernetes.io/hostname\":\"a\","
     "\"node.kubernetes.io/instance-type\":\"m\",\"example.com/x\":\"y\","
     "\"node-role.kubernetes.io/master\":\"\",\"foo.k8s.io/bar\":\"1\","
     "\"x.node-restriction.kubernetes.io/y\":\"z\"}}}",
     NULL,
     "nodes \"a\" is forbidden: node \"a\" is not allowed to set the following labels: "
     "foo.k8s.io/bar, node-role.kubernetes.io/master, x.node-restriction.kubernetes.io/y"},
    /* updates: status and allowed labels yes; taints, configSource, labels no */
    {"system:node:a", MOCK_KIND_NODE, "a",
     "{\"metadata\":{\"name\":\"a\",\"labels\":{\"kubelet.kubernetes.io/x\":\"1\"}},"
     "\"spec\":{\"taints\":[]},\"status\":{\"phase\":\"Running\"}}",
     NODE_A_OBJ(""), NULL},
    {"system:node:a", MOCK_KIND_NODE, "a",
     "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"taints\":[{\"key\":\"k\",\"effect\":"
     "\"NoSchedule\"}]}}",
     NODE_A_OBJ(""), "nodes \"a\" is forbidden: node \"a\" is not allowed to modify taints"},
    {"system:node:a", MOCK_KIND_NODE, "a", NODE_A_OBJ(""),
     "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"taints\":[{\"key\":\"k\",\"effect\":"
     "\"NoSchedule\"}]}}",
     "nodes \"a\" is forbidden: node \"a\" is not allowed to modify taints"},
    {"system:node:a", MOCK_KIND_NODE, "a",
     "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"configSource\":{\"configMap\":{\"name\":"
     "\"c2\"}}}}",
     "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"configSource\":{\"configMap\":{\"name\":"
     "\"c1\"}}}}",
     "nodes \"a\" is forbidden: node \"a\" is not allowed to update configSource to a new "
     "non-nil configSource"},
    {"system:node:a", MOCK_KIND_NODE, "a",
     "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"configSource\":{\"configMap\":{\"name\":"
     "\"c1\"}}}}",
     "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"configSource\":{\"configMap\":{\"name\":"
     "\"c1\"}}}}",
     NULL},
    {"system:node:a", MOCK_KIND_NODE, "a", NODE_A_OBJ(""),
     "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"configSource\":{\"configMap\":{\"name\":"
     "\"c1\"}}}}",
     NULL},
    {"system:node:a", MOCK_KIND_NODE, "a",
     NODE_A_OBJ(",\"labels\":{\"node-role.kubernetes.io/worker\":\"\"}"), NODE_A_OBJ(""),
     "nodes \"a\" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/worker"},
    {"system:node:a", MOCK_KIND_NODE, "a", NODE_A_OBJ(""),
     NODE_A_OBJ(",\"labels\":{\"node-role.kubernetes.io/worker\":\"\"}"),
     "nodes \"a\" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/worker"},
    /* leases */
    {"system:node:a", MOCK_KIND_LEASE, "",
     "{\"metadata\":{\"name\":\"a\",\"namespace\":\"kube-node-lease\"}}", NULL, NULL},
    {"system:node:a", MOCK_KIND_LEASE, "",
     "{\"metadata\":{\"name\":\"b\",\"namespace\":\"kube-node-lease\"}}", NULL,
     "leases.coordination.k8s.io \"b\" is forbidden: can only access node lease with the same "
     "name as the requesting node"},
    {"system:node:a", MOCK_KIND_LEASE, "a",
     "{\"metadata\":{\"name\":\"a\",\"namespace\":\"kube-node-lease\"}}",
     "{\"metadata\":{\"name\":\"a\",\"namespace\":\"kube-node-lease\"}}", NULL},
    {"system:node:a", MOCK_KIND_LEASE, "",
     "{\"metadata\":{\"name\":\"a\",\"namespace\":\"default\"}}", NULL,
     "leases.coordination.k8s.io \"a\" is forbidden: can only access leases in the "
     "\"kube-node-lease\" system namespace"},
    /* not a node, or another kind: nothing to say */
    {"alice", MOCK_KIND_NODE, "", "{\"metadata\":{\"name\":\"b\"}}", NULL, NULL},
    {"system:node:a", MOCK_KIND_CONFIGMAP, "",
     "{\"metadata\":{\"name\":\"b\",\"namespace\":\"default\"}}", NULL, NULL},
    {"system:node:", MOCK_KIND_NODE, "", "{\"metadata\":{\"name\":\"b\"}}", NULL,
     "nodes \"b\" is forbidden: could not determine node from user \"system:node:\""},
};

static void test_authz__node_restriction_table(void)
{
	for (size_t i = 0; i < sizeof(admit_cases) / sizeof(admit_cases[0]); i++) {
		const admit_case *c = &admit_cases[i];
		int node = strncmp(c->user, "system:node:", 12) == 0;
		mock_authz_user u = {c->user, node ? node_a : authed, node ? 2 : 1};
		json_object *obj = nl_test_json(c->obj);
		json_object *old = c->old ? nl_test_json(c->old) : NULL;
		nl_status *st =
		    mock_node_restriction(&u, mock_resource_get(c->kind), c->name, obj, old);
		const char *got = st ? st->message : "(admitted)";
		const char *want = c->denied ? c->denied : "(admitted)";
		if (strcmp(got, want) != 0)
			fprintf(stderr, "\ncase %zu\n  want %s\n  got  %s\n", i, want, got);
		CU_ASSERT_STRING_EQUAL(got, want);
		if (st)
			CU_ASSERT_EQUAL(st->code, 403);
		nl_status_free(st);
		json_object_put(obj);
		json_object_put(old);
	}
}

/* Names in the 403 are Go's %q: a byte that is not UTF-8 is \xNN and a
 * non-printable rune \uNNNN (the mock's own quoting kept both raw). */
static void test_authz__forbidden_quotes_names_like_go(void)
{
	mock_req_attrs a = {
	    .verb = "get", .res = NULL, .resource = "", .subresource = "", .group = ""};
	nl_status *st = mock_authz_forbidden("caf\xff", &a, "/x\xc2\x85", "");
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_STRING_EQUAL(st->message,
	                       "forbidden: User \"caf\\xff\" cannot get path \"/x\\u0085\"");
	nl_status_free(st);
}

static CU_TestInfo tests[] = {
    {"node_mode_table", test_authz__node_mode_table},
    {"always_allow_allows_everyone", test_authz__always_allow_allows_everyone},
    {"forbidden_bodies", test_authz__forbidden_bodies},
    {"forbidden_quotes_names_like_go", test_authz__forbidden_quotes_names_like_go},
    {"mode_names", test_authz__mode_names},
    {"node_restriction_table", test_authz__node_restriction_table},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"authz", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
