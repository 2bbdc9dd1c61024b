/* The agent's client certificate (nodelet/certificate.h): keys and CSRs as
 * kubelet makes them, client-go's file store, and the certificate manager on
 * a fake clock against a fake CSR API with its own CA (a signer in this
 * file), so months of rotation run in milliseconds. */
#include "../cu_main.h"

#include <nodelet/base64.h>
#include <nodelet/certificate.h>
#include <nodelet/meta.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DAY (24 * 3600 * NL_USEC_PER_SEC)
#define T0 ((int64_t)1767225600 * NL_USEC_PER_SEC) /* 2026-01-01 00:00:00 UTC */

static char dir[64];

static int setup(void)
{
	strcpy(dir, "/tmp/nodelet-cert-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static void clean_dir(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[sizeof(dir) + 256 + 2];
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
}

static int teardown(void)
{
	clean_dir();
	return rmdir(dir);
}

/* --- a signer: the test's CA ---------------------------------------------------- */

static EVP_PKEY *ca_key;
static X509 *ca_cert;

static void ca_init(void)
{
	if (ca_key)
		return;
	ca_key = EVP_EC_gen("P-256");
	ca_cert = X509_new();
	X509_set_version(ca_cert, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(ca_cert), 1);
	X509_NAME *n = X509_get_subject_name(ca_cert);
	X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC, (const unsigned char *)"test-ca", -1, -1,
	                           0);
	X509_set_issuer_name(ca_cert, n);
	ASN1_TIME_set(X509_getm_notBefore(ca_cert), 0);
	ASN1_TIME_set(X509_getm_notAfter(ca_cert), (time_t)4000000000);
	X509_set_pubkey(ca_cert, ca_key);
	X509_sign(ca_cert, ca_key, EVP_sha256());
}

/* Sign a CSR's PEM for [from, from + life): a new PEM string. */
static char *ca_sign(const char *csr_pem, size_t len, int64_t from, int64_t life)
{
	static long serial = 2;
	ca_init();
	BIO *b = BIO_new_mem_buf(csr_pem, (int)len);
	X509_REQ *req = PEM_read_bio_X509_REQ(b, NULL, NULL, NULL);
	BIO_free(b);
	if (!req)
		return NULL;
	X509 *x = X509_new();
	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), serial++);
	X509_set_subject_name(x, X509_REQ_get_subject_name(req));
	X509_set_issuer_name(x, X509_get_subject_name(ca_cert));
	ASN1_TIME_set(X509_getm_notBefore(x), (time_t)(from / NL_USEC_PER_SEC));
	ASN1_TIME_set(X509_getm_notAfter(x), (time_t)((from + life) / NL_USEC_PER_SEC));
	X509_set_pubkey(x, X509_REQ_get0_pubkey(req));
	X509_sign(x, ca_key, EVP_sha256());
	BIO *o = BIO_new(BIO_s_mem());
	PEM_write_bio_X509(o, x);
	char *data;
	long n = BIO_get_mem_data(o, &data);
	char *pem = strndup(data, (size_t)n);
	BIO_free(o);
	X509_free(x);
	X509_REQ_free(req);
	return pem;
}

static char *issue_for_key(const char *key_pem, const char *node, int64_t from, int64_t life)
{
	char *csr = NULL;
	nl_err err = {0};
	if (nl_cert_csr_make(&csr, key_pem, strlen(key_pem), node, &err) != 0)
		return NULL;
	char *pem = ca_sign(csr, strlen(csr), from, life);
	free(csr);
	return pem;
}

/* --- crypto ------------------------------------------------------------------------ */

