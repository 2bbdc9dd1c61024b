/* nodelet-mockapi's HTTP/1.1 framing as strict as Go's net/http (what
 * kube-apiserver runs on), over raw sockets: differing Content-Length
 * headers, a NUL in a header value, HTTP/1.1 without Host and any
 * Transfer-Encoding but a single `chunked` are refused with net/http's
 * plain-text answers and the connection closed, so nothing hidden in a body
 * is ever run as a request (request smuggling). Then the connection
 * limits: past --max-connections a client is closed at once, idle
 * keep-alive connections give way to new ones, and a head trickled for
 * longer than --read-header-timeout is cut. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../cu_main.h"
#include "api/resources.h"
#include "http_client.h"
#include "server/server_internal.h"
#include "storage/store.h"

/* Everything the server sends within ms, until it closes: the bytes read
 * (buf NUL-terminated), with *closed set when it closed. */
static size_t read_until_close(int fd, char *buf, size_t cap, int ms, int *closed)
{
	size_t n = 0;
	int64_t end = nl_test_now_ms() + ms;
	*closed = 0;
	buf[0] = '\0';
	while (n + 1 < cap) {
		struct pollfd p = {fd, POLLIN, 0};
		int left = (int)(end - nl_test_now_ms());
		if (left <= 0 || poll(&p, 1, left) <= 0)
			break;
		ssize_t r = recv(fd, buf + n, cap - 1 - n, 0);
		if (r <= 0) {
			*closed = 1;
			break;
		}
		n += (size_t)r;
		buf[n] = '\0';
	}
	return n;
}

/* Send raw (len bytes) on a new connection and read the answer. */
static size_t exchange(mock_server *s, const char *raw, size_t len, char *buf, size_t cap,
                       int *closed)
{
	int fd = nl_test_dial(s);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(send(fd, raw, len, MSG_NOSIGNAL), (ssize_t)len);
	size_t n = read_until_close(fd, buf, cap, 3000, closed);
	close(fd);
	return n;
}

/* The body after the head. */
static const char *body_of(const char *buf)
{
	const char *b = strstr(buf, "\r\n\r\n");
	return b ? b + 4 : "";
}

