/* Results: every golden Status maps to its code and client-go predicate
 * with the message unchanged; answers that are not a Status get the one
 * client-go's NewGenericServerResponse builds. */
#include <nodelet/result.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../client/kube/kube.h"
#include "../cu_main.h"

/* The result of a non-2xx answer with this body. */
static int from_http(nl_result *r, long http, const char *ct, const char *body, const char *verb,
                     const char *group, const char *resource, const char *name, int retry)
{
	nl__target t = {verb, group, resource, name};
	nl_result_init(r);
	return nl__result_from_http(r, http, ct, body, body ? strlen(body) : 0, &t, retry);
}

static char *slurp(const char *rel)
{
	FILE *f = fopen(nl_test_fixture(rel), "rb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	static char buf[8192];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static void golden(const char *file, long http, int want, int (*pred)(const nl_result *))
{
	nl_result r;
	char *body = slurp(file);
	json_object *j = json_tokener_parse(body);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	int rc = from_http(&r, http, "application/json", body, "GET", NULL, NULL, NULL, 0);
	if (rc != want)
		fprintf(stderr, "\n%s: want %s got %s\n", file, nl_strerror(want), nl_strerror(rc));
	CU_ASSERT_EQUAL(rc, want);
	CU_ASSERT_EQUAL(r.code, want);
	CU_ASSERT_EQUAL(r.http_status, http);
	CU_ASSERT_TRUE(pred(&r));
	CU_ASSERT_FALSE(nl_is_unexpected_server_error(&r));
	/* The Status survives unchanged: message verbatim, re-encoded equal. */
	CU_ASSERT_STRING_EQUAL(r.message,
	                       json_object_get_string(json_object_object_get(j, "message")));
	json_object *back = nl_status_to_json(r.status);
	CU_ASSERT_TRUE(json_object_equal(back, j));
	json_object_put(back);
	json_object_put(j);
	nl_result_clear(&r);
	CU_ASSERT_PTR_NULL(r.status);
}

static int not_conflict_but_exists(const nl_result *r)
{
	return nl_is_already_exists(r) && !nl_is_conflict(r);
}

static int expired_not_gone(const nl_result *r)
{
	return nl_is_resource_expired(r) && !nl_is_gone(r);
}

static void test_result__golden_statuses_map_to_codes(void)
{
	golden("status/not-found-configmap.json", 404, NL_ENOTFOUND, nl_is_not_found);
	golden("status/not-found-lease.json", 404, NL_ENOTFOUND, nl_is_not_found);
	golden("status/unknown-path.json", 404, NL_ENOTFOUND, nl_is_not_found);
	golden("status/conflict-lease.json", 409, NL_ECONFLICT, nl_is_conflict);
	golden("status/already-exists-configmap.json", 409, NL_EEXISTS, not_conflict_but_exists);
	golden("status/invalid-lease-duration.json", 422, NL_EINVALID, nl_is_invalid);
	golden("status/invalid-lease-two-causes.json", 422, NL_EINVALID, nl_is_invalid);
	golden("status/bad-request-name-mismatch.json", 400, NL_EBADREQUEST, nl_is_bad_request);
	golden("status/method-not-allowed.json", 405, NL_EMETHOD, nl_is_method_not_supported);
	golden("status/too-large.json", 413, NL_ETOOBIG, nl_is_request_entity_too_large);
	golden("status/expired.json", 410, NL_EGONE, expired_not_gone);
	golden("status/internal.json", 500, NL_ESERVER, nl_is_internal_error);
	golden("status/timeout-too-large-rv.json", 504, NL_ETIMEOUT, nl_is_timeout);
}

static void test_result__server_timeout_suggests_delay(void)
{
	nl_result r;
	int secs = 0;
	from_http(&r, 504, "application/json", slurp("status/timeout-too-large-rv.json"), "GET",
	          NULL, NULL, NULL, 0);
	CU_ASSERT_TRUE(nl_suggests_client_delay(&r, &secs));
	CU_ASSERT_EQUAL(secs, 1);
	nl_result_clear(&r);
	from_http(&r, 404, "application/json", slurp("status/not-found-lease.json"), "GET", NULL,
	          NULL, NULL, 0);
	CU_ASSERT_FALSE(nl_suggests_client_delay(&r, &secs));
	nl_result_clear(&r);
}

/* The real throttle's plain text 429, as client-go turns it into a Status. */
static void test_result__plain_text_429_becomes_too_many_requests(void)
{
	nl_result r;
	int rc = from_http(&r, 429, "text/plain; charset=utf-8",
	                   "Too many requests, please try again later.\n", "GET",
	                   "coordination.k8s.io", "leases", "n1", 1);
	CU_ASSERT_EQUAL(rc, NL_ETOOMANYREQUESTS);
	CU_ASSERT_TRUE(nl_is_too_many_requests(&r));
	CU_ASSERT_TRUE(nl_is_unexpected_server_error(&r));
	CU_ASSERT_STRING_EQUAL(nl_result_reason(&r), "TooManyRequests");
	CU_ASSERT_STRING_EQUAL(r.message,
	                       "the server has received too many requests and has asked "
	                       "us to try again later (get leases.coordination.k8s.io n1)");
	json_object *j = nl_status_to_json(r.status);
	NL_ASSERT_JSON_EQ(
	    j, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
	       "\"message\":\"the server has received too many requests and has asked us to try "
	       "again later (get leases.coordination.k8s.io n1)\",\"reason\":\"TooManyRequests\","
	       "\"details\":{\"name\":\"n1\",\"group\":\"coordination.k8s.io\",\"kind\":\"leases\","
	       "\"causes\":[{\"reason\":\"UnexpectedServerResponse\",\"message\":\"Too many "
	       "requests, please try again later.\"}],\"retryAfterSeconds\":1},\"code\":429}");
	json_object_put(j);
	nl_result_clear(&r);
}

typedef struct {
	long http;
	const char *ct;
	const char *body;
	const char *verb;
	const char *resource;
	const char *name;
	int code;
	const char *reason;
	const char *message;
} generic_case;

static void test_result__non_status_bodies_get_client_go_statuses(void)
{
	static const generic_case cases[] = {
	    {401, NULL, "", "GET", NULL, NULL, NL_EUNAUTHORIZED, "Unauthorized",
	     "the server has asked for the client to provide credentials"},
	    {403, "text/plain", "nope: user x cannot get nodes\n", "GET", "nodes", "n1",
	     NL_EFORBIDDEN, "Forbidden", "nope: user x cannot get nodes (get nodes n1)"},
	    {409, "text/plain", "dup", "POST", "configmaps", NULL, NL_EEXISTS, "AlreadyExists",
	     "the server reported a conflict (post configmaps)"},
	    {409, "text/plain", "dup", "PUT", "configmaps", "c", NL_ECONFLICT, "Conflict",
	     "the server reported a conflict (put configmaps c)"},
	    {404, "text/html", "<html>missing</html>", "GET", NULL, NULL, NL_ENOTFOUND, "NotFound",
	     "the server could not find the requested resource"},
	    {500, "text/plain", "boom \"x\"", "PUT", "configmaps", "c", NL_ESERVER, "InternalError",
	     "an error on the server (\"boom \\\"x\\\"\") has prevented the request from "
	     "succeeding (put configmaps c)"},
	    {502, "application/json", "{\"hello\":1}", "GET", NULL, NULL, NL_ESERVER,
	     "InternalError",
	     "an error on the server (\"unknown\") has prevented the request from succeeding"},
	    {503, "text/plain", "down", "GET", NULL, NULL, NL_ESERVER, "ServiceUnavailable",
	     "the server is currently unable to handle the request"},
	    {504, NULL, "", "GET", NULL, NULL, NL_ETIMEOUT, "Timeout",
	     "the server was unable to return a response in the time allotted, but may still be "
	     "processing the request"},
	    {422, "text/plain", "bad", "PUT", NULL, NULL, NL_EINVALID, "Invalid",
	     "the server rejected our request due to an error in our request"},
	    {418, "text/plain", "teapot", "GET", NULL, NULL, NL_ERROR, "",
	     "the server responded with the status code 418 but did not return more information"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const generic_case *c = &cases[i];
		nl_result r;
		int rc =
		    from_http(&r, c->http, c->ct, c->body, c->verb, "", c->resource, c->name, 0);
		CU_ASSERT_EQUAL(rc, c->code);
		CU_ASSERT_STRING_EQUAL(nl_result_reason(&r), c->reason);
		CU_ASSERT_STRING_EQUAL(r.status->message, c->message);
		CU_ASSERT_EQUAL(r.status->code, c->http);
		CU_ASSERT_TRUE(nl_is_unexpected_server_error(&r));
		nl_result_clear(&r);
	}
}

/* client-go: the code decides only when the reason is not a known one. */
static void test_result__unknown_reason_falls_back_to_code(void)
{
	nl_result r;
	from_http(&r, 404, "application/json",
	          "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
	          "\"reason\":\"SomethingNew\",\"message\":\"m\",\"code\":404}",
	          "GET", NULL, NULL, NULL, 0);
	CU_ASSERT_EQUAL(r.code, NL_ENOTFOUND);
	CU_ASSERT_TRUE(nl_is_not_found(&r));
	nl_result_clear(&r);
	/* A known reason wins over the code. */
	from_http(&r, 404, "application/json",
	          "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
	          "\"reason\":\"Conflict\",\"message\":\"m\",\"code\":404}",
	          "GET", NULL, NULL, NULL, 0);
	CU_ASSERT_EQUAL(r.code, NL_ECONFLICT);
	CU_ASSERT_FALSE(nl_is_not_found(&r));
	CU_ASSERT_TRUE(nl_is_conflict(&r));
	nl_result_clear(&r);
}

/* A JSON body that is not a Status (no status field) is treated as text. */
static void test_result__status_needs_kind_and_status(void)
{
	nl_result r;
	from_http(&r, 500, "application/json", "{\"kind\":\"Status\",\"message\":\"half\"}", "GET",
	          NULL, NULL, NULL, 0);
	CU_ASSERT_TRUE(nl_is_unexpected_server_error(&r));
	CU_ASSERT_STRING_EQUAL(nl_result_reason(&r), "InternalError");
	nl_result_clear(&r);
}

static void test_result__move_and_clear(void)
{
	nl_result a, b = NL_RESULT_INIT;
	from_http(&a, 404, "application/json", slurp("status/not-found-lease.json"), "GET", NULL,
	          NULL, NULL, 0);
	nl_result_move(&b, &a);
	CU_ASSERT_PTR_NULL(a.status);
	CU_ASSERT_EQUAL(a.code, 0);
	CU_ASSERT_TRUE(nl_is_not_found(&b));
	nl_result_clear(&b);
	nl_result_clear(NULL);
	CU_ASSERT_FALSE(nl_is_not_found(NULL));
	CU_ASSERT_STRING_EQUAL(nl_result_reason(NULL), "");
}

static void test_result__strerror_names_client_codes(void)
{
	CU_ASSERT_STRING_EQUAL(nl_strerror(NL_EUNAUTHORIZED), "unauthorized");
	CU_ASSERT_STRING_EQUAL(nl_strerror(NL_EFORBIDDEN), "forbidden");
	CU_ASSERT_STRING_EQUAL(nl_strerror(NL_ETOOMANYREQUESTS), "too many requests");
	CU_ASSERT_STRING_EQUAL(nl_strerror(NL_ESERVER), "server error");
	CU_ASSERT_STRING_EQUAL(nl_strerror(NL_ETRANSPORT), "transport error");
	CU_ASSERT_STRING_EQUAL(nl_strerror(NL_ETLS), "TLS error");
	CU_ASSERT_STRING_EQUAL(nl_strerror(NL_ECONFIG), "configuration error");
	CU_ASSERT_STRING_EQUAL(nl_strerror(NL_EMETHOD), "method not allowed");
	CU_ASSERT_STRING_EQUAL(nl_strerror(NL_EUNSUPPORTED), "unsupported media type");
	CU_ASSERT_EQUAL(nl_status_error_code(NULL), NL_ERROR);
}

static CU_TestInfo tests[] = {
    {"golden_statuses_map_to_codes", test_result__golden_statuses_map_to_codes},
    {"server_timeout_suggests_delay", test_result__server_timeout_suggests_delay},
    {"plain_text_429_becomes_too_many_requests",
     test_result__plain_text_429_becomes_too_many_requests},
    {"non_status_bodies_get_client_go_statuses",
     test_result__non_status_bodies_get_client_go_statuses},
    {"unknown_reason_falls_back_to_code", test_result__unknown_reason_falls_back_to_code},
    {"status_needs_kind_and_status", test_result__status_needs_kind_and_status},
    {"move_and_clear", test_result__move_and_clear},
    {"strerror_names_client_codes", test_result__strerror_names_client_codes},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {{"result", NULL, NULL, NULL, NULL, tests}, CU_SUITE_INFO_NULL};
