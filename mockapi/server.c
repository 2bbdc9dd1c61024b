/* libmicrohttpd glue: reads a request (with the body capped), hands it to
 * mock_api_handle as a plain mock_request and sends the answer.
 *
 * Threading: MHD's internal epoll loop with a small thread pool; handlers
 * share only the store, which has its own lock. See
 * docs/decisions/0003-threading.md. */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <nodelet/doc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "fixtures.h"
#include "internal.h"
#include "log.h"
#include "mockapi.h"

struct mock_server {
	mock_options opts;
	mock_api api;
	struct MHD_Daemon *daemon;
	char url[128];
};

/* Per-request state kept by MHD between calls of the access handler. */
typedef struct {
	nl_buf body;
	int too_large;
	mock_request req;
} req_ctx;

void mock_options_init(mock_options *o)
{
	memset(o, 0, sizeof(*o));
	o->bind_address = "127.0.0.1";
	o->port = 8080;
	o->max_body = MOCK_DEFAULT_MAX_BODY;
	o->threads = 2;
	o->max_connections = 4096;
	o->idle_timeout = 120;
}

static enum MHD_Result collect_query(void *cls, enum MHD_ValueKind kind, const char *key,
                                     const char *value)
{
	mock_request *req = cls;
	(void)kind;
	if (req->nquery == MOCK_MAX_QUERY)
		return MHD_NO; /* further parameters are ignored, not fatal */
	req->query[req->nquery].key = key;
	req->query[req->nquery].value = value;
	req->nquery++;
	return MHD_YES;
}

static void add_header(struct MHD_Response *r, const char *name, const char *value)
{
	if (MHD_add_response_header(r, name, value) != MHD_YES)
		MOCK_LOG_WARN("could not add header %s", name);
}

static enum MHD_Result send_response(struct MHD_Connection *conn, mock_response *resp)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
	    resp->body.len, resp->body.data ? resp->body.data : (void *)"", MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	add_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, resp->content_type);
	add_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache, private");
	if (resp->warning[0])
		add_header(r, "Warning", resp->warning);
	if (resp->retry_after > 0) {
		char v[16];
		snprintf(v, sizeof(v), "%d", resp->retry_after);
		add_header(r, MHD_HTTP_HEADER_RETRY_AFTER, v);
	}
	enum MHD_Result ret = MHD_queue_response(conn, (unsigned)resp->code, r);
	MHD_destroy_response(r);
	return ret;
}

/* A Content-Length over the limit is refused before reading the body. */
static int declared_too_large(struct MHD_Connection *conn, size_t max)
{
	const char *cl =
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	return cl && strtoull(cl, NULL, 10) > max;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
	mock_server *s = cls;
	req_ctx *c = *con_cls;
	(void)version;

	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return MHD_NO;
		nl_buf_init(&c->body, s->opts.max_body);
		c->too_large = declared_too_large(conn, s->opts.max_body);
		*con_cls = c;
		if (!c->too_large)
			return MHD_YES;
	}
	if (*upload_data_size > 0 && !c->too_large) {
		if (nl_buf_add(&c->body, upload_data, *upload_data_size) != 0)
			c->too_large = 1; /* keep draining, answer 413 at the end */
		*upload_data_size = 0;
		return MHD_YES;
	}
	*upload_data_size = 0;

	mock_request *req = &c->req;
	req->method = method;
	req->path = url;
	req->content_type =
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
	req->accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	req->user_agent =
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_USER_AGENT);
	req->body = c->body.data;
	req->body_len = c->body.len;
	req->body_too_large = c->too_large;
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect_query, req);

	mock_response resp;
	mock_response_init(&resp);
	mock_api_handle(&s->api, req, &resp);
	MOCK_LOG_V(2, "HTTP verb=%s URI=%s resp=%d bytes=%zu userAgent=\"%s\"", method, url,
	           resp.code, resp.body.len, req->user_agent ? req->user_agent : "");
	enum MHD_Result ret = send_response(conn, &resp);
	mock_response_free(&resp);
	return ret;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
	req_ctx *c = *con_cls;
	(void)cls, (void)conn, (void)toe;
	if (!c)
		return;
	nl_buf_free(&c->body);
	free(c);
	*con_cls = NULL;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	size_t n = strlen(msg);
	if (n && msg[n - 1] == '\n')
		msg[n - 1] = '\0';
	MOCK_LOG_V(1, "libmicrohttpd: %s", msg);
}

