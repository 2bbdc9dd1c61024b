/* The client's pool of finished libcurl easy handles (client/kube/transport.c):
 * the next request really runs on the same handle, blocking or from inside
 * an async callback, over the same keep-alive connection; and nothing of a
 * request (method, body, Content-Type, Accept, timeout, streaming, private
 * pointer) reaches the next one on that handle, from one thread or several.
 *
 * The scripted server checks every request against what its path promises:
 * /<method>/<n>/<body: b|-> /<content type>/<accept>[/slow] */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../../client/kube/kube.h"
#include "../cu_main.h"
#include "fake_http.h"

#define MERGE "application/merge-patch+json"
#define TABLE "application/json;as=Table;v=v1;g=meta.k8s.io"

typedef struct {
	pthread_mutex_t mu;
	int seen, bad;
	char why[256]; /* the first mismatch */
} checker;

static int count_header(const fake_http_req *r, const char *name)
{
	size_t k = strlen(name);
	int n = 0;
	for (const char *line = r->headers; *line;) {
		if (strncasecmp(line, name, k) == 0 && line[k] == ':')
			n++;
		const char *end = strstr(line, "\r\n");
		if (!end)
			break;
		line = end + 2;
	}
	return n;
}

static const char *media(const char *token)
{
	if (strcmp(token, "merge") == 0)
		return MERGE;
	return strcmp(token, "table") == 0 ? TABLE : "application/json";
}

/* NULL when r is what its path describes, else why not. */
static const char *mismatch(const fake_http_req *r)
{
	char method[16], body[8], ctype[16], accept[16], want[32], v[256];
	unsigned k;
	if (sscanf(r->target, "/%15[A-Z]/%u/%7[^/]/%15[^/]/%15[^/?]", method, &k, body, ctype,
	           accept) != 5)
		return "unexpected path";
	if (strcmp(r->method, method) != 0)
		return "method";
	snprintf(want, sizeof(want), "n=%u", k);
	if (strcmp(body, "b") == 0 ? strcmp(r->body, want) != 0 : r->body_len != 0)
		return "body";
	/* libcurl labels a POST without a body as a form, as it always has:
	 * anything else there would come from an earlier request. */
	const char *ct = fake_http_header(r, "Content-Type", v, sizeof(v));
	if (strcmp(body, "b") == 0 ? !ct || strcmp(ct, media(ctype)) != 0
	                           : ct && (strcmp(method, "POST") != 0 ||
	                                    strcmp(ct, "application/x-www-form-urlencoded") != 0))
		return "Content-Type";
	const char *acc = fake_http_header(r, "Accept", v, sizeof(v));
	if (!acc || strcmp(acc, media(accept)) != 0 || count_header(r, "Accept") != 1)
		return "Accept";
	if (count_header(r, "User-Agent") != 1 || count_header(r, "Accept-Encoding") != 1 ||
	    count_header(r, "Authorization") != 1 || count_header(r, "Expect") != 0)
		return "User-Agent, Accept-Encoding, Authorization or Expect";
	const char *auth = fake_http_header(r, "Authorization", v, sizeof(v));
	if (!auth || strcmp(auth, "Bearer tok") != 0)
		return "Authorization";
	return NULL;
}

static int handler(int fd, const fake_http_req *r, void *payload)
{
	checker *ck = payload;
	char reply[64];
	const char *why = mismatch(r);
	pthread_mutex_lock(&ck->mu);
	ck->seen++;
	if (why && ck->bad++ == 0)
		snprintf(ck->why, sizeof(ck->why), "%s %.128s: %s", r->method, r->target, why);
	pthread_mutex_unlock(&ck->mu);
	if (strstr(r->target, "/slow"))
		usleep(300 * 1000);
	/* The answer names the request, so a mixed-up answer shows too. */
	snprintf(reply, sizeof(reply), "{\"target\":\"%.40s\"}", r->target);
	return fake_http_reply(fd, 200, NULL, "application/json", reply) != 0;
}

static fake_http *start(checker *ck)
{
	fake_http *f;
	memset(ck, 0, sizeof(*ck));
	pthread_mutex_init(&ck->mu, NULL);
	CU_ASSERT_EQUAL_FATAL(fake_http_start(&f, handler, ck), 0);
	return f;
}

