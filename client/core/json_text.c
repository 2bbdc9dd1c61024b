#include <nodelet/errors.h>
#include <nodelet/json_text.h>
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
