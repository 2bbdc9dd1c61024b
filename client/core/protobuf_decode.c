/* Decoding Kubernetes protobuf into JSON trees (nodelet/protobuf.h), with
 * the checks and error texts of gogo's generated Unmarshal and of
 * apimachinery's protobuf serializer. The tree is the one Go's JSON encoder
 * would write for the decoded struct. */
#include <nodelet/base64.h>
#include <nodelet/json_text.h>
#include <nodelet/protobuf.h>
#include <nodelet/time.h>

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 48 /* PodSpec has 39 */

enum { WT_VARINT = 0, WT_I64 = 1, WT_BYTES = 2, WT_SGROUP = 3, WT_EGROUP = 4, WT_I32 = 5 };

#define GO_ZERO_TIME_SEC INT64_C(-62135596800)

/* Go's generated errors (ErrInvalidLengthGenerated, ErrIntOverflowGenerated,
 * io.ErrUnexpectedEOF). */
#define ERR_EOF "unexpected EOF"
#define ERR_LENGTH "proto: negative length found during unmarshaling"
#define ERR_OVERFLOW "proto: integer overflow"

/* A tiny input grows into a large tree through repeated empty structs (a
 * 2-byte empty NodeCondition is a json-c object and two strings, ~700
 * bytes). The decoder charges each value it makes an estimate of its
 * memory and stops when the total passes this budget: 64 bytes per input
 * byte plus 1 MiB, several times what any real object needs. */
#define BUDGET_PER_BYTE 64
#define BUDGET_BASE (1024u * 1024)
#define COST_OBJECT 512
#define COST_VALUE 64

typedef struct {
	nl_err *err;
	size_t budget; /* estimated bytes of JSON values still allowed */
	int oom;
} dctx;

typedef struct {
	const unsigned char *p, *end;
} reader;

/* A reader over n bytes at p; p may be NULL when n is 0 (an empty field
 * has no bytes to point at, and NULL + 0 is undefined in C). */
static reader reader_over(const void *p, size_t n)
{
	const unsigned char *b = p ? p : (const unsigned char *)"";
	reader r = {b, b + n};
	return r;
}

static int fail(dctx *c, const char *msg)
{
	if (c->err && !c->err->code)
		nl_err_set(c->err, NL_EPARSE, "%s", msg);
	return NL_EPARSE;
}

static int read_varint(dctx *c, reader *r, uint64_t *out)
{
	uint64_t v = 0;
	for (unsigned shift = 0;; shift += 7) {
		if (shift >= 64)
			return fail(c, ERR_OVERFLOW);
		if (r->p >= r->end)
			return fail(c, ERR_EOF);
		unsigned char b = *r->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (b < 0x80)
			break;
	}
	*out = v;
	return 0;
}

/* A length-delimited field's content. */
static int read_bytes(dctx *c, reader *r, const unsigned char **p, size_t *n)
{
	uint64_t len;
	int rc = read_varint(c, r, &len);
	if (rc)
		return rc;
	if ((int64_t)len < 0)
		return fail(c, ERR_LENGTH);
	if (len > (uint64_t)(r->end - r->p))
		return fail(c, ERR_EOF);
	*p = r->p;
	*n = (size_t)len;
	r->p += len;
	return 0;
}

/* skipGenerated: step over a field this schema does not know. */
static int skip_field(dctx *c, reader *r, unsigned wt, int depth)
{
	uint64_t v;
	const unsigned char *p;
	size_t n;
	switch (wt) {
	case WT_VARINT:
		return read_varint(c, r, &v);
	case WT_I64:
	case WT_I32: {
		size_t k = wt == WT_I64 ? 8 : 4;
		if ((size_t)(r->end - r->p) < k)
			return fail(c, ERR_EOF);
		r->p += k;
		return 0;
	}
	case WT_BYTES:
		return read_bytes(c, r, &p, &n);
	case WT_SGROUP:
		/* a group: skip fields up to its end marker */
		if (depth > 64)
			return fail(c, ERR_LENGTH);
		for (;;) {
			uint64_t tag;
			int rc = read_varint(c, r, &tag);
			if (rc)
				return rc;
			if ((tag & 7) == WT_EGROUP)
				return 0;
			rc = skip_field(c, r, (unsigned)(tag & 7), depth + 1);
			if (rc)
				return rc;
		}
	case WT_EGROUP:
		return fail(c, "proto: unexpected end of group");
	default:
		if (c->err && !c->err->code)
			nl_err_set(c->err, NL_EPARSE, "proto: illegal wireType %u", wt);
		return NL_EPARSE;
	}
}

