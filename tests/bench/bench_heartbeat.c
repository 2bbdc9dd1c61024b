/* Benchmark 3 of issue 11: heartbeat scale. N simulated nodes, each running
 * the real lease controller (nl_lease_controller_sync) in one process on one
 * event loop, sharing a bounded pool of keep-alive connections, renewing
 * every renew interval (10 s for the default 40 s lease) against one mock.
 *
 * The controller's API interface (nl_lease_ops) is synchronous, the
 * client's loop asynchronous. The adapter runs each sync in a coroutine
 * (ucontext) that issues the async call and yields to the loop; the call's
 * completion resumes it. Only syncs in flight hold a coroutine, so a small
 * pool of stacks serves any N. (A backoff sleep inside the controller would
 * block the loop; it only happens after failures, which this benchmark
 * counts as misses anyway.)
 *
 * Renewals go through the controller's text update (update_lease_text in
 * nl_lease_controller_options, on nl_client_send): the cached lease stays
 * JSON text and no json-c tree is built per renewal. --update tree uses the
 * tree interface (nl_api_update_async) instead, for comparison.
 *
 * bench_heartbeat URL N [--window S] [--connections C] [--server-pid PID]
 *                 [--update text|tree]
 *   Nodes hb-0..hb-N-1 must exist (bench_store create ... node). First syncs
 *   (GET lease, GET node, CREATE) are spread over one renew interval (or N
 *   ms when longer); one interval after the last node joined the renewals
 *   of the following S seconds (default 20) are measured: latency
 *   from the renewal's due time to its completion, failures and renewals
 *   still overdue at the end ("missed"), CPU and memory of this process and,
 *   given its pid, of the server. Two figures hold on a busy machine too:
 *   client CPU per renewal and client memory per node (RSS growth from
 *   before the controllers exist to the window's start, over N). */
#include <curl/curl.h>
#include <json-c/json.h>
#include <nodelet/api.h>
#include <nodelet/client.h>
#include <nodelet/clock.h>
#include <nodelet/lease_controller.h>
#include <nodelet/log.h>
#include <nodelet/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <ucontext.h>
#include <unistd.h>

#include "bench_common.h"

#define CORO_STACK (128 * 1024)
#define CORO_MAX 512

typedef struct hb_bench hb_bench;
typedef struct hb_node hb_node;

/* A coroutine: runs node syncs, one at a time, on its own stack. */
typedef struct coro {
	ucontext_t ctx;
	ucontext_t resumer; /* where to go back when the sync yields or ends */
	hb_bench *b;
	hb_node *node; /* the sync it runs; NULL when idle */
	struct coro *next_free;
	/* The pending call's outcome, handed from the callback to the sync
	 * (here, not in hb_node: only syncs in flight need it). */
	json_object *obj;
	char *text; /* the answer's body, for the text update */
	size_t text_len;
	int code;
	long http_status;
	char message[256];
} coro;

/* Kept small: there are N of them. */
struct hb_node {
	hb_bench *b;
	nl_lease_controller *lc;
	coro *co;
	struct hb_node *next_wait; /* queued for a free coroutine */
	int64_t due_ns;            /* when the current sync was due */
	int started;               /* its first sync (lease creation) has run */
	int in_sync;
};

struct hb_bench {
	nl_client *client;
	nl_clock *clock;
	nl_loop *loop;
	hb_node *nodes;
	size_t n;
	int tree_update; /* --update tree */
	int64_t interval_ns;
	nl_rand rand;
	coro coros[CORO_MAX];
	coro *free_coros;
	hb_node *wait_head, *wait_tail;
	/* measurement window */
	int64_t win_start, win_end;
	long renewals, failures, creates, create_failures;
	double *lat_ms;
	size_t nlat, caplat;
	double max_ms;
	long rss0_kib; /* before the nodes exist */
};

static void schedule(hb_node *nd, int64_t delay_ns);
static void start_waiting(hb_bench *b);

/* --- coroutines ------------------------------------------------------------------ */

