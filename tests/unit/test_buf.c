/* nl_buf: a capped growable buffer (curl's dynbuf "toobig" rule). */
#include "../cu_main.h"

#include <nodelet/buf.h>
#include <nodelet/errors.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void test_buf__starts_empty_and_null(void)
{
	nl_buf b;
	nl_buf_init(&b, 16);
	CU_ASSERT_PTR_NULL(b.data);
	CU_ASSERT_EQUAL(b.len, 0);
	CU_ASSERT_EQUAL(b.cap, 16);
	nl_buf_free(&b);
}

static void test_buf__append_keeps_nul_terminated(void)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL(nl_buf_add(&b, "abc", 3), 0);
	CU_ASSERT_EQUAL(nl_buf_adds(&b, "def"), 0);
	CU_ASSERT_EQUAL(b.len, 6);
	CU_ASSERT_STRING_EQUAL(b.data, "abcdef");
	CU_ASSERT_EQUAL(b.data[b.len], '\0');
	nl_buf_free(&b);
}

static void test_buf__binary_data_is_kept(void)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL(nl_buf_add(&b, "a\0b", 3), 0);
	CU_ASSERT_EQUAL(b.len, 3);
	CU_ASSERT_EQUAL(memcmp(b.data, "a\0b", 4), 0);
	nl_buf_free(&b);
}

static void test_buf__zero_length_append_allocates(void)
{
	nl_buf b;
	nl_buf_init(&b, 4);
	CU_ASSERT_EQUAL(nl_buf_add(&b, "", 0), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b.data);
	CU_ASSERT_STRING_EQUAL(b.data, "");
	nl_buf_free(&b);
}

static void test_buf__cap_exactly_reached_is_allowed(void)
{
	nl_buf b;
	nl_buf_init(&b, 8);
	CU_ASSERT_EQUAL(nl_buf_adds(&b, "1234"), 0);
	CU_ASSERT_EQUAL(nl_buf_adds(&b, "5678"), 0);
	CU_ASSERT_EQUAL(b.len, 8);
	CU_ASSERT_STRING_EQUAL(b.data, "12345678");
	/* Appending nothing at the cap is still within it. */
	CU_ASSERT_EQUAL(nl_buf_add(&b, "", 0), 0);
	nl_buf_free(&b);
}

static void test_buf__cap_exceeded_fails_and_leaves_buffer_unchanged(void)
{
	nl_buf b;
	nl_buf_init(&b, 8);
	CU_ASSERT_EQUAL(nl_buf_adds(&b, "12345"), 0);
	CU_ASSERT_EQUAL(nl_buf_adds(&b, "6789"), NL_ETOOBIG);
	CU_ASSERT_EQUAL(b.len, 5);
	CU_ASSERT_STRING_EQUAL(b.data, "12345");
	CU_ASSERT_EQUAL(nl_buf_printf(&b, "%s", "abcd"), NL_ETOOBIG);
	CU_ASSERT_EQUAL(b.len, 5);
	CU_ASSERT_STRING_EQUAL(b.data, "12345");
	/* Something that fits still goes in afterwards. */
	CU_ASSERT_EQUAL(nl_buf_printf(&b, "%d", 678), 0);
	CU_ASSERT_STRING_EQUAL(b.data, "12345678");
	nl_buf_free(&b);
}

static void test_buf__first_append_past_cap_leaves_data_null(void)
{
	nl_buf b;
	nl_buf_init(&b, 2);
	CU_ASSERT_EQUAL(nl_buf_adds(&b, "abc"), NL_ETOOBIG);
	CU_ASSERT_PTR_NULL(b.data);
	CU_ASSERT_EQUAL(b.len, 0);
	nl_buf_free(&b);
}

static void test_buf__huge_length_does_not_overflow(void)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL(nl_buf_adds(&b, "x"), 0);
	CU_ASSERT_EQUAL(nl_buf_add(&b, "y", SIZE_MAX), NL_ETOOBIG);
	CU_ASSERT_EQUAL(nl_buf_add(&b, "y", SIZE_MAX / 2), NL_ETOOBIG);
	CU_ASSERT_STRING_EQUAL(b.data, "x");
	nl_buf_free(&b);
}

static void test_buf__grows_across_many_appends(void)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	for (int i = 0; i < 10000; i++)
		CU_ASSERT_EQUAL_FATAL(nl_buf_add(&b, "0123456789", 10), 0);
	CU_ASSERT_EQUAL(b.len, 100000);
	CU_ASSERT_EQUAL(strlen(b.data), 100000);
	CU_ASSERT(b.alloc > b.len);
	nl_buf_free(&b);
}

