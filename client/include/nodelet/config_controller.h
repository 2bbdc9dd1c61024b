/* The dynamic config controller: a port of kubelet's
 * pkg/kubelet/kubeletconfig controller (the seed, v1.15–v1.21), with its
 * checkpoint store under <dynamic_config_dir>/store.
 *
 * Bootstrap decides which configuration the agent runs: none assigned →
 * the local one; the assigned checkpoint if it loads, passes the transform
 * (explicit flags win) and validates — then it is on trial for 10 minutes
 * (settable) and graduates to last-known-good; otherwise the last-known-good
 * (or the local config when there is none), with the reason in the status.
 *
 * Syncing reads the source from the Node's spec.configSource or, when that
 * is absent, the annotation nodelet.io/config-source (same JSON), downloads
 * the ConfigMap, checkpoints it and records it as assigned. When the
 * assignment changes it posts an Event NodeletConfigChanged and restarts in
 * process: it bootstraps again and hands the result to the agent's restart
 * callback, which restarts its controllers on it (upstream exits for its
 * supervisor to restart it).
 *
 * Status {assigned, active, lastKnownGood, error} goes to the Node in one
 * strategic-merge PATCH of nodes/<name>/status: status.config (dropped by
 * API servers since 1.24; the controller stops sending it once it sees that),
 * a condition NodeletConfigOK and the annotation nodelet.io/config-status
 * (the same JSON), only when it differs from what the Node shows.
 *
 * The controller talks to the API only through nl_config_ops and keeps time
 * only through an nl_clock. The agent's informers (or a scenario) call the
 * _on_* entry points on Node and ConfigMap changes. One controller is used
 * from one thread (the one running its clock's timers). */
#ifndef NODELET_CONFIG_CONTROLLER_H
#define NODELET_CONFIG_CONTROLLER_H

#include <json-c/json.h>
#include <stdint.h>

#include "checkpoint_store.h"
#include "client.h"
#include "clock.h"
#include "config_source.h"
#include "errors.h"
#include "nodelet_config.h"
#include "status.h"

/* Upstream's configTrialDuration. */
#define NL_CONFIG_TRIAL_DURATION_USEC (INT64_C(600) * NL_USEC_PER_SEC)
/* Trial check period (wait.Forever(checkTrial, 10s)). */
#define NL_CONFIG_TRIAL_CHECK_PERIOD_USEC (10 * NL_USEC_PER_SEC)
/* Config and status sync loops: JitterUntil(…, 10s, 0.2, sliding). */
#define NL_CONFIG_SYNC_PERIOD_USEC (10 * NL_USEC_PER_SEC)
#define NL_CONFIG_SYNC_JITTER_FACTOR 0.2

#define NL_CONFIG_STATUS_ANNOTATION "nodelet.io/config-status"
#define NL_CONFIG_CONDITION_TYPE "NodeletConfigOK"
#define NL_CONFIG_CHANGED_EVENT_REASON "NodeletConfigChanged"

/* Status errors: upstream's strings with "Kubelet" → "nodelet". */
#define NL_CONFIG_ERR_LOAD "failed to load config, see nodelet log for details"
#define NL_CONFIG_ERR_VALIDATE "failed to validate config, see nodelet log for details"
#define NL_CONFIG_ERR_ALL_NIL_SUBFIELDS \
	"invalid NodeConfigSource, exactly one subfield must be non-nil, but all were nil"
#define NL_CONFIG_ERR_DOWNLOAD "failed to download config, see nodelet log for details"
#define NL_CONFIG_ERR_INTERNAL "internal failure, see nodelet log for details"
/* Ours: the annotation is not valid JSON or misses a required field. */
#define NL_CONFIG_ERR_ANNOTATION \
	"invalid " NL_CONFIG_SOURCE_ANNOTATION " annotation, see nodelet log for details"
#define NL_CONFIG_SYNC_ERROR_FMT "failed to sync: %s"

/* Condition texts: upstream's ConfigOK condition strings (v1.10–v1.11). */
#define NL_CONFIG_MSG_CURRENT_LOCAL "using current: local"
#define NL_CONFIG_MSG_LKG_LOCAL "using last-known-good: local"
#define NL_CONFIG_MSG_CURRENT_REMOTE_FMT "using current: %s, UID: %s, ResourceVersion: %s"
#define NL_CONFIG_MSG_LKG_REMOTE_FMT "using last-known-good: %s, UID: %s, ResourceVersion: %s"
#define NL_CONFIG_REASON_CURRENT_LOCAL_OK \
	"when the config source is nil, the nodelet uses its local config"
#define NL_CONFIG_REASON_CURRENT_REMOTE_OK "passing all checks"

/* Event messages: upstream's LocalEventMessage / RemoteEventMessageFmt. */
#define NL_CONFIG_EVENT_LOCAL_MESSAGE "nodelet restarting to use local config"
#define NL_CONFIG_EVENT_REMOTE_FMT \
	"nodelet restarting to use %s, UID: %s, ResourceVersion: %s, KubeletConfigKey: %s"

/* The API calls the controller makes; conventions as nl_lease_ops: 0 or a
 * negative NL_E* code (NL_ENOTFOUND for 404); on success *out is a new
 * object owned by the controller; on failure *status (optional) is the
 * server's Status, owned by the controller, whose message is logged. */
typedef struct {
	int (*get_node)(json_object **out, nl_status **status, const char *name, void *payload);
	int (*get_configmap)(json_object **out, nl_status **status, const char *ns,
	                     const char *name, void *payload);
	/* PATCH nodes/<name>/status with a strategic merge patch. */
	int (*patch_node_status)(json_object **out, nl_status **status, const char *name,
	                         const char *patch, size_t len, void *payload);
	/* POST the Event (borrowed) in namespace ns. */
	int (*create_event)(json_object **out, nl_status **status, const char *ns,
	                    json_object *event, void *payload);
	void *payload;
} nl_config_ops;

