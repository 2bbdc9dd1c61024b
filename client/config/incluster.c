/* client-go's rest.InClusterConfig: the API server a pod reaches through the
 * kubernetes Service, authenticated with the projected service account
 * token, which the kubelet rotates (hence bearer_token_file). */
#include "internal.h"

#include <nodelet/doc.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nomem(nl_err *err)
{
	return nl_err_set(err, NL_ENOMEM, "out of memory");
}

/* net.JoinHostPort: an IPv6 literal needs brackets in a URL. */
static int make_server(char **out, const char *host, const char *port)
{
	int v6 = strchr(host, ':') != NULL;
	if (asprintf(out, "https://%s%s%s:%s", v6 ? "[" : "", host, v6 ? "]" : "", port) < 0)
		return -1;
	return 0;
}

/* client-go keeps ca.crt only when it parses as a certificate pool, and
 * otherwise falls back to the system roots; the PEM marker is the part of
 * that check that needs no TLS library (the transport parses it fully). */
static int usable_ca(const char *path)
{
	char *buf;
	size_t len;
	if (nl_file_read(&buf, &len, path, NL__SMALL_FILE_MAX, NULL))
		return 0;
	int ok = strstr(buf, "-----BEGIN CERTIFICATE-----") != NULL;
	free(buf);
	return ok;
}

/* $POD_NAMESPACE (downward API), else the account's namespace file. */
static int read_namespace(char **out, const char *sa_dir)
{
	const char *env = getenv("POD_NAMESPACE");
	char *path, *buf;
	size_t len;
	*out = NULL;
	if (env && *env)
		return (*out = strdup(env)) ? 0 : -1;
	if (!(path = nl__path_join(sa_dir, "namespace")))
		return -1;
	int rc = nl_file_read(&buf, &len, path, NL__SMALL_FILE_MAX, NULL);
	free(path);
	if (rc)
		return rc == NL_ENOMEM ? -1 : 0;
	size_t s = 0;
	while (s < len && isspace((unsigned char)buf[s]))
		s++;
	while (len > s && isspace((unsigned char)buf[len - 1]))
		len--;
	if (len > s && !(*out = strndup(buf + s, len - s))) {
		free(buf);
		return -1;
	}
	free(buf);
	return 0;
}

static int fill(nl_rest_config *r, const char *sa_dir, const char *host, const char *port,
                nl_err *err)
{
	char *ca;
	if (make_server(&r->server, host, port))
		return nomem(err);
	if (!(r->bearer_token_file = nl__path_join(sa_dir, "token")))
		return nomem(err);
	int rc = nl__token_file_read(&r->bearer_token, r->bearer_token_file, err);
	if (rc)
		return rc;
	if (!(ca = nl__path_join(sa_dir, "ca.crt")))
		return nomem(err);
	if (usable_ca(ca))
		r->ca_file = ca;
	else
		free(ca);
	if (read_namespace(&r->namespace_, sa_dir) || !(r->source = strdup("in-cluster")))
		return nomem(err);
	return 0;
}

int nl_incluster_load(nl_rest_config **out, const char *sa_dir, nl_err *err)
{
	const char *host = getenv("KUBERNETES_SERVICE_HOST");
	const char *port = getenv("KUBERNETES_SERVICE_PORT");
	if (!out)
		return nl_err_set(err, NL_EINVAL, "nl_incluster_load: out is NULL");
	if (!host || !*host || !port || !*port)
		return nl_err_set(
		    err, NL_ECONFIG,
		    "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST "
		    "and KUBERNETES_SERVICE_PORT must be defined");
	nl_rest_config *r = calloc(1, sizeof(*r));
	if (!r)
		return nomem(err);
	int rc = fill(r, sa_dir && *sa_dir ? sa_dir : NL__SA_DIR, host, port, err);
	if (rc) {
		nl_rest_config_free(r);
		return rc;
	}
	*out = r;
	return 0;
}
