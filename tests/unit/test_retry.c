/* retry.RetryOnConflict with client-go's DefaultRetry, on a fake clock. */
#include <nodelet/retry.h>
#include <string.h>

#include "../cu_main.h"

#define MS NL_USEC_PER_MSEC

typedef struct {
	int calls;
	int fail_times; /* fail this many calls */
	int code;       /* with this code */
} attempt;

static int try_once(nl_result *res, void *payload)
{
	attempt *a = payload;
	a->calls++;
	if (a->calls > a->fail_times)
		return 0;
	nl_status *st = a->code == NL_ECONFLICT
	                    ? nl_status_new(409, "Conflict", "the object has been modified")
	                    : nl_status_new(404, "NotFound", "not found");
	res->status = st;
	res->code = a->code;
	res->http_status = 409;
	snprintf(res->message, sizeof(res->message), "try %d failed", a->calls);
	return a->code;
}

static void test_retry__conflict_then_success(void)
{
	nl_clock *c;
	attempt a = {0, 2, NL_ECONFLICT};
	nl_result res = NL_RESULT_INIT;
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&c, 0), 0);
	CU_ASSERT_EQUAL(nl_retry_on_conflict(NULL, c, try_once, &a, &res), 0);
	CU_ASSERT_EQUAL(a.calls, 3);
	CU_ASSERT_EQUAL(res.code, 0);
	CU_ASSERT_PTR_NULL(res.status);
	/* Two sleeps of 10 ms plus up to 10% jitter each. */
	size_t n;
	const int64_t *s = nl_clock_fake_sleeps(c, &n, NULL);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	for (size_t i = 0; i < n; i++) {
		CU_ASSERT(s[i] >= 10 * MS);
		CU_ASSERT(s[i] < 11 * MS);
	}
	nl_result_clear(&res);
	nl_clock_free(c);
}

/* DefaultRetry: five tries, four sleeps, then the last conflict. */
static void test_retry__gives_up_after_five_tries(void)
{
	nl_clock *c;
	attempt a = {0, 100, NL_ECONFLICT};
	nl_result res = NL_RESULT_INIT;
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&c, 0), 0);
	CU_ASSERT_EQUAL(nl_retry_on_conflict(NULL, c, try_once, &a, &res), NL_ECONFLICT);
	CU_ASSERT_EQUAL(a.calls, 5);
	CU_ASSERT_TRUE(nl_is_conflict(&res));
	CU_ASSERT_STRING_EQUAL(res.message, "try 5 failed");
	size_t n;
	nl_clock_fake_sleeps(c, &n, NULL);
	CU_ASSERT_EQUAL(n, 4);
	nl_result_clear(&res);
	nl_clock_free(c);
}

static void test_retry__other_errors_return_at_once(void)
{
	nl_clock *c;
	attempt a = {0, 100, NL_ENOTFOUND};
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&c, 0), 0);
	CU_ASSERT_EQUAL(nl_retry_on_conflict(NULL, c, try_once, &a, NULL), NL_ENOTFOUND);
	CU_ASSERT_EQUAL(a.calls, 1);
	nl_clock_free(c);
}

/* DefaultBackoff grows: 10 ms, 50 ms, 250 ms (factor 5). */
static void test_retry__backoff_factor_grows_sleeps(void)
{
	nl_clock *c;
	attempt a = {0, 100, NL_ECONFLICT};
	nl_backoff b = NL_BACKOFF_DEFAULT;
	b.jitter = 0;
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&c, 0), 0);
	CU_ASSERT_EQUAL(nl_retry_on_conflict(&b, c, try_once, &a, NULL), NL_ECONFLICT);
	CU_ASSERT_EQUAL(a.calls, 4);
	size_t n;
	const int64_t *s = nl_clock_fake_sleeps(c, &n, NULL);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	CU_ASSERT_EQUAL(s[0], 10 * MS);
	CU_ASSERT_EQUAL(s[1], 50 * MS);
	CU_ASSERT_EQUAL(s[2], 250 * MS);
	nl_clock_free(c);
}

static void test_retry__stopped_clock_cancels(void)
{
	nl_clock *c;
	attempt a = {0, 100, NL_ECONFLICT};
	nl_result res = NL_RESULT_INIT;
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&c, 0), 0);
	nl_clock_stop(c);
	CU_ASSERT_EQUAL(nl_retry_on_conflict(NULL, c, try_once, &a, &res), NL_ECANCELED);
	CU_ASSERT_EQUAL(a.calls, 1);
	CU_ASSERT_EQUAL(res.code, NL_ECANCELED);
	nl_result_clear(&res);
	nl_clock_free(c);
}

static CU_TestInfo tests[] = {
    {"conflict_then_success", test_retry__conflict_then_success},
    {"gives_up_after_five_tries", test_retry__gives_up_after_five_tries},
    {"other_errors_return_at_once", test_retry__other_errors_return_at_once},
    {"backoff_factor_grows_sleeps", test_retry__backoff_factor_grows_sleeps},
    {"stopped_clock_cancels", test_retry__stopped_clock_cancels},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {{"retry", NULL, NULL, NULL, NULL, tests}, CU_SUITE_INFO_NULL};
