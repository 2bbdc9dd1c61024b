/* Benchmark 4 of issue 11: watch fan-out. WATCHERS watches on the Leases of
 * NAMESPACE (the client library's nl_watch, all on one loop) while a writer
 * thread updates one Lease RATE times a second for SECONDS. For each update
 * the delivery latency runs from the writer's acknowledgement (the PUT's
 * answer) to the moment the last watcher has the event; an event that beats
 * the acknowledgement counts as 0. A watcher that misses an event, sees
 * them out of order or reports an error is "dropped".
 *
 * bench_watch URL NAMESPACE WATCHERS RATE SECONDS */
#include <curl/curl.h>
#include <json-c/json.h>
#include <nodelet/client.h>
#include <nodelet/loop.h>
#include <nodelet/watch.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench_common.h"

typedef struct fanout fanout;

typedef struct {
	fanout *f;
	nl_watch *w;
	long received, last_seq, errors, disorder;
} watcher;

struct fanout {
	const char *url, *ns;
	char collection[256], object[300], name[32];
	size_t nwatchers, nseq;
	long rate;
	watcher *ws;
	int64_t *ack_ns;  /* per seq, written by the writer thread */
	int64_t *last_ns; /* per seq, the latest arrival among watchers */
	size_t *count;    /* per seq, watchers that have it */
	atomic_int writer_done;
	long write_failures;
	char *lease_json; /* the writer's copy */
};

static int seq_of(json_object *obj)
{
	json_object *spec, *t;
	if (!json_object_object_get_ex(obj, "spec", &spec) ||
	    !json_object_object_get_ex(spec, "leaseTransitions", &t))
		return -1;
	return json_object_get_int(t);
}

static int on_event(const nl_watch_event *ev, void *payload)
{
	watcher *w = payload;
	fanout *f = w->f;
	int64_t now = bench_now_ns();
	if (ev->type != NL_WATCH_MODIFIED && ev->type != NL_WATCH_ADDED)
		return 0;
	int seq = seq_of(ev->object);
	if (seq < 0 || (size_t)seq >= f->nseq)
		return 0;
	if (seq <= w->last_seq)
		w->disorder++;
	w->last_seq = seq;
	w->received++;
	f->count[seq]++;
	if (now > f->last_ns[seq])
		f->last_ns[seq] = now;
	return 0;
}

static void on_error(const nl_result *res, void *payload)
{
	watcher *w = payload;
	if (w->errors++ == 0)
		fprintf(stderr, "bench_watch: watcher error: %s\n", res->message);
}

/* PUT the Lease with leaseTransitions = seq; the ack time on success. */
static int write_seq(bench_http *h, fanout *f, int seq)
{
	json_object *o = json_tokener_parse(f->lease_json), *spec;
	if (!o || !json_object_object_get_ex(o, "spec", &spec)) {
		json_object_put(o);
		return -1;
	}
	json_object_object_add(spec, "leaseTransitions", json_object_new_int(seq));
	const char *body = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	bench_resp r;
	int rc = bench_http_do(&r, h, "PUT", f->object, body, strlen(body));
	json_object_put(o);
	if (rc != 0 || r.code != 200)
		return -1;
	f->ack_ns[seq] = bench_now_ns();
	free(f->lease_json);
	f->lease_json = strdup(r.body);
	return f->lease_json ? 0 : -1;
}

static void *writer_main(void *arg)
{
	fanout *f = arg;
	bench_http *h = bench_http_new(f->url);
	int64_t period = 1000000000LL / f->rate, start = bench_now_ns();
	/* seq 0 was the warm-up; the measured updates follow on a fixed
	 * schedule, so a slow answer does not thin out the rate. */
	for (size_t seq = 1; h && seq < f->nseq; seq++) {
		int64_t due = start + (int64_t)seq * period, now = bench_now_ns();
		if (due > now) {
			struct timespec ts = {(time_t)((due - now) / 1000000000LL),
			                      (long)((due - now) % 1000000000LL)};
			nanosleep(&ts, NULL);
		}
		if (write_seq(h, f, (int)seq) != 0)
			f->write_failures++;
	}
	bench_http_free(h);
	atomic_store(&f->writer_done, 1);
	return NULL;
}

static double cpu_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* Step the loop until every watcher has seq or timeout_s passes. */
static int wait_all(nl_loop *loop, fanout *f, size_t seq, double timeout_s)
{
	int64_t end = bench_now_ns() + (int64_t)(timeout_s * 1e9);
	while (f->count[seq] < f->nwatchers && bench_now_ns() < end)
		if (nl_loop_step(loop, 50) < 0)
			return -1;
	return f->count[seq] == f->nwatchers ? 0 : -1;
}

static void setup_lease(fanout *f)
{
	char body[512];
	bench_http *h = bench_http_new(f->url);
	bench_resp r;
	snprintf(body, sizeof(body),
	         "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":"
	         "{\"name\":\"%s\"},\"spec\":{\"holderIdentity\":\"bench\","
	         "\"leaseTransitions\":%zu}}",
	         f->name, f->nseq); /* out of range: watchers ignore the creation */
	if (!h || bench_http_do(&r, h, "POST", f->collection, body, strlen(body)) != 0 ||
	    r.code != 201)
		bench_die("cannot create the Lease");
	f->lease_json = strdup(r.body);
	bench_http_free(h);
}

