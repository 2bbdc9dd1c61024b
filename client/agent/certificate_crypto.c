/* Keys, certificate requests and certificates with OpenSSL's libcrypto, as
 * Go's crypto/x509 and client-go's keyutil/certutil make and read them for
 * kubelet. Certificates come from the network (status.certificate) and
 * from files: everything parsed here is untrusted and fuzzed
 * (tests/fuzz/fuzz_cert.c). */
#include <nodelet/base64.h>
#include <nodelet/certificate.h>
#include <openssl/bio.h>
#include <openssl/encoder.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void nl_cert_secret_free(char *s)
{
	if (!s)
		return;
	explicit_bzero(s, strlen(s));
	free(s);
}

/* OpenSSL's last error as text in err. */
static int ossl_fail(nl_err *err, int code, const char *what)
{
	char buf[256];
	unsigned long e = ERR_get_error();
	ERR_clear_error();
	if (e)
		ERR_error_string_n(e, buf, sizeof(buf));
	else
		snprintf(buf, sizeof(buf), "unknown error");
	return nl_err_set(err, code, "%s: %s", what, buf);
}

/* A BIO's content as a new NUL-terminated string. */
static int bio_take(char **out, BIO *b)
{
	char *data;
	long n = BIO_get_mem_data(b, &data);
	if (n < 0 || !(*out = malloc((size_t)n + 1)))
		return NL_ENOMEM;
	memcpy(*out, data, (size_t)n);
	(*out)[n] = '\0';
	return 0;
}

static EVP_PKEY *key_load(const char *pem, size_t len)
{
	if (len > NL_CERT_MAX_PEM)
		return NULL;
	BIO *b = BIO_new_mem_buf(pem, (int)len);
	EVP_PKEY *k = b ? PEM_read_bio_PrivateKey(b, NULL, NULL, NULL) : NULL;
	BIO_free(b);
	ERR_clear_error();
	return k;
}

int nl_cert_key_valid(const char *pem, size_t len)
{
	EVP_PKEY *k = len ? key_load(pem, len) : NULL;
	EVP_PKEY_free(k);
	return k != NULL;
}

int nl_cert_key_generate(char **pem_out, nl_err *err)
{
	EVP_PKEY *k = EVP_EC_gen("P-256");
	if (!k)
		return ossl_fail(err, NL_ERROR, "unable to generate a new private key");
	/* "type-specific" is SEC 1 for EC keys: BEGIN EC PRIVATE KEY, as Go. */
	OSSL_ENCODER_CTX *ctx =
	    OSSL_ENCODER_CTX_new_for_pkey(k, EVP_PKEY_KEYPAIR, "PEM", "type-specific", NULL);
	BIO *b = BIO_new(BIO_s_mem());
	int rc = 0;
	if (!ctx || !b || !OSSL_ENCODER_to_bio(ctx, b))
		rc = ossl_fail(err, NL_ERROR, "unable to marshal the new key");
	else if (bio_take(pem_out, b) != 0)
		rc = nl_err_set(err, NL_ENOMEM, "out of memory");
	OSSL_ENCODER_CTX_free(ctx);
	/* The memory BIO held the key: clear it before it is freed. */
	if (b) {
		char *data;
		long n = BIO_get_mem_data(b, &data);
		if (n > 0)
			explicit_bzero(data, (size_t)n);
	}
	BIO_free(b);
	EVP_PKEY_free(k);
	return rc;
}

/* Go writes a printable subject string as PrintableString (asn1
 * isPrintable); node names always are. */
static int name_add(X509_NAME *n, int nid, const char *v)
{
	return X509_NAME_add_entry_by_NID(n, nid, V_ASN1_PRINTABLESTRING, (const unsigned char *)v,
	                                  -1, -1, 0);
}

int nl_cert_csr_make(char **pem_out, const char *key_pem, size_t key_len, const char *node_name,
                     nl_err *err)
{
	char cn[300];
	if (snprintf(cn, sizeof(cn), "system:node:%s", node_name) >= (int)sizeof(cn))
		return nl_err_set(err, NL_EINVAL, "node name too long");
	EVP_PKEY *k = key_load(key_pem, key_len);
	if (!k)
		return nl_err_set(err, NL_EINVAL, "invalid private key for certificate request");
	X509_REQ *req = X509_REQ_new();
	X509_NAME *n = X509_NAME_new();
	BIO *b = BIO_new(BIO_s_mem());
	int rc = 0;
	/* pkix.Name's order: O before CN. */
	if (!req || !n || !b || !X509_REQ_set_version(req, 0) ||
	    !name_add(n, NID_organizationName, "system:nodes") ||
	    !name_add(n, NID_commonName, cn) || !X509_REQ_set_subject_name(req, n) ||
	    !X509_REQ_set_pubkey(req, k) || !X509_REQ_sign(req, k, EVP_sha256()) ||
	    !PEM_write_bio_X509_REQ(b, req))
		rc = ossl_fail(err, NL_ERROR, "unable to generate certificate request");
	else if (bio_take(pem_out, b) != 0)
		rc = nl_err_set(err, NL_ENOMEM, "out of memory");
	BIO_free(b);
	X509_NAME_free(n);
	X509_REQ_free(req);
	EVP_PKEY_free(k);
	return rc;
}

