/* Graceful node shutdown end to end: a private dbus-daemon, a fake
 * systemd-logind on it (org.freedesktop.login1: the InhibitDelayMaxUSec
 * property, Inhibit, the PrepareForShutdown signal; written with sd-bus,
 * run on a thread of this program), nodelet-mockapi in-process, and an
 * agent on a real clock that finds the bus through DBUS_SYSTEM_BUS_ADDRESS
 * as sd-bus reads it. What kubelet's nodeshutdown manager does is checked
 * on the wire: the inhibitor's what/who/why/mode, Ready=False with the
 * shutdown message, the NodeShutdown Events, the lock closed, taken again
 * on cancel; too small an InhibitDelayMaxSec and no logind at all are each
 * one log line and an agent that goes on working. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <nodelet/agent.h>
#include <nodelet/api.h>
#include <nodelet/event.h>
#include <nodelet/log.h>
#include <nodelet/meta.h>
#include <nodelet/node.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "../cu_main.h"
#include "client_util.h"
#include "http_client.h"
#include "mockapi.h"

#define SEC INT64_C(1000000)

static mock_server *srv;
static const char *base;
static pid_t bus_pid = -1;
static char bus_address[512];
static char log_path[64] = "/tmp/nl-shutdown-log-XXXXXX";
static FILE *log_file;

/* --- the fake logind ----------------------------------------------------------------- */

static struct {
	pthread_mutex_t mu;
	pthread_t thread;
	int stop;
	uint64_t delay_max_usec; /* InhibitDelayMaxUSec */
	int inhibits;            /* Inhibit calls answered */
	char what[64], who[64], why[128], mode[32];
	int lock_read_end; /* our end of the last lock handed out; -1 none */
	int emit;          /* PrepareForShutdown to send: 1 true, 2 false */
} fake = {.mu = PTHREAD_MUTEX_INITIALIZER, .lock_read_end = -1};

static int fake_inhibit(sd_bus_message *m, void *payload, sd_bus_error *err)
{
	const char *what, *who, *why, *mode;
	int p[2], r;
	(void)payload;
	(void)err;
	if ((r = sd_bus_message_read(m, "ssss", &what, &who, &why, &mode)) < 0)
		return r;
	if (pipe2(p, O_CLOEXEC) != 0)
		return -errno;
	pthread_mutex_lock(&fake.mu);
	snprintf(fake.what, sizeof(fake.what), "%s", what);
	snprintf(fake.who, sizeof(fake.who), "%s", who);
	snprintf(fake.why, sizeof(fake.why), "%s", why);
	snprintf(fake.mode, sizeof(fake.mode), "%s", mode);
	if (fake.lock_read_end >= 0)
		close(fake.lock_read_end);
	fake.lock_read_end = p[0];
	fake.inhibits++;
	pthread_mutex_unlock(&fake.mu);
	/* As logind: the caller holds the write end; its close ends the lock. */
	r = sd_bus_reply_method_return(m, "h", p[1]);
	close(p[1]);
	return r;
}

static int fake_delay(sd_bus *bus, const char *path, const char *iface, const char *prop,
                      sd_bus_message *reply, void *payload, sd_bus_error *err)
{
	(void)bus, (void)path, (void)iface, (void)prop, (void)payload, (void)err;
	pthread_mutex_lock(&fake.mu);
	uint64_t v = fake.delay_max_usec;
	pthread_mutex_unlock(&fake.mu);
	return sd_bus_message_append(reply, "t", v);
}

static const sd_bus_vtable fake_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("InhibitDelayMaxUSec", "t", fake_delay, 0, 0),
    SD_BUS_METHOD("Inhibit", "ssss", "h", fake_inhibit, 0),
    SD_BUS_SIGNAL("PrepareForShutdown", "b", 0),
    SD_BUS_VTABLE_END,
};

static void *fake_main(void *payload)
{
	sd_bus *bus = payload;
	for (;;) {
		pthread_mutex_lock(&fake.mu);
		int stop = fake.stop, emit = fake.emit;
		fake.emit = 0;
		pthread_mutex_unlock(&fake.mu);
		if (stop)
			break;
		if (emit)
			sd_bus_emit_signal(bus, "/org/freedesktop/login1",
			                   "org.freedesktop.login1.Manager", "PrepareForShutdown",
			                   "b", emit == 1);
		while (sd_bus_process(bus, NULL) > 0)
			;
		sd_bus_wait(bus, 20000);
	}
	sd_bus_flush_close_unref(bus);
	return NULL;
}

