/* The server's connections as libmicrohttpd hands them over: the
 * --max-connections limit, idle keep-alive connections reclaimed under
 * pressure, and the header-read deadline.
 *
 * libmicrohttpd 0.9.75 at its own connection limit stops polling the
 * listening socket, so a client past it waits in the kernel's backlog with
 * no answer at all. Here libmicrohttpd's limit is set well above ours and
 * every accepted connection is admitted (mock_conns_admit) or closed on
 * the spot. At the limit the connection idle the longest (no request in
 * progress, oldest first) is shut down to make room; only when none is
 * idle is the new one refused.
 *
 * A connection that has not delivered a complete request head within
 * --read-header-timeout of its start (kube-apiserver's ReadHeaderTimeout,
 * 32 s) is cut; after a request, within the idle timeout plus that, since
 * the first byte of the next head cannot be seen from here.
 *
 * Connections are cut with shutdown(2) on their socket: libmicrohttpd
 * sees the end of the stream and closes it in its own thread. A socket is
 * in the table from the "started" to the "closed" notification, and
 * libmicrohttpd closes it only after the latter, so a shutdown never hits
 * a reused descriptor. One mutex; O(connections) per reaper pass (each
 * 250 ms) and per admission at the limit. */
#ifndef MOCK_SERVER_CONNS_H
#define MOCK_SERVER_CONNS_H

#include <stddef.h>

typedef struct mock_conns mock_conns;
typedef struct mock_conn mock_conn;

/* max: --max-connections (0: no limit); header_ms: the header deadline
 * (0: none); idle_ms: libmicrohttpd's idle timeout. Starts the reaper
 * thread when header_ms > 0. NL_ENOMEM/NL_EIO on failure. Free with
 * mock_conns_free. */
int mock_conns_new(mock_conns **out, unsigned max, unsigned header_ms, unsigned idle_ms);
void mock_conns_free(mock_conns *cs);

/* A connection was accepted: 1 to keep it (reclaiming an idle one when at
 * the limit), 0 to close it at once. */
int mock_conns_admit(mock_conns *cs);
/* libmicrohttpd started connection socket fd (after an admission):
 * its entry, or NULL when out of memory (it is then not tracked). */
mock_conn *mock_conns_opened(mock_conns *cs, int fd);
/* A request head arrived (busy) or its answer is done (idle again). */
void mock_conns_busy(mock_conns *cs, mock_conn *c);
void mock_conns_idle(mock_conns *cs, mock_conn *c);
/* Closed: the entry is freed. NULL is ignored. */
void mock_conns_closed(mock_conns *cs, mock_conn *c);

/* Open connections, and how many were reclaimed, refused and cut at the
 * header deadline since the start (for tests and the log). */
size_t mock_conns_open(mock_conns *cs);
void mock_conns_counts(mock_conns *cs, size_t *reclaimed, size_t *refused, size_t *cut);

#endif
