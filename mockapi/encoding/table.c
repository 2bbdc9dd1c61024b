/* Server-side printing (metav1.Table), as kube-apiserver's TableConvertor:
 * the column definitions and print functions of
 * pkg/printers/internalversion/printers.go for the served kinds, generated
 * wide, and asTable's row objects (PartialObjectMetadata by default). */
#include "table.h"

#include <nodelet/doc.h>
#include <nodelet/meta.h>
#include <nodelet/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Column descriptions are the SwaggerDoc texts of the fields (k8s.io/api
 * v0.32), which the apiserver sends verbatim. */
#define DESC_NAME                                                                                \
	"Name must be unique within a namespace. Is required when creating resources, although " \
	"some resources may allow a client to request the generation of an appropriate name "    \
	"automatically. Name is primarily intended for creation idempotence and configuration "  \
	"definition. Cannot be updated. More info: "                                             \
	"https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
#define DESC_AGE                                                                                \
	"CreationTimestamp is a timestamp representing the server time when this object was "   \
	"created. It is not guaranteed to be set in happens-before order across separate "      \
	"operations. Clients may not set this value. It is represented in RFC3339 form and is " \
	"in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "            \
	"https://git.k8s.io/community/contributors/devel/sig-architecture/"                     \
	"api-conventions.md#metadata"
#define DESC_ADDRESSES                                                                             \
	"List of addresses reachable to the node. Queried from cloud provider, if available. "     \
	"More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This "  \
	"field is declared as mergeable, but the merge key is not sufficiently unique, which can " \
	"cause data corruption when it is merged. Callers should instead use a full-replacement "  \
	"patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that "         \
	"addresses can change during the lifetime of a Node. However, there are some exceptions "  \
	"where this may not be possible, such as Pods that inherit a Node's address in its own "   \
	"status or consumers of the downward API (status.hostIP)."

typedef struct {
	const char *name;
	const char *format;
	const char *description;
	int priority;
} column;

static const column configmap_columns[] = {
    {"Name", "name", DESC_NAME, 0},
    {"Data", "",
     "Data contains the configuration data. Each key must consist of alphanumeric characters, "
     "'-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. "
     "The keys stored in Data must not overlap with the keys in the BinaryData field, this "
     "is enforced during validation process.",
     0},
    {"Age", "", DESC_AGE, 0},
    {NULL, NULL, NULL, 0},
};

static const column lease_columns[] = {
    {"Name", "name", DESC_NAME, 0},
    {"Holder", "",
     "holderIdentity contains the identity of the holder of a current lease. If Coordinated "
     "Leader Election is used, the holder identity must be equal to the elected "
     "LeaseCandidate.metadata.name field.",
     0},
    {"Age", "", DESC_AGE, 0},
    {NULL, NULL, NULL, 0},
};

static const column namespace_columns[] = {
    {"Name", "name", DESC_NAME, 0},
    {"Status", "", "The status of the namespace", 0},
    {"Age", "", DESC_AGE, 0},
    {NULL, NULL, NULL, 0},
};

