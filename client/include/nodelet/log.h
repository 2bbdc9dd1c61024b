/* klog-style logging shared by the agent and the mock:
 * "I1129 16:06:46.123456   12345 file.c:42] message".
 *
 * Severity 'I', 'W' or 'E'. Errors and warnings are always printed; info at
 * level 0 always, at level N only when the verbosity (-v) is at least N, as
 * klog.V(N).Infof. Lines go to stderr unless nl_log_set_output says otherwise.
 * Safe to call from several threads: each line is one stdio call.
 *
 * Verbosity belongs to a domain. The plain calls use the default domain
 * (the agent's -v); a program part that has its own -v in the same process
 * (the mock embedded in nodelet-scenario) keeps its own nl_log_domain, so
 * that one -v does not turn on the other's lines. */
#ifndef NODELET_LOG_H
#define NODELET_LOG_H

#include <stdatomic.h>
#include <stdio.h>

/* A verbosity of its own; define one statically with NL_LOG_DOMAIN_INIT. */
typedef struct {
	atomic_int verbosity;
} nl_log_domain;

/* clang-format off */
#define NL_LOG_DOMAIN_INIT {0}
/* clang-format on */

void nl_log_domain_set_verbosity(nl_log_domain *d, int v);
int nl_log_domain_get_verbosity(nl_log_domain *d);
int nl_log_domain_enabled(nl_log_domain *d, int level);

/* The default domain's verbosity. */
void nl_log_set_verbosity(int v);
int nl_log_get_verbosity(void);
int nl_log_enabled(int level);
/* Send lines to f (borrowed; the caller keeps it open while logging), or back
 * to stderr with NULL. Meant for tests and for a program's startup. */
void nl_log_set_output(FILE *f);
/* Print one line with the caller's file (base name) and line. */
void nl_log_at(char sev, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Info at level, when domain d's verbosity allows it. */
#define NL_LOG_DV(d, level, ...)                                         \
	do {                                                             \
		if (nl_log_domain_enabled((d), (level)))                 \
			nl_log_at('I', __FILE__, __LINE__, __VA_ARGS__); \
	} while (0)
#define NL_LOG_V(level, ...)                                             \
	do {                                                             \
		if (nl_log_enabled(level))                               \
			nl_log_at('I', __FILE__, __LINE__, __VA_ARGS__); \
	} while (0)
#define NL_LOG_INFO(...) NL_LOG_V(0, __VA_ARGS__)
#define NL_LOG_WARN(...) nl_log_at('W', __FILE__, __LINE__, __VA_ARGS__)
#define NL_LOG_ERROR(...) nl_log_at('E', __FILE__, __LINE__, __VA_ARGS__)

#endif
