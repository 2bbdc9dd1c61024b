/* The load soak's strict HTTP client (soak_http.h). */
#include "soak_http.h"

#include "soak_common.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Far above any answer of the soak (a list of a writer's objects). */
#define BODY_MAX (8u * 1024u * 1024u)

struct soak_http {
	CURL *curl;
	const char *base;
	char url[1024];
	char *body;
	size_t len, cap;
	int too_big;
	/* The last status line, how many were seen, the Content-Type. */
	char status_line[160];
	int status_lines;
	long status_code;
	char content_type[128];
	/* Streaming. */
	int (*on_line)(const char *line, size_t len, void *payload);
	void *payload;
	int cancelled;
	long cut_ms;    /* after the head arrived; 0 = never */
	double head_at; /* real time the status line arrived, 0 = not yet */
	int cut;
};

soak_http *soak_http_new(const char *base)
{
	soak_http *h = calloc(1, sizeof(*h));
	if (!h || !(h->curl = curl_easy_init())) {
		free(h);
		return NULL;
	}
	h->base = base;
	return h;
}

void soak_http_free(soak_http *h)
{
	if (!h)
		return;
	curl_easy_cleanup(h->curl);
	free(h->body);
	free(h);
}

void soak_http_fresh(soak_http *h)
{
	curl_easy_setopt(h->curl, CURLOPT_FRESH_CONNECT, 1L);
	curl_easy_setopt(h->curl, CURLOPT_FORBID_REUSE, 1L);
}

/* --- callbacks ------------------------------------------------------------------------------- */

static int append(soak_http *h, const char *data, size_t n)
{
	if (h->len + n + 1 > BODY_MAX) {
		h->too_big = 1;
		return -1;
	}
	if (h->len + n + 1 > h->cap) {
		size_t cap = h->cap ? h->cap : 4096;
		while (cap < h->len + n + 1)
			cap *= 2;
		char *p = realloc(h->body, cap);
		if (!p)
			return -1;
		h->body = p;
		h->cap = cap;
	}
	memcpy(h->body + h->len, data, n);
	h->len += n;
	h->body[h->len] = 0;
	return 0;
}

/* Hand complete lines to on_line; keep the rest for the next chunk. */
static int deliver_lines(soak_http *h)
{
	size_t start = 0;
	for (size_t i = 0; i < h->len; i++) {
		if (h->body[i] != '\n')
			continue;
		h->body[i] = 0;
		if (i > start && h->on_line(h->body + start, i - start, h->payload) != 0) {
			h->cancelled = 1;
			return -1;
		}
		start = i + 1;
	}
	memmove(h->body, h->body + start, h->len - start);
	h->len -= start;
	if (h->body)
		h->body[h->len] = 0;
	return 0;
}

static size_t on_body(char *data, size_t size, size_t n, void *payload)
{
	soak_http *h = payload;
	if (append(h, data, size * n) != 0)
		return 0;
	if (h->on_line && h->status_code >= 200 && h->status_code < 300 && deliver_lines(h) != 0)
		return 0;
	return size * n;
}

/* The client goes away from a stream: cut_ms after the answer began. */
static int on_progress(void *payload, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
	soak_http *h = payload;
	(void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
	if (h->cut_ms > 0 && h->head_at > 0 &&
	    (soak_real_now() - h->head_at) * 1000.0 >= (double)h->cut_ms) {
		h->cut = 1;
		return 1;
	}
	return 0;
}

/* "HTTP/1.1 200 OK": the version, three digits, a space, a reason. */
static long parse_status_line(const char *s, size_t n)
{
	if (n < 13 || strncmp(s, "HTTP/1.", 7) != 0 || (s[7] != '0' && s[7] != '1') ||
	    s[8] != ' ' || !isdigit((unsigned char)s[9]) || !isdigit((unsigned char)s[10]) ||
	    !isdigit((unsigned char)s[11]) || s[12] != ' ')
		return -1;
	return (s[9] - '0') * 100 + (s[10] - '0') * 10 + (s[11] - '0');
}

static size_t on_header(char *data, size_t size, size_t n, void *payload)
{
	soak_http *h = payload;
	size_t len = size * n;
	while (len && (data[len - 1] == '\n' || data[len - 1] == '\r'))
		len--;
	if (len >= 5 && strncmp(data, "HTTP/", 5) == 0) {
		h->status_lines++;
		h->head_at = soak_real_now();
		snprintf(h->status_line, sizeof(h->status_line), "%.*s", (int)len, data);
		h->status_code = parse_status_line(data, len);
		h->content_type[0] = 0;
	} else if (len > 13 && strncasecmp(data, "Content-Type:", 13) == 0) {
		const char *v = data + 13;
		while (*v == ' ')
			v++;
		snprintf(h->content_type, sizeof(h->content_type), "%.*s",
		         (int)(len - (size_t)(v - data)), v);
	}
	return size * n;
}

/* --- one transfer ---------------------------------------------------------------------------- */

static void prepare(soak_http *h, const char *method, const char *path, const char *body,
                    struct curl_slist *headers)
{
	CURL *c = h->curl;
	snprintf(h->url, sizeof(h->url), "%s%s", h->base, path);
	h->len = 0;
	h->too_big = 0;
	h->status_lines = 0;
	h->status_code = -1;
	h->status_line[0] = h->content_type[0] = 0;
	h->cancelled = 0;
	h->cut = 0;
	h->head_at = 0;
	curl_easy_setopt(c, CURLOPT_URL, h->url);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, h);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, h);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "soak-load/1");
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
	/* An answer that takes this long is a failure, not load. */
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, SOAK_HTTP_TIMEOUT_MS);
	if (body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
	} else {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, NULL);
		curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	}
}

