/* URL → target: which kind, namespace, name and subresource a path names. */
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

typedef struct {
	mock_route_type type;
	const mock_resource *res; /* COLLECTION / OBJECT */
	char ns[254];             /* "" = none (cluster-scoped or all namespaces) */
	char name[254];
	char subresource[32]; /* "" or "status" */
	int bad_name;         /* a path segment was over-long or empty */
} mock_route;

/* Parse a percent-decoded URL path. Returns the route; never fails. */
mock_route mock_route_parse(const char *path);

/* Whether verb ("get", "list", "create", "update", "patch", "delete",
 * "deletecollection", "watch") is served for r (subresource: on
 * <plural>/status). Dispatch and discovery both ask this. */
/* The URL path of a collection (name NULL) or object; -1 if it does not fit. */
int mock_route_path(char *out, size_t outlen, const mock_resource *r, const char *ns,
                    const char *name);

int mock_route_allows(const mock_resource *r, const char *verb, int subresource);

#endif
