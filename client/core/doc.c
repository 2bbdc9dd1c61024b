/* YAML and JSON manifests into json-c, with sigs.k8s.io/yaml semantics.
 *
 * sigs.k8s.io/yaml decodes each document with go-yaml v2 and marshals the
 * result to JSON, so that is the behaviour copied here: YAML 1.1 plain-scalar
 * resolution, anchors bound when their node starts (so an anchor can refer to
 * itself and is caught at expansion), `<<` merge keys, non-string keys turned
 * into their text, duplicate keys keep the last value, and go-yaml's limit on
 * the share of a document that alias expansion may produce.
 *
 * libyaml's events are first built into a small node tree per document and
 * only then decoded: expansion is counted and bounded before anything is
 * materialised, and the tree builder and the decoder both refuse nesting
 * deeper than NL_DOC_MAX_DEPTH so neither recursion nor json-c's recursive
 * free can exhaust the stack.
 *
 * JSON input goes through the same path (JSON is YAML's flow subset); numbers
 * are resolved by yaml_scalar.c (go-yaml's rules, Go's number texts) rather
 * than by json-c, whose tokener silently clamps integers beyond 64 bits. */
#include <nodelet/doc.h>
#include <nodelet/json_text.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "yaml_scalar.h"

/* ---- node tree ------------------------------------------------------------ */

enum ynode_kind { YN_SCALAR, YN_SEQ, YN_MAP, YN_ALIAS };

struct ynode {
	enum ynode_kind kind;
	char *text; /* scalar value or alias name, NUL-terminated after len bytes */
	size_t len;
	char *tag; /* expanded tag, NULL when untagged */
	int plain; /* libyaml's plain_implicit: subject to type resolution */
	yaml_mark_t mark;
	struct ynode **kids; /* sequence items, or mapping key/value pairs */
	size_t nkids, capkids;
	struct ynode *target; /* YN_ALIAS: the anchored node */
	int expanding;        /* YN_ALIAS: currently being expanded */
	char *anchor;
};

struct ytree {
	struct ynode **all; /* every node of the document, freed without recursion */
	size_t nall, capall;
	struct ynode *root;
	struct ynode *stack[NL_DOC_MAX_DEPTH]; /* open collections */
	size_t depth;
	struct lh_table *anchors; /* anchor name -> latest node defining it */
};

struct doc_ctx {
	const char *name;
	const char *buf;
	size_t len;
	nl_err *err;
	int flatten; /* nl_doc_parse: skip empties and flatten Lists */
	json_object *docs;
	size_t produced; /* decode steps in this call, across documents */
	/* go-yaml's per-document alias accounting */
	size_t decode_count, alias_count, alias_depth;
};

__attribute__((format(printf, 4, 5))) static int doc_fail(struct doc_ctx *c, int code,
                                                          yaml_mark_t m, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return nl_err_set(c->err, code, "%s: line %zu, column %zu: %s", c->name, m.line + 1,
	                  m.column + 1, msg);
}

static int doc_nomem(struct doc_ctx *c)
{
	return nl_err_set(c->err, NL_ENOMEM, "%s: out of memory", c->name);
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 8;
	while (ncap < need)
		ncap *= 2;
	void *p = realloc(*arr, ncap * elem);
	if (!p)
		return -1;
	*arr = p;
	*cap = ncap;
	return 0;
}

static void tree_reset(struct ytree *t)
{
	for (size_t i = 0; i < t->nall; i++) {
		struct ynode *n = t->all[i];
		free(n->text);
		free(n->tag);
		free(n->kids);
		free(n->anchor);
		free(n);
	}
	free(t->all);
	if (t->anchors)
		lh_table_free(t->anchors);
	t->all = NULL;
	t->nall = t->capall = 0;
	t->root = NULL;
	t->depth = 0;
	t->anchors = NULL;
}

