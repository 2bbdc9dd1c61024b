/* Legacy discovery (/api, /apis, /api/v1, /apis/<group>[/<version>]),
 * /version and the health endpoints. Everything is derived from the
 * resource table and mock_route_allows, so discovery lists exactly what is
 * served. */
#include "discovery.h"

#include <stdio.h>
#include <string.h>

#include "aggregated.h"
#include "api/reviews.h"
#include "api/route.h"
#include "core/options.h"
#include "core/request.h"
#include "encoding/json_indent.h"
#include "encoding/negotiation.h"
#include "health.h"
#include "openapi.h"

static const char *const all_verbs[] = {
    "create", "delete", "deletecollection", "get", "list", "patch", "update", "watch", NULL,
};

static void answer(mock_response *resp, json_object *o)
{
	size_t len = 0;
	const char *text = json_object_to_json_string_length(
	    o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	mock_response_json(resp, 200, text, len);
	json_object_put(o);
}

/* WriteRawJSON: json.MarshalIndent, whatever the client asked for. */
static void answer_raw(mock_response *resp, json_object *o)
{
	nl_buf b;
	size_t len = 0;
	const char *text = json_object_to_json_string_length(
	    o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	nl_buf_init(&b, 0);
	if (mock_json_indent(&b, text, len) == 0)
		mock_response_json(resp, 200, b.data ? b.data : "", b.len);
	else
		mock_response_status(resp, nl_status_internal("out of memory"));
	nl_buf_free(&b);
	json_object_put(o);
}

static json_object *group_version(const char *group, const char *version)
{
	char gv[128];
	json_object *o = json_object_new_object();
	snprintf(gv, sizeof(gv), "%s/%s", group, version);
	json_object_object_add(o, "groupVersion", json_object_new_string(gv));
	json_object_object_add(o, "version", json_object_new_string(version));
	return o;
}

/* Groups other than core, in table order, each once. */
static int named_groups(const char *out[], int max)
{
	int n = 0;
	const mock_resource *r;
	for (size_t id = 0; (r = mock_resource_served(id)) != NULL; id++) {
		int seen = r->group[0] == '\0';
		for (int i = 0; i < n && !seen; i++)
			seen = strcmp(out[i], r->group) == 0;
		if (!seen && n < max)
			out[n++] = r->group;
	}
	return n;
}

/* An APIGroup; with_type_meta for the bare /apis/<group> document (inside
 * an APIGroupList the items carry no kind/apiVersion). */
static json_object *api_group(const char *group, int with_type_meta)
{
	json_object *g = json_object_new_object();
	json_object *versions = json_object_new_array();
	if (with_type_meta) {
		json_object_object_add(g, "kind", json_object_new_string("APIGroup"));
		json_object_object_add(g, "apiVersion", json_object_new_string("v1"));
	}
	json_object_object_add(g, "name", json_object_new_string(group));
	json_object_array_add(versions, group_version(group, "v1"));
	json_object_object_add(g, "versions", versions);
	json_object_object_add(g, "preferredVersion", group_version(group, "v1"));
	return g;
}

/* r's entry, or its subresource's ("" for none). */
static json_object *resource_entry(const mock_resource *r, const char *sub)
{
	char name[96];
	int subresource = *sub != '\0';
	json_object *o = json_object_new_object();
	json_object *verbs = json_object_new_array();
	snprintf(name, sizeof(name), "%s%s%s", r->plural, subresource ? "/" : "", sub);
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "singularName",
	                       json_object_new_string(subresource ? "" : r->singular));
	json_object_object_add(o, "namespaced", json_object_new_boolean(r->namespaced));
	json_object_object_add(o, "kind", json_object_new_string(r->kind));
	for (int i = 0; all_verbs[i]; i++)
		if (mock_route_allows_sub(r, all_verbs[i], sub))
			json_object_array_add(verbs, json_object_new_string(all_verbs[i]));
	json_object_object_add(o, "verbs", verbs);
	if (!subresource && r->short_names && r->short_names[0]) {
		json_object *sn = json_object_new_array();
		for (int i = 0; r->short_names[i]; i++)
			json_object_array_add(sn, json_object_new_string(r->short_names[i]));
		json_object_object_add(o, "shortNames", sn);
	}
	return o;
}

/* pods/eviction: a policy/v1 Eviction one creates (kubectl drain looks
 * for it here before it evicts). */
static json_object *eviction_entry(const mock_resource *r)
{
	char name[96];
	json_object *o = json_object_new_object(), *verbs = json_object_new_array();
	snprintf(name, sizeof(name), "%s/eviction", r->plural);
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "singularName", json_object_new_string(""));
	json_object_object_add(o, "namespaced", json_object_new_boolean(r->namespaced));
	json_object_object_add(o, "group", json_object_new_string("policy"));
	json_object_object_add(o, "version", json_object_new_string("v1"));
	json_object_object_add(o, "kind", json_object_new_string("Eviction"));
	json_object_array_add(verbs, json_object_new_string("create"));
	json_object_object_add(o, "verbs", verbs);
	return o;
}

