/* Where and how to reach an API server: the result of loading a kubeconfig
 * (kubectl's rules) or the in-cluster service account, consumed by the
 * client transport. Everything here is owned by the nl_rest_config and freed
 * by nl_rest_config_free. See docs/client.md, "Configuration".
 *
 * Error codes: NL_EIO for a file that cannot be read (the path and strerror
 * in err), NL_EPARSE for bad YAML (with line and column), bad base64 or a
 * field of the wrong type, NL_ECONFIG for a configuration that cannot be used
 * (missing context, cluster or user, no server, conflicting settings; the
 * texts are client-go's), NL_EINVAL for bad arguments, NL_ENOMEM. */
#ifndef NODELET_CONFIG_H
#define NODELET_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "errors.h"

/* An exec credential plugin (client.authentication.k8s.io/v1 or v1beta1). */
typedef struct {
	char *api_version; /* "client.authentication.k8s.io/v1" */
	char *command;     /* a file path (resolved against the kubeconfig's
	                    * directory) when it contains '/', else looked up in $PATH */
	char **args;       /* NULL-terminated */
	char **env;        /* NULL-terminated "NAME=value" pairs added to the environment */
	int provide_cluster_info;
	char *interactive_mode; /* "Never", "IfAvailable", "Always" */
	char *install_hint;     /* shown when the command is not found, or NULL */
} nl_exec_config;

typedef struct {
	char *server;          /* "https://host:port" (no trailing slash) */
	char *tls_server_name; /* SNI / verification name override, or NULL */
	int insecure_skip_tls_verify;
	/* Each credential may come from a file or from inline bytes (kubeconfig
	 * "-data", base64-decoded); inline bytes are never written to disk.
	 * Each *_data buffer is also NUL-terminated (not counted in *_len). */
	char *ca_file;
	unsigned char *ca_data;
	size_t ca_data_len;
	char *cert_file;
	unsigned char *cert_data;
	size_t cert_data_len;
	char *key_file;
	unsigned char *key_data;
	size_t key_data_len;
	char *bearer_token;
	char *bearer_token_file; /* re-read periodically (in-cluster rotation) */
	char *username;
	char *password;
	char *proxy_url;
	nl_exec_config *exec; /* NULL when none */
	char *namespace_;     /* the context's namespace, or NULL ("default") */
	char *source; /* where it came from, for error messages (file path or "in-cluster") */
	/* Internal cache of nl_rest_config_token: leave NULL/0 when building a
	 * config by hand. */
	char *file_token;
	int64_t file_token_read_usec;
} nl_rest_config;

/* Free everything; accepts NULL. Secrets (token, password, key bytes) are
 * wiped before their memory is released. */
void nl_rest_config_free(nl_rest_config *c);

/* Load from kubeconfig files as kubectl does: explicit path if given (it must
 * exist), else $KUBECONFIG (colon-separated; missing files are skipped; maps
 * merge by name with the first file to define a name winning whole, and the
 * first file that sets current-context wins), else $HOME/.kube/config.
 * context NULL = current-context. Relative file paths (certificate-authority,
 * client-certificate, client-key, tokenFile, an exec command containing '/')
 * are resolved against the directory of the file that defined the entry;
 * files referenced are checked to be readable now; a tokenFile is read now.
 * *out belongs to the caller (nl_rest_config_free). Errors carry the file
 * name ("error loading config file \"f\": ...") or client-go's text
 * (`context "x" does not exist`). */
int nl_kubeconfig_load(nl_rest_config **out, const char *path, const char *context, nl_err *err);

/* In-cluster config from KUBERNETES_SERVICE_HOST/PORT (an IPv6 host is
 * bracketed in the URL) and the service account directory (normally
 * /var/run/secrets/kubernetes.io/serviceaccount; sa_dir overrides it for
 * tests): the token is read now (NL_EIO when unreadable) and bearer_token_file
 * names it for rotation; ca.crt becomes ca_file when it holds a PEM
 * certificate (else, as client-go, the system roots apply); the namespace is
 * $POD_NAMESPACE, else the namespace file, else NULL. NL_ECONFIG with
 * client-go's "unable to load in-cluster configuration, ..." when the
 * variables are not set. *out belongs to the caller. */
int nl_incluster_load(nl_rest_config **out, const char *sa_dir, nl_err *err);

