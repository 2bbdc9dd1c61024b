/* Aggregated discovery (apidiscovery.k8s.io v2, and v2beta1 which 1.32 still
 * serves): /api and /apis answered with an APIGroupDiscoveryList when the
 * Accept header asks for it, so kubectl learns every resource in two
 * requests. Derived from the resource table and mock_route_allows, like the
 * legacy documents in discovery.c. */
#ifndef MOCK_AGGREGATED_H
#define MOCK_AGGREGATED_H

#include <json-c/json.h>

#include "core/request.h"
#include "encoding/negotiation.h"

/* The APIGroupDiscoveryList for /api (core 1: the core group) or /apis (the
 * named groups), in apidiscovery.k8s.io/<version> (new reference). */
json_object *mock_discovery_aggregated_doc(int core, const char *version);

/* Answer the request with that document: Content-Type carrying g/v/as
 * (which is how client-go recognizes it), ETag, Vary: Accept and
 * Cache-Control: public, 304 for a matching If-None-Match; YAML when
 * neg->media says so. */
void mock_discovery_aggregated(mock_response *resp, const mock_request *req,
                               const mock_negotiated *neg, int core);

#endif
