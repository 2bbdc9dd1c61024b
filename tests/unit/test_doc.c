/* nl_doc: YAML/JSON manifests read the way kubectl reads them
 * (sigs.k8s.io/yaml, i.e. go-yaml v2 decoding then JSON). */
#include "../cu_main.h"

#include <nodelet/doc.h>
#include <nodelet/errors.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static json_object *parse_ok(const char *yaml)
{
	json_object *docs = NULL;
	nl_err err = {0};
	int rc = nl_doc_parse(&docs, yaml, strlen(yaml), "test.yaml", &err);
	if (rc)
		fprintf(stderr, "\n  unexpected error %d: %s\n", rc, err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	return docs;
}

/* Parse input that must fail; checks *out stays untouched. */
static int parse_fail(const char *yaml, size_t len, nl_err *err)
{
	json_object *sentinel = json_object_new_object();
	json_object *out = sentinel;
	int rc = nl_doc_parse(&out, yaml, len, "bad.yaml", err);
	CU_ASSERT_PTR_EQUAL(out, sentinel);
	CU_ASSERT_EQUAL(err->code, rc);
	json_object_put(sentinel);
	return rc;
}

static void assert_contains(const char *haystack, const char *needle)
{
	if (!strstr(haystack, needle))
		fprintf(stderr, "\n  \"%s\" does not contain \"%s\"\n", haystack, needle);
	CU_ASSERT_PTR_NOT_NULL(strstr(haystack, needle));
}

static void test_doc__multi_document_stream_keeps_order(void)
{
	json_object *docs = parse_ok("a: 1\n---\nb: two\n---\n- x\n");
	NL_ASSERT_JSON_EQ(docs, "[{\"a\":1},{\"b\":\"two\"},[\"x\"]]");
	json_object_put(docs);
}

static void test_doc__empty_and_null_documents_are_skipped(void)
{
	json_object *docs =
	    parse_ok("---\n---\n# only a comment\n---\na: 1\n---\n~\n---\nnull\n---\n");
	NL_ASSERT_JSON_EQ(docs, "[{\"a\":1}]");
	json_object_put(docs);
}

static void test_doc__empty_input_is_an_empty_array(void)
{
	json_object *docs = NULL;
	CU_ASSERT_EQUAL(nl_doc_parse(&docs, NULL, 0, NULL, NULL), 0);
	NL_ASSERT_JSON_EQ(docs, "[]");
	json_object_put(docs);
	docs = parse_ok("");
	NL_ASSERT_JSON_EQ(docs, "[]");
	json_object_put(docs);
	docs = parse_ok("# nothing but a comment\n\n");
	NL_ASSERT_JSON_EQ(docs, "[]");
	json_object_put(docs);
}

/* Parse "v: <yaml>" and compare v with the expected JSON, types included. */
static void check_scalar(const char *yaml, const char *expected)
{
	char in[256], want[256];
	snprintf(in, sizeof(in), "v: %s\n", yaml);
	snprintf(want, sizeof(want), "{\"v\":%s}", expected);
	json_object *docs = parse_ok(in);
	if (!docs)
		return;
	json_object *doc = json_object_array_get_idx(docs, 0);
	json_object *exp = json_tokener_parse(want);
	CU_ASSERT_PTR_NOT_NULL_FATAL(exp);
	json_object *v = NULL, *ev = NULL;
	json_object_object_get_ex(doc, "v", &v);
	json_object_object_get_ex(exp, "v", &ev);
	int same = json_object_equal(v, ev) && json_object_get_type(v) == json_object_get_type(ev);
	if (!same)
		fprintf(stderr, "\n  %s: expected %s, got %s\n", yaml, expected,
		        json_object_to_json_string(doc));
	CU_ASSERT_TRUE(same);
	json_object_put(exp);
	json_object_put(docs);
}

static void test_doc__plain_scalars_resolve_like_go_yaml_v2(void)
{
	static const char *const table[][2] = {
	    /* null */
	    {"~", "null"},
	    {"null", "null"},
	    {"Null", "null"},
	    {"NULL", "null"},
	    {"", "null"},
	    {"nULL", "\"nULL\""},
	    /* YAML 1.1 booleans in exactly the spellings go-yaml v2 knows */
	    {"true", "true"},
	    {"True", "true"},
	    {"TRUE", "true"},
	    {"yes", "true"},
	    {"Yes", "true"},
	    {"YES", "true"},
	    {"y", "true"},
	    {"Y", "true"},
	    {"on", "true"},
	    {"On", "true"},
	    {"ON", "true"},
	    {"false", "false"},
	    {"no", "false"},
	    {"No", "false"},
	    {"NO", "false"},
	    {"n", "false"},
	    {"off", "false"},
	    {"OFF", "false"},
	    {"tRUE", "\"tRUE\""},
	    {"yEs", "\"yEs\""},
	    /* integers: strconv.ParseInt(s, 0, 64) after dropping '_' */
	    {"42", "42"},
	    {"-17", "-17"},
	    {"+12", "12"},
	    {"0", "0"},
	    {"0x1F", "31"},
	    {"0X1f", "31"},
	    {"-0x1F", "-31"},
	    {"010", "8"},
	    {"0o17", "15"},
	    {"0b101", "5"},
	    {"1_000", "1000"},
	    {"9223372036854775807", "9223372036854775807"},
	    {"-9223372036854775808", "-9223372036854775808"},
	    {"12345678901234567890", "12345678901234567890"},
	    /* floats; integral ones come out as JSON integers, as from
	     * sigs.k8s.io/yaml's json.Marshal */
	    {"1e3", "1000"},
	    {"1.0", "1"},
	    {"08", "8"},
	    {"1.5", "1.5"},
	    {".5", "0.5"},
	    {"-2.5e-3", "-0.0025"},
	    {"99999999999999999999", "1e20"},
	    /* everything else is a string */
	    {"1e400", "\"1e400\""},
	    {"0x", "\"0x\""},
	    {"1.2.3", "\"1.2.3\""},
	    {"12:30", "\"12:30\""},
	    {"2024-05-01", "\"2024-05-01\""},
	    {"<<", "\"<<\""},
	    {"edge-1", "\"edge-1\""},
	    /* quoting always means a string */
	    {"\"true\"", "\"true\""},
	    {"'yes'", "\"yes\""},
	    {"\"0x1F\"", "\"0x1F\""},
	    {"'~'", "\"~\""},
	    {"\"\"", "\"\""},
	    /* explicit tags */
	    {"!!str 12", "\"12\""},
	    {"!!str true", "\"true\""},
	    {"!!int \"12\"", "12"},
	    {"!!float 1.5", "1.5"},
	    {"!!float '2'", "2"},
	    {"!!bool \"yes\"", "true"},
	    {"!!null ~", "null"},
	    {"!!binary aGVsbG8=", "\"hello\""},
	    {"!!timestamp 2001-12-14", "\"2001-12-14\""},
	    {"!custom 12", "\"12\""},
	    {"! 12", "\"12\""},
	};
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		check_scalar(table[i][0], table[i][1]);
}

static void test_doc__special_floats_are_doubles(void)
{
	json_object *docs = parse_ok("a: .inf\nb: -.Inf\nc: .NaN\nd: +.INF\n");
	json_object *doc = json_object_array_get_idx(docs, 0), *v;
	CU_ASSERT_TRUE(json_object_object_get_ex(doc, "a", &v));
	CU_ASSERT_TRUE(json_object_is_type(v, json_type_double));
	CU_ASSERT_TRUE(isinf(json_object_get_double(v)) && json_object_get_double(v) > 0);
	json_object_object_get_ex(doc, "b", &v);
	CU_ASSERT_TRUE(isinf(json_object_get_double(v)) && json_object_get_double(v) < 0);
	json_object_object_get_ex(doc, "c", &v);
	CU_ASSERT_TRUE(isnan(json_object_get_double(v)));
	json_object_object_get_ex(doc, "d", &v);
	CU_ASSERT_TRUE(isinf(json_object_get_double(v)));
	json_object_put(docs);
}

static void test_doc__floats_serialise_like_encoding_json(void)
{
	json_object *docs = parse_ok("[0.1, 1e-7, 2.5e+25, -3.25]");
	json_object *arr = json_object_array_get_idx(docs, 0);
	CU_ASSERT_STRING_EQUAL(json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PLAIN),
	                       "[0.1,1e-7,2.5e+25,-3.25]");
	json_object_put(docs);
}

