/* Server-side apply (apply.h): Updater.Apply of structured-merge-diff with
 * kube-apiserver's field manager around it, over fieldset.h's typed walks.
 *
 * Order, as upstream: merge the configuration into the live object, set the
 * manager's applied set, prune what it applied last time and nobody owns
 * now, then compare live and result: fields other managers own that
 * changed are conflicts (or, forced, change hands) and removed fields leave
 * every manager. */
#include "apply.h"

#include <nodelet/buf.h>
#include <nodelet/meta.h>
#include <nodelet/quote.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/schema.h"
#include "fieldset.h"
#include "managed_fields.h"
#include "patch_internal.h"

#define CAUSE_CONFLICT "FieldManagerConflict"

typedef struct {
	const mock_apply_req *req;
	json_object *live;   /* req->live or the kind's empty object */
	json_object *config; /* copy without the fields the endpoint resets */
	json_object *set;    /* what the configuration sets, stripped */
	mock_managed managed;
	nl_status **st;
} apply_ctx;

static int bad_request(nl_status **st, const char *fmt, const char *a, const char *b)
{
	*st = nl_status_newf(400, "BadRequest", fmt, a, b);
	return *st ? NL_EBADREQUEST : NL_ENOMEM;
}

/* schema.GroupVersionKind.String() of the configuration. */
static void gvk_string(char *out, size_t n, json_object *config)
{
	const char *av = nl_json_get_string(config, "apiVersion");
	const char *kind = nl_json_get_string(config, "kind");
	av = av ? av : "";
	snprintf(out, n, "%s%s, Kind=%s", strchr(av, '/') ? "" : "/", av, kind ? kind : "");
}

/* The checks before any merging: the configuration's type and metadata. */
static int check_config(const apply_ctx *c)
{
	const mock_resource *r = c->req->r;
	json_object *config = c->req->config, *mf = NULL;
	char gvk[300];
	if (!mock__patch_is_object(config))
		return bad_request(c->st,
		                   "error decoding YAML: error unmarshaling JSON: while decoding "
		                   "JSON: json: cannot unmarshal %s into Go value of type "
		                   "map[string]interface {}%s",
		                   nl_json_go_kind(config), "");
	const char *av = nl_json_get_string(config, "apiVersion");
	if (!av || strcmp(av, r->api_version) != 0)
		return bad_request(c->st,
		                   "Incorrect version specified in apply patch. Specified patch "
		                   "version: %s, expected: %s",
		                   av ? av : "", r->api_version);
	const char *kind = nl_json_get_string(config, "kind");
	if (!kind || strcmp(kind, r->kind) != 0) {
		gvk_string(gvk, sizeof(gvk), config);
		return bad_request(
		    c->st,
		    "failed to create typed patch object (%s): no corresponding type "
		    "for %s",
		    gvk, gvk);
	}
	json_object *meta = nl_json_get_path(config, "metadata");
	if (meta && json_object_object_get_ex(meta, "managedFields", &mf) && mf)
		return bad_request(c->st, "%s%s", "metadata.managedFields must be nil", "");
	return 0;
}

/* The configuration without what this endpoint resets, and its field set. */
static int prepare_config(apply_ctx *c)
{
	const mock_resource *r = c->req->r;
	nl_err err = {0};
	char gvk[300];
	int rc = mock__patch_copy(&c->config, c->req->config);
	if (rc)
		return rc;
	if (r->has_status)
		json_object_object_del(c->config, *c->req->subresource ? "spec" : "status");
	rc = mock_fset_from_object(&c->set, r, c->config, &err);
	if (rc == NL_EBADREQUEST) {
		gvk_string(gvk, sizeof(gvk), c->config);
		return bad_request(c->st, "failed to create typed patch object (%s): %s", gvk,
		                   err.msg);
	}
	if (rc == 0)
		mock_fset_strip(c->set);
	return rc;
}

/* Set the manager's applied set; *last gets what it applied before (new
 * reference, NULL when it never applied). */
static int record_applied(apply_ctx *c, json_object **last)
{
	const mock_apply_req *q = c->req;
	mock_mf_entry *e =
	    mock_managed_find(&c->managed, q->manager, MOCK_MF_APPLY, NULL, q->subresource);
	json_object *copy = NULL;
	*last = e ? json_object_get(e->set) : NULL;
	int rc = mock__patch_copy(&copy, c->set);
	if (rc == 0)
		rc = mock_managed_get(&e, &c->managed, q->manager, MOCK_MF_APPLY, q->r->api_version,
		                      q->subresource);
	if (rc) {
		json_object_put(copy);
		return rc;
	}
	json_object_put(e->set);
	e->set = copy;
	free(e->api_version);
	e->api_version = strdup(q->r->api_version);
	return e->api_version ? 0 : NL_ENOMEM;
}

/* Updater.prune: remove from merged what the manager applied last time,
 * does not apply now and no manager owns, struct fields included. Fields
 * nobody may own (name, metadata itself, ...) are never removed. */
