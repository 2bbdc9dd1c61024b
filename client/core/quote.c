/* Go's strconv.Quote (nodelet/quote.h), after appendQuotedWith and
 * appendEscapedRune in Go's src/strconv/quote.go:
 *
 *   - a byte that does not start a valid UTF-8 sequence (utf8.DecodeRune
 *     gives RuneError with width 1) is \xNN, one byte at a time;
 *   - '"' and '\\' are backslashed;
 *   - a printable rune (IsPrint) is kept as its UTF-8 bytes;
 *   - \a \b \f \n \r \t \v by name;
 *   - any other rune below ' ', and DEL, as \xNN (DEL since Go 1.18; before
 *     it was \u007f; quote_test.go has {"\x7f", `"\x7f"`});
 *   - any other rune as \uNNNN below 0x10000, else \UNNNNNNNN.
 *
 * IsPrint is exact for Latin-1 (Go's own rule, below) and above it follows
 * the table in isprint.h, generated from Unicode 14.0.0 by gen_isprint.py.
 * Go 1.21 and later use Unicode 15.0.0: the characters that version added
 * (Kawi, CJK extension H and others, none in Kubernetes names) are escaped
 * here where Go keeps them. */
#include <nodelet/quote.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isprint.h"

/* One unit of output: an escape or the bytes of one rune. */
typedef struct {
	char text[12];
	size_t len;
	size_t consumed; /* input bytes it stands for */
} piece;

/* utf8.DecodeRune: the rune at s and its width, or 0 for a byte that does
 * not start a valid sequence (overlong, surrogate, past U+10FFFF, cut). */
static size_t utf8_decode(const unsigned char *s, size_t avail, uint32_t *out)
{
	uint32_t r, min;
	size_t n;
	if (s[0] < 0x80) {
		*out = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0)
		n = 2, r = s[0] & 0x1fu, min = 0x80;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, r = s[0] & 0x0fu, min = 0x800;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, r = s[0] & 0x07u, min = 0x10000;
	else
		return 0;
	if (n > avail)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		r = r << 6 | (s[i] & 0x3fu);
	}
	if (r < min || r > 0x10ffff || (r >= 0xd800 && r <= 0xdfff))
		return 0;
	*out = r;
	return n;
}

bool nl_quote_is_print(uint32_t r)
{
	/* strconv.IsPrint's fast check for Latin-1. */
	if (r <= 0xff)
		return (r >= 0x20 && r <= 0x7e) || (r >= 0xa1 && r != 0xad);
	size_t lo = 0, hi = sizeof(isprint_ranges) / sizeof(isprint_ranges[0]);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r < isprint_ranges[mid][0])
			hi = mid;
		else if (r > isprint_ranges[mid][1])
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

static char short_escape(uint32_t r)
{
	switch (r) {
	case '\a':
		return 'a';
	case '\b':
		return 'b';
	case '\f':
		return 'f';
	case '\n':
		return 'n';
	case '\r':
		return 'r';
	case '\t':
		return 't';
	case '\v':
		return 'v';
	default:
		return 0;
	}
}

static void next_piece(piece *pc, const unsigned char *s, size_t avail)
{
	uint32_t r = 0;
	size_t n = utf8_decode(s, avail, &r);
	char e;
	int w;
	if (n == 0) {
		pc->consumed = 1;
		w = snprintf(pc->text, sizeof(pc->text), "\\x%02x", s[0]);
	} else if (r == '"' || r == '\\') {
		pc->consumed = 1;
		w = snprintf(pc->text, sizeof(pc->text), "\\%c", (char)r);
	} else if (nl_quote_is_print(r)) {
		pc->consumed = n;
		memcpy(pc->text, s, n);
		w = (int)n;
	} else if ((e = short_escape(r)) != 0) {
		pc->consumed = 1;
		w = snprintf(pc->text, sizeof(pc->text), "\\%c", e);
	} else {
		pc->consumed = n;
		if (r < ' ' || r == 0x7f)
			w = snprintf(pc->text, sizeof(pc->text), "\\x%02x", (unsigned)r);
		else if (r < 0x10000)
			w = snprintf(pc->text, sizeof(pc->text), "\\u%04x", (unsigned)r);
		else
			w = snprintf(pc->text, sizeof(pc->text), "\\U%08x", (unsigned)r);
	}
	pc->len = (size_t)w;
}

int nl_quote_append_n(nl_buf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	int rc = nl_buf_add(b, "\"", 1);
	while (rc == 0 && len > 0) {
		piece pc;
		next_piece(&pc, p, len);
		rc = nl_buf_add(b, pc.text, pc.len);
		p += pc.consumed;
		len -= pc.consumed;
	}
	return rc ? rc : nl_buf_add(b, "\"", 1);
}

int nl_quote_append(nl_buf *b, const char *s)
{
	s = s ? s : "";
	return nl_quote_append_n(b, s, strlen(s));
}

char *nl_quote_dup(const char *s)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	if (nl_quote_append(&b, s) != 0) {
		nl_buf_free(&b);
		return NULL;
	}
	return nl_buf_detach(&b, NULL);
}

void nl_quote_str(char *out, size_t cap, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t left = strlen((const char *)p), o = 0;
	if (cap < 3) {
		if (cap)
			out[0] = '\0';
		return;
	}
	out[o++] = '"';
	while (left > 0) {
		piece pc;
		next_piece(&pc, p, left);
		if (o + pc.len + 2 > cap) /* room for the closing quote and NUL */
			break;
		memcpy(out + o, pc.text, pc.len);
		o += pc.len;
		p += pc.consumed;
		left -= pc.consumed;
	}
	out[o++] = '"';
	out[o] = '\0';
}
