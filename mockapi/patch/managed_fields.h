/* metadata.managedFields: which field manager owns which fields, kept as
 * kube-apiserver's field manager keeps it (k8s.io/apimachinery
 * pkg/util/managedfields). Every write records its manager: POST, PUT and
 * non-apply PATCH as an "Update" entry (mock_managed_update), server-side
 * apply as an "Apply" entry (apply.h). Field sets are fieldset.h trees. */
#ifndef MOCK_MANAGED_FIELDS_H
#define MOCK_MANAGED_FIELDS_H

#include <json-c/json.h>

#include "api/resources.h"

#define MOCK_MF_APPLY "Apply"
#define MOCK_MF_UPDATE "Update"

/* One metav1.ManagedFieldsEntry. */
typedef struct {
	char *manager;
	char *operation; /* MOCK_MF_APPLY or MOCK_MF_UPDATE */
	char *api_version;
	char *time;        /* metav1.Time text, NULL when unset */
	char *subresource; /* "" for the main resource */
	json_object *set;  /* owned field set */
} mock_mf_entry;

typedef struct {
	mock_mf_entry *v;
	size_t n, cap;
} mock_managed;

void mock_managed_init(mock_managed *m);
void mock_managed_free(mock_managed *m);

/* Read obj's metadata.managedFields (borrowed) into m (initialized, empty).
 * Entries that are not FieldsV1 or do not parse are left out: the
 * apiserver, too, resets managedFields it cannot read rather than fail the
 * write. 0 or NL_ENOMEM. */
int mock_managed_decode(mock_managed *m, json_object *obj);

/* Whether obj's metadata.managedFields is `[{}]`, the request to reset
 * ownership. */
int mock_managed_is_reset(json_object *obj);

/* The entry a manager writes to, as BuildManagerIdentifier tells managers
 * apart: by name, operation and subresource, and for Update entries also by
 * apiVersion. NULL when absent. */
mock_mf_entry *mock_managed_find(mock_managed *m, const char *manager, const char *operation,
                                 const char *api_version, const char *subresource);
/* Find that entry or append it with an empty set. 0 or NL_ENOMEM. */
int mock_managed_get(mock_mf_entry **out, mock_managed *m, const char *manager,
                     const char *operation, const char *api_version, const char *subresource);
/* Set an entry's time (copied; NULL clears). 0 or NL_ENOMEM. */
int mock_mf_entry_set_time(mock_mf_entry *e, const char *time);
/* Drop entries whose set is empty. */
void mock_managed_prune(mock_managed *m);

/* Write m into obj's metadata.managedFields (replacing it) in upstream's
 * order: operation, time, manager, apiVersion, subresource; remove the field
 * when m is empty. 0 or NL_ENOMEM. */
int mock_managed_encode(json_object *obj, const mock_managed *m);

/* The zero object of kind r, as the Go type decodes from `{}`: what a
 * create is compared against. *out new. 0 or NL_ENOMEM. */
int mock_managed_empty_object(json_object **out, const mock_resource *r);

/* Record an Update by manager on obj (the object about to be stored, kind
 * r, modified in place) over old (the stored object, NULL on create):
 * ownership starts from obj's own managedFields when it carries any (`[{}]`
 * resets it), else from old's; the fields this write added or changed
 * become the manager's (taken from whoever held them) and removed fields
 * leave every manager. The manager's entry gets time now when it gained
 * fields. A NULL or empty manager records nothing. 0 or NL_ENOMEM. */
int mock_managed_update(json_object *obj, json_object *old, const mock_resource *r,
                        const char *manager, const char *subresource, const char *now);

#endif
