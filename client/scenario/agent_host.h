/* The agent of a scenario: the nl_agent of `agent:` (registration, lease,
 * node status) plus, with dynamicConfig, a dynamic config controller on the
 * same client and clock, wired as the nodelet program wires them — except
 * that the runner, not informers, tells the controller about Node and
 * ConfigMap changes (nl_scn_agent_observe), so runs stay deterministic.
 * `restart` builds both again from the same dynamic config directory, as a
 * new process would. */
#ifndef NL_SCENARIO_AGENT_HOST_H
#define NL_SCENARIO_AGENT_HOST_H

#include <json-c/json.h>
#include <nodelet/agent.h>
#include <nodelet/client.h>
#include <nodelet/clock.h>
#include <nodelet/config.h>
#include <nodelet/nodelet_config.h>

#include "scenario.h"

typedef struct nl_scn_agent nl_scn_agent;

typedef struct {
	const nl_scn_scenario *sc;
	const nl_scn_agent_spec *spec; /* which agent of sc (borrowed) */
	const char *user_agent;        /* its requests' User-Agent; NULL = the default */
	/* Told each attempt of the agent's client (the client-side journal);
	 * NULL = nothing. */
	nl_attempt_cb on_attempt;
	void *attempt_payload;
	const nl_rest_config *cfg; /* the API server (borrowed) */
	nl_clock *clock;           /* the scenario's clock (borrowed) */
	/* An existing, absolute directory, or NULL without dynamicConfig. */
	const char *dynamic_config_dir;
} nl_scn_agent_options;

/* Create the agent (and bootstrap the config controller); nothing is sent
 * yet. The options must outlive it. *out: nl_scn_agent_free. */
int nl_scn_agent_new(nl_scn_agent **out, const nl_scn_agent_options *o, nl_err *err);
void nl_scn_agent_free(nl_scn_agent *a);

/* Start the agent's loops (and the config controller's) on the clock. */
int nl_scn_agent_start(nl_scn_agent *a);
void nl_scn_agent_stop(nl_scn_agent *a);
/* A new process: everything in memory forgotten, the dynamic config
 * directory kept; started again if it was running. */
int nl_scn_agent_restart(nl_scn_agent *a, nl_err *err);
/* One sync: 0 or the controller's code. `config` is syncConfigSource, the
 * trial check and the status sync, in that order. */
int nl_scn_agent_sync(nl_scn_agent *a, nl_scn_sync_kind k);

/* What informers would deliver: read the Node and the ConfigMap the config
 * controller watches through reader (not the agent's client: the journal
 * shows the agent's own requests only) and signal what changed. A no-op
 * without dynamicConfig. */
void nl_scn_agent_observe(nl_scn_agent *a, nl_client *reader);

nl_agent *nl_scn_agent_agent(const nl_scn_agent *a);
/* The state `expect: agent` matches (new reference): registered, running,
 * leaseCached, leaseResourceVersion, lease, heartbeatFailures,
 * statusReports, leaseDurationSeconds, sleeps (the backoff waits since the
 * previous expect, as durations), config (the config controller's status)
 * and inTrial. */
json_object *nl_scn_agent_state(nl_scn_agent *a);
/* Forget the recorded sleeps (after an expect). */
void nl_scn_agent_clear_sleeps(nl_scn_agent *a);

#endif