static sd_bus *bus_connect(void)
{
	sd_bus *bus = NULL;
	if (sd_bus_new(&bus) < 0)
		return NULL;
	if (sd_bus_set_address(bus, bus_address) < 0 || sd_bus_set_bus_client(bus, 1) < 0 ||
	    sd_bus_start(bus) < 0) {
		sd_bus_unref(bus);
		return NULL;
	}
	return bus;
}

static void fake_start(uint64_t delay_max_usec)
{
	sd_bus *bus = bus_connect();
	CU_ASSERT_PTR_NOT_NULL_FATAL(bus);
	fake.stop = 0;
	fake.emit = 0;
	fake.inhibits = 0;
	fake.delay_max_usec = delay_max_usec;
	CU_ASSERT_FATAL(sd_bus_add_object_vtable(bus, NULL, "/org/freedesktop/login1",
	                                         "org.freedesktop.login1.Manager", fake_vtable,
	                                         NULL) >= 0);
	CU_ASSERT_FATAL(sd_bus_request_name(bus, "org.freedesktop.login1", 0) >= 0);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&fake.thread, NULL, fake_main, bus), 0);
}

static void fake_stop(void)
{
	pthread_mutex_lock(&fake.mu);
	fake.stop = 1;
	pthread_mutex_unlock(&fake.mu);
	pthread_join(fake.thread, NULL);
	if (fake.lock_read_end >= 0)
		close(fake.lock_read_end);
	fake.lock_read_end = -1;
}

static void fake_emit(int shutting_down)
{
	pthread_mutex_lock(&fake.mu);
	fake.emit = shutting_down ? 1 : 2;
	pthread_mutex_unlock(&fake.mu);
}

static int fake_inhibits(void)
{
	pthread_mutex_lock(&fake.mu);
	int n = fake.inhibits;
	pthread_mutex_unlock(&fake.mu);
	return n;
}

/* The lock handed out last was closed by every holder. */
static int fake_lock_closed(void)
{
	pthread_mutex_lock(&fake.mu);
	struct pollfd p = {fake.lock_read_end, POLLIN, 0};
	int closed = fake.lock_read_end >= 0 && poll(&p, 1, 0) == 1 && (p.revents & POLLHUP);
	pthread_mutex_unlock(&fake.mu);
	return closed;
}

/* --- the private bus, the mock --------------------------------------------------------- */

