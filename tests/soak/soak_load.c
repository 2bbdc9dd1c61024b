/* soak_load: nodelet-mockapi in-process under concurrent mixed load for a
 * bounded time (docs/soak.md). Writers and watchers run on their own
 * threads and connections (soak_load_writer.c, soak_load_watcher.c); at
 * the end the store must equal the acknowledged writes, every watch must
 * have been released, and the server must still answer. Exit 0 when all
 * of that held and every answer was a valid HTTP response. */
#include <mockapi.h>
#include <nodelet/log.h>
#include <nodelet/meta.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "soak_load.h"

#define DEFAULT_SECONDS 3.0
/* Real time a released watch may take to leave the server. */
#define RELEASE_SECONDS 10.0

/* --- setup ----------------------------------------------------------------------------------- */

static int start_server(mock_server **out, const soak_args *a)
{
	mock_options o;
	nl_err err = {0};
	mock_server *s = NULL;
	mock_options_init(&o);
	o.port = 0;
	o.verbosity = a->verbosity < 0 ? 0 : a->verbosity;
	o.random_seed = a->seed % INT64_MAX;
	o.random_seed_set = 1;
	/* The journal is not under test here; 100000 entries of it would be. */
	o.journal_size = 0;
	/* Bookmarks every second, so streams carry them too. */
	o.watch_bookmark_interval = 1;
	if (mock_server_new(&s, &o, &err) != 0 || mock_server_start(s, &err) != 0) {
		fprintf(stderr, "%s: the server does not start: %s\n", a->program, err.msg);
		mock_server_free(s);
		return -1;
	}
	*out = s;
	return 0;
}

static int create_shared(soak_http *h)
{
	char why[1024];
	long code = soak_http_do(h, NULL, "POST", "/api/v1/namespaces/" SOAK_NS "/configmaps",
	                         "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
	                         "{\"name\":\"" SOAK_SHARED "\"},\"data\":{}}",
	                         NULL, why, sizeof(why));
	if (code == 201)
		return 0;
	soak_fail("creating the shared counter: %s", code < 0 ? why : "not 201");
	return -1;
}

/* Start every thread, wait for them all. When one cannot start, the
 * others are told to stop at once (the deadline) and still joined. */
static int run_threads(soak_load *L)
{
	unsigned nw = 0, nv = 0;
	int rc = 0;
	for (; nw < (unsigned)L->nwriters; nw++) {
		soak_writer *w = &L->writers[nw];
		w->L = L;
		w->id = nw;
		nl_rand_seed(&w->rng, L->args.seed * 1000 + nw);
		if (pthread_create(&w->thread, NULL, soak_writer_main, w) != 0) {
			rc = -1;
			break;
		}
	}
	for (; rc == 0 && nv < (unsigned)L->nwatchers; nv++) {
		soak_watcher *w = &L->watchers[nv];
		w->L = L;
		w->id = nv;
		nl_rand_seed(&w->rng, L->args.seed * 1000 + 500 + nv);
		if (pthread_create(&w->thread, NULL, soak_watcher_main, w) != 0) {
			rc = -1;
			break;
		}
	}
	if (rc != 0) {
		__atomic_store_n(&L->stop, 1, __ATOMIC_RELAXED);
		soak_fail("cannot start a thread");
	}
	for (unsigned i = 0; i < nw; i++)
		pthread_join(L->writers[i].thread, NULL);
	for (unsigned i = 0; i < nv; i++)
		pthread_join(L->watchers[i].thread, NULL);
	return rc;
}

/* --- the final state ------------------------------------------------------------------------- */

