/* metav1.Status: build the exact bodies kube-apiserver sends, and parse the
 * ones a server returns.
 *
 * Constructors mirror k8s.io/apimachinery/pkg/api/errors (NewConflict,
 * NewNotFound, ...) so the server and the client's tests speak the same text.
 * Every nl_status returned through `out` or as a pointer belongs to the
 * caller and is released with nl_status_free (which accepts NULL).
 *
 * Its strings are C strings: a NUL Go would put in one (a name or key the
 * request carried) is held as NL_JSON_KEY_NUL (json_text.h), quoted as
 * "\x00" in messages and encoded as \u0000 by nl_status_to_json. */
#ifndef NODELET_STATUS_H
#define NODELET_STATUS_H

#include <json-c/json.h>
#include <stddef.h>

/* StatusCause reasons used in details.causes. */
#define NL_CAUSE_INVALID "FieldValueInvalid"
#define NL_CAUSE_REQUIRED "FieldValueRequired"
#define NL_CAUSE_FORBIDDEN "FieldValueForbidden"
#define NL_CAUSE_NOT_SUPPORTED "FieldValueNotSupported"
#define NL_CAUSE_TOO_LONG "FieldValueTooLong"
#define NL_CAUSE_DUPLICATE "FieldValueDuplicate"

typedef struct {
	char *reason;  /* may be NULL (omitted) */
	char *message; /* may be NULL (omitted) */
	char *field;   /* may be NULL (omitted) */
} nl_status_cause;

/* A group and resource, e.g. {"coordination.k8s.io", "leases"}; group "" for
 * the core API. String form: "leases.coordination.k8s.io" or "configmaps". */
typedef struct {
	const char *group;
	const char *resource;
} nl_gr;

typedef struct {
	char *status; /* "Success" or "Failure" */
	char *message;
	char *reason;
	int code;
	/* details; all optional, has_details says whether to emit the object */
	int has_details;
	char *name;
	char *group;
	char *kind;
	char *uid;
	nl_status_cause *causes;
	size_t ncauses;
	int retry_after_seconds;
	/* metadata.continue: the token an expired paging list answers with
	 * (resume at the latest resourceVersion). NULL when none. */
	char *continue_token;
} nl_status;

/* A Failure status with code, reason and message (copied) and no details. */
nl_status *nl_status_new(int code, const char *reason, const char *message);
/* A printf-style variant of nl_status_new. */
nl_status *nl_status_newf(int code, const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void nl_status_free(nl_status *st);

/* Setters copy their arguments; NULL leaves that field as it was (so details
 * can be filled in several calls), "" stores an empty value that encodes as
 * omitted. They set has_details. Return 0 or NL_ENOMEM (st unchanged). */
int nl_status_set_details(nl_status *st, const char *name, const char *group, const char *kind,
                          const char *uid);
int nl_status_add_cause(nl_status *st, const char *reason, const char *message, const char *field);

/* Encode in kube-apiserver's key order (kind, apiVersion, metadata, status,
 * message, reason, details, code). New reference, owned by the caller. */
json_object *nl_status_to_json(const nl_status *st);
/* Encode to a compact JSON string; caller frees with free(). */
char *nl_status_to_string(const nl_status *st);

/* Parse a Status body. NL_EPARSE when it is not JSON or not kind Status. */
int nl_status_parse(nl_status **out, const char *body, size_t len);
/* Same from an already parsed object (borrowed). */
int nl_status_from_json(nl_status **out, json_object *obj);

/* "leases.coordination.k8s.io" / "configmaps" into out (truncated to outlen). */
void nl_gr_string(char *out, size_t outlen, const nl_gr *gr);

/* --- apimachinery constructors (messages exactly as in errors.go) --- */

/* 404 `<gr> "<name>" not found`, details {name, group, kind: resource}. */
nl_status *nl_status_not_found(const nl_gr *gr, const char *name);
/* 409 `<gr> "<name>" already exists`, reason AlreadyExists. */
nl_status *nl_status_already_exists(const nl_gr *gr, const char *name);
/* 409 `Operation cannot be fulfilled on <gr> "<name>": <why>`, reason Conflict.
 * why NULL means the stale-resourceVersion text ("the object has been
 * modified; please apply your changes to the latest version and try again"). */
nl_status *nl_status_conflict(const nl_gr *gr, const char *name, const char *why);
/* 422 `<Kind>[.<group>] "<name>" is invalid: <causes>`, reason Invalid,
 * details {name, group, kind: Kind, causes}. Causes are added afterwards with
 * nl_status_add_cause, then nl_status_finish_invalid builds the message. */
nl_status *nl_status_invalid(const char *kind, const char *group, const char *name);
/* Build the 422 message from the causes: one cause "field: message",
 * several "[field: message, field: message]". */
int nl_status_finish_invalid(nl_status *st);
/* 400 reason BadRequest with message. */
nl_status *nl_status_bad_request(const char *message);
/* 405 MethodNotAllowed "the server does not allow this method on the requested resource",
 * details {} (NewGenericServerResponse, as go-restful's 405 goes through it). */
nl_status *nl_status_method_not_allowed(void);
/* 404 for an unknown path: "the server could not find the requested resource", details {}. */
nl_status *nl_status_unknown_path(void);
/* 413 RequestEntityTooLarge "Request entity too large: limit is <limit>". */
nl_status *nl_status_too_large(size_t limit);
/* 410 Expired "too old resource version: <req> (<oldest>)". */
nl_status *nl_status_expired(const char *requested_rv, unsigned long long oldest_rv);
/* 500 InternalError "Internal error occurred: <msg>", details.causes [{message}]. */
nl_status *nl_status_internal(const char *msg);
/* 504 Timeout "Timeout: Too large resource version: <req>, current: <cur>" (the
 * "Timeout: " prefix comes from apierrors.NewTimeoutError), details.causes
 * [{reason: ResourceVersionTooLarge, message: "Too large resource version"}],
 * retryAfterSeconds 1, as the apiserver's storage layer sends it. */
nl_status *nl_status_too_large_rv(unsigned long long requested, unsigned long long current);
/* Success status for a delete: {"status":"Success","details":{name,group,kind,uid}}. */
nl_status *nl_status_success_delete(const nl_gr *gr, const char *name, const char *uid);

#endif
