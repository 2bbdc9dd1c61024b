/* Typed decoding and validation of request bodies (mockapi/api/schema.h,
 * validation.h) for every kind. The input is a JSON body, read by the
 * server's body parser (mock_parse_body). Decoding either
 * fails with Go's decoder text, leaving the out-parameters alone, or gives
 * the canonical form, which decodes to itself with no unknown fields left;
 * validation of that form, as a create and as an update over itself
 * through each endpoint, ends in a 422 Status carrying one cause per
 * error. A CSR's request goes through the PEM reader and GnuTLS. */
#include <nodelet/errors.h>
#include <nodelet/status.h>
#include <stdlib.h>
#include <string.h>

#include "api/resources.h"
#include "api/schema.h"
#include "api/validation.h"
#include "core/json.h"
#include "core/request.h"
#include "fuzz.h"

/* sub: the endpoint of an update ("", "status", "approval"). */
static void validate(const mock_resource *r, json_object *decoded, int update, const char *sub)
{
	static const char *const groups[] = {"system:bootstrappers"};
	mock_request req;
	json_object *obj = NULL;
	memset(&req, 0, sizeof(req));
	req.user = "system:bootstrap:abcdef";
	req.groups = groups;
	req.ngroups = 1;
	FUZZ_CHECK(json_object_deep_copy(decoded, &obj, NULL) == 0);
	if (update && r->prepare_update)
		r->prepare_update(obj, decoded);
	if (update && r->prepare_endpoint)
		r->prepare_endpoint(obj, decoded, sub, "2026-01-01T00:00:00Z");
	if (!update && r->prepare_create)
		r->prepare_create(obj);
	if (!update && r->prepare_create_as)
		r->prepare_create_as(obj, &req);
	mock_ferrs errs;
	mock_ferrs_init(&errs);
	mock_validate_object_at(&errs, r, obj, update ? decoded : NULL, sub);
	for (size_t i = 0; i < errs.n; i++) {
		FUZZ_CHECK(errs.items[i].reason != NULL);
		FUZZ_CHECK(errs.items[i].message != NULL);
	}
	if (errs.n > 0) {
		nl_status *st = mock_ferrs_to_status(&errs, r->kind, r->group, "fuzz");
		FUZZ_CHECK(st != NULL);
		FUZZ_CHECK(st->code == 422);
		FUZZ_CHECK(st->ncauses == errs.n);
		char *text = nl_status_to_string(st);
		FUZZ_CHECK(text != NULL);
		free(text);
		nl_status_free(st);
	}
	mock_ferrs_free(&errs);
	json_object_put(obj);
}

static void fuzz_kind(const mock_resource *r, json_object *in)
{
	json_object *sentinel = json_object_new_object();
	json_object *out = sentinel;
	mock_unknown_fields unknown = {(char **)&unknown, 99};
	nl_err err = {0};
	int rc = mock_schema_decode(&out, r, in, &unknown, &err);
	if (rc != 0) {
		FUZZ_CHECK(rc == NL_EBADREQUEST || rc == NL_ENOMEM);
		FUZZ_CHECK(out == sentinel);
		FUZZ_CHECK(unknown.n == 99 && unknown.paths == (char **)&unknown);
		FUZZ_CHECK(err.msg[0] != '\0');
		json_object_put(sentinel);
		return;
	}
	json_object_put(sentinel);
	for (size_t i = 0; i < unknown.n; i++)
		FUZZ_CHECK(unknown.paths[i] != NULL); /* "" for a top-level key "" */
	mock_unknown_fields_free(&unknown);

	json_object *again = NULL;
	mock_unknown_fields none = {NULL, 0};
	FUZZ_CHECK(mock_schema_decode(&again, r, out, &none, &err) == 0);
	FUZZ_CHECK(none.n == 0);
	FUZZ_CHECK(strcmp(fuzz_json_text(again), fuzz_json_text(out)) == 0);
	mock_unknown_fields_free(&none);
	json_object_put(again);

	validate(r, out, 0, "");
	validate(r, out, 1, "");
	if (r->has_status)
		validate(r, out, 1, "status");
	if (r->has_approval)
		validate(r, out, 1, "approval");
	json_object_put(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The server's body parser: strings as Go reads them, NULs in member
	 * names marked, so validation sees what it sees behind the handlers. */
	json_object *in = NULL;
	enum json_tokener_error jerr = json_tokener_success;
	size_t end = 0;
	FUZZ_CHECK(mock_parse_body(&in, (const char *)data, size, &jerr, &end) == 0);
	if (!in || jerr != json_tokener_success) {
		json_object_put(in);
		return 0;
	}
	for (int k = 0; k < MOCK_KIND_COUNT; k++)
		fuzz_kind(mock_resource_get((mock_kind)k), in);
	json_object_put(in);
	return 0;
}
