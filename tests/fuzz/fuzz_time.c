/* The time parsers (nodelet/time.h): the input, as one C string, through
 * nl_time_parse and nl_time_parse_micro. What MicroTime accepts, RFC 3339
 * accepts with the same instant; what parses formats to text that parses
 * back to the same instant (to the second for metav1.Time). */
#include <nodelet/errors.h>
#include <nodelet/time.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

/* 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z: an offset can
 * carry a parsed time out of the four-digit years, which no RFC 3339 text
 * in UTC can then write (Go's Format neither). */
#define YEAR_0_USEC (-62167219200LL * 1000000)
#define YEAR_10000_USEC (253402300800LL * 1000000)

static void check_round_trip(int64_t usec)
{
	char buf[NL_TIME_BUFSZ];
	int64_t back = 0;
	nl_time_format_micro(buf, usec);
	FUZZ_CHECK(memchr(buf, '\0', sizeof(buf)) != NULL);
	nl_time_format(buf, usec);
	FUZZ_CHECK(memchr(buf, '\0', sizeof(buf)) != NULL);
	if (usec < YEAR_0_USEC || usec >= YEAR_10000_USEC)
		return;
	nl_time_format_micro(buf, usec);
	FUZZ_CHECK(nl_time_parse_micro(&back, buf) == 0);
	FUZZ_CHECK(back == usec);
	nl_time_format(buf, usec);
	FUZZ_CHECK(nl_time_parse(&back, buf) == 0);
	/* Truncated to the second, towards the past. */
	FUZZ_CHECK(back <= usec && usec - back < 1000000);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_strndup(data, size);
	int64_t t = 42, m = 42;
	int rc = nl_time_parse(&t, s);
	int rcm = nl_time_parse_micro(&m, s);
	FUZZ_CHECK(rc == 0 || rc == NL_EPARSE);
	FUZZ_CHECK(rcm == 0 || rcm == NL_EPARSE);
	if (rc != 0)
		FUZZ_CHECK(t == 42);
	if (rcm != 0)
		FUZZ_CHECK(m == 42);
	if (rcm == 0) {
		FUZZ_CHECK(rc == 0 && t == m);
		check_round_trip(m);
	}
	if (rc == 0)
		check_round_trip(t);
	free(s);
	return 0;
}
