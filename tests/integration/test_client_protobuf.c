/* The client in protobuf mode (kubelet's --kube-api-content-type default)
 * against a scripted server: the exact request headers and body bytes,
 * answers decoded by their Content-Type, a protobuf metav1.Status on 404,
 * 409 and 422 giving the nl_result the JSON one gives, protobuf watch
 * frames split across reads, and the JSON mode left as it was. */
#include <nodelet/api.h>
#include <nodelet/lease.h>
#include <nodelet/meta.h>
#include <nodelet/protobuf.h>
#include <nodelet/watch.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cu_main.h"
#include "fake_http.h"

#define PB_ACCEPT "application/vnd.kubernetes.protobuf,application/json"

/* What the server saw of the last request, and what it answers. */
typedef struct {
	pthread_mutex_t mu;
	fake_http_req last; /* body in body/body_len */
	unsigned char body[8192];
	size_t body_len;
	int code;
	const char *ct;
	const void *reply;
	size_t reply_len;
	/* watch: frames (or JSON lines) sent in chunks of `step` bytes */
	int watch;
	size_t step;
} script;

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n > 0) {
		ssize_t w = write(fd, c, n);
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static int handler(int fd, const fake_http_req *r, void *payload)
{
	script *s = payload;
	pthread_mutex_lock(&s->mu);
	s->last = *r;
	s->last.body = NULL;
	s->body_len = r->body_len < sizeof(s->body) ? r->body_len : sizeof(s->body);
	memcpy(s->body, r->body, s->body_len);
	int code = s->code, watch = s->watch;
	const char *ct = s->ct;
	size_t len = s->reply_len, step = s->step;
	/* The answer's own copy: the test frees its buffer once the client
	 * has read the answer, which can be before write() has returned here
	 * (ASan checks the range after the call). */
	char *reply = malloc(len ? len : 1);
	if (reply && len)
		memcpy(reply, s->reply, len);
	pthread_mutex_unlock(&s->mu);
	if (!reply)
		return 1;
	int rc = 1;
	if (watch) {
		fake_http_start_chunked(fd, 200, ct);
		for (size_t at = 0; at < len; at += step)
			fake_http_chunk(fd, reply + at, at + step > len ? len - at : step);
		fake_http_chunk(fd, NULL, 0);
	} else {
		char head[512];
		int n = snprintf(head, sizeof(head),
		                 "HTTP/1.1 %d X\r\nContent-Type: %s\r\nContent-Length: %zu\r\n\r\n",
		                 code, ct, len);
		rc = write_all(fd, head, (size_t)n) != 0 || write_all(fd, reply, len) != 0;
	}
	free(reply);
	return rc;
}

static fake_http *start(script *s)
{
	fake_http *f;
	pthread_mutex_init(&s->mu, NULL);
	CU_ASSERT_EQUAL_FATAL(fake_http_start(&f, handler, s), 0);
	return f;
}

static void stop(fake_http *f, script *s)
{
	fake_http_stop(f);
	pthread_mutex_destroy(&s->mu);
}

static void answer(script *s, int code, const char *ct, const void *reply, size_t len)
{
	pthread_mutex_lock(&s->mu);
	s->code = code;
	s->ct = ct;
	s->reply = reply;
	s->reply_len = len;
	pthread_mutex_unlock(&s->mu);
}

static nl_client *client_at(const char *url, nl_content_type ct)
{
	nl_rest_config cfg = {0};
	nl_client_options o;
	nl_client *c = NULL;
	nl_err err = {0};
	cfg.server = (char *)url;
	nl_client_options_init(&o);
	o.qps = -1;
	o.max_retries = -1;
	o.content_type = ct;
	CU_ASSERT_EQUAL_FATAL(nl_client_new(&c, &cfg, &o, &err), 0);
	return c;
}

static const char *header(script *s, const char *name, char *buf, size_t n)
{
	pthread_mutex_lock(&s->mu);
	const char *v = fake_http_header(&s->last, name, buf, n);
	pthread_mutex_unlock(&s->mu);
	return v;
}

/* The enveloped protobuf of a JSON text (caller frees the buffer). */
static nl_buf encode(const char *json)
{
	nl_buf b;
	json_object *o = nl_test_json(json);
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL_FATAL(nl_pb_encode_object(&b, o), 0);
	json_object_put(o);
	return b;
}

static void assert_body_is(script *s, const nl_buf *want)
{
	pthread_mutex_lock(&s->mu);
	CU_ASSERT_EQUAL(s->body_len, want->len);
	CU_ASSERT(s->body_len == want->len && memcmp(s->body, want->data, want->len) == 0);
	pthread_mutex_unlock(&s->mu);
}

static const char cm_sent[] =
    "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":"
    "\"pb\",\"namespace\":\"default\",\"labels\":{\"a\":\"b\"}},"
    "\"data\":{\"k\":\"v\"}}";
static const char cm_stored[] =
    "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"pb\",\"namespace\":"
    "\"default\",\"uid\":\"0b1c\",\"resourceVersion\":\"7\",\"creationTimestamp\":\"2024-01-01T00:"
    "00:00Z\",\"labels\":{\"a\":\"b\"}},\"data\":{\"k\":\"v\"}}";

/* POST and PUT bodies are nl_pb_encode_object's bytes with a protobuf
 * Content-Type and client-go's Accept; the protobuf answer is the tree the
 * JSON answer would have given. */
static void test_client_protobuf__create_and_update_bodies_and_headers(void)
{
	script s = {0};
	fake_http *f = start(&s);
	nl_client *c = client_at(fake_http_url(f), NL_CONTENT_PROTOBUF);
	nl_buf sent = encode(cm_sent), stored = encode(cm_stored);
	json_object *cm = nl_test_json(cm_sent), *out = NULL;
	nl_result res = NL_RESULT_INIT;
	char v[256];

	CU_ASSERT_EQUAL(nl_client_content_type(c), NL_CONTENT_PROTOBUF);
	answer(&s, 201, NL_PB_CONTENT_TYPE, stored.data, stored.len);
	CU_ASSERT_EQUAL(
	    nl_api_create(&out, c, "/api/v1/namespaces/default/configmaps", cm, NULL, &res), 0);
	CU_ASSERT_STRING_EQUAL(s.last.method, "POST");
	CU_ASSERT_STRING_EQUAL(header(&s, "Content-Type", v, sizeof(v)), NL_PB_CONTENT_TYPE);
	CU_ASSERT_STRING_EQUAL(header(&s, "Accept", v, sizeof(v)), PB_ACCEPT);
	assert_body_is(&s, &sent);
	NL_ASSERT_JSON_EQ(out, cm_stored);
	json_object_put(out);
	out = NULL;

	/* PUT: the same encoding; a JSON answer (a server that prefers it)
	 * decodes as before. */
	answer(&s, 200, "application/json", cm_stored, strlen(cm_stored));
	CU_ASSERT_EQUAL(
	    nl_api_update(&out, c, "/api/v1/namespaces/default/configmaps/pb", cm, NULL, &res), 0);
	CU_ASSERT_STRING_EQUAL(s.last.method, "PUT");
	CU_ASSERT_STRING_EQUAL(header(&s, "Content-Type", v, sizeof(v)), NL_PB_CONTENT_TYPE);
	assert_body_is(&s, &sent);
	NL_ASSERT_JSON_EQ(out, cm_stored);
	json_object_put(out);
	out = NULL;

	/* GET: no body, no Content-Type; the same Accept. */
	answer(&s, 200, NL_PB_CONTENT_TYPE, stored.data, stored.len);
	CU_ASSERT_EQUAL(nl_api_get(&out, c, "/api/v1/namespaces/default/configmaps/pb", &res), 0);
	CU_ASSERT_PTR_NULL(header(&s, "Content-Type", v, sizeof(v)));
	CU_ASSERT_STRING_EQUAL(header(&s, "Accept", v, sizeof(v)), PB_ACCEPT);
	NL_ASSERT_JSON_EQ(out, cm_stored);
	json_object_put(out);
	out = NULL;

	/* A protobuf answer that does not decode is a parse error with
	 * apimachinery's words, not a crash or a silent empty object. */
	answer(&s, 200, NL_PB_CONTENT_TYPE, "{}", 2);
	CU_ASSERT_EQUAL(nl_api_get(&out, c, "/api/v1/namespaces/default/configmaps/pb", &res),
	                NL_EPARSE);
	CU_ASSERT_PTR_NULL(out);
	CU_ASSERT_STRING_EQUAL(res.message, "decoding the server's answer: provided data does not "
	                                    "appear to be a protobuf message, expected prefix "
	                                    "[107 56 115 0]");

	nl_result_clear(&res);
	json_object_put(cm);
	nl_buf_free(&sent);
	nl_buf_free(&stored);
	nl_client_free(c);
	stop(f, &s);
}

/* PATCH bodies stay what they are (kubelet's node status PATCH is a
 * strategic merge patch); DELETE's DeleteOptions is protobuf. */
static void test_client_protobuf__patch_stays_json_delete_options_protobuf(void)
{
	script s = {0};
	fake_http *f = start(&s);
	nl_client *c = client_at(fake_http_url(f), NL_CONTENT_PROTOBUF);
	nl_buf stored = encode(cm_stored);
	nl_result res = NL_RESULT_INIT;
	json_object *out = NULL;
	char v[256];
	static const char patch[] = "{\"data\":{\"k\":\"w\"}}";

	answer(&s, 200, NL_PB_CONTENT_TYPE, stored.data, stored.len);
	CU_ASSERT_EQUAL(nl_api_patch(&out, c, "/api/v1/namespaces/default/configmaps/pb",
	                             NL_PATCH_STRATEGIC, patch, strlen(patch), NULL, &res),
	                0);
	CU_ASSERT_STRING_EQUAL(s.last.method, "PATCH");
	CU_ASSERT_STRING_EQUAL(header(&s, "Content-Type", v, sizeof(v)),
	                       "application/strategic-merge-patch+json");
	CU_ASSERT_STRING_EQUAL(header(&s, "Accept", v, sizeof(v)), PB_ACCEPT);
	pthread_mutex_lock(&s.mu);
	CU_ASSERT_EQUAL(s.body_len, strlen(patch));
	CU_ASSERT(memcmp(s.body, patch, strlen(patch)) == 0);
	pthread_mutex_unlock(&s.mu);
	NL_ASSERT_JSON_EQ(out, cm_stored);
	json_object_put(out);

	nl_delete_options d;
	nl_delete_options_init(&d);
	d.precondition_uid = "0b1c";
	d.propagation_policy = "Background";
	nl_buf want = encode("{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"preconditions\":"
	                     "{\"uid\":\"0b1c\"},\"propagationPolicy\":\"Background\"}");
	CU_ASSERT_EQUAL(
	    nl_api_delete(NULL, c, "/api/v1/namespaces/default/configmaps/pb", &d, &res), 0);
	CU_ASSERT_STRING_EQUAL(s.last.method, "DELETE");
	CU_ASSERT_STRING_EQUAL(header(&s, "Content-Type", v, sizeof(v)), NL_PB_CONTENT_TYPE);
	assert_body_is(&s, &want);

	nl_result_clear(&res);
	nl_buf_free(&want);
	nl_buf_free(&stored);
	nl_client_free(c);
	stop(f, &s);
}

/* Configured for JSON, nothing changes: JSON bodies, application/json. */
static void test_client_protobuf__json_client_is_unchanged(void)
{
	script s = {0};
	fake_http *f = start(&s);
	nl_client *c = client_at(fake_http_url(f), NL_CONTENT_JSON);
	json_object *cm = nl_test_json(cm_sent), *out = NULL;
	nl_result res = NL_RESULT_INIT;
	char v[256];
	size_t n;
	const char *text = nl_json_compact(cm, &n);

	answer(&s, 201, "application/json", cm_stored, strlen(cm_stored));
	CU_ASSERT_EQUAL(
	    nl_api_create(&out, c, "/api/v1/namespaces/default/configmaps", cm, NULL, &res), 0);
	CU_ASSERT_STRING_EQUAL(header(&s, "Content-Type", v, sizeof(v)), "application/json");
	CU_ASSERT_STRING_EQUAL(header(&s, "Accept", v, sizeof(v)), "application/json");
	pthread_mutex_lock(&s.mu);
	CU_ASSERT_EQUAL(s.body_len, n);
	CU_ASSERT(memcmp(s.body, text, n) == 0);
	pthread_mutex_unlock(&s.mu);
	NL_ASSERT_JSON_EQ(out, cm_stored);
	json_object_put(out);
	/* Even a JSON client decodes a protobuf answer by its Content-Type. */
	nl_buf stored = encode(cm_stored);
	answer(&s, 200, NL_PB_CONTENT_TYPE, stored.data, stored.len);
	CU_ASSERT_EQUAL(nl_api_get(&out, c, "/api/v1/namespaces/default/configmaps/pb", &res), 0);
	NL_ASSERT_JSON_EQ(out, cm_stored);
	json_object_put(out);
	/* An explicit Accept still wins over the client's. */
	nl_request req = {0};
	nl_response resp = {0};
	req.method = "GET";
	req.path = "/api/v1/namespaces/default/configmaps/pb";
	req.accept = "application/yaml";
	CU_ASSERT_EQUAL(nl_client_do(&resp, c, &req, &res), 0);
	CU_ASSERT_STRING_EQUAL(header(&s, "Accept", v, sizeof(v)), "application/yaml");
	nl_response_clear(&resp);

	nl_buf_free(&stored);
	nl_result_clear(&res);
	json_object_put(cm);
	nl_client_free(c);
	stop(f, &s);
}

/* The same Status in JSON and in protobuf gives the same nl_result. */
static void assert_same_result(script *s, nl_client *c, int http, const nl_status *st,
                               int want_code)
{
	char *json = nl_status_to_string(st);
	nl_buf pb = encode(json);
	nl_result a = NL_RESULT_INIT, b = NL_RESULT_INIT;
	json_object *cm = nl_test_json(cm_sent), *out = NULL;

	answer(s, http, "application/json", json, strlen(json));
	CU_ASSERT_EQUAL(
	    nl_api_update(&out, c, "/api/v1/namespaces/default/configmaps/pb", cm, NULL, &a),
	    want_code);
	answer(s, http, NL_PB_CONTENT_TYPE, pb.data, pb.len);
	CU_ASSERT_EQUAL(
	    nl_api_update(&out, c, "/api/v1/namespaces/default/configmaps/pb", cm, NULL, &b),
	    want_code);
	CU_ASSERT_PTR_NULL(out);
	CU_ASSERT_EQUAL(a.code, b.code);
	CU_ASSERT_EQUAL(a.http_status, b.http_status);
	CU_ASSERT_STRING_EQUAL(a.message, b.message);
	CU_ASSERT_STRING_EQUAL(a.message, st->message);
	CU_ASSERT_STRING_EQUAL(nl_result_reason(&a), nl_result_reason(&b));
	CU_ASSERT_FALSE(nl_is_unexpected_server_error(&b));
	CU_ASSERT_PTR_NOT_NULL_FATAL(a.status);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b.status);
	char *ta = nl_status_to_string(a.status), *tb = nl_status_to_string(b.status);
	CU_ASSERT_STRING_EQUAL(ta, tb);
	CU_ASSERT_STRING_EQUAL(tb, json);
	free(ta);
	free(tb);
	CU_ASSERT_EQUAL(nl_is_conflict(&a), nl_is_conflict(&b));
	CU_ASSERT_EQUAL(nl_is_invalid(&a), nl_is_invalid(&b));
	CU_ASSERT_EQUAL(nl_is_not_found(&a), nl_is_not_found(&b));
	nl_result_clear(&a);
	nl_result_clear(&b);
	json_object_put(cm);
	nl_buf_free(&pb);
	free(json);
}

