/* nodelet/json_text.h: members found in JSON text without a tree. */
#include <nodelet/errors.h>
#include <nodelet/json_text.h>
#include <stdlib.h>
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

/* What nl_json_text_clean gives for in (NULL: unchanged). */
static int cleans_to(const char *in, size_t inlen, const char *want, size_t wantlen)
{
	char *out = (char *)"unset";
	size_t n = 12345;
	int rc = nl_json_text_clean(&out, &n, in, inlen);
	if (rc != 0)
		return 0;
	if (!want) {
		int ok = out == NULL;
		free(out);
		return ok;
	}
	int ok = out && n == wantlen && memcmp(out, want, n) == 0 && out[n] == '\0';
	free(out);
	return ok;
}
#define CLEANS(in, want) cleans_to(in, sizeof(in) - 1, want, sizeof(want) - 1)
#define KEEPS(in) cleans_to(in, sizeof(in) - 1, NULL, 0)

/* Go's encoding/json unquote: each byte that does not start valid UTF-8
 * (utf8.DecodeRune's RuneError of width 1) becomes one U+FFFD. */
static void test_json_text__clean_invalid_utf8(void)
{
	CU_ASSERT(CLEANS("{\"a\":\"\xff\xfe\"}", "{\"a\":\"\xef\xbf\xbd\xef\xbf\xbd\"}"));
	/* a cut 3-byte sequence: two bad bytes, two replacements */
	CU_ASSERT(CLEANS("[\"x\xe2\x82\"]", "[\"x\xef\xbf\xbd\xef\xbf\xbd\"]"));
	/* an encoded surrogate and an overlong NUL: one per byte */
	CU_ASSERT(CLEANS("[\"\xed\xa0\x80\"]", "[\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"]"));
	CU_ASSERT(CLEANS("{\"k\xc0\x80\":1}", "{\"k\xef\xbf\xbd\xef\xbf\xbd\":1}"));
	/* past U+10FFFF */
	CU_ASSERT(CLEANS("[\"\xf4\x90\x80\x80\"]",
	                 "[\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"]"));
	/* valid text of every width, and U+FFFD itself, is kept as it is */
	CU_ASSERT(KEEPS("{\"a\":\"z\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbd\"}"));
	CU_ASSERT(KEEPS("{\"a\":[1,2.5,true,null,{}],\"b\\\"\\u0041\":\"\\\\\"}"));
	/* json-c also reads '...' strings: they get the same treatment */
	CU_ASSERT(CLEANS("{'a\xff':'\xfe\"'}", "{'a\xef\xbf\xbd':'\xef\xbf\xbd\"'}"));
	CU_ASSERT(KEEPS("[\"it's\"]"));
}

/* Lone surrogate escapes become \ufffd; a high one followed by a low one
 * is one rune; a high one followed by anything else is replaced alone and
 * what follows is read on its own (decode.go's unquoteBytes). */
static void test_json_text__clean_surrogates(void)
{
	CU_ASSERT(CLEANS("[\"\\ud800\"]", "[\"\\ufffd\"]"));
	CU_ASSERT(CLEANS("[\"\\uDC00x\"]", "[\"\\ufffdx\"]"));
	CU_ASSERT(CLEANS("[\"\\ud800\\u0041\"]", "[\"\\ufffd\\u0041\"]"));
	CU_ASSERT(CLEANS("[\"\\ud800\\ud800\\udc00\"]", "[\"\\ufffd\\ud800\\udc00\"]"));
	CU_ASSERT(CLEANS("[\"\\udc00\\ud800\"]", "[\"\\ufffd\\ufffd\"]"));
	CU_ASSERT(KEEPS("[\"\\ud83d\\ude00\"]"));
	CU_ASSERT(KEEPS("[\"\\uD83D\\uDE00\"]"));
	/* an escape cut short is json-c's syntax error to report */
	CU_ASSERT(KEEPS("[\"\\ud80\"]"));
}

/* json-c ends a member name at a NUL: inside keys \u0000 becomes the
 * marker, so that "a\u0000b" stays a key other than "a". Values keep
 * theirs (json-c holds their length). */
static void test_json_text__clean_nul_in_keys(void)
{
	CU_ASSERT(
	    CLEANS("{\"ok\\u0000/x\":\"v\\u0000\"}", "{\"ok" NL_JSON_KEY_NUL "/x\":\"v\\u0000\"}"));
	CU_ASSERT(CLEANS("{\"a\":{\"b\":[{\"\\u0000\":1}],\"\\u0000\":\"\\u0000\"}}",
	                 "{\"a\":{\"b\":[{\"" NL_JSON_KEY_NUL "\":1}],\"" NL_JSON_KEY_NUL
	                 "\":\"\\u0000\"}}"));
	CU_ASSERT(KEEPS("[\"\\u0000\",{\"a\":\"\\u0000\"}]"));
	size_t n = 0;
	char *k = nl_json_key_unmark("a" NL_JSON_KEY_NUL "b" NL_JSON_KEY_NUL, &n);
	CU_ASSERT(k && n == 4 && memcmp(k, "a\0b\0", 5) == 0);
	free(k);
}

/* The marker made by any decoder, back to \u0000 in JSON text: in member
 * names only (a value's c0 80 is bad UTF-8 for the cleaner to replace); a
 * marked tree's text cleans to the same tree. */
static void test_json_text__unmark_keys(void)
{
	char *k = nl_json_key_mark("a\0b\0", 4);
	CU_ASSERT(k && strcmp(k, "a" NL_JSON_KEY_NUL "b" NL_JSON_KEY_NUL) == 0);
	free(k);
	const char in[] = "{\"o" NL_JSON_KEY_NUL "k\":\"v" NL_JSON_KEY_NUL
	                  "\",\"x\\\"" NL_JSON_KEY_NUL "\" : [{\"" NL_JSON_KEY_NUL "\":1}]}";
	char *out = NULL;
	size_t n = 0;
	CU_ASSERT_EQUAL_FATAL(nl_json_text_unmark_keys(&out, &n, in, sizeof(in) - 1), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_STRING_EQUAL(out, "{\"o\\u0000k\":\"v" NL_JSON_KEY_NUL "\",\"x\\\"\\u0000\" : "
	                            "[{\"\\u0000\":1}]}");
	CU_ASSERT_EQUAL(n, strlen(out));
	free(out);
	out = (char *)"x";
	CU_ASSERT_EQUAL(nl_json_text_unmark_keys(&out, &n, "{\"a\":\"b\"}", 9), 0);
	CU_ASSERT_PTR_NULL(out);
}

/* Cleaned text has only valid UTF-8 inside strings: cleaning it again
 * changes nothing (the key marker aside, which is not UTF-8 on purpose). */
static void test_json_text__clean_is_idempotent(void)
{
	const char in[] = "{\"\xff\\ud800\":\"\xc3\\udfff\x80\",\"\\\"\xfe\":[\"\xe2\x82\"]}";
	char *once = NULL, *twice = (char *)"x";
	size_t n1 = 0, n2 = 0;
	CU_ASSERT_EQUAL(nl_json_text_clean(&once, &n1, in, sizeof(in) - 1), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(once);
	CU_ASSERT_EQUAL(nl_json_text_clean(&twice, &n2, once, n1), 0);
	CU_ASSERT_PTR_NULL(twice);
	free(once);
}

static CU_TestInfo tests[] = {
    {"member_by_path", test_json_text__member_by_path},
    {"missing_and_malformed", test_json_text__missing_and_malformed},
    {"iterates_members_in_order", test_json_text__iterates_members_in_order},
    {"not_an_object", test_json_text__not_an_object},
    {"skip_value", test_json_text__skip_value},
    {"clean_invalid_utf8", test_json_text__clean_invalid_utf8},
    {"clean_surrogates", test_json_text__clean_surrogates},
    {"clean_nul_in_keys", test_json_text__clean_nul_in_keys},
    {"clean_is_idempotent", test_json_text__clean_is_idempotent},
    {"unmark_keys", test_json_text__unmark_keys},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"json_text", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
