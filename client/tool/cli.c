/* The `nodelet` program: flags, configuration, signals, and the agent's
 * loop. Explicit flags override the --config file (the seed's transform),
 * and, with --dynamic-config-dir, the dynamic configuration too. */
#include <errno.h>
#include <getopt.h>
#include <nodelet/agent.h>
#include <nodelet/flags.h>
#include <nodelet/log.h>
#include <nodelet/names.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../agent/agent_metrics.h"
#include "cli_internal.h"
#include "config.h"
#include "tool.h"

static void usage(FILE *f)
{
	fputs("Usage: nodelet [flags]\n"
	      "\n"
	      "A kubelet-style node agent without pods: registers the Node, renews its\n"
	      "Lease in kube-node-lease and reports its Ready condition.\n"
	      "\n"
	      "Flags:\n"
	      "      --kubeconfig FILE               kubeconfig of the API server; without it\n"
	      "                                      $KUBECONFIG, ~/.kube/config, then the\n"
	      "                                      in-cluster service account\n"
	      "      --bootstrap-kubeconfig FILE     a kubeconfig with a bootstrap token: when\n"
	      "                                      --kubeconfig has no valid client\n"
	      "                                      certificate, request one with it and\n"
	      "                                      write --kubeconfig to use it\n"
	      "      --cert-dir DIR                  where the client certificate and key are\n"
	      "                                      kept (default /var/lib/nodelet/pki)\n"
	      "      --rotate-certificates[=BOOL]    renew the client certificate before it\n"
	      "                                      expires (default true)\n"
	      "      --hostname-override NAME        the Node (and Lease) name and its Hostname\n"
	      "                                      address (default: the system's hostname,\n"
	      "                                      lowercased)\n"
	      "      --node-name NAME                the same as --hostname-override\n"
	      "      --node-ip IP[,IP]               the node's InternalIP: one address, or an\n"
	      "                                      IPv4 and an IPv6 one (default: an address\n"
	      "                                      of the default route's interface; 0.0.0.0\n"
	      "                                      or :: chooses its family)\n"
	      "      --lease-duration-seconds N      lease duration, renewed every quarter of it\n"
	      "                                      (default 40)\n"
	      "      --register-node[=BOOL]          register the Node if missing (default true)\n"
	      "      --register-with-taints LIST     taints at registration, key=value:Effect,...\n"
	      "                                      (default nodelet.io/no-pods:NoSchedule;\n"
	      "                                      an empty LIST registers none)\n"
	      "      --node-labels LIST              labels at registration, key=value,...\n"
	      "      --kube-api-content-type TYPE    what requests to the API server are sent\n"
	      "                                      in: application/vnd.kubernetes.protobuf\n"
	      "                                      (default) or application/json\n"
	      "      --config FILE                   a NodeletConfiguration file; flags given\n"
	      "                                      explicitly override it\n"
	      "      --dynamic-config-dir DIR        enable dynamic configuration from the\n"
	      "                                      Node's config source, checkpointed in DIR\n"
	      "      --metrics-bind-address IP:PORT  serve /metrics, /healthz, /livez and\n"
	      "                                      /readyz there\n"
	      "                                      (default: off; :PORT for all addresses)\n"
	      "  -v, --v N                           log verbosity (renewals at 4)\n"
	      "      --logging-format FORMAT         " NL_FLAGS_LOGGING_FORMAT_HELP "\n"
	      "      --once                          register, renew the lease and report the\n"
	      "                                      status once, then exit\n"
	      "  -h, --help                          show this help\n"
	      "      --version                       print the version\n"
	      "\n"
	      "Exits 0 on SIGINT or SIGTERM; the lease is left to expire. SIGHUP is\n"
	      "logged and ignored.\n",
	      f);
}

#define usage_error(...) nl_flags_usage_error("nodelet", __VA_ARGS__)

/* Go's strconv.ParseBool, as flag.Bool accepts. */
static int parse_bool(int *out, const char *s)
{
	static const char *const yes[] = {"1", "t", "T", "TRUE", "true", "True"};
	static const char *const no[] = {"0", "f", "F", "FALSE", "false", "False"};
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcmp(s, yes[i]) == 0)
			return *out = 1, 0;
		if (strcmp(s, no[i]) == 0)
			return *out = 0, 0;
	}
	return NL_EPARSE;
}

