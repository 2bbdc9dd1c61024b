/* Results: the Status behind a failed call and client-go's error predicates. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <nodelet/protobuf.h>

#include "kube.h"

/* client-go caps the text of a non-Status answer (maxUnstructuredResponseTextBytes). */
#define MAX_UNSTRUCTURED_TEXT 2048

void nl_result_init(nl_result *r)
{
	memset(r, 0, sizeof(*r));
}

void nl__result_reset(nl_result *r)
{
	if (!r)
		return;
	nl_status_free(r->status);
	memset(r, 0, sizeof(*r));
}

void nl_result_clear(nl_result *r)
{
	nl__result_reset(r);
}

void nl_result_move(nl_result *dst, nl_result *src)
{
	nl__result_reset(dst);
	*dst = *src;
	memset(src, 0, sizeof(*src));
}

const char *nl_result_reason(const nl_result *r)
{
	return r && r->status && r->status->reason ? r->status->reason : "";
}

int nl__result_fail(nl_result *r, int code, const char *fmt, ...)
{
	if (!r)
		return code;
	va_list ap;
	va_start(ap, fmt);
	r->code = code;
	vsnprintf(r->message, sizeof(r->message), fmt, ap);
	va_end(ap);
	return code;
}

/* --- reasons and codes -------------------------------------------------------- */

static const struct {
	const char *reason;
	int code;
} reasons[] = {
    {"NotFound", NL_ENOTFOUND},
    {"AlreadyExists", NL_EEXISTS},
    {"Conflict", NL_ECONFLICT},
    {"Invalid", NL_EINVALID},
    {"Gone", NL_EGONE},
    {"Expired", NL_EGONE},
    {"Unauthorized", NL_EUNAUTHORIZED},
    {"Forbidden", NL_EFORBIDDEN},
    {"Timeout", NL_ETIMEOUT},
    {"ServerTimeout", NL_ETIMEOUT},
    {"TooManyRequests", NL_ETOOMANYREQUESTS},
    {"InternalError", NL_ESERVER},
    {"ServiceUnavailable", NL_ESERVER},
    {"StoreReadError", NL_ESERVER},
    {"BadRequest", NL_EBADREQUEST},
    {"MethodNotAllowed", NL_EMETHOD},
    {"NotAcceptable", NL_EUNSUPPORTED},
    {"UnsupportedMediaType", NL_EUNSUPPORTED},
    {"RequestEntityTooLarge", NL_ETOOBIG},
};

/* A reason apimachinery defines (its knownReasons); "" is not one. */
static int known_reason(const char *reason)
{
	if (!reason || !*reason)
		return 0;
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (strcmp(reasons[i].reason, reason) == 0)
			return 1;
	return 0;
}

static int code_for_http(int http)
{
	switch (http) {
	case 400:
		return NL_EBADREQUEST;
	case 401:
		return NL_EUNAUTHORIZED;
	case 403:
		return NL_EFORBIDDEN;
	case 404:
		return NL_ENOTFOUND;
	case 405:
		return NL_EMETHOD;
	case 406:
	case 415:
		return NL_EUNSUPPORTED;
	case 409:
		return NL_ECONFLICT;
	case 410:
		return NL_EGONE;
	case 413:
		return NL_ETOOBIG;
	case 422:
		return NL_EINVALID;
	case 429:
		return NL_ETOOMANYREQUESTS;
	case 504:
		return NL_ETIMEOUT;
	}
	return http >= 500 ? NL_ESERVER : NL_ERROR;
}

int nl_status_error_code(const nl_status *st)
{
	if (!st)
		return NL_ERROR;
	if (st->status && strcmp(st->status, "Success") == 0)
		return 0;
	if (st->reason)
		for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
			if (strcmp(reasons[i].reason, st->reason) == 0)
				return reasons[i].code;
	return code_for_http(st->code);
}

/* client-go's pattern: the reason decides; the code only when the reason is
 * not one apimachinery knows. */
static int is_reason(const nl_result *r, const char *reason, int http)
{
	if (!r || !r->status)
		return 0;
	const char *got = r->status->reason;
	if (got && strcmp(got, reason) == 0)
		return 1;
	return http && !known_reason(got) && r->status->code == http;
}

int nl_is_not_found(const nl_result *r)
{
	return is_reason(r, "NotFound", 404);
}

int nl_is_already_exists(const nl_result *r)
{
	return is_reason(r, "AlreadyExists", 0);
}

int nl_is_conflict(const nl_result *r)
{
	return is_reason(r, "Conflict", 409);
}

int nl_is_invalid(const nl_result *r)
{
	return is_reason(r, "Invalid", 422);
}

int nl_is_gone(const nl_result *r)
{
	return is_reason(r, "Gone", 410);
}

int nl_is_resource_expired(const nl_result *r)
{
	return is_reason(r, "Expired", 0);
}

int nl_is_unauthorized(const nl_result *r)
{
	return is_reason(r, "Unauthorized", 401);
}

