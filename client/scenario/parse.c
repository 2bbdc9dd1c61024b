/* The scenario document (scenario.h): top-level fields, the initial
 * cluster, the agent's settings, and the helpers every part of the parser
 * shares. Steps are parse_steps.c, expectations parse_expect.c. */
#include <limits.h>
#include <nodelet/doc.h>
#include <nodelet/meta.h>
#include <nodelet/nodelet_config.h>
#include <nodelet/time.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "match.h"
#include "parse_internal.h"
#include "vars.h"

/* Largest scenario file read (a scenario is a page of YAML). */
#define SCENARIO_MAX_FILE (4u * 1024u * 1024u)

/* --- helpers ------------------------------------------------------------------------------ */

int nl_scn__pfail(nl_scn__pctx *c, const char *path, const char *fmt, ...)
{
	char msg[600];
	int line = 1, col = 1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	nl_scn_marks_find(c->sc->marks, path, &line, &col);
	if (path && *path)
		return nl_err_set(c->err, NL_EPARSE, "%s:%d:%d: %s: %s", c->sc->file, line, col,
		                  path, msg);
	return nl_err_set(c->err, NL_EPARSE, "%s:%d:%d: %s", c->sc->file, line, col, msg);
}

const char *nl_scn__pkey(char out[NL__PATH_MAX], const char *parent, const char *key)
{
	nl_scn_marks_key(out, NL__PATH_MAX, parent, key);
	return out;
}

const char *nl_scn__pidx(char out[NL__PATH_MAX], const char *parent, size_t i)
{
	nl_scn_marks_index(out, NL__PATH_MAX, parent, i);
	return out;
}

const char *nl_scn__ptype(json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_object:
		return "a mapping";
	case json_type_array:
		return "a sequence";
	case json_type_string:
		return "a string";
	case json_type_null:
		return "nothing";
	case json_type_boolean:
		return "a boolean";
	default:
		return "a number";
	}
}

int nl_scn__pwant(nl_scn__pctx *c, const char *path, json_object *v, json_type t, const char *what)
{
	if (json_object_get_type(v) == t)
		return 0;
	if (json_object_is_type(v, json_type_string))
		return nl_scn__pfail(c, path, "expected %s, got \"%s\"", what,
		                     json_object_get_string(v));
	return nl_scn__pfail(c, path, "expected %s, got %s", what, nl_scn__ptype(v));
}

static int in_list(const char *key, const char *const *list)
{
	for (; list && *list; list++)
		if (strcmp(key, *list) == 0)
			return 1;
	return 0;
}

int nl_scn__pkeys(nl_scn__pctx *c, const char *path, json_object *obj, const char *const *allowed,
                  const char *const *required)
{
	char p[NL__PATH_MAX], names[512] = "";
	json_object_object_foreach(obj, key, val)
	{
		(void)val;
		if (in_list(key, allowed))
			continue;
		for (const char *const *a = allowed; *a; a++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			         a == allowed ? "" : ", ", *a);
		return nl_scn__pfail(c, nl_scn__pkey(p, path, key),
		                     "unknown field (expected one of: %s)", names);
	}
	for (; required && *required; required++)
		if (!json_object_object_get_ex(obj, *required, NULL))
			return nl_scn__pfail(c, path, "missing required field \"%s\"", *required);
	return 0;
}

int nl_scn__pduration(nl_scn__pctx *c, const char *path, json_object *v, int allow_zero,
                      int64_t *out)
{
	int64_t d = 0;
	if (!json_object_is_type(v, json_type_string) ||
	    nl_duration_parse(&d, json_object_get_string(v)) != 0 || d < 0 || (!allow_zero && !d)) {
		if (json_object_is_type(v, json_type_string))
			return nl_scn__pfail(c, path,
			                     "expected a duration like 10s or 1m30s, got \"%s\"",
			                     json_object_get_string(v));
		return nl_scn__pfail(c, path, "expected a duration like 10s or 1m30s, got %s",
		                     nl_scn__ptype(v));
	}
	*out = d;
	return 0;
}

typedef struct {
	nl_scn__pctx *c;
	const char *path;
} refs_ctx;

