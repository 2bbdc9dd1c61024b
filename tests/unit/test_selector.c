/* nl_label_selector / nl_field_selector: apimachinery's labels.Parse and
 * fields.ParseSelector, their matching rules and their error messages. */
#include "../cu_main.h"

#include <nodelet/errors.h>
#include <nodelet/names.h>
#include <nodelet/selector.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether selector s matches an object whose metadata.labels is the JSON
 * object labels_json ("null" for no labels at all). */
static int label_match(const char *s, const char *labels_json)
{
	nl_label_selector *sel = NULL;
	nl_err err = {0};
	int rc = nl_label_selector_parse(&sel, s, &err);
	if (rc)
		fprintf(stderr, "\n  %s: %s\n", s, err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	json_object *labels = json_tokener_parse(labels_json);
	int m = nl_label_selector_matches(sel, labels);
	json_object_put(labels);
	nl_label_selector_free(sel);
	return m;
}

/* Parsing s must fail with exactly msg, leaving *out untouched. */
static void label_error(const char *s, const char *msg)
{
	nl_label_selector *sentinel = (nl_label_selector *)&sentinel, *sel = sentinel;
	nl_err err = {0};
	CU_ASSERT_EQUAL(nl_label_selector_parse(&sel, s, &err), NL_EPARSE);
	CU_ASSERT_EQUAL(err.code, NL_EPARSE);
	CU_ASSERT_PTR_EQUAL(sel, sentinel);
	if (strcmp(err.msg, msg) != 0)
		fprintf(stderr, "\n  %s\n    expected: %s\n    actual:   %s\n", s, msg, err.msg);
	CU_ASSERT_STRING_EQUAL(err.msg, msg);
}

static void test_selector__empty_selector_matches_everything(void)
{
	const char *inputs[] = {NULL, "", "   ", "\t\n"};
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		nl_label_selector *sel = NULL;
		CU_ASSERT_EQUAL_FATAL(nl_label_selector_parse(&sel, inputs[i], NULL), 0);
		CU_ASSERT_TRUE(nl_label_selector_empty(sel));
		CU_ASSERT_TRUE(nl_label_selector_matches(sel, NULL));
		nl_label_selector_free(sel);
	}
	CU_ASSERT_TRUE(nl_label_selector_empty(NULL));
	nl_label_selector_free(NULL);
}

static void test_selector__equality_operators(void)
{
	const char *ops[] = {"app=web", "app==web", " app = web "};
	for (size_t i = 0; i < 3; i++) {
		CU_ASSERT_TRUE(label_match(ops[i], "{\"app\":\"web\",\"x\":\"y\"}"));
		CU_ASSERT_FALSE(label_match(ops[i], "{\"app\":\"db\"}"));
		CU_ASSERT_FALSE(label_match(ops[i], "{}"));
		CU_ASSERT_FALSE(label_match(ops[i], "null"));
	}
	CU_ASSERT_FALSE(label_match("app!=web", "{\"app\":\"web\"}"));
	CU_ASSERT_TRUE(label_match("app!=web", "{\"app\":\"db\"}"));
	/* != matches an object that lacks the key */
	CU_ASSERT_TRUE(label_match("app!=web", "{}"));
	CU_ASSERT_TRUE(label_match("app!=web", "null"));
}

static void test_selector__set_operators(void)
{
	CU_ASSERT_TRUE(label_match("tier in (fe, be)", "{\"tier\":\"be\"}"));
	CU_ASSERT_FALSE(label_match("tier in (fe,be)", "{\"tier\":\"db\"}"));
	CU_ASSERT_FALSE(label_match("tier in (fe,be)", "{}"));
	CU_ASSERT_FALSE(label_match("tier notin (fe,be)", "{\"tier\":\"fe\"}"));
	CU_ASSERT_TRUE(label_match("tier notin (fe,be)", "{\"tier\":\"db\"}"));
	/* notin matches an object that lacks the key */
	CU_ASSERT_TRUE(label_match("tier notin (fe,be)", "{}"));
	/* "in" and "notin" are values where a value is expected */
	CU_ASSERT_TRUE(label_match("x in (in, notin)", "{\"x\":\"notin\"}"));
	CU_ASSERT_TRUE(label_match("in in (a)", "{\"in\":\"a\"}"));
}

