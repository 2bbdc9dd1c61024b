/* client-go's certificate manager (util/certificate/certificate_manager.go)
 * for kubelet's client certificate, as a state machine on the agent's clock
 * (decision 0032: no wait blocks the loop). One rotation is: a new key and
 * CSR, the CertificateSigningRequest created, read back until it is issued
 * (or denied, failed, deleted, or 15 minutes pass), the pair stored. A
 * failed rotation is retried as rotateCerts is: wait.ExponentialBackoff
 * (2 s doubling, 10 % jitter, 5 attempts), then every 32 s forever. The
 * store on disk is the state: a restart loads the current pair and draws a
 * new deadline from it. */
#include <nodelet/base64.h>
#include <nodelet/certificate.h>
#include <nodelet/log.h>
#include <nodelet/meta.h>
#include <stdlib.h>
#include <string.h>

#include "certificate_internal.h"

/* kubelet logs as the manager's Name, which defaults to the signer name. */
#define LOG_NAME NL_CERT_KUBELET_CLIENT_SIGNER

static void schedule(nl_cert_manager *m, int64_t delay, nl_timer_fn fn);
static void attempt(void *payload);

static int64_t now(const nl_cert_manager *m)
{
	return nl_clock_now(m->clock);
}

static int cert_valid_now(const nl_cert_manager *m)
{
	return m->cert_pem && now(m) < m->info.not_after_usec;
}

int nl_cert_manager_new(nl_cert_manager **out, const nl_cert_manager_options *o, nl_err *err)
{
	if (!o || !o->clock || !o->store || !o->node_name || !o->ops.create_csr || !o->ops.get_csr)
		return nl_err_set(err, NL_EINVAL,
		                  "a clock, a store, a node name and CSR ops are required");
	nl_cert_manager *m = calloc(1, sizeof(*m));
	if (!m || !(m->node_name = strdup(o->node_name))) {
		free(m);
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	}
	m->clock = o->clock;
	m->store = o->store;
	m->ops = o->ops;
	m->on_rotated = o->on_rotated;
	m->hook_payload = o->hook_payload;
	m->one_shot = o->one_shot;
	uint64_t seed = o->jitter_seed;
	for (const char *p = o->node_name; !seed && *p; p++)
		seed = seed * 131 + (unsigned char)*p;
	nl_rand_seed(&m->rand, (o->jitter_seed ? o->jitter_seed : seed ^ (uint64_t)now(m)) ^
	                           UINT64_C(0xce27f00d));
	nl_err why = {0};
	int rc = nl_cert_store_current(&m->cert_pem, &m->info, m->store, &why);
	if (rc == 0 && !cert_valid_now(m)) {
		char exp[64];
		nl__cert_time_go(exp, m->info.not_after_usec);
		NL_LOG_INFO("The current certificate expired, requesting a new one",
		            NL_KV_STR("logger", LOG_NAME), NL_KV_STR("expiration", exp));
		nl_cert_secret_free(m->cert_pem);
		m->cert_pem = NULL;
	} else if (rc != 0 && rc != NL_ENOTFOUND) {
		/* client-go fails NewManager on anything but NoCertKeyError. */
		nl_err_set(err, rc, "failed to initialize client certificate store: %s", why.msg);
		nl_cert_manager_free(m);
		return rc;
	}
	m->force = !m->cert_pem;
	*out = m;
	return 0;
}

static void attempt_reset(nl_cert_manager *m)
{
	nl_cert_secret_free(m->key_pem);
	m->key_pem = NULL;
	m->csr_name[0] = m->csr_uid[0] = '\0';
}

void nl_cert_manager_free(nl_cert_manager *m)
{
	if (!m)
		return;
	nl_cert_manager_stop(m);
	attempt_reset(m);
	nl_cert_secret_free(m->cert_pem);
	free(m->node_name);
	free(m);
}

/* --- the deadline -------------------------------------------------------------- */

/* nextRotationDeadline: now when forced or without a certificate, else a
 * fresh draw in 70-90 % of its lifetime (logged, as client-go logs it). */
