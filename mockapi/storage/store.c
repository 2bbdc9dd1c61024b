/* The in-memory object store (store.h; docs/decisions/0002-store.md).
 *
 * One table per mock_kind (indexed by r->id): a sorted array of entry
 * pointers keyed by "ns/name" (namespaced) or "name" (cluster-scoped).
 * Bytewise key order is the order of the etcd keys under
 * /registry/<resource>/, so LIST pages and continue tokens behave as
 * kube-apiserver's etcd3 storage. The table of MOCK_KIND_NAMESPACE doubles
 * as the set of existing namespaces: a namespaced create checks for the key
 * "<ns>" there, whichever mock_resource describes namespaces.
 *
 * Each entry keeps the object's compact JSON (kind and apiVersion first),
 * the offset of the first member after them (a List item is "{" + that
 * tail, without TypeMeta like the apiserver's), its uid and resourceVersion,
 * metadata.labels as JSON text and the values of the kind's selectable fields.
 * No json-c tree of the object is kept; an update parses the stored JSON
 * once, for the write hook and the fields the server keeps.
 *
 * The store is one module split over files of one job each, around
 * store_internal.h (its types and the mock__store_ helpers the files
 * share): this file the tables and their entries, lifecycle, the clock,
 * the observer and the counters; store_read.c GET and the walks under one
 * read lock; store_write.c create and update with their preconditions and
 * the write hook; store_delete.c delete, deletecollection and namespace
 * deletion; store_list.c LIST with selectors and continue tokens;
 * store_restore.c the state file's side (restore and dump); store_rewind.c
 * saving the whole state and going back to it (in-process harnesses). */
#include "store_internal.h"

#include <inttypes.h>
#include <nodelet/errors.h>
#include <nodelet/json_text.h>
#include <nodelet/meta.h>
#include <nodelet/quote.h>
#include <nodelet/time.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------
 * Small helpers */

static int64_t wall_now(void *payload)
{
	(void)payload;
	return nl_time_now();
}

/* Hand status to the caller (or drop it) and return code. */
int mock__store_fail(nl_status **st, nl_status *status, int code)
{
	if (st)
		*st = status;
	else
		nl_status_free(status);
	return code;
}

int mock__store_fail_nomem(nl_status **st)
{
	return mock__store_fail(st, nl_status_internal("out of memory"), NL_ENOMEM);
}

nl_gr mock__store_gr_of(const mock_resource *r)
{
	nl_gr gr = {r->group, r->plural};
	return gr;
}

void mock__store_rv_string(char out[RV_BUFSZ], uint64_t rv)
{
	snprintf(out, RV_BUFSZ, "%" PRIu64, rv);
}

/* strconv.ParseUint(s, 10, 64): 0, or 1 for a syntax error, 2 for overflow
 * (Go stops at the first overflowing digit, so "99..9x" is out of range). */
