/* Subset matching and the diff of failed expectations
 * (client/scenario/match.c, diff.c). */
#include <string.h>

#include "../cu_main.h"
#include "scenario/match.h"

static const char *actual_text =
    "{\"kind\":\"Lease\",\"metadata\":{\"name\":\"edge-1\",\"uid\":\"u-9\","
    "\"ownerReferences\":[{\"kind\":\"Node\",\"name\":\"edge-1\",\"uid\":\"u-1\"}]},"
    "\"spec\":{\"holderIdentity\":\"other\",\"leaseDurationSeconds\":40,"
    "\"renewTime\":\"2026-01-01T00:00:10.000000Z\"}}";

/* The mismatches as "path: message" lines. */
static char *mismatches(const char *expected, const char *actual, int present)
{
	static char out[4096];
	nl_scn_mismatches m = {0};
	json_object *e = strcmp(expected, "null") ? nl_test_json(expected) : NULL;
	json_object *a = actual ? nl_test_json(actual) : NULL;
	out[0] = '\0';
	int n = nl_scn_match(&m, "", e, a, present);
	CU_ASSERT_EQUAL(n, (int)m.n);
	for (size_t i = 0; i < m.n; i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s: %s", i ? "\n" : "",
		         m.items[i].path, m.items[i].message);
	nl_scn_mismatches_clear(&m);
	json_object_put(e);
	json_object_put(a);
	return out;
}

#define ASSERT_MISMATCHES(expected, actual, want)                                  \
	do {                                                                       \
		const char *got_ = mismatches(expected, actual, 1);                \
		if (strcmp(got_, want) != 0)                                       \
			fprintf(stderr, "\n  got:  %s\n  want: %s\n", got_, want); \
		CU_ASSERT_STRING_EQUAL(got_, want);                                \
	} while (0)

static void test_match__subset_of_mappings_ignores_other_keys(void)
{
	ASSERT_MISMATCHES("{\"spec\":{\"leaseDurationSeconds\":40}}", actual_text, "");
	ASSERT_MISMATCHES("{\"metadata\":{\"ownerReferences\":[{\"uid\":\"u-1\"}]}}", actual_text,
	                  "");
	ASSERT_MISMATCHES("{}", actual_text, "");
	ASSERT_MISMATCHES("{\"spec\":{\"holderIdentity\":\"edge-1\"}}", actual_text,
	                  "spec.holderIdentity: expected \"edge-1\", got \"other\"");
	ASSERT_MISMATCHES("{\"spec\":{\"acquireTime\":\"x\"}}", actual_text,
	                  "spec.acquireTime: expected \"x\", but it is absent");
}

static void test_match__scalars_keep_their_types(void)
{
	ASSERT_MISMATCHES("{\"spec\":{\"leaseDurationSeconds\":40.0}}", actual_text, "");
	ASSERT_MISMATCHES("{\"spec\":{\"leaseDurationSeconds\":\"40\"}}", actual_text,
	                  "spec.leaseDurationSeconds: expected \"40\", got 40");
	ASSERT_MISMATCHES(
	    "{\"spec\":\"x\"}", actual_text,
	    "spec: expected \"x\", got {\"holderIdentity\":\"other\","
	    "\"leaseDurationSeconds\":40,\"renewTime\":\"2026-01-01T00:00:10.000000Z\"}");
	ASSERT_MISMATCHES("{\"kind\":{\"a\":1}}", actual_text,
	                  "kind: expected a mapping, got \"Lease\"");
}

static void test_match__sequences_match_item_by_item(void)
{
	ASSERT_MISMATCHES("[1,{\"a\":2}]", "[1,{\"a\":2,\"b\":3}]", "");
	ASSERT_MISMATCHES("[1,2]", "[1,2,3]", ": expected 2 items, got 3");
	ASSERT_MISMATCHES("[1,5]", "[1,2]", "[1]: expected 5, got 2");
	ASSERT_MISMATCHES("{\"metadata\":{\"ownerReferences\":[]}}", actual_text,
	                  "metadata.ownerReferences: expected 0 items, got 1");
}

