/* The typed walks of fieldset.h over the served kinds' schemas, after
 * structured-merge-diff v4's typed package: ToFieldSet, Compare,
 * RemoveItems, EnsureNamedFieldsAreMembers and Merge.
 *
 * Differences, all invisible for objects our validation accepts: a keyed
 * list with an item lacking its key (or a set holding a non-scalar) is
 * treated as atomic instead of being an error, and items repeated under
 * one key count once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/schema.h"
#include "fieldset.h"
#include "fieldset_internal.h"
#include "patch_internal.h"

#define JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

typedef enum { T_NONE, T_STRUCT, T_MAP, T_LMAP, T_SET, T_LEAF } tkind;

/* What the schema says about the value at one place of the object. */
typedef struct {
	tkind kind;
	const nl_schema *s; /* T_STRUCT; the item struct of T_LMAP */
	const char *key;    /* T_LMAP: the key field of its items */
	const char *path;   /* dotted field path; list items share their list's */
	int kind_id;        /* the object's mock_kind */
} ftype;

/* x-kubernetes-list-type of the lists that are not atomic (k8s.io/api
 * v0.32). For these kinds they coincide with the strategic-merge-patch
 * tags in patch_strategic.c, but the two come from different upstream
 * sources and could diverge. */
static const struct {
	int kind; /* -1: every kind (ObjectMeta) */
	const char *path;
	const char *key; /* NULL: a set */
} list_types[] = {
    {-1, "metadata.ownerReferences", "uid"},
    {-1, "metadata.finalizers", NULL},
    {MOCK_KIND_NODE, "spec.podCIDRs", NULL},
    {MOCK_KIND_NODE, "status.conditions", "type"},
    {MOCK_KIND_NODE, "status.addresses", "type"},
    {MOCK_KIND_NAMESPACE, "status.conditions", "type"},
};

static ftype root_type(const mock_resource *r)
{
	ftype t = {T_STRUCT, r->schema, NULL, "", (int)r->id};
	return t;
}

static const nl_field *find_field(const nl_schema *s, const char *name)
{
	for (size_t i = 0; s && i < s->nfields; i++)
		if (strcmp(s->fields[i].name, name) == 0)
			return &s->fields[i];
	return NULL;
}

static void list_type(ftype *out, const nl_field *f)
{
	out->kind = T_LEAF;
	for (size_t i = 0; i < sizeof(list_types) / sizeof(list_types[0]); i++) {
		if ((list_types[i].kind >= 0 && list_types[i].kind != out->kind_id) ||
		    strcmp(list_types[i].path, out->path) != 0)
			continue;
		out->kind = list_types[i].key ? T_LMAP : T_SET;
		out->key = list_types[i].key;
		out->s = f->sub;
	}
}

/* "<parent>.<name>" (name alone at the root) in buf, as snprintf would
 * cut it; without snprintf's cost in the common case. */
static const char *join_path(char *buf, size_t n, const char *parent, const char *name)
{
	size_t pl = strlen(parent), nl = strlen(name);
	if (pl + 1 + nl >= n) {
		snprintf(buf, n, "%s%s%s", parent, pl ? "." : "", name);
		return buf;
	}
	memcpy(buf, parent, pl);
	if (pl)
		buf[pl++] = '.';
	memcpy(buf + pl, name, nl + 1);
	return buf;
}

/* The type of member name of a value of type t; buf holds its path.
 * 0 when t has no such member (an unknown field). */
static int child_type(ftype *out, const ftype *t, const char *name, char *buf, size_t n)
{
	memset(out, 0, sizeof(*out));
	out->kind_id = t->kind_id;
	out->path = t->path;
	if (t->kind == T_MAP) {
		out->kind = T_LEAF;
		return 1;
	}
	const nl_field *f = t->kind == T_STRUCT ? find_field(t->s, name) : NULL;
	if (!f)
		return 0;
	/* Only list_type reads paths, for lists and what is below structs: a
	 * leaf keeps its parent's (most members are leaves, and this runs for
	 * each member an update compares). */
	if (f->type == NL_FT_OBJECT || f->type == NL_FT_ARRAY)
		out->path = join_path(buf, n, t->path, name);
	switch (f->type) {
	case NL_FT_OBJECT:
		out->kind = T_STRUCT;
		out->s = f->sub;
		break;
	case NL_FT_MAP_STRING:
	case NL_FT_MAP_BYTES:
	case NL_FT_MAP_QUANTITY:
	case NL_FT_MAP_STRINGS:
		out->kind = T_MAP;
		break;
	case NL_FT_ARRAY:
		list_type(out, f);
		break;
	default:
		out->kind = T_LEAF;
		break;
	}
	return 1;
}

