/* Health endpoints (healthz.go's handleRootHealth and adaptCheckToHandler).
 * Every check passes while the server answers requests at all. */
#include "health.h"

#include <stdlib.h>
#include <string.h>

static const char *const healthz_checks[] = {"ping", "log", NULL};
static const char *const readyz_checks[] = {"ping", "log", "shutdown", NULL};

static const struct {
	const char *path; /* "/healthz" */
	const char *name; /* "healthz", for "<name> check passed" */
	const char *const *checks;
} endpoints[] = {
    {"/healthz", "healthz", healthz_checks},
    {"/livez", "livez", healthz_checks},
    {"/readyz", "readyz", readyz_checks},
};

static void text(mock_response *resp, const char *body, size_t len)
{
	mock_response_json(resp, 200, body, len);
	resp->content_type = "text/plain; charset=utf-8";
}

static int has_check(const char *const *checks, const char *name)
{
	for (; *checks; checks++)
		if (strcmp(*checks, name) == 0)
			return 1;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The ?exclude values that name no check, sorted and de-duplicated (Go's
 * sets.String.List()), as `"a","b"`. */
static void unmatched_excludes(nl_buf *out, const mock_request *req, const char *const *checks)
{
	const char *names[MOCK_MAX_QUERY] = {0};
	size_t n = 0;
	for (size_t i = 0; i < req->nquery; i++) {
		const char *v = req->query[i].value ? req->query[i].value : "";
		if (strcmp(req->query[i].key, "exclude") == 0 && !has_check(checks, v))
			names[n++] = v;
	}
	qsort(names, n, sizeof(names[0]), cmp_str);
	for (size_t i = 0, written = 0; i < n; i++) {
		if (i > 0 && strcmp(names[i], names[i - 1]) == 0)
			continue;
		nl_buf_printf(out, "%s\"%s\"", written++ ? "," : "", names[i]);
	}
}

static int excluded(const mock_request *req, const char *check)
{
	for (size_t i = 0; i < req->nquery; i++)
		if (strcmp(req->query[i].key, "exclude") == 0 && req->query[i].value &&
		    strcmp(req->query[i].value, check) == 0)
			return 1;
	return 0;
}

static void root_health(const mock_request *req, mock_response *resp, const char *name,
                        const char *const *checks)
{
	nl_buf b, missing;
	nl_buf_init(&b, 64 * 1024);
	nl_buf_init(&missing, 16 * 1024);
	for (const char *const *c = checks; *c; c++)
		nl_buf_printf(&b, excluded(req, *c) ? "[+]%s excluded: ok\n" : "[+]%s ok\n", *c);
	unmatched_excludes(&missing, req, checks);
	if (missing.len)
		nl_buf_printf(&b,
		              "warn: some health checks cannot be excluded: no matches for %s\n",
		              missing.data);
	if (!mock_request_query(req, "verbose")) {
		text(resp, "ok", 2);
	} else {
		nl_buf_printf(&b, "%s check passed\n", name);
		text(resp, b.data ? b.data : "", b.len);
	}
	nl_buf_free(&missing);
	nl_buf_free(&b);
}

int mock_handle_health(const mock_request *req, mock_response *resp)
{
	const char *p = req->path;
	for (size_t i = 0; i < sizeof(endpoints) / sizeof(endpoints[0]); i++) {
		size_t n = strlen(endpoints[i].path);
		if (strncmp(p, endpoints[i].path, n) != 0)
			continue;
		const char *rest = p + n;
		if (*rest == '\0' || strcmp(rest, "/") == 0) {
			root_health(req, resp, endpoints[i].name, endpoints[i].checks);
			return 1;
		}
		if (*rest == '/' && has_check(endpoints[i].checks, rest + 1)) {
			text(resp, "ok", 2);
			return 1;
		}
		return 0;
	}
	return 0;
}
