/* managedFields bookkeeping (managed_fields.h), after
 * k8s.io/apimachinery/pkg/util/managedfields/internal (decode, encode,
 * managedFieldsUpdater) and structured-merge-diff's Updater.Update.
 *
 * Not kept: the cap of ten Update entries (upstream folds older ones into
 * an "ancient-changes" entry) and per-version conversion (every served kind
 * has one version). */
#include "managed_fields.h"

#include <nodelet/meta.h>
#include <stdlib.h>
#include <string.h>

#include "fieldset.h"
#include "schema.h"

void mock_managed_init(mock_managed *m)
{
	memset(m, 0, sizeof(*m));
}

static void entry_free(mock_mf_entry *e)
{
	free(e->manager);
	free(e->operation);
	free(e->api_version);
	free(e->time);
	free(e->subresource);
	json_object_put(e->set);
	memset(e, 0, sizeof(*e));
}

void mock_managed_free(mock_managed *m)
{
	for (size_t i = 0; i < m->n; i++)
		entry_free(&m->v[i]);
	free(m->v);
	mock_managed_init(m);
}

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

/* Appends e (moved in; zeroed on failure too). */
static int push_entry(mock_managed *m, mock_mf_entry *e)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 4;
		mock_mf_entry *v = realloc(m->v, cap * sizeof(*v));
		if (!v) {
			entry_free(e);
			return NL_ENOMEM;
		}
		m->v = v;
		m->cap = cap;
	}
	m->v[m->n++] = *e;
	memset(e, 0, sizeof(*e));
	return 0;
}

static json_object *managed_list(json_object *obj)
{
	json_object *list = nl_json_get_path(obj, "metadata");
	if (!list || !json_object_object_get_ex(list, "managedFields", &list) ||
	    !json_object_is_type(list, json_type_array))
		return NULL;
	return list;
}

int mock_managed_is_reset(json_object *obj)
{
	json_object *list = managed_list(obj), *item;
	if (!list || json_object_array_length(list) != 1)
		return 0;
	item = json_object_array_get_idx(list, 0);
	return json_object_is_type(item, json_type_object) && json_object_object_length(item) == 0;
}

/* One entry; 1 when it is unusable (skipped), NL_ENOMEM. */
static int decode_entry(mock_mf_entry *e, json_object *item)
{
	const char *type = nl_json_get_string(item, "fieldsType");
	const char *time = nl_json_get_string(item, "time");
	json_object *fv1 = NULL;
	memset(e, 0, sizeof(*e));
	if (!json_object_is_type(item, json_type_object) || !type ||
	    strcmp(type, "FieldsV1") != 0 || !json_object_object_get_ex(item, "fieldsV1", &fv1))
		return 1;
	int rc = mock_fset_from_fields_v1(&e->set, fv1);
	if (rc)
		return rc == NL_ENOMEM ? rc : 1;
	e->manager = dup_or_empty(nl_json_get_string(item, "manager"));
	e->operation = dup_or_empty(nl_json_get_string(item, "operation"));
	e->api_version = dup_or_empty(nl_json_get_string(item, "apiVersion"));
	e->subresource = dup_or_empty(nl_json_get_string(item, "subresource"));
	e->time = time ? strdup(time) : NULL;
	if (!e->manager || !e->operation || !e->api_version || !e->subresource ||
	    (time && !e->time)) {
		entry_free(e);
		return NL_ENOMEM;
	}
	return 0;
}

int mock_managed_decode(mock_managed *m, json_object *obj)
{
	json_object *list = managed_list(obj);
	for (size_t i = 0; list && i < json_object_array_length(list); i++) {
		mock_mf_entry e;
		int rc = decode_entry(&e, json_object_array_get_idx(list, i));
		if (rc == 0)
			rc = push_entry(m, &e);
		if (rc == NL_ENOMEM) {
			mock_managed_free(m);
			return rc;
		}
	}
	return 0;
}

