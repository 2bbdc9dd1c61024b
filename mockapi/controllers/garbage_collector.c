/* Garbage collection by ownerReferences, as kube-controller-manager's
 * garbage collector decides it (attemptToDeleteItem, v1.32): an owner is
 * "solid" when an object of its kind, name and uid exists (in the
 * dependent's namespace for namespaced owners), "dangling" otherwise.
 * A dependent without solid owners is deleted; one with solid and dangling
 * owners loses the dangling references. Owners being deleted with the
 * orphan or foregroundDeletion finalizer are finished first in each round
 * (gc_finalizers.c).
 *
 * Cost: the collector (mock_gc) remembers each object with ownerReferences
 * by key, with the references' text, and where it left each kind in the
 * store. A pass walks the resourceVersions of each kind (integers, under the
 * read lock) and reads the text of what changed since: an object whose
 * references are as before needs no look, since an owner goes away only by
 * a deletion. After deletions of a kind it looks at the dependents that
 * name an owner of that kind. Only dependents with a dangling owner are
 * parsed whole. Every node Lease has an owner and is renewed every 10 s:
 * the full scan this replaced parsed all of them on each pass. */
#include <json-c/linkhash.h>
#include <nodelet/json_text.h>
#include <nodelet/meta.h>
#include <stdlib.h>
#include <string.h>

#include "controllers.h"
#include "core/log.h"

#define MAX_ROUNDS 16

static json_object *owner_refs(json_object *obj)
{
	json_object *refs = nl_json_get_path(obj, "metadata");
	if (!refs || !json_object_object_get_ex(refs, "ownerReferences", &refs) ||
	    !json_object_is_type(refs, json_type_array))
		return NULL;
	return refs;
}

typedef enum { OWNER_SOLID, OWNER_DANGLING, OWNER_UNKNOWN } owner_state;

/* The served kind a reference names, or NULL (an owner the mock does not
 * serve, or an incomplete reference: never dangling). */
static const mock_resource *ref_kind(json_object *ref)
{
	const char *kind = nl_json_get_string(ref, "kind");
	const char *api_version = nl_json_get_string(ref, "apiVersion");
	const mock_resource *r = mock_resource_by_kind(api_version, kind);
	if (!r || !nl_json_get_string(ref, "name") || !nl_json_get_string(ref, "uid"))
		return NULL;
	return r;
}

/* ns: the dependent's namespace (NULL or "" when cluster-scoped). */
static owner_state owner_in(mock_store *s, const char *ns, json_object *ref)
{
	const mock_resource *r = ref_kind(ref);
	if (!r)
		return OWNER_UNKNOWN;
	const char *name = nl_json_get_string(ref, "name");
	const char *uid = nl_json_get_string(ref, "uid");
	/* A cluster-scoped dependent cannot have a namespaced owner. */
	if (r->namespaced && !(ns && *ns))
		return OWNER_DANGLING;
	char have[64];
	if (mock_store_uid(s, r, r->namespaced ? ns : NULL, name, have, sizeof(have)) != 0)
		return OWNER_DANGLING;
	return strcmp(have, uid) == 0 ? OWNER_SOLID : OWNER_DANGLING;
}

static owner_state owner_of(mock_store *s, json_object *dependent, json_object *ref)
{
	return owner_in(s, nl_meta_namespace(dependent), ref);
}

/* Write obj back with only the references keep() accepts. */
static int rewrite_refs(mock_store *s, const mock_resource *r, json_object *obj,
                        int (*keep)(mock_store *, json_object *, json_object *, const void *),
                        const void *arg)
{
	json_object *refs = owner_refs(obj);
	json_object *kept = json_object_new_array();
	if (!kept)
		return NL_ENOMEM;
	for (size_t i = 0; i < json_object_array_length(refs); i++) {
		json_object *ref = json_object_array_get_idx(refs, i);
		if (keep(s, obj, ref, arg))
			json_object_array_add(kept, json_object_get(ref));
	}
	json_object *meta = nl_json_get_path(obj, "metadata");
	if (json_object_array_length(kept) == 0) {
		json_object_put(kept);
		json_object_object_del(meta, "ownerReferences");
	} else {
		json_object_object_add(meta, "ownerReferences", kept);
	}
	nl_status *st = NULL;
	int rc = mock_store_write(s, r, MOCK_WRITE_UPDATE, obj, NULL, NULL, NULL, NULL, NULL, &st);
	nl_status_free(st);
	return rc;
}

static int keep_solid(mock_store *s, json_object *obj, json_object *ref, const void *arg)
{
	(void)arg;
	return owner_of(s, obj, ref) != OWNER_DANGLING;
}

/* 1 when obj was deleted or rewritten, 0 when it keeps its owners, or
 * the failure of the write (a later pass tries again). */
