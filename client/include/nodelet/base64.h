/* base64 as Go's encoding/base64 reads and writes it: StdEncoding (RFC 4648
 * section 4, padded) for kubeconfig "-data" fields and []byte fields, and
 * RawURLEncoding (section 5, '-' '_', no padding) for list continue tokens.
 * Both decoders skip '\r' and '\n' anywhere, as Go's do, and report the
 * offset Go's CorruptInputError reports. */
#ifndef NODELET_BASE64_H
#define NODELET_BASE64_H

#include <stddef.h>

#include "errors.h"

/* Decode len bytes of s as base64.StdEncoding.DecodeString does: padding is
 * required, '\r' and '\n' anywhere are ignored. *out is a new buffer (caller
 * frees) holding *len_out bytes plus a NUL not counted, so decoded PEM text
 * can be used as a string. NL_EPARSE with Go's "illegal base64 data at input
 * byte N" (N counts from 0 in s) in err; out-params untouched on error. */
int nl_base64_decode(unsigned char **out, size_t *len_out, const char *s, size_t len, nl_err *err);

/* Encode len bytes with padding into a new NUL-terminated string (caller
 * frees). NL_ENOMEM only. */
int nl_base64_encode(char **out, const unsigned char *data, size_t len);

/* base64.RawURLEncoding.DecodeString: as nl_base64_decode, but '=' is an
 * illegal byte like '+' and '/', and a final quantum of two or three
 * characters is complete. */
int nl_base64url_decode(unsigned char **out, size_t *len_out, const char *s, size_t len,
                        nl_err *err);

/* base64.RawURLEncoding.EncodeToString into a new string (caller frees).
 * NL_ENOMEM only. */
int nl_base64url_encode(char **out, const unsigned char *data, size_t len);

#endif