static char *dup_bytes(const unsigned char *s, size_t len)
{
	char *p = malloc(len + 1);
	if (!p)
		return NULL;
	if (len)
		memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

static int tree_register_anchor(struct ytree *t, struct ynode *n)
{
	if (!t->anchors && !(t->anchors = lh_kchar_table_new(16, NULL)))
		return -1;
	/* A redefined anchor shadows the earlier one for later aliases. */
	struct lh_entry *e = lh_table_lookup_entry(t->anchors, n->anchor);
	if (e) {
		lh_entry_set_val(e, n);
		return 0;
	}
	return lh_table_insert(t->anchors, n->anchor, n);
}

/* Create a node, attach it to the open collection (or make it the root) and
 * bind its anchor before any child is seen, as go-yaml does. */
static int tree_node(struct doc_ctx *c, struct ytree *t, enum ynode_kind kind,
                     const yaml_event_t *ev, const yaml_char_t *anchor, const yaml_char_t *tag,
                     struct ynode **out)
{
	struct ynode *n = calloc(1, sizeof(*n));
	if (!n || grow((void **)&t->all, &t->capall, t->nall + 1, sizeof(*t->all))) {
		free(n);
		return doc_nomem(c);
	}
	t->all[t->nall++] = n;
	n->kind = kind;
	n->mark = ev->start_mark;
	if ((anchor && !(n->anchor = dup_bytes(anchor, strlen((const char *)anchor)))) ||
	    (tag && !(n->tag = dup_bytes(tag, strlen((const char *)tag)))))
		return doc_nomem(c);
	if (t->depth > 0) {
		struct ynode *p = t->stack[t->depth - 1];
		if (grow((void **)&p->kids, &p->capkids, p->nkids + 1, sizeof(*p->kids)))
			return doc_nomem(c);
		p->kids[p->nkids++] = n;
	} else {
		t->root = n;
	}
	if (n->anchor && tree_register_anchor(t, n))
		return doc_nomem(c);
	*out = n;
	return 0;
}

static int tree_alias(struct doc_ctx *c, struct ytree *t, const yaml_event_t *ev)
{
	const char *name = (const char *)ev->data.alias.anchor;
	void *target = NULL;
	if (!t->anchors || !lh_table_lookup_ex(t->anchors, name, &target))
		return doc_fail(c, NL_EPARSE, ev->start_mark, "unknown anchor '%s' referenced",
		                name);
	struct ynode *n;
	int rc = tree_node(c, t, YN_ALIAS, ev, NULL, NULL, &n);
	if (rc)
		return rc;
	n->target = target;
	if (!(n->text = dup_bytes(ev->data.alias.anchor, strlen(name))))
		return doc_nomem(c);
	n->len = strlen(name);
	return 0;
}

static int tree_collection(struct doc_ctx *c, struct ytree *t, const yaml_event_t *ev,
                           enum ynode_kind kind)
{
	if (t->depth >= NL_DOC_MAX_DEPTH)
		return doc_fail(c, NL_EPARSE, ev->start_mark, "nesting deeper than %d levels",
		                NL_DOC_MAX_DEPTH);
	const yaml_char_t *anchor =
	    kind == YN_SEQ ? ev->data.sequence_start.anchor : ev->data.mapping_start.anchor;
	const yaml_char_t *tag =
	    kind == YN_SEQ ? ev->data.sequence_start.tag : ev->data.mapping_start.tag;
	struct ynode *n;
	int rc = tree_node(c, t, kind, ev, anchor, tag, &n);
	if (rc)
		return rc;
	t->stack[t->depth++] = n;
	return 0;
}

static int tree_event(struct doc_ctx *c, struct ytree *t, const yaml_event_t *ev)
{
	struct ynode *n;
	int rc;
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		rc =
		    tree_node(c, t, YN_SCALAR, ev, ev->data.scalar.anchor, ev->data.scalar.tag, &n);
		if (rc)
			return rc;
		n->plain = ev->data.scalar.plain_implicit;
		n->len = ev->data.scalar.length;
		if (!(n->text = dup_bytes(ev->data.scalar.value, n->len)))
			return doc_nomem(c);
		return 0;
	case YAML_ALIAS_EVENT:
		return tree_alias(c, t, ev);
	case YAML_SEQUENCE_START_EVENT:
		return tree_collection(c, t, ev, YN_SEQ);
	case YAML_MAPPING_START_EVENT:
		return tree_collection(c, t, ev, YN_MAP);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		t->depth--;
		return 0;
	default:
		return 0;
	}
}

