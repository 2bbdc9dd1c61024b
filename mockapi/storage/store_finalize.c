/* Finalizers (store.h, store_internal.h): what k8s.io/apiserver's generic
 * registry does with an object whose metadata.finalizers are not empty.
 * A DELETE marks it (markAsDeleting: deletionTimestamp, a zero
 * deletionGracePeriodSeconds, generation + 1 the first time) and keeps it;
 * the update that empties the finalizers of a marked object deletes it
 * (ShouldDeleteDuringUpdate). None of the served kinds has graceful
 * deletion, so the grace period is always 0. */
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
	json_object *nm = nl_json_get_path(obj, "metadata");
	json_object *om = nl_json_get_path(old, "metadata");
	json_object *grace = NULL;
	if (list_len(nm, "finalizers") > 0 || list_len(om, "finalizers") == 0 ||
	    !nl_json_get_string(old, "metadata.deletionTimestamp"))
		return 0;
	/* A namespace waits for its spec.finalizers too (the namespace
	 * registry's ShouldDeleteNamespaceDuringUpdate). */
	if (r->id == MOCK_KIND_NAMESPACE && list_len(nl_json_get_path(obj, "spec"), "finalizers"))
		return 0;
	return json_object_object_get_ex(om, "deletionGracePeriodSeconds", &grace) &&
	       json_object_is_type(grace, json_type_int) && json_object_get_int64(grace) == 0;
}

/* markAsDeleting on the tree: 1 when it changed anything. */
static int mark(json_object *meta, int64_t now, int *changed)
{
	char ts[NL_TIME_BUFSZ];
	json_object *v = NULL;
	*changed = 0;
	if (!json_object_object_get_ex(meta, "deletionTimestamp", &v) ||
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
	/* An earlier timestamp than now is kept; ours never lies ahead. */
	if (!json_object_object_get_ex(meta, "deletionGracePeriodSeconds", &v) ||
	    !json_object_is_type(v, json_type_int) || json_object_get_int64(v) != 0) {
		if (json_object_object_add(meta, "deletionGracePeriodSeconds",
		                           json_object_new_int64(0)) != 0)
			return NL_ENOMEM;
		*changed = 1;
	}
	return 0;
}

int mock__store_mark_deleting(mock_store *s, table *t, size_t pos, unsigned flags, char **out,
                              size_t *len_out)
{
	obj_entry *e = t->v[pos], *ne = NULL;
	char rvs[RV_BUFSZ];
	int changed = 0;
	json_object *o = json_tokener_parse(e->json);
	json_object *m = o ? mock__store_meta_of(o) : NULL;
	if (!m) {
		json_object_put(o);
		return NL_ENOMEM;
	}
	int rc = mark(m, s->now(s->now_payload), &changed);
	uint64_t rv = changed && !(flags & MOCK_WRITE_F_DRY_RUN) ? s->rv + 1 : e->rv;
	mock__store_rv_string(rvs, rv);
	if (rc == 0 && !changed) {
		/* etcd3's GuaranteedUpdate writes nothing for a no-op */
		json_object_put(o);
		return mock__store_dup_bytes(out, len_out, e->json, e->len);
	}
	if (rc == 0 && mock__store_set_string(m, "resourceVersion", rvs) != 0)
		rc = NL_ENOMEM;
	if (rc == 0)
		rc = mock__store_entry_new(&ne, t->r, e->key, o, rv, e->uid);
	json_object_put(o);
	if (rc == 0)
		rc = mock__store_dup_bytes(out, len_out, ne->json, ne->len);
	if (rc != 0 || (flags & MOCK_WRITE_F_DRY_RUN)) {
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
