/* The token bucket on a fake clock: burst, refill at qps, reservations in
 * order, client-go's defaults. */
#include <nodelet/ratelimit.h>

#include "../cu_main.h"

#define MS NL_USEC_PER_MSEC
#define SEC NL_USEC_PER_SEC

static void test_ratelimit__burst_is_free_then_one_token_per_interval(void)
{
	nl_clock *c;
	nl_ratelimit *rl;
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&c, 1000 * SEC), 0);
	CU_ASSERT_EQUAL_FATAL(nl_ratelimit_new(&rl, 5, 10, c), 0);
	for (int i = 0; i < 10; i++)
		CU_ASSERT_EQUAL(nl_ratelimit_reserve(rl), 0);
	/* Tokens go negative: the 11th waits 200 ms, the 12th 400 ms. */
	CU_ASSERT_EQUAL(nl_ratelimit_reserve(rl), 200 * MS);
	CU_ASSERT_EQUAL(nl_ratelimit_reserve(rl), 400 * MS);
	nl_ratelimit_free(rl);
	nl_clock_free(c);
}

static void test_ratelimit__refills_at_qps_up_to_burst(void)
{
	nl_clock *c;
	nl_ratelimit *rl;
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&c, 0), 0);
	CU_ASSERT_EQUAL_FATAL(nl_ratelimit_new(&rl, 5, 10, c), 0);
	for (int i = 0; i < 10; i++)
		CU_ASSERT_TRUE(nl_ratelimit_try(rl));
	CU_ASSERT_FALSE(nl_ratelimit_try(rl)); /* empty, and nothing reserved */
	CU_ASSERT_EQUAL(nl_clock_advance(c, 1 * SEC), 0);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_TRUE(nl_ratelimit_try(rl));
	CU_ASSERT_FALSE(nl_ratelimit_try(rl));
	/* A long pause refills only to the burst. */
	CU_ASSERT_EQUAL(nl_clock_advance(c, 60 * SEC), 0);
	int n = 0;
	while (nl_ratelimit_try(rl))
		n++;
	CU_ASSERT_EQUAL(n, 10);
	nl_ratelimit_free(rl);
	nl_clock_free(c);
}

/* 100 waits at 5 qps with burst 10: 90 paced ones take 18 s of clock. */
static void test_ratelimit__wait_sleeps_on_the_clock(void)
{
	nl_clock *c;
	nl_ratelimit *rl;
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&c, 0), 0);
	CU_ASSERT_EQUAL_FATAL(nl_ratelimit_new(&rl, 5, 10, c), 0);
	for (int i = 0; i < 100; i++)
		CU_ASSERT_EQUAL(nl_ratelimit_wait(rl), 0);
	CU_ASSERT_EQUAL(nl_clock_mono(c), 18 * SEC);
	size_t n = 0;
	nl_clock_fake_sleeps(c, &n, NULL);
	CU_ASSERT_EQUAL(n, 90);
	nl_ratelimit_free(rl);
	nl_clock_free(c);
}

static void test_ratelimit__stopped_clock_cancels_wait(void)
{
	nl_clock *c;
	nl_ratelimit *rl;
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&c, 0), 0);
	CU_ASSERT_EQUAL_FATAL(nl_ratelimit_new(&rl, 1, 1, c), 0);
	CU_ASSERT_EQUAL(nl_ratelimit_wait(rl), 0);
	nl_clock_stop(c);
	CU_ASSERT_EQUAL(nl_ratelimit_wait(rl), NL_ECANCELED);
	nl_ratelimit_free(rl);
	nl_clock_free(c);
}

static void test_ratelimit__negative_qps_is_unlimited(void)
{
	nl_ratelimit *rl;
	CU_ASSERT_EQUAL_FATAL(nl_ratelimit_new(&rl, -1, 0, NULL), 0);
	for (int i = 0; i < 1000; i++)
		CU_ASSERT_EQUAL(nl_ratelimit_reserve(rl), 0);
	CU_ASSERT_TRUE(nl_ratelimit_try(rl));
	nl_ratelimit_free(rl);
	CU_ASSERT_EQUAL(nl_ratelimit_reserve(NULL), 0);
}

static void test_ratelimit__bad_arguments(void)
{
	nl_clock *c;
	nl_ratelimit *rl = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&c, 0), 0);
	CU_ASSERT_EQUAL(nl_ratelimit_new(&rl, 0, 10, c), NL_EINVAL);
	CU_ASSERT_EQUAL(nl_ratelimit_new(&rl, 5, 0, c), NL_EINVAL);
	CU_ASSERT_EQUAL(nl_ratelimit_new(&rl, 5, 10, NULL), NL_EINVAL);
	CU_ASSERT_PTR_NULL(rl);
	nl_ratelimit_free(NULL);
	nl_clock_free(c);
}

static CU_TestInfo tests[] = {
    {"burst_is_free_then_one_token_per_interval",
     test_ratelimit__burst_is_free_then_one_token_per_interval},
    {"refills_at_qps_up_to_burst", test_ratelimit__refills_at_qps_up_to_burst},
    {"wait_sleeps_on_the_clock", test_ratelimit__wait_sleeps_on_the_clock},
    {"stopped_clock_cancels_wait", test_ratelimit__stopped_clock_cancels_wait},
    {"negative_qps_is_unlimited", test_ratelimit__negative_qps_is_unlimited},
    {"bad_arguments", test_ratelimit__bad_arguments},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {{"ratelimit", NULL, NULL, NULL, NULL, tests}, CU_SUITE_INFO_NULL};