static const column node_columns[] = {
    {"Name", "name", DESC_NAME, 0},
    {"Status", "", "The status of the node", 0},
    {"Roles", "", "The roles of the node", 0},
    {"Age", "", DESC_AGE, 0},
    {"Version", "", "Kubelet Version reported by the node.", 0},
    {"Internal-IP", "", DESC_ADDRESSES, 1},
    {"External-IP", "", DESC_ADDRESSES, 1},
    {"OS-Image", "",
     "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).", 1},
    {"Kernel-Version", "",
     "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1},
    {"Container-Runtime", "",
     "ContainerRuntime Version reported by the node through runtime remote API (e.g. "
     "containerd://1.4.2).",
     1},
    {NULL, NULL, NULL, 0},
};

static const column event_columns[] = {
    {"Last Seen", "", "The time at which the most recent occurrence of this event was recorded.",
     0},
    {"Type", "", "Type of this event (Normal, Warning), new types could be added in the future", 0},
    {"Reason", "",
     "This should be a short, machine understandable string that gives the reason for the "
     "transition into the object's current status.",
     0},
    {"Object", "", "The object that this event is about.", 0},
    {"Subobject", "",
     "If referring to a piece of an object instead of an entire object, this string should "
     "contain a valid JSON/Go field access statement, such as "
     "desiredState.manifest.containers[2]. For example, if the object reference is to a "
     "container within a pod, this would take on a value like: \"spec.containers{name}\" "
     "(where \"name\" refers to the name of the container that triggered the event) or if no "
     "container name is specified \"spec.containers[2]\" (container with index 2 in this "
     "pod). This syntax is chosen only to have some well-defined way of referencing a part of "
     "an object.",
     1},
    {"Source", "",
     "The component reporting this event. Should be a short machine understandable string.", 1},
    {"Message", "", "A human-readable description of the status of this operation.", 0},
    {"First Seen", "",
     "The time at which the event was first recorded. (Time of server receipt is in "
     "TypeMeta.)",
     1},
    {"Count", "", "The number of times this event has occurred.", 1},
    {"Name", "name", DESC_NAME, 1},
    {NULL, NULL, NULL, 0},
};

/* printers.go's podColumnDefinitions; the wide columns' descriptions are
 * upstream's field docs there, ours here (docs/mockapi.md). */
static const column pod_columns[] = {
    {"Name", "name", DESC_NAME, 0},
    {"Ready", "", "The aggregate readiness state of this pod for accepting traffic.", 0},
    {"Status", "", "The aggregate status of the containers in this pod.", 0},
    {"Restarts", "",
     "The number of times the containers in this pod have been restarted and when the last "
     "container in this pod has restarted.",
     0},
    {"Age", "", DESC_AGE, 0},
    {"IP", "", "The first IP address allocated to the pod.", 1},
    {"Node", "", "The node the pod is bound to.", 1},
    {"Nominated Node", "", "The node the scheduler expects to place the pod on.", 1},
    {"Readiness Gates", "", "Extra conditions that must hold for the pod to be ready.", 1},
    {NULL, NULL, NULL, 0},
};

/* printCertificateSigningRequest's columns; their descriptions are the
 * certificates/v1beta1 SwaggerDoc texts upstream uses. */
static const column csr_columns[] = {
    {"Name", "name", DESC_NAME, 0},
    {"Age", "", DESC_AGE, 0},
    {"SignerName", "",
     "Requested signer for the request. It is a qualified name in the form: "
     "`scope-hostname.io/name`. If empty, it will be defaulted:\n 1. If it's a kubelet client "
     "certificate, it is assigned\n    \"kubernetes.io/kube-apiserver-client-kubelet\".\n 2. "
     "If it's a kubelet serving certificate, it is assigned\n    "
     "\"kubernetes.io/kubelet-serving\".\n 3. Otherwise, it is assigned "
     "\"kubernetes.io/legacy-unknown\".\nDistribution of trust for signers happens out of "
     "band. You can select on this field using `spec.signerName`.",
     0},
    {"Requestor", "", "Base64-encoded PKCS#10 CSR data", 0},
    {"RequestedDuration", "",
     "expirationSeconds is the requested duration of validity of the issued certificate. The "
     "certificate signer may issue a certificate with a different validity duration so a "
     "client must check the delta between the notBefore and and notAfter fields in the issued "
     "certificate to determine the actual duration.\n\nThe v1.22+ in-tree implementations of "
     "the well-known Kubernetes signers will honor this field as long as the requested "
     "duration is not greater than the maximum duration they will honor per the "
     "--cluster-signing-duration CLI flag to the Kubernetes controller manager.\n\nCertificate "
     "signers may not honor this field for various reasons:\n\n  1. Old signer that is "
     "unaware of the field (such as the in-tree\n     implementations prior to v1.22)\n  2. "
     "Signer whose configured maximum is shorter than the requested duration\n  3. Signer "
     "whose configured minimum is longer than the requested duration\n\nThe minimum valid "
     "value for expirationSeconds is 600, i.e. 10 minutes.",
     0},
    {"Condition", "", "Conditions applied to the request, such as approval or denial.", 0},
    {NULL, NULL, NULL, 0},
};

static const column *columns_of(const mock_resource *r)
{
	switch (r->id) {
	case MOCK_KIND_CONFIGMAP:
		return configmap_columns;
	case MOCK_KIND_LEASE:
		return lease_columns;
	case MOCK_KIND_NAMESPACE:
		return namespace_columns;
	case MOCK_KIND_NODE:
		return node_columns;
	case MOCK_KIND_EVENT:
		return event_columns;
	case MOCK_KIND_POD:
		return pod_columns;
	case MOCK_KIND_CSR:
		return csr_columns;
	default:
		return NULL;
	}
}

json_object *mock_table_columns(const mock_resource *r)
{
	const column *c = columns_of(r);
	json_object *arr = json_object_new_array();
	for (; arr && c && c->name; c++) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "name", json_object_new_string(c->name));
		json_object_object_add(o, "type", json_object_new_string("string"));
		json_object_object_add(o, "format", json_object_new_string(c->format));
		json_object_object_add(o, "description", json_object_new_string(c->description));
		json_object_object_add(o, "priority", json_object_new_int(c->priority));
		json_object_array_add(arr, o);
	}
	return arr;
}

