/* Finalizers (store.h, store_internal.h): what k8s.io/apiserver's generic
 * registry does with an object whose metadata.finalizers are not empty.
 * A DELETE marks it (markAsDeleting: deletionTimestamp, a zero
 * deletionGracePeriodSeconds, generation + 1 the first time) and keeps it;
 * the update that empties the finalizers of a marked object deletes it
 * (ShouldDeleteDuringUpdate). Pods alone have graceful deletion
 * (mock__store_graceful_delete, at the end): a deletionTimestamp ahead of
 * now and its grace period. */
#include "store_internal.h"

#include <nodelet/errors.h>
#include <nodelet/json_text.h>
#include <nodelet/meta.h>
#include <nodelet/time.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"

int mock__store_has_finalizers(const char *json, size_t len)
{
	const char *v = NULL;
	size_t vlen = 0;
	if (nl_json_text_member(&v, &vlen, json, len, "metadata.finalizers") != 0)
		return 0;
	/* stored JSON is compact: an empty list is "[]" */
	return vlen > 2 && v[0] == '[';
}

int mock__store_delete_keeps(const char *json, size_t len, unsigned flags)
{
	return (flags & (MOCK_DELETE_F_ORPHAN | MOCK_DELETE_F_FOREGROUND)) ||
	       mock__store_has_finalizers(json, len);
}

static size_t list_len(json_object *meta, const char *key)
{
	json_object *v = NULL;
	if (!meta || !json_object_object_get_ex(meta, key, &v) ||
	    !json_object_is_type(v, json_type_array))
		return 0;
	return json_object_array_length(v);
}

int mock__store_should_delete_on_update(const mock_resource *r, json_object *obj, json_object *old)
{
	json_object *om = nl_json_get_path(old, "metadata");
	json_object *grace = NULL;
	if (list_len(nl_json_get_path(obj, "metadata"), "finalizers") > 0 ||
	    !nl_json_get_string(old, "metadata.deletionTimestamp"))
		return 0;
	/* A namespace waits for its spec.finalizers too (the namespace
	 * registry's ShouldDeleteNamespaceDuringUpdate). */
	if (r->id == MOCK_KIND_NAMESPACE && list_len(nl_json_get_path(obj, "spec"), "finalizers"))
		return 0;
	/* no grace period, or one of 0 */
	return !json_object_object_get_ex(om, "deletionGracePeriodSeconds", &grace) ||
	       !json_object_is_type(grace, json_type_int) || json_object_get_int64(grace) == 0;
}

int mock__store_being_deleted(const char *json, size_t len)
{
	const char *v = NULL;
	size_t vlen = 0;
	return nl_json_text_member(&v, &vlen, json, len, "metadata.deletionTimestamp") == 0 &&
	       v[0] == '"';
}

/* markAsDeleting on the tree: 1 when it changed anything. */
static int mark(json_object *meta, int64_t now, int *changed)
{
	char ts[NL_TIME_BUFSZ];
	json_object *v = NULL;
	int64_t when = 0;
	*changed = 0;
	if (json_object_object_get_ex(meta, "deletionTimestamp", &v) &&
	    json_object_is_type(v, json_type_string) &&
	    nl_time_parse(&when, json_object_get_string(v)) == 0 && when > now) {
		/* a graceful deletion's timestamp lies ahead: now it is now */
		nl_time_format(ts, now);
		if (mock__store_set_string(meta, "deletionTimestamp", ts) != 0)
			return NL_ENOMEM;
		*changed = 1;
	} else if (!json_object_object_get_ex(meta, "deletionTimestamp", &v) ||
	           !json_object_is_type(v, json_type_string)) {
		json_object *gen = NULL;
		if (json_object_object_get_ex(meta, "generation", &gen) &&
		    json_object_get_int64(gen) > 0 &&
		    json_object_object_add(meta, "generation",
		                           json_object_new_int64(json_object_get_int64(gen) + 1)))
			return NL_ENOMEM;
		nl_time_format(ts, now);
		if (mock__store_set_string(meta, "deletionTimestamp", ts) != 0)
			return NL_ENOMEM;
		*changed = 1;
	}
	/* An earlier timestamp than now is kept. */
	if (!json_object_object_get_ex(meta, "deletionGracePeriodSeconds", &v) ||
	    !json_object_is_type(v, json_type_int) || json_object_get_int64(v) != 0) {
		if (json_object_object_add(meta, "deletionGracePeriodSeconds",
		                           json_object_new_int64(0)) != 0)
			return NL_ENOMEM;
		*changed = 1;
	}
	return 0;
}

