/* Shared between the dynamic config controller's files: the controller
 * (bootstrap, trial, restart), the config sync (configsync.go, watch.go)
 * and the status (status/status.go). Not installed. */
#ifndef NL_AGENT_CONFIG_INTERNAL_H
#define NL_AGENT_CONFIG_INTERNAL_H

#include <nodelet/config_controller.h>

/* The status as upstream's nodeConfigStatus keeps it. */
typedef struct {
	nl_config_source *assigned, *active, *last_known_good;
	char *error;             /* SetError; NULL = none */
	char *error_override;    /* SetErrorOverride (sync failures); NULL = none */
	int pending;             /* something changed since the last status sync */
	int server_drops_config; /* the API server discards status.config */
} nl__config_status;

struct nl_config_controller {
	nl_clock *clock;
	nl_config_ops ops;
	char *node_name;
	int64_t trial_usec;
	nl_config_transform_fn transform;
	void *transform_payload;
	nl_config_restart_fn restart;
	void *restart_payload;
	uint64_t seed;
	nl_checkpoint_store *store;
	nl__config_status status;
	/* pendingConfigSource */
	int pending_config;
	/* The informers' latest Node and ConfigMap (owned), NULL when none. */
	json_object *node;
	json_object *configmap;
	/* The assigned source at the last bootstrap: what the informer watches. */
	nl_config_source *watch;
	/* The assigned config is in use, so the trial checker runs. */
	int using_assigned;
	nl_jitter_until trial_loop, config_loop, status_loop;
};

/* --- status (config_status.c) -------------------------------------------- */

/* Forget everything, as a new process starts; the next sync is pending. */
void nl__config_status_reset(nl__config_status *st);
/* Setters copy their argument and mark the status pending when it changes.
 * NL_ENOMEM leaves the old value. */
int nl__config_status_set_assigned(nl__config_status *st, const nl_config_source *src);
int nl__config_status_set_active(nl__config_status *st, const nl_config_source *src);
int nl__config_status_set_last_known_good(nl__config_status *st, const nl_config_source *src);
/* error NULL or "" clears it. */
int nl__config_status_set_error(nl__config_status *st, const char *error);
int nl__config_status_set_error_override(nl__config_status *st, const char *error);
/* {"assigned":…, "active":…, "lastKnownGood":…, "error":…}: the override in
 * place of the error when set; absent parts omitted. NULL on ENOMEM. */
json_object *nl__config_status_json(const nl__config_status *st);
/* Which configuration runs, as the condition's message says it ("using
 * current: …", "using last-known-good: …") into out, cut to outlen; returns
 * "assigned", "last-known-good" or "local" (static). */
const char *nl__config_status_using(char *out, size_t outlen, const nl__config_status *st);
/* The status sync step (see nl_config_controller_sync_status). */
int nl__config_status_sync(nl_config_controller *cc);

/* --- config sync (config_sync.c) ------------------------------------------ */

/* Go's err.Error() for a failed API call: the Status message, else the
 * code's name; frees the status. Returns rc. */
int nl__config_call_failed(nl_err *err, int rc, nl_status *status);

#endif
