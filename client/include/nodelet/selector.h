/* Label and field selectors with Kubernetes' grammar
 * (k8s.io/apimachinery/pkg/labels and pkg/fields).
 *
 * Label: comma-separated requirements: `k`, `!k`, `k=v`, `k==v`, `k!=v`,
 * `k in (a,b)`, `k notin (a,b)`, and apimachinery's integer `k>n`, `k<n`;
 * `!=` and `notin` match objects without the key. Field: `f=v`, `f==v`,
 * `f!=v`, comma-joined; in values `\,`, `\=` and `\\` escape, a bare `,` or
 * `=` is an error; a missing field compares as "".
 * Parsed selectors are owned by the caller and freed with the _free function
 * (NULL accepted). An empty or NULL string parses to a selector matching
 * everything. */
#ifndef NODELET_SELECTOR_H
#define NODELET_SELECTOR_H

#include <json-c/json.h>

#include "errors.h"

typedef struct nl_label_selector nl_label_selector;
typedef struct nl_field_selector nl_field_selector;

/* NL_EPARSE with the apimachinery message in err (e.g. "unable to parse
 * requirement: ...") on bad syntax or invalid keys/values. */
int nl_label_selector_parse(nl_label_selector **out, const char *s, nl_err *err);
/* labels is the metadata.labels object (borrowed) or NULL for none. */
int nl_label_selector_matches(const nl_label_selector *sel, json_object *labels);
int nl_label_selector_empty(const nl_label_selector *sel);
void nl_label_selector_free(nl_label_selector *sel);

int nl_field_selector_parse(nl_field_selector **out, const char *s, nl_err *err);
/* Returns the value of a field for the object being tested, or NULL when the
 * object has no such field (which then compares as ""). */
typedef const char *(*nl_field_getter)(const char *field, void *payload);
int nl_field_selector_matches(const nl_field_selector *sel, nl_field_getter get, void *payload);
/* Each field name the selector uses, for the server to refuse unsupported ones:
 * calls fn for each; stops and returns fn's first non-zero result. */
int nl_field_selector_each_field(const nl_field_selector *sel,
                                 int (*fn)(const char *field, void *payload), void *payload);
/* If the selector requires field == value (an `=`/`==` term), return that
 * value (borrowed), else NULL. Lets a server narrow a scan to one name. */
const char *nl_field_selector_exact(const nl_field_selector *sel, const char *field);
void nl_field_selector_free(nl_field_selector *sel);

/* The value a selectable field (a dotted path such as "spec.unschedulable")
 * has in obj, as the apiserver's field set holds it: strings as they are,
 * booleans "true"/"false", integers in decimal. *out is a new string the
 * caller frees, or NULL when the field is absent or of another type (a
 * selector then compares it as ""). 0 or NL_ENOMEM. */
int nl_field_value(char **out, json_object *obj, const char *path);

#endif
