/* Generic object operations on any resource path, blocking or on the loop.
 *
 * Paths are absolute API paths: a collection
 * ("/api/v1/namespaces/default/configmaps") for list, create and watch, an
 * object ("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1")
 * for get, update, patch and delete, a subresource ("/api/v1/nodes/n1/status")
 * where the server has one. nl_api_path builds them.
 *
 * Ownership: objects passed in are borrowed (serialized, never modified). A
 * blocking call's *out is a new json-c reference the caller releases with
 * json_object_put; on failure *out is untouched and res (may be NULL) holds
 * the Status. An async callback's object is borrowed for the callback's
 * duration (json_object_get it to keep it) and NULL on failure. */
#ifndef NODELET_API_H
#define NODELET_API_H

#include <json-c/json.h>
#include <stddef.h>

#include "client.h"
#include "result.h"

/* What a resource is, to build its paths. */
typedef struct {
	const char *group; /* "" for the core API */
	const char *version;
	const char *resource; /* plural, lower case: "leases" */
	const char *kind;     /* "Lease" */
	int namespaced;
} nl_resource;

extern const nl_resource nl_resource_leases;     /* coordination.k8s.io/v1 leases */
extern const nl_resource nl_resource_nodes;      /* v1 nodes (cluster-scoped) */
extern const nl_resource nl_resource_configmaps; /* v1 configmaps */
extern const nl_resource nl_resource_events;     /* v1 events */
extern const nl_resource nl_resource_namespaces; /* v1 namespaces (cluster-scoped) */

/* "/api/v1[/namespaces/<ns>]/<resource>[/<name>[/<subresource>]]" (or
 * "/apis/<group>/<version>/...") into out. ns NULL or "" = all namespaces
 * (for a namespaced resource) or none; name and subresource may be NULL.
 * Name and namespace are percent-encoded when they need it. NL_ETOOBIG when
 * out is too small, NL_EINVAL for a subresource without a name. */
int nl_api_path(char *out, size_t outlen, const nl_resource *r, const char *ns, const char *name,
                const char *subresource);

/* --- options ------------------------------------------------------------------ */

typedef struct {
	const char *label_selector; /* NULL = everything */
	const char *field_selector;
	const char *resource_version;       /* NULL = most recent; "0" = any */
	const char *resource_version_match; /* "NotOlderThan", "Exact" or NULL */
	long limit;                         /* page size; 0 = no paging */
	const char *continue_token;         /* from a previous page */
	long timeout_seconds;               /* 0 = server default */
} nl_list_options;

typedef enum {
	NL_PATCH_JSON = 1,  /* application/json-patch+json (RFC 6902) */
	NL_PATCH_MERGE,     /* application/merge-patch+json (RFC 7386) */
	NL_PATCH_STRATEGIC, /* application/strategic-merge-patch+json */
	NL_PATCH_APPLY,     /* application/apply-patch+yaml (server-side apply) */
} nl_patch_type;

/* The Content-Type of a patch type ("" for an unknown one). */
const char *nl_patch_content_type(nl_patch_type t);

typedef struct {
	const char *field_manager;    /* required by NL_PATCH_APPLY */
	const char *field_validation; /* "Strict", "Warn", "Ignore" or NULL */
	int force;                    /* apply only: take over conflicting fields */
	int dry_run;                  /* dryRun=All */
} nl_write_options;

typedef struct {
	const char *precondition_uid; /* 409 when the object's uid differs */
	const char *precondition_resource_version;
	const char *propagation_policy; /* "Orphan", "Background", "Foreground" or NULL */
	long grace_period_seconds;      /* < 0 = server default */
	int dry_run;
} nl_delete_options;

void nl_delete_options_init(nl_delete_options *o);

/* --- blocking ------------------------------------------------------------------ */

int nl_api_get(json_object **out, nl_client *c, const char *path, nl_result *res);
/* One page (o->limit) or the whole list. *out is the List as the server
 * sent it: items lack kind/apiVersion; metadata.continue is set when more
 * pages remain. o may be NULL. */
int nl_api_list(json_object **out, nl_client *c, const char *path, const nl_list_options *o,
                nl_result *res);
/* Every page (limit per page, default 500) merged into one List whose
 * metadata.resourceVersion is the first page's (the list's snapshot). */
int nl_api_list_all(json_object **out, nl_client *c, const char *path, const nl_list_options *o,
                    nl_result *res);
/* POST obj to the collection path; *out is the created object (out may be
 * NULL). */
int nl_api_create(json_object **out, nl_client *c, const char *path, json_object *obj,
                  const nl_write_options *o, nl_result *res);
/* PUT obj to the object path (metadata.resourceVersion is the optimistic
 * lock: NL_ECONFLICT when stale). */
int nl_api_update(json_object **out, nl_client *c, const char *path, json_object *obj,
                  const nl_write_options *o, nl_result *res);
/* PATCH with patch text (len bytes) of the given type. */
int nl_api_patch(json_object **out, nl_client *c, const char *path, nl_patch_type type,
                 const char *patch, size_t len, const nl_write_options *o, nl_result *res);
/* DELETE, with DeleteOptions when o sets anything; *out (may be NULL) is the
 * answer: a Status "Success" or the object. */
int nl_api_delete(json_object **out, nl_client *c, const char *path, const nl_delete_options *o,
                  nl_result *res);

/* --- on the loop ---------------------------------------------------------------- */

/* Completion of an async operation: obj is the answer (borrowed), NULL when
 * res->code != 0. */
typedef void (*nl_object_cb)(json_object *obj, const nl_result *res, void *payload);

/* Each queues the request on the client's loop (nl_client_send rules:
 * loop thread only; *out may be NULL and stays valid until cb starts). */
int nl_api_get_async(nl_call **out, nl_client *c, const char *path, nl_object_cb cb, void *payload);
int nl_api_list_async(nl_call **out, nl_client *c, const char *path, const nl_list_options *o,
                      nl_object_cb cb, void *payload);
int nl_api_create_async(nl_call **out, nl_client *c, const char *path, json_object *obj,
                        const nl_write_options *o, nl_object_cb cb, void *payload);
int nl_api_update_async(nl_call **out, nl_client *c, const char *path, json_object *obj,
                        const nl_write_options *o, nl_object_cb cb, void *payload);
int nl_api_patch_async(nl_call **out, nl_client *c, const char *path, nl_patch_type type,
                       const char *patch, size_t len, const nl_write_options *o, nl_object_cb cb,
                       void *payload);
int nl_api_delete_async(nl_call **out, nl_client *c, const char *path, const nl_delete_options *o,
                        nl_object_cb cb, void *payload);

#endif
