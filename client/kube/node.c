/* v1 Node and its status subresource. */
#include <nodelet/meta.h>
#include <nodelet/node.h>
#include <nodelet/time.h>
#include <string.h>

#include "kube.h"

static int node_path(char path[NL__PATH_MAX], const char *name, const char *sub, nl_result *res)
{
	return nl__path(path, &nl_resource_nodes, NULL, name, sub, res);
}

int nl_node_get(json_object **out, nl_client *c, const char *name, nl_result *res)
{
	char path[NL__PATH_MAX];
	int rc = node_path(path, name, NULL, res);
	return rc ? rc : nl_api_get(out, c, path, res);
}

int nl_node_list(json_object **out, nl_client *c, const nl_list_options *o, nl_result *res)
{
	char path[NL__PATH_MAX];
	int rc = node_path(path, NULL, NULL, res);
	return rc ? rc : nl_api_list(out, c, path, o, res);
}

int nl_node_create(json_object **out, nl_client *c, json_object *node, nl_result *res)
{
	char path[NL__PATH_MAX];
	int rc = node_path(path, NULL, NULL, res);
	return rc ? rc : nl_api_create(out, c, path, node, NULL, res);
}

static int put(json_object **out, nl_client *c, json_object *node, const char *sub, nl_result *res)
{
	char path[NL__PATH_MAX];
	const char *name = nl__obj_name(node, res);
	if (!name)
		return NL_EINVAL;
	int rc = node_path(path, name, sub, res);
	return rc ? rc : nl_api_update(out, c, path, node, NULL, res);
}

int nl_node_update(json_object **out, nl_client *c, json_object *node, nl_result *res)
{
	return put(out, c, node, NULL, res);
}

int nl_node_update_status(json_object **out, nl_client *c, json_object *node, nl_result *res)
{
	return put(out, c, node, "status", res);
}

int nl_node_patch(json_object **out, nl_client *c, const char *name, nl_patch_type type,
                  const char *patch, size_t len, nl_result *res)
{
	char path[NL__PATH_MAX];
	int rc = node_path(path, name, NULL, res);
	return rc ? rc : nl_api_patch(out, c, path, type, patch, len, NULL, res);
}

int nl_node_patch_status(json_object **out, nl_client *c, const char *name, nl_patch_type type,
                         const char *patch, size_t len, nl_result *res)
{
	char path[NL__PATH_MAX];
	int rc = node_path(path, name, "status", res);
	return rc ? rc : nl_api_patch(out, c, path, type, patch, len, NULL, res);
}

int nl_node_delete(nl_client *c, const char *name, const nl_delete_options *o, nl_result *res)
{
	char path[NL__PATH_MAX];
	int rc = node_path(path, name, NULL, res);
	return rc ? rc : nl_api_delete(NULL, c, path, o, res);
}

int nl_node_get_async(nl_call **out, nl_client *c, const char *name, nl_object_cb cb, void *payload)
{
	char path[NL__PATH_MAX];
	int rc = node_path(path, name, NULL, NULL);
	return rc ? rc : nl_api_get_async(out, c, path, cb, payload);
}

int nl_node_update_status_async(nl_call **out, nl_client *c, json_object *node, nl_object_cb cb,
                                void *payload)
{
	char path[NL__PATH_MAX];
	const char *name = nl__obj_name(node, NULL);
	if (!name)
		return NL_EINVAL;
	int rc = node_path(path, name, "status", NULL);
	return rc ? rc : nl_api_update_async(out, c, path, node, NULL, cb, payload);
}

int nl_node_patch_status_async(nl_call **out, nl_client *c, const char *name, nl_patch_type type,
                               const char *patch, size_t len, nl_object_cb cb, void *payload)
{
	char path[NL__PATH_MAX];
	int rc = node_path(path, name, "status", NULL);
	return rc ? rc : nl_api_patch_async(out, c, path, type, patch, len, NULL, cb, payload);
}

int nl_node_new(json_object **out, const char *name)
{
	return nl__object_new(out, "v1", "Node", NULL, name);
}

json_object *nl_node_condition(json_object *node, const char *type)
{
	json_object *conds = nl_json_get_path(node, "status.conditions");
	if (!conds || !json_object_is_type(conds, json_type_array))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(conds); i++) {
		json_object *c = json_object_array_get_idx(conds, i);
		const char *t = nl_json_get_string(c, "type");
		if (t && strcmp(t, type) == 0)
			return c;
	}
	return NULL;
}

/* status.conditions, created when missing. */
static json_object *conditions(json_object *node)
{
	json_object *status = nl_json_get_path(node, "status"), *conds;
	if (!status) {
		status = json_object_new_object();
		if (!status)
			return NULL;
		json_object_object_add(node, "status", status);
	}
	if (json_object_object_get_ex(status, "conditions", &conds) &&
	    json_object_is_type(conds, json_type_array))
		return conds;
	conds = json_object_new_array();
	if (conds)
		json_object_object_add(status, "conditions", conds);
	return conds;
}

int nl_node_set_condition(json_object *node, const char *type, const char *status,
                          const char *reason, const char *message, int64_t now_usec)
{
	char now[NL_TIME_BUFSZ];
	if (!json_object_is_type(node, json_type_object) || !type || !status)
		return NL_EINVAL;
	nl_time_format(now, now_usec);
	json_object *cond = nl_node_condition(node, type);
	if (!cond) {
		json_object *conds = conditions(node);
		cond = json_object_new_object();
		if (!conds || !cond) {
			json_object_put(cond);
			return NL_ENOMEM;
		}
		json_object_object_add(cond, "type", json_object_new_string(type));
		json_object_array_add(conds, cond);
	}
	const char *old = nl_json_get_string(cond, "status");
	int changed =
	    !old || strcmp(old, status) != 0 || !nl_json_get_string(cond, "lastTransitionTime");
	json_object_object_add(cond, "status", json_object_new_string(status));
	json_object_object_add(cond, "lastHeartbeatTime", json_object_new_string(now));
	if (changed)
		json_object_object_add(cond, "lastTransitionTime", json_object_new_string(now));
	json_object_object_add(cond, "reason", json_object_new_string(reason ? reason : ""));
	json_object_object_add(cond, "message", json_object_new_string(message ? message : ""));
	return 0;
}
