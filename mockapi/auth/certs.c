/* Certificate generation with GnuTLS's x509 API. */
#include "certs.h"

#include <arpa/inet.h>
#include <errno.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <nodelet/fs.h>

#define MAX_GROUPS 64

void mock_keypair_clear(mock_keypair *k)
{
	if (!k)
		return;
	free(k->cert_pem);
	if (k->key_pem)
		memset(k->key_pem, 0, strlen(k->key_pem));
	free(k->key_pem);
	k->cert_pem = k->key_pem = NULL;
}

/* A GnuTLS export as a malloc'd NUL-terminated string. */
static char *take_datum(gnutls_datum_t *d)
{
	char *s = malloc(d->size + 1);
	if (s) {
		memcpy(s, d->data, d->size);
		s[d->size] = '\0';
	}
	gnutls_free(d->data);
	d->data = NULL;
	return s;
}

typedef struct {
	gnutls_x509_crt_t crt;
	gnutls_x509_privkey_t key;
} issuer_t;

static int gnutls_fail(nl_err *err, const char *what, int rc)
{
	return nl_err_set(err, NL_ERROR, "%s: %s", what, gnutls_strerror(rc));
}

static int load_issuer(issuer_t *is, const mock_keypair *k, nl_err *err)
{
	gnutls_datum_t c = {(unsigned char *)k->cert_pem, (unsigned)strlen(k->cert_pem)};
	gnutls_datum_t p = {(unsigned char *)k->key_pem, (unsigned)strlen(k->key_pem)};
	int rc;
	if ((rc = gnutls_x509_crt_init(&is->crt)) < 0 ||
	    (rc = gnutls_x509_privkey_init(&is->key)) < 0)
		return gnutls_fail(err, "issuer", rc);
	if ((rc = gnutls_x509_crt_import(is->crt, &c, GNUTLS_X509_FMT_PEM)) < 0 ||
	    (rc = gnutls_x509_privkey_import2(is->key, &p, GNUTLS_X509_FMT_PEM, NULL, 0)) < 0)
		return nl_err_set(err, NL_EINVAL, "issuer: %s", gnutls_strerror(rc));
	return 0;
}

static void free_issuer(issuer_t *is)
{
	if (is->crt)
		gnutls_x509_crt_deinit(is->crt);
	if (is->key)
		gnutls_x509_privkey_deinit(is->key);
}

static int set_names(gnutls_x509_crt_t crt, const mock_cert_spec *spec, nl_err *err)
{
	int rc = 0;
	for (size_t i = 0; rc >= 0 && i < spec->norganizations; i++)
		rc = gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_ORGANIZATION_NAME, 0,
		                                   spec->organizations[i],
		                                   (unsigned)strlen(spec->organizations[i]));
	if (rc >= 0 && spec->common_name)
		rc = gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0,
		                                   spec->common_name,
		                                   (unsigned)strlen(spec->common_name));
	for (size_t i = 0; rc >= 0 && i < spec->ndns; i++)
		rc = gnutls_x509_crt_set_subject_alt_name(
		    crt, GNUTLS_SAN_DNSNAME, spec->dns_names[i],
		    (unsigned)strlen(spec->dns_names[i]), GNUTLS_FSAN_APPEND);
	for (size_t i = 0; rc >= 0 && i < spec->nips; i++) {
		unsigned char ip[16];
		unsigned len = 4;
		if (inet_pton(AF_INET, spec->ips[i], ip) != 1) {
			len = 16;
			if (inet_pton(AF_INET6, spec->ips[i], ip) != 1)
				return nl_err_set(err, NL_EINVAL, "not an IP address: %s",
				                  spec->ips[i]);
		}
		rc = gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_IPADDRESS, ip, len,
		                                          GNUTLS_FSAN_APPEND);
	}
	return rc < 0 ? gnutls_fail(err, "subject", rc) : 0;
}

static int set_usage(gnutls_x509_crt_t crt, const mock_cert_spec *spec, nl_err *err)
{
	unsigned usage = GNUTLS_KEY_DIGITAL_SIGNATURE;
	if (spec->ca)
		usage |= GNUTLS_KEY_KEY_CERT_SIGN | GNUTLS_KEY_CRL_SIGN;
	int rc = gnutls_x509_crt_set_basic_constraints(crt, spec->ca ? 1 : 0, -1);
	if (rc >= 0)
		rc = gnutls_x509_crt_set_key_usage(crt, usage);
	if (rc >= 0 && spec->server)
		rc = gnutls_x509_crt_set_key_purpose_oid(crt, GNUTLS_KP_TLS_WWW_SERVER, 0);
	if (rc >= 0 && spec->client)
		rc = gnutls_x509_crt_set_key_purpose_oid(crt, GNUTLS_KP_TLS_WWW_CLIENT, 0);
	return rc < 0 ? gnutls_fail(err, "key usage", rc) : 0;
}

