/* Content negotiation: Accept parsing as goautoneg does it (q-values,
 * wildcards, kubectl's exact headers), which representation each endpoint
 * picks, the 406/415 Status bodies, YAML and protobuf bodies in and out,
 * and the Table conversion as the router applies it. */
#include <string.h>

#include <nodelet/meta.h>
#include <nodelet/protobuf.h>

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
	const unsigned pb = res | MOCK_ALLOW_PROTOBUF;
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
	/* kubectl's protobuf-first variant: a Table has no protobuf form, so
	 * that clause is skipped even where protobuf is served. */
	CU_ASSERT_EQUAL(out(&n, PROTOBUF ";as=Table;v=v1;g=meta.k8s.io," KUBECTL_GET, pb), 0);
	CU_ASSERT_EQUAL(n.as, MOCK_AS_TABLE);
	CU_ASSERT_EQUAL(n.media, MOCK_MEDIA_JSON);
	CU_ASSERT_EQUAL(out(&n, PROTOBUF ";as=Table;v=v1;g=meta.k8s.io", pb), NL_EINVAL);
	/* Protobuf where the kind has a schema; else the next clause. */
	CU_ASSERT_EQUAL(out(&n, PROTOBUF ", */*", res), 0);
	CU_ASSERT_EQUAL(n.media, MOCK_MEDIA_JSON);
	CU_ASSERT_EQUAL(out(&n, PROTOBUF ",application/json", pb), 0);
	CU_ASSERT_EQUAL(n.media, MOCK_MEDIA_PROTOBUF);
	CU_ASSERT_EQUAL(n.as, MOCK_AS_NONE);
	CU_ASSERT_EQUAL(out(&n, PROTOBUF ";q=0.5,application/json", pb), 0);
	CU_ASSERT_EQUAL(n.media, MOCK_MEDIA_JSON);
	CU_ASSERT_EQUAL(out(&n, "application/json;q=0.5," PROTOBUF, pb), 0);
	CU_ASSERT_EQUAL(n.media, MOCK_MEDIA_PROTOBUF);
	CU_ASSERT_EQUAL(out(&n, PROTOBUF ";stream=watch", pb), 0);
	CU_ASSERT_EQUAL(n.media, MOCK_MEDIA_PROTOBUF);
	CU_ASSERT_EQUAL(
	    out(&n, PROTOBUF ";as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json",
	        pb),
	    0);
	CU_ASSERT_EQUAL(n.media, MOCK_MEDIA_PROTOBUF);
	CU_ASSERT_EQUAL(n.as, MOCK_AS_PARTIAL_LIST);
	/* Wildcards pick the first served type, JSON. */
	CU_ASSERT_EQUAL(out(&n, "*/*", pb), 0);
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

	/* Nothing acceptable: protobuf only without a schema, other types, Table without a
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
	CU_ASSERT_EQUAL(mock_negotiate_input(&m, PROTOBUF), 0);
	CU_ASSERT_EQUAL(m, MOCK_MEDIA_PROTOBUF);
	m = MOCK_MEDIA_YAML;
	CU_ASSERT_EQUAL(mock_negotiate_input(&m, "application/cbor"), NL_EINVAL);
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
	                  "accepted: application/json, application/yaml, "
	                  "application/vnd.kubernetes.protobuf\",\"reason\":"
	                  "\"NotAcceptable\",\"code\":406}");
	json_object_put(o);
	nl_status_free(st);
	st = mock_status_unsupported_media_type();
	o = nl_status_to_json(st);
	NL_ASSERT_JSON_EQ(o,
	                  "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
	                  "\"Failure\",\"message\":\"the body of the request was in an unknown "
	                  "format - accepted media types include: application/json, "
	                  "application/yaml, application/vnd.kubernetes.protobuf\",\"reason\":"
	                  "\"UnsupportedMediaType\",\"code\":415}");
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

/* Handle one request with a body of len bytes; the caller frees resp. */
static void call_n(mock_response *resp, const char *method, const char *path, const char *body,
                   size_t len, const extra *x);

/* Handle one request; the caller frees resp. */
static void call(mock_response *resp, const char *method, const char *path, const char *body,
                 const extra *x)
{
	call_n(resp, method, path, body, body ? strlen(body) : 0, x);
}

