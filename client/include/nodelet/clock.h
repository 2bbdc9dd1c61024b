/* Time for the agent and the client: a real or a fake (virtual) clock with
 * one-shot timers, so controllers, the client's rate limiter and backoffs
 * run on real time in production and on virtual time in tests and scenarios
 * (the Go seeds' clock interface).
 *
 * NOTE (kube helper, issue 6): this header was reconstructed from
 * client/agent/{clock,timers,jitter,duration}.c and tests/unit/test_clock.c
 * after the client helper overwrote the agent helper's original by mistake;
 * the agent helper owns it and may restore its own wording.
 *
 * Times are int64 microseconds. nl_clock_now is wall time (microseconds
 * since the epoch; virtual on a fake clock), nl_clock_mono a monotonic clock
 * for deadlines (equal to nl_clock_now on a fake clock). Every nl_clock
 * function is thread-safe. */
#ifndef NODELET_CLOCK_H
#define NODELET_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "duration.h"
#include "errors.h"

/* A fake clock records at most this many sleeps (older tests' evidence). */
#define NL_CLOCK_FAKE_MAX_SLEEPS 65536

typedef void (*nl_timer_fn)(void *payload);

/* --- timer heap (not thread-safe; the clock locks around it) --------------- */

typedef struct nl_timers nl_timers;

int nl_timers_new(nl_timers **out);
void nl_timers_free(nl_timers *t);
/* Add a timer due at `due`; equal deadlines fire in the order added. *id_out
 * (may be NULL) identifies it for nl_timers_cancel. NL_ENOMEM. */
int nl_timers_add(uint64_t *id_out, nl_timers *t, int64_t due, nl_timer_fn fn, void *payload);
/* NL_ENOTFOUND when the timer already fired or was cancelled. */
int nl_timers_cancel(nl_timers *t, uint64_t id);
/* The earliest deadline; NL_ENOTFOUND when there is no timer. */
int nl_timers_next_deadline(int64_t *out, const nl_timers *t);
/* Remove the earliest timer if due at `now` and return its callback;
 * NL_ENOTFOUND otherwise. */
int nl_timers_pop_due(nl_timer_fn *fn_out, void **payload_out, nl_timers *t, int64_t now);
/* Fire every timer due at `now` (callbacks may add or cancel timers);
 * returns how many fired. */
size_t nl_timers_run_due(nl_timers *t, int64_t now);
size_t nl_timers_count(const nl_timers *t);

/* --- clock ------------------------------------------------------------------ */

typedef struct nl_clock nl_clock;

/* A clock on the system's time. *out belongs to the caller: nl_clock_free. */
int nl_clock_new_real(nl_clock **out);
/* A virtual clock starting at start_usec: sleeps advance it at once. */
int nl_clock_new_fake(nl_clock **out, int64_t start_usec);
void nl_clock_free(nl_clock *c);

/* Wall time in microseconds since the epoch (virtual on a fake clock). */
int64_t nl_clock_now(nl_clock *c);
/* Monotonic microseconds for deadlines (= nl_clock_now on a fake clock). */
int64_t nl_clock_mono(nl_clock *c);
/* Sleep usec (a fake clock advances and records the sleep). NL_ECANCELED
 * when the clock is stopped, at once or during the sleep. */
int nl_clock_sleep(nl_clock *c, int64_t usec);
/* Stop: wake sleepers (NL_ECANCELED) and make nl_clock_run return. From then
 * on no timer fires (nl_clock_run_due, nl_clock_advance fire none): a
 * shutdown sends nothing more. */
void nl_clock_stop(nl_clock *c);
int nl_clock_stopped(nl_clock *c);

/* Run fn(payload) once, delay_usec from now, from nl_clock_run,
 * nl_clock_run_due or nl_clock_advance. *id_out (may be NULL) is for
 * nl_clock_cancel. NL_ENOMEM. */
int nl_clock_after(uint64_t *id_out, nl_clock *c, int64_t delay_usec, nl_timer_fn fn,
                   void *payload);
/* A sleep that does not block the thread: fn(payload) runs usec from now,
 * as a timer of nl_clock_after. A fake clock records usec among its sleeps
 * (nl_clock_fake_sleeps; no on-sleep hook: time does not move), so a
 * controller's backoff waits are the same evidence whether it waits on a
 * timer or blocks in nl_clock_sleep. NL_ECANCELED (no timer, nothing
 * recorded) on a stopped clock; NL_ENOMEM. */
