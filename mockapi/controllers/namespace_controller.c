/* The namespace controller (controllers.h), as kube-controller-manager
 * 1.32's (pkg/controller/namespace, deletion/namespaced_resources_deleter.go,
 * status_condition_utils.go): a namespace with a deletionTimestamp is
 * synced 5 s after each change seen (namespaceDeletionGracePeriod). A sync
 * deletes every object in it of every served namespaced kind with
 * background propagation, through the store, so an object with
 * finalizers is only marked; reports the five deletion conditions in
 * status; and once nothing is left takes "kubernetes" out of
 * spec.finalizers, which deletes the namespace when no other finalizer
 * holds it. Content still there is looked at again estimate/2 + 1 s
 * later (ResourcesRemainingError): 8 s for the 15 s finalizer estimate,
 * 16 s for pods still in their 30 s grace period (the estimate is the
 * longest terminationGracePeriodSeconds of the pods not yet terminal, 0
 * once the namespace has been deleted that long).
 *
 * It reads and writes the store only between its calls, never under its
 * lock, and never waits: what is not done is rescheduled. Namespaces are
 * found by their resourceVersions (mock_store_visit_since), so a pass
 * parses only the namespaces that changed, and a restart from a state
 * file picks up every Terminating one on the first pass. */
#include <nodelet/json_text.h>
#include <nodelet/meta.h>
#include <nodelet/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/route.h"
#include "controllers.h"
#include "core/log.h"

#define GRACE_USEC (5 * 1000000LL)
#define FINALIZER_ESTIMATE_SECONDS 15
#define BACKOFF_BASE_USEC 5000LL
#define BACKOFF_MAX_USEC (1000 * 1000000LL)
#define MAX_CONFLICTS 5

typedef struct {
	char *name;
	int64_t due;
	int failures;
} ns_item;

struct mock_namespace_controller {
	mock_store *store;
	uint64_t since;   /* namespaces' resourceVersions looked at */
	int64_t last_run; /* server clock of the last pass, or of the start */
	ns_item *v;
	size_t n, cap;
};

int mock_namespace_controller_new(mock_namespace_controller **out, mock_store *s, int64_t now)
{
	mock_namespace_controller *c = calloc(1, sizeof(*c));
	if (!c)
		return NL_ENOMEM;
	c->store = s;
	c->last_run = now;
	*out = c;
	return 0;
}

void mock_namespace_controller_reset(mock_namespace_controller *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].name);
	c->n = 0;
	c->since = 0;
}

void mock_namespace_controller_free(mock_namespace_controller *c)
{
	if (!c)
		return;
	mock_namespace_controller_reset(c);
	free(c->v);
	free(c);
}

/* The workqueue's AddAfter: an item waits at most until the earliest time
 * asked for. */
static int enqueue(mock_namespace_controller *c, const char *name, int64_t due)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i].name, name) == 0) {
			if (due < c->v[i].due)
				c->v[i].due = due;
			return 0;
		}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 8;
		ns_item *v = realloc(c->v, cap * sizeof(*v));
		if (!v)
			return NL_ENOMEM;
		c->v = v;
		c->cap = cap;
	}
	char *copy = strdup(name);
	if (!copy)
		return NL_ENOMEM;
	c->v[c->n++] = (ns_item){copy, due, 0};
	return 0;
}

/* A namespace changed: queue it when it is being deleted (enqueueNamespace),
 * 5 s after the change. The change came after the last pass and not
 * before the deletion mark: the later of the two is when an informer would
 * have seen it (exact for the DELETE and for this controller's writes). */
static int seen(const char *key, uint64_t rv, const char *json, size_t len, void *payload)
{
	mock_namespace_controller *c = payload;
	const char *v = NULL;
	size_t vlen = 0;
	char ts[NL_TIME_BUFSZ];
	int64_t marked = 0;
	(void)rv;
	if (nl_json_text_member(&v, &vlen, json, len, "metadata.deletionTimestamp") != 0 ||
	    v[0] != '"' || vlen < 2 || vlen - 2 >= sizeof(ts))
		return 0;
	memcpy(ts, v + 1, vlen - 2);
	ts[vlen - 2] = '\0';
	if (nl_time_parse(&marked, ts) != 0 || marked < c->last_run)
		marked = c->last_run;
	return enqueue(c, key, marked + GRACE_USEC);
}

/* ------------------------------------------------------------------------
 * Content */

