/* The agent soak's properties (soak_agent.h): what the journal shows about
 * request rates, the lease's staleness after recovery, the backoff cap,
 * the Node's readiness, the observer's informer catching up, the heap. */
#include <nodelet/agent.h>
#include <nodelet/lease.h>
#include <nodelet/lease_controller.h>
#include <nodelet/meta.h>
#include <nodelet/node.h>
#include <nodelet/time.h>
#include <stdio.h>
#include <string.h>

#include "soak_agent.h"

/* --- the journal: rates, renewals, faults that fired ----------------------------------------- */

static void count_rate(soak_rate *r, int64_t sec)
{
	if (sec != r->bucket_sec) {
		r->bucket_sec = sec;
		r->bucket = 0;
	}
	r->requests++;
	r->window_requests++;
	if (++r->bucket > r->max_per_sec)
		r->max_per_sec = r->bucket;
}

static void stale_by(soak_agent *s, int64_t stale, const char *what)
{
	if (stale > s->max_stale)
		s->max_stale = stale;
	if (stale > (int64_t)s->lease_seconds * NL_USEC_PER_SEC) {
		char d[NL_DURATION_BUFSZ];
		nl_duration_format(d, stale);
		soak_fail(
		    "window %u: after recovery the lease was stale for %s (%s; duration %lds)",
		    s->windows, d, what, s->lease_seconds);
	}
}

/* A successful write of the lease at t: in a healthy window, the time since
 * the previous one (or since the recovery, when later) is how stale the
 * lease became just before it — exactly, where sampling would miss the
 * agent's backoff waits (they block the driver). */
static void renewed(soak_agent *s, int64_t t)
{
	if (s->healthy) {
		int64_t from = soak_recovered_at(s);
		if (s->last_renewal > from)
			from = s->last_renewal;
		stale_by(s, t - from, "between two renewals in the journal");
	}
	s->last_renewal = t;
}

static void account(soak_agent *s, json_object *e)
{
	const char *ua = nl_json_get_string(e, "userAgent");
	const char *verb = nl_json_get_string(e, "verb");
	const char *resource = nl_json_get_string(e, "resource");
	const char *when = nl_json_get_string(e, "time");
	int64_t t = 0;
	int agent = ua && strstr(ua, SOAK_AGENT_UA) != NULL;
	if (!agent && !(ua && strstr(ua, SOAK_OBSERVER_UA)))
		return; /* the checker's own reads and writes */
	nl_time_parse(&t, when ? when : "");
	count_rate(&s->rate[agent ? 0 : 1], t / NL_USEC_PER_SEC);

	soak_kind k = soak_fault_kind(nl_json_get_string(e, "fault"));
	if (k != SOAK_NKINDS)
		s->injected[k]++;
	if (k != SOAK_NKINDS && agent && t > s->last_fault)
		s->last_fault = t;
	if (!agent || !resource || strcmp(resource, "leases") != 0 || !verb ||
	    (strcmp(verb, "update") != 0 && strcmp(verb, "create") != 0))
		return;
	json_object *code = json_object_object_get(e, "code");
	int c = code ? json_object_get_int(code) : 0;
	if (c >= 200 && c < 300) {
		s->renewals++;
		renewed(s, t);
	} else {
		s->renewal_failures++;
	}
}

void soak_drain_journal(soak_agent *s)
{
	json_object *items = NULL;
	nl_err err = {0};
	if (nl_scn_target_journal(&items, s->target, &err) != 0) {
		soak_fail("cannot read the journal: %s", err.msg);
		return;
	}
	for (size_t i = 0; i < json_object_array_length(items); i++)
		account(s, json_object_array_get_idx(items, i));
	json_object_put(items);
	/* Forget what was read: the journal would otherwise grow to its
	 * 100000 entries, and the heap check would see that. */
	nl_response resp = {0};
	nl_result res = NL_RESULT_INIT;
	nl_request req = {0};
	req.method = "DELETE";
	req.path = "/mockapi/v1/requests";
	if (nl_client_do(&resp, s->checker, &req, &res) != 0)
		soak_fail("cannot clear the journal: %s", res.message);
	nl_response_clear(&resp);
	nl_result_clear(&res);
}

/* A fault window is over: its request rate must stay bounded (a client
 * retrying without waiting would send thousands per virtual second). */
void soak_check_rates(soak_agent *s, int64_t window_usec)
{
	static const char *const who[2] = {"agent", "observer"};
	static const unsigned max_per_sec[2] = {SOAK_AGENT_MAX_PER_SEC, SOAK_OBSERVER_MAX_PER_SEC};
	/* A shorter lease renews (and retries its rounds) more often. */
	double max_rate =
	    SOAK_MAX_WINDOW_RATE * (s->lease_seconds < 40 ? 40.0 / (double)s->lease_seconds : 1.0);
	for (int i = 0; i < 2; i++) {
		soak_rate *r = &s->rate[i];
		double rate = (double)r->window_requests * NL_USEC_PER_SEC / (double)window_usec;
		if (window_usec >= 30 * NL_USEC_PER_SEC && rate > r->max_window_rate)
			r->max_window_rate = rate;
		if (r->max_per_sec > max_per_sec[i])
			soak_fail("window %u: the %s sent %u requests in one virtual second (limit "
			          "%u): a busy loop",
			          s->windows, who[i], r->max_per_sec, max_per_sec[i]);
		if (window_usec >= 30 * NL_USEC_PER_SEC && rate > max_rate)
			soak_fail(
			    "window %u: the %s sent %.1f requests per virtual second over %llds "
			    "(limit %.0f)",
			    s->windows, who[i], rate, (long long)(window_usec / NL_USEC_PER_SEC),
			    max_rate);
		r->window_requests = 0;
	}
}

