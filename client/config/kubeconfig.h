/* The kubeconfig model between decoding and use (clientcmd's api.Config):
 * one decoded file, or several merged with kubectl's rules. Private to
 * client/config. */
#ifndef NODELET_CONFIG_KUBECONFIG_H
#define NODELET_CONFIG_KUBECONFIG_H

#include <nodelet/config.h>

#include <stddef.h>

/* Every entry remembers the file that defined it (clientcmd's
 * LocationOfOrigin): relative paths resolve against that file's directory. */
struct kc_cluster {
	char *name;
	char *origin;
	char *server;
	char *tls_server_name;
	char *ca_file;
	char *proxy_url;
	unsigned char *ca_data;
	size_t ca_data_len;
	int insecure;
};

struct kc_user {
	char *name;
	char *origin;
	char *token;
	char *token_file;
	char *cert_file;
	char *key_file;
	char *username;
	char *password;
	unsigned char *cert_data;
	size_t cert_data_len;
	unsigned char *key_data;
	size_t key_data_len;
	nl_exec_config *exec;
	size_t exec_unnamed_env; /* env entries without a name (invalid) */
};

struct kc_context {
	char *name;
	char *origin;
	char *cluster;
	char *user;
	char *namespace_;
};

struct kc_config {
	struct kc_cluster *clusters;
	size_t nclusters;
	struct kc_user *users;
	size_t nusers;
	struct kc_context *contexts;
	size_t ncontexts;
	char *current_context;
};

/* Decode one kubeconfig text (YAML or JSON) named `origin` into *out (caller
 * frees with nl__kc_config_free; empty input is an empty config). Types are
 * checked throughout, as Go's decoder does for the whole file; unknown fields
 * are ignored. NL_EPARSE / NL_ENOMEM with the detail (without the file
 * prefix) in err. */
int nl__kc_decode(struct kc_config *out, const char *buf, size_t len, const char *origin,
                  nl_err *err);

/* Move the entries of src whose names dst lacks into dst (the first file to
 * define a name wins, whole), and its current-context when dst has none;
 * what remains in src is freed. NL_ENOMEM only. */
int nl__kc_merge(struct kc_config *dst, struct kc_config *src);

void nl__kc_config_free(struct kc_config *c);

#endif
