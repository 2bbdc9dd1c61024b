/* The watch decoder on protobuf streams (…protobuf;stream=watch): the same
 * events as the JSON stream of the same changes, whatever the chunking;
 * frames above the cap refused as soon as their length is read; streams
 * cut inside a frame and undecodable frames refused. */
#include <nodelet/protobuf.h>
#include <nodelet/watch.h>
#include <stdlib.h>
#include <string.h>

#include "../cu_main.h"

/* The objects of the events, as kube-apiserver writes them in JSON. */
static const char *const types[] = {"ADDED", "MODIFIED", "BOOKMARK", "DELETED", "ERROR"};
static const char *const objects[] = {
    "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\",\"namespace\":"
    "\"default\",\"uid\":\"u1\",\"resourceVersion\":\"11\",\"creationTimestamp\":\"2024-01-01T00:"
    "00:00Z\",\"labels\":{\"app\":\"x\"}},\"data\":{\"k\":\"line1\\nline2 \\u00e9\"}}",
    "{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\",\"metadata\":{\"name\":\"n1\","
    "\"namespace\":\"kube-node-lease\",\"resourceVersion\":\"12\",\"creationTimestamp\":\"2024-"
    "01-01T00:00:00Z\"},\"spec\":{\"holderIdentity\":\"n1\",\"leaseDurationSeconds\":40,"
    "\"renewTime\":\"2024-01-01T00:00:10.123456Z\"}}",
    "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"13\"}}",
    "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\",\"namespace\":"
    "\"default\",\"resourceVersion\":\"14\"},\"data\":{\"\xc3\xa9\":"
    "\"\xe2\x82\xac\xf0\x9f\x98\x80\"}}",
    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
    "\"message\":\"too old resource version: 5 (120)\",\"reason\":\"Expired\",\"code\":410}",
};
#define NEVENTS (sizeof(types) / sizeof(types[0]))
#define MAX_EVENTS 16

typedef struct {
	char *text[MAX_EVENTS]; /* "TYPE object-json" */
	size_t n;
} collected;

static int collect(const nl_watch_event *ev, void *payload)
{
	collected *c = payload;
	const char *obj = json_object_to_json_string_ext(ev->object, JSON_C_TO_STRING_PLAIN);
	size_t len = strlen(obj) + 16;
	CU_ASSERT_FATAL(c->n < MAX_EVENTS);
	c->text[c->n] = malloc(len);
	snprintf(c->text[c->n], len, "%s %s", nl_watch_type_name(ev->type), obj);
	c->n++;
	return 0;
}

static void clear(collected *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->text[i]);
	memset(c, 0, sizeof(*c));
}

/* The protobuf stream of the events, and the JSON stream of the same
 * objects as protobuf carries them (decoded once: what a server would
 * have written in JSON for the same stored objects). */
static void streams(nl_buf *pb, nl_buf *json)
{
	nl_buf_init(pb, 0);
	nl_buf_init(json, 0);
	for (size_t i = 0; i < NEVENTS; i++) {
		json_object *obj = nl_test_json(objects[i]), *back = NULL;
		nl_buf one;
		nl_buf_init(&one, 0);
		CU_ASSERT_EQUAL_FATAL(nl_pb_encode_object(&one, obj), 0);
		CU_ASSERT_EQUAL_FATAL(nl_pb_encode_watch_event(pb, types[i], one.data, one.len), 0);
		CU_ASSERT_EQUAL_FATAL(nl_pb_decode_object(&back, NULL, one.data, one.len, NULL), 0);
		CU_ASSERT_EQUAL(
		    nl_buf_printf(json, "{\"type\":\"%s\",\"object\":%s}\n", types[i],
		                  json_object_to_json_string_ext(back, JSON_C_TO_STRING_PLAIN)),
		    0);
		json_object_put(back);
		json_object_put(obj);
		nl_buf_free(&one);
	}
}

/* Feed data in chunks cut at cuts (ascending). */
static int feed(collected *c, int protobuf, const char *data, size_t len, const size_t *cuts,
                size_t ncuts, size_t max_event, nl_err *err)
{
	nl_watch_decoder *d;
	CU_ASSERT_EQUAL_FATAL(nl_watch_decoder_new(&d, max_event, collect, c), 0);
	nl_watch_decoder_set_protobuf(d, protobuf);
	size_t at = 0;
	int rc = 0;
	for (size_t i = 0; i <= ncuts && rc == 0; i++) {
		size_t end = cuts && i < ncuts ? cuts[i] : len;
		rc = nl_watch_decoder_feed(d, data + at, end - at, err);
		at = end;
	}
	if (rc == 0)
		rc = nl_watch_decoder_finish(d, err);
	nl_watch_decoder_free(d);
	return rc;
}

