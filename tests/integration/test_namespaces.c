/* Namespaces over HTTP as kube-apiserver 1.32 serves them
 * (pkg/registry/core/namespace: strategy.go, storage/storage.go) and as
 * kube-controller-manager's namespace controller empties them
 * (pkg/controller/namespace/deletion): update and patch keep spec and
 * status, /status and /finalize change one each, a DELETE puts the
 * namespace in Terminating, NamespaceLifecycle refuses creates in it, and
 * the controller deletes the content, reports the conditions and
 * finalizes. The server runs on a clock the tests move by hand and ticks
 * only when told. */
#include <nodelet/meta.h>
#include <nodelet/time.h>
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

#define NS "/api/v1/namespaces"

static json_object *req(long want, const char *method, const char *path, const char *body)
{
	return nl_http_expect(want, base, method, path, body, NULL);
}

static const char *str(json_object *o, const char *path)
{
	const char *s = nl_json_get_string(o, path);
	return s ? s : "";
}

/* The array at path as one comma-joined string. */
static const char *joined(char *out, size_t cap, json_object *o, const char *path)
{
	json_object *a = nl_json_get_path(o, path);
	size_t n = 0;
	out[0] = '\0';
	for (size_t i = 0;
	     json_object_is_type(a, json_type_array) && i < json_object_array_length(a); i++)
		n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%s", i ? "," : "",
		                      json_object_get_string(json_object_array_get_idx(a, i)));
	return out;
}

static void create_ns(const char *name)
{
	char body[256];
	snprintf(body, sizeof(body), "{\"metadata\":{\"name\":\"%s\"}}", name);
	json_object_put(req(201, "POST", NS, body));
}

static void create_cm(const char *ns, const char *name, const char *finalizers)
{
	char body[512], path[256];
	snprintf(path, sizeof(path), NS "/%s/configmaps", ns);
	snprintf(body, sizeof(body), "{\"metadata\":{\"name\":\"%s\",\"finalizers\":%s}}", name,
	         finalizers);
	json_object_put(req(201, "POST", path, body));
}

/* The condition of type in the namespace's status, or NULL. */
static json_object *condition(json_object *ns, const char *type)
{
	json_object *conds = nl_json_get_path(ns, "status.conditions");
	for (size_t i = 0;
	     json_object_is_type(conds, json_type_array) && i < json_object_array_length(conds);
	     i++) {
		json_object *c = json_object_array_get_idx(conds, i);
		if (strcmp(str(c, "type"), type) == 0)
			return c;
	}
	return NULL;
}

static void advance(int seconds)
{
	now_usec += (int64_t)seconds * 1000000;
	mock_server_tick(srv);
}

static void test_namespaces__create_sets_the_kubernetes_finalizer_and_active(void)
{
	char buf[128];
	json_object *o = req(201, "POST", NS,
	                     "{\"metadata\":{\"name\":\"c1\"},\"spec\":{\"finalizers\":"
	                     "[\"example.com/x\"]},\"status\":{\"phase\":\"Terminating\"}}");
	CU_ASSERT_STRING_EQUAL(joined(buf, sizeof(buf), o, "spec.finalizers"),
	                       "example.com/x,kubernetes");
	CU_ASSERT_STRING_EQUAL(str(o, "status.phase"), "Active");
	json_object_put(o);
}

/* Update and every patch type change metadata; spec.finalizers and status
 * keep their stored values (namespaceStrategy.PrepareForUpdate). */
