/* GET <collection>?watch=true as kube-apiserver 1.32 answers it: query
 * decoding (400), ListOptions validation (422, WatchList enabled as in
 * 1.32), selectors and resourceVersion checked by the store, then the
 * starting point:
 *   resourceVersion unset/"0"     → ADDED for the current objects, then changes
 *   "N"                           → changes after N (410 ERROR when too old)
 *   sendInitialEvents=true        → ADDED for the state at least as new as
 *                                   resourceVersion, then (with bookmarks) the
 *                                   k8s.io/initial-events-end BOOKMARK
 *   sendInitialEvents=false       → changes after N, or from now when unset/"0"
 * Also the LIST-side check for resourceVersionMatch=Exact. */
#include <inttypes.h>
#include <nodelet/meta.h>
#include <nodelet/protobuf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api.h"
#include "api/validation.h"
#include "auth/request_limits.h"
#include "core/log.h"
#include "core/query.h"
#include "encoding/negotiation.h"
#include "encoding/table.h"
#include "handlers.h"
#include "handlers_internal.h"
#include "nonresource/metrics.h"
#include "storage/store.h"
#include "watch/watch.h"

/* --min-request-timeout of kube-apiserver: a watch without timeoutSeconds
 * lasts 1800 s × [1, 2). */
#define MIN_REQUEST_TIMEOUT_MS 1800000LL

typedef struct {
	const char *rv;    /* resourceVersion; NULL when unset or empty */
	const char *match; /* resourceVersionMatch; NULL when unset or empty */
	int send_initial;  /* sendInitialEvents: -1 unset, 0, 1 */
	int bookmarks;     /* allowWatchBookmarks */
	int has_timeout;
	long long timeout_s;
} watch_query;

static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

static nl_status *parse_query(watch_query *q, const mock_request *req)
{
	memset(q, 0, sizeof(*q));
	q->rv = nonempty(mock_request_query(req, "resourceVersion"));
	q->match = nonempty(mock_request_query(req, "resourceVersionMatch"));
	q->send_initial = mock_request_query_bool(req, "sendInitialEvents");
	q->bookmarks = mock_request_query_bool(req, "allowWatchBookmarks") == 1;
	const char *t = mock_request_query(req, "timeoutSeconds");
	if (!t)
		return NULL;
	nl_status *bad = mock__handlers_query_int64(&q->timeout_s, t);
	if (bad)
		return bad;
	q->has_timeout = 1;
	return NULL;
}

/* ValidateListOptions for a watch (apimachinery's validateWatchOptions). */
static nl_status *validate(const watch_query *q, const mock_request *req)
{
	static const char *const not_older_than[] = {"NotOlderThan", NULL};
	mock_ferrs e;
	mock_ferrs_init(&e);
	if (q->send_initial >= 0 && (!q->match || strcmp(q->match, "NotOlderThan") != 0))
		mock_ferr_forbidden(&e, "resourceVersionMatch",
		                    "sendInitialEvents requires setting resourceVersionMatch to "
		                    "NotOlderThan");
	if (q->match) {
		if (q->send_initial < 0)
			mock_ferr_forbidden(&e, "resourceVersionMatch",
			                    "resourceVersionMatch is forbidden for watch unless "
			                    "sendInitialEvents is provided");
		if (strcmp(q->match, "NotOlderThan") != 0) {
			json_object *v = json_object_new_string(q->match);
			mock_ferr_not_supported(&e, "resourceVersionMatch", v, not_older_than);
			json_object_put(v);
		}
		if (nonempty(mock_request_query(req, "continue")))
			mock_ferr_forbidden(&e, "resourceVersionMatch",
			                    "resourceVersionMatch is forbidden when continue is "
			                    "provided");
	}
	nl_status *st = e.n ? mock_ferrs_to_status(&e, "ListOptions", "meta.k8s.io", "") : NULL;
	mock_ferrs_free(&e);
	return st;
}

static int64_t timeout_ms(const watch_query *q)
{
	/* Any int64 parses (upstream multiplies it into a Duration, which
	 * wraps); past a century a watch simply never ends, and its deadline,
	 * now plus this, stays far from overflowing. */
	const int64_t century_s = 100LL * 365 * 86400;
	if (q->has_timeout && q->timeout_s != 0)
		return q->timeout_s <= 0
		           ? -1
		           : (q->timeout_s < century_s ? q->timeout_s : century_s) * 1000;
	/* Spread like the apiserver so many watchers do not reconnect at once. */
	int64_t now = mock_watch_now_ms();
	uint64_t x = (uint64_t)now * 6364136223846793005ULL + (uint64_t)(uintptr_t)q;
	x ^= x >> 29;
	return MIN_REQUEST_TIMEOUT_MS + (int64_t)(x % (uint64_t)MIN_REQUEST_TIMEOUT_MS);
}

