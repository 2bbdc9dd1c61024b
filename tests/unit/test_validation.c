/* mockapi/api/validation.c: the apiserver's field validation, its messages and
 * the 422 Status built from them (k8s-api.md §1, §6-§9). */
#include "../cu_main.h"

#include "api/resources.h"
#include "api/schema.h"
#include "api/validation.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_object *decode(mock_kind k, const char *text)
{
	json_object *in = nl_test_json(text), *out = NULL;
	nl_err err = {0, ""};
	int rc = mock_schema_decode(&out, mock_resource_get(k), in, NULL, &err);
	if (rc != 0)
		fprintf(stderr, "\n  unexpected decode error: %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	json_object_put(in);
	return out;
}

/* Validate text (and old_text, NULL on create) as the server would. */
static void validate(mock_ferrs *e, mock_kind k, const char *text, const char *old_text)
{
	json_object *obj = decode(k, text);
	json_object *old = old_text ? decode(k, old_text) : NULL;
	mock_ferrs_init(e);
	mock_validate_object(e, mock_resource_get(k), obj, old);
	json_object_put(obj);
	json_object_put(old);
}

/* The errors, as "field: message" in order, are exactly the n given. */
static void assert_errors_v(const mock_ferrs *e, int n, va_list ap)
{
	int same = (size_t)n == e->n;
	for (int i = 0; i < n; i++) {
		const char *want = va_arg(ap, const char *);
		char got[4096] = "(none)";
		if ((size_t)i < e->n)
			snprintf(got, sizeof(got), "%s: %s", e->items[i].field,
			         e->items[i].message);
		if (strcmp(got, want) != 0) {
			fprintf(stderr, "\n  error %d\n  expected: %s\n  actual:   %s\n", i, want,
			        got);
			same = 0;
		}
	}
	for (size_t i = (size_t)n; i < e->n; i++)
		fprintf(stderr, "\n  extra error: %s: %s\n", e->items[i].field,
		        e->items[i].message);
	CU_ASSERT_TRUE(same);
}

static void assert_errors(mock_kind k, const char *text, const char *old_text, int n, ...)
{
	mock_ferrs e;
	va_list ap;
	validate(&e, k, text, old_text);
	va_start(ap, n);
	assert_errors_v(&e, n, ap);
	va_end(ap);
	mock_ferrs_free(&e);
}

/* The whole 422 body, compared as JSON. */
static void assert_status(mock_kind k, const char *text, const char *old_text, const char *name,
                          const char *expected)
{
	const mock_resource *r = mock_resource_get(k);
	mock_ferrs e;
	validate(&e, k, text, old_text);
	nl_status *st = mock_ferrs_to_status(&e, r->kind, r->group, name);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	json_object *j = nl_status_to_json(st);
	NL_ASSERT_JSON_EQ(j, expected);
	json_object_put(j);
	nl_status_free(st);
	mock_ferrs_free(&e);
}

#define SUBDOMAIN_MSG                                                                             \
	"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' " \
	"or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "     \
	"regex "                                                                                  \
	"used for validation is "                                                                 \
	"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
#define SUBDOMAIN_MSG_C                                                                           \
	"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' " \
	"or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "     \
	"regex "                                                                                  \
	"used for validation is "                                                                 \
	"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
#define CONFIG_KEY_MSG                                                                       \
	"a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. " \
	"'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "          \
	"'[-._a-zA-Z0-9]+')"
#define QUALIFIED_MSG                                                                            \
	"must consist of alphanumeric characters, '-', '_' or '.', and must start and end with " \
	"an "                                                                                    \
	"alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "   \
	"validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
#define LABEL_VALUE_MSG                                                                          \
	"a valid label must be an empty string or consist of alphanumeric characters, '-', '_' " \
	"or "                                                                                    \
	"'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "       \
	"'my_value',  or '12345', regex used for validation is "                                 \
	"'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
#define IMMUTABLE_MSG "field is immutable when `immutable` is set"

#define CM_META "\"metadata\":{\"name\":\"c\",\"namespace\":\"default\"}"
#define NODE_SRC(fields) "{\"metadata\":{\"name\":\"n1\"},\"spec\":{\"configSource\":" fields "}}"
#define CM_REF "\"namespace\":\"kube-system\",\"name\":\"cfg\",\"kubeletConfigKey\":\"kubelet\""

/* ------------------------------------------------------ 422 Status bodies */

/* The exact example of k8s-api.md §1. */
static void test_validation__lease_negative_duration_status(void)
{
	assert_status(
	    MOCK_KIND_LEASE,
	    "{\"metadata\":{\"name\":\"x\",\"namespace\":\"default\"},\"spec\":{"
	    "\"leaseDurationSeconds\":-1}}",
	    NULL, "x",
	    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
	    "\"message\":\"Lease.coordination.k8s.io \\\"x\\\" is invalid: "
	    "spec.leaseDurationSeconds: Invalid value: -1: must be greater than 0\",\"reason\":"
	    "\"Invalid\",\"details\":{\"name\":\"x\",\"group\":\"coordination.k8s.io\",\"kind\":"
	    "\"Lease\",\"causes\":[{\"reason\":\"FieldValueInvalid\",\"message\":\"Invalid value: "
	    "-1: must be greater than "
	    "0\",\"field\":\"spec.leaseDurationSeconds\"}]},\"code\":422}");
}

static void test_validation__configmap_bad_key_status(void)
{
	assert_status(
	    MOCK_KIND_CONFIGMAP, "{" CM_META ",\"data\":{\"bad key\":\"v\"}}", NULL, "c",
	    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
	    "\"message\":\"ConfigMap \\\"c\\\" is invalid: data[bad key]: Invalid value: \\\"bad "
	    "key\\\": " CONFIG_KEY_MSG "\",\"reason\":\"Invalid\",\"details\":{\"name\":\"c\","
	    "\"kind\":\"ConfigMap\",\"causes\":[{\"reason\":\"FieldValueInvalid\",\"message\":"
	    "\"Invalid value: \\\"bad key\\\": " CONFIG_KEY_MSG "\",\"field\":\"data[bad key]\"}]},"
	    "\"code\":422}");
}

static void test_validation__configmap_too_large_status(void)
{
	size_t n = 1048577;
	char *text = malloc(n + 128);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	int len = snprintf(text, 128, "{" CM_META ",\"data\":{\"big\":\"");
	memset(text + len, 'a', n);
	strcpy(text + len + n, "\"}}");
	assert_status(
	    MOCK_KIND_CONFIGMAP, text, NULL, "c",
	    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
	    "\"Failure\",\"message\":\"ConfigMap \\\"c\\\" is invalid: []: Too long: may "
	    "not be more than 1048576 bytes\",\"reason\":\"Invalid\",\"details\":{\"name\":"
	    "\"c\",\"kind\":\"ConfigMap\",\"causes\":[{\"reason\":\"FieldValueTooLong\","
	    "\"message\":\"Too long: may not be more than 1048576 bytes\",\"field\":"
	    "\"[]\"}]},\"code\":422}");
	free(text);
}

static void test_validation__configmap_immutable_change_status(void)
{
	assert_status(
	    MOCK_KIND_CONFIGMAP, "{" CM_META ",\"immutable\":true,\"data\":{\"a\":\"2\"}}",
	    "{" CM_META ",\"immutable\":true,\"data\":{\"a\":\"1\"}}", "c",
	    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
	    "\"Failure\",\"message\":\"ConfigMap \\\"c\\\" is invalid: data: "
	    "Forbidden: " IMMUTABLE_MSG
	    "\",\"reason\":\"Invalid\",\"details\":{\"name\":\"c\",\"kind\":\"ConfigMap\","
	    "\"causes\":[{\"reason\":\"FieldValueForbidden\",\"message\":\"Forbidden:"
	    " " IMMUTABLE_MSG "\",\"field\":\"data\"}]},\"code\":422}");
}

static void test_validation__node_config_source_uid_status(void)
{
	assert_status(
	    MOCK_KIND_NODE, NODE_SRC("{\"configMap\":{" CM_REF ",\"uid\":\"abc\"}}"), NULL, "n1",
	    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
	    "\"Failure\",\"message\":\"Node \\\"n1\\\" is invalid: "
	    "spec.configSource.configMap.uid: Forbidden: uid must not be set in spec\","
	    "\"reason\":\"Invalid\",\"details\":{\"name\":\"n1\",\"kind\":\"Node\",\"causes\":"
	    "[{\"reason\":\"FieldValueForbidden\",\"message\":\"Forbidden: uid must not be set "
	    "in spec\",\"field\":\"spec.configSource.configMap.uid\"}]},\"code\":422}");
}

static void test_validation__missing_name_status(void)
{
	assert_status(
	    MOCK_KIND_CONFIGMAP, "{\"metadata\":{\"namespace\":\"default\"}}", NULL, "",
	    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
	    "\"Failure\",\"message\":\"ConfigMap \\\"\\\" is invalid: metadata.name: "
	    "Required value: name or generateName is required\",\"reason\":\"Invalid\","
	    "\"details\":{\"kind\":\"ConfigMap\",\"causes\":[{\"reason\":"
	    "\"FieldValueRequired\",\"message\":\"Required value: name or generateName is "
	    "required\",\"field\":\"metadata.name\"}]},\"code\":422}");
}

static void test_validation__two_errors_aggregate_status(void)
{
	assert_status(
	    MOCK_KIND_LEASE,
	    "{\"metadata\":{\"name\":\"x\",\"namespace\":\"default\"},\"spec\":{"
	    "\"leaseDurationSeconds\":0,\"leaseTransitions\":-1}}",
	    NULL, "x",
	    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
	    "\"message\":\"Lease.coordination.k8s.io \\\"x\\\" is invalid: "
	    "[spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0, "
	    "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0]\","
	    "\"reason\":\"Invalid\",\"details\":{\"name\":\"x\",\"group\":\"coordination.k8s.io\","
	    "\"kind\":\"Lease\",\"causes\":[{\"reason\":\"FieldValueInvalid\",\"message\":"
	    "\"Invalid value: 0: must be greater than 0\",\"field\":\"spec.leaseDurationSeconds\"},"
	    "{\"reason\":\"FieldValueInvalid\",\"message\":\"Invalid value: -1: must be greater "
	    "than or equal to 0\",\"field\":\"spec.leaseTransitions\"}]},\"code\":422}");
}

/* ------------------------------------------------------------ ObjectMeta */

static void test_validation__names_follow_each_kinds_rule(void)
{
	assert_errors(MOCK_KIND_CONFIGMAP,
	              "{\"metadata\":{\"name\":\"Bad_Name\",\"namespace\":\"d\"}}", NULL, 1,
	              "metadata.name: Invalid value: \"Bad_Name\": " SUBDOMAIN_MSG_C);
	/* namespaces are DNS labels */
	assert_errors(MOCK_KIND_NAMESPACE, "{\"metadata\":{\"name\":\"a.b\"}}", NULL, 1,
	              "metadata.name: Invalid value: \"a.b\": must not contain dots");
	/* a generateName may end in '-': something is appended */
	assert_errors(MOCK_KIND_NODE,
	              "{\"metadata\":{\"name\":\"node-x\",\"generateName\":\"node-\"}}", NULL, 0);
	assert_errors(MOCK_KIND_NODE,
	              "{\"metadata\":{\"generateName\":\"Node-\",\"name\":\"node-x\"}}", NULL, 1,
	              "metadata.generateName: Invalid value: \"Node-\": " SUBDOMAIN_MSG_C);
	assert_errors(MOCK_KIND_NODE, "{\"metadata\":{}}", NULL, 1,
	              "metadata.name: Required value: name or generateName is required");
}

static void test_validation__namespace_is_required_or_forbidden(void)
{
	assert_errors(MOCK_KIND_LEASE, "{\"metadata\":{\"name\":\"x\"}}", NULL, 1,
	              "metadata.namespace: Required value");
	assert_errors(
	    MOCK_KIND_LEASE, "{\"metadata\":{\"name\":\"x\",\"namespace\":\"A\"}}", NULL, 1,
	    "metadata.namespace: Invalid value: \"A\": a lowercase RFC 1123 label must "
	    "consist of lower case alphanumeric characters or '-', and must start and end "
	    "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
	    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
	assert_errors(MOCK_KIND_NODE, "{\"metadata\":{\"name\":\"n\",\"namespace\":\"default\"}}",
	              NULL, 1, "metadata.namespace: Forbidden: not allowed on this type");
}

static void test_validation__labels_and_annotations(void)
{
	assert_errors(
	    MOCK_KIND_NODE,
	    "{\"metadata\":{\"name\":\"n\",\"labels\":{\"-bad\":\"ok\",\"good\":\"bad "
	    "value\"},\"annotations\":{\"Example.COM/Mixed_Case\":\"x\",\"a//b\":\"y\"}}}",
	    NULL, 3, "metadata.labels: Invalid value: \"-bad\": name part " QUALIFIED_MSG,
	    "metadata.labels: Invalid value: \"bad value\": " LABEL_VALUE_MSG,
	    "metadata.annotations: Invalid value: \"a//b\": a qualified name " QUALIFIED_MSG
	    " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
}

static void test_validation__annotations_total_size(void)
{
	size_t n = 262144;
	char *text = malloc(n + 128);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	/* key "a" + value of 262144 bytes: one byte over */
	int len = snprintf(text, 128, "{\"metadata\":{\"name\":\"n\",\"annotations\":{\"a\":\"");
	memset(text + len, 'x', n);
	strcpy(text + len + n, "\"}}}");
	assert_errors(MOCK_KIND_NODE, text, NULL, 1,
	              "metadata.annotations: Too long: may not be more than 262144 bytes");
	text[len + n - 1] = '\0';
	strcat(text, "\"}}}");
	assert_errors(MOCK_KIND_NODE, text, NULL, 0);
	free(text);
}

static void test_validation__owner_references(void)
{
	assert_errors(MOCK_KIND_CONFIGMAP,
	              "{\"metadata\":{\"name\":\"c\",\"namespace\":\"d\",\"ownerReferences\":[{"
	              "\"apiVersion\":\"apps/\",\"kind\":\"\",\"name\":\"\",\"uid\":\"\"}]}}",
	              NULL, 4,
	              "metadata.ownerReferences.apiVersion: Invalid value: \"apps/\": version must "
	              "not be empty",
	              "metadata.ownerReferences.kind: Invalid value: \"\": must not be empty",
	              "metadata.ownerReferences.name: Invalid value: \"\": must not be empty",
	              "metadata.ownerReferences.uid: Invalid value: \"\": must not be empty");
	assert_errors(
	    MOCK_KIND_CONFIGMAP,
	    "{\"metadata\":{\"name\":\"c\",\"namespace\":\"d\",\"ownerReferences\":[{"
	    "\"apiVersion\":\"v1\",\"kind\":\"Event\",\"name\":\"e\",\"uid\":\"u\"}]}}",
	    NULL, 1,
	    "metadata.ownerReferences: Invalid value: v1.OwnerReference{APIVersion:\"v1\", "
	    "Kind:\"Event\", Name:\"e\", UID:\"u\", Controller:(*bool)(nil), "
	    "BlockOwnerDeletion:(*bool)(nil)}: /v1, Kind=Event is disallowed from being an "
	    "owner");
}

static void test_validation__metadata_finalizers(void)
{
	assert_errors(
	    MOCK_KIND_CONFIGMAP,
	    "{\"metadata\":{\"name\":\"c\",\"namespace\":\"d\",\"finalizers\":["
	    "\"orphan\",\"foregroundDeletion\",\"a b\"]}}",
	    NULL, 2, "metadata.finalizers: Invalid value: \"a b\": name part " QUALIFIED_MSG,
	    "metadata.finalizers: Invalid value: []string{\"orphan\", \"foregroundDeletion\", "
	    "\"a b\"}: finalizer orphan and foregroundDeletion cannot be both set");
}

/* ------------------------------------------------------------- per kind */

static void test_validation__lease_rules(void)
{
	assert_errors(MOCK_KIND_LEASE,
	              "{\"metadata\":{\"name\":\"x\",\"namespace\":\"d\"},\"spec\":{"
	              "\"leaseDurationSeconds\":1,\"leaseTransitions\":0,\"holderIdentity\":\"\"}}",
	              NULL, 0);
	/* 1.32 drops preferredHolder before validating; the rule itself still holds */
	json_object *obj = nl_test_json("{\"spec\":{\"preferredHolder\":\"b\"}}");
	mock_ferrs e;
	mock_ferrs_init(&e);
	mock_validate_lease(&e, obj, NULL);
	CU_ASSERT_EQUAL_FATAL(e.n, 1);
	CU_ASSERT_STRING_EQUAL(e.items[0].field, "spec.preferredHolder");
	CU_ASSERT_STRING_EQUAL(e.items[0].message,
	                       "Forbidden: may only be specified if `strategy` is defined");
	CU_ASSERT_STRING_EQUAL(e.items[0].reason, NL_CAUSE_FORBIDDEN);
	mock_ferrs_free(&e);
	json_object_put(obj);
}

static void test_validation__configmap_keys_and_duplicates(void)
{
	assert_errors(MOCK_KIND_CONFIGMAP,
	              "{" CM_META ",\"data\":{\"..x\":\"1\",\"k\":\"v\"},\"binaryData\":{\"k\":"
	              "\"AA==\",\"b/c\":\"AA==\"}}",
	              NULL, 3, "data[..x]: Invalid value: \"..x\": must not start with '..'",
	              "data[k]: Invalid value: \"k\": duplicate of key present in binaryData",
	              "binaryData[b/c]: Invalid value: \"b/c\": " CONFIG_KEY_MSG);
}

/* binaryData counts decoded bytes toward the 1 MiB limit. */
static void test_validation__configmap_size_counts_decoded_binary(void)
{
	size_t half = 524288, b64 = 699052; /* 174763 quanta: 524289 bytes */
	char *text = malloc(half + b64 + 256);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	int len = snprintf(text, 128, "{" CM_META ",\"data\":{\"a\":\"");
	memset(text + len, 'a', half);
	len += (int)half;
	len += sprintf(text + len, "\"},\"binaryData\":{\"b\":\"");
	memset(text + len, 'A', b64);
	strcpy(text + len + b64, "\"}}");
	assert_errors(MOCK_KIND_CONFIGMAP, text, NULL, 1,
	              "[]: Too long: may not be more than 1048576 bytes");
	memcpy(text + len + b64 - 4, "AA==", 4); /* 524287 bytes: 1048575 in all */
	assert_errors(MOCK_KIND_CONFIGMAP, text, NULL, 0);
	free(text);
}

static void test_validation__configmap_immutable(void)
{
	const char *old = "{" CM_META ",\"immutable\":true,\"data\":{\"a\":\"1\"},\"binaryData\":{"
	                  "\"b\":\"AA==\"}}";
	assert_errors(MOCK_KIND_CONFIGMAP,
	              "{" CM_META ",\"data\":{\"a\":\"1\"},\"binaryData\":{\"b\":\"AQ==\"}}", old,
	              2, "immutable: Forbidden: " IMMUTABLE_MSG,
	              "binaryData: Forbidden: " IMMUTABLE_MSG);
	/* unchanged content with immutable kept is fine, and so is a mutable one */
	assert_errors(
	    MOCK_KIND_CONFIGMAP,
	    "{" CM_META ",\"immutable\":true,\"data\":{\"a\":\"1\"},\"binaryData\":{\"b\":"
	    "\"AA==\"},\"metadata\":{\"name\":\"c\",\"namespace\":\"default\",\"labels\":{"
	    "\"x\":\"y\"}}}",
	    old, 0);
	assert_errors(MOCK_KIND_CONFIGMAP,
	              "{" CM_META ",\"immutable\":true,\"data\":{\"a\":\"9\"}}",
	              "{" CM_META ",\"data\":{\"a\":\"1\"}}", 0);
}

static void test_validation__node_config_source_rules(void)
{
	assert_errors(MOCK_KIND_NODE, NODE_SRC("{\"configMap\":{" CM_REF "}}"), NULL, 0);
	assert_errors(MOCK_KIND_NODE, NODE_SRC("{}"), NULL, 1,
	              "spec.configSource: Invalid value: core.NodeConfigSource{ConfigMap:(*core."
	              "ConfigMapNodeConfigSource)(nil)}: exactly one reference subfield must be "
	              "non-nil");
	assert_errors(
	    MOCK_KIND_NODE,
	    NODE_SRC("{\"configMap\":{\"resourceVersion\":\"5\",\"name\":\"Bad\","
	             "\"kubeletConfigKey\":\"a b\"}}"),
	    NULL, 4,
	    "spec.configSource.configMap.resourceVersion: Forbidden: resourceVersion must "
	    "not be set in spec",
	    "spec.configSource.configMap.namespace: Required value: namespace must be set",
	    "spec.configSource.configMap.name: Invalid value: \"Bad\": " SUBDOMAIN_MSG_C,
	    "spec.configSource.configMap.kubeletConfigKey: Invalid value: \"a "
	    "b\": " CONFIG_KEY_MSG);
	assert_errors(
	    MOCK_KIND_NODE,
	    "{\"metadata\":{\"name\":\"n1\"},\"status\":{\"config\":{\"active\":{"
	    "\"configMap\":{" CM_REF "}},\"assigned\":{\"configMap\":{" CM_REF ",\"uid\":\"u\","
	    "\"resourceVersion\":\"1\"}}}}}",
	    NULL, 2,
	    "status.config.active.configMap.uid: Required value: uid must be set in status",
	    "status.config.active.configMap.resourceVersion: Required value: "
	    "resourceVersion must be set in status");
}

static void test_validation__node_taints(void)
{
	assert_errors(
	    MOCK_KIND_NODE,
	    "{\"metadata\":{\"name\":\"n\"},\"spec\":{\"taints\":[{\"key\":\"k\","
	    "\"effect\":\"Bad\"},{\"key\":\"k\"},{\"key\":\"a\",\"value\":\"-x\",\"effect\":"
	    "\"NoSchedule\"},{\"key\":\"a\",\"effect\":\"NoSchedule\"}]}}",
	    NULL, 4,
	    "metadata.taints[0].effect: Unsupported value: \"Bad\": supported values: "
	    "\"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
	    "metadata.taints[1].effect: Required value",
	    "metadata.taints[2].value: Invalid value: \"-x\": " LABEL_VALUE_MSG,
	    "metadata.taints[3]: Duplicate value: core.Taint{Key:\"a\", Value:\"\", "
	    "Effect:\"NoSchedule\", TimeAdded:(*v1.Time)(nil)}: taints must be unique by key "
	    "and effect pair");
}

static void test_validation__node_pod_cidrs(void)
{
	assert_errors(MOCK_KIND_NODE,
	              "{\"metadata\":{\"name\":\"n\"},\"spec\":{\"podCIDRs\":[\"10.0.0.0/24\","
	              "\"fd00::/64\"]}}",
	              NULL, 0);
	assert_errors(MOCK_KIND_NODE,
	              "{\"metadata\":{\"name\":\"n\"},\"spec\":{\"podCIDRs\":[\"010.0.0.0/24\"]}}",
	              NULL, 0);
	assert_errors(
	    MOCK_KIND_NODE,
	    "{\"metadata\":{\"name\":\"n\"},\"spec\":{\"podCIDR\":\"10.0.0.0/33\"}}", NULL, 1,
	    "spec.podCIDRs[0]: Invalid value: []string{\"10.0.0.0/33\"}: must be valid CIDR");
	assert_errors(
	    MOCK_KIND_NODE,
	    "{\"metadata\":{\"name\":\"n\"},\"spec\":{\"podCIDRs\":[\"10.0.0.0/24\","
	    "\"10.0.0.0/24\"]}}",
	    NULL, 2,
	    "spec.podCIDRs: Invalid value: []string{\"10.0.0.0/24\", \"10.0.0.0/24\"}: may "
	    "specify no more than one CIDR for each IP family",
	    "spec.podCIDRs[1]: Duplicate value: \"10.0.0.0/24\"");
}

static void test_validation__node_resources_not_negative(void)
{
	assert_errors(
	    MOCK_KIND_NODE,
	    "{\"metadata\":{\"name\":\"n\"},\"status\":{\"capacity\":{\"cpu\":\"-1\","
	    "\"memory\":\"-0\"},\"allocatable\":{\"cpu\":\"1\",\"memory\":\"-0.5Gi\"}}}",
	    NULL, 2,
	    "status.capacity.cpu: Invalid value: \"-1\": must be greater than or equal to 0",
	    "status.allocatable.memory: Invalid value: \"-0.5Gi\": must be greater than or "
	    "equal to 0");
}

static void test_validation__node_update_rules(void)
{
	const char *old = "{\"metadata\":{\"name\":\"n\"},\"spec\":{\"podCIDRs\":[\"10.0.0.0/24\"],"
	                  "\"providerID\":\"aws://a\",\"externalID\":\"e\"}}";
	assert_errors(MOCK_KIND_NODE,
	              "{\"metadata\":{\"name\":\"n\"},\"spec\":{\"podCIDRs\":[\"10.0.0.0/24\"],"
	              "\"providerID\":\"aws://a\",\"externalID\":\"e\",\"unschedulable\":true}}",
	              old, 0);
	assert_errors(
	    MOCK_KIND_NODE,
	    "{\"metadata\":{\"name\":\"n\"},\"spec\":{\"podCIDRs\":[\"10.1.0.0/24\"],"
	    "\"providerID\":\"aws://b\"},\"status\":{\"addresses\":[{\"type\":\"InternalIP\","
	    "\"address\":\"10.0.0.1\"},{\"type\":\"InternalIP\",\"address\":\"10.0.0.1\"}]}}",
	    old, 4,
	    "status.addresses[1]: Duplicate value: core.NodeAddress{Type:\"InternalIP\", "
	    "Address:\"10.0.0.1\"}",
	    "spec.podCIDRs: Forbidden: node updates may not change podCIDR except from \"\" "
	    "to valid",
	    "spec.providerID: Forbidden: node updates may not change providerID except from "
	    "\"\" to valid",
	    "spec.externalID: Forbidden: may not be updated");
}

static void test_validation__namespace_finalizers(void)
{
	assert_errors(MOCK_KIND_NAMESPACE,
	              "{\"metadata\":{\"name\":\"ns\"},\"spec\":{\"finalizers\":[\"kubernetes\","
	              "\"example.com/x\",\"custom\"]}}",
	              NULL, 1,
	              "spec.finalizers: Invalid value: \"custom\": name is neither a standard "
	              "finalizer name nor is it fully qualified");
}

static void test_validation__event_legacy_rules(void)
{
	/* namespaces must agree; the metadata is then not even looked at */
	assert_errors(
	    MOCK_KIND_EVENT,
	    "{\"metadata\":{\"namespace\":\"default\"},\"involvedObject\":{\"kind\":\"Pod\","
	    "\"namespace\":\"other\"}}",
	    NULL, 1,
	    "involvedObject.namespace: Invalid value: \"other\": does not match "
	    "event.namespace");
	assert_errors(
	    MOCK_KIND_EVENT,
	    "{\"metadata\":{\"name\":\"n.17a\",\"namespace\":\"kube-system\"},"
	    "\"involvedObject\":{\"kind\":\"Node\",\"name\":\"n\"}}",
	    NULL, 1,
	    "involvedObject.namespace: Invalid value: \"\": does not match event.namespace");
	assert_errors(MOCK_KIND_EVENT,
	              "{\"metadata\":{\"name\":\"n.17a\",\"namespace\":\"default\"},"
	              "\"involvedObject\":{\"kind\":\"Node\",\"name\":\"n\"},\"type\":\"Odd\"}",
	              NULL, 0);
	/* Event names only need to be path segments */
	assert_errors(
	    MOCK_KIND_EVENT,
	    "{\"metadata\":{\"name\":\"a/b\",\"namespace\":\"default\"},\"involvedObject\":"
	    "{\"namespace\":\"default\"}}",
	    NULL, 1, "metadata.name: Invalid value: \"a/b\": may not contain '/'");
	assert_errors(MOCK_KIND_EVENT,
	              "{\"metadata\":{\"name\":\"Mixed_Case\",\"namespace\":\"default\"}}", NULL,
	              0);
}

static void test_validation__event_with_event_time(void)
{
	assert_errors(
	    MOCK_KIND_EVENT,
	    "{\"metadata\":{\"name\":\"e\",\"namespace\":\"ns1\"},\"eventTime\":"
	    "\"2024-05-01T10:00:00.000000Z\",\"involvedObject\":{\"kind\":\"Node\"}}",
	    NULL, 7,
	    "involvedObject.namespace: Invalid value: \"\": does not match event.namespace",
	    "reportingController: Required value",
	    "reportingController: Invalid value: \"\": name part must be non-empty",
	    "reportingController: Invalid value: \"\": name part " QUALIFIED_MSG,
	    "reportingInstance: Required value", "action: Required value",
	    "reason: Required value");
}

/* ------------------------------------------------------- error builders */

/* field.Invalid prints a string value with %q: a non-printable rune is
 * \uNNNN, a stray byte \xNN (this copy assumed multi-byte runes printable). */
static void test_validation__invalid_values_quote_like_go(void)
{
	mock_ferrs e;
	json_object *s = json_object_new_string("\t\xc2\x85\xe2\x80\xa8\xff");
	mock_ferrs_init(&e);
	mock_ferr_invalid(&e, "f", s, "why");
	CU_ASSERT_EQUAL_FATAL(e.n, 1);
	CU_ASSERT_STRING_EQUAL(e.items[0].message,
	                       "Invalid value: \"\\t\\u0085\\u2028\\xff\": why");
	mock_ferrs_free(&e);
	json_object_put(s);
}

static void test_validation__error_builders_format_like_field_error(void)
{
	mock_ferrs e;
	json_object *s = json_object_new_string("a\"b\n\x01\xc3\xa9");
	json_object *i = json_object_new_int(-3);
	json_object *b = json_object_new_boolean(1);
	static const char *const sup[] = {"A", "B", NULL};
	mock_ferrs_init(&e);
	mock_ferr_invalid(&e, "f", s, "why");
	mock_ferr_invalid(&e, "f", i, NULL);
	mock_ferr_invalid(&e, "f", b, "");
	mock_ferr_invalid(&e, "f", NULL, "d");
	mock_ferr_invalid_raw(&e, "f", "0x0", "must be specified for an update");
	mock_ferr_required(&e, "f", NULL);
	mock_ferr_forbidden(&e, "f", "no");
	mock_ferr_too_long(&e, "f", 1);
	mock_ferr_not_supported(&e, "f", s, sup);
	mock_ferr_duplicate(&e, "f", i);
	CU_ASSERT_EQUAL_FATAL(e.n, 10);
	CU_ASSERT_STRING_EQUAL(e.items[0].message,
	                       "Invalid value: \"a\\\"b\\n\\x01\xc3\xa9\": why");
	CU_ASSERT_STRING_EQUAL(e.items[0].reason, NL_CAUSE_INVALID);
	CU_ASSERT_STRING_EQUAL(e.items[1].message, "Invalid value: -3");
	CU_ASSERT_STRING_EQUAL(e.items[2].message, "Invalid value: true");
	CU_ASSERT_STRING_EQUAL(e.items[3].message, "Invalid value: null: d");
	CU_ASSERT_STRING_EQUAL(e.items[4].message,
	                       "Invalid value: 0x0: must be specified for an update");
	CU_ASSERT_STRING_EQUAL(e.items[5].message, "Required value");
	CU_ASSERT_STRING_EQUAL(e.items[5].reason, NL_CAUSE_REQUIRED);
	CU_ASSERT_STRING_EQUAL(e.items[6].message, "Forbidden: no");
	CU_ASSERT_STRING_EQUAL(e.items[7].message, "Too long: may not be more than 1 byte");
	CU_ASSERT_STRING_EQUAL(e.items[7].reason, NL_CAUSE_TOO_LONG);
	CU_ASSERT_STRING_EQUAL(e.items[8].message,
	                       "Unsupported value: \"a\\\"b\\n\\x01\xc3\xa9\": supported values: "
	                       "\"A\", \"B\"");
	CU_ASSERT_STRING_EQUAL(e.items[8].reason, NL_CAUSE_NOT_SUPPORTED);
	CU_ASSERT_STRING_EQUAL(e.items[9].message, "Duplicate value: -3");
	CU_ASSERT_STRING_EQUAL(e.items[9].reason, NL_CAUSE_DUPLICATE);
	mock_ferrs_free(&e);
	CU_ASSERT_EQUAL(e.n, 0);
	json_object_put(s);
	json_object_put(i);
	json_object_put(b);
}

static CU_TestInfo validation_tests[] = {
    {"lease_negative_duration_status", test_validation__lease_negative_duration_status},
    {"configmap_bad_key_status", test_validation__configmap_bad_key_status},
    {"configmap_too_large_status", test_validation__configmap_too_large_status},
    {"configmap_immutable_change_status", test_validation__configmap_immutable_change_status},
    {"node_config_source_uid_status", test_validation__node_config_source_uid_status},
    {"missing_name_status", test_validation__missing_name_status},
    {"two_errors_aggregate_status", test_validation__two_errors_aggregate_status},
    {"names_follow_each_kinds_rule", test_validation__names_follow_each_kinds_rule},
    {"namespace_is_required_or_forbidden", test_validation__namespace_is_required_or_forbidden},
    {"labels_and_annotations", test_validation__labels_and_annotations},
    {"annotations_total_size", test_validation__annotations_total_size},
    {"owner_references", test_validation__owner_references},
    {"metadata_finalizers", test_validation__metadata_finalizers},
    {"lease_rules", test_validation__lease_rules},
    {"configmap_keys_and_duplicates", test_validation__configmap_keys_and_duplicates},
    {"configmap_size_counts_decoded_binary", test_validation__configmap_size_counts_decoded_binary},
    {"configmap_immutable", test_validation__configmap_immutable},
    {"node_config_source_rules", test_validation__node_config_source_rules},
    {"node_taints", test_validation__node_taints},
    {"node_pod_cidrs", test_validation__node_pod_cidrs},
    {"node_resources_not_negative", test_validation__node_resources_not_negative},
    {"node_update_rules", test_validation__node_update_rules},
    {"namespace_finalizers", test_validation__namespace_finalizers},
    {"event_legacy_rules", test_validation__event_legacy_rules},
    {"event_with_event_time", test_validation__event_with_event_time},
    {"invalid_values_quote_like_go", test_validation__invalid_values_quote_like_go},
    {"error_builders_format_like_field_error",
     test_validation__error_builders_format_like_field_error},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"validation", NULL, NULL, NULL, NULL, validation_tests},
    CU_SUITE_INFO_NULL,
};
