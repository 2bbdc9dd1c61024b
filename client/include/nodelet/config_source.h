/* A dynamic config source: v1 NodeConfigSource
 * `{configMap: {namespace, name, uid, resourceVersion, kubeletConfigKey}}`,
 * as kubelet's checkpoint.RemoteConfigSource. A NULL nl_config_source means
 * "no source": the agent's local configuration.
 *
 * uid and resourceVersion are empty in a Node's spec and filled in by the
 * download; they name the checkpoint directory, so the store refuses a
 * source without them. */
#ifndef NODELET_CONFIG_SOURCE_H
#define NODELET_CONFIG_SOURCE_H

#include <json-c/json.h>
#include <stddef.h>

#include "errors.h"

/* The Node annotation that carries the source on clusters whose API server
 * drops spec.configSource (1.24 and later); same JSON as spec.configSource. */
#define NL_CONFIG_SOURCE_ANNOTATION "nodelet.io/config-source"
/* kind of the serialized form kept in the checkpoint store's meta files. */
#define NL_CONFIG_SOURCE_SERIALIZED_KIND "SerializedNodeConfigSource"

typedef struct {
	char *namespace_;
	char *name;
	char *uid;              /* "" until downloaded */
	char *resource_version; /* "" until downloaded */
	char *kubelet_config_key;
} nl_config_source;

/* A source with copies of the strings (NULL counts as ""). Caller frees with
 * nl_config_source_free (accepts NULL). NL_ENOMEM. */
int nl_config_source_new(nl_config_source **out, const char *ns, const char *name, const char *uid,
                         const char *resource_version, const char *kubelet_config_key);
void nl_config_source_free(nl_config_source *s);
/* A deep copy; NULL copies as NULL (returns 0). NL_ENOMEM. */
int nl_config_source_dup(nl_config_source **out, const nl_config_source *s);
/* Semantic equality of all five fields; two NULLs are equal. */
int nl_config_source_equal(const nl_config_source *a, const nl_config_source *b);

/* Decode a NodeConfigSource object (borrowed). NL_EINVAL with upstream's
 * "invalid NodeConfigSource, exactly one subfield must be non-nil, but all
 * were nil" when configMap is missing; NL_EPARSE when a field has the wrong
 * type. Required fields are not checked here (see _check_reference). */
int nl_config_source_from_json(nl_config_source **out, json_object *obj, nl_err *err);
/* `{"configMap":{...}}` with the fields in alphabetical order; empty uid and
 * resourceVersion omitted. New reference, caller frees; NULL on ENOMEM. */
json_object *nl_config_source_to_json(const nl_config_source *s);
/* namespace, name and kubeletConfigKey must be set, as the API server's
 * validation requires for spec.configSource. NL_EINVAL with a message. */
int nl_config_source_check_reference(const nl_config_source *s, nl_err *err);

/* "/api/v1/namespaces/<ns>/configmaps/<name>" (upstream's APIPath). */
void nl_config_source_api_path(char *out, size_t outlen, const nl_config_source *s);

/* The serialized form of the store's meta files:
 * {"apiVersion":"nodelet.io/v1alpha1","kind":"SerializedNodeConfigSource",
 *  "source":{...}} and a newline. Caller frees. NL_ENOMEM. */
int nl_config_source_encode(char **out, size_t *len_out, const nl_config_source *s);
/* Decode it (YAML or JSON; unknown fields ignored as upstream's non-strict
 * decoder does; kubelet's kubelet.config.k8s.io/v1beta1 files accepted).
 * An empty buffer decodes to NULL (local config). NL_EPARSE otherwise. */
int nl_config_source_decode(nl_config_source **out, const char *buf, size_t len, nl_err *err);

#endif
