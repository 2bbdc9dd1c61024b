/* `expect:` steps (scenario.h): each assertion kind's shape. */
#include <stdio.h>
#include <string.h>

#include "jpath.h"
#include "parse_internal.h"
#include "reqpat.h"

static int check_fields(nl_scn__pctx *c, const char *path, json_object *v)
{
	char p[NL__PATH_MAX];
	nl_scn_jpath *jp = NULL;
	nl_err e = {0};
	int rc = nl_scn__pwant(c, path, v, json_type_object,
	                       "a mapping of paths (like spec.holderIdentity) to values");
	if (rc != 0)
		return rc;
	json_object_object_foreach(v, key, val)
	{
		nl_scn__pkey(p, path, key);
		if (!strstr(key, "${")) {
			if (nl_scn_jpath_parse(&jp, key, &e) != 0)
				return nl_scn__pfail(c, p, "%s", e.msg);
			nl_scn_jpath_free(jp);
		}
		if ((rc = nl_scn__pmatch(c, p, val)) != 0)
			return rc;
	}
	return 0;
}

static int parse_object(nl_scn__pctx *c, const char *path, json_object *v)
{
	static const char *const extra[] = {"match", "fields", "as", NULL};
	char p[NL__PATH_MAX];
	json_object *x;
	int rc;
	if ((rc = nl_scn__pobjref(c, path, v, extra)) != 0)
		return rc;
	if (json_object_object_get_ex(v, "match", &x) &&
	    (rc = nl_scn__pmatch(c, nl_scn__pkey(p, path, "match"), x)) != 0)
		return rc;
	if (json_object_object_get_ex(v, "fields", &x) &&
	    (rc = check_fields(c, nl_scn__pkey(p, path, "fields"), x)) != 0)
		return rc;
	if (json_object_object_get_ex(v, "as", &x))
		return nl_scn__pdefine(c, nl_scn__pkey(p, path, "as"), x);
	return 0;
}

static int parse_objects(nl_scn__pctx *c, const char *path, json_object *v)
{
	char p[NL__PATH_MAX];
	int rc = nl_scn__pwant(c, path, v, json_type_array, "a list of objects");
	for (size_t i = 0; rc == 0 && i < json_object_array_length(v); i++)
		rc = parse_object(c, nl_scn__pidx(p, path, i), json_object_array_get_idx(v, i));
	return rc;
}

static int parse_absent(nl_scn__pctx *c, const char *path, json_object *v)
{
	char p[NL__PATH_MAX];
	int rc = 0;
	if (!json_object_is_type(v, json_type_array))
		return nl_scn__pobjref(c, path, v, NULL);
	for (size_t i = 0; rc == 0 && i < json_object_array_length(v); i++)
		rc = nl_scn__pobjref(c, nl_scn__pidx(p, path, i), json_object_array_get_idx(v, i),
		                     NULL);
	return rc;
}

static int parse_one_list(nl_scn__pctx *c, const char *path, json_object *v)
{
	static const char *const keys[] = {"kind",          "apiVersion",    "namespace",
	                                   "labelSelector", "fieldSelector", "count",
	                                   "items",         "contains",      NULL};
	static const char *const required[] = {"kind", NULL};
	char p[NL__PATH_MAX];
	json_object *x;
	int rc;
	if ((rc = nl_scn__pwant(c, path, v, json_type_object, "a mapping with kind")) != 0 ||
	    (rc = nl_scn__pkeys(c, path, v, keys, required)) != 0)
		return rc;
	json_object_object_get_ex(v, "kind", &x);
	if (!json_object_is_type(x, json_type_string) ||
	    !nl_scn_kind(json_object_get_string(x), NULL))
		return nl_scn__pfail(c, nl_scn__pkey(p, path, "kind"), "expected one of %s",
		                     nl_scn_kinds());
	if (json_object_object_get_ex(v, "count", &x) &&
	    (!json_object_is_type(x, json_type_int) || json_object_get_int64(x) < 0))
		return nl_scn__pfail(c, nl_scn__pkey(p, path, "count"), "expected a number >= 0");
	if (json_object_object_get_ex(v, "items", &x) &&
	    ((rc = nl_scn__pwant(c, nl_scn__pkey(p, path, "items"), x, json_type_array,
	                         "a list of objects (subsets)")) != 0 ||
	     (rc = nl_scn__pmatch(c, p, x)) != 0))
		return rc;
	if (json_object_object_get_ex(v, "contains", &x))
		return nl_scn__pmatch(c, nl_scn__pkey(p, path, "contains"), x);
	return 0;
}

static int parse_list(nl_scn__pctx *c, const char *path, json_object *v)
{
	char p[NL__PATH_MAX];
	int rc = 0;
	if (!json_object_is_type(v, json_type_array))
		return parse_one_list(c, path, v);
	for (size_t i = 0; rc == 0 && i < json_object_array_length(v); i++)
		rc = parse_one_list(c, nl_scn__pidx(p, path, i), json_object_array_get_idx(v, i));
	return rc;
}

