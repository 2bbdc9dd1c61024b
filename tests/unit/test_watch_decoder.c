/* The watch decoder: the same events whatever the chunking, every byte
 * parsed once, malformed streams and oversized events refused. */
#include <nodelet/watch.h>
#include <stdlib.h>
#include <string.h>

#include "../cu_main.h"

/* A stream as kube-apiserver writes it: compact JSON lines, with a string
 * escape, a \u escape and raw multi-byte UTF-8 to split mid-sequence. */
static const char stream[] =
    "{\"type\":\"ADDED\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\","
    "\"metadata\":{\"name\":\"a\",\"namespace\":\"default\",\"resourceVersion\":\"11\"},"
    "\"data\":{\"k\":\"line1\\nline2 \\\"quoted\\\" \\u00e9\"}}}\n"
    "{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\","
    "\"metadata\":{\"name\":\"a\",\"namespace\":\"default\",\"resourceVersion\":\"12\"},"
    "\"data\":{\"k\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\",\"n\":\"-12.5e3\"}}}\n"
    "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\","
    "\"metadata\":{\"resourceVersion\":\"13\"}}}\n"
    "{\"type\":\"DELETED\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\","
    "\"metadata\":{\"name\":\"a\",\"namespace\":\"default\",\"resourceVersion\":\"14\"},"
    "\"data\":{\"list\":[1,2,{\"x\":null}],\"t\":true}}}\n"
    "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
    "\"status\":\"Failure\",\"message\":\"too old resource version: 5 (120)\","
    "\"reason\":\"Expired\",\"code\":410}}\n";

#define MAX_EVENTS 16

typedef struct {
	char *text[MAX_EVENTS]; /* "TYPE object-json" */
	size_t n;
	int stop_after; /* return 7 from the callback after this many (0 = never) */
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
	return c->stop_after && c->n == (size_t)c->stop_after ? 7 : 0;
}

static void clear(collected *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->text[i]);
	memset(c, 0, sizeof(*c));
}

/* Decode stream fed in chunks cut at the given offsets (ascending). */
static int decode(collected *c, const size_t *cuts, size_t ncuts)
{
	nl_watch_decoder *d;
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(nl_watch_decoder_new(&d, 0, collect, c), 0);
	size_t len = strlen(stream), at = 0;
	int rc = 0;
	for (size_t i = 0; i <= ncuts && rc == 0; i++) {
		size_t end = cuts && i < ncuts ? cuts[i] : len;
		rc = nl_watch_decoder_feed(d, stream + at, end - at, &err);
		at = end;
	}
	if (rc == 0)
		rc = nl_watch_decoder_finish(d, &err);
	nl_watch_decoder_free(d);
	return rc;
}

static void assert_same(const collected *a, const collected *b)
{
	CU_ASSERT_EQUAL(a->n, b->n);
	for (size_t i = 0; i < a->n && i < b->n; i++)
		CU_ASSERT_STRING_EQUAL(a->text[i], b->text[i]);
}

static void test_watch_decoder__whole_stream(void)
{
	collected c = {0};
	CU_ASSERT_EQUAL(decode(&c, NULL, 0), 0);
	CU_ASSERT_EQUAL_FATAL(c.n, 5);
	CU_ASSERT_NSTRING_EQUAL(c.text[0], "ADDED {", 7);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.text[0], "line1\\nline2 \\\"quoted\\\" \xc3\xa9"));
	CU_ASSERT_NSTRING_EQUAL(c.text[1], "MODIFIED {", 10);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.text[1], "\xf0\x9f\x98\x80"));
	CU_ASSERT_NSTRING_EQUAL(c.text[2], "BOOKMARK {", 10);
	CU_ASSERT_NSTRING_EQUAL(c.text[3], "DELETED {", 9);
	CU_ASSERT_NSTRING_EQUAL(c.text[4], "ERROR {", 7);
	clear(&c);
}

/* Two chunks, cut at every byte boundary of the stream. */
static void test_watch_decoder__every_split_point_gives_same_events(void)
{
	collected want = {0};
	CU_ASSERT_EQUAL_FATAL(decode(&want, NULL, 0), 0);
	size_t len = strlen(stream);
	for (size_t cut = 1; cut < len; cut++) {
		collected got = {0};
		CU_ASSERT_EQUAL(decode(&got, &cut, 1), 0);
		assert_same(&want, &got);
		clear(&got);
	}
	clear(&want);
}