int nl_is_forbidden(const nl_result *r)
{
	return is_reason(r, "Forbidden", 403);
}

int nl_is_timeout(const nl_result *r)
{
	if (r && !r->status && r->code == NL_ETIMEOUT)
		return 1;
	return is_reason(r, "Timeout", 504);
}

int nl_is_server_timeout(const nl_result *r)
{
	return is_reason(r, "ServerTimeout", 0);
}

int nl_is_too_many_requests(const nl_result *r)
{
	/* Like client-go, the code counts even with a known reason. */
	return is_reason(r, "TooManyRequests", 0) || (r && r->status && r->status->code == 429);
}

int nl_is_internal_error(const nl_result *r)
{
	return is_reason(r, "InternalError", 500);
}

int nl_is_service_unavailable(const nl_result *r)
{
	return is_reason(r, "ServiceUnavailable", 503);
}

int nl_is_bad_request(const nl_result *r)
{
	return is_reason(r, "BadRequest", 400);
}

int nl_is_method_not_supported(const nl_result *r)
{
	return is_reason(r, "MethodNotAllowed", 405);
}

int nl_is_request_entity_too_large(const nl_result *r)
{
	return is_reason(r, "RequestEntityTooLarge", 0) ||
	       (r && r->status && r->status->code == 413);
}

int nl_is_unexpected_server_error(const nl_result *r)
{
	if (!r || !r->status)
		return 0;
	for (size_t i = 0; i < r->status->ncauses; i++) {
		const char *reason = r->status->causes[i].reason;
		if (reason && strcmp(reason, "UnexpectedServerResponse") == 0)
			return 1;
	}
	return 0;
}

int nl_suggests_client_delay(const nl_result *r, int *seconds)
{
	if (!r || !r->status || !r->status->has_details)
		return 0;
	const char *reason = r->status->reason;
	if ((reason && strcmp(reason, "ServerTimeout") == 0) ||
	    r->status->retry_after_seconds > 0) {
		*seconds = r->status->retry_after_seconds;
		return 1;
	}
	return 0;
}

/* --- statuses from HTTP answers ----------------------------------------------- */

int nl__is_protobuf(const char *content_type)
{
	static const size_t n = sizeof(NL_PB_CONTENT_TYPE) - 1;
	if (!content_type)
		return 0;
	while (*content_type == ' ' || *content_type == '\t')
		content_type++;
	if (strncasecmp(content_type, NL_PB_CONTENT_TYPE, n) != 0)
		return 0;
	const char *rest = content_type + n;
	while (*rest == ' ' || *rest == '\t')
		rest++;
	return *rest == '\0' || *rest == ';';
}

/* client-go's isTextResponse: no Content-Type, or a text/ media type. */
static int is_text(const char *content_type)
{
	if (!content_type || !*content_type)
		return 1;
	while (*content_type == ' ')
		content_type++;
	return strncasecmp(content_type, "text/", 5) == 0;
}

/* apimachinery's NewGenericServerResponse: reason and message by code. */
static void generic_reason(int code, const char *verb, const char *server_msg, const char **reason,
                           char *msg, size_t msglen)
{
	const char *m = NULL;
	*reason = "";
	switch (code) {
	case 409:
		*reason = strcmp(verb, "POST") == 0 ? "AlreadyExists" : "Conflict";
		m = "the server reported a conflict";
		break;
	case 404:
		*reason = "NotFound";
		m = "the server could not find the requested resource";
		break;
	case 400:
		*reason = "BadRequest";
		m = "the server rejected our request for an unknown reason";
		break;
	case 401:
		*reason = "Unauthorized";
		m = "the server has asked for the client to provide credentials";
		break;
	case 403:
		*reason = "Forbidden";
		m = server_msg; /* who may do what: keep the server's words */
		break;
	case 406:
		*reason = "NotAcceptable";
		m = !*server_msg || strcmp(server_msg, "unknown") == 0
		        ? "the server was unable to respond with a content type that the client "
		          "supports"
		        : server_msg;
		break;
	case 415:
		*reason = "UnsupportedMediaType";
		m = server_msg;
		break;
	case 405:
		*reason = "MethodNotAllowed";
		m = "the server does not allow this method on the requested resource";
		break;
	case 422:
		*reason = "Invalid";
		m = "the server rejected our request due to an error in our request";
		break;
	case 503:
		*reason = "ServiceUnavailable";
		m = "the server is currently unable to handle the request";
		break;
	case 504:
		*reason = "Timeout";
		m = "the server was unable to return a response in the time allotted, but may "
		    "still "
		    "be processing the request";
		break;
	case 429:
		*reason = "TooManyRequests";
		m = "the server has received too many requests and has asked us to try again later";
		break;
	default:
		if (code >= 500) {
			*reason = "InternalError";
			/* Go's %q: the text quoted with escapes; our texts are
			 * printable so quoting and escaping " and \ matches. */
			size_t n = (size_t)snprintf(msg, msglen, "an error on the server (\"");
			for (const char *p = server_msg; *p && n + 3 < msglen; p++) {
				if (*p == '"' || *p == '\\')
					msg[n++] = '\\';
				msg[n++] = *p;
			}
			msg[n] = '\0';
			snprintf(msg + n, msglen - n,
			         "\") has prevented the request from succeeding");
			return;
		}
	}
	if (m)
		snprintf(msg, msglen, "%s", m);
	else
		snprintf(msg, msglen,
		         "the server responded with the status code %d but did not return more "
		         "information",
		         code);
}

