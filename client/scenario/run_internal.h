/* Shared by the runner's files (run.c: lifecycle and steps; run_expect.c:
 * expectations; run_requests.c: the journal and `expect: requests`). Not
 * installed. */
#ifndef NL_SCENARIO_RUN_INTERNAL_H
#define NL_SCENARIO_RUN_INTERNAL_H

#include <limits.h>
#include <nodelet/buf.h>
#include <nodelet/client.h>

#include "agent_host.h"
#include "client_journal.h"
#include "run.h"

/* One agent of the scenario as it runs. */
typedef struct {
	const nl_scn_agent_spec *spec; /* borrowed from the scenario */
	nl_scn_agent *agent;
	nl_scn_agent_options opts;
	char dyn_dir[PATH_MAX]; /* "" = none */
	char user_agent[256];   /* "" = the default (the single agent: form) */
} nl_scn__run_agent;

typedef struct {
	const nl_scn_scenario *sc;
	const nl_scn_run_options *o;
	nl_clock *clock;
	int fake;           /* virtual time */
	int64_t t0;         /* the clock at the start */
	int64_t journal_t0; /* the same on the server's clock, for journal times */
	nl_scn_target *target;
	/* On a cluster, where no server journal is to be had: the agents'
	 * requests as their own clients saw them. NULL elsewhere. */
	nl_scn_cjournal *cjournal;
	nl_client *client;              /* the runner's own: another writer, and the reader */
	nl_scn__run_agent *agents;      /* sc->nagents of them */
	char kubeconfig[PATH_MAX + 16]; /* for programs, written on first use; "" = none */
	char work_dir[PATH_MAX];        /* a temporary directory for it; "" = none */
	json_object *vars;              /* name -> value */
	/* The previous step's failure ({code, status, reason, message}), NULL
	 * when it succeeded. */
	json_object *error;
	const nl_scn_step *error_step;
	const nl_scn_step *step; /* the step running */
	json_object *events;     /* the last watch step's events */
	json_object *block;      /* the agent's requests since the previous expect */
	json_object *history;    /* all of the agent's requests */
	int64_t mark_t;          /* when the previous expect ran (since t0) */
	json_object *created;    /* what the runner created, for cleanup */
	/* The report page's data (run_timeline.c), NULL when not asked for:
	 * every journal entry, Node conditions as they changed, steps. */
	json_object *tl_events, *tl_steps;
	json_object *tl_seen; /* "node\x1ftype" -> "status\x1freason" last seen */
	int64_t tl_sampled;   /* scenario time of the last look at the Nodes */
	/* The failure, and when (scenario time). */
	int failed;
	int64_t failed_at;
	char message[4096];
	nl_buf detail;
} nl_scn__run;

/* Record the failure of step st (NULL: the setup) at document path (NULL:
 * the step's own): "steps[3] (FILE:LINE): message". Returns 1. */
int nl_scn__run_fail(nl_scn__run *r, const nl_scn_step *st, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Scenario time now (usec since t0). */
int64_t nl_scn__run_now(nl_scn__run *r);
/* Let usec of scenario time pass: the agent's timers (and its loop) run,
 * the embedded server's controllers tick; real waiting on real time. */
int nl_scn__run_pass_time(nl_scn__run *r, int64_t usec);
/* The agent a step is about: the one named beside it, else the first
 * (NULL without agents). */
nl_scn__run_agent *nl_scn__run_agent_of(nl_scn__run *r, const nl_scn_step *st);
/* The node name of the agent that sent journal entry e, NULL when no agent
 * did (a program). */
const char *nl_scn__run_sender(nl_scn__run *r, json_object *e);

/* A `run: {command}` step (run_program.c): the program runs on real time,
 * the scenario's clock following it; 0, or 1 when it failed (recorded,
 * with its output in the report). */
int nl_scn__run_program(nl_scn__run *r, const nl_scn_step *st);

/* Expand a step value's variables ("now" is the clock's time); on failure
 * the scenario fails at st. */
int nl_scn__run_expand(json_object **out, nl_scn__run *r, const nl_scn_step *st, const char *path,
                       json_object *tmpl);

/* An expect step (run_expect.c): 0 passed, 1 failed (recorded). */
int nl_scn__run_expect(nl_scn__run *r, const nl_scn_step *st);

/* Fetch the journal's new entries into block and history (run_requests.c).
 * Every request but the runner's own is kept (its User-Agent is
 * nodelet-scenario/...): the agents' and the programs'. */
int nl_scn__run_journal(nl_scn__run *r, nl_err *err);
/* Check `requests:` against block: 0 pass, 1 mismatch (summary in why,
 * diff in detail). */
int nl_scn__run_check_requests(nl_scn__run *r, const nl_scn_step *st, json_object *spec, char *why,
                               size_t whylen, nl_buf *detail);
/* The last n agent requests, one per line, for failure reports. */
void nl_scn__run_journal_tail(nl_scn__run *r, nl_buf *out, size_t n);
/* Every agent request, one per line (the determinism record). */
char *nl_scn__run_journal_text(nl_scn__run *r);

/* The timeline (run_timeline.c); each is a no-op unless it was asked for. */
int nl_scn__run_tl_init(nl_scn__run *r);
/* One journal entry (borrowed; "t" set) of any client. */
void nl_scn__run_tl_request(nl_scn__run *r, json_object *e);
/* Step st starts now. */
void nl_scn__run_tl_step(nl_scn__run *r, const nl_scn_step *st);
/* Look at the Nodes: each condition that changed since the last look. */
void nl_scn__run_tl_sample(nl_scn__run *r);
/* {"events", "steps", "failedAt"} (new reference; NULL when not asked for),
 * the run's own given up. */
json_object *nl_scn__run_tl_take(nl_scn__run *r);
void nl_scn__run_tl_free(nl_scn__run *r);

#endif
