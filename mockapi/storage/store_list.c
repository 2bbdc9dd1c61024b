/* LIST (store.h: mock_store_list): the list options, checked before the
 * lock is taken (supported field selectors, resourceVersion, continue
 * tokens, which are the apiserver's base64url of {"v","rv","start"}), the
 * candidate key range and the selector match, and the <Kind>List document
 * with continue and remainingItemCount. The selection and the List
 * document's pieces serve store_read.c (visit) and store_delete.c
 * (deletecollection) too. */
#include "store_internal.h"

#include <inttypes.h>
#include <nodelet/base64.h>
#include <nodelet/errors.h>
#include <nodelet/quote.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONTINUE_VERSION "meta.k8s.io/v1"

/* The name part of a key. */
static const char *key_name(const mock_resource *r, const char *key)
{
	const char *slash = r->namespaced ? strchr(key, '/') : NULL;
	return slash ? slash + 1 : key;
}

void mock__store_plan_free(list_plan *p)
{
	free(p->start);
}

/* path.Clean(key) == key for "/"+start: the apiserver's guard against a
 * token that climbs out of the list's prefix. */
static int clean_path(const char *k, size_t len)
{
	if (len > 1 && k[len - 1] == '/')
		return 0;
	for (size_t i = 0; i < len; i++) {
		if (k[i] != '/')
			continue;
		const char *seg = k + i + 1;
		size_t rest = len - i - 1;
		if (rest > 0 && seg[0] == '/')
			return 0;
		if (rest >= 1 && seg[0] == '.' && (rest == 1 || seg[1] == '/'))
			return 0;
		if (rest >= 2 && seg[0] == '.' && seg[1] == '.' && (rest == 2 || seg[2] == '/'))
			return 0;
	}
	return 1;
}

static nl_status *bad_token(const char *why)
{
	return nl_status_newf(400, "BadRequest",
	                      "invalid continue token: continue key is not "
	                      "valid%s",
	                      why);
}

/* base64 then JSON: the token as an object (new reference). */
static int token_object(json_object **out, const char *token, nl_status **st)
{
	unsigned char *raw = NULL;
	size_t rawlen = 0;
	char why[sizeof(((nl_err *)0)->msg) + 8];
	nl_err err = {0};
	int rc = nl_base64url_decode(&raw, &rawlen, token, strlen(token), &err);
	if (rc == NL_ENOMEM)
		return mock__store_fail_nomem(st);
	if (rc != 0) {
		snprintf(why, sizeof(why), ": %s", err.msg);
		return mock__store_fail(st, bad_token(why), NL_EBADREQUEST);
	}
	enum json_tokener_error jerr = json_tokener_success;
	json_object *o = json_tokener_parse_verbose((const char *)raw, &jerr);
	free(raw);
	if (!json_object_is_type(o, json_type_object)) {
		snprintf(why, sizeof(why), ": %s",
		         o ? "not a JSON object" : json_tokener_error_desc(jerr));
		json_object_put(o);
		return mock__store_fail(st, bad_token(why), NL_EBADREQUEST);
	}
	*out = o;
	return 0;
}

/* The start key, relative to the list's prefix. The apiserver cleans
 * "/" + start (so a token cannot climb out of the prefix) and strips that
 * "/" again. */
static int token_start(list_plan *p, const char *sk, size_t sklen, nl_status **st)
{
	char why[600];
	char *k = malloc(sklen + 2);
	size_t klen = sklen;
	if (!k)
		return mock__store_fail_nomem(st);
	if (sk[0] == '/') {
		memcpy(k, sk, sklen);
	} else {
		k[0] = '/';
		memcpy(k + 1, sk, sklen);
		klen++;
	}
	if (!clean_path(k, klen)) {
		snprintf(why, sizeof(why), ": %.*s", (int)strnlen(sk, 500), sk);
		free(k);
		return mock__store_fail(st, bad_token(why), NL_EBADREQUEST);
	}
	memmove(k, k + 1, klen - 1);
	p->start = k;
	p->start_len = klen - 1;
	return 0;
}

/* storage.DecodeContinue: {"v":"meta.k8s.io/v1","rv":N,"start":"<key>\u0000"},
 * checked in its order. */