static void test_certificate__key_is_sec1_p256(void)
{
	char *key = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(nl_cert_key_generate(&key, &err), 0);
	CU_ASSERT(strncmp(key, "-----BEGIN EC PRIVATE KEY-----\n", 31) == 0);
	CU_ASSERT(nl_cert_key_valid(key, strlen(key)));
	BIO *b = BIO_new_mem_buf(key, -1);
	EVP_PKEY *k = PEM_read_bio_PrivateKey(b, NULL, NULL, NULL);
	char group[32] = "";
	size_t gl = 0;
	CU_ASSERT_PTR_NOT_NULL_FATAL(k);
	EVP_PKEY_get_group_name(k, group, sizeof(group), &gl);
	CU_ASSERT_STRING_EQUAL(group, "prime256v1");
	EVP_PKEY_free(k);
	BIO_free(b);
	CU_ASSERT_FALSE(nl_cert_key_valid("-----BEGIN EC PRIVATE KEY-----\nAAAA\n", 36));
	nl_cert_secret_free(key);
}

static void test_certificate__csr_has_the_node_subject(void)
{
	char *key = NULL, *csr = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(nl_cert_key_generate(&key, &err), 0);
	CU_ASSERT_EQUAL_FATAL(nl_cert_csr_make(&csr, key, strlen(key), "edge-1", &err), 0);
	BIO *b = BIO_new_mem_buf(csr, -1);
	X509_REQ *req = PEM_read_bio_X509_REQ(b, NULL, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(req);
	char line[256];
	X509_NAME_oneline(X509_REQ_get_subject_name(req), line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line, "/O=system:nodes/CN=system:node:edge-1");
	CU_ASSERT_EQUAL(X509_REQ_verify(req, X509_REQ_get0_pubkey(req)), 1);
	CU_ASSERT_EQUAL(nl_cert_csr_check(csr, strlen(csr), key, strlen(key), "edge-1", &err), 0);
	CU_ASSERT_EQUAL(nl_cert_csr_check(csr, strlen(csr), key, strlen(key), "edge-2", &err),
	                NL_EINVAL);
	char *other = NULL;
	nl_cert_key_generate(&other, &err);
	CU_ASSERT_EQUAL(nl_cert_csr_check(csr, strlen(csr), other, strlen(other), "edge-1", &err),
	                NL_EINVAL);
	CU_ASSERT_EQUAL(nl_cert_csr_check("junk", 4, key, strlen(key), "edge-1", &err), NL_EINVAL);
	X509_REQ_free(req);
	BIO_free(b);
	free(csr);
	nl_cert_secret_free(key);
	nl_cert_secret_free(other);
}

/* A fixed key and Go's digestedName of it for edge-1 and bootstrap's three
 * usages (computed with Go 1.19: sha512.New512_256, base64.RawURLEncoding,
 * x509.MarshalPKIXPublicKey, as bootstrap.go). */
static const char fixed_key[] = "-----BEGIN EC PRIVATE KEY-----\n"
                                "MHcCAQEEIEoQnC0XVZw9Yb9wuts8wbkfvTm6t+JqP7WGdwl52oJCoAoGCCqGSM49\n"
                                "AwEHoUQDQgAENcTIwCezY+c+6UETvECaiFijEB+TAEn203lR04hB7PGNd2a5wNZQ\n"
                                "jRNdQPPjSi9K3szDEBx7rpROv+qZaVzRLQ==\n"
                                "-----END EC PRIVATE KEY-----\n";

static void test_certificate__digest_name_is_kubelets(void)
{
	static const char *const u3[] = {"digital signature", "key encipherment", "client auth",
	                                 NULL};
	static const char *const u2[] = {"digital signature", "client auth", NULL};
	char a[NL_CERT_CSR_NAME_MAX], b[NL_CERT_CSR_NAME_MAX], c[NL_CERT_CSR_NAME_MAX];
	nl_err err = {0};
	CU_ASSERT_TRUE_FATAL(nl_cert_key_valid(fixed_key, strlen(fixed_key)));
	CU_ASSERT_EQUAL_FATAL(
	    nl_cert_csr_digest_name(a, fixed_key, strlen(fixed_key), "edge-1", u3, &err), 0);
	CU_ASSERT_STRING_EQUAL(a, "node-csr-8F0_lCZJATubSQRaPfXMBKcowtuyqBSk_f1TzIuoTKs");
	nl_cert_csr_digest_name(b, fixed_key, strlen(fixed_key), "edge-1", u2, &err);
	nl_cert_csr_digest_name(c, fixed_key, strlen(fixed_key), "edge-2", u3, &err);
	CU_ASSERT(strcmp(a, b) != 0);
	CU_ASSERT(strcmp(a, c) != 0);
}

static void test_certificate__parse_reads_the_leaf_of_a_chain(void)
{
	char *key = NULL;
	nl_err err = {0};
	nl_cert_key_generate(&key, &err);
	char *leaf = issue_for_key(key, "edge-1", T0, 30 * DAY);
	CU_ASSERT_PTR_NOT_NULL_FATAL(leaf);
	BIO *o = BIO_new(BIO_s_mem());
	BIO_puts(o, leaf);
	BIO_puts(o, key); /* a key block between is skipped */
	PEM_write_bio_X509(o, ca_cert);
	char *data;
	long n = BIO_get_mem_data(o, &data);
	nl_cert_info info;
	CU_ASSERT_EQUAL(nl_cert_parse(&info, data, (size_t)n, &err), 0);
	CU_ASSERT_EQUAL(info.n_certs, 2);
	CU_ASSERT_EQUAL(info.not_before_usec, T0);
	CU_ASSERT_EQUAL(info.not_after_usec, T0 + 30 * DAY);
	CU_ASSERT_STRING_EQUAL(info.common_name, "system:node:edge-1");
	char *chain = NULL;
	CU_ASSERT_EQUAL(nl_cert_chain_pem(&chain, data, (size_t)n, &err), 0);
	CU_ASSERT_PTR_NULL(strstr(chain, "PRIVATE KEY"));
	CU_ASSERT_EQUAL(nl_cert_pair_check(data, (size_t)n, key, strlen(key), &err), 0);
	CU_ASSERT_EQUAL(nl_cert_parse(&info, key, strlen(key), &err), NL_EPARSE);
	CU_ASSERT_STRING_EQUAL(err.msg,
	                       "data does not contain any valid RSA or ECDSA certificates");
	const char bad[] = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
	CU_ASSERT_EQUAL(nl_cert_parse(&info, bad, sizeof(bad) - 1, &err), NL_EPARSE);
	char *other = NULL;
	nl_cert_key_generate(&other, &err);
	CU_ASSERT_EQUAL(nl_cert_pair_check(leaf, strlen(leaf), other, strlen(other), &err),
	                NL_EINVAL);
	free(chain);
	BIO_free(o);
	free(leaf);
	nl_cert_secret_free(key);
	nl_cert_secret_free(other);
}

static void test_certificate__deadline_is_in_70_to_90_percent(void)
{
	nl_cert_info info = {.not_before_usec = T0, .not_after_usec = T0 + 365 * DAY};
	int64_t total = 365 * DAY, lo = INT64_MAX, hi = 0;
	nl_rand r;
	nl_rand_seed(&r, 42);
	for (int i = 0; i < 10000; i++) {
		int64_t d = nl_cert_rotation_deadline(&info, &r) - T0;
		CU_ASSERT(d >= total * 7 / 10);
		CU_ASSERT(d < total * 9 / 10);
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
	}
	/* Uniform over the whole band, not a fixed point. */
	CU_ASSERT(lo < total * 71 / 100);
	CU_ASSERT(hi > total * 89 / 100);
}

/* --- the store --------------------------------------------------------------------- */

static char *pair_for(const char *node, int64_t from, int64_t life, char **key_out)
{
	nl_err err = {0};
	nl_cert_key_generate(key_out, &err);
	return issue_for_key(*key_out, node, from, life);
}

static void test_certificate__store_writes_kubelets_files(void)
{
	clean_dir();
	setenv("TZ", "UTC", 1);
	tzset();
	nl_cert_store *s = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(nl_cert_store_new(&s, dir, "kubelet-client", &err), 0);
	CU_ASSERT_EQUAL(nl_cert_store_current(NULL, NULL, s, &err), NL_ENOTFOUND);
	char *key = NULL, *cert = pair_for("edge-1", T0, 30 * DAY, &key);
	CU_ASSERT_EQUAL_FATAL(nl_cert_store_update(s, T0 + 5 * NL_USEC_PER_SEC, cert, strlen(cert),
	                                           key, strlen(key), &err),
	                      0);
	char path[PATH_MAX], target[PATH_MAX] = "";
	snprintf(path, sizeof(path), "%s/kubelet-client-2026-01-01-00-00-05.pem", dir);
	struct stat st;
	CU_ASSERT_EQUAL_FATAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 07777, 0600);
	CU_ASSERT(lstat(nl_cert_store_current_path(s), &st) == 0 && S_ISLNK(st.st_mode));
	CU_ASSERT(readlink(nl_cert_store_current_path(s), target, sizeof(target) - 1) > 0);
	CU_ASSERT_EQUAL(target[0], '/');
	CU_ASSERT(strstr(target, "kubelet-client-2026-01-01-00-00-05.pem") != NULL);
	char *pem = NULL;
	nl_cert_info info;
	CU_ASSERT_EQUAL_FATAL(nl_cert_store_current(&pem, &info, s, &err), 0);
	CU_ASSERT(strstr(pem, "BEGIN CERTIFICATE") < strstr(pem, "BEGIN EC PRIVATE KEY"));
	CU_ASSERT_EQUAL(info.not_after_usec, T0 + 30 * DAY);
	nl_cert_secret_free(pem);

	/* A pair that does not match is refused; the current one stays. */
	char *key2 = NULL, *cert2 = pair_for("edge-1", T0, DAY, &key2);
	CU_ASSERT_EQUAL(
	    nl_cert_store_update(s, T0 + DAY, cert2, strlen(cert2), key, strlen(key), &err),
	    NL_EINVAL);
	CU_ASSERT_EQUAL(nl_cert_store_current(NULL, &info, s, &err), 0);
	CU_ASSERT_EQUAL(info.not_after_usec, T0 + 30 * DAY);
	nl_cert_store_free(s);

	/* An update interrupted after the 'updated' link: recovered. */
	char cur[PATH_MAX], upd[PATH_MAX];
	snprintf(cur, sizeof(cur), "%s/kubelet-client-current.pem", dir);
	snprintf(upd, sizeof(upd), "%s/kubelet-client-updated.pem", dir);
	CU_ASSERT_EQUAL(rename(cur, upd), 0);
	CU_ASSERT_EQUAL_FATAL(nl_cert_store_new(&s, dir, "kubelet-client", &err), 0);
	CU_ASSERT_EQUAL(nl_cert_store_current(NULL, &info, s, &err), 0);
	CU_ASSERT_EQUAL(access(upd, F_OK), -1);
	nl_cert_store_free(s);

	/* A regular file where the link belongs is an error, as client-go's. */
	CU_ASSERT_EQUAL(unlink(cur), 0);
	FILE *f = fopen(upd, "w");
	fputs("x", f);
	fclose(f);
	CU_ASSERT_EQUAL(nl_cert_store_new(&s, dir, "kubelet-client", &err), NL_EIO);
	CU_ASSERT(strstr(err.msg, "to be a symlink but it is a file") != NULL);
	free(cert);
	free(cert2);
	nl_cert_secret_free(key);
	nl_cert_secret_free(key2);
}

