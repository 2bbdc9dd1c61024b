/* soak_state: the nodelet-mockapi program killed with SIGKILL again and
 * again under concurrent writers, on one --state-file, cycling through
 * the three --sync-writes modes (docs/soak.md). Each writer owns its
 * ConfigMaps and creates, replaces and deletes them as fast as the server
 * answers; after each restart every acknowledged change must be there
 * (or, for the one request each writer had in flight at the kill, its
 * outcome), and the resourceVersion counter must be past every one
 * acknowledged before. SIGKILL leaves the kernel's page cache alone, so
 * no mode may lose anything here; the modes differ only when the machine
 * stops. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "soak_common.h"
#include "soak_http.h"

#define DEFAULT_SECONDS 60.0
#define NAMES_PER_WRITER 6
#define MAX_WRITERS 16
#define CM_PATH "/api/v1/namespaces/default/configmaps"

extern char **environ;

typedef enum { OP_NONE, OP_PUT, OP_DELETE } op_kind;

/* What the server holds for one name, as far as its writer knows. */
typedef struct {
	int present;
	long value;
	/* The request whose answer the kill took: it may or may not have
	 * been applied. */
	op_kind pending;
	long pending_value;
} name_state;

typedef struct {
	int id;
	const char *base;
	nl_rand rand;
	name_state names[NAMES_PER_WRITER];
	long next_value;
	uint64_t max_rv; /* the highest resourceVersion acknowledged to it */
	unsigned acked;
	volatile int *killed;
} writer;

/* $NL_MOCKAPI, else the program built beside this one (the build tree's
 * mockapi/, from tests/soak/), whatever the directory it runs in. */
static char mockapi[4096];

static void mockapi_find(const char *argv0)
{
	const char *p = getenv("NL_MOCKAPI");
	const char *slash = strrchr(argv0, '/');
	if (p && *p)
		snprintf(mockapi, sizeof(mockapi), "%s", p);
	else
		snprintf(mockapi, sizeof(mockapi), "%.*s%s../../mockapi/nodelet-mockapi",
		         slash ? (int)(slash - argv0) : 1, slash ? argv0 : ".", "/");
}

static const char *mockapi_path(void)
{
	return mockapi;
}

static uint64_t rv_of(json_object *obj)
{
	json_object *m = NULL, *rv = NULL;
	if (!json_object_object_get_ex(obj, "metadata", &m) ||
	    !json_object_object_get_ex(m, "resourceVersion", &rv))
		return 0;
	return strtoull(json_object_get_string(rv), NULL, 10);
}

static int value_of(json_object *obj, long *out)
{
	json_object *d = NULL, *v = NULL;
	if (!json_object_object_get_ex(obj, "data", &d) || !json_object_object_get_ex(d, "v", &v))
		return -1;
	*out = strtol(json_object_get_string(v), NULL, 10);
	return 0;
}

/* One change; 0 when acknowledged, 1 when the answer never came. */
static int one_change(writer *w, soak_http *h, int i)
{
	name_state *n = &w->names[i];
	char path[160], body[256], why[512];
	json_object *ans = NULL;
	long code;
	op_kind op = n->present && soak_rand_chance(&w->rand, 0.25) ? OP_DELETE : OP_PUT;
	long value = ++w->next_value;
	snprintf(path, sizeof(path), CM_PATH "/w%d-%d", w->id, i);
	snprintf(body, sizeof(body),
	         "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"w%d-%d\"},"
	         "\"data\":{\"v\":\"%ld\"}}",
	         w->id, i, value);
	if (op == OP_DELETE)
		code = soak_http_do(h, &ans, "DELETE", path, NULL, NULL, why, sizeof(why));
	else if (n->present)
		code = soak_http_do(h, &ans, "PUT", path, body, NULL, why, sizeof(why));
	else
		code = soak_http_do(h, &ans, "POST", CM_PATH, body, NULL, why, sizeof(why));
	if (code < 0) {
		if (!*w->killed)
			soak_fail("writer %d: %s before the kill: %s", w->id, path, why);
		n->pending = op;
		n->pending_value = value;
		json_object_put(ans);
		return 1;
	}
	if (code != 200 && code != 201) {
		soak_fail("writer %d: %s %s: HTTP %ld", w->id, op == OP_DELETE ? "DELETE" : "write",
		          path, code);
		json_object_put(ans);
		return 1;
	}
	uint64_t rv = rv_of(ans);
	if (rv > w->max_rv)
		w->max_rv = rv;
	n->present = op == OP_PUT;
	n->value = value;
	w->acked++;
	json_object_put(ans);
	return 0;
}

