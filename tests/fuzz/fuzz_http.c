/* The mock's request handling in-process (mock_api_handle), as a hostile
 * client drives it: one server made by mock_server_new at start (store
 * seeded with the default namespaces, watch hub, control API; never
 * started, so no socket) answers a sequence of requests decoded from each
 * input, then goes back to its seeded state (mock_server_rewind), so every
 * input starts from the same objects, uids and resourceVersions.
 *
 * Input: up to MAX_REQUESTS HTTP/1.1 requests, as on the wire:
 *
 *   POST /api/v1/namespaces/default/configmaps?fieldManager=kubectl HTTP/1.1
 *   Content-Type: application/json
 *   Content-Length: 52
 *
 *   {"metadata":{"name":"a"},"data":{"k":"v"}} ...
 *
 * The path and query are percent-decoded as libmicrohttpd does; a body is
 * Content-Length bytes (cut short at the end of the input), none without
 * the header. Requests after the first see what earlier ones stored, so
 * PATCH, PUT and DELETE reach real objects. The server's clock advances ten
 * seconds per request and the controllers run after each one.
 *
 * Invariants: every answer is a valid HTTP status; a JSON answer parses, an
 * error answer is a metav1.Status with the answer's code, a YAML answer
 * loads; a 4xx answer leaves the store's resourceVersion where it was (a
 * refusal changes nothing); and at the end every stored object is in the
 * canonical form typed decoding gives (what the server stores, it would
 * accept back unchanged). */
#include <ctype.h>
#include <nodelet/doc.h>
#include <nodelet/errors.h>
#include <nodelet/status.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/resources.h"
#include "api/schema.h"
#include "core/request.h"
#include "core/url.h"
#include "fuzz.h"
#include "handlers/api.h"
#include "mockapi.h"
#include "server/server_internal.h"
#include "storage/store.h"

#define MAX_REQUESTS 16
#define MAX_BODY 8192                       /* small, so that 413 is reachable */
#define START_USEC (1714557600LL * 1000000) /* 2024-05-01T10:00:00Z */

/* Everything one decoded request owns. */
typedef struct {
	mock_request req;
	char *strings[2 + 2 * MOCK_MAX_QUERY + 4 + 1]; /* line, query, headers, body */
	size_t nstrings;
} fuzz_request;

static int64_t clock_usec;

static int64_t fuzz_clock(void *payload)
{
	(void)payload;
	return clock_usec;
}

static char *keep(fuzz_request *fr, char *s)
{
	fr->strings[fr->nstrings++] = s;
	return s;
}

/* A percent-decoded copy of [p, p+len), as the server's unescape callback
 * decodes it (a %00 is a marked NUL); '+' becomes a space in queries
 * first, as libmicrohttpd does. */
static char *unescape(const char *p, size_t len, int plus)
{
	char *out = fuzz_strndup((const uint8_t *)p, len);
	for (size_t i = 0; plus && out[i]; i++)
		if (out[i] == '+')
			out[i] = ' ';
	mock_url_unescape(out);
	return out;
}

static void parse_query(fuzz_request *fr, const char *q, size_t len)
{
	while (len > 0 && fr->req.nquery < MOCK_MAX_QUERY) {
		const char *amp = memchr(q, '&', len);
		size_t n = amp ? (size_t)(amp - q) : len;
		const char *eq = memchr(q, '=', n);
		size_t klen = eq ? (size_t)(eq - q) : n;
		if (klen > 0) {
			mock_kv *kv = &fr->req.query[fr->req.nquery++];
			kv->key = keep(fr, unescape(q, klen, 1));
			kv->value = eq ? keep(fr, unescape(eq + 1, n - klen - 1, 1)) : NULL;
		}
		q += n;
		len -= n;
		if (len > 0)
			q++, len--;
	}
}

/* The line at *p (without "\r\n"); advances *p past it. */
static size_t next_line(const char **p, const char *end, const char **line)
{
	*line = *p;
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	size_t n = nl ? (size_t)(nl - *p) : (size_t)(end - *p);
	*p = nl ? nl + 1 : end;
	if (n > 0 && (*line)[n - 1] == '\r')
		n--;
	return n;
}

/* The value of header `name` if line is that header, else NULL. */
static const char *header_value(const char *line, size_t n, const char *name, size_t *vlen)
{
	size_t k = strlen(name);
	if (n <= k || strncasecmp(line, name, k) != 0 || line[k] != ':')
		return NULL;
	const char *v = line + k + 1;
	*vlen = n - k - 1;
	while (*vlen > 0 && (*v == ' ' || *v == '\t'))
		v++, (*vlen)--;
	return v;
}

