/* A request's way through the handlers (api.h): who may ask (401/403), the
 * body limit (413), the paths that are not API objects, then the verb's
 * handler between content negotiation's two halves. */
#include <string.h>

#include "api.h"
#include "api/reviews.h"
#include "auth/access.h"
#include "encoding/negotiation.h"
#include "handlers.h"
#include "nonresource/discovery.h"
#include "nonresource/metrics.h"

static void dispatch(mock_api *api, const mock_route *rt, const mock_request *req,
                     mock_response *resp)
{
	const char *verb = mock_route_verb(rt, req->method, mock_request_query(req, "watch"));
	/* The all-namespaces path of a namespaced kind only lists and watches. */
	int all_ns = rt->type == MOCK_ROUTE_COLLECTION && rt->res->namespaced && !rt->ns[0];
	int eviction = strcmp(rt->subresource, "eviction") == 0;
	if (!verb || (all_ns && strcmp(verb, "list") != 0 && strcmp(verb, "watch") != 0) ||
	    !mock_route_allows_sub(rt->res, verb, rt->subresource)) {
		mock_response_status(resp, nl_status_method_not_allowed());
		return;
	}
	/* The reviews are answered, never stored (access_review.c). */
	if (mock_resource_is_review(rt->res)) {
		mock_handle_review(api, rt, req, resp);
		return;
	}
	/* Content negotiation (encoding/negotiation.h): 406 and 415 before the
	 * handler reads anything, a YAML body handed on as JSON, Table/YAML
	 * after. */
	mock_negotiated neg;
	mock_negotiated_request nreq;
	if (mock_negotiate_request(&neg, &nreq, rt, req, resp) != 0) {
		mock_negotiated_request_free(&nreq);
		return;
	}
	req = &nreq.req;
	if (eviction)
		mock_handle_eviction(api, rt, req, resp);
	else if (strcmp(verb, "list") == 0)
		mock_handle_list(api, rt, req, resp);
	else if (strcmp(verb, "watch") == 0)
		mock_handle_watch(api, rt, req, resp);
	else if (strcmp(verb, "create") == 0)
		mock_handle_create(api, rt, req, resp);
	else if (strcmp(verb, "deletecollection") == 0)
		mock_handle_delete_collection(api, rt, req, resp);
	else if (strcmp(verb, "get") == 0)
		mock_handle_get(api, rt, req, resp);
	else if (strcmp(verb, "update") == 0)
		mock_handle_update(api, rt, req, resp);
	else if (strcmp(verb, "patch") == 0)
		mock_handle_patch(api, rt, req, resp);
	else
		mock_handle_delete(api, rt, req, resp);
	mock_negotiate_finish(&neg, rt, req, resp);
	mock_negotiated_request_free(&nreq);
}

/* Not an API object: the owner's paths (the control API), /metrics,
 * discovery, /version, OpenAPI and health; else 404. */
static void handle_nonresource(mock_api *api, int owned, const mock_request *req,
                               mock_response *resp)
{
	if (owned) {
		api->hooks.handle_path(api->hooks.payload, req, resp);
		return;
	}
	mock_metrics_inflight inflight;
	int limited =
	    mock_access_inflight(api->access, &inflight.readonly, &inflight.mutating) == 0;
	if (mock_metrics_handle(api->metrics, api->store, api->watch, limited ? &inflight : NULL,
	                        req, resp) ||
	    mock_handle_discovery(api->port, req, resp))
		return;
	mock_response_status(resp, nl_status_unknown_path());
}

void mock_api_handle(mock_api *api, const mock_request *req, mock_response *resp)
{
	const mock_api_hooks *h = &api->hooks;
	int owned = h->owns_path && h->handle_path && h->owns_path(h->payload, req->path);
	/* 401 and 403 come before anything looks at the body (auth/access.h). */
	if (mock_access_check(api->access, api->store, req, resp, owned))
		return;
	if (req->body_too_large) {
		mock_response_status(resp, nl_status_too_large(api->opts->max_body));
		return;
	}
	mock_route parsed;
	const mock_route *route = req->route;
	if (!route) {
		parsed = mock_route_parse(req->path);
		route = &parsed;
	}
	/* A resource path (/api/v1/..., /apis/<g>/<v>/...) is none of the
	 * control, metrics, discovery, health or OpenAPI paths: those are
	 * looked at only for the rest. */
	if (route->type == MOCK_ROUTE_NONE) {
		handle_nonresource(api, owned, req, resp);
		return;
	}
	if (route->bad_name) {
		mock_response_status(resp, nl_status_bad_request("name or namespace in the URL is "
		                                                 "empty or longer than 253 "
		                                                 "characters"));
		return;
	}
	int del = strcmp(req->method, "DELETE") == 0;
	if (del && h->before_delete)
		h->before_delete(h->payload, route, req); /* propagationPolicy Orphan */
	dispatch(api, route, req, resp);
	if (del && h->after_delete)
		h->after_delete(h->payload); /* the garbage collector looks now */
}
