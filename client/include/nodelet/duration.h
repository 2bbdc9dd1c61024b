/* Go's time.Duration as text: what the config file's metav1.Duration
 * fields hold and what the agent's and the scenario runner's messages
 * print. Microseconds throughout, as nl_clock. */
#ifndef NODELET_DURATION_H
#define NODELET_DURATION_H

#include <stdint.h>

#define NL_USEC_PER_MSEC INT64_C(1000)
#define NL_USEC_PER_SEC INT64_C(1000000)

#define NL_DURATION_BUFSZ 64
/* Format as Go's time.Duration.String ("1.6s", "2m0s", "150ms", "0s"). */
void nl_duration_format(char out[NL_DURATION_BUFSZ], int64_t usec);

/* Parse a Go time.Duration string ("5m", "1h30m", "1.5s", "300ms", "-2s",
 * "0") into microseconds (sub-microsecond parts truncated). NL_EPARSE for
 * anything time.ParseDuration refuses; NL_ETOOBIG on overflow. */
int nl_duration_parse(int64_t *out, const char *s);

#endif
