#include <nodelet/errors.h>
#include <nodelet/json_text.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

const char *nl_json_text_skip_ws(const char *p, const char *end)
{
	while (p < end && is_ws(*p))
		p++;
	return p;
}

/* p at '"': past the closing quote, or NULL. */
static const char *skip_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

const char *nl_json_text_skip_value(const char *p, const char *end)
{
	size_t depth = 0;
	if (p < end && *p == '"')
		return skip_string(p, end);
	if (p < end && *p != '{' && *p != '[') {
		const char *start = p;
		while (p < end && *p != ',' && *p != '}' && *p != ']' && !is_ws(*p))
			p++;
		return p > start ? p : NULL;
	}
	while (p < end) {
		if (*p == '"') {
			if (!(p = skip_string(p, end)))
				return NULL;
			continue;
		}
		if (*p == '{' || *p == '[')
			depth++;
		else if ((*p == '}' || *p == ']') && --depth == 0)
			return p + 1;
		p++;
	}
	return NULL;
}

int nl_json_text_object(nl_json_text_iter *it, const char *p, const char *end)
{
	p = nl_json_text_skip_ws(p, end);
	if (p >= end)
		return NL_EPARSE;
	if (*p != '{')
		return NL_ENOTFOUND;
	it->p = nl_json_text_skip_ws(p + 1, end);
	it->end = end;
	it->comma = 0;
	return 0;
}

int nl_json_text_next(nl_json_text_iter *it, const char **key, size_t *klen, const char **val,
                      size_t *vlen)
{
	const char *p = it->p, *end = it->end;
	if (p < end && *p == '}' && !it->comma)
		return 0;
	const char *k = p < end && *p == '"' ? p : NULL, *kend = k ? skip_string(k, end) : NULL;
	if (!kend)
		return NL_EPARSE;
	p = nl_json_text_skip_ws(kend, end);
	if (p >= end || *p != ':')
		return NL_EPARSE;
	const char *v = nl_json_text_skip_ws(p + 1, end), *vend = nl_json_text_skip_value(v, end);
	if (!vend)
		return NL_EPARSE;
	p = nl_json_text_skip_ws(vend, end);
	it->comma = p < end && *p == ',';
	if (it->comma)
		p = nl_json_text_skip_ws(p + 1, end);
	else if (p >= end || *p != '}')
		return NL_EPARSE;
	it->p = p;
	*key = k + 1;
	*klen = (size_t)(kend - k) - 2;
	*val = v;
	*vlen = (size_t)(vend - v);
	return 1;
}

/* In the object at p, the value of member name (nlen bytes). */
static int find_member(const char **val, size_t *vlen, const char *p, const char *end,
                       const char *name, size_t nlen)
{
	nl_json_text_iter it;
	const char *k;
	size_t klen;
	int rc = nl_json_text_object(&it, p, end);
	if (rc != 0)
		return rc;
	while ((rc = nl_json_text_next(&it, &k, &klen, val, vlen)) == 1)
		if (klen == nlen && memcmp(k, name, nlen) == 0)
			return 0;
	return rc == 0 ? NL_ENOTFOUND : rc;
}

int nl_json_text_member(const char **val, size_t *vlen, const char *json, size_t len,
                        const char *path)
{
	const char *p = json, *end = json + len, *v = NULL;
	size_t n = 0;
	while (*path) {
		size_t nlen = strcspn(path, ".");
		int rc = find_member(&v, &n, p, end, path, nlen);
		if (rc != 0)
			return rc;
		p = v;
		end = v + n;
		path += nlen + (path[nlen] == '.');
	}
	if (!v)
		return NL_ENOTFOUND;
	*val = v;
	*vlen = n;
	return 0;
}

/* ---- strings as Go reads them (nl_json_text_clean) ---------------------- */

static int hex4(const char *p, const char *end, unsigned *out)
{
	unsigned v = 0;
	if (end - p < 4)
		return 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		unsigned d;
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return 0;
		v = v << 4 | d;
	}
	*out = v;
	return 1;
}