static void verify_counter(soak_load *L, soak_http *h)
{
	char why[1024], key[16];
	json_object *cm = NULL, *v;
	long code =
	    soak_http_do(h, &cm, "GET", "/api/v1/namespaces/" SOAK_NS "/configmaps/" SOAK_SHARED,
	                 NULL, NULL, why, sizeof(why));
	if (code != 200) {
		soak_fail("the shared counter cannot be read: %s", code < 0 ? why : "not 200");
		json_object_put(cm);
		return;
	}
	json_object *data = json_object_object_get(cm, "data");
	for (unsigned i = 0; i < (unsigned)L->nwriters; i++) {
		unsigned long have = 0, want = L->writers[i].increments;
		snprintf(key, sizeof(key), "w%u", i);
		if (json_object_object_get_ex(data, key, &v))
			have = strtoul(json_object_get_string(v), NULL, 10);
		if (have != want)
			soak_fail("the shared counter of writer %u is %lu; %lu increments were "
			          "acknowledged",
			          i, have, want);
		for (unsigned j = 0; j < (unsigned)L->nwatchers; j++)
			if (L->watchers[j].seen[i] > want)
				soak_fail(
				    "watcher %u saw writer %u's counter at %lu, above the %lu "
				    "acknowledged",
				    j, i, L->watchers[j].seen[i], want);
	}
	json_object_put(cm);
}

/* Every writer's objects exist exactly as acknowledged, and nothing else. */
static void verify_objects(soak_load *L, soak_http *h)
{
	char why[1024];
	json_object *l = NULL, *items;
	unsigned want = 0, seen = 0;
	long code = soak_http_do(
	    h, &l, "GET", "/api/v1/namespaces/" SOAK_NS "/configmaps?labelSelector=" SOAK_LABEL,
	    NULL, NULL, why, sizeof(why));
	if (code != 200 || !json_object_object_get_ex(l, "items", &items)) {
		soak_fail("the final list failed: %s", code < 0 ? why : "not 200");
		json_object_put(l);
		return;
	}
	for (size_t i = 0; i < json_object_array_length(items); i++) {
		json_object *item = json_object_array_get_idx(items, i);
		const char *name = nl_meta_name(item);
		unsigned w, k;
		if (!name || sscanf(name, "soak-w%u-%u", &w, &k) != 2 ||
		    w >= (unsigned)L->nwriters || k >= SOAK_OBJECTS ||
		    !L->writers[w].objects[k].exists) {
			soak_fail("the store holds %s, which no writer has",
			          name ? name : "(no name)");
			continue;
		}
		const soak_object *o = &L->writers[w].objects[k];
		const char *v = nl_json_get_string(item, "data.v"),
		           *p = nl_json_get_string(item, "data.p");
		if (!v || !p || strtoul(v, NULL, 10) != o->v || strtoul(p, NULL, 10) != o->p)
			soak_fail("%s holds v=%s p=%s; acknowledged v=%lu p=%lu", name, v ? v : "-",
			          p ? p : "-", o->v, o->p);
		seen++;
	}
	for (unsigned w = 0; w < (unsigned)L->nwriters; w++)
		for (unsigned k = 0; k < SOAK_OBJECTS; k++)
			want += (unsigned)L->writers[w].objects[k].exists;
	if (seen != want)
		soak_fail("the store holds %u of the writers' objects; %u were acknowledged", seen,
		          want);
	json_object_put(l);
}

/* Watches the clients went away from must leave the server, and it must
 * still answer. */
static void verify_server(mock_server *s, soak_http *h)
{
	char why[1024];
	double until = soak_real_now() + RELEASE_SECONDS;
	while (mock_server_watch_count(s) > 0 && soak_real_now() < until)
		usleep(20000);
	if (mock_server_watch_count(s) > 0)
		soak_fail("%zu watches still open %.0f s after their clients left",
		          mock_server_watch_count(s), RELEASE_SECONDS);
	long code = soak_http_do(h, NULL, "GET", "/version", NULL, NULL, why, sizeof(why));
	if (code != 200)
		soak_fail("the server no longer answers /version: %s", code < 0 ? why : "not 200");
}

/* --- the summary
 * ---------------------------------------------------------------------------------- */

