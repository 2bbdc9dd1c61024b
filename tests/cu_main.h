/* Shared CUnit runner for nodelet's test programs.
 *
 * Each tests/<kind>/test_<module>.c defines nl_test_suites, a CU_SuiteInfo
 * table ending in CU_SUITE_INFO_NULL whose tests are named
 * test_<module>__<behaviour>. cu_main.c registers it, runs it verbosely and
 * exits 1 on any failure so Automake's harness sees it. */
#ifndef NL_CU_MAIN_H
#define NL_CU_MAIN_H

#include <CUnit/CUnit.h>
#include <json-c/json.h>

extern CU_SuiteInfo nl_test_suites[];

/* Path of a file under fixtures/ (from $NL_FIXTURES_DIR, else the source
 * tree's fixtures/ set at build time). Static buffer: copy before the next call. */
const char *nl_test_fixture(const char *relpath);

/* Parse a JSON text; fails the running test (and returns NULL) when invalid. */
json_object *nl_test_json(const char *text);

/* JSON equality irrespective of key order (json-c's json_object_equal). */
#define NL_ASSERT_JSON_EQ(actual_obj, expected_text)                                               \
	do {                                                                                       \
		json_object *nl__exp = json_tokener_parse(expected_text);                          \
		CU_ASSERT_PTR_NOT_NULL_FATAL(nl__exp);                                             \
		int nl__eq = json_object_equal((actual_obj), nl__exp);                             \
		if (!nl__eq)                                                                       \
			fprintf(                                                                   \
			    stderr, "\n  expected: %s\n  actual:   %s\n", (expected_text),         \
			    json_object_to_json_string_ext((actual_obj), JSON_C_TO_STRING_PLAIN)); \
		CU_ASSERT_TRUE(nl__eq);                                                            \
		json_object_put(nl__exp);                                                          \
	} while (0)

#endif
