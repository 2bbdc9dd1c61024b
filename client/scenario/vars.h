/* Scenario variables: `${name}` and `${name.path}` (a jpath.h path into the
 * variable's value) inside any string of a scenario value, keys included.
 *
 * A string that is exactly one reference becomes the referenced value with
 * its type ("${lease.spec.leaseDurationSeconds}" is the number 40, "${node}"
 * the whole object); a reference inside a longer string is replaced by the
 * text (strings as they are, other values as compact JSON). "$${" is a
 * literal "${". Values live in one json object, name -> value. */
#ifndef NL_SCENARIO_VARS_H
#define NL_SCENARIO_VARS_H

#include <json-c/json.h>
#include <nodelet/errors.h>

/* A deep copy of tmpl with every reference replaced (caller puts it; a
 * JSON null is NULL). NL_ENOTFOUND for an undefined variable or a path the
 * value does not have, NL_EPARSE for a malformed reference, with the
 * reference in err. */
int nl_scn_vars_expand(json_object **out, json_object *tmpl, json_object *vars, nl_err *err);
/* Expand one string, always giving a string (caller frees). */
int nl_scn_vars_expand_string(char **out, const char *s, json_object *vars, nl_err *err);

/* Call fn(name, payload) for each reference in tmpl (strings and keys), in
 * document order; stop at fn's first non-zero result and return it.
 * NL_EPARSE (err set) for a malformed reference. */
typedef int (*nl_vars_ref_fn)(const char *name, void *payload);
int nl_scn_vars_refs(json_object *tmpl, nl_vars_ref_fn fn, void *payload, nl_err *err);

/* Whether s is a valid variable name ([A-Za-z_][A-Za-z0-9_-]*). */
int nl_scn_vars_valid_name(const char *s);

#endif
