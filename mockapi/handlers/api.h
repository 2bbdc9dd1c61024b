/* The state every handler reads, and the hooks through which the layers
 * above the handlers (the control API, the built-in controllers) take part
 * in a request without the handlers calling up into them: the owner
 * (control/control.c) installs them. */
#ifndef MOCK_HANDLERS_API_H
#define MOCK_HANDLERS_API_H

#include "api/route.h"
#include "core/options.h"
#include "core/request.h"

struct mock_store;
struct mock_watch_hub;
struct mock_access;
struct mock_metrics;

typedef struct mock_api_hooks {
	/* Whether path is one the owner serves itself (the control API); such a
	 * request skips authorization here, the owner decides. */
	int (*owns_path)(void *payload, const char *path);
	/* Answer a request for such a path. */
	void (*handle_path)(void *payload, const mock_request *req, mock_response *resp);
	/* Around a DELETE of an object (rt) or a collection: before the store
	 * deletes and after (wake the garbage collector). Either may be
	 * NULL. */
	void (*before_delete)(void *payload, const mock_route *rt, const mock_request *req);
	void (*after_delete)(void *payload);
	void *payload;
} mock_api_hooks;

typedef struct mock_api {
	struct mock_store *store;
	const mock_options *opts;
	unsigned port;
	/* The watch hub (watch/watch.h); NULL: watch answers 405 (unit tests). */
	struct mock_watch_hub *watch;
	/* TLS, authentication, authorization, limits (auth/access.h); NULL:
	 * none (unit tests). */
	struct mock_access *access;
	/* Request counts and latencies for /metrics (nonresource/metrics.h);
	 * NULL: not counted (unit tests, fixtures). */
	struct mock_metrics *metrics;
	/* Zeroed: no control API, nothing around deletes (unit tests). */
	mock_api_hooks hooks;
} mock_api;

/* Route and handle one request (dispatch.c): authentication's verdict and
 * authorization, the body limit, the owner's paths, metrics, discovery,
 * then the verb's handler. Never fails: every problem is an HTTP answer in
 * resp. */
void mock_api_handle(mock_api *api, const mock_request *req, mock_response *resp);

#endif
