/* Prometheus metrics of nodelet-mockapi at /metrics, named and labelled as
 * kube-apiserver's, so dashboards and queries written for a cluster work
 * against the mock: apiserver_request_total and
 * apiserver_request_duration_seconds (the apiserver's buckets) per verb,
 * group, version, resource, subresource and scope (+ code for the counter),
 * apiserver_longrunning_requests for open watches,
 * apiserver_watch_events_total and _sizes, apiserver_current_inflight_requests,
 * apiserver_storage_objects per resource, process_*, and the mock's own
 * nodelet_mockapi_* (injected faults, watch memory). Text exposition format
 * 0.0.4.
 * See docs/mockapi.md "Metrics". */
#ifndef MOCK_METRICS_H
#define MOCK_METRICS_H

#include <nodelet/buf.h>
#include <stddef.h>
#include <stdint.h>

#include "api/route.h"
#include "core/request.h"
#include "storage/store.h"
#include "watch/watch.h"

typedef struct mock_metrics mock_metrics;

/* Distinct label sets kept; requests beyond (only odd non-resource verbs
 * can get there) are not counted, so a client cannot grow memory. */
#define MOCK_METRICS_MAX_SERIES 1024

int mock_metrics_new(mock_metrics **out);
/* Monotonic microseconds, what request durations are measured in. */
int64_t mock_metrics_now(void);
void mock_metrics_free(mock_metrics *m);
/* Forget every observation, as if new (mock_server_rewind). */
void mock_metrics_clear(mock_metrics *m);

/* The labels of one request, as the apiserver's metrics filter computes
 * them: verb GET, LIST, WATCH, POST, PUT, PATCH, APPLY (a server-side
 * apply PATCH) or DELETE (deletecollection too); for non-resource
 * requests the upper-case method and empty resource labels; scope
 * "resource" for a named object or a create, "namespace", "cluster", or
 * "" for non-resource requests. Strings point into attrs or static
 * tables. */
typedef struct {
	const char *verb;
	const char *group;
	const char *version;
	const char *resource;
	const char *subresource;
	const char *scope;
} mock_metrics_labels;

void mock_metrics_labels_of(mock_metrics_labels *out, char verb_buf[16],
                            const mock_req_attrs *attrs, const char *method,
                            const char *content_type);

/* Count one answered request; thread-safe; m NULL does nothing. */
void mock_metrics_observe(mock_metrics *m, const mock_metrics_labels *l, int code,
                          int64_t duration_usec);
/* Count one request of the server: its labels from the request itself. */
void mock_metrics_observe_request(mock_metrics *m, const mock_request *req, int code,
                                  int64_t duration_usec);
/* The scope label of a watch request, for its open-watches series. */
mock_watch_scope mock_metrics_watch_scope(const mock_request *req);

/* The actions of the control API's faults, the action label of
 * nodelet_mockapi_injected_faults_total (ours: upstream has no faults). */
typedef enum {
	MOCK_METRICS_FAULT_DELAY, /* a delay alone; one with another action counts as that */
	MOCK_METRICS_FAULT_DROP,
	MOCK_METRICS_FAULT_MALFORMED,
	MOCK_METRICS_FAULT_STATUS,
	MOCK_METRICS_FAULT_TRUNCATE,
	MOCK_METRICS_FAULT_WATCH,
	MOCK_METRICS_FAULT_ACTIONS
} mock_metrics_fault;
/* Count one fault that fired; thread-safe; m NULL does nothing. */
void mock_metrics_count_fault(mock_metrics *m, mock_metrics_fault action);

/* apiserver_current_inflight_requests' values: the watermarks of the
 * last second (auth/request_limits.h). */
typedef struct {
	unsigned readonly, mutating;
} mock_metrics_inflight;

/* The exposition text: counters and histograms, faults, in-flight
 * requests (inflight NULL: no limit, no metric), open watches and, when
 * store is not NULL, objects per resource; with watch (may be NULL), the
 * watch events, the watchers closed for being slow and the watch memory;
 * then process_*. NL_ENOMEM. */
int mock_metrics_render(nl_buf *out, mock_metrics *m, const mock_watch_stats *watch,
                        mock_store *store, const mock_metrics_inflight *inflight);

/* Answer GET /metrics (1: answered, 0: another path) with m's series, the
 * open watches of watch and the objects of store (either may be NULL),
 * and the in-flight watermarks (NULL: none).
 * Authorization has run already (mock_api_handle), as for /healthz. */
int mock_metrics_handle(mock_metrics *m, mock_store *store, struct mock_watch_hub *watch,
                        const mock_metrics_inflight *inflight, const mock_request *req,
                        mock_response *resp);

#endif
