/* Node lifecycle, as kube-controller-manager's nodelifecycle controller
 * (pkg/controller/nodelifecycle, v1.32) does it with leases:
 *
 * - tryUpdateNodeHealth: a node's probe time moves to "now" when its Ready
 *   condition's lastHeartbeatTime changes or its Lease in kube-node-lease
 *   is renewed (spec.renewTime later than the one seen before). Past
 *   --node-monitor-grace-period (or --node-startup-grace-period while the
 *   node never posted a Ready condition) the Ready, MemoryPressure,
 *   DiskPressure and PIDPressure conditions become Unknown ("NodeStatusUnknown",
 *   "Kubelet stopped posting node status."), or are added as Unknown
 *   ("NodeStatusNeverUpdated") when missing; the status is written when
 *   Ready changed.
 * - doNoScheduleTaintingPass: NoSchedule taints mirror the conditions
 *   (Ready False → not-ready, Unknown → unreachable, pressure conditions,
 *   spec.unschedulable).
 * - processTaintBaseEviction: the NoExecute not-ready/unreachable taint
 *   follows the Ready condition observed *before* this pass, so it arrives
 *   one monitor period after the condition, and leaves once Ready is True.
 *
 * The controller never sets Ready back to True: that is the kubelet's (the
 * agent's) job. A renewed lease stops the controller from marking the node
 * again; the taints go once the agent posts Ready=True. Taints are added
 * with timeAdded, as SwapNodeControllerTaint does.
 *
 * Cost at scale (docs/performance.md): health records and node leases are
 * kept in hash tables; leases are read from the text of those that changed
 * since the last pass (spec.renewTime only); a Node is parsed only when it
 * changed since it was last looked at, when that look wanted a write, or
 * when its grace period ran out. A node whose object and verdict stand
 * needs only its lease compared. */
#include <json-c/linkhash.h>
#include <nodelet/json_text.h>
#include <nodelet/meta.h>
#include <nodelet/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/schema.h"
#include "controllers.h"
#include "core/log.h"

#define NODE_LEASE_NAMESPACE "kube-node-lease"
#define TAINT_PREFIX "node.kubernetes.io/"

typedef struct health {
	char *name;
	int64_t probe;
	int64_t ready_transition;
	int has_saved_ready; /* the saved status had a Ready condition */
	char *saved_heartbeat, *saved_transition;
	int has_lease;
	int lease_renew_set;
	int64_t lease_renew;
	int seen;
	/* The last full look: the node's resourceVersion then, the grace
	 * period that applied, and whether it wanted no write (a node as it
	 * was then needs no new look until its grace period runs out). */
	uint64_t node_rv;
	int64_t grace;
	int settled;
	int wanted_write; /* during a look */
} health;

typedef struct {
	int present;
	int renew_set;
	int64_t renew;
} lease_seen;

struct mock_node_lifecycle {
	mock_store *store;
	int64_t grace, startup_grace;
	struct lh_table *health; /* node name -> health */
	struct lh_table *leases; /* node name -> lease_seen, kube-node-lease */
	mock_store_mark lease_mark;
	int leases_primed;
};

/* Condition type and status → NoSchedule taint key (nodeConditionToTaintKeyStatusMap). */
static const struct {
	const char *type, *status, *key;
} condition_taints[] = {
    {"Ready", "False", TAINT_PREFIX "not-ready"},
    {"Ready", "Unknown", TAINT_PREFIX "unreachable"},
    {"MemoryPressure", "True", TAINT_PREFIX "memory-pressure"},
    {"DiskPressure", "True", TAINT_PREFIX "disk-pressure"},
    {"NetworkUnavailable", "True", TAINT_PREFIX "network-unavailable"},
    {"PIDPressure", "True", TAINT_PREFIX "pid-pressure"},
};
#define UNSCHEDULABLE_KEY TAINT_PREFIX "unschedulable"
#define NOT_READY_KEY TAINT_PREFIX "not-ready"
#define UNREACHABLE_KEY TAINT_PREFIX "unreachable"

/* ------------------------------------------------------------------------
 * Health records */

