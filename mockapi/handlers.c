/* The verbs. Each handler turns a routed request into store calls and
 * answers exactly what kube-apiserver answers, including the order in which
 * it checks things (decode → name/namespace → store checks → validation). */
#include "handlers.h"

#include <errno.h>
#include <nodelet/meta.h>
#include <nodelet/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "schema.h"
#include "uuid.h"
#include "validation.h"

static const char *rt_ns(const mock_route *rt)
{
	return rt->ns[0] ? rt->ns : NULL;
}

static void answer_bytes(mock_response *resp, int code, char *json, size_t len)
{
	mock_response_json(resp, code, json, len);
	free(json);
}

void mock_handle_get(mock_api *api, const mock_route *rt, const mock_request *req,
                     mock_response *resp)
{
	char *json = NULL;
	size_t len = 0;
	nl_status *st = NULL;
	if (mock_store_get(api->store, rt->res, rt_ns(rt), rt->name, &json, &len, &st) != 0) {
		mock_response_status(resp, st);
		return;
	}
	answer_bytes(resp, 200, json, len);
}

/* Parse labelSelector/fieldSelector into o; on error answer 400. */
static int parse_list_opts(mock_list_opts *o, nl_label_selector **ls, nl_field_selector **fs,
                           const mock_route *rt, const mock_request *req, mock_response *resp)
{
	nl_err err = {0};
	memset(o, 0, sizeof(*o));
	o->ns = rt_ns(rt);
	if (nl_label_selector_parse(ls, mock_request_query(req, "labelSelector"), &err) != 0 ||
	    nl_field_selector_parse(fs, mock_request_query(req, "fieldSelector"), &err) != 0) {
		mock_response_status(resp, nl_status_bad_request(err.msg));
		return -1;
	}
	o->labels = *ls;
	o->fields = *fs;
	const char *limit = mock_request_query(req, "limit");
	if (limit && *limit) {
		char *end;
		errno = 0;
		long long v = strtoll(limit, &end, 10);
		if (*end || errno || v < 0) {
			mock_response_status(resp, nl_status_bad_request("invalid limit"));
			return -1;
		}
		o->limit = (size_t)v;
	}
	o->continue_token = mock_request_query(req, "continue");
	if (o->continue_token && !*o->continue_token)
		o->continue_token = NULL;
	o->resource_version = mock_request_query(req, "resourceVersion");
	return 0;
}

static void list_or_delete(mock_api *api, const mock_route *rt, const mock_request *req,
                           mock_response *resp, int delete)
{
	mock_list_opts o;
	nl_label_selector *ls = NULL;
	nl_field_selector *fs = NULL;
	nl_status *st = NULL;
	nl_buf out;

	nl_buf_init(&out, resp->body.cap);
	if (parse_list_opts(&o, &ls, &fs, rt, req, resp) != 0)
		goto done;
	const char *watch = mock_request_query(req, "watch");
	if (!delete &&watch && (strcmp(watch, "true") == 0 || strcmp(watch, "1") == 0)) {
		/* Honest refusal until the watch hub exists: a list here would
		 * make a client believe it is watching. */
		mock_response_status(
		    resp, nl_status_newf(405, "MethodNotAllowed",
		                         "watch is not supported by this nodelet-mockapi"));
		goto done;
	}
	int rc = delete ? mock_store_delete_collection(api->store, rt->res, &o, &out, &st)
	                : mock_store_list(api->store, rt->res, &o, &out, &st);
	if (rc != 0)
		mock_response_status(resp, st);
	else
		mock_response_json(resp, 200, out.data, out.len);
done:
	nl_buf_free(&out);
	nl_label_selector_free(ls);
	nl_field_selector_free(fs);
}

void mock_handle_list(mock_api *api, const mock_route *rt, const mock_request *req,
                      mock_response *resp)
{
	list_or_delete(api, rt, req, resp, 0);
}

void mock_handle_delete_collection(mock_api *api, const mock_route *rt, const mock_request *req,
                                   mock_response *resp)
{
	list_or_delete(api, rt, req, resp, 1);
}

/* "the object provided is unrecognized ..." with the apiserver's 30-byte
 * summary of the body. */
