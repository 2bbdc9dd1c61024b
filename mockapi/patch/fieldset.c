/* Field sets (fieldset.h), after sigs.k8s.io/structured-merge-diff v4's
 * fieldpath: set algebra over FieldsV1-shaped trees, FieldsV1 itself, and
 * paths printed as fieldpath.Path.String(). The typed walks over the
 * kinds' schemas are in fieldset_typed.c. */
#include "fieldset.h"

#include <nodelet/quote.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fieldset_internal.h"
#include "patch_internal.h"

#define JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

static void go_string_value(nl_buf *b, json_object *v)
{
	if (!v) {
		nl_buf_adds(b, "null");
		return;
	}
	if (!json_object_is_type(v, json_type_string)) {
		nl_buf_adds(b, json_object_to_json_string_ext(v, JSON_FLAGS));
		return;
	}
	/* value.ToString: fmt.Sprintf("%q", v.AsString()). */
	nl_quote_append_n(b, json_object_get_string(v), (size_t)json_object_get_string_len(v));
}

/* PathElement.String of a serialized element. */
void mock__fset_el_string(nl_buf *b, const char *el)
{
	json_object *v = NULL;
	if (el[0] == 'f') {
		nl_buf_printf(b, ".%s", el + 2);
	} else if (el[0] == 'i') {
		nl_buf_printf(b, "[%s]", el + 2);
	} else if (el[0] == 'v') {
		v = json_tokener_parse(el + 2);
		nl_buf_adds(b, "[=");
		go_string_value(b, v);
		nl_buf_adds(b, "]");
	} else {
		v = json_tokener_parse(el + 2);
		int first = 1;
		nl_buf_adds(b, "[");
		if (mock__patch_is_object(v)) {
			json_object_object_foreach(v, k, kv)
			{
				nl_buf_printf(b, "%s%s=", first ? "" : ",", k);
				go_string_value(b, kv);
				first = 0;
			}
		}
		nl_buf_adds(b, "]");
	}
	json_object_put(v);
}

/* Upstream's element order: fields, keyed items, values, indices. */
static int el_rank(const char *k)
{
	switch (k[0]) {
	case 'f':
		return 0;
	case 'k':
		return 1;
	case 'v':
		return 2;
	default:
		return 3;
	}
}

static int el_cmp(const void *pa, const void *pb)
{
	const char *a = *(const char *const *)pa, *b = *(const char *const *)pb;
	int ra = el_rank(a), rb = el_rank(b);
	if (ra != rb)
		return ra - rb;
	if (ra == 3) {
		long ia = strtol(a + 2, NULL, 10), ib = strtol(b + 2, NULL, 10);
		return (ia > ib) - (ia < ib);
	}
	return strcmp(a, b);
}

static int valid_el(const char *k)
{
	return (k[0] == 'f' || k[0] == 'k' || k[0] == 'v' || k[0] == 'i') && k[1] == ':';
}

/* The child keys of a node (no "."), sorted; *n their number. Borrowed
 * strings; NULL with *n 0 when there are none or on allocation failure. */
static const char **sorted_keys(json_object *node, size_t *n)
{
	size_t cap = (size_t)json_object_object_length(node), i = 0;
	const char **keys = cap ? malloc(cap * sizeof(*keys)) : NULL;
	*n = 0;
	if (!keys)
		return NULL;
	json_object_object_foreach(node, k, v)
	{
		(void)v;
		if (strcmp(k, MOCK__FSET_MEMBER) != 0)
			keys[i++] = k;
	}
	qsort(keys, i, sizeof(*keys), el_cmp);
	*n = i;
	return keys;
}

/* ------------------------------------------------------------ set algebra */

int mock__fset_is_member(json_object *node)
{
	return json_object_object_get_ex(node, MOCK__FSET_MEMBER, NULL);
}

static int has_children(json_object *node)
{
	return json_object_object_length(node) > mock__fset_is_member(node);
}

int mock__fset_mark(json_object *node)
{
	if (mock__fset_is_member(node))
		return 0;
	json_object *e = json_object_new_object();
	if (!e || json_object_object_add(node, MOCK__FSET_MEMBER, e) != 0) {
		json_object_put(e);
		return NL_ENOMEM;
	}
	return 0;
}

json_object *mock_fset_new(void)
{
	return json_object_new_object();
}

int mock_fset_empty(json_object *s)
{
	return !s || json_object_object_length(s) == 0;
}