static json_object *count(dctx *c, json_object *v)
{
	if (!v) {
		c->oom = 1;
		return NULL;
	}
	size_t cost = json_object_is_type(v, json_type_object) ? COST_OBJECT : COST_VALUE;
	if (json_object_is_type(v, json_type_string))
		cost += (size_t)json_object_get_string_len(v);
	if (c->budget < cost) {
		json_object_put(v);
		return NULL;
	}
	c->budget -= cost;
	return v;
}

static int over_budget(dctx *c)
{
	return fail(c, "proto: message expands beyond the decoder's limit");
}

/* Slices and maps: absent means nil, which Go writes as null unless the
 * field is omitempty. */
static int is_collection(nl_field_type t)
{
	return t == NL_FT_ARRAY || t == NL_FT_MAP_STRING || t == NL_FT_MAP_BYTES ||
	       t == NL_FT_MAP_QUANTITY || t == NL_FT_MAP_STRINGS;
}

static unsigned wire_type_of(nl_field_type t)
{
	switch (t) {
	case NL_FT_BOOL:
	case NL_FT_INT32:
	case NL_FT_INT64:
		return WT_VARINT;
	default:
		return WT_BYTES;
	}
}

/* The Go field name gogo puts in "wrong wireType" errors: the proto name
 * with its first letter upper-cased. */
static int wrong_wire_type(dctx *c, unsigned wt, const nl_field *f)
{
	if (c->err && !c->err->code)
		nl_err_set(c->err, NL_EPARSE, "proto: wrong wireType = %u for field %c%s", wt,
		           toupper((unsigned char)f->name[0]), f->name + 1);
	return NL_EPARSE;
}

static int decode_struct(dctx *c, const nl_schema *s, const unsigned char *p, size_t n,
                         json_object **out);

static json_object *new_string(dctx *c, const unsigned char *p, size_t n)
{
	return count(c, json_object_new_string_len((const char *)p, (int)n));
}

/* metav1.Time / MicroTime from {seconds = 1, nanos = 2}. Time keeps whole
 * seconds (time_proto.go drops nanos on decode), MicroTime whole
 * microseconds. The zero time is JSON null, as Go writes it. */
static int decode_time(dctx *c, const unsigned char *p, size_t n, int micro, json_object **out)
{
	reader r = reader_over(p, n);
	int64_t sec = 0, nanos = 0;
	int any = 0;
	while (r.p < r.end) {
		uint64_t tag, v;
		int rc = read_varint(c, &r, &tag);
		if (rc)
			return rc;
		unsigned num = (unsigned)(tag >> 3), wt = (unsigned)(tag & 7);
		if (wt == WT_EGROUP)
			return fail(c, "proto: Timestamp: wiretype end group for non-group");
		if (num == 0)
			return fail(c, "proto: Timestamp: illegal tag 0 (wire type 0)");
		if ((num == 1 || num == 2) && wt != WT_VARINT) {
			if (c->err && !c->err->code)
				nl_err_set(c->err, NL_EPARSE,
				           "proto: wrong wireType = %u for field %s", wt,
				           num == 1 ? "Seconds" : "Nanos");
			return NL_EPARSE;
		}
		if (num == 1 || num == 2) {
			if ((rc = read_varint(c, &r, &v)) != 0)
				return rc;
			if (num == 1)
				sec = (int64_t)v;
			else
				nanos = (int32_t)v;
			any = 1;
		} else if ((rc = skip_field(c, &r, wt, 0)) != 0) {
			return rc;
		}
	}
	if (!micro)
		nanos = 0;
	/* time.Unix normalizes nanos outside [0, 1e9). */
	sec += nanos / 1000000000;
	nanos %= 1000000000;
	if (nanos < 0) {
		nanos += 1000000000;
		sec--;
	}
	*out = NULL;
	if (!any || (sec == GO_ZERO_TIME_SEC && nanos / 1000 == 0))
		return 0; /* null */
	/* Go's MarshalJSON refuses years outside [0, 9999]. */
	if (sec < INT64_C(-62167219200) || sec > INT64_C(253402300799))
		return fail(c, "Time.MarshalJSON: year outside of range [0,9999]");
	char buf[NL_TIME_BUFSZ];
	int64_t usec = sec * 1000000 + nanos / 1000;
	if (micro)
		nl_time_format_micro(buf, usec);
	else
		nl_time_format(buf, usec);
	*out = count(c, json_object_new_string(buf));
	return *out || c->oom ? 0 : over_budget(c);
}

