/* OpenAPI v3 component schemas generated from the wire schemas of
 * schema.h (resources.c), so field names and types have one source of
 * truth. What the tables do not say is added here: the list-merge
 * extensions kubectl's strategic merge reads (the same merge keys patch.c
 * applies), and the few fields that are optional without omitempty. */
#include "openapi.h"

#include <stdio.h>
#include <string.h>

#include "api/schema.h"

#define META_PKG "io.k8s.apimachinery.pkg.apis.meta.v1"
#define REF_PREFIX "#/components/schemas/"

/* x-kubernetes-* list extensions of upstream's schemas (k8s.io/api v0.32). */
static const struct {
	const char *type, *field;
	const char *patch_strategy; /* x-kubernetes-patch-strategy */
	const char *merge_key;      /* x-kubernetes-patch-merge-key, x-kubernetes-list-map-keys */
	const char *list_type;      /* x-kubernetes-list-type */
	const char *map_key2;       /* a second x-kubernetes-list-map-keys entry */
} list_ext[] = {
    {"ObjectMeta", "finalizers", "merge", NULL, "set", NULL},
    {"ObjectMeta", "ownerReferences", "merge", "uid", "map", NULL},
    {"ObjectMeta", "managedFields", NULL, NULL, "atomic", NULL},
    {"NodeSpec", "podCIDRs", "merge", NULL, "set", NULL},
    {"NodeSpec", "taints", NULL, NULL, "atomic", NULL},
    {"NodeStatus", "conditions", "merge", "type", "map", NULL},
    {"NodeStatus", "addresses", "merge", "type", "map", NULL},
    {"NodeStatus", "images", NULL, NULL, "atomic", NULL},
    {"NodeStatus", "volumesInUse", NULL, NULL, "atomic", NULL},
    {"NodeStatus", "volumesAttached", NULL, NULL, "atomic", NULL},
    {"NodeStatus", "runtimeHandlers", NULL, NULL, "atomic", NULL},
    {"NamespaceSpec", "finalizers", NULL, NULL, "atomic", NULL},
    {"NamespaceStatus", "conditions", "merge", "type", "map", NULL},
    {"ContainerImage", "names", NULL, NULL, "atomic", NULL},
    {"PodSpec", "volumes", "merge,retainKeys", "name", "map", NULL},
    {"PodSpec", "initContainers", "merge", "name", "map", NULL},
    {"PodSpec", "containers", "merge", "name", "map", NULL},
    {"PodSpec", "ephemeralContainers", "merge", "name", "map", NULL},
    {"PodSpec", "imagePullSecrets", "merge", "name", "map", NULL},
    {"PodSpec", "tolerations", NULL, NULL, "atomic", NULL},
    {"PodSpec", "hostAliases", "merge", "ip", "map", NULL},
    {"PodSpec", "readinessGates", NULL, NULL, "atomic", NULL},
    {"PodSpec", "topologySpreadConstraints", "merge", "topologyKey", "map", "whenUnsatisfiable"},
    {"PodSpec", "schedulingGates", "merge", "name", "map", NULL},
    {"PodSpec", "resourceClaims", "merge,retainKeys", "name", "map", NULL},
    {"Container", "command", NULL, NULL, "atomic", NULL},
    {"Container", "args", NULL, NULL, "atomic", NULL},
    {"Container", "ports", "merge", "containerPort", "map", "protocol"},
    {"Container", "envFrom", NULL, NULL, "atomic", NULL},
    {"Container", "env", "merge", "name", "map", NULL},
    {"Container", "resizePolicy", NULL, NULL, "atomic", NULL},
    {"Container", "volumeMounts", "merge", "mountPath", "map", NULL},
    {"Container", "volumeDevices", "merge", "devicePath", "map", NULL},
    {"PodStatus", "conditions", "merge", "type", "map", NULL},
    {"PodStatus", "hostIPs", "merge", "ip", "atomic", NULL},
    {"PodStatus", "podIPs", "merge", "ip", "map", NULL},
    {"PodStatus", "initContainerStatuses", NULL, NULL, "atomic", NULL},
    {"PodStatus", "containerStatuses", NULL, NULL, "atomic", NULL},
    {"PodStatus", "ephemeralContainerStatuses", NULL, NULL, "atomic", NULL},
    {"PodStatus", "resourceClaimStatuses", "merge,retainKeys", "name", "map", NULL},
};

