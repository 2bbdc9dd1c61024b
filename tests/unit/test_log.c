#include "../cu_main.h"

#include <nodelet/log.h>

#include <json-c/json.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

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
	NL_LOG_V(3, "Too verbose");
	NL_LOG_V(2, "Renewed", NL_KV_INT("count", 42), NL_KV_REF("node", NULL, "edge-1"),
	         NL_KV_REF("lease", "kube-node-lease", "edge-1"));
	NL_LOG_ERROR("boom", "Failed to update lease",
	             NL_KV_STR("lease", "kube-node-lease/edge-1"));
	NL_LOG_WARN("Careful", NL_KV_UINT("left", 3));
	nl_log_set_verbosity(0);
	NL_LOG_V(1, "Hidden");
	NL_LOG_INFO("Always");
	NL_LOG_ERROR(NULL, "No error value");
}

/* klog's structured text: the header, the message quoted as %q, err=
 * right after it (ErrorS), then the pairs; strings quoted, numbers bare. */
static void test_log__klog_structured_text_and_verbosity(void)
{
	char buf[4096];
	regex_t re;

	capture(buf, sizeof(buf), log_levels);
	CU_ASSERT_PTR_NULL(strstr(buf, "Too verbose"));
	CU_ASSERT_PTR_NULL(strstr(buf, "Hidden"));
	/* klog's header: severity, MMDD, time with microseconds, pid, file:line. */
	CU_ASSERT_EQUAL_FATAL(
	    regcomp(
	        &re,
	        "^I[0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6} +[0-9]+ test_log\\.c:[0-9]+\\] "
	        "\"Renewed\" count=42 node=\"edge-1\" lease=\"kube-node-lease/edge-1\"\n"
	        "E[0-9]{4} [^]]+ test_log\\.c:[0-9]+\\] \"Failed to update lease\" "
	        "err=\"boom\" lease=\"kube-node-lease/edge-1\"\n"
	        "W[0-9]{4} [^]]+\\] \"Careful\" left=3\n"
	        "I[0-9]{4} [^]]+\\] \"Always\"\n"
	        "E[0-9]{4} [^]]+\\] \"No error value\"\n$",
	        REG_EXTENDED),
	    0);
	int match = regexec(&re, buf, 0, NULL, 0) == 0;
	if (!match)
		fprintf(stderr, "\n  log output:\n%s", buf);
	CU_ASSERT_TRUE(match);
	regfree(&re);
}

static void log_quoting(void)
{
	NL_LOG_INFO("Quote \"this\"\tplease", NL_KV_STR("v", "a\"b\\c\x01"),
	            NL_KV_STR("none", NULL), NL_KV_BOOL("ok", 1));
	NL_LOG_INFO("Multi-line", NL_KV_STR("text", "line 1\nline 2"), NL_KV_STR("ended", "one\n"),
	            NL_KV_INT("n", -7));
}

/* Go's strconv.Quote for the message and single-line values; a value
 * with line breaks as klog writes it: key=<, tab-indented lines, " >". */
static void test_log__values_quoted_as_klog_does(void)
{
	char buf[4096];
	capture(buf, sizeof(buf), log_quoting);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
	                              "] \"Quote \\\"this\\\"\\tplease\" v=\"a\\\"b\\\\c\\x01\" "
	                              "none=\"\" ok=true\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "] \"Multi-line\" text=<\n\tline 1\n\tline 2\n >"
	                                   " ended=<\n\tone\n > n=-7\n"));
}

/* One line of --logging-format=json, parsed. */
static json_object *json_line(const char *text, int i)
{
	const char *p = text;
	for (; i > 0 && p; i--)
		p = (p = strchr(p, '\n')) ? p + 1 : NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	const char *end = strchr(p, '\n');
	CU_ASSERT_PTR_NOT_NULL_FATAL(end);
	json_tokener *tok = json_tokener_new();
	json_object *o = json_tokener_parse_ex(tok, p, (int)(end - p));
	CU_ASSERT_EQUAL(json_tokener_get_error(tok), json_tokener_success);
	json_tokener_free(tok);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	return o;
}

