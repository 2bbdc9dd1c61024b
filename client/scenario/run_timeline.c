/* The report page's data for one run (run_internal.h): every journal
 * entry of any client, each Node condition when it changed, each step when
 * it began. Node conditions come from looking at the Nodes after each step
 * and, on the embedded server, at every timer of virtual time; the look
 * goes where faults and the journal do not reach (nl_scn_target_nodes), so
 * a run with --html sends the same requests as one without. */
#include <nodelet/meta.h>
#include <nodelet/time.h>
#include <nodelet/timeline.h>
#include <stdio.h>
#include <string.h>

#include "objects.h"
#include "run_internal.h"

int nl_scn__run_tl_init(nl_scn__run *r)
{
	r->tl_events = json_object_new_array();
	r->tl_steps = json_object_new_array();
	r->tl_seen = json_object_new_object();
	return r->tl_events && r->tl_steps && r->tl_seen ? 0 : NL_ENOMEM;
}

void nl_scn__run_tl_free(nl_scn__run *r)
{
	json_object_put(r->tl_events);
	json_object_put(r->tl_steps);
	json_object_put(r->tl_seen);
	r->tl_events = r->tl_steps = r->tl_seen = NULL;
}

/* Before the start (a request of the setup) is the start. */
static int64_t not_before(int64_t t, int64_t floor)
{
	return t > floor ? t : floor;
}

void nl_scn__run_tl_request(nl_scn__run *r, json_object *e)
{
	json_object *copy = NULL, *t;
	if (!r->tl_events || json_object_deep_copy(e, &copy, NULL) != 0)
		return;
	if (json_object_object_get_ex(copy, "t", &t))
		json_object_object_add(
		    copy, "t", json_object_new_int64(not_before(json_object_get_int64(t), 0)));
	json_object_array_add(r->tl_events, copy);
}

void nl_scn__run_tl_step(nl_scn__run *r, const nl_scn_step *st)
{
	char where[600];
	json_object *o;
	if (!r->tl_steps || !(o = json_object_new_object()))
		return;
	nl_scn_where(where, sizeof(where), r->sc, st->path);
	json_object_object_add(o, "t", json_object_new_int64(not_before(nl_scn__run_now(r), 0)));
	json_object_object_add(o, "step", json_object_new_string(nl_scn_step_name(st->kind)));
	json_object_object_add(o, "path", json_object_new_string(st->path));
	json_object_object_add(o, "where", json_object_new_string(where));
	json_object_array_add(r->tl_steps, o);
}

static json_object *nodes_now(nl_scn__run *r)
{
	json_object *nodes = NULL, *list = NULL, *items;
	nl_err err = {0};
	if (r->o->target.kind != NL_TARGET_CLUSTER)
		return nl_scn_target_nodes(&nodes, r->target, &err) == 0 ? nodes : NULL;
	/* A cluster has no faults to dodge: a list like any client's. */
	if (nl_scn_obj_list(&list, r->client, &nl_resource_nodes, NULL, NULL, NULL, NULL) != 0)
		return NULL;
	if (json_object_object_get_ex(list, "items", &items))
		nodes = json_object_get(items);
	json_object_put(list);
	return nodes;
}

/* A condition seen for the first time, or with another status or reason:
 * at its lastTransitionTime, which is whole seconds, so no earlier than
 * the previous look and no later than now. */
static void condition_seen(nl_scn__run *r, const char *node, json_object *cond, int64_t now)
{
	char key[512], val[512];
	int64_t since = 0;
	json_object *v, *prev;
	const char *type = json_object_get_string(json_object_object_get(cond, "type"));
	const char *status = json_object_get_string(json_object_object_get(cond, "status"));
	const char *reason = json_object_get_string(json_object_object_get(cond, "reason"));
	snprintf(key, sizeof(key), "%s\x1f%s", node, type ? type : "");
	snprintf(val, sizeof(val), "%s\x1f%s", status ? status : "", reason ? reason : "");
	if (json_object_object_get_ex(r->tl_seen, key, &prev) &&
	    strcmp(json_object_get_string(prev), val) == 0)
		return;
	json_object_object_add(r->tl_seen, key, json_object_new_string(val));
	if (json_object_object_get_ex(cond, "lastTransitionTime", &v) &&
	    nl_time_parse(&since, json_object_get_string(v)) == 0)
		since -= r->journal_t0;
	int64_t t = not_before(since, r->tl_sampled);
	json_object *e = nl_timeline_condition(node, cond, t < now ? t : now);
	if (e)
		json_object_array_add(r->tl_events, e);
}

void nl_scn__run_tl_sample(nl_scn__run *r)
{
	json_object *nodes;
	if (!r->tl_events || !r->target || !(nodes = nodes_now(r)))
		return;
	int64_t now = not_before(nl_scn__run_now(r), 0);
	for (size_t i = 0; i < json_object_array_length(nodes); i++) {
		json_object *n = json_object_array_get_idx(nodes, i), *st, *conds;
		const char *name = nl_meta_name(n);
		if (!name || !json_object_object_get_ex(n, "status", &st) ||
		    !json_object_object_get_ex(st, "conditions", &conds))
			continue;
		for (size_t c = 0; c < json_object_array_length(conds); c++)
			condition_seen(r, name, json_object_array_get_idx(conds, c), now);
	}
	r->tl_sampled = now;
	json_object_put(nodes);
}

json_object *nl_scn__run_tl_take(nl_scn__run *r)
{
	json_object *o;
	if (!r->tl_events || !(o = json_object_new_object()))
		return NULL;
	json_object_object_add(o, "events", r->tl_events);
	json_object_object_add(o, "steps", r->tl_steps);
	if (r->failed)
		json_object_object_add(o, "failedAt",
		                       json_object_new_int64(not_before(r->failed_at, 0)));
	r->tl_events = r->tl_steps = NULL;
	return o;
}
