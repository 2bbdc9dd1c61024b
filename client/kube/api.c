/* Generic object operations: build the request (path, query, body,
 * Content-Type), run it blocking or on the loop, decode the answer. */
#include <limits.h>
#include <nodelet/api.h>
#include <nodelet/json_text.h>
#include <nodelet/meta.h>
#include <nodelet/protobuf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube.h"

const nl_resource nl_resource_leases = {"coordination.k8s.io", "v1", "leases", "Lease", 1};
const nl_resource nl_resource_nodes = {"", "v1", "nodes", "Node", 0};
const nl_resource nl_resource_configmaps = {"", "v1", "configmaps", "ConfigMap", 1};
const nl_resource nl_resource_events = {"", "v1", "events", "Event", 1};
const nl_resource nl_resource_namespaces = {"", "v1", "namespaces", "Namespace", 0};

/* Bodies of list answers can be large; parse them with the client's cap. */
#define DEFAULT_PAGE 500

static int add_segment(nl_buf *b, const char *s)
{
	char *e = curl_easy_escape(NULL, s, 0);
	if (!e)
		return NL_ENOMEM;
	int rc = nl_buf_printf(b, "/%s", e);
	curl_free(e);
	return rc;
}

int nl_api_path(char *out, size_t outlen, const nl_resource *r, const char *ns, const char *name,
                const char *subresource)
{
	nl_buf b;
	int rc;
	if (!r || !r->resource || !r->version || (subresource && !name))
		return NL_EINVAL;
	nl_buf_init(&b, outlen ? outlen - 1 : 0);
	if (r->group && *r->group)
		rc = nl_buf_printf(&b, "/apis/%s/%s", r->group, r->version);
	else
		rc = nl_buf_printf(&b, "/api/%s", r->version);
	if (!rc && r->namespaced && ns && *ns)
		rc = nl_buf_adds(&b, "/namespaces");
	if (!rc && r->namespaced && ns && *ns)
		rc = add_segment(&b, ns);
	if (!rc)
		rc = nl_buf_printf(&b, "/%s", r->resource);
	if (!rc && name)
		rc = add_segment(&b, name);
	if (!rc && subresource)
		rc = nl_buf_printf(&b, "/%s", subresource);
	if (!rc && outlen == 0)
		rc = NL_ETOOBIG;
	if (!rc)
		memcpy(out, b.data, b.len + 1);
	nl_buf_free(&b);
	return rc;
}

const char *nl_patch_content_type(nl_patch_type t)
{
	switch (t) {
	case NL_PATCH_JSON:
		return "application/json-patch+json";
	case NL_PATCH_MERGE:
		return "application/merge-patch+json";
	case NL_PATCH_STRATEGIC:
		return "application/strategic-merge-patch+json";
	case NL_PATCH_APPLY:
		return "application/apply-patch+yaml";
	}
	return "";
}

void nl_delete_options_init(nl_delete_options *o)
{
	memset(o, 0, sizeof(*o));
	o->grace_period_seconds = -1;
}

/* ---- building a request -------------------------------------------------------- */

typedef struct {
	const char *method;
	nl_buf path;
	char *body; /* owned */
	size_t body_len;
	const char *content_type;
} op;

static int op_init(op *o, const char *method, const char *path)
{
	memset(o, 0, sizeof(*o));
	o->method = method;
	nl_buf_init(&o->path, 0);
	return path && path[0] == '/' ? nl_buf_adds(&o->path, path) : NL_EINVAL;
}

static void op_free(op *o)
{
	nl_buf_free(&o->path);
	free(o->body);
}

static int query(op *o, const char *key, const char *value)
{
	if (!value)
		return 0;
	char *e = curl_easy_escape(NULL, value, 0);
	if (!e)
		return NL_ENOMEM;
	int rc = nl_buf_printf(&o->path, "%c%s=%s", strchr(o->path.data, '?') ? '&' : '?', key, e);
	curl_free(e);
	return rc;
}

