/* The in-memory object store.
 *
 * Each object is kept as its serialized JSON (so GET and LIST copy bytes and
 * never re-serialize) plus the few fields it is indexed by: key, uid,
 * resourceVersion, labels and selectable fields. One global resourceVersion
 * counter orders every write across kinds, as etcd's revision does.
 *
 * Concurrency: one writer-preferring rwlock over the whole store. Reads copy
 * bytes under the read lock; a write computes outside any lock and holds
 * the write lock only to commit if the object is unchanged (copying bytes,
 * the state file, the observer), so a read never waits behind more than
 * one commit. See docs/decisions/0002-store.md and 0027. */
#ifndef MOCK_STORE_H
#define MOCK_STORE_H

#include <json-c/json.h>
#include <nodelet/buf.h>
#include <nodelet/selector.h>
#include <nodelet/status.h>
#include <stdint.h>

#include "api/resources.h"

typedef struct mock_store mock_store;

/* Clock for creationTimestamp; microseconds since the epoch. */
typedef int64_t (*mock_now_fn)(void *payload);

/* A new empty store (no namespaces). now NULL means the wall clock.
 * Namespaces are the objects stored under the resource whose id is
 * MOCK_KIND_NAMESPACE: a namespaced create needs its namespace there. */
int mock_store_new(mock_store **out, mock_now_fn now, void *now_payload);
void mock_store_free(mock_store *s);

typedef enum {
	MOCK_STORE_ADDED,
	MOCK_STORE_MODIFIED,
	MOCK_STORE_DELETED,
} mock_store_event;

/* Called under the write lock for every committed change, including the
 * objects a namespace deletion removes, so a watch hub sees each change once
 * and in resourceVersion order. json is the object as stored (kind and
 * apiVersion first; for DELETED the last state carrying the deletion
 * resourceVersion), old_json the previous state (NULL when ADDED). Both are
 * borrowed for the call. It must not call back into the store. */
typedef void (*mock_store_observer)(const mock_resource *r, mock_store_event ev, const char *json,
                                    size_t len, const char *old_json, size_t old_len, uint64_t rv,
                                    void *payload);
/* Install the observer (fn NULL removes it). */
void mock_store_set_observer(mock_store *s, mock_store_observer fn, void *payload);

/* The current global resourceVersion (the last one assigned). */
uint64_t mock_store_rv(mock_store *s);
/* The store's clock (microseconds since the epoch), which creationTimestamp
 * comes from; managedFields times use it too. */
int64_t mock_store_now(mock_store *s);
/* Number of objects of one kind (all namespaces). */
size_t mock_store_count(mock_store *s, const mock_resource *r);

/* Copy the object's JSON (with kind and apiVersion) into *out (caller
 * frees). 0, or NL_ENOTFOUND with a 404 Status in *st (caller frees). */
int mock_store_get(mock_store *s, const mock_resource *r, const char *ns, const char *name,
                   char **out, size_t *len_out, nl_status **st);

typedef struct {
	const char *ns;                  /* NULL: all namespaces (or cluster-scoped) */
	const nl_label_selector *labels; /* NULL: everything */
	const nl_field_selector *fields; /* NULL: everything */
	size_t limit;                    /* 0: no limit */
	const char *continue_token;      /* from a previous page, or NULL */
	const char *resource_version;    /* list RV semantics; NULL/"" = latest */
	/* The compaction horizon (the watch ring's oldest resumable rv): a
	 * continue token of an older resourceVersion is expired. 0: none. */
	uint64_t compacted_below;
} mock_list_opts;

/* Append a complete <Kind>List JSON document to out: metadata.resourceVersion
 * (and continue / remainingItemCount when limited), items in key order
 * without kind/apiVersion. Continue tokens are the apiserver's (base64url of
 * {"v","rv","start"}); later pages report the token's resourceVersion. With
 * resourceVersion "0" the limit is ignored, as the watch cache does. Errors
 * come back as a Status in *st: a field selector on an unsupported field,
 * a bad continue token or resourceVersion: 400; a resourceVersion newer
 * than the store: 504; a continue token older than o->compacted_below:
 * etcd3's 410 Expired for a compacted paging list, whose Status carries in
 * continue_token a token for the rest at the latest resourceVersion. On
 * error out is left as it was. */
