/* PATCH (handlers.h), as kube-apiserver's PatchResource and its patcher:
 * content type (415), PatchOptions (422), then in a loop: read the current
 * object, apply the patch to it (patch.h engines or server-side apply),
 * decode the result as the kind's Go type, check its name, and store it as
 * an update conditional on the resourceVersion read, so a concurrent write
 * makes the loop start over, unless the patch itself set
 * metadata.resourceVersion: then a stale one is the client's 409. */
#include <nodelet/buf.h>
#include <nodelet/doc.h>
#include <nodelet/json_text.h>
#include <nodelet/meta.h>
#include <nodelet/quote.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/query.h"
#include "handlers.h"
#include "patch/apply.h"
#include "patch/patch.h"
#include "storage/store.h"
#include "write_request.h"

/* GuaranteedUpdate retries as long as the object keeps changing; a bound
 * keeps a pathological writer from pinning a thread. 16 was too few: with
 * four writers on two cores one writer lost 16 races in a row and got a
 * 409 no apiserver would send (test_patch_handler, CI). */
#define MAX_ATTEMPTS 1000
#define OPTIONS_GROUP "meta.k8s.io"

typedef enum { PT_JSON, PT_MERGE, PT_STRATEGIC, PT_APPLY } patch_type;

/* The order of the apiserver's 415 message. */
static const char *const patch_types[] = {
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
};

typedef struct {
	mock_api *api;
	const mock_route *rt;
	const mock_request *req;
	mock_response *resp;
	patch_type type;
	json_object *patch; /* the parsed body; json-c NULL for JSON null */
	int force;
	mock_write_ctx wc;
} patch_req;

/* The outcome of one attempt. */
typedef enum { DONE, RETRY } attempt;

static int answer(patch_req *p, nl_status *st)
{
	mock_response_status(p->resp, st ? st : nl_status_internal("out of memory"));
	return -1;
}

/* Content-Type without parameters ("; charset=utf-8"). */
static int parse_type(patch_type *out, const char *ct)
{
	size_t n = ct ? strcspn(ct, ";") : 0;
	while (n > 0 && (ct[n - 1] == ' ' || ct[n - 1] == '\t'))
		n--;
	for (size_t i = 0; ct && i < sizeof(patch_types) / sizeof(patch_types[0]); i++) {
		if (strlen(patch_types[i]) == n && strncmp(ct, patch_types[i], n) == 0) {
			*out = (patch_type)i;
			return 0;
		}
	}
	return -1;
}

static nl_status *unsupported_media_type(void)
{
	return nl_status_newf(415, "UnsupportedMediaType",
	                      "the body of the request was in an unknown format - accepted media "
	                      "types include: %s, %s, %s, %s",
	                      patch_types[0], patch_types[1], patch_types[2], patch_types[3]);
}

/* ValidatePatchOptions: force only with apply, apply needs a fieldManager,
 * then the checks every write shares. */
static int check_options(patch_req *p)
{
	const char *force = mock_request_query(p->req, "force");
	const char *fm = mock_request_query(p->req, "fieldManager");
	/* A *bool of PatchOptions: the codec's conversion, never an error. */
	p->force = mock_query_bool_value(force) == 1;
	nl_status *st = nl_status_invalid("PatchOptions", OPTIONS_GROUP, "");
	int rc = st ? 0 : NL_ENOMEM;
	if (rc == 0 && force && p->type != PT_APPLY)
		rc = nl_status_add_cause(st, NL_CAUSE_FORBIDDEN,
		                         "Forbidden: may not be specified for non-apply patch",
		                         "force");
	if (rc == 0 && p->type == PT_APPLY && (!fm || !*fm))
		rc = nl_status_add_cause(st, NL_CAUSE_REQUIRED,
		                         "Required value: is required for apply patch",
		                         "fieldManager");
	if (rc == 0)
		rc = mock_write_option_causes(st, p->req, 0);
	if (rc == 0 && st->ncauses == 0) {
		nl_status_free(st);
		return 0;
	}
	if (rc == 0)
		rc = nl_status_finish_invalid(st);
	if (rc) {
		nl_status_free(st);
		st = NULL;
	}
	return answer(p, st);
}

