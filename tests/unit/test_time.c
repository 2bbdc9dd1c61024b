/* metav1.Time (RFC 3339, seconds, UTC) and metav1.MicroTime (exactly six
 * fractional digits) as the apiserver writes and parses them. */
#include "../cu_main.h"

#include <nodelet/buf.h>
#include <nodelet/errors.h>
#include <nodelet/time.h>

#include <stdint.h>
#include <string.h>

#define SEC INT64_C(1000000)

/* 2024-05-01T10:00:00Z */
#define T_2024_05_01 (INT64_C(1714557600) * SEC)

static void assert_parses(const char *s, int64_t want)
{
	int64_t got = -42;
	int rc = nl_time_parse(&got, s);
	if (rc != 0 || got != want)
		fprintf(stderr, "\n  nl_time_parse(\"%s\") = %d, %lld; want %lld\n", s, rc,
		        (long long)got, (long long)want);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(got, want);
}

static void assert_rejects(const char *s)
{
	int64_t got = 12345;
	int rc = nl_time_parse(&got, s);
	if (rc != NL_EPARSE)
		fprintf(stderr, "\n  nl_time_parse(\"%s\") = %d, want NL_EPARSE\n", s, rc);
	CU_ASSERT_EQUAL(rc, NL_EPARSE);
	CU_ASSERT_EQUAL(got, 12345); /* out-param untouched on failure */
}

static void assert_micro_rejects(const char *s)
{
	int64_t got = 12345;
	int rc = nl_time_parse_micro(&got, s);
	if (rc != NL_EPARSE)
		fprintf(stderr, "\n  nl_time_parse_micro(\"%s\") = %d, want NL_EPARSE\n", s, rc);
	CU_ASSERT_EQUAL(rc, NL_EPARSE);
	CU_ASSERT_EQUAL(got, 12345);
}

static void test_time__format_is_rfc3339_utc_seconds(void)
{
	char out[NL_TIME_BUFSZ];
	nl_time_format(out, T_2024_05_01);
	CU_ASSERT_STRING_EQUAL(out, "2024-05-01T10:00:00Z");
	/* Sub-second parts are dropped, as metav1.Time marshals whole seconds. */
	nl_time_format(out, T_2024_05_01 + 999999);
	CU_ASSERT_STRING_EQUAL(out, "2024-05-01T10:00:00Z");
	nl_time_format(out, 0);
	CU_ASSERT_STRING_EQUAL(out, "1970-01-01T00:00:00Z");
}

static void test_time__format_before_epoch_floors(void)
{
	char out[NL_TIME_BUFSZ];
	nl_time_format(out, -1);
	CU_ASSERT_STRING_EQUAL(out, "1969-12-31T23:59:59Z");
	nl_time_format_micro(out, -1);
	CU_ASSERT_STRING_EQUAL(out, "1969-12-31T23:59:59.999999Z");
	nl_time_format(out, INT64_C(-62135596800) * SEC);
	CU_ASSERT_STRING_EQUAL(out, "0001-01-01T00:00:00Z");
}

static void test_time__format_micro_has_six_digits(void)
{
	char out[NL_TIME_BUFSZ];
	nl_time_format_micro(out, T_2024_05_01 + 123456);
	CU_ASSERT_STRING_EQUAL(out, "2024-05-01T10:00:00.123456Z");
	nl_time_format_micro(out, T_2024_05_01);
	CU_ASSERT_STRING_EQUAL(out, "2024-05-01T10:00:00.000000Z");
	nl_time_format_micro(out, T_2024_05_01 + 7);
	CU_ASSERT_STRING_EQUAL(out, "2024-05-01T10:00:00.000007Z");
}

static void test_time__format_extremes(void)
{
	char out[NL_TIME_BUFSZ];
	nl_time_format(out, INT64_C(253402300799) * SEC);
	CU_ASSERT_STRING_EQUAL(out, "9999-12-31T23:59:59Z");
	nl_time_format(out, INT64_C(951827696) * SEC);
	CU_ASSERT_STRING_EQUAL(out, "2000-02-29T12:34:56Z");
	nl_time_format(out, INT64_C(-2203891200) * SEC);
	CU_ASSERT_STRING_EQUAL(out, "1900-03-01T00:00:00Z");
}

