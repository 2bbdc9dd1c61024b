/* Path expressions of scenarios (client/scenario/jpath.c). */
#include <string.h>

#include "../cu_main.h"
#include "scenario/jpath.h"

static const char *doc_text =
    "{\"metadata\":{\"name\":\"edge-1\",\"labels\":{\"kubernetes.io/os\":\"linux\"},"
    "\"ownerReferences\":[{\"kind\":\"Node\",\"uid\":\"u-1\"},{\"kind\":\"X\",\"uid\":\"u-2\"}]},"
    "\"spec\":{\"holderIdentity\":\"edge-1\",\"leaseDurationSeconds\":40,\"gone\":null},"
    "\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"},"
    "{\"type\":\"Ports\",\"port\":80}]},\"a.b\":{\"c\":1}}";

static const char *get_string(json_object *doc, const char *expr)
{
	json_object *v = NULL;
	int found = 0;
	if (nl_scn_jpath_lookup(&v, &found, doc, expr, NULL) != 0 || !found)
		return NULL;
	return json_object_get_string(v);
}

static void test_jpath__follows_keys_indexes_and_quoted_keys(void)
{
	json_object *doc = nl_test_json(doc_text);
	CU_ASSERT_STRING_EQUAL(get_string(doc, "spec.holderIdentity"), "edge-1");
	CU_ASSERT_STRING_EQUAL(get_string(doc, "metadata.ownerReferences[0].uid"), "u-1");
	CU_ASSERT_STRING_EQUAL(get_string(doc, "metadata.ownerReferences[-1].uid"), "u-2");
	CU_ASSERT_STRING_EQUAL(get_string(doc, "metadata.labels[\"kubernetes.io/os\"]"), "linux");
	CU_ASSERT_STRING_EQUAL(get_string(doc, "metadata.labels['kubernetes.io/os']"), "linux");
	CU_ASSERT_STRING_EQUAL(get_string(doc, "[\"a.b\"].c"), "1");
	CU_ASSERT_STRING_EQUAL(get_string(doc, "spec.leaseDurationSeconds"), "40");
	json_object_put(doc);
}

static void test_jpath__selects_items_by_field(void)
{
	json_object *doc = nl_test_json(doc_text);
	CU_ASSERT_STRING_EQUAL(get_string(doc, "status.conditions[type=Ready].status"), "True");
	CU_ASSERT_STRING_EQUAL(get_string(doc, "status.conditions[type=\"Ready\"].status"), "True");
	/* Non-string fields compare by their JSON text. */
	CU_ASSERT_STRING_EQUAL(get_string(doc, "status.conditions[port=80].type"), "Ports");
	CU_ASSERT_PTR_NULL(get_string(doc, "status.conditions[type=Gone].status"));
	json_object_put(doc);
}

static void test_jpath__tells_absent_from_null(void)
{
	json_object *doc = nl_test_json(doc_text), *v = doc;
	int found = -1;
	CU_ASSERT_EQUAL(nl_scn_jpath_lookup(&v, &found, doc, "spec.gone", NULL), 0);
	CU_ASSERT_EQUAL(found, 1);
	CU_ASSERT_PTR_NULL(v);
	v = doc;
	CU_ASSERT_EQUAL(nl_scn_jpath_lookup(&v, &found, doc, "spec.missing", NULL), 0);
	CU_ASSERT_EQUAL(found, 0);
	CU_ASSERT_PTR_EQUAL(v, doc); /* untouched */
	CU_ASSERT_EQUAL(nl_scn_jpath_lookup(&v, &found, doc, "metadata.ownerReferences[2]", NULL),
	                0);
	CU_ASSERT_EQUAL(found, 0);
	CU_ASSERT_EQUAL(nl_scn_jpath_lookup(&v, &found, doc, "metadata.name.x", NULL), 0);
	CU_ASSERT_EQUAL(found, 0);
	/* The empty path is the root. */
	CU_ASSERT_EQUAL(nl_scn_jpath_lookup(&v, &found, doc, "", NULL), 0);
	CU_ASSERT_EQUAL(found, 1);
	CU_ASSERT_PTR_EQUAL(v, doc);
	json_object_put(doc);
}

static void assert_error(const char *expr, const char *want)
{
	nl_scn_jpath *p = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL(nl_scn_jpath_parse(&p, expr, &err), NL_EPARSE);
	CU_ASSERT_PTR_NULL(p);
	if (strcmp(err.msg, want) != 0)
		fprintf(stderr, "\n  got:  %s\n  want: %s\n", err.msg, want);
	CU_ASSERT_STRING_EQUAL(err.msg, want);
}

static void test_jpath__reports_where_a_path_is_malformed(void)
{
	assert_error("spec..x", "path \"spec..x\": expected a field name after '.' at character 6");
	assert_error("a[0", "path \"a[0\": expected ']' at character 4");
	assert_error("a[]", "path \"a[]\": expected an index, a quoted key or field=value at "
	                    "character 3");
	assert_error("a[\"x", "path \"a[\"x\": expected a closing '\"' at character 5");
	assert_error("a[x]", "path \"a[x]\": expected '=' (or an index) at character 4");
	assert_error("a[x=]", "path \"a[x=]\": expected a value after '=' at character 5");
	assert_error("a[0]b", "path \"a[0]b\": expected '.' or '[' at character 5");
	assert_error(".a", "path \".a\": expected a field name at character 1");
}

static void test_jpath__parses_segments(void)
{
	nl_scn_jpath *p = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_scn_jpath_parse(&p, "a[\"b.c\"][-2][k='v w']", NULL), 0);
	CU_ASSERT_EQUAL_FATAL(p->n, 4);
	CU_ASSERT_EQUAL(p->segs[0].kind, NL_JPATH_KEY);
	CU_ASSERT_STRING_EQUAL(p->segs[1].key, "b.c");
	CU_ASSERT_EQUAL(p->segs[2].kind, NL_JPATH_INDEX);
	CU_ASSERT_EQUAL(p->segs[2].index, -2);
	CU_ASSERT_EQUAL(p->segs[3].kind, NL_JPATH_SELECT);
	CU_ASSERT_STRING_EQUAL(p->segs[3].key, "k");
	CU_ASSERT_STRING_EQUAL(p->segs[3].value, "v w");
	nl_scn_jpath_free(p);
	nl_scn_jpath_free(NULL);
}

static CU_TestInfo tests[] = {
    {"follows_keys_indexes_and_quoted_keys", test_jpath__follows_keys_indexes_and_quoted_keys},
    {"selects_items_by_field", test_jpath__selects_items_by_field},
    {"tells_absent_from_null", test_jpath__tells_absent_from_null},
    {"reports_where_a_path_is_malformed", test_jpath__reports_where_a_path_is_malformed},
    {"parses_segments", test_jpath__parses_segments},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"jpath", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