static void assert_same(const collected *a, const collected *b)
{
	CU_ASSERT_EQUAL(a->n, b->n);
	for (size_t i = 0; i < a->n && i < b->n; i++)
		CU_ASSERT_STRING_EQUAL(a->text[i], b->text[i]);
}

static void test_watch_decoder_protobuf__same_events_as_json(void)
{
	nl_buf pb, json;
	collected a = {0}, b = {0};
	nl_err err = {0};
	streams(&pb, &json);
	CU_ASSERT_EQUAL(feed(&a, 0, json.data, json.len, NULL, 0, 0, &err), 0);
	CU_ASSERT_EQUAL(feed(&b, 1, pb.data, pb.len, NULL, 0, 0, &err), 0);
	CU_ASSERT_EQUAL(a.n, NEVENTS);
	assert_same(&a, &b);
	CU_ASSERT_PTR_NOT_NULL(strstr(b.text[1], "\"renewTime\":\"2024-01-01T00:00:10.123456Z\""));
	CU_ASSERT_EQUAL(strncmp(b.text[4], "ERROR {\"kind\":\"Status\"", 22), 0);
	clear(&a);
	clear(&b);
	nl_buf_free(&pb);
	nl_buf_free(&json);
}

/* A frame split anywhere — inside the length prefix, inside the envelope,
 * at the frame boundary — decodes the same. */
static void test_watch_decoder_protobuf__every_split_point(void)
{
	nl_buf pb, json;
	collected whole = {0};
	nl_err err = {0};
	streams(&pb, &json);
	CU_ASSERT_EQUAL(feed(&whole, 1, pb.data, pb.len, NULL, 0, 0, &err), 0);
	for (size_t cut = 1; cut < pb.len; cut++) {
		collected c = {0};
		CU_ASSERT_EQUAL(feed(&c, 1, pb.data, pb.len, &cut, 1, 0, &err), 0);
		assert_same(&whole, &c);
		clear(&c);
	}
	clear(&whole);
	nl_buf_free(&pb);
	nl_buf_free(&json);
}

static void test_watch_decoder_protobuf__byte_at_a_time_and_three_way(void)
{
	nl_buf pb, json;
	collected whole = {0}, c = {0};
	nl_err err = {0};
	streams(&pb, &json);
	CU_ASSERT_EQUAL(feed(&whole, 1, pb.data, pb.len, NULL, 0, 0, &err), 0);
	size_t *cuts = malloc(pb.len * sizeof(*cuts));
	for (size_t i = 1; i < pb.len; i++)
		cuts[i - 1] = i;
	CU_ASSERT_EQUAL(feed(&c, 1, pb.data, pb.len, cuts, pb.len - 1, 0, &err), 0);
	assert_same(&whole, &c);
	clear(&c);
	srand(7);
	for (int k = 0; k < 300; k++) {
		size_t two[2] = {1 + (size_t)rand() % (pb.len - 1),
		                 1 + (size_t)rand() % (pb.len - 1)};
		if (two[0] > two[1]) {
			size_t t = two[0];
			two[0] = two[1];
			two[1] = t;
		}
		CU_ASSERT_EQUAL(feed(&c, 1, pb.data, pb.len, two, 2, 0, &err), 0);
		assert_same(&whole, &c);
		clear(&c);
	}
	free(cuts);
	clear(&whole);
	nl_buf_free(&pb);
	nl_buf_free(&json);
}

/* A length above NL_PB_MAX_FRAME is refused from the 4 bytes alone: no
 * buffer of that size is ever allocated. */
