/* OpenAPI v3 documents: paths and operations per served resource (as
 * kube-apiserver's installer names them: listCoreV1NamespacedConfigMap …),
 * the handler3 endpoints, and the meta types every document refers to. */
#include "openapi.h"

#include <nodelet/errors.h>
#include <nodelet/meta.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/route.h"
#include "api/schema.h"
#include "core/etag.h"
#include "core/options.h"
#include "encoding/negotiation.h"

#define META "io.k8s.apimachinery.pkg.apis.meta.v1."
#define SCHEMAS "#/components/schemas/"

/* The apimachinery types the operations use, written once by hand. */
static const char meta_components[] =
    "{\"io.k8s.apimachinery.pkg.api.resource.Quantity\":{\"type\":\"string\"},"
    "\"" META "Time\":{\"type\":\"string\",\"format\":\"date-time\"},"
    "\"" META "MicroTime\":{\"type\":\"string\",\"format\":\"date-time\"},"
    "\"" META "FieldsV1\":{\"type\":\"object\"},"
    "\"" META "Patch\":{\"type\":\"object\"},"
    "\"" META "ListMeta\":{\"type\":\"object\",\"properties\":{"
    "\"continue\":{\"type\":\"string\"},"
    "\"remainingItemCount\":{\"type\":\"integer\",\"format\":\"int64\"},"
    "\"resourceVersion\":{\"type\":\"string\"},\"selfLink\":{\"type\":\"string\"}}},"
    "\"" META "Preconditions\":{\"type\":\"object\",\"properties\":{"
    "\"resourceVersion\":{\"type\":\"string\"},\"uid\":{\"type\":\"string\"}}},"
    "\"" META "DeleteOptions\":{\"type\":\"object\",\"properties\":{"
    "\"apiVersion\":{\"type\":\"string\"},"
    "\"dryRun\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"default\":\"\"},"
    "\"x-kubernetes-list-type\":\"atomic\"},"
    "\"gracePeriodSeconds\":{\"type\":\"integer\",\"format\":\"int64\"},"
    "\"ignoreStoreReadErrorWithClusterBreakingPotential\":{\"type\":\"boolean\"},"
    "\"kind\":{\"type\":\"string\"},\"orphanDependents\":{\"type\":\"boolean\"},"
    "\"preconditions\":{\"allOf\":[{\"$ref\":\"" SCHEMAS META "Preconditions\"}]},"
    "\"propagationPolicy\":{\"type\":\"string\"}}},"
    "\"" META "StatusCause\":{\"type\":\"object\",\"properties\":{"
    "\"field\":{\"type\":\"string\"},\"message\":{\"type\":\"string\"},"
    "\"reason\":{\"type\":\"string\"}}},"
    "\"" META "StatusDetails\":{\"type\":\"object\",\"properties\":{"
    "\"causes\":{\"type\":\"array\","
    "\"items\":{\"allOf\":[{\"$ref\":\"" SCHEMAS META "StatusCause\"}],\"default\":{}},"
    "\"x-kubernetes-list-type\":\"atomic\"},"
    "\"group\":{\"type\":\"string\"},\"kind\":{\"type\":\"string\"},"
    "\"name\":{\"type\":\"string\"},"
    "\"retryAfterSeconds\":{\"type\":\"integer\",\"format\":\"int32\"},"
    "\"uid\":{\"type\":\"string\"}}},"
    "\"" META "Status\":{\"type\":\"object\",\"properties\":{"
    "\"apiVersion\":{\"type\":\"string\"},"
    "\"code\":{\"type\":\"integer\",\"format\":\"int32\"},"
    "\"details\":{\"allOf\":[{\"$ref\":\"" SCHEMAS META "StatusDetails\"}]},"
    "\"kind\":{\"type\":\"string\"},\"message\":{\"type\":\"string\"},"
    "\"metadata\":{\"allOf\":[{\"$ref\":\"" SCHEMAS META "ListMeta\"}],\"default\":{}},"
    "\"reason\":{\"type\":\"string\"},\"status\":{\"type\":\"string\"}},"
    "\"x-kubernetes-group-version-kind\":[{\"group\":\"\",\"kind\":\"Status\","
    "\"version\":\"v1\"}]}}";

static const char *const list_params[] = {
    "allowWatchBookmarks:boolean",
    "continue:string",
    "fieldSelector:string",
    "labelSelector:string",
    "limit:integer",
    "resourceVersion:string",
    "resourceVersionMatch:string",
    "sendInitialEvents:boolean",
    "timeoutSeconds:integer",
    "watch:boolean",
    NULL,
};
static const char *const write_params[] = {"dryRun:string", "fieldManager:string",
                                           "fieldValidation:string", NULL};
