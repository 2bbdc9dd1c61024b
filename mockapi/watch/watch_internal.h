/* The watch hub's data, shared by watch.c (hub, ring, wake-ups) and
 * watch_stream.c (what a watcher sends). Everything here is guarded by
 * mock_watch_hub.lock. */
#ifndef MOCK_WATCH_INTERNAL_H
#define MOCK_WATCH_INTERNAL_H

#include <pthread.h>

#include "watch.h"

/* Cap of one event line (objects are below 3 MiB, the body limit). */
#define WATCH_LINE_CAP (16u * 1024u * 1024u)

/* What selectors look at, taken from an object once, the first time a
 * watcher with a selection needs them (mock__watch_event_attrs), so each
 * watcher filters without parsing JSON and a write pays nothing for them
 * while nobody filters. */
typedef struct {
	json_object *labels; /* metadata.labels, NULL when none */
	char *name;
	char *ns;      /* "" for cluster-scoped objects */
	char **fields; /* values of r->selectable_fields; an element may be NULL */
	size_t nfields;
} watch_attrs;

/* One event line (or protobuf frame) as a watcher writes it, shared by
 * every watcher that writes the same bytes and freed with the last one
 * (docs/decisions/0028-watch-memory.md). A shared line is named by its
 * key; a private one (encoders, bookmarks, ERROR) has no key. */
typedef struct {
	int kind;     /* mock_kind */
	int type;     /* WATCH_LINE_ADDED, ... */
	int protobuf; /* a frame, not a JSON line */
	uint64_t rv;  /* the object's resourceVersion: one stored version */
} watch_key;

enum { WATCH_LINE_ADDED, WATCH_LINE_MODIFIED, WATCH_LINE_DELETED, WATCH_LINE_TYPES };

typedef struct watch_blob watch_blob;
struct watch_blob {
	size_t refs;
	char *data;
	size_t len;
	size_t object_len; /* of the event's object (apiserver_watch_events_sizes) */
	int shared;        /* in the hub's table under key */
	watch_key key;
	watch_blob *hnext;
};

/* One change as the store reported it. */
typedef struct {
	uint64_t rv;
	uint64_t cum; /* the ring's byte count before this event (backlogs) */
	mock_store_event type;
	char *json; /* the object (for DELETED its last state, deletion rv) */
	size_t len;
	char *old_json; /* MODIFIED: the previous state, until attrs are taken */
	size_t old_len;
	int attrs; /* 0: not taken yet, 1: now and old are set, < 0: failed */
	watch_attrs now;
	watch_attrs old; /* the previous state; MODIFIED only */
} watch_event;

/* The last cap changes of one resource, oldest first: the event with
 * sequence number q sits at v[q % cap] while first <= q < first + n. */
typedef struct {
	watch_event **v;
	size_t cap, n;
	uint64_t first;
	uint64_t base_rv; /* resourceVersion when the hub attached */
	int evicted;      /* an event has left the ring since */
	uint64_t bytes;   /* JSON bytes of every event ever pushed */
} watch_ring;

/* How a watcher writes objects: the kind, and an optional encoder. */
typedef struct {
	const mock_resource *r;
	mock_watch_encode_fn fn; /* NULL: the object's JSON as stored */
	void *payload;
	void (*free)(void *payload);
	int protobuf; /* protobuf frames (nl_pb_encode_watch_event), not JSON lines */
} watch_encoder;

typedef enum {
	WATCH_LIVE,   /* sending events */
	WATCH_ENDING, /* send what is buffered, then end the stream */
	WATCH_GONE,   /* the peer closed: drop the connection */
} watch_state;

struct mock_watcher {
	mock_watch_hub *hub;
	mock_watcher *prev, *next; /* all watchers of the hub */
	mock_watcher *wake_next;   /* the hub thread's list of watchers to resume */
	const mock_resource *r;
	mock_watch_scope scope;
	watch_encoder enc;
	char *ns; /* NULL: all namespaces */
	nl_label_selector *labels;
	nl_field_selector *fields;
	int filtered;      /* ns, labels or fields restrict the events */
	uint64_t next_seq; /* next ring event to consider */
	uint64_t rv;       /* last resourceVersion sent; bookmarks never go below */
	watch_blob *cur;   /* the line being handed to the connection, from off */
	size_t off;
	watch_blob **queue; /* lines due before any change: initial events, ERROR */
	size_t qhead, qn;
	int64_t deadline_ms;      /* monotonic; the stream ends then */
	int64_t next_bookmark_ms; /* 0: no bookmarks */
	int limited;              /* a fault ends the stream after events_left events */
	uint64_t events_left;
	int stall; /* a fault: send nothing */
	watch_state state;
	int parked;
	void *conn;
	int fd;
	mock_watch_conn_fn park, wake;
};

