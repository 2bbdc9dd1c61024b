/* The scenario parser (client/scenario/parse*.c): a file using every part of
 * the format, and malformed scenarios rejected with FILE:LINE:COL and what
 * was expected. */
#include <stdlib.h>
#include <string.h>

#include "../cu_main.h"
#include "scenario/scenario.h"

static char fixtures[2048];

static const char *fixtures_dir(void)
{
	const char *f = nl_test_fixture("manifests");
	snprintf(fixtures, sizeof(fixtures), "%.*s", (int)(strlen(f) - strlen("/manifests")), f);
	return fixtures;
}

static void test_scenario_parse__a_file_using_every_part(void)
{
	nl_scn_scenario *sc = NULL;
	nl_err err = {0};
	char path[4096];
	snprintf(path, sizeof(path), "%s", nl_test_fixture("scenario-parse/good.yaml"));
	int rc = nl_scn_load(&sc, path, fixtures_dir(), &err);
	if (rc != 0)
		fprintf(stderr, "\n  %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_STRING_EQUAL(sc->name, "every-part");
	CU_ASSERT_STRING_EQUAL(sc->description, "Parses, never runs.");
	CU_ASSERT_EQUAL(sc->ntags, 2);
	CU_ASSERT_STRING_EQUAL(sc->tags[1], "example");
	CU_ASSERT_EQUAL(sc->timeout_usec, 30 * INT64_C(1000000));
	CU_ASSERT_EQUAL(sc->seed, 7);
	CU_ASSERT_EQUAL(sc->start_usec, INT64_C(1795964645) * 1000000);
	/* Declared mockapi and journal; faults, virtual time (advance, sleeps,
	 * timings) and embedded (server:, restartServer) inferred. */
	CU_ASSERT_EQUAL(sc->requires, NL_REQ_ALL);
	CU_ASSERT_EQUAL(json_object_array_length(sc->cluster), 2);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(
	                           json_object_array_get_idx(sc->cluster, 0), "kind")),
	                       "Node");
	CU_ASSERT_TRUE(sc->dynamic_config);
	CU_ASSERT_PTR_NOT_NULL(sc->agent);
	CU_ASSERT_EQUAL_FATAL(sc->nsteps, 17);
	CU_ASSERT_EQUAL(sc->steps[0].kind, NL_STEP_GET);
	CU_ASSERT_EQUAL(sc->steps[2].kind, NL_STEP_CLEAR_FAULTS);
	CU_ASSERT_PTR_NULL(sc->steps[2].arg);
	CU_ASSERT_EQUAL(sc->steps[8].kind, NL_STEP_SYNC);
	CU_ASSERT_EQUAL(sc->steps[8].sync, NL_SYNC_LEASE);
	CU_ASSERT_EQUAL(sc->steps[10].usec, 10 * INT64_C(1000000));
	CU_ASSERT_EQUAL(sc->steps[11].usec, 90 * INT64_C(1000000));
	CU_ASSERT_EQUAL(sc->steps[15].kind, NL_STEP_EXPECT);
	CU_ASSERT_EQUAL(sc->steps[15].usec, 5 * INT64_C(1000000));
	CU_ASSERT_STRING_EQUAL(sc->steps[15].path, "steps[15]");
	char where[128];
	nl_scn_where(where, sizeof(where), sc, "steps[15].expect.object.fields");
	CU_ASSERT_PTR_NOT_NULL(strstr(where, "good.yaml:52"));
	nl_scn_free(sc);
}

/* `expect: requests` about the agents' requests needs no server journal:
 * the runner's client-side journal has them on any target. A program's
 * requests are only in the server's. */