static void health_free(health *h)
{
	if (!h)
		return;
	free(h->name);
	free(h->saved_heartbeat);
	free(h->saved_transition);
	free(h);
}

static void health_entry_free(struct lh_entry *e)
{
	health_free(lh_entry_v(e));
}

static void lease_entry_free(struct lh_entry *e)
{
	free((void *)lh_entry_k(e));
	free(lh_entry_v(e));
}

static health *health_find(mock_node_lifecycle *n, const char *name)
{
	void *h = NULL;
	return lh_table_lookup_ex(n->health, name, &h) ? h : NULL;
}

static health *health_add(mock_node_lifecycle *n, const char *name)
{
	health *h = calloc(1, sizeof(*h));
	if (!h || !(h->name = strdup(name))) {
		free(h);
		return NULL;
	}
	if (lh_table_insert(n->health, h->name, h) != 0) {
		health_free(h);
		return NULL;
	}
	return h;
}

static const char *cond_str(json_object *c, const char *key)
{
	const char *v = c ? nl_json_get_string(c, key) : NULL;
	return v ? v : "";
}

/* A fresh record (upstream replaces nodeHealthData, dropping its lease). */
static int health_reset(health *h, int64_t probe, int64_t transition, json_object *ready)
{
	char *hb = strdup(cond_str(ready, "lastHeartbeatTime"));
	char *tr = strdup(cond_str(ready, "lastTransitionTime"));
	if (!hb || !tr) {
		free(hb);
		free(tr);
		return NL_ENOMEM;
	}
	free(h->saved_heartbeat);
	free(h->saved_transition);
	h->saved_heartbeat = hb;
	h->saved_transition = tr;
	h->has_saved_ready = ready != NULL;
	h->probe = probe;
	h->ready_transition = transition;
	h->has_lease = 0;
	h->lease_renew_set = 0;
	return 0;
}

int mock_node_lifecycle_new(mock_node_lifecycle **out, mock_store *s, int64_t grace_usec,
                            int64_t startup_grace_usec)
{
	mock_node_lifecycle *n = calloc(1, sizeof(*n));
	if (!n)
		return NL_ENOMEM;
	n->store = s;
	n->grace = grace_usec;
	n->startup_grace = startup_grace_usec;
	n->health = lh_kchar_table_new(64, health_entry_free);
	n->leases = lh_kchar_table_new(64, lease_entry_free);
	if (!n->health || !n->leases) {
		mock_node_lifecycle_free(n);
		return NL_ENOMEM;
	}
	*out = n;
	return 0;
}

static void table_clear(struct lh_table *t)
{
	struct lh_entry *e, *tmp;
	for (e = lh_table_head(t); e; e = tmp) {
		tmp = lh_entry_next(e);
		lh_table_delete_entry(t, e);
	}
}

void mock_node_lifecycle_reset(mock_node_lifecycle *n)
{
	table_clear(n->health);
	table_clear(n->leases);
	n->leases_primed = 0;
}

void mock_node_lifecycle_free(mock_node_lifecycle *n)
{
	if (!n)
		return;
	if (n->health)
		lh_table_free(n->health);
	if (n->leases)
		lh_table_free(n->leases);
	free(n);
}

/* ------------------------------------------------------------------------
 * Reading nodes and leases */

static json_object *find_condition(json_object *node, const char *type)
{
	json_object *conds = nl_json_get_path(node, "status");
	if (!conds || !json_object_object_get_ex(conds, "conditions", &conds) ||
	    !json_object_is_type(conds, json_type_array))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(conds); i++) {
		json_object *c = json_object_array_get_idx(conds, i);
		if (strcmp(cond_str(c, "type"), type) == 0)
			return c;
	}
	return NULL;
}

/* ------------------------------------------------------------------------
 * Node leases, from the text of the ones that changed */

#define LEASE_PREFIX NODE_LEASE_NAMESPACE "/"

