/* Go's json.Indent (json_indent.h). One pass over valid JSON; strings are
 * copied byte for byte, escapes and all. */
#include "json_indent.h"

static int newline(nl_buf *out, int depth)
{
	int rc = nl_buf_add(out, "\n", 1);
	for (int i = 0; rc == 0 && i < depth; i++)
		rc = nl_buf_add(out, "  ", 2);
	return rc;
}

/* The next byte that is not insignificant whitespace, from i. */
static size_t skip_space(const char *in, size_t len, size_t i)
{
	while (i < len && (in[i] == ' ' || in[i] == '\t' || in[i] == '\n' || in[i] == '\r'))
		i++;
	return i;
}

int mock_json_indent(nl_buf *out, const char *in, size_t len)
{
	int depth = 0, rc = 0;
	for (size_t i = skip_space(in, len, 0); rc == 0 && i < len; i++) {
		char c = in[i];
		if (c == '"') {
			size_t end = i + 1;
			while (end < len && in[end] != '"')
				end += in[end] == '\\' ? 2 : 1;
			end = end < len ? end + 1 : len;
			rc = nl_buf_add(out, in + i, end - i);
			i = end - 1;
		} else if (c == '{' || c == '[') {
			size_t next = skip_space(in, len, i + 1);
			rc = nl_buf_add(out, &c, 1);
			if (rc == 0 && next < len && (in[next] == '}' || in[next] == ']')) {
				rc = nl_buf_add(out, &in[next], 1); /* {} and [] */
				i = next;
			} else if (rc == 0) {
				rc = newline(out, ++depth);
			}
		} else if (c == '}' || c == ']') {
			rc = newline(out, --depth);
			if (rc == 0)
				rc = nl_buf_add(out, &c, 1);
		} else if (c == ',') {
			rc = nl_buf_add(out, ",", 1);
			if (rc == 0)
				rc = newline(out, depth);
		} else if (c == ':') {
			rc = nl_buf_add(out, ": ", 2);
		} else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
			rc = nl_buf_add(out, &c, 1);
		}
	}
	return rc;
}
