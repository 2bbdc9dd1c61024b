/* The client's blocking calls against nodelet-mockapi in-process: CRUD on
 * any path and through the typed helpers, every error class from the
 * server's real Status (message unchanged), client-go's retry rule driven by
 * the mock's fault injection, the rate limiter and timeouts on the clock,
 * transport, TLS and configuration failures. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <nodelet/client_metrics.h>
#include <nodelet/configmap.h>
#include <nodelet/event.h>
#include <nodelet/lease.h>
#include <nodelet/meta.h>
#include <nodelet/node.h>
#include <nodelet/retry.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../cu_main.h"
#include "client_util.h"
#include "http_client.h"
#include "mockapi.h"

static mock_server *srv;
static const char *base;

static int setup(void)
{
	mock_options o;
	mock_options_init(&o);
	o.controller_tick_ms = 0;
	return nl_test_suite_server(&srv, &base, &o);
}

static int teardown(void)
{
	mock_server_free(srv);
	return 0;
}

/* A client for url; clock NULL = real; qps < 0 = unthrottled. */

static void add_fault(const char *json)
{
	nl_err err = {0};
	int rc = mock_server_add_fault(NULL, srv, json, &err);
	if (rc != 0)
		fprintf(stderr, "fault: %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
}

static json_object *golden(const char *rel)
{
	json_object *j = json_object_from_file(nl_test_fixture(rel));
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	return j;
}

/* The result's Status equals the golden one and its message is verbatim. */
static void assert_status(const nl_result *res, const char *rel)
{
	json_object *want = golden(rel);
	CU_ASSERT_PTR_NOT_NULL_FATAL(res->status);
	json_object *got = nl_status_to_json(res->status);
	int eq = json_object_equal(got, want);
	if (!eq)
		fprintf(stderr, "\n%s\n  want %s\n  got  %s\n", rel,
		        json_object_to_json_string(want), json_object_to_json_string(got));
	CU_ASSERT_TRUE(eq);
	CU_ASSERT_STRING_EQUAL(res->message,
	                       json_object_get_string(json_object_object_get(want, "message")));
	json_object_put(got);
	json_object_put(want);
}

static json_object *configmap(const char *name, const char *k, const char *v)
{
	json_object *cm;
	CU_ASSERT_EQUAL_FATAL(nl_configmap_new(&cm, "default", name), 0);
	if (k)
		nl_configmap_set(cm, k, v);
	return cm;
}

/* ------------------------------------------------------------------------ */

static void test_client__crud_on_a_resource_path(void)
{
	nl_client *c = nl_test_client_at(base, NULL, -1);
	nl_result res = NL_RESULT_INIT;
	json_object *cm = configmap("crud", "a", "1"), *created = NULL, *got = NULL, *list = NULL;
	const char *coll = "/api/v1/namespaces/default/configmaps";

	CU_ASSERT_EQUAL_FATAL(nl_api_create(&created, c, coll, cm, NULL, &res), 0);
	CU_ASSERT_EQUAL(res.http_status, 201);
	CU_ASSERT_EQUAL(res.attempts, 1);
	CU_ASSERT_PTR_NOT_NULL(nl_meta_uid(created));
	CU_ASSERT_EQUAL(nl_api_get(&got, c, "/api/v1/namespaces/default/configmaps/crud", &res), 0);
	CU_ASSERT_STRING_EQUAL(nl_configmap_data(got, "a"), "1");
	CU_ASSERT_STRING_EQUAL(nl_meta_resource_version(got), nl_meta_resource_version(created));

	nl_configmap_set(got, "a", "2");
	json_object *updated = NULL;
	CU_ASSERT_EQUAL(nl_api_update(&updated, c, "/api/v1/namespaces/default/configmaps/crud",
	                              got, NULL, &res),
	                0);
	CU_ASSERT_STRING_EQUAL(nl_configmap_data(updated, "a"), "2");
	CU_ASSERT_STRING_NOT_EQUAL(nl_meta_resource_version(updated),
	                           nl_meta_resource_version(got));

	nl_list_options lo = {0};
	lo.field_selector = "metadata.name=crud";
	CU_ASSERT_EQUAL(nl_api_list(&list, c, coll, &lo, &res), 0);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(list, "kind"), "ConfigMapList");
	CU_ASSERT_EQUAL(json_object_array_length(json_object_object_get(list, "items")), 1);

	json_object *del = NULL;
	CU_ASSERT_EQUAL(
	    nl_api_delete(&del, c, "/api/v1/namespaces/default/configmaps/crud", NULL, &res), 0);
	CU_ASSERT_PTR_NOT_NULL(del);
	CU_ASSERT_EQUAL(nl_api_get(&got, c, "/api/v1/namespaces/default/configmaps/crud", &res),
	                NL_ENOTFOUND);
	CU_ASSERT_STRING_EQUAL(res.message, "configmaps \"crud\" not found");
	CU_ASSERT_TRUE(nl_is_not_found(&res));

	json_object_put(cm);
	json_object_put(created);
	json_object_put(got);
	json_object_put(updated);
	json_object_put(list);
	json_object_put(del);
	nl_result_clear(&res);
	nl_client_free(c);
}

static void test_client__failed_call_leaves_out_untouched(void)
{
	nl_client *c = nl_test_client_at(base, NULL, -1);
	json_object *sentinel = (json_object *)(uintptr_t)0x1;
	json_object *out = sentinel;
	CU_ASSERT_EQUAL(nl_api_get(&out, c, "/api/v1/namespaces/default/configmaps/none", NULL),
	                NL_ENOTFOUND);
	CU_ASSERT_PTR_EQUAL(out, sentinel);
	nl_client_free(c);
}

