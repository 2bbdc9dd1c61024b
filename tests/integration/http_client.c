#include "http_client.h"

#include <CUnit/CUnit.h>
#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct {
	char *data;
	size_t len;
} sink;

static size_t on_body(char *p, size_t size, size_t n, void *userdata)
{
	sink *s = userdata;
	size_t add = size * n;
	char *grown = realloc(s->data, s->len + add + 1);
	if (!grown)
		return 0;
	memcpy(grown + s->len, p, add);
	s->data = grown;
	s->len += add;
	s->data[s->len] = '\0';
	return add;
}

static void header_value(char *dst, size_t dstlen, const char *line, size_t n, const char *name)
{
	size_t k = strlen(name);
	if (n <= k + 1 || strncasecmp(line, name, k) != 0 || line[k] != ':')
		return;
	const char *v = line + k + 1;
	while (*v == ' ')
		v++;
	size_t vl = (size_t)(line + n - v);
	while (vl > 0 && (v[vl - 1] == '\r' || v[vl - 1] == '\n'))
		vl--;
	if (vl >= dstlen)
		vl = dstlen - 1;
	memcpy(dst, v, vl);
	dst[vl] = '\0';
}

static size_t on_header(char *line, size_t size, size_t n, void *userdata)
{
	nl_http_resp *r = userdata;
	header_value(r->content_type, sizeof(r->content_type), line, size * n, "Content-Type");
	header_value(r->warning, sizeof(r->warning), line, size * n, "Warning");
	header_value(r->retry_after, sizeof(r->retry_after), line, size * n, "Retry-After");
	size_t have = strlen(r->raw_headers), add = size * n;
	if (have + add < sizeof(r->raw_headers)) {
		memcpy(r->raw_headers + have, line, add);
		r->raw_headers[have + add] = '\0';
	}
	return size * n;
}

int nl_http(nl_http_resp *out, const char *base, const char *method, const char *path,
            const char *body, const char *content_type)
{
	return nl_http_ex(out, base, method, path, body, content_type, NULL);
}

const char *nl_http_header(const nl_http_resp *r, const char *name, char *buf, size_t n)
{
	buf[0] = '\0';
	for (const char *line = r->raw_headers; *line;) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line + 1) : strlen(line);
		header_value(buf, n, line, len, name);
		if (buf[0])
			return buf;
		line += len;
	}
	return buf;
}

int nl_http_header_count(const nl_http_resp *r, const char *name)
{
	int count = 0;
	size_t k = strlen(name);
	for (const char *line = r->raw_headers; *line;) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line + 1) : strlen(line);
		count += len > k && strncasecmp(line, name, k) == 0 && line[k] == ':';
		line += len;
	}
	return count;
}

int nl_http_ex(nl_http_resp *out, const char *base, const char *method, const char *path,
               const char *body, const char *content_type, const char *const *headers)
{
	return nl_http_bytes(out, base, method, path, body, body ? strlen(body) : 0, content_type,
	                     headers);
}

int nl_http_bytes(nl_http_resp *out, const char *base, const char *method, const char *path,
                  const char *body, size_t len, const char *content_type,
                  const char *const *headers)
{
	char url[4096], ct[160];
	sink s = {NULL, 0};
	struct curl_slist *hdrs = NULL;
	CURL *c = curl_easy_init();
	memset(out, 0, sizeof(*out));
	if (!c)
		return -1;
	snprintf(url, sizeof(url), "%s%s", base, path);
	snprintf(ct, sizeof(ct), "Content-Type: %s",
	         content_type ? content_type : "application/json");
	hdrs = curl_slist_append(hdrs, ct);
	int own_accept = 0;
	for (size_t i = 0; headers && headers[i]; i++) {
		own_accept |= strncasecmp(headers[i], "Accept:", 7) == 0;
		hdrs = curl_slist_append(hdrs, headers[i]);
	}
	if (!own_accept)
		hdrs = curl_slist_append(hdrs, "Accept: application/json");
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, out);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	if (body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	}
	CURLcode rc = curl_easy_perform(c);
	if (rc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out->code);
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(c);
	out->body = s.data ? s.data : strdup("");
	out->len = s.len;
	return rc == CURLE_OK ? 0 : -1;
}

void nl_http_resp_free(nl_http_resp *r)
{
	free(r->body);
	r->body = NULL;
}

char *nl_http_escape(const char *s)
{
	char *e = curl_easy_escape(NULL, s, 0);
	char *copy = e ? strdup(e) : NULL;
	curl_free(e);
	return copy;
}

json_object *nl_http_json(const nl_http_resp *r)
{
	return r->body ? json_tokener_parse(r->body) : NULL;
}

int nl_test_suite_server(mock_server **srv, const char **base, const mock_options *opts)
{
	mock_options o;
	nl_err err = {0};
	if (opts)
		o = *opts;
	else
		mock_options_init(&o);
	o.port = 0;
	*srv = NULL;
	if (mock_server_new(srv, &o, &err) != 0 || mock_server_start(*srv, &err) != 0) {
		fprintf(stderr, "cannot start server: %s\n", err.msg);
		mock_server_free(*srv);
		*srv = NULL;
		return 1;
	}
	if (base)
		*base = mock_server_url(*srv);
	return 0;
}

mock_server *nl_test_server_start(const char **fixtures, size_t n)
{
	mock_options o;
	mock_server *s = NULL;
	mock_options_init(&o);
	o.fixtures = fixtures;
	o.nfixtures = n;
	if (nl_test_suite_server(&s, NULL, &o) != 0) {
		CU_FAIL_FATAL("cannot start nodelet-mockapi in-process");
		return NULL;
	}
	return s;
}

static int64_t read_clock(void *payload)
{
	return *(const int64_t *)payload;
}

int nl_test_suite_server_on_clock(mock_server **srv, const char **base, int64_t *now_usec)
{
	mock_options o;
	mock_options_init(&o);
	o.clock = read_clock;
	o.clock_payload = now_usec;
	o.controller_tick_ms = 0;
	return nl_test_suite_server(srv, base, &o);
}

mock_server *nl_test_server_adjusted(void (*adjust)(mock_options *))
{
	mock_options o;
	mock_server *s = NULL;
	mock_options_init(&o);
	o.controller_tick_ms = 0;
	if (adjust)
		adjust(&o);
	if (nl_test_suite_server(&s, NULL, &o) != 0) {
		CU_FAIL_FATAL("cannot start nodelet-mockapi in-process");
		return NULL;
	}
	return s;
}

int nl_test_dial(mock_server *s)
{
	struct sockaddr_in a;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)mock_server_port(s));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int64_t nl_test_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void nl_test_sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

json_object *nl_http_expect(long want, const char *base, const char *method, const char *path,
                            const char *body, const char *content_type)
{
	nl_http_resp r;
	CU_ASSERT_EQUAL_FATAL(nl_http(&r, base, method, path, body, content_type), 0);
	if (r.code != want)
		fprintf(stderr, "\n%s %s: want %ld got %ld: %s\n", method, path, want, r.code,
		        r.body);
	CU_ASSERT_EQUAL(r.code, want);
	json_object *o = nl_http_json(&r);
	nl_http_resp_free(&r);
	return o;
}
