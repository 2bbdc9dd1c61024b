/* Request metrics as kube-apiserver's endpoints/metrics package counts them,
 * and the text exposition of them. A handful of label sets exist in
 * practice, so series live in a small array searched linearly under one
 * mutex: a request costs a few string compares. */
#include "metrics.h"

#include <nodelet/errors.h>
#include <nodelet/process_metrics.h>
#include <nodelet/status.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/resources.h"
#include "watch/watch.h"

/* k8s.io/apiserver/pkg/endpoints/metrics: requestLatencies buckets. */
static const double buckets[] = {0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2,
                                 3,     4,     5,    6,   8,   10,  15,  20,  30,  45,   60};
#define NBUCKETS (sizeof(buckets) / sizeof(buckets[0]))

/* Label values are copied: attrs live only as long as the request. */
typedef struct {
	char verb[16];
	char group[64];
	char version[16];
	char resource[64];
	char subresource[16];
	char scope[16];
} series_key;

typedef struct {
	series_key key;
	uint64_t counts[NBUCKETS]; /* not cumulative; summed when rendered */
	uint64_t total;
	double sum;
	/* apiserver_request_total per code: codes are few per label set */
	int codes[8];
	uint64_t code_counts[8];
	size_t ncodes;
} series;

struct mock_metrics {
	pthread_mutex_t lock;
	series *series;
	size_t n, alloc;
	uint64_t faults[MOCK_METRICS_FAULT_ACTIONS];
};

int mock_metrics_new(mock_metrics **out)
{
	mock_metrics *m = calloc(1, sizeof(*m));
	if (!m)
		return NL_ENOMEM;
	pthread_mutex_init(&m->lock, NULL);
	*out = m;
	return 0;
}

void mock_metrics_free(mock_metrics *m)
{
	if (!m)
		return;
	pthread_mutex_destroy(&m->lock);
	free(m->series);
	free(m);
}

void mock_metrics_clear(mock_metrics *m)
{
	pthread_mutex_lock(&m->lock);
	free(m->series);
	m->series = NULL;
	m->n = m->alloc = 0;
	memset(m->faults, 0, sizeof(m->faults));
	pthread_mutex_unlock(&m->lock);
}

int64_t mock_metrics_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static const char *resource_verb(const char *verb, const char *content_type)
{
	static const struct {
		const char *audit, *metric;
	} map[] = {{"get", "GET"},       {"list", "LIST"},
	           {"watch", "WATCH"},   {"create", "POST"},
	           {"update", "PUT"},    {"patch", "PATCH"},
	           {"delete", "DELETE"}, {"deletecollection", "DELETE"}};
	if (strcmp(verb, "patch") == 0 && content_type &&
	    strncmp(content_type, "application/apply-patch", 23) == 0)
		return "APPLY";
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(verb, map[i].audit) == 0)
			return map[i].metric;
	return "";
}

void mock_metrics_labels_of(mock_metrics_labels *out, char verb_buf[16],
                            const mock_req_attrs *attrs, const char *method,
                            const char *content_type)
{
	static const char *const empty = "";
	mock_metrics_labels l = {empty, empty, empty, empty, empty, empty};
	if (attrs->res) {
		l.verb = resource_verb(attrs->verb, content_type);
		l.group = attrs->res->group;
		l.version = attrs->res->version;
		l.resource = attrs->resource;
		l.subresource = attrs->subresource;
		/* metrics.CleanScope */
		if (attrs->name[0] || strcmp(attrs->verb, "create") == 0)
			l.scope = "resource";
		else if (attrs->ns[0])
			l.scope = "namespace";
		else
			l.scope = "cluster";
	} else {
		size_t i = 0;
		for (; i < 15 && method[i]; i++)
			verb_buf[i] = (char)(method[i] >= 'a' && method[i] <= 'z' ? method[i] - 32
			                                                          : method[i]);
		verb_buf[i] = '\0';
		l.verb = verb_buf;
	}
	*out = l;
}

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

