/* The authorizers of --authorization-mode and kube-apiserver's 403 texts
 * (k8s.io/apiserver responsewriters.Forbidden, plugin/pkg/auth/authorizer/
 * node, bootstrappolicy's NodeRules). */
#include "authz.h"

#include <nodelet/quote.h>
#include <stdio.h>
#include <string.h>

#include "authn.h"

int mock_authz_mode_parse(mock_authz_mode *out, const char *s, nl_err *err)
{
	if (s && strcmp(s, "AlwaysAllow") == 0) {
		*out = MOCK_AUTHZ_ALWAYS_ALLOW;
		return 0;
	}
	if (s && strcmp(s, "Node") == 0) {
		*out = MOCK_AUTHZ_NODE;
		return 0;
	}
	return nl_err_set(err, NL_EINVAL,
	                  "--authorization-mode: unsupported mode \"%s\": want AlwaysAllow or Node",
	                  s ? s : "");
}

/* ------------------------------------------------------------------------
 * Messages */

/* The sanitizer responsewriters applies to the "User ... cannot ..." part. */
static void html_escape(char *out, size_t outlen, const char *s)
{
	size_t n = 0;
	for (; *s && n + 6 < outlen; s++) {
		const char *rep = *s == '&'   ? "&amp;"
		                  : *s == '<' ? "&lt;"
		                  : *s == '>' ? "&gt;"
		                              : NULL;
		if (rep) {
			memcpy(out + n, rep, strlen(rep));
			n += strlen(rep);
		} else {
			out[n++] = *s;
		}
	}
	out[n] = '\0';
}

nl_status *mock_authz_forbidden(const char *user, const mock_req_attrs *a, const char *path,
                                const char *reason)
{
	char quser[600], qres[160], qgroup[300], qns[600], msg[4096], safe[4096];
	nl_quote_str(quser, sizeof(quser), user ? user : "");
	if (!a->res) {
		char qpath[2100];
		nl_quote_str(qpath, sizeof(qpath), path ? path : "");
		/* a non-resource verb is printed bare, as %s */
		snprintf(msg, sizeof(msg), "User %s cannot %s path %s", quser, a->verb, qpath);
	} else {
		char resource[128];
		snprintf(resource, sizeof(resource), "%s%s%s", a->resource,
		         a->subresource[0] ? "/" : "", a->subresource);
		nl_quote_str(qres, sizeof(qres), resource);
		nl_quote_str(qgroup, sizeof(qgroup), a->group);
		if (a->ns[0]) {
			nl_quote_str(qns, sizeof(qns), a->ns);
			snprintf(
			    msg, sizeof(msg),
			    "User %s cannot %s resource %s in API group %s in the namespace %s",
			    quser, a->verb, qres, qgroup, qns);
		} else {
			snprintf(
			    msg, sizeof(msg),
			    "User %s cannot %s resource %s in API group %s at the cluster scope",
			    quser, a->verb, qres, qgroup);
		}
	}
	html_escape(safe, sizeof(safe), msg);
	const char *sep = reason && *reason ? ": " : "";
	const char *why = reason ? reason : "";
	nl_status *st;
	if (!a->res) {
		st = nl_status_newf(403, "Forbidden", "forbidden: %s%s%s", safe, sep, why);
		if (st && nl_status_set_details(st, "", "", "", NULL) != 0) {
			nl_status_free(st);
			st = NULL;
		}
		return st;
	}
	nl_gr gr = {a->group, a->resource};
	char grs[400], qname[600];
	nl_gr_string(grs, sizeof(grs), &gr);
	if (a->name[0]) {
		nl_quote_str(qname, sizeof(qname), a->name);
		st = nl_status_newf(403, "Forbidden", "%s %s is forbidden: %s%s%s", grs, qname,
		                    safe, sep, why);
	} else {
		st = nl_status_newf(403, "Forbidden", "%s is forbidden: %s%s%s", grs, safe, sep,
		                    why);
	}
	if (st && nl_status_set_details(st, a->name, a->group, a->resource, NULL) != 0) {
		nl_status_free(st);
		st = NULL;
	}
	return st;
}

