/* Percent-decoding of request paths and query parameters, as Go's net/url
 * reads them for the apiserver: a %00 is a NUL inside the name or value,
 * never its end. */
#ifndef MOCK_CORE_URL_H
#define MOCK_CORE_URL_H

#include <stddef.h>

/* Decode the %XX escapes of the NUL-terminated s in place and return the
 * new length. A malformed escape stays as it is (as libmicrohttpd's own
 * decoder leaves it; Go would answer 400 before routing). A decoded NUL
 * becomes NL_JSON_KEY_NUL (nodelet/json_text.h), the two bytes every layer
 * reads as a NUL inside a name: the C string goes on past it, so
 * "a%00b" names neither "a" nor anything stored, as upstream, and a
 * Status quotes it back as "a\x00b". Never longer than s: "%00" is three
 * bytes, the mark two. */
size_t mock_url_unescape(char *s);

#endif
