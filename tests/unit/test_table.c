/* Server-side printing: kube-apiserver's columns and cells for every served
 * kind (pkg/printers/internalversion), kubectl's human durations, and the
 * Table / PartialObjectMetadata documents wrapped around them. */
#include <nodelet/time.h>
#include <stdlib.h>
#include <string.h>

#include "../cu_main.h"
#include "encoding/table.h"

#define SEC 1000000LL
/* 2024-05-01T10:00:00Z */
#define T0 (1714557600LL * SEC)

static const char *dur(int64_t usec)
{
	static char buf[32];
	mock_human_duration(buf, usec);
	return buf;
}

static void test_table__human_duration_matches_kubectl(void)
{
	CU_ASSERT_STRING_EQUAL(dur(0), "0s");
	CU_ASSERT_STRING_EQUAL(dur(-1500000), "0s"); /* clock skew under 2 s is "now" */
	CU_ASSERT_STRING_EQUAL(dur(-2 * SEC), "<invalid>");
	CU_ASSERT_STRING_EQUAL(dur(5 * SEC + 900000), "5s");
	CU_ASSERT_STRING_EQUAL(dur(119 * SEC), "119s");
	CU_ASSERT_STRING_EQUAL(dur(120 * SEC), "2m");
	CU_ASSERT_STRING_EQUAL(dur(200 * SEC), "3m20s");
	CU_ASSERT_STRING_EQUAL(dur(10 * 60 * SEC + 59 * SEC), "10m");
	CU_ASSERT_STRING_EQUAL(dur(179 * 60 * SEC), "179m");
	CU_ASSERT_STRING_EQUAL(dur(3 * 3600 * SEC), "3h");
	CU_ASSERT_STRING_EQUAL(dur((3 * 3600 + 5 * 60) * SEC), "3h5m");
	CU_ASSERT_STRING_EQUAL(dur(47 * 3600 * SEC), "47h");
	CU_ASSERT_STRING_EQUAL(dur(48 * 3600 * SEC), "2d");
	CU_ASSERT_STRING_EQUAL(dur(50 * 3600 * SEC), "2d2h");
	CU_ASSERT_STRING_EQUAL(dur(8 * 24 * 3600 * SEC), "8d");
	CU_ASSERT_STRING_EQUAL(dur(729 * 24 * 3600 * SEC), "729d");
	CU_ASSERT_STRING_EQUAL(dur(730 * 24 * 3600 * SEC), "2y");
	CU_ASSERT_STRING_EQUAL(dur(740 * 24 * 3600 * SEC), "2y10d");
	CU_ASSERT_STRING_EQUAL(dur(9 * 365 * 24 * 3600 * SEC), "9y");
}

/* Column names, types and priorities in upstream order (descriptions spot-checked). */
static void assert_columns(mock_kind kind, const char *const *names, const int *priorities)
{
	json_object *cols = mock_table_columns(mock_resource_get(kind));
	size_t n = 0;
	while (names[n])
		n++;
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(cols), n);
	for (size_t i = 0; i < n; i++) {
		json_object *c = json_object_array_get_idx(cols, i);
		json_object *v;
		CU_ASSERT_TRUE(json_object_object_get_ex(c, "name", &v));
		CU_ASSERT_STRING_EQUAL(json_object_get_string(v), names[i]);
		CU_ASSERT_TRUE(json_object_object_get_ex(c, "type", &v));
		CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "string");
		CU_ASSERT_TRUE(json_object_object_get_ex(c, "format", &v));
		CU_ASSERT_STRING_EQUAL(json_object_get_string(v),
		                       strcmp(names[i], "Name") == 0 ? "name" : "");
		CU_ASSERT_TRUE(json_object_object_get_ex(c, "description", &v));
		CU_ASSERT_TRUE(json_object_get_string_len(v) > 0);
		CU_ASSERT_TRUE(json_object_object_get_ex(c, "priority", &v));
		CU_ASSERT_EQUAL(json_object_get_int(v), priorities[i]);
	}
	json_object_put(cols);
}

