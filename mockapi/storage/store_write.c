/* Create and update (store.h: mock_store_write): kube-apiserver's checks in
 * its order (namespace, uid precondition, existence or create-on-update,
 * the body's resourceVersion), the server-set metadata, the write hook, and
 * the commit under the write lock: write-ahead to the state file, the swap
 * in the table, the observer. dryRun and the no-op update skip the commit. */
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

/* On update uid, creationTimestamp and generation keep their stored values
 * (rest.BeforeUpdate). */
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
	    copy_member(m, om, "generation"))
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

/* What a write would store, without storing it: the object as serialized
 * with resourceVersion rv (0: none, as a dry-run create answers). */
static int commit_dry_run(const write_req *w, const char *key, const char *uid, uint64_t rv,
                          write_result *res, nl_status **st)
{
	char rvs[RV_BUFSZ];
	obj_entry *e = NULL;
	json_object *m = mock__store_meta_of(w->obj);
	mock__store_rv_string(rvs, rv);
	if (!m || (rv && mock__store_set_string(m, "resourceVersion", rvs)))
		return mock__store_fail_nomem(st);
	if (!rv)
		json_object_object_del(m, "resourceVersion");
	int rc = mock__store_entry_new(&e, w->r, key, w->obj, rv, uid);
	if (rc == 0) {
		rc = mock__store_dup_bytes(&res->json, &res->len, e->json, e->len);
		mock__store_entry_free(e);
	}
	return rc ? mock__store_fail(st, nl_status_internal("cannot serialize the object"), rc) : 0;
}

/* Store w->obj under key as a new object (create, or create-on-update). */
static int commit_insert(const write_req *w, const char *key, const char *uid, write_result *res,
                         nl_status **st)
{
	table *t = mock__store_table_of(w->s, w->r);
	char rvs[RV_BUFSZ];
	obj_entry *e = NULL;
	size_t pos;
	uint64_t rv = w->s->rv + 1;
	if (w->flags & MOCK_WRITE_F_DRY_RUN) {
		res->created = 1;
		return commit_dry_run(w, key, uid, 0, res, st);
	}
	mock__store_rv_string(rvs, rv);
	if (mock__store_table_reserve(t, t->n + 1) != 0 ||
	    mock__store_set_string(mock__store_meta_of(w->obj), "resourceVersion", rvs))
		return mock__store_fail_nomem(st);
	int rc = mock__store_entry_new(&e, w->r, key, w->obj, rv, uid);
	if (rc == 0 && (rc = mock__store_dup_bytes(&res->json, &res->len, e->json, e->len)) != 0)
		mock__store_entry_free(e);
	if (rc != 0)
		return mock__store_fail(st, nl_status_internal("cannot serialize the object"), rc);
	if (mock__store_persist(w->s, w->r, MOCK_STORE_ADDED, key, e->json, e->len, rv) != 0) {
		free(res->json);
		res->json = NULL;
		mock__store_entry_free(e);
		return mock__store_fail_persist(st);
	}
	mock__store_table_find(t, key, &pos);
	mock__store_table_insert(t, pos, e);
	w->s->rv = rv;
	res->created = 1;
	mock__store_notify(w->s, w->r, MOCK_STORE_ADDED, e->json, e->len, NULL, rv);
	return 0;
}

/* Whether w->obj, given the stored resourceVersion, serializes to exactly
 * the stored bytes: etcd3's GuaranteedUpdate then writes nothing. */
static int unchanged(const write_req *w, const obj_entry *old)
{
	obj_entry *e = NULL;
	char rvs[RV_BUFSZ];
	mock__store_rv_string(rvs, old->rv);
	if (mock__store_set_string(mock__store_meta_of(w->obj), "resourceVersion", rvs) ||
	    mock__store_entry_new(&e, w->r, old->key, w->obj, old->rv, old->uid) != 0)
		return 0;
	int same = e->len == old->len && memcmp(e->json, old->json, old->len) == 0;
	mock__store_entry_free(e);
	return same;
}

