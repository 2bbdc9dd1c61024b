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

#include "buf.h"

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

/* Append to b the text of the error Go's time.Parse gives for s, with
 * metav1.Time's layout time.RFC3339 ("2006-01-02T15:04:05Z07:00") or, when
 * micro, metav1.MicroTime's ("2006-01-02T15:04:05.000000Z07:00"):
 *   parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"
 *   parsing time "2024-13-01T00:00:00Z": month out of range
 *   parsing time "2024-05-01T10:00:00Zjunk": extra text: "junk"
 * quoted the way the time package quotes (bytes outside printable ASCII as
 * \xNN). For an s that nl_time_parse refuses but Go would accept, a plain
 * `parsing time "s": not an RFC 3339 time`. 0, or NL_ENOMEM. */
int nl_time_parse_error(nl_buf *b, const char *s, int micro);

/* Wall clock now, in microseconds since the epoch. */
int64_t nl_time_now(void);

#endif