mock_mf_entry *mock_managed_find(mock_managed *m, const char *manager, const char *operation,
                                 const char *api_version, const char *subresource)
{
	for (size_t i = 0; i < m->n; i++) {
		mock_mf_entry *e = &m->v[i];
		if (strcmp(e->manager, manager) == 0 && strcmp(e->operation, operation) == 0 &&
		    strcmp(e->subresource, subresource ? subresource : "") == 0 &&
		    (strcmp(operation, MOCK_MF_APPLY) == 0 ||
		     strcmp(e->api_version, api_version ? api_version : "") == 0))
			return e;
	}
	return NULL;
}

int mock_managed_get(mock_mf_entry **out, mock_managed *m, const char *manager,
                     const char *operation, const char *api_version, const char *subresource)
{
	mock_mf_entry e = {0};
	mock_mf_entry *found = mock_managed_find(m, manager, operation, api_version, subresource);
	if (found) {
		*out = found;
		return 0;
	}
	e.manager = dup_or_empty(manager);
	e.operation = dup_or_empty(operation);
	e.api_version = dup_or_empty(api_version);
	e.subresource = dup_or_empty(subresource);
	e.set = mock_fset_new();
	if (!e.manager || !e.operation || !e.api_version || !e.subresource || !e.set) {
		entry_free(&e);
		return NL_ENOMEM;
	}
	int rc = push_entry(m, &e);
	if (rc == 0)
		*out = &m->v[m->n - 1];
	return rc;
}

int mock_mf_entry_set_time(mock_mf_entry *e, const char *time)
{
	char *t = time ? strdup(time) : NULL;
	if (time && !t)
		return NL_ENOMEM;
	free(e->time);
	e->time = t;
	return 0;
}

void mock_managed_prune(mock_managed *m)
{
	size_t j = 0;
	for (size_t i = 0; i < m->n; i++) {
		if (mock_fset_empty(m->v[i].set))
			entry_free(&m->v[i]);
		else
			m->v[j++] = m->v[i];
	}
	m->n = j;
}

/* sortEncodedManagedFields. Times are UTC RFC 3339 seconds, so their text
 * orders as they do; no time sorts first (upstream: 0 seconds). */
static int entry_cmp(const void *pa, const void *pb)
{
	const mock_mf_entry *a = *(const mock_mf_entry *const *)pa;
	const mock_mf_entry *b = *(const mock_mf_entry *const *)pb;
	int c = strcmp(a->operation, b->operation);
	if (c == 0 && (!a->time || !b->time))
		c = (a->time != NULL) - (b->time != NULL);
	if (c == 0 && a->time)
		c = strcmp(a->time, b->time);
	if (c == 0)
		c = strcmp(a->manager, b->manager);
	if (c == 0)
		c = strcmp(a->api_version, b->api_version);
	if (c == 0)
		c = strcmp(a->subresource, b->subresource);
	return c;
}

static int add_string(json_object *o, const char *key, const char *value)
{
	json_object *v = json_object_new_string(value);
	if (!v || json_object_object_add(o, key, v) != 0) {
		json_object_put(v);
		return NL_ENOMEM;
	}
	return 0;
}

