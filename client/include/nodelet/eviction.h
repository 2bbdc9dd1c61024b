/* Eviction signals and hard thresholds, as kubelet's eviction manager has
 * them (pkg/kubelet/eviction/api, helpers.go): what the configuration's
 * `evictionHard` map holds, and which node condition a threshold met
 * raises. nodelet evicts nothing; it only reports the conditions
 * (docs/agent.md "Node conditions"). */
#ifndef NODELET_EVICTION_H
#define NODELET_EVICTION_H

#include <stddef.h>
#include <stdint.h>

#include "errors.h"

/* kubelet's eviction signals, in its order. */
typedef enum {
	NL_SIGNAL_MEMORY_AVAILABLE,             /* memory.available */
	NL_SIGNAL_ALLOCATABLE_MEMORY_AVAILABLE, /* allocatableMemory.available */
	NL_SIGNAL_NODEFS_AVAILABLE,             /* nodefs.available */
	NL_SIGNAL_NODEFS_INODES_FREE,           /* nodefs.inodesFree */
	NL_SIGNAL_IMAGEFS_AVAILABLE,            /* imagefs.available */
	NL_SIGNAL_IMAGEFS_INODES_FREE,          /* imagefs.inodesFree */
	NL_SIGNAL_CONTAINERFS_AVAILABLE,        /* containerfs.available */
	NL_SIGNAL_CONTAINERFS_INODES_FREE,      /* containerfs.inodesFree */
	NL_SIGNAL_PID_AVAILABLE,                /* pid.available */
	NL_SIGNAL_COUNT
} nl_eviction_signal;

/* The node conditions a threshold can raise, in kubelet's status order
 * (Ready, last, is not one of them). */
typedef enum {
	NL_PRESSURE_MEMORY, /* MemoryPressure */
	NL_PRESSURE_DISK,   /* DiskPressure */
	NL_PRESSURE_PID,    /* PIDPressure */
	NL_PRESSURE_COUNT
} nl_pressure;

/* kubelet's Linux DefaultEvictionHard, used when the configuration has no
 * evictionHard: memory.available<100Mi, nodefs.available<10%,
 * nodefs.inodesFree<5%, imagefs.available<15%. No pid.available. */
#define NL_EVICTION_HARD_DEFAULTS                                           \
	{                                                                   \
		{"memory.available", "100Mi"}, {"nodefs.available", "10%"}, \
		    {"nodefs.inodesFree", "5%"},                            \
		{                                                           \
			"imagefs.available", "15%"                          \
		}                                                           \
	}
#define NL_EVICTION_HARD_N_DEFAULTS 4
/* kubelet's evictionPressureTransitionPeriod default: 5 minutes. */
#define NL_EVICTION_DEFAULT_PRESSURE_TRANSITION_PERIOD_USEC (INT64_C(300) * INT64_C(1000000))

typedef struct {
	nl_eviction_signal signal;
	int is_percent;   /* percent of the signal's capacity, else quantity */
	double percent;   /* 0 < percent < 1 */
	int64_t quantity; /* > 0: bytes, inodes or pids */
} nl_eviction_threshold;

/* The signal's name ("memory.available") and back; the name is static.
 * nl_eviction_signal_parse: 0, or NL_ENOTFOUND for an unknown name. */
const char *nl_eviction_signal_name(nl_eviction_signal s);
int nl_eviction_signal_parse(nl_eviction_signal *out, const char *name);
/* The condition a signal's threshold raises (kubelet's signalToNodeCondition). */
nl_pressure nl_eviction_signal_pressure(nl_eviction_signal s);

/* One `evictionHard` entry (kubelet's parseThresholdStatement): name is a
 * signal, value a resource.Quantity ("100Mi", "1.5Gi", "1000") or a
 * percentage ("10%"). 0 with *out set; 1 when the entry disables the
 * signal ("0%" and "100%", as kubelet ignores them: no threshold); or
 * NL_EINVALID with kubelet's message in err ("unsupported eviction signal
 * foo", "eviction percentage threshold nodefs.available must be <= 100%:
 * 110%", "eviction threshold memory.available must be positive: 0"). */
int nl_eviction_threshold_parse(nl_eviction_threshold *out, const char *name, const char *value,
                                nl_err *err);

/* resource.ParseQuantity then Value(): the integer value of a Kubernetes
 * quantity, rounded up ("100Mi" 104857600, "1.5k" 1500, "1e3" 1000, "100m"
 * 1). 0 or NL_EINVALID (a bad number or suffix, an overflow). */
int nl_quantity_parse(int64_t *out, const char *s);

/* What the signals measure at one moment (kubelet's signalObservations):
 * available and capacity per signal, `observed` 0 when it could not be
 * measured (a threshold on it is then never met, as kubelet skips it).
 * Disk signals may be measured on several filesystems; each is a row. */
#define NL_EVICTION_MAX_FS 4
typedef struct {
	int observed;
	int64_t available;
	int64_t capacity;
} nl_signal_observation;

typedef struct {
	nl_signal_observation memory; /* memory.available */
	nl_signal_observation pid;    /* pid.available */
	/* Per filesystem: bytes and inodes (nodefs = imagefs = containerfs). */
	nl_signal_observation fs_bytes[NL_EVICTION_MAX_FS];
	nl_signal_observation fs_inodes[NL_EVICTION_MAX_FS];
	size_t n_fs;
} nl_eviction_observations;

/* Whether threshold t is met by obs (kubelet's thresholdsMet: available
 * below the quantity, or below percent × capacity rounded down); a disk
 * signal is met when it is met on any filesystem. */
int nl_eviction_threshold_met(const nl_eviction_threshold *t, const nl_eviction_observations *obs);

#endif
