#include <nodelet/clock.h>

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

struct nl_clock {
	int fake;
	pthread_mutex_t mu;
	pthread_cond_t cond; /* on CLOCK_MONOTONIC: sleeps and the run loop wait here */
	int stopped;
	nl_timers *timers;
	/* fake clock only */
	int64_t virt;
	int64_t *sleeps;
	size_t nsleeps, sleeps_cap, total_sleeps;
	void (*on_sleep)(int64_t now, void *payload);
	void *on_sleep_payload;
};

static int64_t read_clock(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * NL_USEC_PER_SEC + ts.tv_nsec / 1000;
}

/* t + d for d >= 0, saturating: "sleep forever" must not wrap around. */
static int64_t add_sat(int64_t t, int64_t d)
{
	if (d <= 0)
		return t;
	return t > INT64_MAX - d ? INT64_MAX : t + d;
}

static struct timespec to_timespec(int64_t usec)
{
	struct timespec ts = {.tv_sec = (time_t)(usec / NL_USEC_PER_SEC),
	                      .tv_nsec = (long)(usec % NL_USEC_PER_SEC) * 1000};
	return ts;
}

static int clock_new(nl_clock **out, int fake, int64_t start)
{
	pthread_condattr_t attr;
	nl_clock *c = calloc(1, sizeof(*c));
	int rc = NL_ENOMEM;

	if (!c)
		return NL_ENOMEM;
	if (nl_timers_new(&c->timers) != 0)
		goto fail_timers;
	rc = NL_ERROR;
	if (pthread_mutex_init(&c->mu, NULL) != 0)
		goto fail_mutex;
	if (pthread_condattr_init(&attr) != 0)
		goto fail_attr;
	/* Waits end at monotonic deadlines: a wall-clock step must not stretch
	 * or cut a sleep. */
	if (pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) != 0 ||
	    pthread_cond_init(&c->cond, &attr) != 0)
		goto fail_cond;
	pthread_condattr_destroy(&attr);
	c->fake = fake;
	c->virt = start;
	*out = c;
	return 0;

fail_cond:
	pthread_condattr_destroy(&attr);
fail_attr:
	pthread_mutex_destroy(&c->mu);
fail_mutex:
	nl_timers_free(c->timers);
fail_timers:
	free(c);
	return rc;
}

int nl_clock_new_real(nl_clock **out)
{
	return clock_new(out, 0, 0);
}

int nl_clock_new_fake(nl_clock **out, int64_t start_usec)
{
	return clock_new(out, 1, start_usec);
}

void nl_clock_free(nl_clock *c)
{
	if (!c)
		return;
	pthread_cond_destroy(&c->cond);
	pthread_mutex_destroy(&c->mu);
	nl_timers_free(c->timers);
	free(c->sleeps);
	free(c);
}

/* Monotonic time; the caller holds c->mu (the fake clock's time is shared). */
static int64_t mono_locked(const nl_clock *c)
{
	return c->fake ? c->virt : read_clock(CLOCK_MONOTONIC);
}

int64_t nl_clock_now(nl_clock *c)
{
	if (!c->fake)
		return read_clock(CLOCK_REALTIME);
	pthread_mutex_lock(&c->mu);
	int64_t now = c->virt;
	pthread_mutex_unlock(&c->mu);
	return now;
}

int64_t nl_clock_mono(nl_clock *c)
{
	if (!c->fake)
		return read_clock(CLOCK_MONOTONIC);
	return nl_clock_now(c);
}

static void record_sleep(nl_clock *c, int64_t usec)
{
	c->total_sleeps++;
	if (c->nsleeps == c->sleeps_cap) {
		if (c->sleeps_cap == NL_CLOCK_FAKE_MAX_SLEEPS)
			return;
		size_t cap = c->sleeps_cap ? c->sleeps_cap * 2 : 64;
		int64_t *s = realloc(c->sleeps, cap * sizeof(*s));
		/* A lost record only weakens a test's evidence; the sleep itself
		 * still happens. */
		if (!s)
			return;
		c->sleeps = s;
		c->sleeps_cap = cap;
	}
	c->sleeps[c->nsleeps++] = usec;
}

