#include "client_util.h"

#include <CUnit/CUnit.h>
#include <stdio.h>

nl_client *nl_test_client_at(const char *url, nl_clock *clock, double qps)
{
	nl_rest_config cfg = {0};
	nl_client_options o;
	nl_client *c = NULL;
	nl_err err = {0};
	cfg.server = (char *)url;
	nl_client_options_init(&o);
	o.qps = qps;
	o.clock = clock;
	int rc = nl_client_new(&c, &cfg, &o, &err);
	if (rc != 0)
		fprintf(stderr, "client: %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	return c;
}
