/* The wire schema tables (nodelet/schema.h): each struct's fields in the Go
 * struct order of k8s.io/api v0.32 and k8s.io/apimachinery v0.32, with the
 * `omitempty` / pointer choices of their JSON tags and the field numbers of
 * their generated.proto. */
#include <nodelet/schema.h>

#include <string.h>

#define OE NL_F_OMITEMPTY
#define PTR NL_F_PTR
#define F(n, t, fl, gt, num)                                                          \
	{                                                                             \
		.name = (n), .type = (t), .flags = (fl), .go_type = (gt), .pb = (num) \
	}
#define STR(n, fl, gt, num) F(n, NL_FT_STRING, fl, gt, num)
#define OBJ(n, fl, gt, s, num)                                                                  \
	{                                                                                       \
		.name = (n), .type = NL_FT_OBJECT, .flags = (fl), .go_type = (gt), .sub = &(s), \
		.pb = (num)                                                                     \
	}
#define ARR(n, fl, gt, et, s, num)                                                              \
	{                                                                                       \
		.name = (n), .type = NL_FT_ARRAY, .flags = (fl), .go_type = (gt), .elem = (et), \
		.sub = (s), .pb = (num)                                                         \
	}
#define NFIELDS(a) (sizeof(a) / sizeof((a)[0]))
#define SCHEMA(var, goname, fields) \
	static const nl_schema var = {(goname), (fields), NFIELDS(fields)}
#define PUBLIC_SCHEMA(var, goname, fields) \
	const nl_schema var = {(goname), (fields), NFIELDS(fields)}

#define TYPEMETA                                      \
	STR("kind", OE | NL_F_TYPEMETA, "string", 0), \
	    STR("apiVersion", OE | NL_F_TYPEMETA, "string", 0)

/* ------------------------------------------------------------ ObjectMeta */

static const nl_field owner_ref_fields[] = {
    STR("apiVersion", 0, "string", 5),
    STR("kind", 0, "string", 1),
    STR("name", 0, "string", 3),
    STR("uid", 0, "types.UID", 4),
    F("controller", NL_FT_BOOL, OE | PTR, "bool", 6),
    F("blockOwnerDeletion", NL_FT_BOOL, OE | PTR, "bool", 7),
};
SCHEMA(owner_ref_schema, "OwnerReference", owner_ref_fields);

static const nl_field managed_fields_fields[] = {
    STR("manager", OE, "string", 1),     STR("operation", OE, "v1.ManagedFieldsOperationType", 2),
    STR("apiVersion", OE, "string", 3),  F("time", NL_FT_TIME, OE | PTR, "v1.Time", 4),
    STR("fieldsType", OE, "string", 6),  F("fieldsV1", NL_FT_RAW, OE | PTR, "v1.FieldsV1", 7),
    STR("subresource", OE, "string", 8),
};
SCHEMA(managed_fields_schema, "ManagedFieldsEntry", managed_fields_fields);

static const nl_field object_meta_fields[] = {
    STR("name", OE, "string", 1),
    STR("generateName", OE, "string", 2),
    STR("namespace", OE, "string", 3),
    STR("selfLink", OE, "string", 4),
    STR("uid", OE, "types.UID", 5),
    STR("resourceVersion", OE, "string", 6),
    F("generation", NL_FT_INT64, OE, "int64", 7),
    F("creationTimestamp", NL_FT_TIME, OE, "v1.Time", 8),
    F("deletionTimestamp", NL_FT_TIME, OE | PTR, "v1.Time", 9),
    F("deletionGracePeriodSeconds", NL_FT_INT64, OE | PTR, "int64", 10),
    F("labels", NL_FT_MAP_STRING, OE, "map[string]string", 11),
    F("annotations", NL_FT_MAP_STRING, OE, "map[string]string", 12),
    ARR("ownerReferences", OE, "[]v1.OwnerReference", NL_FT_OBJECT, &owner_ref_schema, 13),
    ARR("finalizers", OE, "[]string", NL_FT_STRING, NULL, 14),
    ARR("managedFields", OE, "[]v1.ManagedFieldsEntry", NL_FT_OBJECT, &managed_fields_schema, 17),
};
PUBLIC_SCHEMA(nl_schema_object_meta, "ObjectMeta", object_meta_fields);

#define METADATA(num) OBJ("metadata", OE, "v1.ObjectMeta", nl_schema_object_meta, num)

static const nl_field list_meta_fields[] = {
    STR("selfLink", OE, "string", 1),
    STR("resourceVersion", OE, "string", 2),
    STR("continue", OE, "string", 3),
    F("remainingItemCount", NL_FT_INT64, OE | PTR, "int64", 4),
};
PUBLIC_SCHEMA(nl_schema_list_meta, "ListMeta", list_meta_fields);

#define LISTMETA OBJ("metadata", OE, "v1.ListMeta", nl_schema_list_meta, 1)

/* ------------------------------------------------------------- Namespace */

