/* Namespaces in the store (store.h, store_internal.h): the namespace
 * registry's own Delete (pkg/registry/core/namespace/storage, v1.32) and
 * the NamespaceLifecycle admission's refusal to create in a namespace that
 * is being terminated.
 *
 * The first DELETE never removes a namespace: it sets deletionTimestamp
 * and status.phase Terminating (no grace period) and the garbage
 * collector's finalizers the options ask for, and answers the namespace.
 * The namespace controller (mockapi/controllers) then empties it and takes
 * "kubernetes" out of spec.finalizers through /finalize; the update that
 * leaves no finalizer of either kind deletes it
 * (mock__store_should_delete_on_update). A later DELETE answers the
 * namespace as it is while spec.finalizers is not empty, and is the
 * generic registry's delete once it is. */
#include "store_internal.h"

#include <nodelet/errors.h>
#include <nodelet/json_text.h>
#include <nodelet/meta.h>
#include <nodelet/schema.h>
#include <nodelet/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/schema.h"

/* Whether the stored namespace text has a non-empty spec.finalizers. */
static int has_spec_finalizers(const char *json, size_t len)
{
	const char *v = NULL;
	size_t vlen = 0;
	if (nl_json_text_member(&v, &vlen, json, len, "spec.finalizers") != 0)
		return 0;
	return vlen > 2 && v[0] == '[';
}

int mock__store_namespace_terminating(const mock_store *s, const char *ns)
{
	const char *v = NULL;
	size_t vlen = 0;
	const obj_entry *e = mock__store_table_find(&s->t[MOCK_KIND_NAMESPACE], ns, NULL);
	return e && nl_json_text_member(&v, &vlen, e->json, e->len, "status.phase") == 0 &&
	       vlen == strlen("\"Terminating\"") && memcmp(v, "\"Terminating\"", vlen) == 0;
}

nl_status *mock__store_terminating_forbidden(const mock_resource *r, const char *name,
                                             const char *ns)
{
	char why[600], gr[300];
	nl_gr g = mock__store_gr_of(r);
	nl_gr_string(gr, sizeof(gr), &g);
	snprintf(why, sizeof(why), "namespace %s is being terminated", ns);
	/* admission.NewForbidden names the object (its generateName before a
	 * name is generated, "Unknown" without either). */
	nl_status *st = nl_status_newf(403, "Forbidden",
	                               "%s \"%s\" is forbidden: unable to create new content in "
	                               "namespace %s because it is being terminated",
	                               gr, name, ns);
	if (st &&
	    (nl_status_set_details(st, name, r->group, r->plural, NULL) != 0 ||
	     nl_status_add_cause(st, "NamespaceTerminating", why, "metadata.namespace") != 0)) {
		nl_status_free(st);
		return NULL;
	}
	return st;
}

/* The namespace registry's own precondition texts: a Conflict on
 * namespaces, with the UID checked before the resourceVersion. */
int mock__store_namespace_preconditions(const obj_entry *e, const char *name, const char *pre_uid,
                                        const char *pre_rv, nl_status **st)
{
	char rvs[RV_BUFSZ], why[512];
	nl_gr gr = {"", "namespaces"};
	mock__store_rv_string(rvs, e->rv);
	if (pre_uid && strcmp(pre_uid, e->uid) != 0)
		snprintf(why, sizeof(why),
		         "Precondition failed: UID in precondition: %s, UID in object meta: %s",
		         pre_uid, e->uid);
	else if (pre_rv && strcmp(pre_rv, rvs) != 0)
		snprintf(
		    why, sizeof(why),
		    "Precondition failed: ResourceVersion in precondition: %s, ResourceVersion "
		    "in object meta: %s",
		    pre_rv, rvs);
	else
		return 0;
	return mock__store_fail(st, nl_status_conflict(&gr, name, why), NL_ECONFLICT);
}

/* The Terminating namespace as a tree: deletionTimestamp now, phase
 * Terminating, the finalizers the policy wants in metadata. */
static int mark_terminating(json_object *o, unsigned flags, int64_t now)
{
	char ts[NL_TIME_BUFSZ];
	int changed = 0;
	json_object *m = mock__store_meta_of(o), *status = NULL;
	if (!m)
		return NL_ENOMEM;
	nl_time_format(ts, now);
	if (mock__store_set_string(m, "deletionTimestamp", ts) != 0 ||
	    mock__store_gc_finalizers(m, flags, &changed) != 0 ||
	    mock_schema_sort_object(m, &nl_schema_object_meta) != 0)
		return NL_ENOMEM;
	if (!json_object_object_get_ex(o, "status", &status) ||
	    !json_object_is_type(status, json_type_object)) {
		status = json_object_new_object();
		if (!status || json_object_object_add(o, "status", status) != 0) {
			json_object_put(status);
			return NL_ENOMEM;
		}
	}
	return mock__store_set_string(status, "phase", "Terminating");
}

/* Under the write lock: t->v[pos] marked Terminating as a MODIFIED change
 * (for a dry run only *out). */
static int start_termination(mock_store *s, table *t, size_t pos, unsigned flags, char **out,
                             size_t *len_out)
{
	obj_entry *e = t->v[pos];
	char rvs[RV_BUFSZ];
	int dry = (flags & MOCK_WRITE_F_DRY_RUN) != 0;
	uint64_t rv = dry ? e->rv : s->rv + 1;
	json_object *o = json_tokener_parse(e->json);
	int rc = o ? mark_terminating(o, flags, s->now(s->now_payload)) : NL_ENOMEM;
	mock__store_rv_string(rvs, rv);
	if (rc == 0 && mock__store_set_string(mock__store_meta_of(o), "resourceVersion", rvs) != 0)
		rc = NL_ENOMEM;
	if (rc != 0) {
		json_object_put(o);
		return rc;
	}
	return mock__store_replace_at(s, t, pos, o, rv, dry, out, len_out);
}

int mock__store_namespace_delete(mock_store *s, table *t, size_t pos, unsigned flags, char **out,
                                 size_t *len_out, int *deleted)
{
	obj_entry *e = t->v[pos];
	*deleted = 0;
	if (!mock__store_being_deleted(e->json, e->len))
		return start_termination(s, t, pos, flags, out, len_out);
	/* the controller has not finalized it yet */
	if (has_spec_finalizers(e->json, e->len))
		return mock__store_dup_bytes(out, len_out, e->json, e->len);
	if (mock__store_delete_keeps(e->json, e->len, flags)) {
		int rc = mock__store_mark_deleting(s, t, pos, flags, out, len_out, deleted);
		if (rc != 1)
			return rc;
		*deleted = 0;
	}
	/* ReturnDeletedObject: the answer is the namespace as it was */
	int rc = mock__store_dup_bytes(out, len_out, e->json, e->len);
	if (rc == 0 && !(flags & MOCK_WRITE_F_DRY_RUN))
		rc = mock__store_delete_at(s, t, pos, NULL, NULL);
	if (rc != 0) {
		free(*out);
		*out = NULL;
		return rc;
	}
	*deleted = 1;
	return 0;
}