static int parse_int(long *out, const char *s, long min, long max)
{
	char *end;
	long v;
	if (!*s)
		return NL_EPARSE;
	v = strtol(s, &end, 10);
	if (*end || v < min || v > max)
		return NL_EPARSE;
	*out = v;
	return 0;
}

enum {
	OPT_KUBECONFIG = 256,
	OPT_NODE_NAME,
	OPT_LEASE_DURATION,
	OPT_REGISTER_NODE,
	OPT_TAINTS,
	OPT_LABELS,
	OPT_CONFIG,
	OPT_DYNAMIC_DIR,
	OPT_ONCE,
	OPT_LOGGING_FORMAT,
	OPT_VERSION,
	OPT_METRICS_ADDR,
	OPT_CONTENT_TYPE,
	OPT_HOSTNAME_OVERRIDE,
	OPT_NODE_IP,
	OPT_BOOTSTRAP_KUBECONFIG,
	OPT_CERT_DIR,
	OPT_ROTATE_CERTIFICATES,
};

static const struct option long_options[] = {
    {"kubeconfig", required_argument, NULL, OPT_KUBECONFIG},
    {"node-name", required_argument, NULL, OPT_NODE_NAME},
    {"hostname-override", required_argument, NULL, OPT_HOSTNAME_OVERRIDE},
    {"node-ip", required_argument, NULL, OPT_NODE_IP},
    {"bootstrap-kubeconfig", required_argument, NULL, OPT_BOOTSTRAP_KUBECONFIG},
    {"cert-dir", required_argument, NULL, OPT_CERT_DIR},
    {"rotate-certificates", optional_argument, NULL, OPT_ROTATE_CERTIFICATES},
    {"lease-duration-seconds", required_argument, NULL, OPT_LEASE_DURATION},
    {"register-node", optional_argument, NULL, OPT_REGISTER_NODE},
    {"register-with-taints", required_argument, NULL, OPT_TAINTS},
    {"node-labels", required_argument, NULL, OPT_LABELS},
    {"config", required_argument, NULL, OPT_CONFIG},
    {"dynamic-config-dir", required_argument, NULL, OPT_DYNAMIC_DIR},
    {"metrics-bind-address", required_argument, NULL, OPT_METRICS_ADDR},
    {"kube-api-content-type", required_argument, NULL, OPT_CONTENT_TYPE},
    {"v", required_argument, NULL, 'v'},
    {"logging-format", required_argument, NULL, OPT_LOGGING_FORMAT},
    {"once", no_argument, NULL, OPT_ONCE},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

/* One flag into o (o->flags collects what the transform applies). */
static int parse_one(nl_cli_options *o, int c, const char *arg)
{
	nl_nodelet_config *f = o->flags;
	nl_err err = {0};
	long n;
	switch (c) {
	case OPT_KUBECONFIG:
		o->kubeconfig = arg;
		return 0;
	case OPT_NODE_NAME:
	case OPT_HOSTNAME_OVERRIDE: {
		const char *name = c == OPT_NODE_NAME ? "--node-name" : "--hostname-override";
		/* One setting under two names: both given must agree. */
		if (o->hostname_flag && strcmp(o->hostname_flag, arg) != 0 &&
		    strcmp(o->hostname_flag_name, name) != 0)
			return usage_error("%s \"%s\" and %s \"%s\" differ", o->hostname_flag_name,
			                   o->hostname_flag, name, arg);
		o->hostname_flag = arg;
		o->hostname_flag_name = name;
		return 0;
	}
	case OPT_NODE_IP:
		if (nl_node_ips_parse(&o->node_ips, arg, &err) != 0)
			return usage_error("bad --node-ip \"%s\": %s", arg, err.msg);
		return 0;
	case OPT_CONFIG:
		o->config_file = arg;
		return 0;
	case OPT_BOOTSTRAP_KUBECONFIG:
		o->bootstrap_kubeconfig = arg;
		return 0;
	case OPT_CERT_DIR:
		o->cert_dir = arg;
		return 0;
	case OPT_ROTATE_CERTIFICATES:
		if (parse_bool(&o->rotate_certificates, arg ? arg : "true") != 0)
			return usage_error("invalid value \"%s\" for --rotate-certificates", arg);
		return 0;
	case OPT_DYNAMIC_DIR:
		o->dynamic_config_dir = arg;
		return 0;
	case OPT_ONCE:
		o->once = 1;
		return 0;
	case OPT_METRICS_ADDR:
		o->metrics_bind_address = arg;
		return 0;
	case OPT_LEASE_DURATION:
		/* The range is the configuration's to check, with its message. */
		if (parse_int(&n, arg, INT32_MIN, INT32_MAX) != 0)
			return usage_error("invalid value \"%s\" for --lease-duration-seconds",
			                   arg);
		f->lease_duration_seconds = (int32_t)n;
		f->set |= NL_NC_LEASE_DURATION_SECONDS;
		return 0;
	case OPT_REGISTER_NODE:
		if (parse_bool(&f->register_node, arg ? arg : "true") != 0)
			return usage_error("invalid value \"%s\" for --register-node", arg);
		f->set |= NL_NC_REGISTER_NODE;
		return 0;
	case OPT_TAINTS:
		if (nl_nodelet_config_parse_taints_flag(f, arg, &err) != 0)
			return usage_error("invalid --register-with-taints: %s", err.msg);
		return 0;
	case OPT_LABELS:
		if (nl_nodelet_config_parse_labels_flag(f, arg, &err) != 0)
			return usage_error("invalid --node-labels: %s", err.msg);
		return 0;
	case OPT_CONTENT_TYPE:
		if (nl_nodelet_config_parse_content_type_flag(f, arg, &err) != 0)
			return usage_error("invalid --kube-api-content-type: %s", err.msg);
		return 0;
	case OPT_LOGGING_FORMAT:
		/* The process's format, set at once: every line after the
		 * flags, the startup line included, is in it. */
		return nl_flags_parse_logging_format("nodelet", arg);
	case 'v': {
		int v;
		if (nl_flags_parse_verbosity("nodelet", arg, INT32_MAX, &v) != 0)
			return -1;
		f->log_verbosity = v;
		f->set |= NL_NC_LOG_VERBOSITY;
		return 0;
	}
	default:
		return usage_error("unknown flag");
	}
}

/* kubelet's GetHostname over the flag or the system's name; nodelet has no
 * cloud provider, so the node name is the hostname. */
static int node_name(nl_cli_options *o)
{
	char system[256] = "", why[256];
	nl_err err = {0};
	if (!o->hostname_flag && gethostname(system, sizeof(system) - 1) != 0)
		return usage_error("couldn't determine hostname: %s", strerror(errno));
	if (nl_node_hostname(o->node_name_buf, sizeof(o->node_name_buf), o->hostname_flag, system,
	                     &err) != 0)
		return usage_error("%s", err.msg);
	o->node_name = o->node_name_buf;
	if (nl_name_is_dns1123_subdomain(o->node_name, why, sizeof(why)) != 0)
		return usage_error("invalid node name \"%s\" (%s): %s", o->node_name,
		                   o->hostname_flag ? o->hostname_flag_name : "the hostname", why);
	return 0;
}

int nl__cli_parse(nl_cli_options *o, int argc, char **argv)
{
	int c;
	memset(o, 0, sizeof(*o));
	o->cert_dir = NL_CLI_DEFAULT_CERT_DIR;
	o->rotate_certificates = 1;
	if (nl_nodelet_config_new(&o->flags) != 0)
		return usage_error("out of memory");
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":hv:", long_options, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 1;
		}
		if (c == OPT_VERSION) {
			printf("nodelet %s\n", PACKAGE_VERSION);
			return 1;
		}
		if (c == '?' || c == ':')
			return nl_flags_getopt_error("nodelet", c, argv, optind, optopt);
		if (parse_one(o, c, optarg) != 0)
			return -1;
	}
	if (optind < argc)
		return usage_error("unexpected argument \"%s\"", argv[optind]);
	return node_name(o);
}

