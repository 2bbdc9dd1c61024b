/* Write-request options and typed decoding (write_request.h), after the
 * apiserver's handlers (managerOrUserAgent, the strict/warn decoding of
 * bodies) and apimachinery's ValidateCreate/Update/Patch/DeleteOptions. */
#include "write_request.h"

#include <nodelet/doc.h>
#include <nodelet/quote.h>
#include <stdio.h>
#include <string.h>

#include "api/schema.h"
#include "strict_duplicates.h"

#define OPTIONS_GROUP "meta.k8s.io"

static int strict(const mock_request *req)
{
	const char *v = mock_request_query(req, "fieldValidation");
	return v && strcmp(v, "Strict") == 0;
}

static int ignore(const mock_request *req)
{
	const char *v = mock_request_query(req, "fieldValidation");
	return v && strcmp(v, "Ignore") == 0;
}

/* The decoder never looks inside a field it does not know, so a repeat
 * there (or of the unknown field itself) is no error of its own. */
static int under_unknown(const mock_unknown_fields *unknown, const char *path)
{
	for (size_t i = 0; i < unknown->n; i++) {
		size_t k = strlen(unknown->paths[i]);
		if (strncmp(path, unknown->paths[i], k) == 0 &&
		    (path[k] == '\0' || path[k] == '.' || path[k] == '['))
			return 1;
	}
	return 0;
}

/* Whether the request's own body is the object decoded (POST, PUT): a
 * PATCH's decoded object is the patched result, which has no repeats. */
static int strict_body(const mock_request *req)
{
	return req->body && req->method &&
	       (strcmp(req->method, "POST") == 0 || strcmp(req->method, "PUT") == 0);
}

/* runtime.NewStrictDecodingError: "strict decoding error: " and the
 * errors joined with ", " (unknown fields first, then repeated ones,
 * where the decoder gives document order; at most 100 in all). */
static void strict_message(nl_buf *msg, const mock_unknown_fields *unknown,
                           const mock_duplicates *dups)
{
	size_t n = 0;
	nl_buf_adds(msg, "strict decoding error: ");
	for (size_t i = 0; i < unknown->n && n < MOCK_STRICT_MAX_ERRORS; i++, n++)
		nl_buf_printf(msg, "%sunknown field \"%s\"", n ? ", " : "", unknown->paths[i]);
	for (size_t i = 0; i < dups->n && n < MOCK_STRICT_MAX_ERRORS; i++) {
		if (under_unknown(unknown, dups->paths[i]))
			continue;
		nl_buf_printf(msg, "%sduplicate field \"%s\"", n ? ", " : "", dups->paths[i]);
		n++;
	}
}

int mock_decode_typed(json_object **out, const mock_resource *r, json_object *in,
                      const mock_request *req, mock_response *resp, nl_buf *msg)
{
	json_object *obj = NULL;
	mock_unknown_fields unknown = {0};
	nl_err err = {0};
	int rc = mock_schema_decode(&obj, r, in, &unknown, &err);
	if (rc == NL_ENOMEM)
		return rc;
	if (rc) {
		nl_buf_adds(msg, err.msg);
		return NL_EPARSE;
	}
	/* Strict refuses repeats, Warn (the default) warns of them. */
	mock_duplicates dups = {0};
	if (!ignore(req) && strict_body(req) &&
	    mock_duplicates_find(&dups, req->body, req->body_len) != 0) {
		mock_unknown_fields_free(&unknown);
		json_object_put(obj);
		return NL_ENOMEM;
	}
	if ((unknown.n > 0 || dups.n > 0) && strict(req)) {
		strict_message(msg, &unknown, &dups);
		mock_duplicates_free(&dups);
		mock_unknown_fields_free(&unknown);
		json_object_put(obj);
		return NL_EBADREQUEST;
	}
	for (size_t i = 0; resp && !ignore(req) && i < unknown.n; i++) {
		char w[300];
		snprintf(w, sizeof(w), "unknown field \\\"%s\\\"", unknown.paths[i]);
		mock_response_warn(resp, w);
	}
	for (size_t i = 0; resp && i < dups.n; i++) {
		char w[300];
		if (under_unknown(&unknown, dups.paths[i]))
			continue;
		snprintf(w, sizeof(w), "duplicate field \\\"%s\\\"", dups.paths[i]);
		mock_response_warn(resp, w);
	}
	mock_duplicates_free(&dups);
	mock_unknown_fields_free(&unknown);
	*out = obj;
	return 0;
}