/* ------------------------------------------------------------- durations */

void mock_human_duration(char out[32], int64_t usec)
{
	/* Go's int(d.Seconds()) truncates toward zero. */
	long long seconds = usec / 1000000;
	if (seconds < -1) {
		strcpy(out, "<invalid>");
		return;
	}
	if (seconds < 0) {
		strcpy(out, "0s");
		return;
	}
	if (seconds < 120) {
		snprintf(out, 32, "%llds", seconds);
		return;
	}
	long long minutes = seconds / 60, hours = seconds / 3600, days = hours / 24;
	if (minutes < 10) {
		if (seconds % 60 == 0)
			snprintf(out, 32, "%lldm", minutes);
		else
			snprintf(out, 32, "%lldm%llds", minutes, seconds % 60);
	} else if (minutes < 180) {
		snprintf(out, 32, "%lldm", minutes);
	} else if (hours < 8) {
		if (minutes % 60 == 0)
			snprintf(out, 32, "%lldh", hours);
		else
			snprintf(out, 32, "%lldh%lldm", hours, minutes % 60);
	} else if (hours < 48) {
		snprintf(out, 32, "%lldh", hours);
	} else if (hours < 24 * 8) {
		if (hours % 24 == 0)
			snprintf(out, 32, "%lldd", days);
		else
			snprintf(out, 32, "%lldd%lldh", days, hours % 24);
	} else if (hours < 24 * 365 * 2) {
		snprintf(out, 32, "%lldd", days);
	} else if (hours < 24 * 365 * 8) {
		if (days % 365 == 0)
			snprintf(out, 32, "%lldy", days / 365);
		else
			snprintf(out, 32, "%lldy%lldd", days / 365, days % 365);
	} else {
		snprintf(out, 32, "%lldy", days / 365);
	}
}

/* translateTimestampSince: "<unknown>" for an unset (or unparsable) time. */
static json_object *since(const char *ts, int64_t now)
{
	int64_t t;
	char buf[32];
	if (!ts || !*ts || nl_time_parse(&t, ts) != 0)
		return json_object_new_string("<unknown>");
	mock_human_duration(buf, now - t);
	return json_object_new_string(buf);
}

/* ----------------------------------------------------------------- cells */

static const char *str(json_object *obj, const char *path)
{
	const char *s = nl_json_get_string(obj, path);
	return s ? s : "";
}

static const char *first_non_empty(const char *a, const char *b)
{
	return *a ? a : b;
}

static size_t map_size(json_object *obj, const char *path)
{
	json_object *m = nl_json_get_path(obj, path);
	return json_object_is_type(m, json_type_object) ? (size_t)json_object_object_length(m) : 0;
}

static void add_str(json_object *cells, const char *s)
{
	json_object_array_add(cells, json_object_new_string(s));
}

static void configmap_cells(json_object *cells, json_object *obj, int64_t now)
{
	add_str(cells, str(obj, "metadata.name"));
	json_object_array_add(cells, json_object_new_int64((int64_t)(map_size(obj, "data") +
	                                                             map_size(obj, "binaryData"))));
	json_object_array_add(cells, since(str(obj, "metadata.creationTimestamp"), now));
}

static void lease_cells(json_object *cells, json_object *obj, int64_t now)
{
	add_str(cells, str(obj, "metadata.name"));
	add_str(cells, str(obj, "spec.holderIdentity"));
	json_object_array_add(cells, since(str(obj, "metadata.creationTimestamp"), now));
}

static void namespace_cells(json_object *cells, json_object *obj, int64_t now)
{
	add_str(cells, str(obj, "metadata.name"));
	add_str(cells, str(obj, "status.phase"));
	json_object_array_add(cells, since(str(obj, "metadata.creationTimestamp"), now));
}