static void test_client_protobuf__status_409_422_404_as_json_gives(void)
{
	script s = {0};
	fake_http *f = start(&s);
	nl_client *c = client_at(fake_http_url(f), NL_CONTENT_PROTOBUF);
	nl_gr gr = {"", "configmaps"};

	nl_status *conflict = nl_status_conflict(
	    &gr, "pb",
	    "the object has been modified; please apply your changes to the latest "
	    "version and try again");
	assert_same_result(&s, c, 409, conflict, NL_ECONFLICT);
	nl_status *invalid = nl_status_invalid("ConfigMap", "", "pb");
	CU_ASSERT_EQUAL_FATAL(nl_status_add_cause(invalid, "FieldValueInvalid",
	                                          "Invalid value: \"x y\": a valid config key must "
	                                          "consist of alphanumeric characters",
	                                          "data[x y]"),
	                      0);
	CU_ASSERT_EQUAL_FATAL(
	    nl_status_add_cause(invalid, "FieldValueRequired", "Required value", "metadata.name"),
	    0);
	CU_ASSERT_EQUAL_FATAL(nl_status_finish_invalid(invalid), 0);
	assert_same_result(&s, c, 422, invalid, NL_EINVALID);
	nl_status *missing = nl_status_not_found(&gr, "pb");
	assert_same_result(&s, c, 404, missing, NL_ENOTFOUND);
	nl_status_free(conflict);
	nl_status_free(invalid);
	nl_status_free(missing);

	/* A protobuf error body that is no Status: client-go's generic error,
	 * as for a JSON body that is not one. */
	nl_result res = NL_RESULT_INIT;
	json_object *cm = nl_test_json(cm_sent), *out = NULL;
	nl_buf notstatus = encode(cm_stored);
	answer(&s, 409, NL_PB_CONTENT_TYPE, notstatus.data, notstatus.len);
	CU_ASSERT_EQUAL(
	    nl_api_update(&out, c, "/api/v1/namespaces/default/configmaps/pb", cm, NULL, &res),
	    NL_ECONFLICT);
	CU_ASSERT_TRUE(nl_is_unexpected_server_error(&res));
	CU_ASSERT_STRING_EQUAL(res.message, "the server reported a conflict (put configmaps pb)");
	nl_buf_free(&notstatus);
	json_object_put(cm);
	nl_result_clear(&res);
	nl_client_free(c);
	stop(f, &s);
}

