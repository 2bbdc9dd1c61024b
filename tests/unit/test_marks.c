/* YAML positions by path (client/scenario/marks.c). */
#include <string.h>

#include "../cu_main.h"
#include "scenario/marks.h"

static const char *yaml_text = "name: x\n"                /* 1 */
                               "steps:\n"                 /* 2 */
                               "  - sync: lease\n"        /* 3 */
                               "  - expect:\n"            /* 4 */
                               "      object:\n"          /* 5 */
                               "        kind: Lease\n"    /* 6 */
                               "        fields:\n"        /* 7 */
                               "          a.b[0]: &v 1\n" /* 8 */
                               "  - advance: *v\n";       /* 9 */

static void assert_at(nl_scn_marks *m, const char *path, int line, int col)
{
	int l = 0, c = 0;
	CU_ASSERT_EQUAL(nl_scn_marks_find(m, path, &l, &c), 0);
	if (l != line || c != col)
		fprintf(stderr, "\n  %s: got %d:%d, want %d:%d\n", path, l, c, line, col);
	CU_ASSERT_EQUAL(l, line);
	CU_ASSERT_EQUAL(c, col);
}

static void test_marks__records_keys_and_items(void)
{
	nl_scn_marks *m = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_scn_marks_parse(&m, yaml_text, strlen(yaml_text), "f.yaml", NULL),
	                      0);
	assert_at(m, "", 1, 1);
	assert_at(m, "name", 1, 1);
	assert_at(m, "steps", 2, 1);
	assert_at(m, "steps[0]", 3, 5);
	assert_at(m, "steps[0].sync", 3, 5);
	assert_at(m, "steps[1].expect.object.kind", 6, 9);
	assert_at(m, "steps[1].expect.object.fields[\"a.b[0]\"]", 8, 11);
	assert_at(m, "steps[2].advance", 9, 5);
	nl_scn_marks_free(m);
}

static void test_marks__unknown_paths_fall_back_to_the_nearest_ancestor(void)
{
	nl_scn_marks *m = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_scn_marks_parse(&m, yaml_text, strlen(yaml_text), "f.yaml", NULL),
	                      0);
	assert_at(m, "steps[1].expect.object.match.spec", 5, 7);
	assert_at(m, "steps[1].expect.object.fields[\"x.y\"][3]", 7, 9);
	assert_at(m, "nothing.here", 1, 1);
	nl_scn_marks_free(m);
}

static void assert_parse_error(const char *text, const char *want)
{
	nl_scn_marks *m = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL(nl_scn_marks_parse(&m, text, strlen(text), "bad.yaml", &err), NL_EPARSE);
	CU_ASSERT_PTR_NULL(m);
	if (strcmp(err.msg, want) != 0)
		fprintf(stderr, "\n  got:  %s\n  want: %s\n", err.msg, want);
	CU_ASSERT_STRING_EQUAL(err.msg, want);
}

static void test_marks__syntax_errors_and_duplicates_have_positions(void)
{
	assert_parse_error("a: 1\nb: [1, 2\n",
	                   "bad.yaml:3:1: did not find expected ',' or ']' while parsing a flow "
	                   "sequence");
	assert_parse_error("steps:\n  - a: 1\n    a: 2\n",
	                   "bad.yaml:3:5: duplicate key steps[0].a");
	assert_parse_error("? [a]\n: 1\n", "bad.yaml:1:3: a mapping key must be a plain string");
}

static void test_marks__paths_quote_unusual_keys(void)
{
	char out[64];
	CU_ASSERT_EQUAL(nl_scn_marks_key(out, sizeof(out), "", "steps"), 0);
	CU_ASSERT_STRING_EQUAL(out, "steps");
	CU_ASSERT_EQUAL(nl_scn_marks_key(out, sizeof(out), "files", "store/meta/assigned"), 0);
	CU_ASSERT_STRING_EQUAL(out, "files.store/meta/assigned");
	CU_ASSERT_EQUAL(nl_scn_marks_key(out, sizeof(out), "f", "a.b \"c\""), 0);
	CU_ASSERT_STRING_EQUAL(out, "f[\"a.b \\\"c\\\"\"]");
	CU_ASSERT_EQUAL(nl_scn_marks_index(out, sizeof(out), "steps", 12), 0);
	CU_ASSERT_STRING_EQUAL(out, "steps[12]");
	CU_ASSERT_EQUAL(nl_scn_marks_key(out, 8, "abcdef", "ghijk"), NL_ETOOBIG);
	CU_ASSERT_EQUAL(strlen(out), 7);
}

static CU_TestInfo tests[] = {
    {"records_keys_and_items", test_marks__records_keys_and_items},
    {"unknown_paths_fall_back_to_the_nearest_ancestor",
     test_marks__unknown_paths_fall_back_to_the_nearest_ancestor},
    {"syntax_errors_and_duplicates_have_positions",
     test_marks__syntax_errors_and_duplicates_have_positions},
    {"paths_quote_unusual_keys", test_marks__paths_quote_unusual_keys},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"marks", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
