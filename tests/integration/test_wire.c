/* Wire details every answer shares with kube-apiserver 1.32, over real
 * HTTP against an in-process server on port 0: Audit-Id and the API
 * Priority and Fairness headers, gzip for large answers, boolean query
 * parameters as the parameter codec converts them, ListOptions
 * validation for lists, the Node and Event selectable fields computed as
 * the registries compute them, strict decoding of repeated member names,
 * and /version's buildDate. */
#include <nodelet/meta.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../cu_main.h"
#include "auth/flow_schema.h"
#include "http_client.h"

static mock_server *srv;
static const char *base;

static int setup(void)
{
	return nl_test_suite_server(&srv, &base, NULL);
}

static int teardown(void)
{
	mock_server_free(srv);
	return 0;
}

static json_object *req(long want, const char *method, const char *path, const char *body)
{
	return nl_http_expect(want, base, method, path, body, NULL);
}

static const char *str(json_object *o, const char *path)
{
	const char *s = o ? nl_json_get_string(o, path) : NULL;
	return s ? s : "(null)";
}

static int is_uuid(const char *s)
{
	if (strlen(s) != 36)
		return 0;
	for (int i = 0; i < 36; i++)
		if ((i == 8 || i == 13 || i == 18 || i == 23) ? s[i] != '-'
		                                              : !strchr("0123456789abcdef", s[i]))
			return 0;
	return 1;
}

#define NS_CM "/api/v1/namespaces/default/configmaps"

/* WithAuditInit: the request's Audit-ID echoed as sent, else a new UUID
 * per request; errors carry it too. */
static void test_wire__audit_id_echoed_or_fresh(void)
{
	nl_http_resp r;
	char v[128], first[64];
	static const char *const mine[] = {"audit-id: My-Own ID/1", NULL};
	CU_ASSERT_EQUAL_FATAL(nl_http_ex(&r, base, "GET", "/api/v1/namespaces", NULL, NULL, mine),
	                      0);
	CU_ASSERT_STRING_EQUAL(nl_http_header(&r, "Audit-Id", v, sizeof(v)), "My-Own ID/1");
	CU_ASSERT_EQUAL(nl_http_header_count(&r, "Audit-Id"), 1);
	nl_http_resp_free(&r);

	CU_ASSERT_EQUAL_FATAL(nl_http(&r, base, "GET", NS_CM "/missing", NULL, NULL), 0);
	CU_ASSERT_EQUAL(r.code, 404);
	nl_http_header(&r, "Audit-Id", first, sizeof(first));
	CU_ASSERT_TRUE(is_uuid(first));
	nl_http_resp_free(&r);
	CU_ASSERT_EQUAL_FATAL(nl_http(&r, base, "GET", "/healthz", NULL, NULL), 0);
	CU_ASSERT_TRUE(is_uuid(nl_http_header(&r, "Audit-Id", v, sizeof(v))));
	CU_ASSERT_STRING_NOT_EQUAL(v, first);
	nl_http_resp_free(&r);
}

/* The APF filter names the matched FlowSchema and PriorityLevel by uid on
 * every answer after authentication; a server without authentication is
 * the exempt admin, so every request matches the same pair. */
static void test_wire__priority_and_fairness_headers(void)
{
	nl_http_resp r;
	char fs[64], pl[64], fs2[64], pl2[64];
	CU_ASSERT_EQUAL_FATAL(nl_http(&r, base, "GET", "/api/v1/nodes", NULL, NULL), 0);
	CU_ASSERT_TRUE(
	    is_uuid(nl_http_header(&r, "X-Kubernetes-PF-FlowSchema-UID", fs, sizeof(fs))));
	CU_ASSERT_TRUE(
	    is_uuid(nl_http_header(&r, "X-Kubernetes-PF-PriorityLevel-UID", pl, sizeof(pl))));
	CU_ASSERT_STRING_NOT_EQUAL(fs, pl);
	nl_http_resp_free(&r);
	CU_ASSERT_EQUAL_FATAL(nl_http(&r, base, "GET", NS_CM "/nope", NULL, NULL), 0);
	CU_ASSERT_STRING_EQUAL(
	    nl_http_header(&r, "X-Kubernetes-PF-FlowSchema-UID", fs2, sizeof(fs2)), fs);
	CU_ASSERT_STRING_EQUAL(
	    nl_http_header(&r, "X-Kubernetes-PF-PriorityLevel-UID", pl2, sizeof(pl2)), pl);
	nl_http_resp_free(&r);
}