int mock_store_list(mock_store *s, const mock_resource *r, const mock_list_opts *o, nl_buf *out,
                    nl_status **st);

/* Write hook, called with no store lock held once the store has read the
 * current object and checked existence, preconditions and resourceVersion
 * (it may read the store). obj is the object about to be stored (mutable:
 * the hook may reset fields, e.g. Node status on a main-resource update);
 * old is a parsed copy of the stored object (borrowed, NULL when creating).
 * When the object changes before the commit, the update starts over: obj
 * is restored to what the caller passed and the hook runs again with the
 * fresh old (GuaranteedUpdate's retry). Return NULL to proceed or a Status
 * to refuse the write (the store takes ownership and returns it). */
typedef nl_status *(*mock_write_hook)(json_object *obj, json_object *old, void *payload);

typedef enum {
	MOCK_WRITE_CREATE, /* POST: 409 AlreadyExists when present */
	MOCK_WRITE_UPDATE, /* PUT: the resource's create-on-update / unconditional rules */
} mock_write_op;

/* Store obj (decoded; borrowed, modified in place with the server-set
 * metadata) as metadata.namespace/metadata.name. Checks in kube-apiserver's
 * order. On create: 404 when the namespace does not exist, the hook, 500
 * for a numeric non-zero resourceVersion in the body, 409 AlreadyExists. On
 * update: 409 when the body's uid differs from the stored one (also when
 * the object is gone), 404 (or create when the kind allows create-on-update,
 * then 404 for a missing namespace), 500 for an unparsable resourceVersion,
 * missing resourceVersion 422 (unless unconditional updates are allowed),
 * stale resourceVersion 409, then the hook; an update whose object changed
 * meanwhile starts over (at most 1,000 times, then 409). Server-set: uid
 * (UUID v4) and
 * creationTimestamp on create (kept from the stored object on update, as is
 * generation), kind and apiVersion from r, resourceVersion always; selfLink
 * is dropped. On success *out receives the stored JSON (caller frees; out
 * may be NULL) and *created whether the object was created (may be NULL). */
int mock_store_write(mock_store *s, const mock_resource *r, mock_write_op op, json_object *obj,
                     mock_write_hook hook, void *payload, char **out, size_t *len_out, int *created,
                     nl_status **st);

/* Flags for mock_store_write_ex and mock_store_delete_ex. */
/* dryRun=All: every check and the hook run, nothing is stored, no
 * resourceVersion is taken and no observer is called. *out holds what would
 * be stored: without resourceVersion on create, with the current one on
 * update; a delete answers the current object. */
#define MOCK_WRITE_F_DRY_RUN 0x1u
/* An update that would store exactly the stored bytes (resourceVersion
 * aside) is not written: no new resourceVersion, no event, *out is the
 * stored object. etcd3's GuaranteedUpdate does this for every update; PATCH
 * asks for it (PUT keeps bumping, which clients of this mock rely on). */
#define MOCK_WRITE_F_SKIP_NOOP 0x2u

/* A DELETE's propagation policy, for mock_store_delete_ex (none of them:
 * the DELETE named none, and the finalizers the object has decide, as
 * deletionFinalizersForGarbageCollection does). Orphan (propagationPolicy
 * Orphan, orphanDependents true) puts the "orphan" finalizer on the object,
 * Foreground "foregroundDeletion", Background (or orphanDependents false)
 * removes both; the garbage collector then finishes them. */
#define MOCK_DELETE_F_ORPHAN 0x4u
#define MOCK_DELETE_F_FOREGROUND 0x8u
#define MOCK_DELETE_F_BACKGROUND 0x10u

/* mock_store_write with flags (MOCK_WRITE_F_*). */
int mock_store_write_ex(mock_store *s, const mock_resource *r, mock_write_op op, unsigned flags,
                        json_object *obj, mock_write_hook hook, void *payload, char **out,
                        size_t *len_out, int *created, nl_status **st);

