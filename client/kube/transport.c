/* One HTTP request on a libcurl easy handle: TLS, proxy and credentials from
 * the client's config, buffering or streaming of the answer, and the verdict
 * on each attempt (success, client-go's retry rule, or an nl_result). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <nodelet/protobuf.h>

#include "kube.h"

static void target_from_path(nl__target *t, const char *path, char *buf, size_t buflen);

/* ---- easy handle options ------------------------------------------------------ */

/* TLS/proxy/auth options of the client on an easy handle. */
static int easy_setup(nl_client *c, CURL *easy, nl_result *res)
{
	const nl_rest_config *cfg = c->cfg;
	CURLcode cc = CURLE_OK;
#define SET(opt, val)                                          \
	do {                                                   \
		if (cc == CURLE_OK)                            \
			cc = curl_easy_setopt(easy, opt, val); \
	} while (0)
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	SET(CURLOPT_ACCEPT_ENCODING, "gzip");
	/* Over https a proxy's CONNECT carries only libcurl's own User-Agent
	 * (custom headers go to the server alone); over plain http the
	 * client's header line is the same bytes without libcurl formatting
	 * them twice per request. */
	if (!c->hdr_user_agent[0])
		SET(CURLOPT_USERAGENT, c->user_agent);
	SET(CURLOPT_CONNECTTIMEOUT_MS, c->opts.connect_timeout_ms);
	SET(CURLOPT_TCP_KEEPALIVE, 1L);
	SET(CURLOPT_TCP_KEEPIDLE, 30L);
	SET(CURLOPT_TCP_KEEPINTVL, 30L);
	SET(CURLOPT_PROTOCOLS_STR, "http,https");
	SET(CURLOPT_FOLLOWLOCATION, 0L);
	if (c->connect_to)
		SET(CURLOPT_CONNECT_TO, c->connect_to);
	if (cfg->insecure_skip_tls_verify) {
		SET(CURLOPT_SSL_VERIFYPEER, 0L);
		SET(CURLOPT_SSL_VERIFYHOST, 0L);
	} else {
		SET(CURLOPT_SSL_VERIFYPEER, 1L);
		SET(CURLOPT_SSL_VERIFYHOST, 2L);
	}
	if (cfg->ca_data) {
		/* In memory: inline credentials never touch the disk. */
		struct curl_blob blob = {cfg->ca_data, cfg->ca_data_len, CURL_BLOB_COPY};
		SET(CURLOPT_CAINFO_BLOB, &blob);
	} else if (cfg->ca_file) {
		SET(CURLOPT_CAINFO, cfg->ca_file);
	}
	if (cfg->cert_data) {
		struct curl_blob blob = {cfg->cert_data, cfg->cert_data_len, CURL_BLOB_COPY};
		SET(CURLOPT_SSLCERT_BLOB, &blob);
		SET(CURLOPT_SSLCERTTYPE, "PEM");
	} else if (cfg->cert_file) {
		SET(CURLOPT_SSLCERT, cfg->cert_file);
		SET(CURLOPT_SSLCERTTYPE, "PEM");
	}
	if (cfg->key_data) {
		struct curl_blob blob = {cfg->key_data, cfg->key_data_len, CURL_BLOB_COPY};
		SET(CURLOPT_SSLKEY_BLOB, &blob);
		SET(CURLOPT_SSLKEYTYPE, "PEM");
	} else if (cfg->key_file) {
		SET(CURLOPT_SSLKEY, cfg->key_file);
		SET(CURLOPT_SSLKEYTYPE, "PEM");
	}
	if (cfg->proxy_url)
		SET(CURLOPT_PROXY, cfg->proxy_url);
	if (cfg->username && cfg->password && !cfg->bearer_token && !cfg->bearer_token_file) {
		SET(CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		SET(CURLOPT_USERNAME, cfg->username);
		SET(CURLOPT_PASSWORD, cfg->password);
	}
#undef SET
	if (cc != CURLE_OK)
		return nl__result_fail(res, NL_ECONFIG, "libcurl refused an option: %s",
		                       curl_easy_strerror(cc));
	return 0;
}

/* ---- the easy handle pool ------------------------------------------------------ */

void nl__easy_pool_init(nl__easy_pool *p)
{
	pthread_mutex_init(&p->mu, NULL);
	p->n = 0;
}

void nl__easy_pool_free(nl__easy_pool *p)
{
	while (p->n > 0)
		curl_easy_cleanup(p->idle[--p->n]);
	pthread_mutex_destroy(&p->mu);
}

static CURL *pool_take(nl__easy_pool *p)
{
	CURL *h = NULL;
	pthread_mutex_lock(&p->mu);
	if (p->n > 0)
		h = p->idle[--p->n];
	pthread_mutex_unlock(&p->mu);
	return h;
}

/* 0 when the pool is full. */
static int pool_put(nl__easy_pool *p, CURL *h)
{
	int kept = 0;
	pthread_mutex_lock(&p->mu);
	if (p->n < NL__EASY_POOL_MAX) {
		p->idle[p->n++] = h;
		kept = 1;
	}
	pthread_mutex_unlock(&p->mu);
	return kept;
}

void nl__xfer_recycle(nl__xfer *x)
{
	CURL *h = x->easy;
	if (!h)
		return;
	x->easy = NULL;
	if (x->io)
		x->io->easy = NULL;
	/* A reset handle keeps its connections' caches (and, blocking, its
	 * private multi) but no option of this request: no method, body,
	 * header list, callback or pointer into x reaches the next one. An
	 * exec plugin's certificate is dropped with the handle instead, so
	 * a refused credential cannot outlive its request. */
	if (x->tainted || !x->pool) {
		curl_easy_cleanup(h);
		return;
	}
	curl_easy_reset(h);
	if (!pool_put(x->pool, h))
		curl_easy_cleanup(h);
}

/* ---- callbacks ---------------------------------------------------------------- */

/* Copy a header's value into dst when line is "name: value". */
static int header_value(char *dst, size_t dstlen, const char *line, size_t n, const char *name)
{
	size_t k = strlen(name);
	if (n <= k || strncasecmp(line, name, k) != 0 || line[k] != ':')
		return 0;
	const char *v = line + k + 1;
	const char *end = line + n;
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' '))
		end--;
	size_t vl = (size_t)(end - v);
	size_t used = strlen(dst);
	if (used > 0) { /* repeated header: join as one list */
		if (used + 2 >= dstlen)
			return 1;
		memcpy(dst + used, ", ", 2);
		used += 2;
	}
	if (vl >= dstlen - used)
		vl = dstlen - used - 1;
	memcpy(dst + used, v, vl);
	dst[used + vl] = '\0';
	return 1;
}

