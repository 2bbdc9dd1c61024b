/* Create and update (store.h: mock_store_write): kube-apiserver's checks in
 * its order (namespace, uid precondition, existence or create-on-update,
 * the body's resourceVersion) under the read lock, then under no lock the
 * server-set metadata, the write hook and the serialization, then the
 * commit under the write lock if the object is still the one read (else
 * the update starts over, as GuaranteedUpdate does): the resourceVersion
 * spliced in, write-ahead to the state file, the swap in the table, the
 * observer. dryRun and the no-op update skip the commit. See
 * docs/decisions/0027-optimistic-writes.md. */
#include "store_internal.h"

#include <nodelet/errors.h>
#include <nodelet/meta.h>
#include <nodelet/time.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/uuid.h"

/* The outcome of a successful write, copied out after the lock is released. */
typedef struct {
	char *json;
	size_t len;
	int created;
} write_result;

static int err_of_code(int code)
{
	switch (code) {
	case 400:
		return NL_EBADREQUEST;
	case 404:
		return NL_ENOTFOUND;
	case 409:
		return NL_ECONFLICT;
	case 410:
		return NL_EGONE;
	case 422:
		return NL_EINVALID;
	case 504:
		return NL_ETIMEOUT;
	default:
		return NL_ERROR;
	}
}

/* o[key] = a deep copy of src[key], or no o[key] when src has none. A
 * member o has keeps its place (json-c replaces in place): metadata stays
 * in Go order and needs no sorting later. */
static int copy_member(json_object *o, json_object *src, const char *key)
{
	json_object *v = NULL, *copy = NULL;
	if (!src || !json_object_object_get_ex(src, key, &v)) {
		json_object_object_del(o, key);
		return 0;
	}
	if (json_object_deep_copy(v, &copy, NULL) != 0)
		return NL_ENOMEM;
	if (json_object_object_add(o, key, copy) != 0) {
		json_object_put(copy);
		return NL_ENOMEM;
	}
	return 0;
}

static int namespace_exists(const mock_store *s, const char *ns)
{
	return mock__store_table_find(&s->t[MOCK_KIND_NAMESPACE], ns, NULL) != NULL;
}

typedef struct {
	mock_store *s;
	const mock_resource *r;
	json_object *obj;
	mock_write_hook hook;
	void *payload;
	const char *ns; /* namespaced kinds only */
	unsigned flags; /* MOCK_WRITE_F_* */
} write_req;

/* Server-owned metadata on create. kube-apiserver sets uid and
 * creationTimestamp (FillObjectMetaSystemFields) and clears the deletion
 * fields (BeforeCreate); selfLink is never stored. */
static int prepare_create(const write_req *w, const char *uid)
{
	char ts[NL_TIME_BUFSZ];
	json_object *m = mock__store_meta_of(w->obj);
	if (!m)
		return NL_ENOMEM;
	nl_time_format(ts, w->s->now(w->s->now_payload));
	json_object_object_del(m, "selfLink");
	json_object_object_del(m, "deletionTimestamp");
	json_object_object_del(m, "deletionGracePeriodSeconds");
	if (!w->r->namespaced)
		json_object_object_del(m, "namespace");
	if (mock__store_set_string(w->obj, "kind", w->r->kind) ||
	    mock__store_set_string(w->obj, "apiVersion", w->r->api_version) ||
	    mock__store_set_string(m, "uid", uid) ||
	    mock__store_set_string(m, "creationTimestamp", ts))
		return NL_ENOMEM;
	return 0;
}

/* An update never removes or moves a deletion mark (rest.BeforeUpdate);
 * setting or changing one is refused by upstream's validation ("field is
 * immutable; may only be changed via deletion"), and ignored here. */
static int keep_deletion_mark(json_object *m, json_object *om)
{
	int rc = copy_member(m, om, "deletionTimestamp");
	return rc ? rc : copy_member(m, om, "deletionGracePeriodSeconds");
}

/* On update uid, creationTimestamp and generation keep their stored values
 * (rest.BeforeUpdate), and so does the deletion mark. */
