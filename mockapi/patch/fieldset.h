/* Field sets: which fields of an object a manager owns, as
 * sigs.k8s.io/structured-merge-diff's fieldpath.Set, computed over the
 * served kinds' schemas (schema.h) for server-side apply and managedFields.
 *
 * A set is a json-c object tree keyed by serialized path elements, the
 * FieldsV1 keys: "f:<field or map key>", "k:{\"type\":\"Ready\"}" (an item
 * of a list keyed by a merge key), "v:\"x\"" (an item of a set-like list),
 * "i:<n>" (read from FieldsV1 only; nothing here produces it). A node that
 * is itself a member holds the key "." (also when it has no children); a
 * node with neither "." nor children never remains. The root is never a
 * member. Sets are plain json-c objects: release with json_object_put.
 *
 * How lists are treated follows the kinds' x-kubernetes-list-type:
 * metadata.ownerReferences (keyed by uid), Node status.conditions and
 * status.addresses and Namespace status.conditions (keyed by type) are maps;
 * metadata.finalizers and Node spec.podCIDRs are sets; every other list is
 * atomic (owned as a whole), as upstream's default is. Maps of strings
 * (labels, data) own each key; structs own their leaf fields. */
#ifndef MOCK_FIELDSET_H
#define MOCK_FIELDSET_H

#include <json-c/json.h>
#include <nodelet/buf.h>
#include <nodelet/errors.h>

#include "api/resources.h"

/* A new empty set, or NULL when out of memory. */
json_object *mock_fset_new(void);
/* Whether s has no member. */
int mock_fset_empty(json_object *s);

/* dst ∪= src. 0 or NL_ENOMEM (dst then holds part of src). */
int mock_fset_union(json_object *dst, json_object *src);
/* dst −= src (members only: a member's own children stay unless listed). */
void mock_fset_subtract(json_object *dst, json_object *src);
/* *out = a ∩ b (new set). 0 or NL_ENOMEM. */
int mock_fset_intersect(json_object **out, json_object *a, json_object *b);

/* Drop the members nobody may own, as kube-apiserver's field manager
 * strips them: apiVersion, kind, metadata itself and metadata.name,
 * namespace, creationTimestamp, selfLink, uid, clusterName, generation,
 * managedFields and resourceVersion. */
void mock_fset_strip(json_object *s);

/* TypedValue.ToFieldSet: the fields obj (an apply configuration of kind r,
 * borrowed) sets: leaves, map keys, list items. Unknown fields are an error:
 * NL_EBADREQUEST with "<path>: field not declared in schema" in err (path
 * as fieldpath.Path prints it, ".spec.foo"). Not stripped; *out new. */
int mock_fset_from_object(json_object **out, const mock_resource *r, json_object *obj, nl_err *err);

/* TypedValue.Compare of two decoded objects of kind r (borrowed; they hold
 * no JSON null): *changed gets the paths added or modified from lhs to rhs,
 * *removed the paths only lhs has; a container present on one side only is
 * itself a member, as are all paths inside it. Not stripped. 0 or
 * NL_ENOMEM. */
int mock_fset_compare(json_object **changed, json_object **removed, const mock_resource *r,
                      json_object *lhs, json_object *rhs);

/* TypedValue.Merge for server-side apply: config (borrowed) over a copy of
 * live (borrowed), both of kind r: config's values win, maps and structs
 * merge member by member, keyed lists and sets merge item by item (in
 * upstream's order: config's order for shared items, live-only items kept
 * in place), atomic lists are replaced. A JSON null in config stays null
 * (the decoder then drops the field). *out new. 0 or NL_ENOMEM. */
int mock_fset_merge(json_object **out, const mock_resource *r, json_object *live,
                    json_object *config);

/* Set.EnsureNamedFieldsAreMembers: every struct field (not map key) on the
 * way to a member becomes a member too. 0 or NL_ENOMEM. */
int mock_fset_ensure_named(json_object *s, const mock_resource *r);

/* TypedValue.RemoveItems: delete from obj (kind r, modified in place) every
 * field, map key and list item that is a member of s, with what is below
 * it. Paths obj does not have are ignored. 0 or NL_ENOMEM. */
int mock_fset_remove_from(json_object *obj, json_object *s, const mock_resource *r);

/* Parse FieldsV1 (borrowed) into *out. Keys that are no path element are
 * dropped, as upstream drops element types it does not know. NL_EPARSE when
 * fv1 is not an object of objects. */
int mock_fset_from_fields_v1(json_object **out, json_object *fv1);
/* FieldsV1 of s (new reference): keys in upstream's order (fields, then
 * keyed items, set values, indices), "." first in a node that is a member
 * and has children. NULL when out of memory. */
json_object *mock_fset_to_fields_v1(json_object *s);

/* Whether fv1 (borrowed) is FieldsV1 exactly as mock_fset_to_fields_v1
 * writes a non-empty set: then reading it (mock_fset_from_fields_v1) and
 * writing it back gives the same JSON, and the two functions below answer
 * set questions about it without building the set. */
int mock_fset_fields_v1_canonical(json_object *fv1);
/* For fv1 canonical: whether it has a member of set s / every member of s. */
int mock_fset_fields_v1_overlaps(json_object *fv1, json_object *s);
int mock_fset_fields_v1_covers(json_object *fv1, json_object *s);

/* Call fn for each member of s in upstream's order, with its path as
 * fieldpath.Path.String() prints it (".data.key",
 * ".status.conditions[type=\"Ready\"].status", ".metadata.finalizers[=\"x\"]").
 * Stops at fn's first non-zero result and returns it. */
int mock_fset_each(json_object *s, int (*fn)(const char *path, void *payload), void *payload);

/* Cost accounting, for tests: how many list items the calling thread's
 * typed walks above have named ("k:{...}", "v:...") or compared by name
 * since the thread started. Comparing, merging or removing from keyed lists
 * of n items costs O(n log n) of them. */
unsigned long mock_fset_ops(void);

#endif