static void test_table__columns_as_upstream(void)
{
	static const char *const cm[] = {"Name", "Data", "Age", NULL};
	static const char *const lease[] = {"Name", "Holder", "Age", NULL};
	static const char *const ns[] = {"Name", "Status", "Age", NULL};
	static const char *const node[] = {"Name",
	                                   "Status",
	                                   "Roles",
	                                   "Age",
	                                   "Version",
	                                   "Internal-IP",
	                                   "External-IP",
	                                   "OS-Image",
	                                   "Kernel-Version",
	                                   "Container-Runtime",
	                                   NULL};
	static const char *const ev[] = {"Last Seen", "Type",   "Reason",  "Object",
	                                 "Subobject", "Source", "Message", "First Seen",
	                                 "Count",     "Name",   NULL};
	static const int p3[] = {0, 0, 0};
	static const int pnode[] = {0, 0, 0, 0, 0, 1, 1, 1, 1, 1};
	static const int pev[] = {0, 0, 0, 0, 1, 1, 0, 1, 1, 1};
	assert_columns(MOCK_KIND_CONFIGMAP, cm, p3);
	assert_columns(MOCK_KIND_LEASE, lease, p3);
	assert_columns(MOCK_KIND_NAMESPACE, ns, p3);
	assert_columns(MOCK_KIND_NODE, node, pnode);
	assert_columns(MOCK_KIND_EVENT, ev, pev);

	/* The exact texts kube-apiserver sends (SwaggerDoc of the fields). */
	json_object *cols = mock_table_columns(mock_resource_get(MOCK_KIND_LEASE));
	NL_ASSERT_JSON_EQ(json_object_array_get_idx(cols, 1),
	                  "{\"name\":\"Holder\",\"type\":\"string\",\"format\":\"\","
	                  "\"description\":\"holderIdentity contains the identity of the holder "
	                  "of a current lease. If Coordinated Leader Election is used, the "
	                  "holder identity must be equal to the elected "
	                  "LeaseCandidate.metadata.name field.\",\"priority\":0}");
	NL_ASSERT_JSON_EQ(
	    json_object_array_get_idx(cols, 2),
	    "{\"name\":\"Age\",\"type\":\"string\",\"format\":\"\",\"description\":"
	    "\"CreationTimestamp is a timestamp representing the server time when this object "
	    "was created. It is not guaranteed to be set in happens-before order across "
	    "separate operations. Clients may not set this value. It is represented in "
	    "RFC3339 form and is in UTC.\\n\\nPopulated by the system. Read-only. Null for "
	    "lists. More info: "
	    "https://git.k8s.io/community/contributors/devel/sig-architecture/"
	    "api-conventions.md#metadata\",\"priority\":0}");
	json_object_put(cols);
}

static void assert_cells(mock_kind kind, const char *obj, int64_t now, const char *want)
{
	json_object *o = nl_test_json(obj);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	json_object *cells = mock_table_cells(mock_resource_get(kind), o, now);
	NL_ASSERT_JSON_EQ(cells, want);
	json_object_put(cells);
	json_object_put(o);
}

static void test_table__configmap_counts_data_and_binary_data(void)
{
	assert_cells(
	    MOCK_KIND_CONFIGMAP,
	    "{\"metadata\":{\"name\":\"cm\",\"creationTimestamp\":\"2024-05-01T10:00:00Z\"},"
	    "\"data\":{\"a\":\"1\",\"b\":\"2\"},\"binaryData\":{\"c\":\"AA==\"}}",
	    T0 + 5 * SEC, "[\"cm\",3,\"5s\"]");
	/* No creationTimestamp prints as <unknown>. */
	assert_cells(MOCK_KIND_CONFIGMAP, "{\"metadata\":{\"name\":\"empty\"}}", T0,
	             "[\"empty\",0,\"<unknown>\"]");
}

