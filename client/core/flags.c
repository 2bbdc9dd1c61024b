/* Shared flag-error habits (nodelet/flags.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodelet/flags.h"
#include "nodelet/log.h"

int nl_flags_usage_error(const char *prog, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nRun '%s --help' for usage.\n", prog);
	return -1;
}

/* getopt leaves the offending word at argv[optind - 1], except for a
 * short flag in a cluster ("-xZ"), where optind has not moved on yet. */
static const char *offending_word(char *const argv[], int optind)
{
	const char *w = optind > 0 ? argv[optind - 1] : NULL;
	if (w && w[0] == '-')
		return w;
	return argv[optind] ? argv[optind] : "";
}

int nl_flags_getopt_error(const char *prog, int c, char *const argv[], int optind, int optopt)
{
	const char *w = offending_word(argv, optind);
	int is_long = strncmp(w, "--", 2) == 0;
	if (c == ':') {
		if (is_long)
			return nl_flags_usage_error(prog, "flag needs an argument: %s", w);
		return nl_flags_usage_error(prog, "flag needs an argument: '%c' in %s", optopt, w);
	}
	if (is_long || optopt == 0) {
		/* "--name=value": pflag names only the flag. */
		size_t n = strcspn(w, "=");
		return nl_flags_usage_error(prog, "unknown flag: %.*s", (int)n, w);
	}
	return nl_flags_usage_error(prog, "unknown shorthand flag: '%c' in %s", optopt, w);
}

int nl_flags_parse_verbosity(const char *prog, const char *arg, int max, int *out)
{
	const char *s = arg[0] == '=' ? arg + 1 : arg;
	char *end;
	long v;
	if (*s < '0' || *s > '9')
		return nl_flags_usage_error(prog, "invalid value \"%s\" for -v", arg);
	v = strtol(s, &end, 10);
	if (*end || v > max)
		return nl_flags_usage_error(prog, "invalid value \"%s\" for -v", arg);
	*out = (int)v;
	return 0;
}

int nl_flags_parse_logging_format(const char *prog, const char *arg)
{
	nl_log_format f;
	if (nl_log_format_parse(&f, arg) != 0) {
		char why[512];
		nl_log_format_error(why, sizeof(why), arg);
		return nl_flags_usage_error(prog, "%s", why);
	}
	nl_log_set_format(f);
	return 0;
}
