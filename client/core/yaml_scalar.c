/* YAML scalar resolution as go-yaml v2 does it (resolve.go, YAML 1.1: null,
 * bool, int, float, !!binary and the other core tags), with numbers read as
 * Go's strconv reads them and floats written as Go's strconv writes them.
 * Split from doc.c, which builds documents from these scalars. */
#include "yaml_scalar.h"

#include <nodelet/base64.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- number syntax as Go's strconv reads it -------------------------------- */

static int digit_value(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'Z')
		return ch - 'A' + 10;
	return 99;
}

/* strconv.ParseUint(s, 0, 64): 0x/0o/0b prefixes, a leading 0 means octal. */
static int go_parse_uint(const char *s, size_t n, uint64_t *out)
{
	unsigned base = 10;
	if (n == 0)
		return -1;
	if (s[0] == '0') {
		char p = n >= 3 ? (char)(s[1] | 0x20) : 0;
		base = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 8;
		size_t skip = (p == 'x' || p == 'o' || p == 'b') ? 2 : 1;
		s += skip;
		n -= skip;
	}
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)digit_value(s[i]);
		if (d >= base || v > (UINT64_MAX - d) / base)
			return -1;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

/* strconv.ParseInt(s, 0, 64). */
static int go_parse_int(const char *s, size_t n, int64_t *out)
{
	int neg = 0;
	uint64_t u;
	if (n && (s[0] == '+' || s[0] == '-')) {
		neg = s[0] == '-';
		s++;
		n--;
	}
	if (go_parse_uint(s, n, &u))
		return -1;
	if (neg ? u > (uint64_t)INT64_MAX + 1 : u > (uint64_t)INT64_MAX)
		return -1;
	if (neg)
		*out = u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u;
	else
		*out = (int64_t)u;
	return 0;
}

static size_t skip_digits(const char *s, size_t n, size_t i)
{
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	return i;
}

/* go-yaml's yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ */
static int yaml_float_syntax(const char *s, size_t n)
{
	size_t i = 0, j;
	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	if (i < n && s[i] == '.') {
		j = skip_digits(s, n, i + 1);
		if (j == i + 1)
			return 0;
	} else {
		j = skip_digits(s, n, i);
		if (j == i)
			return 0;
		if (j < n && s[j] == '.')
			j = skip_digits(s, n, j + 1);
	}
	if (j < n && (s[j] == 'e' || s[j] == 'E')) {
		size_t k = j + 1;
		if (k < n && (s[k] == '+' || s[k] == '-'))
			k++;
		j = skip_digits(s, n, k);
		if (j == k)
			return 0;
	}
	return j == n;
}

/* s is NUL-terminated after n bytes. Out of range is a failure, as for Go's
 * ParseFloat (the scalar then stays a string). strtod assumes the C locale's
 * decimal point; nodelet never calls setlocale. */
static int parse_float(const char *s, size_t n, double *out)
{
	if (!yaml_float_syntax(s, n))
		return -1;
	double v = strtod(s, NULL);
	if (isinf(v))
		return -1;
	*out = v;
	return 0;
}

/* ---- float formatting as Go's strconv writes it ---------------------------- */

/* Shortest decimal digits that read back as v (as a float32 when f32). v must
 * be finite and positive. dp is the decimal point position: value = 0.D * 10^dp. */
static void shortest_digits(double v, int f32, char digits[24], int *nd, int *dp)
{
	char buf[40];
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*e", prec - 1, v);
		if (f32 ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v)
			break;
	}
	int n = 0;
	const char *p = buf;
	for (; *p && *p != 'e'; p++)
		if (*p != '.')
			digits[n++] = *p;
	while (n > 1 && digits[n - 1] == '0')
		n--;
	digits[n] = '\0';
	*nd = n;
	*dp = atoi(p + 1) + 1;
}

/* %e with Go's exponent: at least two digits, or one when trim_neg and the
 * exponent is negative (encoding/json's "e-07" -> "e-7"). */
static void format_e(char *out, size_t cap, int neg, const char *d, int nd, int dp, int trim_neg)
{
	int exp = dp - 1;
	int width = (trim_neg && exp < 0) ? 1 : 2;
	snprintf(out, cap, "%s%c%s%se%c%0*d", neg ? "-" : "", d[0], nd > 1 ? "." : "", d + 1,
	         exp < 0 ? '-' : '+', width, exp < 0 ? -exp : exp);
}

static void format_f(char *out, size_t cap, int neg, const char *d, int nd, int dp)
{
	size_t o = 0;
	if (neg && o + 1 < cap)
		out[o++] = '-';
	if (dp <= 0) {
		for (int i = 0; i < 2 - dp && o + 1 < cap; i++)
			out[o++] = i == 1 ? '.' : '0';
		for (int i = 0; i < nd && o + 1 < cap; i++)
			out[o++] = d[i];
	} else {
		for (int i = 0; i < dp && o + 1 < cap; i++)
			out[o++] = i < nd ? d[i] : '0';
		if (nd > dp && o + 1 < cap) {
			out[o++] = '.';
			for (int i = dp; i < nd && o + 1 < cap; i++)
				out[o++] = d[i];
		}
	}
	out[o] = '\0';
}

