/* TLS bootstrap as kubelet's LoadClientConfig (pkg/kubelet/certificate/
 * bootstrap): when --kubeconfig holds no valid client certificate, the
 * bootstrap kubeconfig's cluster is written to --kubeconfig with the user
 * pointing at <cert-dir>/kubelet-client-current.pem, and the certificate
 * manager obtains that certificate with the bootstrap credentials. The CSR
 * calls go through clients of their own: the bootstrap one, and one on the
 * current certificate remade after each rotation. */
#include <nodelet/base64.h>
#include <nodelet/buf.h>
#include <nodelet/client.h>
#include <nodelet/log.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <nodelet/agent_tls.h>

#define CSR_PATH "/apis/certificates.k8s.io/v1/certificatesigningrequests"

struct nl_agent_tls {
	nl_clock *clock;
	char *kubeconfig;
	nl_rest_config *bootstrap; /* NULL when the kubeconfig was valid */
	nl_client *bootstrap_client, *cert_client;
	nl_cert_store *store;
	nl_cert_manager *manager;
	nl_client *heartbeat; /* borrowed: its connections are reset on rotation */
};

/* isClientConfigStillValid: the kubeconfig loads and none of its client
 * certificates has expired. */
static int kubeconfig_valid(const char *path, int64_t now)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return 0;
	nl_rest_config *c = NULL;
	nl_err err = {0};
	int ok = 0;
	if (nl_kubeconfig_load(&c, path, NULL, &err) != 0) {
		NL_LOG_ERROR(err.msg, "Unable to read existing bootstrap client config",
		             NL_KV_STR("path", path));
		return 0;
	}
	char *pem = NULL;
	size_t len = 0;
	FILE *f = c->cert_file ? fopen(c->cert_file, "r") : NULL;
	if (f) {
		pem = calloc(1, NL_CERT_MAX_PEM + 1);
		len = pem ? fread(pem, 1, NL_CERT_MAX_PEM, f) : 0;
		fclose(f);
	}
	const char *data = c->cert_data ? (const char *)c->cert_data : pem;
	size_t dlen = c->cert_data ? c->cert_data_len : len;
	nl_cert_info info;
	if (data && nl_cert_parse(&info, data, dlen, &err) == 0) {
		ok = now <= info.not_after_usec;
		if (!ok)
			NL_LOG_ERROR(NULL,
			             "Part of the existing bootstrap client certificate is expired",
			             NL_KV_STR("path", path));
	}
	nl_cert_secret_free(pem);
	nl_rest_config_free(c);
	return ok;
}

static int yaml_line(nl_buf *b, const char *key, const char *value, int indent)
{
	/* Paths and URLs are written quoted: YAML reads them back unchanged. */
	return nl_buf_printf(b, "%*s%s: \"%s\"\n", indent, "", key, value);
}

/* writeKubeconfigFromBootstrapping: the bootstrap cluster, user
 * default-auth with the current pair, context default-context. */
static int kubeconfig_write(const char *path, const nl_rest_config *bs, const char *pem_path,
                            nl_err *err)
{
	nl_buf b = {0};
	char *ca = NULL;
	int rc = nl_buf_printf(&b, "apiVersion: v1\nclusters:\n- cluster:\n");
	if (bs->ca_file)
		rc |= yaml_line(&b, "certificate-authority", bs->ca_file, 4);
	else if (bs->ca_data) {
		if (nl_base64_encode(&ca, bs->ca_data, bs->ca_data_len) != 0)
			rc = NL_ENOMEM;
		else
			rc |= yaml_line(&b, "certificate-authority-data", ca, 4);
	}
	if (bs->insecure_skip_tls_verify)
		rc |= nl_buf_printf(&b, "    insecure-skip-tls-verify: true\n");
	rc |= yaml_line(&b, "server", bs->server, 4);
	rc |= nl_buf_printf(&b, "  name: default-cluster\ncontexts:\n- context:\n"
	                        "    cluster: default-cluster\n    namespace: default\n"
	                        "    user: default-auth\n  name: default-context\n"
	                        "current-context: default-context\nkind: Config\n"
	                        "preferences: {}\nusers:\n- name: default-auth\n  user:\n");
	rc |= yaml_line(&b, "client-certificate", pem_path, 4);
	rc |= yaml_line(&b, "client-key", pem_path, 4);
	free(ca);
	if (rc != 0) {
		nl_buf_free(&b);
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	}
	rc = nl_fs_replace_file(NULL, path, b.data, b.len, 0600, err);
	nl_buf_free(&b);
	return rc;
}

/* --- the CSR calls ---------------------------------------------------------------- */

static int client_for(nl_client **out, nl_agent_tls *t, int use_bootstrap)
{
	nl_client **slot = use_bootstrap ? &t->bootstrap_client : &t->cert_client;
	if (*slot) {
		*out = *slot;
		return 0;
	}
	nl_rest_config *cfg = NULL;
	nl_err err = {0};
	int rc = 0;
	if (!use_bootstrap && (rc = nl_kubeconfig_load(&cfg, t->kubeconfig, NULL, &err)) != 0) {
		NL_LOG_ERROR(err.msg, "Unable to load a client to request certificates");
		return rc;
	}
	nl_client_options co;
	nl_client_options_init(&co);
	co.clock = t->clock;
	co.max_retries = -1; /* the manager has its own backoff */
	rc = nl_client_new(slot, use_bootstrap ? t->bootstrap : cfg, &co, &err);
	nl_rest_config_free(cfg);
	if (rc != 0) {
		NL_LOG_ERROR(err.msg, "Unable to load a client to request certificates");
		return rc;
	}
	*out = *slot;
	return 0;
}

