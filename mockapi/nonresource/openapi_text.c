/* The descriptions of every type and field the OpenAPI documents describe
 * (v2 and v3 alike; kubectl explain prints them). Written for
 * nodelet-mockapi: short, and true of what the fields mean in Kubernetes
 * 1.32. A row with field NULL describes the type itself; type "*" rows
 * hold the fields every object shares, "*List" rows those of every list. */
#include <string.h>

#include "openapi.h"

typedef struct {
	const char *type, *field, *text;
} desc_row;

static const desc_row rows[] = {
    /* Shared by every object and every list. */
    {"*", "apiVersion",
     "The versioned schema this object is written in (group/version, or just the version for "
     "the core group). Clients send it; the server answers in the version asked for."},
    {"*", "kind",
     "The type of this object, in CamelCase, as the server names it (Node, ConfigMap, ...). "
     "It cannot be changed."},
    {"*", "metadata",
     "Identity and bookkeeping of the object: name, namespace, labels, annotations, owners, "
     "resourceVersion and the like."},
    {"*List", "metadata",
     "Bookkeeping of the list: the resourceVersion it was read at and the continue token of "
     "the next page."},
    {"*List", "items", "The objects in the list."},

    /* Kinds. */
    {"ConfigMap", NULL,
     "Configuration data as key/value pairs, for pods and agents to read. Not meant for "
     "secrets."},
    {"ConfigMap", "data",
     "Text values by key. Keys are made of letters, digits, '-', '_' and '.'; a key may not "
     "also appear in binaryData."},
    {"ConfigMap", "binaryData",
     "Binary values by key, base64-encoded in JSON. A key may not also appear in data."},
    {"ConfigMap", "immutable",
     "When true, data and binaryData can no longer be changed, only the whole object deleted. "
     "Once set it cannot be unset."},
    {"ConfigMapList", NULL, "A list of ConfigMaps."},
    {"Event", NULL,
     "A report of something that happened to an object (core/v1 form), such as a node "
     "becoming ready or a controller failing. Events expire after a while."},
    {"Event", "action", "What the reporting component did or failed to do, e.g. Binding."},
    {"Event", "count", "How many times this event has occurred."},
    {"Event", "eventTime", "When the event was first observed, with microseconds."},
    {"Event", "firstTimestamp", "When the event was first recorded."},
    {"Event", "involvedObject", "The object the event is about."},
    {"Event", "lastTimestamp", "When the most recent occurrence was recorded."},
    {"Event", "message", "A human-readable account of what happened."},
    {"Event", "reason",
     "A short CamelCase word saying why the event happened, for machines to match on, e.g. "
     "NodeReady."},
    {"Event", "related", "A second object involved, if any."},
    {"Event", "reportingComponent",
     "The controller that emitted the event, e.g. kubelet or "
     "kubernetes.io/node-controller."},
    {"Event", "reportingInstance", "The instance of that controller, e.g. the node's name."},
    {"Event", "series", "Data about a series of the same event, when it repeats."},
    {"Event", "source", "The component and host that reported the event."},
    {"Event", "type", "Normal or Warning."},
    {"EventList", NULL, "A list of Events."},
    {"EventSeries", NULL, "A repeating event, summarised."},
    {"EventSeries", "count", "How many times the event has occurred in the series so far."},
    {"EventSeries", "lastObservedTime", "When the last occurrence was observed."},
    {"EventSource", NULL, "Where an event came from."},
    {"EventSource", "component", "The component that reported the event."},
    {"EventSource", "host", "The node the event came from."},
    {"CertificateSigningRequest", NULL,
     "A request for a certificate: a PKCS#10 request that an approver approves or denies "
     "and a signer then answers with a certificate."},
    {"CertificateSigningRequest", "spec", "The request and what it asks for; fixed once created."},
    {"CertificateSigningRequest", "status",
     "Approval conditions and the issued certificate, written through /approval and "
     "/status."},
    {"CertificateSigningRequestList", NULL, "A list of CertificateSigningRequests."},
    {"CertificateSigningRequestSpec", NULL, "What a certificate request asks for and who asked."},
    {"CertificateSigningRequestSpec", "request", "The PEM CERTIFICATE REQUEST, base64 in JSON."},
    {"CertificateSigningRequestSpec", "signerName",
     "Which signer is asked to sign, as domain/name, e.g. "
     "kubernetes.io/kube-apiserver-client-kubelet."},
    {"CertificateSigningRequestSpec", "expirationSeconds",
     "The lifetime asked for, at least 600 seconds; a signer may issue a shorter one."},
    {"CertificateSigningRequestSpec", "usages",
     "Key usages asked for, e.g. digital signature, client auth."},
    {"CertificateSigningRequestSpec", "username", "Who created the request; set by the server."},
    {"CertificateSigningRequestSpec", "uid",
     "The uid of who created the request; set by the server."},
    {"CertificateSigningRequestSpec", "groups",
     "The groups of who created the request; set by the server."},
    {"CertificateSigningRequestSpec", "extra",
     "Extra attributes of who created the request; set by the server."},
    {"CertificateSigningRequestStatus", NULL, "The approval state and the issued certificate."},
    {"CertificateSigningRequestStatus", "conditions",
     "Approved, Denied, Failed and other conditions."},
    {"CertificateSigningRequestStatus", "certificate",
     "The issued certificate chain, PEM, once a signer has signed; base64 in JSON."},
    {"CertificateSigningRequestCondition", NULL, "One state the request is in."},
    {"CertificateSigningRequestCondition", "type", "Approved, Denied, Failed or another type."},
    {"CertificateSigningRequestCondition", "status",
     "True, False or Unknown; True for Approved, Denied and Failed."},
    {"CertificateSigningRequestCondition", "reason",
     "A CamelCase word for why, e.g. AutoApproved."},
    {"CertificateSigningRequestCondition", "message", "A human-readable account of why."},
    {"CertificateSigningRequestCondition", "lastUpdateTime",
     "When the condition was last written."},
    {"CertificateSigningRequestCondition", "lastTransitionTime",
     "When the condition last changed status."},
    {"Lease", NULL,
     "A lease: a small record one holder renews to show it is alive or to keep a lock. "
     "Kubelets renew one per node in kube-node-lease."},
    {"Lease", "spec", "The holder and the timing of the lease."},
    {"LeaseList", NULL, "A list of Leases."},
    {"LeaseSpec", NULL, "Who holds a lease and for how long."},
    {"LeaseSpec", "acquireTime", "When the current holder took the lease."},
    {"LeaseSpec", "holderIdentity", "The identity of the current holder."},
    {"LeaseSpec", "leaseDurationSeconds",
     "How long, in seconds after renewTime, candidates must wait before they may take the "
     "lease over."},
    {"LeaseSpec", "leaseTransitions", "How many times the lease has changed holder."},
    {"LeaseSpec", "preferredHolder",
     "The holder the lease should pass to next, when a strategy is in use (coordinated "
     "leader election)."},
    {"LeaseSpec", "renewTime",
     "When the holder last renewed the lease, with microseconds. The lease is held until "
     "renewTime plus leaseDurationSeconds."},
    {"LeaseSpec", "strategy",
     "How a new holder is chosen in coordinated leader election, e.g. OldestEmulationVersion."},
    {"Namespace", NULL,
     "A scope for names: namespaced objects are unique by name within one namespace."},
    {"Namespace", "spec", "How the namespace is to be handled."},
    {"Namespace", "status", "The phase and conditions of the namespace, set by the server."},
    {"NamespaceList", NULL, "A list of Namespaces."},
    {"NamespaceSpec", NULL, "How a namespace is to be handled."},
    {"NamespaceSpec", "finalizers",
     "What must be cleaned up before the namespace is removed; kubernetes means its objects "
     "are deleted first."},
    {"NamespaceStatus", NULL, "The observed state of a namespace."},
    {"NamespaceStatus", "conditions", "What is known about the namespace's deletion."},
    {"NamespaceStatus", "phase", "Active, or Terminating once deletion has begun."},
    {"NamespaceCondition", NULL, "One aspect of a namespace's state."},
    {"NamespaceCondition", "lastTransitionTime", "When the status last changed."},
    {"NamespaceCondition", "message", "A human-readable account of the condition."},
    {"NamespaceCondition", "reason", "A CamelCase word for why the condition is as it is."},
    {"NamespaceCondition", "status", "True, False or Unknown."},
    {"NamespaceCondition", "type", "The aspect reported, e.g. NamespaceDeletionContentFailure."},
    {"Node", NULL,
     "A machine that runs pods. Its kubelet registers it and keeps its status current."},
    {"Node", "spec", "How the node is to be used: pod CIDRs, taints, unschedulable."},
    {"Node", "status",
     "The observed state of the node, written by its kubelet: conditions, capacity, "
     "addresses, system info."},
    {"NodeList", NULL, "A list of Nodes."},
    {"NodeSpec", NULL, "How a node is to be used."},
    {"NodeSpec", "configSource", "Deprecated; no longer used by kubelets."},
    {"NodeSpec", "externalID", "Deprecated; kept for old clients."},
    {"NodeSpec", "podCIDR", "The IP range for pods on this node (the first of podCIDRs)."},
    {"NodeSpec", "podCIDRs", "The IP ranges for pods on this node, at most one per IP family."},
    {"NodeSpec", "providerID", "The cloud provider's ID for the machine, <provider>://<id>."},
    {"NodeSpec", "taints", "Taints that keep pods off the node unless they tolerate them."},
    {"NodeSpec", "unschedulable",
     "When true, no new pods are scheduled here (kubectl cordon sets it)."},
    {"NodeStatus", NULL, "The observed state of a node."},
    {"NodeStatus", "addresses",
     "How the node can be reached, one entry per type (InternalIP, Hostname, ...)."},
    {"NodeStatus", "allocatable",
     "The resources left for pods: capacity less what is reserved for the system and the "
     "eviction thresholds."},
    {"NodeStatus", "capacity", "The node's total resources: cpu, memory, pods, storage."},
    {"NodeStatus", "conditions",
     "The node's health, one entry per type: Ready, MemoryPressure, DiskPressure, "
     "PIDPressure, NetworkUnavailable."},
    {"NodeStatus", "config", "What dynamic kubelet configuration the node uses."},
    {"NodeStatus", "daemonEndpoints", "The ports the node's daemons listen on."},
    {"NodeStatus", "features", "Features the node's kubelet and runtime support."},
    {"NodeStatus", "images", "Container images present on the node."},
    {"NodeStatus", "nodeInfo", "Versions and identifiers of the node's system."},
    {"NodeStatus", "phase", "Deprecated; not set by kubelets."},
    {"NodeStatus", "runtimeHandlers", "The container runtime's handlers and their features."},
    {"NodeStatus", "volumesAttached", "Volumes attached to the node."},
    {"NodeStatus", "volumesInUse", "Volumes the node's pods are using."},
    {"NodeCondition", NULL, "One aspect of a node's health."},
    {"NodeCondition", "lastHeartbeatTime", "When the kubelet last reported this condition."},
    {"NodeCondition", "lastTransitionTime", "When the status last changed."},
    {"NodeCondition", "message", "A human-readable account of the condition."},
    {"NodeCondition", "reason",
     "A CamelCase word for why the condition is as it is, e.g. KubeletReady."},
    {"NodeCondition", "status", "True, False or Unknown."},
    {"NodeCondition", "type", "The aspect reported, e.g. Ready or MemoryPressure."},
    {"NodeAddress", NULL, "One address of a node."},
    {"NodeAddress", "address", "The address: an IP or a DNS name."},
    {"NodeAddress", "type", "Hostname, InternalIP, ExternalIP, InternalDNS or ExternalDNS."},
    {"NodeConfigSource", NULL, "Deprecated: where dynamic kubelet configuration came from."},
    {"NodeConfigSource", "configMap", "The ConfigMap holding the configuration."},
    {"ConfigMapNodeConfigSource", NULL, "A ConfigMap used as kubelet configuration."},
    {"ConfigMapNodeConfigSource", "kubeletConfigKey",
     "The key in the ConfigMap whose value is the configuration."},
    {"ConfigMapNodeConfigSource", "name", "The ConfigMap's name."},
    {"ConfigMapNodeConfigSource", "namespace", "The ConfigMap's namespace."},
    {"ConfigMapNodeConfigSource", "resourceVersion",
     "The ConfigMap's resourceVersion, in status only."},
    {"ConfigMapNodeConfigSource", "uid", "The ConfigMap's uid, in status only."},
    {"NodeConfigStatus", NULL, "The state of dynamic kubelet configuration on a node."},
    {"NodeConfigStatus", "active", "The configuration the kubelet runs with."},
    {"NodeConfigStatus", "assigned", "The configuration the kubelet was told to use."},
    {"NodeConfigStatus", "error", "Why the assigned configuration could not be used, if so."},
    {"NodeConfigStatus", "lastKnownGood",
     "The configuration the kubelet falls back to when the assigned one fails."},
    {"NodeDaemonEndpoints", NULL, "Ports of the daemons on a node."},
    {"NodeDaemonEndpoints", "kubeletEndpoint", "The port the kubelet listens on."},
    {"DaemonEndpoint", NULL, "A port a daemon listens on."},
    {"DaemonEndpoint", "Port", "The port number."},
    {"NodeFeatures", NULL, "Optional features a node supports."},
    {"NodeFeatures", "supplementalGroupsPolicy",
     "Whether the node honours a pod's supplementalGroupsPolicy."},
    {"NodeRuntimeHandler", NULL, "A handler of the container runtime."},
    {"NodeRuntimeHandler", "features", "What the handler supports."},
    {"NodeRuntimeHandler", "name", "The handler's name; empty for the default one."},
    {"NodeRuntimeHandlerFeatures", NULL, "Features of a runtime handler."},
    {"NodeRuntimeHandlerFeatures", "recursiveReadOnlyMounts",
     "Whether the handler can make mounts read-only recursively."},
    {"NodeRuntimeHandlerFeatures", "userNamespaces",
     "Whether the handler can run pods in user namespaces."},
    {"NodeSystemInfo", NULL, "Versions and identifiers of a node's system."},
    {"NodeSystemInfo", "architecture", "The CPU architecture, e.g. amd64 or arm64."},
    {"NodeSystemInfo", "bootID", "An ID that changes on every boot."},
    {"NodeSystemInfo", "containerRuntimeVersion",
     "The container runtime and its version, e.g. containerd://1.7.0."},
    {"NodeSystemInfo", "kernelVersion", "The kernel release (uname -r)."},
    {"NodeSystemInfo", "kubeProxyVersion", "Deprecated; kube-proxy's version, if reported."},
    {"NodeSystemInfo", "kubeletVersion", "The kubelet's version."},
    {"NodeSystemInfo", "machineID", "The machine's ID (/etc/machine-id)."},
    {"NodeSystemInfo", "operatingSystem", "The operating system, e.g. linux."},
    {"NodeSystemInfo", "osImage", "The OS distribution, from /etc/os-release."},
    {"NodeSystemInfo", "systemUUID", "The hardware's UUID, as the firmware reports it."},
    {"ContainerImage", NULL, "A container image on a node."},
    {"ContainerImage", "names", "The image's names and digests."},
    {"ContainerImage", "sizeBytes", "The image's size in bytes."},
    {"AttachedVolume", NULL, "A volume attached to a node."},
    {"AttachedVolume", "devicePath", "Where the volume's device appears on the node."},
    {"AttachedVolume", "name", "The volume's name."},
    {"Taint", NULL, "A mark on a node that keeps pods off unless they tolerate it."},
    {"Taint", "effect",
     "What happens to pods that do not tolerate it: NoSchedule, "
     "PreferNoSchedule or NoExecute."},
    {"Taint", "key", "The taint's key."},
    {"Taint", "timeAdded", "When a NoExecute taint was added."},
    {"Taint", "value", "The taint's value."},
    {"ObjectReference", NULL, "A reference to another object."},
    {"ObjectReference", "apiVersion", "The object's API version."},
    {"ObjectReference", "fieldPath", "A field within the object, e.g. spec.containers{app}."},
    {"ObjectReference", "kind", "The object's kind."},
    {"ObjectReference", "name", "The object's name."},
    {"ObjectReference", "namespace", "The object's namespace."},
    {"ObjectReference", "resourceVersion", "The object's resourceVersion when referenced."},
    {"ObjectReference", "uid", "The object's uid."},

    /* apimachinery meta types. */
    {"ObjectMeta", NULL, "The metadata every persisted object has."},
    {"ObjectMeta", "annotations",
     "Free-form key/value data for tools and people; not used for selection."},
    {"ObjectMeta", "creationTimestamp", "When the server created the object. Read-only."},
    {"ObjectMeta", "deletionGracePeriodSeconds",
     "The grace period of a pending deletion, in seconds. Read-only."},
    {"ObjectMeta", "deletionTimestamp",
     "When deletion was requested; the object stays until its finalizers are gone. "
     "Read-only."},
    {"ObjectMeta", "finalizers",
     "Names of cleanups that must finish before the object is removed."},
    {"ObjectMeta", "generateName",
     "A prefix from which the server makes a unique name when name is empty."},
    {"ObjectMeta", "generation", "A count of changes to the desired state. Read-only."},
    {"ObjectMeta", "labels", "Key/value pairs for selecting and grouping objects."},
    {"ObjectMeta", "managedFields",
     "Which manager owns which fields, for server-side apply. Rarely edited by hand."},
    {"ObjectMeta", "name",
     "The object's name, unique within its namespace (or cluster, for cluster-scoped kinds)."},
    {"ObjectMeta", "namespace",
     "The namespace the object belongs to; empty for cluster-scoped kinds."},
    {"ObjectMeta", "ownerReferences",
     "The objects this one depends on; when all owners are gone the garbage collector "
     "deletes it."},
    {"ObjectMeta", "resourceVersion",
     "An opaque version that changes on every write, for optimistic concurrency and "
     "watches."},
    {"ObjectMeta", "selfLink", "Deprecated; not set."},
    {"ObjectMeta", "uid", "A unique ID the server gives the object at creation. Read-only."},
    {"OwnerReference", NULL, "A reference to an owner of the object."},
    {"OwnerReference", "apiVersion", "The owner's API version."},
    {"OwnerReference", "blockOwnerDeletion",
     "When true, foreground deletion of the owner waits for this object."},
    {"OwnerReference", "controller", "When true, this owner is the managing controller."},
    {"OwnerReference", "kind", "The owner's kind."},
    {"OwnerReference", "name", "The owner's name."},
    {"OwnerReference", "uid", "The owner's uid."},
    {"ManagedFieldsEntry", NULL, "The fields one manager owns."},
    {"ManagedFieldsEntry", "apiVersion", "The version the fields are expressed in."},
    {"ManagedFieldsEntry", "fieldsType", "The format of fieldsV1; always FieldsV1."},
    {"ManagedFieldsEntry", "fieldsV1", "The set of owned fields."},
    {"ManagedFieldsEntry", "manager", "The manager's name, e.g. kubectl or kubelet."},
    {"ManagedFieldsEntry", "operation", "Apply or Update."},
    {"ManagedFieldsEntry", "subresource", "The subresource written, e.g. status."},
    {"ManagedFieldsEntry", "time", "When the manager last changed these fields."},
    {"ListMeta", NULL, "The metadata of a list."},
    {"ListMeta", "continue", "A token to fetch the next page with; empty on the last page."},
    {"ListMeta", "remainingItemCount", "How many items are left after this page, if known."},
    {"ListMeta", "resourceVersion",
     "The version the list was read at; a watch from it sees every change after."},
    {"ListMeta", "selfLink", "Deprecated; not set."},
    {"Time", NULL, "A time in RFC 3339 form, to the second, in UTC."},
    {"MicroTime", NULL, "A time in RFC 3339 form with microseconds, in UTC."},
    {"FieldsV1", NULL, "A set of fields, as a trie of field names in JSON."},
    {"Quantity", NULL, "An amount, as a number with an optional suffix: 100m, 2, 1Gi, 500M."},
    {"Patch", NULL, "The body of a PATCH request."},
    {"List", NULL,
     "Objects of any kinds in one document, as kubectl reads them from files (kind: List). "
     "The server stores no List; each item is created or changed on its own."},
    {"List", "items", "The objects, each with its own apiVersion and kind."},
    {"List", "metadata", "Bookkeeping of the list; usually empty in files."},
    {"RawExtension", NULL, "A whole embedded object of any kind, as JSON."},
    {"Preconditions", NULL, "What must hold for a deletion to proceed."},
    {"Preconditions", "resourceVersion", "The resourceVersion the object must have."},
    {"Preconditions", "uid", "The uid the object must have."},
    {"DeleteOptions", NULL, "Options of a deletion."},
    {"DeleteOptions", "dryRun", "All: check the deletion but do not make it."},
    {"DeleteOptions", "gracePeriodSeconds", "Seconds to wait before the object goes."},
    {"DeleteOptions", "ignoreStoreReadErrorWithClusterBreakingPotential",
     "Delete an object that cannot be read from storage. Dangerous."},
    {"DeleteOptions", "orphanDependents", "Deprecated: use propagationPolicy Orphan instead."},
    {"DeleteOptions", "preconditions", "What must hold for the deletion to proceed."},
    {"DeleteOptions", "propagationPolicy",
     "What happens to dependents: Orphan, Background or Foreground."},
    {"Status", NULL, "The result of a request that returns no object, such as an error."},
    {"Status", "metadata", "The list metadata of the answer; usually empty."},
    {"Status", "code", "The HTTP status code."},
    {"Status", "details", "More about the error: the object and the causes."},
    {"Status", "message", "A human-readable account of the result."},
    {"Status", "reason", "A CamelCase word for the failure, e.g. NotFound or Conflict."},
    {"Status", "status", "Success or Failure."},
    {"StatusDetails", NULL, "Details of a failed request."},
    {"StatusDetails", "causes", "The individual problems found."},
    {"StatusDetails", "group", "The group of the resource concerned."},
    {"StatusDetails", "kind", "The kind of the resource concerned."},
    {"StatusDetails", "name", "The name of the object concerned."},
    {"StatusDetails", "retryAfterSeconds", "Seconds to wait before retrying."},
    {"StatusDetails", "uid", "The uid of the object concerned."},
    {"StatusCause", NULL, "One problem with a request."},
    {"StatusCause", "field", "The field at fault, as a path, e.g. metadata.name."},
    {"StatusCause", "message", "A human-readable account of the problem."},
    {"StatusCause", "reason", "A machine-readable word for the problem, e.g. FieldValueInvalid."},
};

