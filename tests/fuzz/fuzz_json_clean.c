/* Strings as Go's encoding/json reads them (nl_json_text_clean, json_text.h)
 * on any bytes, and the body parser built on it (mock_parse_body). The
 * cleaned text is at most three times as long; cleaning it again changes
 * nothing unless it holds a marked NUL (which is not UTF-8 on purpose);
 * and every string of the tree mock_parse_body gives, member names
 * included, is valid UTF-8 once marked NULs are taken out. */
#include <nodelet/json_text.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "fuzz.h"

/* utf8.Valid over n bytes, with NL_JSON_KEY_NUL allowed when marks. */
static int valid_utf8(const unsigned char *s, size_t n, int marks)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t w;
		unsigned lo = 0x80, hi = 0xbf;
		if (marks && c == 0xc0 && i + 1 < n && s[i + 1] == 0x80) {
			i += 2;
			continue;
		}
		if (c < 0x80)
			w = 1;
		else if (c >= 0xc2 && c <= 0xdf)
			w = 2;
		else if (c >= 0xe0 && c <= 0xef)
			w = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
		else if (c >= 0xf0 && c <= 0xf4)
			w = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
		else
			return 0;
		if (i + w > n || (w > 1 && (s[i + 1] < lo || s[i + 1] > hi)))
			return 0;
		for (size_t k = 2; k < w; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
		i += w;
	}
	return 1;
}

static void check_tree(json_object *v, int depth)
{
	FUZZ_CHECK(depth <= 2000);
	switch (json_object_get_type(v)) {
	case json_type_string:
		FUZZ_CHECK(valid_utf8((const unsigned char *)json_object_get_string(v),
		                      (size_t)json_object_get_string_len(v), 0));
		break;
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(v); i++)
			check_tree(json_object_array_get_idx(v, i), depth + 1);
		break;
	case json_type_object: {
		json_object_object_foreach(v, k, child)
		{
			FUZZ_CHECK(valid_utf8((const unsigned char *)k, strlen(k), 1));
			check_tree(child, depth + 1);
		}
		break;
	}
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	char *once = NULL;
	size_t n1 = 0;
	FUZZ_CHECK(nl_json_text_clean(&once, &n1, text, size) == 0);
	if (once) {
		FUZZ_CHECK(n1 <= 3 * size && once[n1] == '\0');
		char *twice = NULL;
		size_t n2 = 0;
		FUZZ_CHECK(nl_json_text_clean(&twice, &n2, once, n1) == 0);
		int marked = memmem(once, n1, NL_JSON_KEY_NUL, 2) != NULL;
		FUZZ_CHECK(marked || twice == NULL);
		free(twice);
		free(once);
	} else {
		FUZZ_CHECK(n1 == size);
	}
	json_object *obj = NULL;
	enum json_tokener_error err = json_tokener_success;
	size_t end = 0;
	FUZZ_CHECK(mock_parse_body(&obj, text, size, &err, &end) == 0);
	FUZZ_CHECK(end <= size);
	if (obj)
		check_tree(obj, 0);
	json_object_put(obj);
	return 0;
}
