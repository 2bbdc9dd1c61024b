/* POST pods/<name>/eviction (handlers.h), as kube-apiserver 1.32's
 * EvictionREST answers it when no PodDisruptionBudget exists (the mock
 * serves none): the pod gets the DisruptionTarget condition, is deleted
 * under the Eviction's DeleteOptions (gracefully when it is bound to a
 * node), and the answer is 201 with a Success Status
 * (pkg/registry/core/pod/storage/eviction.go). */
#include <nodelet/meta.h>
#include <nodelet/time.h>
#include <stdlib.h>
#include <string.h>

#include "api/pod_strategy.h"
#include "core/json.h"
#include "handlers.h"
#include "handlers_internal.h"
#include "storage/store.h"
#include "write_request.h"

/* The pod as it is now, with the condition; stored unconditionally. */
static int add_condition(mock_api *api, const mock_route *rt, nl_status **st)
{
	json_object *pod = NULL;
	char now[NL_TIME_BUFSZ];
	if (mock_store_get_object(api->store, rt->res, rt->ns, rt->name, &pod) != 0) {
		nl_gr gr = mock_resource_gr(rt->res);
		*st = nl_status_not_found(&gr, rt->name);
		return -1;
	}
	nl_time_format(now, mock_store_now(api->store));
	mock_pod_set_condition(pod, "DisruptionTarget", "EvictionByEvictionAPI",
	                       "Eviction API: evicting", now);
	json_object_object_del(nl_json_get_path(pod, "metadata"), "resourceVersion");
	int rc = mock_store_write(api->store, rt->res, MOCK_WRITE_UPDATE, pod, NULL, NULL, NULL,
	                          NULL, NULL, st);
	json_object_put(pod);
	return rc;
}

static const char *opt_str(json_object *opts, const char *path)
{
	return opts ? nl_json_get_string(opts, path) : NULL;
}

void mock_handle_eviction(mock_api *api, const mock_route *rt, const mock_request *req,
                          mock_response *resp)
{
	static const char success[] =
	    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Success\","
	    "\"code\":201}";
	json_object *ev = NULL, *opts = NULL, *g;
	enum json_tokener_error jerr = json_tokener_success;
	size_t used = 0;
	nl_status *st = NULL;
	if (mock_parse_body(&ev, req->body ? req->body : "", req->body_len, &jerr, &used) != 0 ||
	    !json_object_is_type(ev, json_type_object) || used != req->body_len) {
		json_object_put(ev);
		mock_response_status(resp,
		                     nl_status_bad_request("the body of the request was in an "
		                                           "unknown format - accepted media "
		                                           "types include: application/json, "
		                                           "application/yaml, "
		                                           "application/vnd.kubernetes.protobuf"));
		return;
	}
	const char *name = nl_json_get_string(ev, "metadata.name");
	if (!name || strcmp(name, rt->name) != 0) {
		json_object_put(ev);
		mock_response_status(resp,
		                     nl_status_bad_request("name in URL does not match name in "
		                                           "Eviction object"));
		return;
	}
	json_object_object_get_ex(ev, "deleteOptions", &opts);
	int dry = mock_dry_run(req);
	g = opts ? nl_json_get_path(opts, "dryRun") : NULL;
	for (size_t i = 0;
	     json_object_is_type(g, json_type_array) && i < json_object_array_length(g); i++)
		dry |= strcmp(json_object_get_string(json_object_array_get_idx(g, i)), "All") == 0;
	int64_t grace = 0;
	g = opts ? nl_json_get_path(opts, "gracePeriodSeconds") : NULL;
	if (json_object_is_type(g, json_type_int))
		grace = json_object_get_int64(g);
	if ((dry || add_condition(api, rt, &st) == 0) &&
	    mock_store_delete_grace(
	        api->store, rt->res, rt->ns, rt->name, dry ? MOCK_WRITE_F_DRY_RUN : 0,
	        g ? &grace : NULL, opt_str(opts, "preconditions.uid"),
	        opt_str(opts, "preconditions.resourceVersion"), NULL, NULL, NULL, &st) == 0)
		mock_response_json(resp, 201, success, sizeof(success) - 1);
	else
		mock_response_status(resp, st);
	json_object_put(ev);
}
