/* What validation.c (the field.Error list, ObjectMeta) and
 * validation_kinds.c (the per-kind rules) share. Not for other files. */
#ifndef MOCK_VALIDATION_INTERNAL_H
#define MOCK_VALIDATION_INTERNAL_H

#include "validation.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define MAX_SECRET_SIZE 1048576 /* core.MaxSecretSize, shared by ConfigMaps */
#define WHY_MAX 2048
#define NONNEGATIVE_MSG "must be greater than or equal to 0"
#define IMMUTABLE_WHEN_SET_MSG "field is immutable when `immutable` is set"
/* A non-nil pointer inside a %#v dump prints its address; any fixed text will do. */
#define GO_PTR_TEXT "0xc000010000"

/* Append one error; takes message (malloc'ed). Allocation failures drop the
 * error: the caller then cannot build a Status either. */
void mock__ferr_push(mock_ferrs *e, const char *reason, const char *field, char *message);
void mock__ferr_pushf(mock_ferrs *e, const char *reason, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Invalid value errors for a string (quoted as %q) and an integer. */
void mock__ferr_invalid_str(mock_ferrs *e, const char *field, const char *value,
                            const char *detail);
void mock__ferr_invalid_int(mock_ferrs *e, const char *field, int64_t value, const char *detail);
/* One Invalid value error per "; "-separated message of a names.h
 * validator, as Go's callers append one field error per message. */
void mock__ferr_invalid_each(mock_ferrs *e, const char *field, const char *value, const char *why);
/* A string as Go holds it: len bytes at s, NULs included (a value's NULs
 * as json-c holds them, a name's NL_JSON_KEY_NUL turned back). */
typedef struct {
	const char *s;
	size_t len;
	char *own; /* what s points into when it had to be rebuilt */
} mock_gostr;
/* From a JSON string value (anything else reads as ""). */
void mock__gostr_value(mock_gostr *g, json_object *v);
/* From a C string: a member name, or a name held with NL_JSON_KEY_NUL. */
void mock__gostr_key(mock_gostr *g, const char *k);
void mock__gostr_free(mock_gostr *g);
/* mock__ferr_invalid_str and _each over len bytes that may hold NULs. */
void mock__ferr_invalid_strn(mock_ferrs *e, const char *field, const char *value, size_t len,
                             const char *detail);
void mock__ferr_invalid_each_n(mock_ferrs *e, const char *field, const char *value, size_t len,
                               const char *why);
/* %#v of a []string: []string{"a", "b"}. New string (caller frees). */
char *mock__go_string_slice(json_object *arr);

/* -------------------------------------------------------- JSON helpers */

static inline json_object *get(json_object *obj, const char *key)
{
	json_object *v = NULL;
	if (!json_object_is_type(obj, json_type_object) || !json_object_object_get_ex(obj, key, &v))
		return NULL;
	return v;
}

static inline const char *get_str(json_object *obj, const char *key)
{
	json_object *v = get(obj, key);
	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static inline bool nonempty(const char *s)
{
	return s && *s;
}

static inline size_t array_len(json_object *a)
{
	return json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

__attribute__((format(printf, 3, 4))) static inline const char *path(char *buf, size_t len,
                                                                     const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return buf;
}

#endif