static int decode_token(list_plan *p, const char *token, nl_status **st)
{
	json_object *o = NULL, *v = NULL, *rv = NULL, *start = NULL;
	char why[600];
	int rc = token_object(&o, token, st);
	if (rc != 0)
		return rc;
	json_object_object_get_ex(o, "v", &v);
	json_object_object_get_ex(o, "rv", &rv);
	json_object_object_get_ex(o, "start", &start);
	const char *ver = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
	int has_start = json_object_is_type(start, json_type_string);
	p->token_rv = json_object_is_type(rv, json_type_int) ? json_object_get_int64(rv) : 0;
	if (strcmp(ver, CONTINUE_VERSION) != 0) {
		snprintf(why, sizeof(why),
		         ": server does not recognize this encoded version %.500s", ver);
		rc = mock__store_fail(st, bad_token(why), NL_EBADREQUEST);
	} else if (p->token_rv == 0) {
		rc =
		    mock__store_fail(st,
		                     bad_token(": incorrect encoded start resourceVersion (version "
		                               "meta.k8s.io/v1)"),
		                     NL_EBADREQUEST);
	} else if (!has_start || json_object_get_string_len(start) == 0) {
		rc = mock__store_fail(
		    st, bad_token(": encoded start key empty (version meta.k8s.io/v1)"),
		    NL_EBADREQUEST);
	} else {
		rc = token_start(p, json_object_get_string(start),
		                 (size_t)json_object_get_string_len(start), st);
	}
	json_object_put(o);
	return rc;
}

/* storage.EncodeContinue with start as the len bytes given. */
static int encode_start(nl_buf *out, int64_t rv, const char *start, size_t len)
{
	int rc = NL_ENOMEM;
	json_object *o = json_object_new_object();
	if (!o || len > INT32_MAX)
		goto done;
	if (json_object_object_add(o, "v", json_object_new_string(CONTINUE_VERSION)) ||
	    json_object_object_add(o, "rv", json_object_new_int64(rv)) ||
	    json_object_object_add(o, "start", json_object_new_string_len(start, (int)len)))
		goto done;
	size_t jlen = 0;
	const char *js = json_object_to_json_string_length(o, JSON_FLAGS, &jlen);
	char *text = NULL;
	rc = js ? nl_base64url_encode(&text, (const unsigned char *)js, jlen) : NL_ENOMEM;
	if (rc == 0)
		rc = nl_buf_adds(out, text);
	free(text);
done:
	json_object_put(o);
	return rc;
}

/* storage.EncodeContinue for the key after which the next page starts. */
static int encode_token(nl_buf *out, int64_t rv, const char *rel_key)
{
	size_t klen = strlen(rel_key);
	char *start = malloc(klen + 1);
	if (!start)
		return NL_ENOMEM;
	memcpy(start, rel_key, klen);
	start[klen] = '\0'; /* part of the value: the next key after rel_key */
	int rc = encode_start(out, rv, start, klen + 1);
	free(start);
	return rc;
}

typedef struct {
	const mock_resource *r;
	const char *bad;
} field_check;

static int field_supported(const char *f, void *payload)
{
	field_check *c = payload;
	const mock_resource *r = c->r;
	int ok = strcmp(f, "metadata.name") == 0;
	/* Kinds with their own field label conversion (Node, Namespace,
	 * Event) accept metadata.namespace only when namespaced; the default
	 * conversion accepts it always. */
	if (strcmp(f, "metadata.namespace") == 0)
		ok = !r->selectable_fields || r->namespaced;
	for (const char *const *sf = r->selectable_fields; !ok && sf && *sf; sf++)
		ok = strcmp(f, *sf) == 0;
	if (!ok)
		c->bad = f;
	return !ok;
}

static int count_field(const char *f, void *payload)
{
	(void)f;
	(*(size_t *)payload)++;
	return 0;
}

/* An unsupported field is a 400 with the field label conversion's text. */
static int check_fields(const mock_resource *r, const nl_field_selector *fs, nl_status **st)
{
	field_check c = {r, NULL};
	if (!fs || nl_field_selector_each_field(fs, field_supported, &c) == 0)
		return 0;
	nl_status *x =
	    r->selectable_fields
	        ? nl_status_newf(400, "BadRequest", "field label not supported: %s", c.bad)
	        : nl_status_newf(400, "BadRequest",
	                         "\"%s\" is not a known field selector: only "
	                         "\"metadata.name\", \"metadata.namespace\"",
	                         c.bad);
	return mock__store_fail(st, x, NL_EBADREQUEST);
}