static int prepare_update(const write_req *w, json_object *old, const char *uid)
{
	json_object *m = mock__store_meta_of(w->obj);
	json_object *om = nl_json_get_path(old, "metadata");
	if (!m)
		return NL_ENOMEM;
	json_object_object_del(m, "selfLink");
	if (!w->r->namespaced)
		json_object_object_del(m, "namespace");
	if (mock__store_set_string(w->obj, "kind", w->r->kind) ||
	    mock__store_set_string(w->obj, "apiVersion", w->r->api_version) ||
	    mock__store_set_string(m, "uid", uid) || copy_member(m, om, "creationTimestamp") ||
	    copy_member(m, om, "generation") || keep_deletion_mark(m, om))
		return NL_ENOMEM;
	return 0;
}

static int run_hook(const write_req *w, json_object *old, nl_status **st)
{
	nl_status *h = w->hook ? w->hook(w->obj, old, w->payload) : NULL;
	return h ? mock__store_fail(st, h, err_of_code(h->code)) : 0;
}

/* 422 for an object without a name (only reachable without validation). */
static int name_required(const mock_resource *r, nl_status **st)
{
	nl_status *x = nl_status_invalid(r->kind, r->group, "");
	if (x && (nl_status_add_cause(x, NL_CAUSE_REQUIRED,
	                              "Required value: name or generateName is required",
	                              "metadata.name") != 0 ||
	          nl_status_finish_invalid(x) != 0)) {
		nl_status_free(x);
		return mock__store_fail_nomem(st);
	}
	return mock__store_fail(st, x, NL_EINVALID);
}

static nl_status *namespace_not_found(const char *ns)
{
	nl_gr gr = {"", "namespaces"};
	return nl_status_not_found(&gr, ns);
}

/* The entry a write stores, built outside the lock: obj serialized and
 * indexed with resourceVersion "0" as a placeholder at text[rv_off], so the
 * commit under the write lock only splices in the number it takes, which
 * is copying bytes (0027-optimistic-writes.md). Without rv_len the text has
 * no resourceVersion at all (a dry-run create's answer). */
typedef struct {
	obj_entry *e; /* its json is set at the commit */
	char *text;
	size_t len, rv_off, rv_len;
} staged;

static void staged_free(staged *sg)
{
	mock__store_entry_free(sg->e);
	free(sg->text);
	memset(sg, 0, sizeof(*sg));
}

static int stage(staged *sg, const write_req *w, const char *key, const char *uid, int with_rv)
{
	json_object *m = mock__store_meta_of(w->obj);
	memset(sg, 0, sizeof(*sg));
	if (!m || (with_rv && mock__store_set_string(m, "resourceVersion", "0")))
		return NL_ENOMEM;
	if (!with_rv)
		json_object_object_del(m, "resourceVersion");
	int rc = mock__store_entry_new(&sg->e, w->r, key, w->obj, 0, uid);
	if (rc != 0)
		return rc;
	sg->text = sg->e->json;
	sg->len = sg->e->len;
	sg->e->json = NULL;
	if (with_rv && mock__store_rv_span(sg->text, sg->len, &sg->rv_off, &sg->rv_len) != 0) {
		staged_free(sg);
		return NL_ERROR;
	}
	return 0;
}

/* The staged text with resourceVersion rv (caller frees). */
static int staged_text(char **out, size_t *len_out, const staged *sg, uint64_t rv)
{
	if (!sg->rv_len)
		return mock__store_dup_bytes(out, len_out, sg->text, sg->len);
	return mock__store_splice_rv(out, len_out, sg->text, sg->len, sg->rv_off, sg->rv_len, rv);
}

/* Whether the staged object, given the stored resourceVersion, is exactly
 * the stored bytes: etcd3's GuaranteedUpdate then writes nothing. */
static int unchanged(const staged *sg, const obj_entry *old)
{
	char rvs[RV_BUFSZ];
	mock__store_rv_string(rvs, old->rv);
	size_t rl = strlen(rvs), tail = sg->len - sg->rv_off - sg->rv_len;
	return sg->len - sg->rv_len + rl == old->len &&
	       memcmp(old->json, sg->text, sg->rv_off) == 0 &&
	       memcmp(old->json + sg->rv_off, rvs, rl) == 0 &&
	       memcmp(old->json + sg->rv_off + rl, sg->text + sg->rv_off + sg->rv_len, tail) == 0;
}

/* Give the staged entry resourceVersion rv. */
static int staged_finish(staged *sg, uint64_t rv)
{
	size_t len = 0;
	int rc = staged_text(&sg->e->json, &len, sg, rv);
	if (rc != 0)
		return rc;
	sg->e->len = (uint32_t)len;
	sg->e->rv = rv;
	return 0;
}