/* Fields without omitempty that upstream marks +optional. */
static const struct {
	const char *type, *field;
} optional[] = {
    {"Event", "reportingComponent"},
    {"Event", "reportingInstance"},
    {"ContainerImage", "names"},
    {"NodeRuntimeHandler", "name"},
};

static int is_meta_type(const char *go_name)
{
	return strcmp(go_name, "ObjectMeta") == 0 || strcmp(go_name, "OwnerReference") == 0 ||
	       strcmp(go_name, "ManagedFieldsEntry") == 0;
}

/* "io.k8s.api.core.v1" / "io.k8s.api.coordination.v1" for r's group. */
static void kind_pkg(char *out, size_t cap, const mock_resource *r)
{
	char g[64];
	snprintf(g, sizeof(g), "%s", r->group[0] ? r->group : "core");
	g[strcspn(g, ".")] = '\0';
	snprintf(out, cap, "io.k8s.api.%s.%s", g, r->version);
}

void mock_openapi_schema_name(char *out, size_t cap, const mock_resource *r, const char *go_name)
{
	char pkg[96];
	if (is_meta_type(go_name) || strcmp(go_name, "Time") == 0 ||
	    strcmp(go_name, "MicroTime") == 0 || strcmp(go_name, "FieldsV1") == 0 ||
	    strcmp(go_name, "ListMeta") == 0 || strcmp(go_name, "Status") == 0 ||
	    strcmp(go_name, "DeleteOptions") == 0 || strcmp(go_name, "Patch") == 0)
		snprintf(pkg, sizeof(pkg), "%s", META_PKG);
	else
		kind_pkg(pkg, sizeof(pkg), r);
	snprintf(out, cap, "%s.%s", pkg, go_name);
}

static json_object *ref(const char *name)
{
	char buf[192];
	json_object *o = json_object_new_object();
	snprintf(buf, sizeof(buf), REF_PREFIX "%s", name);
	json_object_object_add(o, "$ref", json_object_new_string(buf));
	return o;
}

/* {"allOf":[{"$ref":…}]}, with "default":{} for a struct value (not a
 * pointer), as kube-openapi writes a reference with siblings. */
static json_object *all_of(const char *name, int struct_value)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array();
	json_object_array_add(arr, ref(name));
	json_object_object_add(o, "allOf", arr);
	if (struct_value)
		json_object_object_add(o, "default", json_object_new_object());
	return o;
}

static json_object *typed(const char *type, const char *format)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "type", json_object_new_string(type));
	if (format)
		json_object_object_add(o, "format", json_object_new_string(format));
	return o;
}

/* A structure the mock stores unchecked (a pod's volumes, probes ...):
 * any object, or a list of them, with x-kubernetes-preserve-unknown-fields
 * so validators accept what upstream's full schema would. */
static json_object *opaque(const char *go_type)
{
	json_object *obj = typed("object", NULL);
	json_object_object_add(obj, "x-kubernetes-preserve-unknown-fields",
	                       json_object_new_boolean(1));
	if (strncmp(go_type, "[]", 2) != 0)
		return obj;
	json_object *arr = typed("array", NULL);
	json_object_object_add(arr, "items", obj);
	return arr;
}

typedef struct {
	json_object *schemas; /* components.schemas being filled */
	const mock_resource *r;
} gen;

static void add_struct(gen *g, const nl_schema *s);