/* One map entry {key = 1, value = 2} into m. */
static int decode_map_entry(dctx *c, const nl_field *f, const unsigned char *p, size_t n,
                            json_object *m)
{
	reader r = reader_over(p, n);
	const unsigned char *k = (const unsigned char *)"", *v = NULL;
	size_t klen = 0, vlen = 0;
	while (r.p < r.end) {
		uint64_t tag;
		int rc = read_varint(c, &r, &tag);
		if (rc)
			return rc;
		unsigned num = (unsigned)(tag >> 3), wt = (unsigned)(tag & 7);
		if ((num == 1 || num == 2) && wt == WT_BYTES)
			rc = read_bytes(c, &r, num == 1 ? &k : &v, num == 1 ? &klen : &vlen);
		else
			rc = skip_field(c, &r, wt, 0);
		if (rc)
			return rc;
	}
	/* gogo's Unmarshal keeps a NUL: validation judges it. */
	char *key = nl_json_key_mark((const char *)k, klen);
	json_object *val = NULL;
	int rc = 0;
	if (!key) {
		c->oom = 1;
		return NL_ENOMEM;
	}
	if (f->type == NL_FT_MAP_STRING) {
		val = new_string(c, v ? v : (const unsigned char *)"", vlen);
	} else if (f->type == NL_FT_MAP_BYTES) {
		char *b64 = NULL;
		if (nl_base64_encode(&b64, v ? v : (const unsigned char *)"", vlen) == 0)
			val = count(c, json_object_new_string(b64));
		else
			c->oom = 1;
		free(b64);
	} else if (f->type == NL_FT_MAP_STRINGS) { /* ExtraValue {repeated items = 1} */
		reader q = {v ? v : (const unsigned char *)"",
		            (v ? v : (const unsigned char *)"") + vlen};
		val = count(c, json_object_new_array());
		while (val && q.p < q.end && !rc) {
			uint64_t tag;
			const unsigned char *es;
			size_t en;
			rc = read_varint(c, &q, &tag);
			if (!rc && (tag >> 3) == 1 && (tag & 7) == WT_BYTES) {
				rc = read_bytes(c, &q, &es, &en);
				json_object *e = rc ? NULL : new_string(c, es, en);
				if (!rc && (!e || json_object_array_add(val, e) != 0)) {
					json_object_put(e);
					rc = c->oom ? NL_ENOMEM : over_budget(c);
				}
			} else if (!rc) {
				rc = skip_field(c, &q, (unsigned)(tag & 7), 0);
			}
		}
		if (rc) {
			json_object_put(val);
			val = NULL;
		}
	} else { /* Quantity {string = 1} */
		reader q = {v ? v : (const unsigned char *)"",
		            (v ? v : (const unsigned char *)"") + vlen};
		const unsigned char *qs = (const unsigned char *)"";
		size_t qn = 0;
		while (q.p < q.end && !rc) {
			uint64_t tag;
			rc = read_varint(c, &q, &tag);
			if (!rc && (tag >> 3) == 1 && (tag & 7) == WT_BYTES)
				rc = read_bytes(c, &q, &qs, &qn);
			else if (!rc)
				rc = skip_field(c, &q, (unsigned)(tag & 7), 0);
		}
		if (!rc)
			val = new_string(c, qs, qn);
	}
	if (!rc && !val)
		rc = c->oom ? NL_ENOMEM : over_budget(c);
	if (!rc && json_object_object_add(m, key, val) != 0) {
		json_object_put(val);
		c->oom = 1;
		rc = NL_ENOMEM;
	}
	free(key);
	return rc;
}

