/* Object metadata helpers over json-c trees.
 *
 * Getters return borrowed pointers that live as long as the object they were
 * read from; NULL when the field is absent or not a string. */
#ifndef NODELET_META_H
#define NODELET_META_H

#include <json-c/json.h>
#include <stdint.h>

/* Follow a dotted path ("metadata.name", "spec.configSource.configMap") through
 * nested objects. Borrowed; NULL when any step is missing or not an object. */
json_object *nl_json_get_path(json_object *obj, const char *path);
/* The string at path, or NULL. */
const char *nl_json_get_string(json_object *obj, const char *path);
/* What Go's encoding/json calls v's kind in an UnmarshalTypeError: "object",
 * "array", "string", "bool", "number" or "null" (v NULL, json-c's null).
 * A static string. */
const char *nl_json_go_kind(json_object *v);

const char *nl_meta_name(json_object *obj);
const char *nl_meta_namespace(json_object *obj);
const char *nl_meta_uid(json_object *obj);
const char *nl_meta_resource_version(json_object *obj);
/* metadata.labels (an object) or NULL. */
json_object *nl_meta_labels(json_object *obj);

/* The "metadata" object, created empty when missing. Borrowed; NULL only when
 * obj is not an object or allocation fails. */
json_object *nl_meta_ensure(json_object *obj);
/* Set (copying value) or, with value NULL, delete metadata.<key>. 0, NL_ENOMEM,
 * or NL_EINVAL when obj is not an object. Deleting never creates metadata. */
int nl_meta_set_string(json_object *obj, const char *key, const char *value);

/* Parse a resourceVersion: a decimal uint64 without sign or leading '+'.
 * "" and NULL give 0 with return 0 (unset). NL_EPARSE otherwise. */
int nl_rv_parse(uint64_t *out, const char *s);

/* Serialize compactly the way the apiserver does (no spaces, '/' unescaped).
 * Borrowed string owned by obj (json-c semantics). */
const char *nl_json_compact(json_object *obj, size_t *len_out);

/* Whether a NaN or ±Infinity double occurs anywhere in o. json-c parses
 * them, but they are not JSON: Go's decoder refuses them ("invalid character
 * 'N' looking for beginning of value"), and once stored they would be
 * written back as invalid JSON. Found by fuzzing. */
int nl_json_has_non_finite(json_object *o);

#endif
