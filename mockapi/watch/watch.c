/* The watch hub (watch.h): per-resource rings of changes fed by the store's
 * observer, the registry of watchers, and the hub thread that resumes
 * parked connections when something is due for them.
 *
 * Who may resume a parked watcher: whoever clears w->parked under the hub
 * lock, and only once. A parked connection is suspended in libmicrohttpd,
 * which neither reads, writes nor closes it, so the watcher stays valid
 * until that resume call; its next pointer is read before the call. */
#include <errno.h>
#include <inttypes.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "core/log.h"
#include "watch_internal.h"

/* How often parked connections are checked for a peer that went away:
 * libmicrohttpd does not look at a suspended socket. */
#define PROBE_MS 1000
/* After this many bytes of lines are freed, or this many watchers have
 * closed (each connection's buffers in libmicrohttpd are some 50 KiB), or
 * the last watcher closed,
 * the hub thread hands free memory back to the system on its next round
 * (within PROBE_MS, once the connections are gone too): glibc keeps freed
 * chunks in its arenas, so RSS would stay at its peak after a crowd of
 * watchers left. */
#define TRIM_BYTES (8u * 1024u * 1024u)
#define TRIM_CLOSED 128u

int64_t mock_watch_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* ------------------------------------------------------------------------
 * The ring */

static void event_free(watch_event *e)
{
	if (!e)
		return;
	free(e->json);
	free(e->old_json);
	mock__watch_attrs_free(&e->now);
	mock__watch_attrs_free(&e->old);
	free(e);
}

static char *dup_json(const char *json, size_t len)
{
	char *c = malloc(len + 1);
	if (c) {
		memcpy(c, json, len);
		c[len] = '\0';
	}
	return c;
}

/* Built before taking the hub lock. Copies only: the selector attrs are
 * parsed later, outside the store's write lock and only if a watcher with
 * a selection looks at this event (mock__watch_event_attrs). */
static watch_event *event_new(mock_store_event type, const char *json, size_t len,
                              const char *old_json, size_t old_len, uint64_t rv)
{
	watch_event *e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->rv = rv;
	e->type = type;
	e->len = len;
	if (!(e->json = dup_json(json, len)))
		goto fail;
	if (type == MOCK_STORE_MODIFIED && old_json) {
		if (!(e->old_json = dup_json(old_json, old_len)))
			goto fail;
		e->old_len = old_len;
	}
	return e;
fail:
	event_free(e);
	return NULL;
}

watch_event *mock__watch_ring_at(const watch_ring *g, uint64_t q)
{
	if (q < g->first || q >= g->first + g->n)
		return NULL;
	return g->v[q % g->cap];
}

/* The oldest resourceVersion the ring can resume from. */
static uint64_t ring_oldest(const watch_ring *g)
{
	/* As the watch cache: before anything was evicted every change since
	 * the start is there; after, the first retained change bounds it. */
	if (!g->evicted || g->n == 0)
		return g->base_rv;
	return g->v[g->first % g->cap]->rv - 1;
}

static void ring_push(watch_ring *g, watch_event *e)
{
	if (g->n == g->cap) {
		event_free(g->v[g->first % g->cap]);
		g->first++;
		g->n--;
		g->evicted = 1;
	}
	e->cum = g->bytes;
	g->bytes += e->len;
	g->v[(g->first + g->n) % g->cap] = e;
	g->n++;
}

/* A change could not be recorded: forget the history, so watchers that
 * needed it end (and resume with 410) instead of silently missing it. */
static void ring_reset(watch_ring *g, uint64_t rv)
{
	while (g->n > 0) {
		event_free(g->v[g->first % g->cap]);
		g->first++;
		g->n--;
	}
	g->evicted = 0;
	g->base_rv = rv;
}

