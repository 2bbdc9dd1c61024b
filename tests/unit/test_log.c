#include "../cu_main.h"

#include <nodelet/log.h>

#include <regex.h>
#include <stdio.h>
#include <string.h>

/* Everything logged while fn runs, captured from a temporary file. */
static void capture(char *out, size_t outlen, void (*fn)(void))
{
	FILE *f = tmpfile();
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	nl_log_set_output(f);
	fn();
	nl_log_set_output(NULL);
	rewind(f);
	size_t n = fread(out, 1, outlen - 1, f);
	out[n] = '\0';
	fclose(f);
}

static void log_levels(void)
{
	nl_log_set_verbosity(2);
	NL_LOG_V(3, "too verbose");
	NL_LOG_V(2, "renewed %d", 42);
	NL_LOG_ERROR("failed: %s", "boom");
	NL_LOG_WARN("careful");
	nl_log_set_verbosity(0);
	NL_LOG_V(1, "hidden");
	NL_LOG_INFO("always");
}

static void test_log__klog_line_format_and_verbosity(void)
{
	char buf[4096];
	regex_t re;

	capture(buf, sizeof(buf), log_levels);
	CU_ASSERT_PTR_NULL(strstr(buf, "too verbose"));
	CU_ASSERT_PTR_NULL(strstr(buf, "hidden"));
	/* klog's header: severity, MMDD, time with microseconds, pid, file:line. */
	CU_ASSERT_EQUAL_FATAL(
	    regcomp(
	        &re,
	        "^I[0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6} +[0-9]+ test_log\\.c:[0-9]+\\] "
	        "renewed 42\n"
	        "E[0-9]{4} [^]]+ test_log\\.c:[0-9]+\\] failed: boom\n"
	        "W[0-9]{4} [^]]+\\] careful\n"
	        "I[0-9]{4} [^]]+\\] always\n$",
	        REG_EXTENDED),
	    0);
	int match = regexec(&re, buf, 0, NULL, 0) == 0;
	if (!match)
		fprintf(stderr, "\n  log output:\n%s", buf);
	CU_ASSERT_TRUE(match);
	regfree(&re);
}

static void test_log__verbosity_accessors(void)
{
	nl_log_set_verbosity(4);
	CU_ASSERT_EQUAL(nl_log_get_verbosity(), 4);
	CU_ASSERT_TRUE(nl_log_enabled(4));
	CU_ASSERT_FALSE(nl_log_enabled(5));
	CU_ASSERT_TRUE(nl_log_enabled(0));
	nl_log_set_verbosity(0);
}

static CU_TestInfo log_tests[] = {
    {"klog_line_format_and_verbosity", test_log__klog_line_format_and_verbosity},
    {"verbosity_accessors", test_log__verbosity_accessors},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"log", NULL, NULL, NULL, NULL, log_tests},
    CU_SUITE_INFO_NULL,
};
