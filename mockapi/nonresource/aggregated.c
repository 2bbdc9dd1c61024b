/* APIGroupDiscoveryList documents (k8s.io/api/apidiscovery/v2 types; Go's
 * JSON encoding, so ObjectMeta's creationTimestamp is null). */
#include "aggregated.h"

#include <nodelet/meta.h>
#include <stdio.h>
#include <string.h>

#include "api/reviews.h"
#include "api/route.h"
#include "core/etag.h"
#include "encoding/yaml_out.h"

/* The verbs discovery may list, in the order it lists them; which ones a
 * resource serves is mock_route_allows' answer (as in discovery.c). */
static const char *const candidate_verbs[] = {
    "create", "delete", "deletecollection", "get", "list", "patch", "update", "watch", NULL,
};

static json_object *verbs(const mock_resource *r, const char *subresource)
{
	json_object *arr = json_object_new_array();
	for (int i = 0; candidate_verbs[i]; i++)
		if (mock_route_allows_sub(r, candidate_verbs[i], subresource))
			json_object_array_add(arr, json_object_new_string(candidate_verbs[i]));
	return arr;
}

static json_object *response_kind(const mock_resource *r)
{
	json_object *k = json_object_new_object();
	json_object_object_add(k, "group", json_object_new_string(r->group));
	json_object_object_add(k, "version", json_object_new_string(r->version));
	json_object_object_add(k, "kind", json_object_new_string(r->kind));
	return k;
}

/* pods/eviction: creates a policy/v1 Eviction. */
static json_object *eviction_sub(void)
{
	json_object *s = json_object_new_object(), *k = json_object_new_object();
	json_object *v = json_object_new_array();
	json_object_object_add(s, "subresource", json_object_new_string("eviction"));
	json_object_object_add(k, "group", json_object_new_string("policy"));
	json_object_object_add(k, "version", json_object_new_string("v1"));
	json_object_object_add(k, "kind", json_object_new_string("Eviction"));
	json_object_object_add(s, "responseKind", k);
	json_object_array_add(v, json_object_new_string("create"));
	json_object_object_add(s, "verbs", v);
	return s;
}

static json_object *resource(const mock_resource *r)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "resource", json_object_new_string(r->plural));
	json_object_object_add(o, "responseKind", response_kind(r));
	json_object_object_add(o, "scope",
	                       json_object_new_string(r->namespaced ? "Namespaced" : "Cluster"));
	json_object_object_add(o, "singularResource", json_object_new_string(r->singular));
	json_object_object_add(o, "verbs", verbs(r, ""));
	if (r->short_names && r->short_names[0]) {
		json_object *sn = json_object_new_array();
		for (int i = 0; r->short_names[i]; i++)
			json_object_array_add(sn, json_object_new_string(r->short_names[i]));
		json_object_object_add(o, "shortNames", sn);
	}
	const char *names[MOCK_ROUTE_SUBRESOURCES_MAX + 1];
	if (mock_route_subresources(r, names) > 0) {
		json_object *subs = json_object_new_array();
		if (r->has_eviction) /* before status */
			json_object_array_add(subs, eviction_sub());
		for (size_t i = 0; names[i]; i++) {
			json_object *s = json_object_new_object();
			json_object_object_add(s, "subresource", json_object_new_string(names[i]));
			json_object_object_add(s, "responseKind", response_kind(r));
			json_object_object_add(s, "verbs", verbs(r, names[i]));
			json_object_array_add(subs, s);
		}
		json_object_object_add(o, "subresources", subs);
	}
	return o;
}

static int by_resource(const void *a, const void *b)
{
	json_object *const *x = a, *const *y = b;
	return strcmp(nl_json_get_string(*x, "resource"), nl_json_get_string(*y, "resource"));
}

/* One APIGroupDiscovery with its single version, v1. */
static json_object *group(const char *name)
{
	json_object *g = json_object_new_object(), *meta = json_object_new_object();
	json_object *versions = json_object_new_array(), *v = json_object_new_object();
	json_object *resources = json_object_new_array();
	const mock_resource *r;
	for (size_t id = 0; (r = mock_resource_served(id)) != NULL; id++) {
		if (strcmp(r->group, name) == 0)
			json_object_array_add(resources, resource(r));
	}
	json_object_array_sort(resources, by_resource);
	if (name[0])
		json_object_object_add(meta, "name", json_object_new_string(name));
	json_object_object_add(meta, "creationTimestamp", NULL);
	json_object_object_add(g, "metadata", meta);
	json_object_object_add(v, "version", json_object_new_string("v1"));
	json_object_object_add(v, "resources", resources);
	json_object_object_add(v, "freshness", json_object_new_string("Current"));
	json_object_array_add(versions, v);
	json_object_object_add(g, "versions", versions);
	return g;
}

json_object *mock_discovery_aggregated_doc(int core, const char *version)
{
	char av[64];
	json_object *doc = json_object_new_object(), *items = json_object_new_array();
	snprintf(av, sizeof(av), "apidiscovery.k8s.io/%s", version);
	json_object_object_add(doc, "kind", json_object_new_string("APIGroupDiscoveryList"));
	json_object_object_add(doc, "apiVersion", json_object_new_string(av));
	json_object_object_add(doc, "metadata", json_object_new_object());
	if (core) {
		json_object_array_add(items, group(""));
	} else {
		/* Named groups in table order, each once (sorted by name upstream;
		 * with one group the orders agree). */
		const mock_resource *r;
		for (size_t id = 0; (r = mock_resource_served(id)) != NULL; id++) {
			int seen = r->group[0] == '\0';
			for (size_t j = 0; j < id && !seen; j++)
				seen = strcmp(mock_resource_served(j)->group, r->group) == 0;
			if (!seen)
				json_object_array_add(items, group(r->group));
		}
	}
	json_object_object_add(doc, "items", items);
	return doc;
}

void mock_discovery_aggregated(mock_response *resp, const mock_request *req,
                               const mock_negotiated *neg, int core)
{
	static const char *const types[2][2] = {
	    {"application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
	     "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"},
	    {"application/yaml;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
	     "application/yaml;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"},
	};
	int beta = strcmp(neg->version, "v2beta1") == 0;
	int yaml = neg->media == MOCK_MEDIA_YAML;
	json_object *doc = mock_discovery_aggregated_doc(core, beta ? "v2beta1" : "v2");
	char tag[MOCK_ETAG_LEN];
	size_t len = 0;
	/* One tag for both versions and media types (the apiserver hashes its
	 * v2 object; Vary: Accept keeps caches apart). */
	const char *items = nl_json_compact(json_object_object_get(doc, "items"), &len);
	mock_etag_compute(tag, items, len);
	mock_response_header(resp, "Vary", "Accept");
	mock_response_header(resp, "Cache-Control", "public");
	if (!mock_etag_serve(resp, req, tag)) {
		const char *text = nl_json_compact(doc, &len);
		mock_response_json(resp, 200, text, len);
		if (yaml) {
			nl_buf y;
			nl_buf_init(&y, resp->body.cap);
			if (mock_yaml_from_json(&y, text, len) == 0)
				mock_response_json(resp, 200, y.data, y.len);
			else
				yaml = 0;
			nl_buf_free(&y);
		}
	}
	resp->content_type = types[yaml][beta];
	json_object_put(doc);
}
