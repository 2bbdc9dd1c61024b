/* Path expressions (jpath.h): a small recursive-descent parser into
 * segments, and a walk over json-c. */
#include "jpath.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	const char *expr;
	size_t pos;
	nl_scn_jpath *p;
	nl_err *err;
} parser;

static int expected(parser *ps, const char *what)
{
	return nl_err_set(ps->err, NL_EPARSE, "path \"%s\": expected %s at character %zu", ps->expr,
	                  what, ps->pos + 1);
}

static int add_seg(parser *ps, nl_scn_jpath_seg seg)
{
	nl_scn_jpath_seg *n = realloc(ps->p->segs, (ps->p->n + 1) * sizeof(*n));
	if (!n) {
		free(seg.key);
		free(seg.value);
		return nl_err_set(ps->err, NL_ENOMEM, "out of memory");
	}
	ps->p->segs = n;
	n[ps->p->n++] = seg;
	return 0;
}

/* A bare key: everything up to '.', '[' or the end. */
static int bare(char **out, parser *ps, const char *stops, const char *what)
{
	size_t start = ps->pos;
	while (ps->expr[ps->pos] && !strchr(stops, ps->expr[ps->pos]))
		ps->pos++;
	if (ps->pos == start)
		return expected(ps, what);
	if (!(*out = strndup(ps->expr + start, ps->pos - start)))
		return nl_err_set(ps->err, NL_ENOMEM, "out of memory");
	return 0;
}

/* "..." (\" and \\ escapes) or '...' (no escapes). */
static int quoted(char **out, parser *ps)
{
	char q = ps->expr[ps->pos++];
	size_t cap = strlen(ps->expr) + 1, n = 0;
	char *s = malloc(cap);
	if (!s)
		return nl_err_set(ps->err, NL_ENOMEM, "out of memory");
	for (;;) {
		char c = ps->expr[ps->pos];
		if (!c) {
			free(s);
			return expected(ps, q == '"' ? "a closing '\"'" : "a closing \"'\"");
		}
		ps->pos++;
		if (c == q)
			break;
		if (q == '"' && c == '\\' && ps->expr[ps->pos])
			c = ps->expr[ps->pos++];
		s[n++] = c;
	}
	s[n] = '\0';
	*out = s;
	return 0;
}

