/* Pods over HTTP, stored and served but never run, as kube-apiserver 1.32
 * serves them (pkg/registry/core/pod: strategy.go PrepareForCreate,
 * CheckGracefulDelete, PodToSelectableFields; storage/eviction.go;
 * pkg/apis/core/v1/defaults.go; pkg/apis/core/validation ValidatePod*;
 * pkg/printers printPod). The server runs on a clock the tests move by
 * hand and its controllers tick only when told. */
#include <nodelet/meta.h>
#include <stdlib.h>
#include <string.h>

#include "../cu_main.h"
#include "http_client.h"

static mock_server *srv;
static const char *base;
static int64_t now_usec = 1767225600000000; /* 2026-01-01T00:00:00Z */

static int setup(void)
{
	return nl_test_suite_server_on_clock(&srv, &base, &now_usec);
}

static int teardown(void)
{
	mock_server_free(srv);
	return 0;
}

#define PODS "/api/v1/namespaces/default/pods"

static json_object *req(long want, const char *method, const char *path, const char *body)
{
	return nl_http_expect(want, base, method, path, body, NULL);
}

static const char *str(json_object *o, const char *path)
{
	const char *s = nl_json_get_string(o, path);
	return s ? s : "";
}

static int64_t num(json_object *o, const char *path)
{
	return json_object_get_int64(nl_json_get_path(o, path));
}

static void create_pod(const char *name, const char *node)
{
	char body[512];
	snprintf(body, sizeof(body),
	         "{\"metadata\":{\"name\":\"%s\"},\"spec\":{%s%s%s\"containers\":[{\"name\":\"c\","
	         "\"image\":\"busybox:1.36\"}]}}",
	         name, node ? "\"nodeName\":\"" : "", node ? node : "", node ? "\"," : "");
	json_object_put(req(201, "POST", PODS, body));
}

/* A Ready node, as a live kubelet keeps it. */
static void create_node(const char *name)
{
	char body[512];
	snprintf(body, sizeof(body),
	         "{\"metadata\":{\"name\":\"%s\"},\"status\":{\"conditions\":[{\"type\":\"Ready\","
	         "\"status\":\"True\",\"lastHeartbeatTime\":\"2026-01-01T00:00:00Z\"}]}}",
	         name);
	json_object_put(req(201, "POST", "/api/v1/nodes", body));
}