/* FieldsV1 / RawExtension {raw = 1}: the JSON text held in raw. */
static int decode_raw(dctx *c, const unsigned char *p, size_t n, json_object **out)
{
	reader r = reader_over(p, n);
	const unsigned char *raw = NULL;
	size_t rn = 0;
	while (r.p < r.end) {
		uint64_t tag;
		int rc = read_varint(c, &r, &tag);
		if (!rc && (tag >> 3) == 1 && (tag & 7) == WT_BYTES)
			rc = read_bytes(c, &r, &raw, &rn);
		else if (!rc)
			rc = skip_field(c, &r, (unsigned)(tag & 7), 0);
		if (rc)
			return rc;
	}
	*out = NULL;
	if (!raw)
		return 0;
	json_tokener *tok = json_tokener_new();
	if (!tok) {
		c->oom = 1;
		return NL_ENOMEM;
	}
	json_object *v = json_tokener_parse_ex(tok, (const char *)raw, (int)rn);
	int ok = v && json_tokener_get_error(tok) == json_tokener_success &&
	         json_tokener_get_parse_end(tok) == rn;
	json_tokener_free(tok);
	if (!ok) {
		json_object_put(v);
		return fail(c, "proto: FieldsV1: raw is not JSON");
	}
	/* json-c makes at most one value per byte of text or so */
	size_t cost = COST_VALUE * rn;
	if (c->budget < cost) {
		json_object_put(v);
		return over_budget(c);
	}
	c->budget -= cost;
	*out = v;
	return 0;
}

/* A field's accumulated wire value while its struct is read. */
typedef struct {
	int present;
	uint64_t scalar;
	const unsigned char *p; /* the last occurrence of a bytes field */
	size_t n;
	nl_buf merged;    /* a struct that came in pieces: the concatenation */
	json_object *acc; /* repeated fields and maps: the value so far */
} slot;

static int add_piece(dctx *c, slot *sl, const unsigned char *p, size_t n)
{
	/* A message field seen twice is merged, as Unmarshal into the same
	 * struct merges: the same as reading the concatenation. */
	if (sl->present && !sl->merged.data && nl_buf_add(&sl->merged, sl->p, sl->n) != 0)
		goto oom;
	if (sl->merged.data && nl_buf_add(&sl->merged, p, n) != 0)
		goto oom;
	sl->p = p;
	sl->n = n;
	sl->present = 1;
	return 0;
oom:
	c->oom = 1;
	return NL_ENOMEM;
}

static int read_repeated(dctx *c, const nl_field *f, slot *sl, const unsigned char *p, size_t n)
{
	json_object *e = NULL;
	int rc = 0;
	if (!sl->acc) {
		int map = f->type != NL_FT_ARRAY;
		sl->acc = count(c, map ? json_object_new_object() : json_object_new_array());
		if (!sl->acc)
			return c->oom ? NL_ENOMEM : over_budget(c);
	}
	sl->present = 1;
	if (f->type != NL_FT_ARRAY)
		return decode_map_entry(c, f, p, n, sl->acc);
	if (f->elem == NL_FT_OBJECT)
		rc = decode_struct(c, f->sub, p, n, &e);
	else if (!(e = new_string(c, p, n)))
		rc = c->oom ? NL_ENOMEM : over_budget(c);
	if (!rc && json_object_array_add(sl->acc, e) != 0) {
		json_object_put(e);
		c->oom = 1;
		rc = NL_ENOMEM;
	}
	return rc;
}