static void test_namespaces__update_and_patch_keep_spec_and_status(void)
{
	char buf[128];
	create_ns("u1");
	json_object *o =
	    req(200, "PUT", NS "/u1",
	        "{\"metadata\":{\"name\":\"u1\",\"labels\":{\"a\":\"1\"}},"
	        "\"spec\":{\"finalizers\":[]},\"status\":{\"phase\":\"Terminating\"}}");
	CU_ASSERT_STRING_EQUAL(str(o, "metadata.labels.a"), "1");
	CU_ASSERT_STRING_EQUAL(joined(buf, sizeof(buf), o, "spec.finalizers"), "kubernetes");
	CU_ASSERT_STRING_EQUAL(str(o, "status.phase"), "Active");
	json_object_put(o);

	static const struct {
		const char *type, *body, *label;
	} patches[] = {
	    {"application/merge-patch+json", "{\"metadata\":{\"labels\":{\"b\":\"2\"}}}", "b"},
	    {"application/strategic-merge-patch+json",
	     "{\"metadata\":{\"labels\":{\"c\":\"3\"}},\"spec\":{\"finalizers\":null}}", "c"},
	    {"application/json-patch+json",
	     "[{\"op\":\"add\",\"path\":\"/metadata/labels/d\",\"value\":\"4\"}]", "d"},
	};
	for (size_t i = 0; i < sizeof(patches) / sizeof(patches[0]); i++) {
		char path[64];
		snprintf(path, sizeof(path), "metadata.labels.%s", patches[i].label);
		o = nl_http_expect(200, base, "PATCH", NS "/u1", patches[i].body, patches[i].type);
		CU_ASSERT_STRING_NOT_EQUAL(str(o, path), "");
		CU_ASSERT_STRING_EQUAL(joined(buf, sizeof(buf), o, "spec.finalizers"),
		                       "kubernetes");
		json_object_put(o);
	}
	o = nl_http_expect(201, base, "PATCH", NS "/u2?fieldManager=t",
	                   "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":"
	                   "{\"name\":\"u2\",\"labels\":{\"e\":\"5\"}}}",
	                   "application/apply-patch+yaml");
	CU_ASSERT_STRING_EQUAL(str(o, "metadata.labels.e"), "5");
	CU_ASSERT_STRING_EQUAL(str(o, "status.phase"), "Active");
	json_object_put(o);
}

/* /status changes only status, with the phase rule of
 * ValidateNamespaceStatusUpdate; /finalize changes spec.finalizers and
 * keeps status; /finalize serves PUT only. */
static void test_namespaces__status_and_finalize_subresources(void)
{
	char buf[128];
	create_ns("s1");
	json_object *o = req(200, "PUT", NS "/s1/status",
	                     "{\"metadata\":{\"name\":\"s1\"},\"spec\":{\"finalizers\":[]},"
	                     "\"status\":{\"phase\":\"Active\",\"conditions\":[{\"type\":\"X\","
	                     "\"status\":\"True\"}]}}");
	CU_ASSERT_PTR_NOT_NULL(condition(o, "X"));
	CU_ASSERT_STRING_EQUAL(joined(buf, sizeof(buf), o, "spec.finalizers"), "kubernetes");
	json_object_put(o);
	o = req(422, "PUT", NS "/s1/status",
	        "{\"metadata\":{\"name\":\"s1\"},\"status\":{\"phase\":\"Terminating\"}}");
	CU_ASSERT_STRING_EQUAL(
	    str(o, "message"),
	    "Namespace \"s1\" is invalid: status.Phase: Invalid value: "
	    "\"Terminating\": may only be 'Active' if `deletionTimestamp` is empty");
	json_object_put(o);
	o = nl_http_expect(200, base, "PATCH", NS "/s1/status",
	                   "{\"status\":{\"conditions\":null}}", "application/merge-patch+json");
	CU_ASSERT_PTR_NULL(condition(o, "X"));
	json_object_put(o);
	o = req(200, "GET", NS "/s1/status", NULL);
	CU_ASSERT_STRING_EQUAL(str(o, "kind"), "Namespace");
	json_object_put(o);

	o = req(200, "PUT", NS "/s1/finalize",
	        "{\"metadata\":{\"name\":\"s1\"},\"spec\":{\"finalizers\":[\"example.com/f\"]},"
	        "\"status\":{\"phase\":\"Terminating\"}}");
	CU_ASSERT_STRING_EQUAL(joined(buf, sizeof(buf), o, "spec.finalizers"), "example.com/f");
	CU_ASSERT_STRING_EQUAL(str(o, "status.phase"), "Active");
	json_object_put(o);
	o = req(422, "PUT", NS "/s1/finalize",
	        "{\"metadata\":{\"name\":\"s1\"},\"spec\":{\"finalizers\":[\"nope\"]}}");
	CU_ASSERT_PTR_NOT_NULL(strstr(str(o, "message"), "Invalid value: \"nope\": name is "
	                                                 "neither a standard finalizer name nor "
	                                                 "is it fully qualified"));
	json_object_put(o);
	json_object_put(req(405, "GET", NS "/s1/finalize", NULL));
	json_object_put(nl_http_expect(405, base, "PATCH", NS "/s1/finalize", "{}",
	                               "application/merge-patch+json"));
}