static void stop(fake_http *f, checker *ck)
{
	fake_http_stop(f);
	if (ck->bad)
		fprintf(stderr, "\n  server saw %d bad requests, first: %s\n", ck->bad, ck->why);
	CU_ASSERT_EQUAL(ck->bad, 0);
	pthread_mutex_destroy(&ck->mu);
}

static nl_client *client_at(const char *url, nl_loop *loop)
{
	nl_rest_config cfg = {0};
	nl_client_options o;
	nl_client *c = NULL;
	cfg.server = (char *)url;
	cfg.bearer_token = "tok";
	nl_client_options_init(&o);
	o.qps = -1;
	o.loop = loop;
	CU_ASSERT_EQUAL_FATAL(nl_client_new(&c, &cfg, &o, NULL), 0);
	return c;
}

/* One request of the mixed sequence: every option the previous one set is
 * one the next must not inherit. */
typedef struct {
	const char *method;
	int body;
	const char *ctype, *accept; /* NULL: the default */
	long timeout_ms;
} step;

static const step steps[] = {
    {"PATCH", 1, MERGE, TABLE, 5000},
    {"GET", 0, NULL, NULL, 0},
    {"PUT", 1, NULL, NULL, 0},
    {"DELETE", 0, NULL, NULL, 0},
    {"POST", 0, NULL, TABLE, 0},
    {"GET", 0, NULL, NULL, 0},
    {"POST", 1, "application/json", "application/json", 0},
    {"GET", 0, NULL, NULL, -1},
};
#define NSTEPS (sizeof(steps) / sizeof(steps[0]))

static const char *token(const char *media_type)
{
	if (!media_type || strcmp(media_type, "application/json") == 0)
		return "json";
	return strcmp(media_type, MERGE) == 0 ? "merge" : "table";
}

/* The request for steps[i % NSTEPS], numbered k (path and body in bufs). */
static nl_request request_for(size_t i, unsigned k, char path[128], char body[32])
{
	const step *s = &steps[i % NSTEPS];
	nl_request req = {0};
	snprintf(path, 128, "/%s/%u/%s/%s/%s", s->method, k, s->body ? "b" : "-", token(s->ctype),
	         token(s->accept));
	snprintf(body, 32, "n=%u", k);
	req.method = s->method;
	req.path = path;
	if (s->body) {
		req.body = body;
		req.body_len = strlen(body);
	}
	req.content_type = s->ctype;
	req.accept = s->accept;
	req.timeout_ms = s->timeout_ms;
	return req;
}

/* The answer names the request it answers. */
static int answers(const nl_response *resp, const char *path)
{
	char want[128];
	snprintf(want, sizeof(want), "{\"target\":\"%.40s\"}", path);
	return resp && resp->http_status == 200 && strcmp(resp->body, want) == 0;
}

static const nl__easy_pool *pool_of(nl_client *c, int which)
{
	return &c->pools[which];
}

/* ---- blocking --------------------------------------------------------------- */

static void test_easy_pool__blocking_requests_reuse_one_handle(void)
{
	checker ck;
	fake_http *f = start(&ck);
	nl_client *c = client_at(fake_http_url(f), NULL);
	const nl__easy_pool *p = pool_of(c, NL__POOL_BLOCKING);
	CURL *first = NULL;
	for (size_t i = 0; i < 2 * NSTEPS; i++) {
		char path[128], body[32];
		nl_request req = request_for(i, (unsigned)i, path, body);
		nl_response resp = {0};
		nl_result res = NL_RESULT_INIT;
		CU_ASSERT_EQUAL(nl_client_do(&resp, c, &req, &res), 0);
		CU_ASSERT_TRUE(answers(&resp, path));
		/* Back in the pool after the request: the same handle each time. */
		CU_ASSERT_EQUAL_FATAL(p->n, 1);
		if (!first)
			first = p->idle[0];
		CU_ASSERT_PTR_EQUAL(p->idle[0], first);
		nl_response_clear(&resp);
		nl_result_clear(&res);
	}
	/* Idle, it points into no finished request. */
	char *priv = (char *)1;
	curl_easy_getinfo(first, CURLINFO_PRIVATE, &priv);
	CU_ASSERT_PTR_NULL(priv);
	CU_ASSERT_EQUAL(ck.seen, (int)(2 * NSTEPS));
	CU_ASSERT_EQUAL(fake_http_connections(f), 1); /* keep-alive as before */
	nl_client_free(c);
	stop(f, &ck);
}