void nl__cli_options_clear(nl_cli_options *o)
{
	nl_nodelet_config_free(o->flags);
	o->flags = NULL;
}

int nl__cli_config(nl_nodelet_config **out, const nl_cli_options *o, nl_err *err)
{
	nl_nodelet_config *cfg = NULL;
	int rc = o->config_file ? nl_nodelet_config_load_file(&cfg, o->config_file, err)
	                        : nl_nodelet_config_new(&cfg);
	if (rc != 0)
		return rc;
	if ((rc = nl_nodelet_config_apply_flags(cfg, o->flags)) != 0 ||
	    (rc = nl_nodelet_config_validate(cfg, err)) != 0) {
		if (rc == NL_ENOMEM)
			nl_err_set(err, rc, "out of memory");
		nl_nodelet_config_free(cfg);
		return rc;
	}
	*out = cfg;
	return 0;
}

/* --- signals ------------------------------------------------------------------ */

typedef struct {
	sigset_t set;
	nl_clock *clock;
	pthread_t thread;
	volatile int quitting; /* main is done: exit quietly */
} signal_forwarder;

/* The clock's stop takes a lock, so signals are taken by a thread with
 * sigwait rather than handled (decisions/0005-clock.md). */
static void *forward_signals(void *payload)
{
	signal_forwarder *s = payload;
	int sig;
	for (;;) {
		if (sigwait(&s->set, &sig) != 0)
			break;
		/* SIGHUP would end the process by default, with no word in the
		 * log (kubelet's too). Reloading the config file and kubeconfig
		 * while controllers run on them is not worth the risk: say so,
		 * and carry on (docs/decisions/0034-agent-operations.md). */
		if (sig == SIGHUP && !s->quitting) {
			NL_LOG_INFO("Received SIGHUP, ignored: nodelet does not reload its "
			            "configuration, restart it to apply changes");
			continue;
		}
		if (!s->quitting)
			NL_LOG_INFO(
			    "Received signal, shutting down, the node lease is left to expire",
			    NL_KV_STR("signal", sig == SIGINT ? "SIGINT" : "SIGTERM"));
		break;
	}
	nl_clock_stop(s->clock);
	return NULL;
}