static ftype item_type(const ftype *list)
{
	ftype t = *list;
	t.kind = list->kind == T_LMAP && list->s ? T_STRUCT : T_LEAF;
	t.key = NULL;
	return t;
}

static int is_scalar(json_object *v)
{
	return v && !mock__patch_is_object(v) && !mock__patch_is_array(v);
}

/* ------------------------------------------------------------ path elements */

/* mock_fset_ops: per thread, as requests run on several. */
static _Thread_local unsigned long ops;

unsigned long mock_fset_ops(void)
{
	return ops;
}

static char *concat(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	char *s = malloc(na + nb + 1);
	if (s) {
		memcpy(s, a, na);
		memcpy(s + na, b, nb + 1);
	}
	return s;
}

/* The element naming item in list (type t): "k:{...}" or "v:...". 1 when
 * the item cannot be named (no key, not a scalar), NL_ENOMEM. */
static int item_el(char **out, const ftype *t, json_object *item)
{
	json_object *k = NULL, *id = NULL, *copy = NULL;
	ops++;
	if (t->kind == T_SET) {
		if (!is_scalar(item))
			return 1;
		*out = concat("v:", json_object_to_json_string_ext(item, JSON_FLAGS));
		return *out ? 0 : NL_ENOMEM;
	}
	if (!mock__patch_is_object(item) || !json_object_object_get_ex(item, t->key, &id) ||
	    !is_scalar(id))
		return 1;
	if (mock__patch_copy(&copy, id) || !(k = json_object_new_object()) ||
	    json_object_object_add(k, t->key, copy) != 0) {
		json_object_put(copy);
		json_object_put(k);
		return NL_ENOMEM;
	}
	*out = concat("k:", json_object_to_json_string_ext(k, JSON_FLAGS));
	json_object_put(k);
	return *out ? 0 : NL_ENOMEM;
}

/* Whether every item of list can be named: otherwise the list is atomic. */
static int keyable(const ftype *t, json_object *list)
{
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		json_object *item = json_object_array_get_idx(list, i);
		if (t->kind == T_SET ? !is_scalar(item)
		                     : !mock__patch_is_object(item) ||
		                           !json_object_object_get_ex(item, t->key, NULL) ||
		                           !is_scalar(json_object_object_get(item, t->key)))
			return 0;
	}
	return 1;
}

/* ------------------------------------------------------------ list indexes */

/* A keyed list's (or set's) items by path element, as upstream's
 * indexListPathElements maps them: el[i] names item i, and sorted holds the
 * items by (element, position), so the first item with an element is a
 * binary search away. Comparing or merging lists of n items then costs
 * O(n log n) instead of a scan per item (issue 19: 8,000 ownerReferences
 * took 9 s). */
typedef struct {
	const char *el;
	size_t pos;
} el_pos;

typedef struct {
	char **el;
	el_pos *sorted;
	size_t n;
} list_index;

static void lindex_free(list_index *x)
{
	for (size_t i = 0; x->el && i < x->n; i++)
		free(x->el[i]);
	free(x->el);
	free(x->sorted);
	memset(x, 0, sizeof(*x));
}

static int el_pos_cmp(const void *pa, const void *pb)
{
	const el_pos *a = pa, *b = pb;
	int c = (ops++, strcmp(a->el, b->el));
	return c ? c : (a->pos > b->pos) - (a->pos < b->pos);
}

/* Index list, whose items keyable() said can all be named (NULL or not an
 * array: no items). 0 or NL_ENOMEM. */
static int lindex_build(list_index *x, const ftype *t, json_object *list)
{
	size_t n = mock__patch_is_array(list) ? json_object_array_length(list) : 0;
	memset(x, 0, sizeof(*x));
	if (!n)
		return 0;
	x->n = n;
	x->el = calloc(n, sizeof(*x->el));
	x->sorted = malloc(n * sizeof(*x->sorted));
	if (!x->el || !x->sorted)
		goto oom;
	for (size_t i = 0; i < n; i++) {
		if (item_el(&x->el[i], t, json_object_array_get_idx(list, i)) != 0)
			goto oom; /* keyable() was checked: only allocation fails */
		x->sorted[i].el = x->el[i];
		x->sorted[i].pos = i;
	}
	qsort(x->sorted, n, sizeof(*x->sorted), el_pos_cmp);
	return 0;
oom:
	lindex_free(x);
	return NL_ENOMEM;
}

