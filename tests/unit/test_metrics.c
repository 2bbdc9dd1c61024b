/* The mock's /metrics: the labels each request gets (as kube-apiserver's
 * metrics filter), and the text exposition format 0.0.4 — counters,
 * cumulative histogram buckets, escaping, gauges, the series cap. */
#include <stdio.h>
#include <string.h>

#include "../cu_main.h"
#include "api/route.h"
#include "core/request.h"
#include "nonresource/metrics.h"
#include "storage/store.h"

typedef struct {
	const char *method, *path, *watch, *fs, *content_type;
	const char *verb, *group, *resource, *subresource, *scope;
} label_case;

static void check_labels(const label_case *c)
{
	mock_req_attrs a;
	mock_metrics_labels l;
	char verb[16];
	mock_request_attrs(&a, c->method, c->path, c->watch, c->fs);
	mock_metrics_labels_of(&l, verb, &a, c->method, c->content_type);
	CU_ASSERT_STRING_EQUAL(l.verb, c->verb);
	CU_ASSERT_STRING_EQUAL(l.group, c->group);
	CU_ASSERT_STRING_EQUAL(l.resource, c->resource);
	CU_ASSERT_STRING_EQUAL(l.subresource, c->subresource);
	CU_ASSERT_STRING_EQUAL(l.scope, c->scope);
	if (strcmp(l.verb, c->verb) != 0 || strcmp(l.scope, c->scope) != 0)
		fprintf(stderr, "%s %s: verb %s scope %s\n", c->method, c->path, l.verb, l.scope);
}