/* --- running ---------------------------------------------------------------------- */

static int run_once(nl_agent *a)
{
	int rc = 0;
	if (nl_agent_config(a)->register_node && (rc = nl_agent_register_node(a)) != 0)
		return rc;
	if ((rc = nl_agent_sync_lease(a)) != 0)
		return rc;
	return nl_agent_sync_status(a);
}

/* The startup line, with the configuration the agent runs: after the
 * dynamic config's bootstrap, which may have replaced the local one. */
static void log_banner(nl_agent *a, const nl_cli_options *o)
{
	NL_LOG_INFO("Starting nodelet", NL_KV_STR("version", PACKAGE_VERSION),
	            NL_KV_REF("node", NULL, o->node_name),
	            NL_KV_STR("server", nl_client_server(nl_agent_client(a))),
	            NL_KV_INT("leaseDurationSeconds", nl_agent_config(a)->lease_duration_seconds));
}

static int run_forever(nl_agent *a, const nl_cli_options *o, const nl_nodelet_config *cfg)
{
	nl__dynconfig *dyn = NULL;
	int rc = 0, drc;
	if (o->dynamic_config_dir &&
	    (rc = nl__dynconfig_start(&dyn, a, o->dynamic_config_dir, cfg, o->flags)) != 0)
		return rc;
	log_banner(a, o);
	nl__agent_metrics *metrics = NULL;
	nl_err err = {0};
	if (o->metrics_bind_address &&
	    (rc = nl__agent_metrics_start(&metrics, a, nl__dynconfig_controller(dyn),
	                                  o->metrics_bind_address, &err)) != 0)
		NL_LOG_ERROR(err.msg, "Failed to start the metrics server");
	if (rc == 0 && (rc = nl_agent_start(a)) == 0 &&
	    (!dyn || (rc = nl__dynconfig_run(dyn)) == 0))
		rc = nl_agent_run(a);
	nl_agent_stop(a);
	nl__agent_metrics_stop(metrics);
	if ((drc = nl__dynconfig_stop(dyn)) != 0)
		rc = drc;
	return rc;
}

/* --bootstrap-kubeconfig: a valid client certificate before the agent's
 * client is made from the kubeconfig pointing at it; then rotation. */
