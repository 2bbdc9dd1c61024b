/* The agent's state, shared by its files (agent.c: lifecycle and the lease;
 * node_registration.c; node_status.c). Not installed. */
#ifndef NL_AGENT_INTERNAL_H
#define NL_AGENT_INTERNAL_H

#include <nodelet/agent.h>
#include <nodelet/lease_controller.h>

typedef struct nl__shutdown nl__shutdown;

struct nl_agent {
	char *node_name;
	nl_clock *clock;
	int own_clock;
	nl_client *client;
	int own_client;
	nl_nodelet_config *config;
	nl_host_info host;
	/* The host was probed, not given: read its network again for each
	 * status report, as kubelet's NodeAddress setter does (DHCP). */
	int probe_network;
	nl_node_ips node_ips; /* --node-ip; n = 0 without */
	nl_lease_controller *lease;
	/* The client's calls, wrapped by agent.c to see each lease write. */
	nl_lease_ops client_ops;
	int running;

	/* Registration (kubelet's registrationCompleted and its backoff). */
	int registered;
	int64_t register_backoff;
	uint64_t register_timer;

	/* Node status. */
	uint64_t status_timer;    /* 0 = none pending */
	nl_rand status_rand;      /* the check period's jitter */
	int64_t last_report;      /* wall time of the last accepted report; 0 = none */
	int64_t last_report_mono; /* the same on the monotonic clock, for deadlines */
	unsigned long reports;
	/* The server may show something else than we last reported (a lapse
	 * of the lease, a new configuration): compare before the next report. */
	int status_check_owed;

	/* Lease writes, to notice a lapse (the node may have been marked
	 * Unknown meanwhile) when renewals resume. */
	int64_t last_lease_write; /* 0 = none yet */
	/* For --metrics-bind-address (agent_metrics.c): lease writes by
	 * result and the wall time of the last good one (0 = none); written
	 * and read with __atomic builtins (the metrics thread reads them). */
	unsigned long lease_renewals_ok, lease_renewals_failed;
	int64_t last_lease_renew_wall;

	unsigned long heartbeat_failures;

	/* Node conditions (agent_conditions.c): the host as read, the
	 * thresholds of the configuration, what the last observation found. */
	nl_host_view view;
	char *view_root;
	char *state_dirs[NL_AGENT_MAX_STATE_DIRS];
	size_t n_state_dirs;
	nl_eviction_threshold thresholds[NL_SIGNAL_COUNT];
	size_t n_thresholds;
	nl_pressure_tracker pressure;
	int under_pressure[NL_PRESSURE_COUNT];
	int64_t ephemeral_storage_bytes; /* the root filesystem's size; 0 = unknown */
	char not_ready[512];             /* the self-check's errors; "" = Ready */

	/* Graceful node shutdown (node_shutdown.c); NULL = off. */
	nl__shutdown *shutdown;
	/* PrepareForShutdown(true) seen and not cancelled: Ready is False. */
	int shutting_down;
	/* The inhibitor lock goes once the next status sync is done. */
	int shutdown_release_owed;
};

/* The on-repeated-heartbeat-failure hook: close the client's connections. */
void nl__agent_heartbeat_failed(nl_agent *a);
/* The clock time at which the next status report is due. */
int64_t nl__agent_next_report(const nl_agent *a);

/* Copy the options' host view and state directories; parse the config's
 * thresholds (nl_agent_new and nl_agent_set_config). NL_ENOMEM. */
int nl__agent_conditions_init(nl_agent *a, const nl_agent_options *o);
void nl__agent_conditions_free(nl_agent *a);
void nl__agent_thresholds_load(nl_agent *a);
/* Read the host now: signals, pressure, the Ready self-check. */
void nl__agent_observe(nl_agent *a);
/* The four conditions, in kubelet's order for ones node lacks
 * (MemoryPressure, DiskPressure, PIDPressure, Ready), as the last
 * observation found them; transition times kept unless the status moves. */
int nl__agent_set_conditions(json_object *node, const nl_agent *a, int64_t now);
/* What a hard threshold of signal s reserves of capacity (kubelet's
 * hardEvictionReservation: its quantity, or percent × capacity); 0
 * without one. */
int64_t nl__agent_eviction_reservation(const nl_agent *a, nl_eviction_signal s, int64_t capacity);
/* The condition types set by nl__agent_set_conditions, in that order. */
extern const char *const nl__agent_condition_types[4];

/* Run a status sync from the clock at once; 1 when one is scheduled, 0
 * when the agent reports none (not running, not registered). */
int nl__agent_status_now(nl_agent *a);
/* The node shutdown manager (node_shutdown.c): started by nl_agent_start
 * when shutdownGracePeriod > 0; its failures are logged, never fatal.
 * NL_ENOMEM. */
int nl__agent_shutdown_start(nl_agent *a);
void nl__agent_shutdown_stop(nl_agent *a);
/* A status sync ended: release the lock if a shutdown waits for it. */
void nl__agent_shutdown_status_synced(nl_agent *a);

/* status.* fields this agent reports (conditions excluded) into status. */
int nl__agent_fill_status(json_object *status, const nl_agent *a);

#endif