/* Serial: 16 random bytes, positive. Key ids: subject's own, authority's
 * from the issuer, so chains build without guessing. */
static int set_ids(gnutls_x509_crt_t crt, gnutls_x509_crt_t issuer, nl_err *err)
{
	unsigned char serial[16], id[64];
	size_t idlen = sizeof(id);
	int rc = gnutls_rnd(GNUTLS_RND_NONCE, serial, sizeof(serial));
	serial[0] = (unsigned char)((serial[0] & 0x7f) | 0x40);
	if (rc >= 0)
		rc = gnutls_x509_crt_set_serial(crt, serial, sizeof(serial));
	if (rc >= 0)
		rc = gnutls_x509_crt_get_key_id(crt, 0, id, &idlen);
	if (rc >= 0)
		rc = gnutls_x509_crt_set_subject_key_id(crt, id, idlen);
	if (rc >= 0 && issuer) {
		idlen = sizeof(id);
		rc = gnutls_x509_crt_get_subject_key_id(issuer, id, &idlen, NULL);
		if (rc >= 0)
			rc = gnutls_x509_crt_set_authority_key_id(crt, id, idlen);
	}
	return rc < 0 ? gnutls_fail(err, "serial", rc) : 0;
}

static int build(gnutls_x509_crt_t crt, gnutls_x509_privkey_t key, const mock_cert_spec *spec,
                 const issuer_t *is, nl_err *err)
{
	int rc = gnutls_x509_crt_set_version(crt, 3);
	if (rc >= 0)
		rc = gnutls_x509_crt_set_key(crt, key);
	if (rc >= 0)
		rc = gnutls_x509_crt_set_activation_time(crt, (time_t)spec->not_before);
	if (rc >= 0)
		rc = gnutls_x509_crt_set_expiration_time(crt, (time_t)spec->not_after);
	if (rc < 0)
		return gnutls_fail(err, "certificate", rc);
	if ((rc = set_names(crt, spec, err)) != 0 || (rc = set_usage(crt, spec, err)) != 0 ||
	    (rc = set_ids(crt, is ? is->crt : NULL, err)) != 0)
		return rc;
	rc = gnutls_x509_crt_sign2(crt, is ? is->crt : crt, is ? is->key : key, GNUTLS_DIG_SHA256,
	                           0);
	return rc < 0 ? gnutls_fail(err, "sign", rc) : 0;
}

static int export_pair(mock_keypair *out, gnutls_x509_crt_t crt, gnutls_x509_privkey_t key,
                       nl_err *err)
{
	gnutls_datum_t c = {NULL, 0}, k = {NULL, 0};
	int rc = gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &c);
	if (rc >= 0)
		rc = gnutls_x509_privkey_export2(key, GNUTLS_X509_FMT_PEM, &k);
	if (rc < 0) {
		gnutls_free(c.data);
		return gnutls_fail(err, "export", rc);
	}
	mock_keypair p = {take_datum(&c), take_datum(&k)};
	if (!p.cert_pem || !p.key_pem) {
		mock_keypair_clear(&p);
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	}
	*out = p;
	return 0;
}

int mock_cert_issue(mock_keypair *out, const mock_cert_spec *spec, const mock_keypair *issuer,
                    nl_err *err)
{
	issuer_t is = {NULL, NULL};
	gnutls_x509_crt_t crt = NULL;
	gnutls_x509_privkey_t key = NULL;
	int rc = issuer ? load_issuer(&is, issuer, err) : 0;
	if (rc == 0 &&
	    ((rc = gnutls_x509_crt_init(&crt)) < 0 || (rc = gnutls_x509_privkey_init(&key)) < 0 ||
	     (rc = gnutls_x509_privkey_generate(
	          key, GNUTLS_PK_ECDSA, GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0)) < 0))
		rc = gnutls_fail(err, "key", rc);
	if (rc == 0)
		rc = build(crt, key, spec, issuer ? &is : NULL, err);
	if (rc == 0)
		rc = export_pair(out, crt, key, err);
	if (crt)
		gnutls_x509_crt_deinit(crt);
	if (key)
		gnutls_x509_privkey_deinit(key);
	free_issuer(&is);
	return rc;
}