static void test_pods__create_applies_the_defaults(void)
{
	json_object *p = req(201, "POST", PODS,
	                     "{\"metadata\":{\"name\":\"defaults\"},\"spec\":{\"containers\":"
	                     "[{\"name\":\"web\",\"image\":\"nginx\",\"ports\":[{\"containerPort\":"
	                     "80}]},{\"name\":\"side\",\"image\":\"busybox:1.36\"}]}}");
	CU_ASSERT_STRING_EQUAL(str(p, "kind"), "Pod");
	CU_ASSERT_STRING_EQUAL(str(p, "spec.restartPolicy"), "Always");
	CU_ASSERT_STRING_EQUAL(str(p, "spec.dnsPolicy"), "ClusterFirst");
	CU_ASSERT_STRING_EQUAL(str(p, "spec.schedulerName"), "default-scheduler");
	CU_ASSERT_EQUAL(num(p, "spec.terminationGracePeriodSeconds"), 30);
	CU_ASSERT_TRUE(json_object_get_boolean(nl_json_get_path(p, "spec.enableServiceLinks")));
	CU_ASSERT_TRUE(
	    json_object_is_type(nl_json_get_path(p, "spec.securityContext"), json_type_object));
	CU_ASSERT_STRING_EQUAL(str(p, "status.phase"), "Pending");
	CU_ASSERT_STRING_EQUAL(str(p, "status.qosClass"), "BestEffort");
	json_object *c = json_object_array_get_idx(nl_json_get_path(p, "spec.containers"), 0);
	/* :latest or no tag pulls Always, a tag IfNotPresent */
	CU_ASSERT_STRING_EQUAL(str(c, "imagePullPolicy"), "Always");
	CU_ASSERT_STRING_EQUAL(str(c, "terminationMessagePath"), "/dev/termination-log");
	CU_ASSERT_STRING_EQUAL(str(c, "terminationMessagePolicy"), "File");
	CU_ASSERT_STRING_EQUAL(
	    str(json_object_array_get_idx(nl_json_get_path(c, "ports"), 0), "protocol"), "TCP");
	CU_ASSERT_TRUE(json_object_is_type(nl_json_get_path(c, "resources"), json_type_object));
	c = json_object_array_get_idx(nl_json_get_path(p, "spec.containers"), 1);
	CU_ASSERT_STRING_EQUAL(str(c, "imagePullPolicy"), "IfNotPresent");
	json_object_put(p);

	/* Requests and limits make the class. */
	p = req(
	    201, "POST", PODS,
	    "{\"metadata\":{\"name\":\"guaranteed\"},\"spec\":{\"containers\":[{\"name\":\"a\","
	    "\"image\":\"x:1\",\"resources\":{\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}]}}");
	CU_ASSERT_STRING_EQUAL(str(p, "status.qosClass"), "Guaranteed");
	/* SetDefaults_Pod copies limits into missing requests */
	CU_ASSERT_STRING_EQUAL(
	    str(json_object_array_get_idx(nl_json_get_path(p, "spec.containers"), 0),
	        "resources.requests.memory"),
	    "1Gi");
	json_object_put(p);
	p = req(201, "POST", PODS,
	        "{\"metadata\":{\"name\":\"burstable\"},\"spec\":{\"containers\":[{\"name\":\"a\","
	        "\"image\":\"x:1\",\"resources\":{\"requests\":{\"cpu\":\"100m\"}}}]}}");
	CU_ASSERT_STRING_EQUAL(str(p, "status.qosClass"), "Burstable");
	json_object_put(p);
	/* A status sent on create is dropped: the pod starts Pending. */
	p = req(
	    201, "POST", PODS,
	    "{\"metadata\":{\"name\":\"status-sent\"},\"spec\":{\"containers\":[{\"name\":\"a\","
	    "\"image\":\"x:1\"}]},\"status\":{\"phase\":\"Running\",\"podIP\":\"10.0.0.1\"}}");
	CU_ASSERT_STRING_EQUAL(str(p, "status.phase"), "Pending");
	CU_ASSERT_STRING_EQUAL(str(p, "status.podIP"), "");
	json_object_put(p);
}

static void expect_invalid(const char *body, const char *message)
{
	json_object *s = req(422, "POST", PODS, body);
	CU_ASSERT_STRING_EQUAL(str(s, "reason"), "Invalid");
	CU_ASSERT_STRING_EQUAL(str(s, "details.kind"), "Pod");
	CU_ASSERT_STRING_EQUAL(str(s, "message"), message);
	if (strcmp(str(s, "message"), message) != 0)
		fprintf(stderr, "got: %s\n", str(s, "message"));
	json_object_put(s);
}

