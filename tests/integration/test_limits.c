/* nodelet-mockapi's hard limits under misbehaving clients: headers trickled
 * byte by byte from several sockets (slowloris), oversize headers and
 * bodies, thousands of idle connections, requests in flight beyond
 * --max-requests-inflight and watches beyond --max-watches. Throughout, the
 * server keeps answering other clients promptly and the store is left as it
 * was. Raw sockets for the misbehaviour, libcurl for the well-behaved. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../cu_main.h"
#include "http_client.h"
#include "storage/store.h"

/* Read what arrives within ms into buf (NUL-terminated). Returns bytes
 * read, 0 when the peer closed without sending, -1 on timeout. */
static ssize_t read_for(int fd, char *buf, size_t cap, int ms)
{
	size_t n = 0;
	int64_t end = nl_test_now_ms() + ms;
	buf[0] = '\0';
	while (n + 1 < cap) {
		struct pollfd p = {fd, POLLIN, 0};
		int left = (int)(end - nl_test_now_ms());
		if (left <= 0 || poll(&p, 1, left) <= 0)
			return n ? (ssize_t)n : -1;
		ssize_t r = recv(fd, buf + n, cap - 1 - n, 0);
		if (r <= 0)
			return (ssize_t)n; /* closed (or reset) */
		n += (size_t)r;
		buf[n] = '\0';
		if (strstr(buf, "\r\n\r\n"))
			return (ssize_t)n;
	}
	return (ssize_t)n;
}

/* A well-behaved client, answered quickly. */
static void assert_prompt(mock_server *s, const char *path, long want)
{
	nl_http_resp r;
	int64_t t0 = nl_test_now_ms();
	CU_ASSERT_EQUAL_FATAL(nl_http(&r, mock_server_url(s), "GET", path, NULL, NULL), 0);
	int64_t took = nl_test_now_ms() - t0;
	if (r.code != want || took > 2000)
		fprintf(stderr, "\nGET %s: %ld after %lld ms\n", path, r.code, (long long)took);
	CU_ASSERT_EQUAL(r.code, want);
	CU_ASSERT_TRUE(took < 2000);
	nl_http_resp_free(&r);
}

/* ------------------------------------------------------------------------ */

#define SLOW_CLIENTS 8

static void test_limits__slowloris_does_not_block_others(void)
{
	mock_server *s = nl_test_server_adjusted(NULL);
	uint64_t rv = mock_store_rv(mock_server_store(s));
	static const char req[] = "GET /api/v1/namespaces/default HTTP/1.1\r\n"
	                          "Host: 127.0.0.1\r\nUser-Agent: slowloris\r\n"
	                          "Accept: application/json\r\n\r\n";
	int fds[SLOW_CLIENTS];
	for (int i = 0; i < SLOW_CLIENTS; i++)
		CU_ASSERT_FATAL((fds[i] = nl_test_dial(s)) >= 0);
	for (size_t b = 0; b + 1 < sizeof(req); b++) {
		for (int i = 0; i < SLOW_CLIENTS; i++)
			CU_ASSERT_EQUAL(send(fds[i], req + b, 1, MSG_NOSIGNAL), 1);
		nl_test_sleep_ms(5);
		if (b % 16 == 0)
			assert_prompt(s, "/api/v1/namespaces/kube-system", 200);
	}
	/* once complete, the trickled requests are answered too */
	for (int i = 0; i < SLOW_CLIENTS; i++) {
		char buf[4096];
		CU_ASSERT_TRUE(read_for(fds[i], buf, sizeof(buf), 5000) > 0);
		CU_ASSERT_EQUAL(strncmp(buf, "HTTP/1.1 200", 12), 0);
		close(fds[i]);
	}
	CU_ASSERT_EQUAL(mock_store_rv(mock_server_store(s)), rv);
	mock_server_free(s);
}

static void short_idle(mock_options *o)
{
	o->idle_timeout = 1;
}

/* A client that stops sending, mid-header or before a byte, is dropped
 * after --idle-timeout. */
static void test_limits__stalled_clients_are_dropped(void)
{
	mock_server *s = nl_test_server_adjusted(short_idle);
	int fds[6];
	for (int i = 0; i < 6; i++) {
		CU_ASSERT_FATAL((fds[i] = nl_test_dial(s)) >= 0);
		if (i % 2)
			CU_ASSERT_EQUAL(send(fds[i], "GET /api HTT", 12, MSG_NOSIGNAL), 12);
	}
	for (int i = 0; i < 6; i++) {
		char buf[256];
		int64_t t0 = nl_test_now_ms();
		ssize_t n = read_for(fds[i], buf, sizeof(buf), 6000);
		/* closed by the server (possibly with a 408-style answer), not left open */
		CU_ASSERT_TRUE(n >= 0);
		CU_ASSERT_TRUE(nl_test_now_ms() - t0 < 6000);
		close(fds[i]);
	}
	assert_prompt(s, "/version", 200);
	mock_server_free(s);
}

