/* Encoding JSON trees as Kubernetes protobuf (nodelet/protobuf.h), byte
 * for byte as gogo's generated MarshalToSizedBuffer does. */
#include <nodelet/base64.h>
#include <nodelet/protobuf.h>
#include <nodelet/time.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* No served struct has more fields than this (NodeStatus has 13). */
#define MAX_FIELDS 48 /* PodSpec has 39 */

enum { WT_VARINT = 0, WT_BYTES = 2 };

/* time.Time{}'s Unix seconds: metav1.Time writes it as an empty message. */
#define GO_ZERO_TIME_SEC INT64_C(-62135596800)

static int put_varint(nl_buf *b, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;
	while (v >= 0x80) {
		tmp[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	tmp[n++] = (unsigned char)v;
	return nl_buf_add(b, tmp, n);
}

static int put_tag(nl_buf *b, unsigned num, unsigned wt)
{
	return put_varint(b, ((uint64_t)num << 3) | wt);
}

static int put_bytes(nl_buf *b, unsigned num, const void *p, size_t n)
{
	int rc = put_tag(b, num, WT_BYTES);
	if (!rc)
		rc = put_varint(b, n);
	if (!rc && n)
		rc = nl_buf_add(b, p, n);
	return rc;
}

/* A length-delimited field whose content is written after it: open puts
 * the tag and remembers where the content starts; close writes the length
 * in front of it (moving the content when the length needs more than the
 * one byte reserved for it). */
static int open_sub(nl_buf *b, unsigned num, size_t *mark)
{
	int rc = put_tag(b, num, WT_BYTES);
	if (!rc)
		rc = nl_buf_add(b, "", 1);
	*mark = b->len;
	return rc;
}

static int close_sub(nl_buf *b, size_t mark)
{
	size_t n = b->len - mark, k = 1;
	unsigned char tmp[10];
	uint64_t v = n;
	size_t i = 0;
	while (v >= 0x80) {
		tmp[i++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	tmp[i++] = (unsigned char)v;
	if (i > k) {
		int rc = nl_buf_add(b, tmp, i - k); /* grow by the extra bytes */
		if (rc)
			return rc;
		memmove(b->data + mark + (i - k), b->data + mark, n);
	}
	memcpy(b->data + mark - k, tmp, i);
	return 0;
}

static json_object *child(json_object *obj, const char *key)
{
	json_object *v = NULL;
	if (obj && json_object_is_type(obj, json_type_object))
		json_object_object_get_ex(obj, key, &v);
	return v;
}

static const char *str_or_empty(json_object *v, size_t *len)
{
	if (!v || !json_object_is_type(v, json_type_string)) {
		*len = 0;
		return "";
	}
	*len = (size_t)json_object_get_string_len(v);
	return json_object_get_string(v);
}

/* metav1.Time / MicroTime: an empty message for the zero time, otherwise
 * {seconds, nanos} with nanos 0 for Time (time_proto.go leaves them out of
 * the conversion) and whole microseconds for MicroTime. */
static int put_time(nl_buf *b, unsigned num, json_object *v, int micro)
{
	int64_t usec = 0;
	size_t mark;
	const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
	int rc = open_sub(b, num, &mark);
	if (rc || !s || nl_time_parse(&usec, s) != 0)
		return rc ? rc : close_sub(b, mark);
	int64_t sec = usec / 1000000, frac = usec % 1000000;
	if (frac < 0) {
		sec--;
		frac += 1000000;
	}
	if (sec != GO_ZERO_TIME_SEC || frac != 0) {
		rc = put_tag(b, 1, WT_VARINT);
		if (!rc)
			rc = put_varint(b, (uint64_t)sec);
		if (!rc)
			rc = put_tag(b, 2, WT_VARINT);
		if (!rc)
			rc = put_varint(b, micro ? (uint64_t)(frac * 1000) : 0);
	}
	return rc ? rc : close_sub(b, mark);
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A map as repeated {key = 1, value = 2} entries, sorted by key (gogo
 * sorts them so the output is deterministic). */
static int put_map(nl_buf *b, unsigned num, nl_field_type t, json_object *m)
{
	if (!json_object_is_type(m, json_type_object) || json_object_object_length(m) == 0)
		return 0;
	size_t n = (size_t)json_object_object_length(m), i = 0;
	const char **keys = malloc(n * sizeof(*keys));
	int rc = 0;
	if (!keys)
		return NL_ENOMEM;
	json_object_object_foreach(m, k, unused)
	{
		(void)unused;
		keys[i++] = k;
	}
	qsort(keys, n, sizeof(*keys), cmp_key);
	for (i = 0; i < n && !rc; i++) {
		json_object *v = json_object_object_get(m, keys[i]);
		size_t mark, vlen;
		const char *vs = str_or_empty(v, &vlen);
		rc = open_sub(b, num, &mark);
		if (!rc)
			rc = put_bytes(b, 1, keys[i], strlen(keys[i]));
		if (!rc && t == NL_FT_MAP_STRING) {
			rc = put_bytes(b, 2, vs, vlen);
		} else if (!rc && t == NL_FT_MAP_BYTES) {
			/* the JSON form holds base64; a null value is a nil slice */
			if (v) {
				size_t dlen = 0;
				unsigned char *raw = NULL;
				rc = nl_base64_decode(&raw, &dlen, vs, vlen, NULL);
				if (!rc)
					rc = put_bytes(b, 2, raw, dlen);
				free(raw);
			}
		} else if (!rc && t == NL_FT_MAP_STRINGS) { /* ExtraValue {repeated items = 1} */
			size_t emark;
			rc = open_sub(b, 2, &emark);
			for (size_t j = 0; !rc && json_object_is_type(v, json_type_array) &&
			                   j < json_object_array_length(v);
			     j++) {
				size_t elen;
				const char *es =
				    str_or_empty(json_object_array_get_idx(v, j), &elen);
				rc = put_bytes(b, 1, es, elen);
			}
			if (!rc)
				rc = close_sub(b, emark);
		} else if (!rc) { /* resource.Quantity {string = 1} */
			size_t qmark;
			rc = open_sub(b, 2, &qmark);
			if (!rc)
				rc = put_bytes(b, 1, vs, vlen);
			if (!rc)
				rc = close_sub(b, qmark);
		}
		if (!rc)
			rc = close_sub(b, mark);
	}
	free(keys);
	return rc;
}

static int put_message(nl_buf *b, unsigned num, json_object *obj, const nl_schema *s)
{
	size_t mark;
	int rc = open_sub(b, num, &mark);
	if (!rc)
		rc = nl_pb_encode_message(b, obj, s);
	return rc ? rc : close_sub(b, mark);
}

/* FieldsV1 / RawExtension: {raw = 1} holding the JSON text. */
static int put_raw(nl_buf *b, unsigned num, json_object *v)
{
	size_t mark, len = 0;
	int rc = open_sub(b, num, &mark);
	const char *text = v ? json_object_to_json_string_length(
	                           v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len)
	                     : NULL;
	if (!rc && text)
		rc = put_bytes(b, 1, text, len);
	return rc ? rc : close_sub(b, mark);
}

/* A []byte, held in JSON as base64 (the decoder made it canonical). */
static int put_base64(nl_buf *b, unsigned num, json_object *v)
{
	size_t len, dlen = 0;
	const char *s = str_or_empty(v, &len);
	unsigned char *raw = NULL;
	int rc = nl_base64_decode(&raw, &dlen, s, len, NULL);
	if (!rc)
		rc = put_bytes(b, num, raw, dlen);
	free(raw);
	return rc;
}

static int put_array(nl_buf *b, const nl_field *f, json_object *a)
{
	int rc = 0;
	if (!json_object_is_type(a, json_type_array))
		return 0;
	for (size_t i = 0; i < json_object_array_length(a) && !rc; i++) {
		json_object *e = json_object_array_get_idx(a, i);
		if (f->elem == NL_FT_OBJECT) {
			rc = put_message(b, f->pb, e, f->sub);
		} else {
			size_t len;
			const char *s = str_or_empty(e, &len);
			rc = put_bytes(b, f->pb, s, len);
		}
	}
	return rc;
}

static int put_field(nl_buf *b, const nl_field *f, json_object *v)
{
	size_t len;
	const char *s;
	/* A pointer is written only when set; so is a slice, a map and a
	 * FieldsV1 / RawExtension pointer. */
	if (!v && (f->flags & NL_F_PTR))
		return 0;
	switch (f->type) {
	case NL_FT_STRING:
		s = str_or_empty(v, &len);
		return put_bytes(b, f->pb, s, len);
	case NL_FT_BOOL: {
		int rc = put_tag(b, f->pb, WT_VARINT);
		return rc ? rc : put_varint(b, v && json_object_get_boolean(v) ? 1 : 0);
	}
	case NL_FT_INT32:
	case NL_FT_INT64: {
		int64_t n = v ? json_object_get_int64(v) : 0;
		if (f->type == NL_FT_INT32)
			n = (int32_t)n; /* negative int32s are sign-extended to 10 bytes */
		int rc = put_tag(b, f->pb, WT_VARINT);
		return rc ? rc : put_varint(b, (uint64_t)n);
	}
	case NL_FT_TIME:
	case NL_FT_MICROTIME:
		return put_time(b, f->pb, v, f->type == NL_FT_MICROTIME);
	case NL_FT_MAP_STRING:
	case NL_FT_MAP_BYTES:
	case NL_FT_MAP_QUANTITY:
	case NL_FT_MAP_STRINGS:
		return put_map(b, f->pb, f->type, v);
	case NL_FT_OBJECT:
		return put_message(b, f->pb, v, f->sub);
	case NL_FT_ARRAY:
		return put_array(b, f, v);
	case NL_FT_RAW:
		return v ? put_raw(b, f->pb, v) : 0;
	case NL_FT_BYTES:
		return v ? put_base64(b, f->pb, v) : 0; /* a nil slice is not written */
	}
	return 0;
}

int nl_pb_encode_message(nl_buf *out, json_object *obj, const nl_schema *s)
{
	unsigned char order[MAX_FIELDS];
	size_t n = 0;
	if (s->nfields > MAX_FIELDS)
		return NL_EINVAL;
	/* gogo writes fields by number; the tables are in Go struct order. */
	for (size_t i = 0; i < s->nfields; i++) {
		if (!s->fields[i].pb)
			continue;
		size_t j = n++;
		while (j > 0 && s->fields[order[j - 1]].pb > s->fields[i].pb) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = (unsigned char)i;
	}
	for (size_t i = 0; i < n; i++) {
		const nl_field *f = &s->fields[order[i]];
		int rc = put_field(out, f, child(obj, f->name));
		if (rc)
			return rc;
	}
	return 0;
}

/* runtime.Unknown: typeMeta, raw, and the always-written empty
 * contentEncoding and contentType. */
static int put_envelope(nl_buf *out, const char *api_version, const char *kind, json_object *obj,
                        const nl_schema *s)
{
	size_t mark, raw;
	int rc = nl_buf_add(out, NL_PB_MAGIC, NL_PB_MAGIC_LEN);
	if (!rc)
		rc = open_sub(out, 1, &mark);
	if (!rc)
		rc = put_bytes(out, 1, api_version, strlen(api_version));
	if (!rc)
		rc = put_bytes(out, 2, kind, strlen(kind));
	if (!rc)
		rc = close_sub(out, mark);
	if (!rc)
		rc = open_sub(out, 2, &raw);
	if (!rc)
		rc = nl_pb_encode_message(out, obj, s);
	if (!rc)
		rc = close_sub(out, raw);
	if (!rc)
		rc = put_bytes(out, 3, "", 0);
	if (!rc)
		rc = put_bytes(out, 4, "", 0);
	return rc;
}

int nl_pb_encode_object(nl_buf *out, json_object *obj)
{
	size_t alen, klen;
	const char *apiv = str_or_empty(child(obj, "apiVersion"), &alen);
	const char *kind = str_or_empty(child(obj, "kind"), &klen);
	const nl_schema *s = nl_schema_for_kind(apiv, kind);
	if (!s)
		return NL_EUNSUPPORTED;
	size_t before = out->len;
	int rc = put_envelope(out, apiv, kind, obj, s);
	if (rc) {
		out->len = before; /* leave out as it was */
		if (out->data)
			out->data[before] = '\0';
	}
	return rc;
}

int nl_pb_encode_watch_event(nl_buf *out, const char *type, const void *obj_pb, size_t obj_len)
{
	size_t start = out->len, mark;
	int rc = nl_buf_add(out, "\0\0\0\0", 4);
	if (!rc)
		rc = put_bytes(out, 1, type, strlen(type));
	if (!rc)
		rc = open_sub(out, 2, &mark);
	if (!rc)
		rc = put_bytes(out, 1, obj_pb, obj_len);
	if (!rc)
		rc = close_sub(out, mark);
	if (rc) {
		out->len = start;
		if (out->data)
			out->data[start] = '\0';
		return rc;
	}
	size_t n = out->len - start - 4;
	unsigned char *p = (unsigned char *)out->data + start;
	p[0] = (unsigned char)(n >> 24);
	p[1] = (unsigned char)(n >> 16);
	p[2] = (unsigned char)(n >> 8);
	p[3] = (unsigned char)n;
	return 0;
}
