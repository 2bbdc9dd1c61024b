/* Request patterns of expect: requests (client/scenario/reqpat.c). */
#include <string.h>

#include "../cu_main.h"
#include "scenario/reqpat.h"

static json_object *entry(const char *verb, const char *resource, const char *sub, const char *name,
                          int code, long long t)
{
	char text[512];
	snprintf(text, sizeof(text),
	         "{\"verb\":\"%s\",\"resource\":\"%s\",\"subresource\":\"%s\",\"name\":\"%s\","
	         "\"code\":%d,\"t\":%lld}",
	         verb, resource, sub, name, code, t);
	return nl_test_json(text);
}

static int matches(const char *pattern, json_object *e, long long prev)
{
	nl_scn_reqpat p;
	CU_ASSERT_EQUAL_FATAL(nl_scn_reqpat_parse(&p, pattern, NULL), 0);
	return nl_scn_reqpat_match(&p, e, prev);
}

static void test_reqpat__verb_target_and_code(void)
{
	json_object *e = entry("update", "leases", "", "edge-1", 409, 0);
	CU_ASSERT_TRUE(matches("update leases/edge-1", e, 0));
	CU_ASSERT_TRUE(matches("update leases/edge-1 409", e, 0));
	CU_ASSERT_TRUE(matches("update leases/edge-1 4*", e, 0));
	CU_ASSERT_TRUE(matches("* leases/*", e, 0));
	CU_ASSERT_FALSE(matches("update leases/edge-1 200", e, 0));
	CU_ASSERT_FALSE(matches("get leases/edge-1", e, 0));
	CU_ASSERT_FALSE(matches("update leases", e, 0)); /* no name: only nameless requests */
	json_object_put(e);
	e = entry("create", "leases", "", "", 201, 0);
	CU_ASSERT_TRUE(matches("create leases", e, 0));
	CU_ASSERT_FALSE(matches("create leases/edge-1", e, 0));
	json_object_put(e);
	e = entry("patch", "nodes", "status", "edge-1", 200, 0);
	CU_ASSERT_TRUE(matches("patch nodes/edge-1/status", e, 0));
	CU_ASSERT_FALSE(matches("patch nodes/edge-1", e, 0));
	json_object_put(e);
}

static void test_reqpat__timings(void)
{
	json_object *e = entry("get", "leases", "", "edge-1", 500, 3200000);
	CU_ASSERT_TRUE(matches("get leases/edge-1 500 +1.6s", e, 1600000));
	CU_ASSERT_FALSE(matches("get leases/edge-1 +1.6s", e, 1700000));
	CU_ASSERT_TRUE(matches("get leases/edge-1 @3.2s", e, 0));
	CU_ASSERT_FALSE(matches("get leases/edge-1 @3s", e, 0));
	json_object_put(e);
}

static void assert_bad(const char *pattern, const char *want)
{
	nl_scn_reqpat p;
	nl_err err = {0};
	CU_ASSERT_EQUAL(nl_scn_reqpat_parse(&p, pattern, &err), NL_EPARSE);
	if (strcmp(err.msg, want) != 0)
		fprintf(stderr, "\n  got:  %s\n  want: %s\n", err.msg, want);
	CU_ASSERT_STRING_EQUAL(err.msg, want);
}

static void test_reqpat__malformed_patterns_say_what_was_expected(void)
{
	assert_bad("get",
	           "request pattern \"get\": expected VERB TARGET [CODE] [+TIME|@TIME], e.g. "
	           "\"get leases/edge-1\"");
	assert_bad("get leases/", "request pattern \"get leases/\": expected "
	                          "RESOURCE[/NAME[/SUBRESOURCE]] as the second word");
	assert_bad("get leases/a 2000", "request pattern \"get leases/a 2000\": expected an HTTP "
	                                "code like 409 (or 4*) before the timing");
	assert_bad("get leases/a +ten",
	           "request pattern \"get leases/a +ten\": expected one timing "
	           "like +200ms or @10s");
	assert_bad("get leases/a 200 +1s 404", "request pattern \"get leases/a 200 +1s 404\": "
	                                       "expected an HTTP code like 409 (or 4*) before the "
	                                       "timing");
}

static void test_reqpat__describes_entries_as_patterns(void)
{
	char out[128];
	json_object *e = entry("patch", "nodes", "status", "edge-1", 200, 1200000);
	nl_scn_reqpat_describe(out, sizeof(out), e, 1000000, 1);
	CU_ASSERT_STRING_EQUAL(out, "patch nodes/edge-1/status 200 +200ms");
	nl_scn_reqpat_describe(out, sizeof(out), e, 0, 0);
	CU_ASSERT_STRING_EQUAL(out, "patch nodes/edge-1/status 200");
	CU_ASSERT_TRUE(matches(out, e, 0));
	json_object_put(e);
}

static CU_TestInfo tests[] = {
    {"verb_target_and_code", test_reqpat__verb_target_and_code},
    {"timings", test_reqpat__timings},
    {"malformed_patterns_say_what_was_expected",
     test_reqpat__malformed_patterns_say_what_was_expected},
    {"describes_entries_as_patterns", test_reqpat__describes_entries_as_patterns},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"reqpat", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
