/* mockapi/api/schema.c and the kind tables in mockapi/api/resources.c: request
 * bodies decode as kube-apiserver 1.32 decodes them into the Go types. */
#include "../cu_main.h"

#include "api/resources.h"
#include "api/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Decode text as kind k; the caller puts the result. */
static json_object *decode(mock_kind k, const char *text, mock_unknown_fields *unknown)
{
	json_object *in = nl_test_json(text), *out = NULL;
	nl_err err = {0, ""};
	int rc = mock_schema_decode(&out, mock_resource_get(k), in, unknown, &err);
	if (rc != 0)
		fprintf(stderr, "\n  unexpected decode error: %s\n", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	json_object_put(in);
	return out;
}

/* Key order matters here, so compare the serialized text. */
static void assert_text(json_object *obj, const char *expected)
{
	const char *actual = json_object_to_json_string_ext(
	    obj, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	int same = actual && strcmp(actual, expected) == 0;
	if (!same)
		fprintf(stderr, "\n  expected: %s\n  actual:   %s\n", expected, actual);
	CU_ASSERT_TRUE(same);
}

static void assert_decodes_to(mock_kind k, const char *text, const char *expected)
{
	json_object *out = decode(k, text, NULL);
	assert_text(out, expected);
	json_object_put(out);
}

/* A 400: NL_EBADREQUEST, Go's message, *out untouched. */
static void assert_decode_error(mock_kind k, const char *text, const char *msg)
{
	json_object *in = nl_test_json(text);
	json_object *out = (json_object *)&out;
	mock_unknown_fields unknown = {NULL, 0};
	nl_err err = {0, ""};
	int rc = mock_schema_decode(&out, mock_resource_get(k), in, &unknown, &err);
	CU_ASSERT_EQUAL(rc, NL_EBADREQUEST);
	CU_ASSERT_EQUAL(err.code, NL_EBADREQUEST);
	CU_ASSERT_PTR_EQUAL(out, (json_object *)&out);
	CU_ASSERT_EQUAL(unknown.n, 0);
	if (strcmp(err.msg, msg) != 0)
		fprintf(stderr, "\n  expected: %s\n  actual:   %s\n", msg, err.msg);
	CU_ASSERT_STRING_EQUAL(err.msg, msg);
	json_object_put(in);
}

#define NODE_INFO_EMPTY                                                                           \
	"\"nodeInfo\":{\"machineID\":\"\",\"systemUUID\":\"\",\"bootID\":\"\",\"kernelVersion\":" \
	"\"\","                                                                                   \
	"\"osImage\":\"\",\"containerRuntimeVersion\":\"\",\"kubeletVersion\":\"\","              \
	"\"kubeProxyVersion\":\"\",\"operatingSystem\":\"\",\"architecture\":\"\"}"
#define NODE_STATUS_EMPTY \
	"\"status\":{\"daemonEndpoints\":{\"kubeletEndpoint\":{\"Port\":0}}," NODE_INFO_EMPTY "}"

/* ------------------------------------------------------------ output form */

static void test_schema__lease_fields_come_out_in_go_order(void)
{
	assert_decodes_to(
	    MOCK_KIND_LEASE,
	    "{\"spec\":{\"renewTime\":\"2024-05-01T10:00:00.123456Z\",\"leaseDurationSeconds\":40,"
	    "\"holderIdentity\":\"n1\"},\"metadata\":{\"namespace\":\"kube-node-lease\","
	    "\"name\":\"n1\"},\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\"}",
	    "{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\",\"metadata\":{\"name\":"
	    "\"n1\",\"namespace\":\"kube-node-lease\",\"creationTimestamp\":null},\"spec\":{"
	    "\"holderIdentity\":\"n1\",\"leaseDurationSeconds\":40,\"renewTime\":"
	    "\"2024-05-01T10:00:00.123456Z\"}}");
}

static void test_schema__kind_and_api_version_are_the_resources(void)
{
	assert_decodes_to(
	    MOCK_KIND_LEASE, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\"}}",
	    "{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\",\"metadata\":"
	    "{\"name\":\"x\",\"creationTimestamp\":null},\"spec\":{}}");
}

/* Struct values are always written (omitempty never drops a struct), and
 * NodeSystemInfo's fields have no omitempty at all. */
static void test_schema__node_writes_struct_values_even_when_empty(void)
{
	assert_decodes_to(MOCK_KIND_NODE, "{\"metadata\":{\"name\":\"n1\"}}",
	                  "{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"n1\","
	                  "\"creationTimestamp\":null},\"spec\":{}," NODE_STATUS_EMPTY "}");
}

/* metav1.Time/MicroTime struct values write null when zero; Event's
 * reportingComponent and reportingInstance have no omitempty. */
static void test_schema__event_zero_times_are_null(void)
{
	assert_decodes_to(
	    MOCK_KIND_EVENT,
	    "{\"metadata\":{\"name\":\"e\",\"namespace\":\"default\"},\"involvedObject\":{\"name\":"
	    "\"n1\",\"kind\":\"Node\"},\"reason\":\"Started\",\"type\":\"Normal\",\"count\":1,"
	    "\"source\":{\"component\":\"nodelet\"},\"firstTimestamp\":"
	    "\"2024-05-01T12:00:00+02:00\"}",
	    "{\"kind\":\"Event\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"e\",\"namespace\":"
	    "\"default\",\"creationTimestamp\":null},\"involvedObject\":{\"kind\":\"Node\","
	    "\"name\":"
	    "\"n1\"},\"reason\":\"Started\",\"source\":{\"component\":\"nodelet\"},"
	    "\"firstTimestamp\":\"2024-05-01T10:00:00Z\",\"lastTimestamp\":null,\"count\":1,"
	    "\"type\":\"Normal\",\"eventTime\":null,\"reportingComponent\":\"\","
	    "\"reportingInstance\":\"\"}");
}

static void test_schema__maps_are_written_with_sorted_keys(void)
{
	assert_decodes_to(
	    MOCK_KIND_CONFIGMAP,
	    "{\"metadata\":{\"name\":\"c\",\"labels\":{\"b\":\"1\",\"a\":\"2\"}},"
	    "\"data\":{\"z\":\"1\",\"B\":\"2\",\"a\":\"3\"}}",
	    "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"c\","
	    "\"creationTimestamp\":null,\"labels\":{\"a\":\"2\",\"b\":\"1\"}},\"data\":{"
	    "\"B\":\"2\",\"a\":\"3\",\"z\":\"1\"}}");
}

/* Empty strings, maps, slices and false are dropped; pointer fields keep
 * their zero values. */
static void test_schema__omitempty_drops_empty_values_but_keeps_pointers(void)
{
	assert_decodes_to(
	    MOCK_KIND_CONFIGMAP,
	    "{\"metadata\":{\"name\":\"c\",\"generateName\":\"\",\"labels\":{},"
	    "\"finalizers\":[],\"generation\":0},\"data\":{},\"binaryData\":{},"
	    "\"immutable\":false}",
	    "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"c\","
	    "\"creationTimestamp\":null},\"immutable\":false}");
	assert_decodes_to(
	    MOCK_KIND_LEASE,
	    "{\"metadata\":{\"name\":\"x\"},\"spec\":{\"holderIdentity\":\"\","
	    "\"leaseTransitions\":0}}",
	    "{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\",\"metadata\":"
	    "{\"name\":\"x\",\"creationTimestamp\":null},\"spec\":{\"holderIdentity\":\"\","
	    "\"leaseTransitions\":0}}");
	/* ContainerImage.names has no omitempty: a missing one is null */
	assert_decodes_to(MOCK_KIND_NODE,
	                  "{\"metadata\":{\"name\":\"n\"},\"spec\":{\"unschedulable\":false,"
	                  "\"configSource\":{}},\"status\":{\"images\":[{\"sizeBytes\":5}]}}",
	                  "{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"n\","
	                  "\"creationTimestamp\":null},\"spec\":{\"configSource\":{}},\"status\":{"
	                  "\"daemonEndpoints\":{\"kubeletEndpoint\":{\"Port\":0}}," NODE_INFO_EMPTY
	                  ","
	                  "\"images\":[{\"names\":null,\"sizeBytes\":5}]}}");
}

/* null leaves a field unset; inside a map[string]string it is "". */
static void test_schema__null_values_are_absent(void)
{
	assert_decodes_to(
	    MOCK_KIND_LEASE,
	    "{\"metadata\":{\"name\":\"x\",\"labels\":null,\"uid\":null},\"spec\":{"
	    "\"holderIdentity\":null,\"renewTime\":null}}",
	    "{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\",\"metadata\":"
	    "{\"name\":\"x\",\"creationTimestamp\":null},\"spec\":{}}");
	assert_decodes_to(
	    MOCK_KIND_CONFIGMAP, "{\"metadata\":{\"name\":\"c\"},\"data\":{\"a\":null}}",
	    "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"c\","
	    "\"creationTimestamp\":null},\"data\":{\"a\":\"\"}}");
}

/* CoordinatedLeaderElection is off in 1.32: both fields vanish on write. */
static void test_schema__lease_strategy_and_preferred_holder_are_dropped(void)
{
	mock_unknown_fields unknown = {NULL, 0};
	json_object *out =
	    decode(MOCK_KIND_LEASE,
	           "{\"metadata\":{\"name\":\"x\"},\"spec\":{\"holderIdentity\":\"a\","
	           "\"strategy\":\"OldestEmulationVersion\",\"preferredHolder\":\"b\"}}",
	           &unknown);
	assert_text(out,
	            "{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\",\"metadata\":"
	            "{\"name\":\"x\",\"creationTimestamp\":null},\"spec\":{\"holderIdentity\":"
	            "\"a\"}}");
	CU_ASSERT_EQUAL(unknown.n, 0); /* known fields, so no warning */
	mock_unknown_fields_free(&unknown);
	json_object_put(out);
	/* ... but they are still type-checked */
	assert_decode_error(
	    MOCK_KIND_LEASE, "{\"spec\":{\"strategy\":1}}",
	    "json: cannot unmarshal number into Go struct field LeaseSpec.spec.strategy "
	    "of type v1.CoordinatedLeaseStrategy");
}

static void test_schema__managed_fields_are_typed(void)
{
	assert_decodes_to(
	    MOCK_KIND_CONFIGMAP,
	    "{\"metadata\":{\"name\":\"c\",\"managedFields\":[{\"fieldsV1\":{\"f:data\":{}},"
	    "\"time\":\"2024-05-01T10:00:00Z\",\"operation\":\"Update\",\"manager\":\"kubectl\","
	    "\"fieldsType\":\"FieldsV1\",\"apiVersion\":\"v1\"}]}}",
	    "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"c\","
	    "\"creationTimestamp\":null,\"managedFields\":[{\"manager\":\"kubectl\",\"operation\":"
	    "\"Update\",\"apiVersion\":\"v1\",\"time\":\"2024-05-01T10:00:00Z\",\"fieldsType\":"
	    "\"FieldsV1\",\"fieldsV1\":{\"f:data\":{}}}]}}");
}

/* ------------------------------------------------------- unknown fields */

static void test_schema__unknown_fields_are_reported_and_dropped(void)
{
	mock_unknown_fields unknown = {NULL, 0};
	json_object *out =
	    decode(MOCK_KIND_NODE,
	           "{\"metadata\":{\"name\":\"n\",\"labels\":{\"anything\":\"goes\"},\"zzz\":1},"
	           "\"spec\":{\"foo\":1,\"taints\":[{\"key\":\"k\",\"effect\":\"NoSchedule\"},"
	           "{\"key\":\"k2\",\"effect\":\"NoExecute\",\"bar\":true}]},\"Status\":{},"
	           "\"extra\":\"x\"}",
	           &unknown);
	CU_ASSERT_EQUAL_FATAL(unknown.n, 5);
	CU_ASSERT_STRING_EQUAL(unknown.paths[0], "metadata.zzz");
	CU_ASSERT_STRING_EQUAL(unknown.paths[1], "spec.foo");
	CU_ASSERT_STRING_EQUAL(unknown.paths[2], "spec.taints[1].bar");
	CU_ASSERT_STRING_EQUAL(unknown.paths[3], "Status"); /* names are case-sensitive */
	CU_ASSERT_STRING_EQUAL(unknown.paths[4], "extra");
	assert_text(out, "{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"n\","
	                 "\"creationTimestamp\":null,\"labels\":{\"anything\":\"goes\"}},\"spec\":{"
	                 "\"taints\":[{\"key\":\"k\",\"effect\":\"NoSchedule\"},{\"key\":\"k2\","
	                 "\"effect\":\"NoExecute\"}]}," NODE_STATUS_EMPTY "}");
	mock_unknown_fields_free(&unknown);
	CU_ASSERT_EQUAL(unknown.n, 0);
	CU_ASSERT_PTR_NULL(unknown.paths);
	json_object_put(out);
}

/* ---------------------------------------------------------- type errors */

static void test_schema__int32_errors_use_gos_text(void)
{
	assert_decode_error(MOCK_KIND_LEASE, "{\"spec\":{\"leaseDurationSeconds\":\"40\"}}",
	                    "json: cannot unmarshal string into Go struct field "
	                    "LeaseSpec.spec.leaseDurationSeconds of type int32");
	assert_decode_error(MOCK_KIND_LEASE, "{\"spec\":{\"leaseDurationSeconds\":1.5}}",
	                    "json: cannot unmarshal number 1.5 into Go struct field "
	                    "LeaseSpec.spec.leaseDurationSeconds of type int32");
	assert_decode_error(MOCK_KIND_LEASE, "{\"spec\":{\"leaseDurationSeconds\":1.0}}",
	                    "json: cannot unmarshal number 1.0 into Go struct field "
	                    "LeaseSpec.spec.leaseDurationSeconds of type int32");
	assert_decode_error(MOCK_KIND_LEASE, "{\"spec\":{\"leaseTransitions\":3000000000}}",
	                    "json: cannot unmarshal number 3000000000 into Go struct field "
	                    "LeaseSpec.spec.leaseTransitions of type int32");
	assert_decode_error(MOCK_KIND_LEASE, "{\"spec\":{\"leaseTransitions\":true}}",
	                    "json: cannot unmarshal bool into Go struct field "
	                    "LeaseSpec.spec.leaseTransitions of type int32");
	assert_decode_error(
	    MOCK_KIND_NODE,
	    "{\"status\":{\"daemonEndpoints\":{\"kubeletEndpoint\":"
	    "{\"Port\":[]}}}}",
	    "json: cannot unmarshal array into Go struct field "
	    "DaemonEndpoint.status.daemonEndpoints.kubeletEndpoint.Port of type int32");
}

static void test_schema__int64_errors_use_gos_text(void)
{
	assert_decode_error(MOCK_KIND_CONFIGMAP, "{\"metadata\":{\"generation\":1e3}}",
	                    "json: cannot unmarshal number 1e3 into Go struct field "
	                    "ObjectMeta.metadata.generation of type int64");
	assert_decode_error(
	    MOCK_KIND_CONFIGMAP, "{\"metadata\":{\"generation\":9223372036854775808}}",
	    "json: cannot unmarshal number 9223372036854775808 into Go struct field "
	    "ObjectMeta.metadata.generation of type int64");
}

static void test_schema__string_and_bool_errors_use_gos_text(void)
{
	assert_decode_error(MOCK_KIND_LEASE, "{\"spec\":{\"holderIdentity\":5}}",
	                    "json: cannot unmarshal number into Go struct field "
	                    "LeaseSpec.spec.holderIdentity of type string");
	assert_decode_error(MOCK_KIND_NODE, "{\"spec\":{\"unschedulable\":\"yes\"}}",
	                    "json: cannot unmarshal string into Go struct field "
	                    "NodeSpec.spec.unschedulable of type bool");
	assert_decode_error(
	    MOCK_KIND_CONFIGMAP, "{\"metadata\":{\"uid\":{}}}",
	    "json: cannot unmarshal object into Go struct field ObjectMeta.metadata.uid "
	    "of type types.UID");
	assert_decode_error(MOCK_KIND_NODE, "{\"spec\":{\"taints\":[{\"effect\":5}]}}",
	                    "json: cannot unmarshal number into Go struct field "
	                    "Taint.spec.taints.effect of type v1.TaintEffect");
	assert_decode_error(
	    MOCK_KIND_CONFIGMAP, "{\"kind\":1}",
	    "json: cannot unmarshal number into Go struct field ConfigMap.kind of type "
	    "string");
}

static void test_schema__map_array_and_struct_errors_use_gos_text(void)
{
	assert_decode_error(
	    MOCK_KIND_CONFIGMAP, "{\"data\":[]}",
	    "json: cannot unmarshal array into Go struct field ConfigMap.data of type "
	    "map[string]string");
	/* map values and slice elements name the element type, not the key */
	assert_decode_error(
	    MOCK_KIND_CONFIGMAP, "{\"data\":{\"a\":1}}",
	    "json: cannot unmarshal number into Go struct field ConfigMap.data of type "
	    "string");
	assert_decode_error(MOCK_KIND_CONFIGMAP, "{\"metadata\":{\"labels\":\"x\"}}",
	                    "json: cannot unmarshal string into Go struct field "
	                    "ObjectMeta.metadata.labels of type map[string]string");
	assert_decode_error(MOCK_KIND_CONFIGMAP, "{\"metadata\":{\"finalizers\":\"x\"}}",
	                    "json: cannot unmarshal string into Go struct field "
	                    "ObjectMeta.metadata.finalizers of type []string");
	assert_decode_error(MOCK_KIND_CONFIGMAP, "{\"metadata\":{\"finalizers\":[\"a\",1]}}",
	                    "json: cannot unmarshal number into Go struct field "
	                    "ObjectMeta.metadata.finalizers of type string");
	assert_decode_error(
	    MOCK_KIND_NODE, "{\"spec\":{\"taints\":[\"x\"]}}",
	    "json: cannot unmarshal string into Go struct field NodeSpec.spec.taints "
	    "of type v1.Taint");
	assert_decode_error(MOCK_KIND_LEASE, "{\"spec\":\"x\"}",
	                    "json: cannot unmarshal string into Go struct field Lease.spec of type "
	                    "v1.LeaseSpec");
	assert_decode_error(
	    MOCK_KIND_LEASE, "{\"metadata\":[]}",
	    "json: cannot unmarshal array into Go struct field Lease.metadata of type "
	    "v1.ObjectMeta");
	assert_decode_error(MOCK_KIND_LEASE, "[]",
	                    "json: cannot unmarshal array into Go value of type v1.Lease");
}

/* encoding/json keeps the first type error and goes on decoding. */
static void test_schema__first_type_error_is_reported(void)
{
	assert_decode_error(MOCK_KIND_LEASE,
	                    "{\"spec\":{\"holderIdentity\":1,\"leaseDurationSeconds\":\"x\"}}",
	                    "json: cannot unmarshal number into Go struct field "
	                    "LeaseSpec.spec.holderIdentity of type string");
}

/* An UnmarshalJSON error (metav1.Time) stops decoding and wins. */
static void test_schema__time_error_wins_over_earlier_type_error(void)
{
	assert_decode_error(MOCK_KIND_LEASE,
	                    "{\"spec\":{\"holderIdentity\":1,\"renewTime\":\"soon\"}}",
	                    "parsing time \"soon\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot "
	                    "parse \"soon\" as \"2006\"");
}

/* ----------------------------------------------------------------- times */

static void test_schema__microtime_needs_exactly_six_digits(void)
{
	assert_decode_error(
	    MOCK_KIND_LEASE, "{\"spec\":{\"renewTime\":\"2024-05-01T10:00:00Z\"}}",
	    "parsing time \"2024-05-01T10:00:00Z\" as "
	    "\"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\"");
	assert_decode_error(MOCK_KIND_LEASE,
	                    "{\"spec\":{\"acquireTime\":\"2024-05-01T10:00:00.123Z\"}}",
	                    "parsing time \"2024-05-01T10:00:00.123Z\" as "
	                    "\"2006-01-02T15:04:05.000000Z07:00\": cannot parse \".123Z\" as "
	                    "\".000000\"");
	assert_decode_error(
	    MOCK_KIND_LEASE, "{\"spec\":{\"renewTime\":\"2024-05-01T10:00:00.1234567Z\"}}",
	    "parsing time \"2024-05-01T10:00:00.1234567Z\" as "
	    "\"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"7Z\" as \"Z07:00\"");
	assert_decode_error(MOCK_KIND_LEASE, "{\"spec\":{\"renewTime\":5}}",
	                    "json: cannot unmarshal number into Go struct field "
	                    "LeaseSpec.spec.renewTime of type string");
	assert_decodes_to(
	    MOCK_KIND_LEASE,
	    "{\"metadata\":{\"name\":\"x\"},\"spec\":{\"renewTime\":"
	    "\"2024-05-01T12:00:00.000001+02:00\"}}",
	    "{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\",\"metadata\":"
	    "{\"name\":\"x\",\"creationTimestamp\":null},\"spec\":{\"renewTime\":"
	    "\"2024-05-01T10:00:00.000001Z\"}}");
}

static void test_schema__time_is_normalized_to_utc_seconds(void)
{
	assert_decodes_to(
	    MOCK_KIND_CONFIGMAP,
	    "{\"metadata\":{\"name\":\"c\",\"creationTimestamp\":"
	    "\"2024-05-01T01:30:00.987-08:30\",\"deletionTimestamp\":"
	    "\"0001-01-01T00:00:00Z\"}}",
	    "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"c\","
	    "\"creationTimestamp\":\"2024-05-01T10:00:00Z\",\"deletionTimestamp\":null}}");
}

static void test_schema__bad_times_use_gos_parse_errors(void)
{
	assert_decode_error(MOCK_KIND_CONFIGMAP,
	                    "{\"metadata\":{\"creationTimestamp\":\"2024-13-01T00:00:00Z\"}}",
	                    "parsing time \"2024-13-01T00:00:00Z\": month out of range");
	assert_decode_error(MOCK_KIND_CONFIGMAP,
	                    "{\"metadata\":{\"creationTimestamp\":\"2023-02-29T00:00:00Z\"}}",
	                    "parsing time \"2023-02-29T00:00:00Z\": day out of range");
	assert_decode_error(
	    MOCK_KIND_CONFIGMAP, "{\"metadata\":{\"creationTimestamp\":\"2024-05-01 10:00:00Z\"}}",
	    "parsing time \"2024-05-01 10:00:00Z\" as \"2006-01-02T15:04:05Z07:00\": "
	    "cannot parse \" 10:00:00Z\" as \"T\"");
	assert_decode_error(MOCK_KIND_CONFIGMAP,
	                    "{\"metadata\":{\"creationTimestamp\":\"2024-05-01T10:00:00Zjunk\"}}",
	                    "parsing time \"2024-05-01T10:00:00Zjunk\": extra text: \"junk\"");
	assert_decode_error(
	    MOCK_KIND_NODE,
	    "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"lastHeartbeatTime\":"
	    "\"2024-05-01T10:00:00\"}]}}",
	    "parsing time \"2024-05-01T10:00:00\" as \"2006-01-02T15:04:05Z07:00\": "
	    "cannot parse \"\" as \"Z07:00\"");
	assert_decode_error(MOCK_KIND_NODE,
	                    "{\"status\":{\"conditions\":[{\"lastHeartbeatTime\":1}]}}",
	                    "json: cannot unmarshal number into Go struct field "
	                    "NodeCondition.status.conditions.lastHeartbeatTime of type string");
}

/* ------------------------------------------------------------ binaryData */

static void test_schema__binary_data_is_checked_and_reencoded(void)
{
	assert_decodes_to(
	    MOCK_KIND_CONFIGMAP,
	    "{\"metadata\":{\"name\":\"c\"},\"binaryData\":{\"b\":\"aGVs\\nbG8=\","
	    "\"a\":\"\",\"c\":null}}",
	    "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"c\","
	    "\"creationTimestamp\":null},\"binaryData\":{\"a\":\"\",\"b\":\"aGVsbG8=\","
	    "\"c\":null}}");
	assert_decode_error(MOCK_KIND_CONFIGMAP, "{\"binaryData\":{\"k\":\"not base64!\"}}",
	                    "illegal base64 data at input byte 3");
	assert_decode_error(MOCK_KIND_CONFIGMAP, "{\"binaryData\":{\"k\":\"aGVsbG8\"}}",
	                    "illegal base64 data at input byte 4");
	assert_decode_error(MOCK_KIND_CONFIGMAP, "{\"binaryData\":{\"k\":\"aGVsbA=x\"}}",
	                    "illegal base64 data at input byte 6");
	assert_decode_error(MOCK_KIND_CONFIGMAP, "{\"binaryData\":{\"k\":\"aGVsbG8=aGVs\"}}",
	                    "illegal base64 data at input byte 8");
	assert_decode_error(
	    MOCK_KIND_CONFIGMAP, "{\"binaryData\":{\"k\":5}}",
	    "json: cannot unmarshal number into Go struct field ConfigMap.binaryData "
	    "of type []uint8");
}

/* ------------------------------------------------------- Node specifics */

static void test_schema__quantities_accept_strings_and_numbers(void)
{
	assert_decodes_to(
	    MOCK_KIND_NODE,
	    "{\"metadata\":{\"name\":\"n\"},\"status\":{\"capacity\":{\"pods\":\" 110 \","
	    "\"memory\":\"8Gi\",\"cpu\":4,\"ephemeral-storage\":1.5e9}}}",
	    "{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"n\","
	    "\"creationTimestamp\":null},\"spec\":{},\"status\":{\"capacity\":{\"cpu\":\"4\","
	    "\"ephemeral-storage\":\"1.5e9\",\"memory\":\"8Gi\",\"pods\":\"110\"},\"allocatable\":{"
	    "\"cpu\":\"4\",\"ephemeral-storage\":\"1.5e9\",\"memory\":\"8Gi\",\"pods\":\"110\"},"
	    "\"daemonEndpoints\":{\"kubeletEndpoint\":{\"Port\":0}}," NODE_INFO_EMPTY "}}");
	assert_decode_error(MOCK_KIND_NODE, "{\"status\":{\"capacity\":{\"cpu\":\"4 cores\"}}}",
	                    "quantities must match the regular expression "
	                    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
	assert_decode_error(MOCK_KIND_NODE, "{\"status\":{\"allocatable\":{\"cpu\":\"5mm\"}}}",
	                    "unable to parse quantity's suffix");
	assert_decode_error(MOCK_KIND_NODE, "{\"status\":{\"capacity\":{\"cpu\":true}}}",
	                    "quantities must match the regular expression "
	                    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
}

/* v1 podCIDR and podCIDRs are one internal field. */
static void test_schema__node_pod_cidr_and_pod_cidrs_agree(void)
{
	assert_decodes_to(
	    MOCK_KIND_NODE,
	    "{\"metadata\":{\"name\":\"n\"},\"spec\":{\"providerID\":\"p\",\"podCIDR\":"
	    "\"10.0.0.0/24\"}}",
	    "{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"n\","
	    "\"creationTimestamp\":null},\"spec\":{\"podCIDR\":\"10.0.0.0/24\","
	    "\"podCIDRs\":[\"10.0.0.0/24\"],\"providerID\":\"p\"}," NODE_STATUS_EMPTY "}");
	assert_decodes_to(MOCK_KIND_NODE,
	                  "{\"metadata\":{\"name\":\"n\"},\"spec\":{\"podCIDRs\":[\"10.1.0.0/24\","
	                  "\"fd00::/64\"],\"podCIDR\":\"10.9.0.0/24\"}}",
	                  "{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"n\","
	                  "\"creationTimestamp\":null},\"spec\":{\"podCIDR\":\"10.1.0.0/24\","
	                  "\"podCIDRs\":[\"10.1.0.0/24\",\"fd00::/64\"]}," NODE_STATUS_EMPTY "}");
}

static void test_schema__node_config_source_is_kept_whole(void)
{
	assert_decodes_to(
	    MOCK_KIND_NODE,
	    "{\"metadata\":{\"name\":\"n\"},\"spec\":{\"configSource\":{\"configMap\":{"
	    "\"kubeletConfigKey\":\"kubelet\",\"name\":\"cfg\",\"namespace\":\"kube-system\"}}},"
	    "\"status\":{\"config\":{\"error\":\"e\",\"active\":{\"configMap\":{\"uid\":\"u\","
	    "\"resourceVersion\":\"7\",\"namespace\":\"kube-system\",\"name\":\"cfg\","
	    "\"kubeletConfigKey\":\"kubelet\"}}}}}",
	    "{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"n\","
	    "\"creationTimestamp\":null},\"spec\":{\"configSource\":{\"configMap\":{\"namespace\":"
	    "\"kube-system\",\"name\":\"cfg\",\"kubeletConfigKey\":\"kubelet\"}}},\"status\":{"
	    "\"daemonEndpoints\":{\"kubeletEndpoint\":{\"Port\":0}}," NODE_INFO_EMPTY
	    ",\"config\":{"
	    "\"active\":{\"configMap\":{\"namespace\":\"kube-system\",\"name\":\"cfg\",\"uid\":"
	    "\"u\","
	    "\"resourceVersion\":\"7\",\"kubeletConfigKey\":\"kubelet\"}},\"error\":\"e\"}}}");
}

/* ----------------------------------------------------- Namespace specifics */

static void test_schema__namespace_gets_its_name_label(void)
{
	assert_decodes_to(
	    MOCK_KIND_NAMESPACE,
	    "{\"metadata\":{\"annotations\":{\"a\":\"b\"},\"name\":\"team-a\"}}",
	    "{\"kind\":\"Namespace\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":"
	    "\"team-a\",\"creationTimestamp\":null,\"labels\":{"
	    "\"kubernetes.io/metadata.name\":\"team-a\"},\"annotations\":{\"a\":\"b\"}},"
	    "\"spec\":{},\"status\":{}}");
	assert_decodes_to(
	    MOCK_KIND_NAMESPACE,
	    "{\"metadata\":{\"name\":\"b\",\"labels\":{\"z\":\"1\",\"a\":\"2\","
	    "\"kubernetes.io/metadata.name\":\"other\"}}}",
	    "{\"kind\":\"Namespace\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"b\","
	    "\"creationTimestamp\":null,\"labels\":{\"a\":\"2\","
	    "\"kubernetes.io/metadata.name\":\"b\",\"z\":\"1\"}},\"spec\":{},\"status\":{}}");
}

static void test_schema__namespace_prepare_create_sets_phase_and_finalizer(void)
{
	const mock_resource *r = mock_resource_get(MOCK_KIND_NAMESPACE);
	json_object *ns = decode(MOCK_KIND_NAMESPACE,
	                         "{\"metadata\":{\"name\":\"x\"},\"spec\":{\"finalizers\":["
	                         "\"example.com/f\"]},\"status\":{\"phase\":\"Terminating\"}}",
	                         NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->prepare_create);
	r->prepare_create(ns);
	assert_text(ns,
	            "{\"kind\":\"Namespace\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"x\","
	            "\"creationTimestamp\":null,\"labels\":{\"kubernetes.io/metadata.name\":"
	            "\"x\"}},\"spec\":{\"finalizers\":[\"example.com/f\",\"kubernetes\"]},"
	            "\"status\":{\"phase\":\"Active\"}}");
	json_object_put(ns);

	ns = decode(MOCK_KIND_NAMESPACE, "{\"metadata\":{\"name\":\"y\"}}", NULL);
	r->prepare_create(ns);
	NL_ASSERT_JSON_EQ(json_object_object_get(ns, "spec"), "{\"finalizers\":[\"kubernetes\"]}");
	json_object_put(ns);
}

static void test_schema__namespace_prepare_update_keeps_stored_spec_and_status(void)
{
	const mock_resource *r = mock_resource_get(MOCK_KIND_NAMESPACE);
	json_object *old = decode(MOCK_KIND_NAMESPACE,
	                          "{\"metadata\":{\"name\":\"x\"},\"spec\":{\"finalizers\":["
	                          "\"kubernetes\"]},\"status\":{\"phase\":\"Active\"}}",
	                          NULL);
	json_object *obj =
	    decode(MOCK_KIND_NAMESPACE,
	           "{\"metadata\":{\"name\":\"x\",\"labels\":{\"l\":\"1\"}},\"status\":{"
	           "\"phase\":\"Terminating\"}}",
	           NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->prepare_update);
	r->prepare_update(obj, old);
	assert_text(obj,
	            "{\"kind\":\"Namespace\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"x\","
	            "\"creationTimestamp\":null,\"labels\":{\"kubernetes.io/metadata.name\":\"x\","
	            "\"l\":\"1\"}},\"spec\":{\"finalizers\":[\"kubernetes\"]},\"status\":{"
	            "\"phase\":\"Active\"}}");
	json_object_put(old);
	json_object_put(obj);
}

/* ------------------------------------------------------- table and helpers */

static void test_schema__resources_are_found_by_url_and_kind(void)
{
	char gr[64];
	const mock_resource *lease = mock_resource_find("coordination.k8s.io", "v1", "leases");
	CU_ASSERT_PTR_NOT_NULL_FATAL(lease);
	CU_ASSERT_PTR_EQUAL(lease, mock_resource_get(MOCK_KIND_LEASE));
	CU_ASSERT_PTR_EQUAL(mock_resource_by_kind("coordination.k8s.io/v1", "Lease"), lease);
	CU_ASSERT_PTR_NULL(mock_resource_find("", "v1", "leases"));
	CU_ASSERT_PTR_NULL(mock_resource_by_kind("v1", "Lease"));
	CU_ASSERT_PTR_EQUAL(mock_resource_find("", "v1", "configmaps"),
	                    mock_resource_get(MOCK_KIND_CONFIGMAP));
	CU_ASSERT_PTR_EQUAL(mock_resource_find(NULL, "v1", "nodes"),
	                    mock_resource_get(MOCK_KIND_NODE));
	CU_ASSERT_PTR_EQUAL(mock_resource_by_kind("v1", "Event"),
	                    mock_resource_get(MOCK_KIND_EVENT));
	CU_ASSERT_PTR_NULL(mock_resource_find("", "v2", "nodes"));
	CU_ASSERT_PTR_NULL(mock_resource_get(MOCK_KIND_COUNT));

	nl_gr g = mock_resource_gr(lease);
	nl_gr_string(gr, sizeof(gr), &g);
	CU_ASSERT_STRING_EQUAL(gr, "leases.coordination.k8s.io");
	g = mock_resource_gr(mock_resource_get(MOCK_KIND_CONFIGMAP));
	nl_gr_string(gr, sizeof(gr), &g);
	CU_ASSERT_STRING_EQUAL(gr, "configmaps");
}

/* Lease is the one kind with create-on-update and without unconditional
 * updates (k8s-api.md §2). */
static void test_schema__resource_flags_match_the_apiserver(void)
{
	for (int k = 0; k < MOCK_KIND_COUNT; k++) {
		const mock_resource *r = mock_resource_get((mock_kind)k);
		CU_ASSERT_EQUAL(r->id, k);
		CU_ASSERT_EQUAL(r->create_on_update, k == MOCK_KIND_LEASE);
		CU_ASSERT_EQUAL(r->unconditional_update, k != MOCK_KIND_LEASE);
		CU_ASSERT_EQUAL(r->has_status, k == MOCK_KIND_NODE || k == MOCK_KIND_NAMESPACE ||
		                                   k == MOCK_KIND_POD || k == MOCK_KIND_CSR);
		CU_ASSERT_EQUAL(r->has_eviction, k == MOCK_KIND_POD);
		CU_ASSERT_EQUAL(r->has_approval, k == MOCK_KIND_CSR);
		CU_ASSERT_PTR_NOT_NULL(r->schema);
		CU_ASSERT_TRUE(r->validate || r->validate_endpoint);
	}
	CU_ASSERT_FALSE(mock_resource_get(MOCK_KIND_NODE)->namespaced);
	CU_ASSERT_FALSE(mock_resource_get(MOCK_KIND_NAMESPACE)->namespaced);
	CU_ASSERT_TRUE(mock_resource_get(MOCK_KIND_EVENT)->namespaced);
	CU_ASSERT_STRING_EQUAL(mock_resource_get(MOCK_KIND_CONFIGMAP)->short_names[0], "cm");
	CU_ASSERT_PTR_NULL(mock_resource_get(MOCK_KIND_LEASE)->short_names);
	CU_ASSERT_STRING_EQUAL(mock_resource_get(MOCK_KIND_NODE)->selectable_fields[0],
	                       "spec.unschedulable");
	CU_ASSERT_STRING_EQUAL(mock_resource_get(MOCK_KIND_EVENT)->selectable_fields[9], "source");
}

static void test_schema__sort_helpers_reorder_in_place(void)
{
	const mock_resource *r = mock_resource_get(MOCK_KIND_LEASE);
	json_object *o = nl_test_json("{\"spec\":{},\"zz\":1,\"metadata\":{},\"kind\":\"Lease\"}");
	json_object *m = nl_test_json("{\"b\":1,\"a\":{\"y\":1,\"x\":2},\"B\":3}");
	CU_ASSERT_EQUAL(mock_schema_sort_object(o, r->schema), 0);
	assert_text(o, "{\"kind\":\"Lease\",\"metadata\":{},\"spec\":{},\"zz\":1}");
	CU_ASSERT_EQUAL(mock_json_sort_keys(m), 0);
	assert_text(m, "{\"B\":3,\"a\":{\"y\":1,\"x\":2},\"b\":1}");
	json_object_put(o);
	json_object_put(m);
	/* what the store does after setting uid and resourceVersion */
	o = nl_test_json("{\"name\":\"x\",\"creationTimestamp\":\"2024-05-01T10:00:00Z\","
	                 "\"labels\":{},\"resourceVersion\":\"5\",\"uid\":\"u\"}");
	CU_ASSERT_EQUAL(mock_schema_sort_object(o, &nl_schema_object_meta), 0);
	assert_text(o, "{\"name\":\"x\",\"uid\":\"u\",\"resourceVersion\":\"5\","
	               "\"creationTimestamp\":\"2024-05-01T10:00:00Z\",\"labels\":{}}");
	json_object_put(o);
}

static CU_TestInfo schema_tests[] = {
    {"lease_fields_come_out_in_go_order", test_schema__lease_fields_come_out_in_go_order},
    {"kind_and_api_version_are_the_resources", test_schema__kind_and_api_version_are_the_resources},
    {"node_writes_struct_values_even_when_empty",
     test_schema__node_writes_struct_values_even_when_empty},
    {"event_zero_times_are_null", test_schema__event_zero_times_are_null},
    {"maps_are_written_with_sorted_keys", test_schema__maps_are_written_with_sorted_keys},
    {"omitempty_drops_empty_values_but_keeps_pointers",
     test_schema__omitempty_drops_empty_values_but_keeps_pointers},
    {"null_values_are_absent", test_schema__null_values_are_absent},
    {"lease_strategy_and_preferred_holder_are_dropped",
     test_schema__lease_strategy_and_preferred_holder_are_dropped},
    {"managed_fields_are_typed", test_schema__managed_fields_are_typed},
    {"unknown_fields_are_reported_and_dropped",
     test_schema__unknown_fields_are_reported_and_dropped},
    {"int32_errors_use_gos_text", test_schema__int32_errors_use_gos_text},
    {"int64_errors_use_gos_text", test_schema__int64_errors_use_gos_text},
    {"string_and_bool_errors_use_gos_text", test_schema__string_and_bool_errors_use_gos_text},
    {"map_array_and_struct_errors_use_gos_text",
     test_schema__map_array_and_struct_errors_use_gos_text},
    {"first_type_error_is_reported", test_schema__first_type_error_is_reported},
    {"time_error_wins_over_earlier_type_error",
     test_schema__time_error_wins_over_earlier_type_error},
    {"microtime_needs_exactly_six_digits", test_schema__microtime_needs_exactly_six_digits},
    {"time_is_normalized_to_utc_seconds", test_schema__time_is_normalized_to_utc_seconds},
    {"bad_times_use_gos_parse_errors", test_schema__bad_times_use_gos_parse_errors},
    {"binary_data_is_checked_and_reencoded", test_schema__binary_data_is_checked_and_reencoded},
    {"quantities_accept_strings_and_numbers", test_schema__quantities_accept_strings_and_numbers},
    {"node_pod_cidr_and_pod_cidrs_agree", test_schema__node_pod_cidr_and_pod_cidrs_agree},
    {"node_config_source_is_kept_whole", test_schema__node_config_source_is_kept_whole},
    {"namespace_gets_its_name_label", test_schema__namespace_gets_its_name_label},
    {"namespace_prepare_create_sets_phase_and_finalizer",
     test_schema__namespace_prepare_create_sets_phase_and_finalizer},
    {"namespace_prepare_update_keeps_stored_spec_and_status",
     test_schema__namespace_prepare_update_keeps_stored_spec_and_status},
    {"resources_are_found_by_url_and_kind", test_schema__resources_are_found_by_url_and_kind},
    {"resource_flags_match_the_apiserver", test_schema__resource_flags_match_the_apiserver},
    {"sort_helpers_reorder_in_place", test_schema__sort_helpers_reorder_in_place},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"schema", NULL, NULL, NULL, NULL, schema_tests},
    CU_SUITE_INFO_NULL,
};