static void test_watch_decoder_protobuf__oversize_frame_refused(void)
{
	unsigned char head[4];
	uint32_t n = NL_PB_MAX_FRAME + 1;
	head[0] = (unsigned char)(n >> 24);
	head[1] = (unsigned char)(n >> 16);
	head[2] = (unsigned char)(n >> 8);
	head[3] = (unsigned char)n;
	collected c = {0};
	nl_err err = {0};
	CU_ASSERT_EQUAL(feed(&c, 1, (const char *)head, 4, NULL, 0, 0, &err), NL_ETOOBIG);
	CU_ASSERT_STRING_EQUAL(err.msg, "watch frame of 16777217 bytes is larger than the maximum "
	                                "of 16777216 bytes");
	CU_ASSERT_EQUAL(c.n, 0);
	/* The decoder's own cap applies too, below NL_PB_MAX_FRAME. */
	nl_buf pb, json;
	streams(&pb, &json);
	CU_ASSERT_EQUAL(feed(&c, 1, pb.data, pb.len, NULL, 0, 64, &err), NL_ETOOBIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "larger than the maximum of 64 bytes"));
	CU_ASSERT_EQUAL(c.n, 0);
	clear(&c);
	nl_buf_free(&pb);
	nl_buf_free(&json);
}

static void test_watch_decoder_protobuf__stream_cut_inside_a_frame(void)
{
	nl_buf pb, json;
	collected c = {0};
	nl_err err = {0};
	streams(&pb, &json);
	CU_ASSERT_EQUAL(feed(&c, 1, pb.data, 2, NULL, 0, 0, &err), NL_EPARSE);
	CU_ASSERT_STRING_EQUAL(err.msg, "watch stream ended inside a frame (2 of 4 bytes)");
	clear(&c);
	CU_ASSERT_EQUAL(feed(&c, 1, pb.data, 10, NULL, 0, 0, &err), NL_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "watch stream ended inside a frame (6 of "));
	CU_ASSERT_EQUAL(c.n, 0);
	clear(&c);
	nl_buf_free(&pb);
	nl_buf_free(&json);
}

static void test_watch_decoder_protobuf__bad_frames_refused(void)
{
	collected c = {0};
	nl_err err = {0};
	nl_buf s, obj;
	json_object *cm = nl_test_json("{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\"}");
	nl_buf_init(&obj, 0);
	CU_ASSERT_EQUAL_FATAL(nl_pb_encode_object(&obj, cm), 0);
	/* client-go: "got invalid watch event type" */
	nl_buf_init(&s, 0);
	CU_ASSERT_EQUAL_FATAL(nl_pb_encode_watch_event(&s, "CHANGED", obj.data, obj.len), 0);
	CU_ASSERT_EQUAL(feed(&c, 1, s.data, s.len, NULL, 0, 0, &err), NL_EPARSE);
	CU_ASSERT_STRING_EQUAL(err.msg, "got invalid watch event type: CHANGED");
	/* A frame whose object is not an enveloped object. */
	nl_buf_reset(&s);
	CU_ASSERT_EQUAL_FATAL(nl_pb_encode_watch_event(&s, "ADDED", "{}", 2), 0);
	CU_ASSERT_EQUAL(feed(&c, 1, s.data, s.len, NULL, 0, 0, &err), NL_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unable to decode watch event: provided data does "
	                                       "not appear to be a protobuf message"));
	/* Switching back to JSON forgets the protobuf state. */
	nl_watch_decoder *d;
	CU_ASSERT_EQUAL_FATAL(nl_watch_decoder_new(&d, 0, collect, &c), 0);
	nl_watch_decoder_set_protobuf(d, 1);
	CU_ASSERT_EQUAL(nl_watch_decoder_feed(d, "\0\0", 2, &err), 0);
	nl_watch_decoder_set_protobuf(d, 0);
	CU_ASSERT_EQUAL(nl_watch_decoder_finish(d, &err), 0);
	nl_watch_decoder_free(d);
	CU_ASSERT_EQUAL(c.n, 0);
	json_object_put(cm);
	nl_buf_free(&s);
	nl_buf_free(&obj);
}

static CU_TestInfo tests[] = {
    {"same_events_as_json", test_watch_decoder_protobuf__same_events_as_json},
    {"every_split_point", test_watch_decoder_protobuf__every_split_point},
    {"byte_at_a_time_and_three_way", test_watch_decoder_protobuf__byte_at_a_time_and_three_way},
    {"oversize_frame_refused", test_watch_decoder_protobuf__oversize_frame_refused},
    {"stream_cut_inside_a_frame", test_watch_decoder_protobuf__stream_cut_inside_a_frame},
    {"bad_frames_refused", test_watch_decoder_protobuf__bad_frames_refused},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {{"watch_decoder_protobuf", NULL, NULL, NULL, NULL, tests},
                                 CU_SUITE_INFO_NULL};
