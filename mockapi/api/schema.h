/* Typed decoding of request bodies, as the apiserver's JSON decoder does into
 * Go structs.
 *
 * mock_schema_decode turns an arbitrary JSON object into the canonical form of
 * the kind: fields in Go struct order (kind, apiVersion, metadata, then the
 * kind's fields), unknown fields dropped and reported, empty optional
 * (omitempty) fields omitted, metav1.Time normalized to UTC seconds and
 * MicroTime to UTC with six digits. A value of the wrong JSON type is a decode
 * error, which the server answers with 400 BadRequest. */
#ifndef MOCK_SCHEMA_H
#define MOCK_SCHEMA_H

#include <json-c/json.h>
#include <nodelet/errors.h>
#include <nodelet/schema.h>

#include "resources.h"

/* Reorder obj's keys in place to s's field order (keys s does not know go
 * last), e.g. after a hook added a field. Not recursive. 0 or NL_ENOMEM (obj
 * then keeps its old order). */
int mock_schema_sort_object(json_object *obj, const nl_schema *s);
/* Reorder a map's keys in place to byte order, as Go writes maps. 0 or
 * NL_ENOMEM. */
int mock_json_sort_keys(json_object *obj);

/* Paths of unknown fields ("spec.foo", "metadata.bar"), in document order.
 * Filled by mock_schema_decode; release with mock_unknown_fields_free. */
typedef struct {
	char **paths;
	size_t n;
} mock_unknown_fields;

void mock_unknown_fields_free(mock_unknown_fields *u);

/* Decode in (borrowed) for resource r into *out (new reference, caller puts).
 * kind/apiVersion in the output are always r's. unknown may be NULL.
 * On a type error: NL_EBADREQUEST and err->msg holds Go's decoder text, e.g.
 * `json: cannot unmarshal string into Go struct field LeaseSpec.spec.leaseDurationSeconds of type
 * int32` (the caller prefixes `Lease in version "v1" cannot be handled as a Lease: `); the same for
 * a bad time, quantity or base64 value, with Go's message for it. NL_ENOMEM when allocation fails.
 * The kind's defaulting (SetDefaults_*, e.g. Namespace's kubernetes.io/metadata.name label) is
 * applied. JSON null is an absent field. *out and *unknown are untouched on error. */
int mock_schema_decode(json_object **out, const mock_resource *r, json_object *in,
                       mock_unknown_fields *unknown, nl_err *err);

#endif
