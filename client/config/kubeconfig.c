/* kubectl's kubeconfig loading (k8s.io/client-go/tools/clientcmd): which
 * files, how they merge, which context, what makes it unusable (with
 * clientcmd's messages), and the resulting nl_rest_config. */
#include "kubeconfig.h"
#include "internal.h"

#include <nodelet/doc.h>
#include <nodelet/names.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define EXEC_V1 "client.authentication.k8s.io/v1"
#define EXEC_V1BETA1 "client.authentication.k8s.io/v1beta1"

static int nomem(nl_err *err)
{
	return nl_err_set(err, NL_ENOMEM, "out of memory");
}

/* ---- which files ----------------------------------------------------------- */

/* Decode one file and merge it into m. A missing file is skipped (*missing
 * set) so that $KUBECONFIG may name files that do not exist. */
static int load_file(struct kc_config *m, const char *file, int *missing, nl_err *err)
{
	struct stat st;
	char *buf;
	size_t len;
	nl_err e = {0};
	struct kc_config one;
	*missing = 0;
	if (stat(file, &st) != 0 && (errno == ENOENT || errno == ENOTDIR)) {
		*missing = 1;
		return 0;
	}
	int rc = nl_file_read(&buf, &len, file, NL_DOC_MAX_FILE, &e);
	if (rc == 0) {
		rc = nl__kc_decode(&one, buf, len, file, &e);
		nl__free_secret(buf, len);
	}
	if (rc)
		return nl_err_set(err, rc, "error loading config file \"%s\": %s", file, e.msg);
	if (nl__kc_merge(m, &one))
		return nomem(err);
	return 0;
}

static int seen_before(const char *list, const char *start, size_t len)
{
	for (const char *p = list; p < start;) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n == len && memcmp(p, start, len) == 0)
			return 1;
		p += n + 1;
	}
	return 0;
}

/* $KUBECONFIG: filepath.SplitList, empty entries and repeats ignored. */
static int load_env_list(struct kc_config *m, const char *list, nl_err *err)
{
	const char *p = list;
	while (*p) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n > 0 && !seen_before(list, p, n)) {
			char *file = strndup(p, n);
			int missing;
			if (!file)
				return nomem(err);
			int rc = load_file(m, file, &missing, err);
			free(file);
			if (rc)
				return rc;
		}
		p += n;
		if (*p == ':')
			p++;
	}
	return 0;
}

static int load_files(struct kc_config *m, const char *path, nl_err *err)
{
	int missing;
	if (path && *path) {
		struct stat st;
		/* A file asked for by name must exist (clientcmd: os.Stat's error). */
		if (stat(path, &st) != 0 && errno == ENOENT)
			return nl_err_set(err, NL_EIO, "stat %s: no such file or directory", path);
		int rc = load_file(m, path, &missing, err);
		if (!rc && missing)
			rc = nl_err_set(err, NL_EIO, "stat %s: %s", path, strerror(ENOENT));
		return rc;
	}
	const char *env = getenv("KUBECONFIG");
	if (env && *env)
		return load_env_list(m, env, err);
	const char *home = getenv("HOME");
	if (!home || !*home)
		return 0;
	char *file = nl__path_join(home, ".kube/config");
	if (!file)
		return nomem(err);
	int rc = load_file(m, file, &missing, err);
	free(file);
	return rc;
}

/* ---- which context --------------------------------------------------------- */

static const struct kc_context *find_context(const struct kc_config *m, const char *name)
{
	for (size_t i = 0; i < m->ncontexts; i++)
		if (strcmp(m->contexts[i].name ? m->contexts[i].name : "", name) == 0)
			return &m->contexts[i];
	return NULL;
}

static struct kc_cluster *find_cluster(struct kc_config *m, const char *name)
{
	for (size_t i = 0; name && i < m->nclusters; i++)
		if (strcmp(m->clusters[i].name ? m->clusters[i].name : "", name) == 0)
			return &m->clusters[i];
	return NULL;
}

static struct kc_user *find_user(struct kc_config *m, const char *name)
{
	for (size_t i = 0; name && i < m->nusers; i++)
		if (strcmp(m->users[i].name ? m->users[i].name : "", name) == 0)
			return &m->users[i];
	return NULL;
}

