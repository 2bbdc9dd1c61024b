/* Field validation as kube-apiserver 1.32 runs it: the field.Error list and
 * its messages, and apimachinery's ObjectMeta rules. The per-kind Validate*
 * functions are validation_kinds.c's. Values in messages are printed as Go's
 * fmt prints them (%q for strings, %#v for structs). */
#include "validation_internal.h"

#include <nodelet/buf.h>
#include <nodelet/doc.h>
#include <nodelet/errors.h>
#include <nodelet/json_text.h>
#include <nodelet/names.h>
#include <nodelet/quote.h>

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOTAL_ANNOTATION_SIZE_LIMIT 262144 /* apimachinery TotalAnnotationSizeLimitB */

/* ----------------------------------------------------------- error list */

void mock_ferrs_init(mock_ferrs *e)
{
	e->items = NULL;
	e->n = 0;
	e->alloc = 0;
}

void mock_ferrs_free(mock_ferrs *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n; i++) {
		free(e->items[i].field);
		free(e->items[i].message);
	}
	free(e->items);
	mock_ferrs_init(e);
}

/* Append one error; takes message (malloc'ed). Allocation failures drop the
 * error: the caller then cannot build a Status either. */
void mock__ferr_push(mock_ferrs *e, const char *reason, const char *field, char *message)
{
	char *f = message ? strdup(field) : NULL;
	if (!f) {
		free(message);
		return;
	}
	if (e->n == e->alloc) {
		size_t alloc = e->alloc ? e->alloc * 2 : 8;
		mock_ferr *items = realloc(e->items, alloc * sizeof(*items));
		if (!items) {
			free(f);
			free(message);
			return;
		}
		e->items = items;
		e->alloc = alloc;
	}
	e->items[e->n].reason = reason;
	e->items[e->n].field = f;
	e->items[e->n].message = message;
	e->n++;
}

void mock__ferr_pushf(mock_ferrs *e, const char *reason, const char *field, const char *fmt, ...)
{
	nl_buf b;
	va_list ap;
	nl_buf_init(&b, 0);
	va_start(ap, fmt);
	int rc = nl_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (rc != 0) {
		nl_buf_free(&b);
		return;
	}
	mock__ferr_push(e, reason, field, nl_buf_detach(&b, NULL));
}

/* ------------------------------------------------------- Go value text */

/* %v of a decoded JSON value: strings quoted, numbers and bools plain. */
static char *go_value(json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null:
		return strdup("null");
	case json_type_string:
		return nl_quote_dup(json_object_get_string(v));
	default:
		return strdup(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
	}
}

void mock__gostr_key(mock_gostr *g, const char *k)
{
	k = k ? k : "";
	g->s = k;
	g->len = strlen(k);
	g->own = NULL;
	if (nl_json_key_has_nul(k) && (g->own = nl_json_key_unmark(k, &g->len)) != NULL)
		g->s = g->own;
}

void mock__gostr_value(mock_gostr *g, json_object *v)
{
	if (!json_object_is_type(v, json_type_string)) {
		mock__gostr_key(g, "");
		return;
	}
	const char *s = json_object_get_string(v);
	size_t n = (size_t)json_object_get_string_len(v);
	if (strlen(s) == n) {
		mock__gostr_key(g, s); /* perhaps marked (mock_meta_mark_nuls) */
		return;
	}
	g->s = s;
	g->len = n;
	g->own = NULL;
}

void mock__gostr_free(mock_gostr *g)
{
	free(g->own);
	g->own = NULL;
}

/* v with each NUL as NL_JSON_KEY_NUL. 0 or NL_ENOMEM. */
static int mark_value(json_object *v)
{
	if (!json_object_is_type(v, json_type_string))
		return 0;
	const char *s = json_object_get_string(v);
	size_t n = (size_t)json_object_get_string_len(v);
	if (strlen(s) == n)
		return 0;
	char *marked = nl_json_key_mark(s, n);
	int ok = marked && json_object_set_string(v, marked) == 1;
	free(marked);
	return ok ? 0 : NL_ENOMEM;
}

int mock_meta_mark_nuls(json_object *obj)
{
	static const char *const keys[] = {"name", "generateName", "namespace"};
	json_object *meta = get(obj, "metadata");
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (mark_value(get(meta, keys[i])) != 0)
			return NL_ENOMEM;
	return 0;
}

