/* JSON to YAML as the mock answers Accept: application/yaml
 * (mockapi/encoding/yaml_out.h), checked against the manifest loader (doc.h): the
 * YAML of a JSON document reads back as the same document. Numbers compare
 * by value (the loader reads 1.0 as 1, as sigs.k8s.io/yaml does). The input
 * is tried as a JSON document and, when it is valid UTF-8, as a string
 * value, which exercises the writer's quoting of scalars. */
#include <nodelet/buf.h>
#include <nodelet/doc.h>
#include <nodelet/errors.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encoding/yaml_out.h"
#include "fuzz.h"

static int valid_utf8(const uint8_t *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		uint8_t c = s[i];
		size_t len = c < 0x80         ? 1
		             : (c >> 5) == 6  ? 2
		             : (c >> 4) == 14 ? 3
		             : (c >> 3) == 30 ? 4
		                              : 0;
		if (!len || i + len > n || (c < 0x80 && c == 0))
			return 0;
		uint32_t cp = len == 1 ? c : c & (0x3f >> (len - 1));
		for (size_t j = 1; j < len; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		static const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
		if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += len;
	}
	return 1;
}

/* JSON the API can carry: strings of valid UTF-8 without NUL (the loader
 * works on C strings for keys); fuzz_json already refused NaN and
 * infinities. Invalid UTF-8 makes libyaml's emitter fail (go-yaml's too);
 * Go's JSON decoder would have replaced it with U+FFFD long before. */
static int representable(json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_string:
		return strlen(json_object_get_string(o)) == (size_t)json_object_get_string_len(o) &&
		       valid_utf8((const uint8_t *)json_object_get_string(o),
		                  (size_t)json_object_get_string_len(o));
	case json_type_object: {
		json_object_object_foreach(o, k, v)
		{
			if (!valid_utf8((const uint8_t *)k, strlen(k)) || !representable(v))
				return 0;
		}
		return 1;
	}
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++)
			if (!representable(json_object_array_get_idx(o, i)))
				return 0;
		return 1;
	default:
		return 1;
	}
}

static void round_trip(json_object *doc)
{
	/* The API's documents are objects: a top-level scalar would be a
	 * different YAML document shape, not what the server writes. */
	if (!json_object_is_type(doc, json_type_object) || !representable(doc))
		return;
	const char *json = fuzz_json_text(doc);
	nl_buf yaml;
	nl_buf_init(&yaml, 0);
	FUZZ_CHECK(mock_yaml_from_json(&yaml, json, strlen(json)) == 0);
	json_object *back = NULL;
	nl_err err = {0};
	int rc = nl_doc_parse_one(&back, yaml.data ? yaml.data : "", yaml.len, "<yaml>", &err);
	if (rc != 0 || !fuzz_json_same(doc, back)) {
		fprintf(stderr, "json: %s\nyaml:\n%.*s\nback: %s (%s)\n", json, (int)yaml.len,
		        yaml.data ? yaml.data : "", fuzz_json_text(back), err.msg);
		FUZZ_CHECK(rc == 0 && fuzz_json_same(doc, back));
	}
	json_object_put(back);
	nl_buf_free(&yaml);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_object *doc = fuzz_json((const char *)data, size, NULL);
	round_trip(doc);
	json_object_put(doc);

	if (valid_utf8(data, size)) {
		json_object *obj = json_object_new_object();
		json_object_object_add(obj, "s",
		                       json_object_new_string_len((const char *)data, (int)size));
		round_trip(obj);
		json_object_put(obj);
	}
	return 0;
}
