/* --dynamic-config-dir: the dynamic config controller (config_controller.h)
 * on the agent's client and loop. Informers on the Node and on the assigned
 * ConfigMap feed it (kubelet's watch.go: both by metadata.name); its
 * restarts hand the new configuration to the running agent instead of
 * exiting for a supervisor. */
#include <limits.h>
#include <nodelet/api.h>
#include <nodelet/config_controller.h>
#include <nodelet/informer.h>
#include <nodelet/log.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_internal.h"

struct nl__dynconfig {
	nl_agent *agent;
	nl_config_controller *cc;
	nl_nodelet_config *local;
	const nl_nodelet_config *flags;
	nl_informer *node_informer;
	nl_informer *cm_informer;
	char *cm_ns, *cm_name; /* what cm_informer watches */
	int failed;
};

/* --- informers ---------------------------------------------------------------------------- */

static void node_added(json_object *obj, void *payload)
{
	nl__dynconfig *d = payload;
	nl_config_controller_on_node(d->cc, NULL, obj);
}

static void node_updated(json_object *old_obj, json_object *new_obj, void *payload)
{
	nl__dynconfig *d = payload;
	nl_config_controller_on_node(d->cc, old_obj, new_obj);
}

static void node_deleted(json_object *obj, void *payload)
{
	nl__dynconfig *d = payload;
	nl_config_controller_on_node_delete(d->cc, obj);
}

static void cm_added(json_object *obj, void *payload)
{
	nl__dynconfig *d = payload;
	nl_config_controller_on_configmap(d->cc, obj);
}

static void cm_updated(json_object *old_obj, json_object *new_obj, void *payload)
{
	nl__dynconfig *d = payload;
	(void)old_obj;
	nl_config_controller_on_configmap(d->cc, new_obj);
}

static void cm_deleted(json_object *obj, void *payload)
{
	nl__dynconfig *d = payload;
	(void)obj;
	nl_config_controller_on_configmap(d->cc, NULL);
}

static void informer_error(const nl_result *res, void *payload)
{
	(void)payload;
	NL_LOG_V(2, "Dynamic config informer failed, retrying", NL_KV_STR("err", res->message));
}

static int start_informer(nl_informer **out, nl__dynconfig *d, const char *path, const char *name,
                          nl_informer_handlers h)
{
	char selector[320];
	nl_informer_options o = {0};
	snprintf(selector, sizeof(selector), "metadata.name=%s", name);
	o.path = path;
	o.field_selector = selector;
	o.handlers = h;
	o.on_error = informer_error;
	o.payload = d;
	return nl_informer_start(out, nl_agent_client(d->agent), &o);
}