static void test_buf__printf_formats_long_output(void)
{
	nl_buf b;
	char big[600];
	memset(big, 'z', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL(nl_buf_printf(&b, "[%s] %d", big, 42), 0);
	CU_ASSERT_EQUAL(b.len, 599 + 2 + 3);
	CU_ASSERT_EQUAL(b.data[0], '[');
	CU_ASSERT_STRING_EQUAL(b.data + 600, "] 42");
	nl_buf_free(&b);
}

static void test_buf__reset_keeps_allocation(void)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL(nl_buf_adds(&b, "hello"), 0);
	char *before = b.data;
	nl_buf_reset(&b);
	CU_ASSERT_EQUAL(b.len, 0);
	CU_ASSERT_PTR_EQUAL(b.data, before);
	CU_ASSERT_STRING_EQUAL(b.data, "");
	CU_ASSERT_EQUAL(nl_buf_adds(&b, "hi"), 0);
	CU_ASSERT_STRING_EQUAL(b.data, "hi");
	nl_buf_free(&b);
}

static void test_buf__detach_hands_over_content(void)
{
	nl_buf b;
	size_t len = 0;
	nl_buf_init(&b, 32);
	CU_ASSERT_EQUAL(nl_buf_adds(&b, "payload"), 0);
	char *s = nl_buf_detach(&b, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_STRING_EQUAL(s, "payload");
	CU_ASSERT_EQUAL(len, 7);
	CU_ASSERT_PTR_NULL(b.data);
	CU_ASSERT_EQUAL(b.len, 0);
	CU_ASSERT_EQUAL(b.cap, 32);
	free(s);
	/* The buffer is reusable after a detach. */
	CU_ASSERT_EQUAL(nl_buf_adds(&b, "again"), 0);
	CU_ASSERT_STRING_EQUAL(b.data, "again");
	nl_buf_free(&b);
}

static void test_buf__detach_of_empty_buffer_is_empty_string(void)
{
	nl_buf b;
	size_t len = 99;
	nl_buf_init(&b, 0);
	char *s = nl_buf_detach(&b, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_STRING_EQUAL(s, "");
	CU_ASSERT_EQUAL(len, 0);
	free(s);
	s = nl_buf_detach(&b, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	free(s);
	nl_buf_free(&b);
}

static void test_buf__free_is_idempotent(void)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL(nl_buf_adds(&b, "x"), 0);
	nl_buf_free(&b);
	CU_ASSERT_PTR_NULL(b.data);
	CU_ASSERT_EQUAL(b.len, 0);
	nl_buf_free(&b);
}

static void test_buf__strerror_names_every_code(void)
{
	CU_ASSERT_STRING_EQUAL(nl_strerror(NL_OK), "success");
	CU_ASSERT_STRING_EQUAL(nl_strerror(NL_ETOOBIG), "input too large");
	for (int c = NL_ETIMEOUT; c <= NL_OK; c++) {
		const char *s = nl_strerror(c);
		CU_ASSERT_PTR_NOT_NULL(s);
		CU_ASSERT_STRING_NOT_EQUAL(s, "unknown error");
	}
	CU_ASSERT_STRING_EQUAL(nl_strerror(-999), "unknown error");
	CU_ASSERT_STRING_EQUAL(nl_strerror(5), "unknown error");
}

static void test_buf__err_set_formats_and_returns_code(void)
{
	nl_err err;
	CU_ASSERT_EQUAL(nl_err_set(&err, NL_EPARSE, "line %d: %s", 3, "bad"), NL_EPARSE);
	CU_ASSERT_EQUAL(err.code, NL_EPARSE);
	CU_ASSERT_STRING_EQUAL(err.msg, "line 3: bad");
	CU_ASSERT_EQUAL(nl_err_set(NULL, NL_EIO, "ignored %s", "x"), NL_EIO);

	char big[1000];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CU_ASSERT_EQUAL(nl_err_set(&err, NL_ERROR, "%s", big), NL_ERROR);
	CU_ASSERT_EQUAL(strlen(err.msg), sizeof(err.msg) - 1);
}

static CU_TestInfo buf_tests[] = {
    {"starts_empty_and_null", test_buf__starts_empty_and_null},
    {"append_keeps_nul_terminated", test_buf__append_keeps_nul_terminated},
    {"binary_data_is_kept", test_buf__binary_data_is_kept},
    {"zero_length_append_allocates", test_buf__zero_length_append_allocates},
    {"cap_exactly_reached_is_allowed", test_buf__cap_exactly_reached_is_allowed},
    {"cap_exceeded_fails_and_leaves_buffer_unchanged",
     test_buf__cap_exceeded_fails_and_leaves_buffer_unchanged},
    {"first_append_past_cap_leaves_data_null", test_buf__first_append_past_cap_leaves_data_null},
    {"huge_length_does_not_overflow", test_buf__huge_length_does_not_overflow},
    {"grows_across_many_appends", test_buf__grows_across_many_appends},
    {"printf_formats_long_output", test_buf__printf_formats_long_output},
    {"reset_keeps_allocation", test_buf__reset_keeps_allocation},
    {"detach_hands_over_content", test_buf__detach_hands_over_content},
    {"detach_of_empty_buffer_is_empty_string", test_buf__detach_of_empty_buffer_is_empty_string},
    {"free_is_idempotent", test_buf__free_is_idempotent},
    {"strerror_names_every_code", test_buf__strerror_names_every_code},
    {"err_set_formats_and_returns_code", test_buf__err_set_formats_and_returns_code},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"buf", NULL, NULL, NULL, NULL, buf_tests},
    CU_SUITE_INFO_NULL,
};