/* ------------------------------------------------------------------------
 * Authorizers */

typedef enum {
	NO_OPINION,
	ALLOW,
} decision;

static int in_group(const mock_authz_user *u, const char *group)
{
	for (size_t i = 0; i < u->ngroups; i++)
		if (strcmp(u->groups[i], group) == 0)
			return 1;
	return 0;
}

static int verb_in(const char *verb, const char *const *verbs)
{
	for (; *verbs; verbs++)
		if (strcmp(verb, *verbs) == 0)
			return 1;
	return 0;
}

int mock_authz_node_identity(const char **node, const mock_authz_user *u)
{
	size_t n = strlen(MOCK_NODE_USER_PREFIX);
	if (!u->name || strncmp(u->name, MOCK_NODE_USER_PREFIX, n) != 0 ||
	    !in_group(u, MOCK_GROUP_NODES))
		return 0;
	*node = u->name + n;
	return 1;
}

static int is_csr(const mock_req_attrs *a, const char *sub)
{
	return a->res && strcmp(a->group, "certificates.k8s.io") == 0 &&
	       strcmp(a->resource, "certificatesigningrequests") == 0 &&
	       strcmp(a->subresource, sub) == 0;
}

/* The system:node role's rules for what the mock serves
 * (bootstrappolicy.NodeRules): resources not subdivided below. */
static decision node_rules(const mock_req_attrs *a)
{
	static const char *const node_verbs[] = {"create", "get",   "list", "watch",
	                                         "update", "patch", NULL};
	static const char *const status_verbs[] = {"update", "patch", NULL};
	static const char *const event_verbs[] = {"create", "update", "patch", NULL};
	static const char *const csr_verbs[] = {"create", "get", "list", "watch", NULL};
	if (is_csr(a, ""))
		return verb_in(a->verb, csr_verbs) ? ALLOW : NO_OPINION;
	if (!a->res || a->group[0])
		return NO_OPINION;
	if (strcmp(a->resource, "nodes") == 0)
		return verb_in(a->verb, a->subresource[0] ? status_verbs : node_verbs) ? ALLOW
		                                                                       : NO_OPINION;
	if (strcmp(a->resource, "events") == 0 && !a->subresource[0])
		return verb_in(a->verb, event_verbs) ? ALLOW : NO_OPINION;
	return NO_OPINION;
}

/* The TLS bootstrap bindings kubeadm makes (docs/decisions/0042), bound
 * here to the whole system:bootstrappers group: system:node-bootstrapper
 * (create, get, list and watch CSRs) and the nodeclient auto-approval
 * role for bootstrappers, the selfnodeclient one for system:nodes. */
static decision bootstrap_roles(char *reason, size_t rlen, const mock_authz_user *u,
                                const mock_req_attrs *a)
{
	static const char *const csr_verbs[] = {"create", "get", "list", "watch", NULL};
	static const struct {
		const char *group, *sub, *binding, *role;
	} rules[] = {
	    {"system:bootstrappers", "", "kubeadm:kubelet-bootstrap", "system:node-bootstrapper"},
	    {"system:bootstrappers", "nodeclient", "kubeadm:node-autoapprove-bootstrap",
	     "system:certificates.k8s.io:certificatesigningrequests:nodeclient"},
	    {MOCK_GROUP_NODES, "selfnodeclient", "kubeadm:node-autoapprove-certificate-rotation",
	     "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient"},
	};
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		if (!in_group(u, rules[i].group) || !is_csr(a, rules[i].sub))
			continue;
		if (rules[i].sub[0] ? strcmp(a->verb, "create") != 0 : !verb_in(a->verb, csr_verbs))
			continue;
		snprintf(reason, rlen,
		         "RBAC: allowed by ClusterRoleBinding \"%s\" of ClusterRole \"%s\" to "
		         "Group \"%s\"",
		         rules[i].binding, rules[i].role, rules[i].group);
		return ALLOW;
	}
	return NO_OPINION;
}

