/* NodeConfigSource values: kubelet's checkpoint.RemoteConfigSource for
 * ConfigMaps (pkg/kubelet/kubeletconfig/checkpoint/download.go) and the
 * SerializedNodeConfigSource kept in the store's meta files. */
#include <nodelet/config_source.h>
#include <nodelet/doc.h>
#include <nodelet/meta.h>
#include <nodelet/names.h>
#include <nodelet/nodelet_config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* upstream's kubelet.config.k8s.io/v1beta1 meta files decode too. */
static const char *const serialized_api_versions[] = {NL_NODELET_CONFIG_API_VERSION,
                                                      "kubelet.config.k8s.io/v1beta1", NULL};

static int str_eq(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

int nl_config_source_new(nl_config_source **out, const char *ns, const char *name, const char *uid,
                         const char *resource_version, const char *kubelet_config_key)
{
	nl_config_source *s = calloc(1, sizeof(*s));
	if (!s)
		return NL_ENOMEM;
	s->namespace_ = strdup(ns ? ns : "");
	s->name = strdup(name ? name : "");
	s->uid = strdup(uid ? uid : "");
	s->resource_version = strdup(resource_version ? resource_version : "");
	s->kubelet_config_key = strdup(kubelet_config_key ? kubelet_config_key : "");
	if (!s->namespace_ || !s->name || !s->uid || !s->resource_version ||
	    !s->kubelet_config_key) {
		nl_config_source_free(s);
		return NL_ENOMEM;
	}
	*out = s;
	return 0;
}

void nl_config_source_free(nl_config_source *s)
{
	if (!s)
		return;
	free(s->namespace_);
	free(s->name);
	free(s->uid);
	free(s->resource_version);
	free(s->kubelet_config_key);
	free(s);
}

int nl_config_source_dup(nl_config_source **out, const nl_config_source *s)
{
	if (!s) {
		*out = NULL;
		return 0;
	}
	return nl_config_source_new(out, s->namespace_, s->name, s->uid, s->resource_version,
	                            s->kubelet_config_key);
}

int nl_config_source_equal(const nl_config_source *a, const nl_config_source *b)
{
	if (!a || !b)
		return a == b;
	return str_eq(a->namespace_, b->namespace_) && str_eq(a->name, b->name) &&
	       str_eq(a->uid, b->uid) && str_eq(a->resource_version, b->resource_version) &&
	       str_eq(a->kubelet_config_key, b->kubelet_config_key);
}

/* A string field of the ConfigMap reference; absent and null read as "". */
static int string_field(const char **out, json_object *cm, const char *key, nl_err *err)
{
	json_object *v = json_object_object_get(cm, key);
	if (!v) {
		*out = "";
		return 0;
	}
	if (!json_object_is_type(v, json_type_string))
		return nl_err_set(err, NL_EPARSE,
		                  "json: cannot unmarshal %s into Go struct field "
		                  "ConfigMapNodeConfigSource.configMap.%s of type string",
		                  json_type_to_name(json_object_get_type(v)), key);
	*out = json_object_get_string(v);
	return 0;
}

int nl_config_source_from_json(nl_config_source **out, json_object *obj, nl_err *err)
{
	static const char *const keys[] = {"namespace", "name", "uid", "resourceVersion",
	                                   "kubeletConfigKey"};
	const char *v[5];
	if (!json_object_is_type(obj, json_type_object))
		return nl_err_set(err, NL_EPARSE, "a NodeConfigSource must be a JSON object");
	json_object *cm = json_object_object_get(obj, "configMap");
	if (!cm || json_object_is_type(cm, json_type_null))
		return nl_err_set(err, NL_EINVAL, "%s",
		                  "invalid NodeConfigSource, exactly one subfield must be "
		                  "non-nil, but all were nil");
	if (!json_object_is_type(cm, json_type_object))
		return nl_err_set(err, NL_EPARSE,
		                  "json: cannot unmarshal %s into Go struct field "
		                  "NodeConfigSource.configMap of type v1.ConfigMapNodeConfigSource",
		                  json_type_to_name(json_object_get_type(cm)));
	for (size_t i = 0; i < 5; i++) {
		int rc = string_field(&v[i], cm, keys[i], err);
		if (rc != 0)
			return rc;
	}
	return nl_config_source_new(out, v[0], v[1], v[2], v[3], v[4]);
}

static int add_nonempty(json_object *o, const char *key, const char *v)
{
	if (!v || !*v)
		return 0;
	json_object *s = json_object_new_string(v);
	if (!s || json_object_object_add(o, key, s) != 0) {
		json_object_put(s);
		return NL_ENOMEM;
	}
	return 0;
}

json_object *nl_config_source_to_json(const nl_config_source *s)
{
	json_object *obj = json_object_new_object(), *cm = json_object_new_object();
	if (!obj || !cm || json_object_object_add(obj, "configMap", cm) != 0) {
		json_object_put(obj);
		json_object_put(cm);
		return NULL;
	}
	/* Alphabetical, as upstream's encoder writes the meta files. */
	if (add_nonempty(cm, "kubeletConfigKey", s->kubelet_config_key) != 0 ||
	    add_nonempty(cm, "name", s->name) != 0 ||
	    add_nonempty(cm, "namespace", s->namespace_) != 0 ||
	    add_nonempty(cm, "resourceVersion", s->resource_version) != 0 ||
	    add_nonempty(cm, "uid", s->uid) != 0) {
		json_object_put(obj);
		return NULL;
	}
	return obj;
}

int nl_config_source_check_reference(const nl_config_source *s, nl_err *err)
{
	if (!*s->namespace_)
		return nl_err_set(err, NL_EINVAL,
		                  "configMap.namespace: Required value: "
		                  "namespace must be set");
	if (!*s->name)
		return nl_err_set(err, NL_EINVAL,
		                  "configMap.name: Required value: name must be set");
	if (!*s->kubelet_config_key)
		return nl_err_set(err, NL_EINVAL,
		                  "configMap.kubeletConfigKey: Required value: "
		                  "kubeletConfigKey must be set");
	/* The API server validates spec.configSource, but nobody validated the
	 * annotation: a name such as ".." would change the URL it is fetched
	 * from, and the key names a file in the checkpoint. Same rules as the
	 * apiserver's for both. */
	char why[512];
	if (nl_name_is_dns1123_label(s->namespace_, why, sizeof(why)) != 0)
		return nl_err_set(err, NL_EINVAL, "configMap.namespace: Invalid value: \"%s\": %s",
		                  s->namespace_, why);
	if (nl_name_is_dns1123_subdomain(s->name, why, sizeof(why)) != 0)
		return nl_err_set(err, NL_EINVAL, "configMap.name: Invalid value: \"%s\": %s",
		                  s->name, why);
	if (nl_name_is_config_key(s->kubelet_config_key, why, sizeof(why)) != 0)
		return nl_err_set(err, NL_EINVAL,
		                  "configMap.kubeletConfigKey: Invalid value: \"%s\": %s",
		                  s->kubelet_config_key, why);
	return 0;
}

void nl_config_source_api_path(char *out, size_t outlen, const nl_config_source *s)
{
	snprintf(out, outlen, "/api/v1/namespaces/%s/configmaps/%s", s->namespace_, s->name);
}

int nl_config_source_encode(char **out, size_t *len_out, const nl_config_source *s)
{
	json_object *doc = json_object_new_object(), *src = nl_config_source_to_json(s);
	int rc = NL_ENOMEM;
	if (!doc || !src)
		goto cleanup;
	if (json_object_object_add(doc, "apiVersion",
	                           json_object_new_string(NL_NODELET_CONFIG_API_VERSION)) != 0 ||
	    json_object_object_add(doc, "kind",
	                           json_object_new_string(NL_CONFIG_SOURCE_SERIALIZED_KIND)) != 0 ||
	    json_object_object_add(doc, "source", src) != 0)
		goto cleanup;
	src = NULL;
	size_t len;
	const char *text = nl_json_compact(doc, &len);
	char *buf = text ? malloc(len + 2) : NULL;
	if (!buf)
		goto cleanup;
	memcpy(buf, text, len);
	buf[len] = '\n';
	buf[len + 1] = '\0';
	*out = buf;
	if (len_out)
		*len_out = len + 1;
	rc = 0;
cleanup:
	json_object_put(src);
	json_object_put(doc);
	return rc;
}

static int known_api_version(const char *v)
{
	for (size_t i = 0; serialized_api_versions[i]; i++)
		if (v && strcmp(v, serialized_api_versions[i]) == 0)
			return 1;
	return 0;
}

int nl_config_source_decode(nl_config_source **out, const char *buf, size_t len, nl_err *err)
{
	json_object *doc = NULL;
	if (len == 0) {
		*out = NULL;
		return 0;
	}
	int rc = nl_doc_parse_one(&doc, buf, len, "<config source>", err);
	if (rc != 0)
		return rc == NL_ENOMEM ? rc : NL_EPARSE;
	const char *kind = nl_json_get_string(doc, "kind");
	const char *api_version = nl_json_get_string(doc, "apiVersion");
	if (!kind || strcmp(kind, NL_CONFIG_SOURCE_SERIALIZED_KIND) != 0 ||
	    !known_api_version(api_version)) {
		rc = nl_err_set(err, NL_EPARSE,
		                "failed to decode, error: expected kind %s in %s, got kind \"%s\" "
		                "in \"%s\"",
		                NL_CONFIG_SOURCE_SERIALIZED_KIND, NL_NODELET_CONFIG_API_VERSION,
		                kind ? kind : "", api_version ? api_version : "");
		goto cleanup;
	}
	rc = nl_config_source_from_json(out, json_object_object_get(doc, "source"), err);
	if (rc == NL_EINVAL)
		rc = NL_EPARSE;
cleanup:
	json_object_put(doc);
	return rc;
}
