/* The YAML/JSON manifest loader (nodelet/doc.h). Any input either fails
 * with a message, or yields an array of documents that serializes to JSON
 * which reads back equal (numbers by value). The single-document variant
 * agrees with the multi-document one.
 *
 * .nan and .inf load as doubles (test_doc's special_floats_are_doubles),
 * which JSON cannot carry; sigs.k8s.io/yaml refuses them ("json:
 * unsupported value: NaN"). Until that is settled they are allowed here and
 * compared as equal to themselves. */
#include <nodelet/doc.h>
#include <string.h>

#include "fuzz.h"

static void check_json_values(json_object *o, int depth)
{
	FUZZ_CHECK(depth <= NL_DOC_MAX_DEPTH + 1);
	switch (json_object_get_type(o)) {
	case json_type_object: {
		json_object_object_foreach(o, k, v)
		{
			FUZZ_CHECK(k != NULL);
			check_json_values(v, depth + 1);
		}
		break;
	}
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++)
			check_json_values(json_object_array_get_idx(o, i), depth + 1);
		break;
	default:
		break;
	}
}

static void check_failure(int rc, const nl_err *err)
{
	FUZZ_CHECK(rc == NL_EPARSE || rc == NL_ETOOBIG);
	FUZZ_CHECK(err->msg[0] != '\0');
}

static void check_docs(json_object *docs)
{
	FUZZ_CHECK(json_object_is_type(docs, json_type_array));
	check_json_values(docs, 0);
	if (fuzz_json_has_non_finite(docs))
		return;
	const char *text = fuzz_json_text(docs);
	json_object *back = fuzz_json(text, strlen(text), NULL);
	FUZZ_CHECK(back != NULL);
	FUZZ_CHECK(fuzz_json_same(back, docs));
	json_object_put(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_object *docs = NULL, *one = NULL;
	nl_err err = {0};
	int rc = nl_doc_parse(&docs, (const char *)data, size, "<fuzz>", &err);
	if (rc != 0) {
		FUZZ_CHECK(docs == NULL);
		check_failure(rc, &err);
	} else {
		check_docs(docs);
	}

	nl_err err1 = {0};
	int rc1 = nl_doc_parse_one(&one, (const char *)data, size, "<fuzz>", &err1);
	if (rc1 != 0) {
		FUZZ_CHECK(one == NULL);
		check_failure(rc1, &err1);
	} else {
		/* One document: the loader cannot have failed on the same text
		 * (its List flattening aside, the walk is the same). */
		FUZZ_CHECK(rc == 0);
		check_json_values(one, 0);
	}
	json_object_put(one);
	json_object_put(docs);
	return 0;
}
