/* Running a scenario (run.h): setup, the steps, cleanup. Expectations are
 * run_expect.c, the journal run_requests.c. */
#include <ftw.h>
#include <nodelet/log.h>
#include <nodelet/meta.h>
#include <nodelet/platform.h>
#include <nodelet/time.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "objects.h"
#include "run_internal.h"
#include "vars.h"

/* --- failures ---------------------------------------------------------------------------- */

int nl_scn__run_fail(nl_scn__run *r, const nl_scn_step *st, const char *path, const char *fmt, ...)
{
	char msg[1500], where[600];
	va_list ap;
	if (r->failed)
		return 1;
	r->failed_at = r->clock ? nl_scn__run_now(r) : 0;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	nl_scn_where(where, sizeof(where), r->sc, path ? path : st ? st->path : "");
	if (st)
		snprintf(r->message, sizeof(r->message), "%s (%s): %s", path ? path : st->path,
		         where, msg);
	else
		snprintf(r->message, sizeof(r->message), "%s%s%s: %s", path ? path : "",
		         path ? " " : "", where, msg);
	r->failed = 1;
	return 1;
}

int nl_scn_skip_reason(char *out, size_t outlen, const nl_scn_scenario *sc, nl_scn_target_kind k)
{
	unsigned missing = sc->requires & ~nl_scn_target_provides(k);
	size_t n = 0;
	if (!missing)
		return 0;
	n += (size_t)snprintf(out, outlen, "requires");
	for (unsigned bit = 1; bit <= NL_REQ_ALL && n < outlen; bit <<= 1)
		if (missing & bit)
			n += (size_t)snprintf(out + n, outlen - n, "%s %s", n > 8 ? "," : "",
			                      nl_scn_req_name(bit));
	if (n < outlen)
		snprintf(out + n, outlen - n, " (not available with %s)", nl_scn_target_name(k));
	return 1;
}

/* --- time -------------------------------------------------------------------------------- */

int64_t nl_scn__run_now(nl_scn__run *r)
{
	return nl_clock_now(r->clock) - r->t0;
}

static nl_loop *agent_loop(nl_scn__run *r, size_t i)
{
	return i < r->sc->nagents && r->agents[i].agent
	           ? nl_client_loop(nl_agent_client(nl_scn_agent_agent(r->agents[i].agent)))
	           : NULL;
}

nl_scn__run_agent *nl_scn__run_agent_of(nl_scn__run *r, const nl_scn_step *st)
{
	if (!r->sc->nagents)
		return NULL;
	return &r->agents[st && st->agent >= 0 ? (size_t)st->agent : 0];
}

/* Let each agent's loop finish what is in flight, in agent order. */
static void drain_loops(nl_scn__run *r)
{
	for (size_t i = 0; i < r->sc->nagents; i++) {
		nl_loop *loop = agent_loop(r, i);
		int n;
		if (!loop)
			continue;
		do
			n = nl_loop_step(loop, nl_loop_pending(loop) ? 10 : 0);
		while (n > 0);
	}
}

static void stop_loop(void *payload)
{
	nl_loop_stop(payload);
}

/* Virtual time: between timers, let the agent's loop finish whatever is in
 * flight (async calls, watch events) before the clock moves on, so the
 * order of events never depends on the machine's speed. */
static int pass_virtual(nl_scn__run *r, int64_t usec)
{
	int64_t end = nl_clock_now(r->clock) + usec, due;
	for (;;) {
		drain_loops(r);
		int64_t now = nl_clock_now(r->clock);
		/* Reading the embedded store is cheap: at every timer, so a
		 * condition's change is seen when it happens. */
		if (r->o->target.kind == NL_TARGET_EMBEDDED)
			nl_scn__run_tl_sample(r);
		if (now >= end)
			return 0;
		int64_t next = end;
		if (nl_clock_next_deadline(&due, r->clock) == 0 && due < end)
			next = due > now ? due : now;
		if (nl_clock_advance(r->clock, next - now) != 0)
			return NL_ERROR;
	}
}

/* Real time with several agents: each loop in turn, a few milliseconds at
 * a time (a loop's step also fires the shared clock's due timers). */
