/* Object metadata helpers, resourceVersion parsing and compact encoding. */
#include "../cu_main.h"

#include <nodelet/errors.h>
#include <nodelet/meta.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *const LEASE =
    "{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\","
    "\"metadata\":{\"name\":\"node-a\",\"namespace\":\"kube-node-lease\","
    "\"uid\":\"u-1\",\"resourceVersion\":\"42\",\"labels\":{\"app\":\"x\"}},"
    "\"spec\":{\"holderIdentity\":\"node-a\",\"leaseDurationSeconds\":40,"
    "\"nested\":{\"deeper\":{\"leaf\":\"v\"}},\"nothing\":null}}";

static void test_meta__get_path_walks_nested_objects(void)
{
	json_object *o = nl_test_json(LEASE);
	json_object *v = nl_json_get_path(o, "spec.leaseDurationSeconds");
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	CU_ASSERT_EQUAL(json_object_get_int(v), 40);
	CU_ASSERT_PTR_EQUAL(nl_json_get_path(o, "spec"), json_object_object_get(o, "spec"));
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(o, "spec.nested.deeper.leaf"), "v");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(o, "kind"), "Lease");
	json_object_put(o);
}

static void test_meta__get_path_missing_or_through_non_object_is_null(void)
{
	json_object *o = nl_test_json(LEASE);
	CU_ASSERT_PTR_NULL(nl_json_get_path(o, "spec.missing"));
	CU_ASSERT_PTR_NULL(nl_json_get_path(o, "nope.leaf"));
	CU_ASSERT_PTR_NULL(nl_json_get_path(o, "spec.holderIdentity.x"));
	CU_ASSERT_PTR_NULL(nl_json_get_path(o, "spec.nothing"));
	CU_ASSERT_PTR_NULL(nl_json_get_path(o, "spec.nothing.x"));
	CU_ASSERT_PTR_NULL(nl_json_get_path(o, ""));
	CU_ASSERT_PTR_NULL(nl_json_get_path(o, "spec."));
	CU_ASSERT_PTR_NULL(nl_json_get_path(o, ".spec"));
	CU_ASSERT_PTR_NULL(nl_json_get_path(o, "spec..nested"));
	CU_ASSERT_PTR_NULL(nl_json_get_path(NULL, "spec"));
	CU_ASSERT_PTR_NULL(nl_json_get_path(o, NULL));
	/* A number is not a string. */
	CU_ASSERT_PTR_NULL(nl_json_get_string(o, "spec.leaseDurationSeconds"));
	CU_ASSERT_PTR_NULL(nl_json_get_string(o, "spec.nested"));
	json_object *arr = nl_test_json("[1]");
	CU_ASSERT_PTR_NULL(nl_json_get_path(arr, "0"));
	json_object_put(arr);
	json_object_put(o);
}

static void test_meta__get_path_handles_long_keys(void)
{
	char key[300], path[320], text[400];
	memset(key, 'k', sizeof(key) - 1);
	key[sizeof(key) - 1] = '\0';
	snprintf(text, sizeof(text), "{\"a\":{\"%s\":\"v\"}}", key);
	snprintf(path, sizeof(path), "a.%s", key);
	json_object *o = nl_test_json(text);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(o, path), "v");
	json_object_put(o);
}

static void test_meta__metadata_getters(void)
{
	json_object *o = nl_test_json(LEASE);
	CU_ASSERT_STRING_EQUAL(nl_meta_name(o), "node-a");
	CU_ASSERT_STRING_EQUAL(nl_meta_namespace(o), "kube-node-lease");
	CU_ASSERT_STRING_EQUAL(nl_meta_uid(o), "u-1");
	CU_ASSERT_STRING_EQUAL(nl_meta_resource_version(o), "42");
	json_object *labels = nl_meta_labels(o);
	CU_ASSERT_PTR_NOT_NULL_FATAL(labels);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(labels, "app")), "x");
	json_object_put(o);

	o = nl_test_json("{\"metadata\":{\"name\":5,\"labels\":[\"a\"]}}");
	CU_ASSERT_PTR_NULL(nl_meta_name(o));
	CU_ASSERT_PTR_NULL(nl_meta_namespace(o));
	CU_ASSERT_PTR_NULL(nl_meta_labels(o));
	json_object_put(o);
}