static json_object *scalar_schema(gen *g, nl_field_type t, const nl_field *f)
{
	char name[160];
	json_object *o;
	switch (t) {
	case NL_FT_BOOL:
		return typed("boolean", NULL);
	case NL_FT_INT32:
		return typed("integer", "int32");
	case NL_FT_INT64:
		return typed("integer", "int64");
	case NL_FT_TIME:
	case NL_FT_MICROTIME:
		mock_openapi_schema_name(name, sizeof(name), g->r,
		                         t == NL_FT_TIME ? "Time" : "MicroTime");
		return all_of(name, 0);
	case NL_FT_MAP_STRING:
	case NL_FT_MAP_BYTES:
		o = typed("object", NULL);
		json_object_object_add(o, "additionalProperties",
		                       t == NL_FT_MAP_BYTES ? typed("string", "byte")
		                                            : typed("string", NULL));
		return o;
	case NL_FT_MAP_STRINGS: {
		json_object *list = typed("array", NULL);
		json_object_object_add(list, "items", typed("string", NULL));
		o = typed("object", NULL);
		json_object_object_add(o, "additionalProperties", list);
		return o;
	}
	case NL_FT_MAP_QUANTITY:
		o = typed("object", NULL);
		json_object_object_add(o, "additionalProperties",
		                       ref("io.k8s.apimachinery.pkg.api.resource.Quantity"));
		return o;
	case NL_FT_BYTES:
		return typed("string", "byte");
	case NL_FT_RAW:
		if (f && f->go_type && strcmp(f->go_type, "v1.FieldsV1") != 0)
			return opaque(f->go_type);
		mock_openapi_schema_name(name, sizeof(name), g->r, "FieldsV1");
		return all_of(name, 0);
	case NL_FT_OBJECT:
		if (!f || !f->sub)
			return typed("object", NULL);
		add_struct(g, f->sub);
		mock_openapi_schema_name(name, sizeof(name), g->r, f->sub->go_name);
		return all_of(name, !(f->flags & NL_F_PTR));
	default:
		return typed("string", NULL);
	}
}

static void add_list_ext(json_object *prop, const char *type, const char *field)
{
	for (size_t i = 0; i < sizeof(list_ext) / sizeof(list_ext[0]); i++) {
		if (strcmp(list_ext[i].type, type) != 0 || strcmp(list_ext[i].field, field) != 0)
			continue;
		/* an atomic list may still merge by key in a strategic patch
		 * (PodStatus.hostIPs) */
		if (list_ext[i].merge_key && strcmp(list_ext[i].list_type, "map") == 0) {
			json_object *keys = json_object_new_array();
			json_object_array_add(keys, json_object_new_string(list_ext[i].merge_key));
			if (list_ext[i].map_key2)
				json_object_array_add(keys,
				                      json_object_new_string(list_ext[i].map_key2));
			json_object_object_add(prop, "x-kubernetes-list-map-keys", keys);
		}
		json_object_object_add(prop, "x-kubernetes-list-type",
		                       json_object_new_string(list_ext[i].list_type));
		if (list_ext[i].merge_key)
			json_object_object_add(prop, "x-kubernetes-patch-merge-key",
			                       json_object_new_string(list_ext[i].merge_key));
		if (list_ext[i].patch_strategy)
			json_object_object_add(prop, "x-kubernetes-patch-strategy",
			                       json_object_new_string(list_ext[i].patch_strategy));
	}
}

static json_object *field_schema(gen *g, const nl_schema *s, const nl_field *f)
{
	if (f->type == NL_FT_RAW && f->go_type && strncmp(f->go_type, "[]", 2) == 0) {
		/* an opaque list (PodSpec.volumes) still merges by its key */
		json_object *raw = scalar_schema(g, f->type, f);
		add_list_ext(raw, s->go_name, f->name);
		return raw;
	}
	if (f->type != NL_FT_ARRAY)
		return scalar_schema(g, f->type, f);
	json_object *o = typed("array", NULL);
	json_object *items = f->elem == NL_FT_OBJECT ? scalar_schema(g, NL_FT_OBJECT, f)
	                                             : scalar_schema(g, f->elem, NULL);
	if (f->elem == NL_FT_OBJECT && f->sub) /* slice elements are values */
		json_object_object_add(items, "default", json_object_new_object());
	json_object_object_add(o, "items", items);
	add_list_ext(o, s->go_name, f->name);
	return o;
}

