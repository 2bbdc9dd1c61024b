/* Scenario object operations (objects.h). */
#include "objects.h"

#include <nodelet/meta.h>
#include <nodelet/watch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

static const char *str(json_object *obj, const char *key)
{
	json_object *v;
	return json_object_object_get_ex(obj, key, &v) && json_object_is_type(v, json_type_string)
	           ? json_object_get_string(v)
	           : NULL;
}

static int fill(nl_scn_objref *out, const char *kind, const char *api_version, const char *ns,
                const char *name)
{
	const nl_resource *r = nl_scn_kind(kind, api_version);
	if (!r || !name)
		return NL_EINVAL;
	memset(out, 0, sizeof(*out));
	out->r = r;
	snprintf(out->name, sizeof(out->name), "%s", name);
	if (r->namespaced)
		snprintf(out->ns, sizeof(out->ns), "%s", ns && *ns ? ns : "default");
	return 0;
}

static int objref_from_object(nl_scn_objref *out, json_object *obj)
{
	return fill(out, str(obj, "kind"), str(obj, "apiVersion"), nl_meta_namespace(obj),
	            nl_meta_name(obj));
}

int nl_scn_objref_from_ref(nl_scn_objref *out, json_object *ref)
{
	return fill(out, str(ref, "kind"), str(ref, "apiVersion"), str(ref, "namespace"),
	            str(ref, "name"));
}

void nl_scn_objref_describe(char *out, size_t outlen, const nl_scn_objref *r)
{
	snprintf(out, outlen, "%s %s%s%s", r->r->kind, r->ns, r->ns[0] ? "/" : "", r->name);
}

static int object_path(char *out, size_t outlen, const nl_scn_objref *r, const char *sub)
{
	return nl_api_path(out, outlen, r->r, r->ns[0] ? r->ns : NULL, r->name, sub);
}

static int collection_path(char *out, size_t outlen, const nl_scn_objref *r)
{
	return nl_api_path(out, outlen, r->r, r->ns[0] ? r->ns : NULL, NULL, NULL);
}

/* kind, apiVersion and metadata.namespace filled in, as kubectl does. */
static int normalized(json_object **out, json_object *obj, const nl_scn_objref *r)
{
	json_object *c = NULL;
	char gv[128];
	if (json_object_deep_copy(obj, &c, NULL) != 0)
		return NL_ENOMEM;
	snprintf(gv, sizeof(gv), "%s%s%s", r->r->group, *r->r->group ? "/" : "", r->r->version);
	json_object_object_add(c, "apiVersion", json_object_new_string(gv));
	if (r->ns[0])
		nl_meta_set_string(c, "namespace", r->ns);
	*out = c;
	return 0;
}

int nl_scn_obj_create(json_object **out, nl_client *c, json_object *obj, nl_result *res)
{
	nl_scn_objref r;
	char path[1024];
	json_object *body = NULL;
	int rc;
	if ((rc = objref_from_object(&r, obj)) != 0 ||
	    (rc = collection_path(path, sizeof(path), &r)) != 0 ||
	    (rc = normalized(&body, obj, &r)) != 0)
		return rc;
	rc = nl_api_create(out, c, path, body, NULL, res);
	json_object_put(body);
	return rc;
}

int nl_scn_obj_update(json_object **out, nl_client *c, json_object *obj, nl_result *res)
{
	nl_scn_objref r;
	char path[1024];
	json_object *body = NULL;
	int rc;
	if ((rc = objref_from_object(&r, obj)) != 0 ||
	    (rc = object_path(path, sizeof(path), &r, NULL)) != 0 ||
	    (rc = normalized(&body, obj, &r)) != 0)
		return rc;
	rc = nl_api_update(out, c, path, body, NULL, res);
	json_object_put(body);
	return rc;
}

int nl_scn_obj_apply(json_object **out, int *created, nl_client *c, json_object *obj,
                     nl_result *res)
{
	nl_scn_objref r;
	char path[1024];
	json_object *cur = NULL, *body = NULL;
	int rc;
	if ((rc = objref_from_object(&r, obj)) != 0 ||
	    (rc = object_path(path, sizeof(path), &r, NULL)) != 0)
		return rc;
	rc = nl_api_get(&cur, c, path, res);
	if (rc == NL_ENOTFOUND) {
		if ((rc = nl_scn_obj_create(out, c, obj, res)) == 0 && created)
			*created = 1;
		return rc;
	}
	if (rc != 0)
		return rc;
	if ((rc = normalized(&body, obj, &r)) == 0) {
		if (!nl_meta_resource_version(body))
			nl_meta_set_string(body, "resourceVersion", nl_meta_resource_version(cur));
		rc = nl_api_update(out, c, path, body, NULL, res);
		if (rc == 0 && created)
			*created = 0;
	}
	json_object_put(body);
	json_object_put(cur);
	return rc;
}

