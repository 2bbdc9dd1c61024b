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

/* --- schema tables (resources.c holds one per kind) --- */

typedef enum {
	MOCK_FT_STRING,
	MOCK_FT_BOOL,
	MOCK_FT_INT32,
	MOCK_FT_INT64,
	MOCK_FT_TIME,         /* metav1.Time: RFC 3339, written in UTC seconds */
	MOCK_FT_MICROTIME,    /* metav1.MicroTime: exactly six fractional digits */
	MOCK_FT_MAP_STRING,   /* map[string]string, keys written sorted */
	MOCK_FT_MAP_BYTES,    /* map[string][]byte: base64 values, re-encoded */
	MOCK_FT_MAP_QUANTITY, /* v1.ResourceList: syntax-checked quantity strings, kept
	                       * as sent (Go would canonicalize "1000m" to "1") */
	MOCK_FT_OBJECT,       /* a struct: sub */
	MOCK_FT_ARRAY,        /* a slice of elem (of sub when elem is MOCK_FT_OBJECT) */
	MOCK_FT_RAW,          /* any JSON, copied as is */
} mock_field_type;

/* Go's `omitempty`: "", 0, false, empty maps and slices are not written.
 * Never applies to struct values, which Go always writes. */
#define MOCK_F_OMITEMPTY 0x1u
/* A Go pointer: a present zero value ("", 0, false, {}) is kept, an absent
 * one is not written. */
#define MOCK_F_PTR 0x2u
/* Known and type-checked but never written (a field whose feature gate is
 * off in 1.32, e.g. Lease spec.strategy). */
#define MOCK_F_DROP 0x4u
/* kind / apiVersion: always written with the resource's values. */
#define MOCK_F_TYPEMETA 0x8u

typedef struct mock_field {
	const char *name; /* JSON name */
	mock_field_type type;
	unsigned flags;       /* MOCK_F_* */
	const char *go_type;  /* Go type as decode errors name it: "int32", "[]v1.Taint" */
	mock_field_type elem; /* MOCK_FT_ARRAY: the element type */
	const mock_schema *sub;
} mock_field;

struct mock_schema {
	const char *go_name; /* struct name in decode errors: "LeaseSpec" */
	const mock_field *fields;
	size_t nfields;
	/* Top level only: the apiserver's defaulting (SetDefaults_*), run on the
	 * decoded object. May be NULL. */
	void (*defaults)(json_object *obj);
};

/* ObjectMeta's schema (defined with the kinds in resources.c), e.g. to put
 * metadata back in Go order after the store set uid and resourceVersion. */
extern const mock_schema mock_object_meta_schema;

/* Reorder obj's keys in place to s's field order (keys s does not know go
 * last), e.g. after a hook added a field. Not recursive. 0 or NL_ENOMEM (obj
 * then keeps its old order). */
int mock_schema_sort_object(json_object *obj, const mock_schema *s);
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