static void test_scenario_parse__requests_need_the_journal_only_with_programs(void)
{
	const char *agent_only =
	    "agent: {nodeName: edge}\n"
	    "steps: [{sync: lease}, {expect: {requests: [get leases/edge]}}]\n";
	const char *with_program = "agent: {nodeName: edge}\n"
	                           "steps:\n"
	                           "  - expect: {requests: {count: {'*': 0}}}\n"
	                           "  - run: {command: [/bin/true]}\n";
	nl_scn_scenario *sc = NULL;
	CU_ASSERT_EQUAL_FATAL(
	    nl_scn_parse(&sc, agent_only, strlen(agent_only), "a.yaml", NULL, NULL), 0);
	CU_ASSERT_EQUAL(sc->requires, 0);
	nl_scn_free(sc);
	sc = NULL;
	CU_ASSERT_EQUAL_FATAL(
	    nl_scn_parse(&sc, with_program, strlen(with_program), "p.yaml", NULL, NULL), 0);
	CU_ASSERT_EQUAL(sc->requires, NL_REQ_JOURNAL);
	nl_scn_free(sc);
}

/* ${now} in an expectation is the clock's exact time: it holds on virtual
 * time only. Written into an object it is just a time. */
static void test_scenario_parse__now_in_an_expectation_needs_virtual_time(void)
{
	const char *expects = "agent: {nodeName: edge}\n"
	                      "steps:\n"
	                      "  - expect: {object: {kind: Lease, name: edge, namespace: ns1,\n"
	                      "                      match: {spec: {renewTime: '${now}'}}}}\n";
	const char *writes = "steps:\n"
	                     "  - apply: {apiVersion: v1, kind: ConfigMap, metadata: {name: c},\n"
	                     "            data: {at: '${now}'}}\n";
	nl_scn_scenario *sc = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_scn_parse(&sc, expects, strlen(expects), "e.yaml", NULL, NULL), 0);
	CU_ASSERT_EQUAL(sc->requires, NL_REQ_VIRTUAL_TIME);
	nl_scn_free(sc);
	sc = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_scn_parse(&sc, writes, strlen(writes), "w.yaml", NULL, NULL), 0);
	CU_ASSERT_EQUAL(sc->requires, 0);
	nl_scn_free(sc);
}

static void assert_rejected(const char *text, const char *want);

/* realTime: {scale: S} lets advance run on real time, S times as long:
 * advance then no longer needs virtual time. */
static void test_scenario_parse__real_time_scale(void)
{
	const char *scaled = "realTime: {scale: 0.1}\nagent: {nodeName: edge}\n"
	                     "steps: [{sync: lease}, {advance: 10s}, {sync: lease}]\n";
	nl_scn_scenario *sc = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_scn_parse(&sc, scaled, strlen(scaled), "s.yaml", NULL, NULL), 0);
	CU_ASSERT_EQUAL(sc->requires, 0);
	CU_ASSERT_DOUBLE_EQUAL(sc->real_time_scale, 0.1, 1e-12);
	nl_scn_free(sc);
	assert_rejected("realTime: {scale: 0}\nsteps: [start]\n",
	                "t.yaml:1:12: realTime.scale: expected a number above 0 and at most 1");
	assert_rejected("realTime: {scale: 2}\nsteps: [start]\n",
	                "t.yaml:1:12: realTime.scale: expected a number above 0 and at most 1");
	assert_rejected("realTime: {speed: 1}\nsteps: [start]\n",
	                "t.yaml:1:12: realTime.speed: unknown field (expected one of: scale)");
}

static void test_scenario_parse__defaults(void)
{
	const char *text = "steps: [start]\nagent: {nodeName: edge}\n";
	nl_scn_scenario *sc = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_scn_parse(&sc, text, strlen(text), "dir/my-case.yaml", NULL, NULL),
	                      0);
	CU_ASSERT_STRING_EQUAL(sc->name, "my-case");
	CU_ASSERT_EQUAL(sc->timeout_usec, NL_SCENARIO_DEFAULT_TIMEOUT_USEC);
	CU_ASSERT_EQUAL(sc->seed, 1);
	CU_ASSERT_EQUAL(sc->requires, 0);
	CU_ASSERT_EQUAL(sc->start_usec, INT64_C(1767225600) * 1000000);
	nl_scn_free(sc);
}