/* A JSON patch's paths are JSON pointers to member names: a NUL in one
 * is held as the body parser holds it in a name (NL_JSON_KEY_NUL), so that
 * "/data/ok\u0000x" names the key "ok\u0000x" (refused by validation, as
 * upstream refuses it), not "ok". */
static int mark_pointer_nuls(json_object *ops)
{
	static const char *const keys[] = {"path", "from"};
	for (size_t i = 0;
	     json_object_is_type(ops, json_type_array) && i < json_object_array_length(ops); i++) {
		json_object *op = json_object_array_get_idx(ops, i), *v = NULL;
		for (size_t k = 0; k < 2; k++) {
			if (!json_object_object_get_ex(op, keys[k], &v) ||
			    !json_object_is_type(v, json_type_string))
				continue;
			const char *s = json_object_get_string(v);
			size_t n = (size_t)json_object_get_string_len(v);
			if (strlen(s) == n)
				continue;
			char *marked = nl_json_key_mark(s, n);
			int rc = marked ? json_object_set_string(v, marked) : 0;
			free(marked);
			if (rc != 1)
				return NL_ENOMEM;
		}
	}
	return 0;
}

/* The body: YAML or JSON for apply, JSON for the others, with the
 * apiserver's 400 texts for the ones kubectl can send. */
static int parse_body(patch_req *p)
{
	const char *body = p->req->body ? p->req->body : "";
	size_t len = p->req->body_len;
	nl_err err = {0};
	if (p->type == PT_APPLY) {
		int rc = len ? nl_doc_parse_one(&p->patch, body, len, "<apply patch>", &err)
		             : ((p->patch = json_object_new_object()) ? 0 : NL_ENOMEM);
		if (rc == 0)
			return 0;
		return answer(
		    p, rc == NL_ENOMEM
		           ? NULL
		           : nl_status_newf(400, "BadRequest", "error decoding YAML: %s", err.msg));
	}
	/* The body parser's reading of strings (json.h): a NUL in a member
	 * name must not make "/data/ok\u0000x" or {"ok\u0000x":…} name "ok". */
	json_object *o = NULL;
	enum json_tokener_error jerr = json_tokener_success;
	size_t used = 0;
	if (mock_parse_body(&o, body, len, &jerr, &used) != 0)
		return answer(p, NULL);
	int complete = jerr == json_tokener_success && used == len;
	if (complete && o && nl_json_has_non_finite(o)) {
		json_object_put(o);
		return answer(p,
		              nl_status_bad_request("invalid character 'N' looking for beginning "
		                                    "of value"));
	}
	if (complete && p->type == PT_JSON && mark_pointer_nuls(o) != 0) {
		json_object_put(o);
		return answer(p, NULL);
	}
	if (complete && !(p->type == PT_MERGE && !o)) {
		p->patch = o;
		return 0;
	}
	json_object_put(o);
	/* jsonpatch.MergePatch's ErrBadJSONPatch; the others pass Go's
	 * json error through (json-c words it differently). */
	if (p->type == PT_MERGE)
		return answer(p, nl_status_bad_request("Invalid JSON Patch"));
	return answer(p, nl_status_bad_request(len == 0 ? "unexpected end of JSON input"
	                                                : json_tokener_error_desc(jerr)));
}

/* ------------------------------------------------------------ one attempt */

/* NewGenericServerResponse(422, ...): what a JSON patch operation that
 * fails, or lists of lists in a strategic patch, answer. */
static nl_status *generic_invalid(const char *why)
{
	nl_status *st = nl_status_new(422, "Invalid",
	                              "the server rejected our request due to an error in our "
	                              "request");
	if (st && nl_status_add_cause(st, NULL, why, NULL) != 0) {
		nl_status_free(st);
		return NULL;
	}
	return st;
}