static const char *str_of(json_object *o, const char *key)
{
	json_object *v = NULL;
	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

static void log_json(void)
{
	nl_log_set_format(NL_LOG_FORMAT_JSON);
	nl_log_set_verbosity(2);
	NL_LOG_V(2, "Renewed", NL_KV_STR("node", "edge-1"), NL_KV_INT("count", 42),
	         NL_KV_REF("lease", "kube-node-lease", "edge-1"), NL_KV_REF("owner", "", "edge-1"));
	NL_LOG_ERROR("boom", "Failed", NL_KV_STR("lease", "a\"b\n"));
	NL_LOG_WARN("Careful");
	nl_log_set_verbosity(0);
	nl_log_set_format(NL_LOG_FORMAT_TEXT);
}

/* component-base's JSON format (zapr over zap's JSON encoder): ts as epoch
 * milliseconds, caller as dir/file:line, msg, then "v" and the pairs for
 * info (warnings are info lines there), the pairs then "err" for errors,
 * which have no "v". */
static void test_log__json_format(void)
{
	char buf[4096];
	struct timeval before, after;
	gettimeofday(&before, NULL);
	capture(buf, sizeof(buf), log_json);
	gettimeofday(&after, NULL);
	/* key order as zap writes it */
	CU_ASSERT_EQUAL(strncmp(buf, "{\"ts\":", 6), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, ",\"caller\":\"unit/test_log.c:"));
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(buf, ",\"msg\":\"Renewed\",\"v\":2,\"node\":\"edge-1\",\"count\":42,"
	                "\"lease\":{\"name\":\"edge-1\",\"namespace\":\"kube-node-lease\"},"
	                "\"owner\":{\"name\":\"edge-1\"}}\n"));
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(buf, ",\"msg\":\"Failed\",\"lease\":\"a\\\"b\\n\",\"err\":\"boom\"}\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, ",\"msg\":\"Careful\",\"v\":0}\n"));

	json_object *o = json_line(buf, 0);
	double ts = json_object_get_double(json_object_object_get(o, "ts"));
	double lo = before.tv_sec * 1000.0 + before.tv_usec / 1000.0;
	double hi = after.tv_sec * 1000.0 + after.tv_usec / 1000.0;
	CU_ASSERT(ts >= lo - 0.001 && ts <= hi + 0.001);
	CU_ASSERT_STRING_EQUAL(str_of(o, "msg"), "Renewed");
	CU_ASSERT_EQUAL(json_object_get_int(json_object_object_get(o, "v")), 2);
	CU_ASSERT_EQUAL(json_object_get_int(json_object_object_get(o, "count")), 42);
	json_object_put(o);
	o = json_line(buf, 1);
	CU_ASSERT_STRING_EQUAL(str_of(o, "err"), "boom");
	CU_ASSERT_STRING_EQUAL(str_of(o, "lease"), "a\"b\n");
	CU_ASSERT_FALSE(json_object_object_get_ex(o, "v", NULL));
	json_object_put(o);
	CU_ASSERT_EQUAL(nl_log_get_format(), NL_LOG_FORMAT_TEXT);
}

/* --logging-format's values, as component-base spells them. */
static void test_log__format_names(void)
{
	nl_log_format f = NL_LOG_FORMAT_TEXT;
	CU_ASSERT_EQUAL(nl_log_format_parse(&f, "json"), 0);
	CU_ASSERT_EQUAL(f, NL_LOG_FORMAT_JSON);
	CU_ASSERT_EQUAL(nl_log_format_parse(&f, "text"), 0);
	CU_ASSERT_EQUAL(f, NL_LOG_FORMAT_TEXT);
	CU_ASSERT_NOT_EQUAL(nl_log_format_parse(&f, "JSON"), 0);
	CU_ASSERT_NOT_EQUAL(nl_log_format_parse(&f, ""), 0);
	CU_ASSERT_EQUAL(f, NL_LOG_FORMAT_TEXT);
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
	NL_LOG_DV(&other, 2, "Other hidden");
	NL_LOG_DV(&other, 1, "Other shown");
	NL_LOG_V(4, "Default shown");
	nl_log_set_verbosity(0);
	NL_LOG_DV(&other, 1, "Other still shown");
	nl_log_domain_set_verbosity(&other, 0);
}

static void test_log__domains_keep_their_own_verbosity(void)
{
	char buf[4096];
	capture(buf, sizeof(buf), two_domains);
	CU_ASSERT_PTR_NULL(strstr(buf, "Other hidden"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "test_log.c:"));
	const char *a = strstr(buf, "] \"Other shown\"\n");
	const char *b = strstr(buf, "] \"Default shown\"\n");
	const char *c = strstr(buf, "] \"Other still shown\"\n");
	CU_ASSERT_TRUE(a && b && c && a < b && b < c);
	CU_ASSERT_EQUAL(nl_log_domain_get_verbosity(&other), 0);
	CU_ASSERT_FALSE(nl_log_domain_enabled(&other, 1));
	CU_ASSERT_TRUE(nl_log_domain_enabled(&other, 0));
}

static CU_TestInfo log_tests[] = {
    {"klog_structured_text_and_verbosity", test_log__klog_structured_text_and_verbosity},
    {"values_quoted_as_klog_does", test_log__values_quoted_as_klog_does},
    {"json_format", test_log__json_format},
    {"format_names", test_log__format_names},
    {"verbosity_accessors", test_log__verbosity_accessors},
    {"domains_keep_their_own_verbosity", test_log__domains_keep_their_own_verbosity},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"log", NULL, NULL, NULL, NULL, log_tests},
    CU_SUITE_INFO_NULL,
};