/* encoding/json's float64 output, so serialised values read like Kubernetes'. */
void nl__go_json_float(double v, char *out, size_t cap)
{
	char d[24];
	int nd, dp;
	double a = fabs(v);
	shortest_digits(a, 0, d, &nd, &dp);
	if (a < 1e-6 || a >= 1e21)
		format_e(out, cap, v < 0, d, nd, dp, 1);
	else
		format_f(out, cap, v < 0, d, nd, dp);
}

/* strconv.FormatFloat(v, 'g', -1, 32): how sigs.k8s.io/yaml spells float keys. */
void nl__go_float_key(double v, char *out, size_t cap)
{
	float f = (float)v;
	if (isnan(f)) {
		snprintf(out, cap, ".nan");
		return;
	}
	if (isinf(f)) {
		snprintf(out, cap, "%s", f > 0 ? ".inf" : "-.inf");
		return;
	}
	if (f == 0) {
		snprintf(out, cap, "%s", signbit(f) ? "-0" : "0");
		return;
	}
	char d[24];
	int nd, dp;
	shortest_digits(fabs((double)f), 1, d, &nd, &dp);
	int exp = dp - 1;
	if (exp < -4 || exp >= 6)
		format_e(out, cap, f < 0, d, nd, dp, 0);
	else
		format_f(out, cap, f < 0, d, nd, dp);
}

/* ---- scalar resolution (go-yaml v2 resolve.go) ----------------------------- */

static const struct keyword {
	const char *text;
	nl__scalar_kind kind;
	int val; /* bool value; for floats 1/-1 infinity, 0 NaN */
} keywords[] = {
    {"y", NL__SC_BOOL, 1},       {"Y", NL__SC_BOOL, 1},       {"yes", NL__SC_BOOL, 1},
    {"Yes", NL__SC_BOOL, 1},     {"YES", NL__SC_BOOL, 1},     {"true", NL__SC_BOOL, 1},
    {"True", NL__SC_BOOL, 1},    {"TRUE", NL__SC_BOOL, 1},    {"on", NL__SC_BOOL, 1},
    {"On", NL__SC_BOOL, 1},      {"ON", NL__SC_BOOL, 1},      {"n", NL__SC_BOOL, 0},
    {"N", NL__SC_BOOL, 0},       {"no", NL__SC_BOOL, 0},      {"No", NL__SC_BOOL, 0},
    {"NO", NL__SC_BOOL, 0},      {"false", NL__SC_BOOL, 0},   {"False", NL__SC_BOOL, 0},
    {"FALSE", NL__SC_BOOL, 0},   {"off", NL__SC_BOOL, 0},     {"Off", NL__SC_BOOL, 0},
    {"OFF", NL__SC_BOOL, 0},     {"", NL__SC_NULL, 0},        {"~", NL__SC_NULL, 0},
    {"null", NL__SC_NULL, 0},    {"Null", NL__SC_NULL, 0},    {"NULL", NL__SC_NULL, 0},
    {".nan", NL__SC_FLOAT, 0},   {".NaN", NL__SC_FLOAT, 0},   {".NAN", NL__SC_FLOAT, 0},
    {".inf", NL__SC_FLOAT, 1},   {".Inf", NL__SC_FLOAT, 1},   {".INF", NL__SC_FLOAT, 1},
    {"+.inf", NL__SC_FLOAT, 1},  {"+.Inf", NL__SC_FLOAT, 1},  {"+.INF", NL__SC_FLOAT, 1},
    {"-.inf", NL__SC_FLOAT, -1}, {"-.Inf", NL__SC_FLOAT, -1}, {"-.INF", NL__SC_FLOAT, -1},
};

/* go-yaml only tries a resolution when the first byte hints at one. */
static char resolve_hint(const char *s, size_t n)
{
	if (n == 0)
		return 'N';
	char ch = s[0];
	if (ch == '+' || ch == '-')
		return 'S';
	if (ch >= '0' && ch <= '9')
		return 'D';
	if (ch == '.')
		return '.';
	if (ch && strchr("yYnNtTfFoO~", ch))
		return 'M';
	return 0;
}

static int resolve_keyword(const char *s, size_t n, nl__scalar *out)
{
	for (size_t k = 0; k < sizeof(keywords) / sizeof(keywords[0]); k++) {
		if (strlen(keywords[k].text) != n || memcmp(keywords[k].text, s, n) != 0)
			continue;
		out->kind = keywords[k].kind;
		out->b = keywords[k].val;
		if (out->kind == NL__SC_FLOAT)
			out->f = keywords[k].val ? keywords[k].val * INFINITY : NAN;
		return 1;
	}
	return 0;
}