#define POLICY_FLAGS (MOCK_DELETE_F_ORPHAN | MOCK_DELETE_F_FOREGROUND | MOCK_DELETE_F_BACKGROUND)

static int is_finalizer(json_object *f, const char *name)
{
	return json_object_is_type(f, json_type_string) &&
	       strcmp(json_object_get_string(f), name) == 0;
}

static int has_finalizer(json_object *fins, const char *name)
{
	for (size_t i = 0;
	     json_object_is_type(fins, json_type_array) && i < json_object_array_length(fins); i++)
		if (is_finalizer(json_object_array_get_idx(fins, i), name))
			return 1;
	return 0;
}

/* Whether the object should carry name after the DELETE: the policy named
 * decides (want), else the finalizer it has (shouldOrphanDependents,
 * shouldDeleteDependents; none of the kinds orphans by default). */
static int wanted(unsigned flags, unsigned want, json_object *fins, const char *name)
{
	return flags & POLICY_FLAGS ? (flags & want) != 0 : has_finalizer(fins, name);
}

int mock__store_gc_finalizers(json_object *meta, unsigned flags, int *changed)
{
	json_object *fins = NULL;
	*changed = 0;
	json_object_object_get_ex(meta, "finalizers", &fins);
	int orphan = wanted(flags, MOCK_DELETE_F_ORPHAN, fins, "orphan");
	int fg = wanted(flags, MOCK_DELETE_F_FOREGROUND, fins, "foregroundDeletion");
	if (orphan == has_finalizer(fins, "orphan") &&
	    fg == has_finalizer(fins, "foregroundDeletion"))
		return 0;
	/* both removed, then added back as needed, after the others */
	json_object *next = json_object_new_array();
	if (!next)
		return NL_ENOMEM;
	for (size_t i = 0;
	     json_object_is_type(fins, json_type_array) && i < json_object_array_length(fins);
	     i++) {
		json_object *f = json_object_array_get_idx(fins, i);
		if (!is_finalizer(f, "orphan") && !is_finalizer(f, "foregroundDeletion"))
			json_object_array_add(next, json_object_get(f));
	}
	if (orphan)
		json_object_array_add(next, json_object_new_string("orphan"));
	if (fg)
		json_object_array_add(next, json_object_new_string("foregroundDeletion"));
	*changed = 1;
	if (json_object_array_length(next) == 0) {
		json_object_put(next);
		json_object_object_del(meta, "finalizers");
		return 0;
	}
	return json_object_object_add(meta, "finalizers", next) ? NL_ENOMEM : 0;
}

/* Store o (parsed from the entry at pos, already changed) as the entry's
 * next version at rv, unless a dry run; *out gets its JSON. Takes o. */
static int store_replace(mock_store *s, table *t, size_t pos, json_object *o, uint64_t rv,
                         unsigned flags, char **out, size_t *len_out)
{
	char rvs[RV_BUFSZ];
	json_object *m = mock__store_meta_of(o);
	int rc = m ? 0 : NL_ENOMEM;
	mock__store_rv_string(rvs, rv);
	if (rc == 0 && mock__store_set_string(m, "resourceVersion", rvs) != 0)
		rc = NL_ENOMEM;
	if (rc != 0) {
		json_object_put(o);
		return rc;
	}
	return mock__store_replace_at(s, t, pos, o, rv, (flags & MOCK_WRITE_F_DRY_RUN) != 0, out,
	                              len_out);
}

int mock__store_replace_at(mock_store *s, table *t, size_t pos, json_object *o, uint64_t rv,
                           int dry, char **out, size_t *len_out)
{
	obj_entry *e = t->v[pos], *ne = NULL;
	int rc = mock__store_entry_new(&ne, t->r, e->key, o, rv, e->uid);
	json_object_put(o);
	if (rc == 0)
		rc = mock__store_dup_bytes(out, len_out, ne->json, ne->len);
	if (rc != 0 || dry) {
		mock__store_entry_free(ne);
		return rc;
	}
	if (mock__store_persist(s, t->r, MOCK_STORE_MODIFIED, e->key, ne->json, ne->len, rv) != 0) {
		mock__store_entry_free(ne);
		free(*out);
		*out = NULL;
		return NL_EIO;
	}
	t->v[pos] = ne;
	s->rv = rv;
	mock__store_notify(s, t->r, MOCK_STORE_MODIFIED, ne->json, ne->len, e, rv);
	mock__store_entry_free(e);
	return 0;
}

