/* RFC 6902 JSON patch (application/json-patch+json), with the error texts
 * of gopkg.in/evanphx/json-patch.v4, which kube-apiserver wraps. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patch.h"
#include "patch_internal.h"

enum { JP_FOUND = 0, JP_MISSING = 1, JP_BAD = 2 };
enum { IDX_OK, IDX_SYNTAX, IDX_INVALID };

typedef struct {
	json_object *root; /* the working copy */
	nl_err *err;
	uint64_t copied; /* bytes the copy operations added so far */
} jp_state;

/* Where a JSON pointer leads: the container of the target and the target's
 * decoded last reference token; parent NULL for "" (the whole document). */
typedef struct {
	json_object *parent;
	char *key;
} jp_loc;

static int jp_fail(jp_state *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Everything that goes wrong while applying operations is the apiserver's
 * 422 (NewGenericServerResponse around the library's error). */
static int jp_fail(jp_state *s, const char *fmt, ...)
{
	char msg[sizeof(((nl_err *)0)->msg)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return nl_err_set(s->err, NL_EINVALID, "%s", msg);
}

/* RFC 6901 array index: "0" or digits without a leading zero. Other
 * integers (signs, leading zeros, overflow) parse for Go's strconv.Atoi but
 * do not name an element. */
static int parse_index(const char *tok, size_t *out)
{
	const char *p = tok;
	if (*p == '+' || *p == '-')
		p++;
	if (!*p || strspn(p, "0123456789") != strlen(p))
		return IDX_SYNTAX;
	if (p != tok || (p[0] == '0' && p[1]))
		return IDX_INVALID;
	size_t v = 0;
	for (; *p; p++) {
		if (v > (SIZE_MAX - 9) / 10)
			return IDX_INVALID;
		v = v * 10 + (size_t)(*p - '0');
	}
	*out = v;
	return IDX_OK;
}

/* Index of tok in an array with count valid positions, or why not. */
static int array_slot(size_t *idx, const char *tok, size_t count, char *why, size_t n)
{
	int code = parse_index(tok, idx);
	if (code == IDX_SYNTAX) {
		snprintf(why, n, "strconv.Atoi: parsing \"%s\": invalid syntax", tok);
		return JP_BAD;
	}
	if (code != IDX_OK || *idx >= count) {
		snprintf(why, n, "Unable to access invalid index: %s: invalid index referenced",
		         tok);
		return JP_BAD;
	}
	return 0;
}

static int decode_token(char **out, const char *tok, size_t n)
{
	char *s = malloc(n + 1);
	if (!s)
		return NL_ENOMEM;
	size_t j = 0;
	for (size_t i = 0; i < n; i++) {
		if (tok[i] != '~') {
			s[j++] = tok[i];
		} else if (i + 1 < n && (tok[i + 1] == '0' || tok[i + 1] == '1')) {
			s[j++] = tok[++i] == '0' ? '~' : '/';
		} else {
			free(s); /* "~" must be followed by 0 or 1 */
			return JP_MISSING;
		}
	}
	s[j] = '\0';
	*out = s;
	return 0;
}

/* The member or element tok names in cur; NULL when absent or JSON null. */
static json_object *jp_child(json_object *cur, const char *tok)
{
	json_object *next = NULL;
	size_t idx;
	if (mock__patch_is_object(cur))
		json_object_object_get_ex(cur, tok, &next);
	else if (mock__patch_is_array(cur) && parse_index(tok, &idx) == IDX_OK &&
	         idx < json_object_array_length(cur))
		next = json_object_array_get_idx(cur, idx);
	return next;
}

/* Resolves all but the last token, as evanphx's findObject: JP_MISSING
 * when a step is absent, not a container, or the pointer is malformed. */
static int jp_locate(jp_loc *loc, json_object *root, const char *path)
{
	loc->parent = NULL;
	loc->key = NULL;
	if (!*path)
		return JP_FOUND;
	if (*path != '/')
		return JP_MISSING;
	json_object *cur = root;
	const char *tok = path + 1;
	for (;;) {
		const char *end = strchr(tok, '/');
		size_t n = end ? (size_t)(end - tok) : strlen(tok);
		char *key = NULL;
		int rc = decode_token(&key, tok, n);
		if (rc)
			return rc;
		if (!end) {
			if (!mock__patch_is_object(cur) && !mock__patch_is_array(cur)) {
				free(key);
				return JP_MISSING;
			}
			loc->parent = cur;
			loc->key = key;
			return JP_FOUND;
		}
		cur = jp_child(cur, key);
		free(key);
		if (!cur)
			return JP_MISSING;
		tok = end + 1;
	}
}

/* The target of loc (borrowed), or why there is none; verb words the
 * missing-member case as the library does ("get", "remove"). */
static int jp_get(json_object **out, const jp_loc *loc, json_object *root, const char *verb,
                  char *why, size_t n)
{
	size_t idx;
	if (!loc->parent) {
		*out = root;
		return 0;
	}
	if (mock__patch_is_object(loc->parent)) {
		if (json_object_object_get_ex(loc->parent, loc->key, out))
			return 0;
		snprintf(why, n, "unable to %s nonexistent key: %s: missing value", verb, loc->key);
		return JP_BAD;
	}
	int rc = array_slot(&idx, loc->key, json_object_array_length(loc->parent), why, n);
	if (rc == 0)
		*out = json_object_array_get_idx(loc->parent, idx);
	return rc;
}

/* Detaches the target of loc (which must exist) and returns a reference. */
static json_object *jp_take(const jp_loc *loc)
{
	json_object *v = NULL;
	size_t idx = 0;
	if (mock__patch_is_object(loc->parent)) {
		json_object_object_get_ex(loc->parent, loc->key, &v);
		json_object_get(v);
		json_object_object_del(loc->parent, loc->key);
	} else {
		parse_index(loc->key, &idx);
		v = json_object_get(json_object_array_get_idx(loc->parent, idx));
		json_object_array_del_idx(loc->parent, idx, 1);
	}
	return v;
}

/* json-c 0.16 has no array insert: append, then shift right by one. */
static int array_insert(json_object *arr, size_t idx, json_object *val)
{
	size_t n = json_object_array_length(arr);
	if (idx == n)
		return json_object_array_add(arr, val) ? NL_ENOMEM : 0;
	json_object *last = json_object_get(json_object_array_get_idx(arr, n - 1));
	if (json_object_array_add(arr, last) != 0) {
		json_object_put(last);
		return NL_ENOMEM;
	}
	for (size_t i = n - 1; i > idx; i--)
		json_object_array_put_idx(arr, i,
		                          json_object_get(json_object_array_get_idx(arr, i - 1)));
	json_object_array_put_idx(arr, idx, val);
	return 0;
}

/* "add" semantics at loc; consumes value whatever happens. */
static int jp_put(jp_state *s, const jp_loc *loc, json_object *value, char *why, size_t n)
{
	int rc = 0;
	size_t idx;
	if (!loc->parent) {
		json_object_put(s->root);
		s->root = value;
		return 0;
	}
	if (mock__patch_is_object(loc->parent)) {
		rc = json_object_object_add(loc->parent, loc->key, value) ? NL_ENOMEM : 0;
	} else if (strcmp(loc->key, "-") == 0) {
		rc = json_object_array_add(loc->parent, value) ? NL_ENOMEM : 0;
	} else if (parse_index(loc->key, &idx) == IDX_SYNTAX) {
		snprintf(why, n,
		         "value was not a proper array index: '%s': strconv.Atoi: parsing \"%s\": "
		         "invalid syntax",
		         loc->key, loc->key);
		rc = JP_BAD;
	} else {
		rc = array_slot(&idx, loc->key, json_object_array_length(loc->parent) + 1, why, n);
		if (rc == 0)
			rc = array_insert(loc->parent, idx, value);
	}
	if (rc)
		json_object_put(value);
	return rc;
}

typedef enum { VIA_ADD, VIA_MOVE, VIA_COPY } jp_via;

/* Adds value (consumed) at path, worded for the operation doing it. */
static int jp_insert(jp_state *s, const char *path, json_object *value, jp_via via)
{
	jp_loc loc;
	char why[320] = "";
	int rc = jp_locate(&loc, s->root, path);
	if (rc == JP_FOUND)
		rc = jp_put(s, &loc, value, why, sizeof(why));
	else
		json_object_put(value);
	free(loc.key);
	if (rc == JP_MISSING && via == VIA_ADD)
		return jp_fail(
		    s, "add operation does not apply: doc is missing path: \"%s\": missing value",
		    path);
	if (rc == JP_MISSING)
		return jp_fail(s,
		               "%s operation does not apply: doc is missing destination path: %s: "
		               "missing value",
		               via == VIA_MOVE ? "move" : "copy", path);
	if (rc == JP_BAD && via == VIA_COPY)
		return jp_fail(s, "error while adding value during copy: %s", why);
	if (rc == JP_BAD)
		return jp_fail(s, "error in %s for path: '%s': %s", via == VIA_ADD ? "add" : "move",
		               path, why);
	return rc ? mock__patch_oom(s->err) : 0;
}

static const char *op_string(json_object *op, const char *member)
{
	json_object *v = NULL;
	if (!json_object_object_get_ex(op, member, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* The "value" member, which may be JSON null; 0 when absent. */
static int op_value(json_object *op, json_object **out)
{
	return json_object_object_get_ex(op, "value", out);
}

static int jp_add(jp_state *s, json_object *op)
{
	const char *path = op_string(op, "path");
	json_object *value = NULL, *copy = NULL;
	if (!path)
		return jp_fail(s, "add operation failed to decode path: missing value");
	if (!op_value(op, &value))
		return jp_fail(s, "add operation failed to decode value: operation, missing value "
		                  "field: missing value");
	if (mock__patch_copy(&copy, value))
		return mock__patch_oom(s->err);
	return jp_insert(s, path, copy, VIA_ADD);
}

static int jp_remove(jp_state *s, json_object *op)
{
	const char *path = op_string(op, "path");
	json_object *target = NULL;
	jp_loc loc;
	char why[320];
	if (!path)
		return jp_fail(s, "remove operation failed to decode path: missing value");
	int rc = jp_locate(&loc, s->root, path);
	if (rc == JP_FOUND && !loc.parent)
		rc = JP_MISSING; /* the document itself cannot be removed */
	if (rc == JP_FOUND)
		rc = jp_get(&target, &loc, s->root, "remove", why, sizeof(why));
	if (rc == JP_FOUND)
		json_object_put(jp_take(&loc));
	free(loc.key);
	if (rc == JP_MISSING)
		return jp_fail(s,
		               "remove operation does not apply: doc is missing path: \"%s\": "
		               "missing value",
		               path);
	if (rc == JP_BAD)
		return jp_fail(s, "error in remove for path: '%s': %s", path, why);
	return rc ? mock__patch_oom(s->err) : 0;
}

static int jp_set(jp_state *s, const jp_loc *loc, json_object *value)
{
	size_t idx = 0;
	if (!loc->parent) {
		json_object_put(s->root);
		s->root = value;
		return 0;
	}
	if (mock__patch_is_object(loc->parent)) {
		if (json_object_object_add(loc->parent, loc->key, value) == 0)
			return 0;
		json_object_put(value);
		return NL_ENOMEM;
	}
	parse_index(loc->key, &idx);
	json_object_array_put_idx(loc->parent, idx, value); /* within bounds: cannot fail */
	return 0;
}

static int jp_replace(jp_state *s, json_object *op)
{
	const char *path = op_string(op, "path");
	json_object *value = NULL, *target = NULL, *copy = NULL;
	jp_loc loc;
	char why[320];
	if (!path)
		return jp_fail(s, "replace operation failed to decode path: operation missing path "
		                  "field: missing value");
	if (!op_value(op, &value))
		return jp_fail(s, "replace operation failed to decode value: operation, missing "
		                  "value field: missing value");
	int rc = jp_locate(&loc, s->root, path);
	if (rc == JP_FOUND)
		rc = jp_get(&target, &loc, s->root, "get", why, sizeof(why));
	if (rc == JP_FOUND)
		rc = mock__patch_copy(&copy, value);
	if (rc == JP_FOUND)
		rc = jp_set(s, &loc, copy);
	free(loc.key);
	if (rc == JP_MISSING)
		return jp_fail(
		    s, "replace operation does not apply: doc is missing path: %s: missing value",
		    path);
	if (rc == JP_BAD)
		return jp_fail(
		    s, "replace operation does not apply: doc is missing key: %s: missing value",
		    path);
	return rc ? mock__patch_oom(s->err) : 0;
}

static int jp_move(jp_state *s, json_object *op)
{
	const char *from = op_string(op, "from"), *path = op_string(op, "path");
	json_object *value = NULL;
	jp_loc loc;
	char why[320];
	if (!from)
		return jp_fail(s, "move operation failed to decode from: operation, missing from "
		                  "field: missing value");
	int rc = jp_locate(&loc, s->root, from);
	if (rc == JP_FOUND && !loc.parent)
		rc = JP_MISSING; /* the document cannot move into itself */
	if (rc == JP_FOUND)
		rc = jp_get(&value, &loc, s->root, "get", why, sizeof(why));
	if (rc == JP_BAD) /* the library names the key here, not the path */
		rc = jp_fail(s, "error in move for path: '%s': %s", loc.key, why);
	else if (rc == JP_FOUND && path)
		value = jp_take(&loc);
	free(loc.key);
	if (rc == JP_MISSING)
		return jp_fail(s,
		               "move operation does not apply: doc is missing from path: %s: "
		               "missing value",
		               from);
	if (rc)
		return rc == NL_EINVALID ? rc : mock__patch_oom(s->err);
	if (!path)
		return jp_fail(s, "move operation failed to decode path: operation missing path "
		                  "field: missing value");
	/* Detached first, so a destination inside the moved value is missing. */
	return jp_insert(s, path, value, VIA_MOVE);
}

static int jp_test(jp_state *s, json_object *op)
{
	const char *path = op_string(op, "path");
	json_object *value = NULL, *target = NULL;
	jp_loc loc;
	char why[320];
	if (!path)
		return jp_fail(s, "test operation failed to decode path: operation missing path "
		                  "field: missing value");
	int rc = jp_locate(&loc, s->root, path);
	int has_value = op_value(op, &value);
	int absent = 0;
	if (rc == JP_FOUND) {
		rc = jp_get(&target, &loc, s->root, "get", why, sizeof(why));
		/* An absent member fails the test; a bad index is an error. */
		absent = rc == JP_BAD && mock__patch_is_object(loc.parent);
	}
	free(loc.key);
	if (rc == JP_MISSING)
		return jp_fail(
		    s, "test operation does not apply: is missing path: %s: missing value", path);
	if (rc == JP_BAD && !absent)
		return jp_fail(s, "error in test for path: '%s': %s", path, why);
	if (rc && !absent)
		return mock__patch_oom(s->err);
	if (absent || !has_value || !mock__patch_json_equal(target, value))
		return jp_fail(s, "testing value %s failed: test failed", path);
	return 0;
}

/* ------------------------------------------------------------------------
 * The copy limit. Each copy may double the document, so a patch of a few
 * hundred bytes could ask for gigabytes; kube-apiserver arms the library's
 * AccumulatedCopySizeLimit with JSONPatchMaxCopyBytes (3 MiB) and counts
 * each copied value at the length encoding/json gives it. */

/* Length of the valid UTF-8 sequence at s (as Go's utf8.DecodeRune:
 * no overlong forms, surrogates or values past U+10FFFF), 0 if invalid. */
static size_t utf8_width(const unsigned char *s, size_t len)
{
	unsigned char c = s[0];
	size_t w = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
	if (w == 0 || w > len || c > 0xF4 || c < 0xC2)
		return 0;
	for (size_t k = 1; k < w; k++)
		if ((s[k] & 0xC0) != 0x80)
			return 0;
	/* The second byte's range rules out the overlong and surrogate forms. */
	if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F) ||
	    (c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] > 0x8F))
		return 0;
	return w;
}

/* Bytes encoding/json writes for the string s[0..len): '"' and '\\', and
 * \b \f \n \r \t take two; other control bytes, '<', '>', '&' (HTML
 * escaping is on), U+2028, U+2029 and each byte of invalid UTF-8 (as
 * \ufffd) take six; everything else is written as it is. */
static uint64_t go_string_size(const unsigned char *s, size_t len)
{
	uint64_t n = 2;
	for (size_t i = 0; i < len;) {
		unsigned char c = s[i];
		if (c < 0x80) {
			if (c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' ||
			    c == '\r' || c == '\t')
				n += 2;
			else if (c < 0x20 || c == '<' || c == '>' || c == '&')
				n += 6;
			else
				n += 1;
			i++;
			continue;
		}
		size_t w = utf8_width(s + i, len - i);
		if (w == 0) {
			n += 6; /* \ufffd for this byte */
			i++;
			continue;
		}
		/* U+2028 and U+2029 are E2 80 A8 and E2 80 A9. */
		if (w == 3 && c == 0xE2 && s[i + 1] == 0x80 &&
		    (s[i + 2] == 0xA8 || s[i + 2] == 0xA9))
			n += 6;
		else
			n += w;
		i += w;
	}
	return n;
}

/* Bytes of v as encoding/json writes it, compact. Numbers and literals
 * count as json-c writes them: the text they arrived as. */
static uint64_t go_json_size(json_object *v)
{
	uint64_t n;
	switch (json_object_get_type(v)) {
	case json_type_null:
		return 4;
	case json_type_string:
		return go_string_size((const unsigned char *)json_object_get_string(v),
		                      (size_t)json_object_get_string_len(v));
	case json_type_array: {
		size_t len = json_object_array_length(v);
		n = 2 + (len ? len - 1 : 0);
		for (size_t i = 0; i < len; i++)
			n += go_json_size(json_object_array_get_idx(v, i));
		return n;
	}
	case json_type_object: {
		size_t members = 0;
		n = 2;
		json_object_object_foreach(v, key, val)
		{
			n += go_string_size((const unsigned char *)key, strlen(key)) + 1 +
			     go_json_size(val);
			members++;
		}
		return n + (members ? members - 1 : 0);
	}
	default:
		return strlen(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
	}
}

static int jp_copy(jp_state *s, json_object *op)
{
	const char *from = op_string(op, "from"), *path = op_string(op, "path");
	json_object *value = NULL, *copy = NULL;
	jp_loc loc;
	char why[320];
	if (!from)
		return jp_fail(s, "copy operation failed to decode from: operation, missing from "
		                  "field: missing value");
	int rc = jp_locate(&loc, s->root, from);
	if (rc == JP_FOUND)
		rc = jp_get(&value, &loc, s->root, "get", why, sizeof(why));
	free(loc.key);
	if (rc == JP_MISSING)
		return jp_fail(s,
		               "copy operation does not apply: doc is missing from path: %s: "
		               "missing value",
		               from);
	if (rc == JP_BAD)
		return jp_fail(s, "error in copy for from: '%s': %s", from, why);
	if (rc)
		return mock__patch_oom(s->err);
	if (!path)
		return jp_fail(s, "copy operation failed to decode path: missing value");
	/* A missing destination is reported first (jp_insert words it); the
	 * limit is checked before the copy is made. */
	rc = jp_locate(&loc, s->root, path);
	free(loc.key);
	if (rc == JP_FOUND) {
		s->copied += go_json_size(value);
		if (s->copied > MOCK_JSON_PATCH_MAX_COPY_BYTES)
			return jp_fail(
			    s,
			    "Unable to complete the copy, the accumulated size increase of "
			    "copy is %" PRIu64 ", exceeding the limit %d",
			    s->copied, MOCK_JSON_PATCH_MAX_COPY_BYTES);
	}
	if (mock__patch_copy(&copy, value))
		return mock__patch_oom(s->err);
	return jp_insert(s, path, copy, VIA_COPY);
}

static int jp_apply(jp_state *s, json_object *op)
{
	static const struct {
		const char *name;
		int (*fn)(jp_state *, json_object *);
	} ops[] = {
	    {"add", jp_add},   {"remove", jp_remove}, {"replace", jp_replace},
	    {"move", jp_move}, {"test", jp_test},     {"copy", jp_copy},
	};
	const char *kind = op ? op_string(op, "op") : NULL;
	for (size_t i = 0; kind && i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strcmp(kind, ops[i].name) == 0)
			return ops[i].fn(s, op);
	return jp_fail(s, "Unexpected kind: %s", kind ? kind : "unknown");
}

/* The apiserver decodes the body into []Operation first (400 on a type
 * mismatch), then counts operations (413), then applies them (422). */
static int jp_check_shape(json_object *patch, nl_err *err)
{
	if (patch && !mock__patch_is_array(patch))
		return nl_err_set(err, NL_EBADREQUEST,
		                  "json: cannot unmarshal %s into Go value of type jsonpatch.Patch",
		                  nl_json_go_kind(patch));
	size_t n = patch ? json_object_array_length(patch) : 0;
	for (size_t i = 0; i < n; i++) {
		json_object *op = json_object_array_get_idx(patch, i);
		if (op && !mock__patch_is_object(op))
			return nl_err_set(
			    err, NL_EBADREQUEST,
			    "json: cannot unmarshal %s into Go value of type jsonpatch.Operation",
			    nl_json_go_kind(op));
	}
	if (n > MOCK_JSON_PATCH_MAX_OPS)
		return nl_err_set(err, NL_ETOOBIG,
		                  "The allowed maximum operations in a JSON patch is %d, got %zu",
		                  MOCK_JSON_PATCH_MAX_OPS, n);
	return 0;
}

int mock_patch_json(json_object **out, json_object *doc, json_object *patch, nl_err *err)
{
	jp_state s = {NULL, err, 0};
	int rc = jp_check_shape(patch, err);
	if (rc)
		return rc;
	if (mock__patch_copy(&s.root, doc))
		return mock__patch_oom(err);
	size_t n = patch ? json_object_array_length(patch) : 0;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = jp_apply(&s, json_object_array_get_idx(patch, i));
	if (rc) {
		json_object_put(s.root);
		return rc;
	}
	*out = s.root;
	return 0;
}
