/* Go's %q (nodelet/quote.h) over any bytes, as names, field managers and
 * resourceVersions from the network reach it. The quoted text must be
 * printable ASCII or whole UTF-8 runes, and strconv.Unquote of it (done
 * here by hand) must give back exactly the input; the fixed-buffer form
 * must stay inside its buffer and close its quote. */
#include <nodelet/buf.h>
#include <nodelet/quote.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static size_t put_utf8(unsigned char *o, unsigned long r)
{
	if (r < 0x80)
		return o[0] = (unsigned char)r, 1;
	if (r < 0x800)
		return o[0] = (unsigned char)(0xc0 | r >> 6),
		       o[1] = (unsigned char)(0x80 | (r & 63)), 2;
	if (r < 0x10000) {
		o[0] = (unsigned char)(0xe0 | r >> 12);
		o[1] = (unsigned char)(0x80 | (r >> 6 & 63));
		o[2] = (unsigned char)(0x80 | (r & 63));
		return 3;
	}
	o[0] = (unsigned char)(0xf0 | r >> 18);
	o[1] = (unsigned char)(0x80 | (r >> 12 & 63));
	o[2] = (unsigned char)(0x80 | (r >> 6 & 63));
	o[3] = (unsigned char)(0x80 | (r & 63));
	return 4;
}

/* strconv.Unquote for what nl_quote writes; aborts on anything else. */
static size_t unquote(unsigned char *out, const char *q, size_t qlen)
{
	static const char named[] = "a\ab\bf\fn\nr\rt\tv\v\\\\\"\"";
	size_t o = 0;
	FUZZ_CHECK(qlen >= 2 && q[0] == '"' && q[qlen - 1] == '"');
	for (size_t i = 1; i < qlen - 1;) {
		unsigned char c = (unsigned char)q[i];
		FUZZ_CHECK(c != '"' && c >= 0x20 && c != 0x7f);
		if (c != '\\') {
			out[o++] = c;
			i++;
			continue;
		}
		char e = q[i + 1];
		const char *n = strchr(named, e);
		if (e && n && (n - named) % 2 == 0) {
			out[o++] = (unsigned char)n[1];
			i += 2;
			continue;
		}
		size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0;
		FUZZ_CHECK(digits && i + 2 + digits <= qlen - 1);
		unsigned long v = 0;
		for (size_t k = 0; k < digits; k++) {
			int h = hexval(q[i + 2 + k]);
			FUZZ_CHECK(h >= 0);
			v = v << 4 | (unsigned long)h;
		}
		if (e == 'x')
			out[o++] = (unsigned char)v;
		else
			o += put_utf8(out + o, v);
		i += 2 + digits;
	}
	return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	FUZZ_CHECK(nl_quote_append_n(&b, (const char *)data, size) == 0);
	unsigned char *back = malloc(size + 1);
	FUZZ_CHECK(back != NULL);
	FUZZ_CHECK(unquote(back, b.data, b.len) == size);
	FUZZ_CHECK(memcmp(back, data, size) == 0);
	free(back);
	nl_buf_free(&b);

	/* The fixed-buffer form on the text up to the first NUL. */
	char *s = malloc(size + 1);
	FUZZ_CHECK(s != NULL);
	memcpy(s, data, size);
	s[size] = '\0';
	char small[40];
	memset(small, 'X', sizeof(small));
	nl_quote_str(small, 24, s);
	FUZZ_CHECK(small[24] == 'X' && memchr(small, '\0', 24) != NULL);
	size_t n = strlen(small);
	FUZZ_CHECK(n >= 2 && small[0] == '"' && small[n - 1] == '"');
	free(s);
	return 0;
}