static int read_field(dctx *c, const nl_field *f, slot *sl, reader *r, unsigned wt)
{
	const unsigned char *p;
	size_t n;
	int rc;
	if (wt != wire_type_of(f->type))
		return wrong_wire_type(c, wt, f);
	if (wt == WT_VARINT) {
		rc = read_varint(c, r, &sl->scalar);
		sl->present = 1;
		return rc;
	}
	if ((rc = read_bytes(c, r, &p, &n)) != 0)
		return rc;
	switch (f->type) {
	case NL_FT_ARRAY:
	case NL_FT_MAP_STRING:
	case NL_FT_MAP_BYTES:
	case NL_FT_MAP_QUANTITY:
	case NL_FT_MAP_STRINGS:
		return read_repeated(c, f, sl, p, n);
	case NL_FT_OBJECT:
	case NL_FT_TIME:
	case NL_FT_MICROTIME:
	case NL_FT_RAW:
		return add_piece(c, sl, p, n);
	default: /* strings: the last one wins */
		sl->p = p;
		sl->n = n;
		sl->present = 1;
		return 0;
	}
}

/* The JSON value of a field from its slot; *v NULL means "not written". */
static int slot_value(dctx *c, const nl_field *f, slot *sl, json_object **v)
{
	const unsigned char *p = sl->merged.data ? (const unsigned char *)sl->merged.data : sl->p;
	size_t n = sl->merged.data ? sl->merged.len : sl->n;
	int oe = (f->flags & NL_F_OMITEMPTY) && !(f->flags & NL_F_PTR);
	*v = NULL;
	if (!sl->present) {
		if ((f->flags & NL_F_PTR) || f->type == NL_FT_RAW || f->type == NL_FT_TIME ||
		    f->type == NL_FT_MICROTIME)
			return 0; /* (a zero Time is null: written by the caller) */
		if (f->type == NL_FT_OBJECT)
			return decode_struct(c, f->sub, NULL, 0, v);
		if (oe || is_collection(f->type))
			return 0; /* a nil slice or map without omitempty is null: caller */
	}
	switch (f->type) {
	case NL_FT_STRING:
		if (oe && sl->n == 0)
			return 0;
		*v = new_string(c, sl->present ? sl->p : (const unsigned char *)"", sl->n);
		break;
	case NL_FT_BOOL:
		if (oe && !sl->scalar)
			return 0;
		*v = count(c, json_object_new_boolean(sl->scalar != 0));
		break;
	case NL_FT_INT32:
	case NL_FT_INT64: {
		int64_t x = f->type == NL_FT_INT32 ? (int32_t)sl->scalar : (int64_t)sl->scalar;
		if (oe && x == 0)
			return 0;
		*v = count(c, json_object_new_int64(x));
		break;
	}
	case NL_FT_TIME:
	case NL_FT_MICROTIME:
		return decode_time(c, p, n, f->type == NL_FT_MICROTIME, v);
	case NL_FT_OBJECT:
		return decode_struct(c, f->sub, p, n, v);
	case NL_FT_RAW:
		return decode_raw(c, p, n, v);
	case NL_FT_BYTES: {
		char *b64 = NULL;
		if (!sl->present || (oe && sl->n == 0))
			return 0; /* nil: null, written by the caller */
		if (nl_base64_encode(&b64, sl->p, sl->n) != 0) {
			c->oom = 1;
			return NL_ENOMEM;
		}
		*v = count(c, json_object_new_string(b64));
		free(b64);
		break;
	}
	default: /* arrays and maps: what was read */
		*v = sl->acc;
		sl->acc = NULL;
		if (oe && *v &&
		    (json_object_is_type(*v, json_type_array)
		         ? json_object_array_length(*v)
		         : (size_t)json_object_object_length(*v)) == 0) {
			json_object_put(*v);
			*v = NULL;
		}
		return 0;
	}
	return *v || c->oom ? (c->oom ? NL_ENOMEM : 0) : over_budget(c);
}