/* %#v of a []string: []string{"a", "b"}. */
char *mock__go_string_slice(json_object *arr)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	nl_buf_adds(&b, "[]string{");
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		mock_gostr g;
		mock__gostr_value(&g, json_object_array_get_idx(arr, i));
		if (i)
			nl_buf_adds(&b, ", ");
		nl_quote_append_n(&b, g.s, g.len);
		mock__gostr_free(&g);
	}
	nl_buf_adds(&b, "}");
	return nl_buf_detach(&b, NULL);
}

/* ------------------------------------------------------- error builders */

void mock_ferr_invalid_raw(mock_ferrs *e, const char *field, const char *value_text,
                           const char *detail)
{
	if (detail && *detail)
		mock__ferr_pushf(e, NL_CAUSE_INVALID, field, "Invalid value: %s: %s", value_text,
		                 detail);
	else
		mock__ferr_pushf(e, NL_CAUSE_INVALID, field, "Invalid value: %s", value_text);
}

void mock_ferr_invalid(mock_ferrs *e, const char *field, json_object *value, const char *detail)
{
	char *text = go_value(value);
	if (text)
		mock_ferr_invalid_raw(e, field, text, detail);
	free(text);
}

void mock__ferr_invalid_strn(mock_ferrs *e, const char *field, const char *value, size_t len,
                             const char *detail)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	if (nl_quote_append_n(&b, value ? value : "", value ? len : 0) == 0)
		mock_ferr_invalid_raw(e, field, b.data, detail);
	nl_buf_free(&b);
}

void mock__ferr_invalid_str(mock_ferrs *e, const char *field, const char *value, const char *detail)
{
	mock_gostr g;
	mock__gostr_key(&g, value);
	mock__ferr_invalid_strn(e, field, g.s, g.len, detail);
	mock__gostr_free(&g);
}

void mock__ferr_invalid_int(mock_ferrs *e, const char *field, int64_t value, const char *detail)
{
	char text[32];
	snprintf(text, sizeof(text), "%lld", (long long)value);
	mock_ferr_invalid_raw(e, field, text, detail);
}

/* names.h joins a validator's messages with "; "; Go's callers append one
 * field error per message. */
void mock__ferr_invalid_each_n(mock_ferrs *e, const char *field, const char *value, size_t len,
                               const char *why)
{
	char *copy = strdup(why), *p = copy;
	if (!copy)
		return;
	for (;;) {
		char *sep = strstr(p, "; ");
		if (sep)
			*sep = '\0';
		mock__ferr_invalid_strn(e, field, value, len, p);
		if (!sep)
			break;
		p = sep + 2;
	}
	free(copy);
}

void mock__ferr_invalid_each(mock_ferrs *e, const char *field, const char *value, const char *why)
{
	mock_gostr g;
	mock__gostr_key(&g, value);
	mock__ferr_invalid_each_n(e, field, g.s, g.len, why);
	mock__gostr_free(&g);
}

void mock_ferr_required(mock_ferrs *e, const char *field, const char *detail)
{
	if (detail && *detail)
		mock__ferr_pushf(e, NL_CAUSE_REQUIRED, field, "Required value: %s", detail);
	else
		mock__ferr_pushf(e, NL_CAUSE_REQUIRED, field, "Required value");
}

void mock_ferr_forbidden(mock_ferrs *e, const char *field, const char *detail)
{
	if (detail && *detail)
		mock__ferr_pushf(e, NL_CAUSE_FORBIDDEN, field, "Forbidden: %s", detail);
	else
		mock__ferr_pushf(e, NL_CAUSE_FORBIDDEN, field, "Forbidden");
}

void mock_ferr_too_long(mock_ferrs *e, const char *field, size_t max)
{
	mock__ferr_pushf(e, NL_CAUSE_TOO_LONG, field, "Too long: may not be more than %zu %s", max,
	                 max == 1 ? "byte" : "bytes");
}