/* NamespaceLifecycle: the three immortal namespaces cannot be deleted. */
static void test_namespaces__immortal_namespaces_are_forbidden(void)
{
	static const char *const names[] = {"default", "kube-system", "kube-public"};
	for (size_t i = 0; i < 3; i++) {
		char path[64], msg[128];
		snprintf(path, sizeof(path), NS "/%s", names[i]);
		json_object *o = req(403, "DELETE", path, NULL);
		snprintf(msg, sizeof(msg),
		         "namespaces \"%s\" is forbidden: this namespace may not be "
		         "deleted",
		         names[i]);
		CU_ASSERT_STRING_EQUAL(str(o, "message"), msg);
		CU_ASSERT_STRING_EQUAL(str(o, "reason"), "Forbidden");
		CU_ASSERT_STRING_EQUAL(str(o, "details.kind"), "namespaces");
		json_object_put(o);
	}
}

static void test_namespaces__delete_preconditions(void)
{
	create_ns("p1");
	json_object *o = req(409, "DELETE", NS "/p1", "{\"preconditions\":{\"uid\":\"nope\"}}");
	CU_ASSERT_PTR_NOT_NULL(strstr(str(o, "message"),
	                              "Operation cannot be fulfilled on namespaces \"p1\": "
	                              "Precondition failed: UID in precondition: nope, UID in "
	                              "object meta: "));
	json_object_put(o);
	o = req(409, "DELETE", NS "/p1", "{\"preconditions\":{\"resourceVersion\":\"1\"}}");
	CU_ASSERT_PTR_NOT_NULL(strstr(str(o, "message"), "Precondition failed: ResourceVersion in "
	                                                 "precondition: 1, ResourceVersion in "
	                                                 "object meta: "));
	json_object_put(o);
	o = req(200, "GET", NS "/p1", NULL);
	CU_ASSERT_PTR_NULL(nl_json_get_path(o, "metadata.deletionTimestamp"));
	json_object_put(o);
}

/* The whole life of an empty-ish namespace: DELETE marks it, creates in it
 * are refused, the controller waits its 5 s, deletes the content and
 * finalizes, and the namespace is gone. */
static void test_namespaces__delete_terminates_then_the_controller_removes(void)
{
	char buf[128];
	create_ns("t1");
	create_cm("t1", "a", "[]");
	json_object *o = req(200, "DELETE", NS "/t1", NULL);
	CU_ASSERT_STRING_EQUAL(str(o, "kind"), "Namespace");
	CU_ASSERT_STRING_EQUAL(str(o, "status.phase"), "Terminating");
	CU_ASSERT_STRING_NOT_EQUAL(str(o, "metadata.deletionTimestamp"), "");
	CU_ASSERT_PTR_NULL(nl_json_get_path(o, "metadata.deletionGracePeriodSeconds"));
	CU_ASSERT_STRING_EQUAL(joined(buf, sizeof(buf), o, "spec.finalizers"), "kubernetes");
	json_object_put(o);

	/* Another DELETE answers the namespace as it is. */
	o = req(200, "DELETE", NS "/t1", NULL);
	CU_ASSERT_STRING_EQUAL(str(o, "status.phase"), "Terminating");
	json_object_put(o);

	o = req(403, "POST", NS "/t1/configmaps", "{\"metadata\":{\"name\":\"late\"}}");
	CU_ASSERT_STRING_EQUAL(str(o, "message"),
	                       "configmaps \"late\" is forbidden: unable to create new content in "
	                       "namespace t1 because it is being terminated");
	CU_ASSERT_STRING_EQUAL(str(o, "reason"), "Forbidden");
	CU_ASSERT_STRING_EQUAL(str(o, "details.name"), "late");
	CU_ASSERT_STRING_EQUAL(str(o, "details.kind"), "configmaps");
	json_object *causes = nl_json_get_path(o, "details.causes");
	json_object *cause = json_object_is_type(causes, json_type_array)
	                         ? json_object_array_get_idx(causes, 0)
	                         : NULL;
	CU_ASSERT_STRING_EQUAL(str(cause, "reason"), "NamespaceTerminating");
	CU_ASSERT_STRING_EQUAL(str(cause, "message"), "namespace t1 is being terminated");
	CU_ASSERT_STRING_EQUAL(str(cause, "field"), "metadata.namespace");
	json_object_put(o);
	/* a Lease's create-on-update is a create too */
	json_object_put(req(403, "PUT", "/apis/coordination.k8s.io/v1/namespaces/t1/leases/l",
	                    "{\"metadata\":{\"name\":\"l\"}}"));

	/* The controller waits 5 s after the change (namespaceDeletionGracePeriod). */
	advance(4);
	json_object_put(req(200, "GET", NS "/t1/configmaps/a", NULL));
	advance(1);
	json_object_put(req(404, "GET", NS "/t1/configmaps/a", NULL));
	json_object_put(req(404, "GET", NS "/t1", NULL));
	/* and the name can be used again */
	create_ns("t1");
}