static const nl_field namespace_condition_fields[] = {
    STR("type", 0, "v1.NamespaceConditionType", 1),
    STR("status", 0, "v1.ConditionStatus", 2),
    F("lastTransitionTime", NL_FT_TIME, OE, "v1.Time", 4),
    STR("reason", OE, "string", 5),
    STR("message", OE, "string", 6),
};
SCHEMA(namespace_condition_schema, "NamespaceCondition", namespace_condition_fields);

static const nl_field namespace_spec_fields[] = {
    ARR("finalizers", OE, "[]v1.FinalizerName", NL_FT_STRING, NULL, 1),
};
SCHEMA(namespace_spec_schema, "NamespaceSpec", namespace_spec_fields);

static const nl_field namespace_status_fields[] = {
    STR("phase", OE, "v1.NamespacePhase", 1),
    ARR("conditions", OE, "[]v1.NamespaceCondition", NL_FT_OBJECT, &namespace_condition_schema, 2),
};
SCHEMA(namespace_status_schema, "NamespaceStatus", namespace_status_fields);

static const nl_field namespace_fields[] = {
    TYPEMETA,
    METADATA(1),
    OBJ("spec", OE, "v1.NamespaceSpec", namespace_spec_schema, 2),
    OBJ("status", OE, "v1.NamespaceStatus", namespace_status_schema, 3),
};
PUBLIC_SCHEMA(nl_schema_namespace, "Namespace", namespace_fields);

/* ------------------------------------------------------------------ Node */

static const nl_field taint_fields[] = {
    STR("key", 0, "string", 1),
    STR("value", OE, "string", 2),
    STR("effect", 0, "v1.TaintEffect", 3),
    F("timeAdded", NL_FT_TIME, OE | PTR, "v1.Time", 4),
};
SCHEMA(taint_schema, "Taint", taint_fields);

static const nl_field configmap_source_fields[] = {
    STR("namespace", 0, "string", 1),        STR("name", 0, "string", 2),
    STR("uid", OE, "types.UID", 3),          STR("resourceVersion", OE, "string", 4),
    STR("kubeletConfigKey", 0, "string", 5),
};
SCHEMA(configmap_source_schema, "ConfigMapNodeConfigSource", configmap_source_fields);

static const nl_field node_config_source_fields[] = {
    OBJ("configMap", OE | PTR, "v1.ConfigMapNodeConfigSource", configmap_source_schema, 2),
};
SCHEMA(node_config_source_schema, "NodeConfigSource", node_config_source_fields);

static const nl_field node_spec_fields[] = {
    STR("podCIDR", OE, "string", 1),
    ARR("podCIDRs", OE, "[]string", NL_FT_STRING, NULL, 7),
    STR("providerID", OE, "string", 3),
    F("unschedulable", NL_FT_BOOL, OE, "bool", 4),
    ARR("taints", OE, "[]v1.Taint", NL_FT_OBJECT, &taint_schema, 5),
    OBJ("configSource", OE | PTR, "v1.NodeConfigSource", node_config_source_schema, 6),
    STR("externalID", OE, "string", 2),
};
SCHEMA(node_spec_schema, "NodeSpec", node_spec_fields);

static const nl_field node_condition_fields[] = {
    STR("type", 0, "v1.NodeConditionType", 1),
    STR("status", 0, "v1.ConditionStatus", 2),
    F("lastHeartbeatTime", NL_FT_TIME, OE, "v1.Time", 3),
    F("lastTransitionTime", NL_FT_TIME, OE, "v1.Time", 4),
    STR("reason", OE, "string", 5),
    STR("message", OE, "string", 6),
};
SCHEMA(node_condition_schema, "NodeCondition", node_condition_fields);

static const nl_field node_address_fields[] = {
    STR("type", 0, "v1.NodeAddressType", 1),
    STR("address", 0, "string", 2),
};
SCHEMA(node_address_schema, "NodeAddress", node_address_fields);

static const nl_field daemon_endpoint_fields[] = {
    F("Port", NL_FT_INT32, 0, "int32", 1),
};
SCHEMA(daemon_endpoint_schema, "DaemonEndpoint", daemon_endpoint_fields);

static const nl_field daemon_endpoints_fields[] = {
    OBJ("kubeletEndpoint", OE, "v1.DaemonEndpoint", daemon_endpoint_schema, 1),
};
SCHEMA(daemon_endpoints_schema, "NodeDaemonEndpoints", daemon_endpoints_fields);

static const nl_field node_info_fields[] = {
    STR("machineID", 0, "string", 1),       STR("systemUUID", 0, "string", 2),
    STR("bootID", 0, "string", 3),          STR("kernelVersion", 0, "string", 4),
    STR("osImage", 0, "string", 5),         STR("containerRuntimeVersion", 0, "string", 6),
    STR("kubeletVersion", 0, "string", 7),  STR("kubeProxyVersion", 0, "string", 8),
    STR("operatingSystem", 0, "string", 9), STR("architecture", 0, "string", 10),
};
SCHEMA(node_info_schema, "NodeSystemInfo", node_info_fields);

