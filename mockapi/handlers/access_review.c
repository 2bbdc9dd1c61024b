/* The access reviews (api/reviews.h), as kube-apiserver's registries
 * answer them: SelfSubjectAccessReview and SubjectAccessReview ask the
 * authorizer about one request (pkg/registry/authorization), and
 * SelfSubjectReview returns who the request came from
 * (pkg/registry/authentication/selfsubjectreview). Nothing is stored; the
 * answer is 201 with the review and its status. Bodies are JSON or
 * protobuf (kubectl sends protobuf), answers JSON, YAML or protobuf. */
#include <nodelet/buf.h>
#include <nodelet/meta.h>
#include <nodelet/protobuf.h>
#include <nodelet/quote.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "api.h"
#include "api/reviews.h"
#include "api/validation.h"
#include "auth/access.h"
#include "auth/authn.h"
#include "encoding/negotiation.h"
#include "encoding/yaml_out.h"
#include "handlers.h"

/* ---- protobuf envelope (runtime.Unknown), for a kind without a schema in
 * the shared codec's table */

static int read_varint(uint64_t *v, const unsigned char **p, const unsigned char *end)
{
	*v = 0;
	for (int shift = 0; shift < 64 && *p < end; shift += 7) {
		unsigned char b = *(*p)++;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
	}
	return -1;
}

/* The raw message inside magic + Unknown{typeMeta=1, raw=2, ...}. */
static int envelope_raw(const unsigned char **raw, size_t *raw_len, const char *body, size_t len)
{
	const unsigned char *p = (const unsigned char *)body, *end = p + len;
	if (len < NL_PB_MAGIC_LEN || memcmp(p, NL_PB_MAGIC, NL_PB_MAGIC_LEN) != 0)
		return -1;
	p += NL_PB_MAGIC_LEN;
	*raw = NULL;
	*raw_len = 0;
	while (p < end) {
		uint64_t key, n;
		if (read_varint(&key, &p, end) != 0)
			return -1;
		if ((key & 7) == 0) {
			if (read_varint(&n, &p, end) != 0)
				return -1;
			continue;
		}
		if ((key & 7) != 2 || read_varint(&n, &p, end) != 0 || n > (uint64_t)(end - p))
			return -1;
		if ((key >> 3) == 2) {
			*raw = p;
			*raw_len = (size_t)n;
		}
		p += n;
	}
	return 0;
}