static int pass_real_several(nl_scn__run *r, int64_t usec)
{
	int64_t end = nl_clock_mono(r->clock) + usec;
	while (nl_clock_mono(r->clock) < end)
		for (size_t i = 0; i < r->sc->nagents; i++) {
			int rc = nl_loop_step(agent_loop(r, i), 5);
			if (rc < 0)
				return rc;
		}
	return 0;
}

int nl_scn__run_pass_time(nl_scn__run *r, int64_t usec)
{
	if (r->fake)
		return pass_virtual(r, usec);
	if (r->sc->nagents > 1)
		return pass_real_several(r, usec);
	nl_loop *loop = agent_loop(r, 0);
	if (!loop) {
		struct timespec ts = {(time_t)(usec / 1000000), (long)(usec % 1000000) * 1000};
		nanosleep(&ts, NULL);
		return 0;
	}
	uint64_t timer = 0;
	int rc = nl_clock_after(&timer, r->clock, usec, stop_loop, loop);
	return rc ? rc : nl_loop_run(loop);
}

/* --- variables ----------------------------------------------------------------------------- */

int nl_scn__run_expand(json_object **out, nl_scn__run *r, const nl_scn_step *st, const char *path,
                       json_object *tmpl)
{
	char now[NL_TIME_BUFSZ];
	nl_err err = {0};
	nl_time_format_micro(now, nl_clock_now(r->clock));
	json_object_object_add(r->vars, "now", json_object_new_string(now));
	if (nl_scn_vars_expand(out, tmpl, r->vars, &err) == 0)
		return 0;
	return nl_scn__run_fail(r, st, path, "%s", err.msg);
}

/* --- the cluster and the runner's writes ------------------------------------------------ */

static void remember_created(nl_scn__run *r, json_object *obj)
{
	json_object *ref = json_object_new_object();
	json_object_object_add(ref, "kind", json_object_get(json_object_object_get(obj, "kind")));
	json_object_object_add(ref, "name", json_object_new_string(nl_meta_name(obj)));
	if (nl_meta_namespace(obj))
		json_object_object_add(ref, "namespace",
		                       json_object_new_string(nl_meta_namespace(obj)));
	json_object_array_add(r->created, ref);
}

/* A write's failure becomes the step's error; an expect may claim it. */
static void step_error(nl_scn__run *r, const nl_scn_step *st, int rc, const nl_result *res)
{
	json_object_put(r->error);
	r->error = nl_scn_obj_error(rc, res);
	r->error_step = st;
}

/* What a cluster does within milliseconds of a write: the garbage
 * collector runs; the agent's informers see the Node and its ConfigMap. */
static void after_write(nl_scn__run *r)
{
	nl_scn_target_tick(r->target);
	for (size_t i = 0; i < r->sc->nagents; i++)
		nl_scn_agent_observe(r->agents[i].agent, r->client);
}

static int load_cluster(nl_scn__run *r)
{
	char path[64];
	for (size_t i = 0; i < json_object_array_length(r->sc->cluster); i++) {
		json_object *obj = NULL, *stored = NULL;
		nl_result res = NL_RESULT_INIT;
		int created = 0;
		snprintf(path, sizeof(path), "cluster[%zu]", i);
		if (nl_scn__run_expand(&obj, r, NULL, path,
		                       json_object_array_get_idx(r->sc->cluster, i)))
			return 1;
		int rc = nl_scn_obj_apply(&stored, &created, r->client, obj, &res);
		if (rc != 0)
			nl_scn__run_fail(
			    r, NULL, path, "cannot create %s %s: %s",
			    json_object_get_string(json_object_object_get(obj, "kind")),
			    nl_meta_name(obj), res.message[0] ? res.message : nl_strerror(rc));
		else if (created)
			remember_created(r, stored);
		nl_result_clear(&res);
		json_object_put(stored);
		json_object_put(obj);
		if (r->failed)
			return 1;
	}
	nl_scn_target_tick(r->target);
	return 0;
}

