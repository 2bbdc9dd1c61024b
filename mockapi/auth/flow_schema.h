/* Which of kube-apiserver's bootstrap FlowSchemas (API Priority and
 * Fairness, 1.32's flowcontrol/bootstrap defaults) a request matches, for
 * the X-Kubernetes-PF-FlowSchema-UID and X-Kubernetes-PF-PriorityLevel-UID
 * headers every classified answer carries. Only the schemas a user of the
 * mock can match are modelled (no service accounts, no controller users):
 *
 *   exempt            system:masters                          → exempt
 *   probes            GET /healthz, /livez, /readyz (exactly) → exempt
 *   system-node-high  system:nodes on nodes, nodes/status, leases → node-high
 *   system-nodes      system:nodes                            → system
 *   global-default    everyone else (system:authenticated and
 *                     system:unauthenticated)                 → global-default
 *
 * A server without authentication (no user) is the exempt admin. The
 * mock does not queue or shed by these (its 429 is max-in-flight's). */
#ifndef MOCK_AUTH_FLOW_SCHEMA_H
#define MOCK_AUTH_FLOW_SCHEMA_H

#include "core/request.h"
#include "core/uuid.h"

typedef struct {
	const char *flow_schema;    /* "system-nodes" */
	const char *priority_level; /* "system" */
	/* The objects' metadata.uid: random, fixed for the process's life
	 * (a cluster's bootstrap objects keep theirs). Static storage. */
	const char *flow_schema_uid;
	const char *priority_level_uid;
} mock_flow_match;

/* The schema req (authenticated: req->user and groups set, or NULL for a
 * server without authentication) matches. */
void mock_flow_schema_match(mock_flow_match *out, const mock_request *req);

#endif
