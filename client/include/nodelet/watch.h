/* Watch: newline-delimited watch events decoded as they stream in (or
 * protobuf watch frames, by the answer's Content-Type), and a watch that
 * survives disconnects.
 *
 * The decoder feeds each chunk to json-c's incremental tokener: an event
 * split at any byte boundary decodes the same, no byte is parsed twice, and
 * one event may not exceed a size cap (NL_ETOOBIG).
 *
 * nl_watch keeps a watch open on the client's loop. It remembers the
 * resourceVersion of the last event (bookmarks included) and, when the
 * stream ends — the server's timeout, a dropped connection, an error — it
 * watches again from that resourceVersion: no event is lost or repeated.
 * Reconnects after failures back off (800 ms doubling to 30 s, as client-go's
 * reflector); a clean end reconnects at once. When the server says the
 * resourceVersion is too old (HTTP 410, or an ERROR event with code 410) the
 * watch cannot continue without a fresh list: it reports NL_EGONE and stops
 * (the informer, informer.h, relists then). */
#ifndef NODELET_WATCH_H
#define NODELET_WATCH_H

#include <json-c/json.h>
#include <stddef.h>

#include "client.h"

typedef enum {
	NL_WATCH_ADDED = 1,
	NL_WATCH_MODIFIED,
	NL_WATCH_DELETED,
	NL_WATCH_BOOKMARK,
	NL_WATCH_ERROR,
} nl_watch_type;

/* "ADDED", "MODIFIED", ...; "" for anything else. */
const char *nl_watch_type_name(nl_watch_type t);

typedef struct {
	nl_watch_type type;
	json_object *object; /* borrowed for the callback; json_object_get to keep */
} nl_watch_event;

/* Return 0 to go on, non-zero to stop (the decoder returns that value). */
typedef int (*nl_watch_event_cb)(const nl_watch_event *ev, void *payload);

/* --- decoder ----------------------------------------------------------------- */

#define NL_WATCH_DEFAULT_MAX_EVENT ((size_t)16 << 20)

typedef struct nl_watch_decoder nl_watch_decoder;

/* max_event: cap on one event's bytes (0 = 16 MiB). *out belongs to the
 * caller: nl_watch_decoder_free. */
int nl_watch_decoder_new(nl_watch_decoder **out, size_t max_event, nl_watch_event_cb cb,
                         void *payload);
void nl_watch_decoder_free(nl_watch_decoder *d);
/* Decode len bytes, calling cb for every event completed. 0; NL_EPARSE (bad
 * JSON, or not {"type": <known type>, "object": {...}}; detail in err);
 * NL_ETOOBIG; or the callback's non-zero value. After an error the decoder
 * must be reset. */
int nl_watch_decoder_feed(nl_watch_decoder *d, const char *data, size_t len, nl_err *err);
/* The stream ended: NL_EPARSE when it stopped inside an event. */
int nl_watch_decoder_finish(nl_watch_decoder *d, nl_err *err);
/* Forget any partial event (a new stream). */
void nl_watch_decoder_reset(nl_watch_decoder *d);
/* Decode protobuf watch frames (a stream of Content-Type
 * application/vnd.kubernetes.protobuf;stream=watch: a 4-byte big-endian
 * length, then a metav1.WatchEvent) instead of JSON, or JSON again
 * (protobuf 0). Resets the decoder. The events are the ones the JSON
 * stream of the same changes yields. A frame longer than max_event or
 * NL_PB_MAX_FRAME is NL_ETOOBIG as soon as its length is read; a frame that
 * does not decode is NL_EPARSE. */
void nl_watch_decoder_set_protobuf(nl_watch_decoder *d, int protobuf);

/* --- a resumable watch --------------------------------------------------------- */

typedef struct nl_watch nl_watch;

/* Something went wrong (informational): the watch retries by itself, except
 * after NL_EGONE (resourceVersion expired), when it stops and waits for
 * nl_watch_stop or nl_watch_restart. res is borrowed. */
typedef void (*nl_watch_error_cb)(const nl_result *res, void *payload);

typedef struct {
	const char *path; /* collection: "/api/v1/namespaces/default/configmaps" */
	const char *label_selector;
	const char *field_selector;
	/* Start after this resourceVersion (normally a list's). NULL or "" =
	 * the server's "now": synthetic ADDED events for what exists, then
	 * changes — such a watch can only resume without gaps once it has seen
	 * an event or bookmark. */
	const char *resource_version;
	int timeout_seconds;        /* per request; 0 = random in [300, 600) like the reflector */
	int deliver_bookmarks;      /* also pass BOOKMARK events to on_event */
	size_t max_event;           /* 0 = NL_WATCH_DEFAULT_MAX_EVENT */
	nl_watch_event_cb on_event; /* ADDED, MODIFIED, DELETED (+ BOOKMARK if asked) */
	nl_watch_error_cb on_error; /* may be NULL */
	void *payload;
} nl_watch_options;

/* Start watching on c's loop (loop thread only). Strings are copied.
 * *out belongs to the caller: nl_watch_stop. NL_EINVAL / NL_ENOMEM. */
int nl_watch_start(nl_watch **out, nl_client *c, const nl_watch_options *o);
/* Stop and free; no callback runs afterwards. May be called from the
 * watch's own callbacks. Accepts NULL. */
void nl_watch_stop(nl_watch *w);
/* Watch again from resource_version (after a relist, say). */
int nl_watch_restart(nl_watch *w, const char *resource_version);
/* The resourceVersion a reconnect would resume from (borrowed; "" when
 * none yet). */
const char *nl_watch_resource_version(const nl_watch *w);
/* Watch requests made so far (the first included): tests and metrics. */
unsigned nl_watch_requests(const nl_watch *w);

#endif
