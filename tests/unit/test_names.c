/* Name and key validation with apimachinery's exact messages
 * (k8s.io/apimachinery/pkg/util/validation, Kubernetes 1.32). */
#include "../cu_main.h"

#include <nodelet/errors.h>
#include <nodelet/names.h>

#include <string.h>

#define SUBDOMAIN_MSG                                                                             \
	"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' " \
	"or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "     \
	"regex used for validation is "                                                           \
	"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
#define LABEL_MSG                                                                                \
	"a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', " \
	"and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', " \
	"regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
#define CONFIG_KEY_MSG                                                                       \
	"a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. " \
	"'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "          \
	"'[-._a-zA-Z0-9]+')"
#define QNAME_MSG                                                                                 \
	"must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "  \
	"an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for " \
	"validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
#define LABEL_VALUE_MSG                                                                          \
	"a valid label must be an empty string or consist of alphanumeric characters, '-', '_' " \
	"or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "    \
	"'my_value',  or '12345', regex used for validation is "                                 \
	"'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"

typedef int (*validator)(const char *s, char *why, size_t whylen);

static void check(validator fn, const char *fname, const char *s, const char *want_why)
{
	char why[2048];
	memset(why, 'X', sizeof(why));
	int rc = fn(s, why, sizeof(why));
	if (want_why == NULL) {
		if (rc != 0)
			fprintf(stderr, "\n  %s(\"%.80s\") rejected: %s\n", fname, s, why);
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_STRING_EQUAL(why, "");
		return;
	}
	if (rc != NL_EINVALID || strcmp(why, want_why) != 0)
		fprintf(stderr, "\n  %s(\"%.80s\") = %d\n   why: %s\n  want: %s\n", fname, s, rc,
		        rc ? why : "", want_why);
	CU_ASSERT_EQUAL(rc, NL_EINVALID);
	CU_ASSERT_STRING_EQUAL(why, want_why);
}

#define VALID(fn, s) check(fn, #fn, s, NULL)
#define INVALID(fn, s, msg) check(fn, #fn, s, msg)

/* A string of n copies of c (n < sizeof buffer). */
static const char *rep(char *buf, size_t n, char c)
{
	memset(buf, c, n);
	buf[n] = '\0';
	return buf;
}

static void test_names__subdomain_accepts_valid_names(void)
{
	VALID(nl_name_is_dns1123_subdomain, "a");
	VALID(nl_name_is_dns1123_subdomain, "0");
	VALID(nl_name_is_dns1123_subdomain, "example.com");
	VALID(nl_name_is_dns1123_subdomain, "my-name.x-1.y");
	VALID(nl_name_is_dns1123_subdomain, "kube-node-lease");
	VALID(nl_name_is_dns1123_subdomain, "123-abc");
	VALID(nl_name_is_dns1123_subdomain, "a--b");
}

static void test_names__subdomain_rejects_bad_characters_and_shapes(void)
{
	INVALID(nl_name_is_dns1123_subdomain, "", SUBDOMAIN_MSG);
	INVALID(nl_name_is_dns1123_subdomain, "Example.com", SUBDOMAIN_MSG);
	INVALID(nl_name_is_dns1123_subdomain, "-abc", SUBDOMAIN_MSG);
	INVALID(nl_name_is_dns1123_subdomain, "abc-", SUBDOMAIN_MSG);
	INVALID(nl_name_is_dns1123_subdomain, "a..b", SUBDOMAIN_MSG);
	INVALID(nl_name_is_dns1123_subdomain, ".a", SUBDOMAIN_MSG);
	INVALID(nl_name_is_dns1123_subdomain, "a.", SUBDOMAIN_MSG);
	INVALID(nl_name_is_dns1123_subdomain, "a.-b", SUBDOMAIN_MSG);
	INVALID(nl_name_is_dns1123_subdomain, "a-.b", SUBDOMAIN_MSG);
	INVALID(nl_name_is_dns1123_subdomain, "a_b", SUBDOMAIN_MSG);
	INVALID(nl_name_is_dns1123_subdomain, "a/b", SUBDOMAIN_MSG);
	INVALID(nl_name_is_dns1123_subdomain, "caf\xc3\xa9", SUBDOMAIN_MSG);
}

