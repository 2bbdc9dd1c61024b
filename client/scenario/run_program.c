/* `run: {command: [...]}` (run_internal.h): one of the user's programs,
 * started with the scenario's kubeconfig in KUBECONFIG, under the
 * scenario's faults, its requests in the journal like the agents'.
 *
 * A program lives on real time and reaches the server over a real socket
 * (the embedded server listens on one, in its own threads). While it runs,
 * the scenario's clock follows real time: the runner advances it by the
 * real time that passed, every few milliseconds, so the agents' timers
 * and the server's controllers keep pace with the program
 * (docs/decisions/0047-scenario-programs-and-several-agents.md). */
#include <errno.h>
#include <fcntl.h>
#include <nodelet/time.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run_internal.h"

extern char **environ;

/* How much of a program's stdout and stderr the report keeps (each). */
#define OUTPUT_MAX (64u * 1024u)
/* How often the clock catches up with real time while a program runs. */
#define SLICE_MS 5
/* After the timeout's SIGTERM, how long before SIGKILL. */
#define KILL_GRACE_USEC (2 * NL_USEC_PER_SEC)
#define OUTPUT_GRACE_USEC NL_USEC_PER_SEC

typedef struct {
	pid_t pid;
	int fd[2]; /* stdout, stderr; -1 once closed */
	nl_buf out[2];
	int status; /* waitpid's, once exited */
	int exited;
} program;

static int64_t mono_usec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NL_USEC_PER_SEC + ts.tv_nsec / 1000;
}

/* The kubeconfig programs get, written once per scenario. */
static int kubeconfig(const char **use, nl_scn__run *r, nl_err *err)
{
	if (!r->work_dir[0]) {
		const char *tmp = getenv("TMPDIR");
		snprintf(r->work_dir, sizeof(r->work_dir), "%s/nodelet-scenario-XXXXXX",
		         tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(r->work_dir)) {
			r->work_dir[0] = '\0';
			return nl_err_set(err, NL_EIO, "cannot create a temporary directory: %s",
			                  strerror(errno));
		}
	}
	if (!r->kubeconfig[0]) {
		int rc;
		snprintf(r->kubeconfig, sizeof(r->kubeconfig), "%s/kubeconfig", r->work_dir);
		if ((rc = nl_scn_target_kubeconfig(use, r->target, r->kubeconfig, err)) != 0 ||
		    *use != r->kubeconfig) {
			r->kubeconfig[0] = '\0'; /* nothing of ours to remove */
			return rc;
		}
	}
	*use = r->kubeconfig;
	return 0;
}

/* environ, less the names the step sets, plus KUBECONFIG and the step's
 * env (new array of new strings; free_env). */
static char **make_env(const char *kubeconfig, json_object *env)
{
	size_t n = 0, k = 0;
	while (environ[n])
		n++;
	size_t extra = env ? (size_t)json_object_object_length(env) : 0;
	char **out = calloc(n + extra + 2, sizeof(*out));
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(environ[i], '=');
		size_t len = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
		char name[256];
		snprintf(name, sizeof(name), "%.*s", (int)len, environ[i]);
		if (strcmp(name, "KUBECONFIG") == 0 ||
		    (env && json_object_object_get_ex(env, name, NULL)))
			continue;
		out[k++] = strdup(environ[i]);
	}
	if (asprintf(&out[k++], "KUBECONFIG=%s", kubeconfig) < 0)
		out[k - 1] = NULL;
	if (env) {
		json_object_object_foreach(env, key, val)
		{
			if (asprintf(&out[k++], "%s=%s", key, json_object_get_string(val)) < 0)
				out[k - 1] = NULL;
		}
	}
	for (size_t i = 0; i < k; i++)
		if (!out[i]) {
			for (size_t j = 0; j < k; j++)
				free(out[j]);
			free(out);
			return NULL;
		}
	return out;
}

