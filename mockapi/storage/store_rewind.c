/* Saving the store's whole state and going back to it (store.h), for
 * in-process harnesses that run many independent sessions on one server:
 * a copy of every table's entries and the counters, put back by copying
 * bytes, with no parse, hook, observer or state file involved. */
#include "store_internal.h"

#include <nodelet/errors.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct mock_store_saved {
	uint64_t rv;
	table t[MOCK_KIND_COUNT];
};

static char *dup_text(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* A deep copy of e, or NULL when out of memory. */
static obj_entry *entry_dup(const obj_entry *e)
{
	size_t klen = strlen(e->key);
	obj_entry *c = calloc(1, sizeof(*c) + klen + 1);
	if (!c)
		return NULL;
	memcpy(c, e, sizeof(*c) + klen + 1);
	c->json = NULL;
	c->labels = NULL;
	c->fields = NULL;
	c->nfields = 0;
	if (mock__store_dup_bytes(&c->json, NULL, e->json, e->len) != 0 ||
	    (e->labels && !(c->labels = dup_text(e->labels))))
		goto fail;
	if (e->nfields > 0) {
		if (!(c->fields = calloc(e->nfields, sizeof(*c->fields))))
			goto fail;
		c->nfields = e->nfields;
		for (uint16_t i = 0; i < e->nfields; i++)
			if (e->fields[i] && !(c->fields[i] = dup_text(e->fields[i])))
				goto fail;
	}
	return c;
fail:
	mock__store_entry_free(c);
	return NULL;
}

static void tables_free(table *t)
{
	for (int k = 0; k < MOCK_KIND_COUNT; k++) {
		for (size_t i = 0; i < t[k].n; i++)
			mock__store_entry_free(t[k].v[i]);
		free(t[k].v);
		memset(&t[k], 0, sizeof(t[k]));
	}
}

/* dst (empty) becomes a deep copy of src; on failure dst is left empty. */
static int tables_copy(table *dst, const table *src)
{
	for (int k = 0; k < MOCK_KIND_COUNT; k++) {
		dst[k].r = src[k].r;
		dst[k].removed = src[k].removed;
		if (src[k].n == 0)
			continue;
		if (mock__store_table_reserve(&dst[k], src[k].n) != 0)
			goto fail;
		for (size_t i = 0; i < src[k].n; i++) {
			if (!(dst[k].v[i] = entry_dup(src[k].v[i])))
				goto fail;
			dst[k].n++;
		}
	}
	return 0;
fail:
	tables_free(dst);
	return NL_ENOMEM;
}

int mock_store_save(mock_store_saved **out, mock_store *s)
{
	mock_store_saved *sv = calloc(1, sizeof(*sv));
	if (!sv)
		return NL_ENOMEM;
	pthread_rwlock_rdlock(&s->lock);
	int rc = tables_copy(sv->t, s->t);
	sv->rv = s->rv;
	pthread_rwlock_unlock(&s->lock);
	if (rc != 0) {
		free(sv);
		return rc;
	}
	*out = sv;
	return 0;
}

int mock_store_rewind(mock_store *s, const mock_store_saved *sv)
{
	table fresh[MOCK_KIND_COUNT], old[MOCK_KIND_COUNT];
	memset(fresh, 0, sizeof(fresh));
	/* Copied and freed outside the lock, which only sees the swap; a
	 * failure leaves the store as it was. */
	if (tables_copy(fresh, sv->t) != 0)
		return NL_ENOMEM;
	pthread_rwlock_wrlock(&s->lock);
	memcpy(old, s->t, sizeof(old));
	memcpy(s->t, fresh, sizeof(fresh));
	s->rv = sv->rv;
	pthread_rwlock_unlock(&s->lock);
	tables_free(old);
	return 0;
}

void mock_store_saved_free(mock_store_saved *sv)
{
	if (!sv)
		return;
	tables_free(sv->t);
	free(sv);
}
