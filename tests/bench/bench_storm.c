/* Benchmark 7 of issue 11, the conflict storm: WRITERS threads do
 * retry-on-conflict read-modify-write on one ConfigMap (GET, increment
 * data.counter, PUT with the resourceVersion read; on 409 read again) for
 * SECONDS. Prints successful writes/s, the conflict ratio (409s per PUT) and
 * whether the final counter equals the number of successful writes — a lost
 * update makes the run fail.
 *
 * bench_storm URL WRITERS SECONDS */
#include <curl/curl.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_common.h"

#define STORM_PATH "/api/v1/namespaces/default/configmaps/"

typedef struct {
	const char *url;
	char path[128];
	int64_t deadline;
	long writes, conflicts, failures;
	double *lat_ms; /* per successful write: first GET → 200 on PUT */
	size_t nlat, caplat;
} storm_writer;

static void record_latency(storm_writer *w, double ms)
{
	if (w->nlat == w->caplat) {
		size_t cap = w->caplat ? w->caplat * 2 : 4096;
		double *p = realloc(w->lat_ms, cap * sizeof(*p));
		if (!p)
			return;
		w->lat_ms = p;
		w->caplat = cap;
	}
	w->lat_ms[w->nlat++] = ms;
}

/* The object read with its counter incremented, serialized; NULL on a
 * malformed answer. */
static char *incremented(const char *body)
{
	json_object *o = json_tokener_parse(body), *data = NULL, *c = NULL;
	char *out = NULL;
	if (o && json_object_object_get_ex(o, "data", &data) &&
	    json_object_object_get_ex(data, "counter", &c)) {
		char v[32];
		snprintf(v, sizeof(v), "%lld", atoll(json_object_get_string(c)) + 1);
		json_object_object_add(data, "counter", json_object_new_string(v));
		out = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	}
	json_object_put(o);
	return out;
}

static void *writer_main(void *arg)
{
	storm_writer *w = arg;
	bench_http *h = bench_http_new(w->url);
	if (!h) {
		w->failures++;
		return NULL;
	}
	while (bench_now_ns() < w->deadline) {
		int64_t t0 = bench_now_ns();
		for (;;) { /* retry.RetryOnConflict, without backoff: a storm */
			bench_resp r;
			if (bench_http_do(&r, h, "GET", w->path, NULL, 0) != 0 || r.code != 200) {
				w->failures++;
				goto out;
			}
			char *body = incremented(r.body);
			if (!body) {
				w->failures++;
				goto out;
			}
			int rc = bench_http_do(&r, h, "PUT", w->path, body, strlen(body));
			free(body);
			if (rc == 0 && r.code == 200) {
				w->writes++;
				record_latency(w, (double)(bench_now_ns() - t0) / 1e6);
				break;
			}
			if (rc != 0 || r.code != 409) {
				w->failures++;
				goto out;
			}
			w->conflicts++;
		}
	}
out:
	bench_http_free(h);
	return NULL;
}

static long read_counter(bench_http *h, const char *path)
{
	bench_resp r;
	if (bench_http_do(&r, h, "GET", path, NULL, 0) != 0 || r.code != 200)
		return -1;
	json_object *o = json_tokener_parse(r.body), *data, *c;
	long v = -1;
	if (o && json_object_object_get_ex(o, "data", &data) &&
	    json_object_object_get_ex(data, "counter", &c))
		v = atol(json_object_get_string(c));
	json_object_put(o);
	return v;
}

int main(int argc, char **argv)
{
	if (argc != 4)
		bench_die("usage: bench_storm URL WRITERS SECONDS");
	int nw = atoi(argv[2]);
	double seconds = atof(argv[3]);
	if (nw < 1 || nw > 256 || seconds <= 0)
		bench_die("WRITERS must be 1..256 and SECONDS > 0");
	curl_global_init(CURL_GLOBAL_DEFAULT);

	char name[64], path[128], body[256];
	snprintf(name, sizeof(name), "storm-%ld", (long)getpid());
	snprintf(path, sizeof(path), STORM_PATH "%s", name);
	snprintf(body, sizeof(body),
	         "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\"},"
	         "\"data\":{\"counter\":\"0\"}}",
	         name);
	bench_http *h = bench_http_new(argv[1]);
	bench_resp r;
	if (!h ||
	    bench_http_do(&r, h, "POST", "/api/v1/namespaces/default/configmaps", body,
	                  strlen(body)) != 0 ||
	    r.code != 201)
		bench_die("cannot create the storm ConfigMap");

	storm_writer *ws = calloc((size_t)nw, sizeof(*ws));
	pthread_t *tids = calloc((size_t)nw, sizeof(*tids));
	if (!ws || !tids)
		bench_die("out of memory");
	int64_t t0 = bench_now_ns();
	for (int i = 0; i < nw; i++) {
		ws[i].url = argv[1];
		snprintf(ws[i].path, sizeof(ws[i].path), "%s", path);
		ws[i].deadline = t0 + (int64_t)(seconds * 1e9);
		if (pthread_create(&tids[i], NULL, writer_main, &ws[i]) != 0)
			bench_die("pthread_create failed");
	}
	long writes = 0, conflicts = 0, failures = 0;
	size_t nlat = 0;
	for (int i = 0; i < nw; i++) {
		pthread_join(tids[i], NULL);
		writes += ws[i].writes;
		conflicts += ws[i].conflicts;
		failures += ws[i].failures;
		nlat += ws[i].nlat;
	}
	double secs = (double)(bench_now_ns() - t0) / 1e9;
	double *lat = calloc(nlat ? nlat : 1, sizeof(*lat));
	size_t k = 0;
	for (int i = 0; i < nw && lat; i++) {
		memcpy(lat + k, ws[i].lat_ms, ws[i].nlat * sizeof(*lat));
		k += ws[i].nlat;
		free(ws[i].lat_ms);
	}
	long counter = read_counter(h, path);
	bench_http_do(&r, h, "DELETE", path, NULL, 0);
	printf("writers=%d seconds=%.2f writes=%ld writes_per_s=%.0f conflicts=%ld "
	       "conflict_ratio=%.3f p50_ms=%.2f p99_ms=%.2f counter=%ld lost_updates=%ld "
	       "failures=%ld\n",
	       nw, secs, writes, (double)writes / secs, conflicts,
	       writes + conflicts ? (double)conflicts / (double)(writes + conflicts) : 0,
	       lat ? bench_percentile(lat, k, 50) : 0, lat ? bench_percentile(lat, k, 99) : 0,
	       counter, writes - counter, failures);
	free(lat);
	free(ws);
	free(tids);
	bench_http_free(h);
	curl_global_cleanup();
	return failures || counter != writes ? 1 : 0;
}