static int attempt_to_delete(mock_store *s, const mock_resource *r, json_object *obj)
{
	json_object *refs = owner_refs(obj);
	size_t solid = 0, dangling = 0;
	for (size_t i = 0; i < json_object_array_length(refs); i++) {
		owner_state st = owner_of(s, obj, json_object_array_get_idx(refs, i));
		solid += st != OWNER_DANGLING;
		dangling += st == OWNER_DANGLING;
	}
	/* attemptToDeleteItem leaves an object being deleted to its
	 * finalizers. */
	if (dangling == 0 || nl_json_get_string(obj, "metadata.deletionTimestamp"))
		return 0;
	if (solid > 0) {
		int rc = rewrite_refs(s, r, obj, keep_solid, NULL);
		return rc == 0 ? 1 : rc;
	}
	nl_status *st = NULL;
	const char *name = nl_meta_name(obj);
	/* The uid precondition spares an object re-created meanwhile. */
	int rc = mock_store_delete(s, r, nl_meta_namespace(obj), name ? name : "", nl_meta_uid(obj),
	                           NULL, NULL, NULL, &st);
	nl_status_free(st);
	if (rc == 0)
		MOCK_LOG_V(1, "Garbage collector deleted an object whose owners are gone",
		           NL_KV_STR("kind", r->kind),
		           NL_KV_REF("object", nl_meta_namespace(obj), name));
	return rc == 0 ? 1 : rc;
}

/* ------------------------------------------------------------------------
 * The collector's memory */

typedef struct {
	char *refs;         /* metadata.ownerReferences as stored, NUL-terminated */
	size_t len;         /* of refs */
	unsigned kinds;     /* bit per served kind its owners are of; ~0 until read */
	int check;          /* look at it in this pass */
	unsigned long seen; /* walk that last saw it (pruning) */
	char key[];         /* "ns/name" or "name" */
} dependent;

struct mock_gc {
	mock_store *s;
	struct lh_table *deps[MOCK_KIND_COUNT]; /* key -> dependent */
	mock_store_mark mark[MOCK_KIND_COUNT];
	int primed; /* mark holds where the last pass left each kind */
	unsigned long walk;
};

static void dependent_free(struct lh_entry *e)
{
	dependent *d = lh_entry_v(e);
	free(d->refs);
	free(d);
}

int mock_gc_new(mock_gc **out, mock_store *s)
{
	mock_gc *g = calloc(1, sizeof(*g));
	if (!g)
		return NL_ENOMEM;
	g->s = s;
	for (int k = 0; k < MOCK_KIND_COUNT; k++)
		if (!(g->deps[k] = lh_kchar_table_new(64, dependent_free))) {
			mock_gc_free(g);
			return NL_ENOMEM;
		}
	*out = g;
	return 0;
}

void mock_gc_free(mock_gc *g)
{
	if (!g)
		return;
	for (int k = 0; k < MOCK_KIND_COUNT; k++)
		if (g->deps[k])
			lh_table_free(g->deps[k]);
	free(g);
}

void mock_gc_reset(mock_gc *g)
{
	for (int k = 0; k < MOCK_KIND_COUNT; k++) {
		struct lh_entry *e, *tmp;
		for (e = lh_table_head(g->deps[k]); e; e = tmp) {
			tmp = lh_entry_next(e);
			lh_table_delete_entry(g->deps[k], e);
		}
	}
	g->primed = 0;
}

typedef struct {
	mock_gc *g;
	struct lh_table *t;
	int rc;
} refresh_ctx;

/* Under the store's read lock: remember key's references; mark it for a
 * look when they are new or differ. */
static int refresh_one(const char *key, uint64_t rv, const char *json, size_t len, void *payload)
{
	refresh_ctx *c = payload;
	const char *refs = NULL;
	size_t rlen = 0;
	void *found = NULL;
	(void)rv;
	int has = nl_json_text_member(&refs, &rlen, json, len, "metadata.ownerReferences") == 0;
	dependent *d = lh_table_lookup_ex(c->t, key, &found) ? found : NULL;
	if (!has) {
		if (d)
			lh_table_delete(c->t, key);
		return 0;
	}
	if (d) {
		d->seen = c->g->walk;
		if (d->len == rlen && memcmp(d->refs, refs, rlen) == 0)
			return 0;
	}
	char *copy = malloc(rlen + 1);
	if (!copy)
		return c->rc = NL_ENOMEM;
	memcpy(copy, refs, rlen);
	copy[rlen] = '\0';
	if (!d) {
		size_t klen = strlen(key);
		if (!(d = calloc(1, sizeof(*d) + klen + 1))) {
			free(copy);
			return c->rc = NL_ENOMEM;
		}
		memcpy(d->key, key, klen + 1);
		d->seen = c->g->walk;
		if (lh_table_insert(c->t, d->key, d) != 0) {
			free(copy);
			free(d);
			return c->rc = NL_ENOMEM;
		}
	}
	free(d->refs);
	d->refs = copy;
	d->len = rlen;
	d->kinds = ~0u;
	d->check = 1;
	return 0;
}

/* Bring kind k's dependents up to date with the store; *removed when
 * objects of k went away since the last pass (then forgotten here too). */
