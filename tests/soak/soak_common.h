/* Shared by the soak programs (docs/soak.md): the command line, a seeded
 * PRNG, real time, heap figures, a watchdog and the closing summary. A
 * soak is bounded by a real-time budget; everything random is drawn from
 * one seed that the program prints, so a failure can be run again. */
#ifndef NL_SOAK_COMMON_H
#define NL_SOAK_COMMON_H

#include <nodelet/clock.h>
#include <stddef.h>
#include <stdint.h>

/* A program-specific integer option: --name N. */
typedef struct {
	const char *name; /* without the dashes */
	long *value;
	long min, max;
	const char *help;
} soak_int_opt;

typedef struct {
	const char *program;
	double seconds; /* real-time budget */
	uint64_t seed;
	int verbosity;
} soak_args;

/* Parse --seconds S, --seed N, -v N, --help and the extra options. The
 * budget defaults to default_seconds, or to $NL_SOAK_SECONDS when set (the
 * valgrind runner gives a smaller one); the seed to one from the time.
 * Returns 0 to run, 1 after --help, 2 on a usage error (printed). */
int soak_parse_args(soak_args *out, int argc, char **argv, double default_seconds,
                    const soak_int_opt *extra, size_t nextra, const char *usage);

/* Uniform integer in [lo, hi]. */
int64_t soak_rand_range(nl_rand *r, int64_t lo, int64_t hi);
/* 1 with probability p. */
int soak_rand_chance(nl_rand *r, double p);

/* Monotonic real time in seconds. */
double soak_real_now(void);

/* Bytes the C heap has handed out (mallinfo2: arenas + mmapped chunks), or
 * 0 when the allocator cannot say (a sanitizer's or valgrind's). */
size_t soak_heap_bytes(void);
/* "1.5 MiB", "312 KiB". */
void soak_format_bytes(char *out, size_t outlen, size_t bytes);

/* A thread that fails the program (message on stderr, exit 1) when
 * soak_watchdog_kick has not been called for limit_seconds of real time:
 * a hang or a busy loop that never lets the driver come back. what is
 * printed with the message (borrowed; set it with soak_watchdog_where). */
int soak_watchdog_start(double limit_seconds);
void soak_watchdog_kick(void);
/* Where the driver is, for the watchdog's message (copied). */
void soak_watchdog_where(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void soak_watchdog_stop(void);

/* Record a property violation: printed at once with the seed; the program
 * exits 1 at the end. Returns the number recorded so far. */
unsigned soak_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
unsigned soak_failures(void);

#endif
