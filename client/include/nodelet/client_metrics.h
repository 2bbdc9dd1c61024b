/* What a client counts of its own requests, for the rest_client_* metrics
 * client-go's users export (k8s.io/component-base/metrics/prometheus/
 * restclient): every attempt by status code, method and host
 * (rest_client_requests_total), and the latency of each request with its
 * retries and rate-limit waits, watches and other streams excepted, by verb
 * and host (rest_client_request_duration_seconds). The client records;
 * whoever exports them takes a snapshot. */
#ifndef NODELET_CLIENT_METRICS_H
#define NODELET_CLIENT_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "client.h"

/* client-go's requestLatency buckets, in seconds. */
#define NL_CLIENT_LATENCY_BUCKETS 12
extern const double nl_client_latency_bounds[NL_CLIENT_LATENCY_BUCKETS];

/* Distinct (method, code) pairs and verbs kept; pairs past these are not
 * counted (a client sees a handful). */
#define NL_CLIENT_METRICS_MAX_RESULTS 32
#define NL_CLIENT_METRICS_MAX_VERBS 8

typedef struct {
	char method[16]; /* GET, PUT, … */
	long code;       /* the HTTP status; 0 = no answer (client-go's "<error>") */
	uint64_t count;
} nl_client_request_count;

typedef struct {
	char verb[16];
	/* bucket[i]: requests that took at most nl_client_latency_bounds[i]
	 * (cumulative, as Prometheus' le buckets); count is +Inf's. */
	uint64_t bucket[NL_CLIENT_LATENCY_BUCKETS];
	uint64_t count;
	double sum_seconds;
} nl_client_request_latency;

typedef struct {
	/* The server's host[:port], as Go's url.Host of the base URL. */
	char host[256];
	size_t nresults;
	nl_client_request_count results[NL_CLIENT_METRICS_MAX_RESULTS];
	size_t nverbs;
	nl_client_request_latency latency[NL_CLIENT_METRICS_MAX_VERBS];
} nl_client_metrics;

/* A consistent copy of c's counters (any thread; the counters have their own
 * lock), in the order each pair was first seen. */
void nl_client_metrics_snapshot(nl_client_metrics *out, nl_client *c);

#endif