static void test_time__parse_utc(void)
{
	assert_parses("2024-05-01T10:00:00Z", T_2024_05_01);
	assert_parses("1970-01-01T00:00:00Z", 0);
	assert_parses("1969-12-31T23:59:59Z", -SEC);
	assert_parses("0001-01-01T00:00:00Z", INT64_C(-62135596800) * SEC);
	assert_parses("9999-12-31T23:59:59Z", INT64_C(253402300799) * SEC);
}

static void test_time__parse_offsets_convert_to_utc(void)
{
	assert_parses("2024-05-01T12:00:00+02:00", T_2024_05_01);
	assert_parses("2024-05-01T05:30:00-04:30", T_2024_05_01);
	assert_parses("2024-05-01T10:00:00+00:00", T_2024_05_01);
	assert_parses("2024-05-01T10:00:00-00:00", T_2024_05_01);
	/* Crossing a day, a month and a year boundary. */
	assert_parses("2024-05-02T01:00:00+15:00", T_2024_05_01);
	assert_parses("2024-04-30T23:00:00-11:00", T_2024_05_01);
	assert_parses("2025-01-01T00:30:00+01:00", INT64_C(1735687800) * SEC);
}

static void test_time__parse_accepts_any_fraction(void)
{
	assert_parses("2024-05-01T10:00:00.5Z", T_2024_05_01 + 500000);
	assert_parses("2024-05-01T10:00:00.123Z", T_2024_05_01 + 123000);
	assert_parses("2024-05-01T10:00:00.123456Z", T_2024_05_01 + 123456);
	/* Beyond microseconds the digits are truncated, not rounded. */
	assert_parses("2024-05-01T10:00:00.123456999Z", T_2024_05_01 + 123456);
	assert_parses("2024-05-01T10:00:00.1234569999999Z", T_2024_05_01 + 123456);
	assert_parses("2024-05-01T12:00:00.25+02:00", T_2024_05_01 + 250000);
	/* Go's parser also takes a comma as the decimal mark. */
	assert_parses("2024-05-01T10:00:00,5Z", T_2024_05_01 + 500000);
}

static void test_time__leap_days(void)
{
	assert_parses("2024-02-29T00:00:00Z", INT64_C(1709164800) * SEC);
	assert_parses("2000-02-29T12:34:56Z", INT64_C(951827696) * SEC);
	assert_rejects("2023-02-29T00:00:00Z");
	assert_rejects("1900-02-29T00:00:00Z"); /* century, not a leap year */
	assert_rejects("2024-02-30T00:00:00Z");
	assert_parses("2024-12-31T00:00:00Z", INT64_C(1735603200) * SEC);
}

static void test_time__rejects_invalid_fields(void)
{
	assert_rejects("2024-13-01T00:00:00Z");
	assert_rejects("2024-00-01T00:00:00Z");
	assert_rejects("2024-01-00T00:00:00Z");
	assert_rejects("2024-04-31T00:00:00Z");
	assert_rejects("2024-01-32T00:00:00Z");
	assert_rejects("2024-05-01T24:00:00Z");
	assert_rejects("2024-05-01T10:60:00Z");
	assert_rejects("2024-05-01T10:00:60Z");
	/* RFC 3339's time-numoffset: hour 00-23, minute 00-59. */
	assert_rejects("2024-05-01T10:00:00+24:00");
	assert_rejects("2024-05-01T10:00:00+01:60");
}

static void test_time__rejects_malformed_text(void)
{
	assert_rejects("");
	assert_rejects("2024-05-01");
	assert_rejects("2024-05-01 10:00:00Z");
	assert_rejects("2024-05-01T10:00:00");
	assert_rejects("2024-05-01T10:00:00z");
	assert_rejects("2024-5-01T10:00:00Z");
	assert_rejects("24-05-01T10:00:00Z");
	assert_rejects("+2024-05-01T10:00:00Z");
	assert_rejects("2024-05-01T10:00Z");
	assert_rejects("2024-05-01T10:00:00.Z");
	assert_rejects("2024-05-01T10:00:00ZZ");
	assert_rejects("2024-05-01T10:00:00Z ");
	assert_rejects(" 2024-05-01T10:00:00Z");
	assert_rejects("2024-05-01T10:00:00+0200");
	assert_rejects("2024-05-01T10:00:00+02");
	assert_rejects("2024-05-01T10:00:00+2:00");
	assert_rejects("2024-0a-01T10:00:00Z");
	assert_rejects("2024-05-01T10:00:00.12a4Z");
}