/* "Ready" / "NotReady" from the Ready condition, "Unknown" without one. */
static void node_status(nl_buf *b, json_object *obj)
{
	json_object *conds = nl_json_get_path(obj, "status.conditions");
	size_t n =
	    json_object_is_type(conds, json_type_array) ? json_object_array_length(conds) : 0;
	const char *ready = NULL;
	for (size_t i = 0; i < n; i++) {
		json_object *c = json_object_array_get_idx(conds, i);
		if (strcmp(str(c, "type"), "Ready") == 0)
			ready = str(c, "status"); /* the last one wins, as in the Go map */
	}
	nl_buf_adds(b, !ready ? "Unknown" : strcmp(ready, "True") == 0 ? "Ready" : "NotReady");
	json_object *unsched = nl_json_get_path(obj, "spec.unschedulable");
	if (json_object_get_boolean(unsched))
		nl_buf_adds(b, ",SchedulingDisabled");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* findNodeRoles: node-role.kubernetes.io/<role> keys and the kubernetes.io/role
 * value, as a sorted set joined by ','; "<none>" when there are none. */
static void node_roles(nl_buf *b, json_object *obj)
{
	static const char prefix[] = "node-role.kubernetes.io/";
	json_object *labels = nl_meta_labels(obj);
	size_t n = 0, cap = labels ? (size_t)json_object_object_length(labels) : 0;
	const char **roles = cap ? calloc(cap, sizeof(*roles)) : NULL;
	if (roles) {
		json_object_object_foreach(labels, k, v)
		{
			const char *val = json_object_get_string(v);
			if (strncmp(k, prefix, sizeof(prefix) - 1) == 0 && k[sizeof(prefix) - 1])
				roles[n++] = k + sizeof(prefix) - 1;
			else if (strcmp(k, "kubernetes.io/role") == 0 && val && *val)
				roles[n++] = val;
		}
		qsort(roles, n, sizeof(*roles), cmp_str);
	}
	size_t written = 0;
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && strcmp(roles[i], roles[i - 1]) == 0)
			continue;
		nl_buf_printf(b, "%s%s", written++ ? "," : "", roles[i]);
	}
	if (written == 0)
		nl_buf_adds(b, "<none>");
	free(roles);
}

static const char *node_address(json_object *obj, const char *type)
{
	json_object *addrs = nl_json_get_path(obj, "status.addresses");
	size_t n =
	    json_object_is_type(addrs, json_type_array) ? json_object_array_length(addrs) : 0;
	for (size_t i = 0; i < n; i++) {
		json_object *a = json_object_array_get_idx(addrs, i);
		if (strcmp(str(a, "type"), type) == 0)
			return str(a, "address");
	}
	return "<none>";
}

static const char *or_unknown(const char *s)
{
	return *s ? s : "<unknown>";
}

static void node_cells(json_object *cells, json_object *obj, int64_t now)
{
	nl_buf b;
	nl_buf_init(&b, 64 * 1024);
	add_str(cells, str(obj, "metadata.name"));
	node_status(&b, obj);
	add_str(cells, b.data ? b.data : "");
	nl_buf_reset(&b);
	node_roles(&b, obj);
	add_str(cells, b.data ? b.data : "");
	nl_buf_free(&b);
	json_object_array_add(cells, since(str(obj, "metadata.creationTimestamp"), now));
	add_str(cells, str(obj, "status.nodeInfo.kubeletVersion"));
	add_str(cells, node_address(obj, "InternalIP"));
	add_str(cells, node_address(obj, "ExternalIP"));
	add_str(cells, or_unknown(str(obj, "status.nodeInfo.osImage")));
	add_str(cells, or_unknown(str(obj, "status.nodeInfo.kernelVersion")));
	add_str(cells, or_unknown(str(obj, "status.nodeInfo.containerRuntimeVersion")));
}

/* strings.TrimSpace into a fresh string (caller frees). */
static char *trim_space(const char *s)
{
	const char *end = s + strlen(s);
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\v' || *s == '\f')
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' ||
	                   end[-1] == '\r' || end[-1] == '\v' || end[-1] == '\f'))
		end--;
	return strndup(s, (size_t)(end - s));
}