static nl_status *unrecognized(const mock_resource *r, const char *why, const char *body,
                               size_t len)
{
	char summary[64];
	if (len > 30)
		snprintf(summary, sizeof(summary), "%.30s ...", body);
	else
		snprintf(summary, sizeof(summary), "%.*s", (int)len, body ? body : "");
	return nl_status_newf(400, "BadRequest",
	                      "the object provided is unrecognized (must be of type %s): %s (%s)",
	                      r->kind, why, summary);
}

/* Decode the request body into the kind's canonical object, as the
 * apiserver's decoder does: JSON syntax, group/version/kind, then types.
 * Unknown fields become warnings, or a 400 with fieldValidation=Strict. */
static json_object *decode_body(const mock_resource *r, const mock_request *req,
                                mock_response *resp)
{
	if (!req->body || req->body_len == 0) {
		mock_response_status(resp, unrecognized(r,
		                                        "couldn't get version/kind; json parse "
		                                        "error: unexpected end of JSON input",
		                                        req->body, 0));
		return NULL;
	}
	struct json_tokener *tok = json_tokener_new_ex(1000);
	if (!tok) {
		mock_response_status(resp, nl_status_internal("out of memory"));
		return NULL;
	}
	json_object *in = json_tokener_parse_ex(tok, req->body, (int)req->body_len);
	enum json_tokener_error jerr = json_tokener_get_error(tok);
	size_t used = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!in || jerr != json_tokener_success || used != req->body_len) {
		char why[256];
		snprintf(why, sizeof(why), "couldn't get version/kind; json parse error: %s",
		         in && jerr == json_tokener_success
		             ? "invalid character after top-level value"
		             : json_tokener_error_desc(jerr));
		json_object_put(in);
		mock_response_status(resp, unrecognized(r, why, req->body, req->body_len));
		return NULL;
	}
	if (!json_object_is_type(in, json_type_object)) {
		json_object_put(in);
		mock_response_status(
		    resp, unrecognized(r,
		                       "couldn't get version/kind; json parse error: json: cannot "
		                       "unmarshal non-object into Go value of type struct",
		                       req->body, req->body_len));
		return NULL;
	}
	const char *kind = nl_json_get_string(in, "kind");
	const char *apiv = nl_json_get_string(in, "apiVersion");
	if (apiv && *apiv && strcmp(apiv, r->api_version) != 0) {
		mock_response_status(resp,
		                     nl_status_newf(400, "BadRequest",
		                                    "the API version in the data (%s) does not "
		                                    "match the expected API version (%s)",
		                                    apiv, r->api_version));
		json_object_put(in);
		return NULL;
	}
	if (kind && *kind && strcmp(kind, r->kind) != 0) {
		mock_response_status(
		    resp, nl_status_newf(400, "BadRequest",
		                         "%s in version \"%s\" cannot be handled as a %s: no kind "
		                         "\"%s\" is registered for version \"%s\"",
		                         kind, r->version, r->kind, kind, r->api_version));
		json_object_put(in);
		return NULL;
	}

	json_object *obj = NULL;
	mock_unknown_fields unknown = {0};
	nl_err err = {0};
	int rc = mock_schema_decode(&obj, r, in, &unknown, &err);
	json_object_put(in);
	if (rc != 0) {
		mock_response_status(resp,
		                     nl_status_newf(400, "BadRequest",
		                                    "%s in version \"%s\" cannot be handled as "
		                                    "a %s: %s",
		                                    r->kind, r->version, r->kind, err.msg));
		return NULL;
	}
	const char *validation = mock_request_query(req, "fieldValidation");
	if (unknown.n > 0 && validation && strcmp(validation, "Strict") == 0) {
		nl_buf msg;
		nl_buf_init(&msg, 64 * 1024);
		nl_buf_adds(&msg, "strict decoding error: ");
		for (size_t i = 0; i < unknown.n; i++)
			nl_buf_printf(&msg, "%sunknown field \"%s\"", i ? ", " : "",
			              unknown.paths[i]);
		mock_response_status(resp, nl_status_bad_request(msg.data));
		nl_buf_free(&msg);
		mock_unknown_fields_free(&unknown);
		json_object_put(obj);
		return NULL;
	}
	if (!validation || strcmp(validation, "Ignore") != 0) {
		for (size_t i = 0; i < unknown.n; i++) {
			char w[300];
			snprintf(w, sizeof(w), "unknown field \\\"%s\\\"", unknown.paths[i]);
			mock_response_warn(resp, w);
		}
	}
	mock_unknown_fields_free(&unknown);
	return obj;
}

