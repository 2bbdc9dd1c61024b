/* Fault injection: a fault is a match, an action and a budget (issue 4;
 * docs/control-api.md has the schema with examples,
 * docs/decisions/0005-faults-and-journal.md the design).
 *
 *   {"match":  {"verb", "resource" ("nodes/status"), "group", "namespace",
 *               "name", "userAgent" (substring), "user", "after"},
 *    "action": {"status" [+ "retryAfterSeconds"] [+ "body"]} | {"delayMs": N | [lo, hi]}
 *              | {"drop": true} | {"truncate": N} | {"malformed": true | "text"}
 *              | {"watch": {"closeAfterEvents": N} | {"expire": true} | {"stall": true}},
 *    "times": 1, "probability": 1.0, "id": "optional-name"}
 *
 * delayMs may be combined with any one other action (the delay comes first);
 * alone it only delays the real handling. The registry is thread-safe: one
 * mutex around the list and the PRNG, held only for matching (no I/O). */
#ifndef MOCK_FAULTS_H
#define MOCK_FAULTS_H

#include <json-c/json.h>
#include <nodelet/errors.h>
#include <nodelet/status.h>
#include <stddef.h>
#include <stdint.h>

#include "api/route.h"
#include "core/request.h"

#define MOCK_FAULT_ID_MAX 64
/* Faults kept at once (exhausted ones count until removed or purged). */
#define MOCK_FAULTS_MAX 1024
/* Longest delay a fault may ask for: ten minutes. */
#define MOCK_FAULT_MAX_DELAY_MS 600000

/* What a watch fault asks the watch stream to do (mock_watch_fault,
 * core/request.h); the fault gate puts it in mock_request.watch_fault:
 * - close_after_events N > 0: end the stream cleanly after N events (initial
 *   ADDED events count; bookmarks do not);
 * - expire: answer 200 and send one ERROR event carrying the 410 Expired
 *   Status (nl_status_expired), then end the stream;
 * - stall: answer 200, then send nothing (no events, no bookmarks) until the
 *   client goes away or the server stops.
 * Exactly one of them is set. */

typedef enum {
	MOCK_FAULT_DELAY_ONLY, /* delay, then the real handling */
	MOCK_FAULT_STATUS,     /* answer status (+ body or a metav1.Status) */
	MOCK_FAULT_DROP,       /* close the connection without an answer */
	MOCK_FAULT_TRUNCATE,   /* send truncate bytes of the body, then close */
	MOCK_FAULT_MALFORMED,  /* a complete answer whose body is not valid JSON */
	MOCK_FAULT_WATCH,      /* the watch stream misbehaves (mock_watch_fault) */
} mock_fault_kind;

/* A fault that fired for one request: a copy of its action (the fault itself
 * may be removed while the request is still delayed). Release with
 * mock_fault_hit_clear. */
typedef struct {
	char id[MOCK_FAULT_ID_MAX];
	mock_fault_kind kind;
	unsigned delay_ms; /* drawn from the range when one was given */
	int status;
	int retry_after; /* seconds; 0 = none */
	char *body;      /* status body as given (compact JSON or raw text), or NULL */
	size_t truncate;
	char *malformed; /* literal malformed body, NULL = half the real body */
	mock_watch_fault watch;
} mock_fault_hit;

void mock_fault_hit_clear(mock_fault_hit *h);

/* The metav1.Status a status fault answers (caller frees), in the words of
 * apimachinery's constructors for the request's resource and name: 404
 * NotFound, 409 Conflict, 410 Expired, 422 Invalid, 429 TooManyRequests,
 * 500 InternalError, 503 ServiceUnavailable, 504 Timeout ...; 2xx gives a
 * Success status. retry_after goes to details.retryAfterSeconds (429
 * defaults to 1 s, as the apiserver's max-in-flight filter). rv_requested
 * is the request's resourceVersion parameter (for 410) or NULL; current_rv
 * the store's. NULL only when out of memory. */
nl_status *mock_fault_status(const mock_fault_hit *h, const mock_req_attrs *a,
                             const char *rv_requested, uint64_t current_rv, size_t max_body);

typedef struct mock_fault mock_fault;

/* Parse and validate one fault specification (borrowed). Unknown keys are
 * errors, so a typo cannot silently widen a match. NL_EINVALID with
 * "<field>: <problem>" in err. *out is freed with mock_fault_free. */
int mock_fault_parse(mock_fault **out, json_object *spec, nl_err *err);
void mock_fault_free(mock_fault *f);

/* A request as the matcher sees it. */
typedef struct {
	const mock_req_attrs *attrs;
	const char *user_agent; /* NULL = none */
	const char *user;       /* NULL or "" until authentication exists */
} mock_fault_request;

/* Whether f's match clause (not its budget) selects the request. */
int mock_fault_matches(const mock_fault *f, const mock_fault_request *r);

typedef struct mock_faults mock_faults;

/* An empty registry whose PRNG (splitmix64) starts from seed. */
int mock_faults_new(mock_faults **out, uint64_t seed);
void mock_faults_free(mock_faults *fs);
uint64_t mock_faults_seed(const mock_faults *fs);

/* Add a parsed fault (consumed, also on failure). Its id is the spec's "id"
 * or "fault-N"; copied into id_out (may be NULL). NL_EEXISTS when the id is
 * taken, NL_ETOOBIG past MOCK_FAULTS_MAX live faults. */
int mock_faults_add(mock_faults *fs, mock_fault *f, char id_out[MOCK_FAULT_ID_MAX]);
/* Parse and add one fault object or a list of them, all or nothing. *out
 * (may be NULL) receives a new array of the added faults as
 * mock_faults_get returns them. Errors as mock_fault_parse / mock_faults_add,
 * the message prefixed with "[i]." for lists. */
int mock_faults_add_json(json_object **out, mock_faults *fs, json_object *spec, nl_err *err);
/* Remove one fault: 0, or NL_ENOTFOUND. *out (may be NULL) gets its JSON. */
int mock_faults_remove(json_object **out, mock_faults *fs, const char *id);
/* Remove every fault; *out (may be NULL) gets their JSON list. */
void mock_faults_clear(json_object **out, mock_faults *fs);
/* A new array of every fault in evaluation order: the spec as given plus
 * id, remaining (null when unlimited), matched and fired. */
json_object *mock_faults_list_json(mock_faults *fs);
/* One fault's JSON (new reference) or NULL when there is none with that id. */
json_object *mock_faults_get(mock_faults *fs, const char *id);

/* Decide for one request. Faults are tried in insertion order. Each fault
 * whose match clause selects the request counts it ("matched"); the first
 * one that is past its "after" offset, has budget left and wins its
 * probability draw fires: its "fired" count grows and *hit receives a copy
 * of its action. The PRNG is drawn only for a probability below 1 and for
 * a delay range, so a fixed seed and the same request sequence give the
 * same firing sequence. Returns 1 when a fault fired, else 0. */
int mock_faults_decide(mock_faults *fs, const mock_fault_request *r, mock_fault_hit *hit);

#endif
