/* Strings as Go sees them, over real HTTP (docs/decisions/0030): a NUL in a
 * name, key, label or annotation is refused by the rule upstream applies
 * (422 with its text), never cut at the NUL; invalid UTF-8 and lone
 * surrogates are stored and served as U+FFFD, as Go's encoding/json reads
 * them; and the list options upstream refuses (an expired continue token,
 * a timeoutSeconds that is no int64). Server in-process on port 0. */
#include <nodelet/json_text.h>
#include <nodelet/meta.h>
#include <nodelet/protobuf.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <nodelet/client.h>
#include <nodelet/configmap.h>

#include "../cu_main.h"
#include "fake_http.h"
#include "http_client.h"

static mock_server *srv;
static const char *base;

static int setup(void)
{
	return nl_test_suite_server(&srv, &base, NULL);
}

static int teardown(void)
{
	mock_server_free(srv);
	return 0;
}

/* Request and parse; the caller owns the returned object. */
static json_object *req_ct(long want, const char *method, const char *path, const char *body,
                           const char *ct)
{
	return nl_http_expect(want, base, method, path, body, ct);
}

static json_object *req(long want, const char *method, const char *path, const char *body)
{
	return req_ct(want, method, path, body, NULL);
}

/* Compare an answer with a golden Status under fixtures/status/. */
static void assert_golden(json_object *got, const char *golden)
{
	json_object *want = json_object_from_file(nl_test_fixture(golden));
	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	int eq = got && json_object_equal(got, want);
	if (!eq)
		fprintf(stderr, "\n%s\n  want %s\n  got  %s\n", golden,
		        json_object_to_json_string(want),
		        got ? json_object_to_json_string(got) : "-");
	CU_ASSERT_TRUE(eq);
	json_object_put(want);
}

#define CM_PATH "/api/v1/namespaces/default/configmaps"

/* ValidateObjectMeta's NameIsDNSSubdomain refuses "a\x00b" (the message
 * quotes it as Go's %q does, details.name keeps the NUL), and nothing is
 * stored under "a": that name stays free. */
static void test_strings__nul_in_name_is_invalid_not_cut(void)
{
	json_object *st = req(422, "POST", CM_PATH,
	                      "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
	                      "\"metadata\":{\"name\":\"a\\u0000b\"}}");
	assert_golden(st, "status/invalid-configmap-nul-name.json");
	json_object_put(st);
	json_object_put(req(404, "GET", CM_PATH "/a", NULL));
	json_object_put(req(201, "POST", CM_PATH,
	                    "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
	                    "\"metadata\":{\"name\":\"a\"}}"));
	json_object_put(req(200, "DELETE", CM_PATH "/a", NULL));
}

/* A Node named "n\x00/../x": the DNS-1123 rule, not a path. */
static void test_strings__nul_in_node_name(void)
{
	json_object *st = req(
	    422, "POST", "/api/v1/nodes",
	    "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n\\u0000/../x\"}}");
	assert_golden(st, "status/invalid-node-nul-name.json");
	json_object_put(st);
	json_object_put(req(404, "GET", "/api/v1/nodes/n", NULL));
}

/* IsConfigMapKey on the whole key: the field path data[ok<NUL>/../../x]
 * carries the NUL as Go's field.Path writes it. */
static void test_strings__nul_in_data_key(void)
{
	json_object *st =
	    req(422, "POST", CM_PATH,
	        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
	        "\"cm-nul\"},\"data\":{\"ok\\u0000/../../x\":\"v\"}}");
	assert_golden(st, "status/invalid-configmap-nul-key.json");
	json_object_put(st);
	json_object_put(req(404, "GET", CM_PATH "/cm-nul", NULL));
}

/* Label key and value and annotation key: IsQualifiedName and the label
 * value regex see the NUL. */
static void test_strings__nul_in_labels_and_annotations(void)
{
	json_object *st =
	    req(422, "POST", CM_PATH,
	        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
	        "\"cm-l\",\"labels\":{\"k\\u0000x\":\"v\\u0000w\"},"
	        "\"annotations\":{\"a\\u0000\":\"fine\\u0000\"}}}");
	assert_golden(st, "status/invalid-configmap-nul-labels.json");
	json_object_put(st);
}

