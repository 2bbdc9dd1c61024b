/* Watch streams (?watch=true): the hub that turns store changes into
 * WatchEvents for every open watch, and what the HTTP layer needs to serve
 * one without a thread per watcher. See docs/decisions/0007-watch.md.
 *
 * The hub keeps, per resource, a bounded ring of the last changes (the
 * watch cache, --watch-cache-size events). A watcher is a cursor into its
 * resource's ring plus a filter and the bytes of the line it is sending;
 * lines are built when the connection can take them, so a watcher costs
 * little memory and a slow one falls behind the ring and is ended instead
 * of buffering. Connections with nothing to send are parked (suspended);
 * the hub thread wakes them for new events, bookmarks, timeouts, shutdown,
 * and closes the ones whose peer went away.
 *
 * Locking: the store calls the hub's observer under its write lock, so the
 * order is store lock → hub lock; the hub never calls into the store. */
#ifndef MOCK_WATCH_H
#define MOCK_WATCH_H

#include <nodelet/buf.h>
#include <nodelet/selector.h>
#include <nodelet/status.h>
#include <stdint.h>
#include <sys/types.h>

#include "api/resources.h"
#include "api/route.h"
#include "core/request.h"
#include "storage/store.h"

#define MOCK_WATCH_DEFAULT_CACHE_SIZE 1000
#define MOCK_WATCH_DEFAULT_BOOKMARK_SECONDS 60
/* --watch-buffer-bytes and --watch-backlog-bytes (mock_watch_hub_set_limits). */
#define MOCK_WATCH_DEFAULT_BUFFER_BYTES ((size_t)1024 * 1024 * 1024)
#define MOCK_WATCH_DEFAULT_BACKLOG_BYTES ((size_t)16 * 1024 * 1024)
/* The annotation on the bookmark that ends a sendInitialEvents stream. */
#define MOCK_WATCH_INITIAL_EVENTS_END "k8s.io/initial-events-end"

typedef struct mock_watch_hub mock_watch_hub;
typedef struct mock_watcher mock_watcher;

/* Create a hub and install it as s's observer; starts the hub thread.
 * cache_size: events kept per resource (>= 1); bookmark_ms: interval of
 * BOOKMARK events for watchers that allow them. *out: mock_watch_hub_free. */
int mock_watch_hub_new(mock_watch_hub **out, mock_store *s, size_t cache_size,
                       unsigned bookmark_ms);
/* End every stream: wake all parked watchers so each ends cleanly, then wait
 * up to drain_ms for them to close. Later watches end at once. Call before
 * the HTTP server stops (it must not stop with parked connections).
 * Idempotent. */
void mock_watch_hub_stop(mock_watch_hub *h, unsigned drain_ms);
/* Detach from the store and free. Every watcher must be closed. NULL ok. */
void mock_watch_hub_free(mock_watch_hub *h);
/* After mock_store_rewind of the hub's store: forget every change (the
 * rings start over at the store's resourceVersion) and the counts of
 * watches ended. NL_EINVAL, changing nothing, while a watcher is open. */
int mock_watch_hub_rewind(mock_watch_hub *h);
/* Open watchers (for tests and diagnostics). */
size_t mock_watch_hub_count(mock_watch_hub *h);
/* The oldest resourceVersion a watch of r can resume from: every change of
 * r after it is still in the ring (the apiserver's "oldest - 1"). */
uint64_t mock_watch_hub_oldest(mock_watch_hub *h, const mock_resource *r);

/* Turns an object into what an event carries (e.g. a Table row). type is
 * "ADDED", "MODIFIED", "DELETED" or "BOOKMARK"; json is the object with
 * kind and apiVersion. Appends to out; 0 or an NL_E* code. */
typedef int (*mock_watch_encode_fn)(nl_buf *out, const mock_resource *r, const char *type,
                                    const char *json, size_t len, void *payload);

/* The scope label of apiserver_longrunning_requests (metrics.CleanScope):
 * a watch of one named object, of a namespace, or of the whole cluster. */
typedef enum {
	MOCK_WATCH_SCOPE_CLUSTER,
	MOCK_WATCH_SCOPE_NAMESPACE,
	MOCK_WATCH_SCOPE_RESOURCE,
	MOCK_WATCH_SCOPES
} mock_watch_scope;

/* What a validated watch request asks for. */
typedef struct {
	const mock_resource *r;
	mock_watch_scope scope;      /* for the open-watches gauge */
	const char *ns;              /* copied; NULL: all namespaces */
	nl_label_selector *labels;   /* taken over (freed with the watcher); may be NULL */
	nl_field_selector *fields;   /* taken over; may be NULL */
	uint64_t rv;                 /* send the changes after this resourceVersion */
	int check_expired;           /* rv came from the client: 410 when too old */
	int bookmarks;               /* allowWatchBookmarks */
	int64_t timeout_ms;          /* the stream ends after this; <= 0 ends at once */
	const nl_status *error;      /* non-NULL: the stream is this one ERROR event */
	int limited;                 /* end cleanly after events_left more events */
	uint64_t events_left;        /* (0: right after the initial lines) */
	int stall;                   /* send nothing until the peer goes or the server stops */
	mock_watch_encode_fn encode; /* NULL: the object's JSON */
	void *encode_payload;        /* taken over: encode_free(payload) on close */
	void (*encode_free)(void *payload);
	int protobuf; /* frames of protobuf WatchEvents instead of JSON lines */
} mock_watch_spec;