static void test_pods__validation(void)
{
	expect_invalid("{\"metadata\":{\"name\":\"none\"},\"spec\":{}}",
	               "Pod \"none\" is invalid: spec.containers: Required value");
	expect_invalid("{\"metadata\":{\"name\":\"noimage\"},\"spec\":{\"containers\":[{\"name\":"
	               "\"a\"}]}}",
	               "Pod \"noimage\" is invalid: spec.containers[0].image: Required value");
	expect_invalid("{\"metadata\":{\"name\":\"noname\"},\"spec\":{\"containers\":[{\"image\":"
	               "\"x\"}]}}",
	               "Pod \"noname\" is invalid: spec.containers[0].name: Required value");
	expect_invalid("{\"metadata\":{\"name\":\"dup\"},\"spec\":{\"containers\":[{\"name\":\"a\","
	               "\"image\":\"x\"},{\"name\":\"a\",\"image\":\"y\"}]}}",
	               "Pod \"dup\" is invalid: spec.containers[1].name: Duplicate value: \"a\"");
	expect_invalid(
	    "{\"metadata\":{\"name\":\"badname\"},\"spec\":{\"containers\":[{\"name\":\"A_b\","
	    "\"image\":\"x\"}]}}",
	    "Pod \"badname\" is invalid: spec.containers[0].name: Invalid value: \"A_b\": a "
	    "lowercase "
	    "RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
	    "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
	    "used "
	    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
	expect_invalid(
	    "{\"metadata\":{\"name\":\"policy\"},\"spec\":{\"restartPolicy\":\"Sometimes\","
	    "\"containers\":[{\"name\":\"a\",\"image\":\"x\"}]}}",
	    "Pod \"policy\" is invalid: spec.restartPolicy: Unsupported value: "
	    "\"Sometimes\": supported values: \"Always\", \"OnFailure\", \"Never\"");
	expect_invalid(
	    "{\"metadata\":{\"name\":\"Upper\"},\"spec\":{\"containers\":[{\"name\":\"a\","
	    "\"image\":\"x\"}]}}",
	    "Pod \"Upper\" is invalid: metadata.name: Invalid value: \"Upper\": a "
	    "lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
	    "characters, '-' or '.', and must start and end with an alphanumeric "
	    "character (e.g. 'example.com', regex used for validation is "
	    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
	json_object_put(req(404, "GET", PODS "/none", NULL));
}

static size_t list_count(const char *query)
{
	char path[512];
	snprintf(path, sizeof(path), "/api/v1/pods?fieldSelector=%s", query);
	json_object *l = req(200, "GET", path, NULL);
	size_t n = json_object_array_length(nl_json_get_path(l, "items"));
	json_object_put(l);
	return n;
}

static void test_pods__field_selectors(void)
{
	create_pod("sel-a", "sel-node");
	create_pod("sel-b", "sel-node");
	create_pod("sel-c", "other-node");
	json_object *g = req(200, "GET", PODS "/sel-b", NULL);
	json_object_object_add(nl_json_get_path(g, "status"), "phase",
	                       json_object_new_string("Succeeded"));
	json_object_put(req(200, "PUT", PODS "/sel-b/status", json_object_to_json_string(g)));
	json_object_put(g);
	CU_ASSERT_EQUAL(list_count("spec.nodeName%3Dsel-node"), 2);
	/* kubectl describe node's query */
	CU_ASSERT_EQUAL(list_count("spec.nodeName%3Dsel-node%2Cstatus.phase%21%3DSucceeded%2C"
	                           "status.phase%21%3DFailed"),
	                1);
	CU_ASSERT_EQUAL(
	    list_count("spec.nodeName%3Dother-node%2Cspec.restartPolicy%3DAlways%2C"
	               "spec.schedulerName%3Ddefault-scheduler%2Cspec.hostNetwork%3Dfalse"),
	    1);
	CU_ASSERT_EQUAL(list_count("spec.serviceAccountName%3D%2Cstatus.podIP%3D%2C"
	                           "status.nominatedNodeName%3D%2Cmetadata.name%3Dsel-c"),
	                1);
	json_object *s = req(400, "GET", "/api/v1/pods?fieldSelector=spec.containers%3Dx", NULL);
	CU_ASSERT_STRING_EQUAL(str(s, "message"), "field label not supported: spec.containers");
	json_object_put(s);
}

static void test_pods__status_subresource_keeps_the_spec(void)
{
	create_pod("st", NULL);
	json_object *g = req(200, "GET", PODS "/st", NULL);
	json_object_object_add(nl_json_get_path(g, "status"), "phase",
	                       json_object_new_string("Running"));
	json_object_object_add(nl_json_get_path(g, "spec"), "nodeName",
	                       json_object_new_string("sneaky"));
	json_object *u = req(200, "PUT", PODS "/st/status", json_object_to_json_string(g));
	CU_ASSERT_STRING_EQUAL(str(u, "status.phase"), "Running");
	CU_ASSERT_STRING_EQUAL(str(u, "spec.nodeName"), "");
	json_object_put(u);
	json_object_put(g);
}

/* A strategic merge patch merges containers by name (PodSpec's
 * patchMergeKey tag): the image of one container changes, the other
 * container and the first one's env stay. */
static void test_pods__strategic_patch_merges_containers(void)
{
	json_object_put(req(201, "POST", PODS,
	                    "{\"metadata\":{\"name\":\"smp\"},\"spec\":{\"containers\":[{"
	                    "\"name\":\"a\",\"image\":\"busybox:1.36\",\"env\":[{\"name\":"
	                    "\"X\",\"value\":\"1\"}]},{\"name\":\"b\",\"image\":"
	                    "\"busybox:1.36\"}]}}"));
	json_object *p = nl_http_expect(
	    200, base, "PATCH", PODS "/smp",
	    "{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"busybox:1.37\"}]}}",
	    "application/strategic-merge-patch+json");
	json_object *cs = nl_json_get_path(p, "spec.containers");
	CU_ASSERT_TRUE_FATAL(json_object_is_type(cs, json_type_array));
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(cs), 2);
	json_object *a = json_object_array_get_idx(cs, 0);
	CU_ASSERT_STRING_EQUAL(str(a, "name"), "a");
	CU_ASSERT_STRING_EQUAL(str(a, "image"), "busybox:1.37");
	CU_ASSERT_STRING_EQUAL(
	    str(json_object_array_get_idx(nl_json_get_path(a, "env"), 0), "name"), "X");
	CU_ASSERT_STRING_EQUAL(str(json_object_array_get_idx(cs, 1), "image"), "busybox:1.36");
	json_object_put(p);
}

static void test_pods__table(void)
{
	create_pod("tbl", "tbl-node");
	static const char *const accept[] = {"Accept: application/json;as=Table;v=v1;g=meta.k8s.io",
	                                     NULL};
	nl_http_resp r;
	CU_ASSERT_EQUAL_FATAL(nl_http_ex(&r, base, "GET", PODS "/tbl", NULL, NULL, accept), 0);
	json_object *t = nl_http_json(&r);
	nl_http_resp_free(&r);
	json_object *cols = nl_json_get_path(t, "columnDefinitions");
	const char *want[] = {"Name", "Ready", "Status",         "Restarts",       "Age",
	                      "IP",   "Node",  "Nominated Node", "Readiness Gates"};
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(cols), 9);
	for (size_t i = 0; i < 9; i++)
		CU_ASSERT_STRING_EQUAL(str(json_object_array_get_idx(cols, i), "name"), want[i]);
	json_object *cells =
	    nl_json_get_path(json_object_array_get_idx(nl_json_get_path(t, "rows"), 0), "cells");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(cells, 1)), "0/1");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(cells, 2)),
	                       "Pending");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(cells, 3)), "0");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(cells, 5)),
	                       "<none>");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(cells, 6)),
	                       "tbl-node");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(cells, 7)),
	                       "<none>");
	json_object_put(t);
}

