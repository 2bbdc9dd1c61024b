/* OpenAPI v3: the index and group-version documents kubectl 1.32 reads to
 * validate server-side (a PATCH operation per kind with fieldValidation),
 * component schemas generated from the wire schemas, and the handler3
 * behaviour (ETag/304, hash redirects, Accept). OpenAPI v2: the Swagger
 * 2.0 conversion, its protobuf, its handler. Descriptions everywhere. */
#include <nodelet/meta.h>
#include <string.h>

#include "../cu_main.h"
#include "api/schema.h"
#include "core/request.h"
#include "nonresource/openapi.h"

/* kubectl's supportsQueryParamV3: the first PATCH operation for gvk decides. */
static int supports_field_validation(json_object *doc, const char *group, const char *kind)
{
	json_object *paths = json_object_object_get(doc, "paths");
	json_object_object_foreach(paths, path, item)
	{
		(void)path;
		json_object *op = json_object_object_get(item, "patch");
		json_object *gvk =
		    op ? json_object_object_get(op, "x-kubernetes-group-version-kind") : NULL;
		if (!gvk || !json_object_is_type(gvk, json_type_object))
			continue;
		if (strcmp(json_object_get_string(json_object_object_get(gvk, "group")), group) !=
		        0 ||
		    strcmp(json_object_get_string(json_object_object_get(gvk, "version")), "v1") !=
		        0 ||
		    strcmp(json_object_get_string(json_object_object_get(gvk, "kind")), kind) != 0)
			continue;
		json_object *params = json_object_object_get(op, "parameters");
		for (size_t i = 0; i < json_object_array_length(params); i++) {
			json_object *p = json_object_array_get_idx(params, i);
			if (strcmp(json_object_get_string(json_object_object_get(p, "name")),
			           "fieldValidation") == 0)
				return 1;
		}
		return 0;
	}
	return 0;
}

static void test_openapi__kubectl_finds_field_validation(void)
{
	json_object *core = mock_openapi_v3_document("api/v1");
	json_object *coord = mock_openapi_v3_document("apis/coordination.k8s.io/v1");
	CU_ASSERT_PTR_NOT_NULL_FATAL(core);
	CU_ASSERT_PTR_NOT_NULL_FATAL(coord);
	static const char *const core_kinds[] = {"ConfigMap", "Node", "Namespace", "Event", NULL};
	for (int i = 0; core_kinds[i]; i++)
		CU_ASSERT_TRUE(supports_field_validation(core, "", core_kinds[i]));
	CU_ASSERT_TRUE(supports_field_validation(coord, "coordination.k8s.io", "Lease"));
	CU_ASSERT_FALSE(supports_field_validation(core, "coordination.k8s.io", "Lease"));
	CU_ASSERT_FALSE(supports_field_validation(core, "apps", "Deployment"));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(core, "openapi")),
	                       "3.0.0");
	json_object_put(core);
	json_object_put(coord);
	CU_ASSERT_PTR_NULL(mock_openapi_v3_document("apis/apps/v1"));
	CU_ASSERT_PTR_NULL(mock_openapi_v3_document("api/v2"));
	CU_ASSERT_PTR_NULL(mock_openapi_v3_document("api/v1/x"));
	CU_ASSERT_PTR_NULL(mock_openapi_v3_document(""));
}

