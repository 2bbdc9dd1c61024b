/* Benchmark 2 of issue 11: optimistic updates. INFLIGHT concurrent PUTs of
 * Leases, spread over the LEASES Leases named PREFIX-0.. in NAMESPACE, each
 * sent with the resourceVersion of our previous answer (no GET), through the
 * client library's asynchronous interface on one loop. Each in-flight slot
 * owns every INFLIGHT-th Lease, so a Lease has at most one write in flight
 * and a conflict means the server lost track.
 *
 * The load generator shares the machine's cores with the server, so by
 * default it spends as little as it can per update: the body is JSON text
 * formatted from the Lease's fields (nl_client_send), and only the new
 * resourceVersion is read from the answer, as a load generator like wrk
 * would. --update tree goes through json-c instead (nl_api_update_async,
 * the typed interface): the answer parsed, the tree kept and serialized.
 *
 * --update protobuf sends the same Lease as the text update, encoded with
 * nl_pb_encode_object, and asks for a protobuf answer, whose
 * resourceVersion it decodes: the wire kubelet uses.
 *
 * bench_put URL NAMESPACE PREFIX LEASES INFLIGHT SECONDS
 *           [--update text|tree|protobuf]
 * Prints updates, updates_per_s, p50_ms, p99_ms, conflicts, failures and the
 * load generator's own CPU time. */
#include <curl/curl.h>
#include <json-c/json.h>
#include <nodelet/api.h>
#include <nodelet/client.h>
#include <nodelet/loop.h>
#include <nodelet/protobuf.h>
#include <nodelet/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench_common.h"

typedef struct put_bench put_bench;

/* A Lease as the text update writes it. */
typedef struct {
	char name[128], holder[128];
	char rv[32];
	long duration;
} put_text;

typedef struct {
	put_bench *b;
	size_t slot;
	size_t next; /* index of the next Lease this slot writes */
	size_t current;
	int64_t sent_ns;
} put_slot;

struct put_bench {
	nl_client *client;
	const char *ns, *prefix;
	json_object **leases; /* our latest copy of each Lease (tree) */
	put_text *texts;      /* what the text update needs of each Lease */
	int tree;
	int protobuf; /* the text update's Lease sent and answered as protobuf */
	size_t nleases, inflight, active;
	int64_t deadline;
	long updates, conflicts, failures;
	double *lat_ms;
	size_t nlat, caplat;
};

static void record(put_bench *b, double ms)
{
	if (b->nlat == b->caplat) {
		size_t cap = b->caplat ? b->caplat * 2 : 65536;
		double *p = realloc(b->lat_ms, cap * sizeof(*p));
		if (!p)
			return;
		b->lat_ms = p;
		b->caplat = cap;
	}
	b->lat_ms[b->nlat++] = ms;
}

static void send_next(put_slot *s);

static void on_done(json_object *obj, const nl_result *res, void *payload)
{
	put_slot *s = payload;
	put_bench *b = s->b;
	if (obj) {
		b->updates++;
		record(b, (double)(bench_now_ns() - s->sent_ns) / 1e6);
		json_object_put(b->leases[s->current]);
		b->leases[s->current] = json_object_get(obj);
	} else if (res->code == NL_ECONFLICT) {
		b->conflicts++;
	} else {
		if (b->failures++ < 5)
			fprintf(stderr, "bench_put: %s\n", res->message);
	}
	send_next(s);
}

/* The answer's metadata.resourceVersion: the first such member of a Lease
 * (metadata comes before spec; managedFields name fields as "f:..."). */
static int answer_rv(char rv[32], const char *body)
{
	static const char key[] = "\"resourceVersion\":\"";
	const char *p = body ? strstr(body, key) : NULL;
	if (!p || !strstr(body, "\"kind\":\"Lease\""))
		return -1;
	p += sizeof(key) - 1;
	size_t n = strspn(p, "0123456789");
	if (n == 0 || n >= 32 || p[n] != '"')
		return -1;
	memcpy(rv, p, n);
	rv[n] = '\0';
	return 0;
}

/* The resourceVersion of a protobuf Lease answer into rv. */
static int answer_rv_pb(char *rv, const nl_response *resp)
{
	json_object *o = NULL;
	if (strcmp(resp->content_type, NL_PB_CONTENT_TYPE) != 0 ||
	    nl_pb_decode_object(&o, NULL, resp->body, resp->body_len, NULL) != 0)
		return -1;
	const char *v = json_object_get_string(
	    json_object_object_get(json_object_object_get(o, "metadata"), "resourceVersion"));
	int rc = v && strlen(v) < 32 ? (strcpy(rv, v), 0) : -1;
	json_object_put(o);
	return rc;
}

