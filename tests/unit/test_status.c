/* metav1.Status bodies: built exactly as kube-apiserver sends them (compared
 * against golden files under fixtures/status/) and parsed back tolerantly. */
#include "../cu_main.h"

#include <nodelet/errors.h>
#include <nodelet/json_text.h>
#include <nodelet/meta.h>
#include <nodelet/status.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const nl_gr GR_LEASES = {"coordination.k8s.io", "leases"};
static const nl_gr GR_CONFIGMAPS = {"", "configmaps"};

static const char *const FIXTURES[] = {
    "already-exists-configmap.json",
    "bad-request-name-mismatch.json",
    "conflict-lease.json",
    "delete-success-lease.json",
    "expired.json",
    "internal.json",
    "invalid-lease-duration.json",
    "invalid-lease-two-causes.json",
    "method-not-allowed.json",
    "not-found-configmap.json",
    "not-found-lease.json",
    "timeout-too-large-rv.json",
    "too-large.json",
    "unknown-path.json",
};

/* fixtures/status/<name> without its trailing newline; caller frees. */
static char *read_fixture(const char *name)
{
	char rel[256];
	snprintf(rel, sizeof(rel), "status/%s", name);
	FILE *f = fopen(nl_test_fixture(rel), "rb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	char *text = calloc(1, 65536);
	size_t n = fread(text, 1, 65535, f);
	fclose(f);
	while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r'))
		text[--n] = '\0';
	return text;
}

/* Compare st, encoded, with a golden file as JSON, and free st. */
static void assert_matches_fixture(nl_status *st, const char *name)
{
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	char *want = read_fixture(name);
	json_object *got = nl_status_to_json(st);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	NL_ASSERT_JSON_EQ(got, want);
	json_object_put(got);
	free(want);
	nl_status_free(st);
}

static void test_status__not_found(void)
{
	assert_matches_fixture(nl_status_not_found(&GR_CONFIGMAPS, "x"),
	                       "not-found-configmap.json");
	assert_matches_fixture(nl_status_not_found(&GR_LEASES, "x"), "not-found-lease.json");
}

static void test_status__already_exists(void)
{
	assert_matches_fixture(nl_status_already_exists(&GR_CONFIGMAPS, "x"),
	                       "already-exists-configmap.json");
}

static void test_status__conflict_defaults_to_optimistic_lock_text(void)
{
	assert_matches_fixture(nl_status_conflict(&GR_LEASES, "x", NULL), "conflict-lease.json");
}

static void test_status__conflict_key_order_is_exact(void)
{
	/* Clients compare as JSON, but our golden promise is byte-exact. */
	nl_status *st = nl_status_conflict(&GR_LEASES, "x", NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	char *got = nl_status_to_string(st);
	char *want = read_fixture("conflict-lease.json");
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	CU_ASSERT_STRING_EQUAL(got, want);
	free(got);
	free(want);
	nl_status_free(st);
}

static void test_status__conflict_with_custom_reason(void)
{
	nl_status *st = nl_status_conflict(
	    &(nl_gr){"", "ConfigMap"}, "x",
	    "the ResourceVersion in the precondition (5) does not match the ResourceVersion "
	    "in record (6). The object might have been modified");
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_STRING_EQUAL(
	    st->message, "Operation cannot be fulfilled on ConfigMap \"x\": the ResourceVersion "
	                 "in the precondition (5) does not match the ResourceVersion in record "
	                 "(6). The object might have been modified");
	CU_ASSERT_EQUAL(st->code, 409);
	CU_ASSERT_STRING_EQUAL(st->reason, "Conflict");
	nl_status_free(st);
}

static void test_status__invalid_single_cause(void)
{
	nl_status *st = nl_status_invalid("Lease", "coordination.k8s.io", "x");
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_EQUAL(nl_status_add_cause(st, NL_CAUSE_INVALID,
	                                    "Invalid value: -1: must be greater than 0",
	                                    "spec.leaseDurationSeconds"),
	                0);
	CU_ASSERT_EQUAL(nl_status_finish_invalid(st), 0);
	assert_matches_fixture(st, "invalid-lease-duration.json");
}

static void test_status__invalid_several_causes_are_bracketed(void)
{
	nl_status *st = nl_status_invalid("Lease", "coordination.k8s.io", "x");
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_EQUAL(nl_status_add_cause(st, NL_CAUSE_INVALID,
	                                    "Invalid value: -1: must be greater than 0",
	                                    "spec.leaseDurationSeconds"),
	                0);
	CU_ASSERT_EQUAL(nl_status_add_cause(st, NL_CAUSE_INVALID,
	                                    "Invalid value: -2: must be greater than or equal to 0",
	                                    "spec.leaseTransitions"),
	                0);
	CU_ASSERT_EQUAL(nl_status_finish_invalid(st), 0);
	assert_matches_fixture(st, "invalid-lease-two-causes.json");
}

static void test_status__invalid_core_kind_and_duplicates(void)
{
	/* Core kinds have no ".group"; identical errors are reported once in the
	 * message (field.ErrorList.ToAggregate) but kept as causes. */
	nl_status *st = nl_status_invalid("ConfigMap", "", "cm");
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_STRING_EQUAL(st->message, "ConfigMap \"cm\" is invalid");
	CU_ASSERT_EQUAL(nl_status_add_cause(st, NL_CAUSE_REQUIRED,
	                                    "Required value: name or generateName is required",
	                                    "metadata.name"),
	                0);
	CU_ASSERT_EQUAL(nl_status_add_cause(st, NL_CAUSE_REQUIRED,
	                                    "Required value: name or generateName is required",
	                                    "metadata.name"),
	                0);
	CU_ASSERT_EQUAL(nl_status_finish_invalid(st), 0);
	CU_ASSERT_STRING_EQUAL(st->message, "ConfigMap \"cm\" is invalid: metadata.name: Required "
	                                    "value: name or generateName is required");
	CU_ASSERT_EQUAL(st->ncauses, 2);
	CU_ASSERT_PTR_NULL(st->group);
	CU_ASSERT_STRING_EQUAL(st->kind, "ConfigMap");
	CU_ASSERT_EQUAL(nl_status_add_cause(st, NL_CAUSE_TOO_LONG,
	                                    "Too long: may not be more than 1048576 bytes", "[]"),
	                0);
	CU_ASSERT_EQUAL(nl_status_finish_invalid(st), 0);
	CU_ASSERT_STRING_EQUAL(st->message,
	                       "ConfigMap \"cm\" is invalid: [metadata.name: Required value: name "
	                       "or generateName is required, []: Too long: may not be more than "
	                       "1048576 bytes]");
	nl_status_free(st);
}

static void test_status__invalid_without_causes(void)
{
	nl_status *st = nl_status_invalid("Lease", "coordination.k8s.io", "x");
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_EQUAL(nl_status_finish_invalid(st), 0);
	CU_ASSERT_STRING_EQUAL(st->message, "Lease.coordination.k8s.io \"x\" is invalid");
	json_object *o = nl_status_to_json(st);
	NL_ASSERT_JSON_EQ(o, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
	                     "\"status\":\"Failure\",\"message\":\"Lease.coordination.k8s.io "
	                     "\\\"x\\\" is invalid\",\"reason\":\"Invalid\",\"details\":{\"name\":"
	                     "\"x\",\"group\":\"coordination.k8s.io\",\"kind\":\"Lease\"},"
	                     "\"code\":422}");
	json_object_put(o);
	nl_status_free(st);
}

static void test_status__bad_request(void)
{
	assert_matches_fixture(
	    nl_status_bad_request(
	        "the name of the object (a) does not match the name on the URL (b)"),
	    "bad-request-name-mismatch.json");
}

static void test_status__method_not_allowed(void)
{
	assert_matches_fixture(nl_status_method_not_allowed(), "method-not-allowed.json");
}

static void test_status__unknown_path_has_empty_details(void)
{
	nl_status *st = nl_status_unknown_path();
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	char *s = nl_status_to_string(st);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"details\":{}"));
	free(s);
	assert_matches_fixture(st, "unknown-path.json");
}

