/* NodeletConfiguration: decoding (YAML and JSON, defaults, Go's type error
 * texts, apiVersion/kind), validation with field paths, the flag transform
 * and the flag value syntax, Go duration parsing. */
#include "../cu_main.h"

#include <nodelet/log.h>
#include <nodelet/nodelet_config.h>

#include <stdio.h>
#include <string.h>

#define HEAD "apiVersion: nodelet.io/v1alpha1\nkind: NodeletConfiguration\n"

static nl_nodelet_config *parse_ok(const char *text)
{
	nl_nodelet_config *c = NULL;
	nl_err err = {0};
	int rc = nl_nodelet_config_parse(&c, text, strlen(text), "test.yaml", &err);
	if (rc != 0)
		fprintf(stderr, "\n  unexpected error: %s\n", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	return c;
}

/* Parse, expecting code rc and exactly message msg. */
static void parse_fails(const char *text, int rc, const char *msg)
{
	nl_nodelet_config *c = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL(nl_nodelet_config_parse(&c, text, strlen(text), "test.yaml", &err), rc);
	CU_ASSERT_PTR_NULL(c);
	if (msg && strcmp(err.msg, msg) != 0)
		fprintf(stderr, "\n  expected: %s\n  actual:   %s\n", msg, err.msg);
	if (msg)
		CU_ASSERT_STRING_EQUAL(err.msg, msg);
}

/* Validate text, expecting the message msg (NULL: valid). */
static void validate(const char *text, const char *msg)
{
	nl_nodelet_config *c = parse_ok(text);
	nl_err err = {0};
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	int rc = nl_nodelet_config_validate(c, &err);
	if (!msg) {
		CU_ASSERT_EQUAL(rc, 0);
	} else {
		CU_ASSERT_EQUAL(rc, NL_EINVALID);
		if (strcmp(err.msg, msg) != 0)
			fprintf(stderr, "\n  expected: %s\n  actual:   %s\n", msg, err.msg);
		CU_ASSERT_STRING_EQUAL(err.msg, msg);
	}
	nl_nodelet_config_free(c);
}

static void test_nodelet_config__defaults_when_absent(void)
{
	nl_nodelet_config *c = parse_ok(HEAD);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(c->lease_duration_seconds, 40);
	CU_ASSERT_EQUAL(c->node_status_report_frequency_usec, INT64_C(300000000));
	CU_ASSERT_EQUAL(c->log_verbosity, 0);
	CU_ASSERT_TRUE(c->register_node);
	CU_ASSERT_EQUAL(c->n_node_labels, 0);
	CU_ASSERT_EQUAL(c->n_register_with_taints, 0);
	CU_ASSERT_EQUAL(c->set, 0);
	CU_ASSERT_EQUAL(nl_nodelet_config_validate(c, NULL), 0);
	nl_nodelet_config_free(c);
}

static void test_nodelet_config__example_fixture_loads_and_validates(void)
{
	nl_nodelet_config *c = NULL;
	nl_err err = {0};
	int rc =
	    nl_nodelet_config_load_file(&c, nl_test_fixture("config/nodelet-config.yaml"), &err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(c->lease_duration_seconds, 40);
	CU_ASSERT_EQUAL(c->node_status_report_frequency_usec, INT64_C(300000000));
	CU_ASSERT_EQUAL(c->log_verbosity, 2);
	CU_ASSERT_EQUAL_FATAL(c->n_node_labels, 2);
	CU_ASSERT_STRING_EQUAL(c->node_labels[0].key, "topology.kubernetes.io/zone");
	CU_ASSERT_STRING_EQUAL(c->node_labels[0].value, "lab-a");
	CU_ASSERT_EQUAL_FATAL(c->n_register_with_taints, 1);
	CU_ASSERT_STRING_EQUAL(c->register_with_taints[0].key, "nodelet.io/agent");
	CU_ASSERT_STRING_EQUAL(c->register_with_taints[0].value, "true");
	CU_ASSERT_STRING_EQUAL(c->register_with_taints[0].effect, "NoSchedule");
	CU_ASSERT_EQUAL(c->set, NL_NC_LEASE_DURATION_SECONDS | NL_NC_NODE_STATUS_REPORT_FREQUENCY |
	                            NL_NC_NODE_LABELS | NL_NC_REGISTER_WITH_TAINTS |
	                            NL_NC_LOG_VERBOSITY | NL_NC_REGISTER_NODE);
	CU_ASSERT_EQUAL(nl_nodelet_config_validate(c, &err), 0);
	nl_nodelet_config_free(c);
}

static void test_nodelet_config__json_document_decodes_like_yaml(void)
{
	const char *json =
	    "{\"apiVersion\":\"nodelet.io/v1alpha1\",\"kind\":\"NodeletConfiguration\","
	    "\"leaseDurationSeconds\":12,\"nodeStatusReportFrequency\":\"1m30s\","
	    "\"registerNode\":false,\"nodeLabels\":{\"a\":\"b\"}}";
	nl_nodelet_config *c = parse_ok(json);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(c->lease_duration_seconds, 12);
	CU_ASSERT_EQUAL(c->node_status_report_frequency_usec, INT64_C(90000000));
	CU_ASSERT_FALSE(c->register_node);
	CU_ASSERT_EQUAL(c->n_node_labels, 1);
	nl_nodelet_config_free(c);
}

static void test_nodelet_config__wrong_types_use_go_json_errors(void)
{
	parse_fails(HEAD "leaseDurationSeconds: forty\n", NL_EPARSE,
	            "test.yaml: json: cannot unmarshal string into Go struct field "
	            "NodeletConfiguration.leaseDurationSeconds of type int32");
	parse_fails(HEAD "leaseDurationSeconds: 40.5\n", NL_EPARSE,
	            "test.yaml: json: cannot unmarshal number 40.5 into Go struct field "
	            "NodeletConfiguration.leaseDurationSeconds of type int32");
	parse_fails(HEAD "leaseDurationSeconds: 99999999999\n", NL_EPARSE,
	            "test.yaml: json: cannot unmarshal number 99999999999 into Go struct field "
	            "NodeletConfiguration.leaseDurationSeconds of type int32");
	parse_fails(HEAD "nodeLabels: [a]\n", NL_EPARSE,
	            "test.yaml: json: cannot unmarshal array into Go struct field "
	            "NodeletConfiguration.nodeLabels of type map[string]string");
	parse_fails(HEAD "nodeLabels: {a: 1}\n", NL_EPARSE,
	            "test.yaml: json: cannot unmarshal number into Go struct field "
	            "NodeletConfiguration.nodeLabels of type string");
	parse_fails(HEAD "registerWithTaints: [{key: 3}]\n", NL_EPARSE,
	            "test.yaml: json: cannot unmarshal number into Go struct field "
	            "NodeletConfiguration.registerWithTaints.key of type string");
	parse_fails(HEAD "registerNode: maybe\n", NL_EPARSE,
	            "test.yaml: json: cannot unmarshal string into Go struct field "
	            "NodeletConfiguration.registerNode of type bool");
	parse_fails(HEAD "nodeStatusReportFrequency: 5\n", NL_EPARSE,
	            "test.yaml: json: cannot unmarshal number into Go struct field "
	            "NodeletConfiguration.nodeStatusReportFrequency of type string");
	parse_fails(HEAD "nodeStatusReportFrequency: soon\n", NL_EPARSE,
	            "test.yaml: time: invalid duration \"soon\"");
	parse_fails("- 1\n", NL_EPARSE,
	            "test.yaml: json: cannot unmarshal array into Go value of type "
	            "NodeletConfiguration");
}

static void test_nodelet_config__syntax_error_names_line_and_column(void)
{
	nl_nodelet_config *c = NULL;
	nl_err err = {0};
	const char *bad = HEAD "leaseDurationSeconds: [1\n";
	CU_ASSERT_EQUAL(nl_nodelet_config_parse(&c, bad, strlen(bad), "bad.yaml", &err), NL_EPARSE);
	CU_ASSERT_PTR_NULL(c);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "line"));
}

