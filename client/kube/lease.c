/* coordination.k8s.io/v1 Lease: spec as C values, CRUD, and the lease
 * controller's ops on a real client. */
#include <nodelet/lease.h>
#include <nodelet/meta.h>
#include <nodelet/protobuf.h>
#include <nodelet/time.h>
#include <stdlib.h>
#include <string.h>

#include "kube.h"

static int read_time(int64_t *out, json_object *spec, const char *key)
{
	json_object *v;
	*out = 0;
	if (!json_object_object_get_ex(spec, key, &v) || json_object_is_type(v, json_type_null))
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return NL_EPARSE;
	return nl_time_parse_micro(out, json_object_get_string(v));
}

static int32_t read_int(json_object *spec, const char *key, int32_t unset)
{
	json_object *v;
	if (!json_object_object_get_ex(spec, key, &v) || !json_object_is_type(v, json_type_int))
		return unset;
	return json_object_get_int(v);
}

int nl_lease_spec_read(nl_lease_spec *out, json_object *lease)
{
	nl_lease_spec s = {NULL, 0, 0, 0, -1};
	json_object *spec = nl_json_get_path(lease, "spec");
	int rc;
	if (spec) {
		s.holder_identity = nl_json_get_string(spec, "holderIdentity");
		s.lease_duration_seconds = read_int(spec, "leaseDurationSeconds", 0);
		s.lease_transitions = read_int(spec, "leaseTransitions", -1);
		if ((rc = read_time(&s.acquire_time, spec, "acquireTime")) != 0 ||
		    (rc = read_time(&s.renew_time, spec, "renewTime")) != 0)
			return rc;
	}
	*out = s;
	return 0;
}

static void set_or_del(json_object *o, const char *key, json_object *v, int set)
{
	if (set)
		json_object_object_add(o, key, v);
	else
		json_object_object_del(o, key);
}

static json_object *micro(int64_t usec)
{
	char buf[NL_TIME_BUFSZ];
	nl_time_format_micro(buf, usec);
	return json_object_new_string(buf);
}

int nl_lease_spec_write(json_object *lease, const nl_lease_spec *s)
{
	if (!json_object_is_type(lease, json_type_object) || !s)
		return NL_EINVAL;
	json_object *spec = nl_json_get_path(lease, "spec");
	if (!spec) {
		spec = json_object_new_object();
		if (!spec)
			return NL_ENOMEM;
		json_object_object_add(lease, "spec", spec);
	}
	set_or_del(spec, "holderIdentity",
	           s->holder_identity ? json_object_new_string(s->holder_identity) : NULL,
	           s->holder_identity != NULL);
	set_or_del(spec, "leaseDurationSeconds",
	           s->lease_duration_seconds ? json_object_new_int(s->lease_duration_seconds)
	                                     : NULL,
	           s->lease_duration_seconds != 0);
	set_or_del(spec, "acquireTime", s->acquire_time ? micro(s->acquire_time) : NULL,
	           s->acquire_time != 0);
	set_or_del(spec, "renewTime", s->renew_time ? micro(s->renew_time) : NULL,
	           s->renew_time != 0);
	set_or_del(spec, "leaseTransitions",
	           s->lease_transitions >= 0 ? json_object_new_int(s->lease_transitions) : NULL,
	           s->lease_transitions >= 0);
	return 0;
}

int nl_lease_new(json_object **out, const char *ns, const char *name, const nl_lease_spec *spec)
{
	json_object *o;
	int rc = nl__object_new(&o, "coordination.k8s.io/v1", "Lease", ns, name);
	if (rc)
		return rc;
	nl_lease_spec empty = {NULL, 0, 0, 0, -1};
	if ((rc = nl_lease_spec_write(o, spec ? spec : &empty)) != 0) {
		json_object_put(o);
		return rc;
	}
	*out = o;
	return 0;
}

int nl_lease_get(json_object **out, nl_client *c, const char *ns, const char *name, nl_result *res)
{
	char path[NL__PATH_MAX];
	int rc =
	    nl__path(path, &nl_resource_leases, ns ? ns : nl_client_namespace(c), name, NULL, res);
	return rc ? rc : nl_api_get(out, c, path, res);
}

int nl_lease_list(json_object **out, nl_client *c, const char *ns, const nl_list_options *o,
                  nl_result *res)
{
	char path[NL__PATH_MAX];
	int rc =
	    nl__path(path, &nl_resource_leases, ns ? ns : nl_client_namespace(c), NULL, NULL, res);
	return rc ? rc : nl_api_list(out, c, path, o, res);
}

int nl_lease_create(json_object **out, nl_client *c, json_object *lease, nl_result *res)
{
	char path[NL__PATH_MAX];
	int rc = nl__path(path, &nl_resource_leases, nl__obj_namespace(lease, c), NULL, NULL, res);
	return rc ? rc : nl_api_create(out, c, path, lease, NULL, res);
}

int nl_lease_update(json_object **out, nl_client *c, json_object *lease, nl_result *res)
{
	char path[NL__PATH_MAX];
	const char *name = nl__obj_name(lease, res);
	if (!name)
		return NL_EINVAL;
	int rc = nl__path(path, &nl_resource_leases, nl__obj_namespace(lease, c), name, NULL, res);
	return rc ? rc : nl_api_update(out, c, path, lease, NULL, res);
}