static void summary(soak_load *L, double real, size_t heap0, size_t heap1)
{
	unsigned long ops[SOAK_NOPS] = {0}, requests = 0, conflicts = 0;
	soak_watcher t = {0};
	for (unsigned i = 0; i < (unsigned)L->nwriters; i++) {
		for (int k = 0; k < SOAK_NOPS; k++)
			ops[k] += L->writers[i].ops[k];
		requests += L->writers[i].requests;
		conflicts += L->writers[i].conflicts;
	}
	for (unsigned i = 0; i < (unsigned)L->nwatchers; i++) {
		const soak_watcher *w = &L->watchers[i];
		t.opened += w->opened, t.server_ended += w->server_ended;
		t.cancelled += w->cancelled, t.timed_out += w->timed_out;
		t.events += w->events, t.bookmarks += w->bookmarks, t.expired += w->expired;
		requests += w->requests;
	}
	printf("%s: %s (seed %llu, %ld writers, %ld watchers)\n", L->args.program,
	       soak_failures() ? "FAILED" : "passed", (unsigned long long)L->args.seed, L->nwriters,
	       L->nwatchers);
	printf(
	    "  time:        %.1f s real, %lu requests (%.0f/s), every one a valid HTTP answer%s\n",
	    real, requests, real > 0 ? (double)requests / real : 0.0,
	    soak_failures() ? " (not quite: see above)" : "");
	printf("  operations: ");
	for (int k = 0; k < SOAK_NOPS; k++)
		printf(" %s %lu%s", soak_op_name((soak_op)k), ops[k],
		       k + 1 < SOAK_NOPS ? "," : "\n");
	printf("  conflicts:   %lu 409s on the shared counter, each retried\n", conflicts);
	printf("  watches:     %lu opened: %lu ended by the server, %lu cancelled after events, "
	       "%lu cut by the client; %lu events, %lu bookmarks, %lu expired\n",
	       t.opened, t.server_ended, t.cancelled, t.timed_out, t.events, t.bookmarks,
	       t.expired);
	if (heap0) {
		char a[32], b[32];
		soak_format_bytes(a, sizeof(a), heap0);
		soak_format_bytes(b, sizeof(b), heap1);
		printf("  heap:        %s after setup, %s at the end\n", a, b);
	}
	printf("  reproduce:   %s --seed %llu --writers %ld --watchers %ld --seconds %g\n",
	       L->args.program, (unsigned long long)L->args.seed, L->nwriters, L->nwatchers,
	       L->args.seconds);
}

int main(int argc, char **argv)
{
	soak_load L = {0};
	mock_server *server = NULL;
	soak_http *h = NULL;
	size_t heap0;
	double t0, real;
	L.nwriters = 8;
	L.nwatchers = 4;
	soak_int_opt extra[] = {
	    {"writers", &L.nwriters, 1, SOAK_MAX_WRITERS, "writer threads"},
	    {"watchers", &L.nwatchers, 0, 64, "watcher threads"},
	};
	int rc = soak_parse_args(&L.args, argc, argv, DEFAULT_SECONDS, extra, 2,
	                         "nodelet-mockapi under concurrent writers and watchers.");
	if (rc != 0)
		return rc == 1 ? 0 : 2;
	nl_log_set_verbosity(L.args.verbosity < 0 ? 0 : L.args.verbosity);
	printf("%s: seed %llu, budget %.0f s\n", L.args.program, (unsigned long long)L.args.seed,
	       L.args.seconds);
	fflush(stdout);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	L.writers = calloc((size_t)L.nwriters, sizeof(*L.writers));
	L.watchers = calloc((size_t)L.nwatchers + 1, sizeof(*L.watchers));
	if (!L.writers || !L.watchers || start_server(&server, &L.args) != 0)
		goto done;
	L.base = mock_server_url(server);
	if (!(h = soak_http_new(L.base)) || create_shared(h) != 0)
		goto done;
	heap0 = soak_heap_bytes();
	t0 = soak_real_now();
	L.deadline = t0 + L.args.seconds;
	if (run_threads(&L) != 0)
		goto done;
	real = soak_real_now() - t0;
	verify_counter(&L, h);
	verify_objects(&L, h);
	verify_server(server, h);
	summary(&L, real, heap0, soak_heap_bytes());
done:
	soak_http_free(h);
	mock_server_free(server);
	free(L.writers);
	free(L.watchers);
	curl_global_cleanup();
	return soak_failures() || !L.base ? 1 : 0;
}
