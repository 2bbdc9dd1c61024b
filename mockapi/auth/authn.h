/* Authentication as kube-apiserver does it for the authenticators the mock
 * has: x509 client certificates (verified by tls.c), the static token file
 * (--token-auth-file) and anonymous requests (--anonymous-auth).
 *
 * The decision itself (authn_decide) takes plain inputs — the
 * Authorization header and what the certificate check found — so it is
 * unit-testable without a TLS connection. See docs/mockapi.md "TLS and
 * authentication". */
#ifndef MOCK_AUTHN_H
#define MOCK_AUTHN_H

#include <nodelet/errors.h>
#include <nodelet/status.h>
#include <stddef.h>

#define MOCK_USER_ANONYMOUS "system:anonymous"
#define MOCK_GROUP_UNAUTHENTICATED "system:unauthenticated"
#define MOCK_GROUP_AUTHENTICATED "system:authenticated"
#define MOCK_GROUP_MASTERS "system:masters"

/* Who a request comes from. Every string is owned; mock_identity_clear
 * frees them. */
typedef struct {
	char *user;
	char *uid; /* token file only; may be NULL */
	char **groups;
	size_t ngroups;
} mock_identity;

/* Set *out to user and groups (copied). 0 or NL_ENOMEM (out untouched). */
int mock_identity_set(mock_identity *out, const char *user, const char *uid,
                      const char *const *groups, size_t ngroups);
/* Free the strings and zero id. NULL ok. */
void mock_identity_clear(mock_identity *id);
/* Whether id lists group. */
int mock_identity_in_group(const mock_identity *id, const char *group);

/* --- static token file ---------------------------------------------------
 * kube-apiserver's CSV (k8s.io/apiserver tokenfile.NewCSV): read with Go's
 * encoding/csv rules (quoted fields, "" escapes, quoted newlines, blank
 * lines skipped, no comments, no trimming); at least three columns
 * `token,user,uid`; an optional fourth `"group1,group2"` split on commas.
 * A record with an empty token is skipped, a repeated token replaces the
 * earlier one (both logged as warnings, as upstream). */
typedef struct mock_tokens mock_tokens;

/* Parse text (len bytes; need not be NUL-terminated). path names the file
 * in messages. Errors in err, with upstream's texts:
 *   NL_EPARSE  `parse error on line 2, column 5: bare " in non-quoted-field`
 *              (Go's csv.ParseError; `extraneous or missing " in
 *              quoted-field` for bad quoting);
 *   NL_EINVALID `token file '<path>' must have at least 3 columns (token,
 *              user name, user uid), found 2`;
 *   NL_ENOMEM.
 * *out: mock_tokens_free. */
int mock_tokens_parse(mock_tokens **out, const char *text, size_t len, const char *path,
                      nl_err *err);
/* Read and parse a file (NL_EIO with errno's text when unreadable). */
int mock_tokens_load(mock_tokens **out, const char *path, nl_err *err);
void mock_tokens_free(mock_tokens *t);
/* Number of tokens. */
size_t mock_tokens_count(const mock_tokens *t);
/* The entry for token (compared in constant time per entry), or NULL.
 * Borrowed: lives as long as t. The identity's groups are the file's
 * only (no system:authenticated). */
const mock_identity *mock_tokens_find(const mock_tokens *t, const char *token);
/* The token of the first record (for --kubeconfig-out), or NULL. */
const char *mock_tokens_first(const mock_tokens *t);

/* --- the decision ------------------------------------------------------- */

typedef enum {
	MOCK_CERT_NONE,    /* no client certificate (or no --client-ca-file) */
	MOCK_CERT_VALID,   /* verified; its identity is passed along */
	MOCK_CERT_INVALID, /* presented but untrusted, expired or unusable */
} mock_cert_state;

typedef struct {
	const mock_tokens *tokens; /* NULL: bearer tokens are not looked at */
	int anonymous;             /* --anonymous-auth */
} mock_authn;

/* Authenticate one request as kube-apiserver's authenticator chain does:
 * the x509 authenticator first (a valid certificate with a CN wins; one
 * without a CN has no opinion), then the bearer token of authorization (the
 * Authorization header, may be NULL; `Bearer <token>`, scheme any case;
 * other schemes or an empty token have no opinion), and when nobody
 * authenticated and nobody failed, anonymous (user system:anonymous, group
 * system:unauthenticated) if allowed. Authenticated users get
 * system:authenticated added. An invalid certificate or an unknown token
 * fails the request even with anonymous allowed, unless the other
 * authenticator succeeds.
 * Returns 0 with *out filled (mock_identity_clear), NL_EUNAUTHORIZED (the
 * 401 `Unauthorized`), or NL_ENOMEM; *out untouched on failure. */
int mock_authn_decide(mock_identity *out, const mock_authn *a, mock_cert_state cert,
                      const mock_identity *cert_id, const char *authorization);

/* The Status kube-apiserver answers a failed authentication with:
 * 401 `Unauthorized`, reason Unauthorized, no details. Caller frees. */
nl_status *mock_authn_unauthorized(void);

#endif