/* Parse text as "t.yaml" and compare the error with want exactly. */
static void assert_rejected(const char *text, const char *want)
{
	nl_scn_scenario *sc = NULL;
	nl_err err = {0};
	int rc = nl_scn_parse(&sc, text, strlen(text), "t.yaml", fixtures_dir(), &err);
	CU_ASSERT_NOT_EQUAL(rc, 0);
	CU_ASSERT_PTR_NULL(sc);
	if (strcmp(err.msg, want) != 0)
		fprintf(stderr, "\n  got:  %s\n  want: %s\n", err.msg, want);
	CU_ASSERT_STRING_EQUAL(err.msg, want);
}

static void test_scenario_parse__syntax_errors_have_positions(void)
{
	assert_rejected(
	    "name: x\nsteps: [start\n",
	    "t.yaml:3:1: did not find expected ',' or ']' while parsing a flow sequence");
	assert_rejected("name: x\n  bad: indent\n",
	                "t.yaml:2:6: mapping values are not allowed in this context");
	assert_rejected("", "t.yaml:1:1: the file holds no scenario (expected a mapping with name "
	                    "and steps)");
	assert_rejected("steps: [start]\nsteps: [stop]\n", "t.yaml:2:1: duplicate key steps");
}

static void test_scenario_parse__top_level_fields(void)
{
	assert_rejected("- start\n",
	                "t.yaml:1:1: expected a scenario (a mapping with name and steps), got a "
	                "sequence");
	assert_rejected("name: x\n", "t.yaml:1:1: missing required field \"steps\"");
	assert_rejected(
	    "name: x\nstep: []\n",
	    "t.yaml:2:1: step: unknown field (expected one of: name, description, tags, "
	    "requires, timeout, seed, startTime, realTime, vars, server, cluster, agent, "
	    "agents, steps)");
	assert_rejected("timeout: 10\nsteps: [start]\n",
	                "t.yaml:1:1: timeout: expected a duration like 10s or 1m30s, got a number");
	assert_rejected("requires: [faults, clocks]\nsteps: [start]\n",
	                "t.yaml:1:20: requires[1]: expected one of faults, journal, virtual-time, "
	                "embedded, mockapi, got \"clocks\"");
	assert_rejected("steps: []\n", "t.yaml:1:1: steps: expected at least one step");
	assert_rejected("vars: {1a: x}\nsteps: [start]\n",
	                "t.yaml:1:8: vars.1a: \"1a\" is not a variable name (letters, digits, _ "
	                "and -)");
	assert_rejected("startTime: yesterday\nsteps: [start]\n",
	                "t.yaml:1:1: startTime: expected an RFC 3339 time like "
	                "2026-01-01T00:00:00Z");
}

static void test_scenario_parse__cluster_and_agent(void)
{
	assert_rejected("cluster:\n  - kind: Pod\n    metadata: {name: p}\nsteps: [start]\n",
	                "t.yaml:2:5: cluster[0].kind: expected one of Lease, Node, ConfigMap, "
	                "Event, Namespace, got \"Pod\"");
	assert_rejected("cluster:\n  - kind: Node\n    apiVersion: v2\n    metadata: {name: p}\n"
	                "steps: [start]\n",
	                "t.yaml:3:5: cluster[0].apiVersion: \"v2\" is not the apiVersion of Node");
	assert_rejected("cluster:\n  - {kind: Node, spec: {}}\nsteps: [start]\n",
	                "t.yaml:2:5: cluster[0]: missing required field \"metadata.name\"");
	assert_rejected("agent: {leaseDurationSeconds: 40}\nsteps: [start]\n",
	                "t.yaml:1:1: agent: missing required field \"nodeName\"");
	assert_rejected(
	    "agent: {nodeName: edge, leaseDurationSeconds: 0}\nsteps: [start]\n",
	    "t.yaml:1:1: agent: leaseDurationSeconds: Invalid value: 0: must be between "
	    "1 and 3600");
	assert_rejected("agent: {nodeName: edge, leaseDurationSeconds: x}\nsteps: [start]\n",
	                "t.yaml:1:1: agent: configuration: json: cannot unmarshal string into Go "
	                "struct field NodeletConfiguration.leaseDurationSeconds of type int32");
	assert_rejected(
	    "agent: {nodeName: edge, dynamic: true}\nsteps: [start]\n",
	    "t.yaml:1:25: agent.dynamic: unknown field (expected one of: nodeName, "
	    "leaseName, leaseNamespace, jitterSeed, dynamicConfig, leaseDurationSeconds, "
	    "nodeStatusReportFrequency, nodeStatusUpdateFrequency, registerNode, nodeLabels, "
	    "registerWithTaints, "
	    "logVerbosity)");
}

