/* The expected-vs-actual diff of a failed assertion (match.h): the actual
 * value is cut down to the expectation's shape (what matched prints
 * exactly as expected, so only differences remain), both are rendered as
 * YAML-like lines, and the lines are aligned by a longest common
 * subsequence. */
#include <stdlib.h>
#include <string.h>

#include "match.h"

/* Alignment is quadratic; beyond this many line pairs print both sides. */
#define DIFF_MAX_CELLS (4u * 1024u * 1024u)

typedef struct {
	char **v;
	size_t n, cap;
	int oom;
} lines;

static void lines_free(lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

static void push(lines *l, int indent, const char *a, const char *b)
{
	if (l->oom)
		return;
	if (l->n == l->cap) {
		size_t ncap = l->cap ? 2 * l->cap : 32;
		char **nv = realloc(l->v, ncap * sizeof(*nv));
		if (!nv) {
			l->oom = 1;
			return;
		}
		l->v = nv;
		l->cap = ncap;
	}
	size_t la = strlen(a), lb = b ? strlen(b) : 0;
	char *s = malloc((size_t)indent + la + lb + 1);
	if (!s) {
		l->oom = 1;
		return;
	}
	memset(s, ' ', (size_t)indent);
	memcpy(s + indent, a, la);
	if (b)
		memcpy(s + indent + la, b, lb);
	s[(size_t)indent + la + lb] = '\0';
	l->v[l->n++] = s;
}

static const char *scalar_text(json_object *v)
{
	return v ? json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
	                                                 JSON_C_TO_STRING_NOSLASHESCAPE)
	         : "null";
}

static int is_leaf(json_object *v)
{
	if (json_object_is_type(v, json_type_object))
		return json_object_object_length(v) == 0;
	if (json_object_is_type(v, json_type_array))
		return json_object_array_length(v) == 0;
	return 1;
}

static void render(lines *l, json_object *v, int indent)
{
	if (is_leaf(v)) {
		push(l, indent, scalar_text(v), NULL);
		return;
	}
	if (json_object_is_type(v, json_type_object)) {
		json_object_object_foreach(v, key, val)
		{
			if (is_leaf(val)) {
				char *k = malloc(strlen(key) + 3);
				if (!k) {
					l->oom = 1;
					return;
				}
				strcpy(k, key);
				strcat(k, ": ");
				push(l, indent, k, scalar_text(val));
				free(k);
			} else {
				push(l, indent, key, ":");
				render(l, val, indent + 2);
			}
		}
		return;
	}
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		json_object *item = json_object_array_get_idx(v, i);
		if (is_leaf(item)) {
			push(l, indent, "- ", scalar_text(item));
			continue;
		}
		size_t first = l->n;
		render(l, item, indent + 2);
		/* YAML's compact form: the item's first line carries the dash. */
		if (!l->oom && first < l->n)
			memcpy(l->v[first] + indent, "- ", 2);
	}
}

int nl_scn_render(nl_buf *out, json_object *v, int indent)
{
	lines l = {0};
	int rc = 0;
	render(&l, v, indent);
	for (size_t i = 0; rc == 0 && !l.oom && i < l.n; i++)
		rc = nl_buf_printf(out, "%s\n", l.v[i]);
	if (l.oom)
		rc = NL_ENOMEM;
	lines_free(&l);
	return rc;
}

/* --- projection --------------------------------------------------------------------------- */

static json_object *copy(json_object *v)
{
	json_object *c = NULL;
	return v && json_object_deep_copy(v, &c, NULL) == 0 ? c : NULL;
}

static int is_operator(json_object *v)
{
	if (!json_object_is_type(v, json_type_object) || json_object_object_length(v) != 1)
		return 0;
	json_object_object_foreach(v, key, val)
	{
		(void)val;
		return key[0] == '$';
	}
	return 0;
}

/* actual cut down to expected's keys; what matches is expected itself. */
static json_object *project(json_object *expected, json_object *actual)
{
	if (nl_scn_match_ok(expected, actual, 1))
		return copy(expected);
	if (is_operator(expected))
		return copy(actual);
	if (json_object_is_type(expected, json_type_object) &&
	    json_object_is_type(actual, json_type_object)) {
		json_object *p = json_object_new_object();
		json_object_object_foreach(expected, key, val)
		{
			json_object *a;
			if (p && json_object_object_get_ex(actual, key, &a))
				json_object_object_add(p, key, project(val, a));
		}
		return p;
	}
	if (json_object_is_type(expected, json_type_array) &&
	    json_object_is_type(actual, json_type_array)) {
		json_object *p = json_object_new_array();
		size_t ne = json_object_array_length(expected);
		for (size_t i = 0; p && i < json_object_array_length(actual); i++) {
			json_object *a = json_object_array_get_idx(actual, i);
			json_object_array_add(
			    p,
			    i < ne ? project(json_object_array_get_idx(expected, i), a) : copy(a));
		}
		return p;
	}
	return copy(actual);
}

/* --- alignment ---------------------------------------------------------------------------- */

static int emit(nl_buf *out, char sign, const char *line)
{
	return nl_buf_printf(out, "%c%s\n", sign, line);
}

static int align(nl_buf *out, const lines *a, const lines *b)
{
	size_t n = a->n, m = b->n;
	int rc = 0;
	if ((n + 1) * (m + 1) > DIFF_MAX_CELLS) {
		for (size_t i = 0; rc == 0 && i < n; i++)
			rc = emit(out, '-', a->v[i]);
		for (size_t j = 0; rc == 0 && j < m; j++)
			rc = emit(out, '+', b->v[j]);
		return rc;
	}
	unsigned *t = calloc((n + 1) * (m + 1), sizeof(*t));
	if (!t)
		return NL_ENOMEM;
#define T(i, j) t[(i) * (m + 1) + (j)]
	for (size_t i = n; i-- > 0;)
		for (size_t j = m; j-- > 0;)
			T(i, j) = strcmp(a->v[i], b->v[j]) == 0
			              ? T(i + 1, j + 1) + 1
			              : (T(i + 1, j) > T(i, j + 1) ? T(i + 1, j) : T(i, j + 1));
	size_t i = 0, j = 0;
	while (rc == 0 && (i < n || j < m)) {
		if (i < n && j < m && strcmp(a->v[i], b->v[j]) == 0) {
			rc = emit(out, ' ', a->v[i]);
			i++;
			j++;
		} else if (i < n && (j == m || T(i + 1, j) >= T(i, j + 1))) {
			rc = emit(out, '-', a->v[i++]);
		} else {
			rc = emit(out, '+', b->v[j++]);
		}
	}
#undef T
	free(t);
	return rc;
}

int nl_scn_diff(nl_buf *out, json_object *expected, json_object *actual, int present)
{
	lines a = {0}, b = {0};
	json_object *p = NULL;
	int rc;
	render(&a, expected, 0);
	if (present) {
		p = project(expected, actual);
		render(&b, p, 0);
	} else {
		push(&b, 0, "(absent)", NULL);
	}
	rc = a.oom || b.oom ? NL_ENOMEM : nl_buf_adds(out, "--- expected\n+++ actual\n");
	if (rc == 0)
		rc = align(out, &a, &b);
	json_object_put(p);
	lines_free(&a);
	lines_free(&b);
	return rc;
}