static int start_bus(void)
{
	int out[2];
	if (pipe(out) != 0)
		return -1;
	bus_pid = fork();
	if (bus_pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(out[1], 1);
		if (null >= 0)
			dup2(null, 2); /* its "cannot raise the fd limit" as non-root */
		close(out[0]);
		execlp("dbus-daemon", "dbus-daemon", "--session", "--nofork", "--nopidfile",
		       "--print-address=1", (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	ssize_t n = 0, got;
	while (n < (ssize_t)sizeof(bus_address) - 1 &&
	       (got = read(out[0], bus_address + n, sizeof(bus_address) - 1 - (size_t)n)) > 0) {
		n += got;
		if (memchr(bus_address, '\n', (size_t)n))
			break;
	}
	close(out[0]);
	bus_address[n > 0 ? n : 0] = '\0';
	char *nl = strchr(bus_address, '\n');
	if (nl)
		*nl = '\0';
	return bus_address[0] ? 0 : -1;
}

static int setup(void)
{
	mock_options o;
	mock_options_init(&o);
	o.controller_tick_ms = 0;
	if (nl_test_suite_server(&srv, &base, &o) != 0)
		return 1;
	if (start_bus() != 0) {
		fprintf(stderr, "cannot start dbus-daemon (Debian package dbus-daemon)\n");
		return 1;
	}
	int fd = mkstemp(log_path);
	if (fd < 0)
		return 1;
	close(fd);
	return 0;
}

static int teardown(void)
{
	mock_server_free(srv);
	if (bus_pid > 0) {
		kill(bus_pid, SIGTERM);
		waitpid(bus_pid, NULL, 0);
	}
	nl_log_set_output(NULL);
	if (log_file)
		fclose(log_file);
	unlink(log_path);
	return 0;
}

/* --- the agent ------------------------------------------------------------------------------ */

static const nl_host_info HOST = {
    .machine_id = "0123456789abcdef0123456789abcdef",
    .boot_id = "b0070000-0000-4000-8000-000000000001",
    .kernel_version = "6.1.0-test",
    .os_image = "Debian GNU/Linux 12 (bookworm)",
    .operating_system = "linux",
    .architecture = "amd64",
    .cpus = 4,
    .memory_bytes = INT64_C(8) << 30,
};

typedef struct {
	nl_agent *agent;
	nl_client *client; /* the test's, for reading */
	nl_nodelet_config *cfg;
} fixture;

/* A fresh mock, a fresh log, and an agent whose bus is address. */
static void fixture_start(fixture *x, const char *address, int64_t grace)
{
	nl_rest_config rest = {0};
	nl_agent_options o;
	nl_err err = {0};
	memset(x, 0, sizeof(*x));
	CU_ASSERT_EQUAL_FATAL(mock_server_reset(srv, &err), 0);
	if (log_file)
		fclose(log_file);
	log_file = fopen(log_path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(log_file);
	setvbuf(log_file, NULL, _IOLBF, 0);
	nl_log_set_output(log_file);
	nl_log_set_verbosity(1);
	setenv("DBUS_SYSTEM_BUS_ADDRESS", address, 1);
	CU_ASSERT_EQUAL_FATAL(nl_nodelet_config_new(&x->cfg), 0);
	x->cfg->shutdown_grace_period_usec = grace;
	x->cfg->lease_duration_seconds = 4;
	x->client = nl_test_client_at(base, NULL, -1);
	rest.server = (char *)base;
	nl_agent_options_init(&o);
	o.node_name = "n1";
	o.rest_config = &rest;
	o.config = x->cfg;
	o.host = &HOST;
	o.jitter_seed = 7;
	CU_ASSERT_EQUAL_FATAL(nl_agent_new(&x->agent, &o, &err), 0);
	CU_ASSERT_EQUAL_FATAL(nl_agent_start(x->agent), 0);
}

static void fixture_free(fixture *x)
{
	nl_agent_free(x->agent);
	nl_client_free(x->client);
	nl_nodelet_config_free(x->cfg);
	nl_log_set_verbosity(0);
	unsetenv("DBUS_SYSTEM_BUS_ADDRESS");
}

/* Step the agent's loop until check(x) holds or secs of real time pass. */
static int run_within(fixture *x, int (*check)(fixture *x), int secs)
{
	nl_loop *l = nl_client_loop(nl_agent_client(x->agent));
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (check(x))
			return 1;
		nl_loop_step(l, 20);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 >
		    secs * 1000)
			return check(x);
	}
}

static int run_until(fixture *x, int (*check)(fixture *x))
{
	return run_within(x, check, 10);
}

static json_object *ready_condition(fixture *x, json_object **node)
{
	nl_result res = NL_RESULT_INIT;
	*node = NULL;
	nl_api_get(node, x->client, "/api/v1/nodes/n1", &res);
	nl_result_clear(&res);
	return *node ? nl_node_condition(*node, "Ready") : NULL;
}

static int ready_is(fixture *x, const char *status, const char *message)
{
	json_object *node, *c = ready_condition(x, &node);
	int ok = c && strcmp(nl_json_get_string(c, "status"), status) == 0 &&
	         (!message || strcmp(nl_json_get_string(c, "message"), message) == 0);
	json_object_put(node);
	return ok;
}

static int ready_true(fixture *x)
{
	return ready_is(x, "True", NULL);
}

static int ready_false_shutting_down(fixture *x)
{
	return ready_is(x, "False", "node is shutting down");
}

static int locked(fixture *x)
{
	return nl_agent_shutdown_lock_held(x->agent) && fake_inhibits() > 0;
}

static int locked_twice(fixture *x)
{
	return nl_agent_shutdown_lock_held(x->agent) && fake_inhibits() == 2;
}

static int lock_closed(fixture *x)
{
	return !nl_agent_shutdown_lock_held(x->agent) && fake_lock_closed();
}

/* The NodeShutdown Events' messages in the default namespace, in order. */
static void shutdown_events(char *out, size_t outlen)
{
	json_object *list = NULL;
	nl_client *c = nl_test_client_at(base, NULL, -1);
	nl_result res = NL_RESULT_INIT;
	size_t used = 0;
	out[0] = '\0';
	nl_event_list(&list, c, "default", NULL, &res);
	json_object *items = json_object_object_get(list, "items");
	for (size_t i = 0; i < json_object_array_length(items); i++) {
		json_object *e = json_object_array_get_idx(items, i);
		if (strcmp(nl_json_get_string(e, "reason"), "NodeShutdown") != 0)
			continue;
		used += (size_t)snprintf(
		    out + used, outlen - used, "%s%s %s /%s", used ? "; " : "",
		    nl_json_get_string(e, "type"), nl_json_get_string(e, "message"),
		    nl_json_get_string(json_object_object_get(e, "involvedObject"), "name"));
	}
	json_object_put(list);
	nl_result_clear(&res);
	nl_client_free(c);
}

/* Lines of the log that contain what. */
static int log_count(const char *what)
{
	char line[2048];
	int n = 0;
	FILE *f = fopen(log_path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, what))
			n++;
	fclose(f);
	return n;
}

static int lease_renewed_twice(fixture *x)
{
	(void)x;
	json_object *l = NULL;
	nl_result res = NL_RESULT_INIT;
	nl_api_get(&l, x->client,
	           "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1", &res);
	nl_result_clear(&res);
	const char *rv =
	    l ? nl_json_get_string(json_object_object_get(l, "metadata"), "resourceVersion") : NULL;
	static char first[64];
	int renewed = 0;
	if (rv && !first[0])
		snprintf(first, sizeof(first), "%s", rv);
	else if (rv && strcmp(first, rv) != 0)
		renewed = 1;
	if (renewed)
		first[0] = '\0';
	json_object_put(l);
	return renewed;
}

/* ==== the cases =================================================================== */

/* Start: kubelet's inhibitor (what "shutdown", mode "delay"; who and why
 * say nodelet). PrepareForShutdown(true): an Event, Ready False with the
 * shutdown message, the lock closed. PrepareForShutdown(false): the
 * cancellation Event, a new lock, Ready True. */
static void test_node_shutdown__shutdown_then_cancel(void)
{
	fixture x;
	char got[1024];
	fake_start(30 * SEC);
	fixture_start(&x, bus_address, 5 * SEC);
	CU_ASSERT_TRUE_FATAL(run_until(&x, locked));
	pthread_mutex_lock(&fake.mu);
	CU_ASSERT_STRING_EQUAL(fake.what, "shutdown");
	CU_ASSERT_STRING_EQUAL(fake.who, "nodelet");
	CU_ASSERT_STRING_EQUAL(fake.why, "Nodelet needs time to handle node shutdown");
	CU_ASSERT_STRING_EQUAL(fake.mode, "delay");
	pthread_mutex_unlock(&fake.mu);
	CU_ASSERT_TRUE_FATAL(run_until(&x, ready_true));

	fake_emit(1);
	CU_ASSERT_TRUE(run_until(&x, ready_false_shutting_down));
	/* Released once the report is written, not at the end of the 5 s
	 * grace period. */
	CU_ASSERT_TRUE(run_within(&x, lock_closed, 2));
	CU_ASSERT_TRUE(nl_agent_shutting_down(x.agent));
	json_object *node, *c = ready_condition(&x, &node);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(c, "reason"), NL_AGENT_NOT_READY_REASON);
	json_object_put(node);
	shutdown_events(got, sizeof(got));
	CU_ASSERT_STRING_EQUAL(got, "Normal Shutdown manager detected shutdown event /n1");
	CU_ASSERT_EQUAL(fake_inhibits(), 1);

	fake_emit(0);
	CU_ASSERT_TRUE(run_until(&x, locked_twice));
	CU_ASSERT_TRUE(run_until(&x, ready_true));
	CU_ASSERT_FALSE(nl_agent_shutting_down(x.agent));
	shutdown_events(got, sizeof(got));
	CU_ASSERT_STRING_EQUAL(got, "Normal Shutdown manager detected shutdown event /n1; "
	                            "Normal Shutdown manager detected shutdown cancellation /n1");
	/* Stopping the agent lets a shutdown go on: the lock is closed. */
	nl_agent_stop(x.agent);
	CU_ASSERT_TRUE(fake_lock_closed());
	fixture_free(&x);
	fake_stop();
}

