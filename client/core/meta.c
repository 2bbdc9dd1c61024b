#include <math.h>
#include <nodelet/errors.h>
#include <nodelet/meta.h>

#include <stdlib.h>
#include <string.h>

/* Path steps up to this size are looked up without an allocation. */
#define NL_PATH_STEP_INLINE 128

/* obj[key] where key is the first n bytes of p; json-c wants a C string. */
static json_object *get_step(json_object *obj, const char *p, size_t n)
{
	char inline_key[NL_PATH_STEP_INLINE];
	char *key = n < sizeof(inline_key) ? inline_key : malloc(n + 1);
	json_object *next = NULL;
	if (!key)
		return NULL;
	memcpy(key, p, n);
	key[n] = '\0';
	if (!json_object_object_get_ex(obj, key, &next))
		next = NULL;
	if (key != inline_key)
		free(key);
	return next;
}

json_object *nl_json_get_path(json_object *obj, const char *path)
{
	if (!obj || !path || !*path)
		return NULL;
	const char *p = path;
	for (;;) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		if (n == 0 || !json_object_is_type(obj, json_type_object))
			return NULL;
		json_object *next = get_step(obj, p, n);
		if (!next || !dot)
			return next;
		obj = next;
		p = dot + 1;
	}
}

const char *nl_json_get_string(json_object *obj, const char *path)
{
	json_object *v = nl_json_get_path(obj, path);
	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

const char *nl_json_go_kind(json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_object:
		return "object";
	case json_type_array:
		return "array";
	case json_type_string:
		return "string";
	case json_type_boolean:
		return "bool";
	case json_type_int:
	case json_type_double:
		return "number";
	default:
		return "null";
	}
}

const char *nl_meta_name(json_object *obj)
{
	return nl_json_get_string(obj, "metadata.name");
}

const char *nl_meta_namespace(json_object *obj)
{
	return nl_json_get_string(obj, "metadata.namespace");
}

const char *nl_meta_uid(json_object *obj)
{
	return nl_json_get_string(obj, "metadata.uid");
}

const char *nl_meta_resource_version(json_object *obj)
{
	return nl_json_get_string(obj, "metadata.resourceVersion");
}

json_object *nl_meta_labels(json_object *obj)
{
	json_object *v = nl_json_get_path(obj, "metadata.labels");
	return json_object_is_type(v, json_type_object) ? v : NULL;
}

json_object *nl_meta_ensure(json_object *obj)
{
	json_object *meta = NULL;
	if (!json_object_is_type(obj, json_type_object))
		return NULL;
	if (json_object_object_get_ex(obj, "metadata", &meta) &&
	    json_object_is_type(meta, json_type_object))
		return meta;
	/* Absent, null or not an object: a malformed metadata is replaced rather
	 * than written through, so callers always get an object. */
	meta = json_object_new_object();
	if (!meta)
		return NULL;
	if (json_object_object_add(obj, "metadata", meta) != 0) {
		json_object_put(meta);
		return NULL;
	}
	return meta;
}

int nl_meta_set_string(json_object *obj, const char *key, const char *value)
{
	if (!json_object_is_type(obj, json_type_object) || !key)
		return NL_EINVAL;
	if (!value) {
		json_object *meta = NULL;
		if (json_object_object_get_ex(obj, "metadata", &meta) &&
		    json_object_is_type(meta, json_type_object))
			json_object_object_del(meta, key);
		return 0;
	}
	json_object *meta = nl_meta_ensure(obj);
	json_object *str = meta ? json_object_new_string(value) : NULL;
	if (!str)
		return NL_ENOMEM;
	if (json_object_object_add(meta, key, str) != 0) {
		json_object_put(str);
		return NL_ENOMEM;
	}
	return 0;
}

int nl_rv_parse(uint64_t *out, const char *s)
{
	uint64_t v = 0;
	if (!s || !*s) {
		*out = 0;
		return 0;
	}
	/* strtoull would accept spaces, signs and wrap "-1"; Go's
	 * strconv.ParseUint(s, 10, 64) accepts digits only. */
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return NL_EPARSE;
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return NL_EPARSE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

const char *nl_json_compact(json_object *obj, size_t *len_out)
{
	size_t len = 0;
	const char *s = json_object_to_json_string_length(
	    obj, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	if (len_out)
		*len_out = len;
	return s;
}

int nl_json_has_non_finite(json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_double:
		return !isfinite(json_object_get_double(o));
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++)
			if (nl_json_has_non_finite(json_object_array_get_idx(o, i)))
				return 1;
		return 0;
	case json_type_object: {
		json_object_object_foreach(o, k, v)
		{
			(void)k;
			if (nl_json_has_non_finite(v))
				return 1;
		}
		return 0;
	}
	default:
		return 0;
	}
}