static void test_nodelet_config__api_version_and_kind_are_checked(void)
{
	parse_fails("kind: NodeletConfiguration\n", NL_EPARSE,
	            "test.yaml: apiVersion: Required value");
	parse_fails("apiVersion: nodelet.io/v1alpha1\n", NL_EPARSE,
	            "test.yaml: kind: Required value");
	parse_fails("apiVersion: v1\nkind: NodeletConfiguration\n", NL_EPARSE,
	            "test.yaml: apiVersion: Unsupported value: \"v1\": supported values: "
	            "\"nodelet.io/v1alpha1\"");
	parse_fails("apiVersion: nodelet.io/v1alpha1\nkind: KubeletConfiguration\n", NL_EPARSE,
	            "test.yaml: kind: Unsupported value: \"KubeletConfiguration\": supported "
	            "values: \"NodeletConfiguration\"");
}

static void test_nodelet_config__unknown_fields_are_ignored_with_a_warning(void)
{
	char logbuf[1024] = {0};
	FILE *f = fmemopen(logbuf, sizeof(logbuf) - 1, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	nl_log_set_output(f);
	nl_nodelet_config *c = parse_ok(HEAD "leaseDurationSecond: 5\n");
	nl_log_set_output(NULL);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(c->lease_duration_seconds, 40);
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(logbuf, "] \"Strict decoding error: unknown field, ignored\" path="));
	CU_ASSERT_PTR_NOT_NULL(strstr(logbuf, " field=\"leaseDurationSecond\"\n"));
	nl_nodelet_config_free(c);
}

