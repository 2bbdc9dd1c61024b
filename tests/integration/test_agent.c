/* The agent end to end against nodelet-mockapi in-process, on virtual time:
 * the mock's clock is the agent's fake clock, its controllers are ticked by
 * hand, and every assertion on traffic reads the mock's request journal.
 *
 * Covered: the lease controller's upstream cases again through the real
 * client and server (controllers.md §1 and issue 7's scenarios), node
 * registration (labels, taints, nodeInfo, Ready) and adoption of an
 * existing Node, node status reports (at the report frequency, at once when
 * the server shows something else, after a lapse the node lifecycle
 * controller noticed), the heartbeat-failure hook and the connection reset
 * behind it, and the exact strategic merge patch the agent sends. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <nodelet/agent.h>
#include <nodelet/api.h>
#include <nodelet/config_controller.h>
#include <nodelet/configmap.h>
#include <nodelet/lease.h>
#include <nodelet/log.h>
#include <nodelet/meta.h>
#include <nodelet/node.h>
#include <nodelet/time.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../client/tool/cli_internal.h"
#include "../cu_main.h"
#include "client_util.h"
#include "config.h"
#include "fake_http.h"
#include "http_client.h"
#include "mockapi.h"

#define SEC NL_USEC_PER_SEC
#define MS NL_USEC_PER_MSEC
/* 2026-11-29T15:00:00Z */
#define START (INT64_C(1795964400) * SEC)

static mock_server *srv;
static const char *base;
/* The clock the mock reads: the running test's fake clock. */
static nl_clock *virt;
static FILE *quiet;

/* --- the fake host every agent here reads (never this machine's numbers) --- */

static char host_root[64];
static nl_fs_stats host_fs;   /* every path's filesystem */
static int host_not_writable; /* errno the state directories answer */
static int host_statfs_errno; /* errno statvfs answers */

static int host_statfs(nl_fs_stats *out, const char *path, void *payload)
{
	(void)path;
	(void)payload;
	*out = host_fs;
	return host_statfs_errno;
}

static int host_writable(const char *path, void *payload)
{
	(void)path;
	(void)payload;
	return host_not_writable;
}

static const nl_host_view HOST_VIEW = {host_root, host_statfs, host_writable, NULL};

static void host_put(const char *rel, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s%s", host_root, rel);
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}

/* An 8 GiB host using 1 GiB (meminfo's LRU lists: no cgroup files here),
 * 300 of 60000 tasks, a 32 GiB disk half full. */
static void host_reset(void)
{
	host_put("/proc/meminfo", "MemTotal:        8388608 kB\nActive(anon):     524288 kB\n"
	                          "Inactive(anon):        0 kB\nActive(file):     524288 kB\n");
	host_put("/proc/loadavg", "0.10 0.20 0.30 1/300 4242\n");
	host_put("/proc/sys/kernel/pid_max", "4194304\n");
	host_put("/proc/sys/kernel/threads-max", "60000\n");
	host_fs = (nl_fs_stats){INT64_C(32) << 30, INT64_C(16) << 30, 2000000, 1000000, 7};
	host_not_writable = 0;
	host_statfs_errno = 0;
}

static int host_init(void)
{
	char dir[128];
	snprintf(host_root, sizeof(host_root), "/tmp/nl-agent-host-XXXXXX");
	if (!mkdtemp(host_root))
		return -1;
	snprintf(dir, sizeof(dir), "%s/proc", host_root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/proc/sys", host_root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/proc/sys/kernel", host_root);
	mkdir(dir, 0755);
	return 0;
}

static void host_clean(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", host_root);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", host_root);
}

static int64_t mock_clock(void *payload)
{
	(void)payload;
	return virt ? nl_clock_now(virt) : nl_time_now();
}

static int setup(void)
{
	mock_options o;
	mock_options_init(&o);
	o.controller_tick_ms = 0;
	o.clock = mock_clock;
	if (host_init() != 0 || nl_test_suite_server(&srv, &base, &o) != 0)
		return 1;
	/* The agent logs every failure at error level: keep the output readable. */
	quiet = fopen("/dev/null", "w");
	nl_log_set_output(quiet);
	return 0;
}

static int teardown(void)
{
	mock_server_free(srv);
	host_clean();
	nl_log_set_output(NULL);
	if (quiet)
		fclose(quiet);
	return 0;
}

/* The three pressure conditions, False, as kubelet's setters write them. */
#define COND(type, status, hb, tr, reason, msg)                                        \
	"{\"type\":\"" type "\",\"status\":\"" status "\",\"lastHeartbeatTime\":\"" hb \
	"\",\"lastTransitionTime\":\"" tr "\",\"reason\":\"" reason "\",\"message\":\"" msg "\"},"
#define PRESSURE_FALSE(hb, tr)                                                \
	COND("MemoryPressure", "False", hb, tr, "KubeletHasSufficientMemory", \
	     "kubelet has sufficient memory available")                       \
	COND("DiskPressure", "False", hb, tr, "KubeletHasNoDiskPressure",     \
	     "kubelet has no disk pressure")                                  \
	COND("PIDPressure", "False", hb, tr, "KubeletHasSufficientPID",       \
	     "kubelet has sufficient PID available")

/* --- fixture ------------------------------------------------------------------- */

static const nl_host_info HOST = {
    .machine_id = "0123456789abcdef0123456789abcdef",
    .system_uuid = "",
    .boot_id = "b0070000-0000-4000-8000-000000000001",
    .kernel_version = "6.1.0-test",
    .os_image = "Debian GNU/Linux 12 (bookworm)",
    .operating_system = "linux",
    .architecture = "amd64",
    /* One interface with a default route: its address is the InternalIP. */
    .addrs = {{.ifname = "eth0", .family = AF_INET, .ip = "10.0.0.7", .up = 1}},
    .n_addrs = 1,
    .routes = {{.ifname = "eth0", .family = AF_INET}},
    .n_routes = 1,
    .cpus = 4,
    .memory_bytes = INT64_C(8) << 30,
};

typedef struct {
	nl_clock *clock;
	nl_client *client; /* the test's own: another writer, and for reading */
	nl_agent *agent;
	nl_nodelet_config *cfg;
	const char *state_dirs[2]; /* given to the agent (x->n_state_dirs) */
	size_t n_state_dirs;
} fixture;

/* An agent for node n1 on a fresh fake clock and a fresh server; cfg may be
 * adjusted (x->cfg) before fixture_agent. */
static void fixture_init(fixture *x)
{
	nl_err err = {0};
	memset(x, 0, sizeof(*x));
	CU_ASSERT_EQUAL_FATAL(mock_server_reset(srv, &err), 0);
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&x->clock, START), 0);
	virt = x->clock;
	x->client = nl_test_client_at(base, x->clock, -1);
	CU_ASSERT_EQUAL_FATAL(nl_nodelet_config_new(&x->cfg), 0);
	host_reset();
}

static void fixture_agent_at(fixture *x, const char *url)
{
	nl_rest_config rest = {0};
	nl_agent_options o;
	nl_err err = {0};
	rest.server = (char *)url;
	nl_agent_options_init(&o);
	o.node_name = "n1";
	o.rest_config = &rest;
	o.clock = x->clock;
	o.config = x->cfg;
	o.host = &HOST;
	o.host_view = &HOST_VIEW;
	o.state_dirs = x->state_dirs;
	o.n_state_dirs = x->n_state_dirs;
	o.jitter_seed = 42;
	int rc = nl_agent_new(&x->agent, &o, &err);
	if (rc != 0)
		fprintf(stderr, "agent: %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
}

static void fixture_agent(fixture *x)
{
	fixture_agent_at(x, base);
}

static void fixture_free(fixture *x)
{
	nl_agent_free(x->agent);
	nl_client_free(x->client);
	nl_nodelet_config_free(x->cfg);
	virt = NULL;
	nl_clock_free(x->clock);
}

static void add_fault(const char *json)
{
	nl_err err = {0};
	int rc = mock_server_add_fault(NULL, srv, json, &err);
	if (rc != 0)
		fprintf(stderr, "fault: %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
}

/* --- the journal --------------------------------------------------------------------- */

static json_object *journal(uint64_t since)
{
	char *doc = NULL;
	CU_ASSERT_EQUAL_FATAL(mock_server_journal(&doc, srv, since), 0);
	json_object *j = json_tokener_parse(doc);
	free(doc);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	return j;
}

static uint64_t last_seq(void)
{
	json_object *j = journal(0);
	uint64_t seq = (uint64_t)json_object_get_int64(json_object_object_get(j, "lastSeq"));
	json_object_put(j);
	return seq;
}

/* "POST nodes 201, GET leases 404, PATCH nodes/status 200, GET
 * nodes?resourceVersion=0 200" for the requests after since. */
static char *trace(uint64_t since)
{
	json_object *j = journal(since), *items = json_object_object_get(j, "items");
	size_t cap = 64 + 96 * json_object_array_length(items), n = 0;
	char *out = calloc(1, cap);
	for (size_t i = 0; i < json_object_array_length(items); i++) {
		json_object *e = json_object_array_get_idx(items, i);
		const char *sub = nl_json_get_string(e, "subresource");
		const char *q = nl_json_get_string(e, "query");
		n += (size_t)snprintf(out + n, cap - n, "%s%s %s%s%s%s%s %d", i ? ", " : "",
		                      nl_json_get_string(e, "method"),
		                      nl_json_get_string(e, "resource"), sub && *sub ? "/" : "",
		                      sub ? sub : "", q && *q ? "?" : "", q ? q : "",
		                      json_object_get_int(json_object_object_get(e, "code")));
	}
	json_object_put(j);
	return out;
}

#define ASSERT_TRACE(since, want)                                                                \
	do {                                                                                     \
		char *got_ = trace(since);                                                       \
		if (strcmp(got_, want) != 0)                                                     \
			fprintf(stderr, "\n  want %s\n  got  %s\n", (const char *)(want), got_); \
		CU_ASSERT_STRING_EQUAL(got_, want);                                              \
		free(got_);                                                                      \
	} while (0)

/* The virtual arrival times of the journal entries after since whose
 * method and resource match; returns how many. */
static size_t times_of(int64_t *out, size_t max, uint64_t since, const char *method,
                       const char *resource)
{
	json_object *j = journal(since), *items = json_object_object_get(j, "items");
	size_t n = 0;
	for (size_t i = 0; i < json_object_array_length(items) && n < max; i++) {
		json_object *e = json_object_array_get_idx(items, i);
		if (strcmp(nl_json_get_string(e, "method"), method) != 0 ||
		    strcmp(nl_json_get_string(e, "resource"), resource) != 0)
			continue;
		CU_ASSERT_EQUAL(nl_time_parse_micro(&out[n], nl_json_get_string(e, "time")), 0);
		n++;
	}
	json_object_put(j);
	return n;
}

/* --- objects on the server ----------------------------------------------------------------- */

static json_object *get(fixture *x, const char *path)
{
	json_object *o = NULL;
	nl_result res = NL_RESULT_INIT;
	int rc = nl_api_get(&o, x->client, path, &res);
	if (rc != 0)
		fprintf(stderr, "GET %s: %s\n", path, res.message);
	nl_result_clear(&res);
	return o;
}

#define LEASE_PATH "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1"
#define NODE_PATH "/api/v1/nodes/n1"

static void create_node(fixture *x, const char *json)
{
	json_object *node = nl_test_json(json), *out = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_node_create(&out, x->client, node, NULL), 0);
	json_object_put(node);
	json_object_put(out);
}

static void delete_lease(fixture *x)
{
	CU_ASSERT_EQUAL(nl_lease_delete(x->client, "kube-node-lease", "n1", NULL, NULL), 0);
}

static void assert_lease_owned_and_cached(fixture *x)
{
	json_object *lease = get(x, LEASE_PATH), *node = get(x, NODE_PATH);
	CU_ASSERT_PTR_NOT_NULL_FATAL(lease);
	CU_ASSERT_PTR_NOT_NULL_FATAL(node);
	json_object *ref =
	    json_object_array_get_idx(nl_json_get_path(lease, "metadata.ownerReferences"), 0);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(ref, "uid"), nl_meta_uid(node));
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(ref, "kind"), "Node");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(ref, "name"), "n1");
	CU_ASSERT_PTR_NOT_NULL_FATAL(nl_agent_lease_resource_version(x->agent));
	CU_ASSERT_STRING_EQUAL(nl_agent_lease_resource_version(x->agent),
	                       nl_meta_resource_version(lease));
	json_object_put(lease);
	json_object_put(node);
}

