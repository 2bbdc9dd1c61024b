/* Content negotiation: goautoneg's Accept parsing, the apiserver's
 * NegotiateMediaTypeOptions / AllowsMediaTypeTransform, input media types,
 * and the request/response hooks the router calls around a handler. */
#include "negotiation.h"

#include <ctype.h>
#include <nodelet/doc.h>
#include <nodelet/json_text.h>
#include <nodelet/meta.h>
#include <nodelet/protobuf.h>
#include <nodelet/schema.h>
#include <nodelet/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/query.h"
#include "protobuf_out.h"
#include "table.h"
#include "yaml_out.h"

/* What nodelet-mockapi writes and reads, in the apiserver's order (the
 * codec factory's: JSON, YAML, protobuf), indexed by mock_media. */
static const struct {
	const char *type, *subtype, *name;
} served[] = {
    {"application", "json", "application/json"},
    {"application", "yaml", "application/yaml"},
    {"application", "vnd.kubernetes.protobuf", NL_PB_CONTENT_TYPE},
};
#define NSERVED (sizeof(served) / sizeof(served[0]))
#define SERVED_LIST "application/json, application/yaml, " NL_PB_CONTENT_TYPE

/* ------------------------------------------------------ Accept parsing */

/* strings.Trim(s, " ") on [*b, *e). */
static void trim_spaces(const char **b, const char **e)
{
	while (*b < *e && **b == ' ')
		(*b)++;
	while (*e > *b && (*e)[-1] == ' ')
		(*e)--;
}

static void copy_span(char *dst, size_t cap, const char *b, const char *e)
{
	size_t n = (size_t)(e - b);
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, b, n);
	dst[n] = '\0';
}

/* strconv.ParseFloat(s, 32); errors give 0 as goautoneg ignores them. */
static double parse_q(const char *b, const char *e)
{
	char buf[64], *end;
	if (b == e || (size_t)(e - b) >= sizeof(buf) || isspace((unsigned char)*b))
		return 0;
	copy_span(buf, sizeof(buf), b, e);
	double q = strtod(buf, &end);
	return *end ? 0 : q;
}

static void parse_params(mock_accept_clause *c, const char *p, const char *end)
{
	while (p < end) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *pe = semi ? semi : end;
		const char *eq = memchr(p, '=', (size_t)(pe - p));
		if (eq) {
			const char *kb = p, *ke = eq, *vb = eq + 1, *ve = pe;
			trim_spaces(&kb, &ke);
			if ((size_t)(ke - kb) == 1 && *kb == 'q') {
				c->q = parse_q(vb, ve);
			} else if (c->nparams < MOCK_ACCEPT_MAX_PARAMS) {
				trim_spaces(&vb, &ve);
				mock_accept_param *prm = &c->params[c->nparams++];
				copy_span(prm->key, sizeof(prm->key), kb, ke);
				copy_span(prm->value, sizeof(prm->value), vb, ve);
			}
		}
		p = semi ? semi + 1 : end;
	}
}

/* One comma-separated part; 0 when goautoneg would skip it. */
static int parse_clause(mock_accept_clause *c, const char *b, const char *e)
{
	memset(c, 0, sizeof(*c));
	c->q = 1.0;
	trim_spaces(&b, &e);
	const char *semi = memchr(b, ';', (size_t)(e - b));
	const char *range_end = semi ? semi : e;
	const char *slash = memchr(b, '/', (size_t)(range_end - b));
	const char *tb = b, *te = slash ? slash : range_end;
	trim_spaces(&tb, &te);
	copy_span(c->type, sizeof(c->type), tb, te);
	if (!slash) {
		if (strcmp(c->type, "*") != 0)
			return 0;
		strcpy(c->subtype, "*");
	} else {
		const char *sb = slash + 1, *se = range_end;
		if (memchr(sb, '/', (size_t)(se - sb)))
			return 0; /* "a/b/c" splits into three parts */
		trim_spaces(&sb, &se);
		copy_span(c->subtype, sizeof(c->subtype), sb, se);
	}
	if (semi)
		parse_params(c, semi + 1, e);
	return 1;
}

/* goautoneg's accept_slice.Less, quirks included: a concrete type or
 * subtype sorts before a wildcard whatever the qualities. */
static int clause_less(const mock_accept_clause *a, const mock_accept_clause *b)
{
	if (a->q > b->q)
		return 1;
	if (strcmp(a->type, "*") != 0 && strcmp(b->type, "*") == 0)
		return 1;
	if (strcmp(a->subtype, "*") != 0 && strcmp(b->subtype, "*") == 0)
		return 1;
	return 0;
}