/* 409 Conflict on a stale resourceVersion, with apimachinery's message. */
static void test_client__stale_update_is_conflict(void)
{
	nl_client *c = nl_test_client_at(base, NULL, -1);
	nl_result res = NL_RESULT_INIT;
	json_object *cm = configmap("stale", "a", "1"), *v1 = NULL, *v2 = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_configmap_create(&v1, c, cm, &res), 0);
	nl_configmap_set(v1, "a", "2");
	CU_ASSERT_EQUAL_FATAL(nl_configmap_update(&v2, c, v1, &res), 0);
	nl_configmap_set(v1, "a", "3"); /* still at the first resourceVersion */
	json_object *out = NULL;
	CU_ASSERT_EQUAL(nl_configmap_update(&out, c, v1, &res), NL_ECONFLICT);
	CU_ASSERT_PTR_NULL(out);
	CU_ASSERT_TRUE(nl_is_conflict(&res));
	CU_ASSERT_EQUAL(res.http_status, 409);
	CU_ASSERT_STRING_EQUAL(
	    res.message, "Operation cannot be fulfilled on configmaps \"stale\": the object has "
	                 "been modified; please apply your changes to the latest version and "
	                 "try again");
	CU_ASSERT_STRING_EQUAL(res.status->name, "stale");
	CU_ASSERT_STRING_EQUAL(res.status->kind, "configmaps");
	json_object_put(cm);
	json_object_put(v1);
	json_object_put(v2);
	nl_result_clear(&res);
	nl_client_free(c);
}

static void test_client__delete_preconditions_and_propagation(void)
{
	nl_client *c = nl_test_client_at(base, NULL, -1);
	nl_result res = NL_RESULT_INIT;
	json_object *cm = configmap("pre", NULL, NULL), *v1 = NULL, *st = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_configmap_create(&v1, c, cm, &res), 0);
	nl_delete_options d;
	nl_delete_options_init(&d);
	d.precondition_resource_version = "1";
	d.propagation_policy = "Background";
	CU_ASSERT_EQUAL(nl_configmap_delete(c, "default", "pre", &d, &res), NL_ECONFLICT);
	char want[256];
	snprintf(want, sizeof(want),
	         "Operation cannot be fulfilled on ConfigMap \"pre\": the ResourceVersion in the "
	         "precondition (1) does not match the ResourceVersion in record (%s). The object "
	         "might have been modified",
	         nl_meta_resource_version(v1));
	CU_ASSERT_STRING_EQUAL(res.message, want);
	d.precondition_resource_version = nl_meta_resource_version(v1);
	d.precondition_uid = nl_meta_uid(v1);
	CU_ASSERT_EQUAL(
	    nl_api_delete(&st, c, "/api/v1/namespaces/default/configmaps/pre", &d, &res), 0);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(st, "status"), "Success");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(st, "details.uid"), nl_meta_uid(v1));
	json_object_put(cm);
	json_object_put(v1);
	json_object_put(st);
	nl_result_clear(&res);
	nl_client_free(c);
}

/* Every error class the mock answers with a real Status. */
static void test_client__errors_map_from_the_real_status(void)
{
	nl_client *c = nl_test_client_at(base, NULL, -1);
	nl_result res = NL_RESULT_INIT;
	json_object *out = NULL;

	CU_ASSERT_EQUAL(nl_api_get(&out, c, "/api/v1/nowhere", &res), NL_ENOTFOUND);
	assert_status(&res, "status/unknown-path.json");

	json_object *cm = configmap("x", NULL, NULL);
	CU_ASSERT_EQUAL(nl_configmap_create(&out, c, cm, &res), 0);
	json_object_put(out);
	out = NULL;
	CU_ASSERT_EQUAL(nl_configmap_create(&out, c, cm, &res), NL_EEXISTS);
	CU_ASSERT_TRUE(nl_is_already_exists(&res));
	assert_status(&res, "status/already-exists-configmap.json");
	CU_ASSERT_EQUAL(nl_configmap_delete(c, "default", "x", NULL, &res), 0);
	CU_ASSERT_EQUAL(nl_configmap_get(&out, c, "default", "x", &res), NL_ENOTFOUND);
	assert_status(&res, "status/not-found-configmap.json");

	json_object *lease;
	nl_lease_spec spec = {"x", -1, 0, 0, -1};
	CU_ASSERT_EQUAL_FATAL(nl_lease_new(&lease, "default", "x", &spec), 0);
	CU_ASSERT_EQUAL(nl_lease_create(&out, c, lease, &res), NL_EINVALID);
	CU_ASSERT_TRUE(nl_is_invalid(&res));
	assert_status(&res, "status/invalid-lease-duration.json");
	CU_ASSERT_EQUAL(res.status->ncauses, 1);

	/* Name in the body differs from the URL: 400. */
	json_object *a = configmap("a", NULL, NULL);
	CU_ASSERT_EQUAL(
	    nl_api_update(&out, c, "/api/v1/namespaces/default/configmaps/b", a, NULL, &res),
	    NL_EBADREQUEST);
	assert_status(&res, "status/bad-request-name-mismatch.json");

	/* POST on an object path: 405. */
	CU_ASSERT_EQUAL(
	    nl_api_create(&out, c, "/api/v1/namespaces/default/configmaps/a", a, NULL, &res),
	    NL_EMETHOD);
	CU_ASSERT_TRUE(nl_is_method_not_supported(&res));
	assert_status(&res, "status/method-not-allowed.json");

	/* A body over the apiserver's 3 MiB: 413. */
	size_t big = 3u * 1024u * 1024u + 16;
	char *huge = malloc(big + 1);
	memset(huge, 'x', big);
	huge[big] = '\0';
	json_object *fat = configmap("fat", "k", huge);
	free(huge);
	CU_ASSERT_EQUAL(nl_configmap_create(&out, c, fat, &res), NL_ETOOBIG);
	CU_ASSERT_TRUE(nl_is_request_entity_too_large(&res));
	assert_status(&res, "status/too-large.json");
	CU_ASSERT_PTR_NULL(out);

	json_object_put(fat);
	json_object_put(a);
	json_object_put(lease);
	json_object_put(cm);
	nl_result_clear(&res);
	nl_client_free(c);
}