static series_key key_of(const mock_metrics_labels *l)
{
	series_key k;
	memset(&k, 0, sizeof(k));
	copy(k.verb, sizeof(k.verb), l->verb);
	copy(k.group, sizeof(k.group), l->group);
	copy(k.version, sizeof(k.version), l->version);
	copy(k.resource, sizeof(k.resource), l->resource);
	copy(k.subresource, sizeof(k.subresource), l->subresource);
	copy(k.scope, sizeof(k.scope), l->scope);
	return k;
}

/* Whether a key field holds v as key_of stores it (cut to the field). */
static int field_is(const char *field, size_t size, const char *v)
{
	if (!v)
		v = "";
	size_t n = strnlen(v, size - 1);
	return memcmp(field, v, n) == 0 && field[n] == '\0';
}

static int key_is(const series_key *k, const mock_metrics_labels *l)
{
	return field_is(k->resource, sizeof(k->resource), l->resource) &&
	       field_is(k->verb, sizeof(k->verb), l->verb) &&
	       field_is(k->scope, sizeof(k->scope), l->scope) &&
	       field_is(k->group, sizeof(k->group), l->group) &&
	       field_is(k->version, sizeof(k->version), l->version) &&
	       field_is(k->subresource, sizeof(k->subresource), l->subresource);
}

/* The series for l, added when new; NULL when full. Under the lock. The
 * labels are compared in place: building a key costs more than the
 * search, and a new label set is rare. */
static series *find_series(mock_metrics *m, const mock_metrics_labels *l)
{
	for (size_t i = 0; i < m->n; i++)
		if (key_is(&m->series[i].key, l))
			return &m->series[i];
	if (m->n == MOCK_METRICS_MAX_SERIES)
		return NULL;
	if (m->n == m->alloc) {
		size_t alloc = m->alloc ? m->alloc * 2 : 16;
		series *grown = realloc(m->series, alloc * sizeof(*grown));
		if (!grown)
			return NULL;
		m->series = grown;
		m->alloc = alloc;
	}
	series *s = &m->series[m->n++];
	memset(s, 0, sizeof(*s));
	s->key = key_of(l);
	return s;
}

static void count_code(series *s, int code)
{
	for (size_t i = 0; i < s->ncodes; i++)
		if (s->codes[i] == code) {
			s->code_counts[i]++;
			return;
		}
	/* More distinct codes than slots for one label set does not happen
	 * with this server's answers; fold any excess into the last slot. */
	size_t i = s->ncodes < 8 ? s->ncodes++ : 7;
	s->codes[i] = code;
	s->code_counts[i]++;
}

void mock_metrics_observe(mock_metrics *m, const mock_metrics_labels *l, int code,
                          int64_t duration_usec)
{
	if (!m)
		return;
	double seconds = duration_usec > 0 ? (double)duration_usec / 1e6 : 0;
	pthread_mutex_lock(&m->lock);
	series *s = find_series(m, l);
	if (s) {
		size_t b = 0;
		while (b < NBUCKETS && seconds > buckets[b])
			b++;
		if (b < NBUCKETS)
			s->counts[b]++;
		s->total++;
		s->sum += seconds;
		count_code(s, code);
	}
	pthread_mutex_unlock(&m->lock);
}

/* The labels of req; attrs from the request when the server has not
 * worked them out yet. The strings may point into *own and verb. */
static void request_labels(mock_metrics_labels *l, char verb[16], mock_req_attrs *own,
                           const mock_request *req)
{
	const mock_req_attrs *attrs = req->attrs;
	if (!attrs) {
		mock_request_attrs(own, req->method, req->path, mock_request_query(req, "watch"),
		                   mock_request_query(req, "fieldSelector"));
		attrs = own;
	}
	mock_metrics_labels_of(l, verb, attrs, req->method, req->content_type);
}

void mock_metrics_observe_request(mock_metrics *m, const mock_request *req, int code,
                                  int64_t duration_usec)
{
	if (!m)
		return;
	mock_req_attrs own;
	mock_metrics_labels l;
	char verb[16];
	request_labels(&l, verb, &own, req);
	mock_metrics_observe(m, &l, code, duration_usec);
}

mock_watch_scope mock_metrics_watch_scope(const mock_request *req)
{
	mock_req_attrs own;
	mock_metrics_labels l;
	char verb[16];
	request_labels(&l, verb, &own, req);
	if (strcmp(l.scope, "resource") == 0)
		return MOCK_WATCH_SCOPE_RESOURCE;
	return strcmp(l.scope, "namespace") == 0 ? MOCK_WATCH_SCOPE_NAMESPACE
	                                         : MOCK_WATCH_SCOPE_CLUSTER;
}

