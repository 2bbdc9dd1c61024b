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

#include "api/schema.h"
#include "fieldset.h"

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

/* What entries sort by. */
typedef struct {
	const char *operation, *time, *manager, *api_version, *subresource;
} entry_key;

/* sortEncodedManagedFields. Times are UTC RFC 3339 seconds, so their text
 * orders as they do; no time sorts first (upstream: 0 seconds). */
static int key_cmp(const entry_key *a, const entry_key *b)
{
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

static entry_key key_of(const mock_mf_entry *e)
{
	entry_key k = {e->operation, e->time, e->manager, e->api_version, e->subresource};
	return k;
}

static int entry_cmp(const void *pa, const void *pb)
{
	entry_key a = key_of(*(const mock_mf_entry *const *)pa);
	entry_key b = key_of(*(const mock_mf_entry *const *)pb);
	return key_cmp(&a, &b);
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

/* Whether obj's members already are in s's field order (then
 * mock_schema_sort_object would change nothing). */
static int in_schema_order(json_object *obj, const nl_schema *s)
{
	size_t j = 0;
	json_object_object_foreach(obj, k, v)
	{
		(void)v;
		while (j < s->nfields && strcmp(s->fields[j].name, k) != 0)
			j++;
		if (j++ >= s->nfields)
			return 0;
	}
	return 1;
}

/* metadata.managedFields = list (moved in, put on failure), metadata in Go
 * order. */
static int set_list(json_object *meta, json_object *list)
{
	if (json_object_object_add(meta, "managedFields", list) != 0) {
		json_object_put(list);
		return NL_ENOMEM;
	}
	return in_schema_order(meta, &nl_schema_object_meta)
	           ? 0
	           : mock_schema_sort_object(meta, &nl_schema_object_meta);
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
	if (rc) {
		json_object_put(list);
		return rc;
	}
	return set_list(meta, list);
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

/* ------------------------------------------------------------------------
 * The common update without field sets: every entry already reads as
 * mock_managed_encode writes it, and the write changes only fields the
 * manager's own Update entry holds (a Lease renewal: spec.renewTime). The
 * general path would then decode every entry, take nothing from anyone,
 * give the manager what it has, set its time and encode the same entries
 * again: the same list with that one time replaced, sorted again. */

/* An entry as encode_entry writes it, with its sort key (borrowed). */
static int canonical_entry(entry_key *k, json_object **fv1, json_object *item)
{
	static const char *const order[] = {"manager",    "operation", "apiVersion",  "time",
	                                    "fieldsType", "fieldsV1",  "subresource", NULL};
	const char *const *want = order;
	memset(k, 0, sizeof(*k));
	*fv1 = NULL;
	if (!json_object_is_type(item, json_type_object))
		return 0;
	json_object_object_foreach(item, key, v)
	{
		/* time and subresource are optional */
		if (*want && strcmp(*want, key) != 0 &&
		    (strcmp(*want, "time") == 0 || strcmp(*want, "subresource") == 0))
			want++;
		if (!*want || strcmp(*want, key) != 0)
			return 0;
		want++;
		if (strcmp(key, "fieldsV1") == 0) {
			*fv1 = v;
			continue;
		}
		if (!json_object_is_type(v, json_type_string))
			return 0;
		const char *text = json_object_get_string(v);
		if (strcmp(key, "manager") == 0)
			k->manager = text;
		else if (strcmp(key, "operation") == 0)
			k->operation = text;
		else if (strcmp(key, "apiVersion") == 0)
			k->api_version = text;
		else if (strcmp(key, "time") == 0)
			k->time = text;
		else if (strcmp(key, "subresource") == 0 && !*text)
			return 0; /* encode_entry leaves an empty one out */
		else if (strcmp(key, "subresource") == 0)
			k->subresource = text;
		else if (strcmp(text, "FieldsV1") != 0)
			return 0;
	}
	if (!k->subresource)
		k->subresource = "";
	return k->manager && k->operation && k->api_version && *fv1 &&
	       mock_fset_fields_v1_canonical(*fv1);
}

typedef struct {
	entry_key key;
	json_object *item, *fv1;
} raw_entry;

static int raw_cmp(const void *pa, const void *pb)
{
	const raw_entry *a = *(const raw_entry *const *)pa, *b = *(const raw_entry *const *)pb;
	return key_cmp(&a->key, &b->key);
}

/* The list whose ownership this write starts from (starting_ownership),
 * NULL when the general path must decide. */
static json_object *starting_list(json_object *obj, json_object *old)
{
	json_object *list = managed_list(obj);
	if (mock_managed_is_reset(obj))
		return NULL;
	if (!list || json_object_array_length(list) == 0)
		list = old ? managed_list(old) : NULL;
	return list && json_object_array_length(list) > 0 ? list : NULL;
}

/* Whether the entries leave ownership as it is, but for the manager's own
 * entry (*mine, -1 when absent) getting the time of a change. */
static int ownership_kept(long *mine, raw_entry *v, size_t n, json_object *changed,
                          json_object *removed, const mock_resource *r, const char *manager,
                          const char *subresource)
{
	int changes = !mock_fset_empty(changed);
	*mine = -1;
	for (size_t i = 0; i < n; i++) {
		const entry_key *k = &v[i].key;
		if (*mine < 0 && strcmp(k->manager, manager) == 0 &&
		    strcmp(k->operation, MOCK_MF_UPDATE) == 0 &&
		    strcmp(k->subresource, subresource) == 0 &&
		    strcmp(k->api_version, r->api_version) == 0)
			*mine = (long)i;
		int own = changes && *mine == (long)i;
		if (mock_fset_fields_v1_overlaps(v[i].fv1, removed) ||
		    (own ? !mock_fset_fields_v1_covers(v[i].fv1, changed)
		         : mock_fset_fields_v1_overlaps(v[i].fv1, changed)))
			return 0;
	}
	return !changes || *mine >= 0;
}

/* A copy of item (sharing its values) with time now, in encode_entry's
 * order. */
static json_object *with_time(const raw_entry *e, const char *now)
{
	json_object *o = json_object_new_object();
	int rc = o ? 0 : NL_ENOMEM;
	json_object_object_foreach(e->item, key, v)
	{
		if (rc == 0 && strcmp(key, "time") != 0)
			rc = json_object_object_add(o, key, json_object_get(v)) ? NL_ENOMEM : 0;
		if (rc == 0 && strcmp(key, "apiVersion") == 0)
			rc = add_string(o, "time", now);
	}
	if (rc) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static int put_sorted(json_object *obj, raw_entry *v, size_t n, long mine, const char *now)
{
	raw_entry **sorted = malloc(n * sizeof(*sorted));
	json_object *meta = nl_meta_ensure(obj);
	json_object *list = sorted && meta ? json_object_new_array_ext((int)n) : NULL;
	int rc = list ? 0 : NL_ENOMEM;
	if (rc == 0 && mine >= 0) {
		if ((v[mine].item = with_time(&v[mine], now)) == NULL)
			rc = NL_ENOMEM;
		else
			v[mine].key.time = now;
	}
	for (size_t i = 0; rc == 0 && i < n; i++)
		sorted[i] = &v[i];
	if (rc == 0)
		qsort(sorted, n, sizeof(*sorted), raw_cmp);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		json_object *item = json_object_get(sorted[i]->item); /* shared */
		if (json_object_array_add(list, item) != 0) {
			json_object_put(item);
			rc = NL_ENOMEM;
		}
	}
	if (mine >= 0)
		json_object_put(v[mine].item); /* with_time's: the list holds it now */
	free(sorted);
	if (rc) {
		json_object_put(list);
		return rc;
	}
	return set_list(meta, list);
}

/* 1 when the write was recorded this way, 0 when the general path must
 * run, NL_ENOMEM. */
static int update_in_place(json_object *obj, json_object *old, json_object *changed,
                           json_object *removed, const mock_resource *r, const char *manager,
                           const char *subresource, const char *now)
{
	json_object *list = starting_list(obj, old);
	size_t n = list ? json_object_array_length(list) : 0;
	raw_entry *v = n && now ? malloc(n * sizeof(*v)) : NULL;
	long mine = -1;
	int rc = 0;
	if (!v)
		return n && now ? NL_ENOMEM : 0;
	for (size_t i = 0; i < n; i++) {
		v[i].item = json_object_array_get_idx(list, i);
		if (!canonical_entry(&v[i].key, &v[i].fv1, v[i].item))
			goto done;
	}
	if (!ownership_kept(&mine, v, n, changed, removed, r, manager, subresource))
		goto done;
	rc = put_sorted(obj, v, n, mock_fset_empty(changed) ? -1 : mine, now);
	rc = rc ? rc : 1;
done:
	free(v);
	return rc;
}

int mock_managed_update(json_object *obj, json_object *old, const mock_resource *r,
                        const char *manager, const char *subresource, const char *now)
{
	mock_managed m;
	json_object *base = NULL, *changed = NULL, *removed = NULL;
	if (!manager || !*manager)
		return 0;
	if (!subresource)
		subresource = "";
	mock_managed_init(&m);
	int rc = old ? 0 : mock_managed_empty_object(&base, r);
	if (rc == 0)
		rc = mock_fset_compare(&changed, &removed, r, old ? old : base, obj);
	if (rc == 0) {
		mock_fset_strip(changed);
		mock_fset_strip(removed);
		rc = old ? update_in_place(obj, old, changed, removed, r, manager, subresource, now)
		         : 0;
	}
	if (rc == 0)
		rc = starting_ownership(&m, obj, old);
	if (rc == 0)
		rc = take_ownership(&m, changed, removed, r, manager, subresource, now);
	if (rc == 0)
		rc = mock_managed_encode(obj, &m);
	json_object_put(base);
	json_object_put(changed);
	json_object_put(removed);
	mock_managed_free(&m);
	return rc < 0 ? rc : 0;
}