/* ------------------------------------------------------------------------
 * Typed helpers */

static void test_client__lease_create_renew_and_conflict(void)
{
	nl_client *c = nl_test_client_at(base, NULL, -1);
	nl_result res = NL_RESULT_INIT;
	json_object *lease, *created = NULL, *renewed = NULL, *got = NULL, *out = NULL;
	/* Named "x" to compare with the golden Conflict. */
	nl_lease_spec spec = {"node-1", 40, 0, 1714557600000000, 0}, read;
	CU_ASSERT_EQUAL_FATAL(nl_lease_new(&lease, "kube-node-lease", "x", &spec), 0);
	CU_ASSERT_EQUAL_FATAL(nl_lease_create(&created, c, lease, &res), 0);
	spec.renew_time += 10000000;
	CU_ASSERT_EQUAL(nl_lease_spec_write(created, &spec), 0);
	CU_ASSERT_EQUAL(nl_lease_update(&renewed, c, created, &res), 0);
	CU_ASSERT_EQUAL(nl_lease_get(&got, c, "kube-node-lease", "x", &res), 0);
	CU_ASSERT_EQUAL(nl_lease_spec_read(&read, got), 0);
	CU_ASSERT_EQUAL(read.renew_time, 1714557610000000);
	CU_ASSERT_STRING_EQUAL(read.holder_identity, "node-1");
	/* created is stale now. */
	CU_ASSERT_EQUAL(nl_lease_update(&out, c, created, &res), NL_ECONFLICT);
	assert_status(&res, "status/conflict-lease.json");
	json_object_put(lease);
	json_object_put(created);
	json_object_put(renewed);
	json_object_put(got);
	CU_ASSERT_EQUAL(nl_lease_delete(c, "kube-node-lease", "x", NULL, &res), 0);
	nl_result_clear(&res);
	nl_client_free(c);
}

typedef struct {
	nl_client *c;
	json_object *stale; /* first try writes this one */
	int tries;
} renew_ctx;

/* RetryOnConflict's idiom: read, modify, write; a conflict reads again. */
static int renew_once(nl_result *res, void *payload)
{
	renew_ctx *r = payload;
	json_object *cur = NULL, *out = NULL;
	int rc;
	r->tries++;
	if (r->stale) {
		cur = r->stale;
		r->stale = NULL;
	} else if ((rc = nl_lease_get(&cur, r->c, "kube-node-lease", "retry", res)) != 0) {
		return rc;
	}
	nl_lease_spec s;
	nl_lease_spec_read(&s, cur);
	s.lease_transitions++;
	nl_lease_spec_write(cur, &s);
	rc = nl_lease_update(&out, r->c, cur, res);
	json_object_put(cur);
	json_object_put(out);
	return rc;
}

static void test_client__retry_on_conflict_rereads(void)
{
	nl_client *c = nl_test_client_at(base, NULL, -1);
	nl_result res = NL_RESULT_INIT;
	json_object *lease, *v1 = NULL, *v2 = NULL;
	nl_lease_spec spec = {"retry", 40, 0, 0, 0};
	CU_ASSERT_EQUAL_FATAL(nl_lease_new(&lease, "kube-node-lease", "retry", &spec), 0);
	CU_ASSERT_EQUAL_FATAL(nl_lease_create(&v1, c, lease, &res), 0);
	CU_ASSERT_EQUAL_FATAL(nl_lease_update(&v2, c, v1, &res), 0); /* v1 goes stale */
	renew_ctx r = {c, v1, 0};
	CU_ASSERT_EQUAL(nl_retry_on_conflict(NULL, nl_client_clock(c), renew_once, &r, &res), 0);
	CU_ASSERT_EQUAL(r.tries, 2);
	json_object_put(lease);
	json_object_put(v2);
	nl_result_clear(&res);
	nl_client_free(c);
}

static void test_client__node_and_status_subresource(void)
{
	nl_client *c = nl_test_client_at(base, NULL, -1);
	nl_result res = NL_RESULT_INIT;
	json_object *node, *created = NULL, *after = NULL, *got = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_node_new(&node, "worker-1"), 0);
	CU_ASSERT_EQUAL_FATAL(nl_node_create(&created, c, node, &res), 0);
	CU_ASSERT_EQUAL(nl_node_set_condition(created, "Ready", "True", "KubeletReady",
	                                      "kubelet is posting ready status", 1714557600000000),
	                0);
	CU_ASSERT_EQUAL(nl_node_update_status(&after, c, created, &res), 0);
	CU_ASSERT_PTR_NOT_NULL(nl_node_condition(after, "Ready"));
	/* The main resource keeps the stored status, whatever the body says. */
	json_object *spec_only = json_object_get(after);
	json_object_object_del(spec_only, "status");
	json_object *main_put = NULL;
	CU_ASSERT_EQUAL(nl_node_update(&main_put, c, spec_only, &res), 0);
	CU_ASSERT_EQUAL(nl_node_get(&got, c, "worker-1", &res), 0);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(nl_node_condition(got, "Ready"), "status"),
	                       "True");
	json_object *list = NULL;
	CU_ASSERT_EQUAL(nl_node_list(&list, c, NULL, &res), 0);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(list, "kind"), "NodeList");
	CU_ASSERT_EQUAL(nl_node_delete(c, "worker-1", NULL, &res), 0);
	CU_ASSERT_EQUAL(nl_node_get(&got, c, "worker-1", &res), NL_ENOTFOUND);
	CU_ASSERT_STRING_EQUAL(res.message, "nodes \"worker-1\" not found");
	json_object_put(node);
	json_object_put(created);
	json_object_put(after);
	json_object_put(spec_only);
	json_object_put(main_put);
	json_object_put(got);
	json_object_put(list);
	nl_result_clear(&res);
	nl_client_free(c);
}

