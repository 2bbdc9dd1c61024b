/* The agent's certificate parsers (nodelet/certificate.h) on untrusted
 * bytes: status.certificate from the API server and the files of the
 * certificate store are read by nl_cert_parse, re-encoded by
 * nl_cert_chain_pem and paired with a key by nl_cert_pair_check; a CSR
 * read back at bootstrap goes through nl_cert_csr_check. Whatever parses
 * re-encodes to certificates that parse to the same leaf. */
#include <nodelet/certificate.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static char *key;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	nl_err err = {0};
	(void)argc;
	(void)argv;
	FUZZ_CHECK(nl_cert_key_generate(&key, &err) == 0);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *pem = (const char *)data;
	nl_cert_info info, again;
	nl_err err = {0};
	int rc = nl_cert_parse(&info, pem, size, &err);
	FUZZ_CHECK(rc == 0 || rc == NL_EPARSE || rc == NL_ENOMEM);
	if (rc == 0) {
		FUZZ_CHECK(info.n_certs >= 1);
		char *chain = NULL;
		FUZZ_CHECK(nl_cert_chain_pem(&chain, pem, size, &err) == 0);
		FUZZ_CHECK(nl_cert_parse(&again, chain, strlen(chain), &err) == 0);
		FUZZ_CHECK(again.n_certs == info.n_certs);
		FUZZ_CHECK(again.not_after_usec == info.not_after_usec);
		FUZZ_CHECK(strcmp(again.common_name, info.common_name) == 0);
		free(chain);
		/* A key of ours matches no certificate someone else made. */
		FUZZ_CHECK(nl_cert_pair_check(pem, size, key, strlen(key), &err) != 0);
	}
	rc = nl_cert_csr_check(pem, size, key, strlen(key), "edge-1", &err);
	FUZZ_CHECK(rc == NL_EINVAL || rc == NL_ENOMEM);
	(void)nl_cert_key_valid(pem, size);
	return 0;
}