static int is_optional(const char *type, const nl_field *f)
{
	if (f->flags & (NL_F_OMITEMPTY | NL_F_PTR | NL_F_TYPEMETA))
		return 1;
	for (size_t i = 0; i < sizeof(optional) / sizeof(optional[0]); i++)
		if (strcmp(optional[i].type, type) == 0 && strcmp(optional[i].field, f->name) == 0)
			return 1;
	return 0;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A struct's component (once): properties in name order, as Go's
 * encoding/json writes the map kube-openapi builds; required fields. */
static void add_struct(gen *g, const nl_schema *s)
{
	char name[160];
	mock_openapi_schema_name(name, sizeof(name), g->r, s->go_name);
	if (json_object_object_get_ex(g->schemas, name, NULL))
		return;
	json_object *o = typed("object", NULL), *props = json_object_new_object();
	json_object *req = json_object_new_array();
	/* Registered first so that recursive types terminate. */
	json_object_object_add(g->schemas, name, o);
	const char *names[64] = {0};
	size_t n = 0;
	for (size_t i = 0; i < s->nfields && n < 64; i++)
		names[n++] = s->fields[i].name;
	qsort(names, n, sizeof(names[0]), by_key);
	for (size_t k = 0; k < n; k++) {
		for (size_t i = 0; i < s->nfields; i++) {
			const nl_field *f = &s->fields[i];
			if (f->name != names[k])
				continue;
			json_object_object_add(props, f->name, field_schema(g, s, f));
			if (!is_optional(s->go_name, f))
				json_object_array_add(req, json_object_new_string(f->name));
		}
	}
	json_object_object_add(o, "properties", props);
	if (json_object_array_length(req) > 0)
		json_object_object_add(o, "required", req);
	else
		json_object_put(req);
}

static json_object *gvk_list(const mock_resource *r, const char *kind)
{
	json_object *arr = json_object_new_array(), *g = json_object_new_object();
	json_object_object_add(g, "group", json_object_new_string(r->group));
	json_object_object_add(g, "kind", json_object_new_string(kind));
	json_object_object_add(g, "version", json_object_new_string(r->version));
	json_object_array_add(arr, g);
	return arr;
}

/* <Kind>List: apiVersion, items, kind, metadata (ListMeta). */
static void add_list(gen *g)
{
	char name[160], item[160], meta[160];
	mock_openapi_schema_name(name, sizeof(name), g->r, g->r->list_kind);
	mock_openapi_schema_name(item, sizeof(item), g->r, g->r->schema->go_name);
	mock_openapi_schema_name(meta, sizeof(meta), g->r, "ListMeta");
	json_object *o = typed("object", NULL), *props = json_object_new_object();
	json_object *items = typed("array", NULL), *req = json_object_new_array();
	json_object *elem = all_of(item, 1);
	json_object_object_add(props, "apiVersion", typed("string", NULL));
	json_object_object_add(items, "items", elem);
	json_object_object_add(props, "items", items);
	json_object_object_add(props, "kind", typed("string", NULL));
	json_object_object_add(props, "metadata", all_of(meta, 1));
	json_object_object_add(o, "properties", props);
	json_object_array_add(req, json_object_new_string("items"));
	json_object_object_add(o, "required", req);
	json_object_object_add(o, "x-kubernetes-group-version-kind",
	                       gvk_list(g->r, g->r->list_kind));
	json_object_object_add(g->schemas, name, o);
}

void mock_openapi_add_schemas(json_object *schemas, const mock_resource *r)
{
	gen g = {schemas, r};
	char name[160];
	add_struct(&g, r->schema);
	mock_openapi_schema_name(name, sizeof(name), r, r->schema->go_name);
	json_object_object_add(json_object_object_get(schemas, name),
	                       "x-kubernetes-group-version-kind", gvk_list(r, r->kind));
	add_list(&g);
}
