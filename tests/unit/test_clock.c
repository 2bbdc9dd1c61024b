#include "../cu_main.h"

#include <nodelet/clock.h>

#include <pthread.h>
#include <string.h>
#include <time.h>

#define MS NL_USEC_PER_MSEC
#define SEC NL_USEC_PER_SEC

/* --- helpers ---------------------------------------------------------------- */

typedef struct {
	int order[64];
	int64_t at[64];
	size_t n;
	nl_clock *clock;
} fired_log;

typedef struct {
	fired_log *log;
	int tag;
} fire_arg;

static void record_fire(void *payload)
{
	fire_arg *a = payload;
	if (a->log->n < 64) {
		a->log->order[a->log->n] = a->tag;
		a->log->at[a->log->n] = a->log->clock ? nl_clock_now(a->log->clock) : 0;
		a->log->n++;
	}
}

static int64_t mono_wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * SEC + ts.tv_nsec / 1000;
}

/* --- timers ------------------------------------------------------------------ */

static void test_clock__timers_fire_in_deadline_order(void)
{
	nl_timers *t;
	fired_log log = {0};
	fire_arg a = {&log, 30}, b = {&log, 10}, c = {&log, 20};
	int64_t next;

	CU_ASSERT_EQUAL_FATAL(nl_timers_new(&t), 0);
	CU_ASSERT_EQUAL(nl_timers_next_deadline(&next, t), NL_ENOTFOUND);
	CU_ASSERT_EQUAL(nl_timers_add(NULL, t, 30, record_fire, &a), 0);
	CU_ASSERT_EQUAL(nl_timers_add(NULL, t, 10, record_fire, &b), 0);
	CU_ASSERT_EQUAL(nl_timers_add(NULL, t, 20, record_fire, &c), 0);
	CU_ASSERT_EQUAL(nl_timers_next_deadline(&next, t), 0);
	CU_ASSERT_EQUAL(next, 10);

	CU_ASSERT_EQUAL(nl_timers_run_due(t, 25), 2);
	CU_ASSERT_EQUAL(log.n, 2);
	CU_ASSERT_EQUAL(log.order[0], 10);
	CU_ASSERT_EQUAL(log.order[1], 20);
	CU_ASSERT_EQUAL(nl_timers_count(t), 1);
	CU_ASSERT_EQUAL(nl_timers_next_deadline(&next, t), 0);
	CU_ASSERT_EQUAL(next, 30);
	CU_ASSERT_EQUAL(nl_timers_run_due(t, 29), 0);
	CU_ASSERT_EQUAL(nl_timers_run_due(t, 30), 1);
	CU_ASSERT_EQUAL(nl_timers_count(t), 0);
	nl_timers_free(t);
}