/* The calls above made with c (borrowed: it must outlive the controller),
 * each server Status handed over as *status: what the nodelet program and
 * the scenario runner use. */
nl_config_ops nl_config_ops_for_client(nl_client *c);

/* After an assignment change: rc is the new bootstrap's result and cfg the
 * configuration to run (NULL = the local configuration), owned by the
 * callee. rc != 0 means even the last-known-good failed to load — kubelet
 * would fail to start; the agent should exit with an error. The callback
 * must not free the controller. */
typedef void (*nl_config_restart_fn)(int rc, nl_nodelet_config *cfg, void *payload);
/* The transform applied after load and before validation; 0 or an NL_E*
 * code with a message in err (reported as an internal failure). */
typedef int (*nl_config_transform_fn)(nl_nodelet_config *cfg, nl_err *err, void *payload);

typedef struct {
	nl_clock *clock;          /* borrowed; must outlive the controller */
	const nl_config_ops *ops; /* copied; all four calls required */
	const char *node_name;    /* required */
	/* Required, absolute: the store lives in <dir>/store. */
	const char *dynamic_config_dir;
	int64_t trial_duration_usec;      /* 0 means 10 minutes */
	nl_config_transform_fn transform; /* may be NULL */
	void *transform_payload;
	nl_config_restart_fn restart; /* may be NULL (the config is freed) */
	void *restart_payload;
	/* Seed of the sync loops' jitter; 0 derives one from the node name. */
	uint64_t jitter_seed;
	/* Tests only: failing filesystem calls for the store (NULL = real). */
	const nl_fs_ops *fs_ops;
} nl_config_controller_options;

typedef struct nl_config_controller nl_config_controller;

/* Copies every string. NL_EINVAL when a required option is missing or the
 * directory is not absolute; NL_ENOMEM. Free with nl_config_controller_free
 * (accepts NULL), which stops it first. */
int nl_config_controller_new(nl_config_controller **out, const nl_config_controller_options *o);
void nl_config_controller_free(nl_config_controller *cc);

/* Upstream's Bootstrap (see above). *out is the configuration to run, NULL
 * for the local one (caller frees). Resets the status as a new process
 * would; starts the trial checker when the assigned config is used. Errors
 * (err says why): the store cannot be initialized or read, or both the
 * assigned and the last-known-good config fail to load. */
int nl_config_controller_bootstrap(nl_nodelet_config **out, nl_config_controller *cc, nl_err *err);

/* Start the config and status sync loops on the clock (StartSync): each
 * runs at once, then every 10 s + up to 20 % jitter; each does work only
 * when signalled, and retries at the next tick after a failure. NL_EINVAL
 * when already started. */
int nl_config_controller_start(nl_config_controller *cc);
/* Stop the loops and the trial checker; a no-op when not started. */
void nl_config_controller_stop(nl_config_controller *cc);

/* --- signals from the agent's informers (watch.go's handlers) ------------- */

/* Node added (old NULL) or updated; objects borrowed. Caches the Node and
 * signals a config sync when it is new or its source (spec.configSource or
 * the annotation) changed. */
void nl_config_controller_on_node(nl_config_controller *cc, json_object *old_node,
                                  json_object *new_node);
/* Node deleted: logged; the loops continue (the agent recreates it). */
void nl_config_controller_on_node_delete(nl_config_controller *cc, json_object *node);
/* The watched ConfigMap was added or updated (cm borrowed, cached for the
 * next download) or deleted (cm NULL: the cache is dropped, the download
 * fails until it is recreated). Each signals a config sync. */
void nl_config_controller_on_configmap(nl_config_controller *cc, json_object *cm);

/* --- one step at a time (tests, the scenario runner's `sync: config`) ----- */

/* Mark the config sync as needed (pokeConfigSourceWorker). */
void nl_config_controller_poke(nl_config_controller *cc);
/* syncConfigSource: when signalled, read the Node's source (the cached Node,
 * else one GET), then reset, or download + checkpoint + set assigned, and
 * restart on a change. 0 when done or nothing to do; on failure the status
 * error override says why, the code is returned and the sync stays
 * signalled. */
int nl_config_controller_sync_config(nl_config_controller *cc);
/* checkTrial: graduate the assigned config to last-known-good once its
 * trial is over. 0, or the store's error. No-op unless the assigned config
 * is the one in use. */
int nl_config_controller_check_trial(nl_config_controller *cc);
/* Status sync: when the status changed, GET the Node and PATCH
 * nodes/<name>/status if the Node shows something else. 0 when done or
 * nothing to do; on failure the sync stays pending. */
int nl_config_controller_sync_status(nl_config_controller *cc);

/* --- state -------------------------------------------------------------- */

/* The status as reported: {"assigned":…, "active":…, "lastKnownGood":…,
 * "error":…} with absent sources and an empty error omitted. New
 * reference; NULL on allocation failure. */
json_object *nl_config_controller_status(const nl_config_controller *cc);
/* The ConfigMap the agent's informer should watch (the assigned source's
 * namespace and name, borrowed until the next sync or bootstrap): 0, or
 * NL_ENOTFOUND when the local config is assigned. */
int nl_config_controller_watch_target(const char **ns_out, const char **name_out,
                                      const nl_config_controller *cc);
/* Whether the assigned config is the one in use and still on trial. */
int nl_config_controller_in_trial(nl_config_controller *cc);
/* The store (borrowed), e.g. for a scenario's assertions. */
nl_checkpoint_store *nl_config_controller_store(nl_config_controller *cc);

#endif