static void test_names__subdomain_length_limit_is_253(void)
{
	char buf[300];
	VALID(nl_name_is_dns1123_subdomain, rep(buf, 253, 'a'));
	INVALID(nl_name_is_dns1123_subdomain, rep(buf, 254, 'a'),
	        "must be no more than 253 characters");
	/* Both rules fail: messages are joined in apimachinery's order. */
	rep(buf, 254, 'a');
	buf[0] = 'A';
	INVALID(nl_name_is_dns1123_subdomain, buf,
	        "must be no more than 253 characters; " SUBDOMAIN_MSG);
}

static void test_names__label_accepts_valid_names(void)
{
	char buf[100];
	VALID(nl_name_is_dns1123_label, "default");
	VALID(nl_name_is_dns1123_label, "kube-node-lease");
	VALID(nl_name_is_dns1123_label, "1");
	VALID(nl_name_is_dns1123_label, rep(buf, 63, 'z'));
}

static void test_names__label_rejects_bad_names(void)
{
	char buf[100];
	INVALID(nl_name_is_dns1123_label, "", LABEL_MSG);
	INVALID(nl_name_is_dns1123_label, "Default", LABEL_MSG);
	INVALID(nl_name_is_dns1123_label, "-a", LABEL_MSG);
	INVALID(nl_name_is_dns1123_label, "a-", LABEL_MSG);
	INVALID(nl_name_is_dns1123_label, "a_b", LABEL_MSG);
	INVALID(nl_name_is_dns1123_label, "a..b", LABEL_MSG);
	INVALID(nl_name_is_dns1123_label, rep(buf, 64, 'z'), "must be no more than 63 characters");
}

static void test_names__label_with_dots_says_so(void)
{
	/* A valid subdomain that is not a label can only differ by its dots. */
	char buf[100];
	INVALID(nl_name_is_dns1123_label, "a.b", "must not contain dots");
	rep(buf, 70, 'a');
	buf[1] = '.';
	INVALID(nl_name_is_dns1123_label, buf,
	        "must be no more than 63 characters; must not contain dots");
}

static void test_names__config_key_accepts_valid_keys(void)
{
	char buf[300];
	VALID(nl_name_is_config_key, "key.name");
	VALID(nl_name_is_config_key, "KEY_NAME");
	VALID(nl_name_is_config_key, "key-name");
	VALID(nl_name_is_config_key, ".dotfile");
	VALID(nl_name_is_config_key, "a..b");
	VALID(nl_name_is_config_key, "-");
	VALID(nl_name_is_config_key, rep(buf, 253, 'K'));
}

static void test_names__config_key_rejects_bad_keys(void)
{
	char buf[300];
	INVALID(nl_name_is_config_key, "", CONFIG_KEY_MSG);
	INVALID(nl_name_is_config_key, "a/b", CONFIG_KEY_MSG);
	INVALID(nl_name_is_config_key, "a b", CONFIG_KEY_MSG);
	INVALID(nl_name_is_config_key, ".", "must not be '.'");
	INVALID(nl_name_is_config_key, "..", "must not be '..'");
	INVALID(nl_name_is_config_key, "..data", "must not start with '..'");
	INVALID(nl_name_is_config_key, "../etc", CONFIG_KEY_MSG "; must not start with '..'");
	INVALID(nl_name_is_config_key, rep(buf, 254, 'k'), "must be no more than 253 characters");
}

static void test_names__label_key_accepts_qualified_names(void)
{
	char buf[400];
	VALID(nl_name_is_label_key, "app");
	VALID(nl_name_is_label_key, "MyName");
	VALID(nl_name_is_label_key, "my.name");
	VALID(nl_name_is_label_key, "123-abc");
	VALID(nl_name_is_label_key, "a_b");
	VALID(nl_name_is_label_key, "kubernetes.io/hostname");
	VALID(nl_name_is_label_key, "node-role.kubernetes.io/control-plane");
	VALID(nl_name_is_label_key, rep(buf, 63, 'n'));
	/* A 253-character prefix plus a 63-character name. */
	rep(buf, 253 + 1 + 63, 'p');
	buf[253] = '/';
	VALID(nl_name_is_label_key, buf);
}