static int fake_sleep(nl_clock *c, int64_t usec)
{
	void (*hook)(int64_t now, void *payload) = NULL;
	void *payload = NULL;
	int64_t now = 0;
	pthread_mutex_lock(&c->mu);
	int rc = c->stopped ? NL_ECANCELED : 0;
	if (rc == 0) {
		record_sleep(c, usec);
		c->virt = add_sat(c->virt, usec);
		now = c->virt;
		hook = c->on_sleep;
		payload = c->on_sleep_payload;
	}
	pthread_mutex_unlock(&c->mu);
	if (hook)
		hook(now, payload);
	return rc;
}

static int real_sleep(nl_clock *c, int64_t usec)
{
	int64_t deadline = add_sat(read_clock(CLOCK_MONOTONIC), usec);
	struct timespec ts = to_timespec(deadline);

	pthread_mutex_lock(&c->mu);
	/* Loop: wakeups can be spurious, or meant for a timer being added. */
	while (!c->stopped && read_clock(CLOCK_MONOTONIC) < deadline)
		pthread_cond_timedwait(&c->cond, &c->mu, &ts);
	int rc = c->stopped ? NL_ECANCELED : 0;
	pthread_mutex_unlock(&c->mu);
	return rc;
}

int nl_clock_sleep(nl_clock *c, int64_t usec)
{
	return c->fake ? fake_sleep(c, usec) : real_sleep(c, usec);
}

void nl_clock_stop(nl_clock *c)
{
	pthread_mutex_lock(&c->mu);
	c->stopped = 1;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->mu);
}

int nl_clock_stopped(nl_clock *c)
{
	pthread_mutex_lock(&c->mu);
	int stopped = c->stopped;
	pthread_mutex_unlock(&c->mu);
	return stopped;
}

int nl_clock_after(uint64_t *id_out, nl_clock *c, int64_t delay_usec, nl_timer_fn fn, void *payload)
{
	pthread_mutex_lock(&c->mu);
	int64_t due = add_sat(mono_locked(c), delay_usec);
	int rc = nl_timers_add(id_out, c->timers, due, fn, payload);
	/* The run loop may be waiting for a later deadline than this one. */
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->mu);
	return rc;
}

int nl_clock_sleep_async(uint64_t *id_out, nl_clock *c, int64_t usec, nl_timer_fn fn, void *payload)
{
	pthread_mutex_lock(&c->mu);
	int rc = NL_ECANCELED;
	if (!c->stopped) {
		int64_t due = add_sat(mono_locked(c), usec);
		rc = nl_timers_add(id_out, c->timers, due, fn, payload);
		if (rc == 0 && c->fake)
			record_sleep(c, usec);
		pthread_cond_broadcast(&c->cond);
	}
	pthread_mutex_unlock(&c->mu);
	return rc;
}

int nl_clock_cancel(nl_clock *c, uint64_t id)
{
	pthread_mutex_lock(&c->mu);
	int rc = nl_timers_cancel(c->timers, id);
	pthread_mutex_unlock(&c->mu);
	return rc;
}

int nl_clock_next_deadline(int64_t *out, nl_clock *c)
{
	pthread_mutex_lock(&c->mu);
	int rc = nl_timers_next_deadline(out, c->timers);
	pthread_mutex_unlock(&c->mu);
	return rc;
}

/* Pop one timer due at the current time; the caller fires it unlocked so the
 * callback can use the clock. */
