/* /healthz, /livez, /readyz as kube-apiserver answers them: "ok", the
 * ?verbose check list, ?exclude, and the per-check paths. */
#include <string.h>

#include "../cu_main.h"
#include "core/request.h"
#include "nonresource/health.h"

/* Handle a GET; returns whether it was a health path. The caller frees resp. */
static int get(mock_response *resp, const char *path, const char *k1, const char *v1,
               const char *k2, const char *v2)
{
	mock_request req;
	memset(&req, 0, sizeof(req));
	req.method = "GET";
	req.path = path;
	if (k1) {
		req.query[req.nquery].key = k1;
		req.query[req.nquery++].value = v1;
	}
	if (k2) {
		req.query[req.nquery].key = k2;
		req.query[req.nquery++].value = v2;
	}
	mock_response_init(resp);
	return mock_handle_health(&req, resp);
}

static void assert_text(const char *path, const char *k1, const char *v1, const char *k2,
                        const char *v2, const char *want)
{
	mock_response r;
	CU_ASSERT_TRUE_FATAL(get(&r, path, k1, v1, k2, v2));
	CU_ASSERT_EQUAL(r.code, 200);
	CU_ASSERT_STRING_EQUAL(r.content_type, "text/plain; charset=utf-8");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r.body.data);
	if (strcmp(r.body.data, want) != 0)
		fprintf(stderr, "\n  want: %s\n  got:  %s\n", want, r.body.data);
	CU_ASSERT_STRING_EQUAL(r.body.data, want);
	mock_response_free(&r);
}

static void test_health__plain_ok(void)
{
	assert_text("/healthz", NULL, NULL, NULL, NULL, "ok");
	assert_text("/livez", NULL, NULL, NULL, NULL, "ok");
	assert_text("/readyz/", NULL, NULL, NULL, NULL, "ok");
}

static void test_health__verbose_lists_checks(void)
{
	/* "?verbose" arrives as a key without a value. */
	assert_text("/healthz", "verbose", NULL, NULL, NULL,
	            "[+]ping ok\n[+]log ok\nhealthz check passed\n");
	assert_text("/livez", "verbose", "1", NULL, NULL,
	            "[+]ping ok\n[+]log ok\nlivez check passed\n");
	assert_text("/readyz", "verbose", NULL, NULL, NULL,
	            "[+]ping ok\n[+]log ok\n[+]shutdown ok\nreadyz check passed\n");
}

static void test_health__exclude(void)
{
	assert_text("/readyz", "verbose", NULL, "exclude", "log",
	            "[+]ping ok\n[+]log excluded: ok\n[+]shutdown ok\nreadyz check passed\n");
	assert_text("/healthz", "exclude", "etcd", "verbose", NULL,
	            "[+]ping ok\n[+]log ok\nwarn: some health checks cannot be excluded: no "
	            "matches for \"etcd\"\nhealthz check passed\n");
	/* Without verbose only "ok", whatever was excluded. */
	assert_text("/healthz", "exclude", "etcd", NULL, NULL, "ok");
}

static void test_health__single_checks(void)
{
	assert_text("/healthz/ping", NULL, NULL, NULL, NULL, "ok");
	assert_text("/livez/ping", NULL, NULL, NULL, NULL, "ok");
	assert_text("/readyz/ping", NULL, NULL, NULL, NULL, "ok");
	assert_text("/readyz/shutdown", NULL, NULL, NULL, NULL, "ok");
	mock_response r;
	/* Checks nodelet-mockapi does not have, and other paths, are not health paths. */
	CU_ASSERT_FALSE(get(&r, "/healthz/etcd", NULL, NULL, NULL, NULL));
	mock_response_free(&r);
	CU_ASSERT_FALSE(get(&r, "/livez/shutdown", NULL, NULL, NULL, NULL));
	mock_response_free(&r);
	CU_ASSERT_FALSE(get(&r, "/healthzz", NULL, NULL, NULL, NULL));
	mock_response_free(&r);
	CU_ASSERT_FALSE(get(&r, "/api/v1", NULL, NULL, NULL, NULL));
	mock_response_free(&r);
}

static CU_TestInfo tests[] = {
    {"plain_ok", test_health__plain_ok},
    {"verbose_lists_checks", test_health__verbose_lists_checks},
    {"exclude", test_health__exclude},
    {"single_checks", test_health__single_checks},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"health", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