/* spec.renewTime of a stored lease: *set when it is a time. */
static void lease_renew(lease_seen *l, const char *json, size_t len)
{
	const char *v = NULL;
	size_t n = 0;
	char ts[64];
	l->renew_set = 0;
	if (nl_json_text_member(&v, &n, json, len, "spec.renewTime") != 0 || n < 2 || v[0] != '"' ||
	    n - 2 >= sizeof(ts) || memchr(v, '\\', n))
		return; /* absent, null, or not a time (which has no escapes) */
	memcpy(ts, v + 1, n - 2);
	ts[n - 2] = '\0';
	l->renew_set = nl_time_parse_micro(&l->renew, ts) == 0;
}

typedef struct {
	struct lh_table *t;
	int rc;
} lease_walk;

/* Under the store's read lock. */
static int lease_one(const char *key, uint64_t rv, const char *json, size_t len, void *payload)
{
	lease_walk *w = payload;
	void *found = NULL;
	(void)rv;
	if (strncmp(key, LEASE_PREFIX, strlen(LEASE_PREFIX)) != 0)
		return 0;
	const char *name = key + strlen(LEASE_PREFIX);
	lease_seen *l = lh_table_lookup_ex(w->t, name, &found) ? found : NULL;
	if (!l) {
		char *k = strdup(name);
		l = calloc(1, sizeof(*l));
		if (!k || !l || lh_table_insert(w->t, k, l) != 0) {
			free(k);
			free(l);
			return w->rc = NL_ENOMEM;
		}
	}
	l->present = 1;
	lease_renew(l, json, len);
	return 0;
}

/* Bring the lease table up to date: the leases changed since the last
 * pass, or all of them again after a lease was deleted. */
static int refresh_leases(mock_node_lifecycle *n)
{
	const mock_resource *r = mock_resource_get(MOCK_KIND_LEASE);
	lease_walk w = {n->leases, 0};
	mock_store_mark m;
	uint64_t since = n->leases_primed ? n->lease_mark.rv : 0;
	int rc = mock_store_visit_since(n->store, r, since, lease_one, &w, &m);
	if (rc == 0 && w.rc == 0 && n->leases_primed && m.removed != n->lease_mark.removed) {
		table_clear(n->leases);
		rc = mock_store_visit_since(n->store, r, 0, lease_one, &w, &m);
	}
	if (rc == 0)
		rc = w.rc;
	if (rc != 0) {
		table_clear(n->leases);
		n->leases_primed = 0;
		return rc;
	}
	n->lease_mark = m;
	n->leases_primed = 1;
	return 0;
}

static lease_seen lease_of(mock_node_lifecycle *n, const char *name)
{
	void *l = NULL;
	lease_seen none = {0, 0, 0};
	return lh_table_lookup_ex(n->leases, name, &l) ? *(lease_seen *)l : none;
}

/* Always a fresh probe when the lease was renewed. MicroTime.Before is
 * false when either renewTime is unset. */
static void observe_lease(mock_node_lifecycle *n, health *h, int64_t now, lease_seen *lease)
{
	*lease = lease_of(n, h->name);
	if (lease->present && (!h->has_lease || (h->lease_renew_set && lease->renew_set &&
	                                         h->lease_renew < lease->renew))) {
		h->has_lease = 1;
		h->lease_renew_set = lease->renew_set;
		h->lease_renew = lease->renew;
		h->probe = now;
	}
}

static const char *json_text(json_object *o)
{
	return o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN) : "null";
}

/* Keys this controller adds (status, conditions, taints) go last in
 * json-c's order: put node, spec and status back in Go's field order, as
 * the apiserver stores them (found by fuzzing). On NL_ENOMEM the order is
 * just off, the object still right. */
static void sort_node(json_object *node)
{
	const nl_schema *schema = mock_resource_get(MOCK_KIND_NODE)->schema;
	mock_schema_sort_object(node, schema);
	for (size_t i = 0; i < schema->nfields; i++) {
		json_object *sub = NULL;
		if (schema->fields[i].type == NL_FT_OBJECT && schema->fields[i].sub &&
		    json_object_object_get_ex(node, schema->fields[i].name, &sub) &&
		    json_object_is_type(sub, json_type_object))
			mock_schema_sort_object(sub, schema->fields[i].sub);
	}
}

/* Write node (which carries the resourceVersion it was read at, so a
 * concurrent change makes this a 409 and the next pass retries). *out gets
 * the stored object. */
