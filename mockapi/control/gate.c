/* The fault gate (gate.h): faults decided and answered, the journal entry
 * written, around every request. */
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
#include "delays.h"
#include "journal.h"
#include "nonresource/metrics.h"

static int64_t mono_usec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ------------------------------------------------------------------------
 * Fault answers */

static void status_answer(mock_control *ctl, const mock_gate_req *g, const mock_request *req,
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
	                            mock_store_rv(ctl->api->store), ctl->api->opts->max_body));
}

/* The body a truncate or malformed fault corrupts: the real answer of a
 * read, or for a write what a GET of the same URL answers, so the store
 * stays unchanged. */
static void read_answer(mock_control *ctl, const mock_request *req, mock_response *resp)
{
	mock_request r = *req;
	if (strcmp(r.method, "GET") != 0) {
		r.method = "GET";
		r.attrs = NULL; /* a get now; the route stays */
		r.body = NULL;
		r.body_len = 0;
		r.body_too_large = 0;
	}
	mock_api_handle(ctl->api, &r, resp);
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

/* The action label of nodelet_mockapi_injected_faults_total. */
static mock_metrics_fault metrics_action(mock_fault_kind kind)
{
	switch (kind) {
	case MOCK_FAULT_STATUS:
		return MOCK_METRICS_FAULT_STATUS;
	case MOCK_FAULT_DROP:
		return MOCK_METRICS_FAULT_DROP;
	case MOCK_FAULT_TRUNCATE:
		return MOCK_METRICS_FAULT_TRUNCATE;
	case MOCK_FAULT_MALFORMED:
		return MOCK_METRICS_FAULT_MALFORMED;
	case MOCK_FAULT_WATCH:
		return MOCK_METRICS_FAULT_WATCH;
	default:
		return MOCK_METRICS_FAULT_DELAY;
	}
}

static void start(mock_control *ctl, mock_gate_req *g, mock_request *req)
{
	g->entered = 1;
	g->start_mono = mono_usec();
	g->start_usec = mock_control_now(ctl);
	g->control = mock_control_is_control_path(ctl, req->path);
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
	if (!g->has_hit)
		return;
	MOCK_LOG_V(2, "Fault fires", NL_KV_STR("fault", g->hit.id), NL_KV_STR("verb", req->method),
	           NL_KV_STR("URI", req->path));
	mock_metrics_count_fault(ctl->api->metrics, metrics_action(g->hit.kind));
}

mock_gate_step mock_gate_enter(mock_control *ctl, mock_gate_req *g, struct MHD_Connection *conn,
                               mock_request *req, mock_response *resp)
{
	if (!ctl)
		return MOCK_GATE_HANDLE;
	if (!g->entered)
		start(ctl, g, req);
	if (!g->has_hit)
		return MOCK_GATE_HANDLE;
	if (g->hit.delay_ms && !g->resumed) {
		g->resumed = 1;
		unsigned ms = g->hit.delay_ms;
		if (g->max_delay_ms && ms > g->max_delay_ms)
			ms = g->max_delay_ms;
		if (mock_delays_suspend(ctl->delays, conn, ms) == 0)
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
		status_answer(ctl, g, req, resp);
		return MOCK_GATE_ANSWERED;
	case MOCK_FAULT_TRUNCATE:
		read_answer(ctl, req, resp);
		resp->truncated = 1;
		resp->truncate_at = g->hit.truncate;
		return MOCK_GATE_ANSWERED;
	case MOCK_FAULT_MALFORMED:
		read_answer(ctl, req, resp);
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

void mock_gate_leave(mock_control *ctl, mock_gate_req *g, const mock_request *req,
                     const mock_response *resp)
{
	if (!ctl || !g->entered || g->control || g->recorded || ctl->api->opts->journal_size == 0)
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
	mock_journal_record(ctl->journal, &in);
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