/* One byte at a time: every boundary cut at once. */
static void test_watch_decoder__byte_at_a_time(void)
{
	collected want = {0}, got = {0};
	CU_ASSERT_EQUAL_FATAL(decode(&want, NULL, 0), 0);
	size_t len = strlen(stream);
	size_t *cuts = malloc(len * sizeof(*cuts));
	for (size_t i = 0; i + 1 < len; i++)
		cuts[i] = i + 1;
	CU_ASSERT_EQUAL(decode(&got, cuts, len - 1), 0);
	assert_same(&want, &got);
	free(cuts);
	clear(&want);
	clear(&got);
}

/* Three chunks at pseudo-random cut pairs. */
static void test_watch_decoder__random_three_way_splits(void)
{
	collected want = {0};
	CU_ASSERT_EQUAL_FATAL(decode(&want, NULL, 0), 0);
	size_t len = strlen(stream);
	uint64_t s = 42;
	for (int i = 0; i < 2000; i++) {
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		size_t a = 1 + (size_t)(s >> 33) % (len - 2);
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		size_t b = a + 1 + (size_t)(s >> 33) % (len - a - 1);
		size_t cuts[2] = {a, b};
		collected got = {0};
		CU_ASSERT_EQUAL(decode(&got, cuts, 2), 0);
		assert_same(&want, &got);
		clear(&got);
	}
	clear(&want);
}

static int feed_text(const char *text, size_t max, nl_err *err, collected *c)
{
	nl_watch_decoder *d;
	CU_ASSERT_EQUAL_FATAL(nl_watch_decoder_new(&d, max, collect, c), 0);
	int rc = nl_watch_decoder_feed(d, text, strlen(text), err);
	if (rc == 0)
		rc = nl_watch_decoder_finish(d, err);
	nl_watch_decoder_free(d);
	return rc;
}

static void test_watch_decoder__whitespace_and_crlf_between_events(void)
{
	collected c = {0};
	nl_err err = {0};
	CU_ASSERT_EQUAL(feed_text("\r\n  {\"type\":\"ADDED\",\"object\":{}}\r\n\n\t"
	                          "{\"type\":\"DELETED\",\"object\":{}}",
	                          0, &err, &c),
	                0);
	CU_ASSERT_EQUAL(c.n, 2);
	clear(&c);
}

static void test_watch_decoder__malformed_json_is_parse_error(void)
{
	collected c = {0};
	nl_err err = {0};
	CU_ASSERT_EQUAL(feed_text("{\"type\":\"ADDED\",\"object\":{}}\n{\"type\":]\n", 0, &err, &c),
	                NL_EPARSE);
	CU_ASSERT_EQUAL(c.n, 1); /* the good event before it was delivered */
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "decoding watch stream"));
	clear(&c);
}

static void test_watch_decoder__unknown_type_is_refused(void)
{
	collected c = {0};
	nl_err err = {0};
	CU_ASSERT_EQUAL(feed_text("{\"type\":\"RENAMED\",\"object\":{}}\n", 0, &err, &c),
	                NL_EPARSE);
	CU_ASSERT_STRING_EQUAL(err.msg, "got invalid watch event type: RENAMED");
	CU_ASSERT_EQUAL(feed_text("{\"type\":\"ADDED\"}\n", 0, &err, &c), NL_EPARSE);
	CU_ASSERT_EQUAL(feed_text("[1,2]\n", 0, &err, &c), NL_EPARSE);
	CU_ASSERT_EQUAL(c.n, 0);
}

static void test_watch_decoder__stream_cut_inside_event(void)
{
	collected c = {0};
	nl_err err = {0};
	CU_ASSERT_EQUAL(
	    feed_text("{\"type\":\"ADDED\",\"object\":{}}\n{\"type\":\"ADD", 0, &err, &c),
	    NL_EPARSE);
	CU_ASSERT_EQUAL(c.n, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "ended inside an event"));
	clear(&c);
}

/* A capped buffer: an event over the cap fails however it is chunked, and
 * one at the cap passes. */