static const char *const patch_params[] = {"dryRun:string", "fieldManager:string",
                                           "fieldValidation:string", "force:boolean", NULL};
static const char *const delete_params[] = {"dryRun:string",
                                            "gracePeriodSeconds:integer",
                                            "ignoreStoreReadErrorWithClusterBreakingPotential:"
                                            "boolean",
                                            "orphanDependents:boolean",
                                            "propagationPolicy:string",
                                            NULL};

/* Per resource: names the operations and schemas need. */
typedef struct {
	const mock_resource *r;
	char prefix[96];   /* "/api/v1" */
	char id_group[64]; /* "CoreV1", "CoordinationV1" */
	char tag[64];      /* "core_v1" */
	char kind_ref[192];
	char list_ref[192];
} res_ctx;

static void res_ctx_init(res_ctx *c, const mock_resource *r)
{
	char g[48], name[160];
	c->r = r;
	if (r->group[0])
		snprintf(c->prefix, sizeof(c->prefix), "/apis/%s/%s", r->group, r->version);
	else
		snprintf(c->prefix, sizeof(c->prefix), "/api/%s", r->version);
	snprintf(g, sizeof(g), "%s", r->group[0] ? r->group : "core");
	g[strcspn(g, ".")] = '\0';
	snprintf(c->tag, sizeof(c->tag), "%.40s_%.16s", g, r->version);
	g[0] = (char)(g[0] - 'a' + 'A');
	snprintf(c->id_group, sizeof(c->id_group), "%.40sV%.16s", g, r->version + 1);
	mock_openapi_schema_name(name, sizeof(name), r, r->schema->go_name);
	snprintf(c->kind_ref, sizeof(c->kind_ref), "#/components/schemas/%s", name);
	mock_openapi_schema_name(name, sizeof(name), r, r->list_kind);
	snprintf(c->list_ref, sizeof(c->list_ref), "#/components/schemas/%s", name);
}

static json_object *schema_ref(const char *ref)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "$ref", json_object_new_string(ref));
	return o;
}

static json_object *param(const char *name, const char *in, const char *type, int required,
                          const char *description)
{
	json_object *p = json_object_new_object(), *s = json_object_new_object();
	json_object_object_add(p, "name", json_object_new_string(name));
	json_object_object_add(p, "in", json_object_new_string(in));
	if (description)
		json_object_object_add(p, "description", json_object_new_string(description));
	if (required)
		json_object_object_add(p, "required", json_object_new_boolean(1));
	json_object_object_add(s, "type", json_object_new_string(type));
	json_object_object_add(s, "uniqueItems", json_object_new_boolean(1));
	json_object_object_add(p, "schema", s);
	return p;
}

/* "name:type" specs as query parameters. */
static json_object *query_params(const char *const *specs)
{
	json_object *arr = json_object_new_array();
	for (; specs && *specs; specs++) {
		char name[96];
		const char *colon = strchr(*specs, ':');
		snprintf(name, sizeof(name), "%.*s", (int)(colon - *specs), *specs);
		json_object_array_add(arr,
		                      param(name, "query", colon + 1, 0,
		                            strcmp(name, "fieldValidation") == 0
		                                ? "fieldValidation instructs the server on how "
		                                  "to handle objects in the request "
		                                  "(POST/PUT/PATCH) containing unknown or "
		                                  "duplicate fields. Valid values are: Ignore, "
		                                  "Warn (the default), Strict."
		                                : NULL));
	}
	return arr;
}

/* {"<type>":{"schema":{"$ref":ref}}} for each content type. */
static json_object *content(const char *ref, const char *const *types)
{
	json_object *c = json_object_new_object();
	for (; *types; types++) {
		json_object *m = json_object_new_object();
		json_object_object_add(m, "schema", schema_ref(ref));
		json_object_object_add(c, *types, m);
	}
	return c;
}