static int write_node(mock_store *s, json_object *node, json_object **out)
{
	sort_node(node);
	char *json = NULL;
	size_t len = 0;
	nl_status *st = NULL;
	int rc = mock_store_write(s, mock_resource_get(MOCK_KIND_NODE), MOCK_WRITE_UPDATE, node,
	                          NULL, NULL, &json, &len, NULL, &st);
	if (rc != 0) {
		MOCK_LOG_V(2, "Error updating node", NL_KV_REF("node", NULL, nl_meta_name(node)),
		           NL_KV_STR("err", st && st->message ? st->message : nl_strerror(rc)));
		nl_status_free(st);
		return rc;
	}
	*out = json_tokener_parse(json);
	free(json);
	return *out ? 0 : NL_ENOMEM;
}

/* ------------------------------------------------------------------------
 * tryUpdateNodeHealth */

static json_object *new_condition(const char *type, const char *status, const char *reason,
                                  const char *message, const char *heartbeat,
                                  const char *transition)
{
	json_object *c = json_object_new_object();
	json_object_object_add(c, "type", json_object_new_string(type));
	json_object_object_add(c, "status", json_object_new_string(status));
	json_object_object_add(c, "lastHeartbeatTime", json_object_new_string(heartbeat));
	json_object_object_add(c, "lastTransitionTime", json_object_new_string(transition));
	json_object_object_add(c, "reason", json_object_new_string(reason));
	json_object_object_add(c, "message", json_object_new_string(message));
	return c;
}

static json_object *conditions_of(json_object *node)
{
	json_object *status = NULL, *conds = NULL;
	if (!json_object_object_get_ex(node, "status", &status) ||
	    !json_object_is_type(status, json_type_object)) {
		status = json_object_new_object();
		json_object_object_add(node, "status", status);
	}
	if (!json_object_object_get_ex(status, "conditions", &conds) ||
	    !json_object_is_type(conds, json_type_array)) {
		conds = json_object_new_array();
		json_object_object_add(status, "conditions", conds);
	}
	return conds;
}

/* The grace period is over: every condition the kubelet owns becomes
 * Unknown. NetworkUnavailable is left alone, as upstream does. */
static void mark_unknown(json_object *node, int64_t now)
{
	static const char *const types[] = {"Ready", "MemoryPressure", "DiskPressure",
	                                    "PIDPressure"};
	char ts[NL_TIME_BUFSZ];
	const char *created = nl_json_get_string(node, "metadata.creationTimestamp");
	nl_time_format(ts, now);
	json_object *conds = conditions_of(node);
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		json_object *c = find_condition(node, types[i]);
		if (!c) {
			json_object_array_add(
			    conds, new_condition(types[i], "Unknown", "NodeStatusNeverUpdated",
			                         "Kubelet never posted node status.",
			                         created ? created : ts, ts));
		} else if (strcmp(cond_str(c, "status"), "Unknown") != 0) {
			json_object_object_add(c, "status", json_object_new_string("Unknown"));
			json_object_object_add(c, "reason",
			                       json_object_new_string("NodeStatusUnknown"));
			json_object_object_add(
			    c, "message",
			    json_object_new_string("Kubelet stopped posting node status."));
			json_object_object_add(c, "lastTransitionTime", json_object_new_string(ts));
		}
	}
}

/* Bring h up to date with what the node and its lease show, as the chain of
 * cases in tryUpdateNodeHealth. Returns the grace period that applies. */