static int check_ref(const char *name, void *payload)
{
	refs_ctx *r = payload;
	/* An expectation of the clock's exact time holds on virtual time only:
	 * on real time the write happened a moment before the check. */
	if (strcmp(name, "now") == 0 && strstr(r->path, ".expect"))
	r->c->sc->requires |= NL_REQ_VIRTUAL_TIME;
	if (json_object_object_get_ex(r->c->defined, name, NULL))
		return 0;
	return nl_scn__pfail(r->c, r->path,
	                     "variable \"%s\" is not defined here (define it in vars: or capture "
	                     "it with as: in an earlier step)",
	                     name);
}

int nl_scn__prefs(nl_scn__pctx *c, const char *path, json_object *v)
{
	refs_ctx r = {c, path};
	nl_err e = {0};
	int rc = nl_scn_vars_refs(v, check_ref, &r, &e);
	if (rc == NL_EPARSE && e.msg[0])
		return nl_scn__pfail(c, path, "%s", e.msg);
	return rc;
}

/* Set by the runner: the clock's time, the agent's node name, the
 * fixtures directory (where a scenario's own programs are) and the first
 * agent's dynamic config directory. */
static int reserved(const char *name)
{
	return strcmp(name, "now") == 0 || strcmp(name, "nodeName") == 0 ||
	       strcmp(name, "fixturesDir") == 0 || strcmp(name, "configDir") == 0;
}

int nl_scn__pdefine(nl_scn__pctx *c, const char *path, json_object *name)
{
	int rc = nl_scn__pwant(c, path, name, json_type_string, "a variable name");
	if (rc != 0)
		return rc;
	if (!nl_scn_vars_valid_name(json_object_get_string(name)))
		return nl_scn__pfail(c, path,
		                     "\"%s\" is not a variable name (letters, digits, _ and -)",
		                     json_object_get_string(name));
	if (reserved(json_object_get_string(name)))
		return nl_scn__pfail(c, path, "\"%s\" is a builtin variable; choose another name",
		                     json_object_get_string(name));
	json_object_object_add(c->defined, json_object_get_string(name),
	                       json_object_new_boolean(1));
	return 0;
}

static const char *opt_string(json_object *obj, const char *key)
{
	json_object *v;
	return json_object_object_get_ex(obj, key, &v) && json_object_is_type(v, json_type_string)
	           ? json_object_get_string(v)
	           : NULL;
}

static int check_kind(nl_scn__pctx *c, const char *path, json_object *obj)
{
	char p[NL__PATH_MAX];
	json_object *kind, *av;
	int rc;
	if (!json_object_object_get_ex(obj, "kind", &kind))
		return nl_scn__pfail(c, path, "missing required field \"kind\"");
	if ((rc = nl_scn__pwant(c, nl_scn__pkey(p, path, "kind"), kind, json_type_string,
	                        "a kind")) != 0)
		return rc;
	if (json_object_object_get_ex(obj, "apiVersion", &av) &&
	    (rc = nl_scn__pwant(c, nl_scn__pkey(p, path, "apiVersion"), av, json_type_string,
	                        "an apiVersion")) != 0)
		return rc;
	if (!nl_scn_kind(json_object_get_string(kind), NULL))
		return nl_scn__pfail(c, nl_scn__pkey(p, path, "kind"),
		                     "expected one of %s, got \"%s\"", nl_scn_kinds(),
		                     json_object_get_string(kind));
	if (!nl_scn_kind(json_object_get_string(kind), opt_string(obj, "apiVersion")))
		return nl_scn__pfail(c, nl_scn__pkey(p, path, "apiVersion"),
		                     "\"%s\" is not the apiVersion of %s",
		                     opt_string(obj, "apiVersion"), json_object_get_string(kind));
	return 0;
}

