/* The request journal (journal.h): a ring of pointers to compact entries. */
#include "journal.h"

#include <nodelet/buf.h>
#include <nodelet/errors.h>
#include <nodelet/time.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One allocation: the struct, then its strings back to back. */
typedef struct entry {
	uint64_t seq;
	int64_t time_usec, duration_usec;
	size_t request_bytes;
	size_t room; /* bytes for strings */
	int code;
	const char *verb, *resource, *subresource, *group; /* static strings */
	const char *method, *path, *ns, *name, *query, *reason, *user_agent, *user, *fault;
	char strings[];
} entry;

struct mock_journal {
	pthread_mutex_t lock;
	entry **ring; /* grown on demand up to cap, then reused */
	size_t cap, alloc, start, n;
	uint64_t seq;
	/* The entry a full ring dropped last, for the next record to reuse:
	 * once full, recording neither allocates nor frees. */
	_Atomic(struct entry *) spare;
};

int mock_journal_new(mock_journal **out, size_t cap)
{
	mock_journal *j = calloc(1, sizeof(*j));
	if (!j)
		return NL_ENOMEM;
	if (pthread_mutex_init(&j->lock, NULL) != 0) {
		free(j);
		return NL_ERROR;
	}
	j->cap = cap;
	atomic_init(&j->spare, NULL);
	*out = j;
	return 0;
}

static void free_entries(mock_journal *j)
{
	for (size_t i = 0; i < j->n; i++)
		free(j->ring[(j->start + i) % j->alloc]);
	j->start = j->n = 0;
}

void mock_journal_free(mock_journal *j)
{
	if (!j)
		return;
	free_entries(j);
	free(j->ring);
	free(atomic_load(&j->spare));
	pthread_mutex_destroy(&j->lock);
	free(j);
}

/* The entry's strings in the order they are stored (NULL stored as ""). */
#define NSTRINGS 9
static void strings_of(const char *s[NSTRINGS], const mock_journal_in *in)
{
	s[0] = in->method;
	s[1] = in->path;
	s[2] = in->attrs->ns;
	s[3] = in->attrs->name;
	s[4] = in->query;
	s[5] = in->reason;
	s[6] = in->user_agent;
	s[7] = in->user;
	s[8] = in->fault;
}

/* Copy s (NULL as "") of length n - 1 to *p and point *field at it. */
static void put(char **p, const char **field, const char *s, size_t n)
{
	memcpy(*p, s ? s : "", n);
	*field = *p;
	*p += n;
}

/* The new entry, in the spare one when its strings fit. */
static entry *entry_new(mock_journal *j, const mock_journal_in *in)
{
	const mock_req_attrs *a = in->attrs;
	const char *s[NSTRINGS];
	size_t len[NSTRINGS], n = 0;
	strings_of(s, in);
	for (int i = 0; i < NSTRINGS; i++)
		n += len[i] = s[i] ? strlen(s[i]) + 1 : 1;
	entry *e = atomic_exchange(&j->spare, NULL);
	if (e && e->room < n) {
		free(e);
		e = NULL;
	}
	if (!e) {
		e = malloc(sizeof(*e) + n);
		if (!e)
			return NULL;
		e->room = n;
	}
	char *p = e->strings;
	e->time_usec = in->time_usec;
	e->duration_usec = in->duration_usec;
	e->request_bytes = in->request_bytes;
	e->code = in->code;
	e->verb = a->verb;
	e->resource = a->resource;
	e->subresource = a->subresource;
	e->group = a->group;
	put(&p, &e->method, s[0], len[0]);
	put(&p, &e->path, s[1], len[1]);
	put(&p, &e->ns, s[2], len[2]);
	put(&p, &e->name, s[3], len[3]);
	put(&p, &e->query, s[4], len[4]);
	put(&p, &e->reason, s[5], len[5]);
	put(&p, &e->user_agent, s[6], len[6]);
	put(&p, &e->user, s[7], len[7]);
	put(&p, &e->fault, s[8], len[8]);
	return e;
}

/* Room for one more entry while below cap: double the ring, unrolled so
 * that the oldest entry is at index 0. */
static int grow_locked(mock_journal *j)
{
	size_t alloc = j->alloc ? j->alloc * 2 : 64;
	if (alloc > j->cap)
		alloc = j->cap;
	entry **ring = malloc(alloc * sizeof(*ring));
	if (!ring)
		return -1;
	for (size_t i = 0; i < j->n; i++)
		ring[i] = j->ring[(j->start + i) % j->alloc];
	free(j->ring);
	j->ring = ring;
	j->alloc = alloc;
	j->start = 0;
	return 0;
}