/* Everything about the options that needs no lock: selectors, and for a
 * paging list the requested resourceVersion and the continue token. */
int mock__store_plan_list(list_plan *p, const mock_resource *r, const mock_list_opts *o, int paging,
                          nl_status **st)
{
	char why[512];
	const char *rv = o->resource_version;
	size_t nfields = 0;
	int rc = check_fields(r, o->fields, st);
	if (rc != 0)
		return rc;
	if (o->fields)
		nl_field_selector_each_field(o->fields, count_field, &nfields);
	p->selector = nfields > 0 || (o->labels && !nl_label_selector_empty(o->labels));
	p->ns = r->namespaced && o->ns && *o->ns ? o->ns : NULL;
	if (r->namespaced && !p->ns && o->fields)
		p->ns = nl_field_selector_exact(o->fields, "metadata.namespace");
	if (o->fields && (p->ns || !r->namespaced))
		p->name = nl_field_selector_exact(o->fields, "metadata.name");
	if (!paging)
		return 0;
	if (o->continue_token && *o->continue_token) {
		if (rv && *rv && strcmp(rv, "0") != 0)
			return mock__store_fail(
			    st,
			    nl_status_bad_request("specifying resource version is not "
			                          "allowed when using continue"),
			    NL_EBADREQUEST);
		return decode_token(p, o->continue_token, st);
	}
	if (!rv || !*rv)
		return 0;
	int perr = mock__store_parse_uint_go(rv, &p->min_rv);
	if (perr) {
		char q[96], detail[200];
		nl_quote_str(q, sizeof(q), rv);
		mock__store_parse_uint_error(detail, sizeof(detail), rv, perr);
		snprintf(why, sizeof(why),
		         "invalid resource version: resourceVersion: Invalid value: %s: %s", q,
		         detail);
		return mock__store_fail(st, nl_status_bad_request(why), NL_EBADREQUEST);
	}
	p->whole = p->min_rv == 0;
	return 0;
}

typedef struct {
	const mock_resource *r;
	const obj_entry *e;
	char ns[256];
} field_ctx;

static const char *field_get(const char *field, void *payload)
{
	field_ctx *c = payload;
	const char *key = c->e->key;
	if (strcmp(field, "metadata.name") == 0)
		return key_name(c->r, key);
	if (strcmp(field, "metadata.namespace") == 0) {
		const char *slash = c->r->namespaced ? strchr(key, '/') : NULL;
		size_t n = slash ? (size_t)(slash - key) : 0;
		if (n >= sizeof(c->ns))
			n = sizeof(c->ns) - 1;
		memcpy(c->ns, key, n);
		c->ns[n] = '\0';
		return c->ns;
	}
	for (uint16_t i = 0; i < c->e->nfields; i++)
		if (strcmp(field, c->r->selectable_fields[i]) == 0)
			return c->e->fields[i];
	return NULL;
}

static int labels_match(const nl_label_selector *sel, const obj_entry *e)
{
	if (nl_label_selector_empty(sel))
		return 1;
	json_object *labels = e->labels ? json_tokener_parse(e->labels) : NULL;
	int ok = nl_label_selector_matches(sel, labels);
	json_object_put(labels);
	return ok;
}

int mock__store_entry_matches(const mock_resource *r, const obj_entry *e, const mock_list_opts *o)
{
	if (o->labels && !labels_match(o->labels, e))
		return 0;
	if (o->fields) {
		field_ctx c = {r, e, {0}};
		if (!nl_field_selector_matches(o->fields, field_get, &c))
			return 0;
	}
	return 1;
}

/* The candidate range [*lo, *hi): the namespace's keys, or the one key a
 * metadata.name selector pins, or everything. */
