/* The async interface: one thread drives a thousand concurrent requests
 * through the loop over a bounded keep-alive pool; callbacks run once, from
 * nl_loop_step, and may start or cancel calls; retries wait on the clock;
 * streams deliver data in order. */
#include <nodelet/api.h>
#include <nodelet/lease.h>
#include <nodelet/meta.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../cu_main.h"
#include "fake_http.h"
#include "http_client.h"
#include "mockapi.h"

static mock_server *srv;
static const char *base;

static int setup(void)
{
	mock_options o;
	mock_options_init(&o);
	o.controller_tick_ms = 0;
	return nl_test_suite_server(&srv, &base, &o);
}

static int teardown(void)
{
	mock_server_free(srv);
	return 0;
}

static nl_client *client_on(const char *url, nl_loop *loop, nl_clock *clock, double qps)
{
	nl_rest_config cfg = {0};
	nl_client_options o;
	nl_client *c = NULL;
	cfg.server = (char *)url;
	nl_client_options_init(&o);
	o.qps = qps;
	o.loop = loop;
	o.clock = clock;
	CU_ASSERT_EQUAL_FATAL(nl_client_new(&c, &cfg, &o, NULL), 0);
	return c;
}

typedef struct {
	int done, ok, failed;
	int last_code;
	int last_attempts;
	char last_message[1024];
	char last_name[64];
} tally;

static void count(json_object *obj, const nl_result *res, void *payload)
{
	tally *t = payload;
	t->done++;
	t->last_code = res->code;
	t->last_attempts = res->attempts;
	snprintf(t->last_message, sizeof(t->last_message), "%s", res->message);
	if (obj) {
		t->ok++;
		const char *n = nl_meta_name(obj);
		snprintf(t->last_name, sizeof(t->last_name), "%s", n ? n : "");
	} else {
		t->failed++;
	}
}

static void test_client_async__thousand_concurrent_requests(void)
{
	nl_client *c = client_on(base, NULL, NULL, -1);
	nl_loop *loop = nl_client_loop(c);
	tally t = {0};
	for (int i = 0; i < 1000; i++)
		CU_ASSERT_EQUAL(nl_api_get_async(NULL, c, "/api/v1/namespaces/default", count, &t),
		                0);
	CU_ASSERT_EQUAL(nl_loop_pending(loop), 1000);
	CU_ASSERT_EQUAL(nl_loop_run(loop), 0);
	CU_ASSERT_EQUAL(t.done, 1000);
	CU_ASSERT_EQUAL(t.ok, 1000);
	CU_ASSERT_STRING_EQUAL(t.last_name, "default");
	CU_ASSERT_EQUAL(nl_loop_pending(loop), 0);
	nl_client_free(c);
}

/* The server answers slowly so requests overlap; the pool never opens more
 * than max_host_connections and reuses them. */
static int slow_ok(int fd, const fake_http_req *r, void *payload)
{
	(void)r;
	(void)payload;
	usleep(20000);
	return fake_http_reply(fd, 200, NULL, "application/json",
	                       "{\"kind\":\"Namespace\",\"metadata\":{\"name\":\"x\"}}") != 0;
}

static void test_client_async__pool_is_bounded_and_reused(void)
{
	fake_http *f;
	nl_loop *loop;
	nl_loop_options lo;
	CU_ASSERT_EQUAL_FATAL(fake_http_start(&f, slow_ok, NULL), 0);
	nl_loop_options_init(&lo);
	lo.max_host_connections = 4;
	CU_ASSERT_EQUAL_FATAL(nl_loop_new(&loop, &lo), 0);
	nl_client *c = client_on(fake_http_url(f), loop, NULL, -1);
	tally t = {0};
	for (int i = 0; i < 40; i++)
		CU_ASSERT_EQUAL(nl_api_get_async(NULL, c, "/api/v1/namespaces/x", count, &t), 0);
	CU_ASSERT_EQUAL(nl_loop_run(loop), 0);
	CU_ASSERT_EQUAL(t.ok, 40);
	CU_ASSERT_EQUAL(fake_http_requests(f), 40);
	CU_ASSERT(fake_http_connections(f) <= 4);
	CU_ASSERT(fake_http_connections(f) >= 1);
	nl_client_free(c);
	nl_loop_free(loop);
	fake_http_stop(f);
}

static void test_client_async__errors_carry_the_status(void)
{
	nl_client *c = client_on(base, NULL, NULL, -1);
	tally t = {0};
	CU_ASSERT_EQUAL(nl_lease_get_async(NULL, c, "kube-node-lease", "absent", count, &t), 0);
	CU_ASSERT_EQUAL(nl_loop_run(nl_client_loop(c)), 0);
	CU_ASSERT_EQUAL(t.failed, 1);
	CU_ASSERT_EQUAL(t.last_code, NL_ENOTFOUND);
	CU_ASSERT_STRING_EQUAL(t.last_message, "leases.coordination.k8s.io \"absent\" not found");
	nl_client_free(c);
}

