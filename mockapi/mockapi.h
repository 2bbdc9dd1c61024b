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

#define MOCK_VERSION_MAJOR "1"
#define MOCK_VERSION_MINOR "32"
#define MOCK_GIT_VERSION "v1.32.0"
#define MOCK_DEFAULT_MAX_BODY (3u * 1024u * 1024u) /* kube-apiserver's 3 MiB */

typedef struct mock_server mock_server;
struct mock_store;

typedef struct {
	const char *bind_address; /* default "127.0.0.1" */
	int port;                 /* default 8080; 0 picks a free port */
	const char **fixtures;    /* manifest files loaded at start (borrowed) */
	size_t nfixtures;
	const char *kubeconfig_out; /* write a kubeconfig pointing here, or NULL */
	int verbosity;              /* klog-style -v level; 0 logs only errors */
	size_t max_body;            /* request body limit; default 3 MiB */
	unsigned threads;           /* MHD worker threads; default 2 */
	unsigned max_connections;   /* default 4096 */
	unsigned idle_timeout;      /* seconds an idle connection is kept; default 120 */
	size_t watch_cache_size;    /* changes kept per resource for watch resumes; default 1000 */
	unsigned watch_bookmark_interval; /* seconds between watch BOOKMARKs; default 60 */

	/* Faults, journal, control API and controllers (docs/control-api.md). */
	const char *faults_file;          /* --faults: YAML/JSON list of faults, or NULL */
	uint64_t random_seed;             /* --random-seed (<= INT64_MAX), when random_seed_set */
	int random_seed_set;              /* else a seed is taken from the clock and logged */
	size_t journal_size;              /* requests kept; default 100000; 0 records none */
	int disable_control_api;          /* /mockapi/v1/ answers 404 */
	const char *controllers;          /* kube-controller-manager style: "*,-nodelifecycle" */
	int64_t node_monitor_grace_usec;  /* default 50 s */
	int64_t node_startup_grace_usec;  /* default 60 s */
	int64_t node_monitor_period_usec; /* default 5 s */
	/* The server's clock (creationTimestamp, controllers, journal times):
	 * microseconds since the epoch. NULL means the wall clock. */
	int64_t (*clock)(void *payload);
	void *clock_payload;
	/* How often a background thread runs due controller work; 0 starts no
	 * thread, and the embedder calls mock_server_tick (virtual time).
	 * Default 100. */
	unsigned controller_tick_ms;

	/* TLS, authentication, authorization and limits, with kube-apiserver's
	 * flag names (docs/mockapi.md). Paths are borrowed. */
	const char *tls_cert_file; /* with tls_private_key_file: HTTPS only */
	const char *tls_private_key_file;
	const char *client_ca_file;              /* verify x509 client certificates (CN, O) */
	const char *token_auth_file;             /* static token CSV */
	int anonymous_auth;                      /* default 1 */
	const char *authorization_mode;          /* "AlwaysAllow" (default) or "Node" */
	const char *control_api_group;           /* may use /mockapi/v1/; default system:masters */
	const char *generate_certs_dir;          /* write and use a throwaway CA and certificates */
	const char *generate_client_user;        /* the generated client certificate's CN;
	                                          * default kubernetes-admin */
	const char *generate_client_groups;      /* its O values, comma-separated;
	                                          * default system:masters */
	unsigned max_requests_inflight;          /* default 400; 0 = no limit */
	unsigned max_mutating_requests_inflight; /* default 200; 0 = no limit */
	unsigned max_watches;                    /* default 3072; 0 = no limit */
	size_t max_header_bytes; /* per-connection memory for the request head; default 16 KiB */

	/* The durable store (docs/mockapi.md, "State file"). NULL: memory only. */
	const char *state_file;    /* snapshot path; the log is state_file + ".log" */
	int sync_writes;           /* a mock_sync_mode (persist.h); default batch */
	unsigned sync_interval_ms; /* batch mode's interval; default 1000 */
	int discard_bad_state;     /* start from what is intact of a corrupt state file */
} mock_options;

/* Fill the defaults above. */
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
