/* Go's strconv.Quote: the text fmt's %q prints for a string, which the
 * apiserver, the kubelet and apimachinery put in their messages
 * ("pods \"a\\nb\" not found", `Invalid value: "x\ty"`). One copy for the
 * agent and the mock, so that both write what Go writes.
 *
 * The escapes are Go's exactly: \a \b \f \n \r \t \v, \\ and \"; printable
 * runes (strconv.IsPrint) kept as their UTF-8 bytes; other runes below 0x80
 * as \xNN; non-printable runes as \uNNNN or \UNNNNNNNN; each byte that is
 * not part of valid UTF-8 as \xNN. Hex digits are lower case. */
#ifndef NODELET_QUOTE_H
#define NODELET_QUOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/* Append the quoted form of the NUL-terminated s (NULL reads as "") to b.
 * 0, or nl_buf's NL_ENOMEM / NL_ETOOBIG (b then holds a prefix). */
int nl_quote_append(nl_buf *b, const char *s);
/* The same for len bytes of s, which may hold NULs (quoted as \x00). */
int nl_quote_append_n(nl_buf *b, const char *s, size_t len);

/* The quoted form as a new string (caller frees), NULL when out of memory. */
char *nl_quote_dup(const char *s);

/* The quoted form into out[cap], for messages built in fixed buffers. When
 * it does not fit, as many whole escapes and runes as fit are kept and the
 * quote is still closed; cap < 3 gives "" (when cap > 0). */
void nl_quote_str(char *out, size_t cap, const char *s);

/* strconv.IsPrint / unicode.IsPrint: letters, marks, numbers, punctuation,
 * symbols (categories L, M, N, P, S) and the ASCII space. */
bool nl_quote_is_print(uint32_t r);

#endif