/* What is left of the namespace's content after a round of deletes. */
typedef struct {
	json_object *remaining;  /* {"<plural>.<group>": count} */
	json_object *finalizers; /* {"<finalizer>": count} */
	json_object *errors;     /* array of strings */
	size_t held;             /* objects left with a finalizer */
	int64_t deleted_at;      /* the namespace's deletionTimestamp */
	int64_t now;
	int64_t estimate; /* seconds: the longest of the kinds' estimates */
} content;

typedef struct {
	json_object *names; /* array of names */
	const mock_resource *r;
	content *tally;
} gather;

static int gather_name(const char *json, size_t len, void *payload)
{
	gather *g = payload;
	json_object *o = json_tokener_parse(json);
	(void)len;
	if (!o)
		return NL_ENOMEM;
	const char *name = nl_meta_name(o);
	if (name)
		json_object_array_add(g->names, json_object_new_string(name));
	if (g->tally) {
		json_object *fins = nl_json_get_path(o, "metadata.finalizers");
		if (json_object_is_type(fins, json_type_array) &&
		    json_object_array_length(fins) > 0)
			g->tally->held++;
		for (size_t i = 0; json_object_is_type(fins, json_type_array) &&
		                   i < json_object_array_length(fins);
		     i++) {
			const char *f = json_object_get_string(json_object_array_get_idx(fins, i));
			json_object *n = NULL;
			int64_t have =
			    json_object_object_get_ex(g->tally->finalizers, f ? f : "", &n)
			        ? json_object_get_int64(n)
			        : 0;
			json_object_object_add(g->tally->finalizers, f ? f : "",
			                       json_object_new_int64(have + 1));
		}
	}
	json_object_put(o);
	return 0;
}

/* The names of r's objects in ns; with tally, their finalizers counted. */
static json_object *names_in(mock_store *s, const mock_resource *r, const char *ns, content *tally)
{
	mock_list_opts o = {0};
	uint64_t rv = 0;
	o.ns = ns;
	gather g = {json_object_new_array(), r, tally};
	nl_status *st = NULL;
	if (g.names && mock_store_visit(s, r, &o, gather_name, &g, &rv, &st) != 0) {
		json_object_put(g.names);
		g.names = NULL;
	}
	nl_status_free(st);
	return g.names;
}

static int longest_grace(const char *json, size_t len, void *payload)
{
	int64_t *longest = payload;
	json_object *o = json_tokener_parse(json);
	(void)len;
	if (!o)
		return NL_ENOMEM;
	const char *phase = nl_json_get_string(o, "status.phase");
	json_object *g = nl_json_get_path(o, "spec.terminationGracePeriodSeconds");
	int terminal = phase && (strcmp(phase, "Succeeded") == 0 || strcmp(phase, "Failed") == 0);
	if (!terminal && json_object_is_type(g, json_type_int) &&
	    json_object_get_int64(g) > *longest)
		*longest = json_object_get_int64(g);
	json_object_put(o);
	return 0;
}

/* estimateGracefulTermination: for pods the longest grace period of the
 * ones not terminal, unless the namespace was deleted longer ago; 0 for
 * every other kind. */
static int64_t estimate_of(mock_store *s, const mock_resource *r, const char *ns, const content *c)
{
	mock_list_opts o = {0};
	uint64_t rv = 0;
	int64_t longest = 0;
	nl_status *st = NULL;
	if (r->id != MOCK_KIND_POD)
		return 0;
	o.ns = ns;
	if (mock_store_visit(s, r, &o, longest_grace, &longest, &rv, &st) != 0)
		longest = 0;
	nl_status_free(st);
	return c->now - c->deleted_at >= longest * 1000000LL ? 0 : longest;
}

/* deleteAllContentForGroupVersionResource for one kind: delete each object
 * (background: the GC's finalizers go, others stay), then count what is
 * left and the finalizers it waits for. */