static void test_certificate__tmp_key_is_kept_0600(void)
{
	clean_dir();
	char path[PATH_MAX], *a = NULL, *b = NULL;
	nl_err err = {0};
	snprintf(path, sizeof(path), "%s/kubelet-client.key.tmp", dir);
	umask(0);
	CU_ASSERT_EQUAL_FATAL(nl_cert_key_load_or_generate(&a, path, &err), 0);
	umask(022);
	struct stat st;
	CU_ASSERT(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600);
	CU_ASSERT_EQUAL_FATAL(nl_cert_key_load_or_generate(&b, path, &err), 0);
	CU_ASSERT_STRING_EQUAL(a, b); /* reused on the next start */
	nl_cert_secret_free(a);
	nl_cert_secret_free(b);
}

/* --- the manager against a fake CSR API ---------------------------------------------- */

typedef struct {
	nl_clock *clock;
	int down;          /* create/get answer "connection refused" */
	int deny;          /* approve as Denied */
	int pending;       /* never approve */
	int64_t life;      /* issued certificates' lifetime */
	json_object *csr;  /* the last created request */
	int creates, gets; /* calls */
	int bootstrap_creates, cert_creates;
	int64_t create_at[64];
	char last_name[128];
	int rotated;
} fake_api;

static int fake_create(json_object **out, nl_status **status, json_object *csr, int use_bootstrap,
                       void *payload)
{
	fake_api *f = payload;
	(void)status;
	if (f->creates < 64)
		f->create_at[f->creates] = nl_clock_now(f->clock);
	f->creates++;
	if (f->down)
		return NL_ETRANSPORT;
	use_bootstrap ? f->bootstrap_creates++ : f->cert_creates++;
	json_object_put(f->csr);
	f->csr = NULL;
	json_object_deep_copy(csr, &f->csr, NULL);
	json_object *meta = json_object_object_get(f->csr, "metadata");
	const char *name = nl_json_get_string(f->csr, "metadata.name");
	char gen[64];
	if (!name) {
		snprintf(gen, sizeof(gen), "csr-%05d", f->creates);
		name = gen;
		json_object_object_add(meta, "name", json_object_new_string(name));
	}
	snprintf(f->last_name, sizeof(f->last_name), "%s", name);
	json_object_object_add(meta, "uid", json_object_new_string("uid-1"));
	json_object_deep_copy(f->csr, out, NULL);
	return 0;
}