/* utf8.DecodeRune's width of the valid sequence at p, or 0. */
static size_t utf8_width(const unsigned char *p, const unsigned char *end)
{
	unsigned char c = p[0];
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		if (c == 0xe0)
			lo = 0xa0; /* overlong */
		else if (c == 0xed)
			hi = 0x9f; /* surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		if (c == 0xf0)
			lo = 0x90; /* overlong */
		else if (c == 0xf4)
			hi = 0x8f; /* past U+10FFFF */
	} else
		return 0;
	if ((size_t)(end - p) < n || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* The pass itself: with o NULL it only measures. Returns the output length;
 * *changed tells whether it differs from the input. Member names are told
 * from values by a stack of open containers (a bit per level) and whether
 * a name is due: after '{' and after ',' inside an object. Levels past
 * the stack's depth (json-c refuses them anyway) count as arrays. */
#define CLEAN_MAX_DEPTH 4096
static size_t clean_pass(char *o, const char *text, size_t len, int *changed)
{
	unsigned char is_obj[CLEAN_MAX_DEPTH / 8] = {0};
	size_t depth = 0, w = 0;
	int key_due = 0;
	const char *p = text, *end = text + len;
	*changed = 0;
#define PUT(src, n)                                \
	do {                                       \
		if (o)                             \
			memcpy(o + w, (src), (n)); \
		w += (n);                          \
	} while (0)
	while (p < end) {
		char c = *p;
		/* json-c (not strict) takes '...' strings too: clean those alike */
		if (c != '"' && c != '\'') {
			if (c == '{' || c == '[') {
				if (depth < CLEAN_MAX_DEPTH) {
					unsigned char bit = (unsigned char)(1u << (depth % 8));
					if (c == '{')
						is_obj[depth / 8] |= bit;
					else
						is_obj[depth / 8] &= (unsigned char)~bit;
				}
				depth++;
				key_due = c == '{';
			} else if (c == '}' || c == ']') {
				depth -= depth > 0;
				key_due = 0;
			} else if (c == ',') {
				key_due = depth > 0 && depth <= CLEAN_MAX_DEPTH &&
				          (is_obj[(depth - 1) / 8] >> ((depth - 1) % 8) & 1);
			}
			PUT(p, 1);
			p++;
			continue;
		}
		int in_key = key_due;
		char quote = c;
		key_due = 0;
		PUT(p, 1);
		for (p++; p < end && *p != quote;) {
			unsigned u = 0, u2 = 0;
			/* a run of plain ASCII, copied at once */
			const char *run = p;
			while (p < end && *p != quote && *p != '\\' && (unsigned char)*p < 0x80)
				p++;
			if (p > run) {
				PUT(run, (size_t)(p - run));
				continue;
			}
			if (*p == '\\' && end - p >= 2 && p[1] == 'u' && hex4(p + 2, end, &u)) {
				if (u == 0 && in_key) {
					PUT(NL_JSON_KEY_NUL, 2);
					*changed = 1;
					p += 6;
				} else if (u >= 0xd800 && u <= 0xdbff && end - p >= 12 &&
				           p[6] == '\\' && p[7] == 'u' && hex4(p + 8, end, &u2) &&
				           u2 >= 0xdc00 && u2 <= 0xdfff) {
					PUT(p, 12);
					p += 12;
				} else if (u >= 0xd800 && u <= 0xdfff) {
					PUT("\\ufffd", 6);
					*changed = 1;
					p += 6;
				} else {
					PUT(p, 6);
					p += 6;
				}
			} else if (*p == '\\') {
				size_t n = end - p >= 2 ? 2 : 1;
				PUT(p, n);
				p += n;
			} else {
				size_t n = utf8_width((const unsigned char *)p,
				                      (const unsigned char *)end);
				if (n == 0) {
					PUT("\xef\xbf\xbd", 3);
					*changed = 1;
					p++;
				} else {
					PUT(p, n);
					p += n;
				}
			}
		}
		if (p < end) {
			PUT(p, 1);
			p++;
		}
	}
#undef PUT
	return w;
}

/* Whether text holds a byte the pass could change anything for: one of
 * 0x80-0xff (UTF-8 to check) or a backslash (an escape to read). Eight
 * bytes at a time: most objects have neither, and this scan is several
 * times cheaper than the pass (docs/performance.md). */
static int may_need_pass(const char *text, size_t len)
{
	const uint64_t high = 0x8080808080808080ull, ones = 0x0101010101010101ull;
	const uint64_t bs = ones * '\\';
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, text + i, 8);
		uint64_t x = w ^ bs; /* a zero byte where w has a backslash */
		if ((w & high) || ((x - ones) & ~x & high))
			return 1;
	}
	for (; i < len; i++)
		if ((unsigned char)text[i] >= 0x80 || text[i] == '\\')
			return 1;
	return 0;
}

