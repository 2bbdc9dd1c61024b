/* Duplicate member names in JSON text (strict_duplicates.h). A recursive
 * walk with a depth bound; an object's names are kept (decoded by json-c
 * only when they hold an escape) and sorted to find the repeats, so an
 * object of n members costs O(n log n); values are skipped undecoded. */
#include "strict_duplicates.h"

#include <json-c/json.h>
#include <nodelet/buf.h>
#include <nodelet/errors.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

typedef struct {
	const char *p, *end;
	nl_buf path; /* the field stack: "spec.taints[0]" */
	mock_duplicates *out;
	int oom;
} walk;

static void cut(nl_buf *b, size_t len)
{
	b->len = len;
	if (b->data)
		b->data[len] = '\0';
}

static void skip_ws(walk *w)
{
	while (w->p < w->end && (*w->p == ' ' || *w->p == '\t' || *w->p == '\n' || *w->p == '\r'))
		w->p++;
}

/* Past the string token at w->p: 1, or 0 when it is not one. *esc says
 * whether it holds an escape. */
static int skip_string(walk *w, int *esc)
{
	*esc = 0;
	if (w->p >= w->end || *w->p != '"')
		return 0;
	for (w->p++; w->p < w->end && *w->p != '"'; w->p++)
		if (*w->p == '\\') {
			*esc = 1;
			w->p++;
		}
	if (w->p >= w->end)
		return 0;
	w->p++;
	return 1;
}

/* A member name at w->p, decoded (caller frees), or NULL when it is not
 * a string (w->oom set when out of memory). Only a name with an escape
 * goes through json-c. */
static char *string_token(walk *w)
{
	const char *start = w->p;
	int esc;
	if (!skip_string(w, &esc))
		return NULL;
	size_t n = (size_t)(w->p - start);
	char *v = esc ? NULL : strndup(start + 1, n - 2);
	if (esc) {
		char *raw = strndup(start, n);
		json_object *s = raw ? json_tokener_parse(raw) : NULL;
		free(raw);
		v = json_object_is_type(s, json_type_string) ? strdup(json_object_get_string(s))
		                                             : NULL;
		json_object_put(s);
		if (!v && !s)
			return NULL;
	}
	if (!v)
		w->oom = 1;
	return v;
}

static int value(walk *w, int depth);

static void report(walk *w, const char *key)
{
	size_t n = w->out->n;
	if (n == MOCK_STRICT_MAX_ERRORS)
		return;
	char *path = NULL;
	if (asprintf(&path, "%s%s%s", w->path.len ? w->path.data : "", w->path.len ? "." : "",
	             key) < 0) {
		w->oom = 1;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (strcmp(w->out->paths[i], path) == 0) {
			free(path);
			return;
		}
	}
	w->out->paths[w->out->n++] = path;
}

typedef struct {
	char *name;
	size_t at; /* position in the object */
} member;

static int by_name_then_at(const void *x, const void *y)
{
	const member *a = x, *b = y;
	int c = strcmp(a->name, b->name);
	return c ? c : (a->at > b->at) - (a->at < b->at);
}

static int by_at_ptr(const void *x, const void *y)
{
	const member *const *a = x, *const *b = y;
	return ((*a)->at > (*b)->at) - ((*a)->at < (*b)->at);
}

/* Report every member whose name an earlier one had, in document order:
 * sorted by name, a repeat follows its first; O(n log n). */
static void report_repeats(walk *w, member *m, size_t n)
{
	if (n < 2)
		return;
	const member **rep = malloc(n * sizeof(*rep));
	size_t k = 0;
	if (!rep) {
		w->oom = 1;
		return;
	}
	qsort(m, n, sizeof(*m), by_name_then_at);
	for (size_t i = 1; i < n; i++)
		if (strcmp(m[i].name, m[i - 1].name) == 0)
			rep[k++] = &m[i];
	qsort(rep, k, sizeof(*rep), by_at_ptr);
	for (size_t i = 0; i < k && !w->oom; i++)
		report(w, rep[i]->name);
	free(rep);
}

static void free_members(member *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(m[i].name);
	free(m);
}

static int object(walk *w, int depth)
{
	member *m = NULL;
	size_t n = 0, cap = 0, mark = w->path.len;
	int ok = 0;
	w->p++; /* { */
	skip_ws(w);
	if (w->p < w->end && *w->p == '}') {
		w->p++;
		return 1;
	}
	for (;;) {
		skip_ws(w);
		char *key = string_token(w);
		if (!key)
			break;
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 8;
			member *grown = realloc(m, ncap * sizeof(*m));
			if (!grown) {
				free(key);
				w->oom = 1;
				break;
			}
			m = grown;
			cap = ncap;
		}
		m[n].name = key;
		m[n].at = n;
		n++;
		skip_ws(w);
		if (w->p >= w->end || *w->p != ':')
			break;
		w->p++;
		if ((mark && nl_buf_adds(&w->path, ".") != 0) || nl_buf_adds(&w->path, key) != 0) {
			w->oom = 1;
			break;
		}
		int v = value(w, depth + 1);
		cut(&w->path, mark);
		if (!v)
			break;
		skip_ws(w);
		if (w->p < w->end && *w->p == ',') {
			w->p++;
			continue;
		}
		if (w->p < w->end && *w->p == '}') {
			w->p++;
			ok = 1;
		}
		break;
	}
	if (!w->oom)
		report_repeats(w, m, n);
	free_members(m, n);
	return ok;
}

static int array(walk *w, int depth)
{
	size_t mark = w->path.len;
	w->p++; /* [ */
	skip_ws(w);
	if (w->p < w->end && *w->p == ']') {
		w->p++;
		return 1;
	}
	for (int i = 0;; i++) {
		if (nl_buf_printf(&w->path, "[%d]", i) != 0) {
			w->oom = 1;
			return 0;
		}
		int v = value(w, depth + 1);
		cut(&w->path, mark);
		if (!v)
			return 0;
		skip_ws(w);
		if (w->p < w->end && *w->p == ',') {
			w->p++;
			continue;
		}
		if (w->p < w->end && *w->p == ']') {
			w->p++;
			return 1;
		}
		return 0;
	}
}

/* Scalars are skipped up to the next delimiter; strings whole. */
static int value(walk *w, int depth)
{
	skip_ws(w);
	if (w->p >= w->end || depth > MAX_DEPTH || w->oom)
		return 0;
	if (*w->p == '{')
		return object(w, depth);
	if (*w->p == '[')
		return array(w, depth);
	int esc;
	if (*w->p == '"')
		return skip_string(w, &esc);
	const char *start = w->p;
	while (w->p < w->end && !strchr(",]} \t\r\n", *w->p))
		w->p++;
	return w->p > start;
}

int mock_duplicates_find(mock_duplicates *out, const char *text, size_t len)
{
	memset(out, 0, sizeof(*out));
	if (!text)
		return 0;
	walk w = {text, text + len, {0}, out, 0};
	nl_buf_init(&w.path, len + 64);
	value(&w, 0);
	nl_buf_free(&w.path);
	if (w.oom) {
		mock_duplicates_free(out);
		return NL_ENOMEM;
	}
	return 0;
}

void mock_duplicates_free(mock_duplicates *d)
{
	for (size_t i = 0; d && i < d->n; i++)
		free(d->paths[i]);
	if (d)
		d->n = 0;
}
