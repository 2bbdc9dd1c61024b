/* Subset matching (match.h). */
#include "match.h"

#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "marks.h"

#define PATH_MAX_LEN 1024

void nl_scn_mismatches_clear(nl_scn_mismatches *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++) {
		free(m->items[i].path);
		free(m->items[i].message);
	}
	free(m->items);
	m->items = NULL;
	m->n = 0;
}

__attribute__((format(printf, 3, 4))) static int add(nl_scn_mismatches *out, const char *path,
                                                     const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	if (!out)
		return 1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	nl_scn_mismatch *n = realloc(out->items, (out->n + 1) * sizeof(*n));
	if (!n)
		return NL_ENOMEM;
	out->items = n;
	n[out->n].path = strdup(path);
	n[out->n].message = strdup(msg);
	if (!n[out->n].path || !n[out->n].message) {
		free(n[out->n].path);
		free(n[out->n].message);
		return NL_ENOMEM;
	}
	out->n++;
	return 1;
}

/* Compact JSON for messages, shortened when long. */
static const char *show(json_object *v, char *buf, size_t len)
{
	const char *s = v ? json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
	                                                          JSON_C_TO_STRING_NOSLASHESCAPE)
	                  : "null";
	if (strlen(s) < len)
		return s;
	snprintf(buf, len, "%.*s...", (int)(len - 4), s);
	return buf;
}

static const char *type_name(json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_object:
		return "a mapping";
	case json_type_array:
		return "a sequence";
	case json_type_string:
		return "a string";
	case json_type_null:
		return "null";
	case json_type_boolean:
		return "a boolean";
	default:
		return "a number";
	}
}

static int is_number(json_object *v)
{
	return json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double);
}

static int scalars_equal(json_object *a, json_object *b)
{
	if (is_number(a) && is_number(b)) {
		if (json_object_is_type(a, json_type_int) && json_object_is_type(b, json_type_int))
			return json_object_get_int64(a) == json_object_get_int64(b);
		return json_object_get_double(a) == json_object_get_double(b);
	}
	if (json_object_get_type(a) != json_object_get_type(b))
		return 0;
	if (json_object_is_type(a, json_type_string))
		return strcmp(json_object_get_string(a), json_object_get_string(b)) == 0;
	if (json_object_is_type(a, json_type_boolean))
		return json_object_get_boolean(a) == json_object_get_boolean(b);
	return 1; /* null */
}

/* The operator of a single-key "$op" mapping, or NULL. */
static const char *op_of(json_object *expected, json_object **arg)
{
	if (!json_object_is_type(expected, json_type_object) ||
	    json_object_object_length(expected) != 1)
		return NULL;
	json_object_object_foreach(expected, key, val)
	{
		if (key[0] != '$')
			return NULL;
		*arg = val;
		return key;
	}
	return NULL;
}

static size_t length_of(json_object *v, int *ok)
{
	*ok = 1;
	switch (json_object_get_type(v)) {
	case json_type_string:
		return strlen(json_object_get_string(v));
	case json_type_array:
		return json_object_array_length(v);
	case json_type_object:
		return (size_t)json_object_object_length(v);
	default:
		*ok = 0;
		return 0;
	}
}

static int regex_matches(const char *re, const char *text, int *ok)
{
	regex_t rx;
	*ok = regcomp(&rx, re, REG_EXTENDED | REG_NOSUB) == 0;
	if (!*ok)
		return 0;
	int m = regexec(&rx, text, 0, NULL, 0) == 0;
	regfree(&rx);
	return m;
}

static int match_op(nl_scn_mismatches *out, const char *path, const char *op, json_object *arg,
                    json_object *actual, int present)
{
	char b1[200], b2[200];
	int ok = 1;
	if (strcmp(op, "$present") == 0) {
		int want = json_object_get_boolean(arg);
		if (want == present)
			return 0;
		return want
		           ? add(out, path, "expected to be present, but it is absent")
		           : add(out, path, "expected to be absent, got %s", show(actual, b1, 200));
	}
	if (strcmp(op, "$not") == 0) {
		if (!nl_scn_match_ok(arg, actual, present))
			return 0;
		return add(out, path, "expected anything but %s, got %s", show(arg, b1, 200),
		           present ? show(actual, b2, 200) : "nothing");
	}
	if (!present)
		return add(out, path, "expected %s %s, but it is absent", op, show(arg, b1, 200));
	if (strcmp(op, "$regex") == 0) {
		const char *text = json_object_is_type(actual, json_type_string)
		                       ? json_object_get_string(actual)
		                       : show(actual, b2, 200);
		if (regex_matches(json_object_get_string(arg), text, &ok) && ok)
			return 0;
		return add(out, path, "%s does not match /%s/", show(actual, b1, 200),
		           json_object_get_string(arg));
	}
	if (strcmp(op, "$len") == 0) {
		size_t n = length_of(actual, &ok);
		if (ok && (int64_t)n == json_object_get_int64(arg))
			return 0;
		if (!ok)
			return add(out, path, "expected length %lld, got %s",
			           (long long)json_object_get_int64(arg), type_name(actual));
		return add(out, path, "expected length %lld, got %zu (%s)",
		           (long long)json_object_get_int64(arg), n, show(actual, b1, 200));
	}
	/* $contains */
	if (json_object_is_type(actual, json_type_string) &&
	    json_object_is_type(arg, json_type_string)) {
		if (strstr(json_object_get_string(actual), json_object_get_string(arg)))
			return 0;
		return add(out, path, "%s does not contain %s", show(actual, b1, 200),
		           show(arg, b2, 200));
	}
	if (json_object_is_type(actual, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(actual); i++)
			if (nl_scn_match_ok(arg, json_object_array_get_idx(actual, i), 1))
				return 0;
		return add(out, path, "no item matches %s", show(arg, b1, 200));
	}
	return add(out, path, "expected a string or a sequence containing %s, got %s",
	           show(arg, b1, 200), type_name(actual));
}

