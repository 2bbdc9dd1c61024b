#include "fixtures.h"

#include <nodelet/doc.h>
#include <nodelet/meta.h>
#include <stdio.h>
#include <string.h>

#include "api/route.h"
#include "core/log.h"
#include "storage/store.h"

/* Send one request through the API as a client would. */
static int call(mock_api *api, const char *method, const char *path, const char *body, size_t len,
                mock_response *resp)
{
	mock_request req;
	memset(&req, 0, sizeof(req));
	req.method = method;
	req.path = path;
	req.content_type = "application/json";
	req.body = body;
	req.body_len = len;
	req.user_agent = "nodelet-mockapi/fixtures";
	mock_response_init(resp);
	mock_api_handle(api, &req, resp);
	return resp->code;
}

/* The message of a Status answer, for error reports. */
static void status_message(char *out, size_t outlen, const mock_response *resp)
{
	nl_status *st = NULL;
	if (nl_status_parse(&st, resp->body.data, resp->body.len) == 0 && st->message)
		snprintf(out, outlen, "%s", st->message);
	else
		snprintf(out, outlen, "HTTP %d", resp->code);
	nl_status_free(st);
}

/* Replace an existing object: PUT with the stored resourceVersion, so kinds
 * that refuse unconditional updates (Lease) accept it too. */
static int replace(mock_api *api, const mock_resource *r, json_object *obj, const char *ns,
                   const char *name, mock_response *resp)
{
	char path[1024];
	json_object *cur = NULL;
	if (mock_route_path(path, sizeof(path), r, ns, name) != 0)
		return 400;
	if (mock_store_get_object(api->store, r, ns, name, &cur) == 0) {
		nl_meta_set_string(obj, "resourceVersion", nl_meta_resource_version(cur));
		json_object_put(cur);
	}
	size_t len = 0;
	const char *text = nl_json_compact(obj, &len);
	mock_response_free(resp);
	return call(api, "PUT", path, text, len, resp);
}

static int apply_one(mock_api *api, json_object *obj, const char *source, nl_err *err)
{
	const char *kind = nl_json_get_string(obj, "kind");
	const mock_resource *r = mock_resource_by_kind(nl_json_get_string(obj, "apiVersion"), kind);
	if (!r)
		return nl_err_set(err, NL_EINVALID, "%s: kind %s/%s is not served", source,
		                  nl_json_get_string(obj, "apiVersion") ?: "?", kind ?: "?");
	const char *ns = nl_meta_namespace(obj);
	if (r->namespaced && (!ns || !*ns)) {
		nl_meta_set_string(obj, "namespace", "default");
		ns = "default";
	}
	nl_meta_set_string(obj, "resourceVersion", NULL);

	char path[1024];
	if (mock_route_path(path, sizeof(path), r, r->namespaced ? ns : NULL, NULL) != 0)
		return nl_err_set(err, NL_EINVALID, "%s: namespace too long", source);
	size_t len = 0;
	const char *text = nl_json_compact(obj, &len);
	mock_response resp;
	int code = call(api, "POST", path, text, len, &resp);
	const char *name = nl_meta_name(obj);
	if (code == 409 && name)
		code = replace(api, r, obj, r->namespaced ? ns : NULL, name, &resp);
	int rc = 0;
	if (code >= 300) {
		char msg[400];
		status_message(msg, sizeof(msg), &resp);
		rc = nl_err_set(err, NL_EINVALID, "%s: %s %s: %s", source, kind,
		                name ? name : "(no name)", msg);
	}
	mock_response_free(&resp);
	return rc;
}

int mock_fixtures_apply(mock_api *api, json_object *docs, const char *source, nl_err *err)
{
	size_t n = json_object_array_length(docs);
	for (size_t i = 0; i < n; i++) {
		json_object *obj = json_object_array_get_idx(docs, i);
		if (!json_object_is_type(obj, json_type_object))
			return nl_err_set(err, NL_EINVALID, "%s: document %zu is not an object",
			                  source, i + 1);
		int rc = apply_one(api, obj, source, err);
		if (rc != 0)
			return rc;
	}
	return 0;
}

int mock_fixtures_load_file(mock_api *api, const char *path, nl_err *err)
{
	json_object *docs = NULL;
	int rc = nl_doc_load_file(&docs, path, err);
	if (rc != 0)
		return rc;
	rc = mock_fixtures_apply(api, docs, path, err);
	json_object_put(docs);
	return rc;
}

static const char *const builtin_namespaces[] = {"default", "kube-system", "kube-public",
                                                 "kube-node-lease"};

/* The built-in namespaces as documents; with only_missing, those the store
 * has not got. */
static json_object *builtin_docs(mock_api *api, int only_missing)
{
	const char *const *names = builtin_namespaces;
	json_object *docs = json_object_new_array();
	for (size_t i = 0; i < sizeof(builtin_namespaces) / sizeof(builtin_namespaces[0]); i++) {
		json_object *cur = NULL;
		if (only_missing &&
		    mock_store_get_object(api->store, mock_resource_get(MOCK_KIND_NAMESPACE), NULL,
		                          names[i], &cur) == 0) {
			json_object_put(cur);
			continue;
		}
		if (only_missing)
			MOCK_LOG_WARN(
			    "Namespace missing from the restored state, creating it again",
			    NL_KV_REF("namespace", NULL, names[i]));
		json_object *ns = json_object_new_object();
		json_object_object_add(ns, "apiVersion", json_object_new_string("v1"));
		json_object_object_add(ns, "kind", json_object_new_string("Namespace"));
		nl_meta_set_string(ns, "name", names[i]);
		json_object_array_add(docs, ns);
	}
	return docs;
}

int mock_fixtures_seed(mock_api *api, nl_err *err)
{
	json_object *docs = builtin_docs(api, 0);
	int rc = mock_fixtures_apply(api, docs, "built-in namespaces", err);
	json_object_put(docs);
	return rc;
}

int mock_fixtures_seed_missing(mock_api *api, nl_err *err)
{
	json_object *docs = builtin_docs(api, 1);
	int rc = mock_fixtures_apply(api, docs, "built-in namespaces", err);
	json_object_put(docs);
	return rc;
}