static void test_clock__timers_equal_deadlines_fire_in_add_order(void)
{
	nl_timers *t;
	fired_log log = {0};
	fire_arg args[8];

	CU_ASSERT_EQUAL_FATAL(nl_timers_new(&t), 0);
	for (int i = 0; i < 8; i++) {
		args[i] = (fire_arg){&log, i};
		CU_ASSERT_EQUAL(nl_timers_add(NULL, t, 5, record_fire, &args[i]), 0);
	}
	CU_ASSERT_EQUAL(nl_timers_run_due(t, 5), 8);
	for (int i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(log.order[i], i);
	nl_timers_free(t);
}

static void test_clock__timers_cancel(void)
{
	nl_timers *t;
	fired_log log = {0};
	fire_arg a = {&log, 1}, b = {&log, 2};
	uint64_t ida = 0, idb = 0;

	CU_ASSERT_EQUAL_FATAL(nl_timers_new(&t), 0);
	CU_ASSERT_EQUAL(nl_timers_add(&ida, t, 10, record_fire, &a), 0);
	CU_ASSERT_EQUAL(nl_timers_add(&idb, t, 20, record_fire, &b), 0);
	CU_ASSERT_NOT_EQUAL(ida, 0);
	CU_ASSERT_NOT_EQUAL(ida, idb);
	CU_ASSERT_EQUAL(nl_timers_cancel(t, ida), 0);
	CU_ASSERT_EQUAL(nl_timers_cancel(t, ida), NL_ENOTFOUND);
	CU_ASSERT_EQUAL(nl_timers_run_due(t, 100), 1);
	CU_ASSERT_EQUAL(log.order[0], 2);
	/* A fired timer can no longer be cancelled. */
	CU_ASSERT_EQUAL(nl_timers_cancel(t, idb), NL_ENOTFOUND);
	nl_timers_free(t);
}

typedef struct {
	nl_timers *t;
	fired_log *log;
	fire_arg child;
} adder_arg;

static void add_child_timer(void *payload)
{
	adder_arg *a = payload;
	nl_timers_add(NULL, a->t, 7, record_fire, &a->child);
}

static void test_clock__timers_callback_adds_due_timer(void)
{
	nl_timers *t;
	fired_log log = {0};
	adder_arg adder;

	CU_ASSERT_EQUAL_FATAL(nl_timers_new(&t), 0);
	adder = (adder_arg){t, &log, {&log, 99}};
	CU_ASSERT_EQUAL(nl_timers_add(NULL, t, 5, add_child_timer, &adder), 0);
	/* The child is due (7 <= 10) so the same run fires it. */
	CU_ASSERT_EQUAL(nl_timers_run_due(t, 10), 2);
	CU_ASSERT_EQUAL(log.n, 1);
	CU_ASSERT_EQUAL(log.order[0], 99);
	nl_timers_free(t);
}

static void test_clock__timers_heap_order_under_random_load(void)
{
	nl_timers *t;
	nl_rand r;
	uint64_t ids[300];
	int64_t last = INT64_MIN, due;
	nl_timer_fn fn;
	void *payload;
	size_t popped = 0;

	CU_ASSERT_EQUAL_FATAL(nl_timers_new(&t), 0);
	nl_rand_seed(&r, 7);
	for (int i = 0; i < 300; i++)
		CU_ASSERT_EQUAL(nl_timers_add(&ids[i], t, (int64_t)(nl_rand_next(&r) % 1000),
		                              record_fire, NULL),
		                0);
	for (int i = 0; i < 300; i += 3)
		CU_ASSERT_EQUAL(nl_timers_cancel(t, ids[i]), 0);
	CU_ASSERT_EQUAL(nl_timers_count(t), 200);
	while (nl_timers_next_deadline(&due, t) == 0) {
		CU_ASSERT(due >= last);
		last = due;
		CU_ASSERT_EQUAL(nl_timers_pop_due(&fn, &payload, t, due), 0);
		popped++;
	}
	CU_ASSERT_EQUAL(popped, 200);
	nl_timers_free(t);
}

/* --- fake clock ----------------------------------------------------------- */

static void test_clock__fake_sleep_advances_and_records(void)
{
	nl_clock *c;
	size_t n, total;

	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&c, 1000 * SEC), 0);
	CU_ASSERT_EQUAL(nl_clock_now(c), 1000 * SEC);
	CU_ASSERT_EQUAL(nl_clock_mono(c), 1000 * SEC);
	CU_ASSERT_EQUAL(nl_clock_sleep(c, 200 * MS), 0);
	CU_ASSERT_EQUAL(nl_clock_sleep(c, 400 * MS), 0);
	CU_ASSERT_EQUAL(nl_clock_now(c), 1000 * SEC + 600 * MS);
	const int64_t *s = nl_clock_fake_sleeps(c, &n, &total);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_EQUAL(total, 2);
	CU_ASSERT_EQUAL(s[0], 200 * MS);
	CU_ASSERT_EQUAL(s[1], 400 * MS);
	nl_clock_fake_clear_sleeps(c);
	CU_ASSERT_PTR_NULL(nl_clock_fake_sleeps(c, &n, NULL));
	CU_ASSERT_EQUAL(n, 0);
	nl_clock_free(c);
}

static void test_clock__fake_sleep_after_stop_is_canceled(void)
{
	nl_clock *c;
	size_t n;

	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&c, 0), 0);
	CU_ASSERT_FALSE(nl_clock_stopped(c));
	nl_clock_stop(c);
	CU_ASSERT_TRUE(nl_clock_stopped(c));
	CU_ASSERT_EQUAL(nl_clock_sleep(c, 5 * SEC), NL_ECANCELED);
	CU_ASSERT_EQUAL(nl_clock_now(c), 0);
	nl_clock_fake_sleeps(c, &n, NULL);
	CU_ASSERT_EQUAL(n, 0);
	nl_clock_free(c);
}

/* The sleep hook: a test driver acting at a virtual time that passes
 * inside a sleep (timers cannot: they never fire there). */
typedef struct {
	int64_t seen[4];
	int n;
	nl_clock *clock;
} hook_log;

static void on_sleep(int64_t now, void *payload)
{
	hook_log *h = payload;
	if (h->n < 4)
		h->seen[h->n] = now;
	h->n++;
	/* The clock's lock is not held: the hook may use the clock. */
	CU_ASSERT_EQUAL(nl_clock_now(h->clock), now);
}

