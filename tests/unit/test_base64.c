/* nl_base64: Go's base64.StdEncoding, which kubeconfig "-data" fields and
 * []byte fields use, and base64.RawURLEncoding, which continue tokens use. */
#include "../cu_main.h"

#include <nodelet/base64.h>

#include <stdlib.h>
#include <string.h>

static void expect_decode(const char *in, const char *want)
{
	unsigned char *out = NULL;
	size_t len = 0;
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(nl_base64_decode(&out, &len, in, strlen(in), &err), 0);
	CU_ASSERT_EQUAL(len, strlen(want));
	CU_ASSERT_EQUAL(memcmp(out, want, len), 0);
	CU_ASSERT_EQUAL(out[len], '\0');
	free(out);
}

/* Go's CorruptInputError offsets, from encoding/base64's own tests. */
static void expect_bad(const char *in, size_t at)
{
	unsigned char *out = (unsigned char *)"untouched";
	size_t len = 7;
	nl_err err = {0};
	char want[64];
	CU_ASSERT_EQUAL(nl_base64_decode(&out, &len, in, strlen(in), &err), NL_EPARSE);
	snprintf(want, sizeof(want), "illegal base64 data at input byte %zu", at);
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	CU_ASSERT_STRING_EQUAL((const char *)out, "untouched");
	CU_ASSERT_EQUAL(len, 7);
}

static void test_base64__decodes_padded_input(void)
{
	expect_decode("", "");
	expect_decode("Zg==", "f");
	expect_decode("Zm8=", "fo");
	expect_decode("Zm9v", "foo");
	expect_decode("Zm9vYmFy", "foobar");
}

static void test_base64__ignores_line_breaks(void)
{
	expect_decode("Zm9v\nYmFy\r\n", "foobar");
	expect_decode("Z\ng\n=\n=\n", "f");
}

static void test_base64__reports_go_offsets(void)
{
	expect_bad("Zg=", 3);      /* a lone '=' needs its pair */
	expect_bad("Zm9vY", 4);    /* incomplete quantum */
	expect_bad("Zm9v!mFy", 4); /* not in the alphabet */
	expect_bad("Z===", 1);     /* padding too early */
	expect_bad("Zg==Zg==", 4); /* data after padding */
	expect_bad("Zg=x", 2);     /* '=' followed by a non-'=' */
	expect_bad("Zm9v YmFy", 4);
}

static void test_base64__encodes_with_padding(void)
{
	const char *cases[][2] = {
	    {"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"}, {"foobar", "Zm9vYmFy"}};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out = NULL;
		CU_ASSERT_EQUAL_FATAL(
		    nl_base64_encode(&out, (const unsigned char *)cases[i][0], strlen(cases[i][0])),
		    0);
		CU_ASSERT_STRING_EQUAL(out, cases[i][1]);
		free(out);
	}
}

static void test_base64__round_trips_binary(void)
{
	unsigned char all[256];
	for (int i = 0; i < 256; i++)
		all[i] = (unsigned char)i;
	for (size_t n = 0; n <= sizeof(all); n += 17) {
		char *enc = NULL;
		unsigned char *dec = NULL;
		size_t len = 0;
		CU_ASSERT_EQUAL_FATAL(nl_base64_encode(&enc, all, n), 0);
		CU_ASSERT_EQUAL_FATAL(nl_base64_decode(&dec, &len, enc, strlen(enc), NULL), 0);
		CU_ASSERT_EQUAL(len, n);
		CU_ASSERT_EQUAL(memcmp(dec, all, n), 0);
		free(enc);
		free(dec);
	}
}

static void expect_url(const char *plain, size_t n, const char *text)
{
	char *enc = NULL;
	unsigned char *dec = NULL;
	size_t len = 0;
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(nl_base64url_encode(&enc, (const unsigned char *)plain, n), 0);
	CU_ASSERT_STRING_EQUAL(enc, text);
	CU_ASSERT_EQUAL_FATAL(nl_base64url_decode(&dec, &len, text, strlen(text), &err), 0);
	CU_ASSERT_EQUAL(len, n);
	CU_ASSERT_EQUAL(memcmp(dec, plain, n), 0);
	CU_ASSERT_EQUAL(dec[len], '\0');
	free(enc);
	free(dec);
}

static void expect_url_bad(const char *in, size_t at)
{
	unsigned char *out = (unsigned char *)"untouched";
	size_t len = 7;
	nl_err err = {0};
	char want[64];
	CU_ASSERT_EQUAL(nl_base64url_decode(&out, &len, in, strlen(in), &err), NL_EPARSE);
	snprintf(want, sizeof(want), "illegal base64 data at input byte %zu", at);
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	CU_ASSERT_STRING_EQUAL((const char *)out, "untouched");
	CU_ASSERT_EQUAL(len, 7);
}

/* RawURLEncoding: '-' and '_' for 62 and 63, and no padding either way. */
static void test_base64__url_alphabet_without_padding(void)
{
	expect_url("", 0, "");
	expect_url("f", 1, "Zg");
	expect_url("fo", 2, "Zm8");
	expect_url("foo", 3, "Zm9v");
	expect_url("\xfb\xff", 2, "-_8");
	expect_url("{\"v\":1}", 7, "eyJ2IjoxfQ");
}

static void test_base64__url_refuses_what_go_refuses(void)
{
	expect_url_bad("Zg==", 2); /* '=' is not in a raw alphabet */
	expect_url_bad("Z", 0);    /* one character holds no byte */
	expect_url_bad("Zm9vY", 4);
	expect_url_bad("+_8", 0); /* the standard alphabet's 62 */
	expect_url_bad("-/8", 1); /* and its 63 */
}

static CU_TestInfo tests[] = {
    {"decodes_padded_input", test_base64__decodes_padded_input},
    {"ignores_line_breaks", test_base64__ignores_line_breaks},
    {"reports_go_offsets", test_base64__reports_go_offsets},
    {"encodes_with_padding", test_base64__encodes_with_padding},
    {"round_trips_binary", test_base64__round_trips_binary},
    {"url_alphabet_without_padding", test_base64__url_alphabet_without_padding},
    {"url_refuses_what_go_refuses", test_base64__url_refuses_what_go_refuses},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"base64", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
