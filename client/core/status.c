/* metav1.Status encode/decode and the k8s.io/apimachinery/pkg/api/errors
 * constructors. Messages are apimachinery's, byte for byte: clients and
 * kubectl print them, and tests compare them against golden files. */
#include <nodelet/buf.h>
#include <nodelet/errors.h>
#include <nodelet/json_text.h>
#include <nodelet/quote.h>
#include <nodelet/status.h>

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OPTIMISTIC_LOCK_MSG                                                                      \
	"the object has been modified; please apply your changes to the latest version and try " \
	"again"

/* ------------------------------------------------------------------------ */
/* construction and ownership */

/* A copy of s, or NULL for NULL; *ok cleared when the copy fails. */
static char *dup_opt(const char *s, int *ok)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		*ok = 0;
	return d;
}

/* Replace *field by v when v is not NULL (v already owned). */
static void take_opt(char **field, char *v)
{
	if (!v)
		return;
	free(*field);
	*field = v;
}

static void cause_clear(nl_status_cause *c)
{
	free(c->reason);
	free(c->message);
	free(c->field);
}

void nl_status_free(nl_status *st)
{
	if (!st)
		return;
	free(st->status);
	free(st->message);
	free(st->reason);
	free(st->name);
	free(st->group);
	free(st->kind);
	free(st->uid);
	free(st->continue_token);
	for (size_t i = 0; i < st->ncauses; i++)
		cause_clear(&st->causes[i]);
	free(st->causes);
	free(st);
}

nl_status *nl_status_new(int code, const char *reason, const char *message)
{
	int ok = 1;
	nl_status *st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->code = code;
	st->status = dup_opt("Failure", &ok);
	st->reason = dup_opt(reason, &ok);
	st->message = dup_opt(message, &ok);
	if (!ok) {
		nl_status_free(st);
		return NULL;
	}
	return st;
}

static nl_status *status_vnewf(int code, const char *reason, const char *fmt, va_list ap)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	if (nl_buf_vprintf(&b, fmt, ap) != 0) {
		nl_buf_free(&b);
		return NULL;
	}
	char *msg = nl_buf_detach(&b, NULL);
	nl_status *st = msg ? nl_status_new(code, reason, msg) : NULL;
	free(msg);
	return st;
}

nl_status *nl_status_newf(int code, const char *reason, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	nl_status *st = status_vnewf(code, reason, fmt, ap);
	va_end(ap);
	return st;
}

int nl_status_set_details(nl_status *st, const char *name, const char *group, const char *kind,
                          const char *uid)
{
	int ok = 1;
	char *n = dup_opt(name, &ok), *g = dup_opt(group, &ok);
	char *k = dup_opt(kind, &ok), *u = dup_opt(uid, &ok);
	if (!ok) {
		free(n);
		free(g);
		free(k);
		free(u);
		return NL_ENOMEM;
	}
	take_opt(&st->name, n);
	take_opt(&st->group, g);
	take_opt(&st->kind, k);
	take_opt(&st->uid, u);
	st->has_details = 1;
	return 0;
}