/* ---- scalars (yaml_scalar.c), errors placed at the node ------------------- */

static int resolve_scalar(struct doc_ctx *c, const struct ynode *n, nl__scalar *out)
{
	nl_err e = {0};
	int rc = nl__yaml_scalar_resolve(out, n->text, n->len, n->tag, n->plain, &e);
	if (rc == NL_ENOMEM)
		return doc_nomem(c);
	if (rc)
		return doc_fail(c, rc, n->mark, "%s", e.msg);
	return 0;
}

/* ---- decoding the tree into json-c ----------------------------------------- */

/* go-yaml v2's allowedAliasRatio: small documents may be 99% alias expansion,
 * very large ones only 10%. */
static double allowed_alias_ratio(size_t decode_count)
{
	const double low = 400000, high = 4000000;
	if ((double)decode_count <= low)
		return 0.99;
	if ((double)decode_count >= high)
		return 0.10;
	return 0.99 - 0.89 * (((double)decode_count - low) / (high - low));
}

static int decode_step(struct doc_ctx *c, const struct ynode *n)
{
	c->decode_count++;
	if (c->alias_depth > 0)
		c->alias_count++;
	if (++c->produced > NL_DOC_MAX_NODES)
		return doc_fail(c, NL_ETOOBIG, n->mark, "input expands to more than %u nodes",
		                NL_DOC_MAX_NODES);
	if (c->alias_count > 100 && c->decode_count > 1000 &&
	    (double)c->alias_count / (double)c->decode_count > allowed_alias_ratio(c->decode_count))
		return doc_fail(c, NL_ETOOBIG, n->mark, "document contains excessive aliasing");
	return 0;
}

static int decode_node(struct doc_ctx *c, struct ynode *n, size_t depth, json_object **out);
static int decode_into(struct doc_ctx *c, struct ynode *n, size_t depth, json_object *obj);

/* sigs.k8s.io/yaml marshals every float64 to JSON, where an integral value
 * reads back as an integer (1e3 -> 1000, 1.0 -> 1). */
static json_object *float_to_json(double f)
{
	if (isfinite(f) && f == trunc(f) && f >= -9223372036854775808.0 &&
	    f < 9223372036854775808.0)
		return json_object_new_int64((int64_t)f);
	if (!isfinite(f))
		return json_object_new_double(f);
	char txt[48];
	nl__go_json_float(f, txt, sizeof(txt));
	return json_object_new_double_s(f, txt);
}

static int decode_scalar(struct doc_ctx *c, const struct ynode *n, json_object **out)
{
	nl__scalar s;
	json_object *o = NULL;
	int rc = resolve_scalar(c, n, &s);
	if (rc)
		goto done;
	switch (s.kind) {
	case NL__SC_NULL:
		*out = NULL;
		goto done;
	case NL__SC_BOOL:
		o = json_object_new_boolean(s.b);
		break;
	case NL__SC_INT:
		o = json_object_new_int64(s.i);
		break;
	case NL__SC_UINT:
		o = json_object_new_uint64(s.u);
		break;
	case NL__SC_FLOAT:
		o = float_to_json(s.f);
		break;
	case NL__SC_STR:
		if (s.slen > INT_MAX) {
			rc = doc_fail(c, NL_ETOOBIG, n->mark, "string too long");
			goto done;
		}
		o = json_object_new_string_len(s.s, (int)s.slen);
		break;
	}
	if (!o)
		rc = doc_nomem(c);
	else
		*out = o;
done:
	nl__yaml_scalar_clear(&s);
	return rc;
}

