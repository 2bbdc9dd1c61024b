/* Path parsing: the one place that knows the URL layout of the Kubernetes
 * API (/api/v1/..., /apis/<group>/<version>/...), which verbs each path
 * serves, and what a request is about as the audit log would say it. */
#include "route.h"

#include <nodelet/selector.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/query.h"
#include "reviews.h"

#define MAX_SEGMENTS 10

/* Split path on '/' into at most MAX_SEGMENTS segments (pointers into buf).
 * Returns -1 on too many segments or an empty segment inside the path. */
static int split_path(char *buf, char *seg[MAX_SEGMENTS])
{
	int n = 0;
	char *p = buf;
	if (*p == '/')
		p++;
	size_t len = strlen(p);
	if (len > 0 && p[len - 1] == '/')
		p[len - 1] = '\0'; /* a trailing slash names the same thing */
	if (*p == '\0')
		return 0;
	while (p) {
		if (n == MAX_SEGMENTS)
			return -1;
		char *slash = strchr(p, '/');
		if (slash)
			*slash = '\0';
		if (*p == '\0')
			return -1;
		seg[n++] = p;
		p = slash ? slash + 1 : NULL;
	}
	return n;
}

static int copy_part(char *dst, size_t dstlen, const char *src)
{
	size_t n = strlen(src);
	if (n == 0 || n >= dstlen)
		return -1;
	memcpy(dst, src, n + 1);
	return 0;
}

/* After the group/version prefix: [namespaces/<ns>/]<plural>[/<name>[/<sub>]].
 * rt comes zeroed and stays MOCK_ROUTE_NONE for a path that names nothing. */
static void route_resource(mock_route *rt, const char *group, const char *version, char **seg,
                           int n)
{
	const mock_resource *r = NULL;
	int i = 0;

	/* "namespaces/<ns>/<plural>..." is a namespaced path, but
	 * "namespaces" and "namespaces/<name>" name the Namespace kind itself. */
	if (n >= 3 && strcmp(seg[0], "namespaces") == 0) {
		const mock_resource *inner =
		    group[0] == '\0' ? mock_resource_find(group, version, seg[2]) : NULL;
		if (group[0] != '\0' || (inner && inner->namespaced)) {
			if (copy_part(rt->ns, sizeof(rt->ns), seg[1]) != 0)
				rt->bad_name = 1;
			i = 2;
			r = inner;
		}
	}
	if (i >= n)
		return;
	if (!r)
		r = mock_resource_find(group, version, seg[i]);
	if (!r && !rt->ns[0] && i + 1 == n) {
		/* A review is a collection to create in, nothing more. */
		r = mock_review_find(group, version, seg[i]);
		if (r) {
			rt->res = r;
			rt->type = MOCK_ROUTE_COLLECTION;
		}
		return;
	}
	if (!r)
		return;
	/* A namespace in the path only makes sense for namespaced kinds; a
	 * cluster-scoped kind under /namespaces/x/ does not exist. */
	if (rt->ns[0] && !r->namespaced)
		return;
	rt->res = r;
	int rest = n - i - 1;
	if (rest == 0) {
		rt->type = MOCK_ROUTE_COLLECTION;
		return;
	}
	/* A namespaced object needs its namespace in the path. */
	if (r->namespaced && !rt->ns[0])
		goto none;
	if (copy_part(rt->name, sizeof(rt->name), seg[i + 1]) != 0)
		rt->bad_name = 1;
	if (rest == 1) {
		rt->type = MOCK_ROUTE_OBJECT;
		return;
	}
	if (rest == 2 && strcmp(seg[i + 2], "status") == 0 && r->has_status) {
		strcpy(rt->subresource, "status");
		rt->type = MOCK_ROUTE_OBJECT;
		return;
	}
	/* The namespace controller's way to drop spec.finalizers. */
	if (rest == 2 && strcmp(seg[i + 2], "finalize") == 0 && r->id == MOCK_KIND_NAMESPACE) {
		strcpy(rt->subresource, "finalize");
		rt->type = MOCK_ROUTE_OBJECT;
		return;
	}
	if (rest == 2 && strcmp(seg[i + 2], "eviction") == 0 && r->has_eviction) {
		strcpy(rt->subresource, "eviction");
		rt->type = MOCK_ROUTE_OBJECT;
		return;
	}
	if (rest == 2 && strcmp(seg[i + 2], "approval") == 0 && r->has_approval) {
		strcpy(rt->subresource, "approval");
		rt->type = MOCK_ROUTE_OBJECT;
		return;
	}
none:
	memset(rt, 0, sizeof(*rt));
}

mock_route mock_route_parse(const char *path)
{
	mock_route rt;
	memset(&rt, 0, sizeof(rt));
	char buf[2048];
	char *seg[MAX_SEGMENTS];

	size_t len = path ? strlen(path) : sizeof(buf);
	if (len >= sizeof(buf))
		return rt;
	memcpy(buf, path, len + 1);
	int n = split_path(buf, seg);
	if (n >= 3 && strcmp(seg[0], "api") == 0)
		route_resource(&rt, "", seg[1], seg + 2, n - 2);
	else if (n >= 4 && strcmp(seg[0], "apis") == 0)
		route_resource(&rt, seg[1], seg[2], seg + 3, n - 3);
	return rt;
}

/* The one list of what is served, used by dispatch and by discovery. */
int mock_route_allows(const mock_resource *r, const char *verb, int subresource)
{
	return mock_route_allows_sub(r, verb, subresource ? "status" : "");
}

