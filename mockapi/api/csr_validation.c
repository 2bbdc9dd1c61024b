/* kube-apiserver 1.32's pkg/apis/certificates/validation for
 * certificates.k8s.io/v1 CertificateSigningRequests: the request must be a
 * PEM CERTIFICATE REQUEST whose signature verifies, usages known and once
 * each, a signerName of the form domain/path, expirationSeconds >= 600,
 * conditions well formed, status.certificate PEM CERTIFICATE blocks; and on
 * update which conditions and certificate each endpoint may change. The
 * x509 parsing is GnuTLS's, so its error texts are GnuTLS's, not Go's. */
#include "csr.h"
#include "validation_internal.h"

#include <nodelet/base64.h>
#include <nodelet/buf.h>
#include <nodelet/meta.h>
#include <nodelet/names.h>

#include <gnutls/abstract.h>
#include <gnutls/x509.h>
#include <stdlib.h>
#include <string.h>

#define LEGACY_UNKNOWN_SIGNER "kubernetes.io/legacy-unknown"

/* certificates.allValidUsages, sorted as sets.String.List() gives them. */
static const char *const valid_usages[] = {
    "any",
    "cert sign",
    "client auth",
    "code signing",
    "content commitment",
    "crl sign",
    "data encipherment",
    "decipher only",
    "digital signature",
    "email protection",
    "encipher only",
    "ipsec end system",
    "ipsec tunnel",
    "ipsec user",
    "key agreement",
    "key encipherment",
    "microsoft sgc",
    "netscape sgc",
    "ocsp signing",
    "s/mime",
    "server auth",
    "signing",
    "timestamping",
    NULL,
};

/* ------------------------------------------------------------------ PEM */

int mock_pem_next(const char **cursor, const char *end, mock_pem_block *out)
{
	static const char begin[] = "-----BEGIN ", dashes[] = "-----";
	const char *p = *cursor;
	while (p < end) {
		const char *b = memmem(p, (size_t)(end - p), begin, sizeof(begin) - 1);
		if (!b)
			break;
		const char *t = b + sizeof(begin) - 1;
		const char *te = memmem(t, (size_t)(end - t), dashes, sizeof(dashes) - 1);
		const char *nl = memchr(t, '\n', (size_t)(end - t));
		p = t;
		if (!te || (nl && nl < te) || (size_t)(te - t) >= sizeof(out->type))
			continue; /* not a BEGIN line: Go's pem.Decode looks further */
		char endline[sizeof(out->type) + 16];
		snprintf(endline, sizeof(endline), "-----END %.*s-----", (int)(te - t), t);
		const char *e = memmem(te, (size_t)(end - te), endline, strlen(endline));
		if (!e)
			continue;
		memcpy(out->type, t, (size_t)(te - t));
		out->type[te - t] = '\0';
		out->start = b;
		out->len = (size_t)(e + strlen(endline) - b);
		/* RFC 1421 headers ("Proc-Type: ...") come before the body. */
		const char *body = nl ? nl + 1 : e;
		const char *line_end = memchr(body, '\n', (size_t)(e - body));
		out->has_headers = line_end && memchr(body, ':', (size_t)(line_end - body)) != NULL;
		*cursor = out->start + out->len;
		return 1;
	}
	*cursor = end;
	return 0;
}

/* certificates.ParseCSR and CheckSignature: NULL when valid, else the
 * reason (static or in buf). */
