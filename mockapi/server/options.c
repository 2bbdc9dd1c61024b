/* The nodelet-mockapi program: flags in kube-apiserver's style, start,
 * print the URL, serve until SIGINT/SIGTERM. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <nodelet/errors.h>
#include <nodelet/flags.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "core/log.h"
#include "kubeconfig_out.h"
#include "mockapi.h"
#include "server_internal.h"
#include "storage/persist.h"

#define MAX_FIXTURES 64

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: nodelet-mockapi [flags]\n"
	    "\n"
	    "A fake Kubernetes API server (v%s.%s) serving Namespaces, Nodes, ConfigMaps,\n"
	    "Events and Leases from an in-memory store.\n"
	    "\n"
	    "Flags:\n"
	    "      --bind-address IP         address to listen on (default 127.0.0.1)\n"
	    "      --port N                  port to listen on; 0 picks a free one (default "
	    "8080)\n"
	    "      --fixtures FILE           load objects from a YAML/JSON manifest "
	    "(repeatable)\n"
	    "      --kubeconfig-out FILE     write a kubeconfig pointing at this server\n"
	    "      --state-file FILE         keep the store in FILE (snapshot), FILE.log and\n"
	    "                                FILE.gen across restarts; default: memory only\n"
	    "      --sync-writes MODE        always (fsync before answering), batch (every\n"
	    "                                --sync-interval) or never (default batch)\n"
	    "      --sync-interval DURATION  batch mode's fsync interval (default 1s)\n"
	    "      --discard-bad-state       start from the intact part of a corrupt, missing\n"
	    "                                or mismatched state file instead of refusing\n"
	    "      --max-request-bytes N     request body limit (default %u)\n"
	    "      --max-connections N       concurrent connection limit (default 4096)\n"
	    "      --idle-timeout SECONDS    close idle connections after (default 120)\n"
	    "      --threads N               worker threads (default 2)\n"
	    "      --watch-cache-size N      changes kept per resource for watch resumes "
	    "(default 1000)\n"
	    "      --watch-bookmark-interval SECONDS\n"
	    "                                between watch BOOKMARK events (default 60)\n"
	    "      --watch-buffer-bytes N    event lines held for all watches together, each\n"
	    "                                shared line once; 429 beyond (default 1073741824;\n"
	    "                                0: no limit)\n"
	    "      --watch-backlog-bytes N   a watcher with more unsent bytes is closed, as\n"
	    "                                an unresponsive one (default 16777216; 0: no\n"
	    "                                limit)\n"
	    "      --faults FILE             inject the faults listed in a YAML/JSON file\n"
	    "      --random-seed N           seed of the fault PRNG (default: from the clock)\n"
	    "      --journal-size N          requests kept in the journal (default 100000)\n"
	    "      --disable-control-api     answer 404 under /mockapi/v1/\n"
	    "      --controllers LIST        built-in controllers: *, nodelifecycle,\n"
	    "                                garbagecollector, namespace, tainteviction,\n"
	    "                                podtermination, csrapproving, csrsigning,\n"
	    "                                -name disables (default *)\n"
	    "      --cluster-signing-cert-file FILE, --cluster-signing-key-file FILE\n"
	    "                                the CA csrsigning signs with (default: the\n"
	    "                                --generate-certs CA, or one made at start)\n"
	    "      --cluster-signing-duration DURATION\n"
	    "                                longest certificate it issues (default "
	    "8760h0m0s)\n"
	    "      --node-monitor-grace-period DURATION\n"
	    "                                lease age that makes a node Unknown (default "
	    "50s)\n"
	    "      --node-startup-grace-period DURATION\n"
	    "                                the same for nodes without a Ready condition "
	    "(default 1m0s)\n"
	    "      --node-monitor-period DURATION\n"
	    "                                between node health checks (default 5s)\n"
	    "      --tls-cert-file FILE      serve HTTPS with this certificate (PEM)\n"
	    "      --tls-private-key-file FILE\n"
	    "                                and its private key\n"
	    "      --client-ca-file FILE     authenticate client certificates signed by these "
	    "CAs\n"
	    "                                (CN = user, O = groups)\n"
	    "      --token-auth-file FILE    static bearer tokens: token,user,uid,\"group1,"
	    "group2\"\n"
	    "      --anonymous-auth[=BOOL]   requests without credentials are\n"
	    "                                system:anonymous (default true; false: 401)\n"
	    "      --authorization-mode MODE AlwaysAllow or Node (default AlwaysAllow)\n"
	    "      --control-api-group GROUP with authentication, only this group may use\n"
	    "                                /mockapi/v1/ (default system:masters)\n"
	    "      --generate-certs DIR      write a throwaway CA, serving and client "
	    "certificates\n"
	    "                                to DIR and serve HTTPS with them\n"
	    "      --generate-client-user NAME\n"
	    "                                the client certificate's user (default "
	    "kubernetes-admin)\n"
	    "      --generate-client-groups LIST\n"
	    "                                its groups, comma-separated (default "
	    "system:masters)\n"
	    "      --max-requests-inflight N non-mutating requests in flight, 429 beyond "
	    "(default 400)\n"
	    "      --max-mutating-requests-inflight N\n"
	    "                                mutating requests in flight (default 200)\n"
	    "      --max-watches N           concurrent watches, 429 beyond (default 3072)\n"
	    "      --max-header-bytes N      request line and headers, 431 beyond (default "
	    "16384)\n"
	    "      --read-header-timeout DURATION\n"
	    "                                a request head must arrive within (default 32s)\n"
	    "      --request-timeout DURATION\n"
	    "                                answer 504 after, watches excepted (default "
	    "1m0s)\n"
	    "      --shutdown-grace-period DURATION\n"
	    "                                SIGTERM waits this long for running requests\n"
	    "                                (default 10s)\n"
	    "  -v, --v N                     log verbosity (klog levels; 2 logs every "
	    "request)\n"
	    "      --logging-format FORMAT   " NL_FLAGS_LOGGING_FORMAT_HELP "\n"
	    "  -h, --help                    show this help\n"
	    "      --version                 print the version\n",
	    MOCK_VERSION_MAJOR, MOCK_VERSION_MINOR, MOCK_DEFAULT_MAX_BODY);
}

/* Every flag problem is one line and the pointer to --help. */
#define flag_error(...) nl_flags_usage_error("nodelet-mockapi", __VA_ARGS__)

