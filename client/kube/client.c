/* The client handle: configuration checks, the URL and TLS name, the rate
 * limiter, and the blocking call. */
#include <errno.h>
#include <nodelet/platform.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <nodelet/protobuf.h>

#include "config.h"
#include "kube.h"

void nl_client_options_init(nl_client_options *o)
{
	memset(o, 0, sizeof(*o));
}

static void resolve_options(nl_client_options *dst, const nl_client_options *o)
{
	nl_client_options_init(dst);
	if (o)
		*dst = *o;
	if (dst->qps == 0)
		dst->qps = NL__DEFAULT_QPS;
	if (dst->burst <= 0)
		dst->burst = NL__DEFAULT_BURST;
	if (dst->max_retries == 0)
		dst->max_retries = NL__DEFAULT_MAX_RETRIES;
	if (dst->connect_timeout_ms <= 0)
		dst->connect_timeout_ms = NL__DEFAULT_CONNECT_TIMEOUT_MS;
	if (dst->timeout_ms == 0)
		dst->timeout_ms = NL__DEFAULT_TIMEOUT_MS;
	if (dst->max_body == 0)
		dst->max_body = NL__DEFAULT_MAX_BODY;
}

static int readable(const char *what, const char *path, const char *source, nl_err *err)
{
	FILE *f = fopen(path, "r");
	if (f) {
		fclose(f);
		return 0;
	}
	/* clientcmd's validation text. */
	return nl_err_set(err, NL_ECONFIG, "unable to read %s %s for %s due to %s", what, path,
	                  source, strerror(errno));
}

static int has_pem(const unsigned char *p, size_t len, const char *label)
{
	return p && memmem(p, len, label, strlen(label)) != NULL;
}

/* Refuse what client-go refuses, with its words, before any request. */
static int check_config(const nl_rest_config *cfg, nl_err *err)
{
	const char *src = cfg->source ? cfg->source : "the configuration";
	int rc;
	if (!cfg->server || !*cfg->server)
		return nl_err_set(err, NL_ECONFIG, "invalid configuration: no server found for %s",
		                  src);
	if (cfg->insecure_skip_tls_verify && (cfg->ca_file || cfg->ca_data))
		return nl_err_set(
		    err, NL_ECONFIG,
		    "specifying a root certificates file with the insecure flag is not allowed");
	if (cfg->ca_data && !has_pem(cfg->ca_data, cfg->ca_data_len, "-----BEGIN CERTIFICATE-----"))
		return nl_err_set(err, NL_ECONFIG,
		                  "unable to load root certificates: unable to parse bytes as PEM "
		                  "block (certificate-authority-data of %s)",
		                  src);
	if (!cfg->ca_data && cfg->ca_file &&
	    (rc = readable("certificate-authority", cfg->ca_file, src, err)))
		return rc;
	if (!cfg->cert_data && cfg->cert_file &&
	    (rc = readable("client-cert", cfg->cert_file, src, err)))
		return rc;
	if (!cfg->key_data && cfg->key_file &&
	    (rc = readable("client-key", cfg->key_file, src, err)))
		return rc;
	int has_cert = cfg->cert_data || cfg->cert_file, has_key = cfg->key_data || cfg->key_file;
	if (has_cert != has_key)
		return nl_err_set(err, NL_ECONFIG,
		                  "client-cert-data and client-key-data must both be specified for "
		                  "%s to use the clientCert authentication method",
		                  src);
	return 0;
}

/* The URL prefix, and with tls-server-name a CONNECT_TO entry: requests go
 * to https://<tls-server-name>:<port> (so SNI and certificate verification
 * use that name) while the TCP connection goes to the configured host. */
static int build_base(nl_client *c, nl_err *err)
{
	const nl_rest_config *cfg = c->cfg;
	char *url = NULL;
	/* client-go's DefaultServerURL: a bare host:port means https. */
	if (!strstr(cfg->server, "://")) {
		size_t n = strlen(cfg->server) + 9;
		url = malloc(n);
		if (url)
			snprintf(url, n, "https://%s", cfg->server);
	} else {
		url = strdup(cfg->server);
	}
	if (!url)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	size_t len = strlen(url);
	while (len > 0 && url[len - 1] == '/')
		url[--len] = '\0';
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *port = NULL;
	int rc = 0;
	if (!u || curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) != CURLUE_OK) {
		rc = nl_err_set(err, NL_ECONFIG, "host must be a URL or a host:port pair: \"%s\"",
		                cfg->server);
		goto done;
	}
	if (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0) {
		rc = nl_err_set(err, NL_ECONFIG, "unsupported scheme \"%s\" in server \"%s\"",
		                scheme, cfg->server);
		goto done;
	}
	if (cfg->tls_server_name && *cfg->tls_server_name && strcmp(scheme, "https") == 0) {
		char entry[1024];
		snprintf(entry, sizeof(entry), "%s:%s:%s:%s", cfg->tls_server_name, port, host,
		         port);
		c->connect_to = curl_slist_append(NULL, entry);
		if (!c->connect_to || curl_url_set(u, CURLUPART_HOST, cfg->tls_server_name, 0) ||
		    curl_url_set(u, CURLUPART_PORT, port, 0)) {
			rc = nl_err_set(err, NL_ECONFIG, "invalid tls-server-name \"%s\"",
			                cfg->tls_server_name);
			goto done;
		}
		free(url);
		url = NULL;
		if (curl_url_get(u, CURLUPART_URL, &url, 0) != CURLUE_OK) {
			rc = nl_err_set(err, NL_ENOMEM, "out of memory");
			goto done;
		}
		char *copy = strdup(url);
		curl_free(url);
		url = copy;
		len = url ? strlen(url) : 0;
		while (len > 0 && url[len - 1] == '/')
			url[--len] = '\0';
	}
	c->base = url;
	url = NULL;
	if (!c->base)
		rc = nl_err_set(err, NL_ENOMEM, "out of memory");