static const char *check_request(const unsigned char *der_pem, size_t n, char *buf, size_t len)
{
	/* a nil request holds no bytes at all */
	const char *cur = der_pem ? (const char *)der_pem : "", *end = cur + (der_pem ? n : 0);
	mock_pem_block blk;
	if (!mock_pem_next(&cur, end, &blk) || strcmp(blk.type, "CERTIFICATE REQUEST") != 0)
		return "PEM block type must be CERTIFICATE REQUEST";
	gnutls_x509_crq_t crq;
	gnutls_datum_t d = {(unsigned char *)blk.start, (unsigned)blk.len};
	if (gnutls_x509_crq_init(&crq) < 0)
		return "out of memory";
	int rc = gnutls_x509_crq_import(crq, &d, GNUTLS_X509_FMT_PEM);
	if (rc == GNUTLS_E_BASE64_DECODING_ERROR || rc == GNUTLS_E_BASE64_UNEXPECTED_HEADER_ERROR) {
		gnutls_x509_crq_deinit(crq);
		return "PEM block type must be CERTIFICATE REQUEST";
	}
	if (rc < 0) {
		snprintf(buf, len, "x509: %s", gnutls_strerror(rc));
		gnutls_x509_crq_deinit(crq);
		return buf;
	}
	rc = gnutls_x509_crq_verify(crq, 0);
	int pk = gnutls_x509_crq_get_pk_algorithm(crq, NULL);
	gnutls_x509_crq_deinit(crq);
	if (rc >= 0)
		return NULL;
	/* Go's CheckSignature texts for the two key types kubelets use. */
	return pk == GNUTLS_PK_ECDSA ? "x509: ECDSA verification failure"
	                             : "crypto/rsa: verification error";
}

/* validateCertificate: NULL when data holds only CERTIFICATE blocks. */
static const char *check_certificate(const unsigned char *data, size_t n, char *buf, size_t len)
{
	mock_pem_block blk;
	int blocks = 0;
	if (n == 0 || !data)
		return NULL;
	const char *cur = (const char *)data, *end = cur + n;
	while (mock_pem_next(&cur, end, &blk)) {
		if (strcmp(blk.type, "CERTIFICATE") != 0) {
			snprintf(buf, len, "only CERTIFICATE PEM blocks are allowed, found \"%s\"",
			         blk.type);
			return buf;
		}
		if (blk.has_headers)
			return "no PEM block headers are permitted";
		blocks++;
		gnutls_x509_crt_t crt;
		gnutls_datum_t d = {(unsigned char *)blk.start, (unsigned)blk.len};
		if (gnutls_x509_crt_init(&crt) < 0)
			return "out of memory";
		int rc = gnutls_x509_crt_import(crt, &d, GNUTLS_X509_FMT_PEM);
		gnutls_x509_crt_deinit(crt);
		if (rc < 0) {
			snprintf(buf, len, "x509: %s", gnutls_strerror(rc));
			return buf;
		}
	}
	return blocks ? NULL : "must contain at least one CERTIFICATE PEM block";
}

/* The bytes of a []byte field (base64 in JSON); *out owned, NULL and 0
 * for null. 0 or NL_ENOMEM (the decoder made the text valid base64). */
static int field_bytes(json_object *v, unsigned char **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!json_object_is_type(v, json_type_string))
		return 0;
	return nl_base64_decode(out, n, json_object_get_string(v),
	                        (size_t)json_object_get_string_len(v), NULL);
}

/* %#v of a []byte: []byte{0x2d, 0xa}, []byte{} or []byte(nil). */
static char *go_bytes(const unsigned char *b, size_t n, int nil)
{
	nl_buf out;
	nl_buf_init(&out, 16 + n * 6);
	int rc = nl_buf_printf(&out, "%s", nil ? "[]byte(nil)" : "[]byte{");
	for (size_t i = 0; !nil && !rc && i < n; i++)
		rc = nl_buf_printf(&out, i ? ", 0x%x" : "0x%x", b[i]);
	if (!nil && !rc)
		rc = nl_buf_printf(&out, "}");
	if (rc) {
		nl_buf_free(&out);
		return NULL;
	}
	return out.data;
}

static void validate_request(mock_ferrs *e, json_object *spec)
{
	json_object *req = get(spec, "request");
	unsigned char *raw = NULL;
	size_t n = 0;
	char buf[256];
	if (field_bytes(req, &raw, &n) != 0)
		return;
	const char *why = check_request(raw, n, buf, sizeof(buf));
	if (why) {
		char *v = go_bytes(raw, n, req == NULL);
		if (v)
			mock_ferr_invalid_raw(e, "spec.request", v, why);
		free(v);
	}
	free(raw);
}