static int parse_uint(const char *flag, const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (!*s || *end || errno || v > max || s[0] == '-') {
		flag_error("invalid value \"%s\" for --%s", s, flag);
		return -1;
	}
	*out = v;
	return 0;
}

/* A Go duration ("50s", "1m30s", "500ms", "0") as kube-controller-manager
 * takes them, in microseconds. */
static int parse_duration(const char *flag, const char *s, int64_t *out)
{
	static const struct {
		const char *unit;
		double usec;
	} units[] = {{"ns", 1e-3}, {"us", 1}, {"ms", 1e3}, {"s", 1e6}, {"m", 60e6}, {"h", 3600e6}};
	double total = 0;
	const char *p = s;
	if (strcmp(s, "0") == 0) {
		*out = 0;
		return 0;
	}
	while (*p) {
		char *end;
		errno = 0;
		double v = strtod(p, &end);
		size_t ulen = strspn(end, "numsh");
		size_t i = 0;
		while (i < sizeof(units) / sizeof(units[0]) &&
		       (strlen(units[i].unit) != ulen || strncmp(units[i].unit, end, ulen) != 0))
			i++;
		if (end == p || errno || v < 0 || *p == '+' || *p == '-' ||
		    i == sizeof(units) / sizeof(units[0]))
			goto bad;
		total += v * units[i].usec;
		p = end + ulen;
	}
	if (p == s || total > 1e15)
		goto bad;
	*out = (int64_t)total;
	return 0;
bad:
	flag_error("invalid value \"%s\" for --%s: want a duration such as 50s, "
	           "1m30s or 500ms",
	           s, flag);
	return -1;
}

