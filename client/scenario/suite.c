/* Scenario suites (suite.h). Each scenario runs in a child process: a
 * crash or a hang fails that scenario only, its logs are kept apart, and
 * -j N runs N at once, each with its own embedded server on its own port. */
#include "suite.h"

#include <errno.h>
#include <fnmatch.h>
#include <ftw.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Lines of a failed scenario's log shown with its result. */
#define LOG_TAIL_LINES 40

/* --- loading ------------------------------------------------------------------------------ */

static char **found;
static size_t nfound, capfound;

static int add_file(const char *path)
{
	if (nfound == capfound) {
		size_t ncap = capfound ? capfound * 2 : 64;
		char **n = realloc(found, ncap * sizeof(*n));
		if (!n)
			return NL_ENOMEM;
		found = n;
		capfound = ncap;
	}
	if (!(found[nfound] = strdup(path)))
		return NL_ENOMEM;
	nfound++;
	return 0;
}

static int is_yaml(const char *path)
{
	size_t n = strlen(path);
	return (n > 5 && strcmp(path + n - 5, ".yaml") == 0) ||
	       (n > 4 && strcmp(path + n - 4, ".yml") == 0);
}

static int visit(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return flag == FTW_F && is_yaml(path) ? add_file(path) : 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int collect(char **paths, size_t npaths, nl_err *err)
{
	struct stat st;
	for (size_t i = 0; i < npaths; i++) {
		size_t before = nfound;
		int rc;
		if (stat(paths[i], &st) != 0)
			return nl_err_set(err, NL_EIO, "%s: %s", paths[i], strerror(errno));
		rc = S_ISDIR(st.st_mode) ? nftw(paths[i], visit, 16, FTW_PHYS) : add_file(paths[i]);
		if (rc != 0)
			return nl_err_set(err, NL_ENOMEM, "out of memory");
		/* found is NULL while nothing is found: qsort must not see it. */
		if (nfound > before)
			qsort(found + before, nfound - before, sizeof(*found), by_name);
	}
	return 0;
}

int nl_scn_suite_load(nl_scn_suite *s, char **paths, size_t npaths, const char *fixtures_dir,
                      nl_err *err)
{
	int rc = collect(paths, npaths, err);
	memset(s, 0, sizeof(*s));
	if (rc == 0 && nfound && !(s->items = calloc(nfound, sizeof(*s->items))))
		rc = nl_err_set(err, NL_ENOMEM, "out of memory");
	for (size_t i = 0; rc == 0 && i < nfound; i++) {
		nl_scn_suite_item *it = &s->items[s->n++];
		nl_err perr = {0};
		it->file = found[i];
		found[i] = NULL;
		if (nl_scn_load(&it->sc, it->file, fixtures_dir, &perr) == 0) {
			it->name = strdup(it->sc->name);
		} else {
			it->name = strdup(it->file);
			it->result.outcome = NL_OUTCOME_FAIL;
			it->result.message = strdup(perr.msg);
			it->done = 1;
		}
	}
	for (size_t i = 0; i < nfound; i++)
		free(found[i]);
	free(found);
	found = NULL;
	nfound = capfound = 0;
	return rc;
}

void nl_scn_suite_free(nl_scn_suite *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->items[i].file);
		free(s->items[i].name);
		nl_scn_free(s->items[i].sc);
		nl_scn_run_result_clear(&s->items[i].result);
	}
	free(s->items);
	memset(s, 0, sizeof(*s));
}

static int selected(const nl_scn_suite_item *it, char **patterns, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (fnmatch(patterns[i], it->name, 0) == 0 ||
		    fnmatch(patterns[i], it->file, 0) == 0)
			return 1;
		for (size_t t = 0; it->sc && t < it->sc->ntags; t++)
			if (fnmatch(patterns[i], it->sc->tags[t], 0) == 0)
				return 1;
	}
	return 0;
}

void nl_scn_suite_filter(nl_scn_suite *s, char **patterns, size_t n)
{
	size_t kept = 0;
	if (n == 0)
		return;
	for (size_t i = 0; i < s->n; i++) {
		if (selected(&s->items[i], patterns, n)) {
			s->items[kept++] = s->items[i];
			continue;
		}
		free(s->items[i].file);
		free(s->items[i].name);
		nl_scn_free(s->items[i].sc);
		nl_scn_run_result_clear(&s->items[i].result);
	}
	s->n = kept;
}

/* --- results across a process boundary ---------------------------------------------------- */

static void put_string(json_object *o, const char *key, const char *v)
{
	if (v)
		json_object_object_add(o, key, json_object_new_string(v));
}