static void test_meta__ensure_creates_metadata_once(void)
{
	json_object *o = nl_test_json("{\"kind\":\"ConfigMap\"}");
	json_object *m = nl_meta_ensure(o);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_TRUE(json_object_is_type(m, json_type_object));
	CU_ASSERT_PTR_EQUAL(nl_meta_ensure(o), m);
	NL_ASSERT_JSON_EQ(o, "{\"kind\":\"ConfigMap\",\"metadata\":{}}");
	json_object_put(o);

	/* A metadata that is not an object is replaced, never written through. */
	o = nl_test_json("{\"metadata\":\"bogus\"}");
	m = nl_meta_ensure(o);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	NL_ASSERT_JSON_EQ(o, "{\"metadata\":{}}");
	json_object_put(o);

	o = nl_test_json("[]");
	CU_ASSERT_PTR_NULL(nl_meta_ensure(o));
	json_object_put(o);
	CU_ASSERT_PTR_NULL(nl_meta_ensure(NULL));
}

static void test_meta__set_string_sets_replaces_and_deletes(void)
{
	json_object *o = nl_test_json("{\"kind\":\"ConfigMap\"}");
	CU_ASSERT_EQUAL(nl_meta_set_string(o, "name", "cm"), 0);
	CU_ASSERT_EQUAL(nl_meta_set_string(o, "resourceVersion", "1"), 0);
	CU_ASSERT_EQUAL(nl_meta_set_string(o, "resourceVersion", "2"), 0);
	NL_ASSERT_JSON_EQ(o, "{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cm\","
	                     "\"resourceVersion\":\"2\"}}");
	CU_ASSERT_EQUAL(nl_meta_set_string(o, "resourceVersion", NULL), 0);
	CU_ASSERT_EQUAL(nl_meta_set_string(o, "uid", NULL), 0);
	NL_ASSERT_JSON_EQ(o, "{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cm\"}}");
	json_object_put(o);

	/* Deleting from an object without metadata does not create one. */
	o = nl_test_json("{}");
	CU_ASSERT_EQUAL(nl_meta_set_string(o, "uid", NULL), 0);
	NL_ASSERT_JSON_EQ(o, "{}");
	json_object_put(o);

	o = nl_test_json("7");
	CU_ASSERT_EQUAL(nl_meta_set_string(o, "name", "x"), NL_EINVAL);
	json_object_put(o);
}

static void assert_rv(const char *s, int want_rc, uint64_t want)
{
	uint64_t got = 777;
	int rc = nl_rv_parse(&got, s);
	if (rc != want_rc)
		fprintf(stderr, "\n  nl_rv_parse(\"%s\") = %d, want %d\n", s ? s : "(null)", rc,
		        want_rc);
	CU_ASSERT_EQUAL(rc, want_rc);
	CU_ASSERT_EQUAL(got, want_rc == 0 ? want : 777);
}

static void test_meta__rv_parse_accepts_decimal_uint64(void)
{
	assert_rv("0", 0, 0);
	assert_rv("1", 0, 1);
	assert_rv("42", 0, 42);
	assert_rv("007", 0, 7);
	assert_rv("18446744073709551615", 0, UINT64_MAX);
	/* Unset resourceVersion reads as 0. */
	assert_rv("", 0, 0);
	assert_rv(NULL, 0, 0);
}