static void *writer_main(void *arg)
{
	writer *w = arg;
	soak_http *h = soak_http_new(w->base);
	if (!h)
		return NULL;
	for (;;) { /* until the kill takes the server away */
		int i = (int)soak_rand_range(&w->rand, 0, NAMES_PER_WRITER - 1);
		if (one_change(w, h, i) != 0)
			break;
	}
	soak_http_free(h);
	return NULL;
}

/* --- the program under test ---------------------------------------------------------------- */

typedef struct {
	pid_t pid;
	char url[128];
} mock_proc;

static int spawn_mock(mock_proc *m, const char *dir, const char *mode)
{
	char state[512], errlog[512];
	int out[2];
	snprintf(state, sizeof(state), "%s/state", dir);
	snprintf(errlog, sizeof(errlog), "%s/mock.err", dir);
	if (pipe(out) != 0)
		return -1;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_addclose(&fa, out[0]);
	posix_spawn_file_actions_addopen(&fa, 2, errlog, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	char *argv[] = {(char *)mockapi_path(),
	                "--port",
	                "0",
	                "--state-file",
	                state,
	                "--sync-writes",
	                (char *)mode,
	                "--sync-interval",
	                "50ms",
	                NULL};
	int rc = posix_spawn(&m->pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(out[1]);
	if (rc != 0) {
		close(out[0]);
		return -1;
	}
	FILE *f = fdopen(out[0], "r");
	char line[256];
	m->url[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "nodelet-mockapi listening on %127s", m->url) == 1)
			break;
	}
	if (f)
		fclose(f); /* the mock writes nothing more to stdout */
	else
		close(out[0]);
	if (!m->url[0]) {
		kill(m->pid, SIGKILL);
		waitpid(m->pid, NULL, 0);
		return -1;
	}
	return 0;
}

static void show_log(const char *dir)
{
	char p[512], line[512];
	snprintf(p, sizeof(p), "%s/mock.err", dir);
	FILE *f = fopen(p, "r");
	while (f && fgets(line, sizeof(line), f))
		fprintf(stderr, "  | %s", line);
	if (f)
		fclose(f);
}

/* --- after each restart ---------------------------------------------------------------------- */

/* Is what the server holds for w's name i what it acknowledged, or what
 * the request in flight at the kill would have made it? Then the writer
 * goes on from what is there. */
static void check_name(writer *w, soak_http *h, int i, int cycle)
{
	name_state *n = &w->names[i];
	char path[160], why[512];
	json_object *obj = NULL;
	snprintf(path, sizeof(path), CM_PATH "/w%d-%d", w->id, i);
	long code = soak_http_do(h, &obj, "GET", path, NULL, NULL, why, sizeof(why));
	long value = 0;
	int present = code == 200;
	if (code != 200 && code != 404) {
		soak_fail("restart %d: GET %s: %s", cycle, path, code < 0 ? why : "not 200/404");
		json_object_put(obj);
		return;
	}
	if (present && value_of(obj, &value) != 0)
		soak_fail("restart %d: %s has no data.v", cycle, path);
	json_object_put(obj);
	int as_acked = present == n->present && (!present || value == n->value);
	int as_pending = (n->pending == OP_PUT && present && value == n->pending_value) ||
	                 (n->pending == OP_DELETE && !present);
	if (!as_acked && !as_pending)
		soak_fail("restart %d: %s is %s (v=%ld); acknowledged: %s (v=%ld); in flight: %s "
		          "(v=%ld)",
		          cycle, path, present ? "present" : "absent", value,
		          n->present ? "present" : "absent", n->value,
		          n->pending == OP_PUT      ? "write"
		          : n->pending == OP_DELETE ? "delete"
		                                    : "none",
		          n->pending_value);
	n->present = present;
	n->value = value;
	n->pending = OP_NONE;
}

static uint64_t list_rv(soak_http *h, int cycle)
{
	char why[512];
	json_object *list = NULL;
	long code = soak_http_do(h, &list, "GET", CM_PATH, NULL, NULL, why, sizeof(why));
	uint64_t rv = code == 200 ? rv_of(list) : 0;
	if (code != 200)
		soak_fail("restart %d: LIST: %s", cycle, code < 0 ? why : "not 200");
	json_object_put(list);
	code = soak_http_do(h, NULL, "GET", "/api/v1/namespaces/default", NULL, NULL, why,
	                    sizeof(why));
	if (code != 200)
		soak_fail("restart %d: namespace default: HTTP %ld", cycle, code);
	return rv;
}