static int by_name(const void *a, const void *b)
{
	json_object *const *x = a, *const *y = b;
	json_object *nx = NULL, *ny = NULL;
	json_object_object_get_ex(*x, "name", &nx);
	json_object_object_get_ex(*y, "name", &ny);
	return strcmp(json_object_get_string(nx), json_object_get_string(ny));
}

/* APIResourceList for one group/version ("" = core), sorted by name like
 * the apiserver's, or NULL when the group serves nothing. */
static json_object *resource_list(const char *group, const char *version)
{
	json_object *items = json_object_new_array();
	const mock_resource *r;
	for (size_t id = 0; (r = mock_resource_served(id)) != NULL; id++) {
		if (strcmp(r->group, group) != 0 || strcmp(r->version, version) != 0)
			continue;
		json_object_array_add(items, resource_entry(r, ""));
		const char *subs[MOCK_ROUTE_SUBRESOURCES_MAX + 1];
		mock_route_subresources(r, subs);
		for (size_t i = 0; subs[i]; i++)
			json_object_array_add(items, resource_entry(r, subs[i]));
		if (r->has_eviction)
			json_object_array_add(items, eviction_entry(r));
	}
	if (json_object_array_length(items) == 0) {
		json_object_put(items);
		return NULL;
	}
	json_object_array_sort(items, by_name);
	char gv[128];
	snprintf(gv, sizeof(gv), "%s%s%s", group, group[0] ? "/" : "", version);
	json_object *o = json_object_new_object();
	json_object_object_add(o, "kind", json_object_new_string("APIResourceList"));
	json_object_object_add(o, "apiVersion", json_object_new_string("v1"));
	json_object_object_add(o, "groupVersion", json_object_new_string(gv));
	json_object_object_add(o, "resources", items);
	return o;
}

static json_object *api_versions(unsigned port)
{
	char addr[64];
	json_object *o = json_object_new_object();
	json_object *v = json_object_new_array();
	json_object *cidrs = json_object_new_array();
	json_object *c = json_object_new_object();
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	json_object_array_add(v, json_object_new_string("v1"));
	json_object_object_add(o, "kind", json_object_new_string("APIVersions"));
	json_object_object_add(o, "versions", v);
	json_object_object_add(c, "clientCIDR", json_object_new_string("0.0.0.0/0"));
	json_object_object_add(c, "serverAddress", json_object_new_string(addr));
	json_object_array_add(cidrs, c);
	json_object_object_add(o, "serverAddressByClientCIDRs", cidrs);
	return o;
}

static json_object *api_group_list(void)
{
	const char *groups[MOCK_SERVED_COUNT] = {0};
	int n = named_groups(groups, MOCK_SERVED_COUNT);
	json_object *o = json_object_new_object();
	json_object *arr = json_object_new_array();
	json_object_object_add(o, "kind", json_object_new_string("APIGroupList"));
	json_object_object_add(o, "apiVersion", json_object_new_string("v1"));
	for (int i = 0; i < n; i++)
		json_object_array_add(arr, api_group(groups[i], 0));
	json_object_object_add(o, "groups", arr);
	return o;
}

/* The build's time as kube-apiserver's buildDate is written (RFC 3339,
 * UTC: hack/lib/version.sh's `date -u +%Y-%m-%dT%H:%M:%SZ`), from the
 * compiler's __DATE__ ("Dec  3 2026") and __TIME__ ("13:14:28"). */
static void build_date(char out[64])
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	char mon[4] = {0};
	int day = 1, year = 1970, h = 0, m = 0, sec = 0;
	if (sscanf(__DATE__, "%3s %d %d", mon, &day, &year) != 3 ||
	    sscanf(__TIME__, "%d:%d:%d", &h, &m, &sec) != 3)
		mon[0] = '\0';
	const char *at = mon[0] ? strstr(months, mon) : NULL;
	int month = at ? (int)(at - months) / 3 + 1 : 1;
	snprintf(out, 64, "%04d-%02d-%02dT%02d:%02d:%02dZ", year % 10000, month, day % 100, h % 100,
	         m % 100, sec % 100);
}