static int64_t observe(mock_node_lifecycle *n, health **hp, json_object *node, json_object *ready,
                       int64_t now, lease_seen *lease)
{
	health *h = *hp;
	int64_t created = now;
	const char *cts = nl_json_get_string(node, "metadata.creationTimestamp");
	if (cts)
		nl_time_parse(&created, cts);
	int64_t grace = n->grace;
	if (!ready) {
		grace = n->startup_grace;
		if (h)
			h->has_saved_ready = 0;
		else if ((h = health_add(n, nl_meta_name(node))))
			health_reset(h, created, created, NULL);
	}
	if (!h) {
		if ((h = health_add(n, nl_meta_name(node))))
			health_reset(h, now, now, ready);
	} else if (!h->has_saved_ready && ready) {
		health_reset(h, now, now, ready);
	} else if (h->has_saved_ready && !ready) {
		health_reset(h, now, now, NULL);
	} else if (ready && strcmp(h->saved_heartbeat, cond_str(ready, "lastHeartbeatTime")) != 0) {
		int64_t tr = strcmp(h->saved_transition, cond_str(ready, "lastTransitionTime")) != 0
		                 ? now
		                 : h->ready_transition;
		health_reset(h, now, tr, ready);
	}
	*hp = h;
	if (h)
		observe_lease(n, h, now, lease);
	return grace;
}

/* Mark the node Unknown when its probe is older than the grace period.
 * *cur becomes the stored node after a write. Returns writes made. */
static int update_health(mock_node_lifecycle *n, health *h, json_object **cur, const char *observed,
                         int64_t grace, int64_t now, const lease_seen *lease)
{
	if (!(now > h->probe + grace))
		return 0;
	json_object *copy = NULL;
	if (json_object_deep_copy(*cur, &copy, NULL) != 0)
		return NL_ENOMEM;
	mark_unknown(copy, now);
	json_object *ready = find_condition(copy, "Ready");
	if (strcmp(json_text(ready), observed) == 0) {
		json_object_put(copy);
		return 0;
	}
	h->wanted_write = 1;
	json_object *stored = NULL;
	int rc = write_node(n->store, copy, &stored);
	json_object_put(copy);
	if (rc != 0)
		return 0;
	MOCK_LOG_V(1, "Node hasn't been updated for the grace period, Ready is Unknown",
	           NL_KV_REF("node", NULL, h->name));
	health_reset(h, h->probe, now, find_condition(stored, "Ready"));
	h->has_lease = lease->present;
	h->lease_renew_set = lease->renew_set;
	h->lease_renew = lease->renew;
	json_object_put(*cur);
	*cur = stored;
	return 1;
}

/* ------------------------------------------------------------------------
 * Taints */

static int has_taint(json_object *taints, const char *key, const char *effect)
{
	for (size_t i = 0; taints && i < json_object_array_length(taints); i++) {
		json_object *t = json_object_array_get_idx(taints, i);
		if (strcmp(cond_str(t, "key"), key) == 0 &&
		    strcmp(cond_str(t, "effect"), effect) == 0)
			return 1;
	}
	return 0;
}

/* Remove key/effect from taints (replaced by a new array). 1 if removed. */
static int remove_taint(json_object *spec, const char *key, const char *effect)
{
	json_object *taints = NULL;
	if (!json_object_object_get_ex(spec, "taints", &taints) || !has_taint(taints, key, effect))
		return 0;
	json_object *kept = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(taints); i++) {
		json_object *t = json_object_array_get_idx(taints, i);
		if (!(strcmp(cond_str(t, "key"), key) == 0 &&
		      strcmp(cond_str(t, "effect"), effect) == 0))
			json_object_array_add(kept, json_object_get(t));
	}
	if (json_object_array_length(kept) == 0) {
		json_object_put(kept);
		json_object_object_del(spec, "taints");
	} else {
		json_object_object_add(spec, "taints", kept);
	}
	return 1;
}

static int add_taint(json_object *spec, const char *key, const char *effect, int64_t now)
{
	json_object *taints = NULL;
	if (json_object_object_get_ex(spec, "taints", &taints) && has_taint(taints, key, effect))
		return 0;
	if (!taints || !json_object_is_type(taints, json_type_array)) {
		taints = json_object_new_array();
		json_object_object_add(spec, "taints", taints);
	}
	char ts[NL_TIME_BUFSZ];
	nl_time_format(ts, now);
	json_object *t = json_object_new_object();
	json_object_object_add(t, "key", json_object_new_string(key));
	json_object_object_add(t, "effect", json_object_new_string(effect));
	json_object_object_add(t, "timeAdded", json_object_new_string(ts));
	json_object_array_add(taints, t);
	return 1;
}

