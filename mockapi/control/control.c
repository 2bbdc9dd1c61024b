/* The control API's endpoints and lifecycle (control.h). */
#include "control.h"

#include <errno.h>
#include <nodelet/doc.h>
#include <nodelet/meta.h>
#include <nodelet/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth/access.h"
#include "auth/authz.h"
#include "core/log.h"
#include "core/query.h"
#include "fixtures.h"
#include "journal_page.h"

#define PREFIX_V1 MOCK_CONTROL_PREFIX "v1/"

/* ------------------------------------------------------------------------
 * Lifecycle */

int64_t mock_control_now(const mock_control *c)
{
	const mock_options *o = c ? c->api->opts : NULL;
	return o && o->clock ? o->clock(o->clock_payload) : nl_time_now();
}

static int dump_kind(const char *json, size_t len, void *payload)
{
	nl_buf *b = payload;
	if (b->len > 0 && b->data[b->len - 1] != '[' && nl_buf_adds(b, ","))
		return NL_ENOMEM;
	return nl_buf_add(b, json, len) ? NL_ENOMEM : 0;
}

/* Every stored object, as {"kind":"List","apiVersion":"v1","metadata":
 * {"resourceVersion"},"items":[...]} (kinds in a fixed order, namespaces
 * first, objects in key order). *out: caller frees. */
static int control_dump(char **out, size_t *len_out, mock_api *api)
{
	nl_buf items;
	uint64_t rv = 0;
	nl_buf_init(&items, 0);
	int rc = nl_buf_adds(&items, "[");
	for (int k = 0; rc == 0 && k < MOCK_KIND_COUNT; k++)
		rc = mock_store_visit(api->store, mock_resource_get((mock_kind)k), NULL, dump_kind,
		                      &items, &rv, NULL);
	nl_buf b;
	nl_buf_init(&b, 0);
	if (rc == 0)
		rc = nl_buf_printf(&b,
		                   "{\"kind\":\"List\",\"apiVersion\":\"v1\",\"metadata\":{"
		                   "\"resourceVersion\":\"%llu\"},\"items\":%s]}",
		                   (unsigned long long)rv, items.data);
	nl_buf_free(&items);
	char *s = rc == 0 ? nl_buf_detach(&b, len_out) : NULL;
	nl_buf_free(&b);
	if (!s)
		return rc ? rc : NL_ENOMEM;
	*out = s;
	return 0;
}

/* The seeded state as objects to create again: what the server set on
 * create is dropped, so a reset re-creates them like the first start. */
static int snapshot(json_object **out, mock_api *api)
{
	char *dump = NULL;
	size_t len = 0;
	int rc = control_dump(&dump, &len, api);
	if (rc != 0)
		return rc;
	json_object *list = json_tokener_parse(dump);
	free(dump);
	json_object *items = NULL;
	if (!list || !json_object_object_get_ex(list, "items", &items)) {
		json_object_put(list);
		return NL_ENOMEM;
	}
	for (size_t i = 0; i < json_object_array_length(items); i++) {
		json_object *o = json_object_array_get_idx(items, i);
		nl_meta_set_string(o, "uid", NULL);
		nl_meta_set_string(o, "resourceVersion", NULL);
		nl_meta_set_string(o, "creationTimestamp", NULL);
	}
	*out = json_object_get(items);
	json_object_put(list);
	return 0;
}

static uint64_t default_seed(void)
{
	return ((uint64_t)nl_time_now() ^ ((uint64_t)getpid() << 32)) & (uint64_t)INT64_MAX;
}

static int load_faults_file(mock_control *c, const char *path, nl_err *err)
{
	json_object *docs = NULL;
	int rc = nl_doc_load_file(&docs, path, err);
	if (rc != 0)
		return rc;
	/* One document holding a list, or one fault per document. */
	json_object *spec = docs;
	if (json_object_array_length(docs) == 1 &&
	    json_object_is_type(json_object_array_get_idx(docs, 0), json_type_array))
		spec = json_object_array_get_idx(docs, 0);
	nl_err e = {0};
	rc = mock_faults_add_json(NULL, c->faults, spec, &e);
	json_object_put(docs);
	if (rc != 0)
		return nl_err_set(err, rc, "--faults %s: %s", path, e.msg);
	return 0;
}

static int owns_path(void *payload, const char *path);
static void handle_path(void *payload, const mock_request *req, mock_response *resp);
static void after_delete(void *payload);