/* --- the lease ------------------------------------------------------------------------------- */

/* Once the server is healthy again the lease is never stale for longer
 * than its duration: counted from its renewTime, or from the recovery when
 * that is later (a lease that lapsed during the faults is not the agent's
 * fault until the server answers again). */
void soak_check_staleness(soak_agent *s)
{
	json_object *lease = NULL;
	nl_result res = NL_RESULT_INIT;
	int64_t now = nl_clock_now(s->clock), renew = 0, from = soak_recovered_at(s);
	int rc = nl_lease_get(&lease, s->checker, SOAK_LEASE_NS, SOAK_NODE, &res);
	if (rc != 0 && rc != NL_ENOTFOUND) {
		soak_fail("window %u: reading the lease failed: %s", s->windows, res.message);
		nl_result_clear(&res);
		return;
	}
	const char *rt = rc == 0 ? nl_json_get_string(lease, "spec.renewTime") : NULL;
	if (rt && nl_time_parse_micro(&renew, rt) == 0 && renew > from)
		from = renew;
	stale_by(s, now - from, rt ? "the server's renewTime" : "the lease is missing");
	if (lease)
		soak_check_write_lag(s, lease);
	json_object_put(lease);
	nl_result_clear(&res);
}

/* The agent's write of a lease version happened at its managedFields
 * time (the server's clock, whole seconds); its renewTime is when the agent
 * built the body. Each request of the heartbeat client ends, retries
 * included, within its timeout, min(10 s, duration) as kubelet's, and one
 * renewal is one request — a creation two, as upstream reads the Node for
 * its uid after setting renewTime. So the two times are never further
 * apart: a renewal accepted long after its renewTime looks expired to
 * everyone else although it just went through. */
void soak_check_write_lag(soak_agent *s, json_object *lease)
{
	json_object *mf = nl_json_get_path(lease, "metadata.managedFields");
	const char *rt = nl_json_get_string(lease, "spec.renewTime");
	int64_t renew, written, limit = (int64_t)s->lease_seconds * NL_USEC_PER_SEC;
	if (limit > NL_AGENT_HEARTBEAT_TIMEOUT_USEC)
		limit = NL_AGENT_HEARTBEAT_TIMEOUT_USEC;
	if (!rt || nl_time_parse_micro(&renew, rt) != 0)
		return;
	const char *ct = nl_json_get_string(lease, "metadata.creationTimestamp");
	int64_t created = 0;
	nl_time_parse(&created, ct ? ct : "");
	for (size_t i = 0; mf && i < json_object_array_length(mf); i++) {
		json_object *e = json_object_array_get_idx(mf, i);
		const char *manager = nl_json_get_string(e, "manager");
		const char *time = nl_json_get_string(e, "time");
		if (!manager || strcmp(manager, SOAK_AGENT_MANAGER) != 0 || !time ||
		    nl_time_parse(&written, time) != 0)
			continue;
		int64_t lag = written - renew;
		/* This version is the lease's creation (same second). */
		int64_t allowed = created >= written ? 2 * limit : limit;
		if (lag > s->max_write_lag)
			s->max_write_lag = lag;
		if (lag > allowed) {
			char d[NL_DURATION_BUFSZ];
			nl_duration_format(d, lag);
			soak_fail("window %u: the lease was written at %s with renewTime %s, %s "
			          "earlier (created %s): a heartbeat retried past its timeout",
			          s->windows, time, rt, d, ct ? ct : "?");
		}
	}
}

/* Every wait the agent and its client made on the clock: the lease
 * controller's backoff (200 ms doubling to 7 s), registration's (the
 * same), Retry-After (at most 3 s here) and connection-reset retries
 * (1 s). */
void soak_check_sleeps(soak_agent *s)
{
	size_t n = 0, total = 0;
	const int64_t *v = nl_clock_fake_sleeps(s->clock, &n, &total);
	for (size_t i = 0; i < n; i++) {
		if (v[i] > s->max_sleep)
			s->max_sleep = v[i];
		if (v[i] > NL_LEASE_MAX_BACKOFF_USEC) {
			char d[NL_DURATION_BUFSZ];
			nl_duration_format(d, v[i]);
			soak_fail("window %u: a wait of %s, over the 7s backoff cap", s->windows,
			          d);
		}
	}
	s->sleeps += total;
	nl_clock_fake_clear_sleeps(s->clock);
}

/* --- the Node -------------------------------------------------------------------------------- */

