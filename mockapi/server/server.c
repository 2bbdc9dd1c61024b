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
#include <nodelet/duration.h>
#include <nodelet/errors.h>
#include <nodelet/protobuf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "api/route.h"
#include "auth/access.h"
#include "compress.h"
#include "conns.h"
#include "control/control.h"
#include "control/fixtures.h"
#include "control/gate.h"
#include "core/log.h"
#include "core/query.h"
#include "core/request.h"
#include "core/url.h"
#include "encoding/json_indent.h"
#include "http_framing.h"
#include "mockapi.h"
#include "nonresource/metrics.h"
#include "runner.h"
#include "server_internal.h"
#include "storage/persist.h"
#include "watch/watch.h"
#include "wire_headers.h"

/* Per-request state kept by MHD between calls of the access handler. */
typedef struct {
	nl_buf body;
	int too_large;
	mock_request req;
	mock_gate_req gate;     /* faults and journal (gate.h) */
	mock_access_req access; /* identity and in-flight slot (access.h) */
	int64_t t0;             /* headers in (monotonic µs), for the metrics */
	int64_t deadline;       /* --request-timeout (monotonic µs); 0: none */
	struct mock_job *job;   /* on a worker (runner.h) */
	size_t job_body_len;    /* the body it took, for the journal */
} req_ctx;

/* One spare request context per worker thread, so that a keep-alive
 * connection does not allocate one per request: at over 1 KiB each, glibc
 * would also consolidate its fast bins every time. Freed when the thread
 * ends. */
static pthread_key_t spare_key;
static pthread_once_t spare_once = PTHREAD_ONCE_INIT;
static int spare_ok;

static void spare_init(void)
{
	spare_ok = pthread_key_create(&spare_key, free) == 0;
}

static req_ctx *ctx_new(void)
{
	pthread_once(&spare_once, spare_init);
	req_ctx *c = spare_ok ? pthread_getspecific(spare_key) : NULL;
	if (!c)
		return calloc(1, sizeof(*c));
	pthread_setspecific(spare_key, NULL);
	memset(c, 0, sizeof(*c));
	return c;
}

static void ctx_free(req_ctx *c)
{
	if (spare_ok && !pthread_getspecific(spare_key) && pthread_setspecific(spare_key, c) == 0)
		return;
	free(c);
}

void mock_options_init(mock_options *o)
{
	memset(o, 0, sizeof(*o));
	o->bind_address = "127.0.0.1";
	o->port = 8080;
	o->max_body = MOCK_DEFAULT_MAX_BODY;
	o->threads = 2;
	o->max_connections = 4096;
	o->idle_timeout = 120;
	o->journal_size = MOCK_JOURNAL_DEFAULT_SIZE;
	o->controllers = "*";
	o->node_monitor_grace_usec = 50 * 1000000LL; /* kube-controller-manager's defaults */
	o->cluster_signing_duration_usec = 8760LL * 3600 * 1000000;
	o->node_startup_grace_usec = 60 * 1000000LL;
	o->node_monitor_period_usec = 5 * 1000000LL;
	o->controller_tick_ms = 100;
	o->watch_cache_size = MOCK_WATCH_DEFAULT_CACHE_SIZE;
	o->watch_bookmark_interval = MOCK_WATCH_DEFAULT_BOOKMARK_SECONDS;
	o->watch_buffer_bytes = MOCK_WATCH_DEFAULT_BUFFER_BYTES;
	o->watch_backlog_bytes = MOCK_WATCH_DEFAULT_BACKLOG_BYTES;
	o->anonymous_auth = 1;
	o->max_requests_inflight = MOCK_DEFAULT_MAX_INFLIGHT;
	o->max_mutating_requests_inflight = MOCK_DEFAULT_MAX_MUTATING_INFLIGHT;
	o->max_watches = MOCK_DEFAULT_MAX_WATCHES;
	o->max_header_bytes = MOCK_DEFAULT_MAX_HEADER_BYTES;
	o->sync_interval_ms = 1000;
	o->read_header_timeout_ms = 32 * 1000; /* kube-apiserver's ReadHeaderTimeout */
	o->request_timeout_ms = 60 * 1000;     /* its --request-timeout */
	o->shutdown_grace_ms = 10 * 1000;
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
		MOCK_LOG_WARN("Could not add a header", NL_KV_STR("header", name));
}