static void match(mock_flow_match *m, const char *user, const char *const *groups, size_t n,
                  const char *method, const char *path)
{
	mock_request rq;
	memset(&rq, 0, sizeof(rq));
	rq.method = method;
	rq.path = path;
	rq.user = user;
	rq.groups = groups;
	rq.ngroups = n;
	mock_flow_schema_match(m, &rq);
}

/* The bootstrap schemas by precedence: exempt (system:masters), probes
 * (GET of exactly /healthz, /livez, /readyz), system-node-high (nodes on
 * nodes, nodes/status, leases), system-nodes, global-default. */
static void test_wire__flow_schemas_by_precedence(void)
{
	static const char *const admin[] = {"system:masters", "system:authenticated"};
	static const char *const node[] = {"system:nodes", "system:authenticated"};
	static const char *const user[] = {"system:authenticated"};
	static const char *const anon[] = {"system:unauthenticated"};
	mock_flow_match m, again;
	match(&m, "admin", admin, 2, "GET", "/healthz");
	CU_ASSERT_STRING_EQUAL(m.flow_schema, "exempt");
	CU_ASSERT_STRING_EQUAL(m.priority_level, "exempt");
	match(&m, "alice", user, 1, "GET", "/livez");
	CU_ASSERT_STRING_EQUAL(m.flow_schema, "probes");
	CU_ASSERT_STRING_EQUAL(m.priority_level, "exempt");
	match(&again, "admin", admin, 2, "GET", "/api");
	CU_ASSERT_STRING_EQUAL(m.priority_level_uid, again.priority_level_uid);
	CU_ASSERT_STRING_NOT_EQUAL(m.flow_schema_uid, again.flow_schema_uid);
	match(&m, "alice", user, 1, "GET", "/healthz/ping");
	CU_ASSERT_STRING_EQUAL(m.flow_schema, "global-default");
	match(&m, "system:node:a", node, 2, "PUT",
	      "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/a");
	CU_ASSERT_STRING_EQUAL(m.flow_schema, "system-node-high");
	CU_ASSERT_STRING_EQUAL(m.priority_level, "node-high");
	match(&m, "system:node:a", node, 2, "PATCH", "/api/v1/nodes/a/status");
	CU_ASSERT_STRING_EQUAL(m.flow_schema, "system-node-high");
	match(&m, "system:node:a", node, 2, "POST", "/api/v1/namespaces/default/events");
	CU_ASSERT_STRING_EQUAL(m.flow_schema, "system-nodes");
	CU_ASSERT_STRING_EQUAL(m.priority_level, "system");
	match(&m, "system:anonymous", anon, 1, "GET", "/version");
	CU_ASSERT_STRING_EQUAL(m.flow_schema, "global-default");
	CU_ASSERT_STRING_EQUAL(m.priority_level, "global-default");
}

static void make_big_configmaps(void)
{
	size_t n = 60 * 1024;
	char *body = malloc(n + 256);
	CU_ASSERT_PTR_NOT_NULL_FATAL(body);
	for (int i = 0; i < 3; i++) {
		int k =
		    snprintf(body, 256,
		             "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
		             "\"big-%d\",\"labels\":{\"big\":\"y\"}},\"data\":{\"k\":\"",
		             i);
		memset(body + k, 'a' + i, n);
		strcpy(body + k + n, "\"}}");
		json_object_put(req(201, "POST", NS_CM, body));
	}
	free(body);
}

static char *gunzip(const char *data, size_t len, size_t *out_len)
{
	size_t cap = 1024 * 1024;
	char *out = malloc(cap + 1);
	z_stream z;
	memset(&z, 0, sizeof(z));
	CU_ASSERT_EQUAL_FATAL(inflateInit2(&z, 16 + 15), Z_OK);
	z.next_in = (Bytef *)(uintptr_t)data;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)out;
	z.avail_out = (uInt)cap;
	int rc = inflate(&z, Z_FINISH);
	*out_len = z.total_out;
	inflateEnd(&z);
	CU_ASSERT_EQUAL(rc, Z_STREAM_END);
	out[*out_len] = '\0';
	return out;
}