/* Content with finalizers keeps the namespace, with the conditions
 * upstream reports; once it goes, the next sync (8 s later) finalizes. */
static void test_namespaces__content_with_finalizers_keeps_it(void)
{
	create_ns("f1");
	create_cm("f1", "held", "[\"example.com/hold\"]");
	create_cm("f1", "free", "[]");
	json_object_put(req(200, "DELETE", NS "/f1", NULL));
	advance(5);
	json_object_put(req(404, "GET", NS "/f1/configmaps/free", NULL));
	json_object *cm = req(200, "GET", NS "/f1/configmaps/held", NULL);
	CU_ASSERT_STRING_NOT_EQUAL(str(cm, "metadata.deletionTimestamp"), "");
	json_object_put(cm);

	json_object *o = req(200, "GET", NS "/f1", NULL);
	static const struct {
		const char *type, *status, *reason, *message;
	} want[] = {
	    {"NamespaceDeletionDiscoveryFailure", "False", "ResourcesDiscovered",
	     "All resources successfully discovered"},
	    {"NamespaceDeletionGroupVersionParsingFailure", "False", "ParsedGroupVersions",
	     "All legacy kube types successfully parsed"},
	    {"NamespaceDeletionContentFailure", "False", "ContentDeleted",
	     "All content successfully deleted, may be waiting on finalization"},
	    {"NamespaceContentRemaining", "True", "SomeResourcesRemain",
	     "Some resources are remaining: configmaps. has 1 resource instances"},
	    {"NamespaceFinalizersRemaining", "True", "SomeFinalizersRemain",
	     "Some content in the namespace has finalizers remaining: example.com/hold in 1 "
	     "resource instances"},
	};
	json_object *conds = nl_json_get_path(o, "status.conditions");
	CU_ASSERT_EQUAL_FATAL(json_object_is_type(conds, json_type_array), 1);
	CU_ASSERT_EQUAL(json_object_array_length(conds), 5);
	for (size_t i = 0; i < 5 && i < json_object_array_length(conds); i++) {
		json_object *c = json_object_array_get_idx(conds, i);
		CU_ASSERT_STRING_EQUAL(str(c, "type"), want[i].type);
		CU_ASSERT_STRING_EQUAL(str(c, "status"), want[i].status);
		CU_ASSERT_STRING_EQUAL(str(c, "reason"), want[i].reason);
		CU_ASSERT_STRING_EQUAL(str(c, "message"), want[i].message);
		CU_ASSERT_STRING_NOT_EQUAL(str(c, "lastTransitionTime"), "");
	}
	CU_ASSERT_STRING_EQUAL(str(o, "status.phase"), "Terminating");
	json_object_put(o);

	/* Its own status write queued it 5 s on; that sync changes nothing,
	 * so the next is the requeue 8 s later. */
	advance(5);
	json_object_put(nl_http_expect(200, base, "PATCH", NS "/f1/configmaps/held",
	                               "{\"metadata\":{\"finalizers\":null}}",
	                               "application/merge-patch+json"));
	advance(7);
	json_object_put(req(200, "GET", NS "/f1", NULL));
	advance(1);
	json_object_put(req(404, "GET", NS "/f1", NULL));
}

