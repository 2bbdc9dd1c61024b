/* The bare libmicrohttpd anchor: answers every request with the same bytes
 * (body file, Content-Type, Cache-Control) from one persistent response, in
 * the threading mode asked for. It does the least an MHD server can do per
 * request, so its requests/s is the ceiling for nodelet-mockapi's design
 * (issue 11): the mock can beat it only by doing less.
 *
 * bench_anchor --mode MODE --body FILE [--port N] [--threads N]
 *              [--content-type TYPE]
 * MODE: epoll-pool, poll-pool, select-pool, epoll, thread-per-connection.
 * Prints "listening on PORT" and serves until SIGINT/SIGTERM. */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

typedef struct {
	const char *name;
	unsigned flags;
	int pool; /* MHD_OPTION_THREAD_POOL_SIZE applies */
} anchor_mode;

static const anchor_mode modes[] = {
    {"epoll-pool", MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, 1},
    {"poll-pool", MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL, 1},
    {"select-pool", MHD_USE_INTERNAL_POLLING_THREAD, 1},
    {"epoll", MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, 0},
    {"thread-per-connection",
     MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL, 0},
};

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **con_cls)
{
	static int seen;
	(void)url, (void)method, (void)version, (void)upload;
	/* Answering on the first call, before MHD has the whole request, makes
	 * MHD 0.9.75 close the connection: keep-alive needs the second call. */
	if (!*con_cls) {
		*con_cls = &seen;
		return MHD_YES;
	}
	if (*upload_size) { /* drain any body */
		*upload_size = 0;
		return MHD_YES;
	}
	return MHD_queue_response(conn, MHD_HTTP_OK, cls);
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	if (fseek(f, 0, SEEK_END) == 0) {
		long n = ftell(f);
		if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) &&
		    fread(buf, 1, (size_t)n, f) == (size_t)n) {
			*len = (size_t)n;
		} else {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

static const anchor_mode *find_mode(const char *name)
{
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strcmp(modes[i].name, name) == 0)
			return &modes[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode_name = "epoll-pool", *body_path = NULL;
	const char *content_type = "application/json";
	unsigned port = 0, threads = 2;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--mode") == 0)
			mode_name = argv[i + 1];
		else if (strcmp(argv[i], "--body") == 0)
			body_path = argv[i + 1];
		else if (strcmp(argv[i], "--port") == 0)
			port = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--threads") == 0)
			threads = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--content-type") == 0)
			content_type = argv[i + 1];
		else
			bench_die("bench_anchor: unknown flag %s", argv[i]);
	}
	const anchor_mode *mode = find_mode(mode_name);
	if (!mode || !body_path)
		bench_die("usage: bench_anchor --mode MODE --body FILE [--port N] [--threads N]");
	size_t len = 0;
	char *body = read_file(body_path, &len);
	if (!body)
		bench_die("cannot read %s", body_path);

	struct MHD_Response *resp =
	    MHD_create_response_from_buffer(len, body, MHD_RESPMEM_PERSISTENT);
	if (!resp || MHD_add_response_header(resp, "Content-Type", content_type) != MHD_YES ||
	    MHD_add_response_header(resp, "Cache-Control", "no-cache, private") != MHD_YES)
		bench_die("cannot build the response");

	/* Block the signals before MHD starts its threads so sigwait sees them. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	/* Loopback only, like the mock's default bind address. */
	struct sockaddr_in sa;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	struct MHD_Daemon *d;
	if (mode->pool)
		d = MHD_start_daemon(mode->flags, 0, NULL, NULL, answer, resp, MHD_OPTION_SOCK_ADDR,
		                     &sa, MHD_OPTION_THREAD_POOL_SIZE, threads,
		                     MHD_OPTION_CONNECTION_LIMIT, 4096u, MHD_OPTION_END);
	else
		d = MHD_start_daemon(mode->flags, 0, NULL, NULL, answer, resp, MHD_OPTION_SOCK_ADDR,
		                     &sa, MHD_OPTION_CONNECTION_LIMIT, 4096u, MHD_OPTION_END);
	if (!d)
		bench_die("cannot start libmicrohttpd in mode %s", mode->name);
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	printf("listening on %u\n", info ? (unsigned)info->port : port);
	fflush(stdout);

	int sig;
	sigwait(&set, &sig);
	MHD_stop_daemon(d);
	MHD_destroy_response(resp);
	free(body);
	return 0;
}