/* deferredResponseWriter: over 131072 bytes and a bare gzip token →
 * Content-Encoding gzip, Vary: Accept-Encoding; a token with parameters,
 * a small answer or a watch stream stays as it is. */
static void test_wire__gzip_for_large_answers(void)
{
	static const char *const gz[] = {"Accept-Encoding: deflate, gzip ,br", NULL};
	static const char *const q[] = {"Accept-Encoding: gzip;q=1.0", NULL};
	const char *list = NS_CM "?labelSelector=big%3Dy";
	nl_http_resp plain, z, r;
	char v[64];
	make_big_configmaps();
	CU_ASSERT_EQUAL_FATAL(nl_http(&plain, base, "GET", list, NULL, NULL), 0);
	CU_ASSERT(plain.len > 131072);
	CU_ASSERT_EQUAL(nl_http_header_count(&plain, "Content-Encoding"), 0);

	CU_ASSERT_EQUAL_FATAL(nl_http_ex(&z, base, "GET", list, NULL, NULL, gz), 0);
	CU_ASSERT_EQUAL(z.code, 200);
	CU_ASSERT_STRING_EQUAL(nl_http_header(&z, "Content-Encoding", v, sizeof(v)), "gzip");
	CU_ASSERT_STRING_EQUAL(nl_http_header(&z, "Vary", v, sizeof(v)), "Accept-Encoding");
	CU_ASSERT(z.len < plain.len / 10);
	size_t n = 0;
	char *un = gunzip(z.body, z.len, &n);
	CU_ASSERT_EQUAL(n, plain.len);
	CU_ASSERT(n == plain.len && memcmp(un, plain.body, n) == 0);
	free(un);
	nl_http_resp_free(&z);

	CU_ASSERT_EQUAL_FATAL(nl_http_ex(&r, base, "GET", list, NULL, NULL, q), 0);
	CU_ASSERT_EQUAL(nl_http_header_count(&r, "Content-Encoding"), 0);
	CU_ASSERT_EQUAL(r.len, plain.len);
	nl_http_resp_free(&r);
	CU_ASSERT_EQUAL_FATAL(nl_http_ex(&r, base, "GET", NS_CM "/big-0", NULL, NULL, gz), 0);
	CU_ASSERT_EQUAL(nl_http_header_count(&r, "Content-Encoding"), 0);
	CU_ASSERT_EQUAL(nl_http_header_count(&r, "Vary"), 0);
	nl_http_resp_free(&r);
	/* a watch's initial events are as large, and never compressed */
	CU_ASSERT_EQUAL_FATAL(nl_http_ex(&r, base, "GET",
	                                 NS_CM "?watch=1&timeoutSeconds=1&labelSelector=big%3Dy",
	                                 NULL, NULL, gz),
	                      0);
	CU_ASSERT(r.len > 131072);
	CU_ASSERT_EQUAL(nl_http_header_count(&r, "Content-Encoding"), 0);
	CU_ASSERT_NSTRING_EQUAL(r.body, "{\"type\":\"ADDED\"", 15);
	nl_http_resp_free(&r);
	nl_http_resp_free(&plain);
	json_object_put(req(200, "DELETE", NS_CM "?labelSelector=big%3Dy", NULL));
}

/* Convert_Slice_string_To_bool: only "0" and any case of "false" are
 * false; "", "yes" and "TRUE" are true. */