static int wanted_no_schedule(json_object *node, const char *key)
{
	if (strcmp(key, UNSCHEDULABLE_KEY) == 0) {
		json_object *u = nl_json_get_path(node, "spec");
		return u && json_object_object_get_ex(u, "unschedulable", &u) &&
		       json_object_get_boolean(u);
	}
	for (size_t i = 0; i < sizeof(condition_taints) / sizeof(condition_taints[0]); i++)
		if (strcmp(condition_taints[i].key, key) == 0 &&
		    strcmp(cond_str(find_condition(node, condition_taints[i].type), "status"),
		           condition_taints[i].status) == 0)
			return 1;
	return 0;
}

static int reconcile_no_schedule(json_object *node, json_object *spec, int64_t now)
{
	int changed = 0;
	for (size_t i = 0; i <= sizeof(condition_taints) / sizeof(condition_taints[0]); i++) {
		const char *key = i < sizeof(condition_taints) / sizeof(condition_taints[0])
		                      ? condition_taints[i].key
		                      : UNSCHEDULABLE_KEY;
		if (wanted_no_schedule(node, key))
			changed |= add_taint(spec, key, "NoSchedule", now);
		else
			changed |= remove_taint(spec, key, "NoSchedule");
	}
	return changed;
}

/* processTaintBaseEviction with the tainting worker: the observed
 * condition decides whether to act, the current one which taint. */
static int reconcile_no_execute(json_object *node, json_object *spec, const char *observed_status,
                                int64_t now)
{
	json_object *ready = find_condition(node, "Ready");
	if (!ready)
		return 0;
	const char *cur = cond_str(ready, "status");
	if (strcmp(observed_status, "True") == 0)
		return remove_taint(spec, UNREACHABLE_KEY, "NoExecute") |
		       remove_taint(spec, NOT_READY_KEY, "NoExecute");
	if (strcmp(cur, "False") == 0)
		return add_taint(spec, NOT_READY_KEY, "NoExecute", now) |
		       remove_taint(spec, UNREACHABLE_KEY, "NoExecute");
	if (strcmp(cur, "Unknown") == 0)
		return add_taint(spec, UNREACHABLE_KEY, "NoExecute", now) |
		       remove_taint(spec, NOT_READY_KEY, "NoExecute");
	return 0;
}

static int reconcile_taints(mock_node_lifecycle *n, health *h, json_object *node,
                            const char *observed_status, int64_t now)
{
	json_object *copy = NULL, *spec = NULL;
	if (json_object_deep_copy(node, &copy, NULL) != 0)
		return NL_ENOMEM;
	if (!json_object_object_get_ex(copy, "spec", &spec) ||
	    !json_object_is_type(spec, json_type_object)) {
		spec = json_object_new_object();
		json_object_object_add(copy, "spec", spec);
	}
	int changed = reconcile_no_schedule(copy, spec, now);
	changed |= reconcile_no_execute(copy, spec, observed_status, now);
	int writes = 0;
	json_object *stored = NULL;
	h->wanted_write |= changed;
	if (changed && write_node(n->store, copy, &stored) == 0) {
		writes = 1;
		json_object_put(stored);
	}
	json_object_put(copy);
	return writes;
}

/* ------------------------------------------------------------------------
 * One pass */

static int monitor_node(mock_node_lifecycle *n, json_object *node, int64_t now)
{
	const char *name = nl_meta_name(node);
	if (!name)
		return 0;
	health *h = health_find(n, name);
	json_object *ready = find_condition(node, "Ready");
	/* What tryUpdateNodeHealth returns as observedReadyCondition: a copy
	 * before this pass, or a fake Unknown one when there is none. */
	char *observed = strdup(json_text(ready));
	char observed_status[16];
	snprintf(observed_status, sizeof(observed_status), "%s",
	         ready ? cond_str(ready, "status") : "Unknown");
	lease_seen lease = {0, 0, 0};
	int64_t grace = observe(n, &h, node, ready, now, &lease);
	if (!h || !observed) {
		free(observed);
		return NL_ENOMEM;
	}
	h->seen = 1;
	h->grace = grace;
	h->wanted_write = 0;
	json_object *cur = json_object_get(node);
	int writes = update_health(n, h, &cur, observed, grace, now, &lease);
	free(observed);
	if (writes >= 0) {
		int w = reconcile_taints(n, h, cur, observed_status, now);
		writes = w < 0 ? w : writes + w;
	}
	json_object_put(cur);
	h->settled = writes >= 0 && !h->wanted_write;
	return writes;
}