static nl_patch_type patch_type(const char *t)
{
	if (!t || strcmp(t, "merge") == 0)
		return NL_PATCH_MERGE;
	if (strcmp(t, "strategic") == 0)
		return NL_PATCH_STRATEGIC;
	if (strcmp(t, "json") == 0)
		return NL_PATCH_JSON;
	return NL_PATCH_APPLY;
}

int nl_scn_obj_patch(json_object **out, nl_client *c, json_object *spec, nl_result *res)
{
	nl_scn_objref r;
	char path[1024];
	json_object *patch, *force;
	nl_write_options wo = {0};
	int rc;
	if ((rc = nl_scn_objref_from_ref(&r, spec)) != 0 ||
	    (rc = object_path(path, sizeof(path), &r, str(spec, "subresource"))) != 0)
		return rc;
	json_object_object_get_ex(spec, "patch", &patch);
	nl_patch_type type = patch_type(str(spec, "type"));
	wo.field_manager = str(spec, "fieldManager");
	if (type == NL_PATCH_APPLY && !wo.field_manager)
		wo.field_manager = "nodelet-scenario";
	wo.force =
	    json_object_object_get_ex(spec, "force", &force) && json_object_get_boolean(force);
	size_t len = 0;
	const char *text = json_object_is_type(patch, json_type_string)
	                       ? json_object_get_string(patch)
	                       : nl_json_compact(patch, &len);
	if (json_object_is_type(patch, json_type_string))
		len = strlen(text);
	return nl_api_patch(out, c, path, type, text, len, &wo, res);
}

int nl_scn_obj_delete(nl_client *c, json_object *spec, nl_result *res)
{
	nl_scn_objref r;
	char path[1024];
	json_object *pre;
	nl_delete_options o;
	int rc;
	if ((rc = nl_scn_objref_from_ref(&r, spec)) != 0 ||
	    (rc = object_path(path, sizeof(path), &r, NULL)) != 0)
		return rc;
	nl_delete_options_init(&o);
	o.propagation_policy = str(spec, "propagationPolicy");
	if (json_object_object_get_ex(spec, "preconditions", &pre)) {
		o.precondition_uid = str(pre, "uid");
		o.precondition_resource_version = str(pre, "resourceVersion");
	}
	return nl_api_delete(NULL, c, path, &o, res);
}

int nl_scn_obj_get(json_object **out, nl_client *c, const nl_scn_objref *r, nl_result *res)
{
	char path[1024];
	int rc = object_path(path, sizeof(path), r, NULL);
	return rc ? rc : nl_api_get(out, c, path, res);
}

int nl_scn_obj_list(json_object **out, nl_client *c, const nl_resource *r, const char *ns,
                    const char *label_selector, const char *field_selector, nl_result *res)
{
	char path[1024];
	nl_list_options o = {0};
	int rc = nl_api_path(path, sizeof(path), r, ns && *ns ? ns : NULL, NULL, NULL);
	if (rc != 0)
		return rc;
	o.label_selector = label_selector;
	o.field_selector = field_selector;
	return nl_api_list_all(out, c, path, &o, res);
}

/* --- watch ------------------------------------------------------------------------------------ */

typedef struct {
	nl_watch_decoder *dec;
	json_object *events;
	long want; /* 0 = until the stream ends */
	int failed;
} watch_ctx;

static int on_event(const nl_watch_event *ev, void *payload)
{
	watch_ctx *w = payload;
	json_object *e = json_object_new_object();
	json_object_object_add(e, "type", json_object_new_string(nl_watch_type_name(ev->type)));
	json_object_object_add(e, "object", json_object_get(ev->object));
	json_object_array_add(w->events, e);
	return w->want && (long)json_object_array_length(w->events) >= w->want;
}