static void assert_go_error(const char *buf, int closed, const char *status, const char *body)
{
	if (strncmp(buf, status, strlen(status)) != 0 || strcmp(body_of(buf), body) != 0 || !closed)
		fprintf(stderr, "\nwanted %s / %s, got (closed %d):\n%s\n", status, body, closed,
		        buf);
	CU_ASSERT_EQUAL(strncmp(buf, status, strlen(status)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\r\nContent-Type: text/plain; charset=utf-8\r\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\r\nConnection: close\r\n"));
	CU_ASSERT_STRING_EQUAL(body_of(buf), body);
	CU_ASSERT_TRUE(closed);
}

static void assert_exists(mock_server *s, const char *path, long want)
{
	nl_http_resp r;
	CU_ASSERT_EQUAL_FATAL(nl_http(&r, mock_server_url(s), "GET", path, NULL, NULL), 0);
	CU_ASSERT_EQUAL(r.code, want);
	nl_http_resp_free(&r);
}

static void create_victim(mock_server *s)
{
	nl_http_resp r;
	CU_ASSERT_EQUAL_FATAL(nl_http(&r, mock_server_url(s), "POST",
	                              "/api/v1/namespaces/default/configmaps",
	                              "{\"metadata\":{\"name\":\"victim\"}}", NULL),
	                      0);
	CU_ASSERT_EQUAL(r.code, 201);
	nl_http_resp_free(&r);
}

/* ------------------------------------------------------------------------ */

/* A POST whose second Content-Length covers a DELETE: a proxy honouring the
 * last header forwards one request, a server honouring the first sees two.
 * net/http refuses the message (transfer.go fixLength). */
static void test_framing__differing_content_lengths_are_refused(void)
{
	mock_server *s = nl_test_server_adjusted(NULL);
	create_victim(s);
	static const char smuggle[] =
	    "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\n"
	    "Host: x\r\nContent-Type: application/json\r\n"
	    "Content-Length: 28\r\nContent-Length: 110\r\n\r\n"
	    "{\"metadata\":{\"name\":\"smug\"}}"
	    "DELETE /api/v1/namespaces/default/configmaps/victim HTTP/1.1\r\nHost: x\r\n\r\n";
	char buf[4096];
	int closed;
	exchange(s, smuggle, sizeof(smuggle) - 1, buf, sizeof(buf), &closed);
	assert_go_error(buf, closed, "HTTP/1.1 400 ", "400 Bad Request");
	nl_test_sleep_ms(100);
	assert_exists(s, "/api/v1/namespaces/default/configmaps/victim", 200);
	assert_exists(s, "/api/v1/namespaces/default/configmaps/smug", 404);
	mock_server_free(s);
}

/* Identical duplicates are one header to net/http. */
static void test_framing__identical_content_lengths_are_merged(void)
{
	mock_server *s = nl_test_server_adjusted(NULL);
	static const char dup[] = "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\n"
	                          "Host: x\r\nContent-Type: application/json\r\n"
	                          "Content-Length: 28\r\nContent-Length:  28 \r\n"
	                          "Connection: close\r\n\r\n"
	                          "{\"metadata\":{\"name\":\"dupe\"}}";
	char buf[4096];
	int closed;
	exchange(s, dup, sizeof(dup) - 1, buf, sizeof(buf), &closed);
	CU_ASSERT_EQUAL(strncmp(buf, "HTTP/1.1 201", 12), 0);
	assert_exists(s, "/api/v1/namespaces/default/configmaps/dupe", 200);
	mock_server_free(s);
}

/* textproto refuses control bytes in a value; a NUL would otherwise cut
 * the value short here and the rest of the line vanish unseen. */
static void test_framing__nul_in_a_header_value_is_refused(void)
{
	mock_server *s = nl_test_server_adjusted(NULL);
	static const char nul[] = "GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n"
	                          "X-Trace: a\0b\r\nAccept: application/json\r\n\r\n";
	static const char nul_last[] = "GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n"
	                               "Accept: application/json\0, text/plain\r\n\r\n";
	static const char ctl[] = "GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n"
	                          "X-Trace: a\x01"
	                          "b\r\n\r\n";
	char buf[4096];
	int closed;
	exchange(s, nul, sizeof(nul) - 1, buf, sizeof(buf), &closed);
	assert_go_error(buf, closed, "HTTP/1.1 400 ", "400 Bad Request");
	exchange(s, nul_last, sizeof(nul_last) - 1, buf, sizeof(buf), &closed);
	assert_go_error(buf, closed, "HTTP/1.1 400 ", "400 Bad Request");
	exchange(s, ctl, sizeof(ctl) - 1, buf, sizeof(buf), &closed);
	assert_go_error(buf, closed, "HTTP/1.1 400 ", "400 Bad Request");
	/* a tab is allowed */
	static const char tab[] = "GET /version HTTP/1.1\r\nHost: x\r\nX-Trace: a\tb\r\n"
	                          "Connection: close\r\n\r\n";
	exchange(s, tab, sizeof(tab) - 1, buf, sizeof(buf), &closed);
	CU_ASSERT_EQUAL(strncmp(buf, "HTTP/1.1 200", 12), 0);
	mock_server_free(s);
}

static void test_framing__http11_without_host_is_refused(void)
{
	mock_server *s = nl_test_server_adjusted(NULL);
	static const char nohost[] = "GET /version HTTP/1.1\r\nAccept: */*\r\n\r\n";
	static const char twohosts[] = "GET /version HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n";
	static const char badhost[] = "GET /version HTTP/1.1\r\nHost: a b\r\n\r\n";
	char buf[4096];
	int closed;
	exchange(s, nohost, sizeof(nohost) - 1, buf, sizeof(buf), &closed);
	assert_go_error(buf, closed, "HTTP/1.1 400 ",
	                "400 Bad Request: missing required Host header");
	exchange(s, twohosts, sizeof(twohosts) - 1, buf, sizeof(buf), &closed);
	assert_go_error(buf, closed, "HTTP/1.1 400 ", "400 Bad Request: too many Host headers");
	exchange(s, badhost, sizeof(badhost) - 1, buf, sizeof(buf), &closed);
	assert_go_error(buf, closed, "HTTP/1.1 400 ", "400 Bad Request: malformed Host header");
	/* HTTP/1.0 needs none (libmicrohttpd answers it as HTTP/1.1); bare
	 * LF line ends are accepted as by Go */
	static const char http10[] = "GET /version HTTP/1.0\r\n\r\n";
	exchange(s, http10, sizeof(http10) - 1, buf, sizeof(buf), &closed);
	CU_ASSERT_EQUAL(strncmp(buf + 8, " 200 ", 5), 0);
	static const char bare_lf[] = "GET /version HTTP/1.1\nHost: x\nConnection: close\n\n";
	exchange(s, bare_lf, sizeof(bare_lf) - 1, buf, sizeof(buf), &closed);
	CU_ASSERT_EQUAL(strncmp(buf, "HTTP/1.1 200", 12), 0);
	mock_server_free(s);
}

/* transfer.go parseTransferEncoding: one header, exactly "chunked". */
static void test_framing__transfer_encodings_but_chunked_get_501(void)
{
	mock_server *s = nl_test_server_adjusted(NULL);
	static const char *const codings[] = {
	    "Transfer-Encoding: identity\r\n",
	    "Transfer-Encoding: chunked, identity\r\n",
	    "Transfer-Encoding: gzip\r\n",
	    "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
	};
	for (size_t i = 0; i < sizeof(codings) / sizeof(codings[0]); i++) {
		char raw[512], buf[4096];
		int closed;
		int n = snprintf(raw, sizeof(raw),
		                 "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\n"
		                 "Host: x\r\nContent-Type: application/json\r\n%s\r\n"
		                 "1a\r\n{\"metadata\":{\"name\":\"te\"}}\r\n0\r\n\r\n",
		                 codings[i]);
		exchange(s, raw, (size_t)n, buf, sizeof(buf), &closed);
		assert_go_error(buf, closed, "HTTP/1.1 501 ", "Unsupported transfer encoding");
	}
	assert_exists(s, "/api/v1/namespaces/default/configmaps/te", 404);
	/* chunked itself, in any case, is read */
	static const char chunked[] = "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\n"
	                              "Host: x\r\nContent-Type: application/json\r\n"
	                              "Transfer-Encoding: Chunked\r\nConnection: close\r\n\r\n"
	                              "1a\r\n{\"metadata\":{\"name\":\"ok\"}}\r\n0\r\n\r\n";
	char buf[4096];
	int closed;
	exchange(s, chunked, sizeof(chunked) - 1, buf, sizeof(buf), &closed);
	CU_ASSERT_EQUAL(strncmp(buf, "HTTP/1.1 201", 12), 0);
	mock_server_free(s);
}

/* ------------------------------------------------------------------------
 * Connections */

static void fifty_connections(mock_options *o)
{
	o->max_connections = 50;
}

/* Is fd closed by the server (EOF or reset) within ms? */
static int closed_within(int fd, int ms)
{
	char buf[256];
	int closed;
	read_until_close(fd, buf, sizeof(buf), ms, &closed);
	return closed;
}

/* 60 silent sockets against a limit of 50: the oldest idle ones make room,
 * so a real client is still served at once. */
static void test_framing__idle_connections_make_room_oldest_first(void)
{
	mock_server *s = nl_test_server_adjusted(fifty_connections);
	int fds[60];
	for (int i = 0; i < 60; i++) {
		CU_ASSERT_FATAL((fds[i] = nl_test_dial(s)) >= 0);
		nl_test_sleep_ms(i < 50 ? 1 : 20); /* in order */
	}
	int64_t t0 = nl_test_now_ms();
	assert_exists(s, "/api/v1/namespaces/default", 200);
	CU_ASSERT_TRUE(nl_test_now_ms() - t0 < 1000);
	/* the first ones went, the last ones stay */
	for (int i = 0; i < 10; i++)
		CU_ASSERT_TRUE(closed_within(fds[i], 2000));
	for (int i = 55; i < 60; i++)
		CU_ASSERT_FALSE(closed_within(fds[i], 100));
	for (int i = 0; i < 60; i++)
		close(fds[i]);
	mock_server_free(s);
}

static void five_connections(mock_options *o)
{
	o->max_connections = 5;
}

/* When every connection is busy (watches), a new one is closed at once
 * rather than left in the listen backlog. */
static void test_framing__past_the_limit_a_client_is_closed_at_once(void)
{
	mock_server *s = nl_test_server_adjusted(five_connections);
	static const char watch[] = "GET /api/v1/namespaces/default/configmaps?watch=1 HTTP/1.1\r\n"
	                            "Host: x\r\nAccept: application/json\r\n\r\n";
	int fds[5];
	for (int i = 0; i < 5; i++) {
		char buf[1024];
		CU_ASSERT_FATAL((fds[i] = nl_test_dial(s)) >= 0);
		CU_ASSERT_EQUAL(send(fds[i], watch, sizeof(watch) - 1, MSG_NOSIGNAL),
		                (ssize_t)sizeof(watch) - 1);
		int closed;
		read_until_close(fds[i], buf, sizeof(buf), 300, &closed);
		CU_ASSERT_EQUAL(strncmp(buf, "HTTP/1.1 200", 12), 0);
	}
	int extra = nl_test_dial(s);
	CU_ASSERT_FATAL(extra >= 0);
	int64_t t0 = nl_test_now_ms();
	CU_ASSERT_TRUE(closed_within(extra, 2000));
	CU_ASSERT_TRUE(nl_test_now_ms() - t0 < 1000);
	close(extra);
	/* watches that end free their places */
	for (int i = 0; i < 5; i++)
		close(fds[i]);
	for (int i = 0; i < 100 && mock_server_watch_count(s) > 0; i++)
		nl_test_sleep_ms(100);
	assert_exists(s, "/version", 200);
	mock_server_free(s);
}

static void one_second_heads(mock_options *o)
{
	o->read_header_timeout_ms = 1000;
}

/* A head trickled for longer than --read-header-timeout is cut, though
 * each byte comes well within the idle timeout; so is a silent client. */
static void test_framing__a_slow_head_is_cut(void)
{
	mock_server *s = nl_test_server_adjusted(one_second_heads);
	int slow = nl_test_dial(s), silent = nl_test_dial(s);
	CU_ASSERT_FATAL(slow >= 0 && silent >= 0);
	static const char head[] =
	    "GET /version HTTP/1.1\r\nHost: x\r\nX-Pad: aaaaaaaaaaaaaaaaaaaaaaaa";
	int64_t t0 = nl_test_now_ms();
	int cut = 0;
	for (size_t i = 0; i + 1 < sizeof(head) && !cut; i++) {
		if (send(slow, head + i, 1, MSG_NOSIGNAL) != 1)
			cut = 1;
		else
			cut = closed_within(slow, 100);
	}
	int64_t took = nl_test_now_ms() - t0;
	CU_ASSERT_TRUE(cut);
	CU_ASSERT_TRUE(took >= 900 && took < 3000);
	CU_ASSERT_TRUE(closed_within(silent, 2000));
	close(slow);
	close(silent);
	/* a keep-alive client between requests is not held to it */
	int ka = nl_test_dial(s);
	static const char get[] = "GET /version HTTP/1.1\r\nHost: x\r\n\r\n";
	char buf[4096];
	int closed;
	CU_ASSERT_EQUAL(send(ka, get, sizeof(get) - 1, MSG_NOSIGNAL), (ssize_t)sizeof(get) - 1);
	read_until_close(ka, buf, sizeof(buf), 300, &closed);
	CU_ASSERT_EQUAL(strncmp(buf, "HTTP/1.1 200", 12), 0);
	CU_ASSERT_FALSE(closed_within(ka, 1500));
	CU_ASSERT_EQUAL(send(ka, get, sizeof(get) - 1, MSG_NOSIGNAL), (ssize_t)sizeof(get) - 1);
	read_until_close(ka, buf, sizeof(buf), 300, &closed);
	CU_ASSERT_EQUAL(strncmp(buf, "HTTP/1.1 200", 12), 0);
	close(ka);
	mock_server_free(s);
}

/* ------------------------------------------------------------------------
 * --request-timeout and the stop */

/* A store observer that holds the write lock for hold_ms on the first
 * change after it is armed: a handler stuck in the store, as a quadratic
 * computation under the lock once was. */
static atomic_int hold_ms;

static void holding_observer(const mock_resource *r, mock_store_event ev, const char *json,
                             size_t len, const char *old_json, size_t old_len, uint64_t rv,
                             void *payload)
{
	(void)r, (void)ev, (void)json, (void)len, (void)old_json, (void)old_len, (void)rv;
	(void)payload;
	int ms = atomic_exchange(&hold_ms, 0);
	if (ms > 0)
		nl_test_sleep_ms(ms);
}

static void half_second_requests(mock_options *o)
{
	o->request_timeout_ms = 500;
}

static const char timeout_body[] =
    "{\"metadata\":{},\"status\":\"Failure\",\"message\":\"Timeout: request did not complete "
    "within the allotted timeout\",\"reason\":\"Timeout\",\"details\":{},\"code\":504}\n";

/* kube-apiserver's timeout filter: 504 at the deadline with the bare
 * Status (JSON whatever was asked for); the handler runs on to its end. */
static void test_framing__a_slow_request_gets_504_on_time(void)
{
	mock_server *s = nl_test_server_adjusted(half_second_requests);
	mock_store_set_observer(mock_server_store(s), holding_observer, NULL);
	atomic_store(&hold_ms, 1500);
	static const char post[] = "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\n"
	                           "Host: x\r\nContent-Type: application/json\r\n"
	                           "Accept: application/vnd.kubernetes.protobuf\r\n"
	                           "Content-Length: 28\r\nConnection: close\r\n\r\n"
	                           "{\"metadata\":{\"name\":\"slow\"}}";
	char buf[4096];
	int closed;
	int64_t t0 = nl_test_now_ms();
	exchange(s, post, sizeof(post) - 1, buf, sizeof(buf), &closed);
	int64_t took = nl_test_now_ms() - t0;
	if (strncmp(buf, "HTTP/1.1 504", 12) != 0)
		fprintf(stderr, "\ngot after %lld ms:\n%s\n", (long long)took, buf);
	CU_ASSERT_EQUAL(strncmp(buf, "HTTP/1.1 504", 12), 0);
	CU_ASSERT_STRING_EQUAL(body_of(buf), timeout_body);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\r\nContent-Type: text/plain; charset=utf-8\r\n"));
	CU_ASSERT_TRUE(took >= 450 && took < 1300);
	/* what the handler did stands once it is through */
	nl_test_sleep_ms(1500);
	assert_exists(s, "/api/v1/namespaces/default/configmaps/slow", 200);
	mock_store_set_observer(mock_server_store(s), NULL, NULL);
	mock_server_free(s);
}

/* A delay fault counts against the deadline like a slow handler. */
static void test_framing__a_delayed_request_gets_504_on_time(void)
{
	mock_server *s = nl_test_server_adjusted(half_second_requests);
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(mock_server_add_fault(NULL, s,
	                                            "{\"match\":{\"verb\":\"get\",\"resource\":"
	                                            "\"namespaces\",\"name\":\"kube-public\"},"
	                                            "\"action\":{\"delayMs\":3000}}",
	                                            &err),
	                      0);
	nl_http_resp r;
	int64_t t0 = nl_test_now_ms();
	CU_ASSERT_EQUAL_FATAL(
	    nl_http(&r, mock_server_url(s), "GET", "/api/v1/namespaces/kube-public", NULL, NULL),
	    0);
	int64_t took = nl_test_now_ms() - t0;
	CU_ASSERT_EQUAL(r.code, 504);
	CU_ASSERT_STRING_EQUAL(r.body, timeout_body);
	CU_ASSERT_TRUE(took >= 450 && took < 1300);
	nl_http_resp_free(&r);
	/* a watch is long-running: no deadline */
	t0 = nl_test_now_ms();
	CU_ASSERT_EQUAL_FATAL(
	    nl_http(&r, mock_server_url(s), "GET",
	            "/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1", NULL, NULL),
	    0);
	CU_ASSERT_EQUAL(r.code, 200);
	CU_ASSERT_TRUE(nl_test_now_ms() - t0 >= 900);
	nl_http_resp_free(&r);
	mock_server_free(s);
}

typedef struct {
	mock_server *s;
	char buf[4096];
	int closed;
} bg_post;

static void *post_in_background(void *payload)
{
	bg_post *p = payload;
	static const char post[] = "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\n"
	                           "Host: x\r\nContent-Type: application/json\r\n"
	                           "Content-Length: 28\r\n\r\n"
	                           "{\"metadata\":{\"name\":\"late\"}}";
	int fd = nl_test_dial(p->s);
	if (fd < 0)
		return NULL;
	send(fd, post, sizeof(post) - 1, MSG_NOSIGNAL);
	read_until_close(fd, p->buf, sizeof(p->buf), 10000, &p->closed);
	close(fd);
	return NULL;
}

static char state_dir[64];

static void stop_quickly(mock_options *o)
{
	static char path[128];
	snprintf(path, sizeof(path), "%s/state", state_dir);
	o->state_file = path;
	o->request_timeout_ms = 0; /* the stop alone bounds it */
	o->shutdown_grace_ms = 300;
}

/* The stop (SIGTERM's) gives a running request the grace period, then cuts
 * its connection, however long the handler goes on; what was acknowledged
 * before is in the state file. */
static void test_framing__stop_is_bounded_while_a_request_runs(void)
{
	snprintf(state_dir, sizeof(state_dir), "/tmp/nl-framing-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(state_dir));
	mock_server *s = nl_test_server_adjusted(stop_quickly);
	create_victim(s);
	mock_store_set_observer(mock_server_store(s), holding_observer, NULL);
	atomic_store(&hold_ms, 3000);
	bg_post p = {s, "", 0};
	pthread_t t;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, post_in_background, &p), 0);
	nl_test_sleep_ms(300);
	int64_t t0 = nl_test_now_ms();
	mock_server_stop(s);
	int64_t took = nl_test_now_ms() - t0;
	if (took >= 1500)
		fprintf(stderr, "\nstop took %lld ms\n", (long long)took);
	CU_ASSERT_TRUE(took < 1500);
	CU_ASSERT_TRUE(mock_server_handlers_running(s));
	pthread_join(t, NULL);
	CU_ASSERT_TRUE(p.closed);
	CU_ASSERT_EQUAL(p.buf[0], '\0'); /* cut, not answered */
	mock_server_free(s);             /* waits for the handler */
	/* acknowledged before the stop: kept */
	s = nl_test_server_adjusted(stop_quickly);
	assert_exists(s, "/api/v1/namespaces/default/configmaps/victim", 200);
	mock_server_free(s);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", state_dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

static CU_TestInfo tests[] = {
    {"differing_content_lengths_are_refused", test_framing__differing_content_lengths_are_refused},
    {"identical_content_lengths_are_merged", test_framing__identical_content_lengths_are_merged},
    {"nul_in_a_header_value_is_refused", test_framing__nul_in_a_header_value_is_refused},
    {"http11_without_host_is_refused", test_framing__http11_without_host_is_refused},
    {"transfer_encodings_but_chunked_get_501",
     test_framing__transfer_encodings_but_chunked_get_501},
    {"idle_connections_make_room_oldest_first",
     test_framing__idle_connections_make_room_oldest_first},
    {"past_the_limit_a_client_is_closed_at_once",
     test_framing__past_the_limit_a_client_is_closed_at_once},
    {"a_slow_head_is_cut", test_framing__a_slow_head_is_cut},
    {"a_slow_request_gets_504_on_time", test_framing__a_slow_request_gets_504_on_time},
    {"a_delayed_request_gets_504_on_time", test_framing__a_delayed_request_gets_504_on_time},
    {"stop_is_bounded_while_a_request_runs", test_framing__stop_is_bounded_while_a_request_runs},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"framing", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