static int tls_bootstrap(nl_agent_tls **out, const nl_cli_options *o, nl_clock *clock)
{
	nl_agent_tls_options to = {0};
	nl_err err = {0};
	if (!o->kubeconfig) {
		NL_LOG_ERROR(NULL, "--bootstrap-kubeconfig needs --kubeconfig, the file to write");
		return NL_EINVAL;
	}
	to.kubeconfig = o->kubeconfig;
	to.bootstrap_kubeconfig = o->bootstrap_kubeconfig;
	to.cert_dir = o->cert_dir;
	to.node_name = o->node_name;
	to.rotate = o->rotate_certificates;
	to.clock = clock;
	int rc = nl_agent_tls_new(out, &to, &err);
	if (rc != 0) {
		NL_LOG_ERROR(err.msg, "Failed to bootstrap the client certificate");
		return rc;
	}
	if ((rc = nl_agent_tls_start(*out)) == 0)
		rc = nl_agent_tls_wait(*out);
	return rc;
}

static int make_agent(nl_agent **out, const nl_cli_options *o, const nl_nodelet_config *cfg,
                      nl_clock *clock)
{
	nl_rest_config *rest = NULL;
	nl_agent_options ao;
	nl_err err = {0};
	int rc = nl_rest_config_load(&rest, o->kubeconfig, NULL, &err);
	if (rc != 0) {
		NL_LOG_ERROR(err.msg, "Cannot load the API server configuration");
		return rc;
	}
	nl_agent_options_init(&ao);
	ao.node_name = o->node_name;
	ao.node_ips = &o->node_ips;
	ao.rest_config = rest;
	ao.config = cfg;
	ao.clock = clock;
	/* The dynamic config's checkpoints must be writable for Ready; --once
	 * runs no dynamic config, so it has no such state. */
	const char *state_dirs[1] = {o->dynamic_config_dir};
	if (o->dynamic_config_dir && !o->once) {
		ao.state_dirs = state_dirs;
		ao.n_state_dirs = 1;
	}
	rc = nl_agent_new(out, &ao, &err);
	if (rc != 0)
		NL_LOG_ERROR(err.msg, "Cannot start the agent");
	nl_rest_config_free(rest);
	return rc;
}

static int run(const nl_cli_options *o, const nl_nodelet_config *cfg)
{
	signal_forwarder sf = {.quitting = 0};
	nl_agent *a = NULL;
	nl_agent_tls *tls = NULL;
	nl_clock *clock = NULL;
	int rc;

	sigemptyset(&sf.set);
	sigaddset(&sf.set, SIGINT);
	sigaddset(&sf.set, SIGTERM);
	sigaddset(&sf.set, SIGHUP);
	/* Before any thread exists (libcurl's resolver too): only the
	 * forwarder takes these signals. */
	pthread_sigmask(SIG_BLOCK, &sf.set, NULL);
	if (nl_clock_new_real(&clock) != 0)
		return 1;
	sf.clock = clock;
	if (pthread_create(&sf.thread, NULL, forward_signals, &sf) != 0) {
		NL_LOG_ERROR(NULL, "Cannot start the signal thread");
		nl_clock_free(clock);
		return 1;
	}
	if (o->bootstrap_kubeconfig && (rc = tls_bootstrap(&tls, o, clock)) != 0)
		goto out;
	if ((rc = make_agent(&a, o, cfg, clock)) != 0)
		goto out;
	if (tls)
		nl_agent_tls_set_client(tls, nl_agent_client(a));
	if (o->once) {
		log_banner(a, o);
		rc = run_once(a);
	} else
		rc = run_forever(a, o, cfg);
out:
	sf.quitting = 1;
	pthread_kill(sf.thread, SIGTERM);
	pthread_join(sf.thread, NULL);
	nl_agent_free(a);
	nl_agent_tls_free(tls);
	nl_clock_free(clock);
	/* A signal ends the run with NL_ECANCELED: a clean exit. */
	return rc == 0 || rc == NL_ECANCELED ? 0 : 1;
}

int nl_agent_main(int argc, char **argv)
{
	nl_cli_options o;
	nl_nodelet_config *cfg = NULL;
	nl_err err = {0};
	int rc = nl__cli_parse(&o, argc, argv);
	if (rc != 0) {
		nl__cli_options_clear(&o);
		return rc > 0 ? 0 : 2;
	}
	if (nl__cli_config(&cfg, &o, &err) != 0) {
		NL_LOG_ERROR(err.msg, "Invalid configuration");
		nl__cli_options_clear(&o);
		return 1;
	}
	nl_log_set_verbosity(cfg->log_verbosity);
	rc = run(&o, cfg);
	nl_nodelet_config_free(cfg);
	nl__cli_options_clear(&o);
	return rc;
}
