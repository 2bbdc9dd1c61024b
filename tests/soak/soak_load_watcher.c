/* A load soak watcher (soak_load.h): opens watches on the ConfigMaps with
 * random selectors and starting points, reads a few events and goes away
 * — cancelling after some events, cutting the connection after a while,
 * or letting the server end the stream (timeoutSeconds). Every event must
 * be one JSON object of a known type; from a resourceVersion, events come
 * in resourceVersion order; the shared counter never goes back. */
#include <nodelet/meta.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "soak_load.h"

#define COLLECTION "/api/v1/namespaces/" SOAK_NS "/configmaps"

typedef struct {
	soak_watcher *w;
	int ordered;                /* started from a resourceVersion */
	uint64_t last_rv;           /* of the previous event */
	unsigned long cancel_after; /* events; 0 = never */
	unsigned long n;
	unsigned long counter[SOAK_MAX_WRITERS]; /* the shared counter in this stream */
} stream;

static void shared_counter(stream *s, json_object *obj)
{
	json_object *data = json_object_object_get(obj, "data");
	if (!json_object_is_type(data, json_type_object))
		return;
	json_object_object_foreach(data, key, val)
	{
		unsigned i;
		if (sscanf(key, "w%u", &i) != 1 || i >= SOAK_MAX_WRITERS)
			continue;
		unsigned long v = strtoul(json_object_get_string(val), NULL, 10);
		if (v < s->counter[i])
			soak_fail(
			    "watcher %u: the shared counter of writer %u went back from %lu to "
			    "%lu",
			    s->w->id, i, s->counter[i], v);
		s->counter[i] = v;
		if (v > s->w->seen[i])
			s->w->seen[i] = v;
	}
}

static int check_rv(stream *s, json_object *obj, const char *type)
{
	uint64_t rv;
	const char *text = nl_meta_resource_version(obj);
	if (!text || nl_rv_parse(&rv, text) != 0) {
		soak_fail("watcher %u: a %s event without a resourceVersion", s->w->id, type);
		return -1;
	}
	/* Bookmarks may repeat the last resourceVersion; changes move on. */
	int bookmark = strcmp(type, "BOOKMARK") == 0;
	if (s->ordered && (rv < s->last_rv || (rv == s->last_rv && !bookmark))) {
		soak_fail("watcher %u: a %s event at resourceVersion %llu after %llu", s->w->id,
		          type, (unsigned long long)rv, (unsigned long long)s->last_rv);
		return -1;
	}
	if (s->ordered || rv > s->last_rv)
		s->last_rv = rv;
	return 0;
}

static void error_event(stream *s, json_object *status)
{
	json_object *code = json_object_object_get(status, "code");
	/* Only a resourceVersion too old for the watch cache is expected. */
	if (code && json_object_get_int(code) == 410)
		s->w->expired++;
	else
		soak_fail("watcher %u: an ERROR event: %.300s", s->w->id,
		          json_object_to_json_string(status));
}

static int on_line(const char *line, size_t len, void *payload)
{
	stream *s = payload;
	json_tokener *tok = json_tokener_new();
	json_object *ev = tok ? json_tokener_parse_ex(tok, line, (int)len) : NULL;
	int whole = tok && ev && json_tokener_get_parse_end(tok) == len;
	json_tokener_free(tok);
	const char *type = nl_json_get_string(ev, "type");
	json_object *obj = json_object_object_get(ev, "object");
	if (!whole || !type || !json_object_is_type(obj, json_type_object)) {
		soak_fail("watcher %u: not a watch event: %.300s", s->w->id, line);
		json_object_put(ev);
		return 1;
	}
	if (strcmp(type, "ERROR") == 0) {
		error_event(s, obj);
	} else if (strcmp(type, "ADDED") != 0 && strcmp(type, "MODIFIED") != 0 &&
	           strcmp(type, "DELETED") != 0 && strcmp(type, "BOOKMARK") != 0) {
		soak_fail("watcher %u: an event of type %s", s->w->id, type);
	} else if (check_rv(s, obj, type) == 0) {
		const char *name = nl_meta_name(obj);
		if (strcmp(type, "BOOKMARK") == 0)
			s->w->bookmarks++;
		else
			s->w->events++;
		if (name && strcmp(name, SOAK_SHARED) == 0)
			shared_counter(s, obj);
	}
	json_object_put(ev);
	return s->cancel_after && ++s->n >= s->cancel_after;
}

