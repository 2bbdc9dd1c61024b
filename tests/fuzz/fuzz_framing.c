/* The request framing checks (mockapi/server/http_framing.c) on hostile
 * header blocks.
 *
 * Input: byte 0 chooses HTTP/1.1 (odd) or HTTP/1.0, byte 1 marks one
 * field's value as cut at a NUL (its index), then header lines split at
 * '\n' (a trailing '\r' dropped) and at the first ':' as libmicrohttpd
 * splits them, leading blanks of the value skipped.
 *
 * Invariants: the verdict is 0, 400 or 501 and a refusal has net/http's
 * text; feeding the same fields again gives the same verdict; a request
 * with no Content-Length, Transfer-Encoding, Host nor control byte is
 * refused on HTTP/1.1 only for its missing Host; adding a valid Host to
 * an accepted HTTP/1.0 request keeps it accepted. */
#include <string.h>
#include <strings.h>

#include "fuzz.h"
#include "server/http_framing.h"

#define MAX_FIELDS 256

typedef struct {
	const char *name, *value;
	size_t name_len, value_len;
} field;

static int verdict(const field *f, size_t n, int http11, size_t cut, mock_framing *out)
{
	mock_framing_init(out);
	for (size_t i = 0; i < n; i++) {
		mock_framing_field(out, f[i].name, f[i].name_len, f[i].value, f[i].value_len);
		if (i == cut)
			mock_framing_refuse_value(out);
	}
	return mock_framing_finish(out, http11);
}

static int has_framing_field(const field *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < f[i].value_len; j++) {
			unsigned char c = (unsigned char)f[i].value[j];
			if ((c < 0x20 && c != '\t') || c == 0x7f)
				return 1;
		}
		for (size_t j = 0; j < f[i].name_len; j++) {
			unsigned char c = (unsigned char)f[i].name[j];
			if (c <= ' ' || c >= 0x7f || strchr("\"(),/:;<=>?@[\\]{}", c))
				return 1;
		}
		static const char *const names[] = {"content-length", "transfer-encoding", "host"};
		for (size_t k = 0; k < 3; k++)
			if (f[i].name_len == strlen(names[k]) &&
			    strncasecmp(f[i].name, names[k], f[i].name_len) == 0)
				return 1;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	int http11 = data[0] & 1;
	size_t cut = data[1] < 255 ? data[1] : (size_t)-1;
	field f[MAX_FIELDS + 1];
	size_t n = 0;
	const char *p = (const char *)data + 2, *end = (const char *)data + size;
	while (p < end && n < MAX_FIELDS) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		size_t len = (size_t)(eol - p);
		if (len && p[len - 1] == '\r')
			len--;
		const char *colon = memchr(p, ':', len);
		if (colon) {
			const char *v = colon + 1, *vend = p + len;
			while (v < vend && (*v == ' ' || *v == '\t'))
				v++;
			f[n++] = (field){p, v, (size_t)(colon - p), (size_t)(vend - v)};
		}
		p = nl ? nl + 1 : end;
	}
	mock_framing a, b;
	int code = verdict(f, n, http11, cut, &a);
	FUZZ_CHECK(code == 0 || code == 400 || code == 501);
	FUZZ_CHECK(code == 0 || (a.text && (strncmp(a.text, "400 Bad Request", 15) == 0 ||
	                                    strcmp(a.text, "Unsupported transfer encoding") == 0)));
	FUZZ_CHECK(code != 501 || strcmp(a.text, "Unsupported transfer encoding") == 0);
	FUZZ_CHECK(verdict(f, n, http11, cut, &b) == code);
	FUZZ_CHECK(code == 0 || strcmp(a.text, b.text) == 0);
	if (cut >= n && !has_framing_field(f, n)) {
		if (http11)
			FUZZ_CHECK(
			    code == 400 &&
			    strcmp(a.text, "400 Bad Request: missing required Host header") == 0);
		else
			FUZZ_CHECK(code == 0);
	}
	if (!http11 && code == 0 && n < MAX_FIELDS && cut > n && !has_framing_field(f, n)) {
		f[n] = (field){"Host", "example.com:443", 4, 15};
		FUZZ_CHECK(verdict(f, n + 1, 0, cut, &b) == 0);
	}
	return 0;
}
