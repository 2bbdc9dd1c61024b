/* The PATCH engines: RFC 7386 merge patch, RFC 6902 JSON patch (with the
 * error texts of evanphx/json-patch as kube-apiserver reports them) and
 * strategic merge patch as k8s.io/apimachinery/pkg/util/strategicpatch
 * applies it server-side. */
#include "../cu_main.h"

#include "patch/patch.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const mock_resource node_r = {.id = MOCK_KIND_NODE, .kind = "Node"};
static const mock_resource configmap_r = {.id = MOCK_KIND_CONFIGMAP, .kind = "ConfigMap"};
static const mock_resource namespace_r = {.id = MOCK_KIND_NAMESPACE, .kind = "Namespace"};

/* Parses any JSON text, "null" included (json-c's NULL). */
static json_object *parse(const char *text)
{
	enum json_tokener_error jerr = json_tokener_success;
	json_object *o = json_tokener_parse_verbose(text, &jerr);
	CU_ASSERT_EQUAL(jerr, json_tokener_success);
	if (jerr != json_tokener_success)
		fprintf(stderr, "\n  unparsable test JSON: %s\n", text);
	return o;
}

static void assert_json(json_object *actual, const char *expected)
{
	json_object *exp = parse(expected);
	int eq = json_object_equal(actual, exp);
	if (!eq)
		fprintf(stderr, "\n  expected: %s\n  actual:   %s\n", expected,
		        actual ? json_object_to_json_string_ext(actual, JSON_C_TO_STRING_PLAIN)
		               : "null");
	CU_ASSERT_TRUE(eq);
	json_object_put(exp);
}

/* Element order matters for lists, so compare the serialized text too. */
static void assert_json_text(json_object *actual, const char *expected)
{
	json_object *exp = parse(expected);
	const char *want = json_object_to_json_string_ext(exp, JSON_C_TO_STRING_PLAIN);
	const char *got = json_object_to_json_string_ext(actual, JSON_C_TO_STRING_PLAIN);
	if (strcmp(want, got) != 0)
		fprintf(stderr, "\n  expected: %s\n  actual:   %s\n", want, got);
	CU_ASSERT_STRING_EQUAL(got, want);
	json_object_put(exp);
}

static int has_directive(json_object *o)
{
	if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++)
			if (has_directive(json_object_array_get_idx(o, i)))
				return 1;
		return 0;
	}
	if (!json_object_is_type(o, json_type_object))
		return 0;
	json_object_object_foreach(o, k, v)
	{
		if (k[0] == '$' || has_directive(v))
			return 1;
	}
	return 0;
}

/* ------------------------------------------------------------ merge patch */

typedef int (*patch_fn)(json_object **out, json_object *doc, json_object *patch, nl_err *err);