static void call_n(mock_response *resp, const char *method, const char *path, const char *body,
                   size_t len, const extra *x)
{
	mock_request req;
	memset(&req, 0, sizeof(req));
	req.method = method;
	req.path = path;
	req.body = body;
	req.body_len = len;
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

/* A protobuf answer's object as JSON (new reference), NULL if it is not one. */
static json_object *pb_answer(const mock_response *r)
{
	json_object *o = NULL;
	nl_err err = {0};
	if (strcmp(r->content_type, NL_PB_CONTENT_TYPE) != 0 ||
	    nl_pb_decode_object(&o, NULL, r->body.data, r->body.len, &err) != 0)
		return NULL;
	return o;
}

/* obj (JSON text) as an enveloped protobuf object into b. */
static void pb_body(nl_buf *b, const char *json)
{
	json_object *o = json_tokener_parse(json);
	nl_buf_init(b, 1 << 20);
	CU_ASSERT_EQUAL_FATAL(nl_pb_encode_object(b, o), 0);
	json_object_put(o);
}

static void assert_pb_status(const mock_response *r, int code, const char *reason,
                             const char *message)
{
	CU_ASSERT_EQUAL(r->code, code);
	json_object *st = pb_answer(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(st, "kind"), "Status");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(st, "reason"), reason);
	CU_ASSERT_EQUAL(json_object_get_int(json_object_object_get(st, "code")), code);
	if (message)
		CU_ASSERT_STRING_EQUAL(nl_json_get_string(st, "message"), message);
	json_object_put(st);
}

static void test_negotiation__router_answers_protobuf(void)
{
	mock_response r;
	extra pb_out = {PROTOBUF ",application/json", NULL, NULL, NULL};
	call(&r, "GET", "/api/v1/namespaces", NULL, &pb_out);
	CU_ASSERT_EQUAL(r.code, 200);
	json_object *list = pb_answer(&r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(list);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(list, "kind"), "NamespaceList");
	CU_ASSERT_EQUAL(json_object_array_length(json_object_object_get(list, "items")), 4);
	CU_ASSERT_STRING_EQUAL(
	    nl_json_get_string(json_object_array_get_idx(json_object_object_get(list, "items"), 0),
	                       "metadata.name"),
	    "default");
	json_object_put(list);
	mock_response_free(&r);
	/* The same answer again (from the thread's last encoding), then a
	 * changed object: the cache is keyed by content, never stale. */
	extra json_in = {NULL, "application/json", NULL, NULL};
	call(&r, "POST", "/api/v1/namespaces/default/configmaps",
	     "{\"metadata\":{\"name\":\"poll\"},\"data\":{\"v\":\"1\"}}", &json_in);
	CU_ASSERT_EQUAL(r.code, 201);
	mock_response_free(&r);
	mock_response again;
	call(&r, "GET", "/api/v1/namespaces/default/configmaps/poll", NULL, &pb_out);
	call(&again, "GET", "/api/v1/namespaces/default/configmaps/poll", NULL, &pb_out);
	CU_ASSERT_EQUAL(r.body.len, again.body.len);
	CU_ASSERT_EQUAL(memcmp(r.body.data, again.body.data, r.body.len), 0);
	mock_response_free(&r);
	mock_response_free(&again);
	call(&r, "PUT", "/api/v1/namespaces/default/configmaps/poll",
	     "{\"metadata\":{\"name\":\"poll\"},\"data\":{\"v\":\"2\"}}", &json_in);
	CU_ASSERT_EQUAL(r.code, 200);
	mock_response_free(&r);
	call(&r, "GET", "/api/v1/namespaces/default/configmaps/poll", NULL, &pb_out);
	json_object *poll = pb_answer(&r);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(poll, "data.v"), "2");
	json_object_put(poll);
	mock_response_free(&r);
	/* Errors are protobuf Statuses with their details. */
	call(&r, "GET", "/api/v1/namespaces/default/configmaps/missing", NULL, &pb_out);
	assert_pb_status(&r, 404, "NotFound", "configmaps \"missing\" not found");
	mock_response_free(&r);
	/* A Table cannot be protobuf: 406, itself JSON. */
	extra table = {PROTOBUF ";as=Table;v=v1;g=meta.k8s.io", NULL, NULL, NULL};
	call(&r, "GET", "/api/v1/namespaces", NULL, &table);
	assert_reason(&r, 406, "NotAcceptable");
	CU_ASSERT_STRING_EQUAL(r.content_type, "application/json");
	mock_response_free(&r);
	/* Metadata-only lists are served in protobuf. */
	extra partial = {PROTOBUF ";as=PartialObjectMetadataList;g=meta.k8s.io;v=v1", NULL, NULL,
	                 NULL};
	call(&r, "GET", "/api/v1/namespaces", NULL, &partial);
	list = pb_answer(&r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(list);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(list, "kind"), "PartialObjectMetadataList");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(list, "apiVersion"), "meta.k8s.io/v1");
	json_object_put(list);
	mock_response_free(&r);
	/* Discovery stays JSON: protobuf alone is 406, with JSON listed 200. */
	extra only = {PROTOBUF, NULL, NULL, NULL};
	call(&r, "GET", "/api/v1", NULL, &only);
	CU_ASSERT_EQUAL(r.code, 406);
	mock_response_free(&r);
	call(&r, "GET", "/api/v1", NULL, &pb_out);
	CU_ASSERT_EQUAL(r.code, 200);
	CU_ASSERT_STRING_EQUAL(r.content_type, "application/json");
	mock_response_free(&r);
}

