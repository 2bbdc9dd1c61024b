#include "fake_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_CONNS 512

typedef struct {
	fake_http *srv;
	int fd;
	unsigned id;
	pthread_t thread;
} conn;

struct fake_http {
	int lfd;
	char url[64];
	fake_http_handler handler;
	void *payload;
	pthread_t acceptor;
	pthread_mutex_t mu;
	conn *conns[MAX_CONNS];
	unsigned nconns;
	unsigned nreqs;
	int stopping;
};

static int write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int fake_http_reply(int fd, int code, const char *extra, const char *ct, const char *body)
{
	char head[4096];
	size_t blen = body ? strlen(body) : 0;
	int n = snprintf(head, sizeof(head), "HTTP/1.1 %d X\r\n%s%s%s%sContent-Length: %zu\r\n\r\n",
	                 code, ct ? "Content-Type: " : "", ct ? ct : "", ct ? "\r\n" : "",
	                 extra ? extra : "", blen);
	if (write_all(fd, head, (size_t)n) != 0)
		return -1;
	return blen ? write_all(fd, body, blen) : 0;
}

int fake_http_start_chunked(int fd, int code, const char *ct)
{
	char head[512];
	int n = snprintf(head, sizeof(head),
	                 "HTTP/1.1 %d X\r\nContent-Type: %s\r\nTransfer-Encoding: chunked\r\n\r\n",
	                 code, ct ? ct : "application/json");
	return write_all(fd, head, (size_t)n);
}

int fake_http_chunk(int fd, const char *data, size_t len)
{
	/* One send per chunk: small writes in a row would meet Nagle and the
	 * peer's delayed ACK, and stall 40 ms. */
	char *buf = malloc(len + 32);
	if (!buf)
		return -1;
	int n = snprintf(buf, 32, "%zx\r\n", len);
	if (len)
		memcpy(buf + n, data, len);
	memcpy(buf + (size_t)n + len, "\r\n", 2);
	int rc = write_all(fd, buf, (size_t)n + len + 2);
	free(buf);
	return rc;
}

const char *fake_http_header(const fake_http_req *r, const char *name, char *buf, size_t n)
{
	size_t k = strlen(name);
	for (const char *line = r->headers; *line;) {
		const char *end = strstr(line, "\r\n");
		size_t len = end ? (size_t)(end - line) : strlen(line);
		if (len > k && strncasecmp(line, name, k) == 0 && line[k] == ':') {
			const char *v = line + k + 1;
			while (*v == ' ')
				v++;
			size_t vl = len - (size_t)(v - line);
			if (vl >= n)
				vl = n - 1;
			memcpy(buf, v, vl);
			buf[vl] = '\0';
			return buf;
		}
		if (!end)
			break;
		line = end + 2;
	}
	return NULL;
}

