/* Where each value of a YAML document sits: a table from paths
 * ("steps[3].expect.object.name") to the line and column of the key or
 * sequence item that holds it, so the scenario parser can say
 * "file:12:7: ..." for a schema error found after nl_doc_parse_one has
 * turned the text into json-c, which keeps no positions.
 *
 * Path syntax (also what error messages print): a mapping key is ".key"
 * (no dot at the start), or ["key"] when it holds anything but letters,
 * digits, '_', '-' and '/'; a sequence item is "[i]". */
#ifndef NL_SCENARIO_MARKS_H
#define NL_SCENARIO_MARKS_H

#include <nodelet/errors.h>
#include <stddef.h>

typedef struct nl_scn_marks nl_scn_marks;

/* Read the first YAML document of buf with libyaml and record every key's
 * and item's position. NL_EPARSE with "name:LINE:COL: problem" in err for
 * a syntax error, a duplicate key or a non-scalar key; NL_ENOMEM. *out
 * belongs to the caller: nl_scn_marks_free (accepts NULL). */
int nl_scn_marks_parse(nl_scn_marks **out, const char *buf, size_t len, const char *name,
                       nl_err *err);
void nl_scn_marks_free(nl_scn_marks *m);

/* The 1-based line and column of path, or of its nearest recorded ancestor
 * (values that came from an alias have no position of their own). 0 when
 * found, NL_ENOTFOUND when nothing (not even the root) is recorded. */
int nl_scn_marks_find(const nl_scn_marks *m, const char *path, int *line, int *col);

/* Child paths: parent + key, parent + "[index]". Truncated (and still
 * terminated) when out is too small; NL_ETOOBIG then, else 0. */
int nl_scn_marks_key(char *out, size_t outlen, const char *parent, const char *key);
int nl_scn_marks_index(char *out, size_t outlen, const char *parent, size_t index);

#endif
