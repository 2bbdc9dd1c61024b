/* The garbage collector's two finalizers (controllers.h), as
 * kube-controller-manager's collector handles them (v1.32): an owner being
 * deleted with "orphan" first loses its place in its dependents'
 * ownerReferences (orphanDependents), one with "foregroundDeletion" first
 * has its dependents deleted and waits until none of those whose reference
 * says blockOwnerDeletion is left (processDeletingDependentsItem); then the
 * finalizer is removed, and the store deletes the owner when it was the
 * last one. A pass finds such owners by their text ("deletionTimestamp"
 * and the finalizer's name), so only objects being deleted are parsed. */
#include <nodelet/meta.h>
#include <stdlib.h>
#include <string.h>

#include "controllers.h"
#include "core/log.h"

typedef struct {
	json_object *objs; /* array of parsed objects */
	const char *needle, *needle2;
} gather;

static int gather_one(const char *json, size_t len, void *payload)
{
	gather *g = payload;
	if (!memmem(json, len, g->needle, strlen(g->needle)) ||
	    (g->needle2 && !memmem(json, len, g->needle2, strlen(g->needle2))))
		return 0;
	json_object *o = json_tokener_parse(json);
	if (!o)
		return NL_ENOMEM;
	json_object_array_add(g->objs, o);
	return 0;
}

/* Every object of r whose text has needle (and needle2 when not NULL). */
static json_object *objects_with(mock_store *s, const mock_resource *r, const char *needle,
                                 const char *needle2)
{
	uint64_t rv = 0;
	gather g = {json_object_new_array(), needle, needle2};
	if (g.objs && mock_store_visit(s, r, NULL, gather_one, &g, &rv, NULL) != 0) {
		json_object_put(g.objs);
		return NULL;
	}
	return g.objs;
}

static int has_finalizer(json_object *obj, const char *name)
{
	json_object *fins = nl_json_get_path(obj, "metadata.finalizers");
	for (size_t i = 0;
	     json_object_is_type(fins, json_type_array) && i < json_object_array_length(fins);
	     i++) {
		const char *f = json_object_get_string(json_object_array_get_idx(fins, i));
		if (f && strcmp(f, name) == 0)
			return 1;
	}
	return 0;
}

/* Write owner back without the finalizer name (a 409 leaves it for the
 * next pass); the store deletes it when that was the last one. */
static int remove_finalizer(mock_store *s, const mock_resource *r, json_object *owner,
                            const char *name)
{
	json_object *meta = nl_json_get_path(owner, "metadata");
	json_object *fins = nl_json_get_path(owner, "metadata.finalizers");
	json_object *kept = json_object_new_array();
	if (!kept)
		return NL_ENOMEM;
	for (size_t i = 0; i < json_object_array_length(fins); i++) {
		json_object *f = json_object_array_get_idx(fins, i);
		if (strcmp(json_object_get_string(f), name) != 0)
			json_object_array_add(kept, json_object_get(f));
	}
	json_object_object_add(meta, "finalizers", kept);
	nl_status *st = NULL;
	int rc =
	    mock_store_write(s, r, MOCK_WRITE_UPDATE, owner, NULL, NULL, NULL, NULL, NULL, &st);
	nl_status_free(st);
	if (rc == 0)
		MOCK_LOG_V(1, "Garbage collector removed a finalizer", NL_KV_STR("finalizer", name),
		           NL_KV_STR("kind", r->kind),
		           NL_KV_REF("object", nl_meta_namespace(owner), nl_meta_name(owner)));
	return rc;
}

/* The reference dep holds to uid, or NULL. */
static json_object *ref_to(json_object *dep, const char *uid)
{
	json_object *refs = nl_json_get_path(dep, "metadata.ownerReferences");
	for (size_t i = 0;
	     json_object_is_type(refs, json_type_array) && i < json_object_array_length(refs);
	     i++) {
		json_object *ref = json_object_array_get_idx(refs, i);
		const char *u = nl_json_get_string(ref, "uid");
		if (u && strcmp(u, uid) == 0)
			return ref;
	}
	return NULL;
}

/* Delete the dependents of the owner with uid (background; one being
 * deleted already is left to its finalizers). *blocking counts those still
 * there whose reference blocks the owner's deletion. */
