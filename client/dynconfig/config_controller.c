/* Port of kubelet's dynamic config controller (pkg/kubelet/kubeletconfig/
 * controller.go, the seed): construction, Bootstrap, loadConfig, the trial
 * and graduation to last-known-good, and the sync loops. Config sync is in
 * config_sync.c, status in config_status.c. */
#include "config_internal.h"

#include <nodelet/log.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STORE_DIR "store"

/* --- construction --------------------------------------------------------------- */

static uint64_t seed_from(const char *s)
{
	uint64_t h = UINT64_C(1469598103934665603); /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
	return h;
}

static int check_options(const nl_config_controller_options *o)
{
	const nl_config_ops *ops = o ? o->ops : NULL;
	if (!o || !o->clock || !ops || !ops->get_node || !ops->get_configmap ||
	    !ops->patch_node_status || !ops->create_event || !o->node_name || !*o->node_name ||
	    !o->dynamic_config_dir || o->dynamic_config_dir[0] != '/' || o->trial_duration_usec < 0)
		return NL_EINVAL;
	return 0;
}

int nl_config_controller_new(nl_config_controller **out, const nl_config_controller_options *o)
{
	char *store_dir = NULL;
	if (check_options(o) != 0)
		return NL_EINVAL;
	nl_config_controller *cc = calloc(1, sizeof(*cc));
	if (!cc)
		return NL_ENOMEM;
	cc->clock = o->clock;
	cc->ops = *o->ops;
	cc->trial_usec =
	    o->trial_duration_usec ? o->trial_duration_usec : NL_CONFIG_TRIAL_DURATION_USEC;
	cc->transform = o->transform;
	cc->transform_payload = o->transform_payload;
	cc->restart = o->restart;
	cc->restart_payload = o->restart_payload;
	cc->seed = o->jitter_seed ? o->jitter_seed : seed_from(o->node_name);
	cc->status.pending = 1;
	cc->node_name = strdup(o->node_name);
	if (asprintf(&store_dir, "%s/" STORE_DIR, o->dynamic_config_dir) < 0)
		store_dir = NULL;
	if (!cc->node_name || !store_dir ||
	    nl_checkpoint_store_new(&cc->store, store_dir, o->clock, o->fs_ops) != 0) {
		free(store_dir);
		free(cc->node_name);
		free(cc);
		return NL_ENOMEM;
	}
	free(store_dir);
	*out = cc;
	return 0;
}

void nl_config_controller_free(nl_config_controller *cc)
{
	if (!cc)
		return;
	nl_config_controller_stop(cc);
	nl__config_status_reset(&cc->status);
	nl_checkpoint_store_free(cc->store);
	nl_config_source_free(cc->watch);
	json_object_put(cc->node);
	json_object_put(cc->configmap);
	free(cc->node_name);
	free(cc);
}

/* --- loadConfig -------------------------------------------------------------------- */

/* Load from the checkpoint, transform, validate. On failure *reason is the
 * status text and err the detail for the log. */
static int load_config(nl_nodelet_config **out, const char **reason, nl_config_controller *cc,
                       const nl_config_source *src, nl_err *err)
{
	nl_nodelet_config *cfg = NULL;
	char *data = NULL, name[600];
	size_t len = 0;
	int rc = nl_checkpoint_store_load(&data, &len, cc->store, src, err);
	*reason = NL_CONFIG_ERR_LOAD;
	if (rc != 0)
		return rc;
	snprintf(name, sizeof(name), "%s/checkpoints/%s/%s/%s", nl_checkpoint_store_dir(cc->store),
	         src->uid, src->resource_version, src->kubelet_config_key);
	rc = nl_nodelet_config_parse(&cfg, data, len, name, err);
	free(data);
	if (rc != 0)
		return rc;
	if (cc->transform && (rc = cc->transform(cfg, err, cc->transform_payload)) != 0) {
		*reason = NL_CONFIG_ERR_INTERNAL;
		nl_nodelet_config_free(cfg);
		return rc;
	}
	if ((rc = nl_nodelet_config_validate(cfg, err)) != 0) {
		*reason = NL_CONFIG_ERR_VALIDATE;
		nl_nodelet_config_free(cfg);
		return rc;
	}
	*out = cfg;
	return 0;
}