/* The fault actions, in the order of mock_metrics_fault. */
static const char *const fault_actions[MOCK_METRICS_FAULT_ACTIONS] = {
    "delay", "drop", "malformed", "status", "truncate", "watch"};

void mock_metrics_count_fault(mock_metrics *m, mock_metrics_fault action)
{
	if (!m || (unsigned)action >= MOCK_METRICS_FAULT_ACTIONS)
		return;
	pthread_mutex_lock(&m->lock);
	m->faults[action]++;
	pthread_mutex_unlock(&m->lock);
}

static int render_faults(nl_buf *out, const mock_metrics *m)
{
	int rc = 0, any = 0;
	for (int i = 0; i < MOCK_METRICS_FAULT_ACTIONS; i++)
		any |= m->faults[i] > 0;
	if (any)
		rc = nl_buf_adds(out, "# HELP nodelet_mockapi_injected_faults_total Faults of the "
		                      "control API that fired, by action (docs/control-api.md).\n"
		                      "# TYPE nodelet_mockapi_injected_faults_total counter\n");
	for (int i = 0; rc == 0 && i < MOCK_METRICS_FAULT_ACTIONS; i++)
		if (m->faults[i])
			rc = nl_buf_printf(out,
			                   "nodelet_mockapi_injected_faults_total{action=\"%s\"} "
			                   "%llu\n",
			                   fault_actions[i], (unsigned long long)m->faults[i]);
	return rc;
}

/* A label value in the exposition format: \, " and newline escaped. */
static int add_value(nl_buf *out, const char *v)
{
	int rc = 0;
	for (; *v && rc == 0; v++) {
		if (*v == '\\')
			rc = nl_buf_adds(out, "\\\\");
		else if (*v == '"')
			rc = nl_buf_adds(out, "\\\"");
		else if (*v == '\n')
			rc = nl_buf_adds(out, "\\n");
		else
			rc = nl_buf_add(out, v, 1);
	}
	return rc;
}

/* The labels shared by both metrics, sorted by name as client_golang
 * writes them; code (counter) and le (histogram) go where they sort. */
static int add_labels(nl_buf *out, const series_key *k, const char *code, const char *le)
{
	const struct {
		const char *name, *value;
	} labels[] = {{"code", code},
	              {"component", "apiserver"},
	              {"group", k->group},
	              {"le", le},
	              {"resource", k->resource},
	              {"scope", k->scope},
	              {"subresource", k->subresource},
	              {"verb", k->verb},
	              {"version", k->version}};
	int rc = nl_buf_adds(out, "{");
	int first = 1;
	for (size_t i = 0; rc == 0 && i < sizeof(labels) / sizeof(labels[0]); i++) {
		if (!labels[i].value)
			continue;
		rc = nl_buf_printf(out, "%s%s=\"", first ? "" : ",", labels[i].name);
		if (rc == 0)
			rc = add_value(out, labels[i].value);
		if (rc == 0)
			rc = nl_buf_adds(out, "\"");
		first = 0;
	}
	return rc == 0 ? nl_buf_adds(out, "}") : rc;
}

static int render_requests(nl_buf *out, const mock_metrics *m)
{
	int rc = nl_buf_adds(out, "# HELP apiserver_request_total [STABLE] Counter of apiserver "
	                          "requests broken out for each verb, dry run value, group, "
	                          "version, resource, scope, component, and HTTP response code.\n"
	                          "# TYPE apiserver_request_total counter\n");
	for (size_t i = 0; rc == 0 && i < m->n; i++) {
		const series *s = &m->series[i];
		for (size_t c = 0; rc == 0 && c < s->ncodes; c++) {
			char code[16];
			snprintf(code, sizeof(code), "%d", s->codes[c]);
			rc = nl_buf_adds(out, "apiserver_request_total");
			if (rc == 0)
				rc = add_labels(out, &s->key, code, NULL);
			if (rc == 0)
				rc = nl_buf_printf(out, " %llu\n",
				                   (unsigned long long)s->code_counts[c]);
		}
	}
	return rc;
}

