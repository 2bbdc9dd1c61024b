/* YAML positions by path (marks.h): one pass over libyaml's events keeping
 * a stack of open collections and the path of the node being read. */
#include "marks.h"

#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* Deep enough for any scenario; deeper nesting is refused by nl_doc too. */
#define MARKS_MAX_DEPTH 256
#define MARKS_PATH_MAX 1024

struct nl_scn_marks {
	/* path -> line * 65536 + column (both 1-based); json-c's hash table
	 * keeps lookups O(1) for big files. */
	json_object *table;
};

typedef struct {
	int is_map;
	int want_key;
	size_t base_len; /* length of the collection's own path */
	size_t index;    /* next sequence index */
} frame;

typedef struct {
	const char *name;
	nl_err *err;
	nl_scn_marks *m;
	char path[MARKS_PATH_MAX];
	frame stack[MARKS_MAX_DEPTH];
	size_t depth;
	int root_seen;
} walker;

__attribute__((format(printf, 3, 4))) static int fail_at(walker *w, yaml_mark_t mk, const char *fmt,
                                                         ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return nl_err_set(w->err, NL_EPARSE, "%s:%zu:%zu: %s", w->name, mk.line + 1, mk.column + 1,
	                  msg);
}

static int plain_key(const char *key)
{
	if (!*key)
		return 0;
	for (const char *p = key; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' || *p == '/' || *p == '$'))
			return 0;
	return 1;
}

int nl_scn_marks_key(char *out, size_t outlen, const char *parent, const char *key)
{
	size_t n = 0;
	int w;
	if (plain_key(key)) {
		w = snprintf(out, outlen, "%s%s%s", parent, *parent ? "." : "", key);
		return w < 0 || (size_t)w >= outlen ? NL_ETOOBIG : 0;
	}
	w = snprintf(out, outlen, "%s[\"", parent);
	if (w < 0 || (size_t)w >= outlen)
		return NL_ETOOBIG;
	n = (size_t)w;
	for (const char *p = key; *p; p++) {
		if (n + 3 >= outlen) {
			out[n] = '\0';
			return NL_ETOOBIG;
		}
		if (*p == '"' || *p == '\\')
			out[n++] = '\\';
		out[n++] = *p;
	}
	if (n + 3 > outlen) {
		out[n] = '\0';
		return NL_ETOOBIG;
	}
	memcpy(out + n, "\"]", 3);
	return 0;
}

int nl_scn_marks_index(char *out, size_t outlen, const char *parent, size_t index)
{
	char idx[32];
	size_t np = strlen(parent), ni = (size_t)snprintf(idx, sizeof(idx), "[%zu]", index);
	if (outlen == 0)
		return NL_ETOOBIG;
	if (np + ni >= outlen) {
		size_t keep = np < outlen - 1 ? np : outlen - 1;
		memmove(out, parent, keep);
		out[keep] = '\0';
		return NL_ETOOBIG;
	}
	memmove(out, parent, np);
	memcpy(out + np, idx, ni + 1);
	return 0;
}

static int record(walker *w, yaml_mark_t mk)
{
	if (json_object_object_get_ex(w->m->table, w->path, NULL))
		return fail_at(w, mk, "duplicate key %s", w->path);
	int64_t v = (int64_t)(mk.line + 1) * 65536 + (int64_t)(mk.column + 1);
	json_object *n = json_object_new_int64(v);
	if (!n || json_object_object_add(w->m->table, w->path, n) != 0) {
		json_object_put(n);
		return nl_err_set(w->err, NL_ENOMEM, "%s: out of memory", w->name);
	}
	return 0;
}

/* A value (scalar, alias or whole collection) is complete: back to the
 * enclosing collection's path. */
static void node_done(walker *w)
{
	if (w->depth == 0)
		return;
	frame *f = &w->stack[w->depth - 1];
	w->path[f->base_len] = '\0';
	if (f->is_map)
		f->want_key = 1;
}

static int scalar_text(char *out, size_t outlen, const yaml_event_t *ev)
{
	size_t n = ev->data.scalar.length;
	if (n >= outlen)
		n = outlen - 1;
	memcpy(out, ev->data.scalar.value, n);
	out[n] = '\0';
	return 0;
}

/* A node starts: a mapping key, a mapping value, a sequence item or the
 * root. Returns 1 when it was a key (nothing more to do for it). */
static int node_start(walker *w, const yaml_event_t *ev)
{
	char child[MARKS_PATH_MAX];
	if (w->depth == 0) {
		if (w->root_seen)
			return 0;
		w->root_seen = 1;
		return record(w, ev->start_mark);
	}
	frame *f = &w->stack[w->depth - 1];
	if (f->is_map && f->want_key) {
		char key[512];
		if (ev->type != YAML_SCALAR_EVENT)
			return fail_at(w, ev->start_mark, "a mapping key must be a plain string");
		scalar_text(key, sizeof(key), ev);
		nl_scn_marks_key(child, sizeof(child), w->path, key);
		snprintf(w->path, sizeof(w->path), "%s", child);
		f->want_key = 0;
		int rc = record(w, ev->start_mark);
		return rc ? rc : 1;
	}
	if (!f->is_map) {
		nl_scn_marks_index(child, sizeof(child), w->path, f->index++);
		snprintf(w->path, sizeof(w->path), "%s", child);
		return record(w, ev->start_mark);
	}
	return 0;
}

static int on_event(walker *w, const yaml_event_t *ev)
{
	int rc;
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
	case YAML_ALIAS_EVENT:
		if ((rc = node_start(w, ev)) < 0)
			return rc;
		if (rc == 0)
			node_done(w);
		return 0;
	case YAML_MAPPING_START_EVENT:
	case YAML_SEQUENCE_START_EVENT:
		if ((rc = node_start(w, ev)) < 0)
			return rc;
		if (w->depth == MARKS_MAX_DEPTH)
			return fail_at(w, ev->start_mark, "nested too deeply");
		w->stack[w->depth++] =
		    (frame){ev->type == YAML_MAPPING_START_EVENT,
		            ev->type == YAML_MAPPING_START_EVENT, strlen(w->path), 0};
		return 0;
	case YAML_MAPPING_END_EVENT:
	case YAML_SEQUENCE_END_EVENT:
		if (w->depth > 0)
			w->depth--;
		node_done(w);
		return 0;
	default:
		return 0;
	}
}