static int64_t next_deadline(nl_cert_manager *m)
{
	if (m->force || !m->cert_pem) {
		m->force = 0;
		return now(m);
	}
	int64_t d = nl_cert_rotation_deadline(&m->info, &m->rand);
	char exp[64], dl[64];
	nl__cert_time_go(exp, m->info.not_after_usec);
	nl__cert_time_go(dl, d);
	NL_LOG_V(2, "Certificate expiration and rotation deadline", NL_KV_STR("logger", LOG_NAME),
	         NL_KV_STR("expiration", exp), NL_KV_STR("rotationDeadline", dl));
	m->deadline = d;
	return d;
}

static void deadline_reached(void *payload)
{
	nl_cert_manager *m = payload;
	m->timer = 0;
	m->tries = 0;
	m->backoff = NL_CERT_BACKOFF_START_USEC;
	m->forever = 0;
	attempt(m);
}

/* One pass of the wait.Until loop: wait for the deadline, then rotate. */
static void plan(void *payload)
{
	nl_cert_manager *m = payload;
	m->timer = 0;
	if (m->one_shot && m->cert_pem)
		return; /* bootstrap only: kubelet without rotateCertificates */
	int64_t wait = next_deadline(m) - now(m);
	if (wait > 0) {
		char d[NL_DURATION_BUFSZ];
		nl_duration_format(d, wait);
		NL_LOG_V(2, "Waiting for next certificate rotation", NL_KV_STR("logger", LOG_NAME),
		         NL_KV_STR("sleep", d));
	}
	schedule(m, wait > 0 ? wait : 0, deadline_reached);
}

int nl_cert_manager_start(nl_cert_manager *m)
{
	if (m->running)
		return NL_EINVAL;
	m->running = 1;
	NL_LOG_V(2, "Certificate rotation is enabled", NL_KV_STR("logger", LOG_NAME));
	plan(m);
	return m->running ? 0 : NL_ENOMEM;
}

void nl_cert_manager_stop(nl_cert_manager *m)
{
	if (m->timer)
		nl_clock_cancel(m->clock, m->timer);
	m->timer = 0;
	m->next_at = 0;
	m->running = 0;
	attempt_reset(m);
}

static void schedule(nl_cert_manager *m, int64_t delay, nl_timer_fn fn)
{
	if (!m->running)
		return;
	if (nl_clock_after(&m->timer, m->clock, delay, fn, m) != 0) {
		NL_LOG_ERROR("out of memory", "Cannot schedule certificate rotation",
		             NL_KV_STR("logger", LOG_NAME));
		m->timer = 0;
		m->running = 0;
		return;
	}
	m->next_at = now(m) + delay;
}

/* --- an attempt's end ------------------------------------------------------------- */

/* updateServerError: what an error says about the server's health. */
static void server_error(nl_cert_manager *m, int code)
{
	if (code == NL_EUNAUTHORIZED)
		m->server_healthy = 1; /* TLS-terminating proxies answer this */
	else if (code == NL_ESERVER)
		m->server_healthy = 0;
	else
		m->server_healthy = code == NL_ENOTFOUND || code == NL_EFORBIDDEN;
}

/* rotateCerts returned false: back off as wait.ExponentialBackoff, then
 * wait.PollInfinite(32 s). */
static void attempt_failed(nl_cert_manager *m)
{
	attempt_reset(m);
	m->failures++;
	if (m->forever) {
		schedule(m, NL_CERT_POLL_FOREVER_USEC, attempt);
		return;
	}
	if (m->tries < NL_CERT_BACKOFF_STEPS) {
		int64_t wait = nl_jitter(m->backoff, 0.1, &m->rand);
		m->backoff *= 2;
		schedule(m, wait, attempt);
		return;
	}
	NL_LOG_ERROR("timed out waiting for the condition",
	             "Reached backoff limit, still unable to rotate certs",
	             NL_KV_STR("logger", LOG_NAME));
	m->forever = 1;
	schedule(m, NL_CERT_POLL_FOREVER_USEC, attempt);
}