/* --- trial ------------------------------------------------------------------------ */

static int in_trial(int *out, nl_config_controller *cc, nl_err *err)
{
	int64_t t;
	int rc = nl_checkpoint_store_assigned_modified(&t, cc->store, err);
	if (rc == 0)
		*out = nl_clock_now(cc->clock) - t <= cc->trial_usec;
	return rc;
}

/* graduateAssignedToLastKnownGood */
static int graduate(nl_config_controller *cc, nl_err *err)
{
	nl_config_source *assigned = NULL, *lkg = NULL;
	char api[512];
	int rc = nl_checkpoint_store_assigned(&assigned, cc->store, err);
	if (rc == 0)
		rc = nl_checkpoint_store_last_known_good(&lkg, cc->store, err);
	if (rc == 0 && !nl_config_source_equal(assigned, lkg)) {
		rc = nl_checkpoint_store_set_last_known_good(cc->store, assigned, err);
		if (rc == 0)
			rc = nl__config_status_set_last_known_good(&cc->status, assigned);
		if (rc == 0 && assigned) {
			nl_config_source_api_path(api, sizeof(api), assigned);
			NL_LOG_INFO("Updated last-known-good config", NL_KV_STR("source", api),
			            NL_KV_STR("UID", assigned->uid),
			            NL_KV_STR("resourceVersion", assigned->resource_version));
		}
	}
	nl_config_source_free(assigned);
	nl_config_source_free(lkg);
	return rc;
}

int nl_config_controller_check_trial(nl_config_controller *cc)
{
	nl_err err = {0};
	int trial = 1;
	if (!cc->using_assigned)
		return 0;
	int rc = in_trial(&trial, cc, &err);
	if (rc != 0) {
		NL_LOG_ERROR(err.msg, "Failed to check trial period for assigned config");
		return rc;
	}
	if (!trial && (rc = graduate(cc, &err)) != 0)
		NL_LOG_ERROR(err.msg, "Failed to set last-known-good to assigned config");
	return rc;
}

int nl_config_controller_in_trial(nl_config_controller *cc)
{
	int trial = 0;
	return cc->using_assigned && in_trial(&trial, cc, NULL) == 0 && trial;
}

static void trial_tick(void *payload)
{
	nl_config_controller_check_trial(payload);
}

/* --- Bootstrap --------------------------------------------------------------------- */

/* Use the assigned config: active = assigned, and check its trial every 10 s
 * (wait.Forever runs the check once at the start). */
static int use_assigned(nl_config_controller *cc, const nl_config_source *assigned)
{
	int rc = nl__config_status_set_active(&cc->status, assigned);
	if (rc == 0)
		rc = nl_jitter_until_start(&cc->trial_loop, cc->clock,
		                           NL_CONFIG_TRIAL_CHECK_PERIOD_USEC, 0.0, 1, cc->seed,
		                           trial_tick, cc);
	cc->using_assigned = rc == 0;
	return rc;
}

/* The assigned config failed: report why, fall back to last-known-good (or
 * the local config when there is none). */
static int roll_back(nl_nodelet_config **out, nl_config_controller *cc, const char *reason,
                     const nl_config_source *lkg, nl_err *err)
{
	const char *lkg_reason;
	int rc = nl__config_status_set_error(&cc->status, reason);
	if (rc != 0 || !lkg)
		return rc;
	rc = load_config(out, &lkg_reason, cc, lkg, err);
	if (rc == 0)
		rc = nl__config_status_set_active(&cc->status, lkg);
	return rc;
}

static int remember_watch(nl_config_controller *cc, const nl_config_source *assigned)
{
	nl_config_source *copy = NULL;
	if (nl_config_source_dup(&copy, assigned) != 0)
		return NL_ENOMEM;
	nl_config_source_free(cc->watch);
	cc->watch = copy;
	return 0;
}