/* Mapping keys become strings the way sigs.k8s.io/yaml converts them. */
static int key_text(struct doc_ctx *c, const struct ynode *k, const nl__scalar *s, char **out)
{
	char buf[48];
	switch (s->kind) {
	case NL__SC_STR:
		/* sigs.k8s.io/yaml keeps a NUL ("\0"): validation judges it. */
		*out = nl_json_key_mark(s->s, s->slen);
		return *out ? 0 : doc_nomem(c);
	case NL__SC_INT:
		snprintf(buf, sizeof(buf), "%" PRId64, s->i);
		break;
	case NL__SC_FLOAT:
		nl__go_float_key(s->f, buf, sizeof(buf));
		break;
	case NL__SC_BOOL:
		snprintf(buf, sizeof(buf), "%s", s->b ? "true" : "false");
		break;
	case NL__SC_UINT:
		return doc_fail(c, NL_EPARSE, k->mark,
		                "unsupported map key of type uint64: %" PRIu64, s->u);
	case NL__SC_NULL:
	default:
		return doc_fail(c, NL_EPARSE, k->mark, "unsupported map key of type null");
	}
	*out = strdup(buf);
	return *out ? 0 : doc_nomem(c);
}

static int decode_key(struct doc_ctx *c, struct ynode *k, char **out)
{
	struct ynode *r = k;
	int rc = decode_step(c, k);
	if (rc)
		return rc;
	if (k->kind == YN_ALIAS) {
		r = k->target;
		c->alias_depth++;
		rc = decode_step(c, r);
		c->alias_depth--;
		if (rc)
			return rc;
	}
	if (r->kind != YN_SCALAR)
		return doc_fail(c, NL_EPARSE, k->mark, "invalid map key: a %s",
		                r->kind == YN_MAP ? "mapping" : "sequence");
	nl__scalar s;
	rc = resolve_scalar(c, r, &s);
	if (rc == 0)
		rc = key_text(c, k, &s, out);
	nl__yaml_scalar_clear(&s);
	return rc;
}

static int is_merge_key(const struct ynode *k)
{
	return k->kind == YN_SCALAR && k->len == 2 && memcmp(k->text, "<<", 2) == 0 &&
	       (k->plain || (k->tag && strcmp(k->tag, NL__YAML_TAG_PREFIX "merge") == 0));
}

static int merge_source_ok(const struct ynode *n)
{
	return n->kind == YN_MAP || (n->kind == YN_ALIAS && n->target->kind == YN_MAP);
}

/* `<<: *base` or `<<: [*a, *b]`: earlier entries of a list win, and the
 * merged keys land where the `<<` stands (go-yaml v2 order). */
static int decode_merge(struct doc_ctx *c, struct ynode *v, size_t depth, json_object *obj)
{
	if (merge_source_ok(v))
		return decode_into(c, v, depth + 1, obj);
	if (v->kind != YN_SEQ)
		goto bad;
	for (size_t i = v->nkids; i-- > 0;) {
		if (!merge_source_ok(v->kids[i]))
			goto bad;
		int rc = decode_into(c, v->kids[i], depth + 1, obj);
		if (rc)
			return rc;
	}
	return 0;
bad:
	return doc_fail(c, NL_EPARSE, v->mark,
	                "map merge requires map or sequence of maps as the value");
}

static int decode_map_into(struct doc_ctx *c, struct ynode *n, size_t depth, json_object *obj)
{
	if (depth >= NL_DOC_MAX_DEPTH)
		return doc_fail(c, NL_EPARSE, n->mark, "nesting deeper than %d levels",
		                NL_DOC_MAX_DEPTH);
	for (size_t i = 0; i + 1 < n->nkids; i += 2) {
		struct ynode *k = n->kids[i], *v = n->kids[i + 1];
		char *key = NULL;
		json_object *val = NULL;
		int rc = is_merge_key(k) ? decode_merge(c, v, depth, obj) : decode_key(c, k, &key);
		if (rc || !key)
			goto next;
		rc = decode_node(c, v, depth + 1, &val);
		if (rc == 0 && json_object_object_add(obj, key, val)) {
			json_object_put(val);
			rc = doc_nomem(c);
		}
	next:
		free(key);
		if (rc)
			return rc;
	}
	return 0;
}