static int query_long(op *o, const char *key, long v)
{
	char num[32];
	snprintf(num, sizeof(num), "%ld", v);
	return query(o, key, num);
}

static int body_json(op *o, json_object *obj)
{
	size_t len;
	const char *s = nl_json_compact(obj, &len);
	if (!s)
		return NL_ENOMEM;
	o->body = malloc(len + 1);
	if (!o->body)
		return NL_ENOMEM;
	memcpy(o->body, s, len + 1);
	o->body_len = len;
	o->content_type = "application/json";
	return 0;
}

/* A POST or PUT body (DeleteOptions too) in the client's wire format, as
 * client-go's Body(obj) encodes with the client's serializer. A kind
 * without a protobuf schema (nl_schema_for_kind) goes as JSON: client-go's
 * dynamic client does the same for what has no protobuf form. */
static int body_object(op *o, nl_client *c, json_object *obj)
{
	if (nl_client_content_type(c) != NL_CONTENT_PROTOBUF)
		return body_json(o, obj);
	nl_buf b;
	nl_buf_init(&b, 0);
	int rc = nl_pb_encode_object(&b, obj);
	if (rc == NL_EUNSUPPORTED) {
		nl_buf_free(&b);
		return body_json(o, obj);
	}
	if (rc == 0) {
		o->body = nl_buf_detach(&b, &o->body_len);
		rc = o->body ? 0 : NL_ENOMEM;
		o->content_type = NL_PB_CONTENT_TYPE;
	}
	nl_buf_free(&b);
	return rc;
}

static int list_query(op *o, const nl_list_options *lo)
{
	int rc = 0;
	if (!lo)
		return 0;
	if (!rc)
		rc = query(o, "labelSelector", lo->label_selector);
	if (!rc)
		rc = query(o, "fieldSelector", lo->field_selector);
	if (!rc)
		rc = query(o, "resourceVersion", lo->resource_version);
	if (!rc)
		rc = query(o, "resourceVersionMatch", lo->resource_version_match);
	if (!rc && lo->limit > 0)
		rc = query_long(o, "limit", lo->limit);
	if (!rc)
		rc = query(o, "continue", lo->continue_token);
	if (!rc && lo->timeout_seconds > 0)
		rc = query_long(o, "timeoutSeconds", lo->timeout_seconds);
	return rc;
}

static int write_query(op *o, const nl_write_options *wo)
{
	int rc = 0;
	if (!wo)
		return 0;
	if (!rc && wo->dry_run)
		rc = query(o, "dryRun", "All");
	if (!rc)
		rc = query(o, "fieldManager", wo->field_manager);
	if (!rc)
		rc = query(o, "fieldValidation", wo->field_validation);
	if (!rc && wo->force)
		rc = query(o, "force", "true");
	return rc;
}

/* DeleteOptions as kubectl sends it, or no body when nothing is set. */
static int delete_body(op *o, nl_client *c, const nl_delete_options *d)
{
	if (!d || (!d->precondition_uid && !d->precondition_resource_version &&
	           !d->propagation_policy && d->grace_period_seconds < 0 && !d->dry_run))
		return 0;
	json_object *b = json_object_new_object();
	if (!b)
		return NL_ENOMEM;
	json_object_object_add(b, "kind", json_object_new_string("DeleteOptions"));
	json_object_object_add(b, "apiVersion", json_object_new_string("v1"));
	if (d->grace_period_seconds >= 0)
		json_object_object_add(b, "gracePeriodSeconds",
		                       json_object_new_int64(d->grace_period_seconds));
	if (d->precondition_uid || d->precondition_resource_version) {
		json_object *p = json_object_new_object();
		if (d->precondition_uid)
			json_object_object_add(p, "uid",
			                       json_object_new_string(d->precondition_uid));
		if (d->precondition_resource_version)
			json_object_object_add(
			    p, "resourceVersion",
			    json_object_new_string(d->precondition_resource_version));
		json_object_object_add(b, "preconditions", p);
	}
	if (d->propagation_policy)
		json_object_object_add(b, "propagationPolicy",
		                       json_object_new_string(d->propagation_policy));
	if (d->dry_run) {
		json_object *a = json_object_new_array();
		json_object_array_add(a, json_object_new_string("All"));
		json_object_object_add(b, "dryRun", a);
	}
	int rc = body_object(o, c, b);
	json_object_put(b);
	return rc;
}

