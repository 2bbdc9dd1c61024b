/* A fixture scenario: the parsed form of one YAML file under fixtures/scenarios/
 * (the format is docs/scenarios.md). The parser checks everything it can
 * before anything runs — every field's type, step names, durations, path
 * expressions, match operators, request patterns, variables used before
 * they are defined — and reports the first problem as
 * "FILE:LINE:COL: PATH: what was expected". Values stay json-c trees
 * (borrowed from the document); the runner expands variables in them when
 * a step runs. */
#ifndef NL_SCENARIO_SCENARIO_H
#define NL_SCENARIO_SCENARIO_H

#include <json-c/json.h>
#include <nodelet/api.h>
#include <nodelet/errors.h>
#include <stddef.h>
#include <stdint.h>

#include "marks.h"

/* What a scenario needs from the target it runs against (declared with
 * `requires:`, and inferred from its steps). */
enum {
	NL_REQ_FAULTS = 1u << 0,       /* fault, clearFaults */
	NL_REQ_JOURNAL = 1u << 1,      /* the server's journal: expect: requests with programs */
	NL_REQ_VIRTUAL_TIME = 1u << 2, /* advance, expect: agent.sleeps, request timings */
	NL_REQ_EMBEDDED = 1u << 3,     /* server settings, restartServer, the server's
	                                  controllers on virtual time */
	NL_REQ_MOCKAPI = 1u << 4,      /* nodelet-mockapi behaviour a real cluster lacks */
};
#define NL_REQ_ALL 0x1fu

/* "faults", "journal", "virtual-time", "embedded", "mockapi"; NULL for an
 * unknown bit. */
const char *nl_scn_req_name(unsigned bit);
/* The bit of a name, 0 when unknown. */
unsigned nl_scn_req_bit(const char *name);

typedef enum {
	NL_STEP_FAULT,
	NL_STEP_CLEAR_FAULTS,
	NL_STEP_APPLY,
	NL_STEP_CREATE,
	NL_STEP_UPDATE,
	NL_STEP_PATCH,
	NL_STEP_DELETE,
	NL_STEP_GET,
	NL_STEP_WATCH,
	NL_STEP_SYNC,
	NL_STEP_START,
	NL_STEP_STOP,
	NL_STEP_ADVANCE,
	NL_STEP_RUN,
	NL_STEP_RESTART,
	NL_STEP_RESTART_SERVER,
	NL_STEP_EXPECT,
	NL_STEP_PROGRAM, /* `run:` with {command: [...]}: an external program */
} nl_scn_step_kind;

typedef enum {
	NL_SYNC_LEASE,
	NL_SYNC_STATUS,
	NL_SYNC_CONFIG,
	NL_SYNC_REGISTER,
} nl_scn_sync_kind;

/* The step's name as written ("clearFaults"). */
const char *nl_scn_step_name(nl_scn_step_kind k);

typedef struct {
	nl_scn_step_kind kind;
	char path[32];    /* "steps[3]" */
	json_object *arg; /* the step's value (borrowed from the document; may be NULL) */
	int64_t usec;     /* advance, run; expect: `within` (0 = check once); a
	                     program's timeout */
	nl_scn_sync_kind sync;
	int agent; /* the agent named by `agent:` beside the step (an index of
	              agents), -1 = none named */
} nl_scn_step;

/* One agent of `agent:` or `agents:`. */
typedef struct {
	json_object *settings; /* the mapping (borrowed from the document) */
	const char *node_name; /* borrowed from settings */
	int dynamic_config;    /* dynamicConfig: true */
} nl_scn_agent_spec;

typedef struct {
	char *file;         /* as given */
	char *fixtures_dir; /* where include: files are, as given ("." if none):
	                       the builtin ${fixturesDir} */
	char *name;
	char *description;
	char **tags;
	size_t ntags;
	unsigned requires;    /* NL_REQ_* declared and inferred */
	int64_t timeout_usec; /* real time for the whole scenario */
	uint64_t seed;        /* the server's fault PRNG and the agent's jitter */
	int64_t start_usec;   /* the virtual clock's start */
	/* `realTime: {scale: S}`: on real time an advance waits S times its
	 * duration (the scenario's point allows it); 0 = not declared, advance
	 * needs virtual time. */
	double real_time_scale;
	json_object *doc;          /* the document; owns the borrowed values */
	json_object *vars;         /* `vars:` (borrowed) or NULL */
	json_object *server;       /* `server:` settings (borrowed) or NULL */
	json_object *cluster;      /* initial objects, includes resolved (owned array) */
	json_object *agent;        /* the first agent's settings (borrowed) or NULL */
	int dynamic_config;        /* the first agent's dynamicConfig */
	nl_scn_agent_spec *agents; /* `agent:` (one) or `agents:` (owned array) */
	size_t nagents;
	int several;  /* written as `agents:`: each agent's requests say its node */
	int programs; /* a `run:` step starts a program (real time passes) */
	/* An `expect: requests`: the agents' requests are in the client-side
	 * journal everywhere; with programs it needs the server's (journal). */
	int expects_requests;
	nl_scn_step *steps;
	size_t nsteps;
	nl_scn_marks *marks;
} nl_scn_scenario;

#define NL_SCENARIO_DEFAULT_TIMEOUT_USEC (60 * INT64_C(1000000))
#define NL_SCENARIO_DEFAULT_START "2026-01-01T00:00:00Z"
#define NL_SCENARIO_DEFAULT_PROGRAM_TIMEOUT_USEC (30 * INT64_C(1000000))

/* Read and parse a scenario file. Includes (`cluster: [{include: F}]`)
 * are read from fixtures_dir. NL_EIO / NL_EPARSE / NL_EINVAL with
 * "FILE:LINE:COL: ..." in err. *out belongs to the caller:
 * nl_scn_free (accepts NULL). */
int nl_scn_load(nl_scn_scenario **out, const char *file, const char *fixtures_dir, nl_err *err);
/* The same from a buffer; file names it in messages. */
int nl_scn_parse(nl_scn_scenario **out, const char *buf, size_t len, const char *file,
                 const char *fixtures_dir, nl_err *err);
void nl_scn_free(nl_scn_scenario *sc);

/* "FILE:LINE" of a document path ("steps[2].expect"), for runtime
 * messages. */
void nl_scn_where(char *out, size_t outlen, const nl_scn_scenario *sc, const char *path);

/* The resources a scenario may name, by kind ("Lease", "Node",
 * "ConfigMap", "Event", "Namespace"). NULL when unknown, or when
 * apiVersion (may be NULL) is not the kind's. */
const nl_resource *nl_scn_kind(const char *kind, const char *api_version);
/* "Lease, Node, ConfigMap, Event, Namespace" for messages. */
const char *nl_scn_kinds(void);

#endif