int mock_server_new(mock_server **out, const mock_options *o, nl_err *err)
{
	mock_server *s = calloc(1, sizeof(*s));
	if (!s)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	s->opts = *o;
	s->api.opts = &s->opts;
	int rc = mock_store_new(&s->api.store, NULL, NULL);
	if (rc == 0)
		rc = mock_fixtures_seed(&s->api, err);
	for (size_t i = 0; rc == 0 && i < o->nfixtures; i++)
		rc = mock_fixtures_load_file(&s->api, o->fixtures[i], err);
	if (rc != 0) {
		mock_store_free(s->api.store);
		free(s);
		return rc;
	}
	*out = s;
	return 0;
}

int mock_server_start(mock_server *s, nl_err *err)
{
	struct sockaddr_in6 a6;
	struct sockaddr_in a4;
	struct sockaddr *sa;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG;

	memset(&a4, 0, sizeof(a4));
	memset(&a6, 0, sizeof(a6));
	if (inet_pton(AF_INET, s->opts.bind_address, &a4.sin_addr) == 1) {
		a4.sin_family = AF_INET;
		a4.sin_port = htons((uint16_t)s->opts.port);
		sa = (struct sockaddr *)&a4;
	} else if (inet_pton(AF_INET6, s->opts.bind_address, &a6.sin6_addr) == 1) {
		a6.sin6_family = AF_INET6;
		a6.sin6_port = htons((uint16_t)s->opts.port);
		sa = (struct sockaddr *)&a6;
		flags |= MHD_USE_IPv6;
	} else {
		return nl_err_set(err, NL_EINVAL, "--bind-address %s is not an IP address",
		                  s->opts.bind_address);
	}
	/* The logger goes first so MHD routes even option errors through it. */
	s->daemon = MHD_start_daemon(
	    flags, 0, NULL, NULL, on_request, s, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, s,
	    MHD_OPTION_SOCK_ADDR, sa, MHD_OPTION_THREAD_POOL_SIZE,
	    (unsigned)(s->opts.threads ? s->opts.threads : 1), MHD_OPTION_CONNECTION_LIMIT,
	    s->opts.max_connections, MHD_OPTION_CONNECTION_TIMEOUT, s->opts.idle_timeout,
	    MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_END);
	if (!s->daemon)
		return nl_err_set(err, NL_EIO, "cannot listen on %s:%d (address in use?)",
		                  s->opts.bind_address, s->opts.port);
	const union MHD_DaemonInfo *info =
	    MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
	s->api.port = info ? info->port : (unsigned)s->opts.port;
	int v6 = sa->sa_family == AF_INET6;
	snprintf(s->url, sizeof(s->url), "http://%s%s%s:%u", v6 ? "[" : "", s->opts.bind_address,
	         v6 ? "]" : "", s->api.port);
	return 0;
}

int mock_server_port(const mock_server *s)
{
	return (int)s->api.port;
}

const char *mock_server_url(const mock_server *s)
{
	return s->url;
}

struct mock_store *mock_server_store(mock_server *s)
{
	return s->api.store;
}

void mock_server_stop(mock_server *s)
{
	if (s && s->daemon) {
		MHD_stop_daemon(s->daemon);
		s->daemon = NULL;
	}
}

void mock_server_free(mock_server *s)
{
	if (!s)
		return;
	mock_server_stop(s);
	mock_store_free(s->api.store);
	free(s);
}