static void test_metrics__labels_follow_the_apiserver(void)
{
	static const label_case cases[] = {
	    {"GET", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1", NULL, NULL,
	     NULL, "GET", "coordination.k8s.io", "leases", "", "resource"},
	    {"GET", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", NULL, NULL,
	     NULL, "LIST", "coordination.k8s.io", "leases", "", "namespace"},
	    {"GET", "/api/v1/configmaps", NULL, NULL, NULL, "LIST", "", "configmaps", "",
	     "cluster"},
	    {"GET", "/api/v1/nodes", "true", NULL, NULL, "WATCH", "", "nodes", "", "cluster"},
	    /* a metadata.name field selector names the object, as RequestInfo */
	    {"GET", "/api/v1/nodes", "1", "metadata.name=n1", NULL, "WATCH", "", "nodes", "",
	     "resource"},
	    {"POST", "/api/v1/namespaces/default/events", NULL, NULL, NULL, "POST", "", "events",
	     "", "resource"},
	    {"PUT", "/api/v1/nodes/n1/status", NULL, NULL, NULL, "PUT", "", "nodes", "status",
	     "resource"},
	    {"PATCH", "/api/v1/nodes/n1/status", NULL, NULL,
	     "application/strategic-merge-patch+json", "PATCH", "", "nodes", "status", "resource"},
	    {"PATCH", "/api/v1/namespaces/default/configmaps/c", NULL, NULL,
	     "application/apply-patch+yaml", "APPLY", "", "configmaps", "", "resource"},
	    {"DELETE", "/api/v1/namespaces/default/configmaps", NULL, NULL, NULL, "DELETE", "",
	     "configmaps", "", "namespace"},
	    {"GET", "/healthz", NULL, NULL, NULL, "GET", "", "", "", ""},
	    {"post", "/nope", NULL, NULL, NULL, "POST", "", "", "", ""},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_labels(&cases[i]);
}

static char *render(mock_metrics *m, size_t watchers, mock_store *store)
{
	nl_buf out;
	nl_buf_init(&out, 0);
	mock_watch_stats ws = {.watchers = watchers};
	CU_ASSERT_EQUAL_FATAL(mock_metrics_render(&out, m, &ws, store, NULL), 0);
	char *text = nl_buf_detach(&out, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	return text;
}

/* With every family: watchers open watches of leases and three lease
 * events, in-flight watermarks, one status fault. */
static char *render_all(mock_metrics *m, size_t watchers, mock_store *store)
{
	nl_buf out;
	nl_buf_init(&out, 0);
	mock_watch_stats ws = {.watchers = watchers};
	mock_watch_kind_stats *k = &ws.kinds[MOCK_KIND_LEASE];
	k->open[MOCK_WATCH_SCOPE_NAMESPACE] = watchers;
	k->seen[MOCK_WATCH_SCOPE_NAMESPACE] = 1;
	k->events = 3;
	k->size_buckets[0] = 2; /* two of up to 1 KiB, one of up to 4 KiB */
	k->size_buckets[2] = 1;
	k->size_sum = 3500;
	mock_metrics_inflight inflight = {2, 1};
	mock_metrics_count_fault(m, MOCK_METRICS_FAULT_STATUS);
	CU_ASSERT_EQUAL_FATAL(mock_metrics_render(&out, m, &ws, store, &inflight), 0);
	char *text = nl_buf_detach(&out, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	return text;
}

static const mock_metrics_labels get_lease = {"GET",     "coordination.k8s.io", "v1", "leases", "",
                                              "resource"};

static void test_metrics__counter_per_code(void)
{
	mock_metrics *m = NULL;
	CU_ASSERT_EQUAL_FATAL(mock_metrics_new(&m), 0);
	mock_metrics_observe(m, &get_lease, 200, 1000);
	mock_metrics_observe(m, &get_lease, 200, 1000);
	mock_metrics_observe(m, &get_lease, 404, 1000);
	char *text = render(m, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "# TYPE apiserver_request_total counter\n"));
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(text, "\napiserver_request_total{code=\"200\",component=\"apiserver\","
	                 "group=\"coordination.k8s.io\",resource=\"leases\",scope=\"resource\","
	                 "subresource=\"\",verb=\"GET\",version=\"v1\"} 2\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "apiserver_request_total{code=\"404\",component="
	                                    "\"apiserver\",group=\"coordination.k8s.io\","
	                                    "resource=\"leases\",scope=\"resource\",subresource="
	                                    "\"\",verb=\"GET\",version=\"v1\"} 1\n"));
	free(text);
	mock_metrics_free(m);
}

static void test_metrics__histogram_buckets_are_cumulative(void)
{
	mock_metrics *m = NULL;
	CU_ASSERT_EQUAL_FATAL(mock_metrics_new(&m), 0);
	mock_metrics_observe(m, &get_lease, 200, 1000);     /* 1 ms: le 0.005 */
	mock_metrics_observe(m, &get_lease, 200, 300000);   /* 0.3 s: le 0.4 */
	mock_metrics_observe(m, &get_lease, 200, 90000000); /* 90 s: only +Inf */
	char *text = render(m, 0, NULL);
	const char *labels = "{component=\"apiserver\",group=\"coordination.k8s.io\",le=\"%s\","
	                     "resource=\"leases\",scope=\"resource\",subresource=\"\",verb=\"GET\","
	                     "version=\"v1\"} %d\n";
	static const struct {
		const char *le;
		int n;
	} want[] = {{"0.005", 1}, {"0.2", 1}, {"0.4", 2}, {"1", 2},
	            {"1.25", 2},  {"60", 2},  {"+Inf", 3}};
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(text, "# TYPE apiserver_request_duration_seconds histogram\n"));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char line[512] = "apiserver_request_duration_seconds_bucket";
		size_t n = strlen(line);
		snprintf(line + n, sizeof(line) - n, labels, want[i].le, want[i].n);
		CU_ASSERT_PTR_NOT_NULL(strstr(text, line));
	}
	/* 23 buckets and +Inf, as kube-apiserver's */
	size_t nb = 0;
	for (const char *p = text; (p = strstr(p, "_bucket{")) != NULL; p++)
		nb++;
	CU_ASSERT_EQUAL(nb, 24);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "apiserver_request_duration_seconds_sum{component="
	                                    "\"apiserver\",group=\"coordination.k8s.io\",resource="
	                                    "\"leases\",scope=\"resource\",subresource=\"\",verb="
	                                    "\"GET\",version=\"v1\"} 90.301\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "apiserver_request_duration_seconds_count{component="
	                                    "\"apiserver\",group=\"coordination.k8s.io\",resource="
	                                    "\"leases\",scope=\"resource\",subresource=\"\",verb="
	                                    "\"GET\",version=\"v1\"} 3\n"));
	free(text);
	mock_metrics_free(m);
}

static void test_metrics__label_values_are_escaped(void)
{
	mock_metrics *m = NULL;
	CU_ASSERT_EQUAL_FATAL(mock_metrics_new(&m), 0);
	mock_metrics_labels odd = {"G\"T", "", "", "a\\b\nc", "", ""};
	mock_metrics_observe(m, &odd, 200, 0);
	char *text = render(m, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "resource=\"a\\\\b\\nc\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "verb=\"G\\\"T\""));
	free(text);
	mock_metrics_free(m);
}

