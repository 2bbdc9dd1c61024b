/* The agent soak (soak_agent.c, docs/soak.md): the nodelet agent and the
 * embedded nodelet-mockapi on one virtual clock, wired exactly as
 * nodelet-scenario wires them (client/scenario: target.h, agent_host.h),
 * through alternating windows of random faults and of health. */
#ifndef NL_SOAK_AGENT_H
#define NL_SOAK_AGENT_H

#include <nodelet/client.h>
#include <nodelet/clock.h>
#include <nodelet/informer.h>
#include <stdint.h>

#include "scenario/agent_host.h"
#include "scenario/scenario.h"
#include "scenario/target.h"
#include "soak_common.h"

#define SOAK_NODE "soak-node"
#define SOAK_LEASE_NS "kube-node-lease"
/* What the faults match: the agent's User-Agent ("nodelet/<version> ..."),
 * and the observer's; the checker (reads, the other writer) is never hit. */
#define SOAK_AGENT_UA "nodelet/"
#define SOAK_OBSERVER_UA "soak-observer/1"
#define SOAK_CHECKER_UA "soak-checker/1"
/* The field manager the server derives from the agent's User-Agent. */
#define SOAK_AGENT_MANAGER "nodelet"

/* What a fault window may inject. The first seven are nodelet-mockapi
 * faults on the agent's requests (counted when they fire, from the
 * journal); the rest are done by the driver. */
typedef enum {
	SOAK_K500,
	SOAK_K503,
	SOAK_K429,
	SOAK_KLATENCY,
	SOAK_KDROP,
	SOAK_KGARBLED, /* a truncated or malformed answer */
	SOAK_K409,
	SOAK_KWATCH,   /* the observer's watch cut, expired, dropped or refused */
	SOAK_KWRITER,  /* another writer updates the Lease: the agent's next write is 409 */
	SOAK_KDELETE,  /* someone deletes the Lease */
	SOAK_KRESTART, /* the server restarts: every connection and watch cut */
	SOAK_NKINDS
} soak_kind;

/* The kind's name in the summary ("500", "latency", ...). */
const char *soak_kind_name(soak_kind k);

typedef struct {
	unsigned index;
	nl_rand rng;          /* every draw of the window */
	int64_t usec;         /* length in virtual time */
	unsigned kinds;       /* bit set of soak_kind */
	double probability;   /* of each HTTP fault, per matching request */
	const char *resource; /* what the HTTP faults match; NULL = every request */
	double writer_chance; /* SOAK_KWRITER: chance of a write per virtual second */
	int64_t delete_at;    /* SOAK_KDELETE: offset into the window */
	int64_t restart_at;   /* SOAK_KRESTART: offset into the window */
	int deleted, restarted, reconnected;
} soak_window;

/* Per source of requests: the agent [0] and the observer [1]. */
typedef struct {
	unsigned long requests;
	int64_t bucket_sec; /* the virtual second being counted */
	unsigned bucket;
	unsigned max_per_sec;
	unsigned long window_requests;
	double max_window_rate; /* requests per virtual second, windows of >= 30 s */
} soak_rate;

typedef struct {
	soak_args args;
	long lease_seconds;
	long max_windows;
	FILE *devnull;

	nl_scn_scenario *sc;
	nl_clock *clock;
	nl_scn_target *target;
	nl_scn_agent *agent;
	nl_client *checker;  /* reads and the other writer; never faulted */
	nl_client *observer; /* the informer's, on the agent's loop */
	nl_informer *informer;

	int64_t t0; /* virtual start */
	unsigned windows;
	/* The open fault window ends at window_end (virtual). The lease
	 * controller's backoff blocks the driver's thread until the server
	 * answers again, so the window is also closed from the fake clock's
	 * sleep hook, inside the backoff, at the first wait that passes the end. */
	int window_open;
	int64_t window_end;
	int64_t recovered_at; /* when the last fault window ended */
	int64_t last_fault;   /* the journal's last faulted request of the agent */
	int64_t last_renewal; /* the journal's last successful write of the lease */
	int healthy;          /* in a healthy window: staleness is checked */
	double real_start;

	/* What was injected and what the agent did. */
	unsigned long injected[SOAK_NKINDS];
	unsigned long renewals, renewal_failures;
	soak_rate rate[2];
	int64_t max_stale;         /* after recovery, over every healthy second */
	int64_t max_sleep;         /* longest backoff wait */
	size_t sleeps;             /* waits recorded */
	unsigned node_unknown;     /* fault windows after which the Node was not Ready */
	int64_t max_watch_catchup; /* from the recovery to the observer holding the lease */
	int64_t max_write_lag;     /* managedFields time - renewTime of a lease version */
	size_t heap_start, heap_end;
	unsigned heap_window;
} soak_agent;