void mock_ferr_not_supported(mock_ferrs *e, const char *field, json_object *value,
                             const char *const *supported)
{
	nl_buf b;
	char *text = go_value(value);
	nl_buf_init(&b, 0);
	nl_buf_printf(&b, "Unsupported value: %s", text ? text : "");
	for (size_t i = 0; supported && supported[i]; i++) {
		nl_buf_adds(&b, i ? ", " : ": supported values: ");
		nl_quote_append(&b, supported[i]);
	}
	free(text);
	mock__ferr_push(e, NL_CAUSE_NOT_SUPPORTED, field, nl_buf_detach(&b, NULL));
}

void mock_ferr_duplicate(mock_ferrs *e, const char *field, json_object *value)
{
	char *text = go_value(value);
	if (text)
		mock__ferr_pushf(e, NL_CAUSE_DUPLICATE, field, "Duplicate value: %s", text);
	free(text);
}

nl_status *mock_ferrs_to_status(const mock_ferrs *e, const char *kind, const char *group,
                                const char *name)
{
	nl_status *st = nl_status_invalid(kind, group && *group ? group : NULL, name ? name : "");
	if (!st)
		return NULL;
	for (size_t i = 0; i < e->n; i++) {
		const mock_ferr *f = &e->items[i];
		if (nl_status_add_cause(st, f->reason, f->message, f->field) != 0)
			goto fail;
	}
	if (nl_status_finish_invalid(st) != 0)
		goto fail;
	return st;
fail:
	nl_status_free(st);
	return NULL;
}

/* ----------------------------------------------------------- ObjectMeta */

/* NameIsDNSSubdomain & co. check a generateName as if something were
 * appended: maskTrailingDash replaces the last TWO bytes of "x-" with "a".
 * name is len bytes, NULs included; so is the copy (one byte longer, for a
 * NUL after it). */
static char *mask_trailing_dash(const char *name, size_t *len)
{
	char *m = malloc(*len + 1);
	if (!m)
		return NULL;
	memcpy(m, name, *len);
	m[*len] = '\0';
	if (*len > 1 && name[*len - 1] == '-') {
		m[*len - 2] = 'a';
		m[--*len] = '\0';
	}
	return m;
}

/* path.ValidatePathSegmentName: what the generic registry checks for kinds
 * (Event) whose own validation does not check the name. */
static void path_segment_name(mock_ferrs *e, const char *field, const mock_gostr *g, bool prefix)
{
	if (!prefix &&
	    ((g->len == 1 && g->s[0] == '.') || (g->len == 2 && memcmp(g->s, "..", 2) == 0))) {
		char detail[32];
		snprintf(detail, sizeof(detail), "may not be '%.*s'", (int)g->len, g->s);
		mock__ferr_invalid_strn(e, field, g->s, g->len, detail);
		return;
	}
	if (memchr(g->s, '/', g->len))
		mock__ferr_invalid_strn(e, field, g->s, g->len, "may not contain '/'");
	if (memchr(g->s, '%', g->len))
		mock__ferr_invalid_strn(e, field, g->s, g->len, "may not contain '%'");
}

static void name_rule(mock_ferrs *e, const mock_resource *r, const char *field, json_object *v,
                      bool prefix)
{
	char why[WHY_MAX];
	mock_gostr g;
	mock__gostr_value(&g, v);
	if (r->id == MOCK_KIND_EVENT) {
		path_segment_name(e, field, &g, prefix);
		mock__gostr_free(&g);
		return;
	}
	size_t n = g.len;
	char *m = prefix ? mask_trailing_dash(g.s, &n) : NULL;
	const char *s = prefix ? m : g.s;
	if (s) {
		int rc = r->id == MOCK_KIND_NAMESPACE
		             ? nl_name_is_dns1123_label_n(s, n, why, sizeof(why))
		             : nl_name_is_dns1123_subdomain_n(s, n, why, sizeof(why));
		if (rc != 0)
			mock__ferr_invalid_each_n(e, field, g.s, g.len, why);
	}
	free(m);
	mock__gostr_free(&g);
}

static void validate_labels(mock_ferrs *e, json_object *labels)
{
	char why[WHY_MAX];
	if (!json_object_is_type(labels, json_type_object))
		return;
	json_object_object_foreach(labels, k, v)
	{
		mock_gostr key, val;
		mock__gostr_key(&key, k);
		mock__gostr_value(&val, v);
		if (nl_name_is_label_key_n(key.s, key.len, why, sizeof(why)) != 0)
			mock__ferr_invalid_each_n(e, "metadata.labels", key.s, key.len, why);
		if (nl_name_is_label_value_n(val.s, val.len, why, sizeof(why)) != 0)
			mock__ferr_invalid_each_n(e, "metadata.labels", val.s, val.len, why);
		mock__gostr_free(&key);
		mock__gostr_free(&val);
	}
}

