/* ListOptions a LIST decodes as the apiserver does, over real HTTP: a
 * continue token whose resourceVersion is older than the compaction
 * horizon is etcd3's 410 with a fresh token, and timeoutSeconds must parse
 * as an int64 even where a list ignores it. Server in-process on port 0. */
#include <nodelet/base64.h>
#include <nodelet/meta.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cu_main.h"
#include "http_client.h"

static mock_server *srv;
static const char *base;

static int setup(void)
{
	/* Two changes of history per resource: a few writes compact it. */
	mock_options o;
	mock_options_init(&o);
	o.watch_cache_size = 2;
	return nl_test_suite_server(&srv, &base, &o);
}

static int teardown(void)
{
	mock_server_free(srv);
	return 0;
}

static json_object *req(long want, const char *method, const char *path, const char *body)
{
	return nl_http_expect(want, base, method, path, body, NULL);
}

static const char *str(const char *s)
{
	return s ? s : "(null)";
}

/* The apiserver's token for rv and start (start's NUL included). */
static char *token(long long rv, const char *start)
{
	char json[256], *out = NULL;
	int n =
	    snprintf(json, sizeof(json),
	             "{\"v\":\"meta.k8s.io/v1\",\"rv\":%lld,\"start\":\"%s\\u0000\"}", rv, start);
	CU_ASSERT_EQUAL_FATAL(nl_base64url_encode(&out, (const unsigned char *)json, (size_t)n), 0);
	return out;
}

#define NS_CM "/api/v1/namespaces/default/configmaps"

/* etcd3's handleCompactedErrorForPaging: 410 Expired, its message, and in
 * metadata.continue the same start at rv -1; that token then lists the
 * rest at the latest resourceVersion. */
static void test_list_options__expired_continue_is_410_with_fresh_token(void)
{
	char path[1024];
	for (int i = 0; i < 3; i++) {
		char body[200];
		snprintf(body, sizeof(body),
		         "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
		         "\"page-%d\"}}",
		         i);
		json_object_put(req(201, "POST", NS_CM, body));
	}
	/* a first page, then enough writes to push its rv out of the history */
	json_object *first = req(200, "GET", NS_CM "?limit=1", NULL);
	const char *cont = nl_json_get_string(first, "metadata.continue");
	CU_ASSERT_PTR_NOT_NULL_FATAL(cont);
	snprintf(path, sizeof(path), NS_CM "?limit=1&continue=%s", cont);
	json_object_put(req(200, "GET", path, NULL)); /* still consistent */
	for (int i = 0; i < 3; i++) {
		char body[200];
		snprintf(body, sizeof(body),
		         "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
		         "\"page-x%d\"}}",
		         i);
		json_object_put(req(201, "POST", NS_CM, body));
	}
	json_object *st = req(410, "GET", path, NULL);
	char *fresh = token(-1, "page-0");
	json_object *want = json_object_from_file(nl_test_fixture("status/expired-continue.json"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	json_object_object_add(nl_json_get_path(want, "metadata"), "continue",
	                       json_object_new_string(fresh));
	int eq = st && json_object_equal(st, want);
	if (!eq)
		fprintf(stderr, "\n  want %s\n  got  %s\n", json_object_to_json_string(want),
		        st ? json_object_to_json_string(st) : "-");
	CU_ASSERT_TRUE(eq);
	json_object_put(want);
	json_object_put(st);

	/* the fresh token resumes after page-0, at the latest rv */
	json_object *now = req(200, "GET", NS_CM "?limit=500", NULL);
	const char *rv_now = nl_json_get_string(now, "metadata.resourceVersion");
	snprintf(path, sizeof(path), NS_CM "?limit=1&continue=%s", fresh);
	json_object *rest = req(200, "GET", path, NULL);
	CU_ASSERT_STRING_EQUAL(str(nl_json_get_string(rest, "metadata.resourceVersion")),
	                       str(rv_now));
	json_object *items = nl_json_get_path(rest, "items");
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(items), 1);
	CU_ASSERT_STRING_EQUAL(
	    str(nl_json_get_string(json_object_array_get_idx(items, 0), "metadata.name")),
	    "page-1");
	json_object_put(rest);
	json_object_put(now);
	json_object_put(first);
	free(fresh);

	/* so is a token carrying any rv older than the history */
	char *old = token(1, "page-0");
	snprintf(path, sizeof(path), NS_CM "?limit=1&continue=%s", old);
	json_object_put(req(410, "GET", path, NULL));
	free(old);
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), NS_CM "/page-%d", i);
		json_object_put(req(200, "DELETE", path, NULL));
		snprintf(path, sizeof(path), NS_CM "/page-x%d", i);
		json_object_put(req(200, "DELETE", path, NULL));
	}
}

/* metav1.ListOptions.TimeoutSeconds is an *int64 the parameter codec
 * fills with strconv.ParseInt: 1e999 is a 400 on a list and a watch, -1
 * parses (and a list ignores it). */
static void test_list_options__timeout_seconds_must_be_int64(void)
{
	json_object *st = req(400, "GET", NS_CM "?timeoutSeconds=1e999", NULL);
	CU_ASSERT_STRING_EQUAL(str(nl_json_get_string(st, "message")),
	                       "strconv.ParseInt: parsing \"1e999\": invalid syntax");
	CU_ASSERT_STRING_EQUAL(str(nl_json_get_string(st, "reason")), "BadRequest");
	json_object_put(st);
	st = req(400, "GET", NS_CM "?timeoutSeconds=99999999999999999999", NULL);
	CU_ASSERT_STRING_EQUAL(str(nl_json_get_string(st, "message")),
	                       "strconv.ParseInt: parsing \"99999999999999999999\": value out of "
	                       "range");
	json_object_put(st);
	st = req(400, "GET", NS_CM "?timeoutSeconds=%205", NULL);
	CU_ASSERT_STRING_EQUAL(str(nl_json_get_string(st, "message")),
	                       "strconv.ParseInt: parsing \" 5\": invalid syntax");
	json_object_put(st);
	st = req(400, "GET", NS_CM "?watch=1&timeoutSeconds=1e999", NULL);
	CU_ASSERT_STRING_EQUAL(str(nl_json_get_string(st, "message")),
	                       "strconv.ParseInt: parsing \"1e999\": invalid syntax");
	json_object_put(st);
	json_object_put(req(200, "GET", NS_CM "?timeoutSeconds=-1", NULL));
	json_object_put(req(200, "GET", NS_CM "?timeoutSeconds=%2B30", NULL));
}

static CU_TestInfo tests[] = {
    {"expired_continue_is_410_with_fresh_token",
     test_list_options__expired_continue_is_410_with_fresh_token},
    {"timeout_seconds_must_be_int64", test_list_options__timeout_seconds_must_be_int64},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"list_options", setup, teardown, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