static void test_openapi__operations_follow_served_verbs(void)
{
	json_object *core = mock_openapi_v3_document("api/v1");
	json_object *paths = json_object_object_get(core, "paths");
	json_object *cm =
	    json_object_object_get(paths, "/api/v1/namespaces/{namespace}/configmaps");
	CU_ASSERT_PTR_NOT_NULL_FATAL(cm);
	json_object *list = json_object_object_get(cm, "get");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(list, "operationId")),
	                       "listCoreV1NamespacedConfigMap");
	CU_ASSERT_STRING_EQUAL(
	    json_object_get_string(json_object_object_get(list, "x-kubernetes-action")), "list");
	CU_ASSERT_PTR_NOT_NULL(json_object_object_get(cm, "post"));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(
	                           json_object_object_get(cm, "delete"), "operationId")),
	                       "deleteCoreV1CollectionNamespacedConfigMap");
	CU_ASSERT_PTR_NOT_NULL(json_object_object_get(paths, "/api/v1/configmaps"));
	json_object *status = json_object_object_get(paths, "/api/v1/nodes/{name}/status");
	CU_ASSERT_PTR_NOT_NULL_FATAL(status);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(
	                           json_object_object_get(status, "get"), "operationId")),
	                       "readCoreV1NodeStatus");
	CU_ASSERT_PTR_NOT_NULL(json_object_object_get(status, "put"));
	CU_ASSERT_PTR_NULL(json_object_object_get(status, "delete"));
	/* /finalize is PUT only. */
	json_object *fin = json_object_object_get(paths, "/api/v1/namespaces/{name}/finalize");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(
	                           json_object_object_get(fin, "put"), "operationId")),
	                       "replaceCoreV1NamespaceFinalize");
	CU_ASSERT_PTR_NULL(json_object_object_get(fin, "get"));
	CU_ASSERT_PTR_NULL(json_object_object_get(fin, "patch"));
	/* Namespaces are updated with PUT, not deleted as a collection. */
	json_object *ns = json_object_object_get(paths, "/api/v1/namespaces/{name}");
	CU_ASSERT_PTR_NOT_NULL(json_object_object_get(ns, "put"));
	CU_ASSERT_PTR_NULL(
	    json_object_object_get(json_object_object_get(paths, "/api/v1/namespaces"), "delete"));
	CU_ASSERT_PTR_NOT_NULL(json_object_object_get(ns, "patch"));
	json_object *body = json_object_object_get(
	    json_object_object_get(json_object_object_get(ns, "patch"), "requestBody"), "content");
	CU_ASSERT_PTR_NOT_NULL(
	    json_object_object_get(body, "application/strategic-merge-patch+json"));
	CU_ASSERT_PTR_NOT_NULL(json_object_object_get(body, "application/apply-patch+yaml"));
	json_object_put(core);
}

static void collect_refs(json_object *o, json_object *schemas, const char *prefix, int *missing)
{
	if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++)
			collect_refs(json_object_array_get_idx(o, i), schemas, prefix, missing);
		return;
	}
	if (!json_object_is_type(o, json_type_object))
		return;
	json_object_object_foreach(o, k, v)
	{
		if (strcmp(k, "$ref") == 0) {
			const char *ref = json_object_get_string(v);
			if (strncmp(ref, prefix, strlen(prefix)) != 0 ||
			    !json_object_object_get_ex(schemas, ref + strlen(prefix), NULL)) {
				fprintf(stderr, "\n  unresolved %s\n", ref);
				(*missing)++;
			}
		} else {
			collect_refs(v, schemas, prefix, missing);
		}
	}
}

static void test_openapi__every_reference_resolves(void)
{
	static const char *const gvs[] = {"api/v1", "apis/coordination.k8s.io/v1", NULL};
	for (int i = 0; gvs[i]; i++) {
		json_object *doc = mock_openapi_v3_document(gvs[i]);
		json_object *schemas =
		    json_object_object_get(json_object_object_get(doc, "components"), "schemas");
		int missing = 0;
		collect_refs(doc, schemas, "#/components/schemas/", &missing);
		CU_ASSERT_EQUAL(missing, 0);
		json_object_put(doc);
	}
}

