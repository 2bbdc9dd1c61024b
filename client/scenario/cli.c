/* nodelet-scenario's flags (cli.h). */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <nodelet/flags.h>
#include <nodelet/log.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "report.h"
#include "suite.h"

#ifndef NL_FIXTURES_DIR
#define NL_FIXTURES_DIR "fixtures"
#endif

static const char usage[] =
    "Usage: nodelet-scenario [options] FILE|DIR...\n"
    "\n"
    "Run fixture scenarios (docs/scenarios.md) and print TAP. Each scenario runs\n"
    "against a fresh embedded nodelet-mockapi on virtual time, unless:\n"
    "  --server URL          a running nodelet-mockapi (faults via its control API;\n"
    "                        scenarios run one at a time, the server is reset first)\n"
    "  --kubeconfig FILE     any cluster, on real time; scenarios that need faults,\n"
    "                        the journal or virtual time are skipped with the reason;\n"
    "                        every object a scenario created is deleted afterwards\n"
    "  --context NAME        the kubeconfig context (default: current-context)\n"
    "\n"
    "  -j, --jobs N          run N scenarios at once (default 1; 0 runs them in this\n"
    "                        process, without timeouts: for debuggers)\n"
    "  --filter PATTERN      only scenarios whose name, file or a tag matches the\n"
    "                        shell pattern (repeatable)\n"
    "  --junit FILE          also write JUnit XML\n"
    "  --html FILE           also write the report page: a timeline per scenario\n"
    "                        of every request, fault, lease renewal and Node\n"
    "                        condition, failures marked with their diff\n"
    "  --journal-dir DIR     write each scenario's requests to DIR/NAME.journal\n"
    "  --fixtures-dir DIR    where include: manifests are (default $NL_FIXTURES_DIR,\n"
    "                        else the source tree's fixtures/)\n"
    "  --check               only parse the files and report errors\n"
    "  --list                list the scenarios with their tags and requirements\n"
    "  -v, --v N             log level of the agent and the embedded server\n"
    "  --logging-format FORMAT\n"
    "                        " NL_FLAGS_LOGGING_FORMAT_HELP "\n"
    "  -h, --help, --version\n"
    "\n"
    "Exit status: 0 when no scenario failed, 1 otherwise (a report or journal\n"
    "that could not be written included), 2 on a usage error.\n";

typedef struct {
	nl_scn_suite_options so;
	char **filters;
	size_t nfilters;
	const char *junit;
	const char *html;
	const char *fixtures_dir;
	int check, list;
	char **paths;
	size_t npaths;
} options;

enum {
	OPT_SERVER = 256,
	OPT_KUBECONFIG,
	OPT_CONTEXT,
	OPT_FILTER,
	OPT_JUNIT,
	OPT_HTML,
	OPT_JOURNAL_DIR,
	OPT_FIXTURES_DIR,
	OPT_CHECK,
	OPT_LIST,
	OPT_LOGGING_FORMAT,
	OPT_VERSION,
};

#define bad_usage(...) nl_flags_usage_error("nodelet-scenario", __VA_ARGS__)

static int check_outputs(const options *o);

