/* The agent's client certificate, as kubelet keeps its own: an ECDSA P-256
 * key made on the device, a CertificateSigningRequest for it, the issued
 * certificate in client-go's file store (<dir>/kubelet-client-<timestamp>.pem
 * and the kubelet-client-current.pem link), and the certificate manager
 * that rotates it at a deadline drawn in 70-90 % of its lifetime
 * (k8s.io/client-go/util/certificate). See docs/agent.md, "TLS bootstrap
 * and certificate rotation", and docs/decisions/0043.
 *
 * PEM text in and out is NUL-terminated; lengths do not count the NUL.
 * Every buffer returned belongs to the caller (free(); keys are wiped with
 * nl_cert_secret_free). Crypto is OpenSSL's libcrypto. */
#ifndef NODELET_CERTIFICATE_H
#define NODELET_CERTIFICATE_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include "errors.h"
#include "fs.h"
#include "status.h"

/* client-go's file store prefix and kubelet's signer. */
#define NL_CERT_KUBELET_CLIENT_PREFIX "kubelet-client"
#define NL_CERT_KUBELET_CLIENT_SIGNER "kubernetes.io/kube-apiserver-client-kubelet"
/* kubelet's bootstrap keeps the key here until the certificate is stored. */
#define NL_CERT_BOOTSTRAP_KEY_FILE "kubelet-client.key.tmp"
/* Longest node-csr-<digest> name: 9 + 43 base64url characters. */
#define NL_CERT_CSR_NAME_MAX 64
/* Most bytes read from a certificate store file or an issued certificate. */
#define NL_CERT_MAX_PEM (256u * 1024u)

/* Wipe and free a secret (a key's PEM); accepts NULL. */
void nl_cert_secret_free(char *s);

/* --- keys, requests, certificates (certificate_crypto.c) -------------------- */

/* A new ECDSA P-256 key as SEC 1 PEM ("EC PRIVATE KEY", what Go's
 * keyutil writes). NL_ERROR with OpenSSL's reason in err; NL_ENOMEM. */
int nl_cert_key_generate(char **pem_out, nl_err *err);
/* Whether pem holds a private key OpenSSL can load (kubelet's
 * verifyKeyData). */
int nl_cert_key_valid(const char *pem, size_t len);

/* A PKCS#10 request (PEM "CERTIFICATE REQUEST") for key_pem with subject
 * O=system:nodes, CN=system:node:<node_name>, no extensions, signed
 * ECDSA-SHA256 (certutil.MakeCSR). NL_EINVAL for a bad key; NL_ERROR. */
int nl_cert_csr_make(char **pem_out, const char *key_pem, size_t key_len, const char *node_name,
                     nl_err *err);

/* csr.go's ensureCompatible for a request read back from the server:
 * csr_pem (untrusted) is a "CERTIFICATE REQUEST" whose subject is the one
 * nl_cert_csr_make writes for node_name, whose public key is key_pem's and
 * whose signature verifies. 0, or NL_EINVAL with the reason. */
int nl_cert_csr_check(const char *csr_pem, size_t csr_len, const char *key_pem, size_t key_len,
                      const char *node_name, nl_err *err);

/* What the agent needs of a certificate (the first of a chain: the leaf). */
typedef struct {
	int64_t not_before_usec; /* microseconds since the epoch */
	int64_t not_after_usec;
	char common_name[256]; /* the subject's CN, "" when none */
	size_t n_certs;        /* CERTIFICATE blocks in the PEM */
} nl_cert_info;

/* Parse every "CERTIFICATE" block of pem (other blocks, such as a key, are
 * skipped, as certutil.ParseCertsPEM does); info describes the first.
 * NL_EPARSE with the reason for no certificate, or one that does not
 * parse. pem need not be NUL-terminated; it is untrusted. */
int nl_cert_parse(nl_cert_info *info, const char *pem, size_t len, nl_err *err);
/* The certificate blocks of pem alone, each re-encoded as PEM, into a new
 * string (caller frees). NL_EPARSE as nl_cert_parse. */
int nl_cert_chain_pem(char **out, const char *pem, size_t len, nl_err *err);
/* 0 when the key in key_pem belongs to the first certificate of cert_pem
 * (tls.X509KeyPair's check); NL_EINVAL with the reason otherwise. */
int nl_cert_pair_check(const char *cert_pem, size_t cert_len, const char *key_pem, size_t key_len,
                       nl_err *err);

/* kubelet's bootstrap CSR name: "node-csr-" and the base64url SHA-512/256
 * of the key's PKIX public key, the CN, the organisations and the usages,
 * each base64url-encoded and followed by '|' (bootstrap.go digestedName).
 * usages is NULL-terminated. */
int nl_cert_csr_digest_name(char out[NL_CERT_CSR_NAME_MAX], const char *key_pem, size_t key_len,
                            const char *node_name, const char *const *usages, nl_err *err);

/* client-go's rotation deadline: notBefore + lifetime * (0.7 + 0.2 * r),
 * r uniform in [0, 1) (jitteryDuration: wait.Jitter(total, 0.2) - 0.3 total). */
int64_t nl_cert_rotation_deadline(const nl_cert_info *info, nl_rand *r);

/* --- the file store (certificate_store.c) ------------------------------------ */

typedef struct nl_cert_store nl_cert_store;

/* A store of <dir>/<prefix>-*.pem (client-go's NewFileStore with one
 * directory): an interrupted update is recovered (a <prefix>-updated.pem
 * link with no current one becomes current). dir is created 0755 when
 * missing. NL_EIO with the reason; NL_ENOMEM. *out: nl_cert_store_free. */
