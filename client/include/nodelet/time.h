/* Kubernetes time formats.
 *
 * metav1.Time is RFC 3339 in UTC with second precision
 * ("2024-05-01T10:00:00Z"); metav1.MicroTime has exactly six fractional
 * digits ("2024-05-01T10:00:00.123456Z"). Times are int64 microseconds since
 * the Unix epoch throughout nodelet. */
#ifndef NODELET_TIME_H
#define NODELET_TIME_H

#include <stddef.h>
#include <stdint.h>

#define NL_TIME_BUFSZ 40

/* Format usec (truncated to seconds) as metav1.Time into out. */
void nl_time_format(char out[NL_TIME_BUFSZ], int64_t usec);
/* Format usec as metav1.MicroTime into out. */
void nl_time_format_micro(char out[NL_TIME_BUFSZ], int64_t usec);

/* Parse an RFC 3339 time (any fractional precision, 'Z' or +hh:mm offset),
 * as Go's time.RFC3339 parser accepts for metav1.Time. NL_EPARSE on error. */
int nl_time_parse(int64_t *out, const char *s);
/* Parse a metav1.MicroTime: RFC 3339 with exactly six fractional digits.
 * Anything else is NL_EPARSE, as the apiserver's decoder refuses it. */
int nl_time_parse_micro(int64_t *out, const char *s);

/* Wall clock now, in microseconds since the epoch. */
int64_t nl_time_now(void);

#endif
