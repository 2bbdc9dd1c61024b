/* Scenario variables (client/scenario/vars.c). */
#include <stdlib.h>
#include <string.h>

#include "../cu_main.h"
#include "scenario/vars.h"

static const char *vars_text =
    "{\"node\":{\"metadata\":{\"name\":\"edge-1\",\"uid\":\"u-1\"},\"n\":40},"
    "\"name\":\"edge-1\",\"count\":3,\"nothing\":null}";

static json_object *expand(const char *tmpl_text, const char *want_err)
{
	json_object *vars = nl_test_json(vars_text), *tmpl = nl_test_json(tmpl_text), *out = NULL;
	nl_err err = {0};
	int rc = nl_scn_vars_expand(&out, tmpl, vars, &err);
	if (want_err) {
		CU_ASSERT_NOT_EQUAL(rc, 0);
		if (strcmp(err.msg, want_err) != 0)
			fprintf(stderr, "\n  got:  %s\n  want: %s\n", err.msg, want_err);
		CU_ASSERT_STRING_EQUAL(err.msg, want_err);
		out = NULL;
	} else {
		CU_ASSERT_EQUAL(rc, 0);
	}
	json_object_put(vars);
	json_object_put(tmpl);
	return out;
}

static void test_vars__a_lone_reference_keeps_its_type(void)
{
	json_object *out = expand("{\"uid\":\"${node.metadata.uid}\",\"n\":\"${node.n}\","
	                          "\"whole\":\"${node.metadata}\",\"z\":\"${nothing}\"}",
	                          NULL);
	NL_ASSERT_JSON_EQ(out, "{\"uid\":\"u-1\",\"n\":40,\"whole\":{\"name\":\"edge-1\","
	                       "\"uid\":\"u-1\"},\"z\":null}");
	json_object_put(out);
}

static void test_vars__references_inside_text_are_interpolated(void)
{
	json_object *out = expand("[\"store/${node.metadata.uid}/${count}\",\"x=${node.metadata}\","
	                          "\"$${literal}\",\"plain\"]",
	                          NULL);
	NL_ASSERT_JSON_EQ(out, "[\"store/u-1/3\",\"x={\\\"name\\\":\\\"edge-1\\\",\\\"uid\\\":"
	                       "\\\"u-1\\\"}\",\"${literal}\",\"plain\"]");
	json_object_put(out);
}

static void test_vars__keys_are_expanded_too(void)
{
	json_object *out = expand("{\"checkpoints/${node.metadata.uid}\":true}", NULL);
	NL_ASSERT_JSON_EQ(out, "{\"checkpoints/u-1\":true}");
	json_object_put(out);
}

static void test_vars__errors_name_the_reference(void)
{
	CU_ASSERT_PTR_NULL(
	    expand("\"${lease.uid}\"", "\"${lease.uid}\": undefined variable \"lease\""));
	CU_ASSERT_PTR_NULL(expand("\"${node.metadata.gen}\"",
	                          "\"${node.metadata.gen}\": node has no metadata.gen"));
	CU_ASSERT_PTR_NULL(expand("\"a ${name\"", "\"a ${name\": unterminated \"${\""));
	CU_ASSERT_PTR_NULL(
	    expand("\"${1x}\"", "\"${1x}\": a variable name starts with a letter or '_'"));
	CU_ASSERT_PTR_NULL(
	    expand("\"${a b}\"", "\"${a b}\": expected '.', '[' or '}' after the variable name"));
}

static int collect(const char *name, void *payload)
{
	char *buf = payload;
	strcat(buf, name);
	strcat(buf, ",");
	return strcmp(name, "stop") == 0 ? 7 : 0;
}

static void test_vars__references_are_listed_in_order(void)
{
	char names[256] = "";
	json_object *t = nl_test_json("{\"${k}\":[\"${a.b} ${c[0]}\",{\"x\":\"${d}\"}],\"y\":1}");
	CU_ASSERT_EQUAL(nl_scn_vars_refs(t, collect, names, NULL), 0);
	CU_ASSERT_STRING_EQUAL(names, "k,a,c,d,");
	json_object_put(t);
	names[0] = '\0';
	t = nl_test_json("[\"${stop}\",\"${after}\"]");
	CU_ASSERT_EQUAL(nl_scn_vars_refs(t, collect, names, NULL), 7);
	CU_ASSERT_STRING_EQUAL(names, "stop,");
	json_object_put(t);
}

static void test_vars__expand_string_always_gives_text(void)
{
	json_object *vars = nl_test_json(vars_text);
	char *s = NULL;
	CU_ASSERT_EQUAL(nl_scn_vars_expand_string(&s, "${count}", vars, NULL), 0);
	CU_ASSERT_STRING_EQUAL(s, "3");
	free(s);
	CU_ASSERT_TRUE(nl_scn_vars_valid_name("node-uid_2"));
	CU_ASSERT_FALSE(nl_scn_vars_valid_name("2x"));
	CU_ASSERT_FALSE(nl_scn_vars_valid_name(""));
	json_object_put(vars);
}

static CU_TestInfo tests[] = {
    {"a_lone_reference_keeps_its_type", test_vars__a_lone_reference_keeps_its_type},
    {"references_inside_text_are_interpolated", test_vars__references_inside_text_are_interpolated},
    {"keys_are_expanded_too", test_vars__keys_are_expanded_too},
    {"errors_name_the_reference", test_vars__errors_name_the_reference},
    {"references_are_listed_in_order", test_vars__references_are_listed_in_order},
    {"expand_string_always_gives_text", test_vars__expand_string_always_gives_text},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"vars", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
