/* nl_pb: Kubernetes protobuf as gogo's generated code writes it, and the
 * apimachinery serializer's envelope, errors and watch frames. Expected
 * bytes are worked out by hand from generated.proto (docs/protobuf.md), and
 * checked against bodies kubectl 1.32 sent (tests/data/protobuf). */
#include "../cu_main.h"

#include <nodelet/protobuf.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CM_JSON                                                                         \
	"{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"app\"," \
	"\"namespace\":\"default\",\"creationTimestamp\":null},\"data\":{\"a\":\"b\"}}"

/* k8s\0, Unknown{typeMeta{v1, ConfigMap}, raw, "", ""}; the ObjectMeta
 * writes every non-pointer field, empty or not. */
static const unsigned char cm_pb[] = {
    'k', '8', 's', 0, 0x0a, 0x0f, 0x0a, 0x02, 'v', '1', 0x12, 0x09, 'C', 'o', 'n', 'f', 'i', 'g',
    'M', 'a', 'p', 0x12, 0x24,
    /* metadata */
    0x0a, 0x1a, 0x0a, 0x03, 'a', 'p', 'p', 0x12, 0x00, 0x1a, 0x07, 'd', 'e', 'f', 'a', 'u', 'l',
    't', 0x22, 0x00, 0x2a, 0x00, 0x32, 0x00, 0x38, 0x00, 0x42, 0x00,
    /* data {a: b} */
    0x12, 0x06, 0x0a, 0x01, 'a', 0x12, 0x01, 'b', 0x1a, 0x00, 0x22, 0x00};

static void encode(nl_buf *b, const char *json)
{
	json_object *o = nl_test_json(json);
	nl_buf_init(b, 0);
	CU_ASSERT_EQUAL_FATAL(nl_pb_encode_object(b, o), 0);
	json_object_put(o);
}

static json_object *decode(const void *p, size_t n)
{
	json_object *o = NULL;
	nl_err err = {0};
	int rc = nl_pb_decode_object(&o, NULL, p, n, &err);
	if (rc)
		fprintf(stderr, "\n  decode: %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	return o;
}

static void expect_error(const void *p, size_t n, int code, const char *msg)
{
	json_object *o = (json_object *)"untouched";
	nl_err err = {0};
	CU_ASSERT_EQUAL(nl_pb_decode_object(&o, NULL, p, n, &err), code);
	CU_ASSERT_STRING_EQUAL(err.msg, msg);
	CU_ASSERT_STRING_EQUAL((const char *)o, "untouched");
}

static void test_protobuf__encodes_configmap_as_gogo(void)
{
	nl_buf b;
	encode(&b, CM_JSON);
	CU_ASSERT_EQUAL(b.len, sizeof(cm_pb));
	CU_ASSERT_EQUAL(memcmp(b.data, cm_pb, sizeof(cm_pb)), 0);
	nl_buf_free(&b);
}

static void test_protobuf__decodes_to_the_json_go_writes(void)
{
	json_object *o = decode(cm_pb, sizeof(cm_pb));
	CU_ASSERT_STRING_EQUAL(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), CM_JSON);
	json_object_put(o);
}

static void test_protobuf__time_is_seconds_microtime_micros(void)
{
	nl_buf b;
	encode(&b, "{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\",\"metadata\":{"
	           "\"name\":\"n\",\"creationTimestamp\":\"2024-05-01T10:00:00Z\"},\"spec\":{"
	           "\"renewTime\":\"2024-05-01T10:00:00.123456Z\"}}");
	/* creationTimestamp {seconds 1714557600 nanos 0} */
	static const unsigned char ts[] = {0x42, 0x08, 0x08, 0xa0, 0xa5,
	                                   0xc8, 0xb1, 0x06, 0x10, 0x00};
	/* renewTime {seconds, nanos 123456000} */
	static const unsigned char rt[] = {0x22, 0x0b, 0x08, 0xa0, 0xa5, 0xc8, 0xb1,
	                                   0x06, 0x10, 0x80, 0x94, 0xef, 0x3a};
	CU_ASSERT_PTR_NOT_NULL(memmem(b.data, b.len, ts, sizeof(ts)));
	CU_ASSERT_PTR_NOT_NULL(memmem(b.data, b.len, rt, sizeof(rt)));
	json_object *o = decode(b.data, b.len);
	NL_ASSERT_JSON_EQ(o, "{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\","
	                     "\"metadata\":{\"name\":\"n\",\"creationTimestamp\":"
	                     "\"2024-05-01T10:00:00Z\"},\"spec\":{\"renewTime\":"
	                     "\"2024-05-01T10:00:00.123456Z\"}}");
	json_object_put(o);
	nl_buf_free(&b);
}