/* --- watch -------------------------------------------------------------------- */

typedef struct {
	char what[8][96];
	int n;
} seen;

static void on_event(const nl_watch_event *ev, void *payload)
{
	seen *s = payload;
	if (s->n < 8)
		snprintf(s->what[s->n], sizeof(s->what[0]), "%s %s %s",
		         nl_watch_type_name(ev->type), nl_meta_name(ev->object),
		         nl_meta_resource_version(ev->object));
	s->n++;
}

static int on_event_cb(const nl_watch_event *ev, void *payload)
{
	on_event(ev, payload);
	return 0;
}

static const char *const wtypes[] = {"ADDED", "MODIFIED", "DELETED"};
static const char *const wobjects[] = {
    "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\",\"namespace\":"
    "\"default\",\"resourceVersion\":\"11\"},\"data\":{\"k\":\"1\"}}",
    "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\",\"namespace\":"
    "\"default\",\"resourceVersion\":\"12\"},\"data\":{\"k\":\"2\"}}",
    "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\",\"namespace\":"
    "\"default\",\"resourceVersion\":\"13\"}}",
};

static void run_watch(nl_client *c, seen *got, int want)
{
	nl_watch_options o = {0};
	nl_watch *w = NULL;
	o.path = "/api/v1/namespaces/default/configmaps";
	o.resource_version = "10";
	o.timeout_seconds = 30;
	o.on_event = on_event_cb;
	o.payload = got;
	CU_ASSERT_EQUAL_FATAL(nl_watch_start(&w, c, &o), 0);
	for (int i = 0; i < 500 && got->n < want; i++)
		nl_loop_step(nl_client_loop(c), 20);
	nl_watch_stop(w);
}

