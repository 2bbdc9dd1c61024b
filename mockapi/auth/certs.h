/* Throwaway certificates (--generate-certs DIR) made with GnuTLS's x509
 * API: a CA, a serving certificate for the loopback names and a client
 * certificate for a chosen user and groups, so tests and the quick start
 * need no openssl recipes. Keys are ECDSA P-256. */
#ifndef MOCK_CERTS_H
#define MOCK_CERTS_H

#include <nodelet/errors.h>
#include <stddef.h>
#include <stdint.h>

/* A certificate and its private key, PEM; both owned. */
typedef struct {
	char *cert_pem;
	char *key_pem;
} mock_keypair;

void mock_keypair_clear(mock_keypair *k);

typedef struct {
	const char *common_name;
	const char *const *organizations; /* subject O values (groups) */
	size_t norganizations;
	int64_t not_before; /* seconds since the epoch */
	int64_t not_after;
	int ca;                       /* a CA: basicConstraints CA, keyCertSign */
	int server;                   /* extKeyUsage serverAuth */
	int client;                   /* extKeyUsage clientAuth */
	const char *const *dns_names; /* subjectAltName DNS entries */
	size_t ndns;
	const char *const *ips; /* subjectAltName IP entries (v4 or v6 text) */
	size_t nips;
} mock_cert_spec;

/* Issue a certificate with a new key, signed by issuer (NULL: self-signed).
 * Any validity period is allowed, past ones included (tests make expired
 * certificates this way). NL_EINVAL for a bad IP or an unusable issuer,
 * NL_ERROR with GnuTLS's text otherwise. *out: mock_keypair_clear. */
int mock_cert_issue(mock_keypair *out, const mock_cert_spec *spec, const mock_keypair *issuer,
                    nl_err *err);

/* Sign the PEM request csr_pem (len bytes) with ca: its subject and key,
 * validity [not_before, not_after] (seconds since the epoch), key usages
 * and extended usages from usages (the CSR's spec.usages), not a CA, no
 * other extension. *out: the PEM certificate (caller frees). NL_EINVAL
 * for an unusable request or usage, NL_ERROR with GnuTLS's text. */
int mock_cert_sign_request(char **out, const char *csr_pem, size_t len, const mock_keypair *ca,
                           int64_t not_before, int64_t not_after, const char *const *usages,
                           size_t nusages, nl_err *err);

/* What --generate-certs makes. */
typedef struct {
	mock_keypair ca;     /* ca.crt, ca.key */
	mock_keypair server; /* server.crt, server.key */
	mock_keypair client; /* client.crt, client.key */
} mock_cert_set;

#define MOCK_DEFAULT_CLIENT_USER "kubernetes-admin"
#define MOCK_DEFAULT_CLIENT_GROUPS "system:masters"

/* Make a CA valid for a year (from an hour ago, for clock skew), a serving
 * certificate for 127.0.0.1, ::1, localhost and extra_ip (may be NULL; a
 * wildcard address is skipped), and a client certificate with CN user and
 * one O per comma-separated entry of groups ("" for none). *out:
 * mock_cert_set_clear. */
int mock_certs_generate(mock_cert_set *out, const char *user, const char *groups,
                        const char *extra_ip, nl_err *err);
void mock_cert_set_clear(mock_cert_set *s);

/* Write the six files into dir (created 0700 if missing), each mode 0600
 * and crash-safe (nodelet/fs.h). NL_EIO with the path and errno text. */
int mock_certs_write_dir(const char *dir, const mock_cert_set *s, nl_err *err);

#endif