static void test_wire__boolean_parameters_as_the_codec_reads_them(void)
{
	static const char *const watches[] = {"", "yes", "TRUE", "2"};
	static const char *const lists[] = {"0", "false", "FALSE", "fAlSe"};
	char path[256];
	json_object_put(req(201, "POST", NS_CM,
	                    "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
	                    "\"boolean\"}}"));
	for (size_t i = 0; i < sizeof(watches) / sizeof(watches[0]); i++) {
		nl_http_resp r;
		snprintf(path, sizeof(path),
		         NS_CM "?watch=%s&timeoutSeconds=1&fieldSelector=metadata.name%%3Dboolean",
		         watches[i]);
		CU_ASSERT_EQUAL_FATAL(nl_http(&r, base, "GET", path, NULL, NULL), 0);
		CU_ASSERT_EQUAL(r.code, 200);
		if (strncmp(r.body, "{\"type\":\"ADDED\"", 15) != 0)
			fprintf(stderr, "\n  watch=%s: %.200s\n", watches[i], r.body);
		CU_ASSERT_NSTRING_EQUAL(r.body, "{\"type\":\"ADDED\"", 15);
		nl_http_resp_free(&r);
	}
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		snprintf(path, sizeof(path), NS_CM "?watch=%s", lists[i]);
		json_object *l = req(200, "GET", path, NULL);
		CU_ASSERT_STRING_EQUAL(str(l, "kind"), "ConfigMapList");
		json_object_put(l);
	}
	/* sendInitialEvents and allowWatchBookmarks without a value: both on,
	 * so the initial events end with the annotated bookmark */
	nl_http_resp r;
	CU_ASSERT_EQUAL_FATAL(nl_http(&r, base, "GET",
	                              NS_CM "?watch=1&sendInitialEvents=&allowWatchBookmarks=&"
	                                    "resourceVersionMatch=NotOlderThan&timeoutSeconds=1&"
	                                    "fieldSelector=metadata.name%3Dboolean",
	                              NULL, NULL),
	                      0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.body, "\"k8s.io/initial-events-end\":\"true\""));
	nl_http_resp_free(&r);
	json_object_put(req(200, "DELETE", NS_CM "/boolean", NULL));
}

/* DeleteOptions from the query when the DELETE has no body: a bare
 * orphanDependents (a *bool: set, true) orphans the dependents — the
 * `orphan` finalizer the garbage collector finishes on its next rounds
 * (decision 0037), so wait for it rather than look at once. */
static void test_wire__orphan_dependents_from_the_query(void)
{
	json_object *owner = req(201, "POST", NS_CM,
	                         "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{"
	                         "\"name\":\"owner\"}}");
	char body[512];
	snprintf(body, sizeof(body),
	         "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
	         "\"dependent\",\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":"
	         "\"ConfigMap\",\"name\":\"owner\",\"uid\":\"%s\"}]}}",
	         str(owner, "metadata.uid"));
	json_object_put(owner);
	json_object_put(req(201, "POST", NS_CM, body));
	json_object_put(req(200, "DELETE", NS_CM "/owner?orphanDependents=", NULL));
	json_object *d = NULL;
	for (int64_t end = nl_test_now_ms() + 10000;;) {
		json_object_put(d);
		d = req(200, "GET", NS_CM "/dependent", NULL);
		if (!nl_json_get_path(d, "metadata.ownerReferences") || nl_test_now_ms() > end)
			break;
		nl_test_sleep_ms(20);
	}
	CU_ASSERT_PTR_NULL(nl_json_get_path(d, "metadata.ownerReferences"));
	json_object_put(d);
	json_object_put(req(200, "DELETE", NS_CM "/dependent", NULL));
}

/* ValidateListOptions (not a watch): upstream's 422s, several at once. */
static void test_wire__list_resource_version_match_validation(void)
{
	static const struct {
		const char *query, *message;
	} cases[] = {
	    {"resourceVersionMatch=Exact",
	     "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
	     "resourceVersionMatch is forbidden unless resourceVersion is provided"},
	    {"resourceVersionMatch=Bogus&resourceVersion=5",
	     "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Unsupported value: "
	     "\"Bogus\": supported values: \"Exact\", \"NotOlderThan\", \"\""},
	    {"resourceVersionMatch=Exact&resourceVersion=0",
	     "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
	     "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""},
	    {"sendInitialEvents=false",
	     "ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: "
	     "sendInitialEvents is forbidden for list"},
	    {"resourceVersionMatch=NotOlderThan&continue=abc",
	     "ListOptions.meta.k8s.io \"\" is invalid: [resourceVersionMatch: Forbidden: "
	     "resourceVersionMatch is forbidden unless resourceVersion is provided, "
	     "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue "
	     "is provided]"},
	};
	char path[256];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(path, sizeof(path), NS_CM "?%s", cases[i].query);
		json_object *st = req(422, "GET", path, NULL);
		CU_ASSERT_STRING_EQUAL(str(st, "message"), cases[i].message);
		CU_ASSERT_STRING_EQUAL(str(st, "reason"), "Invalid");
		CU_ASSERT_STRING_EQUAL(str(st, "details.kind"), "ListOptions");
		CU_ASSERT_STRING_EQUAL(str(st, "details.group"), "meta.k8s.io");
		json_object_put(st);
	}
	/* deletecollection validates the same ListOptions */
	json_object *st = req(422, "DELETE", NS_CM "?resourceVersionMatch=Exact", NULL);
	CU_ASSERT_STRING_EQUAL(str(st, "reason"), "Invalid");
	json_object_put(st);
	json_object_put(
	    req(200, "GET", NS_CM "?resourceVersionMatch=NotOlderThan&resourceVersion=0", NULL));
}

