/* client-go's retry.RetryOnConflict / retry.OnError with wait.Backoff. */
#ifndef NODELET_RETRY_H
#define NODELET_RETRY_H

#include <stdint.h>

#include "clock.h"
#include "result.h"

/* wait.Backoff: `steps` tries at most; between tries sleep `duration`, then
 * duration *= factor (capped at `cap` when > 0), each sleep stretched by a
 * random [0, jitter) fraction. */
typedef struct {
	int64_t duration_usec;
	double factor;
	double jitter;
	int steps;
	int64_t cap_usec;
} nl_backoff;

/* retry.DefaultRetry: 5 steps, 10 ms, factor 1.0, jitter 0.1. */
#define NL_BACKOFF_DEFAULT_RETRY ((nl_backoff){10 * NL_USEC_PER_MSEC, 1.0, 0.1, 5, 0})
/* retry.DefaultBackoff: 4 steps, 10 ms, factor 5.0, jitter 0.1. */
#define NL_BACKOFF_DEFAULT ((nl_backoff){10 * NL_USEC_PER_MSEC, 5.0, 0.1, 4, 0})

/* One try: 0 on success, or a negative code with the detail in res. */
typedef int (*nl_retry_fn)(nl_result *res, void *payload);
/* Whether a failed try should be tried again. */
typedef int (*nl_retriable_fn)(int code, const nl_result *res);

/* retry.OnError: call fn until it succeeds, fails with an error retriable
 * does not accept (returned at once), or the steps run out (the last error
 * is returned). Sleeps on clock (NL_ECANCELED when it is stopped). b NULL =
 * NL_BACKOFF_DEFAULT_RETRY. res (may be NULL) holds the last try's
 * detail. */
int nl_retry_on_error(const nl_backoff *b, nl_clock *clock, nl_retriable_fn retriable,
                      nl_retry_fn fn, void *payload, nl_result *res);
/* retry.RetryOnConflict: nl_retry_on_error retrying NL_ECONFLICT (a 409
 * Conflict: re-read the object inside fn before writing it again). */
int nl_retry_on_conflict(const nl_backoff *b, nl_clock *clock, nl_retry_fn fn, void *payload,
                         nl_result *res);

#endif