/* The initial events of one watch (the synthetic ADDED events and the
 * bookmark that may end them), gathered before mock_watch_open. Each line
 * is built as the stream's watcher will write it (its kind, encoder and
 * framing: a JSON line, or a length-prefixed protobuf WatchEvent) and is
 * shared: watchers whose initial events hold the same stored object in
 * the same framing hold one copy of its line (docs/decisions/0028). */
struct watch_blob;
typedef struct {
	mock_watch_hub *hub;
	struct watch_blob **v;
	size_t n, alloc;
} mock_watch_initial;
void mock_watch_initial_init(mock_watch_initial *in, mock_watch_hub *h);
/* Append an event of type ("ADDED", …) for the stored object json. 0;
 * NL_ETOOBIG when its line would take the hub past its buffer limit
 * (mock_watch_hub_set_limits); NL_ENOMEM. Takes the hub lock briefly, so
 * it may run under the store's read lock (store lock → hub lock). */
int mock_watch_initial_add(mock_watch_initial *in, const mock_watch_spec *spec, const char *type,
                           const char *json, size_t len);
/* Append a BOOKMARK at rv (initial_end: the one that ends the initial
 * events of sendInitialEvents). Codes as above. */
int mock_watch_initial_bookmark(mock_watch_initial *in, const mock_watch_spec *spec, uint64_t rv,
                                int initial_end);
/* Release what is still held (mock_watch_open takes the content over). */
void mock_watch_initial_free(mock_watch_initial *in);

/* Memory limits (docs/mockapi.md, "Watch memory"). total: bytes of event
 * lines held for all watchers together, each shared line once; a watch
 * whose initial events do not fit is refused (the handler answers 429)
 * and a stream whose next line does not fit ends. backlog: a watcher
 * with more than this many bytes to write — the rest of its current line
 * and the changes after the next one it selects — is closed as the watch
 * cache closes an unresponsive watcher: its stream ends, no ERROR. 0: no
 * limit. Defaults: MOCK_WATCH_DEFAULT_BUFFER_BYTES, ..._BACKLOG_BYTES. */
void mock_watch_hub_set_limits(mock_watch_hub *h, size_t total, size_t backlog);

/* apiserver_watch_events_sizes' buckets: ExponentialBuckets(1024, 2, 8),
 * 1 KiB to 128 KiB. */
#define MOCK_WATCH_SIZE_BUCKETS 8

/* Per resource: events handed to watchers (every line, the initial
 * ADDED events, bookmarks and ERROR events too, as the apiserver counts
 * what its watch channel yields) with their objects' sizes, and the open
 * watches per scope. */
typedef struct {
	uint64_t events;
	uint64_t size_buckets[MOCK_WATCH_SIZE_BUCKETS]; /* not cumulative */
	double size_sum;
	size_t open[MOCK_WATCH_SCOPES];
	unsigned char seen[MOCK_WATCH_SCOPES]; /* once opened, the series stays (at 0) */
} mock_watch_kind_stats;

/* What /metrics shows of the hub. */
typedef struct {
	mock_watch_kind_stats kinds[MOCK_KIND_COUNT];
	size_t watchers;
	size_t buffered;                      /* bytes of event lines held */
	size_t shared;                        /* lines held in the table, once each */
	uint64_t terminated[MOCK_KIND_COUNT]; /* watchers closed for being too slow */
	uint64_t refused;                     /* watches refused or ended by the total */
} mock_watch_stats;
void mock_watch_hub_stats(mock_watch_hub *h, mock_watch_stats *out);

/* Monotonic milliseconds, the clock of stream timeouts and bookmarks. */
int64_t mock_watch_now_ms(void);

/* Register a watcher. initial (may be NULL) holds the lines sent first
 * (the synthetic ADDED events); its content is taken over and initial is
 * left empty. The selectors and the encoder's payload move into the
 * watcher, also on failure (spec's pointers are cleared). *out:
 * mock_watch_close. */
int mock_watch_open(mock_watcher **out, mock_watch_hub *h, mock_watch_spec *spec,
                    mock_watch_initial *initial);

/* How the HTTP layer suspends and resumes a connection; the hub calls park
 * under its lock from inside mock_watch_read, wake from the hub thread. */
typedef void (*mock_watch_conn_fn)(void *conn);
/* Bind a watcher to its connection. fd (-1 if unknown) lets the hub notice
 * a peer that went away while the connection is parked. */
void mock_watch_attach(mock_watcher *w, void *conn, int fd, mock_watch_conn_fn park,
                       mock_watch_conn_fn wake);

#define MOCK_WATCH_END (-1)   /* the stream is complete: end it cleanly */
#define MOCK_WATCH_ABORT (-2) /* the peer is gone: drop the connection */
/* Copy up to max bytes of the stream into buf. Returns the count; 0 when
 * nothing is due (the watcher is parked: park was called, the connection
 * must not be read from until wake); MOCK_WATCH_END or MOCK_WATCH_ABORT. */
ssize_t mock_watch_read(mock_watcher *w, char *buf, size_t max);
/* Unregister and free. NULL ok. */
void mock_watch_close(mock_watcher *w);

/* The MHD response that streams w (watch_mhd.c); takes w over (closed on
 * failure, then NULL). conn is the struct MHD_Connection. */
struct MHD_Response;
struct MHD_Response *mock_watch_mhd_response(mock_watcher *w, void *conn);

#endif