static int render_histogram(nl_buf *out, const series *s)
{
	int rc = 0;
	uint64_t cumulative = 0;
	for (size_t b = 0; rc == 0 && b <= NBUCKETS; b++) {
		char le[32];
		if (b < NBUCKETS) {
			cumulative += s->counts[b];
			snprintf(le, sizeof(le), "%g", buckets[b]);
		} else {
			cumulative = s->total;
			snprintf(le, sizeof(le), "+Inf");
		}
		rc = nl_buf_adds(out, "apiserver_request_duration_seconds_bucket");
		if (rc == 0)
			rc = add_labels(out, &s->key, NULL, le);
		if (rc == 0)
			rc = nl_buf_printf(out, " %llu\n", (unsigned long long)cumulative);
	}
	if (rc == 0)
		rc = nl_buf_adds(out, "apiserver_request_duration_seconds_sum");
	if (rc == 0)
		rc = add_labels(out, &s->key, NULL, NULL);
	if (rc == 0)
		rc = nl_buf_printf(out, " %.9g\napiserver_request_duration_seconds_count", s->sum);
	if (rc == 0)
		rc = add_labels(out, &s->key, NULL, NULL);
	if (rc == 0)
		rc = nl_buf_printf(out, " %llu\n", (unsigned long long)s->total);
	return rc;
}

static int render_durations(nl_buf *out, const mock_metrics *m)
{
	int rc = nl_buf_adds(out, "# HELP apiserver_request_duration_seconds [STABLE] Response "
	                          "latency distribution in seconds for each verb, dry run value, "
	                          "group, version, resource, subresource, scope and component.\n"
	                          "# TYPE apiserver_request_duration_seconds histogram\n");
	for (size_t i = 0; rc == 0 && i < m->n; i++)
		rc = render_histogram(out, &m->series[i]);
	return rc;
}

/* The resource label of upstream's storage and cacher metrics:
 * GroupResource.String(), "configmaps" or "leases.coordination.k8s.io". */
static int add_group_resource(nl_buf *out, const mock_resource *r)
{
	return nl_buf_printf(out, "%s%s%s", r->plural, r->group[0] ? "." : "", r->group);
}

/* The cacher's counter of watchers it closed for not keeping up (a
 * counter vector: only resources that had one appear), and the mock's own
 * watch memory, which upstream has no metric for. */
static int render_watch_memory(nl_buf *out, const mock_watch_stats *w)
{
	int rc = 0, any = 0;
	for (int k = 0; k < MOCK_KIND_COUNT; k++)
		any |= w->terminated[k] > 0;
	if (any)
		rc = nl_buf_adds(out,
		                 "# HELP apiserver_terminated_watchers_total [ALPHA] Counter of "
		                 "watchers closed due to unresponsiveness broken by resource "
		                 "type.\n"
		                 "# TYPE apiserver_terminated_watchers_total counter\n");
	for (int k = 0; rc == 0 && k < MOCK_KIND_COUNT; k++) {
		if (!w->terminated[k])
			continue;
		rc = nl_buf_adds(out, "apiserver_terminated_watchers_total{resource=\"");
		if (rc == 0)
			rc = add_group_resource(out, mock_resource_get((mock_kind)k));
		if (rc == 0)
			rc = nl_buf_printf(out, "\"} %llu\n", (unsigned long long)w->terminated[k]);
	}
	if (rc == 0)
		rc = nl_buf_printf(
		    out,
		    "# HELP nodelet_mockapi_watch_buffer_bytes Bytes of watch event lines held "
		    "for open watches, each line shared by its watchers counted once "
		    "(--watch-buffer-bytes bounds it).\n"
		    "# TYPE nodelet_mockapi_watch_buffer_bytes gauge\n"
		    "nodelet_mockapi_watch_buffer_bytes %zu\n"
		    "# HELP nodelet_mockapi_watch_buffer_refused_total Watches refused (429) or "
		    "ended because their lines would pass --watch-buffer-bytes.\n"
		    "# TYPE nodelet_mockapi_watch_buffer_refused_total counter\n"
		    "nodelet_mockapi_watch_buffer_refused_total %llu\n",
		    w->buffered, (unsigned long long)w->refused);
	return rc;
}

