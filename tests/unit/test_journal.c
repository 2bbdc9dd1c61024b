/* The request journal: entry fields, the bounded ring (oldest dropped,
 * sequence numbers never reused), `since` paging and the canonical query
 * string. */
#include <stdlib.h>
#include <string.h>

#include "../cu_main.h"
#include "api/route.h"
#include "control/journal.h"

static uint64_t record(mock_journal *j, const char *path, int code)
{
	mock_req_attrs a;
	mock_request_attrs(&a, "GET", path, NULL, NULL);
	mock_journal_in in = {.time_usec = 1714557600123456LL,
	                      .method = "GET",
	                      .path = path,
	                      .attrs = &a,
	                      .query = "limit=5",
	                      .request_bytes = 0,
	                      .code = code,
	                      .reason = code == 404 ? "NotFound" : "",
	                      .user_agent = "nodelet/0.1",
	                      .user = NULL,
	                      .duration_usec = 1500,
	                      .fault = NULL};
	return mock_journal_record(j, &in);
}

static json_object *items(json_object *o)
{
	return json_object_object_get(o, "items");
}

static int64_t seq_at(json_object *o, size_t i)
{
	return json_object_get_int64(
	    json_object_object_get(json_object_array_get_idx(items(o), i), "seq"));
}

static void test_journal__entry_fields(void)
{
	mock_journal *j = NULL;
	CU_ASSERT_EQUAL_FATAL(mock_journal_new(&j, 10), 0);
	CU_ASSERT_EQUAL(
	    record(j, "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1", 404), 1);
	json_object *o = mock_journal_to_json(j, 0);
	NL_ASSERT_JSON_EQ(o,
	                  "{\"items\":[{\"seq\":1,\"time\":\"2024-05-01T10:00:00.123456Z\","
	                  "\"verb\":\"get\",\"resource\":\"leases\",\"subresource\":\"\","
	                  "\"group\":\"coordination.k8s.io\",\"namespace\":\"kube-node-lease\","
	                  "\"name\":\"n1\",\"query\":\"limit=5\",\"requestBytes\":0,\"code\":404,"
	                  "\"reason\":\"NotFound\",\"userAgent\":\"nodelet/0.1\",\"user\":\"\","
	                  "\"durationMs\":1.5,\"fault\":null,\"method\":\"GET\",\"path\":"
	                  "\"/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1\"}],"
	                  "\"lastSeq\":1}");
	json_object_put(o);
	mock_journal_free(j);
}

static void test_journal__ring_drops_the_oldest(void)
{
	mock_journal *j = NULL;
	CU_ASSERT_EQUAL_FATAL(mock_journal_new(&j, 100), 0);
	for (int i = 0; i < 250; i++)
		CU_ASSERT_EQUAL(record(j, "/version", 200), (uint64_t)i + 1);
	json_object *o = mock_journal_to_json(j, 0);
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(items(o)), 100);
	for (size_t i = 0; i < 100; i++)
		CU_ASSERT_EQUAL(seq_at(o, i), (int64_t)i + 151);
	json_object_put(o);
	/* since inside, before and after the kept range */
	o = mock_journal_to_json(j, 240);
	CU_ASSERT_EQUAL(json_object_array_length(items(o)), 10);
	CU_ASSERT_EQUAL(seq_at(o, 0), 241);
	json_object_put(o);
	o = mock_journal_to_json(j, 3);
	CU_ASSERT_EQUAL(json_object_array_length(items(o)), 100);
	json_object_put(o);
	o = mock_journal_to_json(j, 250);
	CU_ASSERT_EQUAL(json_object_array_length(items(o)), 0);
	CU_ASSERT_EQUAL(json_object_get_int64(json_object_object_get(o, "lastSeq")), 250);
	json_object_put(o);
	mock_journal_free(j);
}

static const char *field(json_object *o, size_t i, const char *key)
{
	return json_object_get_string(
	    json_object_object_get(json_object_array_get_idx(items(o), i), key));
}

/* A full ring reuses the entry it drops for the next one: entries with
 * longer and shorter strings than the dropped one both come back whole. */
