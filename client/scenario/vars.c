/* Variable references (vars.h). One scanner splits a string into literal
 * text and references; expansion and the static reference check both use
 * it. */
#include "vars.h"

#include <nodelet/buf.h>
#include <stdlib.h>
#include <string.h>

#include "jpath.h"

/* What a reference names: the variable and the rest of the expression. */
typedef struct {
	char name[128];
	const char *expr; /* inside the braces */
	size_t expr_len;
} ref;

/* Literal text (len bytes) or a reference (r != NULL). */
typedef int (*piece_fn)(const char *text, size_t len, const ref *r, void *payload);

static int is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_name_char(char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9') || c == '-';
}

int nl_scn_vars_valid_name(const char *s)
{
	if (!s || !is_name_start(*s))
		return 0;
	for (s++; *s; s++)
		if (!is_name_char(*s))
			return 0;
	return 1;
}

static int parse_ref(ref *r, const char *s, size_t len, nl_err *err)
{
	size_t n = 0;
	if (len == 0 || !is_name_start(s[0]))
		return nl_err_set(err, NL_EPARSE,
		                  "\"${%.*s}\": a variable name starts with a letter or '_'",
		                  (int)len, s);
	while (n < len && is_name_char(s[n]))
		n++;
	if (n >= sizeof(r->name))
		return nl_err_set(err, NL_EPARSE, "\"${%.*s}\": variable name too long", (int)len,
		                  s);
	if (n < len && s[n] != '.' && s[n] != '[')
		return nl_err_set(err, NL_EPARSE,
		                  "\"${%.*s}\": expected '.', '[' or '}' after the variable name",
		                  (int)len, s);
	memcpy(r->name, s, n);
	r->name[n] = '\0';
	r->expr = s;
	r->expr_len = len;
	return 0;
}

static int scan(const char *s, piece_fn fn, void *payload, nl_err *err)
{
	const char *lit = s;
	int rc;
	for (const char *p = s; *p;) {
		if (p[0] == '$' && p[1] == '$' && p[2] == '{') {
			/* "$${" is a literal "${": emit up to the first '$'. */
			if ((rc = fn(lit, (size_t)(p - lit) + 1, NULL, payload)) != 0)
				return rc;
			p += 2;
			lit = p;
			continue;
		}
		if (p[0] != '$' || p[1] != '{') {
			p++;
			continue;
		}
		const char *close = strchr(p + 2, '}');
		if (!close)
			return nl_err_set(err, NL_EPARSE, "\"%s\": unterminated \"${\"", s);
		ref r;
		if ((rc = parse_ref(&r, p + 2, (size_t)(close - p - 2), err)) != 0)
			return rc;
		if ((rc = fn(lit, (size_t)(p - lit), NULL, payload)) != 0 ||
		    (rc = fn(NULL, 0, &r, payload)) != 0)
			return rc;
		p = close + 1;
		lit = p;
	}
	return fn(lit, strlen(lit), NULL, payload);
}

/* --- resolving one reference ------------------------------------------------------ */

static int resolve(json_object **out, const ref *r, json_object *vars, nl_err *err)
{
	json_object *v;
	char expr[512];
	if (!json_object_object_get_ex(vars, r->name, &v))
		return nl_err_set(err, NL_ENOTFOUND, "\"${%.*s}\": undefined variable \"%s\"",
		                  (int)r->expr_len, r->expr, r->name);
	size_t nlen = strlen(r->name), rest = r->expr_len - nlen;
	if (rest == 0) {
		*out = v;
		return 0;
	}
	/* The path after the name, without its leading '.'. */
	const char *path = r->expr + nlen;
	if (*path == '.') {
		path++;
		rest--;
	}
	if (rest >= sizeof(expr))
		return nl_err_set(err, NL_EPARSE, "\"${%.*s}\": path too long", (int)r->expr_len,
		                  r->expr);
	memcpy(expr, path, rest);
	expr[rest] = '\0';
	int found = 0, rc = nl_scn_jpath_lookup(out, &found, v, expr, err);
	if (rc != 0)
		return rc;
	if (!found)
		return nl_err_set(err, NL_ENOTFOUND, "\"${%.*s}\": %s has no %s", (int)r->expr_len,
		                  r->expr, r->name, expr);
	return 0;
}

/* --- expansion into text --------------------------------------------------------------- */

typedef struct {
	nl_buf buf;
	json_object *vars;
	nl_err *err;
	int nrefs, nlit; /* pieces seen: a lone reference keeps its type */
	json_object *only;
} text_ctx;

static int text_piece(const char *text, size_t len, const ref *r, void *payload)
{
	text_ctx *t = payload;
	json_object *v = NULL;
	if (!r) {
		t->nlit += len > 0;
		return len && nl_buf_add(&t->buf, text, len) != 0 ? NL_ENOMEM : 0;
	}
	int rc = resolve(&v, r, t->vars, t->err);
	if (rc != 0)
		return rc;
	t->nrefs++;
	t->only = v;
	const char *s = json_object_is_type(v, json_type_string)
	                    ? json_object_get_string(v)
	                    : json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
	return nl_buf_adds(&t->buf, s) != 0 ? NL_ENOMEM : 0;
}

