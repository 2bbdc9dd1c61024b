/* The access reviews over HTTP, against an in-process server with a token
 * file in Node authorization mode (plain HTTP: tokens need no TLS):
 * SelfSubjectAccessReview, SubjectAccessReview and SelfSubjectReview
 * answered from the request's identity and the mock's authorizer, their
 * validation, discovery listing them, and the protobuf form kubectl
 * sends. */
#include <nodelet/meta.h>
#include <nodelet/protobuf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cu_main.h"
#include "http_client.h"

static mock_server *srv;
static const char *base;
static char tokens[64];

static int setup(void)
{
	static const char csv[] = "admin-token,admin,uid-admin,system:masters\n"
	                          "alice-token,alice,uid-alice\n"
	                          "node-token,system:node:a,uid-a,system:nodes\n";
	snprintf(tokens, sizeof(tokens), "/tmp/nl-reviews-XXXXXX");
	int fd = mkstemp(tokens);
	if (fd < 0 || write(fd, csv, sizeof(csv) - 1) != (ssize_t)(sizeof(csv) - 1))
		return 1;
	close(fd);
	mock_options o;
	mock_options_init(&o);
	o.token_auth_file = tokens;
	o.authorization_mode = "Node";
	return nl_test_suite_server(&srv, &base, &o);
}

static int teardown(void)
{
	mock_server_free(srv);
	unlink(tokens);
	return 0;
}

static const char *str(json_object *o, const char *path)
{
	const char *s = o ? nl_json_get_string(o, path) : NULL;
	return s ? s : "(null)";
}

#define SSAR "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
#define SAR "/apis/authorization.k8s.io/v1/subjectaccessreviews"
#define SSR "/apis/authentication.k8s.io/v1/selfsubjectreviews"

/* POST body as token's user; the answer parsed (code checked). */
static json_object *post(long want, const char *token, const char *path, const char *body)
{
	char auth[128];
	const char *hdrs[] = {auth, NULL};
	nl_http_resp r;
	snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
	CU_ASSERT_EQUAL_FATAL(nl_http_ex(&r, base, "POST", path, body, NULL, hdrs), 0);
	if (r.code != want)
		fprintf(stderr, "\n  POST %s as %s: %ld, want %ld: %s\n", path, token, r.code, want,
		        r.body);
	CU_ASSERT_EQUAL(r.code, want);
	json_object *o = nl_http_json(&r);
	nl_http_resp_free(&r);
	return o;
}

static json_object *ssar(long want, const char *token, const char *attrs)
{
	char body[1024];
	snprintf(body, sizeof(body),
	         "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":\"SelfSubjectAccessReview\","
	         "\"spec\":{%s}}",
	         attrs);
	return post(want, token, SSAR, body);
}

/* The whole answer as the registry writes it: the spec as decoded,
 * status.allowed always, reason when the authorizer gave one. */
static void test_reviews__self_subject_access_review(void)
{
	json_object *o = ssar(201, "admin-token",
	                      "\"resourceAttributes\":{\"verb\":\"delete\",\"resource\":\"nodes\","
	                      "\"name\":\"x\",\"bogus\":1}");
	NL_ASSERT_JSON_EQ(o,
	                  "{\"kind\":\"SelfSubjectAccessReview\",\"apiVersion\":"
	                  "\"authorization.k8s.io/v1\",\"metadata\":{\"creationTimestamp\":null},"
	                  "\"spec\":{\"resourceAttributes\":{\"verb\":\"delete\",\"resource\":"
	                  "\"nodes\",\"name\":\"x\"}},\"status\":{\"allowed\":true}}");
	json_object_put(o);

	o = ssar(201, "alice-token",
	         "\"resourceAttributes\":{\"verb\":\"get\",\"resource\":"
	         "\"configmaps\",\"namespace\":\"default\"}");
	NL_ASSERT_JSON_EQ(nl_json_get_path(o, "status"), "{\"allowed\":false}");
	json_object_put(o);

	o = ssar(201, "alice-token",
	         "\"nonResourceAttributes\":{\"path\":\"/version\",\"verb\":"
	         "\"get\"}");
	NL_ASSERT_JSON_EQ(
	    nl_json_get_path(o, "status"),
	    "{\"allowed\":true,\"reason\":\"RBAC: allowed by ClusterRoleBinding "
	    "\\\"system:public-info-viewer\\\" of ClusterRole "
	    "\\\"system:public-info-viewer\\\" to Group \\\"system:authenticated\\\"\"}");
	json_object_put(o);

	o = ssar(201, "node-token",
	         "\"resourceAttributes\":{\"verb\":\"update\",\"group\":"
	         "\"coordination.k8s.io\",\"resource\":\"leases\",\"namespace\":"
	         "\"kube-node-lease\",\"name\":\"b\"}");
	NL_ASSERT_JSON_EQ(nl_json_get_path(o, "status"),
	                  "{\"allowed\":false,\"reason\":\"can only access node lease with the "
	                  "same name as the requesting node\"}");
	json_object_put(o);
	o = ssar(201, "node-token",
	         "\"resourceAttributes\":{\"verb\":\"patch\",\"resource\":"
	         "\"nodes\",\"subresource\":\"status\",\"name\":\"a\"}");
	NL_ASSERT_JSON_EQ(nl_json_get_path(o, "status"), "{\"allowed\":true}");
	json_object_put(o);
}

