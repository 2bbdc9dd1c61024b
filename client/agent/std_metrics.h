/* The metrics every Kubernetes component exports besides its own, on the
 * agent's /metrics: client-go's rest_client_* from the client library's
 * counters (nodelet/client_metrics.h), and the Prometheus client libraries'
 * process_* from /proc. Rendered in text format 0.0.4 on the metrics
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

/* What process_* reads, as prometheus/procfs reads it. */
typedef struct {
	double cpu_seconds;    /* (utime + stime) / USER_HZ */
	double start_time;     /* btime + starttime / USER_HZ, seconds since the epoch */
	double virtual_bytes;  /* vsize */
	double resident_bytes; /* rss × page size */
	double open_fds;       /* entries of fd/ */
	double max_fds;        /* the soft "Max open files" limit */
} nl__process_stats;

/* Read the stats of the process whose /proc directory is dir ("/proc/self")
 * with the system's boot time from stat_path ("/proc/stat"). 0, or NL_EIO /
 * NL_EPARSE when a file is missing or not as Linux writes it (*out then
 * untouched). */
int nl__process_stats_read(nl__process_stats *out, const char *dir, const char *stat_path);
/* process_cpu_seconds_total, process_open_fds, process_max_fds,
 * process_virtual_memory_bytes, process_resident_memory_bytes,
 * process_start_time_seconds from s. NL_ENOMEM. */
int nl__process_metrics_render(nl_buf *out, const nl__process_stats *s);

/* Both of the above for c (a snapshot of its counters) and this process;
 * process_* left out when /proc cannot be read. Any thread. NL_ENOMEM. */
int nl__std_metrics_render(nl_buf *out, nl_client *c);

#endif
