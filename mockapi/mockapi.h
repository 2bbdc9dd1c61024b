/* nodelet-mockapi as a library: a fake kube-apiserver that tests, the
 * scenario runner and the nodelet-mockapi program start in-process.
 *
 * Lifecycle: mock_options_init → adjust → mock_server_new → mock_server_start
 * → (serve) → mock_server_stop → mock_server_free. */
#ifndef MOCKAPI_H
#define MOCKAPI_H

#include <nodelet/errors.h>
#include <stddef.h>
#include <stdint.h>

#include "core/options.h"

typedef struct mock_server mock_server;
struct mock_store;

/* Fill mock_options (core/options.h) with the defaults it documents. */
void mock_options_init(mock_options *o);

/* Create a server with its store seeded (default namespaces + fixtures).
 * Errors: NL_EPARSE / NL_EIO / NL_EINVALID for fixtures (detail in err).
 * *out belongs to the caller: mock_server_free. */
int mock_server_new(mock_server **out, const mock_options *o, nl_err *err);
/* Listen and serve on MHD's own threads; returns once the port is bound. */
int mock_server_start(mock_server *s, nl_err *err);
/* The bound port (useful with port 0), and the base URL "http://127.0.0.1:PORT"
 * ("https://..." with TLS)
 * (borrowed, lives as long as s). */
int mock_server_port(const mock_server *s);
const char *mock_server_url(const mock_server *s);
/* The store (borrowed), for in-process tests and the scenario runner. */
struct mock_store *mock_server_store(mock_server *s);
/* Open watch streams (tests: a vanished client must be released). */
size_t mock_server_watch_count(mock_server *s);
/* Stop serving; in-flight requests complete and open watch streams end
 * cleanly. Safe to call twice. */
void mock_server_stop(mock_server *s);
/* Stop serving and, with --state-file, write the clean-stop snapshot now,
 * waiting at most ms for it (a handler still running past the shutdown
 * grace period may hold the store; UINT_MAX waits as long as it takes):
 * 0; NL_EIO (logged) when the stop could not be made clean (a full disk,
 * say; every acknowledged change is still on disk); NL_ETIMEOUT when the
 * snapshot did not finish in time (it goes on; do not mock_server_free
 * then). Otherwise mock_server_free follows. */
int mock_server_close_state(mock_server *s, unsigned ms);
void mock_server_free(mock_server *s);
/* Restart a running server as a restarted kube-apiserver would come back:
 * every connection and watch is closed, then it listens again on the same
 * port with the same objects (uids, resourceVersions), faults and journal;
 * the watch cache starts empty, so resuming an older watch is 410. For the
 * scenario runner's restartServer step. */
int mock_server_restart(mock_server *s, nl_err *err);

/* --- control API in C, for in-process tests (docs/control-api.md) --- */

/* Add one fault (a JSON object of the fault schema, faults.h). *id_out (may
 * be NULL) receives its id (caller frees). NL_EPARSE for bad JSON,
 * NL_EINVALID with the field in err, NL_EEXISTS for a taken id. */
int mock_server_add_fault(char **id_out, mock_server *s, const char *json, nl_err *err);
/* Remove one fault (NL_ENOTFOUND) or, with id NULL, all of them. */
int mock_server_remove_fault(mock_server *s, const char *id);
/* The journal as GET /mockapi/v1/requests?since=SEQ answers it:
 * {"items":[...],"lastSeq":N}. *out belongs to the caller (free()). */
int mock_server_journal(char **out, mock_server *s, uint64_t since);
/* POST /mockapi/v1/reset: the store back to its seeded state (default
 * namespaces and fixtures, new uids, resourceVersion keeps counting up),
 * journal and faults cleared, controller state forgotten. */
int mock_server_reset(mock_server *s, nl_err *err);
/* For in-process harnesses that run many independent sessions on one
 * server (the fuzz targets): remember the whole state now, and later go
 * back to exactly it (objects, uids, resourceVersions, the counter) with
 * no watch history, faults, journal or metrics, and the controllers as
 * new. Only for a server that was never started and has no --state-file,
 * and rewinding needs every watch closed: a client would see
 * resourceVersions go back (NL_EINVAL otherwise). 0 or NL_ENOMEM. */
int mock_server_save(mock_server *s);
int mock_server_rewind(mock_server *s);
/* Run the controller work due at the server clock's now (node lifecycle
 * every node_monitor_period, garbage collection when the store changed),
 * synchronously. With an injected clock and controller_tick_ms 0 this is
 * how virtual time drives the controllers. */
int mock_server_tick(mock_server *s);

/* Write a kubeconfig for s to path (mode 0600, atomically): its URL and,
 * with TLS or authentication, the CA and credentials embedded (the
 * generated client certificate, else the token file's first token). */
int mock_server_write_kubeconfig(mock_server *s, const char *path, nl_err *err);

/* The nodelet-mockapi program: flags, start, wait for SIGINT/SIGTERM. */
int mock_main(int argc, char **argv);

#endif
