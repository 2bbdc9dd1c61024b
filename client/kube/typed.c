/* Small pieces the typed helpers (lease.c, node.c, configmap.c, event.c)
 * share. */
#include <nodelet/api.h>
#include <nodelet/meta.h>

#include "kube.h"

int nl__path(char out[NL__PATH_MAX], const void *resource, const char *ns, const char *name,
             const char *sub, nl_result *res)
{
	const nl_resource *r = resource;
	int rc = nl_api_path(out, NL__PATH_MAX, r, ns, name, sub);
	if (rc != 0) {
		nl__result_reset(res);
		nl__result_fail(res, rc, "cannot build the path of %s \"%s\"", r->resource,
		                name ? name : "");
	}
	return rc;
}

const char *nl__obj_namespace(json_object *obj, nl_client *c)
{
	const char *ns = nl_meta_namespace(obj);
	return ns && *ns ? ns : nl_client_namespace(c);
}

const char *nl__obj_name(json_object *obj, nl_result *res)
{
	const char *name = nl_meta_name(obj);
	if (name && *name)
		return name;
	nl__result_reset(res);
	nl__result_fail(res, NL_EINVAL, "the object has no metadata.name");
	return NULL;
}

int nl__object_new(json_object **out, const char *api_version, const char *kind, const char *ns,
                   const char *name)
{
	if (!name || !*name)
		return NL_EINVAL;
	json_object *o = json_object_new_object();
	json_object *meta = json_object_new_object();
	if (!o || !meta) {
		json_object_put(o);
		json_object_put(meta);
		return NL_ENOMEM;
	}
	json_object_object_add(o, "apiVersion", json_object_new_string(api_version));
	json_object_object_add(o, "kind", json_object_new_string(kind));
	json_object_object_add(meta, "name", json_object_new_string(name));
	if (ns && *ns)
		json_object_object_add(meta, "namespace", json_object_new_string(ns));
	json_object_object_add(o, "metadata", meta);
	*out = o;
	return 0;
}