int mock__store_parse_uint_go(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	if (!*s)
		return 1;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return 1;
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return 2;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* "strconv.ParseUint: parsing "abc": invalid syntax" */
void mock__store_parse_uint_error(char *out, size_t outlen, const char *s, int why)
{
	char q[96];
	nl_quote_str(q, sizeof(q), s);
	snprintf(out, outlen, "strconv.ParseUint: parsing %s: %s", q,
	         why == 2 ? "value out of range" : "invalid syntax");
}

const char *mock__store_str_member(json_object *o, const char *key)
{
	json_object *v = NULL;
	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* obj.metadata, created (or replaced when not an object) as needed. */
json_object *mock__store_meta_of(json_object *obj)
{
	json_object *m = NULL;
	if (json_object_object_get_ex(obj, "metadata", &m) &&
	    json_object_is_type(m, json_type_object))
		return m;
	m = json_object_new_object();
	if (!m || json_object_object_add(obj, "metadata", m) != 0) {
		json_object_put(m);
		return NULL;
	}
	return m;
}

int mock__store_set_string(json_object *o, const char *key, const char *value)
{
	json_object *v = json_object_new_string(value);
	if (!v || json_object_object_add(o, key, v) != 0) {
		json_object_put(v);
		return NL_ENOMEM;
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * Keys and tables */

char *mock__store_key_new(const mock_resource *r, const char *ns, const char *name)
{
	size_t nl = strlen(name);
	size_t sl = r->namespaced ? strlen(ns ? ns : "") + 1 : 0;
	char *k = malloc(sl + nl + 1);
	if (!k)
		return NULL;
	if (sl) {
		memcpy(k, ns ? ns : "", sl - 1);
		k[sl - 1] = '/';
	}
	memcpy(k + sl, name, nl + 1);
	return k;
}

/* Compare the C string a with the (b, blen) byte string; b may hold a NUL
 * (a continue token's start is "<last key>\0"). */
static int key_cmp(const char *a, const char *b, size_t blen)
{
	size_t alen = strlen(a);
	int c = memcmp(a, b, alen < blen ? alen : blen);
	if (c)
		return c;
	return alen < blen ? -1 : alen > blen;
}

/* Index of the first entry whose key is >= (k, klen). */
size_t mock__store_lower_bound(const table *t, const char *k, size_t klen)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (key_cmp(t->v[mid]->key, k, klen) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

obj_entry *mock__store_table_find(const table *t, const char *key, size_t *pos)
{
	size_t klen = strlen(key);
	size_t i = mock__store_lower_bound(t, key, klen);
	if (pos)
		*pos = i;
	return i < t->n && strcmp(t->v[i]->key, key) == 0 ? t->v[i] : NULL;
}

int mock__store_table_reserve(table *t, size_t n)
{
	if (n <= t->cap)
		return 0;
	size_t cap = t->cap ? t->cap * 2 : 16;
	while (cap < n)
		cap *= 2;
	obj_entry **v = realloc(t->v, cap * sizeof(*v));
	if (!v)
		return NL_ENOMEM;
	t->v = v;
	t->cap = cap;
	return 0;
}

/* Room must have been reserved. */
void mock__store_table_insert(table *t, size_t pos, obj_entry *e)
{
	memmove(t->v + pos + 1, t->v + pos, (t->n - pos) * sizeof(*t->v));
	t->v[pos] = e;
	t->n++;
}

void mock__store_table_remove(table *t, size_t pos)
{
	memmove(t->v + pos, t->v + pos + 1, (t->n - pos - 1) * sizeof(*t->v));
	t->n--;
	t->removed++;
}

table *mock__store_table_of(mock_store *s, const mock_resource *r)
{
	return &s->t[r->id];
}

int mock__store_valid_resource(const mock_resource *r)
{
	return r && (unsigned)r->id < MOCK_KIND_COUNT;
}

/* ------------------------------------------------------------------------
 * Entries: serialized object plus index fields */

void mock__store_entry_free(obj_entry *e)
{
	if (!e)
		return;
	free(e->json);
	free(e->labels);
	for (uint16_t i = 0; i < e->nfields; i++)
		free(e->fields[i]);
	free(e->fields);
	free(e);
}

static size_t count_fields(const mock_resource *r)
{
	size_t n = 0;
	for (const char *const *f = r->selectable_fields; f && *f; f++)
		n++;
	return n;
}

static const char *const top_order[] = {"kind", "apiVersion", "metadata", NULL};
/* ObjectMeta's field order in Go, which is the order the apiserver emits. */
static const char *const meta_order[] = {"name",
                                         "generateName",
                                         "namespace",
                                         "selfLink",
                                         "uid",
                                         "resourceVersion",
                                         "generation",
                                         "creationTimestamp",
                                         "deletionTimestamp",
                                         "deletionGracePeriodSeconds",
                                         "labels",
                                         "annotations",
                                         "ownerReferences",
                                         "finalizers",
                                         "managedFields",
                                         NULL};

static int in_list(const char *key, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(key, *list) == 0)
			return 1;
	return 0;
}

static int add_ref(json_object *dst, const char *key, json_object *v)
{
	json_object *ref = json_object_get(v);
	if (json_object_object_add(dst, key, ref) != 0) {
		json_object_put(ref);
		return NL_ENOMEM;
	}
	return 0;
}

/* A shallow copy of src with the keys of order first: json-c emits members
 * in insertion order, and the apiserver emits Go struct order. */
static json_object *ordered_copy(json_object *src, const char *const *order)
{
	json_object *dst = json_object_new_object();
	json_object *v = NULL;
	if (!dst)
		return NULL;
	for (const char *const *k = order; *k; k++)
		if (json_object_object_get_ex(src, *k, &v) && add_ref(dst, *k, v) != 0)
			goto fail;
	json_object_object_foreach(src, key, val)
	{
		if (!in_list(key, order) && add_ref(dst, key, val) != 0)
			goto fail;
	}
	return dst;
fail:
	json_object_put(dst);
	return NULL;
}

/* Whether ordered_copy(o, order) would list o's members in o's own order:
 * the keys of order come first, in order. */
static int ordered(json_object *o, const char *const *order)
{
	const char *const *next = order;
	int prefix = 1;
	json_object_object_foreach(o, key, val)
	{
		(void)val;
		if (!in_list(key, order)) {
			prefix = 0;
			continue;
		}
		while (prefix && *next && strcmp(*next, key) != 0)
			next++;
		if (!prefix || !*next)
			return 0;
		next++;
	}
	return 1;
}

/* obj serialized with kind, apiVersion and metadata (in ObjectMeta order)
 * first. The returned tree shares obj's values; the string lives as long
 * as *holder, which the caller puts. A decoded object usually is in that
 * order already: then it is serialized as it is, without copies. */
static const char *serialize(json_object *obj, json_object **holder, size_t *len)
{
	json_object *m = NULL;
	if (ordered(obj, top_order) &&
	    (!json_object_object_get_ex(obj, "metadata", &m) ||
	     !json_object_is_type(m, json_type_object) || ordered(m, meta_order))) {
		*holder = json_object_get(obj);
		return json_object_to_json_string_length(obj, JSON_FLAGS, len);
	}
	json_object *top = ordered_copy(obj, top_order);
	if (!top)
		return NULL;
	if (json_object_object_get_ex(top, "metadata", &m) &&
	    json_object_is_type(m, json_type_object)) {
		json_object *om = ordered_copy(m, meta_order);
		if (!om || json_object_object_add(top, "metadata", om) != 0) {
			json_object_put(om);
			json_object_put(top);
			return NULL;
		}
	}
	*holder = top;
	return json_object_to_json_string_length(top, JSON_FLAGS, len);
}

/* Where the members after kind and apiVersion start: the stored JSON begins
 * {"kind":"<kind>","apiVersion":"<apiVersion>", and neither value needs
 * escaping. */
size_t mock__store_body_offset(const mock_resource *r)
{
	return strlen("{\"kind\":\"") + strlen(r->kind) + strlen("\",\"apiVersion\":\"") +
	       strlen(r->api_version) + strlen("\",");
}

static int entry_index(obj_entry *e, const mock_resource *r, json_object *obj)
{
	json_object *labels = nl_json_get_path(obj, "metadata.labels");
	if (json_object_is_type(labels, json_type_object) &&
	    json_object_object_length(labels) > 0 &&
	    !(e->labels = strdup(json_object_to_json_string_ext(labels, JSON_FLAGS))))
		return NL_ENOMEM;
	size_t n = count_fields(r);
	if (n == 0)
		return 0;
	e->fields = calloc(n, sizeof(*e->fields));
	if (!e->fields)
		return NL_ENOMEM;
	e->nfields = (uint16_t)n;
	for (size_t i = 0; i < n; i++)
		if (mock_resource_field_value(&e->fields[i], r, obj, r->selectable_fields[i]) != 0)
			return NL_ENOMEM;
	return 0;
}

/* A new entry for obj, whose server-set metadata is complete. */
int mock__store_entry_new(obj_entry **out, const mock_resource *r, const char *key,
                          json_object *obj, uint64_t rv, const char *uid)
{
	json_object *holder = NULL;
	size_t len = 0, off = mock__store_body_offset(r), klen = strlen(key);
	int rc = NL_ENOMEM;
	obj_entry *e = calloc(1, sizeof(*e) + klen + 1);
	if (!e)
		return NL_ENOMEM;
	memcpy(e->key, key, klen + 1);
	snprintf(e->uid, sizeof(e->uid), "%s", uid);
	e->rv = rv;
	const char *js = serialize(obj, &holder, &len);
	if (!js)
		goto fail;
	if (len > UINT32_MAX || len <= off || js[off - 1] != ',' || js[off] != '"') {
		rc = NL_ERROR;
		goto fail;
	}
	e->json = malloc(len + 1);
	if (!e->json)
		goto fail;
	memcpy(e->json, js, len + 1);
	e->len = (uint32_t)len;
	e->body_off = (uint32_t)off;
	if ((rc = entry_index(e, r, obj)) != 0)
		goto fail;
	json_object_put(holder);
	*out = e;
	return 0;
fail:
	json_object_put(holder);
	mock__store_entry_free(e);
	return rc;
}

int mock__store_dup_bytes(char **out, size_t *len_out, const char *s, size_t len)
{
	char *c = malloc(len + 1);
	if (!c)
		return NL_ENOMEM;
	memcpy(c, s, len);
	c[len] = '\0';
	*out = c;
	if (len_out)
		*len_out = len;
	return 0;
}

int mock__store_rv_span(const char *json, size_t len, size_t *off, size_t *vlen)
{
	const char *v = NULL;
	size_t n = 0;
	/* Member by member (nodelet/json_text.h): a key that merely looks
	 * alike inside another member's value never matches. */
	if (nl_json_text_member(&v, &n, json, len, "metadata.resourceVersion") != 0 || n < 2 ||
	    v[0] != '"')
		return NL_ENOTFOUND;
	*off = (size_t)(v + 1 - json);
	*vlen = n - 2;
	return 0;
}

int mock__store_splice_rv(char **out, size_t *len_out, const char *json, size_t len, size_t off,
                          size_t vlen, uint64_t rv)
{
	char rvs[RV_BUFSZ];
	mock__store_rv_string(rvs, rv);
	size_t rl = strlen(rvs), n = len - vlen + rl;
	char *c = malloc(n + 1);
	if (!c)
		return NL_ENOMEM;
	memcpy(c, json, off);
	memcpy(c + off, rvs, rl);
	memcpy(c + off + rl, json + off + vlen, len - off - vlen);
	c[n] = '\0';
	*out = c;
	if (len_out)
		*len_out = n;
	return 0;
}

/* Write-ahead: the change reaches the state file before memory, so a write
 * the file refused was never acknowledged or seen by a watcher. */
int mock__store_persist(mock_store *s, const mock_resource *r, mock_store_event ev, const char *key,
                        const char *json, size_t len, uint64_t rv)
{
	return s->persist ? s->persist(r, ev, key, json, len, rv, s->persist_payload) : 0;
}

int mock__store_fail_persist(nl_status **st)
{
	return mock__store_fail(st, nl_status_internal("cannot write the change to the state file"),
	                        NL_EIO);
}

void mock__store_notify(mock_store *s, const mock_resource *r, mock_store_event ev,
                        const char *json, size_t len, const obj_entry *old, uint64_t rv)
{
	if (s->observer)
		s->observer(r, ev, json, len, old ? old->json : NULL, old ? old->len : 0, rv,
		            s->observer_payload);
}

/* ------------------------------------------------------------------------
 * Lifecycle, the observer and the counters */

int mock_store_new(mock_store **out, mock_now_fn now, void *now_payload)
{
	pthread_rwlockattr_t attr;
	mock_store *s = calloc(1, sizeof(*s));
	if (!s)
		return NL_ENOMEM;
	if (pthread_rwlockattr_init(&attr) != 0) {
		free(s);
		return NL_ERROR;
	}
	/* A steady stream of LISTs must not starve writers (0002-store.md). */
	pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	int rc = pthread_rwlock_init(&s->lock, &attr);
	pthread_rwlockattr_destroy(&attr);
	if (rc != 0) {
		free(s);
		return NL_ERROR;
	}
	s->now = now ? now : wall_now;
	s->now_payload = now_payload;
	*out = s;
	return 0;
}

void mock_store_free(mock_store *s)
{
	if (!s)
		return;
	for (int k = 0; k < MOCK_KIND_COUNT; k++) {
		for (size_t i = 0; i < s->t[k].n; i++)
			mock__store_entry_free(s->t[k].v[i]);
		free(s->t[k].v);
	}
	pthread_rwlock_destroy(&s->lock);
	free(s);
}

void mock_store_set_observer(mock_store *s, mock_store_observer fn, void *payload)
{
	pthread_rwlock_wrlock(&s->lock);
	s->observer = fn;
	s->observer_payload = payload;
	pthread_rwlock_unlock(&s->lock);
}

int64_t mock_store_now(mock_store *s)
{
	return s->now(s->now_payload);
}

uint64_t mock_store_rv(mock_store *s)
{
	pthread_rwlock_rdlock(&s->lock);
	uint64_t rv = s->rv;
	pthread_rwlock_unlock(&s->lock);
	return rv;
}

size_t mock_store_count(mock_store *s, const mock_resource *r)
{
	if (!mock__store_valid_resource(r))
		return 0;
	pthread_rwlock_rdlock(&s->lock);
	size_t n = mock__store_table_of(s, r)->n;
	pthread_rwlock_unlock(&s->lock);
	return n;
}
