/* The agent's node conditions: what the host shows at each status sync
 * (eviction_signals.c), the pressure it makes under the configuration's
 * thresholds (node_conditions.c), the Ready self-check, and the four
 * conditions written into a Node the way kubelet's setters write them. */
#include <errno.h>
#include <nodelet/log.h>
#include <nodelet/node.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_internal.h"

const char *const nl__agent_condition_types[4] = {"MemoryPressure", "DiskPressure", "PIDPressure",
                                                  "Ready"};

int nl__agent_conditions_init(nl_agent *a, const nl_agent_options *o)
{
	if (o->host_view) {
		a->view = *o->host_view;
		if (o->host_view->root && !(a->view_root = strdup(o->host_view->root)))
			return NL_ENOMEM;
		a->view.root = a->view_root;
	}
	for (size_t i = 0; i < o->n_state_dirs && i < NL_AGENT_MAX_STATE_DIRS; i++) {
		if (!(a->state_dirs[i] = strdup(o->state_dirs[i])))
			return NL_ENOMEM;
		a->n_state_dirs = i + 1;
	}
	nl__agent_thresholds_load(a);
	return 0;
}

void nl__agent_conditions_free(nl_agent *a)
{
	free(a->view_root);
	for (size_t i = 0; i < a->n_state_dirs; i++)
		free(a->state_dirs[i]);
}

/* The configuration was validated: an entry that does not parse is one
 * that disables its signal ("0%", "100%"). */
void nl__agent_thresholds_load(nl_agent *a)
{
	a->n_thresholds = 0;
	for (size_t i = 0; i < a->config->n_eviction_hard && a->n_thresholds < NL_SIGNAL_COUNT;
	     i++) {
		const nl_label *l = &a->config->eviction_hard[i];
		if (nl_eviction_threshold_parse(&a->thresholds[a->n_thresholds], l->key, l->value,
		                                NULL) == 0)
			a->n_thresholds++;
	}
}

int64_t nl__agent_eviction_reservation(const nl_agent *a, nl_eviction_signal s, int64_t capacity)
{
	int64_t r = 0;
	/* The last one of a signal wins, as kubelet's map would hold one. */
	for (size_t i = 0; i < a->n_thresholds; i++)
		if (a->thresholds[i].signal == s)
			r = a->thresholds[i].is_percent
			        ? (int64_t)((double)capacity * a->thresholds[i].percent)
			        : a->thresholds[i].quantity;
	return r;
}

static int writable(const nl_agent *a, const char *dir)
{
	if (a->view.writable)
		return a->view.writable(dir, a->view.payload);
	return access(dir, W_OK) == 0 ? 0 : errno;
}

/* One more error into a->not_ready, ", "-separated. */
static void add_error(nl_agent *a, size_t *n, size_t *used, const char *one)
{
	size_t room = sizeof(a->not_ready) - *used;
	int w = snprintf(a->not_ready + *used, room, "%s%s", *n ? ", " : "", one);
	if (w > 0)
		*used += (size_t)w < room ? (size_t)w : room - 1;
	(*n)++;
}

/* kubelet's ReadyCondition requires cpu, memory, pods and ephemeral-storage
 * in capacity; pods is always "0" here. "" when none is missing. */
static void missing_capacity(char *out, size_t outlen, const nl_agent *a)
{
	const char *names[3];
	size_t n = 0, used;
	if (a->host.cpus <= 0)
		names[n++] = "cpu";
	if (a->host.memory_bytes <= 0)
		names[n++] = "memory";
	if (a->ephemeral_storage_bytes <= 0)
		names[n++] = "ephemeral-storage";
	out[0] = '\0';
	if (n == 0)
		return;
	used = (size_t)snprintf(out, outlen, "missing node capacity for resources: ");
	for (size_t i = 0; i < n && used < outlen; i++)
		used +=
		    (size_t)snprintf(out + used, outlen - used, "%s%s", i ? ", " : "", names[i]);
}

