/* Path expressions into json-c trees, as scenarios write them:
 *
 *   spec.holderIdentity
 *   metadata.ownerReferences[0].uid        an index ([-1] is the last item)
 *   metadata.labels["kubernetes.io/os"]    a key with dots or brackets
 *   status.conditions[type=Ready].status   the first item whose field matches
 *
 * "" is the root itself. */
#ifndef NL_SCENARIO_JPATH_H
#define NL_SCENARIO_JPATH_H

#include <json-c/json.h>
#include <nodelet/errors.h>
#include <stddef.h>

typedef enum {
	NL_JPATH_KEY,    /* .key or ["key"] */
	NL_JPATH_INDEX,  /* [3], [-1] */
	NL_JPATH_SELECT, /* [field=value] */
} nl_scn_jpath_kind;

typedef struct {
	nl_scn_jpath_kind kind;
	char *key;   /* KEY: the key; SELECT: the field */
	char *value; /* SELECT: the value compared with the field's text */
	long index;  /* INDEX */
} nl_scn_jpath_seg;

typedef struct {
	nl_scn_jpath_seg *segs;
	size_t n;
} nl_scn_jpath;

/* Parse expr. NL_EPARSE with `path "EXPR": expected ... at character N`
 * in err. *out belongs to the caller: nl_scn_jpath_free (accepts NULL). */
int nl_scn_jpath_parse(nl_scn_jpath **out, const char *expr, nl_err *err);
void nl_scn_jpath_free(nl_scn_jpath *p);

/* Parse and follow in one call: 0 with *found set (and *out when found),
 * or NL_EPARSE/NL_ENOMEM as nl_scn_jpath_parse. */
int nl_scn_jpath_lookup(json_object **out, int *found, json_object *root, const char *expr,
                        nl_err *err);

#endif
