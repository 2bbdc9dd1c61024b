/* Node status, as kubelet's updateNodeStatus / tryUpdateNodeStatus and
 * nodeutil.PatchNodeStatus: GET the Node, work out what this agent reports,
 * and PATCH nodes/<name>/status with a strategic merge patch of the
 * differences (the Ready condition always: its lastHeartbeatTime moved)
 * when something differs or a report is due. No resourceVersion: the
 * status belongs to this agent, a stale read must not make it fail. */
#include <nodelet/api.h>
#include <nodelet/log.h>
#include <nodelet/meta.h>
#include <nodelet/node.h>
#include <stdlib.h>
#include <string.h>

#include "agent_internal.h"

static int add(json_object *obj, const char *key, json_object *val)
{
	if (!val)
		return NL_ENOMEM;
	if (json_object_object_add(obj, key, val) != 0) {
		json_object_put(val);
		return NL_ENOMEM;
	}
	return 0;
}

static json_object *copy(json_object *o)
{
	json_object *c = NULL;
	return o && json_object_deep_copy(o, &c, NULL) == 0 ? c : NULL;
}

/* The keys of want whose values differ in have, as a merge patch object;
 * *out NULL when none differs. */
static int object_diff(json_object **out, json_object *have, json_object *want)
{
	json_object *d = NULL;
	*out = NULL;
	json_object_object_foreach(want, key, val)
	{
		json_object *cur = have ? json_object_object_get(have, key) : NULL;
		if (cur && json_object_equal(cur, val))
			continue;
		if (!d && !(d = json_object_new_object()))
			return NL_ENOMEM;
		if (add(d, key, json_object_get(val)) != 0) {
			json_object_put(d);
			return NL_ENOMEM;
		}
	}
	*out = d;
	return 0;
}

static int condition_differs(json_object *a, json_object *b)
{
	static const char *const keys[] = {"status", "reason", "message", "lastTransitionTime"};
	if (!a || !b)
		return 1;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *x = nl_json_get_string(a, keys[i]), *y = nl_json_get_string(b, keys[i]);
		if (!x || !y || strcmp(x, y) != 0)
			return 1;
	}
	return 0;
}

/* status.conditions: the four conditions as nl__agent_set_conditions
 * leaves them on a copy of the server's (transition times kept unless the
 * status changes; missing ones appended in kubelet's order), all of them
 * sent since their heartbeat moved, and kubelet's $setElementOrder so the
 * server keeps the list in its order. */
static int condition_patch(json_object *ps, int *changed, const nl_agent *a, json_object *node,
                           int64_t now)
{
	json_object *tmp = json_object_new_object(), *st = json_object_new_object(), *order;
	json_object *conds = copy(nl_json_get_path(node, "status.conditions"));
	int rc = NL_ENOMEM;
	if (!tmp || !st || json_object_object_add(tmp, "status", st) != 0) {
		json_object_put(st);
		json_object_put(conds);
		goto done;
	}
	if (conds && add(st, "conditions", conds) != 0)
		goto done;
	if ((rc = nl__agent_set_conditions(tmp, a, now)) != 0)
		goto done;
	rc = NL_ENOMEM;
	json_object *list = json_object_new_array();
	if (add(ps, "conditions", list) != 0)
		goto done;
	for (size_t i = 0; i < 4; i++) {
		const char *type = nl__agent_condition_types[i];
		json_object *mine = nl_node_condition(tmp, type);
		if (condition_differs(nl_node_condition(node, type), mine))
			*changed = 1;
		if (json_object_array_add(list, json_object_get(mine)) != 0) {
			json_object_put(mine);
			goto done;
		}
	}
	if (add(ps, "$setElementOrder/conditions", order = json_object_new_array()) != 0)
		goto done;
	conds = json_object_object_get(st, "conditions");
	for (size_t i = 0; i < json_object_array_length(conds); i++) {
		json_object *e = json_object_new_object();
		const char *type = nl_json_get_string(json_object_array_get_idx(conds, i), "type");
		if (add(e, "type", json_object_new_string(type ? type : "")) != 0 ||
		    json_object_array_add(order, e) != 0) {
			json_object_put(e);
			goto done;
		}
	}
	rc = 0;
done:
	json_object_put(tmp);
	return rc;
}

/* status.addresses: NodeAddress's merge key (type) is wrong for several
 * addresses of one type, so kubelet replaces the list whole when the server
 * already has one (fixupPatchForNodeStatusAddresses). */
static int addresses_patch(json_object *ps, int *changed, json_object *have, json_object *want)
{
	/* No addresses worked out (logged): the server's stay, as kubelet's. */
	if (!want || (have && json_object_equal(have, want)))
		return 0;
	*changed = 1;
	json_object *list = copy(want);
	if (!list)
		return NL_ENOMEM;
	if (json_object_is_type(have, json_type_array) && json_object_array_length(have) > 0) {
		json_object *replace = json_object_new_object();
		if (!replace || add(replace, "$patch", json_object_new_string("replace")) != 0 ||
		    json_object_array_add(list, replace) != 0) {
			json_object_put(replace);
			json_object_put(list);
			return NL_ENOMEM;
		}
	}
	return add(ps, "addresses", list);
}