static void test_protobuf__time_nanos_are_ignored_on_decode(void)
{
	/* Namespace{metadata{creationTimestamp{seconds 1714557600 nanos 5e8}}} */
	static const unsigned char ns[] = {
	    'k',  '8',  's',  0,    0x0a, 0x0f, 0x0a, 0x02, 'v',  '1',  0x12, 0x09, 'N',
	    'a',  'm',  'e',  's',  'p',  'a',  'c',  'e',  0x12, 0x10, 0x0a, 0x0e, 0x42,
	    0x0c, 0x08, 0xa0, 0xa5, 0xc8, 0xb1, 0x06, 0x10, 0x80, 0xca, 0xb5, 0xee, 0x01};
	json_object *o = decode(ns, sizeof(ns));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(
	                           json_object_object_get(o, "metadata"), "creationTimestamp")),
	                       "2024-05-01T10:00:00Z");
	/* A non-pointer struct absent on the wire is still written, as Go does. */
	NL_ASSERT_JSON_EQ(json_object_object_get(o, "spec"), "{}");
	json_object_put(o);
}

static void test_protobuf__negative_int32_takes_ten_bytes(void)
{
	nl_buf b;
	encode(&b, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"code\":-1}");
	static const unsigned char code[] = {0x30, 0xff, 0xff, 0xff, 0xff, 0xff,
	                                     0xff, 0xff, 0xff, 0xff, 0x01};
	CU_ASSERT_EQUAL(memcmp(b.data + b.len - 4 - sizeof(code), code, sizeof(code)), 0);
	json_object *o = decode(b.data, b.len);
	CU_ASSERT_EQUAL(json_object_get_int(json_object_object_get(o, "code")), -1);
	json_object_put(o);
	nl_buf_free(&b);
}

static void test_protobuf__map_entries_sorted_by_key(void)
{
	nl_buf b;
	encode(&b,
	       "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"data\":{\"b\":\"2\",\"a\":\"1\","
	       "\"B\":\"\"}}");
	static const unsigned char entries[] = {0x12, 0x05, 0x0a, 0x01, 'B',  0x12, 0x00, 0x12,
	                                        0x06, 0x0a, 0x01, 'a',  0x12, 0x01, '1',  0x12,
	                                        0x06, 0x0a, 0x01, 'b',  0x12, 0x01, '2'};
	CU_ASSERT_PTR_NOT_NULL(memmem(b.data, b.len, entries, sizeof(entries)));
	nl_buf_free(&b);
}

static void test_protobuf__binary_data_is_raw_bytes(void)
{
	nl_buf b;
	encode(&b,
	       "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"binaryData\":{\"k\":\"AP8B\"}}");
	static const unsigned char entry[] = {0x1a, 0x08, 0x0a, 0x01, 'k',
	                                      0x12, 0x03, 0x00, 0xff, 0x01};
	CU_ASSERT_PTR_NOT_NULL(memmem(b.data, b.len, entry, sizeof(entry)));
	json_object *o = decode(b.data, b.len);
	NL_ASSERT_JSON_EQ(json_object_object_get(o, "binaryData"), "{\"k\":\"AP8B\"}");
	json_object_put(o);
	nl_buf_free(&b);
}

static void test_protobuf__unknown_fields_are_skipped(void)
{
	unsigned char in[sizeof(cm_pb) + 16];
	/* ConfigMap raw grows by field 99 varint and field 98 bytes */
	static const unsigned char extra[] = {0x98, 0x06, 0x07, 0x92, 0x06, 0x02, 'x', 'y'};
	size_t raw_at = 4 + 2 + 15; /* the raw field's tag */
	memcpy(in, cm_pb, raw_at);
	in[raw_at] = 0x12;
	in[raw_at + 1] = (unsigned char)(0x24 + sizeof(extra));
	memcpy(in + raw_at + 2, cm_pb + raw_at + 2, 0x24);
	memcpy(in + raw_at + 2 + 0x24, extra, sizeof(extra));
	memcpy(in + raw_at + 2 + 0x24 + sizeof(extra), cm_pb + raw_at + 2 + 0x24, 4);
	json_object *o = decode(in, sizeof(cm_pb) + sizeof(extra));
	CU_ASSERT_STRING_EQUAL(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), CM_JSON);
	json_object_put(o);
}