static int serialize_failed(nl_status **st, int rc)
{
	return mock__store_fail(st, nl_status_internal("cannot serialize the object"), rc);
}

/* Under the write lock: store the staged entry under key as a new object
 * (create, or create-on-update). *rv_out gets its resourceVersion. */
static int commit_insert(const write_req *w, staged *sg, uint64_t *rv_out, nl_status **st)
{
	table *t = mock__store_table_of(w->s, w->r);
	size_t pos;
	uint64_t rv = w->s->rv + 1;
	if (w->flags & MOCK_WRITE_F_DRY_RUN) {
		*rv_out = 0;
		return 0;
	}
	if (mock__store_table_reserve(t, t->n + 1) != 0 || staged_finish(sg, rv) != 0)
		return mock__store_fail_nomem(st);
	obj_entry *e = sg->e;
	if (mock__store_persist(w->s, w->r, MOCK_STORE_ADDED, e->key, e->json, e->len, rv) != 0)
		return mock__store_fail_persist(st);
	mock__store_table_find(t, e->key, &pos);
	mock__store_table_insert(t, pos, e);
	sg->e = NULL;
	w->s->rv = rv;
	*rv_out = rv;
	mock__store_notify(w->s, w->r, MOCK_STORE_ADDED, e->json, e->len, NULL, rv);
	return 0;
}

/* Under the write lock: replace the entry at pos with the staged one.
 * *rv_out gets the resourceVersion the answer carries. */
static int commit_replace(const write_req *w, size_t pos, staged *sg, uint64_t *rv_out,
                          nl_status **st)
{
	table *t = mock__store_table_of(w->s, w->r);
	obj_entry *old = t->v[pos];
	uint64_t rv = w->s->rv + 1;
	*rv_out = old->rv;
	if ((w->flags & MOCK_WRITE_F_DRY_RUN) ||
	    ((w->flags & MOCK_WRITE_F_SKIP_NOOP) && unchanged(sg, old)))
		return 0;
	if (staged_finish(sg, rv) != 0)
		return mock__store_fail_nomem(st);
	obj_entry *e = sg->e;
	if (mock__store_persist(w->s, w->r, MOCK_STORE_MODIFIED, old->key, e->json, e->len, rv) !=
	    0)
		return mock__store_fail_persist(st);
	t->v[pos] = e;
	sg->e = NULL;
	w->s->rv = rv;
	*rv_out = rv;
	mock__store_notify(w->s, w->r, MOCK_STORE_MODIFIED, e->json, e->len, old, rv);
	mock__store_entry_free(old);
	return 0;
}

/* Under the write lock: the update took the last finalizer of an object
 * being deleted, so it is deleted instead of stored (the generic
 * registry's deleteWithoutFinalizers): one DELETED change. The answer is
 * the update as submitted, with the resourceVersion it was made against,
 * as upstream returns the updated object rather than a Status. */
static int commit_finish(const write_req *w, table *t, size_t pos, uint64_t *rv_out, nl_status **st)
{
	*rv_out = t->v[pos]->rv;
	if (w->flags & MOCK_WRITE_F_DRY_RUN)
		return 0;
	int rc = mock__store_delete_at(w->s, t, pos, NULL, NULL);
	if (rc == NL_EIO)
		return mock__store_fail_persist(st);
	return rc ? mock__store_fail_nomem(st) : 0;
}

/* After the lock: the answer (the staged text with the resourceVersion the
 * commit gave it), and obj's metadata as stored. */
static int answer(const write_req *w, const staged *sg, uint64_t rv, write_result *res,
                  nl_status **st)
{
	char rvs[RV_BUFSZ];
	mock__store_rv_string(rvs, rv);
	if (staged_text(&res->json, &res->len, sg, rv) != 0)
		return mock__store_fail_nomem(st);
	if (sg->rv_len &&
	    mock__store_set_string(mock__store_meta_of(w->obj), "resourceVersion", rvs)) {
		free(res->json);
		res->json = NULL;
		return mock__store_fail_nomem(st);
	}
	return 0;
}

/* The object changed between the read and the commit: start over. */
#define WRITE_RETRY 1
/* etcd3's GuaranteedUpdate retries as long as the object keeps changing;
 * a bound keeps a pathological writer from pinning a thread (the same as
 * PATCH's, patch_handler.c). */