/* Limits of "no busy loop". The agent's legitimate bursts: five lease
 * UPDATEs of a round, status tries, 1 s GET retries; the observer's: a
 * relist and a watch per cut. A client retrying without waiting sends
 * thousands per virtual second (or never lets virtual time move, which the
 * watchdog catches). */
#define SOAK_AGENT_MAX_PER_SEC 60
#define SOAK_OBSERVER_MAX_PER_SEC 30
/* Averaged over a window of at least 30 virtual seconds, for a 40 s lease
 * (scaled up for shorter ones, which renew more often). */
#define SOAK_MAX_WINDOW_RATE 10
/* Heap growth allowed between the early and the late checkpoint, plus 10 %. */
#define SOAK_HEAP_SLACK (1024 * 1024)

/* --- driving (soak_agent.c) ------------------------------------------------------------------ */

/* Let usec of virtual time pass: every timer due on the way fires at its
 * deadline, and the agent's loop runs what is ready in between. */
int soak_pass(soak_agent *s, int64_t usec);
/* The observer starts over (a new list and watch): its established watch
 * would otherwise never meet the watch faults, which match new watches. */
int soak_observer_restart(soak_agent *s);

/* --- the properties (soak_agent_checks.c) ---------------------------------------------------- */

/* Read the journal since the last call, count rates, renewals and the
 * faults that fired, then clear it. */
void soak_drain_journal(soak_agent *s);
/* At the end of a window: its request rates (then reset). */
void soak_check_rates(soak_agent *s, int64_t window_usec);
/* One sample of the lease's staleness since the last recovery. */
void soak_check_staleness(soak_agent *s);
/* A lease version (the checker's sample, every version the observer sees):
 * written no later than the heartbeat timeout after its renewTime. */
void soak_check_write_lag(soak_agent *s, json_object *lease);
/* The waits made on the clock since the last call: none over the cap. */
void soak_check_sleeps(soak_agent *s);
/* 1 when the Node is Ready and untainted; else why in why. */
int soak_node_ready(soak_agent *s, char *why, size_t whylen);
/* 1 when the observer's informer holds the server's current Lease. */
int soak_observer_current(soak_agent *s);
/* At the end of a healthy window: the observer holds the server's Lease,
 * at the latest after two more lease durations. */
void soak_check_observer(soak_agent *s);
/* A heap checkpoint; last: compare with the early one. */
void soak_check_heap(soak_agent *s, int last);

/* --- the fault windows (soak_agent_faults.c) ------------------------------------------------- */

/* The window's faults are in: it ends when the clock reaches end. */
void soak_window_open(soak_agent *s, int64_t end);
/* End the open window if its time has come: remove every fault. 1 when no
 * window is open (any more). Also the fake clock's sleep hook's work. */
int soak_window_close_due(soak_agent *s);
/* When the last window ended (virtual). */
int64_t soak_recovered_at(soak_agent *s);
/* The journal has been read: the server was healthy from the window's
 * planned end, or from the agent's last faulted request if that came
 * later (a driver step overshooting the end). When a backoff wait jumped
 * past the end, the server came back during the wait: the recovery is
 * the planned end, not the time the faults were removed. */
void soak_window_recovered(soak_agent *s);

/* A seed for window index's draws (salt 0: the fault window, 1: the
 * healthy one after it). */
uint64_t soak_window_seed(const soak_agent *s, unsigned index, unsigned salt);
/* Draw the next fault window. */
void soak_window_plan(soak_window *w, soak_agent *s, unsigned index);
/* Add its nodelet-mockapi faults. 0, or the error (printed). */
int soak_window_inject(soak_agent *s, soak_window *w);
/* The driver's part at offset `at` into the window (once per virtual
 * second): the other writer, the deletion, the restart. */
void soak_window_act(soak_agent *s, soak_window *w, int64_t at);
/* "500+drop on leases p=0.5" for messages. */
void soak_window_describe(char *out, size_t outlen, const soak_window *w);
/* The kind of a fault id this file gave, or SOAK_NKINDS. */
soak_kind soak_fault_kind(const char *id);

#endif