/* Whether Go writes the field as null when it has no value: a zero Time,
 * a nil slice or map without omitempty. */
static int writes_null(const nl_field *f, const slot *sl)
{
	if (f->flags & NL_F_TYPEMETA)
		return 0;
	if (f->type == NL_FT_TIME || f->type == NL_FT_MICROTIME)
		return !(f->flags & NL_F_PTR) || sl->present; /* a set *Time that is zero: null */
	if (f->flags & (NL_F_PTR | NL_F_OMITEMPTY))
		return 0;
	return !sl->present && (is_collection(f->type) || f->type == NL_FT_BYTES);
}

static const nl_field *field_by_number(const nl_schema *s, uint64_t num)
{
	for (size_t i = 0; i < s->nfields; i++)
		if (s->fields[i].pb && s->fields[i].pb == num)
			return &s->fields[i];
	return NULL;
}

static int decode_struct(dctx *c, const nl_schema *s, const unsigned char *p, size_t n,
                         json_object **out)
{
	slot slots[MAX_FIELDS];
	reader r = reader_over(p, n);
	json_object *res = NULL;
	int rc = 0;

	if (s->nfields > MAX_FIELDS)
		return fail(c, "proto: schema has too many fields");
	memset(slots, 0, sizeof(slots));
	for (size_t i = 0; i < s->nfields; i++)
		nl_buf_init(&slots[i].merged, 0);
	while (r.p < r.end && !rc) {
		uint64_t tag;
		if ((rc = read_varint(c, &r, &tag)) != 0)
			break;
		unsigned wt = (unsigned)(tag & 7);
		uint64_t num = tag >> 3;
		if (wt == WT_EGROUP) {
			if (c->err && !c->err->code)
				nl_err_set(c->err, NL_EPARSE,
				           "proto: %s: wiretype end group for non-group",
				           s->go_name);
			rc = NL_EPARSE;
		} else if ((int32_t)num <= 0) {
			if (c->err && !c->err->code)
				nl_err_set(c->err, NL_EPARSE,
				           "proto: %s: illegal tag %d (wire type %llu)", s->go_name,
				           (int)(int32_t)num, (unsigned long long)tag);
			rc = NL_EPARSE;
		} else {
			const nl_field *f = field_by_number(s, num);
			rc = f ? read_field(c, f, &slots[f - s->fields], &r, wt)
			       : skip_field(c, &r, wt, 0);
		}
	}
	if (!rc) {
		res = count(c, json_object_new_object());
		if (!res)
			rc = c->oom ? NL_ENOMEM : over_budget(c);
	}
	for (size_t i = 0; i < s->nfields && !rc; i++) {
		const nl_field *f = &s->fields[i];
		json_object *v = NULL;
		if (f->flags & NL_F_TYPEMETA)
			continue;
		rc = slot_value(c, f, &slots[i], &v);
		if (rc)
			break;
		if (v || writes_null(f, &slots[i])) {
			if (json_object_object_add(res, f->name, v) != 0) {
				json_object_put(v);
				c->oom = 1;
				rc = NL_ENOMEM;
			}
		}
	}
	for (size_t i = 0; i < s->nfields; i++) {
		nl_buf_free(&slots[i].merged);
		json_object_put(slots[i].acc);
	}
	if (rc) {
		json_object_put(res);
		if (c->oom && c->err && !c->err->code)
			nl_err_set(c->err, NL_ENOMEM, "out of memory");
		return c->oom ? NL_ENOMEM : rc;
	}
	*out = res;
	return 0;
}

int nl_pb_decode_message(json_object **out, const void *data, size_t len, const nl_schema *s,
                         nl_err *err)
{
	dctx c = {err, BUDGET_BASE + BUDGET_PER_BYTE * len, 0};
	json_object *res = NULL;
	if (err)
		err->code = 0;
	int rc = decode_struct(&c, s, data, len, &res);
	if (rc)
		return rc;
	*out = res;
	return 0;
}

/* ---------------------------------------------------------------- envelope */