/* A request's timeout ends with it: the next request on the handle, slower
 * than that timeout but without one of its own, completes. */
static void test_easy_pool__timeout_does_not_outlive_its_request(void)
{
	checker ck;
	fake_http *f = start(&ck);
	nl_client *c = client_at(fake_http_url(f), NULL);
	const nl__easy_pool *p = pool_of(c, NL__POOL_BLOCKING);
	nl_request req = {.method = "GET", .path = "/GET/1/-/json/json/slow", .timeout_ms = 100};
	nl_response resp = {0};
	nl_result res = NL_RESULT_INIT;
	CU_ASSERT_EQUAL(nl_client_do(&resp, c, &req, &res), NL_ETIMEOUT);
	nl_result_clear(&res);
	CU_ASSERT_EQUAL_FATAL(p->n, 1);
	CURL *h = p->idle[0];
	req.path = "/GET/2/-/json/json/slow";
	req.timeout_ms = 0;
	CU_ASSERT_EQUAL(nl_client_do(&resp, c, &req, &res), 0);
	CU_ASSERT_TRUE(answers(&resp, req.path));
	CU_ASSERT_EQUAL(p->n, 1);
	CU_ASSERT_PTR_EQUAL(p->idle[0], h);
	nl_response_clear(&resp);
	nl_result_clear(&res);
	nl_client_free(c);
	stop(f, &ck);
}

typedef struct {
	nl_client *c;
	unsigned base;
	int ok;
} worker;

static void *work(void *arg)
{
	worker *w = arg;
	for (size_t i = 0; i < 3 * NSTEPS; i++) {
		char path[128], body[32];
		nl_request req = request_for(i + w->base, w->base * 1000 + (unsigned)i, path, body);
		nl_response resp = {0};
		if (nl_client_do(&resp, w->c, &req, NULL) == 0 && answers(&resp, path))
			w->ok++;
		nl_response_clear(&resp);
	}
	return NULL;
}

/* Threads sharing one client take handles from one pool under its lock:
 * every request still arrives as sent and gets its own answer. */