/* resp->headers: "Name: value\r\n" lines (mock_response_header). */
static void add_extra_headers(struct MHD_Response *r, const char *lines)
{
	char name[64], value[448];
	while (*lines) {
		const char *colon = strstr(lines, ": "), *eol = strstr(lines, "\r\n");
		if (!colon || !eol || colon > eol)
			return;
		snprintf(name, sizeof(name), "%.*s", (int)(colon - lines), lines);
		snprintf(value, sizeof(value), "%.*s", (int)(eol - colon - 2), colon + 2);
		add_header(r, name, value);
		lines = eol + 2;
	}
}

/* isPrettyPrint: a non-empty `pretty` read with strconv.ParseBool (an
 * unparsable value is false). The User-Agent rule that follows upstream
 * (curl, Wget and browsers get indented JSON) is not followed: see
 * docs/mockapi.md. Only the JSON serializer has a pretty form. */
static int wants_pretty(const mock_request *req, const mock_response *resp)
{
	const char *v = req ? mock_request_query(req, "pretty") : NULL;
	int pretty = 0;
	return v && *v && mock_go_parse_bool(&pretty, v) == 0 && pretty && !resp->identity &&
	       resp->content_type && strncmp(resp->content_type, "application/json", 16) == 0;
}

/* resp's JSON body as json.MarshalIndent writes it; unchanged when out of
 * memory (the answer is the same JSON). */
static void indent_body(mock_response *resp)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	if (mock_json_indent(&b, resp->body.data ? resp->body.data : "", resp->body.len) == 0 &&
	    b.data) {
		nl_buf_free(&resp->body);
		resp->body = b;
		return;
	}
	nl_buf_free(&b);
}

/* The body to send: gzip-encoded when large and asked for (compress.h);
 * takes resp's body either way. Sets *gzipped. */
static char *take_body(struct MHD_Connection *conn, const mock_request *req, mock_response *resp,
                       size_t *len, int *gzipped)
{
	if (wants_pretty(req, resp))
		indent_body(resp);
	char *data = nl_buf_detach(&resp->body, len);
	char *z = NULL;
	size_t zlen = 0;
	*gzipped = 0;
	if (data && !resp->identity && *len > MOCK_GZIP_THRESHOLD &&
	    mock_gzip_accepted(MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
	                                                   MHD_HTTP_HEADER_ACCEPT_ENCODING)) &&
	    mock_gzip_encode(&z, &zlen, data, *len) == 0) {
		free(data);
		data = z;
		*len = zlen;
		*gzipped = 1;
	}
	return data;
}