static int write_step(nl_scn__run *r, const nl_scn_step *st, json_object *arg)
{
	json_object *stored = NULL;
	nl_result res = NL_RESULT_INIT;
	int created = 0, rc;
	switch (st->kind) {
	case NL_STEP_APPLY:
		rc = nl_scn_obj_apply(&stored, &created, r->client, arg, &res);
		break;
	case NL_STEP_CREATE:
		rc = nl_scn_obj_create(&stored, r->client, arg, &res);
		created = rc == 0;
		break;
	case NL_STEP_UPDATE:
		/* A Lease may be created by an update. */
		rc = nl_scn_obj_update(&stored, r->client, arg, &res);
		created = rc == 0 && res.http_status == 201;
		break;
	case NL_STEP_PATCH:
		rc = nl_scn_obj_patch(&stored, r->client, arg, &res);
		created = rc == 0 && res.http_status == 201;
		break;
	default:
		rc = nl_scn_obj_delete(r->client, arg, &res);
		break;
	}
	if (rc != 0)
		step_error(r, st, rc, &res);
	else if (created)
		remember_created(r, stored);
	nl_result_clear(&res);
	json_object_put(stored);
	after_write(r);
	return 0;
}

static int read_step(nl_scn__run *r, const nl_scn_step *st, json_object *arg)
{
	json_object *got = NULL, *as;
	nl_result res = NL_RESULT_INIT;
	nl_scn_objref ref;
	int rc;
	if (st->kind == NL_STEP_WATCH) {
		rc = nl_scn_obj_watch(&got, r->client, arg, &res);
		if (rc == 0) {
			json_object_put(r->events);
			r->events = json_object_get(got);
		}
	} else {
		rc = nl_scn_objref_from_ref(&ref, arg);
		if (rc == 0)
			rc = nl_scn_obj_get(&got, r->client, &ref, &res);
	}
	if (rc != 0)
		step_error(r, st, rc, &res);
	else if (json_object_object_get_ex(arg, "as", &as))
		json_object_object_add(r->vars, json_object_get_string(as), json_object_get(got));
	nl_result_clear(&res);
	json_object_put(got);
	return 0;
}

/* --- faults --------------------------------------------------------------------------------- */

/* A scenario's faults hit the agent unless they say otherwise: the
 * runner's own requests (setup, expectations) must not be faulted. */
static int add_fault(nl_scn__run *r, const nl_scn_step *st, json_object *f)
{
	json_object *m;
	nl_err err = {0};
	nl_scn__run_agent *ra = st->agent >= 0 ? nl_scn__run_agent_of(r, st) : NULL;
	if (!json_object_object_get_ex(f, "match", &m)) {
		m = json_object_new_object();
		json_object_object_add(f, "match", m);
	}
	/* The mock matches a substring: the named agent's whole User-Agent
	 * (its "(node NAME)" comment ends it), or every agent's prefix. */
	if (!json_object_object_get_ex(m, "userAgent", NULL))
		json_object_object_add(
		    m, "userAgent",
		    json_object_new_string(ra && ra->user_agent[0] ? ra->user_agent : "nodelet/"));
	if (nl_scn_target_add_fault(r->target, f, &err) != 0)
		return nl_scn__run_fail(r, st, NULL, "the server refused the fault: %s", err.msg);
	return 0;
}

static int fault_step(nl_scn__run *r, const nl_scn_step *st, json_object *arg)
{
	nl_err err = {0};
	if (st->kind == NL_STEP_CLEAR_FAULTS) {
		const char *id = arg ? json_object_get_string(arg) : NULL;
		if (nl_scn_target_clear_faults(r->target, id, &err) != 0)
			return nl_scn__run_fail(r, st, NULL, "%s", err.msg);
		return 0;
	}
	if (!json_object_is_type(arg, json_type_array))
		return add_fault(r, st, arg);
	for (size_t i = 0; i < json_object_array_length(arg); i++)
		if (add_fault(r, st, json_object_array_get_idx(arg, i)))
			return 1;
	return 0;
}

/* --- the agent ------------------------------------------------------------------------------ */

/* Fire what is due now, including what those timers schedule for now (a
 * registration schedules the first status report at once). */
