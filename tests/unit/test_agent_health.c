/* The agent's /healthz, /livez and /readyz: component-base's healthz
 * bodies and codes ("ok"; the check list with ?verbose or on failure;
 * ?exclude; /<endpoint>/<check>), and readiness waiting for the Node's
 * registration and its first Lease write. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../client/agent/agent_health.h"
#include "../cu_main.h"

static const nl__agent_health_state READY = {1, 1};
static const nl__agent_health_state UNREGISTERED = {0, 0};
static const nl__agent_health_state NO_LEASE = {1, 0};

/* The answer to path?query; *code set, body returned (caller frees). */
static char *get(int *code, const char *path, const char *query, const nl__agent_health_state *st)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	*code = 0;
	CU_ASSERT_EQUAL(nl__agent_health_answer(&b, code, path, query, st), 1);
	char *text = nl_buf_detach(&b, NULL);
	return text ? text : strdup("");
}

static void check(const char *path, const char *query, const nl__agent_health_state *st,
                  int want_code, const char *want_body)
{
	int code;
	char *body = get(&code, path, query, st);
	CU_ASSERT_EQUAL(code, want_code);
	if (strcmp(body, want_body) != 0)
		fprintf(stderr, "\n  %s?%s: %s\n", path, query ? query : "", body);
	CU_ASSERT_STRING_EQUAL(body, want_body);
	free(body);
}

static void test_agent_health__ok_bodies(void)
{
	check("/healthz", NULL, &READY, 200, "ok");
	check("/livez", "", &READY, 200, "ok");
	check("/readyz", NULL, &READY, 200, "ok");
	check("/livez", "verbose", &READY, 200, "[+]ping ok\nlivez check passed\n");
	check("/readyz", "verbose=1", &READY, 200,
	      "[+]ping ok\n[+]registration ok\n[+]node-lease ok\nreadyz check passed\n");
}

/* Liveness never waits for the API server; readiness does. */
static void test_agent_health__readiness_waits(void)
{
	check("/healthz", NULL, &UNREGISTERED, 200, "ok");
	check("/livez", NULL, &UNREGISTERED, 200, "ok");
	check("/readyz", NULL, &UNREGISTERED, 500,
	      "[+]ping ok\n[-]registration failed: reason withheld\n"
	      "[-]node-lease failed: reason withheld\nreadyz check failed\n");
	check("/readyz", "verbose", &NO_LEASE, 500,
	      "[+]ping ok\n[+]registration ok\n[-]node-lease failed: reason withheld\n"
	      "readyz check failed\n");
}

static void test_agent_health__exclude(void)
{
	check("/readyz", "exclude=node-lease", &NO_LEASE, 200, "ok");
	check("/readyz", "verbose&exclude=node-lease", &NO_LEASE, 200,
	      "[+]ping ok\n[+]registration ok\n[+]node-lease excluded: ok\nreadyz check passed\n");
	check("/readyz", "exclude=registration&exclude=node%2Dlease", &UNREGISTERED, 200, "ok");
	check("/livez", "verbose=true&exclude=dontexist", &READY, 200,
	      "[+]ping ok\nwarn: some health checks cannot be excluded: no matches for "
	      "\"dontexist\"\nlivez check passed\n");
}

static void test_agent_health__single_checks(void)
{
	check("/livez/ping", NULL, &UNREGISTERED, 200, "ok");
	check("/readyz/ping", NULL, &UNREGISTERED, 200, "ok");
	check("/readyz/registration", NULL, &READY, 200, "ok");
	check("/readyz/registration", NULL, &UNREGISTERED, 500,
	      "internal server error: the node is not registered yet\n");
	check("/readyz/node-lease", NULL, &NO_LEASE, 500,
	      "internal server error: the node lease has not been written yet\n");
	check("/livez/registration", NULL, &READY, 404, "404 page not found\n");
}

static void test_agent_health__other_paths(void)
{
	static const char *const paths[] = {"/metrics", "/", "/healthzz", "/readyzz", "/live"};
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		nl_buf b;
		int code = 7;
		nl_buf_init(&b, 0);
		CU_ASSERT_EQUAL(nl__agent_health_answer(&b, &code, paths[i], NULL, &READY), 0);
		CU_ASSERT_EQUAL(b.len, 0);
		CU_ASSERT_EQUAL(code, 7);
		nl_buf_free(&b);
	}
}

static CU_TestInfo tests[] = {
    {"ok_bodies", test_agent_health__ok_bodies},
    {"readiness_waits", test_agent_health__readiness_waits},
    {"exclude", test_agent_health__exclude},
    {"single_checks", test_agent_health__single_checks},
    {"other_paths", test_agent_health__other_paths},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"agent_health", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