static int usage_known(const char *u)
{
	for (size_t i = 0; valid_usages[i]; i++)
		if (strcmp(valid_usages[i], u) == 0)
			return 1;
	return 0;
}

static int has_unknown_or_dup_usage(json_object *usages, int dup)
{
	for (size_t i = 0; i < array_len(usages); i++) {
		const char *u = json_object_get_string(json_object_array_get_idx(usages, i));
		if (!dup && !usage_known(u ? u : ""))
			return 1;
		for (size_t j = 0; dup && j < i; j++)
			if (strcmp(u ? u : "", json_object_get_string(
			                           json_object_array_get_idx(usages, j))) == 0)
				return 1;
	}
	return 0;
}

static void validate_usages(mock_ferrs *e, json_object *usages, json_object *old_usages, int update)
{
	char fld[64];
	int allow_unknown = update && has_unknown_or_dup_usage(old_usages, 0);
	int allow_dup = update && has_unknown_or_dup_usage(old_usages, 1);
	if (array_len(usages) == 0)
		mock_ferr_required(e, "spec.usages", "usages must be provided");
	for (size_t i = 0; !allow_unknown && i < array_len(usages); i++) {
		json_object *u = json_object_array_get_idx(usages, i);
		if (!usage_known(json_object_get_string(u)))
			mock_ferr_not_supported(e, path(fld, sizeof(fld), "spec.usages[%zu]", i), u,
			                        valid_usages);
	}
	for (size_t i = 0; !allow_dup && i < array_len(usages); i++) {
		json_object *u = json_object_array_get_idx(usages, i);
		for (size_t j = 0; j < i; j++)
			if (strcmp(json_object_get_string(u),
			           json_object_get_string(json_object_array_get_idx(usages, j))) ==
			    0) {
				mock_ferr_duplicate(
				    e, path(fld, sizeof(fld), "spec.usages[%zu]", i), u);
				break;
			}
	}
}

/* One error per "; "-separated message of a names.h validator, each as
 * `validating label "<l>": <message>`. */
static void invalid_label_each(mock_ferrs *e, const char *field, const char *value,
                               const char *label, size_t ll, char *why)
{
	for (char *m = why, *next; m; m = next) {
		next = strstr(m, "; ");
		if (next) {
			*next = '\0';
			next += 2;
		}
		nl_buf d;
		nl_buf_init(&d, 0);
		if (nl_buf_printf(&d, "validating label \"%.*s\": %s", (int)ll, label, m) == 0)
			mock__ferr_invalid_str(e, field, value, d.data);
		nl_buf_free(&d);
	}
}

/* ValidateCertificateSigningRequestSignerName. */
void mock_validate_signer_name(mock_ferrs *e, const char *field, const char *name)
{
	char why[WHY_MAX];
	if (!nonempty(name)) {
		mock_ferr_required(e, field, "signerName must be provided");
		return;
	}
	const char *slash = strchr(name, '/');
	if (!slash || strchr(slash + 1, '/')) {
		mock__ferr_invalid_str(e, field, name,
		                       "must be a fully qualified domain and path of the form "
		                       "'example.com/signer-name'");
		return;
	}
	size_t dlen = (size_t)(slash - name);
	char *domain = strndup(name, dlen);
	if (!domain)
		return;
	if (dlen > NL_DNS1123_SUBDOMAIN_MAX)
		mock_ferr_too_long(e, field, NL_DNS1123_SUBDOMAIN_MAX);
	/* each dot-separated label of the domain, stopping at the first bad one */
	size_t nlabels = 1;
	for (const char *d = strchr(domain, '.'); d; d = strchr(d + 1, '.'))
		nlabels++;
	for (const char *l = domain;;) {
		const char *dot = strchr(l, '.');
		size_t ll = dot ? (size_t)(dot - l) : strlen(l);
		if (nl_name_is_dns1123_label_n(l, ll, why, sizeof(why)) != 0) {
			invalid_label_each(e, field, domain, l, ll, why);
			break;
		}
		if (!dot)
			break;
		l = dot + 1;
	}
	if (nlabels < 2)
		mock__ferr_invalid_str(e, field, domain,
		                       "should be a domain with at least two segments separated by "
		                       "dots");
	free(domain);
	const char *rest = slash + 1;
	for (const char *l = rest;;) {
		const char *dot = strchr(l, '.');
		size_t ll = dot ? (size_t)(dot - l) : strlen(l);
		if (nl_name_is_dns1123_subdomain_n(l, ll, why, sizeof(why)) != 0) {
			invalid_label_each(e, field, rest, l, ll, why);
			break;
		}
		if (!dot)
			break;
		l = dot + 1;
	}
	size_t max =
	    NL_DNS1123_SUBDOMAIN_MAX + (NL_DNS1123_SUBDOMAIN_MAX + NL_DNS1123_LABEL_MAX + 1) + 1;
	if (strlen(name) > max)
		mock_ferr_too_long(e, field, max);
}