static void op_request(nl_request *r, const op *o)
{
	memset(r, 0, sizeof(*r));
	r->method = o->method;
	r->path = o->path.data;
	r->body = o->body;
	r->body_len = o->body_len;
	r->content_type = o->content_type;
}

/* ---- running it ----------------------------------------------------------------- */

/* The answer by its Content-Type: protobuf into the JSON tree the same
 * object has in JSON (nl_pb_decode_object), anything else as JSON. */
static int decode(json_object **out, const char *content_type, const char *body, size_t len,
                  nl_result *res)
{
	if (nl__is_protobuf(content_type)) {
		nl_err err = {0};
		json_object *obj = NULL;
		int rc = nl_pb_decode_object(&obj, NULL, body, len, &err);
		if (rc != 0)
			return nl__result_fail(res, rc == NL_ENOMEM ? NL_ENOMEM : NL_EPARSE,
			                       "decoding the server's answer: %s", err.msg);
		*out = obj;
		return 0;
	}
	/* Strings as Go's decoder reads them (json_text.h): a NUL in a key
	 * must not shorten it (a ConfigMap key becomes a file name). */
	char *clean = NULL;
	size_t clean_len = len;
	json_tokener *tok = json_tokener_new();
	if (!tok || nl_json_text_clean(&clean, &clean_len, body, len) != 0 || clean_len > INT_MAX) {
		json_tokener_free(tok);
		free(clean);
		return nl__result_fail(res, NL_ENOMEM, "out of memory");
	}
	json_object *obj = json_tokener_parse_ex(tok, clean ? clean : body, (int)clean_len);
	enum json_tokener_error e = json_tokener_get_error(tok);
	json_tokener_free(tok);
	free(clean);
	if (!obj || e != json_tokener_success) {
		json_object_put(obj);
		return nl__result_fail(res, NL_EPARSE, "decoding the server's answer: %s",
		                       e == json_tokener_success ? "not a JSON object"
		                                                 : json_tokener_error_desc(e));
	}
	*out = obj;
	return 0;
}

/* Run o blocking; out NULL discards the answer. Frees o. */
static int run(json_object **out, nl_client *c, op *o, int rc, nl_result *res)
{
	nl_result local = NL_RESULT_INIT;
	nl_result *r = res ? res : &local;
	nl_response resp = {0};
	nl_request req;
	if (rc != 0) {
		nl__result_reset(r);
		nl__result_fail(r, rc, rc == NL_ENOMEM ? "out of memory" : "invalid request");
		goto done;
	}
	op_request(&req, o);
	rc = nl_client_do(&resp, c, &req, r);
	if (rc == 0 && out) {
		json_object *obj = NULL;
		rc = decode(&obj, resp.content_type, resp.body, resp.body_len, r);
		if (rc == 0)
			*out = obj;
	}
	nl_response_clear(&resp);
done:
	op_free(o);
	if (!res)
		nl__result_reset(&local);
	return rc;
}

int nl_api_get(json_object **out, nl_client *c, const char *path, nl_result *res)
{
	op o;
	int rc = op_init(&o, "GET", path);
	return run(out, c, &o, rc, res);
}

int nl_api_list(json_object **out, nl_client *c, const char *path, const nl_list_options *lo,
                nl_result *res)
{
	op o;
	int rc = op_init(&o, "GET", path);
	if (!rc)
		rc = list_query(&o, lo);
	return run(out, c, &o, rc, res);
}

