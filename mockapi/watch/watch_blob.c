/* Event lines shared among watchers (watch_internal.h). The watch cache of
 * kube-apiserver serializes an event once per encoding and hands the same
 * bytes to every watcher (cachingObject); here a line is named by what
 * makes its bytes: the kind, the object's resourceVersion (every write takes
 * a new one, so it names one stored version), the event type and the
 * framing. Lines written through an encoder (Table rows, metadata only)
 * depend on the request and stay private.
 *
 * The table holds no reference: a line lives while a watcher or an initial
 * event set holds it, and leaves the table with its last reference. All of
 * it runs under the hub lock. */
#include <stdlib.h>
#include <string.h>

#include "watch_internal.h"

/* Buckets when the table first fills; it doubles past one line a bucket. */
#define FIRST_BUCKETS 256u

static size_t key_hash(const watch_key *k, size_t nbuckets)
{
	uint64_t x = k->rv * 0x9E3779B97F4A7C15ULL;
	x ^= (uint64_t)(k->kind * WATCH_LINE_TYPES + k->type) * 2 + (uint64_t)k->protobuf;
	x ^= x >> 31;
	return (size_t)(x % nbuckets);
}

static int key_equal(const watch_key *a, const watch_key *b)
{
	return a->rv == b->rv && a->kind == b->kind && a->type == b->type &&
	       a->protobuf == b->protobuf;
}

int mock__watch_line_type(const char *type)
{
	if (strcmp(type, "ADDED") == 0)
		return WATCH_LINE_ADDED;
	if (strcmp(type, "MODIFIED") == 0)
		return WATCH_LINE_MODIFIED;
	if (strcmp(type, "DELETED") == 0)
		return WATCH_LINE_DELETED;
	return -1;
}

watch_blob *mock__watch_blob_find(mock_watch_hub *h, const watch_key *key)
{
	if (!h->table)
		return NULL;
	for (watch_blob *b = h->table[key_hash(key, h->nbuckets)]; b; b = b->hnext)
		if (key_equal(&b->key, key)) {
			b->refs++;
			return b;
		}
	return NULL;
}

/* Room for one more keyed line; on failure the table stays as it is and
 * the line is simply not shared. */
static void table_grow(mock_watch_hub *h)
{
	if (h->table && h->nshared < h->nbuckets)
		return;
	size_t n = h->table ? h->nbuckets * 2 : FIRST_BUCKETS;
	watch_blob **t = calloc(n, sizeof(*t));
	if (!t)
		return;
	for (size_t i = 0; h->table && i < h->nbuckets; i++)
		for (watch_blob *b = h->table[i], *next; b; b = next) {
			next = b->hnext;
			size_t j = key_hash(&b->key, n);
			b->hnext = t[j];
			t[j] = b;
		}
	free(h->table);
	h->table = t;
	h->nbuckets = n;
}

int mock__watch_blob_add(watch_blob **out, mock_watch_hub *h, nl_buf *line, size_t object_len,
                         const watch_key *key)
{
	watch_blob *b = key ? mock__watch_blob_find(h, key) : NULL;
	if (b) {
		nl_buf_free(line);
		*out = b;
		return 0;
	}
	size_t len = line->len;
	if (h->buffer_limit && h->buffered + len > h->buffer_limit) {
		nl_buf_free(line);
		return NL_ETOOBIG;
	}
	b = calloc(1, sizeof(*b));
	char *data = b ? nl_buf_detach(line, &len) : NULL;
	if (!data) {
		free(b);
		nl_buf_free(line);
		return NL_ENOMEM;
	}
	/* A buffer grows by doubling: give back what the line does not use. */
	char *fit = realloc(data, len + 1);
	if (fit)
		data = fit;
	b->data = data;
	b->len = len;
	b->object_len = object_len;
	b->refs = 1;
	h->buffered += len;
	if (key) {
		table_grow(h);
		if (h->table) {
			b->key = *key;
			b->shared = 1;
			size_t i = key_hash(key, h->nbuckets);
			b->hnext = h->table[i];
			h->table[i] = b;
			h->nshared++;
		}
	}
	*out = b;
	return 0;
}

void mock__watch_blob_unref(mock_watch_hub *h, watch_blob *b)
{
	if (!b || --b->refs > 0)
		return;
	if (b->shared) {
		watch_blob **p = &h->table[key_hash(&b->key, h->nbuckets)];
		while (*p != b)
			p = &(*p)->hnext;
		*p = b->hnext;
		h->nshared--;
	}
	h->buffered -= b->len;
	h->freed += b->len;
	free(b->data);
	free(b);
}

void mock__watch_blobs_free(mock_watch_hub *h)
{
	free(h->table);
	h->table = NULL;
	h->nbuckets = 0;
	h->nshared = 0;
}
