/* Shared by the scenario parser's files (parse.c: the document;
 * parse_steps.c: steps; parse_expect.c: expectations). Not installed. */
#ifndef NL_SCENARIO_PARSE_INTERNAL_H
#define NL_SCENARIO_PARSE_INTERNAL_H

#include <json-c/json.h>

#include "scenario.h"

#define NL__PATH_MAX 1024

typedef struct {
	nl_scenario *sc;
	nl_err *err;
	const char *fixtures_dir;
	/* Variables defined so far, in step order (name -> true): `vars:`,
	 * builtins, then captures (`as:`) as the steps define them. */
	json_object *defined;
	int seen_watch; /* a watch step came before (for expect: events) */
} nl__pctx;

/* "FILE:LINE:COL: PATH: message" into err; returns NL_EPARSE. */
int nl__pfail(nl__pctx *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* child path helpers (marks.h syntax) into a caller buffer */
const char *nl__pkey(char out[NL__PATH_MAX], const char *parent, const char *key);
const char *nl__pidx(char out[NL__PATH_MAX], const char *parent, size_t i);

/* "a mapping", "a string" ... */
const char *nl__ptype(json_object *v);
/* Fail unless v has type t ("expected WHAT, got ..."). */
int nl__pwant(nl__pctx *c, const char *path, json_object *v, json_type t, const char *what);
/* Fail on a key of obj not in allowed (NULL-terminated), or a missing one
 * of required (NULL-terminated; may be NULL). obj must be a mapping. */
int nl__pkeys(nl__pctx *c, const char *path, json_object *obj, const char *const *allowed,
              const char *const *required);
/* A Go-style duration string ("10s", "1m30s") into usec (> 0 unless
 * allow_zero). */
int nl__pduration(nl__pctx *c, const char *path, json_object *v, int allow_zero, int64_t *out);
/* Check v's variable references against c->defined. */
int nl__prefs(nl__pctx *c, const char *path, json_object *v);
/* Define a capture variable (an `as:` value at path). */
int nl__pdefine(nl__pctx *c, const char *path, json_object *name);
/* An object reference {kind, name, namespace, apiVersion} plus extra
 * allowed keys (NULL-terminated, may be NULL). */
int nl__pobjref(nl__pctx *c, const char *path, json_object *v, const char *const *extra);
/* A Kubernetes object to write: a mapping with a known kind and
 * metadata.name. */
int nl__pobject(nl__pctx *c, const char *path, json_object *v);
/* Match operators in an expected value. */
int nl__pmatch(nl__pctx *c, const char *path, json_object *v);

/* One step (parse_steps.c). */
int nl__parse_step(nl__pctx *c, nl_step *out, json_object *v, size_t index);
/* The value of an `expect:` step (parse_expect.c). */
int nl__parse_expect(nl__pctx *c, nl_step *st, json_object *v);

#endif
