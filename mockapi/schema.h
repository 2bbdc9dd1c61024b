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

#include "resources.h"

typedef struct mock_schema mock_schema;

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
 * `json: cannot unmarshal string into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32`
 * (the caller prefixes `Lease in version "v1" cannot be handled as a Lease: `).
 * *out is untouched on error. */
int mock_schema_decode(json_object **out, const mock_resource *r, json_object *in,
		       mock_unknown_fields *unknown, nl_err *err);

#endif
