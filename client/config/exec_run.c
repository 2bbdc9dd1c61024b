/* Running a credential plugin the way Go's os/exec does (fork, execve, no
 * shell), with what client-go lacks for a long-running agent: a deadline, a
 * cap on stdout, and no descriptor of the agent (sockets, the API server
 * connection) leaking into the plugin. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int executable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && !S_ISDIR(st.st_mode) && access(path, X_OK) == 0;
}

int nl__exec_lookpath(char **out, const char *cmd, int *nomem)
{
	*out = NULL;
	*nomem = 0;
	if (strchr(cmd, '/')) {
		if (!executable(cmd))
			return -1;
		*out = strdup(cmd);
		*nomem = !*out;
		return *out ? 0 : -1;
	}
	const char *p = getenv("PATH");
	while (p && *cmd) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char *dir = n ? strndup(p, n) : strdup(".");
		char *full = dir ? nl__path_join(dir, cmd) : NULL;
		free(dir);
		if (!full) {
			*nomem = 1;
			return -1;
		}
		if (executable(full)) {
			/* Go refuses a match found through a relative $PATH entry
			 * (exec.ErrDot): the current directory is not trusted. */
			if (full[0] != '/') {
				free(full);
				return -1;
			}
			*out = full;
			return 0;
		}
		free(full);
		if (!end)
			break;
		p = end + 1;
	}
	return -1;
}

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Keep our descriptors away from 0-2 so the child's dup2 onto them cannot
 * clobber one with another (possible when the agent runs with stdio closed). */
static int high_fd(int fd)
{
	if (fd < 0 || fd > 2)
		return fd;
	int nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return nfd;
}

struct spawn {
	int in_fd;  /* /dev/null */
	int out[2]; /* stdout pipe */
	int err[2]; /* execve's errno, closed by a successful exec (CLOEXEC) */
	long max_fd;
};