static void validate_annotations(mock_ferrs *e, json_object *ann)
{
	char why[WHY_MAX];
	size_t total = 0;
	if (!json_object_is_type(ann, json_type_object))
		return;
	json_object_object_foreach(ann, k, v)
	{
		/* a qualified name, except that case does not matter */
		mock_gostr key;
		mock__gostr_key(&key, k);
		char *lower = malloc(key.len + 1);
		if (lower) {
			for (size_t i = 0; i < key.len; i++)
				lower[i] = (char)tolower((unsigned char)key.s[i]);
			lower[key.len] = '\0';
			if (nl_name_is_label_key_n(lower, key.len, why, sizeof(why)) != 0)
				mock__ferr_invalid_each_n(e, "metadata.annotations", key.s, key.len,
				                          why);
		}
		free(lower);
		total += key.len + (size_t)json_object_get_string_len(v);
		mock__gostr_free(&key);
	}
	if (total > TOTAL_ANNOTATION_SIZE_LIMIT)
		mock_ferr_too_long(e, "metadata.annotations", TOTAL_ANNOTATION_SIZE_LIMIT);
}

/* %#v of a metav1.OwnerReference. */
static void go_owner_ref(nl_buf *b, json_object *ref)
{
	static const char *const str_fields[][2] = {
	    {"APIVersion", "apiVersion"}, {"Kind", "kind"}, {"Name", "name"}, {"UID", "uid"}};
	static const char *const ptr_fields[][2] = {{"Controller", "controller"},
	                                            {"BlockOwnerDeletion", "blockOwnerDeletion"}};
	nl_buf_adds(b, "v1.OwnerReference{");
	for (size_t i = 0; i < 4; i++) {
		const char *v = get_str(ref, str_fields[i][1]);
		nl_buf_printf(b, "%s%s:", i ? ", " : "", str_fields[i][0]);
		nl_quote_append(b, v ? v : "");
	}
	for (size_t i = 0; i < 2; i++)
		nl_buf_printf(b, ", %s:(*bool)(%s)", ptr_fields[i][0],
		              get(ref, ptr_fields[i][1]) ? GO_PTR_TEXT : "nil");
	nl_buf_adds(b, "}");
}

/* schema.FromAPIVersionAndKind's version part: "" when apiVersion does not
 * parse as [group/]version. */
static bool api_version_has_version(const char *av)
{
	const char *slash = strchr(av, '/');
	if (!slash)
		return *av != '\0';
	return !strchr(slash + 1, '/') && slash[1] != '\0';
}

static char *owner_refs_text(json_object *refs, json_object *only)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	if (only) {
		go_owner_ref(&b, only);
		return nl_buf_detach(&b, NULL);
	}
	nl_buf_adds(&b, "[]v1.OwnerReference{");
	for (size_t j = 0; j < array_len(refs); j++) {
		nl_buf_adds(&b, j ? ", " : "");
		go_owner_ref(&b, json_object_array_get_idx(refs, j));
	}
	nl_buf_adds(&b, "}");
	return nl_buf_detach(&b, NULL);
}

