/* The Swagger 2.0 document as gnostic's openapi_v2.Document protobuf, the
 * form client-go's discovery OpenAPISchema() asks for. Field numbers are
 * those of github.com/google/gnostic-models openapiv2/OpenAPIv2.proto;
 * fields are written in number order and proto3 zero values left out, as
 * Go's proto.Marshal does. Vendor extensions and defaults are Any{yaml}:
 * the value's JSON, which is YAML too (kube-openapi parses it with a YAML
 * reader). Only what mock_openapi_v2_document writes is encoded. */
#include <nodelet/meta.h>
#include <stdint.h>
#include <string.h>

#include "openapi.h"

#define WT_VARINT 0
#define WT_BYTES 2

typedef struct {
	nl_buf *b;
	int rc; /* the first error; later writes are skipped */
} pbw;

typedef void (*msg_fn)(pbw *w, json_object *v);

static void put_varint(pbw *w, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;
	while (v >= 0x80) {
		tmp[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	tmp[n++] = (unsigned char)v;
	if (!w->rc)
		w->rc = nl_buf_add(w->b, tmp, n);
}

static void put_len(pbw *w, unsigned num, const void *p, size_t n)
{
	put_varint(w, ((uint64_t)num << 3) | WT_BYTES);
	put_varint(w, n);
	if (!w->rc && n)
		w->rc = nl_buf_add(w->b, p, n);
}

static void put_str(pbw *w, unsigned num, const char *s)
{
	if (s && *s)
		put_len(w, num, s, strlen(s));
}

static void put_bool(pbw *w, unsigned num, int v)
{
	if (!v)
		return;
	put_varint(w, (uint64_t)num << 3 | WT_VARINT);
	put_varint(w, 1);
}

static const char *get_str(json_object *o, const char *key)
{
	json_object *v = json_object_object_get(o, key);
	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static int get_bool(json_object *o, const char *key)
{
	return json_object_get_boolean(json_object_object_get(o, key));
}

/* 0 for anything but an array (json-c asserts on other types). */
static size_t arr_len(json_object *a)
{
	return json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

/* A submessage: encoded apart, then written with its length. */
static void put_msg(pbw *w, unsigned num, msg_fn fn, json_object *v)
{
	nl_buf sub;
	pbw sw;
	if (w->rc)
		return;
	nl_buf_init(&sub, w->b->cap);
	sw.b = &sub;
	sw.rc = 0;
	fn(&sw, v);
	if (sw.rc)
		w->rc = sw.rc;
	else
		put_len(w, num, sub.data ? sub.data : "", sub.len);
	nl_buf_free(&sub);
}

static void put_strs(pbw *w, unsigned num, json_object *arr)
{
	for (size_t i = 0; i < arr_len(arr); i++)
		put_str(w, num, json_object_get_string(json_object_array_get_idx(arr, i)));
}

/* Any {yaml = 2}. */
static void any_msg(pbw *w, json_object *v)
{
	size_t len = 0;
	const char *text = nl_json_compact(v, &len);
	put_len(w, 2, text, len);
}

/* NamedAny {name = 1, value = 2}, v = [name, value]. */
static void named_any_msg(pbw *w, json_object *pair)
{
	put_str(w, 1, json_object_get_string(json_object_array_get_idx(pair, 0)));
	put_msg(w, 2, any_msg, json_object_array_get_idx(pair, 1));
}

/* repeated NamedAny vendor_extension: o's "x-" keys. */
static void put_vendor(pbw *w, unsigned num, json_object *o)
{
	json_object_object_foreach(o, k, v)
	{
		if (strncmp(k, "x-", 2) != 0)
			continue;
		json_object *pair = json_object_new_array();
		json_object_array_add(pair, json_object_new_string(k));
		json_object_array_add(pair, json_object_get(v));
		put_msg(w, num, named_any_msg, pair);
		json_object_put(pair);
	}
}

/* A map whose values are msg: repeated Named* {name = 1, value = 2}. */
static void put_named(pbw *w, unsigned num, json_object *map, msg_fn value)
{
	json_object_object_foreach(map, k, v)
	{
		nl_buf sub;
		pbw sw;
		if (w->rc)
			return;
		nl_buf_init(&sub, w->b->cap);
		sw.b = &sub;
		sw.rc = 0;
		put_str(&sw, 1, k);
		put_msg(&sw, 2, value, v);
		if (sw.rc)
			w->rc = sw.rc;
		else
			put_len(w, num, sub.data ? sub.data : "", sub.len);
		nl_buf_free(&sub);
	}
}

static void schema_msg(pbw *w, json_object *s);

static void type_item_msg(pbw *w, json_object *t)
{
	put_str(w, 1, json_object_get_string(t));
}

static void items_item_msg(pbw *w, json_object *s)
{
	put_msg(w, 1, schema_msg, s);
}

static void properties_msg(pbw *w, json_object *props)
{
	put_named(w, 1, props, schema_msg);
}

/* Schema: _ref 1, format 2, description 4, default 5, unique_items 16,
 * required 19, additional_properties 21 ({schema = 1}), type 22, items 23,
 * all_of 24, properties 25, vendor_extension 31. */
static void schema_msg(pbw *w, json_object *s)
{
	json_object *v;
	put_str(w, 1, get_str(s, "$ref"));
	put_str(w, 2, get_str(s, "format"));
	put_str(w, 4, get_str(s, "description"));
	if (json_object_object_get_ex(s, "default", &v))
		put_msg(w, 5, any_msg, v);
	put_bool(w, 16, get_bool(s, "uniqueItems"));
	put_strs(w, 19, json_object_object_get(s, "required"));
	if (json_object_object_get_ex(s, "additionalProperties", &v))
		put_msg(w, 21, items_item_msg, v); /* same shape: {Schema schema = 1} */
	if (json_object_object_get_ex(s, "type", &v))
		put_msg(w, 22, type_item_msg, v);
	if (json_object_object_get_ex(s, "items", &v))
		put_msg(w, 23, items_item_msg, v);
	v = json_object_object_get(s, "allOf");
	for (size_t i = 0; i < arr_len(v); i++)
		put_msg(w, 24, schema_msg, json_object_array_get_idx(v, i));
	if (json_object_object_get_ex(s, "properties", &v))
		put_msg(w, 25, properties_msg, v);
	put_vendor(w, 31, s);
}

/* Query (NonBodyParameter 3) and path (4) sub-schemas share the first four
 * field numbers; type, format and unique_items differ. */
static void query_param_msg(pbw *w, json_object *p)
{
	put_bool(w, 1, get_bool(p, "required"));
	put_str(w, 2, get_str(p, "in"));
	put_str(w, 3, get_str(p, "description"));
	put_str(w, 4, get_str(p, "name"));
	put_str(w, 6, get_str(p, "type"));
	put_str(w, 7, get_str(p, "format"));
	put_bool(w, 20, get_bool(p, "uniqueItems"));
}

static void path_param_msg(pbw *w, json_object *p)
{
	put_bool(w, 1, get_bool(p, "required"));
	put_str(w, 2, get_str(p, "in"));
	put_str(w, 3, get_str(p, "description"));
	put_str(w, 4, get_str(p, "name"));
	put_str(w, 5, get_str(p, "type"));
	put_str(w, 6, get_str(p, "format"));
	put_bool(w, 19, get_bool(p, "uniqueItems"));
}

static void non_body_msg(pbw *w, json_object *p)
{
	const char *in = get_str(p, "in");
	if (in && strcmp(in, "path") == 0)
		put_msg(w, 4, path_param_msg, p);
	else
		put_msg(w, 3, query_param_msg, p);
}

/* BodyParameter: description 1, name 2, in 3, required 4, schema 5. */
static void body_param_msg(pbw *w, json_object *p)
{
	put_str(w, 1, get_str(p, "description"));
	put_str(w, 2, get_str(p, "name"));
	put_str(w, 3, get_str(p, "in"));
	put_bool(w, 4, get_bool(p, "required"));
	put_msg(w, 5, schema_msg, json_object_object_get(p, "schema"));
}

static void parameter_msg(pbw *w, json_object *p)
{
	const char *in = get_str(p, "in");
	if (in && strcmp(in, "body") == 0)
		put_msg(w, 1, body_param_msg, p);
	else
		put_msg(w, 2, non_body_msg, p);
}

/* ParametersItem {parameter = 1}. */
static void parameters_item_msg(pbw *w, json_object *p)
{
	put_msg(w, 1, parameter_msg, p);
}

static void put_params(pbw *w, unsigned num, json_object *arr)
{
	for (size_t i = 0; i < arr_len(arr); i++)
		put_msg(w, num, parameters_item_msg, json_object_array_get_idx(arr, i));
}

/* Response: description 1, schema 2 (SchemaItem {schema = 1}). */
static void response_msg(pbw *w, json_object *r)
{
	json_object *s;
	put_str(w, 1, get_str(r, "description"));
	if (json_object_object_get_ex(r, "schema", &s))
		put_msg(w, 2, items_item_msg, s);
}

/* ResponseValue {response = 1}. */
static void response_value_msg(pbw *w, json_object *r)
{
	put_msg(w, 1, response_msg, r);
}

static void responses_msg(pbw *w, json_object *rs)
{
	put_named(w, 1, rs, response_value_msg);
}

/* Operation: tags 1, operation_id 5, produces 6, consumes 7, parameters 8,
 * responses 9, vendor_extension 13. */
static void operation_msg(pbw *w, json_object *op)
{
	put_strs(w, 1, json_object_object_get(op, "tags"));
	put_str(w, 5, get_str(op, "operationId"));
	put_strs(w, 6, json_object_object_get(op, "produces"));
	put_strs(w, 7, json_object_object_get(op, "consumes"));
	put_params(w, 8, json_object_object_get(op, "parameters"));
	put_msg(w, 9, responses_msg, json_object_object_get(op, "responses"));
	put_vendor(w, 13, op);
}

/* PathItem: get 2, put 3, post 4, delete 5, patch 8, parameters 9. */
static void path_item_msg(pbw *w, json_object *item)
{
	static const struct {
		const char *method;
		unsigned num;
	} ops[] = {{"get", 2}, {"put", 3}, {"post", 4}, {"delete", 5}, {"patch", 8}};
	json_object *op;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (json_object_object_get_ex(item, ops[i].method, &op))
			put_msg(w, ops[i].num, operation_msg, op);
	put_params(w, 9, json_object_object_get(item, "parameters"));
}

/* Paths {path = 2}; Definitions {additional_properties = 1}. */
static void paths_msg(pbw *w, json_object *paths)
{
	put_named(w, 2, paths, path_item_msg);
}

static void definitions_msg(pbw *w, json_object *defs)
{
	put_named(w, 1, defs, schema_msg);
}

static void info_msg(pbw *w, json_object *info)
{
	put_str(w, 1, get_str(info, "title"));
	put_str(w, 2, get_str(info, "version"));
}

int mock_openapi_v2_protobuf(nl_buf *out, json_object *doc)
{
	pbw w = {out, 0};
	json_object *v;
	put_str(&w, 1, get_str(doc, "swagger"));
	if (json_object_object_get_ex(doc, "info", &v))
		put_msg(&w, 2, info_msg, v);
	if (json_object_object_get_ex(doc, "paths", &v))
		put_msg(&w, 8, paths_msg, v);
	if (json_object_object_get_ex(doc, "definitions", &v))
		put_msg(&w, 9, definitions_msg, v);
	return w.rc;
}