static void test_table__lease_holder(void)
{
	assert_cells(MOCK_KIND_LEASE,
	             "{\"metadata\":{\"name\":\"edge-1\",\"creationTimestamp\":"
	             "\"2024-05-01T10:00:00Z\"},\"spec\":{\"holderIdentity\":\"edge-1\"}}",
	             T0 + 3 * 86400 * SEC, "[\"edge-1\",\"edge-1\",\"3d\"]");
	assert_cells(MOCK_KIND_LEASE,
	             "{\"metadata\":{\"name\":\"free\",\"creationTimestamp\":"
	             "\"2024-05-01T10:00:00Z\"},\"spec\":{}}",
	             T0 + 200 * SEC, "[\"free\",\"\",\"3m20s\"]");
}

static void test_table__node_status_roles_and_wide_columns(void)
{
	assert_cells(MOCK_KIND_NODE,
	             "{\"metadata\":{\"name\":\"edge-1\",\"creationTimestamp\":"
	             "\"2024-05-01T10:00:00Z\",\"labels\":{\"node-role.kubernetes.io/edge\":\"\","
	             "\"node-role.kubernetes.io/control-plane\":\"\",\"kubernetes.io/role\":"
	             "\"worker\"}},\"spec\":{\"unschedulable\":true},\"status\":{\"conditions\":"
	             "[{\"type\":\"MemoryPressure\",\"status\":\"False\"},{\"type\":\"Ready\","
	             "\"status\":\"True\"}],\"addresses\":[{\"type\":\"Hostname\",\"address\":"
	             "\"edge-1\"},{\"type\":\"InternalIP\",\"address\":\"10.0.0.5\"}],"
	             "\"nodeInfo\":{\"kubeletVersion\":\"v1.32.0\",\"osImage\":\"Debian\","
	             "\"kernelVersion\":\"6.1.0\",\"containerRuntimeVersion\":"
	             "\"containerd://1.7\"}}}",
	             T0 + 3600 * SEC,
	             "[\"edge-1\",\"Ready,SchedulingDisabled\",\"control-plane,edge,worker\","
	             "\"60m\",\"v1.32.0\",\"10.0.0.5\",\"<none>\",\"Debian\",\"6.1.0\","
	             "\"containerd://1.7\"]");
	assert_cells(MOCK_KIND_NODE,
	             "{\"metadata\":{\"name\":\"n2\"},\"status\":{\"conditions\":[{\"type\":"
	             "\"Ready\",\"status\":\"Unknown\"}]}}",
	             T0,
	             "[\"n2\",\"NotReady\",\"<none>\",\"<unknown>\",\"\",\"<none>\",\"<none>\","
	             "\"<unknown>\",\"<unknown>\",\"<unknown>\"]");
	/* No Ready condition at all. */
	assert_cells(MOCK_KIND_NODE, "{\"metadata\":{\"name\":\"n3\"}}", T0,
	             "[\"n3\",\"Unknown\",\"<none>\",\"<unknown>\",\"\",\"<none>\",\"<none>\","
	             "\"<unknown>\",\"<unknown>\",\"<unknown>\"]");
}

static void test_table__namespace_phase(void)
{
	assert_cells(MOCK_KIND_NAMESPACE,
	             "{\"metadata\":{\"name\":\"default\",\"creationTimestamp\":"
	             "\"2024-05-01T10:00:00Z\"},\"status\":{\"phase\":\"Active\"}}",
	             T0 + 13 * 86400 * SEC, "[\"default\",\"Active\",\"13d\"]");
}

