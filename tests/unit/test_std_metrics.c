/* The metrics every component exports besides its own (client/agent/
 * std_metrics.h): client-go's rest_client_* rendered from a client's
 * counters, and process_* read from a /proc directory as prometheus/procfs
 * reads it (here a fake one, so the values are known). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nodelet/process_metrics.h>

#include "../../client/agent/std_metrics.h"
#include "../cu_main.h"

static char *render_rest(const nl_client_metrics *m)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL_FATAL(nl__rest_client_metrics_render(&b, m), 0);
	char *text = nl_buf_detach(&b, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	return text;
}

/* Names, help, types, label names in client_golang's order, client-go's
 * buckets (cumulative, +Inf = count) and "<error>" for no answer. */
static void test_std_metrics__rest_client_exposition(void)
{
	nl_client_metrics m;
	memset(&m, 0, sizeof(m));
	snprintf(m.host, sizeof(m.host), "10.0.0.1:6443");
	m.nresults = 2;
	m.results[0] = (nl_client_request_count){"PUT", 200, 7};
	m.results[1] = (nl_client_request_count){"PUT", 0, 2};
	m.nverbs = 1;
	nl_client_request_latency *l = &m.latency[0];
	snprintf(l->verb, sizeof(l->verb), "PUT");
	for (int b = 0; b < NL_CLIENT_LATENCY_BUCKETS; b++)
		l->bucket[b] = b < 2 ? 5 : 8;
	l->count = 9;
	l->sum_seconds = 61.5;
	char *text = render_rest(&m);
	CU_ASSERT_PTR_NOT_NULL(strstr(
	    text, "# HELP rest_client_request_duration_seconds [ALPHA] Request latency in seconds. "
	          "Broken down by verb, and host.\n"
	          "# TYPE rest_client_request_duration_seconds histogram\n"
	          "rest_client_request_duration_seconds_bucket{host=\"10.0.0.1:6443\",verb=\"PUT\","
	          "le=\"0.005\"} 5\n"
	          "rest_client_request_duration_seconds_bucket{host=\"10.0.0.1:6443\",verb=\"PUT\","
	          "le=\"0.025\"} 5\n"
	          "rest_client_request_duration_seconds_bucket{host=\"10.0.0.1:6443\",verb=\"PUT\","
	          "le=\"0.1\"} 8\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(
	    text, "rest_client_request_duration_seconds_bucket{host=\"10.0.0.1:6443\",verb=\"PUT\","
	          "le=\"60\"} 8\n"
	          "rest_client_request_duration_seconds_bucket{host=\"10.0.0.1:6443\",verb=\"PUT\","
	          "le=\"+Inf\"} 9\n"
	          "rest_client_request_duration_seconds_sum{host=\"10.0.0.1:6443\",verb=\"PUT\"} "
	          "61.5\n"
	          "rest_client_request_duration_seconds_count{host=\"10.0.0.1:6443\",verb=\"PUT\"} "
	          "9\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(
	    text,
	    "# HELP rest_client_requests_total [ALPHA] Number of HTTP requests, partitioned "
	    "by status code, method, and host.\n"
	    "# TYPE rest_client_requests_total counter\n"
	    "rest_client_requests_total{code=\"200\",host=\"10.0.0.1:6443\",method=\"PUT\"} 7\n"
	    "rest_client_requests_total{code=\"<error>\",host=\"10.0.0.1:6443\","
	    "method=\"PUT\"} 2\n"));
	/* every bound, in order */
	const char *p = text;
	const char *want[] = {"0.005", "0.025", "0.1", "0.25", "0.5", "1",   "2",
	                      "4",     "8",     "15",  "30",   "60",  "+Inf"};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char le[32];
		snprintf(le, sizeof(le), "le=\"%s\"}", want[i]);
		p = p ? strstr(p, le) : NULL;
		CU_ASSERT_PTR_NOT_NULL(p);
	}
	free(text);
}

static void test_std_metrics__label_values_are_escaped(void)
{
	nl_client_metrics m;
	memset(&m, 0, sizeof(m));
	snprintf(m.host, sizeof(m.host), "a\"b\\c");
	m.nresults = 1;
	m.results[0] = (nl_client_request_count){"GET", 404, 1};
	char *text = render_rest(&m);
	CU_ASSERT_PTR_NOT_NULL(strstr(
	    text,
	    "rest_client_requests_total{code=\"404\",host=\"a\\\"b\\\\c\",method=\"GET\"} 1\n"));
	free(text);
}