static json_object *responses(const char *ref, const char *codes, int stream)
{
	static const char *const plain[] = {"application/json", "application/yaml", NULL};
	static const char *const streams[] = {"application/json", "application/yaml",
	                                      "application/json;stream=watch", NULL};
	static const struct {
		char code;
		const char *key, *text;
	} known[] = {{'0', "200", "OK"}, {'1', "201", "Created"}, {'2', "202", "Accepted"}};
	json_object *o = json_object_new_object();
	for (size_t i = 0; i < 3; i++) {
		if (!strchr(codes, known[i].code))
			continue;
		json_object *r = json_object_new_object();
		json_object_object_add(r, "description", json_object_new_string(known[i].text));
		json_object_object_add(r, "content", content(ref, stream ? streams : plain));
		json_object_object_add(o, known[i].key, r);
	}
	json_object *unauth = json_object_new_object();
	json_object_object_add(unauth, "description", json_object_new_string("Unauthorized"));
	json_object_object_add(o, "401", unauth);
	return o;
}

static json_object *request_body(const char *ref, const char *const *types, int required)
{
	json_object *b = json_object_new_object();
	json_object_object_add(b, "content", content(ref, types));
	if (required)
		json_object_object_add(b, "required", json_object_new_boolean(1));
	return b;
}

static json_object *gvk(const mock_resource *r)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "group", json_object_new_string(r->group));
	json_object_object_add(o, "kind", json_object_new_string(r->kind));
	json_object_object_add(o, "version", json_object_new_string(r->version));
	return o;
}

static json_object *operation(const res_ctx *c, const char *action, const char *op_id,
                              json_object *params, json_object *body, json_object *resps)
{
	json_object *op = json_object_new_object(), *tags = json_object_new_array();
	json_object_array_add(tags, json_object_new_string(c->tag));
	json_object_object_add(op, "tags", tags);
	json_object_object_add(op, "operationId", json_object_new_string(op_id));
	json_object_object_add(op, "parameters", params);
	if (body)
		json_object_object_add(op, "requestBody", body);
	json_object_object_add(op, "responses", resps);
	json_object_object_add(op, "x-kubernetes-action", json_object_new_string(action));
	json_object_object_add(op, "x-kubernetes-group-version-kind", gvk(c->r));
	return op;
}

/* Path item parameters: pretty, and the path's name/namespace. */
static json_object *path_item(const res_ctx *c, int named, int namespaced)
{
	char desc[128];
	json_object *item = json_object_new_object(), *params = json_object_new_array();
	if (named) {
		snprintf(desc, sizeof(desc), "name of the %s", c->r->kind);
		json_object_array_add(params, param("name", "path", "string", 1, desc));
	}
	if (namespaced)
		json_object_array_add(params,
		                      param("namespace", "path", "string", 1,
		                            "object name and auth scope, such as for teams and "
		                            "projects"));
	json_object_array_add(params, param("pretty", "query", "string", 0, NULL));
	json_object_object_add(item, "parameters", params);
	return item;
}

static void op_id(char *out, size_t cap, const char *verb, const res_ctx *c, const char *middle,
                  const char *suffix)
{
	snprintf(out, cap, "%s%s%s%s%s%s", verb, c->id_group, middle,
	         c->r->namespaced ? "Namespaced" : "", c->r->kind, suffix);
}

static int allows(const mock_resource *r, const char *verb, int sub)
{
	return mock_route_allows(r, verb, sub);
}

static void add_collection(json_object *paths, const res_ctx *c)
{
	static const char *const any[] = {"*/*", NULL};
	char path[256], id[256];
	json_object *item = path_item(c, 0, c->r->namespaced);
	if (allows(c->r, "list", 0)) {
		op_id(id, sizeof(id), "list", c, "", "");
		json_object_object_add(item, "get",
		                       operation(c, "list", id, query_params(list_params), NULL,
		                                 responses(c->list_ref, "0", 1)));
	}
	if (allows(c->r, "create", 0)) {
		op_id(id, sizeof(id), "create", c, "", "");
		json_object_object_add(item, "post",
		                       operation(c, "post", id, query_params(write_params),
		                                 request_body(c->kind_ref, any, 1),
		                                 responses(c->kind_ref, "012", 0)));
	}
	if (allows(c->r, "deletecollection", 0)) {
		op_id(id, sizeof(id), "delete", c, "Collection", "");
		json_object *params = query_params(delete_params), *lp = query_params(list_params);
		for (size_t i = 0; i < json_object_array_length(lp); i++)
			json_object_array_add(params,
			                      json_object_get(json_object_array_get_idx(lp, i)));
		json_object_put(lp);
		json_object_object_add(item, "delete",
		                       operation(c, "deletecollection", id, params,
		                                 request_body(SCHEMAS META "DeleteOptions", any, 0),
		                                 responses(SCHEMAS META "Status", "0", 0)));
	}
	mock_route_path(path, sizeof(path), c->r, c->r->namespaced ? "{namespace}" : NULL, NULL);
	json_object_object_add(paths, path, item);

	/* The all-namespaces list of a namespaced kind. */
	if (c->r->namespaced && allows(c->r, "list", 0)) {
		item = path_item(c, 0, 0);
		snprintf(id, sizeof(id), "list%s%sForAllNamespaces", c->id_group, c->r->kind);
		json_object_object_add(item, "get",
		                       operation(c, "list", id, query_params(list_params), NULL,
		                                 responses(c->list_ref, "0", 1)));
		snprintf(path, sizeof(path), "%s/%s", c->prefix, c->r->plural);
		json_object_object_add(paths, path, item);
	}
}

