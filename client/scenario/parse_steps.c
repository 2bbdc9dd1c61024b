/* Steps of a scenario (scenario.h): one list item, one step. */
#include <stdio.h>
#include <string.h>

#include "parse_internal.h"

static const struct {
	const char *name;
	nl_scn_step_kind kind;
	int bare; /* written without an argument */
} steps[] = {
    {"fault", NL_STEP_FAULT, 0},     {"clearFaults", NL_STEP_CLEAR_FAULTS, 1},
    {"apply", NL_STEP_APPLY, 0},     {"create", NL_STEP_CREATE, 0},
    {"update", NL_STEP_UPDATE, 0},   {"patch", NL_STEP_PATCH, 0},
    {"delete", NL_STEP_DELETE, 0},   {"get", NL_STEP_GET, 0},
    {"watch", NL_STEP_WATCH, 0},     {"sync", NL_STEP_SYNC, 0},
    {"start", NL_STEP_START, 1},     {"stop", NL_STEP_STOP, 1},
    {"advance", NL_STEP_ADVANCE, 0}, {"run", NL_STEP_RUN, 0},
    {"restart", NL_STEP_RESTART, 1}, {"restartServer", NL_STEP_RESTART_SERVER, 1},
    {"expect", NL_STEP_EXPECT, 0},
};
#define NSTEPS (sizeof(steps) / sizeof(steps[0]))

#define STEP_LIST                                                                             \
	"fault, clearFaults, apply, create, update, patch, delete, get, watch, sync, start, " \
	"stop, advance, run, restart, restartServer or expect"

static int find_step(const char *name)
{
	for (size_t i = 0; i < NSTEPS; i++)
		if (strcmp(steps[i].name, name) == 0)
			return (int)i;
	return -1;
}

static int one_of(nl_scn__pctx *c, const char *path, json_object *v, const char *const *allowed,
                  const char *list)
{
	if (json_object_is_type(v, json_type_string))
		for (; *allowed; allowed++)
			if (strcmp(json_object_get_string(v), *allowed) == 0)
				return 0;
	if (json_object_is_type(v, json_type_string))
		return nl_scn__pfail(c, path, "expected %s, got \"%s\"", list,
		                     json_object_get_string(v));
	return nl_scn__pfail(c, path, "expected %s, got %s", list, nl_scn__ptype(v));
}

/* --- faults -------------------------------------------------------------------------------- */

static int parse_one_fault(nl_scn__pctx *c, const char *path, json_object *f)
{
	static const char *const keys[] = {"id", "match", "action", "times", "probability", NULL};
	static const char *const match_keys[] = {
	    "verb", "resource", "group", "namespace", "name", "userAgent", "user", "after", NULL};
	static const char *const required[] = {"action", NULL};
	char p[NL__PATH_MAX];
	json_object *m, *a;
	int rc;
	if ((rc = nl_scn__pwant(c, path, f, json_type_object,
	                        "a fault (match, action, times) as the control API takes")) != 0 ||
	    (rc = nl_scn__pkeys(c, path, f, keys, required)) != 0)
		return rc;
	if (json_object_object_get_ex(f, "match", &m) &&
	    ((rc = nl_scn__pwant(c, nl_scn__pkey(p, path, "match"), m, json_type_object,
	                         "a mapping")) != 0 ||
	     (rc = nl_scn__pkeys(c, p, m, match_keys, NULL)) != 0))
		return rc;
	json_object_object_get_ex(f, "action", &a);
	return nl_scn__pwant(c, nl_scn__pkey(p, path, "action"), a, json_type_object,
	                     "an action like {status: 500}");
}

static int parse_fault(nl_scn__pctx *c, const char *path, json_object *v)
{
	char p[NL__PATH_MAX];
	int rc = 0;
	c->sc->requires |= NL_REQ_FAULTS;
	if (!json_object_is_type(v, json_type_array))
		return parse_one_fault(c, path, v);
	for (size_t i = 0; rc == 0 && i < json_object_array_length(v); i++)
		rc = parse_one_fault(c, nl_scn__pidx(p, path, i), json_object_array_get_idx(v, i));
	return rc;
}

/* --- writes and reads ------------------------------------------------------------------------ */

