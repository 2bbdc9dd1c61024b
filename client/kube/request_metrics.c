/* The client's own request counters (nodelet/client_metrics.h): recorded by
 * the transport at each attempt's end and each request's end, read by
 * whoever exports them. Fixed-size tables under one mutex: a few hundred
 * bytes, no allocation on the request path. */
#include <nodelet/client_metrics.h>
#include <stdio.h>
#include <string.h>

#include "kube.h"

const double nl_client_latency_bounds[NL_CLIENT_LATENCY_BUCKETS] = {
    0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0};

void nl__request_metrics_init(nl__request_metrics *m, const char *base)
{
	memset(m, 0, sizeof(*m));
	pthread_mutex_init(&m->mu, NULL);
	/* url.Host: between the scheme's "//" and the path. */
	const char *h = strstr(base, "://");
	h = h ? h + 3 : base;
	size_t n = strcspn(h, "/?#");
	const char *at = memchr(h, '@', n); /* userinfo is not part of Host */
	if (at) {
		n -= (size_t)(at + 1 - h);
		h = at + 1;
	}
	snprintf(m->snap.host, sizeof(m->snap.host), "%.*s", (int)n, h);
}

void nl__request_metrics_destroy(nl__request_metrics *m)
{
	pthread_mutex_destroy(&m->mu);
}

void nl__request_metrics_result(nl__request_metrics *m, const char *method, long code)
{
	nl_client_metrics *s = &m->snap;
	pthread_mutex_lock(&m->mu);
	size_t i = 0;
	while (i < s->nresults &&
	       (s->results[i].code != code || strcmp(s->results[i].method, method) != 0))
		i++;
	if (i == s->nresults && i < NL_CLIENT_METRICS_MAX_RESULTS) {
		snprintf(s->results[i].method, sizeof(s->results[i].method), "%s", method);
		s->results[i].code = code;
		s->nresults++;
	}
	if (i < s->nresults)
		s->results[i].count++;
	pthread_mutex_unlock(&m->mu);
}

void nl__request_metrics_latency(nl__request_metrics *m, const char *verb, int64_t usec)
{
	nl_client_metrics *s = &m->snap;
	double sec = usec > 0 ? (double)usec / 1e6 : 0.0;
	pthread_mutex_lock(&m->mu);
	size_t i = 0;
	while (i < s->nverbs && strcmp(s->latency[i].verb, verb) != 0)
		i++;
	if (i == s->nverbs && i < NL_CLIENT_METRICS_MAX_VERBS) {
		snprintf(s->latency[i].verb, sizeof(s->latency[i].verb), "%s", verb);
		s->nverbs++;
	}
	if (i < s->nverbs) {
		nl_client_request_latency *l = &s->latency[i];
		for (int b = 0; b < NL_CLIENT_LATENCY_BUCKETS; b++)
			if (sec <= nl_client_latency_bounds[b])
				l->bucket[b]++;
		l->count++;
		l->sum_seconds += sec;
	}
	pthread_mutex_unlock(&m->mu);
}

void nl_client_metrics_snapshot(nl_client_metrics *out, nl_client *c)
{
	pthread_mutex_lock(&c->metrics.mu);
	*out = c->metrics.snap;
	pthread_mutex_unlock(&c->metrics.mu);
}