/* An object path (sub_name NULL) or its /status or /approval. PATCH is
 * always listed. */
static void add_object(json_object *paths, const res_ctx *c, const char *sub_name)
{
	int sub = sub_name != NULL;
	char suffix[32] = "", name_path[48];
	static const char *const any[] = {"*/*", NULL};
	static const char *const patch_types[] = {
	    "application/apply-patch+yaml", "application/json-patch+json",
	    "application/merge-patch+json", "application/strategic-merge-patch+json", NULL};
	/* "status" -> "Status" in operation ids, "{name}/status" in the path */
	if (sub_name)
		snprintf(suffix, sizeof(suffix), "%c%s", sub_name[0] - 'a' + 'A', sub_name + 1);
	snprintf(name_path, sizeof(name_path), "{name}%s%s", sub_name ? "/" : "",
	         sub_name ? sub_name : "");
	char path[256], id[256];
	json_object *item = path_item(c, 1, c->r->namespaced);
	if (allows(c->r, "get", sub)) {
		op_id(id, sizeof(id), "read", c, "", suffix);
		json_object_object_add(item, "get",
		                       operation(c, "get", id, json_object_new_array(), NULL,
		                                 responses(c->kind_ref, "0", 0)));
	}
	if (allows(c->r, "update", sub)) {
		op_id(id, sizeof(id), "replace", c, "", suffix);
		json_object_object_add(item, "put",
		                       operation(c, "put", id, query_params(write_params),
		                                 request_body(c->kind_ref, any, 1),
		                                 responses(c->kind_ref, "01", 0)));
	}
	if (!sub && allows(c->r, "delete", 0)) {
		op_id(id, sizeof(id), "delete", c, "", "");
		json_object_object_add(item, "delete",
		                       operation(c, "delete", id, query_params(delete_params),
		                                 request_body(SCHEMAS META "DeleteOptions", any, 0),
		                                 responses(SCHEMAS META "Status", "02", 0)));
	}
	op_id(id, sizeof(id), "patch", c, "", suffix);
	json_object_object_add(item, "patch",
	                       operation(c, "patch", id, query_params(patch_params),
	                                 request_body(SCHEMAS META "Patch", patch_types, 1),
	                                 responses(c->kind_ref, "01", 0)));
	mock_route_path(path, sizeof(path), c->r, c->r->namespaced ? "{namespace}" : NULL,
	                name_path);
	json_object_object_add(paths, path, item);
}

/* namespaces/{name}/finalize: PUT only (FinalizeREST is an Updater). */
static void add_finalize(json_object *paths, const res_ctx *c)
{
	static const char *const any[] = {"*/*", NULL};
	char path[256], id[256];
	json_object *item = path_item(c, 1, 0);
	op_id(id, sizeof(id), "replace", c, "", "Finalize");
	json_object_object_add(item, "put",
	                       operation(c, "put", id, query_params(write_params),
	                                 request_body(c->kind_ref, any, 1),
	                                 responses(c->kind_ref, "01", 0)));
	mock_route_path(path, sizeof(path), c->r, NULL, "{name}/finalize");
	json_object_object_add(paths, path, item);
}

/* "api/v1" → ("", "v1"); "apis/<group>/<version>" → (group, version). */
static int split_gv(const char *gv_path, char *group, size_t gcap, char *version, size_t vcap)
{
	if (sscanf(gv_path, "api/%31[^/]", version) == 1 && !strchr(gv_path + 4, '/')) {
		group[0] = '\0';
		return 0;
	}
	char fmt[32];
	snprintf(fmt, sizeof(fmt), "apis/%%%zu[^/]/%%%zu[^/]", gcap - 1, vcap - 1);
	if (sscanf(gv_path, fmt, group, version) == 2) {
		size_t n = 5 + strlen(group) + 1 + strlen(version);
		if (strlen(gv_path) == n)
			return 0;
	}
	return -1;
}