/* Write hook state: the resource and which endpoint (main or /status). */
typedef struct {
	const mock_resource *r;
	int status_subresource;
	const char *name;
} write_ctx;

static void copy_field(json_object *dst, json_object *src, const char *key)
{
	json_object *v = NULL;
	json_object_object_del(dst, key);
	if (src && json_object_object_get_ex(src, key, &v))
		json_object_object_add(dst, key, json_object_get(v));
}

/* Under the store's write lock: the strategy's PrepareForUpdate (a main
 * resource write keeps the stored status, a status write keeps the stored
 * spec), defaults on create, then validation. */
static nl_status *write_hook(json_object *obj, json_object *old, void *payload)
{
	write_ctx *c = payload;
	if (old && c->r->has_status)
		copy_field(obj, old, c->status_subresource ? "spec" : "status");
	if (old && c->r->prepare_update)
		c->r->prepare_update(obj, old);
	if (!old && c->r->prepare_create)
		c->r->prepare_create(obj);

	mock_ferrs errs;
	mock_ferrs_init(&errs);
	mock_validate_object(&errs, c->r, obj, old);
	nl_status *st = NULL;
	if (errs.n > 0)
		st = mock_ferrs_to_status(&errs, c->r->kind, c->r->group, c->name);
	mock_ferrs_free(&errs);
	return st;
}

/* generateName: the apiserver appends 5 characters from this alphabet. */
static void generate_name(json_object *obj)
{
	static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
	const char *prefix = nl_json_get_string(obj, "metadata.generateName");
	const char *name = nl_meta_name(obj);
	if ((name && *name) || !prefix || !*prefix)
		return;
	char uuid[MOCK_UUID_LEN + 1];
	char buf[300];
	mock_uuid_v4(uuid); /* a cheap source of randomness */
	size_t n = strlen(prefix);
	if (n > 253 - 5)
		n = 253 - 5;
	memcpy(buf, prefix, n);
	for (int i = 0; i < 5; i++)
		buf[n + (size_t)i] = alphabet[(unsigned char)uuid[i * 7] % (sizeof(alphabet) - 1)];
	buf[n + 5] = '\0';
	nl_meta_set_string(obj, "name", buf);
}

/* The namespace rule shared by create and update: a namespaced object takes
 * the URL's namespace unless it names a different one (400); cluster-scoped
 * objects never carry one. */
static int settle_namespace(json_object *obj, const mock_route *rt, mock_response *resp)
{
	const char *ns = nl_meta_namespace(obj);
	if (!rt->res->namespaced) {
		nl_meta_set_string(obj, "namespace", NULL);
		return 0;
	}
	if (ns && *ns && strcmp(ns, rt->ns) != 0) {
		mock_response_status(resp, nl_status_bad_request("the namespace of the provided "
		                                                 "object does not match the "
		                                                 "namespace sent on the request"));
		return -1;
	}
	nl_meta_set_string(obj, "namespace", rt->ns);
	return 0;
}

static int dry_run(const mock_request *req)
{
	const char *d = mock_request_query(req, "dryRun");
	return d && strcmp(d, "All") == 0;
}

void mock_handle_create(mock_api *api, const mock_route *rt, const mock_request *req,
                        mock_response *resp)
{
	json_object *obj = decode_body(rt->res, req, resp);
	if (!obj)
		return;
	if (settle_namespace(obj, rt, resp) != 0)
		goto done;
	generate_name(obj);
	if (dry_run(req)) {
		mock_response_status(resp, nl_status_bad_request("dryRun is not supported by this "
		                                                 "nodelet-mockapi"));
		goto done;
	}
	const char *name = nl_meta_name(obj);
	write_ctx c = {rt->res, 0, name ? name : ""};
	char *json = NULL;
	size_t len = 0;
	nl_status *st = NULL;
	if (mock_store_write(api->store, rt->res, MOCK_WRITE_CREATE, obj, write_hook, &c, &json,
	                     &len, NULL, &st) != 0)
		mock_response_status(resp, st);
	else
		answer_bytes(resp, 201, json, len);
done:
	json_object_put(obj);
}