static void write_result(FILE *f, const nl_scn_run_result *r)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "outcome", json_object_new_int((int)r->outcome));
	put_string(o, "message", r->message);
	put_string(o, "detail", r->detail);
	put_string(o, "journal", r->journal);
	if (r->timeline)
		json_object_object_add(o, "timeline", json_object_get(r->timeline));
	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), f);
	fflush(f);
	json_object_put(o);
}

static char *read_all(FILE *f)
{
	long len;
	char *buf;
	if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
	    !(buf = malloc((size_t)len + 1)))
		return NULL;
	size_t got = fread(buf, 1, (size_t)len, f);
	buf[got] = '\0';
	return buf;
}

static char *get_string(json_object *o, const char *key)
{
	json_object *v;
	return json_object_object_get_ex(o, key, &v) ? strdup(json_object_get_string(v)) : NULL;
}

static int read_result(nl_scn_run_result *r, FILE *f)
{
	char *text = read_all(f);
	json_object *o = text ? json_tokener_parse(text) : NULL, *v;
	free(text);
	if (!o)
		return NL_EPARSE;
	r->outcome = json_object_object_get_ex(o, "outcome", &v)
	                 ? (nl_scn_outcome)json_object_get_int(v)
	                 : NL_OUTCOME_FAIL;
	r->message = get_string(o, "message");
	r->detail = get_string(o, "detail");
	r->journal = get_string(o, "journal");
	if (json_object_object_get_ex(o, "timeline", &v))
		r->timeline = json_object_get(v);
	json_object_put(o);
	return 0;
}

/* The last lines of a child's log, appended to its detail. */
static void add_log_tail(nl_scn_run_result *r, FILE *log)
{
	char *text = read_all(log);
	if (!text || !*text) {
		free(text);
		return;
	}
	size_t len = strlen(text), lines = 0;
	char *start = text + len;
	while (start > text && lines <= LOG_TAIL_LINES)
		if (*--start == '\n')
			lines++;
	if (*start == '\n')
		start++;
	size_t dlen = r->detail ? strlen(r->detail) : 0;
	char *d = malloc(dlen + strlen(start) + 32);
	if (d) {
		sprintf(d, "%s%slog:\n%s", r->detail ? r->detail : "",
		        dlen && r->detail[dlen - 1] != '\n' ? "\n" : "", start);
		free(r->detail);
		r->detail = d;
	}
	free(text);
}

/* --- running -------------------------------------------------------------------------------------
 */

typedef struct {
	pid_t pid;
	size_t index;
	FILE *result, *log, *progress;
	double start;
	double deadline;
} child;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void fail_result(nl_scn_run_result *r, const char *msg)
{
	nl_scn_run_result_clear(r);
	r->outcome = NL_OUTCOME_FAIL;
	r->message = strdup(msg);
}

/* The step a child is at, where its parent finds it if it must kill it. */
static void note_step(const char *where, void *payload)
{
	FILE *f = payload;
	rewind(f);
	if (ftruncate(fileno(f), 0) == 0)
		fputs(where, f);
	fflush(f);
}

static int spawn(child *c, nl_scn_suite *s, size_t i, const nl_scn_suite_options *o)
{
	nl_scn_suite_item *it = &s->items[i];
	c->index = i;
	c->result = tmpfile();
	c->log = tmpfile();
	c->progress = tmpfile();
	if (!c->result || !c->log || !c->progress)
		return NL_EIO;
	fflush(stdout);
	fflush(stderr);
	c->start = now_s();
	c->deadline = c->start + (double)it->sc->timeout_usec / 1e6;
	c->pid = fork();
	if (c->pid < 0)
		return NL_EIO;
	if (c->pid == 0) {
		nl_scn_run_result r;
		nl_scn_run_options ro = o->run;
		dup2(fileno(c->log), STDOUT_FILENO);
		dup2(fileno(c->log), STDERR_FILENO);
		signal(SIGPIPE, SIG_IGN);
		ro.on_step = note_step;
		ro.step_payload = c->progress;
		nl_scn_run(&r, it->sc, &ro);
		write_result(c->result, &r);
		_exit(0);
	}
	return 0;
}