static void small_limits(mock_options *o)
{
	o->max_header_bytes = 8192;
	o->max_body = 64 * 1024;
}

static void test_limits__oversize_headers_and_bodies(void)
{
	mock_server *s = nl_test_server_adjusted(small_limits);
	uint64_t rv = mock_store_rv(mock_server_store(s));
	/* 16 KiB of headers against an 8 KiB limit: 431 */
	int fd = nl_test_dial(s);
	CU_ASSERT_FATAL(fd >= 0);
	char big[16384 + 256];
	int n = snprintf(big, sizeof(big), "GET /version HTTP/1.1\r\nHost: x\r\nX-Big: ");
	memset(big + n, 'a', 16384);
	memcpy(big + n + 16384, "\r\n\r\n", 4);
	size_t len = (size_t)n + 16384 + 4;
	send(fd, big, len, MSG_NOSIGNAL); /* the server may close before reading it all */
	char buf[4096];
	CU_ASSERT_TRUE(read_for(fd, buf, sizeof(buf), 5000) > 0);
	CU_ASSERT_EQUAL(strncmp(buf, "HTTP/1.1 431", 12), 0);
	close(fd);
	assert_prompt(s, "/version", 200);

	/* a declared body over --max-request-bytes: drained, then 413 */
	size_t blen = 1024 * 1024 + 1;
	char *body = malloc(blen + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(body);
	memset(body, ' ', blen);
	body[blen] = '\0';
	body[0] = '{';
	body[blen - 1] = '}';
	nl_http_resp r;
	CU_ASSERT_EQUAL(nl_http(&r, mock_server_url(s), "POST",
	                        "/api/v1/namespaces/default/configmaps", body, NULL),
	                0);
	CU_ASSERT_EQUAL(r.code, 413);
	json_object *o = nl_http_json(&r);
	NL_ASSERT_JSON_EQ(o, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
	                     "\"status\":\"Failure\",\"message\":\"Request entity too large: "
	                     "limit is 65536\",\"reason\":\"RequestEntityTooLarge\",\"code\":413}");
	json_object_put(o);
	nl_http_resp_free(&r);
	free(body);

	/* an undeclared (chunked) one: drained, then 413 */
	fd = nl_test_dial(s);
	CU_ASSERT_FATAL(fd >= 0);
	static const char head[] = "PUT /api/v1/namespaces/default/configmaps/x HTTP/1.1\r\n"
	                           "Host: x\r\nContent-Type: application/json\r\n"
	                           "Transfer-Encoding: chunked\r\n\r\n";
	CU_ASSERT_EQUAL(send(fd, head, sizeof(head) - 1, MSG_NOSIGNAL), (ssize_t)sizeof(head) - 1);
	char chunk[4096 + 16];
	int hl = snprintf(chunk, sizeof(chunk), "1000\r\n");
	memset(chunk + hl, 'x', 4096);
	memcpy(chunk + hl + 4096, "\r\n", 2);
	/* Like curl, stop sending once an early answer arrives; the server
	 * answers when the upload ends. */
	ssize_t got = -1;
	for (int i = 0; i < 20 && got <= 0; i++) { /* up to 80 KiB */
		send(fd, chunk, (size_t)hl + 4098, MSG_NOSIGNAL);
		got = read_for(fd, buf, sizeof(buf), 50);
	}
	if (got <= 0) {
		send(fd, "0\r\n\r\n", 5, MSG_NOSIGNAL);
		got = read_for(fd, buf, sizeof(buf), 5000);
	}
	CU_ASSERT_TRUE(got > 0);
	CU_ASSERT_EQUAL(strncmp(buf, "HTTP/1.1 413", 12), 0);
	close(fd);
	CU_ASSERT_EQUAL(mock_store_rv(mock_server_store(s)), rv);
	assert_prompt(s, "/api/v1/namespaces/default/configmaps", 200);
	mock_server_free(s);
}

/* Both ends of every connection live in this process. */
/* A declared body over the limit sent without Expect: 100-continue (as
 * curl does when its 1 s wait for "100 Continue" runs out on a busy
 * machine): the server reads and drops it, then answers 413, as
 * kube-apiserver reads up to the limit before answering. Answering at
 * once and closing with the body unread makes the kernel reset the
 * connection, and the client may lose the answer with its upload. */
static void test_limits__declared_oversize_body_is_drained_before_413(void)
{
	mock_server *s = nl_test_server_adjusted(small_limits);
	size_t blen = 8u * 1024 * 1024;
	char *msg = malloc(blen + 256);
	CU_ASSERT_PTR_NOT_NULL_FATAL(msg);
	int n = snprintf(msg, 256,
	                 "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\n"
	                 "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
	                 blen);
	memset(msg + n, ' ', blen);
	int fd = nl_test_dial(s);
	CU_ASSERT_FATAL(fd >= 0);
	size_t total = (size_t)n + blen, sent = 0;
	while (sent < total) {
		ssize_t w = send(fd, msg + sent, total - sent, MSG_NOSIGNAL);
		if (w <= 0)
			break;
		sent += (size_t)w;
	}
	CU_ASSERT_EQUAL(sent, total);
	char buf[4096];
	CU_ASSERT_TRUE(read_for(fd, buf, sizeof(buf), 5000) > 0);
	CU_ASSERT_EQUAL(strncmp(buf, "HTTP/1.1 413", 12), 0);
	close(fd);
	free(msg);
	assert_prompt(s, "/version", 200);
	mock_server_free(s);
}

static size_t idle_budget(size_t want)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 100;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	size_t fit = rl.rlim_cur > 300 ? (size_t)(rl.rlim_cur - 200) / 2 : 50;
	if (fit < want)
		fprintf(stderr, "\n(only %zu idle connections fit RLIMIT_NOFILE)\n", fit);
	return fit < want ? fit : want;
}