/* A merge patch and a JSON patch adding a key with a NUL: the key stays
 * whole, so validation refuses it, and "ok" is never written. */
static void test_strings__nul_in_patched_key(void)
{
	json_object_put(req(201, "POST", CM_PATH,
	                    "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
	                    "\"metadata\":{\"name\":\"cm-p\"},\"data\":{\"a\":\"1\"}}"));
	json_object *st = req_ct(422, "PATCH", CM_PATH "/cm-p", "{\"data\":{\"ok\\u0000x\":\"v\"}}",
	                         "application/merge-patch+json");
	json_object *causes = NULL;
	CU_ASSERT_PTR_NOT_NULL(st);
	json_object *field = nl_json_get_path(st, "details.causes");
	causes = json_object_is_type(field, json_type_array) ? field : NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(causes);
	json_object *f = nl_json_get_path(json_object_array_get_idx(causes, 0), "field");
	CU_ASSERT_EQUAL(json_object_get_string_len(f), 10);
	CU_ASSERT(memcmp(json_object_get_string(f), "data[ok\0x]", 10) == 0);
	json_object_put(st);
	st = req_ct(422, "PATCH", CM_PATH "/cm-p",
	            "[{\"op\":\"add\",\"path\":\"/data/ok\\u0000x\",\"value\":\"v\"}]",
	            "application/json-patch+json");
	json_object_put(st);
	json_object *cm = req(200, "GET", CM_PATH "/cm-p", NULL);
	CU_ASSERT_PTR_NULL(nl_json_get_path(cm, "data.ok"));
	CU_ASSERT_EQUAL(json_object_object_length(nl_json_get_path(cm, "data")), 1);
	json_object_put(cm);
	json_object_put(req(200, "DELETE", CM_PATH "/cm-p", NULL));
}

/* A NUL in a key no rule checks (a Node's status.capacity): upstream
 * stores it; the mock cannot hold it and refuses (a deliberate
 * difference). Either way nothing named "cpu" appears. */
static void test_strings__nul_in_unchecked_key_is_refused(void)
{
	json_object *st = req(422, "POST", "/api/v1/nodes",
	                      "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":"
	                      "\"n-cap\"},\"status\":{\"capacity\":{\"cpu\\u0000x\":\"1\"}}}");
	const char *msg = json_object_get_string(nl_json_get_path(st, "message"));
	CU_ASSERT_PTR_NOT_NULL(msg ? strstr(msg, "status.capacity.cpu") : NULL);
	json_object_put(st);
	json_object_put(req(404, "GET", "/api/v1/nodes/n-cap", NULL));
}

/* Go's decoder: one U+FFFD per invalid byte, one per lone surrogate; a
 * valid pair is one rune. The stored object and every read of it carry
 * only valid UTF-8. */
static void test_strings__invalid_utf8_becomes_replacement(void)
{
	nl_http_resp r;
	json_object_put(req(201, "POST", CM_PATH,
	                    "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
	                    "\"cm-u\"},\"data\":{\"raw\":\"\xff\xfe\",\"lone\":\"x\\ud800y\","
	                    "\"pair\":\"\\ud83d\\ude00\"}}"));
	CU_ASSERT_EQUAL_FATAL(nl_http(&r, base, "GET", CM_PATH "/cm-u", NULL, NULL), 0);
	CU_ASSERT_EQUAL(r.code, 200);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.body, "\"raw\":\"\xef\xbf\xbd\xef\xbf\xbd\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.body, "\"lone\":\"x\xef\xbf\xbdy\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.body, "\"pair\":\"\xf0\x9f\x98\x80\""));
	CU_ASSERT_PTR_NULL(strstr(r.body, "\xff"));
	nl_http_resp_free(&r);
	/* the list serves the same bytes */
	CU_ASSERT_EQUAL_FATAL(nl_http(&r, base, "GET", CM_PATH, NULL, NULL), 0);
	CU_ASSERT_PTR_NULL(strstr(r.body, "\xff"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.body, "\"raw\":\"\xef\xbf\xbd\xef\xbf\xbd\""));
	nl_http_resp_free(&r);
	json_object_put(req(200, "DELETE", CM_PATH "/cm-u", NULL));
	/* in a key too, which IsConfigMapKey then refuses, quoting U+FFFD as
	 * Go's %q does (printable: as it is) */
	json_object *st =
	    req(422, "POST", CM_PATH,
	        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
	        "\"cm-k\"},\"data\":{\"k\xc3\":\"cut\"}}");
	const char *msg = json_object_get_string(nl_json_get_path(st, "message"));
	CU_ASSERT_PTR_NOT_NULL(
	    msg ? strstr(msg, "data[k\xef\xbf\xbd]: Invalid value: \"k\xef\xbf\xbd\": a "
	                      "valid config key")
	        : NULL);
	json_object_put(st);
}