static int decode_alias(struct doc_ctx *c, struct ynode *n, size_t depth, json_object *into,
                        json_object **out)
{
	if (n->expanding)
		return doc_fail(c, NL_EPARSE, n->mark, "anchor '%s' value contains itself",
		                n->text);
	n->expanding = 1;
	c->alias_depth++;
	int rc =
	    into ? decode_into(c, n->target, depth, into) : decode_node(c, n->target, depth, out);
	c->alias_depth--;
	n->expanding = 0;
	return rc;
}

/* Decode a mapping (or an alias of one) into an existing object: merges. */
static int decode_into(struct doc_ctx *c, struct ynode *n, size_t depth, json_object *obj)
{
	int rc = decode_step(c, n);
	if (rc)
		return rc;
	if (n->kind == YN_ALIAS)
		return decode_alias(c, n, depth, obj, NULL);
	return decode_map_into(c, n, depth, obj);
}

static int decode_seq(struct doc_ctx *c, struct ynode *n, size_t depth, json_object **out)
{
	if (depth >= NL_DOC_MAX_DEPTH)
		return doc_fail(c, NL_EPARSE, n->mark, "nesting deeper than %d levels",
		                NL_DOC_MAX_DEPTH);
	json_object *arr = json_object_new_array_ext((int)(n->nkids ? n->nkids : 1));
	if (!arr)
		return doc_nomem(c);
	for (size_t i = 0; i < n->nkids; i++) {
		json_object *v = NULL;
		int rc = decode_node(c, n->kids[i], depth + 1, &v);
		if (rc == 0 && json_object_array_add(arr, v)) {
			json_object_put(v);
			rc = doc_nomem(c);
		}
		if (rc) {
			json_object_put(arr);
			return rc;
		}
	}
	*out = arr;
	return 0;
}

/* depth counts the collections (and merges) enclosing n. */
static int decode_node(struct doc_ctx *c, struct ynode *n, size_t depth, json_object **out)
{
	int rc = decode_step(c, n);
	if (rc)
		return rc;
	switch (n->kind) {
	case YN_SCALAR:
		return decode_scalar(c, n, out);
	case YN_ALIAS:
		return decode_alias(c, n, depth, NULL, out);
	case YN_SEQ:
		return decode_seq(c, n, depth, out);
	case YN_MAP:
		break;
	}
	json_object *obj = json_object_new_object();
	if (!obj)
		return doc_nomem(c);
	rc = decode_map_into(c, n, depth, obj);
	if (rc) {
		json_object_put(obj);
		return rc;
	}
	*out = obj;
	return 0;
}

/* ---- documents ------------------------------------------------------------- */