static void test_time__parse_micro_requires_six_digits(void)
{
	int64_t got = 0;
	CU_ASSERT_EQUAL(nl_time_parse_micro(&got, "2024-05-01T10:00:00.123456Z"), 0);
	CU_ASSERT_EQUAL(got, T_2024_05_01 + 123456);
	CU_ASSERT_EQUAL(nl_time_parse_micro(&got, "2024-05-01T12:00:00.000001+02:00"), 0);
	CU_ASSERT_EQUAL(got, T_2024_05_01 + 1);
	assert_micro_rejects("2024-05-01T10:00:00Z");
	assert_micro_rejects("2024-05-01T10:00:00.123Z");
	assert_micro_rejects("2024-05-01T10:00:00.12345Z");
	assert_micro_rejects("2024-05-01T10:00:00.1234567Z");
	assert_micro_rejects("2024-05-01T10:00:00.123456789Z");
	assert_micro_rejects("2023-02-29T10:00:00.123456Z");
	assert_micro_rejects("2024-05-01T10:00:00.123456");
	assert_micro_rejects("");
}

static void test_time__round_trips(void)
{
	static const int64_t samples[] = {
	    0,
	    T_2024_05_01,
	    INT64_C(1709164800) * SEC,
	    INT64_C(-62135596800) * SEC,
	    INT64_C(253402300799) * SEC,
	    INT64_C(-2203891200) * SEC,
	};
	char out[NL_TIME_BUFSZ];
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		int64_t back = -1;
		nl_time_format(out, samples[i]);
		CU_ASSERT_EQUAL(nl_time_parse(&back, out), 0);
		CU_ASSERT_EQUAL(back, samples[i]);
		nl_time_format_micro(out, samples[i] + 654321);
		CU_ASSERT_EQUAL(nl_time_parse_micro(&back, out), 0);
		CU_ASSERT_EQUAL(back, samples[i] + 654321);
		CU_ASSERT_EQUAL(nl_time_parse(&back, out), 0);
		CU_ASSERT_EQUAL(back, samples[i] + 654321);
	}
	/* Every day of a leap year and of a common year survives the trip. */
	for (int64_t d = 0; d < 366 * 2; d++) {
		int64_t t = (INT64_C(1704067200) + d * 86400 + 3723) * SEC, back = -1;
		nl_time_format(out, t);
		CU_ASSERT_EQUAL_FATAL(nl_time_parse(&back, out), 0);
		CU_ASSERT_EQUAL_FATAL(back, t);
	}
}

static void test_time__now_is_plausible(void)
{
	int64_t a = nl_time_now();
	int64_t b = nl_time_now();
	CU_ASSERT(a > T_2024_05_01 - 365 * 86400 * SEC);
	CU_ASSERT(b >= a);
}

/* The *time.ParseError text of time.Parse(time.RFC3339, s), or of
 * metav1.MicroTime's layout when micro. */
static void assert_parse_error(const char *s, int micro, const char *want)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL_FATAL(nl_time_parse_error(&b, s, micro), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b.data);
	if (strcmp(b.data, want) != 0)
		fprintf(stderr, "\n  %s\n    expected: %s\n    actual:   %s\n", s, want, b.data);
	CU_ASSERT_STRING_EQUAL(b.data, want);
	nl_buf_free(&b);
}

/* Go's own cases: parseErrorTests in src/time/format_test.go. */
static void test_time__parse_errors_are_gos(void)
{
	const char *rfc = "\"2006-01-02T15:04:05Z07:00\"";
	char want[256];
	assert_parse_error("2006-01-02T15:04:05Z07:00", 0,
	                   "parsing time \"2006-01-02T15:04:05Z07:00\": extra text: \"07:00\"");
	snprintf(want, sizeof(want),
	         "parsing time \"2006-01-02T15:04_abc\" as %s: cannot parse \"_abc\" as \":\"",
	         rfc);
	assert_parse_error("2006-01-02T15:04_abc", 0, want);
	snprintf(want, sizeof(want),
	         "parsing time \"2006-01-02T15:04:05_abc\" as %s: cannot parse \"_abc\" as "
	         "\"Z07:00\"",
	         rfc);
	assert_parse_error("2006-01-02T15:04:05_abc", 0, want);
	assert_parse_error("2006-01-02T15:04:05Z_abc", 0,
	                   "parsing time \"2006-01-02T15:04:05Z_abc\": extra text: \"_abc\"");
	assert_parse_error("2010-02-04T21:00:67.012345678-08:00", 0,
	                   "parsing time \"2010-02-04T21:00:67.012345678-08:00\": second out of "
	                   "range");
	snprintf(want, sizeof(want),
	         "parsing time \"\\\"\" as %s: cannot parse \"\\\"\" as \"2006\"", rfc);
	assert_parse_error("\"", 0, want);
}

