/* Subset matching of an expected value against an actual one, and a
 * readable diff of the two. Every scenario assertion (objects, requests,
 * the agent's state, files, errors, watch events) is one of these.
 *
 * Rules: a mapping matches when each of its keys matches the actual
 * mapping's value (keys the expectation leaves out are ignored); a
 * sequence matches a sequence of the same length item by item; scalars
 * match when equal (numbers by value, 40 == 40.0; "40" is not 40); null
 * means "absent or null". A mapping with a single key starting with '$' is
 * an operator:
 *
 *   {$present: true|false}   the value exists (or not), whatever it is
 *   {$regex: "^edge-"}       a string (or a scalar's JSON text) matches the
 *                            POSIX extended regular expression
 *   {$contains: X}           a string contains the string X, or a sequence
 *                            has an item matching X
 *   {$len: N}                a string, sequence or mapping of N entries
 *   {$not: X}                X does not match */
#ifndef NL_SCENARIO_MATCH_H
#define NL_SCENARIO_MATCH_H

#include <json-c/json.h>
#include <nodelet/buf.h>
#include <nodelet/errors.h>
#include <stddef.h>

typedef struct {
	char *path;    /* marks.h syntax; "" is the value itself */
	char *message; /* expected "edge-1", got "other" */
} nl_scn_mismatch;

typedef struct {
	nl_scn_mismatch *items;
	size_t n;
} nl_scn_mismatches;

void nl_scn_mismatches_clear(nl_scn_mismatches *m);

/* Compare expected with actual (present: whether the actual value exists
 * at all; actual NULL with present is a JSON null) and append one entry per
 * difference, paths under `path`. Returns how many were added, or
 * NL_ENOMEM. */
int nl_scn_match(nl_scn_mismatches *out, const char *path, json_object *expected,
                 json_object *actual, int present);
/* Whether expected matches (no detail). */
int nl_scn_match_ok(json_object *expected, json_object *actual, int present);

/* Check expected's operators before use: NL_EINVAL with "<path>: ..." in
 * err for an unknown operator, an operator sharing its mapping with other
 * keys, or an argument of the wrong type (a bad regex included). */
int nl_scn_match_check(json_object *expected, const char *path, nl_err *err);

/* A diff of expected against actual projected onto the expectation's shape
 * (only the fields the expectation names; matching parts print as the
 * expectation does): "--- expected", "+++ actual", then YAML-like lines
 * prefixed ' ', '-' or '+'. NL_ENOMEM / NL_ETOOBIG from the buffer. */
int nl_scn_diff(nl_buf *out, json_object *expected, json_object *actual, int present);

/* The value as indented YAML-like lines (scalars as JSON), for reports. */
int nl_scn_render(nl_buf *out, json_object *v, int indent);

#endif