static int walk(walker *w, const char *buf, size_t len)
{
	yaml_parser_t p;
	yaml_event_t ev;
	int rc = 0, done = 0;
	if (!yaml_parser_initialize(&p))
		return nl_err_set(w->err, NL_ENOMEM, "%s: out of memory", w->name);
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	while (rc == 0 && !done) {
		if (!yaml_parser_parse(&p, &ev)) {
			const char *problem = p.problem ? p.problem : "not valid YAML";
			rc = p.context ? fail_at(w, p.problem_mark, "%s %s", problem, p.context)
			               : fail_at(w, p.problem_mark, "%s", problem);
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		rc = on_event(w, &ev);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return rc;
}

int nl_scn_marks_parse(nl_scn_marks **out, const char *buf, size_t len, const char *name,
                       nl_err *err)
{
	walker *w = calloc(1, sizeof(*w));
	nl_scn_marks *m = calloc(1, sizeof(*m));
	int rc = NL_ENOMEM;
	if (!w || !m || !(m->table = json_object_new_object())) {
		nl_err_set(err, rc, "%s: out of memory", name);
		goto fail;
	}
	w->name = name;
	w->err = err;
	w->m = m;
	if ((rc = walk(w, buf, len)) != 0)
		goto fail;
	free(w);
	*out = m;
	return 0;
fail:
	free(w);
	nl_scn_marks_free(m);
	return rc;
}

void nl_scn_marks_free(nl_scn_marks *m)
{
	if (!m)
		return;
	json_object_put(m->table);
	free(m);
}

/* Where the last segment of path starts (quotes skipped), 0 for a single
 * segment. */
static size_t last_segment(const char *path)
{
	size_t last = 0;
	int quoted = 0;
	for (size_t i = 0; path[i]; i++) {
		if (quoted) {
			if (path[i] == '\\' && path[i + 1])
				i++;
			else if (path[i] == '"')
				quoted = 0;
			continue;
		}
		if (path[i] == '"')
			quoted = 1;
		else if (path[i] == '.' || path[i] == '[')
			last = i;
	}
	return last;
}

int nl_scn_marks_find(const nl_scn_marks *m, const char *path, int *line, int *col)
{
	char buf[MARKS_PATH_MAX];
	json_object *v;
	if (!m)
		return NL_ENOTFOUND;
	snprintf(buf, sizeof(buf), "%s", path ? path : "");
	for (;;) {
		if (json_object_object_get_ex(m->table, buf, &v)) {
			int64_t x = json_object_get_int64(v);
			*line = (int)(x / 65536);
			*col = (int)(x % 65536);
			return 0;
		}
		if (!buf[0])
			return NL_ENOTFOUND;
		buf[last_segment(buf)] = '\0';
	}
}