static int parse_patch(nl_scn__pctx *c, const char *path, json_object *v)
{
	static const char *const extra[] = {"type",         "patch", "subresource",
	                                    "fieldManager", "force", NULL};
	static const char *const types[] = {"merge", "strategic", "json", "apply", NULL};
	char p[NL__PATH_MAX];
	json_object *x;
	int rc;
	if ((rc = nl_scn__pobjref(c, path, v, extra)) != 0)
		return rc;
	if (!json_object_object_get_ex(v, "patch", &x))
		return nl_scn__pfail(c, path, "missing required field \"patch\"");
	if (json_object_object_get_ex(v, "type", &x) &&
	    (rc = one_of(c, nl_scn__pkey(p, path, "type"), x, types,
	                 "merge, strategic, json or apply")) != 0)
		return rc;
	if (json_object_object_get_ex(v, "subresource", &x) &&
	    (rc = one_of(c, nl_scn__pkey(p, path, "subresource"), x,
	                 (const char *const[]){"status", NULL}, "status")) != 0)
		return rc;
	if (json_object_object_get_ex(v, "fieldManager", &x) &&
	    (rc = nl_scn__pwant(c, nl_scn__pkey(p, path, "fieldManager"), x, json_type_string,
	                        "a manager name")) != 0)
		return rc;
	if (json_object_object_get_ex(v, "force", &x))
		return nl_scn__pwant(c, nl_scn__pkey(p, path, "force"), x, json_type_boolean,
		                     "true or false");
	return 0;
}

static int parse_delete(nl_scn__pctx *c, const char *path, json_object *v)
{
	static const char *const extra[] = {"preconditions", "propagationPolicy", NULL};
	static const char *const policies[] = {"Orphan", "Background", "Foreground", NULL};
	static const char *const pre_keys[] = {"uid", "resourceVersion", NULL};
	char p[NL__PATH_MAX];
	json_object *x;
	int rc;
	if ((rc = nl_scn__pobjref(c, path, v, extra)) != 0)
		return rc;
	if (json_object_object_get_ex(v, "propagationPolicy", &x) &&
	    (rc = one_of(c, nl_scn__pkey(p, path, "propagationPolicy"), x, policies,
	                 "Orphan, Background or Foreground")) != 0)
		return rc;
	if (!json_object_object_get_ex(v, "preconditions", &x))
		return 0;
	nl_scn__pkey(p, path, "preconditions");
	if ((rc = nl_scn__pwant(c, p, x, json_type_object,
	                        "a mapping of uid and resourceVersion")) != 0 ||
	    (rc = nl_scn__pkeys(c, p, x, pre_keys, NULL)) != 0)
		return rc;
	return 0;
}

static int positive_int(nl_scn__pctx *c, const char *path, json_object *v)
{
	if (json_object_is_type(v, json_type_int) && json_object_get_int64(v) >= 1 &&
	    json_object_get_int64(v) <= 1000000)
		return 0;
	return nl_scn__pfail(c, path, "expected a number >= 1");
}

static int parse_watch(nl_scn__pctx *c, const char *path, json_object *v)
{
	static const char *const keys[] = {"kind",
	                                   "apiVersion",
	                                   "namespace",
	                                   "resourceVersion",
	                                   "labelSelector",
	                                   "fieldSelector",
	                                   "events",
	                                   "timeoutSeconds",
	                                   "as",
	                                   NULL};
	static const char *const required[] = {"kind", NULL};
	char p[NL__PATH_MAX];
	json_object *x;
	int rc;
	if ((rc = nl_scn__pwant(c, path, v, json_type_object, "a mapping with kind")) != 0 ||
	    (rc = nl_scn__pkeys(c, path, v, keys, required)) != 0)
		return rc;
	json_object_object_get_ex(v, "kind", &x);
	if (!json_object_is_type(x, json_type_string) ||
	    !nl_scn_kind(json_object_get_string(x), NULL))
		return nl_scn__pfail(c, nl_scn__pkey(p, path, "kind"), "expected one of %s",
		                     nl_scn_kinds());
	static const char *const strs[] = {"namespace", "resourceVersion", "labelSelector",
	                                   "fieldSelector"};
	for (size_t i = 0; i < 4; i++)
		if (json_object_object_get_ex(v, strs[i], &x) &&
		    (rc = nl_scn__pwant(c, nl_scn__pkey(p, path, strs[i]), x, json_type_string,
		                        "a string")) != 0)
			return rc;
	if (json_object_object_get_ex(v, "events", &x) &&
	    (rc = positive_int(c, nl_scn__pkey(p, path, "events"), x)) != 0)
		return rc;
	if (json_object_object_get_ex(v, "timeoutSeconds", &x) &&
	    (rc = positive_int(c, nl_scn__pkey(p, path, "timeoutSeconds"), x)) != 0)
		return rc;
	c->seen_watch = 1;
	return 0;
}

