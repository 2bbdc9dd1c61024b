/* The agent: one client, one clock, and the controllers of one node on it.
 * Registration and status reports are clock timers; the lease controller
 * schedules itself (nl_lease_controller_start). All of them run on the
 * thread stepping the client's loop (nl_agent_run), or on the caller's in
 * tests; none blocks that thread in a backoff, so each keeps its own
 * schedule (docs/decisions/0032). */
#include <nodelet/lease.h>
#include <nodelet/log.h>
#include <nodelet/meta.h>
#include <stdlib.h>
#include <string.h>

#include "agent_internal.h"

static void schedule_status(nl_agent *a, int64_t delay);

void nl_agent_options_init(nl_agent_options *o)
{
	memset(o, 0, sizeof(*o));
}

/* --- the lease controller's calls, observed ------------------------------------ */

static int64_t lease_duration_usec(const nl_agent *a)
{
	return (int64_t)a->config->lease_duration_seconds * NL_USEC_PER_SEC;
}

/* A lease write went through. After a lapse longer than the lease, the node
 * lifecycle controller may have marked the Node Unknown and tainted it; only
 * a status report with Ready=True clears that, so check the status now
 * rather than at the next report. */
static int lease_written(nl_agent *a, int rc)
{
	/* Atomic: the metrics server thread reads them (agent_metrics.c). */
	if (rc != 0) {
		__atomic_add_fetch(&a->lease_renewals_failed, 1, __ATOMIC_RELAXED);
		return rc;
	}
	__atomic_add_fetch(&a->lease_renewals_ok, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&a->last_lease_renew_wall, nl_clock_now(a->clock), __ATOMIC_RELAXED);
	int64_t now = nl_clock_mono(a->clock);
	int lapsed = a->last_lease_write && now - a->last_lease_write > lease_duration_usec(a);
	if (lapsed) {
		char d[NL_DURATION_BUFSZ];
		nl_duration_format(d, now - a->last_lease_write);
		NL_LOG_INFO("Node lease renewed after a lapse, checking node status",
		            NL_KV_STR("lapse", d));
		a->status_check_owed = 1;
		schedule_status(a, 0);
	}
	a->last_lease_write = now;
	return 0;
}

static int ops_get_lease(json_object **out, nl_status **status, const char *ns, const char *name,
                         void *payload)
{
	nl_agent *a = payload;
	return a->client_ops.get_lease(out, status, ns, name, a->client_ops.payload);
}

static int ops_create_lease(json_object **out, nl_status **status, const char *ns,
                            json_object *lease, void *payload)
{
	nl_agent *a = payload;
	return lease_written(
	    a, a->client_ops.create_lease(out, status, ns, lease, a->client_ops.payload));
}

static int ops_update_lease(json_object **out, nl_status **status, const char *ns,
                            json_object *lease, void *payload)
{
	nl_agent *a = payload;
	return lease_written(
	    a, a->client_ops.update_lease(out, status, ns, lease, a->client_ops.payload));
}

static int ops_get_node(json_object **out, nl_status **status, const char *name, void *payload)
{
	nl_agent *a = payload;
	return a->client_ops.get_node(out, status, name, a->client_ops.payload);
}

void nl__agent_heartbeat_failed(nl_agent *a)
{
	a->heartbeat_failures++;
	/* kubelet's closeAllConns: a connection the network silently dropped
	 * would otherwise be reused, and every heartbeat would time out. */
	NL_LOG_WARN("Repeated heartbeat failures, closing the connections",
	            NL_KV_STR("server", nl_client_server(a->client)));
	if (nl_client_reset_connections(a->client) != 0)
		NL_LOG_ERROR("out of memory", "Cannot close the connections");
}

static void heartbeat_hook(void *payload)
{
	nl__agent_heartbeat_failed(payload);
}

/* --- creation -------------------------------------------------------------------- */