int nl_config_controller_bootstrap(nl_nodelet_config **out, nl_config_controller *cc, nl_err *err)
{
	nl_config_source *assigned = NULL, *lkg = NULL;
	nl_nodelet_config *cfg = NULL;
	const char *reason = NULL;
	nl_err why = {0};
	NL_LOG_INFO("Starting controller");
	nl_jitter_until_stop(&cc->trial_loop);
	cc->using_assigned = 0;
	nl__config_status_reset(&cc->status);
	NL_LOG_INFO("Ensuring filesystem is set up correctly");
	int rc = nl_checkpoint_store_initialize(cc->store, err);
	if (rc == 0)
		rc = nl_checkpoint_store_assigned(&assigned, cc->store, err);
	if (rc == 0)
		rc = nl_checkpoint_store_last_known_good(&lkg, cc->store, err);
	if (rc == 0 && (nl__config_status_set_assigned(&cc->status, assigned) != 0 ||
	                nl__config_status_set_last_known_good(&cc->status, lkg) != 0 ||
	                remember_watch(cc, assigned) != 0))
		rc = nl_err_set(err, NL_ENOMEM, "out of memory");
	if (rc != 0 || !assigned)
		goto done;
	rc = load_config(&cfg, &reason, cc, assigned, &why);
	if (rc == 0) {
		if ((rc = use_assigned(cc, assigned)) != 0)
			nl_err_set(err, rc, "cannot start the trial checker");
		goto done;
	}
	/* Assert: the assigned config failed to load or validate. */
	NL_LOG_ERROR(why.msg, "Assigned config failed", NL_KV_STR("reason", reason));
	rc = roll_back(&cfg, cc, reason, lkg, err);
done:
	nl_config_source_free(assigned);
	nl_config_source_free(lkg);
	if (rc != 0) {
		nl_nodelet_config_free(cfg);
		return rc;
	}
	*out = cfg;
	return 0;
}

/* --- loops and state -------------------------------------------------------------- */

static void config_tick(void *payload)
{
	nl_config_controller_sync_config(payload);
}

static void status_tick(void *payload)
{
	nl__config_status_sync(payload);
}

int nl_config_controller_start(nl_config_controller *cc)
{
	if (cc->config_loop.running || cc->status_loop.running)
		return NL_EINVAL;
	/* Without an informer's first ADD nothing would signal the first sync. */
	nl_config_controller_poke(cc);
	int rc =
	    nl_jitter_until_start(&cc->status_loop, cc->clock, NL_CONFIG_SYNC_PERIOD_USEC,
	                          NL_CONFIG_SYNC_JITTER_FACTOR, 1, cc->seed ^ 1, status_tick, cc);
	if (rc == 0)
		rc = nl_jitter_until_start(&cc->config_loop, cc->clock, NL_CONFIG_SYNC_PERIOD_USEC,
		                           NL_CONFIG_SYNC_JITTER_FACTOR, 1, cc->seed ^ 2,
		                           config_tick, cc);
	if (rc != 0)
		nl_jitter_until_stop(&cc->status_loop);
	return rc;
}

void nl_config_controller_stop(nl_config_controller *cc)
{
	nl_jitter_until_stop(&cc->config_loop);
	nl_jitter_until_stop(&cc->status_loop);
	nl_jitter_until_stop(&cc->trial_loop);
}

int nl_config_controller_sync_status(nl_config_controller *cc)
{
	return nl__config_status_sync(cc);
}

json_object *nl_config_controller_status(const nl_config_controller *cc)
{
	return nl__config_status_json(&cc->status);
}

int nl_config_controller_watch_target(const char **ns_out, const char **name_out,
                                      const nl_config_controller *cc)
{
	if (!cc->watch)
		return NL_ENOTFOUND;
	*ns_out = cc->watch->namespace_;
	*name_out = cc->watch->name;
	return 0;
}

nl_checkpoint_store *nl_config_controller_store(nl_config_controller *cc)
{
	return cc->store;
}