/* --- the step -------------------------------------------------------------------------------- */

static int needs_agent(nl_scn__pctx *c, const char *path, const char *step)
{
	if (c->sc->agent)
		return 0;
	return nl_scn__pfail(c, path, "%s needs an agent: add agent: with nodeName to the scenario",
	                     step);
}

/* A step about one agent: the one named beside it, or the only one. */
static int needs_one_agent(nl_scn__pctx *c, const char *path, const nl_scn_step *st,
                           const char *step)
{
	int rc = needs_agent(c, path, step);
	if (rc == 0 && st->agent < 0 && c->sc->nagents > 1)
		return nl_scn__pfail(c, path,
		                     "there are several agents: name one with agent: NAME beside "
		                     "the step");
	return rc;
}

static int parse_sync(nl_scn__pctx *c, const char *path, nl_scn_step *st)
{
	static const char *const kinds[] = {"lease", "status", "config", "register", NULL};
	int rc = one_of(c, path, st->arg, kinds, "lease, status, config or register");
	if (rc != 0 || (rc = needs_one_agent(c, path, st, "sync")) != 0)
		return rc;
	const char *k = json_object_get_string(st->arg);
	st->sync = strcmp(k, "lease") == 0    ? NL_SYNC_LEASE
	           : strcmp(k, "status") == 0 ? NL_SYNC_STATUS
	           : strcmp(k, "config") == 0 ? NL_SYNC_CONFIG
	                                      : NL_SYNC_REGISTER;
	const nl_scn_agent_spec *a = &c->sc->agents[st->agent < 0 ? 0 : st->agent];
	if (st->sync == NL_SYNC_CONFIG && !a->dynamic_config) {
		if (c->sc->several)
			return nl_scn__pfail(
			    c, path,
			    "sync: config needs the dynamic config controller: set "
			    "dynamicConfig: true on agent %s",
			    a->node_name);
		return nl_scn__pfail(c, path,
		                     "sync: config needs the dynamic config controller: set "
		                     "agent.dynamicConfig: true");
	}
	return 0;
}

int nl_scn__pdynamic(const nl_scn__pctx *c)
{
	if (!c->sc->nagents)
		return 0;
	return c->sc->agents[c->step_agent < 0 ? 0 : c->step_agent].dynamic_config;
}

/* --- programs ------------------------------------------------------------------------------ */

static int parse_command(nl_scn__pctx *c, const char *path, json_object *v)
{
	char p[NL__PATH_MAX];
	int rc;
	if (!json_object_is_type(v, json_type_array) || json_object_array_length(v) == 0)
		return nl_scn__pfail(c, path,
		                     "expected the program and its arguments, a non-empty list "
		                     "of strings");
	for (size_t i = 0; i < json_object_array_length(v); i++)
		if ((rc =
		         nl_scn__pwant(c, nl_scn__pidx(p, path, i), json_object_array_get_idx(v, i),
		                       json_type_string, "a string")) != 0)
			return rc;
	return 0;
}

static int parse_env(nl_scn__pctx *c, const char *path, json_object *v)
{
	char p[NL__PATH_MAX];
	int rc;
	if ((rc = nl_scn__pwant(c, path, v, json_type_object, "a mapping of names to values")) != 0)
		return rc;
	json_object_object_foreach(v, key, val)
	{
		nl_scn__pkey(p, path, key);
		if ((rc = nl_scn__pwant(c, p, val, json_type_string, "a string")) != 0)
			return rc;
		if (strcmp(key, "KUBECONFIG") == 0)
			return nl_scn__pfail(
			    c, p, "the runner sets KUBECONFIG to the scenario's cluster");
	}
	return 0;
}

/* `run: {command, env, exit, timeout}`: a program of the user's, on real
 * time, against the scenario's cluster. */