int nl_clock_sleep_async(uint64_t *id_out, nl_clock *c, int64_t usec, nl_timer_fn fn,
                         void *payload);
/* NL_ENOTFOUND when the timer already fired or was cancelled. */
int nl_clock_cancel(nl_clock *c, uint64_t id);
/* The earliest timer deadline (monotonic); NL_ENOTFOUND when none. */
int nl_clock_next_deadline(int64_t *out, nl_clock *c);
/* Fire the timers due now (none once the clock is stopped, even if a
 * callback stops it midway); returns how many fired. */
size_t nl_clock_run_due(nl_clock *c);
/* Fire timers as they fall due until nl_clock_stop (a fake clock jumps from
 * deadline to deadline and returns when no timer is left). */
int nl_clock_run(nl_clock *c);
/* Fake clock only: move time forward by usec, firing the timers due on the
 * way at their deadlines (none once stopped: time still moves). NL_EINVAL on a real clock or a
 * negative usec. */
int nl_clock_advance(nl_clock *c, int64_t usec);
/* Fake clock only: the sleeps recorded so far (borrowed, valid until the
 * next sleep or clear; NULL when none), their count in *n_out and, in
 * *total_out (may be NULL), the count including those not recorded. */
const int64_t *nl_clock_fake_sleeps(nl_clock *c, size_t *n_out, size_t *total_out);
void nl_clock_fake_clear_sleeps(nl_clock *c);
/* Fake clock only: call fn(now, payload) after each sleep has moved the
 * clock, on the sleeping thread and without the clock's lock (fn may use
 * the clock), so a test driver can act at a virtual time passed inside a
 * blocking backoff, where timers never fire (decisions/0005). Not after a
 * cancelled sleep, not for nl_clock_advance. fn NULL removes the hook. */
void nl_clock_fake_on_sleep(nl_clock *c, void (*fn)(int64_t now, void *payload), void *payload);

/* --- randomness and jitter (wait.Jitter) ------------------------------------ */

typedef struct {
	uint64_t state;
} nl_rand;

void nl_rand_seed(nl_rand *r, uint64_t seed);
uint64_t nl_rand_next(nl_rand *r);
/* Uniform in [0, 1). */
double nl_rand_float(nl_rand *r);
/* wait.Jitter: period + rand * max_factor * period (max_factor <= 0 = 1.0). */
int64_t nl_jitter(int64_t period, double max_factor, nl_rand *r);

/* wait.JitterUntil on a clock: fn runs at once, then every period (plus
 * jitter); sliding counts the period from the end of fn's run. */
typedef struct {
	nl_clock *clock;
	nl_timer_fn fn;
	void *payload;
	int64_t period;
	double jitter_factor;
	int sliding;
	int running;
	nl_rand rand;
	uint64_t timer;    /* pending timer id, 0 = none */
	int held;          /* a run is under way past fn's return (hold/done) */
	int64_t due;       /* the pending tick's deadline (monotonic) */
	int64_t last_wait; /* the last period scheduled, jitter included */
} nl_jitter_until;

/* j must be zeroed or stopped. NL_EINVAL for period <= 0, no fn, or when j
 * is running. */
int nl_jitter_until_start(nl_jitter_until *j, nl_clock *c, int64_t period, double jitter_factor,
                          int sliding, uint64_t seed, nl_timer_fn fn, void *payload);
void nl_jitter_until_stop(nl_jitter_until *j);
/* From inside fn: this run goes on after fn returns (it waits on timers of
 * its own, as a controller's backoff does), so a sliding loop counts the
 * period from nl_jitter_until_done instead; ticks due meanwhile do not run
 * fn again. done outside a held run is a no-op. */
void nl_jitter_until_hold(nl_jitter_until *j);
void nl_jitter_until_done(nl_jitter_until *j);
/* Run fn at once instead of at the pending tick (the next period counted
 * from this run), unless a run is held or the tick is due already. NL_EINVAL when not running;
 * NL_ENOMEM. */
int nl_jitter_until_kick(nl_jitter_until *j);

#endif
