/* --request-timeout: requests handled on worker threads, answered 504 when
 * they take too long, as kube-apiserver's timeout filter
 * (WithTimeoutForNonLongRunningRequests) does.
 *
 * The connection is suspended while a worker runs mock_api_handle on a
 * copy of the request; the worker, or the deadline, whichever comes first,
 * resumes it, and libmicrohttpd calls the server again to send the answer
 * (mock_runner_take). A handler past its deadline runs on to the end, as
 * upstream's goroutine does, and its answer is dropped: what it changed
 * stays changed. docs/decisions/0031-http-framing-and-timeouts.md. */
#ifndef MOCK_SERVER_RUNNER_H
#define MOCK_SERVER_RUNNER_H

#include <stdint.h>

#include "core/request.h"
#include "handlers/api.h"

struct MHD_Connection;
typedef struct mock_runner mock_runner;
typedef struct mock_job mock_job;

/* threads workers running mock_api_handle on api (borrowed). NL_ENOMEM or
 * NL_EIO. */
int mock_runner_new(mock_runner **out, mock_api *api, unsigned threads);
/* Stop: wait up to grace_ms for running handlers, then resume every
 * suspended connection with no answer (they are closed). Returns how many
 * handlers were still running (their jobs are left to them). */
unsigned mock_runner_shutdown(mock_runner *r, unsigned grace_ms);
/* Wait (without bound) until no handler runs. */
void mock_runner_wait(mock_runner *r);
/* Handlers running now. */
unsigned mock_runner_running(mock_runner *r);
/* After mock_runner_shutdown and the daemon's stop. Returns 0, or -1 when
 * a handler still runs: then nothing is freed (the process is ending). */
int mock_runner_free(mock_runner *r);

/* Run req on a worker, conn suspended until it is done or deadline_mono
 * (monotonic µs) passes. The request is copied; body's buffer is taken.
 * The job, or NULL (out of memory, shutting down: handle it inline). */
mock_job *mock_runner_submit(mock_runner *r, struct MHD_Connection *conn, const mock_request *req,
                             nl_buf *body, int64_t deadline_mono);
/* After the resume: the answer into resp (the handler's, or the 504), and
 * the job is released. 0, or -1 when the connection is to be closed
 * without an answer (shutting down). */
int mock_runner_take(mock_runner *r, mock_job *job, mock_response *resp);
/* The connection ended before the answer was taken. */
void mock_runner_abandon(mock_runner *r, mock_job *job);

/* Fill resp with kube-apiserver's 504 (timeout.go: the Status as
 * encoding/json writes it, whatever the client accepts). */
void mock_response_timeout(mock_response *resp);

/* Monotonic microseconds. */
int64_t mock_runner_now(void);

#endif
