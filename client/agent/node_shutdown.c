/* Graceful node shutdown, as kubelet's nodeshutdown manager on Linux
 * (nodeshutdown_manager_linux.go, systemd/inhibit_linux.go): a delay
 * inhibitor lock from systemd-logind over the system bus; on
 * PrepareForShutdown(true) an Event, Ready=False "node is shutting down"
 * through the agent's status report, and the lock released once that
 * report is done; on PrepareForShutdown(false) the lock taken again and
 * Ready back. The agent runs no pods, so there is nothing to wait for
 * beyond the report (docs/decisions/0044).
 *
 * Everything runs on the agent's loop (decision 0032): the bus connection
 * and a timerfd for sd-bus's own timeouts are watched descriptors
 * (nl_loop_watch_add), every call to logind is asynchronous, and the
 * handling of a signal is a clock timer, so no HTTP request runs inside
 * sd_bus_process. */
#include "config.h"

#include <nodelet/event.h>
#include <nodelet/log.h>
#include <nodelet/loop.h>
#include <stdlib.h>
#include <string.h>

#include "agent_internal.h"

#define SHUTDOWN_EVENT_REASON "NodeShutdown"

#ifdef NL_HAVE_SYSTEMD

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#define LOGIND "org.freedesktop.login1"
#define LOGIND_PATH "/org/freedesktop/login1"
#define LOGIND_MANAGER "org.freedesktop.login1.Manager"
/* kubelet's dbusReconnectPeriod. */
#define RECONNECT_USEC NL_USEC_PER_SEC

struct nl__shutdown {
	nl_agent *agent;
	sd_bus *bus;
	nl_loop_watch *bus_watch, *timer_watch;
	int timer_fd;
	sd_bus_slot *match, *call;
	int lock_fd;      /* the inhibitor lock; -1 = none */
	int watching;     /* the lock was taken and the signal is matched */
	int ever_watched; /* a later failure restarts the watch, as kubelet's */
	int closing;      /* a callback gave up: close after sd_bus_process */
	char why[512];    /* what went wrong, for the log line */
	int signalled;    /* the last PrepareForShutdown value not yet handled */
	uint64_t handle_timer, reconnect_timer, release_timer;
};

static void pump(nl__shutdown *m);
static void connect_bus(nl__shutdown *m);

static void fail(nl__shutdown *m, const char *fmt, const char *detail)
{
	snprintf(m->why, sizeof(m->why), fmt, detail);
	m->closing = 1;
}

static void cancel(nl__shutdown *m, uint64_t *t)
{
	if (*t)
		nl_clock_cancel(m->agent->clock, *t);
	*t = 0;
}

static void close_bus(nl__shutdown *m)
{
	m->match = sd_bus_slot_unref(m->match);
	m->call = sd_bus_slot_unref(m->call);
	nl_loop_watch_remove(m->bus_watch);
	nl_loop_watch_remove(m->timer_watch);
	m->bus_watch = m->timer_watch = NULL;
	if (m->timer_fd >= 0)
		close(m->timer_fd);
	m->timer_fd = -1;
	if (m->bus)
		sd_bus_flush_close_unref(m->bus);
	m->bus = NULL;
	m->watching = 0;
	m->closing = 0;
}

static void release_lock(nl__shutdown *m)
{
	cancel(m, &m->release_timer);
	m->agent->shutdown_release_owed = 0;
	if (m->lock_fd < 0)
		return;
	close(m->lock_fd);
	m->lock_fd = -1;
	NL_LOG_V(1, "Shutdown manager completed processing shutdown event, node will shutdown "
	            "shortly");
}

static void reconnect_tick(void *payload)
{
	nl__shutdown *m = payload;
	m->reconnect_timer = 0;
	NL_LOG_V(1, "Restarting watch for node shutdown events");
	connect_bus(m);
}

/* After a failure: the first start only logs (kubelet's Start returns the
 * error and never retries); a watch that worked is restarted a second
 * later, as kubelet's loop does. */
static void gave_up(nl__shutdown *m)
{
	close_bus(m);
	if (!m->ever_watched) {
		NL_LOG_ERROR(m->why, "Failed to start node shutdown manager");
		return;
	}
	NL_LOG_ERROR(m->why, "Unable to watch the node for shutdown events");
	if (nl_clock_after(&m->reconnect_timer, m->agent->clock, RECONNECT_USEC, reconnect_tick,
	                   m) != 0)
		m->reconnect_timer = 0;
}