/* The first sequence number whose event is newer than rv. */
static uint64_t ring_seek(const watch_ring *g, uint64_t rv)
{
	uint64_t lo = g->first, hi = g->first + g->n;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (mock__watch_ring_at(g, mid)->rv <= rv)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Store observer: runs under the store's write lock, in resourceVersion
 * order, so the rings see every change once and in order. */
static void on_change(const mock_resource *r, mock_store_event type, const char *json, size_t len,
                      const char *old_json, size_t old_len, uint64_t rv, void *payload)
{
	mock_watch_hub *h = payload;
	watch_event *e = event_new(type, json, len, old_json, old_len, rv);
	pthread_mutex_lock(&h->lock);
	watch_ring *g = &h->rings[r->id];
	if (e) {
		ring_push(g, e);
	} else {
		MOCK_LOG_ERROR("out of memory",
		               "Watch cache cannot record a change, ending its watches",
		               NL_KV_STR("resource", r->plural), NL_KV_UINT("resourceVersion", rv));
		ring_reset(g, rv);
	}
	h->rv = rv;
	h->pending = 1;
	pthread_cond_signal(&h->cond);
	pthread_mutex_unlock(&h->lock);
}

/* ------------------------------------------------------------------------
 * Waking parked watchers */

/* Whether the peer closed the connection (recv sees EOF or an error). Over
 * TLS the peer's close_notify stays unread before the EOF, so a shut-down
 * read side (POLLRDHUP) counts too. */
static int peer_gone(int fd)
{
	char c;
	if (fd < 0)
		return 0;
	struct pollfd p = {fd, POLLRDHUP, 0};
	if (poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)))
		return 1;
	ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	if (n == 0)
		return 1;
	return n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
}

/* Whether a parked watcher has something to do; lowers *wake_at to the
 * time it will. Skips ring events outside its selection, so a change in
 * another namespace does not wake it. */
static int due(mock_watch_hub *h, mock_watcher *w, int64_t now, int64_t *wake_at)
{
	const watch_ring *g = &h->rings[w->r->id];
	if (w->state != WATCH_LIVE || h->stopping)
		return 1;
	if (w->stall)
		return 0;
	if (w->next_seq < g->first)
		return 1;
	for (; w->next_seq < g->first + g->n; w->next_seq++) {
		watch_event *e = mock__watch_ring_at(g, w->next_seq);
		/* A failure is the reader's to report: it ends the stream. */
		if ((w->filtered && mock__watch_event_attrs(e, w->r) != 0) ||
		    mock__watch_classify(w, e))
			return 1;
	}
	if (now >= w->deadline_ms)
		return 1;
	*wake_at = min64(*wake_at, w->deadline_ms);
	if (w->next_bookmark_ms) {
		if (now >= w->next_bookmark_ms)
			return 1;
		*wake_at = min64(*wake_at, w->next_bookmark_ms);
	}
	return 0;
}

/* Drop the lines a watcher holds but has not started to write (under the
 * hub lock). The rest of a line already begun stays, so the stream still
 * ends on a whole event. */
static void drop_unsent(mock_watcher *w)
{
	for (size_t i = w->qhead; i < w->qn; i++)
		mock__watch_blob_unref(w->hub, w->queue[i]);
	free(w->queue);
	w->queue = NULL;
	w->qhead = w->qn = 0;
	if (w->cur && w->off == 0) {
		mock__watch_blob_unref(w->hub, w->cur);
		w->cur = NULL;
	}
}

/* End a watcher that cannot keep up, as the cacher terminates an
 * unresponsive watcher: the stream just ends (no ERROR; the client
 * resumes from its last resourceVersion and may get 410), and what it
 * held is released now, not when its connection finally goes. */
static void terminate(mock_watch_hub *h, mock_watcher *w, const char *why)
{
	MOCK_LOG_V(2, "Forcing watcher close", NL_KV_STR("resource", w->r->plural),
	           NL_KV_STR("reason", why));
	w->state = WATCH_ENDING;
	h->terminated[w->r->id]++;
	drop_unsent(w);
}

/* Bytes the watcher has yet to write besides its initial events: the rest
 * of its current line and the changes from the next one it selects (the
 * unselected ones before it are skipped here, as the reader would). -1
 * when it fell out of the ring. */