int nl_api_create(json_object **out, nl_client *c, const char *path, json_object *obj,
                  const nl_write_options *wo, nl_result *res)
{
	op o;
	int rc = op_init(&o, "POST", path);
	if (!rc)
		rc = obj ? body_object(&o, c, obj) : NL_EINVAL;
	if (!rc)
		rc = write_query(&o, wo);
	return run(out, c, &o, rc, res);
}

int nl_api_update(json_object **out, nl_client *c, const char *path, json_object *obj,
                  const nl_write_options *wo, nl_result *res)
{
	op o;
	int rc = op_init(&o, "PUT", path);
	if (!rc)
		rc = obj ? body_object(&o, c, obj) : NL_EINVAL;
	if (!rc)
		rc = write_query(&o, wo);
	return run(out, c, &o, rc, res);
}

static int patch_op(op *o, const char *path, nl_patch_type type, const char *patch, size_t len,
                    const nl_write_options *wo)
{
	int rc = op_init(o, "PATCH", path);
	if (rc)
		return rc;
	if (!patch || !*nl_patch_content_type(type))
		return NL_EINVAL;
	o->body = malloc(len + 1);
	if (!o->body)
		return NL_ENOMEM;
	memcpy(o->body, patch, len);
	o->body[len] = '\0';
	o->body_len = len;
	o->content_type = nl_patch_content_type(type);
	return write_query(o, wo);
}

int nl_api_patch(json_object **out, nl_client *c, const char *path, nl_patch_type type,
                 const char *patch, size_t len, const nl_write_options *wo, nl_result *res)
{
	op o;
	int rc = patch_op(&o, path, type, patch, len, wo);
	return run(out, c, &o, rc, res);
}

int nl_api_delete(json_object **out, nl_client *c, const char *path, const nl_delete_options *d,
                  nl_result *res)
{
	op o;
	int rc = op_init(&o, "DELETE", path);
	if (!rc)
		rc = delete_body(&o, c, d);
	return run(out, c, &o, rc, res);
}

/* ---- list_all --------------------------------------------------------------------- */

static int list_pages(json_object **out, nl_client *c, const char *path, nl_list_options lo,
                      nl_result *res)
{
	json_object *all = NULL, *page = NULL;
	char *token = NULL;
	int rc;
	if (lo.limit <= 0)
		lo.limit = DEFAULT_PAGE;
	for (;;) {
		lo.continue_token = token;
		rc = nl_api_list(&page, c, path, &lo, res);
		free(token);
		token = NULL;
		if (rc != 0)
			break;
		const char *next = nl_json_get_string(page, "metadata.continue");
		if (next && *next && !(token = strdup(next))) {
			rc = nl__result_fail(res, NL_ENOMEM, "out of memory");
			break;
		}
		if (!all) {
			all = page;
		} else {
			json_object *items = NULL, *dst = NULL;
			if (json_object_object_get_ex(page, "items", &items) &&
			    json_object_object_get_ex(all, "items", &dst))
				for (size_t i = 0; i < json_object_array_length(items); i++)
					json_object_array_add(
					    dst,
					    json_object_get(json_object_array_get_idx(items, i)));
			json_object_put(page);
		}
		page = NULL;
		if (!token)
			break;
	}
	if (rc != 0) {
		json_object_put(all);
		return rc;
	}
	json_object *meta = nl_json_get_path(all, "metadata");
	if (meta) {
		json_object_object_del(meta, "continue");
		json_object_object_del(meta, "remainingItemCount");
	}
	*out = all;
	return 0;
}

int nl_api_list_all(json_object **out, nl_client *c, const char *path, const nl_list_options *lo,
                    nl_result *res)
{
	nl_list_options o = {0};
	if (lo)
		o = *lo;
	o.continue_token = NULL;
	int rc = list_pages(out, c, path, o, res);
	/* client-go's pager: an expired continue token means list it whole. */
	if (rc == NL_EGONE && o.limit >= 0) {
		o.limit = 0;
		o.continue_token = NULL;
		rc = nl_api_list(out, c, path, &o, res);
	}
	return rc;
}

