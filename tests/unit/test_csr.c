/* CertificateSigningRequests without HTTP: the strategy of create and of
 * each update endpoint, validation with upstream's texts, and one pass of
 * the csrapproving and csrsigning controllers on a bare store. */
#include <gnutls/abstract.h>
#include <gnutls/x509.h>
#include <nodelet/base64.h>
#include <nodelet/meta.h>
#include <nodelet/protobuf.h>
#include <nodelet/schema.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../cu_main.h"
#include "api/csr.h"
#include "api/schema.h"
#include "api/validation.h"
#include "auth/certs.h"
#include "controllers/controllers.h"
#include "mockapi.h"
#include "storage/store.h"

#define NOW "2026-05-01T10:00:00Z"
#define NOW_SEC INT64_C(1777629600)

/* A PEM CERTIFICATE REQUEST with subject O=org, CN=cn, an optional DNS
 * SAN, signed by a new ECDSA key (caller frees). */
static char *make_request(const char *org, const char *cn, const char *dns)
{
	gnutls_x509_privkey_t key;
	gnutls_x509_crq_t crq;
	gnutls_datum_t out = {NULL, 0};
	CU_ASSERT_FATAL(gnutls_x509_privkey_init(&key) >= 0);
	CU_ASSERT_FATAL(
	    gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA,
	                                 GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0) >= 0);
	CU_ASSERT_FATAL(gnutls_x509_crq_init(&crq) >= 0);
	if (org)
		gnutls_x509_crq_set_dn_by_oid(crq, GNUTLS_OID_X520_ORGANIZATION_NAME, 0, org,
		                              (unsigned)strlen(org));
	gnutls_x509_crq_set_dn_by_oid(crq, GNUTLS_OID_X520_COMMON_NAME, 0, cn,
	                              (unsigned)strlen(cn));
	if (dns)
		gnutls_x509_crq_set_subject_alt_name(crq, GNUTLS_SAN_DNSNAME, dns,
		                                     (unsigned)strlen(dns), GNUTLS_FSAN_APPEND);
	gnutls_x509_crq_set_key(crq, key);
	CU_ASSERT_FATAL(gnutls_x509_crq_sign2(crq, key, GNUTLS_DIG_SHA256, 0) >= 0);
	/* GnuTLS's own PEM says NEW CERTIFICATE REQUEST, which Go refuses */
	gnutls_datum_t der = {NULL, 0};
	CU_ASSERT_FATAL(gnutls_x509_crq_export2(crq, GNUTLS_X509_FMT_DER, &der) >= 0);
	CU_ASSERT_FATAL(gnutls_pem_base64_encode2("CERTIFICATE REQUEST", &der, &out) >= 0);
	char *pem = strndup((const char *)out.data, out.size);
	gnutls_free(out.data);
	gnutls_free(der.data);
	gnutls_x509_crq_deinit(crq);
	gnutls_x509_privkey_deinit(key);
	return pem;
}

static char *b64(const char *s)
{
	char *out = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_base64_encode(&out, (const unsigned char *)s, strlen(s)), 0);
	return out;
}

/* A CSR object for request pem with signer and usages (a JSON list). */
static json_object *csr_obj(const char *pem, const char *signer, const char *usages)
{
	char *req = b64(pem);
	size_t n = strlen(req) + strlen(signer) + strlen(usages) + 256;
	char *text = malloc(n);
	snprintf(text, n,
	         "{\"metadata\":{\"name\":\"c\"},\"spec\":{\"request\":\"%s\",\"signerName\":"
	         "\"%s\",\"usages\":%s},\"status\":{}}",
	         req, signer, usages);
	json_object *o = json_tokener_parse(text);
	free(text);
	free(req);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	return o;
}

static json_object *kubelet_csr(void)
{
	char *pem = make_request("system:nodes", "system:node:n1", NULL);
	json_object *o =
	    csr_obj(pem, MOCK_CSR_SIGNER_KUBELET_CLIENT, "[\"digital signature\",\"client auth\"]");
	free(pem);
	return o;
}

/* The messages of obj's validation (old NULL: create) joined by "\n". */
static char *errors_of(json_object *obj, json_object *old, const char *sub)
{
	mock_ferrs e;
	nl_buf b;
	mock_ferrs_init(&e);
	nl_buf_init(&b, 0);
	mock_validate_csr(&e, obj, old, sub);
	for (size_t i = 0; i < e.n; i++)
		nl_buf_printf(&b, "%s%s: %s", i ? "\n" : "", e.items[i].field, e.items[i].message);
	mock_ferrs_free(&e);
	char *s = strdup(b.data ? b.data : "");
	nl_buf_free(&b);
	return s;
}

