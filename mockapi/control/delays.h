/* The timer that resumes delayed connections: a delay fault suspends its
 * connection (MHD_suspend_connection) instead of holding a worker thread,
 * and this timer's thread resumes it when due, so two worker threads serve
 * any number of delayed requests (docs/decisions/0006-faults-and-journal.md). */
#ifndef MOCK_CONTROL_DELAYS_H
#define MOCK_CONTROL_DELAYS_H

struct MHD_Connection;

typedef struct mock_delays mock_delays;
int mock_delays_new(mock_delays **out);
/* Suspend conn for ms; 0, or -1 when the caller must go on at once
 * (shutting down, out of memory). */
int mock_delays_suspend(mock_delays *d, struct MHD_Connection *conn, unsigned ms);
/* Resume every delayed connection now and stop delaying new ones; call
 * before the HTTP daemon stops (it must not stop with suspended
 * connections). Idempotent. */
void mock_delays_shutdown(mock_delays *d);
void mock_delays_free(mock_delays *d);

#endif
