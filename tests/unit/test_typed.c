/* Typed helpers without a server: paths, Lease spec as C values, Node
 * conditions as the kubelet sets them, ConfigMap data, Event shape. */
#include <nodelet/configmap.h>
#include <nodelet/event.h>
#include <nodelet/lease.h>
#include <nodelet/meta.h>
#include <nodelet/node.h>
#include <nodelet/time.h>
#include <string.h>

#include "../cu_main.h"

static void test_typed__paths(void)
{
	char p[256];
	CU_ASSERT_EQUAL(
	    nl_api_path(p, sizeof(p), &nl_resource_leases, "kube-node-lease", "n1", NULL), 0);
	CU_ASSERT_STRING_EQUAL(p,
	                       "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1");
	CU_ASSERT_EQUAL(nl_api_path(p, sizeof(p), &nl_resource_configmaps, NULL, NULL, NULL), 0);
	CU_ASSERT_STRING_EQUAL(p, "/api/v1/configmaps");
	CU_ASSERT_EQUAL(nl_api_path(p, sizeof(p), &nl_resource_configmaps, "default", NULL, NULL),
	                0);
	CU_ASSERT_STRING_EQUAL(p, "/api/v1/namespaces/default/configmaps");
	/* Cluster-scoped resources ignore a namespace. */
	CU_ASSERT_EQUAL(nl_api_path(p, sizeof(p), &nl_resource_nodes, "default", "n1", "status"),
	                0);
	CU_ASSERT_STRING_EQUAL(p, "/api/v1/nodes/n1/status");
	CU_ASSERT_EQUAL(
	    nl_api_path(p, sizeof(p), &nl_resource_namespaces, NULL, "kube-system", NULL), 0);
	CU_ASSERT_STRING_EQUAL(p, "/api/v1/namespaces/kube-system");
	/* Odd names are escaped, never spliced into the path. */
	CU_ASSERT_EQUAL(nl_api_path(p, sizeof(p), &nl_resource_nodes, NULL, "a/b?c", NULL), 0);
	CU_ASSERT_STRING_EQUAL(p, "/api/v1/nodes/a%2Fb%3Fc");
	CU_ASSERT_EQUAL(nl_api_path(p, 10, &nl_resource_nodes, NULL, "n1", NULL), NL_ETOOBIG);
	CU_ASSERT_EQUAL(nl_api_path(p, sizeof(p), &nl_resource_nodes, NULL, NULL, "status"),
	                NL_EINVAL);
}

static void test_typed__patch_content_types(void)
{
	CU_ASSERT_STRING_EQUAL(nl_patch_content_type(NL_PATCH_JSON), "application/json-patch+json");
	CU_ASSERT_STRING_EQUAL(nl_patch_content_type(NL_PATCH_MERGE),
	                       "application/merge-patch+json");
	CU_ASSERT_STRING_EQUAL(nl_patch_content_type(NL_PATCH_STRATEGIC),
	                       "application/strategic-merge-patch+json");
	CU_ASSERT_STRING_EQUAL(nl_patch_content_type(NL_PATCH_APPLY),
	                       "application/apply-patch+yaml");
	CU_ASSERT_STRING_EQUAL(nl_patch_content_type((nl_patch_type)0), "");
}

static void test_typed__lease_spec_round_trip(void)
{
	json_object *lease;
	nl_lease_spec in = {"n1", 40, 1714557600123456, 1714557601000001, 0}, out;
	CU_ASSERT_EQUAL_FATAL(nl_lease_new(&lease, "kube-node-lease", "n1", &in), 0);
	NL_ASSERT_JSON_EQ(lease,
	                  "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\","
	                  "\"metadata\":{\"name\":\"n1\",\"namespace\":\"kube-node-lease\"},"
	                  "\"spec\":{\"holderIdentity\":\"n1\",\"leaseDurationSeconds\":40,"
	                  "\"acquireTime\":\"2024-05-01T10:00:00.123456Z\","
	                  "\"renewTime\":\"2024-05-01T10:00:01.000001Z\",\"leaseTransitions\":0}}");
	CU_ASSERT_EQUAL(nl_lease_spec_read(&out, lease), 0);
	CU_ASSERT_STRING_EQUAL(out.holder_identity, "n1");
	CU_ASSERT_EQUAL(out.lease_duration_seconds, 40);
	CU_ASSERT_EQUAL(out.acquire_time, in.acquire_time);
	CU_ASSERT_EQUAL(out.renew_time, in.renew_time);
	CU_ASSERT_EQUAL(out.lease_transitions, 0);
	/* Unset fields are removed; fields the struct does not cover stay. */
	json_object_object_add(json_object_object_get(lease, "spec"), "strategy",
	                       json_object_new_string("OldestEmulationVersion"));
	nl_lease_spec cleared = {NULL, 0, 0, 0, -1};
	CU_ASSERT_EQUAL(nl_lease_spec_write(lease, &cleared), 0);
	NL_ASSERT_JSON_EQ(json_object_object_get(lease, "spec"),
	                  "{\"strategy\":\"OldestEmulationVersion\"}");
	CU_ASSERT_EQUAL(nl_lease_spec_read(&out, lease), 0);
	CU_ASSERT_PTR_NULL(out.holder_identity);
	CU_ASSERT_EQUAL(out.lease_transitions, -1);
	json_object_put(lease);
}