static void test_status__too_large(void)
{
	assert_matches_fixture(nl_status_too_large(3145728), "too-large.json");
}

static void test_status__expired(void)
{
	assert_matches_fixture(nl_status_expired("5", 120), "expired.json");
}

static void test_status__internal(void)
{
	assert_matches_fixture(nl_status_internal("boom"), "internal.json");
}

static void test_status__timeout_for_too_large_rv(void)
{
	assert_matches_fixture(nl_status_too_large_rv(200, 120), "timeout-too-large-rv.json");
}

static void test_status__delete_success(void)
{
	assert_matches_fixture(
	    nl_status_success_delete(&GR_LEASES, "x", "6b4b1d2e-3f0a-4c5d-8e9f-0a1b2c3d4e5f"),
	    "delete-success-lease.json");
}

static void test_status__every_field_is_omitempty(void)
{
	nl_status *st = nl_status_new(0, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	char *s = nl_status_to_string(st);
	CU_ASSERT_STRING_EQUAL(s, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
	                          "\"status\":\"Failure\"}");
	free(s);
	nl_status_free(st);

	st = nl_status_new(418, "", "");
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_EQUAL(nl_status_set_details(st, "", NULL, "", NULL), 0);
	s = nl_status_to_string(st);
	CU_ASSERT_STRING_EQUAL(s, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
	                          "\"status\":\"Failure\",\"details\":{},\"code\":418}");
	free(s);
	nl_status_free(st);
}

static void test_status__details_key_order_is_exact(void)
{
	nl_status *st = nl_status_new(429, "TooManyRequests", "slow down");
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_EQUAL(nl_status_set_details(st, "n", "g", "k", "u"), 0);
	CU_ASSERT_EQUAL(nl_status_add_cause(st, "R", "M", "F"), 0);
	CU_ASSERT_EQUAL(nl_status_add_cause(st, NULL, "only message", NULL), 0);
	st->retry_after_seconds = 3;
	char *s = nl_status_to_string(st);
	CU_ASSERT_STRING_EQUAL(
	    s,
	    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
	    "\"message\":\"slow down\",\"reason\":\"TooManyRequests\",\"details\":{\"name\":\"n\","
	    "\"group\":\"g\",\"kind\":\"k\",\"uid\":\"u\",\"causes\":[{\"reason\":\"R\","
	    "\"message\":\"M\",\"field\":\"F\"},{\"message\":\"only message\"}],"
	    "\"retryAfterSeconds\":3},\"code\":429}");
	free(s);
	nl_status_free(st);
}

static void test_status__strings_are_escaped_but_slashes_are_not(void)
{
	nl_status *st = nl_status_newf(400, "BadRequest", "path /api/v1 has \"%s\"", "q");
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_STRING_EQUAL(st->message, "path /api/v1 has \"q\"");
	char *s = nl_status_to_string(st);
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"message\":\"path /api/v1 has \\\"q\\\"\""));
	free(s);
	nl_status_free(st);
}