static void run_due_now(nl_scn__run *r)
{
	int64_t due;
	if (!r->fake) {
		nl_clock_run_due(r->clock);
		return;
	}
	for (int i = 0; i < 1000; i++) {
		nl_clock_advance(r->clock, 0);
		if (nl_clock_next_deadline(&due, r->clock) != 0 || due > nl_clock_mono(r->clock))
			return;
	}
}

static int one_agent_step(nl_scn__run *r, const nl_scn_step *st, nl_scn__run_agent *ra)
{
	nl_err err = {0};
	int rc;
	switch (st->kind) {
	case NL_STEP_START:
		if ((rc = nl_scn_agent_start(ra->agent)) != 0)
			return nl_scn__run_fail(r, st, NULL, "cannot start agent %s: %s",
			                        ra->spec->node_name, nl_strerror(rc));
		return 0;
	case NL_STEP_STOP:
		nl_scn_agent_stop(ra->agent);
		return 0;
	default:
		/* A refusal to start is the step's error, which an expect may
		 * await (a lost last-known-good, say); unexpected, it fails the
		 * scenario at the next step. */
		if ((rc = nl_scn_agent_restart(ra->agent, &err)) != 0) {
			step_error(r, st, rc, NULL);
			json_object_object_add(r->error, "message",
			                       json_object_new_string(err.msg));
		}
		return 0;
	}
}

/* sync is about one agent; start, stop and restart about the one named
 * beside the step, else every agent in order. */
static int agent_step(nl_scn__run *r, const nl_scn_step *st)
{
	int rc;
	if (st->kind == NL_STEP_SYNC) {
		nl_scn__run_agent *ra = nl_scn__run_agent_of(r, st);
		if (st->sync == NL_SYNC_CONFIG)
			nl_scn_agent_observe(ra->agent, r->client);
		rc = nl_scn_agent_sync(ra->agent, st->sync);
		if (rc != 0)
			step_error(r, st, rc, NULL);
		after_write(r);
		return 0;
	}
	for (size_t i = 0; i < r->sc->nagents; i++)
		if ((st->agent < 0 || (size_t)st->agent == i) &&
		    one_agent_step(r, st, &r->agents[i]))
			return 1;
	/* Their first round happens at once. */
	if (st->kind != NL_STEP_STOP)
		run_due_now(r);
	return 0;
}

/* --- steps ---------------------------------------------------------------------------------- */

static int run_step(nl_scn__run *r, const nl_scn_step *st)
{
	json_object *arg = NULL;
	nl_err err = {0};
	int rc = 0;
	if (st->kind != NL_STEP_EXPECT && r->error) {
		/* Nobody expected the previous step's failure. */
		const nl_scn_step *bad = r->error_step;
		return nl_scn__run_fail(
		    r, bad, NULL, "%s failed: %s", nl_scn_step_name(bad->kind),
		    json_object_get_string(json_object_object_get(r->error, "message")));
	}
	r->step = st;
	switch (st->kind) {
	case NL_STEP_EXPECT:
		return nl_scn__run_expect(r, st);
	case NL_STEP_PROGRAM:
		return nl_scn__run_program(r, st);
	case NL_STEP_ADVANCE:
		if (!r->fake) /* realTime: {scale} declared, else skipped */
			return nl_scn__run_pass_time(
			           r, (int64_t)((double)st->usec * r->sc->real_time_scale)) < 0
			           ? nl_scn__run_fail(r, st, NULL, "the agent's loop failed")
			           : 0;
		return nl_clock_advance(r->clock, st->usec)
		           ? nl_scn__run_fail(r, st, NULL, "no clock")
		           : 0;
	case NL_STEP_RUN:
		return nl_scn__run_pass_time(r, st->usec) < 0
		           ? nl_scn__run_fail(r, st, NULL, "the agent's loop failed")
		           : 0;
	case NL_STEP_RESTART_SERVER:
		if (nl_scn_target_restart_server(r->target, &err) != 0)
			return nl_scn__run_fail(r, st, NULL, "%s", err.msg);
		return 0;
	case NL_STEP_SYNC:
	case NL_STEP_START:
	case NL_STEP_STOP:
	case NL_STEP_RESTART:
		return agent_step(r, st);
	default:
		break;
	}
	if (st->arg && nl_scn__run_expand(&arg, r, st, NULL, st->arg))
		return 1;
	switch (st->kind) {
	case NL_STEP_FAULT:
	case NL_STEP_CLEAR_FAULTS:
		rc = fault_step(r, st, arg);
		break;
	case NL_STEP_GET:
	case NL_STEP_WATCH:
		rc = read_step(r, st, arg);
		break;
	default:
		rc = write_step(r, st, arg);
		break;
	}
	json_object_put(arg);
	return rc;
}