static const char *const NODE_N1 = "{\"apiVersion\":\"v1\",\"kind\":\"Node\","
                                   "\"metadata\":{\"name\":\"n1\"}}";

/* ==== the lease controller's upstream cases, end to end =========================== */

/* sync: nothing cached, lease absent → GET lease (404), GET node, CREATE;
 * the cache holds the server's answer. */
static void test_agent__sync_creates_the_lease_with_an_owner(void)
{
	fixture x;
	fixture_init(&x);
	fixture_agent(&x);
	create_node(&x, NODE_N1);
	uint64_t seq = last_seq();
	CU_ASSERT_EQUAL(nl_agent_sync_lease(x.agent), 0);
	ASSERT_TRACE(seq, "GET leases 404, GET nodes 200, POST leases 201");
	assert_lease_owned_and_cached(&x);
	json_object *lease = get(&x, LEASE_PATH);
	char now[NL_TIME_BUFSZ];
	nl_time_format_micro(now, START);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(lease, "spec.holderIdentity"), "n1");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(lease, "spec.renewTime"), now);
	CU_ASSERT_EQUAL(json_object_get_int(nl_json_get_path(lease, "spec.leaseDurationSeconds")),
	                40);
	json_object_put(lease);
	fixture_free(&x);
}

/* sync: lease and node absent → nothing is created, nothing cached, no
 * backoff (the next interval tries again). */
static void test_agent__sync_without_node_creates_nothing(void)
{
	fixture x;
	fixture_init(&x);
	fixture_agent(&x);
	uint64_t seq = last_seq();
	CU_ASSERT_EQUAL(nl_agent_sync_lease(x.agent), NL_ENOTFOUND);
	ASSERT_TRACE(seq, "GET leases 404, GET nodes 404");
	CU_ASSERT_PTR_NULL(nl_agent_lease(x.agent));
	CU_ASSERT_EQUAL(nl_clock_now(x.clock), START); /* no wait */
	fixture_free(&x);
}

/* sync: nothing cached, lease exists (owned) → GET, UPDATE. */
static void test_agent__sync_updates_an_existing_lease(void)
{
	fixture x;
	fixture_init(&x);
	fixture_agent(&x);
	create_node(&x, NODE_N1);
	CU_ASSERT_EQUAL(nl_agent_sync_lease(x.agent), 0);
	/* A new agent (a restart) has nothing cached. */
	nl_agent_free(x.agent);
	fixture_agent(&x);
	nl_clock_advance(x.clock, 10 * SEC);
	uint64_t seq = last_seq();
	CU_ASSERT_EQUAL(nl_agent_sync_lease(x.agent), 0);
	ASSERT_TRACE(seq, "GET leases 200, PUT leases 200");
	assert_lease_owned_and_cached(&x);
	fixture_free(&x);
}

/* sync: cached → UPDATE only, no GET. */
static void test_agent__cached_sync_is_one_update(void)
{
	fixture x;
	fixture_init(&x);
	fixture_agent(&x);
	create_node(&x, NODE_N1);
	CU_ASSERT_EQUAL(nl_agent_sync_lease(x.agent), 0);
	for (int i = 0; i < 3; i++) {
		nl_clock_advance(x.clock, 10 * SEC);
		uint64_t seq = last_seq();
		CU_ASSERT_EQUAL(nl_agent_sync_lease(x.agent), 0);
		ASSERT_TRACE(seq, "PUT leases 200");
	}
	assert_lease_owned_and_cached(&x);
	fixture_free(&x);
}

/* Someone deleted the lease: the cached update carries the old uid, which
 * the server answers with 409; the lease is fetched (404) and recreated. */
static void test_agent__deleted_lease_is_recreated(void)
{
	fixture x;
	fixture_init(&x);
	fixture_agent(&x);
	create_node(&x, NODE_N1);
	CU_ASSERT_EQUAL(nl_agent_sync_lease(x.agent), 0);
	delete_lease(&x);
	nl_clock_advance(x.clock, 10 * SEC);
	uint64_t seq = last_seq();
	CU_ASSERT_EQUAL(nl_agent_sync_lease(x.agent), 0);
	ASSERT_TRACE(seq, "PUT leases 409, GET leases 404, GET nodes 200, POST leases 201, "
	                  "PUT leases 200");
	assert_lease_owned_and_cached(&x);
	CU_ASSERT_EQUAL(nl_agent_heartbeat_failures(x.agent), 0);
	fixture_free(&x);
}

/* Another writer bumped the lease: one 409, one GET, renewal succeeds; a
 * conflict never calls the failure hook. */
static void test_agent__another_writer_costs_one_conflict(void)
{
	fixture x;
	fixture_init(&x);
	fixture_agent(&x);
	create_node(&x, NODE_N1);
	CU_ASSERT_EQUAL(nl_agent_sync_lease(x.agent), 0);
	json_object *lease = get(&x, LEASE_PATH), *out = NULL;
	CU_ASSERT_EQUAL(nl_lease_update(&out, x.client, lease, NULL), 0);
	json_object_put(lease);
	json_object_put(out);
	nl_clock_advance(x.clock, 10 * SEC);
	uint64_t seq = last_seq();
	CU_ASSERT_EQUAL(nl_agent_sync_lease(x.agent), 0);
	ASSERT_TRACE(seq, "PUT leases 409, GET leases 200, PUT leases 200");
	assert_lease_owned_and_cached(&x);
	CU_ASSERT_EQUAL(nl_agent_heartbeat_failures(x.agent), 0);
	fixture_free(&x);
}

/* retryUpdateLease: a timeout, then a conflict, then success → UPDATE,
 * UPDATE, GET, UPDATE; the hook is not called (the only other failure was
 * the first attempt's). */
static void test_agent__timeout_then_conflict_then_success(void)
{
	fixture x;
	fixture_init(&x);
	fixture_agent(&x);
	create_node(&x, NODE_N1);
	CU_ASSERT_EQUAL(nl_agent_sync_lease(x.agent), 0);
	add_fault("{\"match\":{\"verb\":\"update\",\"resource\":\"leases\"},"
	          "\"action\":{\"status\":504},\"times\":1}");
	add_fault("{\"match\":{\"verb\":\"update\",\"resource\":\"leases\"},"
	          "\"action\":{\"status\":409},\"times\":1}");
	uint64_t seq = last_seq();
	CU_ASSERT_EQUAL(nl_agent_sync_lease(x.agent), 0);
	ASSERT_TRACE(seq, "PUT leases 504, PUT leases 409, GET leases 200, PUT leases 200");
	CU_ASSERT_EQUAL(nl_agent_heartbeat_failures(x.agent), 0);
	assert_lease_owned_and_cached(&x);
	fixture_free(&x);
}

/* retryUpdateLease: five failures → five UPDATEs and the hook four times
 * (each closing the connections); the sync then falls back to ensure-lease
 * and renews on fresh connections. */
static void test_agent__five_failures_call_the_hook_four_times(void)
{
	fixture x;
	fixture_init(&x);
	fixture_agent(&x);
	create_node(&x, NODE_N1);
	CU_ASSERT_EQUAL(nl_agent_sync_lease(x.agent), 0);
	add_fault("{\"match\":{\"verb\":\"update\",\"resource\":\"leases\"},"
	          "\"action\":{\"status\":500},\"times\":5}");
	uint64_t seq = last_seq();
	CU_ASSERT_EQUAL(nl_agent_sync_lease(x.agent), 0);
	ASSERT_TRACE(seq, "PUT leases 500, PUT leases 500, PUT leases 500, PUT leases 500, "
	                  "PUT leases 500, GET leases 200, PUT leases 200");
	CU_ASSERT_EQUAL(nl_agent_heartbeat_failures(x.agent), 4);
	assert_lease_owned_and_cached(&x);
	fixture_free(&x);
}

/* 500s for half a minute of virtual time: after the update round, the
 * ensure-lease backoff waits exactly 200 ms, 400 ms, … 6.4 s, 7 s, 7 s, 7 s,
 * and the lease is renewed at the first request after recovery. */
