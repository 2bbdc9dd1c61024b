/* The store's side of the state file (persist.h): installing the
 * write-ahead hook the writes call, moving the counter, putting objects read
 * back from the file into the tables (no checks beyond soundness, no
 * events), and the dump of every object a snapshot is written from. */
#include "store_internal.h"

#include <nodelet/doc.h>
#include <nodelet/errors.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void mock_store_set_persist(mock_store *s, mock_store_persist_fn fn, void *payload)
{
	pthread_rwlock_wrlock(&s->lock);
	s->persist = fn;
	s->persist_payload = payload;
	pthread_rwlock_unlock(&s->lock);
}

void mock_store_advance_rv(mock_store *s, uint64_t rv)
{
	pthread_rwlock_wrlock(&s->lock);
	if (rv > s->rv)
		s->rv = rv;
	pthread_rwlock_unlock(&s->lock);
}

/* A name or namespace read back from a state file: it becomes part of a
 * key, so no '/' and the apiserver's length bound. */
static int restorable_name(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	return n > 0 && n <= 253 && !strchr(s, '/');
}

/* The entry a restored object becomes, or an error naming what is wrong. */
static int restore_entry(obj_entry **out, const mock_resource *r, json_object *obj,
                         const char **why)
{
	json_object *m = NULL;
	uint64_t rv = 0;
	if (!json_object_is_type(obj, json_type_object) ||
	    !json_object_object_get_ex(obj, "metadata", &m) ||
	    !json_object_is_type(m, json_type_object))
		return *why = "not an object with metadata", NL_EPARSE;
	const char *name = mock__store_str_member(m, "name"),
	           *ns = mock__store_str_member(m, "namespace");
	const char *uid = mock__store_str_member(m, "uid"),
	           *rvs = mock__store_str_member(m, "resourceVersion");
	if (!restorable_name(name) || (r->namespaced && !restorable_name(ns)))
		return *why = "bad metadata.name or metadata.namespace", NL_EPARSE;
	if (!uid || strlen(uid) > MOCK_UUID_LEN)
		return *why = "bad metadata.uid", NL_EPARSE;
	if (!rvs || mock__store_parse_uint_go(rvs, &rv) != 0 || rv == 0)
		return *why = "bad metadata.resourceVersion", NL_EPARSE;
	if (!r->namespaced)
		json_object_object_del(m, "namespace");
	if (mock__store_set_string(obj, "kind", r->kind) ||
	    mock__store_set_string(obj, "apiVersion", r->api_version))
		return *why = "out of memory", NL_ENOMEM;
	char *key = mock__store_key_new(r, ns, name);
	if (!key)
		return *why = "out of memory", NL_ENOMEM;
	int rc = mock__store_entry_new(out, r, key, obj, rv, uid);
	free(key);
	if (rc != 0)
		*why = "cannot index the object";
	return rc;
}

int mock_store_restore_put(mock_store *s, const mock_resource *r, const char *json, size_t len,
                           const char **why)
{
	const char *dummy;
	size_t pos = 0;
	if (!why)
		why = &dummy;
	if (!s || !mock__store_valid_resource(r) || !json)
		return *why = "invalid argument", NL_EINVAL;
	json_tokener *tok = json_tokener_new_ex(NL_DOC_MAX_DEPTH);
	json_object *obj = tok ? json_tokener_parse_ex(tok, json, (int)len) : NULL;
	int complete = tok && json_tokener_get_error(tok) == json_tokener_success &&
	               json_tokener_get_parse_end(tok) == len;
	json_tokener_free(tok);
	if (!obj || !complete || len > INT32_MAX) {
		json_object_put(obj);
		return *why = "the object is not valid JSON", NL_EPARSE;
	}
	obj_entry *e = NULL;
	int rc = restore_entry(&e, r, obj, why);
	json_object_put(obj);
	if (rc != 0)
		return rc;
	pthread_rwlock_wrlock(&s->lock);
	table *t = mock__store_table_of(s, r);
	t->r = r;
	obj_entry *old = mock__store_table_find(t, e->key, &pos);
	if (old) {
		t->v[pos] = e;
		mock__store_entry_free(old);
	} else if (mock__store_table_reserve(t, t->n + 1) == 0) {
		mock__store_table_insert(t, pos, e);
	} else {
		mock__store_entry_free(e);
		rc = NL_ENOMEM;
		*why = "out of memory";
	}
	if (rc == 0 && e->rv > s->rv)
		s->rv = e->rv;
	pthread_rwlock_unlock(&s->lock);
	return rc;
}

int mock_store_restore_delete(mock_store *s, const mock_resource *r, const char *key)
{
	size_t pos = 0;
	if (!s || !mock__store_valid_resource(r) || !key)
		return NL_EINVAL;
	pthread_rwlock_wrlock(&s->lock);
	table *t = mock__store_table_of(s, r);
	t->r = r;
	obj_entry *e = mock__store_table_find(t, key, &pos);
	if (e) {
		mock__store_table_remove(t, pos);
		mock__store_entry_free(e);
	}
	pthread_rwlock_unlock(&s->lock);
	return e ? 0 : NL_ENOTFOUND;
}

int mock_store_dump(mock_store *s, mock_store_dump_fn fn, mock_store_dump_end_fn end, void *payload)
{
	int rc = 0;
	pthread_rwlock_rdlock(&s->lock);
	for (int k = 0; k < MOCK_KIND_COUNT && rc == 0; k++) {
		const table *t = &s->t[k];
		for (size_t i = 0; i < t->n && rc == 0; i++)
			rc = fn(t->r, t->v[i]->key, t->v[i]->json, t->v[i]->len, t->v[i]->rv,
			        payload);
	}
	if (rc == 0 && end)
		rc = end(s->rv, payload);
	pthread_rwlock_unlock(&s->lock);
	return rc;
}
