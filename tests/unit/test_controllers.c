/* The built-in controllers without HTTP: --controllers parsing as
 * kube-controller-manager reads it, DeleteOptions' propagation policy, the
 * garbage collector's decisions on a bare store, and the node lifecycle
 * controller's writes per pass. */
#include <nodelet/meta.h>
#include <nodelet/time.h>
#include <stdlib.h>
#include <string.h>

#include "../cu_main.h"
#include "control/fixtures.h"
#include "controllers/controllers.h"
#include "core/request.h"
#include "handlers/api.h"
#include "mockapi.h"
#include "storage/store.h"

static void test_controllers__parse_like_kube_controller_manager(void)
{
	static const struct {
		const char *spec;
		unsigned want;
	} ok[] = {
	    {NULL, MOCK_CONTROLLERS_ALL},
	    {"", MOCK_CONTROLLERS_ALL},
	    {"*", MOCK_CONTROLLERS_ALL},
	    {"*,-nodelifecycle", MOCK_CONTROLLERS_ALL & ~MOCK_CONTROLLER_NODE_LIFECYCLE},
	    {"*,-node-lifecycle-controller",
	     MOCK_CONTROLLERS_ALL & ~MOCK_CONTROLLER_NODE_LIFECYCLE},
	    {"*,-namespace", MOCK_CONTROLLERS_ALL & ~MOCK_CONTROLLER_NAMESPACE},
	    {"namespace-controller", MOCK_CONTROLLER_NAMESPACE},
	    {"*,-taint-eviction-controller",
	     MOCK_CONTROLLERS_ALL & ~MOCK_CONTROLLER_TAINT_EVICTION},
	    {"tainteviction,podtermination",
	     MOCK_CONTROLLER_TAINT_EVICTION | MOCK_CONTROLLER_POD_TERMINATION},
	    {"csrapproving,certificatesigningrequest-signing-controller",
	     MOCK_CONTROLLER_CSR_APPROVING | MOCK_CONTROLLER_CSR_SIGNING},
	    {"*,-csrsigning", MOCK_CONTROLLERS_ALL & ~MOCK_CONTROLLER_CSR_SIGNING},
	    {"nodelifecycle", MOCK_CONTROLLER_NODE_LIFECYCLE},
	    {"garbage-collector-controller", MOCK_CONTROLLER_GARBAGE_COLLECTOR},
	    {"-garbagecollector", 0},
	    {"*,-nodelifecycle,-garbagecollector,-namespace,-tainteviction,-podtermination,"
	     "-csrapproving,-csrsigning",
	     0},
	    {"nodelifecycle,-nodelifecycle", 0},
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		unsigned got = 99;
		CU_ASSERT_EQUAL(mock_controllers_parse(&got, ok[i].spec, NULL), 0);
		CU_ASSERT_EQUAL(got, ok[i].want);
	}
	unsigned got = 99;
	nl_err err = {0};
	CU_ASSERT_EQUAL(mock_controllers_parse(&got, "*,ttl", &err), NL_EINVAL);
	CU_ASSERT_EQUAL(got, 99);
	CU_ASSERT_STRING_EQUAL(err.msg, "--controllers: \"ttl\" is not in the list of known "
	                                "controllers (nodelifecycle, garbagecollector, namespace, "
	                                "tainteviction, podtermination, csrapproving, "
	                                "csrsigning)");
}