/* A merge patch's strings are read the same way. */
static void test_strings__invalid_utf8_in_patch(void)
{
	nl_http_resp r;
	json_object_put(req(201, "POST", CM_PATH,
	                    "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
	                    "\"metadata\":{\"name\":\"cm-up\"}}"));
	json_object_put(req_ct(200, "PATCH", CM_PATH "/cm-up", "{\"data\":{\"v\":\"\xe2\x82\"}}",
	                       "application/merge-patch+json"));
	CU_ASSERT_EQUAL_FATAL(nl_http(&r, base, "GET", CM_PATH "/cm-up", NULL, NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.body, "\"v\":\"\xef\xbf\xbd\xef\xbf\xbd\""));
	nl_http_resp_free(&r);
	json_object_put(req(200, "DELETE", CM_PATH "/cm-up", NULL));
}

/* Into the nl_buf at u, when there is one. */
static size_t collect(char *p, size_t size, size_t n, void *u)
{
	if (u && nl_buf_add(u, p, size * n) != 0)
		return 0;
	return size * n;
}

/* A request with a body of any bytes (protobuf, or JSON with a NUL in it):
 * the HTTP code; the answer into *answer unless it is NULL. */
static long send_bytes(const char *method, const char *path, const char *ct, const char *data,
                       size_t len, nl_buf *answer)
{
	char url[512], ct_line[128];
	long code = 0;
	CURL *c = curl_easy_init();
	snprintf(ct_line, sizeof(ct_line), "Content-Type: %s", ct);
	struct curl_slist *hs = curl_slist_append(NULL, ct_line);
	snprintf(url, sizeof(url), "%s%s", base, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hs);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, data);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)len);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, answer);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	CU_ASSERT_EQUAL_FATAL(curl_easy_perform(c), CURLE_OK);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	curl_slist_free_all(hs);
	curl_easy_cleanup(c);
	return code;
}

static long post_protobuf_to(const char *path, const nl_buf *body, nl_buf *answer)
{
	return send_bytes("POST", path, NL_PB_CONTENT_TYPE, body->data, body->len, answer);
}

static long post_protobuf(const char *path, const nl_buf *body)
{
	return post_protobuf_to(path, body, NULL);
}

/* A NUL in a map key reaches validation from YAML ("\0" in a double-quoted
 * scalar, which sigs.k8s.io/yaml keeps) and from protobuf (gogo's Unmarshal
 * keeps a map key's bytes): the same 422 as the JSON body's \u0000. */
