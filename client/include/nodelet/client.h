/* The client transport: HTTP to a Kubernetes API server over libcurl, from
 * an nl_rest_config (config.h).
 *
 * - Keep-alive connections are reused (HTTP/1.1), gzip is accepted, the
 *   User-Agent is "nodelet/<version> (<os>/<arch>)".
 * - TLS verification is on unless the config says insecure-skip-tls-verify;
 *   CA, client certificate and key come from files or from memory (never
 *   written to disk); tls-server-name changes the name sent in SNI and
 *   verified in the certificate.
 * - A client-side token bucket (QPS/burst, default 5/10 like client-go)
 *   throttles every attempt, retries included.
 * - client-go's retry rule: an answer 429 or >= 500 carrying an integer
 *   Retry-After is retried after that many seconds, and a GET whose
 *   connection was reset is retried after 1 s; at most max_retries (10)
 *   retries.
 * - Every non-2xx answer fills the call's nl_result with the Status
 *   (result.h) and returns the matching NL_E* code.
 * - The wire format is JSON or Kubernetes protobuf (nl_client_options.
 *   content_type, kubelet's --kube-api-content-type): with protobuf, POST
 *   and PUT bodies are protobuf (PATCH stays JSON), the Accept header is
 *   client-go's for that content type, and answers are decoded by their
 *   Content-Type, JSON or protobuf, into the same JSON trees.
 *
 * Two ways to call: nl_client_do blocks the calling thread (and may be used
 * from any thread, concurrently); nl_client_send queues the request on the
 * client's nl_loop (loop.h) and completes it through a callback on the
 * loop's thread. */
#ifndef NODELET_CLIENT_H
#define NODELET_CLIENT_H

#include <stddef.h>

#include "clock.h"
#include "config.h"
#include "loop.h"
#include "result.h"

typedef struct nl_client nl_client;
typedef struct nl_call nl_call;

/* The wire format of request bodies and the one asked for in answers
 * (client-go's rest.Config ContentType). */
typedef enum {
	NL_CONTENT_JSON = 0, /* application/json: client-go's default */
	NL_CONTENT_PROTOBUF, /* application/vnd.kubernetes.protobuf: kubelet's */
} nl_content_type;

#define NL_CONTENT_TYPE_JSON "application/json"
/* kubelet's Accept in protobuf mode: setContentTypeForClient
 * (cmd/kubelet/app/server.go) sets AcceptContentTypes to protobuf, then
 * JSON, so a server that answers some kind only in JSON still works.
 * (client-go alone would send the ContentType and ", *\/\*".) */
#define NL_ACCEPT_PROTOBUF "application/vnd.kubernetes.protobuf,application/json"

/* "application/json" or "application/vnd.kubernetes.protobuf"; NULL for
 * anything else. */
const char *nl_content_type_name(nl_content_type t);
/* The content type a media type names (kubelet's flag values, exactly):
 * 0, or NL_EINVAL for anything else. */
int nl_content_type_parse(nl_content_type *out, const char *media_type);

/* One attempt of a request, as the client saw it (all borrowed for the
 * call): what nl_client_options.on_attempt is told. */
typedef struct {
	const char *method; /* "GET", "PUT", ... */
	/* After the server URL, query included, as sent (percent-encoded):
	 * "/api/v1/nodes/edge-1". */
	const char *path;
	long code;             /* the HTTP status; 0 = no answer */
	int64_t at;            /* the client's clock (nl_clock_now) when it was sent */
	int64_t duration_usec; /* until its answer, or a stream's first bytes */
	size_t request_bytes;  /* the body sent */
	const char *user_agent;
} nl_request_attempt;

/* Called once per attempt when it is over (a stream: when its answer
 * starts), retries included, on the thread that ran it: the blocking
 * caller's or the loop's. It must not call the client. */
typedef void (*nl_attempt_cb)(const nl_request_attempt *a, void *payload);

typedef struct {
	double qps;              /* 0 = 5; < 0 = no client-side limit */
	int burst;               /* 0 = 10 */
	int max_retries;         /* 0 = 10; < 0 = never retry */
	long connect_timeout_ms; /* 0 = 30000 (client-go's dialer) */
	/* Whole-request limit for ordinary requests; 0 = 60000, < 0 = none.
	 * It bounds each attempt, and the retries with their waits on the
	 * clock: a retry whose wait would end past it is not made (client-go's
	 * request context). Streams (nl_request.on_data) are never cut by it. */
	long timeout_ms;
	size_t max_body;        /* cap on a buffered response body; 0 = 64 MiB */
	const char *user_agent; /* NULL = "nodelet/<version> (<os>/<arch>)" */
	/* The loop async calls run on (borrowed, must outlive the client).
	 * NULL = the client makes its own, reachable through nl_client_loop,
	 * on `clock` (borrowed; NULL = a real clock). The client waits (rate
	 * limit, retries) on the loop's clock. */
	nl_loop *loop;
	nl_clock *clock;
	nl_content_type content_type; /* 0 = JSON */
	/* Each attempt's outcome (a test's or a runner's record of what this
	 * client sent); NULL = none. */
	nl_attempt_cb on_attempt;
	void *attempt_payload;
} nl_client_options;

