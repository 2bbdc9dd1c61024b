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

/* A second domain, as the embedded mock has: its -v and the agent's are
 * apart, while both print through the same output in the same format. */
static nl_log_domain other = NL_LOG_DOMAIN_INIT;

static void two_domains(void)
{
	nl_log_set_verbosity(4);
	nl_log_domain_set_verbosity(&other, 1);
	NL_LOG_DV(&other, 2, "other hidden");
	NL_LOG_DV(&other, 1, "other shown");
	NL_LOG_V(4, "default shown");
	nl_log_set_verbosity(0);
	NL_LOG_DV(&other, 1, "other still shown");
	nl_log_domain_set_verbosity(&other, 0);
}

static void test_log__domains_keep_their_own_verbosity(void)
{
	char buf[4096];
	capture(buf, sizeof(buf), two_domains);
	CU_ASSERT_PTR_NULL(strstr(buf, "other hidden"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "test_log.c:"));
	const char *a = strstr(buf, "] other shown\n");
	const char *b = strstr(buf, "] default shown\n");
	const char *c = strstr(buf, "] other still shown\n");
	CU_ASSERT_TRUE(a && b && c && a < b && b < c);
	CU_ASSERT_EQUAL(nl_log_domain_get_verbosity(&other), 0);
	CU_ASSERT_FALSE(nl_log_domain_enabled(&other, 1));
	CU_ASSERT_TRUE(nl_log_domain_enabled(&other, 0));
}

static CU_TestInfo log_tests[] = {
    {"klog_line_format_and_verbosity", test_log__klog_line_format_and_verbosity},
    {"verbosity_accessors", test_log__verbosity_accessors},
    {"domains_keep_their_own_verbosity", test_log__domains_keep_their_own_verbosity},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"log", NULL, NULL, NULL, NULL, log_tests},
    CU_SUITE_INFO_NULL,
};