static void check_ok(patch_fn fn, const char *doc_text, const char *patch_text,
                     const char *expected)
{
	json_object *doc = parse(doc_text);
	json_object *patch = parse(patch_text);
	json_object *saved = parse(doc_text);
	json_object *out = NULL;
	nl_err err = {0};
	int rc = fn(&out, doc, patch, &err);
	if (rc != 0)
		fprintf(stderr, "\n  patch %s failed: %s\n", patch_text, err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	assert_json(out, expected);
	CU_ASSERT_TRUE(json_object_equal(doc, saved));
	json_object_put(out);
	json_object_put(doc);
	json_object_put(patch);
	json_object_put(saved);
}

static void check_fail(patch_fn fn, const char *doc_text, const char *patch_text, int code,
                       const char *msg)
{
	json_object *doc = parse(doc_text);
	json_object *patch = parse(patch_text);
	json_object *saved = parse(doc_text);
	json_object *out = (json_object *)&out; /* sentinel: must stay untouched */
	nl_err err = {0};
	int rc = fn(&out, doc, patch, &err);
	CU_ASSERT_EQUAL(rc, code);
	CU_ASSERT_EQUAL(err.code, code);
	CU_ASSERT_PTR_EQUAL(out, (json_object *)&out);
	if (msg) {
		if (strcmp(err.msg, msg) != 0)
			fprintf(stderr, "\n  expected error: %s\n  actual error:   %s\n", msg,
			        err.msg);
		CU_ASSERT_STRING_EQUAL(err.msg, msg);
	}
	CU_ASSERT_TRUE(json_object_equal(doc, saved));
	json_object_put(doc);
	json_object_put(patch);
	json_object_put(saved);
}

static void test_patch__merge_rfc7386_appendix_a(void)
{
	static const char *const cases[][3] = {
	    {"{\"a\":\"b\"}", "{\"a\":\"c\"}", "{\"a\":\"c\"}"},
	    {"{\"a\":\"b\"}", "{\"b\":\"c\"}", "{\"a\":\"b\",\"b\":\"c\"}"},
	    {"{\"a\":\"b\"}", "{\"a\":null}", "{}"},
	    {"{\"a\":\"b\",\"b\":\"c\"}", "{\"a\":null}", "{\"b\":\"c\"}"},
	    {"{\"a\":[\"b\"]}", "{\"a\":\"c\"}", "{\"a\":\"c\"}"},
	    {"{\"a\":\"c\"}", "{\"a\":[\"b\"]}", "{\"a\":[\"b\"]}"},
	    {"{\"a\":{\"b\":\"c\"}}", "{\"a\":{\"b\":\"d\",\"c\":null}}", "{\"a\":{\"b\":\"d\"}}"},
	    {"{\"a\":[{\"b\":\"c\"}]}", "{\"a\":[1]}", "{\"a\":[1]}"},
	    {"[\"a\",\"b\"]", "[\"c\",\"d\"]", "[\"c\",\"d\"]"},
	    {"{\"a\":\"b\"}", "[\"c\"]", "[\"c\"]"},
	    {"{\"a\":\"foo\"}", "null", "null"},
	    {"{\"a\":\"foo\"}", "\"bar\"", "\"bar\""},
	    {"{\"e\":null}", "{\"a\":1}", "{\"e\":null,\"a\":1}"},
	    {"[1,2]", "{\"a\":\"b\",\"c\":null}", "{\"a\":\"b\"}"},
	    {"{}", "{\"a\":{\"bb\":{\"ccc\":null}}}", "{\"a\":{\"bb\":{}}}"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_ok(mock_patch_merge, cases[i][0], cases[i][1], cases[i][2]);
}

static void test_patch__merge_null_patch_yields_null(void)
{
	json_object *doc = parse("{\"a\":1}");
	json_object *out = doc; /* must be overwritten with JSON null */
	CU_ASSERT_EQUAL(mock_patch_merge(&out, doc, NULL, NULL), 0);
	CU_ASSERT_PTR_NULL(out);
	json_object_put(doc);
}

static void test_patch__merge_does_not_share_nodes_with_patch(void)
{
	json_object *doc = parse("{\"metadata\":{\"name\":\"a\"}}");
	json_object *patch = parse("{\"metadata\":{\"labels\":{\"x\":\"1\"}}}");
	json_object *out = NULL;
	CU_ASSERT_EQUAL_FATAL(mock_patch_merge(&out, doc, patch, NULL), 0);
	json_object *meta = NULL, *labels = NULL;
	json_object_object_get_ex(out, "metadata", &meta);
	json_object_object_get_ex(meta, "labels", &labels);
	json_object_object_add(labels, "y", json_object_new_string("2"));
	assert_json(patch, "{\"metadata\":{\"labels\":{\"x\":\"1\"}}}");
	assert_json(out, "{\"metadata\":{\"name\":\"a\",\"labels\":{\"x\":\"1\",\"y\":\"2\"}}}");
	json_object_put(out);
	json_object_put(doc);
	json_object_put(patch);
}

/* ------------------------------------------------------------- JSON patch */

static void test_patch__json_rfc6902_appendix_a_successes(void)
{
	/* A.1 adding an object member */
	check_ok(mock_patch_json, "{\"foo\":\"bar\"}",
	         "[{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\"}]",
	         "{\"baz\":\"qux\",\"foo\":\"bar\"}");
	/* A.2 adding an array element */
	check_ok(mock_patch_json, "{\"foo\":[\"bar\",\"baz\"]}",
	         "[{\"op\":\"add\",\"path\":\"/foo/1\",\"value\":\"qux\"}]",
	         "{\"foo\":[\"bar\",\"qux\",\"baz\"]}");
	/* A.3 removing an object member */
	check_ok(mock_patch_json, "{\"baz\":\"qux\",\"foo\":\"bar\"}",
	         "[{\"op\":\"remove\",\"path\":\"/baz\"}]", "{\"foo\":\"bar\"}");
	/* A.4 removing an array element */
	check_ok(mock_patch_json, "{\"foo\":[\"bar\",\"qux\",\"baz\"]}",
	         "[{\"op\":\"remove\",\"path\":\"/foo/1\"}]", "{\"foo\":[\"bar\",\"baz\"]}");
	/* A.5 replacing a value */
	check_ok(mock_patch_json, "{\"baz\":\"qux\",\"foo\":\"bar\"}",
	         "[{\"op\":\"replace\",\"path\":\"/baz\",\"value\":\"boo\"}]",
	         "{\"baz\":\"boo\",\"foo\":\"bar\"}");
	/* A.6 moving a value */
	check_ok(mock_patch_json,
	         "{\"foo\":{\"bar\":\"baz\",\"waldo\":\"fred\"},\"qux\":{\"corge\":\"grault\"}}",
	         "[{\"op\":\"move\",\"from\":\"/foo/waldo\",\"path\":\"/qux/thud\"}]",
	         "{\"foo\":{\"bar\":\"baz\"},\"qux\":{\"corge\":\"grault\",\"thud\":\"fred\"}}");
	/* A.7 moving an array element */
	check_ok(mock_patch_json, "{\"foo\":[\"all\",\"grass\",\"cows\",\"eat\"]}",
	         "[{\"op\":\"move\",\"from\":\"/foo/1\",\"path\":\"/foo/3\"}]",
	         "{\"foo\":[\"all\",\"cows\",\"eat\",\"grass\"]}");
	/* A.8 testing a value: success */
	check_ok(mock_patch_json, "{\"baz\":\"qux\",\"foo\":[\"a\",2,\"c\"]}",
	         "[{\"op\":\"test\",\"path\":\"/baz\",\"value\":\"qux\"},"
	         "{\"op\":\"test\",\"path\":\"/foo/1\",\"value\":2}]",
	         "{\"baz\":\"qux\",\"foo\":[\"a\",2,\"c\"]}");
	/* A.10 adding a nested member object */
	check_ok(mock_patch_json, "{\"foo\":\"bar\"}",
	         "[{\"op\":\"add\",\"path\":\"/child\",\"value\":{\"grandchild\":{}}}]",
	         "{\"foo\":\"bar\",\"child\":{\"grandchild\":{}}}");
	/* A.11 ignoring unrecognized elements */
	check_ok(mock_patch_json, "{\"foo\":\"bar\"}",
	         "[{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\",\"xyz\":123}]",
	         "{\"foo\":\"bar\",\"baz\":\"qux\"}");
	/* A.14 ~ escape ordering */
	check_ok(mock_patch_json, "{\"/\":9,\"~1\":10}",
	         "[{\"op\":\"test\",\"path\":\"/~01\",\"value\":10}]", "{\"/\":9,\"~1\":10}");
	/* A.16 adding an array value */
	check_ok(mock_patch_json, "{\"foo\":[\"bar\"]}",
	         "[{\"op\":\"add\",\"path\":\"/foo/-\",\"value\":[\"abc\",\"def\"]}]",
	         "{\"foo\":[\"bar\",[\"abc\",\"def\"]]}");
}

static void test_patch__json_rfc6902_appendix_a_errors(void)
{
	/* A.9 testing a value: error */
	check_fail(mock_patch_json, "{\"baz\":\"qux\"}",
	           "[{\"op\":\"test\",\"path\":\"/baz\",\"value\":\"bar\"}]", NL_EINVALID,
	           "testing value /baz failed: test failed");
	/* A.12 adding to a nonexistent target */
	check_fail(
	    mock_patch_json, "{\"foo\":\"bar\"}",
	    "[{\"op\":\"add\",\"path\":\"/baz/bat\",\"value\":\"qux\"}]", NL_EINVALID,
	    "add operation does not apply: doc is missing path: \"/baz/bat\": missing value");
	/* A.13 invalid JSON patch document: a parser keeps the last "op", so
	 * this is a remove of a member that does not exist. */
	check_fail(mock_patch_json, "{\"foo\":\"bar\"}",
	           "[{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\",\"op\":\"remove\"}]",
	           NL_EINVALID, NULL);
	/* A.15 comparing strings and numbers */
	check_fail(mock_patch_json, "{\"/\":9,\"~1\":10}",
	           "[{\"op\":\"test\",\"path\":\"/~01\",\"value\":\"10\"}]", NL_EINVALID,
	           "testing value /~01 failed: test failed");
}

static void test_patch__json_failed_test_reports_path(void)
{
	check_fail(mock_patch_json, "{\"spec\":{\"x\":1}}",
	           "[{\"op\":\"test\",\"path\":\"/spec/x\",\"value\":2}]", NL_EINVALID,
	           "testing value /spec/x failed: test failed");
	/* A member that is absent never equals a value, not even null. */
	check_fail(mock_patch_json, "{\"spec\":{}}",
	           "[{\"op\":\"test\",\"path\":\"/spec/x\",\"value\":null}]", NL_EINVALID,
	           "testing value /spec/x failed: test failed");
}

static void test_patch__json_test_compares_numbers_by_value(void)
{
	check_ok(mock_patch_json, "{\"a\":1,\"b\":[1.0,{\"c\":2}]}",
	         "[{\"op\":\"test\",\"path\":\"/a\",\"value\":1.0},"
	         "{\"op\":\"test\",\"path\":\"/b\",\"value\":[1,{\"c\":2.0}]},"
	         "{\"op\":\"test\",\"path\":\"\",\"value\":{\"b\":[1,{\"c\":2}],\"a\":1}}]",
	         "{\"a\":1,\"b\":[1.0,{\"c\":2}]}");
	check_fail(mock_patch_json, "{\"a\":{\"x\":1}}",
	           "[{\"op\":\"test\",\"path\":\"/a\",\"value\":{\"x\":1,\"y\":2}}]", NL_EINVALID,
	           "testing value /a failed: test failed");
}

static void test_patch__json_remove_missing_path(void)
{
	check_fail(
	    mock_patch_json, "{\"metadata\":{}}", "[{\"op\":\"remove\",\"path\":\"/spec/x\"}]",
	    NL_EINVALID,
	    "remove operation does not apply: doc is missing path: \"/spec/x\": missing value");
	check_fail(mock_patch_json, "{\"spec\":{}}", "[{\"op\":\"remove\",\"path\":\"/spec/x\"}]",
	           NL_EINVALID,
	           "error in remove for path: '/spec/x': unable to remove nonexistent key: x: "
	           "missing value");
	check_fail(mock_patch_json, "{\"spec\":{}}",
	           "[{\"op\":\"replace\",\"path\":\"/spec/x\",\"value\":1}]", NL_EINVALID,
	           "replace operation does not apply: doc is missing key: /spec/x: missing value");
}

static void test_patch__json_pointer_escapes(void)
{
	check_ok(
	    mock_patch_json, "{\"metadata\":{\"labels\":{}}}",
	    "[{\"op\":\"add\",\"path\":\"/metadata/labels/example.com~1role\",\"value\":\"a\"},"
	    "{\"op\":\"add\",\"path\":\"/metadata/labels/t~0x\",\"value\":\"b\"}]",
	    "{\"metadata\":{\"labels\":{\"example.com/role\":\"a\",\"t~x\":\"b\"}}}");
	check_fail(mock_patch_json, "{\"a\":1}",
	           "[{\"op\":\"add\",\"path\":\"/a~2b\",\"value\":1}]", NL_EINVALID, NULL);
}

static void test_patch__json_array_index_rules(void)
{
	/* Inserting at the length appends; past it is an error. */
	check_ok(mock_patch_json, "{\"a\":[1,2]}",
	         "[{\"op\":\"add\",\"path\":\"/a/2\",\"value\":3}]", "{\"a\":[1,2,3]}");
	check_ok(mock_patch_json, "{\"a\":[1,2]}",
	         "[{\"op\":\"add\",\"path\":\"/a/0\",\"value\":0}]", "{\"a\":[0,1,2]}");
	check_fail(
	    mock_patch_json, "{\"a\":[1,2]}", "[{\"op\":\"add\",\"path\":\"/a/3\",\"value\":3}]",
	    NL_EINVALID,
	    "error in add for path: '/a/3': Unable to access invalid index: 3: invalid index "
	    "referenced");
	/* Leading zeros and negative indices are not array indices. */
	check_fail(mock_patch_json, "{\"a\":[1,2]}",
	           "[{\"op\":\"add\",\"path\":\"/a/01\",\"value\":3}]", NL_EINVALID, NULL);
	check_fail(mock_patch_json, "{\"a\":[1,2]}", "[{\"op\":\"remove\",\"path\":\"/a/-1\"}]",
	           NL_EINVALID, NULL);
	/* "-" names the end of the array: only add can use it. */
	check_fail(mock_patch_json, "{\"a\":[1,2]}", "[{\"op\":\"remove\",\"path\":\"/a/-\"}]",
	           NL_EINVALID, NULL);
	check_fail(mock_patch_json, "{\"a\":[1,2]}",
	           "[{\"op\":\"replace\",\"path\":\"/a/2\",\"value\":0}]", NL_EINVALID, NULL);
	check_fail(mock_patch_json, "{\"a\":[1,2]}", "[{\"op\":\"remove\",\"path\":\"/a/2\"}]",
	           NL_EINVALID,
	           "error in remove for path: '/a/2': Unable to access invalid index: 2: invalid "
	           "index referenced");
	check_ok(mock_patch_json, "{\"a\":[[1],[2]]}",
	         "[{\"op\":\"replace\",\"path\":\"/a/1/0\",\"value\":3},"
	         "{\"op\":\"copy\",\"from\":\"/a/0\",\"path\":\"/a/-\"}]",
	         "{\"a\":[[1],[3],[1]]}");
}

static void test_patch__json_root_pointer(void)
{
	check_ok(mock_patch_json, "{\"a\":1}",
	         "[{\"op\":\"replace\",\"path\":\"\",\"value\":{\"b\":2}}]", "{\"b\":2}");
	check_ok(mock_patch_json, "{\"a\":1}", "[{\"op\":\"add\",\"path\":\"\",\"value\":[1]}]",
	         "[1]");
	/* The empty key is a member name like any other. */
	check_ok(mock_patch_json, "{\"a\":1}", "[{\"op\":\"add\",\"path\":\"/\",\"value\":2}]",
	         "{\"a\":1,\"\":2}");
}

static void test_patch__json_move_and_copy(void)
{
	check_ok(mock_patch_json, "{\"a\":{\"b\":[1,2]},\"c\":null}",
	         "[{\"op\":\"copy\",\"from\":\"/a/b\",\"path\":\"/c\"},"
	         "{\"op\":\"add\",\"path\":\"/c/-\",\"value\":3},"
	         "{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/d\"},"
	         "{\"op\":\"move\",\"from\":\"/d\",\"path\":\"/d\"}]",
	         "{\"c\":[1,2,3],\"d\":{\"b\":[1,2]}}");
	/* A value cannot be moved into one of its own children. */
	check_fail(mock_patch_json, "{\"a\":{\"b\":{}}}",
	           "[{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/a/b/c\"}]", NL_EINVALID, NULL);
	check_fail(mock_patch_json, "{\"a\":1}",
	           "[{\"op\":\"move\",\"from\":\"/x\",\"path\":\"/b\"}]", NL_EINVALID,
	           "error in move for path: 'x': unable to get nonexistent key: x: missing value");
	check_fail(mock_patch_json, "{\"a\":1}", "[{\"op\":\"copy\",\"path\":\"/b\"}]", NL_EINVALID,
	           "copy operation failed to decode from: operation, missing from field: missing "
	           "value");
}

static void test_patch__json_malformed_operations(void)
{
	check_fail(mock_patch_json, "{}", "[{\"op\":\"frob\",\"path\":\"/a\"}]", NL_EINVALID,
	           "Unexpected kind: frob");
	check_fail(mock_patch_json, "{}", "[{\"path\":\"/a\"}]", NL_EINVALID,
	           "Unexpected kind: unknown");
	check_fail(mock_patch_json, "{}", "[{\"op\":\"add\",\"value\":1}]", NL_EINVALID,
	           "add operation failed to decode path: missing value");
	check_fail(mock_patch_json, "{}", "[{\"op\":\"add\",\"path\":\"/a\"}]", NL_EINVALID, NULL);
	check_fail(mock_patch_json, "{}", "[{\"op\":\"add\",\"path\":\"a\",\"value\":1}]",
	           NL_EINVALID, NULL);
	/* Not a list of operations at all: the apiserver's decode step, 400. */
	check_fail(mock_patch_json, "{}", "{\"op\":\"add\"}", NL_EBADREQUEST, NULL);
	check_fail(mock_patch_json, "{}", "[1]", NL_EBADREQUEST, NULL);
}

static void test_patch__json_failure_leaves_doc_unchanged(void)
{
	/* The first operations succeed on the copy; the last fails. */
	check_fail(mock_patch_json, "{\"a\":[1,2],\"b\":{\"c\":1}}",
	           "[{\"op\":\"remove\",\"path\":\"/a/0\"},"
	           "{\"op\":\"add\",\"path\":\"/b/d\",\"value\":2},"
	           "{\"op\":\"replace\",\"path\":\"/b/c\",\"value\":5},"
	           "{\"op\":\"test\",\"path\":\"/b/c\",\"value\":1}]",
	           NL_EINVALID, "testing value /b/c failed: test failed");
}

static json_object *many_test_ops(int n)
{
	json_object *ops = json_object_new_array();
	for (int i = 0; i < n; i++) {
		json_object *op = json_object_new_object();
		json_object_object_add(op, "op", json_object_new_string("test"));
		json_object_object_add(op, "path", json_object_new_string("/a"));
		json_object_object_add(op, "value", json_object_new_int(1));
		json_object_array_add(ops, op);
	}
	return ops;
}

static void test_patch__json_operation_limit(void)
{
	json_object *doc = parse("{\"a\":1}");
	json_object *out = NULL;
	nl_err err = {0};

	json_object *ops = many_test_ops(MOCK_JSON_PATCH_MAX_OPS);
	CU_ASSERT_EQUAL(mock_patch_json(&out, doc, ops, &err), 0);
	json_object_put(out);
	json_object_put(ops);

	out = NULL;
	ops = many_test_ops(MOCK_JSON_PATCH_MAX_OPS + 1);
	CU_ASSERT_EQUAL(mock_patch_json(&out, doc, ops, &err), NL_ETOOBIG);
	CU_ASSERT_PTR_NULL(out);
	CU_ASSERT_STRING_EQUAL(
	    err.msg, "The allowed maximum operations in a JSON patch is 10000, got 10001");
	json_object_put(ops);
	json_object_put(doc);
}

/* A document of one string member "a" of n copies of ch, for the copy
 * limit tests (malloc'd text, the caller frees). */
static char *doc_of_repeated(const char *ch, size_t n)
{
	size_t w = strlen(ch);
	char *s = malloc(n * w + 16);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	strcpy(s, "{\"a\":\"");
	char *p = s + strlen(s);
	for (size_t i = 0; i < n; i++, p += w)
		memcpy(p, ch, w);
	strcpy(p, "\"}");
	return s;
}

#define COPY_LIMIT_MSG                                                                             \
	"Unable to complete the copy, the accumulated size increase of copy is %s, exceeding the " \
	"limit 3145728"

/* The bomb of issue 19: every copy of the whole document into itself
 * doubles it. Upstream (JSONPatchMaxCopyBytes, 3 MiB) adds the size of each
 * copied value as encoding/json writes it and fails the copy that takes the
 * sum past the limit, before it allocates. Here the document is L = 1000008
 * bytes: the copies cost L, 2L+6, then 4L+18, and the third one fails. */
static void test_patch__json_copy_bomb_stops_at_the_limit(void)
{
	char *doc = doc_of_repeated("b", 1000000);
	char ops[2048] = "[";
	for (int i = 0; i < 40; i++)
		snprintf(ops + strlen(ops), sizeof(ops) - strlen(ops),
		         "%s{\"op\":\"copy\",\"from\":\"\",\"path\":\"/x%d\"}", i ? "," : "", i);
	strcat(ops, "]");
	char msg[256];
	snprintf(msg, sizeof(msg), COPY_LIMIT_MSG, "7000080");
	check_fail(mock_patch_json, doc, ops, NL_EINVALID, msg);
	free(doc);
}

/* The size is Go's: '<' is written \u003c (6 bytes), U+2028 \u2028, a
 * control byte \u00XX; a copy that lands exactly on the limit passes. */
static void test_patch__json_copy_limit_counts_bytes_as_go_writes_them(void)
{
	char msg[256];
	char *doc = doc_of_repeated("<", 524288); /* json-c: 524290, Go: 3145730 */
	snprintf(msg, sizeof(msg), COPY_LIMIT_MSG, "3145730");
	check_fail(mock_patch_json, doc, "[{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/b\"}]",
	           NL_EINVALID, msg);
	free(doc);

	doc = doc_of_repeated("\\u2028", 524288);
	snprintf(msg, sizeof(msg), COPY_LIMIT_MSG, "3145730");
	check_fail(mock_patch_json, doc, "[{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/b\"}]",
	           NL_EINVALID, msg);
	free(doc);

	doc = doc_of_repeated("\\u0001", 524288);
	check_fail(mock_patch_json, doc, "[{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/b\"}]",
	           NL_EINVALID, msg);
	free(doc);

	/* "aaa…" of 3145726 bytes is 3145728 with its quotes: allowed; one
	 * more byte of copy is not. */
	doc = doc_of_repeated("a", 3145726);
	json_object *d = parse(doc), *out = NULL;
	json_object *p = parse("[{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/b\"}]");
	nl_err err = {0};
	CU_ASSERT_EQUAL(mock_patch_json(&out, d, p, &err), 0);
	CU_ASSERT_EQUAL(json_object_get_string_len(json_object_object_get(out, "b")), 3145726);
	json_object_put(out);
	json_object_put(p);
	json_object_put(d);
	snprintf(msg, sizeof(msg), COPY_LIMIT_MSG, "3145729");
	check_fail(mock_patch_json, doc,
	           "[{\"op\":\"add\",\"path\":\"/n\",\"value\":7},"
	           "{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/b\"},"
	           "{\"op\":\"copy\",\"from\":\"/n\",\"path\":\"/m\"}]",
	           NL_EINVALID, msg);
	/* A missing destination is reported before the size. */
	check_fail(mock_patch_json, doc,
	           "[{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/b\"},"
	           "{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/no/c\"}]",
	           NL_EINVALID,
	           "copy operation does not apply: doc is missing destination path: /no/c: "
	           "missing value");
	free(doc);

	/* Objects and arrays count compact, numbers and literals as written:
	 * the value below is 1 byte over. */
	char *big = doc_of_repeated("a", 3145692);
	char *obj = malloc(strlen(big) + 64);
	CU_ASSERT_PTR_NOT_NULL_FATAL(obj);
	sprintf(obj, "{\"a\":{\"k\":[1,\"s\",1.5,true,null,{}],\"m\":%s}", strchr(big, ':') + 1);
	snprintf(msg, sizeof(msg), COPY_LIMIT_MSG, "3145729");
	check_fail(mock_patch_json, obj, "[{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/b\"}]",
	           NL_EINVALID, msg);
	free(obj);
	free(big);
}

/* ------------------------------------------------------ strategic merge */

static const mock_resource *smp_resource;

static int smp(json_object **out, json_object *doc, json_object *patch, nl_err *err)
{
	return mock_patch_strategic(out, smp_resource, doc, patch, err);
}

/* Like check_ok but compares the serialized text (list order matters) and
 * checks that no directive survives. */
static void check_smp(const mock_resource *r, const char *doc_text, const char *patch_text,
                      const char *expected)
{
	json_object *doc = parse(doc_text);
	json_object *patch = parse(patch_text);
	json_object *saved_doc = parse(doc_text);
	json_object *saved_patch = parse(patch_text);
	json_object *out = NULL;
	nl_err err = {0};
	int rc = mock_patch_strategic(&out, r, doc, patch, &err);
	if (rc != 0)
		fprintf(stderr, "\n  patch %s failed: %s\n", patch_text, err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	assert_json_text(out, expected);
	CU_ASSERT_FALSE(has_directive(out));
	CU_ASSERT_TRUE(json_object_equal(doc, saved_doc));
	CU_ASSERT_TRUE(json_object_equal(patch, saved_patch));
	json_object_put(out);
	json_object_put(doc);
	json_object_put(patch);
	json_object_put(saved_doc);
	json_object_put(saved_patch);
}

static void test_patch__smp_maps_merge_and_null_deletes(void)
{
	check_smp(
	    &configmap_r,
	    "{\"metadata\":{\"name\":\"c\",\"labels\":{\"a\":\"1\",\"b\":\"2\"}},"
	    "\"data\":{\"k\":\"v\"}}",
	    "{\"metadata\":{\"labels\":{\"a\":null,\"c\":\"3\"},\"annotations\":{\"x\":\"y\"}},"
	    "\"data\":{\"k\":\"w\",\"gone\":null}}",
	    "{\"metadata\":{\"name\":\"c\",\"labels\":{\"b\":\"2\",\"c\":\"3\"},"
	    "\"annotations\":{\"x\":\"y\"}},\"data\":{\"k\":\"w\"}}");
	/* A JSON null patch changes nothing, as json.Unmarshal into a map does. */
	check_smp(&configmap_r, "{\"data\":{\"k\":\"v\"}}", "null", "{\"data\":{\"k\":\"v\"}}");
}

static void test_patch__smp_owner_references_merge_by_uid(void)
{
	check_smp(&configmap_r,
	          "{\"metadata\":{\"ownerReferences\":["
	          "{\"uid\":\"a\",\"kind\":\"Node\",\"name\":\"n1\"},"
	          "{\"uid\":\"b\",\"kind\":\"Node\",\"name\":\"n2\"}]}}",
	          "{\"metadata\":{\"ownerReferences\":["
	          "{\"uid\":\"b\",\"name\":\"n2b\",\"controller\":true},"
	          "{\"uid\":\"c\",\"kind\":\"Node\",\"name\":\"n3\"}]}}",
	          "{\"metadata\":{\"ownerReferences\":["
	          "{\"uid\":\"a\",\"kind\":\"Node\",\"name\":\"n1\"},"
	          "{\"uid\":\"b\",\"kind\":\"Node\",\"name\":\"n2b\",\"controller\":true},"
	          "{\"uid\":\"c\",\"kind\":\"Node\",\"name\":\"n3\"}]}}");
	/* Without $setElementOrder, upstream places patch items that are new
	 * to the list before the server-only ones. */
	check_smp(&configmap_r, "{\"metadata\":{\"ownerReferences\":[{\"uid\":\"a\"}]}}",
	          "{\"metadata\":{\"ownerReferences\":[{\"uid\":\"c\"}]}}",
	          "{\"metadata\":{\"ownerReferences\":[{\"uid\":\"c\"},{\"uid\":\"a\"}]}}");
}

#define NODE_CONDITIONS                                                         \
	"{\"status\":{\"conditions\":["                                         \
	"{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"KubeletReady\"}," \
	"{\"type\":\"MemoryPressure\",\"status\":\"False\"},"                   \
	"{\"type\":\"DiskPressure\",\"status\":\"False\"}]}}"

static void test_patch__smp_conditions_merge_by_type(void)
{
	check_smp(&node_r, NODE_CONDITIONS,
	          "{\"status\":{\"conditions\":[{\"type\":\"DiskPressure\",\"status\":\"True\"}]}}",
	          "{\"status\":{\"conditions\":["
	          "{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"KubeletReady\"},"
	          "{\"type\":\"MemoryPressure\",\"status\":\"False\"},"
	          "{\"type\":\"DiskPressure\",\"status\":\"True\"}]}}");
	/* Inside a merged item, null deletes a field; the item keeps its
	 * place because it precedes every server-only item in the live list. */
	check_smp(&node_r, NODE_CONDITIONS,
	          "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\","
	          "\"reason\":null}]}}",
	          "{\"status\":{\"conditions\":["
	          "{\"type\":\"Ready\",\"status\":\"False\"},"
	          "{\"type\":\"MemoryPressure\",\"status\":\"False\"},"
	          "{\"type\":\"DiskPressure\",\"status\":\"False\"}]}}");
	/* Namespace conditions are keyed by type as well. */
	check_smp(&namespace_r,
	          "{\"status\":{\"conditions\":[{\"type\":\"A\",\"status\":\"True\"},"
	          "{\"type\":\"B\",\"status\":\"True\"}]}}",
	          "{\"status\":{\"conditions\":[{\"type\":\"B\",\"status\":\"False\"}]}}",
	          "{\"status\":{\"conditions\":[{\"type\":\"A\",\"status\":\"True\"},"
	          "{\"type\":\"B\",\"status\":\"False\"}]}}");
}

static void test_patch__smp_addresses_merge_by_type(void)
{
	check_smp(&node_r,
	          "{\"status\":{\"addresses\":[{\"type\":\"InternalIP\",\"address\":\"10.0.0.1\"},"
	          "{\"type\":\"Hostname\",\"address\":\"n1\"}]}}",
	          "{\"status\":{\"addresses\":[{\"type\":\"Hostname\",\"address\":\"n1.local\"}]}}",
	          "{\"status\":{\"addresses\":[{\"type\":\"InternalIP\",\"address\":\"10.0.0.1\"},"
	          "{\"type\":\"Hostname\",\"address\":\"n1.local\"}]}}");
}

static void test_patch__smp_delete_directive_in_list(void)
{
	check_smp(
	    &node_r, NODE_CONDITIONS,
	    "{\"status\":{\"conditions\":[{\"$patch\":\"delete\",\"type\":\"MemoryPressure\"}]}}",
	    "{\"status\":{\"conditions\":["
	    "{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"KubeletReady\"},"
	    "{\"type\":\"DiskPressure\",\"status\":\"False\"}]}}");
	/* Deleting an item that is not there is a no-op. */
	check_smp(
	    &node_r, NODE_CONDITIONS,
	    "{\"status\":{\"conditions\":[{\"$patch\":\"delete\",\"type\":\"PIDPressure\"}]}}",
	    NODE_CONDITIONS);
}

static void test_patch__smp_replace_directive(void)
{
	check_smp(&node_r, NODE_CONDITIONS,
	          "{\"status\":{\"conditions\":[{\"$patch\":\"replace\"},"
	          "{\"type\":\"Ready\",\"status\":\"Unknown\"}]}}",
	          "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"Unknown\"}]}}");
	check_smp(&configmap_r, "{\"metadata\":{\"labels\":{\"a\":\"1\",\"b\":\"2\"}}}",
	          "{\"metadata\":{\"labels\":{\"$patch\":\"replace\",\"c\":\"3\"}}}",
	          "{\"metadata\":{\"labels\":{\"c\":\"3\"}}}");
}

static void test_patch__smp_delete_directive_on_map(void)
{
	/* Upstream's handleDirectiveInMergeMap: the map becomes empty (the
	 * schema's omitempty then drops it for map fields). */
	check_smp(&configmap_r, "{\"metadata\":{\"name\":\"c\",\"labels\":{\"a\":\"1\"}}}",
	          "{\"metadata\":{\"labels\":{\"$patch\":\"delete\"}}}",
	          "{\"metadata\":{\"name\":\"c\",\"labels\":{}}}");
}

static void test_patch__smp_set_element_order(void)
{
	check_smp(&node_r,
	          "{\"status\":{\"addresses\":[{\"type\":\"InternalIP\",\"address\":\"10.0.0.1\"},"
	          "{\"type\":\"Hostname\",\"address\":\"n1\"}]}}",
	          "{\"status\":{\"$setElementOrder/addresses\":[{\"type\":\"Hostname\"},"
	          "{\"type\":\"InternalIP\"}]}}",
	          "{\"status\":{\"addresses\":[{\"type\":\"Hostname\",\"address\":\"n1\"},"
	          "{\"type\":\"InternalIP\",\"address\":\"10.0.0.1\"}]}}");
	/* kubectl's shape: the full order plus the changed items. */
	check_smp(
	    &node_r, "{\"status\":{\"conditions\":[{\"type\":\"A\"},{\"type\":\"B\"}]}}",
	    "{\"status\":{\"$setElementOrder/conditions\":[{\"type\":\"A\"},{\"type\":\"C\"},"
	    "{\"type\":\"B\"}],\"conditions\":[{\"type\":\"C\",\"status\":\"True\"}]}}",
	    "{\"status\":{\"conditions\":[{\"type\":\"A\"},{\"type\":\"C\",\"status\":\"True\"},"
	    "{\"type\":\"B\"}]}}");
	/* Server-only items keep their place relative to the ordered ones. */
	check_smp(
	    &node_r,
	    "{\"status\":{\"conditions\":[{\"type\":\"A\"},{\"type\":\"B\"},{\"type\":\"C\"}]}}",
	    "{\"status\":{\"$setElementOrder/conditions\":[{\"type\":\"C\"},{\"type\":\"A\"}]}}",
	    "{\"status\":{\"conditions\":[{\"type\":\"B\"},{\"type\":\"C\"},{\"type\":\"A\"}]}}");
	/* A patch item missing from the order list is an error. */
	smp_resource = &node_r;
	check_fail(smp, "{\"status\":{\"conditions\":[{\"type\":\"A\"}]}}",
	           "{\"status\":{\"$setElementOrder/conditions\":[{\"type\":\"A\"}],"
	           "\"conditions\":[{\"type\":\"B\"}]}}",
	           NL_ERROR, NULL);
}

static void test_patch__smp_retain_keys(void)
{
	check_smp(&configmap_r, "{\"data\":{\"a\":\"1\",\"b\":\"2\",\"c\":\"3\"}}",
	          "{\"data\":{\"$retainKeys\":[\"a\",\"d\"],\"d\":\"4\"}}",
	          "{\"data\":{\"a\":\"1\",\"d\":\"4\"}}");
	/* Every field the patch sets must be retained. */
	smp_resource = &configmap_r;
	check_fail(smp, "{\"data\":{\"a\":\"1\"}}",
	           "{\"data\":{\"$retainKeys\":[\"a\"],\"b\":\"2\"}}", NL_EBADREQUEST,
	           "invalid patch format of retainKeys");
	check_fail(smp, "{\"data\":{\"a\":\"1\"}}", "{\"data\":{\"$retainKeys\":\"a\"}}",
	           NL_EBADREQUEST, "invalid patch format of retainKeys");
}

static void test_patch__smp_finalizers_are_a_set(void)
{
	check_smp(&configmap_r, "{\"metadata\":{\"finalizers\":[\"a\",\"b\"]}}",
	          "{\"metadata\":{\"finalizers\":[\"b\",\"c\"]}}",
	          "{\"metadata\":{\"finalizers\":[\"a\",\"b\",\"c\"]}}");
	/* A new value with no anchor in the live list goes first, as upstream. */
	check_smp(&configmap_r, "{\"metadata\":{\"finalizers\":[\"a\",\"b\"]}}",
	          "{\"metadata\":{\"finalizers\":[\"c\",\"c\"]}}",
	          "{\"metadata\":{\"finalizers\":[\"c\",\"a\",\"b\"]}}");
	check_smp(&configmap_r, "{\"metadata\":{}}", "{\"metadata\":{\"finalizers\":[\"x\"]}}",
	          "{\"metadata\":{\"finalizers\":[\"x\"]}}");
}

static void test_patch__smp_delete_from_primitive_list(void)
{
	check_smp(&configmap_r, "{\"metadata\":{\"finalizers\":[\"a\",\"b\",\"c\"]}}",
	          "{\"metadata\":{\"$deleteFromPrimitiveList/finalizers\":[\"b\"]}}",
	          "{\"metadata\":{\"finalizers\":[\"a\",\"c\"]}}");
	/* What kubectl edit/apply sends when a finalizer is removed. */
	check_smp(&configmap_r, "{\"metadata\":{\"finalizers\":[\"a\",\"b\",\"c\"]}}",
	          "{\"metadata\":{\"$setElementOrder/finalizers\":[\"c\",\"a\"],"
	          "\"$deleteFromPrimitiveList/finalizers\":[\"b\"]}}",
	          "{\"metadata\":{\"finalizers\":[\"c\",\"a\"]}}");
	/* Nothing to delete from: no list appears. */
	check_smp(&configmap_r, "{\"metadata\":{\"name\":\"x\"}}",
	          "{\"metadata\":{\"$deleteFromPrimitiveList/finalizers\":[\"b\"]}}",
	          "{\"metadata\":{\"name\":\"x\"}}");
	smp_resource = &configmap_r;
	check_fail(smp, "{\"metadata\":{\"finalizers\":[\"a\"]}}",
	           "{\"metadata\":{\"$deleteFromPrimitiveList/finalizers\":\"a\"}}", NL_EBADREQUEST,
	           "invalid patch format of primitive list");
}

static void test_patch__smp_pod_cidrs_union_on_node_only(void)
{
	check_smp(&node_r, "{\"spec\":{\"podCIDRs\":[\"10.0.0.0/24\"]}}",
	          "{\"spec\":{\"podCIDRs\":[\"10.0.0.0/24\",\"fd00::/64\"]}}",
	          "{\"spec\":{\"podCIDRs\":[\"10.0.0.0/24\",\"fd00::/64\"]}}");
	/* The same path on another kind has no strategy: replaced. */
	check_smp(&configmap_r, "{\"spec\":{\"podCIDRs\":[\"10.0.0.0/24\"]}}",
	          "{\"spec\":{\"podCIDRs\":[\"fd00::/64\"]}}",
	          "{\"spec\":{\"podCIDRs\":[\"fd00::/64\"]}}");
}

static void test_patch__smp_plain_lists_are_replaced(void)
{
	check_smp(&node_r,
	          "{\"status\":{\"images\":[{\"names\":[\"a\"],\"sizeBytes\":1},"
	          "{\"names\":[\"b\"],\"sizeBytes\":2}]}}",
	          "{\"status\":{\"images\":[{\"names\":[\"c\"],\"sizeBytes\":3}]}}",
	          "{\"status\":{\"images\":[{\"names\":[\"c\"],\"sizeBytes\":3}]}}");
	check_smp(&node_r, "{\"spec\":{\"taints\":[{\"key\":\"a\",\"effect\":\"NoSchedule\"}]}}",
	          "{\"spec\":{\"taints\":[{\"key\":\"b\",\"effect\":\"NoExecute\"}]}}",
	          "{\"spec\":{\"taints\":[{\"key\":\"b\",\"effect\":\"NoExecute\"}]}}");
	check_smp(&node_r,
	          "{\"status\":{\"volumesAttached\":[{\"name\":\"v1\",\"devicePath\":\"/a\"}]}}",
	          "{\"status\":{\"volumesAttached\":[{\"name\":\"v2\",\"devicePath\":\"/b\"}]}}",
	          "{\"status\":{\"volumesAttached\":[{\"name\":\"v2\",\"devicePath\":\"/b\"}]}}");
	/* Type changes replace too. */
	check_smp(&configmap_r, "{\"data\":{\"k\":\"v\"}}", "{\"data\":[\"x\"]}",
	          "{\"data\":[\"x\"]}");
}

static void test_patch__smp_directives_never_leak(void)
{
	/* Directives in parts of the patch that land where nothing existed. */
	check_smp(&node_r, "{\"metadata\":{\"name\":\"n\"}}",
	          "{\"status\":{\"conditions\":[{\"$patch\":\"delete\",\"type\":\"X\"},"
	          "{\"type\":\"Ready\",\"status\":\"True\",\"reason\":null}],"
	          "\"$setElementOrder/addresses\":[{\"type\":\"Hostname\"}],"
	          "\"nodeInfo\":{\"$retainKeys\":[\"kubeletVersion\"],\"kubeletVersion\":\"v1\"},"
	          "\"config\":{\"$patch\":\"replace\",\"active\":{\"x\":null}}},"
	          "\"spec\":{\"taints\":[{\"$patch\":\"replace\"},{\"key\":\"k\"}]}}",
	          "{\"metadata\":{\"name\":\"n\"},"
	          "\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}],"
	          "\"nodeInfo\":{\"kubeletVersion\":\"v1\"},\"config\":{\"active\":{}}},"
	          "\"spec\":{\"taints\":[{\"key\":\"k\"}]}}");
}

static void test_patch__smp_errors(void)
{
	smp_resource = &configmap_r;
	check_fail(smp, "{\"metadata\":{\"ownerReferences\":[{\"uid\":\"a\"}]}}",
	           "{\"metadata\":{\"ownerReferences\":[{\"name\":\"x\"}]}}", NL_ERROR,
	           "map: map[name:x] does not contain declared merge key: uid");
	check_fail(smp, "{\"metadata\":{}}", "{\"metadata\":{\"$patch\":\"frob\"}}", NL_ERROR,
	           "unknown patch type: frob in map: map[$patch:frob]");
	check_fail(smp, "{\"metadata\":{\"ownerReferences\":[{\"uid\":\"a\"}]}}",
	           "{\"metadata\":{\"ownerReferences\":[{\"$patch\":\"merge\"}]}}", NL_ERROR,
	           "merging lists cannot yet be specified in the patch");
	check_fail(smp, "{\"metadata\":{\"finalizers\":[\"a\"]}}",
	           "{\"metadata\":{\"finalizers\":[[\"b\"]]}}", NL_ERROR, NULL);
	check_fail(smp, "{\"metadata\":{\"finalizers\":[]}}",
	           "{\"metadata\":{\"finalizers\":[[\"b\"]]}}", NL_EINVALID,
	           "lists of lists are not supported");
	check_fail(smp, "{}", "[1]", NL_EBADREQUEST,
	           "json: cannot unmarshal array into Go value of type map[string]interface {}");
	check_fail(smp, "{}", "{\"metadata\":{\"$setElementOrderX/finalizers\":[]}}",
	           NL_EBADREQUEST, "invalid patch format of setElementOrder list");
}

static void test_patch__smp_whole_object_directives(void)
{
	check_smp(&configmap_r, "{\"metadata\":{\"name\":\"a\"},\"data\":{\"k\":\"v\"}}",
	          "{\"$patch\":\"replace\",\"metadata\":{\"name\":\"b\"}}",
	          "{\"metadata\":{\"name\":\"b\"}}");
	check_smp(&configmap_r, "{\"metadata\":{\"name\":\"a\"}}", "{\"$patch\":\"delete\"}", "{}");
}

/* ------------------------------------------------ strategic merge: lists */

/* A fixed xorshift stream, so the cases are the same on every machine. */
static unsigned long long smp_rng = 0x9E3779B97F4A7C15ull;

static unsigned smp_rand(unsigned n)
{
	smp_rng ^= smp_rng << 13;
	smp_rng ^= smp_rng >> 7;
	smp_rng ^= smp_rng << 17;
	return (unsigned)(smp_rng >> 11) % n;
}

/* Appends to a fixed buffer; the cases stay far below its size. */
typedef struct {
	char s[16384];
	size_t len;
} smp_text;

static void smp_put(smp_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void smp_put(smp_text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(t->s + t->len, sizeof(t->s) - t->len, fmt, ap);
	va_end(ap);
	if (n > 0 && t->len + (size_t)n < sizeof(t->s))
		t->len += (size_t)n;
}

/* One case in four is dirty: malformed items and keys make every error
 * path upstream has show up; the other cases mostly succeed. */
static int smp_dirty;

/* A key out of a small alphabet (so keys repeat); in dirty cases now and
 * then null, a number or missing altogether. */
static void smp_gen_key(smp_text *t, const char *key, unsigned k)
{
	unsigned r = smp_dirty ? smp_rand(12) : 12;
	if (r == 0)
		return;
	if (r == 1)
		smp_put(t, "\"%s\":null,", key);
	else if (r == 2)
		smp_put(t, "\"%s\":%u,", key, k % 3);
	else
		smp_put(t, "\"%s\":\"k%u\",", key, k);
}

static void smp_gen_item(smp_text *t, const char *key, unsigned k, int in_patch)
{
	unsigned r = smp_rand(smp_dirty ? 12 : 24);
	if (smp_dirty && r == 0) {
		smp_put(t, "\"k%u\",", k); /* not a map */
		return;
	}
	smp_put(t, "{");
	smp_gen_key(t, key, k);
	if (in_patch && r == 1)
		smp_put(t, "\"$patch\":\"delete\",");
	else if (in_patch && r == 2)
		smp_put(t, "\"$patch\":\"replace\",");
	else if (in_patch && r == 3 && smp_dirty)
		smp_put(t, "\"$patch\":\"merge\",");
	else if (in_patch && r == 4)
		smp_put(t, "\"$retainKeys\":[\"%s\",\"s\"],", key);
	if (in_patch && r == 5)
		smp_put(t, "\"s\":null},");
	else
		smp_put(t, "\"s\":%u},", smp_rand(4));
}

static void smp_end_list(smp_text *t)
{
	if (t->s[t->len - 1] == ',')
		t->len--;
	smp_put(t, "]");
}

/* keys: n keys out of alphabet, or with order, a random subsequence of
 * order (so a $setElementOrder list can list the patch's items in order). */
static unsigned smp_gen_keys(unsigned *keys, unsigned n, unsigned alphabet, const unsigned *order,
                             unsigned order_n)
{
	if (!order) {
		for (unsigned i = 0; i < n; i++)
			keys[i] = smp_rand(alphabet);
		return n;
	}
	unsigned m = 0;
	for (unsigned i = 0; i < order_n; i++)
		if (smp_rand(2))
			keys[m++] = order[i];
	return m;
}

static void smp_gen_maps(smp_text *t, const char *key, const unsigned *keys, unsigned n,
                         int in_patch)
{
	smp_put(t, "[");
	for (unsigned i = 0; i < n; i++) {
		if (in_patch == 2)
			smp_put(t, "{\"%s\":\"k%u\"},", key, keys[i]);
		else
			smp_gen_item(t, key, keys[i], in_patch);
	}
	smp_end_list(t);
}

static void smp_gen_strings(smp_text *t, const unsigned *keys, unsigned n)
{
	smp_put(t, "[");
	for (unsigned i = 0; i < n; i++) {
		if (smp_dirty && smp_rand(30) == 0)
			smp_put(t, "%u,", keys[i] % 3); /* mixed element types */
		else
			smp_put(t, "\"k%u\",", keys[i]);
	}
	smp_end_list(t);
}

/* A list's length: mostly short, sometimes past the 20 items where Go's
 * stable sort stops being a plain insertion sort. */
static unsigned smp_len(void)
{
	return smp_rand(6) == 0 ? 20 + smp_rand(30) : smp_rand(8);
}

/* A live list (doc) or a patch list with, now and then, its
 * $setElementOrder directive (patch), of maps when key is set. */
static void smp_gen_list(smp_text *t, const char *field, const char *key, unsigned alphabet,
                         int in_patch)
{
	unsigned order[64], keys[64], on = 0, n;
	int ordered = in_patch && smp_rand(3) == 0;
	if (ordered)
		on = smp_gen_keys(order, smp_len(), alphabet, NULL, 0);
	n = smp_gen_keys(keys, smp_len(), alphabet, ordered && !smp_dirty ? order : NULL, on);
	if (!in_patch || smp_rand(5)) {
		smp_put(t, "\"%s\":", field);
		if (key)
			smp_gen_maps(t, key, keys, n, in_patch);
		else
			smp_gen_strings(t, keys, n);
		smp_put(t, ",");
	}
	if (ordered) {
		smp_put(t, "\"$setElementOrder/%s\":", field);
		if (key)
			smp_gen_maps(t, key, order, on, 2);
		else
			smp_gen_strings(t, order, on);
		smp_put(t, ",");
	}
	if (in_patch && !key && smp_rand(3) == 0) {
		n = smp_gen_keys(keys, smp_len(), alphabet, NULL, 0);
		smp_put(t, "\"$deleteFromPrimitiveList/%s\":", field);
		smp_gen_strings(t, keys, n);
		smp_put(t, ",");
	}
}

/* One Node document and one patch touching its merge lists. */
static void smp_gen_case(smp_text *doc, smp_text *patch)
{
	unsigned alpha = smp_rand(2) ? 6 : 40;
	smp_dirty = smp_rand(4) == 0;
	doc->len = patch->len = 0;
	smp_put(doc, "{\"metadata\":{");
	smp_gen_list(doc, "finalizers", NULL, alpha, 0);
	smp_gen_list(doc, "ownerReferences", "uid", alpha, 0);
	smp_put(doc, "\"name\":\"n\"},\"spec\":{");
	smp_gen_list(doc, "podCIDRs", NULL, alpha, 0);
	smp_put(doc, "\"taints\":[]},\"status\":{");
	smp_gen_list(doc, "conditions", "type", alpha, 0);
	smp_gen_list(doc, "addresses", "type", alpha, 0);
	smp_put(doc, "\"phase\":\"q\"}}");

	smp_put(patch, "{\"metadata\":{");
	if (smp_rand(3))
		smp_gen_list(patch, "finalizers", NULL, alpha, 1);
	if (smp_rand(2))
		smp_gen_list(patch, "ownerReferences", "uid", alpha, 1);
	smp_put(patch, "\"name\":\"n\"},\"spec\":{");
	if (smp_rand(2))
		smp_gen_list(patch, "podCIDRs", NULL, alpha, 1);
	smp_put(patch, "\"unschedulable\":true},\"status\":{");
	if (smp_rand(4) == 0)
		smp_put(patch, "\"$retainKeys\":[\"conditions\",\"addresses\"%s],",
		        smp_dirty ? "" : ",\"phase\"");
	if (smp_rand(3))
		smp_gen_list(patch, "conditions", "type", alpha, 1);
	if (smp_rand(2))
		smp_gen_list(patch, "addresses", "type", alpha, 1);
	smp_put(patch, "\"phase\":\"p\"}}");
}

/* What one case yields: the result's text, or the error's code and text. */
static void smp_outcome(char *out, size_t n, const char *doc_text, const char *patch_text)
{
	json_object *doc = parse(doc_text), *patch = parse(patch_text), *res = NULL;
	nl_err err = {0};
	int rc = mock_patch_strategic(&res, &node_r, doc, patch, &err);
	if (rc == 0)
		snprintf(out, n, "ok %s",
		         json_object_to_json_string_ext(res, JSON_C_TO_STRING_PLAIN));
	else
		snprintf(out, n, "err %d %s", rc, err.msg);
	for (char *p = out; *p; p++)
		if (*p == '\n')
			*p = '|'; /* one line per case */
	json_object_put(res);
	json_object_put(doc);
	json_object_put(patch);
}

#define SMP_CASES 600

/* FNV-1a, so the golden file holds a line per case, not every result. */
static unsigned long long smp_digest(const char *s)
{
	unsigned long long h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* The list algorithms were rewritten from scans to indexes (issue 19);
 * fixtures/patch/smp_lists.golden holds digests of what the scanning
 * version answered for these generated cases, results and error texts
 * alike (rebuild that version to see a case's full answer).
 * NL_SMP_WRITE_GOLDEN=path writes the current answers instead. */
static void test_patch__smp_lists_match_the_scanning_version(void)
{
	static smp_text doc, patch;
	static char got[32768], want[64];
	const char *write = getenv("NL_SMP_WRITE_GOLDEN");
	FILE *f = write ? fopen(write, "w") : fopen(nl_test_fixture("patch/smp_lists.golden"), "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	smp_rng = 0x9E3779B97F4A7C15ull;
	int mismatches = 0;
	for (int i = 0; i < SMP_CASES; i++) {
		smp_gen_case(&doc, &patch);
		doc.s[doc.len] = patch.s[patch.len] = '\0';
		smp_outcome(got, sizeof(got), doc.s, patch.s);
		char line[64];
		snprintf(line, sizeof(line), "%d %016llx\n", i, smp_digest(got));
		if (write) {
			fputs(line, f);
			continue;
		}
		if (!fgets(want, sizeof(want), f))
			want[0] = '\0';
		if (strcmp(line, want) != 0 && mismatches++ < 3)
			fprintf(stderr, "\n  case %d\n  doc:   %s\n  patch: %s\n  got:   %s\n", i,
			        doc.s, patch.s, got);
	}
	fclose(f);
	CU_ASSERT_EQUAL(mismatches, 0);
}

/* Operations to patch n new items onto n live ones in each kind of merge
 * list, with every directive that walks a list. */
static unsigned long smp_list_ops(unsigned n)
{
	size_t cap = (size_t)n * 200 + 4096;
	char *d = malloc(cap), *p = malloc(cap);
	size_t dl = 0, pl = 0;
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
#define SMP_D(...) (dl += (size_t)snprintf(d + dl, cap - dl, __VA_ARGS__))
#define SMP_P(...) (pl += (size_t)snprintf(p + pl, cap - pl, __VA_ARGS__))
	SMP_D("{\"metadata\":{\"finalizers\":[");
	SMP_P("{\"metadata\":{\"finalizers\":[");
	for (unsigned i = 0; i < n; i++) {
		SMP_D("%s\"old%u\"", i ? "," : "", i);
		SMP_P("%s\"new%u\"", i ? "," : "", i);
	}
	SMP_P("],\"$deleteFromPrimitiveList/finalizers\":[");
	for (unsigned i = 0; i < n; i += 2)
		SMP_P("%s\"old%u\"", i ? "," : "", i);
	SMP_D("]},\"status\":{\"conditions\":[");
	SMP_P("]},\"status\":{\"conditions\":[");
	for (unsigned i = 0; i < n; i++) {
		/* Half the patch's conditions merge into live ones. */
		SMP_D("%s{\"type\":\"t%u\",\"status\":\"True\"}", i ? "," : "", i);
		SMP_P("%s{\"type\":\"t%u\",\"status\":\"False\"}", i ? "," : "", i + n / 2);
	}
	SMP_P(",{\"type\":\"t1\",\"$patch\":\"delete\"}],\"$setElementOrder/conditions\":[");
	for (unsigned i = 0; i < n + n / 2; i++)
		SMP_P("%s{\"type\":\"t%u\"}", i ? "," : "", i);
	SMP_D("]},\"spec\":{");
	SMP_P("]},\"spec\":{\"$retainKeys\":[");
	for (unsigned i = 0; i < n; i++) {
		SMP_D("\"f%u\":\"v\",", i);
		SMP_P("\"f%u\",", i);
	}
	SMP_D("\"podCIDRs\":[]}}");
	SMP_P("\"podCIDRs\"],\"f0\":\"w\"}}");
#undef SMP_D
#undef SMP_P
	json_object *doc_o = parse(d), *patch_o = parse(p), *res = NULL;
	nl_err err = {0};
	unsigned long before = mock_patch_strategic_ops();
	int rc = mock_patch_strategic(&res, &node_r, doc_o, patch_o, &err);
	unsigned long ops = mock_patch_strategic_ops() - before;
	if (rc != 0)
		fprintf(stderr, "\n  %u items: %s\n", n, err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	json_object *fin = NULL, *conds = NULL;
	json_object_object_get_ex(json_object_object_get(res, "metadata"), "finalizers", &fin);
	json_object_object_get_ex(json_object_object_get(res, "status"), "conditions", &conds);
	CU_ASSERT_EQUAL(json_object_array_length(fin), n + n / 2);
	CU_ASSERT_EQUAL(json_object_array_length(conds), n + n / 2 - 1);
	json_object_put(res);
	json_object_put(doc_o);
	json_object_put(patch_o);
	free(d);
	free(p);
	return ops;
}

/* kubectl patches lists of any length; upstream's scans made patching
 * 4000 finalizers take seconds (issue 19). Eight times the items may cost
 * at most ~11x (n log n), not 64x. Counted, not timed. */
static void test_patch__smp_list_cost_grows_n_log_n(void)
{
	unsigned long small = smp_list_ops(250), large = smp_list_ops(2000);
	if (getenv("NL_TEST_SHOW_OPS") || large > 16 * small)
		fprintf(stderr, "\n  250 items: %lu operations, 2000 items: %lu\n", small, large);
	CU_ASSERT_TRUE(large <= 16 * small);
	CU_ASSERT_TRUE(large <= 2000UL * 11 * 60);
}

static CU_TestInfo patch_tests[] = {
    {"merge_rfc7386_appendix_a", test_patch__merge_rfc7386_appendix_a},
    {"merge_null_patch_yields_null", test_patch__merge_null_patch_yields_null},
    {"merge_does_not_share_nodes_with_patch", test_patch__merge_does_not_share_nodes_with_patch},
    {"json_rfc6902_appendix_a_successes", test_patch__json_rfc6902_appendix_a_successes},
    {"json_rfc6902_appendix_a_errors", test_patch__json_rfc6902_appendix_a_errors},
    {"json_failed_test_reports_path", test_patch__json_failed_test_reports_path},
    {"json_test_compares_numbers_by_value", test_patch__json_test_compares_numbers_by_value},
    {"json_remove_missing_path", test_patch__json_remove_missing_path},
    {"json_pointer_escapes", test_patch__json_pointer_escapes},
    {"json_array_index_rules", test_patch__json_array_index_rules},
    {"json_root_pointer", test_patch__json_root_pointer},
    {"json_move_and_copy", test_patch__json_move_and_copy},
    {"json_malformed_operations", test_patch__json_malformed_operations},
    {"json_failure_leaves_doc_unchanged", test_patch__json_failure_leaves_doc_unchanged},
    {"json_operation_limit", test_patch__json_operation_limit},
    {"json_copy_bomb_stops_at_the_limit", test_patch__json_copy_bomb_stops_at_the_limit},
    {"json_copy_limit_counts_bytes_as_go_writes_them",
     test_patch__json_copy_limit_counts_bytes_as_go_writes_them},
    {"smp_maps_merge_and_null_deletes", test_patch__smp_maps_merge_and_null_deletes},
    {"smp_owner_references_merge_by_uid", test_patch__smp_owner_references_merge_by_uid},
    {"smp_conditions_merge_by_type", test_patch__smp_conditions_merge_by_type},
    {"smp_addresses_merge_by_type", test_patch__smp_addresses_merge_by_type},
    {"smp_delete_directive_in_list", test_patch__smp_delete_directive_in_list},
    {"smp_replace_directive", test_patch__smp_replace_directive},
    {"smp_delete_directive_on_map", test_patch__smp_delete_directive_on_map},
    {"smp_set_element_order", test_patch__smp_set_element_order},
    {"smp_retain_keys", test_patch__smp_retain_keys},
    {"smp_finalizers_are_a_set", test_patch__smp_finalizers_are_a_set},
    {"smp_delete_from_primitive_list", test_patch__smp_delete_from_primitive_list},
    {"smp_pod_cidrs_union_on_node_only", test_patch__smp_pod_cidrs_union_on_node_only},
    {"smp_plain_lists_are_replaced", test_patch__smp_plain_lists_are_replaced},
    {"smp_directives_never_leak", test_patch__smp_directives_never_leak},
    {"smp_errors", test_patch__smp_errors},
    {"smp_whole_object_directives", test_patch__smp_whole_object_directives},
    {"smp_lists_match_the_scanning_version", test_patch__smp_lists_match_the_scanning_version},
    {"smp_list_cost_grows_n_log_n", test_patch__smp_list_cost_grows_n_log_n},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"patch", NULL, NULL, NULL, NULL, patch_tests},
    CU_SUITE_INFO_NULL,
};
