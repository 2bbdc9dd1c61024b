/* Deletes (store.h): one object under its DeleteOptions preconditions, the
 * objects a selection picks (deletecollection) and every object (the
 * control API's reset); a namespace's own rules are in store_namespace.c. Each deletion takes
 * its own resourceVersion and reaches the state file, then the observer. */
#include "store_internal.h"

#include <nodelet/errors.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The entry's JSON with metadata.resourceVersion replaced: what a DELETED
 * event carries. Caller frees. Runs under the write lock, so the number is
 * spliced into the stored bytes (a parse of a 3 MiB object took tens of
 * milliseconds); the parse stays for text that is not laid out as
 * mock__store_entry_new writes it. */
static int json_with_rv(char **out, size_t *len_out, const obj_entry *e, uint64_t rv)
{
	char rvs[RV_BUFSZ];
	size_t len = 0, off = 0, vlen = 0;
	if (mock__store_rv_span(e->json, e->len, &off, &vlen) == 0)
		return mock__store_splice_rv(out, len_out, e->json, e->len, off, vlen, rv);
	int rc = NL_ENOMEM;
	json_object *o = json_tokener_parse(e->json);
	json_object *m = o ? mock__store_meta_of(o) : NULL;
	mock__store_rv_string(rvs, rv);
	if (!m || mock__store_set_string(m, "resourceVersion", rvs) != 0)
		goto done;
	const char *js = json_object_to_json_string_length(o, JSON_FLAGS, &len);
	char *copy = js ? malloc(len + 1) : NULL;
	if (!copy)
		goto done;
	memcpy(copy, js, len + 1);
	*out = copy;
	*len_out = len;
	rc = 0;
done:
	json_object_put(o);
	return rc;
}

int mock__store_delete_at(mock_store *s, table *t, size_t pos, char **json_out, size_t *len_out)
{
	obj_entry *e = t->v[pos];
	uint64_t rv = s->rv + 1;
	char *dj = NULL;
	size_t dl = 0;
	int rc = json_with_rv(&dj, &dl, e, rv);
	if (rc != 0)
		return rc;
	if (mock__store_persist(s, t->r, MOCK_STORE_DELETED, e->key, NULL, 0, rv) != 0) {
		free(dj);
		return NL_EIO;
	}
	mock__store_table_remove(t, pos);
	s->rv = rv;
	mock__store_notify(s, t->r, MOCK_STORE_DELETED, dj, dl, e, rv);
	mock__store_entry_free(e);
	if (json_out) {
		*json_out = dj;
		*len_out = dl;
	} else {
		free(dj);
	}
	return 0;
}

/* DeleteOptions preconditions, as rest.BeforeDelete words them: the group
 * and Kind (not the resource) name the object. */
static nl_status *delete_precondition_failed(const mock_resource *r, const char *name,
                                             const char *what, const char *want, const char *have,
                                             const char *why)
{
	char msg[512];
	nl_gr gk = {r->group, r->kind};
	snprintf(msg, sizeof(msg),
	         "the %s in the precondition (%s) does not match the %s in record (%s). %s", what,
	         want, what, have, why);
	return nl_status_conflict(&gk, name, msg);
}

static int check_delete_preconditions(const mock_resource *r, const obj_entry *e, const char *name,
                                      const char *pre_uid, const char *pre_rv, nl_status **st)
{
	char rvs[RV_BUFSZ];
	mock__store_rv_string(rvs, e->rv);
	if (pre_uid && strcmp(pre_uid, e->uid) != 0)
		return mock__store_fail(
		    st,
		    delete_precondition_failed(
		        r, name, "UID", pre_uid, e->uid,
		        "The object might have been deleted and then recreated"),
		    NL_ECONFLICT);
	if (pre_rv && strcmp(pre_rv, rvs) != 0)
		return mock__store_fail(
		    st,
		    delete_precondition_failed(r, name, "ResourceVersion", pre_rv, rvs,
		                               "The object might have been modified"),
		    NL_ECONFLICT);
	return 0;
}

int mock_store_delete(mock_store *s, const mock_resource *r, const char *ns, const char *name,
                      const char *pre_uid, const char *pre_rv, char **out, size_t *len_out,
                      nl_status **st)
{
	return mock_store_delete_ex(s, r, ns, name, 0, pre_uid, pre_rv, out, len_out, NULL, st);
}

/* Under the write lock, preconditions checked: the generic registry's
 * Delete. With finalizers pending the object is marked and kept
 * (*deleted 0); a kind with a grace period is first given one (pods);
 * otherwise removed. */
static int delete_checked(mock_store *s, table *t, size_t pos, unsigned flags, const int64_t *grace,
                          char **dj, size_t *dl, int *deleted)
{
	const mock_resource *r = t->r;
	obj_entry *e = t->v[pos];
	int rc = 0;
	*deleted = 0;
	if (r->id == MOCK_KIND_NAMESPACE)
		return mock__store_namespace_delete(s, t, pos, flags, dj, dl, deleted);
	if (r->grace_period) {
		rc = mock__store_graceful_delete(s, t, pos, flags, grace, dj, dl);
		if (rc != 1)
			return rc;
		rc = 0;
		e = t->v[pos];
	}
	if (mock__store_delete_keeps(e->json, e->len, flags)) {
		rc = mock__store_mark_deleting(s, t, pos, flags, dj, dl, deleted);
		if (rc != 1)
			return rc;
		rc = 0; /* no finalizer left: delete now */
	}
	if (flags & MOCK_WRITE_F_DRY_RUN) {
		*deleted = 1;
		return mock__store_dup_bytes(dj, dl, e->json, e->len);
	}
	rc = mock__store_delete_at(s, t, pos, dj, dl);
	*deleted = rc == 0;
	return rc;
}