/* ------------------------------------------------------------------------
 * --generate-certs */

void mock_cert_set_clear(mock_cert_set *s)
{
	if (!s)
		return;
	mock_keypair_clear(&s->ca);
	mock_keypair_clear(&s->server);
	mock_keypair_clear(&s->client);
}

/* Split groups on commas into v (pointers into buf). */
static size_t split_groups(const char **v, char *buf, size_t max)
{
	size_t n = 0;
	for (char *save = NULL, *g = strtok_r(buf, ",", &save); g && n < max;
	     g = strtok_r(NULL, ",", &save))
		v[n++] = g;
	return n;
}

static int is_wildcard(const char *ip)
{
	return !ip || !*ip || strcmp(ip, "0.0.0.0") == 0 || strcmp(ip, "::") == 0 ||
	       strcmp(ip, "127.0.0.1") == 0 || strcmp(ip, "::1") == 0;
}

int mock_certs_generate(mock_cert_set *out, const char *user, const char *groups,
                        const char *extra_ip, nl_err *err)
{
	mock_cert_set s = {{0}, {0}, {0}};
	int64_t now = (int64_t)time(NULL);
	static const char *const dns[] = {"localhost"};
	const char *ips[] = {"127.0.0.1", "::1", extra_ip};
	const char *orgs[MAX_GROUPS];
	char *gbuf = strdup(groups ? groups : "");
	if (!gbuf)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	mock_cert_spec ca = {.common_name = "nodelet-mockapi-ca",
	                     .not_before = now - 3600,
	                     .not_after = now + 365 * 86400,
	                     .ca = 1};
	mock_cert_spec server = {.common_name = "nodelet-mockapi",
	                         .not_before = ca.not_before,
	                         .not_after = ca.not_after,
	                         .server = 1,
	                         .dns_names = dns,
	                         .ndns = 1,
	                         .ips = ips,
	                         .nips = is_wildcard(extra_ip) ? 2 : 3};
	mock_cert_spec client = {.common_name = user,
	                         .organizations = orgs,
	                         .norganizations = split_groups(orgs, gbuf, MAX_GROUPS),
	                         .not_before = ca.not_before,
	                         .not_after = ca.not_after,
	                         .client = 1};
	int rc = mock_cert_issue(&s.ca, &ca, NULL, err);
	if (rc == 0)
		rc = mock_cert_issue(&s.server, &server, &s.ca, err);
	if (rc == 0)
		rc = mock_cert_issue(&s.client, &client, &s.ca, err);
	free(gbuf);
	if (rc != 0) {
		mock_cert_set_clear(&s);
		return rc;
	}
	*out = s;
	return 0;
}

static int write_one(const char *dir, const char *name, const char *text, nl_err *err)
{
	char path[4096];
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return nl_err_set(err, NL_EINVAL, "--generate-certs: path too long");
	return nl_fs_replace_file(NULL, path, text, strlen(text), 0600, err);
}