/* Position of the first item named el, or -1. */
static long lindex_first(const list_index *x, const char *el)
{
	size_t lo = 0, hi = x->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ops++, strcmp(x->sorted[mid].el, el) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < x->n && (ops++, strcmp(x->sorted[lo].el, el) == 0))
		return (long)x->sorted[lo].pos;
	return -1;
}

/* value.ToString: strings as Go's %q, other scalars as %v. */

/* ------------------------------------------------------------ walks */

#define WALK_FIELD_BUFSZ 64

/* A position in the object being walked: the path elements so far (owned)
 * and the sets members go to. */
typedef struct {
	char *el[MOCK__FSET_MAX_DEPTH];
	/* Field elements short enough live in fbuf (not owned): one
	 * allocation less per member walked. */
	char fbuf[MOCK__FSET_MAX_DEPTH][WALK_FIELD_BUFSZ];
	size_t n;
	json_object *set;     /* mock_fset_from_object */
	json_object *changed; /* mock_fset_compare */
	json_object *removed;
	nl_err *err;
} walker;

static int push(walker *w, char *el)
{
	if (!el)
		return NL_ENOMEM;
	if (w->n == MOCK__FSET_MAX_DEPTH) {
		free(el);
		return nl_err_set(w->err, NL_EBADREQUEST, "object nested deeper than %d levels",
		                  MOCK__FSET_MAX_DEPTH);
	}
	w->el[w->n++] = el;
	return 0;
}

/* Push "f:<name>". */
static int push_field(walker *w, const char *name)
{
	size_t n = strlen(name);
	if (n + 3 > WALK_FIELD_BUFSZ || w->n == MOCK__FSET_MAX_DEPTH)
		return push(w, concat("f:", name));
	char *el = w->fbuf[w->n];
	el[0] = 'f';
	el[1] = ':';
	memcpy(el + 2, name, n + 1);
	w->el[w->n++] = el;
	return 0;
}

static void pop(walker *w)
{
	w->n--;
	if (w->el[w->n] != w->fbuf[w->n])
		free(w->el[w->n]);
}

static void walker_clear(walker *w)
{
	while (w->n)
		pop(w);
}

/* Add the walker's current path to set. */
static int insert(json_object *set, const walker *w)
{
	json_object *node = set;
	for (size_t i = 0; i < w->n; i++) {
		json_object *child = NULL;
		if (!json_object_object_get_ex(node, w->el[i], &child)) {
			child = json_object_new_object();
			if (!child || json_object_object_add(node, w->el[i], child) != 0) {
				json_object_put(child);
				return NL_ENOMEM;
			}
		}
		node = child;
	}
	return w->n ? mock__fset_mark(node) : 0;
}

static void path_string(nl_buf *b, char *const *el, size_t n)
{
	for (size_t i = 0; i < n; i++)
		mock__fset_el_string(b, el[i]);
}

static int unknown_field(walker *w, const char *name)
{
	nl_buf b;
	nl_buf_init(&b, 4096);
	path_string(&b, w->el, w->n);
	nl_buf_printf(&b, ".%s", name);
	int rc = nl_err_set(w->err, NL_EBADREQUEST, "%s: field not declared in schema",
	                    b.data ? b.data : "");
	nl_buf_free(&b);
	return rc;
}

static int from_value(walker *w, const ftype *t, json_object *v);

static int from_struct(walker *w, const ftype *t, json_object *v)
{
	json_object_object_foreach(v, k, val)
	{
		ftype ct;
		char buf[256];
		if (!child_type(&ct, t, k, buf, sizeof(buf)))
			return unknown_field(w, k);
		int rc = push_field(w, k);
		if (rc)
			return rc;
		rc = from_value(w, &ct, val);
		pop(w);
		if (rc)
			return rc;
	}
	return 0;
}