static void test_clock__fake_sleep_hook_sees_each_sleep(void)
{
	nl_clock *c;
	hook_log h = {{0}, 0, NULL};

	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&c, 10 * SEC), 0);
	h.clock = c;
	nl_clock_fake_on_sleep(c, on_sleep, &h);
	CU_ASSERT_EQUAL(nl_clock_sleep(c, 200 * MS), 0);
	CU_ASSERT_EQUAL(nl_clock_sleep(c, 7 * SEC), 0);
	CU_ASSERT_EQUAL_FATAL(h.n, 2);
	CU_ASSERT_EQUAL(h.seen[0], 10 * SEC + 200 * MS);
	CU_ASSERT_EQUAL(h.seen[1], 17 * SEC + 200 * MS);
	/* Not for advances, not after stop, not once removed. */
	CU_ASSERT_EQUAL(nl_clock_advance(c, SEC), 0);
	nl_clock_fake_on_sleep(c, NULL, NULL);
	CU_ASSERT_EQUAL(nl_clock_sleep(c, SEC), 0);
	nl_clock_fake_on_sleep(c, on_sleep, &h);
	nl_clock_stop(c);
	CU_ASSERT_EQUAL(nl_clock_sleep(c, SEC), NL_ECANCELED);
	CU_ASSERT_EQUAL(h.n, 2);
	nl_clock_free(c);
}

static void test_clock__fake_advance_fires_at_each_deadline(void)
{
	nl_clock *c;
	fired_log log = {0};
	fire_arg a = {&log, 1}, b = {&log, 2}, late = {&log, 3};
	int64_t next;

	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&c, 100), 0);
	log.clock = c;
	CU_ASSERT_EQUAL(nl_clock_after(NULL, c, 30, record_fire, &b), 0);
	CU_ASSERT_EQUAL(nl_clock_after(NULL, c, 10, record_fire, &a), 0);
	CU_ASSERT_EQUAL(nl_clock_after(NULL, c, 500, record_fire, &late), 0);
	CU_ASSERT_EQUAL(nl_clock_next_deadline(&next, c), 0);
	CU_ASSERT_EQUAL(next, 110);

	CU_ASSERT_EQUAL(nl_clock_advance(c, 50), 0);
	CU_ASSERT_EQUAL_FATAL(log.n, 2);
	CU_ASSERT_EQUAL(log.order[0], 1);
	CU_ASSERT_EQUAL(log.at[0], 110); /* the callback sees its own deadline */
	CU_ASSERT_EQUAL(log.order[1], 2);
	CU_ASSERT_EQUAL(log.at[1], 130);
	CU_ASSERT_EQUAL(nl_clock_now(c), 150);
	CU_ASSERT_EQUAL(nl_clock_run_due(c), 0);
	nl_clock_free(c);
}

static void sleep_three_seconds(void *payload)
{
	nl_clock_sleep(payload, 3 * SEC);
}

static void test_clock__fake_advance_past_target_when_callback_sleeps(void)
{
	nl_clock *c;

	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&c, 0), 0);
	CU_ASSERT_EQUAL(nl_clock_after(NULL, c, 1 * SEC, sleep_three_seconds, c), 0);
	CU_ASSERT_EQUAL(nl_clock_advance(c, 2 * SEC), 0);
	CU_ASSERT_EQUAL(nl_clock_now(c), 4 * SEC);
	nl_clock_free(c);
}

static void test_clock__huge_durations_saturate(void)
{
	nl_clock *c;
	fired_log log = {0};
	fire_arg a = {&log, 1};
	int64_t next;

	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&c, 5 * SEC), 0);
	CU_ASSERT_EQUAL(nl_clock_after(NULL, c, INT64_MAX, record_fire, &a), 0);
	CU_ASSERT_EQUAL(nl_clock_next_deadline(&next, c), 0);
	CU_ASSERT_EQUAL(next, INT64_MAX); /* "never", not a wrapped past deadline */
	CU_ASSERT_EQUAL(nl_clock_advance(c, 100 * SEC), 0);
	CU_ASSERT_EQUAL(log.n, 0);
	CU_ASSERT_EQUAL(nl_clock_sleep(c, INT64_MAX), 0);
	CU_ASSERT_EQUAL(nl_clock_now(c), INT64_MAX);
	nl_clock_free(c);
}

static void test_clock__advance_rejects_real_clock_and_negative(void)
{
	nl_clock *real, *fake;
	size_t n = 7;

	CU_ASSERT_EQUAL_FATAL(nl_clock_new_real(&real), 0);
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&fake, 0), 0);
	CU_ASSERT_EQUAL(nl_clock_advance(real, 1), NL_EINVAL);
	CU_ASSERT_EQUAL(nl_clock_advance(fake, -1), NL_EINVAL);
	CU_ASSERT_PTR_NULL(nl_clock_fake_sleeps(real, &n, NULL));
	CU_ASSERT_EQUAL(n, 0);
	nl_clock_free(real);
	nl_clock_free(fake);
}

typedef struct {
	nl_clock *clock;
	int runs;
	int stop_at;
} chain_arg;