void mock_accept_parse(mock_accept *out, const char *header)
{
	out->n = 0;
	if (!header || !*header)
		return;
	const char *p = header;
	for (;;) {
		const char *comma = strchr(p, ',');
		const char *e = comma ? comma : p + strlen(p);
		if (out->n < MOCK_ACCEPT_MAX_CLAUSES && parse_clause(&out->clauses[out->n], p, e))
			out->n++;
		if (!comma)
			break;
		p = comma + 1;
	}
	/* sort.Sort uses insertion sort for the short slices Accept headers are. */
	for (size_t i = 1; i < out->n; i++) {
		for (size_t j = i; j > 0 && clause_less(&out->clauses[j], &out->clauses[j - 1]);
		     j--) {
			mock_accept_clause tmp = out->clauses[j];
			out->clauses[j] = out->clauses[j - 1];
			out->clauses[j - 1] = tmp;
		}
	}
}

const char *mock_accept_param_get(const mock_accept_clause *c, const char *key)
{
	for (size_t i = c->nparams; i-- > 0;) /* the last one wins, as in Go's map */
		if (strcmp(c->params[i].key, key) == 0)
			return c->params[i].value;
	return NULL;
}

/* ---------------------------------------------------------- negotiation */

/* acceptMediaTypeOptions + AllowsMediaTypeTransform for one clause and one
 * served media type: the conversion asked for, or -1 when not allowed. */
static int clause_conversion(mock_negotiated *n, const mock_accept_clause *c, mock_media media,
                             unsigned allow)
{
	const char *as = mock_accept_param_get(c, "as"), *g = mock_accept_param_get(c, "g");
	const char *v = mock_accept_param_get(c, "v"), *stream = mock_accept_param_get(c, "stream");
	const char *sv = mock_accept_param_get(c, "sv");
	/* JSON and protobuf have stream serializers, only for watch. */
	if (stream && *stream && (media == MOCK_MEDIA_YAML || strcmp(stream, "watch") != 0))
		return -1;
	if (media == MOCK_MEDIA_PROTOBUF && !(allow & MOCK_ALLOW_PROTOBUF))
		return -1;
	if (sv && *sv)
		return -1; /* AllowsServerVersion is false everywhere */
	n->media = media;
	n->version[0] = '\0';
	if (!as && !g && !v) {
		n->as = MOCK_AS_NONE;
		return (allow & MOCK_ALLOW_PLAIN) ? 0 : -1;
	}
	as = as ? as : "", g = g ? g : "", v = v ? v : "";
	snprintf(n->version, sizeof(n->version), "%s", v);
	if (strcmp(g, "meta.k8s.io") == 0 && (strcmp(v, "v1") == 0 || strcmp(v, "v1beta1") == 0) &&
	    (allow & MOCK_ALLOW_META)) {
		/* A Table is only written as JSON or YAML (it has no protobuf
		 * form); metadata in any type. */
		if (strcmp(as, "Table") == 0)
			return media == MOCK_MEDIA_PROTOBUF ? -1 : (n->as = MOCK_AS_TABLE, 0);
		if (strcmp(as, "PartialObjectMetadata") == 0)
			return n->as = MOCK_AS_PARTIAL, 0;
		if (strcmp(as, "PartialObjectMetadataList") == 0)
			return n->as = MOCK_AS_PARTIAL_LIST, 0;
	}
	if (strcmp(g, "apidiscovery.k8s.io") == 0 &&
	    (strcmp(v, "v2") == 0 || strcmp(v, "v2beta1") == 0) &&
	    strcmp(as, "APIGroupDiscoveryList") == 0 && (allow & MOCK_ALLOW_DISCOVERY))
		return n->as = MOCK_AS_DISCOVERY, 0;
	return -1;
}

int mock_negotiate_output(mock_negotiated *out, const char *accept, unsigned allow)
{
	mock_accept a;
	mock_negotiated n;
	memset(&n, 0, sizeof(n));
	/* No Accept header: the first served type, as is. */
	if (!accept || !*accept) {
		if (!(allow & MOCK_ALLOW_PLAIN))
			return NL_EINVAL;
		*out = n;
		return 0;
	}
	mock_accept_parse(&a, accept);
	for (size_t i = 0; i < a.n; i++) {
		const mock_accept_clause *c = &a.clauses[i];
		for (size_t m = 0; m < NSERVED; m++) {
			int type_ok = strcmp(c->type, served[m].type) == 0;
			int match = (type_ok && strcmp(c->subtype, served[m].subtype) == 0) ||
			            (type_ok && strcmp(c->subtype, "*") == 0) ||
			            (strcmp(c->type, "*") == 0 && strcmp(c->subtype, "*") == 0);
			if (match && clause_conversion(&n, c, (mock_media)m, allow) == 0) {
				*out = n;
				return 0;
			}
		}
	}
	return NL_EINVAL;
}