/* The retry wait is a clock timer: with a fake clock and nothing else in
 * flight the loop jumps over it. */
static void test_client_async__retry_after_waits_on_the_clock(void)
{
	nl_clock *clock;
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&clock, 0), 0);
	nl_client *c = client_on(base, NULL, clock, -1);
	CU_ASSERT_EQUAL_FATAL(
	    mock_server_add_fault(
	        NULL, srv,
	        "{\"match\":{\"verb\":\"get\",\"resource\":\"namespaces\"},"
	        "\"action\":{\"status\":429,\"retryAfterSeconds\":30},\"times\":1}",
	        &err),
	    0);
	tally t = {0};
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CU_ASSERT_EQUAL(nl_api_get_async(NULL, c, "/api/v1/namespaces/default", count, &t), 0);
	CU_ASSERT_EQUAL(nl_loop_run(nl_client_loop(c)), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CU_ASSERT_EQUAL(t.ok, 1);
	CU_ASSERT_EQUAL(t.last_attempts, 2);
	CU_ASSERT(nl_clock_mono(clock) >= 30 * NL_USEC_PER_SEC);
	CU_ASSERT(t1.tv_sec - t0.tv_sec < 10); /* no real 30 s wait */
	mock_server_remove_fault(srv, NULL);
	nl_client_free(c);
	nl_clock_free(clock);
}

/* The rate limiter queues async calls on timers too. */
static void test_client_async__rate_limit_queues_on_timers(void)
{
	nl_clock *clock;
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&clock, 0), 0);
	nl_client *c = client_on(base, NULL, clock, 0);
	tally t = {0};
	for (int i = 0; i < 20; i++)
		CU_ASSERT_EQUAL(nl_api_get_async(NULL, c, "/api/v1/namespaces/default", count, &t),
		                0);
	CU_ASSERT_EQUAL(nl_loop_run(nl_client_loop(c)), 0);
	CU_ASSERT_EQUAL(t.ok, 20);
	/* Ten from the burst, ten paced 200 ms apart. */
	CU_ASSERT(nl_clock_mono(clock) >= 2 * NL_USEC_PER_SEC);
	nl_client_free(c);
	nl_clock_free(clock);
}

static void test_client_async__cancel_means_no_callback(void)
{
	nl_clock *clock;
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&clock, 0), 0);
	nl_client *c = client_on(base, NULL, clock, 0);
	tally t = {0};
	nl_call *calls[12];
	for (int i = 0; i < 12; i++)
		CU_ASSERT_EQUAL(
		    nl_api_get_async(&calls[i], c, "/api/v1/namespaces/default", count, &t), 0);
	nl_call_cancel(calls[0]);  /* in flight */
	nl_call_cancel(calls[11]); /* waiting for a rate limiter token */
	CU_ASSERT_EQUAL(nl_loop_run(nl_client_loop(c)), 0);
	CU_ASSERT_EQUAL(t.done, 10);
	/* Outstanding calls die with the client, silently. */
	CU_ASSERT_EQUAL(nl_api_get_async(NULL, c, "/api/v1/namespaces/default", count, &t), 0);
	nl_client_free(c);
	CU_ASSERT_EQUAL(t.done, 10);
	nl_clock_free(clock);
}

typedef struct {
	nl_client *c;
	int left;
	int done;
} chain;

/* Each completion starts the next request from inside the callback. */
static void next_link(json_object *obj, const nl_result *res, void *payload)
{
	chain *ch = payload;
	CU_ASSERT_PTR_NOT_NULL(obj);
	CU_ASSERT_EQUAL(res->code, 0);
	ch->done++;
	if (--ch->left > 0)
		CU_ASSERT_EQUAL(
		    nl_api_get_async(NULL, ch->c, "/api/v1/namespaces/default", next_link, ch), 0);
}

static void test_client_async__callbacks_may_start_requests(void)
{
	nl_client *c = client_on(base, NULL, NULL, -1);
	chain ch = {c, 10, 0};
	CU_ASSERT_EQUAL(nl_api_get_async(NULL, c, "/api/v1/namespaces/default", next_link, &ch), 0);
	CU_ASSERT_EQUAL(nl_loop_run(nl_client_loop(c)), 0);
	CU_ASSERT_EQUAL(ch.done, 10);
	nl_client_free(c);
}

/* A chunked answer delivered in pieces to on_data, in order. */
static int chunks(int fd, const fake_http_req *r, void *payload)
{
	(void)r;
	(void)payload;
	fake_http_start_chunked(fd, 200, "text/plain");
	fake_http_chunk(fd, "one,", 4);
	usleep(10000);
	fake_http_chunk(fd, "two,", 4);
	usleep(10000);
	fake_http_chunk(fd, "three", 5);
	fake_http_chunk(fd, NULL, 0);
	return 0;
}

