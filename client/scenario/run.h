/* Running one scenario against a target (target.h): the initial cluster,
 * the agent, each step in order, each expectation, then cleanup. The
 * outcome carries what a person needs to see why it failed: the step and
 * its line, the differences, a diff of expected and actual, and the tail of
 * the agent's requests. */
#ifndef NL_SCENARIO_RUN_H
#define NL_SCENARIO_RUN_H

#include "scenario.h"
#include "target.h"

typedef enum {
	NL_OUTCOME_PASS,
	NL_OUTCOME_FAIL,
	NL_OUTCOME_SKIP,
} nl_scn_outcome;

typedef struct {
	nl_scn_outcome outcome;
	char *message; /* one line: why it failed or was skipped; NULL when passed */
	char *detail;  /* several lines (differences, diff, journal tail), or NULL */
	/* The requests of the agents and programs, one per line ("@1.4s get
	 * leases/edge-1 404"; "edge-2: " before it with several agents, the
	 * User-Agent for a program's), NULL without a journal: the same
	 * scenario gives the same text — unless it runs a program, when the
	 * first line is NL_SCN_JOURNAL_REAL_TIME, or ran on real time (a
	 * cluster's, the client-side journal), when it is
	 * NL_SCN_JOURNAL_CLUSTER. */
	char *journal;
	/* With nl_scn_run_options.timeline, the run for the report page
	 * (<nodelet/timeline.h>): {"events": every journal entry and each Node
	 * condition as it changed, "steps", "failedAt"}, times in usec since
	 * the start. Owned; NULL otherwise. */
	json_object *timeline;
} nl_scn_run_result;

#define NL_SCN_JOURNAL_REAL_TIME "# real time: a run: step's program ran, times vary between runs"
#define NL_SCN_JOURNAL_CLUSTER "# real time: a cluster's, times vary between runs"

typedef struct {
	nl_scn_target_options target;
	/* Called before each step with "steps[3] (FILE:LINE)", or NULL. */
	void (*on_step)(const char *where, void *payload);
	void *step_payload;
	/* Record the timeline (the report page's data). Reading the Nodes for
	 * it goes where no fault or journal sees it, so the run is the same. */
	int timeline;
} nl_scn_run_options;

/* Why sc cannot run on a target of kind k ("requires faults, journal (not
 * available with --kubeconfig)") into out; 0 when it can run. */
int nl_scn_skip_reason(char *out, size_t outlen, const nl_scn_scenario *sc, nl_scn_target_kind k);

/* Run sc. Always fills *out (on NL_ENOMEM too, as a failure); returns 0,
 * or NL_ENOMEM. Release with nl_scn_run_result_clear. */
int nl_scn_run(nl_scn_run_result *out, const nl_scn_scenario *sc, const nl_scn_run_options *o);
void nl_scn_run_result_clear(nl_scn_run_result *r);

#endif