static enum MHD_Result send_response(struct MHD_Connection *conn, const mock_request *req,
                                     mock_response *resp)
{
	struct MHD_Response *r;
	int gzipped = 0;
	if (resp->stream) {
		/* A watch streams from the hub; the response owns the watcher. */
		r = mock_watch_mhd_response(resp->stream, conn);
		resp->stream = NULL;
	} else if (resp->truncated) {
		r = mock_gate_truncated_response(resp);
	} else if (resp->body.data) {
		/* MHD takes the body's buffer and frees it: no copy. */
		size_t len = 0;
		char *data = take_body(conn, req, resp, &len, &gzipped);
		r = data ? MHD_create_response_from_buffer_with_free_callback(len, data, free)
		         : NULL;
		if (!r)
			free(data);
	} else {
		r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
	}
	if (!r)
		return MHD_NO;
	add_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, resp->content_type);
	if (!strstr(resp->headers, "Cache-Control: "))
		add_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache, private");
	add_extra_headers(r, resp->headers);
	if (gzipped) {
		add_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
		add_header(r, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
	}
	mock_wire_headers_add(r, conn, req, resp);
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

/* A Content-Length over the limit: the body is drained, never kept. */
static int declared_too_large(struct MHD_Connection *conn, size_t max)
{
	const char *cl =
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	return cl && strtoull(cl, NULL, 10) > max;
}

/* The framing checks (http_framing.h) over libmicrohttpd's fields. It
 * parses the head in place and ends each value at its first NUL, so a NUL
 * cannot be seen in the value itself; but the head stays where it was
 * read, [method, method + header size), and between one value's end and
 * the next field's name there is only the one or two zeros written over
 * the line end (two to four after the last: the blank line too). Anything
 * else there is the rest of a value cut at a NUL. A field not inside the
 * head (a folded line, which libmicrohttpd moves) is not judged so. */
typedef struct {
	mock_framing f;
	const char *lo, *hi;  /* the head */
	const char *prev_end; /* just after the previous value, or NULL */
} framing_walk;

static void check_gap(framing_walk *w, const char *next, size_t min, size_t max)
{
	const char *p = w->prev_end;
	if (!p || next < p || next > w->hi)
		return;
	size_t gap = (size_t)(next - p);
	int cut = gap < min || gap > max;
	for (; !cut && p < next; p++)
		cut = *p != '\0';
	if (cut)
		mock_framing_refuse_value(&w->f);
}

static enum MHD_Result framing_field(void *cls, enum MHD_ValueKind kind, const char *key,
                                     size_t key_size, const char *value, size_t value_size)
{
	framing_walk *w = cls;
	(void)kind;
	if (key >= w->lo && key < w->hi)
		check_gap(w, key, 1, 2);
	mock_framing_field(&w->f, key, key_size, value ? value : "", value ? value_size : 0);
	w->prev_end = value && value >= w->lo && value < w->hi ? value + value_size : NULL;
	return MHD_YES;
}

/* 0 when the request may be read, else the refusal was queued (or could
 * not be: MHD_NO in *ret). */
static int refuse_framing(struct MHD_Connection *conn, const char *method, const char *version,
                          enum MHD_Result *ret)
{
	framing_walk w;
	memset(&w, 0, sizeof(w));
	mock_framing_init(&w.f);
	const union MHD_ConnectionInfo *hs =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
	w.lo = method;
	w.hi = hs ? method + hs->header_size : method;
	MHD_get_connection_values_n(conn, MHD_HEADER_KIND, framing_field, &w);
	check_gap(&w, w.hi, 2, 4);
	int http11 = strcmp(version, MHD_HTTP_VERSION_1_0) != 0;
	int code = mock_framing_finish(&w.f, http11);
	if (code == 0)
		return 0;
	MOCK_LOG_V(2, "HTTP framing refused", NL_KV_INT("resp", code),
	           NL_KV_STR("reason", w.f.text));
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(w.f.text), (void *)w.f.text,
	                                                         MHD_RESPMEM_PERSISTENT);
	if (!r) {
		*ret = MHD_NO;
		return 1;
	}
	add_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	add_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	*ret = MHD_queue_response(conn, (unsigned)code, r);
	MHD_destroy_response(r);
	return 1;
}

/* Whether --request-timeout applies: not to long-running requests
 * (watches, as upstream's LongRunningRequestCheck) nor to the control API
 * (ours, for tests). */
static int timed(const mock_request *req)
{
	const mock_req_attrs *a = req->attrs;
	return !(a && a->verb && strcmp(a->verb, "watch") == 0) &&
	       strncmp(req->path, "/mockapi/", 9) != 0;
}

/* Reads of one object and the non-resource GETs (discovery, /version,
 * /metrics) are bounded and run inline: the hop to a worker would double
 * their cost. Everything else timed (writes, lists) goes to a worker, with
 * or without a deadline, so that a stop is never held up by it. */
static int on_worker(const mock_request *req)
{
	const mock_req_attrs *a = req->attrs;
	return timed(req) && (!a || !a->res || !a->verb || strcmp(a->verb, "get") != 0);
}

/* A complete request (again after a delay): access, faults, the handler,
 * metrics, journal, and the answer queued. */
