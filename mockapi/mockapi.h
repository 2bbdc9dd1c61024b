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
 * (borrowed, lives as long as s). */
int mock_server_port(const mock_server *s);
const char *mock_server_url(const mock_server *s);
/* The store (borrowed), for in-process tests and the scenario runner. */
struct mock_store *mock_server_store(mock_server *s);
/* Stop serving; in-flight requests complete. Safe to call twice. */
void mock_server_stop(mock_server *s);
void mock_server_free(mock_server *s);

/* The nodelet-mockapi program: flags, start, wait for SIGINT/SIGTERM. */
int mock_main(int argc, char **argv);

#endif
