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

/* Parse buf into *out: a new json array of documents (caller frees with
 * json_object_put). NL_EPARSE with "line L, column C: problem" in err when the
 * input is not valid YAML/JSON. On error *out is untouched. `name` labels
 * error messages (a file name or "<input>"). */
int nl_doc_parse(json_object **out, const char *buf, size_t len, const char *name, nl_err *err);
/* Same as nl_doc_parse but without List flattening and without skipping:
 * exactly one document expected; NL_EPARSE if there are none or several. */
int nl_doc_parse_one(json_object **out, const char *buf, size_t len, const char *name, nl_err *err);
/* Read a whole file (NL_EIO with strerror in err) and nl_doc_parse it. */
int nl_doc_load_file(json_object **out, const char *path, nl_err *err);
/* Read a whole file into a NUL-terminated buffer (caller frees). At most max
 * bytes, else NL_ETOOBIG. */
int nl_file_read(char **out, size_t *len_out, const char *path, size_t max, nl_err *err);

#endif
