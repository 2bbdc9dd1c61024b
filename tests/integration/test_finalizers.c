/* Finalizers and deletion over HTTP, as k8s.io/apiserver's generic registry
 * does them (registry/store.go: Delete, updateForGracefulDeletionAndFinalizers,
 * markAsDeleting, ShouldDeleteDuringUpdate; endpoints/handlers/delete.go):
 * a DELETE of an object with finalizers marks it, the update that removes
 * the last finalizer deletes it, and no finalizer can be added meanwhile.
 * The server runs on a clock the tests move by hand. */
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

#define CM "/api/v1/namespaces/default/configmaps"

static json_object *req(long want, const char *method, const char *path, const char *body)
{
	return nl_http_expect(want, base, method, path, body, NULL);
}

static const char *str(json_object *o, const char *path)
{
	const char *s = nl_json_get_string(o, path);
	return s ? s : "";
}

/* The first string of the array at path, or "". */
static const char *first(json_object *o, const char *path)
{
	json_object *a = nl_json_get_path(o, path);
	const char *s = json_object_is_type(a, json_type_array) && json_object_array_length(a)
	                    ? json_object_get_string(json_object_array_get_idx(a, 0))
	                    : NULL;
	return s ? s : "";
}

static void create_cm(const char *name, const char *finalizers)
{
	char body[512];
	snprintf(body, sizeof(body),
	         "{\"metadata\":{\"name\":\"%s\",\"finalizers\":%s},\"data\":{\"k\":\"v\"}}", name,
	         finalizers);
	json_object_put(req(201, "POST", CM, body));
}

static char *current_rv(void)
{
	json_object *l = req(200, "GET", CM, NULL);
	char *rv = strdup(str(l, "metadata.resourceVersion"));
	json_object_put(l);
	return rv;
}

/* The watch events for name since rv, as a string of letters: A(DDED),
 * M(ODIFIED), D(ELETED). The watch ends after a second. */