/* --- logind's answers ------------------------------------------------------------ */

static const char *error_text(const sd_bus_error *e, int r)
{
	return e && e->message ? e->message : strerror(r < 0 ? -r : r);
}

static int on_inhibit(sd_bus_message *reply, void *payload, sd_bus_error *ret)
{
	nl__shutdown *m = payload;
	int fd = -1, r;
	(void)ret;
	m->call = sd_bus_slot_unref(m->call);
	if (sd_bus_message_is_method_error(reply, NULL)) {
		fail(m, "failed creating systemd inhibitor: %s",
		     error_text(sd_bus_message_get_error(reply), 0));
		return 0;
	}
	/* The message owns its descriptor: keep a copy of our own. */
	if ((r = sd_bus_message_read(reply, "h", &fd)) < 0 ||
	    (fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0) {
		fail(m, "failed storing inhibit lock file descriptor: %s",
		     strerror(r < 0 ? -r : errno));
		return 0;
	}
	/* kubelet's acquireInhibitLock: the new lock first, then the old one
	 * goes, so no moment is left without one. */
	if (m->lock_fd >= 0)
		close(m->lock_fd);
	m->lock_fd = fd;
	m->watching = m->ever_watched = 1;
	NL_LOG_V(2, "Node shutdown manager holds a delay inhibitor lock for shutdown");
	return 0;
}

static void take_lock(nl__shutdown *m)
{
	m->call = sd_bus_slot_unref(m->call);
	int r = sd_bus_call_method_async(m->bus, &m->call, LOGIND, LOGIND_PATH, LOGIND_MANAGER,
	                                 "Inhibit", on_inhibit, m, "ssss", "shutdown", "nodelet",
	                                 NL_SHUTDOWN_INHIBIT_WHY, "delay");
	if (r < 0)
		fail(m, "failed creating systemd inhibitor: %s", strerror(-r));
}

/* InhibitDelayMaxUSec against the grace period (kubelet's start). kubelet
 * then writes a logind drop-in and reloads logind; nodelet does not (it
 * runs unprivileged, decision 0044) and fails as kubelet does when that
 * did not help. */
static int on_delay(sd_bus_message *reply, void *payload, sd_bus_error *ret)
{
	nl__shutdown *m = payload;
	uint64_t usec = 0;
	int r;
	(void)ret;
	m->call = sd_bus_slot_unref(m->call);
	if (sd_bus_message_is_method_error(reply, NULL)) {
		fail(m, "failed reading InhibitDelayMaxUSec property from logind: %s",
		     error_text(sd_bus_message_get_error(reply), 0));
		return 0;
	}
	if ((r = sd_bus_message_read(reply, "v", "t", &usec)) < 0) {
		fail(m, "%s", "InhibitDelayMaxUSec from logind is not a uint64 as expected");
		return 0;
	}
	int64_t want = m->agent->config->shutdown_grace_period_usec;
	if ((uint64_t)want > usec) {
		char w[NL_DURATION_BUFSZ], have[NL_DURATION_BUFSZ], msg[400];
		nl_duration_format(w, want);
		nl_duration_format(have, usec > INT64_MAX ? INT64_MAX : (int64_t)usec);
		snprintf(
		    msg, sizeof(msg),
		    "node shutdown manager was unable to update logind InhibitDelayMaxSec to %s "
		    "(ShutdownGracePeriod), current value of InhibitDelayMaxSec (%s) is less "
		    "than requested ShutdownGracePeriod",
		    w, have);
		fail(m, "%s", msg);
		return 0;
	}
	take_lock(m);
	return 0;
}

static void handle_tick(void *payload);

static int on_prepare(sd_bus_message *msg, void *payload, sd_bus_error *ret)
{
	nl__shutdown *m = payload;
	int active = 0;
	(void)ret;
	if (sd_bus_message_read(msg, "b", &active) < 0) {
		NL_LOG_ERROR(NULL,
		             "Failed obtaining shutdown event, PrepareForShutdown event was not "
		             "bool type as expected");
		return 0;
	}
	/* Handled from the clock, outside sd_bus_process: it sends requests. */
	m->signalled = active ? 1 : 2;
	if (!m->handle_timer &&
	    nl_clock_after(&m->handle_timer, m->agent->clock, 0, handle_tick, m) != 0) {
		m->handle_timer = 0;
		NL_LOG_ERROR("out of memory", "Cannot handle the shutdown event");
	}
	return 0;
}

/* --- the shutdown event ------------------------------------------------------------ */

static void post_event(nl_agent *a, const char *message)
{
	/* As kubelet's recorder for its nodeRef: the node name is the uid. */
	nl_event_spec spec = {.kind = "Node",
	                      .name = a->node_name,
	                      .uid = a->node_name,
	                      .type = "Normal",
	                      .reason = SHUTDOWN_EVENT_REASON,
	                      .message = message,
	                      .component = "nodelet",
	                      .host = a->node_name};
	json_object *out = NULL;
	nl_result res = NL_RESULT_INIT;
	/* client-go's recorder with StartStructuredLogging(3), as kubelet starts it */
	NL_LOG_V(3, "Event occurred", NL_KV_REF("object", NULL, a->node_name),
	         NL_KV_STR("fieldPath", ""), NL_KV_STR("kind", "Node"),
	         NL_KV_STR("apiVersion", "v1"), NL_KV_STR("type", "Normal"),
	         NL_KV_STR("reason", SHUTDOWN_EVENT_REASON), NL_KV_STR("message", message));
	if (nl_event_record(&out, a->client, &spec, &res) != 0)
		NL_LOG_ERROR(res.message, "Unable to write event",
		             NL_KV_STR("reason", SHUTDOWN_EVENT_REASON));
	json_object_put(out);
	nl_result_clear(&res);
}

static void release_tick(void *payload)
{
	nl__shutdown *m = payload;
	m->release_timer = 0;
	release_lock(m);
}

static void handle_tick(void *payload)
{
	nl__shutdown *m = payload;
	nl_agent *a = m->agent;
	int shutting_down = m->signalled == 1;
	m->handle_timer = 0;
	m->signalled = 0;
	NL_LOG_V(1, "Shutdown manager detected new shutdown event",
	         NL_KV_STR("event", shutting_down ? "shutdown" : "cancelled"));
	post_event(a, shutting_down ? "Shutdown manager detected shutdown event"
	                            : "Shutdown manager detected shutdown cancellation");
	a->shutting_down = shutting_down;
	if (!shutting_down) {
		cancel(m, &m->release_timer);
		a->shutdown_release_owed = 0;
		if (m->bus && !m->closing)
			take_lock(m);
		nl__agent_status_now(a);
		pump(m);
		return;
	}
	NL_LOG_V(1, "Shutdown manager processing shutdown event");
	/* Released after the status report this schedules, or at the end of
	 * the grace period if that report never comes. */
	a->shutdown_release_owed = 1;
	if (!nl__agent_status_now(a)) {
		release_lock(m);
		return;
	}
	cancel(m, &m->release_timer);
	if (nl_clock_after(&m->release_timer, a->clock, a->config->shutdown_grace_period_usec,
	                   release_tick, m) != 0) {
		m->release_timer = 0;
		release_lock(m);
	}
}

/* --- the connection on the loop ------------------------------------------------------ */

static uint32_t epoll_events(sd_bus *bus)
{
	int e = sd_bus_get_events(bus);
	if (e < 0)
		return EPOLLIN;
	return (e & POLLIN ? EPOLLIN : 0) | (e & POLLOUT ? EPOLLOUT : 0);
}

/* sd-bus's next deadline (a call's reply timeout, authentication) on the
 * timerfd: real monotonic time, whatever clock the agent runs on. */
static void arm_timer(nl__shutdown *m)
{
	uint64_t usec = UINT64_MAX;
	struct itimerspec its = {0};
	if (sd_bus_get_timeout(m->bus, &usec) >= 0 && usec != UINT64_MAX) {
		if (usec == 0)
			usec = 1;
		its.it_value.tv_sec = (time_t)(usec / 1000000);
		its.it_value.tv_nsec = (long)(usec % 1000000) * 1000;
		if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
			its.it_value.tv_nsec = 1;
	}
	timerfd_settime(m->timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* Process what the bus has, then wait for what it wants next. */
static void pump(nl__shutdown *m)
{
	int r = 0;
	if (!m->bus)
		return;
	while (!m->closing && (r = sd_bus_process(m->bus, NULL)) > 0)
		;
	if (!m->closing && r < 0)
		fail(m, "the system bus connection ended: %s", strerror(-r));
	if (!m->closing && !sd_bus_is_open(m->bus))
		fail(m, "%s", "the system bus connection ended");
	if (m->closing) {
		gave_up(m);
		return;
	}
	nl_loop_watch_set_events(m->bus_watch, epoll_events(m->bus));
	arm_timer(m);
}

static void on_bus_ready(int fd, uint32_t events, void *payload)
{
	(void)fd;
	(void)events;
	pump(payload);
}

static void on_timer_ready(int fd, uint32_t events, void *payload)
{
	uint64_t n;
	(void)events;
	if (read(fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		NL_LOG_V(4, "Node shutdown manager cannot read its timer",
		         NL_KV_STR("err", strerror(errno)));
	pump(payload);
}

/* kubelet's start(): connect, read InhibitDelayMaxUSec, take the lock and
 * watch PrepareForShutdown — here as a chain of asynchronous calls. */
static void connect_bus(nl__shutdown *m)
{
	nl_loop *loop = nl_client_loop(m->agent->client);
	int r = sd_bus_open_system(&m->bus);
	if (r < 0) {
		m->bus = NULL;
		fail(m, "cannot connect to the system bus: %s", strerror(-r));
		gave_up(m);
		return;
	}
	m->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (m->timer_fd < 0 ||
	    nl_loop_watch_add(&m->bus_watch, loop, sd_bus_get_fd(m->bus), EPOLLIN, on_bus_ready,
	                      m) != 0 ||
	    nl_loop_watch_add(&m->timer_watch, loop, m->timer_fd, EPOLLIN, on_timer_ready, m) !=
	        0) {
		fail(m, "%s", "cannot watch the system bus connection");
		gave_up(m);
		return;
	}
	/* The signal first, so none is missed between the lock and the match. */
	r = sd_bus_match_signal_async(m->bus, &m->match, LOGIND, LOGIND_PATH, LOGIND_MANAGER,
	                              "PrepareForShutdown", on_prepare, NULL, m);
	if (r >= 0)
		r = sd_bus_call_method_async(m->bus, &m->call, LOGIND, LOGIND_PATH,
		                             "org.freedesktop.DBus.Properties", "Get", on_delay, m,
		                             "ss", LOGIND_MANAGER, "InhibitDelayMaxUSec");
	if (r < 0)
		fail(m, "failed to monitor shutdown: %s", strerror(-r));
	pump(m);
}

int nl__agent_shutdown_start(nl_agent *a)
{
	nl__shutdown *m = calloc(1, sizeof(*m));
	if (!m)
		return NL_ENOMEM;
	m->agent = a;
	m->timer_fd = m->lock_fd = -1;
	a->shutdown = m;
	char g[NL_DURATION_BUFSZ], c[NL_DURATION_BUFSZ];
	nl_duration_format(g, a->config->shutdown_grace_period_usec);
	nl_duration_format(c, a->config->shutdown_grace_period_critical_pods_usec);
	NL_LOG_INFO("Creating node shutdown manager", NL_KV_STR("shutdownGracePeriodRequested", g),
	            NL_KV_STR("shutdownGracePeriodCriticalPods", c));
	connect_bus(m);
	return 0;
}

void nl__agent_shutdown_stop(nl_agent *a)
{
	nl__shutdown *m = a->shutdown;
	if (!m)
		return;
	cancel(m, &m->handle_timer);
	cancel(m, &m->reconnect_timer);
	cancel(m, &m->release_timer);
	close_bus(m);
	/* Stopping the agent lets the shutdown go on. */
	if (m->lock_fd >= 0)
		close(m->lock_fd);
	a->shutdown = NULL;
	a->shutdown_release_owed = 0;
	/* Turned off (a new configuration) in the middle of a shutdown: the
	 * status is no longer the manager's to hold down. */
	a->shutting_down = 0;
	free(m);
}

void nl__agent_shutdown_status_synced(nl_agent *a)
{
	if (a->shutdown && a->shutdown_release_owed)
		release_lock(a->shutdown);
}

int nl_agent_shutdown_lock_held(const nl_agent *a)
{
	return a->shutdown && a->shutdown->lock_fd >= 0;
}

#else /* !NL_HAVE_SYSTEMD */

int nl__agent_shutdown_start(nl_agent *a)
{
	(void)a;
	NL_LOG_ERROR("nodelet was built without systemd (configure --without-systemd)",
	             "Failed to start node shutdown manager");
	return 0;
}

void nl__agent_shutdown_stop(nl_agent *a)
{
	(void)a;
}

void nl__agent_shutdown_status_synced(nl_agent *a)
{
	(void)a;
}

int nl_agent_shutdown_lock_held(const nl_agent *a)
{
	(void)a;
	return 0;
}

#endif
