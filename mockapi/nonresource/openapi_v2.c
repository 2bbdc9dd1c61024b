/* /openapi/v2: the Swagger 2.0 document, made from the v3 documents so the
 * two never disagree. The conversion is what kube-openapi's two builders
 * differ in: a reference with siblings is {"$ref", …} (v3 wraps it in
 * allOf), parameters carry their type themselves (v3: a schema), a request
 * body is an "in": "body" parameter, media types are the operation's
 * consumes/produces lists, and references point into #/definitions. */
#include <nodelet/meta.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/etag.h"
#include "core/options.h"
#include "encoding/negotiation.h"
#include "openapi.h"

#define V3_REFS "#/components/schemas/"
#define V2_REFS "#/definitions/"

static json_object *schema_v2(json_object *s);

static json_object *ref_v2(const char *v3)
{
	char buf[256];
	if (strncmp(v3, V3_REFS, strlen(V3_REFS)) == 0)
		snprintf(buf, sizeof(buf), V2_REFS "%s", v3 + strlen(V3_REFS));
	else
		snprintf(buf, sizeof(buf), "%s", v3);
	return json_object_new_string(buf);
}

/* The one $ref of {"allOf":[{"$ref":…}]}, or NULL. */
static const char *sole_ref(json_object *s)
{
	json_object *all = json_object_object_get(s, "allOf"), *first;
	if (!json_object_is_type(all, json_type_array) || json_object_array_length(all) != 1)
		return NULL;
	first = json_object_array_get_idx(all, 0);
	return json_object_get_string(json_object_object_get(first, "$ref"));
}

static json_object *schema_map_v2(json_object *m)
{
	json_object *o = json_object_new_object();
	json_object_object_foreach(m, k, v)
	{
		json_object_object_add(o, k, schema_v2(v));
	}
	return o;
}

static json_object *schema_v2(json_object *s)
{
	json_object *o = json_object_new_object();
	const char *ref = sole_ref(s);
	if (ref)
		json_object_object_add(o, "$ref", ref_v2(ref));
	json_object_object_foreach(s, k, v)
	{
		if (strcmp(k, "allOf") == 0 && ref)
			continue;
		if (strcmp(k, "$ref") == 0)
			json_object_object_add(o, k, ref_v2(json_object_get_string(v)));
		else if (strcmp(k, "properties") == 0)
			json_object_object_add(o, k, schema_map_v2(v));
		else if ((strcmp(k, "items") == 0 || strcmp(k, "additionalProperties") == 0) &&
		         json_object_is_type(v, json_type_object))
			json_object_object_add(o, k, schema_v2(v));
		else
			json_object_object_add(o, k, json_object_get(v));
	}
	return o;
}

/* {"name","in","schema":{"type",…}} → {"name","in","type",…}. */
static json_object *param_v2(json_object *p)
{
	json_object *o = json_object_new_object();
	json_object_object_foreach(p, k, v)
	{
		if (strcmp(k, "schema") != 0) {
			json_object_object_add(o, k, json_object_get(v));
			continue;
		}
		json_object_object_foreach(v, sk, sv)
		{
			json_object_object_add(o, sk, json_object_get(sv));
		}
	}
	return o;
}

static json_object *media_types(json_object *content)
{
	json_object *arr = json_object_new_array();
	json_object_object_foreach(content, k, v)
	{
		(void)v;
		json_object_array_add(arr, json_object_new_string(k));
	}
	return arr;
}

/* The schema of the first media type of content, converted, or NULL. */
static json_object *content_schema(json_object *content)
{
	json_object_object_foreach(content, k, v)
	{
		(void)k;
		return schema_v2(json_object_object_get(v, "schema"));
	}
	return NULL;
}

static json_object *responses_v2(json_object *resps, json_object **produces)
{
	json_object *o = json_object_new_object();
	json_object_object_foreach(resps, code, r)
	{
		json_object *nr = json_object_new_object(), *content;
		json_object_object_add(nr, "description",
		                       json_object_get(json_object_object_get(r, "description")));
		if (json_object_object_get_ex(r, "content", &content)) {
			json_object *s = content_schema(content);
			if (s)
				json_object_object_add(nr, "schema", s);
			if (!*produces)
				*produces = media_types(content);
		}
		json_object_object_add(o, code, nr);
	}
	return o;
}