static void events_since(char *out, size_t outlen, const char *rv, const char *name)
{
	char path[256];
	nl_http_resp r;
	size_t n = 0;
	snprintf(path, sizeof(path), CM "?watch=1&resourceVersion=%s&timeoutSeconds=1", rv);
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

static void test_finalizers__delete_marks_the_object_and_keeps_it(void)
{
	char *rv = current_rv();
	create_cm("held", "[\"example.com/hold\"]");
	json_object *d = req(200, "DELETE", CM "/held", NULL);
	CU_ASSERT_STRING_EQUAL(str(d, "kind"), "ConfigMap");
	CU_ASSERT_STRING_EQUAL(str(d, "metadata.deletionTimestamp"), "2026-01-01T00:00:00Z");
	json_object *grace = nl_json_get_path(d, "metadata.deletionGracePeriodSeconds");
	CU_ASSERT_PTR_NOT_NULL(grace);
	CU_ASSERT_EQUAL(json_object_get_int64(grace), 0);
	json_object_put(d);

	/* A second DELETE later leaves the timestamp where it was. */
	now_usec += 30 * 1000000LL;
	d = req(200, "DELETE", CM "/held", NULL);
	CU_ASSERT_STRING_EQUAL(str(d, "metadata.deletionTimestamp"), "2026-01-01T00:00:00Z");
	json_object_put(d);
	json_object *g = req(200, "GET", CM "/held", NULL);
	CU_ASSERT_STRING_EQUAL(str(g, "metadata.deletionTimestamp"), "2026-01-01T00:00:00Z");
	CU_ASSERT_STRING_EQUAL(first(g, "metadata.finalizers"), "example.com/hold");
	json_object_put(g);

	char evs[16];
	events_since(evs, sizeof(evs), rv, "held");
	CU_ASSERT_STRING_EQUAL(evs, "AM"); /* the second DELETE changed nothing */
	free(rv);

	/* Creating it again while it is being deleted. */
	json_object *c = req(409, "POST", CM, "{\"metadata\":{\"name\":\"held\"}}");
	CU_ASSERT_STRING_EQUAL(str(c, "reason"), "AlreadyExists");
	CU_ASSERT_STRING_EQUAL(str(c, "message"),
	                       "object is being deleted: configmaps \"held\" already exists");
	json_object_put(c);
}

static void test_finalizers__immediate_delete_answers_a_status(void)
{
	create_cm("plain", "[]");
	json_object *g = req(200, "GET", CM "/plain", NULL);
	char *uid = strdup(str(g, "metadata.uid"));
	json_object_put(g);
	json_object *d = req(200, "DELETE", CM "/plain", NULL);
	CU_ASSERT_STRING_EQUAL(str(d, "kind"), "Status");
	CU_ASSERT_STRING_EQUAL(str(d, "status"), "Success");
	CU_ASSERT_STRING_EQUAL(str(d, "details.name"), "plain");
	CU_ASSERT_STRING_EQUAL(str(d, "details.kind"), "configmaps");
	CU_ASSERT_STRING_EQUAL(str(d, "details.uid"), uid);
	json_object_put(d);
	json_object_put(req(404, "GET", CM "/plain", NULL));
	free(uid);
}

static void test_finalizers__orphan_dependents_false_is_202(void)
{
	create_cm("accepted", "[\"example.com/hold\"]");
	json_object *d = req(202, "DELETE", CM "/accepted",
	                     "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\","
	                     "\"orphanDependents\":false}");
	CU_ASSERT_STRING_EQUAL(str(d, "kind"), "ConfigMap");
	CU_ASSERT_STRING_NOT_EQUAL(str(d, "metadata.deletionTimestamp"), "");
	json_object_put(d);
	/* Without finalizers the object goes at once: 200 with a Status. */
	create_cm("accepted-now", "[]");
	d = req(200, "DELETE", CM "/accepted-now", "{\"orphanDependents\":false}");
	CU_ASSERT_STRING_EQUAL(str(d, "kind"), "Status");
	json_object_put(d);
}

static void test_finalizers__put_removing_the_last_finalizer_deletes(void)
{
	create_cm("put-gone", "[\"example.com/a\",\"example.com/b\"]");
	json_object_put(req(200, "DELETE", CM "/put-gone", NULL));
	char *rv = current_rv();
	/* Removing one of two: stored, still being deleted. */
	json_object *g = req(200, "GET", CM "/put-gone", NULL);
	json_object *fins = nl_json_get_path(g, "metadata.finalizers");
	json_object_array_del_idx(fins, 0, 1);
	json_object *u = req(200, "PUT", CM "/put-gone", json_object_to_json_string(g));
	CU_ASSERT_STRING_NOT_EQUAL(str(u, "metadata.deletionTimestamp"), "");
	json_object_put(u);
	json_object_put(g);
	/* Removing the last one (the body without deletionTimestamp: an update
	 * cannot remove it) deletes the object. */
	g = req(200, "GET", CM "/put-gone", NULL);
	json_object *m = nl_json_get_path(g, "metadata");
	json_object_object_del(m, "finalizers");
	json_object_object_del(m, "deletionTimestamp");
	u = req(200, "PUT", CM "/put-gone", json_object_to_json_string(g));
	CU_ASSERT_STRING_EQUAL(str(u, "kind"), "ConfigMap");
	CU_ASSERT_STRING_EQUAL(str(u, "metadata.name"), "put-gone");
	CU_ASSERT_PTR_NULL(nl_json_get_path(u, "metadata.finalizers"));
	json_object_put(u);
	json_object_put(g);
	json_object_put(req(404, "GET", CM "/put-gone", NULL));

	char evs[16];
	events_since(evs, sizeof(evs), rv, "put-gone");
	CU_ASSERT_STRING_EQUAL(evs, "MD");
	free(rv);
}

static void test_finalizers__patch_removing_the_last_finalizer_deletes(void)
{
	create_cm("patch-gone", "[\"example.com/a\"]");
	json_object_put(req(200, "DELETE", CM "/patch-gone", NULL));
	char *rv = current_rv();
	json_object *p =
	    nl_http_expect(200, base, "PATCH", CM "/patch-gone",
	                   "{\"metadata\":{\"finalizers\":null}}", "application/merge-patch+json");
	CU_ASSERT_STRING_EQUAL(str(p, "metadata.name"), "patch-gone");
	json_object_put(p);
	json_object_put(req(404, "GET", CM "/patch-gone", NULL));
	char evs[16];
	events_since(evs, sizeof(evs), rv, "patch-gone");
	CU_ASSERT_STRING_EQUAL(evs, "D");
	free(rv);
}

/* Only an object being deleted whose finalizers go away is deleted. */
static void test_finalizers__removing_finalizers_of_a_live_object_keeps_it(void)
{
	create_cm("live", "[\"example.com/a\"]");
	json_object_put(nl_http_expect(200, base, "PATCH", CM "/live",
	                               "{\"metadata\":{\"finalizers\":null}}",
	                               "application/merge-patch+json"));
	json_object_put(req(200, "GET", CM "/live", NULL));
	json_object_put(req(200, "DELETE", CM "/live", NULL));
}

static void test_finalizers__no_new_finalizer_while_deleting(void)
{
	create_cm("no-new", "[\"example.com/a\"]");
	json_object_put(req(200, "DELETE", CM "/no-new", NULL));
	json_object *p = nl_http_expect(422, base, "PATCH", CM "/no-new",
	                                "{\"metadata\":{\"finalizers\":[\"example.com/a\","
	                                "\"example.com/b\"]}}",
	                                "application/merge-patch+json");
	CU_ASSERT_STRING_EQUAL(str(p, "reason"), "Invalid");
	CU_ASSERT_STRING_EQUAL(
	    str(p, "message"),
	    "ConfigMap \"no-new\" is invalid: metadata.finalizers: Forbidden: no "
	    "new finalizers can be added if the object is being deleted, found "
	    "new finalizers []string{\"example.com/b\"}");
	json_object *cause = json_object_array_get_idx(nl_json_get_path(p, "details.causes"), 0);
	CU_ASSERT_STRING_EQUAL(str(cause, "field"), "metadata.finalizers");
	CU_ASSERT_STRING_EQUAL(str(cause, "reason"), "FieldValueForbidden");
	json_object_put(p);
	/* Keeping the ones there is fine. */
	json_object_put(nl_http_expect(200, base, "PATCH", CM "/no-new", "{\"data\":{\"k\":\"w\"}}",
	                               "application/merge-patch+json"));
	json_object_put(nl_http_expect(200, base, "PATCH", CM "/no-new",
	                               "{\"metadata\":{\"finalizers\":null}}",
	                               "application/merge-patch+json"));
}

/* Every served kind but namespaces goes through the generic registry. */
static void test_finalizers__every_kind(void)
{
	static const struct {
		const char *coll, *body;
	} kinds[] = {
	    {"/api/v1/nodes", "{\"metadata\":{\"name\":\"fin-node\",\"finalizers\":[\"x.io/f\"]}}"},
	    {"/apis/coordination.k8s.io/v1/namespaces/default/leases",
	     "{\"metadata\":{\"name\":\"fin-lease\",\"finalizers\":[\"x.io/f\"]}}"},
	    {"/api/v1/namespaces/default/events",
	     "{\"metadata\":{\"name\":\"fin-ev\",\"finalizers\":[\"x.io/f\"]},"
	     "\"involvedObject\":{\"kind\":\"Node\",\"name\":\"n\"},\"reason\":\"R\","
	     "\"type\":\"Normal\"}"},
	};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		char path[256];
		json_object *c = req(201, "POST", kinds[i].coll, kinds[i].body);
		snprintf(path, sizeof(path), "%s/%s", kinds[i].coll, str(c, "metadata.name"));
		json_object_put(c);
		json_object *d = req(200, "DELETE", path, NULL);
		CU_ASSERT_STRING_NOT_EQUAL(str(d, "metadata.deletionTimestamp"), "");
		json_object_put(d);
		json_object_put(nl_http_expect(200, base, "PATCH", path,
		                               "{\"metadata\":{\"finalizers\":null}}",
		                               "application/merge-patch+json"));
		json_object_put(req(404, "GET", path, NULL));
	}
}

