/* kube-controller-manager's csrapproving (approver/sarapprove.go) and
 * csrsigning (signer/signer.go) for the signers of kube-apiserver client
 * certificates. The authorizer and the CA are above this layer: the control
 * layer installs them as hooks (mock_csr_hooks). Writes go through the
 * /approval and /status strategy and validation, as the controllers'
 * UpdateApproval and UpdateStatus calls do. */
#include "controllers.h"

#include <gnutls/x509.h>
#include <nodelet/base64.h>
#include <nodelet/meta.h>
#include <nodelet/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/csr.h"
#include "api/validation.h"

#define BACKDATE_SEC (5 * 60)
#define SHORT_SEC (8 * 3600)

static const char *str_at(json_object *o, const char *path)
{
	const char *s = nl_json_get_string(o, path);
	return s ? s : "";
}

static int has_condition(json_object *csr, const char *type)
{
	json_object *conds = nl_json_get_path(csr, "status.conditions");
	for (size_t i = 0;
	     json_object_is_type(conds, json_type_array) && i < json_object_array_length(conds);
	     i++) {
		json_object *c = json_object_array_get_idx(conds, i);
		if (strcmp(str_at(c, "type"), type) == 0 &&
		    strcmp(str_at(c, "status"), "True") == 0)
			return 1;
	}
	return 0;
}

/* The decoded PEM of spec.request; *out owned. */
static int request_pem(json_object *csr, unsigned char **out, size_t *n)
{
	const char *b64 = str_at(csr, "spec.request");
	return nl_base64_decode(out, n, b64, strlen(b64), NULL);
}

/* The CSR's usages as flags; *other: any usage beyond these three. */
#define U_DS 1
#define U_KE 2
#define U_CA 4
static unsigned usage_set(json_object *csr, int *other)
{
	json_object *usages = nl_json_get_path(csr, "spec.usages");
	unsigned set = 0;
	*other = 0;
	for (size_t i = 0;
	     json_object_is_type(usages, json_type_array) && i < json_object_array_length(usages);
	     i++) {
		const char *u = json_object_get_string(json_object_array_get_idx(usages, i));
		u = u ? u : "";
		if (strcmp(u, "digital signature") == 0)
			set |= U_DS;
		else if (strcmp(u, "key encipherment") == 0)
			set |= U_KE;
		else if (strcmp(u, "client auth") == 0)
			set |= U_CA;
		else
			*other = 1;
	}
	return set;
}

/* Whether crq has a subjectAltName of type t. */
static int has_san(gnutls_x509_crq_t crq, unsigned t)
{
	char buf[512];
	for (unsigned i = 0;; i++) {
		size_t len = sizeof(buf);
		unsigned type = 0;
		int rc = gnutls_x509_crq_get_subject_alt_name(crq, i, buf, &len, &type, NULL);
		if (rc == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE)
			return 0;
		if ((rc >= 0 || rc == GNUTLS_E_SHORT_MEMORY_BUFFER) && type == t)
			return 1;
		if (rc < 0 && rc != GNUTLS_E_SHORT_MEMORY_BUFFER)
			return 0;
	}
}

/* ValidateKubeletClientCSR: NULL for a node client request (O exactly
 * [system:nodes], no SANs, CN system:node:*, usages {digital signature,
 * client auth} with key encipherment optional), else upstream's reason.
 * cn gets the CommonName. */
static const char *kubelet_client_error(json_object *csr, char cn[256])
{
	unsigned char *pem = NULL;
	size_t n = 0, len;
	char org[256];
	const char *why = "PEM block type must be CERTIFICATE REQUEST";
	gnutls_x509_crq_t crq;
	cn[0] = '\0';
	if (request_pem(csr, &pem, &n) != 0 || gnutls_x509_crq_init(&crq) < 0) {
		free(pem);
		return why;
	}
	gnutls_datum_t d = {pem, (unsigned)n};
	if (gnutls_x509_crq_import(crq, &d, GNUTLS_X509_FMT_PEM) >= 0) {
		len = sizeof(org);
		int one = gnutls_x509_crq_get_dn_by_oid(crq, GNUTLS_OID_X520_ORGANIZATION_NAME, 0,
		                                        0, org, &len) >= 0 &&
		          strcmp(org, "system:nodes") == 0;
		len = sizeof(org);
		int two = gnutls_x509_crq_get_dn_by_oid(crq, GNUTLS_OID_X520_ORGANIZATION_NAME, 1,
		                                        0, org, &len) >= 0;
		len = 256;
		if (gnutls_x509_crq_get_dn_by_oid(crq, GNUTLS_OID_X520_COMMON_NAME, 0, 0, cn,
		                                  &len) < 0)
			cn[0] = '\0';
		int other;
		unsigned u = usage_set(csr, &other);
		why = NULL;
		if (!one || two)
			why = "subject organization is not system:nodes";
		else if (has_san(crq, GNUTLS_SAN_DNSNAME))
			why = "DNS subjectAltNames are not allowed";
		else if (has_san(crq, GNUTLS_SAN_RFC822NAME))
			why = "Email subjectAltNames are not allowed";
		else if (has_san(crq, GNUTLS_SAN_IPADDRESS))
			why = "IP subjectAltNames are not allowed";
		else if (has_san(crq, GNUTLS_SAN_URI))
			why = "URI subjectAltNames are not allowed";
		else if (strncmp(cn, "system:node:", strlen("system:node:")) != 0)
			why = "subject common name does not begin with system:node:";
		else if (other || (u != (U_DS | U_CA) && u != (U_DS | U_KE | U_CA)))
			why =
			    "usages did not match [client auth digital signature key encipherment]";
	}
	gnutls_x509_crq_deinit(crq);
	free(pem);
	return why;
}