static void on_text_done(nl_response *resp, const nl_result *res, void *payload)
{
	put_slot *s = payload;
	put_bench *b = s->b;
	char *rv = b->texts[s->current].rv;
	if (resp && resp->http_status == 200 &&
	    (b->protobuf ? answer_rv_pb(rv, resp) : answer_rv(rv, resp->body)) == 0) {
		b->updates++;
		record(b, (double)(bench_now_ns() - s->sent_ns) / 1e6);
	} else if (res->code == NL_ECONFLICT) {
		b->conflicts++;
	} else if (b->failures++ < 5) {
		fprintf(stderr, "bench_put: %s\n",
		        res->code ? res->message
		                  : "the answer is not a Lease with a resourceVersion");
	}
	send_next(s);
}

static int send_text(put_bench *b, put_slot *s)
{
	const put_text *t = &b->texts[s->current];
	char now[NL_TIME_BUFSZ], path[256], body[1024];
	nl_time_format_micro(now, nl_time_now());
	nl_api_path(path, sizeof(path), &nl_resource_leases, b->ns, t->name, NULL);
	int len = snprintf(body, sizeof(body),
	                   "{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\","
	                   "\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\","
	                   "\"resourceVersion\":\"%s\"},\"spec\":{\"holderIdentity\":\"%s\","
	                   "\"leaseDurationSeconds\":%ld,\"renewTime\":\"%s\"}}",
	                   t->name, b->ns, t->rv, t->holder, t->duration, now);
	if (len < 0 || (size_t)len >= sizeof(body))
		return -1;
	nl_request req = {.method = "PUT",
	                  .path = path,
	                  .body = body,
	                  .body_len = (size_t)len,
	                  .group = nl_resource_leases.group,
	                  .resource = nl_resource_leases.resource,
	                  .name = t->name};
	nl_buf pb;
	nl_buf_init(&pb, 0);
	if (b->protobuf) {
		json_object *o = json_tokener_parse(body);
		int rc = o ? nl_pb_encode_object(&pb, o) : -1;
		json_object_put(o);
		if (rc != 0) {
			nl_buf_free(&pb);
			return -1;
		}
		req.body = pb.data;
		req.body_len = pb.len;
		req.content_type = NL_PB_CONTENT_TYPE;
		req.accept = NL_PB_CONTENT_TYPE;
	}
	s->sent_ns = bench_now_ns();
	int rc = nl_client_send(NULL, b->client, &req, on_text_done, s);
	nl_buf_free(&pb);
	return rc;
}

static int send_tree(put_bench *b, put_slot *s)
{
	json_object *lease = b->leases[s->current];
	json_object *spec = json_object_object_get(lease, "spec");
	char now[NL_TIME_BUFSZ], path[256], name[128];
	nl_time_format_micro(now, nl_time_now());
	json_object_object_add(spec, "renewTime", json_object_new_string(now));
	snprintf(name, sizeof(name), "%s-%zu", b->prefix, s->current);
	nl_api_path(path, sizeof(path), &nl_resource_leases, b->ns, name, NULL);
	s->sent_ns = bench_now_ns();
	return nl_api_update_async(NULL, b->client, path, lease, NULL, on_done, s);
}

static void send_next(put_slot *s)
{
	put_bench *b = s->b;
	if (bench_now_ns() >= b->deadline || b->failures > 100) {
		b->active--;
		return;
	}
	s->current = s->next;
	s->next += b->inflight;
	if (s->next >= b->nleases)
		s->next = s->slot;
	if ((b->tree ? send_tree(b, s) : send_text(b, s)) != 0) {
		b->failures++;
		b->active--;
	}
}

/* The text update rewrites the whole object from these fields, so a Lease
 * carrying anything else (labels, owners) would lose it: refuse. */
static void text_of(put_text *t, json_object *lease)
{
	json_object *meta = json_object_object_get(lease, "metadata");
	json_object *spec = json_object_object_get(lease, "spec");
	const char *name = json_object_get_string(json_object_object_get(meta, "name"));
	const char *holder = json_object_get_string(json_object_object_get(spec, "holderIdentity"));
	const char *rv = json_object_get_string(json_object_object_get(meta, "resourceVersion"));
	static const char *const foreign[] = {"labels", "annotations", "ownerReferences",
	                                      "finalizers"};
	for (size_t i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++)
		if (json_object_object_get_ex(meta, foreign[i], NULL))
			bench_die("lease %s has %s: use --update tree", name, foreign[i]);
	if (!name || !rv || strpbrk(holder ? holder : "", "\"\\") ||
	    snprintf(t->name, sizeof(t->name), "%s", name) >= (int)sizeof(t->name) ||
	    snprintf(t->holder, sizeof(t->holder), "%s", holder ? holder : "") >=
	        (int)sizeof(t->holder) ||
	    snprintf(t->rv, sizeof(t->rv), "%s", rv) >= (int)sizeof(t->rv))
		bench_die("lease %s: cannot be written as text", name ? name : "?");
	t->duration = json_object_get_int64(json_object_object_get(spec, "leaseDurationSeconds"));
}

