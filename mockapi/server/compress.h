/* Response compression as kube-apiserver's object writer does it
 * (responsewriters' deferredResponseWriter, APIResponseCompression on by
 * default): an answer whose body is over 128 KiB (131072 bytes) is
 * gzip-encoded, level 1 (BestSpeed), when the request's Accept-Encoding
 * carries a bare `gzip` token; `Content-Encoding: gzip` and
 * `Vary: Accept-Encoding` go with it. Watch streams, OpenAPI and /metrics
 * are never compressed here (resp->identity). */
#ifndef MOCK_SERVER_COMPRESS_H
#define MOCK_SERVER_COMPRESS_H

#include <stddef.h>

/* Bodies larger than this are compressed (defaultGzipThresholdBytes). */
#define MOCK_GZIP_THRESHOLD (128u * 1024u)

/* Whether accept_encoding (the first Accept-Encoding field, may be NULL)
 * asks for gzip as negotiateContentEncoding reads it: split at ',', each
 * token trimmed of spaces, one equal to "gzip" exactly ("gzip;q=1" and
 * "GZIP" are not). */
int mock_gzip_accepted(const char *accept_encoding);

/* body (len bytes) gzip-encoded: *out (malloc'ed, the caller frees) of
 * *out_len bytes. 0, or NL_ENOMEM / NL_EINVAL (over 4 GiB), outputs
 * untouched. */
int mock_gzip_encode(char **out, size_t *out_len, const char *body, size_t len);

#endif
