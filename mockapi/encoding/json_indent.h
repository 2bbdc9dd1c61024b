/* JSON indented as Go's json.MarshalIndent(v, "", "  ") writes it: the
 * form of kube-apiserver's `?pretty=true` answers (the JSON serializer's
 * Pretty option) and of every WriteRawJSON answer (/version). */
#ifndef MOCK_ENCODING_JSON_INDENT_H
#define MOCK_ENCODING_JSON_INDENT_H

#include <nodelet/buf.h>
#include <stddef.h>

/* Append in (len bytes of valid JSON) to out as json.Indent does it: a
 * newline and two spaces per level after '{', '[' and ',', ": " after a
 * name, "{}" and "[]" kept, strings as they are, the whitespace of in
 * dropped; no newline at the end. 0, or the nl_buf error. */
int mock_json_indent(nl_buf *out, const char *in, size_t len);

#endif
