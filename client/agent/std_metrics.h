/* The metrics every Kubernetes component exports besides its own, on the
 * agent's /metrics: client-go's rest_client_* from the client library's
 * counters (nodelet/client_metrics.h), and the Prometheus client libraries'
 * process_* (nodelet/process_metrics.h). Rendered in text format 0.0.4 on the metrics
 * server's thread; neither needs the agent's loop. Not installed. */
#ifndef NL_AGENT_STD_METRICS_H
#define NL_AGENT_STD_METRICS_H

#include <nodelet/buf.h>
#include <nodelet/client.h>
#include <nodelet/client_metrics.h>

/* rest_client_requests_total{code,host,method} and
 * rest_client_request_duration_seconds{host,verb} (histogram, client-go's
 * buckets) from m. NL_ENOMEM. */
int nl__rest_client_metrics_render(nl_buf *out, const nl_client_metrics *m);

/* Both of the above for c (a snapshot of its counters) and this process;
 * process_* left out when /proc cannot be read. Any thread. NL_ENOMEM. */
int nl__std_metrics_render(nl_buf *out, nl_client *c);

#endif