static void test_names__label_key_rejects_bad_names(void)
{
	char buf[400];
	INVALID(nl_name_is_label_key, "", "name part must be non-empty; name part " QNAME_MSG);
	INVALID(nl_name_is_label_key, "-app", "name part " QNAME_MSG);
	INVALID(nl_name_is_label_key, "app_", "name part " QNAME_MSG);
	INVALID(nl_name_is_label_key, "a b", "name part " QNAME_MSG);
	INVALID(nl_name_is_label_key, rep(buf, 64, 'n'),
	        "name part must be no more than 63 characters");
	INVALID(nl_name_is_label_key, "example.com/",
	        "name part must be non-empty; name part " QNAME_MSG);
	INVALID(nl_name_is_label_key, "/name", "prefix part must be non-empty");
	INVALID(nl_name_is_label_key, "Example.com/name", "prefix part " SUBDOMAIN_MSG);
	INVALID(nl_name_is_label_key, "a..b/name", "prefix part " SUBDOMAIN_MSG);
	INVALID(nl_name_is_label_key, "a/b/c",
	        "a qualified name " QNAME_MSG " with an optional DNS subdomain prefix and '/' "
	        "(e.g. 'example.com/MyName')");
	rep(buf, 254 + 1 + 3, 'p');
	buf[254] = '/';
	INVALID(nl_name_is_label_key, buf, "prefix part must be no more than 253 characters");
	INVALID(nl_name_is_label_key, "Bad_/-x",
	        "prefix part " SUBDOMAIN_MSG "; name part " QNAME_MSG);
}

static void test_names__label_value_rules(void)
{
	char buf[100];
	VALID(nl_name_is_label_value, "");
	VALID(nl_name_is_label_value, "MyValue");
	VALID(nl_name_is_label_value, "my_value");
	VALID(nl_name_is_label_value, "12345");
	VALID(nl_name_is_label_value, "a.b-c_d");
	VALID(nl_name_is_label_value, rep(buf, 63, 'v'));
	INVALID(nl_name_is_label_value, rep(buf, 64, 'v'), "must be no more than 63 characters");
	INVALID(nl_name_is_label_value, "-v", LABEL_VALUE_MSG);
	INVALID(nl_name_is_label_value, "v.", LABEL_VALUE_MSG);
	INVALID(nl_name_is_label_value, "a/b", LABEL_VALUE_MSG);
	INVALID(nl_name_is_label_value, "a b", LABEL_VALUE_MSG);
	rep(buf, 64, 'v');
	buf[63] = '_';
	INVALID(nl_name_is_label_value, buf,
	        "must be no more than 63 characters; " LABEL_VALUE_MSG);
}

static void test_names__path_component_rules(void)
{
	char buf[300];
	VALID(nl_name_is_path_component, "config");
	VALID(nl_name_is_path_component, "..data");
	VALID(nl_name_is_path_component, "0b2d1f3e-6c1a-4f8e-9d7a-2b1c3d4e5f60");
	VALID(nl_name_is_path_component, rep(buf, 255, 'p'));
	INVALID(nl_name_is_path_component, "", "must be non-empty");
	INVALID(nl_name_is_path_component, ".", "must not be '.'");
	INVALID(nl_name_is_path_component, "..", "must not be '..'");
	INVALID(nl_name_is_path_component, "a/b", "must not contain '/'");
	INVALID(nl_name_is_path_component, "../x", "must not contain '/'");
	INVALID(nl_name_is_path_component, rep(buf, 256, 'p'),
	        "must be no more than 255 characters");
}

static void test_names__null_input_is_invalid(void)
{
	char why[64];
	CU_ASSERT_EQUAL(nl_name_is_dns1123_subdomain(NULL, why, sizeof(why)), NL_EINVAL);
	CU_ASSERT_EQUAL(nl_name_is_path_component(NULL, why, sizeof(why)), NL_EINVAL);
}

static void test_names__why_is_optional_and_truncated(void)
{
	char why[16];
	CU_ASSERT_EQUAL(nl_name_is_dns1123_subdomain("Bad", NULL, 0), NL_EINVALID);
	CU_ASSERT_EQUAL(nl_name_is_dns1123_subdomain("ok", NULL, 0), 0);
	CU_ASSERT_EQUAL(nl_name_is_dns1123_subdomain("Bad", why, sizeof(why)), NL_EINVALID);
	CU_ASSERT_EQUAL(strlen(why), sizeof(why) - 1);
	CU_ASSERT_EQUAL(strncmp(why, "a lowercase RFC", 15), 0);
}