static void test_status__set_details_null_keeps_field(void)
{
	nl_status *st = nl_status_new(404, "NotFound", "gone");
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_EQUAL(st->has_details, 0);
	CU_ASSERT_EQUAL(nl_status_set_details(st, "a", "g0", NULL, NULL), 0);
	CU_ASSERT_EQUAL(st->has_details, 1);
	CU_ASSERT_EQUAL(nl_status_set_details(st, "b", NULL, NULL, "u"), 0);
	CU_ASSERT_STRING_EQUAL(st->name, "b");
	CU_ASSERT_STRING_EQUAL(st->group, "g0");
	CU_ASSERT_PTR_NULL(st->kind);
	CU_ASSERT_STRING_EQUAL(st->uid, "u");
	nl_status_free(st);
	nl_status_free(NULL);
}

static void test_status__names_are_quoted_like_go(void)
{
	/* apimachinery formats names with %q; a name from a URL can hold anything. */
	nl_status *st = nl_status_not_found(&GR_CONFIGMAPS, "a\"b\\c\n\x01\xff caf\xc3\xa9");
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_STRING_EQUAL(st->message,
	                       "configmaps \"a\\\"b\\\\c\\n\\x01\\xff caf\xc3\xa9\" not found");
	/* details.name is the raw name. */
	CU_ASSERT_STRING_EQUAL(st->name, "a\"b\\c\n\x01\xff caf\xc3\xa9");
	nl_status_free(st);
}

/* A non-printable rune is \uNNNN, as Go's strconv.Quote writes it (this
 * copy used to keep every valid UTF-8 sequence raw). */