static void test_selector__exists_and_does_not_exist(void)
{
	CU_ASSERT_TRUE(label_match("app", "{\"app\":\"\"}"));
	CU_ASSERT_FALSE(label_match("app", "{\"other\":\"x\"}"));
	CU_ASSERT_FALSE(label_match("!app", "{\"app\":\"web\"}"));
	CU_ASSERT_TRUE(label_match("!app", "{}"));
	CU_ASSERT_TRUE(label_match("! app", "null"));
	CU_ASSERT_TRUE(label_match("example.com/role", "{\"example.com/role\":\"x\"}"));
}

static void test_selector__empty_values(void)
{
	CU_ASSERT_TRUE(label_match("app=", "{\"app\":\"\"}"));
	CU_ASSERT_FALSE(label_match("app=", "{}"));
	CU_ASSERT_TRUE(label_match("app=,b", "{\"app\":\"\",\"b\":\"1\"}"));
	CU_ASSERT_TRUE(label_match("app in ()", "{\"app\":\"\"}"));
	CU_ASSERT_TRUE(label_match("app in (,a)", "{\"app\":\"\"}"));
	CU_ASSERT_TRUE(label_match("app in (a,,b)", "{\"app\":\"\"}"));
	CU_ASSERT_TRUE(label_match("app in (a,)", "{\"app\":\"a\"}"));
	CU_ASSERT_FALSE(label_match("app in (a,b)", "{\"app\":\"\"}"));
}

static void test_selector__requirements_are_anded(void)
{
	const char *s = "app=web, tier in (fe,be),!canary,zone";
	CU_ASSERT_TRUE(label_match(s, "{\"app\":\"web\",\"tier\":\"fe\",\"zone\":\"a\"}"));
	CU_ASSERT_FALSE(label_match(s, "{\"app\":\"web\",\"tier\":\"fe\",\"zone\":\"a\",\"canary\":"
	                               "\"1\"}"));
	CU_ASSERT_FALSE(label_match(s, "{\"app\":\"web\",\"tier\":\"fe\"}"));
	CU_ASSERT_FALSE(label_match(s, "{\"app\":\"db\",\"tier\":\"fe\",\"zone\":\"a\"}"));
	nl_label_selector *sel = NULL;
	CU_ASSERT_EQUAL(nl_label_selector_parse(&sel, s, NULL), 0);
	CU_ASSERT_FALSE(nl_label_selector_empty(sel));
	nl_label_selector_free(sel);
}

static void test_selector__greater_and_less_than(void)
{
	CU_ASSERT_TRUE(label_match("replicas>3", "{\"replicas\":\"5\"}"));
	CU_ASSERT_FALSE(label_match("replicas>3", "{\"replicas\":\"3\"}"));
	CU_ASSERT_TRUE(label_match("replicas<3", "{\"replicas\":\"-1\"}"));
	CU_ASSERT_FALSE(label_match("replicas<3", "{\"replicas\":\"abc\"}"));
	CU_ASSERT_FALSE(label_match("replicas<3", "{}"));
	label_error("a>x",
	            "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', "
	            "'Lt' operators, the value must be an integer");
}