/* The approver and signer act at the first read. */
static int fake_get(json_object **out, nl_status **status, const char *name, int use_bootstrap,
                    void *payload)
{
	fake_api *f = payload;
	(void)status;
	(void)use_bootstrap;
	f->gets++;
	if (f->down)
		return NL_ETRANSPORT;
	if (!f->csr || strcmp(name, f->last_name) != 0)
		return NL_ENOTFOUND;
	json_object *st = json_object_object_get(f->csr, "status");
	if (!st && !f->pending) {
		st = json_object_new_object();
		json_object *conds = json_object_new_array();
		json_object *c = json_object_new_object();
		json_object_object_add(c, "type",
		                       json_object_new_string(f->deny ? "Denied" : "Approved"));
		json_object_object_add(c, "reason", json_object_new_string("AutoApproved"));
		json_object_object_add(c, "message", json_object_new_string("test"));
		json_object_array_add(conds, c);
		json_object_object_add(st, "conditions", conds);
		if (!f->deny) {
			const char *req = nl_json_get_string(f->csr, "spec.request");
			unsigned char *pem = NULL;
			size_t len = 0;
			nl_err err = {0};
			nl_base64_decode(&pem, &len, req, strlen(req), &err);
			char *cert = ca_sign((char *)pem, len, nl_clock_now(f->clock), f->life);
			char *b64 = NULL;
			nl_base64_encode(&b64, (unsigned char *)cert, strlen(cert));
			json_object_object_add(st, "certificate", json_object_new_string(b64));
			free(b64);
			free(cert);
			free(pem);
		}
		json_object_object_add(f->csr, "status", st);
	}
	json_object_deep_copy(f->csr, out, NULL);
	return 0;
}