/* Frames dribbled 3 bytes at a time: length prefixes and envelopes split
 * across reads; the events are the JSON stream's. */
static void test_client_protobuf__watch_frames_split_across_reads(void)
{
	script s = {0};
	nl_buf pb;
	nl_buf_init(&pb, 0);
	for (int i = 0; i < 3; i++) {
		nl_buf one = encode(wobjects[i]);
		CU_ASSERT_EQUAL_FATAL(nl_pb_encode_watch_event(&pb, wtypes[i], one.data, one.len),
		                      0);
		nl_buf_free(&one);
	}
	s.watch = 1;
	s.step = 3;
	fake_http *f = start(&s);
	nl_client *c = client_at(fake_http_url(f), NL_CONTENT_PROTOBUF);
	seen got = {0};
	char v[256];

	answer(&s, 200, NL_PB_WATCH_CONTENT_TYPE, pb.data, pb.len);
	run_watch(c, &got, 3);
	CU_ASSERT_EQUAL_FATAL(got.n >= 3, 1);
	CU_ASSERT_STRING_EQUAL(got.what[0], "ADDED a 11");
	CU_ASSERT_STRING_EQUAL(got.what[1], "MODIFIED a 12");
	CU_ASSERT_STRING_EQUAL(got.what[2], "DELETED a 13");
	CU_ASSERT_STRING_EQUAL(header(&s, "Accept", v, sizeof(v)), PB_ACCEPT);
	CU_ASSERT_PTR_NOT_NULL(strstr(s.last.target, "watch=true"));

	/* The same client given a JSON stream decodes it as JSON. */
	static const char json[] =
	    "{\"type\":\"ADDED\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\","
	    "\"metadata\":{\"name\":\"b\",\"resourceVersion\":\"21\"}}}\n";
	seen again = {0};
	answer(&s, 200, "application/json", json, strlen(json));
	run_watch(c, &again, 1);
	CU_ASSERT_STRING_EQUAL(again.what[0], "ADDED b 21");

	nl_buf_free(&pb);
	nl_client_free(c);
	stop(f, &s);
}

