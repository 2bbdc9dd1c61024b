/* The fault schema (issue 4), the matcher field by field, budget accounting
 * (times, after, probability with a seeded PRNG) and the Status bodies a
 * status fault answers (k8s-api.md §1). No HTTP: see
 * tests/integration/test_control.c for faults on the wire. */
#include <stdlib.h>
#include <string.h>

#include "../cu_main.h"
#include "api/route.h"
#include "control/faults.h"
#include "mockapi.h"

static mock_fault *parse_ok(const char *text)
{
	json_object *spec = nl_test_json(text);
	mock_fault *f = NULL;
	nl_err err = {0};
	int rc = mock_fault_parse(&f, spec, &err);
	if (rc != 0)
		fprintf(stderr, "\n%s: %s\n", text, err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	json_object_put(spec);
	return f;
}

/* Parse must fail with NL_EINVALID and a message starting with want. */
static void parse_bad(const char *text, const char *want)
{
	json_object *spec = nl_test_json(text);
	mock_fault *f = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL(mock_fault_parse(&f, spec, &err), NL_EINVALID);
	CU_ASSERT_PTR_NULL(f);
	if (strncmp(err.msg, want, strlen(want)) != 0)
		fprintf(stderr, "\n%s\n  want prefix %s\n  got %s\n", text, want, err.msg);
	CU_ASSERT_EQUAL(strncmp(err.msg, want, strlen(want)), 0);
	json_object_put(spec);
}

static mock_req_attrs attrs(const char *method, const char *path, const char *watch)
{
	mock_req_attrs a;
	mock_request_attrs(&a, method, path, watch, NULL);
	return a;
}

static int decide(mock_faults *fs, const mock_req_attrs *a, const char *ua, char *id_out)
{
	mock_fault_request r = {a, ua, NULL};
	mock_fault_hit hit;
	int fired = mock_faults_decide(fs, &r, &hit);
	if (fired) {
		if (id_out)
			strcpy(id_out, hit.id);
		mock_fault_hit_clear(&hit);
	}
	return fired;
}

static mock_faults *registry_with(const char *text, uint64_t seed)
{
	mock_faults *fs = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(mock_faults_new(&fs, seed), 0);
	json_object *spec = nl_test_json(text);
	int rc = mock_faults_add_json(NULL, fs, spec, &err);
	if (rc != 0)
		fprintf(stderr, "\n%s\n", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	json_object_put(spec);
	return fs;
}

#define LEASE "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/edge-1"

static void test_faults__issue_examples_parse(void)
{
	static const char *const examples[] = {
	    "{\"match\":{\"verb\":\"update\",\"resource\":\"leases\",\"group\":"
	    "\"coordination.k8s.io\",\"namespace\":\"kube-node-lease\",\"name\":\"edge-1\","
	    "\"userAgent\":\"nodelet\",\"user\":\"system:node:edge-1\",\"after\":0},"
	    "\"action\":{\"status\":409},\"times\":1,\"probability\":1.0}",
	    "{\"action\":{\"status\":429,\"retryAfterSeconds\":3}}",
	    "{\"action\":{\"status\":200,\"body\":{\"kind\":\"Lease\"}}}",
	    "{\"action\":{\"delayMs\":400}}",
	    "{\"action\":{\"delayMs\":[100,900]}}",
	    "{\"action\":{\"drop\":true}}",
	    "{\"action\":{\"truncate\":20}}",
	    "{\"action\":{\"malformed\":true}}",
	    "{\"action\":{\"malformed\":\"{not json\"}}",
	    "{\"action\":{\"watch\":{\"closeAfterEvents\":3}}}",
	    "{\"action\":{\"watch\":{\"expire\":true}}}",
	    "{\"action\":{\"watch\":{\"stall\":true}}}",
	    "{\"match\":{\"resource\":\"nodes/status\"},\"action\":{\"delayMs\":5,\"status\":"
	    "503},\"times\":0,\"probability\":0.5,\"id\":\"slow-503\"}",
	};
	for (size_t i = 0; i < sizeof(examples) / sizeof(examples[0]); i++)
		mock_fault_free(parse_ok(examples[i]));
}

static void test_faults__schema_errors_name_the_field(void)
{
	parse_bad("[]", "a fault must be a JSON object");
	parse_bad("{\"match\":{}}", "action: is required");
	parse_bad("{\"action\":{}}", "action: needs one of");
	parse_bad("{\"match\":{\"resources\":\"leases\"},\"action\":{\"drop\":true}}",
	          "match.resources: unknown field");
	parse_bad("{\"match\":{\"verb\":\"UPDATE\"},\"action\":{\"drop\":true}}", "match.verb:");
	parse_bad("{\"match\":{\"resource\":\"nodes/\"},\"action\":{\"drop\":true}}",
	          "match.resource:");
	parse_bad("{\"match\":{\"after\":-1},\"action\":{\"drop\":true}}", "match.after:");
	parse_bad("{\"action\":{\"status\":99}}", "action.status:");
	parse_bad("{\"action\":{\"status\":\"409\"}}", "action.status: must be an integer");
	parse_bad("{\"action\":{\"status\":409,\"drop\":true}}", "action: status, drop");
	parse_bad("{\"action\":{\"retryAfterSeconds\":3,\"delayMs\":1}}",
	          "action: body and retryAfterSeconds need status");
	parse_bad("{\"action\":{\"delayMs\":[900,100]}}", "action.delayMs: min must not exceed");
	parse_bad("{\"action\":{\"delayMs\":600001}}", "action.delayMs:");
	parse_bad("{\"action\":{\"drop\":1}}", "action.drop: must be a boolean");
	parse_bad("{\"action\":{\"malformed\":false}}", "action.malformed:");
	parse_bad("{\"action\":{\"watch\":{}}}", "action.watch: must hold exactly one");
	parse_bad("{\"action\":{\"watch\":{\"expire\":true,\"stall\":true}}}",
	          "action.watch: must hold exactly one");
	parse_bad("{\"action\":{\"watch\":{\"closeAfterEvents\":0}}}",
	          "action.watch.closeAfterEvents:");
	parse_bad("{\"match\":{\"verb\":\"get\"},\"action\":{\"watch\":{\"expire\":true}}}",
	          "action.watch: only applies");
	parse_bad("{\"action\":{\"drop\":true},\"times\":-1}", "times:");
	parse_bad("{\"action\":{\"drop\":true},\"probability\":1.5}", "probability:");
	parse_bad("{\"action\":{\"drop\":true},\"id\":\"Bad Id\"}", "id:");
	parse_bad("{\"action\":{\"drop\":true},\"extra\":1}", "extra: unknown field");
}

static void test_faults__request_attributes_follow_the_audit_log(void)
{
	mock_req_attrs a = attrs("PUT", LEASE, NULL);
	CU_ASSERT_STRING_EQUAL(a.verb, "update");
	CU_ASSERT_STRING_EQUAL(a.resource, "leases");
	CU_ASSERT_STRING_EQUAL(a.group, "coordination.k8s.io");
	CU_ASSERT_STRING_EQUAL(a.ns, "kube-node-lease");
	CU_ASSERT_STRING_EQUAL(a.name, "edge-1");
	a = attrs("GET", "/api/v1/nodes", "true");
	CU_ASSERT_STRING_EQUAL(a.verb, "watch");
	a = attrs("GET", "/api/v1/nodes", "false");
	CU_ASSERT_STRING_EQUAL(a.verb, "list");
	a = attrs("PUT", "/api/v1/nodes/edge-1/status", NULL);
	CU_ASSERT_STRING_EQUAL(a.resource, "nodes");
	CU_ASSERT_STRING_EQUAL(a.subresource, "status");
	CU_ASSERT_STRING_EQUAL(a.group, "");
	a = attrs("DELETE", "/api/v1/namespaces/default/configmaps", NULL);
	CU_ASSERT_STRING_EQUAL(a.verb, "deletecollection");
	a = attrs("PATCH", "/api/v1/nodes/edge-1", NULL);
	CU_ASSERT_STRING_EQUAL(a.verb, "patch");
	/* Non-resource requests: the lower-case method, no resource. */
	a = attrs("GET", "/version", NULL);
	CU_ASSERT_STRING_EQUAL(a.verb, "get");
	CU_ASSERT_PTR_NULL(a.res);
	CU_ASSERT_STRING_EQUAL(a.resource, "");
	a = attrs("POST", "/api/v1/nodes/x", NULL);
	CU_ASSERT_STRING_EQUAL(a.verb, "post");
	/* A list pinned to one name by a field selector reports that name. */
	mock_request_attrs(&a, "GET",
	                   "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", "true",
	                   "metadata.name=edge-1");
	CU_ASSERT_STRING_EQUAL(a.verb, "watch");
	CU_ASSERT_STRING_EQUAL(a.name, "edge-1");
}

/* Each match field selects exactly the requests it names. */
static void test_faults__each_match_field(void)
{
	static const struct {
		const char *match;
		const char *method, *path, *ua;
		int want;
	} cases[] = {
	    {"{\"verb\":\"update\"}", "PUT", LEASE, NULL, 1},
	    {"{\"verb\":\"update\"}", "GET", LEASE, NULL, 0},
	    {"{\"verb\":\"get\"}", "GET", "/version", NULL, 1},
	    {"{\"resource\":\"leases\"}", "GET", LEASE, NULL, 1},
	    {"{\"resource\":\"nodes\"}", "GET", LEASE, NULL, 0},
	    {"{\"resource\":\"nodes\"}", "PUT", "/api/v1/nodes/n1/status", NULL, 0},
	    {"{\"resource\":\"nodes/status\"}", "PUT", "/api/v1/nodes/n1/status", NULL, 1},
	    {"{\"resource\":\"nodes/status\"}", "PUT", "/api/v1/nodes/n1", NULL, 0},
	    {"{\"group\":\"coordination.k8s.io\"}", "GET", LEASE, NULL, 1},
	    {"{\"group\":\"\"}", "GET", LEASE, NULL, 0},
	    {"{\"group\":\"\"}", "GET", "/api/v1/nodes", NULL, 1},
	    {"{\"namespace\":\"kube-node-lease\"}", "GET", LEASE, NULL, 1},
	    {"{\"namespace\":\"default\"}", "GET", LEASE, NULL, 0},
	    {"{\"name\":\"edge-1\"}", "GET", LEASE, NULL, 1},
	    {"{\"name\":\"edge-2\"}", "GET", LEASE, NULL, 0},
	    {"{\"userAgent\":\"nodelet\"}", "GET", LEASE, "nodelet/0.1 (linux)", 1},
	    {"{\"userAgent\":\"nodelet\"}", "GET", LEASE, "kubectl/v1.32.0", 0},
	    {"{\"userAgent\":\"nodelet\"}", "GET", LEASE, NULL, 0},
	    /* No authentication yet: every request's user is "". */
	    {"{\"user\":\"system:node:edge-1\"}", "GET", LEASE, NULL, 0},
	    {"{}", "DELETE", LEASE, NULL, 1},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char spec[256];
		snprintf(spec, sizeof(spec), "{\"match\":%s,\"action\":{\"status\":500}}",
		         cases[i].match);
		mock_fault *f = parse_ok(spec);
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		mock_req_attrs a = attrs(cases[i].method, cases[i].path, NULL);
		mock_fault_request r = {&a, cases[i].ua, ""};
		int got = mock_fault_matches(f, &r);
		if (got != cases[i].want)
			fprintf(stderr, "\ncase %zu: %s %s %s: want %d\n", i, cases[i].match,
			        cases[i].method, cases[i].path, cases[i].want);
		CU_ASSERT_EQUAL(got, cases[i].want);
		mock_fault_free(f);
	}
}

static void test_faults__stream_and_body_faults_pick_their_requests(void)
{
	mock_req_attrs w = attrs("GET", "/api/v1/nodes", "true");
	mock_req_attrs l = attrs("GET", "/api/v1/nodes", NULL);
	mock_fault_request rw = {&w, NULL, NULL}, rl = {&l, NULL, NULL};
	mock_fault *watch = parse_ok("{\"action\":{\"watch\":{\"expire\":true}}}");
	mock_fault *trunc = parse_ok("{\"action\":{\"truncate\":3}}");
	CU_ASSERT_TRUE(mock_fault_matches(watch, &rw));
	CU_ASSERT_FALSE(mock_fault_matches(watch, &rl));
	CU_ASSERT_FALSE(mock_fault_matches(trunc, &rw));
	CU_ASSERT_TRUE(mock_fault_matches(trunc, &rl));
	mock_fault_free(watch);
	mock_fault_free(trunc);
}

static void test_faults__times_limits_firing(void)
{
	mock_faults *fs = registry_with("{\"match\":{\"verb\":\"get\"},\"action\":{\"status\":"
	                                "500},\"times\":2}",
	                                1);
	mock_req_attrs a = attrs("GET", LEASE, NULL);
	mock_req_attrs other = attrs("PUT", LEASE, NULL);
	CU_ASSERT_FALSE(decide(fs, &other, NULL, NULL)); /* no match, no budget used */
	CU_ASSERT_TRUE(decide(fs, &a, NULL, NULL));
	CU_ASSERT_TRUE(decide(fs, &a, NULL, NULL));
	CU_ASSERT_FALSE(decide(fs, &a, NULL, NULL));
	json_object *list = mock_faults_list_json(fs);
	NL_ASSERT_JSON_EQ(list, "[{\"id\":\"fault-1\",\"match\":{\"verb\":\"get\"},\"action\":{"
	                        "\"status\":500},\"times\":2,\"probability\":1.0,\"remaining\":0,"
	                        "\"matched\":3,\"fired\":2}]");
	json_object_put(list);
	mock_faults_free(fs);
}

static void test_faults__times_zero_means_until_removed(void)
{
	mock_faults *fs = registry_with("{\"action\":{\"drop\":true},\"times\":0,\"id\":\"x\"}", 1);
	mock_req_attrs a = attrs("GET", LEASE, NULL);
	for (int i = 0; i < 50; i++)
		CU_ASSERT_TRUE(decide(fs, &a, NULL, NULL));
	json_object *f = mock_faults_get(fs, "x");
	CU_ASSERT_TRUE(json_object_is_type(json_object_object_get(f, "remaining"), json_type_null));
	json_object_put(f);
	json_object *removed = NULL;
	CU_ASSERT_EQUAL(mock_faults_remove(&removed, fs, "x"), 0);
	CU_ASSERT_EQUAL(json_object_get_int(json_object_object_get(removed, "fired")), 50);
	json_object_put(removed);
	CU_ASSERT_EQUAL(mock_faults_remove(NULL, fs, "x"), NL_ENOTFOUND);
	CU_ASSERT_FALSE(decide(fs, &a, NULL, NULL));
	mock_faults_free(fs);
}

static void test_faults__after_skips_the_first_matches(void)
{
	mock_faults *fs = registry_with("{\"match\":{\"verb\":\"update\",\"after\":2},"
	                                "\"action\":{\"status\":409}}",
	                                1);
	mock_req_attrs put = attrs("PUT", LEASE, NULL), get = attrs("GET", LEASE, NULL);
	CU_ASSERT_FALSE(decide(fs, &put, NULL, NULL));
	CU_ASSERT_FALSE(decide(fs, &get, NULL, NULL)); /* not a match: does not count */
	CU_ASSERT_FALSE(decide(fs, &put, NULL, NULL));
	CU_ASSERT_TRUE(decide(fs, &put, NULL, NULL));
	CU_ASSERT_FALSE(decide(fs, &put, NULL, NULL)); /* times 1 spent */
	mock_faults_free(fs);
}

static void test_faults__first_eligible_fault_fires_others_still_count(void)
{
	mock_faults *fs = registry_with("[{\"id\":\"a\",\"match\":{\"verb\":\"get\"},\"action\":{"
	                                "\"status\":500}},{\"id\":\"b\",\"action\":{\"status\":"
	                                "503},\"match\":{\"after\":1}}]",
	                                1);
	mock_req_attrs get = attrs("GET", LEASE, NULL);
	char id[MOCK_FAULT_ID_MAX] = "";
	CU_ASSERT_TRUE(decide(fs, &get, NULL, id));
	CU_ASSERT_STRING_EQUAL(id, "a");
	/* b saw the first request too, so it is past its offset now. */
	CU_ASSERT_TRUE(decide(fs, &get, NULL, id));
	CU_ASSERT_STRING_EQUAL(id, "b");
	CU_ASSERT_FALSE(decide(fs, &get, NULL, id));
	mock_faults_free(fs);
}

static void firing_sequence(char *out, size_t n, uint64_t seed)
{
	mock_faults *fs = registry_with("{\"action\":{\"status\":503},\"times\":0,\"probability\":"
	                                "0.3}",
	                                seed);
	mock_req_attrs a = attrs("GET", LEASE, NULL);
	for (size_t i = 0; i < n; i++)
		out[i] = decide(fs, &a, NULL, NULL) ? '1' : '0';
	out[n] = '\0';
	mock_faults_free(fs);
}

static void test_faults__seeded_probability_is_reproducible(void)
{
	char a[201], b[201], c[201];
	firing_sequence(a, 200, 42);
	firing_sequence(b, 200, 42);
	firing_sequence(c, 200, 43);
	CU_ASSERT_STRING_EQUAL(a, b);
	CU_ASSERT_STRING_NOT_EQUAL(a, c);
	/* About 30% fire: 60 expected, far from never and always. */
	int fired = 0;
	for (int i = 0; i < 200; i++)
		fired += a[i] == '1';
	CU_ASSERT_TRUE(fired > 35 && fired < 85);
}

static void test_faults__probability_zero_never_fires(void)
{
	mock_faults *fs =
	    registry_with("{\"action\":{\"status\":503},\"times\":0,\"probability\":0}", 7);
	mock_req_attrs a = attrs("GET", LEASE, NULL);
	for (int i = 0; i < 100; i++)
		CU_ASSERT_FALSE(decide(fs, &a, NULL, NULL));
	mock_faults_free(fs);
}

static void test_faults__delay_range_is_drawn_within_bounds(void)
{
	mock_faults *fs = registry_with("{\"action\":{\"delayMs\":[100,900]},\"times\":0}", 5);
	mock_req_attrs a = attrs("GET", LEASE, NULL);
	mock_fault_request r = {&a, NULL, NULL};
	unsigned lo = 1000, hi = 0;
	for (int i = 0; i < 200; i++) {
		mock_fault_hit h;
		CU_ASSERT_TRUE_FATAL(mock_faults_decide(fs, &r, &h));
		CU_ASSERT_EQUAL(h.kind, MOCK_FAULT_DELAY_ONLY);
		lo = h.delay_ms < lo ? h.delay_ms : lo;
		hi = h.delay_ms > hi ? h.delay_ms : hi;
		mock_fault_hit_clear(&h);
	}
	CU_ASSERT_TRUE(lo >= 100 && lo < 200);
	CU_ASSERT_TRUE(hi <= 900 && hi > 800);
	mock_faults_free(fs);
}

static void test_faults__a_list_is_added_all_or_nothing(void)
{
	mock_faults *fs = registry_with("{\"id\":\"taken\",\"action\":{\"drop\":true}}", 1);
	nl_err err = {0};
	json_object *spec = nl_test_json("[{\"action\":{\"drop\":true}},{\"id\":\"taken\","
	                                 "\"action\":{\"drop\":true}}]");
	CU_ASSERT_EQUAL(mock_faults_add_json(NULL, fs, spec, &err), NL_EEXISTS);
	CU_ASSERT_STRING_EQUAL(err.msg, "[1].id: a fault named \"taken\" already exists");
	json_object_put(spec);
	spec = nl_test_json("[{\"action\":{\"drop\":true}},{\"action\":{\"nope\":1}}]");
	CU_ASSERT_EQUAL(mock_faults_add_json(NULL, fs, spec, &err), NL_EINVALID);
	CU_ASSERT_STRING_EQUAL(err.msg, "[1].action.nope: unknown field");
	json_object_put(spec);
	json_object *list = mock_faults_list_json(fs);
	CU_ASSERT_EQUAL(json_object_array_length(list), 1);
	json_object_put(list);

	json_object *added = NULL;
	spec = nl_test_json("[{\"action\":{\"drop\":true}},{\"action\":{\"status\":500}}]");
	CU_ASSERT_EQUAL(mock_faults_add_json(&added, fs, spec, &err), 0);
	CU_ASSERT_EQUAL(json_object_array_length(added), 2);
	json_object_put(added);
	json_object_put(spec);
	json_object *all = NULL;
	mock_faults_clear(&all, fs);
	CU_ASSERT_EQUAL(json_object_array_length(all), 3);
	json_object_put(all);
	list = mock_faults_list_json(fs);
	CU_ASSERT_EQUAL(json_object_array_length(list), 0);
	json_object_put(list);
	mock_faults_free(fs);
}

static void assert_status(int code, int retry, const char *method, const char *path,
                          const char *want)
{
	mock_fault_hit h;
	memset(&h, 0, sizeof(h));
	h.kind = MOCK_FAULT_STATUS;
	h.status = code;
	h.retry_after = retry;
	mock_req_attrs a = attrs(method, path, NULL);
	nl_status *st = mock_fault_status(&h, &a, "5", 120, MOCK_DEFAULT_MAX_BODY);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	json_object *got = nl_status_to_json(st);
	NL_ASSERT_JSON_EQ(got, want);
	json_object_put(got);
	nl_status_free(st);
}

static void test_faults__status_bodies_are_apimachinery_s(void)
{
	assert_status(409, 0, "PUT", LEASE,
	              "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
	              "\"Failure\",\"message\":\"Operation cannot be fulfilled on "
	              "leases.coordination.k8s.io \\\"edge-1\\\": the object has been modified; "
	              "please apply your changes to the latest version and try again\",\"reason\":"
	              "\"Conflict\",\"details\":{\"name\":\"edge-1\",\"group\":"
	              "\"coordination.k8s.io\",\"kind\":\"leases\"},\"code\":409}");
	assert_status(
	    404, 0, "GET", "/api/v1/nodes/n1",
	    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
	    "\"Failure\",\"message\":\"nodes \\\"n1\\\" not found\",\"reason\":"
	    "\"NotFound\",\"details\":{\"name\":\"n1\",\"kind\":\"nodes\"},\"code\":404}");
	assert_status(410, 0, "GET", "/api/v1/nodes",
	              "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
	              "\"Failure\",\"message\":\"too old resource version: 5 (120)\",\"reason\":"
	              "\"Expired\",\"code\":410}");
	assert_status(429, 3, "GET", "/api/v1/nodes",
	              "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
	              "\"Failure\",\"message\":\"Too many requests, please try again later.\","
	              "\"reason\":\"TooManyRequests\",\"details\":{\"retryAfterSeconds\":3},"
	              "\"code\":429}");
	assert_status(429, 0, "GET", "/api/v1/nodes",
	              "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
	              "\"Failure\",\"message\":\"Too many requests, please try again later.\","
	              "\"reason\":\"TooManyRequests\",\"details\":{\"retryAfterSeconds\":1},"
	              "\"code\":429}");
	assert_status(500, 0, "GET", "/api/v1/nodes",
	              "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
	              "\"Failure\",\"message\":\"Internal error occurred: fault injected by "
	              "nodelet-mockapi\",\"reason\":\"InternalError\",\"details\":{\"causes\":[{"
	              "\"message\":\"fault injected by nodelet-mockapi\"}]},\"code\":500}");
	assert_status(503, 0, "GET", "/api/v1/nodes",
	              "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
	              "\"Failure\",\"message\":\"the server is currently unable to handle the "
	              "request\",\"reason\":\"ServiceUnavailable\",\"code\":503}");
	assert_status(504, 0, "GET", "/api/v1/nodes",
	              "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
	              "\"Failure\",\"message\":\"Timeout: request did not complete within "
	              "requested timeout - context deadline exceeded\",\"reason\":\"Timeout\","
	              "\"code\":504}");
	assert_status(
	    422, 0, "PUT", LEASE,
	    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
	    "\"Failure\",\"message\":\"Lease.coordination.k8s.io \\\"edge-1\\\" is "
	    "invalid: metadata.name: Invalid value: \\\"edge-1\\\": fault injected by "
	    "nodelet-mockapi\",\"reason\":\"Invalid\",\"details\":{\"name\":\"edge-1\","
	    "\"group\":\"coordination.k8s.io\",\"kind\":\"Lease\",\"causes\":[{\"reason\":"
	    "\"FieldValueInvalid\",\"message\":\"Invalid value: \\\"edge-1\\\": fault "
	    "injected by nodelet-mockapi\",\"field\":\"metadata.name\"}]},\"code\":422}");
	assert_status(200, 0, "GET", "/version",
	              "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
	              "\"Success\",\"code\":200}");
}

static CU_TestInfo tests[] = {
    {"issue_examples_parse", test_faults__issue_examples_parse},
    {"schema_errors_name_the_field", test_faults__schema_errors_name_the_field},
    {"request_attributes_follow_the_audit_log",
     test_faults__request_attributes_follow_the_audit_log},
    {"each_match_field", test_faults__each_match_field},
    {"stream_and_body_faults_pick_their_requests",
     test_faults__stream_and_body_faults_pick_their_requests},
    {"times_limits_firing", test_faults__times_limits_firing},
    {"times_zero_means_until_removed", test_faults__times_zero_means_until_removed},
    {"after_skips_the_first_matches", test_faults__after_skips_the_first_matches},
    {"first_eligible_fault_fires_others_still_count",
     test_faults__first_eligible_fault_fires_others_still_count},
    {"seeded_probability_is_reproducible", test_faults__seeded_probability_is_reproducible},
    {"probability_zero_never_fires", test_faults__probability_zero_never_fires},
    {"delay_range_is_drawn_within_bounds", test_faults__delay_range_is_drawn_within_bounds},
    {"a_list_is_added_all_or_nothing", test_faults__a_list_is_added_all_or_nothing},
    {"status_bodies_are_apimachinery_s", test_faults__status_bodies_are_apimachinery_s},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"faults", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