static int from_list(walker *w, const ftype *t, json_object *v)
{
	ftype it = item_type(t);
	if (!keyable(t, v))
		return insert(w->set, w);
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		json_object *item = json_object_array_get_idx(v, i);
		char *el = NULL;
		int rc = item_el(&el, t, item);
		if (rc == 0)
			rc = push(w, el);
		if (rc)
			return rc;
		rc = it.kind == T_STRUCT ? from_value(w, &it, item) : 0;
		if (rc == 0)
			rc = insert(w->set, w);
		pop(w);
		if (rc)
			return rc;
	}
	return 0;
}

/* toFieldSetWalker: leaves, map keys and list items are members; struct
 * fields only through what is below them. */
static int from_value(walker *w, const ftype *t, json_object *v)
{
	switch (t->kind) {
	case T_STRUCT:
	case T_MAP:
		return mock__patch_is_object(v) ? from_struct(w, t, v) : insert(w->set, w);
	case T_LMAP:
	case T_SET:
		return mock__patch_is_array(v) ? from_list(w, t, v) : insert(w->set, w);
	default:
		return insert(w->set, w);
	}
}

int mock_fset_from_object(json_object **out, const mock_resource *r, json_object *obj, nl_err *err)
{
	walker w = {.n = 0, .err = err};
	ftype t = root_type(r);
	if (!(w.set = mock_fset_new()))
		return NL_ENOMEM;
	int rc = mock__patch_is_object(obj) ? from_struct(&w, &t, obj) : 0;
	walker_clear(&w);
	if (rc) {
		json_object_put(w.set);
		return rc;
	}
	*out = w.set;
	return 0;
}

static int compare_value(walker *w, const ftype *t, json_object *l, json_object *r);

static int leaf(walker *w, json_object *l, json_object *r)
{
	if (!l)
		return insert(w->changed, w);
	if (!r)
		return insert(w->removed, w);
	return mock__patch_json_equal(l, r) ? 0 : insert(w->changed, w);
}

static int compare_member(walker *w, const ftype *t, const char *k, json_object *l, json_object *r)
{
	ftype ct;
	char buf[256];
	if ((!l && !r) || !child_type(&ct, t, k, buf, sizeof(buf)))
		return 0;
	int rc = push_field(w, k);
	if (rc)
		return rc;
	rc = compare_value(w, &ct, l, r);
	pop(w);
	return rc;
}

static int compare_maps(walker *w, const ftype *t, json_object *l, json_object *r)
{
	int rc = 0;
	if (l) {
		json_object_object_foreach(l, k, lv)
		{
			json_object *rv = NULL;
			if (r)
				json_object_object_get_ex(r, k, &rv);
			if ((rc = compare_member(w, t, k, lv, rv)) != 0)
				return rc;
		}
	}
	if (r) {
		json_object_object_foreach(r, k, rv)
		{
			if (l && json_object_object_get_ex(l, k, NULL))
				continue;
			if ((rc = compare_member(w, t, k, NULL, rv)) != 0)
				return rc;
		}
	}
	return 0;
}

static int compare_item(walker *w, const ftype *t, json_object *li, json_object *ri, const char *el)
{
	ftype it = item_type(t);
	int rc = push(w, strdup(el));
	if (rc)
		return rc;
	rc = compare_value(w, &it, li, ri);
	pop(w);
	return rc;
}

/* Items of l first (changed or removed), then those only r has; an element
 * repeated on one side counts once, at its first item. */
static int compare_lists(walker *w, const ftype *t, json_object *l, json_object *r)
{
	json_object *sides[2] = {l, r};
	list_index x[2];
	int rc = lindex_build(&x[0], t, l);
	if (rc)
		return rc;
	if ((rc = lindex_build(&x[1], t, r)) != 0) {
		lindex_free(&x[0]);
		return rc;
	}
	for (int s = 0; s < 2 && rc == 0; s++) {
		const list_index *mine = &x[s], *other = &x[1 - s];
		for (size_t i = 0; i < mine->n && rc == 0; i++) {
			const char *el = mine->el[i];
			long at = lindex_first(other, el);
			if (lindex_first(mine, el) != (long)i || (s == 1 && at >= 0))
				continue; /* duplicates count once; shared items were compared */
			json_object *item = json_object_array_get_idx(sides[s], i);
			json_object *o =
			    at >= 0 ? json_object_array_get_idx(sides[1 - s], (size_t)at) : NULL;
			rc = s == 0 ? compare_item(w, t, item, o, el)
			            : compare_item(w, t, NULL, item, el);
		}
	}
	lindex_free(&x[0]);
	lindex_free(&x[1]);
	return rc;
}

