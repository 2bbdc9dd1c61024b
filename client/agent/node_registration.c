/* Node registration, as kubelet's registerWithAPIServer / initialNode /
 * tryRegisterWithAPIServer (pkg/kubelet/kubelet_node_status.go): CREATE the
 * Node with its labels, taints and status; when it already exists, GET it
 * and reconcile only the labels kubelet owns. */
#include <inttypes.h>
#include <nodelet/log.h>
#include <nodelet/meta.h>
#include <nodelet/node.h>
#include <nodelet/time.h>
#include <stdio.h>
#include <string.h>

#include "agent_internal.h"
#include "config.h"

/* kubelet's updateDefaultLabels list, restricted to the ones nodelet sets
 * (zone, region and instance type come from a cloud provider). */
static const char *const default_labels[] = {
    "kubernetes.io/hostname", "kubernetes.io/os",        "kubernetes.io/arch",
    "beta.kubernetes.io/os",  "beta.kubernetes.io/arch",
};
#define N_DEFAULT_LABELS (sizeof(default_labels) / sizeof(default_labels[0]))

static int add(json_object *obj, const char *key, json_object *val)
{
	if (!val)
		return NL_ENOMEM;
	if (json_object_object_add(obj, key, val) != 0) {
		json_object_put(val);
		return NL_ENOMEM;
	}
	return 0;
}

static int add_str(json_object *obj, const char *key, const char *s)
{
	return add(obj, key, json_object_new_string(s));
}

/* Values in kubelet's order: hostname (without a cloud provider the node
 * name is the hostname, --hostname-override's or the system's), then the OS
 * and architecture as Go spells them. */
static const char *default_label_value(const nl_agent *a, size_t i)
{
	switch (i) {
	case 0:
		return a->node_name;
	case 1:
	case 3:
		return a->host.operating_system;
	default:
		return a->host.architecture;
	}
}

static json_object *labels(const nl_agent *a)
{
	json_object *l = json_object_new_object();
	if (!l)
		return NULL;
	for (size_t i = 0; i < N_DEFAULT_LABELS; i++)
		if (add_str(l, default_labels[i], default_label_value(a, i)) != 0)
			goto fail;
	/* --node-labels last: kubelet lets them override. */
	for (size_t i = 0; i < a->config->n_node_labels; i++)
		if (add_str(l, a->config->node_labels[i].key, a->config->node_labels[i].value) != 0)
			goto fail;
	return l;
fail:
	json_object_put(l);
	return NULL;
}

static json_object *taint(const char *key, const char *value, const char *effect)
{
	json_object *t = json_object_new_object();
	if (!t || add_str(t, "key", key) != 0 ||
	    (value && *value && add_str(t, "value", value) != 0) ||
	    add_str(t, "effect", effect) != 0) {
		json_object_put(t);
		return NULL;
	}
	return t;
}

/* registerWithTaints when given (an empty list included: the operator chose
 * no taint), else the no-pods taint. */
static json_object *taints(const nl_agent *a)
{
	json_object *list = json_object_new_array(), *t = NULL;
	const nl_nodelet_config *c = a->config;
	if (!list)
		return NULL;
	if (!(c->set & NL_NC_REGISTER_WITH_TAINTS)) {
		t = taint(NL_AGENT_NO_PODS_TAINT_KEY, NULL, NL_AGENT_NO_PODS_TAINT_EFFECT);
		if (!t || json_object_array_add(list, t) != 0)
			goto fail;
		return list;
	}
	for (size_t i = 0; i < c->n_register_with_taints; i++) {
		const nl_taint *x = &c->register_with_taints[i];
		t = taint(x->key, x->value, x->effect);
		if (!t || json_object_array_add(list, t) != 0)
			goto fail;
	}
	return list;
fail:
	json_object_put(t);
	json_object_put(list);
	return NULL;
}