static void test_doc__block_scalars_are_strings(void)
{
	json_object *docs = parse_ok("a: |\n  yes\nb: >-\n  42\nc: |-\n  line one\n  line two\n");
	NL_ASSERT_JSON_EQ(json_object_array_get_idx(docs, 0),
	                  "{\"a\":\"yes\\n\",\"b\":\"42\",\"c\":\"line one\\nline two\"}");
	json_object_put(docs);
}

static void test_doc__tag_that_does_not_fit_fails(void)
{
	nl_err err = {0};
	const char *in = "a: 1\nb: !!int abc\n";
	CU_ASSERT_EQUAL(parse_fail(in, strlen(in), &err), NL_EPARSE);
	CU_ASSERT_STRING_EQUAL(err.msg,
	                       "bad.yaml: line 2, column 4: cannot decode !!str `abc` as a !!int");
	in = "a: !!binary not*base64\n";
	CU_ASSERT_EQUAL(parse_fail(in, strlen(in), &err), NL_EPARSE);
	assert_contains(err.msg, "!!binary value contains invalid base64 data");
}

static void test_doc__non_string_keys_become_their_text(void)
{
	/* go-yaml v2 reads the key `y` as a boolean too: a classic surprise,
	 * reproduced because kubectl has it. */
	json_object *docs = parse_ok("1: a\n1.5: b\ntrue: c\n0x10: d\n1e7: e\n-0.25: f\nno: g\n"
	                             "y: h\n3.14159265358979: i\n");
	NL_ASSERT_JSON_EQ(json_object_array_get_idx(docs, 0),
	                  "{\"1\":\"a\",\"1.5\":\"b\",\"true\":\"h\",\"16\":\"d\","
	                  "\"1e+07\":\"e\",\"-0.25\":\"f\",\"false\":\"g\",\"3.1415927\":\"i\"}");
	json_object_put(docs);
}