size_t mock_route_subresources(const mock_resource *r,
                               const char *out[MOCK_ROUTE_SUBRESOURCES_MAX + 1])
{
	size_t n = 0;
	/* by name, as the apiserver lists them */
	if (r->has_approval)
		out[n++] = "approval";
	if (r->id == MOCK_KIND_NAMESPACE)
		out[n++] = "finalize";
	if (r->has_status)
		out[n++] = "status";
	out[n] = NULL;
	return n;
}

int mock_route_allows_sub(const mock_resource *r, const char *verb, const char *subresource)
{
	int sub = subresource && *subresource;
	/* PATCH goes wherever update does (nodes/status included). */
	if (mock_resource_is_review(r))
		return !sub && strcmp(verb, "create") == 0;
	/* FinalizeREST is an Updater only: no GET, hence no PATCH. */
	if (sub && strcmp(subresource, "finalize") == 0)
		return r->id == MOCK_KIND_NAMESPACE && strcmp(verb, "update") == 0;
	/* EvictionREST is a Creater only. */
	if (sub && strcmp(subresource, "eviction") == 0)
		return r->has_eviction && strcmp(verb, "create") == 0;
	if (sub)
		return strcmp(verb, "get") == 0 || strcmp(verb, "update") == 0 ||
		       strcmp(verb, "patch") == 0;
	/* The namespace registry has no deletecollection. */
	if (r->id == MOCK_KIND_NAMESPACE && strcmp(verb, "deletecollection") == 0)
		return 0;
	return strcmp(verb, "create") == 0 || strcmp(verb, "delete") == 0 ||
	       strcmp(verb, "deletecollection") == 0 || strcmp(verb, "get") == 0 ||
	       strcmp(verb, "list") == 0 || strcmp(verb, "watch") == 0 ||
	       strcmp(verb, "update") == 0 || strcmp(verb, "patch") == 0;
}

/* Kubernetes audit verb for a method on a route, or NULL for none. */
static const char *request_verb(const mock_route *rt, const char *method)
{
	static const struct {
		const char *method;
		const char *collection;
		const char *object;
	} map[] = {
	    {"GET", "list", "get"},
	    {"POST", "create", NULL},
	    {"PUT", NULL, "update"},
	    {"PATCH", NULL, "patch"},
	    {"DELETE", "deletecollection", "delete"},
	};
	/* pods/<name>/eviction is created, nothing else */
	if (strcmp(rt->subresource, "eviction") == 0)
		return strcmp(method, "POST") == 0 ? "create" : NULL;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(map[i].method, method) == 0)
			return rt->type == MOCK_ROUTE_COLLECTION ? map[i].collection
			                                         : map[i].object;
	return NULL;
}

static const char *lower_method(const char *method)
{
	static const char *const methods[] = {"get",    "post", "put",     "patch",
	                                      "delete", "head", "options", "connect"};
	for (size_t i = 0; method && i < sizeof(methods) / sizeof(methods[0]); i++)
		if (strcasecmp(methods[i], method) == 0)
			return methods[i];
	return "unknown";
}

const char *mock_route_verb(const mock_route *rt, const char *method, const char *watch_param)
{
	const char *verb = rt->type != MOCK_ROUTE_NONE && method ? request_verb(rt, method) : NULL;
	return verb && strcmp(verb, "list") == 0 && mock_query_bool_value(watch_param) == 1
	           ? "watch"
	           : verb;
}

void mock_request_attrs(mock_req_attrs *out, const char *method, const char *path,
                        const char *watch_param, const char *field_selector)
{
	mock_route rt = mock_route_parse(path);
	mock_request_attrs_of_route(out, &rt, method, watch_param, field_selector);
}

void mock_request_attrs_of_route(mock_req_attrs *out, const mock_route *rt, const char *method,
                                 const char *watch_param, const char *field_selector)
{
	memset(out, 0, sizeof(*out));
	out->resource = out->subresource = out->group = "";
	const char *verb = mock_route_verb(rt, method, watch_param);
	if (!verb) {
		out->verb = lower_method(method);
		return;
	}
	out->verb = verb;
	out->res = rt->res;
	out->resource = rt->res->plural;
	/* a static text: rt may be the caller's temporary */
	out->subresource = strcmp(rt->subresource, "finalize") == 0   ? "finalize"
	                   : strcmp(rt->subresource, "eviction") == 0 ? "eviction"
	                   : strcmp(rt->subresource, "approval") == 0 ? "approval"
	                   : rt->subresource[0]                       ? "status"
	                                                              : "";
	out->group = rt->res->group;
	strcpy(out->ns, rt->ns);
	strcpy(out->name, rt->name);
	if (!out->name[0] && (strcmp(verb, "list") == 0 || strcmp(verb, "watch") == 0) &&
	    field_selector && *field_selector) {
		nl_field_selector *fs = NULL;
		if (nl_field_selector_parse(&fs, field_selector, NULL) == 0) {
			const char *n = nl_field_selector_exact(fs, "metadata.name");
			if (n && strlen(n) < sizeof(out->name))
				strcpy(out->name, n);
		}
		nl_field_selector_free(fs);
	}
}

int mock_route_path(char *out, size_t outlen, const mock_resource *r, const char *ns,
                    const char *name)
{
	int n;
	char prefix[160];
	if (r->group[0])
		snprintf(prefix, sizeof(prefix), "/apis/%s/%s", r->group, r->version);
	else
		snprintf(prefix, sizeof(prefix), "/api/%s", r->version);
	if (r->namespaced && ns && *ns)
		n = snprintf(out, outlen, "%s/namespaces/%s/%s%s%s", prefix, ns, r->plural,
		             name ? "/" : "", name ? name : "");
	else
		n = snprintf(out, outlen, "%s/%s%s%s", prefix, r->plural, name ? "/" : "",
		             name ? name : "");
	return n < 0 || (size_t)n >= outlen ? -1 : 0;
}