static size_t on_header(char *line, size_t size, size_t n, void *userdata)
{
	nl__xfer *x = userdata;
	size_t len = size * n;
	if (len >= 5 && strncmp(line, "HTTP/", 5) == 0) {
		/* A new response (after a 100 Continue, say): forget the last. */
		x->content_type_in[0] = x->warning[0] = x->retry_after[0] = '\0';
		return len;
	}
	if (!header_value(x->content_type_in, sizeof(x->content_type_in), line, len,
	                  "Content-Type") &&
	    !header_value(x->warning, sizeof(x->warning), line, len, "Warning"))
		header_value(x->retry_after, sizeof(x->retry_after), line, len, "Retry-After");
	return len;
}

static int is_2xx(long http)
{
	return http >= 200 && http < 300;
}

/* Tell the stream's consumer its Content-Type, once per attempt. */
static int stream_start(nl__xfer *x)
{
	if (x->stream_started || !x->on_stream_start)
		return 0;
	x->stream_started = 1;
	return x->on_stream_start(x->content_type_in, x->data_payload);
}

/* The attempt is counted (answered code, 0 without an answer): the
 * metrics, and whoever asked to be told. Once per attempt. */
static void count_attempt(nl__xfer *x, long code)
{
	nl_client *c = x->client;
	nl__request_metrics_result(&c->metrics, x->method, code);
	x->counted = 1;
	if (!c->opts.on_attempt)
		return;
	nl_request_attempt a = {x->method,
	                        x->url + strlen(c->base),
	                        code,
	                        x->attempt_at,
	                        nl_clock_mono(c->clock) - x->attempt_mono,
	                        x->body_len,
	                        c->user_agent};
	c->opts.on_attempt(&a, c->opts.attempt_payload);
}

