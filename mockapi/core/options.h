/* The server's options (what mock_options_init fills and the
 * nodelet-mockapi flags set) and the version it claims to be: every layer
 * reads them, so they live at the bottom; mockapi.h is the public face. */
#ifndef MOCK_CORE_OPTIONS_H
#define MOCK_CORE_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#define MOCK_VERSION_MAJOR "1"
#define MOCK_VERSION_MINOR "32"
#define MOCK_GIT_VERSION "v1.32.0"
#define MOCK_DEFAULT_MAX_BODY (3u * 1024u * 1024u) /* kube-apiserver's 3 MiB */

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
	size_t watch_buffer_bytes;  /* event lines held for all watchers; default 1 GiB; 0: none */
	size_t watch_backlog_bytes; /* one watcher's unsent bytes; default 16 MiB; 0: none */

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
	const char *client_ca_file; /* verify x509 client certificates (CN, O) */
	/* kube-controller-manager's CSR signer (docs/decisions/0042): its CA
	 * files (NULL: the --generate-certs CA, or one made at start) and the
	 * longest lifetime it issues (default 8760h). */
	const char *cluster_signing_cert_file;
	const char *cluster_signing_key_file;
	int64_t cluster_signing_duration_usec;
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

	/* HTTP deadlines (docs/mockapi.md "Limits"); 0 turns each off. */
	unsigned read_header_timeout_ms; /* a request head must be in by; default 32 s */
	unsigned request_timeout_ms;     /* 504 after (not watches); default 60 s */
	unsigned shutdown_grace_ms;      /* stop: running requests get this long; default 10 s */
} mock_options;

#endif