/* Read one request (headers, then Content-Length bytes). 0, or -1 at EOF. */
static int read_request(int fd, fake_http_req *r, char *buf, size_t cap, size_t *have)
{
	char *hend;
	buf[*have] = '\0';
	while (!(hend = strstr(buf, "\r\n\r\n"))) {
		if (*have + 1 >= cap)
			return -1;
		ssize_t n = recv(fd, buf + *have, cap - 1 - *have, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		*have += (size_t)n;
		buf[*have] = '\0';
		/* A TLS ClientHello (record type 22): this server speaks no TLS. */
		if (buf[0] == 0x16)
			return -1;
	}
	memset(r, 0, sizeof(*r));
	char *line_end = strstr(buf, "\r\n");
	*line_end = '\0';
	if (sscanf(buf, "%15s %2047s", r->method, r->target) != 2)
		return -1;
	size_t hl = (size_t)(hend - (line_end + 2));
	if (hl >= sizeof(r->headers))
		hl = sizeof(r->headers) - 1;
	memcpy(r->headers, line_end + 2, hl);
	char cl[32];
	size_t want =
	    fake_http_header(r, "Content-Length", cl, sizeof(cl)) ? strtoul(cl, NULL, 10) : 0;
	size_t head_len = (size_t)(hend + 4 - buf);
	r->body = malloc(want + 1);
	if (!r->body)
		return -1;
	size_t got = *have - head_len < want ? *have - head_len : want;
	memcpy(r->body, hend + 4, got);
	while (got < want) {
		ssize_t n = recv(fd, r->body + got, want - got, 0);
		if (n <= 0) {
			free(r->body);
			return -1;
		}
		got += (size_t)n;
	}
	r->body[want] = '\0';
	r->body_len = want;
	/* Keep pipelined bytes after this request. */
	size_t used = head_len + (*have - head_len < want ? *have - head_len : want);
	memmove(buf, buf + used, *have - used);
	*have -= used;
	return 0;
}

static void *serve(void *arg)
{
	conn *c = arg;
	fake_http *f = c->srv;
	static const size_t cap = 1 << 16;
	char *buf = malloc(cap);
	size_t have = 0;
	fake_http_req r;
	while (buf && read_request(c->fd, &r, buf, cap, &have) == 0) {
		pthread_mutex_lock(&f->mu);
		r.seq = ++f->nreqs;
		pthread_mutex_unlock(&f->mu);
		r.conn = c->id;
		int close_it = f->handler(c->fd, &r, f->payload);
		free(r.body);
		if (close_it)
			break;
	}
	free(buf);
	shutdown(c->fd, SHUT_RDWR);
	return NULL;
}

static void *acceptor(void *arg)
{
	fake_http *f = arg;
	for (;;) {
		int fd = accept(f->lfd, NULL, NULL);
		if (fd < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		pthread_mutex_lock(&f->mu);
		conn *c = f->stopping || f->nconns == MAX_CONNS ? NULL : calloc(1, sizeof(*c));
		if (c) {
			c->srv = f;
			c->fd = fd;
			c->id = f->nconns + 1;
			f->conns[f->nconns++] = c;
			if (pthread_create(&c->thread, NULL, serve, c) != 0) {
				f->nconns--;
				free(c);
				c = NULL;
			}
		}
		pthread_mutex_unlock(&f->mu);
		if (!c)
			close(fd);
	}
	return NULL;
}

int fake_http_start(fake_http **out, fake_http_handler h, void *payload)
{
	fake_http *f = calloc(1, sizeof(*f));
	struct sockaddr_in a = {0};
	socklen_t alen = sizeof(a);
	int one = 1;
	if (!f)
		return -1;
	f->handler = h;
	f->payload = payload;
	pthread_mutex_init(&f->mu, NULL);
	f->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(f->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (f->lfd < 0 || bind(f->lfd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    listen(f->lfd, 512) != 0 || getsockname(f->lfd, (struct sockaddr *)&a, &alen) != 0 ||
	    pthread_create(&f->acceptor, NULL, acceptor, f) != 0) {
		if (f->lfd >= 0)
			close(f->lfd);
		pthread_mutex_destroy(&f->mu);
		free(f);
		return -1;
	}
	snprintf(f->url, sizeof(f->url), "http://127.0.0.1:%u", ntohs(a.sin_port));
	*out = f;
	return 0;
}

const char *fake_http_url(const fake_http *f)
{
	return f->url;
}

unsigned fake_http_connections(fake_http *f)
{
	pthread_mutex_lock(&f->mu);
	unsigned n = f->nconns;
	pthread_mutex_unlock(&f->mu);
	return n;
}

unsigned fake_http_requests(fake_http *f)
{
	pthread_mutex_lock(&f->mu);
	unsigned n = f->nreqs;
	pthread_mutex_unlock(&f->mu);
	return n;
}

void fake_http_stop(fake_http *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&f->mu);
	f->stopping = 1;
	pthread_mutex_unlock(&f->mu);
	shutdown(f->lfd, SHUT_RDWR);
	pthread_join(f->acceptor, NULL);
	close(f->lfd);
	for (unsigned i = 0; i < f->nconns; i++) {
		shutdown(f->conns[i]->fd, SHUT_RDWR);
		pthread_join(f->conns[i]->thread, NULL);
		close(f->conns[i]->fd);
		free(f->conns[i]);
	}
	pthread_mutex_destroy(&f->mu);
	free(f);
}