#define MAX_ATTEMPTS 1000

static int has_namespace(const write_req *w)
{
	return !w->r->namespaced || namespace_exists(w->s, w->ns);
}

/* NamespaceLifecycle: no new content in a Terminating namespace. */
static int terminating(const write_req *w)
{
	return w->r->namespaced && mock__store_namespace_terminating(w->s, w->ns);
}

/* Its 403, naming the object as admission sees it: the name, else the
 * generateName, else "Unknown". */
static int fail_terminating(const write_req *w, const char *name, nl_status **st)
{
	json_object *m = mock__store_meta_of(w->obj);
	const char *gen = m ? mock__store_str_member(m, "generateName") : NULL;
	if (!name || !*name)
		name = gen && *gen ? gen : "Unknown";
	nl_status *x = mock__store_terminating_forbidden(w->r, name, w->ns);
	return x ? mock__store_fail(st, x, NL_EFORBIDDEN) : mock__store_fail_nomem(st);
}

/* 409 AlreadyExists; the registry's create says so when the object there
 * is being deleted. */
static nl_status *already_exists(const mock_resource *r, const char *name, const obj_entry *have)
{
	nl_gr gr = mock__store_gr_of(r);
	nl_status *x = nl_status_already_exists(&gr, name);
	if (x && x->message && mock__store_being_deleted(have->json, have->len)) {
		const char *prefix = "object is being deleted: ";
		size_t pl = strlen(prefix), ml = strlen(x->message);
		char *m = malloc(pl + ml + 1);
		if (m) {
			memcpy(m, prefix, pl);
			memcpy(m + pl, x->message, ml + 1);
			free(x->message);
			x->message = m;
		}
	}
	return x;
}

/* Stage, under the write lock insert when key is still free (and the
 * namespace still there), and answer. Otherwise 404 or 409, or for a
 * create-on-update (retry) WRITE_RETRY: the next attempt finds out why. */
static int store_new(const write_req *w, const char *key, const char *name, const char *uid,
                     int retry, write_result *res, nl_status **st)
{
	staged sg;
	uint64_t rv = 0;
	int rc = stage(&sg, w, key, uid, !(w->flags & MOCK_WRITE_F_DRY_RUN));
	if (rc != 0)
		return serialize_failed(st, rc);
	pthread_rwlock_wrlock(&w->s->lock);
	table *t = mock__store_table_of(w->s, w->r);
	t->r = w->r;
	obj_entry *have = has_namespace(w) ? mock__store_table_find(t, key, NULL) : NULL;
	int ns_ok = has_namespace(w), taken = have != NULL, ending = ns_ok && terminating(w);
	if (retry && (!ns_ok || taken || ending)) {
		rc = WRITE_RETRY;
	} else if (!ns_ok) {
		rc = mock__store_fail(st, namespace_not_found(w->ns), NL_ENOTFOUND);
	} else if (ending) {
		/* checked again here: content committed after the namespace
		 * controller looked would outlive the namespace */
		rc = fail_terminating(w, name, st);
	} else if (taken) {
		rc = mock__store_fail(st, already_exists(w->r, name, have), NL_EEXISTS);
	} else {
		rc = commit_insert(w, &sg, &rv, st);
	}
	pthread_rwlock_unlock(&w->s->lock);
	if (rc == 0 && (rc = answer(w, &sg, rv, res, st)) == 0)
		res->created = 1;
	staged_free(&sg);
	return rc;
}

/* POST. Order as kube-apiserver: the NamespaceLifecycle admission (404),
 * validation (the hook), then storage: a set resourceVersion (500) and an
 * existing key (409). Only the lookups hold a lock; the commit checks the
 * namespace again (a deletion meanwhile would orphan the object). */