static enum MHD_Result answer(mock_server *s, req_ctx *c, struct MHD_Connection *conn)
{
	mock_request *req = &c->req;
	mock_response resp;
	int64_t took;
	mock_response_init(&resp);
	/* Authentication and the in-flight limit (access.h); a 429 goes out
	 * before faults and the journal, as from the apiserver's filter. */
	if (mock_access_enter(&c->access, s->api.access, conn, req, &resp) != 0) {
		mock_metrics_observe_request(s->api.metrics, req, resp.code,
		                             mock_metrics_now() - c->t0);
		enum MHD_Result sent = send_response(conn, req, &resp);
		mock_response_free(&resp);
		return sent;
	}
	if (c->job) { /* back from a worker, or its deadline */
		struct mock_job *job = c->job;
		c->job = NULL;
		if (mock_runner_take(s->runner, job, &resp) != 0) {
			mock_gate_leave(s->ctl, &c->gate, req, NULL);
			mock_response_free(&resp);
			return MHD_NO; /* shutting down */
		}
		goto answered;
	}
	int64_t now = mock_runner_now();
	if (c->deadline)
		c->gate.max_delay_ms =
		    now < c->deadline ? (unsigned)((c->deadline - now) / 1000) + 1 : 1;
	switch (mock_gate_enter(s->ctl, &c->gate, conn, req, &resp)) {
	case MOCK_GATE_SUSPENDED:
		mock_response_free(&resp);
		return MHD_YES;
	case MOCK_GATE_DROP:
		mock_gate_leave(s->ctl, &c->gate, req, NULL);
		mock_response_free(&resp);
		return MHD_NO;
	case MOCK_GATE_HANDLE:
		if (c->deadline && mock_runner_now() >= c->deadline) {
			mock_response_timeout(&resp); /* a delay took it all */
			break;
		}
		if (s->runner && on_worker(req)) {
			c->job_body_len = c->body.len;
			c->job = mock_runner_submit(s->runner, conn, req, &c->body,
			                            c->deadline ? c->deadline : INT64_MAX);
			if (c->job) {
				mock_response_free(&resp);
				return MHD_YES;
			}
		}
		mock_api_handle(&s->api, req, &resp);
		if (c->deadline && mock_runner_now() >= c->deadline)
			mock_response_timeout(&resp);
		break;
	case MOCK_GATE_ANSWERED:
		if (c->deadline && mock_runner_now() >= c->deadline)
			mock_response_timeout(&resp);
		break;
	}
answered:
	took = mock_metrics_now() - c->t0;
	if (MOCK_LOG_ENABLED(2)) {
		/* httplog's line (kube-apiserver logs it at -v 3) */
		char latency[NL_DURATION_BUFSZ];
		nl_duration_format(latency, took);
		MOCK_LOG_V(2, "HTTP", NL_KV_STR("verb", req->method), NL_KV_STR("URI", req->path),
		           NL_KV_STR("latency", latency), NL_KV_STR("userAgent", req->user_agent),
		           NL_KV_INT("resp", resp.code), NL_KV_UINT("bytes", resp.body.len));
	}
	mock_metrics_observe_request(s->api.metrics, req, resp.code, took);
	/* Journaled before sending: send_response hands the body (an error's
	 * reason, for the journal) to MHD. The client sees the answer only
	 * after this returns, so the entry is there when it does. */
	mock_gate_leave(s->ctl, &c->gate, req, &resp);
	enum MHD_Result ret = send_response(conn, req, &resp);
	mock_response_free(&resp);
	return ret;
}

/* libmicrohttpd's decoder of the path and of each query key and value
 * ends them at a %00; ours keeps what follows (core/url.h). */
static size_t on_unescape(void *cls, struct MHD_Connection *conn, char *s)
{
	(void)cls;
	(void)conn;
	return mock_url_unescape(s);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
	mock_server *s = cls;
	req_ctx *c = *con_cls;
	if (!c) {
		/* Before anything is read of the body (net/http refuses such
		 * a request as it reads the head). */
		enum MHD_Result refused;
		if (refuse_framing(conn, method, version, &refused))
			return refused;
		const union MHD_ConnectionInfo *sc =
		    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
		if (sc)
			mock_conns_busy(s->conns, sc->socket_context);
		c = ctx_new();
		if (!c)
			return MHD_NO;
		nl_buf_init(&c->body, s->opts.max_body);
		c->t0 = mock_metrics_now();
		c->too_large = declared_too_large(conn, s->opts.max_body);
		*con_cls = c;
		return MHD_YES;
	}
	if (*upload_data_size > 0) {
		/* Past the limit (declared or crossed) keep draining and
		 * answer 413 at the end, as kube-apiserver reads before it
		 * answers: closing with the body unread resets the connection
		 * and the client may lose the answer. MHD cannot queue one in
		 * the middle of a chunked upload anyway. A drain keeps no
		 * memory, only the connection's slot. */
		if (!c->too_large && nl_buf_add(&c->body, upload_data, *upload_data_size) != 0)
			c->too_large = 1;
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
	req->if_none_match =
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_NONE_MATCH);
	req->body = c->body.data;
	req->body_len = c->job ? c->job_body_len : c->body.len;
	req->body_too_large = c->too_large;
	req->nquery = 0; /* called again when a delayed request resumes */
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect_query, req);

	/* Routed once for everything that asks (access, faults, journal,
	 * metrics, dispatch); again when a delayed request resumes. */
	mock_route route = mock_route_parse(url);
	mock_req_attrs attrs;
	mock_request_attrs_of_route(&attrs, &route, method, mock_request_query(req, "watch"),
	                            mock_request_query(req, "fieldSelector"));
	req->route = &route;
	req->attrs = &attrs;
	if (!c->deadline && s->opts.request_timeout_ms && timed(req))
		c->deadline = c->t0 + (int64_t)s->opts.request_timeout_ms * 1000;
	enum MHD_Result ret = answer(s, c, conn);
	req->route = NULL; /* not for on_completed */
	req->attrs = NULL;
	return ret;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
	mock_server *s = cls;
	req_ctx *c = *con_cls;
	(void)toe;
	const union MHD_ConnectionInfo *sc =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	if (sc)
		mock_conns_idle(s->conns, sc->socket_context);
	if (!c)
		return;
	if (c->job) /* gone before its answer: the worker drops it */
		mock_runner_abandon(s->runner, c->job);
	/* A client that gave up during a delay still leaves its entry. */
	mock_gate_leave(s->ctl, &c->gate, &c->req, NULL);
	mock_gate_req_clear(&c->gate);
	mock_access_req_clear(&c->access, s->api.access);
	nl_buf_free(&c->body);
	ctx_free(c);
	*con_cls = NULL;
}