static json_object *operation_v2(json_object *op)
{
	json_object *o = json_object_new_object(), *params = json_object_new_array();
	json_object *body = json_object_object_get(op, "requestBody"), *produces = NULL;
	json_object *resps = responses_v2(json_object_object_get(op, "responses"), &produces);
	if (body) {
		json_object *content = json_object_object_get(body, "content");
		json_object *bp = json_object_new_object();
		json_object_object_add(o, "consumes", media_types(content));
		json_object_object_add(bp, "in", json_object_new_string("body"));
		json_object_object_add(bp, "name", json_object_new_string("body"));
		json_object_object_add(bp, "required",
		                       json_object_new_boolean(json_object_get_boolean(
		                           json_object_object_get(body, "required"))));
		json_object_object_add(bp, "schema", content_schema(content));
		json_object_array_add(params, bp);
	}
	json_object_object_add(o, "operationId",
	                       json_object_get(json_object_object_get(op, "operationId")));
	json_object *p3 = json_object_object_get(op, "parameters");
	size_t np = json_object_is_type(p3, json_type_array) ? json_object_array_length(p3) : 0;
	for (size_t i = 0; i < np; i++)
		json_object_array_add(params, param_v2(json_object_array_get_idx(p3, i)));
	json_object_object_add(o, "parameters", params);
	json_object_object_add(o, "produces", produces ? produces : json_object_new_array());
	json_object_object_add(o, "responses", resps);
	static const char *const copied[] = {"tags", "x-kubernetes-action",
	                                     "x-kubernetes-group-version-kind"};
	for (size_t i = 0; i < sizeof(copied) / sizeof(copied[0]); i++)
		json_object_object_add(o, copied[i],
		                       json_object_get(json_object_object_get(op, copied[i])));
	return o;
}

static json_object *path_item_v2(json_object *item)
{
	json_object *o = json_object_new_object();
	json_object_object_foreach(item, k, v)
	{
		if (strcmp(k, "parameters") == 0 && json_object_is_type(v, json_type_array)) {
			json_object *arr = json_object_new_array();
			for (size_t i = 0; i < json_object_array_length(v); i++)
				json_object_array_add(arr,
				                      param_v2(json_object_array_get_idx(v, i)));
			json_object_object_add(o, k, arr);
		} else {
			json_object_object_add(o, k, operation_v2(v));
		}
	}
	return o;
}

/* kube-apiserver's v2 document also defines metav1.List, the kind: List
 * of files, with no group-version-kind (kubectl handles v1/List by its
 * items, never by this schema), and the RawExtension its items are. v3
 * documents have neither. */
static const char list_definitions[] =
    "{\"io.k8s.apimachinery.pkg.apis.meta.v1.List\":{\"type\":\"object\","
    "\"required\":[\"items\"],\"properties\":{\"apiVersion\":{\"type\":\"string\"},"
    "\"items\":{\"type\":\"array\",\"items\":{\"$ref\":\"" V2_REFS
    "io.k8s.apimachinery.pkg.runtime.RawExtension\"}},\"kind\":{\"type\":\"string\"},"
    "\"metadata\":{\"$ref\":\"" V2_REFS
    "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta\",\"default\":{}}}},"
    "\"io.k8s.apimachinery.pkg.runtime.RawExtension\":{\"type\":\"object\"}}";

static void add_list_definitions(json_object *defs)
{
	json_object *extra = json_tokener_parse(list_definitions);
	mock_openapi_describe(extra);
	json_object_object_foreach(extra, name, s)
	{
		json_object_object_add(defs, name, json_object_get(s));
	}
	json_object_put(extra);
}

static int by_key(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* m's entries in key order (Go's encoding/json writes maps sorted). */
static json_object *sorted(json_object *m)
{
	size_t n = (size_t)json_object_object_length(m), i = 0;
	const char **keys = calloc(n ? n : 1, sizeof(*keys));
	json_object *o = json_object_new_object();
	if (!keys)
		return o;
	json_object_object_foreach(m, k, v)
	{
		(void)v;
		keys[i++] = k;
	}
	qsort(keys, n, sizeof(*keys), by_key);
	for (i = 0; i < n; i++)
		json_object_object_add(o, keys[i],
		                       json_object_get(json_object_object_get(m, keys[i])));
	free(keys);
	return o;
}