static int parse_number(unsigned *out, const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < 0 || v > 1024)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static int parse_args(options *o, int argc, char **argv)
{
	static const struct option longs[] = {
	    {"server", required_argument, NULL, OPT_SERVER},
	    {"kubeconfig", required_argument, NULL, OPT_KUBECONFIG},
	    {"context", required_argument, NULL, OPT_CONTEXT},
	    {"jobs", required_argument, NULL, 'j'},
	    {"filter", required_argument, NULL, OPT_FILTER},
	    {"junit", required_argument, NULL, OPT_JUNIT},
	    {"html", required_argument, NULL, OPT_HTML},
	    {"journal-dir", required_argument, NULL, OPT_JOURNAL_DIR},
	    {"fixtures-dir", required_argument, NULL, OPT_FIXTURES_DIR},
	    {"check", no_argument, NULL, OPT_CHECK},
	    {"list", no_argument, NULL, OPT_LIST},
	    {"logging-format", required_argument, NULL, OPT_LOGGING_FORMAT},
	    {"v", required_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, OPT_VERSION},
	    {NULL, 0, NULL, 0},
	};
	int v, c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":j:v:h", longs, NULL)) != -1) {
		switch (c) {
		case OPT_SERVER:
			o->so.run.target.kind = NL_TARGET_SERVER;
			o->so.run.target.server_url = optarg;
			break;
		case OPT_KUBECONFIG:
			o->so.run.target.kind = NL_TARGET_CLUSTER;
			o->so.run.target.kubeconfig = optarg;
			break;
		case OPT_CONTEXT:
			o->so.run.target.context = optarg;
			break;
		case 'j':
			if (parse_number(&o->so.jobs, optarg) != 0)
				return bad_usage("-j: expected a number of jobs, got \"%s\"",
				                 optarg);
			break;
		case OPT_FILTER:
			o->filters[o->nfilters++] = optarg;
			break;
		case OPT_JUNIT:
			o->junit = optarg;
			break;
		case OPT_HTML:
			o->html = optarg;
			o->so.run.timeline = 1;
			break;
		case OPT_JOURNAL_DIR:
			o->so.journal_dir = optarg;
			break;
		case OPT_FIXTURES_DIR:
			o->fixtures_dir = optarg;
			break;
		case OPT_CHECK:
			o->check = 1;
			break;
		case OPT_LIST:
			o->list = 1;
			break;
		case OPT_LOGGING_FORMAT:
			if (nl_flags_parse_logging_format("nodelet-scenario", optarg) != 0)
				return -1;
			break;
		case 'v':
			if (nl_flags_parse_verbosity("nodelet-scenario", optarg, 10, &v) != 0)
				return -1;
			o->so.run.target.verbosity = v;
			nl_log_set_verbosity(v);
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		case OPT_VERSION:
			printf("nodelet-scenario %s\n", PACKAGE_VERSION);
			return 1;
		default:
			return nl_flags_getopt_error("nodelet-scenario", c, argv, optind, optopt);
		}
	}
	if (o->so.run.target.kubeconfig && o->so.run.target.server_url)
		return bad_usage("%s", "--server and --kubeconfig exclude each other");
	if (o->so.run.target.context && !o->so.run.target.kubeconfig)
		return bad_usage("%s", "--context needs --kubeconfig");
	/* One server, one journal: its scenarios must not overlap. */
	if (o->so.run.target.kind == NL_TARGET_SERVER && o->so.jobs > 1)
		o->so.jobs = 1;
	o->paths = argv + optind;
	o->npaths = (size_t)(argc - optind);
	if (o->npaths == 0)
		return bad_usage("%s", "no scenario FILE or DIR given");
	return check_outputs(o);
}

/* Outputs are checked before anything runs, so a CI job that would lose
 * its report or journals fails at once instead of after the suite. */
static int check_writable(const char *flag, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return bad_usage("%s %s: %s", flag, path, strerror(errno));
	close(fd);
	return 0;
}

static int check_outputs(const options *o)
{
	struct stat st;
	const char *dir = o->so.journal_dir;
	if (o->junit && check_writable("--junit", o->junit) != 0)
		return -1;
	if (o->html && check_writable("--html", o->html) != 0)
		return -1;
	if (dir && stat(dir, &st) != 0)
		return bad_usage("--journal-dir %s: %s", dir, strerror(errno));
	if (dir && !S_ISDIR(st.st_mode))
		return bad_usage("--journal-dir %s: %s", dir, strerror(ENOTDIR));
	if (dir && access(dir, W_OK) != 0)
		return bad_usage("--journal-dir %s: %s", dir, strerror(errno));
	return 0;
}

/* A run that selects nothing is a mistake in the command, not a pass. */
static int check_selected(const options *o, const nl_scn_suite *s)
{
	if (s->n > 0)
		return 0;
	if (o->nfilters > 0)
		return bad_usage("no scenario matches --filter %s", o->filters[0]);
	return bad_usage("no scenario found in %s", o->paths[0]);
}