static void test_selector__syntax_errors(void)
{
	label_error("app=web,", "found '', expected: identifier after ','");
	label_error("app=web,,b", "found ',', expected: identifier after ','");
	label_error("app web", "unable to parse requirement: found 'web', expected: '=', '!=', "
	                       "'==', 'in', notin'");
	label_error("app in a", "unable to parse requirement: found 'a' expected: '('");
	label_error("app in (a b)", "unable to parse requirement: found 'b', expected: ',' or ')'");
	label_error("app in (a", "unable to parse requirement: found '', expected: ',' or ')'");
	label_error("app in (=)",
	            "unable to parse requirement: found '=', expected: ',', ')' or identifier");
	label_error("app=(a)", "unable to parse requirement: found '(', expected: identifier");
	label_error("!app=web", "found '=', expected: ',' or 'end of string'");
	label_error("a=b c", "found 'c', expected: ',' or 'end of string'");
	label_error("=web", "found '=', expected: !, identifier, or 'end of string'");
	label_error(",app", "found ',', expected: !, identifier, or 'end of string'");
	label_error("!", "unable to parse requirement: found '', expected: identifier");
	label_error("!!a", "unable to parse requirement: found '!', expected: identifier");
}

static void test_selector__invalid_keys_and_values(void)
{
	char why[400], want[512];
	nl_name_is_label_key("-a", why, sizeof(why));
	snprintf(want, sizeof(want),
	         "unable to parse requirement: <nil>: Invalid value: \"-a\": %s", why);
	label_error("-a=b", want);
	CU_ASSERT_PTR_NOT_NULL(strstr(want, "name part must consist of alphanumeric characters"));

	nl_name_is_label_key("a/b/c", why, sizeof(why));
	snprintf(want, sizeof(want),
	         "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": %s", why);
	label_error("a/b/c in (x)", want);

	nl_name_is_label_value("-v", why, sizeof(why));
	snprintf(want, sizeof(want),
	         "unable to parse requirement: values[0][app]: Invalid value: \"-v\": %s", why);
	label_error("app=-v", want);
	CU_ASSERT_PTR_NOT_NULL(strstr(want, "a valid label must be an empty string"));

	/* values are checked in sorted order and aggregated as "[e1, e2]" */
	nl_label_selector *sel = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL(nl_label_selector_parse(&sel, "app notin (ok, _z, -y)", &err), NL_EPARSE);
	CU_ASSERT_PTR_NULL(sel);
	CU_ASSERT_EQUAL(
	    strncmp(err.msg,
	            "unable to parse requirement: [values[0][app]: Invalid value: \"-y\": ",
	            strlen("unable to parse requirement: [values[0][app]: Invalid value: "
	                   "\"-y\": ")),
	    0);

	char longv[80];
	memset(longv, 'v', 64);
	longv[64] = '\0';
	char in[100];
	snprintf(in, sizeof(in), "app=%s", longv);
	CU_ASSERT_EQUAL(nl_label_selector_parse(&sel, in, &err), NL_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "must be no more than 63 characters"));
}

/* A value that is not UTF-8 is quoted byte by byte, as Go's %q does (this
 * copy passed bytes above 0x7f through). */
static void test_selector__invalid_values_quote_like_go(void)
{
	char why[400], want[512];
	nl_name_is_label_value("caf\xc3", why, sizeof(why));
	snprintf(want, sizeof(want),
	         "unable to parse requirement: values[0][app]: Invalid value: \"caf\\xc3\": %s",
	         why);
	label_error("app=caf\xc3", want);
}

/* A field getter over a NULL-terminated list of name/value pairs. */
static const char *pair_get(const char *field, void *payload)
{
	const char *const *kv = payload;
	for (; kv[0]; kv += 2)
		if (strcmp(kv[0], field) == 0)
			return kv[1];
	return NULL;
}