enum {
	OPT_BIND = 256,
	OPT_LOGGING_FORMAT,
	OPT_PORT,
	OPT_FIXTURES,
	OPT_KUBECONFIG_OUT,
	OPT_MAX_BODY,
	OPT_MAX_CONN,
	OPT_IDLE,
	OPT_WATCH_CACHE,
	OPT_WATCH_BOOKMARK,
	OPT_WATCH_BUFFER,
	OPT_WATCH_BACKLOG,
	OPT_THREADS,
	OPT_VERSION,
	OPT_FAULTS,
	OPT_RANDOM_SEED,
	OPT_JOURNAL_SIZE,
	OPT_DISABLE_CONTROL,
	OPT_CONTROLLERS,
	OPT_NODE_GRACE,
	OPT_NODE_STARTUP_GRACE,
	OPT_NODE_PERIOD,
	OPT_SIGNING_CERT,
	OPT_SIGNING_KEY,
	OPT_SIGNING_DURATION,
	OPT_TLS_CERT,
	OPT_TLS_KEY,
	OPT_CLIENT_CA,
	OPT_TOKEN_FILE,
	OPT_ANONYMOUS,
	OPT_AUTHZ_MODE,
	OPT_CONTROL_GROUP,
	OPT_GENERATE_CERTS,
	OPT_GENERATE_USER,
	OPT_GENERATE_GROUPS,
	OPT_MAX_INFLIGHT,
	OPT_MAX_MUTATING,
	OPT_MAX_WATCHES,
	OPT_MAX_HEADER,
	OPT_STATE_FILE,
	OPT_SYNC_WRITES,
	OPT_SYNC_INTERVAL,
	OPT_DISCARD_BAD_STATE,
	OPT_READ_HEADER_TIMEOUT,
	OPT_REQUEST_TIMEOUT,
	OPT_SHUTDOWN_GRACE,
};