/* Our starting copies: one LIST of the namespace. */
static void load_leases(put_bench *b)
{
	char path[256];
	json_object *list = NULL, *items;
	nl_result res = NL_RESULT_INIT;
	nl_api_path(path, sizeof(path), &nl_resource_leases, b->ns, NULL, NULL);
	if (nl_api_list(&list, b->client, path, NULL, &res) != 0)
		bench_die("list leases: %s", res.message);
	if (!json_object_object_get_ex(list, "items", &items))
		bench_die("list leases: no items");
	size_t plen = strlen(b->prefix);
	for (size_t i = 0; i < json_object_array_length(items); i++) {
		json_object *it = json_object_array_get_idx(items, i);
		const char *n = json_object_get_string(
		    json_object_object_get(json_object_object_get(it, "metadata"), "name"));
		char *end;
		if (!n || strncmp(n, b->prefix, plen) != 0 || n[plen] != '-')
			continue;
		unsigned long k = strtoul(n + plen + 1, &end, 10);
		if (*end == '\0' && k < b->nleases && !b->leases[k])
			b->leases[k] = json_object_get(it);
	}
	for (size_t k = 0; k < b->nleases; k++) {
		if (!b->leases[k])
			bench_die("lease %s-%zu does not exist", b->prefix, k);
		if (!b->tree)
			text_of(&b->texts[k], b->leases[k]);
	}
	json_object_put(list);
	nl_result_clear(&res);
}

static double cpu_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	int tree_flag =
	    argc == 9 && strcmp(argv[7], "--update") == 0 && strcmp(argv[8], "tree") == 0;
	int text_flag =
	    argc == 9 && strcmp(argv[7], "--update") == 0 && strcmp(argv[8], "text") == 0;
	int pb_flag =
	    argc == 9 && strcmp(argv[7], "--update") == 0 && strcmp(argv[8], "protobuf") == 0;
	if (argc != 7 && !tree_flag && !text_flag && !pb_flag)
		bench_die("usage: bench_put URL NAMESPACE PREFIX LEASES INFLIGHT SECONDS "
		          "[--update text|tree|protobuf]");
	put_bench b = {.ns = argv[2], .prefix = argv[3], .tree = tree_flag, .protobuf = pb_flag};
	b.nleases = (size_t)atol(argv[4]);
	b.inflight = (size_t)atol(argv[5]);
	double seconds = atof(argv[6]);
	if (b.nleases < 1 || b.inflight < 1 || b.inflight > b.nleases || seconds <= 0)
		bench_die("need 1 <= INFLIGHT <= LEASES and SECONDS > 0");
	curl_global_init(CURL_GLOBAL_DEFAULT);

	nl_loop_options lo;
	nl_loop_options_init(&lo);
	lo.max_host_connections = (long)b.inflight;
	lo.max_total_connections = (long)b.inflight;
	nl_loop *loop = NULL;
	if (nl_loop_new(&loop, &lo) != 0)
		bench_die("nl_loop_new failed");
	nl_client_options co;
	nl_client_options_init(&co);
	co.qps = -1; /* no client-side throttle: we measure the server */
	co.loop = loop;
	nl_rest_config cfg = {0};
	cfg.server = argv[1];
	nl_err err = {0};
	if (nl_client_new(&b.client, &cfg, &co, &err) != 0)
		bench_die("nl_client_new: %s", err.msg);
	b.leases = calloc(b.nleases, sizeof(*b.leases));
	b.texts = calloc(b.nleases, sizeof(*b.texts));
	put_slot *slots = calloc(b.inflight, sizeof(*slots));
	if (!b.leases || !b.texts || !slots)
		bench_die("out of memory");
	load_leases(&b);
	if (!b.tree) /* the trees were only for the fields */
		for (size_t k = 0; k < b.nleases; k++) {
			json_object_put(b.leases[k]);
			b.leases[k] = NULL;
		}

	double cpu0 = cpu_seconds();
	int64_t t0 = bench_now_ns();
	b.deadline = t0 + (int64_t)(seconds * 1e9);
	b.active = b.inflight;
	for (size_t i = 0; i < b.inflight; i++) {
		slots[i] = (put_slot){.b = &b, .slot = i, .next = i};
		send_next(&slots[i]);
	}
	while (b.active > 0)
		if (nl_loop_step(loop, 100) < 0)
			bench_die("nl_loop_step failed");
	double secs = (double)(bench_now_ns() - t0) / 1e9;
	double cpu = cpu_seconds() - cpu0;

	printf("update=%s updates=%ld seconds=%.2f updates_per_s=%.0f p50_ms=%.2f p99_ms=%.2f "
	       "conflicts=%ld failures=%ld client_cpu_pct=%.0f\n",
	       b.tree       ? "tree"
	       : b.protobuf ? "protobuf"
	                    : "text",
	       b.updates, secs, (double)b.updates / secs, bench_percentile(b.lat_ms, b.nlat, 50),
	       bench_percentile(b.lat_ms, b.nlat, 99), b.conflicts, b.failures, 100.0 * cpu / secs);
	for (size_t k = 0; k < b.nleases; k++)
		json_object_put(b.leases[k]);
	free(b.leases);
	free(b.texts);
	free(slots);
	free(b.lat_ms);
	nl_client_free(b.client);
	nl_loop_free(loop);
	curl_global_cleanup();
	return b.failures || b.conflicts ? 1 : 0;
}
