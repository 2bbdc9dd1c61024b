/* --metrics-bind-address: the agent's /metrics, and /healthz, /livez and
 * /readyz (agent_health.c). The server is a thread answering one short
 * request per connection (Prometheus scrapes, probes), so no HTTP library
 * is pulled into libnodelet. */
#include "agent_metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <nodelet/log.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "agent_health.h"
#include "agent_internal.h"
#include "std_metrics.h"

#define RENDER_PERIOD_USEC NL_USEC_PER_SEC
#define REQUEST_TIMEOUT_MS 2000

struct nl__agent_metrics {
	nl_agent *agent;
	nl_config_controller *cc;
	uint64_t timer;
	int fd;
	int stop_pipe[2];
	unsigned port;
	pthread_t thread;
	int thread_started;
	int register_node; /* registerNode at start: readiness waits for it */
	pthread_mutex_t lock;
	char *config_text; /* the node_config_* gauges, or NULL; under lock */
};

/* --- exposition ---------------------------------------------------------------- */

static const char *source_field(json_object *src, const char *key)
{
	json_object *cm = NULL, *v = NULL;
	if (src && json_object_object_get_ex(src, "configMap", &cm) &&
	    json_object_object_get_ex(cm, key, &v) && json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return "";
}

/* kubelet's configLabels: "local" for no source, else the ConfigMap's
 * path, uid, resourceVersion and kubeletConfigKey. */
static int config_gauge(nl_buf *out, const char *name, const char *help, json_object *src)
{
	char source[600] = "local";
	if (src && json_object_is_type(src, json_type_object))
		snprintf(source, sizeof(source), "/api/v1/namespaces/%s/configmaps/%s",
		         source_field(src, "namespace"), source_field(src, "name"));
	else
		src = NULL;
	return nl_buf_printf(out,
	                     "# HELP nodelet_%s %s\n# TYPE nodelet_%s gauge\n"
	                     "nodelet_%s{node_config_kubelet_key=\"%s\","
	                     "node_config_resource_version=\"%s\",node_config_source=\"%s\","
	                     "node_config_uid=\"%s\"} 1\n",
	                     name, help, name, name, source_field(src, "kubeletConfigKey"),
	                     source_field(src, "resourceVersion"), source,
	                     source_field(src, "uid"));
}

static int render_config(nl_buf *out, json_object *status)
{
	json_object *assigned = NULL, *active = NULL, *lkg = NULL, *error = NULL;
	json_object_object_get_ex(status, "assigned", &assigned);
	json_object_object_get_ex(status, "active", &active);
	json_object_object_get_ex(status, "lastKnownGood", &lkg);
	json_object_object_get_ex(status, "error", &error);
	int rc = config_gauge(out, "node_config_assigned",
	                      "The node's understanding of intended config. The count is always 1.",
	                      assigned);
	if (rc == 0)
		rc = config_gauge(
		    out, "node_config_active",
		    "The config source the node is actively using. The count is always "
		    "1.",
		    active);
	if (rc == 0)
		rc = config_gauge(out, "node_config_last_known_good",
		                  "The config source the node will fall back to when it encounters "
		                  "certain errors. The count is always 1.",
		                  lkg);
	int failing = error && json_object_is_type(error, json_type_string) &&
	              json_object_get_string_len(error) > 0;
	if (rc == 0)
		rc =
		    nl_buf_printf(out,
		                  "# HELP nodelet_node_config_error This metric is true (1) if the "
		                  "node is experiencing a configuration-related error, false (0) "
		                  "otherwise.\n# TYPE nodelet_node_config_error gauge\n"
		                  "nodelet_node_config_error %d\n",
		                  failing);
	return rc;
}

int nl__agent_metrics_render(nl_buf *out, const nl__agent_metrics_values *v)
{
	int rc = nl_buf_printf(
	    out,
	    "# HELP nodelet_node_lease_renewals_total Writes of the node's Lease (renewals "
	    "and creations) by result.\n"
	    "# TYPE nodelet_node_lease_renewals_total counter\n"
	    "nodelet_node_lease_renewals_total{result=\"failure\"} %lu\n"
	    "nodelet_node_lease_renewals_total{result=\"success\"} %lu\n"
	    "# HELP nodelet_node_lease_last_renew_timestamp_seconds When the node's Lease was "
	    "last written successfully, in seconds since the epoch (0: never).\n"
	    "# TYPE nodelet_node_lease_last_renew_timestamp_seconds gauge\n"
	    "nodelet_node_lease_last_renew_timestamp_seconds %.6f\n",
	    v->renewals_failed, v->renewals_ok, (double)v->last_renew_usec / 1e6);
	if (rc == 0 && v->config_status)
		rc = render_config(out, v->config_status);
	return rc;
}

static int64_t mono_usec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* On the loop's thread, the only one that may read the config controller:
 * render the node_config_* gauges, hand them over, come back in a second.
 * While the loop is blocked (a lease backoff) they keep their last value. */
static void config_tick(void *payload)
{
	nl__agent_metrics *m = payload;
	/* A new reference; before the first sync it is an empty status, which
	 * shows "local" everywhere, as kubelet's metrics do. */
	json_object *status = nl_config_controller_status(m->cc);
	nl_buf b;
	nl_buf_init(&b, 0);
	char *text = NULL;
	if (status && render_config(&b, status) == 0)
		text = nl_buf_detach(&b, NULL);
	nl_buf_free(&b);
	json_object_put(status);
	if (text) {
		pthread_mutex_lock(&m->lock);
		free(m->config_text);
		m->config_text = text;
		pthread_mutex_unlock(&m->lock);
	}
	if (nl_clock_after(&m->timer, m->agent->clock, RENDER_PERIOD_USEC, config_tick, m) != 0)
		m->timer = 0;
}

/* On the server thread: the lease counters now, the config as last seen. */
static char *scrape(nl__agent_metrics *m)
{
	nl_agent *a = m->agent;
	nl__agent_metrics_values v = {__atomic_load_n(&a->lease_renewals_ok, __ATOMIC_RELAXED),
	                              __atomic_load_n(&a->lease_renewals_failed, __ATOMIC_RELAXED),
	                              __atomic_load_n(&a->last_lease_renew_wall, __ATOMIC_RELAXED),
	                              NULL};
	nl_buf b;
	nl_buf_init(&b, 0);
	int rc = nl__agent_metrics_render(&b, &v);
	pthread_mutex_lock(&m->lock);
	if (rc == 0 && m->config_text)
		rc = nl_buf_adds(&b, m->config_text);
	pthread_mutex_unlock(&m->lock);
	if (rc == 0)
		rc = nl__std_metrics_render(&b, nl_agent_client(a));
	char *text = rc == 0 ? nl_buf_detach(&b, NULL) : NULL;
	nl_buf_free(&b);
	return text;
}

/* --- HTTP ---------------------------------------------------------------------- */

static void send_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		data += n;
		len -= (size_t)n;
	}
}

