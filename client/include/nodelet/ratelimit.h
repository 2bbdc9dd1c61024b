/* Client-side rate limit: a token bucket like client-go's
 * flowcontrol.NewTokenBucketRateLimiter (golang.org/x/time/rate underneath):
 * it starts full with `burst` tokens and refills at `qps` per second.
 *
 * A reservation always takes a token, even one that is not there yet (the
 * count goes negative), and says how long to wait: concurrent callers are
 * served in order and the long-run rate never exceeds qps. Thread-safe. */
#ifndef NODELET_RATELIMIT_H
#define NODELET_RATELIMIT_H

#include <stdint.h>

#include "clock.h"

typedef struct nl_ratelimit nl_ratelimit;

/* qps > 0 and burst >= 1, or qps < 0 for "no limit" (every reservation is
 * free). clock (monotonic time, sleeps) is borrowed and must outlive the
 * limiter.
 * NL_EINVAL for qps == 0 or burst < 1 with a limit. *out belongs to the
 * caller: nl_ratelimit_free. */
int nl_ratelimit_new(nl_ratelimit **out, double qps, int burst, nl_clock *clock);
void nl_ratelimit_free(nl_ratelimit *rl);

/* Take a token; returns the microseconds to wait before acting (0 = now). */
int64_t nl_ratelimit_reserve(nl_ratelimit *rl);
/* Take a token and sleep on the clock until it is due: 0, or NL_ECANCELED
 * when the clock was stopped. */
int nl_ratelimit_wait(nl_ratelimit *rl);
/* Take a token only if one is available now: 1 taken, 0 not (nothing
 * reserved). */
int nl_ratelimit_try(nl_ratelimit *rl);

#endif
