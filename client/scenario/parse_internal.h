/* Shared by the scenario parser's files (parse.c: the document;
 * parse_steps.c: steps; parse_expect.c: expectations). Not installed. */
#ifndef NL_SCENARIO_PARSE_INTERNAL_H
#define NL_SCENARIO_PARSE_INTERNAL_H

#include <json-c/json.h>

#include "scenario.h"

#define NL__PATH_MAX 1024

typedef struct {
	nl_scn_scenario *sc;
	nl_err *err;
	const char *fixtures_dir;
	/* Variables defined so far, in step order (name -> true): `vars:`,
	 * builtins, then captures (`as:`) as the steps define them. */
	json_object *defined;
	int seen_watch; /* a watch step came before (for expect: events) */
	int step_agent; /* the agent the step being parsed names, -1 = none */
} nl_scn__pctx;

/* Whether the agent the step is about (the one named, else the first) has
 * the dynamic config controller. */
int nl_scn__pdynamic(const nl_scn__pctx *c);

/* "FILE:LINE:COL: PATH: message" into err; returns NL_EPARSE. */
int nl_scn__pfail(nl_scn__pctx *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* child path helpers (marks.h syntax) into a caller buffer */
const char *nl_scn__pkey(char out[NL__PATH_MAX], const char *parent, const char *key);
const char *nl_scn__pidx(char out[NL__PATH_MAX], const char *parent, size_t i);

/* "a mapping", "a string" ... */
const char *nl_scn__ptype(json_object *v);
/* Fail unless v has type t ("expected WHAT, got ..."). */
int nl_scn__pwant(nl_scn__pctx *c, const char *path, json_object *v, json_type t, const char *what);
/* Fail on a key of obj not in allowed (NULL-terminated), or a missing one
 * of required (NULL-terminated; may be NULL). obj must be a mapping. */
int nl_scn__pkeys(nl_scn__pctx *c, const char *path, json_object *obj, const char *const *allowed,
                  const char *const *required);
/* A Go-style duration string ("10s", "1m30s") into usec (> 0 unless
 * allow_zero). */
int nl_scn__pduration(nl_scn__pctx *c, const char *path, json_object *v, int allow_zero,
                      int64_t *out);
/* Check v's variable references against c->defined. */
int nl_scn__prefs(nl_scn__pctx *c, const char *path, json_object *v);
/* Define a capture variable (an `as:` value at path). */
int nl_scn__pdefine(nl_scn__pctx *c, const char *path, json_object *name);
/* An object reference {kind, name, namespace, apiVersion} plus extra
 * allowed keys (NULL-terminated, may be NULL). */
int nl_scn__pobjref(nl_scn__pctx *c, const char *path, json_object *v, const char *const *extra);
/* A Kubernetes object to write: a mapping with a known kind and
 * metadata.name. */
int nl_scn__pobject(nl_scn__pctx *c, const char *path, json_object *v);
/* Match operators in an expected value. */
int nl_scn__pmatch(nl_scn__pctx *c, const char *path, json_object *v);

/* One step (parse_steps.c). */
int nl_scn__parse_step(nl_scn__pctx *c, nl_scn_step *out, json_object *v, size_t index);
/* The value of an `expect:` step (parse_expect.c). */
int nl_scn__parse_expect(nl_scn__pctx *c, nl_scn_step *st, json_object *v);

#endif