static void finish(child *c, nl_scn_suite *s, int status, int timed_out)
{
	nl_scn_suite_item *it = &s->items[c->index];
	it->seconds = now_s() - c->start;
	char msg[900];
	if (timed_out) {
		char *at = read_all(c->progress);
		snprintf(msg, sizeof(msg),
		         "timed out after %.0fs%s%s (raise the scenario's timeout:)",
		         (double)it->sc->timeout_usec / 1e6, at && *at ? " in " : "", at ? at : "");
		free(at);
		fail_result(&it->result, msg);
	} else if (WIFSIGNALED(status)) {
		snprintf(msg, sizeof(msg), "the scenario's process was killed by signal %d",
		         WTERMSIG(status));
		fail_result(&it->result, msg);
	} else if (read_result(&it->result, c->result) != 0) {
		snprintf(msg, sizeof(msg), "the scenario's process exited with status %d",
		         WEXITSTATUS(status));
		fail_result(&it->result, msg);
	}
	if (it->result.outcome == NL_OUTCOME_FAIL)
		add_log_tail(&it->result, c->log);
	fclose(c->result);
	fclose(c->log);
	fclose(c->progress);
	it->done = 1;
	c->pid = 0;
}

/* 0, or -1 after saying on stderr why the journal is not written. */
static int write_journal(const nl_scn_suite_item *it, const char *dir)
{
	char path[4096];
	if (!dir || !it->result.journal)
		return 0;
	snprintf(path, sizeof(path), "%s/%s.journal", dir, it->name);
	FILE *f = fopen(path, "w");
	int bad = !f || fputs(it->result.journal, f) == EOF;
	if (f && fclose(f) != 0)
		bad = 1;
	if (bad)
		fprintf(stderr, "nodelet-scenario: --journal-dir: %s: %s\n", path, strerror(errno));
	return bad ? -1 : 0;
}

/* Report every finished item not yet reported, in order. */
static void flush_done(nl_scn_suite *s, size_t *next, const nl_scn_suite_options *o,
                       nl_suite_done_fn done, void *payload)
{
	while (*next < s->n && s->items[*next].done) {
		if (write_journal(&s->items[*next], o->journal_dir) != 0)
			s->journal_errors++;
		done(&s->items[*next], *next, payload);
		(*next)++;
	}
}

/* Decide the items that do not run: skipped ones. */
static void mark_skips(nl_scn_suite *s, const nl_scn_suite_options *o)
{
	char reason[512];
	for (size_t i = 0; i < s->n; i++) {
		nl_scn_suite_item *it = &s->items[i];
		if (it->done ||
		    !nl_scn_skip_reason(reason, sizeof(reason), it->sc, o->run.target.kind))
			continue;
		it->result.outcome = NL_OUTCOME_SKIP;
		it->result.message = strdup(reason);
		it->done = 1;
	}
}

static int run_inline(nl_scn_suite *s, const nl_scn_suite_options *o, nl_suite_done_fn done,
                      void *payload)
{
	size_t next = 0;
	for (size_t i = 0; i < s->n; i++) {
		nl_scn_suite_item *it = &s->items[i];
		if (!it->done) {
			double start = now_s();
			nl_scn_run(&it->result, it->sc, &o->run);
			it->seconds = now_s() - start;
			it->done = 1;
		}
		flush_done(s, &next, o, done, payload);
	}
	return 0;
}

static int reap(child *kids, unsigned jobs, nl_scn_suite *s)
{
	int status, reaped = 0;
	pid_t pid;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		for (unsigned k = 0; k < jobs; k++)
			if (kids[k].pid == pid) {
				finish(&kids[k], s, status, 0);
				reaped++;
			}
	double t = now_s();
	for (unsigned k = 0; k < jobs; k++)
		if (kids[k].pid > 0 && t > kids[k].deadline) {
			kill(kids[k].pid, SIGKILL);
			waitpid(kids[k].pid, &status, 0);
			finish(&kids[k], s, status, 1);
			reaped++;
		}
	return reaped;
}

int nl_scn_suite_run(nl_scn_suite *s, const nl_scn_suite_options *o, nl_suite_done_fn done,
                     void *payload)
{
	size_t next = 0, start_at = 0;
	unsigned running = 0, jobs = o->jobs;
	mark_skips(s, o);
	if (jobs == 0)
		return run_inline(s, o, done, payload);
	child *kids = calloc(jobs, sizeof(*kids));
	if (!kids)
		return NL_ENOMEM;
	int rc = 0;
	for (;;) {
		while (start_at < s->n && s->items[start_at].done)
			start_at++;
		if (start_at < s->n && running < jobs) {
			unsigned k = 0;
			while (kids[k].pid > 0)
				k++;
			if ((rc = spawn(&kids[k], s, start_at, o)) != 0)
				break;
			start_at++;
			running++;
			continue;
		}
		flush_done(s, &next, o, done, payload);
		if (running == 0 && start_at >= s->n)
			break;
		int n = reap(kids, jobs, s);
		running -= (unsigned)n;
		if (n == 0) {
			struct timespec ts = {0, 5 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
	}
	free(kids);
	return rc;
}