static void reset_after(soak_http *h)
{
	curl_easy_setopt(h->curl, CURLOPT_FRESH_CONNECT, 0L);
	curl_easy_setopt(h->curl, CURLOPT_FORBID_REUSE, 0L);
	curl_easy_setopt(h->curl, CURLOPT_NOPROGRESS, 1L);
	h->on_line = NULL;
	h->cut_ms = 0;
}

/* The status line and the Content-Type of a completed transfer. */
static int check_head(soak_http *h, char *why, size_t whylen)
{
	long code = 0;
	curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &code);
	if (h->status_lines != 1 || h->status_code < 100) {
		snprintf(why, whylen, "%d status lines, the last \"%s\"", h->status_lines,
		         h->status_line);
		return -1;
	}
	if (h->status_code != code) {
		snprintf(why, whylen, "status line \"%s\" but code %ld", h->status_line, code);
		return -1;
	}
	if (strncmp(h->content_type, "application/json", 16) != 0) {
		snprintf(why, whylen, "%s: Content-Type \"%s\"", h->status_line, h->content_type);
		return -1;
	}
	return 0;
}

/* An error answer is a metav1.Status carrying the same code. */
static int check_status_body(json_object *o, long code, char *why, size_t whylen)
{
	json_object *kind, *c;
	if (code < 300)
		return 0;
	if (!json_object_object_get_ex(o, "kind", &kind) ||
	    strcmp(json_object_get_string(kind), "Status") != 0 ||
	    !json_object_object_get_ex(o, "code", &c) || json_object_get_int(c) != code) {
		snprintf(why, whylen, "a %ld answer that is not its Status: %.200s", code,
		         json_object_to_json_string(o));
		return -1;
	}
	return 0;
}

long soak_http_do(soak_http *h, json_object **out, const char *method, const char *path,
                  const char *body, const char *content_type, char *why, size_t whylen)
{
	char ct[128];
	struct curl_slist *headers = NULL, *more;
	snprintf(ct, sizeof(ct), "Content-Type: %s",
	         content_type ? content_type : "application/json");
	/* No "Expect: 100-continue": one answer per request. */
	if (!(headers = curl_slist_append(NULL, ct)) ||
	    !(more = curl_slist_append(headers, "Expect:")) ||
	    !(more = curl_slist_append(more, "Accept: application/json"))) {
		curl_slist_free_all(headers);
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	prepare(h, method, path, body, headers);
	CURLcode cc = curl_easy_perform(h->curl);
	reset_after(h);
	curl_slist_free_all(headers);
	if (cc != CURLE_OK) {
		snprintf(why, whylen, "%s %s: %s%s", method, path, curl_easy_strerror(cc),
		         h->too_big ? " (body too big)" : "");
		return -1;
	}
	if (check_head(h, why, whylen) != 0)
		return -1;
	json_object *o = json_tokener_parse(h->len ? h->body : "");
	if (!o || check_status_body(o, h->status_code, why, whylen) != 0) {
		if (!o)
			snprintf(why, whylen, "%s %s: %s with a body that is not JSON: %.200s",
			         method, path, h->status_line, h->len ? h->body : "(empty)");
		json_object_put(o);
		return -1;
	}
	if (out)
		*out = o;
	else
		json_object_put(o);
	return h->status_code;
}

long soak_http_stream(soak_http *h, const char *path, long cut_ms,
                      int (*on_line)(const char *line, size_t len, void *payload), void *payload,
                      int *how, char *why, size_t whylen)
{
	struct curl_slist *headers = curl_slist_append(NULL, "Accept: application/json");
	if (!headers) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	prepare(h, "GET", path, NULL, headers);
	h->on_line = on_line;
	h->payload = payload;
	h->cut_ms = cut_ms;
	curl_easy_setopt(h->curl, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h->curl, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(h->curl, CURLOPT_XFERINFODATA, h);
	CURLcode cc = curl_easy_perform(h->curl);
	int cancelled = h->cancelled, cut = h->cut;
	reset_after(h);
	curl_slist_free_all(headers);
	*how = 0;
	if (cc == CURLE_WRITE_ERROR && cancelled)
		*how = 1;
	else if (cc == CURLE_ABORTED_BY_CALLBACK && cut)
		*how = 2;
	else if (cc != CURLE_OK) {
		snprintf(why, whylen, "GET %s: %s%s", path, curl_easy_strerror(cc),
		         h->too_big ? " (a line too long)" : "");
		return -1;
	}
	if (check_head(h, why, whylen) != 0)
		return -1;
	if (h->status_code >= 300) {
		/* Refused before the stream started: the Status is the body. */
		json_object *o = json_tokener_parse(h->len ? h->body : "");
		int bad = !o || check_status_body(o, h->status_code, why, whylen) != 0;
		if (!o)
			snprintf(why, whylen, "GET %s: %s with a body that is not JSON", path,
			         h->status_line);
		json_object_put(o);
		return bad ? -1 : h->status_code;
	}
	if (*how == 0 && h->len) {
		snprintf(why, whylen, "GET %s: the stream ended inside an event: %.200s", path,
		         h->body);
		return -1;
	}
	return h->status_code;
}