static void test_client__event_record_and_list(void)
{
	nl_client *c = nl_test_client_at(base, NULL, -1);
	nl_result res = NL_RESULT_INIT;
	json_object *ev = NULL, *list = NULL;
	nl_event_spec s = {0};
	s.kind = "Node";
	s.name = "worker-2";
	s.uid = "worker-2";
	s.type = "Normal";
	s.reason = "Starting";
	s.message = "Starting nodelet.";
	s.component = "nodelet";
	s.host = "worker-2";
	CU_ASSERT_EQUAL_FATAL(nl_event_record(&ev, c, &s, &res), 0);
	CU_ASSERT_EQUAL(res.http_status, 201);
	CU_ASSERT_STRING_EQUAL(nl_meta_namespace(ev), "default");
	nl_list_options lo = {0};
	lo.field_selector = "involvedObject.name=worker-2";
	CU_ASSERT_EQUAL(nl_event_list(&list, c, "default", &lo, &res), 0);
	json_object *items = json_object_object_get(list, "items");
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(items), 1);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(json_object_array_get_idx(items, 0), "reason"),
	                       "Starting");
	json_object_put(ev);
	json_object_put(list);
	nl_result_clear(&res);
	nl_client_free(c);
}

static void test_client__list_pages_and_list_all(void)
{
	nl_client *c = nl_test_client_at(base, NULL, -1);
	nl_result res = NL_RESULT_INIT;
	for (int i = 0; i < 7; i++) {
		char name[32];
		snprintf(name, sizeof(name), "page-%d", i);
		json_object *cm = configmap(name, "i", name), *out = NULL;
		nl_meta_set_string(cm, "namespace", "kube-public");
		CU_ASSERT_EQUAL(nl_configmap_create(&out, c, cm, &res), 0);
		json_object_put(cm);
		json_object_put(out);
	}
	nl_list_options lo = {0};
	lo.limit = 3;
	json_object *page = NULL, *all = NULL;
	CU_ASSERT_EQUAL(nl_configmap_list(&page, c, "kube-public", &lo, &res), 0);
	CU_ASSERT_EQUAL(json_object_array_length(json_object_object_get(page, "items")), 3);
	CU_ASSERT_PTR_NOT_NULL(nl_json_get_string(page, "metadata.continue"));
	CU_ASSERT_EQUAL(
	    nl_api_list_all(&all, c, "/api/v1/namespaces/kube-public/configmaps", &lo, &res), 0);
	CU_ASSERT_EQUAL(json_object_array_length(json_object_object_get(all, "items")), 7);
	CU_ASSERT_PTR_NULL(nl_json_get_string(all, "metadata.continue"));
	CU_ASSERT_STRING_EQUAL(nl_meta_resource_version(all), nl_meta_resource_version(page));
	json_object_put(page);
	json_object_put(all);
	nl_result_clear(&res);
	nl_client_free(c);
}

/* PATCH of each type against the mock, server-side apply included. */
static void test_client__patch_types(void)
{
	nl_client *c = nl_test_client_at(base, NULL, -1);
	nl_result res = NL_RESULT_INIT;
	json_object *cm = configmap("patched", "a", "1"), *out = NULL;
	const char *path = "/api/v1/namespaces/default/configmaps/patched";
	CU_ASSERT_EQUAL_FATAL(nl_configmap_create(&out, c, cm, &res), 0);
	json_object_put(out);
	out = NULL;
	const char *merge = "{\"data\":{\"b\":\"2\"}}";
	CU_ASSERT_EQUAL_FATAL(
	    nl_api_patch(&out, c, path, NL_PATCH_MERGE, merge, strlen(merge), NULL, &res), 0);
	CU_ASSERT_STRING_EQUAL(nl_configmap_data(out, "b"), "2");
	json_object_put(out);
	out = NULL;
	const char *jp = "[{\"op\":\"replace\",\"path\":\"/data/a\",\"value\":\"9\"}]";
	CU_ASSERT_EQUAL(nl_api_patch(&out, c, path, NL_PATCH_JSON, jp, strlen(jp), NULL, &res), 0);
	CU_ASSERT_STRING_EQUAL(nl_configmap_data(out, "a"), "9");
	json_object_put(out);
	out = NULL;
	const char *sp = "{\"data\":{\"c\":\"3\"}}";
	CU_ASSERT_EQUAL(nl_api_patch(&out, c, path, NL_PATCH_STRATEGIC, sp, strlen(sp), NULL, &res),
	                0);
	CU_ASSERT_STRING_EQUAL(nl_configmap_data(out, "c"), "3");
	json_object_put(out);
	out = NULL;
	const char *ap = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
	                 "\"patched\"},\"data\":{\"d\":\"4\"}}";
	nl_write_options wo = {0};
	wo.field_manager = "nodelet";
	wo.force = 1;
	CU_ASSERT_EQUAL(nl_api_patch(&out, c, path, NL_PATCH_APPLY, ap, strlen(ap), &wo, &res), 0);
	CU_ASSERT_STRING_EQUAL(nl_configmap_data(out, "d"), "4");
	json_object_put(out);
	out = NULL;
	/* A failed JSON patch test operation is the server's 422. */
	const char *bad = "[{\"op\":\"test\",\"path\":\"/data/a\",\"value\":\"0\"}]";
	CU_ASSERT_EQUAL(nl_api_patch(&out, c, path, NL_PATCH_JSON, bad, strlen(bad), NULL, &res),
	                NL_EINVALID);
	CU_ASSERT_PTR_NULL(out);
	/* A non-apply patch of a missing object is 404. */
	CU_ASSERT_EQUAL(nl_api_patch(&out, c, "/api/v1/namespaces/default/configmaps/absent",
	                             NL_PATCH_MERGE, merge, strlen(merge), NULL, &res),
	                NL_ENOTFOUND);
	json_object_put(cm);
	nl_result_clear(&res);
	nl_client_free(c);
}

