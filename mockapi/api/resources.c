/* The served kinds: one table row per kind, and each kind's wire schema in
 * the field order and with the `omitempty` / pointer choices of the Go types
 * in k8s.io/api v0.32 (core/v1 and coordination/v1). */
#include "resources.h"

#include "schema.h"
#include "validation.h"

#include <nodelet/meta.h>

#include <string.h>

#define OE MOCK_F_OMITEMPTY
#define PTR MOCK_F_PTR
#define F(n, t, fl, gt)                                                  \
	{                                                                \
		.name = (n), .type = (t), .flags = (fl), .go_type = (gt) \
	}
#define STR(n, fl, gt) F(n, MOCK_FT_STRING, fl, gt)
#define OBJ(n, fl, gt, s)                                                                        \
	{                                                                                        \
		.name = (n), .type = MOCK_FT_OBJECT, .flags = (fl), .go_type = (gt), .sub = &(s) \
	}
#define ARR(n, fl, gt, et, s)                                                                     \
	{                                                                                         \
		.name = (n), .type = MOCK_FT_ARRAY, .flags = (fl), .go_type = (gt), .elem = (et), \
		.sub = (s)                                                                        \
	}
#define NFIELDS(a) (sizeof(a) / sizeof((a)[0]))
#define SCHEMA(var, goname, fields, dflt) \
	static const mock_schema var = {(goname), (fields), NFIELDS(fields), (dflt)}

#define TYPEMETA                                     \
	STR("kind", OE | MOCK_F_TYPEMETA, "string"), \
	    STR("apiVersion", OE | MOCK_F_TYPEMETA, "string")

#define NAMESPACE_NAME_LABEL "kubernetes.io/metadata.name"

/* ------------------------------------------------------------ ObjectMeta */

static const mock_field owner_ref_fields[] = {
    STR("apiVersion", 0, "string"),
    STR("kind", 0, "string"),
    STR("name", 0, "string"),
    STR("uid", 0, "types.UID"),
    F("controller", MOCK_FT_BOOL, OE | PTR, "bool"),
    F("blockOwnerDeletion", MOCK_FT_BOOL, OE | PTR, "bool"),
};
SCHEMA(owner_ref_schema, "OwnerReference", owner_ref_fields, NULL);

static const mock_field managed_fields_fields[] = {
    STR("manager", OE, "string"),     STR("operation", OE, "v1.ManagedFieldsOperationType"),
    STR("apiVersion", OE, "string"),  F("time", MOCK_FT_TIME, OE | PTR, "v1.Time"),
    STR("fieldsType", OE, "string"),  F("fieldsV1", MOCK_FT_RAW, OE | PTR, "v1.FieldsV1"),
    STR("subresource", OE, "string"),
};
SCHEMA(managed_fields_schema, "ManagedFieldsEntry", managed_fields_fields, NULL);

static const mock_field object_meta_fields[] = {
    STR("name", OE, "string"),
    STR("generateName", OE, "string"),
    STR("namespace", OE, "string"),
    STR("selfLink", OE, "string"),
    STR("uid", OE, "types.UID"),
    STR("resourceVersion", OE, "string"),
    F("generation", MOCK_FT_INT64, OE, "int64"),
    F("creationTimestamp", MOCK_FT_TIME, OE, "v1.Time"),
    F("deletionTimestamp", MOCK_FT_TIME, OE | PTR, "v1.Time"),
    F("deletionGracePeriodSeconds", MOCK_FT_INT64, OE | PTR, "int64"),
    F("labels", MOCK_FT_MAP_STRING, OE, "map[string]string"),
    F("annotations", MOCK_FT_MAP_STRING, OE, "map[string]string"),
    ARR("ownerReferences", OE, "[]v1.OwnerReference", MOCK_FT_OBJECT, &owner_ref_schema),
    ARR("finalizers", OE, "[]string", MOCK_FT_STRING, NULL),
    ARR("managedFields", OE, "[]v1.ManagedFieldsEntry", MOCK_FT_OBJECT, &managed_fields_schema),
};
const mock_schema mock_object_meta_schema = {"ObjectMeta", object_meta_fields,
                                             NFIELDS(object_meta_fields), NULL};

#define METADATA OBJ("metadata", OE, "v1.ObjectMeta", mock_object_meta_schema)

