/* Types shared by the server's files: a request as the router sees it
 * (independent of libmicrohttpd, so routing is unit-testable) and the
 * response it fills. */
#ifndef MOCK_INTERNAL_H
#define MOCK_INTERNAL_H

#include <nodelet/buf.h>
#include <nodelet/status.h>
#include <stddef.h>

#include "mockapi.h"
#include "storage/store.h"

typedef struct {
	const char *key;
	const char *value;
} mock_kv;

#define MOCK_MAX_QUERY 32
#define MOCK_MAX_HEADERS 8

typedef struct {
	const char *method; /* "GET", "PUT", ... */
	const char *path;   /* URL path, percent-decoded, without query */
	mock_kv query[MOCK_MAX_QUERY];
	size_t nquery;
	const char *content_type; /* may be NULL */
	const char *accept;       /* may be NULL */
	const char *user_agent;   /* may be NULL */
	const char *body;         /* NUL-terminated, may be NULL when empty */
	size_t body_len;
	int body_too_large; /* the body exceeded the limit and was discarded */
	/* If-None-Match, for ETag revalidation; may be NULL. */
	const char *if_none_match;
	/* Set by the fault gate (gate.h) when a watch fault fired for this
	 * request; the watch handler honours it (faults.h). NULL otherwise. */
	const struct mock_watch_fault *watch_fault;
	/* Who sent it (access.h), set by the server when authentication or
	 * authorization is configured: user name and groups (system:anonymous
	 * for no credentials). user NULL: not checked (an internal request such
	 * as fixtures, or a server without authentication). */
	const char *user;
	const char *const *groups;
	size_t ngroups;
	int unauthenticated; /* credentials were presented and refused: 401 */
	/* The path's route and the request's audit attributes (router.h), when
	 * the caller has them: the server computes both once per request for
	 * the access check, faults, journal, metrics and dispatch. NULL: each
	 * computes them from path and method. Whoever changes path or method in
	 * a copy must reset them. */
	const struct mock_route *route;
	const struct mock_req_attrs *attrs;
} mock_request;

typedef struct {
	int code;
	const char *content_type; /* static string */
	nl_buf body;
	char warning[512]; /* "Warning" header value(s) or "" */
	int retry_after;   /* Retry-After seconds, 0 = none */
	/* Further headers, "Name: value\r\n" each (mock_response_header); a
	 * Cache-Control here replaces the default "no-cache, private". */
	char headers[512];
	/* A truncate fault: announce the whole body, send truncate_at bytes of
	 * it, then close the connection (gate.h). */
	int truncated;
	size_t truncate_at;
	/* A watch stream (watch.h) served instead of body; freed with the
	 * response unless the server takes it (then set to NULL). */
	struct mock_watcher *watch;
} mock_response;

struct mock_control;

/* The state every handler reads. */
typedef struct {
	mock_store *store;
	struct mock_persist *persist; /* --state-file, or NULL */
	const mock_options *opts;
	unsigned port;
	/* Faults, journal, controllers and the control API (control.h); NULL
	 * when the request path runs without a server (unit tests). */
	struct mock_control *ctl;
	/* The watch hub (watch.h); NULL: watch answers 405 (unit tests). */
	struct mock_watch_hub *watch;
	/* TLS, authentication, authorization, limits (access.h); NULL: none
	 * (unit tests). */
	struct mock_access *access;
	/* Request counts and latencies for /metrics (metrics.h); NULL: not
	 * counted (unit tests, fixtures). */
	struct mock_metrics *metrics;
} mock_api;

/* First value of a query parameter, or NULL. */
const char *mock_request_query(const mock_request *req, const char *key);

void mock_response_init(mock_response *resp);
void mock_response_free(mock_response *resp);
/* Answer with a Status (consumed: freed here). HTTP code = st->code (200 when 0). */
void mock_response_status(mock_response *resp, nl_status *st);
/* Answer JSON bytes (copied) with code. */
void mock_response_json(mock_response *resp, int code, const char *json, size_t len);
/* Answer JSON bytes without a copy: json (malloc'ed, NUL-terminated at len)
 * becomes the body and is freed with the response, or here on failure. */
void mock_response_json_take(mock_response *resp, int code, char *json, size_t len);
/* Add a `299 - "text"` warning. */
void mock_response_warn(mock_response *resp, const char *text);
/* Add a response header (ETag, Vary, Cache-Control, Location). Silently
 * dropped when resp->headers is full. */
void mock_response_header(mock_response *resp, const char *name, const char *value);

/* The server's request state (server.c), for the control API's C entry
 * points. Borrowed; lives as long as s. */
mock_api *mock_server_api(mock_server *s);

/* Route and handle one request (router.c). Never fails: every problem is an
 * HTTP answer in resp. */
void mock_api_handle(mock_api *api, const mock_request *req, mock_response *resp);

#endif
