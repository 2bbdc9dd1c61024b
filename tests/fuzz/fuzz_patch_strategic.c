/* Strategic merge patch (mock_patch_strategic) for every kind the mock
 * serves. Input: document, "---" line, patch. Neither input is modified;
 * no directive survives into the result; a patch without lists or
 * directives does what a JSON merge patch does (upstream's mergeMap with
 * IgnoreUnmatchedNulls); failures carry a listed code and a message. */
#include <nodelet/errors.h>
#include <stdlib.h>
#include <string.h>

#include "api/resources.h"
#include "fuzz.h"
#include "patch/patch.h"

static char *snapshot(json_object *o)
{
	return fuzz_strndup((const uint8_t *)fuzz_json_text(o), strlen(fuzz_json_text(o)));
}

static int is_directive(const char *k)
{
	return strcmp(k, "$patch") == 0 || strcmp(k, "$retainKeys") == 0 ||
	       strncmp(k, "$setElementOrder/", 17) == 0 ||
	       strncmp(k, "$deleteFromPrimitiveList/", 25) == 0;
}

/* Whether o holds, at any depth, a directive key (any '$' key when
 * strict), or with lists an array. */
static int has(json_object *o, int lists, int strict)
{
	if (json_object_is_type(o, json_type_array)) {
		if (lists)
			return 1;
		for (size_t i = 0; i < json_object_array_length(o); i++)
			if (has(json_object_array_get_idx(o, i), lists, strict))
				return 1;
	}
	if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, k, v)
		{
			if ((strict ? k[0] == '$' : is_directive(k)) || has(v, lists, strict))
				return 1;
		}
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_object *doc, *patch;
	if (fuzz_doc_and_patch(&doc, &patch, data, size) != 0)
		return 0;
	char *doc0 = snapshot(doc), *patch0 = snapshot(patch);
	int plain = json_object_is_type(doc, json_type_object) &&
	            json_object_is_type(patch, json_type_object) && !has(doc, 0, 1) &&
	            !has(patch, 1, 1);
	for (int k = 0; k < MOCK_KIND_COUNT; k++) {
		json_object *sentinel = json_object_new_object();
		json_object *out = sentinel;
		nl_err err = {0};
		int rc =
		    mock_patch_strategic(&out, mock_resource_get((mock_kind)k), doc, patch, &err);
		FUZZ_CHECK(strcmp(doc0, fuzz_json_text(doc)) == 0);
		FUZZ_CHECK(strcmp(patch0, fuzz_json_text(patch)) == 0);
		if (rc != 0) {
			FUZZ_CHECK(rc == NL_EBADREQUEST || rc == NL_EINVALID || rc == NL_ERROR ||
			           rc == NL_EINVAL || rc == NL_ENOMEM);
			FUZZ_CHECK(out == sentinel);
			FUZZ_CHECK(err.msg[0] != '\0');
			FUZZ_CHECK(!plain);
			json_object_put(sentinel);
			continue;
		}
		FUZZ_CHECK(json_object_is_type(out, json_type_object));
		if (!has(doc, 0, 0))
			FUZZ_CHECK(!has(out, 0, 0));
		if (plain) {
			json_object *merged = NULL;
			FUZZ_CHECK(mock_patch_merge(&merged, doc, patch, &err) == 0);
			FUZZ_CHECK(json_object_equal(merged, out));
			json_object_put(merged);
		}
		json_object_put(out);
		json_object_put(sentinel);
	}
	free(doc0);
	free(patch0);
	json_object_put(doc);
	json_object_put(patch);
	return 0;
}