static void test_strings__nul_in_yaml_and_protobuf_keys(void)
{
	json_object *st = req_ct(422, "POST", CM_PATH,
	                         "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm-nul}\n"
	                         "data:\n  \"ok\\0/../../x\": v\n",
	                         "application/yaml");
	assert_golden(st, "status/invalid-configmap-nul-key.json");
	json_object_put(st);

	json_object *cm = nl_test_json("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
	                               "\"metadata\":{\"name\":\"cm-nul\"},"
	                               "\"data\":{\"okZ/../../x\":\"v\"}}");
	nl_buf b, answer;
	nl_buf_init(&b, 0);
	nl_buf_init(&answer, 0);
	CU_ASSERT_EQUAL_FATAL(nl_pb_encode_object(&b, cm), 0);
	char *z = memmem(b.data, b.len, "okZ/", 4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(z);
	z[2] = '\0';
	CU_ASSERT_EQUAL(post_protobuf_to(CM_PATH, &b, &answer), 422);
	st = json_tokener_parse(answer.data ? answer.data : "");
	assert_golden(st, "status/invalid-configmap-nul-key.json");
	json_object_put(st);
	json_object_put(req(404, "GET", CM_PATH "/cm-nul", NULL));
	nl_buf_free(&answer);
	nl_buf_free(&b);
	json_object_put(cm);
}

/* A protobuf string field is bytes to Go (gogo's Unmarshal keeps them),
 * and a JSON answer replaces what is not UTF-8: a JSON reader sees
 * U+FFFD either way. A NUL in a protobuf name is refused as in JSON. */
static void test_strings__protobuf_bodies_as_json_sees_them(void)
{
	json_object *cm = nl_test_json("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
	                               "\"metadata\":{\"name\":\"cm-pb\"},\"data\":{}}");
	json_object_object_add(json_object_object_get(cm, "data"), "v",
	                       json_object_new_string_len("a\xff\xfe", 3));
	nl_buf b;
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL_FATAL(nl_pb_encode_object(&b, cm), 0);
	CU_ASSERT_EQUAL(post_protobuf(CM_PATH, &b), 201);
	nl_http_resp r;
	CU_ASSERT_EQUAL_FATAL(nl_http(&r, base, "GET", CM_PATH "/cm-pb", NULL, NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.body, "\"v\":\"a\xef\xbf\xbd\xef\xbf\xbd\""));
	nl_http_resp_free(&r);
	json_object_put(req(200, "DELETE", CM_PATH "/cm-pb", NULL));

	json_object_object_add(json_object_object_get(cm, "metadata"), "name",
	                       json_object_new_string_len("cm\0pb", 5));
	nl_buf_reset(&b);
	CU_ASSERT_EQUAL_FATAL(nl_pb_encode_object(&b, cm), 0);
	CU_ASSERT_EQUAL(post_protobuf(CM_PATH, &b), 422);
	json_object_put(req(404, "GET", CM_PATH "/cm", NULL));
	nl_buf_free(&b);
	json_object_put(cm);
}

/* The agent's decoder reads strings as the mock's does: a ConfigMap key
 * with a NUL (which no apiserver would serve, but a hostile one might)
 * stays a key other than "ok", marked; bad UTF-8 arrives as U+FFFD. */
static int serve_bad_strings(int fd, const fake_http_req *r, void *payload)
{
	(void)r;
	(void)payload;
	return fake_http_reply(fd, 200, NULL, "application/json",
	                       "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{"
	                       "\"name\":\"c\",\"namespace\":\"n\"},\"data\":{\"ok\\u0000x\":"
	                       "\"\xff\",\"ok\":\"\\udc00\"}}");
}

static void test_strings__client_decodes_as_go(void)
{
	fake_http *f = NULL;
	CU_ASSERT_EQUAL_FATAL(fake_http_start(&f, serve_bad_strings, NULL), 0);
	nl_rest_config cfg = {0};
	nl_client_options o;
	nl_client *c = NULL;
	nl_err err = {0};
	cfg.server = (char *)fake_http_url(f);
	nl_client_options_init(&o);
	o.qps = -1;
	o.max_retries = -1;
	CU_ASSERT_EQUAL_FATAL(nl_client_new(&c, &cfg, &o, &err), 0);
	json_object *cm = NULL;
	nl_result res = NL_RESULT_INIT;
	CU_ASSERT_EQUAL_FATAL(nl_configmap_get(&cm, c, "n", "c", &res), 0);
	json_object *data = nl_json_get_path(cm, "data");
	CU_ASSERT_EQUAL(json_object_object_length(data), 2);
	const char *marked =
	    json_object_get_string(json_object_object_get(data, "ok" NL_JSON_KEY_NUL "x"));
	const char *plain = json_object_get_string(json_object_object_get(data, "ok"));
	CU_ASSERT_STRING_EQUAL(marked ? marked : "(none)", "\xef\xbf\xbd");
	CU_ASSERT_STRING_EQUAL(plain ? plain : "(none)", "\xef\xbf\xbd");
	json_object_put(cm);
	nl_result_clear(&res);
	nl_client_free(c);
	fake_http_stop(f);
}

/* A %00 in the URL is a NUL in the name, as Go's URL decoding reads it:
 * no object has it (404 with the whole name), and the object named by what
 * precedes it is neither read nor deleted. It was cut at the NUL: DELETE
 * of a%00zzz deleted a. */
static void test_strings__nul_in_url_name_is_not_cut(void)
{
	json_object_put(req(201, "POST", "/api/v1/namespaces/default/configmaps",
	                    "{\"metadata\":{\"name\":\"urlnul\"}}"));
	json_object *o = req(404, "GET", "/api/v1/namespaces/default/configmaps/urlnul%00b", NULL);
	const char *msg = json_object_get_string(nl_json_get_path(o, "message"));
	CU_ASSERT_STRING_EQUAL(msg ? msg : "", "configmaps \"urlnul\\x00b\" not found");
	json_object_put(o);
	json_object_put(
	    req(404, "DELETE", "/api/v1/namespaces/default/configmaps/urlnul%00zzz", NULL));
	o = req(200, "GET",
	        "/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Durlnul%00x",
	        NULL);
	CU_ASSERT_EQUAL(json_object_array_length(nl_json_get_path(o, "items")), 0);
	json_object_put(o);
	o = req(200, "GET", "/api/v1/namespaces/default/configmaps/urlnul", NULL);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(nl_json_get_path(o, "metadata.name")),
	                       "urlnul");
	json_object_put(o);
}

