/* client-go's exec credential authenticator (plugin/pkg/client/auth/exec):
 * the ExecCredential request handed to the plugin in KUBERNETES_EXEC_INFO,
 * the answer it prints, and the cache that decides when to run it again. */
#include "internal.h"

#include <nodelet/base64.h>
#include <nodelet/doc.h>
#include <nodelet/time.h>

#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXEC_INFO_ENV "KUBERNETES_EXEC_INFO"
#define GROUP "client.authentication.k8s.io"

/* client-go appends this to "executable not found" */
#define INSTALL_HELP                                                                           \
	"\n\nIt looks like you are trying to use a client-go credential plugin that is not "   \
	"installed.\n\nTo learn more about this feature, consult the documentation available " \
	"at:\n      "                                                                          \
	"https://kubernetes.io/docs/reference/access-authn-authz/authentication/"              \
	"#client-go-credential-plugins"

struct nl_exec_cache {
	pthread_mutex_t lock; /* also held while the plugin runs: one run at a time */
	int timeout_ms;
	nl_exec_credential *cached;
	uint64_t runs;
};

static int nomem(nl_err *err)
{
	return nl_err_set(err, NL_ENOMEM, "out of memory");
}

void nl_exec_credential_free(nl_exec_credential *c)
{
	if (!c)
		return;
	nl__free_secret_str(c->token);
	free(c->cert_data);
	nl__free_secret(c->key_data, c->key_data_len);
	free(c);
}

int nl_exec_cache_new(nl_exec_cache **out, int timeout_ms)
{
	if (!out || timeout_ms < 0)
		return NL_EINVAL;
	nl_exec_cache *c = calloc(1, sizeof(*c));
	if (!c)
		return NL_ENOMEM;
	if (pthread_mutex_init(&c->lock, NULL)) {
		free(c);
		return NL_ENOMEM;
	}
	c->timeout_ms = timeout_ms ? timeout_ms : NL_EXEC_DEFAULT_TIMEOUT_MS;
	*out = c;
	return 0;
}

