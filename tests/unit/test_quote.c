/* nl_quote: Go's strconv.Quote, which fmt's %q of a string is. The expected
 * texts are Go's own: the quotetests table of src/strconv/quote_test.go,
 * plus the cases issue 17 asks for, worked out from appendQuotedWith and
 * appendEscapedRune in src/strconv/quote.go. */
#include "../cu_main.h"

#include <nodelet/buf.h>
#include <nodelet/quote.h>

#include <stdlib.h>
#include <string.h>

static void expect_quote(const char *in, const char *want)
{
	nl_buf b;
	char fixed[256];
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL_FATAL(nl_quote_append(&b, in), 0);
	CU_ASSERT_STRING_EQUAL(b.data, want);
	if (strcmp(b.data, want) != 0)
		fprintf(stderr, "\n  quote: got %s, want %s\n", b.data, want);
	nl_buf_free(&b);

	char *dup = nl_quote_dup(in);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dup);
	CU_ASSERT_STRING_EQUAL(dup, want);
	free(dup);

	nl_quote_str(fixed, sizeof(fixed), in);
	CU_ASSERT_STRING_EQUAL(fixed, want);
}

static void test_quote__short_escapes(void)
{
	expect_quote("a\nb", "\"a\\nb\"");
	expect_quote("a\tb", "\"a\\tb\"");
	expect_quote("\a\b\f\r\n\t\v", "\"\\a\\b\\f\\r\\n\\t\\v\"");
	expect_quote("\\", "\"\\\\\"");
	expect_quote("say \"hi\"", "\"say \\\"hi\\\"\"");
	expect_quote("", "\"\"");
	expect_quote("plain-name.1", "\"plain-name.1\"");
	/* Formerly test_authz's case for mock_go_quote. */
	expect_quote("a\"b\\c\nd\x01", "\"a\\\"b\\\\c\\nd\\x01\"");
}

static void test_quote__other_controls_as_hex(void)
{
	expect_quote("\x04", "\"\\x04\"");
	expect_quote("\x1b[0m", "\"\\x1b[0m\"");
	/* Go 1.18 and later print DEL as \x7f (quote_test.go). */
	expect_quote("\x7f", "\"\\x7f\"");
}

/* A NUL inside the string: only the length-taking form can see it. */
static void test_quote__nul_byte(void)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL_FATAL(nl_quote_append_n(&b, "a\0b", 3), 0);
	CU_ASSERT_STRING_EQUAL(b.data, "\"a\\x00b\"");
	nl_buf_free(&b);
}

static void test_quote__printable_runes_kept(void)
{
	expect_quote("\xc3\xa9", "\"\xc3\xa9\"");         /* U+00E9 é */
	expect_quote("\xe2\x98\xba", "\"\xe2\x98\xba\""); /* U+263A ☺ */
	expect_quote("h\xc3\xa9llo", "\"h\xc3\xa9llo\"");
	expect_quote("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\""); /* U+1F600 */
	expect_quote("\xef\xbf\xbd", "\"\xef\xbf\xbd\"");         /* U+FFFD itself */
}

static void test_quote__non_printable_runes_escaped(void)
{
	expect_quote("\xc2\x85", "\"\\u0085\"");             /* NEL, a C1 control */
	expect_quote("\xc2\xa0", "\"\\u00a0\"");             /* NO-BREAK SPACE */
	expect_quote("\xc2\xad", "\"\\u00ad\"");             /* SOFT HYPHEN */
	expect_quote("!\xc2\xa0!\xe2\x80\x80!\xe3\x80\x80!", /* Zs other than ' ' */
	             "\"!\\u00a0!\\u2000!\\u3000!\"");       /* quote_test.go */
	expect_quote("\xe2\x80\x8b", "\"\\u200b\"");         /* ZERO WIDTH SPACE, Cf */
	expect_quote("\xef\xbb\xbf", "\"\\ufeff\"");         /* BOM, Cf */
	expect_quote("\xf4\x8f\xbf\xbf", "\"\\U0010ffff\""); /* quote_test.go */
	expect_quote("\xf3\xa0\x80\x81", "\"\\U000e0001\""); /* LANGUAGE TAG, Cf */
	expect_quote("\xee\x80\x80", "\"\\ue000\"");         /* private use, Co */
}