int mock_certs_write_dir(const char *dir, const mock_cert_set *s, nl_err *err)
{
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return nl_err_set(err, NL_EIO, "%s: %s", dir, strerror(errno));
	const struct {
		const char *name;
		const char *text;
	} files[] = {
	    {"ca.crt", s->ca.cert_pem},         {"ca.key", s->ca.key_pem},
	    {"server.crt", s->server.cert_pem}, {"server.key", s->server.key_pem},
	    {"client.crt", s->client.cert_pem}, {"client.key", s->client.key_pem},
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		int rc = write_one(dir, files[i].name, files[i].text, err);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * Signing CertificateSigningRequests (the csrsigning controller) */

/* keyUsagesFromStrings: "signing" and "digital signature" are the same bit. */
static int usages_of(const char *const *usages, size_t n, unsigned *ku, int *client, int *server)
{
	static const struct {
		const char *name;
		unsigned bit;
	} bits[] = {
	    {"signing", GNUTLS_KEY_DIGITAL_SIGNATURE},
	    {"digital signature", GNUTLS_KEY_DIGITAL_SIGNATURE},
	    {"content commitment", GNUTLS_KEY_NON_REPUDIATION},
	    {"key encipherment", GNUTLS_KEY_KEY_ENCIPHERMENT},
	    {"key agreement", GNUTLS_KEY_KEY_AGREEMENT},
	    {"data encipherment", GNUTLS_KEY_DATA_ENCIPHERMENT},
	    {"cert sign", GNUTLS_KEY_KEY_CERT_SIGN},
	    {"crl sign", GNUTLS_KEY_CRL_SIGN},
	    {"encipher only", GNUTLS_KEY_ENCIPHER_ONLY},
	    {"decipher only", GNUTLS_KEY_DECIPHER_ONLY},
	};
	*ku = 0;
	*client = *server = 0;
	for (size_t i = 0; i < n; i++) {
		int known = 0;
		for (size_t j = 0; j < sizeof(bits) / sizeof(bits[0]); j++)
			if (strcmp(usages[i], bits[j].name) == 0) {
				*ku |= bits[j].bit;
				known = 1;
			}
		if (strcmp(usages[i], "client auth") == 0)
			*client = known = 1;
		else if (strcmp(usages[i], "server auth") == 0)
			*server = known = 1;
		if (!known)
			return -1;
	}
	return 0;
}

int mock_cert_sign_request(char **out, const char *csr_pem, size_t len, const mock_keypair *ca,
                           int64_t not_before, int64_t not_after, const char *const *usages,
                           size_t nusages, nl_err *err)
{
	issuer_t is = {NULL, NULL};
	gnutls_x509_crq_t crq = NULL;
	gnutls_x509_crt_t crt = NULL;
	gnutls_datum_t d = {(unsigned char *)csr_pem, (unsigned)len}, c = {NULL, 0};
	unsigned ku;
	int client, server;
	if (usages_of(usages, nusages, &ku, &client, &server) != 0)
		return nl_err_set(err, NL_EINVAL, "unknown key usage");
	int rc = load_issuer(&is, ca, err);
	/* PermissiveSigningPolicy: never past the CA's own notAfter */
	int64_t ca_end = rc == 0 ? (int64_t)gnutls_x509_crt_get_expiration_time(is.crt) : 0;
	if (rc == 0 && not_before >= ca_end)
		rc = nl_err_set(err, NL_EINVAL, "the signer has expired");
	if (rc == 0 && not_after > ca_end)
		not_after = ca_end;
	if (rc == 0 && ((rc = gnutls_x509_crq_init(&crq)) < 0 ||
	                (rc = gnutls_x509_crq_import(crq, &d, GNUTLS_X509_FMT_PEM)) < 0 ||
	                (rc = gnutls_x509_crt_init(&crt)) < 0))
		rc = nl_err_set(err, NL_EINVAL, "csr: %s", gnutls_strerror(rc));
	/* subject and key from the request; usages from the CSR object; no
	 * other extension of the request is copied (PermissiveSigningPolicy) */
	if (rc == 0 &&
	    ((rc = gnutls_x509_crt_set_crq(crt, crq)) < 0 ||
	     (rc = gnutls_x509_crt_set_version(crt, 3)) < 0 ||
	     (rc = gnutls_x509_crt_set_activation_time(crt, (time_t)not_before)) < 0 ||
	     (rc = gnutls_x509_crt_set_expiration_time(crt, (time_t)not_after)) < 0 ||
	     (rc = gnutls_x509_crt_set_basic_constraints(crt, 0, -1)) < 0 ||
	     (ku && (rc = gnutls_x509_crt_set_key_usage(crt, ku)) < 0) ||
	     (client &&
	      (rc = gnutls_x509_crt_set_key_purpose_oid(crt, GNUTLS_KP_TLS_WWW_CLIENT, 0)) < 0) ||
	     (server &&
	      (rc = gnutls_x509_crt_set_key_purpose_oid(crt, GNUTLS_KP_TLS_WWW_SERVER, 0)) < 0)))
		rc = gnutls_fail(err, "certificate", rc);
	if (rc == 0)
		rc = set_ids(crt, is.crt, err);
	if (rc == 0 && (rc = gnutls_x509_crt_sign2(crt, is.crt, is.key, GNUTLS_DIG_SHA256, 0)) < 0)
		rc = gnutls_fail(err, "sign", rc);
	if (rc == 0 && (rc = gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &c)) < 0)
		rc = gnutls_fail(err, "export", rc);
	if (rc == 0 && !(*out = take_datum(&c)))
		rc = nl_err_set(err, NL_ENOMEM, "out of memory");
	if (crt)
		gnutls_x509_crt_deinit(crt);
	if (crq)
		gnutls_x509_crq_deinit(crq);
	free_issuer(&is);
	return rc;
}