/* Set metadata.labels[key], keeping ObjectMeta field order and sorted keys. */
static void meta_set_label(json_object *obj, const char *key, const char *value)
{
	json_object *meta = nl_meta_ensure(obj), *labels;
	if (!meta)
		return;
	if (!json_object_object_get_ex(meta, "labels", &labels) ||
	    !json_object_is_type(labels, json_type_object)) {
		labels = json_object_new_object();
		if (!labels || json_object_object_add(meta, "labels", labels) != 0) {
			json_object_put(labels);
			return;
		}
		mock_schema_sort_object(meta, &mock_object_meta_schema);
	}
	json_object_object_add(labels, key, json_object_new_string(value));
	mock_json_sort_keys(labels);
}

/* ------------------------------------------------------------- Namespace */

static const mock_field namespace_condition_fields[] = {
    STR("type", 0, "v1.NamespaceConditionType"),
    STR("status", 0, "v1.ConditionStatus"),
    F("lastTransitionTime", MOCK_FT_TIME, OE, "v1.Time"),
    STR("reason", OE, "string"),
    STR("message", OE, "string"),
};
SCHEMA(namespace_condition_schema, "NamespaceCondition", namespace_condition_fields, NULL);

static const mock_field namespace_spec_fields[] = {
    ARR("finalizers", OE, "[]v1.FinalizerName", MOCK_FT_STRING, NULL),
};
SCHEMA(namespace_spec_schema, "NamespaceSpec", namespace_spec_fields, NULL);

static const mock_field namespace_status_fields[] = {
    STR("phase", OE, "v1.NamespacePhase"),
    ARR("conditions", OE, "[]v1.NamespaceCondition", MOCK_FT_OBJECT, &namespace_condition_schema),
};
SCHEMA(namespace_status_schema, "NamespaceStatus", namespace_status_fields, NULL);

/* SetDefaults_Namespace: every named namespace carries its name as a label. */
static void namespace_defaults(json_object *obj)
{
	const char *name = nl_meta_name(obj);
	if (name && *name)
		meta_set_label(obj, NAMESPACE_NAME_LABEL, name);
}

static const mock_field namespace_fields[] = {
    TYPEMETA,
    METADATA,
    OBJ("spec", OE, "v1.NamespaceSpec", namespace_spec_schema),
    OBJ("status", OE, "v1.NamespaceStatus", namespace_status_schema),
};
SCHEMA(namespace_schema, "Namespace", namespace_fields, namespace_defaults);

static json_object *child(json_object *obj, const char *key)
{
	json_object *v = NULL;
	json_object_object_get_ex(obj, key, &v);
	return v;
}

/* namespaceStrategy.PrepareForCreate: status is Active, and the
 * "kubernetes" finalizer is always there to begin with. */
static void namespace_prepare_create(json_object *obj)
{
	json_object *spec = child(obj, "spec"), *fins, *status;
	namespace_defaults(obj); /* a generated name is known only now */
	status = json_object_new_object();
	if (status) {
		json_object_object_add(status, "phase", json_object_new_string("Active"));
		json_object_object_add(obj, "status", status);
	}
	if (!json_object_is_type(spec, json_type_object))
		return;
	fins = child(spec, "finalizers");
	if (!json_object_is_type(fins, json_type_array)) {
		fins = json_object_new_array();
		if (!fins || json_object_object_add(spec, "finalizers", fins) != 0) {
			json_object_put(fins);
			return;
		}
	}
	for (size_t i = 0; i < json_object_array_length(fins); i++) {
		const char *f = json_object_get_string(json_object_array_get_idx(fins, i));
		if (f && strcmp(f, "kubernetes") == 0)
			return;
	}
	json_object_array_add(fins, json_object_new_string("kubernetes"));
}

/* namespaceStrategy.PrepareForUpdate: finalizers change only through
 * /finalize and status only through /status. */
static void namespace_prepare_update(json_object *obj, json_object *old)
{
	json_object *copy = NULL;
	static const char *const keys[] = {"spec", "status"};
	for (size_t i = 0; i < 2; i++) {
		json_object *o = child(old, keys[i]);
		if (o && json_object_deep_copy(o, &copy, NULL) == 0)
			json_object_object_add(obj, keys[i], copy);
		copy = NULL;
	}
}

