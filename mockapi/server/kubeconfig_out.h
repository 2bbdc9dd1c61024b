/* --kubeconfig-out: a kubeconfig that points kubectl and the agent here. */
#ifndef MOCK_KUBECONFIG_OUT_H
#define MOCK_KUBECONFIG_OUT_H

#include <nodelet/errors.h>

/* What to embed besides the server URL; every member may be NULL. PEM
 * texts are written base64-encoded as the *-data fields. */
typedef struct {
	const char *ca_pem;   /* certificate-authority-data */
	const char *cert_pem; /* client-certificate-data (with key_pem) */
	const char *key_pem;  /* client-key-data */
	const char *token;    /* token, when there is no client certificate */
} mock_kubeconfig_creds;

/* Write a kubeconfig for server url to path, crash-safe (temp file in the
 * same directory, fsync, rename) and mode 0600. NL_EIO with errno text. */
int mock_kubeconfig_write(const char *path, const char *url, nl_err *err);
/* The same with the CA and credentials of creds (NULL: none). */
int mock_kubeconfig_write_creds(const char *path, const char *url,
                                const mock_kubeconfig_creds *creds, nl_err *err);

#endif