static int is_true_only(const char *type)
{
	return strcmp(type, "Approved") == 0 || strcmp(type, "Denied") == 0 ||
	       strcmp(type, "Failed") == 0;
}

static size_t count_type(json_object *conds, const char *type)
{
	size_t n = 0;
	for (size_t i = 0; i < array_len(conds); i++) {
		const char *t = get_str(json_object_array_get_idx(conds, i), "type");
		n += strcmp(t ? t : "", type) == 0;
	}
	return n;
}

static int has_dup_or_empty_type(json_object *conds, int empty)
{
	for (size_t i = 0; i < array_len(conds); i++) {
		const char *t = get_str(json_object_array_get_idx(conds, i), "type");
		t = t ? t : "";
		if (empty ? !*t : count_type(conds, t) > 1)
			return 1;
	}
	return 0;
}

static void validate_conditions(mock_ferrs *e, json_object *conds, json_object *old_conds,
                                int update)
{
	static const char *const true_only[] = {"True", NULL};
	static const char *const all_status[] = {"False", "True", "Unknown", NULL};
	int allow_empty = update && has_dup_or_empty_type(old_conds, 1);
	int allow_dup = update && has_dup_or_empty_type(old_conds, 0);
	int allow_both =
	    update && count_type(old_conds, "Approved") && count_type(old_conds, "Denied");
	int approved = 0, denied = 0;
	char fld[64];
	for (size_t i = 0; i < array_len(conds); i++) {
		json_object *c = json_object_array_get_idx(conds, i);
		const char *type = get_str(c, "type"), *status = get_str(c, "status");
		type = type ? type : "";
		status = status ? status : "";
		if (!allow_empty && !*type)
			mock_ferr_required(
			    e, path(fld, sizeof(fld), "status.conditions[%zu].type", i), NULL);
		const char *const *allowed = is_true_only(type) ? true_only : all_status;
		int ok = 0;
		for (size_t k = 0; allowed[k]; k++)
			ok |= strcmp(allowed[k], status) == 0;
		if (!*status)
			mock_ferr_required(
			    e, path(fld, sizeof(fld), "status.conditions[%zu].status", i), NULL);
		else if (!ok)
			mock_ferr_not_supported(
			    e, path(fld, sizeof(fld), "status.conditions[%zu].status", i),
			    get(c, "status"), allowed);
		if (!allow_both && (strcmp(type, "Approved") == 0 || strcmp(type, "Denied") == 0)) {
			int is_approved = type[0] == 'A';
			if (is_approved ? denied : approved)
				mock__ferr_invalid_str(
				    e, path(fld, sizeof(fld), "status.conditions[%zu].type", i),
				    type, "Approved and Denied conditions are mutually exclusive");
			approved |= is_approved;
			denied |= !is_approved;
		}
		if (!allow_dup) {
			for (size_t j = 0; j < i; j++) {
				const char *t =
				    get_str(json_object_array_get_idx(conds, j), "type");
				if (strcmp(t ? t : "", type) == 0) {
					mock_ferr_duplicate(e,
					                    path(fld, sizeof(fld),
					                         "status.conditions[%zu].type", i),
					                    get(c, "type"));
					break;
				}
			}
		}
	}
}

