/* The object store's private parts, shared by the files it is split into
 * (store.c's opening comment lists them): the table and entry types, the
 * list plan and the mock__store_ helpers more than one of them calls.
 * Tables are guarded by mock_store.lock. Only mockapi/storage/store*.c
 * include this. */
#ifndef MOCK_STORE_INTERNAL_H
#define MOCK_STORE_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "core/uuid.h"
#include "store.h"

#define JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
#define RV_BUFSZ 24

/* One stored object: its JSON and what it is looked up and selected by. */
typedef struct obj_entry {
	char *json; /* NUL-terminated */
	uint32_t len;
	uint32_t body_off; /* first member after kind/apiVersion */
	uint64_t rv;
	/* metadata.labels as compact JSON, NULL when none. Not a json-c copy:
	 * that costs ~850 bytes per object (json-c's 16-bucket table), about
	 * as much as the object itself; only label-selector LISTs parse the
	 * text, ~1 us per object scanned (tests/bench, docs/benchmarks.md). */
	char *labels;
	char **fields; /* r->selectable_fields values; an element may be NULL */
	uint16_t nfields;
	char uid[MOCK_UUID_LEN + 1];
	char key[]; /* "ns/name" or "name" */
} obj_entry;

/* The objects of one kind, sorted by key (etcd's key order). */
typedef struct {
	const mock_resource *r; /* set by the first write */
	obj_entry **v;
	size_t n, cap;
	uint64_t removed; /* objects removed so far: mock_store_visit_since */
} table;

struct mock_store {
	pthread_rwlock_t lock;
	uint64_t rv;
	table t[MOCK_KIND_COUNT];
	mock_now_fn now;
	void *now_payload;
	mock_store_observer observer;
	void *observer_payload;
	mock_store_persist_fn persist; /* persist.h: the state file, or NULL */
	void *persist_payload;
};

/* What mock__store_plan_list makes of the list options, outside the lock. */
typedef struct {
	uint64_t min_rv;  /* requested resourceVersion, 0 = any */
	int whole;        /* resourceVersion=0: the watch cache ignores limit */
	int64_t token_rv; /* from a continue token; 0 = no token */
	char *start;      /* token's start key, relative to the list's prefix */
	size_t start_len; /* it ends in a NUL byte */
	int selector;     /* label or field terms present */
	const char *ns;   /* namespace range, or NULL for all */
	const char *name; /* metadata.name the field selector pins, or NULL */
} list_plan;

/* Answers: hand a Status to the caller and return its error code; the
 * resourceVersion text and Go's strconv.ParseUint with its error text;
 * small json-c helpers (store.c). */
int mock__store_fail(nl_status **st, nl_status *status, int code);
int mock__store_fail_nomem(nl_status **st);
nl_gr mock__store_gr_of(const mock_resource *r);
void mock__store_rv_string(char out[RV_BUFSZ], uint64_t rv);
int mock__store_parse_uint_go(const char *s, uint64_t *out);
void mock__store_parse_uint_error(char *out, size_t outlen, const char *s, int why);
const char *mock__store_str_member(json_object *o, const char *key);
json_object *mock__store_meta_of(json_object *obj);
int mock__store_set_string(json_object *o, const char *key, const char *value);

/* Keys and tables (store.c). The caller holds the lock. */
char *mock__store_key_new(const mock_resource *r, const char *ns, const char *name);
size_t mock__store_lower_bound(const table *t, const char *k, size_t klen);
obj_entry *mock__store_table_find(const table *t, const char *key, size_t *pos);
int mock__store_table_reserve(table *t, size_t n);
void mock__store_table_insert(table *t, size_t pos, obj_entry *e);
void mock__store_table_remove(table *t, size_t pos);
table *mock__store_table_of(mock_store *s, const mock_resource *r);
int mock__store_valid_resource(const mock_resource *r);

/* Entries (store.c): an object serialized and indexed, and the copy a
 * reader takes. */
void mock__store_entry_free(obj_entry *e);
size_t mock__store_body_offset(const mock_resource *r);
int mock__store_entry_new(obj_entry **out, const mock_resource *r, const char *key,
                          json_object *obj, uint64_t rv, const char *uid);
int mock__store_dup_bytes(char **out, size_t *len_out, const char *s, size_t len);
/* Where metadata.resourceVersion's value (the text between its quotes)
 * sits in an entry's JSON: *off and *vlen. 0, or NL_ENOTFOUND. */
int mock__store_rv_span(const char *json, size_t len, size_t *off, size_t *vlen);
/* json with the vlen bytes at off replaced by rv in decimal (caller frees):
 * a new resourceVersion by copying bytes, without a parse. */
int mock__store_splice_rv(char **out, size_t *len_out, const char *json, size_t len, size_t off,
                          size_t vlen, uint64_t rv);

/* A change under the write lock (store.c): write-ahead to the state file
 * (non-zero: refused, answer with mock__store_fail_persist), then the
 * observer once it is applied. */
int mock__store_persist(mock_store *s, const mock_resource *r, mock_store_event ev, const char *key,
                        const char *json, size_t len, uint64_t rv);
