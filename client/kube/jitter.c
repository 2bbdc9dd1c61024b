#include <nodelet/clock.h>
#include <nodelet/log.h>

void nl_rand_seed(nl_rand *r, uint64_t seed)
{
	r->state = seed;
}

/* splitmix64 (Steele, Lea, Flood 2014): one add and two multiplies per
 * number, full period, good enough for spreading heartbeats. */
uint64_t nl_rand_next(nl_rand *r)
{
	uint64_t z = (r->state += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

double nl_rand_float(nl_rand *r)
{
	/* The top 53 bits fill a double's mantissa exactly: uniform in [0, 1). */
	return (double)(nl_rand_next(r) >> 11) * 0x1.0p-53;
}

int64_t nl_jitter(int64_t period, double max_factor, nl_rand *r)
{
	if (max_factor <= 0.0)
		max_factor = 1.0;
	return period + (int64_t)(nl_rand_float(r) * max_factor * (double)period);
}

static void jitter_tick(void *payload);

static void schedule(nl_jitter_until *j)
{
	/* JitterUntil jitters only with a positive factor (wait.Jitter would
	 * read 0 as 1.0). */
	int64_t wait =
	    j->jitter_factor > 0.0 ? nl_jitter(j->period, j->jitter_factor, &j->rand) : j->period;
	j->last_wait = wait;
	j->due = nl_clock_mono(j->clock) + wait;
	if (nl_clock_after(&j->timer, j->clock, wait, jitter_tick, j) != 0) {
		NL_LOG_ERROR("out of memory", "Cannot schedule the next periodic run, stopping it");
		j->timer = 0;
		j->running = 0;
	}
}

static void jitter_tick(void *payload)
{
	nl_jitter_until *j = payload;

	j->timer = 0;
	if (!j->running || nl_clock_stopped(j->clock))
		return;
	if (j->held) {
		/* The last run is still under way: fn never overlaps itself. A
		 * non-sliding loop keeps its beat; a sliding one waits for done. */
		if (!j->sliding)
			schedule(j);
		return;
	}
	/* Non-sliding: the period includes fn's run time, so the timer starts
	 * before fn does. */
	if (!j->sliding)
		schedule(j);
	j->fn(j->payload);
	/* fn may have stopped (or stopped and restarted) the loop. */
	if (j->sliding && j->running && !j->held && j->timer == 0 && !nl_clock_stopped(j->clock))
		schedule(j);
}

void nl_jitter_until_hold(nl_jitter_until *j)
{
	j->held = 1;
}

void nl_jitter_until_done(nl_jitter_until *j)
{
	if (!j->held)
		return;
	j->held = 0;
	if (j->sliding && j->running && j->timer == 0 && !nl_clock_stopped(j->clock))
		schedule(j);
}

int nl_jitter_until_kick(nl_jitter_until *j)
{
	if (!j->running)
		return NL_EINVAL;
	/* Held, or the next tick is due already: nothing to bring forward
	 * (and a tick due now keeps its place among the timers due now). */
	if (j->held || (j->timer && j->due <= nl_clock_mono(j->clock)))
		return 0;
	if (j->timer)
		nl_clock_cancel(j->clock, j->timer);
	j->due = nl_clock_mono(j->clock);
	j->timer = 0;
	int rc = nl_clock_after(&j->timer, j->clock, 0, jitter_tick, j);
	if (rc != 0)
		j->timer = 0;
	return rc;
}

int nl_jitter_until_start(nl_jitter_until *j, nl_clock *c, int64_t period, double jitter_factor,
                          int sliding, uint64_t seed, nl_timer_fn fn, void *payload)
{
	if (period <= 0 || !fn || (j->running && j->clock))
		return NL_EINVAL;
	*j = (nl_jitter_until){.clock = c,
	                       .fn = fn,
	                       .payload = payload,
	                       .period = period,
	                       .jitter_factor = jitter_factor,
	                       .sliding = sliding,
	                       .running = 1};
	nl_rand_seed(&j->rand, seed);
	j->due = nl_clock_mono(c);
	int rc = nl_clock_after(&j->timer, c, 0, jitter_tick, j);
	if (rc != 0) {
		j->running = 0;
		j->timer = 0;
	}
	return rc;
}

void nl_jitter_until_stop(nl_jitter_until *j)
{
	if (!j->running)
		return;
	j->running = 0;
	j->held = 0;
	if (j->timer)
		nl_clock_cancel(j->clock, j->timer);
	j->timer = 0;
}