static void event_cells(json_object *cells, json_object *obj, int64_t now)
{
	json_object *first = *str(obj, "firstTimestamp") ? since(str(obj, "firstTimestamp"), now)
	                                                 : since(str(obj, "eventTime"), now);
	json_object *last = *str(obj, "lastTimestamp") ? since(str(obj, "lastTimestamp"), now)
	                                               : json_object_get(first);
	int64_t count = json_object_get_int64(nl_json_get_path(obj, "count"));
	if (nl_json_get_path(obj, "series")) {
		json_object_put(last);
		last = since(str(obj, "series.lastObservedTime"), now);
		count = json_object_get_int64(nl_json_get_path(obj, "series.count"));
	} else if (count == 0) {
		count = 1; /* singleton events of the new API carry no count */
	}
	nl_buf b;
	nl_buf_init(&b, 64 * 1024);
	const char *kind = str(obj, "involvedObject.kind"), *name = str(obj, "involvedObject.name");
	for (const char *p = kind; *p; p++)
		nl_buf_printf(&b, "%c", (*p >= 'A' && *p <= 'Z') ? *p - 'A' + 'a' : *p);
	if (*name)
		nl_buf_printf(&b, "/%s", name);
	json_object_array_add(cells, last);
	add_str(cells, str(obj, "type"));
	add_str(cells, str(obj, "reason"));
	add_str(cells, b.data ? b.data : "");
	add_str(cells, str(obj, "involvedObject.fieldPath"));
	nl_buf_reset(&b);
	const char *component =
	    first_non_empty(str(obj, "source.component"), str(obj, "reportingComponent"));
	const char *instance =
	    first_non_empty(str(obj, "source.host"), str(obj, "reportingInstance"));
	nl_buf_printf(&b, "%s%s%s", component, *instance ? ", " : "", instance);
	add_str(cells, b.data ? b.data : "");
	nl_buf_free(&b);
	char *msg = trim_space(str(obj, "message"));
	add_str(cells, msg ? msg : "");
	free(msg);
	json_object_array_add(cells, first);
	json_object_array_add(cells, json_object_new_int64(count));
	add_str(cells, str(obj, "metadata.name"));
}

/* printPod's STATUS, READY and RESTARTS from the container statuses (the
 * last one read first, as upstream loops backwards). */
typedef struct {
	const char *reason;
	char text[32];
	int ready;
	int64_t restarts;
	const char *last_restart;
} pod_summary;

static void container_reason(pod_summary *p, json_object *cs, int *running)
{
	json_object *waiting = nl_json_get_path(cs, "state.waiting");
	json_object *term = nl_json_get_path(cs, "state.terminated");
	const char *finished = str(cs, "lastState.terminated.finishedAt");
	p->restarts += json_object_get_int64(nl_json_get_path(cs, "restartCount"));
	if (*finished && (!p->last_restart || strcmp(finished, p->last_restart) > 0))
		p->last_restart = finished;
	if (waiting && *str(waiting, "reason")) {
		p->reason = str(waiting, "reason");
	} else if (term && *str(term, "reason")) {
		p->reason = str(term, "reason");
	} else if (term) {
		int64_t sig = json_object_get_int64(nl_json_get_path(term, "signal"));
		snprintf(
		    p->text, sizeof(p->text), sig ? "Signal:%lld" : "ExitCode:%lld",
		    (long long)(sig ? sig
		                    : json_object_get_int64(nl_json_get_path(term, "exitCode"))));
		p->reason = p->text;
	} else if (json_object_get_boolean(nl_json_get_path(cs, "ready")) &&
	           nl_json_get_path(cs, "state.running")) {
		*running = 1;
		p->ready++;
	}
}

static int has_condition(json_object *obj, const char *type, const char *status)
{
	json_object *conds = nl_json_get_path(obj, "status.conditions");
	for (size_t i = 0;
	     json_object_is_type(conds, json_type_array) && i < json_object_array_length(conds);
	     i++) {
		json_object *c = json_object_array_get_idx(conds, i);
		if (strcmp(str(c, "type"), type) == 0 && strcmp(str(c, "status"), status) == 0)
			return 1;
	}
	return 0;
}

static void pod_summarize(pod_summary *p, json_object *obj)
{
	json_object *statuses = nl_json_get_path(obj, "status.containerStatuses");
	size_t n =
	    json_object_is_type(statuses, json_type_array) ? json_object_array_length(statuses) : 0;
	const char *phase = str(obj, "status.phase");
	int running = 0;
	memset(p, 0, sizeof(*p));
	p->reason = *str(obj, "status.reason") ? str(obj, "status.reason") : phase;
	for (size_t i = n; i > 0; i--)
		container_reason(p, json_object_array_get_idx(statuses, i - 1), &running);
	if (strcmp(p->reason, "Completed") == 0 && running)
		p->reason = has_condition(obj, "Ready", "True") ? "Running" : "NotReady";
	if (*str(obj, "metadata.deletionTimestamp")) {
		if (strcmp(str(obj, "status.reason"), "NodeLost") == 0)
			p->reason = "Unknown";
		else if (strcmp(phase, "Succeeded") != 0 && strcmp(phase, "Failed") != 0)
			p->reason = "Terminating";
	}
}

