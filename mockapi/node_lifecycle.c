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
 * with timeAdded, as SwapNodeControllerTaint does. */
#include <nodelet/meta.h>
#include <nodelet/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controllers.h"
#include "log.h"
#include "schema.h"

#define NODE_LEASE_NAMESPACE "kube-node-lease"
#define TAINT_PREFIX "node.kubernetes.io/"

typedef struct health {
	struct health *next;
	char *name;
	int64_t probe;
	int64_t ready_transition;
	int has_saved_ready; /* the saved status had a Ready condition */
	char *saved_heartbeat, *saved_transition;
	int has_lease;
	int lease_renew_set;
	int64_t lease_renew;
	int seen;
} health;

struct mock_node_lifecycle {
	mock_store *store;
	int64_t grace, startup_grace;
	health *head;
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

static health *health_find(mock_node_lifecycle *n, const char *name)
{
	for (health *h = n->head; h; h = h->next)
		if (strcmp(h->name, name) == 0)
			return h;
	return NULL;
}

static health *health_add(mock_node_lifecycle *n, const char *name)
{
	health *h = calloc(1, sizeof(*h));
	if (!h || !(h->name = strdup(name))) {
		free(h);
		return NULL;
	}
	h->next = n->head;
	n->head = h;
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
	*out = n;
	return 0;
}

void mock_node_lifecycle_reset(mock_node_lifecycle *n)
{
	while (n->head) {
		health *h = n->head;
		n->head = h->next;
		health_free(h);
	}
}

void mock_node_lifecycle_free(mock_node_lifecycle *n)
{
	if (!n)
		return;
	mock_node_lifecycle_reset(n);
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

typedef struct {
	int present;
	int renew_set;
	int64_t renew;
} lease_seen;

static lease_seen read_lease(mock_store *s, const char *name)
{
	lease_seen l = {0, 0, 0};
	json_object *lease = NULL;
	if (mock_store_get_object(s, mock_resource_get(MOCK_KIND_LEASE), NODE_LEASE_NAMESPACE, name,
	                          &lease) != 0)
		return l;
	l.present = 1;
	const char *renew = nl_json_get_string(lease, "spec.renewTime");
	l.renew_set = renew && nl_time_parse_micro(&l.renew, renew) == 0;
	json_object_put(lease);
	return l;
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
	const mock_schema *schema = mock_resource_get(MOCK_KIND_NODE)->schema;
	mock_schema_sort_object(node, schema);
	for (size_t i = 0; i < schema->nfields; i++) {
		json_object *sub = NULL;
		if (schema->fields[i].type == MOCK_FT_OBJECT && schema->fields[i].sub &&
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
		MOCK_LOG_V(2, "nodelifecycle: writing node %s: %s", nl_meta_name(node),
		           st && st->message ? st->message : nl_strerror(rc));
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
	if (!h)
		return grace;
	/* Always a fresh probe when the lease was renewed. MicroTime.Before is
	 * false when either renewTime is unset. */
	*lease = read_lease(n->store, h->name);
	if (lease->present && (!h->has_lease || (h->lease_renew_set && lease->renew_set &&
	                                         h->lease_renew < lease->renew))) {
		h->has_lease = 1;
		h->lease_renew_set = lease->renew_set;
		h->lease_renew = lease->renew;
		h->probe = now;
	}
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
	json_object *stored = NULL;
	int rc = write_node(n->store, copy, &stored);
	json_object_put(copy);
	if (rc != 0)
		return 0;
	MOCK_LOG_V(1,
	           "nodelifecycle: node %s: Ready is Unknown (no lease renewal or status for "
	           "the grace period)",
	           h->name);
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

static int reconcile_taints(mock_node_lifecycle *n, json_object *node, const char *observed_status,
                            int64_t now)
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
	json_object *cur = json_object_get(node);
	int writes = update_health(n, h, &cur, observed, grace, now, &lease);
	free(observed);
	if (writes >= 0) {
		int w = reconcile_taints(n, cur, observed_status, now);
		writes = w < 0 ? w : writes + w;
	}
	json_object_put(cur);
	return writes;
}

static int collect_node(const char *json, size_t len, void *payload)
{
	json_object *o = json_tokener_parse(json);
	(void)len;
	if (!o)
		return NL_ENOMEM;
	json_object_array_add(payload, o);
	return 0;
}

int mock_node_lifecycle_run(mock_node_lifecycle *n, int64_t now)
{
	uint64_t rv = 0;
	json_object *nodes = json_object_new_array();
	if (!nodes)
		return NL_ENOMEM;
	int rc = mock_store_visit(n->store, mock_resource_get(MOCK_KIND_NODE), NULL, collect_node,
	                          nodes, &rv, NULL);
	if (rc != 0) {
		json_object_put(nodes);
		return rc;
	}
	for (health *h = n->head; h; h = h->next)
		h->seen = 0;
	int writes = 0;
	for (size_t i = 0; i < json_object_array_length(nodes); i++) {
		int w = monitor_node(n, json_object_array_get_idx(nodes, i), now);
		if (w > 0)
			writes += w;
	}
	json_object_put(nodes);
	/* Deleted nodes leave the health map. */
	for (health **p = &n->head; *p;) {
		if ((*p)->seen) {
			p = &(*p)->next;
		} else {
			health *dead = *p;
			*p = dead->next;
			health_free(dead);
		}
	}
	return writes;
}
