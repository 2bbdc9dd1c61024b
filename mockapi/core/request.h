/* What every layer of the mock passes around: a request as the handlers
 * see it (independent of libmicrohttpd, so every layer is unit-testable)
 * and the response they fill. */
#ifndef MOCK_CORE_REQUEST_H
#define MOCK_CORE_REQUEST_H

#include <nodelet/buf.h>
#include <nodelet/status.h>
#include <stddef.h>

typedef struct {
	const char *key;
	const char *value;
} mock_kv;

#define MOCK_MAX_QUERY 32
#define MOCK_MAX_HEADERS 8

/* How a watch stream should misbehave, when a fault says so: the fault
 * schema (control/faults.h) decides, handlers/watch_request.c obeys. */
typedef struct mock_watch_fault {
	unsigned close_after_events;
	int expire;
	int stall;
} mock_watch_fault;

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
	/* Set by the fault gate (control/gate.h) when a watch fault fired for
	 * this request; the watch handler honours it. NULL otherwise. */
	const mock_watch_fault *watch_fault;
	/* Who sent it (auth/access.h), set by the server when authentication or
	 * authorization is configured: user name and groups (system:anonymous
	 * for no credentials). user NULL: not checked (an internal request such
	 * as fixtures, or a server without authentication). */
	const char *user;
	const char *uid; /* the token file's uid; NULL for none */
	const char *const *groups;
	size_t ngroups;
	int unauthenticated; /* credentials were presented and refused: 401 */
	/* The path's route and the request's audit attributes (api/route.h), when
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
	/* Never gzip-encoded however large (OpenAPI, /metrics: upstream serves
	 * them outside the negotiated object writer that compresses). */
	int identity;
	/* A truncate fault: announce the whole body, send truncate_at bytes of
	 * it, then close the connection (control/gate.h). */
	int truncated;
	size_t truncate_at;
	/* A stream served instead of body (a watcher, watch/watch.h), freed with
	 * stream_free when the response is freed unsent; the server takes it
	 * (then sets stream to NULL). */
	void *stream;
	void (*stream_free)(void *stream);
} mock_response;

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

#endif
