/* JSON value helpers shared by the PATCH engines (patch_internal.h).
 *
 * Every engine reads doc and patch without touching them, not even their
 * reference counts (stored objects may be read by other threads), and
 * builds its result from deep copies made here. */
#include "patch.h"
#include "patch_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mock__patch_copy(json_object **out, json_object *src)
{
	json_object *dst = NULL;
	if (src && json_object_deep_copy(src, &dst, NULL) != 0)
		return NL_ENOMEM;
	*out = dst;
	return 0;
}

int mock__patch_is_object(json_object *o)
{
	return o && json_object_is_type(o, json_type_object);
}

int mock__patch_is_array(json_object *o)
{
	return o && json_object_is_type(o, json_type_array);
}

static int is_number(json_object *o)
{
	return json_object_is_type(o, json_type_int) || json_object_is_type(o, json_type_double);
}

/* Go decodes every JSON number to float64, so 1 and 1.0 are the same value;
 * two integers are compared exactly. */
static int numbers_equal(json_object *a, json_object *b)
{
	if (json_object_is_type(a, json_type_int) && json_object_is_type(b, json_type_int))
		return json_object_get_int64(a) == json_object_get_int64(b) &&
		       json_object_get_uint64(a) == json_object_get_uint64(b);
	return json_object_get_double(a) == json_object_get_double(b);
}

static int strings_equal(json_object *a, json_object *b)
{
	int n = json_object_get_string_len(a);
	return n == json_object_get_string_len(b) &&
	       memcmp(json_object_get_string(a), json_object_get_string(b), (size_t)n) == 0;
}

static int arrays_equal(json_object *a, json_object *b)
{
	size_t n = json_object_array_length(a);
	if (n != json_object_array_length(b))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!mock__patch_json_equal(json_object_array_get_idx(a, i),
		                            json_object_array_get_idx(b, i)))
			return 0;
	return 1;
}

static int objects_equal(json_object *a, json_object *b)
{
	if (json_object_object_length(a) != json_object_object_length(b))
		return 0;
	json_object_object_foreach(a, key, val)
	{
		json_object *other = NULL;
		if (!json_object_object_get_ex(b, key, &other) ||
		    !mock__patch_json_equal(val, other))
			return 0;
	}
	return 1;
}

/* Deep equality as RFC 6902 "test" defines it (json_object_equal would
 * tell 1 from 1.0). */
int mock__patch_json_equal(json_object *a, json_object *b)
{
	if (is_number(a) && is_number(b))
		return numbers_equal(a, b);
	enum json_type t = json_object_get_type(a);
	if (t != json_object_get_type(b))
		return 0;
	switch (t) {
	case json_type_null:
		return 1;
	case json_type_boolean:
		return json_object_get_boolean(a) == json_object_get_boolean(b);
	case json_type_string:
		return strings_equal(a, b);
	case json_type_array:
		return arrays_equal(a, b);
	case json_type_object:
		return objects_equal(a, b);
	default:
		return 0;
	}
}

/* Go's == on two interface{} values holding decoded JSON: same dynamic type
 * and value. Maps and slices are never equal here (Go would panic). */
int mock__patch_scalar_equal(json_object *a, json_object *b)
{
	enum json_type t = json_object_get_type(a);
	if (t != json_object_get_type(b))
		return 0;
	switch (t) {
	case json_type_null:
		return 1;
	case json_type_boolean:
		return json_object_get_boolean(a) == json_object_get_boolean(b);
	case json_type_int:
	case json_type_double:
		return numbers_equal(a, b);
	case json_type_string:
		return strings_equal(a, b);
	default:
		return 0;
	}
}

/* reflect.TypeOf of a decoded JSON value, as mergepatch.ErrBadArgType prints. */
const char *mock__patch_go_type_name(json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_object:
		return "map[string]interface {}";
	case json_type_array:
		return "[]interface {}";
	case json_type_string:
		return "string";
	case json_type_boolean:
		return "bool";
	case json_type_int:
		return "int64";
	case json_type_double:
		return "float64";
	default:
		return "<nil>";
	}
}

void mock__patch_gv_append(mock__patch_govalue *g, const char *fmt, ...)
{
	size_t room = sizeof(g->buf) - g->len;
	if (room <= 1)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(g->buf + g->len, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		g->len += (size_t)n < room ? (size_t)n : room - 1;
}

static int cmp_keys(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void gv_object(mock__patch_govalue *g, json_object *o)
{
	size_t n = (size_t)json_object_object_length(o), i = 0;
	const char **keys = n ? malloc(n * sizeof(*keys)) : NULL;
	mock__patch_gv_append(g, "map[");
	if (!keys) {
		mock__patch_gv_append(g, n ? "...]" : "]");
		return;
	}
	json_object_object_foreach(o, key, val)
	{
		(void)val;
		keys[i++] = key;
	}
	qsort(keys, n, sizeof(*keys), cmp_keys);
	for (i = 0; i < n; i++) {
		json_object *v = NULL;
		json_object_object_get_ex(o, keys[i], &v);
		mock__patch_gv_append(g, "%s%s:", i ? " " : "", keys[i]);
		mock__patch_gv_value(g, v);
	}
	mock__patch_gv_append(g, "]");
	free(keys);
}

void mock__patch_gv_value(mock__patch_govalue *g, json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_null:
		mock__patch_gv_append(g, "<nil>");
		break;
	case json_type_boolean:
		mock__patch_gv_append(g, "%s", json_object_get_boolean(o) ? "true" : "false");
		break;
	case json_type_int:
		mock__patch_gv_append(g, "%" PRId64, json_object_get_int64(o));
		break;
	case json_type_double:
		mock__patch_gv_append(g, "%g", json_object_get_double(o));
		break;
	case json_type_string:
		mock__patch_gv_append(g, "%s", json_object_get_string(o));
		break;
	case json_type_array:
		mock__patch_gv_append(g, "[");
		for (size_t i = 0; i < json_object_array_length(o); i++) {
			if (i)
				mock__patch_gv_append(g, " ");
			mock__patch_gv_value(g, json_object_array_get_idx(o, i));
		}
		mock__patch_gv_append(g, "]");
		break;
	case json_type_object:
		gv_object(g, o);
		break;
	}
}

int mock__patch_oom(nl_err *err)
{
	return nl_err_set(err, NL_ENOMEM, "out of memory");
}

void mock_patch_go_value(char *out, size_t outlen, json_object *o)
{
	mock__patch_govalue g = {.len = 0};
	mock__patch_gv_value(&g, o);
	snprintf(out, outlen, "%s", g.buf);
}
