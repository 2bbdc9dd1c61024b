/* The protobuf codec (nodelet/protobuf.h) as the mock meets a hostile
 * client's body and the agent a hostile server's answer. The first byte
 * picks what the rest is decoded as: an enveloped object, a watch frame's
 * payload, or a bare message of one served schema. Whatever decodes must
 * encode, and the encoding is a fixed point: decoding it gives the same
 * JSON (up to nulls, see equal_but_nulls), and encoding that the same
 * bytes. Errors are NL_EPARSE,
 * NL_EUNSUPPORTED or NL_ENOMEM, never anything else. */
#include <nodelet/errors.h>
#include <nodelet/protobuf.h>
#include <nodelet/schema.h>
#include <string.h>

#include "fuzz.h"

static const nl_schema *const schemas[] = {
    &nl_schema_object_meta,
    &nl_schema_list_meta,
    &nl_schema_namespace,
    &nl_schema_node,
    &nl_schema_configmap,
    &nl_schema_event,
    &nl_schema_lease,
    &nl_schema_status,
    &nl_schema_delete_options,
    &nl_schema_eviction,
    &nl_schema_partial_object_metadata,
};
#define NSCHEMAS (sizeof(schemas) / sizeof(schemas[0]))

static void check_error(int rc, const nl_err *err)
{
	FUZZ_CHECK(rc == NL_EPARSE || rc == NL_EUNSUPPORTED || rc == NL_ENOMEM);
	FUZZ_CHECK(err->code == rc || rc == NL_ENOMEM);
	FUZZ_CHECK(err->msg[0] != '\0' || rc == NL_ENOMEM);
}

/* Equal, where a member that is null on one side may be missing on the
 * other: a set pointer to a zero Time decodes as "time": null (what Go's
 * JSON writes for it), and null in JSON is a nil pointer, which protobuf
 * does not write. Go's own round trip loses the same nothing. */
static int equal_but_nulls(json_object *a, json_object *b)
{
	if (!json_object_is_type(a, json_type_object) ||
	    !json_object_is_type(b, json_type_object)) {
		if (json_object_is_type(a, json_type_array) &&
		    json_object_is_type(b, json_type_array)) {
			size_t n = json_object_array_length(a);
			if (n != json_object_array_length(b))
				return 0;
			for (size_t i = 0; i < n; i++)
				if (!equal_but_nulls(json_object_array_get_idx(a, i),
				                     json_object_array_get_idx(b, i)))
					return 0;
			return 1;
		}
		return json_object_equal(a, b);
	}
	json_object_object_foreach(a, k, va)
	{
		json_object *vb = NULL;
		int has = json_object_object_get_ex(b, k, &vb);
		if (!has ? va != NULL : !equal_but_nulls(va, vb))
			return 0;
	}
	json_object_object_foreach(b, k2, vb2)
	{
		if (!json_object_object_get_ex(a, k2, NULL) && vb2 != NULL)
			return 0;
	}
	return 1;
}

/* obj decoded from somewhere: it encodes, its encoding decodes to the same
 * object, and that encodes to the same bytes. s NULL: an enveloped object. */
static void check_fixed_point(json_object *obj, const nl_schema *s)
{
	nl_buf a, b;
	json_object *back = NULL;
	nl_err err = {0};
	nl_buf_init(&a, 0);
	nl_buf_init(&b, 0);
	int rc = s ? nl_pb_encode_message(&a, obj, s) : nl_pb_encode_object(&a, obj);
	FUZZ_CHECK(rc == 0);
	rc = s ? nl_pb_decode_message(&back, a.data ? a.data : "", a.len, s, &err)
	       : nl_pb_decode_object(&back, NULL, a.data, a.len, &err);
	FUZZ_CHECK(rc == 0);
	FUZZ_CHECK(equal_but_nulls(obj, back));
	rc = s ? nl_pb_encode_message(&b, back, s) : nl_pb_encode_object(&b, back);
	FUZZ_CHECK(rc == 0);
	FUZZ_CHECK(a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0));
	json_object_put(back);
	nl_buf_free(&a);
	nl_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	unsigned mode = data[0];
	const uint8_t *p = data + 1;
	size_t n = size - 1;
	json_object *obj = NULL;
	nl_err err = {0};
	int rc;
	if (mode < 128) {
		nl_pb_type t;
		rc = nl_pb_decode_object(&obj, &t, p, n, &err);
		if (rc == 0)
			check_fixed_point(obj, NULL);
	} else if (mode < 160) {
		char type[32];
		rc = nl_pb_decode_watch_event(type, sizeof(type), &obj, p, n, &err);
		if (rc == 0)
			check_fixed_point(obj, NULL);
	} else {
		const nl_schema *s = schemas[mode % NSCHEMAS];
		rc = nl_pb_decode_message(&obj, p, n, s, &err);
		if (rc == 0)
			check_fixed_point(obj, s);
	}
	if (rc != 0) {
		check_error(rc, &err);
		FUZZ_CHECK(obj == NULL);
	}
	json_object_put(obj);
	return 0;
}