static void test_agent__server_errors_back_off_exactly(void)
{
	static const int64_t want[] = {200 * MS,  400 * MS,  800 * MS,  1600 * MS, 3200 * MS,
	                               6400 * MS, 7000 * MS, 7000 * MS, 7000 * MS};
	fixture x;
	size_t n;
	int64_t gets[16];
	fixture_init(&x);
	fixture_agent(&x);
	create_node(&x, NODE_N1);
	CU_ASSERT_EQUAL(nl_agent_sync_lease(x.agent), 0);
	/* 5 UPDATEs and 9 GETs fail: the GETs span 26.6 s, the next comes 7 s
	 * later, 33.6 s after the outage began. */
	add_fault("{\"match\":{\"resource\":\"leases\"},\"action\":{\"status\":500},\"times\":14}");
	nl_clock_fake_clear_sleeps(x.clock);
	uint64_t seq = last_seq();
	int64_t t0 = nl_clock_now(x.clock);
	CU_ASSERT_EQUAL(nl_agent_sync_lease(x.agent), 0);
	ASSERT_TRACE(seq, "PUT leases 500, PUT leases 500, PUT leases 500, PUT leases 500, "
	                  "PUT leases 500, GET leases 500, GET leases 500, GET leases 500, "
	                  "GET leases 500, GET leases 500, GET leases 500, GET leases 500, "
	                  "GET leases 500, GET leases 500, GET leases 200, PUT leases 200");
	const int64_t *sleeps = nl_clock_fake_sleeps(x.clock, &n, NULL);
	CU_ASSERT_EQUAL_FATAL(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++)
		CU_ASSERT_EQUAL(sleeps[i], want[i]);
	/* The server saw the GETs at those virtual times. */
	CU_ASSERT_EQUAL_FATAL(times_of(gets, 16, seq, "GET", "leases"), 10);
	int64_t at = t0;
	for (size_t i = 0; i < 10; i++) {
		CU_ASSERT_EQUAL(gets[i], at);
		if (i < n)
			at += want[i];
	}
	int64_t renewed;
	json_object *lease = get(&x, LEASE_PATH);
	CU_ASSERT_EQUAL(nl_time_parse_micro(&renewed, nl_json_get_string(lease, "spec.renewTime")),
	                0);
	CU_ASSERT_EQUAL(renewed, t0 + 33600 * MS);
	json_object_put(lease);
	CU_ASSERT_EQUAL(nl_agent_heartbeat_failures(x.agent), 4);
	fixture_free(&x);
}

/* --- an unreachable server ----------------------------------------------------------------- */

typedef struct {
	nl_clock *clock;
	int64_t until;
} stopper;

/* Stop the clock once virtual time has passed `until` (the agent thread
 * only moves it by sleeping). */
static void *stop_later(void *payload)
{
	stopper *s = payload;
	struct timespec ts = {0, 100000};
	while (nl_clock_now(s->clock) < s->until)
		nanosleep(&ts, NULL);
	nl_clock_stop(s->clock);
	return NULL;
}

static int closed_port(void)
{
	struct sockaddr_in a = {0};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	CU_ASSERT_EQUAL_FATAL(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	getsockname(fd, (struct sockaddr *)&a, &len);
	close(fd);
	return ntohs(a.sin_port);
}

/* Connection refused for a minute of virtual time: every failed GET is
 * followed by the next backoff wait; a few dozen attempts, not a busy loop,
 * and shutdown ends the sync at once. */
static void test_agent__unreachable_server_is_not_busy_looped(void)
{
	static const int64_t want[] = {200 * MS,  400 * MS,  800 * MS,
	                               1600 * MS, 3200 * MS, 6400 * MS};
	fixture x;
	char url[64];
	pthread_t t;
	size_t n;
	fixture_init(&x);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", closed_port());
	fixture_agent_at(&x, url);
	stopper s = {x.clock, START + 60 * SEC};
	struct timespec r0, r1;
	clock_gettime(CLOCK_MONOTONIC, &r0);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, stop_later, &s), 0);
	CU_ASSERT_EQUAL(nl_agent_sync_lease(x.agent), NL_ECANCELED);
	pthread_join(t, NULL);
	clock_gettime(CLOCK_MONOTONIC, &r1);
	const int64_t *sleeps = nl_clock_fake_sleeps(x.clock, &n, NULL);
	CU_ASSERT(n >= 12); /* 60 s of virtual time at most 7 s apart */
	for (size_t i = 0; i < n; i++)
		CU_ASSERT_EQUAL(sleeps[i], i < 6 ? want[i] : 7 * SEC);
	/* The sleeps the stopper let through fit what it saw. */
	CU_ASSERT(n <= 12 + (size_t)((nl_clock_now(x.clock) - s.until) / (7 * SEC)) + 1);
	CU_ASSERT(r1.tv_sec - r0.tv_sec < 10);
	CU_ASSERT_PTR_NULL(nl_agent_lease(x.agent));
	fixture_free(&x);
}

/* ==== running on the clock ======================================================= */

/* Steady state: after registration and creation, exactly one UPDATE per
 * renew interval (10 s plus up to 4 % jitter, counted from the end of the
 * previous sync), no GET of the lease, only the status check's read of the
 * Node from the cache; no status report before 5 minutes. */
static void test_agent__steady_state_is_one_update_per_interval(void)
{
	fixture x;
	int64_t puts[32];
	fixture_init(&x);
	fixture_agent(&x);
	uint64_t seq = last_seq();
	CU_ASSERT_EQUAL(nl_agent_start(x.agent), 0);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 0), 0);
	ASSERT_TRACE(seq, "POST nodes 201, GET leases 404, GET nodes 200, POST leases 201");
	seq = last_seq();
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 200 * SEC), 0);
	size_t n = times_of(puts, 32, seq, "PUT", "leases");
	CU_ASSERT(n >= 19 && n <= 20);
	char *t = trace(seq);
	CU_ASSERT_PTR_NULL(strstr(t, "GET leases"));
	CU_ASSERT_PTR_NULL(strstr(t, "GET nodes 200"));
	CU_ASSERT_PTR_NULL(strstr(t, "PATCH"));
	free(t);
	CU_ASSERT_EQUAL(times_of(puts, 32, seq, "GET", "nodes"), 19);
	n = times_of(puts, 32, seq, "PUT", "leases");
	int64_t prev = START;
	for (size_t i = 0; i < n; i++) {
		CU_ASSERT(puts[i] - prev >= 10 * SEC && puts[i] - prev <= 10400 * MS);
		prev = puts[i];
	}
	CU_ASSERT_EQUAL(nl_agent_status_reports(x.agent), 1); /* the CREATE */
	CU_ASSERT_TRUE(nl_agent_registered(x.agent));
	assert_lease_owned_and_cached(&x);
	nl_agent_stop(x.agent);
	fixture_free(&x);
}

/* Without registration the Node appears later: until then each interval
 * costs GET lease + GET node (and the status check its GET) and creates
 * nothing; then the status is reported and the lease is created owned by
 * the Node. */
static void test_agent__node_appearing_later_gets_its_lease(void)
{
	fixture x;
	fixture_init(&x);
	x.cfg->register_node = 0;
	fixture_agent(&x);
	uint64_t seq = last_seq();
	CU_ASSERT_EQUAL(nl_agent_start(x.agent), 0);
	/* Status reports GET the Node too (kubelet reports without registering). */
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 0), 0);
	ASSERT_TRACE(seq, "GET nodes?resourceVersion=0 404, GET leases 404, GET nodes 404");
	seq = last_seq();
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 10400 * MS), 0);
	ASSERT_TRACE(seq, "GET nodes?resourceVersion=0 404, GET leases 404, GET nodes 404");
	CU_ASSERT_PTR_NULL(nl_agent_lease(x.agent));
	create_node(&x, NODE_N1);
	seq = last_seq();
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 10400 * MS), 0);
	ASSERT_TRACE(seq,
	             "GET nodes?resourceVersion=0 200, PATCH nodes/status 200, GET leases 404, "
	             "GET nodes 200, POST leases 201");
	assert_lease_owned_and_cached(&x);
	CU_ASSERT_FALSE(nl_agent_registered(x.agent));
	nl_agent_stop(x.agent);
	fixture_free(&x);
}

static void assert_condition(json_object *node, const char *type, const char *status,
                             const char *reason)
{
	json_object *c = nl_node_condition(node, type);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	const char *st = nl_json_get_string(c, "status"), *re = nl_json_get_string(c, "reason");
	if (!st || !re || strcmp(st, status) != 0 || strcmp(re, reason) != 0)
		fprintf(stderr, "\n  %s: expected %s %s, got %s %s\n", type, status, reason,
		        st ? st : "(none)", re ? re : "(none)");
	CU_ASSERT_STRING_EQUAL(st ? st : "", status);
	CU_ASSERT_STRING_EQUAL(re ? re : "", reason);
}

/* ==== registration ================================================================== */

/* The Node as created: kubelet's labels plus --node-labels, the no-pods
 * taint, status.nodeInfo, addresses, capacity (pods 0) and Ready=True. */