static const nl_field image_fields[] = {
    ARR("names", 0, "[]string", NL_FT_STRING, NULL, 1),
    F("sizeBytes", NL_FT_INT64, OE, "int64", 2),
};
SCHEMA(image_schema, "ContainerImage", image_fields);

static const nl_field attached_volume_fields[] = {
    STR("name", 0, "v1.UniqueVolumeName", 1),
    STR("devicePath", 0, "string", 2),
};
SCHEMA(attached_volume_schema, "AttachedVolume", attached_volume_fields);

static const nl_field node_config_status_fields[] = {
    OBJ("assigned", OE | PTR, "v1.NodeConfigSource", node_config_source_schema, 1),
    OBJ("active", OE | PTR, "v1.NodeConfigSource", node_config_source_schema, 2),
    OBJ("lastKnownGood", OE | PTR, "v1.NodeConfigSource", node_config_source_schema, 3),
    STR("error", OE, "string", 4),
};
SCHEMA(node_config_status_schema, "NodeConfigStatus", node_config_status_fields);

static const nl_field handler_features_fields[] = {
    F("recursiveReadOnlyMounts", NL_FT_BOOL, OE | PTR, "bool", 1),
    F("userNamespaces", NL_FT_BOOL, OE | PTR, "bool", 2),
};
SCHEMA(handler_features_schema, "NodeRuntimeHandlerFeatures", handler_features_fields);

static const nl_field runtime_handler_fields[] = {
    STR("name", 0, "string", 1),
    OBJ("features", OE | PTR, "v1.NodeRuntimeHandlerFeatures", handler_features_schema, 2),
};
SCHEMA(runtime_handler_schema, "NodeRuntimeHandler", runtime_handler_fields);

static const nl_field node_features_fields[] = {
    F("supplementalGroupsPolicy", NL_FT_BOOL, OE | PTR, "bool", 1),
};
SCHEMA(node_features_schema, "NodeFeatures", node_features_fields);

static const nl_field node_status_fields[] = {
    F("capacity", NL_FT_MAP_QUANTITY, OE, "v1.ResourceList", 1),
    F("allocatable", NL_FT_MAP_QUANTITY, OE, "v1.ResourceList", 2),
    STR("phase", OE, "v1.NodePhase", 3),
    ARR("conditions", OE, "[]v1.NodeCondition", NL_FT_OBJECT, &node_condition_schema, 4),
    ARR("addresses", OE, "[]v1.NodeAddress", NL_FT_OBJECT, &node_address_schema, 5),
    OBJ("daemonEndpoints", OE, "v1.NodeDaemonEndpoints", daemon_endpoints_schema, 6),
    OBJ("nodeInfo", OE, "v1.NodeSystemInfo", node_info_schema, 7),
    ARR("images", OE, "[]v1.ContainerImage", NL_FT_OBJECT, &image_schema, 8),
    ARR("volumesInUse", OE, "[]v1.UniqueVolumeName", NL_FT_STRING, NULL, 9),
    ARR("volumesAttached", OE, "[]v1.AttachedVolume", NL_FT_OBJECT, &attached_volume_schema, 10),
    OBJ("config", OE | PTR, "v1.NodeConfigStatus", node_config_status_schema, 11),
    ARR("runtimeHandlers", OE, "[]v1.NodeRuntimeHandler", NL_FT_OBJECT, &runtime_handler_schema,
        12),
    OBJ("features", OE | PTR, "v1.NodeFeatures", node_features_schema, 13),
};
SCHEMA(node_status_schema, "NodeStatus", node_status_fields);

static const nl_field node_fields[] = {
    TYPEMETA,
    METADATA(1),
    OBJ("spec", OE, "v1.NodeSpec", node_spec_schema, 2),
    OBJ("status", OE, "v1.NodeStatus", node_status_schema, 3),
};
PUBLIC_SCHEMA(nl_schema_node, "Node", node_fields);

/* ------------------------------------------------------------- ConfigMap */

static const nl_field configmap_fields[] = {
    TYPEMETA,
    METADATA(1),
    F("immutable", NL_FT_BOOL, OE | PTR, "bool", 4),
    F("data", NL_FT_MAP_STRING, OE, "map[string]string", 2),
    F("binaryData", NL_FT_MAP_BYTES, OE, "map[string][]uint8", 3),
};
PUBLIC_SCHEMA(nl_schema_configmap, "ConfigMap", configmap_fields);

/* ----------------------------------------------------------------- Event */

static const nl_field object_ref_fields[] = {
    STR("kind", OE, "string", 1),       STR("namespace", OE, "string", 2),
    STR("name", OE, "string", 3),       STR("uid", OE, "types.UID", 4),
    STR("apiVersion", OE, "string", 5), STR("resourceVersion", OE, "string", 6),
    STR("fieldPath", OE, "string", 7),
};
SCHEMA(object_ref_schema, "ObjectReference", object_ref_fields);

static const nl_field event_source_fields[] = {
    STR("component", OE, "string", 1),
    STR("host", OE, "string", 2),
};
SCHEMA(event_source_schema, "EventSource", event_source_fields);

