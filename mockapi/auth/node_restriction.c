/* NodeRestriction admission (admitNode, admitLease) with upstream's texts. */
#include "node_restriction.h"

#include <nodelet/buf.h>
#include <nodelet/meta.h>
#include <nodelet/quote.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* admission.NewForbidden: the object's name (the URL's, else the body's,
 * else "Unknown") and "<gr> "<name>" is forbidden: <why>". */
static nl_status *forbidden(const mock_resource *r, const char *name, json_object *obj,
                            const char *why)
{
	const char *n = name && *name ? name : nl_meta_name(obj);
	if (!n || !*n)
		n = "Unknown";
	nl_gr gr = mock_resource_gr(r);
	char grs[300], qname[600];
	nl_gr_string(grs, sizeof(grs), &gr);
	nl_quote_str(qname, sizeof(qname), n);
	nl_status *st = nl_status_newf(403, "Forbidden", "%s %s is forbidden: %s", grs, qname, why);
	if (st && nl_status_set_details(st, n, r->group, r->plural, NULL) != 0) {
		nl_status_free(st);
		return NULL;
	}
	return st;
}

static nl_status *admit_lease(const mock_resource *r, const char *node, const char *name,
                              json_object *obj, json_object *old)
{
	const char *ns = nl_meta_namespace(obj);
	if (!ns || strcmp(ns, MOCK_NODE_LEASE_NAMESPACE) != 0)
		return forbidden(r, name, obj,
		                 "can only access leases in the \"" MOCK_NODE_LEASE_NAMESPACE
		                 "\" system namespace");
	/* On create the authorizer did not know the name: the body has it. */
	const char *target = old ? name : nl_meta_name(obj);
	if (!target || strcmp(target, node) != 0)
		return forbidden(r, name, obj,
		                 "can only access node lease with the same name as the requesting "
		                 "node");
	return NULL;
}

/* apiequality.Semantic.DeepEqual for the fields compared here: absent and
 * null are nil; for lists, nil and empty are equal too. */
static int semantic_equal(json_object *a, json_object *b, int list)
{
	if (list) {
		if (a && json_object_is_type(a, json_type_array) &&
		    json_object_array_length(a) == 0)
			a = NULL;
		if (b && json_object_is_type(b, json_type_array) &&
		    json_object_array_length(b) == 0)
			b = NULL;
	}
	if (!a || !b)
		return !a && !b;
	return json_object_equal(a, b);
}

/* The label namespace: what comes before the first '/', or "". */
static void label_namespace(char *out, size_t outlen, const char *key)
{
	const char *slash = strchr(key, '/');
	size_t n = slash ? (size_t)(slash - key) : 0;
	if (n >= outlen)
		n = outlen - 1;
	memcpy(out, key, n);
	out[n] = '\0';
}

static int in_domain(const char *ns, const char *domain)
{
	size_t n = strlen(ns), d = strlen(domain);
	return strcmp(ns, domain) == 0 ||
	       (n > d && ns[n - d - 1] == '.' && strcmp(ns + n - d, domain) == 0);
}

/* kubeletapis.IsKubeletLabel: the labels a kubelet sets on itself. */
static int kubelet_label(const char *key, const char *ns)
{
	static const char *const labels[] = {"kubernetes.io/hostname",
	                                     "topology.kubernetes.io/zone",
	                                     "topology.kubernetes.io/region",
	                                     "failure-domain.beta.kubernetes.io/zone",
	                                     "failure-domain.beta.kubernetes.io/region",
	                                     "beta.kubernetes.io/instance-type",
	                                     "node.kubernetes.io/instance-type",
	                                     "kubernetes.io/os",
	                                     "kubernetes.io/arch",
	                                     "beta.kubernetes.io/os",
	                                     "beta.kubernetes.io/arch",
	                                     NULL};
	for (const char *const *l = labels; *l; l++)
		if (strcmp(key, *l) == 0)
			return 1;
	return in_domain(ns, "kubelet.kubernetes.io") || in_domain(ns, "node.kubernetes.io");
}

