/* The name and key validators (nodelet/names.h) with apimachinery's
 * messages. Each either accepts, or refuses with a message that fits the
 * buffer it was given (checked with a small buffer between guard bytes);
 * what a rule accepts obeys that rule's length limit. */
#include <nodelet/errors.h>
#include <nodelet/names.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

typedef int (*validator)(const char *s, char *why, size_t whylen);

static const struct {
	validator fn;
	size_t max;      /* longest accepted input */
	int empty_valid; /* "" is a valid label value, and nothing else */
} validators[] = {
    {nl_name_is_dns1123_subdomain, NL_DNS1123_SUBDOMAIN_MAX, 0},
    {nl_name_is_dns1123_label, NL_DNS1123_LABEL_MAX, 0},
    {nl_name_is_config_key, NL_CONFIGMAP_KEY_MAX, 0},
    /* prefix (253) + '/' + name (63) */
    {nl_name_is_label_key, NL_DNS1123_SUBDOMAIN_MAX + 1 + 63, 0},
    {nl_name_is_label_value, 63, 1},
    {nl_name_is_path_component, 255, 0},
};

static void check_one(validator fn, size_t max, int empty_valid, const char *s, size_t whylen)
{
	char buf[600];
	memset(buf, 0x5a, sizeof(buf));
	char *why = buf + 8;
	int rc = fn(s, why, whylen);
	for (size_t i = 0; i < 8; i++)
		FUZZ_CHECK(buf[i] == 0x5a);
	for (size_t i = 8 + whylen; i < sizeof(buf); i++)
		FUZZ_CHECK(buf[i] == 0x5a);
	if (rc == 0) {
		FUZZ_CHECK(strlen(s) <= max);
		FUZZ_CHECK(empty_valid || s[0] != '\0');
		return;
	}
	FUZZ_CHECK(rc == NL_EINVALID);
	if (whylen > 0) {
		FUZZ_CHECK(memchr(why, '\0', whylen) != NULL);
		FUZZ_CHECK(whylen < 2 || why[0] != '\0');
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t whylens[] = {512, 7, 1};
	char *s = fuzz_strndup(data, size);
	for (size_t i = 0; i < sizeof(validators) / sizeof(validators[0]); i++) {
		for (size_t w = 0; w < sizeof(whylens) / sizeof(whylens[0]); w++)
			check_one(validators[i].fn, validators[i].max, validators[i].empty_valid, s,
			          whylens[w]);
	}
	free(s);
	return 0;
}