/* What client-go's default loading does: nl_kubeconfig_load(path, context);
 * when that finds no configuration at all (no file, or only empty ones) and
 * neither path nor context was given, the in-cluster config if
 * KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are set. */
int nl_rest_config_load(nl_rest_config **out, const char *path, const char *context, nl_err *err);

/* How long a token read from bearer_token_file is used before the file is
 * read again (client-go's cached file token source: one minute). */
#define NL_TOKEN_FILE_REFRESH_USEC (60 * 1000000LL)

/* The bearer token to send now, for the transport to call before each
 * request: the content of bearer_token_file (whitespace-trimmed, re-read when
 * the copy is older than NL_TOKEN_FILE_REFRESH_USEC at now_usec; when a
 * re-read fails the last good token or bearer_token is used, as client-go
 * does), else bearer_token. *out is a new string the caller frees, or NULL
 * when the config has no token (not an error). NL_EIO when the file has
 * never been readable and there is no bearer_token. Safe to call from
 * several threads on one config (an internal lock guards the cache). */
int nl_rest_config_token(char **out, nl_rest_config *c, int64_t now_usec, nl_err *err);

/* ---- exec credential plugins ----------------------------------------------- */

/* Credentials an exec plugin returned (ExecCredential status). */
typedef struct {
	char *token;              /* bearer token, or NULL */
	unsigned char *cert_data; /* PEM client certificate, or NULL; NUL-terminated */
	size_t cert_data_len;
	unsigned char *key_data; /* PEM private key, or NULL; NUL-terminated */
	size_t key_data_len;
	int64_t expiration_usec; /* status.expirationTimestamp; 0 = none */
	uint64_t generation;     /* which run of the plugin produced it (from 1) */
} nl_exec_credential;

/* Free a credential (wiping its secrets); accepts NULL. */
void nl_exec_credential_free(nl_exec_credential *c);

/* Cached results of one plugin: one cache per nl_rest_config, kept as long
 * as the client. A mutex serialises callers, so concurrent requests share a
 * single run of the plugin. */
typedef struct nl_exec_cache nl_exec_cache;

#define NL_EXEC_DEFAULT_TIMEOUT_MS 60000
/* Most stdout a plugin may write; more is NL_ETOOBIG. */
#define NL_EXEC_MAX_OUTPUT (1024u * 1024u)

/* A new empty cache; timeout_ms bounds each run (0 = the default). *out
 * belongs to the caller (nl_exec_cache_free). */
int nl_exec_cache_new(nl_exec_cache **out, int timeout_ms);
void nl_exec_cache_free(nl_exec_cache *c);

/* Credentials from cfg->exec, running the plugin only when needed: the
 * cached result is returned until its expirationTimestamp (none = for the
 * cache's lifetime). After a 401 pass the credential the failed request
 * used as `rejected`: if the cache still holds that one, the plugin runs
 * again (client-go's refresh on 401); if another caller already refreshed,
 * the newer credential is returned without a run. rejected NULL = normal use.
 *
 * A run: fork/exec of the command (no shell) with its args, the process
 * environment plus cfg->exec->env, and KUBERNETES_EXEC_INFO set to the
 * ExecCredential request (spec.interactive false; spec.cluster from cfg when
 * provideClusterInfo); stdin is /dev/null, stderr is inherited, stdout is
 * captured up to NL_EXEC_MAX_OUTPUT, no other descriptor is inherited, and
 * the process group is killed after the timeout. nodelet never runs plugins
 * interactively, so interactiveMode "Always" is NL_ECONFIG.
 *
 * Errors (client-go's texts): NL_ENOTFOUND "exec: executable X not found"
 * (plus the install hint), NL_ERROR "exec: executable X failed with exit
 * code N", NL_ETIMEOUT, NL_ETOOBIG, NL_EPARSE for bad output ("decoding
 * stdout: ...", "exec plugin is configured to use API version A, plugin
 * returned version B", "exec plugin didn't return a token or cert/key pair").
 * A failed run leaves the cache as it was. *out is a new copy the caller
 * frees with nl_exec_credential_free. */
int nl_exec_credential_get(nl_exec_credential **out, nl_exec_cache *cache,
                           const nl_rest_config *cfg, const nl_exec_credential *rejected,
                           int64_t now_usec, nl_err *err);

#endif