/* Another finalizer in spec.finalizers keeps the namespace after the
 * controller removed "kubernetes"; removing it through /finalize deletes
 * the namespace (ShouldDeleteNamespaceDuringUpdate). */
static void test_namespaces__other_spec_finalizer_keeps_it(void)
{
	char buf[128];
	json_object_put(req(201, "POST", NS,
	                    "{\"metadata\":{\"name\":\"o1\"},\"spec\":{\"finalizers\":"
	                    "[\"example.com/x\"]}}"));
	json_object_put(req(200, "DELETE", NS "/o1", NULL));
	advance(5);
	json_object *o = req(200, "GET", NS "/o1", NULL);
	CU_ASSERT_STRING_EQUAL(joined(buf, sizeof(buf), o, "spec.finalizers"), "example.com/x");
	json_object_put(o);
	json_object_put(req(200, "PUT", NS "/o1/finalize",
	                    "{\"metadata\":{\"name\":\"o1\"},\"spec\":{\"finalizers\":[]}}"));
	json_object_put(req(404, "GET", NS "/o1", NULL));
}

/* The watch events for namespace name since rv, as letters: A(DDED),
 * M(ODIFIED), D(ELETED). The watch ends after a second. */
static void ns_events_since(char *out, size_t outlen, const char *rv, const char *name)
{
	char path[256];
	nl_http_resp r;
	size_t n = 0;
	snprintf(path, sizeof(path), NS "?watch=1&resourceVersion=%s&timeoutSeconds=1", rv);
	CU_ASSERT_EQUAL_FATAL(nl_http(&r, base, "GET", path, NULL, NULL), 0);
	for (char *line = strtok(r.body, "\n"); line && n + 1 < outlen; line = strtok(NULL, "\n")) {
		json_object *ev = json_tokener_parse(line);
		if (ev && strcmp(str(ev, "object.metadata.name"), name) == 0)
			out[n++] = str(ev, "type")[0];
		json_object_put(ev);
	}
	out[n] = '\0';
	nl_http_resp_free(&r);
}

/* Watchers see the DELETE's MODIFIED, the controller's status write, and
 * one DELETED when /finalize takes the last finalizer. */
static void test_namespaces__watch_sees_termination_then_deleted(void)
{
	json_object *l = req(200, "GET", NS, NULL);
	char *rv = strdup(str(l, "metadata.resourceVersion"));
	json_object_put(l);
	create_ns("w1");
	json_object_put(req(200, "DELETE", NS "/w1", NULL));
	advance(5);
	json_object_put(req(404, "GET", NS "/w1", NULL));
	char evs[16];
	ns_events_since(evs, sizeof(evs), rv, "w1");
	CU_ASSERT_STRING_EQUAL(evs, "AMMD");
	free(rv);
}

/* dryRun=All answers the Terminating namespace and changes nothing;
 * propagationPolicy Orphan puts the orphan finalizer on it. */
static void test_namespaces__dry_run_and_policy(void)
{
	create_ns("d1");
	json_object *o = req(200, "DELETE", NS "/d1?dryRun=All", NULL);
	CU_ASSERT_STRING_EQUAL(str(o, "status.phase"), "Terminating");
	json_object_put(o);
	o = req(200, "GET", NS "/d1", NULL);
	CU_ASSERT_STRING_EQUAL(str(o, "status.phase"), "Active");
	CU_ASSERT_PTR_NULL(nl_json_get_path(o, "metadata.deletionTimestamp"));
	json_object_put(o);
	o = req(200, "DELETE", NS "/d1", "{\"propagationPolicy\":\"Orphan\"}");
	char buf[64];
	CU_ASSERT_STRING_EQUAL(joined(buf, sizeof(buf), o, "metadata.finalizers"), "orphan");
	json_object_put(o);
	/* the controller finalizes it, the collector takes "orphan": gone */
	advance(5);
	advance(1);
	json_object_put(req(404, "GET", NS "/d1", NULL));
}