typedef struct {
	mock_watch_initial *lines;
	const mock_watch_spec *spec;
	uint64_t count;
	uint64_t limit; /* 0: no limit */
} snapshot_ctx;

static int add_initial(const char *json, size_t len, void *payload)
{
	snapshot_ctx *c = payload;
	if (c->limit && c->count == c->limit)
		return 0;
	c->count++;
	return mock_watch_initial_add(c->lines, c->spec, "ADDED", json, len);
}

/* Selectors as for a list; 400 with the parser's message. */
static nl_status *parse_selectors(mock_watch_spec *spec, const mock_request *req)
{
	nl_err err = {0};
	if (nl_label_selector_parse(&spec->labels, mock_request_query(req, "labelSelector"),
	                            &err) != 0 ||
	    nl_field_selector_parse(&spec->fields, mock_request_query(req, "fieldSelector"),
	                            &err) != 0)
		return nl_status_bad_request(err.msg);
	return NULL;
}

/* Where the stream starts, with the initial events in lines. A Status
 * return is an HTTP error; *stream_err set means a stream of one ERROR. */
static nl_status *starting_point(mock_watch_spec *spec, mock_watch_initial *lines,
                                 nl_status **stream_err, int *full, mock_api *api,
                                 const watch_query *q)
{
	mock_list_opts o = {.ns = spec->ns, .labels = spec->labels, .fields = spec->fields};
	snapshot_ctx c = {lines, spec, 0, spec->limited ? spec->events_left : 0};
	nl_status *st = NULL;
	uint64_t n = 0, at = 0;
	if (nl_rv_parse(&n, q->rv) != 0) {
		/* The store words a malformed resourceVersion as for a list. */
		o.resource_version = q->rv;
		mock_store_visit(api->store, spec->r, &o, NULL, NULL, &at, &st);
		return st ? st : nl_status_bad_request("invalid resource version");
	}
	int initial = q->send_initial == 1 || (q->send_initial < 0 && n == 0);
	if (q->send_initial == 1)
		o.resource_version = q->rv; /* at least as new as that */
	int rc =
	    mock_store_visit(api->store, spec->r, &o, initial ? add_initial : NULL, &c, &at, &st);
	if (rc == NL_ETIMEOUT && initial) {
		/* The cacher waits for a newer resourceVersion, then fails the
		 * stream, not the request. */
		*stream_err = st;
		spec->error = st;
		return NULL;
	}
	if (rc == NL_ETOOBIG && !st) {
		*full = 1; /* --watch-buffer-bytes: 429, as past --max-watches */
		return NULL;
	}
	if (rc != 0)
		return st ? st : nl_status_internal("the initial events do not fit in memory");
	if (spec->limited)
		spec->events_left -= c.count; /* initial events count towards the limit */
	if (initial) {
		spec->rv = at;
		if (q->send_initial == 1 && q->bookmarks &&
		    (rc = mock_watch_initial_bookmark(lines, spec, at, 1)) != 0) {
			if (rc != NL_ETOOBIG)
				return nl_status_internal("out of memory");
			*full = 1;
		}
	} else if (q->send_initial == 0 && n == 0) {
		spec->rv = at; /* no initial state and any resourceVersion: from now */
	} else {
		spec->rv = n;
		spec->check_expired = 1;
	}
	return NULL;
}

/* A watch fault from the gate (faults.h) shapes the stream: close after N
 * events, one 410 ERROR, or silence. Returns 1 when the stream is decided
 * here (expire, stall) and needs no snapshot. */
static int apply_fault(mock_watch_spec *spec, nl_status **stream_err, mock_api *api,
                       const mock_request *req, const watch_query *q)
{
	const mock_watch_fault *f = req->watch_fault;
	if (!f)
		return 0;
	if (f->close_after_events > 0) {
		spec->limited = 1;
		spec->events_left = f->close_after_events;
		return 0;
	}
	if (f->stall) {
		spec->stall = 1;
		return 1;
	}
	*stream_err =
	    nl_status_expired(q->rv ? q->rv : "0", mock_watch_hub_oldest(api->watch, spec->r));
	spec->error = *stream_err;
	return 1;
}

/* PartialObjectMetadata events (metadata informers): the version to write. */
static int partial_encode(nl_buf *out, const mock_resource *r, const char *type, const char *json,
                          size_t len, void *payload)
{
	(void)r, (void)type;
	return mock_partial_object(out, json, len, payload);
}