static void parse_header(fuzz_request *fr, const char *line, size_t n, size_t *content_length)
{
	static const char *const names[] = {"Content-Type", "Accept", "User-Agent",
	                                    "If-None-Match"};
	const char **fields[] = {&fr->req.content_type, &fr->req.accept, &fr->req.user_agent,
	                         &fr->req.if_none_match};
	size_t vlen;
	const char *v;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!*fields[i] && (v = header_value(line, n, names[i], &vlen))) {
			*fields[i] = keep(fr, fuzz_strndup((const uint8_t *)v, vlen));
			return;
		}
	}
	if ((v = header_value(line, n, "Content-Length", &vlen))) {
		*content_length = 0;
		for (size_t i = 0; i < vlen && i < 9 && isdigit((unsigned char)v[i]); i++)
			*content_length = *content_length * 10 + (size_t)(v[i] - '0');
	}
}

/* Decode one request starting at *p; 0 when there is none left. */
static int parse_request(fuzz_request *fr, const char **p, const char *end)
{
	memset(fr, 0, sizeof(*fr));
	while (*p < end && (**p == '\r' || **p == '\n'))
		(*p)++;
	if (*p >= end)
		return 0;
	const char *line;
	size_t n = next_line(p, end, &line);
	const char *sp = memchr(line, ' ', n);
	size_t mlen = sp ? (size_t)(sp - line) : n;
	fr->req.method = keep(fr, fuzz_strndup((const uint8_t *)line, mlen));
	const char *target = sp ? sp + 1 : line + n;
	size_t tlen = (size_t)(line + n - target);
	const char *sp2 = memchr(target, ' ', tlen);
	if (sp2)
		tlen = (size_t)(sp2 - target);
	const char *q = memchr(target, '?', tlen);
	size_t plen = q ? (size_t)(q - target) : tlen;
	fr->req.path = keep(fr, unescape(target, plen, 0));
	if (q)
		parse_query(fr, q + 1, tlen - plen - 1);

	size_t content_length = 0;
	while (*p < end) {
		n = next_line(p, end, &line);
		if (n == 0)
			break;
		parse_header(fr, line, n, &content_length);
	}
	size_t left = (size_t)(end - *p);
	size_t blen = content_length < left ? content_length : left;
	if (blen > 0) {
		char *body = keep(fr, fuzz_strndup((const uint8_t *)*p, blen));
		fr->req.body = body;
		fr->req.body_len = blen;
		fr->req.body_too_large = blen > MAX_BODY;
		*p += blen;
	}
	return 1;
}

static void free_request(fuzz_request *fr)
{
	for (size_t i = 0; i < fr->nstrings; i++)
		free(fr->strings[i]);
}

