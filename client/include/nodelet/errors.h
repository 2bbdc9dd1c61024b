/* Error codes shared by every nodelet library.
 *
 * Functions return 0 on success or a negative NL_E* code. Detail that a code
 * cannot carry (a parser's line and column, the file that was unreadable) is
 * written into an optional caller-provided nl_err. */
#ifndef NODELET_ERRORS_H
#define NODELET_ERRORS_H

#include <stddef.h>

typedef enum {
	NL_OK = 0,
	NL_ERROR = -1,        /* generic failure */
	NL_ENOMEM = -2,       /* allocation failed */
	NL_EINVAL = -3,       /* bad argument from the caller */
	NL_EPARSE = -4,       /* input is not valid JSON/YAML/time/selector */
	NL_EIO = -5,          /* file could not be read or written */
	NL_ETOOBIG = -6,      /* input exceeds an explicit size limit */
	NL_ENOTFOUND = -7,    /* object or file does not exist */
	NL_ECONFLICT = -8,    /* resourceVersion or precondition mismatch */
	NL_EEXISTS = -9,      /* object already exists */
	NL_EINVALID = -10,    /* object failed validation (HTTP 422) */
	NL_EGONE = -11,       /* resourceVersion too old (HTTP 410) */
	NL_EBADREQUEST = -12, /* request is malformed (HTTP 400) */
	NL_ETIMEOUT = -13,    /* server or client timeout */
	/* Client library (issue 6): the HTTP answer or transport failure behind a
	 * call; the detail (the server's Status, curl's text) is in nl_result. */
	NL_EUNAUTHORIZED = -14,    /* HTTP 401: no or bad credentials */
	NL_EFORBIDDEN = -15,       /* HTTP 403: authenticated but not allowed */
	NL_ETOOMANYREQUESTS = -16, /* HTTP 429 (after the client's retries) */
	NL_ESERVER = -17,          /* HTTP 5xx: InternalError, ServiceUnavailable, ... */
	NL_ETRANSPORT = -18,       /* connection refused/reset, DNS, proxy */
	NL_ETLS = -19,             /* TLS handshake or certificate verification */
	NL_ECONFIG = -20,          /* unusable client configuration */
	NL_EMETHOD = -21,          /* HTTP 405 MethodNotAllowed */
	NL_EUNSUPPORTED = -22,     /* HTTP 406/415: media type not acceptable */
	/* Agent (issue 7): a wait cut short because shutdown was requested. */
	NL_ECANCELED = -23,
} nl_error_code;

/* A human-readable name for a code; never NULL, static storage. */
const char *nl_strerror(int code);

/* Optional detail for a failed call. Callers pass NULL when they do not care.
 * The message is truncated to fit; it never needs freeing. */
typedef struct {
	int code;
	char msg[512];
} nl_err;

/* Set err (if not NULL) to code and a printf-style message; returns code so
 * call sites can write `return nl_err_set(err, NL_EPARSE, "...")`. */
int nl_err_set(nl_err *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