static const nl_field event_series_fields[] = {
    F("count", NL_FT_INT32, OE, "int32", 1),
    F("lastObservedTime", NL_FT_MICROTIME, OE, "v1.MicroTime", 2),
};
SCHEMA(event_series_schema, "EventSeries", event_series_fields);

static const nl_field event_fields[] = {
    TYPEMETA,
    OBJ("metadata", 0, "v1.ObjectMeta", nl_schema_object_meta, 1),
    OBJ("involvedObject", 0, "v1.ObjectReference", object_ref_schema, 2),
    STR("reason", OE, "string", 3),
    STR("message", OE, "string", 4),
    OBJ("source", OE, "v1.EventSource", event_source_schema, 5),
    F("firstTimestamp", NL_FT_TIME, OE, "v1.Time", 6),
    F("lastTimestamp", NL_FT_TIME, OE, "v1.Time", 7),
    F("count", NL_FT_INT32, OE, "int32", 8),
    STR("type", OE, "string", 9),
    F("eventTime", NL_FT_MICROTIME, OE, "v1.MicroTime", 10),
    OBJ("series", OE | PTR, "v1.EventSeries", event_series_schema, 11),
    STR("action", OE, "string", 12),
    OBJ("related", OE | PTR, "v1.ObjectReference", object_ref_schema, 13),
    STR("reportingComponent", 0, "string", 14),
    STR("reportingInstance", 0, "string", 15),
};
PUBLIC_SCHEMA(nl_schema_event, "Event", event_fields);

/* ----------------------------------------------------------------- Lease */

static const nl_field lease_spec_fields[] = {
    STR("holderIdentity", OE | PTR, "string", 1),
    F("leaseDurationSeconds", NL_FT_INT32, OE | PTR, "int32", 2),
    F("acquireTime", NL_FT_MICROTIME, OE | PTR, "v1.MicroTime", 3),
    F("renewTime", NL_FT_MICROTIME, OE | PTR, "v1.MicroTime", 4),
    F("leaseTransitions", NL_FT_INT32, OE | PTR, "int32", 5),
    /* CoordinatedLeaderElection is off in 1.32: PrepareForCreate/Update drop these. */
    STR("strategy", OE | PTR | NL_F_DROP, "v1.CoordinatedLeaseStrategy", 6),
    STR("preferredHolder", OE | PTR | NL_F_DROP, "string", 7),
};
SCHEMA(lease_spec_schema, "LeaseSpec", lease_spec_fields);

static const nl_field lease_fields[] = {
    TYPEMETA,
    METADATA(1),
    OBJ("spec", OE, "v1.LeaseSpec", lease_spec_schema, 2),
};
PUBLIC_SCHEMA(nl_schema_lease, "Lease", lease_fields);

/* ------------------------------------------------------------------- Pod */

/* Sub-structures the mock stores as sent without looking inside (volumes,
 * probes, affinity, security contexts ...): RAW keeps them in JSON and they
 * have no protobuf number, so the protobuf form leaves them out
 * (docs/mockapi.md). */
#define RAWF(n, gt) F(n, NL_FT_RAW, OE, gt, 0)

static const nl_field resource_req_fields[] = {
    F("limits", NL_FT_MAP_QUANTITY, OE, "v1.ResourceList", 1),
    F("requests", NL_FT_MAP_QUANTITY, OE, "v1.ResourceList", 2),
    RAWF("claims", "[]v1.ResourceClaim"),
};
SCHEMA(resource_req_schema, "ResourceRequirements", resource_req_fields);

static const nl_field container_port_fields[] = {
    STR("name", OE, "string", 1),
    F("hostPort", NL_FT_INT32, OE, "int32", 2),
    F("containerPort", NL_FT_INT32, 0, "int32", 3),
    STR("protocol", OE, "v1.Protocol", 4),
    STR("hostIP", OE, "string", 5),
};
SCHEMA(container_port_schema, "ContainerPort", container_port_fields);

static const nl_field env_var_fields[] = {
    STR("name", 0, "string", 1),
    STR("value", OE, "string", 2),
    RAWF("valueFrom", "v1.EnvVarSource"),
};
SCHEMA(env_var_schema, "EnvVar", env_var_fields);

static const nl_field volume_mount_fields[] = {
    STR("name", 0, "string", 1),
    F("readOnly", NL_FT_BOOL, OE, "bool", 2),
    STR("recursiveReadOnly", OE | PTR, "v1.RecursiveReadOnlyMode", 7),
    STR("mountPath", 0, "string", 3),
    STR("subPath", OE, "string", 4),
    STR("mountPropagation", OE | PTR, "v1.MountPropagationMode", 5),
    STR("subPathExpr", OE, "string", 6),
};
SCHEMA(volume_mount_schema, "VolumeMount", volume_mount_fields);