static void test_metrics__every_line_is_exposition_format(void)
{
	mock_metrics *m = NULL;
	mock_store *st = NULL;
	CU_ASSERT_EQUAL_FATAL(mock_metrics_new(&m), 0);
	CU_ASSERT_EQUAL_FATAL(mock_store_new(&st, NULL, NULL), 0);
	mock_metrics_observe(m, &get_lease, 200, 5);
	char *text = render_all(m, 3, st);
	CU_ASSERT_PTR_NOT_NULL(strstr(
	    text,
	    "# TYPE apiserver_longrunning_requests gauge\n"
	    "apiserver_longrunning_requests{component=\"apiserver\",group=\"coordination.k8s.io\","
	    "resource=\"leases\",scope=\"namespace\",subresource=\"\",verb=\"WATCH\","
	    "version=\"v1\"} 3\n"));
	/* Cumulative buckets of 1 KiB, 2 KiB …; sum and count. */
	const char *gvk = "{group=\"coordination.k8s.io\",kind=\"Lease\"";
	char want[256];
	snprintf(want, sizeof(want),
	         "apiserver_watch_events_sizes_bucket%s,le=\"1024\",version=\"v1\"} 2\n", gvk);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
	snprintf(want, sizeof(want),
	         "apiserver_watch_events_sizes_bucket%s,le=\"2048\",version=\"v1\"} 2\n", gvk);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
	snprintf(want, sizeof(want),
	         "apiserver_watch_events_sizes_bucket%s,le=\"4096\",version=\"v1\"} 3\n", gvk);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
	snprintf(want, sizeof(want),
	         "apiserver_watch_events_sizes_bucket%s,le=\"131072\",version=\"v1\"} 3\n", gvk);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
	snprintf(want, sizeof(want), "apiserver_watch_events_sizes_sum%s,version=\"v1\"} 3500\n",
	         gvk);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
	snprintf(want, sizeof(want), "apiserver_watch_events_total%s,version=\"v1\"} 3\n", gvk);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(text, "apiserver_current_inflight_requests{request_kind=\"mutating\"} 1\n"
	                 "apiserver_current_inflight_requests{request_kind=\"readOnly\"} 2\n"));
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(text, "nodelet_mockapi_injected_faults_total{action=\"status\"} 1\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "# TYPE apiserver_storage_objects gauge\n"));
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(text, "apiserver_storage_objects{resource=\"leases.coordination.k8s.io\"} 0\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "apiserver_storage_objects{resource=\"nodes\"} 0\n"));
	/* Each line: a comment (# HELP/# TYPE) or `name{labels} value`. */
	CU_ASSERT_EQUAL(text[strlen(text) - 1], '\n');
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == '#') {
			CU_ASSERT(strncmp(line, "# HELP ", 7) == 0 ||
			          strncmp(line, "# TYPE ", 7) == 0);
			continue;
		}
		/* name{labels} value, or name value */
		char *brace = strchr(line, '{'), *close = strrchr(line, '}');
		if (!brace)
			close = strchr(line, ' ') - 1;
		CU_ASSERT_PTR_NOT_NULL_FATAL(close);
		CU_ASSERT_EQUAL(close[1], ' ');
		char *end = NULL;
		strtod(close + 2, &end);
		CU_ASSERT(end && *end == '\0' && end > close + 2);
	}
	free(text);
	mock_store_free(st);
	mock_metrics_free(m);
}

/* The watch cache's counter of watchers closed for being slow (only the
 * resources that had one, as a counter vector shows), and the mock's watch
 * memory gauge and refusals. */
static void test_metrics__watch_memory(void)
{
	nl_buf out;
	mock_watch_stats ws = {.watchers = 2, .buffered = 12345, .refused = 4};
	nl_buf_init(&out, 0);
	CU_ASSERT_EQUAL_FATAL(mock_metrics_render(&out, NULL, &ws, NULL, NULL), 0);
	CU_ASSERT_PTR_NULL(strstr(out.data, "apiserver_terminated_watchers_total"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out.data, "\nnodelet_mockapi_watch_buffer_bytes 12345\n"));
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(out.data, "\nnodelet_mockapi_watch_buffer_refused_total 4\n"));
	nl_buf_free(&out);
	ws.terminated[MOCK_KIND_CONFIGMAP] = 3;
	ws.terminated[MOCK_KIND_LEASE] = 1;
	nl_buf_init(&out, 0);
	CU_ASSERT_EQUAL_FATAL(mock_metrics_render(&out, NULL, &ws, NULL, NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(out.data, "# TYPE apiserver_terminated_watchers_total counter\n"
	                     "apiserver_terminated_watchers_total{resource=\"configmaps\"} 3\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(
	    out.data,
	    "apiserver_terminated_watchers_total{resource=\"leases.coordination.k8s.io\"} 1\n"));
	CU_ASSERT_PTR_NULL(strstr(out.data, "{resource=\"nodes\"}"));
	nl_buf_free(&out);
}

/* A request counts in the series whose six labels equal its own, by value;
 * a label longer than a series keeps is cut first. */