static void assert_errors(json_object *obj, json_object *old, const char *sub, const char *want)
{
	char *got = errors_of(obj, old, sub);
	if (strcmp(got, want) != 0)
		fprintf(stderr, "\n got: %s\nwant: %s\n", got, want);
	CU_ASSERT_STRING_EQUAL(got, want);
	free(got);
}

static void set(json_object *obj, const char *path, json_object *v)
{
	char *dot = strrchr(path, '.');
	char parent[64];
	if (!dot) {
		json_object_object_add(obj, path, v);
		return;
	}
	snprintf(parent, sizeof(parent), "%.*s", (int)(dot - path), path);
	json_object_object_add(nl_json_get_path(obj, parent), dot + 1, v);
}

static void test_csr__create_takes_the_requester_identity(void)
{
	json_object *o = kubelet_csr();
	const char *groups[] = {"system:bootstrappers", "system:authenticated"};
	mock_request req;
	memset(&req, 0, sizeof(req));
	req.user = "system:bootstrap:abc";
	req.groups = groups;
	req.ngroups = 2;
	set(o, "spec.username", json_object_new_string("admin"));
	set(o, "spec.uid", json_object_new_string("u1"));
	set(o, "status.certificate", json_object_new_string("eA=="));
	mock_csr_prepare_create(o, &req);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(o, "spec.username"), "system:bootstrap:abc");
	CU_ASSERT_PTR_NULL(nl_json_get_path(o, "spec.uid"));
	CU_ASSERT_STRING_EQUAL(json_object_to_json_string_ext(nl_json_get_path(o, "spec.groups"),
	                                                      JSON_C_TO_STRING_PLAIN),
	                       "[\"system:bootstrappers\",\"system:authenticated\"]");
	CU_ASSERT_EQUAL(json_object_object_length(nl_json_get_path(o, "status")), 0);
	assert_errors(o, NULL, "", "");
	json_object_put(o);
}

static void test_csr__validation_texts(void)
{
	json_object *o = kubelet_csr();
	set(o, "spec.signerName", json_object_new_string("kubernetes.io/legacy-unknown"));
	set(o, "spec.expirationSeconds", json_object_new_int(599));
	set(o, "spec.usages", json_tokener_parse("[\"client auth\",\"bogus\",\"client auth\"]"));
	assert_errors(
	    o, NULL, "",
	    "spec.usages[1]: Unsupported value: \"bogus\": supported values: \"any\", "
	    "\"cert sign\", \"client auth\", \"code signing\", \"content commitment\", "
	    "\"crl sign\", \"data encipherment\", \"decipher only\", \"digital "
	    "signature\", \"email protection\", \"encipher only\", \"ipsec end system\", "
	    "\"ipsec tunnel\", \"ipsec user\", \"key agreement\", \"key encipherment\", "
	    "\"microsoft sgc\", \"netscape sgc\", \"ocsp signing\", \"s/mime\", \"server "
	    "auth\", \"signing\", \"timestamping\"\n"
	    "spec.usages[2]: Duplicate value: \"client auth\"\n"
	    "spec.signerName: Invalid value: \"kubernetes.io/legacy-unknown\": the legacy "
	    "signerName is not allowed via this API version\n"
	    "spec.expirationSeconds: Invalid value: 599: may not specify a duration less "
	    "than 600 seconds (10 minutes)");
	set(o, "spec.signerName", json_object_new_string(""));
	json_object_object_del(nl_json_get_path(o, "spec"), "expirationSeconds");
	set(o, "spec.usages", json_object_new_array());
	set(o, "spec.request", json_object_new_string("LS0t")); /* "---" */
	assert_errors(o, NULL, "",
	              "spec.request: Invalid value: []byte{0x2d, 0x2d, 0x2d}: PEM block type must "
	              "be CERTIFICATE REQUEST\n"
	              "spec.usages: Required value: usages must be provided\n"
	              "spec.signerName: Required value: signerName must be provided");
	json_object_put(o);
}

