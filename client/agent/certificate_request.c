/* The CertificateSigningRequest objects kubelet creates: the certificate
 * manager's (generateName csr-, usages by key type) and bootstrap's
 * (node-csr-<digest>, reused after a restart when compatible), and
 * bootstrap's temporary key file. */
#include <errno.h>
#include <limits.h>
#include <nodelet/base64.h>
#include <nodelet/log.h>
#include <nodelet/meta.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "certificate_internal.h"

/* DefaultKubeletClientGetUsages for an ECDSA key (no key encipherment). */
static const char *const usages_rotation[] = {"digital signature", "client auth", NULL};
/* requestNodeCertificate's fixed list (see docs/decisions/0043). */
static const char *const usages_bootstrap[] = {"digital signature", "key encipherment",
                                               "client auth", NULL};

static json_object *strings(const char *const *v)
{
	json_object *a = json_object_new_array();
	for (size_t i = 0; a && v[i]; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

int nl__cert_csr_object(json_object **out, const nl_cert_manager *m, const char *csr_pem,
                        nl_err *err)
{
	const char *const *usages = m->one_shot ? usages_bootstrap : usages_rotation;
	char name[NL_CERT_CSR_NAME_MAX] = "";
	if (m->one_shot) {
		int rc = nl_cert_csr_digest_name(name, m->key_pem, strlen(m->key_pem), m->node_name,
		                                 usages, err);
		if (rc != 0)
			return rc;
	}
	char *b64 = NULL;
	if (nl_base64_encode(&b64, (const unsigned char *)csr_pem, strlen(csr_pem)) != 0)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	json_object *o = json_object_new_object(), *meta = json_object_new_object(),
	            *spec = json_object_new_object();
	if (!o || !meta || !spec) {
		json_object_put(o);
		json_object_put(meta);
		json_object_put(spec);
		free(b64);
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	}
	json_object_object_add(o, "kind", json_object_new_string("CertificateSigningRequest"));
	json_object_object_add(o, "apiVersion", json_object_new_string("certificates.k8s.io/v1"));
	if (*name)
		json_object_object_add(meta, "name", json_object_new_string(name));
	else
		json_object_object_add(meta, "generateName", json_object_new_string("csr-"));
	json_object_object_add(o, "metadata", meta);
	json_object_object_add(spec, "request", json_object_new_string(b64));
	json_object_object_add(spec, "signerName",
	                       json_object_new_string(NL_CERT_KUBELET_CLIENT_SIGNER));
	json_object_object_add(spec, "usages", strings(usages));
	json_object_object_add(o, "spec", spec);
	free(b64);
	*out = o;
	return 0;
}

/* ensureCompatible: same signer, a request made with our key for our
 * subject, and no expired certificate issued for it. */
static int compatible(nl_cert_manager *m, json_object *theirs, nl_err *err)
{
	const char *signer = nl_json_get_string(theirs, "spec.signerName");
	if (signer && *signer && strcmp(signer, NL_CERT_KUBELET_CLIENT_SIGNER) != 0)
		return nl_err_set(err, NL_EINVAL,
		                  "csr signerNames differ: new \"%s\", orig: \"%s\"", signer,
		                  NL_CERT_KUBELET_CLIENT_SIGNER);
	const char *req = nl_json_get_string(theirs, "spec.request");
	unsigned char *pem = NULL;
	size_t len = 0;
	if (!req || nl_base64_decode(&pem, &len, req, strlen(req), err) != 0)
		return nl_err_set(err, NL_EINVAL, "unable to parse new csr: no spec.request");
	int rc = nl_cert_csr_check((const char *)pem, len, m->key_pem, strlen(m->key_pem),
	                           m->node_name, err);
	free(pem);
	const char *cert = nl_json_get_string(theirs, "status.certificate");
	if (rc == 0 && cert && *cert) {
		nl_cert_info info;
		if (nl_base64_decode(&pem, &len, cert, strlen(cert), err) != 0)
			return NL_EINVAL;
		rc = nl_cert_parse(&info, (const char *)pem, len, err);
		free(pem);
		if (rc == 0 && nl_clock_now(m->clock) > info.not_after_usec) {
			char t[64];
			nl__cert_time_go(t, info.not_after_usec);
			rc = nl_err_set(err, NL_EINVAL,
			                "one of the certificates for the CSR has expired: %s", t);
		}
	}
	return rc;
}

int nl__cert_csr_reuse(json_object **out, nl_cert_manager *m, json_object *mine, nl_err *err)
{
	const char *name = nl_json_get_string(mine, "metadata.name");
	nl_status *st = NULL;
	json_object *theirs = NULL;
	NL_LOG_INFO("CSR for this node already exists, reusing", NL_KV_STR("csr", name));
	int rc = m->ops.get_csr(&theirs, &st, name, 1, m->ops.payload);
	nl_status_free(st);
	if (rc != 0)
		return rc;
	nl_err why = {0};
	if ((rc = compatible(m, theirs, &why)) != 0) {
		NL_LOG_ERROR(why.msg, "Retrieved CSR is not compatible", NL_KV_STR("csr", name));
		json_object_put(theirs);
		return rc;
	}
	NL_LOG_INFO("CSR for this node is still valid", NL_KV_STR("csr", name));
	*out = theirs;
	(void)err;
	return 0;
}

static int tmp_path(char out[PATH_MAX], const nl_cert_store *s)
{
	return snprintf(out, PATH_MAX, "%s/%s", nl__cert_store_dir(s), NL_CERT_BOOTSTRAP_KEY_FILE) <
	               PATH_MAX
	           ? 0
	           : NL_EINVAL;
}

int nl__cert_key_tmp(char **pem_out, nl_cert_store *s, const char *current_pem, nl_err *err)
{
	/* The key of the current pair, even an expired one: the CSR name is
	 * then the same as before (bootstrap.go). */
	if (current_pem && nl_cert_key_valid(current_pem, strlen(current_pem)))
		return (*pem_out = strdup(current_pem))
		           ? 0
		           : nl_err_set(err, NL_ENOMEM, "out of memory");
	char path[PATH_MAX];
	if (tmp_path(path, s) != 0)
		return nl_err_set(err, NL_EINVAL, "path too long");
	return nl_cert_key_load_or_generate(pem_out, path, err);
}

void nl__cert_key_tmp_remove(nl_cert_store *s)
{
	char path[PATH_MAX];
	if (tmp_path(path, s) == 0 && unlink(path) != 0 && errno != ENOENT)
		NL_LOG_V(2, "Failed cleaning up private key file", NL_KV_STR("path", path),
		         NL_KV_STR("err", strerror(errno)));
}

void nl__cert_time_go(char out[64], int64_t usec)
{
	time_t t = (time_t)(usec / NL_USEC_PER_SEC);
	long frac = (long)(usec % NL_USEC_PER_SEC);
	struct tm tm;
	gmtime_r(&t, &tm);
	char base[32], fs[16] = "";
	strftime(base, sizeof(base), "%Y-%m-%d %H:%M:%S", &tm);
	if (frac > 0) {
		/* Go trims trailing zeros of the fraction. */
		snprintf(fs, sizeof(fs), ".%06ld", frac);
		for (size_t n = strlen(fs); n > 1 && fs[n - 1] == '0'; n--)
			fs[n - 1] = '\0';
	}
	snprintf(out, 64, "%s%s +0000 UTC", base, fs);
}