static int same(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* Watch the assigned ConfigMap, or none with the local config assigned. */
static int retarget_configmap(nl__dynconfig *d)
{
	static const nl_informer_handlers h = {cm_added, cm_updated, cm_deleted};
	const char *ns = NULL, *name = NULL;
	char path[1024];
	int rc;
	if (nl_config_controller_watch_target(&ns, &name, d->cc) != 0)
		ns = name = NULL;
	if (same(ns, d->cm_ns) && same(name, d->cm_name))
		return 0;
	nl_informer_stop(d->cm_informer);
	d->cm_informer = NULL;
	free(d->cm_ns);
	free(d->cm_name);
	d->cm_ns = d->cm_name = NULL;
	if (!name)
		return 0;
	if (!(d->cm_ns = strdup(ns)) || !(d->cm_name = strdup(name)))
		return NL_ENOMEM;
	if ((rc = nl_api_path(path, sizeof(path), &nl_resource_configmaps, ns, NULL, NULL)) != 0)
		return rc;
	return start_informer(&d->cm_informer, d, path, name, h);
}

/* --- transform and restart ---------------------------------------------------------------- */

static int transform(nl_nodelet_config *cfg, nl_err *err, void *payload)
{
	nl__dynconfig *d = payload;
	int rc = nl_nodelet_config_apply_flags(cfg, d->flags);
	return rc ? nl_err_set(err, rc, "cannot apply the command-line flags: %s", nl_strerror(rc))
	          : 0;
}

static void restart(int rc, nl_nodelet_config *cfg, void *payload)
{
	nl__dynconfig *d = payload;
	if (rc != 0) {
		/* kubelet would fail to start: stop the agent, exit non-zero. */
		NL_LOG_ERROR(nl_strerror(rc),
		             "Dynamic config: no configuration can be loaded, stopping");
		d->failed = 1;
		nl_agent_shutdown(d->agent);
		nl_nodelet_config_free(cfg);
		return;
	}
	/* The controller logged which configuration (assigned, last-known-good
	 * or local) this is. */
	const nl_nodelet_config *use = cfg ? cfg : d->local;
	if (nl_agent_set_config(d->agent, use) != 0)
		NL_LOG_ERROR("out of memory", "Dynamic config: cannot apply the configuration");
	nl_log_set_verbosity(use->log_verbosity);
	nl_nodelet_config_free(cfg);
	if (retarget_configmap(d) != 0)
		NL_LOG_ERROR(NULL, "Dynamic config: cannot watch the assigned ConfigMap");
}

/* --- lifecycle ------------------------------------------------------------------------------- */

/* The controller wants an absolute directory. */
static int absolute(char *out, size_t outlen, const char *dir)
{
	char cwd[PATH_MAX];
	if (dir[0] == '/')
		return snprintf(out, outlen, "%s", dir) < (int)outlen ? 0 : NL_ETOOBIG;
	if (!getcwd(cwd, sizeof(cwd)))
		return NL_EIO;
	return snprintf(out, outlen, "%s/%s", cwd, dir) < (int)outlen ? 0 : NL_ETOOBIG;
}

static int bootstrap(nl__dynconfig *d)
{
	nl_nodelet_config *cfg = NULL;
	nl_err err = {0};
	int rc = nl_config_controller_bootstrap(&cfg, d->cc, &err);
	if (rc != 0) {
		NL_LOG_ERROR(err.msg, "Dynamic config: bootstrap failed");
		return rc;
	}
	if (cfg) {
		rc = nl_agent_set_config(d->agent, cfg);
		nl_log_set_verbosity(cfg->log_verbosity);
		nl_nodelet_config_free(cfg);
	}
	return rc;
}

int nl__dynconfig_start(nl__dynconfig **out, nl_agent *a, const char *dir,
                        const nl_nodelet_config *local, const nl_nodelet_config *flags)
{
	static const nl_informer_handlers node_handlers = {node_added, node_updated, node_deleted};
	char abs[PATH_MAX], path[256];
	nl_config_controller_options o = {0};
	nl__dynconfig *d = calloc(1, sizeof(*d));
	int rc = NL_ENOMEM;
	nl_config_ops ops = nl_config_ops_for_client(nl_agent_client(a));
	if (!d || nl_nodelet_config_copy(&d->local, local) != 0)
		goto fail;
	d->agent = a;
	d->flags = flags;
	if ((rc = absolute(abs, sizeof(abs), dir)) != 0) {
		NL_LOG_ERROR(nl_strerror(rc), "Invalid --dynamic-config-dir",
		             NL_KV_STR("dir", dir));
		goto fail;
	}
	o.clock = nl_agent_clock(a);
	o.ops = &ops;
	o.node_name = nl_agent_node_name(a);
	o.dynamic_config_dir = abs;
	o.transform = transform;
	o.transform_payload = d;
	o.restart = restart;
	o.restart_payload = d;
	if ((rc = nl_config_controller_new(&d->cc, &o)) != 0) {
		NL_LOG_ERROR(nl_strerror(rc), "Cannot create the dynamic config controller");
		goto fail;
	}
	if ((rc = bootstrap(d)) != 0 ||
	    (rc = nl_api_path(path, sizeof(path), &nl_resource_nodes, NULL, NULL, NULL)) != 0 ||
	    (rc = start_informer(&d->node_informer, d, path, nl_agent_node_name(a),
	                         node_handlers)) != 0 ||
	    (rc = retarget_configmap(d)) != 0)
		goto fail;
	*out = d;
	return 0;
fail:
	nl__dynconfig_stop(d);
	return rc;
}

int nl__dynconfig_run(nl__dynconfig *d)
{
	return nl_config_controller_start(d->cc);
}

int nl__dynconfig_stop(nl__dynconfig *d)
{
	if (!d)
		return 0;
	int rc = d->failed ? NL_ECONFIG : 0;
	nl_informer_stop(d->node_informer);
	nl_informer_stop(d->cm_informer);
	nl_config_controller_free(d->cc);
	nl_nodelet_config_free(d->local);
	free(d->cm_ns);
	free(d->cm_name);
	free(d);
	return rc;
}

nl_config_controller *nl__dynconfig_controller(nl__dynconfig *d)
{
	return d ? d->cc : NULL;
}