/* The lease controller's protobuf UPDATE on a client: the bytes as given,
 * the answer's bytes back with their encoding. */
static void test_client_protobuf__lease_update_protobuf_passes_bytes(void)
{
	script s = {0};
	fake_http *f = start(&s);
	nl_client *c = client_at(fake_http_url(f), NL_CONTENT_PROTOBUF);
	nl_buf lease = encode("{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\","
	                      "\"metadata\":{\"name\":\"n1\",\"namespace\":\"kube-node-lease\","
	                      "\"resourceVersion\":\"5\"},\"spec\":{\"holderIdentity\":\"n1\"}}");
	char *out = NULL, v[256];
	size_t out_len = 0;
	int is_pb = -1;
	nl_status *st = NULL;

	answer(&s, 200, NL_PB_CONTENT_TYPE, lease.data, lease.len);
	CU_ASSERT_EQUAL(nl_lease_update_protobuf(&out, &out_len, &is_pb, &st, "kube-node-lease",
	                                         "n1", lease.data, lease.len, c),
	                0);
	CU_ASSERT_STRING_EQUAL(s.last.method, "PUT");
	CU_ASSERT_STRING_EQUAL(s.last.target,
	                       "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1");
	CU_ASSERT_STRING_EQUAL(header(&s, "Content-Type", v, sizeof(v)), NL_PB_CONTENT_TYPE);
	assert_body_is(&s, &lease);
	CU_ASSERT_EQUAL(is_pb, 1);
	CU_ASSERT(out_len == lease.len && memcmp(out, lease.data, lease.len) == 0);
	free(out);

	nl_gr gr = {"coordination.k8s.io", "leases"};
	nl_status *conflict = nl_status_conflict(&gr, "n1", NULL);
	char *json = nl_status_to_string(conflict);
	nl_buf pbst = encode(json);
	answer(&s, 409, NL_PB_CONTENT_TYPE, pbst.data, pbst.len);
	out = NULL;
	CU_ASSERT_EQUAL(nl_lease_update_protobuf(&out, &out_len, &is_pb, &st, "kube-node-lease",
	                                         "n1", lease.data, lease.len, c),
	                NL_ECONFLICT);
	CU_ASSERT_PTR_NULL(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_STRING_EQUAL(st->reason, "Conflict");
	CU_ASSERT_STRING_EQUAL(st->message, conflict->message);
	nl_status_free(st);
	nl_status_free(conflict);
	free(json);
	nl_buf_free(&pbst);
	nl_buf_free(&lease);
	nl_client_free(c);
	stop(f, &s);
}

static void test_client_protobuf__content_type_names(void)
{
	nl_content_type t = NL_CONTENT_JSON;
	CU_ASSERT_EQUAL(nl_content_type_parse(&t, "application/vnd.kubernetes.protobuf"), 0);
	CU_ASSERT_EQUAL(t, NL_CONTENT_PROTOBUF);
	CU_ASSERT_EQUAL(nl_content_type_parse(&t, "application/json"), 0);
	CU_ASSERT_EQUAL(t, NL_CONTENT_JSON);
	CU_ASSERT_EQUAL(nl_content_type_parse(&t, "application/yaml"), NL_EINVAL);
	CU_ASSERT_EQUAL(nl_content_type_parse(&t, "application/json; charset=utf-8"), NL_EINVAL);
	CU_ASSERT_EQUAL(t, NL_CONTENT_JSON);
	CU_ASSERT_STRING_EQUAL(nl_content_type_name(NL_CONTENT_PROTOBUF),
	                       "application/vnd.kubernetes.protobuf");
	CU_ASSERT_PTR_NULL(nl_content_type_name((nl_content_type)7));
	nl_rest_config cfg = {0};
	nl_client_options o;
	nl_client *c = NULL;
	nl_err err = {0};
	cfg.server = "http://127.0.0.1:1";
	nl_client_options_init(&o);
	o.content_type = (nl_content_type)7;
	CU_ASSERT_EQUAL(nl_client_new(&c, &cfg, &o, &err), NL_EINVAL);
	CU_ASSERT_PTR_NULL(c);
}

static CU_TestInfo tests[] = {
    {"create_and_update_bodies_and_headers",
     test_client_protobuf__create_and_update_bodies_and_headers},
    {"patch_stays_json_delete_options_protobuf",
     test_client_protobuf__patch_stays_json_delete_options_protobuf},
    {"json_client_is_unchanged", test_client_protobuf__json_client_is_unchanged},
    {"status_409_422_404_as_json_gives", test_client_protobuf__status_409_422_404_as_json_gives},
    {"watch_frames_split_across_reads", test_client_protobuf__watch_frames_split_across_reads},
    {"lease_update_protobuf_passes_bytes",
     test_client_protobuf__lease_update_protobuf_passes_bytes},
    {"content_type_names", test_client_protobuf__content_type_names},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {{"client_protobuf", NULL, NULL, NULL, NULL, tests},
                                 CU_SUITE_INFO_NULL};