/* What the client asked each event's object to be (negotiation.h; the
 * router has already refused what is not served): the object itself, a
 * one-row Table (kubectl get -w) or PartialObjectMetadata. */
static nl_status *choose_encoder(mock_watch_spec *spec, const mock_request *req)
{
	mock_negotiated neg;
	if (mock_negotiate_output(&neg, req->accept, mock_negotiate_allow(spec->r)) != 0)
		return NULL;
	spec->protobuf = neg.media == MOCK_MEDIA_PROTOBUF;
	if (neg.as == MOCK_AS_NONE || neg.as == MOCK_AS_DISCOVERY)
		return NULL;
	if (neg.as == MOCK_AS_TABLE) {
		mock_include_object include;
		mock_table_watch *tw = NULL;
		nl_status *st = NULL;
		if (mock_table_parse_include(&include, mock_request_query(req, "includeObject"),
		                             &st) != 0)
			return st;
		if (mock_table_watch_new(&tw, neg.version, include) != 0)
			return nl_status_internal("out of memory");
		spec->encode = mock_table_watch_encode;
		spec->encode_payload = tw;
		spec->encode_free = mock_table_watch_free;
		return NULL;
	}
	char *version = strdup(neg.version);
	if (!version)
		return nl_status_internal("out of memory");
	spec->encode = partial_encode;
	spec->encode_payload = version;
	spec->encode_free = free;
	return NULL;
}

static void spec_release(mock_watch_spec *spec)
{
	nl_label_selector_free(spec->labels);
	nl_field_selector_free(spec->fields);
	if (spec->encode_free)
		spec->encode_free(spec->encode_payload);
	spec->labels = NULL;
	spec->fields = NULL;
	spec->encode_free = NULL;
}

/* A watcher as a response's stream (core/request.h). */
static void close_watcher(void *w)
{
	mock_watch_close(w);
}

void mock_handle_watch(mock_api *api, const mock_route *rt, const mock_request *req,
                       mock_response *resp)
{
	watch_query q;
	mock_watch_initial lines;
	mock_watcher *w = NULL;
	int full = 0;
	nl_status *stream_err = NULL;
	mock_watch_spec spec = {
	    .r = rt->res, .ns = rt->ns[0] ? rt->ns : NULL, .scope = mock_metrics_watch_scope(req)};

	if (!api->watch) {
		mock_response_status(resp, nl_status_method_not_allowed());
		return;
	}
	/* --max-watches: 429. Counted before the watcher registers, so
	 * concurrent admissions overshoot by at most the worker threads. */
	if (!mock_limits_admit_watch(api->opts->max_watches, mock_watch_hub_count(api->watch),
	                             resp))
		return;
	mock_watch_initial_init(&lines, api->watch);
	nl_status *st = parse_query(&q, req);
	if (!st)
		st = validate(&q, req);
	if (!st)
		st = parse_selectors(&spec, req);
	if (!st)
		st = choose_encoder(&spec, req);
	if (!st) {
		spec.bookmarks = q.bookmarks;
		spec.timeout_ms = timeout_ms(&q);
		if (!apply_fault(&spec, &stream_err, api, req, &q))
			st = starting_point(&spec, &lines, &stream_err, &full, api, &q);
	}
	if (!st && !full && mock_watch_open(&w, api->watch, &spec, &lines) != 0)
		st = nl_status_internal("out of memory");
	if (full && !st) {
		mock_response_too_many_requests(resp);
	} else if (st) {
		mock_response_status(resp, st);
	} else {
		resp->code = 200;
		resp->content_type = spec.protobuf ? NL_PB_WATCH_CONTENT_TYPE : "application/json";
		resp->stream = w;
		resp->stream_free = close_watcher;
	}
	nl_status_free(stream_err);
	spec_release(&spec);
	mock_watch_initial_free(&lines);
}

int mock_watch_check_list(mock_api *api, const mock_route *rt, const mock_request *req,
                          nl_status **st)
{
	const char *match = mock_request_query(req, "resourceVersionMatch");
	uint64_t n = 0;
	if (!api->watch || !match || strcmp(match, "Exact") != 0)
		return 0;
	/* Malformed or "0": the store and validation answer those. */
	if (nl_rv_parse(&n, mock_request_query(req, "resourceVersion")) != 0 || n == 0)
		return 0;
	if (n >= mock_watch_hub_oldest(api->watch, rt->res))
		return 0;
	/* An Exact list is read from etcd at that revision; a compacted one is
	 * etcd3's ResourceExpired with this text. */
	*st =
	    nl_status_new(410, "Expired", "The resourceVersion for the provided list is too old.");
	return NL_EGONE;
}