static int nonempty(json_object *v, enum json_type type)
{
	if (!v || !json_object_is_type(v, type))
		return 0;
	return type == json_type_object ? json_object_object_length(v) > 0
	                                : json_object_array_length(v) > 0;
}

static int typed(json_object *v, enum json_type type)
{
	return !v || json_object_is_type(v, type);
}

/* compareWalker: containers empty on both sides, atomic lists and scalars
 * are leaves; a container only one side has is itself added or removed. */
static int compare_value(walker *w, const ftype *t, json_object *l, json_object *r)
{
	int rc;
	switch (t->kind) {
	case T_STRUCT:
	case T_MAP:
		if ((!nonempty(l, json_type_object) && !nonempty(r, json_type_object)) ||
		    !typed(l, json_type_object) || !typed(r, json_type_object))
			return leaf(w, l, r);
		rc = compare_maps(w, t, l, r);
		break;
	case T_LMAP:
	case T_SET:
		if ((!nonempty(l, json_type_array) && !nonempty(r, json_type_array)) ||
		    !typed(l, json_type_array) || !typed(r, json_type_array) ||
		    (l && !keyable(t, l)) || (r && !keyable(t, r)))
			return leaf(w, l, r);
		rc = compare_lists(w, t, l, r);
		break;
	default:
		return leaf(w, l, r);
	}
	if (rc == 0 && !l)
		rc = insert(w->changed, w);
	else if (rc == 0 && !r)
		rc = insert(w->removed, w);
	return rc;
}

int mock_fset_compare(json_object **changed, json_object **removed, const mock_resource *r,
                      json_object *lhs, json_object *rhs)
{
	walker w = {.n = 0};
	ftype t = root_type(r);
	w.changed = mock_fset_new();
	w.removed = mock_fset_new();
	int rc = w.changed && w.removed ? compare_maps(&w, &t, lhs, rhs) : NL_ENOMEM;
	walker_clear(&w);
	if (rc) {
		json_object_put(w.changed);
		json_object_put(w.removed);
		return rc;
	}
	*changed = w.changed;
	*removed = w.removed;
	return 0;
}

static int ensure_named(const ftype *t, json_object *node)
{
	json_object_object_foreach(node, k, child)
	{
		ftype ct;
		char buf[256];
		int rc = 0;
		if (strcmp(k, MOCK__FSET_MEMBER) == 0)
			continue;
		if (t->kind == T_STRUCT && k[0] == 'f' &&
		    child_type(&ct, t, k + 2, buf, sizeof(buf))) {
			if ((rc = mock__fset_mark(child)) == 0)
				rc = ensure_named(&ct, child);
		} else if (t->kind == T_LMAP && k[0] == 'k') {
			ftype it = item_type(t);
			rc = ensure_named(&it, child);
		}
		if (rc)
			return rc;
	}
	return 0;
}

int mock_fset_ensure_named(json_object *s, const mock_resource *r)
{
	ftype t = root_type(r);
	return ensure_named(&t, s);
}

static int remove_items(const ftype *t, json_object *v, json_object *node);

static int remove_field(const ftype *t, json_object *v, const char *name, json_object *child)
{
	json_object *cv = NULL;
	ftype ct;
	char buf[256];
	if (!json_object_object_get_ex(v, name, &cv))
		return 0;
	if (mock__fset_is_member(child)) {
		json_object_object_del(v, name);
		return 0;
	}
	return child_type(&ct, t, name, buf, sizeof(buf)) ? remove_items(&ct, cv, child) : 0;
}

/* json_object_array_del_idx for each marked item would move the rest of
 * the list each time: keep the others and put them back in one pass. */
static int drop_marked(json_object *v, const char *gone, size_t n)
{
	json_object **keep = malloc(n * sizeof(*keep));
	size_t kept = 0;
	if (!keep)
		return NL_ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!gone[i])
			keep[kept++] = json_object_get(json_object_array_get_idx(v, i));
	int rc = json_object_array_del_idx(v, 0, n) ? NL_ENOMEM : 0;
	for (size_t i = 0; i < kept; i++) {
		if (rc == 0 && json_object_array_add(v, keep[i]) != 0)
			rc = NL_ENOMEM;
		if (rc)
			json_object_put(keep[i]);
	}
	free(keep);
	return rc;
}

