/* Shared between the client library's files (client/kube/); not installed. */
#ifndef NL_KUBE_INTERNAL_H
#define NL_KUBE_INTERNAL_H

#include <curl/curl.h>
#include <json-c/json.h>
#include <nodelet/buf.h>
#include <nodelet/client.h>
#include <nodelet/client_metrics.h>
#include <nodelet/config.h>
#include <nodelet/loop.h>
#include <nodelet/ratelimit.h>
#include <nodelet/result.h>
#include <pthread.h>

/* ---- results (result.c) --------------------------------------------------- */

/* Release what r holds and zero it (r may be NULL). */
void nl__result_reset(nl_result *r);
/* Set code and a printf-style message; returns code. r may be NULL. */
int nl__result_fail(nl_result *r, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* What a request is about, for Statuses synthesized from non-Status bodies. */
typedef struct {
	const char *verb; /* HTTP method */
	const char *group;
	const char *resource;
	const char *name;
} nl__target;

/* A non-2xx answer: parse the body as a Status, or build client-go's
 * NewGenericServerResponse; set r->status, r->code and r->message. Returns
 * the code, or NL_ENOMEM. */
int nl__result_from_http(nl_result *r, long http, const char *content_type, const char *body,
                         size_t len, const nl__target *t, int retry_after);
/* Whether a Content-Type's media type, parameters aside, is
 * "application/vnd.kubernetes.protobuf" (case-insensitive, as
 * mime.ParseMediaType). */
int nl__is_protobuf(const char *content_type);

/* ---- the loop's view of a transfer (loop.c) -------------------------------- */

typedef struct nl__io nl__io;
struct nl__io {
	CURL *easy;
	int stream;   /* 1: the stream pool (no connection limit) */
	int active;   /* added to a multi */
	int dirty;    /* on the loop's list of transfers with stream data */
	int dead;     /* cancelled: skip it until it is released */
	nl__io *next; /* dirty list / graveyard */
	/* Deliver buffered stream data (outside libcurl). */
	void (*drain)(nl__io *io);
	/* The transfer ended with cc (already removed from the multi). */
	void (*done)(nl__io *io, CURLcode cc);
	/* Free the transfer (called once the loop no longer references it). */
	void (*release)(nl__io *io);
};

int nl__loop_add(nl_loop *l, nl__io *io);
/* Remove an active transfer without its done callback. */
void nl__loop_remove(nl_loop *l, nl__io *io);
/* Stream data arrived (called from a libcurl write callback). */
void nl__loop_mark_dirty(nl_loop *l, nl__io *io);
/* Free io through io->release now, or at the end of the current step when a
 * step is running (an iteration may still hold a pointer to it). */
void nl__loop_release(nl_loop *l, nl__io *io);
/* Count waiting (not yet added) transfers for nl_loop_pending. */
void nl__loop_waiting(nl_loop *l, int delta);

/* ---- the client -------------------------------------------------------------- */

#define NL__DEFAULT_QPS 5.0
#define NL__DEFAULT_BURST 10
#define NL__DEFAULT_MAX_RETRIES 10
#define NL__DEFAULT_CONNECT_TIMEOUT_MS 30000L
#define NL__DEFAULT_TIMEOUT_MS 60000L
#define NL__DEFAULT_MAX_BODY ((size_t)64 << 20)

/* Finished easy handles kept for the next request: curl_easy_reset and the
 * client's options again cost less than curl_easy_init and
 * curl_easy_cleanup (docs/performance.md). Idle handles hold no pointer
 * into a finished request; connections stay in the multi (async) or the
 * share (blocking), not in the handle. */
#define NL__EASY_POOL_MAX 16
typedef struct {
	pthread_mutex_t mu; /* blocking calls may come from several threads */
	CURL *idle[NL__EASY_POOL_MAX];
	int n;
} nl__easy_pool;

enum { NL__POOL_BLOCKING, NL__POOL_ASYNC, NL__POOLS };

/* The client's request counters (request_metrics.c): snap is what
 * nl_client_metrics_snapshot copies out, under mu. */
typedef struct {
	pthread_mutex_t mu;
	nl_client_metrics snap;
} nl__request_metrics;

/* Zero the counters; the host label is base's url.Host. */
void nl__request_metrics_init(nl__request_metrics *m, const char *base);
void nl__request_metrics_destroy(nl__request_metrics *m);
/* One attempt answered code (0: no answer) to method. */
void nl__request_metrics_result(nl__request_metrics *m, const char *method, long code);
/* One request (its attempts and waits) took usec. */
void nl__request_metrics_latency(nl__request_metrics *m, const char *verb, int64_t usec);

struct nl_client {
	nl_rest_config *cfg;           /* deep copy, owned */
	char *base;                    /* URL prefix requests are appended to */
	struct curl_slist *connect_to; /* tls-server-name: connect here instead */
	char user_agent[160];
	const char *namespace_;
	nl_client_options opts; /* defaults resolved */
	nl_loop *loop;
	int own_loop;
	nl_clock *clock;
	nl_ratelimit *rl;
	CURLSH *share; /* blocking calls' connection cache */
	/* Held shared by each blocking attempt while it uses share, exclusively
	 * by nl_client_reset_connections to replace it. */
	pthread_rwlock_t share_rw;
	pthread_mutex_t share_locks[CURL_LOCK_DATA_LAST];
	nl_exec_cache *exec;
	nl_call *calls; /* outstanding async calls (for nl_client_free) */
	/* Blocking handles keep libcurl's private multi between performs,
	 * async ones are added to the loop's multis: two pools, so a handle
	 * does not swap one for the other. */
	nl__easy_pool pools[NL__POOLS];
	/* Header lines every request sends, formatted once (curl_slist data
	 * is char *, hence arrays rather than literals). */
	char hdr_accept[64];      /* "Accept: application/json" (or protobuf's) */
	char hdr_ctype[40];       /* "Content-Type: application/json" */
	char hdr_ctype_pb[56];    /* "Content-Type: application/vnd.kubernetes.protobuf" */
	char hdr_expect[8];       /* "Expect:": no 100-continue round trip */
	char hdr_encoding[24];    /* "Accept-Encoding: gzip" */
	char hdr_user_agent[176]; /* plain http only; see transport.c */
	nl__request_metrics metrics;
	int metrics_ready; /* metrics initialized (build_base succeeded) */
};

/* One request with its retries; shared by the blocking and async paths. */
typedef struct {
	nl_client *client;
	CURL *easy;
	nl__easy_pool *pool; /* where easy goes back when the request ends */
	int tainted;         /* easy carries an exec plugin's certificate */
	/* The request's header list: nodes here, lines mostly the client's;
	 * the x-owned lines below are freed with x. */
	struct curl_slist hdr[6];
	char *accept_line, *ctype_line, *auth_line;
	char *ctype_client; /* the client's Content-Type line, when it serves */
	char *url;
	char method[16];
	char *body;
	size_t body_len;
	char *group, *resource, *name;
	long timeout_ms;
	/* The whole request's end on the client's clock (mono), retries and
	 * their waits included, as client-go's request context; 0 = none. Set
	 * at the first attempt (after the first rate-limit wait, as client-go
	 * throttles before it starts the timeout). */
	int64_t deadline;
	nl_data_cb on_data;
	nl_stream_start_cb on_stream_start;
	void *data_payload;
	int stream_started; /* on_stream_start ran in this attempt */
	nl_loop *loop;      /* set for async transfers: stream data is buffered */
	nl__io *io;
	/* credentials this attempt used (exec plugins: refreshed on 401) */
	nl_exec_credential *cred;
	int exec_refreshed;
	/* per attempt */
	nl_buf rbuf; /* buffered body */
	nl_buf sbuf; /* async stream data waiting for the loop */
	long http;
	char content_type_in[128];
	char warning[512];
	char retry_after[32];
	size_t streamed;
	int abort;       /* 0, NL_ETOOBIG, or NL__STOPPED */
	int counted;     /* this attempt is in rest_client_requests_total already */
	int64_t started; /* client clock (mono) at init: the request's latency */
	/* This attempt's start: the client's clock (now, mono), for on_attempt. */
	int64_t attempt_at, attempt_mono;
	int attempts;
	char errbuf[CURL_ERROR_SIZE];
} nl__xfer;

#define NL__STOPPED 1 /* the data callback ended the stream */
#define NL__RETRY 1   /* nl__xfer_outcome: try again after *wait */

/* Copy req and set up an easy handle from c's pool (NL__POOL_*) or a new
 * one. NL_ENOMEM / NL_EINVAL. */
int nl__xfer_init(nl__xfer *x, nl_client *c, const nl_request *req, int pool, nl_result *res);
/* The request is over: hand its easy handle back to the pool (reset) or
 * free it. x's answer stays readable. The handle must not be in a multi. */
void nl__xfer_recycle(nl__xfer *x);
/* Prepare the next attempt: reset per-attempt state, fresh credentials.
 * NL_ECONFIG/NL_EIO (token file, exec plugin) with res filled. */
int nl__xfer_begin(nl__xfer *x, nl_result *res);
/* Judge an attempt: 0 success, NL__RETRY with *wait_usec, or a negative
 * final code with res filled. */
int nl__xfer_outcome(nl__xfer *x, CURLcode cc, nl_result *res, int64_t *wait_usec);
/* Hand the answer to a response (body moved out of x). */
int nl__xfer_response(nl_response *out, nl__xfer *x);
/* Async stream data: give the buffered bytes to on_data; returns its
 * verdict (non-zero = stop). */
int nl__xfer_deliver(nl__xfer *x);
void nl__xfer_free(nl__xfer *x);

/* A deep copy of a config (config_copy.c). NL_ENOMEM. */
int nl__config_copy(nl_rest_config **out, const nl_rest_config *in);

/* nl_client_send that frees payload with payload_free when the call is
 * released (after its callback, or cancelled without it). When it fails the
 * payload is not freed. */
int nl__client_send(nl_call **out, nl_client *c, const nl_request *req, nl_response_cb cb,
                    void *payload, void (*payload_free)(void *payload));

/* ---- typed helpers (typed.c) ------------------------------------------------------ */

#define NL__PATH_MAX 1024
/* nl_api_path into out; on failure res is reset and filled. */
int nl__path(char out[NL__PATH_MAX], const void *resource, const char *ns, const char *name,
             const char *sub, nl_result *res);
/* obj's metadata.namespace, else the client's default namespace. */
const char *nl__obj_namespace(json_object *obj, nl_client *c);
/* obj's metadata.name, or NULL (res filled with NL_EINVAL). */
const char *nl__obj_name(json_object *obj, nl_result *res);
/* A new {apiVersion, kind, metadata {name[, namespace]}}. */
int nl__object_new(json_object **out, const char *api_version, const char *kind, const char *ns,
                   const char *name);

/* async.c: cancel every call of a client (nl_client_free). */
void nl__client_cancel_all(nl_client *c);

void nl__easy_pool_init(nl__easy_pool *p);
/* Free the idle handles. */
void nl__easy_pool_free(nl__easy_pool *p);

#endif
