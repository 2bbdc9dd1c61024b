/* JSON bytes into a json-c tree the way the API accepts them: request
 * bodies (handlers), stored objects (storage) and watch events (watch). */
#ifndef MOCK_CORE_JSON_H
#define MOCK_CORE_JSON_H

#include <json-c/json.h>
#include <stddef.h>

/* Parse a request body of len bytes as one JSON value with a parser of
 * NL_DOC_MAX_DEPTH levels (what the API accepts), as json_tokener_parse_ex:
 * *out gets the value (new reference; NULL on a syntax error, and non-NULL
 * with trailing bytes when *end < len), *err the parser's verdict and *end
 * how many bytes it used (len exactly when it used all of body). Strings
 * are read as Go's encoding/json reads them (nl_json_text_clean): invalid
 * UTF-8 and lone surrogates become U+FFFD, and a NUL in a member name is
 * held as NL_JSON_KEY_NUL; string values keep their NULs (json-c's
 * json_object_get_string_len). The parser is kept per thread and reset per
 * call: a fresh one allocates and zeroes ~40 KiB, which was a quarter of an
 * update's CPU time (docs/performance.md). 0, or NL_ENOMEM without a
 * parser. */
int mock_parse_body(json_object **out, const char *body, size_t len, enum json_tokener_error *err,
                    size_t *end);

/* summarizeData(body, 30) of the apiserver's decode errors ("the object
 * provided is unrecognized (must be of type X): … (<summary>)"): "<empty>",
 * the first 30 bytes as text when the body starts with '{', else as hex,
 * followed by " ..." when cut. out gets at most 64 bytes plus NUL. */
#define MOCK_BODY_SUMMARY_SIZE 72
void mock_body_summary(char out[MOCK_BODY_SUMMARY_SIZE], const char *body, size_t len);

#endif
