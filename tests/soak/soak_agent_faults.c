/* The agent soak's fault windows (soak_agent.h): what a window injects,
 * drawn from the soak's seed, and the driver's own disturbances. */
#include <nodelet/lease.h>
#include <nodelet/meta.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "soak_agent.h"

static const char *const kind_names[SOAK_NKINDS] = {
    "500", "503",        "429",          "latency",       "drop",           "garbled",
    "409", "watch-cuts", "other-writer", "lease-deleted", "server-restart",
};

const char *soak_kind_name(soak_kind k)
{
	return k < SOAK_NKINDS ? kind_names[k] : "?";
}

/* Fault ids are "k<kind>-w<window>": the journal's fault field says which
 * kind fired. */
soak_kind soak_fault_kind(const char *id)
{
	unsigned k;
	if (!id || sscanf(id, "k%u-", &k) != 1 || k >= SOAK_NKINDS)
		return SOAK_NKINDS;
	return (soak_kind)k;
}

uint64_t soak_window_seed(const soak_agent *s, unsigned index, unsigned salt)
{
	nl_rand r;
	nl_rand_seed(&r, s->args.seed ^ ((uint64_t)index << 20) ^ ((uint64_t)salt << 52));
	return nl_rand_next(&r);
}

/* --- planning -------------------------------------------------------------------------------- */

void soak_window_plan(soak_window *w, soak_agent *s, unsigned index)
{
	static const char *const resources[] = {"leases", "nodes", NULL};
	static const double chances[] = {0.2, 0.5, 0.9, 1.0};
	memset(w, 0, sizeof(*w));
	w->index = index;
	/* Each window its own generator: the same seed gives the same windows
	 * even where the requests inside them differ between runs. */
	nl_rand_seed(&w->rng, soak_window_seed(s, index, 0));
	/* From a blip to several lease durations: long enough that the Node
	 * goes Unknown (the 50 s grace period) and the backoff reaches its cap. */
	w->usec = soak_rand_range(&w->rng, 2, 4 * s->lease_seconds) * NL_USEC_PER_SEC;
	int n = (int)soak_rand_range(&w->rng, 1, 3);
	for (int i = 0; i < n; i++)
		w->kinds |= 1u << soak_rand_range(&w->rng, 0, SOAK_NKINDS - 1);
	w->probability = chances[soak_rand_range(&w->rng, 0, 3)];
	w->resource = resources[soak_rand_range(&w->rng, 0, 2)];
	w->writer_chance = 0.05 + 0.5 * nl_rand_float(&w->rng);
	w->delete_at = soak_rand_range(&w->rng, 0, w->usec / NL_USEC_PER_SEC - 1) * NL_USEC_PER_SEC;
	w->restart_at =
	    soak_rand_range(&w->rng, 0, w->usec / NL_USEC_PER_SEC - 1) * NL_USEC_PER_SEC;
}

void soak_window_describe(char *out, size_t outlen, const soak_window *w)
{
	size_t n = 0;
	char d[NL_DURATION_BUFSZ];
	out[0] = 0;
	for (unsigned k = 0; k < SOAK_NKINDS && n < outlen; k++)
		if (w->kinds & (1u << k))
			n += (size_t)snprintf(out + n, outlen - n, "%s%s", n ? "+" : "",
			                      kind_names[k]);
	nl_duration_format(d, w->usec);
	if (n < outlen)
		snprintf(out + n, outlen - n, " on %s p=%.1f for %s",
		         w->resource ? w->resource : "every resource", w->probability, d);
}

/* --- nodelet-mockapi faults ------------------------------------------------------------------ */