/* authorizeReadNamespacedObject + authorize for ConfigMaps: readable only
 * through the graph, i.e. when the node's config source references it. */
static decision node_configmap(char *reason, size_t rlen, const char *node, const mock_req_attrs *a,
                               mock_node_configmap_fn configmap_of, void *payload)
{
	static const char *const read_verbs[] = {"get", "list", "watch", NULL};
	char ns[254] = "", name[254] = "";
	if (!verb_in(a->verb, read_verbs)) {
		snprintf(reason, rlen, "can only read resources of this type");
		return NO_OPINION;
	}
	if (a->subresource[0]) {
		snprintf(reason, rlen, "cannot read subresource");
		return NO_OPINION;
	}
	if (!a->ns[0]) {
		snprintf(reason, rlen, "can only read namespaced object of this type");
		return NO_OPINION;
	}
	if (!a->name[0]) {
		snprintf(reason, rlen, "No Object name found");
		return NO_OPINION;
	}
	if (configmap_of && configmap_of(ns, name, node, payload) == 1 && strcmp(ns, a->ns) == 0 &&
	    strcmp(name, a->name) == 0)
		return ALLOW;
	snprintf(reason, rlen, "no relationship found between node '%s' and this object", node);
	return NO_OPINION;
}

static decision node_lease(char *reason, size_t rlen, const char *node, const mock_req_attrs *a)
{
	static const char *const verbs[] = {"get", "create", "update", "patch", "delete", NULL};
	if (!verb_in(a->verb, verbs)) {
		snprintf(reason, rlen,
		         "can only get, create, update, patch, or delete a node lease");
		return NO_OPINION;
	}
	if (strcmp(a->ns, MOCK_NODE_LEASE_NAMESPACE) != 0) {
		snprintf(reason, rlen, "can only access leases in the \"%s\" system namespace",
		         MOCK_NODE_LEASE_NAMESPACE);
		return NO_OPINION;
	}
	/* The name of a create is unknown here; NodeRestriction checks it. */
	if (strcmp(a->verb, "create") != 0 && strcmp(a->name, node) != 0) {
		snprintf(reason, rlen,
		         "can only access node lease with the same name as the requesting node");
		return NO_OPINION;
	}
	return ALLOW;
}

static decision node_authorizer(char *reason, size_t rlen, const mock_authz_user *u,
                                const mock_req_attrs *a, mock_node_configmap_fn configmap_of,
                                void *payload)
{
	const char *node = NULL;
	if (!mock_authz_node_identity(&node, u))
		return NO_OPINION;
	if (!*node) {
		char q[400];
		nl_quote_str(q, sizeof(q), u->name);
		snprintf(reason, rlen, "unknown node for user %s", q);
		return NO_OPINION;
	}
	if (a->res && !a->group[0] && strcmp(a->resource, "configmaps") == 0)
		return node_configmap(reason, rlen, node, a, configmap_of, payload);
	if (a->res && strcmp(a->group, "coordination.k8s.io") == 0 &&
	    strcmp(a->resource, "leases") == 0)
		return node_lease(reason, rlen, node, a);
	return node_rules(a);
}

/* RBAC's non-resource URL match: exact, or a prefix ending in '*'. */
static int url_matches(const char *path, const char *rule)
{
	size_t n = strlen(rule);
	if (n && rule[n - 1] == '*')
		return strncmp(path, rule, n - 1) == 0;
	return strcmp(path, rule) == 0;
}

/* system:discovery and system:public-info-viewer, which every cluster
 * binds to system:authenticated: GET of discovery, OpenAPI, version and
 * the health roots. On an allow, reason names the binding as RBAC does. */
