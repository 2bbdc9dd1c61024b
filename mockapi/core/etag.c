/* Entity tags and conditional GETs (net/http's checkIfNoneMatch). */
#include "etag.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

void mock_etag_compute(char out[MOCK_ETAG_LEN], const char *data, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a 64 offset basis */
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)data[i];
		h *= 0x100000001b3ULL;
	}
	snprintf(out, MOCK_ETAG_LEN, "%016llX", (unsigned long long)h);
}

/* Whether an If-None-Match header value (a list of quoted, possibly weak
 * W/"…" tags, or "*") matches tag (unquoted). NULL never matches. */
static int etag_matches(const char *inm, const char *tag)
{
	size_t tl = strlen(tag);
	while (inm && *inm) {
		while (*inm == ' ' || *inm == '\t' || *inm == ',')
			inm++;
		if (*inm == '*')
			return 1;
		if (strncmp(inm, "W/", 2) == 0)
			inm += 2; /* weak comparison, as for GET */
		if (*inm != '"')
			return 0;
		const char *end = strchr(inm + 1, '"');
		if (!end)
			return 0;
		if ((size_t)(end - inm - 1) == tl && strncmp(inm + 1, tag, tl) == 0)
			return 1;
		inm = end + 1;
	}
	return 0;
}

int mock_etag_serve(mock_response *resp, const mock_request *req, const char *tag)
{
	char quoted[MOCK_ETAG_LEN + 2];
	snprintf(quoted, sizeof(quoted), "\"%s\"", tag);
	mock_response_header(resp, "ETag", quoted);
	if (!etag_matches(req->if_none_match, tag))
		return 0;
	nl_buf_reset(&resp->body);
	resp->code = 304;
	return 1;
}
