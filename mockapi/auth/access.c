/* The per-server access state and the hooks of access.h. */
#include "access.h"

#include <errno.h>
#include <microhttpd.h>
#include <nodelet/buf.h>
#include <nodelet/meta.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/route.h"
#include "authz.h"
#include "certs.h"
#include "core/log.h"
#include "node_restriction.h"
#include "storage/store.h"
#include "tls.h"

#define MAX_PEM_BYTES (1024u * 1024u)

struct mock_access {
	int enabled; /* identities are computed and checked */
	mock_authz_mode mode;
	mock_authn authn;
	mock_tokens *tokens;
	mock_tls *tls;
	const char *control_group;
	size_t max_header_bytes;
	mock_inflight inflight;
	/* --kubeconfig-out */
	char *kc_ca_pem;
	mock_keypair kc_client;
	/* the csrsigning CA; its certificate is also a client CA */
	mock_keypair signer;
};

/* A PEM file into *out (caller frees). */
static int read_file(char **out, const char *flag, const char *path, nl_err *err)
{
	FILE *f = fopen(path, "rb");
	nl_buf b;
	char chunk[4096];
	size_t got;
	int rc = 0;
	if (!f)
		return nl_err_set(err, NL_EIO, "--%s: open %s: %s", flag, path, strerror(errno));
	nl_buf_init(&b, MAX_PEM_BYTES);
	while (rc == 0 && (got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		rc = nl_buf_add(&b, chunk, got);
	if (rc == 0 && ferror(f))
		rc = NL_EIO;
	fclose(f);
	char *s = rc == 0 ? nl_buf_detach(&b, NULL) : NULL;
	nl_buf_free(&b);
	if (!s)
		return nl_err_set(err, rc ? rc : NL_ENOMEM, "--%s: cannot read %s", flag, path);
	*out = s;
	return 0;
}

/* The flag's file, else a copy of the generated text. */
static int pem_of(char **out, const char *flag, const char *path, const char *generated,
                  nl_err *err)
{
	if (path)
		return read_file(out, flag, path, err);
	if (!(*out = strdup(generated)))
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	return 0;
}

/* --generate-certs: write the files, then serve with whatever the other
 * flags do not name. */
static int generate(mock_access *a, mock_cert_set *set, const mock_options *o, nl_err *err)
{
	int rc = mock_certs_generate(
	    set, o->generate_client_user ? o->generate_client_user : MOCK_DEFAULT_CLIENT_USER,
	    o->generate_client_groups ? o->generate_client_groups : MOCK_DEFAULT_CLIENT_GROUPS,
	    o->bind_address, err);
	if (rc == 0)
		rc = mock_certs_write_dir(o->generate_certs_dir, set, err);
	if (rc != 0)
		return rc;
	MOCK_LOG_V(1, "Generated a CA, serving and client certificates",
	           NL_KV_STR("dir", o->generate_certs_dir));
	a->kc_client = set->client;
	set->client.cert_pem = set->client.key_pem = NULL;
	return 0;
}

/* The CA the csrsigning controller signs with: --cluster-signing-*-file,
 * else the --generate-certs CA, else one made now. */
static int setup_signer(mock_access *a, const mock_options *o, const mock_cert_set *set,
                        nl_err *err)
{
	if (!o->cluster_signing_cert_file != !o->cluster_signing_key_file)
		return nl_err_set(err, NL_EINVAL,
		                  "--cluster-signing-cert-file and --cluster-signing-key-file go "
		                  "together");
	if (o->cluster_signing_cert_file) {
		int rc = read_file(&a->signer.cert_pem, "cluster-signing-cert-file",
		                   o->cluster_signing_cert_file, err);
		return rc ? rc
		          : read_file(&a->signer.key_pem, "cluster-signing-key-file",
		                      o->cluster_signing_key_file, err);
	}
	if (set->ca.cert_pem) {
		a->signer.cert_pem = strdup(set->ca.cert_pem);
		a->signer.key_pem = strdup(set->ca.key_pem);
		return a->signer.cert_pem && a->signer.key_pem
		           ? 0
		           : nl_err_set(err, NL_ENOMEM, "out of memory");
	}
	int64_t now = (int64_t)time(NULL);
	mock_cert_spec ca = {.common_name = "nodelet-mockapi-signer",
	                     .not_before = now - 3600,
	                     .not_after = now + 365 * 86400,
	                     .ca = 1};
	return mock_cert_issue(&a->signer, &ca, NULL, err);
}

/* The client CA pool: --client-ca-file (or the generated CA) and the
 * signer's CA, so certificates the signer issues authenticate. */
static int client_pool(char **pool, const mock_access *a)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	int rc = *pool ? nl_buf_printf(&b, "%s\n", *pool) : 0;
	if (rc == 0)
		rc = nl_buf_printf(&b, "%s", a->signer.cert_pem);
	if (rc != 0) {
		nl_buf_free(&b);
		return NL_ENOMEM;
	}
	free(*pool);
	*pool = nl_buf_detach(&b, NULL);
	nl_buf_free(&b);
	return *pool ? 0 : NL_ENOMEM;
}

static int setup_tls(mock_access *a, const mock_options *o, nl_err *err)
{
	mock_cert_set set = {{0}, {0}, {0}};
	char *cert = NULL, *key = NULL, *ca = NULL;
	int gen = o->generate_certs_dir != NULL, rc = 0;
	if (!gen && !o->tls_cert_file != !o->tls_private_key_file)
		return nl_err_set(err, NL_EINVAL,
		                  "--tls-cert-file and --tls-private-key-file go together");
	if (!gen && !o->tls_cert_file)
		return o->client_ca_file ? nl_err_set(err, NL_EINVAL,
		                                      "--client-ca-file needs HTTPS: "
		                                      "--tls-cert-file or --generate-certs")
		                         : 0;
	if (gen)
		rc = generate(a, &set, o, err);
	if (rc == 0)
		rc = pem_of(&cert, "tls-cert-file", o->tls_cert_file, set.server.cert_pem, err);
	if (rc == 0)
		rc = pem_of(&key, "tls-private-key-file", o->tls_private_key_file,
		            set.server.key_pem, err);
	if (rc == 0 && (o->client_ca_file || gen))
		rc = pem_of(&ca, "client-ca-file", o->client_ca_file, set.ca.cert_pem, err);
	if (rc == 0)
		rc = setup_signer(a, o, &set, err);
	if (rc == 0 && ca && client_pool(&ca, a) != 0)
		rc = nl_err_set(err, NL_ENOMEM, "out of memory");
	if (rc == 0)
		rc = mock_tls_new(&a->tls, cert, key, ca, err);
	if (rc == 0)
		mock_tls_set_clock(a->tls, o->clock, o->clock_payload);
	/* kubectl trusts the generated CA; a serving certificate of the user's
	 * own is embedded as is (right for a self-signed one). */
	if (rc == 0)
		rc = pem_of(&a->kc_ca_pem, "", NULL,
		            gen && !o->tls_cert_file ? set.ca.cert_pem : cert, err);
	if (key)
		memset(key, 0, strlen(key));
	free(cert);
	free(key);
	free(ca);
	mock_cert_set_clear(&set);
	return rc;
}

int mock_access_new(mock_access **out, const mock_options *o, nl_err *err)
{
	mock_access *a = calloc(1, sizeof(*a));
	if (!a)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	int rc = mock_authz_mode_parse(
	    &a->mode, o->authorization_mode ? o->authorization_mode : "AlwaysAllow", err);
	if (rc == 0)
		rc = setup_tls(a, o, err);
	if (rc == 0 && o->token_auth_file) {
		rc = mock_tokens_load(&a->tokens, o->token_auth_file, err);
		if (rc != 0 && err) {
			char msg[sizeof(err->msg)];
			snprintf(msg, sizeof(msg), "%s", err->msg);
			nl_err_set(err, rc, "--token-auth-file: %s", msg);
		}
	}
	if (rc != 0) {
		mock_access_free(a);
		return rc;
	}
	a->authn.tokens = a->tokens;
	a->authn.anonymous = o->anonymous_auth;
	a->enabled = a->tokens || (a->tls && (o->client_ca_file || o->generate_certs_dir)) ||
	             !o->anonymous_auth || a->mode != MOCK_AUTHZ_ALWAYS_ALLOW;
	a->control_group = o->control_api_group ? o->control_api_group : MOCK_GROUP_MASTERS;
	a->max_header_bytes = o->max_header_bytes;
	a->inflight.max_readonly = o->max_requests_inflight;
	a->inflight.max_mutating = o->max_mutating_requests_inflight;
	*out = a;
	return 0;
}

void mock_access_free(mock_access *a)
{
	if (!a)
		return;
	mock_tls_free(a->tls);
	mock_tokens_free(a->tokens);
	free(a->kc_ca_pem);
	mock_keypair_clear(&a->kc_client);
	mock_keypair_clear(&a->signer);
	free(a);
}

const mock_keypair *mock_access_signer(const mock_access *a)
{
	return a && a->signer.cert_pem ? &a->signer : NULL;
}

int mock_access_allows(const mock_access *a, const char *user, const char *const *groups,
                       size_t ngroups, const char *verb, const char *group, const char *resource,
                       const char *subresource)
{
	mock_authz_user u = {user, groups, ngroups};
	mock_req_attrs at;
	char reason[512];
	memset(&at, 0, sizeof(at));
	at.verb = verb;
	at.group = group;
	at.resource = resource;
	at.subresource = subresource;
	at.res = mock_resource_find(group, "v1", resource);
	return mock_authz_decide(reason, sizeof(reason), a ? a->mode : MOCK_AUTHZ_ALWAYS_ALLOW, &u,
	                         &at, NULL, NULL, NULL);
}

int mock_access_https(const mock_access *a)
{
	return a && a->tls;
}

void mock_access_mhd_options(struct MHD_OptionItem *items, const mock_access *a)
{
	size_t n = 0;
	if (a && a->max_header_bytes)
		items[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		                                     (intptr_t)a->max_header_bytes, NULL};
	if (a && a->tls)
		n += mock_tls_mhd_options(items + n, a->tls);
	items[n] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
}

void mock_access_kubeconfig_creds(mock_kubeconfig_creds *out, const mock_access *a)
{
	memset(out, 0, sizeof(*out));
	if (!a)
		return;
	out->ca_pem = a->kc_ca_pem;
	out->cert_pem = a->kc_client.cert_pem;
	out->key_pem = a->kc_client.key_pem;
	if (!out->cert_pem)
		out->token = mock_tokens_first(a->tokens);
}

/* ------------------------------------------------------------------------
 * Per request */

static void point_request(mock_request *req, const mock_access_req *ar)
{
	req->unauthenticated = ar->unauthenticated;
	req->user = ar->id.user;
	req->uid = ar->id.uid;
	req->groups = (const char *const *)ar->id.groups;
	req->ngroups = ar->id.ngroups;
}

static int authenticate(mock_access_req *ar, const mock_access *a, struct MHD_Connection *conn)
{
	mock_identity cert_id = {0};
	mock_cert_state cert = a->tls ? mock_tls_peer(&cert_id, a->tls, conn) : MOCK_CERT_NONE;
	const char *authz =
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	int rc = mock_authn_decide(&ar->id, &a->authn, cert, &cert_id, authz);
	mock_identity_clear(&cert_id);
	if (rc == NL_EUNAUTHORIZED) {
		MOCK_LOG_V(2, "Unable to authenticate the request",
		           NL_KV_STR("err", cert == MOCK_CERT_INVALID
		                                ? "invalid client certificate"
		                                : "invalid bearer token or no credentials"));
		ar->unauthenticated = 1;
		return 0;
	}
	return rc;
}

int mock_access_enter(mock_access_req *ar, mock_access *a, struct MHD_Connection *conn,
                      mock_request *req, mock_response *resp)
{
	if (!a)
		return 0;
	if (!ar->entered) {
		ar->entered = 1;
		if (a->enabled && authenticate(ar, a, conn) != 0) {
			mock_response_status(resp, nl_status_internal("out of memory"));
			return 1;
		}
		mock_req_attrs own;
		const mock_req_attrs *attrs = req->attrs;
		if (!attrs) {
			mock_request_attrs(&own, req->method, req->path,
			                   mock_request_query(req, "watch"), NULL);
			attrs = &own;
		}
		/* An unauthenticated request is answered at once: no slot. */
		int exempt =
		    ar->unauthenticated || mock_identity_in_group(&ar->id, MOCK_GROUP_MASTERS);
		if (mock_inflight_enter(&ar->slot, &a->inflight, attrs->verb, exempt) != 0) {
			MOCK_LOG_V(2, "Too many requests in flight", NL_KV_STR("verb", req->method),
			           NL_KV_STR("URI", req->path));
			mock_response_too_many_requests(resp);
			return 1;
		}
	}
	point_request(req, ar);
	return 0;
}

int mock_access_inflight(mock_access *a, unsigned *readonly, unsigned *mutating)
{
	if (!a)
		return -1;
	return mock_inflight_watermarks(&a->inflight, mock_inflight_now_sec(), readonly, mutating);
}

void mock_access_req_clear(mock_access_req *ar, mock_access *a)
{
	if (a)
		mock_inflight_leave(&a->inflight, &ar->slot);
	mock_identity_clear(&ar->id);
	memset(ar, 0, sizeof(*ar));
}

/* The Node authorizer's graph edge: the node's config source ConfigMap. */
static int configmap_of(char ns[254], char name[254], const char *node, void *payload)
{
	mock_store *store = payload;
	json_object *obj = NULL;
	if (mock_store_get_object(store, mock_resource_get(MOCK_KIND_NODE), NULL, node, &obj) != 0)
		return 0;
	const char *n = nl_json_get_string(obj, "spec.configSource.configMap.namespace");
	const char *m = nl_json_get_string(obj, "spec.configSource.configMap.name");
	int found = n && m && strlen(n) < 254 && strlen(m) < 254;
	if (found) {
		strcpy(ns, n);
		strcpy(name, m);
	}
	json_object_put(obj);
	return found;
}

int mock_access_check(const mock_access *a, mock_store *store, const mock_request *req,
                      mock_response *resp, int self_authorizing)
{
	if (!a || !a->enabled)
		return 0;
	if (req->unauthenticated) {
		mock_response_status(resp, mock_authn_unauthorized());
		return 1;
	}
	if (!req->user || self_authorizing)
		return 0;
	mock_req_attrs own;
	const mock_req_attrs *attrs = req->attrs;
	if (!attrs) {
		mock_request_attrs(&own, req->method, req->path, mock_request_query(req, "watch"),
		                   mock_request_query(req, "fieldSelector"));
		attrs = &own;
	}
	mock_authz_user u = {req->user, req->groups, req->ngroups};
	nl_status *st = NULL;
	if (mock_authz_check(&st, a->mode, &u, attrs, req->path, configmap_of, store) == 0)
		return 0;
	MOCK_LOG_V(2, "Forbidden", NL_KV_STR("verb", req->method), NL_KV_STR("URI", req->path),
	           NL_KV_STR("user", req->user));
	mock_response_status(resp, st ? st : nl_status_internal("out of memory"));
	return 1;
}

int mock_access_review(char *reason, size_t rlen, const mock_access *a, mock_store *store,
                       const mock_authz_user *u, const mock_req_attrs *attrs, const char *path)
{
	reason[0] = '\0';
	if (!a || !a->enabled)
		return 1; /* AlwaysAllow */
	return mock_authz_decide(reason, rlen, a->mode, u, attrs, path, configmap_of, store);
}

int mock_access_control_allowed(const mock_access *a, const char *user, const char *const *groups,
                                size_t ngroups)
{
	if (!a || !a->enabled || !user)
		return 1;
	for (size_t i = 0; i < ngroups; i++)
		if (strcmp(groups[i], a->control_group) == 0)
			return 1;
	return 0;
}

nl_status *mock_access_admit(const mock_access *a, const mock_request *req, const mock_resource *r,
                             const char *name, json_object *obj, json_object *old)
{
	if (!a || a->mode != MOCK_AUTHZ_NODE || !req || !req->user)
		return NULL;
	mock_authz_user u = {req->user, req->groups, req->ngroups};
	return mock_node_restriction(&u, r, name, obj, old);
}
