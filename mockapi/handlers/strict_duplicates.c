/* Duplicate member names in JSON text (strict_duplicates.h). A recursive
 * walk with a depth bound; an object's names are kept decoded (escapes
 * read with json-c) and compared with those before them: quadratic in the
 * members of one object, which is fine at request sizes (3 MiB). */
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

/* A string token at w->p: its decoded value (caller frees), or NULL when
 * it is not one (w->oom set when out of memory). */
static char *string_token(walk *w)
{
	const char *start = w->p;
	if (w->p >= w->end || *w->p != '"')
		return NULL;
	for (w->p++; w->p < w->end && *w->p != '"'; w->p++)
		if (*w->p == '\\')
			w->p++;
	if (w->p >= w->end)
		return NULL;
	w->p++;
	char *raw = strndup(start, (size_t)(w->p - start));
	if (!raw) {
		w->oom = 1;
		return NULL;
	}
	json_object *s = json_tokener_parse(raw);
	free(raw);
	char *v =
	    json_object_is_type(s, json_type_string) ? strdup(json_object_get_string(s)) : NULL;
	json_object_put(s);
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

static void free_keys(char **keys, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
}

static int object(walk *w, int depth)
{
	char **keys = NULL;
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
		for (size_t i = 0; i < n; i++)
			if (strcmp(keys[i], key) == 0) {
				report(w, key);
				break;
			}
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 8;
			char **grown = realloc(keys, ncap * sizeof(*keys));
			if (!grown) {
				free(key);
				w->oom = 1;
				break;
			}
			keys = grown;
			cap = ncap;
		}
		keys[n++] = key;
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
	free_keys(keys, n);
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
	if (*w->p == '"') {
		char *s = string_token(w);
		free(s);
		return s != NULL;
	}
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
