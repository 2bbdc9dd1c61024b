/* Strategic merge patch (application/strategic-merge-patch+json), after
 * k8s.io/apimachinery/pkg/util/strategicpatch as the apiserver runs it
 * (MergeParallelList and IgnoreUnmatchedNulls both on). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patch.h"
#include "patch_internal.h"

#define SMP_DIRECTIVE "$patch"
#define SMP_RETAIN_KEYS "$retainKeys"
#define SMP_SET_ORDER "$setElementOrder"
#define SMP_DELETE_FROM "$deleteFromPrimitiveList"

typedef struct {
	const mock_resource *r;
	nl_err *err;
} smp_ctx;

/* patchStrategy/patchMergeKey struct tags of k8s.io/api v0.32 for the
 * served kinds. Lists not listed here have no strategy: replaced. */
typedef struct {
	int merge;
	const char *key; /* NULL for a list of primitives (merged as a set) */
} smp_meta;

static smp_meta smp_lookup(const mock_resource *r, const char *path)
{
	static const struct {
		int kind; /* -1: every kind (ObjectMeta) */
		const char *path;
		const char *key;
	} tags[] = {
	    {-1, "metadata.ownerReferences", "uid"},
	    {-1, "metadata.finalizers", NULL},
	    {MOCK_KIND_NODE, "spec.podCIDRs", NULL},
	    {MOCK_KIND_NODE, "status.conditions", "type"},
	    {MOCK_KIND_NODE, "status.addresses", "type"},
	    {MOCK_KIND_NAMESPACE, "status.conditions", "type"},
	};
	smp_meta meta = {0, NULL};
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		if (tags[i].kind >= 0 && (!r || (int)r->id != tags[i].kind))
			continue;
		if (strcmp(tags[i].path, path) == 0) {
			meta.merge = 1;
			meta.key = tags[i].key;
		}
	}
	return meta;
}

/* Dotted field path of a member; list items add no segment, so the fields
 * of status.conditions[*] are "status.conditions.<field>". */
static void smp_child_path(char *out, size_t n, const char *path, const char *key)
{
	snprintf(out, n, "%s%s%s", path, *path ? "." : "", key);
}

static int has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* "<prefix>/<field>" → field (upstream extractKey); NULL when malformed. */
static const char *directive_field(const char *key, const char *prefix)
{
	size_t n = strlen(prefix);
	return strncmp(key, prefix, n) == 0 && key[n] == '/' ? key + n + 1 : NULL;
}

static int smp_no_merge_key(smp_ctx *c, json_object *item, const char *key)
{
	mock__patch_govalue g = {.len = 0};
	mock__patch_gv_value(&g, item);
	return nl_err_set(c->err, NL_ERROR, "map: %s does not contain declared merge key: %s",
	                  g.buf, key);
}

static int smp_bad_arg(smp_ctx *c, const char *expected, json_object *got)
{
	return nl_err_set(c->err, NL_ERROR, "expected a %s, but received a %s", expected,
	                  mock__patch_go_type_name(got));
}

/* ------------------------------------------------ item vectors */

typedef struct {
	json_object **items;
	size_t len, cap;
	int owns; /* items are references to put */
} vec;

static int vec_push(vec *v, json_object *o)
{
	if (v->len == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 8;
		json_object **items = realloc(v->items, cap * sizeof(*items));
		if (!items) {
			if (v->owns)
				json_object_put(o);
			return NL_ENOMEM;
		}
		v->items = items;
		v->cap = cap;
	}
	v->items[v->len++] = o;
	return 0;
}

static void vec_clear(vec *v)
{
	for (size_t i = 0; v->owns && i < v->len; i++)
		json_object_put(v->items[i]);
	free(v->items);
	v->items = NULL;
	v->len = v->cap = 0;
}

/* Borrowed view of a JSON array (NULL: empty). */
static int vec_view(vec *v, json_object *arr)
{
	v->owns = 0;
	for (size_t i = 0; mock__patch_is_array(arr) && i < json_object_array_length(arr); i++)
		if (vec_push(v, json_object_array_get_idx(arr, i)))
			return NL_ENOMEM;
	return 0;
}