static int make_client(nl_agent *a, const nl_agent_options *o, nl_err *err)
{
	nl_client_options co;
	int64_t timeout = lease_duration_usec(a);
	if (timeout > NL_AGENT_HEARTBEAT_TIMEOUT_USEC)
		timeout = NL_AGENT_HEARTBEAT_TIMEOUT_USEC;
	nl_client_options_init(&co);
	/* kubelet's heartbeat client: throttling would delay the very requests
	 * that keep the node alive; a stuck request must not outlive the lease. */
	co.qps = -1;
	co.timeout_ms = (long)(timeout / NL_USEC_PER_MSEC);
	co.clock = a->clock;
	co.content_type = a->config->content_type;
	co.user_agent = o->user_agent;
	co.on_attempt = o->on_attempt;
	co.attempt_payload = o->attempt_payload;
	int rc = nl_client_new(&a->client, o->rest_config, &co, err);
	if (rc == 0)
		a->own_client = 1;
	return rc;
}

static int make_clock(nl_agent *a, const nl_agent_options *o, nl_err *err)
{
	if (o->client) {
		a->clock = nl_client_clock(o->client);
		if (o->clock && o->clock != a->clock)
			return nl_err_set(err, NL_EINVAL, "the clock must be the client's clock");
		a->client = o->client;
		return 0;
	}
	if (o->clock) {
		a->clock = o->clock;
		return 0;
	}
	int rc = nl_clock_new_real(&a->clock);
	if (rc != 0)
		return nl_err_set(err, rc, "cannot create the clock");
	a->own_clock = 1;
	return 0;
}

/* Renewals in protobuf, from the cached lease's bytes (no tree). */
static int ops_update_lease_protobuf(char **out, size_t *out_len, int *out_protobuf,
                                     nl_status **status, const char *ns, const char *name,
                                     const void *body, size_t len, void *payload)
{
	nl_agent *a = payload;
	return lease_written(a, nl_lease_update_protobuf(out, out_len, out_protobuf, status, ns,
	                                                 name, body, len, a->client));
}

static int make_lease_controller(nl_agent *a, const nl_agent_options *o)
{
	nl_lease_ops ops = {ops_get_lease, ops_create_lease, ops_update_lease, ops_get_node, a};
	nl_lease_controller_options lo = {0};
	nl_lease_ops_init(&a->client_ops, a->client);
	lo.clock = a->clock;
	lo.ops = &ops;
	lo.node_name = a->node_name;
	lo.lease_name = o->lease_name;
	lo.lease_namespace = o->lease_namespace;
	lo.lease_duration_seconds = a->config->lease_duration_seconds;
	lo.on_repeated_heartbeat_failure = heartbeat_hook;
	lo.hook_payload = a;
	lo.jitter_seed = o->jitter_seed;
	if (nl_client_content_type(a->client) == NL_CONTENT_PROTOBUF)
		lo.update_lease_protobuf = ops_update_lease_protobuf;
	return nl_lease_controller_new(&a->lease, &lo);
}

int nl_agent_new(nl_agent **out, const nl_agent_options *o, nl_err *err)
{
	nl_agent *a;
	int rc;
	if (!o || !o->node_name || !*o->node_name)
		return nl_err_set(err, NL_EINVAL, "the node name is required");
	if (!o->client && !o->rest_config)
		return nl_err_set(err, NL_EINVAL, "a client or a rest config is required");
	if (!(a = calloc(1, sizeof(*a))))
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	rc = NL_ENOMEM;
	if (!(a->node_name = strdup(o->node_name)) ||
	    (o->config ? nl_nodelet_config_copy(&a->config, o->config)
	               : nl_nodelet_config_new(&a->config)) != 0) {
		nl_err_set(err, rc, "out of memory");
		goto fail;
	}
	if ((rc = nl_nodelet_config_validate(a->config, err)) != 0)
		goto fail;
	if ((rc = nl__agent_conditions_init(a, o)) != 0) {
		nl_err_set(err, rc, "out of memory");
		goto fail;
	}
	if (o->host)
		a->host = *o->host;
	else
		nl_host_info_probe(&a->host);
	a->probe_network = !o->host;
	if (o->node_ips)
		a->node_ips = *o->node_ips;
	if ((rc = make_clock(a, o, err)) != 0 || (!a->client && (rc = make_client(a, o, err)) != 0))
		goto fail;
	/* Not the lease controller's sequence: the two must not move in step. */
	nl_rand_seed(&a->status_rand,
	             (o->jitter_seed ? o->jitter_seed : (uint64_t)nl_clock_now(a->clock)) ^
	                 UINT64_C(0x5eed5747));
	if ((rc = make_lease_controller(a, o)) != 0) {
		nl_err_set(err, rc, "cannot create the lease controller: %s", nl_strerror(rc));
		goto fail;
	}
	*out = a;
	return 0;
fail:
	nl_agent_free(a);
	return rc;
}