/* ------------------------------------------------------------------------
 * client-go's retry rule, with the mock's faults and a fake clock */

static void test_client__429_with_retry_after_is_retried(void)
{
	nl_clock *clock;
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&clock, 0), 0);
	nl_client *c = nl_test_client_at(base, clock, -1);
	nl_result res = NL_RESULT_INIT;
	json_object *out = NULL;
	add_fault("{\"match\":{\"verb\":\"get\",\"resource\":\"namespaces\"},"
	          "\"action\":{\"status\":429,\"retryAfterSeconds\":2},\"times\":2}");
	CU_ASSERT_EQUAL(nl_api_get(&out, c, "/api/v1/namespaces/default", &res), 0);
	CU_ASSERT_EQUAL(res.attempts, 3);
	CU_ASSERT_EQUAL(res.code, 0);
	CU_ASSERT_EQUAL(nl_clock_mono(clock), 4 * NL_USEC_PER_SEC); /* 2 x Retry-After: 2 */
	json_object_put(out);
	mock_server_remove_fault(srv, NULL);
	nl_result_clear(&res);
	nl_client_free(c);
	nl_clock_free(clock);
}

/* client-go's request metrics: each attempt counted by code and method,
 * the request's latency (its Retry-After waits included) once, by verb;
 * the host label is the server's host:port. */
static const nl_client_request_count *result_of(const nl_client_metrics *m, const char *method,
                                                long code)
{
	for (size_t i = 0; i < m->nresults; i++)
		if (m->results[i].code == code && strcmp(m->results[i].method, method) == 0)
			return &m->results[i];
	return NULL;
}

static void test_client__request_metrics_count_attempts_and_time_requests(void)
{
	nl_clock *clock;
	nl_client_metrics m;
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&clock, 0), 0);
	nl_client *c = nl_test_client_at(base, clock, -1);
	nl_result res = NL_RESULT_INIT;
	json_object *out = NULL;
	add_fault("{\"match\":{\"verb\":\"get\",\"resource\":\"namespaces\"},"
	          "\"action\":{\"status\":429,\"retryAfterSeconds\":2},\"times\":2}");
	CU_ASSERT_EQUAL(nl_api_get(&out, c, "/api/v1/namespaces/default", &res), 0);
	json_object_put(out);
	out = NULL;
	mock_server_remove_fault(srv, NULL);
	CU_ASSERT_EQUAL(nl_api_get(&out, c, "/api/v1/namespaces/absent", &res), NL_ENOTFOUND);
	nl_client_metrics_snapshot(&m, c);
	CU_ASSERT_STRING_EQUAL(m.host, base + strlen("http://"));
	const nl_client_request_count *r429 = result_of(&m, "GET", 429),
	                              *r200 = result_of(&m, "GET", 200),
	                              *r404 = result_of(&m, "GET", 404);
	CU_ASSERT_EQUAL(r429 ? r429->count : 0, 2);
	CU_ASSERT_EQUAL(r200 ? r200->count : 0, 1);
	CU_ASSERT_EQUAL(r404 ? r404->count : 0, 1);
	CU_ASSERT_EQUAL_FATAL(m.nverbs, 1);
	CU_ASSERT_STRING_EQUAL(m.latency[0].verb, "GET");
	CU_ASSERT_EQUAL(m.latency[0].count, 2);
	/* 4 s of virtual Retry-After waits, then an instant 404 */
	CU_ASSERT_DOUBLE_EQUAL(m.latency[0].sum_seconds, 4.0, 1e-9);
	CU_ASSERT_EQUAL(m.latency[0].bucket[0], 1);  /* le 0.005: the 404 */
	CU_ASSERT_EQUAL(m.latency[0].bucket[6], 1);  /* le 2 */
	CU_ASSERT_EQUAL(m.latency[0].bucket[7], 2);  /* le 4 */
	CU_ASSERT_EQUAL(m.latency[0].bucket[11], 2); /* le 60 */
	nl_result_clear(&res);
	nl_client_free(c);
	nl_clock_free(clock);

	/* No answer at all: client-go's "<error>" (code 0 here). */
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	CU_ASSERT_EQUAL_FATAL(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	CU_ASSERT_EQUAL_FATAL(getsockname(fd, (struct sockaddr *)&a, &al), 0);
	char url[64];
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", ntohs(a.sin_port));
	c = nl_test_client_at(url, NULL, -1);
	json_object *ns = nl_test_json("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\","
	                               "\"metadata\":{\"name\":\"x\"}}");
	CU_ASSERT_NOT_EQUAL(nl_api_create(&out, c, "/api/v1/namespaces", ns, NULL, &res), 0);
	json_object_put(ns);
	close(fd);
	nl_client_metrics_snapshot(&m, c);
	CU_ASSERT_STRING_EQUAL(m.host, url + strlen("http://"));
	const nl_client_request_count *err = result_of(&m, "POST", 0);
	CU_ASSERT_EQUAL(err ? err->count : 0, 1);
	nl_result_clear(&res);
	nl_client_free(c);
}

/* on_attempt: every attempt, retries included, with its path as sent, its
 * answer, when it was sent on the client's clock and the User-Agent; a
 * request without an answer says 0. */
typedef struct {
	int n;
	char lines[8][160];
} attempt_log;

static void log_attempt(const nl_request_attempt *a, void *payload)
{
	attempt_log *l = payload;
	if (l->n < 8)
		snprintf(l->lines[l->n], sizeof(l->lines[0]), "%s %s %ld @%lld %zu %s", a->method,
		         a->path, a->code, (long long)a->at, a->request_bytes,
		         strncmp(a->user_agent, "attempts/", 9) == 0 ? a->user_agent : "?");
	l->n++;
}