static void chain(void *payload)
{
	chain_arg *a = payload;
	if (++a->runs == a->stop_at)
		nl_clock_stop(a->clock);
	nl_clock_after(NULL, a->clock, 10 * SEC, chain, a);
}

static void test_clock__fake_run_jumps_until_stopped(void)
{
	nl_clock *c;
	chain_arg a;

	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&c, 0), 0);
	a = (chain_arg){c, 0, 5};
	CU_ASSERT_EQUAL(nl_clock_after(NULL, c, 10 * SEC, chain, &a), 0);
	CU_ASSERT_EQUAL(nl_clock_run(c), 0);
	CU_ASSERT_EQUAL(a.runs, 5);
	CU_ASSERT_EQUAL(nl_clock_now(c), 50 * SEC);
	nl_clock_free(c);
}

static void test_clock__fake_run_returns_when_no_timer_left(void)
{
	nl_clock *c;
	fired_log log = {0};
	fire_arg a = {&log, 1};

	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&c, 0), 0);
	CU_ASSERT_EQUAL(nl_clock_after(NULL, c, 5 * SEC, record_fire, &a), 0);
	CU_ASSERT_EQUAL(nl_clock_run(c), 0);
	CU_ASSERT_EQUAL(log.n, 1);
	CU_ASSERT_EQUAL(nl_clock_now(c), 5 * SEC);
	nl_clock_free(c);
}

/* --- real clock ----------------------------------------------------------- */

static void test_clock__real_now_is_wall_time(void)
{
	nl_clock *c;

	CU_ASSERT_EQUAL_FATAL(nl_clock_new_real(&c), 0);
	int64_t now = nl_clock_now(c);
	int64_t wall = (int64_t)time(NULL) * SEC;
	CU_ASSERT(now >= wall - 2 * SEC && now <= wall + 2 * SEC);
	int64_t m1 = nl_clock_mono(c), m2 = nl_clock_mono(c);
	CU_ASSERT(m2 >= m1);
	nl_clock_free(c);
}

static void test_clock__real_sleep_waits(void)
{
	nl_clock *c;

	CU_ASSERT_EQUAL_FATAL(nl_clock_new_real(&c), 0);
	int64_t t0 = mono_wall();
	CU_ASSERT_EQUAL(nl_clock_sleep(c, 20 * MS), 0);
	CU_ASSERT(mono_wall() - t0 >= 20 * MS);
	CU_ASSERT_EQUAL(nl_clock_sleep(c, 0), 0);
	nl_clock_free(c);
}

static void *stop_later(void *payload)
{
	struct timespec ts = {0, 50 * 1000 * 1000};
	nanosleep(&ts, NULL);
	nl_clock_stop(payload);
	return NULL;
}

static void test_clock__real_sleep_returns_promptly_on_stop(void)
{
	nl_clock *c;
	pthread_t th;

	CU_ASSERT_EQUAL_FATAL(nl_clock_new_real(&c), 0);
	int64_t t0 = mono_wall();
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, stop_later, c), 0);
	CU_ASSERT_EQUAL(nl_clock_sleep(c, 10 * SEC), NL_ECANCELED);
	int64_t took = mono_wall() - t0;
	CU_ASSERT(took >= 40 * MS);
	CU_ASSERT(took < 2 * SEC);
	pthread_join(th, NULL);
	/* Once stopped, every sleep is cut short at once. */
	t0 = mono_wall();
	CU_ASSERT_EQUAL(nl_clock_sleep(c, 10 * SEC), NL_ECANCELED);
	CU_ASSERT(mono_wall() - t0 < 1 * SEC);
	nl_clock_free(c);
}

static void stop_clock(void *payload)
{
	nl_clock_stop(payload);
}

static void test_clock__real_run_fires_timers_until_stopped(void)
{
	nl_clock *c;
	fired_log log = {0};
	fire_arg a = {&log, 1};

	CU_ASSERT_EQUAL_FATAL(nl_clock_new_real(&c), 0);
	int64_t t0 = mono_wall();
	CU_ASSERT_EQUAL(nl_clock_after(NULL, c, 10 * MS, record_fire, &a), 0);
	CU_ASSERT_EQUAL(nl_clock_after(NULL, c, 30 * MS, stop_clock, c), 0);
	CU_ASSERT_EQUAL(nl_clock_run(c), 0);
	int64_t took = mono_wall() - t0;
	CU_ASSERT_EQUAL(log.n, 1);
	CU_ASSERT(took >= 30 * MS);
	CU_ASSERT(took < 2 * SEC);
	nl_clock_free(c);
}

static void *add_stop_timer_later(void *payload)
{
	struct timespec ts = {0, 30 * 1000 * 1000};
	nanosleep(&ts, NULL);
	nl_clock_after(NULL, payload, 0, stop_clock, payload);
	return NULL;
}