json_object *mock_openapi_v3_document(const char *gv_path)
{
	char group[128], version[32];
	if (!gv_path || split_gv(gv_path, group, sizeof(group), version, sizeof(version)) != 0)
		return NULL;
	json_object *paths = json_object_new_object();
	json_object *schemas = json_tokener_parse(meta_components);
	int served = 0;
	for (int id = 0; id < MOCK_KIND_COUNT; id++) {
		const mock_resource *r = mock_resource_get((mock_kind)id);
		if (strcmp(r->group, group) != 0 || strcmp(r->version, version) != 0)
			continue;
		res_ctx c;
		res_ctx_init(&c, r);
		add_collection(paths, &c);
		add_object(paths, &c, NULL);
		if (r->has_approval)
			add_object(paths, &c, "approval");
		if (r->has_status)
			add_object(paths, &c, "status");
		if (mock_route_allows_sub(r, "update", "finalize"))
			add_finalize(paths, &c);
		mock_openapi_add_schemas(schemas, r);
		served++;
	}
	mock_openapi_describe(schemas);
	if (!served) {
		json_object_put(paths);
		json_object_put(schemas);
		return NULL;
	}
	json_object *doc = json_object_new_object(), *info = json_object_new_object();
	json_object *comps = json_object_new_object();
	json_object_object_add(doc, "openapi", json_object_new_string("3.0.0"));
	json_object_object_add(info, "title", json_object_new_string("Kubernetes"));
	json_object_object_add(info, "version", json_object_new_string(MOCK_GIT_VERSION));
	json_object_object_add(doc, "info", info);
	json_object_object_add(doc, "paths", paths);
	json_object_object_add(comps, "schemas", schemas);
	json_object_object_add(doc, "components", comps);
	return doc;
}

int mock_openapi_keep(mock_openapi_text *out, const char *data, size_t len)
{
	out->text = malloc(len + 1);
	if (!out->text)
		return NL_ENOMEM;
	memcpy(out->text, data, len);
	out->text[len] = '\0';
	out->len = len;
	mock_etag_compute(out->tag, data, len);
	return 0;
}

static void keep_doc(mock_openapi_text *out, json_object *doc)
{
	size_t len = 0;
	const char *text = nl_json_compact(doc, &len);
	if (text)
		mock_openapi_keep(out, text, len);
}

/* "apis/<group>/<version>" or "api/<version>" of r. */
static void gv_path_of(char *out, size_t cap, const mock_resource *r)
{
	if (r->group[0])
		snprintf(out, cap, "apis/%s/%s", r->group, r->version);
	else
		snprintf(out, cap, "api/%s", r->version);
}

/* The served documents, built once (mock_openapi_text). */
static struct {
	char gv[MOCK_KIND_COUNT][192];
	mock_openapi_text docs[MOCK_KIND_COUNT];
	size_t n;
	mock_openapi_text index;
} kept;
static pthread_once_t kept_once = PTHREAD_ONCE_INIT;

static const mock_openapi_text *kept_find(const char *gv_path)
{
	for (size_t i = 0; i < kept.n; i++)
		if (strcmp(kept.gv[i], gv_path) == 0)
			return &kept.docs[i];
	return NULL;
}

static json_object *index_build(void);

static void kept_build(void)
{
	for (int id = 0; id < MOCK_KIND_COUNT; id++) {
		char gv[192];
		gv_path_of(gv, sizeof(gv), mock_resource_get((mock_kind)id));
		size_t i = 0;
		while (i < kept.n && strcmp(kept.gv[i], gv) != 0)
			i++;
		if (i < kept.n)
			continue;
		json_object *doc = mock_openapi_v3_document(gv);
		snprintf(kept.gv[kept.n], sizeof(kept.gv[0]), "%s", gv);
		keep_doc(&kept.docs[kept.n++], doc);
		json_object_put(doc);
	}
	json_object *idx = index_build();
	keep_doc(&kept.index, idx);
	json_object_put(idx);
}

/* The kept document of gv_path, or NULL when none is served. */
static const mock_openapi_text *kept_doc(const char *gv_path)
{
	pthread_once(&kept_once, kept_build);
	return kept_find(gv_path);
}

json_object *mock_openapi_v3_index(void)
{
	pthread_once(&kept_once, kept_build);
	return index_build();
}