static void test_client__on_attempt_tells_each_attempt(void)
{
	nl_clock *clock;
	attempt_log l = {0};
	nl_rest_config cfg = {0};
	nl_client_options o;
	nl_client *c = NULL;
	nl_result res = NL_RESULT_INIT;
	json_object *out = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&clock, 1000), 0);
	cfg.server = (char *)base;
	nl_client_options_init(&o);
	o.qps = -1;
	o.clock = clock;
	o.user_agent = "attempts/1";
	o.on_attempt = log_attempt;
	o.attempt_payload = &l;
	CU_ASSERT_EQUAL_FATAL(nl_client_new(&c, &cfg, &o, NULL), 0);
	add_fault("{\"match\":{\"verb\":\"get\",\"resource\":\"namespaces\"},"
	          "\"action\":{\"status\":429,\"retryAfterSeconds\":2},\"times\":1}");
	CU_ASSERT_EQUAL(nl_api_get(&out, c, "/api/v1/namespaces/default", &res), 0);
	json_object_put(out);
	out = NULL;
	mock_server_remove_fault(srv, NULL);
	json_object *ns = nl_test_json("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\","
	                               "\"metadata\":{\"name\":\"default\"}}");
	CU_ASSERT_EQUAL(nl_api_create(&out, c, "/api/v1/namespaces", ns, NULL, &res), NL_EEXISTS);
	json_object_put(ns);
	CU_ASSERT_EQUAL_FATAL(l.n, 3);
	CU_ASSERT_STRING_EQUAL(l.lines[0], "GET /api/v1/namespaces/default 429 @1000 0 attempts/1");
	CU_ASSERT_STRING_EQUAL(l.lines[1],
	                       "GET /api/v1/namespaces/default 200 @2001000 0 attempts/1");
	CU_ASSERT_EQUAL(strncmp(l.lines[2], "POST /api/v1/namespaces 409 @2001000 ", 37), 0);
	CU_ASSERT_STRING_NOT_EQUAL(l.lines[2] + 37, "0 attempts/1"); /* the body's bytes */
	nl_result_clear(&res);
	nl_client_free(c);
	nl_clock_free(clock);
}

static void test_client__retries_stop_after_ten(void)
{
	nl_clock *clock;
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&clock, 0), 0);
	nl_client *c = nl_test_client_at(base, clock, -1);
	nl_result res = NL_RESULT_INIT;
	json_object *out = NULL;
	add_fault("{\"match\":{\"verb\":\"get\",\"resource\":\"namespaces\"},"
	          "\"action\":{\"status\":429,\"retryAfterSeconds\":1},\"times\":0}");
	CU_ASSERT_EQUAL(nl_api_get(&out, c, "/api/v1/namespaces/default", &res),
	                NL_ETOOMANYREQUESTS);
	CU_ASSERT_EQUAL(res.attempts, 11);
	CU_ASSERT_TRUE(nl_is_too_many_requests(&res));
	CU_ASSERT_EQUAL(res.status->retry_after_seconds, 1);
	CU_ASSERT_STRING_EQUAL(nl_result_reason(&res), "TooManyRequests");
	CU_ASSERT_FALSE(nl_is_unexpected_server_error(&res)); /* the mock sent a Status */
	CU_ASSERT_EQUAL(nl_clock_mono(clock), 10 * NL_USEC_PER_SEC);
	mock_server_remove_fault(srv, NULL);
	nl_result_clear(&res);
	nl_client_free(c);
	nl_clock_free(clock);
}

/* The whole-request timeout covers the retries, as client-go's request
 * context does: a retry whose Retry-After wait would end past it is not
 * made. Found by the agent soak: a heartbeat retried on 429 for longer
 * than the lease lasts wrote a renewTime older than the lease duration. */
static void test_client__retries_stop_at_the_request_timeout(void)
{
	nl_rest_config cfg = {0};
	nl_client_options o;
	nl_client *c = NULL;
	nl_clock *clock;
	nl_result res = NL_RESULT_INIT;
	json_object *out = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&clock, 0), 0);
	cfg.server = (char *)base;
	nl_client_options_init(&o);
	o.qps = -1;
	o.clock = clock;
	o.timeout_ms = 5000;
	CU_ASSERT_EQUAL_FATAL(nl_client_new(&c, &cfg, &o, NULL), 0);
	add_fault("{\"match\":{\"verb\":\"get\",\"resource\":\"namespaces\"},"
	          "\"action\":{\"status\":429,\"retryAfterSeconds\":2},\"times\":0}");
	CU_ASSERT_EQUAL(nl_api_get(&out, c, "/api/v1/namespaces/default", &res),
	                NL_ETOOMANYREQUESTS);
	/* At 0, 2 and 4 s; the next would be at 6 s, past the 5 s. */
	CU_ASSERT_EQUAL(res.attempts, 3);
	CU_ASSERT_EQUAL(nl_clock_mono(clock), 4 * NL_USEC_PER_SEC);
	CU_ASSERT_TRUE(nl_is_too_many_requests(&res));
	CU_ASSERT_PTR_NULL(out);
	mock_server_remove_fault(srv, NULL);
	nl_result_clear(&res);
	nl_client_free(c);
	nl_clock_free(clock);
}

static void test_client__5xx_retried_only_with_retry_after(void)
{
	nl_clock *clock;
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&clock, 0), 0);
	nl_client *c = nl_test_client_at(base, clock, -1);
	nl_result res = NL_RESULT_INIT;
	json_object *out = NULL;
	add_fault("{\"match\":{\"verb\":\"get\",\"resource\":\"namespaces\"},"
	          "\"action\":{\"status\":503},\"times\":1}");
	CU_ASSERT_EQUAL(nl_api_get(&out, c, "/api/v1/namespaces/default", &res), NL_ESERVER);
	CU_ASSERT_EQUAL(res.attempts, 1);
	CU_ASSERT_TRUE(nl_is_service_unavailable(&res));
	add_fault("{\"match\":{\"verb\":\"get\",\"resource\":\"namespaces\"},"
	          "\"action\":{\"status\":500,\"retryAfterSeconds\":3},\"times\":1}");
	CU_ASSERT_EQUAL(nl_api_get(&out, c, "/api/v1/namespaces/default", &res), 0);
	CU_ASSERT_EQUAL(res.attempts, 2);
	CU_ASSERT_EQUAL(nl_clock_mono(clock), 3 * NL_USEC_PER_SEC);
	json_object_put(out);
	mock_server_remove_fault(srv, NULL);
	nl_result_clear(&res);
	nl_client_free(c);
	nl_clock_free(clock);
}

