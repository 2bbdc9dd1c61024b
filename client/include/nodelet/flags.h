/* Command-line habits the three programs share, so a user meets one
 * spelling of each problem: pflag's error texts for getopt_long's
 * failures, a one-line usage error with a pointer to --help, and klog's
 * verbosity flag in every spelling (-v N, -v=N, --v N, --v=N).
 *
 * All functions write to stderr only; none allocate. */
#ifndef NODELET_FLAGS_H
#define NODELET_FLAGS_H

/* Prints "PROG: MESSAGE" and "Run 'PROG --help' for usage." to stderr.
 * Returns -1, so a parser can `return nl_flags_usage_error(...)`. */
int nl_flags_usage_error(const char *prog, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Reports what getopt_long returned '?' or ':' for, in pflag's words
 * ("unknown flag: --x", "unknown shorthand flag: 'x' in -x",
 * "flag needs an argument: --x"). Call it with opterr = 0 and an
 * optstring that starts with ':', passing getopt's c, argv, optind and
 * optopt. Returns -1. */
int nl_flags_getopt_error(const char *prog, int c, char *const argv[], int optind, int optopt);

/* Parses a -v value: "N", or "=N" as getopt hands over -v=N. Sets *out
 * to N (0..max) and returns 0; otherwise reports
 * "invalid value \"ARG\" for -v" as a usage error and returns -1. */
int nl_flags_parse_verbosity(const char *prog, const char *arg, int max, int *out);

/* --logging-format's help line, component-base's wording. */
#define NL_FLAGS_LOGGING_FORMAT_HELP \
	"Sets the log format. Permitted formats: \"json\", \"text\". (default \"text\")"

/* Parses --logging-format ("text" or "json") and sets the process's log
 * format (nodelet/log.h). Otherwise reports component-base's validation
 * error, `format: Invalid value: "xml": Unsupported log format`, as a
 * usage error and returns -1. */
int nl_flags_parse_logging_format(const char *prog, const char *arg);

#endif
