#include "cu_main.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef NL_FIXTURES_DIR
#define NL_FIXTURES_DIR "fixtures"
#endif

const char *nl_test_fixture(const char *relpath)
{
	static char path[4096];
	const char *dir = getenv("NL_FIXTURES_DIR");
	snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : NL_FIXTURES_DIR, relpath);
	return path;
}

json_object *nl_test_json(const char *text)
{
	json_object *o = json_tokener_parse(text);
	CU_ASSERT_PTR_NOT_NULL(o);
	return o;
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	if (CU_register_suites(nl_test_suites) != CUE_SUCCESS) {
		fprintf(stderr, "suite registration failed: %s\n", CU_get_error_msg());
		CU_cleanup_registry();
		return 2;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