static void test_scenario_parse__an_include_that_cannot_be_read(void)
{
	nl_scn_scenario *sc = NULL;
	nl_err err = {0};
	char path[2048], want[8192];
	snprintf(path, sizeof(path), "%s", nl_test_fixture("scenario-parse/bad-include.yaml"));
	CU_ASSERT_EQUAL(nl_scn_load(&sc, path, fixtures_dir(), &err), NL_EPARSE);
	snprintf(want, sizeof(want),
	         "%s:3:5: cluster[0].include: %s/manifests/no-such-file.yaml: No such file or "
	         "directory",
	         path, fixtures_dir());
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	CU_ASSERT_EQUAL(nl_scn_load(&sc, "/nonexistent/x.yaml", NULL, &err), NL_EIO);
	CU_ASSERT_STRING_EQUAL(err.msg, "/nonexistent/x.yaml: No such file or directory");
}

static void test_scenario_parse__steps(void)
{
	assert_rejected(
	    "steps:\n  - slep: 1s\n",
	    "t.yaml:2:5: steps[0].slep: expected a step (fault, clearFaults, apply, "
	    "create, update, patch, delete, get, watch, sync, start, stop, advance, run, "
	    "restart, restartServer or expect), got \"slep\"");
	assert_rejected("steps:\n  - advance: 1s\n    run: 2s\n",
	                "t.yaml:2:5: steps[0]: expected one step per list item, got 2 keys (start "
	                "each step with '-')");
	assert_rejected("steps:\n  - advance: ten\n",
	                "t.yaml:2:5: steps[0].advance: expected a duration like 10s or 1m30s, got "
	                "\"ten\"");
	assert_rejected("steps:\n  - advance\n",
	                "t.yaml:2:5: steps[0]: advance needs a value, as in \"- advance: ...\"");
	assert_rejected("steps:\n  - start: now\n",
	                "t.yaml:2:5: steps[0].start: start takes no value");
	assert_rejected(
	    "steps:\n  - sync: lease\n",
	    "t.yaml:2:5: steps[0].sync: sync needs an agent: add agent: with nodeName to "
	    "the scenario");
	assert_rejected(
	    "agent: {nodeName: edge}\nsteps:\n  - sync: leese\n",
	    "t.yaml:3:5: steps[0].sync: expected lease, status, config or register, got "
	    "\"leese\"");
	assert_rejected("agent: {nodeName: edge}\nsteps:\n  - sync: config\n",
	                "t.yaml:3:5: steps[0].sync: sync: config needs the dynamic config "
	                "controller: set agent.dynamicConfig: true");
	assert_rejected(
	    "steps:\n  - apply: {kind: ConfigMap, metadata: {name: \"${x}\"}}\n",
	    "t.yaml:2:5: steps[0].apply: variable \"x\" is not defined here (define it in "
	    "vars: or capture it with as: in an earlier step)");
	assert_rejected("steps:\n  - fault: {match: {verbs: [get]}, action: {status: 500}}\n",
	                "t.yaml:2:21: steps[0].fault.match.verbs: unknown field (expected one of: "
	                "verb, resource, group, namespace, name, userAgent, user, after)");
	assert_rejected("steps:\n  - patch: {kind: Node, name: x, type: yaml, patch: {}}\n",
	                "t.yaml:2:34: steps[0].patch.type: expected merge, strategic, json or "
	                "apply, got \"yaml\"");
	assert_rejected("steps:\n  - get: {kind: Node, name: x}\n",
	                "t.yaml:2:5: steps[0].get: missing required field \"as\"");
	assert_rejected("steps:\n  - watch: {kind: Node, events: 0}\n",
	                "t.yaml:2:25: steps[0].watch.events: expected a number >= 1");
}

