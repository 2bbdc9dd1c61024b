/* The served kinds: one table row per kind, with the apiserver's strategy
 * for it. The kinds' wire schemas are shared with the agent
 * (nodelet/schema.h). */
#include "resources.h"

#include "csr.h"
#include "pod_strategy.h"
#include "schema.h"
#include "validation.h"

#include <nodelet/meta.h>
#include <nodelet/schema.h>

#include <string.h>

#define NAMESPACE_NAME_LABEL "kubernetes.io/metadata.name"

static json_object *child(json_object *obj, const char *key)
{
	json_object *v = NULL;
	json_object_object_get_ex(obj, key, &v);
	return v;
}

/* The schema of s's struct field `name` (the shared tables keep their
 * sub-structs private). */
static const nl_schema *sub_schema(const nl_schema *s, const char *name)
{
	for (size_t i = 0; i < s->nfields; i++)
		if (strcmp(s->fields[i].name, name) == 0)
			return s->fields[i].sub;
	return NULL;
}

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
		mock_schema_sort_object(meta, &nl_schema_object_meta);
	}
	json_object_object_add(labels, key, json_object_new_string(value));
	mock_json_sort_keys(labels);
}

/* ------------------------------------------------------------- Namespace */

/* SetDefaults_Namespace: every named namespace carries its name as a label. */
static void namespace_defaults(json_object *obj)
{
	const char *name = nl_meta_name(obj);
	if (name && *name)
		meta_set_label(obj, NAMESPACE_NAME_LABEL, name);
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
		mock_schema_sort_object(spec, sub_schema(&nl_schema_node, "spec"));
	} else if (cidr && *cidr) {
		cidrs = json_object_new_array();
		if (cidrs && json_object_array_add(cidrs, json_object_new_string(cidr)) == 0 &&
		    json_object_object_add(spec, "podCIDRs", cidrs) == 0)
			mock_schema_sort_object(spec, sub_schema(&nl_schema_node, "spec"));
		else
			json_object_put(cidrs);
	}
	if (!child(status, "allocatable") && child(status, "capacity") &&
	    json_object_deep_copy(child(status, "capacity"), &copy, NULL) == 0) {
		json_object_object_add(status, "allocatable", copy);
		mock_schema_sort_object(status, sub_schema(&nl_schema_node, "status"));
	}
}

/* ----------------------------------------------------------------- table */

static const char *const namespace_short[] = {"ns", NULL};
static const char *const node_short[] = {"no", NULL};
static const char *const configmap_short[] = {"cm", NULL};
static const char *const event_short[] = {"ev", NULL};
static const char *const pod_short[] = {"po", NULL};
static const char *const csr_short[] = {"csr", NULL};
static const char *const csr_fields_sel[] = {"spec.signerName", NULL};

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

/* PodToSelectableFields */
static const char *const pod_fields_sel[] = {
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "spec.hostNetwork",
    "status.phase",
    "status.podIP",
    "status.nominatedNodeName",
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
            .has_status = 1,
            .selectable_fields = namespace_fields_sel,
            .schema = &nl_schema_namespace,
            .defaults = namespace_defaults,
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
            .schema = &nl_schema_node,
            .defaults = node_defaults,
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
            .schema = &nl_schema_configmap,
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
            .schema = &nl_schema_event,
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
            .schema = &nl_schema_lease,
            .validate = mock_validate_lease,
        },
    [MOCK_KIND_POD] =
        {
            .id = MOCK_KIND_POD,
            .group = "",
            .version = "v1",
            .api_version = "v1",
            .plural = "pods",
            .singular = "pod",
            .kind = "Pod",
            .list_kind = "PodList",
            .namespaced = 1,
            .short_names = pod_short,
            .unconditional_update = 1,
            .has_status = 1,
            .has_eviction = 1,
            .selectable_fields = pod_fields_sel,
            .schema = &nl_schema_pod,
            .defaults = mock_pod_defaults,
            .prepare_create = mock_pod_prepare_create,
            .validate = mock_validate_pod,
            .grace_period = mock_pod_grace_period,
            .return_deleted = 1,
        },
    [MOCK_KIND_CSR] =
        {
            .id = MOCK_KIND_CSR,
            .group = "certificates.k8s.io",
            .version = "v1",
            .api_version = "certificates.k8s.io/v1",
            .plural = "certificatesigningrequests",
            .singular = "certificatesigningrequest",
            .kind = "CertificateSigningRequest",
            .list_kind = "CertificateSigningRequestList",
            .namespaced = 0,
            .short_names = csr_short,
            .unconditional_update = 1,
            .has_status = 1,
            .has_approval = 1,
            .selectable_fields = csr_fields_sel,
            .schema = &nl_schema_csr,
            .prepare_create_as = mock_csr_prepare_create,
            .prepare_endpoint = mock_csr_prepare_update,
            .validate_endpoint = mock_validate_csr,
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