/* The action of an HTTP fault kind, as the control API's JSON. */
static void action_json(char *out, size_t outlen, soak_kind k, nl_rand *r)
{
	switch (k) {
	case SOAK_K500:
		snprintf(out, outlen, "{\"status\":500}");
		break;
	case SOAK_K503:
		/* Sometimes with Retry-After: then the client retries by itself. */
		if (soak_rand_chance(r, 0.5))
			snprintf(out, outlen, "{\"status\":503}");
		else
			snprintf(out, outlen, "{\"status\":503,\"retryAfterSeconds\":%d}",
			         (int)soak_rand_range(r, 1, 3));
		break;
	case SOAK_K429:
		snprintf(out, outlen, "{\"status\":429,\"retryAfterSeconds\":%d}",
		         (int)soak_rand_range(r, 1, 3));
		break;
	case SOAK_KLATENCY:
		/* Real milliseconds: sockets live in real time. Virtual time
		 * stands still meanwhile, so this tests concurrency, not lapses. */
		snprintf(out, outlen, "{\"delayMs\":[1,%d]}", (int)soak_rand_range(r, 2, 30));
		break;
	case SOAK_KDROP:
		snprintf(out, outlen, "{\"drop\":true}");
		break;
	case SOAK_KGARBLED:
		if (soak_rand_chance(r, 0.5))
			snprintf(out, outlen, "{\"truncate\":%d}", (int)soak_rand_range(r, 0, 80));
		else
			snprintf(out, outlen, "{\"malformed\":true}");
		break;
	default: /* SOAK_K409 */
		snprintf(out, outlen, "{\"status\":409}");
		break;
	}
}

static int add_fault(soak_agent *s, const char *json)
{
	nl_err err = {0};
	json_object *f = json_tokener_parse(json);
	int rc = f ? nl_scn_target_add_fault(s->target, f, &err) : NL_EPARSE;
	json_object_put(f);
	if (rc != 0)
		soak_fail("cannot add fault %s: %s", json, f ? err.msg : "not JSON");
	return rc;
}

static int add_http_fault(soak_agent *s, soak_window *w, soak_kind k)
{
	char action[128], match[160], json[512];
	action_json(action, sizeof(action), k, &w->rng);
	if (k == SOAK_K409)
		snprintf(match, sizeof(match),
		         "{\"verb\":\"update\",\"resource\":\"leases\",\"userAgent\":\"%s\"}",
		         SOAK_AGENT_UA);
	else if (w->resource)
		snprintf(match, sizeof(match), "{\"resource\":\"%s\",\"userAgent\":\"%s\"}",
		         w->resource, SOAK_AGENT_UA);
	else
		snprintf(match, sizeof(match), "{\"userAgent\":\"%s\"}", SOAK_AGENT_UA);
	snprintf(json, sizeof(json),
	         "{\"id\":\"k%u-w%u\",\"match\":%s,\"action\":%s,\"times\":0,"
	         "\"probability\":%.2f}",
	         (unsigned)k, w->index, match, action, w->probability);
	return add_fault(s, json);
}

/* The observer's list and watch: cut after a few events, expired (410,
 * the informer lists again), dropped, or refused. */
static int add_watch_faults(soak_agent *s, soak_window *w)
{
	static const char *const actions[] = {
	    "{\"watch\":{\"closeAfterEvents\":1}}",
	    "{\"watch\":{\"closeAfterEvents\":3}}",
	    "{\"watch\":{\"expire\":true}}",
	    "{\"drop\":true}",
	    "{\"status\":500}",
	};
	char json[512];
	const char *action = actions[soak_rand_range(&w->rng, 0, 4)];
	snprintf(json, sizeof(json),
	         "{\"id\":\"k%u-w%u-watch\",\"match\":{\"verb\":\"watch\",\"userAgent\":\"%s\"},"
	         "\"action\":%s,\"times\":0,\"probability\":%.2f}",
	         (unsigned)SOAK_KWATCH, w->index, SOAK_OBSERVER_UA, action, w->probability);
	if (add_fault(s, json) != 0)
		return NL_ERROR;
	if (!soak_rand_chance(&w->rng, 0.3))
		return 0;
	snprintf(json, sizeof(json),
	         "{\"id\":\"k%u-w%u-list\",\"match\":{\"verb\":\"list\",\"userAgent\":\"%s\"},"
	         "\"action\":{\"status\":503},\"times\":0,\"probability\":%.2f}",
	         (unsigned)SOAK_KWATCH, w->index, SOAK_OBSERVER_UA, w->probability);
	return add_fault(s, json);
}