#define IDLE_WANTED 2000

static void test_limits__thousands_of_idle_connections(void)
{
	mock_server *s = nl_test_server_adjusted(NULL);
	uint64_t rv = mock_store_rv(mock_server_store(s));
	size_t n = idle_budget(IDLE_WANTED);
	int *fds = calloc(n, sizeof(int));
	CU_ASSERT_PTR_NOT_NULL_FATAL(fds);
	size_t open_n = 0;
	for (; open_n < n; open_n++) {
		if ((fds[open_n] = nl_test_dial(s)) < 0)
			break;
		if (open_n % 500 == 0)
			assert_prompt(s, "/api/v1/namespaces", 200);
	}
	CU_ASSERT_EQUAL(open_n, n);
	nl_test_sleep_ms(200); /* let the server accept them all */
	for (int i = 0; i < 10; i++)
		assert_prompt(s, "/api/v1/namespaces/default", 200);
	/* a write still goes through; the idle crowd changed nothing */
	nl_http_resp r;
	CU_ASSERT_EQUAL(nl_http(&r, mock_server_url(s), "POST",
	                        "/api/v1/namespaces/default/configmaps",
	                        "{\"metadata\":{\"name\":\"probe\"}}", NULL),
	                0);
	CU_ASSERT_EQUAL(r.code, 201);
	nl_http_resp_free(&r);
	CU_ASSERT_EQUAL(mock_store_rv(mock_server_store(s)), rv + 1);
	for (size_t i = 0; i < open_n; i++)
		close(fds[i]);
	free(fds);
	assert_prompt(s, "/version", 200);
	mock_server_free(s);
}

/* ------------------------------------------------------------------------
 * In flight and watches */

static void one_inflight(mock_options *o)
{
	o->max_requests_inflight = 1;
	o->max_mutating_requests_inflight = 1;
	o->max_watches = 2;
}

typedef struct {
	mock_server *s;
	long code;
} slow_call;

static void *slow_get(void *payload)
{
	slow_call *c = payload;
	nl_http_resp r;
	if (nl_http(&r, mock_server_url(c->s), "GET", "/api/v1/namespaces/kube-public", NULL,
	            NULL) == 0)
		c->code = r.code;
	nl_http_resp_free(&r);
	return NULL;
}