static nl_status *generic_status(int code, const nl__target *t, const char *server_msg,
                                 int retry_after)
{
	char msg[MAX_UNSTRUCTURED_TEXT + 512], gr[320];
	const char *reason;
	const char *verb = t && t->verb ? t->verb : "GET";
	generic_reason(code, verb, server_msg, &reason, msg, sizeof(msg));
	if (t && t->resource && *t->resource) {
		char lverb[16];
		size_t i;
		for (i = 0; verb[i] && i + 1 < sizeof(lverb); i++)
			lverb[i] = (char)tolower((unsigned char)verb[i]);
		lverb[i] = '\0';
		nl_gr g = {t->group ? t->group : "", t->resource};
		nl_gr_string(gr, sizeof(gr), &g);
		size_t n = strlen(msg);
		if (t->name && *t->name)
			snprintf(msg + n, sizeof(msg) - n, " (%s %s %s)", lverb, gr, t->name);
		else
			snprintf(msg + n, sizeof(msg) - n, " (%s %s)", lverb, gr);
	}
	nl_status *st = nl_status_new(code, reason, msg);
	if (!st)
		return NULL;
	const char *kind = t && t->resource ? t->resource : "";
	if (nl_status_set_details(st, t && t->name ? t->name : "", t && t->group ? t->group : "",
	                          kind, NULL) != 0 ||
	    nl_status_add_cause(st, "UnexpectedServerResponse", server_msg, NULL) != 0) {
		nl_status_free(st);
		return NULL;
	}
	st->retry_after_seconds = retry_after;
	return st;
}

/* The body's text as client-go quotes it: capped, whitespace-trimmed. */
static void server_text(char *out, size_t outlen, const char *body, size_t len)
{
	if (len > MAX_UNSTRUCTURED_TEXT)
		len = MAX_UNSTRUCTURED_TEXT;
	while (len > 0 && isspace((unsigned char)*body))
		body++, len--;
	while (len > 0 && isspace((unsigned char)body[len - 1]))
		len--;
	if (len >= outlen)
		len = outlen - 1;
	memcpy(out, body, len);
	out[len] = '\0';
}

/* A protobuf body that is a metav1.Status, as the JSON one would parse:
 * decoded into its JSON tree first, so both encodings give the same
 * nl_status. NL_EPARSE for anything else (another kind, bad bytes). */
static int status_from_protobuf(nl_status **out, const char *body, size_t len)
{
	json_object *obj = NULL;
	nl_pb_type type;
	int rc = nl_pb_decode_object(&obj, &type, body, len, NULL);
	if (rc == 0 && strcmp(type.kind, "Status") != 0)
		rc = NL_EPARSE;
	if (rc == 0)
		rc = nl_status_from_json(out, obj);
	json_object_put(obj);
	return rc == NL_ENOMEM ? rc : rc != 0 ? NL_EPARSE : 0;
}

int nl__result_from_http(nl_result *r, long http, const char *content_type, const char *body,
                         size_t len, const nl__target *t, int retry_after)
{
	nl_status *st = NULL;
	r->http_status = http;
	/* A Status is recognised by its kind and a non-empty status field, as
	 * client-go's transformResponse does; the body is decoded by its
	 * Content-Type. */
	int parsed = !body || len == 0               ? NL_EPARSE
	             : nl__is_protobuf(content_type) ? status_from_protobuf(&st, body, len)
	                                             : nl_status_parse(&st, body, len);
	if (parsed == 0 && (!st->status || !*st->status)) {
		nl_status_free(st);
		st = NULL;
	}
	if (!st) {
		char text[MAX_UNSTRUCTURED_TEXT + 1] = "unknown";
		if (is_text(content_type))
			server_text(text, sizeof(text), body ? body : "", body ? len : 0);
		st = generic_status((int)http, t, text, retry_after);
		if (!st)
			return nl__result_fail(r, NL_ENOMEM, "out of memory");
	}
	r->status = st;
	r->code = nl_status_error_code(st);
	if (r->code == 0) /* a Success Status on an error code: still a failure */
		r->code = code_for_http((int)http);
	if (st->message && *st->message)
		snprintf(r->message, sizeof(r->message), "%s", st->message);
	else
		snprintf(r->message, sizeof(r->message), "the server responded with HTTP %ld%s%s",
		         http, st->reason && *st->reason ? " " : "", st->reason ? st->reason : "");
	return r->code;
}