static int do_create(const write_req *w, write_result *res, nl_status **st)
{
	char uid[MOCK_UUID_LEN + 1];
	uint64_t body_rv = 0;
	pthread_rwlock_rdlock(&w->s->lock);
	int ns_ok = has_namespace(w), ending = ns_ok && terminating(w);
	pthread_rwlock_unlock(&w->s->lock);
	if (!ns_ok)
		return mock__store_fail(st, namespace_not_found(w->ns), NL_ENOTFOUND);
	if (ending)
		return fail_terminating(
		    w, mock__store_str_member(mock__store_meta_of(w->obj), "name"), st);
	/* etcd3's Create refuses a numeric non-zero resourceVersion and
	 * ignores one that does not parse. */
	const char *brv = mock__store_str_member(mock__store_meta_of(w->obj), "resourceVersion");
	int rv_set = brv && mock__store_parse_uint_go(brv, &body_rv) == 0 && body_rv != 0;
	mock_uuid_v4(uid);
	if (prepare_create(w, uid) != 0)
		return mock__store_fail_nomem(st);
	int rc = run_hook(w, NULL, st);
	if (rc != 0)
		return rc;
	const char *name = mock__store_str_member(mock__store_meta_of(w->obj), "name");
	if (!name || !*name)
		return name_required(w->r, st);
	if (rv_set)
		return mock__store_fail(
		    st,
		    nl_status_new(500, NULL,
		                  "resourceVersion should not be set on objects to be created"),
		    NL_ERROR);
	char *key = mock__store_key_new(w->r, w->ns, name);
	if (!key)
		return mock__store_fail_nomem(st);
	rc = store_new(w, key, name, uid, 0, res, st);
	free(key);
	return rc;
}

/* etcd's key for the object, as it appears in storage errors. Nodes are
 * stored under "minions" for historical reasons. */
static void etcd_key(char *out, size_t outlen, const mock_resource *r, const char *key)
{
	const char *prefix =
	    strcmp(r->group, "") == 0 && strcmp(r->plural, "nodes") == 0 ? "minions" : r->plural;
	snprintf(out, outlen, "/registry/%s/%s", prefix, key);
}

/* A uid in an update body is a precondition, checked by the storage layer
 * before anything else, also against a missing object (whose uid is ""). */
static nl_status *uid_precondition_failed(const mock_resource *r, const char *key, const char *name,
                                          const char *want, const char *have)
{
	char ek[600], why[1024];
	nl_gr gr = mock__store_gr_of(r);
	etcd_key(ek, sizeof(ek), r, key);
	snprintf(why, sizeof(why),
	         "StorageError: invalid object, Code: 4, Key: %s, ResourceVersion: 0, "
	         "AdditionalErrorMsg: Precondition failed: UID in precondition: %s, UID in object "
	         "meta: %s",
	         ek, want, have);
	return nl_status_conflict(&gr, name, why);
}

/* 422 for a kind without unconditional updates. The apiserver reports the
 * resource as the kind here (a TODO in its registry store). */
static nl_status *rv_required(const mock_resource *r, const char *name)
{
	nl_status *x = nl_status_invalid(r->plural, r->group, name);
	if (x && (nl_status_add_cause(x, NL_CAUSE_INVALID,
	                              "Invalid value: 0x0: must be specified for an update",
	                              "metadata.resourceVersion") != 0 ||
	          nl_status_finish_invalid(x) != 0)) {
		nl_status_free(x);
		return NULL;
	}
	return x;
}

static int create_on_update(const write_req *w, const char *key, write_result *res, nl_status **st)
{
	char uid[MOCK_UUID_LEN + 1];
	mock_uuid_v4(uid);
	if (prepare_create(w, uid) != 0)
		return mock__store_fail_nomem(st);
	int rc = run_hook(w, NULL, st);
	return rc ? rc : store_new(w, key, "", uid, 1, res, st);
}

/* The body's resourceVersion against the stored one: 422 when missing and
 * the kind needs it, 500 when unparsable (the registry passes strconv's
 * error through), 409 when stale. */
static int check_update_rv(const write_req *w, const obj_entry *e, const char *name, nl_status **st)
{
	char why[256];
	uint64_t v = 0;
	const char *brv = mock__store_str_member(mock__store_meta_of(w->obj), "resourceVersion");
	int perr = brv && *brv ? mock__store_parse_uint_go(brv, &v) : 0;
	if (perr) {
		mock__store_parse_uint_error(why, sizeof(why), brv, perr);
		return mock__store_fail(st, nl_status_new(500, NULL, why), NL_ERROR);
	}
	if (!e)
		return 0;
	if (v == 0 && !w->r->unconditional_update) {
		nl_status *x = rv_required(w->r, name);
		return x ? mock__store_fail(st, x, NL_EINVALID) : mock__store_fail_nomem(st);
	}
	if (v != 0 && v != e->rv) {
		nl_gr gr = mock__store_gr_of(w->r);
		return mock__store_fail(st, nl_status_conflict(&gr, name, NULL), NL_ECONFLICT);
	}
	return 0;
}

