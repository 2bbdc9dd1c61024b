/* The `nodelet` program's pieces (cli.c, agent_dynconfig.c), exposed to the
 * tests of its flag handling. Not installed. */
#ifndef NL_TOOL_CLI_INTERNAL_H
#define NL_TOOL_CLI_INTERNAL_H

#include <nodelet/agent.h>
#include <nodelet/agent_tls.h>
#include <nodelet/config_controller.h>
#include <nodelet/nodelet_config.h>

/* --cert-dir's default (kubelet's is /var/lib/kubelet/pki). */
#define NL_CLI_DEFAULT_CERT_DIR "/var/lib/nodelet/pki"

typedef struct {
	const char *kubeconfig; /* NULL = client-go's default loading */
	/* The node name: kubelet's hostname (GetHostname) from --node-name or
	 * --hostname-override (one flag under two names), else the system's,
	 * trimmed and lowercased. Points into node_name_buf. */
	const char *node_name;
	char node_name_buf[256];
	const char *hostname_flag; /* --hostname-override or --node-name as given */
	const char *hostname_flag_name;
	nl_node_ips node_ips; /* --node-ip */
	const char *config_file;
	const char *dynamic_config_dir;
	int once;
	const char *metrics_bind_address; /* NULL = no metrics server */
	/* TLS bootstrap (docs/agent.md): --bootstrap-kubeconfig (NULL = none),
	 * --cert-dir, --rotate-certificates (default true, kubelet's false). */
	const char *bootstrap_kubeconfig;
	const char *cert_dir;
	int rotate_certificates;
	/* The flags given explicitly (set marks which): the transform's input. */
	nl_nodelet_config *flags;
} nl_cli_options;

/* Parse argv. 0 to run, 1 when --help or --version was answered, -1 on a
 * usage error (already printed). Always nl__cli_options_clear afterwards.
 * Strings point into argv. */
int nl__cli_parse(nl_cli_options *o, int argc, char **argv);
void nl__cli_options_clear(nl_cli_options *o);
/* The configuration to run: the --config file (or the defaults) with the
 * explicit flags applied over it, validated. Caller frees. */
int nl__cli_config(nl_nodelet_config **out, const nl_cli_options *o, nl_err *err);

/* --dynamic-config-dir (agent_dynconfig.c): bootstrap the dynamic config
 * controller, give the agent the configuration to run, and start the Node
 * and ConfigMap informers on the agent's loop. local is the configuration
 * from --config and the flags (copied); the flags are re-applied to every
 * dynamic configuration (borrowed: they must outlive the controller). Call
 * before nl_agent_start. *out belongs to the caller: nl__dynconfig_stop. */
typedef struct nl__dynconfig nl__dynconfig;
int nl__dynconfig_start(nl__dynconfig **out, nl_agent *a, const char *dir,
                        const nl_nodelet_config *local, const nl_nodelet_config *flags);
/* Start the controller's sync loops; after nl_agent_start, so that their
 * first run comes after the registration attempt and finds the Node. */
int nl__dynconfig_run(nl__dynconfig *d);
/* Stop and free; returns NL_ECONFIG when a restart could not load any
 * configuration (kubelet would exit), else 0. Accepts NULL. */
int nl__dynconfig_stop(nl__dynconfig *d);
/* Its controller, for the node_config_* metrics; d may be NULL. */
nl_config_controller *nl__dynconfig_controller(nl__dynconfig *d);

#endif