int nl_scn__pobjref(nl_scn__pctx *c, const char *path, json_object *v, const char *const *extra)
{
	static const char *const base[] = {"kind", "name", "namespace", "apiVersion"};
	const char *allowed[32];
	char p[NL__PATH_MAX];
	size_t n = 0;
	int rc;
	if ((rc = nl_scn__pwant(c, path, v, json_type_object, "a mapping with kind and name")) != 0)
		return rc;
	for (size_t i = 0; i < 4; i++)
		allowed[n++] = base[i];
	for (; extra && *extra && n < 31; extra++)
		allowed[n++] = *extra;
	allowed[n] = NULL;
	static const char *const required[] = {"kind", "name", NULL};
	if ((rc = nl_scn__pkeys(c, path, v, allowed, required)) != 0 ||
	    (rc = check_kind(c, path, v)))
		return rc;
	json_object *x;
	if ((rc = nl_scn__pwant(c, nl_scn__pkey(p, path, "name"),
	                        json_object_object_get_ex(v, "name", &x) ? x : NULL,
	                        json_type_string, "a name")) != 0)
		return rc;
	if (json_object_object_get_ex(v, "namespace", &x))
		return nl_scn__pwant(c, nl_scn__pkey(p, path, "namespace"), x, json_type_string,
		                     "a namespace");
	return 0;
}

int nl_scn__pobject(nl_scn__pctx *c, const char *path, json_object *v)
{
	char p[NL__PATH_MAX];
	json_object *meta, *name;
	int rc;
	if ((rc = nl_scn__pwant(c, path, v, json_type_object, "a Kubernetes object")) != 0 ||
	    (rc = check_kind(c, path, v)) != 0)
		return rc;
	if (!json_object_object_get_ex(v, "metadata", &meta) ||
	    !json_object_object_get_ex(meta, "name", &name))
		return nl_scn__pfail(c, path, "missing required field \"metadata.name\"");
	return nl_scn__pwant(c, nl_scn__pkey(p, nl_scn__pkey(p, path, "metadata"), "name"), name,
	                     json_type_string, "a name");
}

int nl_scn__pmatch(nl_scn__pctx *c, const char *path, json_object *v)
{
	nl_err e = {0};
	if (nl_scn_match_check(v, "", &e) == 0)
		return 0;
	/* e.msg is "<relative path>: why"; point at the operator. */
	const char *colon = strstr(e.msg, ": ");
	char where[NL__PATH_MAX];
	if (!colon)
		return nl_scn__pfail(c, path, "%s", e.msg);
	snprintf(where, sizeof(where), "%s%s%.*s", path,
	         *path && e.msg[0] != '[' && colon != e.msg ? "." : "", (int)(colon - e.msg),
	         e.msg);
	return nl_scn__pfail(c, where, "%s", colon + 2);
}

/* --- top level ----------------------------------------------------------------------------- */

static int parse_strings(nl_scn__pctx *c, const char *path, json_object *v, char ***out, size_t *n)
{
	char p[NL__PATH_MAX];
	int rc;
	if ((rc = nl_scn__pwant(c, path, v, json_type_array, "a list of strings")) != 0)
		return rc;
	size_t len = json_object_array_length(v);
	char **s = calloc(len + 1, sizeof(*s));
	if (!s)
		return nl_err_set(c->err, NL_ENOMEM, "out of memory");
	for (size_t i = 0; i < len; i++) {
		json_object *item = json_object_array_get_idx(v, i);
		if ((rc = nl_scn__pwant(c, nl_scn__pidx(p, path, i), item, json_type_string,
		                        "a string")) != 0 ||
		    !(s[i] = strdup(json_object_get_string(item)))) {
			for (size_t j = 0; j < i; j++)
				free(s[j]);
			free(s);
			return rc ? rc : nl_err_set(c->err, NL_ENOMEM, "out of memory");
		}
	}
	*out = s;
	*n = len;
	return 0;
}

static int parse_requires(nl_scn__pctx *c, json_object *v)
{
	char p[NL__PATH_MAX];
	int rc = nl_scn__pwant(c, "requires", v, json_type_array, "a list like [faults, journal]");
	for (size_t i = 0; rc == 0 && i < json_object_array_length(v); i++) {
		json_object *item = json_object_array_get_idx(v, i);
		unsigned bit = json_object_is_type(item, json_type_string)
		                   ? nl_scn_req_bit(json_object_get_string(item))
		                   : 0;
		if (!bit)
			return nl_scn__pfail(
			    c, nl_scn__pidx(p, "requires", i),
			    "expected one of faults, journal, virtual-time, embedded, "
			    "mockapi, got %s",
			    json_object_to_json_string(item));
		c->sc->requires |= bit;
	}
	return rc;
}

