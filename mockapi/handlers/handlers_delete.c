/* DELETE of an object and of a collection (handlers.h): DeleteOptions
 * from the query and the body, preconditions, dry runs, and the answer
 * kube-apiserver gives (a Status, the object kept for its finalizers, or the
 * Namespace), and NamespaceLifecycle's immortal namespaces. */
#include <nodelet/meta.h>
#include <nodelet/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/query.h"
#include "handlers_internal.h"
#include "storage/store.h"
#include "write_request.h"

void mock_handle_delete_collection(mock_api *api, const mock_route *rt, const mock_request *req,
                                   mock_response *resp)
{
	if (mock__handlers_check_options(req, "DeleteOptions", resp) == 0)
		mock__handlers_select(api, rt, req, resp, 1);
}

/* Go's quoteChar, as encoding/json's syntax errors quote a byte: the byte
 * taken as the rune of that number, through strconv.Quote. */
static void go_quote_char(char out[16], unsigned char c)
{
	if (c == '\'')
		snprintf(out, 16, "'\\''");
	else if (c == '"')
		snprintf(out, 16, "'\"'");
	else if (c >= 0x20 && c < 0x7f)
		snprintf(out, 16, "'%c'", c);
	else if (c == '\n' || c == '\r' || c == '\t')
		snprintf(out, 16, "'\\%c'", c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
	else if (c < 0x80)
		snprintf(out, 16, "'\\x%02x'", c);
	else if (c < 0xa1 || c == 0xad) /* string(byte) is U+0080..U+00FF: not printable */
		snprintf(out, 16, "'\\u%04x'", c);
	else /* printable: the rune in UTF-8 */
		snprintf(out, 16, "'%c%c'", 0xc0 | (c >> 6), 0x80 | (c & 0x3f));
}

/* DeleteOptions from the body (preconditions); NULL body is fine. All of
 * its bytes are read, as every other body is (mock_parse_body): what
 * follows the JSON value, a NUL too, is refused as the serializer's
 * json.Unmarshal refuses it ("couldn't get version/kind; json parse error:
 * ..."). kube-apiserver 1.32 answers that 500; since kubernetes#132359 it
 * is the 400 BadRequest given here (docs/mockapi.md). */
static int parse_delete_options(json_object **out, const mock_request *req, mock_response *resp)
{
	*out = NULL;
	if (!req->body || req->body_len == 0)
		return 0;
	json_object *o = NULL;
	enum json_tokener_error jerr = json_tokener_success;
	size_t used = 0;
	if (mock_parse_body(&o, req->body, req->body_len, &jerr, &used) != 0) {
		mock_response_status(resp, nl_status_internal("out of memory"));
		return -1;
	}
	while (o && jerr == json_tokener_success && used < req->body_len &&
	       strchr(" \t\r\n", req->body[used]) && req->body[used])
		used++;
	if (o && jerr == json_tokener_success && used < req->body_len) {
		char c[16];
		go_quote_char(c, (unsigned char)req->body[used]);
		json_object_put(o);
		mock_response_status(resp, nl_status_newf(400, "BadRequest",
		                                          "couldn't get version/kind; json parse "
		                                          "error: invalid character %s after "
		                                          "top-level value",
		                                          c));
		return -1;
	}
	if (!o || jerr != json_tokener_success || !json_object_is_type(o, json_type_object)) {
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

/* dryRun=All as a query parameter or in the DeleteOptions body (kubectl
 * delete --dry-run=server sends the latter). */
static int delete_dry_run(const mock_request *req, json_object *opts)
{
	json_object *d = NULL;
	if (mock_dry_run(req))
		return 1;
	if (!opts || !json_object_object_get_ex(opts, "dryRun", &d) ||
	    !json_object_is_type(d, json_type_array))
		return 0;
	for (size_t i = 0; i < json_object_array_length(d); i++) {
		json_object *v = json_object_array_get_idx(d, i);
		if (json_object_is_type(v, json_type_string) &&
		    strcmp(json_object_get_string(v), "All") == 0)
			return 1;
	}
	return 0;
}

/* The deprecated orphanDependents: 1, 0, or -1 when not given. DeleteOptions
 * come from the body when there is one, else from the query, where the
 * parameter codec reads a bool (core/query.h); delete.go decodes one or
 * the other. */
static int orphan_dependents(const mock_request *req, json_object *opts)
{
	json_object *v = NULL;
	if (!opts)
		return mock_request_query_bool(req, "orphanDependents");
	if (!json_object_object_get_ex(opts, "orphanDependents", &v) ||
	    !json_object_is_type(v, json_type_boolean))
		return -1;
	return json_object_get_boolean(v) ? 1 : 0;
}

/* The propagation policy as MOCK_DELETE_F_* flags, from the same place;
 * orphanDependents wins over propagationPolicy, as in
 * shouldOrphanDependents. */
static unsigned delete_policy(const mock_request *req, json_object *opts, int namespace)
{
	json_object *v = NULL;
	const char *policy = NULL;
	int orphan = orphan_dependents(req, opts);
	/* The namespace registry reads orphanDependents false as asking for
	 * foregroundDeletion (shouldHaveDeleteDependentsFinalizer). */
	if (orphan >= 0)
		return orphan      ? MOCK_DELETE_F_ORPHAN
		       : namespace ? MOCK_DELETE_F_FOREGROUND
		                   : MOCK_DELETE_F_BACKGROUND;
	if (!opts)
		policy = mock_request_query(req, "propagationPolicy");
	else if (json_object_object_get_ex(opts, "propagationPolicy", &v) &&
	         json_object_is_type(v, json_type_string))
		policy = json_object_get_string(v);
	if (!policy)
		return 0;
	if (strcmp(policy, "Orphan") == 0)
		return MOCK_DELETE_F_ORPHAN;
	if (strcmp(policy, "Foreground") == 0)
		return MOCK_DELETE_F_FOREGROUND;
	return strcmp(policy, "Background") == 0 ? MOCK_DELETE_F_BACKGROUND : 0;
}

/* NamespaceLifecycle's immortal namespaces: their DELETE is refused before
 * anything is read. */
static int immortal_namespace(const mock_route *rt, mock_response *resp)
{
	static const char *const immortal[] = {"default", "kube-system", "kube-public"};
	if (rt->res->id != MOCK_KIND_NAMESPACE)
		return 0;
	for (size_t i = 0; i < sizeof(immortal) / sizeof(immortal[0]); i++) {
		if (strcmp(rt->name, immortal[i]) != 0)
			continue;
		nl_status *st = nl_status_newf(403, "Forbidden",
		                               "namespaces \"%s\" is forbidden: this namespace may "
		                               "not be deleted",
		                               rt->name);
		if (st && nl_status_set_details(st, rt->name, "", "namespaces", NULL) != 0) {
			nl_status_free(st);
			st = NULL;
		}
		mock_response_status(resp, st ? st : nl_status_internal("out of memory"));
		return 1;
	}
	return 0;
}

/* gracePeriodSeconds from the DeleteOptions body, else the query; 0 and
 * *out set when given, -1 when not. */
static int grace_period(int64_t *out, const mock_request *req, json_object *opts)
{
	json_object *v = NULL;
	if (opts) {
		if (!json_object_object_get_ex(opts, "gracePeriodSeconds", &v) ||
		    !json_object_is_type(v, json_type_int))
			return -1;
		*out = json_object_get_int64(v);
		return 0;
	}
	const char *q = mock_request_query(req, "gracePeriodSeconds");
	char *end = NULL;
	if (!q || !*q)
		return -1;
	long long n = strtoll(q, &end, 10);
	if (*end)
		return -1;
	*out = n;
	return 0;
}

/* The Success Status of a DELETE that removed the object at once. */
static void answer_status(const mock_route *rt, mock_response *resp, const char *json)
{
	json_object *o = json_tokener_parse(json);
	nl_gr gr = mock_resource_gr(rt->res);
	mock_response_status(resp,
	                     nl_status_success_delete(&gr, rt->name, o ? nl_meta_uid(o) : NULL));
	json_object_put(o);
}

void mock_handle_delete(mock_api *api, const mock_route *rt, const mock_request *req,
                        mock_response *resp)
{
	json_object *opts = NULL;
	int namespace = rt->res->id == MOCK_KIND_NAMESPACE;
	if (mock__handlers_check_options(req, "DeleteOptions", resp) != 0 ||
	    immortal_namespace(rt, resp) || parse_delete_options(&opts, req, resp) != 0)
		return;
	const char *pre_uid = opts ? nl_json_get_string(opts, "preconditions.uid") : NULL;
	const char *pre_rv =
	    opts ? nl_json_get_string(opts, "preconditions.resourceVersion") : NULL;
	unsigned flags = (delete_dry_run(req, opts) ? MOCK_WRITE_F_DRY_RUN : 0) |
	                 delete_policy(req, opts, namespace);
	char *json = NULL;
	size_t len = 0;
	int deleted = 0;
	int64_t grace = 0;
	int has_grace = grace_period(&grace, req, opts) == 0;
	nl_status *st = NULL;
	if (mock_store_delete_grace(api->store, rt->res, mock__handlers_ns(rt), rt->name, flags,
	                            has_grace ? &grace : NULL, pre_uid, pre_rv, &json, &len,
	                            &deleted, &st) != 0)
		mock_response_status(resp, st);
	else if (!deleted)
		/* kept (finalizers, a grace period, or a namespace Terminating):
		 * the object; delete.go answers 202 then when orphanDependents
		 * is false */
		mock_response_json(resp, orphan_dependents(req, opts) == 0 ? 202 : 200, json, len);
	else if (namespace || rt->res->return_deleted)
		mock_response_json(resp, 200, json, len); /* ReturnDeletedObject */
	else
		answer_status(rt, resp, json);
	free(json);
	json_object_put(opts);
}
