/* wait.ExponentialBackoff driving retry.OnError. */
#include <nodelet/retry.h>

#include "kube.h"

/* splitmix64 over the clock: jitter only spreads retries, it needs no
 * cryptographic quality and must stay reproducible on a fake clock. */
static double rand_unit(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	z ^= z >> 31;
	return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

/* wait.Backoff.Step: the current duration (jittered), then grow it. */
static int64_t step(nl_backoff *b, uint64_t *rnd)
{
	int64_t d = b->duration_usec;
	if (b->factor != 0) {
		double next = (double)b->duration_usec * b->factor;
		b->duration_usec = (int64_t)next;
		if (b->cap_usec > 0 && b->duration_usec > b->cap_usec) {
			b->duration_usec = b->cap_usec;
			b->steps = 0;
		}
	}
	if (b->jitter > 0)
		d += (int64_t)(rand_unit(rnd) * b->jitter * (double)d);
	return d;
}

int nl_retry_on_error(const nl_backoff *bo, nl_clock *clock, nl_retriable_fn retriable,
                      nl_retry_fn fn, void *payload, nl_result *res)
{
	nl_backoff b = bo ? *bo : NL_BACKOFF_DEFAULT_RETRY;
	nl_result local = NL_RESULT_INIT;
	nl_result *r = res ? res : &local;
	int rc = NL_EINVAL;
	if (!fn || !clock)
		return NL_EINVAL;
	uint64_t rnd = (uint64_t)nl_clock_mono(clock) ^ (uint64_t)(uintptr_t)payload;
	while (b.steps > 0) {
		nl__result_reset(r);
		rc = fn(r, payload);
		if (rc == 0 || !retriable(rc, r))
			break;
		if (b.steps == 1)
			break;
		b.steps--;
		if (nl_clock_sleep(clock, step(&b, &rnd)) != 0) {
			rc = NL_ECANCELED;
			nl__result_reset(r);
			nl__result_fail(r, rc, "canceled: the clock was stopped");
			break;
		}
	}
	if (!res)
		nl__result_reset(&local);
	return rc;
}

static int conflict(int code, const nl_result *res)
{
	return code == NL_ECONFLICT || nl_is_conflict(res);
}

int nl_retry_on_conflict(const nl_backoff *b, nl_clock *clock, nl_retry_fn fn, void *payload,
                         nl_result *res)
{
	return nl_retry_on_error(b, clock, conflict, fn, payload, res);
}