static void copy_cut(char *dst, size_t size, const unsigned char *p, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, p, n);
	dst[n] = '\0';
}

/* runtime.Unknown: typeMeta = 1 {apiVersion = 1, kind = 2}, raw = 2;
 * contentEncoding = 3 and contentType = 4 are read and not used. */
static int decode_unknown(dctx *c, nl_pb_type *t, const unsigned char **raw, size_t *rawn,
                          const unsigned char *p, size_t n)
{
	reader r = reader_over(p, n);
	*raw = NULL;
	*rawn = 0;
	while (r.p < r.end) {
		uint64_t tag;
		const unsigned char *q;
		size_t qn;
		int rc = read_varint(c, &r, &tag);
		if (rc)
			return rc;
		unsigned num = (unsigned)(tag >> 3), wt = (unsigned)(tag & 7);
		if (wt == WT_EGROUP)
			return fail(c, "proto: Unknown: wiretype end group for non-group");
		if ((int32_t)(tag >> 3) <= 0) {
			if (c->err && !c->err->code)
				nl_err_set(c->err, NL_EPARSE,
				           "proto: Unknown: illegal tag %d (wire type %llu)",
				           (int)(int32_t)(tag >> 3), (unsigned long long)tag);
			return NL_EPARSE;
		}
		if (num >= 1 && num <= 4 && wt != WT_BYTES) {
			static const char *const names[] = {"", "TypeMeta", "Raw",
			                                    "ContentEncoding", "ContentType"};
			if (c->err && !c->err->code)
				nl_err_set(c->err, NL_EPARSE,
				           "proto: wrong wireType = %u for field %s", wt,
				           names[num]);
			return NL_EPARSE;
		}
		if (num < 1 || num > 4) {
			if ((rc = skip_field(c, &r, wt, 0)) != 0)
				return rc;
			continue;
		}
		if ((rc = read_bytes(c, &r, &q, &qn)) != 0)
			return rc;
		if (num == 2) {
			*raw = q;
			*rawn = qn;
		} else if (num == 1) {
			reader m = {q, q + qn};
			while (m.p < m.end) {
				const unsigned char *s;
				size_t sn;
				if ((rc = read_varint(c, &m, &tag)) != 0)
					return rc;
				if (((tag >> 3) == 1 || (tag >> 3) == 2) && (tag & 7) == WT_BYTES) {
					if ((rc = read_bytes(c, &m, &s, &sn)) != 0)
						return rc;
					if ((tag >> 3) == 1)
						copy_cut(t->api_version, sizeof(t->api_version), s,
						         sn);
					else
						copy_cut(t->kind, sizeof(t->kind), s, sn);
				} else if ((rc = skip_field(c, &m, (unsigned)(tag & 7), 0)) != 0) {
					return rc;
				}
			}
		}
	}
	return 0;
}

static int prepend_type(json_object **obj, const nl_pb_type *t)
{
	json_object *res = json_object_new_object();
	if (!res)
		return NL_ENOMEM;
	if (json_object_object_add(res, "kind", json_object_new_string(t->kind)) != 0 ||
	    json_object_object_add(res, "apiVersion", json_object_new_string(t->api_version)) !=
	        0) {
		json_object_put(res);
		return NL_ENOMEM;
	}
	json_object_object_foreach(*obj, k, v)
	{
		if (json_object_object_add(res, k, json_object_get(v)) != 0) {
			json_object_put(v);
			json_object_put(res);
			return NL_ENOMEM;
		}
	}
	json_object_put(*obj);
	*obj = res;
	return 0;
}

int nl_pb_decode_object(json_object **out, nl_pb_type *type, const void *data, size_t len,
                        nl_err *err)
{
	return nl_pb_decode_object_as(out, type, data, len, NULL, err);
}

/* gvkWithDefaults for what an envelope can leave out: an empty kind or
 * apiVersion is the expected one's. */
static void type_defaults(nl_pb_type *t, const nl_pb_type *defaults)
{
	if (!defaults)
		return;
	if (!t->kind[0])
		memcpy(t->kind, defaults->kind, sizeof(t->kind));
	if (!t->api_version[0])
		memcpy(t->api_version, defaults->api_version, sizeof(t->api_version));
}

