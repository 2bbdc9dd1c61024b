/* nl_config_ops_for_client: the dynamic config controller's API calls made
 * with an nl_client, for the nodelet program and the scenario runner alike. */
#include <nodelet/config_controller.h>
#include <nodelet/configmap.h>
#include <nodelet/event.h>
#include <nodelet/node.h>

/* The call's Status (or one made from its message) to the controller. */
static int hand_over(nl_status **status, nl_result *res, int rc)
{
	if (rc != 0 && status) {
		*status = res->status ? res->status : nl_status_new(0, "", res->message);
		res->status = NULL;
	}
	nl_result_clear(res);
	return rc;
}

static int get_node(json_object **out, nl_status **status, const char *name, void *payload)
{
	nl_result res = NL_RESULT_INIT;
	return hand_over(status, &res, nl_node_get(out, payload, name, &res));
}

static int get_configmap(json_object **out, nl_status **status, const char *ns, const char *name,
                         void *payload)
{
	nl_result res = NL_RESULT_INIT;
	return hand_over(status, &res, nl_configmap_get(out, payload, ns, name, &res));
}

static int patch_node_status(json_object **out, nl_status **status, const char *name,
                             const char *patch, size_t len, void *payload)
{
	nl_result res = NL_RESULT_INIT;
	return hand_over(
	    status, &res,
	    nl_node_patch_status(out, payload, name, NL_PATCH_STRATEGIC, patch, len, &res));
}

static int create_event(json_object **out, nl_status **status, const char *ns, json_object *event,
                        void *payload)
{
	nl_result res = NL_RESULT_INIT;
	(void)ns; /* the Event's metadata.namespace says it */
	return hand_over(status, &res, nl_event_create(out, payload, event, &res));
}

nl_config_ops nl_config_ops_for_client(nl_client *c)
{
	nl_config_ops ops = {get_node, get_configmap, patch_node_status, create_event, c};
	return ops;
}
