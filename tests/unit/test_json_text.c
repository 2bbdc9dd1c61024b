/* nodelet/json_text.h: members found in JSON text without a tree. */
#include <nodelet/errors.h>
#include <nodelet/json_text.h>
#include <string.h>

#include "../cu_main.h"

static const char *doc = "{\"kind\":\"Lease\",\"metadata\":{\"name\":\"a\\\"}b\",\"labels\":"
                         "{\"x\":\"[{\"},\"ownerReferences\":[{\"uid\":\"u\"}]},\"spec\":{"
                         "\"renewTime\":\"2024-01-01T00:00:00.000000Z\",\"n\":12,\"z\":null},"
                         "\"x\":[1,{\"a\":[]}]}";

static int member_is(const char *path, const char *want)
{
	const char *v = NULL;
	size_t n = 0;
	return nl_json_text_member(&v, &n, doc, strlen(doc), path) == 0 && n == strlen(want) &&
	       memcmp(v, want, n) == 0;
}

static void test_json_text__member_by_path(void)
{
	CU_ASSERT(member_is("metadata.ownerReferences", "[{\"uid\":\"u\"}]"));
	CU_ASSERT(member_is("spec.renewTime", "\"2024-01-01T00:00:00.000000Z\""));
	CU_ASSERT(member_is("spec.n", "12"));
	CU_ASSERT(member_is("spec.z", "null"));
	CU_ASSERT(member_is("x", "[1,{\"a\":[]}]"));
	/* Quotes and brackets inside strings do not end anything. */
	CU_ASSERT(member_is("metadata.name", "\"a\\\"}b\""));
	CU_ASSERT(member_is("metadata.labels", "{\"x\":\"[{\"}"));
}

static void test_json_text__missing_and_malformed(void)
{
	const char *v = NULL;
	size_t n = 0, len = strlen(doc);
	CU_ASSERT_EQUAL(nl_json_text_member(&v, &n, doc, len, "metadata.uid"), NL_ENOTFOUND);
	CU_ASSERT_EQUAL(nl_json_text_member(&v, &n, doc, len, "kind.x"), NL_ENOTFOUND);
	CU_ASSERT_EQUAL(nl_json_text_member(&v, &n, doc, len, "spec.z.x"), NL_ENOTFOUND);
	CU_ASSERT_EQUAL(nl_json_text_member(&v, &n, "{\"a\":", 5, "a"), NL_EPARSE);
	CU_ASSERT_EQUAL(nl_json_text_member(&v, &n, "{\"a\":\"x", 7, "a"), NL_EPARSE);
	CU_ASSERT_EQUAL(nl_json_text_member(&v, &n, "{\"a\":1 \"b\":2}", 14, "b"), NL_EPARSE);
	CU_ASSERT_EQUAL(nl_json_text_member(&v, &n, "{\"a\":1,}", 8, "b"), NL_EPARSE);
	CU_ASSERT_EQUAL(nl_json_text_member(&v, &n, "  ", 2, "a"), NL_EPARSE);
	/* A cut-off text is never read past its length. */
	CU_ASSERT_EQUAL(nl_json_text_member(&v, &n, doc, 30, "spec"), NL_EPARSE);
}

static void test_json_text__iterates_members_in_order(void)
{
	const char *text = " { \"a\" : 1 , \"b\\\"c\":[ 2 ], \"d\":{}} trailing";
	nl_json_text_iter it;
	const char *k, *v;
	size_t kl, vl;
	CU_ASSERT_EQUAL_FATAL(nl_json_text_object(&it, text, text + strlen(text)), 0);
	CU_ASSERT_EQUAL_FATAL(nl_json_text_next(&it, &k, &kl, &v, &vl), 1);
	CU_ASSERT(kl == 1 && memcmp(k, "a", 1) == 0 && vl == 1 && *v == '1');
	CU_ASSERT_EQUAL_FATAL(nl_json_text_next(&it, &k, &kl, &v, &vl), 1);
	CU_ASSERT(kl == 4 && memcmp(k, "b\\\"c", 4) == 0); /* escapes as written */
	CU_ASSERT(vl == 5 && memcmp(v, "[ 2 ]", 5) == 0);
	CU_ASSERT_EQUAL_FATAL(nl_json_text_next(&it, &k, &kl, &v, &vl), 1);
	CU_ASSERT(kl == 1 && vl == 2 && memcmp(v, "{}", 2) == 0);
	CU_ASSERT_EQUAL(nl_json_text_next(&it, &k, &kl, &v, &vl), 0);
}

static void test_json_text__not_an_object(void)
{
	nl_json_text_iter it;
	const char *arr = " [1]", *empty = "{}";
	const char *k, *v;
	size_t kl, vl;
	CU_ASSERT_EQUAL(nl_json_text_object(&it, arr, arr + 4), NL_ENOTFOUND);
	CU_ASSERT_EQUAL(nl_json_text_object(&it, arr, arr + 1), NL_EPARSE);
	CU_ASSERT_EQUAL_FATAL(nl_json_text_object(&it, empty, empty + 2), 0);
	CU_ASSERT_EQUAL(nl_json_text_next(&it, &k, &kl, &v, &vl), 0);
}

static void test_json_text__skip_value(void)
{
	const char *t = "\"x\\\"y\",[1,\"]\"],3.5e1}";
	const char *end = t + strlen(t);
	const char *p = nl_json_text_skip_value(t, end);
	CU_ASSERT_PTR_EQUAL(p, t + 6);
	p = nl_json_text_skip_value(p + 1, end);
	CU_ASSERT_PTR_EQUAL(p, t + 14);
	p = nl_json_text_skip_value(p + 1, end);
	CU_ASSERT_PTR_EQUAL(p, t + 20);
	CU_ASSERT_PTR_NULL(nl_json_text_skip_value(p, end));        /* '}' is no value */
	CU_ASSERT_PTR_NULL(nl_json_text_skip_value(t + 7, t + 12)); /* cut inside */
	const char *w = " \t\r\nx";
	CU_ASSERT_PTR_EQUAL(nl_json_text_skip_ws(w, w + 5), w + 4);
	CU_ASSERT_PTR_EQUAL(nl_json_text_skip_ws(w, w + 2), w + 2);
}

static CU_TestInfo tests[] = {
    {"member_by_path", test_json_text__member_by_path},
    {"missing_and_malformed", test_json_text__missing_and_malformed},
    {"iterates_members_in_order", test_json_text__iterates_members_in_order},
    {"not_an_object", test_json_text__not_an_object},
    {"skip_value", test_json_text__skip_value},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"json_text", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