static void test_nodelet_config__null_leaves_the_default(void)
{
	nl_nodelet_config *c = parse_ok(HEAD "leaseDurationSeconds: null\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(c->lease_duration_seconds, 40);
	CU_ASSERT_EQUAL(c->set & NL_NC_LEASE_DURATION_SECONDS, 0);
	nl_nodelet_config_free(c);
}

static void test_nodelet_config__validation_uses_field_paths(void)
{
	validate(HEAD "leaseDurationSeconds: 0\n",
	         "leaseDurationSeconds: Invalid value: 0: must be between 1 and 3600");
	validate(HEAD "leaseDurationSeconds: 3601\n",
	         "leaseDurationSeconds: Invalid value: 3601: must be between 1 and 3600");
	validate(HEAD "leaseDurationSeconds: 1\n", NULL);
	validate(HEAD "leaseDurationSeconds: 3600\n", NULL);
	validate(HEAD "logVerbosity: 11\n",
	         "logVerbosity: Invalid value: 11: must be between 0 and 10");
	validate(HEAD "logVerbosity: -1\n",
	         "logVerbosity: Invalid value: -1: must be between 0 and 10");
	validate(HEAD "nodeStatusReportFrequency: 0s\n",
	         "nodeStatusReportFrequency: Invalid value: \"0s\": must be greater than 0");
	validate(HEAD "nodeStatusReportFrequency: -1m\n",
	         "nodeStatusReportFrequency: Invalid value: \"-1m0s\": must be greater than 0");
	validate(HEAD "nodeStatusUpdateFrequency: 0s\nnodeStatusReportFrequency: 1m\n",
	         "nodeStatusUpdateFrequency: Invalid value: \"0s\": must be greater than 0");
}

/* kubelet's defaulting: the update frequency is 10 s; a configuration that
 * gives only it reports at that frequency too (written before the report
 * frequency existed); both given, each keeps its own. */
static void test_nodelet_config__update_frequency_defaults_the_report_one(void)
{
	nl_nodelet_config *c = parse_ok(HEAD);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(c->node_status_update_frequency_usec, INT64_C(10000000));
	nl_nodelet_config_free(c);
	c = parse_ok(HEAD "nodeStatusUpdateFrequency: 20s\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(c->node_status_update_frequency_usec, INT64_C(20000000));
	CU_ASSERT_EQUAL(c->node_status_report_frequency_usec, INT64_C(20000000));
	CU_ASSERT_EQUAL(c->set, NL_NC_NODE_STATUS_UPDATE_FREQUENCY);
	nl_nodelet_config_free(c);
	c = parse_ok(HEAD "nodeStatusUpdateFrequency: 20s\nnodeStatusReportFrequency: 1m\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(c->node_status_report_frequency_usec, INT64_C(60000000));
	nl_nodelet_config_free(c);
	parse_fails(HEAD "nodeStatusUpdateFrequency: 10\n", NL_EPARSE,
	            "test.yaml: json: cannot unmarshal number into Go struct field "
	            "NodeletConfiguration.nodeStatusUpdateFrequency of type string");
}

static void test_nodelet_config__several_errors_are_aggregated(void)
{
	validate(HEAD "leaseDurationSeconds: 0\nlogVerbosity: 20\n",
	         "[leaseDurationSeconds: Invalid value: 0: must be between 1 and 3600, "
	         "logVerbosity: Invalid value: 20: must be between 0 and 10]");
}

static void test_nodelet_config__labels_follow_label_rules(void)
{
	validate(HEAD "nodeLabels: {\"bad key\": x}\n",
	         "nodeLabels: Invalid value: \"bad key\": name part must consist of alphanumeric "
	         "characters, '-', '_' or '.', and must start and end with an alphanumeric "
	         "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
	         "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
	validate(HEAD "nodeLabels: {ok: \"-bad\"}\n",
	         "nodeLabels: Invalid value: \"-bad\": a valid label must be an empty string or "
	         "consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
	         "an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex "
	         "used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
	validate(HEAD "nodeLabels: {example.com/role: edge, empty: \"\"}\n", NULL);
}

static void test_nodelet_config__taints_are_validated_as_the_api_does(void)
{
	validate(HEAD "registerWithTaints: [{effect: NoSchedule}]\n",
	         "registerWithTaints[0].key: Required value");
	validate(HEAD "registerWithTaints: [{key: a}]\n",
	         "registerWithTaints[0].effect: Required value");
	validate(
	    HEAD "registerWithTaints: [{key: a, effect: Sometimes}]\n",
	    "registerWithTaints[0].effect: Unsupported value: \"Sometimes\": supported values: "
	    "\"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"");
	validate(HEAD "registerWithTaints: [{key: a, effect: NoSchedule}, {key: a, value: b, "
	              "effect: NoSchedule}]\n",
	         "registerWithTaints[1]: Duplicate value: \"a:NoSchedule\": taints must be unique "
	         "by key and effect pair");
	validate(HEAD "registerWithTaints: [{key: a, effect: NoSchedule}, {key: a, effect: "
	              "NoExecute}]\n",
	         NULL);
}

static void test_nodelet_config__flags_win_over_the_file(void)
{
	nl_nodelet_config *file = parse_ok(HEAD "leaseDurationSeconds: 20\nlogVerbosity: 3\n"
	                                        "nodeLabels: {a: b}\n");
	nl_nodelet_config *flags = NULL;
	nl_err err = {0};
	CU_ASSERT_PTR_NOT_NULL_FATAL(file);
	CU_ASSERT_EQUAL_FATAL(nl_nodelet_config_new(&flags), 0);
	/* --lease-duration-seconds=7 --node-labels x=y,z=w; -v not given */
	flags->lease_duration_seconds = 7;
	flags->log_verbosity = 9;
	flags->set = NL_NC_LEASE_DURATION_SECONDS;
	CU_ASSERT_EQUAL(nl_nodelet_config_parse_labels_flag(flags, "x=y,z=w", &err), 0);
	CU_ASSERT_EQUAL(nl_nodelet_config_apply_flags(file, flags), 0);
	CU_ASSERT_EQUAL(file->lease_duration_seconds, 7);
	CU_ASSERT_EQUAL(file->log_verbosity, 3);
	CU_ASSERT_EQUAL_FATAL(file->n_node_labels, 2);
	CU_ASSERT_STRING_EQUAL(file->node_labels[0].key, "x");
	CU_ASSERT_STRING_EQUAL(file->node_labels[1].value, "w");
	CU_ASSERT_TRUE(file->set & NL_NC_LEASE_DURATION_SECONDS);
	nl_nodelet_config_free(file);
	nl_nodelet_config_free(flags);
}

static void test_nodelet_config__flag_values_parse_as_kubelet(void)
{
	nl_nodelet_config *c = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(nl_nodelet_config_new(&c), 0);
	CU_ASSERT_EQUAL(nl_nodelet_config_parse_taints_flag(c, "a=b:NoSchedule,c:NoExecute", &err),
	                0);
	CU_ASSERT_EQUAL_FATAL(c->n_register_with_taints, 2);
	CU_ASSERT_STRING_EQUAL(c->register_with_taints[0].key, "a");
	CU_ASSERT_STRING_EQUAL(c->register_with_taints[0].value, "b");
	CU_ASSERT_STRING_EQUAL(c->register_with_taints[0].effect, "NoSchedule");
	CU_ASSERT_STRING_EQUAL(c->register_with_taints[1].key, "c");
	CU_ASSERT_STRING_EQUAL(c->register_with_taints[1].value, "");
	CU_ASSERT_TRUE(c->set & NL_NC_REGISTER_WITH_TAINTS);
	CU_ASSERT_EQUAL(nl_nodelet_config_parse_taints_flag(c, "novalue", &err), NL_EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg, "invalid taint spec: novalue");
	CU_ASSERT_EQUAL(c->n_register_with_taints, 2); /* unchanged on error */
	CU_ASSERT_EQUAL(nl_nodelet_config_parse_labels_flag(c, "a=b,c", &err), NL_EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg, "c must be formatted as key=value");
	CU_ASSERT_EQUAL(nl_nodelet_config_parse_labels_flag(c, "", &err), 0);
	CU_ASSERT_EQUAL(c->n_node_labels, 0);
	CU_ASSERT_TRUE(c->set & NL_NC_NODE_LABELS);
	nl_nodelet_config_free(c);
}

static void test_nodelet_config__copy_equal_and_json_round_trip(void)
{
	nl_nodelet_config *a = parse_ok(HEAD "leaseDurationSeconds: 9\nnodeLabels: {a: b}\n"
	                                     "registerWithTaints: [{key: k, effect: NoSchedule}]\n"
	                                     "nodeStatusReportFrequency: 90s\n");
	nl_nodelet_config *b = NULL, *c = NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL_FATAL(nl_nodelet_config_copy(&b, a), 0);
	CU_ASSERT_TRUE(nl_nodelet_config_equal(a, b));
	json_object *j = nl_nodelet_config_to_json(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	NL_ASSERT_JSON_EQ(
	    j, "{\"apiVersion\":\"nodelet.io/v1alpha1\",\"kind\":\"NodeletConfiguration\","
	       "\"leaseDurationSeconds\":9,\"nodeStatusReportFrequency\":\"1m30s\","
	       "\"nodeStatusUpdateFrequency\":\"10s\",\"nodeLabels\":{\"a\":\"b\"},"
	       "\"registerWithTaints\":[{\"key\":\"k\","
	       "\"effect\":\"NoSchedule\"}],\"logVerbosity\":0,\"registerNode\":true,"
	       "\"contentType\":\"application/vnd.kubernetes.protobuf\","
	       "\"evictionHard\":{\"memory.available\":\"100Mi\",\"nodefs.available\":\"10%\","
	       "\"nodefs.inodesFree\":\"5%\",\"imagefs.available\":\"15%\"},"
	       "\"evictionPressureTransitionPeriod\":\"5m0s\","
	       "\"shutdownGracePeriod\":\"0s\",\"shutdownGracePeriodCriticalPods\":\"0s\"}");
	const char *text = json_object_to_json_string(j);
	CU_ASSERT_EQUAL(nl_nodelet_config_parse(&c, text, strlen(text), "<json>", NULL), 0);
	CU_ASSERT_TRUE(c && nl_nodelet_config_equal(a, c));
	b->lease_duration_seconds = 10;
	CU_ASSERT_FALSE(nl_nodelet_config_equal(a, b));
	json_object_put(j);
	nl_nodelet_config_free(a);
	nl_nodelet_config_free(b);
	nl_nodelet_config_free(c);
}

static void test_nodelet_config__go_durations(void)
{
	static const struct {
		const char *in;
		int64_t usec;
	} ok[] = {
	    {"0", 0},
	    {"5m", INT64_C(300000000)},
	    {"1h30m", INT64_C(5400000000)},
	    {"1.5s", 1500000},
	    {"300ms", 300000},
	    {"-2s", -2000000},
	    {"+3us", 3},
	    {"2\xc2\xb5s", 2},
	    {"1500ns", 1},
	    {".5m", 30000000},
	    {"2562047h", INT64_C(2562047) * 3600 * 1000000},
	};
	static const char *const bad[] = {"", "5", "m", "1x", "1.s.", "--1s", ".", "1h-1m", "abc"};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		int64_t v = -42;
		CU_ASSERT_EQUAL(nl_duration_parse(&v, ok[i].in), 0);
		CU_ASSERT_EQUAL(v, ok[i].usec);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int64_t v = 0;
		CU_ASSERT_NOT_EQUAL(nl_duration_parse(&v, bad[i]), 0);
	}
	int64_t v = 0;
	CU_ASSERT_EQUAL(nl_duration_parse(&v, "2562048h"), NL_ETOOBIG);
}

/* contentType: kubelet's field and flag; protobuf unless set, JSON the one
 * other value, anything else refused by the decoder and by the flag. */
static void test_nodelet_config__content_type(void)
{
	nl_nodelet_config *c = parse_ok(HEAD);
	nl_err err = {0};
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(c->content_type, NL_CONTENT_PROTOBUF);
	CU_ASSERT_FALSE(c->set & NL_NC_CONTENT_TYPE);
	nl_nodelet_config_free(c);
	c = parse_ok(HEAD "contentType: application/json\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(c->content_type, NL_CONTENT_JSON);
	CU_ASSERT_TRUE(c->set & NL_NC_CONTENT_TYPE);
	json_object *j = nl_nodelet_config_to_json(c);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(j, "contentType")),
	                       "application/json");
	json_object_put(j);
	nl_nodelet_config *flags = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_nodelet_config_new(&flags), 0);
	CU_ASSERT_EQUAL(nl_nodelet_config_parse_content_type_flag(
	                    flags, "application/vnd.kubernetes.protobuf", &err),
	                0);
	CU_ASSERT_EQUAL(nl_nodelet_config_apply_flags(c, flags), 0);
	CU_ASSERT_EQUAL(c->content_type, NL_CONTENT_PROTOBUF);
	CU_ASSERT_EQUAL(nl_nodelet_config_parse_content_type_flag(flags, "application/yaml", &err),
	                NL_EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg, "unsupported content type \"application/yaml\": must be "
	                                "\"application/vnd.kubernetes.protobuf\" or "
	                                "\"application/json\"");
	nl_nodelet_config_free(flags);
	nl_nodelet_config_free(c);
	parse_fails(HEAD "contentType: application/cbor\n", NL_EPARSE,
	            "test.yaml: contentType: Unsupported value: \"application/cbor\": supported "
	            "values: \"application/vnd.kubernetes.protobuf\", \"application/json\"");
	parse_fails(HEAD "contentType: 1\n", NL_EPARSE,
	            "test.yaml: json: cannot unmarshal number into Go struct field "
	            "NodeletConfiguration.contentType of type string");
}

/* kubelet's evictionHard and evictionPressureTransitionPeriod: defaults
 * when absent, a given map replaces them whole, kubelet's parse errors. */
static void test_nodelet_config__eviction_fields(void)
{
	nl_nodelet_config *c = parse_ok(HEAD);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL_FATAL(c->n_eviction_hard, 4);
	CU_ASSERT_STRING_EQUAL(c->eviction_hard[0].key, "memory.available");
	CU_ASSERT_STRING_EQUAL(c->eviction_hard[0].value, "100Mi");
	CU_ASSERT_STRING_EQUAL(c->eviction_hard[3].key, "imagefs.available");
	CU_ASSERT_STRING_EQUAL(c->eviction_hard[3].value, "15%");
	CU_ASSERT_EQUAL(c->eviction_pressure_transition_period_usec, INT64_C(300000000));
	nl_nodelet_config_free(c);

	c = parse_ok(HEAD "evictionHard: {pid.available: \"100\"}\n"
	                  "evictionPressureTransitionPeriod: 30s\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL_FATAL(c->n_eviction_hard, 1);
	CU_ASSERT_STRING_EQUAL(c->eviction_hard[0].key, "pid.available");
	CU_ASSERT_EQUAL(c->eviction_pressure_transition_period_usec, INT64_C(30000000));
	CU_ASSERT_TRUE(c->set & NL_NC_EVICTION_HARD);
	CU_ASSERT_TRUE(c->set & NL_NC_EVICTION_PRESSURE_TRANSITION_PERIOD);
	CU_ASSERT_EQUAL(nl_nodelet_config_validate(c, NULL), 0);
	/* The flag transform carries both. */
	nl_nodelet_config *d = parse_ok(HEAD);
	CU_ASSERT_EQUAL(nl_nodelet_config_apply_flags(d, c), 0);
	CU_ASSERT_TRUE(nl_nodelet_config_equal(c, d));
	nl_nodelet_config_free(d);
	nl_nodelet_config_free(c);

	c = parse_ok(HEAD "evictionHard: {}\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(c->n_eviction_hard, 0);
	nl_nodelet_config_free(c);

	validate(HEAD "evictionHard: {memory.available: 0%, nodefs.available: 100%}\n", NULL);
	validate(HEAD "evictionHard: {memory.free: 1Mi}\n",
	         "evictionHard[memory.free]: Invalid value: \"1Mi\": unsupported eviction signal "
	         "memory.free");
	validate(HEAD "evictionHard: {nodefs.available: 101%}\n",
	         "evictionHard[nodefs.available]: Invalid value: \"101%\": eviction percentage "
	         "threshold nodefs.available must be <= 100%: 101%");
	validate(HEAD "evictionPressureTransitionPeriod: 0s\n",
	         "evictionPressureTransitionPeriod: Invalid value: \"0s\": must be greater than 0");
	parse_fails(HEAD "evictionHard: [a]\n", NL_EPARSE,
	            "test.yaml: json: cannot unmarshal array into Go struct field "
	            "NodeletConfiguration.evictionHard of type map[string]string");
	parse_fails(HEAD "evictionHard: {memory.available: 5}\n", NL_EPARSE,
	            "test.yaml: json: cannot unmarshal number into Go struct field "
	            "NodeletConfiguration.evictionHard of type string");
	parse_fails(HEAD "evictionPressureTransitionPeriod: soon\n", NL_EPARSE,
	            "test.yaml: time: invalid duration \"soon\"");
}

/* kubelet's shutdownGracePeriod and shutdownGracePeriodCriticalPods: 0
 * (off) by default, Go durations, kubelet's validation texts. */
static void test_nodelet_config__shutdown_fields(void)
{
	nl_nodelet_config *c = parse_ok(HEAD), *d = NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(c->shutdown_grace_period_usec, 0);
	CU_ASSERT_EQUAL(c->shutdown_grace_period_critical_pods_usec, 0);
	nl_nodelet_config_free(c);

	c = parse_ok(HEAD "shutdownGracePeriod: 30s\nshutdownGracePeriodCriticalPods: 10s\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(c->shutdown_grace_period_usec, INT64_C(30000000));
	CU_ASSERT_EQUAL(c->shutdown_grace_period_critical_pods_usec, INT64_C(10000000));
	CU_ASSERT_TRUE(c->set & NL_NC_SHUTDOWN_GRACE_PERIOD);
	CU_ASSERT_TRUE(c->set & NL_NC_SHUTDOWN_GRACE_PERIOD_CRITICAL_PODS);
	CU_ASSERT_EQUAL(nl_nodelet_config_validate(c, NULL), 0);
	d = parse_ok(HEAD);
	CU_ASSERT_FALSE(nl_nodelet_config_equal(c, d));
	CU_ASSERT_EQUAL(nl_nodelet_config_apply_flags(d, c), 0);
	CU_ASSERT_TRUE(nl_nodelet_config_equal(c, d));
	d->shutdown_grace_period_critical_pods_usec = 0;
	CU_ASSERT_FALSE(nl_nodelet_config_equal(c, d));
	nl_nodelet_config_free(d);
	nl_nodelet_config_free(c);

	validate(HEAD "shutdownGracePeriod: 1s\nshutdownGracePeriodCriticalPods: 2s\n",
	         "invalid configuration: shutdownGracePeriodCriticalPods {2s} must be <= "
	         "shutdownGracePeriod {1s}");
	validate(HEAD "shutdownGracePeriod: 1ms\n",
	         "invalid configuration: shutdownGracePeriod {1ms} must be either zero or "
	         "otherwise >= 1 sec");
	validate(HEAD "shutdownGracePeriod: 5s\nshutdownGracePeriodCriticalPods: 1ms\n",
	         "invalid configuration: shutdownGracePeriodCriticalPods {1ms} must be either "
	         "zero or otherwise >= 1 sec");
	validate(HEAD "shutdownGracePeriod: -1s\n",
	         "[invalid configuration: shutdownGracePeriodCriticalPods {0s} must be <= "
	         "shutdownGracePeriod {-1s}, invalid configuration: shutdownGracePeriod {-1s} "
	         "must be either zero or otherwise >= 1 sec]");
	parse_fails(HEAD "shutdownGracePeriod: 30\n", NL_EPARSE,
	            "test.yaml: json: cannot unmarshal number into Go struct field "
	            "NodeletConfiguration.shutdownGracePeriod of type string");
}

static CU_TestInfo tests[] = {
    {"shutdown_fields", test_nodelet_config__shutdown_fields},
    {"eviction_fields", test_nodelet_config__eviction_fields},
    {"defaults_when_absent", test_nodelet_config__defaults_when_absent},
    {"update_frequency_defaults_the_report_one",
     test_nodelet_config__update_frequency_defaults_the_report_one},
    {"example_fixture_loads_and_validates",
     test_nodelet_config__example_fixture_loads_and_validates},
    {"json_document_decodes_like_yaml", test_nodelet_config__json_document_decodes_like_yaml},
    {"wrong_types_use_go_json_errors", test_nodelet_config__wrong_types_use_go_json_errors},
    {"syntax_error_names_line_and_column", test_nodelet_config__syntax_error_names_line_and_column},
    {"api_version_and_kind_are_checked", test_nodelet_config__api_version_and_kind_are_checked},
    {"unknown_fields_are_ignored_with_a_warning",
     test_nodelet_config__unknown_fields_are_ignored_with_a_warning},
    {"null_leaves_the_default", test_nodelet_config__null_leaves_the_default},
    {"validation_uses_field_paths", test_nodelet_config__validation_uses_field_paths},
    {"several_errors_are_aggregated", test_nodelet_config__several_errors_are_aggregated},
    {"labels_follow_label_rules", test_nodelet_config__labels_follow_label_rules},
    {"taints_are_validated_as_the_api_does",
     test_nodelet_config__taints_are_validated_as_the_api_does},
    {"flags_win_over_the_file", test_nodelet_config__flags_win_over_the_file},
    {"flag_values_parse_as_kubelet", test_nodelet_config__flag_values_parse_as_kubelet},
    {"copy_equal_and_json_round_trip", test_nodelet_config__copy_equal_and_json_round_trip},
    {"go_durations", test_nodelet_config__go_durations},
    {"content_type", test_nodelet_config__content_type},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"nodelet_config", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