int mock__store_list_range(const table *t, const mock_resource *r, const list_plan *p, size_t *lo,
                           size_t *hi)
{
	*lo = 0;
	*hi = t->n;
	if (p->name) {
		char *key = mock__store_key_new(r, p->ns, p->name);
		if (!key)
			return NL_ENOMEM;
		size_t pos;
		*lo = *hi = 0;
		if (mock__store_table_find(t, key, &pos)) {
			*lo = pos;
			*hi = pos + 1;
		}
		free(key);
		return 0;
	}
	if (!p->ns)
		return 0;
	size_t n = strlen(p->ns);
	char *k = malloc(n + 2);
	if (!k)
		return NL_ENOMEM;
	memcpy(k, p->ns, n);
	k[n] = '/';
	*lo = mock__store_lower_bound(t, k, n + 1);
	k[n] = '/' + 1; /* the first key past "<ns>/..." */
	*hi = mock__store_lower_bound(t, k, n + 1);
	free(k);
	return 0;
}

/* Where a continued list resumes: the token's key under the list prefix. */
static int resume_at(const table *t, const mock_resource *r, const list_plan *p,
                     const mock_list_opts *o, size_t *pos)
{
	const char *ns = o->ns && *o->ns && r->namespaced ? o->ns : NULL;
	size_t nl = ns ? strlen(ns) + 1 : 0;
	char *k = malloc(nl + p->start_len + 1);
	if (!k)
		return NL_ENOMEM;
	if (ns) {
		memcpy(k, ns, nl - 1);
		k[nl - 1] = '/';
	}
	memcpy(k + nl, p->start, p->start_len);
	size_t at = mock__store_lower_bound(t, k, nl + p->start_len);
	free(k);
	if (at > *pos)
		*pos = at;
	return 0;
}

int mock__store_list_head(nl_buf *out, const mock_resource *r, uint64_t rv)
{
	return nl_buf_printf(out,
	                     "{\"kind\":\"%s\",\"apiVersion\":\"%s\",\"metadata\":{"
	                     "\"resourceVersion\":\"%" PRIu64 "\"",
	                     r->list_kind, r->api_version, rv);
}

int mock__store_add_item(nl_buf *out, const char *json, size_t len, size_t body_off, int first)
{
	int rc = nl_buf_add(out, first ? "{" : ",{", first ? 1 : 2);
	return rc ? rc : nl_buf_add(out, json + body_off, len - body_off);
}

/* The indices of up to limit matches from pos (*idx, caller frees); *more
 * when keys remain in the range after the last one (etcd's "more", whether
 * or not they match). */
static int select_page(size_t **idx, size_t *n, int *more, const table *t, const mock_resource *r,
                       const mock_list_opts *o, size_t pos, size_t hi, size_t limit)
{
	size_t cap = 0;
	*idx = NULL;
	*n = 0;
	*more = 0;
	for (size_t i = pos; i < hi; i++) {
		if (*n == limit) {
			*more = 1;
			break;
		}
		if (!mock__store_entry_matches(r, t->v[i], o))
			continue;
		if (*n == cap) {
			size_t *v = realloc(*idx, (cap = cap ? cap * 2 : 64) * sizeof(*v));
			if (!v)
				return NL_ENOMEM;
			*idx = v;
		}
		(*idx)[(*n)++] = i;
	}
	return 0;
}

/* ,"continue":"<token>" and, only when no selector filters (then it is
 * exact), ,"remainingItemCount":N. */
static int add_continue(nl_buf *out, const table *t, const mock_resource *r, const list_plan *p,
                        const mock_list_opts *o, size_t last, size_t hi, uint64_t list_rv)
{
	const char *ns = o->ns && *o->ns && r->namespaced ? o->ns : NULL;
	const char *rel = t->v[last]->key + (ns ? strlen(ns) + 1 : 0);
	int rc = nl_buf_adds(out, ",\"continue\":\"");
	if (rc == 0)
		rc = encode_token(out, (int64_t)list_rv, rel);
	if (rc == 0)
		rc = nl_buf_adds(out, "\"");
	if (rc == 0 && !p->selector)
		rc = nl_buf_printf(out, ",\"remainingItemCount\":%zu", hi - last - 1);
	return rc;
}

