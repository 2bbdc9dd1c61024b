/* The NodeRestriction admission plugin for the kinds the mock serves
 * (plugin/pkg/admission/noderestriction): a node may create and modify
 * only its own Node object — without setting or changing
 * spec.configSource, without touching its taints, and without setting
 * kubernetes.io / k8s.io labels outside the kubelet's set — and only its
 * own Lease in kube-node-lease. It runs in Node authorization mode, in the
 * write path after the authorizer (which cannot see a created object's
 * name), before validation. */
#ifndef MOCK_NODE_RESTRICTION_H
#define MOCK_NODE_RESTRICTION_H

#include <json-c/json.h>
#include <nodelet/status.h>

#include "api/resources.h"
#include "authz.h"

/* Admit a write of obj (old: the stored object, NULL on create) to r's
 * object name by u. NULL admits (also every writer that is not a node);
 * otherwise the 403 (`nodes "b" is forbidden: node "a" is not allowed to
 * modify node "b"`), caller frees. */
nl_status *mock_node_restriction(const mock_authz_user *u, const mock_resource *r, const char *name,
                                 json_object *obj, json_object *old);

#endif