static const nl_field container_fields[] = {
    STR("name", 0, "string", 1),
    STR("image", OE, "string", 2),
    ARR("command", OE, "[]string", NL_FT_STRING, NULL, 3),
    ARR("args", OE, "[]string", NL_FT_STRING, NULL, 4),
    STR("workingDir", OE, "string", 5),
    ARR("ports", OE, "[]v1.ContainerPort", NL_FT_OBJECT, &container_port_schema, 6),
    RAWF("envFrom", "[]v1.EnvFromSource"),
    ARR("env", OE, "[]v1.EnvVar", NL_FT_OBJECT, &env_var_schema, 7),
    OBJ("resources", OE, "v1.ResourceRequirements", resource_req_schema, 8),
    RAWF("resizePolicy", "[]v1.ContainerResizePolicy"),
    STR("restartPolicy", OE | PTR, "v1.ContainerRestartPolicy", 24),
    ARR("volumeMounts", OE, "[]v1.VolumeMount", NL_FT_OBJECT, &volume_mount_schema, 9),
    RAWF("volumeDevices", "[]v1.VolumeDevice"),
    RAWF("livenessProbe", "v1.Probe"),
    RAWF("readinessProbe", "v1.Probe"),
    RAWF("startupProbe", "v1.Probe"),
    RAWF("lifecycle", "v1.Lifecycle"),
    STR("terminationMessagePath", OE, "string", 13),
    STR("terminationMessagePolicy", OE, "v1.TerminationMessagePolicy", 20),
    STR("imagePullPolicy", OE, "v1.PullPolicy", 14),
    RAWF("securityContext", "v1.SecurityContext"),
    F("stdin", NL_FT_BOOL, OE, "bool", 16),
    F("stdinOnce", NL_FT_BOOL, OE, "bool", 17),
    F("tty", NL_FT_BOOL, OE, "bool", 18),
};
SCHEMA(container_schema, "Container", container_fields);

static const nl_field local_ref_fields[] = {
    STR("name", OE, "string", 1),
};
SCHEMA(local_ref_schema, "LocalObjectReference", local_ref_fields);

static const nl_field toleration_fields[] = {
    STR("key", OE, "string", 1),
    STR("operator", OE, "v1.TolerationOperator", 2),
    STR("value", OE, "string", 3),
    STR("effect", OE, "v1.TaintEffect", 4),
    F("tolerationSeconds", NL_FT_INT64, OE | PTR, "int64", 5),
};
SCHEMA(toleration_schema, "Toleration", toleration_fields);

static const nl_field readiness_gate_fields[] = {
    STR("conditionType", 0, "v1.PodConditionType", 1),
};
SCHEMA(readiness_gate_schema, "PodReadinessGate", readiness_gate_fields);

static const nl_field pod_spec_fields[] = {
    RAWF("volumes", "[]v1.Volume"),
    ARR("initContainers", OE, "[]v1.Container", NL_FT_OBJECT, &container_schema, 20),
    ARR("containers", 0, "[]v1.Container", NL_FT_OBJECT, &container_schema, 2),
    RAWF("ephemeralContainers", "[]v1.EphemeralContainer"),
    STR("restartPolicy", OE, "v1.RestartPolicy", 3),
    F("terminationGracePeriodSeconds", NL_FT_INT64, OE | PTR, "int64", 4),
    F("activeDeadlineSeconds", NL_FT_INT64, OE | PTR, "int64", 5),
    STR("dnsPolicy", OE, "v1.DNSPolicy", 6),
    F("nodeSelector", NL_FT_MAP_STRING, OE, "map[string]string", 7),
    STR("serviceAccountName", OE, "string", 8),
    STR("serviceAccount", OE, "string", 9),
    F("automountServiceAccountToken", NL_FT_BOOL, OE | PTR, "bool", 21),
    STR("nodeName", OE, "string", 10),
    F("hostNetwork", NL_FT_BOOL, OE, "bool", 11),
    F("hostPID", NL_FT_BOOL, OE, "bool", 12),
    F("hostIPC", NL_FT_BOOL, OE, "bool", 13),
    F("shareProcessNamespace", NL_FT_BOOL, OE | PTR, "bool", 27),
    RAWF("securityContext", "v1.PodSecurityContext"),
    ARR("imagePullSecrets", OE, "[]v1.LocalObjectReference", NL_FT_OBJECT, &local_ref_schema, 15),
    STR("hostname", OE, "string", 16),
    STR("subdomain", OE, "string", 17),
    RAWF("affinity", "v1.Affinity"),
    STR("schedulerName", OE, "string", 19),
    ARR("tolerations", OE, "[]v1.Toleration", NL_FT_OBJECT, &toleration_schema, 22),
    RAWF("hostAliases", "[]v1.HostAlias"),
    STR("priorityClassName", OE, "string", 24),
    F("priority", NL_FT_INT32, OE | PTR, "int32", 25),
    RAWF("dnsConfig", "v1.PodDNSConfig"),
    ARR("readinessGates", OE, "[]v1.PodReadinessGate", NL_FT_OBJECT, &readiness_gate_schema, 28),
    STR("runtimeClassName", OE | PTR, "string", 29),
    F("enableServiceLinks", NL_FT_BOOL, OE | PTR, "bool", 30),
    STR("preemptionPolicy", OE | PTR, "v1.PreemptionPolicy", 31),
    F("overhead", NL_FT_MAP_QUANTITY, OE, "v1.ResourceList", 32),
    RAWF("topologySpreadConstraints", "[]v1.TopologySpreadConstraint"),
    F("setHostnameAsFQDN", NL_FT_BOOL, OE | PTR, "bool", 35),
    RAWF("os", "v1.PodOS"),
    F("hostUsers", NL_FT_BOOL, OE | PTR, "bool", 37),
    RAWF("schedulingGates", "[]v1.PodSchedulingGate"),
    RAWF("resourceClaims", "[]v1.PodResourceClaim"),
};
SCHEMA(pod_spec_schema, "PodSpec", pod_spec_fields);

