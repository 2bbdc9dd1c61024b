#include <nodelet/errors.h>
#include <nodelet/ratelimit.h>

#include <pthread.h>
#include <stdlib.h>

struct nl_ratelimit {
	pthread_mutex_t mu;
	double qps; /* < 0: unlimited */
	double burst;
	double tokens;
	int64_t last; /* clock time of the last refill */
	nl_clock *clock;
};

int nl_ratelimit_new(nl_ratelimit **out, double qps, int burst, nl_clock *clock)
{
	if (qps == 0 || qps != qps || (qps > 0 && (burst < 1 || !clock)))
		return NL_EINVAL;
	nl_ratelimit *rl = calloc(1, sizeof(*rl));
	if (!rl)
		return NL_ENOMEM;
	if (pthread_mutex_init(&rl->mu, NULL) != 0) {
		free(rl);
		return NL_ENOMEM;
	}
	rl->clock = clock;
	rl->qps = qps;
	rl->burst = burst;
	rl->tokens = burst;
	rl->last = clock ? nl_clock_mono(clock) : 0;
	*out = rl;
	return 0;
}

void nl_ratelimit_free(nl_ratelimit *rl)
{
	if (!rl)
		return;
	pthread_mutex_destroy(&rl->mu);
	free(rl);
}

/* Refill for the time since the last call; caller holds mu. */
static void refill(nl_ratelimit *rl)
{
	int64_t now = nl_clock_mono(rl->clock);
	if (now > rl->last) {
		rl->tokens += (double)(now - rl->last) * rl->qps / 1e6;
		if (rl->tokens > rl->burst)
			rl->tokens = rl->burst;
		rl->last = now;
	}
}

int64_t nl_ratelimit_reserve(nl_ratelimit *rl)
{
	if (!rl || rl->qps < 0)
		return 0;
	pthread_mutex_lock(&rl->mu);
	refill(rl);
	rl->tokens -= 1;
	int64_t wait = 0;
	if (rl->tokens < 0) {
		double w = -rl->tokens * 1e6 / rl->qps;
		wait = (int64_t)w;
		if ((double)wait < w)
			wait++;
	}
	pthread_mutex_unlock(&rl->mu);
	return wait;
}

int nl_ratelimit_wait(nl_ratelimit *rl)
{
	int64_t wait = nl_ratelimit_reserve(rl);
	return wait > 0 ? nl_clock_sleep(rl->clock, wait) : 0;
}

int nl_ratelimit_try(nl_ratelimit *rl)
{
	if (!rl || rl->qps < 0)
		return 1;
	pthread_mutex_lock(&rl->mu);
	refill(rl);
	int ok = rl->tokens >= 1;
	if (ok)
		rl->tokens -= 1;
	pthread_mutex_unlock(&rl->mu);
	return ok;
}