static size_t on_write(char *p, size_t size, size_t n, void *userdata)
{
	nl__xfer *x = userdata;
	size_t len = size * n;
	if (!x->http)
		curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &x->http);
	if (x->on_data && is_2xx(x->http)) {
		/* A stream is counted when its answer starts, as client-go counts
		 * a watch once the response head is in, not when it ends. */
		if (!x->counted)
			count_attempt(x, x->http);
		if (x->loop) {
			/* Async: the loop hands it over outside libcurl. */
			if (nl_buf_add(&x->sbuf, p, len) != 0) {
				x->abort = NL_ETOOBIG;
				return 0;
			}
			nl__loop_mark_dirty(x->loop, x->io);
		} else if (stream_start(x) != 0 || x->on_data(p, len, x->data_payload) != 0) {
			x->abort = NL__STOPPED;
			return 0;
		}
		x->streamed += len;
		return len;
	}
	if (nl_buf_add(&x->rbuf, p, len) != 0) {
		x->abort = NL_ETOOBIG;
		return 0;
	}
	return len;
}

/* ---- a transfer ------------------------------------------------------------- */

static char *dup_opt(const char *s, int *failed)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		*failed = 1;
	return d;
}

static int set_method(nl__xfer *x)
{
	CURL *e = x->easy;
	if (strcmp(x->method, "GET") == 0 && !x->body)
		return curl_easy_setopt(e, CURLOPT_HTTPGET, 1L) == CURLE_OK ? 0 : NL_EINVAL;
	if (curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, x->method) != CURLE_OK)
		return NL_EINVAL;
	if (x->body || strcmp(x->method, "POST") == 0) {
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, x->body ? x->body : "");
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)x->body_len);
	}
	return 0;
}

/* NULL or application/json: the client's header line does. */
static int is_json(const char *media_type)
{
	return !media_type || strcmp(media_type, "application/json") == 0;
}

/* The client's own Accept line serves req's accept: NULL, or the same
 * value. */
static int client_accept(const nl_client *c, const char *accept)
{
	return !accept || strcmp(c->hdr_accept + strlen("Accept: "), accept) == 0;
}

/* "Name: value" in a new string; NULL when out of memory. */
static char *header_line(const char *name, const char *value)
{
	size_t n = strlen(name) + strlen(value) + 3;
	char *line = malloc(n);
	if (line)
		snprintf(line, n, "%s: %s", name, value);
	return line;
}

