/* Handler workers and the request deadline (runner.h). */
#include "runner.h"

#include <microhttpd.h>
#include <nodelet/errors.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/route.h"
#include "core/log.h"

typedef enum {
	JOB_PENDING,   /* queued or running */
	JOB_DONE,      /* answered; the connection is resumed */
	JOB_TIMED_OUT, /* the deadline passed first; resumed for the 504 */
	JOB_CUT,       /* shutting down; resumed to be closed */
	JOB_ABANDONED, /* the connection is gone */
} job_state;

struct mock_job {
	job_state state;
	int refs;   /* the connection's and the worker's */
	int queued; /* in the queue, not yet picked */
	struct MHD_Connection *conn;
	int64_t deadline;
	mock_job *qnext;         /* the queue */
	mock_job *pprev, *pnext; /* the pending list, for the deadline */
	mock_request req;        /* copies, in strings */
	mock_route route;
	mock_req_attrs attrs;
	mock_watch_fault watch_fault;
	nl_buf body;
	const char **groups;
	char *strings;
	mock_response resp;
};

struct mock_runner {
	pthread_mutex_t mu;
	pthread_cond_t work;  /* a job queued, or stopping */
	pthread_cond_t timer; /* a deadline sooner than the timer waits for */
	pthread_cond_t idle;  /* a handler finished */
	mock_api *api;
	pthread_t *threads, timer_thread;
	unsigned nthreads, started;
	int timer_started, stopping;
	unsigned running;
	mock_job *qhead, *qtail;
	mock_job *pending; /* every JOB_PENDING job */
};

int64_t mock_runner_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void mock_response_timeout(mock_response *resp)
{
	/* metav1.Status through json.NewEncoder: no kind or apiVersion (the
	 * filter encodes the bare struct), metadata and details present (a
	 * struct is never omitempty's "empty"), a trailing newline; and no
	 * Content-Type set, so net/http sniffs plain text from the bytes. */
	static const char body[] =
	    "{\"metadata\":{},\"status\":\"Failure\",\"message\":\"Timeout: request did not "
	    "complete within the allotted timeout\",\"reason\":\"Timeout\",\"details\":{},"
	    "\"code\":504}\n";
	mock_response_free(resp);
	mock_response_init(resp);
	nl_buf_add(&resp->body, body, sizeof(body) - 1);
	resp->code = 504;
	resp->content_type = "text/plain; charset=utf-8";
}

static void unlink_pending(mock_runner *r, mock_job *j)
{
	if (j->pprev)
		j->pprev->pnext = j->pnext;
	else if (r->pending == j)
		r->pending = j->pnext;
	if (j->pnext)
		j->pnext->pprev = j->pprev;
	j->pprev = j->pnext = NULL;
}

static void dequeue(mock_runner *r, mock_job *j)
{
	mock_job **p = &r->qhead, *prev = NULL;
	while (*p && *p != j)
		prev = *p, p = &(*p)->qnext;
	if (!*p)
		return;
	*p = j->qnext;
	if (r->qtail == j)
		r->qtail = prev;
	j->queued = 0;
}

static void job_free(mock_job *j)
{
	mock_response_free(&j->resp);
	nl_buf_free(&j->body);
	free(j->groups);
	free(j->strings);
	free(j);
}

/* Under mu: drop n references. */
static void unref_n(mock_job *j, int n)
{
	j->refs -= n;
	if (j->refs == 0)
		job_free(j);
}

static void unref(mock_job *j)
{
	unref_n(j, 1);
}

/* Under mu: leave JOB_PENDING for state and wake the connection. */
static void finish(mock_runner *r, mock_job *j, job_state state)
{
	unlink_pending(r, j);
	j->state = state;
	MHD_resume_connection(j->conn);
}