static coro *current; /* the coroutine running now, NULL on the loop's stack */

static void yield_to_loop(void)
{
	coro *c = current;
	current = NULL;
	swapcontext(&c->ctx, &c->resumer);
}

static void resume(coro *c)
{
	current = c;
	swapcontext(&c->resumer, &c->ctx);
}

static void record(hb_bench *b, double ms)
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
	if (ms > b->max_ms)
		b->max_ms = ms;
}

static void finish_sync(hb_node *nd, int rc)
{
	hb_bench *b = nd->b;
	int64_t now = bench_now_ns();
	if (!nd->started) {
		nd->started = 1;
		if (rc == 0)
			b->creates++;
		else
			b->create_failures++;
	} else if (nd->due_ns >= b->win_start && nd->due_ns < b->win_end) {
		if (rc == 0) {
			b->renewals++;
			record(b, (double)(now - nd->due_ns) / 1e6);
		} else {
			b->failures++;
		}
	}
	nd->in_sync = 0;
	/* JitterUntil, sliding: the next period counts from the end of this
	 * sync. */
	schedule(nd, nl_jitter(b->interval_ns / 1000, NL_LEASE_JITTER_FACTOR, &b->rand) * 1000);
}

static void coro_main(void)
{
	coro *c = current;
	for (;;) {
		hb_node *nd = c->node;
		int rc = nl_lease_controller_sync(nd->lc);
		nd->co = NULL;
		finish_sync(nd, rc);
		c->node = NULL;
		c->next_free = c->b->free_coros;
		c->b->free_coros = c;
		yield_to_loop();
	}
}

static int coro_init(coro *c, hb_bench *b)
{
	void *stack = mmap(NULL, CORO_STACK, PROT_READ | PROT_WRITE,
	                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED || getcontext(&c->ctx) != 0)
		return -1;
	c->b = b;
	c->ctx.uc_stack.ss_sp = stack;
	c->ctx.uc_stack.ss_size = CORO_STACK;
	c->ctx.uc_link = NULL; /* coro_main never returns */
	makecontext(&c->ctx, coro_main, 0);
	c->next_free = b->free_coros;
	b->free_coros = c;
	return 0;
}

/* Start nd's sync on a free coroutine, or queue it. */
static void start_sync(hb_node *nd)
{
	hb_bench *b = nd->b;
	coro *c = b->free_coros;
	if (!c) {
		nd->next_wait = NULL;
		if (b->wait_tail)
			b->wait_tail->next_wait = nd;
		else
			b->wait_head = nd;
		b->wait_tail = nd;
		return;
	}
	b->free_coros = c->next_free;
	c->node = nd;
	nd->co = c;
	resume(c);
}

static void start_waiting(hb_bench *b)
{
	while (b->free_coros && b->wait_head) {
		hb_node *nd = b->wait_head;
		b->wait_head = nd->next_wait;
		if (!b->wait_head)
			b->wait_tail = NULL;
		start_sync(nd);
	}
}

static void on_due(void *payload)
{
	hb_node *nd = payload;
	nd->due_ns = bench_now_ns();
	nd->in_sync = 1;
	start_sync(nd);
	start_waiting(nd->b);
}

static void schedule(hb_node *nd, int64_t delay_ns)
{
	if (nl_clock_after(NULL, nd->b->clock, delay_ns / 1000, on_due, nd) != 0)
		bench_die("nl_clock_after failed");
}

/* --- nl_lease_ops on the async client ------------------------------------------- */

static void note_result(coro *c, const nl_result *res)
{
	c->code = res->code;
	c->http_status = res->http_status;
	snprintf(c->message, sizeof(c->message), "%.200s", res->message);
}

static void on_done(json_object *obj, const nl_result *res, void *payload)
{
	hb_node *nd = payload;
	nd->co->obj = obj ? json_object_get(obj) : NULL;
	note_result(nd->co, res);
	resume(nd->co);
	start_waiting(nd->b);
}