static int delete_dependents(mock_store *s, const char *uid, const char *owner_ns, int *blocking)
{
	int changed = 0;
	*blocking = 0;
	for (int k = 0; k < MOCK_KIND_COUNT; k++) {
		const mock_resource *r = mock_resource_get((mock_kind)k);
		json_object *deps = objects_with(s, r, uid, NULL);
		if (!deps)
			return NL_ENOMEM;
		for (size_t i = 0; i < json_object_array_length(deps); i++) {
			json_object *d = json_object_array_get_idx(deps, i);
			json_object *ref = ref_to(d, uid);
			const char *ns = nl_meta_namespace(d);
			/* a namespaced owner owns only in its namespace */
			if (!ref || (owner_ns && *owner_ns && (!ns || strcmp(ns, owner_ns) != 0)))
				continue;
			int deleted = 0;
			if (!nl_json_get_string(d, "metadata.deletionTimestamp")) {
				nl_status *st = NULL;
				const char *name = nl_meta_name(d);
				if (mock_store_delete_ex(s, r, ns, name ? name : "", 0,
				                         nl_meta_uid(d), NULL, NULL, NULL, &deleted,
				                         &st) == 0)
					changed++;
				nl_status_free(st);
			}
			json_object *b = NULL;
			if (!deleted && json_object_object_get_ex(ref, "blockOwnerDeletion", &b) &&
			    json_object_get_boolean(b))
				(*blocking)++;
		}
		json_object_put(deps);
	}
	return changed;
}

/* dep written back without its references to uid. */
static int drop_refs_to(mock_store *s, const mock_resource *r, json_object *dep, const char *uid)
{
	json_object *meta = nl_json_get_path(dep, "metadata");
	json_object *refs = nl_json_get_path(dep, "metadata.ownerReferences");
	json_object *kept = json_object_new_array();
	if (!kept)
		return NL_ENOMEM;
	for (size_t i = 0; i < json_object_array_length(refs); i++) {
		json_object *ref = json_object_array_get_idx(refs, i);
		const char *u = nl_json_get_string(ref, "uid");
		if (!u || strcmp(u, uid) != 0)
			json_object_array_add(kept, json_object_get(ref));
	}
	if (json_object_array_length(kept) == 0) {
		json_object_put(kept);
		json_object_object_del(meta, "ownerReferences");
	} else {
		json_object_object_add(meta, "ownerReferences", kept);
	}
	nl_status *st = NULL;
	int rc = mock_store_write(s, r, MOCK_WRITE_UPDATE, dep, NULL, NULL, NULL, NULL, NULL, &st);
	nl_status_free(st);
	return rc;
}

/* One sweep; *conflicts counts dependents changed meanwhile (retry). */
static int orphan_once(mock_store *s, const char *uid, int *conflicts)
{
	int changed = 0;
	for (int k = 0; k < MOCK_KIND_COUNT; k++) {
		const mock_resource *r = mock_resource_get((mock_kind)k);
		json_object *deps = objects_with(s, r, uid, NULL);
		if (!deps)
			return NL_ENOMEM;
		for (size_t i = 0; i < json_object_array_length(deps); i++) {
			json_object *d = json_object_array_get_idx(deps, i);
			if (!ref_to(d, uid))
				continue;
			int rc = drop_refs_to(s, r, d, uid);
			changed += rc == 0;
			*conflicts += rc == NL_ECONFLICT;
		}
		json_object_put(deps);
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

static int finish_owner(mock_store *s, const mock_resource *r, json_object *owner)
{
	const char *uid = nl_meta_uid(owner);
	int changed = 0;
	if (!uid)
		return 0;
	if (has_finalizer(owner, "orphan")) {
		int n = mock_gc_orphan(s, uid);
		if (n < 0)
			return n;
		return n + (remove_finalizer(s, r, owner, "orphan") == 0);
	}
	if (has_finalizer(owner, "foregroundDeletion")) {
		int blocking = 0;
		int n = delete_dependents(s, uid, r->namespaced ? nl_meta_namespace(owner) : NULL,
		                          &blocking);
		if (n < 0)
			return n;
		changed += n;
		if (blocking == 0)
			changed += remove_finalizer(s, r, owner, "foregroundDeletion") == 0;
	}
	return changed;
}

int mock_gc_finish_owners(mock_store *s)
{
	int changed = 0;
	for (int k = 0; k < MOCK_KIND_COUNT; k++) {
		const mock_resource *r = mock_resource_get((mock_kind)k);
		static const char *const names[] = {"\"orphan\"", "\"foregroundDeletion\""};
		for (size_t j = 0; j < 2; j++) {
			json_object *owners = objects_with(s, r, "\"deletionTimestamp\"", names[j]);
			if (!owners)
				return NL_ENOMEM;
			for (size_t i = 0; i < json_object_array_length(owners); i++) {
				int n = finish_owner(s, r, json_object_array_get_idx(owners, i));
				if (n == NL_ENOMEM) {
					json_object_put(owners);
					return n;
				}
				changed += n > 0 ? n : 0;
			}
			json_object_put(owners);
		}
	}
	return changed;
}
