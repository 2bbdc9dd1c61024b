/* JSON to YAML as kube-apiserver writes it for Accept: application/yaml
 * (sigs.k8s.io/yaml over go-yaml v2): sorted keys, quoting of strings that
 * would read back as other types, literal blocks, block sequences. */
#include <stdio.h>
#include <string.h>

#include "../cu_main.h"
#include "encoding/yaml_out.h"

static void assert_yaml(const char *json, const char *want)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL(mock_yaml_from_json(&b, json, strlen(json)), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b.data);
	if (strcmp(b.data, want) != 0)
		fprintf(stderr, "\n  want:\n%s\n  got:\n%s\n", want, b.data);
	CU_ASSERT_STRING_EQUAL(b.data, want);
	nl_buf_free(&b);
}

static void test_yaml_out__object_like_kubectl_get_raw(void)
{
	assert_yaml("{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\","
	            "\"creationTimestamp\":\"2024-05-01T10:00:00Z\",\"labels\":{\"b\":\"true\","
	            "\"a\":\"\"}},\"data\":{\"k\":\"line1\\nline2\\n\",\"n\":\"123\","
	            "\"ip\":\"10.0.0.5\"}}",
	            "apiVersion: v1\n"
	            "data:\n"
	            "  ip: 10.0.0.5\n"
	            "  k: |\n"
	            "    line1\n"
	            "    line2\n"
	            "  \"n\": \"123\"\n" /* go-yaml v2 reads a plain n as false */
	            "kind: ConfigMap\n"
	            "metadata:\n"
	            "  creationTimestamp: \"2024-05-01T10:00:00Z\"\n"
	            "  labels:\n"
	            "    a: \"\"\n"
	            "    b: \"true\"\n"
	            "  name: a\n");
}

static void test_yaml_out__sequences_scalars_and_empty_collections(void)
{
	assert_yaml("{\"items\":[{\"a\":1},{\"b\":[true,null,-2]}],\"empty\":{},\"none\":[]}",
	            "empty: {}\n"
	            "items:\n"
	            "- a: 1\n"
	            "- b:\n"
	            "  - true\n"
	            "  - null\n"
	            "  - -2\n"
	            "none: []\n");
}

static void test_yaml_out__natural_key_order(void)
{
	assert_yaml("{\"node10\":1,\"node9\":2,\"A\":3,\"_x\":4}",
	            "_x: 4\nA: 3\nnode9: 2\nnode10: 1\n");
}

static void test_yaml_out__which_strings_stay_plain(void)
{
	static const char *const plain[] = {"abc", "10.0.0.5",    "1.2.3",  "v1.32.0", ".abc",
	                                    "+",   "kube-system", "edge-1", NULL};
	static const char *const quoted[] = {
	    "",       "true", "yes",   "Off",  "null", "~",          "1",
	    "-1.5e3", "0x1F", "1_000", "1:20", ".5",   "2024-05-01", "2024-05-01T10:00:00.123456Z",
	    NULL};
	for (int i = 0; plain[i]; i++)
		CU_ASSERT_TRUE(mock_yaml_plain_is_string(plain[i]));
	for (int i = 0; quoted[i]; i++)
		CU_ASSERT_FALSE(mock_yaml_plain_is_string(quoted[i]));
}

/* Found by fuzzing (fixtures/fuzz/yaml_out/regressions/): a digit string
 * longer than the checker's buffer was written plain, and go-yaml (and our
 * loader) read it back as a float. */
static void test_yaml_out__long_numeric_strings_are_quoted(void)
{
	char digits[201], json[260], want[260];
	memset(digits, '9', sizeof(digits) - 1);
	digits[sizeof(digits) - 1] = '\0';
	CU_ASSERT_FALSE(mock_yaml_plain_is_string(digits));
	snprintf(json, sizeof(json), "{\"s\":\"%s\"}", digits);
	snprintf(want, sizeof(want), "s: \"%s\"\n", digits);
	assert_yaml(json, want);
	digits[100] = 'x';
	CU_ASSERT_TRUE(mock_yaml_plain_is_string(digits));
}

/* Found by fuzzing: {} sorted a NULL key array (undefined behaviour that
 * UBSan reports). */
static void test_yaml_out__empty_object_document(void)
{
	assert_yaml("{}", "{}\n");
}

/* Found by fuzzing: long digit runs in keys overflowed a signed integer.
 * go-yaml's int64 wraps, so 10^19 compares as negative and sorts first. */
static void test_yaml_out__long_digit_runs_in_keys_wrap_like_go(void)
{
	assert_yaml("{\"k2\":2,\"k99999999999999999999\":1}", "k2: 2\nk99999999999999999999: 1\n");
	assert_yaml("{\"k2\":2,\"k10000000000000000000\":1}", "k10000000000000000000: 1\nk2: 2\n");
}

static void test_yaml_out__invalid_json(void)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL(mock_yaml_from_json(&b, "{\"a\":", 5), NL_EPARSE);
	CU_ASSERT_EQUAL(mock_yaml_from_json(&b, "{} x", 4), NL_EPARSE);
	nl_buf_free(&b);
}

static CU_TestInfo tests[] = {
    {"object_like_kubectl_get_raw", test_yaml_out__object_like_kubectl_get_raw},
    {"sequences_scalars_and_empty_collections",
     test_yaml_out__sequences_scalars_and_empty_collections},
    {"natural_key_order", test_yaml_out__natural_key_order},
    {"which_strings_stay_plain", test_yaml_out__which_strings_stay_plain},
    {"long_numeric_strings_are_quoted", test_yaml_out__long_numeric_strings_are_quoted},
    {"empty_object_document", test_yaml_out__empty_object_document},
    {"long_digit_runs_in_keys_wrap_like_go", test_yaml_out__long_digit_runs_in_keys_wrap_like_go},
    {"invalid_json", test_yaml_out__invalid_json},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"yaml_out", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