static void issued(nl_cert_manager *m, const char *cert_pem, size_t len)
{
	nl_err err = {0};
	nl_cert_info info;
	int rc = nl_cert_store_update(m->store, now(m), cert_pem, len, m->key_pem,
	                              strlen(m->key_pem), &err);
	char *pair = NULL;
	if (rc == 0)
		rc = nl_cert_store_current(&pair, &info, m->store, &err);
	if (rc != 0) {
		NL_LOG_ERROR(err.msg, "Unable to store the new cert/key pair",
		             NL_KV_STR("logger", LOG_NAME));
		attempt_failed(m);
		return;
	}
	nl_cert_secret_free(m->cert_pem);
	m->cert_pem = pair;
	m->info = info;
	m->server_healthy = 1;
	m->rotations++;
	attempt_reset(m);
	if (m->one_shot)
		nl__cert_key_tmp_remove(m->store);
	if (m->on_rotated)
		m->on_rotated(m->hook_payload);
	/* wait.Until's period before the next pass. */
	schedule(m, NL_USEC_PER_SEC, plan);
}

/* --- waiting for the certificate ----------------------------------------------------- */

/* A CSR's verdict: 1 issued (*cert set, decoded), 0 not yet, < 0 final
 * failure (logged). */
static int csr_verdict(nl_cert_manager *m, json_object *csr, unsigned char **cert, size_t *len)
{
	const char *uid = nl_json_get_string(csr, "metadata.uid");
	if (!uid || strcmp(uid, m->csr_uid) != 0) {
		NL_LOG_ERROR("csr changed UIDs", "Certificate request was not signed",
		             NL_KV_STR("logger", LOG_NAME), NL_KV_STR("csr", m->csr_name));
		return -1;
	}
	int approved = 0;
	json_object *conds = nl_json_get_path(csr, "status.conditions");
	for (size_t i = 0; conds && i < json_object_array_length(conds); i++) {
		json_object *c = json_object_array_get_idx(conds, i);
		const char *type = nl_json_get_string(c, "type");
		const char *reason = nl_json_get_string(c, "reason");
		const char *msg = nl_json_get_string(c, "message");
		if (!type)
			continue;
		if (!strcmp(type, "Denied") || !strcmp(type, "Failed")) {
			NL_LOG_ERROR(
			    !strcmp(type, "Denied") ? "certificate signing request is denied"
			                            : "certificate signing request failed",
			    "Certificate request was not signed", NL_KV_STR("logger", LOG_NAME),
			    NL_KV_STR("reason", reason ? reason : ""),
			    NL_KV_STR("message", msg ? msg : ""));
			return -1;
		}
		approved |= !strcmp(type, "Approved");
	}
	if (!approved)
		return 0;
	const char *b64 = nl_json_get_string(csr, "status.certificate");
	if (!b64 || !*b64) {
		NL_LOG_V(2, "Certificate signing request is approved, waiting to be issued",
		         NL_KV_STR("csr", m->csr_name));
		return 0;
	}
	nl_err err = {0};
	if (nl_base64_decode(cert, len, b64, strlen(b64), &err) != 0) {
		NL_LOG_ERROR(err.msg, "Certificate request was not signed",
		             NL_KV_STR("logger", LOG_NAME),
		             NL_KV_STR("field", "status.certificate"));
		return -1;
	}
	NL_LOG_V(2, "Certificate signing request is issued", NL_KV_STR("csr", m->csr_name));
	return 1;
}

static void poll(void *payload)
{
	nl_cert_manager *m = payload;
	m->timer = 0;
	json_object *csr = NULL;
	nl_status *st = NULL;
	int rc = m->ops.get_csr(&csr, &st, m->csr_name, m->use_bootstrap, m->ops.payload);
	nl_status_free(st);
	if (rc == NL_ENOTFOUND) {
		NL_LOG_ERROR("csr was deleted", "Certificate request was not signed",
		             NL_KV_STR("logger", LOG_NAME), NL_KV_STR("csr", m->csr_name));
		attempt_failed(m);
		return;
	}
	unsigned char *cert = NULL;
	size_t len = 0;
	int v = rc == 0 ? csr_verdict(m, csr, &cert, &len) : 0;
	json_object_put(csr);
	if (v > 0) {
		issued(m, (const char *)cert, len);
		free(cert);
		return;
	}
	if (v < 0)
		return attempt_failed(m);
	/* Not yet (or the server did not answer: a watch would retry too). */
	if (now(m) + NL_CERT_POLL_USEC > m->wait_until) {
		NL_LOG_ERROR("timed out waiting for the condition",
		             "Certificate request was not signed", NL_KV_STR("logger", LOG_NAME));
		attempt_failed(m);
		return;
	}
	schedule(m, NL_CERT_POLL_USEC, poll);
}

