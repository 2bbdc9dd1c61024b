/* Typed decoding of request bodies, following encoding/json as vendored by
 * the apiserver (sigs.k8s.io/json): case-sensitive field names, the first
 * type error is kept while decoding goes on, errors from a type's own
 * UnmarshalJSON (metav1.Time, resource.Quantity) stop decoding at once and
 * win over a kept type error. */
#include "schema.h"

#include <nodelet/base64.h>
#include <nodelet/buf.h>
#include <nodelet/meta.h>
#include <nodelet/time.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* No served struct has more fields than this (NodeStatus has 13). */
#define MAX_FIELDS 48 /* PodSpec has 39 */

/* time.Time{}: what Go writes as null for metav1.Time and MicroTime. */
#define GO_ZERO_TIME_USEC (INT64_C(-62135596800) * 1000000)

#define QTY_ERR_FORMAT                                  \
	"quantities must match the regular expression " \
	"'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
#define QTY_ERR_SUFFIX "unable to parse quantity's suffix"

typedef struct {
	const mock_resource *r;
	nl_buf go_path;     /* "spec.taints.effect": UnmarshalTypeError.Field */
	nl_buf strict_path; /* "spec.taints[0].effect": the unknown-field path */
	mock_unknown_fields unknown;
	char msg[sizeof(((nl_err *)0)->msg)];
	bool have_msg;
	bool oom;
} dctx;

enum { DEC_OK = 0, DEC_ABORT = -1 };

/* ---------------------------------------------------------------- helpers */

void mock_unknown_fields_free(mock_unknown_fields *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->n; i++)
		free(u->paths[i]);
	free(u->paths);
	u->paths = NULL;
	u->n = 0;
}

static const char *path_str(const nl_buf *b)
{
	return b->data ? b->data : "";
}

/* Append ".name" (or "name" at the root); returns the length to restore. */
static size_t path_push(dctx *c, nl_buf *b, const char *name)
{
	size_t old = b->len;
	if ((old && nl_buf_adds(b, ".") != 0) || nl_buf_adds(b, name) != 0)
		c->oom = true;
	return old;
}

static size_t path_push_index(dctx *c, nl_buf *b, size_t i)
{
	size_t old = b->len;
	if (nl_buf_printf(b, "[%zu]", i) != 0)
		c->oom = true;
	return old;
}

static void path_pop(nl_buf *b, size_t len)
{
	b->len = len;
	if (b->data)
		b->data[len] = '\0';
}

static void add_unknown(dctx *c)
{
	char *p = strdup(path_str(&c->strict_path));
	char **grown = p ? realloc(c->unknown.paths, (c->unknown.n + 1) * sizeof(*grown)) : NULL;
	if (!grown) {
		free(p);
		c->oom = true;
		return;
	}
	grown[c->unknown.n++] = p;
	c->unknown.paths = grown;
}

/* A decoding error that lets decoding go on; only the first one is kept. */
__attribute__((format(printf, 2, 3))) static void save_error(dctx *c, const char *fmt, ...)
{
	va_list ap;
	if (c->have_msg)
		return;
	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
	c->have_msg = true;
}

/* An error from a type's UnmarshalJSON: decoding stops, this one is reported. */
__attribute__((format(printf, 2, 3))) static int abort_with(dctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
	c->have_msg = true;
	return DEC_ABORT;
}

static void type_error(dctx *c, const char *value, const nl_schema *st, const char *go_type)
{
	save_error(c, "json: cannot unmarshal %s into Go struct field %s.%s of type %s", value,
	           st->go_name, path_str(&c->go_path), go_type);
}

static int time_error(dctx *c, const char *value, bool micro)
{
	nl_buf b;
	nl_buf_init(&b, sizeof(c->msg) * 4);
	nl_time_parse_error(&b, value, micro);
	abort_with(c, "%s", b.data ? b.data : "invalid time");
	nl_buf_free(&b);
	return DEC_ABORT;
}

/* ------------------------------------------------------------- quantity */

