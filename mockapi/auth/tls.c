/* HTTPS setup for libmicrohttpd and the x509 client certificate check
 * (GnuTLS). */
#include "tls.h"

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"

/* kube-apiserver serves TLS 1.2 and 1.3 only. */
#define TLS_PRIORITIES "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"
/* A client sending a longer chain than this is refused. */
#define MAX_CHAIN 16
#define MAX_DN_VALUE 1024
#define MAX_GROUPS 64

struct mock_tls {
	char *cert_pem;
	char *key_pem;
	char *client_ca_pem;            /* NULL: no client certificates */
	gnutls_x509_trust_list_t trust; /* from client_ca_pem */
	/* the server's clock for validity periods; NULL: GnuTLS's wall clock */
	int64_t (*clock)(void *payload);
	void *clock_payload;
};

void mock_tls_set_clock(mock_tls *t, int64_t (*clock)(void *payload), void *payload)
{
	if (!t)
		return;
	t->clock = clock;
	t->clock_payload = payload;
}

static int valid_at(gnutls_x509_crt_t c, int64_t now)
{
	time_t nb = gnutls_x509_crt_get_activation_time(c);
	time_t na = gnutls_x509_crt_get_expiration_time(c);
	return nb != (time_t)-1 && na != (time_t)-1 && (int64_t)nb <= now && now <= (int64_t)na;
}

/* Every certificate of the chain and its trusted issuer valid at the
 * server's time (the x509 authenticator checks validity at its time.Now,
 * which on a virtual clock is the virtual time; decision 0042). */
static int chain_valid_at(const mock_tls *t, gnutls_x509_crt_t *chain, unsigned n)
{
	int64_t now = t->clock(t->clock_payload) / 1000000;
	gnutls_x509_crt_t issuer = NULL;
	for (unsigned i = 0; i < n; i++)
		if (!valid_at(chain[i], now))
			return 0;
	if (gnutls_x509_trust_list_get_issuer(t->trust, chain[n - 1], &issuer, 0) < 0)
		return 0;
	return valid_at(issuer, now); /* issuer stays the trust list's */
}

static gnutls_datum_t datum(const char *pem)
{
	gnutls_datum_t d = {(unsigned char *)pem, (unsigned int)strlen(pem)};
	return d;
}

/* Loading the pair into throwaway credentials is how GnuTLS checks that
 * the key belongs to the certificate; MHD would only fail to start. */
static int check_pair(const char *cert_pem, const char *key_pem, nl_err *err)
{
	gnutls_certificate_credentials_t cred;
	if (gnutls_certificate_allocate_credentials(&cred) < 0)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	gnutls_datum_t c = datum(cert_pem), k = datum(key_pem);
	int rc = gnutls_certificate_set_x509_key_mem(cred, &c, &k, GNUTLS_X509_FMT_PEM);
	gnutls_certificate_free_credentials(cred);
	if (rc < 0)
		return nl_err_set(
		    err, NL_EINVAL,
		    "--tls-cert-file/--tls-private-key-file: cannot use the key pair: "
		    "%s",
		    gnutls_strerror(rc));
	return 0;
}

static int load_trust(mock_tls *t, const char *ca_pem, nl_err *err)
{
	if (gnutls_x509_trust_list_init(&t->trust, 0) < 0)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	gnutls_datum_t d = datum(ca_pem);
	int n = gnutls_x509_trust_list_add_trust_mem(t->trust, &d, NULL, GNUTLS_X509_FMT_PEM, 0, 0);
	if (n < 0)
		return nl_err_set(err, NL_EINVAL, "--client-ca-file: %s", gnutls_strerror(n));
	if (n == 0)
		return nl_err_set(err, NL_EINVAL, "--client-ca-file: no certificate found");
	return 0;
}