static const struct option long_opts[] = {
    {"bind-address", required_argument, NULL, OPT_BIND},
    {"state-file", required_argument, NULL, OPT_STATE_FILE},
    {"sync-writes", required_argument, NULL, OPT_SYNC_WRITES},
    {"sync-interval", required_argument, NULL, OPT_SYNC_INTERVAL},
    {"discard-bad-state", no_argument, NULL, OPT_DISCARD_BAD_STATE},
    {"port", required_argument, NULL, OPT_PORT},
    {"fixtures", required_argument, NULL, OPT_FIXTURES},
    {"kubeconfig-out", required_argument, NULL, OPT_KUBECONFIG_OUT},
    {"max-request-bytes", required_argument, NULL, OPT_MAX_BODY},
    {"max-connections", required_argument, NULL, OPT_MAX_CONN},
    {"idle-timeout", required_argument, NULL, OPT_IDLE},
    {"watch-cache-size", required_argument, NULL, OPT_WATCH_CACHE},
    {"watch-bookmark-interval", required_argument, NULL, OPT_WATCH_BOOKMARK},
    {"watch-buffer-bytes", required_argument, NULL, OPT_WATCH_BUFFER},
    {"watch-backlog-bytes", required_argument, NULL, OPT_WATCH_BACKLOG},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"v", required_argument, NULL, 'v'},
    {"logging-format", required_argument, NULL, OPT_LOGGING_FORMAT},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {"faults", required_argument, NULL, OPT_FAULTS},
    {"random-seed", required_argument, NULL, OPT_RANDOM_SEED},
    {"journal-size", required_argument, NULL, OPT_JOURNAL_SIZE},
    {"disable-control-api", no_argument, NULL, OPT_DISABLE_CONTROL},
    {"controllers", required_argument, NULL, OPT_CONTROLLERS},
    {"cluster-signing-cert-file", required_argument, NULL, OPT_SIGNING_CERT},
    {"cluster-signing-key-file", required_argument, NULL, OPT_SIGNING_KEY},
    {"cluster-signing-duration", required_argument, NULL, OPT_SIGNING_DURATION},
    {"node-monitor-grace-period", required_argument, NULL, OPT_NODE_GRACE},
    {"node-startup-grace-period", required_argument, NULL, OPT_NODE_STARTUP_GRACE},
    {"node-monitor-period", required_argument, NULL, OPT_NODE_PERIOD},
    {"tls-cert-file", required_argument, NULL, OPT_TLS_CERT},
    {"tls-private-key-file", required_argument, NULL, OPT_TLS_KEY},
    {"client-ca-file", required_argument, NULL, OPT_CLIENT_CA},
    {"token-auth-file", required_argument, NULL, OPT_TOKEN_FILE},
    {"anonymous-auth", optional_argument, NULL, OPT_ANONYMOUS},
    {"authorization-mode", required_argument, NULL, OPT_AUTHZ_MODE},
    {"control-api-group", required_argument, NULL, OPT_CONTROL_GROUP},
    {"generate-certs", required_argument, NULL, OPT_GENERATE_CERTS},
    {"generate-client-user", required_argument, NULL, OPT_GENERATE_USER},
    {"generate-client-groups", required_argument, NULL, OPT_GENERATE_GROUPS},
    {"max-requests-inflight", required_argument, NULL, OPT_MAX_INFLIGHT},
    {"max-mutating-requests-inflight", required_argument, NULL, OPT_MAX_MUTATING},
    {"max-watches", required_argument, NULL, OPT_MAX_WATCHES},
    {"max-header-bytes", required_argument, NULL, OPT_MAX_HEADER},
    {"read-header-timeout", required_argument, NULL, OPT_READ_HEADER_TIMEOUT},
    {"request-timeout", required_argument, NULL, OPT_REQUEST_TIMEOUT},
    {"shutdown-grace-period", required_argument, NULL, OPT_SHUTDOWN_GRACE},
    {NULL, 0, NULL, 0},
};

/* The flags of the control API and the controllers (docs/control-api.md). */
static int control_flag(int c, const char *arg, mock_options *o)
{
	unsigned long v;
	switch (c) {
	case OPT_FAULTS:
		o->faults_file = arg;
		return 0;
	case OPT_RANDOM_SEED:
		if (parse_uint("random-seed", arg, (unsigned long)INT64_MAX, &v) != 0)
			return -1;
		o->random_seed = v;
		o->random_seed_set = 1;
		return 0;
	case OPT_JOURNAL_SIZE:
		if (parse_uint("journal-size", arg, 100000000, &v) != 0)
			return -1;
		o->journal_size = v;
		return 0;
	case OPT_DISABLE_CONTROL:
		o->disable_control_api = 1;
		return 0;
	case OPT_CONTROLLERS:
		o->controllers = arg;
		return 0;
	case OPT_NODE_GRACE:
		return parse_duration("node-monitor-grace-period", arg,
		                      &o->node_monitor_grace_usec);
	case OPT_NODE_STARTUP_GRACE:
		return parse_duration("node-startup-grace-period", arg,
		                      &o->node_startup_grace_usec);
	case OPT_SIGNING_CERT:
		o->cluster_signing_cert_file = arg;
		return 0;
	case OPT_SIGNING_KEY:
		o->cluster_signing_key_file = arg;
		return 0;
	case OPT_SIGNING_DURATION:
		return parse_duration("cluster-signing-duration", arg,
		                      &o->cluster_signing_duration_usec);
	default:
		return parse_duration("node-monitor-period", arg, &o->node_monitor_period_usec);
	}
}

/* A Go bool flag's value: 1, 0, t, f, true, false in the usual cases. */
static int parse_bool(const char *flag, const char *s, int *out)
{
	static const char *const yes[] = {"1", "t", "T", "true", "TRUE", "True", NULL};
	static const char *const no[] = {"0", "f", "F", "false", "FALSE", "False", NULL};
	for (size_t i = 0; yes[i]; i++) {
		if (strcmp(s, yes[i]) == 0 || strcmp(s, no[i]) == 0) {
			*out = strcmp(s, yes[i]) == 0;
			return 0;
		}
	}
	flag_error("invalid value \"%s\" for --%s: want true or false", s, flag);
	return -1;
}