/* --- setup and cleanup ----------------------------------------------------------------------- */

/* The same virtual timeline on both virtual targets, so a scenario sees
 * the same renewTimes; a running server's journal is on its real clock. */
static int make_clock(nl_scn__run *r)
{
	int rc;
	r->fake = nl_scn_target_virtual(r->o->target.kind);
	rc = r->fake ? nl_clock_new_fake(&r->clock, r->sc->start_usec)
	             : nl_clock_new_real(&r->clock);
	if (rc != 0)
		return rc;
	r->t0 = nl_clock_now(r->clock);
	r->journal_t0 = r->o->target.kind == NL_TARGET_SERVER ? nl_time_now() : r->t0;
	if (r->o->target.kind == NL_TARGET_CLUSTER)
		return nl_scn_cjournal_new(&r->cjournal);
	return 0;
}

static int make_client(nl_scn__run *r, nl_err *err)
{
	nl_client_options co;
	nl_client_options_init(&co);
	co.qps = -1;
	co.user_agent = "nodelet-scenario/" PACKAGE_VERSION;
	return nl_client_new(&r->client, nl_scn_target_rest_config(r->target), &co, err);
}

static int make_agent(nl_scn__run *r, size_t i, nl_err *err)
{
	nl_scn__run_agent *ra = &r->agents[i];
	ra->spec = &r->sc->agents[i];
	if (ra->spec->dynamic_config) {
		const char *tmp = getenv("TMPDIR");
		snprintf(ra->dyn_dir, sizeof(ra->dyn_dir), "%s/nodelet-scenario-XXXXXX",
		         tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(ra->dyn_dir)) {
			ra->dyn_dir[0] = '\0';
			return nl_err_set(err, NL_EIO,
			                  "cannot create the dynamic config directory");
		}
	}
	/* With several agents each says which node it is, so the journal and
	 * faults can tell them apart; the single agent: form keeps the
	 * default. */
	if (r->sc->several)
		snprintf(ra->user_agent, sizeof(ra->user_agent), "nodelet/%s (%s/%s) (node %s)",
		         PACKAGE_VERSION, nl_platform_os(), nl_platform_arch(),
		         ra->spec->node_name);
	ra->opts.sc = r->sc;
	ra->opts.spec = ra->spec;
	ra->opts.user_agent = ra->user_agent[0] ? ra->user_agent : NULL;
	ra->opts.cfg = nl_scn_target_rest_config(r->target);
	ra->opts.on_attempt = r->cjournal ? nl_scn_cjournal_record : NULL;
	ra->opts.attempt_payload = r->cjournal;
	ra->opts.clock = r->clock;
	ra->opts.dynamic_config_dir = ra->dyn_dir[0] ? ra->dyn_dir : NULL;
	return nl_scn_agent_new(&ra->agent, &ra->opts, err);
}

static int make_agents(nl_scn__run *r)
{
	nl_err err = {0};
	char path[64];
	if (!r->sc->nagents)
		return 0;
	if (!(r->agents = calloc(r->sc->nagents, sizeof(*r->agents))))
		return nl_scn__run_fail(r, NULL, NULL, "out of memory");
	for (size_t i = 0; i < r->sc->nagents; i++) {
		if (make_agent(r, i, &err) == 0)
			continue;
		if (r->sc->several)
			snprintf(path, sizeof(path), "agents[%zu]", i);
		return nl_scn__run_fail(r, NULL, r->sc->several ? path : "agent",
		                        "cannot create the agent: %s", err.msg);
	}
	return 0;
}