static void test_match__null_means_absent(void)
{
	ASSERT_MISMATCHES("{\"spec\":{\"acquireTime\":null}}", actual_text, "");
	ASSERT_MISMATCHES("{\"a\":null}", "{\"a\":null}", "");
	ASSERT_MISMATCHES("{\"spec\":{\"holderIdentity\":null}}", actual_text,
	                  "spec.holderIdentity: expected to be absent, got \"other\"");
	CU_ASSERT_STRING_EQUAL(mismatches("{\"a\":1}", NULL, 0),
	                       ": expected {\"a\":1}, but it is absent");
	CU_ASSERT_STRING_EQUAL(mismatches("null", NULL, 0), "");
}

static void test_match__operators(void)
{
	ASSERT_MISMATCHES("{\"metadata\":{\"uid\":{\"$present\":true}}}", actual_text, "");
	ASSERT_MISMATCHES("{\"metadata\":{\"gen\":{\"$present\":true}}}", actual_text,
	                  "metadata.gen: expected to be present, but it is absent");
	ASSERT_MISMATCHES("{\"metadata\":{\"uid\":{\"$present\":false}}}", actual_text,
	                  "metadata.uid: expected to be absent, got \"u-9\"");
	ASSERT_MISMATCHES("{\"spec\":{\"renewTime\":{\"$regex\":\"^2026-01-01T\"}}}", actual_text,
	                  "");
	ASSERT_MISMATCHES("{\"spec\":{\"leaseDurationSeconds\":{\"$regex\":\"^4[0-9]$\"}}}",
	                  actual_text, "");
	ASSERT_MISMATCHES("{\"spec\":{\"holderIdentity\":{\"$regex\":\"^edge\"}}}", actual_text,
	                  "spec.holderIdentity: \"other\" does not match /^edge/");
	ASSERT_MISMATCHES("{\"spec\":{\"holderIdentity\":{\"$contains\":\"the\"}}}", actual_text,
	                  "");
	ASSERT_MISMATCHES(
	    "{\"metadata\":{\"ownerReferences\":{\"$contains\":{\"kind\":\"Node\"}}}}", actual_text,
	    "");
	ASSERT_MISMATCHES("{\"metadata\":{\"ownerReferences\":{\"$contains\":{\"kind\":\"X\"}}}}",
	                  actual_text,
	                  "metadata.ownerReferences: no item matches {\"kind\":\"X\"}");
	ASSERT_MISMATCHES("{\"metadata\":{\"ownerReferences\":{\"$len\":1}}}", actual_text, "");
	ASSERT_MISMATCHES(
	    "{\"spec\":{\"$len\":2}}", actual_text,
	    "spec: expected length 2, got 3 ({\"holderIdentity\":\"other\","
	    "\"leaseDurationSeconds\":40,\"renewTime\":\"2026-01-01T00:00:10.000000Z\"})");
	ASSERT_MISMATCHES("{\"spec\":{\"holderIdentity\":{\"$not\":\"edge-1\"}}}", actual_text, "");
	ASSERT_MISMATCHES("{\"spec\":{\"holderIdentity\":{\"$not\":\"other\"}}}", actual_text,
	                  "spec.holderIdentity: expected anything but \"other\", got \"other\"");
}

static void assert_check(const char *expected, const char *want)
{
	nl_err err = {0};
	json_object *e = nl_test_json(expected);
	int rc = nl_scn_match_check(e, "x", &err);
	if (!want) {
		CU_ASSERT_EQUAL(rc, 0);
	} else {
		CU_ASSERT_EQUAL(rc, NL_EINVAL);
		if (strcmp(err.msg, want) != 0)
			fprintf(stderr, "\n  got:  %s\n  want: %s\n", err.msg, want);
		CU_ASSERT_STRING_EQUAL(err.msg, want);
	}
	json_object_put(e);
}

static void test_match__operators_are_checked_before_use(void)
{
	assert_check("{\"a\":{\"$regex\":\"^x\"},\"b\":[{\"$len\":2}]}", NULL);
	assert_check(
	    "{\"a\":{\"$foo\":1}}",
	    "x.a: unknown operator $foo (expected $present, $regex, $contains, $len or $not)");
	assert_check("{\"a\":{\"$len\":1,\"b\":2}}",
	             "x.a.$len: an operator must be the only key of its mapping");
	assert_check("{\"a\":{\"$regex\":\"(\"}}", "x.a: $regex: invalid regular expression (");
	assert_check("{\"a\":[{\"$present\":\"yes\"}]}",
	             "x.a[0]: $present: expected true or false");
	assert_check("{\"a\":{\"$not\":{\"$len\":-1}}}", "x.a.$not: $len: expected a number >= 0");
}

