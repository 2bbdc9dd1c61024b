#include <nodelet/base64.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* One of Go's encodings: an alphabet, and whether '=' pads. */
typedef struct {
	const char *alphabet;
	bool padded;
} encoding;

static const encoding std_enc = {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
                                 true};
static const encoding raw_url_enc = {
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", false};

static int b64_value(const encoding *e, unsigned char ch)
{
	if (ch >= 'A' && ch <= 'Z')
		return ch - 'A';
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a' + 26;
	if (ch >= '0' && ch <= '9')
		return ch - '0' + 52;
	return ch == (unsigned char)e->alphabet[62]   ? 62
	       : ch == (unsigned char)e->alphabet[63] ? 63
	                                              : -1;
}

static int is_newline(char ch)
{
	return ch == '\n' || ch == '\r';
}

static size_t skip_newlines(const char *s, size_t len, size_t si)
{
	while (si < len && is_newline(s[si]))
		si++;
	return si;
}

/* A '=' at quantum position j (2 or 3) must end the input: "xx==" or "xxx=",
 * then only line breaks. Returns 0 and the index after the padding, or -1
 * with Go's offset of the offending byte in *bad_at. */
static int finish_padding(const char *s, size_t len, size_t si, int j, size_t *bad_at)
{
	if (j == 2) {
		si = skip_newlines(s, len, si);
		if (si == len) {
			*bad_at = len;
			return -1;
		}
		if (s[si] != '=') {
			*bad_at = si - 1;
			return -1;
		}
		si++;
	}
	si = skip_newlines(s, len, si);
	if (si < len) {
		*bad_at = si;
		return -1;
	}
	return 0;
}

/* Input ends at quantum position j: fine at 0, and without padding at 2 or
 * 3 too (the quantum is then complete with j characters). */
static int end_of_input(const encoding *e, size_t si, int j, size_t *bad_at)
{
	if (j == 0 || (!e->padded && j >= 2))
		return 0;
	*bad_at = si - (size_t)j;
	return -1;
}

/* Go's decoder walks the input one 4-character quantum at a time, so that
 * is done here too: the offsets it reports for corrupt input are Go's.
 * Returns the count of characters in the final quantum (4 unless it ended
 * early), 0 at the end, or -1. */
static int decode_quantum(const encoding *e, const char *s, size_t len, size_t *si, int q[4],
                          size_t *bad_at)
{
	for (int j = 0; j < 4; j++) {
		if (*si == len)
			return end_of_input(e, *si, j, bad_at) ? -1 : j;
		char in = s[(*si)++];
		int v = b64_value(e, (unsigned char)in);
		if (v >= 0) {
			q[j] = v;
			continue;
		}
		if (is_newline(in)) {
			j--;
			continue;
		}
		if (!e->padded || in != '=' || j < 2) {
			*bad_at = *si - 1;
			return -1;
		}
		if (finish_padding(s, len, *si, j, bad_at))
			return -1;
		*si = len;
		return j;
	}
	return 4;
}

static int decode(const encoding *e, unsigned char *out, size_t *outlen, const char *s, size_t len,
                  size_t *bad_at)
{
	size_t si = 0, n = 0;
	for (;;) {
		int q[4] = {0, 0, 0, 0};
		int got = decode_quantum(e, s, len, &si, q, bad_at);
		if (got < 0)
			return -1;
		uint32_t v = (uint32_t)q[0] << 18 | (uint32_t)q[1] << 12 | (uint32_t)q[2] << 6 |
		             (uint32_t)q[3];
		for (int k = 0; k < got - 1; k++)
			out[n++] = (unsigned char)(v >> (16 - 8 * k));
		if (got < 4) {
			*outlen = n;
			return 0;
		}
	}
}

static int decode_new(const encoding *e, unsigned char **out, size_t *len_out, const char *s,
                      size_t len, nl_err *err)
{
	size_t n = 0, bad = 0;
	if (!out || (!s && len))
		return nl_err_set(err, NL_EINVAL, "base64 decode: missing argument");
	unsigned char *buf = malloc(len / 4 * 3 + 4);
	if (!buf)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	if (decode(e, buf, &n, s, len, &bad)) {
		free(buf);
		return nl_err_set(err, NL_EPARSE, "illegal base64 data at input byte %zu", bad);
	}
	buf[n] = '\0';
	*out = buf;
	if (len_out)
		*len_out = n;
	return 0;
}

static int encode_new(const encoding *e, char **out, const unsigned char *data, size_t len)
{
	if (len > SIZE_MAX / 4 * 3 - 3)
		return NL_ENOMEM;
	char *buf = malloc((len + 2) / 3 * 4 + 1);
	size_t o = 0;
	if (!buf)
		return NL_ENOMEM;
	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)data[i] << 16;
		if (i + 1 < len)
			v |= (uint32_t)data[i + 1] << 8;
		if (i + 2 < len)
			v |= data[i + 2];
		buf[o++] = e->alphabet[v >> 18 & 63];
		buf[o++] = e->alphabet[v >> 12 & 63];
		if (i + 1 < len)
			buf[o++] = e->alphabet[v >> 6 & 63];
		else if (e->padded)
			buf[o++] = '=';
		if (i + 2 < len)
			buf[o++] = e->alphabet[v & 63];
		else if (e->padded)
			buf[o++] = '=';
	}
	buf[o] = '\0';
	*out = buf;
	return 0;
}

int nl_base64_decode(unsigned char **out, size_t *len_out, const char *s, size_t len, nl_err *err)
{
	return decode_new(&std_enc, out, len_out, s, len, err);
}

int nl_base64_encode(char **out, const unsigned char *data, size_t len)
{
	return encode_new(&std_enc, out, data, len);
}

int nl_base64url_decode(unsigned char **out, size_t *len_out, const char *s, size_t len,
                        nl_err *err)
{
	return decode_new(&raw_url_enc, out, len_out, s, len, err);
}

int nl_base64url_encode(char **out, const unsigned char *data, size_t len)
{
	return encode_new(&raw_url_enc, out, data, len);
}