static void test_csr__signer_name_rules(void)
{
	json_object *o = kubelet_csr();
	set(o, "spec.signerName", json_object_new_string("example/signer"));
	assert_errors(
	    o, NULL, "",
	    "spec.signerName: Invalid value: \"example\": should be a domain with at least "
	    "two segments separated by dots");
	set(o, "spec.signerName", json_object_new_string("a/b/c"));
	assert_errors(o, NULL, "",
	              "spec.signerName: Invalid value: \"a/b/c\": must be a fully qualified domain "
	              "and path of the form 'example.com/signer-name'");
	set(o, "spec.signerName", json_object_new_string("example.com/Bad"));
	char *got = errors_of(o, NULL, "");
	CU_ASSERT_PTR_NOT_NULL(strstr(got, "spec.signerName: Invalid value: \"Bad\": validating "
	                                   "label \"Bad\": a lowercase RFC 1123 subdomain"));
	free(got);
	json_object_put(o);
}

static void test_csr__conditions_and_certificate(void)
{
	json_object *o = kubelet_csr();
	set(o, "status.conditions",
	    json_tokener_parse("[{\"type\":\"Approved\",\"status\":\"True\"},{\"type\":\"Denied\","
	                       "\"status\":\"False\"},{\"type\":\"\",\"status\":\"\"}]"));
	set(o, "status.certificate", json_object_new_string("eA=="));
	assert_errors(o, NULL, "",
	              "status.conditions[1].status: Unsupported value: \"False\": supported "
	              "values: \"True\"\n"
	              "status.conditions[1].type: Invalid value: \"Denied\": Approved and Denied "
	              "conditions are mutually exclusive\n"
	              "status.conditions[2].type: Required value\n"
	              "status.conditions[2].status: Required value\n"
	              "status.certificate: Invalid value: \"<certificate data>\": must contain at "
	              "least one CERTIFICATE PEM block");
	json_object_put(o);
}

/* /status keeps the stored Approved condition and takes the certificate;
 * /approval takes the conditions and keeps the stored certificate; the
 * main endpoint keeps both. */
static void test_csr__endpoints_change_only_their_part(void)
{
	json_object *old = kubelet_csr(), *o = NULL;
	set(old, "status.conditions",
	    json_tokener_parse("[{\"type\":\"Approved\",\"status\":\"True\",\"reason\":\"A\","
	                       "\"lastUpdateTime\":\"2026-01-01T00:00:00Z\","
	                       "\"lastTransitionTime\":\"2026-01-01T00:00:00Z\"}]"));
	json_object_deep_copy(old, &o, NULL);
	json_object_object_add(
	    json_object_array_get_idx(nl_json_get_path(o, "status.conditions"), 0), "reason",
	    json_object_new_string("changed"));
	json_object_array_add(nl_json_get_path(o, "status.conditions"),
	                      json_tokener_parse("{\"type\":\"Progress\",\"status\":\"True\"}"));
	set(o, "spec.signerName", json_object_new_string("example.com/other"));
	mock_csr_prepare_update(o, old, "status", NOW);
	json_object *conds = nl_json_get_path(o, "status.conditions");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(json_object_array_get_idx(conds, 0), "reason"),
	                       "A");
	CU_ASSERT_STRING_EQUAL(
	    nl_json_get_string(json_object_array_get_idx(conds, 1), "lastTransitionTime"), NOW);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(o, "spec.signerName"),
	                       MOCK_CSR_SIGNER_KUBELET_CLIENT);
	assert_errors(o, old, "status", "");
	/* adding a Denied condition through /status is refused */
	json_object_array_add(nl_json_get_path(o, "status.conditions"),
	                      json_tokener_parse("{\"type\":\"Denied\",\"status\":\"True\"}"));
	mock_csr_prepare_update(o, old, "status", NOW);
	char *got = errors_of(o, old, "status");
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(got, "status.conditions: Forbidden: updates may not add a condition of type "
	                "\"Denied\""));
	free(got);
	json_object_put(o);
	o = NULL;

	/* /approval takes new conditions and keeps the stored certificate */
	json_object_deep_copy(old, &o, NULL);
	set(o, "status.certificate", json_object_new_string("eA=="));
	json_object_array_add(nl_json_get_path(o, "status.conditions"),
	                      json_tokener_parse("{\"type\":\"Failed\",\"status\":\"True\"}"));
	mock_csr_prepare_update(o, old, "approval", NOW);
	CU_ASSERT_PTR_NULL(nl_json_get_path(o, "status.certificate"));
	CU_ASSERT_EQUAL(json_object_array_length(nl_json_get_path(o, "status.conditions")), 2);
	assert_errors(o, old, "approval", "");
	json_object_put(o);
	o = NULL;

	/* main: nothing of spec or status changes; removing a condition is refused */
	json_object_deep_copy(old, &o, NULL);
	set(o, "status", json_object_new_object());
	mock_csr_prepare_update(o, old, "", NOW);
	CU_ASSERT_EQUAL(json_object_array_length(nl_json_get_path(o, "status.conditions")), 1);
	json_object_put(o);
	o = NULL;
	json_object_deep_copy(old, &o, NULL);
	set(o, "status", json_object_new_object());
	mock_csr_prepare_update(o, old, "approval", NOW);
	assert_errors(o, old, "approval",
	              "status.conditions: Forbidden: updates may not remove a condition of type "
	              "\"Approved\"");
	json_object_put(o);
	json_object_put(old);
}

