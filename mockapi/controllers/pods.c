/* The two controllers that act on pods (controllers.h):
 *
 * - podtermination stands in for the kubelet, which the mock does not
 *   have: a pod marked for graceful deletion is deleted (grace period 0)
 *   once its node is Ready, as a live kubelet that runs none of its
 *   containers confirms at once; a pod whose node is gone is deleted too,
 *   as the pod garbage collector's orphan pass does. A pod on a node that
 *   is not Ready stays Terminating, as in a real cluster whose kubelet is
 *   down (docs/decisions/0041-pods.md).
 * - taint-eviction-controller, as pkg/controller/tainteviction: a pod
 *   bound to a node with NoExecute taints it does not tolerate gets the
 *   DisruptionTarget condition and is deleted at once; one that tolerates
 *   them all for a while is deleted when the shortest tolerationSeconds
 *   has passed since the taint's timeAdded; one that tolerates them
 *   without a limit stays. */
#include "controllers.h"

#include <nodelet/meta.h>
#include <nodelet/time.h>
#include <stdlib.h>
#include <string.h>

#include "api/pod_strategy.h"
#include "api/resources.h"

typedef struct {
	char **v;
	size_t n, cap;
	int rc;
} pod_list;

static int collect(const char *key, uint64_t rv, const char *json, size_t len, void *payload)
{
	pod_list *l = payload;
	(void)key;
	(void)rv;
	(void)len;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		char **v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return l->rc = NL_ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	if (!(l->v[l->n] = strdup(json)))
		return l->rc = NL_ENOMEM;
	l->n++;
	return 0;
}