static const nl_field pod_condition_fields[] = {
    STR("type", 0, "v1.PodConditionType", 1),
    STR("status", 0, "v1.ConditionStatus", 2),
    F("lastProbeTime", NL_FT_TIME, OE, "v1.Time", 3),
    F("lastTransitionTime", NL_FT_TIME, OE, "v1.Time", 4),
    STR("reason", OE, "string", 5),
    STR("message", OE, "string", 6),
};
SCHEMA(pod_condition_schema, "PodCondition", pod_condition_fields);

static const nl_field pod_ip_fields[] = {
    STR("ip", 0, "string", 1),
};
SCHEMA(pod_ip_schema, "PodIP", pod_ip_fields);
SCHEMA(host_ip_schema, "HostIP", pod_ip_fields);

static const nl_field state_waiting_fields[] = {
    STR("reason", OE, "string", 1),
    STR("message", OE, "string", 2),
};
SCHEMA(state_waiting_schema, "ContainerStateWaiting", state_waiting_fields);

static const nl_field state_running_fields[] = {
    F("startedAt", NL_FT_TIME, OE, "v1.Time", 1),
};
SCHEMA(state_running_schema, "ContainerStateRunning", state_running_fields);

static const nl_field state_terminated_fields[] = {
    F("exitCode", NL_FT_INT32, 0, "int32", 1),
    F("signal", NL_FT_INT32, OE, "int32", 2),
    STR("reason", OE, "string", 3),
    STR("message", OE, "string", 4),
    F("startedAt", NL_FT_TIME, OE, "v1.Time", 5),
    F("finishedAt", NL_FT_TIME, OE, "v1.Time", 6),
    STR("containerID", OE, "string", 7),
};
SCHEMA(state_terminated_schema, "ContainerStateTerminated", state_terminated_fields);

static const nl_field container_state_fields[] = {
    OBJ("waiting", OE | PTR, "v1.ContainerStateWaiting", state_waiting_schema, 1),
    OBJ("running", OE | PTR, "v1.ContainerStateRunning", state_running_schema, 2),
    OBJ("terminated", OE | PTR, "v1.ContainerStateTerminated", state_terminated_schema, 3),
};
SCHEMA(container_state_schema, "ContainerState", container_state_fields);

static const nl_field container_status_fields[] = {
    STR("name", 0, "string", 1),
    OBJ("state", OE, "v1.ContainerState", container_state_schema, 2),
    OBJ("lastState", OE, "v1.ContainerState", container_state_schema, 3),
    F("ready", NL_FT_BOOL, 0, "bool", 4),
    F("restartCount", NL_FT_INT32, 0, "int32", 5),
    STR("image", 0, "string", 6),
    STR("imageID", 0, "string", 7),
    STR("containerID", OE, "string", 8),
    F("started", NL_FT_BOOL, OE | PTR, "bool", 9),
    F("allocatedResources", NL_FT_MAP_QUANTITY, OE, "v1.ResourceList", 10),
    OBJ("resources", OE | PTR, "v1.ResourceRequirements", resource_req_schema, 11),
    RAWF("volumeMounts", "[]v1.VolumeMountStatus"),
    RAWF("user", "v1.ContainerUser"),
    RAWF("allocatedResourcesStatus", "[]v1.ResourceStatus"),
};
SCHEMA(container_status_schema, "ContainerStatus", container_status_fields);

static const nl_field pod_status_fields[] = {
    STR("phase", OE, "v1.PodPhase", 1),
    ARR("conditions", OE, "[]v1.PodCondition", NL_FT_OBJECT, &pod_condition_schema, 2),
    STR("message", OE, "string", 3),
    STR("reason", OE, "string", 4),
    STR("nominatedNodeName", OE, "string", 11),
    STR("hostIP", OE, "string", 5),
    ARR("hostIPs", OE, "[]v1.HostIP", NL_FT_OBJECT, &host_ip_schema, 16),
    STR("podIP", OE, "string", 6),
    ARR("podIPs", OE, "[]v1.PodIP", NL_FT_OBJECT, &pod_ip_schema, 12),
    F("startTime", NL_FT_TIME, OE | PTR, "v1.Time", 7),
    ARR("initContainerStatuses", OE, "[]v1.ContainerStatus", NL_FT_OBJECT, &container_status_schema,
        10),
    ARR("containerStatuses", OE, "[]v1.ContainerStatus", NL_FT_OBJECT, &container_status_schema, 8),
    STR("qosClass", OE, "v1.PodQOSClass", 9),
    ARR("ephemeralContainerStatuses", OE, "[]v1.ContainerStatus", NL_FT_OBJECT,
        &container_status_schema, 13),
    STR("resize", OE, "v1.PodResizeStatus", 14),
    RAWF("resourceClaimStatuses", "[]v1.PodResourceClaimStatus"),
};
SCHEMA(pod_status_schema, "PodStatus", pod_status_fields);

