/* URL → target: which kind, namespace, name and subresource a path names,
 * which verbs it serves, and a request's audit attributes. */
#ifndef MOCK_ROUTER_H
#define MOCK_ROUTER_H

#include <stddef.h>

#include "resources.h"

typedef enum {
	MOCK_ROUTE_NONE,       /* unknown path: 404 */
	MOCK_ROUTE_DISCOVERY,  /* /api, /apis, /api/v1, /apis/<g>/<v>, /version, /healthz ... */
	MOCK_ROUTE_COLLECTION, /* .../<plural> (list, create, deletecollection) */
	MOCK_ROUTE_OBJECT,     /* .../<plural>/<name> (get, update, delete) */
} mock_route_type;

typedef struct mock_route {
	mock_route_type type;
	const mock_resource *res; /* COLLECTION / OBJECT */
	char ns[254];             /* "" = none (cluster-scoped or all namespaces) */
	char name[254];
	char subresource[32]; /* "", "status", (namespaces) "finalize", (pods) "eviction" or
	                       * (CSRs) "approval" */
	int bad_name;         /* a path segment was over-long or empty */
} mock_route;

/* Parse a percent-decoded URL path. Returns the route; never fails. */
mock_route mock_route_parse(const char *path);

/* The URL path of a collection (name NULL) or object; -1 if it does not fit. */
int mock_route_path(char *out, size_t outlen, const mock_resource *r, const char *ns,
                    const char *name);

/* Whether verb ("get", "list", "create", "update", "patch", "delete",
 * "deletecollection", "watch") is served for r (subresource: on
 * <plural>/status). Dispatch and discovery both ask this. */
int mock_route_allows(const mock_resource *r, const char *verb, int subresource);
/* The same for a named subresource ("" or NULL: the main resource). */
int mock_route_allows_sub(const mock_resource *r, const char *verb, const char *subresource);

/* At most this many subresources on one resource. */
#define MOCK_ROUTE_SUBRESOURCES_MAX 3
/* The subresources r serves, sorted by name as discovery lists them, into
 * out (static texts, NULL after the last); returns how many. Both
 * discovery documents ask this. */
size_t mock_route_subresources(const mock_resource *r,
                               const char *out[MOCK_ROUTE_SUBRESOURCES_MAX + 1]);

/* The audit verb of method on rt ("list" becomes "watch" when watch_param
 * is true as the apiserver reads a bool), or NULL when the route is none
 * or no verb maps to the method (e.g. POST on an object). */
const char *mock_route_verb(const mock_route *rt, const char *method, const char *watch_param);

/* What kube-apiserver's audit log says a request is about; the fault matcher
 * and the request journal both use it. A resource request has an audit verb
 * (get, list, watch, create, update, patch, delete, deletecollection) and
 * res set; anything else (discovery, /version, unknown paths, methods no
 * verb maps to) is a non-resource request whose verb is the lower-case
 * method ("get", "post"), as for nonResourceURLs. Strings are borrowed from
 * static tables or copied into the struct; nothing to free. */
typedef struct mock_req_attrs {
	const char *verb;
	const mock_resource *res; /* NULL for non-resource requests */
	const char *resource;     /* plural, or "" */
	const char *subresource;  /* "status", "finalize", "eviction", "approval" or "" (static) */
	const char *group;        /* "" for core and non-resource requests */
	char ns[254];
	char name[254];
} mock_req_attrs;

/* Fill *out from the request's method, path and its `watch` and
 * `fieldSelector` query parameters (either may be NULL). As in
 * kube-apiserver's RequestInfo, a list or watch whose field selector pins
 * metadata.name reports that name. */
void mock_request_attrs(mock_req_attrs *out, const char *method, const char *path,
                        const char *watch_param, const char *field_selector);
/* The same from the path's route (mock_route_parse), for callers that have
 * it already: the server routes each request once. */
void mock_request_attrs_of_route(mock_req_attrs *out, const mock_route *rt, const char *method,
                                 const char *watch_param, const char *field_selector);

#endif