/* InhibitDelayMaxSec below shutdownGracePeriod: kubelet's error, once; no
 * lock; the agent works on. */
static void test_node_shutdown__too_small_inhibit_delay_is_reported(void)
{
	fixture x;
	fake_start(5 * SEC);
	fixture_start(&x, bus_address, 30 * SEC);
	CU_ASSERT_TRUE(run_until(&x, ready_true));
	CU_ASSERT_TRUE(run_until(&x, lease_renewed_twice));
	CU_ASSERT_EQUAL(
	    log_count("] \"Failed to start node shutdown manager\" err=\"node shutdown manager was "
	              "unable to update logind InhibitDelayMaxSec to 30s "
	              "(ShutdownGracePeriod), current value of InhibitDelayMaxSec (5s) "
	              "is less than requested ShutdownGracePeriod\"\n"),
	    1);
	CU_ASSERT_EQUAL(fake_inhibits(), 0);
	CU_ASSERT_FALSE(nl_agent_shutdown_lock_held(x.agent));
	fixture_free(&x);
	fake_stop();
}

/* No system bus: one line, and registration, status and the lease go on. */
static void test_node_shutdown__no_bus_is_one_log_line(void)
{
	fixture x;
	fixture_start(&x, "unix:path=/nonexistent/nodelet-test-bus", 5 * SEC);
	CU_ASSERT_TRUE(run_until(&x, ready_true));
	CU_ASSERT_TRUE(run_until(&x, lease_renewed_twice));
	CU_ASSERT_EQUAL(log_count("] \"Failed to start node shutdown manager\" err="), 1);
	CU_ASSERT_EQUAL(log_count("cannot connect to the system bus: No such file or directory"),
	                1);
	fixture_free(&x);
}

