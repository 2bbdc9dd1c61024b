/* Helpers shared by the fuzz targets; see fuzz.h. */
#include "fuzz.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fuzz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: invariant failed: %s\n", file, line, what);
	abort();
}

char *fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		fuzz_fail(__FILE__, __LINE__, "out of memory");
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

int fuzz_split(fuzz_part *a, fuzz_part *b, const char *data, size_t size, const char *sep)
{
	size_t n = strlen(sep);
	for (size_t i = 0; n && i + n <= size; i++) {
		if (memcmp(data + i, sep, n) == 0) {
			*a = (fuzz_part){data, i};
			*b = (fuzz_part){data + i + n, size - i - n};
			return 1;
		}
	}
	*a = (fuzz_part){data, size};
	*b = (fuzz_part){data + size, 0};
	return 0;
}

int fuzz_json_has_non_finite(json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_double:
		return !isfinite(json_object_get_double(o));
	case json_type_object: {
		json_object_object_foreach(o, k, v)
		{
			(void)k;
			if (fuzz_json_has_non_finite(v))
				return 1;
		}
		return 0;
	}
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++)
			if (fuzz_json_has_non_finite(json_object_array_get_idx(o, i)))
				return 1;
		return 0;
	default:
		return 0;
	}
}

json_object *fuzz_json(const char *p, size_t len, int *is_null)
{
	if (is_null)
		*is_null = 0;
	json_tokener *tok = json_tokener_new();
	if (!tok)
		fuzz_fail(__FILE__, __LINE__, "out of memory");
	json_object *obj = NULL;
	if (len <= (size_t)INT32_MAX)
		obj = json_tokener_parse_ex(tok, p, (int)len);
	enum json_tokener_error e = json_tokener_get_error(tok);
	size_t end = json_tokener_get_parse_end(tok);
	if (e == json_tokener_continue) {
		/* A number or literal at the very end: a NUL tells json-c the text
		 * ended, as json_tokener_parse does. */
		obj = json_tokener_parse_ex(tok, "", 1);
		e = json_tokener_get_error(tok);
		end = len;
	}
	int ok = e == json_tokener_success;
	for (size_t i = end; ok && i < len; i++)
		ok = p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t';
	json_tokener_free(tok);
	if (!ok || fuzz_json_has_non_finite(obj)) {
		json_object_put(obj);
		return NULL;
	}
	if (!obj && is_null)
		*is_null = 1;
	return obj;
}

const char *fuzz_json_text(json_object *obj)
{
	return json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN |
	                                               JSON_C_TO_STRING_NOSLASHESCAPE);
}

int fuzz_doc_and_patch(json_object **doc, json_object **patch, const uint8_t *data, size_t size)
{
	fuzz_part d, p;
	int is_null;
	if (!fuzz_split(&d, &p, (const char *)data, size, "\n---\n"))
		return -1;
	*doc = fuzz_json(d.p, d.len, NULL);
	if (!*doc)
		return -1;
	*patch = fuzz_json(p.p, p.len, &is_null);
	if (!*patch && !is_null) {
		json_object_put(*doc);
		return -1;
	}
	return 0;
}

static int is_number(json_object *o)
{
	return json_object_is_type(o, json_type_int) || json_object_is_type(o, json_type_double);
}

/* json-c clamps an integer literal it cannot hold to INT64_MIN or
 * UINT64_MAX. */
static int saturated(json_object *o)
{
	if (!json_object_is_type(o, json_type_int))
		return 0;
	return json_object_get_int64(o) == INT64_MIN || json_object_get_uint64(o) == UINT64_MAX;
}

static int same_number(json_object *a, json_object *b)
{
	if (json_object_is_type(a, json_type_int) && json_object_is_type(b, json_type_int) &&
	    json_object_equal(a, b))
		return 1;
	double x = json_object_get_double(a), y = json_object_get_double(b);
	if (x == y)
		return 1;
	if (saturated(a) || saturated(b))
		return (x < 0) == (y < 0) && fabs(x) >= 9.2e18 && fabs(y) >= 9.2e18;
	return 0;
}

int fuzz_json_same(json_object *a, json_object *b)
{
	if (is_number(a) && is_number(b))
		return same_number(a, b);
	if (json_object_get_type(a) != json_object_get_type(b))
		return 0;
	switch (json_object_get_type(a)) {
	case json_type_object: {
		if (json_object_object_length(a) != json_object_object_length(b))
			return 0;
		json_object_object_foreach(a, k, v)
		{
			json_object *w;
			if (!json_object_object_get_ex(b, k, &w) || !fuzz_json_same(v, w))
				return 0;
		}
		return 1;
	}
	case json_type_array:
		if (json_object_array_length(a) != json_object_array_length(b))
			return 0;
		for (size_t i = 0; i < json_object_array_length(a); i++)
			if (!fuzz_json_same(json_object_array_get_idx(a, i),
			                    json_object_array_get_idx(b, i)))
				return 0;
		return 1;
	default:
		return json_object_equal(a, b);
	}
}
