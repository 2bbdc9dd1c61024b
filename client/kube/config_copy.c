/* A deep copy of an nl_rest_config, so a client outlives the config it was
 * made from (nl_rest_config_free releases the copy). */
#include <stdlib.h>
#include <string.h>

#include "kube.h"

static char *dup_str(const char *s, int *failed)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		*failed = 1;
	return d;
}

/* Bytes plus a NUL, as the loaders keep them. */
static unsigned char *dup_bytes(const unsigned char *p, size_t len, int *failed)
{
	if (!p)
		return NULL;
	unsigned char *d = malloc(len + 1);
	if (!d) {
		*failed = 1;
		return NULL;
	}
	memcpy(d, p, len);
	d[len] = '\0';
	return d;
}

static char **dup_strv(char *const *v, int *failed)
{
	if (!v)
		return NULL;
	size_t n = 0;
	while (v[n])
		n++;
	char **d = calloc(n + 1, sizeof(*d));
	if (!d) {
		*failed = 1;
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		d[i] = dup_str(v[i], failed);
	return d;
}

static nl_exec_config *dup_exec(const nl_exec_config *e, int *failed)
{
	if (!e)
		return NULL;
	nl_exec_config *d = calloc(1, sizeof(*d));
	if (!d) {
		*failed = 1;
		return NULL;
	}
	d->api_version = dup_str(e->api_version, failed);
	d->command = dup_str(e->command, failed);
	d->args = dup_strv(e->args, failed);
	d->env = dup_strv(e->env, failed);
	d->provide_cluster_info = e->provide_cluster_info;
	d->interactive_mode = dup_str(e->interactive_mode, failed);
	d->install_hint = dup_str(e->install_hint, failed);
	return d;
}

int nl__config_copy(nl_rest_config **out, const nl_rest_config *in)
{
	int failed = 0;
	nl_rest_config *c = calloc(1, sizeof(*c));
	if (!c)
		return NL_ENOMEM;
	c->server = dup_str(in->server, &failed);
	c->tls_server_name = dup_str(in->tls_server_name, &failed);
	c->insecure_skip_tls_verify = in->insecure_skip_tls_verify;
	c->ca_file = dup_str(in->ca_file, &failed);
	c->ca_data = dup_bytes(in->ca_data, in->ca_data_len, &failed);
	c->ca_data_len = in->ca_data ? in->ca_data_len : 0;
	c->cert_file = dup_str(in->cert_file, &failed);
	c->cert_data = dup_bytes(in->cert_data, in->cert_data_len, &failed);
	c->cert_data_len = in->cert_data ? in->cert_data_len : 0;
	c->key_file = dup_str(in->key_file, &failed);
	c->key_data = dup_bytes(in->key_data, in->key_data_len, &failed);
	c->key_data_len = in->key_data ? in->key_data_len : 0;
	c->bearer_token = dup_str(in->bearer_token, &failed);
	c->bearer_token_file = dup_str(in->bearer_token_file, &failed);
	c->username = dup_str(in->username, &failed);
	c->password = dup_str(in->password, &failed);
	c->proxy_url = dup_str(in->proxy_url, &failed);
	c->exec = dup_exec(in->exec, &failed);
	c->namespace_ = dup_str(in->namespace_, &failed);
	c->source = dup_str(in->source, &failed);
	if (failed) {
		nl_rest_config_free(c);
		return NL_ENOMEM;
	}
	*out = c;
	return 0;
}