void nl_client_options_init(nl_client_options *o);

/* Create a client for cfg (copied: cfg may be freed afterwards). o NULL =
 * defaults. NL_ECONFIG with the reason in err when the config cannot work
 * (no server, unreadable CA/cert/key file, CA data without a PEM
 * certificate, a certificate without a key, a CA together with
 * insecure-skip-tls-verify — client-go refuses that too). *out belongs to
 * the caller: nl_client_free. */
int nl_client_new(nl_client **out, const nl_rest_config *cfg, const nl_client_options *o,
                  nl_err *err);
/* Cancel the client's async calls (their callbacks do not run) and free it.
 * Watches and informers on it must be stopped first. Accepts NULL. */
void nl_client_free(nl_client *c);

nl_loop *nl_client_loop(const nl_client *c);
nl_clock *nl_client_clock(const nl_client *c);
/* The config's default namespace ("default" when it names none). Borrowed. */
const char *nl_client_namespace(const nl_client *c);
/* The server URL the client talks to (borrowed). */
const char *nl_client_server(const nl_client *c);
/* The wire format the client was made with. */
nl_content_type nl_client_content_type(const nl_client *c);
/* Close the keep-alive connections of blocking calls (kubelet's
 * closeAllConns after repeated heartbeat failures): a half-dead TCP
 * connection is never reused, the next call connects afresh. Waits for
 * blocking calls in flight on other threads to finish their attempt. The
 * loop's pool (async calls, watches) is not touched. NL_ENOMEM (the old
 * connections are then kept). */
int nl_client_reset_connections(nl_client *c);

/* Body chunks of a 2xx answer, in order, instead of buffering them: return 0
 * to continue, non-zero to end the request (not an error). */
typedef int (*nl_data_cb)(const char *data, size_t len, void *payload);
/* A 2xx stream begins: its Content-Type ("" when none), before the first
 * on_data call of each attempt. Same verdict as nl_data_cb. */
typedef int (*nl_stream_start_cb)(const char *content_type, void *payload);

typedef struct {
	const char *method; /* "GET", "POST", "PUT", "PATCH", "DELETE" */
	const char *path;   /* absolute, query included: "/api/v1/nodes?limit=500" */
	const char *body;   /* NULL = none */
	size_t body_len;
	const char *content_type; /* NULL = "application/json" when there is a body */
	/* NULL = the client's: "application/json", or NL_ACCEPT_PROTOBUF for a
	 * protobuf client */
	const char *accept;
	long timeout_ms; /* 0 = the client's; < 0 = none */
	/* What the path names, for the Status synthesized when an answer is
	 * not one ("... (get leases.coordination.k8s.io x)"). NULL = derived
	 * from path. */
	const char *group, *resource, *name;
	nl_data_cb on_data;                 /* stream the body (watch); NULL = buffer it */
	void *data_payload;                 /* passed to on_data and on_stream_start */
	nl_stream_start_cb on_stream_start; /* may be NULL */
} nl_request;

typedef struct {
	long http_status;
	char *body; /* NUL-terminated ("" when streamed or empty); owned */
	size_t body_len;
	char content_type[128];
	char warning[512]; /* Warning header(s), "" when none */
} nl_response;

/* Free the body; accepts NULL. */
void nl_response_clear(nl_response *r);

/* Perform req on the calling thread, waiting for the rate limiter and
 * between retries on the client's clock. 0 on a 2xx answer, with *out filled
 * (out may be NULL to discard the body); otherwise a negative code with the
 * detail in res (may be NULL) and *out untouched (NL_ECANCELED, nothing
 * sent, when the clock is stopped before an attempt or during a wait: a
 * shutdown sends no more requests). Thread-safe: blocking calls share a
 * keep-alive connection cache (a CURLSH) but nothing else. */
int nl_client_do(nl_response *out, nl_client *c, const nl_request *req, nl_result *res);

/* Completion of an async call. resp is NULL when no HTTP answer arrived;
 * both are borrowed until the callback returns (take resp->body by setting it
 * to NULL, or the Status with nl_result_move). */
typedef void (*nl_response_cb)(nl_response *resp, const nl_result *res, void *payload);

/* Queue req on the client's loop; cb(payload) runs exactly once from
 * nl_loop_step unless the call is cancelled first. Everything in req is
 * copied. *out (may be NULL) stays valid until the callback starts. Must be
 * called on the loop's thread. NL_ENOMEM / NL_EINVAL. */
int nl_client_send(nl_call **out, nl_client *c, const nl_request *req, nl_response_cb cb,
                   void *payload);
/* Abandon a call that has not completed: its callbacks never run. Accepts
 * NULL. */
void nl_call_cancel(nl_call *call);

#endif
