/* Server-side apply (PATCH with application/apply-patch+yaml): merge a
 * manager's apply configuration into the live object, remove what the
 * manager applied before and no longer applies (unless someone else owns
 * it), refuse to change fields other managers own (409 FieldManagerConflict)
 * unless forced, and record the manager's "Apply" entry in managedFields.
 * After sigs.k8s.io/structured-merge-diff's Updater.Apply as kube-apiserver
 * runs it; docs/mockapi.md says what differs. */
#ifndef MOCK_APPLY_H
#define MOCK_APPLY_H

#include <json-c/json.h>
#include <nodelet/status.h>

#include "api/resources.h"

typedef struct {
	const mock_resource *r;
	json_object *live;       /* the stored object (borrowed), NULL when there is none */
	json_object *config;     /* the apply configuration as parsed (borrowed) */
	const char *manager;     /* fieldManager, non-empty */
	const char *subresource; /* "" or "status" */
	int force;               /* force=true: take conflicting fields over */
	const char *now;         /* metav1.Time text for the manager's entry */
} mock_apply_req;

/* Apply req->config. On success *out is the object to store (new reference):
 * decoded as r's Go type, with metadata.managedFields updated; fields the
 * endpoint resets (status on the main resource of a kind with a status
 * subresource, spec on /status) are left out of the configuration first.
 * Errors, with the Status the apiserver answers in *st (caller frees):
 *   NL_EBADREQUEST  400: config is not an object, names another apiVersion
 *                   or kind, sets metadata.managedFields, has fields the
 *                   schema does not declare or values of the wrong type;
 *   NL_ECONFLICT    409 reason Conflict, details.causes[] of reason
 *                   FieldManagerConflict, one per field another manager
 *                   owns and this apply changes;
 *   NL_ENOMEM       *st NULL. */
int mock_apply(json_object **out, nl_status **st, const mock_apply_req *req);

#endif
