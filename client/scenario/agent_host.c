/* A scenario's agent (agent_host.h). */
#include "agent_host.h"

#include <nodelet/config_controller.h>
#include <nodelet/configmap.h>
#include <nodelet/log.h>
#include <nodelet/meta.h>
#include <nodelet/node.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

struct nl_scn_agent {
	const nl_scn_agent_options *o;
	nl_nodelet_config *local;
	nl_agent *agent;
	nl_config_controller *cc;
	nl_config_ops ops;
	int running;
	/* What the runner last told the controller (its "informer caches"). */
	json_object *seen_node, *seen_cm;
};

/* The agent's configuration fields (the rest of `agent:` is identity). */
static const char *const config_keys[] = {"leaseDurationSeconds",
                                          "nodeStatusReportFrequency",
                                          "nodeStatusUpdateFrequency",
                                          "registerNode",
                                          "nodeLabels",
                                          "registerWithTaints",
                                          "logVerbosity"};

/* The NodeletConfiguration of `agent:` (its configuration fields),
 * decoded and validated. NL_EPARSE / NL_EINVALID with err set. */
static int agent_config(nl_nodelet_config **out, json_object *agent, nl_err *err)
{
	json_object *doc = json_object_new_object(), *v;
	nl_nodelet_config *cfg = NULL;
	if (!doc)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	json_object_object_add(doc, "apiVersion",
	                       json_object_new_string(NL_NODELET_CONFIG_API_VERSION));
	json_object_object_add(doc, "kind", json_object_new_string(NL_NODELET_CONFIG_KIND));
	for (size_t i = 0; i < sizeof(config_keys) / sizeof(config_keys[0]); i++)
		if (json_object_object_get_ex(agent, config_keys[i], &v))
			json_object_object_add(doc, config_keys[i], json_object_get(v));
	size_t len = 0;
	const char *text = nl_json_compact(doc, &len);
	int rc = nl_nodelet_config_parse(&cfg, text, len, "configuration", err);
	if (rc == 0 && (rc = nl_nodelet_config_validate(cfg, err)) != 0) {
		nl_nodelet_config_free(cfg);
		cfg = NULL;
	}
	json_object_put(doc);
	if (rc == 0)
		*out = cfg;
	return rc;
}

static const char *agent_str(const nl_scn_agent *a, const char *key)
{
	json_object *v;
	return json_object_object_get_ex(a->o->spec->settings, key, &v) ? json_object_get_string(v)
	                                                                : NULL;
}

/* A host that is the same on every machine, so scenarios are too. */
static void fake_host(nl_host_info *h)
{
	memset(h, 0, sizeof(*h));
	snprintf(h->machine_id, sizeof(h->machine_id), "5ce9a1e1d0e44a5b8f3c2b7a6d9e0f11");
	snprintf(h->boot_id, sizeof(h->boot_id), "0b0e1d2c-3b4a-4596-a7b8-c9d0e1f2a3b4");
	snprintf(h->kernel_version, sizeof(h->kernel_version), "6.1.0-scenario");
	snprintf(h->os_image, sizeof(h->os_image), "nodelet scenario");
	snprintf(h->operating_system, sizeof(h->operating_system), "linux");
	snprintf(h->architecture, sizeof(h->architecture), "amd64");
	/* eth0 10.0.0.1 behind the default route: the InternalIP. */
	snprintf(h->addrs[0].ifname, sizeof(h->addrs[0].ifname), "eth0");
	snprintf(h->addrs[0].ip, sizeof(h->addrs[0].ip), "10.0.0.1");
	h->addrs[0].family = AF_INET;
	h->addrs[0].up = 1;
	h->n_addrs = 1;
	snprintf(h->routes[0].ifname, sizeof(h->routes[0].ifname), "eth0");
	h->routes[0].family = AF_INET;
	h->n_routes = 1;
	h->cpus = 2;
	h->memory_bytes = INT64_C(4) << 30;
}

/* Its filesystems: 64 GiB, half free, writable. */
static int fake_statfs(nl_fs_stats *out, const char *path, void *payload)
{
	(void)path;
	(void)payload;
	*out = (nl_fs_stats){INT64_C(64) << 30, INT64_C(32) << 30, 4000000, 2000000, 1};
	return 0;
}

static int fake_writable(const char *path, void *payload)
{
	(void)path;
	(void)payload;
	return 0;
}

/* No /proc under this root: memory and pids are not observed, so the
 * pressure conditions never depend on the machine running the scenario. */
static const nl_host_view fake_view = {"/nonexistent/nodelet-scenario-host", fake_statfs,
                                       fake_writable, NULL};

static void restart_cb(int rc, nl_nodelet_config *cfg, void *payload)
{
	nl_scn_agent *a = payload;
	if (rc != 0) {
		/* kubelet would refuse to start: the agent stops. */
		NL_LOG_ERROR(nl_strerror(rc),
		             "Dynamic config: no configuration can be loaded, stopping");
		nl_scn_agent_stop(a);
	} else if (nl_agent_set_config(a->agent, cfg ? cfg : a->local) != 0) {
		NL_LOG_ERROR("out of memory", "Dynamic config: cannot apply the configuration");
	}
	nl_nodelet_config_free(cfg);
}

