/* Types shared by the server's files: a request as the router sees it
 * (independent of libmicrohttpd, so routing is unit-testable) and the
 * response it fills. */
#ifndef MOCK_INTERNAL_H
#define MOCK_INTERNAL_H

#include <nodelet/buf.h>
#include <nodelet/status.h>
#include <stddef.h>

#include "mockapi.h"
#include "store.h"

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
} mock_request;

typedef struct {
	int code;
	const char *content_type; /* static string */
	nl_buf body;
	char warning[512]; /* "Warning" header value(s) or "" */
	int retry_after;   /* Retry-After seconds, 0 = none */
} mock_response;

/* The state every handler reads. */
typedef struct {
	mock_store *store;
	const mock_options *opts;
	unsigned port;
} mock_api;

/* First value of a query parameter, or NULL. */
const char *mock_request_query(const mock_request *req, const char *key);

void mock_response_init(mock_response *resp);
void mock_response_free(mock_response *resp);
/* Answer with a Status (consumed: freed here). HTTP code = st->code (200 when 0). */
void mock_response_status(mock_response *resp, nl_status *st);
/* Answer JSON bytes (copied) with code. */
void mock_response_json(mock_response *resp, int code, const char *json, size_t len);
/* Add a `299 - "text"` warning. */
void mock_response_warn(mock_response *resp, const char *text);

/* Route and handle one request (router.c). Never fails: every problem is an
 * HTTP answer in resp. */
void mock_api_handle(mock_api *api, const mock_request *req, mock_response *resp);

#endif