/* validAPIServerClientUsages, for kubernetes.io/kube-apiserver-client. */
static const char *client_usages_error(json_object *csr, char *buf, size_t len)
{
	json_object *usages = nl_json_get_path(csr, "spec.usages");
	int client = 0;
	for (size_t i = 0;
	     json_object_is_type(usages, json_type_array) && i < json_object_array_length(usages);
	     i++) {
		const char *u = json_object_get_string(json_object_array_get_idx(usages, i));
		u = u ? u : "";
		if (strcmp(u, "client auth") == 0) {
			client = 1;
		} else if (strcmp(u, "digital signature") != 0 &&
		           strcmp(u, "key encipherment") != 0) {
			snprintf(buf, len, "invalid usage for client certificate: %s", u);
			return buf;
		}
	}
	return client ? NULL : "missing required usage for client certificate: client auth";
}

typedef struct {
	const char *sub;
	const char *cond_type, *reason, *message; /* condition to add; NULL: certificate */
	char *certificate;                        /* base64 */
	char now[NL_TIME_BUFSZ];
} csr_write;

static nl_status *csr_write_hook(json_object *obj, json_object *old, void *payload)
{
	csr_write *w = payload;
	if (w->cond_type) {
		json_object *status = json_object_object_get(obj, "status");
		if (!status) {
			status = json_object_new_object();
			json_object_object_add(obj, "status", status);
		}
		json_object *conds = json_object_object_get(status, "conditions");
		if (!conds) {
			conds = json_object_new_array();
			json_object_object_add(status, "conditions", conds);
		}
		json_object *c = json_object_new_object();
		json_object_object_add(c, "type", json_object_new_string(w->cond_type));
		json_object_object_add(c, "status", json_object_new_string("True"));
		json_object_object_add(c, "reason", json_object_new_string(w->reason));
		json_object_object_add(c, "message", json_object_new_string(w->message));
		json_object_array_add(conds, c);
	} else {
		json_object *status = json_object_object_get(obj, "status");
		json_object_object_add(status, "certificate",
		                       json_object_new_string(w->certificate));
	}
	mock_csr_prepare_update(obj, old, w->sub, w->now);
	mock_ferrs errs;
	mock_ferrs_init(&errs);
	mock_validate_object_at(&errs, mock_resource_get(MOCK_KIND_CSR), obj, old, w->sub);
	nl_status *st = NULL;
	if (errs.n > 0)
		st = mock_ferrs_to_status(&errs, "CertificateSigningRequest", "certificates.k8s.io",
		                          nl_meta_name(obj));
	mock_ferrs_free(&errs);
	return st;
}

static int write_csr(mock_store *s, json_object *csr, csr_write *w, int64_t now)
{
	nl_status *st = NULL;
	nl_time_format(w->now, now);
	int rc = mock_store_write(s, mock_resource_get(MOCK_KIND_CSR), MOCK_WRITE_UPDATE, csr,
	                          csr_write_hook, w, NULL, NULL, NULL, &st);
	nl_status_free(st);
	return rc == 0 ? 1 : 0;
}

/* sarApprover.handle. */
static int approve(mock_store *s, const mock_csr_hooks *h, json_object *csr, int64_t now)
{
	char cn[256];
	if (*str_at(csr, "status.certificate") || has_condition(csr, "Approved") ||
	    has_condition(csr, "Denied"))
		return 0;
	if (strcmp(str_at(csr, "spec.signerName"), MOCK_CSR_SIGNER_KUBELET_CLIENT) != 0 ||
	    kubelet_client_error(csr, cn) != NULL)
		return 0;
	const char *user = str_at(csr, "spec.username");
	json_object *g = nl_json_get_path(csr, "spec.groups");
	const char *groups[64];
	size_t ng = 0;
	for (size_t i = 0;
	     json_object_is_type(g, json_type_array) && i < json_object_array_length(g) && ng < 64;
	     i++)
		groups[ng++] = json_object_get_string(json_object_array_get_idx(g, i));
	static const struct {
		int self;
		const char *sub, *message;
	} recognizers[] = {
	    {1, "selfnodeclient",
	     "Auto approving self kubelet client certificate after SubjectAccessReview."},
	    {0, "nodeclient",
	     "Auto approving kubelet client certificate after SubjectAccessReview."},
	};
	for (size_t i = 0; i < 2; i++) {
		if (recognizers[i].self && strcmp(user, cn) != 0)
			continue;
		if (!h->allows(h->payload, user, groups, ng, "create", "certificates.k8s.io",
		               "certificatesigningrequests", recognizers[i].sub))
			continue;
		csr_write w = {"approval", "Approved", "AutoApproved", recognizers[i].message,
		               NULL,       ""};
		return write_csr(s, csr, &w, now);
	}
	return 0;
}