static void test_agent__registration_creates_the_node(void)
{
	fixture x;
	nl_err err = {0};
	fixture_init(&x);
	CU_ASSERT_EQUAL(nl_nodelet_config_parse_labels_flag(x.cfg, "site=lab,tier=edge", &err), 0);
	fixture_agent(&x);
	uint64_t seq = last_seq();
	CU_ASSERT_EQUAL(nl_agent_register_node(x.agent), 0);
	ASSERT_TRACE(seq, "POST nodes 201");
	CU_ASSERT_TRUE(nl_agent_registered(x.agent));
	CU_ASSERT_EQUAL(nl_agent_status_reports(x.agent), 1);
	CU_ASSERT_EQUAL(nl_agent_last_status_report(x.agent), START);
	json_object *node = get(&x, NODE_PATH);
	NL_ASSERT_JSON_EQ(nl_meta_labels(node),
	                  "{\"kubernetes.io/hostname\":\"n1\",\"kubernetes.io/os\":\"linux\","
	                  "\"kubernetes.io/arch\":\"amd64\",\"beta.kubernetes.io/os\":\"linux\","
	                  "\"beta.kubernetes.io/arch\":\"amd64\",\"site\":\"lab\","
	                  "\"tier\":\"edge\"}");
	NL_ASSERT_JSON_EQ(
	    nl_json_get_path(node, "spec"),
	    "{\"taints\":[{\"key\":\"nodelet.io/no-pods\",\"effect\":\"NoSchedule\"}]}");
	NL_ASSERT_JSON_EQ(
	    nl_json_get_path(node, "status.nodeInfo"),
	    "{\"machineID\":\"0123456789abcdef0123456789abcdef\",\"systemUUID\":\"\","
	    "\"bootID\":\"b0070000-0000-4000-8000-000000000001\","
	    "\"kernelVersion\":\"6.1.0-test\","
	    "\"osImage\":\"Debian GNU/Linux 12 (bookworm)\","
	    "\"containerRuntimeVersion\":\"\",\"kubeletVersion\":\"nodelet/" PACKAGE_VERSION
	    "\",\"kubeProxyVersion\":\"\",\"operatingSystem\":\"linux\","
	    "\"architecture\":\"amd64\"}");
	NL_ASSERT_JSON_EQ(nl_json_get_path(node, "status.addresses"),
	                  "[{\"type\":\"InternalIP\",\"address\":\"10.0.0.7\"},"
	                  "{\"type\":\"Hostname\",\"address\":\"n1\"}]");
	NL_ASSERT_JSON_EQ(nl_json_get_path(node, "status.capacity"),
	                  "{\"cpu\":\"4\",\"memory\":\"8Gi\",\"ephemeral-storage\":\"32Gi\","
	                  "\"pods\":\"0\"}");
	/* Allocatable: capacity less the hard eviction thresholds of memory
	 * (100Mi) and nodefs (10%, float32 as kubelet keeps it). */
	NL_ASSERT_JSON_EQ(nl_json_get_path(node, "status.allocatable"),
	                  "{\"cpu\":\"4\",\"memory\":\"8092Mi\","
	                  "\"ephemeral-storage\":\"30923764480\",\"pods\":\"0\"}");
	NL_ASSERT_JSON_EQ(
	    nl_json_get_path(node, "status.conditions"),
	    "[" PRESSURE_FALSE(
	        "2026-11-29T15:00:00Z",
	        "2026-11-29T15:00:00Z") "{\"type\":\"Ready\",\"status\":\"True\","
	                                "\"lastHeartbeatTime\":\"2026-11-29T15:00:00Z\","
	                                "\"lastTransitionTime\":\"2026-11-29T15:00:00Z\","
	                                "\"reason\":\"KubeletReady\","
	                                "\"message\":\"nodelet is posting ready status\"}]");
	json_object_put(node);
	/* Registered once: another attempt sends nothing. */
	seq = last_seq();
	CU_ASSERT_EQUAL(nl_agent_register_node(x.agent), 0);
	ASSERT_TRACE(seq, "");
	fixture_free(&x);
}

/* --register-with-taints replaces the default taint; an empty list means
 * none at all. */
static void test_agent__registration_taints_follow_the_flag(void)
{
	fixture x;
	nl_err err = {0};
	fixture_init(&x);
	CU_ASSERT_EQUAL(nl_nodelet_config_parse_taints_flag(
	                    x.cfg, "dedicated=edge:NoExecute,gpu:PreferNoSchedule", &err),
	                0);
	fixture_agent(&x);
	CU_ASSERT_EQUAL(nl_agent_register_node(x.agent), 0);
	json_object *node = get(&x, NODE_PATH);
	NL_ASSERT_JSON_EQ(nl_json_get_path(node, "spec.taints"),
	                  "[{\"key\":\"dedicated\",\"value\":\"edge\",\"effect\":\"NoExecute\"},"
	                  "{\"key\":\"gpu\",\"effect\":\"PreferNoSchedule\"}]");
	json_object_put(node);
	fixture_free(&x);

	fixture_init(&x);
	CU_ASSERT_EQUAL(nl_nodelet_config_parse_taints_flag(x.cfg, "", &err), 0);
	fixture_agent(&x);
	CU_ASSERT_EQUAL(nl_agent_register_node(x.agent), 0);
	node = get(&x, NODE_PATH);
	CU_ASSERT_PTR_NULL(nl_json_get_path(node, "spec.taints"));
	json_object_put(node);
	fixture_free(&x);
}

/* The Node exists: CREATE 409, GET, and one PATCH of nodes/status putting
 * back the labels kubelet owns — other labels, and taints, are left alone.
 * Started, the agent then reports its status at once. */
static void test_agent__registration_adopts_an_existing_node(void)
{
	fixture x;
	fixture_init(&x);
	create_node(&x, "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\","
	                "\"labels\":{\"kubernetes.io/os\":\"windows\",\"team\":\"a\"}},"
	                "\"spec\":{\"taints\":[{\"key\":\"k\",\"effect\":\"NoSchedule\"}]}}");
	fixture_agent(&x);
	uint64_t seq = last_seq();
	CU_ASSERT_EQUAL(nl_agent_start(x.agent), 0);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 0), 0);
	/* The status report is scheduled by the registration, after the
	 * lease controller's first sync. */
	ASSERT_TRACE(seq, "POST nodes 409, GET nodes 200, PATCH nodes/status 200, "
	                  "GET leases 404, GET nodes 200, POST leases 201, "
	                  "GET nodes?resourceVersion=0 200, PATCH nodes/status 200");
	json_object *node = get(&x, NODE_PATH);
	NL_ASSERT_JSON_EQ(nl_meta_labels(node),
	                  "{\"kubernetes.io/hostname\":\"n1\",\"kubernetes.io/os\":\"linux\","
	                  "\"kubernetes.io/arch\":\"amd64\",\"beta.kubernetes.io/os\":\"linux\","
	                  "\"beta.kubernetes.io/arch\":\"amd64\",\"team\":\"a\"}");
	NL_ASSERT_JSON_EQ(nl_json_get_path(node, "spec.taints"),
	                  "[{\"key\":\"k\",\"effect\":\"NoSchedule\"}]");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(nl_node_condition(node, "Ready"), "status"),
	                       "True");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(node, "status.nodeInfo.kubeletVersion"),
	                       "nodelet/" PACKAGE_VERSION);
	json_object_put(node);
	CU_ASSERT_EQUAL(nl_agent_status_reports(x.agent), 1);
	nl_agent_stop(x.agent);
	fixture_free(&x);
}

/* A failed registration is retried with kubelet's backoff (200 ms doubling
 * to 7 s) on the clock, without holding up the lease controller. */
static void test_agent__registration_is_retried_with_backoff(void)
{
	fixture x;
	int64_t posts[8];
	fixture_init(&x);
	fixture_agent(&x);
	add_fault("{\"match\":{\"verb\":\"create\",\"resource\":\"nodes\"},"
	          "\"action\":{\"status\":500},\"times\":3}");
	uint64_t seq = last_seq();
	CU_ASSERT_EQUAL(nl_agent_start(x.agent), 0);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 2 * SEC), 0);
	CU_ASSERT_EQUAL(times_of(posts, 8, seq, "POST", "nodes"), 4);
	CU_ASSERT_EQUAL(posts[0], START);
	CU_ASSERT_EQUAL(posts[1], START + 200 * MS);
	CU_ASSERT_EQUAL(posts[2], START + 600 * MS);
	CU_ASSERT_EQUAL(posts[3], START + 1400 * MS);
	CU_ASSERT_TRUE(nl_agent_registered(x.agent));
	nl_agent_stop(x.agent);
	fixture_free(&x);
}

/* ==== node status ===================================================================== */

/* Reports at the report frequency: GET (from the cache) + PATCH every 5
 * minutes, the heartbeat moving and the transition time kept. */
static void test_agent__status_is_reported_at_the_report_frequency(void)
{
	fixture x;
	int64_t patches[8];
	fixture_init(&x);
	fixture_agent(&x);
	CU_ASSERT_EQUAL(nl_agent_start(x.agent), 0);
	uint64_t seq = last_seq();
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 11 * 60 * SEC), 0);
	CU_ASSERT_EQUAL(times_of(patches, 8, seq, "PATCH", "nodes"), 2);
	CU_ASSERT_EQUAL(patches[0], START + 300 * SEC);
	CU_ASSERT_EQUAL(patches[1], START + 600 * SEC);
	CU_ASSERT_EQUAL(nl_agent_status_reports(x.agent), 3);
	json_object *ready = NULL, *node = get(&x, NODE_PATH);
	ready = nl_node_condition(node, "Ready");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(ready, "lastHeartbeatTime"),
	                       "2026-11-29T15:10:00Z");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(ready, "lastTransitionTime"),
	                       "2026-11-29T15:00:00Z");
	json_object_put(node);
	nl_agent_stop(x.agent);
	fixture_free(&x);
}

/* What the server shows differs (someone set Ready=False): a status sync
 * patches at once, though no report is due; when nothing differs and none
 * is due it only reads. */
static void test_agent__status_sync_patches_only_on_change_or_when_due(void)
{
	fixture x;
	json_object *out = NULL;
	fixture_init(&x);
	fixture_agent(&x);
	CU_ASSERT_EQUAL(nl_agent_register_node(x.agent), 0);
	nl_clock_advance(x.clock, 60 * SEC);
	uint64_t seq = last_seq();
	CU_ASSERT_EQUAL(nl_agent_sync_status(x.agent), 0);
	ASSERT_TRACE(seq, "GET nodes?resourceVersion=0 200");
	const char *p = "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\","
	                "\"reason\":\"Test\"}]}}";
	CU_ASSERT_EQUAL(
	    nl_node_patch_status(&out, x.client, "n1", NL_PATCH_STRATEGIC, p, strlen(p), NULL), 0);
	json_object_put(out);
	seq = last_seq();
	CU_ASSERT_EQUAL(nl_agent_sync_status(x.agent), 0);
	ASSERT_TRACE(seq, "GET nodes?resourceVersion=0 200, PATCH nodes/status 200");
	json_object *node = get(&x, NODE_PATH), *ready = nl_node_condition(node, "Ready");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(ready, "status"), "True");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(ready, "reason"), "KubeletReady");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(ready, "lastTransitionTime"),
	                       "2026-11-29T15:01:00Z");
	json_object_put(node);
	CU_ASSERT_EQUAL(nl_agent_status_reports(x.agent), 2);
	fixture_free(&x);
}

/* Status is checked every nodeStatusUpdateFrequency (10 s, jittered by up
 * to 4 %, as kubelet's JitterUntil(syncNodeStatus)): a GET from the cache
 * each time, a PATCH only when something differs or a report is due. */
static void test_agent__status_is_checked_every_update_frequency(void)
{
	fixture x;
	int64_t gets[16];
	fixture_init(&x);
	fixture_agent(&x);
	CU_ASSERT_EQUAL(nl_agent_start(x.agent), 0);
	/* Registration, the first report, the lease and its owner's GET. */
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 0), 0);
	uint64_t seq = last_seq();
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 62 * SEC), 0);
	size_t n = times_of(gets, 16, seq, "GET", "nodes");
	CU_ASSERT_EQUAL(n, 6);
	int64_t prev = START;
	for (size_t i = 0; i < n; i++) {
		CU_ASSERT(gets[i] - prev >= 10 * SEC && gets[i] - prev <= 10400 * MS);
		prev = gets[i];
	}
	CU_ASSERT_EQUAL(times_of(gets, 16, seq, "PATCH", "nodes"), 0);
	nl_agent_stop(x.agent);
	fixture_free(&x);
}