static const char *or_none(const char *s)
{
	return *s ? s : "<none>";
}

static void pod_cells(json_object *cells, json_object *obj, int64_t now)
{
	pod_summary p;
	char buf[96], ago[32];
	json_object *containers = nl_json_get_path(obj, "spec.containers");
	json_object *gates = nl_json_get_path(obj, "spec.readinessGates");
	json_object *ips = nl_json_get_path(obj, "status.podIPs");
	size_t total = json_object_is_type(containers, json_type_array)
	                   ? json_object_array_length(containers)
	                   : 0;
	int64_t t;
	pod_summarize(&p, obj);
	add_str(cells, str(obj, "metadata.name"));
	snprintf(buf, sizeof(buf), "%d/%zu", p.ready, total);
	add_str(cells, buf);
	add_str(cells, p.reason);
	if (p.restarts && p.last_restart && nl_time_parse(&t, p.last_restart) == 0) {
		mock_human_duration(ago, now - t);
		snprintf(buf, sizeof(buf), "%lld (%s ago)", (long long)p.restarts, ago);
	} else {
		snprintf(buf, sizeof(buf), "%lld", (long long)p.restarts);
	}
	add_str(cells, buf);
	json_object_array_add(cells, since(str(obj, "metadata.creationTimestamp"), now));
	add_str(cells, or_none(json_object_is_type(ips, json_type_array) &&
	                               json_object_array_length(ips) > 0
	                           ? str(json_object_array_get_idx(ips, 0), "ip")
	                           : str(obj, "status.podIP")));
	add_str(cells, or_none(str(obj, "spec.nodeName")));
	add_str(cells, or_none(str(obj, "status.nominatedNodeName")));
	if (json_object_is_type(gates, json_type_array) && json_object_array_length(gates) > 0) {
		size_t ok = 0, n = json_object_array_length(gates);
		for (size_t i = 0; i < n; i++)
			ok += (size_t)has_condition(
			    obj, str(json_object_array_get_idx(gates, i), "conditionType"), "True");
		snprintf(buf, sizeof(buf), "%zu/%zu", ok, n);
		add_str(cells, buf);
	} else {
		add_str(cells, "<none>");
	}
}

/* extractCSRStatus: Denied over Approved over Pending, then ",Failed"
 * and ",Issued". */
static void csr_condition(nl_buf *b, json_object *obj)
{
	json_object *conds = nl_json_get_path(obj, "status.conditions");
	int approved = 0, denied = 0, failed = 0;
	for (size_t i = 0;
	     json_object_is_type(conds, json_type_array) && i < json_object_array_length(conds);
	     i++) {
		const char *t = str(json_object_array_get_idx(conds, i), "type");
		approved |= strcmp(t, "Approved") == 0;
		denied |= strcmp(t, "Denied") == 0;
		failed |= strcmp(t, "Failed") == 0;
	}
	nl_buf_printf(b, "%s%s%s",
	              denied     ? "Denied"
	              : approved ? "Approved"
	                         : "Pending",
	              failed ? ",Failed" : "", *str(obj, "status.certificate") ? ",Issued" : "");
}

static void csr_cells(json_object *cells, json_object *obj, int64_t now)
{
	char dur[32];
	json_object *exp = nl_json_get_path(obj, "spec.expirationSeconds");
	nl_buf b;
	add_str(cells, str(obj, "metadata.name"));
	json_object_array_add(cells, since(str(obj, "metadata.creationTimestamp"), now));
	add_str(cells, *str(obj, "spec.signerName") ? str(obj, "spec.signerName") : "<none>");
	add_str(cells, str(obj, "spec.username"));
	if (exp)
		mock_human_duration(dur, json_object_get_int64(exp) * 1000000);
	add_str(cells, exp ? dur : "<none>");
	nl_buf_init(&b, 32);
	csr_condition(&b, obj);
	add_str(cells, b.data ? b.data : "");
	nl_buf_free(&b);
}