static void test_openapi__schemas_come_from_the_wire_schemas(void)
{
	json_object *doc = mock_openapi_v3_document("apis/coordination.k8s.io/v1");
	json_object *schemas =
	    json_object_object_get(json_object_object_get(doc, "components"), "schemas");
	json_object *lease = json_object_object_get(schemas, "io.k8s.api.coordination.v1.Lease");
	CU_ASSERT_PTR_NOT_NULL_FATAL(lease);
	NL_ASSERT_JSON_EQ(json_object_object_get(lease, "x-kubernetes-group-version-kind"),
	                  "[{\"group\":\"coordination.k8s.io\",\"kind\":\"Lease\",\"version\":"
	                  "\"v1\"}]");
	/* Every field of the table, and nothing else. */
	const nl_schema *s = mock_resource_get(MOCK_KIND_LEASE)->schema;
	json_object *props = json_object_object_get(lease, "properties");
	CU_ASSERT_EQUAL(json_object_object_length(props), (int)s->nfields);
	for (size_t i = 0; i < s->nfields; i++)
		CU_ASSERT_PTR_NOT_NULL(json_object_object_get(props, s->fields[i].name));
	json_object *spec = json_object_object_get(schemas, "io.k8s.api.coordination.v1.LeaseSpec");
	/* Descriptions are checked apart (every_field_is_described). */
	json_object_object_foreach(json_object_object_get(spec, "properties"), pk, pv)
	{
		(void)pk;
		json_object_object_del(pv, "description");
	}
	NL_ASSERT_JSON_EQ(json_object_object_get(json_object_object_get(spec, "properties"),
	                                         "leaseDurationSeconds"),
	                  "{\"type\":\"integer\",\"format\":\"int32\"}");
	NL_ASSERT_JSON_EQ(
	    json_object_object_get(json_object_object_get(spec, "properties"), "renewTime"),
	    "{\"allOf\":[{\"$ref\":\"#/components/schemas/"
	    "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime\"}]}");
	CU_ASSERT_PTR_NOT_NULL(
	    json_object_object_get(schemas, "io.k8s.api.coordination.v1.LeaseList"));
	json_object *meta =
	    json_object_object_get(schemas, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
	json_object *owners =
	    json_object_object_get(json_object_object_get(meta, "properties"), "ownerReferences");
	CU_ASSERT_STRING_EQUAL(
	    json_object_get_string(json_object_object_get(owners, "x-kubernetes-patch-merge-key")),
	    "uid");
	json_object_put(doc);

	doc = mock_openapi_v3_document("api/v1");
	schemas = json_object_object_get(json_object_object_get(doc, "components"), "schemas");
	json_object *ns = json_object_object_get(schemas, "io.k8s.api.core.v1.NodeStatus");
	json_object *conds =
	    json_object_object_get(json_object_object_get(ns, "properties"), "conditions");
	CU_ASSERT_STRING_EQUAL(
	    json_object_get_string(json_object_object_get(conds, "x-kubernetes-patch-strategy")),
	    "merge");
	CU_ASSERT_STRING_EQUAL(
	    json_object_get_string(json_object_object_get(conds, "x-kubernetes-patch-merge-key")),
	    "type");
	/* a Pod's lists merge as k8s.io/api's patch tags say (kubectl apply) */
	static const char *const pod_lists[][4] = {
	    {"PodSpec", "containers", "name", "merge"},
	    {"PodSpec", "initContainers", "name", "merge"},
	    {"PodSpec", "volumes", "name", "merge,retainKeys"},
	    {"Container", "ports", "containerPort", "merge"},
	    {"Container", "env", "name", "merge"},
	    {"Container", "volumeMounts", "mountPath", "merge"},
	    {"PodStatus", "conditions", "type", "merge"},
	};
	for (size_t i = 0; i < sizeof(pod_lists) / sizeof(pod_lists[0]); i++) {
		char name[96];
		snprintf(name, sizeof(name), "io.k8s.api.core.v1.%s", pod_lists[i][0]);
		json_object *l = json_object_object_get(
		    json_object_object_get(json_object_object_get(schemas, name), "properties"),
		    pod_lists[i][1]);
		const char *key = json_object_get_string(
		    json_object_object_get(l, "x-kubernetes-patch-merge-key"));
		const char *strategy = json_object_get_string(
		    json_object_object_get(l, "x-kubernetes-patch-strategy"));
		CU_ASSERT_STRING_EQUAL(key ? key : "", pod_lists[i][2]);
		CU_ASSERT_STRING_EQUAL(strategy ? strategy : "", pod_lists[i][3]);
	}
	json_object *cond = json_object_object_get(schemas, "io.k8s.api.core.v1.NodeCondition");
	NL_ASSERT_JSON_EQ(json_object_object_get(cond, "required"), "[\"status\",\"type\"]");
	json_object *cm = json_object_object_get(schemas, "io.k8s.api.core.v1.ConfigMap");
	json_object_object_del(
	    json_object_object_get(json_object_object_get(cm, "properties"), "binaryData"),
	    "description");
	NL_ASSERT_JSON_EQ(
	    json_object_object_get(json_object_object_get(cm, "properties"), "binaryData"),
	    "{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\","
	    "\"format\":\"byte\"}}");
	json_object_put(doc);
}

static void get(mock_response *resp, const char *path, const char *accept, const char *hash,
                const char *inm)
{
	mock_request req;
	memset(&req, 0, sizeof(req));
	req.method = "GET";
	req.path = path;
	req.accept = accept;
	req.if_none_match = inm;
	if (hash) {
		req.query[0].key = "hash";
		req.query[0].value = hash;
		req.nquery = 1;
	}
	mock_response_init(resp);
	CU_ASSERT_TRUE(strcmp(path, "/openapi/v2") == 0 ? mock_handle_openapi_v2(&req, resp)
	                                                : mock_handle_openapi(&req, resp));
}

static void test_openapi__index_links_each_group_version(void)
{
	json_object *idx = mock_openapi_v3_index();
	json_object *paths = json_object_object_get(idx, "paths");
	CU_ASSERT_EQUAL(json_object_object_length(paths), 3);
	const char *url = json_object_get_string(
	    json_object_object_get(json_object_object_get(paths, "api/v1"), "serverRelativeURL"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(url);
	CU_ASSERT_EQUAL(strncmp(url, "/openapi/v3/api/v1?hash=", 24), 0);
	CU_ASSERT_EQUAL(strlen(url), 24 + 16);
	CU_ASSERT_PTR_NOT_NULL(json_object_object_get(paths, "apis/coordination.k8s.io/v1"));

	/* The linked hash is the document's ETag, stable across builds of it. */
	mock_response r;
	get(&r, "/openapi/v3/api/v1", "application/json", url + 24, NULL);
	CU_ASSERT_EQUAL(r.code, 200);
	CU_ASSERT_STRING_EQUAL(r.content_type, "application/json");
	CU_ASSERT_PTR_NOT_NULL(strstr(r.headers, "Cache-Control: public, immutable\r\n"));
	char etag[64];
	snprintf(etag, sizeof(etag), "ETag: \"%s\"\r\n", url + 24);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.headers, etag));
	mock_response_free(&r);

	char inm[32];
	snprintf(inm, sizeof(inm), "\"%s\"", url + 24);
	get(&r, "/openapi/v3/api/v1", NULL, NULL, inm);
	CU_ASSERT_EQUAL(r.code, 304);
	CU_ASSERT_EQUAL(r.body.len, 0);
	mock_response_free(&r);

	/* An old hash is redirected to the current document. */
	get(&r, "/openapi/v3/api/v1", "application/json", "0123", NULL);
	CU_ASSERT_EQUAL(r.code, 301);
	char loc[96];
	snprintf(loc, sizeof(loc), "Location: %s\r\n", url);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.headers, loc));
	mock_response_free(&r);
	json_object_put(idx);

	get(&r, "/openapi/v3", "application/json, */*", NULL, NULL);
	CU_ASSERT_EQUAL(r.code, 200);
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(r.body.data, "{\"paths\":{\"api/v1\":{\"serverRelativeURL\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.headers, "ETag: \""));
	mock_response_free(&r);
}