static void test_protobuf__refuses_what_go_refuses(void)
{
	expect_error("", 0, NL_EPARSE, "empty data");
	expect_error("{\"kind\":1}", 10, NL_EPARSE,
	             "provided data does not appear to be a protobuf message, expected prefix "
	             "[107 56 115 0]");
	expect_error("k8s", 3, NL_EPARSE,
	             "provided data does not appear to be a protobuf message, expected prefix "
	             "[107 56 115 0]");
	expect_error("k8s\0", 4, NL_EPARSE, "empty body");
	/* every cut of a valid object is an unexpected EOF, never a crash */
	for (size_t n = 5; n < sizeof(cm_pb) - 4; n++) {
		json_object *o = NULL;
		nl_err err = {0};
		int rc = nl_pb_decode_object(&o, NULL, cm_pb, n, &err);
		if (rc == 0) { /* a cut between fields is a shorter valid message */
			json_object_put(o);
			continue;
		}
		CU_ASSERT_EQUAL(rc, NL_EPARSE);
		CU_ASSERT_STRING_EQUAL(err.msg, "unexpected EOF");
	}
	/* ConfigMap.metadata as a varint */
	static const unsigned char wt[] = {'k', '8',  's',  0,    0x0a, 0x0f, 0x0a, 0x02, 'v',
	                                   '1', 0x12, 0x09, 'C',  'o',  'n',  'f',  'i',  'g',
	                                   'M', 'a',  'p',  0x12, 0x02, 0x08, 0x01};
	expect_error(wt, sizeof(wt), NL_EPARSE, "proto: wrong wireType = 0 for field Metadata");
	static const unsigned char tag0[] = {'k', '8',  's',  0,    0x0a, 0x0f, 0x0a, 0x02, 'v',
	                                     '1', 0x12, 0x09, 'C',  'o',  'n',  'f',  'i',  'g',
	                                     'M', 'a',  'p',  0x12, 0x02, 0x00, 0x00};
	expect_error(tag0, sizeof(tag0), NL_EPARSE,
	             "proto: ConfigMap: illegal tag 0 (wire type 0)");
	static const unsigned char over[] = {'k',  '8',  's',  0,    0xff, 0xff, 0xff, 0xff,
	                                     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	expect_error(over, sizeof(over), NL_EPARSE, "proto: integer overflow");
	static const unsigned char svc[] = {'k',  '8',  's', 0,   0x0a, 0x0d, 0x0a, 0x02, 'v', '1',
	                                    0x12, 0x07, 'S', 'e', 'r',  'v',  'i',  'c',  'e'};
	expect_error(svc, sizeof(svc), NL_EUNSUPPORTED,
	             "no kind \"Service\" is registered for version \"v1\"");
}

static void test_protobuf__empty_structs_cannot_balloon(void)
{
	/* A Node whose status holds 200,000 empty conditions: 2 bytes each. */
	size_t n = 200000, len = 0;
	unsigned char *in = malloc(64 + n * 2);
	static const unsigned char head[] = {'k', '8',  's',  0,   0x0a, 0x0a, 0x0a, 0x02, 'v',
	                                     '1', 0x12, 0x04, 'N', 'o',  'd',  'e',  0x12};
	CU_ASSERT_PTR_NOT_NULL_FATAL(in);
	memcpy(in, head, sizeof(head));
	len = sizeof(head);
	/* raw = {status(3) = {conditions(4) x n}}: lengths as varints */
	size_t status = n * 2, raw = 1 + 3 + status;
	in[len++] = (unsigned char)(raw | 0x80);
	in[len++] = (unsigned char)((raw >> 7) | 0x80);
	in[len++] = (unsigned char)(raw >> 14);
	in[len++] = 0x1a;
	in[len++] = (unsigned char)(status | 0x80);
	in[len++] = (unsigned char)((status >> 7) | 0x80);
	in[len++] = (unsigned char)(status >> 14);
	for (size_t i = 0; i < n; i++) {
		in[len++] = 0x22;
		in[len++] = 0x00;
	}
	json_object *o = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL(nl_pb_decode_object(&o, NULL, in, len, &err), NL_EPARSE);
	CU_ASSERT_STRING_EQUAL(err.msg, "proto: message expands beyond the decoder's limit");
	free(in);
}

static void test_protobuf__watch_frames(void)
{
	nl_buf obj, frame;
	encode(&obj, CM_JSON);
	nl_buf_init(&frame, 0);
	CU_ASSERT_EQUAL_FATAL(nl_pb_encode_watch_event(&frame, "ADDED", obj.data, obj.len), 0);
	const unsigned char *f = (const unsigned char *)frame.data;
	size_t n = ((size_t)f[0] << 24) | ((size_t)f[1] << 16) | ((size_t)f[2] << 8) | f[3];
	CU_ASSERT_EQUAL(n, frame.len - 4);
	/* WatchEvent{type "ADDED", object RawExtension{raw: the enveloped object}} */
	static const unsigned char head[] = {0x0a, 0x05, 'A', 'D', 'D', 'E', 'D', 0x12};
	CU_ASSERT_EQUAL(memcmp(f + 4, head, sizeof(head)), 0);
	char type[16];
	json_object *o = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(
	    nl_pb_decode_watch_event(type, sizeof(type), &o, f + 4, frame.len - 4, &err), 0);
	CU_ASSERT_STRING_EQUAL(type, "ADDED");
	CU_ASSERT_STRING_EQUAL(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), CM_JSON);
	json_object_put(o);
	nl_buf_free(&obj);
	nl_buf_free(&frame);
}