static void on_rotated(void *payload)
{
	((fake_api *)payload)->rotated++;
}

static nl_cert_manager *manager_new(fake_api *f, nl_cert_store *s, int one_shot)
{
	nl_cert_manager_options o = {0};
	o.clock = f->clock;
	o.store = s;
	o.node_name = "edge-1";
	o.ops = (nl_csr_ops){fake_create, fake_get, f};
	o.on_rotated = on_rotated;
	o.hook_payload = f;
	o.jitter_seed = 7;
	o.one_shot = one_shot;
	nl_cert_manager *m = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL(nl_cert_manager_new(&m, &o, &err), 0);
	return m;
}

static void test_certificate__bootstrap_then_rotation_on_virtual_time(void)
{
	clean_dir();
	fake_api f = {.life = 30 * DAY};
	nl_clock_new_fake(&f.clock, T0);
	nl_cert_store *s = NULL;
	nl_err err = {0};
	nl_cert_store_new(&s, dir, "kubelet-client", &err);
	nl_cert_manager *m = manager_new(&f, s, 0);
	CU_ASSERT_FALSE(nl_cert_manager_current(m, NULL));
	CU_ASSERT_EQUAL(nl_cert_manager_start(m), 0);
	nl_clock_run_due(f.clock);
	/* Bootstrap at once, with the bootstrap credentials. */
	CU_ASSERT_EQUAL(f.bootstrap_creates, 1);
	CU_ASSERT_EQUAL(f.rotated, 1);
	CU_ASSERT_TRUE(nl_cert_manager_current(m, NULL));
	json_object *usages = nl_json_get_path(f.csr, "spec.usages");
	CU_ASSERT_STRING_EQUAL(json_object_to_json_string(usages),
	                       "[ \"digital signature\", \"client auth\" ]");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(f.csr, "metadata.generateName"), "csr-");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(f.csr, "spec.signerName"),
	                       "kubernetes.io/kube-apiserver-client-kubelet");
	/* A year of 30-day certificates: each renewed in 70-90 % of its life,
	 * with the current certificate. */
	int64_t issued = T0;
	for (int i = 0; i < 12; i++) {
		nl_clock_advance(f.clock, NL_USEC_PER_SEC); /* wait.Until's second */
		int64_t d = nl_cert_manager_deadline(m);
		CU_ASSERT(d >= issued + 30 * DAY * 7 / 10);
		CU_ASSERT(d < issued + 30 * DAY * 9 / 10);
		int before = f.rotated;
		nl_clock_advance(f.clock, d - nl_clock_now(f.clock) - NL_USEC_PER_SEC);
		CU_ASSERT_EQUAL(f.rotated, before);
		nl_clock_advance(f.clock, NL_USEC_PER_SEC);
		CU_ASSERT_EQUAL(f.rotated, before + 1);
		issued = nl_clock_now(f.clock) / NL_USEC_PER_SEC * NL_USEC_PER_SEC;
	}
	CU_ASSERT_EQUAL(f.bootstrap_creates, 1);
	CU_ASSERT_EQUAL(f.cert_creates, 12);
	CU_ASSERT_EQUAL(nl_cert_manager_rotations(m), 13);
	nl_cert_manager_free(m);
	nl_cert_store_free(s);
	json_object_put(f.csr);
	nl_clock_free(f.clock);
}

