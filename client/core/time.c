#include <nodelet/errors.h>
#include <nodelet/time.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
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

/* ------------------------------------------------ Go's time parse errors
 *
 * The text of the *time.ParseError that time.Parse returns (format.go's
 * parse and ParseError.Error): the layout is walked chunk by chunk as Go
 * walks it, so the element it stops at, and the words, are Go's. */

enum tchunk { T_YEAR, T_MONTH, T_DAY, T_HOUR, T_MINUTE, T_SECOND, T_FRAC6, T_TZ, T_END };

struct time_chunk {
	const char *prefix;
	enum tchunk std;
	const char *stdstr;
};

static const struct time_chunk rfc3339_chunks[] = {
    {"", T_YEAR, "2006"},  {"-", T_MONTH, "01"},  {"-", T_DAY, "02"},   {"T", T_HOUR, "15"},
    {":", T_MINUTE, "04"}, {":", T_SECOND, "05"}, {"", T_TZ, "Z07:00"}, {"", T_END, ""},
};

static const struct time_chunk micro_chunks[] = {
    {"", T_YEAR, "2006"},     {"-", T_MONTH, "01"},  {"-", T_DAY, "02"},
    {"T", T_HOUR, "15"},      {":", T_MINUTE, "04"}, {":", T_SECOND, "05"},
    {"", T_FRAC6, ".000000"}, {"", T_TZ, "Z07:00"},  {"", T_END, ""},
};

/* time's own quote() (src/time/format.go), not strconv.Quote: every byte
 * of a non-ASCII rune and every byte below ' ' as \xNN, '"' and '\\'
 * backslashed, the rest (DEL too) as is. */
static void time_quote(nl_buf *b, const char *s)
{
	nl_buf_adds(b, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p >= 0x80 || *p < ' ')
			nl_buf_printf(b, "\\x%02x", *p);
		else if (*p == '"' || *p == '\\')
			nl_buf_printf(b, "\\%c", *p);
		else
			nl_buf_add(b, p, 1);
	}
	nl_buf_adds(b, "\"");
}

static bool is_digit_at(const char *s, size_t i)
{
	return strlen(s) > i && s[i] >= '0' && s[i] <= '9';
}

/* time.getnum: one or two digits (exactly two when fixed). */
static bool getnum(const char **s, bool fixed, int *out)
{
	if (!is_digit_at(*s, 0))
		return false;
	if (!is_digit_at(*s, 1)) {
		if (fixed)
			return false;
		*out = (*s)[0] - '0';
		*s += 1;
		return true;
	}
	*out = ((*s)[0] - '0') * 10 + ((*s)[1] - '0');
	*s += 2;
	return true;
}

/* time.atoi over exactly n bytes: optional sign, then only digits. */
static bool atoi_n(const char *s, size_t n, long *out)
{
	size_t i = 0;
	long v = 0;
	bool neg = false;
	if (n && (s[0] == '-' || s[0] == '+')) {
		neg = s[0] == '-';
		i++;
	}
	if (i == n)
		return false;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || v > 100000000000L)
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = neg ? -v : v;
	return true;
}

/* Walk time.Parse's layout loop to find where value fails, and write the
 * ParseError text into b. false when the walk finds nothing wrong. */