static int field_match(const char *s, const char *const *object)
{
	nl_field_selector *sel = NULL;
	nl_err err = {0};
	int rc = nl_field_selector_parse(&sel, s, &err);
	if (rc)
		fprintf(stderr, "\n  %s: %s\n", s, err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	int m = nl_field_selector_matches(sel, pair_get, (void *)object);
	nl_field_selector_free(sel);
	return m;
}

static void field_error(const char *s, const char *msg)
{
	nl_field_selector *sentinel = (nl_field_selector *)&sentinel, *sel = sentinel;
	nl_err err = {0};
	CU_ASSERT_EQUAL(nl_field_selector_parse(&sel, s, &err), NL_EPARSE);
	CU_ASSERT_PTR_EQUAL(sel, sentinel);
	if (strcmp(err.msg, msg) != 0)
		fprintf(stderr, "\n  %s\n    expected: %s\n    actual:   %s\n", s, msg, err.msg);
	CU_ASSERT_STRING_EQUAL(err.msg, msg);
}

static void test_selector__field_operators(void)
{
	const char *const obj[] = {"metadata.name", "n1", "metadata.namespace", "ns", NULL};
	CU_ASSERT_TRUE(field_match("metadata.name=n1", obj));
	CU_ASSERT_TRUE(field_match("metadata.name==n1", obj));
	CU_ASSERT_FALSE(field_match("metadata.name=n2", obj));
	CU_ASSERT_TRUE(field_match("metadata.name!=n2", obj));
	CU_ASSERT_FALSE(field_match("metadata.name!=n1", obj));
	CU_ASSERT_TRUE(field_match("metadata.name=n1,metadata.namespace=ns", obj));
	CU_ASSERT_FALSE(field_match("metadata.name=n1,metadata.namespace!=ns", obj));
	/* a field the object lacks reads as "" */
	CU_ASSERT_TRUE(field_match("spec.unschedulable!=true", obj));
	CU_ASSERT_TRUE(field_match("spec.unschedulable=", obj));
	CU_ASSERT_FALSE(field_match("spec.unschedulable=true", obj));
}

static void test_selector__field_empty_selector_matches_everything(void)
{
	const char *inputs[] = {NULL, "", ",", ",,"};
	const char *const obj[] = {NULL};
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		nl_field_selector *sel = NULL;
		CU_ASSERT_EQUAL_FATAL(nl_field_selector_parse(&sel, inputs[i], NULL), 0);
		CU_ASSERT_TRUE(nl_field_selector_matches(sel, pair_get, (void *)obj));
		CU_ASSERT_PTR_NULL(nl_field_selector_exact(sel, "metadata.name"));
		nl_field_selector_free(sel);
	}
	nl_field_selector_free(NULL);
}

static void test_selector__field_values_unescape(void)
{
	const char *const obj[] = {"a", "x,y", "b", "p=q\\r", NULL};
	CU_ASSERT_TRUE(field_match("a=x\\,y", obj));
	CU_ASSERT_TRUE(field_match("b==p\\=q\\\\r", obj));
	CU_ASSERT_TRUE(field_match("b=p\\=q\\\\r,a!=x", obj));
	nl_field_selector *sel = NULL;
	CU_ASSERT_EQUAL(nl_field_selector_parse(&sel, "a=x\\,y", NULL), 0);
	CU_ASSERT_STRING_EQUAL(nl_field_selector_exact(sel, "a"), "x,y");
	nl_field_selector_free(sel);
}

static void test_selector__field_syntax_errors(void)
{
	field_error("foo", "invalid selector: 'foo'; can't understand 'foo'");
	field_error("a=b,foo", "invalid selector: 'a=b,foo'; can't understand 'foo'");
	field_error("a=b=c", "invalid field selector: unescaped character in value: 61");
	field_error("a==b,c", "invalid selector: 'a==b,c'; can't understand 'c'");
	field_error("a=x\\y", "invalid field selector: invalid escape sequence: \\y");
	field_error("a=x\\", "invalid field selector: invalid escape sequence: \\");
	field_error("a=\\\xc3\xa9", "invalid field selector: invalid escape sequence: \\\xc3\xa9");
	/* the field name has no escaping: the first operator splits */
	field_error("a\\=b=c", "invalid field selector: unescaped character in value: 61");
}

static int collect(const char *field, void *payload)
{
	char *buf = payload;
	strcat(buf, field);
	strcat(buf, ";");
	return strcmp(field, "stop") == 0 ? 7 : 0;
}

