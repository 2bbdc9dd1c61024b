/* soak_agent: the nodelet agent against the embedded nodelet-mockapi over a
 * long virtual period of random faults (docs/soak.md). Windows of faults
 * (500/503/429, latency, dropped connections, garbled answers, conflicts,
 * another writer, a deleted lease, watch cuts, server restarts) alternate
 * with healthy windows, in which the lease must never be stale for longer
 * than its duration. Throughout: the backoff cap holds, no busy loop, the
 * heap does not grow. Exit 0 when every property held. */
#include <nodelet/informer.h>
#include <nodelet/log.h>
#include <nodelet/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "soak_agent.h"

#define DEFAULT_SECONDS 3.0
/* Real seconds without virtual progress before the watchdog fails the run. */
#define WATCHDOG_SECONDS 120.0
#define DRAIN_EVERY_SEC 5

/* --- time ------------------------------------------------------------------------------------ */

static void run_ready(soak_agent *s)
{
	nl_loop *loop = nl_client_loop(nl_agent_client(nl_scn_agent_agent(s->agent)));
	/* No waiting: a watch stream is always in flight, and waiting for it
	 * at every timer would make virtual time crawl. */
	for (int i = 0; i < 1000 && nl_loop_step(loop, 0) > 0; i++)
		;
}

int soak_pass(soak_agent *s, int64_t usec)
{
	int64_t end = nl_clock_now(s->clock) + usec, due;
	for (;;) {
		run_ready(s);
		int64_t now = nl_clock_now(s->clock);
		if (now >= end)
			break;
		int64_t next = end;
		if (nl_clock_next_deadline(&due, s->clock) == 0 && due < end)
			next = due > now ? due : now;
		/* A fault window ends at its end, not at the next whole second:
		 * the agent's backoffs are timers, so the first one due past the
		 * end already meets a healthy server. */
		if (s->window_open && s->window_end > now && s->window_end < next)
			next = s->window_end;
		if (nl_clock_advance(s->clock, next - now) != 0)
			return NL_ERROR;
		soak_window_close_due(s);
	}
	soak_watchdog_kick();
	return 0;
}

/* --- setup ----------------------------------------------------------------------------------- */

/* The scenario runner's own wiring: a scenario document gives the server
 * settings and the agent (fixed host facts, jitter seeded). A small watch
 * cache fills up early, so the heap check compares full caches. */
static int make_scenario(soak_agent *s, nl_err *err)
{
	char doc[512];
	int n = snprintf(doc, sizeof(doc),
	                 "name: soak-agent\n"
	                 "seed: %llu\n"
	                 "server: {watchCacheSize: 64}\n"
	                 "agent: {nodeName: %s, leaseDurationSeconds: %ld, jitterSeed: %llu}\n"
	                 "steps: [start]\n",
	                 (unsigned long long)(s->args.seed % INT64_MAX), SOAK_NODE,
	                 s->lease_seconds, (unsigned long long)(s->args.seed % INT64_MAX) + 1);
	return nl_scn_parse(&s->sc, doc, (size_t)n, "soak-agent", NULL, err);
}

static int make_client(nl_client **out, soak_agent *s, const char *ua, nl_loop *loop, nl_err *err)
{
	nl_client_options co;
	nl_client_options_init(&co);
	co.user_agent = ua;
	co.clock = s->clock;
	co.loop = loop;
	if (!loop) {
		/* The checker must never wait or retry: it measures. */
		co.qps = -1;
		co.max_retries = -1;
	}
	return nl_client_new(out, nl_scn_target_rest_config(s->target), &co, err);
}

static void lease_added(json_object *obj, void *payload)
{
	soak_check_write_lag(payload, obj);
}

static void lease_updated(json_object *old_obj, json_object *new_obj, void *payload)
{
	(void)old_obj;
	soak_check_write_lag(payload, new_obj);
}

static int start_informer(soak_agent *s)
{
	nl_informer_options io = {0};
	io.handlers.on_add = lease_added;
	io.handlers.on_update = lease_updated;
	io.payload = s;
	io.path = "/apis/coordination.k8s.io/v1/namespaces/" SOAK_LEASE_NS "/leases";
	io.field_selector = "metadata.name=" SOAK_NODE;
	/* Real seconds (the server's watch deadlines are): the watch ends and
	 * is resumed now and then even without faults. */
	io.watch_timeout_seconds = 5;
	return nl_informer_start(&s->informer, s->observer, &io);
}

int soak_observer_restart(soak_agent *s)
{
	nl_informer_stop(s->informer);
	s->informer = NULL;
	return start_informer(s);
}

static int start_observer(soak_agent *s, nl_err *err)
{
	nl_loop *loop = nl_client_loop(nl_agent_client(nl_scn_agent_agent(s->agent)));
	int rc = make_client(&s->observer, s, SOAK_OBSERVER_UA, loop, err);
	if (rc != 0)
		return rc;
	if ((rc = start_informer(s)) != 0)
		return nl_err_set(err, rc, "cannot start the observer's informer");
	return 0;
}