/* The member named key of item (NULL if absent or null); has says which. */
static json_object *item_key(json_object *item, const char *key, int *has)
{
	json_object *v = NULL;
	*has = mock__patch_is_object(item) && json_object_object_get_ex(item, key, &v);
	return v;
}

/* Upstream index(): position of item in list by merge-key value (maps) or
 * by value (primitives); -1 when absent. */
static long index_of(const vec *list, json_object *item, const char *key)
{
	int has;
	json_object *id = key ? item_key(item, key, &has) : item;
	for (size_t i = 0; i < list->len; i++) {
		json_object *other = key ? item_key(list->items[i], key, &has) : list->items[i];
		if (mock__patch_scalar_equal(id, other))
			return (long)i;
	}
	return -1;
}

/* findMapInSliceBasedOnKeyValue without its errors: the first map that has
 * key with value id; -1 when none. */
static long key_index(const vec *list, const char *key, json_object *id)
{
	int has;
	for (size_t i = 0; i < list->len; i++) {
		json_object *v = item_key(list->items[i], key, &has);
		if (has && mock__patch_scalar_equal(v, id))
			return (long)i;
	}
	return -1;
}

/* normalizeSliceOrder: sort.SliceStable with upstream's less, which is
 * plain insertion sort for the short lists found in objects. */
static int order_less(json_object *a, json_object *b, const vec *order, const char *key)
{
	long ia = index_of(order, a, key);
	if (ia >= 0) {
		long ib = index_of(order, b, key);
		if (ib >= 0)
			return ia < ib;
	}
	return 1;
}

static void order_sort(vec *v, const vec *order, const char *key)
{
	for (size_t i = 1; i < v->len; i++)
		for (size_t j = i; j > 0 && order_less(v->items[j], v->items[j - 1], order, key);
		     j--) {
			json_object *t = v->items[j];
			v->items[j] = v->items[j - 1];
			v->items[j - 1] = t;
		}
}

/* mergeSortedSlice: interleave server-only items (left) with patch items
 * (right); a left item goes first only when both sit in the live list and
 * it sits earlier. Moves the items into a new array. */
static int merge_sorted(json_object **out, vec *left, vec *right, const vec *live, const char *key)
{
	json_object *arr = json_object_new_array();
	size_t i = 0, j = 0;
	if (!arr)
		return NL_ENOMEM;
	while (i < left->len || j < right->len) {
		json_object **pick;
		if (j >= right->len) {
			pick = &left->items[i++];
		} else if (i >= left->len) {
			pick = &right->items[j++];
		} else {
			long li = index_of(live, left->items[i], key);
			long ri = index_of(live, right->items[j], key);
			pick =
			    li >= 0 && ri >= 0 && li < ri ? &left->items[i++] : &right->items[j++];
		}
		if (json_object_array_add(arr, *pick) != 0) {
			json_object_put(arr);
			return NL_ENOMEM;
		}
		*pick = NULL;
	}
	*out = arr;
	return 0;
}

/* validateMergeKeyInLists */
static int smp_check_keys(smp_ctx *c, const vec *list, const char *key)
{
	int has;
	for (size_t i = 0; i < list->len; i++) {
		if (!mock__patch_is_object(list->items[i]))
			return smp_bad_arg(c, "map[string]interface {}", list->items[i]);
		item_key(list->items[i], key, &has);
		if (!has)
			return smp_no_merge_key(c, list->items[i], key);
	}
	return 0;
}

/* findMapInSliceBasedOnKeyValue, for partitioning. */
static int smp_find_by_key(smp_ctx *c, int *found, const vec *list, const char *key,
                           json_object *id)
{
	int has;
	*found = 0;
	for (size_t i = 0; i < list->len; i++) {
		if (!mock__patch_is_object(list->items[i]))
			return nl_err_set(c->err, NL_ERROR, "value for key %zu is not a map.", i);
		json_object *v = item_key(list->items[i], key, &has);
		if (has && mock__patch_scalar_equal(v, id)) {
			*found = 1;
			return 0;
		}
	}
	return 0;
}