static int is_token_char(unsigned char c)
{
	/* RFC 2045 token: any CHAR except SPACE, CTLs and tspecials. */
	return c > 0x20 && c < 0x7f && !strchr("()<>@,;:\\\"/[]?=", c);
}

/* mime.ParseMediaType's syntax: type "/" subtype, then "; key=value"
 * parameters (value a token or a quoted string); a trailing ";" is fine. */
static int parse_media_type(char *type, size_t cap, const char *s)
{
	size_t n = 0;
	while (*s == ' ' || *s == '\t')
		s++;
	int slash = 0;
	for (; *s && *s != ';' && *s != ' ' && *s != '\t'; s++) {
		if (*s == '/' && !slash++) {
			if (n + 1 < cap)
				type[n++] = '/';
			continue;
		}
		if (!is_token_char((unsigned char)*s) || n + 1 >= cap)
			return -1;
		type[n++] = (char)tolower((unsigned char)*s);
	}
	type[n] = '\0';
	if (slash != 1 || type[0] == '/' || type[n - 1] == '/')
		return -1;
	while (*s) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		if (*s++ != ';')
			return -1;
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break; /* trailing semicolon */
		size_t k = 0;
		while (is_token_char((unsigned char)s[k]))
			k++;
		if (k == 0 || s[k] != '=')
			return -1;
		s += k + 1;
		if (*s == '"') {
			for (s++; *s && *s != '"'; s++)
				if (*s == '\\' && s[1])
					s++;
			if (*s++ != '"')
				return -1;
		} else {
			size_t v = 0;
			while (is_token_char((unsigned char)s[v]))
				v++;
			if (v == 0)
				return -1;
			s += v;
		}
	}
	return 0;
}

int mock_negotiate_input(mock_media *out, const char *content_type)
{
	char type[128];
	if (!content_type || !*content_type) {
		*out = MOCK_MEDIA_JSON;
		return 0;
	}
	if (parse_media_type(type, sizeof(type), content_type) != 0)
		return NL_EINVAL;
	for (size_t m = 0; m < NSERVED; m++) {
		if (strcmp(type, served[m].name) == 0) {
			*out = (mock_media)m;
			return 0;
		}
	}
	return NL_EINVAL;
}

nl_status *mock_status_not_acceptable(void)
{
	return nl_status_new(406, "NotAcceptable",
	                     "only the following media types are accepted: " SERVED_LIST);
}

nl_status *mock_status_unsupported_media_type(void)
{
	return nl_status_new(415, "UnsupportedMediaType",
	                     "the body of the request was in an unknown format - accepted media "
	                     "types include: " SERVED_LIST);
}

/* ------------------------------------------------------- router hooks */

/* The kind a body on this route decodes into, for decode error texts. */
static const char *body_kind(const mock_route *rt, const mock_request *req)
{
	return strcmp(req->method, "DELETE") == 0 ? "DeleteOptions" : rt->res->kind;
}

unsigned mock_negotiate_allow(const mock_resource *r)
{
	unsigned allow = MOCK_ALLOW_PLAIN | MOCK_ALLOW_META;
	if (r && nl_schema_for_kind(r->api_version, r->kind))
		allow |= MOCK_ALLOW_PROTOBUF;
	return allow;
}

/* The 400 of a body no decoder could make sense of. */
static void unrecognized(mock_response *resp, const char *kind, const char *msg,
                         const mock_request *req)
{
	char summary[MOCK_BODY_SUMMARY_SIZE];
	mock_body_summary(summary, req->body, req->body_len);
	mock_response_status(resp, nl_status_newf(400, "BadRequest",
	                                          "the object provided is unrecognized (must be "
	                                          "of type %s): %s (%s)",
	                                          kind, msg, summary));
}

/* Hand the handlers doc's compact JSON as the body (consumes doc). A NUL
 * in a member name (held marked by the YAML and protobuf decoders) is
 * written as \u0000, so the JSON body parser reads the same name. */