static const char *str_field(json_object *o, const char *key)
{
	json_object *v;
	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* kind: List, or a typed list (ConfigMapList ...) carrying an items array. */
static int is_list(json_object *doc, json_object **items)
{
	const char *kind =
	    json_object_is_type(doc, json_type_object) ? str_field(doc, "kind") : NULL;
	size_t n = kind ? strlen(kind) : 0;
	if (n < 4 || strcmp(kind + n - 4, "List") != 0)
		return 0;
	*items = NULL;
	json_object_object_get_ex(doc, "items", items);
	if (json_object_is_type(*items, json_type_array))
		return 1;
	return strcmp(kind, "List") == 0 && *items == NULL;
}

static int append_doc(struct doc_ctx *c, json_object *doc)
{
	if (json_object_array_add(c->docs, doc)) {
		json_object_put(doc);
		return doc_nomem(c);
	}
	return 0;
}

/* Items of a typed list come from the server without kind and apiVersion;
 * apimachinery's unstructured decoder fills them in from the list, and so do we. */
static int flatten_list(struct doc_ctx *c, json_object *doc, json_object *items)
{
	const char *kind = str_field(doc, "kind");
	const char *api = str_field(doc, "apiVersion");
	size_t kindlen = strlen(kind) - 4;
	size_t n = items ? json_object_array_length(items) : 0;
	for (size_t i = 0; i < n; i++) {
		json_object *it = json_object_array_get_idx(items, i);
		if (kindlen && json_object_is_type(it, json_type_object) &&
		    !json_object_object_get_ex(it, "kind", NULL) &&
		    !json_object_object_get_ex(it, "apiVersion", NULL)) {
			if (json_object_object_add(
			        it, "kind", json_object_new_string_len(kind, (int)kindlen)) ||
			    (api &&
			     json_object_object_add(it, "apiVersion", json_object_new_string(api))))
				return doc_nomem(c);
		}
		int rc = append_doc(c, json_object_get(it));
		if (rc)
			return rc;
	}
	return 0;
}

static int add_document(struct doc_ctx *c, json_object *doc, yaml_mark_t mark)
{
	json_object *items;
	int rc;
	/* A document that is empty (or null) is no object: kubectl skips it too. */
	if (!doc)
		return 0;
	if (!c->flatten) {
		if (json_object_array_length(c->docs) > 0) {
			json_object_put(doc);
			return doc_fail(c, NL_EPARSE, mark,
			                "expected a single document, found more");
		}
		return append_doc(c, doc);
	}
	if (!is_list(doc, &items))
		return append_doc(c, doc);
	rc = flatten_list(c, doc, items);
	json_object_put(doc);
	return rc;
}

static int finish_document(struct doc_ctx *c, struct ytree *t)
{
	json_object *doc = NULL;
	if (!t->root)
		return 0;
	c->decode_count = c->alias_count = c->alias_depth = 0;
	int rc = decode_node(c, t->root, 0, &doc);
	if (rc)
		return rc;
	return add_document(c, doc, t->root->mark);
}

static int parser_fail(struct doc_ctx *c, const yaml_parser_t *p)
{
	if (p->error == YAML_MEMORY_ERROR)
		return doc_nomem(c);
	const char *problem = p->problem ? p->problem : "unknown problem parsing YAML content";
	yaml_mark_t m = p->problem_mark;
	if (p->error == YAML_READER_ERROR) {
		/* The reader reports a byte offset only. */
		size_t off = p->problem_offset < c->len ? p->problem_offset : c->len;
		memset(&m, 0, sizeof(m));
		for (size_t i = 0; i < off; i++) {
			m.column++;
			if (c->buf[i] == '\n') {
				m.line++;
				m.column = 0;
			}
		}
	}
	if (p->context)
		return doc_fail(c, NL_EPARSE, m, "%s (%s at line %zu, column %zu)", problem,
		                p->context, p->context_mark.line + 1, p->context_mark.column + 1);
	return doc_fail(c, NL_EPARSE, m, "%s", problem);
}

static int parse_stream(struct doc_ctx *c)
{
	yaml_parser_t p;
	yaml_event_t ev;
	struct ytree *t = calloc(1, sizeof(*t));
	int rc = 0, done = 0;
	if (!t)
		return doc_nomem(c);
	if (!yaml_parser_initialize(&p)) {
		free(t);
		return doc_nomem(c);
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)(c->buf ? c->buf : ""), c->len);
	while (!done && rc == 0) {
		if (!yaml_parser_parse(&p, &ev)) {
			rc = parser_fail(c, &p);
			break;
		}
		if (ev.type == YAML_STREAM_END_EVENT) {
			done = 1;
		} else if (ev.type == YAML_DOCUMENT_END_EVENT) {
			rc = finish_document(c, t);
			tree_reset(t);
		} else {
			rc = tree_event(c, t, &ev);
		}
		yaml_event_delete(&ev);
	}
	tree_reset(t);
	free(t);
	yaml_parser_delete(&p);
	return rc;
}

