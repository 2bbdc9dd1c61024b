/* The Kubernetes side of scenario steps: writes "as another writer would"
 * (apply, create, update, patch, delete), reads for expectations (get,
 * list) and raw watches, through the client library, so the embedded
 * server, a running nodelet-mockapi and a real cluster are all reached the
 * same way. Objects are identified by kind, namespace and name. */
#ifndef NL_SCENARIO_OBJECTS_H
#define NL_SCENARIO_OBJECTS_H

#include <json-c/json.h>
#include <nodelet/api.h>
#include <nodelet/client.h>

/* An object's identity: from an object (kind, apiVersion, metadata.name,
 * metadata.namespace) or from a reference (kind, apiVersion, name,
 * namespace). A namespaced kind without namespace is in "default". */
typedef struct {
	const nl_resource *r;
	char ns[254];
	char name[254];
} nl_scn_objref;

int nl_scn_objref_from_ref(nl_scn_objref *out, json_object *ref);
/* "Lease kube-node-lease/edge-1" for messages. */
void nl_scn_objref_describe(char *out, size_t outlen, const nl_scn_objref *r);

/* Create, or replace what exists. The body's metadata.resourceVersion, when
 * set, makes the replace conditional (409 when stale); otherwise the current
 * one is used, as another writer that just read the object would. *out (may
 * be NULL) is the stored object; *created (may be NULL) whether it was new. */
int nl_scn_obj_apply(json_object **out, int *created, nl_client *c, json_object *obj,
                     nl_result *res);
/* POST, and PUT exactly as given (no resourceVersion added). */
int nl_scn_obj_create(json_object **out, nl_client *c, json_object *obj, nl_result *res);
int nl_scn_obj_update(json_object **out, nl_client *c, json_object *obj, nl_result *res);
/* A patch step: {kind, name, namespace, type, patch, subresource,
 * fieldManager, force}. */
int nl_scn_obj_patch(json_object **out, nl_client *c, json_object *spec, nl_result *res);
/* A delete step: {kind, name, namespace, preconditions, propagationPolicy}. */
int nl_scn_obj_delete(nl_client *c, json_object *spec, nl_result *res);
int nl_scn_obj_get(json_object **out, nl_client *c, const nl_scn_objref *r, nl_result *res);
/* Every object of a kind (ns "" = all namespaces), with selectors (may be
 * NULL); items carry no kind. */
int nl_scn_obj_list(json_object **out, nl_client *c, const nl_resource *r, const char *ns,
                    const char *label_selector, const char *field_selector, nl_result *res);
/* A watch step: {kind, namespace, resourceVersion, labelSelector,
 * fieldSelector, events, timeoutSeconds}. Reads until `events` events (or
 * the end of the stream, which the server ends after timeoutSeconds: 2 by
 * default). *out: a new array of {type, object}. */
int nl_scn_obj_watch(json_object **out, nl_client *c, json_object *spec, nl_result *res);

/* A step's failure as JSON, what `expect: error` is matched against:
 * {"code": "ECONFLICT", "status": 409, "reason": "Conflict",
 * "message": "..."} (status, reason and message when the server answered).
 * New reference. */
json_object *nl_scn_obj_error(int rc, const nl_result *res);

#endif
