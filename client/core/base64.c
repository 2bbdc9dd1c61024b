#include <nodelet/base64.h>

#include <stdint.h>
#include <stdlib.h>

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int b64_value(unsigned char ch)
{
	if (ch >= 'A' && ch <= 'Z')
		return ch - 'A';
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a' + 26;
	if (ch >= '0' && ch <= '9')
		return ch - '0' + 52;
	return ch == '+' ? 62 : ch == '/' ? 63 : -1;
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

/* Go's decoder walks the input one 4-character quantum at a time, so that
 * is done here too: the offsets it reports for corrupt input are Go's. */
static int decode(unsigned char *out, size_t *outlen, const char *s, size_t len, size_t *bad_at)
{
	size_t si = 0, n = 0;
	for (;;) {
		int q[4] = {0, 0, 0, 0};
		int got = 4;
		for (int j = 0; j < 4; j++) {
			if (si == len) {
				if (j == 0) {
					*outlen = n;
					return 0;
				}
				*bad_at = si - (size_t)j;
				return -1;
			}
			char in = s[si++];
			int v = b64_value((unsigned char)in);
			if (v >= 0) {
				q[j] = v;
				continue;
			}
			if (is_newline(in)) {
				j--;
				continue;
			}
			if (in != '=' || j < 2) {
				*bad_at = si - 1;
				return -1;
			}
			if (finish_padding(s, len, si, j, bad_at))
				return -1;
			got = j;
			si = len;
			break;
		}
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

int nl_base64_decode(unsigned char **out, size_t *len_out, const char *s, size_t len, nl_err *err)
{
	size_t n = 0, bad = 0;
	if (!out || (!s && len))
		return nl_err_set(err, NL_EINVAL, "nl_base64_decode: missing argument");
	unsigned char *buf = malloc(len / 4 * 3 + 4);
	if (!buf)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	if (decode(buf, &n, s, len, &bad)) {
		free(buf);
		return nl_err_set(err, NL_EPARSE, "illegal base64 data at input byte %zu", bad);
	}
	buf[n] = '\0';
	*out = buf;
	if (len_out)
		*len_out = n;
	return 0;
}

int nl_base64_encode(char **out, const unsigned char *data, size_t len)
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
		buf[o++] = alphabet[v >> 18 & 63];
		buf[o++] = alphabet[v >> 12 & 63];
		buf[o++] = i + 1 < len ? alphabet[v >> 6 & 63] : '=';
		buf[o++] = i + 2 < len ? alphabet[v & 63] : '=';
	}
	buf[o] = '\0';
	*out = buf;
	return 0;
}