/* --- driver ---------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
	static const char *const modes[] = {"always", "batch", "never"};
	long kills = 30, nwriters = 4;
	soak_args a;
	soak_int_opt extra[] = {
	    {"kills", &kills, 3, 100000, "SIGKILL cycles (modes in turn)"},
	    {"writers", &nwriters, 1, MAX_WRITERS, "writer threads"},
	};
	int rc = soak_parse_args(&a, argc, argv, DEFAULT_SECONDS, extra, 2,
	                         "nodelet-mockapi killed with SIGKILL under writers, again and "
	                         "again, on one --state-file.");
	if (rc != 0)
		return rc == 1 ? 0 : 2;
	mockapi_find(argv[0]);
	if (access(mockapi_path(), X_OK) != 0) {
		printf("SKIP: %s not built\n", mockapi_path());
		return 77;
	}
	printf("%s: seed %llu, %ld kills, budget %.0f s\n", a.program, (unsigned long long)a.seed,
	       kills, a.seconds);
	fflush(stdout);
	char dir[] = "/tmp/nl-soak-state-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	signal(SIGPIPE, SIG_IGN);
	writer w[MAX_WRITERS];
	volatile int killed = 0;
	memset(w, 0, sizeof(w));
	for (int i = 0; i < nwriters; i++) {
		w[i].id = i;
		w[i].killed = &killed;
		nl_rand_seed(&w[i].rand, a.seed * 31u + (uint64_t)i);
	}
	nl_rand r;
	nl_rand_seed(&r, a.seed);
	soak_watchdog_start(30);
	double t0 = soak_real_now();
	uint64_t before = 0; /* the counter must pass it after every restart */
	unsigned acked = 0;
	long done = 0;
	for (long cycle = 0; cycle <= kills && soak_failures() == 0; cycle++) {
		mock_proc m;
		const char *mode = modes[cycle % 3];
		soak_watchdog_where("cycle %ld (%s)", cycle, mode);
		soak_watchdog_kick();
		if (spawn_mock(&m, dir, mode) != 0) {
			soak_fail("cycle %ld: nodelet-mockapi --sync-writes %s did not start",
			          cycle, mode);
			show_log(dir);
			break;
		}
		soak_http *h = soak_http_new(m.url);
		uint64_t rv = list_rv(h, (int)cycle);
		if (cycle > 0 && rv <= before)
			soak_fail("restart %ld: resourceVersion %" PRIu64 " not past %" PRIu64
			          " (acknowledged or served before the kill)",
			          cycle, rv, before);
		before = rv;
		for (int i = 0; i < nwriters; i++)
			for (int k = 0; k < NAMES_PER_WRITER; k++)
				check_name(&w[i], h, k, (int)cycle);
		soak_http_free(h);
		/* Past the budget, once each mode was killed (valgrind's runs). */
		if (soak_failures() || cycle == kills ||
		    (done >= 3 && soak_real_now() - t0 > a.seconds)) {
			/* The last start is stopped cleanly: status 0. */
			int status = 0;
			kill(m.pid, SIGTERM);
			waitpid(m.pid, &status, 0);
			if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
				soak_fail("SIGTERM: exit status %d", status);
			break;
		}
		killed = 0;
		pthread_t th[MAX_WRITERS];
		for (int i = 0; i < nwriters; i++) {
			w[i].base = m.url;
			pthread_create(&th[i], NULL, writer_main, &w[i]);
		}
		struct timespec ts = {0, (long)soak_rand_range(&r, 20, 250) * 1000000L};
		nanosleep(&ts, NULL);
		killed = 1;
		kill(m.pid, SIGKILL);
		waitpid(m.pid, NULL, 0);
		for (int i = 0; i < nwriters; i++)
			pthread_join(th[i], NULL);
		for (int i = 0; i < nwriters; i++)
			if (w[i].max_rv > before)
				before = w[i].max_rv;
		done++;
	}
	soak_watchdog_stop();
	for (int i = 0; i < nwriters; i++)
		acked += w[i].acked;
	printf("%s: %ld kills in %.1f s, %u acknowledged changes%s\n", a.program, done,
	       soak_real_now() - t0, acked,
	       soak_failures() ? "" : ", none lost; the counter never went back");
	if (soak_failures())
		show_log(dir);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "%s: cannot remove %s\n", a.program, dir);
	curl_global_cleanup();
	return soak_failures() ? 1 : 0;
}
