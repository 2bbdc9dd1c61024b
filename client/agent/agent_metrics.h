/* The agent's Prometheus /metrics and its health endpoints
 * (--metrics-bind-address):
 * Lease renewals, the last renewal time and the dynamic configuration's
 * node_config_* gauges, served by a small HTTP/1.1 thread. The lease
 * counters are atomics read at each scrape (the loop thread may be blocked
 * in a lease backoff, exactly when they matter); the config gauges are
 * rendered on the loop thread by a clock timer (the only thread that may
 * read the config controller) and handed over under a mutex. /healthz,
 * /livez and /readyz: agent_health.h. Not installed. */
#ifndef NL_AGENT_METRICS_H
#define NL_AGENT_METRICS_H

#include <json-c/json.h>
#include <nodelet/agent.h>
#include <nodelet/buf.h>
#include <nodelet/config_controller.h>
#include <nodelet/errors.h>
#include <stdint.h>

/* What the exposition shows: a copy of the agent's counters. */
typedef struct {
	unsigned long renewals_ok;
	unsigned long renewals_failed;
	int64_t last_renew_usec; /* wall clock; 0 = none yet */
	/* The Node's status.config (assigned, active, lastKnownGood, error);
	 * NULL without dynamic config: no node_config_* metrics. Borrowed. */
	json_object *config_status;
} nl__agent_metrics_values;

/* Append the text exposition (format 0.0.4) of v to out. NL_ENOMEM. */
int nl__agent_metrics_render(nl_buf *out, const nl__agent_metrics_values *v);

typedef struct nl__agent_metrics nl__agent_metrics;

/* Listen on addr ("IP:PORT", "[IPv6]:PORT" or ":PORT" for all addresses;
 * port 0 picks one, see nl__agent_metrics_port), render the config gauges
 * every second on the agent's clock, serve from a thread. cc may be NULL (no dynamic
 * config) and must outlive the server. Call on the loop's thread before
 * nl_agent_run. NL_EINVAL for a bad address, NL_EIO when it cannot listen,
 * with the reason in err. */
int nl__agent_metrics_start(nl__agent_metrics **out, nl_agent *a, nl_config_controller *cc,
                            const char *addr, nl_err *err);
unsigned nl__agent_metrics_port(const nl__agent_metrics *m);
/* Stop serving, cancel the timer, free. Accepts NULL. */
void nl__agent_metrics_stop(nl__agent_metrics *m);

#endif