static void test_table__event_times_object_and_source(void)
{
	assert_cells(MOCK_KIND_EVENT,
	             "{\"metadata\":{\"name\":\"edge-1.17\"},\"involvedObject\":{\"kind\":\"Node\","
	             "\"name\":\"edge-1\",\"fieldPath\":\"spec\"},\"reason\":\"Starting\","
	             "\"message\":\"  Starting nodelet.\\n\",\"source\":{\"component\":"
	             "\"nodelet\",\"host\":\"edge-1\"},\"firstTimestamp\":"
	             "\"2024-05-01T10:00:00Z\",\"lastTimestamp\":\"2024-05-01T10:01:00Z\","
	             "\"count\":3,\"type\":\"Normal\"}",
	             T0 + 120 * SEC,
	             "[\"60s\",\"Normal\",\"Starting\",\"node/edge-1\",\"spec\","
	             "\"nodelet, edge-1\",\"Starting nodelet.\",\"2m\",3,\"edge-1.17\"]");
	/* events.k8s.io-style: eventTime only, reporting fields, no count. */
	assert_cells(MOCK_KIND_EVENT,
	             "{\"metadata\":{\"name\":\"e2\"},\"involvedObject\":{\"kind\":\"Lease\"},"
	             "\"eventTime\":\"2024-05-01T10:00:00.000000Z\",\"reportingComponent\":"
	             "\"nodelet\",\"reportingInstance\":\"\",\"type\":\"Warning\"}",
	             T0 + 10 * SEC,
	             "[\"10s\",\"Warning\",\"\",\"lease\",\"\",\"nodelet\",\"\",\"10s\",1,"
	             "\"e2\"]");
	/* A series replaces last seen and count. */
	assert_cells(MOCK_KIND_EVENT,
	             "{\"metadata\":{\"name\":\"e3\"},\"involvedObject\":{\"kind\":\"Node\","
	             "\"name\":\"n\"},\"firstTimestamp\":\"2024-05-01T10:00:00Z\",\"series\":"
	             "{\"count\":7,\"lastObservedTime\":\"2024-05-01T10:00:30.000000Z\"}}",
	             T0 + 60 * SEC,
	             "[\"30s\",\"\",\"\",\"node/n\",\"\",\"\",\"\",\"60s\",7,\"e3\"]");
}

static json_object *build(int list, mock_kind kind, const char *json, const mock_table_opts *o)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	int rc = list ? mock_table_list(&b, mock_resource_get(kind), json, strlen(json), o)
	              : mock_table_object(&b, mock_resource_get(kind), json, strlen(json), o);
	CU_ASSERT_EQUAL(rc, 0);
	json_object *t = rc == 0 ? json_tokener_parse(b.data) : NULL;
	nl_buf_free(&b);
	return t;
}

static const char lease_list[] =
    "{\"kind\":\"LeaseList\",\"apiVersion\":\"coordination.k8s.io/v1\",\"metadata\":{"
    "\"resourceVersion\":\"42\",\"continue\":\"tok\",\"remainingItemCount\":3},\"items\":[{"
    "\"metadata\":{\"name\":\"a\",\"namespace\":\"kube-node-lease\",\"uid\":\"u1\","
    "\"resourceVersion\":\"7\",\"creationTimestamp\":\"2024-05-01T10:00:00Z\"},\"spec\":{"
    "\"holderIdentity\":\"a\"}}]}";

static void test_table__list_keeps_list_metadata_and_partial_rows(void)
{
	mock_table_opts o = {"v1", MOCK_INCLUDE_METADATA, 0, T0 + 5 * SEC};
	json_object *t = build(1, MOCK_KIND_LEASE, lease_list, &o);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(t, "kind")), "Table");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(t, "apiVersion")),
	                       "meta.k8s.io/v1");
	NL_ASSERT_JSON_EQ(json_object_object_get(t, "metadata"),
	                  "{\"resourceVersion\":\"42\",\"continue\":\"tok\","
	                  "\"remainingItemCount\":3}");
	CU_ASSERT_EQUAL(json_object_array_length(json_object_object_get(t, "columnDefinitions")),
	                3);
	NL_ASSERT_JSON_EQ(json_object_object_get(t, "rows"),
	                  "[{\"cells\":[\"a\",\"a\",\"5s\"],\"object\":{\"kind\":"
	                  "\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\","
	                  "\"metadata\":{\"name\":\"a\",\"namespace\":\"kube-node-lease\","
	                  "\"uid\":\"u1\",\"resourceVersion\":\"7\",\"creationTimestamp\":"
	                  "\"2024-05-01T10:00:00Z\"}}}]");
	json_object_put(t);
}

