/* Content negotiation: Accept parsing as goautoneg does it (q-values,
 * wildcards, kubectl's exact headers), which representation each endpoint
 * picks, the 406/415 Status bodies, YAML bodies in and out, and the Table
 * conversion as the router applies it. */
#include <string.h>

#include "../cu_main.h"
#include "control/fixtures.h"
#include "core/request.h"
#include "encoding/negotiation.h"
#include "handlers/api.h"
#include "mockapi.h"
#include "storage/store.h"

/* What kubectl 1.32 sends. */
#define KUBECTL_GET                                                                                \
	"application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta." \
	"k8s.io,application/json"
#define KUBECTL_DISCOVERY                                                                   \
	"application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/" \
	"json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
#define PROTOBUF "application/vnd.kubernetes.protobuf"

static void test_negotiation__parses_kubectl_accept(void)
{
	mock_accept a;
	mock_accept_parse(&a, KUBECTL_GET);
	CU_ASSERT_EQUAL_FATAL(a.n, 3);
	CU_ASSERT_STRING_EQUAL(a.clauses[0].type, "application");
	CU_ASSERT_STRING_EQUAL(a.clauses[0].subtype, "json");
	CU_ASSERT_STRING_EQUAL(mock_accept_param_get(&a.clauses[0], "as"), "Table");
	CU_ASSERT_STRING_EQUAL(mock_accept_param_get(&a.clauses[0], "v"), "v1");
	CU_ASSERT_STRING_EQUAL(mock_accept_param_get(&a.clauses[0], "g"), "meta.k8s.io");
	CU_ASSERT_STRING_EQUAL(mock_accept_param_get(&a.clauses[1], "v"), "v1beta1");
	CU_ASSERT_EQUAL(a.clauses[2].nparams, 0);
	CU_ASSERT_PTR_NULL(mock_accept_param_get(&a.clauses[2], "as"));
	CU_ASSERT_DOUBLE_EQUAL(a.clauses[2].q, 1.0, 1e-9);

	/* client-go's default for resource clients. */
	mock_accept_parse(&a, "application/json, */*");
	CU_ASSERT_EQUAL_FATAL(a.n, 2);
	CU_ASSERT_STRING_EQUAL(a.clauses[1].type, "*");
	CU_ASSERT_STRING_EQUAL(a.clauses[1].subtype, "*");
}

static void test_negotiation__q_values_and_wildcards_sort(void)
{
	mock_accept a;
	mock_accept_parse(&a, "application/yaml;q=0.5, application/json ; charset=utf-8");
	CU_ASSERT_EQUAL_FATAL(a.n, 2);
	CU_ASSERT_STRING_EQUAL(a.clauses[0].subtype, "json");
	CU_ASSERT_STRING_EQUAL(mock_accept_param_get(&a.clauses[0], "charset"), "utf-8");
	CU_ASSERT_DOUBLE_EQUAL(a.clauses[1].q, 0.5, 1e-6);

	/* Concrete types sort before wildcards of the same quality. */
	mock_accept_parse(&a, "*/*, text/plain, application/*");
	CU_ASSERT_EQUAL_FATAL(a.n, 3);
	CU_ASSERT_STRING_EQUAL(a.clauses[0].type, "text");
	CU_ASSERT_STRING_EQUAL(a.clauses[1].subtype, "*");
	CU_ASSERT_STRING_EQUAL(a.clauses[1].type, "application");
	CU_ASSERT_STRING_EQUAL(a.clauses[2].type, "*");

	/* A bare "*" means any type; clauses without '/' are dropped; a bad q is 0
	 * and q=0 clauses stay (the apiserver does not drop them either).
	 * goautoneg's comparison puts a concrete type before a wildcard even
	 * of higher quality. */
	mock_accept_parse(&a, "text, *;q=0.2, application/json;q=zero, a/b/c");
	CU_ASSERT_EQUAL_FATAL(a.n, 2);
	CU_ASSERT_STRING_EQUAL(a.clauses[0].subtype, "json");
	CU_ASSERT_DOUBLE_EQUAL(a.clauses[0].q, 0.0, 1e-9);
	CU_ASSERT_STRING_EQUAL(a.clauses[1].subtype, "*");
	CU_ASSERT_DOUBLE_EQUAL(a.clauses[1].q, 0.2, 1e-6);

	mock_accept_parse(&a, NULL);
	CU_ASSERT_EQUAL(a.n, 0);
	mock_accept_parse(&a, "");
	CU_ASSERT_EQUAL(a.n, 0);
}