static const nl_field pod_fields[] = {
    TYPEMETA,
    METADATA(1),
    OBJ("spec", OE, "v1.PodSpec", pod_spec_schema, 2),
    OBJ("status", OE, "v1.PodStatus", pod_status_schema, 3),
};
PUBLIC_SCHEMA(nl_schema_pod, "Pod", pod_fields);

/* -------------------------------------------------- meta/v1 and policy/v1 */

static const nl_field status_cause_fields[] = {
    STR("reason", OE, "v1.CauseType", 1),
    STR("message", OE, "string", 2),
    STR("field", OE, "string", 3),
};
SCHEMA(status_cause_schema, "StatusCause", status_cause_fields);

static const nl_field status_details_fields[] = {
    STR("name", OE, "string", 1),
    STR("group", OE, "string", 2),
    STR("kind", OE, "string", 3),
    STR("uid", OE, "types.UID", 6),
    ARR("causes", OE, "[]v1.StatusCause", NL_FT_OBJECT, &status_cause_schema, 4),
    F("retryAfterSeconds", NL_FT_INT32, OE, "int32", 5),
};
SCHEMA(status_details_schema, "StatusDetails", status_details_fields);

static const nl_field status_fields[] = {
    TYPEMETA,
    LISTMETA,
    STR("status", OE, "string", 2),
    STR("message", OE, "string", 3),
    STR("reason", OE, "v1.StatusReason", 4),
    OBJ("details", OE | PTR, "v1.StatusDetails", status_details_schema, 5),
    F("code", NL_FT_INT32, OE, "int32", 6),
};
PUBLIC_SCHEMA(nl_schema_status, "Status", status_fields);

static const nl_field preconditions_fields[] = {
    STR("uid", OE | PTR, "types.UID", 1),
    STR("resourceVersion", OE | PTR, "string", 2),
};
SCHEMA(preconditions_schema, "Preconditions", preconditions_fields);

static const nl_field delete_options_fields[] = {
    TYPEMETA,
    F("gracePeriodSeconds", NL_FT_INT64, OE | PTR, "int64", 1),
    OBJ("preconditions", OE | PTR, "v1.Preconditions", preconditions_schema, 2),
    F("orphanDependents", NL_FT_BOOL, OE | PTR, "bool", 3),
    STR("propagationPolicy", OE | PTR, "v1.DeletionPropagation", 4),
    ARR("dryRun", OE, "[]string", NL_FT_STRING, NULL, 5),
    F("ignoreStoreReadErrorWithClusterBreakingPotential", NL_FT_BOOL, OE | PTR, "bool", 6),
};
PUBLIC_SCHEMA(nl_schema_delete_options, "DeleteOptions", delete_options_fields);

static const nl_field eviction_fields[] = {
    TYPEMETA,
    METADATA(1),
    OBJ("deleteOptions", OE | PTR, "v1.DeleteOptions", nl_schema_delete_options, 2),
};
PUBLIC_SCHEMA(nl_schema_eviction, "Eviction", eviction_fields);

static const nl_field partial_fields[] = {
    TYPEMETA,
    METADATA(1),
};
PUBLIC_SCHEMA(nl_schema_partial_object_metadata, "PartialObjectMetadata", partial_fields);

/* ------------------------------------------- CertificateSigningRequest */

static const nl_field csr_condition_fields[] = {
    STR("type", 0, "v1.RequestConditionType", 1),
    STR("status", 0, "v1.ConditionStatus", 6),
    STR("reason", OE, "string", 2),
    STR("message", OE, "string", 3),
    F("lastUpdateTime", NL_FT_TIME, OE, "v1.Time", 4),
    F("lastTransitionTime", NL_FT_TIME, OE, "v1.Time", 5),
};
SCHEMA(csr_condition_schema, "CertificateSigningRequestCondition", csr_condition_fields);

/* spec.extra is type-checked and never kept: the strategy sets it from the
 * requester, and no authenticator of the mock gives a user extra
 * attributes (docs/decisions/0042). */