json_object *mock_table_cells(const mock_resource *r, json_object *obj, int64_t now)
{
	json_object *cells = json_object_new_array();
	if (!cells)
		return NULL;
	switch (r->id) {
	case MOCK_KIND_CONFIGMAP:
		configmap_cells(cells, obj, now);
		break;
	case MOCK_KIND_LEASE:
		lease_cells(cells, obj, now);
		break;
	case MOCK_KIND_NAMESPACE:
		namespace_cells(cells, obj, now);
		break;
	case MOCK_KIND_NODE:
		node_cells(cells, obj, now);
		break;
	case MOCK_KIND_EVENT:
		event_cells(cells, obj, now);
		break;
	case MOCK_KIND_POD:
		pod_cells(cells, obj, now);
		break;
	case MOCK_KIND_CSR:
		csr_cells(cells, obj, now);
		break;
	default:
		break;
	}
	return cells;
}

/* ------------------------------------------------------------- documents */

int mock_table_parse_include(mock_include_object *out, const char *value, nl_status **st)
{
	if (!value || !*value || strcmp(value, "Metadata") == 0)
		*out = MOCK_INCLUDE_METADATA;
	else if (strcmp(value, "Object") == 0)
		*out = MOCK_INCLUDE_OBJECT;
	else if (strcmp(value, "None") == 0)
		*out = MOCK_INCLUDE_NONE;
	else {
		/* ValidateTableOptions, through optionsForTransform. */
		*st = nl_status_newf(400, "BadRequest",
		                     "Unable to convert to Table as requested: includeObject: "
		                     "Unsupported value: \"%s\": supported values: \"Metadata\", "
		                     "\"None\", \"Object\"",
		                     value);
		return NL_EBADREQUEST;
	}
	return 0;
}

static json_object *parse_object(const char *json, size_t len)
{
	struct json_tokener *tok = json_tokener_new_ex(NL_DOC_MAX_DEPTH);
	json_object *o = tok ? json_tokener_parse_ex(tok, json, (int)len) : NULL;
	json_tokener_free(tok);
	if (o && !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		o = NULL;
	}
	return o;
}

static json_object *partial(json_object *obj, const char *version)
{
	char av[48];
	json_object *p = json_object_new_object(), *meta = NULL;
	snprintf(av, sizeof(av), "meta.k8s.io/%s", version);
	json_object_object_add(p, "kind", json_object_new_string("PartialObjectMetadata"));
	json_object_object_add(p, "apiVersion", json_object_new_string(av));
	if (!json_object_object_get_ex(obj, "metadata", &meta) ||
	    !json_object_is_type(meta, json_type_object))
		json_object_object_add(p, "metadata", json_object_new_object());
	else
		json_object_object_add(p, "metadata", json_object_get(meta));
	return p;
}

/* A list item with the list's kind restored (asTable's IncludeObject). */
static json_object *with_type_meta(json_object *item, const mock_resource *r)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "kind", json_object_new_string(r->kind));
	json_object_object_add(o, "apiVersion", json_object_new_string(r->api_version));
	json_object_object_foreach(item, k, v)
	{
		if (strcmp(k, "kind") != 0 && strcmp(k, "apiVersion") != 0)
			json_object_object_add(o, k, json_object_get(v));
	}
	return o;
}

static json_object *row(const mock_resource *r, json_object *item, const mock_table_opts *o)
{
	json_object *rw = json_object_new_object();
	json_object_object_add(rw, "cells", mock_table_cells(r, item, o->now));
	if (o->include == MOCK_INCLUDE_NONE)
		json_object_object_add(rw, "object", NULL);
	else if (o->include == MOCK_INCLUDE_OBJECT)
		json_object_object_add(rw, "object", with_type_meta(item, r));
	else
		json_object_object_add(rw, "object", partial(item, o->version));
	return rw;
}

/* ListMeta fields of src's metadata (resourceVersion, continue,
 * remainingItemCount), or only resourceVersion for an object. */
static json_object *list_meta(json_object *src, int is_list)
{
	json_object *m = json_object_new_object(), *v;
	json_object *sm = nl_json_get_path(src, "metadata");
	const char *rv = str(src, "metadata.resourceVersion");
	if (*rv)
		json_object_object_add(m, "resourceVersion", json_object_new_string(rv));
	if (!is_list)
		return m;
	if (*str(src, "metadata.continue"))
		json_object_object_add(m, "continue",
		                       json_object_new_string(str(src, "metadata.continue")));
	if (sm && json_object_object_get_ex(sm, "remainingItemCount", &v))
		json_object_object_add(m, "remainingItemCount", json_object_get(v));
	return m;
}