static int delete_kind(mock_store *s, const mock_resource *r, const char *ns, content *out)
{
	int64_t estimate = estimate_of(s, r, ns, out);
	json_object *names = names_in(s, r, ns, NULL);
	char what[300];
	if (!names)
		return NL_ENOMEM;
	for (size_t i = 0; i < json_object_array_length(names); i++) {
		const char *name = json_object_get_string(json_object_array_get_idx(names, i));
		nl_status *st = NULL;
		int rc = mock_store_delete_ex(s, r, ns, name, MOCK_DELETE_F_BACKGROUND, NULL, NULL,
		                              NULL, NULL, NULL, &st);
		if (rc != 0 && rc != NL_ENOTFOUND)
			json_object_array_add(
			    out->errors, json_object_new_string(
			                     st && st->message ? st->message : "delete failed"));
		nl_status_free(st);
	}
	json_object_put(names);
	size_t held = out->held;
	names = names_in(s, r, ns, out);
	if (!names)
		return NL_ENOMEM;
	size_t left = json_object_array_length(names);
	json_object_put(names);
	if (left == 0)
		return 0;
	snprintf(what, sizeof(what), "%s.%s", r->plural, r->group);
	json_object_object_add(out->remaining, what, json_object_new_int64((int64_t)left));
	if (estimate > out->estimate)
		out->estimate = estimate;
	if (out->held > held && out->estimate < FINALIZER_ESTIMATE_SECONDS)
		out->estimate = FINALIZER_ESTIMATE_SECONDS;
	/* left without a finalizer, nor a grace period to wait for:
	 * "unexpected items still remain" */
	if (out->held == held && estimate == 0) {
		char msg[600];
		snprintf(
		    msg, sizeof(msg),
		    "unexpected items still remain in namespace: %s for gvr: %s/%s, Resource=%s",
		    ns, r->group, r->version, r->plural);
		json_object_array_add(out->errors, json_object_new_string(msg));
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * Conditions (status_condition_utils.go) */

static const struct {
	const char *type, *ok_reason, *ok_message;
} cond_types[] = {
    {"NamespaceDeletionDiscoveryFailure", "ResourcesDiscovered",
     "All resources successfully discovered"},
    {"NamespaceDeletionGroupVersionParsingFailure", "ParsedGroupVersions",
     "All legacy kube types successfully parsed"},
    {"NamespaceDeletionContentFailure", "ContentDeleted",
     "All content successfully deleted, may be waiting on finalization"},
    {"NamespaceContentRemaining", "ContentRemoved", "All content successfully removed"},
    {"NamespaceFinalizersRemaining", "ContentHasNoFinalizers",
     "All content-preserving finalizers finished"},
};

static int by_string(const void *a, const void *b)
{
	return strcmp(json_object_get_string(*(json_object *const *)a),
	              json_object_get_string(*(json_object *const *)b));
}

/* "<key><mid><count><tail>" for each entry, sorted, joined by ", ". */
static void counts_text(char *out, size_t cap, json_object *counts, const char *mid,
                        const char *tail)
{
	json_object *parts = json_object_new_array();
	char one[512];
	size_t n = 0;
	json_object_object_foreach(counts, k, v)
	{
		snprintf(one, sizeof(one), "%s%s%lld%s", k, mid,
		         (long long)json_object_get_int64(v), tail);
		json_object_array_add(parts, json_object_new_string(one));
	}
	json_object_array_sort(parts, by_string);
	out[0] = '\0';
	for (size_t i = 0; i < json_object_array_length(parts) && n < cap; i++)
		n += (size_t)snprintf(out + n, cap - n, "%s%s", i ? ", " : "",
		                      json_object_get_string(json_object_array_get_idx(parts, i)));
	json_object_put(parts);
}

/* The failing variant of condition i for what c found, or 0 for the ok one. */
static int failing(const content *c, size_t i, char *reason, char *message, size_t cap)
{
	char list[2048];
	switch (i) {
	case 2:
		if (json_object_array_length(c->errors) == 0)
			return 0;
		json_object_array_sort(c->errors, by_string);
		list[0] = '\0';
		for (size_t k = 0, n = 0;
		     k < json_object_array_length(c->errors) && n < sizeof(list); k++)
			n += (size_t)snprintf(
			    list + n, sizeof(list) - n, "%s%s", k ? ", " : "",
			    json_object_get_string(json_object_array_get_idx(c->errors, k)));
		snprintf(reason, cap, "ContentDeletionFailed");
		snprintf(message, cap, "Failed to delete all resource types, %zu remaining: %s",
		         json_object_array_length(c->errors), list);
		return 1;
	case 3:
		if (json_object_object_length(c->remaining) == 0)
			return 0;
		counts_text(list, sizeof(list), c->remaining, " has ", " resource instances");
		snprintf(reason, cap, "SomeResourcesRemain");
		snprintf(message, cap, "Some resources are remaining: %s", list);
		return 1;
	case 4:
		if (json_object_object_length(c->finalizers) == 0)
			return 0;
		counts_text(list, sizeof(list), c->finalizers, " in ", " resource instances");
		snprintf(reason, cap, "SomeFinalizersRemain");
		snprintf(message, cap, "Some content in the namespace has finalizers remaining: %s",
		         list);
		return 1;
	default:
		return 0; /* discovery and group versions cannot fail here */
	}
}

static json_object *find_condition(json_object *conds, const char *type)
{
	for (size_t i = 0; i < json_object_array_length(conds); i++) {
		json_object *c = json_object_array_get_idx(conds, i);
		const char *t = nl_json_get_string(c, "type");
		if (t && strcmp(t, type) == 0)
			return c;
	}
	return NULL;
}

static int set_member(json_object *o, const char *key, const char *value)
{
	const char *have = nl_json_get_string(o, key);
	if (have && strcmp(have, value) == 0)
		return 0;
	json_object_object_add(o, key, json_object_new_string(value));
	return 1;
}

/* updateConditions on ns's status: whether anything changed. A condition's
 * lastTransitionTime moves only when its status does. */
static int update_conditions(json_object *ns, const content *c, const char *now)
{
	json_object *status = nl_json_get_path(ns, "status"), *conds = NULL;
	int changed = 0;
	if (!json_object_is_type(status, json_type_object))
		return 0;
	if (!json_object_object_get_ex(status, "conditions", &conds) ||
	    !json_object_is_type(conds, json_type_array)) {
		conds = json_object_new_array();
		json_object_object_add(status, "conditions", conds);
	}
	for (size_t i = 0; i < sizeof(cond_types) / sizeof(cond_types[0]); i++) {
		char reason[64], message[4096];
		int bad = failing(c, i, reason, message, sizeof(message));
		const char *st = bad ? "True" : "False";
		json_object *cond = find_condition(conds, cond_types[i].type);
		if (!cond) {
			/* NamespaceCondition's field order */
			cond = json_object_new_object();
			json_object_object_add(cond, "type",
			                       json_object_new_string(cond_types[i].type));
			json_object_object_add(cond, "status", json_object_new_string(st));
			json_object_object_add(cond, "lastTransitionTime",
			                       json_object_new_string(now));
			json_object_array_add(conds, cond);
			changed = 1;
		} else if (set_member(cond, "status", st)) {
			json_object_object_add(cond, "lastTransitionTime",
			                       json_object_new_string(now));
			changed = 1;
		}
		changed |= set_member(cond, "reason", bad ? reason : cond_types[i].ok_reason);
		changed |= set_member(cond, "message", bad ? message : cond_types[i].ok_message);
	}
	return changed;
}

/* ------------------------------------------------------------------------
 * A sync */

typedef enum { SYNC_DONE, SYNC_REMAINING, SYNC_ERROR } sync_result;

static const mock_resource *namespaces(void)
{
	return mock_resource_get(MOCK_KIND_NAMESPACE);
}

/* Write ns back as it is (its resourceVersion a precondition); the
 * store deletes it when that leaves no finalizer. */
static int write_back(mock_store *s, json_object *ns)
{
	nl_status *st = NULL;
	int rc = mock_store_write(s, namespaces(), MOCK_WRITE_UPDATE, ns, NULL, NULL, NULL, NULL,
	                          NULL, &st);
	nl_status_free(st);
	return rc;
}

/* spec.finalizers without "kubernetes", as a sorted set (finalizeNamespace). */
static int finalize(mock_store *s, const char *name)
{
	for (int attempt = 0; attempt < MAX_CONFLICTS; attempt++) {
		json_object *ns = NULL;
		if (mock_store_get_object(s, namespaces(), NULL, name, &ns) != 0)
			return 0; /* gone already */
		json_object *spec = nl_json_get_path(ns, "spec");
		json_object *fins = nl_json_get_path(ns, "spec.finalizers");
		json_object *kept = json_object_new_array();
		for (size_t i = 0; json_object_is_type(fins, json_type_array) &&
		                   i < json_object_array_length(fins);
		     i++) {
			json_object *f = json_object_array_get_idx(fins, i);
			const char *fs = json_object_get_string(f);
			int dup = 0;
			for (size_t k = 0; k < json_object_array_length(kept); k++)
				dup |= strcmp(json_object_get_string(
				                  json_object_array_get_idx(kept, k)),
				              fs) == 0;
			if (strcmp(fs, "kubernetes") != 0 && !dup)
				json_object_array_add(kept, json_object_get(f));
		}
		json_object_array_sort(kept, by_string);
		if (json_object_is_type(spec, json_type_object))
			json_object_object_add(spec, "finalizers", kept);
		else
			json_object_put(kept);
		int rc = write_back(s, ns);
		json_object_put(ns);
		if (rc != NL_ECONFLICT)
			return rc == NL_ENOTFOUND ? 0 : rc;
	}
	return NL_ECONFLICT;
}

/* namespacedResourcesDeleter.Delete for one namespace at now; *estimate
 * the seconds SYNC_REMAINING reports. */
static sync_result sync_namespace(mock_store *s, const char *name, int64_t now, int64_t *estimate)
{
	char ts[NL_TIME_BUFSZ];
	json_object *ns = NULL;
	if (mock_store_get_object(s, namespaces(), NULL, name, &ns) != 0)
		return SYNC_DONE;
	nl_time_format(ts, now);
	const char *phase = nl_json_get_string(ns, "status.phase");
	json_object *fins = nl_json_get_path(ns, "spec.finalizers");
	if (!nl_json_get_string(ns, "metadata.deletionTimestamp")) {
		json_object_put(ns);
		return SYNC_DONE;
	}
	if (!phase || strcmp(phase, "Terminating") != 0) {
		json_object *status = nl_json_get_path(ns, "status");
		if (json_object_is_type(status, json_type_object))
			json_object_object_add(status, "phase",
			                       json_object_new_string("Terminating"));
		int rc = write_back(s, ns);
		json_object_put(ns);
		return rc == 0 ? SYNC_DONE : SYNC_ERROR; /* its change queues it again */
	}
	if (!json_object_is_type(fins, json_type_array) || json_object_array_length(fins) == 0) {
		json_object_put(ns);
		return SYNC_DONE; /* finalized */
	}
	content c = {json_object_new_object(),
	             json_object_new_object(),
	             json_object_new_array(),
	             0,
	             0,
	             now,
	             0};
	nl_time_parse(&c.deleted_at, nl_json_get_string(ns, "metadata.deletionTimestamp"));
	int rc = 0;
	for (int k = 0; k < MOCK_KIND_COUNT && rc == 0; k++) {
		const mock_resource *r = mock_resource_get((mock_kind)k);
		if (r && r->namespaced && mock_route_allows(r, "delete", 0))
			rc = delete_kind(s, r, name, &c);
	}
	/* a failed status write is only logged upstream; the next sync
	 * writes it */
	if (rc == 0 && update_conditions(ns, &c, ts) && write_back(s, ns) != 0)
		MOCK_LOG_V(2, "Could not update the namespace conditions",
		           NL_KV_REF("namespace", NULL, name));
	sync_result out = SYNC_DONE;
	if (rc != 0 || json_object_array_length(c.errors) > 0)
		out = SYNC_ERROR;
	else if (c.estimate > 0)
		out = SYNC_REMAINING;
	else if (finalize(s, name) != 0)
		out = SYNC_ERROR;
	else
		MOCK_LOG_V(1, "Namespace finalized", NL_KV_REF("namespace", NULL, name));
	*estimate = c.estimate;
	json_object_put(c.remaining);
	json_object_put(c.finalizers);
	json_object_put(c.errors);
	json_object_put(ns);
	return out;
}

int mock_namespace_controller_run(mock_namespace_controller *c, int64_t now)
{
	mock_store_mark mark;
	int work = 0;
	int rc = mock_store_visit_since(c->store, namespaces(), c->since, seen, c, &mark);
	if (rc != 0)
		return rc;
	c->since = mark.rv;
	c->last_run = now;
	for (size_t i = 0; i < c->n;) {
		ns_item *it = &c->v[i];
		if (it->due > now) {
			i++;
			continue;
		}
		int64_t estimate = 0;
		sync_result res = sync_namespace(c->store, it->name, now, &estimate);
		work++;
		if (res == SYNC_DONE) {
			free(it->name);
			c->v[i] = c->v[--c->n];
			continue;
		}
		if (res == SYNC_REMAINING) {
			it->due = now + (estimate / 2 + 1) * 1000000LL;
			it->failures = 0;
		} else {
			/* the rate-limited requeue: 5 ms doubling up to 1000 s */
			int64_t d = BACKOFF_BASE_USEC << (it->failures < 20 ? it->failures : 20);
			it->due = now + (d < BACKOFF_MAX_USEC ? d : BACKOFF_MAX_USEC);
			it->failures++;
		}
		i++;
	}
	return work;
}