/* --- an attempt --------------------------------------------------------------------- */

static int attempt_key(nl_cert_manager *m, nl_err *err)
{
	if (m->one_shot)
		return nl__cert_key_tmp(&m->key_pem, m->store, m->cert_pem, err);
	return nl_cert_key_generate(&m->key_pem, err);
}

static void attempt(void *payload)
{
	nl_cert_manager *m = payload;
	m->timer = 0;
	m->tries++;
	NL_LOG_V(2, "Rotating certificates", NL_KV_STR("logger", LOG_NAME));
	nl_err err = {0};
	char *csr_pem = NULL;
	json_object *body = NULL;
	/* ClientsetFn: the current certificate when it is valid, else the
	 * bootstrap credentials. */
	m->use_bootstrap = !cert_valid_now(m);
	if (attempt_key(m, &err) != 0 ||
	    nl_cert_csr_make(&csr_pem, m->key_pem, strlen(m->key_pem), m->node_name, &err) != 0 ||
	    nl__cert_csr_object(&body, m, csr_pem, &err) != 0) {
		NL_LOG_ERROR(err.msg, "Unable to generate a certificate signing request",
		             NL_KV_STR("logger", LOG_NAME));
		free(csr_pem);
		return attempt_failed(m);
	}
	free(csr_pem);
	json_object *created = NULL;
	nl_status *st = NULL;
	int rc = m->ops.create_csr(&created, &st, body, m->use_bootstrap, m->ops.payload);
	if (rc == NL_EEXISTS && m->one_shot)
		rc = nl__cert_csr_reuse(&created, m, body, &err);
	json_object_put(body);
	if (rc != 0) {
		NL_LOG_ERROR(st && st->message ? st->message : nl_strerror(rc),
		             "Failed while requesting a signed certificate from the control plane, "
		             "cannot create certificate signing request",
		             NL_KV_STR("logger", LOG_NAME));
		nl_status_free(st);
		server_error(m, rc);
		json_object_put(created);
		return attempt_failed(m);
	}
	nl_status_free(st);
	const char *name = nl_json_get_string(created, "metadata.name");
	const char *uid = nl_json_get_string(created, "metadata.uid");
	snprintf(m->csr_name, sizeof(m->csr_name), "%s", name ? name : "");
	snprintf(m->csr_uid, sizeof(m->csr_uid), "%s", uid ? uid : "");
	json_object_put(created);
	m->wait_until =
	    now(m) + (m->one_shot ? NL_CERT_BOOTSTRAP_WAIT_USEC : NL_CERT_WAIT_TIMEOUT_USEC);
	poll(m);
}

/* --- state ---------------------------------------------------------------------------- */

int nl_cert_manager_current(const nl_cert_manager *m, nl_cert_info *info)
{
	if (!cert_valid_now(m))
		return 0;
	if (info)
		*info = m->info;
	return 1;
}

int64_t nl_cert_manager_deadline(const nl_cert_manager *m)
{
	return m->deadline;
}

int64_t nl_cert_manager_next_attempt(const nl_cert_manager *m)
{
	return m->timer ? m->next_at : 0;
}

unsigned long nl_cert_manager_rotations(const nl_cert_manager *m)
{
	return m->rotations;
}

unsigned long nl_cert_manager_failures(const nl_cert_manager *m)
{
	return m->failures;
}

int nl_cert_manager_server_healthy(const nl_cert_manager *m)
{
	return m->server_healthy;
}