static void test_doc__unsupported_keys_fail(void)
{
	nl_err err = {0};
	const char *in = "a: 1\n~: 2\n";
	CU_ASSERT_EQUAL(parse_fail(in, strlen(in), &err), NL_EPARSE);
	CU_ASSERT_STRING_EQUAL(err.msg,
	                       "bad.yaml: line 2, column 1: unsupported map key of type null");
	in = "? [a, b]\n: 1\n";
	CU_ASSERT_EQUAL(parse_fail(in, strlen(in), &err), NL_EPARSE);
	assert_contains(err.msg, "invalid map key: a sequence");
}

static void test_doc__duplicate_keys_keep_the_last_value(void)
{
	json_object *docs = parse_ok("a: 1\nb: 2\na: 3\nyes: first\ntrue: second\n");
	NL_ASSERT_JSON_EQ(json_object_array_get_idx(docs, 0),
	                  "{\"a\":3,\"b\":2,\"true\":\"second\"}");
	json_object_put(docs);
}

static void test_doc__anchors_and_aliases_expand(void)
{
	json_object *docs = parse_ok("base: &b {x: 1, z: [1, two]}\n"
	                             "copy: *b\n"
	                             "list: [&s str, *s]\n");
	NL_ASSERT_JSON_EQ(
	    json_object_array_get_idx(docs, 0),
	    "{\"base\":{\"x\":1,\"z\":[1,\"two\"]},\"copy\":{\"x\":1,\"z\":[1,\"two\"]},"
	    "\"list\":[\"str\",\"str\"]}");
	json_object_put(docs);
}

