/* klog's structured logging, shared by the agent and the mock, in the two
 * formats the Kubernetes components write (--logging-format):
 *
 *   text  I1129 16:06:46.123456   12345 file.c:42] "Attempting to register node" node="edge-1"
 *   json  {"ts":1732896406123.456,"caller":"agent/file.c:42","msg":"Attempting to register
 * node","v":0,"node":"edge-1"}
 *
 * A line is a constant message and key/value pairs, as klog.InfoS and
 * klog.ErrorS take them: NL_LOG_INFO("Updated node status", NL_KV_STR("node",
 * name)). Values are never formatted into the message. The text form
 * quotes the message and string values as Go's %q (a value with line
 * breaks as klog's key=<…> block), numbers and booleans bare; an error's
 * err="…" follows the message. The JSON form is component-base's zapr
 * encoder: ts (epoch milliseconds), caller (dir/file:line), msg, then "v"
 * and the pairs for info and warning lines, or the pairs then "err" for
 * errors (which have no "v").
 *
 * Severity 'I', 'W' or 'E'. Errors and warnings are always printed; info at
 * level 0 always, at level N only when the verbosity (-v) is at least N, as
 * klog.V(N).InfoS. Lines go to stderr unless nl_log_set_output says
 * otherwise. Safe to call from several threads: each line is one stdio
 * call.
 *
 * Verbosity belongs to a domain. The plain calls use the default domain
 * (the agent's -v); a program part that has its own -v in the same process
 * (the mock embedded in nodelet-scenario) keeps its own nl_log_domain, so
 * that one -v does not turn on the other's lines. The format is one for
 * the whole process. */
#ifndef NODELET_LOG_H
#define NODELET_LOG_H

#include <stdatomic.h>
#include <stddef.h>
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

/* --logging-format: "text" (klog's, the default) or "json". */
typedef enum { NL_LOG_FORMAT_TEXT, NL_LOG_FORMAT_JSON } nl_log_format;
void nl_log_set_format(nl_log_format f);
nl_log_format nl_log_get_format(void);
/* The format named name, exactly as component-base spells it; -1 (and *out
 * untouched) for any other name. */
int nl_log_format_parse(nl_log_format *out, const char *name);
/* The error component-base gives for an unknown name, into out[cap]:
 * `format: Invalid value: "xml": Unsupported log format`. */
void nl_log_format_error(char *out, size_t cap, const char *name);

/* One key/value pair. Build them with the NL_KV_* macros below, which
 * expand to initializers for the logging macros' pair list. */
typedef enum { NL_KV_T_STR, NL_KV_T_INT, NL_KV_T_UINT, NL_KV_T_BOOL, NL_KV_T_REF } nl_log_kv_type;
typedef struct {
	const char *key;
	nl_log_kv_type type;
	const char *s;  /* NL_KV_T_STR, the name of NL_KV_T_REF; NULL is "" */
	const char *ns; /* NL_KV_T_REF: the namespace, NULL or "" for none */
	long long i;    /* NL_KV_T_INT, NL_KV_T_BOOL */
	unsigned long long u;
} nl_log_kv;

/* clang-format off */
#define NL_KV_STR(k, v) {.key = (k), .type = NL_KV_T_STR, .s = (v)}
#define NL_KV_INT(k, v) {.key = (k), .type = NL_KV_T_INT, .i = (long long)(v)}
#define NL_KV_UINT(k, v) {.key = (k), .type = NL_KV_T_UINT, .u = (unsigned long long)(v)}
#define NL_KV_BOOL(k, v) {.key = (k), .type = NL_KV_T_BOOL, .i = !!(v)}
/* klog.KObj / klog.KRef: "ns/name" (or "name") in text, {"name":…,
 * "namespace":…} in JSON. */
#define NL_KV_REF(k, n, name) {.key = (k), .type = NL_KV_T_REF, .s = (name), .ns = (n)}
/* clang-format on */

/* Print one line: severity sev, info level v, the caller's file and line,
 * the error text err (NULL: none; errors only), the message and n pairs. */
void nl_log_s(char sev, int v, const char *file, int line, const char *err, const char *msg,
              const nl_log_kv *kv, size_t n);

/* The pairs of a logging macro as an array and its length. The leading
 * empty element lets the list be empty; sizeof does not evaluate it. */
#define NL__KVS(...) ((const nl_log_kv[]){{0}, __VA_ARGS__})
#define NL__KVN(...) (sizeof(NL__KVS(__VA_ARGS__)) / sizeof(nl_log_kv) - 1)
#define NL__LOG(sev, level, err, msg, ...)                                                   \
	nl_log_s((sev), (level), __FILE__, __LINE__, (err), (msg), NL__KVS(__VA_ARGS__) + 1, \
	         NL__KVN(__VA_ARGS__))

/* Info at level, when domain d's verbosity allows it. */
#define NL_LOG_DV(d, level, msg, ...)                                  \
	do {                                                           \
		if (nl_log_domain_enabled((d), (level)))               \
			NL__LOG('I', (level), NULL, msg, __VA_ARGS__); \
	} while (0)
#define NL_LOG_V(level, msg, ...)                                      \
	do {                                                           \
		if (nl_log_enabled(level))                             \
			NL__LOG('I', (level), NULL, msg, __VA_ARGS__); \
	} while (0)
#define NL_LOG_INFO(msg, ...) NL_LOG_V(0, msg, __VA_ARGS__)
#define NL_LOG_WARN(msg, ...) NL__LOG('W', 0, NULL, msg, __VA_ARGS__)
/* klog.ErrorS(err, msg, pairs...): err is the error's text, or NULL. */
#define NL_LOG_ERROR(err, msg, ...) NL__LOG('E', 0, (err), msg, __VA_ARGS__)

#endif