struct mock_watch_hub {
	pthread_mutex_t lock;
	pthread_cond_t cond;    /* the hub thread: changes, or stop */
	pthread_cond_t drained; /* the last watcher closed */
	mock_store *store;
	watch_ring rings[MOCK_KIND_COUNT];
	uint64_t rv; /* the last resourceVersion the store reported */
	unsigned bookmark_ms;
	mock_watcher *head;
	size_t count;
	int pending;     /* changes since the hub thread last looked */
	int64_t wake_at; /* when the hub thread means to look again */
	int stopping;
	int quit;
	pthread_t thread;
	int thread_started;
	/* Shared lines (watch_blob.c): a hash table of the keyed ones, and
	 * the bytes of every line alive, keyed or not. */
	watch_blob **table;
	size_t nbuckets, nshared;
	size_t buffered;                      /* bytes of lines alive */
	size_t buffer_limit;                  /* --watch-buffer-bytes; 0: none */
	size_t backlog_limit;                 /* --watch-backlog-bytes; 0: none */
	size_t freed;                         /* bytes freed since the last malloc_trim */
	size_t closed;                        /* watchers closed since then */
	uint64_t terminated[MOCK_KIND_COUNT]; /* closed for being too slow */
	mock_watch_kind_stats kinds[MOCK_KIND_COUNT];
	uint64_t refused; /* watches refused or ended: buffer_limit reached */
};

/* watch_blob.c, all under the hub lock. The keyed line for key, with a
 * reference taken, or NULL. */
watch_blob *mock__watch_blob_find(mock_watch_hub *h, const watch_key *key);
/* A line of line's content (taken over, line left empty), keyed (shared)
 * when key is not NULL: if another line of that key appeared meanwhile,
 * that one is returned instead. NL_ETOOBIG when it would take the hub's
 * lines past buffer_limit (line is freed), NL_ENOMEM. */
int mock__watch_blob_add(watch_blob **out, mock_watch_hub *h, nl_buf *line, size_t object_len,
                         const watch_key *key);
/* Drop a reference; the last frees the line. NULL ok. */
void mock__watch_blob_unref(mock_watch_hub *h, watch_blob *b);
/* Free the table (every line must be gone). */
void mock__watch_blobs_free(mock_watch_hub *h);
/* The line type index of "ADDED", "MODIFIED", "DELETED"; -1 for others. */
int mock__watch_line_type(const char *type);

/* The ring event with sequence q, or NULL when it is not retained. */
watch_event *mock__watch_ring_at(const watch_ring *g, uint64_t q);

/* watch_stream.c. Take e's attrs (once; under the hub lock). 0, or the
 * failure (kept, so every filtered watcher of e ends its stream). */
int mock__watch_event_attrs(watch_event *e, const mock_resource *r);
/* The event type this watcher sees for e ("ADDED", ...), or NULL when e is
 * outside its selection before and after. A filtered watcher needs e's
 * attrs taken first. */
const char *mock__watch_classify(const mock_watcher *w, const watch_event *e);
/* What ends a stream early (mock__watch_next_line's negative results). */
#define WATCH_FELL_BEHIND (-1) /* the changes it missed left the ring */
#define WATCH_FAILED (-2)      /* out of memory, or a change did not parse */
#define WATCH_OVER_LIMIT (-3)  /* its next line would pass buffer_limit */
/* Set w->cur to the next line due at now: an event, or a bookmark. 1 when
 * a line is ready, 0 when nothing is due, or one of the codes above: the
 * stream must end. Under the hub lock. */
int mock__watch_next_line(mock_watcher *w, int64_t now);
/* Append the ERROR line for st. */
int mock__watch_add_error(nl_buf *out, size_t *obj_len, int protobuf, const nl_status *st);
/* Free what an event's attrs hold. */
void mock__watch_attrs_free(watch_attrs *a);

#endif