static void test_doc__anchors_are_per_document(void)
{
	nl_err err = {0};
	const char *in = "a: &x 1\n---\nb: *x\n";
	CU_ASSERT_EQUAL(parse_fail(in, strlen(in), &err), NL_EPARSE);
	CU_ASSERT_STRING_EQUAL(err.msg,
	                       "bad.yaml: line 3, column 4: unknown anchor 'x' referenced");
}

static void test_doc__merge_keys_follow_go_yaml_v2(void)
{
	json_object *docs = parse_ok("defaults: &d {a: 1, b: 2}\n"
	                             "other: &o {b: 20, c: 30}\n"
	                             "one:\n  <<: *d\n  b: 3\n"
	                             "many:\n  <<: [*d, *o]\n"
	                             "quoted:\n  '<<': *d\n");
	NL_ASSERT_JSON_EQ(json_object_array_get_idx(docs, 0),
	                  "{\"defaults\":{\"a\":1,\"b\":2},\"other\":{\"b\":20,\"c\":30},"
	                  "\"one\":{\"a\":1,\"b\":3},\"many\":{\"a\":1,\"b\":2,\"c\":30},"
	                  "\"quoted\":{\"<<\":{\"a\":1,\"b\":2}}}");
	json_object_put(docs);

	nl_err err = {0};
	const char *in = "x: &x 1\ny:\n  <<: *x\n";
	CU_ASSERT_EQUAL(parse_fail(in, strlen(in), &err), NL_EPARSE);
	assert_contains(err.msg, "map merge requires map or sequence of maps as the value");
}

static void test_doc__self_containing_anchor_fails(void)
{
	nl_err err = {0};
	const char *in = "a: &a [1, *a]\n";
	CU_ASSERT_EQUAL(parse_fail(in, strlen(in), &err), NL_EPARSE);
	CU_ASSERT_STRING_EQUAL(err.msg,
	                       "bad.yaml: line 1, column 11: anchor 'a' value contains itself");
	in = "a: &a {<<: *a}\n";
	CU_ASSERT_EQUAL(parse_fail(in, strlen(in), &err), NL_EPARSE);
	assert_contains(err.msg, "anchor 'a' value contains itself");
}

static void test_doc__alias_bomb_is_refused(void)
{
	/* "billion laughs": nine levels of nine aliases, 9^9 leaves */
	const char *in = "a: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n"
	                 "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
	                 "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
	                 "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
	                 "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
	                 "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
	                 "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
	                 "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
	                 "i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n";
	nl_err err = {0};
	CU_ASSERT_EQUAL(parse_fail(in, strlen(in), &err), NL_ETOOBIG);
	assert_contains(err.msg, "document contains excessive aliasing");
}

/* n nested flow sequences around a scalar. */
static char *nested(size_t n)
{
	char *s = malloc(2 * n + 2);
	memset(s, '[', n);
	s[n] = '1';
	memset(s + n + 1, ']', n);
	s[2 * n + 1] = '\0';
	return s;
}

static void test_doc__nesting_is_bounded(void)
{
	char *ok = nested(NL_DOC_MAX_DEPTH);
	json_object *docs = parse_ok(ok);
	CU_ASSERT_EQUAL(json_object_array_length(docs), 1);
	json_object_put(docs);
	free(ok);

	char *deep = nested(NL_DOC_MAX_DEPTH + 1);
	nl_err err = {0};
	CU_ASSERT_EQUAL(parse_fail(deep, strlen(deep), &err), NL_EPARSE);
	assert_contains(err.msg, "nesting deeper than 1000 levels");
	free(deep);
}