static void close_spawn(struct spawn *s)
{
	int *fds[] = {&s->in_fd, &s->out[0], &s->out[1], &s->err[0], &s->err[1]};
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

static int open_spawn(struct spawn *s)
{
	s->in_fd = s->out[0] = s->out[1] = s->err[0] = s->err[1] = -1;
	if (pipe2(s->out, O_CLOEXEC) || pipe2(s->err, O_CLOEXEC))
		return -1;
	s->in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	s->in_fd = high_fd(s->in_fd);
	s->out[0] = high_fd(s->out[0]);
	s->out[1] = high_fd(s->out[1]);
	s->err[0] = high_fd(s->err[0]);
	s->err[1] = high_fd(s->err[1]);
	if (s->in_fd < 0 || s->out[0] < 0 || s->out[1] < 0 || s->err[0] < 0 || s->err[1] < 0)
		return -1;
	s->max_fd = sysconf(_SC_OPEN_MAX);
	if (s->max_fd < 0 || s->max_fd > 65536)
		s->max_fd = 65536;
	return 0;
}

/* Everything above 2 except the errno pipe goes (that one is CLOEXEC and
 * tells the parent whether execve happened). close_range when the kernel has
 * it, else one close per possible descriptor. */
static void close_others(const struct spawn *s)
{
	unsigned keep = (unsigned)s->err[1];
#ifdef SYS_close_range
	if ((keep == 3 || syscall(SYS_close_range, 3u, keep - 1, 0u) == 0) &&
	    syscall(SYS_close_range, keep + 1, ~0u, 0u) == 0)
		return;
#endif
	for (int fd = 3; fd < s->max_fd; fd++)
		if ((unsigned)fd != keep)
			close(fd);
}

/* Between fork and execve only async-signal-safe calls: the agent may have
 * other threads holding locks. */
__attribute__((noreturn)) static void child(const struct spawn *s, const char *path,
                                            char *const argv[], char *const envp[])
{
	sigset_t none;
	int e;
	setpgid(0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (dup2(s->in_fd, 0) < 0 || dup2(s->out[1], 1) < 0)
		goto fail;
	close_others(s);
	execve(path, argv, envp);
fail:
	e = errno;
	(void)!write(s->err[1], &e, sizeof(e));
	_exit(127);
}

/* Read stdout until EOF, the deadline or the cap. */
static int read_output(nl_buf *out, int fd, int64_t deadline)
{
	char chunk[4096];
	for (;;) {
		int64_t left = deadline - mono_ms();
		if (left <= 0)
			return NL_ETIMEOUT;
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int n = poll(&p, 1, left > INT32_MAX ? INT32_MAX : (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return NL_EIO;
		if (n == 0)
			return NL_ETIMEOUT;
		ssize_t r = read(fd, chunk, sizeof(chunk));
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0)
			return NL_EIO;
		if (r == 0)
			return 0;
		int rc = nl_buf_add(out, chunk, (size_t)r);
		if (rc)
			return rc;
	}
}

static void kill_group(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
}

/* Reap the child; past the deadline it is killed first. */
static int reap(pid_t pid, int64_t deadline, int *status)
{
	int timed_out = 0;
	for (;;) {
		pid_t r = waitpid(pid, status, timed_out ? 0 : WNOHANG);
		if (r == pid)
			return timed_out ? NL_ETIMEOUT : 0;
		if (r < 0 && errno != EINTR)
			return NL_EIO;
		if (r == 0 && mono_ms() >= deadline) {
			kill_group(pid);
			timed_out = 1;
		} else if (r == 0) {
			struct timespec ts = {0, 5 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
	}
}

/* errno from the child's failed execve, or 0 when the exec happened. */
static int exec_errno(int fd)
{
	int e = 0;
	ssize_t r;
	do
		r = read(fd, &e, sizeof(e));
	while (r < 0 && errno == EINTR);
	return r == (ssize_t)sizeof(e) ? e : 0;
}

static int report(int rc, int status, int exec_err, const char *cmd, int timeout_ms, size_t max,
                  nl_err *err)
{
	if (exec_err)
		return nl_err_set(err, NL_ERROR, "exec: fork/exec %s: %s", cmd, strerror(exec_err));
	if (rc == NL_ETIMEOUT)
		return nl_err_set(err, rc, "exec: executable %s did not finish within %d ms", cmd,
		                  timeout_ms);
	if (rc == NL_ETOOBIG)
		return nl_err_set(
		    err, rc, "exec: executable %s wrote more than %zu bytes to stdout", cmd, max);
	if (rc == NL_ENOMEM)
		return nl_err_set(err, rc, "out of memory");
	if (rc)
		return nl_err_set(err, rc, "exec: executable %s: reading its output failed", cmd);
	if (WIFSIGNALED(status))
		return nl_err_set(err, NL_ERROR, "exec: executable %s failed: killed by signal %d",
		                  cmd, WTERMSIG(status));
	if (WEXITSTATUS(status) != 0)
		return nl_err_set(err, NL_ERROR, "exec: executable %s failed with exit code %d",
		                  cmd, WEXITSTATUS(status));
	return 0;
}

int nl__exec_run(nl_buf *out, const char *cmd, const char *path, char *const argv[],
                 char *const envp[], int timeout_ms, size_t max, nl_err *err)
{
	struct spawn s;
	int status = 0;
	int64_t deadline = mono_ms() + timeout_ms;
	nl_buf_init(out, max);
	if (open_spawn(&s)) {
		int e = errno;
		close_spawn(&s);
		return nl_err_set(err, NL_EIO, "exec: pipe: %s", strerror(e));
	}
	pid_t pid = fork();
	if (pid == 0)
		child(&s, path, argv, envp);
	if (pid < 0) {
		int e = errno;
		close_spawn(&s);
		return nl_err_set(err, NL_ERROR, "exec: fork/exec %s: %s", cmd, strerror(e));
	}
	close(s.out[1]);
	close(s.err[1]);
	s.out[1] = s.err[1] = -1;
	int rc = read_output(out, s.out[0], deadline);
	if (rc)
		kill_group(pid);
	int wrc = reap(pid, deadline, &status);
	int exec_err = exec_errno(s.err[0]);
	close_spawn(&s);
	if (!rc)
		rc = wrc;
	rc = report(rc, status, exec_err, cmd, timeout_ms, max, err);
	if (rc)
		nl_buf_free(out);
	return rc;
}