/* The items of v (a keyable list of type t) node's children name: a member
 * goes with what is below it, another loses what its own children name.
 * The first item with an element is the one named, as upstream. */
static int remove_list_items(const ftype *t, json_object *v, json_object *node)
{
	size_t n = json_object_array_length(v);
	char *gone = NULL;
	list_index x;
	ftype it = item_type(t);
	int rc = lindex_build(&x, t, v);
	if (rc)
		return rc;
	json_object_object_foreach(node, k, child)
	{
		long at = (k[0] == 'k' || k[0] == 'v') && k[1] == ':' ? lindex_first(&x, k) : -1;
		if (at < 0)
			continue;
		if (!mock__fset_is_member(child))
			rc = remove_items(&it, json_object_array_get_idx(v, (size_t)at), child);
		else if (gone || (gone = calloc(n, 1)) != NULL)
			gone[at] = 1;
		else
			rc = NL_ENOMEM;
		if (rc)
			break;
	}
	if (rc == 0 && gone)
		rc = drop_marked(v, gone, n);
	free(gone);
	lindex_free(&x);
	return rc;
}

static int remove_items(const ftype *t, json_object *v, json_object *node)
{
	if (t->kind == T_LMAP || t->kind == T_SET)
		return mock__patch_is_array(v) && keyable(t, v) ? remove_list_items(t, v, node) : 0;
	if ((t->kind != T_STRUCT && t->kind != T_MAP) || !mock__patch_is_object(v))
		return 0;
	json_object_object_foreach(node, k, child)
	{
		int rc = k[0] == 'f' && k[1] == ':' ? remove_field(t, v, k + 2, child) : 0;
		if (rc)
			return rc;
	}
	return 0;
}

int mock_fset_remove_from(json_object *obj, json_object *s, const mock_resource *r)
{
	ftype t = root_type(r);
	return remove_items(&t, obj, s);
}

/* ------------------------------------------------------------ merge */

/* A list's items by element, first occurrences only (indexListPathElements):
 * el and item in list order (el borrowed from all), at[i] the place among
 * them of the list's item i when it is a first occurrence. */
typedef struct {
	list_index all;
	size_t *at;
	const char **el;
	json_object **item;
	size_t n;
} indexed;

static void indexed_free(indexed *x)
{
	lindex_free(&x->all);
	free(x->at);
	free(x->el);
	free(x->item);
	memset(x, 0, sizeof(*x));
}

static long indexed_find(const indexed *x, const char *el)
{
	long p = el ? lindex_first(&x->all, el) : -1;
	return p < 0 ? -1 : (long)x->at[p];
}

static int index_list(indexed *x, const ftype *t, json_object *list)
{
	memset(x, 0, sizeof(*x));
	int rc = lindex_build(&x->all, t, list);
	size_t n = x->all.n;
	if (rc || !n)
		return rc;
	x->at = malloc(n * sizeof(*x->at));
	x->el = malloc(n * sizeof(*x->el));
	x->item = malloc(n * sizeof(*x->item));
	if (!x->at || !x->el || !x->item) {
		indexed_free(x);
		return NL_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (lindex_first(&x->all, x->all.el[i]) != (long)i)
			continue;
		x->at[i] = x->n;
		x->el[x->n] = x->all.el[i];
		x->item[x->n++] = json_object_array_get_idx(list, i);
	}
	return 0;
}

static int merge_value(json_object **out, const ftype *t, json_object *l, json_object *r);

/* Merges the item named el (either side may lack it) and appends it. */
static int merge_item(json_object *arr, const ftype *t, const indexed *lx, const indexed *rx,
                      const char *el)
{
	ftype it = item_type(t);
	long li = indexed_find(lx, el), ri = indexed_find(rx, el);
	json_object *m = NULL;
	int rc = ri < 0 ? mock__patch_copy(&m, lx->item[li])
	                : merge_value(&m, &it, li >= 0 ? lx->item[li] : NULL, rx->item[ri]);
	if (rc == 0 && json_object_array_add(arr, m) != 0) {
		json_object_put(m);
		rc = NL_ENOMEM;
	}
	return rc;
}