static void test_doc__nesting_through_aliases_is_bounded(void)
{
	/* Each part is shallow; expanding *x inside y is 1100 levels deep. */
	char *x = nested(600), *y = nested(500);
	size_t len = strlen(x) + strlen(y) + 32;
	char *in = malloc(len);
	char *mid = y + 500; /* the '1' inside y becomes the alias */
	*mid = '\0';
	snprintf(in, len, "x: &x %s\ny: %s*x%s\n", x, y, mid + 1);
	nl_err err = {0};
	CU_ASSERT_EQUAL(parse_fail(in, strlen(in), &err), NL_EPARSE);
	assert_contains(err.msg, "nesting deeper than 1000 levels");
	free(in);
	free(x);
	free(y);
}

static void test_doc__syntax_error_names_line_and_column(void)
{
	nl_err err = {0};
	const char *in = "apiVersion: v1\nkind: ConfigMap\ndata:\n  key: a: b\n";
	CU_ASSERT_EQUAL(parse_fail(in, strlen(in), &err), NL_EPARSE);
	CU_ASSERT_STRING_EQUAL(err.msg, "bad.yaml: line 4, column 9: mapping values are not "
	                                "allowed in this context");

	in = "a: 1\n---\nb: [1, 2\nc: 3\n";
	CU_ASSERT_EQUAL(parse_fail(in, strlen(in), &err), NL_EPARSE);
	assert_contains(err.msg, "bad.yaml: line 4, column 2: did not find expected ',' or ']' "
	                         "(while parsing a flow sequence at line 3, column 4)");
}

static void test_doc__invalid_utf8_names_its_position(void)
{
	nl_err err = {0};
	const char *in = "a: b\nc: \xff\n";
	CU_ASSERT_EQUAL(parse_fail(in, strlen(in), &err), NL_EPARSE);
	assert_contains(err.msg, "bad.yaml: line 2, column 4: invalid leading UTF-8 octet");
}