/* The patch {"status":{...}} for node; *changed when the server shows
 * something other than what this agent reports (heartbeat time aside). */
static int build_patch(json_object **out, int *changed, const nl_agent *a, json_object *node,
                       int64_t now)
{
	static const char *const maps[] = {"capacity", "allocatable", "nodeInfo"};
	json_object *want = json_object_new_object(), *patch = json_object_new_object();
	json_object *ps = json_object_new_object(), *have = json_object_object_get(node, "status");
	int rc = NL_ENOMEM;
	*changed = 0;
	if (!want || !patch || add(patch, "status", ps) != 0 ||
	    (rc = nl__agent_fill_status(want, a)) != 0)
		goto fail;
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		json_object *d;
		json_object *h = have ? json_object_object_get(have, maps[i]) : NULL;
		if ((rc = object_diff(&d, h, json_object_object_get(want, maps[i]))) != 0)
			goto fail;
		if (!d)
			continue;
		*changed = 1;
		if ((rc = add(ps, maps[i], d)) != 0)
			goto fail;
	}
	if ((rc = addresses_patch(ps, changed,
	                          have ? json_object_object_get(have, "addresses") : NULL,
	                          json_object_object_get(want, "addresses"))) != 0 ||
	    (rc = condition_patch(ps, changed, a, node, now)) != 0)
		goto fail;
	json_object_put(want);
	*out = patch;
	return 0;
fail:
	json_object_put(want);
	json_object_put(patch);
	return rc;
}

static int get_node(json_object **out, nl_agent *a, int from_cache, nl_result *res)
{
	char path[1024];
	int rc = nl_api_path(path, sizeof(path), &nl_resource_nodes, NULL, a->node_name, NULL);
	if (rc != 0)
		return rc;
	/* kubelet's first try reads the API server's cache (util.FromApiserverCache):
	 * the patch carries no resourceVersion, so a stale read is harmless. */
	if (from_cache && strlen(path) + 20 < sizeof(path))
		strcat(path, "?resourceVersion=0");
	return nl_api_get(out, a->client, path, res);
}

int64_t nl__agent_next_report(const nl_agent *a)
{
	return a->last_report_mono + a->config->node_status_report_frequency_usec;
}

/* One try: GET, compare, PATCH when changed or due. */
static int try_update(nl_agent *a, int attempt, nl_result *res)
{
	json_object *node = NULL, *patch = NULL, *updated = NULL;
	int changed = 0, rc = get_node(&node, a, attempt == 0, res);
	if (rc != 0)
		return rc;
	int64_t now = nl_clock_now(a->clock), mono = nl_clock_mono(a->clock);
	if ((rc = build_patch(&patch, &changed, a, node, now)) != 0)
		goto done;
	int due = a->reports == 0 || mono >= nl__agent_next_report(a);
	if (!changed && !due) {
		a->status_check_owed = 0;
		goto done;
	}
	size_t len;
	const char *body = nl_json_compact(patch, &len);
	rc = nl_node_patch_status(&updated, a->client, a->node_name, NL_PATCH_STRATEGIC, body, len,
	                          res);
	if (rc != 0)
		goto done;
	a->last_report = now;
	a->last_report_mono = mono;
	a->reports++;
	a->status_check_owed = 0;
	NL_LOG_V(4, "Updated node status", NL_KV_REF("node", NULL, a->node_name),
	         NL_KV_STR("Ready", a->not_ready[0] ? "False" : "True"),
	         NL_KV_BOOL("changed", changed));
done:
	json_object_put(node);
	json_object_put(patch);
	json_object_put(updated);
	return rc;
}

int nl_agent_sync_status(nl_agent *a)
{
	nl_result res = NL_RESULT_INIT;
	int rc = 0;
	/* Once per sync, as kubelet's eviction manager observes once per
	 * period: retries report the same observation. */
	nl__agent_observe(a);
	for (int i = 0; i < NL_AGENT_STATUS_UPDATE_RETRIES; i++) {
		if (nl_clock_stopped(a->clock)) {
			rc = NL_ECANCELED;
			break;
		}
		if ((rc = try_update(a, i, &res)) == 0 || rc == NL_ECANCELED)
			break;
		if (rc == NL_ENOTFOUND) {
			/* Not a connectivity problem, and trying again at once will
			 * not bring the Node back: no hook, no retries. */
			char why[1400];
			snprintf(why, sizeof(why), "error getting node \"%.255s\": %.1024s",
			         a->node_name, res.message);
			NL_LOG_ERROR(why, "Unable to update node status");
			break;
		}
		if (i > 0)
			nl__agent_heartbeat_failed(a);
		NL_LOG_ERROR(res.message, "Error updating node status, will retry");
		if (i == NL_AGENT_STATUS_UPDATE_RETRIES - 1)
			NL_LOG_ERROR("update node status exceeds retry count",
			             "Unable to update node status");
	}
	nl_result_clear(&res);
	return rc;
}