static void test_negotiation__router_reads_protobuf(void)
{
	mock_response r;
	nl_buf b;
	extra pb = {PROTOBUF ",application/json", PROTOBUF, NULL, NULL};
	pb_body(&b, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"pb\"},"
	            "\"data\":{\"k\":\"v\"},\"binaryData\":{\"b\":\"AP8=\"}}");
	call_n(&r, "POST", "/api/v1/namespaces/default/configmaps", b.data, b.len, &pb);
	CU_ASSERT_EQUAL(r.code, 201);
	json_object *cm = pb_answer(&r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cm);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(cm, "data.k"), "v");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(cm, "binaryData.b"), "AP8=");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(cm, "metadata.namespace"), "default");
	CU_ASSERT_PTR_NOT_NULL(nl_json_get_string(cm, "metadata.uid"));
	json_object_put(cm);
	mock_response_free(&r);
	/* The same again: 409 with the apiserver's text, in protobuf. */
	call_n(&r, "POST", "/api/v1/namespaces/default/configmaps", b.data, b.len, &pb);
	assert_pb_status(&r, 409, "AlreadyExists", "configmaps \"pb\" already exists");
	mock_response_free(&r);
	nl_buf_free(&b);
	/* An update with a stale resourceVersion: the conflict text. */
	pb_body(&b, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"pb\","
	            "\"resourceVersion\":\"1\"},\"data\":{\"k\":\"w\"}}");
	call_n(&r, "PUT", "/api/v1/namespaces/default/configmaps/pb", b.data, b.len, &pb);
	assert_pb_status(&r, 409, "Conflict",
	                 "Operation cannot be fulfilled on configmaps \"pb\": the object has been "
	                 "modified; please apply your changes to the latest version and try again");
	mock_response_free(&r);
	nl_buf_free(&b);
	/* An envelope without a type is the endpoint's kind (gvkWithDefaults). */
	pb_body(&b,
	        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"bare\"}}");
	CU_ASSERT_EQUAL_FATAL(memcmp(b.data + 4,
	                             "\x0a\x0f\x0a\x02v1\x12\x09"
	                             "ConfigMap",
	                             17),
	                      0);
	char bare[256];
	CU_ASSERT_FATAL(b.len - 15 < sizeof(bare));
	memcpy(bare, b.data, 4);
	memcpy(bare + 4, "\x0a\x00", 2);
	memcpy(bare + 6, b.data + 21, b.len - 21);
	call_n(&r, "POST", "/api/v1/namespaces/default/configmaps", bare, b.len - 15, &pb);
	CU_ASSERT_EQUAL(r.code, 201);
	mock_response_free(&r);
	nl_buf_free(&b);
	/* DeleteOptions in protobuf. */
	pb_body(&b, "{\"apiVersion\":\"v1\",\"kind\":\"DeleteOptions\",\"preconditions\":{\"uid\":"
	            "\"nope\"}}");
	call_n(&r, "DELETE", "/api/v1/namespaces/default/configmaps/pb", b.data, b.len, &pb);
	CU_ASSERT_EQUAL(r.code, 409);
	json_object *st = pb_answer(&r);
	CU_ASSERT_PTR_NOT_NULL(strstr(nl_json_get_string(st, "message"),
	                              "the UID in the precondition (nope) does not match"));
	json_object_put(st);
	mock_response_free(&r);
	nl_buf_free(&b);
}