static void test_protobuf__status_with_causes_round_trips(void)
{
	static const char st[] =
	    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
	    "\"message\":\"ConfigMap \\\"x\\\" is invalid: data: Invalid value\",\"reason\":"
	    "\"Invalid\",\"details\":{\"name\":\"x\",\"kind\":\"configmaps\",\"causes\":[{"
	    "\"reason\":\"FieldValueInvalid\",\"message\":\"Invalid value\",\"field\":\"data\"}]},"
	    "\"code\":422}";
	nl_buf b;
	encode(&b, st);
	json_object *o = decode(b.data, b.len);
	CU_ASSERT_STRING_EQUAL(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), st);
	json_object_put(o);
	nl_buf_free(&b);
}

static void test_protobuf__tables_have_no_protobuf(void)
{
	json_object *o = nl_test_json("{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\"}");
	nl_buf b;
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL(nl_pb_encode_object(&b, o), NL_EUNSUPPORTED);
	CU_ASSERT_EQUAL(b.len, 0);
	json_object_put(o);
	nl_buf_free(&b);
}

/* A golden vector's bytes (tests/data/protobuf/NAME.hex: '#' lines, then
 * hex) into b. */
static void read_vector(nl_buf *b, const char *name)
{
	char path[512];
	const char *dir = getenv("NL_TEST_DATA_DIR");
	snprintf(path, sizeof(path), "%s/protobuf/%s.hex", dir ? dir : "tests/data", name);
	FILE *f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	char line[256];
	nl_buf_init(b, 0);
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		for (const char *p = line; p[0] && p[1] && p[0] != '\n'; p += 2) {
			unsigned v;
			CU_ASSERT_EQUAL_FATAL(sscanf(p, "%2x", &v), 1);
			unsigned char c = (unsigned char)v;
			nl_buf_add(b, &c, 1);
		}
	}
	fclose(f);
}

/* What kubectl sent decodes to the object it meant, and our encoder writes
 * those very bytes again: the codec agrees with gogo's on real input. */
static void test_protobuf__kubectl_bodies_round_trip_byte_for_byte(void)
{
	static const struct {
		const char *file, *json;
	} v[] = {
	    {"kubectl-create-configmap-literal",
	     "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"app\","
	     "\"namespace\":\"default\",\"creationTimestamp\":null},\"data\":{\"a\":\"b\","
	     "\"key2\":\"value2\"}}"},
	    {"kubectl-create-configmap-file",
	     "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"files\","
	     "\"namespace\":\"default\",\"creationTimestamp\":null},\"data\":{"
	     "\"game.properties\":\"enemies=aliens\\nlives=3\\n\"}}"},
	    {"kubectl-create-namespace",
	     "{\"kind\":\"Namespace\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"dev\","
	     "\"creationTimestamp\":null},\"spec\":{},\"status\":{}}"},
	    {"kubectl-create-configmap-binary",
	     "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"bin\","
	     "\"creationTimestamp\":null},\"binaryData\":{\"blob.bin\":\"AP8B\"}}"},
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		nl_buf in, out;
		json_object *o = NULL;
		nl_err err = {0};
		read_vector(&in, v[i].file);
		CU_ASSERT_EQUAL_FATAL(nl_pb_decode_object(&o, NULL, in.data, in.len, &err), 0);
		json_object *want = nl_test_json(v[i].json);
		if (!json_object_equal(o, want))
			fprintf(stderr, "\n%s: %s\n", v[i].file, json_object_to_json_string(o));
		CU_ASSERT_TRUE(json_object_equal(o, want));
		nl_buf_init(&out, 0);
		CU_ASSERT_EQUAL(nl_pb_encode_object(&out, want), 0);
		CU_ASSERT_EQUAL(out.len, in.len);
		CU_ASSERT_TRUE(out.len == in.len && memcmp(out.data, in.data, in.len) == 0);
		json_object_put(o);
		json_object_put(want);
		nl_buf_free(&in);
		nl_buf_free(&out);
	}
}