static void test_doc__json_keeps_big_numbers(void)
{
	const char *in = "{\"apiVersion\": \"v1\", \"max\": 9223372036854775807,\n"
	                 "\t\"min\": -9223372036854775808, \"big\": 18446744073709551615,\n"
	                 "\t\"pi\": 3.141592653589793, \"tiny\": 1e-7, \"s\": \"caf\\u00e9\\n\",\n"
	                 "\t\"n\": null, \"t\": true, \"arr\": [1, 2.5, \"3\"], \"o\": {}}\n";
	json_object *docs = parse_ok(in);
	json_object *doc = json_object_array_get_idx(docs, 0), *v;
	CU_ASSERT_TRUE(json_object_object_get_ex(doc, "max", &v));
	CU_ASSERT_EQUAL(json_object_get_int64(v), INT64_MAX);
	CU_ASSERT_TRUE(json_object_object_get_ex(doc, "min", &v));
	CU_ASSERT_EQUAL(json_object_get_int64(v), INT64_MIN);
	CU_ASSERT_TRUE(json_object_object_get_ex(doc, "big", &v));
	CU_ASSERT_EQUAL(json_object_get_uint64(v), UINT64_MAX);
	CU_ASSERT_TRUE(json_object_object_get_ex(doc, "pi", &v));
	CU_ASSERT_TRUE(json_object_is_type(v, json_type_double));
	CU_ASSERT_EQUAL(json_object_get_double(v), 3.141592653589793);
	CU_ASSERT_STRING_EQUAL(json_object_to_json_string(v), "3.141592653589793");
	CU_ASSERT_TRUE(json_object_object_get_ex(doc, "s", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "caf\xc3\xa9\n");
	NL_ASSERT_JSON_EQ(doc, "{\"apiVersion\":\"v1\",\"max\":9223372036854775807,"
	                       "\"min\":-9223372036854775808,\"big\":18446744073709551615,"
	                       "\"pi\":3.141592653589793,\"tiny\":1e-7,\"s\":\"caf\\u00e9\\n\","
	                       "\"n\":null,\"t\":true,\"arr\":[1,2.5,\"3\"],\"o\":{}}");
	json_object_put(docs);

	docs = parse_ok("{\"kind\":\"ConfigMap\",\"data\":{\"k\":\"v\"},\"x\":[true,null,1e3]}");
	NL_ASSERT_JSON_EQ(docs, "[{\"kind\":\"ConfigMap\",\"data\":{\"k\":\"v\"},\"x\":[true,null,"
	                        "1000]}]");
	json_object_put(docs);
}

static void test_doc__lists_are_flattened(void)
{
	json_object *docs =
	    parse_ok("apiVersion: v1\nkind: List\nitems:\n"
	             "- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n"
	             "- {apiVersion: v1, kind: Node, metadata: {name: b}}\n"
	             "---\n"
	             "apiVersion: v1\nkind: ConfigMapList\nmetadata: {resourceVersion: \"7\"}\n"
	             "items:\n- metadata: {name: c}\n- {kind: Other, metadata: {name: d}}\n"
	             "---\n"
	             "apiVersion: v1\nkind: List\n"
	             "---\n"
	             "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: e}\n");
	NL_ASSERT_JSON_EQ(docs,
	                  "[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
	                  "\"a\"}},"
	                  "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"b\"}},"
	                  "{\"metadata\":{\"name\":\"c\"},\"kind\":\"ConfigMap\",\"apiVersion\":"
	                  "\"v1\"},"
	                  "{\"kind\":\"Other\",\"metadata\":{\"name\":\"d\"}},"
	                  "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
	                  "\"e\"}}]");
	json_object_put(docs);
}

static void test_doc__list_kind_without_items_array_is_kept(void)
{
	json_object *docs = parse_ok("kind: WatchList\nitems: nope\n");
	NL_ASSERT_JSON_EQ(docs, "[{\"kind\":\"WatchList\",\"items\":\"nope\"}]");
	json_object_put(docs);
}

static void test_doc__parse_one_returns_the_single_document(void)
{
	json_object *o = NULL;
	const char *in = "kind: List\nitems: [{a: 1}]\n---\n";
	CU_ASSERT_EQUAL(nl_doc_parse_one(&o, in, strlen(in), NULL, NULL), 0);
	NL_ASSERT_JSON_EQ(o, "{\"kind\":\"List\",\"items\":[{\"a\":1}]}");
	json_object_put(o);
}

static void test_doc__parse_one_refuses_zero_or_two_documents(void)
{
	json_object *sentinel = json_object_new_object();
	json_object *o = sentinel;
	nl_err err = {0};
	CU_ASSERT_EQUAL(nl_doc_parse_one(&o, "", 0, "cfg", &err), NL_EPARSE);
	CU_ASSERT_STRING_EQUAL(err.msg, "cfg: no document found");
	CU_ASSERT_EQUAL(nl_doc_parse_one(&o, "---\n~\n", 6, "cfg", &err), NL_EPARSE);
	const char *two = "a: 1\n---\nb: 2\n";
	CU_ASSERT_EQUAL(nl_doc_parse_one(&o, two, strlen(two), "cfg", &err), NL_EPARSE);
	CU_ASSERT_STRING_EQUAL(err.msg, "cfg: line 3, column 1: expected a single document, "
	                                "found more");
	CU_ASSERT_PTR_EQUAL(o, sentinel);
	json_object_put(sentinel);
}

static void test_doc__load_file_of_missing_file_is_eio(void)
{
	json_object *o = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL(nl_doc_load_file(&o, "/nonexistent/nodelet/x.yaml", &err), NL_EIO);
	CU_ASSERT_PTR_NULL(o);
	CU_ASSERT_STRING_EQUAL(err.msg, "/nonexistent/nodelet/x.yaml: No such file or directory");
}

static const char *field(json_object *o, const char *a, const char *b, const char *c)
{
	json_object *v = o;
	const char *path[] = {a, b, c};
	for (int i = 0; i < 3 && path[i] && v; i++)
		if (!json_object_object_get_ex(v, path[i], &v))
			return NULL;
	return v ? json_object_get_string(v) : NULL;
}

static void test_doc__sample_fixture_holds_four_objects(void)
{
	json_object *docs = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(
	    nl_doc_load_file(&docs, nl_test_fixture("manifests/sample.yaml"), &err), 0);
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(docs), 4);
	json_object *node = json_object_array_get_idx(docs, 0);
	json_object *cfg = json_object_array_get_idx(docs, 1);
	json_object *lease = json_object_array_get_idx(docs, 2);
	json_object *counter = json_object_array_get_idx(docs, 3);

	CU_ASSERT_STRING_EQUAL(field(node, "kind", NULL, NULL), "Node");
	CU_ASSERT_STRING_EQUAL(field(node, "metadata", "name", NULL), "edge-1");
	json_object *cs = NULL;
	CU_ASSERT_TRUE(
	    json_object_object_get_ex(json_object_object_get(node, "spec"), "configSource", &cs));
	NL_ASSERT_JSON_EQ(cs, "{\"configMap\":{\"namespace\":\"kube-system\",\"name\":"
	                      "\"edge-config\",\"kubeletConfigKey\":\"nodelet\"}}");
	CU_ASSERT_STRING_EQUAL(field(node, "metadata", "labels", "node-role.kubernetes.io/edge"),
	                       "");

	CU_ASSERT_STRING_EQUAL(field(cfg, "metadata", "namespace", NULL), "kube-system");
	const char *nodelet = field(cfg, "data", "nodelet", NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(nodelet);
	json_object *conf = NULL;
	CU_ASSERT_EQUAL(nl_doc_parse_one(&conf, nodelet, strlen(nodelet), "nodelet", &err), 0);
	CU_ASSERT_EQUAL(
	    json_object_get_int(json_object_object_get(conf, "nodeLeaseDurationSeconds")), 40);
	json_object_put(conf);

	CU_ASSERT_STRING_EQUAL(field(lease, "apiVersion", NULL, NULL), "coordination.k8s.io/v1");
	CU_ASSERT_STRING_EQUAL(field(lease, "metadata", "namespace", NULL), "kube-node-lease");
	CU_ASSERT_STRING_EQUAL(field(lease, "spec", "holderIdentity", NULL), "edge-1");
	CU_ASSERT_STRING_EQUAL(field(lease, "spec", "renewTime", NULL),
	                       "2024-05-01T10:00:00.123456Z");
	json_object *dur = NULL;
	json_object_object_get_ex(json_object_object_get(lease, "spec"), "leaseDurationSeconds",
	                          &dur);
	CU_ASSERT_TRUE(json_object_is_type(dur, json_type_int));
	CU_ASSERT_EQUAL(json_object_get_int(dur), 40);

	NL_ASSERT_JSON_EQ(counter, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
	                           "{\"name\":\"counter\",\"namespace\":\"default\"},"
	                           "\"data\":{\"count\":\"0\"}}");
	json_object_put(docs);
}

static char *temp_file(const char *content, size_t len)
{
	char *path = strdup("/tmp/nl-test-doc-XXXXXX");
	int fd = mkstemp(path);
	CU_ASSERT_TRUE_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, content, len), (ssize_t)len);
	close(fd);
	return path;
}

