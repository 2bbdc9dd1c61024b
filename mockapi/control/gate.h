/* The fault gate: what server.c runs around every request, at the HTTP
 * layer, so a fault can delay, drop or cut a connection, not just change
 * an answer; and the journal entry each request leaves. Control requests
 * (/mockapi/) pass untouched and unrecorded, so a fault can never lock the
 * test out of removing it.
 *
 * Delays do not hold a worker thread: the connection is suspended
 * (MHD_suspend_connection) and a timer thread resumes it when due, so two
 * worker threads serve any number of delayed requests. See
 * docs/decisions/0006-faults-and-journal.md. */
#ifndef MOCK_GATE_H
#define MOCK_GATE_H

#include <stdint.h>

#include "api/route.h"
#include "core/request.h"
#include "faults.h"

struct MHD_Connection;
struct mock_control;
struct MHD_Response;

/* Per-request state; lives in the server's per-connection context, zeroed
 * before the first mock_gate_enter. */
typedef struct {
	int entered;  /* faults decided, clocks started */
	int control;  /* a control request: no faults, no journal */
	int resumed;  /* the delay has been served */
	int has_hit;  /* a fault fired */
	int recorded; /* the journal entry is written */
	mock_fault_hit hit;
	mock_req_attrs attrs;
	int64_t start_usec; /* server clock at arrival */
	int64_t start_mono; /* monotonic microseconds at arrival */
	/* Set by the server before each mock_gate_enter: a delay is cut to
	 * this, the time left before --request-timeout (0: not cut), so the
	 * 504 goes out on time. */
	unsigned max_delay_ms;
} mock_gate_req;

typedef enum {
	MOCK_GATE_HANDLE,    /* run mock_api_handle (a latency fault may have preceded) */
	MOCK_GATE_ANSWERED,  /* resp holds the fault's answer: send it */
	MOCK_GATE_SUSPENDED, /* delayed: return MHD_YES; MHD calls again when resumed */
	MOCK_GATE_DROP,      /* close without answering: return MHD_NO */
} mock_gate_step;

/* Decide what happens to a complete request (called again after a delay)
 * with ctl's faults (control.h; NULL: no faults, no journal).
 * May set req->watch_fault. */
mock_gate_step mock_gate_enter(struct mock_control *ctl, mock_gate_req *g,
                               struct MHD_Connection *conn, mock_request *req, mock_response *resp);
/* Record the request in the journal once it is answered (resp) or dropped
 * (resp NULL). Idempotent. */
void mock_gate_leave(struct mock_control *ctl, mock_gate_req *g, const mock_request *req,
                     const mock_response *resp);
/* Release per-request state (the server's completion callback). */
void mock_gate_req_clear(mock_gate_req *g);

/* The answer for a truncate fault: resp's headers-to-be and a body that
 * announces resp->body.len bytes but ends with an error after
 * resp->truncate_at; MHD then closes the connection. NULL when out of
 * memory. */
struct MHD_Response *mock_gate_truncated_response(const mock_response *resp);

#endif
