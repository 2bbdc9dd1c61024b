/* What a write request (POST, PUT, PATCH, DELETE) asks for beyond its path:
 * its body decoded as the kind's Go type under the request's
 * fieldValidation, its field manager, its dryRun, and the checks of the
 * apiserver's Create/Update/Patch/DeleteOptions validation. Shared by
 * handlers.c and patch_handler.c. */
#ifndef MOCK_WRITE_REQUEST_H
#define MOCK_WRITE_REQUEST_H

#include <json-c/json.h>
#include <nodelet/buf.h>
#include <nodelet/status.h>

#include "api/resources.h"
#include "core/json.h"
#include "core/request.h"

/* fieldManager is at most this long (FieldManagerMaxLength). */
#define MOCK_FIELD_MANAGER_MAX 128

/* Decode in (a JSON object, borrowed) as r's Go type into *out (new
 * reference), then treat unknown fields as the request's fieldValidation
 * says: Strict refuses them, Ignore drops them, anything else (Warn, the
 * default) drops them with a `Warning: 299 - "unknown field \"spec.foo\""`
 * header each on resp. The member names a POST or PUT body repeats
 * (strict_duplicates.h) are treated alike: refused with Strict, warned of
 * (`duplicate field \"data.a\"`) otherwise, dropped with Ignore. Errors,
 * with the text in msg (appended):
 *   NL_EPARSE       a value of the wrong type: Go's decoder text, e.g.
 *                   `json: cannot unmarshal string into Go struct field ...`;
 *   NL_EBADREQUEST  fieldValidation=Strict and unknown fields:
 *                   `strict decoding error: unknown field "a", duplicate field "b"`;
 *   NL_ENOMEM. */
int mock_decode_typed(json_object **out, const mock_resource *r, json_object *in,
                      const mock_request *req, mock_response *resp, nl_buf *msg);

/* The field manager of a request: the fieldManager parameter, else (as the
 * apiserver's managerOrUserAgent) the User-Agent up to its first '/',
 * printable characters only, at most 128 bytes; "" when neither is there.
 * out holds MOCK_FIELD_MANAGER_MAX + 1 bytes. */
void mock_field_manager(char *out, const mock_request *req);

/* Whether the request has dryRun=All. */
int mock_dry_run(const mock_request *req);

/* Validate the query options of a write, as ValidateCreateOptions & co.:
 * dryRun values other than All, a fieldManager over 128 bytes or with
 * unprintable characters, an unknown fieldValidation. options_kind names
 * the options type in the 422 ("CreateOptions", "UpdateOptions",
 * "DeleteOptions"; the last checks dryRun only). 0, or NL_EINVALID with the
 * 422 `<options_kind>.meta.k8s.io "" is invalid: ...` in *st (caller frees;
 * NULL when out of memory). */
int mock_check_write_options(nl_status **st, const mock_request *req, const char *options_kind);

/* The same checks appended as causes to st (an nl_status_invalid being
 * built, e.g. PatchOptions with its own force and fieldManager checks
 * first). dry_run_only for DeleteOptions. 0 or NL_ENOMEM. */
int mock_write_option_causes(nl_status *st, const mock_request *req, int dry_run_only);

#endif