/* ------------------------------------------------------------ controllers */

typedef struct {
	mock_keypair ca;
	int asked_self, asked_node;
	int allow_node, allow_self;
} fake_auth;

static int fake_allows(void *p, const char *user, const char *const *groups, size_t n,
                       const char *verb, const char *group, const char *resource, const char *sub)
{
	fake_auth *f = p;
	(void)groups;
	(void)n;
	(void)user;
	CU_ASSERT_STRING_EQUAL(verb, "create");
	CU_ASSERT_STRING_EQUAL(group, "certificates.k8s.io");
	CU_ASSERT_STRING_EQUAL(resource, "certificatesigningrequests");
	if (strcmp(sub, "selfnodeclient") == 0) {
		f->asked_self++;
		return f->allow_self;
	}
	f->asked_node++;
	return f->allow_node;
}

static int fake_sign(void *p, char **cert, const char *pem, size_t len, int64_t nb, int64_t na,
                     const char *const *usages, size_t nu, nl_err *err)
{
	fake_auth *f = p;
	return mock_cert_sign_request(cert, pem, len, &f->ca, nb, na, usages, nu, err);
}

static int64_t fixed_now(void *p)
{
	(void)p;
	return NOW_SEC * 1000000;
}

static json_object *stored(mock_store *s)
{
	json_object *o = NULL;
	CU_ASSERT_EQUAL(mock_store_get_object(s, mock_resource_get(MOCK_KIND_CSR), NULL, "c", &o),
	                0);
	return o;
}

static void put_csr(mock_store *s, json_object *o, const char *user)
{
	set(o, "spec.username", json_object_new_string(user));
	CU_ASSERT_EQUAL_FATAL(mock_store_write(s, mock_resource_get(MOCK_KIND_CSR),
	                                       MOCK_WRITE_CREATE, o, NULL, NULL, NULL, NULL, NULL,
	                                       NULL),
	                      0);
}

static void test_csr__approver_asks_the_authorizer(void)
{
	mock_store *s = NULL;
	fake_auth f = {{0}, 0, 0, 0, 0};
	mock_csr_hooks h = {fake_allows, fake_sign, &f};
	CU_ASSERT_EQUAL_FATAL(mock_store_new(&s, fixed_now, NULL), 0);
	json_object *o = kubelet_csr();
	put_csr(s, o, "system:bootstrap:abc");
	json_object_put(o);
	/* not allowed: left pending, asked once for nodeclient only */
	CU_ASSERT_EQUAL(mock_csr_controllers_run(s, &h, MOCK_CONTROLLER_CSR_APPROVING,
	                                         fixed_now(NULL), 3600000000LL),
	                0);
	CU_ASSERT_EQUAL(f.asked_self, 0);
	CU_ASSERT_EQUAL(f.asked_node, 1);
	f.allow_node = 1;
	CU_ASSERT_EQUAL(mock_csr_controllers_run(s, &h, MOCK_CONTROLLER_CSR_APPROVING,
	                                         fixed_now(NULL), 3600000000LL),
	                1);
	o = stored(s);
	json_object *c = json_object_array_get_idx(nl_json_get_path(o, "status.conditions"), 0);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(c, "type"), "Approved");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(c, "reason"), "AutoApproved");
	CU_ASSERT_STRING_EQUAL(
	    nl_json_get_string(c, "message"),
	    "Auto approving kubelet client certificate after SubjectAccessReview.");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(c, "lastUpdateTime"), NOW);
	json_object_put(o);
	mock_store_free(s);
}