static void on_text_done(nl_response *resp, const nl_result *res, void *payload)
{
	hb_node *nd = payload;
	coro *c = nd->co;
	if (res->code == 0 && resp && resp->body) {
		c->text = resp->body; /* taken over */
		c->text_len = resp->body_len;
		resp->body = NULL;
	}
	note_result(c, res);
	resume(c);
	start_waiting(nd->b);
}

/* Wait (yield) for the call just queued; rc is the queueing's outcome. The
 * status the controller gets on failure. */
static int await_call(nl_status **status, hb_node *nd, int rc)
{
	coro *c = nd->co;
	if (rc == 0) {
		yield_to_loop();
		rc = c->code;
	} else {
		snprintf(c->message, sizeof(c->message), "%s", nl_strerror(rc));
		c->http_status = 0;
	}
	if (rc != 0 && status)
		*status = nl_status_new((int)c->http_status, "", c->message);
	return rc;
}

/* The controller's calling convention for a tree answer. */
static int await(json_object **out, nl_status **status, hb_node *nd, int rc)
{
	coro *c = nd->co;
	c->obj = NULL;
	rc = await_call(status, nd, rc);
	if (rc == 0 && c->obj) {
		*out = c->obj;
		c->obj = NULL;
		return 0;
	}
	json_object_put(c->obj);
	c->obj = NULL;
	return rc ? rc : NL_ERROR;
}

static int op_get_lease(json_object **out, nl_status **status, const char *ns, const char *name,
                        void *payload)
{
	hb_node *nd = payload;
	char path[256];
	nl_api_path(path, sizeof(path), &nl_resource_leases, ns, name, NULL);
	return await(out, status, nd, nl_api_get_async(NULL, nd->b->client, path, on_done, nd));
}

static int op_create_lease(json_object **out, nl_status **status, const char *ns,
                           json_object *lease, void *payload)
{
	hb_node *nd = payload;
	char path[256];
	nl_api_path(path, sizeof(path), &nl_resource_leases, ns, NULL, NULL);
	return await(out, status, nd,
	             nl_api_create_async(NULL, nd->b->client, path, lease, NULL, on_done, nd));
}

static int op_update_lease(json_object **out, nl_status **status, const char *ns,
                           json_object *lease, void *payload)
{
	hb_node *nd = payload;
	char path[256];
	const char *name = json_object_get_string(
	    json_object_object_get(json_object_object_get(lease, "metadata"), "name"));
	nl_api_path(path, sizeof(path), &nl_resource_leases, ns, name, NULL);
	return await(out, status, nd,
	             nl_api_update_async(NULL, nd->b->client, path, lease, NULL, on_done, nd));
}

static int op_update_lease_text(char **out, size_t *out_len, nl_status **status, const char *ns,
                                const char *name, const char *body, size_t len, void *payload)
{
	hb_node *nd = payload;
	coro *c = nd->co;
	char path[256];
	nl_api_path(path, sizeof(path), &nl_resource_leases, ns, name, NULL);
	nl_request req = {.method = "PUT",
	                  .path = path,
	                  .body = body,
	                  .body_len = len,
	                  .group = nl_resource_leases.group,
	                  .resource = nl_resource_leases.resource,
	                  .name = name};
	c->text = NULL;
	int rc =
	    await_call(status, nd, nl_client_send(NULL, nd->b->client, &req, on_text_done, nd));
	if (rc == 0 && c->text) {
		*out = c->text;
		*out_len = c->text_len;
		c->text = NULL;
		return 0;
	}
	free(c->text);
	c->text = NULL;
	return rc ? rc : NL_ERROR;
}

static int op_get_node(json_object **out, nl_status **status, const char *name, void *payload)
{
	hb_node *nd = payload;
	char path[256];
	nl_api_path(path, sizeof(path), &nl_resource_nodes, NULL, name, NULL);
	return await(out, status, nd, nl_api_get_async(NULL, nd->b->client, path, on_done, nd));
}

/* --- measurement ----------------------------------------------------------------- */

