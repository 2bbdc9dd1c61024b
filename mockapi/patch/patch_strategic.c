/* Strategic merge patch (application/strategic-merge-patch+json), after
 * k8s.io/apimachinery/pkg/util/strategicpatch as the apiserver runs it
 * (MergeParallelList and IgnoreUnmatchedNulls both on). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patch.h"
#include "patch_internal.h"

#define SMP_DIRECTIVE "$patch"
#define SMP_RETAIN_KEYS "$retainKeys"
#define SMP_SET_ORDER "$setElementOrder"
#define SMP_DELETE_FROM "$deleteFromPrimitiveList"

/* mock_patch_strategic_ops: per thread, as requests run on several. */
static _Thread_local unsigned long ops;

unsigned long mock_patch_strategic_ops(void)
{
	return ops;
}

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

static int has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

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
	    {MOCK_KIND_POD, "spec.volumes", "name"},
	    {MOCK_KIND_POD, "spec.initContainers", "name"},
	    {MOCK_KIND_POD, "spec.containers", "name"},
	    {MOCK_KIND_POD, "spec.ephemeralContainers", "name"},
	    {MOCK_KIND_POD, "spec.imagePullSecrets", "name"},
	    {MOCK_KIND_POD, "spec.hostAliases", "ip"},
	    {MOCK_KIND_POD, "spec.topologySpreadConstraints", "topologyKey"},
	    {MOCK_KIND_POD, "spec.schedulingGates", "name"},
	    {MOCK_KIND_POD, "spec.resourceClaims", "name"},
	    {MOCK_KIND_POD, "status.conditions", "type"},
	    {MOCK_KIND_POD, "status.hostIPs", "ip"},
	    {MOCK_KIND_POD, "status.podIPs", "ip"},
	    {MOCK_KIND_POD, "status.resourceClaimStatuses", "name"},
	};
	/* Container's (and EphemeralContainerCommon's) lists, in each of the
	 * three container lists. */
	static const struct {
		const char *field, *key;
	} container_tags[] = {
	    {"ports", "containerPort"},
	    {"env", "name"},
	    {"volumeMounts", "mountPath"},
	    {"volumeDevices", "devicePath"},
	};
	static const char *const containers[] = {"spec.containers.", "spec.initContainers.",
	                                         "spec.ephemeralContainers."};
	smp_meta meta = {0, NULL};
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		if (tags[i].kind >= 0 && (!r || (int)r->id != tags[i].kind))
			continue;
		if (strcmp(tags[i].path, path) == 0) {
			meta.merge = 1;
			meta.key = tags[i].key;
		}
	}
	for (size_t i = 0; r && r->id == MOCK_KIND_POD && i < 3; i++) {
		if (!has_prefix(path, containers[i]))
			continue;
		for (size_t k = 0; k < sizeof(container_tags) / sizeof(container_tags[0]); k++)
			if (strcmp(path + strlen(containers[i]), container_tags[k].field) == 0) {
				meta.merge = 1;
				meta.key = container_tags[k].key;
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

/* ------------------------------------------------ item indexes */

/* The items of a list hashed by identity (merge-key value, or the value
 * itself), so that finding an item's first position costs O(1) instead of
 * a scan: upstream scans, which made patching a few thousand finalizers
 * take seconds (issue 19). Equality stays mock__patch_scalar_equal, which
 * is transitive on what is indexed (NaN, maps and lists equal nothing and
 * are left out). Entries are positions, chained per bucket in ascending
 * order, and compared against the list's current items. */
typedef struct {
	const vec *list;
	const char *key;            /* NULL: items are their own identity */
	int need_key;               /* key_index: an item without the key never matches */
	size_t *head, *tail, *next; /* position + 1; 0 ends a chain */
	size_t mask, cap;
} smp_index;

/* The identity of item; *ok is 0 when it can equal nothing. */
static json_object *ident(const smp_index *x, json_object *item, int *ok)
{
	int has = 1;
	json_object *v = x->key ? item_key(item, x->key, &has) : item;
	enum json_type t = json_object_get_type(v);
	*ok = (has || !x->need_key) && t != json_type_object && t != json_type_array &&
	      !(t == json_type_double && json_object_get_double(v) != json_object_get_double(v));
	return v;
}

static size_t hash_value(json_object *v)
{
	unsigned long long h = 0xcbf29ce484222325ull ^ (unsigned)json_object_get_type(v);
	unsigned char bytes[16];
	size_t n = 0;
	const unsigned char *p = bytes;
	switch (json_object_get_type(v)) {
	case json_type_boolean:
		bytes[n++] = (unsigned char)json_object_get_boolean(v);
		break;
	case json_type_int: {
		int64_t i = json_object_get_int64(v);
		uint64_t u = json_object_get_uint64(v);
		memcpy(bytes, &i, 8);
		memcpy(bytes + 8, &u, 8);
		n = 16;
		break;
	}
	case json_type_double: {
		double d = json_object_get_double(v);
		if (d == 0)
			d = 0; /* -0 == 0 */
		memcpy(bytes, &d, 8);
		n = 8;
		break;
	}
	case json_type_string:
		p = (const unsigned char *)json_object_get_string(v);
		n = (size_t)json_object_get_string_len(v);
		break;
	default:
		break;
	}
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return (size_t)(h ^ (h >> 29));
}

static void index_free(smp_index *x)
{
	free(x->head);
	free(x->tail);
	free(x->next);
	x->head = x->tail = x->next = NULL;
}

/* Indexes list's first cap items as they are pushed (index_add); cap
 * bounds how many. */
static int index_init(smp_index *x, const vec *list, const char *key, int need_key, size_t cap)
{
	size_t nb = 8;
	while (nb < 2 * cap)
		nb *= 2;
	*x = (smp_index){list,
	                 key,
	                 need_key,
	                 calloc(nb, sizeof(size_t)),
	                 calloc(nb, sizeof(size_t)),
	                 calloc(cap + 1, sizeof(size_t)),
	                 nb - 1,
	                 cap};
	if (!x->head || !x->tail || !x->next) {
		index_free(x);
		return NL_ENOMEM;
	}
	return 0;
}

/* Adds position pos (the list's newest item, so chains stay ascending). */
static void index_add(smp_index *x, size_t pos)
{
	int ok;
	json_object *v = ident(x, x->list->items[pos], &ok);
	if (!ok || pos >= x->cap)
		return;
	size_t b = hash_value(v) & x->mask;
	x->next[pos] = 0;
	if (x->tail[b])
		x->next[x->tail[b] - 1] = pos + 1;
	else
		x->head[b] = pos + 1;
	x->tail[b] = pos + 1;
}

static int index_build(smp_index *x, const vec *list, const char *key, int need_key)
{
	int rc = index_init(x, list, key, need_key, list->len);
	for (size_t i = 0; rc == 0 && i < list->len; i++)
		index_add(x, i);
	return rc;
}

/* First position whose identity equals id; -1 when none. Entries whose item
 * lost its identity since (a merge can drop the key) are unlinked. */
static long index_find(smp_index *x, json_object *id)
{
	enum json_type t = json_object_get_type(id);
	if (t == json_type_object || t == json_type_array)
		return -1;
	size_t b = hash_value(id) & x->mask, prev = 0;
	for (size_t e = x->head[b]; e; e = x->next[e - 1]) {
		int ok;
		json_object *v = ident(x, x->list->items[e - 1], &ok);
		ops++;
		if (ok && mock__patch_scalar_equal(v, id))
			return (long)(e - 1);
		if (ok && (hash_value(v) & x->mask) == b) {
			prev = e;
			continue;
		}
		if (prev)
			x->next[prev - 1] = x->next[e - 1];
		else
			x->head[b] = x->next[e - 1];
		if (x->tail[b] == e)
			x->tail[b] = prev;
	}
	return -1;
}

/* Upstream index() of item: by merge-key value, an absent key counting as
 * null, or by value. */
static long index_of(smp_index *x, json_object *item)
{
	int has;
	return index_find(x, x->key ? item_key(item, x->key, &has) : item);
}

/* Positions in x of v's items (-1: absent), into a new array. */
static long *index_ranks(smp_index *x, const vec *v)
{
	long *r = malloc((v->len + 1) * sizeof(*r));
	for (size_t i = 0; r && i < v->len; i++)
		r[i] = index_of(x, v->items[i]);
	return r;
}

/* normalizeSliceOrder: sort.SliceStable with upstream's less, run as the
 * insertion sort this code always ran: less(a, b) is "both in order and a
 * earlier", or true when either is not in order. So an item not in order
 * moves to the front; one in order stops right after the last sorted item
 * in order with a rank not above its own, and the items not in order that
 * followed that one now follow it. Items in order thus end up stably
 * sorted by rank, each followed by a run ("gap") of items not in order;
 * tracking gaps as lists and the last item per rank in a Fenwick tree
 * gives the same result in O(n log n). */
static int order_sort(vec *v, smp_index *order)
{
	if (v->len < 2)
		return 0; /* nothing moves (and v->items may be NULL) */
	size_t n = v->len, m = order->list->len;
	long *rank = index_ranks(order, v);
	size_t *fen = calloc(m + 1, sizeof(*fen)), *last = calloc(m + 1, sizeof(*last));
	size_t *gap = calloc(n + 1, sizeof(*gap)), *link = calloc(n + 1, sizeof(*link));
	size_t *count = calloc(m + 1, sizeof(*count)), *byrank = calloc(n + 1, sizeof(*byrank));
	json_object **sorted = malloc((n + 1) * sizeof(*sorted));
	size_t front = 0, log = 1, k = 0;
	int rc = rank && fen && last && gap && link && count && byrank && sorted ? 0 : NL_ENOMEM;
	while (log * 2 <= m)
		log *= 2;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (rank[i] < 0) { /* to the front, before the earlier ones */
			link[i] = front;
			front = i + 1;
			continue;
		}
		size_t r = (size_t)rank[i], c = 0, at = 0;
		for (size_t j = r + 1; j; j -= j & -j, ops++)
			c += fen[j];
		if (c) { /* the c-th ranked item: the highest rank <= r */
			for (size_t step = log; step; step /= 2, ops++)
				if (at + step <= m && fen[at + step] < c)
					c -= fen[at += step];
			size_t *p = &gap[last[at] - 1];
			gap[i] = *p;
			*p = 0;
		} else {
			gap[i] = front;
			front = 0;
		}
		last[r] = i + 1;
		count[r]++;
		for (size_t j = r + 1; j <= m; j += j & -j, ops++)
			fen[j]++;
	}
	if (rc == 0) {
		size_t sum = 0;
		for (size_t q = 0; q < m; q++) {
			size_t c = count[q];
			count[q] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			if (rank[i] >= 0)
				byrank[count[rank[i]]++] = i;
		for (size_t e = front; e; e = link[e - 1])
			sorted[k++] = v->items[e - 1];
		for (size_t j = 0; j < sum; j++) {
			sorted[k++] = v->items[byrank[j]];
			for (size_t e = gap[byrank[j]]; e; e = link[e - 1])
				sorted[k++] = v->items[e - 1];
		}
		memcpy(v->items, sorted, n * sizeof(*sorted));
	}
	free(rank);
	free(fen);
	free(last);
	free(gap);
	free(link);
	free(count);
	free(byrank);
	free(sorted);
	return rc;
}

/* mergeSortedSlice: interleave server-only items (left) with patch items
 * (right); a left item goes first only when both sit in the live list and
 * it sits earlier. Moves the items into a new array. */
static int merge_sorted(json_object **out, vec *left, vec *right, smp_index *live)
{
	json_object *arr = json_object_new_array();
	long *lr = index_ranks(live, left), *rr = index_ranks(live, right);
	size_t i = 0, j = 0;
	int rc = arr && lr && rr ? 0 : NL_ENOMEM;
	while (rc == 0 && (i < left->len || j < right->len)) {
		json_object **pick;
		if (j >= right->len) {
			pick = &left->items[i++];
		} else if (i >= left->len) {
			pick = &right->items[j++];
		} else {
			long li = lr[i], ri = rr[j];
			pick =
			    li >= 0 && ri >= 0 && li < ri ? &left->items[i++] : &right->items[j++];
		}
		if (json_object_array_add(arr, *pick) != 0)
			rc = NL_ENOMEM;
		else
			*pick = NULL;
	}
	free(lr);
	free(rr);
	if (rc) {
		json_object_put(arr);
		return rc;
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

/* Which side of the partition item (owned, moved) belongs to: whether by
 * holds it (findMapInSliceBasedOnKeyValue, whose scan fails at a non-map
 * item, bad, before a match). */
static int smp_partition_one(smp_ctx *c, vec *mine, vec *rest, json_object *item, smp_index *by,
                             size_t bad)
{
	int found = 0, has = 0, rc = 0;
	if (by->key) {
		if (!mock__patch_is_object(item))
			rc = smp_bad_arg(c, "map[string]interface {}", item);
		json_object *id = rc ? NULL : item_key(item, by->key, &has);
		if (rc == 0 && !has)
			rc = smp_no_merge_key(c, item, by->key);
		long at = rc ? -1 : index_find(by, id);
		if (rc == 0 && bad < by->list->len && (at < 0 || bad < (size_t)at))
			rc = nl_err_set(c->err, NL_ERROR, "value for key %zu is not a map.", bad);
		found = at >= 0;
	} else {
		found = index_of(by, item) >= 0;
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
	smp_index bx = {0}, lx = {0};
	size_t bad = 0;
	while (key && bad < by->len && mock__patch_is_object(by->items[bad]))
		bad++;
	int rc = index_build(&bx, by, key, 1);
	if (rc == 0)
		rc = index_build(&lx, live, key, 1);
	for (size_t i = 0; i < merged->len && rc == 0; i++) {
		rc =
		    smp_partition_one(c, &mine, &rest, merged->items[i], &bx, key ? bad : SIZE_MAX);
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
	if (rc == 0)
		rc = order_sort(&mine, &bx);
	if (rc == 0)
		rc = order_sort(&rest, &lx);
	if (rc == 0)
		rc = merge_sorted(out, &rest, &mine, &lx);
	index_free(&bx);
	index_free(&lx);
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
	smp_index seen = {0};
	int rc = vec_view(&live, orig);
	if (rc == 0)
		rc = vec_view(&by, patch);
	if (rc == 0)
		rc = index_init(&seen, &merged, NULL, 0, live.len + by.len);
	for (int l = 0; l < 2 && rc == 0; l++) {
		for (size_t i = 0; i < json_object_array_length(lists[l]) && rc == 0; i++) {
			json_object *item = json_object_array_get_idx(lists[l], i), *copy = NULL;
			if (index_of(&seen, item) >= 0)
				continue;
			rc = mock__patch_copy(&copy, item);
			if (rc == 0)
				rc = vec_push(&merged, copy);
			if (rc == 0)
				index_add(&seen, merged.len - 1);
		}
	}
	index_free(&seen);
	if (rc == 0)
		rc = smp_order(c, out, &merged, &by, &live, NULL);
	vec_clear(&merged);
	vec_clear(&live);
	vec_clear(&by);
	return rc;
}

/* Drops every item of work whose merge key equals that of a $patch:
 * delete item of dels (deleteMatchingEntries for each, in one pass). */
static int smp_delete_items(vec *work, const vec *dels, const char *key)
{
	smp_index dx = {0};
	size_t kept = 0;
	if (!dels->len)
		return 0;
	if (index_build(&dx, dels, key, 1))
		return NL_ENOMEM;
	for (size_t i = 0; i < work->len; i++) {
		int has;
		json_object *v = item_key(work->items[i], key, &has);
		if (has && index_find(&dx, v) >= 0)
			json_object_put(work->items[i]);
		else
			work->items[kept++] = work->items[i];
	}
	work->len = kept;
	index_free(&dx);
	return 0;
}

/* mergeSliceWithSpecialElements: applies $patch items of patch to work,
 * collects the others into plain; *replace when the list is replaced. */
static int smp_special_items(smp_ctx *c, vec *work, vec *plain, int *replace, json_object *patch,
                             const char *key)
{
	vec dels = {0};
	int rc = 0;
	for (size_t i = 0; i < json_object_array_length(patch) && rc == 0; i++) {
		json_object *item = json_object_array_get_idx(patch, i), *d = NULL;
		if (!json_object_object_get_ex(item, SMP_DIRECTIVE, &d)) {
			rc = vec_push(plain, item);
			continue;
		}
		const char *s =
		    json_object_is_type(d, json_type_string) ? json_object_get_string(d) : "";
		int has;
		if (strcmp(s, "delete") == 0) {
			item_key(item, key, &has);
			rc = has ? vec_push(&dels, item) : smp_no_merge_key(c, item, key);
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
	}
	if (rc == 0)
		rc = smp_delete_items(work, &dels, key);
	vec_clear(&dels);
	return rc;
}

/* mergeSliceWithoutSpecialElements: merge each plain item into the first
 * work item with its key, or append it. */
static int smp_merge_items(smp_ctx *c, vec *work, const vec *plain, const char *path,
                           const char *key)
{
	smp_index wx = {0};
	/* Room for the items appended too. */
	int rc = index_init(&wx, work, key, 1, work->len + plain->len);
	for (size_t i = 0; rc == 0 && i < work->len; i++)
		index_add(&wx, i);
	for (size_t i = 0; i < plain->len && rc == 0; i++) {
		json_object *p = plain->items[i], *merged = NULL;
		int has;
		json_object *id = item_key(p, key, &has);
		if (!has) {
			rc = smp_no_merge_key(c, p, key);
			break;
		}
		long at = index_find(&wx, id);
		rc = smp_map(c, &merged, path, at >= 0 ? work->items[at] : NULL, p);
		if (rc == 0 && at < 0) {
			rc = vec_push(work, merged);
			if (rc == 0)
				index_add(&wx, work->len - 1);
		} else if (rc == 0) {
			/* Its entry stays: the key is kept equal, or gone (then
			 * index_find drops the entry). */
			json_object_put(work->items[at]);
			work->items[at] = merged;
		}
	}
	index_free(&wx);
	return rc;
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

/* The strings of list, as the keys of a new map (a set); NULL: no memory. */
static json_object *string_set(json_object *list)
{
	json_object *set = json_object_new_object();
	for (size_t i = 0; set && i < json_object_array_length(list); i++) {
		json_object *item = json_object_array_get_idx(list, i);
		if (json_object_is_type(item, json_type_string) &&
		    json_object_object_add(set, json_object_get_string(item), NULL) != 0) {
			json_object_put(set);
			set = NULL;
		}
	}
	return set;
}

static int has_string(json_object *set, const char *str)
{
	ops++;
	return json_object_object_get_ex(set, str, NULL);
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
	json_object *set = string_set(keys);
	if (!set)
		return NL_ENOMEM;
	json_object_object_foreach(patch, k, v)
	{
		if (!v || has_prefix(k, SMP_DELETE_FROM) || has_prefix(k, SMP_SET_ORDER) ||
		    strcmp(k, SMP_RETAIN_KEYS) == 0 || strcmp(k, SMP_DIRECTIVE) == 0)
			continue;
		if (!has_string(set, k)) {
			json_object_put(set);
			return nl_err_set(c->err, NL_EBADREQUEST,
			                  "invalid patch format of retainKeys");
		}
	}
	json_object_object_foreach(res, rk, rv)
	{
		(void)rv;
		if (!has_string(set, rk))
			json_object_object_del(res, rk); /* foreach has saved the next entry */
	}
	json_object_put(set);
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
	smp_index dx = {0};
	if (!field || !mock__patch_is_array(values))
		return nl_err_set(c->err, NL_EBADREQUEST, "invalid patch format of primitive list");
	if (!json_object_object_get_ex(res, field, &cur) || !mock__patch_is_array(cur))
		return 0;
	if (vec_view(&drop, values) || index_build(&dx, &drop, NULL, 0) ||
	    !(kept = json_object_new_array())) {
		index_free(&dx);
		vec_clear(&drop);
		return NL_ENOMEM;
	}
	int rc = 0;
	for (size_t i = 0; i < json_object_array_length(cur) && rc == 0; i++) {
		json_object *item = json_object_array_get_idx(cur, i);
		if (index_of(&dx, item) < 0 &&
		    json_object_array_add(kept, json_object_get(item)) != 0) {
			json_object_put(item);
			rc = NL_ENOMEM;
		}
	}
	if (rc == 0 && json_object_object_add(res, field, kept) != 0)
		rc = NL_ENOMEM;
	if (rc)
		json_object_put(kept);
	index_free(&dx);
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