int mock_store_delete_ex(mock_store *s, const mock_resource *r, const char *ns, const char *name,
                         unsigned flags, const char *pre_uid, const char *pre_rv, char **out,
                         size_t *len_out, int *deleted, nl_status **st)
{
	return mock_store_delete_grace(s, r, ns, name, flags, NULL, pre_uid, pre_rv, out, len_out,
	                               deleted, st);
}

int mock_store_delete_grace(mock_store *s, const mock_resource *r, const char *ns, const char *name,
                            unsigned flags, const int64_t *grace, const char *pre_uid,
                            const char *pre_rv, char **out, size_t *len_out, int *deleted,
                            nl_status **st)
{
	char *dj = NULL;
	size_t dl = 0, pos = 0;
	int gone = 0;
	if (!s || !mock__store_valid_resource(r) || !name)
		return NL_EINVAL;
	char *key = mock__store_key_new(r, ns, name);
	if (!key)
		return mock__store_fail_nomem(st);
	pthread_rwlock_wrlock(&s->lock);
	table *t = mock__store_table_of(s, r);
	t->r = r;
	obj_entry *e = mock__store_table_find(t, key, &pos);
	int rc;
	if (!e) {
		nl_gr gr = mock__store_gr_of(r);
		rc = mock__store_fail(st, nl_status_not_found(&gr, name), NL_ENOTFOUND);
	} else if ((rc = r->id == MOCK_KIND_NAMESPACE
	                     ? mock__store_namespace_preconditions(e, name, pre_uid, pre_rv, st)
	                     : check_delete_preconditions(r, e, name, pre_uid, pre_rv, st)) == 0) {
		rc = delete_checked(s, t, pos, flags, grace, &dj, &dl, &gone);
		if (rc == NL_EIO)
			rc = mock__store_fail_persist(st);
		else if (rc != 0)
			rc = mock__store_fail_nomem(st);
	}
	pthread_rwlock_unlock(&s->lock);
	free(key);
	if (rc != 0)
		return rc;
	if (deleted)
		*deleted = gone;
	if (out) {
		*out = dj;
		if (len_out)
			*len_out = dl;
	} else {
		free(dj);
	}
	return 0;
}

/* Namespaced kinds first, namespaces last, each object with its own
 * deletion resourceVersion and event, so watchers see a consistent
 * history; the counter keeps counting up. */
int mock_store_clear(mock_store *s)
{
	int rc = 0;
	if (!s)
		return NL_EINVAL;
	pthread_rwlock_wrlock(&s->lock);
	for (int pass = 0; pass < 2 && rc == 0; pass++)
		for (int k = 0; k < MOCK_KIND_COUNT && rc == 0; k++) {
			table *t = &s->t[k];
			if ((k == MOCK_KIND_NAMESPACE) != (pass == 1))
				continue;
			while (rc == 0 && t->n > 0)
				rc = mock__store_delete_at(s, t, t->n - 1, NULL, NULL);
		}
	pthread_rwlock_unlock(&s->lock);
	return rc;
}

/* Delete the matches in [lo, hi) of t, appending each deleted object as a
 * list item to items. */
static int delete_selected(mock_store *s, table *t, const mock_list_opts *o, size_t lo, size_t hi,
                           nl_buf *items)
{
	const mock_resource *r = t->r;
	int rc = 0;
	for (size_t i = lo, n = 0; i < hi && rc == 0;) {
		char *dj = NULL;
		size_t dl = 0;
		if (!mock__store_entry_matches(r, t->v[i], o)) {
			i++;
			continue;
		}
		int gone = 0;
		rc = delete_checked(s, t, i, 0, NULL, &dj, &dl, &gone);
		if (rc == 0) {
			rc = mock__store_add_item(items, dj, dl, mock__store_body_offset(r),
			                          n++ == 0);
			/* a kept object stays at i */
			if (gone)
				hi--;
			else
				i++;
		}
		free(dj);
	}
	return rc;
}

int mock_store_delete_collection(mock_store *s, const mock_resource *r, const mock_list_opts *o,
                                 nl_buf *out, nl_status **st)
{
	static const mock_list_opts none;
	list_plan p = {0};
	nl_buf items;
	size_t mark = out ? out->len : 0, lo = 0, hi = 0;
	if (!s || !mock__store_valid_resource(r) || !out)
		return NL_EINVAL;
	if (!o)
		o = &none;
	int rc = mock__store_plan_list(&p, r, o, 0, st);
	if (rc != 0)
		return rc;
	nl_buf_init(&items, 0);
	pthread_rwlock_wrlock(&s->lock);
	table *t = mock__store_table_of(s, r);
	t->r = r;
	rc = mock__store_list_range(t, r, &p, &lo, &hi);
	if (rc == 0)
		rc = delete_selected(s, t, o, lo, hi, &items);
	uint64_t list_rv = s->rv;
	pthread_rwlock_unlock(&s->lock);
	if (rc == 0)
		rc = mock__store_list_head(out, r, list_rv);
	if (rc == 0)
		rc = nl_buf_adds(out, "},\"items\":[");
	if (rc == 0 && items.len)
		rc = nl_buf_add(out, items.data, items.len);
	if (rc == 0)
		rc = nl_buf_adds(out, "]}");
	nl_buf_free(&items);
	mock__store_plan_free(&p);
	return rc ? mock__store_list_failed(out, mark, rc, st) : 0;
}
