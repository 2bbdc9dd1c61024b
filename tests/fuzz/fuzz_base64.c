/* base64 decoding (nodelet/base64.h) in both of Go's encodings: standard
 * for kubeconfig "-data" fields and []byte fields, raw URL for list
 * continue tokens, all from the network. Decoded bytes re-encode to text as
 * long as the input without its line breaks, which decodes to the same
 * bytes (not to the same text: like Go's non-strict decoders, these ignore
 * the unused bits of the last group, "QR==" reads as "A"). */
#include <nodelet/base64.h>
#include <nodelet/errors.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

typedef int (*decode_fn)(unsigned char **, size_t *, const char *, size_t, nl_err *);
typedef int (*encode_fn)(char **, const unsigned char *, size_t);

static void round_trip(decode_fn dec, encode_fn enc, const uint8_t *data, size_t size)
{
	unsigned char *bytes = NULL;
	size_t n = 12345;
	nl_err err = {0};
	int rc = dec(&bytes, &n, (const char *)data, size, &err);
	if (rc != 0) {
		FUZZ_CHECK(rc == NL_EPARSE || rc == NL_ENOMEM);
		FUZZ_CHECK(n == 12345 && bytes == NULL); /* out-params untouched */
		FUZZ_CHECK(rc != NL_EPARSE || strstr(err.msg, "illegal base64 data") != NULL);
		return;
	}
	FUZZ_CHECK(bytes != NULL && bytes[n] == '\0');
	char *text = NULL;
	FUZZ_CHECK(enc(&text, bytes, n) == 0);
	size_t chars = 0;
	for (size_t i = 0; i < size; i++)
		chars += data[i] != '\r' && data[i] != '\n';
	FUZZ_CHECK(strlen(text) == chars);
	unsigned char *again = NULL;
	size_t n2 = 0;
	FUZZ_CHECK(dec(&again, &n2, text, strlen(text), NULL) == 0);
	FUZZ_CHECK(n2 == n && memcmp(again, bytes, n) == 0);
	free(again);
	free(text);
	free(bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	round_trip(nl_base64_decode, nl_base64_encode, data, size);
	round_trip(nl_base64url_decode, nl_base64url_encode, data, size);
	return 0;
}