int mock_fset_union(json_object *dst, json_object *src)
{
	json_object_object_foreach(src, k, v)
	{
		json_object *d = NULL, *copy = NULL;
		int rc;
		if (strcmp(k, MOCK__FSET_MEMBER) == 0)
			rc = mock__fset_mark(dst);
		else if (json_object_object_get_ex(dst, k, &d))
			rc = mock_fset_union(d, v);
		else if ((rc = mock__patch_copy(&copy, v)) == 0 &&
		         json_object_object_add(dst, k, copy) != 0) {
			json_object_put(copy);
			rc = NL_ENOMEM;
		}
		if (rc)
			return rc;
	}
	return 0;
}

void mock_fset_subtract(json_object *dst, json_object *src)
{
	json_object_object_foreach(src, k, v)
	{
		json_object *d = NULL;
		if (!json_object_object_get_ex(dst, k, &d))
			continue;
		if (strcmp(k, MOCK__FSET_MEMBER) == 0) {
			json_object_object_del(dst, MOCK__FSET_MEMBER);
			continue;
		}
		mock_fset_subtract(d, v);
		if (json_object_object_length(d) == 0)
			json_object_object_del(dst, k);
	}
}

int mock_fset_intersect(json_object **out, json_object *a, json_object *b)
{
	json_object *res = json_object_new_object();
	if (!res)
		return NL_ENOMEM;
	json_object_object_foreach(a, k, v)
	{
		json_object *w = NULL, *c = NULL;
		int rc = 0;
		if (!json_object_object_get_ex(b, k, &w))
			continue;
		if (strcmp(k, MOCK__FSET_MEMBER) == 0)
			rc = mock__fset_mark(res);
		else if ((rc = mock_fset_intersect(&c, v, w)) == 0) {
			if (json_object_object_length(c) == 0)
				json_object_put(c);
			else if (json_object_object_add(res, k, c) != 0) {
				json_object_put(c);
				rc = NL_ENOMEM;
			}
		}
		if (rc) {
			json_object_put(res);
			return rc;
		}
	}
	*out = res;
	return 0;
}

/* Remove the member at a (or a.b), pruning what becomes empty. */
static void unmark(json_object *s, const char *a, const char *b)
{
	json_object *node = NULL, *child = NULL;
	if (!json_object_object_get_ex(s, a, &node))
		return;
	if (!b) {
		json_object_object_del(node, MOCK__FSET_MEMBER);
	} else if (json_object_object_get_ex(node, b, &child)) {
		json_object_object_del(child, MOCK__FSET_MEMBER);
		if (json_object_object_length(child) == 0)
			json_object_object_del(node, b);
	}
	if (json_object_object_length(node) == 0)
		json_object_object_del(s, a);
}

void mock_fset_strip(json_object *s)
{
	static const char *const meta[] = {
	    "f:name",        "f:namespace",  "f:creationTimestamp", "f:selfLink",        "f:uid",
	    "f:clusterName", "f:generation", "f:managedFields",     "f:resourceVersion",
	};
	unmark(s, "f:apiVersion", NULL);
	unmark(s, "f:kind", NULL);
	for (size_t i = 0; i < sizeof(meta) / sizeof(meta[0]); i++)
		unmark(s, "f:metadata", meta[i]);
	unmark(s, "f:metadata", NULL);
}

/* ------------------------------------------------------------ FieldsV1 */

static int parse_node(json_object *node, json_object *in, int depth)
{
	if (!mock__patch_is_object(in) || depth > MOCK__FSET_MAX_DEPTH)
		return NL_EPARSE;
	json_object_object_foreach(in, k, v)
	{
		json_object *child = NULL;
		int rc = 0;
		if (strcmp(k, MOCK__FSET_MEMBER) == 0) {
			rc = mock__fset_mark(node);
		} else if (valid_el(k)) {
			if (!(child = json_object_new_object()))
				return NL_ENOMEM;
			rc = parse_node(child, v, depth + 1);
			/* A node with nothing recognized below it is a member. */
			if (rc == 0 && !has_children(child))
				rc = mock__fset_mark(child);
			if (rc == 0 && json_object_object_add(node, k, child) != 0)
				rc = NL_ENOMEM;
			if (rc)
				json_object_put(child);
		}
		if (rc)
			return rc;
	}
	return 0;
}

int mock_fset_from_fields_v1(json_object **out, json_object *fv1)
{
	json_object *s = mock_fset_new();
	if (!s)
		return NL_ENOMEM;
	int rc = parse_node(s, fv1, 0);
	json_object_object_del(s, MOCK__FSET_MEMBER); /* the root is never a member */
	if (rc) {
		json_object_put(s);
		return rc;
	}
	*out = s;
	return 0;
}

