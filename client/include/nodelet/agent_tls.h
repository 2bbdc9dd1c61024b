/* TLS bootstrap and client-certificate rotation for the agent, as kubelet's
 * --bootstrap-kubeconfig, --cert-dir and rotateCertificates
 * (docs/agent.md, "TLS bootstrap and certificate rotation"): the agent's
 * client is then made from the kubeconfig this writes, and its
 * connections are closed after each rotation. Used from the thread that
 * runs the agent's clock. */
#ifndef NODELET_AGENT_TLS_H
#define NODELET_AGENT_TLS_H

#include "certificate.h"
#include "client.h"

typedef struct {
	const char *kubeconfig;           /* the file written (and read back) */
	const char *bootstrap_kubeconfig; /* the bootstrap token's kubeconfig */
	const char *cert_dir;             /* the certificate store */
	const char *node_name;
	/* Rotate before expiry (client-go's certificate manager); 0 = only
	 * bootstrap when there is no valid certificate (kubelet's default). */
	int rotate;
	nl_clock *clock;      /* borrowed: the agent's */
	uint64_t jitter_seed; /* 0 = from the node name and the clock */
} nl_agent_tls_options;

typedef struct nl_agent_tls nl_agent_tls;

/* When the kubeconfig has no valid client certificate, write it from the
 * bootstrap kubeconfig's cluster with user default-auth on
 * <cert_dir>/kubelet-client-current.pem (0600, crash-safe). Nothing is sent
 * yet. NL_EINVAL, NL_EIO, the bootstrap kubeconfig's load error, NL_ENOMEM;
 * err says why. *out: nl_agent_tls_free. */
int nl_agent_tls_new(nl_agent_tls **out, const nl_agent_tls_options *o, nl_err *err);
void nl_agent_tls_free(nl_agent_tls *t);
/* Schedule the certificate manager on the clock. */
int nl_agent_tls_start(nl_agent_tls *t);
/* Run the clock's timers until a valid certificate is current (at once when
 * there is one): the agent's client needs its file. NL_ECANCELED when the
 * clock is stopped first. */
int nl_agent_tls_wait(nl_agent_tls *t);
/* The client whose connections are closed after each rotation (borrowed,
 * NULL = none). */
void nl_agent_tls_set_client(nl_agent_tls *t, nl_client *heartbeat);
/* The manager (borrowed), for its state. */
nl_cert_manager *nl_agent_tls_manager(const nl_agent_tls *t);

#endif