/* ------------------------------------------------------------------ Node */

static const mock_field taint_fields[] = {
    STR("key", 0, "string"),
    STR("value", OE, "string"),
    STR("effect", 0, "v1.TaintEffect"),
    F("timeAdded", MOCK_FT_TIME, OE | PTR, "v1.Time"),
};
SCHEMA(taint_schema, "Taint", taint_fields, NULL);

static const mock_field configmap_source_fields[] = {
    STR("namespace", 0, "string"),        STR("name", 0, "string"),
    STR("uid", OE, "types.UID"),          STR("resourceVersion", OE, "string"),
    STR("kubeletConfigKey", 0, "string"),
};
SCHEMA(configmap_source_schema, "ConfigMapNodeConfigSource", configmap_source_fields, NULL);

static const mock_field node_config_source_fields[] = {
    OBJ("configMap", OE | PTR, "v1.ConfigMapNodeConfigSource", configmap_source_schema),
};
SCHEMA(node_config_source_schema, "NodeConfigSource", node_config_source_fields, NULL);

static const mock_field node_spec_fields[] = {
    STR("podCIDR", OE, "string"),
    ARR("podCIDRs", OE, "[]string", MOCK_FT_STRING, NULL),
    STR("providerID", OE, "string"),
    F("unschedulable", MOCK_FT_BOOL, OE, "bool"),
    ARR("taints", OE, "[]v1.Taint", MOCK_FT_OBJECT, &taint_schema),
    OBJ("configSource", OE | PTR, "v1.NodeConfigSource", node_config_source_schema),
    STR("externalID", OE, "string"),
};
SCHEMA(node_spec_schema, "NodeSpec", node_spec_fields, NULL);

static const mock_field node_condition_fields[] = {
    STR("type", 0, "v1.NodeConditionType"),
    STR("status", 0, "v1.ConditionStatus"),
    F("lastHeartbeatTime", MOCK_FT_TIME, OE, "v1.Time"),
    F("lastTransitionTime", MOCK_FT_TIME, OE, "v1.Time"),
    STR("reason", OE, "string"),
    STR("message", OE, "string"),
};
SCHEMA(node_condition_schema, "NodeCondition", node_condition_fields, NULL);

static const mock_field node_address_fields[] = {
    STR("type", 0, "v1.NodeAddressType"),
    STR("address", 0, "string"),
};
SCHEMA(node_address_schema, "NodeAddress", node_address_fields, NULL);

static const mock_field daemon_endpoint_fields[] = {
    F("Port", MOCK_FT_INT32, 0, "int32"),
};
SCHEMA(daemon_endpoint_schema, "DaemonEndpoint", daemon_endpoint_fields, NULL);

static const mock_field daemon_endpoints_fields[] = {
    OBJ("kubeletEndpoint", OE, "v1.DaemonEndpoint", daemon_endpoint_schema),
};
SCHEMA(daemon_endpoints_schema, "NodeDaemonEndpoints", daemon_endpoints_fields, NULL);

static const mock_field node_info_fields[] = {
    STR("machineID", 0, "string"),       STR("systemUUID", 0, "string"),
    STR("bootID", 0, "string"),          STR("kernelVersion", 0, "string"),
    STR("osImage", 0, "string"),         STR("containerRuntimeVersion", 0, "string"),
    STR("kubeletVersion", 0, "string"),  STR("kubeProxyVersion", 0, "string"),
    STR("operatingSystem", 0, "string"), STR("architecture", 0, "string"),
};
SCHEMA(node_info_schema, "NodeSystemInfo", node_info_fields, NULL);

static const mock_field image_fields[] = {
    ARR("names", 0, "[]string", MOCK_FT_STRING, NULL),
    F("sizeBytes", MOCK_FT_INT64, OE, "int64"),
};
SCHEMA(image_schema, "ContainerImage", image_fields, NULL);

static const mock_field attached_volume_fields[] = {
    STR("name", 0, "v1.UniqueVolumeName"),
    STR("devicePath", 0, "string"),
};
SCHEMA(attached_volume_schema, "AttachedVolume", attached_volume_fields, NULL);