static void test_clock__real_run_wakes_for_timer_added_elsewhere(void)
{
	nl_clock *c;
	pthread_t th;

	CU_ASSERT_EQUAL_FATAL(nl_clock_new_real(&c), 0);
	int64_t t0 = mono_wall();
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, add_stop_timer_later, c), 0);
	/* No timer yet: the loop waits until the other thread adds one. */
	CU_ASSERT_EQUAL(nl_clock_run(c), 0);
	CU_ASSERT(mono_wall() - t0 < 2 * SEC);
	pthread_join(th, NULL);
	nl_clock_free(c);
}

/* --- jitter ----------------------------------------------------------------- */

static void test_clock__rand_is_splitmix64(void)
{
	nl_rand r, r2;

	/* Reference outputs of splitmix64 seeded with 0. */
	nl_rand_seed(&r, 0);
	CU_ASSERT_EQUAL(nl_rand_next(&r), UINT64_C(0xe220a8397b1dcdaf));
	CU_ASSERT_EQUAL(nl_rand_next(&r), UINT64_C(0x6e789e6aa1b965f4));
	CU_ASSERT_EQUAL(nl_rand_next(&r), UINT64_C(0x06c45d188009454f));
	nl_rand_seed(&r, 42);
	nl_rand_seed(&r2, 42);
	for (int i = 0; i < 100; i++)
		CU_ASSERT_EQUAL(nl_rand_next(&r), nl_rand_next(&r2));
}

static void test_clock__rand_float_is_uniform_in_unit_interval(void)
{
	nl_rand r;
	double sum = 0;

	nl_rand_seed(&r, 1);
	for (int i = 0; i < 10000; i++) {
		double f = nl_rand_float(&r);
		CU_ASSERT(f >= 0.0 && f < 1.0);
		sum += f;
	}
	CU_ASSERT(sum / 10000 > 0.45 && sum / 10000 < 0.55);
}

static void test_clock__jitter_bounds(void)
{
	nl_rand r;
	int64_t lo = INT64_MAX, hi = 0;

	nl_rand_seed(&r, 42);
	for (int i = 0; i < 10000; i++) {
		int64_t j = nl_jitter(10 * SEC, 0.04, &r);
		CU_ASSERT(j >= 10 * SEC && j <= 10400 * MS);
		lo = j < lo ? j : lo;
		hi = j > hi ? j : hi;
	}
	/* The spread is actually used, not a constant. */
	CU_ASSERT(lo < 10050 * MS);
	CU_ASSERT(hi > 10350 * MS);
	/* wait.Jitter reads a non-positive factor as 1.0. */
	for (int i = 0; i < 100; i++) {
		int64_t j = nl_jitter(SEC, 0, &r);
		CU_ASSERT(j >= SEC && j <= 2 * SEC);
	}
}

typedef struct {
	nl_clock *clock;
	nl_jitter_until *j;
	int64_t start[32];
	int64_t end[32];
	int runs;
	int stop_after;
	int64_t work;
} periodic_arg;

static void periodic_work(void *payload)
{
	periodic_arg *a = payload;
	if (a->runs < 32)
		a->start[a->runs] = nl_clock_now(a->clock);
	nl_clock_sleep(a->clock, a->work);
	if (a->runs < 32)
		a->end[a->runs] = nl_clock_now(a->clock);
	a->runs++;
	if (a->stop_after && a->runs == a->stop_after)
		nl_jitter_until_stop(a->j);
}

static void run_periodic(periodic_arg *a, nl_jitter_until *j, int sliding, double factor,
                         int64_t span)
{
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&a->clock, 0), 0);
	a->j = j;
	CU_ASSERT_EQUAL(
	    nl_jitter_until_start(j, a->clock, 10 * SEC, factor, sliding, 99, periodic_work, a), 0);
	CU_ASSERT_EQUAL(nl_clock_advance(a->clock, span), 0);
}

static void test_clock__jitter_until_sliding_counts_from_end_of_run(void)
{
	periodic_arg a = {.work = 3 * SEC};
	nl_jitter_until j = {0};

	run_periodic(&a, &j, 1, 0.04, 100 * SEC);
	CU_ASSERT_EQUAL(a.start[0], 0); /* first run at once */
	CU_ASSERT(a.runs >= 7);
	for (int i = 1; i < a.runs && i < 32; i++) {
		int64_t gap = a.start[i] - a.end[i - 1];
		CU_ASSERT(gap >= 10 * SEC && gap <= 10400 * MS);
	}
	nl_jitter_until_stop(&j);
	CU_ASSERT_EQUAL(nl_clock_run_due(a.clock), 0);
	int64_t next;
	CU_ASSERT_EQUAL(nl_clock_next_deadline(&next, a.clock), NL_ENOTFOUND);
	nl_clock_free(a.clock);
}

