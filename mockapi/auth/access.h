/* Who may do what, and how much: the server's TLS, authentication,
 * authorization, admission and request limits in one place, with the thin
 * hooks the HTTP glue (server/server.c), dispatch and the write path call.
 *
 * Order per request, as in kube-apiserver's handler chain: authentication
 * (401), the in-flight limit (429), authorization (403), the handler (with
 * NodeRestriction before validation). A server without authenticators and
 * in AlwaysAllow mode computes no identities (requests have no user, as
 * before authentication existed); limits apply always.
 * See docs/mockapi.md and docs/decisions/0015-mockapi-auth.md. */
#ifndef MOCK_ACCESS_H
#define MOCK_ACCESS_H

#include <json-c/json.h>
#include <nodelet/errors.h>
#include <nodelet/status.h>
#include <stddef.h>

#include "api/resources.h"
#include "authn.h"
#include "authz.h"
#include "certs.h"
#include "core/options.h"
#include "core/request.h"
#include "request_limits.h"
#include "storage/store.h"

struct MHD_Connection;
struct MHD_OptionItem;

typedef struct mock_access mock_access;

/* What a kubeconfig for this server embeds besides its URL; every member
 * may be NULL. PEM texts are written base64-encoded as the *-data fields
 * (server/kubeconfig_out.h). */
typedef struct {
	const char *ca_pem;   /* certificate-authority-data */
	const char *cert_pem; /* client-certificate-data (with key_pem) */
	const char *key_pem;  /* client-key-data */
	const char *token;    /* token, when there is no client certificate */
} mock_kubeconfig_creds;

/* Build from the options: --generate-certs (files written first),
 * certificate, key, client CA and token files, modes and limits. Errors
 * (unreadable or unusable files, an unknown --authorization-mode, a key
 * without a certificate) carry their message in err. *out:
 * mock_access_free. */
int mock_access_new(mock_access **out, const mock_options *o, nl_err *err);
void mock_access_free(mock_access *a);

/* apiserver_current_inflight_requests: the watermarks of the last second
 * (request_limits.h). 0, or -1 without in-flight limits or with a NULL. */
int mock_access_inflight(mock_access *a, unsigned *readonly, unsigned *mutating);

/* Whether the port speaks HTTPS. */
int mock_access_https(const mock_access *a);

/* The csrsigning controller's CA (access.c), or NULL. Borrowed. */
const mock_keypair *mock_access_signer(const mock_access *a);
/* A SubjectAccessReview of user (with groups) for verb on
 * group/resource/subresource, cluster-wide, by the configured authorizer:
 * 1 allowed, 0 not. a NULL: AlwaysAllow. */
int mock_access_allows(const mock_access *a, const char *user, const char *const *groups,
                       size_t ngroups, const char *verb, const char *group, const char *resource,
                       const char *subresource);
/* libmicrohttpd options (connection memory limit, HTTPS) into items, which
 * has room for 8, ending with MHD_OPTION_END; for MHD_OPTION_ARRAY. */
void mock_access_mhd_options(struct MHD_OptionItem *items, const mock_access *a);

/* Per-request state in the server's request context; zeroed at first. */
typedef struct {
	int entered;
	int unauthenticated;
	mock_identity id;
	mock_inflight_slot slot;
} mock_access_req;

/* server.c, for a complete request (again after a delay): authenticate
 * once (client certificate of conn, Authorization header) and take an
 * in-flight slot, then point req's user, groups and unauthenticated at the
 * result. Returns 0 to go on, or 1 with the answer in resp (429, or 500
 * when out of memory), sent without faults or journal. */
int mock_access_enter(mock_access_req *ar, mock_access *a, struct MHD_Connection *conn,
                      mock_request *req, mock_response *resp);
/* The request ended: give back its slot, free its identity. */
void mock_access_req_clear(mock_access_req *ar, mock_access *a);

/* Dispatch, before anything else: 401 for refused credentials, 403 from
 * the authorizer (the Node authorizer reads Nodes from store), except for a
 * self_authorizing path whose handler decides for itself (the control API:
 * mock_access_control_allowed). Returns 1 when resp holds the answer.
 * Requests without a user (internal ones, or no authentication
 * configured) pass. */
int mock_access_check(const mock_access *a, mock_store *store, const mock_request *req,
                      mock_response *resp, int self_authorizing);

/* What the authorizer says of attrs (path for a non-resource request) for
 * user u, for the access reviews: 1 allowed, 0 not, with the authorizer's
 * reason in reason (rlen bytes, "" for none; authz.h). Without
 * authentication configured everything is allowed (AlwaysAllow). */
int mock_access_review(char *reason, size_t rlen, const mock_access *a, mock_store *store,
                       const mock_authz_user *u, const mock_req_attrs *attrs, const char *path);

/* The control API's rule: with identities on, only members of
 * --control-api-group (default system:masters). user NULL passes. */
int mock_access_control_allowed(const mock_access *a, const char *user, const char *const *groups,
                                size_t ngroups);

/* NodeRestriction for a write by req of r's object name (obj about to be
 * stored, old the stored one or NULL on create), in Node mode. NULL admits;
 * else the 403 (caller frees). */
nl_status *mock_access_admit(const mock_access *a, const mock_request *req, const mock_resource *r,
                             const char *name, json_object *obj, json_object *old);

/* What --kubeconfig-out embeds (borrowed; NULL members when none): the CA
 * to trust (the generated CA, else the serving certificate) and the
 * credentials (the generated client certificate, else the token file's
 * first token). */
void mock_access_kubeconfig_creds(mock_kubeconfig_creds *out, const mock_access *a);

#endif