static void test_status__non_printable_runes_are_escaped(void)
{
	nl_status *st = nl_status_not_found(&GR_CONFIGMAPS, "a\xc2\x85z\xe2\x80\x8b");
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_STRING_EQUAL(st->message, "configmaps \"a\\u0085z\\u200b\" not found");
	nl_status_free(st);
}

static void test_status__gr_string(void)
{
	char out[64];
	nl_gr_string(out, sizeof(out), &GR_LEASES);
	CU_ASSERT_STRING_EQUAL(out, "leases.coordination.k8s.io");
	nl_gr_string(out, sizeof(out), &GR_CONFIGMAPS);
	CU_ASSERT_STRING_EQUAL(out, "configmaps");
	nl_gr_string(out, sizeof(out), &(nl_gr){NULL, "nodes"});
	CU_ASSERT_STRING_EQUAL(out, "nodes");
	nl_gr_string(out, 7, &GR_LEASES);
	CU_ASSERT_STRING_EQUAL(out, "leases");
}

static void test_status__parse_reads_every_field(void)
{
	char *text = read_fixture("timeout-too-large-rv.json");
	nl_status *st = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_status_parse(&st, text, strlen(text)), 0);
	CU_ASSERT_STRING_EQUAL(st->status, "Failure");
	CU_ASSERT_STRING_EQUAL(st->message,
	                       "Timeout: Too large resource version: 200, current: 120");
	CU_ASSERT_STRING_EQUAL(st->reason, "Timeout");
	CU_ASSERT_EQUAL(st->code, 504);
	CU_ASSERT_EQUAL(st->has_details, 1);
	CU_ASSERT_PTR_NULL(st->name);
	CU_ASSERT_EQUAL(st->retry_after_seconds, 1);
	CU_ASSERT_EQUAL_FATAL(st->ncauses, 1);
	CU_ASSERT_STRING_EQUAL(st->causes[0].reason, "ResourceVersionTooLarge");
	CU_ASSERT_STRING_EQUAL(st->causes[0].message, "Too large resource version");
	CU_ASSERT_PTR_NULL(st->causes[0].field);
	nl_status_free(st);
	free(text);

	text = read_fixture("delete-success-lease.json");
	CU_ASSERT_EQUAL_FATAL(nl_status_parse(&st, text, strlen(text)), 0);
	CU_ASSERT_STRING_EQUAL(st->status, "Success");
	CU_ASSERT_PTR_NULL(st->message);
	CU_ASSERT_PTR_NULL(st->reason);
	CU_ASSERT_EQUAL(st->code, 0);
	CU_ASSERT_STRING_EQUAL(st->name, "x");
	CU_ASSERT_STRING_EQUAL(st->group, "coordination.k8s.io");
	CU_ASSERT_STRING_EQUAL(st->kind, "leases");
	CU_ASSERT_STRING_EQUAL(st->uid, "6b4b1d2e-3f0a-4c5d-8e9f-0a1b2c3d4e5f");
	CU_ASSERT_EQUAL(st->ncauses, 0);
	nl_status_free(st);
	free(text);
}

static void test_status__parse_then_encode_reproduces_every_fixture(void)
{
	for (size_t i = 0; i < sizeof(FIXTURES) / sizeof(FIXTURES[0]); i++) {
		char *text = read_fixture(FIXTURES[i]);
		nl_status *st = NULL;
		CU_ASSERT_EQUAL_FATAL(nl_status_parse(&st, text, strlen(text)), 0);
		char *again = nl_status_to_string(st);
		if (strcmp(again, text) != 0)
			fprintf(stderr, "\n  %s:\n  got  %s\n  want %s\n", FIXTURES[i], again,
			        text);
		CU_ASSERT_STRING_EQUAL(again, text);
		free(again);
		nl_status_free(st);
		free(text);
	}
}