static size_t count_items(const char *path)
{
	json_object *l = req(200, "GET", path, NULL);
	size_t n = json_object_array_length(nl_json_get_path(l, "items"));
	json_object_put(l);
	return n;
}

/* NodeToSelectableFields: strconv.FormatBool(spec.unschedulable), so a Node
 * without the field is "false"; Event "source" is source.component, else
 * reportingComponent. Lists and watches alike. */
static void test_wire__node_and_event_selectable_fields(void)
{
	json_object_put(req(201, "POST", "/api/v1/nodes",
	                    "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":"
	                    "\"sched\"}}"));
	json_object_put(req(201, "POST", "/api/v1/nodes",
	                    "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":"
	                    "\"cordoned\"},\"spec\":{\"unschedulable\":true}}"));
	json_object *l =
	    req(200, "GET", "/api/v1/nodes?fieldSelector=spec.unschedulable%3Dfalse", NULL);
	json_object *items = nl_json_get_path(l, "items");
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(items), 1);
	CU_ASSERT_STRING_EQUAL(str(json_object_array_get_idx(items, 0), "metadata.name"), "sched");
	json_object_put(l);
	CU_ASSERT_EQUAL(count_items("/api/v1/nodes?fieldSelector=spec.unschedulable%3Dtrue"), 1);
	CU_ASSERT_EQUAL(count_items("/api/v1/nodes?fieldSelector=spec.unschedulable%21%3Dtrue"), 1);
	CU_ASSERT_EQUAL(count_items("/api/v1/nodes?fieldSelector=spec.unschedulable%3D"), 0);
	nl_http_resp r;
	CU_ASSERT_EQUAL_FATAL(nl_http(&r, base, "GET",
	                              "/api/v1/nodes?watch=1&timeoutSeconds=1&fieldSelector=spec."
	                              "unschedulable%3Dfalse",
	                              NULL, NULL),
	                      0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.body, "\"name\":\"sched\""));
	CU_ASSERT_PTR_NULL(strstr(r.body, "\"name\":\"cordoned\""));
	nl_http_resp_free(&r);
	json_object_put(req(200, "DELETE", "/api/v1/nodes/sched", NULL));
	json_object_put(req(200, "DELETE", "/api/v1/nodes/cordoned", NULL));

	const char *ev = "/api/v1/namespaces/default/events";
	json_object_put(req(201, "POST", ev,
	                    "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":"
	                    "\"e1\"},\"involvedObject\":{\"kind\":\"Node\",\"name\":\"n\"},"
	                    "\"source\":{\"component\":\"kubelet\",\"host\":\"n\"},"
	                    "\"reportingComponent\":\"other\"}"));
	json_object_put(req(201, "POST", ev,
	                    "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":"
	                    "\"e2\"},\"involvedObject\":{\"kind\":\"Node\",\"name\":\"n\"},"
	                    "\"reportingComponent\":\"nodelet\"}"));
	CU_ASSERT_EQUAL(
	    count_items("/api/v1/namespaces/default/events?fieldSelector=source%3Dkubelet"), 1);
	CU_ASSERT_EQUAL(
	    count_items("/api/v1/namespaces/default/events?fieldSelector=source%3Dnodelet"), 1);
	CU_ASSERT_EQUAL(
	    count_items("/api/v1/namespaces/default/events?fieldSelector=source%3Dother"), 0);
	CU_ASSERT_EQUAL(count_items("/api/v1/events?fieldSelector=source%21%3Dkubelet"), 1);
	json_object_put(req(200, "DELETE", "/api/v1/namespaces/default/events/e1", NULL));
	json_object_put(req(200, "DELETE", "/api/v1/namespaces/default/events/e2", NULL));
}

