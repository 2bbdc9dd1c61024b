/* Go's time.ParseDuration, for metav1.Duration fields of the config file
 * ("5m", "1h30m", "1.5s"). Computed in nanoseconds with Go's overflow limit,
 * then truncated to microseconds. */
#include <nodelet/duration.h>
#include <nodelet/errors.h>

#include <stdint.h>
#include <string.h>

static const struct {
	const char *name;
	uint64_t ns;
} units[] = {
    {"ns", 1},
    {"us", 1000},
    {"\xc2\xb5s", 1000}, /* U+00B5 micro sign */
    {"\xce\xbcs", 1000}, /* U+03BC Greek mu */
    {"ms", 1000000},
    {"s", UINT64_C(1000000000)},
    {"m", UINT64_C(60000000000)},
    {"h", UINT64_C(3600000000000)},
};

#define MAX_NS (UINT64_C(1) << 63) /* |min int64|; the positive limit is one less */

/* Leading decimal digits into *v (NL_ETOOBIG past 2^63); *n digits read. */
static int leading_int(uint64_t *v, size_t *n, const char *s)
{
	uint64_t x = 0;
	size_t i = 0;
	for (; s[i] >= '0' && s[i] <= '9'; i++) {
		if (x > (MAX_NS - (uint64_t)(s[i] - '0')) / 10)
			return NL_ETOOBIG;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	*n = i;
	return 0;
}

/* Fraction digits as f / scale, dropping digits past what 64 bits hold. */
static void leading_fraction(uint64_t *f, double *scale, size_t *n, const char *s)
{
	uint64_t x = 0;
	double sc = 1;
	size_t i = 0;
	int overflow = 0;
	for (; s[i] >= '0' && s[i] <= '9'; i++) {
		if (overflow || x > (UINT64_MAX / 2 - 9) / 10) {
			overflow = 1;
			continue;
		}
		x = x * 10 + (uint64_t)(s[i] - '0');
		sc *= 10;
	}
	*f = x;
	*scale = sc;
	*n = i;
}

static int unit_of(uint64_t *ns, size_t *n, const char *s)
{
	size_t len = 0;
	while (s[len] && s[len] != '.' && (s[len] < '0' || s[len] > '9'))
		len++;
	if (len == 0)
		return NL_EPARSE; /* missing unit */
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strlen(units[i].name) == len && strncmp(s, units[i].name, len) == 0) {
			*ns = units[i].ns;
			*n = len;
			return 0;
		}
	return NL_EPARSE; /* unknown unit */
}

/* One "<number><unit>" term added to *total. */
static int parse_term(uint64_t *total, const char **sp)
{
	const char *s = *sp;
	uint64_t v = 0, f = 0, unit;
	double scale = 1;
	size_t n = 0, nf = 0;
	if (!(*s == '.' || (*s >= '0' && *s <= '9')))
		return NL_EPARSE;
	int rc = leading_int(&v, &n, s);
	if (rc != 0)
		return rc;
	s += n;
	int pre = n > 0, post = 0;
	if (*s == '.') {
		s++;
		leading_fraction(&f, &scale, &nf, s);
		s += nf;
		post = nf > 0;
	}
	if (!pre && !post)
		return NL_EPARSE;
	if ((rc = unit_of(&unit, &n, s)) != 0)
		return rc;
	s += n;
	if (v > MAX_NS / unit)
		return NL_ETOOBIG;
	v *= unit;
	if (f > 0) {
		v += (uint64_t)((double)f * ((double)unit / scale));
		if (v > MAX_NS)
			return NL_ETOOBIG;
	}
	if (*total + v < *total || *total + v > MAX_NS)
		return NL_ETOOBIG;
	*total += v;
	*sp = s;
	return 0;
}

int nl_duration_parse(int64_t *out, const char *s)
{
	uint64_t total = 0;
	int neg = 0;
	if (!s)
		return NL_EPARSE;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (strcmp(s, "0") == 0) {
		*out = 0;
		return 0;
	}
	if (!*s)
		return NL_EPARSE;
	while (*s) {
		int rc = parse_term(&total, &s);
		if (rc != 0)
			return rc;
	}
	if (!neg && total > MAX_NS - 1)
		return NL_ETOOBIG;
	int64_t usec = (int64_t)(total / 1000);
	*out = neg ? -usec : usec;
	return 0;
}
