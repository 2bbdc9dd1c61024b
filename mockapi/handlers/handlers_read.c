/* GET of an object and LIST of a collection (handlers.h), and the
 * selection both LIST and DELETE of a collection make (labelSelector,
 * fieldSelector, limit, continue, resourceVersion). */
#include <errno.h>
#include <nodelet/quote.h>
#include <stdlib.h>
#include <string.h>

#include "handlers_internal.h"
#include "storage/store.h"
#include "watch/watch.h"
#include "write_request.h"

void mock_handle_get(mock_api *api, const mock_route *rt, const mock_request *req,
                     mock_response *resp)
{
	char *json = NULL;
	size_t len = 0;
	nl_status *st = NULL;
	if (mock_store_get(api->store, rt->res, mock__handlers_ns(rt), rt->name, &json, &len,
	                   &st) != 0) {
		mock_response_status(resp, st);
		return;
	}
	mock_response_json_take(resp, 200, json, len);
}

nl_status *mock__handlers_query_int64(long long *out, const char *s)
{
	const char *d = s + (*s == '+' || *s == '-');
	int syntax = *d == '\0';
	for (const char *p = d; *p && !syntax; p++)
		syntax = *p < '0' || *p > '9';
	errno = 0;
	long long v = syntax ? 0 : strtoll(s, NULL, 10);
	if (syntax || errno == ERANGE) {
		char q[160];
		nl_quote_str(q, sizeof(q), s);
		return nl_status_newf(400, "BadRequest", "strconv.ParseInt: parsing %s: %s", q,
		                      syntax ? "invalid syntax" : "value out of range");
	}
	*out = v;
	return NULL;
}

/* Parse labelSelector/fieldSelector into o; on error answer 400. */
static int parse_list_opts(mock_list_opts *o, nl_label_selector **ls, nl_field_selector **fs,
                           const mock_route *rt, const mock_request *req, mock_response *resp)
{
	nl_err err = {0};
	memset(o, 0, sizeof(*o));
	o->ns = mock__handlers_ns(rt);
	if (nl_label_selector_parse(ls, mock_request_query(req, "labelSelector"), &err) != 0 ||
	    nl_field_selector_parse(fs, mock_request_query(req, "fieldSelector"), &err) != 0) {
		mock_response_status(resp, nl_status_bad_request(err.msg));
		return -1;
	}
	o->labels = *ls;
	o->fields = *fs;
	/* Decoded into ListOptions (then unused by a list, as upstream): a
	 * value that is no int64 fails the decoding. */
	const char *timeout = mock_request_query(req, "timeoutSeconds");
	long long secs = 0;
	nl_status *bad = timeout ? mock__handlers_query_int64(&secs, timeout) : NULL;
	if (bad) {
		mock_response_status(resp, bad);
		return -1;
	}
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

void mock__handlers_select(mock_api *api, const mock_route *rt, const mock_request *req,
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
	/* After the query is decoded (400s), as the handler validates. */
	if ((st = mock__handlers_validate_list(req)) != NULL ||
	    (!delete &&mock_watch_check_list(api, rt, req, &st) != 0)) {
		mock_response_status(resp, st);
		goto done;
	}
	/* A dry run answers what would be deleted: the whole selection, now. */
	int dry = mock_dry_run(req) ? delete : 0;
	if (dry) {
		o.limit = 0;
		o.continue_token = NULL;
		o.resource_version = NULL;
	}
	/* The compaction horizon a continue token is checked against: the
	 * watch history's, as etcd's compaction bounds both upstream. */
	o.compacted_below = api->watch ? mock_watch_hub_oldest(api->watch, rt->res) : 0;
	int rc = delete != dry ? mock_store_delete_collection(api->store, rt->res, &o, &out, &st)
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
	/* An Exact list older than the watch history is gone (410): checked
	 * in mock__handlers_select, after the options are validated. */
	mock__handlers_select(api, rt, req, resp, 0);
}