/* The collection's current resourceVersion, from a list of one. */
static int list_rv(char *out, size_t outlen, soak_watcher *w, soak_http *h)
{
	char why[1024];
	json_object *l = NULL;
	w->requests++;
	long code = soak_http_do(h, &l, "GET", COLLECTION "?limit=1", NULL, NULL, why, sizeof(why));
	const char *rv = nl_json_get_string(l, "metadata.resourceVersion");
	int rc = -1;
	if (code < 0)
		soak_fail("watcher %u: %s", w->id, why);
	else if (code != 200 || !rv)
		soak_fail("watcher %u: LIST answered %ld", w->id, code);
	else
		rc = snprintf(out, outlen, "%s", rv) > 0 ? 0 : -1;
	json_object_put(l);
	return rc;
}

static void watch_path(char *out, size_t outlen, stream *s, const char *rv)
{
	nl_rand *r = &s->w->rng;
	size_t n = (size_t)snprintf(out, outlen, COLLECTION "?watch=1");
	if (rv)
		n += (size_t)snprintf(out + n, outlen - n, "&resourceVersion=%s", rv);
	int sel = (int)soak_rand_range(r, 0, 9);
	if (sel < 3)
		n += (size_t)snprintf(out + n, outlen - n, "&labelSelector=" SOAK_LABEL "%%3Dw%u",
		                      (unsigned)soak_rand_range(r, 0, s->w->L->nwriters - 1));
	else if (sel < 5)
		n += (size_t)snprintf(out + n, outlen - n,
		                      "&fieldSelector=metadata.name%%3D" SOAK_SHARED);
	if (soak_rand_chance(r, 0.3))
		n += (size_t)snprintf(out + n, outlen - n, "&timeoutSeconds=1");
	if (soak_rand_chance(r, 0.3))
		snprintf(out + n, outlen - n, "&allowWatchBookmarks=true");
}

static void one_watch(soak_watcher *w, soak_http *h)
{
	char rv[64], path[512], why[1024];
	stream s = {.w = w};
	int how = 0;
	if (w->old_rv[0] && soak_rand_chance(&w->rng, 0.1)) {
		/* Long gone from the watch cache by now, usually: 410 Expired. */
		snprintf(rv, sizeof(rv), "%s", w->old_rv);
		s.ordered = 1;
	} else if (soak_rand_chance(&w->rng, 0.5)) {
		if (list_rv(rv, sizeof(rv), w, h) != 0)
			return;
		if (!w->old_rv[0])
			snprintf(w->old_rv, sizeof(w->old_rv), "%s", rv);
		s.ordered = 1;
	}
	watch_path(path, sizeof(path), &s, s.ordered ? rv : NULL);
	if (soak_rand_chance(&w->rng, 0.4))
		s.cancel_after = (unsigned long)soak_rand_range(&w->rng, 1, 20);
	long cut_ms = (long)soak_rand_range(&w->rng, 50, 1500);
	w->requests++;
	long code = soak_http_stream(h, path, cut_ms, on_line, &s, &how, why, sizeof(why));
	if (code < 0) {
		soak_fail("watcher %u: %s", w->id, why);
		return;
	}
	if (code != 200) {
		/* Refusals are valid answers, but nothing here should be refused. */
		w->refused++;
		soak_fail("watcher %u: GET %s answered %ld", w->id, path, code);
		return;
	}
	w->opened++;
	if (how == 0)
		w->server_ended++;
	else if (how == 1)
		w->cancelled++;
	else
		w->timed_out++;
}

void *soak_watcher_main(void *arg)
{
	soak_watcher *w = arg;
	soak_http *h = soak_http_new(w->L->base);
	if (!h) {
		soak_fail("watcher %u: out of memory", w->id);
		return NULL;
	}
	while (soak_load_running(w->L))
		one_watch(w, h);
	soak_http_free(h);
	return NULL;
}
