/* Typed helpers for v1 Node (cluster-scoped), including the nodes/status
 * subresource, over the generic API (api.h). Ownership as in api.h. */
#ifndef NODELET_NODE_H
#define NODELET_NODE_H

#include <json-c/json.h>
#include <stdint.h>

#include "api.h"

int nl_node_get(json_object **out, nl_client *c, const char *name, nl_result *res);
int nl_node_list(json_object **out, nl_client *c, const nl_list_options *o, nl_result *res);
int nl_node_create(json_object **out, nl_client *c, json_object *node, nl_result *res);
/* PUT the node (the server keeps the stored status). */
int nl_node_update(json_object **out, nl_client *c, json_object *node, nl_result *res);
/* PUT nodes/<name>/status (the server keeps the stored spec). */
int nl_node_update_status(json_object **out, nl_client *c, json_object *node, nl_result *res);
int nl_node_patch(json_object **out, nl_client *c, const char *name, nl_patch_type type,
                  const char *patch, size_t len, nl_result *res);
/* PATCH nodes/<name>/status, as the kubelet reports its status. */
int nl_node_patch_status(json_object **out, nl_client *c, const char *name, nl_patch_type type,
                         const char *patch, size_t len, nl_result *res);
int nl_node_delete(nl_client *c, const char *name, const nl_delete_options *o, nl_result *res);

int nl_node_get_async(nl_call **out, nl_client *c, const char *name, nl_object_cb cb,
                      void *payload);
int nl_node_update_status_async(nl_call **out, nl_client *c, json_object *node, nl_object_cb cb,
                                void *payload);
int nl_node_patch_status_async(nl_call **out, nl_client *c, const char *name, nl_patch_type type,
                               const char *patch, size_t len, nl_object_cb cb, void *payload);

/* A new Node {apiVersion, kind, metadata {name}}. */
int nl_node_new(json_object **out, const char *name);
/* The status.conditions entry of that type (borrowed from node), or NULL. */
json_object *nl_node_condition(json_object *node, const char *type);
/* Set a condition as the kubelet does: lastHeartbeatTime = now,
 * lastTransitionTime = now only when status changes (or the condition is
 * new); reason and message replaced. now_usec is wall time (metav1.Time).
 * NL_ENOMEM / NL_EINVAL. */
int nl_node_set_condition(json_object *node, const char *type, const char *status,
                          const char *reason, const char *message, int64_t now_usec);

#endif