static int parse_vars(nl_scn__pctx *c, json_object *v)
{
	char p[NL__PATH_MAX];
	int rc = nl_scn__pwant(c, "vars", v, json_type_object, "a mapping of names to values");
	if (rc != 0)
		return rc;
	json_object_object_foreach(v, key, val)
	{
		(void)val;
		if (!nl_scn_vars_valid_name(key))
			return nl_scn__pfail(
			    c, nl_scn__pkey(p, "vars", key),
			    "\"%s\" is not a variable name (letters, digits, _ and -)", key);
		if (reserved(key))
			return nl_scn__pfail(c, nl_scn__pkey(p, "vars", key),
			                     "\"%s\" is a builtin variable; choose another name",
			                     key);
		json_object_object_add(c->defined, key, json_object_new_boolean(1));
	}
	c->sc->vars = v;
	return 0;
}

static int parse_server(nl_scn__pctx *c, json_object *v)
{
	static const char *const keys[] = {"watchCacheSize",
	                                   "nodeMonitorGracePeriod",
	                                   "nodeStartupGracePeriod",
	                                   "nodeMonitorPeriod",
	                                   "controllers",
	                                   NULL};
	char p[NL__PATH_MAX];
	int64_t d;
	int rc;
	if ((rc = nl_scn__pwant(c, "server", v, json_type_object, "a mapping")) != 0 ||
	    (rc = nl_scn__pkeys(c, "server", v, keys, NULL)) != 0)
		return rc;
	json_object_object_foreach(v, key, val)
	{
		nl_scn__pkey(p, "server", key);
		if (strcmp(key, "watchCacheSize") == 0) {
			if (!json_object_is_type(val, json_type_int) ||
			    json_object_get_int64(val) < 1)
				return nl_scn__pfail(c, p, "expected a number of changes >= 1");
		} else if (strcmp(key, "controllers") == 0) {
			if ((rc = nl_scn__pwant(c, p, val, json_type_string,
			                        "a list like \"*,-nodelifecycle\"")) != 0)
				return rc;
		} else if ((rc = nl_scn__pduration(c, p, val, 0, &d)) != 0) {
			return rc;
		}
	}
	c->sc->server = v;
	c->sc->requires |= NL_REQ_EMBEDDED;
	return 0;
}

static int add_cluster_object(nl_scn__pctx *c, const char *path, json_object *obj)
{
	int rc = nl_scn__pobject(c, path, obj);
	if (rc == 0)
		rc = nl_scn__prefs(c, path, obj);
	if (rc == 0 && json_object_array_add(c->sc->cluster, json_object_get(obj)) != 0) {
		json_object_put(obj);
		rc = nl_err_set(c->err, NL_ENOMEM, "out of memory");
	}
	return rc;
}

/* Why an included document cannot be an initial object, or NULL. */
static const char *object_problem(json_object *obj)
{
	json_object *meta, *name;
	if (!json_object_is_type(obj, json_type_object))
		return "not a Kubernetes object";
	if (!nl_scn_kind(opt_string(obj, "kind"), opt_string(obj, "apiVersion")))
		return "not a kind (and apiVersion) a scenario can create";
	if (!json_object_object_get_ex(obj, "metadata", &meta) ||
	    !json_object_object_get_ex(meta, "name", &name) ||
	    !json_object_is_type(name, json_type_string))
		return "missing metadata.name";
	return NULL;
}

static int include_file(nl_scn__pctx *c, const char *path, json_object *item)
{
	char p[NL__PATH_MAX], file[PATH_MAX];
	json_object *name, *docs = NULL;
	nl_err e = {0};
	int rc;
	if ((rc = nl_scn__pkeys(c, path, item, (const char *const[]){"include", NULL}, NULL)) != 0)
		return rc;
	json_object_object_get_ex(item, "include", &name);
	nl_scn__pkey(p, path, "include");
	if ((rc = nl_scn__pwant(c, p, name, json_type_string, "a manifest path under fixtures/")) !=
	    0)
		return rc;
	const char *rel = json_object_get_string(name);
	if (rel[0] == '/' || !c->fixtures_dir)
		snprintf(file, sizeof(file), "%s", rel);
	else
		snprintf(file, sizeof(file), "%s/%s", c->fixtures_dir, rel);
	if (nl_doc_load_file(&docs, file, &e) != 0)
		return nl_scn__pfail(c, p, "%s", e.msg);
	for (size_t i = 0; rc == 0 && i < json_object_array_length(docs); i++) {
		json_object *obj = json_object_array_get_idx(docs, i);
		const char *why = object_problem(obj);
		rc = why ? nl_scn__pfail(c, p, "%s: document %zu: %s", file, i + 1, why)
		         : add_cluster_object(c, p, obj);
	}
	json_object_put(docs);
	return rc;
}