static int emit(nl_buf *out, json_object *doc)
{
	size_t len = 0;
	const char *text = doc ? nl_json_compact(doc, &len) : NULL;
	int rc = text ? nl_buf_add(out, text, len) : NL_ENOMEM;
	json_object_put(doc);
	return rc;
}

static int table(nl_buf *out, const mock_resource *r, const char *json, size_t len,
                 const mock_table_opts *o, int is_list)
{
	json_object *src = parse_object(json, len);
	if (!src)
		return NL_EPARSE;
	char av[48];
	snprintf(av, sizeof(av), "meta.k8s.io/%s", o->version ? o->version : "v1");
	mock_table_opts opts = *o;
	if (!opts.version)
		opts.version = "v1";
	json_object *t = json_object_new_object();
	json_object *rows = json_object_new_array();
	json_object_object_add(t, "kind", json_object_new_string("Table"));
	json_object_object_add(t, "apiVersion", json_object_new_string(av));
	json_object_object_add(t, "metadata", list_meta(src, is_list));
	json_object_object_add(t, "columnDefinitions",
	                       o->no_headers ? NULL : mock_table_columns(r));
	if (is_list) {
		json_object *items = json_object_object_get(src, "items");
		size_t n = json_object_is_type(items, json_type_array)
		               ? json_object_array_length(items)
		               : 0;
		for (size_t i = 0; i < n; i++)
			json_object_array_add(rows,
			                      row(r, json_object_array_get_idx(items, i), &opts));
	} else {
		json_object_array_add(rows, row(r, src, &opts));
	}
	json_object_object_add(t, "rows", rows);
	int rc = emit(out, t);
	json_object_put(src);
	return rc;
}

int mock_table_object(nl_buf *out, const mock_resource *r, const char *json, size_t len,
                      const mock_table_opts *o)
{
	return table(out, r, json, len, o, 0);
}

int mock_table_list(nl_buf *out, const mock_resource *r, const char *json, size_t len,
                    const mock_table_opts *o)
{
	return table(out, r, json, len, o, 1);
}

int mock_partial_object(nl_buf *out, const char *json, size_t len, const char *version)
{
	json_object *src = parse_object(json, len);
	if (!src)
		return NL_EPARSE;
	int rc = emit(out, partial(src, version));
	json_object_put(src);
	return rc;
}

int mock_partial_list(nl_buf *out, const char *json, size_t len, const char *version)
{
	json_object *src = parse_object(json, len);
	if (!src)
		return NL_EPARSE;
	char av[48];
	snprintf(av, sizeof(av), "meta.k8s.io/%s", version);
	json_object *l = json_object_new_object(), *arr = json_object_new_array();
	json_object_object_add(l, "kind", json_object_new_string("PartialObjectMetadataList"));
	json_object_object_add(l, "apiVersion", json_object_new_string(av));
	json_object_object_add(l, "metadata", list_meta(src, 1));
	json_object *items = json_object_object_get(src, "items");
	size_t n =
	    json_object_is_type(items, json_type_array) ? json_object_array_length(items) : 0;
	for (size_t i = 0; i < n; i++)
		json_object_array_add(arr, partial(json_object_array_get_idx(items, i), version));
	json_object_object_add(l, "items", arr);
	int rc = emit(out, l);
	json_object_put(src);
	return rc;
}

/* ------------------------------------------------------------- watching */

struct mock_table_watch {
	char version[16];
	mock_include_object include;
	int headers_sent;
};

int mock_table_watch_new(mock_table_watch **out, const char *version, mock_include_object include)
{
	mock_table_watch *w = calloc(1, sizeof(*w));
	if (!w)
		return NL_ENOMEM;
	snprintf(w->version, sizeof(w->version), "%s", version ? version : "v1");
	w->include = include;
	*out = w;
	return 0;
}

int mock_table_watch_encode(nl_buf *out, const mock_resource *r, const char *type, const char *json,
                            size_t len, void *payload)
{
	mock_table_watch *w = payload;
	mock_table_opts o = {w->version, w->include, w->headers_sent, nl_time_now()};
	(void)type; /* bookmarks are printed too, as the apiserver's encoder does */
	int rc = mock_table_object(out, r, json, len, &o);
	if (rc == 0)
		w->headers_sent = 1;
	return rc;
}

void mock_table_watch_free(void *payload)
{
	free(payload);
}
