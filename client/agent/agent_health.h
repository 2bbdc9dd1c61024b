/* The agent's /healthz, /livez and /readyz on --metrics-bind-address, with
 * component-base's healthz semantics: "ok" (200) when every check passes,
 * the list of checks with "[-]name failed: reason withheld" (500) when one
 * fails, the list on success with ?verbose, ?exclude=name to skip one, and
 * /<endpoint>/<check> for a single check. /healthz and /livez check that
 * the process answers (ping); /readyz also that the Node is registered and
 * its Lease was written once (docs/decisions/0034-agent-operations.md).
 * Not installed. */
#ifndef NL_AGENT_HEALTH_H
#define NL_AGENT_HEALTH_H

#include <nodelet/buf.h>

/* What the readiness checks look at, read by the server thread. */
typedef struct {
	int registered;    /* the Node is registered, or registration is off */
	int lease_written; /* a Lease write succeeded */
} nl__agent_health_state;

/* The answer to GET path?query (query without the '?', may be NULL or ""),
 * when path is a health endpoint: *code 200 or 500 (or 404 for an unknown
 * check) and the body appended to body; returns 1. Returns 0 for any other
 * path (nothing written), NL_ENOMEM. */
int nl__agent_health_answer(nl_buf *body, int *code, const char *path, const char *query,
                            const nl__agent_health_state *st);

#endif