static double self_cpu_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static double proc_cpu_seconds(long pid)
{
	char path[64];
	unsigned long ut = 0, st = 0;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	/* Fields 14 and 15; the command name (2) has no spaces here. */
	if (fscanf(f, "%*d %*s %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		ut = st = 0;
	fclose(f);
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static void setup(hb_bench *b, const char *url, long connections)
{
	nl_loop_options lo;
	nl_loop_options_init(&lo);
	lo.max_host_connections = connections;
	lo.max_total_connections = connections;
	if (nl_loop_new(&b->loop, &lo) != 0)
		bench_die("nl_loop_new failed");
	b->clock = nl_loop_clock(b->loop);
	nl_client_options co;
	nl_client_options_init(&co);
	co.qps = -1;
	co.loop = b->loop;
	nl_rest_config cfg = {0};
	cfg.server = (char *)url;
	nl_err err = {0};
	if (nl_client_new(&b->client, &cfg, &co, &err) != 0)
		bench_die("nl_client_new: %s", err.msg);
	/* Syncs in flight beyond the connections only wait in libcurl's
	 * pending list, which curl_multi_remove_handle walks for every
	 * finished transfer (8% of the client's CPU at 512 in flight): twice
	 * the connections keep every one busy, the rest wait here. */
	size_t ncoros = connections * 2 < CORO_MAX ? (size_t)connections * 2 : CORO_MAX;
	for (size_t i = 0; i < ncoros; i++)
		if (coro_init(&b->coros[i], b) != 0)
			bench_die("cannot set up coroutine stacks");
	b->rss0_kib = bench_proc_kib(getpid(), "VmRSS");
	b->nodes = calloc(b->n, sizeof(*b->nodes));
	if (!b->nodes)
		bench_die("out of memory");
	for (size_t i = 0; i < b->n; i++) {
		hb_node *nd = &b->nodes[i];
		char name[32];
		nd->b = b;
		snprintf(name, sizeof(name), "hb-%zu", i);
		nl_lease_ops ops = {op_get_lease, op_create_lease, op_update_lease, op_get_node,
		                    nd};
		nl_lease_controller_options o = {.clock = b->clock,
		                                 .ops = &ops,
		                                 .node_name = name,
		                                 .jitter_seed = i + 1,
		                                 .update_lease_text =
		                                     b->tree_update ? NULL : op_update_lease_text};
		if (nl_lease_controller_new(&nd->lc, &o) != 0)
			bench_die("nl_lease_controller_new failed");
	}
	b->interval_ns = nl_lease_controller_renew_interval(b->nodes[0].lc) * 1000;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		bench_die("usage: bench_heartbeat URL N [--window S] [--connections C] "
		          "[--server-pid PID] [--update text|tree]");
	hb_bench b = {.n = (size_t)atol(argv[2])};
	double window_s = 20;
	long connections = 256, server_pid = 0;
	for (int i = 3; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--window") == 0)
			window_s = atof(argv[i + 1]);
		else if (strcmp(argv[i], "--connections") == 0)
			connections = atol(argv[i + 1]);
		else if (strcmp(argv[i], "--server-pid") == 0)
			server_pid = atol(argv[i + 1]);
		else if (strcmp(argv[i], "--update") == 0 &&
		         (strcmp(argv[i + 1], "text") == 0 || strcmp(argv[i + 1], "tree") == 0))
			b.tree_update = strcmp(argv[i + 1], "tree") == 0;
		else
			bench_die("bench_heartbeat: unknown flag %s", argv[i]);
	}
	if (b.n < 1 || window_s <= 0 || connections < 1)
		bench_die("N, --window and --connections must be positive");
	curl_global_init(CURL_GLOBAL_DEFAULT);
	nl_rand_seed(&b.rand, 42);
	setup(&b, argv[1], connections);

	/* Nodes join spread over one renew interval, or at 1,000 a second
	 * when that is longer: a first sync costs three requests (GET, GET
	 * Node, CREATE), and a fleet does not register all at once. The
	 * window opens one interval after the last has joined. */
	int64_t t0 = bench_now_ns(), ramp = b.interval_ns;
	if ((int64_t)b.n * 1000000 > ramp)
		ramp = (int64_t)b.n * 1000000;
	for (size_t i = 0; i < b.n; i++)
		schedule(&b.nodes[i], (int64_t)((double)ramp * (double)i / (double)b.n));
	b.win_start = t0 + ramp + b.interval_ns;
	b.win_end = b.win_start + (int64_t)(window_s * 1e9);

	double cpu0 = 0, srv0 = 0;
	long rss_joined = 0, joined = 0;
	int measuring = 0, all_joined = 0;
	int64_t give_up = t0 + 3 * ramp + b.interval_ns;
	for (;;) {
		int64_t now = bench_now_ns();
		/* The window measures steady renewals: on a busy machine joining
		 * can lag behind the ramp, so the window opens one interval after
		 * the last node joined (giving up waiting after three ramps). */
		if (!all_joined && (b.creates + b.create_failures >= (long)b.n || now >= give_up)) {
			all_joined = 1;
			if (now + b.interval_ns > b.win_start) {
				b.win_start = now + b.interval_ns;
				b.win_end = b.win_start + (int64_t)(window_s * 1e9);
			}
		}
		if (!measuring && all_joined && now >= b.win_start) {
			measuring = 1;
			cpu0 = self_cpu_seconds();
			srv0 = server_pid ? proc_cpu_seconds(server_pid) : 0;
			rss_joined = bench_proc_kib(getpid(), "VmRSS");
			joined = b.creates;
			if ((size_t)joined < b.n)
				fprintf(
				    stderr,
				    "bench_heartbeat: only %ld of %zu nodes joined by the window\n",
				    joined, b.n);
		}
		if (now >= b.win_end)
			break;
		if (nl_loop_step(b.loop, 50) < 0)
			bench_die("nl_loop_step failed");
	}
	double cpu = self_cpu_seconds() - cpu0;
	double srv = server_pid ? proc_cpu_seconds(server_pid) - srv0 : 0;
	/* Renewals due in the window that have not completed are missed. */
	long overdue = 0;
	int64_t end = bench_now_ns();
	for (size_t i = 0; i < b.n; i++)
		if (b.nodes[i].in_sync && b.nodes[i].due_ns < end - 1000000000LL)
			overdue++;
	double p50 = bench_percentile(b.lat_ms, b.nlat, 50),
	       p99 = bench_percentile(b.lat_ms, b.nlat, 99);
	printf("nodes=%zu interval_s=%.1f window_s=%.0f connections=%ld update=%s renewals=%ld "
	       "renewals_per_s=%.0f p50_ms=%.2f p99_ms=%.2f max_ms=%.2f missed=%ld creates=%ld "
	       "create_failures=%ld joined_at_window=%ld client_cpu_pct=%.0f "
	       "client_cpu_us_per_renewal=%.1f client_rss_kib=%ld client_bytes_per_node=%.0f "
	       "server_cpu_pct=%.0f server_rss_kib=%ld\n",
	       b.n, (double)b.interval_ns / 1e9, window_s, connections,
	       b.tree_update ? "tree" : "text", b.renewals, (double)b.renewals / window_s, p50, p99,
	       b.max_ms, b.failures + overdue, b.creates, b.create_failures, joined,
	       100.0 * cpu / window_s, b.renewals ? cpu * 1e6 / (double)b.renewals : 0.0,
	       bench_proc_kib(getpid(), "VmRSS"),
	       1024.0 * (double)(rss_joined - b.rss0_kib) / (double)b.n, 100.0 * srv / window_s,
	       server_pid ? bench_proc_kib((pid_t)server_pid, "VmRSS") : -1);
	fflush(stdout);
	/* Syncs still in flight live on coroutine stacks: leave without
	 * unwinding them; the process ends here. */
	_exit(0);
}