void nl_agent_free(nl_agent *a)
{
	if (!a)
		return;
	nl_agent_stop(a);
	nl_lease_controller_free(a->lease);
	if (a->own_client)
		nl_client_free(a->client);
	if (a->own_clock)
		nl_clock_free(a->clock);
	nl_nodelet_config_free(a->config);
	nl__agent_conditions_free(a);
	free(a->node_name);
	free(a);
}

/* --- scheduling ------------------------------------------------------------------ */

static void cancel(nl_agent *a, uint64_t *timer)
{
	if (*timer)
		nl_clock_cancel(a->clock, *timer);
	*timer = 0;
}

/* kubelet checks the status every nodeStatusUpdateFrequency whatever the
 * last outcome: the server may show something else at any time (the node
 * lifecycle controller marked the Node Unknown, someone edited it), and only
 * a check notices. A report that falls due earlier is sent when due. */
static int64_t next_check(nl_agent *a, int reported)
{
	int64_t delay = nl_jitter(a->config->node_status_update_frequency_usec,
	                          NL_AGENT_STATUS_JITTER, &a->status_rand);
	int64_t due = nl__agent_next_report(a) - nl_clock_mono(a->clock);
	return reported && due < delay ? due : delay;
}

static void status_tick(void *payload)
{
	nl_agent *a = payload;
	a->status_timer = 0;
	if (!a->running || nl_clock_stopped(a->clock))
		return;
	int rc = nl_agent_sync_status(a);
	/* A shutdown waits for this report, whatever its outcome. */
	nl__agent_shutdown_status_synced(a);
	if (rc == NL_ECANCELED || !a->running)
		return;
	schedule_status(a, next_check(a, rc == 0));
}

/* Run a status sync from the clock: at once (delay 0) or later; replaces the
 * pending one. No-op when the agent is not running. */
static void schedule_status(nl_agent *a, int64_t delay)
{
	/* kubelet reports status only once registered. */
	if (!a->running || (a->config->register_node && !a->registered))
		return;
	cancel(a, &a->status_timer);
	if (nl_clock_after(&a->status_timer, a->clock, delay > 0 ? delay : 0, status_tick, a) !=
	    0) {
		NL_LOG_ERROR("out of memory", "Cannot schedule the node status report");
		a->status_timer = 0;
	}
}

int nl__agent_status_now(nl_agent *a)
{
	schedule_status(a, 0);
	return a->status_timer != 0;
}

/* After registration (or without it): report at once when one is owed,
 * else when the next is due. */
static void start_status(nl_agent *a)
{
	if (a->reports == 0 || a->status_check_owed)
		schedule_status(a, 0);
	else
		schedule_status(a, next_check(a, 1));
}

static void register_tick(void *payload)
{
	nl_agent *a = payload;
	a->register_timer = 0;
	/* A shutdown sends no registration after it. */
	if (!a->running || nl_clock_stopped(a->clock))
		return;
	if (nl_agent_register_node(a) == 0) {
		start_status(a);
		/* The lease controller may have found no Node a moment ago and
		 * be waiting a whole renew interval: the Node is there now. */
		if (nl_lease_controller_kick(a->lease) != 0)
			NL_LOG_ERROR("out of memory", "Cannot schedule the node lease sync");
		return;
	}
	if (nl_clock_stopped(a->clock))
		return;
	a->register_backoff = 2 * a->register_backoff < NL_AGENT_REGISTER_MAX_BACKOFF_USEC
	                          ? 2 * a->register_backoff
	                          : NL_AGENT_REGISTER_MAX_BACKOFF_USEC;
	if (nl_clock_after(&a->register_timer, a->clock, a->register_backoff, register_tick, a) !=
	    0) {
		NL_LOG_ERROR("out of memory", "Cannot schedule node registration");
		a->register_timer = 0;
	}
}