static const char *const scope_names[MOCK_WATCH_SCOPES] = {"cluster", "namespace", "resource"};

/* Open watches per resource and scope: every label set that ever had
 * one, as the gauge vector keeps a series once created. */
static int render_longrunning(nl_buf *out, const mock_watch_stats *w)
{
	int rc = nl_buf_adds(out, "# HELP apiserver_longrunning_requests [STABLE] Gauge of all "
	                          "active long-running apiserver requests broken out by verb, "
	                          "group, version, resource, scope and component. Not all "
	                          "requests are tracked this way.\n"
	                          "# TYPE apiserver_longrunning_requests gauge\n");
	for (int k = 0; rc == 0 && w && k < MOCK_KIND_COUNT; k++) {
		const mock_resource *r = mock_resource_get((mock_kind)k);
		for (int sc = 0; rc == 0 && sc < MOCK_WATCH_SCOPES; sc++) {
			if (!w->kinds[k].seen[sc])
				continue;
			series_key key;
			mock_metrics_labels l = {"WATCH",   r->group, r->version,
			                         r->plural, "",       scope_names[sc]};
			key = key_of(&l);
			rc = nl_buf_adds(out, "apiserver_longrunning_requests");
			if (rc == 0)
				rc = add_labels(out, &key, NULL, NULL);
			if (rc == 0)
				rc = nl_buf_printf(out, " %zu\n", w->kinds[k].open[sc]);
		}
	}
	return rc;
}

/* {group,kind,version} of one resource, sorted by name; le when given. */
static int add_gvk(nl_buf *out, const mock_resource *r, const char *le)
{
	return nl_buf_printf(out, "{group=\"%s\",kind=\"%s\"%s%s%s,version=\"%s\"}", r->group,
	                     r->kind, le ? ",le=\"" : "", le ? le : "", le ? "\"" : "", r->version);
}

static int render_size_histogram(nl_buf *out, const mock_resource *r,
                                 const mock_watch_kind_stats *k)
{
	int rc = 0;
	uint64_t cumulative = 0;
	for (int b = 0; rc == 0 && b < MOCK_WATCH_SIZE_BUCKETS; b++) {
		char le[32];
		cumulative += k->size_buckets[b];
		snprintf(le, sizeof(le), "%u", 1024u << b);
		rc = nl_buf_adds(out, "apiserver_watch_events_sizes_bucket");
		if (rc == 0)
			rc = add_gvk(out, r, le);
		if (rc == 0)
			rc = nl_buf_printf(out, " %llu\n", (unsigned long long)cumulative);
	}
	if (rc == 0)
		rc = nl_buf_adds(out, "apiserver_watch_events_sizes_bucket");
	if (rc == 0)
		rc = add_gvk(out, r, "+Inf");
	if (rc == 0)
		rc = nl_buf_printf(out, " %llu\napiserver_watch_events_sizes_sum",
		                   (unsigned long long)k->events);
	if (rc == 0)
		rc = add_gvk(out, r, NULL);
	if (rc == 0)
		rc = nl_buf_printf(out, " %.15g\napiserver_watch_events_sizes_count", k->size_sum);
	if (rc == 0)
		rc = add_gvk(out, r, NULL);
	if (rc == 0)
		rc = nl_buf_printf(out, " %llu\n", (unsigned long long)k->events);
	return rc;
}

/* apiserver_watch_events_sizes and _total per group, version and kind of
 * the resources that sent an event. */
static int render_watch_events(nl_buf *out, const mock_watch_stats *w)
{
	int rc = nl_buf_adds(out, "# HELP apiserver_watch_events_sizes [ALPHA] Watch event size "
	                          "distribution in bytes\n"
	                          "# TYPE apiserver_watch_events_sizes histogram\n");
	for (int k = 0; rc == 0 && k < MOCK_KIND_COUNT; k++)
		if (w->kinds[k].events)
			rc = render_size_histogram(out, mock_resource_get((mock_kind)k),
			                           &w->kinds[k]);
	if (rc == 0)
		rc =
		    nl_buf_adds(out, "# HELP apiserver_watch_events_total [ALPHA] Number of events "
		                     "sent in watch clients\n"
		                     "# TYPE apiserver_watch_events_total counter\n");
	for (int k = 0; rc == 0 && k < MOCK_KIND_COUNT; k++) {
		if (!w->kinds[k].events)
			continue;
		rc = nl_buf_adds(out, "apiserver_watch_events_total");
		if (rc == 0)
			rc = add_gvk(out, mock_resource_get((mock_kind)k), NULL);
		if (rc == 0)
			rc = nl_buf_printf(out, " %llu\n", (unsigned long long)w->kinds[k].events);
	}
	return rc;
}