static int parse_cluster(nl_scn__pctx *c, json_object *v)
{
	char p[NL__PATH_MAX];
	int rc = nl_scn__pwant(c, "cluster", v, json_type_array,
	                       "a list of objects and {include: FILE} entries");
	for (size_t i = 0; rc == 0 && i < json_object_array_length(v); i++) {
		json_object *item = json_object_array_get_idx(v, i);
		nl_scn__pidx(p, "cluster", i);
		if (json_object_is_type(item, json_type_object) &&
		    json_object_object_get_ex(item, "include", NULL))
			rc = include_file(c, p, item);
		else
			rc = add_cluster_object(c, p, item);
	}
	return rc;
}

/* The agent's NodeletConfiguration fields, checked by the agent's own
 * decoder and validation. */
static const char *const config_keys[] = {"leaseDurationSeconds",
                                          "nodeStatusReportFrequency",
                                          "nodeStatusUpdateFrequency",
                                          "registerNode",
                                          "nodeLabels",
                                          "registerWithTaints",
                                          "logVerbosity",
                                          NULL};

static int check_agent_config(nl_scn__pctx *c, const char *path, json_object *agent)
{
	json_object *doc = json_object_new_object();
	nl_nodelet_config *cfg = NULL;
	nl_err e = {0};
	int rc = 0;
	json_object_object_add(doc, "apiVersion",
	                       json_object_new_string(NL_NODELET_CONFIG_API_VERSION));
	json_object_object_add(doc, "kind", json_object_new_string(NL_NODELET_CONFIG_KIND));
	json_object_object_foreach(agent, key, val)
	{
		if (in_list(key, config_keys))
			json_object_object_add(doc, key, json_object_get(val));
	}
	size_t len = 0;
	const char *text = nl_json_compact(doc, &len);
	if (nl_nodelet_config_parse(&cfg, text, len, "configuration", &e) != 0 ||
	    nl_nodelet_config_validate(cfg, &e) != 0)
		rc = nl_scn__pfail(c, path, "%s", e.msg);
	nl_nodelet_config_free(cfg);
	json_object_put(doc);
	return rc;
}

/* One agent's mapping at path ("agent", "agents[1]") into out. */
static int parse_one_agent(nl_scn__pctx *c, const char *path, json_object *v,
                           nl_scn_agent_spec *out)
{
	static const char *const keys[] = {"nodeName",
	                                   "leaseName",
	                                   "leaseNamespace",
	                                   "jitterSeed",
	                                   "dynamicConfig",
	                                   "leaseDurationSeconds",
	                                   "nodeStatusReportFrequency",
	                                   "nodeStatusUpdateFrequency",
	                                   "registerNode",
	                                   "nodeLabels",
	                                   "registerWithTaints",
	                                   "logVerbosity",
	                                   NULL};
	static const char *const required[] = {"nodeName", NULL};
	char p[NL__PATH_MAX];
	json_object *x;
	int rc;
	if ((rc = nl_scn__pwant(c, path, v, json_type_object, "a mapping with nodeName")) != 0 ||
	    (rc = nl_scn__pkeys(c, path, v, keys, required)) != 0)
		return rc;
	static const char *const strings[] = {"nodeName", "leaseName", "leaseNamespace"};
	for (size_t i = 0; i < 3; i++)
		if (json_object_object_get_ex(v, strings[i], &x) &&
		    (rc = nl_scn__pwant(c, nl_scn__pkey(p, path, strings[i]), x, json_type_string,
		                        "a string")) != 0)
			return rc;
	if (json_object_object_get_ex(v, "jitterSeed", &x) &&
	    (!json_object_is_type(x, json_type_int) || json_object_get_int64(x) < 0))
		return nl_scn__pfail(c, nl_scn__pkey(p, path, "jitterSeed"),
		                     "expected a number >= 0");
	if (json_object_object_get_ex(v, "dynamicConfig", &x)) {
		if ((rc = nl_scn__pwant(c, nl_scn__pkey(p, path, "dynamicConfig"), x,
		                        json_type_boolean, "true or false")) != 0)
			return rc;
		out->dynamic_config = json_object_get_boolean(x);
	}
	if ((rc = check_agent_config(c, path, v)) != 0)
		return rc;
	out->settings = v;
	out->node_name = opt_string(v, "nodeName");
	return 0;
}