static int prune(apply_ctx *c, json_object *merged, json_object *last)
{
	json_object *owned = mock_fset_new(), *gone = NULL;
	int rc = owned ? 0 : NL_ENOMEM;
	for (size_t i = 0; rc == 0 && i < c->managed.n; i++)
		rc = mock_fset_union(owned, c->managed.v[i].set);
	if (rc == 0)
		rc = mock__patch_copy(&gone, last);
	if (rc == 0)
		rc = mock_fset_ensure_named(owned, c->req->r);
	if (rc == 0)
		rc = mock_fset_ensure_named(gone, c->req->r);
	if (rc == 0) {
		mock_fset_subtract(gone, owned);
		mock_fset_strip(gone);
		rc = mock_fset_remove_from(merged, gone, c->req->r);
	}
	json_object_put(owned);
	json_object_put(gone);
	return rc;
}

/* The merged and pruned object, decoded as the Go type would be. */
static int build_object(apply_ctx *c, json_object **out)
{
	json_object *merged = NULL, *last = NULL;
	nl_err err = {0};
	char gvk[300];
	int rc = mock_fset_merge(&merged, c->req->r, c->live, c->config);
	if (rc == 0)
		rc = record_applied(c, &last);
	if (rc == 0 && last)
		rc = prune(c, merged, last);
	if (rc == 0) {
		rc = mock_schema_decode(out, c->req->r, merged, NULL, &err);
		if (rc == NL_EBADREQUEST) {
			gvk_string(gvk, sizeof(gvk), c->config);
			rc = bad_request(c->st, "failed to create typed patch object (%s): %s", gvk,
			                 err.msg);
		}
	}
	json_object_put(merged);
	json_object_put(last);
	return rc;
}

/* ------------------------------------------------------------ conflicts */

/* printManager: the manager's name, its subresource, and for an Update
 * "using <apiVersion>" (identifiers carry no time). */
static void print_manager(nl_buf *b, const mock_mf_entry *e)
{
	nl_quote_append(b, e->manager);
	if (*e->subresource) {
		nl_buf_adds(b, " with subresource ");
		nl_quote_append(b, e->subresource);
	}
	if (strcmp(e->operation, MOCK_MF_UPDATE) == 0)
		nl_buf_printf(b, " using %s", e->api_version);
}

typedef struct {
	nl_status *st;
	nl_buf *msg;
	const mock_mf_entry *e;
	size_t total; /* conflicts in the whole apply */
	int rc;
} conflict_out;

static int add_conflict(const char *path, void *payload)
{
	conflict_out *o = payload;
	nl_buf who;
	nl_buf_init(&who, 4096);
	nl_buf_adds(&who, "conflict with ");
	print_manager(&who, o->e);
	if (o->total == 1)
		nl_buf_printf(o->msg, "Apply failed with 1 conflict: %s: %s", who.data, path);
	else
		nl_buf_printf(o->msg, "\n- %s", path);
	o->rc = who.data ? nl_status_add_cause(o->st, CAUSE_CONFLICT, who.data, path) : NL_ENOMEM;
	nl_buf_free(&who);
	return o->rc;
}

static int count_path(const char *path, void *payload)
{
	(void)path;
	(*(size_t *)payload)++;
	return 0;
}

/* Managers by their identifier's text, as getConflictMessage sorts them. */
static int by_manager(const void *pa, const void *pb)
{
	const mock_mf_entry *a = *(const mock_mf_entry *const *)pa;
	const mock_mf_entry *b = *(const mock_mf_entry *const *)pb;
	int c = strcmp(a->manager, b->manager);
	if (c == 0)
		c = strcmp(a->operation, b->operation);
	if (c == 0)
		c = strcmp(a->api_version, b->api_version);
	return c ? c : strcmp(a->subresource, b->subresource);
}

/* The 409 for conflicts[i] (the conflicting part of entries[i]'s set). */
static int conflict_status(nl_status **st, const mock_mf_entry **entries, json_object **conflicts,
                           size_t n)
{
	nl_buf msg;
	conflict_out o = {nl_status_new(409, "Conflict", ""), &msg, NULL, 0, 0};
	if (!o.st)
		return NL_ENOMEM;
	for (size_t i = 0; i < n; i++)
		mock_fset_each(conflicts[i], count_path, &o.total);
	nl_buf_init(&msg, 64 * 1024);
	if (o.total > 1)
		nl_buf_printf(&msg, "Apply failed with %zu conflicts: ", o.total);
	for (size_t i = 0; i < n && o.rc == 0; i++) {
		o.e = entries[i];
		if (o.total > 1) {
			nl_buf_printf(&msg, "%sconflicts with ", i ? "\n" : "");
			print_manager(&msg, entries[i]);
			nl_buf_adds(&msg, ":");
		}
		mock_fset_each(conflicts[i], add_conflict, &o);
	}
	if (o.rc == 0 && msg.data) {
		free(o.st->message);
		o.st->message = nl_buf_detach(&msg, NULL);
	}
	nl_buf_free(&msg);
	if (o.rc || !o.st->message) {
		nl_status_free(o.st);
		return NL_ENOMEM;
	}
	*st = o.st;
	return NL_ECONFLICT;
}

