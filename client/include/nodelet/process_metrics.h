/* process_* as the Prometheus client libraries export them (client_golang's
 * process collector over prometheus/procfs), for every program's /metrics:
 * the agent's and the mock's. Text exposition format 0.0.4. */
#ifndef NODELET_PROCESS_METRICS_H
#define NODELET_PROCESS_METRICS_H

#include <nodelet/buf.h>

/* What process_* reads, as prometheus/procfs reads it. */
typedef struct {
	double cpu_seconds;    /* (utime + stime) / USER_HZ */
	double start_time;     /* btime + starttime / USER_HZ, seconds since the epoch */
	double virtual_bytes;  /* vsize */
	double resident_bytes; /* rss × page size */
	double open_fds;       /* entries of fd/ */
	double max_fds;        /* the soft "Max open files" limit */
} nl_process_stats;

/* Read the stats of the process whose /proc directory is dir ("/proc/self")
 * with the system's boot time from stat_path ("/proc/stat"). 0, or NL_EIO /
 * NL_EPARSE when a file is missing or not as Linux writes it (*out then
 * untouched). */
int nl_process_stats_read(nl_process_stats *out, const char *dir, const char *stat_path);
/* process_cpu_seconds_total, process_open_fds, process_max_fds,
 * process_virtual_memory_bytes, process_resident_memory_bytes,
 * process_start_time_seconds from s, appended to out. NL_ENOMEM. */
int nl_process_metrics_render(nl_buf *out, const nl_process_stats *s);
/* The same for this process; nothing (and 0) when /proc cannot be read,
 * as client_golang leaves them out on error. NL_ENOMEM. */
int nl_process_metrics_render_self(nl_buf *out);

#endif