/* Inside the client's blocking waits (Retry-After, a connection reset's
 * retry: they block this thread; the controllers' backoffs are timers, see
 * soak_pass): the window ends at the first wait that passes its end,
 * before the next request. */
static void on_sleep(int64_t now, void *payload)
{
	(void)now;
	soak_window_close_due(payload);
}

static int setup(soak_agent *s)
{
	nl_err err = {0};
	nl_scn_target_options to = {.kind = NL_TARGET_EMBEDDED, .verbosity = s->args.verbosity};
	nl_scn_agent_options ao = {0};
	int rc;
	if ((rc = make_scenario(s, &err)) != 0 ||
	    (rc = nl_clock_new_fake(&s->clock, s->sc->start_usec)) != 0 ||
	    (rc = nl_scn_target_start(&s->target, &to, s->sc, s->clock, &err)) != 0)
		goto fail;
	ao.sc = s->sc;
	ao.spec = &s->sc->agents[0];
	ao.cfg = nl_scn_target_rest_config(s->target);
	ao.clock = s->clock;
	if ((rc = nl_scn_agent_new(&s->agent, &ao, &err)) != 0 ||
	    (rc = make_client(&s->checker, s, SOAK_CHECKER_UA, NULL, &err)) != 0 ||
	    (rc = start_observer(s, &err)) != 0)
		goto fail;
	if ((rc = nl_scn_agent_start(s->agent)) != 0) {
		nl_err_set(&err, rc, "the agent does not start");
		goto fail;
	}
	s->t0 = s->recovered_at = nl_clock_now(s->clock);
	nl_clock_fake_on_sleep(s->clock, on_sleep, s);
	return soak_pass(s, 0);
fail:
	fprintf(stderr, "%s: setup failed: %s\n", s->args.program,
	        err.msg[0] ? err.msg : nl_strerror(rc));
	return rc;
}

static void teardown(soak_agent *s)
{
	nl_informer_stop(s->informer);
	nl_client_free(s->observer);
	nl_client_free(s->checker);
	nl_scn_agent_free(s->agent);
	nl_scn_target_free(s->target);
	nl_clock_free(s->clock);
	nl_scn_free(s->sc);
}

/* --- windows --------------------------------------------------------------------------------- */

static void fault_window(soak_agent *s)
{
	soak_window w;
	char desc[256], why[256];
	soak_window_plan(&w, s, s->windows);
	soak_window_describe(desc, sizeof(desc), &w);
	soak_watchdog_where("window %u (%s), seed %llu", s->windows, desc,
	                    (unsigned long long)s->args.seed);
	NL_LOG_V(1, "Soak window", NL_KV_UINT("window", s->windows), NL_KV_STR("faults", desc));
	if (soak_window_inject(s, &w) != 0)
		return;
	int64_t start = nl_clock_now(s->clock);
	soak_window_open(s, start + w.usec);
	for (int64_t step = 0; !soak_window_close_due(s); step++) {
		soak_window_act(s, &w, nl_clock_now(s->clock) - start);
		soak_pass(s, NL_USEC_PER_SEC);
		if (step % DRAIN_EVERY_SEC == 0)
			soak_drain_journal(s);
	}
	soak_drain_journal(s);
	soak_window_recovered(s);
	soak_check_rates(s, nl_clock_now(s->clock) - start);
	if (!soak_node_ready(s, why, sizeof(why)))
		s->node_unknown++;
}

/* Health: sample the lease every virtual second, then check that the
 * Node is Ready again and the observer caught up. */
static void healthy_window(soak_agent *s, int64_t usec, int last)
{
	char why[256];
	soak_watchdog_where("the healthy window after window %u, seed %llu", s->windows,
	                    (unsigned long long)s->args.seed);
	s->healthy = 1;
	int caught_up = 0;
	for (int64_t at = 0; at < usec; at += NL_USEC_PER_SEC) {
		soak_pass(s, NL_USEC_PER_SEC);
		soak_check_staleness(s);
		if (!caught_up && (caught_up = soak_observer_current(s))) {
			int64_t took = nl_clock_now(s->clock) - soak_recovered_at(s);
			if (took > s->max_watch_catchup)
				s->max_watch_catchup = took;
		}
		if ((at / NL_USEC_PER_SEC) % DRAIN_EVERY_SEC == 0)
			soak_drain_journal(s);
	}
	soak_drain_journal(s);
	s->healthy = 0;
	soak_check_rates(s, usec);
	soak_check_sleeps(s);
	if (!soak_node_ready(s, why, sizeof(why)))
		soak_fail("window %u: %llds after the faults ended the Node is not ready: %s",
		          s->windows, (long long)(usec / NL_USEC_PER_SEC), why);
	soak_check_observer(s);
	soak_check_heap(s, last);
}

static int64_t healthy_usec(soak_agent *s)
{
	nl_rand r;
	nl_rand_seed(&r, soak_window_seed(s, s->windows, 1));
	/* Longer than a lease duration plus the node lifecycle controller's
	 * 5 s period, so both the lease and the Node must have recovered. */
	return soak_rand_range(&r, s->lease_seconds + 15, 3 * s->lease_seconds) * NL_USEC_PER_SEC;
}

