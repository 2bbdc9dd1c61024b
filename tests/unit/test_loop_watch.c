/* Descriptors watched by the loop (nl_loop_watch_add): their callbacks run
 * from nl_loop_step next to the clock's timers, a fake clock does not jump
 * over a descriptor that is ready, and a real clock's wait ends when one
 * becomes ready — what an sd-bus connection on the agent's loop needs. */
#include "../cu_main.h"

#include <nodelet/loop.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#define SEC INT64_C(1000000)
#define MS INT64_C(1000)

typedef struct {
	int calls;
	uint32_t events;
	int drain;
	nl_loop_watch *self; /* removed from its own callback when set */
} seen;

static void on_fd(int fd, uint32_t events, void *payload)
{
	seen *s = payload;
	char c;
	s->calls++;
	s->events = events;
	if (s->drain && read(fd, &c, 1) != 1)
		CU_FAIL("read");
	if (s->self) {
		nl_loop_watch_remove(s->self);
		s->self = NULL;
	}
}

static void on_timer(void *payload)
{
	(*(int *)payload)++;
}

static int64_t mono_usec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * SEC + ts.tv_nsec / 1000;
}

static void test_loop_watch__readable_descriptor_runs_its_callback(void)
{
	nl_loop *l;
	nl_loop_watch *w = NULL;
	int p[2];
	seen s = {.drain = 1};
	CU_ASSERT_EQUAL_FATAL(pipe(p), 0);
	CU_ASSERT_EQUAL_FATAL(nl_loop_new(&l, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(nl_loop_watch_add(&w, l, p[0], EPOLLIN, on_fd, &s), 0);
	CU_ASSERT_EQUAL(nl_loop_step(l, 0), 0);
	CU_ASSERT_EQUAL(s.calls, 0);
	CU_ASSERT_EQUAL(write(p[1], "x", 1), 1);
	CU_ASSERT_EQUAL(nl_loop_step(l, 1000), 1);
	CU_ASSERT_EQUAL(s.calls, 1);
	CU_ASSERT_TRUE(s.events & EPOLLIN);
	/* Not interested any more: ready, but no callback. */
	CU_ASSERT_EQUAL(nl_loop_watch_set_events(w, 0), 0);
	CU_ASSERT_EQUAL(write(p[1], "y", 1), 1);
	CU_ASSERT_EQUAL(nl_loop_step(l, 0), 0);
	CU_ASSERT_EQUAL(s.calls, 1);
	CU_ASSERT_EQUAL(nl_loop_watch_set_events(w, EPOLLIN), 0);
	CU_ASSERT_EQUAL(nl_loop_step(l, 0), 1);
	CU_ASSERT_EQUAL(s.calls, 2);
	nl_loop_watch_remove(w);
	CU_ASSERT_EQUAL(write(p[1], "z", 1), 1);
	CU_ASSERT_EQUAL(nl_loop_step(l, 0), 0);
	CU_ASSERT_EQUAL(s.calls, 2);
	nl_loop_free(l);
	close(p[0]);
	close(p[1]);
}

/* With only timers the fake clock jumps to the next one; a ready
 * descriptor is served first, at the same virtual time. */
static void test_loop_watch__fake_clock_serves_a_ready_descriptor_before_jumping(void)
{
	nl_clock *c;
	nl_loop *l;
	nl_loop_options o;
	nl_loop_watch *w = NULL;
	int p[2], fired = 0;
	seen s = {.drain = 1};
	CU_ASSERT_EQUAL_FATAL(pipe(p), 0);
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&c, 1000 * SEC), 0);
	nl_loop_options_init(&o);
	o.clock = c;
	CU_ASSERT_EQUAL_FATAL(nl_loop_new(&l, &o), 0);
	CU_ASSERT_EQUAL_FATAL(nl_clock_after(NULL, c, 10 * SEC, on_timer, &fired), 0);
	CU_ASSERT_EQUAL_FATAL(nl_loop_watch_add(&w, l, p[0], EPOLLIN, on_fd, &s), 0);
	CU_ASSERT_EQUAL(write(p[1], "x", 1), 1);
	int64_t t0 = nl_clock_mono(c);
	CU_ASSERT_EQUAL(nl_loop_step(l, -1), 1);
	CU_ASSERT_EQUAL(s.calls, 1);
	CU_ASSERT_EQUAL(fired, 0);
	CU_ASSERT_EQUAL(nl_clock_mono(c), t0);
	/* Nothing ready: the clock moves to the timer. */
	nl_loop_step(l, -1);
	CU_ASSERT_EQUAL(fired, 1);
	CU_ASSERT_EQUAL(nl_clock_mono(c), t0 + 10 * SEC);
	nl_loop_watch_remove(w);
	nl_loop_free(l);
	nl_clock_free(c);
	close(p[0]);
	close(p[1]);
}

