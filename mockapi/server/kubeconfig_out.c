/* --kubeconfig-out (kubeconfig_out.h): the kubeconfig text kubectl and
 * client-go read, written crash-safe. */
#include "kubeconfig_out.h"

#include <nodelet/base64.h>
#include <nodelet/buf.h>
#include <nodelet/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KUBECONFIG (4u * 1024u * 1024u)

/* "key: <base64 of pem>" at indent, when pem is set. */
static int add_data(nl_buf *b, const char *indent, const char *key, const char *pem)
{
	char *enc = NULL;
	if (!pem)
		return 0;
	if (nl_base64_encode(&enc, (const unsigned char *)pem, strlen(pem)) != 0)
		return NL_ENOMEM;
	int rc = nl_buf_printf(b, "%s%s: %s\n", indent, key, enc);
	free(enc);
	return rc;
}

/* A YAML double-quoted scalar: a token may hold any character. */
static int add_quoted(nl_buf *b, const char *s)
{
	int rc = nl_buf_adds(b, "\"");
	for (; rc == 0 && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			rc = nl_buf_printf(b, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			rc = nl_buf_printf(b, "\\x%02x", c);
		else
			rc = nl_buf_add(b, s, 1);
	}
	return rc ? rc : nl_buf_adds(b, "\"");
}

static int render(nl_buf *b, const char *url, const mock_kubeconfig_creds *c)
{
	int rc = nl_buf_printf(b,
	                       "apiVersion: v1\n"
	                       "kind: Config\n"
	                       "clusters:\n"
	                       "- name: nodelet-mockapi\n"
	                       "  cluster:\n"
	                       "    server: %s\n",
	                       url);
	/* Nothing to verify over plain HTTP, but @kubernetes/client-node 1.x
	 * refuses an http:// server unless the cluster opts out of TLS
	 * verification; kubectl, client-go and the Python client ignore it. */
	if (rc == 0 && strncmp(url, "http://", 7) == 0)
		rc = nl_buf_adds(b, "    insecure-skip-tls-verify: true\n");
	if (rc == 0)
		rc = add_data(b, "    ", "certificate-authority-data", c ? c->ca_pem : NULL);
	if (rc == 0)
		rc = nl_buf_adds(b, "contexts:\n"
		                    "- name: nodelet-mockapi\n"
		                    "  context:\n"
		                    "    cluster: nodelet-mockapi\n"
		                    "    user: nodelet-mockapi\n"
		                    "current-context: nodelet-mockapi\n"
		                    "preferences: {}\n"
		                    "users:\n"
		                    "- name: nodelet-mockapi\n");
	int cert = c && c->cert_pem && c->key_pem, token = c && !cert && c->token;
	if (rc == 0)
		rc = nl_buf_adds(b, cert || token ? "  user:\n" : "  user: {}\n");
	if (rc == 0 && cert)
		rc = add_data(b, "    ", "client-certificate-data", c->cert_pem);
	if (rc == 0 && cert)
		rc = add_data(b, "    ", "client-key-data", c->key_pem);
	if (rc == 0 && token)
		rc = nl_buf_adds(b, "    token: ");
	if (rc == 0 && token)
		rc = add_quoted(b, c->token);
	if (rc == 0 && token)
		rc = nl_buf_adds(b, "\n");
	return rc;
}

int mock_kubeconfig_write_creds(const char *path, const char *url,
                                const mock_kubeconfig_creds *creds, nl_err *err)
{
	nl_buf b;
	nl_buf_init(&b, MAX_KUBECONFIG);
	int rc = render(&b, url, creds);
	if (rc != 0)
		rc = nl_err_set(err, rc, "cannot build the kubeconfig");
	else
		rc = nl_fs_replace_file(NULL, path, b.data, b.len, 0600, err);
	if (b.data)
		memset(b.data, 0, b.len); /* it may hold a private key */
	nl_buf_free(&b);
	return rc;
}

int mock_kubeconfig_write(const char *path, const char *url, nl_err *err)
{
	return mock_kubeconfig_write_creds(path, url, NULL, err);
}
