/* The agent's --metrics-bind-address: the exposition (lease renewals, last
 * renewal, kubelet's node_config_* gauges and labels) and the little HTTP
 * server (/metrics, /healthz, 404, 405, bad addresses). */
#include <curl/curl.h>
#include <nodelet/agent.h>
#include <stdio.h>
#include <string.h>

#include "../../client/agent/agent_metrics.h"
#include "../cu_main.h"

static char *render(const nl__agent_metrics_values *v)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL_FATAL(nl__agent_metrics_render(&b, v), 0);
	char *text = nl_buf_detach(&b, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	return text;
}

static void test_agent_metrics__lease_counters(void)
{
	nl__agent_metrics_values v = {7, 2, 1767322800500000LL, NULL};
	char *text = render(&v);
	CU_ASSERT_PTR_NOT_NULL(strstr(text,
	                              "# TYPE nodelet_node_lease_renewals_total counter\n"
	                              "nodelet_node_lease_renewals_total{result=\"failure\"} 2\n"
	                              "nodelet_node_lease_renewals_total{result=\"success\"} 7\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text,
	                              "# TYPE nodelet_node_lease_last_renew_timestamp_seconds "
	                              "gauge\nnodelet_node_lease_last_renew_timestamp_seconds "
	                              "1767322800.500000\n"));
	/* Without dynamic config there is no node_config_* at all. */
	CU_ASSERT_PTR_NULL(strstr(text, "node_config"));
	free(text);
}

static void test_agent_metrics__node_config_gauges(void)
{
	json_object *status = json_tokener_parse(
	    "{\"assigned\":{\"configMap\":{\"namespace\":\"kube-system\",\"name\":\"cfg-b\","
	    "\"uid\":\"u-b\",\"resourceVersion\":\"12\",\"kubeletConfigKey\":\"nodelet\"}},"
	    "\"lastKnownGood\":{\"configMap\":{\"namespace\":\"kube-system\",\"name\":\"cfg-a\","
	    "\"uid\":\"u-a\",\"resourceVersion\":\"9\",\"kubeletConfigKey\":\"nodelet\"}},"
	    "\"error\":\"failed to validate config\"}");
	CU_ASSERT_PTR_NOT_NULL_FATAL(status);
	nl__agent_metrics_values v = {0, 0, 0, status};
	char *text = render(&v);
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(text, "nodelet_node_config_assigned{node_config_kubelet_key=\"nodelet\","
	                 "node_config_resource_version=\"12\","
	                 "node_config_source=\"/api/v1/namespaces/kube-system/configmaps/cfg-b\","
	                 "node_config_uid=\"u-b\"} 1\n"));
	/* no active source: the local configuration, as kubelet labels it */
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(text, "nodelet_node_config_active{node_config_kubelet_key=\"\","
	                 "node_config_resource_version=\"\",node_config_source=\"local\","
	                 "node_config_uid=\"\"} 1\n"));
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(text, "nodelet_node_config_last_known_good{node_config_kubelet_key=\"nodelet\","
	                 "node_config_resource_version=\"9\","
	                 "node_config_source=\"/api/v1/namespaces/kube-system/configmaps/cfg-a\","
	                 "node_config_uid=\"u-a\"} 1\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "# TYPE nodelet_node_config_error gauge\n"
	                                    "nodelet_node_config_error 1\n"));
	free(text);
	json_object_put(status);

	status = json_object_new_object();
	v.config_status = status;
	text = render(&v);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "nodelet_node_config_error 0\n"));
	free(text);
	json_object_put(status);
}

static size_t collect(char *data, size_t size, size_t n, void *payload)
{
	nl_buf *b = payload;
	return nl_buf_add(b, data, size * n) == 0 ? size * n : 0;
}

/* GET (or another method) on the metrics port; the status, the body in b. */
static long fetch(nl_buf *b, unsigned port, const char *method, const char *path)
{
	char url[128];
	long code = 0;
	snprintf(url, sizeof(url), "http://127.0.0.1:%u%s", port, path);
	CURL *h = curl_easy_init();
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, b);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 5L);
	if (curl_easy_perform(h) == CURLE_OK)
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_cleanup(h);
	return code;
}

static nl_agent *new_agent(void)
{
	nl_rest_config rest;
	nl_agent_options o;
	nl_agent *a = NULL;
	memset(&rest, 0, sizeof(rest));
	rest.server = (char *)"http://127.0.0.1:1"; /* never contacted */
	nl_agent_options_init(&o);
	o.node_name = "edge-1";
	o.rest_config = &rest;
	CU_ASSERT_EQUAL_FATAL(nl_agent_new(&a, &o, NULL), 0);
	return a;
}

static void test_agent_metrics__served_over_http(void)
{
	nl_agent *a = new_agent();
	nl__agent_metrics *m = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(nl__agent_metrics_start(&m, a, NULL, "127.0.0.1:0", &err), 0);
	unsigned port = nl__agent_metrics_port(m);
	CU_ASSERT(port > 0);

	nl_buf b;
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL(fetch(&b, port, "GET", "/metrics"), 200);
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(b.data, "nodelet_node_lease_renewals_total{result=\"success\"} 0\n"));
	nl_buf_reset(&b);
	CU_ASSERT_EQUAL(fetch(&b, port, "GET", "/healthz?verbose"), 200);
	CU_ASSERT_STRING_EQUAL(b.data, "[+]ping ok\nhealthz check passed\n");
	nl_buf_reset(&b);
	CU_ASSERT_EQUAL(fetch(&b, port, "GET", "/livez"), 200);
	CU_ASSERT_STRING_EQUAL(b.data, "ok");
	nl_buf_reset(&b);
	/* Nothing registered, no lease written: not ready (agent_health.c). */
	CU_ASSERT_EQUAL(fetch(&b, port, "GET", "/readyz"), 500);
	CU_ASSERT_PTR_NOT_NULL(strstr(b.data, "[-]registration failed: reason withheld\n"));
	nl_buf_reset(&b);
	CU_ASSERT_EQUAL(fetch(&b, port, "GET", "/nope"), 404);
	nl_buf_reset(&b);
	CU_ASSERT_EQUAL(fetch(&b, port, "POST", "/metrics"), 405);
	nl_buf_free(&b);

	nl__agent_metrics_stop(m);
	nl_agent_free(a);
}

static void test_agent_metrics__bad_addresses(void)
{
	nl_agent *a = new_agent();
	static const char *const bad[] = {
	    "nope", "127.0.0.1", "127.0.0.1:x", "127.0.0.1:70000", "300.1.1.1:80", "[::1:80"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		nl__agent_metrics *m = NULL;
		nl_err err = {0};
		CU_ASSERT_EQUAL(nl__agent_metrics_start(&m, a, NULL, bad[i], &err), NL_EINVAL);
		CU_ASSERT_PTR_NULL(m);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--metrics-bind-address"));
	}
	nl_agent_free(a);
}

static CU_TestInfo tests[] = {
    {"lease_counters", test_agent_metrics__lease_counters},
    {"node_config_gauges", test_agent_metrics__node_config_gauges},
    {"served_over_http", test_agent_metrics__served_over_http},
    {"bad_addresses", test_agent_metrics__bad_addresses},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {{"agent_metrics", NULL, NULL, NULL, NULL, tests},
                                 CU_SUITE_INFO_NULL};