/* Which side of the partition item (owned, moved) belongs to. */
static int smp_partition_one(smp_ctx *c, vec *mine, vec *rest, json_object *item, const vec *by,
                             const char *key)
{
	int found = 0, has = 0, rc = 0;
	if (key) {
		if (!mock__patch_is_object(item))
			rc = smp_bad_arg(c, "map[string]interface {}", item);
		json_object *id = rc ? NULL : item_key(item, key, &has);
		if (rc == 0 && !has)
			rc = smp_no_merge_key(c, item, key);
		if (rc == 0)
			rc = smp_find_by_key(c, &found, by, key, id);
	} else {
		found = index_of(by, item, NULL) >= 0;
	}
	if (rc) {
		json_object_put(item);
		return rc;
	}
	return vec_push(found ? mine : rest, item);
}

/* Upstream's "enforce the order": items of merged (consumed) present in by
 * sorted as in by, the others as in live, then interleaved. key is NULL
 * for lists of primitives. */
static int smp_order(smp_ctx *c, json_object **out, vec *merged, const vec *by, const vec *live,
                     const char *key)
{
	vec mine = {.owns = 1}, rest = {.owns = 1};
	int rc = 0;
	for (size_t i = 0; i < merged->len && rc == 0; i++) {
		rc = smp_partition_one(c, &mine, &rest, merged->items[i], by, key);
		merged->items[i] = NULL;
	}
	if (rc == 0 && key)
		rc = smp_check_keys(c, &mine, key);
	if (rc == 0 && key)
		rc = smp_check_keys(c, by, key);
	if (rc == 0 && key)
		rc = smp_check_keys(c, &rest, key);
	if (rc == 0 && key)
		rc = smp_check_keys(c, live, key);
	if (rc == 0) {
		order_sort(&mine, by, key);
		order_sort(&rest, live, key);
		rc = merge_sorted(out, &rest, &mine, live, key);
	}
	vec_clear(&mine);
	vec_clear(&rest);
	return rc;
}

/* ------------------------------------------------ maps and lists */

static int smp_map(smp_ctx *c, json_object **out, const char *path, json_object *orig,
                   json_object *patch);

/* A patch value that lands where nothing can merge with it (a new field,
 * a type change, a replaced list): taken as is, except that directives are
 * resolved against nothing and nulls dropped, so none reaches the object. */
static int smp_fresh(smp_ctx *c, json_object **out, const char *path, json_object *v)
{
	if (mock__patch_is_object(v))
		return smp_map(c, out, path, NULL, v);
	if (!mock__patch_is_array(v))
		return mock__patch_copy(out, v);
	json_object *arr = json_object_new_array();
	if (!arr)
		return NL_ENOMEM;
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		json_object *item = json_object_array_get_idx(v, i), *copy = NULL;
		if (mock__patch_is_object(item) &&
		    json_object_object_get_ex(item, SMP_DIRECTIVE, NULL))
			continue; /* $patch items only act on an existing list */
		int rc = smp_fresh(c, &copy, path, item);
		if (rc == 0 && json_object_array_add(arr, copy) != 0) {
			json_object_put(copy);
			rc = NL_ENOMEM;
		}
		if (rc) {
			json_object_put(arr);
			return rc;
		}
	}
	*out = arr;
	return 0;
}

/* sliceElementType: every item of both lists has one JSON type, not a list. */
static int smp_elem_type(smp_ctx *c, enum json_type *out, int *any, json_object *a, json_object *b)
{
	json_object *lists[2] = {a, b};
	*any = 0;
	for (int l = 0; l < 2; l++) {
		for (size_t i = 0;
		     mock__patch_is_array(lists[l]) && i < json_object_array_length(lists[l]);
		     i++) {
			enum json_type t =
			    json_object_get_type(json_object_array_get_idx(lists[l], i));
			if (!*any && t == json_type_array)
				return nl_err_set(c->err, NL_EINVALID,
				                  "lists of lists are not supported");
			if (*any && t != *out) {
				mock__patch_govalue g = {.len = 0};
				mock__patch_gv_append(&g, "[");
				mock__patch_gv_value(&g, a);
				mock__patch_gv_append(&g, " ");
				mock__patch_gv_value(&g, b);
				mock__patch_gv_append(&g, "]");
				return nl_err_set(c->err, NL_ERROR,
				                  "list element types are not identical: %s",
				                  g.buf);
			}
			*out = t;
			*any = 1;
		}
	}
	return 0;
}