static const mock_field node_config_status_fields[] = {
    OBJ("assigned", OE | PTR, "v1.NodeConfigSource", node_config_source_schema),
    OBJ("active", OE | PTR, "v1.NodeConfigSource", node_config_source_schema),
    OBJ("lastKnownGood", OE | PTR, "v1.NodeConfigSource", node_config_source_schema),
    STR("error", OE, "string"),
};
SCHEMA(node_config_status_schema, "NodeConfigStatus", node_config_status_fields, NULL);

static const mock_field handler_features_fields[] = {
    F("recursiveReadOnlyMounts", MOCK_FT_BOOL, OE | PTR, "bool"),
    F("userNamespaces", MOCK_FT_BOOL, OE | PTR, "bool"),
};
SCHEMA(handler_features_schema, "NodeRuntimeHandlerFeatures", handler_features_fields, NULL);

static const mock_field runtime_handler_fields[] = {
    STR("name", 0, "string"),
    OBJ("features", OE | PTR, "v1.NodeRuntimeHandlerFeatures", handler_features_schema),
};
SCHEMA(runtime_handler_schema, "NodeRuntimeHandler", runtime_handler_fields, NULL);

static const mock_field node_features_fields[] = {
    F("supplementalGroupsPolicy", MOCK_FT_BOOL, OE | PTR, "bool"),
};
SCHEMA(node_features_schema, "NodeFeatures", node_features_fields, NULL);

static const mock_field node_status_fields[] = {
    F("capacity", MOCK_FT_MAP_QUANTITY, OE, "v1.ResourceList"),
    F("allocatable", MOCK_FT_MAP_QUANTITY, OE, "v1.ResourceList"),
    STR("phase", OE, "v1.NodePhase"),
    ARR("conditions", OE, "[]v1.NodeCondition", MOCK_FT_OBJECT, &node_condition_schema),
    ARR("addresses", OE, "[]v1.NodeAddress", MOCK_FT_OBJECT, &node_address_schema),
    OBJ("daemonEndpoints", OE, "v1.NodeDaemonEndpoints", daemon_endpoints_schema),
    OBJ("nodeInfo", OE, "v1.NodeSystemInfo", node_info_schema),
    ARR("images", OE, "[]v1.ContainerImage", MOCK_FT_OBJECT, &image_schema),
    ARR("volumesInUse", OE, "[]v1.UniqueVolumeName", MOCK_FT_STRING, NULL),
    ARR("volumesAttached", OE, "[]v1.AttachedVolume", MOCK_FT_OBJECT, &attached_volume_schema),
    OBJ("config", OE | PTR, "v1.NodeConfigStatus", node_config_status_schema),
    ARR("runtimeHandlers", OE, "[]v1.NodeRuntimeHandler", MOCK_FT_OBJECT, &runtime_handler_schema),
    OBJ("features", OE | PTR, "v1.NodeFeatures", node_features_schema),
};
SCHEMA(node_status_schema, "NodeStatus", node_status_fields, NULL);

/* The v1 <-> internal conversion keeps only podCIDRs (podCIDR fills it
 * when it is empty, and is written back as its first entry), and
 * SetDefaults_NodeStatus copies capacity into a missing allocatable. */
static void node_defaults(json_object *obj)
{
	json_object *spec = child(obj, "spec"), *status = child(obj, "status");
	json_object *cidrs = child(spec, "podCIDRs"), *copy = NULL;
	const char *cidr = json_object_get_string(child(spec, "podCIDR"));

	if (json_object_is_type(cidrs, json_type_array) && json_object_array_length(cidrs) > 0) {
		const char *first = json_object_get_string(json_object_array_get_idx(cidrs, 0));
		json_object_object_add(spec, "podCIDR", json_object_new_string(first ? first : ""));
		mock_schema_sort_object(spec, &node_spec_schema);
	} else if (cidr && *cidr) {
		cidrs = json_object_new_array();
		if (cidrs && json_object_array_add(cidrs, json_object_new_string(cidr)) == 0 &&
		    json_object_object_add(spec, "podCIDRs", cidrs) == 0)
			mock_schema_sort_object(spec, &node_spec_schema);
		else
			json_object_put(cidrs);
	}
	if (!child(status, "allocatable") && child(status, "capacity") &&
	    json_object_deep_copy(child(status, "capacity"), &copy, NULL) == 0) {
		json_object_object_add(status, "allocatable", copy);
		mock_schema_sort_object(status, &node_status_schema);
	}
}