int mock__store_fail_persist(nl_status **st);
void mock__store_notify(mock_store *s, const mock_resource *r, mock_store_event ev,
                        const char *json, size_t len, const obj_entry *old, uint64_t rv);

/* Deletion (store_delete.c): remove t->v[pos] with the next
 * resourceVersion, write-ahead and the DELETED event; *json_out (may be
 * NULL) gets its last state with the deletion resourceVersion. NL_EIO when
 * the state file refused it. The caller holds the write lock. */
int mock__store_delete_at(mock_store *s, table *t, size_t pos, char **json_out, size_t *len_out);
/* Marking (store_finalize.c): put o (its resourceVersion already set to
 * rv) in place of t->v[pos] as a MODIFIED change, write-ahead and the
 * event; *out gets the stored text (caller frees). With dry, only *out.
 * Takes o. NL_EIO when the state file refused it, NL_ENOMEM. The caller
 * holds the write lock. */
int mock__store_replace_at(mock_store *s, table *t, size_t pos, json_object *o, uint64_t rv,
                           int dry, char **out, size_t *len_out);

/* Finalizers (store_finalize.c). Whether the stored text has a non-empty
 * metadata.finalizers. */
int mock__store_has_finalizers(const char *json, size_t len);
/* The garbage collector's finalizers on meta as the DELETE's policy
 * (MOCK_DELETE_F_* in flags) wants them; *changed when they changed. */
int mock__store_gc_finalizers(json_object *meta, unsigned flags, int *changed);
/* Whether a DELETE with flags keeps the stored text (it has finalizers, or
 * the policy adds one). */
int mock__store_delete_keeps(const char *json, size_t len, unsigned flags);
/* Under the write lock: the finalizers the policy wants, and t->v[pos]
 * marked as being deleted (markAsDeleting), stored as a MODIFIED change;
 * nothing is written when it is marked already, or for
 * MOCK_WRITE_F_DRY_RUN. *out (caller frees) gets the object as marked.
 * When the policy left no finalizer, nothing is done and 1 returned with
 * *deleted set: delete it now. NL_ENOMEM, or NL_EIO when the state file
 * refused it. */
int mock__store_mark_deleting(mock_store *s, table *t, size_t pos, unsigned flags, char **out,
                              size_t *len_out, int *deleted);
/* ShouldDeleteDuringUpdate: obj (the update) has no finalizers, old is
 * being deleted with no grace period or one of 0 (for a namespace:
 * spec.finalizers empty too). */
/* A DELETE of a kind with graceful deletion (r->grace_period), under the
 * write lock: marks the entry at pos with deletionTimestamp now + the
 * grace period and deletionGracePeriodSeconds, or shortens a pending one
 * (*out: the object, kept); 1 when it is to be deleted now the usual way
 * (no grace period); NL_ENOMEM, NL_EIO. requested: gracePeriodSeconds of
 * the request, NULL when not given. */
int mock__store_graceful_delete(mock_store *s, table *t, size_t pos, unsigned flags,
                                const int64_t *requested, char **out, size_t *len_out);
int mock__store_should_delete_on_update(const mock_resource *r, json_object *obj, json_object *old);
/* Whether the stored text has a metadata.deletionTimestamp. */
int mock__store_being_deleted(const char *json, size_t len);

/* Namespaces (store_namespace.c). Whether namespace ns exists and is
 * Terminating; the caller holds the lock. */
int mock__store_namespace_terminating(const mock_store *s, const char *ns);
/* NamespaceLifecycle's 403 for a create of r's name in the terminating ns
 * (NULL when out of memory). */
nl_status *mock__store_terminating_forbidden(const mock_resource *r, const char *name,
                                             const char *ns);
/* The namespace registry's DeleteOptions preconditions: 0, or NL_ECONFLICT
 * with its 409 in *st. */
int mock__store_namespace_preconditions(const obj_entry *e, const char *name, const char *pre_uid,
                                        const char *pre_rv, nl_status **st);
/* Under the write lock, preconditions checked: the namespace registry's
 * Delete of t->v[pos] (see store_namespace.c); *out (caller frees) the
 * answer, *deleted whether it was removed. NL_ENOMEM or NL_EIO. */
int mock__store_namespace_delete(mock_store *s, table *t, size_t pos, unsigned flags, char **out,
                                 size_t *len_out, int *deleted);

/* The selection of a LIST, a visit and a deletecollection, and the pieces
 * of a <Kind>List document (store_list.c). */
void mock__store_plan_free(list_plan *p);
int mock__store_plan_list(list_plan *p, const mock_resource *r, const mock_list_opts *o, int paging,
                          nl_status **st);
int mock__store_entry_matches(const mock_resource *r, const obj_entry *e, const mock_list_opts *o);
int mock__store_list_range(const table *t, const mock_resource *r, const list_plan *p, size_t *lo,
                           size_t *hi);
int mock__store_list_head(nl_buf *out, const mock_resource *r, uint64_t rv);
int mock__store_add_item(nl_buf *out, const char *json, size_t len, size_t body_off, int first);
int mock__store_list_failed(nl_buf *out, size_t mark, int rc, nl_status **st);

#endif