static int expand_text(text_ctx *t, const char *s)
{
	nl_buf_init(&t->buf, 0);
	t->nrefs = t->nlit = 0;
	t->only = NULL;
	int rc = scan(s, text_piece, t, t->err);
	if (rc == 0 && nl_buf_add(&t->buf, "", 0) != 0)
		rc = NL_ENOMEM;
	if (rc != 0)
		nl_buf_free(&t->buf);
	return rc;
}

int nl_scn_vars_expand_string(char **out, const char *s, json_object *vars, nl_err *err)
{
	text_ctx t = {.vars = vars, .err = err};
	int rc = expand_text(&t, s);
	if (rc != 0)
		return rc;
	*out = nl_buf_detach(&t.buf, NULL);
	return *out ? 0 : NL_ENOMEM;
}

/* --- expansion of a tree ---------------------------------------------------------------- */

static int expand(json_object **out, json_object *tmpl, json_object *vars, nl_err *err);

static int expand_string(json_object **out, json_object *tmpl, json_object *vars, nl_err *err)
{
	const char *s = json_object_get_string(tmpl);
	if (!strstr(s, "${"))
		return json_object_deep_copy(tmpl, out, NULL) == 0 ? 0 : NL_ENOMEM;
	text_ctx t = {.vars = vars, .err = err};
	int rc = expand_text(&t, s);
	if (rc != 0)
		return rc;
	if (t.nrefs == 1 && t.nlit == 0) {
		nl_buf_free(&t.buf);
		*out = NULL;
		return t.only && json_object_deep_copy(t.only, out, NULL) != 0 ? NL_ENOMEM : 0;
	}
	*out = json_object_new_string_len(t.buf.data, (int)t.buf.len);
	nl_buf_free(&t.buf);
	return *out ? 0 : NL_ENOMEM;
}

static int expand_object(json_object **out, json_object *tmpl, json_object *vars, nl_err *err)
{
	json_object *o = json_object_new_object();
	int rc = o ? 0 : NL_ENOMEM;
	json_object_object_foreach(tmpl, key, val)
	{
		char *k = NULL;
		json_object *v = NULL;
		if (rc != 0)
			break;
		if ((rc = nl_scn_vars_expand_string(&k, key, vars, err)) != 0)
			break;
		if ((rc = expand(&v, val, vars, err)) == 0 &&
		    json_object_object_add(o, k, v) != 0) {
			json_object_put(v);
			rc = NL_ENOMEM;
		}
		free(k);
	}
	if (rc != 0) {
		json_object_put(o);
		return rc;
	}
	*out = o;
	return 0;
}

static int expand_array(json_object **out, json_object *tmpl, json_object *vars, nl_err *err)
{
	json_object *a = json_object_new_array();
	int rc = a ? 0 : NL_ENOMEM;
	for (size_t i = 0; rc == 0 && i < json_object_array_length(tmpl); i++) {
		json_object *v = NULL;
		rc = expand(&v, json_object_array_get_idx(tmpl, i), vars, err);
		if (rc == 0 && json_object_array_add(a, v) != 0) {
			json_object_put(v);
			rc = NL_ENOMEM;
		}
	}
	if (rc != 0) {
		json_object_put(a);
		return rc;
	}
	*out = a;
	return 0;
}

static int expand(json_object **out, json_object *tmpl, json_object *vars, nl_err *err)
{
	switch (json_object_get_type(tmpl)) {
	case json_type_string:
		return expand_string(out, tmpl, vars, err);
	case json_type_object:
		return expand_object(out, tmpl, vars, err);
	case json_type_array:
		return expand_array(out, tmpl, vars, err);
	case json_type_null:
		*out = NULL;
		return 0;
	default:
		return json_object_deep_copy(tmpl, out, NULL) == 0 ? 0 : NL_ENOMEM;
	}
}

int nl_scn_vars_expand(json_object **out, json_object *tmpl, json_object *vars, nl_err *err)
{
	json_object *r = NULL;
	int rc = expand(&r, tmpl, vars, err);
	if (rc == 0)
		*out = r;
	return rc;
}

/* --- references ---------------------------------------------------------------------------- */

typedef struct {
	nl_vars_ref_fn fn;
	void *payload;
} refs_ctx;

static int ref_piece(const char *text, size_t len, const ref *r, void *payload)
{
	refs_ctx *c = payload;
	(void)text;
	(void)len;
	return r ? c->fn(r->name, c->payload) : 0;
}

int nl_scn_vars_refs(json_object *tmpl, nl_vars_ref_fn fn, void *payload, nl_err *err)
{
	refs_ctx c = {fn, payload};
	int rc = 0;
	switch (json_object_get_type(tmpl)) {
	case json_type_string:
		return scan(json_object_get_string(tmpl), ref_piece, &c, err);
	case json_type_object:
		json_object_object_foreach(tmpl, key, val)
		{
			if ((rc = scan(key, ref_piece, &c, err)) != 0 ||
			    (rc = nl_scn_vars_refs(val, fn, payload, err)) != 0)
				return rc;
		}
		return 0;
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(tmpl); i++)
			if ((rc = nl_scn_vars_refs(json_object_array_get_idx(tmpl, i), fn, payload,
			                           err)) != 0)
				return rc;
		return 0;
	default:
		return 0;
	}
}