static void test_status__parse_is_tolerant(void)
{
	nl_status *st = NULL;
	const char *minimal = "{\"kind\":\"Status\"}\n";
	CU_ASSERT_EQUAL_FATAL(nl_status_parse(&st, minimal, strlen(minimal)), 0);
	CU_ASSERT_PTR_NULL(st->status);
	CU_ASSERT_PTR_NULL(st->message);
	CU_ASSERT_EQUAL(st->code, 0);
	CU_ASSERT_EQUAL(st->has_details, 0);
	nl_status_free(st);

	/* Wrong types are treated as absent, unknown fields ignored. */
	const char *odd = "{\"kind\":\"Status\",\"code\":\"409\",\"message\":7,\"extra\":[1],"
	                  "\"details\":{\"name\":{},\"causes\":[\"x\",{\"field\":\"f\"}]}}";
	CU_ASSERT_EQUAL_FATAL(nl_status_parse(&st, odd, strlen(odd)), 0);
	CU_ASSERT_EQUAL(st->code, 0);
	CU_ASSERT_PTR_NULL(st->message);
	CU_ASSERT_EQUAL(st->has_details, 1);
	CU_ASSERT_PTR_NULL(st->name);
	CU_ASSERT_EQUAL_FATAL(st->ncauses, 1);
	CU_ASSERT_STRING_EQUAL(st->causes[0].field, "f");
	nl_status_free(st);
}

static void test_status__parse_rejects_non_status(void)
{
	static const char *const bad[] = {
	    "",
	    "not json",
	    "[1,2]",
	    "\"Status\"",
	    "{}",
	    "{\"kind\":\"Lease\"}",
	    "{\"kind\":7}",
	    "{\"kind\":\"Status\"",
	    "{\"kind\":\"Status\"} trailing",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		nl_status *st = (nl_status *)&bad; /* sentinel: must stay untouched */
		CU_ASSERT_EQUAL(nl_status_parse(&st, bad[i], strlen(bad[i])), NL_EPARSE);
		CU_ASSERT_PTR_EQUAL(st, (nl_status *)&bad);
	}
	/* Only len bytes count: the text after them is not read. */
	nl_status *st = NULL;
	const char *prefix = "{\"kind\":\"Status\"}GARBAGE";
	CU_ASSERT_EQUAL(nl_status_parse(&st, prefix, 17), 0);
	nl_status_free(st);
}

static void test_status__from_json_borrows(void)
{
	json_object *o = nl_test_json("{\"kind\":\"Status\",\"status\":\"Failure\",\"code\":410}");
	nl_status *st = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_status_from_json(&st, o), 0);
	CU_ASSERT_EQUAL(st->code, 410);
	json_object_put(o);
	CU_ASSERT_STRING_EQUAL(st->status, "Failure");
	nl_status_free(st);
	CU_ASSERT_EQUAL(nl_status_from_json(&st, NULL), NL_EPARSE);
}

/* A NUL Go puts in a Status (a name or key from the request) is held as
 * NL_JSON_KEY_NUL in the C strings: quoted "\x00" in the message, \u0000 in
 * the JSON, as apimachinery writes them. */
static void test_status__marked_nul_is_written_as_go_writes_it(void)
{
	nl_status *st = nl_status_invalid("ConfigMap", NULL, "a" NL_JSON_KEY_NUL "b");
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_EQUAL(nl_status_add_cause(st, NL_CAUSE_INVALID, "Invalid value: \"k\\x00\"",
	                                    "data[k" NL_JSON_KEY_NUL "]"),
	                0);
	CU_ASSERT_EQUAL(nl_status_finish_invalid(st), 0);
	json_object *j = nl_status_to_json(st);
	NL_ASSERT_JSON_EQ(j, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
	                     "\"status\":\"Failure\",\"message\":\"ConfigMap \\\"a\\\\x00b\\\" is "
	                     "invalid: data[k\\u0000]: Invalid value: \\\"k\\\\x00\\\"\","
	                     "\"reason\":\"Invalid\",\"details\":{\"name\":\"a\\u0000b\","
	                     "\"kind\":\"ConfigMap\",\"causes\":[{\"reason\":\"FieldValueInvalid\","
	                     "\"message\":\"Invalid value: \\\"k\\\\x00\\\"\","
	                     "\"field\":\"data[k\\u0000]\"}]},\"code\":422}");
	json_object_put(j);
	nl_status_free(st);
}

