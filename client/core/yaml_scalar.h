/* YAML scalars for doc.c: go-yaml v2's resolution of a scalar's text and
 * tag into a typed value, and Go's float formatting (yaml_scalar.c).
 * Internal to libnlcore. */
#ifndef NL_CORE_YAML_SCALAR_H
#define NL_CORE_YAML_SCALAR_H

#include <nodelet/errors.h>
#include <stddef.h>
#include <stdint.h>

#define NL__YAML_TAG_PREFIX "tag:yaml.org,2002:"

typedef enum {
	NL__SC_NULL,
	NL__SC_BOOL,
	NL__SC_INT,
	NL__SC_UINT,
	NL__SC_FLOAT,
	NL__SC_STR
} nl__scalar_kind;

typedef struct {
	nl__scalar_kind kind;
	int b;
	int64_t i;
	uint64_t u;
	double f;
	const char *s; /* NL__SC_STR */
	size_t slen;
	char *owned; /* decoded !!binary, freed by nl__yaml_scalar_clear */
} nl__scalar;

/* Resolve a scalar: text is NUL-terminated after len bytes and borrowed by
 * out->s; tag is the expanded tag or NULL when untagged; plain is libyaml's
 * plain_implicit (only plain scalars are subject to implicit resolution).
 * 0; NL_ENOMEM; NL_EPARSE with go-yaml's text in err (no position: the
 * caller knows it). Call nl__yaml_scalar_clear afterwards, also on error. */
int nl__yaml_scalar_resolve(nl__scalar *out, const char *text, size_t len, const char *tag,
                            int plain, nl_err *err);
void nl__yaml_scalar_clear(nl__scalar *s);

/* encoding/json's float64 text, so serialised values read like Kubernetes'. */
void nl__go_json_float(double v, char *out, size_t cap);
/* strconv.FormatFloat(v, 'g', -1, 32): how sigs.k8s.io/yaml spells float keys. */
void nl__go_float_key(double v, char *out, size_t cap);

#endif