static int select_context(const struct kc_context **out, const struct kc_config *m,
                          const char *chosen, int *no_config, nl_err *err)
{
	int empty = !m->nclusters && !m->nusers && !m->ncontexts && !m->current_context;
	const char *name = chosen && *chosen ? chosen : m->current_context;
	const struct kc_context *ctx = name ? find_context(m, name) : NULL;
	if (chosen && *chosen && !ctx) {
		*no_config = empty;
		return nl_err_set(err, NL_ECONFIG, "context \"%s\" does not exist", chosen);
	}
	if (empty) {
		*no_config = 1;
		return nl_err_set(err, NL_ECONFIG,
		                  "invalid configuration: no configuration has been provided, try "
		                  "setting KUBERNETES_MASTER environment variable");
	}
	if (!name)
		return nl_err_set(err, NL_ECONFIG,
		                  "invalid configuration: no context chosen (current-context is "
		                  "not set and no context was given)");
	if (!ctx)
		return nl_err_set(err, NL_ECONFIG,
		                  "invalid configuration: context was not found for specified "
		                  "context: %s",
		                  name);
	*out = ctx;
	return 0;
}

/* ---- relative paths -------------------------------------------------------- */

static int resolve(char **ref, const char *base)
{
	if (!*ref || (*ref)[0] == '/')
		return 0;
	char *abs = nl__path_join(base, *ref);
	if (!abs)
		return -1;
	free(*ref);
	*ref = abs;
	return 0;
}

/* clientcmd's ResolveLocalPaths, for the entries in use. */
static int resolve_paths(struct kc_cluster *c, struct kc_user *u, nl_err *err)
{
	char *base;
	int bad = 0;
	if (c && c->origin) {
		if (!(base = nl__path_abs_dir(c->origin)))
			return nomem(err);
		bad |= resolve(&c->ca_file, base);
		free(base);
	}
	if (u && u->origin) {
		if (!(base = nl__path_abs_dir(u->origin)))
			return nomem(err);
		bad |= resolve(&u->cert_file, base) | resolve(&u->key_file, base) |
		       resolve(&u->token_file, base);
		/* a bare command name is looked up in $PATH instead */
		if (u->exec && u->exec->command && strchr(u->exec->command, '/'))
			bad |= resolve(&u->exec->command, base);
		free(base);
	}
	return bad ? nomem(err) : 0;
}

/* ---- what makes it unusable (clientcmd validation.go) ---------------------- */

static void check_context(nl__errlist *l, const struct kc_context *ctx, struct kc_config *m)
{
	const char *name = ctx->name ? ctx->name : "";
	char why[512];
	if (!ctx->cluster)
		nl__errlist_add(l, "cluster was not specified for context \"%s\"", name);
	else if (!find_cluster(m, ctx->cluster))
		nl__errlist_add(l, "cluster \"%s\" was not found for context \"%s\"", ctx->cluster,
		                name);
	if (ctx->user && !find_user(m, ctx->user))
		nl__errlist_add(l, "user \"%s\" was not found for context \"%s\"", ctx->user, name);
	if (ctx->namespace_ && nl_name_is_dns1123_label(ctx->namespace_, why, sizeof(why)))
		nl__errlist_add(l,
		                "namespace \"%s\" for context \"%s\" does not conform to the "
		                "kubernetes DNS_LABEL rules",
		                ctx->namespace_, name);
}

/* net/url's scheme: letters first, then letters, digits, '+', '-', '.'. */
static void url_scheme(char *out, size_t cap, const char *url)
{
	size_t n = 0;
	out[0] = '\0';
	for (const char *p = url; *p && *p != ':'; p++, n++)
		if (!(isalpha((unsigned char)*p) ||
		      (n > 0 && (isdigit((unsigned char)*p) || strchr("+-.", *p)))))
			return;
	if (url[n] != ':' || n == 0 || n >= cap)
		return;
	for (size_t i = 0; i < n; i++)
		out[i] = (char)tolower((unsigned char)url[i]);
	out[n] = '\0';
}

