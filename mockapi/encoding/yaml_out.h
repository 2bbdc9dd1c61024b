/* JSON to YAML the way kube-apiserver's YAML serializer writes it
 * (sigs.k8s.io/yaml.JSONToYAML over go-yaml v2): map keys sorted with
 * go-yaml's natural order, strings that would read back as another type
 * (numbers, booleans, null, timestamps) double-quoted, multi-line strings
 * as literal blocks, 80-column folding, no document markers. */
#ifndef MOCK_YAML_OUT_H
#define MOCK_YAML_OUT_H

#include <nodelet/buf.h>
#include <nodelet/errors.h>
#include <stddef.h>

/* Append the YAML form of the JSON text json[0..len) to out. 0, NL_EPARSE
 * when json is not valid JSON, NL_ENOMEM / NL_ETOOBIG from out (out may then
 * hold a partial document; the caller discards it). */
int mock_yaml_from_json(nl_buf *out, const char *json, size_t len);

/* Whether go-yaml v2 writes s as a plain scalar that reads back as the same
 * string (false for "", "true", "1", "0x1f", "1:20", "2024-05-01", …). */
int mock_yaml_plain_is_string(const char *s);

#endif