static void test_openapi__accept_and_unknown_paths(void)
{
	mock_response r;
	get(&r, "/openapi/v3/api/v1", "application/com.github.proto-openapi.spec.v3@v1.0+protobuf",
	    NULL, NULL);
	CU_ASSERT_EQUAL(r.code, 406);
	CU_ASSERT_EQUAL(r.body.len, 0);
	mock_response_free(&r);
	get(&r, "/openapi/v3/apis/coordination.k8s.io/v1", "*/*", NULL, NULL);
	CU_ASSERT_EQUAL(r.code, 200);
	mock_response_free(&r);
	get(&r, "/openapi/v3/apis/apps/v1", "application/json", NULL, NULL);
	CU_ASSERT_EQUAL(r.code, 404);
	mock_response_free(&r);
}

/* Every component and every property has a description, in every
 * document: kubectl explain prints them. */
static void count_undescribed(json_object *schemas, int *missing)
{
	json_object_object_foreach(schemas, name, schema)
	{
		if (!json_object_object_get_ex(schema, "description", NULL)) {
			fprintf(stderr, "\n  %s: no description\n", name);
			(*missing)++;
		}
		json_object *props = json_object_object_get(schema, "properties");
		if (!props)
			continue;
		json_object_object_foreach(props, f, prop)
		{
			json_object *d = json_object_object_get(prop, "description");
			if (!d || json_object_get_string_len(d) < 8) {
				fprintf(stderr, "\n  %s.%s: no description\n", name, f);
				(*missing)++;
			}
		}
	}
}