static void test_journal__full_ring_keeps_entries_whole(void)
{
	static const char *const paths[] = {
	    "/version",
	    "/api/v1/namespaces/default/configmaps/a-name-longer-than-the-others-here",
	    "/api",
	    "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1",
	};
	static const char *const names[] = {"", "a-name-longer-than-the-others-here", "", "n1"};
	mock_journal *j = NULL;
	CU_ASSERT_EQUAL_FATAL(mock_journal_new(&j, 3), 0);
	for (int i = 0; i < 21; i++)
		CU_ASSERT_EQUAL(record(j, paths[i % 4], 200), (uint64_t)i + 1);
	json_object *o = mock_journal_to_json(j, 0);
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(items(o)), 3);
	for (size_t i = 0; i < 3; i++) {
		int64_t seq = seq_at(o, i);
		CU_ASSERT_EQUAL(seq, (int64_t)i + 19);
		CU_ASSERT_STRING_EQUAL(field(o, i, "path"), paths[(seq - 1) % 4]);
		CU_ASSERT_STRING_EQUAL(field(o, i, "name"), names[(seq - 1) % 4]);
		CU_ASSERT_STRING_EQUAL(field(o, i, "method"), "GET");
		CU_ASSERT_STRING_EQUAL(field(o, i, "query"), "limit=5");
		CU_ASSERT_STRING_EQUAL(field(o, i, "userAgent"), "nodelet/0.1");
		CU_ASSERT_STRING_EQUAL(field(o, i, "user"), "");
	}
	json_object_put(o);
	mock_journal_free(j);
}

static void test_journal__clear_keeps_counting(void)
{
	mock_journal *j = NULL;
	CU_ASSERT_EQUAL_FATAL(mock_journal_new(&j, 3), 0);
	record(j, "/version", 200);
	record(j, "/version", 200);
	CU_ASSERT_EQUAL(mock_journal_clear(j), 2);
	CU_ASSERT_EQUAL(record(j, "/version", 200), 3);
	json_object *o = mock_journal_to_json(j, 0);
	CU_ASSERT_EQUAL(json_object_array_length(items(o)), 1);
	CU_ASSERT_EQUAL(seq_at(o, 0), 3);
	json_object_put(o);
	mock_journal_free(j);
}

static void test_journal__size_zero_records_nothing(void)
{
	mock_journal *j = NULL;
	CU_ASSERT_EQUAL_FATAL(mock_journal_new(&j, 0), 0);
	CU_ASSERT_EQUAL(record(j, "/version", 200), 0);
	json_object *o = mock_journal_to_json(j, 0);
	CU_ASSERT_EQUAL(json_object_array_length(items(o)), 0);
	json_object_put(o);
	mock_journal_free(j);
}

static void test_journal__query_string_is_percent_encoded(void)
{
	const char *keys[] = {"labelSelector", "watch", "fieldManager", "x y"};
	const char *values[] = {"app in (a,b)", NULL, "kubectl-client-side-apply", "a&b=c/d~"};
	char *q = mock_journal_query_string(keys, values, 4);
	CU_ASSERT_STRING_EQUAL(q, "labelSelector=app%20in%20%28a%2Cb%29&watch&fieldManager=kubectl-"
	                          "client-side-apply&x%20y=a%26b%3Dc%2Fd~");
	free(q);
	q = mock_journal_query_string(keys, values, 0);
	CU_ASSERT_STRING_EQUAL(q, "");
	free(q);
}

static CU_TestInfo tests[] = {
    {"entry_fields", test_journal__entry_fields},
    {"ring_drops_the_oldest", test_journal__ring_drops_the_oldest},
    {"full_ring_keeps_entries_whole", test_journal__full_ring_keeps_entries_whole},
    {"clear_keeps_counting", test_journal__clear_keeps_counting},
    {"size_zero_records_nothing", test_journal__size_zero_records_nothing},
    {"query_string_is_percent_encoded", test_journal__query_string_is_percent_encoded},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"journal", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