static int out(mock_negotiated *n, const char *accept, unsigned allow)
{
	memset(n, 0, sizeof(*n));
	n->as = (mock_as)-1;
	return mock_negotiate_output(n, accept, allow);
}

static void test_negotiation__resource_endpoints(void)
{
	const unsigned res = MOCK_ALLOW_PLAIN | MOCK_ALLOW_META;
	mock_negotiated n;
	CU_ASSERT_EQUAL(out(&n, NULL, res), 0);
	CU_ASSERT_EQUAL(n.media, MOCK_MEDIA_JSON);
	CU_ASSERT_EQUAL(n.as, MOCK_AS_NONE);
	CU_ASSERT_EQUAL(out(&n, KUBECTL_GET, res), 0);
	CU_ASSERT_EQUAL(n.as, MOCK_AS_TABLE);
	CU_ASSERT_STRING_EQUAL(n.version, "v1");
	CU_ASSERT_EQUAL(out(&n, "application/json;as=Table;v=v1beta1;g=meta.k8s.io", res), 0);
	CU_ASSERT_STRING_EQUAL(n.version, "v1beta1");
	/* A Table version that does not exist falls through to the next clause. */
	CU_ASSERT_EQUAL(
	    out(&n, "application/json;as=Table;v=v2;g=meta.k8s.io,application/json", res), 0);
	CU_ASSERT_EQUAL(n.as, MOCK_AS_NONE);
	CU_ASSERT_EQUAL(
	    out(&n, "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1", res), 0);
	CU_ASSERT_EQUAL(n.as, MOCK_AS_PARTIAL_LIST);
	/* kubectl's protobuf-first variant, and wildcards. */
	CU_ASSERT_EQUAL(out(&n, PROTOBUF ";as=Table;v=v1;g=meta.k8s.io," KUBECTL_GET, res), 0);
	CU_ASSERT_EQUAL(n.as, MOCK_AS_TABLE);
	CU_ASSERT_EQUAL(out(&n, PROTOBUF ", */*", res), 0);
	CU_ASSERT_EQUAL(n.media, MOCK_MEDIA_JSON);
	CU_ASSERT_EQUAL(out(&n, "application/*", res), 0);
	CU_ASSERT_EQUAL(n.media, MOCK_MEDIA_JSON);
	/* YAML is served, also as a Table. */
	CU_ASSERT_EQUAL(out(&n, "application/yaml", res), 0);
	CU_ASSERT_EQUAL(n.media, MOCK_MEDIA_YAML);
	CU_ASSERT_EQUAL(out(&n, "application/yaml;q=0.9,application/json", res), 0);
	CU_ASSERT_EQUAL(n.media, MOCK_MEDIA_JSON);
	CU_ASSERT_EQUAL(out(&n, "application/yaml;as=Table;v=v1;g=meta.k8s.io", res), 0);
	CU_ASSERT_EQUAL(n.media, MOCK_MEDIA_YAML);
	CU_ASSERT_EQUAL(n.as, MOCK_AS_TABLE);
	/* Unknown parameters are ignored; stream=watch is JSON's only. */
	CU_ASSERT_EQUAL(out(&n, "application/json;pretty=1;charset=utf-8", res), 0);
	CU_ASSERT_EQUAL(out(&n, "application/json;stream=watch", res), 0);
	CU_ASSERT_NOT_EQUAL(out(&n, "application/yaml;stream=watch", res), 0);

	/* Nothing acceptable: protobuf only, other types, Table without a
	 * group, case differences (goautoneg compares exactly). *out untouched. */
	CU_ASSERT_EQUAL(out(&n, PROTOBUF, res), NL_EINVAL);
	CU_ASSERT_EQUAL((int)n.as, -1);
	CU_ASSERT_EQUAL(out(&n, PROTOBUF ";as=Table;v=v1;g=meta.k8s.io", res), NL_EINVAL);
	CU_ASSERT_EQUAL(out(&n, "text/html", res), NL_EINVAL);
	CU_ASSERT_EQUAL(out(&n, "application/json;as=Table", res), NL_EINVAL);
	CU_ASSERT_EQUAL(out(&n, "Application/JSON", res), NL_EINVAL);
	CU_ASSERT_EQUAL(
	    out(&n, "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", res),
	    NL_EINVAL);
}