int nl_lease_delete(nl_client *c, const char *ns, const char *name, const nl_delete_options *o,
                    nl_result *res)
{
	char path[NL__PATH_MAX];
	int rc =
	    nl__path(path, &nl_resource_leases, ns ? ns : nl_client_namespace(c), name, NULL, res);
	return rc ? rc : nl_api_delete(NULL, c, path, o, res);
}

int nl_lease_get_async(nl_call **out, nl_client *c, const char *ns, const char *name,
                       nl_object_cb cb, void *payload)
{
	char path[NL__PATH_MAX];
	int rc =
	    nl__path(path, &nl_resource_leases, ns ? ns : nl_client_namespace(c), name, NULL, NULL);
	return rc ? rc : nl_api_get_async(out, c, path, cb, payload);
}

int nl_lease_update_async(nl_call **out, nl_client *c, json_object *lease, nl_object_cb cb,
                          void *payload)
{
	char path[NL__PATH_MAX];
	const char *name = nl__obj_name(lease, NULL);
	if (!name)
		return NL_EINVAL;
	int rc = nl__path(path, &nl_resource_leases, nl__obj_namespace(lease, c), name, NULL, NULL);
	return rc ? rc : nl_api_update_async(out, c, path, lease, NULL, cb, payload);
}

int nl_lease_create_async(nl_call **out, nl_client *c, json_object *lease, nl_object_cb cb,
                          void *payload)
{
	char path[NL__PATH_MAX];
	int rc = nl__path(path, &nl_resource_leases, nl__obj_namespace(lease, c), NULL, NULL, NULL);
	return rc ? rc : nl_api_create_async(out, c, path, lease, NULL, cb, payload);
}

/* ---- the lease controller's ops ------------------------------------------------ */

/* The controller wants the Status; a transport failure gets one that says
 * what happened (code 0: no HTTP answer). */
static int hand_over(nl_status **status, nl_result *res, int rc)
{
	if (rc != 0 && status) {
		if (res->status) {
			*status = res->status;
			res->status = NULL;
		} else {
			*status = nl_status_new(0, "", res->message);
		}
	}
	nl__result_reset(res);
	return rc;
}

static int ops_get_lease(json_object **out, nl_status **status, const char *ns, const char *name,
                         void *payload)
{
	nl_result res = NL_RESULT_INIT;
	return hand_over(status, &res, nl_lease_get(out, payload, ns, name, &res));
}

static int ops_write(json_object **out, nl_status **status, const char *ns, json_object *lease,
                     void *payload, int create)
{
	nl_result res = NL_RESULT_INIT;
	char path[NL__PATH_MAX];
	const char *name = create ? NULL : nl__obj_name(lease, &res);
	int rc =
	    create || name ? nl__path(path, &nl_resource_leases, ns, name, NULL, &res) : NL_EINVAL;
	if (rc == 0)
		rc = create ? nl_api_create(out, payload, path, lease, NULL, &res)
		            : nl_api_update(out, payload, path, lease, NULL, &res);
	return hand_over(status, &res, rc);
}

static int ops_create_lease(json_object **out, nl_status **status, const char *ns,
                            json_object *lease, void *payload)
{
	return ops_write(out, status, ns, lease, payload, 1);
}

static int ops_update_lease(json_object **out, nl_status **status, const char *ns,
                            json_object *lease, void *payload)
{
	return ops_write(out, status, ns, lease, payload, 0);
}

static int ops_get_node(json_object **out, nl_status **status, const char *name, void *payload)
{
	nl_result res = NL_RESULT_INIT;
	char path[NL__PATH_MAX];
	int rc = nl__path(path, &nl_resource_nodes, NULL, name, NULL, &res);
	if (rc == 0)
		rc = nl_api_get(out, payload, path, &res);
	return hand_over(status, &res, rc);
}

int nl_lease_update_protobuf(char **out, size_t *out_len, int *out_protobuf, nl_status **status,
                             const char *ns, const char *name, const void *body, size_t len,
                             void *payload)
{
	nl_result res = NL_RESULT_INIT;
	nl_response resp = {0};
	char path[NL__PATH_MAX];
	int rc = nl__path(path, &nl_resource_leases, ns, name, NULL, &res);
	if (rc == 0) {
		nl_request req = {0};
		req.method = "PUT";
		req.path = path;
		req.body = body;
		req.body_len = len;
		req.content_type = NL_PB_CONTENT_TYPE;
		req.group = nl_resource_leases.group;
		req.resource = nl_resource_leases.resource;
		req.name = name;
		rc = nl_client_do(&resp, payload, &req, &res);
	}
	if (rc == 0) {
		*out_protobuf = nl__is_protobuf(resp.content_type);
		*out = resp.body;
		*out_len = resp.body_len;
		resp.body = NULL;
	}
	nl_response_clear(&resp);
	return hand_over(status, &res, rc);
}

void nl_lease_ops_init(nl_lease_ops *ops, nl_client *c)
{
	memset(ops, 0, sizeof(*ops));
	ops->get_lease = ops_get_lease;
	ops->create_lease = ops_create_lease;
	ops->update_lease = ops_update_lease;
	ops->get_node = ops_get_node;
	ops->payload = c;
}
