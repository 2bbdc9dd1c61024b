#include <nodelet/errors.h>
#include <nodelet/time.h>

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#define USEC_PER_SEC INT64_C(1000000)
#define SEC_PER_DAY INT64_C(86400)

/* Division rounding toward negative infinity: times before the epoch must
 * land on the earlier second and day, as Go's time.Time does. */
static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static bool is_leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in_month(int64_t y, int m)
{
	static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	return m == 2 && is_leap(y) ? 29 : days[m - 1];
}

/* Proleptic Gregorian calendar <-> days since 1970-01-01, after Howard
 * Hinnant's "chrono-compatible low-level date algorithms": exact for every
 * year without timegm or the process time zone. */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = floor_div(y, 400);
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
	z += 719468;
	int64_t era = floor_div(z, 146097);
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

static int format_fields(char out[NL_TIME_BUFSZ], int64_t usec, int *frac)
{
	int64_t secs = floor_div(usec, USEC_PER_SEC);
	int64_t days = floor_div(secs, SEC_PER_DAY);
	int64_t sod = secs - days * SEC_PER_DAY;
	int64_t y;
	int m, d;
	*frac = (int)(usec - secs * USEC_PER_SEC);
	civil_from_days(days, &y, &m, &d);
	return snprintf(out, NL_TIME_BUFSZ, "%04lld-%02d-%02dT%02d:%02d:%02d", (long long)y, m, d,
	                (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60));
}

void nl_time_format(char out[NL_TIME_BUFSZ], int64_t usec)
{
	int frac;
	int n = format_fields(out, usec, &frac);
	snprintf(out + n, (size_t)(NL_TIME_BUFSZ - n), "Z");
}

void nl_time_format_micro(char out[NL_TIME_BUFSZ], int64_t usec)
{
	int frac;
	int n = format_fields(out, usec, &frac);
	snprintf(out + n, (size_t)(NL_TIME_BUFSZ - n), ".%06dZ", frac);
}

/* Exactly n ASCII digits at *p; advances *p. */
static bool take_digits(const char **p, int n, int *out)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		char c = (*p)[i];
		if (c < '0' || c > '9')
			return false;
		v = v * 10 + (c - '0');
	}
	*p += n;
	*out = v;
	return true;
}

static bool take_char(const char **p, char c)
{
	if (**p != c)
		return false;
	(*p)++;
	return true;
}

/* Fraction after '.' or ',' (Go accepts both). want_digits 0 means any
 * non-zero count; digits past microseconds are truncated like Go truncates
 * past nanoseconds. */
static bool take_fraction(const char **p, int want_digits, int64_t *usec)
{
	int n = 0;
	int64_t v = 0;
	if (**p != '.' && **p != ',')
		return want_digits == 0;
	(*p)++;
	while (**p >= '0' && **p <= '9') {
		if (n < 6)
			v = v * 10 + (**p - '0');
		n++;
		(*p)++;
	}
	if (n == 0 || (want_digits && n != want_digits))
		return false;
	for (int i = n; i < 6; i++)
		v *= 10;
	*usec = v;
	return true;
}

/* 'Z' or ±hh:mm with RFC 3339's ranges (hour 00-23, minute 00-59). */
static bool take_offset(const char **p, int64_t *offset_sec)
{
	int hh, mm;
	char sign = **p;
	if (take_char(p, 'Z')) {
		*offset_sec = 0;
		return true;
	}
	if (sign != '+' && sign != '-')
		return false;
	(*p)++;
	if (!take_digits(p, 2, &hh) || !take_char(p, ':') || !take_digits(p, 2, &mm))
		return false;
	if (hh > 23 || mm > 59)
		return false;
	*offset_sec = (sign == '-' ? -1 : 1) * (int64_t)(hh * 3600 + mm * 60);
	return true;
}

static int parse_rfc3339(int64_t *out, const char *s, int frac_digits)
{
	int y, mo, d, h, mi, se;
	int64_t usec = 0, offset = 0;
	const char *p = s;
	if (!s)
		return NL_EPARSE;
	if (!take_digits(&p, 4, &y) || !take_char(&p, '-') || !take_digits(&p, 2, &mo) ||
	    !take_char(&p, '-') || !take_digits(&p, 2, &d) || !take_char(&p, 'T') ||
	    !take_digits(&p, 2, &h) || !take_char(&p, ':') || !take_digits(&p, 2, &mi) ||
	    !take_char(&p, ':') || !take_digits(&p, 2, &se))
		return NL_EPARSE;
	if (!take_fraction(&p, frac_digits, &usec) || !take_offset(&p, &offset) || *p != '\0')
		return NL_EPARSE;
	if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || se > 59)
		return NL_EPARSE;
	int64_t secs = days_from_civil(y, mo, d) * SEC_PER_DAY + h * 3600 + mi * 60 + se - offset;
	*out = secs * USEC_PER_SEC + usec;
	return 0;
}

int nl_time_parse(int64_t *out, const char *s)
{
	return parse_rfc3339(out, s, 0);
}

int nl_time_parse_micro(int64_t *out, const char *s)
{
	return parse_rfc3339(out, s, 6);
}

int64_t nl_time_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * USEC_PER_SEC + ts.tv_nsec / 1000;
}