static decision discovery_roles(char *reason, size_t rlen, const mock_authz_user *u,
                                const mock_req_attrs *a, const char *path)
{
	/* /metrics is readable like /healthz here (upstream: system:monitoring). */
	static const struct {
		const char *url, *role;
	} urls[] = {
	    {"/livez", "system:public-info-viewer"},
	    {"/readyz", "system:public-info-viewer"},
	    {"/healthz", "system:public-info-viewer"},
	    {"/metrics", "system:public-info-viewer"},
	    {"/version", "system:public-info-viewer"},
	    {"/version/", "system:public-info-viewer"},
	    {"/openapi", "system:discovery"},
	    {"/openapi/*", "system:discovery"},
	    {"/api", "system:discovery"},
	    {"/api/*", "system:discovery"},
	    {"/apis", "system:discovery"},
	    {"/apis/*", "system:discovery"},
	};
	if (a->res || a->resource[0] || !path || strcmp(a->verb, "get") != 0 ||
	    !in_group(u, MOCK_GROUP_AUTHENTICATED))
		return NO_OPINION;
	for (size_t i = 0; i < sizeof(urls) / sizeof(urls[0]); i++) {
		if (url_matches(path, urls[i].url)) {
			snprintf(
			    reason, rlen,
			    "RBAC: allowed by ClusterRoleBinding \"%s\" of ClusterRole \"%s\" to "
			    "Group \"%s\"",
			    urls[i].role, urls[i].role, MOCK_GROUP_AUTHENTICATED);
			return ALLOW;
		}
	}
	return NO_OPINION;
}

/* system:basic-user, bound to system:authenticated: create the reviews
 * of one's own access and identity. */
static decision basic_user_role(char *reason, size_t rlen, const mock_authz_user *u,
                                const mock_req_attrs *a)
{
	int self_review = (strcmp(a->group, "authorization.k8s.io") == 0 &&
	                   (strcmp(a->resource, "selfsubjectaccessreviews") == 0 ||
	                    strcmp(a->resource, "selfsubjectrulesreviews") == 0)) ||
	                  (strcmp(a->group, "authentication.k8s.io") == 0 &&
	                   strcmp(a->resource, "selfsubjectreviews") == 0);
	if (!self_review || a->subresource[0] || strcmp(a->verb, "create") != 0 ||
	    !in_group(u, MOCK_GROUP_AUTHENTICATED))
		return NO_OPINION;
	snprintf(reason, rlen,
	         "RBAC: allowed by ClusterRoleBinding \"system:basic-user\" of ClusterRole "
	         "\"system:basic-user\" to Group \"%s\"",
	         MOCK_GROUP_AUTHENTICATED);
	return ALLOW;
}

int mock_authz_decide(char *reason, size_t rlen, mock_authz_mode mode, const mock_authz_user *u,
                      const mock_req_attrs *attrs, const char *path,
                      mock_node_configmap_fn configmap_of, void *payload)
{
	reason[0] = '\0';
	/* AlwaysAllow and the privileged group allow without a reason. */
	if (mode == MOCK_AUTHZ_ALWAYS_ALLOW || in_group(u, MOCK_GROUP_MASTERS))
		return 1;
	if (node_authorizer(reason, rlen, u, attrs, configmap_of, payload) == ALLOW) {
		reason[0] = '\0';
		return 1;
	}
	/* RBAC's bootstrap roles come after the Node authorizer: an allow
	 * gives RBAC's reason, a denial keeps the node authorizer's. */
	char rbac[512] = "";
	if (discovery_roles(rbac, sizeof(rbac), u, attrs, path) == ALLOW ||
	    basic_user_role(rbac, sizeof(rbac), u, attrs) == ALLOW ||
	    bootstrap_roles(rbac, sizeof(rbac), u, attrs) == ALLOW) {
		snprintf(reason, rlen, "%s", rbac);
		return 1;
	}
	return 0;
}

int mock_authz_check(nl_status **st, mock_authz_mode mode, const mock_authz_user *u,
                     const mock_req_attrs *attrs, const char *path,
                     mock_node_configmap_fn configmap_of, void *payload)
{
	char reason[1024];
	if (mock_authz_decide(reason, sizeof(reason), mode, u, attrs, path, configmap_of, payload))
		return 0;
	*st = mock_authz_forbidden(u->name, attrs, path, reason);
	return NL_EFORBIDDEN;
}