static void test_clock__jitter_until_non_sliding_includes_run_time(void)
{
	periodic_arg a = {.work = 3 * SEC};
	nl_jitter_until j = {0};

	run_periodic(&a, &j, 0, 0.04, 100 * SEC);
	CU_ASSERT(a.runs >= 9);
	for (int i = 1; i < a.runs && i < 32; i++) {
		int64_t gap = a.start[i] - a.start[i - 1];
		CU_ASSERT(gap >= 10 * SEC && gap <= 10400 * MS);
	}
	nl_jitter_until_stop(&j);
	nl_clock_free(a.clock);
}

static void test_clock__jitter_until_zero_factor_is_exact(void)
{
	periodic_arg a = {.work = 0};
	nl_jitter_until j = {0};

	run_periodic(&a, &j, 1, 0.0, 50 * SEC);
	CU_ASSERT_EQUAL(a.runs, 6); /* 0, 10, 20, 30, 40, 50 s */
	for (int i = 0; i < a.runs; i++)
		CU_ASSERT_EQUAL(a.start[i], i * 10 * SEC);
	nl_jitter_until_stop(&j);
	nl_clock_free(a.clock);
}

static void test_clock__jitter_until_stop_from_callback(void)
{
	periodic_arg a = {.work = 0, .stop_after = 3};
	nl_jitter_until j = {0};
	int64_t next;

	run_periodic(&a, &j, 1, 0.04, 100 * SEC);
	CU_ASSERT_EQUAL(a.runs, 3);
	CU_ASSERT_EQUAL(nl_clock_next_deadline(&next, a.clock), NL_ENOTFOUND);
	nl_jitter_until_stop(&j); /* twice is fine */
	nl_clock_free(a.clock);
}

static void test_clock__jitter_until_ends_when_clock_stopped(void)
{
	periodic_arg a = {.work = 0};
	nl_jitter_until j = {0};

	run_periodic(&a, &j, 1, 0.04, 25 * SEC);
	int runs = a.runs;
	CU_ASSERT_EQUAL(runs, 3);
	nl_clock_stop(a.clock);
	CU_ASSERT_EQUAL(nl_clock_advance(a.clock, 100 * SEC), 0);
	CU_ASSERT_EQUAL(a.runs, runs);
	CU_ASSERT_EQUAL(nl_jitter_until_start(&j, a.clock, 0, 0.04, 1, 1, periodic_work, &a),
	                NL_EINVAL);
	nl_jitter_until_stop(&j);
	nl_clock_free(a.clock);
}

static void test_clock__jitter_until_same_seed_same_schedule(void)
{
	periodic_arg a = {.work = 0}, b = {.work = 0};
	nl_jitter_until ja = {0}, jb = {0};

	run_periodic(&a, &ja, 1, 0.04, 200 * SEC);
	run_periodic(&b, &jb, 1, 0.04, 200 * SEC);
	CU_ASSERT_EQUAL(a.runs, b.runs);
	CU_ASSERT_EQUAL(memcmp(a.start, b.start, sizeof(a.start)), 0);
	nl_jitter_until_stop(&ja);
	nl_jitter_until_stop(&jb);
	nl_clock_free(a.clock);
	nl_clock_free(b.clock);
}

/* --- duration format ------------------------------------------------------- */

static void expect_duration(int64_t usec, const char *want)
{
	char buf[NL_DURATION_BUFSZ];
	nl_duration_format(buf, usec);
	if (strcmp(buf, want) != 0)
		fprintf(stderr, "\n  %lld: got %s, want %s\n", (long long)usec, buf, want);
	CU_ASSERT_STRING_EQUAL(buf, want);
}

static void test_clock__duration_format_like_go(void)
{
	expect_duration(0, "0s");
	expect_duration(5, "5\xc2\xb5s");
	expect_duration(1500, "1.5ms");
	expect_duration(200 * MS, "200ms");
	expect_duration(1600 * MS, "1.6s");
	expect_duration(7 * SEC, "7s");
	expect_duration(10400 * MS, "10.4s");
	expect_duration(10 * SEC + 1, "10.000001s");
	expect_duration(100 * SEC, "1m40s");
	expect_duration(3600 * SEC, "1h0m0s");
	expect_duration(-1500 * MS, "-1.5s");
	expect_duration(90061 * SEC + 500 * MS, "25h1m1.5s");
}

/* --- waits without blocking, and the stop ------------------------------------------ */

static void stop_it(void *payload)
{
	nl_clock_stop(payload);
}

/* nl_clock_sleep_async: a timer (time does not move), recorded as a sleep
 * on a fake clock; refused on a stopped clock. */