static int is_index(const char *s, size_t len)
{
	size_t i = s[0] == '-' ? 1 : 0;
	if (i == len)
		return 0;
	for (; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

static int bracket(parser *ps)
{
	nl_scn_jpath_seg seg = {0};
	int rc;
	ps->pos++; /* '[' */
	char c = ps->expr[ps->pos];
	if (c == '"' || c == '\'') {
		seg.kind = NL_JPATH_KEY;
		rc = quoted(&seg.key, ps);
	} else {
		size_t end = strcspn(ps->expr + ps->pos, "]=");
		if (ps->expr[ps->pos + end] != '=' && is_index(ps->expr + ps->pos, end)) {
			seg.kind = NL_JPATH_INDEX;
			errno = 0;
			seg.index = strtol(ps->expr + ps->pos, NULL, 10);
			if (errno != 0)
				return expected(ps, "a smaller index");
			ps->pos += end;
			rc = 0;
		} else {
			seg.kind = NL_JPATH_SELECT;
			rc = bare(&seg.key, ps, "=]", "an index, a quoted key or field=value");
			if (rc == 0 && ps->expr[ps->pos] != '=')
				rc = expected(ps, "'=' (or an index)");
			if (rc == 0) {
				ps->pos++;
				c = ps->expr[ps->pos];
				rc = c == '"' || c == '\''
				         ? quoted(&seg.value, ps)
				         : bare(&seg.value, ps, "]", "a value after '='");
			}
		}
	}
	if (rc == 0 && ps->expr[ps->pos] != ']')
		rc = expected(ps, "']'");
	if (rc != 0) {
		free(seg.key);
		free(seg.value);
		return rc;
	}
	ps->pos++;
	return add_seg(ps, seg);
}

static int parse_all(parser *ps)
{
	int rc = 0;
	if (!ps->expr[0])
		return 0;
	if (ps->expr[0] != '[') {
		nl_scn_jpath_seg seg = {NL_JPATH_KEY, NULL, NULL, 0};
		if ((rc = bare(&seg.key, ps, ".[]", "a field name")) != 0 ||
		    (rc = add_seg(ps, seg)))
			return rc;
	}
	while (rc == 0 && ps->expr[ps->pos]) {
		char c = ps->expr[ps->pos];
		if (c == '[') {
			rc = bracket(ps);
		} else if (c == '.') {
			nl_scn_jpath_seg seg = {NL_JPATH_KEY, NULL, NULL, 0};
			ps->pos++;
			if ((rc = bare(&seg.key, ps, ".[]", "a field name after '.'")) == 0)
				rc = add_seg(ps, seg);
		} else {
			rc = expected(ps, "'.' or '['");
		}
	}
	return rc;
}

int nl_scn_jpath_parse(nl_scn_jpath **out, const char *expr, nl_err *err)
{
	parser ps = {expr ? expr : "", 0, calloc(1, sizeof(nl_scn_jpath)), err};
	if (!ps.p)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	int rc = parse_all(&ps);
	if (rc != 0) {
		nl_scn_jpath_free(ps.p);
		return rc;
	}
	*out = ps.p;
	return 0;
}

void nl_scn_jpath_free(nl_scn_jpath *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++) {
		free(p->segs[i].key);
		free(p->segs[i].value);
	}
	free(p->segs);
	free(p);
}

/* Whether a scalar reads as text: strings as they are, other scalars as
 * their JSON text (so [port=80] and [ready=true] work). */
static int scalar_is(json_object *v, const char *text)
{
	if (!v || json_object_is_type(v, json_type_object) ||
	    json_object_is_type(v, json_type_array))
		return 0;
	if (json_object_is_type(v, json_type_string))
		return strcmp(json_object_get_string(v), text) == 0;
	return strcmp(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN), text) == 0;
}

static int step(json_object **cur, const nl_scn_jpath_seg *s)
{
	json_object *c = *cur;
	if (s->kind == NL_JPATH_KEY)
		return json_object_is_type(c, json_type_object) &&
		       json_object_object_get_ex(c, s->key, cur);
	if (!json_object_is_type(c, json_type_array))
		return 0;
	long n = (long)json_object_array_length(c);
	if (s->kind == NL_JPATH_INDEX) {
		long i = s->index < 0 ? n + s->index : s->index;
		if (i < 0 || i >= n)
			return 0;
		*cur = json_object_array_get_idx(c, (size_t)i);
		return 1;
	}
	for (long i = 0; i < n; i++) {
		json_object *item = json_object_array_get_idx(c, (size_t)i), *field;
		if (json_object_is_type(item, json_type_object) &&
		    json_object_object_get_ex(item, s->key, &field) && scalar_is(field, s->value)) {
			*cur = item;
			return 1;
		}
	}
	return 0;
}

/* Follow p from root. Returns 1 and the value in *out (borrowed; NULL for a
 * JSON null) when every segment exists, else 0 (and *out untouched). */
static int jpath_get(json_object **out, json_object *root, const nl_scn_jpath *p)
{
	json_object *cur = root;
	for (size_t i = 0; i < p->n; i++)
		if (!step(&cur, &p->segs[i]))
			return 0;
	*out = cur;
	return 1;
}

int nl_scn_jpath_lookup(json_object **out, int *found, json_object *root, const char *expr,
                        nl_err *err)
{
	nl_scn_jpath *p = NULL;
	int rc = nl_scn_jpath_parse(&p, expr, err);
	if (rc != 0)
		return rc;
	*found = jpath_get(out, root, p);
	nl_scn_jpath_free(p);
	return 0;
}
