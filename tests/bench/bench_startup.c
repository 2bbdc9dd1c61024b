/* Benchmark 6 of issue 11: process start → /readyz 200. Runs the mock RUNS
 * times with --port 0; each time from just before fork until a GET
 * /readyz on the port it prints answers 200, then stops it with SIGTERM.
 * Also reports the RSS of the idle, ready process (benchmark 5).
 *
 * bench_startup MOCKAPI RUNS */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_common.h"

/* GET /readyz on a fresh connection; the status code, or -1. */
static int readyz(unsigned port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	struct sockaddr_in a;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int one = 1, code = -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	static const char req[] = "GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n"
	                          "Connection: close\r\n\r\n";
	char buf[512];
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    write(fd, req, sizeof(req) - 1) == (ssize_t)(sizeof(req) - 1)) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		if (n > 12) {
			buf[n] = '\0';
			sscanf(buf, "HTTP/1.%*d %d", &code);
		}
	}
	close(fd);
	return code;
}

/* One start: the time to a 200 in ms, the ready process's RSS in *rss_kib;
 * -1 when the mock did not come up. */
static double one_start(const char *mock, long *rss_kib)
{
	int pipefd[2];
	if (pipe(pipefd) != 0)
		return -1;
	int64_t t0 = bench_now_ns();
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(pipefd[1], STDOUT_FILENO);
		/* Its shutdown log line is noise here. */
		int devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0)
			dup2(devnull, STDERR_FILENO);
		close(pipefd[0]);
		close(pipefd[1]);
		execl(mock, mock, "--port", "0", (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	FILE *out = fdopen(pipefd[0], "r");
	char line[256];
	unsigned port = 0;
	double ms = -1;
	/* "nodelet-mockapi listening on http://127.0.0.1:PORT", printed once
	 * the socket is bound. */
	if (out && fgets(line, sizeof(line), out)) {
		char *colon = strrchr(line, ':');
		port = colon ? (unsigned)strtoul(colon + 1, NULL, 10) : 0;
	}
	for (int tries = 0; port && tries < 10000; tries++) {
		if (readyz(port) == 200) {
			ms = (double)(bench_now_ns() - t0) / 1e6;
			break;
		}
		usleep(100);
	}
	*rss_kib = bench_proc_kib(pid, "VmRSS");
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	if (out)
		fclose(out);
	else
		close(pipefd[0]);
	return ms;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		bench_die("usage: bench_startup MOCKAPI RUNS");
	int runs = atoi(argv[2]);
	if (runs < 1 || runs > 1000)
		bench_die("RUNS must be 1..1000");
	double ms[1000];
	long rss[1000];
	for (int i = 0; i < runs; i++) {
		ms[i] = one_start(argv[1], &rss[i]);
		if (ms[i] < 0)
			bench_die("%s did not answer /readyz 200", argv[1]);
	}
	long rss_max = 0;
	for (int i = 0; i < runs; i++)
		rss_max = rss[i] > rss_max ? rss[i] : rss_max;
	double p50 = bench_percentile(ms, (size_t)runs, 50);
	printf("runs=%d median_ms=%.2f min_ms=%.2f max_ms=%.2f idle_rss_kib=%ld\n", runs, p50,
	       ms[0], ms[runs - 1], rss_max);
	return 0;
}