int soak_window_inject(soak_agent *s, soak_window *w)
{
	for (unsigned k = 0; k <= SOAK_K409; k++)
		if ((w->kinds & (1u << k)) && add_http_fault(s, w, (soak_kind)k) != 0)
			return NL_ERROR;
	if ((w->kinds & (1u << SOAK_KWATCH)) && add_watch_faults(s, w) != 0)
		return NL_ERROR;
	return 0;
}

/* --- the driver's disturbances --------------------------------------------------------------- */

/* Another writer: an annotation on the Lease, through the checker, so the
 * agent's cached resourceVersion goes stale and its next UPDATE is 409. */
static void other_writer(soak_agent *s)
{
	json_object *lease = NULL, *updated = NULL;
	nl_result res = NL_RESULT_INIT;
	char n[32];
	if (nl_lease_get(&lease, s->checker, SOAK_LEASE_NS, SOAK_NODE, &res) != 0) {
		nl_result_clear(&res); /* deleted: nothing to conflict with */
		return;
	}
	json_object *meta = json_object_object_get(lease, "metadata"), *ann;
	if (!json_object_object_get_ex(meta, "annotations", &ann)) {
		ann = json_object_new_object();
		json_object_object_add(meta, "annotations", ann);
	}
	snprintf(n, sizeof(n), "%lu", s->injected[SOAK_KWRITER] + 1);
	json_object_object_add(ann, "soak.nodelet.io/other-writer", json_object_new_string(n));
	if (nl_lease_update(&updated, s->checker, lease, &res) == 0)
		s->injected[SOAK_KWRITER]++;
	else if (!nl_is_conflict(&res))
		soak_fail("window %u: the other writer's update failed: %s", s->windows,
		          res.message);
	json_object_put(updated);
	json_object_put(lease);
	nl_result_clear(&res);
}

static void delete_lease(soak_agent *s)
{
	nl_result res = NL_RESULT_INIT;
	int rc = nl_lease_delete(s->checker, SOAK_LEASE_NS, SOAK_NODE, NULL, &res);
	if (rc == 0)
		s->injected[SOAK_KDELETE]++;
	else if (rc != NL_ENOTFOUND)
		soak_fail("window %u: deleting the lease failed: %s", s->windows, res.message);
	nl_result_clear(&res);
}

void soak_window_act(soak_agent *s, soak_window *w, int64_t at)
{
	nl_err err = {0};
	if ((w->kinds & (1u << SOAK_KWATCH)) && !w->reconnected) {
		w->reconnected = 1;
		if (soak_observer_restart(s) != 0)
			soak_fail("window %u: the observer's informer does not start", s->windows);
	}
	if ((w->kinds & (1u << SOAK_KWRITER)) && soak_rand_chance(&w->rng, w->writer_chance))
		other_writer(s);
	if ((w->kinds & (1u << SOAK_KDELETE)) && !w->deleted && at >= w->delete_at) {
		w->deleted = 1;
		delete_lease(s);
	}
	if ((w->kinds & (1u << SOAK_KRESTART)) && !w->restarted && at >= w->restart_at) {
		w->restarted = 1;
		if (nl_scn_target_restart_server(s->target, &err) != 0)
			soak_fail("window %u: the server does not restart: %s", s->windows,
			          err.msg);
		else
			s->injected[SOAK_KRESTART]++;
	}
}

/* --- the end of a window ---------------------------------------------------------------- */

int soak_window_close_due(soak_agent *s)
{
	nl_err err = {0};
	if (s->window_open && nl_clock_now(s->clock) >= s->window_end) {
		if (nl_scn_target_clear_faults(s->target, NULL, &err) != 0)
			soak_fail("window %u: cannot clear the faults: %s", s->windows, err.msg);
		s->window_open = 0;
	}
	return !s->window_open;
}

void soak_window_open(soak_agent *s, int64_t end)
{
	s->window_end = end;
	s->window_open = 1;
}

void soak_window_recovered(soak_agent *s)
{
	s->recovered_at = s->last_fault > s->window_end ? s->last_fault : s->window_end;
}

int64_t soak_recovered_at(soak_agent *s)
{
	return s->recovered_at;
}