/* A fake /proc: a command name with spaces and a parenthesis, 250 + 120
 * ticks of CPU, started 1234 ticks after a boot at 1700000000, 3 fds. */
static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

static void test_std_metrics__process_stats_as_procfs_reads_them(void)
{
	char dir[] = "/tmp/nl-proc-XXXXXX", path[600], cmd[700];
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	write_file(dir, "stat",
	           "4242 (no de) let) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 120 0 0 20 0 3 0 "
	           "1234 104857600 2560 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 "
	           "0\n");
	write_file(dir, "limits",
	           "Limit                     Soft Limit           Hard Limit           Units\n"
	           "Max cpu time              unlimited            unlimited            seconds\n"
	           "Max open files            1024                 524288               files\n");
	write_file(dir, "sysstat", "cpu  1 2 3 4\nintr 5\nctxt 6\nbtime 1700000000\nprocesses 7\n");
	snprintf(path, sizeof(path), "%s/fd", dir);
	CU_ASSERT_EQUAL_FATAL(mkdir(path, 0700), 0);
	write_file(path, "0", "");
	write_file(path, "1", "");
	write_file(path, "2", "");
	snprintf(path, sizeof(path), "%s/sysstat", dir);

	nl_process_stats s;
	CU_ASSERT_EQUAL_FATAL(nl_process_stats_read(&s, dir, path), 0);
	CU_ASSERT_DOUBLE_EQUAL(s.cpu_seconds, 3.7, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.start_time, 1700000012.34, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(s.virtual_bytes, 104857600.0, 0.5);
	CU_ASSERT_DOUBLE_EQUAL(s.resident_bytes, 2560.0 * (double)sysconf(_SC_PAGESIZE), 0.5);
	CU_ASSERT_DOUBLE_EQUAL(s.open_fds, 3.0, 0.1);
	CU_ASSERT_DOUBLE_EQUAL(s.max_fds, 1024.0, 0.1);

	nl_buf b;
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL_FATAL(nl_process_metrics_render(&b, &s), 0);
	char *text = nl_buf_detach(&b, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text,
	                              "# HELP process_cpu_seconds_total Total user and system "
	                              "CPU time spent in seconds.\n"
	                              "# TYPE process_cpu_seconds_total counter\n"
	                              "process_cpu_seconds_total 3.7\n"));
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(text, "# TYPE process_max_fds gauge\nprocess_max_fds 1024\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "# TYPE process_open_fds gauge\nprocess_open_fds 3\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "# TYPE process_start_time_seconds gauge\n"
	                                    "process_start_time_seconds 1700000012.34\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "# TYPE process_virtual_memory_bytes gauge\n"
	                                    "process_virtual_memory_bytes 104857600\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "# TYPE process_resident_memory_bytes gauge\n"));
	free(text);

	/* unlimited open files: procfs's largest uint64 */
	write_file(dir, "limits",
	           "Max open files            unlimited            unlimited     "
	           "       files\n");
	CU_ASSERT_EQUAL(nl_process_stats_read(&s, dir, path), 0);
	CU_ASSERT_DOUBLE_EQUAL(s.max_fds, 18446744073709551615.0, 1e4);
	/* a stat that is not Linux's: an error, not garbage */
	write_file(dir, "stat", "4242 no parenthesis\n");
	CU_ASSERT_EQUAL(nl_process_stats_read(&s, dir, path), NL_EPARSE);
	CU_ASSERT_EQUAL(nl_process_stats_read(&s, "/nonexistent", path), NL_EIO);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

/* This process, for real: plausible values. */
static void test_std_metrics__process_stats_of_this_process(void)
{
	nl_process_stats s;
	CU_ASSERT_EQUAL_FATAL(nl_process_stats_read(&s, "/proc/self", "/proc/stat"), 0);
	CU_ASSERT(s.resident_bytes > 0);
	CU_ASSERT(s.virtual_bytes >= s.resident_bytes);
	CU_ASSERT(s.open_fds >= 3 && s.open_fds <= s.max_fds);
	CU_ASSERT(s.start_time > 1.5e9);
}

static CU_TestInfo tests[] = {
    {"rest_client_exposition", test_std_metrics__rest_client_exposition},
    {"label_values_are_escaped", test_std_metrics__label_values_are_escaped},
    {"process_stats_as_procfs_reads_them", test_std_metrics__process_stats_as_procfs_reads_them},
    {"process_stats_of_this_process", test_std_metrics__process_stats_of_this_process},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"std_metrics", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