static int parse_program(nl_scn__pctx *c, const char *path, nl_scn_step *st)
{
	static const char *const keys[] = {"command", "env", "exit", "timeout", NULL};
	static const char *const required[] = {"command", NULL};
	char p[NL__PATH_MAX];
	json_object *x;
	int rc;
	if ((rc = nl_scn__pkeys(c, path, st->arg, keys, required)) != 0 ||
	    (rc = parse_command(c, nl_scn__pkey(p, path, "command"),
	                        json_object_object_get(st->arg, "command"))) != 0)
		return rc;
	if (json_object_object_get_ex(st->arg, "env", &x) &&
	    (rc = parse_env(c, nl_scn__pkey(p, path, "env"), x)) != 0)
		return rc;
	if (json_object_object_get_ex(st->arg, "exit", &x) &&
	    (!json_object_is_type(x, json_type_int) || json_object_get_int64(x) < 0 ||
	     json_object_get_int64(x) > 255))
		return nl_scn__pfail(c, nl_scn__pkey(p, path, "exit"),
		                     "expected an exit status from 0 to 255");
	st->usec = NL_SCENARIO_DEFAULT_PROGRAM_TIMEOUT_USEC;
	if (json_object_object_get_ex(st->arg, "timeout", &x) &&
	    (rc = nl_scn__pduration(c, nl_scn__pkey(p, path, "timeout"), x, 0, &st->usec)) != 0)
		return rc;
	c->sc->programs = 1;
	return 0;
}

/* `run: D` lets time pass; `run: {command: ...}` starts a program. */
static int parse_run(nl_scn__pctx *c, const char *path, nl_scn_step *st)
{
	if (json_object_is_type(st->arg, json_type_object)) {
		st->kind = NL_STEP_PROGRAM;
		return parse_program(c, path, st);
	}
	if (!json_object_is_type(st->arg, json_type_string))
		return nl_scn__pfail(c, path,
		                     "expected a duration like 10s, or a program as {command: "
		                     "[...]}, got %s",
		                     nl_scn__ptype(st->arg));
	return nl_scn__pduration(c, path, st->arg, 1, &st->usec);
}

static int parse_arg(nl_scn__pctx *c, nl_scn_step *st, const char *path)
{
	switch (st->kind) {
	case NL_STEP_FAULT:
		return parse_fault(c, path, st->arg);
	case NL_STEP_CLEAR_FAULTS:
		c->sc->requires
		|= NL_REQ_FAULTS;
		return st->arg ? nl_scn__pwant(c, path, st->arg, json_type_string, "a fault id")
		               : 0;
	case NL_STEP_APPLY:
	case NL_STEP_CREATE:
	case NL_STEP_UPDATE:
		return nl_scn__pobject(c, path, st->arg);
	case NL_STEP_PATCH:
		return parse_patch(c, path, st->arg);
	case NL_STEP_DELETE:
		return parse_delete(c, path, st->arg);
	case NL_STEP_GET: {
		int rc = nl_scn__pobjref(c, path, st->arg, (const char *const[]){"as", NULL});
		if (rc == 0 && !json_object_object_get_ex(st->arg, "as", NULL))
			rc = nl_scn__pfail(c, path, "missing required field \"as\"");
		return rc;
	}
	case NL_STEP_WATCH:
		return parse_watch(c, path, st->arg);
	case NL_STEP_SYNC:
		return parse_sync(c, path, st);
	case NL_STEP_START:
	case NL_STEP_STOP:
	case NL_STEP_RESTART:
		return needs_agent(c, path, nl_scn_step_name(st->kind));
	case NL_STEP_ADVANCE:
		/* On real time it waits, scaled: only where the scenario says so. */
		if (!c->sc->real_time_scale)
		c->sc->requires
		|= NL_REQ_VIRTUAL_TIME;
		return nl_scn__pduration(c, path, st->arg, 1, &st->usec);
	case NL_STEP_RUN:
		return parse_run(c, path, st);
	case NL_STEP_PROGRAM:
		return 0;
	case NL_STEP_RESTART_SERVER:
		c->sc->requires
		|= NL_REQ_EMBEDDED;
		return 0;
	case NL_STEP_EXPECT: {
		int rc = nl_scn__parse_expect(c, st, st->arg);
		if (rc == 0 && json_object_object_get_ex(st->arg, "agent", NULL))
			rc = needs_one_agent(c, path, st, "expect: agent");
		return rc;
	}
	}
	return 0;
}

/* `as:` of get and watch: defined once the step itself has been checked. */
static int define_capture(nl_scn__pctx *c, nl_scn_step *st, const char *path)
{
	char p[NL__PATH_MAX];
	json_object *as;
	if ((st->kind != NL_STEP_GET && st->kind != NL_STEP_WATCH) ||
	    !json_object_object_get_ex(st->arg, "as", &as))
		return 0;
	return nl_scn__pdefine(c, nl_scn__pkey(p, path, "as"), as);
}