/* A Node named name (its uid in uid) and a ConfigMap of the same name it
 * owns, with finalizers fins and blockOwnerDeletion block. */
static void node_owning(char uid[64], const char *name, const char *fins, int block)
{
	char body[1024];
	snprintf(body, sizeof(body), "{\"metadata\":{\"name\":\"%s\"}}", name);
	json_object *n = req(201, "POST", "/api/v1/nodes", body);
	snprintf(uid, 64, "%s", str(n, "metadata.uid"));
	json_object_put(n);
	snprintf(body, sizeof(body),
	         "{\"metadata\":{\"name\":\"%s\",\"finalizers\":%s,\"ownerReferences\":[{"
	         "\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"%s\",\"uid\":\"%s\","
	         "\"blockOwnerDeletion\":%s}]}}",
	         name, fins, name, uid, block ? "true" : "false");
	json_object_put(req(201, "POST", CM, body));
}

static void test_finalizers__orphan_policy_is_a_finalizer_the_gc_finishes(void)
{
	char uid[64], path[128];
	node_owning(uid, "own-o", "[]", 0);
	json_object *d =
	    req(200, "DELETE", "/api/v1/nodes/own-o", "{\"propagationPolicy\":\"Orphan\"}");
	CU_ASSERT_STRING_EQUAL(first(d, "metadata.finalizers"), "orphan");
	CU_ASSERT_STRING_NOT_EQUAL(str(d, "metadata.deletionTimestamp"), "");
	json_object_put(d);
	/* Until the collector runs the dependent keeps its reference. */
	json_object *g = req(200, "GET", CM "/own-o", NULL);
	CU_ASSERT_PTR_NOT_NULL(nl_json_get_path(g, "metadata.ownerReferences"));
	json_object_put(g);
	mock_server_tick(srv);
	g = req(200, "GET", CM "/own-o", NULL);
	CU_ASSERT_PTR_NULL(nl_json_get_path(g, "metadata.ownerReferences"));
	json_object_put(g);
	json_object_put(req(404, "GET", "/api/v1/nodes/own-o", NULL));
	snprintf(path, sizeof(path), CM "/own-o");
	json_object_put(req(200, "DELETE", path, NULL));
}