static void *write_later(void *payload)
{
	struct timespec ts = {0, 50 * 1000 * 1000};
	nanosleep(&ts, NULL);
	if (write(*(int *)payload, "x", 1) != 1)
		return NULL;
	return payload;
}

/* No transfer in flight, a timer 10 s away: a real clock's wait ends when
 * the descriptor becomes readable, not when the timer is due. */
static void test_loop_watch__real_wait_ends_when_the_descriptor_is_ready(void)
{
	nl_loop *l;
	nl_loop_watch *w = NULL;
	pthread_t th;
	int p[2], fired = 0;
	seen s = {.drain = 1};
	CU_ASSERT_EQUAL_FATAL(pipe(p), 0);
	CU_ASSERT_EQUAL_FATAL(nl_loop_new(&l, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(nl_clock_after(NULL, nl_loop_clock(l), 10 * SEC, on_timer, &fired),
	                      0);
	CU_ASSERT_EQUAL_FATAL(nl_loop_watch_add(&w, l, p[0], EPOLLIN, on_fd, &s), 0);
	int64_t t0 = mono_usec();
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, write_later, &p[1]), 0);
	CU_ASSERT_EQUAL(nl_loop_step(l, 5000), 1);
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(s.calls, 1);
	CU_ASSERT_EQUAL(fired, 0);
	CU_ASSERT(mono_usec() - t0 < 4 * SEC);
	nl_loop_watch_remove(w);
	nl_loop_free(l);
	close(p[0]);
	close(p[1]);
}

/* A callback may remove its own watch; a second watch still runs. */
static void test_loop_watch__callback_removes_itself(void)
{
	nl_loop *l;
	nl_loop_watch *w1 = NULL, *w2 = NULL;
	int p[2], q[2];
	seen s1 = {0}, s2 = {.drain = 1};
	CU_ASSERT_EQUAL_FATAL(pipe(p), 0);
	CU_ASSERT_EQUAL_FATAL(pipe(q), 0);
	CU_ASSERT_EQUAL_FATAL(nl_loop_new(&l, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(nl_loop_watch_add(&w1, l, p[0], EPOLLIN, on_fd, &s1), 0);
	CU_ASSERT_EQUAL_FATAL(nl_loop_watch_add(&w2, l, q[0], EPOLLIN, on_fd, &s2), 0);
	s1.self = w1;
	CU_ASSERT_EQUAL(write(p[1], "x", 1), 1);
	CU_ASSERT_EQUAL(write(q[1], "x", 1), 1);
	CU_ASSERT_EQUAL(nl_loop_step(l, 1000), 2);
	CU_ASSERT_EQUAL(s1.calls, 1);
	CU_ASSERT_EQUAL(s2.calls, 1);
	/* p stays readable (not drained), but its watch is gone. */
	CU_ASSERT_EQUAL(nl_loop_step(l, 0), 0);
	CU_ASSERT_EQUAL(s1.calls, 1);
	nl_loop_watch_remove(w2);
	nl_loop_watch_remove(NULL);
	nl_loop_free(l);
	close(p[0]);
	close(p[1]);
	close(q[0]);
	close(q[1]);
}

static CU_TestInfo tests[] = {
    {"readable_descriptor_runs_its_callback",
     test_loop_watch__readable_descriptor_runs_its_callback},
    {"fake_clock_serves_a_ready_descriptor_before_jumping",
     test_loop_watch__fake_clock_serves_a_ready_descriptor_before_jumping},
    {"real_wait_ends_when_the_descriptor_is_ready",
     test_loop_watch__real_wait_ends_when_the_descriptor_is_ready},
    {"callback_removes_itself", test_loop_watch__callback_removes_itself},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"loop_watch", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