int nl_agent_start(nl_agent *a)
{
	int rc;
	if (a->running)
		return NL_EINVAL;
	a->running = 1;
	/* Timers due at once fire in the order added: the registration attempt
	 * comes before the first lease sync, which then finds the Node. */
	if (a->config->register_node && !a->registered) {
		a->register_backoff = NL_AGENT_REGISTER_BACKOFF_START_USEC;
		if ((rc = nl_clock_after(&a->register_timer, a->clock, 0, register_tick, a)) != 0)
			goto fail;
	} else {
		start_status(a);
	}
	if ((rc = nl_lease_controller_start(a->lease)) != 0)
		goto fail;
	if (a->config->shutdown_grace_period_usec > 0 && (rc = nl__agent_shutdown_start(a)) != 0)
		goto fail;
	return 0;
fail:
	nl_agent_stop(a);
	return rc;
}

void nl_agent_stop(nl_agent *a)
{
	if (!a->running)
		return;
	a->running = 0;
	nl__agent_shutdown_stop(a);
	cancel(a, &a->register_timer);
	cancel(a, &a->status_timer);
	nl_lease_controller_stop(a->lease);
}

int nl_agent_run(nl_agent *a)
{
	nl_loop *l = nl_client_loop(a->client);
	while (!nl_clock_stopped(a->clock)) {
		/* A stop from another thread wakes a clock wait but not an
		 * epoll wait on a watch (dynamic config): look every second. */
		int rc = nl_loop_step(l, 1000);
		if (rc < 0)
			return rc == NL_ECANCELED ? 0 : rc;
	}
	return 0;
}

void nl_agent_shutdown(nl_agent *a)
{
	nl_clock_stop(a->clock);
}

/* --- one step at a time ------------------------------------------------------------ */

int nl_agent_sync_lease(nl_agent *a)
{
	return nl_lease_controller_sync(a->lease);
}

int nl_agent_set_config(nl_agent *a, const nl_nodelet_config *cfg)
{
	nl_nodelet_config *copy = NULL;
	int rc = nl_nodelet_config_copy(&copy, cfg);
	if (rc != 0)
		return rc;
	int restart_shutdown = a->running && (a->config->shutdown_grace_period_usec !=
	                                      copy->shutdown_grace_period_usec);
	nl_nodelet_config_free(a->config);
	a->config = copy;
	/* kubelet restarts on a new configuration: the manager starts anew. */
	if (restart_shutdown) {
		nl__agent_shutdown_stop(a);
		if (copy->shutdown_grace_period_usec > 0 && nl__agent_shutdown_start(a) != 0)
			NL_LOG_ERROR("out of memory", "Cannot start the node shutdown manager");
	}
	nl__agent_thresholds_load(a);
	nl_lease_controller_set_lease_duration(a->lease, cfg->lease_duration_seconds);
	/* The server may show the old configuration's effects: compare now. */
	a->status_check_owed = 1;
	schedule_status(a, 0);
	return 0;
}

/* --- state ---------------------------------------------------------------------------- */

nl_client *nl_agent_client(const nl_agent *a)
{
	return a->client;
}

nl_clock *nl_agent_clock(const nl_agent *a)
{
	return a->clock;
}

nl_lease_controller *nl_agent_lease_controller(const nl_agent *a)
{
	return a->lease;
}

const nl_nodelet_config *nl_agent_config(const nl_agent *a)
{
	return a->config;
}

const char *nl_agent_node_name(const nl_agent *a)
{
	return a->node_name;
}

json_object *nl_agent_lease(const nl_agent *a)
{
	return nl_lease_controller_latest(a->lease);
}

const char *nl_agent_lease_resource_version(const nl_agent *a)
{
	json_object *lease = nl_lease_controller_latest(a->lease);
	return lease ? nl_meta_resource_version(lease) : NULL;
}

int nl_agent_shutting_down(const nl_agent *a)
{
	return a->shutting_down;
}

int nl_agent_registered(const nl_agent *a)
{
	return a->registered;
}

unsigned long nl_agent_heartbeat_failures(const nl_agent *a)
{
	return a->heartbeat_failures;
}

unsigned long nl_agent_status_reports(const nl_agent *a)
{
	return a->reports;
}

int64_t nl_agent_last_status_report(const nl_agent *a)
{
	return a->last_report;
}