static json_object *ready_condition(json_object *node)
{
	json_object *conds = nl_json_get_path(node, "status.conditions");
	for (size_t i = 0; conds && i < json_object_array_length(conds); i++) {
		json_object *c = json_object_array_get_idx(conds, i);
		const char *type = nl_json_get_string(c, "type");
		if (type && strcmp(type, "Ready") == 0)
			return c;
	}
	return NULL;
}

static int has_taint(json_object *node, const char *key)
{
	json_object *taints = nl_json_get_path(node, "spec.taints");
	for (size_t i = 0; taints && i < json_object_array_length(taints); i++) {
		const char *k = nl_json_get_string(json_object_array_get_idx(taints, i), "key");
		if (k && strcmp(k, key) == 0)
			return 1;
	}
	return 0;
}

/* 1 when the Node is Ready and carries no unreachable/not-ready taint. */
int soak_node_ready(soak_agent *s, char *why, size_t whylen)
{
	json_object *node = NULL;
	nl_result res = NL_RESULT_INIT;
	int ok = 0;
	if (nl_node_get(&node, s->checker, SOAK_NODE, &res) != 0) {
		snprintf(why, whylen, "GET: %s", res.message);
	} else {
		const char *st = nl_json_get_string(ready_condition(node), "status");
		if (!st || strcmp(st, "True") != 0)
			snprintf(why, whylen, "Ready is %s", st ? st : "missing");
		else if (has_taint(node, "node.kubernetes.io/unreachable") ||
		         has_taint(node, "node.kubernetes.io/not-ready"))
			snprintf(why, whylen, "still tainted");
		else
			ok = 1;
	}
	json_object_put(node);
	nl_result_clear(&res);
	return ok;
}

/* --- the observer ---------------------------------------------------------------------------- */

static int lease_rv(char *out, size_t outlen, soak_agent *s)
{
	json_object *lease = NULL;
	nl_result res = NL_RESULT_INIT;
	int rc = nl_lease_get(&lease, s->checker, SOAK_LEASE_NS, SOAK_NODE, &res);
	if (rc == 0)
		snprintf(out, outlen, "%s", nl_meta_resource_version(lease));
	else
		out[0] = 0; /* missing: the informer must have it deleted too */
	json_object_put(lease);
	nl_result_clear(&res);
	return rc == 0 || rc == NL_ENOTFOUND ? 0 : rc;
}

static int observer_has(soak_agent *s, const char *rv)
{
	json_object *seen = nl_informer_get(s->informer, SOAK_LEASE_NS, SOAK_NODE);
	const char *have = seen ? nl_meta_resource_version(seen) : "";
	return strcmp(have ? have : "", rv) == 0;
}

/* 1 when the observer's informer holds the server's current Lease. */
int soak_observer_current(soak_agent *s)
{
	char rv[64];
	return lease_rv(rv, sizeof(rv), s) == 0 && observer_has(s, rv);
}

/* At the end of a healthy window the informer's copy of the Lease must have
 * caught up with the server's (it usually has within a second of the
 * recovery): letting the loop read what is in flight (real time, at most
 * 200 ms per try), then letting virtual time pass for its backoff. */
void soak_check_observer(soak_agent *s)
{
	nl_loop *loop = nl_client_loop(s->observer);
	char rv[64] = "";
	for (long sec = 0; sec <= 2 * s->lease_seconds; sec++) {
		if (lease_rv(rv, sizeof(rv), s) != 0)
			break;
		for (int i = 0; i < 20; i++) {
			if (observer_has(s, rv))
				return;
			nl_loop_step(loop, 10);
		}
		soak_pass(s, NL_USEC_PER_SEC);
	}
	json_object *seen = nl_informer_get(s->informer, SOAK_LEASE_NS, SOAK_NODE);
	soak_fail("window %u: the observer's informer has the lease at resourceVersion %s, the "
	          "server at %s, at the end of a healthy window",
	          s->windows, seen ? nl_meta_resource_version(seen) : "(none)", rv);
}

/* --- the heap -------------------------------------------------------------------------------- */

/* The same steady state (the end of a healthy window, everything caught
 * up) early and late: the heap must not grow beyond noise. The first
 * checkpoint waits until the caches that fill up on purpose (the watch
 * cache, connection pools) are full. */
void soak_check_heap(soak_agent *s, int last)
{
	size_t now = soak_heap_bytes();
	double elapsed = soak_real_now() - s->real_start;
	if (!s->heap_start && s->windows >= 3 && elapsed >= 0.25 * s->args.seconds) {
		s->heap_start = now;
		s->heap_window = s->windows;
	}
	s->heap_end = now;
	if (!last || !s->heap_start || s->heap_window == s->windows)
		return;
	size_t allowed = SOAK_HEAP_SLACK + s->heap_start / 10;
	if (now > s->heap_start + allowed) {
		char a[32], b[32];
		soak_format_bytes(a, sizeof(a), s->heap_start);
		soak_format_bytes(b, sizeof(b), now);
		soak_fail("the heap grew from %s (window %u) to %s (window %u)", a, s->heap_window,
		          b, s->windows);
	}
}
