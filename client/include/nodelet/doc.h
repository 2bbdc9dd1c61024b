/* Loading Kubernetes manifests (YAML or JSON) into json-c.
 *
 * A file or buffer may hold one JSON document, or one or more YAML documents
 * separated by "---". YAML scalars resolve as sigs.k8s.io/yaml does (YAML 1.1
 * core: null/~, true/false (also yes/no/on/off), integers, floats; quoted
 * scalars are strings). Anchors and aliases are expanded. Empty documents are
 * skipped. A document of `kind: List` (or any kind ending in "List" that has
 * `items`) is flattened into its items. */
#ifndef NODELET_DOC_H
#define NODELET_DOC_H

#include <json-c/json.h>
#include <stddef.h>

#include "errors.h"

/* Largest file nl_doc_load_file reads (fixtures, kubeconfigs). */
#define NL_DOC_MAX_FILE (64u * 1024u * 1024u)
/* Deepest nesting of sequences and mappings (alias and merge expansion
 * included) a document may have; deeper is NL_EPARSE. Keeps every recursive
 * walk, json-c's included, far from the stack limit. */
#define NL_DOC_MAX_DEPTH 1000
/* Most YAML nodes one call may produce, counting every alias expansion; more
 * is NL_ETOOBIG ("billion laughs"). go-yaml's own limit on the share of a
 * document that comes from aliases applies too, also as NL_ETOOBIG. */
#define NL_DOC_MAX_NODES 1000000u

/* Parse buf into *out: a new json array of documents (caller frees with
 * json_object_put). NL_EPARSE with "line L, column C: problem" in err when the
 * input is not valid YAML/JSON. On error *out is untouched. `name` labels
 * error messages (a file name or "<input>"). */
int nl_doc_parse(json_object **out, const char *buf, size_t len, const char *name, nl_err *err);
/* Like nl_doc_parse but without List flattening: *out is the one document
 * itself (caller frees). Empty (null) documents are ignored as by
 * nl_doc_parse, so "a: 1\n---\n" is one document; NL_EPARSE if no non-empty
 * document or more than one remains. */
int nl_doc_parse_one(json_object **out, const char *buf, size_t len, const char *name, nl_err *err);
/* Read a whole file (NL_EIO with strerror in err) and nl_doc_parse it. */
int nl_doc_load_file(json_object **out, const char *path, nl_err *err);
/* Read a whole file into a NUL-terminated buffer (caller frees). At most max
 * bytes, else NL_ETOOBIG. */
int nl_file_read(char **out, size_t *len_out, const char *path, size_t max, nl_err *err);

#endif
