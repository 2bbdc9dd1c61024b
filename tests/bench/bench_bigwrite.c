/* Benchmark 8 (issue 19): no single write stalls the server. The worst body
 * under the request size limit — a Node whose finalizers (a set),
 * ownerReferences (keyed by uid) and status.conditions (keyed by type) are
 * as long as fit in LIMIT bytes — is written back to back (POST, then PUTs
 * that change every ownerReference, so each update compares and records
 * managedFields for all items) while READERS threads GET another object,
 * one GET every 5 ms each on its own keep-alive connection, as client-go
 * and kubectl hold one. First the same GETs run
 * alone for SECONDS: the anchor. Prints both GET p99s, the writes done and
 * their latency.
 *
 * Run the mock without the garbage collector: the ownerReferences point at
 * nothing, and it would delete the Node between writes.
 *
 * bench_bigwrite URL READERS SECONDS [LIMIT] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"

#define NODE_PATH "/api/v1/nodes"
#define OTHER_PATH "/api/v1/namespaces/default/configmaps/bench-bigwrite-other"
#define READ_EVERY_NS 5000000LL

typedef struct {
	char *data;
	size_t len, cap;
} text;

/* realloc or die: a benchmark out of memory has failed. */
static void *grow(void *p, size_t n)
{
	void *q = realloc(p, n);
	if (!q)
		bench_die("out of memory");
	return q;
}

static void add(text *t, const char *s)
{
	size_t n = strlen(s);
	if (t->len + n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1 << 20;
		while (cap < t->len + n + 1)
			cap *= 2;
		t->data = grow(t->data, cap);
		t->cap = cap;
	}
	memcpy(t->data + t->len, s, n + 1);
	t->len += n;
}

/* The Node with n items in each list; tag goes into every ownerReference
 * name, so two tags differ in every item. */
static void node_body(text *t, size_t n, const char *tag)
{
	char item[512];
	t->len = 0;
	add(t, "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"bench-bigwrite\","
	       "\"finalizers\":[");
	for (size_t i = 0; i < n; i++) {
		snprintf(item, sizeof(item), "%s\"example.com/finalizer-%zu\"", i ? "," : "", i);
		add(t, item);
	}
	add(t, "],\"ownerReferences\":[");
	for (size_t i = 0; i < n; i++) {
		snprintf(
		    item, sizeof(item),
		    "%s{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"owner-%s-%zu\","
		    "\"uid\":\"00000000-0000-4000-8000-%012zu\"}",
		    i ? "," : "", tag, i, i);
		add(t, item);
	}
	add(t, "]},\"status\":{\"conditions\":[");
	for (size_t i = 0; i < n; i++) {
		snprintf(item, sizeof(item),
		         "%s{\"type\":\"Condition%zu\",\"status\":\"True\","
		         "\"lastHeartbeatTime\":\"2024-01-01T00:00:00Z\","
		         "\"lastTransitionTime\":\"2024-01-01T00:00:00Z\",\"reason\":\"Bench\","
		         "\"message\":\"m\"}",
		         i ? "," : "", i);
		add(t, item);
	}
	add(t, "]}}");
}

typedef struct {
	const char *url;
	volatile int *stop;
	double *lat;
	size_t n, cap;
	long failures;
} reader;

static void *reader_main(void *arg)
{
	reader *r = arg;
	int64_t next = bench_now_ns();
	/* Kept alive: libmicrohttpd keeps a connection on one worker, which
	 * may be the writer's; the write runs on a request worker
	 * (server/runner.c), so the reader must not wait for it. */
	bench_http *h = bench_http_new(r->url);
	if (!h)
		bench_die("cannot set up libcurl");
	while (!*r->stop) {
		bench_resp resp;
		int64_t t0 = bench_now_ns();
		if (bench_http_do(&resp, h, "GET", OTHER_PATH, NULL, 0) != 0 || resp.code != 200)
			r->failures++;
		if (r->n == r->cap) {
			r->cap = r->cap ? r->cap * 2 : 4096;
			r->lat = grow(r->lat, r->cap * sizeof(*r->lat));
		}
		r->lat[r->n++] = (double)(bench_now_ns() - t0) / 1e6;
		next += READ_EVERY_NS;
		int64_t wait = next - bench_now_ns();
		if (wait > 0) {
			struct timespec ts = {wait / 1000000000LL, wait % 1000000000LL};
			nanosleep(&ts, NULL);
		} else {
			next = bench_now_ns();
		}
	}
	bench_http_free(h);
	return NULL;
}

/* GETs from nr readers for seconds, while writing (or not); p99 and p50 of
 * all of them in ms. */