static X509_REQ *csr_load(const char *pem, size_t len)
{
	if (len > NL_CERT_MAX_PEM)
		return NULL;
	BIO *b = BIO_new_mem_buf(pem, (int)len);
	X509_REQ *r = b ? PEM_read_bio_X509_REQ(b, NULL, NULL, NULL) : NULL;
	BIO_free(b);
	ERR_clear_error();
	return r;
}

int nl_cert_csr_check(const char *csr_pem, size_t csr_len, const char *key_pem, size_t key_len,
                      const char *node_name, nl_err *err)
{
	char *mine_pem = NULL;
	int rc = nl_cert_csr_make(&mine_pem, key_pem, key_len, node_name, err);
	if (rc != 0)
		return rc;
	X509_REQ *theirs = csr_load(csr_pem, csr_len);
	X509_REQ *mine = csr_load(mine_pem, strlen(mine_pem));
	EVP_PKEY *k = key_load(key_pem, key_len);
	free(mine_pem);
	if (!theirs)
		rc = nl_err_set(
		    err, NL_EINVAL,
		    "unable to parse new csr: PEM block type must be CERTIFICATE REQUEST");
	else if (!mine || !k)
		rc = nl_err_set(err, NL_ENOMEM, "out of memory");
	else if (X509_NAME_cmp(X509_REQ_get_subject_name(theirs), X509_REQ_get_subject_name(mine)))
		rc = nl_err_set(err, NL_EINVAL, "csr subjects differ");
	else if (X509_REQ_verify(theirs, k) != 1)
		rc = nl_err_set(err, NL_EINVAL,
		                "error validating signature new CSR against old key");
	ERR_clear_error();
	EVP_PKEY_free(k);
	X509_REQ_free(mine);
	X509_REQ_free(theirs);
	return rc;
}

static int64_t asn1_time_usec(const ASN1_TIME *t)
{
	struct tm tm;
	if (!t || !ASN1_TIME_to_tm(t, &tm))
		return 0;
	return (int64_t)timegm(&tm) * NL_USEC_PER_SEC;
}

static void info_fill(nl_cert_info *info, X509 *x)
{
	info->not_before_usec = asn1_time_usec(X509_get0_notBefore(x));
	info->not_after_usec = asn1_time_usec(X509_get0_notAfter(x));
	info->common_name[0] = '\0';
	X509_NAME_get_text_by_NID(X509_get_subject_name(x), NID_commonName, info->common_name,
	                          (int)sizeof(info->common_name));
}

/* The next PEM block of b: 1 with its type and DER, 0 at the end. */
static int next_block(BIO *b, char **name, unsigned char **der, long *len)
{
	char *header = NULL;
	int ok = PEM_read_bio(b, name, &header, der, len);
	OPENSSL_free(header);
	ERR_clear_error(); /* the end of the data is an "error" too */
	return ok;
}

/* Every CERTIFICATE block of pem, the first kept in *leaf (may be NULL),
 * each re-encoded into chain (may be NULL). */
static int certs_read(X509 **leaf, BIO *chain, nl_cert_info *info, const char *pem, size_t len,
                      nl_err *err)
{
	if (len > NL_CERT_MAX_PEM)
		return nl_err_set(err, NL_EPARSE, "certificate data too large");
	BIO *b = BIO_new_mem_buf(pem, (int)len);
	if (!b)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	char *name;
	unsigned char *der;
	long dlen;
	int rc = 0;
	size_t n = 0;
	while (rc == 0 && next_block(b, &name, &der, &dlen)) {
		if (strcmp(name, "CERTIFICATE") == 0) {
			const unsigned char *p = der;
			X509 *x = d2i_X509(NULL, &p, dlen);
			if (!x || p != der + dlen)
				rc = nl_err_set(err, NL_EPARSE, "unable to parse certificate %zu",
				                n);
			else if (chain && !PEM_write_bio_X509(chain, x))
				rc = nl_err_set(err, NL_ENOMEM, "out of memory");
			else if (n == 0) {
				info_fill(info, x);
				if (leaf)
					*leaf = X509_up_ref(x) ? x : NULL;
			}
			X509_free(x);
			n++;
		}
		OPENSSL_free(name);
		OPENSSL_free(der);
	}
	BIO_free(b);
	ERR_clear_error();
	if (rc == 0 && n == 0)
		rc = nl_err_set(err, NL_EPARSE,
		                "data does not contain any valid RSA or ECDSA certificates");
	info->n_certs = n;
	if (rc != 0 && leaf && *leaf) {
		X509_free(*leaf);
		*leaf = NULL;
	}
	return rc;
}

