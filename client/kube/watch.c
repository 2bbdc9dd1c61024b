/* A watch that resumes from the last resourceVersion it saw, on the loop. */
#include <nodelet/meta.h>
#include <nodelet/watch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube.h"

/* client-go's reflector: backoff 800 ms doubling to 30 s (jitter 1.0), watch
 * requests of 5 to 10 minutes. */
#define BACKOFF_START (800 * NL_USEC_PER_MSEC)
#define BACKOFF_MAX (30 * NL_USEC_PER_SEC)
#define MIN_WATCH_SECONDS 300

struct nl_watch {
	nl_client *client;
	char *path, *label_selector, *field_selector;
	char *rv; /* resume point; "" = none yet */
	int timeout_seconds;
	int deliver_bookmarks;
	nl_watch_decoder *dec;
	nl_watch_event_cb on_event;
	nl_watch_error_cb on_error;
	void *payload;
	nl_call *call;
	uint64_t timer;
	int64_t backoff;
	int64_t started; /* clock time the current request began */
	nl_rand rnd;
	unsigned requests;
	int events; /* events seen by the current request */
	int depth;  /* inside our own callbacks */
	int stopping;
	int abort_feed;  /* the stream being decoded was abandoned */
	nl_result error; /* an ERROR event's Status */
	int has_error;
	int gone; /* waiting for nl_watch_restart */
};

static void connect_now(nl_watch *w);

static void watch_free(nl_watch *w)
{
	if (w->timer)
		nl_clock_cancel(nl_client_clock(w->client), w->timer);
	nl_call_cancel(w->call);
	nl_watch_decoder_free(w->dec);
	nl__result_reset(&w->error);
	free(w->path);
	free(w->label_selector);
	free(w->field_selector);
	free(w->rv);
	free(w);
}

static int set_rv(nl_watch *w, const char *rv)
{
	char *copy = strdup(rv ? rv : "");
	if (!copy)
		return NL_ENOMEM;
	free(w->rv);
	w->rv = copy;
	return 0;
}

static void report(nl_watch *w, const nl_result *res)
{
	if (!w->on_error)
		return;
	w->depth++;
	w->on_error(res, w->payload);
	w->depth--;
}

/* Every decoded event: track the resume point, answer ERROR events. */
static int on_decoded(const nl_watch_event *ev, void *payload)
{
	nl_watch *w = payload;
	if (w->abort_feed || w->stopping)
		return 1;
	if (ev->type == NL_WATCH_ERROR) {
		nl_status *st = NULL;
		nl__result_reset(&w->error);
		if (nl_status_from_json(&st, ev->object) == 0) {
			w->error.status = st;
			w->error.code = nl_status_error_code(st);
			w->error.http_status = st->code;
			snprintf(w->error.message, sizeof(w->error.message), "%s",
			         st->message ? st->message : "watch ERROR event");
		} else {
			nl__result_fail(&w->error, NL_EPARSE, "watch ERROR event without a Status");
		}
		if (w->error.code == 0)
			w->error.code = NL_ERROR;
		w->has_error = 1;
		return 1; /* the server ends the stream after an ERROR event */
	}
	const char *rv = nl_meta_resource_version(ev->object);
	if (rv && *rv && set_rv(w, rv) != 0)
		return NL_ENOMEM;
	w->events++;
	w->backoff = BACKOFF_START;
	if (ev->type == NL_WATCH_BOOKMARK && !w->deliver_bookmarks)
		return 0;
	w->depth++;
	w->on_event(ev, w->payload);
	w->depth--;
	return w->stopping || w->abort_feed ? 1 : 0;
}

static int on_data(const char *data, size_t len, void *payload)
{
	nl_watch *w = payload;
	nl_err err = {0};
	w->abort_feed = 0;
	int rc = nl_watch_decoder_feed(w->dec, data, len, &err);
	if (rc < 0) {
		/* Garbage on the stream: drop the connection and resume. */
		nl__result_reset(&w->error);
		nl__result_fail(&w->error, rc, "%s", err.msg);
		w->has_error = 1;
	}
	return rc != 0;
}

/* The answer's Content-Type says how its stream is framed: JSON lines, or
 * protobuf frames (…protobuf;stream=watch), whatever was asked for. */
static int on_stream_start(const char *content_type, void *payload)
{
	nl_watch *w = payload;
	nl_watch_decoder_set_protobuf(w->dec, nl__is_protobuf(content_type));
	return 0;
}

static void reconnect_due(void *payload)
{
	nl_watch *w = payload;
	w->timer = 0;
	connect_now(w);
}

static void schedule(nl_watch *w, int64_t delay)
{
	nl_clock *clock = nl_client_clock(w->client);
	if (delay <= 0) {
		connect_now(w);
		return;
	}
	if (nl_clock_after(&w->timer, clock, delay, reconnect_due, w) != 0)
		connect_now(w); /* no memory for a timer: try at once */
}

static int64_t next_backoff(nl_watch *w)
{
	int64_t d = nl_jitter(w->backoff, 1.0, &w->rnd);
	w->backoff *= 2;
	if (w->backoff > BACKOFF_MAX)
		w->backoff = BACKOFF_MAX;
	return d > BACKOFF_MAX ? BACKOFF_MAX : d;
}