int nl_cert_store_new(nl_cert_store **out, const char *dir, const char *prefix, nl_err *err);
void nl_cert_store_free(nl_cert_store *s);
/* <dir>/<prefix>-current.pem (borrowed). */
const char *nl_cert_store_current_path(const nl_cert_store *s);
/* Load the current pair: *pem_out (may be NULL) the file's whole PEM, certs
 * and key (caller frees with nl_cert_secret_free), info (may be NULL) its
 * leaf.
 * NL_ENOTFOUND when there is none; NL_EPARSE/NL_EINVAL when it is not a
 * certificate and matching key; NL_EIO. */
int nl_cert_store_current(char **pem_out, nl_cert_info *info, nl_cert_store *s, nl_err *err);
/* Store a new pair as client-go's Update does, crash-safe: every certificate
 * block of cert_pem then the key block, into <prefix>-<now as
 * 2006-01-02-15-04-05, local time>.pem (0600, written whole then renamed),
 * then the <prefix>-updated.pem link to its absolute path renamed over
 * <prefix>-current.pem, the directory fsynced. The pair is checked first
 * (nl_cert_pair_check): a bad one leaves the store as it was. */
int nl_cert_store_update(nl_cert_store *s, int64_t now_usec, const char *cert_pem, size_t cert_len,
                         const char *key_pem, size_t key_len, nl_err *err);
/* Use fs for the store's writes (tests fail a step); NULL = the real calls. */
void nl_cert_store_set_fs(nl_cert_store *s, const nl_fs_ops *fs);

/* kubelet's LoadOrGenerateKeyFile: the key in path when it holds a valid
 * one, else a new key written there 0600. *pem_out: nl_cert_secret_free. */
int nl_cert_key_load_or_generate(char **pem_out, const char *path, nl_err *err);

/* --- the CertificateSigningRequest API, as the manager calls it -------------- */

/* use_bootstrap: the request goes with the bootstrap credentials (there is
 * no valid certificate yet) rather than the current certificate. *out is a
 * new reference; *status (may be set on failure) the caller frees. */
typedef struct {
	int (*create_csr)(json_object **out, nl_status **status, json_object *csr,
	                  int use_bootstrap, void *payload);
	int (*get_csr)(json_object **out, nl_status **status, const char *name, int use_bootstrap,
	               void *payload);
	void *payload;
} nl_csr_ops;

/* kubelet's wait for one request: certificateWaitTimeout. */
#define NL_CERT_WAIT_TIMEOUT_USEC (15 * 60 * NL_USEC_PER_SEC)
/* How often the manager reads a pending request back (see decision 0043). */
#define NL_CERT_POLL_USEC (1 * NL_USEC_PER_SEC)
/* The rotation backoff: 2 s doubling, 10 % jitter, 5 attempts, then one
 * attempt every 32 s (wait.ExponentialBackoff, then wait.PollInfinite). */
#define NL_CERT_BACKOFF_START_USEC (2 * NL_USEC_PER_SEC)
#define NL_CERT_BACKOFF_STEPS 5
#define NL_CERT_POLL_FOREVER_USEC (32 * NL_USEC_PER_SEC)

/* --- the certificate manager (certificate_manager.c) ------------------------- */

typedef struct nl_cert_manager nl_cert_manager;

typedef struct {
	nl_clock *clock;       /* borrowed; its timers run the manager */
	nl_cert_store *store;  /* borrowed */
	const char *node_name; /* copied */
	nl_csr_ops ops;        /* copied */
	/* A new certificate is current (after it is stored): the caller's
	 * clients must use it for new connections. May be NULL. */
	void (*on_rotated)(void *payload);
	void *hook_payload;
	uint64_t jitter_seed; /* 0 = from the node name and the clock */
	/* kubelet without rotateCertificates: only bootstrap (LoadClientCert:
	 * the key kept in kubelet-client.key.tmp, a node-csr-<digest> name, an
	 * hour's wait), nothing once a certificate is current. */
	int one_shot;
} nl_cert_manager_options;

/* Load the store's current pair; none, or one expired at the clock's time,
 * means the first rotation is due at once (with the bootstrap
 * credentials). NL_EINVAL, NL_ENOMEM, or the store's error other than
 * NL_ENOTFOUND. *out: nl_cert_manager_free. */
int nl_cert_manager_new(nl_cert_manager **out, const nl_cert_manager_options *o, nl_err *err);
void nl_cert_manager_free(nl_cert_manager *m);
/* Schedule rotation on the clock: at the deadline, or at once when forced.
 * NL_EINVAL when running; NL_ENOMEM. */
int nl_cert_manager_start(nl_cert_manager *m);
/* Cancel the timers (a request in flight is abandoned). */
void nl_cert_manager_stop(nl_cert_manager *m);
/* Whether there is a certificate valid at the clock's time, and its leaf. */
int nl_cert_manager_current(const nl_cert_manager *m, nl_cert_info *info);
/* The rotation deadline last drawn (0 = none yet); the time of the next
 * attempt scheduled (0 = none); rotations completed; attempts failed. */
int64_t nl_cert_manager_deadline(const nl_cert_manager *m);
int64_t nl_cert_manager_next_attempt(const nl_cert_manager *m);
unsigned long nl_cert_manager_rotations(const nl_cert_manager *m);
unsigned long nl_cert_manager_failures(const nl_cert_manager *m);
/* client-go's ServerHealthy: the last answer suggests the API server works. */
int nl_cert_manager_server_healthy(const nl_cert_manager *m);

#endif