/* The max-in-flight filter's gauge (absent without limits). */
static int render_inflight(nl_buf *out, const mock_metrics_inflight *f)
{
	if (!f)
		return 0;
	return nl_buf_printf(out,
	                     "# HELP apiserver_current_inflight_requests [STABLE] Maximal number "
	                     "of currently used inflight request limit of this apiserver per "
	                     "request kind in last second.\n"
	                     "# TYPE apiserver_current_inflight_requests gauge\n"
	                     "apiserver_current_inflight_requests{request_kind=\"mutating\"} %u\n"
	                     "apiserver_current_inflight_requests{request_kind=\"readOnly\"} %u\n",
	                     f->mutating, f->readonly);
}

static int render_gauges(nl_buf *out, const mock_watch_stats *w, mock_store *store)
{
	int rc = render_longrunning(out, w);
	if (rc != 0 || !store)
		return rc;
	rc = nl_buf_adds(out, "# HELP apiserver_storage_objects [STABLE] Number of stored "
	                      "objects at the time of last check split by kind. In case of a "
	                      "fetching error, the value will be -1.\n"
	                      "# TYPE apiserver_storage_objects gauge\n");
	for (int k = 0; rc == 0 && k < MOCK_KIND_COUNT; k++) {
		const mock_resource *r = mock_resource_get((mock_kind)k);
		rc = nl_buf_adds(out, "apiserver_storage_objects{resource=\"");
		if (rc == 0)
			rc = add_group_resource(out, r);
		if (rc == 0)
			rc = nl_buf_printf(out, "\"} %zu\n", mock_store_count(store, r));
	}
	return rc;
}

int mock_metrics_render(nl_buf *out, mock_metrics *m, const mock_watch_stats *watch,
                        mock_store *store, const mock_metrics_inflight *inflight)
{
	int rc = 0;
	if (m) {
		pthread_mutex_lock(&m->lock);
		rc = render_requests(out, m);
		if (rc == 0)
			rc = render_durations(out, m);
		if (rc == 0)
			rc = render_faults(out, m);
		pthread_mutex_unlock(&m->lock);
	}
	if (rc == 0)
		rc = render_inflight(out, inflight);
	if (rc == 0)
		rc = render_gauges(out, watch, store);
	if (rc == 0 && watch)
		rc = render_watch_events(out, watch);
	if (rc == 0 && watch)
		rc = render_watch_memory(out, watch);
	if (rc == 0)
		rc = nl_process_metrics_render_self(out);
	return rc;
}

int mock_metrics_handle(mock_metrics *m, mock_store *store, mock_watch_hub *watch,
                        const mock_metrics_inflight *inflight, const mock_request *req,
                        mock_response *resp)
{
	if (strcmp(req->path, "/metrics") != 0)
		return 0;
	if (strcmp(req->method, "GET") != 0 && strcmp(req->method, "HEAD") != 0) {
		mock_response_status(resp, nl_status_method_not_allowed());
		return 1;
	}
	nl_buf text;
	mock_watch_stats ws;
	if (watch)
		mock_watch_hub_stats(watch, &ws);
	nl_buf_init(&text, 0);
	if (mock_metrics_render(&text, m, watch ? &ws : NULL, store, inflight) != 0) {
		nl_buf_free(&text);
		mock_response_status(resp, nl_status_internal("cannot render the metrics"));
		return 1;
	}
	mock_response_json(resp, 200, text.data ? text.data : "", text.len);
	resp->content_type = "text/plain; version=0.0.4; charset=utf-8";
	resp->identity = 1;
	nl_buf_free(&text);
	return 1;
}