/* metadata.continue of an expired paging list: written and read back. */
static void test_status__continue_token_round_trips(void)
{
	nl_status *st = nl_status_new(410, "Expired", "too old");
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	st->continue_token = strdup("tok");
	json_object *j = nl_status_to_json(st);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(nl_json_get_path(j, "metadata.continue")),
	                       "tok");
	nl_status *back = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_status_from_json(&back, j), 0);
	CU_ASSERT_STRING_EQUAL(back->continue_token, "tok");
	nl_status_free(back);
	json_object_put(j);
	nl_status_free(st);
}

/* A hostile server's invalid UTF-8 reads as client-go's decoder reads it:
 * each bad byte one U+FFFD, so encoding it back and parsing again gives the
 * same fields (an overlong "\xc0\x80" was written back as \u0000 and cut
 * the kind short: found by fuzz_status). */
static void test_status__invalid_utf8_reads_as_go_reads_it(void)
{
	static const char body[] = "{\"kind\":\"Status\",\"status\":\"Failure\","
	                           "\"message\":\"a\xff b\",\"reason\":\"NotFound\","
	                           "\"details\":{\"kind\":\"l\xc0\x80"
	                           "eases\"},\"code\":404}";
	nl_status *st = NULL, *back = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_status_parse(&st, body, sizeof(body) - 1), 0);
	CU_ASSERT_STRING_EQUAL(st->message, "a\xef\xbf\xbd b");
	CU_ASSERT_STRING_EQUAL(st->kind, "l\xef\xbf\xbd\xef\xbf\xbd"
	                                 "eases");
	char *text = nl_status_to_string(st);
	CU_ASSERT_EQUAL_FATAL(nl_status_parse(&back, text, strlen(text)), 0);
	CU_ASSERT_STRING_EQUAL(back->kind, st->kind);
	CU_ASSERT_STRING_EQUAL(back->message, st->message);
	free(text);
	nl_status_free(st);
	nl_status_free(back);
}

static CU_TestInfo status_tests[] = {
    {"marked_nul_is_written_as_go_writes_it", test_status__marked_nul_is_written_as_go_writes_it},
    {"continue_token_round_trips", test_status__continue_token_round_trips},
    {"not_found", test_status__not_found},
    {"already_exists", test_status__already_exists},
    {"conflict_defaults_to_optimistic_lock_text",
     test_status__conflict_defaults_to_optimistic_lock_text},
    {"conflict_key_order_is_exact", test_status__conflict_key_order_is_exact},
    {"conflict_with_custom_reason", test_status__conflict_with_custom_reason},
    {"invalid_single_cause", test_status__invalid_single_cause},
    {"invalid_several_causes_are_bracketed", test_status__invalid_several_causes_are_bracketed},
    {"invalid_core_kind_and_duplicates", test_status__invalid_core_kind_and_duplicates},
    {"invalid_without_causes", test_status__invalid_without_causes},
    {"bad_request", test_status__bad_request},
    {"method_not_allowed", test_status__method_not_allowed},
    {"unknown_path_has_empty_details", test_status__unknown_path_has_empty_details},
    {"too_large", test_status__too_large},
    {"expired", test_status__expired},
    {"internal", test_status__internal},
    {"timeout_for_too_large_rv", test_status__timeout_for_too_large_rv},
    {"delete_success", test_status__delete_success},
    {"every_field_is_omitempty", test_status__every_field_is_omitempty},
    {"details_key_order_is_exact", test_status__details_key_order_is_exact},
    {"strings_are_escaped_but_slashes_are_not",
     test_status__strings_are_escaped_but_slashes_are_not},
    {"set_details_null_keeps_field", test_status__set_details_null_keeps_field},
    {"names_are_quoted_like_go", test_status__names_are_quoted_like_go},
    {"non_printable_runes_are_escaped", test_status__non_printable_runes_are_escaped},
    {"gr_string", test_status__gr_string},
    {"parse_reads_every_field", test_status__parse_reads_every_field},
    {"parse_then_encode_reproduces_every_fixture",
     test_status__parse_then_encode_reproduces_every_fixture},
    {"parse_is_tolerant", test_status__parse_is_tolerant},
    {"parse_rejects_non_status", test_status__parse_rejects_non_status},
    {"from_json_borrows", test_status__from_json_borrows},
    {"invalid_utf8_reads_as_go_reads_it", test_status__invalid_utf8_reads_as_go_reads_it},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"status", NULL, NULL, NULL, NULL, status_tests},
    CU_SUITE_INFO_NULL,
};