static void test_metrics__series_match_by_value(void)
{
	mock_metrics *m = NULL;
	CU_ASSERT_EQUAL_FATAL(mock_metrics_new(&m), 0);
	char verb[16] = "GET";
	mock_metrics_labels a = {verb, "g", "v1", "leases", "", "resource"};
	mock_metrics_labels same = {"GET", "g", "v1", "leases", "", "resource"};
	mock_metrics_labels sub = {"GET", "g", "v1", "leases", "status", "resource"};
	mock_metrics_labels longer = {"GETX", "g", "v1", "leases", "", "resource"};
	mock_metrics_labels cut1 = {"VERB-0123456789-a", "g", "v1", "leases", "", "resource"};
	mock_metrics_labels cut2 = {"VERB-0123456789-b", "g", "v1", "leases", "", "resource"};
	mock_metrics_observe(m, &a, 200, 0);
	mock_metrics_observe(m, &same, 200, 0);
	mock_metrics_observe(m, &sub, 200, 0);
	mock_metrics_observe(m, &longer, 200, 0);
	mock_metrics_observe(m, &cut1, 200, 0);
	mock_metrics_observe(m, &cut2, 200, 0);
	char *text = render(m, 0, NULL);
	size_t n = 0;
	for (const char *p = text; (p = strstr(p, "\napiserver_request_total{")) != NULL; p++)
		n++;
	CU_ASSERT_EQUAL(n, 4);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "scope=\"resource\",subresource=\"\",verb=\"GET\","
	                                    "version=\"v1\"} 2\n"));
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(text, "subresource=\"status\",verb=\"GET\",version=\"v1\"} 1\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "verb=\"GETX\",version=\"v1\"} 1\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "verb=\"VERB-0123456789\",version=\"v1\"} 2\n"));
	free(text);
	mock_metrics_free(m);
}

static void test_metrics__series_are_capped(void)
{
	mock_metrics *m = NULL;
	CU_ASSERT_EQUAL_FATAL(mock_metrics_new(&m), 0);
	for (int i = 0; i < MOCK_METRICS_MAX_SERIES + 50; i++) {
		char verb[16];
		snprintf(verb, sizeof(verb), "X%d", i);
		mock_metrics_labels l = {verb, "", "", "", "", ""};
		mock_metrics_observe(m, &l, 200, 0);
	}
	char *text = render(m, 0, NULL);
	size_t n = 0;
	for (const char *p = text; (p = strstr(p, "\napiserver_request_total{")) != NULL; p++)
		n++;
	CU_ASSERT_EQUAL(n, MOCK_METRICS_MAX_SERIES);
	free(text);
	mock_metrics_free(m);
}

static void test_metrics__served_at_metrics(void)
{
	mock_metrics *m = NULL;
	CU_ASSERT_EQUAL_FATAL(mock_metrics_new(&m), 0);
	mock_request req;
	memset(&req, 0, sizeof(req));
	req.method = "GET";
	req.path = "/metrics";
	mock_response resp;
	mock_response_init(&resp);
	CU_ASSERT_EQUAL(mock_metrics_handle(m, NULL, NULL, NULL, &req, &resp), 1);
	CU_ASSERT_EQUAL(resp.code, 200);
	CU_ASSERT_STRING_EQUAL(resp.content_type, "text/plain; version=0.0.4; charset=utf-8");
	CU_ASSERT_PTR_NOT_NULL(strstr(resp.body.data, "# TYPE apiserver_request_total counter"));
	mock_response_free(&resp);

	mock_response_init(&resp);
	req.method = "POST";
	CU_ASSERT_EQUAL(mock_metrics_handle(m, NULL, NULL, NULL, &req, &resp), 1);
	CU_ASSERT_EQUAL(resp.code, 405);
	mock_response_free(&resp);

	mock_response_init(&resp);
	req.path = "/metricsx";
	CU_ASSERT_EQUAL(mock_metrics_handle(m, NULL, NULL, NULL, &req, &resp), 0);
	mock_response_free(&resp);
	mock_metrics_free(m);
}

static CU_TestInfo tests[] = {
    {"labels_follow_the_apiserver", test_metrics__labels_follow_the_apiserver},
    {"series_match_by_value", test_metrics__series_match_by_value},
    {"counter_per_code", test_metrics__counter_per_code},
    {"histogram_buckets_are_cumulative", test_metrics__histogram_buckets_are_cumulative},
    {"label_values_are_escaped", test_metrics__label_values_are_escaped},
    {"every_line_is_exposition_format", test_metrics__every_line_is_exposition_format},
    {"series_are_capped", test_metrics__series_are_capped},
    {"served_at_metrics", test_metrics__served_at_metrics},
    {"watch_memory", test_metrics__watch_memory},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {{"metrics", NULL, NULL, NULL, NULL, tests}, CU_SUITE_INFO_NULL};