static int parse_limit(const char *flag, const char *arg, unsigned *out)
{
	unsigned long v;
	if (parse_uint(flag, arg, 10000000, &v) != 0)
		return -1;
	*out = (unsigned)v;
	return 0;
}

/* TLS, authentication, authorization and limits (docs/mockapi.md). */
static int access_flag(int c, const char *arg, mock_options *o)
{
	unsigned long v;
	switch (c) {
	case OPT_TLS_CERT:
		o->tls_cert_file = arg;
		return 0;
	case OPT_TLS_KEY:
		o->tls_private_key_file = arg;
		return 0;
	case OPT_CLIENT_CA:
		o->client_ca_file = arg;
		return 0;
	case OPT_TOKEN_FILE:
		o->token_auth_file = arg;
		return 0;
	case OPT_ANONYMOUS:
		return arg ? parse_bool("anonymous-auth", arg, &o->anonymous_auth)
		           : (o->anonymous_auth = 1, 0);
	case OPT_AUTHZ_MODE:
		o->authorization_mode = arg;
		return 0;
	case OPT_CONTROL_GROUP:
		o->control_api_group = arg;
		return 0;
	case OPT_GENERATE_CERTS:
		o->generate_certs_dir = arg;
		return 0;
	case OPT_GENERATE_USER:
		o->generate_client_user = arg;
		return 0;
	case OPT_GENERATE_GROUPS:
		o->generate_client_groups = arg;
		return 0;
	case OPT_MAX_INFLIGHT:
		return parse_limit("max-requests-inflight", arg, &o->max_requests_inflight);
	case OPT_MAX_MUTATING:
		return parse_limit("max-mutating-requests-inflight", arg,
		                   &o->max_mutating_requests_inflight);
	case OPT_MAX_WATCHES:
		return parse_limit("max-watches", arg, &o->max_watches);
	default:
		/* MHD needs room for its own buffers beyond the head. */
		if (parse_uint("max-header-bytes", arg, 64ul * 1024 * 1024, &v) != 0 || v < 4096) {
			flag_error("--max-header-bytes must be at least 4096");
			return -1;
		}
		o->max_header_bytes = v;
		return 0;
	}
}

/* The durable store (persist.h). */
static int state_flag(int c, const char *arg, mock_options *o)
{
	mock_sync_mode mode;
	int64_t usec = 0;
	switch (c) {
	case OPT_STATE_FILE:
		if (!*arg) {
			flag_error("--state-file needs a path");
			return -1;
		}
		o->state_file = arg;
		return 0;
	case OPT_SYNC_WRITES:
		if (mock_sync_mode_parse(arg, &mode) != 0) {
			flag_error("invalid value \"%s\" for --sync-writes: want "
			           "always, batch or never",
			           arg);
			return -1;
		}
		o->sync_writes = (int)mode;
		return 0;
	case OPT_SYNC_INTERVAL:
		if (parse_duration("sync-interval", arg, &usec) != 0)
			return -1;
		if (usec < 1000 || usec > 3600 * 1000000LL) {
			flag_error("--sync-interval must be between 1ms and 1h");
			return -1;
		}
		o->sync_interval_ms = (unsigned)(usec / 1000);
		return 0;
	default:
		o->discard_bad_state = 1;
		return 0;
	}
}