static int on_data(const char *data, size_t len, void *payload)
{
	watch_ctx *w = payload;
	int rc = nl_watch_decoder_feed(w->dec, data, len, NULL);
	if (rc < 0)
		w->failed = rc;
	return rc != 0;
}

static void add_param(char *path, size_t outlen, const char *key, const char *value)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(path);
	if (!value || n + strlen(key) + 3 >= outlen)
		return;
	n += (size_t)snprintf(path + n, outlen - n, "&%s=", key);
	for (const unsigned char *p = (const unsigned char *)value; *p && n + 4 < outlen; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-_.~", *p)) {
			path[n++] = (char)*p;
		} else {
			path[n++] = '%';
			path[n++] = hex[*p >> 4];
			path[n++] = hex[*p & 15];
		}
	}
	path[n] = '\0';
}

int nl_scn_obj_watch(json_object **out, nl_client *c, json_object *spec, nl_result *res)
{
	char path[2048], num[32];
	json_object *v;
	watch_ctx w = {0};
	nl_request req = {0};
	nl_response resp = {0};
	const nl_resource *r = nl_scn_kind(str(spec, "kind"), str(spec, "apiVersion"));
	const char *ns = str(spec, "namespace");
	long timeout = 2;
	int rc;
	if (!r)
		return NL_EINVAL;
	if ((rc = nl_api_path(path, sizeof(path), r, r->namespaced && ns ? ns : NULL, NULL, NULL)))
		return rc;
	if (json_object_object_get_ex(spec, "timeoutSeconds", &v))
		timeout = (long)json_object_get_int64(v);
	if (json_object_object_get_ex(spec, "events", &v))
		w.want = (long)json_object_get_int64(v);
	snprintf(num, sizeof(num), "%ld", timeout);
	strcat(path, "?watch=true");
	add_param(path, sizeof(path), "resourceVersion", str(spec, "resourceVersion"));
	add_param(path, sizeof(path), "labelSelector", str(spec, "labelSelector"));
	add_param(path, sizeof(path), "fieldSelector", str(spec, "fieldSelector"));
	add_param(path, sizeof(path), "timeoutSeconds", num);
	if (!(w.events = json_object_new_array()) ||
	    nl_watch_decoder_new(&w.dec, 0, on_event, &w) != 0) {
		json_object_put(w.events);
		return NL_ENOMEM;
	}
	req.method = "GET";
	req.path = path;
	req.on_data = on_data;
	req.data_payload = &w;
	rc = nl_client_do(&resp, c, &req, res);
	nl_response_clear(&resp);
	nl_watch_decoder_free(w.dec);
	if (rc == 0 && w.failed)
		rc = w.failed;
	if (rc != 0) {
		json_object_put(w.events);
		return rc;
	}
	*out = w.events;
	return 0;
}

/* --- errors ----------------------------------------------------------------------------------- */

/* "ECONFLICT" for NL_ECONFLICT ... */
static const char *code_name(int rc)
{
	static const char *const names[] = {
	    "OK",
	    "ERROR",
	    "ENOMEM",
	    "EINVAL",
	    "EPARSE",
	    "EIO",
	    "ETOOBIG",
	    "ENOTFOUND",
	    "ECONFLICT",
	    "EEXISTS",
	    "EINVALID",
	    "EGONE",
	    "EBADREQUEST",
	    "ETIMEOUT",
	    "EUNAUTHORIZED",
	    "EFORBIDDEN",
	    "ETOOMANYREQUESTS",
	    "ESERVER",
	    "ETRANSPORT",
	    "ETLS",
	    "ECONFIG",
	    "EMETHOD",
	    "EUNSUPPORTED",
	    "ECANCELED",
	};
	int i = -rc;
	return i >= 0 && (size_t)i < sizeof(names) / sizeof(names[0]) ? names[i] : "ERROR";
}

json_object *nl_scn_obj_error(int rc, const nl_result *res)
{
	json_object *e = json_object_new_object();
	json_object_object_add(e, "code", json_object_new_string(code_name(rc)));
	if (res && res->http_status)
		json_object_object_add(e, "status", json_object_new_int((int)res->http_status));
	if (res && res->status && res->status->reason)
		json_object_object_add(e, "reason", json_object_new_string(res->status->reason));
	if (res && res->message[0])
		json_object_object_add(e, "message", json_object_new_string(res->message));
	else
		json_object_object_add(e, "message", json_object_new_string(nl_strerror(rc)));
	return e;
}
