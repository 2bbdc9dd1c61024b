/* Typed helpers for v1 ConfigMap over the generic API (api.h). Ownership as
 * in api.h. */
#ifndef NODELET_CONFIGMAP_H
#define NODELET_CONFIGMAP_H

#include <json-c/json.h>

#include "api.h"

/* ns NULL = the client's default namespace. */
int nl_configmap_get(json_object **out, nl_client *c, const char *ns, const char *name,
                     nl_result *res);
int nl_configmap_list(json_object **out, nl_client *c, const char *ns, const nl_list_options *o,
                      nl_result *res);
/* Create / update in metadata.namespace (else the client's default). */
int nl_configmap_create(json_object **out, nl_client *c, json_object *cm, nl_result *res);
int nl_configmap_update(json_object **out, nl_client *c, json_object *cm, nl_result *res);
int nl_configmap_delete(nl_client *c, const char *ns, const char *name, const nl_delete_options *o,
                        nl_result *res);

/* A new ConfigMap {apiVersion, kind, metadata {name, namespace}}. */
int nl_configmap_new(json_object **out, const char *ns, const char *name);
/* data[key] = value (copied); value NULL removes the key. */
int nl_configmap_set(json_object *cm, const char *key, const char *value);
/* data[key], borrowed from cm; NULL when absent. */
const char *nl_configmap_data(json_object *cm, const char *key);

#endif
