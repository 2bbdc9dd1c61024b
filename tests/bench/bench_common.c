/* Helpers shared by the benchmark programs; see bench_common.h. */
#include "bench_common.h"

#include <curl/curl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct bench_http {
	CURL *curl;
	struct curl_slist *headers;
	char base[256];
	char url[2048];
	char *buf;
	size_t len, cap;
};

int64_t bench_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double bench_percentile(double *v, size_t n, double p)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	/* Nearest rank: the smallest value with at least p% at or below it. */
	size_t rank = (size_t)((p / 100.0) * (double)n + 0.999999);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

long bench_proc_kib(pid_t pid, const char *field)
{
	char path[64], line[256];
	size_t flen = strlen(field);
	long kib = -1;
	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, field, flen) == 0 && line[flen] == ':') {
			kib = strtol(line + flen + 1, NULL, 10);
			break;
		}
	fclose(f);
	return kib;
}

void bench_die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("bench: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *payload)
{
	bench_http *h = payload;
	size_t n = size * nmemb;
	if (h->len + n + 1 > h->cap) {
		size_t cap = h->cap ? h->cap : 4096;
		while (cap < h->len + n + 1)
			cap *= 2;
		char *p = realloc(h->buf, cap);
		if (!p)
			return 0;
		h->buf = p;
		h->cap = cap;
	}
	memcpy(h->buf + h->len, data, n);
	h->len += n;
	h->buf[h->len] = '\0';
	return n;
}

bench_http *bench_http_new(const char *base)
{
	bench_http *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->curl = curl_easy_init();
	h->headers = curl_slist_append(NULL, "Content-Type: application/json");
	if (!h->curl || !h->headers) {
		bench_http_free(h);
		return NULL;
	}
	snprintf(h->base, sizeof(h->base), "%s", base);
	curl_easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h->curl, CURLOPT_WRITEDATA, h);
	curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, h->headers);
	curl_easy_setopt(h->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h->curl, CURLOPT_TCP_NODELAY, 1L);
	curl_easy_setopt(h->curl, CURLOPT_TIMEOUT, 60L);
	return h;
}

void bench_http_free(bench_http *h)
{
	if (!h)
		return;
	curl_easy_cleanup(h->curl);
	curl_slist_free_all(h->headers);
	free(h->buf);
	free(h);
}

int bench_http_do(bench_resp *out, bench_http *h, const char *method, const char *path,
                  const char *body, size_t body_len)
{
	snprintf(h->url, sizeof(h->url), "%s%s", h->base, path);
	h->len = 0;
	if (h->buf)
		h->buf[0] = '\0';
	curl_easy_setopt(h->curl, CURLOPT_URL, h->url);
	curl_easy_setopt(h->curl, CURLOPT_CUSTOMREQUEST, method);
	if (body) {
		curl_easy_setopt(h->curl, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(h->curl, CURLOPT_POSTFIELDSIZE, (long)body_len);
	} else {
		curl_easy_setopt(h->curl, CURLOPT_HTTPGET, 1L);
		curl_easy_setopt(h->curl, CURLOPT_CUSTOMREQUEST, method);
	}
	if (curl_easy_perform(h->curl) != CURLE_OK)
		return -1;
	curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &out->code);
	out->body = h->buf ? h->buf : (char *)"";
	out->len = h->len;
	return 0;
}