static void check_cluster(nl__errlist *l, const struct kc_cluster *c)
{
	const char *name = c->name ? c->name : "";
	char why[600], scheme[32];
	if (!c->server)
		nl__errlist_add(l, "no server found for cluster \"%s\"", name);
	if (c->proxy_url) {
		url_scheme(scheme, sizeof(scheme), c->proxy_url);
		if (strcmp(scheme, "http") && strcmp(scheme, "https") && strcmp(scheme, "socks5"))
			nl__errlist_add(
			    l,
			    "invalid 'proxy-url' \"%s\" for cluster \"%s\": unsupported "
			    "scheme \"%s\", must be http, https, or socks5",
			    c->proxy_url, name, scheme);
	}
	if (c->ca_file && c->ca_data)
		nl__errlist_add(l,
		                "certificate-authority-data and certificate-authority are both "
		                "specified for %s. certificate-authority-data will override.",
		                name);
	if (c->ca_file && nl__check_readable(c->ca_file, why, sizeof(why)))
		nl__errlist_add(l, "unable to read certificate-authority %s for %s due to %s",
		                c->ca_file, name, why);
	/* rest.Config's TLS check, reported here rather than at first request */
	if (c->insecure && (c->ca_file || c->ca_data))
		nl__errlist_add(l, "specifying a root certificates file with the insecure flag is "
		                   "not allowed");
}

static void check_client_cert(nl__errlist *l, const struct kc_user *u, const char *name)
{
	char why[600];
	if (u->cert_file && u->cert_data)
		nl__errlist_add(l,
		                "client-cert-data and client-cert are both specified for %s. "
		                "client-cert-data will override.",
		                name);
	if (u->key_file && u->key_data)
		nl__errlist_add(l,
		                "client-key-data and client-key are both specified for %s; "
		                "client-key-data will override",
		                name);
	if (!u->key_file && !u->key_data)
		nl__errlist_add(l,
		                "client-key-data or client-key must be specified for %s to use the "
		                "clientCert authentication method.",
		                name);
	if (u->cert_file && nl__check_readable(u->cert_file, why, sizeof(why)))
		nl__errlist_add(l, "unable to read client-cert %s for %s due to %s", u->cert_file,
		                name, why);
	if (u->key_file && nl__check_readable(u->key_file, why, sizeof(why)))
		nl__errlist_add(l, "unable to read client-key %s for %s due to %s", u->key_file,
		                name, why);
}

static void check_exec(nl__errlist *l, const struct kc_user *u, const char *name)
{
	const nl_exec_config *e = u->exec;
	const char *mode = e->interactive_mode;
	if (!e->command)
		nl__errlist_add(
		    l, "command must be specified for %s to use exec authentication plugin", name);
	if (!e->api_version)
		nl__errlist_add(
		    l, "apiVersion must be specified for %s to use exec authentication plugin",
		    name);
	else if (strcmp(e->api_version, EXEC_V1) && strcmp(e->api_version, EXEC_V1BETA1))
		nl__errlist_add(l, "exec plugin: invalid apiVersion \"%s\"", e->api_version);
	if (u->exec_unnamed_env)
		nl__errlist_add(l,
		                "env variable name must be specified for %s to use exec "
		                "authentication plugin",
		                name);
	if (!mode)
		nl__errlist_add(
		    l, "interactiveMode must be specified for %s to use exec authentication plugin",
		    name);
	else if (strcmp(mode, "Never") && strcmp(mode, "IfAvailable") && strcmp(mode, "Always"))
		nl__errlist_add(l, "invalid interactiveMode for %s: \"%s\"", name, mode);
}

static void check_user(nl__errlist *l, const struct kc_user *u)
{
	const char *name = u->name ? u->name : "";
	int token = u->token != NULL, basic = u->username || u->password;
	if (u->cert_file || u->cert_data)
		check_client_cert(l, u, name);
	if (u->exec)
		check_exec(l, u, name);
	if (token && basic)
		nl__errlist_add(l,
		                "more than one authentication method found for %s; found [token "
		                "basicAuth], only one is allowed",
		                name);
}