static json_object *emit(json_object *node, int self)
{
	size_t n = 0;
	const char **keys = sorted_keys(node, &n);
	json_object *out = json_object_new_object();
	int ok = out && (n || !has_children(node));
	if (ok && self && mock__fset_is_member(node))
		ok = json_object_object_add(out, MOCK__FSET_MEMBER, json_object_new_object()) == 0;
	for (size_t i = 0; ok && i < n; i++) {
		json_object *child = json_object_object_get(node, keys[i]);
		json_object *c = has_children(child) ? emit(child, 1) : json_object_new_object();
		ok = c && json_object_object_add(out, keys[i], c) == 0;
		if (!ok)
			json_object_put(c);
	}
	free(keys);
	if (!ok) {
		json_object_put(out);
		return NULL;
	}
	return out;
}

json_object *mock_fset_to_fields_v1(json_object *s)
{
	return emit(s, 0);
}

/* Set.Iterate: at each level the members first, then the children. */
static int each(json_object *node, nl_buf *prefix, int (*fn)(const char *, void *), void *payload)
{
	size_t n = 0, mark_len = prefix->len;
	const char **keys = sorted_keys(node, &n);
	int rc = 0;
	if (!keys && has_children(node))
		return NL_ENOMEM;
	for (int pass = 0; pass < 2 && rc == 0; pass++) {
		for (size_t i = 0; i < n && rc == 0; i++) {
			json_object *child = json_object_object_get(node, keys[i]);
			if (pass == 0 ? !mock__fset_is_member(child) : !has_children(child))
				continue;
			mock__fset_el_string(prefix, keys[i]);
			if (!prefix->data)
				rc = NL_ENOMEM;
			else
				rc = pass == 0 ? fn(prefix->data, payload)
				               : each(child, prefix, fn, payload);
			prefix->len = mark_len;
			if (prefix->data)
				prefix->data[mark_len] = '\0';
		}
	}
	free(keys);
	return rc;
}

int mock_fset_each(json_object *s, int (*fn)(const char *path, void *payload), void *payload)
{
	nl_buf prefix;
	nl_buf_init(&prefix, 64 * 1024);
	int rc = nl_buf_adds(&prefix, "") == 0 ? each(s, &prefix, fn, payload) : NL_ENOMEM;
	nl_buf_free(&prefix);
	return rc;
}

/* ------------------------------------------------------------ FieldsV1 as is */

/* A node as emit() writes it below the root: "." (only with other keys)
 * first, then valid elements in el_cmp order, each an object: {} for a
 * member without children, else a node itself. */
static int canonical_node(json_object *node, int depth, int root)
{
	const char *prev = NULL;
	int first = 1;
	if (!mock__patch_is_object(node) || depth > MOCK__FSET_MAX_DEPTH)
		return 0;
	json_object_object_foreach(node, k, v)
	{
		int is_first = first;
		first = 0;
		if (strcmp(k, MOCK__FSET_MEMBER) == 0) {
			if (root || !is_first || json_object_object_length(node) < 2 ||
			    !mock__patch_is_object(v) || json_object_object_length(v) != 0)
				return 0;
			continue;
		}
		if (!valid_el(k) || (prev && el_cmp(&prev, &k) >= 0) || !mock__patch_is_object(v))
			return 0;
		if (json_object_object_length(v) != 0 && !canonical_node(v, depth + 1, 0))
			return 0;
		prev = k;
	}
	return !root || !first;
}

int mock_fset_fields_v1_canonical(json_object *fv1)
{
	return canonical_node(fv1, 0, 1);
}

/* A node of canonical FieldsV1 is a member when it is {} or holds ".". */
static int fv1_member(json_object *node)
{
	return json_object_object_length(node) == 0 || mock__fset_is_member(node);
}

int mock_fset_fields_v1_overlaps(json_object *fv1, json_object *s)
{
	json_object_object_foreach(s, k, child)
	{
		json_object *f = NULL;
		if (strcmp(k, MOCK__FSET_MEMBER) == 0 || !json_object_object_get_ex(fv1, k, &f))
			continue;
		if ((mock__fset_is_member(child) && fv1_member(f)) ||
		    mock_fset_fields_v1_overlaps(f, child))
			return 1;
	}
	return 0;
}

int mock_fset_fields_v1_covers(json_object *fv1, json_object *s)
{
	json_object_object_foreach(s, k, child)
	{
		json_object *f = NULL;
		if (strcmp(k, MOCK__FSET_MEMBER) == 0)
			continue;
		/* A set's node always has a member at or below it. */
		if (!json_object_object_get_ex(fv1, k, &f) ||
		    (mock__fset_is_member(child) && !fv1_member(f)) ||
		    !mock_fset_fields_v1_covers(f, child))
			return 0;
	}
	return 1;
}