static void test_certificate__server_down_at_the_deadline_backs_off(void)
{
	clean_dir();
	fake_api f = {.life = 10 * DAY};
	nl_clock_new_fake(&f.clock, T0);
	nl_cert_store *s = NULL;
	nl_err err = {0};
	nl_cert_store_new(&s, dir, "kubelet-client", &err);
	nl_cert_manager *m = manager_new(&f, s, 0);
	nl_cert_manager_start(m);
	nl_clock_run_due(f.clock);
	CU_ASSERT_EQUAL_FATAL(f.rotated, 1);
	nl_clock_advance(f.clock, NL_USEC_PER_SEC);
	int64_t d = nl_cert_manager_deadline(m);
	f.down = 1;
	int first = f.creates;
	nl_clock_advance(f.clock, d - nl_clock_now(f.clock));
	CU_ASSERT_EQUAL(f.creates, first + 1);
	/* wait.ExponentialBackoff: 2, 4, 8, 16 s (+ up to 10 %), then 32 s. */
	nl_clock_advance(f.clock, 60 * NL_USEC_PER_SEC + 3 * 32 * NL_USEC_PER_SEC);
	CU_ASSERT_EQUAL_FATAL(f.creates, first + 5 + 3);
	int64_t expect[] = {2, 4, 8, 16};
	for (int i = 0; i < 4; i++) {
		int64_t gap = f.create_at[first + i + 1] - f.create_at[first + i];
		CU_ASSERT(gap >= expect[i] * NL_USEC_PER_SEC);
		CU_ASSERT(gap <= expect[i] * NL_USEC_PER_SEC * 11 / 10);
	}
	CU_ASSERT_EQUAL(f.create_at[first + 5] - f.create_at[first + 4], 32 * NL_USEC_PER_SEC);
	CU_ASSERT_EQUAL(f.create_at[first + 6] - f.create_at[first + 5], 32 * NL_USEC_PER_SEC);
	CU_ASSERT_EQUAL(nl_cert_manager_failures(m), 8);
	CU_ASSERT_FALSE(nl_cert_manager_server_healthy(m));
	/* The server returns: the next 32 s attempt rotates. */
	f.down = 0;
	nl_clock_advance(f.clock, 32 * NL_USEC_PER_SEC);
	CU_ASSERT_EQUAL(f.rotated, 2);
	CU_ASSERT_TRUE(nl_cert_manager_server_healthy(m));
	nl_cert_manager_free(m);
	nl_cert_store_free(s);
	json_object_put(f.csr);
	nl_clock_free(f.clock);
}

