#include <nodelet/log.h>

#include <stdarg.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static nl_log_domain default_domain = NL_LOG_DOMAIN_INIT;
static _Atomic(FILE *) output;

void nl_log_domain_set_verbosity(nl_log_domain *d, int v)
{
	atomic_store(&d->verbosity, v);
}

int nl_log_domain_get_verbosity(nl_log_domain *d)
{
	return atomic_load(&d->verbosity);
}

int nl_log_domain_enabled(nl_log_domain *d, int level)
{
	return level <= atomic_load(&d->verbosity);
}

void nl_log_set_verbosity(int v)
{
	nl_log_domain_set_verbosity(&default_domain, v);
}

int nl_log_get_verbosity(void)
{
	return nl_log_domain_get_verbosity(&default_domain);
}

int nl_log_enabled(int level)
{
	return nl_log_domain_enabled(&default_domain, level);
}

void nl_log_set_output(FILE *f)
{
	atomic_store(&output, f);
}

void nl_log_at(char sev, const char *file, int line, const char *fmt, ...)
{
	struct timeval tv;
	struct tm tm;
	char msg[2048];
	va_list ap;
	const char *base = strrchr(file, '/');
	FILE *out = atomic_load(&output);

	/* klog stamps lines with the wall clock, not an injected one: logs are
	 * read next to other processes' logs. */
	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* One fprintf per line: stdio locks the stream, so lines from several
	 * threads never interleave. */
	fprintf(out ? out : stderr, "%c%02d%02d %02d:%02d:%02d.%06ld %7d %s:%d] %s\n", sev,
	        tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (long)tv.tv_usec,
	        (int)getpid(), base ? base + 1 : file, line, msg);
}