static nl_status *engine_error(int rc, const char *msg)
{
	switch (rc) {
	case NL_EBADREQUEST:
		return nl_status_bad_request(msg);
	case NL_ETOOBIG:
		return nl_status_newf(413, "RequestEntityTooLarge", "Request entity too large: %s",
		                      msg);
	case NL_EINVALID:
		return generic_invalid(msg);
	case NL_ENOMEM:
		return NULL;
	default:
		/* A plain error: the apiserver answers 500 without a reason. */
		return nl_status_new(500, NULL, msg);
	}
}

/* A patched object that does not decode: 422 `"" is invalid: patch:
 * Invalid value: "<value>": <why>`, the value being the patched JSON, or
 * for a strategic patch the patch as Go prints a map. */
static nl_status *patch_invalid(const patch_req *p, json_object *patched, const char *why)
{
	nl_buf b;
	nl_status *st = nl_status_invalid("", "", "");
	nl_buf_init(&b, 0);
	nl_buf_adds(&b, "Invalid value: ");
	if (p->type == PT_STRATEGIC) {
		char v[200];
		mock_patch_go_value(v, sizeof(v), p->patch);
		nl_quote_append(&b, v);
	} else {
		nl_quote_append(&b, patched ? nl_json_compact(patched, NULL) : "null");
	}
	nl_buf_printf(&b, ": %s", why);
	if (st && (!b.data || nl_status_add_cause(st, NL_CAUSE_INVALID, b.data, "patch") != 0 ||
	           nl_status_finish_invalid(st) != 0)) {
		nl_status_free(st);
		st = NULL;
	}
	nl_buf_free(&b);
	return st;
}

/* The patched object as the kind's Go type (422 when it is not one). */
static int decode_patched(patch_req *p, json_object **out, json_object *patched, nl_status **st)
{
	nl_buf msg;
	nl_buf_init(&msg, 64 * 1024);
	int rc = json_object_is_type(patched, json_type_object) ? 0 : NL_EPARSE;
	if (rc)
		nl_buf_printf(&msg, "json: cannot unmarshal %s into Go value of type struct",
		              nl_json_go_kind(patched));
	else
		rc = mock_decode_typed(out, p->rt->res, patched, p->req, p->resp, &msg);
	if (rc == NL_EPARSE || rc == NL_EBADREQUEST)
		*st = patch_invalid(p, patched, msg.data ? msg.data : "");
	nl_buf_free(&msg);
	return rc;
}

/* A non-apply patch applied to cur and decoded into *out. */
static int patch_object(patch_req *p, json_object **out, json_object *cur, nl_status **st)
{
	json_object *patched = NULL;
	nl_err err = {0};
	int rc;
	switch (p->type) {
	case PT_JSON:
		rc = mock_patch_json(&patched, cur, p->patch, &err);
		break;
	case PT_MERGE:
		rc = mock_patch_merge(&patched, cur, p->patch, &err);
		break;
	default:
		rc = mock_patch_strategic(&patched, p->rt->res, cur, p->patch, &err);
		break;
	}
	if (rc) {
		*st = engine_error(rc, err.msg);
		return rc;
	}
	rc = decode_patched(p, out, patched, st);
	json_object_put(patched);
	return rc;
}

/* checkName: the result must still be the object of the URL. */
static int check_name(const patch_req *p, json_object *obj, nl_status **st)
{
	const char *name = nl_meta_name(obj), *ns = nl_meta_namespace(obj);
	const mock_route *rt = p->rt;
	if (!name || strcmp(name, rt->name) != 0) {
		*st =
		    nl_status_newf(400, "BadRequest",
		                   "the name of the object (%s) does not match the name on the URL "
		                   "(%s)",
		                   name ? name : "", rt->name);
		return NL_EBADREQUEST;
	}
	if (rt->res->namespaced && ns && *ns && strcmp(ns, rt->ns) != 0) {
		*st =
		    nl_status_newf(400, "BadRequest",
		                   "the namespace of the object (%s) does not match the namespace "
		                   "on the request (%s)",
		                   ns, rt->ns);
		return NL_EBADREQUEST;
	}
	return nl_meta_set_string(obj, "namespace", rt->res->namespaced ? rt->ns : NULL);
}

/* Unless the patch set metadata.resourceVersion, the update is conditional
 * on the version the patch was applied to. *conditional tells which. */