static int validate(const struct kc_context *ctx, struct kc_config *m, struct kc_cluster *c,
                    struct kc_user *u, nl_err *err)
{
	nl__errlist l;
	nl__errlist_init(&l);
	check_context(&l, ctx, m);
	if (u)
		check_user(&l, u);
	if (c)
		check_cluster(&l, c);
	if (l.count == 0 && !l.failed) {
		nl__errlist_free(&l);
		return 0;
	}
	return nl__errlist_finish(&l, err, NL_ECONFIG, "invalid configuration: ");
}

/* ---- the result ------------------------------------------------------------ */

#define STEAL(dst, src)        \
	do {                   \
		(dst) = (src); \
		(src) = NULL;  \
	} while (0)

static void take_cluster(nl_rest_config *r, struct kc_cluster *c)
{
	STEAL(r->server, c->server);
	/* "https://h:6443/" and "https://h:6443" name the same server */
	const char *sep = strstr(r->server, "://");
	size_t n = strlen(r->server), keep = sep ? (size_t)(sep - r->server) + 4 : 1;
	while (n > keep && r->server[n - 1] == '/')
		r->server[--n] = '\0';
	STEAL(r->tls_server_name, c->tls_server_name);
	r->insecure_skip_tls_verify = c->insecure;
	STEAL(r->ca_file, c->ca_file);
	STEAL(r->ca_data, c->ca_data);
	r->ca_data_len = c->ca_data_len;
	STEAL(r->proxy_url, c->proxy_url);
}

/* clientcmd's getUserIdentificationPartialConfig: a token wins over the file
 * (which still rotates it); otherwise the file is read now. */
static int take_user(nl_rest_config *r, struct kc_user *u, nl_err *err)
{
	STEAL(r->cert_file, u->cert_file);
	STEAL(r->cert_data, u->cert_data);
	r->cert_data_len = u->cert_data_len;
	STEAL(r->key_file, u->key_file);
	STEAL(r->key_data, u->key_data);
	r->key_data_len = u->key_data_len;
	STEAL(r->username, u->username);
	STEAL(r->password, u->password);
	STEAL(r->exec, u->exec);
	STEAL(r->bearer_token, u->token);
	STEAL(r->bearer_token_file, u->token_file);
	if (!r->bearer_token && r->bearer_token_file)
		return nl__token_file_read(&r->bearer_token, r->bearer_token_file, err);
	return 0;
}

static int build(nl_rest_config **out, const struct kc_context *ctx, struct kc_cluster *c,
                 struct kc_user *u, nl_err *err)
{
	nl_rest_config *r = calloc(1, sizeof(*r));
	int failed = 0;
	if (!r)
		return nomem(err);
	take_cluster(r, c);
	r->namespace_ = nl__strdup_opt(ctx->namespace_, &failed);
	r->source = nl__strdup_opt(ctx->origin, &failed);
	int rc = failed ? nomem(err) : 0;
	if (!rc && u)
		rc = take_user(r, u, err);
	if (rc) {
		nl_rest_config_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

int nl__kubeconfig_load(nl_rest_config **out, const char *path, const char *context, int *no_config,
                        nl_err *err)
{
	struct kc_config m = {0};
	const struct kc_context *ctx = NULL;
	*no_config = 0;
	if (!out)
		return nl_err_set(err, NL_EINVAL, "nl_kubeconfig_load: out is NULL");
	int rc = load_files(&m, path, err);
	if (!rc)
		rc = select_context(&ctx, &m, context, no_config, err);
	if (rc)
		goto done;
	struct kc_cluster *c = find_cluster(&m, ctx->cluster);
	struct kc_user *u = find_user(&m, ctx->user);
	rc = resolve_paths(c, u, err);
	if (!rc)
		rc = validate(ctx, &m, c, u, err);
	if (!rc)
		rc = build(out, ctx, c, u, err);
done:
	nl__kc_config_free(&m);
	return rc;
}

int nl_kubeconfig_load(nl_rest_config **out, const char *path, const char *context, nl_err *err)
{
	int no_config;
	return nl__kubeconfig_load(out, path, context, &no_config, err);
}