static int setup(nl_scn__run *r)
{
	nl_err err = {0};
	json_object *v;
	if (make_clock(r) != 0)
		return nl_scn__run_fail(r, NULL, NULL, "cannot create the clock");
	if (nl_scn_target_start(&r->target, &r->o->target, r->sc, r->clock, &err) != 0)
		return nl_scn__run_fail(r, NULL, NULL, "cannot start %s: %s",
		                        nl_scn_target_name(r->o->target.kind), err.msg);
	if (make_client(r, &err) != 0)
		return nl_scn__run_fail(r, NULL, NULL, "%s", err.msg);
	if (r->sc->vars && json_object_deep_copy(r->sc->vars, &r->vars, NULL) != 0)
		return nl_scn__run_fail(r, NULL, NULL, "out of memory");
	if (!r->vars)
		r->vars = json_object_new_object();
	if (r->sc->agent && json_object_object_get_ex(r->sc->agent, "nodeName", &v))
		json_object_object_add(r->vars, "nodeName", json_object_get(v));
	json_object_object_add(r->vars, "fixturesDir", json_object_new_string(r->sc->fixtures_dir));
	if (load_cluster(r))
		return 1;
	nl_scn__run_tl_sample(r);
	if (make_agents(r))
		return 1;
	if (r->sc->nagents && r->agents[0].dyn_dir[0])
		json_object_object_add(r->vars, "configDir",
		                       json_object_new_string(r->agents[0].dyn_dir));
	/* Only what the agent sends from here on counts. */
	if (nl_scn__run_journal(r, &err) != 0)
		return nl_scn__run_fail(r, NULL, NULL, "%s", err.msg);
	json_object_put(r->block);
	r->block = json_object_new_array();
	json_object_put(r->history);
	r->history = json_object_new_array();
	r->mark_t = nl_scn__run_now(r);
	return 0;
}

static void delete_ref(nl_scn__run *r, json_object *ref)
{
	nl_result res = NL_RESULT_INIT;
	nl_scn_obj_delete(r->client, ref, &res);
	nl_result_clear(&res);
}

static void delete_named(nl_scn__run *r, const char *kind, const char *ns, const char *name)
{
	json_object *ref = json_object_new_object();
	json_object_object_add(ref, "kind", json_object_new_string(kind));
	json_object_object_add(ref, "name", json_object_new_string(name));
	if (ns)
		json_object_object_add(ref, "namespace", json_object_new_string(ns));
	delete_ref(r, ref);
	json_object_put(ref);
}

/* What an agent left: its Lease, its Node, and with dynamicConfig the
 * Events about it. */
static void cleanup_agent(nl_scn__run *r, const nl_scn_agent_spec *a)
{
	json_object *v;
	const char *node = a->node_name, *lease = node, *ns = "kube-node-lease";
	if (json_object_object_get_ex(a->settings, "leaseName", &v))
		lease = json_object_get_string(v);
	if (json_object_object_get_ex(a->settings, "leaseNamespace", &v))
		ns = json_object_get_string(v);
	delete_named(r, "Lease", ns, lease);
	delete_named(r, "Node", NULL, node);
	if (!a->dynamic_config)
		return;
	json_object *list = NULL;
	char sel[300];
	snprintf(sel, sizeof(sel), "involvedObject.name=%s", node);
	if (nl_scn_obj_list(&list, r->client, &nl_resource_events, "default", NULL, sel, NULL) ==
	    0) {
		json_object *items = json_object_object_get(list, "items");
		for (size_t i = 0; i < json_object_array_length(items); i++)
			delete_named(r, "Event", "default",
			             nl_meta_name(json_object_array_get_idx(items, i)));
	}
	json_object_put(list);
}

/* On a shared server or a real cluster, leave nothing behind: what the
 * runner created, and what the agents did (their Nodes, Leases and Events). */