/* ------------------------------------------------- property: every field */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64*: reproducible from the seed printed on failure. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static json_object *gen_value(nl_field_type t, const nl_field *f, int depth);

static json_object *gen_time(int micro)
{
	time_t secs = (time_t)(rnd() % 4102444800ull); /* 1970 .. 2100 */
	struct tm tm;
	char buf[40];
	gmtime_r(&secs, &tm);
	size_t n = strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	if (micro)
		snprintf(buf + n, sizeof(buf) - n, ".%06uZ", (unsigned)(rnd() % 1000000));
	else
		snprintf(buf + n, sizeof(buf) - n, "Z");
	return json_object_new_string(buf);
}

/* A string of printable and non-ASCII UTF-8 characters, never empty. */
static json_object *gen_string(void)
{
	static const char *const parts[] = {"a", "Z",    "9", "-",  ".", "/",
	                                    "é", "日本", " ", "\"", "{"};
	char buf[64] = "";
	size_t n = 1 + rnd() % 6;
	for (size_t i = 0; i < n; i++)
		strncat(buf, parts[rnd() % (sizeof(parts) / sizeof(parts[0]))],
		        sizeof(buf) - strlen(buf) - 1);
	return json_object_new_string(buf);
}

static json_object *gen_map(nl_field_type t)
{
	static const char *const b64[] = {"AA==", "AP8B", "aGVsbG8=", "/+8="};
	static const char *const qty[] = {"1", "250m", "1Gi", "3.5", "100Ki", "2e3"};
	json_object *m = json_object_new_object();
	size_t n = 1 + rnd() % 3;
	for (size_t i = 0; i < n; i++) {
		char key[16];
		snprintf(key, sizeof(key), "k%u", (unsigned)(rnd() % 100));
		json_object *v = t == NL_FT_MAP_BYTES      ? json_object_new_string(b64[rnd() % 4])
		                 : t == NL_FT_MAP_QUANTITY ? json_object_new_string(qty[rnd() % 6])
		                 : t == NL_FT_MAP_STRINGS  ? json_object_new_array()
		                                           : gen_string();
		if (t == NL_FT_MAP_STRINGS)
			json_object_array_add(v, gen_string());
		json_object_object_add(m, key, v);
	}
	return m;
}

/* An object of schema s with every field that travels in protobuf set to a
 * non-zero value, so that nothing may be left out on either side. */
static json_object *gen_struct(const nl_schema *s, int depth)
{
	json_object *o = json_object_new_object();
	CU_ASSERT_FATAL(depth < 16);
	for (size_t i = 0; i < s->nfields; i++) {
		const nl_field *f = &s->fields[i];
		if (f->pb == 0 || (f->flags & (NL_F_TYPEMETA | NL_F_DROP)))
			continue;
		json_object_object_add(o, f->name, gen_value(f->type, f, depth));
	}
	return o;
}

static json_object *gen_value(nl_field_type t, const nl_field *f, int depth)
{
	switch (t) {
	case NL_FT_STRING:
		return gen_string();
	case NL_FT_BOOL:
		return json_object_new_boolean(1);
	case NL_FT_INT32: {
		int32_t v = (int32_t)(uint32_t)rnd();
		return json_object_new_int(v ? v : 1);
	}
	case NL_FT_INT64: {
		int64_t v = (int64_t)rnd();
		return json_object_new_int64(v ? v : -1);
	}
	case NL_FT_TIME:
		return gen_time(0);
	case NL_FT_MICROTIME:
		return gen_time(1);
	case NL_FT_MAP_STRING:
	case NL_FT_MAP_BYTES:
	case NL_FT_MAP_QUANTITY:
	case NL_FT_MAP_STRINGS:
		return gen_map(t);
	case NL_FT_OBJECT:
		return gen_struct(f->sub, depth + 1);
	case NL_FT_ARRAY: {
		json_object *a = json_object_new_array();
		size_t n = 1 + rnd() % 2;
		for (size_t i = 0; i < n; i++)
			json_object_array_add(a, gen_value(f->elem, f, depth));
		return a;
	}
	case NL_FT_RAW:
		return nl_test_json("{\"f:data\":{\"f:a\":{}},\"n\":[1,\"x\",true,null]}");
	case NL_FT_BYTES:
		return json_object_new_string("AAEC/w==");
	}
	return NULL;
}