static void test_finalizers__foreground_waits_for_blocking_dependents(void)
{
	char uid[64];
	node_owning(uid, "own-f", "[\"example.com/hold\"]", 1);
	/* a second dependent that does not block */
	char body[1024];
	snprintf(body, sizeof(body),
	         "{\"metadata\":{\"name\":\"own-f-free\",\"ownerReferences\":[{"
	         "\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"own-f\",\"uid\":\"%s\"}]}}",
	         uid);
	json_object_put(req(201, "POST", CM, body));
	json_object *d =
	    req(200, "DELETE", "/api/v1/nodes/own-f?propagationPolicy=Foreground", NULL);
	CU_ASSERT_STRING_EQUAL(first(d, "metadata.finalizers"), "foregroundDeletion");
	json_object_put(d);
	mock_server_tick(srv);
	json_object_put(req(404, "GET", CM "/own-f-free", NULL));
	json_object *g = req(200, "GET", CM "/own-f", NULL);
	CU_ASSERT_STRING_NOT_EQUAL(str(g, "metadata.deletionTimestamp"), "");
	json_object_put(g);
	/* blocked by own-f, which waits for its own finalizer */
	json_object_put(req(200, "GET", "/api/v1/nodes/own-f", NULL));
	json_object_put(nl_http_expect(200, base, "PATCH", CM "/own-f",
	                               "{\"metadata\":{\"finalizers\":null}}",
	                               "application/merge-patch+json"));
	mock_server_tick(srv);
	json_object_put(req(404, "GET", "/api/v1/nodes/own-f", NULL));
}

/* A Background DELETE takes the orphan finalizer off: nothing is left to
 * wait for (deletionFinalizersForGarbageCollection). */
static void test_finalizers__background_drops_the_gc_finalizers(void)
{
	create_cm("bg", "[\"orphan\"]");
	json_object *d = req(200, "DELETE", CM "/bg", "{\"propagationPolicy\":\"Background\"}");
	CU_ASSERT_STRING_EQUAL(str(d, "kind"), "Status");
	json_object_put(d);
	json_object_put(req(404, "GET", CM "/bg", NULL));
}