/* The HTTP deadlines, Go durations up to a day (0 turns one off). */
static int timeout_flag(int c, const char *arg, mock_options *o)
{
	static const char *const names[] = {"read-header-timeout", "request-timeout",
	                                    "shutdown-grace-period"};
	unsigned *fields[] = {&o->read_header_timeout_ms, &o->request_timeout_ms,
	                      &o->shutdown_grace_ms};
	int i = c - OPT_READ_HEADER_TIMEOUT;
	int64_t usec = 0;
	if (parse_duration(names[i], arg, &usec) != 0)
		return -1;
	if (usec > 86400 * 1000000LL || (usec > 0 && usec < 1000)) {
		flag_error("--%s must be 0 or between 1ms and 24h", names[i]);
		return -1;
	}
	*fields[i] = (unsigned)(usec / 1000);
	return 0;
}

/* 0 ok, 1 exit successfully now (help/version), -1 usage error. */
static int parse_flags(int argc, char **argv, mock_options *o, const char **fixtures)
{
	unsigned long v;
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":v:h", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_BIND:
			o->bind_address = optarg;
			break;
		case OPT_PORT:
			if (parse_uint("port", optarg, 65535, &v) != 0)
				return -1;
			o->port = (int)v;
			break;
		case OPT_FIXTURES:
			if (o->nfixtures == MAX_FIXTURES) {
				flag_error("at most %d --fixtures", MAX_FIXTURES);
				return -1;
			}
			fixtures[o->nfixtures++] = optarg;
			break;
		case OPT_KUBECONFIG_OUT:
			o->kubeconfig_out = optarg;
			break;
		case OPT_STATE_FILE:
		case OPT_SYNC_WRITES:
		case OPT_SYNC_INTERVAL:
		case OPT_DISCARD_BAD_STATE:
			if (state_flag(c, optarg, o) != 0)
				return -1;
			break;
		case OPT_MAX_BODY:
			if (parse_uint("max-request-bytes", optarg, 1UL << 30, &v) != 0)
				return -1;
			o->max_body = v;
			break;
		case OPT_READ_HEADER_TIMEOUT:
		case OPT_REQUEST_TIMEOUT:
		case OPT_SHUTDOWN_GRACE:
			if (timeout_flag(c, optarg, o) != 0)
				return -1;
			break;
		case OPT_MAX_CONN:
			if (parse_uint("max-connections", optarg, 1000000, &v) != 0)
				return -1;
			o->max_connections = (unsigned)v;
			break;
		case OPT_WATCH_CACHE:
			if (parse_uint("watch-cache-size", optarg, 10000000, &v) != 0 || v == 0)
				return -1;
			o->watch_cache_size = v;
			break;
		case OPT_WATCH_BOOKMARK:
			if (parse_uint("watch-bookmark-interval", optarg, 86400, &v) != 0 || v == 0)
				return -1;
			o->watch_bookmark_interval = (unsigned)v;
			break;
		case OPT_WATCH_BUFFER:
			if (parse_uint("watch-buffer-bytes", optarg, 1UL << 40, &v) != 0)
				return -1;
			o->watch_buffer_bytes = v;
			break;
		case OPT_WATCH_BACKLOG:
			if (parse_uint("watch-backlog-bytes", optarg, 1UL << 40, &v) != 0)
				return -1;
			o->watch_backlog_bytes = v;
			break;
		case OPT_IDLE:
			if (parse_uint("idle-timeout", optarg, 86400, &v) != 0)
				return -1;
			o->idle_timeout = (unsigned)v;
			break;
		case OPT_FAULTS:
		case OPT_RANDOM_SEED:
		case OPT_JOURNAL_SIZE:
		case OPT_DISABLE_CONTROL:
		case OPT_CONTROLLERS:
		case OPT_NODE_GRACE:
		case OPT_NODE_STARTUP_GRACE:
		case OPT_NODE_PERIOD:
		case OPT_SIGNING_CERT:
		case OPT_SIGNING_KEY:
		case OPT_SIGNING_DURATION:
			if (control_flag(c, optarg, o) != 0)
				return -1;
			break;
		case OPT_TLS_CERT:
		case OPT_TLS_KEY:
		case OPT_CLIENT_CA:
		case OPT_TOKEN_FILE:
		case OPT_ANONYMOUS:
		case OPT_AUTHZ_MODE:
		case OPT_CONTROL_GROUP:
		case OPT_GENERATE_CERTS:
		case OPT_GENERATE_USER:
		case OPT_GENERATE_GROUPS:
		case OPT_MAX_INFLIGHT:
		case OPT_MAX_MUTATING:
		case OPT_MAX_WATCHES:
		case OPT_MAX_HEADER:
			if (access_flag(c, optarg, o) != 0)
				return -1;
			break;
		case OPT_THREADS:
			if (parse_uint("threads", optarg, 256, &v) != 0 || v == 0)
				return -1;
			o->threads = (unsigned)v;
			break;
		case 'v':
			if (nl_flags_parse_verbosity("nodelet-mockapi", optarg, 10,
			                             &o->verbosity) != 0)
				return -1;
			break;
		case OPT_LOGGING_FORMAT:
			if (nl_flags_parse_logging_format("nodelet-mockapi", optarg) != 0)
				return -1;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case OPT_VERSION:
			printf("nodelet-mockapi %s (Kubernetes %s)\n", PACKAGE_VERSION,
			       MOCK_GIT_VERSION);
			return 1;
		case '?':
		case ':':
			return nl_flags_getopt_error("nodelet-mockapi", c, argv, optind, optopt);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		flag_error("unexpected argument \"%s\"", argv[optind]);
		return -1;
	}
	o->fixtures = fixtures;
	return 0;
}

