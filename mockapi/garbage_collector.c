/* Garbage collection by ownerReferences, as kube-controller-manager's
 * garbage collector decides it (attemptToDeleteItem, v1.32): an owner is
 * "solid" when an object of its kind, name and uid exists (in the
 * dependent's namespace for namespaced owners), "dangling" otherwise.
 * A dependent without solid owners is deleted; one with solid and dangling
 * owners loses the dangling references. The store deletes at once (no
 * finalizers here), so background and foreground propagation look the
 * same; Orphan removes the references before the owner goes.
 *
 * Cost: one scan of every object's bytes for "ownerReferences" per
 * collection, then a lookup per reference of the few objects that have
 * them. The controller thread collects only after the store changed. */
#include <nodelet/meta.h>
#include <stdlib.h>
#include <string.h>

#include "controllers.h"
#include "log.h"

#define MAX_ROUNDS 16

typedef struct {
	const mock_resource *r;
	json_object *objs; /* array of parsed objects */
	const char *needle;
} scan;

static int scan_one(const char *json, size_t len, void *payload)
{
	scan *sc = payload;
	if (!memmem(json, len, sc->needle, strlen(sc->needle)))
		return 0;
	json_object *o = json_tokener_parse(json);
	if (!o)
		return NL_ENOMEM;
	json_object_array_add(sc->objs, o);
	return 0;
}

/* Every object of r whose JSON contains needle, parsed. */
static int find_objects(json_object **out, mock_store *s, const mock_resource *r,
                        const char *needle)
{
	uint64_t rv = 0;
	scan sc = {r, json_object_new_array(), needle};
	if (!sc.objs)
		return NL_ENOMEM;
	int rc = mock_store_visit(s, r, NULL, scan_one, &sc, &rv, NULL);
	if (rc != 0) {
		json_object_put(sc.objs);
		return rc;
	}
	*out = sc.objs;
	return 0;
}

static json_object *owner_refs(json_object *obj)
{
	json_object *refs = nl_json_get_path(obj, "metadata");
	if (!refs || !json_object_object_get_ex(refs, "ownerReferences", &refs) ||
	    !json_object_is_type(refs, json_type_array))
		return NULL;
	return refs;
}

typedef enum { OWNER_SOLID, OWNER_DANGLING, OWNER_UNKNOWN } owner_state;

static owner_state owner_of(mock_store *s, json_object *dependent, json_object *ref)
{
	const char *kind = nl_json_get_string(ref, "kind");
	const char *api_version = nl_json_get_string(ref, "apiVersion");
	const char *name = nl_json_get_string(ref, "name");
	const char *uid = nl_json_get_string(ref, "uid");
	const mock_resource *r = mock_resource_by_kind(api_version, kind);
	if (!r || !name || !uid)
		return OWNER_UNKNOWN;
	const char *ns = nl_meta_namespace(dependent);
	/* A cluster-scoped dependent cannot have a namespaced owner. */
	if (r->namespaced && !(ns && *ns))
		return OWNER_DANGLING;
	char have[64];
	if (mock_store_uid(s, r, r->namespaced ? ns : NULL, name, have, sizeof(have)) != 0)
		return OWNER_DANGLING;
	return strcmp(have, uid) == 0 ? OWNER_SOLID : OWNER_DANGLING;
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

static int attempt_to_delete(mock_store *s, const mock_resource *r, json_object *obj)
{
	json_object *refs = owner_refs(obj);
	size_t solid = 0, dangling = 0;
	for (size_t i = 0; i < json_object_array_length(refs); i++) {
		owner_state st = owner_of(s, obj, json_object_array_get_idx(refs, i));
		solid += st != OWNER_DANGLING;
		dangling += st == OWNER_DANGLING;
	}
	if (dangling == 0)
		return 0;
	if (solid > 0)
		return rewrite_refs(s, r, obj, keep_solid, NULL) == 0;
	nl_status *st = NULL;
	const char *name = nl_meta_name(obj);
	/* The uid precondition spares an object re-created meanwhile. */
	int rc = mock_store_delete(s, r, nl_meta_namespace(obj), name ? name : "", nl_meta_uid(obj),
	                           NULL, NULL, NULL, &st);
	nl_status_free(st);
	if (rc == 0)
		MOCK_LOG_V(1, "garbagecollector: deleted %s %s/%s: its owners are gone", r->kind,
		           nl_meta_namespace(obj) ? nl_meta_namespace(obj) : "", name ? name : "");
	return rc == 0;
}

static int collect_once(mock_store *s)
{
	int changed = 0;
	for (int k = 0; k < MOCK_KIND_COUNT; k++) {
		const mock_resource *r = mock_resource_get((mock_kind)k);
		json_object *objs = NULL;
		int rc = find_objects(&objs, s, r, "\"ownerReferences\"");
		if (rc != 0)
			return rc;
		for (size_t i = 0; i < json_object_array_length(objs); i++)
			changed += attempt_to_delete(s, r, json_object_array_get_idx(objs, i));
		json_object_put(objs);
	}
	return changed;
}

int mock_gc_collect(mock_store *s)
{
	int total = 0;
	/* A deletion can leave the next level without owners. */
	for (int round = 0; round < MAX_ROUNDS; round++) {
		int n = collect_once(s);
		if (n < 0)
			return n;
		if (n == 0)
			break;
		total += n;
	}
	return total;
}

static int keep_other_owners(mock_store *s, json_object *obj, json_object *ref, const void *arg)
{
	const char *uid = nl_json_get_string(ref, "uid");
	(void)s, (void)obj;
	return !uid || strcmp(uid, arg) != 0;
}

/* One sweep; *conflicts counts dependents changed meanwhile (retry). */
static int orphan_once(mock_store *s, const char *owner_uid, int *conflicts)
{
	int changed = 0;
	for (int k = 0; k < MOCK_KIND_COUNT; k++) {
		const mock_resource *r = mock_resource_get((mock_kind)k);
		json_object *objs = NULL;
		int rc = find_objects(&objs, s, r, owner_uid);
		if (rc != 0)
			return rc;
		for (size_t i = 0; i < json_object_array_length(objs); i++) {
			json_object *o = json_object_array_get_idx(objs, i);
			json_object *refs = owner_refs(o);
			int refers = 0;
			for (size_t j = 0; refs && j < json_object_array_length(refs); j++)
				refers |= !keep_other_owners(
				    s, o, json_object_array_get_idx(refs, j), owner_uid);
			if (!refers)
				continue;
			rc = rewrite_refs(s, r, o, keep_other_owners, owner_uid);
			changed += rc == 0;
			*conflicts += rc == NL_ECONFLICT;
		}
		json_object_put(objs);
	}
	return changed;
}

int mock_gc_orphan(mock_store *s, const char *owner_uid)
{
	int total = 0, conflicts = 1;
	if (!owner_uid || !*owner_uid)
		return 0;
	/* A dependent written meanwhile (409) is read again. */
	for (int attempt = 0; attempt < 3 && conflicts; attempt++) {
		conflicts = 0;
		int n = orphan_once(s, owner_uid, &conflicts);
		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

int mock_gc_wants_orphan(json_object *opts)
{
	json_object *v = NULL;
	if (!opts || !json_object_is_type(opts, json_type_object))
		return 0;
	if (json_object_object_get_ex(opts, "propagationPolicy", &v) &&
	    json_object_is_type(v, json_type_string))
		return strcmp(json_object_get_string(v), "Orphan") == 0;
	return json_object_object_get_ex(opts, "orphanDependents", &v) &&
	       json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}