static void test_certificate__denied_and_pending_requests_are_retried(void)
{
	clean_dir();
	fake_api f = {.life = 10 * DAY, .deny = 1};
	nl_clock_new_fake(&f.clock, T0);
	nl_cert_store *s = NULL;
	nl_err err = {0};
	nl_cert_store_new(&s, dir, "kubelet-client", &err);
	nl_cert_manager *m = manager_new(&f, s, 0);
	nl_cert_manager_start(m);
	nl_clock_run_due(f.clock);
	CU_ASSERT_EQUAL(f.rotated, 0);
	CU_ASSERT_EQUAL(nl_cert_manager_failures(m), 1);
	/* Pending: read back every second for 15 minutes, then retried. */
	f.deny = 0;
	f.pending = 1;
	nl_clock_advance(f.clock, 3 * NL_USEC_PER_SEC);
	CU_ASSERT_EQUAL(f.creates, 2);
	int gets = f.gets;
	nl_clock_advance(f.clock, 15 * 60 * NL_USEC_PER_SEC);
	CU_ASSERT(f.gets - gets >= 15 * 60 - 5);
	CU_ASSERT_EQUAL(nl_cert_manager_failures(m), 2);
	f.pending = 0;
	nl_clock_advance(f.clock, 10 * NL_USEC_PER_SEC);
	CU_ASSERT_EQUAL(f.rotated, 1);
	nl_cert_manager_free(m);
	nl_cert_store_free(s);
	json_object_put(f.csr);
	nl_clock_free(f.clock);
}

static void test_certificate__a_restart_keeps_the_current_certificate(void)
{
	clean_dir();
	fake_api f = {.life = 30 * DAY};
	nl_clock_new_fake(&f.clock, T0);
	nl_cert_store *s = NULL;
	nl_err err = {0};
	nl_cert_store_new(&s, dir, "kubelet-client", &err);
	nl_cert_manager *m = manager_new(&f, s, 0);
	nl_cert_manager_start(m);
	nl_clock_run_due(f.clock);
	nl_cert_manager_free(m);
	nl_cert_store_free(s);
	CU_ASSERT_EQUAL_FATAL(f.creates, 1);
	/* Ten days later the agent starts again on the same directory. */
	nl_clock_advance(f.clock, 10 * DAY);
	nl_cert_store_new(&s, dir, "kubelet-client", &err);
	m = manager_new(&f, s, 0);
	CU_ASSERT_TRUE(nl_cert_manager_current(m, NULL));
	nl_cert_manager_start(m);
	nl_clock_run_due(f.clock);
	CU_ASSERT_EQUAL(f.creates, 1); /* nothing requested */
	CU_ASSERT(nl_cert_manager_deadline(m) >= T0 + 21 * DAY);
	nl_cert_manager_free(m);
	nl_cert_store_free(s);
	/* After it expired, a restart bootstraps again. */
	nl_clock_advance(f.clock, 30 * DAY);
	nl_cert_store_new(&s, dir, "kubelet-client", &err);
	m = manager_new(&f, s, 0);
	CU_ASSERT_FALSE(nl_cert_manager_current(m, NULL));
	nl_cert_manager_start(m);
	nl_clock_run_due(f.clock);
	CU_ASSERT_EQUAL(f.bootstrap_creates, 2);
	nl_cert_manager_free(m);
	nl_cert_store_free(s);
	json_object_put(f.csr);
	nl_clock_free(f.clock);
}

