/* The node conditions the agent reports besides Ready — MemoryPressure,
 * DiskPressure, PIDPressure — computed as kubelet's eviction manager
 * computes them (pkg/kubelet/eviction): signals read from /proc, the
 * cgroup filesystem and statvfs, compared with the hard thresholds, and
 * held True for evictionPressureTransitionPeriod after the last time a
 * threshold was met. The host is read through an nl_host_view so tests
 * give fake files and filesystems. See docs/agent.md "Node conditions". */
#ifndef NODELET_NODE_CONDITIONS_H
#define NODELET_NODE_CONDITIONS_H

#include <stddef.h>
#include <stdint.h>

#include "errors.h"
#include "eviction.h"

/* One filesystem, as statvfs gives it (cAdvisor's FsInfo). */
typedef struct {
	uint64_t capacity_bytes;  /* f_blocks × f_frsize */
	uint64_t available_bytes; /* f_bavail × f_frsize: what non-root may use */
	uint64_t inodes;          /* f_files */
	uint64_t inodes_free;     /* f_ffree */
	uint64_t fsid;            /* f_fsid: tells filesystems apart */
} nl_fs_stats;

/* Where the host is read. Every member may be 0/NULL: the real host. */
typedef struct {
	/* Prefix of the /proc and /sys/fs/cgroup paths read ("/tmp/x" reads
	 * /tmp/x/proc/meminfo); NULL or "" for the host's own. Borrowed. */
	const char *root;
	/* statvfs(2) of path: 0, or an errno value. */
	int (*statfs)(nl_fs_stats *out, const char *path, void *payload);
	/* Whether path is a writable directory: 0, or an errno value
	 * (default access(path, W_OK), which says EROFS for a read-only
	 * mount even to root). */
	int (*writable)(const char *path, void *payload);
	void *payload;
} nl_host_view;

/* memory.available (kubelet: the root cgroup's capacity minus its working
 * set): capacity = MemTotal of /proc/meminfo; working set = usage minus
 * inactive_file of the cgroup's memory.stat, usage being cgroup v2's
 * memory.current, or anon + file at the v2 root (runc's
 * rootStatsFromMeminfo), or v1's memory.usage_in_bytes (minus
 * total_inactive_file); without a cgroup filesystem, Active(anon) +
 * Inactive(anon) + Active(file) of /proc/meminfo, the same pages counted
 * from the LRU lists. out->observed 0 when MemTotal cannot be read. */
void nl_eviction_probe_memory(nl_signal_observation *out, const nl_host_view *v);
/* pid.available (kubelet's pidlimit.Stats): capacity = the smaller of
 * kernel.pid_max and kernel.threads-max, in use = the tasks /proc/loadavg
 * counts (its fourth field's denominator; sysinfo's procs on the real host
 * when unreadable). */
void nl_eviction_probe_pids(nl_signal_observation *out, const nl_host_view *v);
/* Everything: memory, pids, and the filesystems of paths (duplicates of
 * one filesystem counted once, at most NL_EVICTION_MAX_FS); *first_fs is
 * the first path's statfs (zeros when it failed). */
void nl_eviction_probe(nl_eviction_observations *out, nl_fs_stats *first_fs, const nl_host_view *v,
                       const char *const *paths, size_t n_paths);

/* The eviction manager's memory of conditions: when each was last
 * observed (a threshold of it met). */
typedef struct {
	int seen[NL_PRESSURE_COUNT];
	int64_t last_seen[NL_PRESSURE_COUNT]; /* monotonic µs */
} nl_pressure_tracker;

/* One observation at now (monotonic µs): record the conditions whose
 * thresholds obs meets, then out[p] = 1 for each condition seen less than
 * period ago (kubelet's nodeConditionsObservedSince). */
void nl_pressure_tracker_update(nl_pressure_tracker *t, int out[NL_PRESSURE_COUNT],
                                const nl_eviction_threshold *th, size_t n_th,
                                const nl_eviction_observations *obs, int64_t period, int64_t now);

/* The condition type of p ("MemoryPressure") and kubelet's reason and
 * message for it under pressure or not (setters.go). Static strings. */
const char *nl_pressure_condition_type(nl_pressure p);
const char *nl_pressure_reason(nl_pressure p, int under_pressure);
const char *nl_pressure_message(nl_pressure p, int under_pressure);

#endif