static void cleanup_objects(nl_scn__run *r)
{
	if (!r->client || r->o->target.kind == NL_TARGET_EMBEDDED)
		return;
	for (size_t i = 0; i < r->sc->nagents; i++)
		cleanup_agent(r, &r->sc->agents[i]);
	for (size_t i = json_object_array_length(r->created); i-- > 0;)
		delete_ref(r, json_object_array_get_idx(r->created, i));
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void teardown(nl_scn__run *r)
{
	for (size_t i = 0; r->agents && i < r->sc->nagents; i++)
		nl_scn_agent_free(r->agents[i].agent);
	cleanup_objects(r);
	nl_client_free(r->client);
	nl_scn_target_free(r->target);
	nl_scn_cjournal_free(r->cjournal);
	nl_clock_free(r->clock);
	for (size_t i = 0; r->agents && i < r->sc->nagents; i++)
		if (r->agents[i].dyn_dir[0])
			nftw(r->agents[i].dyn_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(r->agents);
	if (r->kubeconfig[0])
		remove(r->kubeconfig);
	if (r->work_dir[0])
		rmdir(r->work_dir);
	json_object_put(r->vars);
	json_object_put(r->error);
	json_object_put(r->events);
	json_object_put(r->block);
	json_object_put(r->history);
	json_object_put(r->created);
	nl_scn__run_tl_free(r);
	nl_buf_free(&r->detail);
}

/* --- entry points ------------------------------------------------------------------------------
 */

static char *dup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

int nl_scn_run(nl_scn_run_result *out, const nl_scn_scenario *sc, const nl_scn_run_options *o)
{
	nl_scn__run r;
	char reason[512];
	memset(out, 0, sizeof(*out));
	if (nl_scn_skip_reason(reason, sizeof(reason), sc, o->target.kind)) {
		out->outcome = NL_OUTCOME_SKIP;
		out->message = strdup(reason);
		return out->message ? 0 : NL_ENOMEM;
	}
	/* A program gets KUBECONFIG alone; it could not be told the context. */
	if (sc->programs && o->target.kind == NL_TARGET_CLUSTER && o->target.context) {
		out->outcome = NL_OUTCOME_SKIP;
		out->message = strdup("run: programs get only KUBECONFIG, so they cannot use "
		                      "--context: make it the file's current-context");
		return out->message ? 0 : NL_ENOMEM;
	}
	memset(&r, 0, sizeof(r));
	r.sc = sc;
	r.o = o;
	r.block = json_object_new_array();
	r.history = json_object_new_array();
	r.created = json_object_new_array();
	nl_buf_init(&r.detail, 0);
	if (o->timeline && nl_scn__run_tl_init(&r) != 0)
		nl_scn__run_fail(&r, NULL, NULL, "out of memory");
	else if (setup(&r) == 0) {
		for (size_t i = 0; i < sc->nsteps && !r.failed; i++) {
			if (o->on_step) {
				char where[600], label[700];
				nl_scn_where(where, sizeof(where), sc, sc->steps[i].path);
				snprintf(label, sizeof(label), "%s (%s)", sc->steps[i].path, where);
				o->on_step(label, o->step_payload);
			}
			nl_scn__run_tl_step(&r, &sc->steps[i]);
			run_step(&r, &sc->steps[i]);
			nl_scn__run_tl_sample(&r);
		}
		if (!r.failed && r.error)
			nl_scn__run_fail(
			    &r, r.error_step, NULL, "%s failed: %s",
			    nl_scn_step_name(r.error_step->kind),
			    json_object_get_string(json_object_object_get(r.error, "message")));
	}
	if (r.target) {
		nl_err err = {0};
		if (nl_scn__run_journal(&r, &err) == 0 && r.failed &&
		    json_object_array_length(r.history) > 0) {
			nl_buf_adds(&r.detail, "the agent's last requests:\n");
			nl_scn__run_journal_tail(&r, &r.detail, 20);
		}
	}
	out->outcome = r.failed ? NL_OUTCOME_FAIL : NL_OUTCOME_PASS;
	out->message = r.failed ? strdup(r.message) : NULL;
	out->detail = dup_or_null(r.detail.data);
	out->journal = nl_scn__run_journal_text(&r);
	out->timeline = nl_scn__run_tl_take(&r);
	teardown(&r);
	return 0;
}

void nl_scn_run_result_clear(nl_scn_run_result *r)
{
	if (!r)
		return;
	free(r->message);
	free(r->detail);
	free(r->journal);
	json_object_put(r->timeline);
	memset(r, 0, sizeof(*r));
}