uint64_t mock_journal_record(mock_journal *j, const mock_journal_in *in)
{
	if (!j || j->cap == 0)
		return 0;
	entry *e = entry_new(j, in);
	if (!e)
		return 0;
	entry *dropped = NULL;
	pthread_mutex_lock(&j->lock);
	if (j->n == j->alloc && j->alloc < j->cap && grow_locked(j) != 0) {
		pthread_mutex_unlock(&j->lock);
		free(e);
		return 0;
	}
	if (j->n == j->cap) {
		dropped = j->ring[j->start];
		j->start = (j->start + 1) % j->alloc;
		j->n--;
	}
	e->seq = ++j->seq;
	j->ring[(j->start + j->n) % j->alloc] = e;
	j->n++;
	uint64_t seq = e->seq;
	pthread_mutex_unlock(&j->lock);
	if (dropped)
		free(atomic_exchange(&j->spare, dropped));
	return seq;
}

static void add_str(json_object *o, const char *key, const char *v)
{
	json_object_object_add(o, key, json_object_new_string(v ? v : ""));
}

static json_object *entry_json(const entry *e)
{
	char ts[NL_TIME_BUFSZ];
	json_object *o = json_object_new_object();
	if (!o)
		return NULL;
	nl_time_format_micro(ts, e->time_usec);
	json_object_object_add(o, "seq", json_object_new_int64((int64_t)e->seq));
	add_str(o, "time", ts);
	add_str(o, "verb", e->verb);
	add_str(o, "resource", e->resource);
	add_str(o, "subresource", e->subresource);
	add_str(o, "group", e->group);
	add_str(o, "namespace", e->ns);
	add_str(o, "name", e->name);
	add_str(o, "query", e->query);
	json_object_object_add(o, "requestBytes", json_object_new_int64((int64_t)e->request_bytes));
	json_object_object_add(o, "code", json_object_new_int(e->code));
	add_str(o, "reason", e->reason);
	add_str(o, "userAgent", e->user_agent);
	add_str(o, "user", e->user);
	/* Microsecond precision, written as such ("0.04", not 0.040000000000000001). */
	char ms[32];
	snprintf(ms, sizeof(ms), "%.3f", (double)e->duration_usec / 1000.0);
	json_object_object_add(o, "durationMs",
	                       json_object_new_double_s((double)e->duration_usec / 1000.0, ms));
	json_object_object_add(o, "fault", e->fault[0] ? json_object_new_string(e->fault) : NULL);
	add_str(o, "method", e->method);
	add_str(o, "path", e->path);
	return o;
}

/* The oldest entry with seq > since: seqs are consecutive in the ring. */
static size_t first_after_locked(const mock_journal *j, uint64_t since)
{
	if (j->n == 0)
		return 0;
	uint64_t oldest = j->ring[j->start]->seq;
	if (since < oldest)
		return 0;
	uint64_t skip = since - oldest + 1;
	return skip > j->n ? j->n : (size_t)skip;
}

json_object *mock_journal_to_json(mock_journal *j, uint64_t since)
{
	json_object *out = json_object_new_object();
	json_object *items = json_object_new_array();
	if (!out || !items) {
		json_object_put(out);
		json_object_put(items);
		return NULL;
	}
	pthread_mutex_lock(&j->lock);
	for (size_t i = first_after_locked(j, since); i < j->n; i++)
		json_object_array_add(items, entry_json(j->ring[(j->start + i) % j->alloc]));
	uint64_t last = j->seq;
	pthread_mutex_unlock(&j->lock);
	json_object_object_add(out, "items", items);
	json_object_object_add(out, "lastSeq", json_object_new_int64((int64_t)last));
	return out;
}

size_t mock_journal_clear(mock_journal *j)
{
	pthread_mutex_lock(&j->lock);
	size_t n = j->n;
	free_entries(j);
	pthread_mutex_unlock(&j->lock);
	return n;
}

static int unreserved(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_' || c == '~';
}

static int escape(nl_buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		char enc[3] = {'%', hex[*p >> 4], hex[*p & 15]};
		int rc = unreserved(*p) ? nl_buf_add(b, p, 1) : nl_buf_add(b, enc, 3);
		if (rc != 0)
			return rc;
	}
	return 0;
}

char *mock_journal_query_string(const char *const *keys, const char *const *values, size_t n)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		rc = (i ? nl_buf_adds(&b, "&") : 0) || escape(&b, keys[i]);
		if (rc == 0 && values[i])
			rc = nl_buf_adds(&b, "=") || escape(&b, values[i]);
	}
	char *s = rc == 0 ? nl_buf_detach(&b, NULL) : NULL;
	nl_buf_free(&b);
	return s;
}