int nl_status_add_cause(nl_status *st, const char *reason, const char *message, const char *field)
{
	int ok = 1;
	nl_status_cause c = {dup_opt(reason, &ok), dup_opt(message, &ok), dup_opt(field, &ok)};
	nl_status_cause *grown =
	    ok ? realloc(st->causes, (st->ncauses + 1) * sizeof(*st->causes)) : NULL;
	if (!grown) {
		cause_clear(&c);
		return NL_ENOMEM;
	}
	st->causes = grown;
	st->causes[st->ncauses++] = c;
	st->has_details = 1;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* encoding: kube-apiserver's field order, every field omitempty */

static int add_child(json_object *o, const char *key, json_object *child)
{
	if (!child)
		return -1;
	if (json_object_object_add(o, key, child) != 0) {
		json_object_put(child);
		return -1;
	}
	return 0;
}

/* A Status's strings are C strings; a NUL Go would write in one (a name or
 * key from the request: `data[a\u0000b]`) is held as NL_JSON_KEY_NUL
 * (json_text.h) and written as the NUL again. */
static json_object *new_go_string(const char *v)
{
	if (!nl_json_key_has_nul(v))
		return json_object_new_string(v);
	size_t n = 0;
	char *raw = nl_json_key_unmark(v, &n);
	json_object *o = raw ? json_object_new_string_len(raw, (int)n) : NULL;
	free(raw);
	return o;
}

static int quote_go(nl_buf *b, const char *s)
{
	if (!nl_json_key_has_nul(s))
		return nl_quote_append(b, s);
	size_t n = 0;
	char *raw = nl_json_key_unmark(s, &n);
	int rc = raw ? nl_quote_append_n(b, raw, n) : NL_ENOMEM;
	free(raw);
	return rc;
}

static int add_str(json_object *o, const char *key, const char *v)
{
	if (!v || !*v)
		return 0;
	return add_child(o, key, new_go_string(v));
}

/* The Status's ListMeta: only continue is ever set. */
static json_object *list_meta_to_json(const nl_status *st)
{
	json_object *m = json_object_new_object();
	if (m && add_str(m, "continue", st->continue_token) != 0) {
		json_object_put(m);
		return NULL;
	}
	return m;
}

static int add_int(json_object *o, const char *key, int v)
{
	if (v == 0)
		return 0;
	return add_child(o, key, json_object_new_int(v));
}

static json_object *causes_to_json(const nl_status *st)
{
	json_object *arr = json_object_new_array();
	for (size_t i = 0; arr && i < st->ncauses; i++) {
		const nl_status_cause *c = &st->causes[i];
		json_object *co = json_object_new_object();
		if (!co || add_str(co, "reason", c->reason) || add_str(co, "message", c->message) ||
		    add_str(co, "field", c->field) || json_object_array_add(arr, co) != 0) {
			json_object_put(co);
			json_object_put(arr);
			return NULL;
		}
	}
	return arr;
}

static json_object *details_to_json(const nl_status *st)
{
	json_object *d = json_object_new_object();
	if (!d)
		return NULL;
	if (add_str(d, "name", st->name) || add_str(d, "group", st->group) ||
	    add_str(d, "kind", st->kind) || add_str(d, "uid", st->uid) ||
	    (st->ncauses && add_child(d, "causes", causes_to_json(st))) ||
	    add_int(d, "retryAfterSeconds", st->retry_after_seconds)) {
		json_object_put(d);
		return NULL;
	}
	return d;
}

json_object *nl_status_to_json(const nl_status *st)
{
	json_object *o = json_object_new_object();
	if (!o)
		return NULL;
	/* apiVersion is "v1" whatever the group: Status lives in meta/v1 and the
	 * apiserver encodes it as the core group's version. */
	if (add_str(o, "kind", "Status") || add_str(o, "apiVersion", "v1") ||
	    add_child(o, "metadata", list_meta_to_json(st)) || add_str(o, "status", st->status) ||
	    add_str(o, "message", st->message) || add_str(o, "reason", st->reason) ||
	    (st->has_details && add_child(o, "details", details_to_json(st))) ||
	    add_int(o, "code", st->code)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

char *nl_status_to_string(const nl_status *st)
{
	json_object *o = nl_status_to_json(st);
	if (!o)
		return NULL;
	const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
	                                                         JSON_C_TO_STRING_NOSLASHESCAPE);
	char *s = text ? strdup(text) : NULL;
	json_object_put(o);
	return s;
}

/* ------------------------------------------------------------------------ */
/* decoding: tolerant, a field of the wrong type reads as absent */

static int get_str(json_object *o, const char *key, char **out)
{
	json_object *v = NULL;
	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return 0;
	*out = strdup(json_object_get_string(v));
	return *out ? 0 : NL_ENOMEM;
}

static int get_int(json_object *o, const char *key)
{
	json_object *v = NULL;
	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return 0;
	return json_object_get_int(v);
}

static const char *str_or_null(json_object *v)
{
	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static int causes_from_json(nl_status *st, json_object *arr)
{
	size_t n = json_object_array_length(arr);
	for (size_t i = 0; i < n; i++) {
		json_object *co = json_object_array_get_idx(arr, i);
		json_object *r = NULL, *m = NULL, *f = NULL;
		if (!json_object_is_type(co, json_type_object))
			continue;
		json_object_object_get_ex(co, "reason", &r);
		json_object_object_get_ex(co, "message", &m);
		json_object_object_get_ex(co, "field", &f);
		int rc = nl_status_add_cause(st, str_or_null(r), str_or_null(m), str_or_null(f));
		if (rc)
			return rc;
	}
	return 0;
}

static int details_from_json(nl_status *st, json_object *d)
{
	json_object *causes = NULL;
	int rc;
	st->has_details = 1;
	if ((rc = get_str(d, "name", &st->name)) || (rc = get_str(d, "group", &st->group)) ||
	    (rc = get_str(d, "kind", &st->kind)) || (rc = get_str(d, "uid", &st->uid)))
		return rc;
	if (json_object_object_get_ex(d, "causes", &causes) &&
	    json_object_is_type(causes, json_type_array) && (rc = causes_from_json(st, causes)))
		return rc;
	st->retry_after_seconds = get_int(d, "retryAfterSeconds");
	return 0;
}

int nl_status_from_json(nl_status **out, json_object *obj)
{
	json_object *kind = NULL, *details = NULL;
	int rc;
	if (!json_object_is_type(obj, json_type_object) ||
	    !json_object_object_get_ex(obj, "kind", &kind) ||
	    !json_object_is_type(kind, json_type_string) ||
	    strcmp(json_object_get_string(kind), "Status") != 0)
		return NL_EPARSE;
	nl_status *st = calloc(1, sizeof(*st));
	if (!st)
		return NL_ENOMEM;
	if ((rc = get_str(obj, "status", &st->status)) ||
	    (rc = get_str(obj, "message", &st->message)) ||
	    (rc = get_str(obj, "reason", &st->reason)))
		goto fail;
	st->code = get_int(obj, "code");
	json_object *meta = NULL;
	if (json_object_object_get_ex(obj, "metadata", &meta) &&
	    (rc = get_str(meta, "continue", &st->continue_token)))
		goto fail;
	if (json_object_object_get_ex(obj, "details", &details) &&
	    json_object_is_type(details, json_type_object) && (rc = details_from_json(st, details)))
		goto fail;
	*out = st;
	return 0;
fail:
	nl_status_free(st);
	return rc;
}

static int only_space(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
			return 0;
	return 1;
}

int nl_status_parse(nl_status **out, const char *body, size_t len)
{
	if (!body)
		return NL_EPARSE;
	if (len > INT_MAX)
		return NL_ETOOBIG;
	/* Strings as client-go's decoder reads them: invalid UTF-8 becomes
	 * U+FFFD, so what we keep encodes back to the same text. */
	char *clean = NULL;
	size_t clean_len = 0;
	if (nl_json_text_clean(&clean, &clean_len, body, len) != 0)
		return NL_ENOMEM;
	if (clean) {
		if (clean_len > INT_MAX) {
			free(clean);
			return NL_ETOOBIG;
		}
		body = clean;
		len = clean_len;
	}
	json_tokener *tok = json_tokener_new();
	if (!tok) {
		free(clean);
		return NL_ENOMEM;
	}
	json_object *obj = json_tokener_parse_ex(tok, body, (int)len);
	int rc = NL_EPARSE;
	/* Only trailing whitespace may follow: the apiserver ends bodies with "\n". */
	if (obj && json_tokener_get_error(tok) == json_tokener_success &&
	    only_space(body + json_tokener_get_parse_end(tok),
	               len - json_tokener_get_parse_end(tok)))
		rc = nl_status_from_json(out, obj);
	json_object_put(obj);
	json_tokener_free(tok);
	free(clean);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* apimachinery constructors */

void nl_gr_string(char *out, size_t outlen, const nl_gr *gr)
{
	const char *res = gr->resource ? gr->resource : "";
	if (gr->group && *gr->group)
		snprintf(out, outlen, "%s.%s", res, gr->group);
	else
		snprintf(out, outlen, "%s", res);
}

/* "<before><gr> <quoted name><after>" */
static char *gr_name_message(const char *before, const char *gr_or_kind, const char *name,
                             const char *after)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	if (nl_buf_adds(&b, before) || nl_buf_adds(&b, gr_or_kind) || nl_buf_adds(&b, " ") ||
	    quote_go(&b, name) || nl_buf_adds(&b, after)) {
		nl_buf_free(&b);
		return NULL;
	}
	return nl_buf_detach(&b, NULL);
}

/* A Failure with details {name, group, kind: resource} and the message built
 * around the group-resource string, as NewNotFound and friends do. */
static nl_status *gr_status(int code, const char *reason, const nl_gr *gr, const char *name,
                            const char *before, const char *after)
{
	char grs[512];
	nl_gr_string(grs, sizeof(grs), gr);
	char *msg = gr_name_message(before, grs, name, after);
	nl_status *st = msg ? nl_status_new(code, reason, msg) : NULL;
	free(msg);
	if (st && nl_status_set_details(st, name, gr->group, gr->resource, NULL) != 0) {
		nl_status_free(st);
		return NULL;
	}
	return st;
}

nl_status *nl_status_not_found(const nl_gr *gr, const char *name)
{
	return gr_status(404, "NotFound", gr, name, "", " not found");
}

nl_status *nl_status_already_exists(const nl_gr *gr, const char *name)
{
	return gr_status(409, "AlreadyExists", gr, name, "", " already exists");
}

nl_status *nl_status_conflict(const nl_gr *gr, const char *name, const char *why)
{
	nl_buf after;
	nl_buf_init(&after, 0);
	if (nl_buf_printf(&after, ": %s", why ? why : OPTIMISTIC_LOCK_MSG) != 0) {
		nl_buf_free(&after);
		return NULL;
	}
	nl_status *st =
	    gr_status(409, "Conflict", gr, name, "Operation cannot be fulfilled on ", after.data);
	nl_buf_free(&after);
	return st;
}

/* "Lease.coordination.k8s.io" / "ConfigMap": schema.GroupKind.String(). */
static void gk_string(char *out, size_t outlen, const char *kind, const char *group)
{
	nl_gr gk = {group, kind};
	nl_gr_string(out, outlen, &gk);
}

nl_status *nl_status_invalid(const char *kind, const char *group, const char *name)
{
	char gks[512];
	gk_string(gks, sizeof(gks), kind, group);
	char *msg = gr_name_message("", gks, name, " is invalid");
	nl_status *st = msg ? nl_status_new(422, "Invalid", msg) : NULL;
	free(msg);
	if (st && nl_status_set_details(st, name, group && *group ? group : NULL, kind, NULL)) {
		nl_status_free(st);
		return NULL;
	}
	return st;
}

/* Whether cause i's "field: message" text equals an earlier cause's:
 * field.ErrorList.ToAggregate reports each distinct error once. */
static int cause_seen_before(const nl_status *st, size_t i)
{
	const nl_status_cause *c = &st->causes[i];
	for (size_t j = 0; j < i; j++) {
		const nl_status_cause *o = &st->causes[j];
		if (strcmp(c->field ? c->field : "", o->field ? o->field : "") == 0 &&
		    strcmp(c->message ? c->message : "", o->message ? o->message : "") == 0)
			return 1;
	}
	return 0;
}

/* The aggregate's items, "<field>: <body>" each, distinct ones only. */
static int add_cause_list(nl_buf *b, const nl_status *st)
{
	size_t n = 0;
	for (size_t i = 0; i < st->ncauses; i++) {
		const nl_status_cause *c = &st->causes[i];
		if (cause_seen_before(st, i))
			continue;
		int rc = nl_buf_printf(b, "%s%s: %s", n++ ? ", " : "", c->field ? c->field : "",
		                       c->message ? c->message : "");
		if (rc)
			return rc;
	}
	return 0;
}

int nl_status_finish_invalid(nl_status *st)
{
	char gks[512];
	size_t distinct = 0;
	nl_buf b;
	gk_string(gks, sizeof(gks), st->kind, st->group);
	for (size_t i = 0; i < st->ncauses; i++)
		distinct += !cause_seen_before(st, i);
	/* NewInvalid: "<gk> %q is invalid[: <aggregate>]"; an aggregate of several
	 * errors reads "[e1, e2]". */
	nl_buf_init(&b, 0);
	if (nl_buf_adds(&b, gks) || nl_buf_adds(&b, " ") || quote_go(&b, st->name) ||
	    nl_buf_adds(&b, distinct ? " is invalid: " : " is invalid") ||
	    nl_buf_adds(&b, distinct > 1 ? "[" : "") || add_cause_list(&b, st) ||
	    nl_buf_adds(&b, distinct > 1 ? "]" : ""))
		goto fail;
	char *msg = nl_buf_detach(&b, NULL);
	if (!msg)
		goto fail;
	free(st->message);
	st->message = msg;
	return 0;
fail:
	nl_buf_free(&b);
	return NL_ENOMEM;
}

nl_status *nl_status_bad_request(const char *message)
{
	return nl_status_new(400, "BadRequest", message);
}

/* Statuses from NewGenericServerResponse (go-restful's 404/405 handlers)
 * carry a details object even when every field in it is empty. */
static nl_status *generic_status(int code, const char *reason, const char *message)
{
	nl_status *st = nl_status_new(code, reason, message);
	if (st)
		st->has_details = 1;
	return st;
}

nl_status *nl_status_method_not_allowed(void)
{
	return generic_status(405, "MethodNotAllowed",
	                      "the server does not allow this method on the requested resource");
}

nl_status *nl_status_unknown_path(void)
{
	return generic_status(404, "NotFound", "the server could not find the requested resource");
}

nl_status *nl_status_too_large(size_t limit)
{
	return nl_status_newf(413, "RequestEntityTooLarge",
	                      "Request entity too large: limit is %zu", limit);
}

nl_status *nl_status_expired(const char *requested_rv, unsigned long long oldest_rv)
{
	return nl_status_newf(410, "Expired", "too old resource version: %s (%llu)",
	                      requested_rv ? requested_rv : "", oldest_rv);
}

nl_status *nl_status_internal(const char *msg)
{
	nl_status *st =
	    nl_status_newf(500, "InternalError", "Internal error occurred: %s", msg ? msg : "");
	if (st && nl_status_add_cause(st, NULL, msg ? msg : "", NULL) != 0) {
		nl_status_free(st);
		return NULL;
	}
	return st;
}

nl_status *nl_status_too_large_rv(unsigned long long requested, unsigned long long current)
{
	/* storage.NewTooLargeResourceVersionError wraps NewTimeoutError, which
	 * prefixes "Timeout: "; the cacher asks clients to retry after 1 s. */
	nl_status *st = nl_status_newf(504, "Timeout",
	                               "Timeout: Too large resource version: %llu, current: %llu",
	                               requested, current);
	if (st && nl_status_add_cause(st, "ResourceVersionTooLarge", "Too large resource version",
	                              NULL) != 0) {
		nl_status_free(st);
		return NULL;
	}
	if (st)
		st->retry_after_seconds = 1;
	return st;
}

nl_status *nl_status_success_delete(const nl_gr *gr, const char *name, const char *uid)
{
	nl_status *st = nl_status_new(0, NULL, NULL);
	int ok = 1;
	char *success = dup_opt("Success", &ok);
	if (!st || !ok || nl_status_set_details(st, name, gr->group, gr->resource, uid) != 0) {
		free(success);
		nl_status_free(st);
		return NULL;
	}
	take_opt(&st->status, success);
	return st;
}