/* The next shared element after position *at of rx (config order), or NULL. */
static const char *next_shared(const indexed *rx, const indexed *lx, size_t *at)
{
	while (*at < rx->n && indexed_find(lx, rx->el[*at]) < 0)
		(*at)++;
	return *at < rx->n ? rx->el[(*at)++] : NULL;
}

/* mergingWalker.visitListItems: walks both lists at once, so shared items
 * follow config's order and live-only items keep their place. */
static int merge_lists(json_object *arr, const ftype *t, const indexed *lx, const indexed *rx)
{
	size_t li = 0, ri = 0, shared_at = 0;
	char *done = rx->n ? calloc(rx->n, 1) : NULL; /* rx items already merged */
	const char *shared = next_shared(rx, lx, &shared_at);
	int rc = rx->n && !done ? NL_ENOMEM : 0;
	while (rc == 0 && (li < lx->n || ri < rx->n)) {
		const char *le = li < lx->n ? lx->el[li] : NULL;
		long in_r = indexed_find(rx, le);
		if (le && ri < rx->n && strcmp(le, rx->el[ri]) == 0) {
			done[ri] = 1;
			rc = merge_item(arr, t, lx, rx, le);
			li++;
			ri++;
			shared = next_shared(rx, lx, &shared_at);
			continue;
		}
		if (le && ri < rx->n && in_r >= 0 && shared && strcmp(shared, le) != 0) {
			li++; /* shared, but not the one wanted now */
			continue;
		}
		if (le && (in_r < 0 || done[in_r])) {
			rc = in_r < 0 ? merge_item(arr, t, lx, rx, le) : 0;
			li++;
			continue;
		}
		if (ri < rx->n) {
			const char *re = rx->el[ri];
			done[ri++] = 1;
			rc = merge_item(arr, t, lx, rx, re);
			if (shared && strcmp(shared, re) == 0)
				shared = next_shared(rx, lx, &shared_at);
		}
	}
	free(done);
	return rc;
}

static int merge_list(json_object **out, const ftype *t, json_object *l, json_object *r)
{
	indexed lx, rx;
	json_object *arr = NULL;
	int rc = index_list(&lx, t, l);
	if (rc)
		return rc;
	rc = index_list(&rx, t, r);
	if (rc == 0 && !(arr = json_object_new_array()))
		rc = NL_ENOMEM;
	if (rc == 0)
		rc = merge_lists(arr, t, &lx, &rx);
	indexed_free(&lx);
	indexed_free(&rx);
	if (rc) {
		json_object_put(arr);
		return rc;
	}
	*out = arr;
	return 0;
}

static int merge_map(json_object **out, const ftype *t, json_object *l, json_object *r)
{
	json_object *res = NULL;
	int rc = mock__patch_copy(&res, l);
	if (rc)
		return rc;
	json_object_object_foreach(r, k, rv)
	{
		ftype ct;
		char buf[256];
		json_object *lv = NULL, *m = NULL;
		json_object_object_get_ex(res, k, &lv);
		if (child_type(&ct, t, k, buf, sizeof(buf)))
			rc = merge_value(&m, &ct, lv, rv);
		else
			rc = mock__patch_copy(&m, rv);
		if (rc == 0 && json_object_object_add(res, k, m) != 0) {
			json_object_put(m);
			rc = NL_ENOMEM;
		}
		if (rc) {
			json_object_put(res);
			return rc;
		}
	}
	*out = res;
	return 0;
}

/* l or r may be NULL: absent on the live side, JSON null in config. */
static int merge_value(json_object **out, const ftype *t, json_object *l, json_object *r)
{
	switch (t->kind) {
	case T_STRUCT:
	case T_MAP:
		if (mock__patch_is_object(l) && mock__patch_is_object(r))
			return merge_map(out, t, l, r);
		break;
	case T_LMAP:
	case T_SET:
		if (mock__patch_is_array(l) && mock__patch_is_array(r) && keyable(t, l) &&
		    keyable(t, r))
			return merge_list(out, t, l, r);
		break;
	default:
		break;
	}
	return mock__patch_copy(out, r);
}

int mock_fset_merge(json_object **out, const mock_resource *r, json_object *live,
                    json_object *config)
{
	ftype t = root_type(r);
	if (!mock__patch_is_object(config))
		return mock__patch_copy(out, live);
	if (!mock__patch_is_object(live))
		return mock__patch_copy(out, config);
	return merge_map(out, &t, live, config);
}