/* ValidateSelfSubjectAccessReviewSpec: exactly one kind of attributes. */
static void test_reviews__attributes_validated(void)
{
	json_object *o = ssar(422, "alice-token", "");
	CU_ASSERT_STRING_EQUAL(str(o, "message"),
	                       "SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: "
	                       "spec.resourceAttributes: Invalid value: \"null\": exactly one of "
	                       "nonResourceAttributes or resourceAttributes must be specified");
	CU_ASSERT_STRING_EQUAL(str(o, "details.kind"), "SelfSubjectAccessReview");
	CU_ASSERT_STRING_EQUAL(str(o, "details.group"), "authorization.k8s.io");
	json_object_put(o);
	o = ssar(422, "alice-token",
	         "\"resourceAttributes\":{\"verb\":\"get\"},\"nonResourceAttributes\":{\"path\":"
	         "\"/x\",\"verb\":\"get\"}");
	CU_ASSERT_STRING_EQUAL(str(o, "message"),
	                       "SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: "
	                       "spec.nonResourceAttributes: Invalid value: "
	                       "authorization.NonResourceAttributes{Path:\"/x\", Verb:\"get\"}: "
	                       "cannot be specified in combination with resourceAttributes");
	json_object_put(o);
	o = post(400, "alice-token", SSAR, "[1]");
	CU_ASSERT_STRING_EQUAL(str(o, "reason"), "BadRequest");
	json_object_put(o);
	/* a review is only created: 405 for who may list, 403 for who may not */
	static const char *const admin[] = {"Authorization: Bearer admin-token", NULL};
	nl_http_resp r;
	CU_ASSERT_EQUAL_FATAL(nl_http_ex(&r, base, "GET", SSAR, NULL, NULL, admin), 0);
	CU_ASSERT_EQUAL(r.code, 405);
	nl_http_resp_free(&r);
	CU_ASSERT_EQUAL_FATAL(nl_http(&r, base, "GET", SSAR, NULL, NULL), 0);
	CU_ASSERT_EQUAL(r.code, 403);
	nl_http_resp_free(&r);
}

/* SubjectAccessReview asks about the spec's subject; only an admin may. */
static void test_reviews__subject_access_review(void)
{
	json_object *o =
	    post(201, "admin-token", SAR,
	         "{\"spec\":{\"user\":\"system:node:a\",\"groups\":[\"system:nodes\","
	         "\"system:authenticated\"],\"resourceAttributes\":{\"verb\":\"get\",\"resource\":"
	         "\"configmaps\",\"namespace\":\"kube-system\",\"name\":\"other\"}}}");
	CU_ASSERT_STRING_EQUAL(str(o, "kind"), "SubjectAccessReview");
	NL_ASSERT_JSON_EQ(nl_json_get_path(o, "status"),
	                  "{\"allowed\":false,\"reason\":\"no relationship found between node 'a' "
	                  "and this object\"}");
	CU_ASSERT_STRING_EQUAL(str(o, "spec.user"), "system:node:a");
	json_object_put(o);
	o = post(422, "admin-token", SAR,
	         "{\"spec\":{\"resourceAttributes\":{\"verb\":\"get\",\"resource\":\"nodes\"}}}");
	CU_ASSERT_STRING_EQUAL(
	    str(o, "message"),
	    "SubjectAccessReview.authorization.k8s.io \"\" is invalid: spec.user: "
	    "Invalid value: \"\": at least one of user or group must be specified");
	json_object_put(o);
	o = post(403, "alice-token", SAR,
	         "{\"spec\":{\"user\":\"bob\",\"resourceAttributes\":{\"verb\":\"get\"}}}");
	CU_ASSERT_STRING_EQUAL(str(o, "message"),
	                       "subjectaccessreviews.authorization.k8s.io is forbidden: User "
	                       "\"alice\" cannot create resource \"subjectaccessreviews\" in API "
	                       "group \"authorization.k8s.io\" at the cluster scope");
	json_object_put(o);
}