/* Random objects of every kind and list the codec serves, each field set:
 * JSON -> protobuf -> JSON gives the same object. */
static void test_protobuf__every_field_of_every_kind_round_trips(void)
{
	static const char *const kinds[][2] = {
	    {"v1", "Namespace"},
	    {"v1", "NamespaceList"},
	    {"v1", "Node"},
	    {"v1", "NodeList"},
	    {"certificates.k8s.io/v1", "CertificateSigningRequest"},
	    {"certificates.k8s.io/v1", "CertificateSigningRequestList"},
	    {"v1", "ConfigMap"},
	    {"v1", "ConfigMapList"},
	    {"v1", "Event"},
	    {"v1", "EventList"},
	    {"coordination.k8s.io/v1", "Lease"},
	    {"coordination.k8s.io/v1", "LeaseList"},
	    {"v1", "Status"},
	    {"v1", "DeleteOptions"},
	    {"policy/v1", "Eviction"},
	    {"meta.k8s.io/v1", "PartialObjectMetadata"},
	    {"meta.k8s.io/v1", "PartialObjectMetadataList"},
	};
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		const nl_schema *s = nl_schema_for_kind(kinds[k][0], kinds[k][1]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		for (uint64_t seed = 1; seed <= 50; seed++) {
			rng_state = seed * 0x9e3779b97f4a7c15ull + k;
			json_object *o = json_object_new_object();
			json_object_object_add(o, "kind", json_object_new_string(kinds[k][1]));
			json_object_object_add(o, "apiVersion",
			                       json_object_new_string(kinds[k][0]));
			json_object *body = gen_struct(s, 0);
			json_object_object_foreach(body, key, val)
			{
				json_object_object_add(o, key, json_object_get(val));
			}
			json_object_put(body);
			nl_buf b;
			json_object *back = NULL;
			nl_err err = {0};
			nl_buf_init(&b, 0);
			CU_ASSERT_EQUAL_FATAL(nl_pb_encode_object(&b, o), 0);
			CU_ASSERT_EQUAL_FATAL(nl_pb_decode_object(&back, NULL, b.data, b.len, &err),
			                      0);
			if (!json_object_equal(o, back))
				fprintf(stderr, "\n%s seed %" PRIu64 ":\n sent %s\n back %s\n",
				        kinds[k][1], seed, json_object_to_json_string(o),
				        json_object_to_json_string(back));
			CU_ASSERT_TRUE(json_object_equal(o, back));
			json_object_put(back);
			json_object_put(o);
			nl_buf_free(&b);
		}
	}
}

static CU_TestInfo tests[] = {
    {"every_field_of_every_kind_round_trips", test_protobuf__every_field_of_every_kind_round_trips},
    {"kubectl_bodies_round_trip_byte_for_byte",
     test_protobuf__kubectl_bodies_round_trip_byte_for_byte},
    {"encodes_configmap_as_gogo", test_protobuf__encodes_configmap_as_gogo},
    {"decodes_to_the_json_go_writes", test_protobuf__decodes_to_the_json_go_writes},
    {"time_is_seconds_microtime_micros", test_protobuf__time_is_seconds_microtime_micros},
    {"time_nanos_are_ignored_on_decode", test_protobuf__time_nanos_are_ignored_on_decode},
    {"negative_int32_takes_ten_bytes", test_protobuf__negative_int32_takes_ten_bytes},
    {"map_entries_sorted_by_key", test_protobuf__map_entries_sorted_by_key},
    {"binary_data_is_raw_bytes", test_protobuf__binary_data_is_raw_bytes},
    {"unknown_fields_are_skipped", test_protobuf__unknown_fields_are_skipped},
    {"refuses_what_go_refuses", test_protobuf__refuses_what_go_refuses},
    {"empty_structs_cannot_balloon", test_protobuf__empty_structs_cannot_balloon},
    {"watch_frames", test_protobuf__watch_frames},
    {"status_with_causes_round_trips", test_protobuf__status_with_causes_round_trips},
    {"tables_have_no_protobuf", test_protobuf__tables_have_no_protobuf},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"protobuf", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