/* Several kinds and finalizers: each list is sorted, the group written
 * after the resource (empty for core, hence "configmaps."). */
static void test_namespaces__conditions_list_every_kind_and_finalizer(void)
{
	create_ns("m1");
	create_cm("m1", "a", "[\"example.com/b\",\"example.com/a\"]");
	create_cm("m1", "b", "[\"example.com/b\"]");
	for (int i = 0; i < 2; i++) {
		char body[256];
		snprintf(body, sizeof(body),
		         "{\"metadata\":{\"name\":\"l%d\",\"finalizers\":[\"example.com/b\"]}}", i);
		json_object_put(
		    req(201, "POST", "/apis/coordination.k8s.io/v1/namespaces/m1/leases", body));
	}
	json_object_put(req(200, "DELETE", NS "/m1", NULL));
	advance(5);
	json_object *o = req(200, "GET", NS "/m1", NULL);
	CU_ASSERT_STRING_EQUAL(str(condition(o, "NamespaceContentRemaining"), "message"),
	                       "Some resources are remaining: configmaps. has 2 resource "
	                       "instances, leases.coordination.k8s.io has 2 resource instances");
	CU_ASSERT_STRING_EQUAL(str(condition(o, "NamespaceFinalizersRemaining"), "message"),
	                       "Some content in the namespace has finalizers remaining: "
	                       "example.com/a in 1 resource instances, example.com/b in 4 "
	                       "resource instances");
	json_object_put(o);
	/* the content goes: the conditions turn to their ok variants first */
	static const char *const paths[] = {NS "/m1/configmaps/a", NS "/m1/configmaps/b",
	                                    "/apis/coordination.k8s.io/v1/namespaces/m1/leases/l0",
	                                    "/apis/coordination.k8s.io/v1/namespaces/m1/leases/l1"};
	for (size_t i = 0; i < 4; i++)
		json_object_put(nl_http_expect(200, base, "PATCH", paths[i],
		                               "{\"metadata\":{\"finalizers\":null}}",
		                               "application/merge-patch+json"));
	advance(5);
	json_object_put(req(404, "GET", NS "/m1", NULL));
}

/* A Ready node, its heartbeat now, for pods bound to it. */
static void create_ready_node(const char *name)
{
	char body[512], ts[NL_TIME_BUFSZ];
	nl_time_format(ts, now_usec);
	snprintf(body, sizeof(body),
	         "{\"metadata\":{\"name\":\"%s\"},\"status\":{\"conditions\":[{\"type\":\"Ready\","
	         "\"status\":\"True\",\"lastHeartbeatTime\":\"%s\"}]}}",
	         name, ts);
	json_object_put(req(201, "POST", "/api/v1/nodes", body));
}

static void create_pod(const char *ns, const char *name, const char *node)
{
	char body[512], path[256];
	snprintf(path, sizeof(path), NS "/%s/pods", ns);
	snprintf(body, sizeof(body),
	         "{\"metadata\":{\"name\":\"%s\"},\"spec\":{%s%s%s\"containers\":[{\"name\":\"c\","
	         "\"image\":\"busybox:1.36\"}]}}",
	         name, node ? "\"nodeName\":\"" : "", node ? node : "", node ? "\"," : "");
	json_object_put(req(201, "POST", path, body));
}

/* Pods go gracefully: an unbound one at once, a bound one given its 30 s.
 * estimateGracefulTerminationForPods makes what is left no error (it
 * would look again estimate/2 + 1 = 16 s later, but its own status write
 * brings it back after 5 s), and it finalizes once the kubelet (the
 * mock's stand-in) has removed the pod. */