static void test_negotiation__discovery_endpoints(void)
{
	mock_negotiated n;
	CU_ASSERT_EQUAL(out(&n, KUBECTL_DISCOVERY, MOCK_ALLOW_DISCOVERY), 0);
	CU_ASSERT_EQUAL(n.as, MOCK_AS_DISCOVERY);
	CU_ASSERT_STRING_EQUAL(n.version, "v2");
	CU_ASSERT_EQUAL(
	    out(&n, "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
	        MOCK_ALLOW_DISCOVERY),
	    0);
	CU_ASSERT_STRING_EQUAL(n.version, "v2beta1");
	/* Without the aggregated clause the legacy document is negotiated. */
	CU_ASSERT_EQUAL(out(&n, "application/json, */*", MOCK_ALLOW_DISCOVERY), NL_EINVAL);
	CU_ASSERT_EQUAL(out(&n, "application/json, */*", MOCK_ALLOW_PLAIN), 0);
	CU_ASSERT_EQUAL(n.as, MOCK_AS_NONE);
	/* Table is a resource conversion, not a discovery one. */
	CU_ASSERT_EQUAL(out(&n, "application/json;as=Table;v=v1;g=meta.k8s.io", MOCK_ALLOW_PLAIN),
	                NL_EINVAL);
}

static void test_negotiation__request_body_types(void)
{
	mock_media m = MOCK_MEDIA_YAML;
	CU_ASSERT_EQUAL(mock_negotiate_input(&m, NULL), 0);
	CU_ASSERT_EQUAL(m, MOCK_MEDIA_JSON);
	CU_ASSERT_EQUAL(mock_negotiate_input(&m, "application/yaml"), 0);
	CU_ASSERT_EQUAL(m, MOCK_MEDIA_YAML);
	CU_ASSERT_EQUAL(mock_negotiate_input(&m, "Application/JSON; charset=utf-8"), 0);
	CU_ASSERT_EQUAL(m, MOCK_MEDIA_JSON);
	CU_ASSERT_EQUAL(mock_negotiate_input(&m, "application/json;"), 0);
	m = MOCK_MEDIA_YAML;
	CU_ASSERT_EQUAL(mock_negotiate_input(&m, PROTOBUF), NL_EINVAL);
	CU_ASSERT_EQUAL(mock_negotiate_input(&m, "text/plain"), NL_EINVAL);
	CU_ASSERT_EQUAL(mock_negotiate_input(&m, "application/json; charset"), NL_EINVAL);
	CU_ASSERT_EQUAL(mock_negotiate_input(&m, "application/merge-patch+json"), NL_EINVAL);
	CU_ASSERT_EQUAL(m, MOCK_MEDIA_YAML);
}

static void test_negotiation__status_texts(void)
{
	nl_status *st = mock_status_not_acceptable();
	json_object *o = nl_status_to_json(st);
	NL_ASSERT_JSON_EQ(o,
	                  "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
	                  "\"Failure\",\"message\":\"only the following media types are "
	                  "accepted: application/json, application/yaml\",\"reason\":"
	                  "\"NotAcceptable\",\"code\":406}");
	json_object_put(o);
	nl_status_free(st);
	st = mock_status_unsupported_media_type();
	o = nl_status_to_json(st);
	NL_ASSERT_JSON_EQ(o,
	                  "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
	                  "\"Failure\",\"message\":\"the body of the request was in an unknown "
	                  "format - accepted media types include: application/json, "
	                  "application/yaml\",\"reason\":\"UnsupportedMediaType\",\"code\":415}");
	json_object_put(o);
	nl_status_free(st);
}

/* ------------------------------------------------- through the router */

static mock_options opts;
static mock_api api;

static int setup(void)
{
	nl_err err = {0};
	mock_options_init(&opts);
	memset(&api, 0, sizeof(api));
	api.opts = &opts;
	if (mock_store_new(&api.store, NULL, NULL) != 0 || mock_fixtures_seed(&api, &err) != 0)
		return 1;
	return 0;
}