static void test_finalizers__dry_run_and_query_options(void)
{
	create_cm("dry", "[\"example.com/a\"]");
	json_object *d = req(200, "DELETE", CM "/dry?dryRun=All", NULL);
	CU_ASSERT_STRING_NOT_EQUAL(str(d, "metadata.deletionTimestamp"), "");
	json_object_put(d);
	json_object *g = req(200, "GET", CM "/dry", NULL);
	CU_ASSERT_PTR_NULL(nl_json_get_path(g, "metadata.deletionTimestamp"));
	json_object_put(g);
	/* orphanDependents as a query parameter, read as the codec reads it */
	d = req(202, "DELETE", CM "/dry?orphanDependents=False", NULL);
	CU_ASSERT_STRING_NOT_EQUAL(str(d, "metadata.deletionTimestamp"), "");
	json_object_put(d);
	json_object_put(nl_http_expect(200, base, "PATCH", CM "/dry",
	                               "{\"metadata\":{\"finalizers\":null}}",
	                               "application/merge-patch+json"));
}

static void test_finalizers__deletecollection_keeps_what_has_finalizers(void)
{
	char body[256];
	for (int i = 0; i < 2; i++) {
		snprintf(body, sizeof(body),
		         "{\"metadata\":{\"name\":\"dc-%d\",\"labels\":{\"dc\":\"fin\"}%s}}", i,
		         i ? ",\"finalizers\":[\"example.com/a\"]" : "");
		json_object_put(req(201, "POST", CM, body));
	}
	json_object *l = req(200, "DELETE", CM "?labelSelector=dc%3Dfin", NULL);
	json_object *items = nl_json_get_path(l, "items");
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(items), 2);
	CU_ASSERT_PTR_NULL(
	    nl_json_get_path(json_object_array_get_idx(items, 0), "metadata.deletionTimestamp"));
	CU_ASSERT_STRING_NOT_EQUAL(
	    str(json_object_array_get_idx(items, 1), "metadata.deletionTimestamp"), "");
	json_object_put(l);
	json_object_put(req(404, "GET", CM "/dc-0", NULL));
	json_object *g = req(200, "GET", CM "/dc-1", NULL);
	CU_ASSERT_STRING_NOT_EQUAL(str(g, "metadata.deletionTimestamp"), "");
	json_object_put(g);
	json_object_put(nl_http_expect(200, base, "PATCH", CM "/dc-1",
	                               "{\"metadata\":{\"finalizers\":null}}",
	                               "application/merge-patch+json"));
	json_object_put(req(404, "GET", CM "/dc-1", NULL));
}

static CU_TestInfo tests[] = {
    {"dry_run_and_query_options", test_finalizers__dry_run_and_query_options},
    {"deletecollection_keeps_what_has_finalizers",
     test_finalizers__deletecollection_keeps_what_has_finalizers},
    {"orphan_policy_is_a_finalizer_the_gc_finishes",
     test_finalizers__orphan_policy_is_a_finalizer_the_gc_finishes},
    {"foreground_waits_for_blocking_dependents",
     test_finalizers__foreground_waits_for_blocking_dependents},
    {"background_drops_the_gc_finalizers", test_finalizers__background_drops_the_gc_finalizers},
    {"delete_marks_the_object_and_keeps_it", test_finalizers__delete_marks_the_object_and_keeps_it},
    {"immediate_delete_answers_a_status", test_finalizers__immediate_delete_answers_a_status},
    {"orphan_dependents_false_is_202", test_finalizers__orphan_dependents_false_is_202},
    {"put_removing_the_last_finalizer_deletes",
     test_finalizers__put_removing_the_last_finalizer_deletes},
    {"patch_removing_the_last_finalizer_deletes",
     test_finalizers__patch_removing_the_last_finalizer_deletes},
    {"removing_finalizers_of_a_live_object_keeps_it",
     test_finalizers__removing_finalizers_of_a_live_object_keeps_it},
    {"no_new_finalizer_while_deleting", test_finalizers__no_new_finalizer_while_deleting},
    {"every_kind", test_finalizers__every_kind},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"finalizers", setup, teardown, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
