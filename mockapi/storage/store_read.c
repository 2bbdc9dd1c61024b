/* Reads (store.h): GET of one object or just its uid, and the walks that
 * hand stored objects to a callback under one read lock: the snapshot a
 * watch starts from and the controllers' look at what changed. The LIST
 * document is store_list.c's; the selection a walk shares with it (plan,
 * key range, selector match) is there too. */
#include "store_internal.h"

#include <nodelet/errors.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

int mock_store_get(mock_store *s, const mock_resource *r, const char *ns, const char *name,
                   char **out, size_t *len_out, nl_status **st)
{
	if (!s || !mock__store_valid_resource(r) || !name || !out)
		return NL_EINVAL;
	char *key = mock__store_key_new(r, ns, name);
	if (!key)
		return mock__store_fail_nomem(st);
	int rc = 0;
	pthread_rwlock_rdlock(&s->lock);
	obj_entry *e = mock__store_table_find(mock__store_table_of(s, r), key, NULL);
	if (e)
		rc = mock__store_dup_bytes(out, len_out, e->json, e->len);
	pthread_rwlock_unlock(&s->lock);
	free(key);
	if (!e) {
		nl_gr gr = mock__store_gr_of(r);
		return mock__store_fail(st, nl_status_not_found(&gr, name), NL_ENOTFOUND);
	}
	return rc ? mock__store_fail_nomem(st) : 0;
}

int mock_store_get_object(mock_store *s, const mock_resource *r, const char *ns, const char *name,
                          json_object **out)
{
	char *json = NULL;
	size_t len = 0;
	int rc = mock_store_get(s, r, ns, name, &json, &len, NULL);
	if (rc != 0)
		return rc;
	json_object *o = json_tokener_parse(json);
	free(json);
	if (!o)
		return NL_EPARSE;
	*out = o;
	return 0;
}

int mock_store_uid(mock_store *s, const mock_resource *r, const char *ns, const char *name,
                   char *out, size_t outlen)
{
	if (!s || !mock__store_valid_resource(r) || !name || !out || outlen <= MOCK_UUID_LEN)
		return NL_EINVAL;
	char *key = mock__store_key_new(r, ns, name);
	if (!key)
		return NL_ENOMEM;
	pthread_rwlock_rdlock(&s->lock);
	const obj_entry *e = mock__store_table_find(mock__store_table_of(s, r), key, NULL);
	if (e)
		memcpy(out, e->uid, MOCK_UUID_LEN + 1);
	pthread_rwlock_unlock(&s->lock);
	free(key);
	return e ? 0 : NL_ENOTFOUND;
}

int mock_store_visit(mock_store *s, const mock_resource *r, const mock_list_opts *o,
                     mock_store_visit_fn fn, void *payload, uint64_t *rv_out, nl_status **st)
{
	mock_list_opts whole = {0};
	list_plan p = {0};
	size_t lo = 0, hi = 0;
	if (!s || !mock__store_valid_resource(r) || !rv_out)
		return NL_EINVAL;
	if (o) {
		whole = *o;
		whole.limit = 0;
		whole.continue_token = NULL;
	}
	int rc = mock__store_plan_list(&p, r, &whole, 1, st);
	if (rc != 0)
		return rc;
	pthread_rwlock_rdlock(&s->lock);
	const table *t = mock__store_table_of(s, r);
	uint64_t current = s->rv;
	if (p.min_rv > current) {
		pthread_rwlock_unlock(&s->lock);
		mock__store_plan_free(&p);
		return mock__store_fail(st, nl_status_too_large_rv(p.min_rv, current), NL_ETIMEOUT);
	}
	rc = mock__store_list_range(t, r, &p, &lo, &hi);
	for (size_t i = lo; rc == 0 && fn && i < hi; i++)
		if (mock__store_entry_matches(r, t->v[i], &whole))
			rc = fn(t->v[i]->json, t->v[i]->len, payload);
	pthread_rwlock_unlock(&s->lock);
	mock__store_plan_free(&p);
	if (rc == NL_ENOMEM)
		return mock__store_fail_nomem(st);
	if (rc == 0)
		*rv_out = current;
	return rc;
}

int mock_store_visit_since(mock_store *s, const mock_resource *r, uint64_t since,
                           mock_store_since_fn fn, void *payload, mock_store_mark *mark)
{
	if (!s || !mock__store_valid_resource(r) || !mark)
		return NL_EINVAL;
	int rc = 0;
	pthread_rwlock_rdlock(&s->lock);
	const table *t = mock__store_table_of(s, r);
	for (size_t i = 0; rc == 0 && fn && i < t->n; i++)
		if (t->v[i]->rv > since)
			rc = fn(t->v[i]->key, t->v[i]->rv, t->v[i]->json, t->v[i]->len, payload);
	mark->rv = s->rv;
	mark->removed = t->removed;
	mark->count = t->n;
	pthread_rwlock_unlock(&s->lock);
	return rc;
}