/* Replace the entry at pos with w->obj. */
static int commit_replace(const write_req *w, size_t pos, write_result *res, nl_status **st)
{
	table *t = mock__store_table_of(w->s, w->r);
	obj_entry *old = t->v[pos], *e = NULL;
	char rvs[RV_BUFSZ];
	uint64_t rv = w->s->rv + 1;
	if (w->flags & MOCK_WRITE_F_DRY_RUN)
		return commit_dry_run(w, old->key, old->uid, old->rv, res, st);
	if ((w->flags & MOCK_WRITE_F_SKIP_NOOP) && unchanged(w, old))
		return mock__store_dup_bytes(&res->json, &res->len, old->json, old->len)
		           ? mock__store_fail_nomem(st)
		           : 0;
	mock__store_rv_string(rvs, rv);
	if (mock__store_set_string(mock__store_meta_of(w->obj), "resourceVersion", rvs))
		return mock__store_fail_nomem(st);
	int rc = mock__store_entry_new(&e, w->r, old->key, w->obj, rv, old->uid);
	if (rc == 0 && (rc = mock__store_dup_bytes(&res->json, &res->len, e->json, e->len)) != 0)
		mock__store_entry_free(e);
	if (rc != 0)
		return mock__store_fail(st, nl_status_internal("cannot serialize the object"), rc);
	if (mock__store_persist(w->s, w->r, MOCK_STORE_MODIFIED, old->key, e->json, e->len, rv) !=
	    0) {
		free(res->json);
		res->json = NULL;
		mock__store_entry_free(e);
		return mock__store_fail_persist(st);
	}
	t->v[pos] = e;
	w->s->rv = rv;
	mock__store_notify(w->s, w->r, MOCK_STORE_MODIFIED, e->json, e->len, old, rv);
	mock__store_entry_free(old);
	return 0;
}

/* POST. Order as kube-apiserver: the NamespaceLifecycle admission (404),
 * validation (the hook), then storage: a set resourceVersion (500) and an
 * existing key (409). */
static int do_create(const write_req *w, write_result *res, nl_status **st)
{
	char uid[MOCK_UUID_LEN + 1];
	uint64_t body_rv = 0;
	if (w->r->namespaced && !namespace_exists(w->s, w->ns))
		return mock__store_fail(st, namespace_not_found(w->ns), NL_ENOTFOUND);
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
	if (mock__store_table_find(mock__store_table_of(w->s, w->r), key, NULL)) {
		nl_gr gr = mock__store_gr_of(w->r);
		rc = mock__store_fail(st, nl_status_already_exists(&gr, name), NL_EEXISTS);
	} else {
		rc = commit_insert(w, key, uid, res, st);
	}
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
	return rc ? rc : commit_insert(w, key, uid, res, st);
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
static json_object *parse_stored(const obj_entry *e)
{
	json_object *o = NULL;
	enum json_tokener_error err = json_tokener_success;
	size_t end = 0;
	if (mock_parse_body(&o, e->json, e->len, &err, &end) != 0)
		return NULL;
	if (o && (err != json_tokener_success || end != e->len)) {
		json_object_put(o);
		o = NULL;
	}
	return o;
}

/* PUT, in the order of the apiserver's GuaranteedUpdate: uid precondition,
 * existence (or create-on-update, whose NamespaceLifecycle admission runs
 * then), the body's resourceVersion, then the strategy (the hook). */
static int do_update(const write_req *w, write_result *res, nl_status **st)
{
	table *t = mock__store_table_of(w->s, w->r);
	json_object *m = mock__store_meta_of(w->obj);
	const char *name = mock__store_str_member(m, "name");
	size_t pos = 0;
	int rc;
	if (!name || !*name)
		return name_required(w->r, st);
	char *key = mock__store_key_new(w->r, w->ns, name);
	if (!key)
		return mock__store_fail_nomem(st);
	obj_entry *e = mock__store_table_find(t, key, &pos);
	const char *uid = mock__store_str_member(m, "uid");
	if (uid && *uid && (!e || strcmp(uid, e->uid) != 0)) {
		rc = mock__store_fail(
		    st, uid_precondition_failed(w->r, key, name, uid, e ? e->uid : ""),
		    NL_ECONFLICT);
	} else if (!e && !w->r->create_on_update) {
		nl_gr gr = mock__store_gr_of(w->r);
		rc = mock__store_fail(st, nl_status_not_found(&gr, name), NL_ENOTFOUND);
	} else if (!e && w->r->namespaced && !namespace_exists(w->s, w->ns)) {
		rc = mock__store_fail(st, namespace_not_found(w->ns), NL_ENOTFOUND);
	} else if ((rc = check_update_rv(w, e, name, st)) != 0) {
		/* rc and *st are set */
	} else if (!e) {
		/* Create-on-update ignores the body's resourceVersion, as the
		 * registry's tryUpdate does for a missing object. */
		rc = create_on_update(w, key, res, st);
	} else {
		json_object *old = parse_stored(e);
		if (!old || prepare_update(w, old, e->uid) != 0)
			rc = mock__store_fail_nomem(st);
		else if ((rc = run_hook(w, old, st)) == 0)
			rc = commit_replace(w, pos, res, st);
		json_object_put(old);
	}
	free(key);
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
	write_req w = {s, r, obj, hook, payload, ns, flags};
	pthread_rwlock_wrlock(&s->lock);
	mock__store_table_of(s, r)->r = r;
	int rc = op == MOCK_WRITE_CREATE ? do_create(&w, &res, st) : do_update(&w, &res, st);
	pthread_rwlock_unlock(&s->lock);
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
