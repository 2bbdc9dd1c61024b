/* Audit-Id and the API Priority and Fairness headers (wire_headers.h). */
#include "wire_headers.h"

#include "auth/flow_schema.h"
#include "core/log.h"
#include "core/uuid.h"

static void add(struct MHD_Response *r, const char *name, const char *value)
{
	if (MHD_add_response_header(r, name, value) != MHD_YES)
		MOCK_LOG_WARN("Could not add a header", NL_KV_STR("header", name));
}

void mock_wire_headers_add(struct MHD_Response *r, struct MHD_Connection *conn,
                           const mock_request *req, const mock_response *resp)
{
	char fresh[MOCK_UUID_LEN + 1];
	/* Header.Get: the first Audit-ID field, any case; an empty one is
	 * as none. */
	const char *id = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Audit-ID");
	if (!id || !*id) {
		mock_uuid_v4(fresh);
		id = fresh;
	}
	add(r, "Audit-Id", id);
	if (!req || req->unauthenticated || resp->code == 401)
		return;
	mock_flow_match m;
	mock_flow_schema_match(&m, req);
	add(r, "X-Kubernetes-Pf-Flowschema-Uid", m.flow_schema_uid);
	add(r, "X-Kubernetes-Pf-Prioritylevel-Uid", m.priority_level_uid);
}