/* The Node went Unknown though this agent never missed a renewal (the lease
 * was deleted and recreated by someone else, the controller's clock jumped):
 * no lapse to notice, yet the next periodic check finds Ready=Unknown and
 * patches it back within one update period. */
static void test_agent__unknown_is_repaired_within_an_update_period(void)
{
	fixture x;
	json_object *out = NULL;
	int64_t patches[4];
	fixture_init(&x);
	fixture_agent(&x);
	CU_ASSERT_EQUAL(nl_agent_start(x.agent), 0);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 30 * SEC), 0);
	const char *p = "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":"
	                "\"Unknown\",\"reason\":\"NodeStatusUnknown\"}]}}";
	CU_ASSERT_EQUAL(
	    nl_node_patch_status(&out, x.client, "n1", NL_PATCH_STRATEGIC, p, strlen(p), NULL), 0);
	json_object_put(out);
	uint64_t seq = last_seq();
	int64_t at = nl_clock_now(x.clock);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 11 * SEC), 0);
	CU_ASSERT_EQUAL_FATAL(times_of(patches, 4, seq, "PATCH", "nodes"), 1);
	CU_ASSERT(patches[0] - at <= 10400 * MS);
	json_object *node = get(&x, NODE_PATH);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(nl_node_condition(node, "Ready"), "status"),
	                       "True");
	json_object_put(node);
	nl_agent_stop(x.agent);
	fixture_free(&x);
}

/* A lapse the node lifecycle controller noticed: the Node went Unknown and
 * got the unreachable taints. When renewals resume after more than a lease
 * duration, the agent checks its status at once and posts Ready=True; the
 * controller then removes the taints. */
static void test_agent__lapse_is_repaired_at_once(void)
{
	fixture x;
	fixture_init(&x);
	fixture_agent(&x);
	CU_ASSERT_EQUAL(nl_agent_start(x.agent), 0);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 30 * SEC), 0);
	CU_ASSERT(mock_server_tick(srv) >= 0);
	/* Frozen for two minutes (SIGSTOP, a partition). */
	nl_agent_stop(x.agent);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 120 * SEC), 0);
	CU_ASSERT(mock_server_tick(srv) >= 0);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 5 * SEC), 0);
	CU_ASSERT(mock_server_tick(srv) >= 0);
	json_object *node = get(&x, NODE_PATH);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(nl_node_condition(node, "Ready"), "status"),
	                       "Unknown");
	assert_condition(node, "MemoryPressure", "Unknown", "NodeStatusUnknown");
	assert_condition(node, "DiskPressure", "Unknown", "NodeStatusUnknown");
	assert_condition(node, "PIDPressure", "Unknown", "NodeStatusUnknown");
	CU_ASSERT_EQUAL(json_object_array_length(nl_json_get_path(node, "spec.taints")), 3);
	json_object_put(node);
	uint64_t seq = last_seq();
	CU_ASSERT_EQUAL(nl_agent_start(x.agent), 0);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 0), 0);
	ASSERT_TRACE(seq, "PUT leases 200, GET nodes?resourceVersion=0 200, "
	                  "PATCH nodes/status 200");
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 5 * SEC), 0);
	CU_ASSERT(mock_server_tick(srv) >= 0);
	node = get(&x, NODE_PATH);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(nl_node_condition(node, "Ready"), "status"),
	                       "True");
	/* The pressure conditions too: kubelet's, their transition now. */
	assert_condition(node, "MemoryPressure", "False", "KubeletHasSufficientMemory");
	assert_condition(node, "DiskPressure", "False", "KubeletHasNoDiskPressure");
	assert_condition(node, "PIDPressure", "False", "KubeletHasSufficientPID");
	CU_ASSERT_STRING_EQUAL(
	    nl_json_get_string(nl_node_condition(node, "DiskPressure"), "lastTransitionTime"),
	    "2026-11-29T15:02:35Z");
	NL_ASSERT_JSON_EQ(nl_json_get_path(node, "spec.taints"),
	                  "[{\"key\":\"nodelet.io/no-pods\",\"effect\":\"NoSchedule\"}]");
	json_object_put(node);
	nl_agent_stop(x.agent);
	fixture_free(&x);
}

/* Pressure follows the host as kubelet's eviction manager has it: True as
 * soon as a hard threshold is met (memory.available<100Mi,
 * nodefs.available<10%), False only once the signal has been fine for
 * evictionPressureTransitionPeriod; each change moves lastTransitionTime,
 * and Ready stays True (pressure is not unreadiness). */
static void test_agent__pressure_follows_the_host(void)
{
	fixture x;
	fixture_init(&x);
	fixture_agent(&x);
	CU_ASSERT_EQUAL_FATAL(nl_agent_register_node(x.agent), 0);
	json_object *node = get(&x, NODE_PATH);
	assert_condition(node, "MemoryPressure", "False", "KubeletHasSufficientMemory");
	json_object_put(node);
	/* 8 GiB − 8100 MiB in the working set: 92 MiB available. */
	host_put("/proc/meminfo", "MemTotal:        8388608 kB\nActive(anon):    8294400 kB\n");
	host_fs.available_bytes = (INT64_C(3) << 30); /* 3 of 32 GiB: under 10% */
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 10 * SEC), 0);
	uint64_t seq = last_seq();
	CU_ASSERT_EQUAL(nl_agent_sync_status(x.agent), 0);
	ASSERT_TRACE(seq, "GET nodes?resourceVersion=0 200, PATCH nodes/status 200");
	node = get(&x, NODE_PATH);
	assert_condition(node, "MemoryPressure", "True", "KubeletHasInsufficientMemory");
	assert_condition(node, "DiskPressure", "True", "KubeletHasDiskPressure");
	assert_condition(node, "PIDPressure", "False", "KubeletHasSufficientPID");
	assert_condition(node, "Ready", "True", NL_AGENT_READY_REASON);
	CU_ASSERT_STRING_EQUAL(
	    nl_json_get_string(nl_node_condition(node, "MemoryPressure"), "message"),
	    "kubelet has insufficient memory available");
	CU_ASSERT_STRING_EQUAL(
	    nl_json_get_string(nl_node_condition(node, "DiskPressure"), "lastTransitionTime"),
	    "2026-11-29T15:00:10Z");
	/* The mock's lifecycle controller taints for it, as upstream's does. */
	CU_ASSERT(mock_server_tick(srv) >= 0);
	json_object_put(node);
	node = get(&x, NODE_PATH);
	CU_ASSERT(strstr(json_object_to_json_string(nl_json_get_path(node, "spec.taints")),
	                 "memory-pressure") != NULL);
	json_object_put(node);
	/* Fine again at 15:00:20: still True for 5 minutes after 15:00:10. */
	host_reset();
	for (int i = 0; i < 29; i++) {
		CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 10 * SEC), 0);
		CU_ASSERT_EQUAL(nl_agent_sync_status(x.agent), 0);
		CU_ASSERT(nl_agent_under_pressure(x.agent, NL_PRESSURE_MEMORY));
	}
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 10 * SEC), 0); /* 15:05:10 */
	seq = last_seq();
	CU_ASSERT_EQUAL(nl_agent_sync_status(x.agent), 0);
	ASSERT_TRACE(seq, "GET nodes?resourceVersion=0 200, PATCH nodes/status 200");
	node = get(&x, NODE_PATH);
	assert_condition(node, "MemoryPressure", "False", "KubeletHasSufficientMemory");
	assert_condition(node, "DiskPressure", "False", "KubeletHasNoDiskPressure");
	CU_ASSERT_STRING_EQUAL(
	    nl_json_get_string(nl_node_condition(node, "MemoryPressure"), "lastTransitionTime"),
	    "2026-11-29T15:05:10Z");
	json_object_put(node);
	fixture_free(&x);
}

/* No pid.available threshold by default (kubelet has none on Linux); one
 * from evictionHard raises PIDPressure, and a given map replaces the
 * defaults whole (no memory threshold left). */
static void test_agent__pid_pressure_needs_a_threshold(void)
{
	static const char doc[] = "apiVersion: nodelet.io/v1alpha1\nkind: NodeletConfiguration\n"
	                          "evictionHard: {pid.available: \"1000\"}\n"
	                          "evictionPressureTransitionPeriod: 30s\n";
	fixture x;
	nl_err err = {0};
	fixture_init(&x);
	host_put("/proc/loadavg", "9.00 9.00 9.00 5/59500 4242\n");
	fixture_agent(&x);
	CU_ASSERT_EQUAL_FATAL(nl_agent_register_node(x.agent), 0);
	json_object *node = get(&x, NODE_PATH);
	assert_condition(node, "PIDPressure", "False", "KubeletHasSufficientPID");
	json_object_put(node);
	nl_nodelet_config *cfg = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_nodelet_config_parse(&cfg, doc, strlen(doc), "<test>", &err), 0);
	CU_ASSERT_EQUAL(nl_agent_set_config(x.agent, cfg), 0);
	nl_nodelet_config_free(cfg);
	host_put("/proc/meminfo", "MemTotal:        8388608 kB\nActive(anon):    8294400 kB\n");
	CU_ASSERT_EQUAL(nl_agent_sync_status(x.agent), 0);
	node = get(&x, NODE_PATH);
	assert_condition(node, "PIDPressure", "True", "KubeletHasInsufficientPID");
	assert_condition(node, "MemoryPressure", "False", "KubeletHasSufficientMemory");
	/* No memory or nodefs threshold left: nothing reserved either. */
	NL_ASSERT_JSON_EQ(nl_json_get_path(node, "status.allocatable"),
	                  "{\"cpu\":\"4\",\"memory\":\"8Gi\",\"ephemeral-storage\":\"32Gi\","
	                  "\"pods\":\"0\"}");
	json_object_put(node);
	/* The configured period: False 30 s after the last time it was met. */
	host_reset();
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 20 * SEC), 0);
	CU_ASSERT_EQUAL(nl_agent_sync_status(x.agent), 0);
	CU_ASSERT(nl_agent_under_pressure(x.agent, NL_PRESSURE_PID));
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 10 * SEC), 0);
	CU_ASSERT_EQUAL(nl_agent_sync_status(x.agent), 0);
	node = get(&x, NODE_PATH);
	assert_condition(node, "PIDPressure", "False", "KubeletHasSufficientPID");
	json_object_put(node);
	fixture_free(&x);
}

