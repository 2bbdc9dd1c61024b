/* The value of a selectable field as the registry's ToSelectableFields
 * computes it from the Go object, not from the JSON: a bool is
 * strconv.FormatBool of the field, so a Node without spec.unschedulable
 * (the zero value) is "false"; an Event's "source" is
 * source.component, or reportingComponent when that is empty
 * (pkg/registry/core/node and core/event strategy.go). */
#include <json-c/json.h>
#include <nodelet/meta.h>
#include <nodelet/selector.h>
#include <stdlib.h>
#include <string.h>

#include "resources.h"

static int dup_out(char **out, const char *s)
{
	*out = strdup(s);
	return *out ? 0 : NL_ENOMEM;
}

static int event_source(char **out, json_object *obj)
{
	int rc = nl_field_value(out, obj, "source.component");
	if (rc != 0 || (*out && **out))
		return rc;
	free(*out);
	return nl_field_value(out, obj, "reportingComponent");
}

/* status.podIP is the first of status.podIPs (the conversion to the
 * internal object fills podIPs from podIP when it is empty). */
static int pod_ip(char **out, json_object *obj)
{
	json_object *ips = nl_json_get_path(obj, "status.podIPs");
	if (json_object_is_type(ips, json_type_array) && json_object_array_length(ips) > 0)
		return nl_field_value(out, json_object_array_get_idx(ips, 0), "ip");
	return nl_field_value(out, obj, "status.podIP");
}

static int bool_field(char **out, json_object *obj, const char *path)
{
	json_object *v = nl_json_get_path(obj, path);
	return dup_out(out, json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v)
	                        ? "true"
	                        : "false");
}

int mock_resource_field_value(char **out, const mock_resource *r, json_object *obj,
                              const char *field)
{
	if (r->id == MOCK_KIND_NODE && strcmp(field, "spec.unschedulable") == 0)
		return bool_field(out, obj, field);
	if (r->id == MOCK_KIND_EVENT && strcmp(field, "source") == 0)
		return event_source(out, obj);
	if (r->id == MOCK_KIND_POD && strcmp(field, "spec.hostNetwork") == 0)
		return bool_field(out, obj, field);
	if (r->id == MOCK_KIND_POD && strcmp(field, "status.podIP") == 0)
		return pod_ip(out, obj);
	return nl_field_value(out, obj, field);
}