/* sigs.k8s.io/json's DisallowDuplicateFields under fieldValidation=Strict:
 * `duplicate field "<path>"` after the strict-decoding prefix, a warning
 * each with the default Warn, nothing with Ignore; PUT too. */
static void test_wire__strict_decoding_reports_repeated_fields(void)
{
	const char *dup = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
	                  "\"dup\",\"labels\":{\"a\":\"1\",\"a\":\"2\",\"a\":\"3\"}},"
	                  "\"data\":{\"k\":\"1\",\"k\":\"2\"},\"bogus\":{\"x\":1,\"x\":2}}";
	json_object *st = req(400, "POST", NS_CM "?fieldValidation=Strict", dup);
	CU_ASSERT_STRING_EQUAL(str(st, "message"),
	                       "strict decoding error: unknown field \"bogus\", duplicate field "
	                       "\"metadata.labels.a\", duplicate field \"data.k\"");
	CU_ASSERT_STRING_EQUAL(str(st, "reason"), "BadRequest");
	json_object_put(st);

	nl_http_resp r;
	CU_ASSERT_EQUAL_FATAL(nl_http(&r, base, "POST", NS_CM, dup, NULL), 0);
	CU_ASSERT_EQUAL(r.code, 201);
	CU_ASSERT_STRING_EQUAL(r.warning,
	                       "299 - \"unknown field \\\"bogus\\\"\", 299 - \"duplicate "
	                       "field \\\"metadata.labels.a\\\"\", 299 - \"duplicate "
	                       "field \\\"data.k\\\"\"");
	json_object *o = nl_http_json(&r);
	CU_ASSERT_STRING_EQUAL(str(o, "data.k"), "2"); /* the last one, as Go */
	json_object_put(o);
	nl_http_resp_free(&r);

	st = req(400, "PUT", NS_CM "/dup?fieldValidation=Strict",
	         "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"dup\","
	         "\"name\":\"dup\"}}");
	CU_ASSERT_STRING_EQUAL(str(st, "message"),
	                       "strict decoding error: duplicate field \"metadata.name\"");
	json_object_put(st);
	CU_ASSERT_EQUAL_FATAL(
	    nl_http(&r, base, "PUT", NS_CM "/dup?fieldValidation=Ignore",
	            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"dup\","
	            "\"name\":\"dup\"},\"data\":{\"k\":\"1\",\"k\":\"1\"}}",
	            NULL),
	    0);
	CU_ASSERT_EQUAL(r.code, 200);
	CU_ASSERT_STRING_EQUAL(r.warning, "");
	nl_http_resp_free(&r);
	json_object_put(req(200, "DELETE", NS_CM "/dup", NULL));
	/* names compare decoded; a string value's quotes and braces are skipped */
	st = req(400, "POST", NS_CM "?fieldValidation=Strict",
	         "{\"metadata\":{\"name\":\"esc\",\"annotations\":{\"x\":\"a\\\"}b\"}},"
	         "\"data\":{\"k\":\"1\",\"\\u006b\":\"2\"}}");
	CU_ASSERT_STRING_EQUAL(str(st, "message"),
	                       "strict decoding error: duplicate field \"data.k\"");
	json_object_put(st);
}

