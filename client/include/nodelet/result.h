/* The outcome of one API call: its code plus everything behind it — the
 * server's metav1.Status (or one synthesized as client-go does when the body
 * is not a Status), the HTTP code, or libcurl's text for a transport or TLS
 * failure.
 *
 * Ownership: the caller owns the nl_result (usually on its stack) and passes
 * it to a call; the call first releases whatever the result held, then fills
 * it. nl_result_clear releases it for good. Nothing is global or
 * thread-local, so calls on several threads each keep their own detail.
 *
 *     nl_result res = NL_RESULT_INIT;
 *     if (nl_lease_get(&lease, client, "kube-node-lease", "n1", &res) != 0)
 *             fprintf(stderr, "%s\n", res.message);  // the Status message
 *     nl_result_clear(&res);
 */
#ifndef NODELET_RESULT_H
#define NODELET_RESULT_H

#include "errors.h"
#include "status.h"

typedef struct {
	int code;         /* the call's return value: 0 or NL_E* */
	long http_status; /* last HTTP status received, 0 when none */
	/* For every non-2xx answer: the Status the server sent, unchanged, or
	 * one built like client-go's NewGenericServerResponse when the body was
	 * not a Status (the body's text is then details.causes[0].message with
	 * reason "UnexpectedServerResponse"). NULL otherwise. Owned by the
	 * result. */
	nl_status *status;
	int attempts; /* HTTP attempts made, retries included */
	/* One line for people and logs: the Status message verbatim, or
	 * "<METHOD> <url>: <why>" for transport, TLS and config failures. */
	char message[1024];
} nl_result;

#define NL_RESULT_INIT         \
	{                      \
		0, 0, NULL, 0, \
		{              \
			0      \
		}              \
	}

void nl_result_init(nl_result *r);
/* Release the status and reset to NL_RESULT_INIT; accepts NULL. */
void nl_result_clear(nl_result *r);
/* Move src's content into dst (dst cleared first); src is left empty. */
void nl_result_move(nl_result *dst, nl_result *src);
/* The Status reason ("Conflict", "Expired" ...), or "" without a Status. */
const char *nl_result_reason(const nl_result *r);

/* The NL_E* code for a Status, as client-go's errors.Is* decide: the reason
 * first, the HTTP code only when the reason is unknown. 0 for a Success
 * status, NL_ERROR for an unrecognised failure. */
int nl_status_error_code(const nl_status *st);

/* client-go's apierrors.Is*: true (1) when the result's Status says so.
 * All accept NULL (false). */
int nl_is_not_found(const nl_result *r);
int nl_is_already_exists(const nl_result *r);
int nl_is_conflict(const nl_result *r);
int nl_is_invalid(const nl_result *r);
int nl_is_gone(const nl_result *r);             /* reason Gone, or 410 */
int nl_is_resource_expired(const nl_result *r); /* reason Expired */
int nl_is_unauthorized(const nl_result *r);
int nl_is_forbidden(const nl_result *r);
int nl_is_timeout(const nl_result *r);        /* reason Timeout (504), or a client timeout */
int nl_is_server_timeout(const nl_result *r); /* reason ServerTimeout */
int nl_is_too_many_requests(const nl_result *r);
int nl_is_internal_error(const nl_result *r);
int nl_is_service_unavailable(const nl_result *r);
int nl_is_bad_request(const nl_result *r);
int nl_is_method_not_supported(const nl_result *r);
int nl_is_request_entity_too_large(const nl_result *r);
int nl_is_unexpected_server_error(const nl_result *r); /* body was not a Status */
/* The wait the server asked for (details.retryAfterSeconds, or
 * ServerTimeout's): 1 and *seconds set, else 0. */
int nl_suggests_client_delay(const nl_result *r, int *seconds);

#endif