static int add_agent(nl_scn__pctx *c, const char *path, json_object *v)
{
	nl_scn_scenario *sc = c->sc;
	char p[NL__PATH_MAX], other[NL__PATH_MAX];
	nl_scn_agent_spec *spec = &sc->agents[sc->nagents];
	int rc = parse_one_agent(c, path, v, spec);
	if (rc != 0)
		return rc;
	/* Nodes, leases and journal entries are told apart by node name. */
	for (size_t i = 0; i < sc->nagents; i++)
		if (strcmp(sc->agents[i].node_name, spec->node_name) == 0)
			return nl_scn__pfail(c, nl_scn__pkey(p, path, "nodeName"),
			                     "\"%s\" is already the node of %s", spec->node_name,
			                     nl_scn__pidx(other, "agents", i));
	sc->nagents++;
	return 0;
}

/* `agent:` (one mapping) or `agents:` (a list of them). */
static int parse_agents(nl_scn__pctx *c, json_object *one, json_object *list)
{
	nl_scn_scenario *sc = c->sc;
	char p[NL__PATH_MAX];
	int rc = 0;
	if (one && list)
		return nl_scn__pfail(c, "agents", "write either agent: or agents:, not both");
	if (list) {
		if (!json_object_is_type(list, json_type_array))
			return nl_scn__pfail(c, "agents",
			                     "expected a list of agents (each a mapping with "
			                     "nodeName), got %s",
			                     nl_scn__ptype(list));
		if (json_object_array_length(list) == 0)
			return nl_scn__pfail(c, "agents", "expected at least one agent");
	}
	size_t n = list ? json_object_array_length(list) : 1;
	if (!(sc->agents = calloc(n, sizeof(*sc->agents))))
		return nl_err_set(c->err, NL_ENOMEM, "out of memory");
	if (one)
		rc = add_agent(c, "agent", one);
	for (size_t i = 0; list && rc == 0 && i < n; i++)
		rc = add_agent(c, nl_scn__pidx(p, "agents", i), json_object_array_get_idx(list, i));
	if (rc != 0)
		return rc;
	sc->several = list != NULL;
	sc->agent = sc->agents[0].settings;
	sc->dynamic_config = sc->agents[0].dynamic_config;
	json_object_object_add(c->defined, "nodeName", json_object_new_boolean(1));
	return 0;
}

/* realTime: {scale: S}, 0 < S <= 1. */
static int parse_real_time(nl_scn__pctx *c, json_object *v)
{
	static const char *const keys[] = {"scale", NULL};
	json_object *s;
	int rc = nl_scn__pwant(c, "realTime", v, json_type_object, "a mapping like {scale: 0.1}");
	if (rc != 0 || (rc = nl_scn__pkeys(c, "realTime", v, keys, keys)) != 0)
		return rc;
	json_object_object_get_ex(v, "scale", &s);
	double d = json_object_is_type(s, json_type_double) || json_object_is_type(s, json_type_int)
	               ? json_object_get_double(s)
	               : 0;
	if (!(d > 0 && d <= 1))
		return nl_scn__pfail(c, "realTime.scale",
		                     "expected a number above 0 and at most 1");
	c->sc->real_time_scale = d;
	return 0;
}