/* version.Info.BuildDate as hack/lib/version.sh writes it. */
static void test_wire__build_date_is_rfc3339(void)
{
	json_object *v = req(200, "GET", "/version", NULL);
	const char *d = str(v, "buildDate");
	int y, mo, day, h, mi, s;
	char z = 0;
	CU_ASSERT_EQUAL(strlen(d), 20);
	CU_ASSERT_EQUAL(sscanf(d, "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo, &day, &h, &mi, &s, &z), 7);
	CU_ASSERT_EQUAL(z, 'Z');
	CU_ASSERT(y >= 2024 && mo >= 1 && mo <= 12 && day >= 1 && day <= 31 && h < 24);
	json_object_put(v);
}

/* isPrettyPrint: a non-empty pretty read with strconv.ParseBool, then
 * json.MarshalIndent(obj, "", "  "); /version is WriteRawJSON, always
 * indented; a watch stream never. */
static void test_wire__pretty_as_upstream_reads_it(void)
{
	static const char *const yes[] = {"1", "t", "TRUE", "True"};
	static const char *const no[] = {"yes", "", "0", "F"};
	char path[128];
	nl_http_resp r;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		snprintf(path, sizeof(path), "/api/v1/namespaces/kube-public?pretty=%s", yes[i]);
		CU_ASSERT_EQUAL_FATAL(nl_http(&r, base, "GET", path, NULL, NULL), 0);
		CU_ASSERT_NSTRING_EQUAL(
		    r.body,
		    "{\n  \"kind\": \"Namespace\",\n  \"apiVersion\": \"v1\",\n  "
		    "\"metadata\": {\n    \"name\": \"kube-public\",",
		    74);
		CU_ASSERT_PTR_NOT_NULL(strstr(r.body,
		                              "\n  \"spec\": {\n    \"finalizers\": [\n      "
		                              "\"kubernetes\"\n    ]\n  },"));
		CU_ASSERT_NOT_EQUAL(r.body[r.len - 1], '\n');
		nl_http_resp_free(&r);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		snprintf(path, sizeof(path), "/api/v1/namespaces/kube-public?pretty=%s", no[i]);
		CU_ASSERT_EQUAL_FATAL(nl_http(&r, base, "GET", path, NULL, NULL), 0);
		CU_ASSERT_NSTRING_EQUAL(r.body, "{\"kind\":\"Namespace\",", 19);
		nl_http_resp_free(&r);
	}
	/* errors are the same serializer's; empty objects stay {} */
	CU_ASSERT_EQUAL_FATAL(nl_http(&r, base, "GET", NS_CM "/none?pretty=true", NULL, NULL), 0);
	CU_ASSERT_EQUAL(r.code, 404);
	CU_ASSERT_NSTRING_EQUAL(r.body,
	                        "{\n  \"kind\": \"Status\",\n  \"apiVersion\": \"v1\",\n  "
	                        "\"metadata\": {},\n",
	                        56);
	nl_http_resp_free(&r);
	CU_ASSERT_EQUAL_FATAL(nl_http(&r, base, "GET", "/version", NULL, NULL), 0);
	CU_ASSERT_NSTRING_EQUAL(r.body, "{\n  \"major\": \"1\",\n  \"minor\": \"32\",\n", 34);
	CU_ASSERT_EQUAL(r.body[r.len - 1], '}');
	nl_http_resp_free(&r);
	CU_ASSERT_EQUAL_FATAL(
	    nl_http(
	        &r, base, "GET",
	        "/api/v1/namespaces?watch=1&pretty=true&timeoutSeconds=1&fieldSelector=metadata."
	        "name%3Ddefault",
	        NULL, NULL),
	    0);
	CU_ASSERT_NSTRING_EQUAL(r.body, "{\"type\":\"ADDED\",", 16);
	nl_http_resp_free(&r);
}

static CU_TestInfo tests[] = {
    {"pretty_as_upstream_reads_it", test_wire__pretty_as_upstream_reads_it},
    {"audit_id_echoed_or_fresh", test_wire__audit_id_echoed_or_fresh},
    {"priority_and_fairness_headers", test_wire__priority_and_fairness_headers},
    {"flow_schemas_by_precedence", test_wire__flow_schemas_by_precedence},
    {"gzip_for_large_answers", test_wire__gzip_for_large_answers},
    {"boolean_parameters_as_the_codec_reads_them",
     test_wire__boolean_parameters_as_the_codec_reads_them},
    {"orphan_dependents_from_the_query", test_wire__orphan_dependents_from_the_query},
    {"list_resource_version_match_validation", test_wire__list_resource_version_match_validation},
    {"node_and_event_selectable_fields", test_wire__node_and_event_selectable_fields},
    {"strict_decoding_reports_repeated_fields", test_wire__strict_decoding_reports_repeated_fields},
    {"build_date_is_rfc3339", test_wire__build_date_is_rfc3339},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"wire", setup, teardown, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
