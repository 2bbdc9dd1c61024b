/* Standard base64 decoding (nodelet/base64.h), used for kubeconfig "-data"
 * fields and byte maps from the network. Decoded bytes re-encode to text as
 * long as the input without its line breaks, which decodes to the same
 * bytes (not to the same text: like Go's non-strict StdEncoding, the
 * decoder ignores the unused bits of the last group, "QR==" reads as "A"). */
#include <nodelet/base64.h>
#include <nodelet/errors.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *bytes = (unsigned char *)"untouched";
	size_t n = 12345;
	nl_err err = {0};
	int rc = nl_base64_decode(&bytes, &n, (const char *)data, size, &err);
	if (rc != 0) {
		FUZZ_CHECK(rc == NL_EPARSE || rc == NL_ENOMEM);
		FUZZ_CHECK(n == 12345 && strcmp((char *)bytes, "untouched") == 0);
		FUZZ_CHECK(rc != NL_EPARSE || strstr(err.msg, "illegal base64 data") != NULL);
		return 0;
	}
	FUZZ_CHECK(bytes[n] == '\0');
	char *text = NULL;
	FUZZ_CHECK(nl_base64_encode(&text, bytes, n) == 0);
	size_t chars = 0;
	for (size_t i = 0; i < size; i++)
		chars += data[i] != '\r' && data[i] != '\n';
	FUZZ_CHECK(strlen(text) == chars);
	unsigned char *again = NULL;
	size_t n2 = 0;
	FUZZ_CHECK(nl_base64_decode(&again, &n2, text, strlen(text), NULL) == 0);
	FUZZ_CHECK(n2 == n && memcmp(again, bytes, n) == 0);
	free(again);
	free(text);
	free(bytes);
	return 0;
}