int mock_main(int argc, char **argv)
{
	mock_options o;
	const char *fixtures[MAX_FIXTURES];
	mock_server *s = NULL;
	nl_err err = {0};
	sigset_t sigs;
	int sig = 0;

	mock_options_init(&o);
	int rc = parse_flags(argc, argv, &o, fixtures);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	nl_log_domain_set_verbosity(&mock_log_domain, o.verbosity);

	/* Block the stop signals before MHD starts its threads, so only
	 * sigwait below receives them. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (mock_server_new(&s, &o, &err) != 0 || mock_server_start(s, &err) != 0) {
		/* component-base's cli.Run for an error after logging is set up */
		MOCK_LOG_ERROR(err.msg, "command failed");
		mock_server_free(s);
		return 1;
	}
	if (o.kubeconfig_out && mock_server_write_kubeconfig(s, o.kubeconfig_out, &err)) {
		char why[sizeof(err.msg) + 32];
		snprintf(why, sizeof(why), "--kubeconfig-out: %s", err.msg);
		MOCK_LOG_ERROR(why, "command failed");
		mock_server_free(s);
		return 1;
	}
	printf("nodelet-mockapi listening on %s\n", mock_server_url(s));
	fflush(stdout);
	MOCK_LOG_V(1, "Serving the Kubernetes API", NL_KV_STR("version", MOCK_GIT_VERSION),
	           NL_KV_STR("url", mock_server_url(s)));
	sigwait(&sigs, &sig);
	MOCK_LOG_V(0, "Received signal, shutting down",
	           NL_KV_STR("signal", sig == SIGINT ? "SIGINT" : "SIGTERM"));
	/* Bounded: requests get --shutdown-grace-period, then their
	 * connections are cut. A handler that still runs may hold the store,
	 * so the final snapshot gets as long again, and the process exits
	 * without freeing what the handler uses. A stop that is not clean is
	 * not a success either: a supervisor should know the next start skips
	 * ahead. */
	mock_server_stop(s);
	int busy = mock_server_handlers_running(s);
	rc = mock_server_close_state(s, busy ? o.shutdown_grace_ms : UINT_MAX);
	if (rc == NL_ETIMEOUT) {
		MOCK_LOG_ERROR("a request still holds the store (the log has every acknowledged "
		               "write)",
		               "Exiting without the final snapshot");
		return 1;
	}
	if (!busy)
		mock_server_free(s);
	if (rc != 0)
		MOCK_LOG_ERROR("the state file was not closed cleanly", "Exiting with status 1");
	return rc != 0 ? 1 : 0;
}