static void test_quote__invalid_utf8_as_hex(void)
{
	expect_quote("\xff", "\"\\xff\"");
	expect_quote("abc\xff"
	             "def",
	             "\"abc\\xffdef\"");   /* quote_test.go */
	expect_quote("\xc3", "\"\\xc3\""); /* cut short */
	expect_quote("\xc3(", "\"\\xc3(\"");
	expect_quote("\xc0\xaf", "\"\\xc0\\xaf\"");                   /* overlong '/' */
	expect_quote("\xed\xa0\x80", "\"\\xed\\xa0\\x80\"");          /* a surrogate */
	expect_quote("\xf4\x90\x80\x80", "\"\\xf4\\x90\\x80\\x80\""); /* past U+10FFFF */
	expect_quote("\x80", "\"\\x80\"");
}

static void test_quote__is_print(void)
{
	CU_ASSERT_TRUE(nl_quote_is_print(' '));
	CU_ASSERT_TRUE(nl_quote_is_print('~'));
	CU_ASSERT_FALSE(nl_quote_is_print('\t'));
	CU_ASSERT_FALSE(nl_quote_is_print(0x7f));
	/* strconv.IsPrint's Latin-1 rule: U+00A1..U+00FF but U+00AD. */
	for (unsigned r = 0x80; r <= 0xa0; r++)
		CU_ASSERT_FALSE(nl_quote_is_print(r));
	for (unsigned r = 0xa1; r <= 0xff; r++)
		CU_ASSERT_EQUAL(nl_quote_is_print(r), r != 0xad);
	CU_ASSERT_TRUE(nl_quote_is_print(0x0100));  /* Ā */
	CU_ASSERT_TRUE(nl_quote_is_print(0x0416));  /* Ж */
	CU_ASSERT_TRUE(nl_quote_is_print(0x0301));  /* a combining mark, Mn */
	CU_ASSERT_TRUE(nl_quote_is_print(0x4e2d));  /* 中 */
	CU_ASSERT_TRUE(nl_quote_is_print(0x20ac));  /* € */
	CU_ASSERT_TRUE(nl_quote_is_print(0x1f600)); /* an emoji, So */
	CU_ASSERT_TRUE(nl_quote_is_print(0x20000)); /* CJK extension B */
	CU_ASSERT_FALSE(nl_quote_is_print(0x2028)); /* LINE SEPARATOR, Zl */
	CU_ASSERT_FALSE(nl_quote_is_print(0x0378)); /* unassigned */
	CU_ASSERT_FALSE(nl_quote_is_print(0xd800)); /* surrogate */
	CU_ASSERT_FALSE(nl_quote_is_print(0x10ffff));
	CU_ASSERT_FALSE(nl_quote_is_print(0x110000));
}

/* The fixed-size form never splits an escape or a rune, and always closes
 * the quote: "abc" into 5 bytes is "ab" quoted. */
static void test_quote__fixed_buffer_truncates_whole_units(void)
{
	char out[8];
	nl_quote_str(out, 5, "abc");
	CU_ASSERT_STRING_EQUAL(out, "\"ab\"");
	nl_quote_str(out, 5, "a\nb");
	CU_ASSERT_STRING_EQUAL(out, "\"a\"");
	nl_quote_str(out, 6, "a\nb");
	CU_ASSERT_STRING_EQUAL(out, "\"a\\n\"");
	nl_quote_str(out, 7, "a\nb");
	CU_ASSERT_STRING_EQUAL(out, "\"a\\nb\"");
	nl_quote_str(out, 5, "\xc3\xa9\xc3\xa9");
	CU_ASSERT_STRING_EQUAL(out, "\"\xc3\xa9\"");
	nl_quote_str(out, 3, "abc");
	CU_ASSERT_STRING_EQUAL(out, "\"\"");
	nl_quote_str(out, 2, "abc");
	CU_ASSERT_STRING_EQUAL(out, "");
	nl_quote_str(out, sizeof(out), NULL);
	CU_ASSERT_STRING_EQUAL(out, "\"\"");
}

static CU_TestInfo tests[] = {
    {"short_escapes", test_quote__short_escapes},
    {"other_controls_as_hex", test_quote__other_controls_as_hex},
    {"nul_byte", test_quote__nul_byte},
    {"printable_runes_kept", test_quote__printable_runes_kept},
    {"non_printable_runes_escaped", test_quote__non_printable_runes_escaped},
    {"invalid_utf8_as_hex", test_quote__invalid_utf8_as_hex},
    {"is_print", test_quote__is_print},
    {"fixed_buffer_truncates_whole_units", test_quote__fixed_buffer_truncates_whole_units},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"quote", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