static void on_done(nl_response *resp, const nl_result *res, void *payload)
{
	nl_watch *w = payload;
	nl_result own = NL_RESULT_INIT;
	const nl_result *end = res;
	(void)resp;
	w->call = NULL;
	if (w->stopping) {
		watch_free(w);
		return;
	}
	if (w->has_error) {
		nl_result_move(&own, &w->error);
		w->has_error = 0;
		end = &own;
	} else if (res->code == 0) {
		nl_err err = {0};
		if (nl_watch_decoder_finish(w->dec, &err) != 0)
			nl__result_fail(&own, NL_ETRANSPORT, "%s", err.msg);
		end = &own;
	}
	int64_t delay = -1; /* -1: no reconnect */
	if (end->code == NL_EGONE) {
		w->gone = 1;
	} else if (end->code != 0) {
		delay = next_backoff(w);
	} else {
		/* A clean end (the server's timeout) resumes at once, unless the
		 * stream ended as soon as it began: a failure in disguise. */
		int64_t lasted = nl_clock_mono(nl_client_clock(w->client)) - w->started;
		delay = w->events == 0 && lasted < NL_USEC_PER_SEC ? next_backoff(w) : 0;
	}
	if (end->code != 0)
		report(w, end);
	nl__result_reset(&own);
	if (w->stopping) {
		watch_free(w);
		return;
	}
	/* The error callback may have restarted the watch already. */
	if (delay >= 0 && !w->call && !w->timer && !w->gone)
		schedule(w, delay);
}

static int add_query(nl_buf *b, const char *key, const char *value)
{
	if (!value || !*value)
		return 0;
	char *e = curl_easy_escape(NULL, value, 0);
	if (!e)
		return NL_ENOMEM;
	int rc = nl_buf_printf(b, "&%s=%s", key, e);
	curl_free(e);
	return rc;
}

static void connect_now(nl_watch *w)
{
	nl_buf path;
	int timeout = w->timeout_seconds;
	if (timeout <= 0)
		timeout = MIN_WATCH_SECONDS + (int)(nl_rand_next(&w->rnd) % MIN_WATCH_SECONDS);
	nl_buf_init(&path, 0);
	int rc = nl_buf_printf(&path, "%s?watch=true&allowWatchBookmarks=true&timeoutSeconds=%d",
	                       w->path, timeout);
	if (!rc)
		rc = add_query(&path, "resourceVersion", w->rv);
	if (!rc)
		rc = add_query(&path, "labelSelector", w->label_selector);
	if (!rc)
		rc = add_query(&path, "fieldSelector", w->field_selector);
	nl_request req = {0};
	req.method = "GET";
	req.path = path.data;
	req.on_data = on_data;
	req.on_stream_start = on_stream_start;
	req.data_payload = w;
	/* A dead peer must not hold the watch forever: the server ends the
	 * request after timeoutSeconds, so allow that plus a minute. */
	req.timeout_ms = ((long)timeout + 60) * 1000;
	nl_watch_decoder_reset(w->dec);
	w->events = 0;
	w->started = nl_clock_mono(nl_client_clock(w->client));
	if (!rc)
		rc = nl_client_send(&w->call, w->client, &req, on_done, w);
	nl_buf_free(&path);
	w->requests++;
	if (rc != 0) {
		/* Out of memory: try again later rather than give up. */
		w->call = NULL;
		if (nl_clock_after(&w->timer, nl_client_clock(w->client), next_backoff(w),
		                   reconnect_due, w) != 0)
			w->timer = 0;
	}
}

int nl_watch_start(nl_watch **out, nl_client *c, const nl_watch_options *o)
{
	if (!c || !o || !o->path || o->path[0] != '/' || !o->on_event)
		return NL_EINVAL;
	nl_watch *w = calloc(1, sizeof(*w));
	if (!w)
		return NL_ENOMEM;
	w->client = c;
	w->path = strdup(o->path);
	w->label_selector = o->label_selector ? strdup(o->label_selector) : NULL;
	w->field_selector = o->field_selector ? strdup(o->field_selector) : NULL;
	w->timeout_seconds = o->timeout_seconds;
	w->deliver_bookmarks = o->deliver_bookmarks;
	w->on_event = o->on_event;
	w->on_error = o->on_error;
	w->payload = o->payload;
	w->backoff = BACKOFF_START;
	nl_rand_seed(&w->rnd, (uint64_t)(uintptr_t)w ^ (uint64_t)nl_clock_mono(nl_client_clock(c)));
	if (!w->path || (o->label_selector && !w->label_selector) ||
	    (o->field_selector && !w->field_selector) || set_rv(w, o->resource_version) != 0 ||
	    nl_watch_decoder_new(&w->dec, o->max_event, on_decoded, w) != 0) {
		watch_free(w);
		return NL_ENOMEM;
	}
	connect_now(w);
	*out = w;
	return 0;
}

void nl_watch_stop(nl_watch *w)
{
	if (!w)
		return;
	if (w->depth > 0 || w->stopping) {
		/* Inside our own callback: free once it returns. */
		w->stopping = 1;
		w->abort_feed = 1;
		return;
	}
	watch_free(w);
}

int nl_watch_restart(nl_watch *w, const char *resource_version)
{
	if (!w || w->stopping)
		return NL_EINVAL;
	if (w->timer) {
		nl_clock_cancel(nl_client_clock(w->client), w->timer);
		w->timer = 0;
	}
	if (w->call) {
		nl_call_cancel(w->call);
		w->call = NULL;
		w->abort_feed = 1;
	}
	int rc = set_rv(w, resource_version);
	if (rc != 0)
		return rc;
	w->gone = 0;
	w->has_error = 0;
	w->backoff = BACKOFF_START;
	connect_now(w);
	return 0;
}

const char *nl_watch_resource_version(const nl_watch *w)
{
	return w->rv;
}

unsigned nl_watch_requests(const nl_watch *w)
{
	return w->requests;
}