static void test_clock__sleep_async_is_a_recorded_timer(void)
{
	nl_clock *c;
	fired_log log = {0};
	fire_arg a = {&log, 1};
	size_t n;
	uint64_t id = 0;

	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&c, 10 * SEC), 0);
	log.clock = c;
	CU_ASSERT_EQUAL(nl_clock_sleep_async(&id, c, 200 * MS, record_fire, &a), 0);
	CU_ASSERT_NOT_EQUAL(id, 0);
	CU_ASSERT_EQUAL(nl_clock_now(c), 10 * SEC);
	const int64_t *s = nl_clock_fake_sleeps(c, &n, NULL);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_EQUAL(s[0], 200 * MS);
	CU_ASSERT_EQUAL(nl_clock_advance(c, SEC), 0);
	CU_ASSERT_EQUAL_FATAL(log.n, 1);
	CU_ASSERT_EQUAL(log.at[0], 10 * SEC + 200 * MS);
	nl_clock_stop(c);
	CU_ASSERT_EQUAL(nl_clock_sleep_async(NULL, c, SEC, record_fire, &a), NL_ECANCELED);
	nl_clock_fake_sleeps(c, &n, NULL);
	CU_ASSERT_EQUAL(n, 1);
	nl_clock_free(c);
}

/* A stop inside a timer callback: the timers due after it, even at the
 * same instant, never fire — from nl_clock_advance or nl_clock_run_due. */
static void test_clock__nothing_fires_after_stop(void)
{
	nl_clock *c;
	fired_log log = {0};
	fire_arg a = {&log, 1}, b = {&log, 2};

	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&c, 0), 0);
	CU_ASSERT_EQUAL(nl_clock_after(NULL, c, SEC, record_fire, &a), 0);
	CU_ASSERT_EQUAL(nl_clock_after(NULL, c, 2 * SEC, stop_it, c), 0);
	CU_ASSERT_EQUAL(nl_clock_after(NULL, c, 2 * SEC, record_fire, &b), 0);
	CU_ASSERT_EQUAL(nl_clock_after(NULL, c, 3 * SEC, record_fire, &b), 0);
	CU_ASSERT_EQUAL(nl_clock_advance(c, 10 * SEC), 0);
	CU_ASSERT_EQUAL(log.n, 1);
	CU_ASSERT_EQUAL(nl_clock_now(c), 10 * SEC); /* time still moves */
	CU_ASSERT_EQUAL(nl_clock_run_due(c), 0);
	CU_ASSERT_EQUAL(log.n, 1);
	nl_clock_free(c);

	CU_ASSERT_EQUAL_FATAL(nl_clock_new_real(&c), 0);
	CU_ASSERT_EQUAL(nl_clock_after(NULL, c, 0, stop_it, c), 0);
	CU_ASSERT_EQUAL(nl_clock_after(NULL, c, 0, record_fire, &a), 0);
	CU_ASSERT_EQUAL(nl_clock_run_due(c), 1);
	CU_ASSERT_EQUAL(log.n, 1);
	nl_clock_free(c);
}

/* A run that goes on after fn returns (hold): no tick runs fn meanwhile,
 * and a sliding period counts from done. Kick brings the next run
 * forward, but not past a held run or a tick due already. */
typedef struct {
	nl_clock *clock;
	nl_jitter_until j;
	int runs;
	int64_t at[16];
	int hold;
} held_arg;

static void held_work(void *payload)
{
	held_arg *a = payload;
	if (a->runs < 16)
		a->at[a->runs] = nl_clock_now(a->clock);
	a->runs++;
	if (a->hold)
		nl_jitter_until_hold(&a->j);
}

static void finish_held(void *payload)
{
	held_arg *a = payload;
	nl_jitter_until_done(&a->j);
}