static void test_table__include_object_and_none(void)
{
	mock_table_opts o = {"v1beta1", MOCK_INCLUDE_OBJECT, 0, T0};
	json_object *t = build(1, MOCK_KIND_LEASE, lease_list, &o);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(t, "apiVersion")),
	                       "meta.k8s.io/v1beta1");
	json_object *row = json_object_array_get_idx(json_object_object_get(t, "rows"), 0);
	/* The whole object, with its own kind and apiVersion. */
	NL_ASSERT_JSON_EQ(json_object_object_get(row, "object"),
	                  "{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\","
	                  "\"metadata\":{\"name\":\"a\",\"namespace\":\"kube-node-lease\","
	                  "\"uid\":\"u1\",\"resourceVersion\":\"7\",\"creationTimestamp\":"
	                  "\"2024-05-01T10:00:00Z\"},\"spec\":{\"holderIdentity\":\"a\"}}");
	json_object_put(t);

	o.include = MOCK_INCLUDE_NONE;
	t = build(1, MOCK_KIND_LEASE, lease_list, &o);
	row = json_object_array_get_idx(json_object_object_get(t, "rows"), 0);
	json_object *obj = (json_object *)1;
	CU_ASSERT_TRUE(json_object_object_get_ex(row, "object", &obj));
	CU_ASSERT_PTR_NULL(obj);
	json_object_put(t);
}

static void test_table__single_object_and_no_headers(void)
{
	static const char cm[] = "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{"
	                         "\"name\":\"c\",\"namespace\":\"default\",\"resourceVersion\":"
	                         "\"9\",\"creationTimestamp\":\"2024-05-01T10:00:00Z\"},"
	                         "\"data\":{\"k\":\"v\"}}";
	mock_table_opts o = {"v1", MOCK_INCLUDE_METADATA, 1, T0 + 60 * SEC};
	json_object *t = build(0, MOCK_KIND_CONFIGMAP, cm, &o);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	NL_ASSERT_JSON_EQ(json_object_object_get(t, "metadata"), "{\"resourceVersion\":\"9\"}");
	json_object *cols = (json_object *)1;
	CU_ASSERT_TRUE(json_object_object_get_ex(t, "columnDefinitions", &cols));
	CU_ASSERT_PTR_NULL(cols);
	json_object *row = json_object_array_get_idx(json_object_object_get(t, "rows"), 0);
	NL_ASSERT_JSON_EQ(json_object_object_get(row, "cells"), "[\"c\",1,\"60s\"]");
	json_object_put(t);
	/* Key order is the apiserver's. */
	nl_buf b;
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL(
	    mock_table_object(&b, mock_resource_get(MOCK_KIND_CONFIGMAP), cm, strlen(cm), &o), 0);
	static const char prefix[] =
	    "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":{"
	    "\"resourceVersion\":\"9\"},\"columnDefinitions\":null,\"rows\":[{\"cells\":";
	CU_ASSERT_EQUAL(strncmp(b.data, prefix, strlen(prefix)), 0);
	nl_buf_free(&b);
}

static void test_table__partial_object_metadata(void)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL(mock_partial_list(&b, lease_list, strlen(lease_list), "v1"), 0);
	json_object *l = json_tokener_parse(b.data);
	NL_ASSERT_JSON_EQ(l, "{\"kind\":\"PartialObjectMetadataList\",\"apiVersion\":"
	                     "\"meta.k8s.io/v1\",\"metadata\":{\"resourceVersion\":\"42\","
	                     "\"continue\":\"tok\",\"remainingItemCount\":3},\"items\":[{\"kind\":"
	                     "\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\","
	                     "\"metadata\":{\"name\":\"a\",\"namespace\":\"kube-node-lease\","
	                     "\"uid\":\"u1\",\"resourceVersion\":\"7\",\"creationTimestamp\":"
	                     "\"2024-05-01T10:00:00Z\"}}]}");
	json_object_put(l);
	nl_buf_reset(&b);
	static const char node[] =
	    "{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":"
	    "\"n\"},\"spec\":{}}";
	CU_ASSERT_EQUAL(mock_partial_object(&b, node, strlen(node), "v1beta1"), 0);
	CU_ASSERT_STRING_EQUAL(b.data, "{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":"
	                               "\"meta.k8s.io/v1beta1\",\"metadata\":{\"name\":\"n\"}}");
	CU_ASSERT_EQUAL(mock_partial_object(&b, "[1]", 3, "v1"), NL_EPARSE);
	nl_buf_free(&b);
}