static void validate_owner_refs(mock_ferrs *e, json_object *refs)
{
	const char *fld = "metadata.ownerReferences";
	char first[512] = "", detail[1200];
	for (size_t i = 0; i < array_len(refs); i++) {
		json_object *ref = json_object_array_get_idx(refs, i);
		const char *av = get_str(ref, "apiVersion"), *kind = get_str(ref, "kind");
		const char *name = get_str(ref, "name"), *uid = get_str(ref, "uid");
		char *text;
		av = av ? av : "";
		kind = kind ? kind : "";
		name = name ? name : "";
		if (!api_version_has_version(av))
			mock__ferr_invalid_str(e, "metadata.ownerReferences.apiVersion", av,
			                       "version must not be empty");
		if (!*kind)
			mock__ferr_invalid_str(e, "metadata.ownerReferences.kind", "",
			                       "must not be empty");
		if (!*name)
			mock__ferr_invalid_str(e, "metadata.ownerReferences.name", "",
			                       "must not be empty");
		if (!nonempty(uid))
			mock__ferr_invalid_str(e, "metadata.ownerReferences.uid", "",
			                       "must not be empty");
		if (strcmp(av, "v1") == 0 && strcmp(kind, "Event") == 0 &&
		    (text = owner_refs_text(refs, ref)) != NULL) {
			mock_ferr_invalid_raw(e, fld, text,
			                      "/v1, Kind=Event is disallowed from being an owner");
			free(text);
		}
		if (!json_object_get_boolean(get(ref, "controller")))
			continue;
		if (!first[0]) {
			snprintf(first, sizeof(first), "%s/%s", kind, name);
			continue;
		}
		snprintf(detail, sizeof(detail),
		         "Only one reference can have Controller set to true. Found \"true\" in "
		         "references for %s and %s/%s",
		         first, kind, name);
		if ((text = owner_refs_text(refs, NULL)) != NULL)
			mock_ferr_invalid_raw(e, fld, text, detail);
		free(text);
	}
}

static void validate_meta_finalizers(mock_ferrs *e, json_object *fins)
{
	char why[WHY_MAX];
	bool orphan = false, foreground = false;
	for (size_t i = 0; i < array_len(fins); i++) {
		mock_gostr f;
		mock__gostr_value(&f, json_object_array_get_idx(fins, i));
		if (nl_name_is_label_key_n(f.s, f.len, why, sizeof(why)) != 0)
			mock__ferr_invalid_each_n(e, "metadata.finalizers", f.s, f.len, why);
		orphan |= f.len == 6 && memcmp(f.s, "orphan", 6) == 0;
		foreground |= f.len == 18 && memcmp(f.s, "foregroundDeletion", 18) == 0;
		mock__gostr_free(&f);
	}
	if (orphan && foreground) {
		char *text = mock__go_string_slice(fins);
		if (text)
			mock_ferr_invalid_raw(
			    e, "metadata.finalizers", text,
			    "finalizer orphan and foregroundDeletion cannot be both set");
		free(text);
	}
}

void mock_validate_object_meta(mock_ferrs *e, const mock_resource *r, json_object *obj)
{
	json_object *meta = get(obj, "metadata");
	json_object *name = get(meta, "name"), *gen = get(meta, "generateName");
	mock_gostr ns;
	char why[WHY_MAX];

	if (json_object_get_string_len(gen) > 0)
		name_rule(e, r, "metadata.generateName", gen, true);
	if (json_object_get_string_len(name) == 0)
		mock_ferr_required(e, "metadata.name", "name or generateName is required");
	else
		name_rule(e, r, "metadata.name", name, false);
	mock__gostr_value(&ns, get(meta, "namespace"));
	if (r->namespaced) {
		if (ns.len == 0)
			mock_ferr_required(e, "metadata.namespace", NULL);
		else if (nl_name_is_dns1123_label_n(ns.s, ns.len, why, sizeof(why)) != 0)
			mock__ferr_invalid_each_n(e, "metadata.namespace", ns.s, ns.len, why);
	} else if (ns.len > 0) {
		mock_ferr_forbidden(e, "metadata.namespace", "not allowed on this type");
	}
	mock__gostr_free(&ns);
	int64_t generation = json_object_get_int64(get(meta, "generation"));
	if (generation < 0)
		mock__ferr_invalid_int(e, "metadata.generation", generation, NONNEGATIVE_MSG);
	validate_labels(e, get(meta, "labels"));
	validate_annotations(e, get(meta, "annotations"));
	validate_owner_refs(e, get(meta, "ownerReferences"));
	validate_meta_finalizers(e, get(meta, "finalizers"));
}

/* Member names with a NUL in them that no rule refused (status.capacity
 * keys, say: upstream takes any): json-c cannot hold the NUL and the mark
 * is not UTF-8, so such an object cannot be stored as upstream stores it;
 * refused instead (docs/decisions/0030). O(size of obj). */
static void path_cut(nl_buf *path, size_t at)
{
	path->len = at;
	if (path->data)
		path->data[at] = '\0';
}