static int64_t backlog(mock_watch_hub *h, mock_watcher *w)
{
	const watch_ring *g = &h->rings[w->r->id];
	if (w->next_seq < g->first)
		return -1;
	for (; w->next_seq < g->first + g->n; w->next_seq++) {
		watch_event *e = mock__watch_ring_at(g, w->next_seq);
		if ((w->filtered && mock__watch_event_attrs(e, w->r) != 0) ||
		    mock__watch_classify(w, e))
			break;
	}
	uint64_t b = w->cur ? w->cur->len - w->off : 0;
	if (w->next_seq < g->first + g->n)
		b += g->bytes - mock__watch_ring_at(g, w->next_seq)->cum;
	return (int64_t)b;
}

/* Whether a live watcher must be closed for being too slow. */
static int too_slow(mock_watch_hub *h, mock_watcher *w)
{
	if (w->state != WATCH_LIVE || w->stall)
		return 0;
	int64_t b = backlog(h, w);
	if (b < 0) {
		terminate(h, w, "fell behind the watch cache");
		return 1;
	}
	if (h->backlog_limit && (uint64_t)b > h->backlog_limit) {
		terminate(h, w, "has more than --watch-backlog-bytes to write");
		return 1;
	}
	return 0;
}

/* Close the watchers that are too slow, then unpark the ones that are due
 * (all of them when all is set) and return those as a list for
 * resume_all. Under the hub lock. */
static mock_watcher *collect(mock_watch_hub *h, int64_t now, int probe, int all, int64_t *wake_at)
{
	mock_watcher *list = NULL;
	for (mock_watcher *w = h->head; w; w = w->next) {
		int slow = !all && too_slow(h, w);
		if (!w->parked)
			continue;
		int wake = all || slow || due(h, w, now, wake_at);
		if (!wake && probe && peer_gone(w->fd)) {
			MOCK_LOG_V(2, "Watch client went away",
			           NL_KV_STR("resource", w->r->plural));
			w->state = WATCH_GONE;
			wake = 1;
		}
		if (wake) {
			w->parked = 0;
			w->wake_next = list;
			list = w;
		}
	}
	return list;
}

/* Outside the hub lock: a woken connection may run, end and free its
 * watcher at once, so read the link first. */
static void resume_all(mock_watcher *list)
{
	while (list) {
		mock_watcher *next = list->wake_next;
		list->wake(list->conn);
		list = next;
	}
}

static void deadline_ts(struct timespec *ts, int64_t at_ms)
{
	ts->tv_sec = (time_t)(at_ms / 1000);
	ts->tv_nsec = (long)(at_ms % 1000) * 1000000L;
}