/* --windows N runs exactly N fault windows (to repeat a run); otherwise
 * windows start until the budget is spent, at least one (valgrind). */
static int budget_left(soak_agent *s)
{
	if (s->max_windows)
		return s->windows < (unsigned)s->max_windows;
	return s->windows == 0 || soak_real_now() - s->real_start < s->args.seconds;
}

/* --- the summary ----------------------------------------------------------------------------- */

static void summary(soak_agent *s)
{
	char v[NL_DURATION_BUFSZ], st[NL_DURATION_BUFSZ], sl[NL_DURATION_BUFSZ],
	    wc[NL_DURATION_BUFSZ], wl[NL_DURATION_BUFSZ], h0[32], h1[32];
	double real = soak_real_now() - s->real_start;
	int64_t virt = nl_clock_now(s->clock) - s->t0;
	nl_duration_format(v, virt);
	nl_duration_format(st, s->max_stale);
	nl_duration_format(sl, s->max_sleep);
	nl_duration_format(wc, s->max_watch_catchup);
	printf("%s: %s (seed %llu, %u fault windows, lease duration %lds)\n", s->args.program,
	       soak_failures() ? "FAILED" : "passed", (unsigned long long)s->args.seed, s->windows,
	       s->lease_seconds);
	printf("  time:           %s virtual in %.1f s real (%.0fx)\n", v, real,
	       real > 0 ? (double)virt / 1e6 / real : 0.0);
	printf("  injected:      ");
	for (unsigned k = 0; k < SOAK_NKINDS; k++)
		printf(" %s %lu%s", soak_kind_name((soak_kind)k), s->injected[k],
		       k + 1 < SOAK_NKINDS ? "," : "\n");
	printf("  renewals:       %lu ok, %lu failed writes of the lease\n", s->renewals,
	       s->renewal_failures);
	printf("  staleness:      max %s after recovery (limit %lds)\n", st, s->lease_seconds);
	printf("  backoff:        longest wait %s of %zu (cap 7s)\n", sl, s->sleeps);
	nl_duration_format(wl, s->max_write_lag);
	printf("  write lag:      a lease version written at most %s after its renewTime (limit "
	       "min(10s, duration), twice that for a creation)\n",
	       wl);
	printf("  requests:       agent %lu, max %u per virtual second, max %.2f/s over a window; "
	       "observer %lu, max %u per virtual second\n",
	       s->rate[0].requests, s->rate[0].max_per_sec, s->rate[0].max_window_rate,
	       s->rate[1].requests, s->rate[1].max_per_sec);
	printf("  node:           not Ready after %u of %u fault windows, Ready again after each\n",
	       s->node_unknown, s->windows);
	printf("  watch:          the observer's informer held the server's lease %s after a "
	       "recovery at the latest\n",
	       wc);
	if (s->heap_start) {
		soak_format_bytes(h0, sizeof(h0), s->heap_start);
		soak_format_bytes(h1, sizeof(h1), s->heap_end);
		printf("  heap:           %s after window %u, %s at the end\n", h0, s->heap_window,
		       h1);
	} else {
		printf("  heap:           not measured (%s)\n",
		       soak_heap_bytes() ? "run too short" : "allocator gives no figures");
	}
	printf("  reproduce:      %s --seed %llu --windows %u --lease-duration %ld\n",
	       s->args.program, (unsigned long long)s->args.seed, s->windows, s->lease_seconds);
}

int main(int argc, char **argv)
{
	soak_agent s;
	memset(&s, 0, sizeof(s));
	s.lease_seconds = 40;
	soak_int_opt extra[] = {
	    {"windows", &s.max_windows, 0, 1000000,
	     "run exactly N fault windows, whatever the budget (0 = budget)"},
	    {"lease-duration", &s.lease_seconds, 10, 3600, "the agent's leaseDurationSeconds"},
	};
	int rc = soak_parse_args(&s.args, argc, argv, DEFAULT_SECONDS, extra, 2,
	                         "The nodelet agent against nodelet-mockapi through random fault "
	                         "windows on virtual time.");
	if (rc != 0)
		return rc == 1 ? 0 : 2;
	nl_log_set_verbosity(s.args.verbosity < 0 ? 0 : s.args.verbosity);
	if (s.args.verbosity < 0 && (s.devnull = fopen("/dev/null", "w")))
		nl_log_set_output(s.devnull);
	printf("%s: seed %llu, budget %.0f s\n", s.args.program, (unsigned long long)s.args.seed,
	       s.args.seconds);
	fflush(stdout);
	s.real_start = soak_real_now();
	if (soak_watchdog_start(WATCHDOG_SECONDS) != 0 || setup(&s) != 0) {
		soak_watchdog_stop();
		teardown(&s);
		return 1;
	}
	healthy_window(&s, healthy_usec(&s), 0);
	while (budget_left(&s)) {
		s.windows++;
		fault_window(&s);
		healthy_window(&s, healthy_usec(&s), !budget_left(&s));
	}
	soak_watchdog_stop();
	summary(&s);
	teardown(&s);
	nl_log_set_output(NULL);
	if (s.devnull)
		fclose(s.devnull);
	return soak_failures() ? 1 : 0;
}