/* The Ready self-check: a state directory that cannot be written makes
 * Ready False with the error as message (kubelet's KubeletNotReady), from
 * registration on; writable again, Ready is True at the next sync. */
static void test_agent__ready_false_while_state_dir_unwritable(void)
{
	fixture x;
	fixture_init(&x);
	x.state_dirs[0] = "/var/lib/nodelet";
	x.state_dirs[1] = "/var/lib/nodelet/certs";
	x.n_state_dirs = 1;
	host_not_writable = EROFS;
	fixture_agent(&x);
	CU_ASSERT_EQUAL_FATAL(nl_agent_register_node(x.agent), 0);
	json_object *node = get(&x, NODE_PATH);
	assert_condition(node, "Ready", "False", NL_AGENT_NOT_READY_REASON);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(nl_node_condition(node, "Ready"), "message"),
	                       "state directory /var/lib/nodelet is not writable: Read-only file "
	                       "system");
	/* The last condition, as kubelet keeps Ready. */
	json_object *conds = nl_json_get_path(node, "status.conditions");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(json_object_array_get_idx(conds, 3), "type"),
	                       "Ready");
	json_object_put(node);
	nl_agent_free(x.agent);
	/* Two directories and no filesystem size: Go's aggregate "[a, b, c]",
	 * the last kubelet's check of the capacities it requires. */
	x.n_state_dirs = 2;
	host_statfs_errno = EIO;
	fixture_agent(&x);
	CU_ASSERT_EQUAL(nl_agent_sync_status(x.agent), 0);
	CU_ASSERT_STRING_EQUAL(nl_agent_not_ready_message(x.agent),
	                       "[state directory /var/lib/nodelet is not writable: Read-only file "
	                       "system, state directory /var/lib/nodelet/certs is not writable: "
	                       "Read-only file system, missing node capacity for resources: "
	                       "ephemeral-storage]");
	host_statfs_errno = 0;
	host_not_writable = 0;
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 10 * SEC), 0);
	CU_ASSERT_EQUAL(nl_agent_sync_status(x.agent), 0);
	node = get(&x, NODE_PATH);
	assert_condition(node, "Ready", "True", NL_AGENT_READY_REASON);
	CU_ASSERT_STRING_EQUAL(
	    nl_json_get_string(nl_node_condition(node, "Ready"), "lastTransitionTime"),
	    "2026-11-29T15:00:10Z");
	json_object_put(node);
	fixture_free(&x);
}

/* A new configuration (dynamic config): the next renewal writes the new
 * duration, the renew interval follows it, and status is checked at once. */
static void test_agent__new_config_takes_effect_at_once(void)
{
	fixture x;
	int64_t puts[8];
	fixture_init(&x);
	fixture_agent(&x);
	CU_ASSERT_EQUAL(nl_agent_start(x.agent), 0);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 0), 0);
	nl_nodelet_config *cfg = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_nodelet_config_copy(&cfg, x.cfg), 0);
	cfg->lease_duration_seconds = 20;
	uint64_t seq = last_seq();
	CU_ASSERT_EQUAL(nl_agent_set_config(x.agent, cfg), 0);
	nl_nodelet_config_free(cfg);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 0), 0);
	ASSERT_TRACE(seq, "GET nodes?resourceVersion=0 200");
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 26 * SEC), 0);
	/* The interval in progress was 10 s; then 5 s (+ up to 4 %). */
	size_t n = times_of(puts, 8, seq, "PUT", "leases");
	CU_ASSERT_EQUAL_FATAL(n, 4);
	CU_ASSERT(puts[1] - puts[0] >= 5 * SEC && puts[1] - puts[0] <= 5200 * MS);
	json_object *lease = get(&x, LEASE_PATH);
	CU_ASSERT_EQUAL(json_object_get_int(nl_json_get_path(lease, "spec.leaseDurationSeconds")),
	                20);
	json_object_put(lease);
	CU_ASSERT_EQUAL(nl_agent_config(x.agent)->lease_duration_seconds, 20);
	nl_agent_stop(x.agent);
	fixture_free(&x);
}

/* ==== dynamic config (the nodelet program's --dynamic-config-dir) ==================== */

/* Deliver what the network has for the loop (informer lists and watch
 * events) for about ms of real time, without moving virtual time. */
static void pump(nl_agent *a, int ms)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		nl_loop_step(nl_client_loop(nl_agent_client(a)), 10);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

/* The Node names a ConfigMap in spec.configSource: the controller's sync
 * (signalled by the Node informer, run at its next tick) downloads and
 * checkpoints it and restarts the agent on it — with the explicit flags
 * still winning (the transform). */
static void test_agent__dynamic_config_restarts_the_agent(void)
{
	fixture x;
	nl__dynconfig *d = NULL;
	nl_nodelet_config *flags = NULL;
	char dir[] = "/tmp/nl-dynconfig-XXXXXX", path[256], cmd[300];
	json_object *out = NULL;
	fixture_init(&x);
	json_object *cm = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_configmap_new(&cm, "kube-system", "n1-config"), 0);
	nl_configmap_set(cm, "nodelet",
	                 "apiVersion: nodelet.io/v1alpha1\nkind: NodeletConfiguration\n"
	                 "leaseDurationSeconds: 20\nnodeStatusReportFrequency: 1m\n");
	CU_ASSERT_EQUAL_FATAL(nl_configmap_create(&out, x.client, cm, NULL), 0);
	create_node(&x, "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"},"
	                "\"spec\":{\"configSource\":{\"configMap\":{\"namespace\":\"kube-system\","
	                "\"name\":\"n1-config\",\"kubeletConfigKey\":\"nodelet\"}}}}");
	fixture_agent(&x);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/store/checkpoints/%s/%s/nodelet", dir, nl_meta_uid(out),
	         nl_meta_resource_version(out));
	CU_ASSERT_EQUAL_FATAL(nl_nodelet_config_new(&flags), 0);
	flags->lease_duration_seconds = 30;
	flags->set = NL_NC_LEASE_DURATION_SECONDS;
	CU_ASSERT_EQUAL_FATAL(nl__dynconfig_start(&d, x.agent, dir, x.cfg, flags), 0);
	CU_ASSERT_EQUAL(nl_agent_start(x.agent), 0);
	CU_ASSERT_EQUAL(nl__dynconfig_run(d), 0);
	CU_ASSERT_EQUAL(nl_agent_config(x.agent)->lease_duration_seconds, 40); /* local */
	pump(x.agent, 300);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 13 * SEC), 0);
	pump(x.agent, 100);
	CU_ASSERT_EQUAL(nl_agent_config(x.agent)->lease_duration_seconds, 30);
	CU_ASSERT_EQUAL(nl_agent_config(x.agent)->node_status_report_frequency_usec, 60 * SEC);
	CU_ASSERT_EQUAL(access(path, R_OK), 0);
	CU_ASSERT_EQUAL(nl_lease_controller_renew_interval(nl_agent_lease_controller(x.agent)),
	                7500 * MS);
	nl_agent_stop(x.agent);
	CU_ASSERT_EQUAL(nl__dynconfig_stop(d), 0);
	json_object_put(cm);
	json_object_put(out);
	nl_nodelet_config_free(flags);
	fixture_free(&x);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

/* The ConfigMap informer's delete reaches the controller as "gone" (no
 * object): the next sync cannot download it and says so, instead of
 * syncing on the copy the informer last had. */
static void test_agent__dynamic_config_sees_the_configmap_deleted(void)
{
	fixture x;
	nl__dynconfig *d = NULL;
	nl_nodelet_config *flags = NULL;
	char dir[] = "/tmp/nl-dynconfig-XXXXXX", cmd[300];
	json_object *out = NULL, *cm = NULL;
	fixture_init(&x);
	CU_ASSERT_EQUAL_FATAL(nl_configmap_new(&cm, "kube-system", "n1-config"), 0);
	nl_configmap_set(cm, "nodelet",
	                 "apiVersion: nodelet.io/v1alpha1\nkind: NodeletConfiguration\n"
	                 "leaseDurationSeconds: 20\n");
	CU_ASSERT_EQUAL_FATAL(nl_configmap_create(&out, x.client, cm, NULL), 0);
	create_node(&x, "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"},"
	                "\"spec\":{\"configSource\":{\"configMap\":{\"namespace\":\"kube-system\","
	                "\"name\":\"n1-config\",\"kubeletConfigKey\":\"nodelet\"}}}}");
	fixture_agent(&x);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	CU_ASSERT_EQUAL_FATAL(nl_nodelet_config_new(&flags), 0);
	CU_ASSERT_EQUAL_FATAL(nl__dynconfig_start(&d, x.agent, dir, x.cfg, flags), 0);
	CU_ASSERT_EQUAL(nl_agent_start(x.agent), 0);
	CU_ASSERT_EQUAL(nl__dynconfig_run(d), 0);
	pump(x.agent, 300);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 13 * SEC), 0);
	pump(x.agent, 300); /* restarted on it; the ConfigMap informer lists it */
	CU_ASSERT_EQUAL(nl_agent_config(x.agent)->lease_duration_seconds, 20);
	CU_ASSERT_EQUAL(nl_configmap_delete(x.client, "kube-system", "n1-config", NULL, NULL), 0);
	pump(x.agent, 300); /* the DELETED event */
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 13 * SEC), 0);
	json_object *st = nl_config_controller_status(nl__dynconfig_controller(d));
	const char *error = nl_json_get_string(st, "error");
	CU_ASSERT_STRING_EQUAL(error ? error : "(none)",
	                       "failed to sync: failed to download config, see nodelet log for "
	                       "details");
	json_object_put(st);
	nl_agent_stop(x.agent);
	CU_ASSERT_EQUAL(nl__dynconfig_stop(d), 0);
	json_object_put(cm);
	json_object_put(out);
	nl_nodelet_config_free(flags);
	fixture_free(&x);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

/* ==== an outage: every controller keeps its own schedule ============================ */

#define CONFIG_UA "nodelet-test-dynconfig"

/* The virtual times of the journal entries after since sent with (or, for
 * ua NULL, without) the config controller's user agent, of that method and
 * resource; returns how many. */