static int make_controller(nl_scn_agent *a, nl_err *err)
{
	nl_config_controller_options co = {0};
	nl_nodelet_config *cfg = NULL;
	int rc;
	a->ops = nl_config_ops_for_client(nl_agent_client(a->agent));
	co.clock = a->o->clock;
	co.ops = &a->ops;
	co.node_name = agent_str(a, "nodeName");
	co.dynamic_config_dir = a->o->dynamic_config_dir;
	co.restart = restart_cb;
	co.restart_payload = a;
	co.jitter_seed = a->o->sc->seed;
	if ((rc = nl_config_controller_new(&a->cc, &co)) != 0)
		return nl_err_set(err, rc, "cannot create the dynamic config controller: %s",
		                  nl_strerror(rc));
	if ((rc = nl_config_controller_bootstrap(&cfg, a->cc, err)) != 0)
		return rc;
	if (cfg)
		rc = nl_agent_set_config(a->agent, cfg);
	nl_nodelet_config_free(cfg);
	return rc;
}

/* --- lifecycle ---------------------------------------------------------------------------- */

static int build(nl_scn_agent *a, nl_err *err)
{
	nl_agent_options ao;
	nl_host_info host;
	json_object *v;
	int rc;
	fake_host(&host);
	nl_agent_options_init(&ao);
	ao.node_name = agent_str(a, "nodeName");
	ao.rest_config = a->o->cfg;
	ao.user_agent = a->o->user_agent;
	ao.on_attempt = a->o->on_attempt;
	ao.attempt_payload = a->o->attempt_payload;
	ao.clock = a->o->clock;
	ao.config = a->local;
	ao.lease_name = agent_str(a, "leaseName");
	ao.lease_namespace = agent_str(a, "leaseNamespace");
	ao.host = &host;
	ao.host_view = &fake_view;
	ao.jitter_seed = json_object_object_get_ex(a->o->spec->settings, "jitterSeed", &v)
	                     ? (uint64_t)json_object_get_int64(v)
	                     : a->o->sc->seed;
	if ((rc = nl_agent_new(&a->agent, &ao, err)) != 0)
		return rc;
	if (a->o->dynamic_config_dir && (rc = make_controller(a, err)) != 0)
		return rc;
	return 0;
}

static void teardown(nl_scn_agent *a)
{
	nl_scn_agent_stop(a);
	nl_config_controller_free(a->cc);
	a->cc = NULL;
	nl_agent_free(a->agent);
	a->agent = NULL;
	json_object_put(a->seen_node);
	json_object_put(a->seen_cm);
	a->seen_node = a->seen_cm = NULL;
}

