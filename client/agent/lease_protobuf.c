/* The lease controller's renewal on the cached lease as protobuf bytes: the
 * counterpart of the JSON text splice (lease_controller.c), for a client
 * that talks application/vnd.kubernetes.protobuf. A renewal changes two
 * fields of LeaseSpec; the bytes around them stay as the server sent them,
 * and only the lengths of the enclosing messages (LeaseSpec in Lease, Lease
 * in runtime.Unknown) are written anew. No json-c tree, no schema walk.
 *
 * The result equals nl_pb_encode_object of the renewed Lease because the
 * cached bytes are that encoder's (or gogo's, which it matches) form: fields
 * in number order, each once. Bytes that are not — a field of interest
 * twice, a malformed message, no ownerReference, no renewTime — are left to
 * the tree path (NL_ENOTFOUND), as the JSON splice leaves unusual text. */
#include "lease_internal.h"

#include <nodelet/protobuf.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { WT_VARINT = 0, WT_I64 = 1, WT_BYTES = 2, WT_I32 = 5 };

/* runtime.Unknown.raw, Lease.metadata, Lease.spec, ObjectMeta.resourceVersion,
 * ObjectMeta.ownerReferences, LeaseSpec.leaseDurationSeconds and renewTime
 * (generated.proto of apimachinery runtime, meta/v1 and coordination/v1). */
#define PB_UNKNOWN_RAW 2
#define PB_LEASE_METADATA 1
#define PB_LEASE_SPEC 2
#define PB_META_RESOURCE_VERSION 6
#define PB_META_OWNER_REFERENCES 13
#define PB_SPEC_DURATION 2
#define PB_SPEC_RENEW_TIME 4

typedef struct {
	const unsigned char *p, *end;
} reader;

/* One field: the whole of it (tag included) and its value (for WT_BYTES
 * the payload, for a varint its bytes). */
typedef struct {
	unsigned num, wt;
	const unsigned char *start, *val, *end;
	uint64_t v; /* varint value, or WT_BYTES length */
} field;

static int read_varint(reader *r, uint64_t *out)
{
	uint64_t v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end)
			return -1;
		unsigned char b = *r->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (b < 0x80) {
			*out = v;
			return 0;
		}
	}
	return -1;
}

/* The next field of r into f: 1, 0 at the end, -1 when malformed (groups
 * included: nothing nodelet reads uses them). */
static int next_field(reader *r, field *f)
{
	uint64_t tag, n;
	if (r->p >= r->end)
		return 0;
	f->start = r->p;
	if (read_varint(r, &tag) != 0 || (tag >> 3) == 0 || (tag >> 3) > UINT32_MAX)
		return -1;
	f->num = (unsigned)(tag >> 3);
	f->wt = (unsigned)(tag & 7);
	f->val = r->p;
	switch (f->wt) {
	case WT_VARINT:
		if (read_varint(r, &f->v) != 0)
			return -1;
		break;
	case WT_I64:
	case WT_I32:
		n = f->wt == WT_I64 ? 8 : 4;
		if ((uint64_t)(r->end - r->p) < n)
			return -1;
		r->p += n;
		break;
	case WT_BYTES:
		if (read_varint(r, &n) != 0 || n > (uint64_t)(r->end - r->p))
			return -1;
		f->val = r->p;
		f->v = n;
		r->p += n;
		break;
	default:
		return -1;
	}
	f->end = r->p;
	return 1;
}

/* Find the fields nums[0..n) of a message, each at most once (the encoder
 * writes a field once; a repeated field counts when nums lists it with
 * repeated[i]). out[i].start is NULL when absent. -1 when the message is
 * malformed or a single field appears twice. */