static void test_openapi__every_field_is_described(void)
{
	static const char *const gvs[] = {"api/v1", "apis/coordination.k8s.io/v1", NULL};
	int missing = 0;
	for (int i = 0; gvs[i]; i++) {
		json_object *doc = mock_openapi_v3_document(gvs[i]);
		count_undescribed(
		    json_object_object_get(json_object_object_get(doc, "components"), "schemas"),
		    &missing);
		json_object_put(doc);
	}
	json_object *v2 = mock_openapi_v2_document();
	count_undescribed(json_object_object_get(v2, "definitions"), &missing);
	json_object_put(v2);
	CU_ASSERT_EQUAL(missing, 0);
	/* One table: the same words wherever a field is described. */
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(mock_openapi_description("NodeStatus", "conditions"), "Ready, MemoryPressure"));
	CU_ASSERT_PTR_NOT_NULL(mock_openapi_description("LeaseList", "items"));
	CU_ASSERT_STRING_EQUAL(mock_openapi_description("LeaseList", "kind"),
	                       mock_openapi_description("Lease", "kind"));
	CU_ASSERT_PTR_NULL(mock_openapi_description("Lease", "nosuchfield"));
	CU_ASSERT_PTR_NULL(mock_openapi_description(NULL, "kind"));
}

/* Swagger 2.0: kubectl's client-side validation (kube-openapi's proto
 * models) finds a kind by x-kubernetes-group-version-kind in definitions
 * and follows $ref into #/definitions. */
static void test_openapi__v2_document_is_swagger_2(void)
{
	json_object *doc = mock_openapi_v2_document();
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(doc, "swagger")),
	                       "2.0");
	json_object *defs = json_object_object_get(doc, "definitions");
	int missing = 0;
	collect_refs(doc, defs, "#/definitions/", &missing);
	CU_ASSERT_EQUAL(missing, 0);
	CU_ASSERT_PTR_NULL(strstr(nl_json_compact(doc, NULL), "allOf"));
	CU_ASSERT_PTR_NULL(strstr(nl_json_compact(doc, NULL), "#/components"));
	static const char *const kinds[] = {"io.k8s.api.core.v1.ConfigMap",
	                                    "io.k8s.api.core.v1.Node",
	                                    "io.k8s.api.core.v1.Namespace",
	                                    "io.k8s.api.core.v1.Event",
	                                    "io.k8s.api.coordination.v1.Lease",
	                                    "io.k8s.api.core.v1.NodeList",
	                                    "io.k8s.apimachinery.pkg.apis.meta.v1.Status",
	                                    NULL};
	for (int i = 0; kinds[i]; i++) {
		json_object *d = json_object_object_get(defs, kinds[i]);
		CU_ASSERT_PTR_NOT_NULL(
		    json_object_object_get(d, "x-kubernetes-group-version-kind"));
	}
	json_object *meta = json_object_object_get(
	    json_object_object_get(json_object_object_get(defs, "io.k8s.api.core.v1.Node"),
	                           "properties"),
	    "metadata");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(meta, "$ref")),
	                       "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(meta, "description")),
	                       mock_openapi_description("Node", "metadata"));

	/* Operations: the body is a parameter, types sit on the parameters. */
	json_object *post = json_object_object_get(
	    json_object_object_get(json_object_object_get(doc, "paths"),
	                           "/api/v1/namespaces/{namespace}/configmaps"),
	    "post");
	CU_ASSERT_PTR_NOT_NULL_FATAL(post);
	json_object *params = json_object_object_get(post, "parameters");
	json_object *body = json_object_array_get_idx(params, 0);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(body, "in")), "body");
	NL_ASSERT_JSON_EQ(json_object_object_get(body, "schema"),
	                  "{\"$ref\":\"#/definitions/io.k8s.api.core.v1.ConfigMap\"}");
	json_object *dry = json_object_array_get_idx(params, 1);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(dry, "type")),
	                       "string");
	CU_ASSERT_PTR_NULL(json_object_object_get(dry, "schema"));
	NL_ASSERT_JSON_EQ(json_object_object_get(post, "consumes"), "[\"*/*\"]");
	CU_ASSERT_PTR_NOT_NULL(json_object_object_get(
	    json_object_object_get(json_object_object_get(post, "responses"), "201"), "schema"));
	json_object_put(doc);
}