int nl_json_text_clean(char **out, size_t *out_len, const char *text, size_t len)
{
	int changed = 0;
	if (!may_need_pass(text, len)) {
		*out = NULL;
		*out_len = len;
		return 0;
	}
	size_t n = clean_pass(NULL, text, len, &changed);
	if (!changed) {
		*out = NULL;
		*out_len = len;
		return 0;
	}
	char *buf = malloc(n + 1);
	if (!buf)
		return NL_ENOMEM;
	clean_pass(buf, text, len, &changed);
	buf[n] = '\0';
	*out = buf;
	*out_len = n;
	return 0;
}

int nl_json_key_has_nul(const char *s)
{
	return s && strstr(s, NL_JSON_KEY_NUL) != NULL;
}

/* Copies [p, q) into o (when o is not NULL) with each marker written as
 * \u0000; the length written. */
static size_t unmark_span(char *o, const char *p, const char *q)
{
	size_t w = 0;
	while (p < q) {
		if (q - p >= 2 && memcmp(p, NL_JSON_KEY_NUL, 2) == 0) {
			if (o)
				memcpy(o + w, "\\u0000", 6);
			w += 6;
			p += 2;
		} else {
			if (o)
				o[w] = *p;
			w++;
			p++;
		}
	}
	return w;
}

/* One pass over text: the output's length, written to o unless NULL. */
static size_t unmark_pass(char *o, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *copied = text;
	size_t w = 0;
	while (p < end) {
		if (*p != '"') {
			p++;
			continue;
		}
		const char *q = skip_string(p, end);
		if (!q)
			break;
		const char *after = nl_json_text_skip_ws(q, end);
		if (after < end && *after == ':') {
			size_t n = (size_t)(p - copied);
			if (o)
				memcpy(o + w, copied, n);
			w += n;
			w += unmark_span(o ? o + w : NULL, p, q);
			copied = q;
		}
		p = q;
	}
	size_t n = (size_t)(end - copied);
	if (o)
		memcpy(o + w, copied, n);
	return w + n;
}

int nl_json_text_unmark_keys(char **out, size_t *out_len, const char *text, size_t len)
{
	*out = NULL;
	if (!memmem(text, len, NL_JSON_KEY_NUL, 2))
		return 0;
	size_t n = unmark_pass(NULL, text, len);
	if (n == len)
		return 0;
	char *buf = malloc(n + 1);
	if (!buf)
		return NL_ENOMEM;
	unmark_pass(buf, text, len);
	buf[n] = '\0';
	*out = buf;
	*out_len = n;
	return 0;
}

char *nl_json_key_mark(const char *s, size_t len)
{
	size_t nuls = 0, w = 0;
	for (size_t i = 0; i < len; i++)
		nuls += s[i] == '\0';
	char *buf = malloc(len + nuls + 1);
	if (!buf)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		if (s[i]) {
			buf[w++] = s[i];
		} else {
			memcpy(buf + w, NL_JSON_KEY_NUL, 2);
			w += 2;
		}
	}
	buf[w] = '\0';
	return buf;
}

char *nl_json_key_unmark(const char *s, size_t *len)
{
	size_t n = strlen(s), w = 0;
	char *buf = malloc(n + 1);
	if (!buf)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)s[i] == 0xc0 && (unsigned char)s[i + 1] == 0x80) {
			buf[w++] = '\0';
			i++;
		} else {
			buf[w++] = s[i];
		}
	}
	buf[w] = '\0';
	*len = w;
	return buf;
}