static int pop_due(nl_timer_fn *fn, void **payload, nl_clock *c)
{
	pthread_mutex_lock(&c->mu);
	/* After a stop nothing fires: a timer overdue behind a callback that
	 * saw the stop would otherwise still send its request. */
	int rc =
	    c->stopped ? NL_ECANCELED : nl_timers_pop_due(fn, payload, c->timers, mono_locked(c));
	pthread_mutex_unlock(&c->mu);
	return rc;
}

size_t nl_clock_run_due(nl_clock *c)
{
	nl_timer_fn fn;
	void *payload;
	size_t n = 0;
	while (pop_due(&fn, &payload, c) == 0) {
		fn(payload);
		n++;
	}
	return n;
}

/* Jump virtual time to the next deadline if it is at or before limit and pop
 * that timer. NL_ENOTFOUND when none qualifies. */
static int fake_pop_until(nl_timer_fn *fn, void **payload, nl_clock *c, const int64_t *limit)
{
	int64_t due;
	int rc = NL_ENOTFOUND;

	pthread_mutex_lock(&c->mu);
	if (!c->stopped && nl_timers_next_deadline(&due, c->timers) == 0 &&
	    (!limit || due <= *limit)) {
		if (due > c->virt)
			c->virt = due;
		rc = nl_timers_pop_due(fn, payload, c->timers, c->virt);
	}
	pthread_mutex_unlock(&c->mu);
	return rc;
}

static int fake_run(nl_clock *c)
{
	nl_timer_fn fn;
	void *payload;
	while (!nl_clock_stopped(c) && fake_pop_until(&fn, &payload, c, NULL) == 0)
		fn(payload);
	return 0;
}

static int real_run(nl_clock *c)
{
	nl_timer_fn fn;
	void *payload;
	int64_t due;

	pthread_mutex_lock(&c->mu);
	while (!c->stopped) {
		if (nl_timers_pop_due(&fn, &payload, c->timers, read_clock(CLOCK_MONOTONIC)) == 0) {
			pthread_mutex_unlock(&c->mu);
			fn(payload);
			pthread_mutex_lock(&c->mu);
		} else if (nl_timers_next_deadline(&due, c->timers) == 0) {
			struct timespec ts = to_timespec(due);
			pthread_cond_timedwait(&c->cond, &c->mu, &ts);
		} else {
			pthread_cond_wait(&c->cond, &c->mu);
		}
	}
	pthread_mutex_unlock(&c->mu);
	return 0;
}

int nl_clock_run(nl_clock *c)
{
	return c->fake ? fake_run(c) : real_run(c);
}

int nl_clock_advance(nl_clock *c, int64_t usec)
{
	nl_timer_fn fn;
	void *payload;

	if (!c->fake || usec < 0)
		return NL_EINVAL;
	int64_t target = add_sat(nl_clock_now(c), usec);
	while (fake_pop_until(&fn, &payload, c, &target) == 0)
		fn(payload);
	pthread_mutex_lock(&c->mu);
	if (c->virt < target)
		c->virt = target;
	pthread_mutex_unlock(&c->mu);
	return 0;
}

const int64_t *nl_clock_fake_sleeps(nl_clock *c, size_t *n_out, size_t *total_out)
{
	pthread_mutex_lock(&c->mu);
	*n_out = c->nsleeps;
	if (total_out)
		*total_out = c->total_sleeps;
	const int64_t *s = c->nsleeps ? c->sleeps : NULL;
	pthread_mutex_unlock(&c->mu);
	return s;
}

void nl_clock_fake_clear_sleeps(nl_clock *c)
{
	pthread_mutex_lock(&c->mu);
	c->nsleeps = 0;
	c->total_sleeps = 0;
	pthread_mutex_unlock(&c->mu);
}

void nl_clock_fake_on_sleep(nl_clock *c, void (*fn)(int64_t now, void *payload), void *payload)
{
	pthread_mutex_lock(&c->mu);
	c->on_sleep = fn;
	c->on_sleep_payload = payload;
	pthread_mutex_unlock(&c->mu);
}