/* The stored object as a tree for the write hook, with the thread's parser
 * (core/json.h): allocating a parser per call cost ~10% of the parse,
 * and json_tokener_parse's depth of 32 is below what the API accepts.
 * NULL when out of memory. */
static json_object *parse_stored(const char *json, size_t len)
{
	json_object *o = NULL;
	enum json_tokener_error err = json_tokener_success;
	size_t end = 0;
	if (mock_parse_body(&o, json, len, &err, &end) != 0)
		return NULL;
	if (o && (err != json_tokener_success || end != len)) {
		json_object_put(o);
		o = NULL;
	}
	return o;
}

/* What an update read of the stored object, under the read lock. */
typedef struct {
	char *json; /* a copy; NULL when the object was absent */
	size_t len;
	uint64_t rv;
	char uid[MOCK_UUID_LEN + 1];
} snapshot;

/* The checks that read the stored object, in the apiserver's order (uid
 * precondition, existence or create-on-update, the body's
 * resourceVersion), and a copy of it in *snap. */
static int read_current(const write_req *w, const char *key, const char *name, snapshot *snap,
                        nl_status **st)
{
	const char *uid = mock__store_str_member(mock__store_meta_of(w->obj), "uid");
	int rc = 0;
	pthread_rwlock_rdlock(&w->s->lock);
	obj_entry *e = mock__store_table_find(mock__store_table_of(w->s, w->r), key, NULL);
	if (uid && *uid && (!e || strcmp(uid, e->uid) != 0)) {
		rc = mock__store_fail(
		    st, uid_precondition_failed(w->r, key, name, uid, e ? e->uid : ""),
		    NL_ECONFLICT);
	} else if (!e && !w->r->create_on_update) {
		nl_gr gr = mock__store_gr_of(w->r);
		rc = mock__store_fail(st, nl_status_not_found(&gr, name), NL_ENOTFOUND);
	} else if (!e && !has_namespace(w)) {
		rc = mock__store_fail(st, namespace_not_found(w->ns), NL_ENOTFOUND);
	} else if (!e && terminating(w)) {
		rc = fail_terminating(w, name, st);
	} else if ((rc = check_update_rv(w, e, name, st)) != 0) {
		/* rc and *st are set */
	} else if (e) {
		if (mock__store_dup_bytes(&snap->json, &snap->len, e->json, e->len) != 0)
			rc = mock__store_fail_nomem(st);
		snap->rv = e->rv;
		memcpy(snap->uid, e->uid, sizeof(snap->uid));
	}
	pthread_rwlock_unlock(&w->s->lock);
	return rc;
}

/* The update of the object snap read: the hook on it, then the commit if
 * it is still the stored one (WRITE_RETRY otherwise). */
static int replace(const write_req *w, const char *key, const snapshot *snap, write_result *res,
                   nl_status **st)
{
	staged sg = {0};
	size_t pos = 0;
	uint64_t rv = 0;
	json_object *old = parse_stored(snap->json, snap->len);
	int rc = !old || prepare_update(w, old, snap->uid) != 0 ? mock__store_fail_nomem(st)
	                                                        : run_hook(w, old, st);
	int finish = rc == 0 && mock__store_should_delete_on_update(w->r, w->obj, old);
	json_object_put(old);
	if (rc != 0)
		return rc;
	if ((rc = stage(&sg, w, key, snap->uid, 1)) != 0)
		return serialize_failed(st, rc);
	pthread_rwlock_wrlock(&w->s->lock);
	table *t = mock__store_table_of(w->s, w->r);
	t->r = w->r;
	obj_entry *e = mock__store_table_find(t, key, &pos);
	if (!e || e->rv != snap->rv)
		rc = WRITE_RETRY;
	else if (finish)
		rc = commit_finish(w, t, pos, &rv, st);
	else
		rc = commit_replace(w, pos, &sg, &rv, st);
	pthread_rwlock_unlock(&w->s->lock);
	if (rc == 0)
		rc = answer(w, &sg, rv, res, st);
	staged_free(&sg);
	return rc;
}

/* PUT, in the order of the apiserver's GuaranteedUpdate: uid precondition,
 * existence (or create-on-update, whose NamespaceLifecycle admission runs
 * then), the body's resourceVersion, then the strategy (the hook) on a
 * copy read under the read lock, outside any lock, and the commit if the
 * object is still the one read. */