static size_t times_by(int64_t *out, size_t max, uint64_t since, int config, const char *method,
                       const char *resource)
{
	json_object *j = journal(since), *items = json_object_object_get(j, "items");
	size_t n = 0;
	for (size_t i = 0; i < json_object_array_length(items) && n < max; i++) {
		json_object *e = json_object_array_get_idx(items, i);
		const char *ua = nl_json_get_string(e, "userAgent");
		if ((ua && strcmp(ua, CONFIG_UA) == 0) != config ||
		    (method && strcmp(nl_json_get_string(e, "method"), method) != 0) ||
		    (resource && strcmp(nl_json_get_string(e, "resource"), resource) != 0))
			continue;
		CU_ASSERT_EQUAL(nl_time_parse_micro(&out[n], nl_json_get_string(e, "time")), 0);
		n++;
	}
	json_object_put(j);
	return n;
}

/* A dynamic config controller beside the agent, on the agent's clock, with
 * a client of its own (so the journal tells its requests apart); nothing
 * is assigned, so each of its two loops GETs the Node at every tick until
 * one succeeds. */
typedef struct {
	char dir[64];
	nl_client *client;
	nl_config_controller *cc;
} config_side;

static void config_side_start(config_side *c, fixture *x)
{
	nl_rest_config rest = {0};
	nl_client_options co;
	nl_config_controller_options o = {0};
	nl_nodelet_config *cfg = NULL;
	nl_err err = {0};
	snprintf(c->dir, sizeof(c->dir), "/tmp/nl-outage-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(c->dir));
	rest.server = (char *)base;
	nl_client_options_init(&co);
	co.clock = x->clock;
	co.qps = -1;
	co.user_agent = CONFIG_UA;
	CU_ASSERT_EQUAL_FATAL(nl_client_new(&c->client, &rest, &co, &err), 0);
	nl_config_ops ops = nl_config_ops_for_client(c->client);
	o.clock = x->clock;
	o.ops = &ops;
	o.node_name = "n1";
	o.dynamic_config_dir = c->dir;
	o.jitter_seed = 7;
	CU_ASSERT_EQUAL_FATAL(nl_config_controller_new(&c->cc, &o), 0);
	CU_ASSERT_EQUAL_FATAL(nl_config_controller_bootstrap(&cfg, c->cc, &err), 0);
	nl_nodelet_config_free(cfg);
	CU_ASSERT_EQUAL_FATAL(nl_config_controller_start(c->cc), 0);
}

static void config_side_free(config_side *c)
{
	char cmd[128];
	nl_config_controller_free(c->cc);
	nl_client_free(c->client);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", c->dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

/* Every answer is a 500 until the fault is removed. */
static char *server_down(void)
{
	char *id = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(
	    mock_server_add_fault(&id, srv,
	                          "{\"match\":{},\"action\":{\"status\":500},\"times\":0}", &err),
	    0);
	return id;
}

static void server_up(char *id)
{
	CU_ASSERT_EQUAL(mock_server_remove_fault(srv, id), 0);
	free(id);
}

/* The API server is down (every request 500) for the first 20 s, then
 * again from 40 s to 80 s. Registration, the lease controller's ensure,
 * node status and both dynamic config loops each keep their own schedule
 * meanwhile: none waits behind the lease controller's 7 s backoff. When
 * the server is back, the Node and then the Lease appear within one
 * backoff step. */
static void test_agent__outage_keeps_every_schedule(void)
{
	static const int64_t backoff_ms[] = {0, 200, 600, 1400, 3000, 6200, 12600, 19600, 26600};
	const size_t nb = sizeof(backoff_ms) / sizeof(backoff_ms[0]);
	fixture x;
	config_side c = {.client = NULL};
	int64_t t[64];
	fixture_init(&x);
	fixture_agent(&x);
	uint64_t seq = last_seq();
	char *down = server_down();
	CU_ASSERT_EQUAL(nl_agent_start(x.agent), 0);
	config_side_start(&c, &x);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 20 * SEC), 0);
	server_up(down);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 10 * SEC), 0);

	/* Registration: 200 ms doubling to 7 s from the start, to the µs. */
	CU_ASSERT_EQUAL_FATAL(times_by(t, 64, seq, 0, "POST", "nodes"), nb);
	for (size_t i = 0; i < nb; i++)
		CU_ASSERT_EQUAL(t[i], START + backoff_ms[i] * MS);
	/* The lease's ensure: its own sequence of the same waits; back at
	 * 26.6 s, 6.6 s after the server, it creates the lease (GET 404 + GET
	 * node + POST). */
	CU_ASSERT_EQUAL_FATAL(times_by(t, 64, seq, 0, "GET", "leases"), nb);
	for (size_t i = 0; i < nb; i++)
		CU_ASSERT_EQUAL(t[i], START + backoff_ms[i] * MS);
	CU_ASSERT_EQUAL_FATAL(times_by(t, 64, seq, 0, "POST", "leases"), 1);
	CU_ASSERT_EQUAL(t[0], START + 26600 * MS);
	CU_ASSERT(t[0] - (START + 20 * SEC) <= NL_LEASE_MAX_BACKOFF_USEC);
	CU_ASSERT_TRUE(nl_agent_registered(x.agent));
	assert_lease_owned_and_cached(&x);
	/* Dynamic config: both loops (config sync, config status) ticked at
	 * once, then every 10-12 s, through the outage. */
	size_t n = times_by(t, 64, seq, 1, "GET", "nodes");
	CU_ASSERT_FATAL(n >= 4);
	CU_ASSERT_EQUAL(t[0], START);
	CU_ASSERT_EQUAL(t[1], START);
	CU_ASSERT(t[2] > START + 10 * SEC - MS && t[2] < START + 12 * SEC + MS);
	CU_ASSERT(t[3] > START + 10 * SEC - MS && t[3] < START + 12 * SEC + MS);

	/* Second outage, with the lease already there: node status (checked
	 * every nodeStatusUpdateFrequency, 10 s plus up to 4 %, 5 tries at
	 * each check) keeps its beat while the lease controller is in its
	 * backoff. */
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 10 * SEC), 0);
	seq = last_seq();
	down = server_down();
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 40 * SEC), 0);
	n = times_by(t, 64, seq, 0, "GET", "nodes");
	CU_ASSERT_EQUAL(n % NL_AGENT_STATUS_UPDATE_RETRIES, 0);
	CU_ASSERT_FATAL(n >= 3 * NL_AGENT_STATUS_UPDATE_RETRIES);
	for (size_t i = 1; i < n; i++) {
		int64_t gap = t[i] - t[i - 1];
		int first = i % NL_AGENT_STATUS_UPDATE_RETRIES == 0;
		CU_ASSERT(first ? gap >= 10 * SEC && gap <= 10400 * MS : gap == 0);
	}
	/* Meanwhile the lease controller retried on its own: 5 PUTs, then
	 * ensure GETs 200 ms doubling to 7 s apart. */
	CU_ASSERT_EQUAL(times_by(t, 64, seq, 0, "PUT", "leases"), 5);
	n = times_by(t, 64, seq, 0, "GET", "leases");
	CU_ASSERT_FATAL(n >= 8);
	for (size_t i = 1; i < n; i++)
		CU_ASSERT_EQUAL(t[i] - t[i - 1],
		                i <= 6 ? (INT64_C(100) << i) * MS : NL_LEASE_MAX_BACKOFF_USEC);
	int64_t last_get = t[n - 1];
	server_up(down);
	seq = last_seq();
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 10 * SEC), 0);
	/* Renewed at the backoff's next step, within 7 s of the server. */
	CU_ASSERT_FATAL(times_by(t, 64, seq, 0, "PUT", "leases") >= 1);
	CU_ASSERT_EQUAL(t[0], last_get + NL_LEASE_MAX_BACKOFF_USEC);
	CU_ASSERT(t[0] - (START + 80 * SEC) <= NL_LEASE_MAX_BACKOFF_USEC);
	nl_agent_stop(x.agent);
	config_side_free(&c);
	fixture_free(&x);
}

static void shutdown_now(void *payload)
{
	nl_agent_shutdown(payload);
}

/* SIGTERM (nl_agent_shutdown) while registration, the lease and dynamic
 * config are all backing off: the stop lands inside a timer callback just
 * before registration's next attempt falls due, and nothing at all is sent
 * after it — no overdue timer fires, the loop returns at once. */
static void test_agent__nothing_is_sent_after_shutdown(void)
{
	fixture x;
	config_side c = {.client = NULL};
	int64_t t[64];
	fixture_init(&x);
	fixture_agent(&x);
	char *down = server_down();
	/* Registration's attempt at 3 s is added later, so at 3 s this fires
	 * first (ties fire in the order added). */
	CU_ASSERT_EQUAL_FATAL(nl_clock_after(NULL, x.clock, 3 * SEC, shutdown_now, x.agent), 0);
	uint64_t seq = last_seq();
	CU_ASSERT_EQUAL(nl_agent_start(x.agent), 0);
	config_side_start(&c, &x);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 3 * SEC), 0);
	CU_ASSERT_TRUE(nl_clock_stopped(x.clock));
	size_t before = times_by(t, 64, seq, 0, NULL, NULL);
	CU_ASSERT_EQUAL(times_by(t, 64, seq, 0, "POST", "nodes"), 4); /* 0, .2, .6, 1.4 */
	uint64_t at_stop = last_seq();
	/* Time goes on; the program's loop runs once more and returns. */
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 60 * SEC), 0);
	CU_ASSERT_EQUAL(nl_agent_run(x.agent), 0);
	CU_ASSERT_EQUAL(nl_agent_sync_status(x.agent), NL_ECANCELED);
	CU_ASSERT_EQUAL(last_seq(), at_stop);
	CU_ASSERT(before >= 8);
	nl_agent_stop(x.agent);
	config_side_free(&c);
	server_up(down);
	fixture_free(&x);
}

/* ==== the exact patch, and the connection reset (scripted server) =================== */

typedef struct {
	pthread_mutex_t mu;
	char *node; /* the Node the GETs answer */
	char *patch;
	char content_type[128];
	char patch_target[2048];
} scripted;

static int scripted_handler(int fd, const fake_http_req *req, void *payload)
{
	scripted *s = payload;
	char ct[128];
	pthread_mutex_lock(&s->mu);
	if (strcmp(req->method, "PATCH") == 0) {
		free(s->patch);
		s->patch = strdup(req->body);
		snprintf(s->patch_target, sizeof(s->patch_target), "%s", req->target);
		if (fake_http_header(req, "Content-Type", ct, sizeof(ct)))
			snprintf(s->content_type, sizeof(s->content_type), "%s", ct);
	}
	int rc = fake_http_reply(fd, 200, NULL, "application/json", s->node);
	pthread_mutex_unlock(&s->mu);
	return rc;
}