static void run_readers(const char *url, int nr, double seconds, bench_http *writer,
                        const text *bodies, double *p50, double *p99, long *writes,
                        double *write_p50)
{
	volatile int stop = 0;
	reader *rs = calloc((size_t)nr, sizeof(*rs));
	pthread_t *th = calloc((size_t)nr, sizeof(*th));
	double *wl = NULL;
	size_t nw = 0, capw = 0;
	if (!rs || !th)
		bench_die("out of memory");
	for (int i = 0; i < nr; i++) {
		rs[i].url = url;
		rs[i].stop = &stop;
		if (pthread_create(&th[i], NULL, reader_main, &rs[i]) != 0)
			bench_die("cannot start a reader");
	}
	int64_t deadline = bench_now_ns() + (int64_t)(seconds * 1e9);
	if (!writer) {
		struct timespec ts = {(time_t)seconds,
		                      (long)((seconds - (double)(time_t)seconds) * 1e9)};
		nanosleep(&ts, NULL);
	}
	for (long k = 0; writer && bench_now_ns() < deadline; k++) {
		bench_resp resp;
		const text *b = &bodies[k % 2];
		char path[128];
		snprintf(path, sizeof(path), "%s/bench-bigwrite", NODE_PATH);
		int64_t t0 = bench_now_ns();
		if (bench_http_do(&resp, writer, "PUT", path, b->data, b->len) != 0 ||
		    resp.code != 200)
			bench_die("PUT of the large Node: %ld %.300s", resp.code,
			          resp.body ? resp.body : "");
		if (nw == capw) {
			capw = capw ? capw * 2 : 256;
			wl = grow(wl, capw * sizeof(*wl));
		}
		wl[nw++] = (double)(bench_now_ns() - t0) / 1e6;
	}
	stop = 1;
	size_t total = 0;
	long failures = 0;
	for (int i = 0; i < nr; i++) {
		pthread_join(th[i], NULL);
		total += rs[i].n;
		failures += rs[i].failures;
	}
	if (failures)
		bench_die("%ld GETs failed", failures);
	double *all = malloc((total ? total : 1) * sizeof(*all));
	size_t at = 0;
	if (!all)
		bench_die("out of memory");
	for (int i = 0; i < nr; i++) {
		memcpy(all + at, rs[i].lat, rs[i].n * sizeof(*all));
		at += rs[i].n;
		free(rs[i].lat);
	}
	*p50 = bench_percentile(all, total, 50);
	*p99 = bench_percentile(all, total, 99);
	*writes = (long)nw;
	*write_p50 = bench_percentile(wl, nw, 50);
	free(all);
	free(wl);
	free(rs);
	free(th);
}

int main(int argc, char **argv)
{
	if (argc < 4)
		bench_die("usage: bench_bigwrite URL READERS SECONDS [LIMIT]");
	const char *url = argv[1];
	int nr = atoi(argv[2]);
	double seconds = atof(argv[3]);
	size_t limit = argc > 4 ? (size_t)atol(argv[4]) : 3u * 1024 * 1024;
	text bodies[2] = {{0}, {0}};
	size_t n = 256;
	/* The longest lists that fit, both tags (same length). */
	for (;;) {
		node_body(&bodies[0], n * 2, "a");
		if (bodies[0].len > limit - 4096)
			break;
		n *= 2;
	}
	size_t lo = n, hi = n * 2;
	while (hi - lo > 16) {
		size_t mid = (lo + hi) / 2;
		node_body(&bodies[0], mid, "a");
		if (bodies[0].len > limit - 4096)
			hi = mid;
		else
			lo = mid;
	}
	node_body(&bodies[0], lo, "a");
	node_body(&bodies[1], lo, "b");

	bench_http *w = bench_http_new(url);
	bench_resp resp;
	if (!w)
		bench_die("cannot set up libcurl");
	static const char other[] = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
	                            "{\"name\":\"bench-bigwrite-other\"},\"data\":{\"k\":\"v\"}}";
	if (bench_http_do(&resp, w, "POST", "/api/v1/namespaces/default/configmaps", other,
	                  sizeof(other) - 1) != 0 ||
	    (resp.code != 201 && resp.code != 409))
		bench_die("create the ConfigMap: %ld", resp.code);
	int64_t t0 = bench_now_ns();
	if (bench_http_do(&resp, w, "POST", NODE_PATH, bodies[0].data, bodies[0].len) != 0 ||
	    resp.code != 201)
		bench_die("POST of the large Node (%zu bytes): %ld %.300s", bodies[0].len,
		          resp.code, resp.body ? resp.body : "");
	double post_ms = (double)(bench_now_ns() - t0) / 1e6;

	double a50, a99, p50, p99, wp50, ignored;
	long writes = 0, none = 0;
	run_readers(url, nr, seconds, NULL, bodies, &a50, &a99, &none, &ignored);
	run_readers(url, nr, seconds, w, bodies, &p50, &p99, &writes, &wp50);
	printf("items=%zu body_bytes=%zu post_ms=%.1f writes=%ld write_p50_ms=%.1f "
	       "anchor_p50_ms=%.2f anchor_p99_ms=%.2f p50_ms=%.2f p99_ms=%.2f\n",
	       lo, bodies[0].len, post_ms, writes, wp50, a50, a99, p50, p99);
	bench_http_free(w);
	free(bodies[0].data);
	free(bodies[1].data);
	return 0;
}