/* ---- on the loop ---------------------------------------------------------------------- */

typedef struct {
	nl_object_cb cb;
	void *payload;
} async_ctx;

static void async_done(nl_response *resp, const nl_result *res, void *payload)
{
	async_ctx *ctx = payload;
	if (res->code != 0) {
		ctx->cb(NULL, res, ctx->payload);
		return;
	}
	nl_result mine = NL_RESULT_INIT;
	json_object *obj = NULL;
	mine.http_status = res->http_status;
	mine.attempts = res->attempts;
	if (decode(&obj, resp ? resp->content_type : "", resp ? resp->body : "",
	           resp ? resp->body_len : 0, &mine) == 0) {
		ctx->cb(obj, res, ctx->payload);
		json_object_put(obj);
	} else {
		ctx->cb(NULL, &mine, ctx->payload);
	}
	nl__result_reset(&mine);
}

static int send_op(nl_call **out, nl_client *c, op *o, int rc, nl_object_cb cb, void *payload)
{
	async_ctx *ctx = NULL;
	nl_request req;
	if (rc == 0 && !cb)
		rc = NL_EINVAL;
	if (rc == 0 && !(ctx = malloc(sizeof(*ctx))))
		rc = NL_ENOMEM;
	if (rc == 0) {
		ctx->cb = cb;
		ctx->payload = payload;
		op_request(&req, o);
		rc = nl__client_send(out, c, &req, async_done, ctx, free);
		if (rc != 0)
			free(ctx);
	}
	op_free(o);
	return rc;
}

int nl_api_get_async(nl_call **out, nl_client *c, const char *path, nl_object_cb cb, void *payload)
{
	op o;
	int rc = op_init(&o, "GET", path);
	return send_op(out, c, &o, rc, cb, payload);
}

int nl_api_list_async(nl_call **out, nl_client *c, const char *path, const nl_list_options *lo,
                      nl_object_cb cb, void *payload)
{
	op o;
	int rc = op_init(&o, "GET", path);
	if (!rc)
		rc = list_query(&o, lo);
	return send_op(out, c, &o, rc, cb, payload);
}

int nl_api_create_async(nl_call **out, nl_client *c, const char *path, json_object *obj,
                        const nl_write_options *wo, nl_object_cb cb, void *payload)
{
	op o;
	int rc = op_init(&o, "POST", path);
	if (!rc)
		rc = obj ? body_object(&o, c, obj) : NL_EINVAL;
	if (!rc)
		rc = write_query(&o, wo);
	return send_op(out, c, &o, rc, cb, payload);
}

int nl_api_update_async(nl_call **out, nl_client *c, const char *path, json_object *obj,
                        const nl_write_options *wo, nl_object_cb cb, void *payload)
{
	op o;
	int rc = op_init(&o, "PUT", path);
	if (!rc)
		rc = obj ? body_object(&o, c, obj) : NL_EINVAL;
	if (!rc)
		rc = write_query(&o, wo);
	return send_op(out, c, &o, rc, cb, payload);
}

int nl_api_patch_async(nl_call **out, nl_client *c, const char *path, nl_patch_type type,
                       const char *patch, size_t len, const nl_write_options *wo, nl_object_cb cb,
                       void *payload)
{
	op o;
	int rc = patch_op(&o, path, type, patch, len, wo);
	return send_op(out, c, &o, rc, cb, payload);
}

int nl_api_delete_async(nl_call **out, nl_client *c, const char *path, const nl_delete_options *d,
                        nl_object_cb cb, void *payload)
{
	op o;
	int rc = op_init(&o, "DELETE", path);
	if (!rc)
		rc = delete_body(&o, c, d);
	return send_op(out, c, &o, rc, cb, payload);
}