static void test_meta__rv_parse_rejects_everything_else(void)
{
	assert_rv("18446744073709551616", NL_EPARSE, 0);
	assert_rv("99999999999999999999", NL_EPARSE, 0);
	assert_rv("184467440737095516150", NL_EPARSE, 0);
	assert_rv("-1", NL_EPARSE, 0);
	assert_rv("+1", NL_EPARSE, 0);
	assert_rv("1a", NL_EPARSE, 0);
	assert_rv("a1", NL_EPARSE, 0);
	assert_rv(" 1", NL_EPARSE, 0);
	assert_rv("1 ", NL_EPARSE, 0);
	assert_rv("1.0", NL_EPARSE, 0);
	assert_rv("0x10", NL_EPARSE, 0);
	assert_rv("1_000", NL_EPARSE, 0);
}

static void test_meta__has_non_finite_finds_nan_and_infinity_anywhere(void)
{
	json_object *ok = nl_test_json("{\"a\":[1,2.5,{\"b\":-3.25}],\"c\":\"NaN\"}");
	json_object *nan = nl_test_json("{\"a\":[1,{\"b\":NaN}]}");
	json_object *inf = nl_test_json("[-Infinity]");
	CU_ASSERT_FALSE(nl_json_has_non_finite(ok));
	CU_ASSERT_TRUE(nl_json_has_non_finite(nan));
	CU_ASSERT_TRUE(nl_json_has_non_finite(inf));
	CU_ASSERT_FALSE(nl_json_has_non_finite(NULL));
	json_object_put(ok);
	json_object_put(nan);
	json_object_put(inf);
}

static void test_meta__json_compact_matches_apiserver_style(void)
{
	json_object *o = nl_test_json("{ \"a\" : \"x/y\", \"b\" : [ 1, 2 ], \"c\" : { } }");
	size_t len = 0;
	const char *s = nl_json_compact(o, &len);
	CU_ASSERT_STRING_EQUAL(s, "{\"a\":\"x/y\",\"b\":[1,2],\"c\":{}}");
	CU_ASSERT_EQUAL(len, strlen(s));
	CU_ASSERT_STRING_EQUAL(nl_json_compact(o, NULL), s);
	json_object_put(o);
}

/* encoding/json's names in an UnmarshalTypeError ("cannot unmarshal number
 * into Go struct field ..."): one per JSON kind, int and double alike. */
static void test_meta__go_kind_names_each_json_kind(void)
{
	static const char *const cases[][2] = {
	    {"{}", "object"}, {"[]", "array"},   {"\"s\"", "string"}, {"true", "bool"},
	    {"1", "number"},  {"1.5", "number"}, {"-0", "number"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_object *v = nl_test_json(cases[i][0]);
		CU_ASSERT_STRING_EQUAL(nl_json_go_kind(v), cases[i][1]);
		json_object_put(v);
	}
	CU_ASSERT_STRING_EQUAL(nl_json_go_kind(NULL), "null"); /* json-c's null */
}

static CU_TestInfo meta_tests[] = {
    {"go_kind_names_each_json_kind", test_meta__go_kind_names_each_json_kind},
    {"has_non_finite_finds_nan_and_infinity_anywhere",
     test_meta__has_non_finite_finds_nan_and_infinity_anywhere},
    {"get_path_walks_nested_objects", test_meta__get_path_walks_nested_objects},
    {"get_path_missing_or_through_non_object_is_null",
     test_meta__get_path_missing_or_through_non_object_is_null},
    {"get_path_handles_long_keys", test_meta__get_path_handles_long_keys},
    {"metadata_getters", test_meta__metadata_getters},
    {"ensure_creates_metadata_once", test_meta__ensure_creates_metadata_once},
    {"set_string_sets_replaces_and_deletes", test_meta__set_string_sets_replaces_and_deletes},
    {"rv_parse_accepts_decimal_uint64", test_meta__rv_parse_accepts_decimal_uint64},
    {"rv_parse_rejects_everything_else", test_meta__rv_parse_rejects_everything_else},
    {"json_compact_matches_apiserver_style", test_meta__json_compact_matches_apiserver_style},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"meta", NULL, NULL, NULL, NULL, meta_tests},
    CU_SUITE_INFO_NULL,
};
