/* HTTPS for the server's one port and x509 client certificate checks.
 *
 * libmicrohttpd (GnuTLS) terminates TLS with the serving key pair; with a
 * client CA it asks clients for a certificate but does not judge it — a
 * handshake succeeds whatever the client sends. The server therefore
 * verifies the peer's chain itself, per request, against --client-ca-file
 * (trust, validity period, extended key usage clientAuth), as
 * kube-apiserver's x509 authenticator does, and takes the user from the
 * subject's CN and the groups from its O values. See
 * docs/decisions/0015-mockapi-auth.md. */
#ifndef MOCK_TLS_H
#define MOCK_TLS_H

#include <nodelet/errors.h>
#include <stddef.h>
#include <stdint.h>

#include "authn.h"

struct MHD_Connection;
struct MHD_OptionItem;

typedef struct mock_tls mock_tls;

/* Set up from PEM texts (copied): the serving certificate (chain) and its
 * private key, and the CA bundle client certificates are verified against
 * (client_ca_pem NULL: no client certificates are asked for). Checks that
 * the key matches the certificate. NL_EINVAL with a message naming the
 * flag on bad input; *out: mock_tls_free. */
int mock_tls_new(mock_tls **out, const char *cert_pem, const char *key_pem,
                 const char *client_ca_pem, nl_err *err);
void mock_tls_free(mock_tls *t);

/* Judge client certificates' validity periods at clock's time
 * (microseconds since the epoch) instead of the wall clock: the server's
 * clock, virtual in nodelet-scenario. clock NULL: the wall clock. */
void mock_tls_set_clock(mock_tls *t, int64_t (*clock)(void *payload), void *payload);

/* The serving certificate PEM (borrowed). */
const char *mock_tls_cert_pem(const mock_tls *t);

/* Append libmicrohttpd's options for HTTPS (key, certificate, client CA,
 * priorities) to items (room for at least 4); returns how many. The
 * strings stay owned by t, which must outlive the daemon. */
size_t mock_tls_mhd_options(struct MHD_OptionItem *items, const mock_tls *t);

/* The client certificate of conn: MOCK_CERT_NONE (none sent, or no client
 * CA configured), MOCK_CERT_VALID with its identity in *out (CN and O
 * values, no system:authenticated yet; mock_identity_clear), or
 * MOCK_CERT_INVALID. */
mock_cert_state mock_tls_peer(mock_identity *out, const mock_tls *t, struct MHD_Connection *conn);

/* The same check for a PEM chain (leaf first), for tests. */
mock_cert_state mock_tls_verify_pem(mock_identity *out, const mock_tls *t, const char *chain_pem);

#endif