void nl_exec_cache_free(nl_exec_cache *c)
{
	if (!c)
		return;
	nl_exec_credential_free(c->cached);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* ---- the request: KUBERNETES_EXEC_INFO ------------------------------------- */

static int add_str(json_object *o, const char *key, const char *val)
{
	if (!val)
		return 0;
	json_object *s = json_object_new_string(val);
	if (!s || json_object_object_add(o, key, s)) {
		json_object_put(s);
		return -1;
	}
	return 0;
}

static int add_ca_data(json_object *cluster, const nl_rest_config *cfg, nl_err *err)
{
	const unsigned char *data = cfg->ca_data;
	size_t len = cfg->ca_data_len;
	char *file = NULL, *b64 = NULL;
	if (!data && cfg->ca_file) {
		int rc = nl_file_read(&file, &len, cfg->ca_file, NL__SMALL_FILE_MAX, err);
		if (rc)
			return rc;
		data = (const unsigned char *)file;
	}
	int rc = 0;
	if (data && len) {
		if (nl_base64_encode(&b64, data, len) ||
		    add_str(cluster, "certificate-authority-data", b64))
			rc = nomem(err);
	}
	free(file);
	free(b64);
	return rc;
}

/* clientauthentication's Cluster, in its field order (rest.ConfigToExecCluster). */
static int cluster_info(json_object **out, const nl_rest_config *cfg, nl_err *err)
{
	json_object *c = json_object_new_object();
	if (!c)
		return nomem(err);
	int rc = 0;
	if (add_str(c, "server", cfg->server ? cfg->server : "") ||
	    add_str(c, "tls-server-name", cfg->tls_server_name) ||
	    (cfg->insecure_skip_tls_verify &&
	     json_object_object_add(c, "insecure-skip-tls-verify", json_object_new_boolean(1))))
		rc = nomem(err);
	if (!rc)
		rc = add_ca_data(c, cfg, err);
	if (!rc && add_str(c, "proxy-url", cfg->proxy_url))
		rc = nomem(err);
	if (rc) {
		json_object_put(c);
		return rc;
	}
	*out = c;
	return 0;
}

static int exec_info(char **out, const nl_rest_config *cfg, nl_err *err)
{
	json_object *req = json_object_new_object(), *spec = json_object_new_object(), *c = NULL;
	int rc = 0;
	if (!req || !spec || add_str(req, "kind", "ExecCredential") ||
	    add_str(req, "apiVersion", cfg->exec->api_version) ||
	    json_object_object_add(req, "spec", json_object_get(spec)))
		rc = nomem(err);
	if (!rc && cfg->exec->provide_cluster_info) {
		rc = cluster_info(&c, cfg, err);
		if (!rc && json_object_object_add(spec, "cluster", c))
			rc = nomem(err);
	}
	if (!rc && json_object_object_add(spec, "interactive", json_object_new_boolean(0)))
		rc = nomem(err);
	if (!rc && asprintf(out, "%s=%s", EXEC_INFO_ENV,
	                    json_object_to_json_string_ext(
	                        req, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		rc = nomem(err);
	json_object_put(spec);
	json_object_put(req);
	return rc;
}

/* ---- environment and argv -------------------------------------------------- */

extern char **environ;

static int same_name(const char *a, const char *b)
{
	size_t n = strcspn(b, "=");
	return strncmp(a, b, n) == 0 && a[n] == '=';
}

/* Later definitions win, as with os/exec's dedupEnv. */
static int overridden(const char *entry, char *const *later, const char *info)
{
	for (size_t i = 0; later && later[i]; i++)
		if (same_name(entry, later[i]))
			return 1;
	return same_name(entry, info);
}

/* The process environment, then the plugin's env, then the request; the
 * strings are borrowed except `info` (freed by the caller). */
static int build_env(char ***out, char *const *add, const char *info)
{
	size_t n = 0, m = 0, w = 0;
	while (environ && environ[n])
		n++;
	while (add && add[m])
		m++;
	char **env = calloc(n + m + 2, sizeof(*env));
	if (!env)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!overridden(environ[i], add, info))
			env[w++] = environ[i];
	for (size_t i = 0; i < m; i++)
		if (!overridden(add[i], add + i + 1, info))
			env[w++] = add[i];
	env[w] = (char *)info;
	*out = env;
	return 0;
}

static int build_argv(char ***out, const char *cmd, char *const *args)
{
	size_t n = 0;
	while (args && args[n])
		n++;
	char **argv = calloc(n + 2, sizeof(*argv));
	if (!argv)
		return -1;
	argv[0] = (char *)cmd;
	for (size_t i = 0; i < n; i++)
		argv[i + 1] = args[i];
	*out = argv;
	return 0;
}

/* ---- the answer: ExecCredential -------------------------------------------- */

static int status_str(char **dst, json_object *status, const char *key, nl_err *err)
{
	json_object *v = NULL;
	if (!json_object_object_get_ex(status, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return nl_err_set(err, NL_EPARSE, "decoding stdout: status.%s: expected string",
		                  key);
	if (json_object_get_string_len(v) && !(*dst = strdup(json_object_get_string(v))))
		return nomem(err);
	return 0;
}

static int check_version(json_object *doc, const char *want, nl_err *err)
{
	const char *kind = json_object_get_string(json_object_object_get(doc, "kind"));
	const char *api = json_object_get_string(json_object_object_get(doc, "apiVersion"));
	if (!kind || !*kind)
		return nl_err_set(err, NL_EPARSE, "decoding stdout: Object 'Kind' is missing");
	int known = api && (strcmp(api, GROUP "/v1") == 0 || strcmp(api, GROUP "/v1beta1") == 0);
	if (!known || strcmp(kind, "ExecCredential") != 0)
		return nl_err_set(
		    err, NL_EPARSE,
		    "decoding stdout: no kind \"%s\" is registered for version \"%s\"", kind,
		    api ? api : "");
	if (strcmp(api, want) != 0)
		return nl_err_set(
		    err, NL_EPARSE,
		    "exec plugin is configured to use API version %s, plugin returned "
		    "version %s",
		    want, api);
	return 0;
}

static int read_status(nl_exec_credential *c, json_object *status, nl_err *err)
{
	char *cert = NULL, *key = NULL, *exp = NULL;
	int rc = status_str(&c->token, status, "token", err);
	if (!rc)
		rc = status_str(&cert, status, "clientCertificateData", err);
	if (!rc)
		rc = status_str(&key, status, "clientKeyData", err);
	if (!rc)
		rc = status_str(&exp, status, "expirationTimestamp", err);
	if (!rc && exp && nl_time_parse(&c->expiration_usec, exp))
		rc = nl_err_set(err, NL_EPARSE,
		                "decoding stdout: status.expirationTimestamp: invalid time \"%s\"",
		                exp);
	if (!rc && !c->token && !cert && !key)
		rc = nl_err_set(err, NL_EPARSE,
		                "exec plugin didn't return a token or cert/key pair");
	if (!rc && !cert != !key)
		rc = nl_err_set(err, NL_EPARSE,
		                "exec plugin returned only certificate or key, not both");
	if (!rc && cert) {
		c->cert_data = (unsigned char *)cert;
		c->cert_data_len = strlen(cert);
		c->key_data = (unsigned char *)key;
		c->key_data_len = strlen(key);
		cert = key = NULL;
	}
	free(cert);
	nl__free_secret_str(key);
	free(exp);
	return rc;
}

static int parse_credential(nl_exec_credential **out, const nl_buf *stdout_buf, const char *want,
                            nl_err *err)
{
	json_object *doc = NULL, *status = NULL;
	nl_err e = {0};
	if (nl_doc_parse_one(&doc, stdout_buf->data ? stdout_buf->data : "", stdout_buf->len,
	                     "stdout", &e))
		return nl_err_set(err, NL_EPARSE, "decoding stdout: %s", e.msg);
	int rc = 0;
	nl_exec_credential *c = NULL;
	if (!json_object_is_type(doc, json_type_object))
		rc = nl_err_set(err, NL_EPARSE, "decoding stdout: not an object");
	if (!rc)
		rc = check_version(doc, want, err);
	if (!rc && (!json_object_object_get_ex(doc, "status", &status) ||
	            !json_object_is_type(status, json_type_object)))
		rc = nl_err_set(err, NL_EPARSE, "exec plugin didn't return a status field");
	if (!rc && !(c = calloc(1, sizeof(*c))))
		rc = nomem(err);
	if (!rc)
		rc = read_status(c, status, err);
	json_object_put(doc);
	if (rc) {
		nl_exec_credential_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

/* ---- running it ------------------------------------------------------------ */

static int not_found(const nl_exec_config *e, nl_err *err)
{
	if (e->install_hint)
		return nl_err_set(err, NL_ENOTFOUND, "exec: executable %s not found%s\n\n%s",
		                  e->command, INSTALL_HELP, e->install_hint);
	return nl_err_set(err, NL_ENOTFOUND, "exec: executable %s not found%s", e->command,
	                  INSTALL_HELP);
}

static int check_mode(const nl_exec_config *e, nl_err *err)
{
	const char *mode = e->interactive_mode;
	if (strcmp(e->api_version, GROUP "/v1") && strcmp(e->api_version, GROUP "/v1beta1"))
		return nl_err_set(err, NL_ECONFIG, "exec plugin: invalid apiVersion \"%s\"",
		                  e->api_version);
	if (!mode || !strcmp(mode, "Never") || !strcmp(mode, "IfAvailable"))
		return 0;
	if (!strcmp(mode, "Always"))
		return nl_err_set(err, NL_ECONFIG,
		                  "exec plugin cannot support interactive mode: nodelet runs "
		                  "credential plugins without a terminal");
	return nl_err_set(err, NL_ECONFIG,
	                  "exec plugin cannot support interactive mode: unknown interactiveMode: "
	                  "\"%s\"",
	                  mode);
}

static int run_plugin(nl_exec_credential **out, const nl_rest_config *cfg, int timeout_ms,
                      nl_err *err)
{
	const nl_exec_config *e = cfg->exec;
	char *path = NULL, *info = NULL, **env = NULL, **argv = NULL;
	nl_buf stdout_buf;
	int nomem_flag;
	nl_buf_init(&stdout_buf, NL_EXEC_MAX_OUTPUT);
	int rc = check_mode(e, err);
	if (!rc && nl__exec_lookpath(&path, e->command, &nomem_flag))
		rc = nomem_flag ? nomem(err) : not_found(e, err);
	if (!rc)
		rc = exec_info(&info, cfg, err);
	if (!rc && (build_env(&env, e->env, info) || build_argv(&argv, e->command, e->args)))
		rc = nomem(err);
	if (!rc)
		rc = nl__exec_run(&stdout_buf, e->command, path, argv, env, timeout_ms,
		                  NL_EXEC_MAX_OUTPUT, err);
	if (!rc)
		rc = parse_credential(out, &stdout_buf, e->api_version, err);
	nl__free_secret(stdout_buf.data, stdout_buf.len);
	free(path);
	free(info);
	free(env);
	free(argv);
	return rc;
}

static int copy_credential(nl_exec_credential **out, const nl_exec_credential *src)
{
	nl_exec_credential *c = calloc(1, sizeof(*c));
	if (!c)
		return NL_ENOMEM;
	*c = *src;
	c->token = c->token ? strdup(src->token) : NULL;
	c->cert_data = c->cert_data ? (unsigned char *)strdup((const char *)src->cert_data) : NULL;
	c->key_data = c->key_data ? (unsigned char *)strdup((const char *)src->key_data) : NULL;
	if ((src->token && !c->token) || (src->cert_data && !c->cert_data) ||
	    (src->key_data && !c->key_data)) {
		nl_exec_credential_free(c);
		return NL_ENOMEM;
	}
	*out = c;
	return 0;
}

static int fresh(const nl_exec_cache *cache, const nl_exec_credential *rejected, int64_t now_usec)
{
	const nl_exec_credential *c = cache->cached;
	if (!c)
		return 0;
	if (rejected && rejected->generation == c->generation)
		return 0;
	/* client-go: expired once now is after expirationTimestamp */
	return !c->expiration_usec || now_usec <= c->expiration_usec;
}

int nl_exec_credential_get(nl_exec_credential **out, nl_exec_cache *cache,
                           const nl_rest_config *cfg, const nl_exec_credential *rejected,
                           int64_t now_usec, nl_err *err)
{
	if (!out || !cache || !cfg || !cfg->exec || !cfg->exec->command || !cfg->exec->api_version)
		return nl_err_set(err, NL_EINVAL, "nl_exec_credential_get: no exec configuration");
	int rc = 0;
	pthread_mutex_lock(&cache->lock);
	if (!fresh(cache, rejected, now_usec)) {
		nl_exec_credential *c = NULL;
		rc = run_plugin(&c, cfg, cache->timeout_ms, err);
		if (!rc) {
			c->generation = ++cache->runs;
			nl_exec_credential_free(cache->cached);
			cache->cached = c;
		}
	}
	if (!rc && copy_credential(out, cache->cached))
		rc = nomem(err);
	pthread_mutex_unlock(&cache->lock);
	return rc;
}