static int teardown(void)
{
	mock_store_free(api.store);
	return 0;
}

typedef struct {
	const char *accept;
	const char *content_type;
	const char *query_key;
	const char *query_value;
} extra;

/* Handle one request; the caller frees resp. */
static void call(mock_response *resp, const char *method, const char *path, const char *body,
                 const extra *x)
{
	mock_request req;
	memset(&req, 0, sizeof(req));
	req.method = method;
	req.path = path;
	req.body = body;
	req.body_len = body ? strlen(body) : 0;
	req.accept = x ? x->accept : NULL;
	req.content_type = x ? x->content_type : NULL;
	if (x && x->query_key) {
		req.query[0].key = x->query_key;
		req.query[0].value = x->query_value;
		req.nquery = 1;
	}
	mock_response_init(resp);
	mock_api_handle(&api, &req, resp);
}

static void assert_reason(mock_response *resp, int code, const char *reason)
{
	CU_ASSERT_EQUAL(resp->code, code);
	json_object *o = json_tokener_parse(resp->body.data);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(o, "reason")), reason);
	json_object_put(o);
}

static void test_negotiation__router_refuses_protobuf(void)
{
	mock_response r;
	extra pb_out = {PROTOBUF, NULL, NULL, NULL};
	call(&r, "GET", "/api/v1/namespaces/default/configmaps", NULL, &pb_out);
	assert_reason(&r, 406, "NotAcceptable");
	CU_ASSERT_STRING_EQUAL(r.content_type, "application/json");
	mock_response_free(&r);
	/* Negotiation comes before the lookup, as in the apiserver. */
	call(&r, "GET", "/api/v1/namespaces/default/configmaps/missing", NULL, &pb_out);
	CU_ASSERT_EQUAL(r.code, 406);
	mock_response_free(&r);

	extra pb_in = {NULL, PROTOBUF, NULL, NULL};
	call(&r, "POST", "/api/v1/namespaces/default/configmaps", "\x0a\x02k8s", &pb_in);
	assert_reason(&r, 415, "UnsupportedMediaType");
	mock_response_free(&r);
	call(&r, "PUT", "/api/v1/namespaces/default/configmaps/x", "{}", &pb_in);
	CU_ASSERT_EQUAL(r.code, 415);
	mock_response_free(&r);
	/* 406 is checked before 415. */
	extra both = {PROTOBUF, PROTOBUF, NULL, NULL};
	call(&r, "POST", "/api/v1/namespaces/default/configmaps", "{}", &both);
	CU_ASSERT_EQUAL(r.code, 406);
	mock_response_free(&r);
	/* Discovery documents negotiate too; /version and health do not. */
	call(&r, "GET", "/api/v1", NULL, &pb_out);
	CU_ASSERT_EQUAL(r.code, 406);
	mock_response_free(&r);
	call(&r, "GET", "/version", NULL, &pb_out);
	CU_ASSERT_EQUAL(r.code, 200);
	mock_response_free(&r);
}

static void test_negotiation__router_accepts_yaml_bodies(void)
{
	mock_response r;
	extra yaml = {NULL, "application/yaml", NULL, NULL};
	call(&r, "POST", "/api/v1/namespaces/default/configmaps",
	     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  k: v\n",
	     &yaml);
	CU_ASSERT_EQUAL(r.code, 201);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.body.data, "\"data\":{\"k\":\"v\"}"));
	mock_response_free(&r);
	call(&r, "POST", "/api/v1/namespaces/default/configmaps", "metadata: [unclosed\n", &yaml);
	assert_reason(&r, 400, "BadRequest");
	CU_ASSERT_PTR_NOT_NULL(strstr(r.body.data, "the object provided is unrecognized (must be "
	                                           "of type ConfigMap): error converting YAML to "
	                                           "JSON: yaml: line"));
	mock_response_free(&r);
	/* YAML scalars resolve as sigs.k8s.io/yaml does: yes is a bool. */
	call(&r, "POST", "/api/v1/namespaces/default/configmaps",
	     "metadata: {name: bools}\ndata: {k: yes}\n", &yaml);
	assert_reason(&r, 400, "BadRequest");
	CU_ASSERT_PTR_NOT_NULL(strstr(r.body.data, "cannot unmarshal bool"));
	mock_response_free(&r);
}

