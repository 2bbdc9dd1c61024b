/* Shared soak helpers (soak_common.h). */
#include "soak_common.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* --- the command line ------------------------------------------------------------------------ */

static int parse_number(double *out, const char *s)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || v < 0)
		return -1;
	*out = v;
	return 0;
}

static int parse_u64(uint64_t *out, const char *s)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-')
		return -1;
	*out = v;
	return 0;
}

static int parse_extra(const soak_int_opt *o, const char *s)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < o->min || v > o->max)
		return -1;
	*o->value = v;
	return 0;
}

static void print_usage(FILE *f, const soak_args *a, double dflt, const soak_int_opt *extra,
                        size_t nextra, const char *usage)
{
	fprintf(f, "usage: %s [--seconds S] [--seed N] [-v N]", a->program);
	for (size_t i = 0; i < nextra; i++)
		fprintf(f, " [--%s N]", extra[i].name);
	fprintf(f,
	        "\n%s\n  --seconds S  real-time budget (default %g, or $NL_SOAK_SECONDS)\n"
	        "  --seed N     seed of every random choice (default: from the time)\n"
	        "  -v N         log the agent and the server at level N (default: quiet)\n",
	        usage, dflt);
	for (size_t i = 0; i < nextra; i++)
		fprintf(f, "  --%-11s %s (%ld..%ld, default %ld)\n", extra[i].name, extra[i].help,
		        extra[i].min, extra[i].max, *extra[i].value);
}

static const soak_int_opt *find_extra(const char *name, const soak_int_opt *extra, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(name, extra[i].name) == 0)
			return &extra[i];
	return NULL;
}

static int one_option(soak_args *a, const char *opt, const char *val, const soak_int_opt *extra,
                      size_t nextra)
{
	const soak_int_opt *x;
	if (strcmp(opt, "--seconds") == 0)
		return parse_number(&a->seconds, val);
	if (strcmp(opt, "--seed") == 0)
		return parse_u64(&a->seed, val);
	if (strcmp(opt, "-v") == 0) {
		double v;
		if (parse_number(&v, val) != 0 || v > 10)
			return -1;
		a->verbosity = (int)v;
		return 0;
	}
	if (strncmp(opt, "--", 2) == 0 && (x = find_extra(opt + 2, extra, nextra)))
		return parse_extra(x, val);
	return -1;
}

int soak_parse_args(soak_args *out, int argc, char **argv, double default_seconds,
                    const soak_int_opt *extra, size_t nextra, const char *usage)
{
	soak_args a = {0};
	const char *env = getenv("NL_SOAK_SECONDS");
	const char *slash = strrchr(argv[0], '/');
	a.program = slash ? slash + 1 : argv[0];
	a.seconds = default_seconds;
	a.verbosity = -1;
	if (env && *env && parse_number(&a.seconds, env) != 0) {
		fprintf(stderr, "%s: NL_SOAK_SECONDS: not a number of seconds: %s\n", a.program,
		        env);
		return 2;
	}
	int seeded = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			print_usage(stdout, &a, default_seconds, extra, nextra, usage);
			return 1;
		}
		if (i + 1 >= argc || one_option(&a, argv[i], argv[i + 1], extra, nextra) != 0) {
			fprintf(stderr, "%s: bad option or value: %s%s%s\n", a.program, argv[i],
			        i + 1 < argc ? " " : "", i + 1 < argc ? argv[i + 1] : "");
			print_usage(stderr, &a, default_seconds, extra, nextra, usage);
			return 2;
		}
		seeded |= strcmp(argv[i], "--seed") == 0;
		i++;
	}
	if (!seeded) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		nl_rand r;
		nl_rand_seed(&r, ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) ^
		                     ((uint64_t)getpid() << 32));
		/* Small enough to type again. */
		a.seed = nl_rand_next(&r) % 1000000000u;
	}
	*out = a;
	return 0;
}

/* --- randomness and time --------------------------------------------------------------------- */

int64_t soak_rand_range(nl_rand *r, int64_t lo, int64_t hi)
{
	if (hi <= lo)
		return lo;
	return lo + (int64_t)(nl_rand_next(r) % (uint64_t)(hi - lo + 1));
}

int soak_rand_chance(nl_rand *r, double p)
{
	return nl_rand_float(r) < p;
}

double soak_real_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* --- memory ---------------------------------------------------------------------------------- */

size_t soak_heap_bytes(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
#else
	return 0;
#endif
}

void soak_format_bytes(char *out, size_t outlen, size_t bytes)
{
	if (bytes >= 1024 * 1024)
		snprintf(out, outlen, "%.2f MiB", (double)bytes / (1024.0 * 1024.0));
	else
		snprintf(out, outlen, "%.1f KiB", (double)bytes / 1024.0);
}

/* --- watchdog -------------------------------------------------------------------------------- */

static struct {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int running;
	double limit;
	double last_kick;
	char where[256];
} dog = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static void *watchdog_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&dog.mu);
	while (dog.running) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&dog.cv, &dog.mu, &ts);
		if (dog.running && soak_real_now() - dog.last_kick > dog.limit) {
			fprintf(stderr,
			        "FAIL: no progress for %.0f s of real time (a hang, or a busy loop "
			        "that never returns to the driver) at %s\n",
			        dog.limit, dog.where);
			fflush(stderr);
			_exit(1);
		}
	}
	pthread_mutex_unlock(&dog.mu);
	return NULL;
}

int soak_watchdog_start(double limit_seconds)
{
	dog.limit = limit_seconds;
	dog.last_kick = soak_real_now();
	dog.running = 1;
	if (pthread_create(&dog.thread, NULL, watchdog_main, NULL) != 0) {
		dog.running = 0;
		return NL_ERROR;
	}
	return 0;
}

void soak_watchdog_kick(void)
{
	pthread_mutex_lock(&dog.mu);
	dog.last_kick = soak_real_now();
	pthread_mutex_unlock(&dog.mu);
}

void soak_watchdog_where(const char *fmt, ...)
{
	va_list ap;
	pthread_mutex_lock(&dog.mu);
	va_start(ap, fmt);
	vsnprintf(dog.where, sizeof(dog.where), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&dog.mu);
}

void soak_watchdog_stop(void)
{
	pthread_mutex_lock(&dog.mu);
	int was = dog.running;
	dog.running = 0;
	pthread_cond_signal(&dog.cv);
	pthread_mutex_unlock(&dog.mu);
	if (was)
		pthread_join(dog.thread, NULL);
}

/* --- failures -------------------------------------------------------------------------------- */

static pthread_mutex_t fail_mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned nfailures;

unsigned soak_fail(const char *fmt, ...)
{
	va_list ap;
	pthread_mutex_lock(&fail_mu);
	unsigned n = ++nfailures;
	/* The first few say what went wrong; thousands more would bury it. */
	if (n <= 20) {
		fputs("FAIL: ", stderr);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
		fflush(stderr);
	}
	pthread_mutex_unlock(&fail_mu);
	return n;
}

unsigned soak_failures(void)
{
	pthread_mutex_lock(&fail_mu);
	unsigned n = nfailures;
	pthread_mutex_unlock(&fail_mu);
	return n;
}
