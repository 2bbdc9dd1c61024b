/* POST and PUT (handlers.h) as kube-apiserver's create and update
 * handlers run them, in its order (options → decode → name/namespace →
 * store checks → the strategy and validation, outside the store's lock,
 * 0027), and
 * the write hook PATCH shares. */
#include <nodelet/meta.h>
#include <nodelet/time.h>
#include <stdio.h>
#include <string.h>

#include "api/schema.h"
#include "api/validation.h"
#include "auth/access.h"
#include "core/json.h"
#include "core/uuid.h"
#include "handlers_internal.h"
#include "patch/managed_fields.h"
#include "storage/store.h"
#include "write_request.h"

/* "the object provided is unrecognized ..." with the apiserver's 30-byte
 * summary of the body. */
static nl_status *unrecognized(const mock_resource *r, const char *why, const char *body,
                               size_t len)
{
	char summary[MOCK_BODY_SUMMARY_SIZE];
	mock_body_summary(summary, body, len);
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
	json_object *in = NULL;
	enum json_tokener_error jerr = json_tokener_success;
	size_t used = 0;
	if (mock_parse_body(&in, req->body, req->body_len, &jerr, &used) != 0) {
		mock_response_status(resp, nl_status_internal("out of memory"));
		return NULL;
	}
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
	if (nl_json_has_non_finite(in)) {
		json_object_put(in);
		char why[128];
		snprintf(why, sizeof(why),
		         "couldn't get version/kind; json parse error: invalid character '%c' "
		         "looking for beginning of value",
		         strstr(req->body, "NaN") ? 'N' : 'I');
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
	nl_buf msg;
	nl_buf_init(&msg, 64 * 1024);
	int rc = mock_decode_typed(&obj, r, in, req, resp, &msg);
	json_object_put(in);
	/* A NUL in the name or namespace marked before anything (the store's
	 * key, the URL's namespace) takes them as C strings (validation.h). */
	if (rc == 0 && mock_meta_mark_nuls(obj) != 0) {
		json_object_put(obj);
		obj = NULL;
		rc = NL_ENOMEM;
	}
	if (rc == NL_EPARSE)
		mock_response_status(resp,
		                     nl_status_newf(400, "BadRequest",
		                                    "%s in version \"%s\" cannot be handled as "
		                                    "a %s: %s",
		                                    r->kind, r->version, r->kind, msg.data));
	else if (rc == NL_EBADREQUEST)
		mock_response_status(resp, nl_status_bad_request(msg.data));
	else if (rc)
		mock_response_status(resp, nl_status_internal("out of memory"));
	nl_buf_free(&msg);
	return rc ? NULL : obj;
}

static void copy_field(json_object *dst, json_object *src, const char *key)
{
	json_object *v = NULL;
	json_object_object_del(dst, key);
	if (src && json_object_object_get_ex(src, key, &v))
		json_object_object_add(dst, key, json_object_get(v));
}

/* Run by the store outside its lock, again if the object changed meanwhile
 * (0027): the strategy's PrepareForUpdate (a main
 * resource write keeps the stored status, a status write keeps the stored
 * spec), defaults on create, the manager's managedFields entry (after the
 * resets, so fields the endpoint resets are nobody's), then validation. */
nl_status *mock_write_prepare(json_object *obj, json_object *old, void *payload)
{
	mock_write_ctx *c = payload;
	/* A patch may have set a name with a NUL (validation.h). */
	if (mock_meta_mark_nuls(obj) != 0)
		return nl_status_internal("out of memory");
	/* NodeRestriction (access.h) sees the object as sent, before the
	 * endpoint's resets, as admission precedes the strategy upstream. */
	nl_status *denied =
	    mock_access_admit(c->api ? c->api->access : NULL, c->req, c->r, c->name, obj, old);
	if (denied)
		return denied;
	int finalize = strcmp(c->subresource, "finalize") == 0;
	if (old && c->r->prepare_endpoint) {
		/* a kind whose endpoints keep more than spec or status (CSRs) */
		c->r->prepare_endpoint(obj, old, c->subresource, c->now);
	} else if (old && (c->r->has_status || finalize)) {
		/* /finalize keeps status as the main resource does (the
		 * namespace's FinalizeStrategy), /status keeps spec. */
		copy_field(obj, old, c->status_subresource && !finalize ? "spec" : "status");
		/* The copied field went last in json-c's order: back to Go's
		 * (spec before status), as the apiserver writes it. */
		if (mock_schema_sort_object(obj, c->r->schema) != 0)
			return nl_status_internal("out of memory");
	}
	/* The main resource's PrepareForUpdate; the subresources have theirs. */
	if (old && c->r->prepare_update && !c->status_subresource)
		c->r->prepare_update(obj, old);
	if (!old && c->r->prepare_create)
		c->r->prepare_create(obj);
	if (!old && c->r->prepare_create_as)
		c->r->prepare_create_as(obj, c->req);
	if (mock_managed_update(obj, old, c->r, c->manager, c->subresource, c->now) != 0)
		return nl_status_internal("out of memory");

	mock_ferrs errs;
	mock_ferrs_init(&errs);
	mock_validate_object_at(&errs, c->r, obj, old, c->subresource);
	if (old && c->r->id == MOCK_KIND_NAMESPACE && strcmp(c->subresource, "status") == 0)
		mock_validate_namespace_status(&errs, obj);
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

/* Create/UpdateOptions (422) before the body is read, as the apiserver. */
int mock__handlers_check_options(const mock_request *req, const char *kind, mock_response *resp)
{
	nl_status *st = NULL;
	if (mock_check_write_options(&st, req, kind) == 0)
		return 0;
	mock_response_status(resp, st ? st : nl_status_internal("out of memory"));
	return -1;
}

/* nl_time_format, remembered per thread for the current second: the text
 * changes once a second and formatting it cost ~3k instructions a write. */
static void format_now(char out[NL_TIME_BUFSZ], int64_t usec)
{
	static _Thread_local int64_t sec = -1;
	static _Thread_local char text[NL_TIME_BUFSZ];
	if (usec < 0) {
		nl_time_format(out, usec);
		return;
	}
	if (usec / 1000000 != sec) {
		nl_time_format(text, usec);
		sec = usec / 1000000;
	}
	memcpy(out, text, NL_TIME_BUFSZ);
}

void mock_write_ctx_init(mock_write_ctx *c, mock_api *api, const mock_route *rt,
                         const mock_request *req, const char *name)
{
	memset(c, 0, sizeof(*c));
	c->r = rt->res;
	c->status_subresource = rt->subresource[0] != '\0';
	c->subresource = rt->subresource;
	c->name = name ? name : "";
	mock_field_manager(c->manager_buf, req);
	c->manager = c->manager_buf;
	format_now(c->now, mock_store_now(api->store));
	c->api = api;
	c->req = req;
}

void mock_handle_create(mock_api *api, const mock_route *rt, const mock_request *req,
                        mock_response *resp)
{
	if (mock__handlers_check_options(req, "CreateOptions", resp) != 0)
		return;
	json_object *obj = decode_body(rt->res, req, resp);
	if (!obj)
		return;
	if (settle_namespace(obj, rt, resp) != 0)
		goto done;
	generate_name(obj);
	mock_write_ctx c;
	mock_write_ctx_init(&c, api, rt, req, nl_meta_name(obj));
	unsigned flags = mock_dry_run(req) ? MOCK_WRITE_F_DRY_RUN : 0;
	char *json = NULL;
	size_t len = 0;
	nl_status *st = NULL;
	if (mock_store_write_ex(api->store, rt->res, MOCK_WRITE_CREATE, flags, obj,
	                        mock_write_prepare, &c, &json, &len, NULL, &st) != 0)
		mock_response_status(resp, st);
	else
		mock_response_json_take(resp, 201, json, len);
done:
	json_object_put(obj);
}

void mock_handle_update(mock_api *api, const mock_route *rt, const mock_request *req,
                        mock_response *resp)
{
	if (mock__handlers_check_options(req, "UpdateOptions", resp) != 0)
		return;
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
	mock_write_ctx c;
	mock_write_ctx_init(&c, api, rt, req, rt->name);
	unsigned flags = mock_dry_run(req) ? MOCK_WRITE_F_DRY_RUN : 0;
	char *json = NULL;
	size_t len = 0;
	int created = 0;
	nl_status *st = NULL;
	if (mock_store_write_ex(api->store, rt->res, MOCK_WRITE_UPDATE, flags, obj,
	                        mock_write_prepare, &c, &json, &len, &created, &st) != 0)
		mock_response_status(resp, st);
	else
		mock_response_json_take(resp, created ? 201 : 200, json, len);
done:
	json_object_put(obj);
}
