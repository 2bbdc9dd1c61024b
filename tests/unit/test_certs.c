/* Certificates (mockapi/auth/certs.c), the x509 client check (mockapi/auth/tls.c)
 * and the files --generate-certs and --kubeconfig-out write. The check is
 * kube-apiserver's x509 authenticator: chain to --client-ca-file, within
 * the validity period, extended key usage clientAuth (or none); CN = user,
 * every O = a group; no CN = no opinion. */
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <nodelet/base64.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../cu_main.h"
#include "auth/certs.h"
#include "auth/tls.h"
#include "server/kubeconfig_out.h"

static mock_cert_set set;
static mock_tls *tls; /* serving pair and client CA of set */

static int setup(void)
{
	nl_err err = {0};
	if (mock_certs_generate(&set, "kubernetes-admin", "system:masters,ops", "10.1.2.3", &err) !=
	        0 ||
	    mock_tls_new(&tls, set.server.cert_pem, set.server.key_pem, set.ca.cert_pem, &err) !=
	        0) {
		fprintf(stderr, "setup: %s\n", err.msg);
		return 1;
	}
	return 0;
}

static int teardown(void)
{
	mock_tls_free(tls);
	mock_cert_set_clear(&set);
	return 0;
}

static mock_keypair issue(const char *cn, const char *const *orgs, size_t norgs, int64_t not_before,
                          int64_t not_after, int client, int server, const mock_keypair *issuer)
{
	mock_cert_spec spec = {.common_name = cn,
	                       .organizations = orgs,
	                       .norganizations = norgs,
	                       .not_before = not_before,
	                       .not_after = not_after,
	                       .client = client,
	                       .server = server};
	mock_keypair k = {NULL, NULL};
	nl_err err = {0};
	int rc = mock_cert_issue(&k, &spec, issuer, &err);
	if (rc != 0)
		fprintf(stderr, "\nissue %s: %s\n", cn ? cn : "(no CN)", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	return k;
}

static gnutls_x509_crt_t load(const char *pem)
{
	gnutls_x509_crt_t crt;
	gnutls_datum_t d = {(unsigned char *)pem, (unsigned)strlen(pem)};
	CU_ASSERT_FATAL(gnutls_x509_crt_init(&crt) >= 0);
	CU_ASSERT_FATAL(gnutls_x509_crt_import(crt, &d, GNUTLS_X509_FMT_PEM) >= 0);
	return crt;
}

static void test_certs__generated_set_is_usable(void)
{
	gnutls_x509_crt_t ca = load(set.ca.cert_pem), srv = load(set.server.cert_pem);
	unsigned critical = 0;
	CU_ASSERT_EQUAL(gnutls_x509_crt_get_basic_constraints(ca, &critical, NULL, NULL), 1);
	CU_ASSERT_EQUAL(gnutls_x509_crt_get_basic_constraints(srv, &critical, NULL, NULL), 0);
	/* what kubectl and curl check against https://127.0.0.1 and localhost */
	CU_ASSERT_TRUE(gnutls_x509_crt_check_hostname(srv, "localhost"));
	CU_ASSERT_TRUE(gnutls_x509_crt_check_hostname(srv, "127.0.0.1"));
	CU_ASSERT_TRUE(gnutls_x509_crt_check_hostname(srv, "10.1.2.3"));
	CU_ASSERT_FALSE(gnutls_x509_crt_check_hostname(srv, "example.com"));
	unsigned char v6[16] = {0};
	v6[15] = 1;
	CU_ASSERT_TRUE(gnutls_x509_crt_check_ip(srv, v6, 16, 0));
	CU_ASSERT_TRUE(gnutls_x509_crt_check_issuer(srv, ca));
	gnutls_x509_crt_deinit(srv);
	gnutls_x509_crt_deinit(ca);
	/* the serving pair loads (the key matches) */
	CU_ASSERT_PTR_NOT_NULL(mock_tls_cert_pem(tls));
	CU_ASSERT_STRING_EQUAL(mock_tls_cert_pem(tls), set.server.cert_pem);
}

static void test_certs__client_certificate_names_user_and_groups(void)
{
	mock_identity id = {0};
	CU_ASSERT_EQUAL_FATAL(mock_tls_verify_pem(&id, tls, set.client.cert_pem), MOCK_CERT_VALID);
	CU_ASSERT_STRING_EQUAL(id.user, "kubernetes-admin");
	CU_ASSERT_EQUAL_FATAL(id.ngroups, 2);
	CU_ASSERT_STRING_EQUAL(id.groups[0], "system:masters");
	CU_ASSERT_STRING_EQUAL(id.groups[1], "ops");
	mock_identity_clear(&id);
}

static void test_certs__expired_and_future_certificates_are_invalid(void)
{
	int64_t now = (int64_t)time(NULL);
	static const char *const g[] = {"system:nodes"};
	mock_keypair expired = issue("system:node:a", g, 1, now - 86400, now - 3600, 1, 0, &set.ca);
	mock_keypair future = issue("system:node:a", g, 1, now + 3600, now + 86400, 1, 0, &set.ca);
	mock_keypair fine = issue("system:node:a", g, 1, now - 60, now + 3600, 1, 0, &set.ca);
	mock_identity id = {0};
	CU_ASSERT_EQUAL(mock_tls_verify_pem(&id, tls, expired.cert_pem), MOCK_CERT_INVALID);
	CU_ASSERT_EQUAL(mock_tls_verify_pem(&id, tls, future.cert_pem), MOCK_CERT_INVALID);
	CU_ASSERT_PTR_NULL(id.user);
	CU_ASSERT_EQUAL_FATAL(mock_tls_verify_pem(&id, tls, fine.cert_pem), MOCK_CERT_VALID);
	CU_ASSERT_STRING_EQUAL(id.user, "system:node:a");
	mock_identity_clear(&id);
	mock_keypair_clear(&expired);
	mock_keypair_clear(&future);
	mock_keypair_clear(&fine);
}

static int64_t clock_usec;
static int64_t test_clock(void *p)
{
	(void)p;
	return clock_usec;
}

/* On the server's (virtual) clock a certificate valid only in the future
 * of the wall clock is valid, and one valid now is expired once the clock
 * passed its notAfter; the CA's period counts too. */
static void test_certs__validity_follows_the_server_clock(void)
{
	int64_t now = (int64_t)time(NULL);
	static const char *const g[] = {"system:nodes"};
	mock_keypair future = issue("system:node:a", g, 1, now + 3600, now + 7200, 1, 0, &set.ca);
	mock_identity id = {0};
	mock_tls_set_clock(tls, test_clock, NULL);
	clock_usec = (now + 5400) * 1000000;
	CU_ASSERT_EQUAL(mock_tls_verify_pem(&id, tls, future.cert_pem), MOCK_CERT_VALID);
	mock_identity_clear(&id);
	clock_usec = (now + 7300) * 1000000;
	CU_ASSERT_EQUAL(mock_tls_verify_pem(&id, tls, future.cert_pem), MOCK_CERT_INVALID);
	clock_usec = (now + 2 * 365 * 86400) * 1000000; /* past the CA too */
	CU_ASSERT_EQUAL(mock_tls_verify_pem(&id, tls, set.client.cert_pem), MOCK_CERT_INVALID);
	mock_tls_set_clock(tls, NULL, NULL);
	CU_ASSERT_EQUAL(mock_tls_verify_pem(&id, tls, future.cert_pem), MOCK_CERT_INVALID);
	mock_identity_clear(&id);
	mock_keypair_clear(&future);
}

static void test_certs__untrusted_or_wrong_purpose_is_invalid(void)
{
	int64_t now = (int64_t)time(NULL);
	mock_cert_set other;
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(
	    mock_certs_generate(&other, "kubernetes-admin", "system:masters", NULL, &err), 0);
	mock_identity id = {0};
	CU_ASSERT_EQUAL(mock_tls_verify_pem(&id, tls, other.client.cert_pem), MOCK_CERT_INVALID);
	/* a serving certificate is not a client certificate */
	CU_ASSERT_EQUAL(mock_tls_verify_pem(&id, tls, set.server.cert_pem), MOCK_CERT_INVALID);
	/* no extended key usage at all is any usage, as in Go */
	mock_keypair any = issue("bob", NULL, 0, now - 60, now + 3600, 0, 0, &set.ca);
	CU_ASSERT_EQUAL(mock_tls_verify_pem(&id, tls, any.cert_pem), MOCK_CERT_VALID);
	CU_ASSERT_STRING_EQUAL(id.user, "bob");
	CU_ASSERT_EQUAL(id.ngroups, 0);
	mock_identity_clear(&id);
	CU_ASSERT_EQUAL(mock_tls_verify_pem(&id, tls, "not a certificate"), MOCK_CERT_INVALID);
	mock_keypair_clear(&any);
	mock_cert_set_clear(&other);
}

/* A certificate without CN verifies, but names nobody (the authenticator
 * then has no opinion). */
static void test_certs__certificate_without_common_name(void)
{
	int64_t now = (int64_t)time(NULL);
	static const char *const g[] = {"team"};
	mock_keypair k = issue(NULL, g, 1, now - 60, now + 3600, 1, 0, &set.ca);
	mock_identity id = {0};
	CU_ASSERT_EQUAL_FATAL(mock_tls_verify_pem(&id, tls, k.cert_pem), MOCK_CERT_VALID);
	CU_ASSERT_STRING_EQUAL(id.user, "");
	mock_identity_clear(&id);
	mock_keypair_clear(&k);
}

static void test_certs__tls_setup_errors(void)
{
	mock_tls *t = NULL;
	nl_err err = {0};
	/* a key that is not the certificate's */
	CU_ASSERT_EQUAL(mock_tls_new(&t, set.server.cert_pem, set.client.key_pem, NULL, &err),
	                NL_EINVAL);
	CU_ASSERT_PTR_NULL(t);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--tls-cert-file/--tls-private-key-file"));
	CU_ASSERT_EQUAL(mock_tls_new(&t, set.server.cert_pem, set.server.key_pem, "junk", &err),
	                NL_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--client-ca-file"));
	/* without a client CA no certificate is looked at */
	CU_ASSERT_EQUAL_FATAL(mock_tls_new(&t, set.server.cert_pem, set.server.key_pem, NULL, &err),
	                      0);
	mock_identity id = {0};
	CU_ASSERT_EQUAL(mock_tls_verify_pem(&id, t, set.client.cert_pem), MOCK_CERT_NONE);
	mock_tls_free(t);
}

static char tmpdir[64];

static mode_t mode_of(const char *dir, const char *name)
{
	char path[256];
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) == 0 ? (st.st_mode & 0777) : 0;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	static char buf[65536];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void rm_dir(const char *dir)
{
	static const char *const names[] = {"ca.crt",     "ca.key",     "server.crt", "server.key",
	                                    "client.crt", "client.key", "kubeconfig", "file"};
	char path[256];
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

static void test_certs__write_dir_is_private(void)
{
	strcpy(tmpdir, "/tmp/nodelet-certs-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(tmpdir));
	char dir[128];
	snprintf(dir, sizeof(dir), "%s/pki", tmpdir);
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(mock_certs_write_dir(dir, &set, &err), 0);
	static const char *const names[] = {"ca.crt",     "ca.key",     "server.crt",
	                                    "server.key", "client.crt", "client.key"};
	for (size_t i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(mode_of(dir, names[i]), 0600);
	char path[256];
	snprintf(path, sizeof(path), "%s/client.crt", dir);
	CU_ASSERT_STRING_EQUAL(slurp(path), set.client.cert_pem);
	/* again: replaced in place */
	CU_ASSERT_EQUAL(mock_certs_write_dir(dir, &set, &err), 0);
	CU_ASSERT_STRING_EQUAL(slurp(path), set.client.cert_pem);
	rm_dir(dir);
	rmdir(tmpdir);
}

/* --kubeconfig-out embeds base64 PEM, or a quoted token. */
static void test_certs__kubeconfig_embeds_credentials(void)
{
	strcpy(tmpdir, "/tmp/nodelet-certs-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(tmpdir));
	char path[128];
	snprintf(path, sizeof(path), "%s/kubeconfig", tmpdir);
	nl_err err = {0};
	mock_kubeconfig_creds c = {set.ca.cert_pem, set.client.cert_pem, set.client.key_pem, NULL};
	CU_ASSERT_EQUAL_FATAL(mock_kubeconfig_write_creds(path, "https://127.0.0.1:6443", &c, &err),
	                      0);
	CU_ASSERT_EQUAL(mode_of(tmpdir, "kubeconfig"), 0600);
	char *ca = NULL;
	CU_ASSERT_EQUAL_FATAL(
	    nl_base64_encode(&ca, (const unsigned char *)set.ca.cert_pem, strlen(set.ca.cert_pem)),
	    0);
	const char *text = slurp(path);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "    server: https://127.0.0.1:6443\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, ca));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "    certificate-authority-data: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "    client-certificate-data: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "    client-key-data: "));
	CU_ASSERT_PTR_NULL(strstr(text, "token"));
	free(ca);

	mock_kubeconfig_creds t = {NULL, NULL, NULL, "a\"b\\c"};
	CU_ASSERT_EQUAL_FATAL(mock_kubeconfig_write_creds(path, "https://x", &t, &err), 0);
	text = slurp(path);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "  user:\n    token: \"a\\\"b\\\\c\"\n"));
	CU_ASSERT_PTR_NULL(strstr(text, "certificate-authority-data"));

	CU_ASSERT_PTR_NULL(strstr(text, "insecure-skip-tls-verify"));

	/* client-node 1.x only talks plain HTTP to clusters marked insecure. */
	CU_ASSERT_EQUAL_FATAL(mock_kubeconfig_write(path, "http://127.0.0.1:8080", &err), 0);
	text = slurp(path);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "  user: {}\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "    server: http://127.0.0.1:8080\n"
	                                    "    insecure-skip-tls-verify: true\n"));
	rm_dir(tmpdir);
}

static CU_TestInfo tests[] = {
    {"generated_set_is_usable", test_certs__generated_set_is_usable},
    {"client_certificate_names_user_and_groups",
     test_certs__client_certificate_names_user_and_groups},
    {"expired_and_future_certificates_are_invalid",
     test_certs__expired_and_future_certificates_are_invalid},
    {"validity_follows_the_server_clock", test_certs__validity_follows_the_server_clock},
    {"untrusted_or_wrong_purpose_is_invalid", test_certs__untrusted_or_wrong_purpose_is_invalid},
    {"certificate_without_common_name", test_certs__certificate_without_common_name},
    {"tls_setup_errors", test_certs__tls_setup_errors},
    {"write_dir_is_private", test_certs__write_dir_is_private},
    {"kubeconfig_embeds_credentials", test_certs__kubeconfig_embeds_credentials},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"certs", setup, teardown, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