/* A store with the default namespaces. */
static mock_store *seeded_store(mock_api *api, mock_options *opts)
{
	nl_err err = {0};
	mock_options_init(opts);
	memset(api, 0, sizeof(*api));
	api->opts = opts;
	CU_ASSERT_EQUAL_FATAL(mock_store_new(&api->store, NULL, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(mock_fixtures_seed(api, &err), 0);
	return api->store;
}

/* Create an object from JSON; returns its uid (caller frees). */
static char *create(mock_store *s, mock_kind kind, const char *json)
{
	json_object *o = nl_test_json(json);
	char *out = NULL;
	size_t len = 0;
	nl_status *st = NULL;
	int rc = mock_store_write(s, mock_resource_get(kind), MOCK_WRITE_CREATE, o, NULL, NULL,
	                          &out, &len, NULL, &st);
	if (rc != 0)
		fprintf(stderr, "\ncreate: %s\n", st && st->message ? st->message : "?");
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	json_object_put(o);
	o = json_tokener_parse(out);
	char *uid = strdup(nl_meta_uid(o));
	json_object_put(o);
	free(out);
	return uid;
}

static char *owned(char *buf, size_t n, const char *kind, const char *name, const char *ns,
                   const char *owner_uid)
{
	snprintf(buf, n,
	         "{\"apiVersion\":\"%s\",\"kind\":\"%s\",\"metadata\":{\"name\":\"%s\","
	         "\"namespace\":\"%s\",\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":"
	         "\"Node\",\"name\":\"n1\",\"uid\":\"%s\"}]}}",
	         strcmp(kind, "Lease") == 0 ? "coordination.k8s.io/v1" : "v1", kind, name, ns,
	         owner_uid);
	return buf;
}

static int exists(mock_store *s, mock_kind kind, const char *ns, const char *name)
{
	json_object *o = NULL;
	int rc = mock_store_get_object(s, mock_resource_get(kind), ns, name, &o);
	json_object_put(o);
	return rc == 0;
}

static void test_controllers__gc_collects_only_without_live_owners(void)
{
	mock_api api;
	mock_options opts;
	char buf[512];
	mock_store *s = seeded_store(&api, &opts);
	char *node = create(s, MOCK_KIND_NODE, "{\"metadata\":{\"name\":\"n1\"}}");
	free(create(s, MOCK_KIND_LEASE,
	            owned(buf, sizeof(buf), "Lease", "n1", "kube-node-lease", node)));
	free(create(s, MOCK_KIND_CONFIGMAP,
	            owned(buf, sizeof(buf), "ConfigMap", "c1", "default", node)));
	CU_ASSERT_EQUAL(mock_gc_collect(s), 0);
	CU_ASSERT_TRUE(exists(s, MOCK_KIND_LEASE, "kube-node-lease", "n1"));

	CU_ASSERT_EQUAL(mock_store_delete(s, mock_resource_get(MOCK_KIND_NODE), NULL, "n1", NULL,
	                                  NULL, NULL, NULL, NULL),
	                0);
	CU_ASSERT_EQUAL(mock_gc_collect(s), 2);
	CU_ASSERT_FALSE(exists(s, MOCK_KIND_LEASE, "kube-node-lease", "n1"));
	CU_ASSERT_FALSE(exists(s, MOCK_KIND_CONFIGMAP, "default", "c1"));
	CU_ASSERT_EQUAL(mock_gc_collect(s), 0);

	/* A node re-created under the same name is another owner (uid). */
	free(create(s, MOCK_KIND_NODE, "{\"metadata\":{\"name\":\"n1\"}}"));
	free(create(s, MOCK_KIND_LEASE,
	            owned(buf, sizeof(buf), "Lease", "n1", "kube-node-lease", node)));
	CU_ASSERT_EQUAL(mock_gc_collect(s), 1);
	CU_ASSERT_FALSE(exists(s, MOCK_KIND_LEASE, "kube-node-lease", "n1"));
	free(node);
	mock_store_free(s);
}

static void update_lease(mock_store *s, const char *ns, const char *name, const char *renew)
{
	json_object *o = NULL;
	CU_ASSERT_EQUAL_FATAL(
	    mock_store_get_object(s, mock_resource_get(MOCK_KIND_LEASE), ns, name, &o), 0);
	json_object *spec = json_object_new_object();
	json_object_object_add(spec, "renewTime", json_object_new_string(renew));
	json_object_object_add(o, "spec", spec);
	CU_ASSERT_EQUAL(mock_store_write(s, mock_resource_get(MOCK_KIND_LEASE), MOCK_WRITE_UPDATE,
	                                 o, NULL, NULL, NULL, NULL, NULL, NULL),
	                0);
	json_object_put(o);
}

static int delete_node(mock_store *s, const char *name)
{
	return mock_store_delete(s, mock_resource_get(MOCK_KIND_NODE), NULL, name, NULL, NULL, NULL,
	                         NULL, NULL);
}

/* The controller thread's collector remembers dependents between passes;
 * what it finds must be what a full collection finds. */
static void test_controllers__gc_remembers_between_passes(void)
{
	mock_api api;
	mock_options opts;
	char buf[512];
	mock_gc *g = NULL;
	mock_store *s = seeded_store(&api, &opts);
	char *node = create(s, MOCK_KIND_NODE, "{\"metadata\":{\"name\":\"n1\"}}");
	free(create(s, MOCK_KIND_LEASE,
	            owned(buf, sizeof(buf), "Lease", "n1", "kube-node-lease", node)));
	free(create(s, MOCK_KIND_CONFIGMAP,
	            owned(buf, sizeof(buf), "ConfigMap", "c1", "default", node)));
	CU_ASSERT_EQUAL_FATAL(mock_gc_new(&g, s), 0);
	CU_ASSERT_EQUAL(mock_gc_run(g), 0);
	/* A renewal keeps the references: nothing to do. */
	update_lease(s, "kube-node-lease", "n1", "2024-01-01T00:00:01.000000Z");
	CU_ASSERT_EQUAL(mock_gc_run(g), 0);
	CU_ASSERT_TRUE(exists(s, MOCK_KIND_LEASE, "kube-node-lease", "n1"));
	/* A new dependent of an owner that never existed goes at once. */
	free(create(s, MOCK_KIND_CONFIGMAP,
	            owned(buf, sizeof(buf), "ConfigMap", "c2", "default",
	                  "00000000-0000-4000-8000-000000000000")));
	CU_ASSERT_EQUAL(mock_gc_run(g), 1);
	CU_ASSERT_FALSE(exists(s, MOCK_KIND_CONFIGMAP, "default", "c2"));
	/* Deleting the owner takes both dependents. */
	CU_ASSERT_EQUAL(delete_node(s, "n1"), 0);
	CU_ASSERT_EQUAL(mock_gc_run(g), 2);
	CU_ASSERT_FALSE(exists(s, MOCK_KIND_LEASE, "kube-node-lease", "n1"));
	CU_ASSERT_FALSE(exists(s, MOCK_KIND_CONFIGMAP, "default", "c1"));
	CU_ASSERT_EQUAL(mock_gc_run(g), 0);

	/* Two levels: a ConfigMap owned by a ConfigMap owned by a node. */
	free(node);
	node = create(s, MOCK_KIND_NODE, "{\"metadata\":{\"name\":\"n1\"}}");
	char *mid = create(s, MOCK_KIND_CONFIGMAP,
	                   owned(buf, sizeof(buf), "ConfigMap", "mid", "default", node));
	snprintf(
	    buf, sizeof(buf),
	    "{\"metadata\":{\"name\":\"leaf\",\"namespace\":\"default\",\"ownerReferences\":"
	    "[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"mid\",\"uid\":\"%s\"}]}}",
	    mid);
	free(create(s, MOCK_KIND_CONFIGMAP, buf));
	CU_ASSERT_EQUAL(mock_gc_run(g), 0);
	CU_ASSERT_EQUAL(delete_node(s, "n1"), 0);
	CU_ASSERT_EQUAL(mock_gc_run(g), 2);
	CU_ASSERT_FALSE(exists(s, MOCK_KIND_CONFIGMAP, "default", "leaf"));

	/* After a reset everything is looked at again. */
	mock_gc_reset(g);
	CU_ASSERT_EQUAL(mock_gc_run(g), 0);
	free(mid);
	free(node);
	mock_gc_free(g);
	mock_store_free(s);
}

static void test_controllers__orphan_removes_only_that_owner(void)
{
	mock_api api;
	mock_options opts;
	char buf[512];
	mock_store *s = seeded_store(&api, &opts);
	char *node = create(s, MOCK_KIND_NODE, "{\"metadata\":{\"name\":\"n1\"}}");
	free(create(s, MOCK_KIND_LEASE,
	            owned(buf, sizeof(buf), "Lease", "n1", "kube-node-lease", node)));
	free(create(s, MOCK_KIND_CONFIGMAP,
	            "{\"metadata\":{\"name\":\"plain\",\"namespace\":"
	            "\"default\"}}"));
	CU_ASSERT_EQUAL(mock_gc_orphan(s, node), 1);
	json_object *lease = NULL;
	CU_ASSERT_EQUAL(mock_store_get_object(s, mock_resource_get(MOCK_KIND_LEASE),
	                                      "kube-node-lease", "n1", &lease),
	                0);
	CU_ASSERT_PTR_NULL(nl_json_get_path(lease, "metadata.ownerReferences"));
	json_object_put(lease);
	CU_ASSERT_EQUAL(mock_gc_orphan(s, node), 0);
	free(node);
	mock_store_free(s);
}

static void test_controllers__node_lifecycle_writes_once_per_change(void)
{
	mock_api api;
	mock_options opts;
	mock_node_lifecycle *nl = NULL;
	const int64_t t0 = nl_time_now();
	mock_store *s = seeded_store(&api, &opts);
	char ts[NL_TIME_BUFSZ], buf[512];
	nl_time_format(ts, t0);
	snprintf(
	    buf, sizeof(buf),
	    "{\"metadata\":{\"name\":\"n1\"},\"status\":{\"conditions\":[{\"type\":\"Ready\","
	    "\"status\":\"True\",\"lastHeartbeatTime\":\"%s\",\"lastTransitionTime\":\"%s\"}]}}",
	    ts, ts);
	free(create(s, MOCK_KIND_NODE, buf));
	CU_ASSERT_EQUAL_FATAL(mock_node_lifecycle_new(&nl, s, 50000000LL, 60000000LL), 0);
	CU_ASSERT_EQUAL(mock_node_lifecycle_run(nl, t0), 0);
	CU_ASSERT_EQUAL(mock_node_lifecycle_run(nl, t0 + 50000000LL), 0);
	uint64_t rv = mock_store_rv(s);
	/* Status (Unknown) then spec (NoSchedule taint): two writes. */
	CU_ASSERT_EQUAL(mock_node_lifecycle_run(nl, t0 + 51000000LL), 2);
	CU_ASSERT_EQUAL(mock_store_rv(s), rv + 2);
	/* Then the NoExecute taint, then nothing more. */
	CU_ASSERT_EQUAL(mock_node_lifecycle_run(nl, t0 + 56000000LL), 1);
	CU_ASSERT_EQUAL(mock_node_lifecycle_run(nl, t0 + 61000000LL), 0);
	/* A reset forgets health: the node is observed afresh. */
	mock_node_lifecycle_reset(nl);
	CU_ASSERT_EQUAL(mock_node_lifecycle_run(nl, t0 + 66000000LL), 0);
	mock_node_lifecycle_free(nl);
	mock_store_free(s);
}

static void put_lease(mock_store *s, int64_t renew, int create_it)
{
	char ts[NL_TIME_BUFSZ], buf[256];
	nl_time_format_micro(ts, renew);
	if (!create_it) {
		update_lease(s, "kube-node-lease", "n1", ts);
		return;
	}
	snprintf(buf, sizeof(buf),
	         "{\"metadata\":{\"name\":\"n1\",\"namespace\":\"kube-node-lease\"},\"spec\":{"
	         "\"renewTime\":\"%s\"}}",
	         ts);
	free(create(s, MOCK_KIND_LEASE, buf));
}

/* Renewals keep an unchanged node healthy without looking at it again;
 * when they stop, the grace period runs out as before. */
static void test_controllers__node_lifecycle_follows_lease_renewals(void)
{
	mock_api api;
	mock_options opts;
	mock_node_lifecycle *nl = NULL;
	const int64_t t0 = nl_time_now(), sec = 1000000LL;
	mock_store *s = seeded_store(&api, &opts);
	char ts[NL_TIME_BUFSZ], buf[512];
	nl_time_format(ts, t0);
	snprintf(
	    buf, sizeof(buf),
	    "{\"metadata\":{\"name\":\"n1\"},\"status\":{\"conditions\":[{\"type\":\"Ready\","
	    "\"status\":\"True\",\"lastHeartbeatTime\":\"%s\",\"lastTransitionTime\":\"%s\"}]}}",
	    ts, ts);
	free(create(s, MOCK_KIND_NODE, buf));
	put_lease(s, t0, 1);
	CU_ASSERT_EQUAL_FATAL(mock_node_lifecycle_new(&nl, s, 50 * sec, 60 * sec), 0);
	CU_ASSERT_EQUAL(mock_node_lifecycle_run(nl, t0), 0);
	put_lease(s, t0 + 40 * sec, 0);
	CU_ASSERT_EQUAL(mock_node_lifecycle_run(nl, t0 + 45 * sec), 0);
	/* Past t0 + 50 s, but the renewal seen at 45 s holds until 95 s. */
	CU_ASSERT_EQUAL(mock_node_lifecycle_run(nl, t0 + 90 * sec), 0);
	/* A lease deleted and created again is read afresh. */
	CU_ASSERT_EQUAL(mock_store_delete(s, mock_resource_get(MOCK_KIND_LEASE), "kube-node-lease",
	                                  "n1", NULL, NULL, NULL, NULL, NULL),
	                0);
	put_lease(s, t0 + 91 * sec, 1);
	CU_ASSERT_EQUAL(mock_node_lifecycle_run(nl, t0 + 92 * sec), 0);
	CU_ASSERT_EQUAL(mock_node_lifecycle_run(nl, t0 + 140 * sec), 0);
	/* No renewal since 92 s: Unknown (status) and the NoSchedule taint. */
	uint64_t rv = mock_store_rv(s);
	CU_ASSERT_EQUAL(mock_node_lifecycle_run(nl, t0 + 143 * sec), 2);
	CU_ASSERT_EQUAL(mock_store_rv(s), rv + 2);
	CU_ASSERT_EQUAL(mock_node_lifecycle_run(nl, t0 + 148 * sec), 1);
	CU_ASSERT_EQUAL(mock_node_lifecycle_run(nl, t0 + 153 * sec), 0);
	mock_node_lifecycle_free(nl);
	mock_store_free(s);
}

/* Found by fuzzing: a taint added to a node with a configSource went after
 * it, conditions added to a status went after nodeInfo; Go writes taints
 * and conditions first. */
static void test_controllers__node_lifecycle_keeps_spec_field_order(void)
{
	mock_api api;
	mock_options opts;
	mock_node_lifecycle *nl = NULL;
	const int64_t t0 = nl_time_now();
	mock_store *s = seeded_store(&api, &opts);
	free(create(s, MOCK_KIND_NODE,
	            "{\"metadata\":{\"name\":\"n1\"},\"spec\":{\"configSource\":{\"configMap\":{"
	            "\"namespace\":\"kube-system\",\"name\":\"c\",\"kubeletConfigKey\":\"k\"}}},"
	            "\"status\":{\"nodeInfo\":{\"kubeletVersion\":\"v1.32.0\"}}}"));
	CU_ASSERT_EQUAL_FATAL(mock_node_lifecycle_new(&nl, s, 50000000LL, 60000000LL), 0);
	CU_ASSERT_EQUAL(mock_node_lifecycle_run(nl, t0), 0);
	CU_ASSERT_TRUE(mock_node_lifecycle_run(nl, t0 + 61000000LL) > 0);
	json_object *node = NULL;
	CU_ASSERT_EQUAL_FATAL(
	    mock_store_get_object(s, mock_resource_get(MOCK_KIND_NODE), "", "n1", &node), 0);
	const char *keys[4];
	int n = 0;
	json_object_object_foreach(nl_json_get_path(node, "spec"), k, v)
	{
		(void)v;
		if (n < 4)
			keys[n] = k;
		n++;
	}
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_STRING_EQUAL(keys[0], "taints");
	CU_ASSERT_STRING_EQUAL(keys[1], "configSource");
	json_object_object_foreach(nl_json_get_path(node, "status"), sk, sv)
	{
		(void)sv;
		CU_ASSERT_STRING_EQUAL(sk, "conditions"); /* the first key */
		break;
	}
	json_object_put(node);
	mock_node_lifecycle_free(nl);
	mock_store_free(s);
}

static CU_TestInfo tests[] = {
    {"parse_like_kube_controller_manager", test_controllers__parse_like_kube_controller_manager},
    {"gc_collects_only_without_live_owners",
     test_controllers__gc_collects_only_without_live_owners},
    {"gc_remembers_between_passes", test_controllers__gc_remembers_between_passes},
    {"orphan_removes_only_that_owner", test_controllers__orphan_removes_only_that_owner},
    {"node_lifecycle_writes_once_per_change",
     test_controllers__node_lifecycle_writes_once_per_change},
    {"node_lifecycle_follows_lease_renewals",
     test_controllers__node_lifecycle_follows_lease_renewals},
    {"node_lifecycle_keeps_spec_field_order",
     test_controllers__node_lifecycle_keeps_spec_field_order},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"controllers", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