static bool time_explain(nl_buf *b, const char *value, bool micro)
{
	const struct time_chunk *ch = micro ? micro_chunks : rfc3339_chunks;
	const char *layout =
	    micro ? "2006-01-02T15:04:05.000000Z07:00" : "2006-01-02T15:04:05Z07:00";
	const char *v = value, *hold = NULL, *bad_as = NULL, *range = NULL;
	long year = 0, l;
	int month = 1, day = 1, n;

	for (;; ch++) {
		for (const char *p = ch->prefix; *p; p++, v++) {
			if (*v != *p) {
				hold = v;
				bad_as = ch->prefix;
				goto cannot;
			}
		}
		if (ch->std == T_END) {
			if (*v) {
				nl_buf_adds(b, "parsing time ");
				time_quote(b, value);
				nl_buf_adds(b, ": extra text: ");
				time_quote(b, v);
				return true;
			}
			break;
		}
		hold = v;
		bad_as = ch->stdstr;
		switch (ch->std) {
		case T_YEAR:
			if (strlen(v) < 4 || !is_digit_at(v, 0) || !atoi_n(v, 4, &year))
				goto cannot;
			v += 4;
			break;
		case T_MONTH:
			if (!getnum(&v, true, &month))
				goto cannot;
			if (month < 1 || month > 12)
				range = "month";
			break;
		case T_DAY:
			if (!getnum(&v, true, &day))
				goto cannot;
			break;
		case T_HOUR:
			if (!getnum(&v, false, &n))
				goto cannot;
			if (n >= 24)
				range = "hour";
			break;
		case T_MINUTE:
			if (!getnum(&v, true, &n))
				goto cannot;
			if (n >= 60)
				range = "minute";
			break;
		case T_SECOND:
			if (!getnum(&v, true, &n))
				goto cannot;
			if (n >= 60) {
				range = "second";
				break;
			}
			/* A fraction the layout does not ask for is still accepted. */
			if ((v[0] == '.' || v[0] == ',') && is_digit_at(v, 1) &&
			    ch[1].std != T_FRAC6) {
				size_t k = 2;
				while (is_digit_at(v, k))
					k++;
				v += k;
			}
			break;
		case T_FRAC6:
			if (strlen(v) < 7 || (v[0] != '.' && v[0] != ',') || !atoi_n(v + 1, 6, &l))
				goto cannot;
			if (l < 0)
				range = "fractional second";
			v += 7;
			break;
		case T_TZ: {
			int hh, mm;
			if (v[0] == 'Z') {
				v++;
				break;
			}
			if (strlen(v) < 6 || v[3] != ':')
				goto cannot;
			char hbuf[3] = {v[1], v[2], 0}, mbuf[3] = {v[4], v[5], 0};
			const char *hp = hbuf, *mp = mbuf;
			if (!getnum(&hp, true, &hh) || !getnum(&mp, true, &mm))
				goto cannot;
			if (hh > 24)
				range = "time zone offset hour";
			if (mm > 60)
				range = "time zone offset minute";
			if (!range && v[0] != '+' && v[0] != '-')
				goto cannot;
			v += 6;
			break;
		}
		case T_END:
			break;
		}
		if (range) {
			nl_buf_adds(b, "parsing time ");
			time_quote(b, value);
			nl_buf_printf(b, ": %s out of range", range);
			return true;
		}
	}
	if (day < 1 || day > days_in_month(year, month)) {
		nl_buf_adds(b, "parsing time ");
		time_quote(b, value);
		nl_buf_adds(b, ": day out of range");
		return true;
	}
	return false;

cannot:
	nl_buf_adds(b, "parsing time ");
	time_quote(b, value);
	nl_buf_adds(b, " as ");
	time_quote(b, layout);
	nl_buf_adds(b, ": cannot parse ");
	time_quote(b, hold);
	nl_buf_adds(b, " as ");
	time_quote(b, bad_as);
	return true;
}

int nl_time_parse_error(nl_buf *b, const char *s, int micro)
{
	size_t mark = b->len;
	s = s ? s : "";
	if (!time_explain(b, s, micro != 0)) {
		/* nl_time_parse refused what Go's parser takes (a one-digit hour,
		 * an offset of 24:00): say so plainly. */
		nl_buf_adds(b, "parsing time ");
		time_quote(b, s);
		nl_buf_adds(b, micro ? ": not a metav1.MicroTime" : ": not an RFC 3339 time");
	}
	return b->data && b->len > mark ? 0 : NL_ENOMEM;
}

int64_t nl_time_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * USEC_PER_SEC + ts.tv_nsec / 1000;
}
