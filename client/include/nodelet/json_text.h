/* Reading JSON text without building a tree.
 *
 * Both halves keep objects as compact JSON text where a json-c tree would
 * cost ~20 KiB per object: the mock's store (its controllers look up one
 * member of each changed object) and the lease controller's cached Lease
 * (a renewal replaces two values in it). These functions find values in
 * text that is already known to be JSON — written by json-c, or checked
 * when it arrived — so they skip values without validating them again;
 * on text that is not JSON they return NL_EPARSE or NULL, never read past
 * end. */
#ifndef NODELET_JSON_TEXT_H
#define NODELET_JSON_TEXT_H

#include <stddef.h>

/* Past the whitespace at p (never beyond end). */
const char *nl_json_text_skip_ws(const char *p, const char *end);

/* Past the value at p: a string, an object or array with all it contains,
 * or a number or literal. NULL when the text ends first or there is no
 * value at p. */
const char *nl_json_text_skip_value(const char *p, const char *end);

/* A cursor over the members of one object. */
typedef struct {
	const char *p, *end;
	int comma; /* a ',' was read: a member must follow */
} nl_json_text_iter;

/* Start on the object at p (whitespace before it allowed). 0; NL_ENOTFOUND
 * when the value at p is not an object; NL_EPARSE when the text ends. */
int nl_json_text_object(nl_json_text_iter *it, const char *p, const char *end);

/* The next member: *key and *klen its name as written between the quotes
 * (escapes left as they are), *val and *vlen its value's text. 1 with a
 * member, 0 at the end of the object, NL_EPARSE on malformed text. All
 * pointers point into the text. */
int nl_json_text_next(nl_json_text_iter *it, const char **key, size_t *klen, const char **val,
                      size_t *vlen);

/* The value of the member at path (dot-separated names of nested
 * objects, written without escapes) in the object whose text is json:
 * *val its first byte, *vlen its length. 0, NL_ENOTFOUND, or NL_EPARSE. */
int nl_json_text_member(const char **val, size_t *vlen, const char *json, size_t len,
                        const char *path);

/* Strings as Go's encoding/json reads them, applied to JSON text before
 * json-c parses it (json-c keeps invalid UTF-8 raw and ends a member name
 * at a NUL):
 *
 *   - each byte inside a string that does not start valid UTF-8 (cut,
 *     overlong, an encoded surrogate, past U+10FFFF) becomes one U+FFFD;
 *   - a \uXXXX surrogate escape that is not a high one directly followed by
 *     a low one becomes \ufffd (what follows is read on its own);
 *   - \u0000 inside a member name becomes NL_JSON_KEY_NUL, so that
 *     "a\u0000b" stays a name other than "a" (string values keep their
 *     NUL: json-c holds their length).
 *
 * Everything else, malformed text included, is copied as it is for the
 * parser to judge. One pass to measure and one to write: O(len).
 * *out is NULL when text needs no change, else a new NUL-terminated copy
 * of *out_len bytes (caller frees). 0, or NL_ENOMEM (*out untouched). */
int nl_json_text_clean(char **out, size_t *out_len, const char *text, size_t len);

/* How a NUL in a member name is held after nl_json_text_clean: the two
 * bytes Modified UTF-8 uses for U+0000. Cleaned text never holds them
 * otherwise (they are not UTF-8), so they stand for nothing else; every
 * Kubernetes name and key rule refuses them, as it refuses the NUL. */
#define NL_JSON_KEY_NUL "\xc0\x80"

/* s (a C string, typically a member name of a cleaned tree) with each
 * NL_JSON_KEY_NUL turned back into a NUL: a new buffer of *len bytes plus
 * a terminating NUL (caller frees), NULL when out of memory. */
char *nl_json_key_unmark(const char *s, size_t *len);

/* [s, s+len) with each NUL as NL_JSON_KEY_NUL, as a C string (caller
 * frees): how every decoder (JSON, YAML, protobuf) holds a NUL in a map key
 * or name. NULL when out of memory. */
char *nl_json_key_mark(const char *s, size_t len);

/* JSON text (json-c's output of a tree whose member names hold
 * NL_JSON_KEY_NUL) with each marker inside a member name written as
 * \u0000, so that nl_json_text_clean reads the same names back. Markers in
 * values are left alone (there they are bad UTF-8). *out is NULL when
 * nothing changes, else a new NUL-terminated copy of *out_len bytes (caller
 * frees). 0, or NL_ENOMEM. */
int nl_json_text_unmark_keys(char **out, size_t *out_len, const char *text, size_t len);

/* Whether s holds NL_JSON_KEY_NUL. */
int nl_json_key_has_nul(const char *s);

#endif