static void test_time__parse_errors_name_the_field_out_of_range(void)
{
	assert_parse_error("2024-13-01T00:00:00Z", 0,
	                   "parsing time \"2024-13-01T00:00:00Z\": month out of range");
	assert_parse_error("2023-02-29T00:00:00Z", 0,
	                   "parsing time \"2023-02-29T00:00:00Z\": day out of range");
	assert_parse_error("2024-05-01T24:00:00Z", 0,
	                   "parsing time \"2024-05-01T24:00:00Z\": hour out of range");
	assert_parse_error("2024-05-01T10:00:00+25:00", 0,
	                   "parsing time \"2024-05-01T10:00:00+25:00\": time zone offset hour out "
	                   "of range");
}

static void test_time__parse_errors_for_micro_time(void)
{
	assert_parse_error(
	    "2024-05-01T10:00:00Z", 1,
	    "parsing time \"2024-05-01T10:00:00Z\" as "
	    "\"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\"");
	assert_parse_error(
	    "2024-05-01T10:00:00.1234567Z", 1,
	    "parsing time \"2024-05-01T10:00:00.1234567Z\" as "
	    "\"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"7Z\" as \"Z07:00\"");
}

/* time's own quote (format.go; TestQuote in format_test.go): every byte of
 * a non-ASCII rune, and every control byte, as \xNN; unlike strconv.Quote. */
static void test_time__parse_errors_quote_like_time_package(void)
{
	assert_parse_error("\xe2\x98\xba", 0,
	                   "parsing time \"\\xe2\\x98\\xba\" as \"2006-01-02T15:04:05Z07:00\": "
	                   "cannot parse \"\\xe2\\x98\\xba\" as \"2006\"");
	assert_parse_error("2024-05-01T10:00:00Z\n", 0,
	                   "parsing time \"2024-05-01T10:00:00Z\\x0a\": extra text: \"\\x0a\"");
}

/* What Go would take but nl_time_parse does not (a one-digit hour) still
 * gets a "parsing time" text rather than none. */
static void test_time__parse_error_when_go_would_accept(void)
{
	assert_parse_error("2024-05-01T1:00:00Z", 0,
	                   "parsing time \"2024-05-01T1:00:00Z\": not an RFC 3339 time");
}

static CU_TestInfo time_tests[] = {
    {"format_is_rfc3339_utc_seconds", test_time__format_is_rfc3339_utc_seconds},
    {"format_before_epoch_floors", test_time__format_before_epoch_floors},
    {"format_micro_has_six_digits", test_time__format_micro_has_six_digits},
    {"format_extremes", test_time__format_extremes},
    {"parse_utc", test_time__parse_utc},
    {"parse_offsets_convert_to_utc", test_time__parse_offsets_convert_to_utc},
    {"parse_accepts_any_fraction", test_time__parse_accepts_any_fraction},
    {"leap_days", test_time__leap_days},
    {"rejects_invalid_fields", test_time__rejects_invalid_fields},
    {"rejects_malformed_text", test_time__rejects_malformed_text},
    {"parse_micro_requires_six_digits", test_time__parse_micro_requires_six_digits},
    {"round_trips", test_time__round_trips},
    {"now_is_plausible", test_time__now_is_plausible},
    {"parse_errors_are_gos", test_time__parse_errors_are_gos},
    {"parse_errors_name_the_field_out_of_range",
     test_time__parse_errors_name_the_field_out_of_range},
    {"parse_errors_for_micro_time", test_time__parse_errors_for_micro_time},
    {"parse_errors_quote_like_time_package", test_time__parse_errors_quote_like_time_package},
    {"parse_error_when_go_would_accept", test_time__parse_error_when_go_would_accept},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"time", NULL, NULL, NULL, NULL, time_tests},
    CU_SUITE_INFO_NULL,
};