/* The CSR controllers' hooks: the server's authorizer and signing CA. */
static int csr_allows(void *payload, const char *user, const char *const *groups, size_t ngroups,
                      const char *verb, const char *group, const char *resource,
                      const char *subresource)
{
	return mock_access_allows(payload, user, groups, ngroups, verb, group, resource,
	                          subresource);
}

static int csr_sign(void *payload, char **cert, const char *csr_pem, size_t len, int64_t not_before,
                    int64_t not_after, const char *const *usages, size_t nusages, nl_err *err)
{
	const mock_keypair *ca = mock_access_signer(payload);
	if (!ca)
		return nl_err_set(err, NL_EINVAL, "no signing CA");
	return mock_cert_sign_request(cert, csr_pem, len, ca, not_before, not_after, usages,
	                              nusages, err);
}

int mock_control_new(mock_control **out, mock_api *api, nl_err *err)
{
	const mock_options *o = api->opts;
	mock_control *c = calloc(1, sizeof(*c));
	if (!c)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	c->api = api;
	uint64_t seed = o->random_seed_set ? o->random_seed : default_seed();
	int rc = mock_faults_new(&c->faults, seed);
	if (rc == 0)
		rc = mock_journal_new(&c->journal, o->journal_size);
	if (rc == 0)
		rc = mock_controllers_new(&c->controllers, api->store, o, err);
	else
		nl_err_set(err, rc, "out of memory");
	if (rc == 0) {
		mock_csr_hooks h = {csr_allows, csr_sign, (void *)api->access};
		mock_controllers_set_csr_hooks(c->controllers, &h);
	}
	if (rc == 0 && (rc = snapshot(&c->seed, api)) != 0)
		nl_err_set(err, rc, "cannot snapshot the seeded state");
	if (rc == 0 && o->faults_file)
		rc = load_faults_file(c, o->faults_file, err);
	if (rc != 0) {
		mock_control_free(c);
		return rc;
	}
	MOCK_LOG_V(1, "Fault injection", NL_KV_UINT("randomSeed", seed));
	/* No before_delete: propagation policies are finalizers the garbage
	 * collector finishes (controllers/gc_finalizers.c). */
	api->hooks = (mock_api_hooks){owns_path, handle_path, NULL, after_delete, c};
	*out = c;
	return 0;
}

int mock_control_start(mock_control *c, nl_err *err)
{
	if (!c->delays && mock_delays_new(&c->delays) != 0)
		return nl_err_set(err, NL_ERROR, "cannot start the delay timer");
	return mock_controllers_start(c->controllers, err);
}

void mock_control_stop(mock_control *c)
{
	if (!c)
		return;
	mock_delays_shutdown(c->delays);
	mock_controllers_stop(c->controllers);
}

void mock_control_forget_delays(mock_control *c)
{
	mock_delays_free(c->delays);
	c->delays = NULL;
}

void mock_control_free(mock_control *c)
{
	if (!c)
		return;
	mock_control_stop(c);
	if (c->api->hooks.payload == c)
		c->api->hooks = (mock_api_hooks){0};
	mock_delays_free(c->delays);
	mock_controllers_free(c->controllers);
	mock_journal_free(c->journal);
	mock_faults_free(c->faults);
	json_object_put(c->seed);
	free(c);
}

int mock_control_reset(mock_control *c, nl_err *err)
{
	json_object *seed = NULL;
	if (!c)
		return nl_err_set(err, NL_EINVAL, "no control state");
	if (json_object_deep_copy(c->seed, &seed, NULL) != 0)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	int rc = mock_store_clear(c->api->store);
	if (rc == 0)
		rc = mock_fixtures_apply(c->api, seed, "seeded state", err);
	else
		nl_err_set(err, rc, "cannot clear the store");
	json_object_put(seed);
	mock_control_forget(c);
	return rc;
}

void mock_control_forget(mock_control *c)
{
	mock_faults_clear(NULL, c->faults);
	mock_controllers_reset(c->controllers);
	mock_journal_clear(c->journal);
}

/* ------------------------------------------------------------------------
 * Authorization hook */

static int control_allowed(const mock_control *c, const char *user, const char *const *groups,
                           size_t ngroups)
{
	/* --control-api-group once identities are on (auth/access.h). */
	return mock_access_control_allowed(c->api->access, user, groups, ngroups);
}

/* kube-apiserver's 403 for a non-resource URL: `forbidden: User "<user>"
 * cannot <verb> path "<path>"`. Caller frees. */