static int refresh_kind(mock_gc *g, int k, int *removed)
{
	const mock_resource *r = mock_resource_get((mock_kind)k);
	refresh_ctx c = {g, g->deps[k], 0};
	mock_store_mark m;
	g->walk++;
	int rc =
	    mock_store_visit_since(g->s, r, g->primed ? g->mark[k].rv : 0, refresh_one, &c, &m);
	if (rc == 0 && g->primed && m.removed != g->mark[k].removed) {
		/* Which ones went: walk everything (text compares only). */
		g->walk++;
		rc = mock_store_visit_since(g->s, r, 0, refresh_one, &c, &m);
		struct lh_entry *e, *tmp;
		for (e = lh_table_head(c.t); e; e = tmp) {
			tmp = lh_entry_next(e);
			if (rc == 0 && ((dependent *)lh_entry_v(e))->seen != g->walk)
				lh_table_delete_entry(c.t, e);
		}
		*removed = 1;
	}
	if (rc == 0)
		rc = c.rc;
	if (rc == 0)
		g->mark[k] = m;
	return rc;
}

/* The namespace part of a dependent's key (caller frees), "" for
 * cluster-scoped kinds; NULL when out of memory. */
static char *key_namespace(const mock_resource *r, const char *key)
{
	const char *slash = r->namespaced ? strchr(key, '/') : NULL;
	return strndup(key, slash ? (size_t)(slash - key) : 0);
}

/* Whether any owner of d is dangling; sets d->kinds. NL_ENOMEM. */
static int has_dangling(mock_gc *g, const mock_resource *r, dependent *d, int *dangling)
{
	char *ns = key_namespace(r, d->key);
	json_object *refs = ns ? json_tokener_parse(d->refs) : NULL;
	if (!ns || (!refs && strcmp(d->refs, "null") != 0)) {
		free(ns);
		return NL_ENOMEM;
	}
	unsigned kinds = 0;
	*dangling = 0;
	for (size_t i = 0;
	     json_object_is_type(refs, json_type_array) && i < json_object_array_length(refs);
	     i++) {
		json_object *ref = json_object_array_get_idx(refs, i);
		const mock_resource *owner = ref_kind(ref);
		if (owner)
			kinds |= 1u << owner->id;
		if (!*dangling && owner_in(g->s, ns, ref) == OWNER_DANGLING)
			*dangling = 1;
	}
	json_object_put(refs);
	free(ns);
	d->kinds = kinds;
	return 0;
}

/* Look at d: 1 when it was deleted or rewritten, 0 when nothing was due,
 * or a failure (it stays marked). */
static int check_dependent(mock_gc *g, const mock_resource *r, dependent *d)
{
	int dangling = 0;
	int rc = has_dangling(g, r, d, &dangling);
	if (rc != 0 || !dangling)
		return rc;
	const char *slash = r->namespaced ? strchr(d->key, '/') : NULL;
	char *ns = key_namespace(r, d->key);
	json_object *obj = NULL;
	if (!ns)
		return NL_ENOMEM;
	rc = mock_store_get_object(g->s, r, ns, slash ? slash + 1 : d->key, &obj);
	free(ns);
	if (rc == NL_ENOTFOUND)
		return 0; /* gone meanwhile: the next refresh forgets it */
	if (rc != 0)
		return rc;
	rc = attempt_to_delete(g->s, r, obj);
	json_object_put(obj);
	return rc;
}

/* One round: refresh, then look at what is marked. The number of objects
 * deleted or rewritten, or a negative code. */
static int gc_round(mock_gc *g)
{
	unsigned removed_kinds = 0;
	int changed = mock_gc_finish_owners(g->s);
	if (changed < 0)
		return changed;
	for (int k = 0; k < MOCK_KIND_COUNT; k++) {
		int removed = 0;
		int rc = refresh_kind(g, k, &removed);
		if (rc != 0)
			return rc;
		removed_kinds |= removed ? 1u << k : 0;
	}
	g->primed = 1;
	for (int k = 0; k < MOCK_KIND_COUNT; k++) {
		const mock_resource *r = mock_resource_get((mock_kind)k);
		struct lh_entry *e, *tmp;
		for (e = lh_table_head(g->deps[k]); e; e = tmp) {
			tmp = lh_entry_next(e);
			dependent *d = lh_entry_v(e);
			if (d->kinds & removed_kinds)
				d->check = 1;
			if (!d->check)
				continue;
			int rc = check_dependent(g, r, d);
			if (rc == NL_ENOMEM)
				return rc;
			d->check = rc < 0; /* a failed write is tried again */
			changed += rc > 0;
		}
	}
	return changed;
}

int mock_gc_run(mock_gc *g)
{
	int total = 0;
	/* A deletion can leave the next level without owners. */
	for (int round = 0; round < MAX_ROUNDS; round++) {
		int n = gc_round(g);
		if (n < 0)
			return n;
		if (n == 0)
			break;
		total += n;
	}
	return total;
}

int mock_gc_collect(mock_store *s)
{
	mock_gc *g = NULL;
	int rc = mock_gc_new(&g, s);
	if (rc == 0)
		rc = mock_gc_run(g);
	mock_gc_free(g);
	return rc;
}