/* SelfSubjectReview: the requester's user info, uid from the token file. */
static void test_reviews__self_subject_review(void)
{
	json_object *o = post(201, "alice-token", SSR, "{}");
	NL_ASSERT_JSON_EQ(o,
	                  "{\"kind\":\"SelfSubjectReview\",\"apiVersion\":"
	                  "\"authentication.k8s.io/v1\",\"metadata\":{\"creationTimestamp\":null},"
	                  "\"status\":{\"userInfo\":{\"username\":\"alice\",\"uid\":\"uid-alice\","
	                  "\"groups\":[\"system:authenticated\"]}}}");
	json_object_put(o);
	o = post(201, "node-token", SSR, "{}");
	CU_ASSERT_STRING_EQUAL(str(o, "status.userInfo.username"), "system:node:a");
	CU_ASSERT_EQUAL(json_object_array_length(nl_json_get_path(o, "status.userInfo.groups")), 2);
	json_object_put(o);
}

/* Legacy and aggregated discovery list the groups and their create-only
 * resources, so kubectl finds them. */
static void test_reviews__discovery_lists_them(void)
{
	char auth[] = "Authorization: Bearer alice-token";
	const char *hdrs[] = {auth, NULL};
	nl_http_resp r;
	CU_ASSERT_EQUAL_FATAL(
	    nl_http_ex(&r, base, "GET", "/apis/authorization.k8s.io/v1", NULL, NULL, hdrs), 0);
	json_object *l = nl_http_json(&r);
	nl_http_resp_free(&r);
	json_object *res = nl_json_get_path(l, "resources");
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(res), 2);
	NL_ASSERT_JSON_EQ(json_object_array_get_idx(res, 0),
	                  "{\"name\":\"selfsubjectaccessreviews\",\"singularName\":"
	                  "\"selfsubjectaccessreview\",\"namespaced\":false,\"kind\":"
	                  "\"SelfSubjectAccessReview\",\"verbs\":[\"create\"]}");
	json_object_put(l);
	CU_ASSERT_EQUAL_FATAL(nl_http_ex(&r, base, "GET", "/apis", NULL, NULL, hdrs), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.body, "\"name\":\"authentication.k8s.io\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.body, "\"name\":\"authorization.k8s.io\""));
	nl_http_resp_free(&r);
	static const char *const agg[] = {
	    "Authorization: Bearer alice-token",
	    "Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", NULL};
	CU_ASSERT_EQUAL_FATAL(nl_http_ex(&r, base, "GET", "/apis", NULL, NULL, agg), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.body,
	                              "{\"resource\":\"selfsubjectreviews\",\"responseKind\":"
	                              "{\"group\":\"authentication.k8s.io\",\"version\":"
	                              "\"v1\",\"kind\":\"SelfSubjectReview\"},\"scope\":"
	                              "\"Cluster\",\"singularResource\":"
	                              "\"selfsubjectreview\",\"verbs\":[\"create\"]}"));
	nl_http_resp_free(&r);
}

/* kubectl sends the review as protobuf and accepts protobuf first: the
 * answer is an enveloped SelfSubjectReview that the codec reads back. */
static void test_reviews__protobuf_round_trip(void)
{
	/* magic, Unknown{typeMeta{apiVersion, kind}, raw{metadata{}, status{}}} */
	static const char body[] = "k8s\0"
	                           "\x0a\x2d\x0a\x18"
	                           "authentication.k8s.io/v1"
	                           "\x12\x11"
	                           "SelfSubjectReview"
	                           "\x12\x04\x0a\x00\x12\x00"
	                           "\x1a\x00\x22\x00";
	static const char *const hdrs[] = {"Authorization: Bearer alice-token",
	                                   "Accept: application/vnd.kubernetes.protobuf, "
	                                   "application/json",
	                                   NULL};
	nl_http_resp r;
	CU_ASSERT_EQUAL_FATAL(
	    nl_http_bytes(&r, base, "POST", SSR, body, sizeof(body) - 1, NL_PB_CONTENT_TYPE, hdrs),
	    0);
	CU_ASSERT_EQUAL(r.code, 201);
	CU_ASSERT_STRING_EQUAL(r.content_type, NL_PB_CONTENT_TYPE);
	CU_ASSERT(r.len > 4 && memcmp(r.body, "k8s\0", 4) == 0);
	CU_ASSERT_PTR_NOT_NULL(memmem(r.body, r.len,
	                              "\x0a\x05"
	                              "alice",
	                              7));
	CU_ASSERT_PTR_NOT_NULL(memmem(r.body, r.len, "uid-alice", 9));
	nl_http_resp_free(&r);
}

static CU_TestInfo tests[] = {
    {"self_subject_access_review", test_reviews__self_subject_access_review},
    {"attributes_validated", test_reviews__attributes_validated},
    {"subject_access_review", test_reviews__subject_access_review},
    {"self_subject_review", test_reviews__self_subject_review},
    {"discovery_lists_them", test_reviews__discovery_lists_them},
    {"protobuf_round_trip", test_reviews__protobuf_round_trip},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"reviews", setup, teardown, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
