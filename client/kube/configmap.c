/* v1 ConfigMap. */
#include <nodelet/configmap.h>
#include <nodelet/meta.h>

#include "kube.h"

static const char *ns_or_default(const char *ns, nl_client *c)
{
	return ns ? ns : nl_client_namespace(c);
}

int nl_configmap_get(json_object **out, nl_client *c, const char *ns, const char *name,
                     nl_result *res)
{
	char path[NL__PATH_MAX];
	int rc = nl__path(path, &nl_resource_configmaps, ns_or_default(ns, c), name, NULL, res);
	return rc ? rc : nl_api_get(out, c, path, res);
}

int nl_configmap_list(json_object **out, nl_client *c, const char *ns, const nl_list_options *o,
                      nl_result *res)
{
	char path[NL__PATH_MAX];
	int rc = nl__path(path, &nl_resource_configmaps, ns_or_default(ns, c), NULL, NULL, res);
	return rc ? rc : nl_api_list(out, c, path, o, res);
}

int nl_configmap_create(json_object **out, nl_client *c, json_object *cm, nl_result *res)
{
	char path[NL__PATH_MAX];
	int rc = nl__path(path, &nl_resource_configmaps, nl__obj_namespace(cm, c), NULL, NULL, res);
	return rc ? rc : nl_api_create(out, c, path, cm, NULL, res);
}

int nl_configmap_update(json_object **out, nl_client *c, json_object *cm, nl_result *res)
{
	char path[NL__PATH_MAX];
	const char *name = nl__obj_name(cm, res);
	if (!name)
		return NL_EINVAL;
	int rc = nl__path(path, &nl_resource_configmaps, nl__obj_namespace(cm, c), name, NULL, res);
	return rc ? rc : nl_api_update(out, c, path, cm, NULL, res);
}

int nl_configmap_delete(nl_client *c, const char *ns, const char *name, const nl_delete_options *o,
                        nl_result *res)
{
	char path[NL__PATH_MAX];
	int rc = nl__path(path, &nl_resource_configmaps, ns_or_default(ns, c), name, NULL, res);
	return rc ? rc : nl_api_delete(NULL, c, path, o, res);
}

int nl_configmap_new(json_object **out, const char *ns, const char *name)
{
	return nl__object_new(out, "v1", "ConfigMap", ns, name);
}

int nl_configmap_set(json_object *cm, const char *key, const char *value)
{
	json_object *data;
	if (!json_object_is_type(cm, json_type_object) || !key)
		return NL_EINVAL;
	if (!json_object_object_get_ex(cm, "data", &data) ||
	    !json_object_is_type(data, json_type_object)) {
		if (!value)
			return 0;
		data = json_object_new_object();
		if (!data)
			return NL_ENOMEM;
		json_object_object_add(cm, "data", data);
	}
	if (!value) {
		json_object_object_del(data, key);
		return 0;
	}
	json_object *v = json_object_new_string(value);
	if (!v)
		return NL_ENOMEM;
	return json_object_object_add(data, key, v) == 0 ? 0 : NL_ENOMEM;
}

const char *nl_configmap_data(json_object *cm, const char *key)
{
	json_object *data, *v;
	if (!json_object_object_get_ex(cm, "data", &data) ||
	    !json_object_object_get_ex(data, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}