typedef struct {
	char data[64];
	size_t len;
	int stop_at; /* stop once this many bytes arrived (0 = never) */
	int code;
	int ended;
} sink;

static int on_data(const char *data, size_t len, void *payload)
{
	sink *s = payload;
	memcpy(s->data + s->len, data, len);
	s->len += len;
	s->data[s->len] = '\0';
	return s->stop_at && s->len >= (size_t)s->stop_at;
}

static void stream_done(nl_response *resp, const nl_result *res, void *payload)
{
	sink *s = payload;
	s->ended++;
	s->code = res->code;
	CU_ASSERT_PTR_NOT_NULL(resp);
	if (resp)
		CU_ASSERT_EQUAL(resp->http_status, 200);
}

static void test_client_async__stream_data_in_order(void)
{
	fake_http *f;
	CU_ASSERT_EQUAL_FATAL(fake_http_start(&f, chunks, NULL), 0);
	nl_client *c = client_on(fake_http_url(f), NULL, NULL, -1);
	sink s = {0};
	nl_request req = {0};
	req.method = "GET";
	req.path = "/stream";
	req.on_data = on_data;
	req.data_payload = &s;
	CU_ASSERT_EQUAL(nl_client_send(NULL, c, &req, stream_done, &s), 0);
	CU_ASSERT_EQUAL(nl_loop_run(nl_client_loop(c)), 0);
	CU_ASSERT_STRING_EQUAL(s.data, "one,two,three");
	CU_ASSERT_EQUAL(s.ended, 1);
	CU_ASSERT_EQUAL(s.code, 0);
	/* on_data may end the stream early: not an error. */
	sink early = {0};
	early.stop_at = 4;
	req.data_payload = &early;
	CU_ASSERT_EQUAL(nl_client_send(NULL, c, &req, stream_done, &early), 0);
	CU_ASSERT_EQUAL(nl_loop_run(nl_client_loop(c)), 0);
	CU_ASSERT_STRING_EQUAL(early.data, "one,");
	CU_ASSERT_EQUAL(early.ended, 1);
	CU_ASSERT_EQUAL(early.code, 0);
	/* The blocking call streams too. */
	sink blocking = {0};
	req.data_payload = &blocking;
	CU_ASSERT_EQUAL(nl_client_do(NULL, c, &req, NULL), 0);
	CU_ASSERT_STRING_EQUAL(blocking.data, "one,two,three");
	nl_client_free(c);
	fake_http_stop(f);
}

/* Embedding: the loop's descriptor and timeout drive it from poll(). */
static void test_client_async__loop_fd_and_timeout(void)
{
	nl_loop *loop;
	CU_ASSERT_EQUAL_FATAL(nl_loop_new(&loop, NULL), 0);
	CU_ASSERT(nl_loop_fd(loop) >= 0);
	CU_ASSERT_EQUAL(nl_loop_timeout_ms(loop), -1);
	CU_ASSERT_EQUAL(nl_loop_step(loop, -1), 0); /* nothing to wait for */
	CU_ASSERT_EQUAL(nl_loop_pending(loop), 0);
	nl_client *c = client_on(base, loop, NULL, -1);
	tally t = {0};
	CU_ASSERT_EQUAL(nl_api_get_async(NULL, c, "/api/v1/namespaces/default", count, &t), 0);
	CU_ASSERT(nl_loop_timeout_ms(loop) >= 0);
	while (t.done == 0)
		CU_ASSERT(nl_loop_step(loop, 1000) >= 0);
	CU_ASSERT_EQUAL(t.ok, 1);
	nl_client_free(c);
	nl_loop_free(loop);
}

static CU_TestInfo tests[] = {
    {"thousand_concurrent_requests", test_client_async__thousand_concurrent_requests},
    {"pool_is_bounded_and_reused", test_client_async__pool_is_bounded_and_reused},
    {"errors_carry_the_status", test_client_async__errors_carry_the_status},
    {"retry_after_waits_on_the_clock", test_client_async__retry_after_waits_on_the_clock},
    {"rate_limit_queues_on_timers", test_client_async__rate_limit_queues_on_timers},
    {"cancel_means_no_callback", test_client_async__cancel_means_no_callback},
    {"callbacks_may_start_requests", test_client_async__callbacks_may_start_requests},
    {"stream_data_in_order", test_client_async__stream_data_in_order},
    {"loop_fd_and_timeout", test_client_async__loop_fd_and_timeout},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {{"client_async", setup, teardown, NULL, NULL, tests},
                                 CU_SUITE_INFO_NULL};