static nl_status *control_forbidden(const char *user, const char *verb, const char *path)
{
	mock_req_attrs attrs = {.verb = verb, .resource = "", .subresource = "", .group = ""};
	return mock_authz_forbidden(user ? user : "system:anonymous", &attrs, path, NULL);
}

/* ------------------------------------------------------------------------
 * Endpoints */

int mock_control_is_control_path(const mock_control *c, const char *path)
{
	size_t n = strlen(MOCK_CONTROL_PREFIX);
	return c && !c->api->opts->disable_control_api && path &&
	       (strncmp(path, MOCK_CONTROL_PREFIX, n) == 0 || strcmp(path, "/mockapi") == 0);
}

static void answer_json(mock_response *resp, int code, json_object *o)
{
	size_t len = 0;
	const char *text = o ? nl_json_compact(o, &len) : NULL;
	if (text)
		mock_response_json(resp, code, text, len);
	else
		mock_response_status(resp, nl_status_internal("out of memory"));
	json_object_put(o);
}

static json_object *items(json_object *array)
{
	json_object *o = json_object_new_object();
	if (o)
		json_object_object_add(o, "items", array);
	else
		json_object_put(array);
	return o;
}

/* A body for a control endpoint: JSON or YAML, one document. */
static int parse_body(json_object **out, const mock_request *req, mock_response *resp)
{
	nl_err err = {0};
	if (!req->body || req->body_len == 0) {
		mock_response_status(resp, nl_status_bad_request("a request body is required"));
		return -1;
	}
	if (nl_doc_parse_one(out, req->body, req->body_len, "request body", &err) != 0) {
		mock_response_status(resp, nl_status_bad_request(err.msg));
		return -1;
	}
	return 0;
}

static void fault_error(mock_response *resp, int rc, const nl_err *err)
{
	if (rc == NL_EEXISTS)
		mock_response_status(resp, nl_status_new(409, "AlreadyExists", err->msg));
	else if (rc == NL_EINVALID || rc == NL_ETOOBIG)
		mock_response_status(resp, nl_status_new(422, "Invalid", err->msg));
	else
		mock_response_status(resp, nl_status_internal(err->msg));
}

static nl_status *fault_not_found(const char *id)
{
	return nl_status_newf(404, "NotFound", "fault \"%s\" not found", id);
}

static void handle_faults(mock_control *c, const char *id, const mock_request *req,
                          mock_response *resp)
{
	const char *m = req->method;
	if (strcmp(m, "POST") == 0 && !id) {
		json_object *spec = NULL, *added = NULL;
		nl_err err = {0};
		if (parse_body(&spec, req, resp) != 0)
			return;
		int rc = mock_faults_add_json(&added, c->faults, spec, &err);
		json_object_put(spec);
		if (rc != 0)
			fault_error(resp, rc, &err);
		else
			answer_json(resp, 201, items(added));
	} else if (strcmp(m, "GET") == 0 && !id) {
		json_object *o = items(mock_faults_list_json(c->faults));
		if (o)
			json_object_object_add(
			    o, "seed", json_object_new_int64((int64_t)mock_faults_seed(c->faults)));
		answer_json(resp, 200, o);
	} else if (strcmp(m, "GET") == 0) {
		json_object *f = mock_faults_get(c->faults, id);
		if (f)
			answer_json(resp, 200, f);
		else
			mock_response_status(resp, fault_not_found(id));
	} else if (strcmp(m, "DELETE") == 0 && !id) {
		json_object *all = NULL;
		mock_faults_clear(&all, c->faults);
		answer_json(resp, 200, items(all));
	} else if (strcmp(m, "DELETE") == 0) {
		json_object *f = NULL;
		if (mock_faults_remove(&f, c->faults, id) == 0)
			answer_json(resp, 200, f);
		else
			mock_response_status(resp, fault_not_found(id));
	} else {
		mock_response_status(resp, nl_status_method_not_allowed());
	}
}

static void handle_requests(mock_control *c, const mock_request *req, mock_response *resp)
{
	if (strcmp(req->method, "GET") == 0) {
		const char *since = mock_request_query(req, "since");
		const char *format = mock_request_query(req, "format");
		uint64_t seq = 0;
		if (since && *since && nl_rv_parse(&seq, since) != 0) {
			mock_response_status(resp,
			                     nl_status_bad_request("since: must be a sequence "
			                                           "number"));
			return;
		}
		if (format && strcmp(format, "html") == 0)
			mock_journal_page(resp, c->journal, c->api->store, seq);
		else if (format && *format && strcmp(format, "json") != 0)
			mock_response_status(resp,
			                     nl_status_bad_request("format: must be json or html"));
		else
			answer_json(resp, 200, mock_journal_to_json(c->journal, seq));
	} else if (strcmp(req->method, "DELETE") == 0) {
		size_t n = mock_journal_clear(c->journal);
		json_object *o = json_object_new_object();
		if (o)
			json_object_object_add(o, "deleted", json_object_new_int64((int64_t)n));
		answer_json(resp, 200, o);
	} else {
		mock_response_status(resp, nl_status_method_not_allowed());
	}
}