static int csr_call(json_object **out, nl_status **status, nl_agent_tls *t, int use_bootstrap,
                    const char *method, const char *path, json_object *body)
{
	nl_client *c = NULL;
	int rc = client_for(&c, t, use_bootstrap);
	if (rc != 0)
		return rc;
	nl_request req = {.method = method, .path = path};
	size_t len = 0;
	if (body) {
		req.body = json_object_to_json_string_length(body, JSON_C_TO_STRING_PLAIN, &len);
		req.body_len = len;
	}
	nl_response resp = {0};
	nl_result res = NL_RESULT_INIT;
	rc = nl_client_do(&resp, c, &req, &res);
	if (rc == 0) {
		*out = json_tokener_parse(resp.body);
		rc = *out ? 0 : NL_EPARSE;
	} else {
		*status = res.status;
		res.status = NULL;
	}
	nl_response_clear(&resp);
	nl_result_clear(&res);
	return rc;
}

static int ops_create(json_object **out, nl_status **status, json_object *csr, int use_bootstrap,
                      void *payload)
{
	return csr_call(out, status, payload, use_bootstrap, "POST", CSR_PATH, csr);
}

static int ops_get(json_object **out, nl_status **status, const char *name, int use_bootstrap,
                   void *payload)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", CSR_PATH, name);
	return csr_call(out, status, payload, use_bootstrap, "GET", path, NULL);
}

/* A new certificate is current: requests on the old one's connections
 * would still carry it (kubelet closes them all when it sees the change). */
static void rotated(void *payload)
{
	nl_agent_tls *t = payload;
	nl_client_free(t->cert_client);
	t->cert_client = NULL;
	if (t->heartbeat && nl_client_reset_connections(t->heartbeat) != 0)
		NL_LOG_ERROR("out of memory", "Cannot close the connections");
	NL_LOG_INFO("Certificate rotation detected, shutting down client connections to start "
	            "using new credentials");
}

/* --- the whole ------------------------------------------------------------------------ */

int nl_agent_tls_new(nl_agent_tls **out, const nl_agent_tls_options *o, nl_err *err)
{
	if (!o->kubeconfig || !o->bootstrap_kubeconfig || !o->cert_dir || !o->clock)
		return nl_err_set(
		    err, NL_EINVAL,
		    "a kubeconfig, a bootstrap kubeconfig and a cert dir are required");
	nl_agent_tls *t = calloc(1, sizeof(*t));
	if (!t || !(t->kubeconfig = strdup(o->kubeconfig))) {
		free(t);
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	}
	t->clock = o->clock;
	int rc = nl_cert_store_new(&t->store, o->cert_dir, NL_CERT_KUBELET_CLIENT_PREFIX, err);
	if (rc != 0)
		goto fail;
	if (kubeconfig_valid(o->kubeconfig, nl_clock_now(o->clock))) {
		NL_LOG_V(2, "Current kubeconfig file contents are still valid, no bootstrap "
		            "necessary");
	} else {
		nl_err why = {0};
		if ((rc = nl_kubeconfig_load(&t->bootstrap, o->bootstrap_kubeconfig, NULL, &why)) !=
		    0) {
			nl_err_set(err, rc, "unable to load bootstrap kubeconfig: %s", why.msg);
			goto fail;
		}
		if ((rc = kubeconfig_write(o->kubeconfig, t->bootstrap,
		                           nl_cert_store_current_path(t->store), err)) != 0)
			goto fail;
		NL_LOG_V(2,
		         "Use the bootstrap credentials to request a cert, and set kubeconfig to "
		         "point to the certificate dir");
	}
	nl_cert_manager_options mo = {0};
	mo.clock = o->clock;
	mo.store = t->store;
	mo.node_name = o->node_name;
	mo.ops = (nl_csr_ops){ops_create, ops_get, t};
	mo.on_rotated = rotated;
	mo.hook_payload = t;
	mo.jitter_seed = o->jitter_seed;
	mo.one_shot = !o->rotate;
	if ((rc = nl_cert_manager_new(&t->manager, &mo, err)) != 0)
		goto fail;
	*out = t;
	return 0;
fail:
	nl_agent_tls_free(t);
	return rc;
}

void nl_agent_tls_free(nl_agent_tls *t)
{
	if (!t)
		return;
	nl_cert_manager_free(t->manager);
	nl_client_free(t->bootstrap_client);
	nl_client_free(t->cert_client);
	nl_cert_store_free(t->store);
	nl_rest_config_free(t->bootstrap);
	free(t->kubeconfig);
	free(t);
}

int nl_agent_tls_start(nl_agent_tls *t)
{
	return nl_cert_manager_start(t->manager);
}

int nl_agent_tls_wait(nl_agent_tls *t)
{
	while (!nl_cert_manager_current(t->manager, NULL)) {
		int64_t due;
		if (nl_clock_stopped(t->clock))
			return NL_ECANCELED;
		if (nl_clock_next_deadline(&due, t->clock) != 0)
			return NL_ERROR; /* nothing scheduled: the manager stopped */
		int64_t wait = due - nl_clock_mono(t->clock);
		if (wait > 0 && nl_clock_sleep(t->clock, wait) != 0)
			return NL_ECANCELED;
		nl_clock_run_due(t->clock);
	}
	return 0;
}

void nl_agent_tls_set_client(nl_agent_tls *t, nl_client *heartbeat)
{
	t->heartbeat = heartbeat;
}

nl_cert_manager *nl_agent_tls_manager(const nl_agent_tls *t)
{
	return t->manager;
}
