/* Discovery (legacy and aggregated), /version, OpenAPI and the health
 * endpoints: every path of the API that is not an object. */
#ifndef MOCK_NONRESOURCE_DISCOVERY_H
#define MOCK_NONRESOURCE_DISCOVERY_H

#include "core/request.h"

/* Answer req when its path is one of them and return 1; else 0 with resp
 * untouched. port is the server's, for the serverAddressByClientCIDRs of
 * /api. */
int mock_handle_discovery(unsigned port, const mock_request *req, mock_response *resp);

#endif
