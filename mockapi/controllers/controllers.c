/* The controller manager (controllers.h): which controllers run, and the
 * thread or the embedder's tick that runs them on the server's clock. */
#include "controllers.h"

#include <nodelet/time.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"

struct mock_controllers {
	mock_store *store;
	const mock_options *opts;
	unsigned enabled;
	mock_node_lifecycle *nodes;
	mock_gc *gc;
	mock_namespace_controller *namespaces;
	pthread_mutex_t lock; /* one tick at a time */
	int64_t last_monitor; /* server clock of the last node pass; 0 = never */
	uint64_t gc_rv;       /* store resourceVersion after the last collection */
	int gc_ran;
	int64_t gc_mono; /* monotonic usec of the last collection */
	int kicked;      /* a delete happened: collect on the next tick */
	mock_csr_hooks csr;
	uint64_t csr_rv; /* store resourceVersion after the last CSR pass */
	int csr_ran;
	/* the background thread */
	pthread_mutex_t wait_lock;
	pthread_cond_t wake;
	int quit;
	int started;
	pthread_t thread;
};

static const struct {
	const char *name, *alias;
	unsigned bit;
} known[] = {
    {"nodelifecycle", "node-lifecycle-controller", MOCK_CONTROLLER_NODE_LIFECYCLE},
    {"garbagecollector", "garbage-collector-controller", MOCK_CONTROLLER_GARBAGE_COLLECTOR},
    {"namespace", "namespace-controller", MOCK_CONTROLLER_NAMESPACE},
    {"tainteviction", "taint-eviction-controller", MOCK_CONTROLLER_TAINT_EVICTION},
    {"podtermination", "pod-termination-controller", MOCK_CONTROLLER_POD_TERMINATION},
    {"csrapproving", "certificatesigningrequest-approving-controller",
     MOCK_CONTROLLER_CSR_APPROVING},
    {"csrsigning", "certificatesigningrequest-signing-controller", MOCK_CONTROLLER_CSR_SIGNING},
};

static unsigned bit_of(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if ((strlen(known[i].name) == len && strncmp(known[i].name, name, len) == 0) ||
		    (strlen(known[i].alias) == len && strncmp(known[i].alias, name, len) == 0))
			return known[i].bit;
	return 0;
}

int mock_controllers_parse(unsigned *out, const char *spec, nl_err *err)
{
	unsigned on = 0, off = 0;
	int star = 0;
	if (!spec || !*spec)
		spec = "*";
	for (const char *p = spec; *p;) {
		size_t len = strcspn(p, ",");
		int neg = len > 0 && p[0] == '-';
		const char *name = p + neg;
		size_t nlen = len - (size_t)neg;
		if (nlen == 1 && name[0] == '*' && !neg) {
			star = 1;
		} else {
			unsigned bit = bit_of(name, nlen);
			if (!bit)
				return nl_err_set(
				    err, NL_EINVAL,
				    "--controllers: \"%.*s\" is not in the list of known "
				    "controllers (nodelifecycle, garbagecollector, namespace, "
				    "tainteviction, podtermination, csrapproving, csrsigning)",
				    (int)nlen, name);
			*(neg ? &off : &on) |= bit;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	*out = ((star ? MOCK_CONTROLLERS_ALL : 0) | on) & ~off;
	return 0;
}

/* ------------------------------------------------------------------------
 * Running them */

/* The background thread collects garbage at most this often unless a
 * DELETE kicked it: a scan reads every object, and lease renewals change
 * the store all the time. */
#define GC_MIN_INTERVAL_USEC 1000000

static int64_t server_now(const mock_controllers *c)
{
	return c->opts->clock ? c->opts->clock(c->opts->clock_payload) : nl_time_now();
}

static int64_t mono_usec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int take_kick(mock_controllers *c)
{
	pthread_mutex_lock(&c->wait_lock);
	int k = c->kicked;
	c->kicked = 0;
	pthread_mutex_unlock(&c->wait_lock);
	return k;
}

void mock_controllers_kick(mock_controllers *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->wait_lock);
	c->kicked = 1;
	pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->wait_lock);
}

int mock_controllers_new(mock_controllers **out, mock_store *s, const mock_options *o, nl_err *err)
{
	unsigned enabled = 0;
	int rc = mock_controllers_parse(&enabled, o->controllers, err);
	if (rc != 0)
		return rc;
	mock_controllers *c = calloc(1, sizeof(*c));
	if (!c)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	c->store = s;
	c->opts = o;
	c->enabled = enabled;
	if (mock_node_lifecycle_new(&c->nodes, s, o->node_monitor_grace_usec,
	                            o->node_startup_grace_usec) != 0 ||
	    mock_gc_new(&c->gc, s) != 0 ||
	    mock_namespace_controller_new(
	        &c->namespaces, s, o->clock ? o->clock(o->clock_payload) : nl_time_now()) != 0) {
		mock_node_lifecycle_free(c->nodes);
		mock_gc_free(c->gc);
		free(c);
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	}
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->wait_lock, NULL);
	pthread_cond_init(&c->wake, NULL);
	*out = c;
	return 0;
}

int mock_controllers_enabled(const mock_controllers *c, unsigned which)
{
	return c && (c->enabled & which) == which;
}

