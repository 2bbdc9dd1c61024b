/* A scripted HTTP/1.1 server for client tests: each request goes to a
 * handler that writes raw bytes, so a test can send any status, header,
 * chunking or broken connection a real server (or a proxy) might. One thread
 * per connection; handlers must be thread-safe. */
#ifndef NL_TEST_FAKE_HTTP_H
#define NL_TEST_FAKE_HTTP_H

#include <stddef.h>

typedef struct fake_http fake_http;

typedef struct {
	char method[16];
	char target[2048];  /* path and query */
	char headers[8192]; /* raw header lines, "\r\n"-separated */
	char *body;         /* NUL-terminated; "" when none */
	size_t body_len;
	unsigned conn; /* connection number, from 1 in accept order */
	unsigned seq;  /* request number, from 1 */
} fake_http_req;

/* Answer req on fd: 0 keeps the connection for the next request, non-zero
 * closes it. */
typedef int (*fake_http_handler)(int fd, const fake_http_req *req, void *payload);

/* Listen on 127.0.0.1, port 0. 0 or -1. */
int fake_http_start(fake_http **out, fake_http_handler h, void *payload);
/* "http://127.0.0.1:PORT" (borrowed). */
const char *fake_http_url(const fake_http *f);
unsigned fake_http_connections(fake_http *f);
unsigned fake_http_requests(fake_http *f);
/* Close everything and join the threads. */
void fake_http_stop(fake_http *f);

/* A complete answer with Content-Length; extra is "Name: value\r\n" lines
 * or NULL, ct NULL means no Content-Type. */
int fake_http_reply(int fd, int code, const char *extra, const char *ct, const char *body);
/* The status line and headers of a chunked answer. */
int fake_http_start_chunked(int fd, int code, const char *ct);
/* One chunk (len > 0), or the terminating chunk with len 0. */
int fake_http_chunk(int fd, const char *data, size_t len);
/* A header's value (case-insensitive name) into buf; NULL when absent. */
const char *fake_http_header(const fake_http_req *r, const char *name, char *buf, size_t n);

#endif