/* Set union of two primitive lists; smp_order then places the values. */
static int smp_list_primitives(smp_ctx *c, json_object **out, json_object *orig, json_object *patch)
{
	vec merged = {.owns = 1}, live = {0}, by = {0};
	json_object *lists[2] = {orig, patch};
	int rc = vec_view(&live, orig);
	if (rc == 0)
		rc = vec_view(&by, patch);
	for (int l = 0; l < 2 && rc == 0; l++) {
		for (size_t i = 0; i < json_object_array_length(lists[l]) && rc == 0; i++) {
			json_object *item = json_object_array_get_idx(lists[l], i), *copy = NULL;
			if (index_of(&merged, item, NULL) >= 0)
				continue;
			rc = mock__patch_copy(&copy, item);
			if (rc == 0)
				rc = vec_push(&merged, copy);
		}
	}
	if (rc == 0)
		rc = smp_order(c, out, &merged, &by, &live, NULL);
	vec_clear(&merged);
	vec_clear(&live);
	vec_clear(&by);
	return rc;
}

/* Drops every item of work whose merge key equals that of the $patch:
 * delete item d (deleteMatchingEntries). */
static int smp_delete_items(smp_ctx *c, vec *work, json_object *d, const char *key)
{
	int has;
	json_object *id = item_key(d, key, &has);
	if (!has)
		return smp_no_merge_key(c, d, key);
	for (long at; (at = key_index(work, key, id)) >= 0;) {
		json_object_put(work->items[at]);
		memmove(&work->items[at], &work->items[at + 1],
		        (work->len - (size_t)at - 1) * sizeof(*work->items));
		work->len--;
	}
	return 0;
}

/* mergeSliceWithSpecialElements: applies $patch items of patch to work,
 * collects the others into plain; *replace when the list is replaced. */
