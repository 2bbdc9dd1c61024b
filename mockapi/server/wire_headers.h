/* The headers kube-apiserver's filters put on every answer they reach:
 *
 * - Audit-Id (WithAuditInit, the outermost filter but panic recovery): the
 *   request's own Audit-ID header echoed as it is, else a new UUID. Every
 *   answer but Go's own framing refusals has one, 401s included.
 * - X-Kubernetes-PF-FlowSchema-UID and X-Kubernetes-PF-PriorityLevel-UID
 *   (WithPriorityAndFairness, after authentication): the matched bootstrap
 *   FlowSchema and PriorityLevelConfiguration (auth/flow_schema.h); not
 *   on a 401, which ends the chain before. */
#ifndef MOCK_SERVER_WIRE_HEADERS_H
#define MOCK_SERVER_WIRE_HEADERS_H

#include <microhttpd.h>

#include "core/request.h"

/* Add them to r, the answer to req on conn. */
void mock_wire_headers_add(struct MHD_Response *r, struct MHD_Connection *conn,
                           const mock_request *req, const mock_response *resp);

#endif