static int forbidden_label(const char *key)
{
	char ns[256];
	label_namespace(ns, sizeof(ns), key);
	if (in_domain(ns, "node-restriction.kubernetes.io"))
		return 1;
	return (in_domain(ns, "kubernetes.io") || in_domain(ns, "k8s.io")) &&
	       !kubelet_label(key, ns);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A label in a that b lacks or has with another value, and forbidden. */
static int collect(const char **keys, size_t *n, size_t max, json_object *a, json_object *b)
{
	if (!a || !json_object_is_type(a, json_type_object))
		return 0;
	json_object_object_foreach(a, k, v)
	{
		json_object *other = NULL;
		int same = b && json_object_object_get_ex(b, k, &other) &&
		           strcmp(json_object_get_string(v), json_object_get_string(other)) == 0;
		int seen = 0;
		for (size_t i = 0; i < *n; i++)
			seen |= strcmp(keys[i], k) == 0;
		if (!same && !seen && forbidden_label(k)) {
			if (*n == max)
				return NL_ETOOBIG;
			keys[(*n)++] = k;
		}
	}
	return 0;
}

/* getModifiedLabels + getForbiddenLabels, sorted and joined with ", " into
 * out. 0 when none. */
static int forbidden_labels(nl_buf *out, json_object *obj, json_object *old)
{
	const char *keys[256];
	size_t n = 0;
	json_object *a = nl_json_get_path(obj, "metadata.labels");
	json_object *b = old ? nl_json_get_path(old, "metadata.labels") : NULL;
	if (collect(keys, &n, 256, a, b) != 0 || collect(keys, &n, 256, b, a) != 0)
		return NL_ETOOBIG;
	qsort(keys, n, sizeof(keys[0]), cmp_str);
	for (size_t i = 0; i < n; i++)
		if (nl_buf_printf(out, "%s%s", i ? ", " : "", keys[i]) != 0)
			return NL_ENOMEM;
	return n > 0;
}

static nl_status *admit_node(const mock_resource *r, const char *node, const char *name,
                             json_object *obj, json_object *old)
{
	char qnode[600], why[2048];
	const char *target = name && *name ? name : nl_meta_name(obj);
	nl_quote_str(qnode, sizeof(qnode), node);
	if (!target || strcmp(target, node) != 0) {
		char qtarget[600];
		nl_quote_str(qtarget, sizeof(qtarget), target ? target : "");
		snprintf(why, sizeof(why), "node %s is not allowed to modify node %s", qnode,
		         qtarget);
		return forbidden(r, name, obj, why);
	}
	json_object *src = nl_json_get_path(obj, "spec.configSource");
	if (src && json_object_is_type(src, json_type_null))
		src = NULL;
	if (!old && src) {
		/* sic: upstream's text says pods */
		snprintf(why, sizeof(why),
		         "node %s is not allowed to create pods with a non-nil configSource",
		         qnode);
		return forbidden(r, name, obj, why);
	}
	if (old && src && !semantic_equal(src, nl_json_get_path(old, "spec.configSource"), 0)) {
		snprintf(why, sizeof(why),
		         "node %s is not allowed to update configSource to a new non-nil "
		         "configSource",
		         qnode);
		return forbidden(r, name, obj, why);
	}
	if (old && !semantic_equal(nl_json_get_path(obj, "spec.taints"),
	                           nl_json_get_path(old, "spec.taints"), 1)) {
		snprintf(why, sizeof(why), "node %s is not allowed to modify taints", qnode);
		return forbidden(r, name, obj, why);
	}
	nl_buf labels;
	nl_buf_init(&labels, sizeof(why) - 128);
	int rc = forbidden_labels(&labels, obj, old);
	nl_status *st = NULL;
	if (rc < 0)
		st = nl_status_internal("too many labels");
	else if (rc > 0 && !old)
		snprintf(why, sizeof(why), "node %s is not allowed to set the following labels: %s",
		         qnode, labels.data);
	else if (rc > 0)
		snprintf(why, sizeof(why), "is not allowed to modify labels: %s", labels.data);
	if (rc > 0)
		st = forbidden(r, name, obj, why);
	nl_buf_free(&labels);
	return st;
}

nl_status *mock_node_restriction(const mock_authz_user *u, const mock_resource *r, const char *name,
                                 json_object *obj, json_object *old)
{
	const char *node = NULL;
	if (!mock_authz_node_identity(&node, u))
		return NULL;
	if (r->id != MOCK_KIND_NODE && r->id != MOCK_KIND_LEASE)
		return NULL;
	if (!*node) {
		char why[700], q[600];
		nl_quote_str(q, sizeof(q), u->name);
		snprintf(why, sizeof(why), "could not determine node from user %s", q);
		return forbidden(r, name, obj, why);
	}
	return r->id == MOCK_KIND_NODE ? admit_node(r, node, name, obj, old)
	                               : admit_lease(r, node, name, obj, old);
}