/* extra: more header lines, each ending in CRLF ("" for none). */
static void answer_with(int fd, int code, const char *content_type, const char *extra,
                        const char *body, int head)
{
	const char *reason = code == 200   ? "OK"
	                     : code == 404 ? "Not Found"
	                     : code == 405 ? "Method Not Allowed"
	                                   : "Internal Server Error";
	char hdr[320];
	size_t len = strlen(body);
	int n = snprintf(hdr, sizeof(hdr),
	                 "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
	                 "%sConnection: close\r\n\r\n",
	                 code, reason, content_type, len, extra);
	send_all(fd, hdr, (size_t)n);
	if (!head)
		send_all(fd, body, len);
}

static void answer(int fd, int code, const char *content_type, const char *body, int head)
{
	answer_with(fd, code, content_type, "", body, head);
}

/* /healthz, /livez, /readyz (agent_health.c); 0 when path is none of them. */
static int health(nl__agent_metrics *m, int fd, const char *path, const char *query, int head)
{
	nl_agent *a = m->agent;
	nl__agent_health_state st = {!m->register_node ||
	                                 __atomic_load_n(&a->registered, __ATOMIC_RELAXED),
	                             __atomic_load_n(&a->lease_renewals_ok, __ATOMIC_RELAXED) > 0};
	nl_buf b;
	int code = 500;
	nl_buf_init(&b, 0);
	int rc = nl__agent_health_answer(&b, &code, path, query, &st);
	if (rc == 1)
		answer_with(fd, code, "text/plain; charset=utf-8",
		            "X-Content-Type-Options: nosniff\r\n", b.data ? b.data : "", head);
	else if (rc < 0)
		answer(fd, 500, "text/plain; charset=utf-8", "out of memory\n", head);
	nl_buf_free(&b);
	return rc != 0;
}

/* Read the request head (up to 4 KiB, bounded in time). 0 or -1. */
static int read_head(int fd, char *buf, size_t cap)
{
	size_t len = 0;
	int64_t deadline = mono_usec() + REQUEST_TIMEOUT_MS * 1000;
	while (len + 1 < cap) {
		int64_t left = (deadline - mono_usec()) / 1000;
		struct pollfd p = {fd, POLLIN, 0};
		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			return -1;
		ssize_t n = recv(fd, buf + len, cap - 1 - len, 0);
		if (n <= 0)
			return -1;
		len += (size_t)n;
		buf[len] = '\0';
		if (strstr(buf, "\r\n\r\n") || strstr(buf, "\n\n"))
			return 0;
	}
	return -1;
}

