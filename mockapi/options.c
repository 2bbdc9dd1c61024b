/* The nodelet-mockapi program: flags in kube-apiserver's style, start,
 * print the URL, serve until SIGINT/SIGTERM. */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "kubeconfig_out.h"
#include "log.h"
#include "mockapi.h"

#define MAX_FIXTURES 64

static void usage(FILE *f)
{
	fprintf(f,
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
	        "      --max-request-bytes N     request body limit (default %u)\n"
	        "      --max-connections N       concurrent connection limit (default 4096)\n"
	        "      --idle-timeout SECONDS    close idle connections after (default 120)\n"
	        "      --threads N               worker threads (default 2)\n"
	        "  -v, --v N                     log verbosity (klog levels; 2 logs every "
	        "request)\n"
	        "  -h, --help                    show this help\n"
	        "      --version                 print the version\n",
	        MOCK_VERSION_MAJOR, MOCK_VERSION_MINOR, MOCK_DEFAULT_MAX_BODY);
}

static int parse_uint(const char *flag, const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (!*s || *end || errno || v > max || s[0] == '-') {
		fprintf(stderr, "nodelet-mockapi: invalid value \"%s\" for --%s\n", s, flag);
		return -1;
	}
	*out = v;
	return 0;
}

enum {
	OPT_BIND = 256,
	OPT_PORT,
	OPT_FIXTURES,
	OPT_KUBECONFIG_OUT,
	OPT_MAX_BODY,
	OPT_MAX_CONN,
	OPT_IDLE,
	OPT_THREADS,
	OPT_VERSION,
};

static const struct option long_opts[] = {
    {"bind-address", required_argument, NULL, OPT_BIND},
    {"port", required_argument, NULL, OPT_PORT},
    {"fixtures", required_argument, NULL, OPT_FIXTURES},
    {"kubeconfig-out", required_argument, NULL, OPT_KUBECONFIG_OUT},
    {"max-request-bytes", required_argument, NULL, OPT_MAX_BODY},
    {"max-connections", required_argument, NULL, OPT_MAX_CONN},
    {"idle-timeout", required_argument, NULL, OPT_IDLE},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"v", required_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

/* 0 ok, 1 exit successfully now (help/version), -1 usage error. */
static int parse_flags(int argc, char **argv, mock_options *o, const char **fixtures)
{
	unsigned long v;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "v:h", long_opts, NULL)) != -1) {
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
				fprintf(stderr, "nodelet-mockapi: at most %d --fixtures\n",
				        MAX_FIXTURES);
				return -1;
			}
			fixtures[o->nfixtures++] = optarg;
			break;
		case OPT_KUBECONFIG_OUT:
			o->kubeconfig_out = optarg;
			break;
		case OPT_MAX_BODY:
			if (parse_uint("max-request-bytes", optarg, 1UL << 30, &v) != 0)
				return -1;
			o->max_body = v;
			break;
		case OPT_MAX_CONN:
			if (parse_uint("max-connections", optarg, 1000000, &v) != 0)
				return -1;
			o->max_connections = (unsigned)v;
			break;
		case OPT_IDLE:
			if (parse_uint("idle-timeout", optarg, 86400, &v) != 0)
				return -1;
			o->idle_timeout = (unsigned)v;
			break;
		case OPT_THREADS:
			if (parse_uint("threads", optarg, 256, &v) != 0 || v == 0)
				return -1;
			o->threads = (unsigned)v;
			break;
		case 'v':
			if (parse_uint("v", optarg, 10, &v) != 0)
				return -1;
			o->verbosity = (int)v;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case OPT_VERSION:
			printf("nodelet-mockapi %s (Kubernetes %s)\n", PACKAGE_VERSION,
			       MOCK_GIT_VERSION);
			return 1;
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "nodelet-mockapi: unexpected argument \"%s\"\n", argv[optind]);
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
	mock_log_set_verbosity(o.verbosity);

	/* Block the stop signals before MHD starts its threads, so only
	 * sigwait below receives them. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (mock_server_new(&s, &o, &err) != 0 || mock_server_start(s, &err) != 0) {
		MOCK_LOG_ERROR("%s", err.msg);
		mock_server_free(s);
		return 1;
	}
	if (o.kubeconfig_out && mock_kubeconfig_write(o.kubeconfig_out, mock_server_url(s), &err)) {
		MOCK_LOG_ERROR("--kubeconfig-out: %s", err.msg);
		mock_server_free(s);
		return 1;
	}
	printf("nodelet-mockapi listening on %s\n", mock_server_url(s));
	fflush(stdout);
	MOCK_LOG_V(1, "serving Kubernetes %s API on %s", MOCK_GIT_VERSION, mock_server_url(s));
	sigwait(&sigs, &sig);
	MOCK_LOG_V(0, "received %s, shutting down", sig == SIGINT ? "SIGINT" : "SIGTERM");
	mock_server_free(s);
	return 0;
}