/* Delete ns/name if the optional preconditions (uid, resourceVersion; NULL =
 * none) hold: 404 / 409 as kube-apiserver. The deletion takes the next
 * resourceVersion. An object (not a namespace) with metadata.finalizers is
 * not removed but marked as being deleted, as the generic registry does:
 * deletionTimestamp (kept when set already), deletionGracePeriodSeconds 0,
 * a MODIFIED change (none when it is marked already). A namespace follows
 * its registry (store_namespace.c): the first DELETE makes it Terminating
 * and keeps it, with its own 409 texts for the preconditions; its content
 * is the namespace controller's to delete. On success *out gets the
 * deleted object's last state with the deletion resourceVersion (a
 * namespace: as it was before), or the marked object (caller frees; out
 * may be NULL). */
int mock_store_delete(mock_store *s, const mock_resource *r, const char *ns, const char *name,
                      const char *pre_uid, const char *pre_rv, char **out, size_t *len_out,
                      nl_status **st);
/* mock_store_delete with flags (MOCK_DELETE_F_*; MOCK_WRITE_F_DRY_RUN: the checks only, *out
 * the object as it is or would be marked); *deleted (may be NULL) gets 1
 * when the object was (or would be) removed, 0 when it is kept for its
 * finalizers. */
int mock_store_delete_ex(mock_store *s, const mock_resource *r, const char *ns, const char *name,
                         unsigned flags, const char *pre_uid, const char *pre_rv, char **out,
                         size_t *len_out, int *deleted, nl_status **st);

/* mock_store_delete_ex with the request's gracePeriodSeconds (NULL: not
 * given), for kinds with graceful deletion (r->grace_period, pods): a pod
 * bound to a node is marked with deletionTimestamp now + its grace period
 * and kept (*deleted 0); a second DELETE may only shorten the period. */
int mock_store_delete_grace(mock_store *s, const mock_resource *r, const char *ns, const char *name,
                            unsigned flags, const int64_t *grace, const char *pre_uid,
                            const char *pre_rv, char **out, size_t *len_out, int *deleted,
                            nl_status **st);

/* Delete every object (the control API's reset): each deletion takes the
 * next resourceVersion and reaches the observer as DELETED, namespaced
 * objects before namespaces; the counter never goes back. */
int mock_store_clear(mock_store *s);

/* Delete every object the list options select (limit, continue and
 * resourceVersion ignored) and append a <Kind>List of what was deleted to
 * out, each item with its deletion resourceVersion (an object with
 * finalizers is marked as by mock_store_delete, and listed as marked). */
int mock_store_delete_collection(mock_store *s, const mock_resource *r, const mock_list_opts *o,
                                 nl_buf *out, nl_status **st);

/* Parse the current object into *out (new reference) for callers that need
 * the tree (fixtures, tests). NL_ENOTFOUND when absent. */
int mock_store_get_object(mock_store *s, const mock_resource *r, const char *ns, const char *name,
                          json_object **out);
/* Copy the object's uid into out (at least 37 bytes) without copying the
 * object: the garbage collector's owner check. 0 or NL_ENOTFOUND. */
int mock_store_uid(mock_store *s, const mock_resource *r, const char *ns, const char *name,
                   char *out, size_t outlen);

/* Visitor for mock_store_visit: one object's stored JSON (kind and
 * apiVersion first), borrowed for the call. Non-zero stops the walk. */
typedef int (*mock_store_visit_fn)(const char *json, size_t len, void *payload);

/* The snapshot a watch starts from: under one read lock, call fn (may be
 * NULL) for every object the options select (namespace, labels, fields;
 * limit and continue ignored), in key order, and set *rv_out to the
 * resourceVersion of that state. The options are checked as by
 * mock_store_list (400 for an unsupported field or a malformed
 * resourceVersion, 504 for one newer than the store). fn runs under the
 * lock and must not call into the store. Returns fn's non-zero result. */
int mock_store_visit(mock_store *s, const mock_resource *r, const mock_list_opts *o,
                     mock_store_visit_fn fn, void *payload, uint64_t *rv_out, nl_status **st);