#define PB_OLD "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
#define PB_NEW "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"

/* kube-openapi's handler: JSON or protobuf (either media type, answered as
 * the current one), 406 otherwise, ETag and If-None-Match. */
static void test_openapi__v2_negotiation_and_etag(void)
{
	mock_response r;
	get(&r, "/openapi/v2", PB_OLD, NULL, NULL);
	CU_ASSERT_EQUAL(r.code, 200);
	CU_ASSERT_STRING_EQUAL(r.content_type, PB_NEW);
	/* Document.swagger (1, bytes) = "2.0" comes first. */
	CU_ASSERT_TRUE(r.body.len > 1000 && memcmp(r.body.data,
	                                           "\x0a\x03"
	                                           "2.0",
	                                           5) == 0);
	const char *tag = strstr(r.headers, "ETag: ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(tag);
	char inm[40];
	snprintf(inm, sizeof(inm), "%.18s", tag + 6);
	mock_response_free(&r);
	get(&r, "/openapi/v2", PB_NEW, NULL, inm);
	CU_ASSERT_EQUAL(r.code, 304);
	CU_ASSERT_EQUAL(r.body.len, 0);
	mock_response_free(&r);
	/* The JSON is another representation, with another tag. */
	get(&r, "/openapi/v2", "application/json", NULL, inm);
	CU_ASSERT_EQUAL(r.code, 200);
	CU_ASSERT_STRING_EQUAL(r.content_type, "application/json");
	CU_ASSERT_EQUAL(strncmp(r.body.data, "{\"swagger\":\"2.0\"", 16), 0);
	mock_response_free(&r);
	get(&r, "/openapi/v2", NULL, NULL, NULL);
	CU_ASSERT_STRING_EQUAL(r.content_type, "application/json");
	mock_response_free(&r);
	get(&r, "/openapi/v2", "text/html", NULL, NULL);
	CU_ASSERT_EQUAL(r.code, 406);
	mock_response_free(&r);
}

/* The protobuf is the JSON document's content: its length grows with each
 * description, and each string of the JSON is in it. */
static void test_openapi__v2_protobuf_carries_the_document(void)
{
	json_object *doc = mock_openapi_v2_document();
	nl_buf b;
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL_FATAL(mock_openapi_v2_protobuf(&b, doc), 0);
	const char *needles[] = {mock_openapi_description("LeaseSpec", "renewTime"),
	                         "#/definitions/io.k8s.api.core.v1.NodeStatus",
	                         "patchCoreV1NodeStatus",
	                         "x-kubernetes-group-version-kind",
	                         "{\"group\":\"coordination.k8s.io\",\"kind\":\"Lease\","
	                         "\"version\":\"v1\"}",
	                         NULL};
	for (int i = 0; needles[i]; i++)
		CU_ASSERT_PTR_NOT_NULL(memmem(b.data, b.len, needles[i], strlen(needles[i])));
	nl_buf_free(&b);
	/* A cap too small is refused, not overrun. */
	nl_buf_init(&b, 100);
	CU_ASSERT_EQUAL(mock_openapi_v2_protobuf(&b, doc), NL_ETOOBIG);
	nl_buf_free(&b);
	json_object_put(doc);
}

static CU_TestInfo tests[] = {
    {"kubectl_finds_field_validation", test_openapi__kubectl_finds_field_validation},
    {"operations_follow_served_verbs", test_openapi__operations_follow_served_verbs},
    {"every_reference_resolves", test_openapi__every_reference_resolves},
    {"schemas_come_from_the_wire_schemas", test_openapi__schemas_come_from_the_wire_schemas},
    {"index_links_each_group_version", test_openapi__index_links_each_group_version},
    {"accept_and_unknown_paths", test_openapi__accept_and_unknown_paths},
    {"every_field_is_described", test_openapi__every_field_is_described},
    {"v2_document_is_swagger_2", test_openapi__v2_document_is_swagger_2},
    {"v2_negotiation_and_etag", test_openapi__v2_negotiation_and_etag},
    {"v2_protobuf_carries_the_document", test_openapi__v2_protobuf_carries_the_document},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"openapi", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