int mock_tls_new(mock_tls **out, const char *cert_pem, const char *key_pem,
                 const char *client_ca_pem, nl_err *err)
{
	mock_tls *t = calloc(1, sizeof(*t));
	int rc = 0;
	if (!t)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	t->cert_pem = strdup(cert_pem);
	t->key_pem = strdup(key_pem);
	t->client_ca_pem = client_ca_pem ? strdup(client_ca_pem) : NULL;
	if (!t->cert_pem || !t->key_pem || (client_ca_pem && !t->client_ca_pem))
		rc = nl_err_set(err, NL_ENOMEM, "out of memory");
	if (rc == 0)
		rc = check_pair(cert_pem, key_pem, err);
	if (rc == 0 && client_ca_pem)
		rc = load_trust(t, client_ca_pem, err);
	if (rc != 0) {
		mock_tls_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

void mock_tls_free(mock_tls *t)
{
	if (!t)
		return;
	if (t->trust)
		gnutls_x509_trust_list_deinit(t->trust, 1);
	free(t->cert_pem);
	if (t->key_pem)
		memset(t->key_pem, 0, strlen(t->key_pem)); /* do not leave keys in freed memory */
	free(t->key_pem);
	free(t->client_ca_pem);
	free(t);
}

const char *mock_tls_cert_pem(const mock_tls *t)
{
	return t->cert_pem;
}

size_t mock_tls_mhd_options(struct MHD_OptionItem *items, const mock_tls *t)
{
	size_t n = 0;
	items[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, t->key_pem};
	items[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, t->cert_pem};
	items[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_PRIORITIES, 0, TLS_PRIORITIES};
	/* With a trust bundle MHD sends a CertificateRequest (clients may
	 * decline); without one it asks for nothing. */
	if (t->client_ca_pem)
		items[n++] =
		    (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_TRUST, 0, t->client_ca_pem};
	return n;
}

/* ------------------------------------------------------------------------
 * Client certificates */

/* The subject values of one attribute, in order. */
static int dn_values(char **v, size_t *n, size_t max, gnutls_x509_crt_t crt, const char *oid)
{
	for (unsigned idx = 0;; idx++) {
		char buf[MAX_DN_VALUE];
		size_t size = sizeof(buf);
		int rc = gnutls_x509_crt_get_dn_by_oid(crt, oid, idx, 0, buf, &size);
		if (rc == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE)
			return 0;
		if (rc < 0 || *n == max)
			return -1;
		if (!(v[(*n)++] = strndup(buf, size)))
			return -1;
	}
}

/* CN = user (Go's pkix.Name keeps the last CN), O = groups. */
static mock_cert_state identity_of(mock_identity *out, gnutls_x509_crt_t leaf)
{
	char *cn[MAX_GROUPS], *orgs[MAX_GROUPS];
	size_t ncn = 0, norgs = 0;
	mock_cert_state state = MOCK_CERT_INVALID;
	if (dn_values(cn, &ncn, MAX_GROUPS, leaf, GNUTLS_OID_X520_COMMON_NAME) == 0 &&
	    dn_values(orgs, &norgs, MAX_GROUPS, leaf, GNUTLS_OID_X520_ORGANIZATION_NAME) == 0 &&
	    mock_identity_set(out, ncn ? cn[ncn - 1] : "", NULL, (const char *const *)orgs,
	                      norgs) == 0)
		state = MOCK_CERT_VALID;
	for (size_t i = 0; i < ncn; i++)
		free(cn[i]);
	for (size_t i = 0; i < norgs; i++)
		free(orgs[i]);
	return state;
}

static mock_cert_state verify_chain(mock_identity *out, const mock_tls *t, gnutls_x509_crt_t *chain,
                                    unsigned n)
{
	gnutls_typed_vdata_st purpose = {GNUTLS_DT_KEY_PURPOSE_OID,
	                                 (unsigned char *)GNUTLS_KP_TLS_WWW_CLIENT, 0};
	unsigned status = 0;
	unsigned flags =
	    t->clock ? GNUTLS_VERIFY_DISABLE_TIME_CHECKS | GNUTLS_VERIFY_DISABLE_TRUSTED_TIME_CHECKS
	             : 0;
	int rc = gnutls_x509_trust_list_verify_crt2(t->trust, chain, n, &purpose, 1, flags, &status,
	                                            NULL);
	if (rc >= 0 && status == 0 && t->clock && !chain_valid_at(t, chain, n))
		status = GNUTLS_CERT_EXPIRED | GNUTLS_CERT_INVALID;
	if (rc < 0 || status != 0) {
		if (MOCK_LOG_ENABLED(2)) {
			gnutls_datum_t why = {NULL, 0};
			if (rc >= 0 && gnutls_certificate_verification_status_print(
			                   status, GNUTLS_CRT_X509, &why, 0) == 0) {
				MOCK_LOG_V(2, "Client certificate refused",
				           NL_KV_STR("reason", (const char *)why.data));
				gnutls_free(why.data);
			} else {
				MOCK_LOG_V(
				    2, "Client certificate refused",
				    NL_KV_STR(
				        "reason",
				        gnutls_strerror(rc < 0 ? rc : GNUTLS_E_CERTIFICATE_ERROR)));
			}
		}
		return MOCK_CERT_INVALID;
	}
	return identity_of(out, chain[0]);
}

static void free_chain(gnutls_x509_crt_t *chain, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		gnutls_x509_crt_deinit(chain[i]);
}

mock_cert_state mock_tls_peer(mock_identity *out, const mock_tls *t, struct MHD_Connection *conn)
{
	if (!t || !t->trust)
		return MOCK_CERT_NONE;
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!ci || !ci->tls_session)
		return MOCK_CERT_NONE;
	unsigned n = 0;
	const gnutls_datum_t *der = gnutls_certificate_get_peers(ci->tls_session, &n);
	if (!der || n == 0)
		return MOCK_CERT_NONE;
	if (n > MAX_CHAIN)
		return MOCK_CERT_INVALID;
	gnutls_x509_crt_t chain[MAX_CHAIN];
	unsigned got = 0;
	mock_cert_state state = MOCK_CERT_INVALID;
	for (; got < n; got++) {
		if (gnutls_x509_crt_init(&chain[got]) < 0)
			goto done;
		if (gnutls_x509_crt_import(chain[got], &der[got], GNUTLS_X509_FMT_DER) < 0) {
			got++;
			goto done;
		}
	}
	state = verify_chain(out, t, chain, n);
done:
	free_chain(chain, got);
	return state;
}

mock_cert_state mock_tls_verify_pem(mock_identity *out, const mock_tls *t, const char *chain_pem)
{
	if (!t || !t->trust)
		return MOCK_CERT_NONE;
	gnutls_x509_crt_t *chain = NULL;
	unsigned n = 0;
	gnutls_datum_t d = datum(chain_pem);
	if (gnutls_x509_crt_list_import2(&chain, &n, &d, GNUTLS_X509_FMT_PEM, 0) < 0 || n == 0)
		return MOCK_CERT_INVALID;
	mock_cert_state state = n > MAX_CHAIN ? MOCK_CERT_INVALID : verify_chain(out, t, chain, n);
	free_chain(chain, n);
	gnutls_free(chain);
	return state;
}