static void *worker_main(void *payload)
{
	mock_runner *r = payload;
	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (!r->qhead && !r->stopping)
			pthread_cond_wait(&r->work, &r->mu);
		if (!r->qhead)
			break;
		mock_job *j = r->qhead;
		r->qhead = j->qnext;
		if (!r->qhead)
			r->qtail = NULL;
		j->queued = 0;
		r->running++;
		pthread_mutex_unlock(&r->mu);
		mock_api_handle(r->api, &j->req, &j->resp);
		pthread_mutex_lock(&r->mu);
		r->running--;
		pthread_cond_broadcast(&r->idle);
		if (j->state == JOB_PENDING)
			finish(r, j, JOB_DONE);
		else if (j->state == JOB_TIMED_OUT)
			MOCK_LOG_V(1, "Post-timeout activity", NL_KV_STR("verb", j->req.method),
			           NL_KV_STR("URI", j->req.path), NL_KV_INT("resp", j->resp.code));
		unref(j);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

static void *timer_main(void *payload)
{
	mock_runner *r = payload;
	pthread_mutex_lock(&r->mu);
	while (!r->stopping) {
		int64_t now = mock_runner_now(), next = now + 1000000;
		for (mock_job *j = r->pending, *n; j; j = n) {
			n = j->pnext;
			if (j->deadline <= now)
				finish(r, j, JOB_TIMED_OUT);
			else if (j->deadline < next)
				next = j->deadline;
		}
		/* The condition variable waits on the realtime clock. */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		int64_t wait = next - now;
		ts.tv_sec += wait / 1000000;
		ts.tv_nsec += (long)(wait % 1000000) * 1000;
		if (ts.tv_nsec >= 1000000000L)
			ts.tv_sec++, ts.tv_nsec -= 1000000000L;
		pthread_cond_timedwait(&r->timer, &r->mu, &ts);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

int mock_runner_new(mock_runner **out, mock_api *api, unsigned threads)
{
	mock_runner *r = calloc(1, sizeof(*r));
	if (!r)
		return NL_ENOMEM;
	r->threads = calloc(threads ? threads : 1, sizeof(*r->threads));
	if (!r->threads) {
		free(r);
		return NL_ENOMEM;
	}
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->work, NULL);
	pthread_cond_init(&r->timer, NULL);
	pthread_cond_init(&r->idle, NULL);
	r->api = api;
	r->nthreads = threads ? threads : 1;
	int rc = pthread_create(&r->timer_thread, NULL, timer_main, r) == 0 ? 0 : NL_EIO;
	r->timer_started = rc == 0;
	for (; rc == 0 && r->started < r->nthreads; r->started++)
		if (pthread_create(&r->threads[r->started], NULL, worker_main, r) != 0)
			rc = NL_EIO;
	if (rc != 0) {
		mock_runner_shutdown(r, 0);
		mock_runner_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

unsigned mock_runner_shutdown(mock_runner *r, unsigned grace_ms)
{
	if (!r)
		return 0;
	pthread_mutex_lock(&r->mu);
	r->stopping = 1;
	/* Queued jobs will not run: their connections are closed. */
	while (r->qhead) {
		mock_job *j = r->qhead;
		r->qhead = j->qnext;
		j->queued = 0;
		if (j->state == JOB_PENDING)
			finish(r, j, JOB_CUT);
		unref(j);
	}
	r->qtail = NULL;
	pthread_cond_broadcast(&r->work);
	pthread_cond_broadcast(&r->timer);
	int64_t end = mock_runner_now() + (int64_t)grace_ms * 1000;
	while (r->running && mock_runner_now() < end) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 20 * 1000000L;
		if (ts.tv_nsec >= 1000000000L)
			ts.tv_sec++, ts.tv_nsec -= 1000000000L;
		pthread_cond_timedwait(&r->idle, &r->mu, &ts);
	}
	/* Past the grace period the connections of handlers still running are
	 * cut; the handlers go on and their answers are dropped. */
	while (r->pending)
		finish(r, r->pending, JOB_CUT);
	unsigned left = r->running;
	pthread_mutex_unlock(&r->mu);
	return left;
}

void mock_runner_wait(mock_runner *r)
{
	pthread_mutex_lock(&r->mu);
	while (r->running)
		pthread_cond_wait(&r->idle, &r->mu);
	pthread_mutex_unlock(&r->mu);
}

unsigned mock_runner_running(mock_runner *r)
{
	pthread_mutex_lock(&r->mu);
	unsigned n = r->running;
	pthread_mutex_unlock(&r->mu);
	return n;
}

int mock_runner_free(mock_runner *r)
{
	if (!r)
		return 0;
	pthread_mutex_lock(&r->mu);
	unsigned left = r->running;
	pthread_mutex_unlock(&r->mu);
	if (left) {
		MOCK_LOG_WARN("Request handlers still running at exit",
		              NL_KV_UINT("handlers", left));
		return -1;
	}
	for (unsigned i = 0; i < r->started; i++)
		pthread_join(r->threads[i], NULL);
	if (r->timer_started)
		pthread_join(r->timer_thread, NULL);
	free(r->threads);
	pthread_cond_destroy(&r->idle);
	pthread_cond_destroy(&r->timer);
	pthread_cond_destroy(&r->work);
	pthread_mutex_destroy(&r->mu);
	free(r);
	return 0;
}

/* The request's strings, one allocation. */
static size_t span(const char *s)
{
	return s ? strlen(s) + 1 : 0;
}

static const char *put(char **p, const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	memcpy(*p, s, n);
	const char *out = *p;
	*p += n;
	return out;
}

static int copy_request(mock_job *j, const mock_request *req)
{
	size_t total = span(req->method) + span(req->path) + span(req->content_type) +
	               span(req->accept) + span(req->user_agent) + span(req->if_none_match) +
	               span(req->user) + span(req->uid);
	for (size_t i = 0; i < req->nquery; i++)
		total += span(req->query[i].key) + span(req->query[i].value);
	for (size_t i = 0; i < req->ngroups; i++)
		total += span(req->groups[i]);
	j->strings = malloc(total ? total : 1);
	j->groups = calloc(req->ngroups + 1, sizeof(*j->groups));
	if (!j->strings || !j->groups)
		return -1;
	char *p = j->strings;
	mock_request *c = &j->req;
	*c = *req;
	c->method = put(&p, req->method);
	c->path = put(&p, req->path);
	c->content_type = put(&p, req->content_type);
	c->accept = put(&p, req->accept);
	c->user_agent = put(&p, req->user_agent);
	c->if_none_match = put(&p, req->if_none_match);
	c->user = put(&p, req->user);
	c->uid = put(&p, req->uid);
	for (size_t i = 0; i < req->nquery; i++) {
		c->query[i].key = put(&p, req->query[i].key);
		c->query[i].value = put(&p, req->query[i].value);
	}
	for (size_t i = 0; i < req->ngroups; i++)
		j->groups[i] = put(&p, req->groups[i]);
	c->groups = req->groups ? j->groups : NULL;
	if (req->watch_fault) {
		j->watch_fault = *req->watch_fault;
		c->watch_fault = &j->watch_fault;
	}
	/* The route and attributes again, from the copies (they may point
	 * into each other). */
	c->route = NULL;
	c->attrs = NULL;
	if (req->route) {
		j->route = mock_route_parse(c->path);
		mock_request_attrs_of_route(&j->attrs, &j->route, c->method,
		                            mock_request_query(c, "watch"),
		                            mock_request_query(c, "fieldSelector"));
		c->route = &j->route;
		c->attrs = &j->attrs;
	}
	return 0;
}

mock_job *mock_runner_submit(mock_runner *r, struct MHD_Connection *conn, const mock_request *req,
                             nl_buf *body, int64_t deadline_mono)
{
	mock_job *j = calloc(1, sizeof(*j));
	if (!j)
		return NULL;
	mock_response_init(&j->resp);
	if (copy_request(j, req) != 0) {
		job_free(j);
		return NULL;
	}
	/* The body's buffer moves to the job: the connection's context may
	 * be gone before the handler is. */
	j->body = *body;
	nl_buf_init(body, body->cap);
	j->req.body = j->body.data;
	j->req.body_len = j->body.len;
	j->conn = conn;
	j->deadline = deadline_mono;
	j->refs = 2;
	pthread_mutex_lock(&r->mu);
	if (r->stopping) {
		pthread_mutex_unlock(&r->mu);
		*body = j->body; /* back, for the inline run */
		nl_buf_init(&j->body, 0);
		job_free(j);
		return NULL;
	}
	/* Suspended under mu: no worker or timer can resume it before. */
	MHD_suspend_connection(conn);
	j->queued = 1;
	if (r->qtail)
		r->qtail->qnext = j;
	else
		r->qhead = j;
	r->qtail = j;
	j->pnext = r->pending;
	if (r->pending)
		r->pending->pprev = j;
	r->pending = j;
	pthread_cond_signal(&r->work);
	pthread_cond_signal(&r->timer);
	pthread_mutex_unlock(&r->mu);
	return j;
}

int mock_runner_take(mock_runner *r, mock_job *j, mock_response *resp)
{
	int rc = 0;
	pthread_mutex_lock(&r->mu);
	switch (j->state) {
	case JOB_DONE:
		mock_response_free(resp);
		*resp = j->resp;
		mock_response_init(&j->resp);
		break;
	case JOB_TIMED_OUT:
		mock_response_timeout(resp);
		break;
	default:
		rc = -1;
		break;
	}
	int drop = 1;
	if (j->queued) { /* timed out before a worker was free: it never runs */
		dequeue(r, j);
		drop++;
	}
	j->state = JOB_ABANDONED;
	unref_n(j, drop);
	pthread_mutex_unlock(&r->mu);
	return rc;
}

void mock_runner_abandon(mock_runner *r, mock_job *j)
{
	pthread_mutex_lock(&r->mu);
	if (j->state == JOB_PENDING)
		unlink_pending(r, j);
	int drop = 1;
	if (j->queued) {
		dequeue(r, j);
		drop++;
	}
	j->state = JOB_ABANDONED;
	unref_n(j, drop);
	pthread_mutex_unlock(&r->mu);
}