int main(int argc, char **argv)
{
	if (argc != 6)
		bench_die("usage: bench_watch URL NAMESPACE WATCHERS RATE SECONDS");
	fanout f = {.url = argv[1], .ns = argv[2]};
	f.nwatchers = (size_t)atol(argv[3]);
	f.rate = atol(argv[4]);
	double seconds = atof(argv[5]);
	if (f.nwatchers < 1 || f.rate < 1 || seconds <= 0)
		bench_die("WATCHERS, RATE and SECONDS must be positive");
	f.nseq = 1 + (size_t)(seconds * (double)f.rate);
	snprintf(f.collection, sizeof(f.collection),
	         "/apis/coordination.k8s.io/v1/namespaces/%s/leases", f.ns);
	snprintf(f.name, sizeof(f.name), "fanout-%ld", (long)getpid());
	snprintf(f.object, sizeof(f.object), "%s/%s", f.collection, f.name);
	f.ws = calloc(f.nwatchers, sizeof(*f.ws));
	f.ack_ns = calloc(f.nseq, sizeof(*f.ack_ns));
	f.last_ns = calloc(f.nseq, sizeof(*f.last_ns));
	f.count = calloc(f.nseq, sizeof(*f.count));
	if (!f.ws || !f.ack_ns || !f.last_ns || !f.count)
		bench_die("out of memory");
	curl_global_init(CURL_GLOBAL_DEFAULT);
	setup_lease(&f);

	nl_loop *loop = NULL;
	if (nl_loop_new(&loop, NULL) != 0)
		bench_die("nl_loop_new failed");
	nl_client_options co;
	nl_client_options_init(&co);
	co.qps = -1;
	co.loop = loop;
	nl_rest_config cfg = {0};
	cfg.server = (char *)f.url;
	nl_client *client = NULL;
	nl_err err = {0};
	if (nl_client_new(&client, &cfg, &co, &err) != 0)
		bench_die("nl_client_new: %s", err.msg);
	json_object *created = json_tokener_parse(f.lease_json), *meta, *rv;
	if (!json_object_object_get_ex(created, "metadata", &meta) ||
	    !json_object_object_get_ex(meta, "resourceVersion", &rv))
		bench_die("created Lease without resourceVersion");
	for (size_t i = 0; i < f.nwatchers; i++) {
		f.ws[i] = (watcher){.f = &f, .last_seq = -1};
		nl_watch_options wo = {.path = f.collection,
		                       .resource_version = json_object_get_string(rv),
		                       .timeout_seconds = 3600,
		                       .on_event = on_event,
		                       .on_error = on_error,
		                       .payload = &f.ws[i]};
		if (nl_watch_start(&f.ws[i].w, client, &wo) != 0)
			bench_die("nl_watch_start failed");
	}
	json_object_put(created);

	/* Warm-up: every watcher connected and has seen seq 0. */
	int64_t t_connect = bench_now_ns();
	bench_http *h = bench_http_new(f.url);
	for (int i = 0; i < 20 && nl_loop_step(loop, 50) >= 0; i++)
		;
	if (!h || write_seq(h, &f, 0) != 0 || wait_all(loop, &f, 0, 30) != 0)
		bench_die("only %zu of %zu watchers got the warm-up event", f.count[0],
		          f.nwatchers);
	bench_http_free(h);
	double connect_s = (double)(bench_now_ns() - t_connect) / 1e9;

	double cpu0 = cpu_seconds();
	int64_t t0 = bench_now_ns();
	pthread_t writer;
	if (pthread_create(&writer, NULL, writer_main, &f) != 0)
		bench_die("pthread_create failed");
	while (!atomic_load(&f.writer_done))
		if (nl_loop_step(loop, 20) < 0)
			bench_die("nl_loop_step failed");
	pthread_join(writer, NULL);
	wait_all(loop, &f, f.nseq - 1, 5);
	double secs = (double)(bench_now_ns() - t0) / 1e9;
	double cpu = cpu_seconds() - cpu0;

	size_t n = 0, incomplete = 0;
	double *lat = calloc(f.nseq, sizeof(*lat));
	for (size_t s = 1; lat && s < f.nseq; s++) {
		if (f.count[s] < f.nwatchers || !f.ack_ns[s]) {
			incomplete++;
			continue;
		}
		int64_t d = f.last_ns[s] - f.ack_ns[s];
		lat[n++] = d > 0 ? (double)d / 1e6 : 0;
	}
	long dropped = 0;
	for (size_t i = 0; i < f.nwatchers; i++)
		if (f.ws[i].errors || f.ws[i].disorder || f.ws[i].received != (long)f.nseq)
			dropped++;
	double p50 = bench_percentile(lat, n, 50), p99 = bench_percentile(lat, n, 99);
	printf("watchers=%zu updates=%zu seconds=%.1f connect_s=%.2f p50_ms=%.2f p99_ms=%.2f "
	       "max_ms=%.2f incomplete=%zu dropped=%ld write_failures=%ld client_cpu_pct=%.0f\n",
	       f.nwatchers, f.nseq - 1, secs, connect_s, p50, p99, n ? lat[n - 1] : 0, incomplete,
	       dropped, f.write_failures, 100.0 * cpu / secs);
	for (size_t i = 0; i < f.nwatchers; i++)
		nl_watch_stop(f.ws[i].w);
	nl_client_free(client);
	nl_loop_free(loop);
	free(lat);
	free(f.ws);
	free(f.ack_ns);
	free(f.last_ns);
	free(f.count);
	free(f.lease_json);
	curl_global_cleanup();
	return f.write_failures ? 1 : 0;
}