static void test_typed__lease_spec_refuses_bad_microtime(void)
{
	nl_lease_spec out = {"keep", 1, 2, 3, 4};
	json_object *lease = nl_test_json("{\"spec\":{\"renewTime\":\"2024-05-01T10:00:00Z\"}}");
	CU_ASSERT_EQUAL(nl_lease_spec_read(&out, lease), NL_EPARSE);
	CU_ASSERT_STRING_EQUAL(out.holder_identity, "keep"); /* untouched */
	json_object_put(lease);
}

static void test_typed__node_condition_transitions(void)
{
	json_object *node;
	CU_ASSERT_EQUAL_FATAL(nl_node_new(&node, "n1"), 0);
	int64_t t0 = 1714557600000000, t1 = t0 + 10000000, t2 = t1 + 10000000;
	CU_ASSERT_EQUAL(nl_node_set_condition(node, "Ready", "True", "KubeletReady", "ok", t0), 0);
	json_object *c = nl_node_condition(node, "Ready");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(c, "lastTransitionTime"), "2024-05-01T10:00:00Z");
	/* Same status: only the heartbeat moves. */
	CU_ASSERT_EQUAL(nl_node_set_condition(node, "Ready", "True", "KubeletReady", "ok", t1), 0);
	c = nl_node_condition(node, "Ready");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(c, "lastHeartbeatTime"), "2024-05-01T10:00:10Z");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(c, "lastTransitionTime"), "2024-05-01T10:00:00Z");
	/* A new status is a transition. */
	CU_ASSERT_EQUAL(nl_node_set_condition(node, "Ready", "False", "KubeletNotReady", "x", t2),
	                0);
	c = nl_node_condition(node, "Ready");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(c, "lastTransitionTime"), "2024-05-01T10:00:20Z");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(c, "reason"), "KubeletNotReady");
	CU_ASSERT_EQUAL(nl_node_set_condition(node, "MemoryPressure", "False", "", "", t2), 0);
	CU_ASSERT_EQUAL(json_object_array_length(nl_json_get_path(node, "status.conditions")), 2);
	CU_ASSERT_PTR_NULL(nl_node_condition(node, "DiskPressure"));
	json_object_put(node);
}

static void test_typed__configmap_data(void)
{
	json_object *cm;
	CU_ASSERT_EQUAL_FATAL(nl_configmap_new(&cm, "default", "cfg"), 0);
	CU_ASSERT_PTR_NULL(nl_configmap_data(cm, "k"));
	CU_ASSERT_EQUAL(nl_configmap_set(cm, "k", "v"), 0);
	CU_ASSERT_EQUAL(nl_configmap_set(cm, "k2", "v2"), 0);
	CU_ASSERT_STRING_EQUAL(nl_configmap_data(cm, "k"), "v");
	CU_ASSERT_EQUAL(nl_configmap_set(cm, "k", NULL), 0);
	NL_ASSERT_JSON_EQ(cm,
	                  "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
	                  "{\"name\":\"cfg\",\"namespace\":\"default\"},\"data\":{\"k2\":\"v2\"}}");
	json_object_put(cm);
}

/* A node event like kubelet's: cluster-scoped object, so namespace default. */
static void test_typed__event_like_the_recorder(void)
{
	json_object *ev;
	nl_event_spec s = {0};
	s.kind = "Node";
	s.name = "n1";
	s.uid = "n1";
	s.type = "Normal";
	s.reason = "NodeReady";
	s.message = "Node n1 status is now: NodeReady";
	s.component = "kubelet";
	s.host = "n1";
	CU_ASSERT_EQUAL_FATAL(nl_event_new(&ev, &s, 1714557600000000), 0);
	NL_ASSERT_JSON_EQ(
	    ev,
	    "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"n1."
	    "17cb550d96f24000\",\"namespace\":\"default\"},\"involvedObject\":{\"kind\":\"Node\","
	    "\"name\":\"n1\",\"uid\":\"n1\"},\"reason\":\"NodeReady\",\"message\":\"Node n1 "
	    "status is now: NodeReady\",\"source\":{\"component\":\"kubelet\",\"host\":\"n1\"},"
	    "\"firstTimestamp\":\"2024-05-01T10:00:00Z\",\"lastTimestamp\":\"2024-05-01T10:00:"
	    "00Z\",\"count\":1,\"type\":\"Normal\",\"reportingComponent\":\"kubelet\","
	    "\"reportingInstance\":\"n1\"}");
	json_object_put(ev);
	nl_event_spec bad = {0};
	CU_ASSERT_EQUAL(nl_event_new(&ev, &bad, 0), NL_EINVAL);
}

static CU_TestInfo tests[] = {
    {"paths", test_typed__paths},
    {"patch_content_types", test_typed__patch_content_types},
    {"lease_spec_round_trip", test_typed__lease_spec_round_trip},
    {"lease_spec_refuses_bad_microtime", test_typed__lease_spec_refuses_bad_microtime},
    {"node_condition_transitions", test_typed__node_condition_transitions},
    {"configmap_data", test_typed__configmap_data},
    {"event_like_the_recorder", test_typed__event_like_the_recorder},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {{"typed", NULL, NULL, NULL, NULL, tests}, CU_SUITE_INFO_NULL};
