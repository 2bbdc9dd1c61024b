/* Fill the mock's store over HTTP and time LISTs of it (benchmarks 1 and 5
 * of issue 11: GET and LIST cost as the store grows, memory per object).
 *
 * bench_store create URL COLLECTION lease|configmap|node COUNT [--start I]
 *                    [--size BYTES] [--threads T] [--prefix NAME]
 *   POSTs COUNT objects named NAME-I.., T keep-alive connections in
 *   parallel; prints created, seconds, rate and json_bytes (the bytes of the
 *   objects as the server answers them, i.e. what a GET returns).
 * bench_store list URL PATH REPEATS
 *   GETs PATH REPEATS times; prints items, bytes, median_ms, us_per_item. */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

typedef struct {
	const char *url, *collection, *kind, *prefix;
	long start, count, size;
	int threads, index;
	long created;
	unsigned long long json_bytes;
	int failed;
} create_job;

static char *object_json(const create_job *j, long i)
{
	char name[128];
	snprintf(name, sizeof(name), "%s-%ld", j->prefix, i);
	if (strcmp(j->kind, "lease") == 0) {
		char *s = NULL;
		if (asprintf(&s,
		             "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\","
		             "\"metadata\":{\"name\":\"%s\"},\"spec\":{\"holderIdentity\":\"%s\","
		             "\"leaseDurationSeconds\":40,"
		             "\"renewTime\":\"2024-01-01T00:00:00.000000Z\"}}",
		             name, name) < 0)
			return NULL;
		return s;
	}
	if (strcmp(j->kind, "node") == 0) {
		char *s = NULL;
		if (asprintf(
		        &s,
		        "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"%s\"}}",
		        name) < 0)
			return NULL;
		return s;
	}
	/* The server adds about 190 bytes (namespace, uid, resourceVersion,
	 * creationTimestamp, TypeMeta): the stored object comes out near
	 * --size. */
	long fill = j->size > 256 ? j->size - 256 : 1;
	char *s = malloc((size_t)fill + 256);
	if (!s)
		return NULL;
	int n = snprintf(s, 256,
	                 "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
	                 "\"%s\",\"labels\":{\"bench\":\"memory\"}},\"data\":{\"payload\":\"",
	                 name);
	memset(s + n, 'x', (size_t)fill);
	strcpy(s + n + fill, "\"}}");
	return s;
}

static void *create_worker(void *arg)
{
	create_job *j = arg;
	bench_http *h = bench_http_new(j->url);
	if (!h) {
		j->failed = 1;
		return NULL;
	}
	for (long i = j->start + j->index; i < j->start + j->count; i += j->threads) {
		char *body = object_json(j, i);
		bench_resp r;
		if (!body || bench_http_do(&r, h, "POST", j->collection, body, strlen(body)) != 0 ||
		    r.code != 201) {
			fprintf(stderr, "bench_store: create %s-%ld failed (HTTP %ld): %.300s\n",
			        j->prefix, i, body ? r.code : 0L, body ? r.body : "out of memory");
			free(body);
			j->failed = 1;
			break;
		}
		free(body);
		j->created++;
		j->json_bytes += r.len;
	}
	bench_http_free(h);
	return NULL;
}

static int cmd_create(int argc, char **argv)
{
	if (argc < 6)
		bench_die(
		    "usage: bench_store create URL COLLECTION lease|configmap|node COUNT [flags]");
	create_job base = {.url = argv[2],
	                   .collection = argv[3],
	                   .kind = argv[4],
	                   .prefix = "bench",
	                   .count = atol(argv[5]),
	                   .size = 1024,
	                   .threads = 4};
	for (int i = 6; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--start") == 0)
			base.start = atol(argv[i + 1]);
		else if (strcmp(argv[i], "--size") == 0)
			base.size = atol(argv[i + 1]);
		else if (strcmp(argv[i], "--threads") == 0)
			base.threads = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--prefix") == 0)
			base.prefix = argv[i + 1];
		else
			bench_die("bench_store create: unknown flag %s", argv[i]);
	}
	if (base.threads < 1 || base.threads > 64)
		bench_die("--threads must be 1..64");
	create_job jobs[64];
	pthread_t tids[64];
	int64_t t0 = bench_now_ns();
	for (int t = 0; t < base.threads; t++) {
		jobs[t] = base;
		jobs[t].index = t;
		if (pthread_create(&tids[t], NULL, create_worker, &jobs[t]) != 0)
			bench_die("pthread_create failed");
	}
	long created = 0;
	unsigned long long bytes = 0;
	int failed = 0;
	for (int t = 0; t < base.threads; t++) {
		pthread_join(tids[t], NULL);
		created += jobs[t].created;
		bytes += jobs[t].json_bytes;
		failed |= jobs[t].failed;
	}
	double secs = (double)(bench_now_ns() - t0) / 1e9;
	printf("created=%ld seconds=%.3f rate=%.0f json_bytes=%llu avg_bytes=%.0f\n", created, secs,
	       secs > 0 ? (double)created / secs : 0, bytes,
	       created ? (double)bytes / (double)created : 0);
	return failed ? 1 : 0;
}

/* Items of a List answer: each starts its metadata right away, as list
 * items carry no kind/apiVersion (docs/decisions/0002-store.md). */
static long count_items(const char *body)
{
	long n = 0;
	for (const char *p = body; (p = strstr(p, "{\"metadata\":{\"name\":\"")); p++)
		n++;
	return n;
}

static int cmd_list(int argc, char **argv)
{
	if (argc < 5)
		bench_die("usage: bench_store list URL PATH REPEATS");
	int repeats = atoi(argv[4]);
	if (repeats < 1 || repeats > 1000)
		bench_die("REPEATS must be 1..1000");
	bench_http *h = bench_http_new(argv[2]);
	if (!h)
		bench_die("libcurl setup failed");
	double ms[1000];
	bench_resp r = {0};
	for (int i = 0; i < repeats; i++) {
		int64_t t0 = bench_now_ns();
		if (bench_http_do(&r, h, "GET", argv[3], NULL, 0) != 0 || r.code != 200)
			bench_die("list %s failed (HTTP %ld)", argv[3], r.code);
		ms[i] = (double)(bench_now_ns() - t0) / 1e6;
	}
	long items = count_items(r.body);
	size_t bytes = r.len;
	double median = bench_percentile(ms, (size_t)repeats, 50);
	printf("items=%ld bytes=%zu median_ms=%.3f us_per_item=%.3f\n", items, bytes, median,
	       items ? median * 1000.0 / (double)items : 0);
	bench_http_free(h);
	return 0;
}

int main(int argc, char **argv)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (argc > 1 && strcmp(argv[1], "create") == 0)
		return cmd_create(argc, argv);
	if (argc > 1 && strcmp(argv[1], "list") == 0)
		return cmd_list(argc, argv);
	bench_die("usage: bench_store create|list ...");
}