/* Every accepted connection: kept, or closed at once (conns.h). */
static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
	mock_server *s = cls;
	(void)addr, (void)addrlen;
	return mock_conns_admit(s->conns) ? MHD_YES : MHD_NO;
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
	mock_server *s = cls;
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *fd =
		    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		*socket_context = fd ? mock_conns_opened(s->conns, fd->connect_fd) : NULL;
	} else {
		mock_conns_closed(s->conns, *socket_context);
		*socket_context = NULL;
	}
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	size_t n = strlen(msg);
	if (n && msg[n - 1] == '\n')
		msg[n - 1] = '\0';
	MOCK_LOG_V(1, "libmicrohttpd", NL_KV_STR("message", msg));
}

/* --state-file: the store as it was, before the watch hub takes its
 * starting resourceVersion from it. */
static int open_state(mock_server *s, int *restored, nl_err *err)
{
	mock_persist_opts po;
	mock_persist_stats st;
	mock_persist_opts_init(&po);
	po.path = s->opts.state_file;
	po.sync = (mock_sync_mode)s->opts.sync_writes;
	po.sync_interval_ms = s->opts.sync_interval_ms;
	po.discard_bad_state = s->opts.discard_bad_state;
	int rc = mock_persist_open(&s->persist, s->api.store, &po, err);
	if (rc != 0)
		return rc;
	mock_persist_stats_get(s->persist, &st);
	*restored = st.restored;
	if (st.restored && s->opts.nfixtures)
		MOCK_LOG_V(0, "State restored, --fixtures not loaded again",
		           NL_KV_STR("stateFile", s->opts.state_file));
	return 0;
}