static void test_pods__delete_unbound_answers_the_pod(void)
{
	create_pod("unbound", NULL);
	json_object *d = req(200, "DELETE", PODS "/unbound", NULL);
	/* ReturnDeletedObject: the pod, not a Status */
	CU_ASSERT_STRING_EQUAL(str(d, "kind"), "Pod");
	CU_ASSERT_STRING_EQUAL(str(d, "metadata.name"), "unbound");
	json_object_put(d);
	json_object_put(req(404, "GET", PODS "/unbound", NULL));
}

static void test_pods__delete_bound_is_graceful(void)
{
	create_node("grace-node");
	create_pod("bound", "grace-node");
	json_object *d = req(200, "DELETE", PODS "/bound", NULL);
	CU_ASSERT_STRING_EQUAL(str(d, "kind"), "Pod");
	/* now + terminationGracePeriodSeconds */
	CU_ASSERT_STRING_EQUAL(str(d, "metadata.deletionTimestamp"), "2026-01-01T00:00:30Z");
	CU_ASSERT_EQUAL(num(d, "metadata.deletionGracePeriodSeconds"), 30);
	json_object_put(d);
	/* A longer grace period changes nothing, a shorter one moves it. */
	json_object_put(req(200, "DELETE", PODS "/bound", "{\"gracePeriodSeconds\":60}"));
	d = req(200, "DELETE", PODS "/bound", "{\"gracePeriodSeconds\":10}");
	CU_ASSERT_STRING_EQUAL(str(d, "metadata.deletionTimestamp"), "2026-01-01T00:00:10Z");
	CU_ASSERT_EQUAL(num(d, "metadata.deletionGracePeriodSeconds"), 10);
	json_object_put(d);
	json_object_put(req(200, "GET", PODS "/bound", NULL));
	/* The node's kubelet (the mock's stand-in) confirms at its next pass. */
	CU_ASSERT(mock_server_tick(srv) >= 0);
	json_object_put(req(404, "GET", PODS "/bound", NULL));

	/* gracePeriodSeconds 0 deletes a bound pod at once. */
	create_pod("bound-now", "grace-node");
	d = req(200, "DELETE", PODS "/bound-now?gracePeriodSeconds=0", NULL);
	CU_ASSERT_STRING_EQUAL(str(d, "kind"), "Pod");
	json_object_put(d);
	json_object_put(req(404, "GET", PODS "/bound-now", NULL));
}