/* Ready's self-check: each state directory writable, then the capacities
 * kubelet requires. The message is the errors as Go's utilerrors
 * aggregate prints them ("[a, b]" for several). */
static void self_check(nl_agent *a)
{
	char one[256];
	size_t n = 0, used = 0;
	a->not_ready[0] = '\0';
	for (size_t i = 0; i < a->n_state_dirs; i++) {
		int e = writable(a, a->state_dirs[i]);
		if (e == 0)
			continue;
		snprintf(one, sizeof(one), "state directory %s is not writable: %s",
		         a->state_dirs[i], strerror(e));
		add_error(a, &n, &used, one);
	}
	/* kubelet's ReadyCondition: the shutdown manager's error after the
	 * runtime's, network's and storage's, before missing capacity. */
	if (a->shutting_down)
		add_error(a, &n, &used, NL_SHUTDOWN_NOT_READY_MESSAGE);
	missing_capacity(one, sizeof(one), a);
	if (one[0])
		add_error(a, &n, &used, one);
	if (n > 1) {
		/* Room for the brackets: the list was cut 2 bytes short if need be. */
		size_t len = strlen(a->not_ready);
		if (len > sizeof(a->not_ready) - 3)
			len = sizeof(a->not_ready) - 3;
		memmove(a->not_ready + 1, a->not_ready, len);
		a->not_ready[0] = '[';
		a->not_ready[len + 1] = ']';
		a->not_ready[len + 2] = '\0';
	}
}

void nl__agent_observe(nl_agent *a)
{
	const char *paths[1 + NL_AGENT_MAX_STATE_DIRS] = {"/"};
	nl_eviction_observations obs;
	nl_fs_stats root;
	int before[NL_PRESSURE_COUNT];
	for (size_t i = 0; i < a->n_state_dirs; i++)
		paths[1 + i] = a->state_dirs[i];
	nl_eviction_probe(&obs, &root, &a->view, paths, 1 + a->n_state_dirs);
	a->ephemeral_storage_bytes = (int64_t)root.capacity_bytes;
	memcpy(before, a->under_pressure, sizeof(before));
	nl_pressure_tracker_update(&a->pressure, a->under_pressure, a->thresholds, a->n_thresholds,
	                           &obs, a->config->eviction_pressure_transition_period_usec,
	                           nl_clock_mono(a->clock));
	for (int p = 0; p < NL_PRESSURE_COUNT; p++)
		if (before[p] != a->under_pressure[p])
			NL_LOG_INFO("Node condition changed",
			            NL_KV_STR("condition", nl_pressure_condition_type(p)),
			            NL_KV_STR("status", a->under_pressure[p] ? "True" : "False"));
	self_check(a);
}

int nl__agent_set_conditions(json_object *node, const nl_agent *a, int64_t now)
{
	int rc = 0;
	for (int p = 0; p < NL_PRESSURE_COUNT && rc == 0; p++) {
		int on = a->under_pressure[p];
		rc = nl_node_set_condition(node, nl_pressure_condition_type(p),
		                           on ? "True" : "False", nl_pressure_reason(p, on),
		                           nl_pressure_message(p, on), now);
	}
	if (rc == 0 && a->not_ready[0])
		rc = nl_node_set_condition(node, "Ready", "False", NL_AGENT_NOT_READY_REASON,
		                           a->not_ready, now);
	else if (rc == 0)
		rc = nl_node_set_condition(node, "Ready", "True", NL_AGENT_READY_REASON,
		                           NL_AGENT_READY_MESSAGE, now);
	return rc;
}

int nl_agent_under_pressure(const nl_agent *a, nl_pressure p)
{
	return (unsigned)p < NL_PRESSURE_COUNT && a->under_pressure[p];
}

const char *nl_agent_not_ready_message(const nl_agent *a)
{
	return a->not_ready;
}