static int smp_special_items(smp_ctx *c, vec *work, vec *plain, int *replace, json_object *patch,
                             const char *key)
{
	for (size_t i = 0; i < json_object_array_length(patch); i++) {
		json_object *item = json_object_array_get_idx(patch, i), *d = NULL;
		if (!json_object_object_get_ex(item, SMP_DIRECTIVE, &d)) {
			if (vec_push(plain, item))
				return NL_ENOMEM;
			continue;
		}
		const char *s =
		    json_object_is_type(d, json_type_string) ? json_object_get_string(d) : "";
		int rc = 0;
		if (strcmp(s, "delete") == 0) {
			rc = smp_delete_items(c, work, item, key);
		} else if (strcmp(s, "replace") == 0) {
			*replace = 1;
		} else if (strcmp(s, "merge") == 0) {
			rc = nl_err_set(c->err, NL_ERROR,
			                "merging lists cannot yet be specified in the patch");
		} else {
			mock__patch_govalue dv = {.len = 0}, mv = {.len = 0};
			mock__patch_gv_value(&dv, d);
			mock__patch_gv_value(&mv, item);
			rc = nl_err_set(c->err, NL_ERROR, "unknown patch type: %s in map: %s",
			                dv.buf, mv.buf);
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* mergeSliceWithoutSpecialElements: merge each plain item into the first
 * work item with its key, or append it. */
static int smp_merge_items(smp_ctx *c, vec *work, const vec *plain, const char *path,
                           const char *key)
{
	for (size_t i = 0; i < plain->len; i++) {
		json_object *p = plain->items[i], *merged = NULL;
		int has;
		json_object *id = item_key(p, key, &has);
		if (!has)
			return smp_no_merge_key(c, p, key);
		long at = key_index(work, key, id);
		int rc = smp_map(c, &merged, path, at >= 0 ? work->items[at] : NULL, p);
		if (rc)
			return rc;
		if (at < 0)
			rc = vec_push(work, merged);
		else {
			json_object_put(work->items[at]);
			work->items[at] = merged;
		}
		if (rc)
			return rc;
	}
	return 0;
}

static int smp_list_maps(smp_ctx *c, json_object **out, const char *path, json_object *orig,
                         json_object *patch, const char *key)
{
	vec work = {.owns = 1}, plain = {0}, live = {0}, none = {0};
	int replace = 0, rc = 0;
	for (size_t i = 0; i < json_object_array_length(orig) && rc == 0; i++) {
		json_object *copy = NULL;
		rc = mock__patch_copy(&copy, json_object_array_get_idx(orig, i));
		if (rc == 0)
			rc = vec_push(&work, copy);
	}
	if (rc == 0)
		rc = smp_special_items(c, &work, &plain, &replace, patch, key);
	if (rc == 0 && replace) {
		/* The list becomes the plain items, ordered among themselves. */
		vec_clear(&work);
		for (size_t i = 0; i < plain.len && rc == 0; i++) {
			json_object *item = NULL;
			rc = smp_map(c, &item, path, NULL, plain.items[i]);
			if (rc == 0)
				rc = vec_push(&work, item);
		}
		if (rc == 0)
			rc = smp_order(c, out, &work, &none, &plain, key);
	} else if (rc == 0) {
		/* The live order is the list after deletions, before appends
		 * (merging keeps each item's place and key). */
		size_t n_live = work.len;
		rc = smp_merge_items(c, &work, &plain, path, key);
		for (size_t i = 0; i < n_live && rc == 0; i++)
			rc = vec_push(&live, work.items[i]);
		if (rc == 0)
			rc = smp_order(c, out, &work, &plain, &live, key);
	}
	vec_clear(&work);
	vec_clear(&plain);
	vec_clear(&live);
	return rc;
}

/* mergeSlice for a list with patchStrategy merge (both are arrays). */
static int smp_list(smp_ctx *c, json_object **out, const char *path, json_object *orig,
                    json_object *patch, const char *key)
{
	enum json_type t = json_type_null;
	int any = 0;
	if (json_object_array_length(orig) == 0 && json_object_array_length(patch) == 0)
		return mock__patch_copy(out, orig);
	int rc = smp_elem_type(c, &t, &any, orig, patch);
	if (rc)
		return rc;
	if (t != json_type_object)
		return smp_list_primitives(c, out, orig, patch);
	if (!key) /* every merge list of primitives here is a []string */
		return nl_err_set(c->err, NL_ERROR,
		                  "cannot merge lists without merge key for type string");
	return smp_list_maps(c, out, path, orig, patch, key);
}

/* ------------------------------------------------ map directives */

static int has_string(json_object *list, const char *str)
{
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		json_object *item = json_object_array_get_idx(list, i);
		if (json_object_is_type(item, json_type_string) &&
		    strcmp(json_object_get_string(item), str) == 0)
			return 1;
	}
	return 0;
}

/* applyRetainKeysDirective: every field the patch sets must be listed;
 * fields of the live map that are not listed go. */
static int smp_retain_keys(smp_ctx *c, json_object *res, json_object *patch)
{
	json_object *keys = NULL;
	if (!json_object_object_get_ex(patch, SMP_RETAIN_KEYS, &keys))
		return 0;
	if (!mock__patch_is_array(keys))
		return nl_err_set(c->err, NL_EBADREQUEST, "invalid patch format of retainKeys");
	json_object_object_foreach(patch, k, v)
	{
		if (!v || has_prefix(k, SMP_DELETE_FROM) || has_prefix(k, SMP_SET_ORDER) ||
		    strcmp(k, SMP_RETAIN_KEYS) == 0 || strcmp(k, SMP_DIRECTIVE) == 0)
			continue;
		if (!has_string(keys, k))
			return nl_err_set(c->err, NL_EBADREQUEST,
			                  "invalid patch format of retainKeys");
	}
	json_object_object_foreach(res, rk, rv)
	{
		(void)rv;
		if (!has_string(keys, rk))
			json_object_object_del(res, rk); /* foreach has saved the next entry */
	}
	return 0;
}

/* mergeKeyValueEqual for one patch item and one order item. */
static int smp_order_match(smp_ctx *c, int *eq, json_object *p, json_object *o, const char *key)
{
	int has_p, has_o;
	if (!key) {
		*eq = mock__patch_scalar_equal(p, o);
		return 0;
	}
	if (!mock__patch_is_object(p) || !mock__patch_is_object(o))
		return smp_bad_arg(c, "map[string]interface {}", mock__patch_is_object(p) ? o : p);
	json_object *pk = item_key(p, key, &has_p), *ok = item_key(o, key, &has_o);
	if (!has_p)
		return smp_no_merge_key(c, p, key);
	if (!has_o)
		return smp_no_merge_key(c, o, key);
	*eq = mock__patch_scalar_equal(pk, ok);
	return 0;
}

static int is_delete_item(json_object *item)
{
	json_object *d = NULL;
	return json_object_object_get_ex(item, SMP_DIRECTIVE, &d) &&
	       json_object_is_type(d, json_type_string) &&
	       strcmp(json_object_get_string(d), "delete") == 0;
}

/* validatePatchWithSetOrderList: the patch's items (deletions aside) must
 * appear in the order list, in the same relative order. */
static int smp_check_order(smp_ctx *c, json_object *plist, json_object *order, const char *key)
{
	vec items = {0};
	size_t pn = mock__patch_is_array(plist) ? json_object_array_length(plist) : 0;
	size_t on = json_object_array_length(order), pi = 0, oi = 0;
	int rc = 0, eq = 0;
	if (!pn || !on)
		return 0;
	for (size_t i = 0; i < pn && rc == 0; i++) {
		json_object *item = json_object_array_get_idx(plist, i);
		if (key && !mock__patch_is_object(item))
			rc = smp_bad_arg(c, "map[string]interface {}", item);
		else if (!key || !is_delete_item(item))
			rc = vec_push(&items, item);
	}
	while (rc == 0 && pi < items.len && oi < on) {
		json_object *p = items.items[pi];
		if (mock__patch_is_object(p) && json_object_object_get_ex(p, SMP_DIRECTIVE, NULL)) {
			pi++;
			continue;
		}
		rc = smp_order_match(c, &eq, p, json_object_array_get_idx(order, oi), key);
		pi += rc == 0 && eq;
		oi++;
	}
	if (rc == 0 && pi < items.len && oi >= on) {
		mock__patch_govalue pv = {.len = 0}, ov = {.len = 0};
		mock__patch_gv_value(&pv, plist);
		mock__patch_gv_value(&ov, order);
		rc = nl_err_set(c->err, NL_ERROR,
		                "The order in patch list:\n%s\n doesn't match %s list:\n%s\n",
		                pv.buf, SMP_SET_ORDER, ov.buf);
	}
	vec_clear(&items);
	return rc;
}

/* The field's merged list before ordering (mergePatchIntoOriginal). */
static int smp_order_base(smp_ctx *c, json_object **out, const char *path, json_object *olist,
                          json_object *plist, smp_meta meta)
{
	if (!plist)
		return mock__patch_copy(out, olist);
	if (!olist || !meta.merge)
		return smp_fresh(c, out, path, plist);
	return smp_list(c, out, path, olist, plist, meta.key);
}

/* One $setElementOrder/<field>: merge the field's list if the patch has
 * one, then order the result by the directive. */
static int smp_set_order(smp_ctx *c, json_object *res, json_object *patch, const char *path,
                         const char *field, json_object *order)
{
	json_object *olist = NULL, *plist = NULL, *base = NULL, *result = NULL;
	char child[256];
	vec merged = {.owns = 1}, by = {0}, live = {0};
	enum json_type t = json_type_null;
	int any = 0;
	if (!mock__patch_is_array(order))
		return smp_bad_arg(c, "[]interface {}", order);
	int has_o = json_object_object_get_ex(res, field, &olist);
	int has_p = json_object_object_get_ex(patch, field, &plist);
	if ((has_o && !mock__patch_is_array(olist)) || (has_p && !mock__patch_is_array(plist)))
		return smp_bad_arg(c, "[]interface {}",
		                   has_o && !mock__patch_is_array(olist) ? olist : plist);
	smp_child_path(child, sizeof(child), path, field);
	smp_meta meta = smp_lookup(c->r, child);
	int rc = smp_check_order(c, plist, order, meta.key);
	if (rc || (!has_o && !has_p))
		return rc;
	rc = smp_order_base(c, &base, child, olist, plist, meta);
	if (rc == 0)
		rc = smp_elem_type(c, &t, &any, olist, plist);
	if (rc == 0 && any && t == json_type_object && !meta.key)
		rc =
		    nl_err_set(c->err, NL_ERROR, "cannot order a list of maps without a merge key");
	for (size_t i = 0; rc == 0 && i < json_object_array_length(base); i++)
		rc = vec_push(&merged, json_object_get(json_object_array_get_idx(base, i)));
	if (rc == 0)
		rc = vec_view(&by, order);
	if (rc == 0)
		rc = vec_view(&live, olist);
	if (rc == 0)
		rc = smp_order(c, &result, &merged, &by, &live,
		               t == json_type_object ? meta.key : NULL);
	if (rc == 0 && json_object_object_add(res, field, result) != 0) {
		json_object_put(result);
		rc = NL_ENOMEM;
	}
	json_object_put(base);
	vec_clear(&merged);
	vec_clear(&by);
	vec_clear(&live);
	return rc;
}

static int smp_set_orders(smp_ctx *c, json_object *res, json_object *patch, const char *path)
{
	json_object_object_foreach(patch, k, v)
	{
		if (!has_prefix(k, SMP_SET_ORDER))
			continue;
		const char *field = directive_field(k, SMP_SET_ORDER);
		if (!field)
			return nl_err_set(c->err, NL_EBADREQUEST,
			                  "invalid patch format of setElementOrder list");
		int rc = smp_set_order(c, res, patch, path, field, v);
		if (rc)
			return rc;
	}
	return 0;
}

/* $deleteFromPrimitiveList/<field>: drop those values from the live list.
 * (Upstream would store the values as the list when the field is absent
 * or not a list; here that is a no-op.) */
static int smp_delete_from(smp_ctx *c, json_object *res, const char *k, json_object *values)
{
	const char *field = directive_field(k, SMP_DELETE_FROM);
	json_object *cur = NULL, *kept = NULL;
	vec drop = {0};
	if (!field || !mock__patch_is_array(values))
		return nl_err_set(c->err, NL_EBADREQUEST, "invalid patch format of primitive list");
	if (!json_object_object_get_ex(res, field, &cur) || !mock__patch_is_array(cur))
		return 0;
	if (vec_view(&drop, values) || !(kept = json_object_new_array())) {
		vec_clear(&drop);
		return NL_ENOMEM;
	}
	int rc = 0;
	for (size_t i = 0; i < json_object_array_length(cur) && rc == 0; i++) {
		json_object *item = json_object_array_get_idx(cur, i);
		if (index_of(&drop, item, NULL) < 0 &&
		    json_object_array_add(kept, json_object_get(item)) != 0) {
			json_object_put(item);
			rc = NL_ENOMEM;
		}
	}
	if (rc == 0 && json_object_object_add(res, field, kept) != 0)
		rc = NL_ENOMEM;
	if (rc)
		json_object_put(kept);
	vec_clear(&drop);
	return rc;
}

/* Was patch[k] already merged by a $setElementOrder/k directive? */
static int smp_ordered(json_object *patch, const char *k)
{
	size_t n = strlen(SMP_SET_ORDER) + 1 + strlen(k) + 1;
	char *name = malloc(n);
	int found = 0;
	if (name) {
		snprintf(name, n, "%s/%s", SMP_SET_ORDER, k);
		found = json_object_object_get_ex(patch, name, NULL);
		free(name);
	}
	return found;
}

static int same_go_type(json_object *a, json_object *b)
{
	return json_object_get_type(a) == json_object_get_type(b);
}

/* One member of the patch map merged into res (mergeMap's loop body). */
static int smp_field(smp_ctx *c, json_object *res, json_object *patch, const char *path,
                     const char *k, json_object *v)
{
	json_object *cur = NULL, *next = NULL;
	char child[256];
	int rc;
	if (strcmp(k, SMP_DIRECTIVE) == 0 || strcmp(k, SMP_RETAIN_KEYS) == 0 ||
	    has_prefix(k, SMP_SET_ORDER) || smp_ordered(patch, k))
		return 0;
	if (has_prefix(k, SMP_DELETE_FROM))
		return smp_delete_from(c, res, k, v);
	if (!v) {
		json_object_object_del(res, k);
		return 0;
	}
	smp_child_path(child, sizeof(child), path, k);
	if (!json_object_object_get_ex(res, k, &cur) || !same_go_type(cur, v)) {
		rc = smp_fresh(c, &next, child, v);
	} else if (mock__patch_is_object(cur)) {
		rc = smp_map(c, &next, child, cur, v);
	} else if (mock__patch_is_array(cur)) {
		smp_meta meta = smp_lookup(c->r, child);
		rc = meta.merge ? smp_list(c, &next, child, cur, v, meta.key)
		                : smp_fresh(c, &next, child, v);
	} else {
		rc = mock__patch_copy(&next, v);
	}
	if (rc == 0 && json_object_object_add(res, k, next) != 0) {
		json_object_put(next);
		rc = NL_ENOMEM;
	}
	return rc;
}

/* mergeMap without a $patch directive (or with $patch: replace, orig NULL). */
static int smp_map_body(smp_ctx *c, json_object **out, const char *path, json_object *orig,
                        json_object *patch)
{
	json_object *res = NULL;
	int rc = orig ? mock__patch_copy(&res, orig) : 0;
	if (rc == 0 && !res && !(res = json_object_new_object()))
		rc = NL_ENOMEM;
	if (rc == 0)
		rc = smp_retain_keys(c, res, patch);
	if (rc == 0)
		rc = smp_set_orders(c, res, patch, path);
	if (rc == 0) {
		json_object_object_foreach(patch, k, v)
		{
			rc = smp_field(c, res, patch, path, k, v);
			if (rc)
				break;
		}
	}
	if (rc) {
		json_object_put(res);
		return rc;
	}
	*out = res;
	return 0;
}

/* mergeMap: orig is the live map (borrowed, NULL when absent), patch the
 * patch map; *out is a new map. $patch: replace takes the patch's map,
 * $patch: delete leaves an empty map (handleDirectiveInMergeMap). */
static int smp_map(smp_ctx *c, json_object **out, const char *path, json_object *orig,
                   json_object *patch)
{
	json_object *d = NULL;
	if (!json_object_object_get_ex(patch, SMP_DIRECTIVE, &d))
		return smp_map_body(c, out, path, orig, patch);
	const char *s = json_object_is_type(d, json_type_string) ? json_object_get_string(d) : "";
	if (strcmp(s, "replace") == 0)
		return smp_map_body(c, out, path, NULL, patch);
	if (strcmp(s, "delete") == 0) {
		*out = json_object_new_object();
		return *out ? 0 : NL_ENOMEM;
	}
	mock__patch_govalue dv = {.len = 0}, mv = {.len = 0};
	mock__patch_gv_value(&dv, d);
	mock__patch_gv_value(&mv, patch);
	return nl_err_set(c->err, NL_ERROR, "unknown patch type: %s in map: %s", dv.buf, mv.buf);
}

int mock_patch_strategic(json_object **out, const mock_resource *r, json_object *doc,
                         json_object *patch, nl_err *err)
{
	smp_ctx c = {r, err};
	json_object *res = NULL;
	if (patch && !mock__patch_is_object(patch))
		return nl_err_set(
		    err, NL_EBADREQUEST,
		    "json: cannot unmarshal %s into Go value of type map[string]interface {}",
		    nl_json_go_kind(patch));
	if (!mock__patch_is_object(doc))
		return nl_err_set(err, NL_EINVAL, "strategic merge patch needs an object to patch");
	/* A JSON null patch decodes to an empty map: nothing changes. */
	int rc = patch ? smp_map(&c, &res, "", doc, patch) : mock__patch_copy(&res, doc);
	if (rc)
		return rc == NL_ENOMEM ? mock__patch_oom(err) : rc;
	*out = res;
	return 0;
}