static void test_pods__eviction(void)
{
	create_pod("evict-me", NULL);
	json_object *s =
	    req(201, "POST", PODS "/evict-me/eviction",
	        "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":"
	        "\"evict-me\",\"namespace\":\"default\"}}");
	CU_ASSERT_STRING_EQUAL(str(s, "kind"), "Status");
	CU_ASSERT_STRING_EQUAL(str(s, "status"), "Success");
	CU_ASSERT_EQUAL(num(s, "code"), 201);
	json_object_put(s);
	json_object_put(req(404, "GET", PODS "/evict-me", NULL));

	s = req(404, "POST", PODS "/ghost/eviction",
	        "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":"
	        "\"ghost\"}}");
	CU_ASSERT_STRING_EQUAL(str(s, "message"), "pods \"ghost\" not found");
	json_object_put(s);

	create_pod("evict-other", NULL);
	s = req(400, "POST", PODS "/evict-other/eviction",
	        "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":"
	        "\"someone\"}}");
	CU_ASSERT_STRING_EQUAL(str(s, "message"),
	                       "name in URL does not match name in Eviction object");
	json_object_put(s);

	/* A bound pod is marked for deletion with the DisruptionTarget condition. */
	create_node("evict-node");
	create_pod("evict-bound", "evict-node");
	json_object_put(req(201, "POST", PODS "/evict-bound/eviction",
	                    "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{"
	                    "\"name\":\"evict-bound\"},\"deleteOptions\":{"
	                    "\"gracePeriodSeconds\":5}}"));
	json_object *g = req(200, "GET", PODS "/evict-bound", NULL);
	CU_ASSERT_EQUAL(num(g, "metadata.deletionGracePeriodSeconds"), 5);
	json_object *c = json_object_array_get_idx(nl_json_get_path(g, "status.conditions"), 0);
	CU_ASSERT_STRING_EQUAL(str(c, "type"), "DisruptionTarget");
	CU_ASSERT_STRING_EQUAL(str(c, "status"), "True");
	CU_ASSERT_STRING_EQUAL(str(c, "reason"), "EvictionByEvictionAPI");
	CU_ASSERT_STRING_EQUAL(str(c, "message"), "Eviction API: evicting");
	json_object_put(g);
	/* Only POST is served there. */
	json_object_put(req(405, "GET", PODS "/evict-bound/eviction", NULL));
}

/* A node the lifecycle controller found unreachable at now. */
static void create_tainted_node(const char *name, const char *extra_taint)
{
	char body[1024];
	snprintf(body, sizeof(body),
	         "{\"metadata\":{\"name\":\"%s\"},\"spec\":{\"taints\":[{\"key\":"
	         "\"node.kubernetes.io/unreachable\",\"effect\":\"NoExecute\",\"timeAdded\":"
	         "\"2026-01-01T00:00:00Z\"}%s]},\"status\":{\"conditions\":[{\"type\":"
	         "\"Ready\",\"status\":\"Unknown\",\"lastHeartbeatTime\":"
	         "\"2026-01-01T00:00:00Z\"}]}}",
	         name, extra_taint);
	json_object_put(req(201, "POST", "/api/v1/nodes", body));
}

static void create_pod_tolerating(const char *name, const char *node, const char *tolerations)
{
	char body[1024];
	snprintf(body, sizeof(body),
	         "{\"metadata\":{\"name\":\"%s\"},\"spec\":{\"nodeName\":\"%s\","
	         "\"tolerations\":%s,\"containers\":[{\"name\":\"c\",\"image\":\"x:1\"}]}}",
	         name, node, tolerations);
	json_object_put(req(201, "POST", PODS, body));
}

static int being_deleted(const char *name)
{
	char path[256];
	snprintf(path, sizeof(path), PODS "/%s", name);
	json_object *g = req(200, "GET", path, NULL);
	int d = nl_json_get_string(g, "metadata.deletionTimestamp") != NULL;
	json_object *conds = nl_json_get_path(g, "status.conditions");
	json_object *c = json_object_is_type(conds, json_type_array)
	                     ? json_object_array_get_idx(conds, 0)
	                     : NULL;
	if (d) {
		CU_ASSERT_STRING_EQUAL(str(c, "type"), "DisruptionTarget");
		CU_ASSERT_STRING_EQUAL(str(c, "reason"), "DeletionByTaintManager");
		CU_ASSERT_STRING_EQUAL(str(c, "message"),
		                       "Taint manager: deleting due to NoExecute taint");
	}
	json_object_put(g);
	return d;
}

