/* What fieldset.c and fieldset_typed.c share: the node layout of a field
 * set (fieldset.h) and the printing of one path element. Internal to
 * libmockapi. */
#ifndef MOCK_FIELDSET_INTERNAL_H
#define MOCK_FIELDSET_INTERNAL_H

#include <json-c/json.h>
#include <nodelet/buf.h>

/* The key that makes a node a member of its set. */
#define MOCK__FSET_MEMBER "."
/* Deeper than any served kind's schema; walks and FieldsV1 stop there. */
#define MOCK__FSET_MAX_DEPTH 32

/* Whether node is itself a member. */
int mock__fset_is_member(json_object *node);
/* Make node a member. 0 or NL_ENOMEM. */
int mock__fset_mark(json_object *node);
/* Append PathElement.String() of a serialized element ("f:x" → ".x",
 * "k:{\"type\":\"Ready\"}" → "[type=\"Ready\"]", "v:\"a\"" → "[=\"a\"]"). */
void mock__fset_el_string(nl_buf *b, const char *el);

#endif