static int body_from_doc(mock_negotiated_request *out, json_object *doc, mock_response *resp)
{
	size_t len = 0;
	char *unmarked = NULL;
	const char *text = nl_json_compact(doc, &len);
	if (text && nl_json_text_unmark_keys(&unmarked, &len, text, len) != 0)
		text = NULL;
	out->json = unmarked ? unmarked : text ? strndup(text, len) : NULL;
	json_object_put(doc);
	if (!out->json) {
		mock_response_status(resp, nl_status_internal("out of memory"));
		return -1;
	}
	out->req.body = out->json;
	out->req.body_len = len;
	out->req.content_type = "application/json";
	return 0;
}

/* yaml.ToJSON on the body; on a syntax error the apiserver's 400. */
static int yaml_body_to_json(mock_negotiated_request *out, const mock_route *rt,
                             const mock_request *req, mock_response *resp)
{
	json_object *doc = NULL;
	nl_err err = {0};
	if (nl_doc_parse_one(&doc, req->body, req->body_len, "yaml", &err) != 0) {
		char msg[sizeof(err.msg) + 40];
		snprintf(msg, sizeof(msg), "error converting YAML to JSON: %s", err.msg);
		unrecognized(resp, body_kind(rt, req), msg, req);
		return -1;
	}
	return body_from_doc(out, doc, resp);
}

/* "coordination.k8s.io/v1" -> "v1": the version a decode error names. */
static const char *version_of(const char *api_version)
{
	const char *slash = strrchr(api_version, '/');
	return slash ? slash + 1 : api_version;
}

/* The protobuf serializer's Decode into the route's kind: the envelope may
 * leave kind and apiVersion out (the endpoint's are used). An envelope
 * that does not parse is "unrecognized"; once its kind is known, errors
 * name it. Its JSON then goes through the same checks as a JSON body's. */
static int protobuf_body_to_json(mock_negotiated_request *out, const mock_route *rt,
                                 const mock_request *req, mock_response *resp)
{
	json_object *doc = NULL;
	nl_err err = {0};
	nl_pb_type t, defaults;
	const char *kind = body_kind(rt, req);
	memset(&t, 0, sizeof(t));
	memset(&defaults, 0, sizeof(defaults));
	snprintf(defaults.kind, sizeof(defaults.kind), "%s", kind);
	snprintf(defaults.api_version, sizeof(defaults.api_version), "%s",
	         strcmp(kind, "DeleteOptions") == 0 ? "v1" : rt->res->api_version);
	int rc = nl_pb_decode_object_as(&doc, &t, req->body ? req->body : "", req->body_len,
	                                &defaults, &err);
	if (rc == 0)
		return body_from_doc(out, doc, resp);
	if (rc == NL_ENOMEM) {
		mock_response_status(resp, nl_status_internal("out of memory"));
	} else if (!t.kind[0]) {
		unrecognized(resp, kind, err.msg, req);
	} else {
		/* runtime.Scheme's not-registered text names the scheme. */
		mock_response_status(
		    resp, nl_status_newf(400, "BadRequest",
		                         "%s in version \"%s\" cannot be handled "
		                         "as a %s: %s%s",
		                         t.kind, version_of(t.api_version), kind, err.msg,
		                         rc == NL_EUNSUPPORTED
		                             ? " in scheme \"pkg/api/legacyscheme/scheme.go:30\""
		                             : ""));
	}
	return -1;
}

int mock_negotiate_request(mock_negotiated *neg, mock_negotiated_request *out, const mock_route *rt,
                           const mock_request *req, mock_response *resp)
{
	memset(out, 0, sizeof(*out));
	out->req = *req;
	unsigned allow = mock_negotiate_allow(rt->res);
	if (mock_negotiate_output(neg, req->accept, allow) != 0) {
		mock_response_status(resp, mock_status_not_acceptable());
		return -1;
	}
	int has_body = req->body && req->body_len > 0;
	int reads_body = strcmp(req->method, "POST") == 0 || strcmp(req->method, "PUT") == 0 ||
	                 (strcmp(req->method, "DELETE") == 0 && has_body);
	if (!reads_body)
		return 0;
	mock_media in;
	if (mock_negotiate_input(&in, req->content_type) != 0 ||
	    (in == MOCK_MEDIA_PROTOBUF && !(allow & MOCK_ALLOW_PROTOBUF))) {
		mock_response_status(resp, mock_status_unsupported_media_type());
		return -1;
	}
	if (in == MOCK_MEDIA_YAML && has_body)
		return yaml_body_to_json(out, rt, req, resp);
	if (in == MOCK_MEDIA_PROTOBUF)
		return protobuf_body_to_json(out, rt, req, resp);
	return 0;
}

void mock_negotiated_request_free(mock_negotiated_request *r)
{
	free(r->json);
	r->json = NULL;
}

static int is_watch(const mock_request *req)
{
	return mock_request_query_bool(req, "watch") == 1;
}

