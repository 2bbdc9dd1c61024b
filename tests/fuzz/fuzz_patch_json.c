/* JSON patch (RFC 6902, mock_patch_json). Input: document, "---" line,
 * patch. Neither input is modified; on failure the result is untouched and
 * the code is one the header lists, with a message; a patch whose last
 * operation tests the whole document against itself (appended here) fails
 * exactly when the operations before it do. */
#include <nodelet/errors.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "patch/patch.h"

static char *snapshot(json_object *o)
{
	return fuzz_strndup((const uint8_t *)fuzz_json_text(o), strlen(fuzz_json_text(o)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_object *doc, *patch;
	if (fuzz_doc_and_patch(&doc, &patch, data, size) != 0)
		return 0;
	char *doc0 = snapshot(doc), *patch0 = snapshot(patch);
	json_object *sentinel = json_object_new_object();
	json_object *out = sentinel;
	nl_err err = {0};
	int rc = mock_patch_json(&out, doc, patch, &err);
	FUZZ_CHECK(strcmp(doc0, fuzz_json_text(doc)) == 0);
	FUZZ_CHECK(strcmp(patch0, fuzz_json_text(patch)) == 0);
	if (rc != 0) {
		FUZZ_CHECK(rc == NL_EBADREQUEST || rc == NL_ETOOBIG || rc == NL_EINVALID ||
		           rc == NL_ENOMEM);
		FUZZ_CHECK(out == sentinel);
		FUZZ_CHECK(err.msg[0] != '\0');
	} else if (json_object_is_type(patch, json_type_array)) {
		/* The result passes a test of the whole document against itself. */
		json_object *ops = json_object_new_array();
		json_object *test = json_object_new_object();
		json_object_object_add(test, "op", json_object_new_string("test"));
		json_object_object_add(test, "path", json_object_new_string(""));
		json_object_object_add(test, "value", json_object_get(out));
		json_object_array_add(ops, test);
		json_object *same = NULL;
		FUZZ_CHECK(mock_patch_json(&same, out, ops, &err) == 0);
		FUZZ_CHECK(json_object_equal(same, out));
		json_object_put(same);
		json_object_put(ops);
		json_object_put(out);
	} else {
		json_object_put(out);
	}
	json_object_put(sentinel);
	free(doc0);
	free(patch0);
	json_object_put(doc);
	json_object_put(patch);
	return 0;
}