/* `agents:` is a list of what `agent:` takes; steps name one with a
 * sibling `agent:` key. */
static void test_scenario_parse__several_agents(void)
{
	const char *text = "agents:\n"
	                   "  - {nodeName: edge-1}\n"
	                   "  - {nodeName: edge-2, dynamicConfig: true}\n"
	                   "steps:\n"
	                   "  - start\n"
	                   "  - sync: config\n"
	                   "    agent: edge-2\n"
	                   "  - stop:\n"
	                   "    agent: edge-1\n"
	                   "  - expect: {requests: []}\n"
	                   "    agent: edge-2\n";
	nl_scn_scenario *sc = NULL;
	nl_err err = {0};
	int rc = nl_scn_parse(&sc, text, strlen(text), "t.yaml", NULL, &err);
	if (rc != 0)
		fprintf(stderr, "\n  %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL_FATAL(sc->nagents, 2);
	CU_ASSERT_TRUE(sc->several);
	CU_ASSERT_STRING_EQUAL(sc->agents[1].node_name, "edge-2");
	CU_ASSERT_FALSE(sc->agents[0].dynamic_config);
	CU_ASSERT_TRUE(sc->agents[1].dynamic_config);
	CU_ASSERT_PTR_EQUAL(sc->agent, sc->agents[0].settings);
	CU_ASSERT_EQUAL(sc->steps[0].agent, -1);
	CU_ASSERT_EQUAL(sc->steps[1].kind, NL_STEP_SYNC);
	CU_ASSERT_EQUAL(sc->steps[1].sync, NL_SYNC_CONFIG);
	CU_ASSERT_EQUAL(sc->steps[1].agent, 1);
	CU_ASSERT_EQUAL(sc->steps[2].kind, NL_STEP_STOP);
	CU_ASSERT_EQUAL(sc->steps[2].agent, 0);
	CU_ASSERT_EQUAL(sc->steps[3].agent, 1);
	nl_scn_free(sc);

	/* The single form is one agent, not "several". */
	text = "agent: {nodeName: edge}\nsteps:\n  - sync: lease\n    agent: edge\n";
	CU_ASSERT_EQUAL_FATAL(nl_scn_parse(&sc, text, strlen(text), "t.yaml", NULL, NULL), 0);
	CU_ASSERT_EQUAL(sc->nagents, 1);
	CU_ASSERT_FALSE(sc->several);
	CU_ASSERT_EQUAL(sc->steps[0].agent, 0);
	nl_scn_free(sc);

	assert_rejected("agent: {nodeName: a}\nagents: [{nodeName: b}]\nsteps: [start]\n",
	                "t.yaml:2:1: agents: write either agent: or agents:, not both");
	assert_rejected("agents: []\nsteps: [start]\n",
	                "t.yaml:1:1: agents: expected at least one agent");
	assert_rejected("agents: {nodeName: a}\nsteps: [start]\n",
	                "t.yaml:1:1: agents: expected a list of agents (each a mapping with "
	                "nodeName), got a mapping");
	assert_rejected("agents:\n  - {nodeName: a}\n  - {nodeName: a}\nsteps: [start]\n",
	                "t.yaml:3:6: agents[1].nodeName: \"a\" is already the node of agents[0]");
	assert_rejected("agents:\n  - {nodeName: a}\n  - {leaseDurationSeconds: 40}\n"
	                "steps: [start]\n",
	                "t.yaml:3:5: agents[1]: missing required field \"nodeName\"");
	assert_rejected("agents:\n  - {nodeName: a}\n  - {nodeName: b, leaseDurationSeconds: 0}\n"
	                "steps: [start]\n",
	                "t.yaml:3:5: agents[1]: leaseDurationSeconds: Invalid value: 0: must be "
	                "between 1 and 3600");
	assert_rejected("agents: [{nodeName: a}, {nodeName: b}]\nsteps:\n  - sync: lease\n",
	                "t.yaml:3:5: steps[0].sync: there are several agents: name one with "
	                "agent: NAME beside the step");
	assert_rejected("agents: [{nodeName: a}, {nodeName: b}]\nsteps:\n"
	                "  - expect: {agent: {running: true}}\n",
	                "t.yaml:3:5: steps[0].expect: there are several agents: name one with "
	                "agent: NAME beside the step");
	assert_rejected("agents: [{nodeName: a}, {nodeName: b}]\nsteps:\n"
	                "  - sync: lease\n    agent: c\n",
	                "t.yaml:4:5: steps[0].agent: expected the nodeName of an agent (a, b), "
	                "got \"c\"");
	assert_rejected("agents: [{nodeName: a}, {nodeName: b}]\nsteps:\n"
	                "  - advance: 1s\n    agent: a\n",
	                "t.yaml:4:5: steps[0].agent: agent: goes with sync, start, stop, restart, "
	                "fault and expect, not advance");
	assert_rejected("steps:\n  - start:\n    agent: a\n",
	                "t.yaml:3:5: steps[0].agent: agent: needs agent: or agents: in the "
	                "scenario");
	assert_rejected("agents: [{nodeName: a}, {nodeName: b, dynamicConfig: true}]\nsteps:\n"
	                "  - sync: config\n    agent: a\n",
	                "t.yaml:3:5: steps[0].sync: sync: config needs the dynamic config "
	                "controller: set dynamicConfig: true on agent a");
}

/* `run:` with a mapping starts a program; with a duration it lets time
 * pass, as before. */
static void test_scenario_parse__programs(void)
{
	const char *text = "steps:\n"
	                   "  - run: 2s\n"
	                   "  - run:\n"
	                   "      command: [/usr/bin/python3, prog.py, --x]\n"
	                   "      env: {A: b}\n"
	                   "      exit: 3\n"
	                   "      timeout: 5s\n";
	nl_scn_scenario *sc = NULL;
	nl_err err = {0};
	int rc = nl_scn_parse(&sc, text, strlen(text), "t.yaml", NULL, &err);
	if (rc != 0)
		fprintf(stderr, "\n  %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(sc->steps[0].kind, NL_STEP_RUN);
	CU_ASSERT_EQUAL(sc->steps[0].usec, 2 * INT64_C(1000000));
	CU_ASSERT_EQUAL(sc->steps[1].kind, NL_STEP_PROGRAM);
	CU_ASSERT_EQUAL(sc->steps[1].usec, 5 * INT64_C(1000000));
	CU_ASSERT_STRING_EQUAL(nl_scn_step_name(sc->steps[1].kind), "run");
	CU_ASSERT_TRUE(sc->programs);
	nl_scn_free(sc);

	/* Default timeout. */
	text = "steps:\n  - run: {command: [/bin/true]}\n";
	CU_ASSERT_EQUAL_FATAL(nl_scn_parse(&sc, text, strlen(text), "t.yaml", NULL, NULL), 0);
	CU_ASSERT_EQUAL(sc->steps[0].usec, NL_SCENARIO_DEFAULT_PROGRAM_TIMEOUT_USEC);
	nl_scn_free(sc);

	/* ${fixturesDir} names a program beside the fixtures; it is a builtin. */
	text = "steps:\n  - run: {command: [\"${fixturesDir}/programs/p.py\"]}\n";
	rc = nl_scn_parse(&sc, text, strlen(text), "t.yaml", "/f", &err);
	if (rc != 0)
		fprintf(stderr, "\n  %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_STRING_EQUAL(sc->fixtures_dir, "/f");
	nl_scn_free(sc);
	CU_ASSERT_EQUAL_FATAL(nl_scn_parse(&sc, text, strlen(text), "t.yaml", NULL, NULL), 0);
	CU_ASSERT_STRING_EQUAL(sc->fixtures_dir, "."); /* includes are then relative to . */
	nl_scn_free(sc);
	assert_rejected("vars: {fixturesDir: /x}\nsteps: [{run: 1s}]\n",
	                "t.yaml:1:8: vars.fixturesDir: \"fixturesDir\" is a builtin variable; "
	                "choose another name");

	/* ${configDir}, the agent's dynamic config directory: in steps of a
	 * scenario whose agent has one, and nowhere else. */
	text = "agent: {nodeName: edge-1, dynamicConfig: true}\n"
	       "steps:\n  - run: {command: [/bin/rm, \"${configDir}/x\"]}\n";
	rc = nl_scn_parse(&sc, text, strlen(text), "t.yaml", NULL, &err);
	if (rc != 0)
		fprintf(stderr, "\n  %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	nl_scn_free(sc);
	assert_rejected(
	    "agent: {nodeName: edge-1}\nsteps:\n  - run: {command: [\"${configDir}\"]}\n",
	    "t.yaml:3:5: steps[0].run: variable \"configDir\" is not defined here "
	    "(define it in vars: or capture it with as: in an earlier step)");
	assert_rejected("vars: {configDir: /x}\nsteps: [{run: 1s}]\n",
	                "t.yaml:1:8: vars.configDir: \"configDir\" is a builtin variable; "
	                "choose another name");

	assert_rejected("steps:\n  - run: {command: []}\n",
	                "t.yaml:2:11: steps[0].run.command: expected the program and its "
	                "arguments, a non-empty list of strings");
	assert_rejected("steps:\n  - run: {command: [python3, 1]}\n",
	                "t.yaml:2:30: steps[0].run.command[1]: expected a string, got a number");
	assert_rejected("steps:\n  - run: {command: true}\n",
	                "t.yaml:2:11: steps[0].run.command: expected the program and its "
	                "arguments, a non-empty list of strings");
	assert_rejected("steps:\n  - run: {env: {}}\n",
	                "t.yaml:2:5: steps[0].run: missing required field \"command\"");
	assert_rejected("steps:\n  - run: {command: [x], exit: 256}\n",
	                "t.yaml:2:25: steps[0].run.exit: expected an exit status from 0 to 255");
	assert_rejected("steps:\n  - run: {command: [x], env: {A: 1}}\n",
	                "t.yaml:2:31: steps[0].run.env.A: expected a string, got a number");
	assert_rejected("steps:\n  - run: {command: [x], env: {KUBECONFIG: /k}}\n",
	                "t.yaml:2:31: steps[0].run.env.KUBECONFIG: the runner sets KUBECONFIG "
	                "to the scenario's cluster");
	assert_rejected("steps:\n  - run: {command: [x], background: true}\n",
	                "t.yaml:2:25: steps[0].run.background: unknown field (expected one of: "
	                "command, env, exit, timeout)");
	assert_rejected("steps:\n  - run: [x]\n",
	                "t.yaml:2:5: steps[0].run: expected a duration like 10s, or a program "
	                "as {command: [...]}, got a sequence");
}

static void test_scenario_parse__expectations(void)
{
	assert_rejected("steps:\n  - expect: {}\n",
	                "t.yaml:2:5: steps[0].expect: expected at least one of object, objects, "
	                "absent, list, requests, agent, files, error, events");
	assert_rejected("steps:\n  - expect:\n      object: {kind: Lease}\n",
	                "t.yaml:3:7: steps[0].expect.object: missing required field \"name\"");
	assert_rejected(
	    "steps:\n  - expect:\n      object:\n        kind: Lease\n        name: l\n"
	    "        fields: {\"spec..x\": 1}\n",
	    "t.yaml:6:18: steps[0].expect.object.fields[\"spec..x\"]: path \"spec..x\": "
	    "expected a field name after '.' at character 6");
	assert_rejected("steps:\n  - expect:\n      object:\n        kind: Lease\n        name: l\n"
	                "        match:\n          spec: {holderIdentity: {$regexp: x}}\n",
	                "t.yaml:7:18: steps[0].expect.object.match.spec.holderIdentity: unknown "
	                "operator $regexp (expected $present, $regex, $contains, $len or $not)");
	assert_rejected(
	    "steps:\n  - expect:\n      requests: [get]\n",
	    "t.yaml:3:18: steps[0].expect.requests[0]: request pattern \"get\": expected "
	    "VERB TARGET [CODE] [+TIME|@TIME], e.g. \"get leases/edge-1\"");
	assert_rejected("steps:\n  - expect:\n      requests: {exact: []}\n",
	                "t.yaml:3:18: steps[0].expect.requests.exact: unknown field (expected one "
	                "of: exactly, contains, count, none)");
	assert_rejected("steps:\n  - expect: {events: []}\n",
	                "t.yaml:2:14: steps[0].expect.events: events are those of the last watch "
	                "step: add a watch step before this expect");
	assert_rejected(
	    "agent: {nodeName: edge}\nsteps:\n  - expect: {agent: {leaseRV: x}}\n",
	    "t.yaml:3:22: steps[0].expect.agent.leaseRV: unknown field (expected one of: "
	    "registered, running, leaseCached, leaseResourceVersion, lease, "
	    "heartbeatFailures, statusReports, leaseDurationSeconds, sleeps, config, "
	    "inTrial)");
	assert_rejected("agent: {nodeName: edge}\nsteps:\n  - expect: {files: {a: true}}\n",
	                "t.yaml:3:14: steps[0].expect.files: files are in the dynamic config "
	                "directory: set agent.dynamicConfig: true");
	assert_rejected("steps:\n  - expect: {error: 409}\n",
	                "t.yaml:2:14: steps[0].expect.error: expected a reason like Conflict, or a "
	                "mapping of code, status, reason, message, got a number");
	/* A step cannot use what it captures itself; later steps can. */
	assert_rejected(
	    "steps:\n  - expect:\n      object: {kind: Node, name: x, as: node, match: "
	    "{a: \"${node.x}\"}}\n",
	    "t.yaml:2:5: steps[0].expect: variable \"node\" is not defined here (define "
	    "it in vars: or capture it with as: in an earlier step)");
}

static CU_TestInfo tests[] = {
    {"a_file_using_every_part", test_scenario_parse__a_file_using_every_part},
    {"defaults", test_scenario_parse__defaults},
    {"real_time_scale", test_scenario_parse__real_time_scale},
    {"requests_need_the_journal_only_with_programs",
     test_scenario_parse__requests_need_the_journal_only_with_programs},
    {"now_in_an_expectation_needs_virtual_time",
     test_scenario_parse__now_in_an_expectation_needs_virtual_time},
    {"syntax_errors_have_positions", test_scenario_parse__syntax_errors_have_positions},
    {"top_level_fields", test_scenario_parse__top_level_fields},
    {"cluster_and_agent", test_scenario_parse__cluster_and_agent},
    {"an_include_that_cannot_be_read", test_scenario_parse__an_include_that_cannot_be_read},
    {"steps", test_scenario_parse__steps},
    {"expectations", test_scenario_parse__expectations},
    {"several_agents", test_scenario_parse__several_agents},
    {"programs", test_scenario_parse__programs},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"scenario_parse", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
