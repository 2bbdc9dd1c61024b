/* Shared by the certificate manager's files (certificate_*.c); not
 * installed. */
#ifndef NL_CERTIFICATE_INTERNAL_H
#define NL_CERTIFICATE_INTERNAL_H

#include <nodelet/certificate.h>

/* kubelet's bootstrap (LoadClientCert) waits an hour for its request. */
#define NL_CERT_BOOTSTRAP_WAIT_USEC (3600 * NL_USEC_PER_SEC)

struct nl_cert_manager {
	nl_clock *clock;
	nl_cert_store *store;
	char *node_name;
	nl_csr_ops ops;
	void (*on_rotated)(void *payload);
	void *hook_payload;
	int one_shot;
	nl_rand rand;
	/* The current pair (certificates and key PEM) and its leaf; NULL when
	 * there is none or it had expired at start. */
	char *cert_pem;
	nl_cert_info info;
	int force; /* rotate at once (no certificate) */
	int running;
	uint64_t timer;
	int64_t next_at;
	int64_t deadline;
	/* The rotation in progress. */
	int tries;       /* attempts in this backoff */
	int64_t backoff; /* the next wait before jitter */
	int forever;     /* past the backoff: every 32 s */
	int use_bootstrap;
	char *key_pem;
	char csr_name[254];
	char csr_uid[64];
	int64_t wait_until;
	unsigned long rotations, failures;
	int server_healthy;
};

/* The CertificateSigningRequest to create for csr_pem (new reference in
 * *out): rotation's generateName "csr-" and usages for an ECDSA key, or
 * bootstrap's node-csr-<digest> name and its three usages. */
int nl__cert_csr_object(json_object **out, const nl_cert_manager *m, const char *csr_pem,
                        nl_err *err);
/* The request of that name exists already (bootstrap after a restart):
 * GET it and reuse it when it is compatible (csr.go ensureCompatible). */
int nl__cert_csr_reuse(json_object **out, nl_cert_manager *m, json_object *mine, nl_err *err);
/* Bootstrap's key: the current pair's key when valid, else the one kept in
 * <dir>/kubelet-client.key.tmp, made there 0600 when missing. */
int nl__cert_key_tmp(char **pem_out, nl_cert_store *s, const char *current_pem, nl_err *err);
/* The certificate is stored: the temporary key file goes. */
void nl__cert_key_tmp_remove(nl_cert_store *s);
/* The store's directory (borrowed). */
const char *nl__cert_store_dir(const nl_cert_store *s);
/* Go's time.Time.String() of a UTC time: "2006-01-02 15:04:05.999999 +0000 UTC". */
void nl__cert_time_go(char out[64], int64_t usec);

#endif