static const nl_field csr_spec_fields[] = {
    F("request", NL_FT_BYTES, 0, "[]uint8", 1),
    STR("signerName", 0, "string", 7),
    F("expirationSeconds", NL_FT_INT32, OE | PTR, "int32", 8),
    ARR("usages", OE, "[]v1.KeyUsage", NL_FT_STRING, NULL, 5),
    STR("username", OE, "string", 2),
    STR("uid", OE, "string", 3),
    ARR("groups", OE, "[]string", NL_FT_STRING, NULL, 4),
    F("extra", NL_FT_MAP_STRINGS, OE | NL_F_DROP, "map[string]v1.ExtraValue", 6),
};
SCHEMA(csr_spec_schema, "CertificateSigningRequestSpec", csr_spec_fields);

static const nl_field csr_status_fields[] = {
    ARR("conditions", OE, "[]v1.CertificateSigningRequestCondition", NL_FT_OBJECT,
        &csr_condition_schema, 1),
    F("certificate", NL_FT_BYTES, OE, "[]uint8", 2),
};
SCHEMA(csr_status_schema, "CertificateSigningRequestStatus", csr_status_fields);

static const nl_field csr_fields[] = {
    TYPEMETA,
    METADATA(1),
    OBJ("spec", 0, "v1.CertificateSigningRequestSpec", csr_spec_schema, 2),
    OBJ("status", OE, "v1.CertificateSigningRequestStatus", csr_status_schema, 3),
};
PUBLIC_SCHEMA(nl_schema_csr, "CertificateSigningRequest", csr_fields);

/* ----------------------------------------------------------------- lists */

#define LIST_SCHEMA(var, goname, item)                                                \
	static const nl_field var##_fields[] = {                                      \
	    TYPEMETA,                                                                 \
	    LISTMETA,                                                                 \
	    ARR("items", 0, "[]v1." #item, NL_FT_OBJECT, &nl_schema_##item##_tbl, 2), \
	};                                                                            \
	SCHEMA(var, goname, var##_fields)

#define nl_schema_Namespace_tbl nl_schema_namespace
#define nl_schema_Node_tbl nl_schema_node
#define nl_schema_ConfigMap_tbl nl_schema_configmap
#define nl_schema_Event_tbl nl_schema_event
#define nl_schema_Lease_tbl nl_schema_lease
#define nl_schema_Pod_tbl nl_schema_pod
#define nl_schema_CertificateSigningRequest_tbl nl_schema_csr
#define nl_schema_PartialObjectMetadata_tbl nl_schema_partial_object_metadata
LIST_SCHEMA(namespace_list_schema, "NamespaceList", Namespace);
LIST_SCHEMA(node_list_schema, "NodeList", Node);
LIST_SCHEMA(configmap_list_schema, "ConfigMapList", ConfigMap);
LIST_SCHEMA(event_list_schema, "EventList", Event);
LIST_SCHEMA(lease_list_schema, "LeaseList", Lease);
LIST_SCHEMA(pod_list_schema, "PodList", Pod);
LIST_SCHEMA(csr_list_schema, "CertificateSigningRequestList", CertificateSigningRequest);
LIST_SCHEMA(partial_list_schema, "PartialObjectMetadataList", PartialObjectMetadata);

/* ---------------------------------------------------------------- lookup */

static const struct {
	const char *api_version;
	const char *kind;
	const nl_schema *schema;
} kinds[] = {
    {"v1", "Namespace", &nl_schema_namespace},
    {"v1", "NamespaceList", &namespace_list_schema},
    {"v1", "Node", &nl_schema_node},
    {"v1", "NodeList", &node_list_schema},
    {"v1", "ConfigMap", &nl_schema_configmap},
    {"v1", "ConfigMapList", &configmap_list_schema},
    {"v1", "Event", &nl_schema_event},
    {"v1", "EventList", &event_list_schema},
    {"coordination.k8s.io/v1", "Lease", &nl_schema_lease},
    {"coordination.k8s.io/v1", "LeaseList", &lease_list_schema},
    {"v1", "Pod", &nl_schema_pod},
    {"v1", "PodList", &pod_list_schema},
    {"certificates.k8s.io/v1", "CertificateSigningRequest", &nl_schema_csr},
    {"certificates.k8s.io/v1", "CertificateSigningRequestList", &csr_list_schema},
    {"v1", "Status", &nl_schema_status},
    {"policy/v1", "Eviction", &nl_schema_eviction},
    {"meta.k8s.io/v1", "PartialObjectMetadata", &nl_schema_partial_object_metadata},
    {"meta.k8s.io/v1", "PartialObjectMetadataList", &partial_list_schema},
    {"meta.k8s.io/v1beta1", "PartialObjectMetadata", &nl_schema_partial_object_metadata},
    {"meta.k8s.io/v1beta1", "PartialObjectMetadataList", &partial_list_schema},
};

const nl_schema *nl_schema_for_kind(const char *api_version, const char *kind)
{
	if (!api_version || !kind)
		return NULL;
	/* DeleteOptions is registered in every group version (client-go puts
	 * it in the client's own). */
	if (strcmp(kind, "DeleteOptions") == 0)
		return &nl_schema_delete_options;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kinds[i].kind, kind) == 0 &&
		    strcmp(kinds[i].api_version, api_version) == 0)
			return kinds[i].schema;
	return NULL;
}