int nl__xfer_init(nl__xfer *x, nl_client *c, const nl_request *req, int pool, nl_result *res)
{
	int failed = 0, rc;
	memset(x, 0, sizeof(*x));
	x->client = c;
	x->started = nl_clock_mono(c->clock);
	nl_buf_init(&x->rbuf, c->opts.max_body);
	nl_buf_init(&x->sbuf, c->opts.max_body);
	if (!req || !req->method || !req->path || req->path[0] != '/' ||
	    strlen(req->method) >= sizeof(x->method))
		return nl__result_fail(res, NL_EINVAL,
		                       "a request needs a method and an absolute path");
	memcpy(x->method, req->method, strlen(req->method) + 1);
	size_t bl = strlen(c->base), pl = strlen(req->path);
	x->url = malloc(bl + pl + 1);
	if (x->url) {
		memcpy(x->url, c->base, bl);
		memcpy(x->url + bl, req->path, pl + 1);
	}
	if (req->body) {
		x->body = malloc(req->body_len + 1);
		if (x->body) {
			memcpy(x->body, req->body, req->body_len);
			x->body[req->body_len] = '\0';
			x->body_len = req->body_len;
		}
	}
	if (req->content_type && strcmp(req->content_type, NL_PB_CONTENT_TYPE) == 0)
		x->ctype_client = c->hdr_ctype_pb;
	else if (is_json(req->content_type))
		x->ctype_client = c->hdr_ctype;
	else if (!(x->ctype_line = header_line("Content-Type", req->content_type)))
		failed = 1;
	if (!client_accept(c, req->accept) &&
	    !(x->accept_line = header_line("Accept", req->accept)))
		failed = 1;
	/* Without them the path says what the request is about, when an
	 * error needs it (nl__xfer_outcome). */
	if (req->resource) {
		x->group = dup_opt(req->group, &failed);
		x->resource = dup_opt(req->resource, &failed);
		x->name = dup_opt(req->name, &failed);
	}
	x->on_data = req->on_data;
	x->on_stream_start = req->on_stream_start;
	x->data_payload = req->data_payload;
	x->timeout_ms =
	    req->timeout_ms ? req->timeout_ms : (req->on_data ? -1 : c->opts.timeout_ms);
	x->pool = &c->pools[pool];
	x->easy = pool_take(x->pool);
	if (!x->easy)
		x->easy = curl_easy_init();
	if (failed || !x->url || (req->body && !x->body) || !x->easy) {
		nl__xfer_free(x);
		return nl__result_fail(res, NL_ENOMEM, "out of memory");
	}
	if ((rc = easy_setup(c, x->easy, res)) != 0) {
		nl__xfer_free(x);
		return rc;
	}
	curl_easy_setopt(x->easy, CURLOPT_URL, x->url);
	curl_easy_setopt(x->easy, CURLOPT_ERRORBUFFER, x->errbuf);
	curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(x->easy, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(x->easy, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(x->easy, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(x->easy, CURLOPT_TIMEOUT_MS, x->timeout_ms > 0 ? x->timeout_ms : 0L);
	if (set_method(x) != 0) {
		nl__xfer_free(x);
		return nl__result_fail(res, NL_EINVAL, "unsupported method %s", req->method);
	}
	return 0;
}

void nl__xfer_free(nl__xfer *x)
{
	if (x->easy)
		curl_easy_cleanup(x->easy);
	if (x->auth_line) {
		explicit_bzero(x->auth_line, strlen(x->auth_line));
		free(x->auth_line);
	}
	nl_exec_credential_free(x->cred);
	free(x->url);
	free(x->body);
	free(x->ctype_line);
	free(x->accept_line);
	free(x->group);
	free(x->resource);
	free(x->name);
	nl_buf_free(&x->rbuf);
	nl_buf_free(&x->sbuf);
	memset(x, 0, sizeof(*x));
}

/* Replace the Authorization line with "Bearer <token>" (NULL: none). */
static int set_auth_line(nl__xfer *x, const char *token)
{
	if (x->auth_line) {
		explicit_bzero(x->auth_line, strlen(x->auth_line));
		free(x->auth_line);
		x->auth_line = NULL;
	}
	if (!token)
		return 0;
	size_t n = strlen(token) + 32;
	x->auth_line = malloc(n);
	if (!x->auth_line)
		return NL_ENOMEM;
	snprintf(x->auth_line, n, "Authorization: Bearer %s", token);
	return 0;
}

/* Credentials from the exec plugin: a token, or a client certificate. */
static int exec_credentials(nl__xfer *x, nl_result *res)
{
	nl_client *c = x->client;
	nl_err err = {0};
	nl_exec_credential *cred = NULL;
	const nl_exec_credential *rejected = x->exec_refreshed == 1 ? x->cred : NULL;
	int rc =
	    nl_exec_credential_get(&cred, c->exec, c->cfg, rejected, nl_clock_now(c->clock), &err);
	if (rc != 0)
		return nl__result_fail(res, rc == NL_ENOMEM ? NL_ENOMEM : NL_ECONFIG,
		                       "getting credentials: %s", err.msg);
	if (x->exec_refreshed == 1)
		x->exec_refreshed = 2; /* refreshed once; a second 401 is final */
	nl_exec_credential_free(x->cred);
	x->cred = cred;
	if (cred->cert_data && cred->key_data) {
		struct curl_blob cert = {cred->cert_data, cred->cert_data_len, CURL_BLOB_COPY};
		struct curl_blob key = {cred->key_data, cred->key_data_len, CURL_BLOB_COPY};
		curl_easy_setopt(x->easy, CURLOPT_SSLCERT_BLOB, &cert);
		curl_easy_setopt(x->easy, CURLOPT_SSLKEY_BLOB, &key);
		x->tainted = 1;
	}
	if (set_auth_line(x, cred->token) != 0)
		return nl__result_fail(res, NL_ENOMEM, "out of memory");
	return 0;
}

/* The bearer token (static or from a token file re-read every minute). */
static int bearer(nl__xfer *x, nl_result *res)
{
	nl_client *c = x->client;
	nl_err err = {0};
	char *token = NULL;
	int rc = nl_rest_config_token(&token, c->cfg, nl_clock_mono(c->clock), &err);
	if (rc != 0)
		return nl__result_fail(res, rc == NL_ENOMEM ? NL_ENOMEM : NL_ECONFIG, "%s",
		                       err.msg);
	rc = set_auth_line(x, token);
	if (token) {
		explicit_bzero(token, strlen(token));
		free(token);
	}
	if (rc != 0)
		return nl__result_fail(res, NL_ENOMEM, "out of memory");
	return 0;
}

/* Chain the request's header lines on x's own nodes: nothing to allocate
 * but a credential, and the lines every request sends are the client's. */
static void link_headers(nl__xfer *x)
{
	nl_client *c = x->client;
	char *lines[6];
	int n = 0;
	lines[n++] = x->accept_line ? x->accept_line : c->hdr_accept;
	if (x->body)
		lines[n++] = x->ctype_line ? x->ctype_line : x->ctype_client;
	if (c->hdr_user_agent[0])
		lines[n++] = c->hdr_user_agent;
	/* curl would wait for a 100 Continue before large bodies: one more
	 * round trip the apiserver does not need. */
	lines[n++] = c->hdr_expect;
	lines[n++] = c->hdr_encoding;
	if (x->auth_line)
		lines[n++] = x->auth_line;
	for (int i = 0; i < n; i++) {
		x->hdr[i].data = lines[i];
		x->hdr[i].next = i + 1 < n ? &x->hdr[i + 1] : NULL;
	}
}

int nl__xfer_begin(nl__xfer *x, nl_result *res)
{
	int rc;
	if (x->attempts == 0 && x->timeout_ms > 0)
		x->deadline = nl_clock_mono(x->client->clock) + x->timeout_ms * NL_USEC_PER_MSEC;
	x->attempts++;
	nl_buf_reset(&x->rbuf);
	nl_buf_reset(&x->sbuf);
	x->http = 0;
	x->content_type_in[0] = x->warning[0] = x->retry_after[0] = '\0';
	x->streamed = 0;
	x->stream_started = 0;
	x->abort = 0;
	x->counted = 0;
	x->attempt_at = nl_clock_now(x->client->clock);
	x->attempt_mono = nl_clock_mono(x->client->clock);
	x->errbuf[0] = '\0';
	rc = x->client->cfg->exec ? exec_credentials(x, res) : bearer(x, res);
	if (rc != 0)
		return rc;
	link_headers(x);
	curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, &x->hdr[0]);
	return 0;
}

/* ---- verdicts ---------------------------------------------------------------- */

static int curl_error_code(CURLcode cc)
{
	switch (cc) {
	case CURLE_OPERATION_TIMEDOUT:
		return NL_ETIMEOUT;
	case CURLE_OUT_OF_MEMORY:
		return NL_ENOMEM;
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_CRL_BADFILE:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_INVALIDCERTSTATUS:
	case CURLE_SSL_ENGINE_NOTFOUND:
	case CURLE_SSL_ENGINE_SETFAILED:
	case CURLE_SSL_ENGINE_INITFAILED:
	case CURLE_SSL_SHUTDOWN_FAILED:
	case CURLE_USE_SSL_FAILED:
	case CURLE_SSL_CLIENTCERT:
		return NL_ETLS;
	case CURLE_URL_MALFORMAT:
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_NOT_BUILT_IN:
	case CURLE_BAD_FUNCTION_ARGUMENT:
		return NL_ECONFIG;
	default:
		return NL_ETRANSPORT;
	}
}

/* net.IsConnectionReset / IsProbableEOF: the connection died under us. */
static int connection_reset(CURLcode cc)
{
	return cc == CURLE_RECV_ERROR || cc == CURLE_SEND_ERROR || cc == CURLE_GOT_NOTHING ||
	       cc == CURLE_PARTIAL_FILE;
}

/* strconv.Atoi of the header; -1 when absent or not an integer. */
static int retry_after_seconds(const char *h)
{
	if (!*h)
		return -1;
	char *end;
	long v = strtol(h, &end, 10);
	if (end == h || *end || v > 86400 * 7)
		return -1;
	return v < 0 ? 0 : (int)v;
}

/* Not when the wait would end past the request's deadline: client-go's
 * context would expire during it. */
static int may_retry(const nl__xfer *x, int64_t wait_usec)
{
	int max = x->client->opts.max_retries;
	if (x->deadline && nl_clock_mono(x->client->clock) + wait_usec >= x->deadline)
		return 0;
	return max >= 0 && x->attempts <= max && x->streamed == 0;
}

static int judge(nl__xfer *x, CURLcode cc, nl_result *res, int64_t *wait_usec)
{
	res->attempts = x->attempts;
	res->http_status = x->http;
	if (x->abort == NL__STOPPED) {
		res->code = 0;
		return 0;
	}
	if (x->abort == NL_ETOOBIG)
		return nl__result_fail(res, NL_ETOOBIG, "%s %s: response body exceeds %zu bytes",
		                       x->method, x->url, x->client->opts.max_body);
	if (cc != CURLE_OK) {
		/* client-go retries a GET whose connection was reset, after 1 s. */
		if (connection_reset(cc) && strcmp(x->method, "GET") == 0 &&
		    may_retry(x, NL_USEC_PER_SEC)) {
			*wait_usec = NL_USEC_PER_SEC;
			return NL__RETRY;
		}
		return nl__result_fail(res, curl_error_code(cc), "%s %s: %s", x->method, x->url,
		                       x->errbuf[0] ? x->errbuf : curl_easy_strerror(cc));
	}
	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &x->http);
	res->http_status = x->http;
	if (is_2xx(x->http)) {
		res->code = 0;
		return 0;
	}
	/* An exec plugin's credential was refused: run it again, once. */
	if (x->http == 401 && x->client->cfg->exec && x->exec_refreshed == 0) {
		x->exec_refreshed = 1;
		*wait_usec = 0;
		return NL__RETRY;
	}
	int ra = retry_after_seconds(x->retry_after);
	if ((x->http == 429 || x->http >= 500) && ra >= 0 &&
	    may_retry(x, (int64_t)ra * NL_USEC_PER_SEC)) {
		*wait_usec = (int64_t)ra * NL_USEC_PER_SEC;
		return NL__RETRY;
	}
	nl__target t = {x->method, x->group, x->resource, x->name};
	char tbuf[1024];
	if (!x->resource) {
		target_from_path(&t, x->url + strlen(x->client->base), tbuf, sizeof(tbuf));
		t.verb = x->method;
	}
	return nl__result_from_http(res, x->http, x->content_type_in, x->rbuf.data, x->rbuf.len, &t,
	                            ra > 0 ? ra : 0);
}

/* client-go's metrics: every attempt in rest_client_requests_total (by the
 * status it got, "<error>" without one), and the request's time, retries
 * and waits included, in rest_client_request_duration_seconds once it is
 * over, streams excepted (client-go observes only Do and DoRaw). */
static void record(nl__xfer *x, int verdict)
{
	nl_client *c = x->client;
	if (!x->counted) {
		long code = x->http;
		if (!code)
			curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &code);
		count_attempt(x, code);
	}
	if (verdict != NL__RETRY && !x->on_data)
		nl__request_metrics_latency(&c->metrics, x->method,
		                            nl_clock_mono(c->clock) - x->started);
}