static int ends_with_list(const char *type)
{
	size_t n = strlen(type);
	return n > 4 && strcmp(type + n - 4, "List") == 0;
}

const char *mock_openapi_description(const char *type, const char *field)
{
	const size_t n = sizeof(rows) / sizeof(rows[0]);
	if (!type)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].type, type) == 0 &&
		    (field ? rows[i].field && strcmp(rows[i].field, field) == 0 : !rows[i].field))
			return rows[i].text;
	const char *pod = mock__openapi_pod_description(type, field);
	if (pod || !field)
		return pod;
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].type, ends_with_list(type) ? "*List" : "*") == 0 &&
		    strcmp(rows[i].field, field) == 0)
			return rows[i].text;
	/* A list's apiVersion and kind are those of any object. */
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].type, "*") == 0 && strcmp(rows[i].field, field) == 0)
			return rows[i].text;
	return NULL;
}

static void set_description(json_object *schema, const char *text)
{
	if (text && json_object_is_type(schema, json_type_object))
		json_object_object_add(schema, "description", json_object_new_string(text));
}

void mock_openapi_describe(json_object *schemas)
{
	json_object_object_foreach(schemas, name, schema)
	{
		const char *dot = strrchr(name, '.');
		const char *type = dot ? dot + 1 : name;
		set_description(schema, mock_openapi_description(type, NULL));
		json_object *props = json_object_object_get(schema, "properties");
		if (!props)
			continue;
		json_object_object_foreach(props, field, prop)
		{
			set_description(prop, mock_openapi_description(type, field));
		}
	}
}
