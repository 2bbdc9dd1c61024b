/* The fault gate and the delay timer (gate.h). */
#include "gate.h"

#include <json-c/json.h>
#include <microhttpd.h>
#include <nodelet/time.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "control.h"
#include "core/log.h"
#include "journal.h"

/* ------------------------------------------------------------------------
 * Delays: a sorted list of suspended connections and one timer thread */

typedef struct delay {
	struct delay *next;
	int64_t due; /* monotonic microseconds */
	struct MHD_Connection *conn;
} delay;

struct mock_delays {
	pthread_mutex_t lock;
	pthread_cond_t cond; /* CLOCK_MONOTONIC */
	delay *head;
	int stop;
	pthread_t thread;
	int started;
};

static int64_t mono_usec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void resume_head_locked(mock_delays *d)
{
	delay *e = d->head;
	d->head = e->next;
	MHD_resume_connection(e->conn);
	free(e);
}

static void *delay_thread(void *arg)
{
	mock_delays *d = arg;
	pthread_mutex_lock(&d->lock);
	while (!d->stop) {
		if (!d->head) {
			pthread_cond_wait(&d->cond, &d->lock);
			continue;
		}
		int64_t now = mono_usec();
		if (d->head->due <= now) {
			resume_head_locked(d);
			continue;
		}
		struct timespec until = {(time_t)(d->head->due / 1000000),
		                         (long)(d->head->due % 1000000) * 1000};
		pthread_cond_timedwait(&d->cond, &d->lock, &until);
	}
	while (d->head)
		resume_head_locked(d);
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

int mock_delays_new(mock_delays **out)
{
	pthread_condattr_t attr;
	mock_delays *d = calloc(1, sizeof(*d));
	if (!d)
		return NL_ENOMEM;
	if (pthread_condattr_init(&attr) != 0)
		goto fail;
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	int rc = pthread_cond_init(&d->cond, &attr);
	pthread_condattr_destroy(&attr);
	if (rc != 0)
		goto fail;
	if (pthread_mutex_init(&d->lock, NULL) != 0) {
		pthread_cond_destroy(&d->cond);
		goto fail;
	}
	if (pthread_create(&d->thread, NULL, delay_thread, d) != 0) {
		pthread_mutex_destroy(&d->lock);
		pthread_cond_destroy(&d->cond);
		goto fail;
	}
	d->started = 1;
	*out = d;
	return 0;
fail:
	free(d);
	return NL_ERROR;
}

/* Suspend conn for ms; 0, or -1 when the caller must go on at once
 * (shutting down, out of memory). Suspending and queueing happen under one
 * lock, so the timer cannot resume a connection not yet suspended. */
static int delays_suspend(mock_delays *d, struct MHD_Connection *conn, unsigned ms)
{
	delay *e = d ? malloc(sizeof(*e)) : NULL;
	if (!e)
		return -1;
	e->due = mono_usec() + (int64_t)ms * 1000;
	e->conn = conn;
	pthread_mutex_lock(&d->lock);
	if (d->stop) {
		pthread_mutex_unlock(&d->lock);
		free(e);
		return -1;
	}
	MHD_suspend_connection(conn);
	delay **p = &d->head;
	while (*p && (*p)->due <= e->due)
		p = &(*p)->next;
	e->next = *p;
	*p = e;
	pthread_cond_signal(&d->cond);
	pthread_mutex_unlock(&d->lock);
	return 0;
}

void mock_delays_shutdown(mock_delays *d)
{
	if (!d || !d->started)
		return;
	pthread_mutex_lock(&d->lock);
	d->stop = 1;
	pthread_cond_signal(&d->cond);
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->thread, NULL);
	d->started = 0;
}

void mock_delays_free(mock_delays *d)
{
	if (!d)
		return;
	mock_delays_shutdown(d);
	pthread_mutex_destroy(&d->lock);
	pthread_cond_destroy(&d->cond);
	free(d);
}

/* ------------------------------------------------------------------------
 * Fault answers */

static void status_answer(mock_api *api, const mock_gate_req *g, const mock_request *req,
                          mock_response *resp)
{
	const mock_fault_hit *h = &g->hit;
	if (h->body) {
		mock_response_json(resp, h->status, h->body, strlen(h->body));
		resp->retry_after = h->retry_after;
		return;
	}
	mock_response_status(
	    resp, mock_fault_status(h, &g->attrs, mock_request_query(req, "resourceVersion"),
	                            mock_store_rv(api->store), api->opts->max_body));
}

/* The body a truncate or malformed fault corrupts: the real answer of a
 * read, or for a write what a GET of the same URL answers, so the store
 * stays unchanged. */
static void read_answer(mock_api *api, const mock_request *req, mock_response *resp)
{
	mock_request r = *req;
	if (strcmp(r.method, "GET") != 0) {
		r.method = "GET";
		r.attrs = NULL; /* a get now; the route stays */
		r.body = NULL;
		r.body_len = 0;
		r.body_too_large = 0;
	}
	mock_api_handle(api, &r, resp);
}

static void malform(mock_response *resp, const char *literal)
{
	if (literal) {
		nl_buf_reset(&resp->body);
		nl_buf_adds(&resp->body, literal);
		return;
	}
	/* Half of a JSON document never parses: an object or array stays open. */
	size_t keep = resp->body.len / 2;
	if (keep == 0) {
		nl_buf_reset(&resp->body);
		nl_buf_adds(&resp->body, "{");
		return;
	}
	resp->body.len = keep;
	resp->body.data[keep] = '\0';
}