static void test_csr__approver_recognizes_only_node_client_requests(void)
{
	static const struct {
		const char *org, *cn, *dns, *signer, *usages, *user;
		int self, node;
	} cases[] = {
	    /* a node renewing its own: selfnodeclient first */
	    {"system:nodes", "system:node:n1", NULL, MOCK_CSR_SIGNER_KUBELET_CLIENT,
	     "[\"digital signature\",\"key encipherment\",\"client auth\"]", "system:node:n1", 1,
	     1},
	    {"system:nodes", "system:node:n1", "n1.example", MOCK_CSR_SIGNER_KUBELET_CLIENT,
	     "[\"digital signature\",\"client auth\"]", "u", 0, 0},
	    {"system:masters", "system:node:n1", NULL, MOCK_CSR_SIGNER_KUBELET_CLIENT,
	     "[\"digital signature\",\"client auth\"]", "u", 0, 0},
	    {"system:nodes", "n1", NULL, MOCK_CSR_SIGNER_KUBELET_CLIENT,
	     "[\"digital signature\",\"client auth\"]", "u", 0, 0},
	    {"system:nodes", "system:node:n1", NULL, MOCK_CSR_SIGNER_CLIENT,
	     "[\"digital signature\",\"client auth\"]", "u", 0, 0},
	    {"system:nodes", "system:node:n1", NULL, MOCK_CSR_SIGNER_KUBELET_CLIENT,
	     "[\"digital signature\",\"client auth\",\"server auth\"]", "u", 0, 0},
	    {"system:nodes", "system:node:n1", NULL, MOCK_CSR_SIGNER_KUBELET_CLIENT,
	     "[\"client auth\"]", "u", 0, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		mock_store *s = NULL;
		fake_auth f = {{0}, 0, 0, 0, 0};
		mock_csr_hooks h = {fake_allows, fake_sign, &f};
		CU_ASSERT_EQUAL_FATAL(mock_store_new(&s, fixed_now, NULL), 0);
		char *pem = make_request(cases[i].org, cases[i].cn, cases[i].dns);
		json_object *o = csr_obj(pem, cases[i].signer, cases[i].usages);
		put_csr(s, o, cases[i].user);
		mock_csr_controllers_run(s, &h, MOCK_CONTROLLER_CSR_APPROVING, fixed_now(NULL), 1);
		CU_ASSERT_EQUAL(f.asked_self, cases[i].self);
		CU_ASSERT_EQUAL(f.asked_node, cases[i].node);
		json_object_put(o);
		free(pem);
		mock_store_free(s);
	}
}

/* The issued certificate's validity in seconds since the epoch. */
static void cert_times(json_object *csr, int64_t *nb, int64_t *na, char *cn, size_t cnlen)
{
	unsigned char *pem = NULL;
	size_t n = 0;
	const char *b = nl_json_get_string(csr, "status.certificate");
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL_FATAL(nl_base64_decode(&pem, &n, b, strlen(b), NULL), 0);
	gnutls_x509_crt_t crt;
	gnutls_datum_t d = {pem, (unsigned)n};
	gnutls_x509_crt_init(&crt);
	CU_ASSERT_FATAL(gnutls_x509_crt_import(crt, &d, GNUTLS_X509_FMT_PEM) >= 0);
	*nb = gnutls_x509_crt_get_activation_time(crt);
	*na = gnutls_x509_crt_get_expiration_time(crt);
	gnutls_x509_crt_get_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, 0, cn, &cnlen);
	gnutls_x509_crt_deinit(crt);
	free(pem);
}