done:
	free(url);
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_url_cleanup(u);
	return rc;
}

static void share_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *userp)
{
	nl_client *c = userp;
	(void)h;
	(void)access;
	pthread_mutex_lock(&c->share_locks[data]);
}

static void share_unlock(CURL *h, curl_lock_data data, void *userp)
{
	nl_client *c = userp;
	(void)h;
	pthread_mutex_unlock(&c->share_locks[data]);
}

static CURLSH *new_share(nl_client *c)
{
	CURLSH *sh = curl_share_init();
	if (!sh)
		return NULL;
	curl_share_setopt(sh, CURLSHOPT_LOCKFUNC, share_lock);
	curl_share_setopt(sh, CURLSHOPT_UNLOCKFUNC, share_unlock);
	curl_share_setopt(sh, CURLSHOPT_USERDATA, c);
	curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
	curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
	curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
	return sh;
}

static int setup_share(nl_client *c)
{
	for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_init(&c->share_locks[i], NULL);
	pthread_rwlock_init(&c->share_rw, NULL);
	c->share = new_share(c);
	return c->share ? 0 : NL_ENOMEM;
}

int nl_client_reset_connections(nl_client *c)
{
	/* The new share reuses the per-kind mutexes: the old one is idle. */
	CURLSH *fresh = new_share(c), *old;
	if (!fresh)
		return NL_ENOMEM;
	pthread_rwlock_wrlock(&c->share_rw);
	old = c->share;
	c->share = fresh;
	pthread_rwlock_unlock(&c->share_rw);
	/* No easy handle is attached any more: this closes every connection. */
	curl_share_cleanup(old);
	return 0;
}

int nl_client_new(nl_client **out, const nl_rest_config *cfg, const nl_client_options *o,
                  nl_err *err)
{
	int rc;
	if (!cfg)
		return nl_err_set(err, NL_EINVAL, "no configuration");
	if ((rc = check_config(cfg, err)) != 0)
		return rc;
	if (o && !nl_content_type_name(o->content_type))
		return nl_err_set(err, NL_EINVAL, "unknown content type %d", (int)o->content_type);
	nl_client *c = calloc(1, sizeof(*c));
	if (!c)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	for (int i = 0; i < NL__POOLS; i++)
		nl__easy_pool_init(&c->pools[i]);
	snprintf(c->hdr_accept, sizeof(c->hdr_accept), "Accept: %s",
	         o && o->content_type == NL_CONTENT_PROTOBUF ? NL_ACCEPT_PROTOBUF
	                                                     : NL_CONTENT_TYPE_JSON);
	snprintf(c->hdr_ctype, sizeof(c->hdr_ctype), "Content-Type: application/json");
	snprintf(c->hdr_ctype_pb, sizeof(c->hdr_ctype_pb), "Content-Type: %s", NL_PB_CONTENT_TYPE);
	snprintf(c->hdr_expect, sizeof(c->hdr_expect), "Expect:");
	snprintf(c->hdr_encoding, sizeof(c->hdr_encoding), "Accept-Encoding: gzip");
	resolve_options(&c->opts, o);
	if (nl__config_copy(&c->cfg, cfg) != 0 || setup_share(c) != 0) {
		rc = nl_err_set(err, NL_ENOMEM, "out of memory");
		goto fail;
	}
	if ((rc = build_base(c, err)) != 0)
		goto fail;
	nl__request_metrics_init(&c->metrics, c->base);
	c->metrics_ready = 1;
	c->namespace_ = c->cfg->namespace_ && *c->cfg->namespace_ ? c->cfg->namespace_ : "default";
	if (c->opts.user_agent)
		snprintf(c->user_agent, sizeof(c->user_agent), "%s", c->opts.user_agent);
	else
		snprintf(c->user_agent, sizeof(c->user_agent), "nodelet/%s (%s/%s)",
		         PACKAGE_VERSION, nl_platform_os(), nl_platform_arch());
	c->opts.user_agent = NULL; /* borrowed from the caller: copied above */
	if (strncmp(c->base, "http://", 7) == 0)
		snprintf(c->hdr_user_agent, sizeof(c->hdr_user_agent), "User-Agent: %s",
		         c->user_agent);
	c->loop = c->opts.loop;
	if (!c->loop) {
		nl_loop_options lo;
		nl_loop_options_init(&lo);
		lo.clock = c->opts.clock;
		if ((rc = nl_loop_new(&c->loop, &lo)) != 0) {
			nl_err_set(err, rc, "cannot create the event loop");
			goto fail;
		}
		c->own_loop = 1;
	}
	c->clock = nl_loop_clock(c->loop);
	if ((rc = nl_ratelimit_new(&c->rl, c->opts.qps, c->opts.burst, c->clock)) != 0) {
		nl_err_set(err, rc, "invalid rate limit: qps %g, burst %d", c->opts.qps,
		           c->opts.burst);
		goto fail;
	}
	if (c->cfg->exec && (rc = nl_exec_cache_new(&c->exec, 0)) != 0) {
		nl_err_set(err, rc, "out of memory");
		goto fail;
	}
	*out = c;
	return 0;
fail:
	nl_client_free(c);
	return rc;
}