/* A bus without logind: one line with the bus's answer. */
static void test_node_shutdown__bus_without_logind_is_one_log_line(void)
{
	fixture x;
	fixture_start(&x, bus_address, 5 * SEC);
	CU_ASSERT_TRUE(run_until(&x, ready_true));
	CU_ASSERT_TRUE(run_until(&x, lease_renewed_twice));
	CU_ASSERT_EQUAL(
	    log_count("] \"Failed to start node shutdown manager\" err=\"failed reading "
	              "InhibitDelayMaxUSec property from logind: "),
	    1);
	CU_ASSERT_FALSE(nl_agent_shutdown_lock_held(x.agent));
	fixture_free(&x);
}

/* shutdownGracePeriod 0 (the default): no manager, no line. */
static void test_node_shutdown__off_by_default(void)
{
	fixture x;
	fake_start(30 * SEC);
	fixture_start(&x, bus_address, 0);
	CU_ASSERT_TRUE(run_until(&x, ready_true));
	CU_ASSERT_EQUAL(fake_inhibits(), 0);
	CU_ASSERT_EQUAL(log_count("shutdown manager"), 0);
	CU_ASSERT_EQUAL(log_count("Shutdown manager"), 0);
	fixture_free(&x);
	fake_stop();
}

static CU_TestInfo tests[] = {
    {"shutdown_then_cancel", test_node_shutdown__shutdown_then_cancel},
    {"too_small_inhibit_delay_is_reported",
     test_node_shutdown__too_small_inhibit_delay_is_reported},
    {"no_bus_is_one_log_line", test_node_shutdown__no_bus_is_one_log_line},
    {"bus_without_logind_is_one_log_line", test_node_shutdown__bus_without_logind_is_one_log_line},
    {"off_by_default", test_node_shutdown__off_by_default},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"node_shutdown", setup, teardown, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