/* --- requests -------------------------------------------------------------------------------- */

static int parse_pattern(nl_scn__pctx *c, const char *path, json_object *v)
{
	nl_scn_reqpat pat;
	nl_err e = {0};
	if (json_object_is_type(v, json_type_object))
		return nl_scn__pmatch(c, path, v);
	if (!json_object_is_type(v, json_type_string))
		return nl_scn__pfail(
		    c, path,
		    "expected a request like \"get leases/edge-1\" or a mapping of "
		    "journal fields, got %s",
		    nl_scn__ptype(v));
	if (nl_scn_reqpat_parse(&pat, json_object_get_string(v), &e) != 0)
		return nl_scn__pfail(c, path, "%s", e.msg);
	/* Request times are the server's clock: virtual only in-process. */
	if (pat.timing)
	c->sc->requires |= NL_REQ_EMBEDDED;
	return 0;
}

static int parse_patterns(nl_scn__pctx *c, const char *path, json_object *v)
{
	char p[NL__PATH_MAX];
	int rc = nl_scn__pwant(c, path, v, json_type_array, "a list of requests");
	for (size_t i = 0; rc == 0 && i < json_object_array_length(v); i++)
		rc = parse_pattern(c, nl_scn__pidx(p, path, i), json_object_array_get_idx(v, i));
	return rc;
}

static int parse_counts(nl_scn__pctx *c, const char *path, json_object *v)
{
	char p[NL__PATH_MAX];
	nl_scn_reqpat pat;
	nl_err e = {0};
	int rc = nl_scn__pwant(c, path, v, json_type_object,
	                       "a mapping of requests (or \"*\") to numbers");
	if (rc != 0)
		return rc;
	json_object_object_foreach(v, key, val)
	{
		nl_scn__pkey(p, path, key);
		if (strcmp(key, "*") != 0 && nl_scn_reqpat_parse(&pat, key, &e) != 0)
			return nl_scn__pfail(c, p, "%s", e.msg);
		if (!json_object_is_type(val, json_type_int) &&
		    !json_object_is_type(val, json_type_object))
			return nl_scn__pfail(c, p,
			                     "expected a number (or an operator like {$len: 2})");
		if ((rc = nl_scn__pmatch(c, p, val)) != 0)
			return rc;
	}
	return 0;
}

static int parse_requests(nl_scn__pctx *c, const char *path, json_object *v)
{
	static const char *const keys[] = {"exactly", "contains", "count", "none", NULL};
	char p[NL__PATH_MAX];
	json_object *x;
	int rc;
	c->sc->expects_requests = 1;
	if (json_object_is_type(v, json_type_array))
		return parse_patterns(c, path, v);
	if ((rc = nl_scn__pwant(
	         c, path, v, json_type_object,
	         "a list of requests, or a mapping of exactly, contains, count, none")) != 0 ||
	    (rc = nl_scn__pkeys(c, path, v, keys, NULL)) != 0)
		return rc;
	if (json_object_object_length(v) == 0)
		return nl_scn__pfail(c, path, "expected exactly, contains, count or none");
	if (json_object_object_get_ex(v, "exactly", &x) &&
	    (rc = parse_patterns(c, nl_scn__pkey(p, path, "exactly"), x)) != 0)
		return rc;
	if (json_object_object_get_ex(v, "contains", &x) &&
	    (rc = parse_patterns(c, nl_scn__pkey(p, path, "contains"), x)) != 0)
		return rc;
	if (json_object_object_get_ex(v, "none", &x) &&
	    (rc = parse_patterns(c, nl_scn__pkey(p, path, "none"), x)) != 0)
		return rc;
	if (json_object_object_get_ex(v, "count", &x))
		return parse_counts(c, nl_scn__pkey(p, path, "count"), x);
	return 0;
}

/* --- agent, files, error, events ------------------------------------------------------------ */

static int parse_agent(nl_scn__pctx *c, const char *path, json_object *v)
{
	static const char *const keys[] = {"registered",    "running",
	                                   "leaseCached",   "leaseResourceVersion",
	                                   "lease",         "heartbeatFailures",
	                                   "statusReports", "leaseDurationSeconds",
	                                   "sleeps",        "config",
	                                   "inTrial",       NULL};
	char p[NL__PATH_MAX];
	json_object *x;
	int rc;
	if (!c->sc->agent)
		return nl_scn__pfail(c, path,
		                     "needs an agent: add agent: with nodeName to the scenario");
	if ((rc = nl_scn__pwant(c, path, v, json_type_object, "a mapping of agent state")) != 0 ||
	    (rc = nl_scn__pkeys(c, path, v, keys, NULL)) != 0 ||
	    (rc = nl_scn__pmatch(c, path, v)) != 0)
		return rc;
	if (json_object_object_get_ex(v, "sleeps", &x))
	c->sc->requires |= NL_REQ_VIRTUAL_TIME;
	if ((json_object_object_get_ex(v, "config", &x) ||
	     json_object_object_get_ex(v, "inTrial", &x)) &&
	    !nl_scn__pdynamic(c))
		return nl_scn__pfail(
		    c,
		    nl_scn__pkey(p, path,
		                 json_object_object_get_ex(v, "config", NULL) ? "config"
		                                                              : "inTrial"),
		    "needs the dynamic config controller: set agent.dynamicConfig: true");
	return 0;
}