static int parse_header(nl_scn__pctx *c, json_object *doc)
{
	nl_scn_scenario *sc = c->sc;
	json_object *v;
	int rc = 0;
	if (json_object_object_get_ex(doc, "name", &v)) {
		if ((rc = nl_scn__pwant(c, "name", v, json_type_string, "a name")) != 0)
			return rc;
		free(sc->name);
		if (!(sc->name = strdup(json_object_get_string(v))))
			return nl_err_set(c->err, NL_ENOMEM, "out of memory");
	}
	if (json_object_object_get_ex(doc, "description", &v)) {
		if ((rc = nl_scn__pwant(c, "description", v, json_type_string, "a text")) != 0)
			return rc;
		if (!(sc->description = strdup(json_object_get_string(v))))
			return nl_err_set(c->err, NL_ENOMEM, "out of memory");
	}
	if (json_object_object_get_ex(doc, "tags", &v) &&
	    (rc = parse_strings(c, "tags", v, &sc->tags, &sc->ntags)) != 0)
		return rc;
	if (json_object_object_get_ex(doc, "requires", &v) && (rc = parse_requires(c, v)) != 0)
		return rc;
	if (json_object_object_get_ex(doc, "timeout", &v) &&
	    (rc = nl_scn__pduration(c, "timeout", v, 0, &sc->timeout_usec)) != 0)
		return rc;
	if (json_object_object_get_ex(doc, "realTime", &v) && (rc = parse_real_time(c, v)) != 0)
		return rc;
	if (json_object_object_get_ex(doc, "seed", &v)) {
		if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
			return nl_scn__pfail(c, "seed", "expected a number >= 0");
		sc->seed = (uint64_t)json_object_get_int64(v);
	}
	if (json_object_object_get_ex(doc, "startTime", &v) &&
	    (!json_object_is_type(v, json_type_string) ||
	     nl_time_parse(&sc->start_usec, json_object_get_string(v)) != 0))
		return nl_scn__pfail(c, "startTime", "expected an RFC 3339 time like %s",
		                     NL_SCENARIO_DEFAULT_START);
	return 0;
}

static int parse_steps(nl_scn__pctx *c, json_object *v)
{
	int rc = nl_scn__pwant(c, "steps", v, json_type_array, "a list of steps");
	if (rc != 0)
		return rc;
	size_t n = json_object_array_length(v);
	if (n == 0)
		return nl_scn__pfail(c, "steps", "expected at least one step");
	if (!(c->sc->steps = calloc(n, sizeof(nl_scn_step))))
		return nl_err_set(c->err, NL_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		if ((rc = nl_scn__parse_step(c, &c->sc->steps[i], json_object_array_get_idx(v, i),
		                             i)) != 0)
			return rc;
		c->sc->nsteps++;
	}
	/* A program's requests reach only the server's journal; the agents'
	 * are in the runner's own (client_journal.h) on any target. */
	if (c->sc->expects_requests && c->sc->programs)
	c->sc->requires |= NL_REQ_JOURNAL;
	return 0;
}

static int parse_doc(nl_scn__pctx *c, json_object *doc)
{
	static const char *const keys[] = {"name",    "description", "tags",      "requires",
	                                   "timeout", "seed",        "startTime", "realTime",
	                                   "vars",    "server",      "cluster",   "agent",
	                                   "agents",  "steps",       NULL};
	static const char *const required[] = {"steps", NULL};
	json_object *v;
	int rc;
	if (!json_object_is_type(doc, json_type_object))
		return nl_scn__pfail(c, "",
		                     "expected a scenario (a mapping with name and steps), got %s",
		                     nl_scn__ptype(doc));
	if ((rc = nl_scn__pkeys(c, "", doc, keys, required)) != 0 ||
	    (rc = parse_header(c, doc)) != 0)
		return rc;
	json_object_object_add(c->defined, "now", json_object_new_boolean(1));
	json_object_object_add(c->defined, "fixturesDir", json_object_new_boolean(1));
	if (json_object_object_get_ex(doc, "vars", &v) && (rc = parse_vars(c, v)) != 0)
		return rc;
	if (json_object_object_get_ex(doc, "server", &v) && (rc = parse_server(c, v)) != 0)
		return rc;
	json_object *one = NULL, *list = NULL;
	json_object_object_get_ex(doc, "agent", &one);
	json_object_object_get_ex(doc, "agents", &list);
	if ((one || list) && (rc = parse_agents(c, one, list)) != 0)
		return rc;
	if (json_object_object_get_ex(doc, "cluster", &v) && (rc = parse_cluster(c, v)) != 0)
		return rc;
	/* Steps only: the directory is made with the agents, after the
	 * cluster is loaded. */
	if (c->sc->dynamic_config)
		json_object_object_add(c->defined, "configDir", json_object_new_boolean(1));
	json_object_object_get_ex(doc, "steps", &v);
	return parse_steps(c, v);
}