static bool qty_suffix_ok(const char *s)
{
	static const char *const known[] = {"",  "n", "u",  "m",  "k",  "M",  "G",  "T",
	                                    "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(s, known[i]) == 0)
			return true;
	if (strlen(s) < 2 || (s[0] != 'e' && s[0] != 'E'))
		return false;
	/* A decimal exponent: strconv.ParseInt(s[1:], 10, 64). */
	const char *p = s + 1;
	if (*p == '+' || *p == '-')
		p++;
	if (!*p || strlen(p) > 18)
		return false;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/* resource.ParseQuantity's syntax check; NULL when str is a quantity. */
static const char *quantity_error(const char *str)
{
	size_t end = strlen(str), pos = 0;
	if (end == 0)
		return QTY_ERR_FORMAT;
	if (str[0] == '-' || str[0] == '+')
		pos++;
	while (pos < end && is_digit(str[pos]))
		pos++;
	if (pos < end && str[pos] == '.') {
		pos++;
		while (pos < end && is_digit(str[pos]))
			pos++;
	}
	size_t suffix = pos;
	if (pos == end)
		return NULL;
	while (pos < end && strchr("eEinumkKMGTP", str[pos]))
		pos++;
	if (pos < end && (str[pos] == '-' || str[pos] == '+'))
		pos++;
	while (pos < end && is_digit(str[pos]))
		pos++;
	if (pos < end)
		return QTY_ERR_FORMAT;
	return qty_suffix_ok(str + suffix) ? NULL : QTY_ERR_SUFFIX;
}

/* ---------------------------------------------------------------- decode */

static int decode_struct(dctx *c, const nl_schema *s, json_object *in, json_object **out);

static json_object *new_string(json_object *in)
{
	return json_object_new_string_len(json_object_get_string(in),
	                                  json_object_get_string_len(in));
}

/* Go parses an integer field with strconv.ParseInt; anything else ("1.5",
 * "1e3", out of range) is `number <text>`. */
static json_object *decode_int(dctx *c, const nl_schema *st, const char *go_type, json_object *in,
                               bool is32)
{
	const char *text = json_object_to_json_string_ext(in, JSON_C_TO_STRING_PLAIN);
	char back[32];
	char value[80];
	if (json_object_is_type(in, json_type_int)) {
		int64_t v = json_object_get_int64(in);
		snprintf(back, sizeof(back), "%lld", (long long)v);
		/* json-c saturates past int64; the text then no longer matches. */
		if (strcmp(back, text) == 0 && (!is32 || (v >= INT32_MIN && v <= INT32_MAX)))
			return json_object_new_int64(v);
	} else if (!json_object_is_type(in, json_type_double)) {
		type_error(c, nl_json_go_kind(in), st, go_type);
		return NULL;
	}
	snprintf(value, sizeof(value), "number %.60s", text);
	type_error(c, value, st, go_type);
	return NULL;
}

static int decode_time(dctx *c, const nl_schema *st, json_object *in, bool micro, json_object **out)
{
	int64_t usec;
	char buf[NL_TIME_BUFSZ];
	if (!json_object_is_type(in, json_type_string))
		/* metav1.Time.UnmarshalJSON unmarshals into a string first. */
		return abort_with(
		    c, "json: cannot unmarshal %s into Go struct field %s.%s of type string",
		    nl_json_go_kind(in), st->go_name, path_str(&c->go_path));
	const char *s = json_object_get_string(in);
	if ((micro ? nl_time_parse_micro(&usec, s) : nl_time_parse(&usec, s)) != 0)
		return time_error(c, s, micro);
	if (usec == GO_ZERO_TIME_USEC) {
		*out = NULL; /* the zero time is written as null */
		return DEC_OK;
	}
	if (micro)
		nl_time_format_micro(buf, usec);
	else
		nl_time_format(buf, usec);
	*out = json_object_new_string(buf);
	if (!*out)
		c->oom = true;
	return DEC_OK;
}

static json_object *decode_bytes(dctx *c, const nl_schema *st, json_object *in)
{
	if (!json_object_is_type(in, json_type_string)) {
		type_error(c, nl_json_go_kind(in), st, "[]uint8");
		return NULL;
	}
	unsigned char *raw = NULL;
	char *canon = NULL;
	size_t n = 0;
	nl_err err = {0};
	int rc = nl_base64_decode(&raw, &n, json_object_get_string(in),
	                          (size_t)json_object_get_string_len(in), &err);
	if (rc == NL_EPARSE) {
		save_error(c, "%s", err.msg);
		return NULL;
	}
	/* The decoded bytes, written back as Go writes a []byte: canonical. */
	if (rc == 0)
		rc = nl_base64_encode(&canon, raw, n);
	free(raw);
	json_object *res = rc == 0 ? json_object_new_string(canon) : NULL;
	free(canon);
	if (!res)
		c->oom = true;
	return res;
}

/* resource.Quantity.UnmarshalJSON takes the raw text of any JSON value,
 * strips quotes and spaces, and parses it; its errors stop decoding. */
static int decode_quantity(dctx *c, json_object *in, json_object **out)
{
	const char *text;
	size_t len;
	if (!in) {
		*out = json_object_new_string("0");
		return DEC_OK;
	}
	switch (json_object_get_type(in)) {
	case json_type_string:
		text = json_object_get_string(in);
		break;
	case json_type_int:
	case json_type_double:
		text = json_object_to_json_string_ext(in, JSON_C_TO_STRING_PLAIN);
		break;
	default:
		return abort_with(c, "%s", QTY_ERR_FORMAT);
	}
	while (*text == ' ' || (*text >= '\t' && *text <= '\r'))
		text++;
	len = strlen(text);
	while (len && (text[len - 1] == ' ' || (text[len - 1] >= '\t' && text[len - 1] <= '\r')))
		len--;
	char *q = strndup(text, len);
	if (!q) {
		c->oom = true;
		return DEC_ABORT;
	}
	const char *why = quantity_error(q);
	if (why) {
		free(q);
		return abort_with(c, "%s", why);
	}
	*out = json_object_new_string(q);
	free(q);
	return DEC_OK;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Keys of obj (borrowed), sorted as Go sorts map keys. Caller frees the array. */
static const char **sorted_keys(json_object *obj, size_t *n_out)
{
	size_t n = (size_t)json_object_object_length(obj), i = 0;
	const char **keys = malloc((n ? n : 1) * sizeof(*keys));
	if (!keys)
		return NULL;
	json_object_object_foreach(obj, k, v)
	{
		(void)v;
		keys[i++] = k;
	}
	qsort(keys, n, sizeof(*keys), cmp_str);
	*n_out = n;
	return keys;
}

/* An ExtraValue ([]string): a list of strings, elements of another type
 * dropped with the decoder's error. */
static int decode_strings(dctx *c, const nl_schema *st, json_object *in, json_object **out)
{
	if (!json_object_is_type(in, json_type_array)) {
		type_error(c, nl_json_go_kind(in), st, "v1.ExtraValue");
		return DEC_OK;
	}
	json_object *a = json_object_new_array();
	if (!a) {
		c->oom = true;
		return DEC_ABORT;
	}
	for (size_t i = 0; i < json_object_array_length(in); i++) {
		json_object *e = json_object_array_get_idx(in, i);
		if (!e)
			json_object_array_add(a, json_object_new_string(""));
		else if (json_object_is_type(e, json_type_string))
			json_object_array_add(a, new_string(e));
		else
			type_error(c, nl_json_go_kind(e), st, "string");
	}
	*out = a;
	return DEC_OK;
}

static int decode_map(dctx *c, const nl_schema *st, const nl_field *f, json_object *in,
                      json_object **out)
{
	size_t n;
	int rc = DEC_OK;
	if (!json_object_is_type(in, json_type_object)) {
		type_error(c, nl_json_go_kind(in), st, f->go_type);
		return DEC_OK;
	}
	const char **keys = sorted_keys(in, &n);
	json_object *m = json_object_new_object();
	if (!keys || !m) {
		free(keys);
		json_object_put(m);
		c->oom = true;
		return DEC_ABORT;
	}
	for (size_t i = 0; i < n && rc == DEC_OK; i++) {
		json_object *v = json_object_object_get(in, keys[i]), *o = NULL;
		if (f->type == NL_FT_MAP_QUANTITY) {
			rc = decode_quantity(c, v, &o);
		} else if (f->type == NL_FT_MAP_STRINGS) {
			if (v) /* a null ExtraValue is a nil slice: null */
				rc = decode_strings(c, st, v, &o);
		} else if (f->type == NL_FT_MAP_BYTES) {
			if (v) /* a null []byte is written as null */
				o = decode_bytes(c, st, v);
		} else if (!v) {
			o = json_object_new_string("");
		} else if (json_object_is_type(v, json_type_string)) {
			o = new_string(v);
		} else {
			type_error(c, nl_json_go_kind(v), st, "string");
		}
		if (rc == DEC_OK)
			json_object_object_add(m, keys[i], o);
	}
	free(keys);
	if (rc != DEC_OK) {
		json_object_put(m);
		return rc;
	}
	*out = m;
	return DEC_OK;
}

static int decode_value(dctx *c, const nl_schema *st, const nl_field *f, nl_field_type t,
                        const char *go_type, json_object *in, json_object **out);

static int decode_array(dctx *c, const nl_schema *st, const nl_field *f, json_object *in,
                        json_object **out)
{
	int rc = DEC_OK;
	if (!json_object_is_type(in, json_type_array)) {
		type_error(c, nl_json_go_kind(in), st, f->go_type);
		return DEC_OK;
	}
	size_t n = json_object_array_length(in);
	json_object *a = json_object_new_array_ext((int)(n ? n : 1));
	if (!a) {
		c->oom = true;
		return DEC_ABORT;
	}
	/* Errors about an element name the element type: "[]v1.Taint" -> "v1.Taint". */
	const char *elem_type = f->go_type + 2;
	for (size_t i = 0; i < n && rc == DEC_OK; i++) {
		json_object *v = json_object_array_get_idx(in, i), *o = NULL;
		size_t sl = path_push_index(c, &c->strict_path, i);
		if (v)
			rc = decode_value(c, st, f, f->elem, elem_type, v, &o);
		else if (f->elem == NL_FT_OBJECT)
			rc = decode_struct(c, f->sub, NULL, &o);
		else
			o = json_object_new_string("");
		path_pop(&c->strict_path, sl);
		if (rc == DEC_OK && o)
			json_object_array_add(a, o);
	}
	if (rc != DEC_OK) {
		json_object_put(a);
		return rc;
	}
	*out = a;
	return DEC_OK;
}

/* Decode one non-null value of type t. *out stays NULL when the value is
 * dropped for a kept type error, or is the zero Time (written as null). */
static int decode_value(dctx *c, const nl_schema *st, const nl_field *f, nl_field_type t,
                        const char *go_type, json_object *in, json_object **out)
{
	switch (t) {
	case NL_FT_STRING:
		if (json_object_is_type(in, json_type_string))
			*out = new_string(in);
		else
			type_error(c, nl_json_go_kind(in), st, go_type);
		return DEC_OK;
	case NL_FT_BOOL:
		if (json_object_is_type(in, json_type_boolean))
			*out = json_object_new_boolean(json_object_get_boolean(in));
		else
			type_error(c, nl_json_go_kind(in), st, go_type);
		return DEC_OK;
	case NL_FT_INT32:
	case NL_FT_INT64:
		*out = decode_int(c, st, go_type, in, t == NL_FT_INT32);
		return DEC_OK;
	case NL_FT_TIME:
	case NL_FT_MICROTIME:
		return decode_time(c, st, in, t == NL_FT_MICROTIME, out);
	case NL_FT_MAP_STRING:
	case NL_FT_MAP_BYTES:
	case NL_FT_MAP_QUANTITY:
	case NL_FT_MAP_STRINGS:
		return decode_map(c, st, f, in, out);
	case NL_FT_OBJECT:
		if (json_object_is_type(in, json_type_object))
			return decode_struct(c, f->sub, in, out);
		type_error(c, nl_json_go_kind(in), st, go_type);
		return DEC_OK;
	case NL_FT_ARRAY:
		return decode_array(c, st, f, in, out);
	case NL_FT_RAW:
		if (json_object_deep_copy(in, out, NULL) != 0)
			c->oom = true;
		return DEC_OK;
	case NL_FT_BYTES:
		*out = decode_bytes(c, st, in);
		return DEC_OK;
	}
	return DEC_OK;
}

static const nl_field *find_field(const nl_schema *s, const char *name)
{
	for (size_t i = 0; i < s->nfields; i++)
		if (strcmp(s->fields[i].name, name) == 0)
			return &s->fields[i];
	return NULL;
}

static bool is_empty(nl_field_type t, json_object *v)
{
	switch (t) {
	case NL_FT_STRING:
	case NL_FT_BYTES:
		return json_object_get_string_len(v) == 0;
	case NL_FT_BOOL:
		return !json_object_get_boolean(v);
	case NL_FT_INT32:
	case NL_FT_INT64:
		return json_object_get_int64(v) == 0;
	case NL_FT_MAP_STRING:
	case NL_FT_MAP_BYTES:
	case NL_FT_MAP_QUANTITY:
	case NL_FT_MAP_STRINGS:
		return json_object_object_length(v) == 0;
	case NL_FT_ARRAY:
		return json_object_array_length(v) == 0;
	default:
		return false; /* structs and times are never omitted */
	}
}

/* Write field f into out as Go's encoder would; takes ownership of v. */
static int emit(dctx *c, const nl_field *f, json_object *v, bool present, json_object *out)
{
	if (f->flags & NL_F_DROP) {
		json_object_put(v);
		return DEC_OK;
	}
	if (f->flags & NL_F_TYPEMETA) {
		json_object_put(v);
		v = json_object_new_string(strcmp(f->name, "kind") == 0 ? c->r->kind
		                                                        : c->r->api_version);
	} else if (!present) {
		if (f->flags & NL_F_PTR || f->type == NL_FT_RAW)
			return DEC_OK;
		switch (f->type) {
		case NL_FT_OBJECT:
			if (decode_struct(c, f->sub, NULL, &v) != DEC_OK)
				return DEC_ABORT;
			break;
		case NL_FT_TIME:
		case NL_FT_MICROTIME:
			break; /* a zero metav1.Time struct: null */
		default:
			if (f->flags & NL_F_OMITEMPTY)
				return DEC_OK;
			if (f->type == NL_FT_STRING)
				v = json_object_new_string("");
			else if (f->type == NL_FT_BOOL)
				v = json_object_new_boolean(0);
			else if (f->type == NL_FT_INT32 || f->type == NL_FT_INT64)
				v = json_object_new_int64(0);
			/* a nil map or slice without omitempty: null */
			break;
		}
	} else if ((f->flags & NL_F_OMITEMPTY) && !(f->flags & NL_F_PTR) && v &&
	           is_empty(f->type, v)) {
		json_object_put(v);
		return DEC_OK;
	}
	if (json_object_object_add(out, f->name, v) != 0) {
		json_object_put(v);
		c->oom = true;
		return DEC_ABORT;
	}
	return DEC_OK;
}

/* Decode in (an object, or NULL for a struct that was absent) with s. */
static int decode_struct(dctx *c, const nl_schema *s, json_object *in, json_object **out)
{
	json_object *slots[MAX_FIELDS] = {NULL};
	bool present[MAX_FIELDS] = {false};
	json_object *res = NULL;
	int rc = DEC_OK;

	if (s->nfields > MAX_FIELDS)
		return abort_with(c, "internal error: schema %s has too many fields", s->go_name);
	if (in) {
		json_object_object_foreach(in, key, val)
		{
			const nl_field *f = find_field(s, key);
			size_t sl = path_push(c, &c->strict_path, key);
			if (!f) {
				add_unknown(c);
				path_pop(&c->strict_path, sl);
				continue;
			}
			size_t i = (size_t)(f - s->fields);
			size_t gl = path_push(c, &c->go_path, key);
			json_object_put(slots[i]);
			slots[i] = NULL;
			/* null leaves a field as absent, as Go leaves it unset */
			present[i] = val != NULL;
			if (val)
				rc = decode_value(c, s, f, f->type, f->go_type, val, &slots[i]);
			if (present[i] && !slots[i] && f->type != NL_FT_TIME &&
			    f->type != NL_FT_MICROTIME)
				present[i] = false; /* dropped after a kept type error */
			path_pop(&c->go_path, gl);
			path_pop(&c->strict_path, sl);
			if (rc != DEC_OK || c->oom)
				goto fail;
		}
	}
	res = json_object_new_object();
	if (!res) {
		c->oom = true;
		goto fail;
	}
	for (size_t i = 0; i < s->nfields; i++) {
		json_object *v = slots[i];
		slots[i] = NULL;
		if (emit(c, &s->fields[i], v, present[i], res) != DEC_OK)
			goto fail;
	}
	*out = res;
	return DEC_OK;

fail:
	for (size_t i = 0; i < s->nfields; i++)
		json_object_put(slots[i]);
	json_object_put(res);
	return DEC_ABORT;
}

int mock_schema_decode(json_object **out, const mock_resource *r, json_object *in,
                       mock_unknown_fields *unknown, nl_err *err)
{
	dctx c;
	json_object *obj = NULL;
	int rc;

	if (in && !json_object_is_type(in, json_type_object))
		return nl_err_set(err, NL_EBADREQUEST,
		                  "json: cannot unmarshal %s into Go value of type v1.%s",
		                  nl_json_go_kind(in), r->kind);
	memset(&c, 0, sizeof(c));
	c.r = r;
	nl_buf_init(&c.go_path, 0);
	nl_buf_init(&c.strict_path, 0);
	rc = decode_struct(&c, r->schema, in, &obj);
	nl_buf_free(&c.go_path);
	nl_buf_free(&c.strict_path);
	if (c.oom) {
		rc = nl_err_set(err, NL_ENOMEM, "out of memory");
	} else if (rc != DEC_OK || c.have_msg) {
		rc = nl_err_set(err, NL_EBADREQUEST, "%s", c.msg);
	} else {
		if (r->defaults)
			r->defaults(obj);
		*out = obj;
		obj = NULL;
		if (unknown)
			*unknown = c.unknown;
		else
			mock_unknown_fields_free(&c.unknown);
		return 0;
	}
	json_object_put(obj);
	mock_unknown_fields_free(&c.unknown);
	return rc;
}

/* ------------------------------------------------------------ reordering */

struct kv {
	char *key;
	json_object *val;
	size_t rank;
};

static int cmp_kv(const void *a, const void *b)
{
	const struct kv *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* Reorder obj's entries by rank (then key): json-c keeps insertion order,
 * so every entry is removed and added again. */
static int reorder(json_object *obj, const nl_schema *s)
{
	size_t n = (size_t)json_object_object_length(obj), i = 0;
	struct kv *kv = calloc(n ? n : 1, sizeof(*kv));
	if (!kv)
		return NL_ENOMEM;
	json_object_object_foreach(obj, k, v)
	{
		kv[i].key = strdup(k);
		if (!kv[i].key)
			goto oom;
		kv[i].val = v;
		kv[i].rank = 0;
		if (s) {
			const nl_field *f = find_field(s, k);
			/* unknown keys keep their relative order after the known ones */
			kv[i].rank = f ? (size_t)(f - s->fields) : s->nfields + i;
		}
		i++;
	}
	qsort(kv, n, sizeof(*kv), cmp_kv);
	for (i = 0; i < n; i++) {
		json_object_get(kv[i].val);
		json_object_object_del(obj, kv[i].key);
	}
	for (i = 0; i < n; i++) {
		if (json_object_object_add(obj, kv[i].key, kv[i].val) != 0)
			json_object_put(kv[i].val);
		free(kv[i].key);
	}
	free(kv);
	return 0;
oom:
	for (size_t j = 0; j < i; j++)
		free(kv[j].key);
	free(kv);
	return NL_ENOMEM;
}

int mock_schema_sort_object(json_object *obj, const nl_schema *s)
{
	if (!json_object_is_type(obj, json_type_object))
		return 0;
	return reorder(obj, s);
}

int mock_json_sort_keys(json_object *obj)
{
	if (!json_object_is_type(obj, json_type_object))
		return 0;
	return reorder(obj, NULL);
}
