/* client-go's rest_client_* metrics (k8s.io/component-base/metrics/
 * prometheus/restclient) from the client's counters: the names, help texts,
 * label names and buckets of Kubernetes 1.32, labels sorted by name as
 * client_golang writes them. */
#include <stdio.h>

#include <nodelet/process_metrics.h>

#include "std_metrics.h"

/* A label value as the text format escapes it. */
static int add_value(nl_buf *out, const char *v)
{
	int rc = 0;
	for (; rc == 0 && *v; v++) {
		if (*v == '\\' || *v == '"')
			rc = nl_buf_printf(out, "\\%c", *v);
		else if (*v == '\n')
			rc = nl_buf_adds(out, "\\n");
		else
			rc = nl_buf_add(out, v, 1);
	}
	return rc;
}

static int render_requests(nl_buf *out, const nl_client_metrics *m)
{
	int rc = nl_buf_adds(out, "# HELP rest_client_requests_total [ALPHA] Number of HTTP "
	                          "requests, partitioned by status code, method, and host.\n"
	                          "# TYPE rest_client_requests_total counter\n");
	for (size_t i = 0; rc == 0 && i < m->nresults; i++) {
		const nl_client_request_count *r = &m->results[i];
		char code[24] = "<error>";
		if (r->code)
			snprintf(code, sizeof(code), "%ld", r->code);
		rc = nl_buf_printf(out, "rest_client_requests_total{code=\"%s\",host=\"", code);
		if (rc == 0)
			rc = add_value(out, m->host);
		if (rc == 0)
			rc = nl_buf_adds(out, "\",method=\"");
		if (rc == 0)
			rc = add_value(out, r->method);
		if (rc == 0)
			rc = nl_buf_printf(out, "\"} %llu\n", (unsigned long long)r->count);
	}
	return rc;
}

/* name{host="…",verb="…"[,le="…"]} */
static int series(nl_buf *out, const char *name, const nl_client_metrics *m, const char *verb,
                  const char *le)
{
	int rc = nl_buf_printf(out, "rest_client_request_duration_seconds%s{host=\"", name);
	if (rc == 0)
		rc = add_value(out, m->host);
	if (rc == 0)
		rc = nl_buf_adds(out, "\",verb=\"");
	if (rc == 0)
		rc = add_value(out, verb);
	if (rc == 0 && le)
		rc = nl_buf_printf(out, "\",le=\"%s", le);
	return rc == 0 ? nl_buf_adds(out, "\"}") : rc;
}

static int render_latency(nl_buf *out, const nl_client_metrics *m)
{
	int rc = nl_buf_adds(out, "# HELP rest_client_request_duration_seconds [ALPHA] Request "
	                          "latency in seconds. Broken down by verb, and host.\n"
	                          "# TYPE rest_client_request_duration_seconds histogram\n");
	for (size_t i = 0; rc == 0 && i < m->nverbs; i++) {
		const nl_client_request_latency *l = &m->latency[i];
		char le[32];
		for (int b = 0; rc == 0 && b < NL_CLIENT_LATENCY_BUCKETS; b++) {
			snprintf(le, sizeof(le), "%g", nl_client_latency_bounds[b]);
			rc = series(out, "_bucket", m, l->verb, le);
			if (rc == 0)
				rc =
				    nl_buf_printf(out, " %llu\n", (unsigned long long)l->bucket[b]);
		}
		if (rc == 0)
			rc = series(out, "_bucket", m, l->verb, "+Inf");
		if (rc == 0)
			rc = nl_buf_printf(out, " %llu\n", (unsigned long long)l->count);
		if (rc == 0)
			rc = series(out, "_sum", m, l->verb, NULL);
		if (rc == 0)
			rc = nl_buf_printf(out, " %.9g\n", l->sum_seconds);
		if (rc == 0)
			rc = series(out, "_count", m, l->verb, NULL);
		if (rc == 0)
			rc = nl_buf_printf(out, " %llu\n", (unsigned long long)l->count);
	}
	return rc;
}

int nl__rest_client_metrics_render(nl_buf *out, const nl_client_metrics *m)
{
	int rc = render_latency(out, m);
	return rc == 0 ? render_requests(out, m) : rc;
}

int nl__std_metrics_render(nl_buf *out, nl_client *c)
{
	nl_client_metrics m;
	nl_client_metrics_snapshot(&m, c);
	int rc = nl__rest_client_metrics_render(out, &m);
	if (rc == 0)
		rc = nl_process_metrics_render_self(out);
	return rc;
}
