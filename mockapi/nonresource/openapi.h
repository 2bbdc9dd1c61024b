/* OpenAPI v3 as kube-apiserver publishes it (kube-openapi handler3): the
 * /openapi/v3 index of group-versions, each linked with ?hash=<etag>, and
 * one document per group-version with paths, operations and component
 * schemas.
 *
 * kubectl 1.32 needs it to validate by default (create -f, replace, apply,
 * edit): it looks for a PATCH operation of the object's kind
 * (x-kubernetes-group-version-kind) taking a fieldValidation parameter and,
 * finding one, leaves validation to the server (?fieldValidation=Strict).
 * Client-side apply also reads the component schemas for strategic-merge
 * list keys. Operations follow mock_route_allows, except that PATCH is
 * always listed: it is the capability kubectl probes for field validation.
 *
 * /openapi/v2 (openapi_v2.c) is the same paths and schemas in Swagger 2.0
 * form, as JSON or as gnostic's openapi_v2.Document protobuf. kubectl 1.32
 * reads it for client-side validation whenever the server-side kind is
 * not known from v3: always for a `kind: List` document, whose items it
 * validates one by one against the v2 definitions.
 *
 * Every type and field carries a description (openapi_text.c), the same
 * text in v2 and v3, for kubectl explain. */
#ifndef MOCK_OPENAPI_H
#define MOCK_OPENAPI_H

#include <json-c/json.h>
#include <stddef.h>

#include <nodelet/buf.h>

#include "api/resources.h"
#include "core/etag.h"
#include "core/request.h"

/* A document as served: its bytes and ETag. The documents depend only on
 * the built-in kinds, so each is built once per process and kept (building
 * the v3 index, which hashes every group-version, took ~40 ms under ASan;
 * kube-openapi also builds on change, not per request). */
typedef struct {
	char *text; /* NULL: out of memory when it was built */
	size_t len;
	char tag[MOCK_ETAG_LEN];
} mock_openapi_text;
/* Keep a copy of [data, data+len) and its ETag in *out. 0 or NL_ENOMEM. */
int mock_openapi_keep(mock_openapi_text *out, const char *data, size_t len);

/* The document for one group-version path ("api/v1",
 * "apis/coordination.k8s.io/v1"), or NULL when none is served (new
 * reference). */
json_object *mock_openapi_v3_document(const char *gv_path);
/* The index: {"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=…"},…}}. */
json_object *mock_openapi_v3_index(void);

/* The Swagger 2.0 document of every served group-version (new reference). */
json_object *mock_openapi_v2_document(void);
/* Append doc (a mock_openapi_v2_document) to out as a gnostic
 * openapi_v2.Document message (github.com/google/gnostic-models
 * openapiv2/OpenAPIv2.proto). 0, NL_ENOMEM or NL_ETOOBIG (out's cap). */
int mock_openapi_v2_protobuf(nl_buf *out, json_object *doc);
/* Serve /openapi/v2: JSON or protobuf by Accept (406 otherwise), ETag,
 * If-None-Match (304). Returns 1 when the path was /openapi/v2. */
int mock_handle_openapi_v2(const mock_request *req, mock_response *resp);

/* The description of a type (field NULL) or of one of its fields, by the
 * Go type's short name ("NodeStatus", "conditions"); NULL when there is
 * none. Static text. */
const char *mock_openapi_description(const char *type, const char *field);
/* The Pod types' rows of that table (openapi_text_pod.c); NULL when none. */
const char *mock__openapi_pod_description(const char *type, const char *field);
/* Set the description of every component schema and of each of its
 * properties from the table (schemas: name → schema, modified). */
void mock_openapi_describe(json_object *schemas);

/* Serve /openapi/v3 and /openapi/v3/<group-version>: ETag and
 * If-None-Match (304); for a document, Accept negotiation (406 with an empty
 * body when JSON is not acceptable) and a ?hash that is not the current one
 * redirected (301) to the current URL. Returns 1 when the path was one of
 * these. */
int mock_handle_openapi(const mock_request *req, mock_response *resp);

/* Component schemas (openapi_schema.c). */
/* The component name of a Go type used by r ("io.k8s.api.core.v1.NodeSpec",
 * "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"). */
void mock_openapi_schema_name(char *out, size_t cap, const mock_resource *r, const char *go_name);
/* Add r's kind, its list kind and every type they reach to schemas (an
 * object, modified). */
void mock_openapi_add_schemas(json_object *schemas, const mock_resource *r);

#endif