static void test_pods__default_tolerations_and_taint_eviction(void)
{
	int64_t start = now_usec;
	now_usec = 1767225600000000; /* the taints' timeAdded */
	create_tainted_node("dead-node", "");
	create_tainted_node("custom-node", ",{\"key\":\"example.com/drain\",\"effect\":"
	                                   "\"NoExecute\",\"timeAdded\":\"2026-01-01T00:00:00Z\"}");
	/* DefaultTolerationSeconds: 300 s for both taints */
	create_pod("five-minutes", "dead-node");
	json_object *g = req(200, "GET", PODS "/five-minutes", NULL);
	json_object *t = json_object_array_get_idx(nl_json_get_path(g, "spec.tolerations"), 1);
	CU_ASSERT_STRING_EQUAL(str(t, "key"), "node.kubernetes.io/unreachable");
	CU_ASSERT_STRING_EQUAL(str(t, "operator"), "Exists");
	CU_ASSERT_STRING_EQUAL(str(t, "effect"), "NoExecute");
	CU_ASSERT_EQUAL(num(t, "tolerationSeconds"), 300);
	json_object_put(g);
	/* a toleration of its own for one taint keeps it; the other is added */
	create_pod_tolerating("one-minute", "dead-node",
	                      "[{\"key\":\"node.kubernetes.io/unreachable\",\"operator\":"
	                      "\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":60}]");
	g = req(200, "GET", PODS "/one-minute", NULL);
	CU_ASSERT_EQUAL(json_object_array_length(nl_json_get_path(g, "spec.tolerations")), 2);
	json_object_put(g);
	create_pod_tolerating("forever", "dead-node", "[{\"operator\":\"Exists\"}]");
	create_pod("intolerant", "custom-node");

	CU_ASSERT(mock_server_tick(srv) >= 0);
	CU_ASSERT_TRUE(being_deleted("intolerant"));
	CU_ASSERT_FALSE(being_deleted("one-minute"));
	CU_ASSERT_FALSE(being_deleted("five-minutes"));
	now_usec += 60 * 1000000LL;
	CU_ASSERT(mock_server_tick(srv) >= 0);
	CU_ASSERT_TRUE(being_deleted("one-minute"));
	CU_ASSERT_FALSE(being_deleted("five-minutes"));
	now_usec += 240 * 1000000LL;
	CU_ASSERT(mock_server_tick(srv) >= 0);
	/* deleted gracefully; the node's kubelet is down, so it stays Terminating */
	CU_ASSERT_TRUE(being_deleted("five-minutes"));
	CU_ASSERT_FALSE(being_deleted("forever"));
	now_usec = start;
}

static int has_resource(json_object *list, const char *name, const char *group, const char *kind)
{
	json_object *items = nl_json_get_path(list, "resources");
	for (size_t i = 0; i < json_object_array_length(items); i++) {
		json_object *r = json_object_array_get_idx(items, i);
		if (strcmp(str(r, "name"), name) == 0)
			return strcmp(str(r, "group"), group) == 0 &&
			       strcmp(str(r, "kind"), kind) == 0;
	}
	return 0;
}

static void test_pods__discovery(void)
{
	json_object *l = req(200, "GET", "/api/v1", NULL);
	CU_ASSERT_TRUE(has_resource(l, "pods", "", "Pod"));
	CU_ASSERT_TRUE(has_resource(l, "pods/status", "", "Pod"));
	CU_ASSERT_TRUE(has_resource(l, "pods/eviction", "policy", "Eviction"));
	json_object_put(l);
}

static CU_TestInfo tests[] = {
    {"create_applies_the_defaults", test_pods__create_applies_the_defaults},
    {"validation", test_pods__validation},
    {"field_selectors", test_pods__field_selectors},
    {"status_subresource_keeps_the_spec", test_pods__status_subresource_keeps_the_spec},
    {"strategic_patch_merges_containers", test_pods__strategic_patch_merges_containers},
    {"table", test_pods__table},
    {"delete_unbound_answers_the_pod", test_pods__delete_unbound_answers_the_pod},
    {"delete_bound_is_graceful", test_pods__delete_bound_is_graceful},
    {"eviction", test_pods__eviction},
    {"discovery", test_pods__discovery},
    {"default_tolerations_and_taint_eviction", test_pods__default_tolerations_and_taint_eviction},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"pods", setup, teardown, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