static void test_negotiation__router_answers_yaml(void)
{
	mock_response r;
	extra yaml = {"application/yaml", NULL, NULL, NULL};
	call(&r, "GET", "/api/v1/namespaces/default", NULL, &yaml);
	CU_ASSERT_EQUAL(r.code, 200);
	CU_ASSERT_STRING_EQUAL(r.content_type, "application/yaml");
	CU_ASSERT_EQUAL(strncmp(r.body.data, "apiVersion: v1\nkind: Namespace\nmetadata:\n", 41),
	                0);
	mock_response_free(&r);
	/* Errors are YAML too. */
	call(&r, "GET", "/api/v1/namespaces/nope", NULL, &yaml);
	CU_ASSERT_EQUAL(r.code, 404);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.body.data, "\nreason: NotFound\n"));
	mock_response_free(&r);
}

static void test_negotiation__router_prints_tables(void)
{
	mock_response r;
	extra table = {KUBECTL_GET, NULL, NULL, NULL};
	call(&r, "GET", "/api/v1/namespaces", NULL, &table);
	CU_ASSERT_EQUAL(r.code, 200);
	json_object *t = json_tokener_parse(r.body.data);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(t, "kind")), "Table");
	json_object *rows = json_object_object_get(t, "rows");
	CU_ASSERT_EQUAL(json_object_array_length(rows), 4);
	json_object *cells = json_object_object_get(json_object_array_get_idx(rows, 0), "cells");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(cells, 0)),
	                       "default");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(cells, 1)),
	                       "Active");
	json_object_put(t);
	mock_response_free(&r);

	call(&r, "GET", "/api/v1/namespaces/kube-system", NULL, &table);
	t = json_tokener_parse(r.body.data);
	CU_ASSERT_EQUAL(json_object_array_length(json_object_object_get(t, "rows")), 1);
	json_object_put(t);
	mock_response_free(&r);

	extra bad = {KUBECTL_GET, NULL, "includeObject", "All"};
	call(&r, "GET", "/api/v1/namespaces", NULL, &bad);
	assert_reason(&r, 400, "BadRequest");
	mock_response_free(&r);

	/* A missing object is still a 404 Status, not a Table. */
	call(&r, "GET", "/api/v1/namespaces/nope", NULL, &table);
	assert_reason(&r, 404, "NotFound");
	mock_response_free(&r);

	/* PartialObjectMetadata of a list is refused. */
	extra partial = {"application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1", NULL, NULL,
	                 NULL};
	call(&r, "GET", "/api/v1/namespaces", NULL, &partial);
	assert_reason(&r, 406, "NotAcceptable");
	mock_response_free(&r);
	call(&r, "GET", "/api/v1/namespaces/default", NULL, &partial);
	CU_ASSERT_EQUAL(r.code, 200);
	CU_ASSERT_EQUAL(
	    strncmp(r.body.data,
	            "{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\"", 61),
	    0);
	mock_response_free(&r);
}

static CU_TestInfo tests[] = {
    {"parses_kubectl_accept", test_negotiation__parses_kubectl_accept},
    {"q_values_and_wildcards_sort", test_negotiation__q_values_and_wildcards_sort},
    {"resource_endpoints", test_negotiation__resource_endpoints},
    {"discovery_endpoints", test_negotiation__discovery_endpoints},
    {"request_body_types", test_negotiation__request_body_types},
    {"status_texts", test_negotiation__status_texts},
    CU_TEST_INFO_NULL,
};

static CU_TestInfo router_tests[] = {
    {"router_refuses_protobuf", test_negotiation__router_refuses_protobuf},
    {"router_accepts_yaml_bodies", test_negotiation__router_accepts_yaml_bodies},
    {"router_answers_yaml", test_negotiation__router_answers_yaml},
    {"router_prints_tables", test_negotiation__router_prints_tables},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"negotiation", NULL, NULL, NULL, NULL, tests},
    {"negotiation_router", setup, teardown, NULL, NULL, router_tests},
    CU_SUITE_INFO_NULL,
};
