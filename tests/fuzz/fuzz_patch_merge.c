/* JSON merge patch (RFC 7386, mock_patch_merge). Input: document, "---"
 * line, patch. Neither input is modified; applying the same patch twice
 * changes nothing more (RFC 7386 patches are idempotent); a scalar a patch
 * sets is in the result. */
#include <nodelet/errors.h>
#include <string.h>

#include "fuzz.h"
#include "patch/patch.h"

static char *snapshot(json_object *o)
{
	return fuzz_strndup((const uint8_t *)fuzz_json_text(o), strlen(fuzz_json_text(o)));
}

static void check_sets(json_object *out, json_object *patch)
{
	if (!json_object_is_type(patch, json_type_object))
		return;
	FUZZ_CHECK(json_object_is_type(out, json_type_object));
	json_object_object_foreach(patch, k, v)
	{
		json_object *got = NULL;
		int present = json_object_object_get_ex(out, k, &got);
		if (!v)
			FUZZ_CHECK(!present);
		else if (!json_object_is_type(v, json_type_object))
			FUZZ_CHECK(present && json_object_equal(got, v));
		else
			check_sets(got, v);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_object *doc, *patch;
	if (fuzz_doc_and_patch(&doc, &patch, data, size) != 0)
		return 0;
	char *doc0 = snapshot(doc), *patch0 = snapshot(patch);
	json_object *out = doc, *again = doc;
	nl_err err = {0};
	FUZZ_CHECK(mock_patch_merge(&out, doc, patch, &err) == 0);
	FUZZ_CHECK(strcmp(doc0, fuzz_json_text(doc)) == 0);
	FUZZ_CHECK(strcmp(patch0, fuzz_json_text(patch)) == 0);
	FUZZ_CHECK(out != doc || !out);
	if (patch)
		check_sets(out, patch);
	else
		FUZZ_CHECK(out == NULL);
	FUZZ_CHECK(mock_patch_merge(&again, out, patch, &err) == 0);
	FUZZ_CHECK(json_object_equal(again, out));
	json_object_put(again);
	json_object_put(out);
	free(doc0);
	free(patch0);
	json_object_put(doc);
	json_object_put(patch);
	return 0;
}
