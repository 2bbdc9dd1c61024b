/* The wire schema of every kind nodelet reads or writes: for each Go struct
 * of k8s.io/api v0.32 (core/v1, coordination/v1, policy/v1,
 * certificates/v1) and
 * k8s.io/apimachinery meta/v1, its fields in Go struct order with their JSON
 * name, JSON shape, `omitempty` / pointer choice and protobuf field number.
 *
 * One table serves three readers: the mock's typed JSON decoder
 * (mockapi/api/schema.c), its OpenAPI document, and the protobuf codec
 * (nodelet/protobuf.h), so a field added here is decoded, documented and put
 * on the wire in both encodings at once (docs/decisions/0026-protobuf.md). */
#ifndef NODELET_SCHEMA_H
#define NODELET_SCHEMA_H

#include <stddef.h>

typedef struct nl_schema nl_schema;

typedef enum {
	NL_FT_STRING,
	NL_FT_BOOL,
	NL_FT_INT32,
	NL_FT_INT64,
	NL_FT_TIME,         /* metav1.Time: RFC 3339 in UTC seconds; protobuf {seconds, nanos} */
	NL_FT_MICROTIME,    /* metav1.MicroTime: six fractional digits; same protobuf shape */
	NL_FT_MAP_STRING,   /* map[string]string, keys written sorted */
	NL_FT_MAP_BYTES,    /* map[string][]byte: base64 in JSON, bytes in protobuf */
	NL_FT_MAP_QUANTITY, /* v1.ResourceList: quantity strings kept as sent (Go would
	                     * canonicalize "1000m" to "1"); protobuf Quantity{string=1} */
	NL_FT_OBJECT,       /* a struct: sub */
	NL_FT_ARRAY,        /* a slice of elem (of sub when elem is NL_FT_OBJECT) */
	NL_FT_RAW,          /* any JSON, copied as is; in protobuf a message whose
	                     * field 1 holds the JSON text (FieldsV1, RawExtension) */
	NL_FT_MAP_STRINGS,  /* map[string][]string (CSR spec.extra's ExtraValue): a list
	                     * of strings per key; protobuf value ExtraValue{items = 1} */
	NL_FT_BYTES,        /* []byte: canonical base64 in JSON (nil is null), bytes
	                     * in protobuf (written when non-nil, even empty) */
} nl_field_type;

/* Go's `omitempty`: "", 0, false, empty maps and slices are not written in
 * JSON. Never applies to struct values, which Go always writes. */
#define NL_F_OMITEMPTY 0x1u
/* A Go pointer: a present zero value ("", 0, false, {}) is kept, an absent
 * one is not written — in JSON and in protobuf alike. */
#define NL_F_PTR 0x2u
/* Known and type-checked but never stored (a field whose feature gate is
 * off in 1.32, e.g. Lease spec.strategy). */
#define NL_F_DROP 0x4u
/* kind / apiVersion: always written with the resource's values in JSON; in
 * protobuf they travel in the envelope (pb is 0). */
#define NL_F_TYPEMETA 0x8u

typedef struct nl_field {
	const char *name; /* JSON name */
	nl_field_type type;
	unsigned flags;      /* NL_F_* */
	const char *go_type; /* Go type as decode errors name it: "int32", "[]v1.Taint" */
	nl_field_type elem;  /* NL_FT_ARRAY: the element type */
	const nl_schema *sub;
	unsigned pb; /* protobuf field number (generated.proto); 0: not in protobuf */
} nl_field;

struct nl_schema {
	const char *go_name; /* struct name in decode errors: "LeaseSpec" */
	const nl_field *fields;
	size_t nfields;
};

/* Structs several kinds share. */
extern const nl_schema nl_schema_object_meta;
extern const nl_schema nl_schema_list_meta;

/* The top-level kinds. */
extern const nl_schema nl_schema_namespace;
extern const nl_schema nl_schema_node;
extern const nl_schema nl_schema_configmap;
extern const nl_schema nl_schema_event;
extern const nl_schema nl_schema_lease;
extern const nl_schema nl_schema_pod;
extern const nl_schema nl_schema_csr; /* certificates.k8s.io/v1 CertificateSigningRequest */
extern const nl_schema nl_schema_status;
extern const nl_schema nl_schema_delete_options;
extern const nl_schema nl_schema_eviction;
extern const nl_schema nl_schema_partial_object_metadata;

/* The schema of a top-level object by apiVersion and kind, including each
 * kind's <Kind>List, Status, DeleteOptions (under any of the versions the
 * apiserver accepts it in), Eviction and PartialObjectMetadata[List]. NULL
 * when unknown (Table, discovery documents: JSON only). Static. */
const nl_schema *nl_schema_for_kind(const char *api_version, const char *kind);

#endif