typedef struct {
	nl_scn_report_counts counts;
	nl_scn_target_kind target;
} tap_state;

static void print_item(const nl_scn_suite_item *it, size_t index, void *payload)
{
	tap_state *t = payload;
	nl_scn_report_tap_item(stdout, it, index + 1, t->target, &t->counts);
}

static int list_suite(const nl_scn_suite *s)
{
	for (size_t i = 0; i < s->n; i++) {
		const nl_scn_suite_item *it = &s->items[i];
		if (!it->sc) {
			printf("%s\tPARSE ERROR\n", it->file);
			continue;
		}
		printf("%s\t%s\ttags:", it->name, it->file);
		for (size_t t = 0; t < it->sc->ntags; t++)
			printf("%s%s", t ? "," : "", it->sc->tags[t]);
		printf("\trequires:");
		int first = 1;
		for (unsigned bit = 1; bit <= NL_REQ_ALL; bit <<= 1)
			if (it->sc->requires & bit) {
				printf("%s%s", first ? "" : ",", nl_scn_req_name(bit));
				first = 0;
			}
		printf("\n");
	}
	return 0;
}

static int check_suite(const nl_scn_suite *s)
{
	int bad = 0;
	for (size_t i = 0; i < s->n; i++)
		if (!s->items[i].sc) {
			fprintf(stderr, "%s\n", s->items[i].result.message);
			bad = 1;
		}
	if (!bad)
		printf("%zu scenario%s parsed\n", s->n, s->n == 1 ? "" : "s");
	return bad;
}

int nl_scn_main(int argc, char **argv)
{
	options o;
	nl_scn_suite s;
	nl_err err = {0};
	tap_state tap = {0};
	memset(&o, 0, sizeof(o));
	o.so.jobs = 1;
	o.so.run.target.kind = NL_TARGET_EMBEDDED;
	if (!(o.filters = calloc((size_t)argc + 1, sizeof(char *))))
		return 1;
	int rc = parse_args(&o, argc, argv);
	if (rc != 0) {
		free(o.filters);
		return rc > 0 ? 0 : 2;
	}
	if (!o.fixtures_dir)
		o.fixtures_dir =
		    getenv("NL_FIXTURES_DIR") ? getenv("NL_FIXTURES_DIR") : NL_FIXTURES_DIR;
	if (nl_scn_suite_load(&s, o.paths, o.npaths, o.fixtures_dir, &err) != 0) {
		fprintf(stderr, "nodelet-scenario: %s\n", err.msg);
		free(o.filters);
		return 2;
	}
	nl_scn_suite_filter(&s, o.filters, o.nfilters);
	if (check_selected(&o, &s) != 0) {
		rc = 2;
	} else if (o.list || o.check) {
		rc = o.list ? list_suite(&s) : check_suite(&s);
	} else {
		nl_scn_report_tap_plan(stdout, s.n);
		tap.target = o.so.run.target.kind;
		if (nl_scn_suite_run(&s, &o.so, print_item, &tap) != 0)
			fprintf(stderr, "nodelet-scenario: cannot run the scenarios\n");
		nl_scn_report_summary(stdout, &tap.counts);
		rc = tap.counts.failed > 0 || tap.counts.passed + tap.counts.skipped != s.n ||
		     s.journal_errors > 0;
		if (o.junit && nl_scn_report_junit(o.junit, &s, o.so.run.target.kind, &err) != 0) {
			fprintf(stderr, "nodelet-scenario: --junit %s\n", err.msg);
			rc = 1;
		}
		if (o.html && nl_scn_report_html(o.html, &s, &err) != 0) {
			fprintf(stderr, "nodelet-scenario: --html %s\n", err.msg);
			rc = 1;
		}
	}
	nl_scn_suite_free(&s);
	free(o.filters);
	return rc;
}
