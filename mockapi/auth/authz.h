/* Authorization: --authorization-mode AlwaysAllow or Node.
 *
 * Node mode is what a kubelet meets on a real cluster, reduced to the
 * resources the mock serves: the privileged-group authorizer
 * (system:masters may do anything), kube-apiserver's Node authorizer with
 * the system:node role's static rules, and (node_restriction.h) the
 * NodeRestriction admission plugin. Non-resource URLs follow the bootstrap
 * roles every cluster binds to system:authenticated (system:discovery,
 * system:public-info-viewer). Denials are 403 Forbidden with
 * kube-apiserver's texts. See docs/mockapi.md "Authorization" and
 * docs/decisions/0015-mockapi-auth.md. */
#ifndef MOCK_AUTHZ_H
#define MOCK_AUTHZ_H

#include <nodelet/errors.h>
#include <nodelet/status.h>
#include <stddef.h>

#include "api/route.h"

#define MOCK_NODE_USER_PREFIX "system:node:"
#define MOCK_GROUP_NODES "system:nodes"
#define MOCK_NODE_LEASE_NAMESPACE "kube-node-lease"

typedef enum {
	MOCK_AUTHZ_ALWAYS_ALLOW,
	MOCK_AUTHZ_NODE,
} mock_authz_mode;

/* "AlwaysAllow" or "Node" (kube-apiserver's spelling). NL_EINVAL with the
 * message in err otherwise. */
int mock_authz_mode_parse(mock_authz_mode *out, const char *s, nl_err *err);

/* The user behind a request. */
typedef struct {
	const char *name;
	const char *const *groups;
	size_t ngroups;
} mock_authz_user;

/* The Node authorizer's graph, reduced to the one edge the mock has: the
 * ConfigMap a Node's spec.configSource.configMap references. Copy its
 * namespace and name (each buffer 254 bytes) and return 1, or return 0
 * when the node does not exist or references none. */
typedef int (*mock_node_configmap_fn)(char ns[254], char name[254], const char *node,
                                      void *payload);

/* Decide one request. attrs is the request as the audit log sees it
 * (router.h: res NULL for a non-resource request, whose path is path).
 * Returns 0 when allowed, else NL_EFORBIDDEN with the 403 Status in *st
 * (caller frees; NULL when out of memory). */
int mock_authz_check(nl_status **st, mock_authz_mode mode, const mock_authz_user *u,
                     const mock_req_attrs *attrs, const char *path,
                     mock_node_configmap_fn configmap_of, void *payload);

/* The decision itself, for the access reviews: 1 allowed, 0 not, with
 * the union authorizer's reason in reason (rlen bytes): "" for
 * AlwaysAllow, system:masters and the Node authorizer's allows; RBAC's
 * `RBAC: allowed by ClusterRoleBinding "system:basic-user" of ...` for
 * the bootstrap roles; on a denial the Node authorizer's reason or "". */
int mock_authz_decide(char *reason, size_t rlen, mock_authz_mode mode, const mock_authz_user *u,
                      const mock_req_attrs *attrs, const char *path,
                      mock_node_configmap_fn configmap_of, void *payload);

/* The node name of a node identity (user "system:node:<name>" in group
 * system:nodes), as the Node authorizer's NodeIdentity: 1 and *node set
 * (borrowed from u->name, "" for an unidentifiable node) or 0. */
int mock_authz_node_identity(const char **node, const mock_authz_user *u);

/* responsewriters.Forbidden: the 403 for user on attrs/path, with the
 * authorizer's reason appended after ": " when non-empty. Caller frees. */
nl_status *mock_authz_forbidden(const char *user, const mock_req_attrs *attrs, const char *path,
                                const char *reason);

#endif