static void start(mock_api *api, mock_gate_req *g, mock_request *req)
{
	mock_control *ctl = api->ctl;
	g->entered = 1;
	g->start_mono = mono_usec();
	g->start_usec = mock_control_now(ctl);
	g->control = mock_control_is_control_path(api, req->path);
	if (g->control)
		return;
	if (req->attrs)
		g->attrs = *req->attrs;
	else
		mock_request_attrs(&g->attrs, req->method, req->path,
		                   mock_request_query(req, "watch"),
		                   mock_request_query(req, "fieldSelector"));
	/* "" without authentication (access.h sets req->user). */
	mock_fault_request fr = {&g->attrs, req->user_agent, req->user ? req->user : ""};
	g->has_hit = mock_faults_decide(ctl->faults, &fr, &g->hit);
	if (g->has_hit)
		MOCK_LOG_V(2, "fault %s fires for %s %s", g->hit.id, req->method, req->path);
}

mock_gate_step mock_gate_enter(mock_api *api, mock_gate_req *g, struct MHD_Connection *conn,
                               mock_request *req, mock_response *resp)
{
	if (!api->ctl)
		return MOCK_GATE_HANDLE;
	if (!g->entered)
		start(api, g, req);
	if (!g->has_hit)
		return MOCK_GATE_HANDLE;
	if (g->hit.delay_ms && !g->resumed) {
		g->resumed = 1;
		if (delays_suspend(api->ctl->delays, conn, g->hit.delay_ms) == 0)
			return MOCK_GATE_SUSPENDED;
	}
	switch (g->hit.kind) {
	case MOCK_FAULT_DELAY_ONLY:
		return MOCK_GATE_HANDLE;
	case MOCK_FAULT_WATCH:
		req->watch_fault = &g->hit.watch;
		return MOCK_GATE_HANDLE;
	case MOCK_FAULT_DROP:
		return MOCK_GATE_DROP;
	case MOCK_FAULT_STATUS:
		status_answer(api, g, req, resp);
		return MOCK_GATE_ANSWERED;
	case MOCK_FAULT_TRUNCATE:
		read_answer(api, req, resp);
		resp->truncated = 1;
		resp->truncate_at = g->hit.truncate;
		return MOCK_GATE_ANSWERED;
	case MOCK_FAULT_MALFORMED:
		read_answer(api, req, resp);
		malform(resp, g->hit.malformed);
		return MOCK_GATE_ANSWERED;
	}
	return MOCK_GATE_HANDLE;
}

/* The reason of an error answer (a Status body), for the journal. Error
 * bodies are small; success bodies are never parsed. */
static void error_reason(char *out, size_t outlen, const mock_response *resp)
{
	out[0] = '\0';
	if (resp->code < 400 || !resp->body.data || resp->body.len > 64 * 1024)
		return;
	json_object *o = json_tokener_parse(resp->body.data);
	json_object *r = NULL;
	if (o && json_object_object_get_ex(o, "reason", &r) &&
	    json_object_is_type(r, json_type_string))
		snprintf(out, outlen, "%s", json_object_get_string(r));
	json_object_put(o);
}

void mock_gate_leave(mock_api *api, mock_gate_req *g, const mock_request *req,
                     const mock_response *resp)
{
	if (!api->ctl || !g->entered || g->control || g->recorded || api->opts->journal_size == 0)
		return;
	g->recorded = 1;
	const char *keys[MOCK_MAX_QUERY], *values[MOCK_MAX_QUERY];
	for (size_t i = 0; i < req->nquery; i++) {
		keys[i] = req->query[i].key;
		values[i] = req->query[i].value;
	}
	/* Most requests have no query: no string to build. */
	char *query = req->nquery ? mock_journal_query_string(keys, values, req->nquery) : NULL;
	char reason[64] = "";
	if (resp)
		error_reason(reason, sizeof(reason), resp);
	mock_journal_in in = {
	    .time_usec = g->start_usec,
	    .method = req->method,
	    .path = req->path,
	    .attrs = &g->attrs,
	    .query = query ? query : "",
	    .request_bytes = req->body_len,
	    .code = resp ? resp->code : 0,
	    .reason = reason,
	    .user_agent = req->user_agent,
	    .user = req->user ? req->user : "",
	    .duration_usec = mono_usec() - g->start_mono,
	    .fault = g->has_hit ? g->hit.id : NULL,
	};
	mock_journal_record(api->ctl->journal, &in);
	free(query);
}

void mock_gate_req_clear(mock_gate_req *g)
{
	if (g->has_hit)
		mock_fault_hit_clear(&g->hit);
	g->has_hit = 0;
}

/* ------------------------------------------------------------------------
 * Truncated bodies */

typedef struct {
	size_t cut;
	size_t len;
	char data[];
} truncated_body;

static ssize_t truncated_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	const truncated_body *t = cls;
	if (pos >= t->cut)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	size_t n = t->cut - (size_t)pos;
	if (n > max)
		n = max;
	memcpy(buf, t->data + pos, n);
	return (ssize_t)n;
}

struct MHD_Response *mock_gate_truncated_response(const mock_response *resp)
{
	truncated_body *t = malloc(sizeof(*t) + resp->body.len + 1);
	if (!t)
		return NULL;
	t->len = resp->body.len;
	t->cut = resp->truncate_at < t->len ? resp->truncate_at : t->len;
	if (t->len)
		memcpy(t->data, resp->body.data, t->len);
	struct MHD_Response *r =
	    MHD_create_response_from_callback(t->len, 4096, truncated_read, t, free);
	if (!r)
		free(t);
	return r;
}