static void unstorable_names(mock_ferrs *e, json_object *v, nl_buf *path, size_t depth)
{
	if (depth > NL_DOC_MAX_DEPTH)
		return;
	size_t at = path->len;
	if (json_object_is_type(v, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			nl_buf_printf(path, "[%zu]", i);
			unstorable_names(e, json_object_array_get_idx(v, i), path, depth + 1);
			path_cut(path, at);
		}
		return;
	}
	if (!json_object_is_type(v, json_type_object))
		return;
	json_object_object_foreach(v, k, child)
	{
		nl_buf_printf(path, "%s%s", at ? "." : "", k);
		if (nl_json_key_has_nul(k))
			mock__ferr_invalid_str(
			    e, path->data, k, "a NUL in a key is not supported by nodelet-mockapi");
		else
			unstorable_names(e, child, path, depth + 1);
		path_cut(path, at);
	}
}

static void validate_stored_names(mock_ferrs *e, size_t before, json_object *obj)
{
	if (e->n != before)
		return; /* refused already */
	nl_buf where;
	nl_buf_init(&where, 0);
	unstorable_names(e, obj, &where, 0);
	nl_buf_free(&where);
	/* and the same for a marked name no rule refused (an Event's) */
	static const char *const keys[] = {"name", "generateName", "namespace"};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *v = get_str(get(obj, "metadata"), keys[i]);
		char fld[32];
		if (nl_json_key_has_nul(v))
			mock__ferr_invalid_str(
			    e, path(fld, sizeof(fld), "metadata.%s", keys[i]), v,
			    "a NUL in a name is not supported by nodelet-mockapi");
	}
}

static int has_string(json_object *arr, const char *s)
{
	for (size_t i = 0; i < array_len(arr); i++)
		if (strcmp(json_object_get_string(json_object_array_get_idx(arr, i)), s) == 0)
			return 1;
	return 0;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(json_object_get_string(*(json_object *const *)a),
	              json_object_get_string(*(json_object *const *)b));
}

/* ValidateNoNewFinalizers, which ValidateObjectMetaUpdate applies to an
 * object being deleted: the finalizers the update adds, sorted and once
 * each (a sets.String's List). */
static void no_new_finalizers(mock_ferrs *e, json_object *obj, json_object *old)
{
	json_object *om = get(old, "metadata");
	if (!om || !get_str(om, "deletionTimestamp"))
		return;
	json_object *fins = get(get(obj, "metadata"), "finalizers");
	json_object *was = get(om, "finalizers");
	json_object *extra = json_object_new_array();
	for (size_t i = 0; extra && i < array_len(fins); i++) {
		json_object *f = json_object_array_get_idx(fins, i);
		if (json_object_is_type(f, json_type_string) &&
		    !has_string(was, json_object_get_string(f)) &&
		    !has_string(extra, json_object_get_string(f)))
			json_object_array_add(extra, json_object_get(f));
	}
	if (array_len(extra) > 0) {
		json_object_array_sort(extra, by_string);
		char *text = mock__go_string_slice(extra);
		nl_buf d;
		nl_buf_init(&d, 0);
		if (text && nl_buf_printf(&d,
		                          "no new finalizers can be added if the object is being "
		                          "deleted, found new finalizers %s",
		                          text) == 0)
			mock_ferr_forbidden(e, "metadata.finalizers", d.data);
		nl_buf_free(&d);
		free(text);
	}
	json_object_put(extra);
}

void mock_validate_object(mock_ferrs *e, const mock_resource *r, json_object *obj, json_object *old)
{
	mock_validate_object_at(e, r, obj, old, "");
}

void mock_validate_object_at(mock_ferrs *e, const mock_resource *r, json_object *obj,
                             json_object *old, const char *sub)
{
	size_t before = e->n;
	if (old)
		no_new_finalizers(e, obj, old);
	if (r->id == MOCK_KIND_EVENT) {
		/* core/v1 Events skip ValidateObjectMeta; the generic registry then
		 * checks the metadata only if the Event's own rules passed. */
		if (r->validate)
			r->validate(e, obj, old);
		if (e->n == before)
			mock_validate_object_meta(e, r, obj);
		validate_stored_names(e, before, obj);
		return;
	}
	mock_validate_object_meta(e, r, obj);
	if (r->validate_endpoint)
		r->validate_endpoint(e, obj, old, sub ? sub : "");
	else if (r->validate)
		r->validate(e, obj, old);
	validate_stored_names(e, before, obj);
}