int nl__xfer_outcome(nl__xfer *x, CURLcode cc, nl_result *res, int64_t *wait_usec)
{
	int verdict = judge(x, cc, res, wait_usec);
	record(x, verdict);
	return verdict;
}

int nl__xfer_response(nl_response *out, nl__xfer *x)
{
	size_t len = 0;
	char *body = nl_buf_detach(&x->rbuf, &len);
	if (!body)
		return NL_ENOMEM;
	memset(out, 0, sizeof(*out));
	out->http_status = x->http;
	out->body = body;
	out->body_len = len;
	snprintf(out->content_type, sizeof(out->content_type), "%s", x->content_type_in);
	snprintf(out->warning, sizeof(out->warning), "%s", x->warning);
	return 0;
}

int nl__xfer_deliver(nl__xfer *x)
{
	if (x->sbuf.len == 0)
		return 0;
	int v = stream_start(x);
	if (v == 0)
		v = x->on_data(x->sbuf.data, x->sbuf.len, x->data_payload);
	nl_buf_reset(&x->sbuf);
	return v;
}

void nl_response_clear(nl_response *r)
{
	if (!r)
		return;
	free(r->body);
	r->body = NULL;
	r->body_len = 0;
}

/* ---- what a path names ---------------------------------------------------------- */

/* Split "/api/v1/namespaces/ns/configmaps/x" or
 * "/apis/coordination.k8s.io/v1/namespaces/ns/leases/x" into group, resource
 * and name (pointers into buf). Anything else leaves t empty. */
static void target_from_path(nl__target *t, const char *path, char *buf, size_t buflen)
{
	char *seg[12];
	size_t n = 0;
	memset(t, 0, sizeof(*t));
	size_t len = strcspn(path, "?");
	if (len >= buflen)
		return;
	memcpy(buf, path, len);
	buf[len] = '\0';
	char *save = NULL;
	for (char *s = strtok_r(buf, "/", &save); s && n < 12; s = strtok_r(NULL, "/", &save))
		seg[n++] = s;
	size_t i;
	if (n >= 3 && strcmp(seg[0], "api") == 0) {
		t->group = "";
		i = 2;
	} else if (n >= 4 && strcmp(seg[0], "apis") == 0) {
		t->group = seg[1];
		i = 3;
	} else {
		t->group = NULL;
		return;
	}
	if (n - i >= 3 && strcmp(seg[i], "namespaces") == 0)
		i += 2;
	t->resource = seg[i];
	t->name = i + 1 < n ? seg[i + 1] : NULL;
}
