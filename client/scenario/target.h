/* Where a scenario runs: an embedded nodelet-mockapi on the scenario's
 * virtual clock (fresh per scenario, on a free port), an already running
 * nodelet-mockapi (--server URL: faults and journal through its control
 * API), or any cluster from a kubeconfig (--kubeconfig: no faults, no
 * journal, real time). The runner talks Kubernetes to all three the same
 * way, through the client library; a target only adds what differs. */
#ifndef NL_SCENARIO_TARGET_H
#define NL_SCENARIO_TARGET_H

#include <json-c/json.h>
#include <nodelet/clock.h>
#include <nodelet/config.h>
#include <nodelet/errors.h>

#include "scenario.h"

typedef enum {
	NL_TARGET_EMBEDDED,
	NL_TARGET_SERVER,
	NL_TARGET_CLUSTER,
} nl_scn_target_kind;

typedef struct {
	nl_scn_target_kind kind;
	const char *server_url; /* NL_TARGET_SERVER */
	const char *kubeconfig; /* NL_TARGET_CLUSTER */
	const char *context;    /* NL_TARGET_CLUSTER; NULL = current-context */
	int verbosity;          /* the embedded server's -v */
} nl_scn_target_options;

/* The NL_REQ_* bits a kind of target satisfies. */
unsigned nl_scn_target_provides(nl_scn_target_kind k);
/* How the command line selects it: "the embedded server", "--server",
 * "--kubeconfig". */
const char *nl_scn_target_name(nl_scn_target_kind k);
/* Whether scenario time is virtual on this target. */
int nl_scn_target_virtual(nl_scn_target_kind k);

typedef struct nl_scn_target nl_scn_target;

/* Get ready for one scenario. clock is the scenario's clock (borrowed):
 * the embedded server takes its time from it and its controllers run on
 * its timers (every second of clock time). --server resets the server to
 * its seeded state. NL_E* with err set. *out: nl_scn_target_free. */
int nl_scn_target_start(nl_scn_target **out, const nl_scn_target_options *o,
                        const nl_scn_scenario *sc, nl_clock *clock, nl_err *err);
void nl_scn_target_free(nl_scn_target *t);

/* How to reach the API (borrowed). */
const nl_rest_config *nl_scn_target_rest_config(const nl_scn_target *t);

/* Add a fault (the control API's schema; borrowed). */
int nl_scn_target_add_fault(nl_scn_target *t, json_object *fault, nl_err *err);
/* Remove one fault, or all with id NULL. */
int nl_scn_target_clear_faults(nl_scn_target *t, const char *id, nl_err *err);
/* The journal entries recorded since the previous call, oldest first (new
 * array; caller puts it). */
int nl_scn_target_journal(json_object **out, nl_scn_target *t, nl_err *err);
/* A kubeconfig for a program to reach the target, into path (0600): the
 * embedded server's own (its URL and credentials), or one for --server's
 * URL. --kubeconfig has its file already: *use is set to it (borrowed) and
 * nothing is written; otherwise *use is path. */
int nl_scn_target_kubeconfig(const char **use, nl_scn_target *t, const char *path, nl_err *err);
/* Every Node as the server stores it (new array; caller puts it), read
 * where no fault or journal sees it: the embedded server's store, or a
 * running one's control API. NL_EINVAL on a cluster (the caller lists
 * them as any client would). */
int nl_scn_target_nodes(json_object **out, nl_scn_target *t, nl_err *err);
/* Restart the embedded server on the same port, objects kept. */
int nl_scn_target_restart_server(nl_scn_target *t, nl_err *err);
/* Run the embedded server's controller work due now (a no-op elsewhere):
 * after a write, so garbage collection happens before the next step, as it
 * would within milliseconds in a cluster. */
void nl_scn_target_tick(nl_scn_target *t);

#endif