/* The agent's node for the scripted server: as registration builds it. */
static char *node_json(nl_agent *a, const char *addresses)
{
	json_object *node = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_agent_initial_node(&node, a), 0);
	nl_meta_set_string(node, "uid", "u-1");
	nl_meta_set_string(node, "resourceVersion", "7");
	if (addresses)
		json_object_object_add(json_object_object_get(node, "status"), "addresses",
		                       nl_test_json(addresses));
	char *s = strdup(json_object_to_json_string_ext(node, JSON_C_TO_STRING_PLAIN));
	json_object_put(node);
	return s;
}

/* The status patch kubelet sends: strategic merge, no resourceVersion, the
 * Ready condition (heartbeat moved, transition kept) with
 * $setElementOrder/conditions, and only the fields that differ — addresses
 * replaced whole with $patch: replace, as kubelet's fixup does. */
static void test_agent__status_patch_is_kubelets(void)
{
	fixture x;
	fake_http *f;
	scripted s = {.mu = PTHREAD_MUTEX_INITIALIZER};
	fixture_init(&x);
	x.cfg->register_node = 0;
	CU_ASSERT_EQUAL_FATAL(fake_http_start(&f, scripted_handler, &s), 0);
	fixture_agent_at(&x, fake_http_url(f));
	s.node = node_json(x.agent, NULL);
	nl_clock_advance(x.clock, 300 * SEC);
	CU_ASSERT_EQUAL(nl_agent_sync_status(x.agent), 0);
	CU_ASSERT_STRING_EQUAL(s.patch_target, "/api/v1/nodes/n1/status");
	CU_ASSERT_STRING_EQUAL(s.content_type, "application/strategic-merge-patch+json");
	json_object *got = nl_test_json(s.patch);
	NL_ASSERT_JSON_EQ(
	    got,
	    "{\"status\":{\"conditions\":[" PRESSURE_FALSE(
	        "2026-11-29T15:05:00Z",
	        "2026-11-29T15:00:00Z") "{\"type\":\"Ready\",\"status\":\"True\","
	                                "\"lastHeartbeatTime\":\"2026-11-29T15:05:00Z\","
	                                "\"lastTransitionTime\":\"2026-11-29T15:00:00Z\","
	                                "\"reason\":\"KubeletReady\","
	                                "\"message\":\"nodelet is posting ready status\"}],"
	                                "\"$setElementOrder/"
	                                "conditions\":[{\"type\":\"MemoryPressure\"},"
	                                "{\"type\":\"DiskPressure\"},{\"type\":\"PIDPressure\"},"
	                                "{\"type\":\"Ready\"}]}}");
	json_object_put(got);

	pthread_mutex_lock(&s.mu);
	free(s.node);
	s.node = node_json(x.agent, "[{\"type\":\"Hostname\",\"address\":\"old\"}]");
	pthread_mutex_unlock(&s.mu);
	CU_ASSERT_EQUAL(nl_agent_sync_status(x.agent), 0);
	got = nl_test_json(s.patch);
	NL_ASSERT_JSON_EQ(
	    json_object_object_get(json_object_object_get(got, "status"), "addresses"),
	    "[{\"type\":\"InternalIP\",\"address\":\"10.0.0.7\"},"
	    "{\"type\":\"Hostname\",\"address\":\"n1\"},{\"$patch\":\"replace\"}]");
	CU_ASSERT_PTR_NULL(nl_json_get_path(got, "metadata"));
	json_object_put(got);
	CU_ASSERT_EQUAL(nl_agent_status_reports(x.agent), 2);
	fixture_free(&x);
	fake_http_stop(f);
	free(s.node);
	free(s.patch);
}

static int ok_handler(int fd, const fake_http_req *req, void *payload)
{
	(void)req;
	(void)payload;
	return fake_http_reply(fd, 200, NULL, "application/json", "{}");
}

/* kubelet's closeAllConns: after a reset the next request opens a new
 * connection instead of reusing the kept-alive one. */
static void test_agent__connection_reset_opens_a_new_connection(void)
{
	fake_http *f;
	CU_ASSERT_EQUAL_FATAL(fake_http_start(&f, ok_handler, NULL), 0);
	nl_client *c = nl_test_client_at(fake_http_url(f), NULL, -1);
	json_object *out = NULL;
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(nl_api_get(&out, c, "/api/v1/nodes/n1", NULL), 0);
		json_object_put(out);
	}
	CU_ASSERT_EQUAL(fake_http_connections(f), 1);
	CU_ASSERT_EQUAL(nl_client_reset_connections(c), 0);
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(nl_api_get(&out, c, "/api/v1/nodes/n1", NULL), 0);
		json_object_put(out);
	}
	CU_ASSERT_EQUAL(fake_http_connections(f), 2);
	CU_ASSERT_EQUAL(fake_http_requests(f), 4);
	nl_client_free(c);
	fake_http_stop(f);
}

/* ==== options ================================================================================ */

static void test_agent__options_are_checked(void)
{
	nl_agent_options o;
	nl_agent *a = NULL;
	nl_err err = {0};
	nl_rest_config rest = {0};
	nl_clock *other = NULL;
	nl_agent_options_init(&o);
	CU_ASSERT_EQUAL(nl_agent_new(&a, &o, &err), NL_EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg, "the node name is required");
	o.node_name = "n1";
	CU_ASSERT_EQUAL(nl_agent_new(&a, &o, &err), NL_EINVAL);
	rest.server = "ftp://x";
	o.rest_config = &rest;
	o.host = &HOST;
	CU_ASSERT_EQUAL(nl_agent_new(&a, &o, &err), NL_ECONFIG);
	/* An existing client: its clock is the agent's. */
	nl_client *c = nl_test_client_at(base, NULL, -1);
	o.rest_config = NULL;
	o.client = c;
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&other, 0), 0);
	o.clock = other;
	CU_ASSERT_EQUAL(nl_agent_new(&a, &o, &err), NL_EINVAL);
	o.clock = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_agent_new(&a, &o, &err), 0);
	CU_ASSERT_PTR_EQUAL(nl_agent_clock(a), nl_client_clock(c));
	CU_ASSERT_PTR_EQUAL(nl_agent_client(a), c);
	CU_ASSERT_STRING_EQUAL(nl_agent_node_name(a), "n1");
	CU_ASSERT_EQUAL(nl_agent_config(a)->lease_duration_seconds, 40);
	CU_ASSERT_EQUAL(nl_agent_start(a), 0);
	CU_ASSERT_EQUAL(nl_agent_start(a), NL_EINVAL);
	nl_agent_free(a); /* stops it */
	/* An invalid configuration is refused with its field error. */
	nl_nodelet_config *cfg = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_nodelet_config_new(&cfg), 0);
	cfg->lease_duration_seconds = 0;
	o.config = cfg;
	CU_ASSERT_EQUAL(nl_agent_new(&a, &o, &err), NL_EINVALID);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "leaseDurationSeconds"));
	nl_nodelet_config_free(cfg);
	nl_client_free(c);
	nl_clock_free(other);
}

static CU_TestInfo tests[] = {
    {"sync_creates_the_lease_with_an_owner", test_agent__sync_creates_the_lease_with_an_owner},
    {"sync_without_node_creates_nothing", test_agent__sync_without_node_creates_nothing},
    {"sync_updates_an_existing_lease", test_agent__sync_updates_an_existing_lease},
    {"cached_sync_is_one_update", test_agent__cached_sync_is_one_update},
    {"deleted_lease_is_recreated", test_agent__deleted_lease_is_recreated},
    {"another_writer_costs_one_conflict", test_agent__another_writer_costs_one_conflict},
    {"timeout_then_conflict_then_success", test_agent__timeout_then_conflict_then_success},
    {"five_failures_call_the_hook_four_times", test_agent__five_failures_call_the_hook_four_times},
    {"server_errors_back_off_exactly", test_agent__server_errors_back_off_exactly},
    {"unreachable_server_is_not_busy_looped", test_agent__unreachable_server_is_not_busy_looped},
    {"steady_state_is_one_update_per_interval",
     test_agent__steady_state_is_one_update_per_interval},
    {"node_appearing_later_gets_its_lease", test_agent__node_appearing_later_gets_its_lease},
    {"registration_creates_the_node", test_agent__registration_creates_the_node},
    {"registration_taints_follow_the_flag", test_agent__registration_taints_follow_the_flag},
    {"registration_adopts_an_existing_node", test_agent__registration_adopts_an_existing_node},
    {"registration_is_retried_with_backoff", test_agent__registration_is_retried_with_backoff},
    {"status_is_reported_at_the_report_frequency",
     test_agent__status_is_reported_at_the_report_frequency},
    {"status_sync_patches_only_on_change_or_when_due",
     test_agent__status_sync_patches_only_on_change_or_when_due},
    {"status_is_checked_every_update_frequency",
     test_agent__status_is_checked_every_update_frequency},
    {"unknown_is_repaired_within_an_update_period",
     test_agent__unknown_is_repaired_within_an_update_period},
    {"lapse_is_repaired_at_once", test_agent__lapse_is_repaired_at_once},
    {"pressure_follows_the_host", test_agent__pressure_follows_the_host},
    {"pid_pressure_needs_a_threshold", test_agent__pid_pressure_needs_a_threshold},
    {"ready_false_while_state_dir_unwritable", test_agent__ready_false_while_state_dir_unwritable},
    {"new_config_takes_effect_at_once", test_agent__new_config_takes_effect_at_once},
    {"dynamic_config_restarts_the_agent", test_agent__dynamic_config_restarts_the_agent},
    {"dynamic_config_sees_the_configmap_deleted",
     test_agent__dynamic_config_sees_the_configmap_deleted},
    {"outage_keeps_every_schedule", test_agent__outage_keeps_every_schedule},
    {"nothing_is_sent_after_shutdown", test_agent__nothing_is_sent_after_shutdown},
    {"status_patch_is_kubelets", test_agent__status_patch_is_kubelets},
    {"connection_reset_opens_a_new_connection",
     test_agent__connection_reset_opens_a_new_connection},
    {"options_are_checked", test_agent__options_are_checked},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"agent", setup, teardown, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
