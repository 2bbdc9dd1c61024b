/* The verbs: get, list, create, update, delete, deletecollection. */
#ifndef MOCK_HANDLERS_H
#define MOCK_HANDLERS_H

#include <nodelet/time.h>

#include "api.h"
#include "api/route.h"
#include "core/request.h"

void mock_handle_get(mock_api *api, const mock_route *rt, const mock_request *req,
                     mock_response *resp);
void mock_handle_list(mock_api *api, const mock_route *rt, const mock_request *req,
                      mock_response *resp);
void mock_handle_create(mock_api *api, const mock_route *rt, const mock_request *req,
                        mock_response *resp);
void mock_handle_update(mock_api *api, const mock_route *rt, const mock_request *req,
                        mock_response *resp);
void mock_handle_delete(mock_api *api, const mock_route *rt, const mock_request *req,
                        mock_response *resp);
void mock_handle_delete_collection(mock_api *api, const mock_route *rt, const mock_request *req,
                                   mock_response *resp);
/* POST pods/<name>/eviction (handlers_eviction.c): the pod deleted as
 * its DeleteOptions say, 201 with a Success Status; there are no
 * PodDisruptionBudgets to refuse it. */
void mock_handle_eviction(mock_api *api, const mock_route *rt, const mock_request *req,
                          mock_response *resp);
/* POST of an access review (access_review.c, api/reviews.h): 201 with
 * the review and its status, decided by the mock's own authenticator and
 * authorizer; nothing is stored. */
void mock_handle_review(mock_api *api, const mock_route *rt, const mock_request *req,
                        mock_response *resp);
/* GET <collection>?watch=true (watch_request.c): validate like the
 * apiserver, take the snapshot, open a watcher and make it resp->stream.
 * Errors before the stream starts are ordinary HTTP answers. */
void mock_handle_watch(mock_api *api, const mock_route *rt, const mock_request *req,
                       mock_response *resp);
/* For a LIST: resourceVersionMatch=Exact with a resourceVersion older than
 * the watch history → NL_EGONE and the 410 Status in *st (caller frees). */
int mock_watch_check_list(mock_api *api, const mock_route *rt, const mock_request *req,
                          nl_status **st);

/* PATCH: merge, JSON, strategic merge and server-side apply (patch_handler.c). */
void mock_handle_patch(mock_api *api, const mock_route *rt, const mock_request *req,
                       mock_response *resp);

/* What the write hook needs: the kind, the endpoint (main or /status), the
 * name for 422 messages, and the manager whose Update entry the write
 * records in managedFields at time now (manager NULL or "": none, e.g. an
 * apply that set managedFields itself). */
typedef struct {
	const mock_resource *r;
	int status_subresource;  /* any subresource: not the main resource */
	const char *subresource; /* the route's: "", "status", "finalize" or "approval" */
	const char *name;
	const char *manager;
	char manager_buf[129]; /* MOCK_FIELD_MANAGER_MAX + 1 */
	char now[NL_TIME_BUFSZ];
	/* The request, for admission (access.h); NULL: none. */
	const mock_api *api;
	const mock_request *req;
} mock_write_ctx;

/* Fill c for a write of rt by req: its field manager (fieldManager or the
 * User-Agent) and the store's current time. name is borrowed. */
void mock_write_ctx_init(mock_write_ctx *c, mock_api *api, const mock_route *rt,
                         const mock_request *req, const char *name);
/* The write hook of create, update and patch (payload: mock_write_ctx):
 * the endpoint's resets, defaults, managedFields, validation. */
nl_status *mock_write_prepare(json_object *obj, json_object *old, void *payload);

#endif