/* A dropped connection: a GET is retried after 1 s, a POST is not (it may
 * have been applied). */
static void test_client__reset_connection_retries_only_gets(void)
{
	nl_clock *clock;
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&clock, 0), 0);
	nl_client *c = nl_test_client_at(base, clock, -1);
	nl_result res = NL_RESULT_INIT;
	json_object *out = NULL;
	add_fault("{\"match\":{\"verb\":\"get\",\"resource\":\"namespaces\"},"
	          "\"action\":{\"drop\":true},\"times\":1}");
	CU_ASSERT_EQUAL(nl_api_get(&out, c, "/api/v1/namespaces/default", &res), 0);
	CU_ASSERT_EQUAL(res.attempts, 2);
	CU_ASSERT_EQUAL(nl_clock_mono(clock), NL_USEC_PER_SEC);
	json_object_put(out);
	out = NULL;
	/* A new client (new connection): the mock applies a drop fault to a
	 * POST only as the first request of a connection. */
	nl_client_free(c);
	c = nl_test_client_at(base, clock, -1);
	add_fault("{\"match\":{\"verb\":\"create\",\"resource\":\"configmaps\"},"
	          "\"action\":{\"drop\":true},\"times\":1}");
	json_object *cm = configmap("dropped", NULL, NULL);
	CU_ASSERT_EQUAL(nl_configmap_create(&out, c, cm, &res), NL_ETRANSPORT);
	CU_ASSERT_EQUAL(res.attempts, 1);
	CU_ASSERT_PTR_NULL(res.status);
	CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "POST http://127.0.0.1:"));
	json_object_put(cm);
	mock_server_remove_fault(srv, NULL);
	nl_result_clear(&res);
	nl_client_free(c);
	nl_clock_free(clock);
}

static void test_client__malformed_body_is_parse_error(void)
{
	nl_client *c = nl_test_client_at(base, NULL, -1);
	nl_result res = NL_RESULT_INIT;
	json_object *out = NULL;
	add_fault("{\"match\":{\"verb\":\"get\",\"resource\":\"namespaces\"},"
	          "\"action\":{\"malformed\":true},\"times\":1}");
	CU_ASSERT_EQUAL(nl_api_get(&out, c, "/api/v1/namespaces/default", &res), NL_EPARSE);
	CU_ASSERT_PTR_NULL(out);
	CU_ASSERT_EQUAL(res.http_status, 200);
	CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "decoding the server's answer"));
	mock_server_remove_fault(srv, NULL);
	nl_result_clear(&res);
	nl_client_free(c);
}

static void test_client__request_timeout(void)
{
	nl_rest_config cfg = {0};
	nl_client_options o;
	nl_client *c = NULL;
	nl_result res = NL_RESULT_INIT;
	json_object *out = NULL;
	cfg.server = (char *)base;
	nl_client_options_init(&o);
	o.qps = -1;
	o.timeout_ms = 300;
	CU_ASSERT_EQUAL_FATAL(nl_client_new(&c, &cfg, &o, NULL), 0);
	add_fault("{\"match\":{\"verb\":\"get\",\"resource\":\"namespaces\"},"
	          "\"action\":{\"delayMs\":2000},\"times\":1}");
	CU_ASSERT_EQUAL(nl_api_get(&out, c, "/api/v1/namespaces/default", &res), NL_ETIMEOUT);
	CU_ASSERT_TRUE(nl_is_timeout(&res));
	CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "timed out"));
	mock_server_remove_fault(srv, NULL);
	nl_result_clear(&res);
	nl_client_free(c);
}

/* QPS 5, burst 10: fifteen requests wait five times 200 ms on the clock. */
static void test_client__rate_limit_on_the_clock(void)
{
	nl_clock *clock;
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&clock, 0), 0);
	nl_client *c = nl_test_client_at(base, clock, 0); /* 0 = client-go's 5/10 */
	for (int i = 0; i < 15; i++) {
		json_object *out = NULL;
		CU_ASSERT_EQUAL(nl_api_get(&out, c, "/api/v1/namespaces/default", NULL), 0);
		json_object_put(out);
	}
	size_t n;
	const int64_t *s = nl_clock_fake_sleeps(clock, &n, NULL);
	CU_ASSERT_EQUAL_FATAL(n, 5);
	for (size_t i = 0; i < n; i++)
		CU_ASSERT_EQUAL(s[i], 200 * NL_USEC_PER_MSEC);
	nl_client_free(c);
	nl_clock_free(clock);
}

/* ------------------------------------------------------------------------
 * Transport, TLS and configuration failures */

static int closed_port(void)
{
	struct sockaddr_in a = {0};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bind(fd, (struct sockaddr *)&a, sizeof(a));
	getsockname(fd, (struct sockaddr *)&a, &len);
	close(fd); /* bound, never listening: connecting is refused */
	return ntohs(a.sin_port);
}

static void test_client__connection_refused_is_transport_error(void)
{
	char url[64];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", closed_port());
	nl_client *c = nl_test_client_at(url, NULL, -1);
	nl_result res = NL_RESULT_INIT;
	json_object *out = NULL;
	CU_ASSERT_EQUAL(nl_api_get(&out, c, "/version", &res), NL_ETRANSPORT);
	CU_ASSERT_EQUAL(res.http_status, 0);
	CU_ASSERT_PTR_NULL(res.status);
	CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "GET http://127.0.0.1:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "onnect"));
	nl_result_clear(&res);
	nl_client_free(c);
}

