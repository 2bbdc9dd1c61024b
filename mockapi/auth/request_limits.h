/* Hard limits on what clients may hold: requests in flight
 * (--max-requests-inflight / --max-mutating-requests-inflight, as
 * kube-apiserver's WithMaxInFlightLimit) and concurrent watches
 * (--max-watches). Beyond a limit the answer is the apiserver's throttle
 * response: 429, `Retry-After: 1`, plain text `Too many requests, please
 * try again later.` Body and header sizes and idle connections are
 * libmicrohttpd's part (server.c). See docs/mockapi.md "Limits". */
#ifndef MOCK_REQUEST_LIMITS_H
#define MOCK_REQUEST_LIMITS_H

#include <stdatomic.h>
#include <stdint.h>

#include "core/request.h"

#define MOCK_DEFAULT_MAX_INFLIGHT 400
#define MOCK_DEFAULT_MAX_MUTATING_INFLIGHT 200
#define MOCK_DEFAULT_MAX_WATCHES 3072
/* Also the memory libmicrohttpd gives each connection, which it zeroes for
 * every request (0.9.75): 64 KiB cost ~3 µs of CPU per request on a GET
 * of ~5 µs (docs/performance.md). 16 KiB holds any real client's head. */
#define MOCK_DEFAULT_MAX_HEADER_BYTES (16u * 1024u)

/* The counts, and what apiserver_current_inflight_requests shows: the
 * most requests of each kind in flight during the last whole second (the
 * apiserver's watermark, which it publishes and resets every second).
 * Windows are seconds of the monotonic clock, rolled over lazily by the
 * first request or scrape of a new second. */
typedef struct {
	atomic_uint readonly;
	atomic_uint mutating;
	unsigned max_readonly; /* 0: not limited */
	unsigned max_mutating; /* 0: not limited */
	atomic_llong window;   /* the second the peaks belong to */
	atomic_uint peak_readonly, peak_mutating;
	atomic_uint shown_readonly, shown_mutating; /* the peaks of the second before */
} mock_inflight;

typedef enum {
	MOCK_SLOT_NONE,     /* not counted (long-running, exempt or not limited) */
	MOCK_SLOT_READONLY, /* get, list */
	MOCK_SLOT_MUTATING, /* everything else */
} mock_inflight_slot;

/* Take a slot for a request with audit verb verb ("get", "create", "post"
 * for a non-resource POST...). Watches are long-running and never counted;
 * exempt (system:masters, as upstream) neither. 0 with *slot set, or
 * NL_ETOOMANYREQUESTS when that kind of request is at its limit. */
int mock_inflight_enter(mock_inflight_slot *slot, mock_inflight *f, const char *verb, int exempt);
/* Give the slot back (*slot becomes MOCK_SLOT_NONE). */
void mock_inflight_leave(mock_inflight *f, mock_inflight_slot *slot);
/* The watermarks of the second before now_sec (monotonic seconds), into
 * *readonly and *mutating. 0, or -1 when neither kind is limited: the
 * apiserver then has no max-in-flight filter and no such metric. */
int mock_inflight_watermarks(mock_inflight *f, int64_t now_sec, unsigned *readonly,
                             unsigned *mutating);
/* The same with the clock's second; mock_inflight_enter rolls with it. */
int64_t mock_inflight_now_sec(void);

/* Fill resp with the throttle answer (429, Retry-After 1, plain text). */
void mock_response_too_many_requests(mock_response *resp);

/* Whether another watch may open beside the open ones under the cap max
 * (--max-watches; 0 means no cap): 1, or 0 with the 429 in resp. */
int mock_limits_admit_watch(size_t max, size_t open, mock_response *resp);

#endif