/* throttle: the background thread's pace for garbage collection. */
static int tick(mock_controllers *c, int throttle)
{
	int work = 0;
	int kicked = take_kick(c);
	pthread_mutex_lock(&c->lock);
	int64_t now = server_now(c);
	if ((c->enabled & MOCK_CONTROLLER_NODE_LIFECYCLE) &&
	    (!c->last_monitor || now - c->last_monitor >= c->opts->node_monitor_period_usec)) {
		c->last_monitor = now;
		int n = mock_node_lifecycle_run(c->nodes, now);
		work += n > 0 ? n : 0;
	}
	if (c->enabled & MOCK_CONTROLLER_TAINT_EVICTION) {
		int n = mock_taint_eviction_run(c->store, now);
		work += n > 0 ? n : 0;
	}
	if (c->enabled & MOCK_CONTROLLER_POD_TERMINATION) {
		int n = mock_pod_termination_run(c->store, now);
		work += n > 0 ? n : 0;
	}
	/* Before the collector, which then sees the namespace's deletes. */
	if (c->enabled & MOCK_CONTROLLER_NAMESPACE) {
		int n = mock_namespace_controller_run(c->namespaces, now);
		work += n > 0 ? n : 0;
	}
	uint64_t rv = mock_store_rv(c->store);
	int64_t mono = mono_usec();
	if ((c->enabled & MOCK_CONTROLLER_GARBAGE_COLLECTOR) && (!c->gc_ran || rv != c->gc_rv) &&
	    (!throttle || kicked || mono - c->gc_mono >= GC_MIN_INTERVAL_USEC)) {
		int n = mock_gc_run(c->gc);
		work += n > 0 ? n : 0;
		c->gc_ran = 1;
		c->gc_rv = mock_store_rv(c->store);
		c->gc_mono = mono;
	}
	unsigned csr = c->enabled & (MOCK_CONTROLLER_CSR_APPROVING | MOCK_CONTROLLER_CSR_SIGNING);
	/* a pass only when something changed: a write of its own changes the
	 * store, so an approval is signed on the next pass */
	if (csr && c->csr.allows && (!c->csr_ran || mock_store_rv(c->store) != c->csr_rv)) {
		c->csr_rv = mock_store_rv(c->store);
		c->csr_ran = 1;
		int n = mock_csr_controllers_run(c->store, &c->csr, csr, now,
		                                 c->opts->cluster_signing_duration_usec);
		work += n > 0 ? n : 0;
	}
	pthread_mutex_unlock(&c->lock);
	return work;
}

void mock_controllers_set_csr_hooks(mock_controllers *c, const mock_csr_hooks *h)
{
	pthread_mutex_lock(&c->lock);
	c->csr = *h;
	c->csr_ran = 0;
	pthread_mutex_unlock(&c->lock);
}

int mock_controllers_tick(mock_controllers *c)
{
	return tick(c, 0);
}

void mock_controllers_reset(mock_controllers *c)
{
	pthread_mutex_lock(&c->lock);
	mock_node_lifecycle_reset(c->nodes);
	mock_gc_reset(c->gc);
	mock_namespace_controller_reset(c->namespaces);
	c->last_monitor = 0;
	c->gc_ran = 0;
	c->csr_ran = 0;
	pthread_mutex_unlock(&c->lock);
}

static void *controller_thread(void *arg)
{
	mock_controllers *c = arg;
	unsigned ms = c->opts->controller_tick_ms;
	pthread_mutex_lock(&c->wait_lock);
	while (!c->quit) {
		pthread_mutex_unlock(&c->wait_lock);
		tick(c, 1);
		pthread_mutex_lock(&c->wait_lock);
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += ms / 1000;
		until.tv_nsec += (long)(ms % 1000) * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		if (!c->quit && !c->kicked)
			pthread_cond_timedwait(&c->wake, &c->wait_lock, &until);
	}
	pthread_mutex_unlock(&c->wait_lock);
	return NULL;
}

int mock_controllers_start(mock_controllers *c, nl_err *err)
{
	if (c->started || c->opts->controller_tick_ms == 0 || c->enabled == 0)
		return 0;
	c->quit = 0;
	if (pthread_create(&c->thread, NULL, controller_thread, c) != 0)
		return nl_err_set(err, NL_ERROR, "cannot start the controller thread");
	c->started = 1;
	MOCK_LOG_V(1, "Starting controllers",
	           NL_KV_BOOL("nodelifecycle", c->enabled & MOCK_CONTROLLER_NODE_LIFECYCLE),
	           NL_KV_BOOL("garbagecollector", c->enabled & MOCK_CONTROLLER_GARBAGE_COLLECTOR),
	           NL_KV_BOOL("namespace", c->enabled & MOCK_CONTROLLER_NAMESPACE),
	           NL_KV_BOOL("tainteviction", c->enabled & MOCK_CONTROLLER_TAINT_EVICTION),
	           NL_KV_BOOL("podtermination", c->enabled & MOCK_CONTROLLER_POD_TERMINATION),
	           NL_KV_BOOL("csrapproving", c->enabled & MOCK_CONTROLLER_CSR_APPROVING),
	           NL_KV_BOOL("csrsigning", c->enabled & MOCK_CONTROLLER_CSR_SIGNING),
	           NL_KV_UINT("tickMilliseconds", c->opts->controller_tick_ms));
	return 0;
}

void mock_controllers_stop(mock_controllers *c)
{
	if (!c || !c->started)
		return;
	pthread_mutex_lock(&c->wait_lock);
	c->quit = 1;
	pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->wait_lock);
	pthread_join(c->thread, NULL);
	c->started = 0;
}

void mock_controllers_free(mock_controllers *c)
{
	if (!c)
		return;
	mock_controllers_stop(c);
	mock_node_lifecycle_free(c->nodes);
	mock_gc_free(c->gc);
	mock_namespace_controller_free(c->namespaces);
	pthread_mutex_destroy(&c->lock);
	pthread_mutex_destroy(&c->wait_lock);
	pthread_cond_destroy(&c->wake);
	free(c);
}