int nl_cert_parse(nl_cert_info *info, const char *pem, size_t len, nl_err *err)
{
	memset(info, 0, sizeof(*info));
	return certs_read(NULL, NULL, info, pem, len, err);
}

int nl_cert_chain_pem(char **out, const char *pem, size_t len, nl_err *err)
{
	nl_cert_info info;
	BIO *b = BIO_new(BIO_s_mem());
	if (!b)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	int rc = certs_read(NULL, b, &info, pem, len, err);
	if (rc == 0 && bio_take(out, b) != 0)
		rc = nl_err_set(err, NL_ENOMEM, "out of memory");
	BIO_free(b);
	return rc;
}

int nl_cert_pair_check(const char *cert_pem, size_t cert_len, const char *key_pem, size_t key_len,
                       nl_err *err)
{
	nl_cert_info info;
	X509 *x = NULL;
	int rc = certs_read(&x, NULL, &info, cert_pem, cert_len, err);
	if (rc != 0)
		return rc;
	EVP_PKEY *k = key_load(key_pem, key_len);
	if (!k)
		rc = nl_err_set(err, NL_EINVAL, "tls: failed to find any PEM data in key input");
	else if (!X509_check_private_key(x, k))
		rc = nl_err_set(err, NL_EINVAL, "tls: private key does not match public key");
	ERR_clear_error();
	EVP_PKEY_free(k);
	X509_free(x);
	return rc;
}

/* The hash input digestedName writes: base64url(data) then '|'. */
static int digest_write(EVP_MD_CTX *md, const unsigned char *data, size_t len)
{
	char *enc = NULL;
	if (nl_base64url_encode(&enc, data, len) != 0)
		return 0;
	int ok = EVP_DigestUpdate(md, enc, strlen(enc)) && EVP_DigestUpdate(md, "|", 1);
	free(enc);
	return ok;
}

static int digest_str(EVP_MD_CTX *md, const char *s)
{
	return digest_write(md, (const unsigned char *)s, strlen(s));
}

int nl_cert_csr_digest_name(char out[NL_CERT_CSR_NAME_MAX], const char *key_pem, size_t key_len,
                            const char *node_name, const char *const *usages, nl_err *err)
{
	char cn[300];
	snprintf(cn, sizeof(cn), "system:node:%s", node_name);
	EVP_PKEY *k = key_load(key_pem, key_len);
	if (!k)
		return nl_err_set(err, NL_EINVAL, "invalid private key for certificate request");
	unsigned char *pub = NULL;
	int publen = i2d_PUBKEY(k, &pub);
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned char sum[EVP_MAX_MD_SIZE];
	unsigned int sumlen = 0;
	int ok = publen > 0 && md && EVP_DigestInit_ex(md, EVP_sha512_256(), NULL) &&
	         digest_write(md, pub, (size_t)publen) && digest_str(md, cn) &&
	         digest_str(md, "system:nodes");
	for (size_t i = 0; ok && usages && usages[i]; i++)
		ok = digest_str(md, usages[i]);
	ok = ok && EVP_DigestFinal_ex(md, sum, &sumlen);
	char *enc = NULL;
	int rc = 0;
	if (!ok || nl_base64url_encode(&enc, sum, sumlen) != 0)
		rc = ossl_fail(err, NL_ERROR, "unable to digest the certificate request");
	else
		snprintf(out, NL_CERT_CSR_NAME_MAX, "node-csr-%s", enc);
	free(enc);
	OPENSSL_free(pub);
	EVP_MD_CTX_free(md);
	EVP_PKEY_free(k);
	return rc;
}

int64_t nl_cert_rotation_deadline(const nl_cert_info *info, nl_rand *r)
{
	int64_t total = info->not_after_usec - info->not_before_usec;
	/* wait.Jitter(total, 0.2) - 0.3 * total, as client-go computes it. */
	int64_t jittered = nl_jitter(total, 0.2, r) - (int64_t)((double)total * 0.3);
	return info->not_before_usec + jittered;
}