int mock__store_mark_deleting(mock_store *s, table *t, size_t pos, unsigned flags, char **out,
                              size_t *len_out, int *deleted)
{
	obj_entry *e = t->v[pos];
	int changed = 0, fchanged = 0;
	json_object *o = json_tokener_parse(e->json);
	json_object *m = o ? mock__store_meta_of(o) : NULL;
	*deleted = 0;
	if (!m) {
		json_object_put(o);
		return NL_ENOMEM;
	}
	int rc = mock__store_gc_finalizers(m, flags, &fchanged);
	if (rc == 0 && list_len(m, "finalizers") == 0) {
		/* a Background DELETE took the last ones: errDeleteNow */
		json_object_put(o);
		*deleted = 1;
		return 1;
	}
	if (rc == 0)
		rc = mark(m, s->now(s->now_payload), &changed);
	changed |= fchanged;
	uint64_t rv = changed && !(flags & MOCK_WRITE_F_DRY_RUN) ? s->rv + 1 : e->rv;
	if (rc == 0 && !changed) {
		/* etcd3's GuaranteedUpdate writes nothing for a no-op */
		json_object_put(o);
		return mock__store_dup_bytes(out, len_out, e->json, e->len);
	}
	if (rc != 0) {
		json_object_put(o);
		return rc;
	}
	return store_replace(s, t, pos, o, rv, flags, out, len_out);
}

/* ------------------------------------------------------ graceful deletion */

#define USEC 1000000LL

static int set_grace(json_object *meta, int64_t when, int64_t period)
{
	char ts[NL_TIME_BUFSZ];
	nl_time_format(ts, when);
	if (mock__store_set_string(meta, "deletionTimestamp", ts) != 0 ||
	    json_object_object_add(meta, "deletionGracePeriodSeconds",
	                           json_object_new_int64(period)) != 0)
		return NL_ENOMEM;
	return 0;
}

/* rest.BeforeDelete for an object already being deleted gracefully: a
 * shorter grace period moves deletionTimestamp back (never before now),
 * anything else leaves it pending. 1: go on and delete; 0: kept. */
static int graceful_again(mock_store *s, table *t, size_t pos, json_object *o, json_object *m,
                          unsigned flags, const int64_t *requested, char **out, size_t *len_out)
{
	obj_entry *e = t->v[pos];
	json_object *g = NULL;
	int64_t have, when = 0, now = s->now(s->now_payload);
	json_object_object_get_ex(m, "deletionGracePeriodSeconds", &g);
	have = json_object_is_type(g, json_type_int) ? json_object_get_int64(g) : 0;
	if (have == 0) {
		json_object_put(o);
		return 1; /* marked without a grace period: delete now */
	}
	int64_t period = requested ? (*requested < 0 ? 1 : *requested) : have;
	if (period >= have) {
		json_object_put(o);
		return mock__store_dup_bytes(out, len_out, e->json, e->len);
	}
	if (period == 0) {
		json_object_put(o);
		return 1;
	}
	nl_time_parse(&when, nl_json_get_string(m, "deletionTimestamp"));
	when += (period - have) * USEC;
	if (when < now) {
		when = now;
		period = 1;
	}
	if (set_grace(m, when, period) != 0) {
		json_object_put(o);
		return NL_ENOMEM;
	}
	return store_replace(s, t, pos, o, flags & MOCK_WRITE_F_DRY_RUN ? e->rv : s->rv + 1, flags,
	                     out, len_out);
}

int mock__store_graceful_delete(mock_store *s, table *t, size_t pos, unsigned flags,
                                const int64_t *requested, char **out, size_t *len_out)
{
	obj_entry *e = t->v[pos];
	json_object *o = json_tokener_parse(e->json);
	json_object *m = o ? mock__store_meta_of(o) : NULL;
	int fchanged = 0;
	if (!m) {
		json_object_put(o);
		return NL_ENOMEM;
	}
	if (nl_json_get_string(o, "metadata.deletionTimestamp"))
		return graceful_again(s, t, pos, o, m, flags, requested, out, len_out);
	int64_t period = t->r->grace_period(o, requested);
	if (period <= 0) {
		json_object_put(o);
		return 1;
	}
	json_object *gen = NULL;
	if (json_object_object_get_ex(m, "generation", &gen) && json_object_get_int64(gen) > 0)
		json_object_object_add(m, "generation",
		                       json_object_new_int64(json_object_get_int64(gen) + 1));
	if (mock__store_gc_finalizers(m, flags, &fchanged) != 0 ||
	    set_grace(m, s->now(s->now_payload) + period * USEC, period) != 0) {
		json_object_put(o);
		return NL_ENOMEM;
	}
	return store_replace(s, t, pos, o, flags & MOCK_WRITE_F_DRY_RUN ? e->rv : s->rv + 1, flags,
	                     out, len_out);
}