static int pin_version(json_object *obj, json_object *cur, int *conditional)
{
	const char *want = cur ? nl_meta_resource_version(cur) : NULL;
	const char *got = nl_meta_resource_version(obj);
	*conditional = got && *got && (!want || strcmp(got, want) != 0);
	if (*conditional || !cur)
		return 0;
	return nl_meta_set_string(obj, "resourceVersion", want);
}

static int build(patch_req *p, json_object **out, json_object *cur, nl_status **st)
{
	if (p->type != PT_APPLY)
		return patch_object(p, out, cur, st);
	mock_apply_req q = {p->rt->res,         cur,      p->patch, p->wc.manager_buf,
	                    p->rt->subresource, p->force, p->wc.now};
	int rc = mock_apply(out, st, &q);
	if (rc == NL_ENOMEM)
		*st = NULL;
	return rc;
}

static attempt try_once(patch_req *p)
{
	mock_api *api = p->api;
	const mock_route *rt = p->rt;
	const char *ns = rt->ns[0] ? rt->ns : NULL;
	json_object *cur = NULL, *obj = NULL;
	nl_status *st = NULL;
	char *json = NULL;
	size_t len = 0;
	int conditional = 0, created = 0;
	int rc = mock_store_get_object(api->store, rt->res, ns, rt->name, &cur);
	if (rc == NL_ENOTFOUND && p->type != PT_APPLY) {
		nl_gr gr = mock_resource_gr(rt->res);
		answer(p, nl_status_not_found(&gr, rt->name));
		return DONE;
	}
	if (rc && rc != NL_ENOTFOUND) {
		answer(p, nl_status_internal("cannot read the stored object"));
		return DONE;
	}
	rc = build(p, &obj, cur, &st);
	if (rc == 0)
		rc = check_name(p, obj, &st);
	if (rc == 0)
		rc = pin_version(obj, cur, &conditional);
	if (rc == 0) {
		unsigned flags =
		    MOCK_WRITE_F_SKIP_NOOP | (mock_dry_run(p->req) ? MOCK_WRITE_F_DRY_RUN : 0);
		rc = mock_store_write_ex(api->store, rt->res,
		                         cur ? MOCK_WRITE_UPDATE : MOCK_WRITE_CREATE, flags, obj,
		                         mock_write_prepare, &p->wc, &json, &len, &created, &st);
		/* Changed meanwhile (or deleted, or created: apply), and the patch
		 * did not pin a version: apply it again to the new state. */
		if ((rc == NL_ECONFLICT && !conditional) || (rc == NL_EEXISTS && !cur) ||
		    (rc == NL_ENOTFOUND && cur && p->type == PT_APPLY &&
		     !rt->res->create_on_update)) {
			nl_status_free(st);
			json_object_put(cur);
			json_object_put(obj);
			return RETRY;
		}
	}
	if (rc == 0)
		mock_response_json(p->resp, created ? 201 : 200, json, len);
	else
		answer(p, rc == NL_ENOMEM && !st ? NULL : st);
	free(json);
	json_object_put(cur);
	json_object_put(obj);
	return DONE;
}

void mock_handle_patch(mock_api *api, const mock_route *rt, const mock_request *req,
                       mock_response *resp)
{
	patch_req p = {api, rt, req, resp, PT_JSON, NULL, 0, {0}};
	if (parse_type(&p.type, req->content_type) != 0) {
		mock_response_status(resp, unsupported_media_type());
		return;
	}
	if (check_options(&p) != 0 || parse_body(&p) != 0)
		return;
	mock_write_ctx_init(&p.wc, api, rt, req, rt->name);
	if (p.type == PT_APPLY)
		p.wc.manager = NULL; /* mock_apply records the Apply entry itself */
	int attempts = 0;
	while (try_once(&p) == RETRY) {
		if (++attempts == MAX_ATTEMPTS) {
			nl_gr gr = mock_resource_gr(rt->res);
			mock_response_status(resp, nl_status_conflict(&gr, rt->name, NULL));
			break;
		}
		resp->warning[0] = '\0'; /* the next attempt decodes again */
	}
	json_object_put(p.patch);
}