json_object *mock_openapi_v2_document(void)
{
	json_object *paths = json_object_new_object(), *defs = json_object_new_object();
	json_object *index = mock_openapi_v3_index();
	json_object_object_foreach(json_object_object_get(index, "paths"), gv, entry)
	{
		(void)entry;
		json_object *doc = mock_openapi_v3_document(gv);
		if (!doc)
			continue;
		json_object_object_foreach(json_object_object_get(doc, "paths"), p, item)
		{
			json_object_object_add(paths, p, path_item_v2(item));
		}
		json_object *schemas =
		    json_object_object_get(json_object_object_get(doc, "components"), "schemas");
		json_object_object_foreach(schemas, name, s)
		{
			json_object_object_add(defs, name, schema_v2(s));
		}
		json_object_put(doc);
	}
	json_object_put(index);
	add_list_definitions(defs);
	json_object *out = json_object_new_object(), *info = json_object_new_object();
	json_object_object_add(out, "swagger", json_object_new_string("2.0"));
	json_object_object_add(info, "title", json_object_new_string("Kubernetes"));
	json_object_object_add(info, "version", json_object_new_string(MOCK_GIT_VERSION));
	json_object_object_add(out, "info", info);
	json_object_object_add(out, "paths", sorted(paths));
	json_object_object_add(out, "definitions", sorted(defs));
	json_object_put(paths);
	json_object_put(defs);
	return out;
}

/* kube-openapi's handler: JSON, or protobuf under the current and the
 * deprecated media type (both answered as the current one). */
#define PB_SUBTYPE "com.github.proto-openapi.spec.v2.v1.0+protobuf"
#define PB_SUBTYPE_OLD "com.github.proto-openapi.spec.v2@v1.0+protobuf"

/* 1 JSON, 2 protobuf, 0 neither, for the first acceptable clause. */
static int negotiate(const char *accept)
{
	mock_accept a;
	mock_accept_parse(&a, accept && *accept ? accept : "*/*");
	for (size_t i = 0; i < a.n; i++) {
		const mock_accept_clause *c = &a.clauses[i];
		int any_type = strcmp(c->type, "*") == 0, any_sub = strcmp(c->subtype, "*") == 0;
		if (!any_type && strcmp(c->type, "application") != 0)
			continue;
		if (any_sub || strcmp(c->subtype, "json") == 0)
			return 1;
		if (strcmp(c->subtype, PB_SUBTYPE) == 0 || strcmp(c->subtype, PB_SUBTYPE_OLD) == 0)
			return 2;
	}
	return 0;
}

/* The two forms, built once (mock_openapi_text): [0] JSON, [1] protobuf. */
static mock_openapi_text kept[2];
static pthread_once_t kept_once = PTHREAD_ONCE_INIT;

static void kept_build(void)
{
	json_object *doc = mock_openapi_v2_document();
	size_t len = 0;
	const char *text = nl_json_compact(doc, &len);
	if (text)
		mock_openapi_keep(&kept[0], text, len);
	nl_buf pb;
	nl_buf_init(&pb, 64u * 1024 * 1024); /* far above the few hundred KiB */
	if (mock_openapi_v2_protobuf(&pb, doc) == 0)
		mock_openapi_keep(&kept[1], pb.data, pb.len);
	nl_buf_free(&pb);
	json_object_put(doc);
}

int mock_handle_openapi_v2(const mock_request *req, mock_response *resp)
{
	if (strcmp(req->path, "/openapi/v2") != 0)
		return 0;
	int form = negotiate(req->accept);
	if (!form) {
		mock_response_json(resp, 406, "", 0);
		resp->content_type = "text/plain; charset=utf-8";
		return 1;
	}
	pthread_once(&kept_once, kept_build);
	const mock_openapi_text *doc = &kept[form == 2];
	if (!doc->text) {
		mock_response_status(resp, nl_status_internal("cannot encode /openapi/v2"));
		return 1;
	}
	if (!mock_etag_serve(resp, req, doc->tag))
		mock_response_json(resp, 200, doc->text, doc->len);
	resp->content_type = form == 2 ? "application/" PB_SUBTYPE : "application/json";
	return 1;
}