/* For controllers that look only at what changed (controllers.h): one
 * object's key ("ns/name" or "name"), resourceVersion and JSON, borrowed for
 * the call. Non-zero stops the walk. */
typedef int (*mock_store_since_fn)(const char *key, uint64_t rv, const char *json, size_t len,
                                   void *payload);
/* Where mock_store_visit_since left a kind: the store's resourceVersion,
 * how many of the kind's objects were ever removed (only grows), and how
 * many there are. */
typedef struct {
	uint64_t rv;
	uint64_t removed;
	size_t count;
} mock_store_mark;
/* Under one read lock: fn (may be NULL) for every object of r whose
 * resourceVersion is above since (every object for 0), in key order, then
 * *mark. The scan compares integers only, so a caller that remembers the
 * last mark parses just what changed. fn must not call into the store.
 * Returns fn's non-zero result. */
int mock_store_visit_since(mock_store *s, const mock_resource *r, uint64_t since,
                           mock_store_since_fn fn, void *payload, mock_store_mark *mark);

/* ------------------------------------------------------------------------
 * Persistence hooks (persist.h owns the state file; nothing else calls
 * these). */

/* Called under the write lock for every change BEFORE it is applied in
 * memory, in resourceVersion order: key is "ns/name" or "name", json the
 * object as it will be stored (NULL for DELETED). Non-zero refuses the
 * write (500 InternalError; nothing changes), so a change the state file
 * did not take is never acknowledged nor seen by a watcher. */
typedef int (*mock_store_persist_fn)(const mock_resource *r, mock_store_event ev, const char *key,
                                     const char *json, size_t len, uint64_t rv, void *payload);
/* Install the hook (fn NULL removes it). */
void mock_store_set_persist(mock_store *s, mock_store_persist_fn fn, void *payload);

/* Insert or replace an object read back from a state file, as stored
 * (metadata.uid and resourceVersion kept; no hook, observer or checks
 * beyond what keeps the store sound). The counter moves up to its
 * resourceVersion. 0, or NL_EPARSE with *why (static text; why may be
 * NULL) for JSON that is not a storable object of r. */
int mock_store_restore_put(mock_store *s, const mock_resource *r, const char *json, size_t len,
                           const char **why);
/* Remove a restored object by key. 0, or NL_ENOTFOUND. */
int mock_store_restore_delete(mock_store *s, const mock_resource *r, const char *key);
/* Move the counter up to rv (never down). */
void mock_store_advance_rv(mock_store *s, uint64_t rv);

/* ------------------------------------------------------------------------
 * Going back (in-process harnesses: the fuzz targets run thousands of
 * sessions on one server). Nothing else calls these: a client would see
 * resourceVersions go back. */

typedef struct mock_store_saved mock_store_saved;
/* A copy of every object and the counter. *out: mock_store_saved_free.
 * 0 or NL_ENOMEM. */
int mock_store_save(mock_store_saved **out, mock_store *s);
/* Put back exactly what saved holds (objects, uids, resourceVersions, the
 * counter, which may go down) without telling the observer or the state
 * file: whoever observes must forget what it saw (mock_watch_hub_rewind).
 * 0, or NL_ENOMEM with the store unchanged. */
int mock_store_rewind(mock_store *s, const mock_store_saved *saved);
void mock_store_saved_free(mock_store_saved *saved);

/* One stored object for mock_store_dump (borrowed for the call). */
typedef int (*mock_store_dump_fn)(const mock_resource *r, const char *key, const char *json,
                                  size_t len, uint64_t rv, void *payload);
/* Called after the last object, still under the lock, with the
 * resourceVersion of the state just walked. */
typedef int (*mock_store_dump_end_fn)(uint64_t rv, void *payload);
/* Every object of every kind under one read lock (writers wait), then end
 * (may be NULL). The callbacks must not call into the store. Returns the
 * first non-zero result of fn or end. */
int mock_store_dump(mock_store *s, mock_store_dump_fn fn, mock_store_dump_end_fn end,
                    void *payload);

#endif
