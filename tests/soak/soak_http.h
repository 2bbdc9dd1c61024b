/* A strict HTTP/1.1 client for the load soak (soak_load.c): one libcurl
 * easy handle (one keep-alive connection) per thread, and every answer
 * checked as a valid HTTP response — a transfer that completes, one
 * well-formed status line ("HTTP/1.1 200 OK") agreeing with the code, a
 * JSON Content-Type and a body that parses (a metav1.Status carrying the
 * same code for errors). */
#ifndef NL_SOAK_HTTP_H
#define NL_SOAK_HTTP_H

#include <curl/curl.h>
#include <json-c/json.h>
#include <stddef.h>

typedef struct soak_http soak_http;

/* base: "http://127.0.0.1:PORT" (borrowed). NULL when out of memory. */
soak_http *soak_http_new(const char *base);
void soak_http_free(soak_http *h);

/* The next request opens a new connection and closes it after (connection
 * churn alongside the keep-alive ones). */
void soak_http_fresh(soak_http *h);

/* One request; body may be NULL, content_type NULL = application/json.
 * Returns the HTTP status with *out (may be NULL) the parsed body (new
 * reference), or -1 when the answer is not a valid response, with why. */
long soak_http_do(soak_http *h, json_object **out, const char *method, const char *path,
                  const char *body, const char *content_type, char *why, size_t whylen);

/* An answer slower than this fails the soak (a hang, not load). */
#define SOAK_HTTP_TIMEOUT_MS 30000L

/* A streamed GET: on_line gets each complete line of a 2xx body (the
 * watch's events) and returns 0 to go on, non-zero to cancel. cut_ms > 0
 * cuts the transfer that long after the answer began (libcurl checks about
 * once a second when the stream is idle): a deliberate cancellation, like
 * a cancelled line. Returns the HTTP status, or -1 with why when the
 * transfer failed otherwise or the answer was not a valid response; *how
 * says how it ended: 0 the server ended it cleanly, 1 cancelled by
 * on_line, 2 cut. A cleanly ended stream must not leave half a line
 * behind. */
long soak_http_stream(soak_http *h, const char *path, long cut_ms,
                      int (*on_line)(const char *line, size_t len, void *payload), void *payload,
                      int *how, char *why, size_t whylen);

#endif