/* https:// to the mock's plain-HTTP port: the handshake fails. */
static void test_client__tls_to_plain_http_is_tls_error(void)
{
	char url[64];
	snprintf(url, sizeof(url), "https://127.0.0.1:%d", mock_server_port(srv));
	nl_client *c = nl_test_client_at(url, NULL, -1);
	nl_result res = NL_RESULT_INIT;
	json_object *out = NULL;
	CU_ASSERT_EQUAL(nl_api_get(&out, c, "/version", &res), NL_ETLS);
	CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "GET https://127.0.0.1:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "SSL"));
	nl_result_clear(&res);
	nl_client_free(c);
}

static int config_error(nl_rest_config *cfg, char *msg, size_t n)
{
	nl_client *c = NULL;
	nl_err err = {0};
	int rc = nl_client_new(&c, cfg, NULL, &err);
	CU_ASSERT_PTR_NULL(c);
	nl_client_free(c);
	snprintf(msg, n, "%s", err.msg);
	return rc;
}

static void test_client__unusable_configs_are_refused(void)
{
	nl_rest_config cfg = {0};
	char msg[512];
	cfg.source = "test-kubeconfig";
	CU_ASSERT_EQUAL(config_error(&cfg, msg, sizeof(msg)), NL_ECONFIG);
	CU_ASSERT_STRING_EQUAL(msg, "invalid configuration: no server found for test-kubeconfig");
	cfg.server = "https://127.0.0.1:6443";
	cfg.ca_file = "/nonexistent/ca.crt";
	CU_ASSERT_EQUAL(config_error(&cfg, msg, sizeof(msg)), NL_ECONFIG);
	CU_ASSERT_STRING_EQUAL(msg, "unable to read certificate-authority /nonexistent/ca.crt for "
	                            "test-kubeconfig due to No such file or directory");
	cfg.ca_file = NULL;
	cfg.ca_data = (unsigned char *)"not a certificate";
	cfg.ca_data_len = strlen("not a certificate");
	CU_ASSERT_EQUAL(config_error(&cfg, msg, sizeof(msg)), NL_ECONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "unable to load root certificates"));
	cfg.insecure_skip_tls_verify = 1;
	CU_ASSERT_EQUAL(config_error(&cfg, msg, sizeof(msg)), NL_ECONFIG);
	CU_ASSERT_STRING_EQUAL(
	    msg, "specifying a root certificates file with the insecure flag is not allowed");
	cfg.ca_data = NULL;
	cfg.ca_data_len = 0;
	cfg.cert_data = (unsigned char *)"-----BEGIN CERTIFICATE-----";
	cfg.cert_data_len = strlen("-----BEGIN CERTIFICATE-----");
	CU_ASSERT_EQUAL(config_error(&cfg, msg, sizeof(msg)), NL_ECONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "must both be specified"));
	cfg.cert_data = NULL;
	cfg.server = "ftp://example.com";
	CU_ASSERT_EQUAL(config_error(&cfg, msg, sizeof(msg)), NL_ECONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "unsupported scheme"));
}

/* A bare host:port means https, as client-go's DefaultServerURL. */
static void test_client__bare_host_means_https(void)
{
	nl_rest_config cfg = {0};
	nl_client *c = NULL;
	cfg.server = "127.0.0.1:6443/";
	CU_ASSERT_EQUAL_FATAL(nl_client_new(&c, &cfg, NULL, NULL), 0);
	CU_ASSERT_STRING_EQUAL(nl_client_server(c), "https://127.0.0.1:6443");
	CU_ASSERT_STRING_EQUAL(nl_client_namespace(c), "default");
	nl_client_free(c);
}

static CU_TestInfo tests[] = {
    {"crud_on_a_resource_path", test_client__crud_on_a_resource_path},
    {"request_metrics_count_attempts_and_time_requests",
     test_client__request_metrics_count_attempts_and_time_requests},
    {"failed_call_leaves_out_untouched", test_client__failed_call_leaves_out_untouched},
    {"stale_update_is_conflict", test_client__stale_update_is_conflict},
    {"delete_preconditions_and_propagation", test_client__delete_preconditions_and_propagation},
    {"errors_map_from_the_real_status", test_client__errors_map_from_the_real_status},
    {"lease_create_renew_and_conflict", test_client__lease_create_renew_and_conflict},
    {"retry_on_conflict_rereads", test_client__retry_on_conflict_rereads},
    {"node_and_status_subresource", test_client__node_and_status_subresource},
    {"event_record_and_list", test_client__event_record_and_list},
    {"list_pages_and_list_all", test_client__list_pages_and_list_all},
    {"patch_types", test_client__patch_types},
    {"429_with_retry_after_is_retried", test_client__429_with_retry_after_is_retried},
    {"on_attempt_tells_each_attempt", test_client__on_attempt_tells_each_attempt},
    {"retries_stop_after_ten", test_client__retries_stop_after_ten},
    {"retries_stop_at_the_request_timeout", test_client__retries_stop_at_the_request_timeout},
    {"5xx_retried_only_with_retry_after", test_client__5xx_retried_only_with_retry_after},
    {"reset_connection_retries_only_gets", test_client__reset_connection_retries_only_gets},
    {"malformed_body_is_parse_error", test_client__malformed_body_is_parse_error},
    {"request_timeout", test_client__request_timeout},
    {"rate_limit_on_the_clock", test_client__rate_limit_on_the_clock},
    {"connection_refused_is_transport_error", test_client__connection_refused_is_transport_error},
    {"tls_to_plain_http_is_tls_error", test_client__tls_to_plain_http_is_tls_error},
    {"unusable_configs_are_refused", test_client__unusable_configs_are_refused},
    {"bare_host_means_https", test_client__bare_host_means_https},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {{"client", setup, teardown, NULL, NULL, tests},
                                 CU_SUITE_INFO_NULL};
