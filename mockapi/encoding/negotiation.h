/* Content negotiation as kube-apiserver does it: the Accept header parsed
 * like goautoneg.ParseAccept, clauses matched against the media types the
 * server can write (apiserver handlers/negotiation), conversions requested
 * with the as/g/v parameters (Table, PartialObjectMetadata[List],
 * APIGroupDiscoveryList) allowed per endpoint, and the request body's
 * Content-Type checked before the body is read.
 *
 * nodelet-mockapi writes and reads JSON, YAML and, for resource endpoints
 * of a kind with a wire schema (nodelet/schema.h), Kubernetes protobuf
 * (docs/protobuf.md). Discovery and the other non-resource paths answer
 * JSON or YAML. CBOR is not served: a client that accepts only that gets
 * 406, a CBOR body 415, each with the apiserver's Status text listing what
 * is served. */
#ifndef MOCK_NEGOTIATION_H
#define MOCK_NEGOTIATION_H

#include <nodelet/status.h>
#include <stddef.h>

#include "api/route.h"
#include "core/request.h"

/* Clauses and parameters beyond these are ignored (kubectl sends three
 * clauses of at most four parameters). */
#define MOCK_ACCEPT_MAX_CLAUSES 16
#define MOCK_ACCEPT_MAX_PARAMS 8

typedef struct {
	char key[32];
	char value[96];
} mock_accept_param;

typedef struct {
	char type[64];
	char subtype[96];
	double q;
	mock_accept_param params[MOCK_ACCEPT_MAX_PARAMS]; /* without q */
	size_t nparams;
} mock_accept_clause;

typedef struct {
	mock_accept_clause clauses[MOCK_ACCEPT_MAX_CLAUSES];
	size_t n;
} mock_accept;

/* Parse an Accept header exactly as goautoneg.ParseAccept: clauses split on
 * ',' and ';', a bare "*" means "*\/\*", clauses without a '/' are dropped,
 * q defaults to 1 (0 when unparsable; q=0 clauses are kept), sorted by the
 * library's comparison (higher q first, then concrete types before "*") with
 * Go's stable insertion sort. NULL or "" gives no clauses. Never fails. */
void mock_accept_parse(mock_accept *out, const char *header);
/* A clause parameter's value, or NULL. Borrowed from c. */
const char *mock_accept_param_get(const mock_accept_clause *c, const char *key);

typedef enum {
	MOCK_MEDIA_JSON,
	MOCK_MEDIA_YAML,
	MOCK_MEDIA_PROTOBUF, /* application/vnd.kubernetes.protobuf */
} mock_media;

/* A conversion the client asked for with as=…;g=…;v=…. */
typedef enum {
	MOCK_AS_NONE,
	MOCK_AS_TABLE,        /* meta.k8s.io Table (v1 or v1beta1) */
	MOCK_AS_PARTIAL,      /* meta.k8s.io PartialObjectMetadata */
	MOCK_AS_PARTIAL_LIST, /* meta.k8s.io PartialObjectMetadataList */
	MOCK_AS_DISCOVERY,    /* apidiscovery.k8s.io APIGroupDiscoveryList (v2 or v2beta1) */
} mock_as;

/* What an endpoint can convert to (the apiserver's EndpointRestrictions). */
#define MOCK_ALLOW_PLAIN 0x1u     /* the object itself, no as= parameter */
#define MOCK_ALLOW_META 0x2u      /* Table, PartialObjectMetadata[List]: resource endpoints */
#define MOCK_ALLOW_DISCOVERY 0x4u /* APIGroupDiscoveryList: /api and /apis */
#define MOCK_ALLOW_PROTOBUF 0x8u  /* protobuf: the endpoint's kind has a wire schema */

/* What a resource endpoint of r allows: the object, Table and
 * PartialObjectMetadata[List], and protobuf when r's kind has a schema. */
unsigned mock_negotiate_allow(const mock_resource *r);

typedef struct {
	mock_media media;
	mock_as as;
	char version[16]; /* the conversion's version: "v1", "v1beta1", "v2", "v2beta1" */
} mock_negotiated;

/* Pick the response representation for an Accept header (NULL or "" means
 * JSON) on an endpoint allowing `allow`: the first sorted clause whose type
 * matches a served media type (application/json, application/yaml,
 * application/vnd.kubernetes.protobuf when allowed, also via application/\*
 * and \*\/\*) and whose as/g/v parameters name an allowed conversion (a
 * Table is JSON or YAML only). Unknown parameters are ignored, as the apiserver does.
 * 0, or NL_EINVAL when nothing acceptable is served (answer 406 with
 * mock_status_not_acceptable); *out is untouched then. */
int mock_negotiate_output(mock_negotiated *out, const char *accept, unsigned allow);

/* The body's media type from Content-Type (parameters such as charset
 * ignored, type case-insensitive, as Go's mime.ParseMediaType): NULL or ""
 * is JSON; protobuf is returned as such, the caller knows whether the
 * endpoint reads it. NL_EINVAL for anything else (answer 415 with
 * mock_status_unsupported_media_type); *out is untouched then. */
int mock_negotiate_input(mock_media *out, const char *content_type);

/* 406 NotAcceptable "only the following media types are accepted:
 * application/json, application/yaml, application/vnd.kubernetes.protobuf"
 * (caller frees). */
nl_status *mock_status_not_acceptable(void);
/* 415 UnsupportedMediaType "the body of the request was in an unknown format
 * - accepted media types include: application/json, application/yaml,
 * application/vnd.kubernetes.protobuf". */
nl_status *mock_status_unsupported_media_type(void);

/* A request body converted from YAML or protobuf to JSON (see
 * mock_negotiate_request). */
typedef struct {
	mock_request req; /* the request to hand to the handlers */
	char *json;       /* owned converted body, or NULL */
} mock_negotiated_request;

/* The checks a resource handler makes before it reads the body, in the
 * apiserver's order: output negotiation (406), then, for POST and PUT and a
 * DELETE with a body, the body's Content-Type (415; PATCH types belong to the
 * PATCH handler). A YAML or protobuf body is converted to JSON (a syntax
 * error is the apiserver's 400 "the object provided is unrecognized …", a
 * broken object inside a good protobuf envelope its "<Kind> in version …
 * cannot be handled as a <Kind>: …"). Protobuf bodies are never strictly
 * decoded upstream; their JSON has no unknown or duplicate fields. On success
 * out->req is the request to dispatch; release with
 * mock_negotiated_request_free. -1 when resp already holds the refusal. */
int mock_negotiate_request(mock_negotiated *neg, mock_negotiated_request *out, const mock_route *rt,
                           const mock_request *req, mock_response *resp);
void mock_negotiated_request_free(mock_negotiated_request *r);

/* After the handler: turn a JSON answer into the negotiated representation
 * (the Table / PartialObjectMetadata conversions of GET and LIST answers,
 * then YAML or protobuf when negotiated, errors' Status included). Errors
 * keep their code. A stream is left alone (the watch encodes its events). */
void mock_negotiate_finish(const mock_negotiated *neg, const mock_route *rt,
                           const mock_request *req, mock_response *resp);

#endif