static int parse_files(nl_scn__pctx *c, const char *path, json_object *v)
{
	static const char *const keys[] = {"exists", "content", "json", NULL};
	char p[NL__PATH_MAX];
	int rc;
	if (!nl_scn__pdynamic(c))
		return nl_scn__pfail(c, path,
		                     "files are in the dynamic config directory: set "
		                     "agent.dynamicConfig: true");
	if ((rc = nl_scn__pwant(
	         c, path, v, json_type_object,
	         "a mapping of paths (in the dynamic config directory) to expectations")) != 0)
		return rc;
	json_object_object_foreach(v, key, val)
	{
		nl_scn__pkey(p, path, key);
		if (key[0] == '/' || strstr(key, ".."))
			return nl_scn__pfail(c, p,
			                     "expected a path inside the dynamic config directory");
		if (json_object_is_type(val, json_type_boolean))
			continue;
		if ((rc = nl_scn__pwant(c, p, val, json_type_object,
		                        "true, false or a mapping of exists, content, json")) !=
		        0 ||
		    (rc = nl_scn__pkeys(c, p, val, keys, NULL)) != 0 ||
		    (rc = nl_scn__pmatch(c, p, val)) != 0)
			return rc;
	}
	return 0;
}

static int parse_error(nl_scn__pctx *c, const char *path, json_object *v)
{
	static const char *const keys[] = {"code", "status", "reason", "message", NULL};
	if (!v || json_object_is_type(v, json_type_string))
		return 0;
	int rc =
	    nl_scn__pwant(c, path, v, json_type_object,
	                  "a reason like Conflict, or a mapping of code, status, reason, message");
	if (rc == 0)
		rc = nl_scn__pkeys(c, path, v, keys, NULL);
	return rc ? rc : nl_scn__pmatch(c, path, v);
}

static int parse_events(nl_scn__pctx *c, const char *path, json_object *v)
{
	if (!c->seen_watch)
		return nl_scn__pfail(c, path,
		                     "events are those of the last watch step: add a watch step "
		                     "before this expect");
	int rc = nl_scn__pwant(c, path, v, json_type_array,
	                       "a list of events like {type: ADDED, object: {...}}");
	return rc ? rc : nl_scn__pmatch(c, path, v);
}

int nl_scn__parse_expect(nl_scn__pctx *c, nl_scn_step *st, json_object *v)
{
	static const char *const keys[] = {"object",   "objects", "absent", "list",
	                                   "requests", "agent",   "files",  "error",
	                                   "events",   "within",  NULL};
	char path[NL__PATH_MAX], p[NL__PATH_MAX];
	int rc;
	nl_scn__pkey(path, st->path, "expect");
	if ((rc = nl_scn__pwant(c, path, v, json_type_object, "a mapping of assertions")) != 0 ||
	    (rc = nl_scn__pkeys(c, path, v, keys, NULL)) != 0)
		return rc;
	if (json_object_object_length(v) == 0 ||
	    (json_object_object_length(v) == 1 && json_object_object_get_ex(v, "within", NULL)))
		return nl_scn__pfail(
		    c, path,
		    "expected at least one of object, objects, absent, list, requests, "
		    "agent, files, error, events");
	json_object_object_foreach(v, key, val)
	{
		nl_scn__pkey(p, path, key);
		if (strcmp(key, "object") == 0)
			rc = parse_object(c, p, val);
		else if (strcmp(key, "objects") == 0)
			rc = parse_objects(c, p, val);
		else if (strcmp(key, "absent") == 0)
			rc = parse_absent(c, p, val);
		else if (strcmp(key, "list") == 0)
			rc = parse_list(c, p, val);
		else if (strcmp(key, "requests") == 0)
			rc = parse_requests(c, p, val);
		else if (strcmp(key, "agent") == 0)
			rc = parse_agent(c, p, val);
		else if (strcmp(key, "files") == 0)
			rc = parse_files(c, p, val);
		else if (strcmp(key, "error") == 0)
			rc = parse_error(c, p, val);
		else if (strcmp(key, "events") == 0)
			rc = parse_events(c, p, val);
		else
			rc = nl_scn__pduration(c, p, val, 0, &st->usec);
		if (rc != 0)
			return rc;
	}
	return 0;
}