static void test_certificate__one_shot_bootstrap_as_kubelet(void)
{
	clean_dir();
	fake_api f = {.life = 30 * DAY, .down = 1};
	nl_clock_new_fake(&f.clock, T0);
	nl_cert_store *s = NULL;
	nl_err err = {0};
	nl_cert_store_new(&s, dir, "kubelet-client", &err);
	nl_cert_manager *m = manager_new(&f, s, 1);
	nl_cert_manager_start(m);
	nl_clock_run_due(f.clock);
	/* The key waits in kubelet-client.key.tmp while the server is away. */
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s/kubelet-client.key.tmp", dir);
	struct stat st;
	CU_ASSERT(stat(tmp, &st) == 0 && (st.st_mode & 07777) == 0600);
	f.down = 0;
	nl_clock_advance(f.clock, 3 * NL_USEC_PER_SEC);
	CU_ASSERT_EQUAL(f.rotated, 1);
	CU_ASSERT(strncmp(f.last_name, "node-csr-", 9) == 0);
	json_object *usages = nl_json_get_path(f.csr, "spec.usages");
	CU_ASSERT_STRING_EQUAL(json_object_to_json_string(usages),
	                       "[ \"digital signature\", \"key encipherment\", \"client auth\" ]");
	CU_ASSERT_EQUAL(access(tmp, F_OK), -1);
	/* No rotation afterwards. */
	nl_clock_advance(f.clock, 40 * DAY);
	CU_ASSERT_EQUAL(f.creates, 2);
	nl_cert_manager_free(m);
	nl_cert_store_free(s);
	json_object_put(f.csr);
	nl_clock_free(f.clock);
}

static CU_TestInfo tests[] = {
    {"key_is_sec1_p256", test_certificate__key_is_sec1_p256},
    {"csr_has_the_node_subject", test_certificate__csr_has_the_node_subject},
    {"digest_name_is_kubelets", test_certificate__digest_name_is_kubelets},
    {"parse_reads_the_leaf_of_a_chain", test_certificate__parse_reads_the_leaf_of_a_chain},
    {"deadline_is_in_70_to_90_percent", test_certificate__deadline_is_in_70_to_90_percent},
    {"store_writes_kubelets_files", test_certificate__store_writes_kubelets_files},
    {"tmp_key_is_kept_0600", test_certificate__tmp_key_is_kept_0600},
    {"bootstrap_then_rotation_on_virtual_time",
     test_certificate__bootstrap_then_rotation_on_virtual_time},
    {"server_down_at_the_deadline_backs_off",
     test_certificate__server_down_at_the_deadline_backs_off},
    {"denied_and_pending_requests_are_retried",
     test_certificate__denied_and_pending_requests_are_retried},
    {"a_restart_keeps_the_current_certificate",
     test_certificate__a_restart_keeps_the_current_certificate},
    {"one_shot_bootstrap_as_kubelet", test_certificate__one_shot_bootstrap_as_kubelet},
    CU_TEST_INFO_NULL,
};

static int suite_teardown(void)
{
	X509_free(ca_cert);
	EVP_PKEY_free(ca_key);
	return teardown();
}

CU_SuiteInfo nl_test_suites[] = {
    {"certificate", setup, suite_teardown, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
