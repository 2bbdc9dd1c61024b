#include "log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static atomic_int verbosity;

void mock_log_set_verbosity(int v)
{
	atomic_store(&verbosity, v);
}

int mock_log_enabled(int level)
{
	return level <= atomic_load(&verbosity);
}

void mock_log_at(char sev, const char *file, int line, const char *fmt, ...)
{
	struct timeval tv;
	struct tm tm;
	char msg[2048];
	va_list ap;
	const char *base = strrchr(file, '/');

	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* One fprintf per line: stdio locks the stream, so lines from the
	 * server's threads never interleave. */
	fprintf(stderr, "%c%02d%02d %02d:%02d:%02d.%06ld %7d %s:%d] %s\n", sev, tm.tm_mon + 1,
	        tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (long)tv.tv_usec, (int)getpid(),
	        base ? base + 1 : file, line, msg);
}