static int same_bytes(json_object *a, json_object *b)
{
	const char *x = json_object_get_string(a), *y = json_object_get_string(b);
	return strcmp(x ? x : "", y ? y : "") == 0;
}

/* The rules only updates have, per endpoint (sub "", "status", "approval"). */
static void validate_update(mock_ferrs *e, json_object *obj, json_object *old, const char *sub)
{
	static const char *const kept[] = {"Approved", "Denied", "Failed"};
	json_object *conds = nl_json_get_path(obj, "status.conditions");
	json_object *old_conds = nl_json_get_path(old, "status.conditions");
	char msg[128];
	for (size_t i = 0; i < 3; i++)
		if (count_type(conds, kept[i]) < count_type(old_conds, kept[i])) {
			snprintf(msg, sizeof(msg),
			         "updates may not remove a condition of type \"%s\"", kept[i]);
			mock_ferr_forbidden(e, "status.conditions", msg);
		}
	/* Modifying one in place cannot happen: the /status strategy copies
	 * the stored instances back whenever their number is unchanged. */
	for (size_t i = 0; strcmp(sub, "approval") != 0 && i < 2; i++)
		if (count_type(conds, kept[i]) > count_type(old_conds, kept[i])) {
			snprintf(msg, sizeof(msg), "updates may not add a condition of type \"%s\"",
			         kept[i]);
			mock_ferr_forbidden(e, "status.conditions", msg);
		}
	json_object *cert = nl_json_get_path(obj, "status.certificate");
	json_object *old_cert = nl_json_get_path(old, "status.certificate");
	if (!same_bytes(cert, old_cert)) {
		if (strcmp(sub, "status") != 0)
			mock_ferr_forbidden(e, "status.certificate",
			                    "updates may not set certificate content");
		else if (json_object_get_string_len(old_cert) > 0)
			mock_ferr_forbidden(e, "status.certificate",
			                    "updates may not modify existing certificate content");
	}
}

void mock_validate_csr(mock_ferrs *e, json_object *obj, json_object *old, const char *sub)
{
	json_object *spec = get(obj, "spec"), *old_spec = get(old, "spec");
	int update = old != NULL;
	char buf[256];
	validate_request(e, spec);
	validate_usages(e, get(spec, "usages"), get(old_spec, "usages"), update);
	const char *signer = get_str(spec, "signerName");
	const char *old_signer = get_str(old_spec, "signerName");
	if (signer && strcmp(signer, LEGACY_UNKNOWN_SIGNER) == 0 &&
	    !(old_signer && strcmp(old_signer, LEGACY_UNKNOWN_SIGNER) == 0))
		mock__ferr_invalid_str(e, "spec.signerName", signer,
		                       "the legacy signerName is not allowed via this API version");
	else
		mock_validate_signer_name(e, "spec.signerName", signer);
	json_object *exp = get(spec, "expirationSeconds");
	if (exp && json_object_get_int64(exp) < 600)
		mock__ferr_invalid_int(
		    e, "spec.expirationSeconds", json_object_get_int64(exp),
		    "may not specify a duration less than 600 seconds (10 minutes)");
	validate_conditions(e, nl_json_get_path(obj, "status.conditions"),
	                    nl_json_get_path(old, "status.conditions"), update);
	json_object *cert = nl_json_get_path(obj, "status.certificate");
	json_object *old_cert = nl_json_get_path(old, "status.certificate");
	/* allowArbitraryCertificate: an update that leaves it as it was */
	if (!(update && same_bytes(cert, old_cert))) {
		unsigned char *raw = NULL;
		size_t n = 0;
		if (field_bytes(cert, &raw, &n) == 0) {
			const char *why = check_certificate(raw, n, buf, sizeof(buf));
			if (why)
				mock__ferr_invalid_str(e, "status.certificate",
				                       "<certificate data>", why);
		}
		free(raw);
	}
	if (update)
		validate_update(e, obj, old, sub ? sub : "");
}