static void free_env(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

static char **make_argv(json_object *command)
{
	size_t n = json_object_array_length(command);
	char **argv = calloc(n + 1, sizeof(*argv));
	for (size_t i = 0; argv && i < n; i++)
		argv[i] = (char *)json_object_get_string(json_object_array_get_idx(command, i));
	return argv;
}

/* posix_spawnp with stdout and stderr on pipes, stdin on /dev/null. */
static int start(program *p, json_object *command, char **env, nl_err *err)
{
	int po[2] = {-1, -1}, pe[2] = {-1, -1}, rc;
	posix_spawn_file_actions_t fa;
	char **argv = make_argv(command);
	if (!argv)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	if (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0) {
		rc = nl_err_set(err, NL_EIO, "pipe: %s", strerror(errno));
		goto out;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	int e = posix_spawnp(&p->pid, argv[0], &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	if (e != 0) {
		rc = nl_err_set(err, NL_EIO, "cannot start %s: %s", argv[0], strerror(e));
		goto out;
	}
	p->fd[0] = po[0];
	p->fd[1] = pe[0];
	po[0] = pe[0] = -1;
	rc = 0;
out:
	for (int i = 0; i < 2; i++) {
		if (po[i] >= 0)
			close(po[i]);
		if (pe[i] >= 0)
			close(pe[i]);
	}
	free(argv);
	return rc;
}

/* Read what is there (at most timeout_ms of waiting); close at EOF. */
static void read_output(program *p, int timeout_ms)
{
	struct pollfd pf[2];
	char buf[4096];
	nfds_t n = 0;
	int which[2];
	for (int i = 0; i < 2; i++)
		if (p->fd[i] >= 0) {
			pf[n] = (struct pollfd){p->fd[i], POLLIN, 0};
			which[n++] = i;
		}
	if (n == 0) {
		if (timeout_ms > 0)
			poll(NULL, 0, timeout_ms);
		return;
	}
	if (poll(pf, n, timeout_ms) <= 0)
		return;
	for (nfds_t j = 0; j < n; j++) {
		int i = which[j];
		if (!(pf[j].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		ssize_t got = read(p->fd[i], buf, sizeof(buf));
		if (got > 0 && p->out[i].len < OUTPUT_MAX)
			nl_buf_add(&p->out[i], buf,
			           (size_t)got < OUTPUT_MAX - p->out[i].len
			               ? (size_t)got
			               : OUTPUT_MAX - p->out[i].len);
		else if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) {
			close(p->fd[i]);
			p->fd[i] = -1;
		}
	}
}

/* The clock catches up with real time: the agents' timers and the
 * server's controllers run as they would have. */
static void follow_real_time(nl_scn__run *r, int64_t *last)
{
	int64_t now = mono_usec();
	if (now > *last)
		nl_scn__run_pass_time(r, r->fake ? now - *last : 0);
	*last = now;
}

/* Run until exit or the timeout; 1 when it timed out (killed). Output a
 * grandchild keeps open is read for at most OUTPUT_GRACE_USEC after the
 * program exits. */
static int wait_program(nl_scn__run *r, program *p, int64_t timeout_usec)
{
	int64_t started = mono_usec(), last = started, killed_at = 0, exited_at = 0;
	for (;;) {
		read_output(p, SLICE_MS);
		follow_real_time(r, &last);
		int64_t now = mono_usec();
		if (!p->exited && waitpid(p->pid, &p->status, WNOHANG) == p->pid) {
			p->exited = 1;
			exited_at = now;
		}
		if (p->exited &&
		    ((p->fd[0] < 0 && p->fd[1] < 0) || now - exited_at >= OUTPUT_GRACE_USEC))
			return killed_at != 0;
		if (!p->exited && !killed_at && now - started >= timeout_usec) {
			kill(p->pid, SIGTERM);
			killed_at = now;
		} else if (!p->exited && killed_at && now - killed_at >= KILL_GRACE_USEC) {
			kill(p->pid, SIGKILL);
		}
	}
}

static void report_output(nl_scn__run *r, program *p)
{
	static const char *const names[] = {"stdout", "stderr"};
	for (int i = 0; i < 2; i++) {
		if (!p->out[i].len)
			continue;
		nl_buf_printf(&r->detail, "the program's %s:\n", names[i]);
		/* Indented, so the report's YAML block stays one block. */
		const char *s = p->out[i].data, *end = s + p->out[i].len;
		while (s < end) {
			const char *nl = memchr(s, '\n', (size_t)(end - s));
			size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
			nl_buf_printf(&r->detail, "  %.*s\n", (int)len, s);
			s += len + (nl ? 1 : 0);
		}
	}
}

static int judge(nl_scn__run *r, const nl_scn_step *st, program *p, int timed_out)
{
	char d[NL_DURATION_BUFSZ];
	json_object *x;
	int want = json_object_object_get_ex(st->arg, "exit", &x) ? json_object_get_int(x) : 0;
	const char *prog = json_object_get_string(
	    json_object_array_get_idx(json_object_object_get(st->arg, "command"), 0));
	if (timed_out) {
		nl_duration_format(d, st->usec);
		nl_scn__run_fail(r, st, NULL, "%s did not exit within %s (killed)", prog, d);
	} else if (WIFSIGNALED(p->status)) {
		nl_scn__run_fail(r, st, NULL, "%s was killed by signal %d", prog,
		                 WTERMSIG(p->status));
	} else if (WEXITSTATUS(p->status) != want) {
		nl_scn__run_fail(r, st, NULL, "%s exited with status %d, expected %d", prog,
		                 WEXITSTATUS(p->status), want);
	} else {
		return 0;
	}
	report_output(r, p);
	return 1;
}

int nl_scn__run_program(nl_scn__run *r, const nl_scn_step *st)
{
	json_object *arg = NULL;
	const char *kc = NULL;
	program p = {0, {-1, -1}, {{0}}, 0, 0};
	nl_err err = {0};
	char **env = NULL;
	int rc = 1;
	if (nl_scn__run_expand(&arg, r, st, NULL, st->arg))
		return 1;
	nl_buf_init(&p.out[0], 0);
	nl_buf_init(&p.out[1], 0);
	if (kubeconfig(&kc, r, &err) != 0) {
		nl_scn__run_fail(r, st, NULL, "cannot write the kubeconfig: %s", err.msg);
		goto out;
	}
	if (!(env = make_env(kc, json_object_object_get(arg, "env")))) {
		nl_scn__run_fail(r, st, NULL, "out of memory");
		goto out;
	}
	if (start(&p, json_object_object_get(arg, "command"), env, &err) != 0) {
		nl_scn__run_fail(r, st, NULL, "%s", err.msg);
		goto out;
	}
	int timed_out = wait_program(r, &p, st->usec);
	nl_scn_step expanded = *st;
	expanded.arg = arg;
	rc = judge(r, &expanded, &p, timed_out);
out:
	for (int i = 0; i < 2; i++) {
		if (p.fd[i] >= 0)
			close(p.fd[i]);
		nl_buf_free(&p.out[i]);
	}
	free_env(env);
	json_object_put(arg);
	return rc;
}