/* A resource.Quantity in BinarySI canonical form ("16318584Ki", "2Gi"). */
static void binary_quantity(char *out, size_t outlen, int64_t v)
{
	static const char *const suffix[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
	size_t i = 0;
	while (v != 0 && v % 1024 == 0 && i + 1 < sizeof(suffix) / sizeof(suffix[0])) {
		v /= 1024;
		i++;
	}
	snprintf(out, outlen, "%" PRId64 "%s", v, suffix[i]);
}

/* capacity, or allocatable: capacity less kubelet's hardEvictionReservation
 * (the memory.available and nodefs.available hard thresholds; nothing
 * else is reserved). pods "0": the scheduler's last line of defence when
 * a pod tolerates every taint. */
static json_object *resources(const nl_agent *a, int allocatable)
{
	char buf[64];
	json_object *r = json_object_new_object();
	if (!r)
		return NULL;
	if (a->host.cpus > 0) {
		snprintf(buf, sizeof(buf), "%ld", a->host.cpus);
		if (add_str(r, "cpu", buf) != 0)
			goto fail;
	}
	int64_t mem = a->host.memory_bytes, disk = a->ephemeral_storage_bytes;
	if (allocatable) {
		mem -= nl__agent_eviction_reservation(a, NL_SIGNAL_MEMORY_AVAILABLE, mem);
		disk -= nl__agent_eviction_reservation(a, NL_SIGNAL_NODEFS_AVAILABLE, disk);
	}
	if (a->host.memory_bytes > 0) {
		binary_quantity(buf, sizeof(buf), mem > 0 ? mem : 0);
		if (add_str(r, "memory", buf) != 0)
			goto fail;
	}
	/* kubelet's ephemeral-storage: the size of its root directory's
	 * filesystem (cAdvisor's RootFsInfo). */
	if (a->ephemeral_storage_bytes > 0) {
		binary_quantity(buf, sizeof(buf), disk > 0 ? disk : 0);
		if (add_str(r, "ephemeral-storage", buf) != 0)
			goto fail;
	}
	if (add_str(r, "pods", "0") != 0)
		goto fail;
	return r;
fail:
	json_object_put(r);
	return NULL;
}

/* status.addresses from the NodeAddress setter (node_addresses.c). When it
 * fails, kubelet logs and leaves the addresses as they are: NULL here, and
 * the caller reports none (registration) or leaves the server's. */
static json_object *addresses(const nl_agent *a)
{
	json_object *list = NULL;
	nl_err err = {0};
	nl_host_info net;
	const nl_host_info *host = &a->host;
	if (a->probe_network) {
		net = a->host;
		nl_host_info_probe_network(&net);
		host = &net;
	}
	if (nl_node_addresses(&list, &a->node_ips, a->node_name, a->node_name, host, &err) != 0)
		NL_LOG_ERROR(err.msg, "Failed to set some node status fields",
		             NL_KV_REF("node", NULL, a->node_name));
	return list;
}

/* status.nodeInfo in NodeSystemInfo's field order; nothing runs containers
 * or kube-proxy here, so those versions are empty. */
static json_object *node_info(const nl_agent *a)
{
	const nl_host_info *h = &a->host;
	json_object *o = json_object_new_object();
	if (!o || add_str(o, "machineID", h->machine_id) != 0 ||
	    add_str(o, "systemUUID", h->system_uuid) != 0 ||
	    add_str(o, "bootID", h->boot_id) != 0 ||
	    add_str(o, "kernelVersion", h->kernel_version) != 0 ||
	    add_str(o, "osImage", h->os_image) != 0 ||
	    add_str(o, "containerRuntimeVersion", "") != 0 ||
	    add_str(o, "kubeletVersion", "nodelet/" PACKAGE_VERSION) != 0 ||
	    add_str(o, "kubeProxyVersion", "") != 0 ||
	    add_str(o, "operatingSystem", h->operating_system) != 0 ||
	    add_str(o, "architecture", h->architecture) != 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

int nl__agent_fill_status(json_object *status, const nl_agent *a)
{
	json_object *cap = resources(a, 0), *alloc = resources(a, 1);
	if (add(status, "capacity", cap) != 0) {
		json_object_put(alloc);
		return NL_ENOMEM;
	}
	json_object *addrs = NULL;
	if (add(status, "allocatable", alloc) != 0 ||
	    ((addrs = addresses(a)) && add(status, "addresses", addrs) != 0) ||
	    add(status, "nodeInfo", node_info(a)) != 0)
		return NL_ENOMEM;
	return 0;
}

/* node_registration.c */
static int build_node(json_object **out, nl_agent *a)
{
	json_object *node = NULL, *spec, *status;
	int rc = nl_node_new(&node, a->node_name);
	if (rc != 0)
		return rc;
	rc = NL_ENOMEM;
	if (add(nl_meta_ensure(node), "labels", labels(a)) != 0 ||
	    add(node, "spec", spec = json_object_new_object()) != 0 ||
	    add(node, "status", status = json_object_new_object()) != 0)
		goto fail;
	json_object *t = taints(a);
	if (!t)
		goto fail;
	if (json_object_array_length(t) == 0)
		json_object_put(t);
	else if (add(spec, "taints", t) != 0)
		goto fail;
	nl__agent_observe(a);
	if ((rc = nl__agent_fill_status(status, a)) != 0 ||
	    (rc = nl__agent_set_conditions(node, a, nl_clock_now(a->clock))) != 0)
		goto fail;
	*out = node;
	return 0;
fail:
	json_object_put(node);
	return rc;
}

int nl_agent_initial_node(json_object **out, nl_agent *a)
{
	return build_node(out, a);
}

/* kubelet's updateDefaultLabels: the labels it owns back to its values.
 * *patch is NULL when nothing differs. */
static int label_patch(char **patch, const nl_agent *a, json_object *existing)
{
	json_object *have = nl_meta_labels(existing), *want = json_object_new_object();
	int n = 0;
	*patch = NULL;
	if (!want)
		return NL_ENOMEM;
	for (size_t i = 0; i < N_DEFAULT_LABELS; i++) {
		const char *v = default_label_value(a, i);
		json_object *cur = have ? json_object_object_get(have, default_labels[i]) : NULL;
		if (cur && json_object_is_type(cur, json_type_string) &&
		    strcmp(json_object_get_string(cur), v) == 0)
			continue;
		if (add_str(want, default_labels[i], v) != 0)
			goto fail;
		n++;
	}
	if (n > 0) {
		char *s = NULL;
		json_object *p = json_object_new_object(), *meta = json_object_new_object();
		if (add(p, "metadata", meta) != 0 ||
		    add(meta, "labels", json_object_get(want)) != 0 ||
		    !(s = strdup(json_object_to_json_string_ext(p, JSON_C_TO_STRING_PLAIN)))) {
			json_object_put(p);
			goto fail;
		}
		json_object_put(p);
		*patch = s;
	}
	json_object_put(want);
	return 0;
fail:
	json_object_put(want);
	return NL_ENOMEM;
}

/* The Node exists: GET it, reconcile the default labels (one PATCH of
 * nodes/<name>/status, as kubelet's PatchNodeStatus), and report the status
 * at once. */
static int adopt_existing(nl_agent *a)
{
	json_object *node = NULL, *patched = NULL;
	nl_result res = NL_RESULT_INIT;
	char *patch = NULL;
	int rc = nl_node_get(&node, a->client, a->node_name, &res);
	if (rc != 0) {
		NL_LOG_ERROR(res.message,
		             "Unable to register node with API server, error getting existing node",
		             NL_KV_REF("node", NULL, a->node_name));
		goto done;
	}
	NL_LOG_INFO("Node was previously registered", NL_KV_REF("node", NULL, a->node_name));
	if ((rc = label_patch(&patch, a, node)) != 0)
		goto done;
	if (patch) {
		rc = nl_node_patch_status(&patched, a->client, a->node_name, NL_PATCH_STRATEGIC,
		                          patch, strlen(patch), &res);
		if (rc != 0) {
			NL_LOG_ERROR(res.message,
			             "Unable to reconcile node with API server,error updating node",
			             NL_KV_REF("node", NULL, a->node_name));
			goto done;
		}
	}
	__atomic_store_n(&a->registered, 1, __ATOMIC_RELAXED); /* read by /readyz */
	a->status_check_owed = 1;
done:
	free(patch);
	json_object_put(node);
	json_object_put(patched);
	nl_result_clear(&res);
	return rc;
}

int nl_agent_register_node(nl_agent *a)
{
	json_object *node = NULL, *created = NULL;
	nl_result res = NL_RESULT_INIT;
	int rc;
	if (a->registered)
		return 0;
	if ((rc = build_node(&node, a)) != 0) {
		NL_LOG_ERROR(nl_strerror(rc), "Unable to construct v1.Node object for kubelet");
		return rc;
	}
	NL_LOG_INFO("Attempting to register node", NL_KV_REF("node", NULL, a->node_name));
	rc = nl_node_create(&created, a->client, node, &res);
	if (rc == 0) {
		/* The Node was created with its status: that is a report. */
		__atomic_store_n(&a->registered, 1, __ATOMIC_RELAXED); /* read by /readyz */
		a->last_report = nl_clock_now(a->clock);
		a->last_report_mono = nl_clock_mono(a->clock);
		a->reports++;
	} else if (rc == NL_EEXISTS) {
		rc = adopt_existing(a);
	} else {
		NL_LOG_ERROR(res.message, "Unable to register node with API server",
		             NL_KV_REF("node", NULL, a->node_name));
	}
	if (rc == 0)
		NL_LOG_INFO("Successfully registered node", NL_KV_REF("node", NULL, a->node_name));
	json_object_put(node);
	json_object_put(created);
	nl_result_clear(&res);
	return rc;
}