static int put_varint(nl_buf *b, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;
	do {
		tmp[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return nl_buf_add(b, tmp, n);
}

static int put_bytes(nl_buf *b, unsigned field, const void *data, size_t len)
{
	int rc = put_varint(b, (uint64_t)field << 3 | 2);
	if (rc == 0)
		rc = put_varint(b, len);
	return rc == 0 ? nl_buf_add(b, data, len) : rc;
}

/* magic + Unknown{typeMeta{apiVersion, kind}, raw, "", ""}, as gogo writes
 * it (empty strings included). */
static int encode_enveloped(nl_buf *out, json_object *obj, const mock_resource *r)
{
	nl_buf msg, tm;
	nl_buf_init(&msg, 0);
	nl_buf_init(&tm, 0);
	int rc = nl_pb_encode_message(&msg, obj, r->schema);
	if (rc == 0)
		rc = put_bytes(&tm, 1, r->api_version, strlen(r->api_version));
	if (rc == 0)
		rc = put_bytes(&tm, 2, r->kind, strlen(r->kind));
	if (rc == 0)
		rc = nl_buf_add(out, NL_PB_MAGIC, NL_PB_MAGIC_LEN);
	if (rc == 0)
		rc = put_bytes(out, 1, tm.data ? tm.data : "", tm.len);
	if (rc == 0)
		rc = put_bytes(out, 2, msg.data ? msg.data : "", msg.len);
	if (rc == 0)
		rc = put_bytes(out, 3, "", 0);
	if (rc == 0)
		rc = put_bytes(out, 4, "", 0);
	nl_buf_free(&msg);
	nl_buf_free(&tm);
	return rc;
}

/* ---- the body */

/* The review as its Go type holds it: decoded from protobuf, or a JSON
 * body put through the same schema (unknown fields dropped, each field
 * as the type writes it). NULL with the 400 in resp. */
static json_object *decode_body(const mock_resource *r, mock_media in, const mock_request *req,
                                mock_response *resp)
{
	json_object *obj = NULL;
	nl_err err = {0};
	nl_buf pb;
	const unsigned char *raw = NULL;
	size_t raw_len = 0;
	if (in == MOCK_MEDIA_PROTOBUF) {
		if (envelope_raw(&raw, &raw_len, req->body ? req->body : "", req->body_len) != 0) {
			mock_response_status(resp,
			                     nl_status_newf(400, "BadRequest",
			                                    "the object provided is unrecognized "
			                                    "(must be of type %s)",
			                                    r->kind));
			return NULL;
		}
		if (nl_pb_decode_message(&obj, raw ? (const void *)raw : "", raw_len, r->schema,
		                         &err) != 0) {
			mock_response_status(resp, nl_status_newf(400, "BadRequest",
			                                          "%s in version \"v1\" cannot be "
			                                          "handled as a %s: %s",
			                                          r->kind, r->kind, err.msg));
			return NULL;
		}
		return obj;
	}
	json_object *json = req->body && req->body_len ? json_tokener_parse(req->body) : NULL;
	if (!json_object_is_type(json, json_type_object)) {
		json_object_put(json);
		mock_response_status(resp,
		                     nl_status_newf(400, "BadRequest",
		                                    "the object provided is unrecognized (must "
		                                    "be of type %s)",
		                                    r->kind));
		return NULL;
	}
	nl_buf_init(&pb, 0);
	int rc = nl_pb_encode_message(&pb, json, r->schema);
	json_object_put(json);
	if (rc == 0)
		rc = nl_pb_decode_message(&obj, pb.data ? pb.data : "", pb.len, r->schema, &err);
	nl_buf_free(&pb);
	if (rc != 0) {
		mock_response_status(resp, nl_status_internal("cannot read the review"));
		return NULL;
	}
	return obj;
}

/* ---- the reviews */

typedef struct {
	const char *name;
	const char *uid;
	const char *const *groups;
	size_t ngroups;
} who;

/* The request's identity; without authentication, what the apiserver's
 * anonymous authenticator makes of a request without credentials. */
static who requester(const mock_request *req)
{
	static const char *const anonymous[] = {MOCK_GROUP_UNAUTHENTICATED};
	who w = {req->user, req->uid, req->groups, req->ngroups};
	if (!req->user) {
		w.name = MOCK_USER_ANONYMOUS;
		w.groups = anonymous;
		w.ngroups = 1;
	}
	return w;
}

static const char *str_at(json_object *o, const char *path)
{
	const char *s = o ? nl_json_get_string(o, path) : NULL;
	return s ? s : "";
}

/* A served resource of group and plural, any version (RBAC rules name no
 * version). */
static const mock_resource *served(const char *group, const char *plural)
{
	const mock_resource *r;
	for (size_t i = 0; (r = mock_resource_served(i)) != NULL; i++)
		if (strcmp(r->group, group) == 0 && strcmp(r->plural, plural) == 0)
			return r;
	return NULL;
}

static size_t array_len(json_object *a)
{
	return json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

static void copy254(char dst[254], const char *src)
{
	snprintf(dst, 254, "%s", src);
}

/* ValidateSubjectAccessReviewSpec's attribute rule (and, for a
 * SubjectAccessReview, its subject rule). 0, or the 422 in resp. */
static int validate(const mock_resource *r, json_object *spec, int subject, mock_response *resp)
{
	json_object *ra = nl_json_get_path(spec, "resourceAttributes");
	json_object *nra = nl_json_get_path(spec, "nonResourceAttributes");
	mock_ferrs e;
	mock_ferrs_init(&e);
	if (ra && nra) {
		/* field.Invalid of the internal struct prints it with %#v */
		char v[1200], path[520], verb[520];
		nl_quote_str(path, sizeof(path), str_at(nra, "path"));
		nl_quote_str(verb, sizeof(verb), str_at(nra, "verb"));
		snprintf(v, sizeof(v), "authorization.NonResourceAttributes{Path:%s, Verb:%s}",
		         path, verb);
		mock_ferr_invalid_raw(&e, "spec.nonResourceAttributes", v,
		                      "cannot be specified in combination with resourceAttributes");
	}
	/* a nil pointer prints as the string "null" */
	if (!ra && !nra)
		mock_ferr_invalid_raw(&e, "spec.resourceAttributes", "\"null\"",
		                      "exactly one of nonResourceAttributes or resourceAttributes "
		                      "must be specified");
	if (subject && !*str_at(spec, "user") && array_len(nl_json_get_path(spec, "groups")) == 0) {
		json_object *empty = json_object_new_string("");
		mock_ferr_invalid(&e, "spec.user", empty,
		                  "at least one of user or group must be "
		                  "specified");
		json_object_put(empty);
	}
	nl_status *st = e.n ? mock_ferrs_to_status(&e, r->kind, r->group, "") : NULL;
	mock_ferrs_free(&e);
	if (st)
		mock_response_status(resp, st);
	return st ? -1 : 0;
}

/* Ask the authorizer what spec describes for u; fill status. */
static void decide(mock_api *api, json_object *spec, const who *u, json_object *status)
{
	json_object *ra = nl_json_get_path(spec, "resourceAttributes");
	mock_req_attrs a;
	const char *path = NULL;
	memset(&a, 0, sizeof(a));
	a.resource = a.subresource = a.group = "";
	if (ra) {
		a.verb = str_at(ra, "verb");
		a.group = str_at(ra, "group");
		a.resource = str_at(ra, "resource");
		a.subresource = str_at(ra, "subresource");
		a.res = served(a.group, a.resource);
		copy254(a.ns, str_at(ra, "namespace"));
		copy254(a.name, str_at(ra, "name"));
	} else {
		a.verb = str_at(spec, "nonResourceAttributes.verb");
		path = str_at(spec, "nonResourceAttributes.path");
	}
	char reason[1024];
	mock_authz_user au = {u->name, u->groups, u->ngroups};
	int allowed =
	    mock_access_review(reason, sizeof(reason), api->access, api->store, &au, &a, path);
	json_object_object_add(status, "allowed", json_object_new_boolean(allowed));
	if (reason[0])
		json_object_object_add(status, "reason", json_object_new_string(reason));
}

static json_object *string_array(const char *const *v, size_t n)
{
	json_object *arr = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		json_object_array_add(arr, json_object_new_string(v[i]));
	return arr;
}

/* The answer: kind, apiVersion, metadata {creationTimestamp: null}, then
 * the review's own members. */
static json_object *answer_object(const mock_resource *r)
{
	json_object *o = json_object_new_object(), *meta = json_object_new_object();
	json_object_object_add(o, "kind", json_object_new_string(r->kind));
	json_object_object_add(o, "apiVersion", json_object_new_string(r->api_version));
	json_object_object_add(meta, "creationTimestamp", NULL);
	json_object_object_add(o, "metadata", meta);
	return o;
}

static json_object *review(mock_api *api, const mock_resource *r, json_object *in,
                           const mock_request *req, mock_response *resp)
{
	mock_review_kind kind = mock_review_kind_of(r);
	json_object *out = answer_object(r);
	who u = requester(req);
	if (kind == MOCK_REVIEW_SELF_SUBJECT) {
		json_object *status = json_object_new_object(), *info = json_object_new_object();
		json_object_object_add(info, "username", json_object_new_string(u.name));
		if (u.uid && *u.uid)
			json_object_object_add(info, "uid", json_object_new_string(u.uid));
		if (u.ngroups)
			json_object_object_add(info, "groups", string_array(u.groups, u.ngroups));
		json_object_object_add(status, "userInfo", info);
		json_object_object_add(out, "status", status);
		return out;
	}
	json_object *spec = nl_json_get_path(in, "spec");
	if (validate(r, spec, kind == MOCK_REVIEW_ACCESS, resp) != 0) {
		json_object_put(out);
		return NULL;
	}
	const char *subject_groups[64];
	if (kind == MOCK_REVIEW_ACCESS) {
		/* The subject the spec names, not the requester. */
		json_object *g = nl_json_get_path(spec, "groups");
		size_t n = array_len(g);
		u.name = str_at(spec, "user");
		u.uid = str_at(spec, "uid");
		u.ngroups = n < 64 ? n : 64;
		for (size_t i = 0; i < u.ngroups; i++)
			subject_groups[i] = json_object_get_string(json_object_array_get_idx(g, i));
		u.groups = subject_groups;
	}
	json_object *status = json_object_new_object();
	decide(api, spec, &u, status);
	json_object_object_add(out, "spec",
	                       spec ? json_object_get(spec) : json_object_new_object());
	json_object_object_add(out, "status", status);
	return out;
}

static void send(mock_response *resp, json_object *out, const mock_resource *r,
                 const mock_negotiated *neg)
{
	size_t len = 0;
	const char *text = nl_json_compact(out, &len);
	nl_buf b;
	nl_buf_init(&b, 0);
	if (neg->media == MOCK_MEDIA_PROTOBUF && encode_enveloped(&b, out, r) == 0) {
		mock_response_json(resp, 201, b.data, b.len);
		resp->content_type = NL_PB_CONTENT_TYPE;
	} else if (neg->media == MOCK_MEDIA_YAML && mock_yaml_from_json(&b, text, len) == 0) {
		mock_response_json(resp, 201, b.data ? b.data : "", b.len);
		resp->content_type = "application/yaml";
	} else {
		mock_response_json(resp, 201, text, len);
	}
	nl_buf_free(&b);
}

void mock_handle_review(mock_api *api, const mock_route *rt, const mock_request *req,
                        mock_response *resp)
{
	const mock_resource *r = rt->res;
	mock_negotiated neg;
	mock_media in;
	if (mock_negotiate_output(&neg, req->accept, MOCK_ALLOW_PLAIN | MOCK_ALLOW_PROTOBUF) != 0) {
		mock_response_status(resp, mock_status_not_acceptable());
		return;
	}
	/* YAML bodies are not read here (kube-apiserver reads them). */
	if (mock_negotiate_input(&in, req->content_type) != 0 || in == MOCK_MEDIA_YAML) {
		mock_response_status(resp, mock_status_unsupported_media_type());
		return;
	}
	json_object *body = decode_body(r, in, req, resp);
	if (!body)
		return;
	json_object *out = review(api, r, body, req, resp);
	json_object_put(body);
	if (!out)
		return;
	send(resp, out, r, &neg);
	json_object_put(out);
}