/* A node of this pass, in key order: a copy of its JSON when it needs a
 * full look, else only its health record. */
typedef struct {
	health *h;
	char *json; /* NULL: unchanged since a settled look */
	uint64_t rv;
} pass_item;

typedef struct {
	mock_node_lifecycle *n;
	pass_item *v;
	size_t len, cap;
	int rc;
} pass;

/* Under the store's read lock: no parsing, no store calls. */
static int collect_node(const char *key, uint64_t rv, const char *json, size_t len, void *payload)
{
	pass *p = payload;
	health *h = health_find(p->n, key);
	if (p->len == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 256;
		pass_item *v = realloc(p->v, cap * sizeof(*v));
		if (!v)
			return p->rc = NL_ENOMEM;
		p->v = v;
		p->cap = cap;
	}
	pass_item *it = &p->v[p->len];
	it->h = h;
	it->rv = rv;
	it->json = NULL;
	if (!h || !h->settled || h->node_rv != rv) {
		if (!(it->json = malloc(len + 1)))
			return p->rc = NL_ENOMEM;
		memcpy(it->json, json, len + 1);
	}
	p->len++;
	return 0;
}

static int full_look(mock_node_lifecycle *n, const char *json, uint64_t rv, int64_t now)
{
	json_object *node = json_tokener_parse(json);
	if (!node)
		return NL_ENOMEM;
	int w = monitor_node(n, node, now);
	health *h = nl_meta_name(node) ? health_find(n, nl_meta_name(node)) : NULL;
	if (h)
		h->node_rv = rv;
	json_object_put(node);
	return w;
}

/* A node unchanged since a settled look: only its lease can move its
 * probe, and only a probe past the grace period asks for a full look. */
static int quick_look(mock_node_lifecycle *n, pass_item *it, int64_t now)
{
	health *h = it->h;
	lease_seen lease;
	h->seen = 1;
	observe_lease(n, h, now, &lease);
	if (!(now > h->probe + h->grace))
		return 0;
	char *json = NULL;
	size_t len = 0;
	if (mock_store_get(n->store, mock_resource_get(MOCK_KIND_NODE), NULL, h->name, &json, &len,
	                   NULL) != 0)
		return 0; /* deleted meanwhile: the next pass drops it */
	/* The lease was just observed: a full look must not count it twice. */
	int w = full_look(n, json, it->rv, now);
	free(json);
	return w;
}

int mock_node_lifecycle_run(mock_node_lifecycle *n, int64_t now)
{
	pass p = {n, NULL, 0, 0, 0};
	mock_store_mark m;
	int rc = refresh_leases(n);
	if (rc == 0)
		rc = mock_store_visit_since(n->store, mock_resource_get(MOCK_KIND_NODE), 0,
		                            collect_node, &p, &m);
	if (rc == 0)
		rc = p.rc;
	int writes = 0;
	if (rc == 0) {
		struct lh_entry *e;
		for (e = lh_table_head(n->health); e; e = lh_entry_next(e))
			((health *)lh_entry_v(e))->seen = 0;
	}
	for (size_t i = 0; i < p.len; i++) {
		int w = 0;
		if (rc == 0)
			w = p.v[i].json ? full_look(n, p.v[i].json, p.v[i].rv, now)
			                : quick_look(n, &p.v[i], now);
		if (w > 0)
			writes += w;
		free(p.v[i].json);
	}
	free(p.v);
	if (rc != 0)
		return rc;
	/* Deleted nodes leave the health map. */
	struct lh_entry *e, *tmp;
	for (e = lh_table_head(n->health); e; e = tmp) {
		tmp = lh_entry_next(e);
		if (!((health *)lh_entry_v(e))->seen)
			lh_table_delete_entry(n->health, e);
	}
	return writes;
}