static int find_fields(field *out, const unsigned char *p, size_t len, const unsigned *nums,
                       const int *repeated, size_t n)
{
	reader r = {p, p + len};
	field f;
	int rc;
	for (size_t i = 0; i < n; i++)
		out[i].start = NULL;
	while ((rc = next_field(&r, &f)) == 1)
		for (size_t i = 0; i < n; i++) {
			if (f.num != nums[i])
				continue;
			if (out[i].start && !repeated[i])
				return -1;
			if (!out[i].start)
				out[i] = f;
		}
	return rc;
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static unsigned char *put_varint(unsigned char *w, uint64_t v)
{
	while (v >= 0x80) {
		*w++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*w++ = (unsigned char)v;
	return w;
}

static unsigned char *put(unsigned char *w, const unsigned char *from, const unsigned char *to)
{
	size_t n = (size_t)(to - from);
	memcpy(w, from, n);
	return w + n;
}

/* Where the Lease message is in an enveloped object: the Unknown's raw. */
static int lease_message(field *raw, const char *pb, size_t len)
{
	static const unsigned nums[] = {PB_UNKNOWN_RAW};
	static const int rep[] = {0};
	const unsigned char *p = (const unsigned char *)pb;
	if (len < NL_PB_MAGIC_LEN || memcmp(p, NL_PB_MAGIC, NL_PB_MAGIC_LEN) != 0)
		return -1;
	if (find_fields(raw, p + NL_PB_MAGIC_LEN, len - NL_PB_MAGIC_LEN, nums, rep, 1) != 0 ||
	    !raw->start || raw->wt != WT_BYTES)
		return -1;
	return 0;
}

int nl__lease_splice_protobuf(char **out, size_t *out_len, const char *base, size_t len,
                              int32_t duration, int64_t renew_usec)
{
	static const unsigned lease_nums[] = {PB_LEASE_METADATA, PB_LEASE_SPEC};
	static const unsigned meta_nums[] = {PB_META_OWNER_REFERENCES};
	static const unsigned spec_nums[] = {PB_SPEC_DURATION, PB_SPEC_RENEW_TIME};
	static const int no_rep[] = {0, 0}, rep[] = {1};
	const unsigned char *b = (const unsigned char *)base, *end = b + len;
	field raw, l[2], m[1], s[2];

	if (lease_message(&raw, base, len) != 0 ||
	    find_fields(l, raw.val, (size_t)raw.v, lease_nums, no_rep, 2) != 0 || !l[0].start ||
	    !l[1].start || l[0].wt != WT_BYTES || l[1].wt != WT_BYTES ||
	    find_fields(m, l[0].val, (size_t)l[0].v, meta_nums, rep, 1) != 0 || !m[0].start ||
	    find_fields(s, l[1].val, (size_t)l[1].v, spec_nums, no_rep, 2) != 0 || !s[0].start ||
	    !s[1].start || s[0].wt != WT_VARINT || s[1].wt != WT_BYTES)
		return NL_ENOTFOUND;

	/* The new values: leaseDurationSeconds an int32 varint (a negative one
	 * sign-extended to 10 bytes, as gogo writes it); renewTime a MicroTime,
	 * {seconds, nanos} both always written, nanos whole microseconds. */
	unsigned char dur[11], rt[2 + 1 + 10 + 1 + 10], *w;
	size_t dur_len, rt_len;
	w = put_varint(dur, PB_SPEC_DURATION << 3 | WT_VARINT);
	w = put_varint(w, (uint64_t)(int64_t)duration);
	dur_len = (size_t)(w - dur);
	int64_t sec = renew_usec / 1000000, frac = renew_usec % 1000000;
	if (frac < 0) {
		sec--;
		frac += 1000000;
	}
	unsigned char ts[22], *t = ts;
	t = put_varint(t, 1 << 3 | WT_VARINT);
	t = put_varint(t, (uint64_t)sec);
	t = put_varint(t, 2 << 3 | WT_VARINT);
	t = put_varint(t, (uint64_t)(frac * 1000));
	w = put_varint(rt, PB_SPEC_RENEW_TIME << 3 | WT_BYTES);
	w = put_varint(w, (uint64_t)(t - ts));
	w = put(w, ts, t);
	rt_len = (size_t)(w - rt);

	/* New lengths, innermost first. */
	size_t spec_len = (size_t)l[1].v - (size_t)(s[0].end - s[0].start) -
	                  (size_t)(s[1].end - s[1].start) + dur_len + rt_len;
	size_t spec_field = 1 + varint_len(spec_len) + spec_len;
	size_t lease_len = (size_t)raw.v - (size_t)(l[1].end - l[1].start) + spec_field;
	size_t n = (size_t)(raw.start - b) + 1 + varint_len(lease_len) + lease_len +
	           (size_t)(end - raw.end);

	char *body = malloc(n + 1);
	if (!body)
		return NL_ENOMEM;
	w = (unsigned char *)body;
	w = put(w, b, raw.start); /* magic, typeMeta */
	w = put_varint(w, PB_UNKNOWN_RAW << 3 | WT_BYTES);
	w = put_varint(w, lease_len);
	w = put(w, raw.val, l[1].start); /* Lease fields before spec */
	w = put_varint(w, PB_LEASE_SPEC << 3 | WT_BYTES);
	w = put_varint(w, spec_len);
	/* LeaseSpec with the two fields replaced where they were. */
	int a = s[0].start < s[1].start ? 0 : 1, c = 1 - a;
	const unsigned char *val[2] = {dur, rt};
	size_t vlen[2] = {dur_len, rt_len};
	w = put(w, l[1].val, s[a].start);
	w = put(w, val[a], val[a] + vlen[a]);
	w = put(w, s[a].end, s[c].start);
	w = put(w, val[c], val[c] + vlen[c]);
	w = put(w, s[c].end, l[1].end);
	w = put(w, l[1].end, raw.end); /* Lease fields after spec */
	w = put(w, raw.end, end);      /* contentEncoding, contentType */
	*w = '\0';
	*out = body;
	*out_len = (size_t)(w - (unsigned char *)body);
	return 0;
}

void nl__lease_protobuf_resource_version(char *buf, size_t size, const char *pb, size_t len)
{
	static const unsigned meta_num[] = {PB_LEASE_METADATA},
	                      rv_num[] = {PB_META_RESOURCE_VERSION};
	static const int no_rep[] = {0};
	field raw, m, v;
	*buf = '\0';
	if (size == 0 || lease_message(&raw, pb, len) != 0 ||
	    find_fields(&m, raw.val, (size_t)raw.v, meta_num, no_rep, 1) != 0 || !m.start ||
	    m.wt != WT_BYTES || find_fields(&v, m.val, (size_t)m.v, rv_num, no_rep, 1) != 0 ||
	    !v.start || v.wt != WT_BYTES)
		return;
	size_t n = (size_t)v.v < size - 1 ? (size_t)v.v : size - 1;
	memcpy(buf, v.val, n);
	buf[n] = '\0';
}

int nl__lease_protobuf_is_object(const char *pb, size_t len)
{
	field raw;
	return lease_message(&raw, pb, len) == 0;
}
