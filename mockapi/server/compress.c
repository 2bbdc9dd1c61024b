/* gzip for large answers (compress.h), with zlib. */
#include "compress.h"

#include <limits.h>
#include <nodelet/errors.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int mock_gzip_accepted(const char *accept_encoding)
{
	const char *p = accept_encoding;
	while (p && *p) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		/* strings.TrimSpace: the ASCII spaces a header value can hold. */
		while (n > 0 && (*p == ' ' || *p == '\t')) {
			p++;
			n--;
		}
		while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if (n == 4 && memcmp(p, "gzip", 4) == 0)
			return 1;
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

int mock_gzip_encode(char **out, size_t *out_len, const char *body, size_t len)
{
	z_stream z;
	gz_header h;
	if (len > UINT_MAX / 2)
		return NL_EINVAL;
	memset(&z, 0, sizeof(z));
	/* 16 + 15: a gzip wrapper; Go's gzip.Writer writes OS 255 (unknown). */
	if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return NL_ENOMEM;
	memset(&h, 0, sizeof(h));
	h.os = 255;
	uLong bound = deflateBound(&z, (uLong)len) + 32; /* + the header */
	char *data = deflateSetHeader(&z, &h) == Z_OK ? malloc(bound) : NULL;
	if (!data) {
		deflateEnd(&z);
		return NL_ENOMEM;
	}
	z.next_in = (Bytef *)(uintptr_t)body;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)data;
	z.avail_out = (uInt)bound;
	int rc = deflate(&z, Z_FINISH);
	size_t n = (size_t)z.total_out;
	deflateEnd(&z);
	if (rc != Z_STREAM_END) {
		free(data);
		return NL_ENOMEM;
	}
	*out = data;
	*out_len = n;
	return 0;
}
