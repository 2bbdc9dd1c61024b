/* Entity tags for the generated documents (aggregated discovery, OpenAPI):
 * a hash of the content, sent as a quoted ETag, and If-None-Match answered
 * with 304 Not Modified.
 *
 * kube-apiserver uses the upper-case hex SHA-512 of the JSON; nodelet-mockapi
 * uses FNV-1a 64 (16 upper-case hex digits). Clients treat the value as
 * opaque, so only its stability matters: the same document always has the
 * same tag, across runs and builds. */
#ifndef MOCK_ETAG_H
#define MOCK_ETAG_H

#include <stddef.h>

#include "core/request.h"

#define MOCK_ETAG_LEN 17 /* 16 hex digits and the NUL */

/* The hash of data[0..len) as 16 upper-case hex digits. */
void mock_etag_compute(char out[MOCK_ETAG_LEN], const char *data, size_t len);

/* Add the ETag header ("\"<tag>\"") to resp; when the request's
 * If-None-Match matches, also answer 304 with an empty body and return 1. */
int mock_etag_serve(mock_response *resp, const mock_request *req, const char *tag);

#endif