static void serve(nl__agent_metrics *m, int fd)
{
	char req[4096], method[8], target[1024];
	if (read_head(fd, req, sizeof(req)) != 0 || sscanf(req, "%7s %1023s", method, target) != 2)
		return;
	char *q = strchr(target, '?');
	if (q)
		*q++ = '\0';
	int head = strcmp(method, "HEAD") == 0;
	if (!head && strcmp(method, "GET") != 0) {
		answer(fd, 405, "text/plain; charset=utf-8", "method not allowed\n", 0);
		return;
	}
	if (strcmp(target, "/metrics") == 0) {
		char *text = scrape(m);
		if (text)
			answer(fd, 200, "text/plain; version=0.0.4; charset=utf-8", text, head);
		else
			answer(fd, 500, "text/plain; charset=utf-8", "out of memory\n", head);
		free(text);
	} else if (!health(m, fd, target, q, head)) {
		answer(fd, 404, "text/plain; charset=utf-8", "404 page not found\n", head);
	}
}

static void *server_thread(void *arg)
{
	nl__agent_metrics *m = arg;
	for (;;) {
		struct pollfd p[2] = {{m->fd, POLLIN, 0}, {m->stop_pipe[0], POLLIN, 0}};
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		int c = accept(m->fd, NULL, NULL);
		if (c < 0)
			continue;
		serve(m, c);
		close(c);
	}
	return NULL;
}

/* "IP:PORT", "[IPv6]:PORT", ":PORT" (all IPv4 addresses, as Go's). */
static int listen_on(int *fd_out, unsigned *port_out, const char *addr, nl_err *err)
{
	char host[64] = "";
	const char *colon = strrchr(addr, ':');
	if (!colon || colon - addr >= (long)sizeof(host))
		return nl_err_set(err, NL_EINVAL,
		                  "invalid --metrics-bind-address \"%s\": want IP:PORT", addr);
	memcpy(host, addr, (size_t)(colon - addr));
	host[colon - addr] = '\0';
	char *end = NULL;
	long port = strtol(colon + 1, &end, 10);
	if (!colon[1] || *end || port < 0 || port > 65535)
		return nl_err_set(err, NL_EINVAL, "invalid port in --metrics-bind-address \"%s\"",
		                  addr);
	struct sockaddr_storage ss;
	socklen_t sl;
	memset(&ss, 0, sizeof(ss));
	size_t hl = strlen(host);
	if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
		host[hl - 1] = '\0';
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host + 1, &a6->sin6_addr) != 1)
			return nl_err_set(err, NL_EINVAL,
			                  "invalid IP in --metrics-bind-address \"%s\"", addr);
		sl = sizeof(*a6);
	} else {
		struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		if (!host[0])
			a4->sin_addr.s_addr = htonl(INADDR_ANY);
		else if (inet_pton(AF_INET, host, &a4->sin_addr) != 1)
			return nl_err_set(err, NL_EINVAL,
			                  "invalid IP in --metrics-bind-address \"%s\"", addr);
		sl = sizeof(*a4);
	}
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&ss, sl) != 0 || listen(fd, 16) != 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return nl_err_set(err, NL_EIO, "cannot listen on %s: %s", addr, strerror(e));
	}
	*port_out = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
	                                           : ((struct sockaddr_in *)&ss)->sin_port);
	*fd_out = fd;
	return 0;
}

int nl__agent_metrics_start(nl__agent_metrics **out, nl_agent *a, nl_config_controller *cc,
                            const char *addr, nl_err *err)
{
	nl__agent_metrics *m = calloc(1, sizeof(*m));
	if (!m)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	m->agent = a;
	m->cc = cc;
	m->register_node = nl_agent_config(a)->register_node;
	m->fd = -1;
	m->stop_pipe[0] = m->stop_pipe[1] = -1;
	pthread_mutex_init(&m->lock, NULL);
	int rc = listen_on(&m->fd, &m->port, addr, err);
	if (rc == 0 && pipe(m->stop_pipe) != 0)
		rc = nl_err_set(err, NL_EIO, "pipe: %s", strerror(errno));
	if (rc == 0) {
		if (cc)
			config_tick(m); /* the gauges before the first scrape */
		if (pthread_create(&m->thread, NULL, server_thread, m) != 0)
			rc = nl_err_set(err, NL_ENOMEM, "cannot start the metrics server thread");
		else
			m->thread_started = 1;
	}
	if (rc != 0) {
		nl__agent_metrics_stop(m);
		return rc;
	}
	NL_LOG_INFO("Serving metrics and healthz", NL_KV_UINT("port", m->port));
	*out = m;
	return 0;
}

unsigned nl__agent_metrics_port(const nl__agent_metrics *m)
{
	return m->port;
}

void nl__agent_metrics_stop(nl__agent_metrics *m)
{
	if (!m)
		return;
	if (m->thread_started) {
		ssize_t w = write(m->stop_pipe[1], "x", 1);
		(void)w;
		pthread_join(m->thread, NULL);
	}
	if (m->timer)
		nl_clock_cancel(m->agent->clock, m->timer);
	for (int i = 0; i < 2; i++)
		if (m->stop_pipe[i] >= 0)
			close(m->stop_pipe[i]);
	if (m->fd >= 0)
		close(m->fd);
	pthread_mutex_destroy(&m->lock);
	free(m->config_text);
	free(m);
}