static void test_table__include_object_parameter(void)
{
	mock_include_object inc = MOCK_INCLUDE_NONE;
	nl_status *st = NULL;
	CU_ASSERT_EQUAL(mock_table_parse_include(&inc, NULL, &st), 0);
	CU_ASSERT_EQUAL(inc, MOCK_INCLUDE_METADATA);
	CU_ASSERT_EQUAL(mock_table_parse_include(&inc, "Object", &st), 0);
	CU_ASSERT_EQUAL(inc, MOCK_INCLUDE_OBJECT);
	CU_ASSERT_EQUAL(mock_table_parse_include(&inc, "None", &st), 0);
	CU_ASSERT_EQUAL(inc, MOCK_INCLUDE_NONE);
	CU_ASSERT_EQUAL(mock_table_parse_include(&inc, "Everything", &st), NL_EBADREQUEST);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_EQUAL(st->code, 400);
	CU_ASSERT_STRING_EQUAL(
	    st->message, "Unable to convert to Table as requested: includeObject: Unsupported "
	                 "value: \"Everything\": supported values: \"Metadata\", \"None\", "
	                 "\"Object\"");
	CU_ASSERT_EQUAL(inc, MOCK_INCLUDE_NONE);
	nl_status_free(st);
}

static void test_table__watch_events_send_headers_once(void)
{
	static const char lease[] = "{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\","
	                            "\"metadata\":{\"name\":\"l\",\"resourceVersion\":\"5\"},"
	                            "\"spec\":{\"holderIdentity\":\"h\"}}";
	mock_table_watch *w = NULL;
	const mock_resource *r = mock_resource_get(MOCK_KIND_LEASE);
	CU_ASSERT_EQUAL_FATAL(mock_table_watch_new(&w, "v1", MOCK_INCLUDE_METADATA), 0);
	nl_buf b;
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL(mock_table_watch_encode(&b, r, "ADDED", lease, strlen(lease), w), 0);
	json_object *t = json_tokener_parse(b.data);
	CU_ASSERT_EQUAL(json_object_array_length(json_object_object_get(t, "columnDefinitions")),
	                3);
	json_object *row = json_object_array_get_idx(json_object_object_get(t, "rows"), 0);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(
	                           json_object_object_get(row, "cells"), 1)),
	                       "h");
	json_object_put(t);
	nl_buf_reset(&b);
	CU_ASSERT_EQUAL(mock_table_watch_encode(&b, r, "MODIFIED", lease, strlen(lease), w), 0);
	t = json_tokener_parse(b.data);
	json_object *cols = (json_object *)1;
	CU_ASSERT_TRUE(json_object_object_get_ex(t, "columnDefinitions", &cols));
	CU_ASSERT_PTR_NULL(cols);
	NL_ASSERT_JSON_EQ(json_object_object_get(t, "metadata"), "{\"resourceVersion\":\"5\"}");
	json_object_put(t);
	nl_buf_free(&b);
	mock_table_watch_free(w);
}

static CU_TestInfo tests[] = {
    {"human_duration_matches_kubectl", test_table__human_duration_matches_kubectl},
    {"columns_as_upstream", test_table__columns_as_upstream},
    {"configmap_counts_data_and_binary_data", test_table__configmap_counts_data_and_binary_data},
    {"lease_holder", test_table__lease_holder},
    {"node_status_roles_and_wide_columns", test_table__node_status_roles_and_wide_columns},
    {"namespace_phase", test_table__namespace_phase},
    {"event_times_object_and_source", test_table__event_times_object_and_source},
    {"list_keeps_list_metadata_and_partial_rows",
     test_table__list_keeps_list_metadata_and_partial_rows},
    {"include_object_and_none", test_table__include_object_and_none},
    {"single_object_and_no_headers", test_table__single_object_and_no_headers},
    {"partial_object_metadata", test_table__partial_object_metadata},
    {"include_object_parameter", test_table__include_object_parameter},
    {"watch_events_send_headers_once", test_table__watch_events_send_headers_once},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"table", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