/* One page of the list from pos. */
static int write_page(nl_buf *out, const table *t, const mock_resource *r, const list_plan *p,
                      const mock_list_opts *o, size_t pos, size_t hi, uint64_t list_rv)
{
	size_t limit = o->limit && !p->whole ? o->limit : SIZE_MAX;
	size_t *idx = NULL, n = 0;
	int more = 0;
	int rc = select_page(&idx, &n, &more, t, r, o, pos, hi, limit);
	if (rc == 0)
		rc = mock__store_list_head(out, r, list_rv);
	if (rc == 0 && more)
		rc = add_continue(out, t, r, p, o, idx[n - 1], hi, list_rv);
	if (rc == 0)
		rc = nl_buf_adds(out, "},\"items\":[");
	for (size_t j = 0; j < n && rc == 0; j++) {
		const obj_entry *e = t->v[idx[j]];
		rc = mock__store_add_item(out, e->json, e->len, e->body_off, j == 0);
	}
	if (rc == 0)
		rc = nl_buf_adds(out, "]}");
	free(idx);
	return rc;
}

/* Undo a partial append so out is as the caller passed it. */
static void buf_truncate(nl_buf *b, size_t len)
{
	if (b->data && b->len > len) {
		b->len = len;
		b->data[len] = '\0';
	}
}

int mock__store_list_failed(nl_buf *out, size_t mark, int rc, nl_status **st)
{
	buf_truncate(out, mark);
	if (rc == NL_ETOOBIG)
		return mock__store_fail(
		    st, nl_status_internal("the list does not fit in the response"), rc);
	if (rc == NL_EIO)
		return mock__store_fail_persist(st);
	return mock__store_fail_nomem(st);
}

/* etcd3's handleCompactedErrorForPaging: the token's rv was compacted.
 * The answer offers the rest of the list from the same key at the latest
 * resourceVersion (rv -1, not 0, which a bad token has). */
static int expired_token(const list_plan *p, nl_status **st)
{
	static const char msg[] =
	    "The provided continue parameter is too old to display a consistent list result. "
	    "You can start a new list without the continue parameter, or use the continue "
	    "token in this response to retrieve the remainder of the results. Continuing with "
	    "the provided token results in an inconsistent list - objects that were created, "
	    "modified, or deleted between the time the first chunk was returned and now may "
	    "show up in the list.";
	nl_buf tok;
	nl_buf_init(&tok, 0);
	/* the start key as the token carried it (with its NUL) */
	int rc = encode_start(&tok, -1, p->start, p->start_len);
	nl_status *x = rc == 0 ? nl_status_new(410, "Expired", msg) : NULL;
	if (x && tok.data && !(x->continue_token = nl_buf_detach(&tok, NULL))) {
		nl_status_free(x);
		x = NULL;
	}
	nl_buf_free(&tok);
	if (!x)
		return mock__store_fail_nomem(st);
	return mock__store_fail(st, x, NL_EGONE);
}

int mock_store_list(mock_store *s, const mock_resource *r, const mock_list_opts *o, nl_buf *out,
                    nl_status **st)
{
	static const mock_list_opts none;
	list_plan p = {0};
	size_t mark = out ? out->len : 0, lo = 0, hi = 0;
	if (!s || !mock__store_valid_resource(r) || !out)
		return NL_EINVAL;
	if (!o)
		o = &none;
	int rc = mock__store_plan_list(&p, r, o, 1, st);
	if (rc != 0)
		return rc;
	pthread_rwlock_rdlock(&s->lock);
	const table *t = mock__store_table_of(s, r);
	uint64_t current = s->rv;
	/* The store keeps no history: a continued list answers with the
	 * token's resourceVersion but shows current objects. */
	uint64_t list_rv = p.token_rv > 0 ? (uint64_t)p.token_rv : current;
	if (p.token_rv > 0 && (uint64_t)p.token_rv < o->compacted_below) {
		pthread_rwlock_unlock(&s->lock);
		rc = expired_token(&p, st);
		mock__store_plan_free(&p);
		return rc;
	}
	if (p.min_rv > current) {
		pthread_rwlock_unlock(&s->lock);
		mock__store_plan_free(&p);
		return mock__store_fail(st, nl_status_too_large_rv(p.min_rv, current), NL_ETIMEOUT);
	}
	rc = mock__store_list_range(t, r, &p, &lo, &hi);
	if (rc == 0 && p.start)
		rc = resume_at(t, r, &p, o, &lo);
	if (rc == 0)
		rc = write_page(out, t, r, &p, o, lo < hi ? lo : hi, hi, list_rv);
	pthread_rwlock_unlock(&s->lock);
	mock__store_plan_free(&p);
	return rc ? mock__store_list_failed(out, mark, rc, st) : 0;
}