static json_object *encode_entry(const mock_mf_entry *e)
{
	json_object *o = json_object_new_object(), *fv1 = mock_fset_to_fields_v1(e->set);
	int rc = o && fv1 ? 0 : NL_ENOMEM;
	if (rc == 0)
		rc = add_string(o, "manager", e->manager);
	if (rc == 0)
		rc = add_string(o, "operation", e->operation);
	if (rc == 0)
		rc = add_string(o, "apiVersion", e->api_version);
	if (rc == 0 && e->time)
		rc = add_string(o, "time", e->time);
	if (rc == 0)
		rc = add_string(o, "fieldsType", "FieldsV1");
	if (rc == 0) {
		rc = json_object_object_add(o, "fieldsV1", fv1) ? NL_ENOMEM : 0;
		fv1 = rc ? fv1 : NULL;
	}
	if (rc == 0 && *e->subresource)
		rc = add_string(o, "subresource", e->subresource);
	json_object_put(fv1);
	if (rc) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

int mock_managed_encode(json_object *obj, const mock_managed *m)
{
	json_object *meta = nl_meta_ensure(obj), *list = NULL;
	const mock_mf_entry **sorted = m->n ? malloc(m->n * sizeof(*sorted)) : NULL;
	int rc = meta && (sorted || !m->n) ? 0 : NL_ENOMEM;
	if (rc == 0 && m->n == 0) {
		json_object_object_del(meta, "managedFields");
		return 0;
	}
	if (rc == 0 && !(list = json_object_new_array()))
		rc = NL_ENOMEM;
	for (size_t i = 0; rc == 0 && i < m->n; i++)
		sorted[i] = &m->v[i];
	if (rc == 0)
		qsort(sorted, m->n, sizeof(*sorted), entry_cmp);
	for (size_t i = 0; rc == 0 && i < m->n; i++) {
		json_object *e = encode_entry(sorted[i]);
		if (!e || json_object_array_add(list, e) != 0) {
			json_object_put(e);
			rc = NL_ENOMEM;
		}
	}
	free(sorted);
	if (rc == 0 && json_object_object_add(meta, "managedFields", list) != 0)
		rc = NL_ENOMEM;
	else if (rc == 0)
		list = NULL;
	json_object_put(list);
	if (rc == 0)
		rc = mock_schema_sort_object(meta, &mock_object_meta_schema);
	return rc;
}

int mock_managed_empty_object(json_object **out, const mock_resource *r)
{
	json_object *in = json_object_new_object();
	int rc = in ? mock_schema_decode(out, r, in, NULL, NULL) : NL_ENOMEM;
	json_object_put(in);
	return rc ? NL_ENOMEM : 0;
}

/* decodeLiveOrNew: the request's own managedFields win unless empty. */
static int starting_ownership(mock_managed *m, json_object *obj, json_object *old)
{
	if (mock_managed_is_reset(obj))
		return 0;
	int rc = mock_managed_decode(m, obj);
	if (rc == 0 && m->n == 0 && old)
		rc = mock_managed_decode(m, old);
	return rc;
}

/* What every manager loses to this write: changed fields go to its
 * manager (Updates always force), removed ones to nobody. */
static int take_ownership(mock_managed *m, json_object *changed, json_object *removed,
                          const mock_resource *r, const char *manager, const char *subresource,
                          const char *now)
{
	mock_mf_entry *e = NULL;
	for (size_t i = 0; i < m->n; i++) {
		mock_fset_subtract(m->v[i].set, changed);
		mock_fset_subtract(m->v[i].set, removed);
	}
	int rc = 0;
	if (!mock_fset_empty(changed)) {
		rc = mock_managed_get(&e, m, manager, MOCK_MF_UPDATE, r->api_version, subresource);
		if (rc == 0)
			rc = mock_fset_union(e->set, changed);
		if (rc == 0)
			rc = mock_mf_entry_set_time(e, now);
	}
	mock_managed_prune(m);
	return rc;
}

int mock_managed_update(json_object *obj, json_object *old, const mock_resource *r,
                        const char *manager, const char *subresource, const char *now)
{
	mock_managed m;
	json_object *base = NULL, *changed = NULL, *removed = NULL;
	if (!manager || !*manager)
		return 0;
	mock_managed_init(&m);
	int rc = starting_ownership(&m, obj, old);
	if (rc == 0 && !old)
		rc = mock_managed_empty_object(&base, r);
	if (rc == 0)
		rc = mock_fset_compare(&changed, &removed, r, old ? old : base, obj);
	if (rc == 0) {
		mock_fset_strip(changed);
		mock_fset_strip(removed);
		rc = take_ownership(&m, changed, removed, r, manager, subresource, now);
	}
	if (rc == 0)
		rc = mock_managed_encode(obj, &m);
	json_object_put(base);
	json_object_put(changed);
	json_object_put(removed);
	mock_managed_free(&m);
	return rc;
}