static void test_namespaces__pods_terminate_gracefully_then_it_finalizes(void)
{
	create_ns("pg1");
	create_ready_node("pg1-node");
	create_pod("pg1", "web", "pg1-node");
	create_pod("pg1", "loose", NULL);
	json_object_put(req(200, "DELETE", NS "/pg1", NULL));
	json_object *o = req(403, "POST", NS "/pg1/pods",
	                     "{\"metadata\":{\"name\":\"late\"},\"spec\":{\"containers\":[{"
	                     "\"name\":\"c\",\"image\":\"x\"}]}}");
	CU_ASSERT_STRING_EQUAL(str(o, "message"),
	                       "pods \"late\" is forbidden: unable to create new content in "
	                       "namespace pg1 because it is being terminated");
	json_object_put(o);
	advance(5);
	json_object_put(req(404, "GET", NS "/pg1/pods/loose", NULL));
	o = req(200, "GET", NS "/pg1/pods/web", NULL);
	CU_ASSERT_EQUAL(
	    json_object_get_int64(nl_json_get_path(o, "metadata.deletionGracePeriodSeconds")), 30);
	json_object_put(o);
	o = req(200, "GET", NS "/pg1", NULL);
	CU_ASSERT_STRING_EQUAL(str(condition(o, "NamespaceDeletionContentFailure"), "status"),
	                       "False");
	CU_ASSERT_STRING_EQUAL(str(condition(o, "NamespaceContentRemaining"), "message"),
	                       "Some resources are remaining: pods. has 1 resource instances");
	CU_ASSERT_STRING_EQUAL(str(condition(o, "NamespaceFinalizersRemaining"), "status"),
	                       "False");
	json_object_put(o);
	/* the stand-in kubelet, its node Ready, confirms at its next pass */
	advance(1);
	json_object_put(req(404, "GET", NS "/pg1/pods/web", NULL));
	advance(3);
	json_object_put(req(200, "GET", NS "/pg1", NULL));
	advance(1); /* 5 s after its own status write, before the 16 s */
	json_object_put(req(404, "GET", NS "/pg1", NULL));
}

static void controller_off(mock_options *o)
{
	o->controllers = "*,-namespace";
}

/* --controllers=-namespace: a deleted namespace stays Terminating. */
static void test_namespaces__without_the_controller_it_stays(void)
{
	mock_server *off = nl_test_server_adjusted(controller_off);
	const char *url = mock_server_url(off);
	json_object_put(
	    nl_http_expect(201, url, "POST", NS, "{\"metadata\":{\"name\":\"x\"}}", NULL));
	json_object_put(nl_http_expect(200, url, "DELETE", NS "/x", NULL, NULL));
	mock_server_tick(off);
	json_object *o = nl_http_expect(200, url, "GET", NS "/x", NULL, NULL);
	CU_ASSERT_STRING_EQUAL(str(o, "status.phase"), "Terminating");
	CU_ASSERT_PTR_NULL(nl_json_get_path(o, "status.conditions"));
	json_object_put(o);
	mock_server_free(off);
}

static CU_TestInfo tests[] = {
    {"create_sets_the_kubernetes_finalizer_and_active",
     test_namespaces__create_sets_the_kubernetes_finalizer_and_active},
    {"update_and_patch_keep_spec_and_status",
     test_namespaces__update_and_patch_keep_spec_and_status},
    {"status_and_finalize_subresources", test_namespaces__status_and_finalize_subresources},
    {"immortal_namespaces_are_forbidden", test_namespaces__immortal_namespaces_are_forbidden},
    {"delete_preconditions", test_namespaces__delete_preconditions},
    {"delete_terminates_then_the_controller_removes",
     test_namespaces__delete_terminates_then_the_controller_removes},
    {"content_with_finalizers_keeps_it", test_namespaces__content_with_finalizers_keeps_it},
    {"other_spec_finalizer_keeps_it", test_namespaces__other_spec_finalizer_keeps_it},
    {"conditions_list_every_kind_and_finalizer",
     test_namespaces__conditions_list_every_kind_and_finalizer},
    {"watch_sees_termination_then_deleted", test_namespaces__watch_sees_termination_then_deleted},
    {"dry_run_and_policy", test_namespaces__dry_run_and_policy},
    {"pods_terminate_gracefully_then_it_finalizes",
     test_namespaces__pods_terminate_gracefully_then_it_finalizes},
    {"without_the_controller_it_stays", test_namespaces__without_the_controller_it_stays},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"namespaces", setup, teardown, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
