/* The client's event loop: libcurl's multi interface on epoll, plus the
 * timers of an nl_clock (clock.h), run by one thread. Asynchronous requests
 * (client.h), watches and informers complete through callbacks from
 * nl_loop_step / nl_loop_run, so one thread drives thousands of concurrent
 * requests; controllers that schedule work with nl_clock_after on the same
 * clock run on that thread too.
 *
 * Threading: a loop and everything attached to it (async calls, watches,
 * informers) belong to the thread that steps it; do not also run the clock
 * (nl_clock_run) on another thread. Callbacks always run from nl_loop_step,
 * never inside libcurl, so they may start or cancel requests, watches and
 * timers, including their own.
 *
 * Embedding in another event loop: poll nl_loop_fd() for readability with a
 * timeout of nl_loop_timeout_ms(), then call nl_loop_step(loop, 0). */
#ifndef NODELET_LOOP_H
#define NODELET_LOOP_H

#include <stdint.h>

#include "clock.h"

typedef struct nl_loop nl_loop;

typedef struct {
	/* Borrowed; must outlive the loop. NULL = a real clock the loop owns. */
	nl_clock *clock;
	/* Connection pool for ordinary requests (CURLMOPT_MAX_HOST_CONNECTIONS
	 * and CURLMOPT_MAX_TOTAL_CONNECTIONS): requests beyond it queue until a
	 * keep-alive connection is free. Streams (watches) hold a connection
	 * for minutes, so they use a second pool without these limits — a few
	 * watches can never starve the requests. 0 = defaults 64 / 256. */
	long max_host_connections;
	long max_total_connections;
} nl_loop_options;

void nl_loop_options_init(nl_loop_options *o);

/* o NULL = defaults. *out belongs to the caller: nl_loop_free. NL_ENOMEM, or
 * NL_ERROR when epoll or libcurl cannot be set up. */
int nl_loop_new(nl_loop **out, const nl_loop_options *o);
/* Free the loop. Clients, watches and informers using it must be freed
 * first. Accepts NULL. */
void nl_loop_free(nl_loop *l);

/* Wait up to timeout_ms (0 = do not wait, < 0 = until something happens)
 * for network activity or a due clock timer, then run what is ready:
 * completions, stream data, the clock's due timers. Returns the number of
 * callbacks run, or a negative code (epoll failed; NL_ECANCELED when the
 * clock is stopped). When no transfer is in flight the wait goes through the
 * clock (nl_clock_advance on a fake clock, so timer-only waits take no real
 * time). With nothing in flight and no timer, a negative timeout returns 0
 * at once instead of blocking forever. */
int nl_loop_step(nl_loop *l, int timeout_ms);
/* Step until nothing is in flight and no clock timer is pending, until
 * nl_loop_stop, or until the clock is stopped. An informer keeps a loop busy
 * forever: stop it from a callback. 0 or a negative code from
 * nl_loop_step. */
int nl_loop_run(nl_loop *l);
/* Make nl_loop_run return after the current step; callable from callbacks. */
void nl_loop_stop(nl_loop *l);
/* Requests in flight or waiting (rate limit, retry backoff). */
unsigned nl_loop_pending(const nl_loop *l);
/* The loop's clock (borrowed). */
nl_clock *nl_loop_clock(const nl_loop *l);

/* A descriptor that becomes readable when the loop has network work. */
int nl_loop_fd(const nl_loop *l);
/* Milliseconds until the next clock timer or libcurl timeout (0 = now), -1
 * when there is none. */
int nl_loop_timeout_ms(nl_loop *l);

/* --- other descriptors on the loop --------------------------------------------- */

/* A descriptor the loop watches besides libcurl's (a D-Bus connection, a
 * timerfd): its callback runs from nl_loop_step when it is ready. While one
 * is watched, a loop with no transfer in flight waits in epoll rather than
 * through the clock, so the descriptor wakes it; a fake clock still jumps
 * to its next timer, but only once no watched descriptor is ready. */
typedef struct nl_loop_watch nl_loop_watch;
/* events: what the descriptor is ready for (EPOLLIN, EPOLLOUT, EPOLLERR,
 * EPOLLHUP). */
typedef void (*nl_loop_watch_fn)(int fd, uint32_t events, void *payload);

/* Watch fd for events (EPOLLIN and/or EPOLLOUT; 0 = none for now). The fd
 * stays the caller's; remove the watch before closing it. *out belongs to
 * the caller: nl_loop_watch_remove, also from its own callback. NL_ENOMEM, or
 * NL_ERROR when epoll refuses the descriptor. */
int nl_loop_watch_add(nl_loop_watch **out, nl_loop *l, int fd, uint32_t events, nl_loop_watch_fn fn,
                      void *payload);
/* Change what the watch waits for. 0 or NL_ERROR. */
int nl_loop_watch_set_events(nl_loop_watch *w, uint32_t events);
/* Stop watching and free w; an event already read for it is dropped.
 * Accepts NULL. */
void nl_loop_watch_remove(nl_loop_watch *w);

#endif