static void test_limits__requests_in_flight_beyond_the_limit_get_429(void)
{
	mock_server *s = nl_test_server_adjusted(one_inflight);
	nl_err err = {0};
	/* the one read slot is held by a request delayed 1.5 s (suspended) */
	CU_ASSERT_EQUAL_FATAL(mock_server_add_fault(NULL, s,
	                                            "{\"match\":{\"verb\":\"get\",\"resource\":"
	                                            "\"namespaces\",\"name\":\"kube-public\"},"
	                                            "\"action\":{\"delayMs\":1500}}",
	                                            &err),
	                      0);
	slow_call c = {s, 0};
	pthread_t t;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, slow_get, &c), 0);
	nl_test_sleep_ms(400);
	nl_http_resp r;
	CU_ASSERT_EQUAL(nl_http(&r, mock_server_url(s), "GET", "/api/v1/namespaces", NULL, NULL),
	                0);
	CU_ASSERT_EQUAL(r.code, 429);
	CU_ASSERT_STRING_EQUAL(r.retry_after, "1");
	CU_ASSERT_STRING_EQUAL(r.content_type, "text/plain; charset=utf-8");
	CU_ASSERT_STRING_EQUAL(r.body, "Too many requests, please try again later.\n");
	nl_http_resp_free(&r);
	/* mutating requests have their own budget; watches are not counted */
	CU_ASSERT_EQUAL(nl_http(&r, mock_server_url(s), "POST",
	                        "/api/v1/namespaces/default/configmaps",
	                        "{\"metadata\":{\"name\":\"w\"}}", NULL),
	                0);
	CU_ASSERT_EQUAL(r.code, 201);
	nl_http_resp_free(&r);
	CU_ASSERT_EQUAL(nl_http(&r, mock_server_url(s), "GET",
	                        "/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1",
	                        NULL, NULL),
	                0);
	CU_ASSERT_EQUAL(r.code, 200);
	nl_http_resp_free(&r);
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(c.code, 200);
	/* The slot is free again once the server has finished that request,
	 * which can be a moment after its client read the whole answer (seen
	 * under valgrind): ask until it is, for at most 2 s. */
	long code = 0;
	for (int i = 0; i < 20 && code != 200; i++) {
		if (i)
			nl_test_sleep_ms(100);
		CU_ASSERT_EQUAL_FATAL(
		    nl_http(&r, mock_server_url(s), "GET", "/api/v1/namespaces", NULL, NULL), 0);
		code = r.code;
		nl_http_resp_free(&r);
	}
	CU_ASSERT_EQUAL(code, 200);
	mock_server_free(s);
}

/* Open a watch on a raw socket; returns the fd after reading the status
 * line into status (or -1). */
static int open_watch(mock_server *s, char *status, size_t cap)
{
	static const char req[] = "GET /api/v1/namespaces/default/configmaps?watch=1 HTTP/1.1\r\n"
	                          "Host: x\r\nAccept: application/json\r\n\r\n";
	int fd = nl_test_dial(s);
	if (fd < 0)
		return -1;
	if (send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL) != (ssize_t)sizeof(req) - 1 ||
	    read_for(fd, status, cap, 5000) <= 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void test_limits__watches_beyond_the_cap_get_429(void)
{
	mock_server *s = nl_test_server_adjusted(one_inflight);
	char st[4096];
	int a = open_watch(s, st, sizeof(st));
	CU_ASSERT_EQUAL(strncmp(st, "HTTP/1.1 200", 12), 0);
	int b = open_watch(s, st, sizeof(st));
	CU_ASSERT_EQUAL(strncmp(st, "HTTP/1.1 200", 12), 0);
	CU_ASSERT_EQUAL(mock_server_watch_count(s), 2);
	int c = open_watch(s, st, sizeof(st));
	CU_ASSERT_EQUAL(strncmp(st, "HTTP/1.1 429", 12), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(st, "Retry-After: 1\r\n"));
	close(c);
	/* a watcher that goes away frees its place */
	close(a);
	for (int i = 0; i < 100 && mock_server_watch_count(s) > 1; i++)
		nl_test_sleep_ms(100);
	CU_ASSERT_EQUAL(mock_server_watch_count(s), 1);
	c = open_watch(s, st, sizeof(st));
	CU_ASSERT_EQUAL(strncmp(st, "HTTP/1.1 200", 12), 0);
	close(b);
	close(c);
	mock_server_free(s);
}

static CU_TestInfo tests[] = {
    {"slowloris_does_not_block_others", test_limits__slowloris_does_not_block_others},
    {"stalled_clients_are_dropped", test_limits__stalled_clients_are_dropped},
    {"oversize_headers_and_bodies", test_limits__oversize_headers_and_bodies},
    {"declared_oversize_body_is_drained_before_413",
     test_limits__declared_oversize_body_is_drained_before_413},
    {"thousands_of_idle_connections", test_limits__thousands_of_idle_connections},
    {"requests_in_flight_beyond_the_limit_get_429",
     test_limits__requests_in_flight_beyond_the_limit_get_429},
    {"watches_beyond_the_cap_get_429", test_limits__watches_beyond_the_cap_get_429},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"limits", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
