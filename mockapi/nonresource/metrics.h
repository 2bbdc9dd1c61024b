/* Prometheus metrics of nodelet-mockapi at /metrics, named and labelled as
 * kube-apiserver's, so dashboards and queries written for a cluster work
 * against the mock: apiserver_request_total and
 * apiserver_request_duration_seconds (the apiserver's buckets) per verb,
 * group, version, resource, subresource and scope (+ code for the counter),
 * apiserver_longrunning_requests for open watches and
 * apiserver_storage_objects per resource. Text exposition format 0.0.4.
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

/* The exposition text: counters and histograms, then open watches and,
 * when store is not NULL, objects per resource; with watch (may be NULL),
 * the watchers closed for being slow and the watch memory. NL_ENOMEM. */
int mock_metrics_render(nl_buf *out, mock_metrics *m, const mock_watch_stats *watch,
                        mock_store *store);

/* Answer GET /metrics (1: answered, 0: another path) with m's series, the
 * open watches of watch and the objects of store (either may be NULL).
 * Authorization has run already (mock_api_handle), as for /healthz. */
int mock_metrics_handle(mock_metrics *m, mock_store *store, struct mock_watch_hub *watch,
                        const mock_request *req, mock_response *resp);

#endif