static const mock_field node_fields[] = {
    TYPEMETA,
    METADATA,
    OBJ("spec", OE, "v1.NodeSpec", node_spec_schema),
    OBJ("status", OE, "v1.NodeStatus", node_status_schema),
};
SCHEMA(node_schema, "Node", node_fields, node_defaults);

/* ------------------------------------------------------------- ConfigMap */

static const mock_field configmap_fields[] = {
    TYPEMETA,
    METADATA,
    F("immutable", MOCK_FT_BOOL, OE | PTR, "bool"),
    F("data", MOCK_FT_MAP_STRING, OE, "map[string]string"),
    F("binaryData", MOCK_FT_MAP_BYTES, OE, "map[string][]uint8"),
};
SCHEMA(configmap_schema, "ConfigMap", configmap_fields, NULL);

/* ----------------------------------------------------------------- Event */

static const mock_field object_ref_fields[] = {
    STR("kind", OE, "string"),       STR("namespace", OE, "string"),
    STR("name", OE, "string"),       STR("uid", OE, "types.UID"),
    STR("apiVersion", OE, "string"), STR("resourceVersion", OE, "string"),
    STR("fieldPath", OE, "string"),
};
SCHEMA(object_ref_schema, "ObjectReference", object_ref_fields, NULL);

static const mock_field event_source_fields[] = {
    STR("component", OE, "string"),
    STR("host", OE, "string"),
};
SCHEMA(event_source_schema, "EventSource", event_source_fields, NULL);

static const mock_field event_series_fields[] = {
    F("count", MOCK_FT_INT32, OE, "int32"),
    F("lastObservedTime", MOCK_FT_MICROTIME, OE, "v1.MicroTime"),
};
SCHEMA(event_series_schema, "EventSeries", event_series_fields, NULL);

static const mock_field event_fields[] = {
    TYPEMETA,
    OBJ("metadata", 0, "v1.ObjectMeta", mock_object_meta_schema),
    OBJ("involvedObject", 0, "v1.ObjectReference", object_ref_schema),
    STR("reason", OE, "string"),
    STR("message", OE, "string"),
    OBJ("source", OE, "v1.EventSource", event_source_schema),
    F("firstTimestamp", MOCK_FT_TIME, OE, "v1.Time"),
    F("lastTimestamp", MOCK_FT_TIME, OE, "v1.Time"),
    F("count", MOCK_FT_INT32, OE, "int32"),
    STR("type", OE, "string"),
    F("eventTime", MOCK_FT_MICROTIME, OE, "v1.MicroTime"),
    OBJ("series", OE | PTR, "v1.EventSeries", event_series_schema),
    STR("action", OE, "string"),
    OBJ("related", OE | PTR, "v1.ObjectReference", object_ref_schema),
    STR("reportingComponent", 0, "string"),
    STR("reportingInstance", 0, "string"),
};
SCHEMA(event_schema, "Event", event_fields, NULL);

/* ----------------------------------------------------------------- Lease */

static const mock_field lease_spec_fields[] = {
    STR("holderIdentity", OE | PTR, "string"),
    F("leaseDurationSeconds", MOCK_FT_INT32, OE | PTR, "int32"),
    F("acquireTime", MOCK_FT_MICROTIME, OE | PTR, "v1.MicroTime"),
    F("renewTime", MOCK_FT_MICROTIME, OE | PTR, "v1.MicroTime"),
    F("leaseTransitions", MOCK_FT_INT32, OE | PTR, "int32"),
    /* CoordinatedLeaderElection is off in 1.32: PrepareForCreate/Update drop these. */
    STR("strategy", OE | PTR | MOCK_F_DROP, "v1.CoordinatedLeaseStrategy"),
    STR("preferredHolder", OE | PTR | MOCK_F_DROP, "string"),
};
SCHEMA(lease_spec_schema, "LeaseSpec", lease_spec_fields, NULL);

static const mock_field lease_fields[] = {
    TYPEMETA,
    METADATA,
    OBJ("spec", OE, "v1.LeaseSpec", lease_spec_schema),
};
SCHEMA(lease_schema, "Lease", lease_fields, NULL);