static void test_doc__file_read_honours_the_cap(void)
{
	char data[100];
	memset(data, 'x', sizeof(data));
	char *path = temp_file(data, sizeof(data));
	char *buf = NULL;
	size_t len = 0;
	nl_err err = {0};
	CU_ASSERT_EQUAL(nl_file_read(&buf, &len, path, 100, &err), 0);
	CU_ASSERT_EQUAL(len, 100);
	CU_ASSERT_EQUAL(buf[100], '\0');
	CU_ASSERT_EQUAL(memcmp(buf, data, 100), 0);
	free(buf);
	buf = NULL;
	CU_ASSERT_EQUAL(nl_file_read(&buf, &len, path, 99, &err), NL_ETOOBIG);
	CU_ASSERT_PTR_NULL(buf);
	assert_contains(err.msg, "file is larger than 99 bytes");
	unlink(path);
	free(path);
}

static void test_doc__file_read_of_empty_file(void)
{
	char *path = temp_file("", 0);
	char *buf = NULL;
	size_t len = 7;
	CU_ASSERT_EQUAL(nl_file_read(&buf, &len, path, 10, NULL), 0);
	CU_ASSERT_EQUAL(len, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	CU_ASSERT_STRING_EQUAL(buf, "");
	free(buf);
	json_object *docs = NULL;
	CU_ASSERT_EQUAL(nl_doc_load_file(&docs, path, NULL), 0);
	NL_ASSERT_JSON_EQ(docs, "[]");
	json_object_put(docs);
	unlink(path);
	free(path);
}

static CU_TestInfo doc_tests[] = {
    {"multi_document_stream_keeps_order", test_doc__multi_document_stream_keeps_order},
    {"empty_and_null_documents_are_skipped", test_doc__empty_and_null_documents_are_skipped},
    {"empty_input_is_an_empty_array", test_doc__empty_input_is_an_empty_array},
    {"plain_scalars_resolve_like_go_yaml_v2", test_doc__plain_scalars_resolve_like_go_yaml_v2},
    {"special_floats_are_doubles", test_doc__special_floats_are_doubles},
    {"floats_serialise_like_encoding_json", test_doc__floats_serialise_like_encoding_json},
    {"block_scalars_are_strings", test_doc__block_scalars_are_strings},
    {"tag_that_does_not_fit_fails", test_doc__tag_that_does_not_fit_fails},
    {"non_string_keys_become_their_text", test_doc__non_string_keys_become_their_text},
    {"unsupported_keys_fail", test_doc__unsupported_keys_fail},
    {"duplicate_keys_keep_the_last_value", test_doc__duplicate_keys_keep_the_last_value},
    {"anchors_and_aliases_expand", test_doc__anchors_and_aliases_expand},
    {"anchors_are_per_document", test_doc__anchors_are_per_document},
    {"merge_keys_follow_go_yaml_v2", test_doc__merge_keys_follow_go_yaml_v2},
    {"self_containing_anchor_fails", test_doc__self_containing_anchor_fails},
    {"alias_bomb_is_refused", test_doc__alias_bomb_is_refused},
    {"nesting_is_bounded", test_doc__nesting_is_bounded},
    {"nesting_through_aliases_is_bounded", test_doc__nesting_through_aliases_is_bounded},
    {"syntax_error_names_line_and_column", test_doc__syntax_error_names_line_and_column},
    {"invalid_utf8_names_its_position", test_doc__invalid_utf8_names_its_position},
    {"json_keeps_big_numbers", test_doc__json_keeps_big_numbers},
    {"lists_are_flattened", test_doc__lists_are_flattened},
    {"list_kind_without_items_array_is_kept", test_doc__list_kind_without_items_array_is_kept},
    {"parse_one_returns_the_single_document", test_doc__parse_one_returns_the_single_document},
    {"parse_one_refuses_zero_or_two_documents", test_doc__parse_one_refuses_zero_or_two_documents},
    {"load_file_of_missing_file_is_eio", test_doc__load_file_of_missing_file_is_eio},
    {"sample_fixture_holds_four_objects", test_doc__sample_fixture_holds_four_objects},
    {"file_read_honours_the_cap", test_doc__file_read_honours_the_cap},
    {"file_read_of_empty_file", test_doc__file_read_of_empty_file},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"doc", NULL, NULL, NULL, NULL, doc_tests},
    CU_SUITE_INFO_NULL,
};