void nl_client_free(nl_client *c)
{
	if (!c)
		return;
	nl__client_cancel_all(c);
	for (int i = 0; i < NL__POOLS; i++)
		nl__easy_pool_free(&c->pools[i]);
	if (c->share)
		curl_share_cleanup(c->share);
	for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_destroy(&c->share_locks[i]);
	pthread_rwlock_destroy(&c->share_rw);
	if (c->metrics_ready)
		nl__request_metrics_destroy(&c->metrics);
	curl_slist_free_all(c->connect_to);
	nl_ratelimit_free(c->rl);
	nl_exec_cache_free(c->exec);
	if (c->own_loop)
		nl_loop_free(c->loop);
	nl_rest_config_free(c->cfg);
	free(c->base);
	free(c);
}

nl_loop *nl_client_loop(const nl_client *c)
{
	return c->loop;
}

nl_clock *nl_client_clock(const nl_client *c)
{
	return c->clock;
}

const char *nl_client_namespace(const nl_client *c)
{
	return c->namespace_;
}

const char *nl_client_server(const nl_client *c)
{
	return c->base;
}

nl_content_type nl_client_content_type(const nl_client *c)
{
	return c->opts.content_type;
}

const char *nl_content_type_name(nl_content_type t)
{
	switch (t) {
	case NL_CONTENT_JSON:
		return NL_CONTENT_TYPE_JSON;
	case NL_CONTENT_PROTOBUF:
		return NL_PB_CONTENT_TYPE;
	}
	return NULL;
}

int nl_content_type_parse(nl_content_type *out, const char *media_type)
{
	if (media_type && strcmp(media_type, NL_CONTENT_TYPE_JSON) == 0)
		*out = NL_CONTENT_JSON;
	else if (media_type && strcmp(media_type, NL_PB_CONTENT_TYPE) == 0)
		*out = NL_CONTENT_PROTOBUF;
	else
		return NL_EINVAL;
	return 0;
}

int nl_client_do(nl_response *out, nl_client *c, const nl_request *req, nl_result *res)
{
	nl_result local = NL_RESULT_INIT;
	nl_result *r = res ? res : &local;
	nl__xfer x;
	nl__result_reset(r);
	int rc = nl__xfer_init(&x, c, req, NL__POOL_BLOCKING, r);
	if (rc != 0)
		goto done;
	for (;;) {
		int64_t wait = 0;
		/* A stopped clock is a shutdown: nothing more goes out. */
		if (nl_clock_stopped(c->clock) || nl_ratelimit_wait(c->rl) != 0) {
			rc = NL_ECANCELED;
			break;
		}
		if ((rc = nl__xfer_begin(&x, r)) != 0)
			break;
		/* Attached per attempt, so nl_client_reset_connections can swap
		 * the share between attempts. */
		pthread_rwlock_rdlock(&c->share_rw);
		curl_easy_setopt(x.easy, CURLOPT_SHARE, c->share);
		CURLcode cc = curl_easy_perform(x.easy);
		curl_easy_setopt(x.easy, CURLOPT_SHARE, NULL);
		pthread_rwlock_unlock(&c->share_rw);
		rc = nl__xfer_outcome(&x, cc, r, &wait);
		if (rc != NL__RETRY)
			break;
		if (nl_clock_sleep(c->clock, wait) != 0) {
			rc = NL_ECANCELED;
			break;
		}
	}
	if (rc == NL_ECANCELED)
		nl__result_fail(r, rc, "%s %s: canceled: the clock was stopped", x.method, x.url);
	else if (rc == 0 && out && (rc = nl__xfer_response(out, &x)) != 0)
		nl__result_fail(r, rc, "out of memory");
	nl__xfer_recycle(&x);
	nl__xfer_free(&x);
done:
	if (!res)
		nl__result_reset(&local);
	return rc;
}