/* A Go string may hold NULs: the _n forms see all of it, so "a\0b" is not
 * the valid "a", and a NUL counts as one byte toward the limits. */
static void test_names__nul_is_a_bad_character_not_an_end(void)
{
	char why[2048];
	CU_ASSERT_EQUAL(nl_name_is_dns1123_subdomain_n("a\0b", 3, why, sizeof(why)), NL_EINVALID);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "a lowercase RFC 1123 subdomain"));
	CU_ASSERT_PTR_NULL(strstr(why, "no more than"));
	CU_ASSERT_EQUAL(nl_name_is_dns1123_label_n("ns\0", 3, why, sizeof(why)), NL_EINVALID);
	CU_ASSERT_EQUAL(nl_name_is_config_key_n("ok\0/../../x", 11, why, sizeof(why)), NL_EINVALID);
	CU_ASSERT_STRING_EQUAL(why, "a valid config key must consist of alphanumeric characters, "
	                            "'-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or "
	                            "'key-name', regex used for validation is '[-._a-zA-Z0-9]+')");
	/* ".." then a NUL: only the prefix rule and the charset */
	CU_ASSERT_EQUAL(nl_name_is_config_key_n("..\0", 3, why, sizeof(why)), NL_EINVALID);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "; must not start with '..'"));
	CU_ASSERT_EQUAL(nl_name_is_label_key_n("a\0b", 3, why, sizeof(why)), NL_EINVALID);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "name part must consist of"));
	/* the NUL is in the prefix: the slash after it still splits */
	CU_ASSERT_EQUAL(nl_name_is_label_key_n("e\0.com/x", 8, why, sizeof(why)), NL_EINVALID);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "prefix part a lowercase RFC 1123 subdomain"));
	CU_ASSERT_PTR_NULL(strstr(why, "name part"));
	CU_ASSERT_EQUAL(nl_name_is_label_value_n("v\0", 2, why, sizeof(why)), NL_EINVALID);
	CU_ASSERT_EQUAL(nl_name_is_label_value_n("v", 1, why, sizeof(why)), 0);
	/* 63 bytes with a NUL in them: the charset fails, the length does not */
	char v[63];
	memset(v, 'a', sizeof(v));
	v[30] = '\0';
	CU_ASSERT_EQUAL(nl_name_is_label_value_n(v, sizeof(v), why, sizeof(why)), NL_EINVALID);
	CU_ASSERT_PTR_NULL(strstr(why, "no more than"));
}

static CU_TestInfo names_tests[] = {
    {"nul_is_a_bad_character_not_an_end", test_names__nul_is_a_bad_character_not_an_end},
    {"subdomain_accepts_valid_names", test_names__subdomain_accepts_valid_names},
    {"subdomain_rejects_bad_characters_and_shapes",
     test_names__subdomain_rejects_bad_characters_and_shapes},
    {"subdomain_length_limit_is_253", test_names__subdomain_length_limit_is_253},
    {"label_accepts_valid_names", test_names__label_accepts_valid_names},
    {"label_rejects_bad_names", test_names__label_rejects_bad_names},
    {"label_with_dots_says_so", test_names__label_with_dots_says_so},
    {"config_key_accepts_valid_keys", test_names__config_key_accepts_valid_keys},
    {"config_key_rejects_bad_keys", test_names__config_key_rejects_bad_keys},
    {"label_key_accepts_qualified_names", test_names__label_key_accepts_qualified_names},
    {"label_key_rejects_bad_names", test_names__label_key_rejects_bad_names},
    {"label_value_rules", test_names__label_value_rules},
    {"path_component_rules", test_names__path_component_rules},
    {"null_input_is_invalid", test_names__null_input_is_invalid},
    {"why_is_optional_and_truncated", test_names__why_is_optional_and_truncated},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"names", NULL, NULL, NULL, NULL, names_tests},
    CU_SUITE_INFO_NULL,
};