/* --- entry points --------------------------------------------------------------------------- */

/* nl_doc says "NAME: line L, column C: why"; print it as "NAME:L:C: why". */
static int doc_error(nl_err *err, const nl_err *e, const char *file)
{
	unsigned long line, col;
	size_t n = strlen(file);
	const char *rest = e->msg;
	int used = 0;
	if (strncmp(rest, file, n) == 0 && rest[n] == ':' &&
	    sscanf(rest + n, ": line %lu, column %lu: %n", &line, &col, &used) == 2 && used > 0)
		return nl_err_set(err, NL_EPARSE, "%s:%lu:%lu: %s", file, line, col,
		                  rest + n + used);
	if (strstr(rest, "no document found"))
		return nl_err_set(
		    err, NL_EPARSE,
		    "%s:1:1: the file holds no scenario (expected a mapping with name "
		    "and steps)",
		    file);
	return nl_err_set(err, e->code ? e->code : NL_EPARSE, "%s", rest);
}

static char *default_name(const char *file)
{
	const char *base = strrchr(file, '/');
	base = base ? base + 1 : file;
	size_t n = strlen(base);
	if (n > 5 && strcmp(base + n - 5, ".yaml") == 0)
		n -= 5;
	else if (n > 4 && strcmp(base + n - 4, ".yml") == 0)
		n -= 4;
	return strndup(base, n);
}

int nl_scn_parse(nl_scn_scenario **out, const char *buf, size_t len, const char *file,
                 const char *fixtures_dir, nl_err *err)
{
	nl_scn_scenario *sc = calloc(1, sizeof(*sc));
	nl_scn__pctx c = {sc, err, fixtures_dir, json_object_new_object(), 0, -1};
	nl_err e = {0};
	int rc = NL_ENOMEM;
	if (!sc || !c.defined || !(sc->file = strdup(file)) || !(sc->name = default_name(file)) ||
	    !(sc->fixtures_dir = strdup(fixtures_dir ? fixtures_dir : ".")) ||
	    !(sc->cluster = json_object_new_array())) {
		nl_err_set(err, rc, "out of memory");
		goto fail;
	}
	sc->timeout_usec = NL_SCENARIO_DEFAULT_TIMEOUT_USEC;
	sc->seed = 1;
	nl_time_parse(&sc->start_usec, NL_SCENARIO_DEFAULT_START);
	if ((rc = nl_scn_marks_parse(&sc->marks, buf, len, file, err)) != 0)
		goto fail;
	if ((rc = nl_doc_parse_one(&sc->doc, buf, len, file, &e)) != 0) {
		rc = doc_error(err, &e, file);
		goto fail;
	}
	if ((rc = parse_doc(&c, sc->doc)) != 0)
		goto fail;
	json_object_put(c.defined);
	*out = sc;
	return 0;
fail:
	json_object_put(c.defined);
	nl_scn_free(sc);
	return rc;
}

int nl_scn_load(nl_scn_scenario **out, const char *file, const char *fixtures_dir, nl_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = nl_file_read(&buf, &len, file, SCENARIO_MAX_FILE, err);
	if (rc != 0)
		return rc;
	rc = nl_scn_parse(out, buf, len, file, fixtures_dir, err);
	free(buf);
	return rc;
}

void nl_scn_free(nl_scn_scenario *sc)
{
	if (!sc)
		return;
	for (size_t i = 0; i < sc->ntags; i++)
		free(sc->tags[i]);
	free(sc->tags);
	free(sc->steps);
	free(sc->agents);
	json_object_put(sc->cluster);
	json_object_put(sc->doc);
	nl_scn_marks_free(sc->marks);
	free(sc->file);
	free(sc->fixtures_dir);
	free(sc->name);
	free(sc->description);
	free(sc);
}

void nl_scn_where(char *out, size_t outlen, const nl_scn_scenario *sc, const char *path)
{
	int line = 1, col = 1;
	nl_scn_marks_find(sc->marks, path, &line, &col);
	snprintf(out, outlen, "%s:%d", sc->file, line);
}