int mock_server_new(mock_server **out, const mock_options *o, nl_err *err)
{
	mock_server *s = calloc(1, sizeof(*s));
	if (!s)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	s->opts = *o;
	s->api.opts = &s->opts;
	/* First: a bad certificate or token file fails fast. */
	int rc = mock_access_new(&s->api.access, o, err);
	if (rc == 0 && mock_metrics_new(&s->api.metrics) != 0)
		rc = nl_err_set(err, NL_ENOMEM, "out of memory");
	if (rc == 0)
		rc = mock_store_new(&s->api.store, o->clock, o->clock_payload);
	int restored = 0;
	if (rc == 0 && o->state_file)
		rc = open_state(s, &restored, err);
	/* The hub observes the store before seeding, so watches can resume from
	 * the first resourceVersion while it is in the watch cache. */
	if (rc == 0)
		rc = mock_watch_hub_new(&s->api.watch, s->api.store,
		                        o->watch_cache_size ? o->watch_cache_size
		                                            : MOCK_WATCH_DEFAULT_CACHE_SIZE,
		                        o->watch_bookmark_interval * 1000u);
	if (rc == 0)
		mock_watch_hub_set_limits(s->api.watch, o->watch_buffer_bytes,
		                          o->watch_backlog_bytes);
	/* A restored store is the state the fixtures were loaded into before:
	 * loading them again would undo what clients changed since. */
	if (rc == 0)
		rc = restored ? mock_fixtures_seed_missing(&s->api, err)
		              : mock_fixtures_seed(&s->api, err);
	for (size_t i = 0; rc == 0 && !restored && i < o->nfixtures; i++)
		rc = mock_fixtures_load_file(&s->api, o->fixtures[i], err);
	/* After seeding: the control state snapshots the seeded store. */
	if (rc == 0)
		rc = mock_control_new(&s->ctl, &s->api, err);
	if (rc != 0) {
		mock_watch_hub_free(s->api.watch);
		mock_persist_close(s->persist);
		mock_store_free(s->api.store);
		mock_access_free(s->api.access);
		mock_metrics_free(s->api.metrics);
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
	struct MHD_OptionItem access_opts[8]; /* header memory, HTTPS (access.h) */
	/* Suspend/resume: watch streams park their connection instead of a
	 * thread (watch.h), and so do delayed requests (gate.h). */
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG |
	                 MHD_ALLOW_SUSPEND_RESUME;

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
	mock_access_mhd_options(access_opts, s->api.access);
	/* Our limit is enforced at admission (conns.h); libmicrohttpd's, per
	 * worker thread, stays out of reach so that it never stops accepting
	 * (cut connections still count for it until they are closed). */
	unsigned threads = s->opts.threads ? s->opts.threads : 1;
	unsigned mhd_limit = s->opts.max_connections ? (s->opts.max_connections + 64) * threads : 0;
	if (mock_conns_new(&s->conns, s->opts.max_connections, s->opts.read_header_timeout_ms,
	                   s->opts.idle_timeout * 1000u) != 0)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	/* Twice the MHD threads: a handler stuck past its deadline leaves
	 * the others served. */
	if (mock_runner_new(&s->runner, &s->api, 2 * threads) != 0) {
		mock_conns_free(s->conns);
		s->conns = NULL;
		return nl_err_set(err, NL_EIO, "cannot start the request workers");
	}
	if (mock_access_https(s->api.access))
		flags |= MHD_USE_TLS;
	/* The logger goes first so MHD routes even option errors through it. */
	s->daemon = MHD_start_daemon(
	    flags, 0, on_accept, s, on_request, s, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, s,
	    MHD_OPTION_SOCK_ADDR, sa, MHD_OPTION_THREAD_POOL_SIZE, threads,
	    MHD_OPTION_CONNECTION_LIMIT, mhd_limit, MHD_OPTION_CONNECTION_TIMEOUT,
	    s->opts.idle_timeout, MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
	    MHD_OPTION_NOTIFY_CONNECTION, on_connection, s, MHD_OPTION_UNESCAPE_CALLBACK,
	    on_unescape, s, MHD_OPTION_ARRAY, access_opts, MHD_OPTION_END);
	if (!s->daemon) {
		mock_conns_free(s->conns);
		s->conns = NULL;
		mock_runner_shutdown(s->runner, 0);
		mock_runner_free(s->runner);
		s->runner = NULL;
	}
	if (!s->daemon)
		return nl_err_set(err, NL_EIO, "cannot listen on %s:%d (address in use?)",
		                  s->opts.bind_address, s->opts.port);
	const union MHD_DaemonInfo *info =
	    MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
	s->api.port = info ? info->port : (unsigned)s->opts.port;
	int v6 = sa->sa_family == AF_INET6;
	snprintf(s->url, sizeof(s->url), "%s://%s%s%s:%u",
	         mock_access_https(s->api.access) ? "https" : "http", v6 ? "[" : "",
	         s->opts.bind_address, v6 ? "]" : "", s->api.port);
	int rc = mock_control_start(s->ctl, err);
	if (rc != 0) {
		mock_server_stop(s);
		return rc;
	}
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

size_t mock_server_watch_count(mock_server *s)
{
	return mock_watch_hub_count(s->api.watch);
}

void mock_server_stop(mock_server *s)
{
	if (s && s->daemon) {
		/* End every watch first: MHD must not stop with suspended
		 * connections, and clients should see a clean end of stream. */
		mock_watch_hub_stop(s->api.watch, 1000);
		/* Delayed requests are suspended too: resume them first. */
		mock_control_stop(s->ctl);
		/* Requests on workers get the grace period; then their
		 * connections are cut and handlers still running are left to
		 * finish on their own (mock_server_free waits for them). */
		unsigned left = mock_runner_shutdown(s->runner, s->opts.shutdown_grace_ms);
		if (left)
			MOCK_LOG_WARN(
			    "Requests still running after the grace period, closing their "
			    "connections",
			    NL_KV_UINT("requests", left),
			    NL_KV_UINT("gracePeriodMilliseconds", s->opts.shutdown_grace_ms));
		MHD_stop_daemon(s->daemon);
		s->daemon = NULL;
		mock_conns_free(s->conns);
		s->conns = NULL;
		if (s->runner && mock_runner_free(s->runner) != 0) {
			if (s->stopped_runner) { /* an earlier stop's: wait for it */
				mock_runner_wait(s->stopped_runner);
				mock_runner_free(s->stopped_runner);
			}
			s->stopped_runner = s->runner;
		}
		s->runner = NULL;
	}
}

int mock_server_restart(mock_server *s, nl_err *err)
{
	if (!s->daemon)
		return nl_err_set(err, NL_EINVAL, "the server is not running");
	/* Where clients expect it: the port it had, also when it was picked. */
	s->opts.port = (int)s->api.port;
	mock_server_stop(s);
	/* A restarted apiserver begins with an empty watch cache (a resume
	 * from before is 410) and new threads; the store, faults and journal
	 * stay, as etcd and the test's setup would. */
	mock_watch_hub_free(s->api.watch);
	s->api.watch = NULL;
	mock_control_forget_delays(s->ctl);
	int rc = mock_watch_hub_new(&s->api.watch, s->api.store,
	                            s->opts.watch_cache_size ? s->opts.watch_cache_size
	                                                     : MOCK_WATCH_DEFAULT_CACHE_SIZE,
	                            s->opts.watch_bookmark_interval * 1000u);
	if (rc == 0)
		mock_watch_hub_set_limits(s->api.watch, s->opts.watch_buffer_bytes,
		                          s->opts.watch_backlog_bytes);
	if (rc != 0)
		return nl_err_set(err, rc, "cannot restart the watch hub");
	return mock_server_start(s, err);
}

void mock_server_free(mock_server *s)
{
	if (!s)
		return;
	mock_server_stop(s);
	if (s->stopped_runner) { /* the store is theirs until they end */
		mock_runner_wait(s->stopped_runner);
		mock_runner_free(s->stopped_runner);
	}
	mock_control_free(s->ctl);
	mock_watch_hub_free(s->api.watch);
	mock_persist_close(s->persist); /* the clean-stop snapshot */
	mock_store_free(s->api.store);
	mock_store_saved_free(s->saved);
	mock_access_free(s->api.access);
	mock_metrics_free(s->api.metrics);
	free(s);
}

int mock_server_handlers_running(mock_server *s)
{
	return s->stopped_runner && mock_runner_running(s->stopped_runner) > 0;
}

typedef struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct mock_persist *persist;
	int done, abandoned, rc;
} close_job;

static void *close_main(void *payload)
{
	close_job *j = payload;
	int rc = mock_persist_close(j->persist);
	pthread_mutex_lock(&j->mu);
	j->rc = rc;
	j->done = 1;
	int abandoned = j->abandoned;
	pthread_cond_signal(&j->cv);
	pthread_mutex_unlock(&j->mu);
	if (abandoned)
		free(j); /* the waiter gave up: the job is ours */
	return NULL;
}

int mock_server_close_state(mock_server *s, unsigned ms)
{
	if (!s)
		return 0;
	mock_server_stop(s);
	if (!s->persist)
		return 0;
	close_job *j = calloc(1, sizeof(*j));
	pthread_t t;
	if (!j)
		return NL_ENOMEM;
	pthread_mutex_init(&j->mu, NULL);
	pthread_cond_init(&j->cv, NULL);
	j->persist = s->persist;
	if (pthread_create(&t, NULL, close_main, j) != 0) {
		free(j);
		return NL_ERROR;
	}
	pthread_detach(t);
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L)
		until.tv_sec++, until.tv_nsec -= 1000000000L;
	pthread_mutex_lock(&j->mu);
	while (!j->done && pthread_cond_timedwait(&j->cv, &j->mu, &until) == 0)
		;
	int done = j->done, rc = j->rc;
	j->abandoned = !done;
	pthread_mutex_unlock(&j->mu);
	if (!done)
		return NL_ETIMEOUT; /* still waiting for the store; the thread frees j */
	s->persist = NULL;
	free(j);
	return rc;
}