static json_object *rv_object(mock_api *api)
{
	char rv[32];
	json_object *o = json_object_new_object();
	snprintf(rv, sizeof(rv), "%llu", (unsigned long long)mock_store_rv(api->store));
	if (o)
		json_object_object_add(o, "resourceVersion", json_object_new_string(rv));
	return o;
}

static void handle_reset(mock_control *c, const mock_request *req, mock_response *resp)
{
	nl_err err = {0};
	if (strcmp(req->method, "POST") != 0) {
		mock_response_status(resp, nl_status_method_not_allowed());
		return;
	}
	if (mock_control_reset(c, &err) != 0) {
		mock_response_status(resp, nl_status_internal(err.msg));
		return;
	}
	MOCK_LOG_V(1, "Reset to the seeded state");
	answer_json(resp, 200, rv_object(c->api));
}

static void load_objects(mock_api *api, const mock_request *req, mock_response *resp)
{
	json_object *docs = NULL;
	nl_err err = {0};
	if (!req->body || req->body_len == 0) {
		mock_response_status(resp, nl_status_bad_request("a request body is required"));
		return;
	}
	if (nl_doc_parse(&docs, req->body, req->body_len, "request body", &err) != 0) {
		mock_response_status(resp, nl_status_bad_request(err.msg));
		return;
	}
	size_t n = json_object_array_length(docs);
	int rc = mock_fixtures_apply(api, docs, "request body", &err);
	json_object_put(docs);
	if (rc != 0) {
		mock_response_status(resp, nl_status_new(422, "Invalid", err.msg));
		return;
	}
	json_object *o = rv_object(api);
	if (o)
		json_object_object_add(o, "loaded", json_object_new_int64((int64_t)n));
	answer_json(resp, 200, o);
}

static void handle_objects(mock_api *api, const mock_request *req, mock_response *resp)
{
	if (strcmp(req->method, "GET") == 0) {
		char *dump = NULL;
		size_t len = 0;
		if (control_dump(&dump, &len, api) != 0) {
			mock_response_status(resp, nl_status_internal("out of memory"));
			return;
		}
		mock_response_json(resp, 200, dump, len);
		free(dump);
	} else if (strcmp(req->method, "POST") == 0) {
		load_objects(api, req, resp);
	} else {
		mock_response_status(resp, nl_status_method_not_allowed());
	}
}

/* The hooks of mock_api (handlers/api.h). */
static int owns_path(void *payload, const char *path)
{
	return mock_control_is_control_path(payload, path);
}

static void handle_path(void *payload, const mock_request *req, mock_response *resp)
{
	mock_control *c = payload;
	mock_api *api = c->api;
	if (!control_allowed(c, req->user, req->groups, req->ngroups)) {
		mock_req_attrs attrs; /* a non-resource request: the verb is the method */
		mock_request_attrs(&attrs, req->method, req->path, NULL, NULL);
		mock_response_status(resp, control_forbidden(req->user, attrs.verb, req->path));
		return;
	}
	const char *p = req->path;
	size_t n = strlen(PREFIX_V1);
	const char *rest = strncmp(p, PREFIX_V1, n) == 0 ? p + n : NULL;
	if (rest && strcmp(rest, "faults") == 0)
		handle_faults(c, NULL, req, resp);
	else if (rest && strncmp(rest, "faults/", 7) == 0 && rest[7] && !strchr(rest + 7, '/'))
		handle_faults(c, rest + 7, req, resp);
	else if (rest && strcmp(rest, "requests") == 0)
		handle_requests(c, req, resp);
	else if (rest && strcmp(rest, "reset") == 0)
		handle_reset(c, req, resp);
	else if (rest && strcmp(rest, "objects") == 0)
		handle_objects(api, req, resp);
	else
		mock_response_status(resp, nl_status_unknown_path());
}

/* ------------------------------------------------------------------------
 * After a DELETE */

static void after_delete(void *payload)
{
	mock_control *c = payload;
	mock_controllers_kick(c->controllers);
}