static int match_object(nl_scn_mismatches *out, const char *path, json_object *expected,
                        json_object *actual)
{
	int total = 0;
	json_object_object_foreach(expected, key, val)
	{
		char child[PATH_MAX_LEN];
		json_object *a = NULL;
		int has = json_object_object_get_ex(actual, key, &a);
		nl_scn_marks_key(child, sizeof(child), path, key);
		int rc = nl_scn_match(out, child, val, a, has);
		if (rc < 0)
			return rc;
		total += rc;
	}
	return total;
}

static int match_array(nl_scn_mismatches *out, const char *path, json_object *expected,
                       json_object *actual)
{
	size_t ne = json_object_array_length(expected), na = json_object_array_length(actual);
	int total = 0, rc;
	if (ne != na) {
		if ((rc = add(out, path, "expected %zu item%s, got %zu", ne, ne == 1 ? "" : "s",
		              na)) < 0)
			return rc;
		total++;
	}
	for (size_t i = 0; i < ne && i < na; i++) {
		char child[PATH_MAX_LEN];
		nl_scn_marks_index(child, sizeof(child), path, i);
		rc = nl_scn_match(out, child, json_object_array_get_idx(expected, i),
		                  json_object_array_get_idx(actual, i), 1);
		if (rc < 0)
			return rc;
		total += rc;
	}
	return total;
}

int nl_scn_match(nl_scn_mismatches *out, const char *path, json_object *expected,
                 json_object *actual, int present)
{
	char b1[200], b2[200];
	json_object *arg = NULL;
	const char *op = op_of(expected, &arg);
	if (op)
		return match_op(out, path, op, arg, actual, present);
	if (!expected)
		return !present || !actual
		           ? 0
		           : add(out, path, "expected to be absent, got %s", show(actual, b1, 200));
	if (!present)
		return add(out, path, "expected %s, but it is absent", show(expected, b1, 200));
	if (json_object_is_type(expected, json_type_object)) {
		if (!json_object_is_type(actual, json_type_object))
			return add(out, path, "expected a mapping, got %s", show(actual, b1, 200));
		return match_object(out, path, expected, actual);
	}
	if (json_object_is_type(expected, json_type_array)) {
		if (!json_object_is_type(actual, json_type_array))
			return add(out, path, "expected a sequence, got %s", show(actual, b1, 200));
		return match_array(out, path, expected, actual);
	}
	if (scalars_equal(expected, actual))
		return 0;
	return add(out, path, "expected %s, got %s", show(expected, b1, 200),
	           show(actual, b2, 200));
}

int nl_scn_match_ok(json_object *expected, json_object *actual, int present)
{
	return nl_scn_match(NULL, "", expected, actual, present) == 0;
}

/* --- checking operators ---------------------------------------------------------------- */

static int check_op(const char *op, json_object *arg, const char *path, nl_err *err)
{
	int ok;
	if (strcmp(op, "$present") == 0) {
		if (!json_object_is_type(arg, json_type_boolean))
			return nl_err_set(err, NL_EINVAL, "%s: $present: expected true or false",
			                  path);
		return 0;
	}
	if (strcmp(op, "$regex") == 0) {
		if (!json_object_is_type(arg, json_type_string))
			return nl_err_set(err, NL_EINVAL,
			                  "%s: $regex: expected a regular expression string", path);
		/* With variables it can only be checked once they are known. */
		if (strstr(json_object_get_string(arg), "${"))
			return 0;
		regex_matches(json_object_get_string(arg), "", &ok);
		return ok ? 0
		          : nl_err_set(err, NL_EINVAL, "%s: $regex: invalid regular expression %s",
		                       path, json_object_get_string(arg));
	}
	if (strcmp(op, "$len") == 0) {
		if (!json_object_is_type(arg, json_type_int) || json_object_get_int64(arg) < 0)
			return nl_err_set(err, NL_EINVAL, "%s: $len: expected a number >= 0", path);
		return 0;
	}
	if (strcmp(op, "$contains") == 0 || strcmp(op, "$not") == 0) {
		char child[PATH_MAX_LEN];
		nl_scn_marks_key(child, sizeof(child), path, op);
		return nl_scn_match_check(arg, child, err);
	}
	return nl_err_set(err, NL_EINVAL,
	                  "%s: unknown operator %s (expected $present, $regex, $contains, $len or "
	                  "$not)",
	                  path, op);
}

int nl_scn_match_check(json_object *expected, const char *path, nl_err *err)
{
	json_object *arg = NULL;
	const char *op = op_of(expected, &arg);
	int rc;
	if (op)
		return check_op(op, arg, path, err);
	if (json_object_is_type(expected, json_type_object)) {
		json_object_object_foreach(expected, key, val)
		{
			char child[PATH_MAX_LEN];
			nl_scn_marks_key(child, sizeof(child), path, key);
			if (key[0] == '$')
				return nl_err_set(
				    err, NL_EINVAL,
				    "%s: an operator must be the only key of its mapping", child);
			if ((rc = nl_scn_match_check(val, child, err)) != 0)
				return rc;
		}
	} else if (json_object_is_type(expected, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(expected); i++) {
			char child[PATH_MAX_LEN];
			nl_scn_marks_index(child, sizeof(child), path, i);
			if ((rc = nl_scn_match_check(json_object_array_get_idx(expected, i), child,
			                             err)) != 0)
				return rc;
		}
	}
	return 0;
}