static char *diff(const char *expected, const char *actual, int present)
{
	static char out[4096];
	nl_buf b;
	json_object *e = nl_test_json(expected), *a = actual ? nl_test_json(actual) : NULL;
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL(nl_scn_diff(&b, e, a, present), 0);
	snprintf(out, sizeof(out), "%s", b.data ? b.data : "");
	nl_buf_free(&b);
	json_object_put(e);
	json_object_put(a);
	return out;
}

#define ASSERT_DIFF(expected, actual, present, want)                                \
	do {                                                                        \
		const char *got_ = diff(expected, actual, present);                 \
		if (strcmp(got_, want) != 0)                                        \
			fprintf(stderr, "\n--- got:\n%s--- want:\n%s", got_, want); \
		CU_ASSERT_STRING_EQUAL(got_, want);                                 \
	} while (0)

static void test_match__diff_shows_only_the_differences_in_context(void)
{
	ASSERT_DIFF("{\"kind\":\"Lease\",\"spec\":{\"holderIdentity\":\"edge-1\","
	            "\"leaseDurationSeconds\":40}}",
	            actual_text, 1,
	            "--- expected\n"
	            "+++ actual\n"
	            " kind: \"Lease\"\n"
	            " spec:\n"
	            "-  holderIdentity: \"edge-1\"\n"
	            "+  holderIdentity: \"other\"\n"
	            "   leaseDurationSeconds: 40\n");
}

static void test_match__diff_of_sequences_and_missing_fields(void)
{
	ASSERT_DIFF("{\"metadata\":{\"ownerReferences\":[{\"uid\":\"u-2\"}],\"generation\":1}}",
	            actual_text, 1,
	            "--- expected\n"
	            "+++ actual\n"
	            " metadata:\n"
	            "   ownerReferences:\n"
	            "-    - uid: \"u-2\"\n"
	            "-  generation: 1\n"
	            "+    - uid: \"u-1\"\n");
	ASSERT_DIFF("[\"get leases/a\",\"update leases/a\"]",
	            "[\"get leases/a\",\"get nodes/a\",\"update leases/a\"]", 1,
	            "--- expected\n"
	            "+++ actual\n"
	            " - \"get leases/a\"\n"
	            "+- \"get nodes/a\"\n"
	            " - \"update leases/a\"\n");
	/* Operators that hold print as written. */
	ASSERT_DIFF("{\"spec\":{\"renewTime\":{\"$present\":true},\"holderIdentity\":\"x\"}}",
	            actual_text, 1,
	            "--- expected\n"
	            "+++ actual\n"
	            " spec:\n"
	            "   renewTime:\n"
	            "     $present: true\n"
	            "-  holderIdentity: \"x\"\n"
	            "+  holderIdentity: \"other\"\n");
}

static void test_match__diff_of_an_absent_value(void)
{
	ASSERT_DIFF("{\"a\":1}", NULL, 0,
	            "--- expected\n"
	            "+++ actual\n"
	            "-a: 1\n"
	            "+(absent)\n");
}

static void test_match__render_is_yaml_like(void)
{
	nl_buf b;
	json_object *v = nl_test_json("{\"a\":[1,{\"b\":\"x\",\"c\":[]},[2]],\"d\":{}}");
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL(nl_scn_render(&b, v, 2), 0);
	CU_ASSERT_STRING_EQUAL(b.data, "  a:\n"
	                               "    - 1\n"
	                               "    - b: \"x\"\n"
	                               "      c: []\n"
	                               "    - - 2\n"
	                               "  d: {}\n");
	nl_buf_free(&b);
	json_object_put(v);
}

static CU_TestInfo tests[] = {
    {"subset_of_mappings_ignores_other_keys", test_match__subset_of_mappings_ignores_other_keys},
    {"scalars_keep_their_types", test_match__scalars_keep_their_types},
    {"sequences_match_item_by_item", test_match__sequences_match_item_by_item},
    {"null_means_absent", test_match__null_means_absent},
    {"operators", test_match__operators},
    {"operators_are_checked_before_use", test_match__operators_are_checked_before_use},
    {"diff_shows_only_the_differences_in_context",
     test_match__diff_shows_only_the_differences_in_context},
    {"diff_of_sequences_and_missing_fields", test_match__diff_of_sequences_and_missing_fields},
    {"diff_of_an_absent_value", test_match__diff_of_an_absent_value},
    {"render_is_yaml_like", test_match__render_is_yaml_like},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"match", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