static void pod_list_free(pod_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

/* Every pod's JSON, copied out of the store's lock. */
static int all_pods(pod_list *out, mock_store *s)
{
	mock_store_mark m;
	memset(out, 0, sizeof(*out));
	int rc = mock_store_visit_since(s, mock_resource_get(MOCK_KIND_POD), 0, collect, out, &m);
	return rc ? rc : out->rc;
}

static json_object *get_node(mock_store *s, const char *name)
{
	json_object *node = NULL;
	if (!name || !*name ||
	    mock_store_get_object(s, mock_resource_get(MOCK_KIND_NODE), NULL, name, &node) != 0)
		return NULL;
	return node;
}

static int node_ready(json_object *node)
{
	json_object *conds = nl_json_get_path(node, "status.conditions");
	for (size_t i = 0;
	     json_object_is_type(conds, json_type_array) && i < json_object_array_length(conds);
	     i++) {
		json_object *c = json_object_array_get_idx(conds, i);
		const char *t = nl_json_get_string(c, "type"),
		           *st = nl_json_get_string(c, "status");
		if (t && strcmp(t, "Ready") == 0)
			return st && strcmp(st, "True") == 0;
	}
	return 0;
}

static int delete_pod(mock_store *s, json_object *pod, const int64_t *grace)
{
	nl_status *st = NULL;
	int rc = mock_store_delete_grace(s, mock_resource_get(MOCK_KIND_POD),
	                                 nl_meta_namespace(pod), nl_meta_name(pod), 0, grace,
	                                 nl_meta_uid(pod), NULL, NULL, NULL, NULL, &st);
	nl_status_free(st);
	return rc == 0 ? 1 : 0; /* gone or changed meanwhile: the next pass looks again */
}

/* ---------------------------------------------------------- termination */

static int terminate_one(mock_store *s, json_object *pod)
{
	static const int64_t zero = 0;
	if (!nl_json_get_string(pod, "metadata.deletionTimestamp"))
		return 0;
	json_object *node = get_node(s, nl_json_get_string(pod, "spec.nodeName"));
	int go = !node || node_ready(node);
	json_object_put(node);
	return go ? delete_pod(s, pod, &zero) : 0;
}

int mock_pod_termination_run(mock_store *s, int64_t now)
{
	pod_list l;
	int writes = 0, rc = all_pods(&l, s);
	(void)now;
	for (size_t i = 0; rc == 0 && i < l.n; i++) {
		json_object *pod = json_tokener_parse(l.v[i]);
		if (pod)
			writes += terminate_one(s, pod);
		json_object_put(pod);
	}
	pod_list_free(&l);
	return rc ? rc : writes;
}

/* -------------------------------------------------------- taint eviction */

static const char *str_or_empty(json_object *o, const char *key)
{
	const char *s = nl_json_get_string(o, key);
	return s ? s : "";
}

/* v1 Toleration.ToleratesTaint */
static int tolerates(json_object *tol, json_object *taint)
{
	const char *effect = str_or_empty(tol, "effect"), *key = str_or_empty(tol, "key");
	const char *op = str_or_empty(tol, "operator");
	if (*effect && strcmp(effect, str_or_empty(taint, "effect")) != 0)
		return 0;
	if (*key && strcmp(key, str_or_empty(taint, "key")) != 0)
		return 0;
	if (strcmp(op, "Exists") == 0)
		return 1;
	if (*op && strcmp(op, "Equal") != 0)
		return 0;
	return strcmp(str_or_empty(tol, "value"), str_or_empty(taint, "value")) == 0;
}

/* When the pod is due to go for its node's NoExecute taints: 0 now, -1
 * never (no such taint, or tolerated without a limit), else the server
 * time (usec). For each taint the smallest tolerationSeconds of the
 * tolerations that match it counts from its timeAdded; the earliest
 * taint decides, as getMinTolerationTime over all of them. */
static int64_t due_at(json_object *pod, json_object *node, int64_t now)
{
	json_object *taints = nl_json_get_path(node, "spec.taints");
	json_object *tols = nl_json_get_path(pod, "spec.tolerations");
	int64_t due = -1;
	for (size_t i = 0;
	     json_object_is_type(taints, json_type_array) && i < json_object_array_length(taints);
	     i++) {
		json_object *t = json_object_array_get_idx(taints, i);
		int64_t added = now, limit = -1;
		int matched = 0;
		if (strcmp(str_or_empty(t, "effect"), "NoExecute") != 0)
			continue;
		nl_time_parse(&added, str_or_empty(t, "timeAdded"));
		for (size_t j = 0; json_object_is_type(tols, json_type_array) &&
		                   j < json_object_array_length(tols);
		     j++) {
			json_object *tol = json_object_array_get_idx(tols, j);
			json_object *secs = nl_json_get_path(tol, "tolerationSeconds");
			if (!tolerates(tol, t))
				continue;
			/* no tolerationSeconds: forever; zero or below: at once */
			int64_t v = secs ? json_object_get_int64(secs) : -1;
			if (secs && v < 0)
				v = 0;
			if (!matched || (v >= 0 && (limit < 0 || v < limit)))
				limit = v;
			matched = 1;
		}
		if (!matched)
			return 0;
		if (limit < 0)
			continue;
		int64_t at = added + limit * 1000000LL;
		if (due < 0 || at < due)
			due = at;
	}
	return due;
}

static int evict_one(mock_store *s, json_object *pod, int64_t now)
{
	char ts[NL_TIME_BUFSZ];
	nl_status *st = NULL;
	if (nl_json_get_string(pod, "metadata.deletionTimestamp"))
		return 0;
	json_object *node = get_node(s, nl_json_get_string(pod, "spec.nodeName"));
	int64_t due = node ? due_at(pod, node, now) : -1;
	json_object_put(node);
	if (due < 0 || due > now)
		return 0;
	nl_time_format(ts, now);
	mock_pod_set_condition(pod, "DisruptionTarget", "DeletionByTaintManager",
	                       "Taint manager: deleting due to NoExecute taint", ts);
	json_object_object_del(nl_json_get_path(pod, "metadata"), "resourceVersion");
	if (mock_store_write(s, mock_resource_get(MOCK_KIND_POD), MOCK_WRITE_UPDATE, pod, NULL,
	                     NULL, NULL, NULL, NULL, &st) != 0) {
		nl_status_free(st);
		return 0;
	}
	return 1 + delete_pod(s, pod, NULL);
}

int mock_taint_eviction_run(mock_store *s, int64_t now)
{
	pod_list l;
	int writes = 0, rc = all_pods(&l, s);
	for (size_t i = 0; rc == 0 && i < l.n; i++) {
		json_object *pod = json_tokener_parse(l.v[i]);
		if (pod)
			writes += evict_one(s, pod, now);
		json_object_put(pod);
	}
	pod_list_free(&l);
	return rc ? rc : writes;
}
