/* The PATCH engines: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and
 * Kubernetes strategic merge patch for the kinds nodelet-mockapi serves.
 * Pure functions over json-c trees; the handler decodes and validates the
 * result like any update. */
#ifndef MOCK_PATCH_H
#define MOCK_PATCH_H

#include <json-c/json.h>
#include <nodelet/errors.h>

#include "api/resources.h"

#define MOCK_JSON_PATCH_MAX_OPS 10000
/* kube-apiserver's JSONPatchMaxCopyBytes: what copy operations may add. */
#define MOCK_JSON_PATCH_MAX_COPY_BYTES (3 * 1024 * 1024)

/* Apply an RFC 7386 merge patch to a copy of doc (borrowed) into *out (new
 * reference). A non-object patch replaces the document; a JSON null patch
 * (NULL) yields JSON null (*out = NULL). Only NL_ENOMEM can fail. */
int mock_patch_merge(json_object **out, json_object *doc, json_object *patch, nl_err *err);

/* Apply an RFC 6902 patch (an array of operations: add, remove, replace,
 * move, copy, test) to a copy of doc (borrowed) into *out (new reference).
 * Codes follow kube-apiserver's handling of gopkg.in/evanphx/json-patch.v4,
 * with that library's error text in err (the handler wraps it):
 *   NL_EBADREQUEST  the patch is not an array of objects (400);
 *   NL_ETOOBIG      more than MOCK_JSON_PATCH_MAX_OPS operations (413,
 *                   "The allowed maximum operations in a JSON patch is 10000, got N");
 *   NL_EINVALID     an operation failed: malformed, unknown op, missing
 *                   path, bad index, failed test ("testing value /x failed:
 *                   test failed"), or copies that together add more than
 *                   MOCK_JSON_PATCH_MAX_COPY_BYTES ("Unable to complete the
 *                   copy, the accumulated size increase of copy is N,
 *                   exceeding the limit 3145728"; checked before copying) (422).
 * Pointers and indices follow RFC 6901/6902 strictly (no negative or
 * leading-zero indices; "-" only where a value is added); test compares
 * numbers by value (1 equals 1.0). doc is never changed; a JSON null patch
 * is an empty one. */
int mock_patch_json(json_object **out, json_object *doc, json_object *patch, nl_err *err);

/* Apply a strategic merge patch for resource r to a copy of doc (borrowed,
 * a JSON object) into *out (new reference), as
 * k8s.io/apimachinery/pkg/util/strategicpatch does server-side: maps merge
 * like merge patch (null deletes); lists with a merge key merge by it
 * (metadata.ownerReferences by uid, Node status.conditions and
 * status.addresses and Namespace status.conditions by type); set-like lists
 * (metadata.finalizers, Node spec.podCIDRs) merge as sets; other lists are
 * replaced. Merged lists are ordered as upstream orders them: patch items
 * new to the list go before server-only items unless $setElementOrder says
 * otherwise. Directives: $patch (replace|delete; delete leaves an empty
 * map, as upstream), $setElementOrder/<f>, $retainKeys,
 * $deleteFromPrimitiveList/<f>; none survives into *out. A JSON null patch
 * changes nothing. Codes, as the apiserver maps them:
 *   NL_EBADREQUEST  patch not an object; malformed $retainKeys,
 *                   $deleteFromPrimitiveList or $setElementOrder (400);
 *   NL_EINVALID     lists of lists (422);
 *   NL_ERROR        anything else upstream returns as a plain error, e.g.
 *                   "map: map[name:x] does not contain declared merge key:
 *                   uid" (the apiserver answers 500);
 *   NL_EINVAL       doc is not an object. */
int mock_patch_strategic(json_object **out, const mock_resource *r, json_object *doc,
                         json_object *patch, nl_err *err);

/* Cost accounting, for tests: how many list items the calling thread's
 * strategic merge patches have compared or looked up since the thread
 * started. Merging lists of n items costs O(n log n) of them. */
unsigned long mock_patch_strategic_ops(void);

/* For the handler's 422 texts, worded as upstream's: o as Go's %v prints
 * it (map[k:v] with sorted keys), truncated to fit outlen. (What
 * encoding/json calls o's kind is nl_json_go_kind, nodelet/meta.h.) */
void mock_patch_go_value(char *out, size_t outlen, json_object *o);

#endif