/* Steps that may name one agent with `agent:` beside them. */
static int takes_agent(nl_scn_step_kind k)
{
	switch (k) {
	case NL_STEP_SYNC:
	case NL_STEP_START:
	case NL_STEP_STOP:
	case NL_STEP_RESTART:
	case NL_STEP_FAULT:
	case NL_STEP_EXPECT:
		return 1;
	default:
		return 0;
	}
}

/* `agent: NAME` beside a step (path "steps[i]"), into st->agent. */
static int parse_step_agent(nl_scn__pctx *c, const char *path, nl_scn_step *st, json_object *v,
                            const char *name)
{
	char p[NL__PATH_MAX], names[512] = "";
	nl_scn__pkey(p, path, "agent");
	if (!takes_agent(st->kind))
		return nl_scn__pfail(c, p,
		                     "agent: goes with sync, start, stop, restart, fault "
		                     "and expect, not %s",
		                     name);
	if (c->sc->nagents == 0)
		return nl_scn__pfail(c, p, "agent: needs agent: or agents: in the scenario");
	for (size_t i = 0; i < c->sc->nagents; i++) {
		if (json_object_is_type(v, json_type_string) &&
		    strcmp(json_object_get_string(v), c->sc->agents[i].node_name) == 0) {
			st->agent = (int)i;
			return 0;
		}
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
		         i ? ", " : "", c->sc->agents[i].node_name);
	}
	if (json_object_is_type(v, json_type_string))
		return nl_scn__pfail(c, p, "expected the nodeName of an agent (%s), got \"%s\"",
		                     names, json_object_get_string(v));
	return nl_scn__pfail(c, p, "expected the nodeName of an agent (%s), got %s", names,
	                     nl_scn__ptype(v));
}

int nl_scn__parse_step(nl_scn__pctx *c, nl_scn_step *out, json_object *v, size_t index)
{
	char path[NL__PATH_MAX], item[NL__PATH_MAX];
	const char *name = NULL;
	json_object *arg = NULL, *agent = NULL;
	int rc, i, has_agent = 0;
	nl_scn__pidx(path, "steps", index);
	snprintf(item, sizeof(item), "%s", path);
	if (json_object_is_type(v, json_type_string)) {
		name = json_object_get_string(v);
		if ((i = find_step(name)) >= 0 && !steps[i].bare)
			return nl_scn__pfail(c, path, "%s needs a value, as in \"- %s: ...\"", name,
			                     name);
	} else if (json_object_is_type(v, json_type_object)) {
		has_agent = json_object_object_get_ex(v, "agent", &agent);
		if (json_object_object_length(v) != 1 + has_agent)
			return nl_scn__pfail(
			    c, path,
			    "expected one step per list item, got %d keys (start each step "
			    "with '-')",
			    json_object_object_length(v));
		json_object_object_foreach(v, key, val)
		{
			if (has_agent && strcmp(key, "agent") == 0)
				continue;
			name = key;
			arg = val;
		}
		nl_scn__pkey(path, item, name);
	} else {
		return nl_scn__pfail(c, path, "expected a step (%s), got %s", STEP_LIST,
		                     nl_scn__ptype(v));
	}
	if ((i = find_step(name)) < 0)
		return nl_scn__pfail(c, path, "expected a step (%s), got \"%s\"", STEP_LIST, name);
	memset(out, 0, sizeof(*out));
	out->kind = steps[i].kind;
	out->arg = arg;
	out->agent = -1;
	snprintf(out->path, sizeof(out->path), "steps[%zu]", index);
	if (has_agent && (rc = parse_step_agent(c, item, out, agent, name)) != 0)
		return rc;
	c->step_agent = out->agent;
	if (steps[i].bare && arg && out->kind != NL_STEP_CLEAR_FAULTS)
		return nl_scn__pfail(c, path, "%s takes no value", name);
	if (!steps[i].bare && !arg)
		return nl_scn__pfail(c, path, "%s needs a value", name);
	/* References first: a step cannot use what it captures itself. */
	if ((rc = nl_scn__prefs(c, path, arg)) != 0 || (rc = parse_arg(c, out, path)) != 0)
		return rc;
	return define_capture(c, out, path);
}
