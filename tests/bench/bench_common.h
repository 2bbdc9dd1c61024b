/* Shared by the benchmark helpers (tests/bench/run.sh drives them): clocks,
 * percentiles, /proc memory figures and a small blocking HTTP client on
 * libcurl. Figures are printed as "key=value" lines so the script can pick
 * them up without parsing prose. */
#ifndef NL_BENCH_COMMON_H
#define NL_BENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Monotonic time in nanoseconds. */
int64_t bench_now_ns(void);

/* The p-th percentile (0..100) of v[0..n), nearest-rank; sorts v in place.
 * 0 when n is 0. */
double bench_percentile(double *v, size_t n, double p);

/* A field of /proc/PID/status in KiB ("VmRSS", "RssAnon", "VmHWM"), or -1
 * when the process or the field does not exist. */
long bench_proc_kib(pid_t pid, const char *field);

/* Print a message to stderr and exit 1: a benchmark that cannot run has
 * failed outright. */
void bench_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* A keep-alive HTTP/1.1 connection (one libcurl easy handle). */
typedef struct bench_http bench_http;

typedef struct {
	long code;
	char *body; /* NUL-terminated, owned by the connection, valid until the next request */
	size_t len;
} bench_resp;

/* base: "http://127.0.0.1:PORT". NULL when libcurl cannot be set up. */
bench_http *bench_http_new(const char *base);
void bench_http_free(bench_http *h);
/* One request; body may be NULL. 0, or -1 on a transport failure. */
int bench_http_do(bench_resp *out, bench_http *h, const char *method, const char *path,
                  const char *body, size_t body_len);

#endif
