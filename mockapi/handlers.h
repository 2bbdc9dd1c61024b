/* The verbs: get, list, create, update, delete, deletecollection. */
#ifndef MOCK_HANDLERS_H
#define MOCK_HANDLERS_H

#include "internal.h"
#include "router.h"

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

/* Discovery and server-info endpoints (discovery.c); returns 1 when handled. */
int mock_handle_discovery(mock_api *api, const mock_request *req, mock_response *resp);

#endif
