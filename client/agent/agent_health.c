/* /healthz, /livez, /readyz: component-base's healthz handler (its body
 * formats, ?verbose, ?exclude and per-check paths) over the agent's few
 * checks. A failing check's reason goes to the log, never to the body: the
 * endpoint needs no credentials. */
#include "agent_health.h"

#include <ctype.h>
#include <nodelet/errors.h>
#include <nodelet/log.h>
#include <string.h>

typedef struct {
	const char *name;
	/* NULL when the check passes, else why not (for the log). */
	const char *(*check)(const nl__agent_health_state *st);
} health_check;

static const char *ping(const nl__agent_health_state *st)
{
	(void)st;
	return NULL;
}

static const char *registration(const nl__agent_health_state *st)
{
	return st->registered ? NULL : "the node is not registered yet";
}

static const char *node_lease(const nl__agent_health_state *st)
{
	return st->lease_written ? NULL : "the node lease has not been written yet";
}

/* Liveness must not depend on the API server: a restart would not bring it
 * back, and the lease backs off on its own. */
static const health_check live_checks[] = {{"ping", ping}, {NULL, NULL}};
static const health_check ready_checks[] = {
    {"ping", ping}, {"registration", registration}, {"node-lease", node_lease}, {NULL, NULL}};

static const struct {
	const char *path;
	const health_check *checks;
} endpoints[] = {
    {"/healthz", live_checks},
    {"/livez", live_checks},
    {"/readyz", ready_checks},
};

static int hex(int c)
{
	return isdigit(c) ? c - '0' : isxdigit(c) ? (tolower(c) - 'a' + 10) : -1;
}

/* Whether query has key (with or without a value), as url.Values does. */
static int has_key(const char *query, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = query; p && *p;) {
		const char *end = strchr(p, '&');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len >= kl && strncmp(p, key, kl) == 0 && (len == kl || p[kl] == '='))
			return 1;
		p = end ? end + 1 : p + len;
	}
	return 0;
}

#define MAX_EXCLUDED 16

typedef struct {
	char name[MAX_EXCLUDED][64];
	int matched[MAX_EXCLUDED];
	size_t n;
} exclusions;

/* The exclude= values, percent-decoded ('+' as space); past 16, or past 63
 * bytes, the rest is dropped: there are three checks to name. */
static void excluded(exclusions *out, const char *query)
{
	memset(out, 0, sizeof(*out));
	for (const char *p = query; p && *p && out->n < MAX_EXCLUDED;) {
		const char *end = strchr(p, '&');
		size_t plen = end ? (size_t)(end - p) : strlen(p), len = 0;
		if (plen > 8 && strncmp(p, "exclude=", 8) == 0) {
			char *name = out->name[out->n++];
			for (size_t i = 8; i < plen && len + 1 < sizeof(out->name[0]); i++) {
				int c = (unsigned char)p[i];
				if (c == '%' && i + 2 < plen && hex(p[i + 1]) >= 0 &&
				    hex(p[i + 2]) >= 0) {
					c = hex(p[i + 1]) * 16 + hex(p[i + 2]);
					i += 2;
				} else if (c == '+') {
					c = ' ';
				}
				name[len++] = (char)c;
			}
		}
		p = end ? end + 1 : p + plen;
	}
}

/* Whether name is excluded; marks the exclusion as matched. */
static int take_excluded(exclusions *ex, const char *name)
{
	int found = 0;
	for (size_t i = 0; i < ex->n; i++)
		if (strcmp(ex->name[i], name) == 0)
			found = ex->matched[i] = 1;
	return found;
}

static int root(nl_buf *body, int *code, const char *name, const health_check *checks,
                const char *query, const nl__agent_health_state *st)
{
	exclusions ex;
	excluded(&ex, query);
	nl_buf list;
	int failed = 0, rc = 0;
	nl_buf_init(&list, 0);
	for (const health_check *c = checks; rc == 0 && c->name; c++) {
		const char *why;
		if (take_excluded(&ex, c->name)) {
			rc = nl_buf_printf(&list, "[+]%s excluded: ok\n", c->name);
		} else if ((why = c->check(st)) != NULL) {
			failed = 1;
			rc = nl_buf_printf(&list, "[-]%s failed: reason withheld\n", c->name);
			NL_LOG_V(2, "Health check failed", NL_KV_STR("endpoint", name + 1),
			         NL_KV_STR("check", c->name), NL_KV_STR("reason", why));
		} else {
			rc = nl_buf_printf(&list, "[+]%s ok\n", c->name);
		}
	}
	/* What could not be excluded, quoted and comma-separated. */
	int first = 1;
	for (size_t i = 0; rc == 0 && i < ex.n; i++) {
		if (ex.matched[i])
			continue;
		rc = nl_buf_printf(
		    &list, "%s\"%s\"",
		    first ? "warn: some health checks cannot be excluded: no matches for " : ",",
		    ex.name[i]);
		first = 0;
	}
	if (rc == 0 && !first)
		rc = nl_buf_adds(&list, "\n");
	const char *text = list.data ? list.data : "";
	/* Always the list on failure; on success only with ?verbose. */
	if (rc == 0 && failed)
		rc = nl_buf_printf(body, "%s%s check failed\n", text, name + 1);
	else if (rc == 0 && has_key(query, "verbose"))
		rc = nl_buf_printf(body, "%s%s check passed\n", text, name + 1);
	else if (rc == 0)
		rc = nl_buf_adds(body, "ok");
	nl_buf_free(&list);
	*code = failed ? 500 : 200;
	return rc == 0 ? 1 : NL_ENOMEM;
}

/* /<endpoint>/<check>: that check alone. */
static int single(nl_buf *body, int *code, const health_check *checks, const char *name,
                  const nl__agent_health_state *st)
{
	for (const health_check *c = checks; c->name; c++) {
		if (strcmp(c->name, name) != 0)
			continue;
		const char *why = c->check(st);
		*code = why ? 500 : 200;
		int rc = why ? nl_buf_printf(body, "internal server error: %s\n", why)
		             : nl_buf_adds(body, "ok");
		return rc == 0 ? 1 : NL_ENOMEM;
	}
	*code = 404;
	return nl_buf_adds(body, "404 page not found\n") == 0 ? 1 : NL_ENOMEM;
}

int nl__agent_health_answer(nl_buf *body, int *code, const char *path, const char *query,
                            const nl__agent_health_state *st)
{
	for (size_t i = 0; i < sizeof(endpoints) / sizeof(endpoints[0]); i++) {
		size_t len = strlen(endpoints[i].path);
		if (strncmp(path, endpoints[i].path, len) != 0)
			continue;
		if (path[len] == '\0')
			return root(body, code, endpoints[i].path, endpoints[i].checks, query, st);
		if (path[len] == '/')
			return single(body, code, endpoints[i].checks, path + len + 1, st);
	}
	return 0;
}