static void test_selector__field_each_field_and_exact(void)
{
	nl_field_selector *sel = NULL;
	CU_ASSERT_EQUAL_FATAL(
	    nl_field_selector_parse(&sel, "metadata.namespace!=x,metadata.name==n1", NULL), 0);
	char seen[128] = "";
	CU_ASSERT_EQUAL(nl_field_selector_each_field(sel, collect, seen), 0);
	/* apimachinery sorts the terms */
	CU_ASSERT_STRING_EQUAL(seen, "metadata.name;metadata.namespace;");
	CU_ASSERT_STRING_EQUAL(nl_field_selector_exact(sel, "metadata.name"), "n1");
	CU_ASSERT_PTR_NULL(nl_field_selector_exact(sel, "metadata.namespace"));
	CU_ASSERT_PTR_NULL(nl_field_selector_exact(sel, "spec.nodeName"));
	nl_field_selector_free(sel);

	CU_ASSERT_EQUAL_FATAL(nl_field_selector_parse(&sel, "z=1,stop=2,a=3", NULL), 0);
	seen[0] = '\0';
	CU_ASSERT_EQUAL(nl_field_selector_each_field(sel, collect, seen), 7);
	CU_ASSERT_STRING_EQUAL(seen, "a;stop;");
	nl_field_selector_free(sel);
}

static void test_selector__field_value_as_the_field_set_holds_it(void)
{
	json_object *o = nl_test_json("{\"spec\":{\"unschedulable\":true,\"n\":42,"
	                              "\"s\":\"x\",\"o\":{}},\"type\":\"Normal\"}");
	char *v = NULL;
	CU_ASSERT_EQUAL(nl_field_value(&v, o, "spec.unschedulable"), 0);
	CU_ASSERT_STRING_EQUAL(v, "true");
	free(v);
	CU_ASSERT_EQUAL(nl_field_value(&v, o, "spec.n"), 0);
	CU_ASSERT_STRING_EQUAL(v, "42");
	free(v);
	CU_ASSERT_EQUAL(nl_field_value(&v, o, "type"), 0);
	CU_ASSERT_STRING_EQUAL(v, "Normal");
	free(v);
	/* Objects and absent fields have no value (compared as ""). */
	CU_ASSERT_EQUAL(nl_field_value(&v, o, "spec.o"), 0);
	CU_ASSERT_PTR_NULL(v);
	CU_ASSERT_EQUAL(nl_field_value(&v, o, "spec.missing"), 0);
	CU_ASSERT_PTR_NULL(v);
	json_object_put(o);
}

static CU_TestInfo selector_tests[] = {
    {"field_value_as_the_field_set_holds_it", test_selector__field_value_as_the_field_set_holds_it},
    {"empty_selector_matches_everything", test_selector__empty_selector_matches_everything},
    {"equality_operators", test_selector__equality_operators},
    {"set_operators", test_selector__set_operators},
    {"exists_and_does_not_exist", test_selector__exists_and_does_not_exist},
    {"empty_values", test_selector__empty_values},
    {"requirements_are_anded", test_selector__requirements_are_anded},
    {"greater_and_less_than", test_selector__greater_and_less_than},
    {"syntax_errors", test_selector__syntax_errors},
    {"invalid_keys_and_values", test_selector__invalid_keys_and_values},
    {"invalid_values_quote_like_go", test_selector__invalid_values_quote_like_go},
    {"field_operators", test_selector__field_operators},
    {"field_empty_selector_matches_everything",
     test_selector__field_empty_selector_matches_everything},
    {"field_values_unescape", test_selector__field_values_unescape},
    {"field_syntax_errors", test_selector__field_syntax_errors},
    {"field_each_field_and_exact", test_selector__field_each_field_and_exact},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"selector", NULL, NULL, NULL, NULL, selector_tests},
    CU_SUITE_INFO_NULL,
};
