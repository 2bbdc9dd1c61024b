/* Label and field selectors (nodelet/selector.h). Input: a selector on the
 * first line, then optionally a JSON object of labels (also the fields, by
 * name, for the field selector). Parsing either fails with a message or
 * gives a selector that matches deterministically, treats "no labels" and
 * "{}" alike, and whose exact-value terms name fields it reports. */
#include <nodelet/errors.h>
#include <nodelet/selector.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static const char *get_field(const char *field, void *payload)
{
	json_object *v;
	if (!payload || !json_object_object_get_ex(payload, field, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static int check_field_name(const char *field, void *payload)
{
	(void)payload;
	FUZZ_CHECK(field != NULL);
	return 0;
}

static void fuzz_labels(const char *text, json_object *labels)
{
	nl_label_selector *sel = (nl_label_selector *)&sel;
	nl_err err = {0};
	int rc = nl_label_selector_parse(&sel, text, &err);
	if (rc != 0) {
		FUZZ_CHECK(rc == NL_EPARSE || rc == NL_ENOMEM);
		FUZZ_CHECK(sel == (nl_label_selector *)&sel);
		FUZZ_CHECK(err.msg[0] != '\0');
		return;
	}
	json_object *empty = json_object_new_object();
	int m = nl_label_selector_matches(sel, labels);
	FUZZ_CHECK(m == 0 || m == 1);
	FUZZ_CHECK(m == nl_label_selector_matches(sel, labels));
	FUZZ_CHECK(nl_label_selector_matches(sel, NULL) == nl_label_selector_matches(sel, empty));
	if (nl_label_selector_empty(sel))
		FUZZ_CHECK(m == 1);
	json_object_put(empty);
	nl_label_selector_free(sel);
}

static void fuzz_fields(const char *text, json_object *fields)
{
	nl_field_selector *sel = (nl_field_selector *)&sel;
	nl_err err = {0};
	int rc = nl_field_selector_parse(&sel, text, &err);
	if (rc != 0) {
		FUZZ_CHECK(rc == NL_EPARSE || rc == NL_ENOMEM);
		FUZZ_CHECK(sel == (nl_field_selector *)&sel);
		FUZZ_CHECK(err.msg[0] != '\0');
		return;
	}
	int m = nl_field_selector_matches(sel, get_field, fields);
	FUZZ_CHECK(m == 0 || m == 1);
	FUZZ_CHECK(m == nl_field_selector_matches(sel, get_field, fields));
	FUZZ_CHECK(nl_field_selector_each_field(sel, check_field_name, NULL) == 0);
	const char *names[] = {"metadata.name", "metadata.namespace", "spec.unschedulable"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *v = nl_field_selector_exact(sel, names[i]);
		if (v)
			FUZZ_CHECK(strlen(v) <= strlen(text));
	}
	nl_field_selector_free(sel);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_part sel, rest;
	fuzz_split(&sel, &rest, (const char *)data, size, "\n");
	char *text = fuzz_strndup((const uint8_t *)sel.p, sel.len);
	json_object *obj = fuzz_json(rest.p, rest.len, NULL);
	if (!json_object_is_type(obj, json_type_object)) {
		json_object_put(obj);
		obj = NULL;
	}
	fuzz_labels(text, obj);
	fuzz_fields(text, obj);
	json_object_put(obj);
	free(text);
	return 0;
}