static void test_csr__signer_issues_backdated_certificates(void)
{
	static const struct {
		int expiration; /* 0: none */
		int64_t max_usec, want_nb, want_na;
	} cases[] = {
	    /* short-lived: notAfter not backdated */
	    {3600, 8760LL * 3600 * 1000000, NOW_SEC - 300, NOW_SEC + 3600},
	    /* --cluster-signing-duration caps it; 8h and more is backdated */
	    {0, 10LL * 3600 * 1000000, NOW_SEC - 300, NOW_SEC + 10 * 3600 - 300},
	    {7200, 1800LL * 1000000, NOW_SEC - 300, NOW_SEC + 1800},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		mock_store *s = NULL;
		fake_auth f = {{0}, 0, 0, 1, 1};
		mock_csr_hooks h = {fake_allows, fake_sign, &f};
		mock_cert_spec ca = {.common_name = "ca",
		                     .not_before = NOW_SEC - 86400,
		                     .not_after = NOW_SEC + 365 * 86400,
		                     .ca = 1};
		CU_ASSERT_EQUAL_FATAL(mock_cert_issue(&f.ca, &ca, NULL, NULL), 0);
		CU_ASSERT_EQUAL_FATAL(mock_store_new(&s, fixed_now, NULL), 0);
		json_object *o = kubelet_csr();
		if (cases[i].expiration)
			set(o, "spec.expirationSeconds", json_object_new_int(cases[i].expiration));
		put_csr(s, o, "system:bootstrap:abc");
		json_object_put(o);
		/* unapproved: not signed */
		CU_ASSERT_EQUAL(mock_csr_controllers_run(s, &h, MOCK_CONTROLLER_CSR_SIGNING,
		                                         fixed_now(NULL), cases[i].max_usec),
		                0);
		CU_ASSERT_EQUAL(mock_csr_controllers_run(s, &h, MOCK_CONTROLLERS_ALL,
		                                         fixed_now(NULL), cases[i].max_usec),
		                2);
		o = stored(s);
		int64_t nb = 0, na = 0;
		char cn[128] = "";
		cert_times(o, &nb, &na, cn, sizeof(cn));
		CU_ASSERT_EQUAL(nb, cases[i].want_nb);
		CU_ASSERT_EQUAL(na, cases[i].want_na);
		CU_ASSERT_STRING_EQUAL(cn, "system:node:n1");
		json_object_put(o);
		/* issued: nothing more to do */
		CU_ASSERT_EQUAL(mock_csr_controllers_run(s, &h, MOCK_CONTROLLERS_ALL,
		                                         fixed_now(NULL), cases[i].max_usec),
		                0);
		mock_keypair_clear(&f.ca);
		mock_store_free(s);
	}
}

/* An approved request the signer does not issue gets Failed with
 * upstream's reason, and is left alone afterwards. */