void mock_handle_update(mock_api *api, const mock_route *rt, const mock_request *req,
                        mock_response *resp)
{
	json_object *obj = decode_body(rt->res, req, resp);
	if (!obj)
		return;
	const char *name = nl_meta_name(obj);
	if (!name || strcmp(name, rt->name) != 0) {
		mock_response_status(resp, nl_status_newf(400, "BadRequest",
		                                          "the name of the object (%s) does not "
		                                          "match the name on the URL (%s)",
		                                          name ? name : "", rt->name));
		goto done;
	}
	if (settle_namespace(obj, rt, resp) != 0)
		goto done;
	if (dry_run(req)) {
		mock_response_status(resp, nl_status_bad_request("dryRun is not supported by this "
		                                                 "nodelet-mockapi"));
		goto done;
	}
	write_ctx c = {rt->res, rt->subresource[0] != '\0', rt->name};
	char *json = NULL;
	size_t len = 0;
	int created = 0;
	nl_status *st = NULL;
	if (mock_store_write(api->store, rt->res, MOCK_WRITE_UPDATE, obj, write_hook, &c, &json,
	                     &len, &created, &st) != 0)
		mock_response_status(resp, st);
	else
		answer_bytes(resp, created ? 201 : 200, json, len);
done:
	json_object_put(obj);
}

/* DeleteOptions from the body (preconditions); NULL body is fine. */
static int parse_delete_options(json_object **out, const mock_request *req, mock_response *resp)
{
	*out = NULL;
	if (!req->body || req->body_len == 0)
		return 0;
	json_object *o = json_tokener_parse(req->body);
	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		mock_response_status(resp, nl_status_bad_request("the body of the request was in "
		                                                 "an unknown format - accepted "
		                                                 "media types include: "
		                                                 "application/json"));
		return -1;
	}
	*out = o;
	return 0;
}

/* Namespaces are returned, not summarized, when deleted (ReturnDeletedObject
 * in the namespace registry); nodelet-mockapi removes them at once but
 * answers with the Terminating object a client expects. */
static void answer_deleted_namespace(mock_api *api, mock_response *resp, const char *json)
{
	json_object *o = json_tokener_parse(json);
	json_object *status = o ? nl_json_get_path(o, "status") : NULL;
	char ts[NL_TIME_BUFSZ];
	if (!o) {
		mock_response_status(resp, nl_status_internal("stored namespace is not JSON"));
		return;
	}
	nl_time_format(ts, nl_time_now());
	nl_meta_set_string(o, "deletionTimestamp", ts);
	if (status)
		json_object_object_add(status, "phase", json_object_new_string("Terminating"));
	size_t len = 0;
	const char *text = nl_json_compact(o, &len);
	mock_response_json(resp, 200, text, len);
	json_object_put(o);
	(void)api;
}

void mock_handle_delete(mock_api *api, const mock_route *rt, const mock_request *req,
                        mock_response *resp)
{
	json_object *opts = NULL;
	if (parse_delete_options(&opts, req, resp) != 0)
		return;
	const char *pre_uid = opts ? nl_json_get_string(opts, "preconditions.uid") : NULL;
	const char *pre_rv =
	    opts ? nl_json_get_string(opts, "preconditions.resourceVersion") : NULL;
	char *json = NULL;
	size_t len = 0;
	nl_status *st = NULL;
	if (mock_store_delete(api->store, rt->res, rt_ns(rt), rt->name, pre_uid, pre_rv, &json,
	                      &len, &st) != 0) {
		mock_response_status(resp, st);
	} else if (rt->res->id == MOCK_KIND_NAMESPACE) {
		answer_deleted_namespace(api, resp, json);
	} else {
		json_object *o = json_tokener_parse(json);
		nl_gr gr = mock_resource_gr(rt->res);
		mock_response_status(
		    resp, nl_status_success_delete(&gr, rt->name, o ? nl_meta_uid(o) : NULL));
		json_object_put(o);
	}
	free(json);
	json_object_put(opts);
}
