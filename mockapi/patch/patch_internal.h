/* JSON value helpers the PATCH engines share (patch_value.c): deep copies,
 * type tests, equality as Go and RFC 6902 define it, and Go's %v rendering
 * for error messages worded as upstream's. Internal to libmockapi. */
#ifndef MOCK_PATCH_INTERNAL_H
#define MOCK_PATCH_INTERNAL_H

#include <json-c/json.h>
#include <nodelet/errors.h>
#include <nodelet/meta.h>
#include <stddef.h>

/* A deep copy of src (NULL stays NULL) into *out; 0 or NL_ENOMEM. */
int mock__patch_copy(json_object **out, json_object *src);
int mock__patch_is_object(json_object *o);
int mock__patch_is_array(json_object *o);

/* Deep equality as RFC 6902 "test" defines it (1 equals 1.0). */
int mock__patch_json_equal(json_object *a, json_object *b);
/* Go's == on two interface{} values holding decoded JSON scalars; maps and
 * slices are never equal here (Go would panic). */
int mock__patch_scalar_equal(json_object *a, json_object *b);

/* reflect.TypeOf of a decoded JSON value, as mergepatch.ErrBadArgType prints. */
const char *mock__patch_go_type_name(json_object *o);

/* A value rendered like Go's %v (map[k:v] with sorted keys, [a b], <nil>),
 * for error messages worded as upstream's; truncated to fit. */
typedef struct {
	char buf[200];
	size_t len;
} mock__patch_govalue;

void mock__patch_gv_append(mock__patch_govalue *g, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void mock__patch_gv_value(mock__patch_govalue *g, json_object *o);

/* Sets err to NL_ENOMEM "out of memory" and returns NL_ENOMEM. */
int mock__patch_oom(nl_err *err);

#endif