static void test_csr__signer_fails_requests_it_does_not_issue(void)
{
	static const struct {
		const char *org, *cn, *dns, *signer, *usages, *message;
	} cases[] = {
	    {"system:masters", "system:node:n1", NULL, MOCK_CSR_SIGNER_KUBELET_CLIENT,
	     "[\"digital signature\",\"client auth\"]", "subject organization is not system:nodes"},
	    {"system:nodes", "system:node:n1", "n1.example", MOCK_CSR_SIGNER_KUBELET_CLIENT,
	     "[\"digital signature\",\"client auth\"]", "DNS subjectAltNames are not allowed"},
	    {"system:nodes", "n1", NULL, MOCK_CSR_SIGNER_KUBELET_CLIENT,
	     "[\"digital signature\",\"client auth\"]",
	     "subject common name does not begin with system:node:"},
	    {"system:nodes", "system:node:n1", NULL, MOCK_CSR_SIGNER_KUBELET_CLIENT,
	     "[\"client auth\"]",
	     "usages did not match [client auth digital signature key encipherment]"},
	    {NULL, "alice", NULL, MOCK_CSR_SIGNER_CLIENT, "[\"digital signature\",\"server auth\"]",
	     "invalid usage for client certificate: server auth"},
	    {NULL, "alice", NULL, MOCK_CSR_SIGNER_CLIENT, "[\"digital signature\"]",
	     "missing required usage for client certificate: client auth"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		mock_store *s = NULL;
		fake_auth f = {{0}, 0, 0, 0, 0};
		mock_csr_hooks h = {fake_allows, fake_sign, &f};
		CU_ASSERT_EQUAL_FATAL(mock_store_new(&s, fixed_now, NULL), 0);
		char *pem = make_request(cases[i].org, cases[i].cn, cases[i].dns);
		json_object *o = csr_obj(pem, cases[i].signer, cases[i].usages);
		set(o, "status.conditions",
		    json_tokener_parse("[{\"type\":\"Approved\",\"status\":\"True\"}]"));
		put_csr(s, o, "u");
		json_object_put(o);
		CU_ASSERT_EQUAL(mock_csr_controllers_run(s, &h, MOCK_CONTROLLER_CSR_SIGNING,
		                                         fixed_now(NULL), 3600000000LL),
		                1);
		o = stored(s);
		json_object *c =
		    json_object_array_get_idx(nl_json_get_path(o, "status.conditions"), 1);
		CU_ASSERT_STRING_EQUAL(nl_json_get_string(c, "type"), "Failed");
		CU_ASSERT_STRING_EQUAL(nl_json_get_string(c, "reason"), "SignerValidationFailure");
		CU_ASSERT_STRING_EQUAL(nl_json_get_string(c, "message"), cases[i].message);
		CU_ASSERT_PTR_NULL(nl_json_get_path(o, "status.certificate"));
		json_object_put(o);
		CU_ASSERT_EQUAL(mock_csr_controllers_run(s, &h, MOCK_CONTROLLER_CSR_SIGNING,
		                                         fixed_now(NULL), 3600000000LL),
		                0);
		free(pem);
		mock_store_free(s);
	}
}

/* []byte fields are canonical base64 in JSON and raw bytes in protobuf;
 * spec.extra is type-checked as map[string]ExtraValue and never kept. */
static void test_csr__wire_forms(void)
{
	const mock_resource *r = mock_resource_get(MOCK_KIND_CSR);
	json_object *in = json_tokener_parse(
	    "{\"spec\":{\"request\":\"aGk\",\"signerName\":\"a.b/c\",\"extra\":{\"k\":"
	    "[\"v\"]}}}");
	json_object *out = NULL;
	mock_unknown_fields unknown = {NULL, 0};
	nl_err err = {0};
	/* Go's decoder refuses unpadded standard base64 */
	CU_ASSERT_EQUAL(mock_schema_decode(&out, r, in, &unknown, &err), NL_EBADREQUEST);
	json_object_put(in);
	in = json_tokener_parse("{\"spec\":{\"request\":\"aGk=\",\"signerName\":\"a.b/c\","
	                        "\"extra\":{\"k\":[\"v\"]}}}");
	CU_ASSERT_EQUAL_FATAL(mock_schema_decode(&out, r, in, &unknown, &err), 0);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(out, "spec.request"), "aGk=");
	CU_ASSERT_PTR_NULL(nl_json_get_path(out, "spec.extra"));
	/* a missing certificate is omitted, status is always written */
	CU_ASSERT_PTR_NOT_NULL(nl_json_get_path(out, "status"));
	CU_ASSERT_PTR_NULL(nl_json_get_path(out, "status.certificate"));
	nl_buf pb;
	nl_buf_init(&pb, 0);
	CU_ASSERT_EQUAL_FATAL(nl_pb_encode_message(&pb, out, &nl_schema_csr), 0);
	/* spec {request (1) = "hi"} somewhere in the message */
	CU_ASSERT_PTR_NOT_NULL(memmem(pb.data, pb.len, "\x0a\x02hi", 4));
	json_object *back = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_pb_decode_message(&back, pb.data, pb.len, &nl_schema_csr, &err),
	                      0);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(back, "spec.request"), "aGk=");
	json_object_put(back);
	nl_buf_free(&pb);
	json_object_put(out);
	mock_unknown_fields_free(&unknown);
	json_object_put(in);
	in = json_tokener_parse("{\"spec\":{\"extra\":{\"k\":5}}}");
	out = NULL;
	CU_ASSERT_EQUAL(mock_schema_decode(&out, r, in, &unknown, &err), NL_EBADREQUEST);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "of type v1.ExtraValue"));
	json_object_put(in);

	/* ExtraValue in protobuf: {key = 1, value = 2 {items = 1 ...}} */
	static const nl_field ef[] = {
	    {.name = "extra", .type = NL_FT_MAP_STRINGS, .flags = NL_F_OMITEMPTY, .pb = 1}};
	static const nl_schema es = {"X", ef, 1};
	json_object *m = json_tokener_parse("{\"extra\":{\"a\":[\"x\",\"y\"],\"b\":[]}}");
	nl_buf_init(&pb, 0);
	CU_ASSERT_EQUAL_FATAL(nl_pb_encode_message(&pb, m, &es), 0);
	back = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_pb_decode_message(&back, pb.data, pb.len, &es, &err), 0);
	CU_ASSERT_STRING_EQUAL(json_object_to_json_string_ext(back, JSON_C_TO_STRING_PLAIN),
	                       "{\"extra\":{\"a\":[\"x\",\"y\"],\"b\":[]}}");
	json_object_put(back);
	json_object_put(m);
	nl_buf_free(&pb);
}

static void test_csr__pem_blocks_as_go_finds_them(void)
{
	const char text[] =
	    "junk -----BEGIN X\n-----BEGIN A B-----\nK: v\nAAAA\n-----END A B-----\n"
	    "-----BEGIN C-----\nAAAA\n-----END D-----\n";
	const char *cur = text;
	mock_pem_block b;
	CU_ASSERT_EQUAL(mock_pem_next(&cur, text + sizeof(text) - 1, &b), 1);
	CU_ASSERT_STRING_EQUAL(b.type, "A B");
	CU_ASSERT_EQUAL(b.has_headers, 1);
	CU_ASSERT_EQUAL(mock_pem_next(&cur, text + sizeof(text) - 1, &b), 0);
}