/* The index of the kept documents (under kept_once). */
static json_object *index_build(void)
{
	json_object *idx = json_object_new_object(), *paths = json_object_new_object();
	for (int id = 0; id < MOCK_KIND_COUNT; id++) {
		char gv[192], url[256];
		gv_path_of(gv, sizeof(gv), mock_resource_get((mock_kind)id));
		if (json_object_object_get_ex(paths, gv, NULL))
			continue;
		const mock_openapi_text *doc = kept_find(gv);
		json_object *entry = json_object_new_object();
		snprintf(url, sizeof(url), "/openapi/v3/%s?hash=%s", gv, doc ? doc->tag : "");
		json_object_object_add(entry, "serverRelativeURL", json_object_new_string(url));
		json_object_object_add(paths, gv, entry);
	}
	/* Go's encoding/json writes map keys sorted. */
	json_object *sorted = json_object_new_object();
	const char *keys[MOCK_KIND_COUNT];
	size_t n = 0;
	json_object_object_foreach(paths, k, v)
	{
		(void)v;
		keys[n++] = k;
	}
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(keys[j], keys[j - 1]) < 0; j--) {
			const char *t = keys[j];
			keys[j] = keys[j - 1];
			keys[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++)
		json_object_object_add(sorted, keys[i],
		                       json_object_get(json_object_object_get(paths, keys[i])));
	json_object_put(paths);
	json_object_object_add(idx, "paths", sorted);
	return idx;
}

static void answer_doc(mock_response *resp, const mock_request *req, const mock_openapi_text *doc)
{
	if (!doc->text) {
		mock_response_status(resp, nl_status_internal("cannot build the OpenAPI document"));
		return;
	}
	if (!mock_etag_serve(resp, req, doc->tag))
		mock_response_json(resp, 200, doc->text, doc->len);
	resp->content_type = "application/json";
}

/* handler3's HandleGroupVersion. */
static void group_version(const mock_request *req, mock_response *resp, const char *gv)
{
	mock_accept a;
	const char *accept = req->accept && *req->accept ? req->accept : "*/*";
	int json_ok = 0;
	mock_accept_parse(&a, accept);
	for (size_t i = 0; i < a.n && !json_ok; i++)
		json_ok = (strcmp(a.clauses[i].type, "application") == 0 ||
		           strcmp(a.clauses[i].type, "*") == 0) &&
		          (strcmp(a.clauses[i].subtype, "json") == 0 ||
		           strcmp(a.clauses[i].subtype, "*") == 0);
	mock_response_header(resp, "Vary", "Accept");
	if (!json_ok) {
		mock_response_json(resp, 406, "", 0);
		resp->content_type = "text/plain; charset=utf-8";
		return;
	}
	const mock_openapi_text *doc = kept_doc(gv);
	if (!doc) {
		mock_response_status(resp, nl_status_unknown_path());
		return;
	}
	const char *tag = doc->tag;
	const char *hash = mock_request_query(req, "hash");
	if (hash && *hash && strcmp(hash, tag) != 0) {
		char url[320], body[512];
		snprintf(url, sizeof(url), "/openapi/v3/%s?hash=%s", gv, tag);
		int n =
		    snprintf(body, sizeof(body), "<a href=\"%s\">Moved Permanently</a>.\n\n", url);
		mock_response_header(resp, "Location", url);
		mock_response_json(resp, 301, body, (size_t)n);
		resp->content_type = "text/html; charset=utf-8";
		return;
	}
	if (hash && *hash) {
		/* Content under a hash never changes: cacheable for a year. */
		char expires[64];
		time_t t = time(NULL) + 365 * 24 * 3600;
		struct tm tm;
		strftime(expires, sizeof(expires), "%a, %d %b %Y %H:%M:%S UTC", gmtime_r(&t, &tm));
		mock_response_header(resp, "Cache-Control", "public, immutable");
		mock_response_header(resp, "Expires", expires);
	}
	answer_doc(resp, req, doc);
}

int mock_handle_openapi(const mock_request *req, mock_response *resp)
{
	const char *p = req->path;
	resp->identity = 1; /* kube-openapi's handler never compresses */
	if (strcmp(p, "/openapi/v3") == 0) {
		pthread_once(&kept_once, kept_build);
		answer_doc(resp, req, &kept.index);
		return 1;
	}
	if (strncmp(p, "/openapi/v3/", 12) == 0) {
		group_version(req, resp, p + 12);
		return 1;
	}
	return 0;
}