/* Updater.update for an apply: other managers' fields this apply changed
 * are conflicts, or with force move to the applier; removed fields leave
 * everyone. */
static int settle_ownership(apply_ctx *c, json_object *changed, json_object *removed)
{
	const mock_apply_req *q = c->req;
	size_t n = 0, cap = c->managed.n;
	const mock_mf_entry **who = cap ? calloc(cap, sizeof(*who)) : NULL;
	json_object **lost = cap ? calloc(cap, sizeof(*lost)) : NULL;
	mock_mf_entry *self =
	    mock_managed_find(&c->managed, q->manager, MOCK_MF_APPLY, NULL, q->subresource);
	int rc = cap && (!who || !lost) ? NL_ENOMEM : 0;
	for (size_t i = 0; rc == 0 && i < c->managed.n; i++) {
		mock_mf_entry *e = &c->managed.v[i];
		json_object *x = NULL;
		if (e == self)
			continue;
		rc = mock_fset_intersect(&x, e->set, changed);
		if (rc == 0 && !mock_fset_empty(x)) {
			who[n] = e;
			lost[n++] = x;
		} else {
			json_object_put(x);
		}
	}
	if (rc == 0 && n && !q->force) {
		qsort(who, n, sizeof(*who), by_manager);
		/* lost[] must follow who[]'s order: recompute after sorting. */
		for (size_t i = 0; i < n; i++)
			json_object_put(lost[i]);
		for (size_t i = 0; rc == 0 && i < n; i++)
			rc = mock_fset_intersect(&lost[i], who[i]->set, changed);
		if (rc == 0)
			rc = conflict_status(c->st, who, lost, n);
	}
	for (size_t i = 0; rc == 0 && i < c->managed.n; i++) {
		if (&c->managed.v[i] == self)
			continue;
		mock_fset_subtract(c->managed.v[i].set, changed);
		mock_fset_subtract(c->managed.v[i].set, removed);
	}
	for (size_t i = 0; i < n; i++)
		json_object_put(lost[i]);
	free(who);
	free(lost);
	return rc;
}

/* Whether two objects differ other than in managedFields. */
static int content_changed(json_object *a, json_object *b)
{
	json_object *ca = NULL, *cb = NULL;
	int changed = 1;
	if (mock__patch_copy(&ca, a) == 0 && mock__patch_copy(&cb, b) == 0) {
		json_object *ma = nl_json_get_path(ca, "metadata"),
		            *mb = nl_json_get_path(cb, "metadata");
		if (ma)
			json_object_object_del(ma, "managedFields");
		if (mb)
			json_object_object_del(mb, "managedFields");
		changed = !mock__patch_json_equal(ca, cb);
	}
	json_object_put(ca);
	json_object_put(cb);
	return changed;
}

static int finish(apply_ctx *c, json_object *obj)
{
	json_object *changed = NULL, *removed = NULL;
	mock_mf_entry *self = NULL;
	int rc = mock_fset_compare(&changed, &removed, c->req->r, c->live, obj);
	if (rc == 0) {
		mock_fset_strip(changed);
		mock_fset_strip(removed);
		rc = settle_ownership(c, changed, removed);
	}
	self = rc ? NULL
	          : mock_managed_find(&c->managed, c->req->manager, MOCK_MF_APPLY, NULL,
	                              c->req->subresource);
	/* The applier's time moves only when the object changes. */
	if (self && content_changed(c->live, obj))
		rc = mock_mf_entry_set_time(self, c->req->now);
	if (rc == 0) {
		mock_managed_prune(&c->managed);
		rc = mock_managed_encode(obj, &c->managed);
	}
	json_object_put(changed);
	json_object_put(removed);
	return rc;
}

int mock_apply(json_object **out, nl_status **st, const mock_apply_req *req)
{
	apply_ctx c = {req, NULL, NULL, NULL, {0}, st};
	json_object *obj = NULL, *empty = NULL;
	*st = NULL;
	mock_managed_init(&c.managed);
	int rc = check_config(&c);
	if (rc == 0 && !req->live)
		rc = mock_managed_empty_object(&empty, req->r);
	c.live = req->live ? req->live : empty;
	if (rc == 0)
		rc = prepare_config(&c);
	if (rc == 0)
		rc = mock_managed_decode(&c.managed, c.live);
	if (rc == 0)
		rc = build_object(&c, &obj);
	if (rc == 0)
		rc = finish(&c, obj);
	mock_managed_free(&c.managed);
	json_object_put(c.config);
	json_object_put(c.set);
	json_object_put(empty);
	if (rc) {
		json_object_put(obj);
		return rc;
	}
	*out = obj;
	return 0;
}