/* Digits or a sign: int64, then uint64, then float; underscores are ignored. */
static int resolve_number(const char *s, size_t n, nl__scalar *out, nl_err *err)
{
	char *plain = malloc(n + 1);
	size_t m = 0;
	if (!plain)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	for (size_t k = 0; k < n; k++)
		if (s[k] != '_')
			plain[m++] = s[k];
	plain[m] = '\0';
	if (go_parse_int(plain, m, &out->i) == 0)
		out->kind = NL__SC_INT;
	else if (go_parse_uint(plain, m, &out->u) == 0)
		out->kind = NL__SC_UINT;
	else if (parse_float(plain, m, &out->f) == 0)
		out->kind = NL__SC_FLOAT;
	free(plain);
	return 0;
}

/* The implicit type of s; out->kind stays NL__SC_STR when nothing matches. */
static int resolve_plain(const char *s, size_t n, nl__scalar *out, nl_err *err)
{
	char hint = resolve_hint(s, n);
	out->kind = NL__SC_STR;
	if (!hint || resolve_keyword(s, n, out))
		return 0;
	if (hint == '.') {
		if (parse_float(s, n, &out->f) == 0)
			out->kind = NL__SC_FLOAT;
		return 0;
	}
	if (hint == 'D' || hint == 'S')
		return resolve_number(s, n, out, err);
	return 0;
}

static const char *kind_tag(nl__scalar_kind k)
{
	switch (k) {
	case NL__SC_NULL:
		return "null";
	case NL__SC_BOOL:
		return "bool";
	case NL__SC_INT:
	case NL__SC_UINT:
		return "int";
	case NL__SC_FLOAT:
		return "float";
	case NL__SC_STR:
		break;
	}
	return "str";
}

/* go-yaml v2 reads a !!timestamp-looking value into interface{} as its text;
 * we check the date prefix it requires (YYYY-M-D). */
static int timestamp_prefix(const char *s, size_t n)
{
	size_t i = skip_digits(s, n, 0), j, k;
	if (i != 4 || i == n || s[i] != '-')
		return 0;
	j = skip_digits(s, n, i + 1);
	if (j == i + 1 || j - i - 1 > 2 || j == n || s[j] != '-')
		return 0;
	k = skip_digits(s, n, j + 1);
	return k > j + 1 && k - j - 1 <= 2;
}

static int resolve_tagged(const char *text, size_t len, const char *want, nl__scalar *out,
                          nl_err *err)
{
	int rc = resolve_plain(text, len, out, err);
	if (rc)
		return rc;
	const char *got = kind_tag(out->kind);
	if (strcmp(want, got) == 0)
		return 0;
	if (strcmp(want, "float") == 0 && out->kind == NL__SC_INT) {
		out->kind = NL__SC_FLOAT;
		out->f = (double)out->i;
		return 0;
	}
	if (strcmp(want, "timestamp") == 0 && out->kind == NL__SC_STR &&
	    timestamp_prefix(text, len))
		return 0;
	return nl_err_set(err, NL_EPARSE, "cannot decode !!%s `%s` as a !!%s", got, text, want);
}

int nl__yaml_scalar_resolve(nl__scalar *out, const char *text, size_t len, const char *tag,
                            int plain, nl_err *err)
{
	memset(out, 0, sizeof(*out));
	out->kind = NL__SC_STR;
	out->s = text;
	out->slen = len;
	if (!tag)
		return plain ? resolve_plain(text, len, out, err) : 0;
	const char *t = strncmp(tag, NL__YAML_TAG_PREFIX, strlen(NL__YAML_TAG_PREFIX)) == 0
	                    ? tag + strlen(NL__YAML_TAG_PREFIX)
	                    : NULL;
	if (t && strcmp(t, "binary") == 0) {
		unsigned char *bytes = NULL;
		int rc = nl_base64_decode(&bytes, &out->slen, text, len, NULL);
		if (rc == NL_ENOMEM)
			return nl_err_set(err, NL_ENOMEM, "out of memory");
		if (rc)
			return nl_err_set(err, NL_EPARSE,
			                  "!!binary value contains invalid base64 data");
		out->owned = (char *)bytes;
		out->s = out->owned;
		return 0;
	}
	/* Local and unknown tags leave the text as it is, like go-yaml. */
	if (!t || strcmp(t, "str") == 0 ||
	    (strcmp(t, "bool") && strcmp(t, "int") && strcmp(t, "float") && strcmp(t, "null") &&
	     strcmp(t, "timestamp")))
		return 0;
	return resolve_tagged(text, len, t, out, err);
}

void nl__yaml_scalar_clear(nl__scalar *s)
{
	free(s->owned);
	s->owned = NULL;
}