void mock_field_manager(char *out, const mock_request *req)
{
	const char *fm = mock_request_query(req, "fieldManager");
	size_t n = 0;
	out[0] = '\0';
	if (fm && *fm) {
		snprintf(out, MOCK_FIELD_MANAGER_MAX + 1, "%s", fm);
		return;
	}
	/* prefixFromUserAgent: up to the first '/', printable runes only. */
	for (const char *p = req->user_agent; p && *p && *p != '/' && n < MOCK_FIELD_MANAGER_MAX;
	     p++)
		if ((unsigned char)*p >= 0x20 && *p != 0x7f)
			out[n++] = *p;
	out[n] = '\0';
}

int mock_dry_run(const mock_request *req)
{
	const char *d = mock_request_query(req, "dryRun");
	return d && strcmp(d, "All") == 0;
}

static int add_cause(nl_status *st, const char *reason, const char *field, nl_buf *b)
{
	int rc = b->data ? nl_status_add_cause(st, reason, b->data, field) : NL_ENOMEM;
	nl_buf_free(b);
	return rc;
}

/* ValidateFieldManager: at most 128 bytes, printable characters only. */
static int field_manager_causes(nl_status *st, const char *fm)
{
	nl_buf b;
	int rc = 0;
	if (!fm)
		return 0;
	if (strlen(fm) > MOCK_FIELD_MANAGER_MAX) {
		nl_buf_init(&b, 0);
		nl_buf_printf(&b, "Too long: may not be more than %d bytes",
		              MOCK_FIELD_MANAGER_MAX);
		rc = add_cause(st, NL_CAUSE_TOO_LONG, "fieldManager", &b);
	}
	for (size_t i = 0; rc == 0 && fm[i]; i++) {
		unsigned char c = (unsigned char)fm[i];
		if (c >= 0x20 && c != 0x7f)
			continue;
		nl_buf_init(&b, 0);
		nl_buf_adds(&b, "Invalid value: ");
		nl_quote_append(&b, fm);
		nl_buf_printf(&b, ": invalid character U+%04X (at position %zu)", c, i);
		rc = add_cause(st, NL_CAUSE_INVALID, "fieldManager", &b);
	}
	return rc;
}

/* ValidateDryRun: only "All" (field.NotSupported of the []string). */
static int dry_run_causes(nl_status *st, const mock_request *req)
{
	const char *d = mock_request_query(req, "dryRun");
	nl_buf b;
	if (!d || strcmp(d, "All") == 0)
		return 0;
	nl_buf_init(&b, 0);
	nl_buf_adds(&b, "Unsupported value: []string{");
	nl_quote_append(&b, d);
	nl_buf_adds(&b, "}: supported values: \"All\"");
	return add_cause(st, NL_CAUSE_NOT_SUPPORTED, "dryRun", &b);
}

static int field_validation_causes(nl_status *st, const mock_request *req)
{
	static const char *const allowed[] = {"", "Ignore", "Strict", "Warn"};
	const char *v = mock_request_query(req, "fieldValidation");
	nl_buf b;
	if (!v)
		return 0;
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		if (strcmp(v, allowed[i]) == 0)
			return 0;
	nl_buf_init(&b, 0);
	nl_buf_adds(&b, "Unsupported value: ");
	nl_quote_append(&b, v);
	nl_buf_adds(&b, ": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"");
	return add_cause(st, NL_CAUSE_NOT_SUPPORTED, "fieldValidation", &b);
}

int mock_write_option_causes(nl_status *st, const mock_request *req, int dry_run_only)
{
	int rc =
	    dry_run_only ? 0 : field_manager_causes(st, mock_request_query(req, "fieldManager"));
	if (rc == 0)
		rc = dry_run_causes(st, req);
	if (rc == 0 && !dry_run_only)
		rc = field_validation_causes(st, req);
	return rc;
}

int mock_check_write_options(nl_status **st, const mock_request *req, const char *options_kind)
{
	nl_status *x = nl_status_invalid(options_kind, OPTIONS_GROUP, "");
	int rc = x ? mock_write_option_causes(x, req, strcmp(options_kind, "DeleteOptions") == 0)
	           : NL_ENOMEM;
	if (rc == 0 && x->ncauses == 0) {
		nl_status_free(x);
		return 0;
	}
	if (rc == 0)
		rc = nl_status_finish_invalid(x);
	if (rc) {
		nl_status_free(x);
		x = NULL;
	}
	*st = x;
	return NL_EINVALID;
}