static json_object *version_info(void)
{
	char date[64];
	build_date(date);
	json_object *o = json_object_new_object();
	json_object_object_add(o, "major", json_object_new_string(MOCK_VERSION_MAJOR));
	json_object_object_add(o, "minor", json_object_new_string(MOCK_VERSION_MINOR));
	json_object_object_add(o, "gitVersion", json_object_new_string(MOCK_GIT_VERSION));
	json_object_object_add(o, "gitCommit", json_object_new_string("nodelet-mockapi"));
	json_object_object_add(o, "gitTreeState", json_object_new_string("clean"));
	json_object_object_add(o, "buildDate", json_object_new_string(date));
	json_object_object_add(o, "goVersion", json_object_new_string("none (C)"));
	json_object_object_add(o, "compiler", json_object_new_string("gcc"));
	json_object_object_add(o, "platform", json_object_new_string("linux/amd64"));
	return o;
}

/* /apis/<group> and /apis/<group>/<version>; NULL when not a served group. */
static json_object *group_document(const char *path)
{
	char group[128], version[32];
	const char *groups[MOCK_SERVED_COUNT] = {0};
	int n = named_groups(groups, MOCK_SERVED_COUNT);
	int fields = sscanf(path, "/apis/%127[^/]/%31[^/]", group, version);
	if (fields < 1)
		return NULL;
	for (int i = 0; i < n; i++) {
		if (strcmp(groups[i], group) != 0)
			continue;
		if (fields == 1)
			return api_group(group, 1);
		return resource_list(group, version);
	}
	return NULL;
}

static int path_is(const char *path, const char *want)
{
	size_t n = strlen(want);
	return strncmp(path, want, n) == 0 && (path[n] == '\0' || (path[n] == '/' && !path[n + 1]));
}

static int count_slashes(const char *p)
{
	int n = 0;
	for (; *p; p++)
		n += *p == '/';
	return n;
}

int mock_handle_discovery(unsigned port, const mock_request *req, mock_response *resp)
{
	const char *p = req->path;
	json_object *doc = NULL;

	if (mock_handle_health(req, resp) || mock_handle_openapi(req, resp) ||
	    mock_handle_openapi_v2(req, resp))
		return 1;
	/* /api and /apis in the aggregated form when the client asks for it. */
	mock_negotiated neg = {MOCK_MEDIA_JSON, MOCK_AS_NONE, ""};
	if ((path_is(p, "/api") || path_is(p, "/apis")) && strcmp(req->method, "GET") == 0 &&
	    mock_negotiate_output(&neg, req->accept, MOCK_ALLOW_DISCOVERY) == 0) {
		mock_discovery_aggregated(resp, req, &neg, path_is(p, "/api"));
		return 1;
	}
	if (path_is(p, "/version"))
		doc = version_info();
	else if (path_is(p, "/api"))
		doc = api_versions(port);
	else if (path_is(p, "/apis"))
		doc = api_group_list();
	else if (path_is(p, "/api/v1"))
		doc = resource_list("", "v1");
	else if (strncmp(p, "/apis/", 6) == 0 && count_slashes(p + 6) <= 1)
		doc = group_document(p);
	if (!doc)
		return strncmp(p, "/apis/", 6) == 0 && count_slashes(p + 6) <= 1
		           ? (mock_response_status(resp, nl_status_unknown_path()), 1)
		           : 0;
	if (strcmp(req->method, "GET") != 0) {
		json_object_put(doc);
		mock_response_status(resp, nl_status_method_not_allowed());
		return 1;
	}
	/* /version is raw JSON; the documents are negotiated (negotiation.h). */
	if (!path_is(p, "/version") &&
	    mock_negotiate_output(&neg, req->accept, MOCK_ALLOW_PLAIN) != 0) {
		json_object_put(doc);
		mock_response_status(resp, mock_status_not_acceptable());
		return 1;
	}
	if (path_is(p, "/version")) {
		answer_raw(resp, doc);
		return 1;
	}
	answer(resp, doc);
	mock_negotiate_finish(&neg, NULL, req, resp);
	return 1;
}