static void test_clock__jitter_until_hold_done_and_kick(void)
{
	held_arg a = {0};

	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&a.clock, 0), 0);
	a.hold = 1;
	CU_ASSERT_EQUAL(nl_jitter_until_kick(&a.j), NL_EINVAL); /* not running */
	CU_ASSERT_EQUAL(nl_jitter_until_start(&a.j, a.clock, 10 * SEC, 0.0, 1, 1, held_work, &a),
	                0);
	CU_ASSERT_EQUAL(nl_clock_advance(a.clock, 0), 0);
	CU_ASSERT_EQUAL(a.runs, 1);
	/* Held for 25 s: nothing scheduled, a kick changes nothing. */
	CU_ASSERT_EQUAL(nl_jitter_until_kick(&a.j), 0);
	CU_ASSERT_EQUAL(nl_clock_after(NULL, a.clock, 25 * SEC, finish_held, &a), 0);
	CU_ASSERT_EQUAL(nl_clock_advance(a.clock, 30 * SEC), 0);
	CU_ASSERT_EQUAL(a.runs, 1);
	a.hold = 0;
	CU_ASSERT_EQUAL(nl_clock_advance(a.clock, 5 * SEC), 0);
	CU_ASSERT_EQUAL_FATAL(a.runs, 2);
	CU_ASSERT_EQUAL(a.at[1], 35 * SEC); /* 10 s after done */
	nl_jitter_until_done(&a.j);         /* not held: no-op */
	/* Kicked 3 s into the period: runs now, then 10 s from there. */
	CU_ASSERT_EQUAL(nl_clock_advance(a.clock, 3 * SEC), 0);
	CU_ASSERT_EQUAL(nl_jitter_until_kick(&a.j), 0);
	CU_ASSERT_EQUAL(nl_jitter_until_kick(&a.j), 0); /* due already: one run */
	CU_ASSERT_EQUAL(nl_clock_advance(a.clock, 0), 0);
	CU_ASSERT_EQUAL_FATAL(a.runs, 3);
	CU_ASSERT_EQUAL(a.at[2], 38 * SEC);
	CU_ASSERT_EQUAL(nl_clock_advance(a.clock, 10 * SEC), 0);
	CU_ASSERT_EQUAL_FATAL(a.runs, 4);
	CU_ASSERT_EQUAL(a.at[3], 48 * SEC);
	nl_jitter_until_stop(&a.j);
	nl_clock_free(a.clock);
}

static CU_TestInfo clock_tests[] = {
    {"sleep_async_is_a_recorded_timer", test_clock__sleep_async_is_a_recorded_timer},
    {"nothing_fires_after_stop", test_clock__nothing_fires_after_stop},
    {"jitter_until_hold_done_and_kick", test_clock__jitter_until_hold_done_and_kick},
    {"timers_fire_in_deadline_order", test_clock__timers_fire_in_deadline_order},
    {"timers_equal_deadlines_fire_in_add_order",
     test_clock__timers_equal_deadlines_fire_in_add_order},
    {"timers_cancel", test_clock__timers_cancel},
    {"timers_callback_adds_due_timer", test_clock__timers_callback_adds_due_timer},
    {"timers_heap_order_under_random_load", test_clock__timers_heap_order_under_random_load},
    {"fake_sleep_advances_and_records", test_clock__fake_sleep_advances_and_records},
    {"fake_sleep_after_stop_is_canceled", test_clock__fake_sleep_after_stop_is_canceled},
    {"fake_sleep_hook_sees_each_sleep", test_clock__fake_sleep_hook_sees_each_sleep},
    {"fake_advance_fires_at_each_deadline", test_clock__fake_advance_fires_at_each_deadline},
    {"fake_advance_past_target_when_callback_sleeps",
     test_clock__fake_advance_past_target_when_callback_sleeps},
    {"huge_durations_saturate", test_clock__huge_durations_saturate},
    {"advance_rejects_real_clock_and_negative",
     test_clock__advance_rejects_real_clock_and_negative},
    {"fake_run_jumps_until_stopped", test_clock__fake_run_jumps_until_stopped},
    {"fake_run_returns_when_no_timer_left", test_clock__fake_run_returns_when_no_timer_left},
    {"real_now_is_wall_time", test_clock__real_now_is_wall_time},
    {"real_sleep_waits", test_clock__real_sleep_waits},
    {"real_sleep_returns_promptly_on_stop", test_clock__real_sleep_returns_promptly_on_stop},
    {"real_run_fires_timers_until_stopped", test_clock__real_run_fires_timers_until_stopped},
    {"real_run_wakes_for_timer_added_elsewhere",
     test_clock__real_run_wakes_for_timer_added_elsewhere},
    {"rand_is_splitmix64", test_clock__rand_is_splitmix64},
    {"rand_float_is_uniform_in_unit_interval", test_clock__rand_float_is_uniform_in_unit_interval},
    {"jitter_bounds", test_clock__jitter_bounds},
    {"jitter_until_sliding_counts_from_end_of_run",
     test_clock__jitter_until_sliding_counts_from_end_of_run},
    {"jitter_until_non_sliding_includes_run_time",
     test_clock__jitter_until_non_sliding_includes_run_time},
    {"jitter_until_zero_factor_is_exact", test_clock__jitter_until_zero_factor_is_exact},
    {"jitter_until_stop_from_callback", test_clock__jitter_until_stop_from_callback},
    {"jitter_until_ends_when_clock_stopped", test_clock__jitter_until_ends_when_clock_stopped},
    {"jitter_until_same_seed_same_schedule", test_clock__jitter_until_same_seed_same_schedule},
    {"duration_format_like_go", test_clock__duration_format_like_go},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"clock", NULL, NULL, NULL, NULL, clock_tests},
    CU_SUITE_INFO_NULL,
};
