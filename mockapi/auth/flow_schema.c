/* API Priority and Fairness classification (flow_schema.h). */
#include "flow_schema.h"

#include <pthread.h>
#include <string.h>

#include "api/route.h"
#include "authn.h"
#include "authz.h"

enum { FS_EXEMPT, FS_PROBES, FS_NODE_HIGH, FS_NODES, FS_GLOBAL, FS_COUNT };
enum { PL_EXEMPT, PL_NODE_HIGH, PL_SYSTEM, PL_GLOBAL, PL_COUNT };

static const struct {
	const char *name;
	int level;
} schemas[FS_COUNT] = {
    [FS_EXEMPT] = {"exempt", PL_EXEMPT},
    [FS_PROBES] = {"probes", PL_EXEMPT},
    [FS_NODE_HIGH] = {"system-node-high", PL_NODE_HIGH},
    [FS_NODES] = {"system-nodes", PL_SYSTEM},
    [FS_GLOBAL] = {"global-default", PL_GLOBAL},
};
static const char *const levels[PL_COUNT] = {"exempt", "node-high", "system", "global-default"};

static char schema_uids[FS_COUNT][MOCK_UUID_LEN + 1];
static char level_uids[PL_COUNT][MOCK_UUID_LEN + 1];
static pthread_once_t uids_once = PTHREAD_ONCE_INIT;

static void make_uids(void)
{
	for (int i = 0; i < FS_COUNT; i++)
		mock_uuid_v4(schema_uids[i]);
	for (int i = 0; i < PL_COUNT; i++)
		mock_uuid_v4(level_uids[i]);
}

static int in_group(const mock_request *req, const char *group)
{
	for (size_t i = 0; i < req->ngroups; i++)
		if (req->groups[i] && strcmp(req->groups[i], group) == 0)
			return 1;
	return 0;
}

/* The probes schema's nonResourceURLs, exactly (not /healthz/ping), for
 * the get verb. */
static int is_probe(const mock_request *req)
{
	static const char *const roots[] = {"/healthz", "/readyz", "/livez"};
	if (!req->path || !req->method || strcmp(req->method, "GET") != 0)
		return 0;
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		if (strcmp(req->path, roots[i]) == 0)
			return 1;
	}
	return 0;
}

static int node_high_resource(const mock_request *req)
{
	mock_req_attrs own;
	const mock_req_attrs *a = req->attrs;
	if (!a) {
		mock_request_attrs(&own, req->method, req->path, mock_request_query(req, "watch"),
		                   mock_request_query(req, "fieldSelector"));
		a = &own;
	}
	if (!a->res)
		return 0;
	if (strcmp(a->group, "") == 0 && strcmp(a->resource, "nodes") == 0)
		return !a->subresource[0] || strcmp(a->subresource, "status") == 0;
	return strcmp(a->group, "coordination.k8s.io") == 0 && strcmp(a->resource, "leases") == 0 &&
	       !a->subresource[0];
}

static int classify(const mock_request *req)
{
	if (!req->user || in_group(req, MOCK_GROUP_MASTERS))
		return FS_EXEMPT;
	if (is_probe(req))
		return FS_PROBES;
	if (in_group(req, MOCK_GROUP_NODES))
		return node_high_resource(req) ? FS_NODE_HIGH : FS_NODES;
	/* global-default takes system:authenticated and system:unauthenticated
	 * before catch-all could: every other user of the mock. */
	return FS_GLOBAL;
}

void mock_flow_schema_match(mock_flow_match *out, const mock_request *req)
{
	pthread_once(&uids_once, make_uids);
	int fs = classify(req), pl = schemas[fs].level;
	out->flow_schema = schemas[fs].name;
	out->priority_level = levels[pl];
	out->flow_schema_uid = schema_uids[fs];
	out->priority_level_uid = level_uids[pl];
}