static int run(json_object **docs, const char *buf, size_t len, const char *name, int flatten,
               nl_err *err)
{
	struct doc_ctx c = {.name = name ? name : "<input>",
	                    .buf = buf,
	                    .len = len,
	                    .err = err,
	                    .flatten = flatten};
	if (!buf && len)
		return nl_err_set(err, NL_EINVAL, "%s: no buffer", c.name);
	if (!(c.docs = json_object_new_array()))
		return doc_nomem(&c);
	int rc = parse_stream(&c);
	if (rc) {
		json_object_put(c.docs);
		return rc;
	}
	*docs = c.docs;
	return 0;
}

int nl_doc_parse(json_object **out, const char *buf, size_t len, const char *name, nl_err *err)
{
	if (!out)
		return nl_err_set(err, NL_EINVAL, "nl_doc_parse: out is NULL");
	return run(out, buf, len, name, 1, err);
}

int nl_doc_parse_one(json_object **out, const char *buf, size_t len, const char *name, nl_err *err)
{
	json_object *docs;
	if (!out)
		return nl_err_set(err, NL_EINVAL, "nl_doc_parse_one: out is NULL");
	int rc = run(&docs, buf, len, name, 0, err);
	if (rc)
		return rc;
	if (json_object_array_length(docs) != 1) {
		json_object_put(docs);
		return nl_err_set(err, NL_EPARSE, "%s: no document found", name ? name : "<input>");
	}
	*out = json_object_get(json_object_array_get_idx(docs, 0));
	json_object_put(docs);
	return 0;
}

/* ---- files ----------------------------------------------------------------- */

/* Reads at most max bytes; one byte more means NL_ETOOBIG. *errnum gets
 * errno for NL_EIO. */
static int read_all(int fd, size_t hint, size_t max, char **out, size_t *len_out, int *errnum)
{
	size_t cap = (hint < max ? hint : max) + 1, len = 0;
	char *buf = malloc(cap + 1);
	if (!buf)
		return NL_ENOMEM;
	for (;;) {
		if (len == cap) {
			if (cap > max) {
				free(buf);
				return NL_ETOOBIG;
			}
			size_t ncap = cap <= max / 2 ? cap * 2 : max + 1;
			char *nb = realloc(buf, ncap + 1);
			if (!nb) {
				free(buf);
				return NL_ENOMEM;
			}
			buf = nb;
			cap = ncap;
		}
		ssize_t r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			*errnum = errno;
			free(buf);
			return NL_EIO;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	buf[len] = '\0';
	*out = buf;
	*len_out = len;
	return 0;
}

int nl_file_read(char **out, size_t *len_out, const char *path, size_t max, nl_err *err)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	if (!out || !path)
		return nl_err_set(err, NL_EINVAL, "nl_file_read: missing argument");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return nl_err_set(err, NL_EIO, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return nl_err_set(err, NL_EIO, "%s: %s", path, strerror(e));
	}
	if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > max) {
		close(fd);
		return nl_err_set(err, NL_ETOOBIG, "%s: file is larger than %zu bytes", path, max);
	}
	size_t hint = S_ISREG(st.st_mode) ? (size_t)st.st_size : 4096;
	int e = 0;
	if (max > SIZE_MAX / 2)
		max = SIZE_MAX / 2;
	int rc = read_all(fd, hint, max, &buf, &len, &e);
	close(fd);
	if (rc == NL_ETOOBIG)
		return nl_err_set(err, rc, "%s: file is larger than %zu bytes", path, max);
	if (rc == NL_EIO)
		return nl_err_set(err, rc, "%s: %s", path, strerror(e));
	if (rc)
		return nl_err_set(err, rc, "%s: out of memory", path);
	*out = buf;
	if (len_out)
		*len_out = len;
	return 0;
}

int nl_doc_load_file(json_object **out, const char *path, nl_err *err)
{
	char *buf;
	size_t len;
	if (!out)
		return nl_err_set(err, NL_EINVAL, "nl_doc_load_file: out is NULL");
	int rc = nl_file_read(&buf, &len, path, NL_DOC_MAX_FILE, err);
	if (rc)
		return rc;
	rc = nl_doc_parse(out, buf, len, path, err);
	free(buf);
	return rc;
}