/* DeleteOptions are read as every body is, all of its bytes: a NUL after
 * valid JSON is data after the top-level value, which Go's decoder refuses
 * (the apiserver's 400 since the fix of kubernetes#132359), and the object
 * stays. Cut at the NUL, the body would be valid and the object gone. */
static void test_strings__nul_after_delete_options_is_refused(void)
{
	static const char body[] = "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\"}\0x";
	json_object_put(req(201, "POST", CM_PATH,
	                    "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
	                    "\"metadata\":{\"name\":\"del-nul\"}}"));
	nl_buf answer;
	nl_buf_init(&answer, 1 << 20);
	CU_ASSERT_EQUAL(send_bytes("DELETE", CM_PATH "/del-nul", "application/json", body,
	                           sizeof(body) - 1, &answer),
	                400);
	nl_status *st = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_status_parse(&st, answer.data, answer.len), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st->reason);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st->message);
	CU_ASSERT_STRING_EQUAL(st->reason, "BadRequest");
	CU_ASSERT_STRING_EQUAL(st->message, "couldn't get version/kind; json parse error: "
	                                    "invalid character '\\x00' after top-level value");
	nl_status_free(st);
	nl_buf_free(&answer);
	json_object_put(req(200, "GET", CM_PATH "/del-nul", NULL));
	json_object_put(req(200, "DELETE", CM_PATH "/del-nul", NULL));
}

static CU_TestInfo tests[] = {
    {"nul_in_name_is_invalid_not_cut", test_strings__nul_in_name_is_invalid_not_cut},
    {"nul_in_node_name", test_strings__nul_in_node_name},
    {"nul_in_data_key", test_strings__nul_in_data_key},
    {"nul_in_labels_and_annotations", test_strings__nul_in_labels_and_annotations},
    {"nul_in_patched_key", test_strings__nul_in_patched_key},
    {"nul_in_unchecked_key_is_refused", test_strings__nul_in_unchecked_key_is_refused},
    {"invalid_utf8_becomes_replacement", test_strings__invalid_utf8_becomes_replacement},
    {"invalid_utf8_in_patch", test_strings__invalid_utf8_in_patch},
    {"nul_in_url_name_is_not_cut", test_strings__nul_in_url_name_is_not_cut},
    {"client_decodes_as_go", test_strings__client_decodes_as_go},
    {"protobuf_bodies_as_json_sees_them", test_strings__protobuf_bodies_as_json_sees_them},
    {"nul_in_yaml_and_protobuf_keys", test_strings__nul_in_yaml_and_protobuf_keys},
    {"nul_after_delete_options_is_refused", test_strings__nul_after_delete_options_is_refused},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"strings", setup, teardown, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
