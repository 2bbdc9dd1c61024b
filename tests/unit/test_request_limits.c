/* Requests in flight (mockapi/auth/request_limits.c): kube-apiserver's
 * WithMaxInFlightLimit — separate budgets for reads (get, list) and
 * everything else, watches never counted, system:masters exempt, 0 = no
 * limit — and the throttle answer (429, Retry-After: 1, plain text). */
#include <nodelet/errors.h>
#include <string.h>

#include "../cu_main.h"
#include "auth/request_limits.h"

static void test_request_limits__budgets_per_kind(void)
{
	mock_inflight f = {.max_readonly = 2, .max_mutating = 1};
	mock_inflight_slot a, b, c, m, n;
	CU_ASSERT_EQUAL(mock_inflight_enter(&a, &f, "get", 0), 0);
	CU_ASSERT_EQUAL(a, MOCK_SLOT_READONLY);
	CU_ASSERT_EQUAL(mock_inflight_enter(&b, &f, "list", 0), 0);
	CU_ASSERT_EQUAL(mock_inflight_enter(&c, &f, "get", 0), NL_ETOOMANYREQUESTS);
	CU_ASSERT_EQUAL(c, MOCK_SLOT_NONE);
	CU_ASSERT_EQUAL(mock_inflight_enter(&m, &f, "create", 0), 0);
	CU_ASSERT_EQUAL(m, MOCK_SLOT_MUTATING);
	CU_ASSERT_EQUAL(mock_inflight_enter(&n, &f, "post", 0), NL_ETOOMANYREQUESTS);
	/* long-running and exempt requests pass and hold nothing */
	CU_ASSERT_EQUAL(mock_inflight_enter(&c, &f, "watch", 0), 0);
	CU_ASSERT_EQUAL(c, MOCK_SLOT_NONE);
	CU_ASSERT_EQUAL(mock_inflight_enter(&c, &f, "get", 1), 0);
	CU_ASSERT_EQUAL(c, MOCK_SLOT_NONE);
	mock_inflight_leave(&f, &c); /* a no-op */
	mock_inflight_leave(&f, &a);
	CU_ASSERT_EQUAL(a, MOCK_SLOT_NONE);
	CU_ASSERT_EQUAL(mock_inflight_enter(&c, &f, "get", 0), 0);
	mock_inflight_leave(&f, &b);
	mock_inflight_leave(&f, &c);
	mock_inflight_leave(&f, &m);
	CU_ASSERT_EQUAL(atomic_load(&f.readonly), 0);
	CU_ASSERT_EQUAL(atomic_load(&f.mutating), 0);
}

/* apiserver_current_inflight_requests: the most in flight during the
 * last whole second, per kind; the window is set ahead of the clock so
 * that only the test's own calls roll it. */
static void test_request_limits__watermark_of_the_last_second(void)
{
	mock_inflight f = {.max_readonly = 5, .max_mutating = 5};
	long long w = (long long)mock_inflight_now_sec() + 100;
	atomic_store(&f.window, w);
	mock_inflight_slot a, b, m;
	unsigned ro = 9, mu = 9;
	CU_ASSERT_EQUAL(mock_inflight_enter(&a, &f, "get", 0), 0);
	CU_ASSERT_EQUAL(mock_inflight_enter(&b, &f, "list", 0), 0);
	mock_inflight_leave(&f, &b);
	CU_ASSERT_EQUAL(mock_inflight_enter(&m, &f, "update", 0), 0);
	/* still the window of the requests: the one before shows (none) */
	CU_ASSERT_EQUAL(mock_inflight_watermarks(&f, w, &ro, &mu), 0);
	CU_ASSERT_EQUAL(ro, 0);
	CU_ASSERT_EQUAL(mu, 0);
	/* the next second shows their peaks, 2 reads at once and 1 write */
	CU_ASSERT_EQUAL(mock_inflight_watermarks(&f, w + 1, &ro, &mu), 0);
	CU_ASSERT_EQUAL(ro, 2);
	CU_ASSERT_EQUAL(mu, 1);
	mock_inflight_leave(&f, &a);
	mock_inflight_leave(&f, &m);
	/* the second after: what was in flight when it began */
	CU_ASSERT_EQUAL(mock_inflight_watermarks(&f, w + 2, &ro, &mu), 0);
	CU_ASSERT_EQUAL(ro, 1);
	CU_ASSERT_EQUAL(mu, 1);
	/* idle seconds later: nothing */
	CU_ASSERT_EQUAL(mock_inflight_watermarks(&f, w + 5, &ro, &mu), 0);
	CU_ASSERT_EQUAL(ro, 0);
	CU_ASSERT_EQUAL(mu, 0);
	/* without limits there is no filter and no metric */
	mock_inflight none = {.max_readonly = 0};
	CU_ASSERT_EQUAL(mock_inflight_watermarks(&none, w, &ro, &mu), -1);
}

static void test_request_limits__zero_means_no_limit(void)
{
	mock_inflight f = {.max_readonly = 0, .max_mutating = 0};
	mock_inflight_slot s;
	for (int i = 0; i < 1000; i++) {
		CU_ASSERT_EQUAL(mock_inflight_enter(&s, &f, "update", 0), 0);
		CU_ASSERT_EQUAL(s, MOCK_SLOT_NONE);
	}
}

static void test_request_limits__throttle_answer(void)
{
	mock_response r;
	mock_response_init(&r);
	mock_response_too_many_requests(&r);
	CU_ASSERT_EQUAL(r.code, 429);
	CU_ASSERT_EQUAL(r.retry_after, 1);
	CU_ASSERT_STRING_EQUAL(r.content_type, "text/plain; charset=utf-8");
	CU_ASSERT_STRING_EQUAL(r.body.data, "Too many requests, please try again later.\n");
	CU_ASSERT_PTR_NOT_NULL(strstr(r.headers, "X-Content-Type-Options: nosniff\r\n"));
	mock_response_free(&r);
}

static CU_TestInfo tests[] = {
    {"budgets_per_kind", test_request_limits__budgets_per_kind},
    {"zero_means_no_limit", test_request_limits__zero_means_no_limit},
    {"watermark_of_the_last_second", test_request_limits__watermark_of_the_last_second},
    {"throttle_answer", test_request_limits__throttle_answer},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"request_limits", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