static int do_update(const write_req *w, write_result *res, nl_status **st)
{
	const char *name = mock__store_str_member(mock__store_meta_of(w->obj), "name");
	snapshot snap = {NULL, 0, 0, ""};
	if (!name || !*name)
		return name_required(w->r, st);
	char *key = mock__store_key_new(w->r, w->ns, name);
	if (!key)
		return mock__store_fail_nomem(st);
	int rc = read_current(w, key, name, &snap, st);
	if (rc == 0 && !snap.json) {
		/* Create-on-update ignores the body's resourceVersion, as the
		 * registry's tryUpdate does for a missing object. Created (or
		 * its namespace deleted) meanwhile: start over. */
		rc = create_on_update(w, key, res, st);
	} else if (rc == 0) {
		rc = replace(w, key, &snap, res, st);
	}
	free(snap.json);
	free(key);
	return rc;
}

/* obj as the caller passed it again (its members replaced by a copy of
 * pristine's), for the next attempt. */
static int restore(json_object *obj, json_object *pristine)
{
	json_object *fresh = NULL;
	if (json_object_deep_copy(pristine, &fresh, NULL) != 0)
		return NL_ENOMEM;
	json_object_object_foreach(obj, k, v)
	{
		(void)v;
		json_object_object_del(obj, k); /* foreach has saved the next entry */
	}
	int rc = 0;
	json_object_object_foreach(fresh, fk, fv)
	{
		if (rc == 0 && json_object_object_add(obj, fk, json_object_get(fv)) != 0) {
			json_object_put(fv);
			rc = NL_ENOMEM;
		}
	}
	json_object_put(fresh);
	return rc;
}

int mock_store_write(mock_store *s, const mock_resource *r, mock_write_op op, json_object *obj,
                     mock_write_hook hook, void *payload, char **out, size_t *len_out, int *created,
                     nl_status **st)
{
	return mock_store_write_ex(s, r, op, 0, obj, hook, payload, out, len_out, created, st);
}

int mock_store_write_ex(mock_store *s, const mock_resource *r, mock_write_op op, unsigned flags,
                        json_object *obj, mock_write_hook hook, void *payload, char **out,
                        size_t *len_out, int *created, nl_status **st)
{
	write_result res = {NULL, 0, 0};
	json_object *pristine = NULL;
	char *ns = NULL;
	if (!s || !mock__store_valid_resource(r) || !json_object_is_type(obj, json_type_object))
		return NL_EINVAL;
	json_object *m = mock__store_meta_of(obj);
	if (!m)
		return mock__store_fail_nomem(st);
	if (r->namespaced) {
		const char *n = mock__store_str_member(m, "namespace");
		/* The handlers fill the namespace from the URL; this is the
		 * apiserver's BeforeCreate text for a request without one. */
		if (!n || !*n)
			return mock__store_fail(
			    st,
			    nl_status_internal("no namespace information found in request context"),
			    NL_EINVAL);
		/* Copied: the hook may rewrite metadata. */
		if (!(ns = strdup(n)))
			return mock__store_fail_nomem(st);
	}
	/* An update may have to start over from obj as it came. */
	if (op == MOCK_WRITE_UPDATE && json_object_deep_copy(obj, &pristine, NULL) != 0) {
		free(ns);
		return mock__store_fail_nomem(st);
	}
	write_req w = {s, r, obj, hook, payload, ns, flags};
	int rc;
	for (int attempt = 1;; attempt++) {
		rc = op == MOCK_WRITE_CREATE ? do_create(&w, &res, st) : do_update(&w, &res, st);
		if (rc != WRITE_RETRY)
			break;
		if (attempt == MAX_ATTEMPTS) {
			nl_gr gr = mock__store_gr_of(r);
			const char *name =
			    mock__store_str_member(mock__store_meta_of(pristine), "name");
			rc = mock__store_fail(st, nl_status_conflict(&gr, name ? name : "", NULL),
			                      NL_ECONFLICT);
			break;
		}
		if (restore(obj, pristine) != 0) {
			rc = mock__store_fail_nomem(st);
			break;
		}
	}
	json_object_put(pristine);
	free(ns);
	if (rc != 0)
		return rc;
	if (out) {
		*out = res.json;
		if (len_out)
			*len_out = res.len;
	} else {
		free(res.json);
	}
	if (created)
		*created = res.created;
	return 0;
}