/* A harness's server goes back to its saved state after each input (the
 * http fuzz target): the controllers must forget the CSR pass they last
 * made, or a CSR created after the rewind is never looked at when the
 * store's resourceVersion happens to come back to where that pass was. */
static int64_t start_usec;
/* The test's start: the server's own signer CA is dated by the wall clock. */
static int64_t start_now(void *p)
{
	(void)p;
	return start_usec;
}

static void test_csr__rewind_forgets_the_controllers_last_pass(void)
{
	mock_options o;
	mock_options_init(&o);
	o.port = 0;
	o.controller_tick_ms = 0;
	start_usec = (int64_t)time(NULL) * 1000000;
	o.clock = start_now;
	/* the signer signs over HTTPS only (docs/mockapi.md) */
	char dir[] = "/tmp/nl-test-csr-XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	o.generate_certs_dir = dir;
	mock_server *srv = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(mock_server_new(&srv, &o, &err), 0);
	CU_ASSERT_EQUAL_FATAL(mock_server_save(srv), 0);
	mock_store *s = mock_server_store(srv);
	uint64_t rv0 = mock_store_rv(s);
	for (int round = 0; round < 2; round++) {
		json_object *csr = kubelet_csr();
		put_csr(s, csr, "system:bootstrap:abc");
		json_object_put(csr);
		/* after the rewind: two more writes, so the first tick below sees
		 * the resourceVersion the first round's last pass saw */
		for (int i = 0; round == 1 && i < 2; i++) {
			char text[128];
			snprintf(text, sizeof(text),
			         "{\"metadata\":{\"name\":\"cm%d\",\"namespace\":\"default\"}}", i);
			json_object *cm = json_tokener_parse(text);
			CU_ASSERT_EQUAL_FATAL(
			    mock_store_write(s, mock_resource_get(MOCK_KIND_CONFIGMAP),
			                     MOCK_WRITE_CREATE, cm, NULL, NULL, NULL, NULL, NULL,
			                     NULL),
			    0);
			json_object_put(cm);
		}
		/* approved in one pass, signed in the next (its own write is a
		 * change), then a pass that finds nothing to do */
		int writes = 0;
		for (int k = 0; k < 4; k++)
			writes += mock_server_tick(srv);
		CU_ASSERT_EQUAL(writes, 2);
		CU_ASSERT_EQUAL(mock_store_rv(s), rv0 + (round ? 5 : 3));
		json_object *got = stored(s);
		json_object *conds = nl_json_get_path(got, "status.conditions");
		CU_ASSERT_TRUE(
		    json_object_is_type(conds, json_type_array) &&
		    json_object_array_length(conds) == 1 &&
		    strcmp(nl_json_get_string(json_object_array_get_idx(conds, 0), "type"),
		           "Approved") == 0);
		CU_ASSERT_PTR_NOT_NULL(nl_json_get_string(got, "status.certificate"));
		json_object_put(got);
		CU_ASSERT_EQUAL_FATAL(mock_server_rewind(srv), 0);
		CU_ASSERT_EQUAL(mock_store_rv(s), rv0);
	}
	mock_server_free(srv);
	static const char *const files[] = {"ca.crt",     "ca.key",     "client.crt",
	                                    "client.key", "server.crt", "server.key"};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[64];
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		CU_ASSERT_EQUAL(unlink(path), 0);
	}
	CU_ASSERT_EQUAL(rmdir(dir), 0);
}

static CU_TestInfo tests[] = {
    {"create_takes_the_requester_identity", test_csr__create_takes_the_requester_identity},
    {"validation_texts", test_csr__validation_texts},
    {"signer_name_rules", test_csr__signer_name_rules},
    {"conditions_and_certificate", test_csr__conditions_and_certificate},
    {"endpoints_change_only_their_part", test_csr__endpoints_change_only_their_part},
    {"approver_asks_the_authorizer", test_csr__approver_asks_the_authorizer},
    {"approver_recognizes_only_node_client_requests",
     test_csr__approver_recognizes_only_node_client_requests},
    {"signer_issues_backdated_certificates", test_csr__signer_issues_backdated_certificates},
    {"signer_fails_requests_it_does_not_issue", test_csr__signer_fails_requests_it_does_not_issue},
    {"wire_forms", test_csr__wire_forms},
    {"pem_blocks_as_go_finds_them", test_csr__pem_blocks_as_go_finds_them},
    {"rewind_forgets_the_controllers_last_pass",
     test_csr__rewind_forgets_the_controllers_last_pass},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"csr", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