static int starts_with(const char *s, const char *prefix)
{
	return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Large JSON answers already checked (the OpenAPI documents, 25-80 KB,
 * sent the same every time): parsing them again cost more than the rest
 * of such an input, and the same bytes are as valid as they were. */
#define CHECKED_MIN 16384
#define CHECKED_KEEP 8
static struct {
	char *data;
	size_t len;
} checked[CHECKED_KEEP];
static size_t checked_next;

static int checked_before(const char *body, size_t len)
{
	for (size_t i = 0; i < CHECKED_KEEP; i++)
		if (checked[i].len == len && memcmp(checked[i].data, body, len) == 0)
			return 1;
	return 0;
}

static void remember_checked(const char *body, size_t len)
{
	size_t i = checked_next++ % CHECKED_KEEP;
	free(checked[i].data);
	checked[i].data = fuzz_strndup((const uint8_t *)body, len);
	checked[i].len = len;
}

static void check_response(const mock_response *resp)
{
	FUZZ_CHECK(resp->code >= 100 && resp->code <= 599);
	FUZZ_CHECK(memchr(resp->warning, '\0', sizeof(resp->warning)) != NULL);
	FUZZ_CHECK(memchr(resp->headers, '\0', sizeof(resp->headers)) != NULL);
	if (resp->stream || resp->truncated || resp->body.len == 0)
		return;
	const char *body = resp->body.data;
	size_t len = resp->body.len;
	int large = resp->code < 400 && len >= CHECKED_MIN;
	if (starts_with(resp->content_type, "application/json")) {
		if (large && checked_before(body, len))
			return;
		int is_null = 0;
		json_object *o = fuzz_json(body, len, &is_null);
		FUZZ_CHECK(o != NULL || is_null);
		if (large)
			remember_checked(body, len);
		if (resp->code >= 400) {
			/* What nl_status_parse would read, from the tree just parsed. */
			nl_status *st = NULL;
			FUZZ_CHECK(nl_status_from_json(&st, o) == 0);
			FUZZ_CHECK(st->code == resp->code);
			nl_status_free(st);
		}
		json_object_put(o);
	} else if (starts_with(resp->content_type, "application/yaml")) {
		json_object *docs = NULL;
		FUZZ_CHECK(nl_doc_parse(&docs, body, len, "<response>", NULL) == 0);
		json_object_put(docs);
	}
}

/* Every stored object decodes to itself; the objects as the control API's
 * GET /mockapi/v1/objects lists them. */
static void check_store(mock_api *api)
{
	mock_request req;
	memset(&req, 0, sizeof(req));
	req.method = "GET";
	req.path = "/mockapi/v1/objects";
	mock_response resp;
	mock_response_init(&resp);
	mock_api_handle(api, &req, &resp);
	FUZZ_CHECK(resp.code == 200);
	json_object *list = fuzz_json(resp.body.data, resp.body.len, NULL);
	FUZZ_CHECK(list != NULL);
	json_object *items = NULL;
	FUZZ_CHECK(json_object_object_get_ex(list, "items", &items));
	for (size_t i = 0; i < json_object_array_length(items); i++) {
		json_object *obj = json_object_array_get_idx(items, i), *kind, *av;
		FUZZ_CHECK(json_object_object_get_ex(obj, "kind", &kind));
		FUZZ_CHECK(json_object_object_get_ex(obj, "apiVersion", &av));
		const mock_resource *r =
		    mock_resource_by_kind(json_object_get_string(av), json_object_get_string(kind));
		FUZZ_CHECK(r != NULL);
		json_object *again = NULL;
		mock_unknown_fields unknown = {NULL, 0};
		FUZZ_CHECK(mock_schema_decode(&again, r, obj, &unknown, NULL) == 0);
		FUZZ_CHECK(unknown.n == 0);
		if (strcmp(fuzz_json_text(again), fuzz_json_text(obj)) != 0) {
			fprintf(stderr, "stored:  %s\n", fuzz_json_text(obj));
			fprintf(stderr, "decoded: %s\n", fuzz_json_text(again));
			FUZZ_CHECK(!"a stored object is not in canonical form");
		}
		mock_unknown_fields_free(&unknown);
		json_object_put(again);
	}
	json_object_put(list);
	mock_response_free(&resp);
}

/* One server for the whole run, saved right after seeding: creating one
 * per input (seeding through the create path, starting and joining the
 * watch hub's thread) cost more than the requests themselves. */
static mock_server *server;
static uint64_t seeded_rv;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	mock_options opts;
	mock_options_init(&opts);
	opts.port = 0;
	opts.max_body = MAX_BODY;
	opts.controller_tick_ms = 0;
	opts.random_seed = 1;
	opts.random_seed_set = 1;
	opts.journal_size = 64;
	opts.clock = fuzz_clock;
	clock_usec = START_USEC;
	nl_err err = {0};
	FUZZ_CHECK(mock_server_new(&server, &opts, &err) == 0);
	FUZZ_CHECK(mock_server_save(server) == 0);
	seeded_rv = mock_store_rv(mock_server_store(server));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mock_api *api = &server->api; /* in-process: no HTTP, no faults */
	mock_store *store = mock_server_store(server);
	clock_usec = START_USEC;
	const char *p = (const char *)data, *end = p + size;
	fuzz_request fr;
	for (int i = 0; i < MAX_REQUESTS && parse_request(&fr, &p, end); i++) {
		mock_response resp;
		mock_response_init(&resp);
		uint64_t rv = mock_store_rv(store);
		mock_api_handle(api, &fr.req, &resp);
		check_response(&resp);
		/* A refusal changes nothing. */
		if (resp.code >= 400 && resp.code < 500)
			FUZZ_CHECK(mock_store_rv(store) == rv);
		mock_response_free(&resp);
		free_request(&fr);
		clock_usec += 10 * 1000000LL;
		mock_server_tick(server);
	}
	/* The seeded objects were checked when they were first stored. */
	if (mock_store_rv(store) != seeded_rv)
		check_store(api);
	/* Every input starts from the seeded state: the same input always
	 * does the same, and libFuzzer sees as many frees as mallocs. */
	FUZZ_CHECK(mock_server_rewind(server) == 0);
	return 0;
}