static void *hub_main(void *arg)
{
	mock_watch_hub *h = arg;
	int64_t next_probe = mock_watch_now_ms() + PROBE_MS;
	pthread_mutex_lock(&h->lock);
	while (!h->quit) {
		int64_t now = mock_watch_now_ms();
		int probe = now >= next_probe;
		if (probe)
			next_probe = now + PROBE_MS;
		int64_t wake_at = next_probe;
		h->pending = 0;
		mock_watcher *list = collect(h, now, probe, 0, &wake_at);
		int trim = h->freed >= TRIM_BYTES || h->closed >= TRIM_CLOSED ||
		           (h->count == 0 && h->closed > 0);
		if (trim)
			h->freed = h->closed = 0;
		pthread_mutex_unlock(&h->lock);
		resume_all(list);
#ifdef __GLIBC__
		if (trim)
			malloc_trim(0);
#endif
		pthread_mutex_lock(&h->lock);
		/* Watchers that parked meanwhile lowered h->wake_at. */
		wake_at = min64(wake_at, h->wake_at);
		h->wake_at = wake_at;
		if (!h->pending && !h->quit && mock_watch_now_ms() < wake_at) {
			struct timespec ts;
			deadline_ts(&ts, wake_at);
			pthread_cond_timedwait(&h->cond, &h->lock, &ts);
		}
		h->wake_at = INT64_MAX;
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

/* ------------------------------------------------------------------------
 * Lifecycle */

static int cond_init_monotonic(pthread_cond_t *c)
{
	pthread_condattr_t a;
	if (pthread_condattr_init(&a) != 0)
		return NL_ERROR;
	int rc = pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	if (rc == 0)
		rc = pthread_cond_init(c, &a);
	pthread_condattr_destroy(&a);
	return rc == 0 ? 0 : NL_ERROR;
}

static void rings_free(mock_watch_hub *h)
{
	for (int k = 0; k < MOCK_KIND_COUNT; k++) {
		if (h->rings[k].v)
			ring_reset(&h->rings[k], 0);
		free(h->rings[k].v);
	}
}

int mock_watch_hub_new(mock_watch_hub **out, mock_store *s, size_t cache_size, unsigned bookmark_ms)
{
	if (!out || !s || cache_size == 0)
		return NL_EINVAL;
	mock_watch_hub *h = calloc(1, sizeof(*h));
	if (!h)
		return NL_ENOMEM;
	for (int k = 0; k < MOCK_KIND_COUNT; k++) {
		h->rings[k].cap = cache_size;
		h->rings[k].v = calloc(cache_size, sizeof(watch_event *));
		if (!h->rings[k].v) {
			rings_free(h);
			free(h);
			return NL_ENOMEM;
		}
	}
	h->store = s;
	h->wake_at = INT64_MAX;
	h->buffer_limit = MOCK_WATCH_DEFAULT_BUFFER_BYTES;
	h->backlog_limit = MOCK_WATCH_DEFAULT_BACKLOG_BYTES;
	h->bookmark_ms = bookmark_ms ? bookmark_ms : MOCK_WATCH_DEFAULT_BOOKMARK_SECONDS * 1000u;
	if (pthread_mutex_init(&h->lock, NULL) != 0 || cond_init_monotonic(&h->cond) != 0 ||
	    cond_init_monotonic(&h->drained) != 0) {
		rings_free(h);
		free(h);
		return NL_ERROR;
	}
	/* Observe first, then read the resourceVersion: a change in between is
	 * then at or below base_rv, never missing above it. */
	mock_store_set_observer(s, on_change, h);
	uint64_t rv = mock_store_rv(s);
	pthread_mutex_lock(&h->lock);
	if (rv > h->rv)
		h->rv = rv;
	for (int k = 0; k < MOCK_KIND_COUNT; k++)
		h->rings[k].base_rv = rv;
	pthread_mutex_unlock(&h->lock);
	if (pthread_create(&h->thread, NULL, hub_main, h) != 0) {
		mock_watch_hub_free(h);
		return NL_ERROR;
	}
	h->thread_started = 1;
	*out = h;
	return 0;
}

void mock_watch_hub_stop(mock_watch_hub *h, unsigned drain_ms)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->lock);
	h->stopping = 1;
	h->quit = 1;
	pthread_cond_signal(&h->cond);
	pthread_mutex_unlock(&h->lock);
	/* After the join nobody else resumes watchers, so every resume below
	 * has happened once this returns. */
	if (h->thread_started) {
		pthread_join(h->thread, NULL);
		h->thread_started = 0;
	}
	int64_t dummy = 0;
	pthread_mutex_lock(&h->lock);
	mock_watcher *list = collect(h, 0, 0, 1, &dummy);
	pthread_mutex_unlock(&h->lock);
	resume_all(list);

	struct timespec ts;
	deadline_ts(&ts, mock_watch_now_ms() + drain_ms);
	pthread_mutex_lock(&h->lock);
	while (h->count > 0 && drain_ms > 0)
		if (pthread_cond_timedwait(&h->drained, &h->lock, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&h->lock);
}

void mock_watch_hub_free(mock_watch_hub *h)
{
	if (!h)
		return;
	mock_watch_hub_stop(h, 0);
	mock_store_set_observer(h->store, NULL, NULL);
	if (h->count > 0)
		MOCK_LOG_ERROR(NULL, "Watch hub freed with open watchers",
		               NL_KV_UINT("watchers", h->count));
	rings_free(h);
	mock__watch_blobs_free(h);
	pthread_cond_destroy(&h->drained);
	pthread_cond_destroy(&h->cond);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

int mock_watch_hub_rewind(mock_watch_hub *h)
{
	uint64_t rv = mock_store_rv(h->store);
	pthread_mutex_lock(&h->lock);
	int rc = h->count > 0 ? NL_EINVAL : 0;
	for (int k = 0; rc == 0 && k < MOCK_KIND_COUNT; k++) {
		ring_reset(&h->rings[k], rv);
		h->rings[k].first = 0;
		h->rings[k].bytes = 0;
		h->terminated[k] = 0;
		memset(&h->kinds[k], 0, sizeof(h->kinds[k]));
	}
	if (rc == 0) {
		h->rv = rv;
		h->refused = 0;
		h->pending = 0;
	}
	pthread_mutex_unlock(&h->lock);
	return rc;
}

size_t mock_watch_hub_count(mock_watch_hub *h)
{
	pthread_mutex_lock(&h->lock);
	size_t n = h->count;
	pthread_mutex_unlock(&h->lock);
	return n;
}

void mock_watch_hub_set_limits(mock_watch_hub *h, size_t total, size_t backlog_bytes)
{
	pthread_mutex_lock(&h->lock);
	h->buffer_limit = total;
	h->backlog_limit = backlog_bytes;
	pthread_cond_signal(&h->cond);
	pthread_mutex_unlock(&h->lock);
}

void mock_watch_hub_stats(mock_watch_hub *h, mock_watch_stats *out)
{
	pthread_mutex_lock(&h->lock);
	out->watchers = h->count;
	out->buffered = h->buffered;
	out->shared = h->nshared;
	memcpy(out->terminated, h->terminated, sizeof(out->terminated));
	memcpy(out->kinds, h->kinds, sizeof(out->kinds));
	out->refused = h->refused;
	pthread_mutex_unlock(&h->lock);
}

uint64_t mock_watch_hub_oldest(mock_watch_hub *h, const mock_resource *r)
{
	pthread_mutex_lock(&h->lock);
	uint64_t rv = ring_oldest(&h->rings[r->id]);
	pthread_mutex_unlock(&h->lock);
	return rv;
}

/* ------------------------------------------------------------------------
 * Watchers */

/* Free a watcher whose lines are released (release_lines). */
static void watcher_free(mock_watcher *w)
{
	if (w->enc.free)
		w->enc.free(w->enc.payload);
	free(w->ns);
	nl_label_selector_free(w->labels);
	nl_field_selector_free(w->fields);
	free(w);
}

/* Under the hub lock. */
static void release_lines(mock_watcher *w)
{
	w->off = 0;
	drop_unsent(w);
	mock__watch_blob_unref(w->hub, w->cur);
	w->cur = NULL;
}

/* Queue a line after the initial ones (under the hub lock). */
static int queue_push(mock_watcher *w, watch_blob *b)
{
	watch_blob **v = realloc(w->queue, (w->qn + 1) * sizeof(*v));
	if (!v) {
		mock__watch_blob_unref(w->hub, b);
		return NL_ENOMEM;
	}
	v[w->qn++] = b;
	w->queue = v;
	return 0;
}

/* The ERROR line for st, queued (under the hub lock). */
static int queue_error(mock_watcher *w, const nl_status *st)
{
	nl_buf line;
	watch_blob *b = NULL;
	size_t obj_len = 0;
	nl_buf_init(&line, WATCH_LINE_CAP);
	int rc = mock__watch_add_error(&line, &obj_len, w->enc.protobuf, st);
	/* Not counted against the buffer limit: it is small and ends the
	 * stream, which frees more than it holds. */
	size_t limit = w->hub->buffer_limit;
	w->hub->buffer_limit = 0;
	if (rc == 0)
		rc = mock__watch_blob_add(&b, w->hub, &line, obj_len, NULL);
	w->hub->buffer_limit = limit;
	nl_buf_free(&line);
	return rc == 0 ? queue_push(w, b) : rc;
}

static int has_terms(const char *f, void *payload)
{
	(void)f;
	*(int *)payload = 1;
	return 1;
}

/* Where the stream starts in the ring, or its single ERROR when the
 * requested resourceVersion is older than the ring remembers. Under the
 * hub lock. */
static void position(mock_watcher *w, const mock_watch_spec *spec)
{
	const watch_ring *g = &w->hub->rings[w->r->id];
	uint64_t oldest = ring_oldest(g);
	if (spec->rv >= oldest) {
		w->next_seq = ring_seek(g, spec->rv);
		return;
	}
	w->state = WATCH_ENDING;
	if (!spec->check_expired)
		return; /* the snapshot raced past the ring: end, the client resumes */
	char req[24];
	snprintf(req, sizeof(req), "%" PRIu64, spec->rv);
	nl_status *st = nl_status_expired(req, oldest);
	if (!st || queue_error(w, st) != 0)
		MOCK_LOG_ERROR("out of memory", "Cannot write the 410 Expired watch event");
	nl_status_free(st);
}

int mock_watch_open(mock_watcher **out, mock_watch_hub *h, mock_watch_spec *spec,
                    mock_watch_initial *initial)
{
	mock_watcher *w = calloc(1, sizeof(*w));
	watch_encoder enc = {spec->r, spec->encode, spec->encode_payload, spec->encode_free,
	                     spec->protobuf};
	nl_label_selector *labels = spec->labels;
	nl_field_selector *fields = spec->fields;
	spec->labels = NULL;
	spec->fields = NULL;
	spec->encode_payload = NULL;
	spec->encode_free = NULL;
	if (!w) {
		nl_label_selector_free(labels);
		nl_field_selector_free(fields);
		if (enc.free)
			enc.free(enc.payload);
		return NL_ENOMEM;
	}
	w->labels = labels;
	w->fields = fields;
	w->enc = enc;
	w->hub = h;
	w->r = spec->r;
	w->scope = spec->scope;
	w->fd = -1;
	if (spec->ns && !(w->ns = strdup(spec->ns))) {
		watcher_free(w);
		return NL_ENOMEM;
	}
	int terms = 0;
	if (fields)
		nl_field_selector_each_field(fields, has_terms, &terms);
	w->filtered = w->ns || terms || (labels && !nl_label_selector_empty(labels));
	if (initial) {
		w->queue = initial->v;
		w->qn = initial->n;
		initial->v = NULL;
		initial->n = initial->alloc = 0;
	}
	int64_t now = mock_watch_now_ms();
	w->deadline_ms = now + (spec->timeout_ms > 0 ? spec->timeout_ms : 0);
	w->stall = spec->stall;
	if (w->stall)
		w->deadline_ms = INT64_MAX;
	else if (spec->bookmarks)
		w->next_bookmark_ms = now + h->bookmark_ms;
	w->limited = spec->limited;
	w->events_left = spec->events_left;
	if (w->limited && w->events_left == 0)
		w->state = WATCH_ENDING;
	w->rv = spec->rv;
	pthread_mutex_lock(&h->lock);
	if (spec->error) {
		w->state = WATCH_ENDING;
		if (queue_error(w, spec->error) != 0) {
			release_lines(w);
			pthread_mutex_unlock(&h->lock);
			watcher_free(w);
			return NL_ENOMEM;
		}
	} else {
		position(w, spec);
	}
	w->next = h->head;
	if (h->head)
		h->head->prev = w;
	h->head = w;
	h->count++;
	h->kinds[w->r->id].open[w->scope]++;
	h->kinds[w->r->id].seen[w->scope] = 1;
	pthread_mutex_unlock(&h->lock);
	*out = w;
	return 0;
}

void mock_watch_attach(mock_watcher *w, void *conn, int fd, mock_watch_conn_fn park,
                       mock_watch_conn_fn wake)
{
	pthread_mutex_lock(&w->hub->lock);
	w->conn = conn;
	w->fd = fd;
	w->park = park;
	w->wake = wake;
	pthread_mutex_unlock(&w->hub->lock);
}

/* Suspend the connection; if the watcher is due before the hub thread
 * means to look, tell it. Under the hub lock. */
static void park(mock_watcher *w)
{
	mock_watch_hub *h = w->hub;
	int64_t due_at = w->deadline_ms;
	if (w->next_bookmark_ms)
		due_at = min64(due_at, w->next_bookmark_ms);
	if (due_at < h->wake_at) {
		h->wake_at = due_at;
		pthread_cond_signal(&h->cond);
	}
	w->parked = 1;
	w->park(w->conn);
}

/* Under the hub lock: w has started on its next line (w->cur), an event
 * the apiserver's watch handler would count and size. */
static void count_event(mock_watcher *w)
{
	mock_watch_kind_stats *k = &w->hub->kinds[w->r->id];
	size_t size = w->cur->object_len, b = 0;
	k->events++;
	k->size_sum += (double)size;
	while (b < MOCK_WATCH_SIZE_BUCKETS && size > ((size_t)1024 << b))
		b++;
	if (b < MOCK_WATCH_SIZE_BUCKETS)
		k->size_buckets[b]++;
}

/* Under the hub lock: bytes for the connection, or what to do instead. */
static ssize_t read_locked(mock_watcher *w, char *buf, size_t max)
{
	mock_watch_hub *h = w->hub;
	for (;;) {
		if (w->cur && w->off < w->cur->len) {
			size_t n = w->cur->len - w->off;
			n = n < max ? n : max;
			memcpy(buf, w->cur->data + w->off, n);
			w->off += n;
			return (ssize_t)n;
		}
		mock__watch_blob_unref(h, w->cur);
		w->cur = NULL;
		w->off = 0;
		if (w->qhead < w->qn) {
			w->cur = w->queue[w->qhead++];
			count_event(w);
			if (w->qhead == w->qn) {
				free(w->queue);
				w->queue = NULL;
				w->qhead = w->qn = 0;
			}
			continue;
		}
		if (w->state == WATCH_GONE)
			return MOCK_WATCH_ABORT;
		if (w->state == WATCH_ENDING || h->stopping)
			return MOCK_WATCH_END;
		int64_t now = mock_watch_now_ms();
		if (now >= w->deadline_ms) {
			w->state = WATCH_ENDING;
			return MOCK_WATCH_END;
		}
		int rc = mock__watch_next_line(w, now);
		if (rc == 0) {
			if (w->park)
				park(w);
			return 0;
		}
		if (rc < 0) {
			if (rc == WATCH_FELL_BEHIND)
				terminate(h, w, "fell behind the watch cache");
			else if (rc == WATCH_OVER_LIMIT)
				MOCK_LOG_V(2, "Ending a watch, --watch-buffer-bytes is full",
				           NL_KV_STR("resource", w->r->plural));
			else
				MOCK_LOG_ERROR(NULL,
				               "Ending a watch, its next event cannot be written",
				               NL_KV_STR("resource", w->r->plural));
			w->state = WATCH_ENDING;
			return MOCK_WATCH_END;
		}
		count_event(w);
	}
}

ssize_t mock_watch_read(mock_watcher *w, char *buf, size_t max)
{
	pthread_mutex_lock(&w->hub->lock);
	ssize_t n = read_locked(w, buf, max);
	pthread_mutex_unlock(&w->hub->lock);
	return n;
}

void mock_watch_close(mock_watcher *w)
{
	if (!w)
		return;
	mock_watch_hub *h = w->hub;
	pthread_mutex_lock(&h->lock);
	if (w->prev)
		w->prev->next = w->next;
	else
		h->head = w->next;
	if (w->next)
		w->next->prev = w->prev;
	if (--h->count == 0)
		pthread_cond_broadcast(&h->drained);
	h->kinds[w->r->id].open[w->scope]--;
	release_lines(w);
	h->closed++;
	pthread_mutex_unlock(&h->lock);
	watcher_free(w);
}