/* ----------------------------------------------------------------- table */

static const char *const namespace_short[] = {"ns", NULL};
static const char *const node_short[] = {"no", NULL};
static const char *const configmap_short[] = {"cm", NULL};
static const char *const event_short[] = {"ev", NULL};

static const char *const namespace_fields_sel[] = {"status.phase", NULL};
static const char *const node_fields_sel[] = {"spec.unschedulable", NULL};
/* "source" matches source.component, or reportingComponent when that is
 * empty (pkg/registry/core/event ToSelectableFields). */
static const char *const event_fields_sel[] = {
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
    NULL,
};

static const mock_resource resources[MOCK_KIND_COUNT] = {
    [MOCK_KIND_NAMESPACE] =
        {
            .id = MOCK_KIND_NAMESPACE,
            .group = "",
            .version = "v1",
            .api_version = "v1",
            .plural = "namespaces",
            .singular = "namespace",
            .kind = "Namespace",
            .list_kind = "NamespaceList",
            .namespaced = 0,
            .short_names = namespace_short,
            .unconditional_update = 1,
            .selectable_fields = namespace_fields_sel,
            .schema = &namespace_schema,
            .prepare_create = namespace_prepare_create,
            .prepare_update = namespace_prepare_update,
            .validate = mock_validate_namespace,
        },
    [MOCK_KIND_NODE] =
        {
            .id = MOCK_KIND_NODE,
            .group = "",
            .version = "v1",
            .api_version = "v1",
            .plural = "nodes",
            .singular = "node",
            .kind = "Node",
            .list_kind = "NodeList",
            .namespaced = 0,
            .short_names = node_short,
            .unconditional_update = 1,
            .has_status = 1,
            .selectable_fields = node_fields_sel,
            .schema = &node_schema,
            .validate = mock_validate_node,
        },
    [MOCK_KIND_CONFIGMAP] =
        {
            .id = MOCK_KIND_CONFIGMAP,
            .group = "",
            .version = "v1",
            .api_version = "v1",
            .plural = "configmaps",
            .singular = "configmap",
            .kind = "ConfigMap",
            .list_kind = "ConfigMapList",
            .namespaced = 1,
            .short_names = configmap_short,
            .unconditional_update = 1,
            .schema = &configmap_schema,
            .validate = mock_validate_configmap,
        },
    [MOCK_KIND_EVENT] =
        {
            .id = MOCK_KIND_EVENT,
            .group = "",
            .version = "v1",
            .api_version = "v1",
            .plural = "events",
            .singular = "event",
            .kind = "Event",
            .list_kind = "EventList",
            .namespaced = 1,
            .short_names = event_short,
            .unconditional_update = 1,
            .selectable_fields = event_fields_sel,
            .schema = &event_schema,
            .validate = mock_validate_event,
        },
    [MOCK_KIND_LEASE] =
        {
            .id = MOCK_KIND_LEASE,
            .group = "coordination.k8s.io",
            .version = "v1",
            .api_version = "coordination.k8s.io/v1",
            .plural = "leases",
            .singular = "lease",
            .kind = "Lease",
            .list_kind = "LeaseList",
            .namespaced = 1,
            .create_on_update = 1,
            .schema = &lease_schema,
            .validate = mock_validate_lease,
        },
};

static int str_eq(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

nl_gr mock_resource_gr(const mock_resource *r)
{
	nl_gr gr = {r->group, r->plural};
	return gr;
}

const mock_resource *mock_resource_find(const char *group, const char *version, const char *plural)
{
	for (size_t i = 0; i < MOCK_KIND_COUNT; i++) {
		const mock_resource *r = &resources[i];
		if (str_eq(r->group, group) && str_eq(r->version, version) &&
		    str_eq(r->plural, plural))
			return r;
	}
	return NULL;
}

const mock_resource *mock_resource_by_kind(const char *api_version, const char *kind)
{
	for (size_t i = 0; i < MOCK_KIND_COUNT; i++) {
		const mock_resource *r = &resources[i];
		if (str_eq(r->api_version, api_version) && str_eq(r->kind, kind))
			return r;
	}
	return NULL;
}

const mock_resource *mock_resource_get(mock_kind id)
{
	return (unsigned)id < MOCK_KIND_COUNT ? &resources[id] : NULL;
}