int nl_pb_decode_object_as(json_object **out, nl_pb_type *type, const void *data, size_t len,
                           const nl_pb_type *defaults, nl_err *err)
{
	dctx c = {err, BUDGET_BASE + BUDGET_PER_BYTE * len, 0};
	nl_pb_type t;
	const unsigned char *raw;
	size_t rawn;
	json_object *obj = NULL;
	memset(&t, 0, sizeof(t));
	if (err)
		err->code = 0;
	if (len == 0)
		return nl_err_set(err, NL_EPARSE, "empty data");
	if (len < NL_PB_MAGIC_LEN || memcmp(data, NL_PB_MAGIC, NL_PB_MAGIC_LEN) != 0)
		return nl_err_set(
		    err, NL_EPARSE,
		    "provided data does not appear to be a protobuf message, expected "
		    "prefix [107 56 115 0]");
	if (len == NL_PB_MAGIC_LEN)
		return nl_err_set(err, NL_EPARSE, "empty body");
	int rc = decode_unknown(&c, &t, &raw, &rawn, (const unsigned char *)data + NL_PB_MAGIC_LEN,
	                        len - NL_PB_MAGIC_LEN);
	if (rc)
		return rc;
	type_defaults(&t, defaults);
	if (type)
		*type = t;
	const nl_schema *s = nl_schema_for_kind(t.api_version, t.kind);
	if (!s)
		return nl_err_set(err, NL_EUNSUPPORTED,
		                  "no kind \"%s\" is registered for version \"%s\"", t.kind,
		                  t.api_version);
	rc = decode_struct(&c, s, raw ? raw : (const unsigned char *)"", rawn, &obj);
	if (rc)
		return rc;
	if (prepend_type(&obj, &t) != 0) {
		json_object_put(obj);
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	}
	*out = obj;
	return 0;
}

int nl_pb_decode_watch_event(char *type, size_t size, json_object **obj, const void *data,
                             size_t len, nl_err *err)
{
	dctx c = {err, 0, 0};
	reader r = reader_over(data, len);
	const unsigned char *tp = (const unsigned char *)"", *op = NULL;
	size_t tn = 0, on = 0;
	if (err)
		err->code = 0;
	while (r.p < r.end) {
		uint64_t tag;
		const unsigned char *q;
		size_t qn;
		int rc = read_varint(&c, &r, &tag);
		if (rc)
			return rc;
		unsigned num = (unsigned)(tag >> 3), wt = (unsigned)(tag & 7);
		if ((num == 1 || num == 2) && wt != WT_BYTES) {
			if (err && !err->code)
				nl_err_set(err, NL_EPARSE,
				           "proto: wrong wireType = %u for field %s", wt,
				           num == 1 ? "Type" : "Object");
			return NL_EPARSE;
		}
		if (num != 1 && num != 2) {
			if ((rc = skip_field(&c, &r, wt, 0)) != 0)
				return rc;
			continue;
		}
		if ((rc = read_bytes(&c, &r, &q, &qn)) != 0)
			return rc;
		if (num == 1) {
			tp = q;
			tn = qn;
			continue;
		}
		/* RawExtension {raw = 1} */
		reader m = {q, q + qn};
		while (m.p < m.end) {
			if ((rc = read_varint(&c, &m, &tag)) != 0)
				return rc;
			if ((tag >> 3) == 1 && (tag & 7) == WT_BYTES)
				rc = read_bytes(&c, &m, &op, &on);
			else
				rc = skip_field(&c, &m, (unsigned)(tag & 7), 0);
			if (rc)
				return rc;
		}
	}
	json_object *o = NULL;
	int rc = nl_pb_decode_object(&o, NULL, op ? op : (const unsigned char *)"", on, err);
	if (rc)
		return rc;
	if (size)
		copy_cut(type, size, tp, tn);
	*obj = o;
	return 0;
}