static void test_easy_pool__threads_share_the_blocking_pool(void)
{
	checker ck;
	fake_http *f = start(&ck);
	nl_client *c = client_at(fake_http_url(f), NULL);
	pthread_t th[4];
	worker w[4];
	for (unsigned i = 0; i < 4; i++) {
		w[i] = (worker){c, i + 1, 0};
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, work, &w[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		CU_ASSERT_EQUAL(w[i].ok, (int)(3 * NSTEPS));
	}
	CU_ASSERT_EQUAL(ck.seen, (int)(4 * 3 * NSTEPS));
	CU_ASSERT_TRUE(pool_of(c, NL__POOL_BLOCKING)->n >= 1);
	CU_ASSERT_TRUE(pool_of(c, NL__POOL_BLOCKING)->n <= 4);
	nl_client_free(c);
	stop(f, &ck);
}

/* ---- async ------------------------------------------------------------------ */

typedef struct {
	nl_client *c;
	size_t i, total;
	char path[128], body[32];
	CURL *handle; /* the one the chain runs on */
	int ok, reused, streamed;
} chain;

static int on_data(const char *data, size_t len, void *payload)
{
	chain *ch = payload;
	(void)data;
	ch->streamed += (int)len;
	return 0;
}

static void chain_send(chain *ch);

static void chain_done(nl_response *resp, const nl_result *res, void *payload)
{
	chain *ch = payload;
	const nl__easy_pool *p = pool_of(ch->c, NL__POOL_ASYNC);
	/* A streamed answer's body went to on_data; any other is buffered. */
	int streamed = ch->i % 4 == 3;
	if (res->code == 0 && (streamed ? resp->body_len == 0 : answers(resp, ch->path)))
		ch->ok++;
	/* The finished request's handle is idle already: the next one,
	 * started from this callback, takes it. */
	if (p->n == 1 && (!ch->handle || p->idle[0] == ch->handle)) {
		ch->reused++;
		ch->handle = p->idle[0];
	}
	if (++ch->i < ch->total) {
		chain_send(ch);
		CU_ASSERT_EQUAL(p->n, 0);
	}
}

static void chain_send(chain *ch)
{
	nl_request req = request_for(ch->i, (unsigned)ch->i, ch->path, ch->body);
	if (ch->i % 4 == 3) {
		req.on_data = on_data;
		req.data_payload = ch;
	}
	CU_ASSERT_EQUAL(nl_client_send(NULL, ch->c, &req, chain_done, ch), 0);
}

static void test_easy_pool__async_callback_reuses_the_finished_handle(void)
{
	checker ck;
	fake_http *f = start(&ck);
	nl_loop *loop = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_loop_new(&loop, NULL), 0);
	nl_client *c = client_at(fake_http_url(f), loop);
	chain ch = {.c = c, .total = 2 * NSTEPS};
	chain_send(&ch);
	CU_ASSERT_EQUAL(nl_loop_run(loop), 0);
	CU_ASSERT_EQUAL(ch.ok, (int)ch.total);
	CU_ASSERT_EQUAL(ch.reused, (int)ch.total);
	CU_ASSERT_TRUE(ch.streamed > 0);
	const nl__easy_pool *p = pool_of(c, NL__POOL_ASYNC);
	CU_ASSERT_EQUAL(p->n, 1);
	CU_ASSERT_PTR_EQUAL(p->idle[0], ch.handle);
	char *priv = (char *)1;
	curl_easy_getinfo(p->idle[0], CURLINFO_PRIVATE, &priv);
	CU_ASSERT_PTR_NULL(priv);
	CU_ASSERT_EQUAL(pool_of(c, NL__POOL_BLOCKING)->n, 0);
	CU_ASSERT_EQUAL(ck.seen, (int)ch.total);
	/* One for the requests, one for the streams (the loop's other multi). */
	CU_ASSERT_EQUAL(fake_http_connections(f), 2);
	nl_client_free(c);
	nl_loop_free(loop);
	stop(f, &ck);
}

static void count_ok(nl_response *resp, const nl_result *res, void *payload)
{
	int *ok = payload;
	if (res->code == 0 && resp && resp->http_status == 200)
		(*ok)++;
}

/* More requests at once than the pool keeps: the surplus handles are freed
 * (valgrind sees the kept ones freed with the client). */
static void test_easy_pool__keeps_a_bounded_number_of_handles(void)
{
	checker ck;
	fake_http *f = start(&ck);
	nl_loop *loop = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_loop_new(&loop, NULL), 0);
	nl_client *c = client_at(fake_http_url(f), loop);
	enum { N = NL__EASY_POOL_MAX + 8 };
	char paths[N][128], bodies[N][32];
	int ok = 0;
	for (unsigned i = 0; i < N; i++) {
		nl_request req = request_for(i, i, paths[i], bodies[i]);
		CU_ASSERT_EQUAL(nl_client_send(NULL, c, &req, count_ok, &ok), 0);
	}
	CU_ASSERT_EQUAL(nl_loop_run(loop), 0);
	CU_ASSERT_EQUAL(ok, N);
	CU_ASSERT_EQUAL(pool_of(c, NL__POOL_ASYNC)->n, NL__EASY_POOL_MAX);
	nl_client_free(c);
	nl_loop_free(loop);
	stop(f, &ck);
}

static CU_TestInfo tests[] = {
    {"blocking_requests_reuse_one_handle", test_easy_pool__blocking_requests_reuse_one_handle},
    {"timeout_does_not_outlive_its_request", test_easy_pool__timeout_does_not_outlive_its_request},
    {"threads_share_the_blocking_pool", test_easy_pool__threads_share_the_blocking_pool},
    {"async_callback_reuses_the_finished_handle",
     test_easy_pool__async_callback_reuses_the_finished_handle},
    {"keeps_a_bounded_number_of_handles", test_easy_pool__keeps_a_bounded_number_of_handles},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {{"easy_pool", NULL, NULL, NULL, NULL, tests}, CU_SUITE_INFO_NULL};
