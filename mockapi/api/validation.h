/* Field validation with apimachinery's field.Error messages, and their
 * conversion to a 422 Invalid Status.
 *
 * A mock_ferrs collects errors in order; each becomes one details.causes
 * entry {reason, message: ErrorBody(), field}. */
#ifndef MOCK_VALIDATION_H
#define MOCK_VALIDATION_H

#include <json-c/json.h>
#include <nodelet/status.h>
#include <stddef.h>

#include "resources.h"

typedef struct mock_ferr {
	const char *reason; /* NL_CAUSE_* */
	char *field;        /* "spec.leaseDurationSeconds" */
	char *message;      /* ErrorBody(): "Invalid value: -1: must be greater than 0" */
} mock_ferr;

typedef struct mock_ferrs {
	mock_ferr *items;
	size_t n;
	size_t alloc;
} mock_ferrs;

void mock_ferrs_init(mock_ferrs *e);
void mock_ferrs_free(mock_ferrs *e);

/* `Invalid value: <value>: <detail>`; value printed as Go's %v would print
 * it, strings quoted; value NULL prints "null". detail may be NULL. */
void mock_ferr_invalid(mock_ferrs *e, const char *field, json_object *value, const char *detail);
/* Same with a raw, already formatted value text (e.g. "0x0"). */
void mock_ferr_invalid_raw(mock_ferrs *e, const char *field, const char *value_text,
                           const char *detail);
/* `Required value` or `Required value: <detail>`. */
void mock_ferr_required(mock_ferrs *e, const char *field, const char *detail);
/* `Forbidden: <detail>`. */
void mock_ferr_forbidden(mock_ferrs *e, const char *field, const char *detail);
/* `Too long: may not be more than <max> bytes`. */
void mock_ferr_too_long(mock_ferrs *e, const char *field, size_t max);
/* `Unsupported value: "v": supported values: "a", "b"`. */
void mock_ferr_not_supported(mock_ferrs *e, const char *field, json_object *value,
                             const char *const *supported);
/* `Duplicate value: "v"`. */
void mock_ferr_duplicate(mock_ferrs *e, const char *field, json_object *value);

/* The 422 Status for these errors: `<Kind>[.<group>] "<name>" is invalid: ...`
 * with details {name, group, kind, causes}. kind/group given explicitly
 * because the apiserver sometimes reports the resource ("leases") instead of
 * the Kind. Caller frees. */
nl_status *mock_ferrs_to_status(const mock_ferrs *e, const char *kind, const char *group,
                                const char *name);

/* ObjectMeta rules shared by all kinds: name (required unless generateName,
 * DNS-1123 subdomain or, for namespaces, label), namespace required for
 * namespaced kinds and forbidden otherwise, labels/annotations syntax,
 * ownerReferences fields. old != NULL on update: uid/creationTimestamp must
 * not change is enforced by the store, not here. */
void mock_validate_object_meta(mock_ferrs *e, const mock_resource *r, json_object *obj);

/* Everything kube-apiserver checks before storing obj (old NULL on create),
 * in its order: ObjectMeta, then r->validate; for Events the kind's own rules
 * first and the metadata only when those pass, as the generic registry does
 * for kinds that do not validate their ObjectMeta themselves. */
void mock_validate_object(mock_ferrs *e, const mock_resource *r, json_object *obj,
                          json_object *old);
/* The same for a write through endpoint sub ("", "status", "approval"). */
void mock_validate_object_at(mock_ferrs *e, const mock_resource *r, json_object *obj,
                             json_object *old, const char *sub);

/* NULs in strings. A Go string may hold NULs, a C string cannot: where the
 * mock keeps a name as a C string (store keys, URL comparisons, Status
 * texts) a NUL is held as NL_JSON_KEY_NUL (nodelet/json_text.h), as the
 * body parser holds a NUL in a member name; validation reads it back as a
 * NUL, so its messages are upstream's ("a\x00b").
 *
 * mock_meta_mark_nuls: metadata.name, generateName and namespace of obj
 * held that way (values without a NUL are left alone), before anything
 * takes them as C strings: "a\u0000b" then is not the object "a". 0 or
 * NL_ENOMEM. */
int mock_meta_mark_nuls(json_object *obj);

/* Per-kind validators, referenced from the resource table. They leave
 * ObjectMeta to mock_validate_object_meta. */
void mock_validate_namespace(mock_ferrs *e, json_object *obj, json_object *old);
/* What namespaces/status adds: status.phase Active, or Terminating once
 * metadata.deletionTimestamp is set. */
void mock_validate_namespace_status(mock_ferrs *e, json_object *obj);
void mock_validate_node(mock_ferrs *e, json_object *obj, json_object *old);
void mock_validate_configmap(mock_ferrs *e, json_object *obj, json_object *old);
void mock_validate_event(mock_ferrs *e, json_object *obj, json_object *old);
void mock_validate_lease(mock_ferrs *e, json_object *obj, json_object *old);
void mock_validate_pod(mock_ferrs *e, json_object *obj, json_object *old);

#endif