static void test_watch_decoder__event_size_cap(void)
{
	const char *ev = "{\"type\":\"ADDED\",\"object\":{\"data\":\"xxxxxxxxxxxxxxxxxxxx\"}}";
	size_t len = strlen(ev);
	collected c = {0};
	nl_err err = {0};
	CU_ASSERT_EQUAL(feed_text(ev, len, &err, &c), 0);
	CU_ASSERT_EQUAL(c.n, 1);
	clear(&c);
	CU_ASSERT_EQUAL(feed_text(ev, len - 1, &err, &c), NL_ETOOBIG);
	CU_ASSERT_EQUAL(c.n, 0);
	nl_watch_decoder *d;
	CU_ASSERT_EQUAL_FATAL(nl_watch_decoder_new(&d, len - 1, collect, &c), 0);
	int rc = 0;
	for (size_t i = 0; i < len && rc == 0; i++)
		rc = nl_watch_decoder_feed(d, ev + i, 1, &err);
	CU_ASSERT_EQUAL(rc, NL_ETOOBIG);
	nl_watch_decoder_free(d);
	CU_ASSERT_EQUAL(c.n, 0);
}

static void test_watch_decoder__callback_stops_decoding(void)
{
	collected c = {0};
	c.stop_after = 2;
	nl_err err = {0};
	nl_watch_decoder *d;
	CU_ASSERT_EQUAL_FATAL(nl_watch_decoder_new(&d, 0, collect, &c), 0);
	CU_ASSERT_EQUAL(nl_watch_decoder_feed(d, stream, strlen(stream), &err), 7);
	CU_ASSERT_EQUAL(c.n, 2);
	nl_watch_decoder_free(d);
	clear(&c);
}

static void test_watch_decoder__reset_forgets_partial_event(void)
{
	collected c = {0};
	nl_err err = {0};
	nl_watch_decoder *d;
	const char *good = "{\"type\":\"ADDED\",\"object\":{}}\n";
	CU_ASSERT_EQUAL_FATAL(nl_watch_decoder_new(&d, 0, collect, &c), 0);
	CU_ASSERT_EQUAL(nl_watch_decoder_feed(d, "{\"type\":\"MODI", 13, &err), 0);
	nl_watch_decoder_reset(d);
	CU_ASSERT_EQUAL(nl_watch_decoder_feed(d, good, strlen(good), &err), 0);
	CU_ASSERT_EQUAL(nl_watch_decoder_finish(d, &err), 0);
	CU_ASSERT_EQUAL_FATAL(c.n, 1);
	CU_ASSERT_STRING_EQUAL(c.text[0], "ADDED {}");
	nl_watch_decoder_free(d);
	clear(&c);
}

static void test_watch_decoder__type_names(void)
{
	CU_ASSERT_STRING_EQUAL(nl_watch_type_name(NL_WATCH_ADDED), "ADDED");
	CU_ASSERT_STRING_EQUAL(nl_watch_type_name(NL_WATCH_BOOKMARK), "BOOKMARK");
	CU_ASSERT_STRING_EQUAL(nl_watch_type_name((nl_watch_type)99), "");
}

static CU_TestInfo tests[] = {
    {"whole_stream", test_watch_decoder__whole_stream},
    {"every_split_point_gives_same_events",
     test_watch_decoder__every_split_point_gives_same_events},
    {"byte_at_a_time", test_watch_decoder__byte_at_a_time},
    {"random_three_way_splits", test_watch_decoder__random_three_way_splits},
    {"whitespace_and_crlf_between_events", test_watch_decoder__whitespace_and_crlf_between_events},
    {"malformed_json_is_parse_error", test_watch_decoder__malformed_json_is_parse_error},
    {"unknown_type_is_refused", test_watch_decoder__unknown_type_is_refused},
    {"stream_cut_inside_event", test_watch_decoder__stream_cut_inside_event},
    {"event_size_cap", test_watch_decoder__event_size_cap},
    {"callback_stops_decoding", test_watch_decoder__callback_stops_decoding},
    {"reset_forgets_partial_event", test_watch_decoder__reset_forgets_partial_event},
    {"type_names", test_watch_decoder__type_names},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {{"watch_decoder", NULL, NULL, NULL, NULL, tests},
                                 CU_SUITE_INFO_NULL};