/* The internal Go type the apiserver names in conversion errors. */
static void go_type(char *out, size_t cap, const mock_resource *r, int list)
{
	char pkg[64];
	snprintf(pkg, sizeof(pkg), "%s", r->group[0] ? r->group : "core");
	pkg[strcspn(pkg, ".")] = '\0';
	snprintf(out, cap, "*%s.%s%s", pkg, r->kind, list ? "List" : "");
}

/* The handlers' own errNotAcceptable: a Status without details. */
static void not_acceptable(mock_response *resp, const char *msg)
{
	mock_response_status(resp, nl_status_new(406, "NotAcceptable", msg));
}

/* transformResponseObject for GET and LIST answers. */
static void convert(const mock_negotiated *neg, const mock_route *rt, const mock_request *req,
                    mock_response *resp)
{
	int list = rt->type == MOCK_ROUTE_COLLECTION;
	char type[96], msg[256];
	nl_buf out;
	int rc = 0;
	go_type(type, sizeof(type), rt->res, list);
	if (neg->as == MOCK_AS_PARTIAL && list) {
		snprintf(
		    msg, sizeof(msg),
		    "you requested PartialObjectMetadata, but the requested object is a list (%s)",
		    type);
		not_acceptable(resp, msg);
		return;
	}
	if (neg->as == MOCK_AS_PARTIAL_LIST && !list) {
		snprintf(
		    msg, sizeof(msg),
		    "you requested PartialObjectMetadataList, but the requested object is not a "
		    "list (%s)",
		    type);
		not_acceptable(resp, msg);
		return;
	}
	nl_buf_init(&out, resp->body.cap);
	if (neg->as == MOCK_AS_TABLE) {
		nl_status *st = NULL;
		mock_table_opts o = {neg->version, MOCK_INCLUDE_METADATA, 0, nl_time_now()};
		if (mock_table_parse_include(&o.include, mock_request_query(req, "includeObject"),
		                             &st) != 0) {
			mock_response_status(resp, st);
			nl_buf_free(&out);
			return;
		}
		rc = list ? mock_table_list(&out, rt->res, resp->body.data, resp->body.len, &o)
		          : mock_table_object(&out, rt->res, resp->body.data, resp->body.len, &o);
	} else if (neg->as == MOCK_AS_PARTIAL) {
		rc = mock_partial_object(&out, resp->body.data, resp->body.len, neg->version);
	} else {
		rc = mock_partial_list(&out, resp->body.data, resp->body.len, neg->version);
	}
	if (rc != 0)
		mock_response_status(resp, nl_status_internal("cannot convert the response"));
	else
		mock_response_json(resp, 200, out.data, out.len);
	nl_buf_free(&out);
}

static void to_yaml(mock_response *resp)
{
	nl_buf y;
	nl_buf_init(&y, resp->body.cap);
	if (mock_yaml_from_json(&y, resp->body.data ? resp->body.data : "", resp->body.len) == 0) {
		int code = resp->code;
		mock_response_json(resp, code, y.data, y.len);
		resp->content_type = "application/yaml";
	}
	nl_buf_free(&y);
}

/* The JSON answer (an object, a list, a Status) as a protobuf object. A
 * kind without a schema stays JSON, which the client also accepted only if
 * it listed it: negotiation offers protobuf only where every answer has
 * one. */
static void to_protobuf(mock_response *resp)
{
	nl_buf pb;
	nl_buf_init(&pb, resp->body.cap);
	if (resp->body.data && mock_protobuf_from_json(&pb, resp->body.data, resp->body.len) == 0) {
		int code = resp->code;
		mock_response_json(resp, code, pb.data, pb.len);
		resp->content_type = NL_PB_CONTENT_TYPE;
	}
	nl_buf_free(&pb);
}

void mock_negotiate_finish(const mock_negotiated *neg, const mock_route *rt,
                           const mock_request *req, mock_response *resp)
{
	if (rt && rt->res && neg->as != MOCK_AS_NONE && neg->as != MOCK_AS_DISCOVERY &&
	    resp->code == 200 && strcmp(req->method, "GET") == 0 && !is_watch(req) && !resp->stream)
		convert(neg, rt, req, resp);
	/* A watch encodes its own events (YAML has no stream serializer). */
	if (resp->stream || strcmp(resp->content_type, "application/json") != 0)
		return;
	if (neg->media == MOCK_MEDIA_YAML)
		to_yaml(resp);
	else if (neg->media == MOCK_MEDIA_PROTOBUF)
		to_protobuf(resp);
}