static void test_negotiation__router_refuses_bad_protobuf(void)
{
	mock_response r;
	nl_buf b;
	extra pb = {NULL, PROTOBUF, NULL, NULL};
	/* No magic: the hex summary of the first 30 bytes. */
	call(&r, "POST", "/api/v1/namespaces/default/configmaps", "\x0a\x02k8s", &pb);
	assert_reason(&r, 400, "BadRequest");
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(r.body.data, "the object provided is unrecognized (must be of type ConfigMap): "
	                        "provided data does not appear to be a protobuf message, expected "
	                        "prefix [107 56 115 0] (0a026b3873)"));
	mock_response_free(&r);
	/* JSON sent as protobuf: the summary is its text. */
	call(&r, "POST", "/api/v1/namespaces/default/configmaps",
	     "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"}", &pb);
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(r.body.data,
	           "expected prefix [107 56 115 0] ({\\\"apiVersion\\\":\\\"v1\\\",\\\"kind\\\":"
	           "\\\"Con ...)"));
	mock_response_free(&r);
	call(&r, "POST", "/api/v1/namespaces/default/configmaps", NULL, &pb);
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(r.body.data, "(must be of type ConfigMap): empty data (<empty>)"));
	mock_response_free(&r);
	/* A good envelope around a broken object names the kind. */
	pb_body(&b,
	        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cut\"}}");
	call_n(&r, "POST", "/api/v1/namespaces/default/configmaps", b.data, b.len - 3, &pb);
	assert_reason(&r, 400, "BadRequest");
	CU_ASSERT_PTR_NOT_NULL(strstr(r.body.data, "\"message\":\"the object provided is "
	                                           "unrecognized (must be of type ConfigMap): "
	                                           "unexpected EOF (6b387300"));
	mock_response_free(&r);
	nl_buf_free(&b);
	/* raw's metadata claims 5 bytes it does not have. */
	static const char cut[] = "k8s\0\x0a\x0f\x0a\x02v1\x12\x09"
	                          "ConfigMap\x12\x02\x0a\x05\x1a\x00\x22\x00";
	call_n(&r, "POST", "/api/v1/namespaces/default/configmaps", cut, sizeof(cut) - 1, &pb);
	assert_reason(&r, 400, "BadRequest");
	CU_ASSERT_PTR_NOT_NULL(strstr(r.body.data, "\"message\":\"ConfigMap in version \\\"v1\\\" "
	                                           "cannot be handled as a ConfigMap: unexpected "
	                                           "EOF\""));
	mock_response_free(&r);
	/* A kind the scheme does not know. */
	static const char foo[] = "k8s\0\x0a\x09\x0a\x02v1\x12\x03"
	                          "Foo\x12\x00";
	call_n(&r, "POST", "/api/v1/namespaces/default/configmaps", foo, sizeof(foo) - 1, &pb);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.body.data,
	                              "Foo in version \\\"v1\\\" cannot be handled as a "
	                              "ConfigMap: no kind \\\"Foo\\\" is registered for "
	                              "version \\\"v1\\\""));
	mock_response_free(&r);
	/* Nothing was stored by any of these. */
	call(&r, "GET", "/api/v1/namespaces/default/configmaps/cut", NULL, NULL);
	CU_ASSERT_EQUAL(r.code, 404);
	mock_response_free(&r);
	/* 406 is checked before 415; PATCH never takes protobuf. */
	extra both = {"application/cbor", "application/cbor", NULL, NULL};
	call(&r, "POST", "/api/v1/namespaces/default/configmaps", "{}", &both);
	CU_ASSERT_EQUAL(r.code, 406);
	mock_response_free(&r);
	extra cbor = {NULL, "application/cbor", NULL, NULL};
	call(&r, "PUT", "/api/v1/namespaces/default/configmaps/x", "{}", &cbor);
	assert_reason(&r, 415, "UnsupportedMediaType");
	mock_response_free(&r);
	call(&r, "PATCH", "/api/v1/namespaces/default/configmaps/x", "{}", &pb);
	CU_ASSERT_EQUAL(r.code, 415);
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
	/* summarizeData: a body that is not JSON is summarized in hex. */
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(r.body.data, " (6d657461646174613a205b756e636c6f7365640a)\""));
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
    {"router_answers_protobuf", test_negotiation__router_answers_protobuf},
    {"router_reads_protobuf", test_negotiation__router_reads_protobuf},
    {"router_refuses_bad_protobuf", test_negotiation__router_refuses_bad_protobuf},
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