int nl_scn_agent_new(nl_scn_agent **out, const nl_scn_agent_options *o, nl_err *err)
{
	nl_scn_agent *a = calloc(1, sizeof(*a));
	int rc;
	if (!a)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	a->o = o;
	if ((rc = agent_config(&a->local, o->spec->settings, err)) != 0 ||
	    (rc = build(a, err)) != 0) {
		nl_scn_agent_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

void nl_scn_agent_free(nl_scn_agent *a)
{
	if (!a)
		return;
	teardown(a);
	nl_nodelet_config_free(a->local);
	free(a);
}

int nl_scn_agent_start(nl_scn_agent *a)
{
	int rc;
	if (a->running)
		return 0;
	if ((rc = nl_agent_start(a->agent)) != 0)
		return rc;
	if (a->cc && (rc = nl_config_controller_start(a->cc)) != 0) {
		nl_agent_stop(a->agent);
		return rc;
	}
	a->running = 1;
	return 0;
}

void nl_scn_agent_stop(nl_scn_agent *a)
{
	if (!a->running)
		return;
	a->running = 0;
	nl_agent_stop(a->agent);
	if (a->cc)
		nl_config_controller_stop(a->cc);
}

int nl_scn_agent_restart(nl_scn_agent *a, nl_err *err)
{
	int was_running = a->running, rc;
	teardown(a);
	if ((rc = build(a, err)) != 0)
		return rc;
	return was_running ? nl_scn_agent_start(a) : 0;
}

int nl_scn_agent_sync(nl_scn_agent *a, nl_scn_sync_kind k)
{
	int rc;
	switch (k) {
	case NL_SYNC_LEASE:
		return nl_agent_sync_lease(a->agent);
	case NL_SYNC_STATUS:
		return nl_agent_sync_status(a->agent);
	case NL_SYNC_REGISTER:
		return nl_agent_register_node(a->agent);
	default:
		if (!a->cc)
			return NL_EINVAL;
		nl_config_controller_poke(a->cc);
		if ((rc = nl_config_controller_sync_config(a->cc)) != 0)
			return rc;
		/* A restart inside the sync bootstraps in place: the same
		 * controller checks the trial and reports the new status. */
		if ((rc = nl_config_controller_check_trial(a->cc)) != 0)
			return rc;
		return nl_config_controller_sync_status(a->cc);
	}
}

/* --- what informers would deliver ------------------------------------------------------ */

static int changed(json_object *old, json_object *now)
{
	const char *a = old ? nl_meta_resource_version(old) : NULL;
	const char *b = now ? nl_meta_resource_version(now) : NULL;
	if (!a || !b)
		return a != b;
	return strcmp(a, b) != 0 || strcmp(nl_meta_uid(old) ? nl_meta_uid(old) : "",
	                                   nl_meta_uid(now) ? nl_meta_uid(now) : "") != 0;
}

static void observe_node(nl_scn_agent *a, nl_client *reader)
{
	json_object *node = NULL;
	if (nl_node_get(&node, reader, agent_str(a, "nodeName"), NULL) != 0)
		node = NULL;
	if (!changed(a->seen_node, node)) {
		json_object_put(node);
		return;
	}
	if (node)
		nl_config_controller_on_node(a->cc, a->seen_node, node);
	else
		nl_config_controller_on_node_delete(a->cc, a->seen_node);
	json_object_put(a->seen_node);
	a->seen_node = node;
}

static void observe_configmap(nl_scn_agent *a, nl_client *reader)
{
	const char *ns = NULL, *name = NULL;
	json_object *cm = NULL;
	if (nl_config_controller_watch_target(&ns, &name, a->cc) != 0) {
		json_object_put(a->seen_cm);
		a->seen_cm = NULL;
		return;
	}
	if (nl_configmap_get(&cm, reader, ns, name, NULL) != 0)
		cm = NULL;
	/* Another ConfigMap than the one seen: the informer was retargeted. */
	if (a->seen_cm && (strcmp(nl_meta_name(a->seen_cm), name) != 0 ||
	                   strcmp(nl_meta_namespace(a->seen_cm), ns) != 0)) {
		json_object_put(a->seen_cm);
		a->seen_cm = NULL;
	}
	if (!changed(a->seen_cm, cm)) {
		json_object_put(cm);
		return;
	}
	nl_config_controller_on_configmap(a->cc, cm);
	json_object_put(a->seen_cm);
	a->seen_cm = cm;
}

void nl_scn_agent_observe(nl_scn_agent *a, nl_client *reader)
{
	if (!a->cc)
		return;
	observe_node(a, reader);
	observe_configmap(a, reader);
}

/* --- state ------------------------------------------------------------------------------------ */

nl_agent *nl_scn_agent_agent(const nl_scn_agent *a)
{
	return a->agent;
}

static json_object *copy_or_null(json_object *v)
{
	json_object *c = NULL;
	return v && json_object_deep_copy(v, &c, NULL) == 0 ? c : NULL;
}

static json_object *sleeps(nl_clock *clock)
{
	json_object *arr = json_object_new_array();
	size_t n = 0;
	const int64_t *s = nl_clock_fake_sleeps(clock, &n, NULL);
	for (size_t i = 0; s && i < n; i++) {
		char d[NL_DURATION_BUFSZ];
		nl_duration_format(d, s[i]);
		json_object_array_add(arr, json_object_new_string(d));
	}
	return arr;
}

json_object *nl_scn_agent_state(nl_scn_agent *a)
{
	json_object *st = json_object_new_object();
	nl_agent *ag = a->agent;
	const char *rv = nl_agent_lease_resource_version(ag);
	json_object_object_add(st, "registered", json_object_new_boolean(nl_agent_registered(ag)));
	json_object_object_add(st, "running", json_object_new_boolean(a->running));
	json_object_object_add(st, "leaseCached",
	                       json_object_new_boolean(nl_agent_lease(ag) != NULL));
	json_object_object_add(st, "leaseResourceVersion", rv ? json_object_new_string(rv) : NULL);
	json_object_object_add(st, "lease", copy_or_null(nl_agent_lease(ag)));
	json_object_object_add(st, "heartbeatFailures",
	                       json_object_new_int64((int64_t)nl_agent_heartbeat_failures(ag)));
	json_object_object_add(st, "statusReports",
	                       json_object_new_int64((int64_t)nl_agent_status_reports(ag)));
	json_object_object_add(st, "leaseDurationSeconds",
	                       json_object_new_int(nl_agent_config(ag)->lease_duration_seconds));
	json_object_object_add(st, "sleeps", sleeps(a->o->clock));
	if (a->cc) {
		json_object_object_add(st, "config", nl_config_controller_status(a->cc));
		json_object_object_add(
		    st, "inTrial", json_object_new_boolean(nl_config_controller_in_trial(a->cc)));
	}
	return st;
}

void nl_scn_agent_clear_sleeps(nl_scn_agent *a)
{
	nl_clock_fake_clear_sleeps(a->o->clock);
}