/* signer.handle for the two kube-apiserver client signers. */
static int sign(mock_store *s, const mock_csr_hooks *h, json_object *csr, int64_t now,
                int64_t max_usec)
{
	const char *signer = str_at(csr, "spec.signerName");
	if (!has_condition(csr, "Approved") || has_condition(csr, "Denied") ||
	    has_condition(csr, "Failed") || *str_at(csr, "status.certificate"))
		return 0;
	char cn[256], buf[320];
	const char *why;
	if (strcmp(signer, MOCK_CSR_SIGNER_KUBELET_CLIENT) == 0)
		why = kubelet_client_error(csr, cn);
	else if (strcmp(signer, MOCK_CSR_SIGNER_CLIENT) == 0)
		why = client_usages_error(csr, buf, sizeof(buf));
	else
		return 0;
	if (why) { /* the request is not one this signer issues */
		csr_write w = {"status", "Failed", "SignerValidationFailure", why, NULL, ""};
		return write_csr(s, csr, &w, now);
	}
	/* duration: min(expirationSeconds, --cluster-signing-duration) */
	int64_t ttl = max_usec / 1000000;
	json_object *exp = nl_json_get_path(csr, "spec.expirationSeconds");
	if (exp && json_object_get_int64(exp) < ttl)
		ttl = json_object_get_int64(exp);
	int64_t t = now / 1000000;
	int64_t nb = t - BACKDATE_SEC, na = ttl < SHORT_SEC ? t + ttl : t + ttl - BACKDATE_SEC;
	json_object *u = nl_json_get_path(csr, "spec.usages");
	const char *usages[32];
	size_t nu = 0;
	for (size_t i = 0;
	     json_object_is_type(u, json_type_array) && i < json_object_array_length(u) && nu < 32;
	     i++)
		usages[nu++] = json_object_get_string(json_object_array_get_idx(u, i));
	unsigned char *pem = NULL;
	size_t n = 0;
	char *cert = NULL, *b64 = NULL;
	nl_err err = {0};
	int rc = request_pem(csr, &pem, &n);
	if (rc == 0)
		rc = h->sign(h->payload, &cert, (const char *)pem, n, nb, na, usages, nu, &err);
	free(pem);
	if (rc == 0 && nl_base64_encode(&b64, (const unsigned char *)cert, strlen(cert)) != 0)
		rc = NL_ENOMEM;
	free(cert);
	if (rc != 0) {
		free(b64);
		return 0;
	}
	csr_write w = {"status", NULL, NULL, NULL, b64, ""};
	int done = write_csr(s, csr, &w, now);
	free(b64);
	return done;
}

typedef struct {
	char **names;
	size_t n, cap;
} name_list;

static int collect(const char *key, uint64_t rv, const char *json, size_t len, void *payload)
{
	name_list *l = payload;
	(void)rv;
	(void)json;
	(void)len;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		char **p = realloc(l->names, cap * sizeof(*p));
		if (!p)
			return 1;
		l->names = p;
		l->cap = cap;
	}
	return (l->names[l->n] = strdup(key)) ? (l->n++, 0) : 1;
}

int mock_csr_controllers_run(mock_store *s, const mock_csr_hooks *h, unsigned enabled, int64_t now,
                             int64_t max_usec)
{
	const mock_resource *r = mock_resource_get(MOCK_KIND_CSR);
	name_list l = {NULL, 0, 0};
	mock_store_mark mark;
	int work = 0;
	if (!h || !h->allows || !h->sign)
		return 0;
	mock_store_visit_since(s, r, 0, collect, &l, &mark);
	for (size_t i = 0; i < l.n; i++) {
		json_object *csr = NULL;
		if ((enabled & MOCK_CONTROLLER_CSR_APPROVING) &&
		    mock_store_get_object(s, r, NULL, l.names[i], &csr) == 0) {
			work += approve(s, h, csr, now);
			json_object_put(csr);
			csr = NULL;
		}
		if ((enabled & MOCK_CONTROLLER_CSR_SIGNING) &&
		    mock_store_get_object(s, r, NULL, l.names[i], &csr) == 0) {
			work += sign(s, h, csr, now, max_usec);
			json_object_put(csr);
		}
		free(l.names[i]);
	}
	free(l.names);
	return work;
}
