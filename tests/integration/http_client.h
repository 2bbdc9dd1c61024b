/* A tiny libcurl wrapper for integration tests: one request, the whole
 * answer in memory. */
#ifndef NL_TEST_HTTP_CLIENT_H
#define NL_TEST_HTTP_CLIENT_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "mockapi.h"

typedef struct {
	long code;
	char *body; /* NUL-terminated, owned */
	size_t len;
	char content_type[128];
	char warning[512];
	char retry_after[32];
	char raw_headers[4096]; /* every header line as received, cut at the size */
} nl_http_resp;

/* method/path relative to base ("http://127.0.0.1:PORT"); body may be NULL.
 * content_type NULL means application/json. Returns 0 or -1 on transport
 * failure. Free with nl_http_resp_free. */
int nl_http(nl_http_resp *out, const char *base, const char *method, const char *path,
            const char *body, const char *content_type);
/* nl_http with further request headers ("Name: value" each; NULL-ended
 * list, may be NULL). The body is given as received (curl decodes no
 * Content-Encoding). */
int nl_http_ex(nl_http_resp *out, const char *base, const char *method, const char *path,
               const char *body, const char *content_type, const char *const *headers);
/* nl_http_ex with a body of len bytes (may hold NULs; NULL: none). */
int nl_http_bytes(nl_http_resp *out, const char *base, const char *method, const char *path,
                  const char *body, size_t len, const char *content_type,
                  const char *const *headers);
/* The first value of response header name (any case) into buf, "" when
 * absent; returns buf. */
const char *nl_http_header(const nl_http_resp *r, const char *name, char *buf, size_t n);
/* How many response header fields are named name (any case). */
int nl_http_header_count(const nl_http_resp *r, const char *name);
void nl_http_resp_free(nl_http_resp *r);
/* Percent-encode a query value (caller frees). */
char *nl_http_escape(const char *s);
/* Parse the response body as JSON (new reference or NULL). */
json_object *nl_http_json(const nl_http_resp *r);
/* nl_http, then assert the code is want (printing the request and body
 * when it is not): the body parsed (new reference, or NULL when not JSON).
 * A transport failure fails the test (CU_ASSERT_EQUAL_FATAL). */
json_object *nl_http_expect(long want, const char *base, const char *method, const char *path,
                            const char *body, const char *content_type);

/* For a suite's setup: start *srv in-process on 127.0.0.1, port 0, with
 * opts (NULL: the defaults; the port is always 0); *base (may be NULL)
 * gets its URL, owned by *srv. 0, or 1 (the reason printed) as a CUnit
 * setup returns. Free with mock_server_free. */
int nl_test_suite_server(mock_server **srv, const char **base, const mock_options *opts);
/* The same on a clock the test moves: the server reads *now_usec (which
 * must outlive it), and its controllers run only when the test ticks them
 * (controller_tick_ms 0). */
int nl_test_suite_server_on_clock(mock_server **srv, const char **base, int64_t *now_usec);

/* Start an in-process server on 127.0.0.1, port 0, with optional fixtures.
 * Fails the test (CU_FAIL_FATAL) when it cannot. */
mock_server *nl_test_server_start(const char **fixtures, size_t n);

/* Start an in-process server with the default options, the built-in
 * controllers not ticking on their own, after adjust (may be NULL) changed
 * them. Fails the test (CU_FAIL_FATAL) when it cannot. */
mock_server *nl_test_server_adjusted(void (*adjust)(mock_options *));

/* A blocking TCP connection to s on 127.0.0.1 (close it), or -1. */
int nl_test_dial(mock_server *s);

/* The monotonic clock in ms, and a sleep, for tests over real sockets. */
int64_t nl_test_now_ms(void);
void nl_test_sleep_ms(int ms);

#endif
