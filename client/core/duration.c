/* Go's time.Duration.String (duration.h). */
#include <nodelet/duration.h>

#include <stdio.h>

/* value/unit with the remainder as a decimal fraction without trailing
 * zeros, then suffix: (1600000, 1000000, "s") -> "1.6s". */
static void fraction(char *out, size_t n, uint64_t value, uint64_t unit, const char *suffix)
{
	uint64_t whole = value / unit, rem = value % unit;
	if (rem == 0) {
		snprintf(out, n, "%llu%s", (unsigned long long)whole, suffix);
		return;
	}
	/* Units are 1000 or 1000000: at most six fraction digits. */
	char frac[8];
	size_t len = 0;
	for (uint64_t u = unit / 10; u > 0 && len < sizeof(frac) - 1; u /= 10)
		frac[len++] = (char)('0' + rem / u % 10);
	while (len > 0 && frac[len - 1] == '0')
		len--;
	frac[len] = '\0';
	snprintf(out, n, "%llu.%s%s", (unsigned long long)whole, frac, suffix);
}

void nl_duration_format(char out[NL_DURATION_BUFSZ], int64_t usec)
{
	const uint64_t sec = (uint64_t)NL_USEC_PER_SEC, min = 60 * sec, hour = 60 * min;
	/* Negate in unsigned arithmetic: INT64_MIN has no positive int64. */
	uint64_t u = usec < 0 ? 0 - (uint64_t)usec : (uint64_t)usec;
	char *p = out;
	size_t n = NL_DURATION_BUFSZ;

	if (usec < 0) {
		*p++ = '-';
		n--;
	}
	if (u == 0) {
		snprintf(out, NL_DURATION_BUFSZ, "0s");
	} else if (u < (uint64_t)NL_USEC_PER_MSEC) {
		snprintf(p, n, "%llu\xc2\xb5s", (unsigned long long)u); /* U+00B5 as Go prints */
	} else if (u < sec) {
		fraction(p, n, u, (uint64_t)NL_USEC_PER_MSEC, "ms");
	} else {
		int w = 0;
		if (u >= hour)
			w = snprintf(p, n, "%lluh", (unsigned long long)(u / hour));
		if (u >= min)
			w += snprintf(p + w, n - (size_t)w, "%llum",
			              (unsigned long long)(u % hour / min));
		fraction(p + w, n - (size_t)w, u % min, sec, "s");
	}
}
