/* Server-side apply and managedFields, without HTTP: field sets as
 * structured-merge-diff computes them (FieldsV1 keys, keyed lists, sets),
 * Update entries as kube-apiserver's field manager records them, and apply
 * with its conflicts, force and pruning of fields a manager stops applying. */
#include "../cu_main.h"

#include <nodelet/meta.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/schema.h"
#include "patch/apply.h"
#include "patch/fieldset.h"
#include "patch/managed_fields.h"

#define T1 "2024-05-01T10:00:00Z"
#define T2 "2024-05-01T11:00:00Z"

static const mock_resource *cm(void)
{
	return mock_resource_get(MOCK_KIND_CONFIGMAP);
}

static const mock_resource *node(void)
{
	return mock_resource_get(MOCK_KIND_NODE);
}

/* An object as the store would hold it: decoded as r. */
static json_object *decoded(const mock_resource *r, const char *text)
{
	json_object *in = nl_test_json(text), *out = NULL;
	CU_ASSERT_EQUAL(mock_schema_decode(&out, r, in, NULL, NULL), 0);
	json_object_put(in);
	return out;
}

static void assert_fields_v1(json_object *set, const char *expected)
{
	json_object *fv1 = mock_fset_to_fields_v1(set);
	const char *got = json_object_to_json_string_ext(fv1, JSON_C_TO_STRING_PLAIN);
	if (strcmp(got, expected) != 0)
		fprintf(stderr, "\n  expected: %s\n  actual:   %s\n", expected, got);
	CU_ASSERT_STRING_EQUAL(got, expected);
	json_object_put(fv1);
}

static json_object *managed_entry(json_object *obj, size_t i)
{
	json_object *list = NULL;
	json_object *meta = nl_json_get_path(obj, "metadata");
	if (!meta || !json_object_object_get_ex(meta, "managedFields", &list))
		return NULL;
	return json_object_array_get_idx(list, i);
}

static size_t managed_count(json_object *obj)
{
	json_object *list = NULL;
	json_object *meta = nl_json_get_path(obj, "metadata");
	if (!meta || !json_object_object_get_ex(meta, "managedFields", &list))
		return 0;
	return json_object_array_length(list);
}

static void assert_entry(json_object *obj, size_t i, const char *manager, const char *op,
                         const char *fields_v1)
{
	json_object *e = managed_entry(obj, i), *fv1 = NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(e, "manager"), manager);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(e, "operation"), op);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(e, "fieldsType"), "FieldsV1");
	CU_ASSERT_TRUE(json_object_object_get_ex(e, "fieldsV1", &fv1));
	const char *got = json_object_to_json_string_ext(fv1, JSON_C_TO_STRING_PLAIN);
	if (strcmp(got, fields_v1) != 0)
		fprintf(stderr, "\n  entry %zu expected: %s\n  actual:   %s\n", i, fields_v1, got);
	CU_ASSERT_STRING_EQUAL(got, fields_v1);
}

/* ------------------------------------------------------------ field sets */

/* ToFieldSet: map keys and leaves are members, struct fields are not. */
static void test_apply__config_field_set_owns_keys_not_structs(void)
{
	json_object *cfg = nl_test_json("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
	                                "\"metadata\":{\"name\":\"x\",\"labels\":{\"x\":\"1\"}},"
	                                "\"data\":{\"key\":\"v\"}}");
	json_object *set = NULL;
	CU_ASSERT_EQUAL_FATAL(mock_fset_from_object(&set, cm(), cfg, NULL), 0);
	mock_fset_strip(set);
	assert_fields_v1(set,
	                 "{\"f:data\":{\"f:key\":{}},\"f:metadata\":{\"f:labels\":{\"f:x\":{}}}}");
	json_object_put(set);
	json_object_put(cfg);
}

/* Keyed list items are `k:{...}` members with their fields; sets are `v:`. */
static void test_apply__keyed_lists_and_sets_name_items(void)
{
	json_object *cfg = nl_test_json(
	    "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n\","
	    "\"finalizers\":[\"b\",\"a\"]},\"spec\":{\"taints\":[{\"key\":\"k\",\"effect\":"
	    "\"NoSchedule\"}]},\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}"
	    "]}}");
	json_object *set = NULL;
	CU_ASSERT_EQUAL_FATAL(mock_fset_from_object(&set, node(), cfg, NULL), 0);
	mock_fset_strip(set);
	assert_fields_v1(
	    set, "{\"f:metadata\":{\"f:finalizers\":{\"v:\\\"a\\\"\":{},\"v:\\\"b\\\"\":{}}},"
	         "\"f:spec\":{\"f:taints\":{}},"
	         "\"f:status\":{\"f:conditions\":{\"k:{\\\"type\\\":\\\"Ready\\\"}\":"
	         "{\".\":{},\"f:status\":{},\"f:type\":{}}}}}");
	json_object_put(set);
	json_object_put(cfg);
}

static void test_apply__unknown_field_is_not_declared(void)
{
	json_object *cfg = nl_test_json("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
	                                "\"metadata\":{\"name\":\"x\"},\"spec\":{\"foo\":1}}");
	json_object *set = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL(mock_fset_from_object(&set, cm(), cfg, &err), NL_EBADREQUEST);
	CU_ASSERT_STRING_EQUAL(err.msg, ".spec: field not declared in schema");
	CU_ASSERT_PTR_NULL(set);
	json_object_put(cfg);
}

static int collect_path(const char *path, void *payload)
{
	nl_buf *b = payload;
	return nl_buf_printf(b, "%s|", path);
}

/* fieldpath.Path.String for the conflict messages. */
static void test_apply__paths_print_like_fieldpath(void)
{
	json_object *fv1 = nl_test_json(
	    "{\"f:data\":{\"f:key\":{}},\"f:metadata\":{\"f:finalizers\":{\"v:\\\"x\\\"\":{}}},"
	    "\"f:status\":{\"f:conditions\":{\"k:{\\\"type\\\":\\\"Ready\\\"}\":"
	    "{\".\":{},\"f:status\":{}}}}}");
	json_object *set = NULL;
	nl_buf b;
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL_FATAL(mock_fset_from_fields_v1(&set, fv1), 0);
	CU_ASSERT_EQUAL(mock_fset_each(set, collect_path, &b), 0);
	CU_ASSERT_STRING_EQUAL(b.data, ".data.key|.metadata.finalizers[=\"x\"]|"
	                               ".status.conditions[type=\"Ready\"]|"
	                               ".status.conditions[type=\"Ready\"].status|");
	nl_buf_free(&b);
	json_object_put(set);
	json_object_put(fv1);
}

/* A value element's string is Go's %q: \r by name and a non-printable
 * rune as \uNNNN (this copy wrote \x0d and kept U+0085 raw). */
static void test_apply__path_values_quote_like_go(void)
{
	json_object *fv1 =
	    nl_test_json("{\"f:metadata\":{\"f:finalizers\":{\"v:\\\"a\\\\rb\\\\u0085\\\"\":{}}}}");
	json_object *set = NULL;
	nl_buf b;
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL_FATAL(mock_fset_from_fields_v1(&set, fv1), 0);
	CU_ASSERT_EQUAL(mock_fset_each(set, collect_path, &b), 0);
	CU_ASSERT_STRING_EQUAL(b.data, ".metadata.finalizers[=\"a\\rb\\u0085\"]|");
	nl_buf_free(&b);
	json_object_put(set);
	json_object_put(fv1);
}

/* FieldsV1 reads back as written: "." first, then fields in order. */
static void test_apply__fields_v1_round_trips(void)
{
	const char *text = "{\"f:data\":{\".\":{},\"f:a\":{},\"f:b\":{}},\"f:metadata\":"
	                   "{\"f:labels\":{\".\":{},\"f:x\":{}}}}";
	json_object *fv1 = nl_test_json(text), *set = NULL, *bad = nl_test_json("{\"f:a\":1}");
	CU_ASSERT_EQUAL_FATAL(mock_fset_from_fields_v1(&set, fv1), 0);
	assert_fields_v1(set, text);
	json_object_put(set);
	set = NULL;
	CU_ASSERT_EQUAL(mock_fset_from_fields_v1(&set, bad), NL_EPARSE);
	json_object_put(fv1);
	json_object_put(bad);
}

static void test_apply__set_algebra(void)
{
	json_object *a = NULL, *b = NULL, *x = NULL;
	json_object *fa = nl_test_json("{\"f:data\":{\"f:a\":{},\"f:b\":{}},\"f:immutable\":{}}");
	json_object *fb = nl_test_json("{\"f:data\":{\"f:b\":{},\"f:c\":{}}}");
	CU_ASSERT_EQUAL_FATAL(mock_fset_from_fields_v1(&a, fa), 0);
	CU_ASSERT_EQUAL_FATAL(mock_fset_from_fields_v1(&b, fb), 0);
	CU_ASSERT_EQUAL(mock_fset_intersect(&x, a, b), 0);
	assert_fields_v1(x, "{\"f:data\":{\"f:b\":{}}}");
	mock_fset_subtract(a, b);
	assert_fields_v1(a, "{\"f:data\":{\"f:a\":{}},\"f:immutable\":{}}");
	mock_fset_subtract(a, a);
	CU_ASSERT_TRUE(mock_fset_empty(a));
	CU_ASSERT_EQUAL(mock_fset_union(x, b), 0);
	assert_fields_v1(x, "{\"f:data\":{\"f:b\":{},\"f:c\":{}}}");
	json_object_put(a);
	json_object_put(b);
	json_object_put(x);
	json_object_put(fa);
	json_object_put(fb);
}

/* ------------------------------------------------------------ Update entries */

/* A create owns what it added, with "." for new containers (Compare). */
static void test_apply__create_records_update_entry(void)
{
	json_object *obj = decoded(cm(), "{\"metadata\":{\"name\":\"x\",\"namespace\":\"d\","
	                                 "\"labels\":{\"app\":\"a\"}},\"data\":{\"key\":\"v\"}}");
	CU_ASSERT_EQUAL(mock_managed_update(obj, NULL, cm(), "kubectl-create", "", T1), 0);
	CU_ASSERT_EQUAL_FATAL(managed_count(obj), 1);
	assert_entry(obj, 0, "kubectl-create", "Update",
	             "{\"f:data\":{\".\":{},\"f:key\":{}},\"f:metadata\":{\"f:labels\":{\".\":{},"
	             "\"f:app\":{}}}}");
	json_object *e = managed_entry(obj, 0);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(e, "apiVersion"), "v1");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(e, "time"), T1);
	CU_ASSERT_FALSE(json_object_object_get_ex(e, "subresource", NULL));
	json_object_put(obj);
}

/* A second manager takes the fields it changes; removed fields leave
 * everyone; a manager left with nothing disappears. */
static void test_apply__update_moves_and_drops_ownership(void)
{
	json_object *old = decoded(cm(), "{\"metadata\":{\"name\":\"x\",\"namespace\":\"d\"},"
	                                 "\"data\":{\"a\":\"1\",\"b\":\"2\"}}");
	CU_ASSERT_EQUAL_FATAL(mock_managed_update(old, NULL, cm(), "creator", "", T1), 0);
	json_object *obj = decoded(cm(), "{\"metadata\":{\"name\":\"x\",\"namespace\":\"d\"},"
	                                 "\"data\":{\"a\":\"changed\"}}");
	CU_ASSERT_EQUAL(mock_managed_update(obj, old, cm(), "editor", "", T2), 0);
	CU_ASSERT_EQUAL_FATAL(managed_count(obj), 2);
	assert_entry(obj, 0, "creator", "Update", "{\"f:data\":{}}");
	assert_entry(obj, 1, "editor", "Update", "{\"f:data\":{\"f:a\":{}}}");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(managed_entry(obj, 1), "time"), T2);

	/* Nothing changes: no entry is made or touched. */
	json_object *same = decoded(cm(), json_object_to_json_string(obj));
	CU_ASSERT_EQUAL(mock_managed_update(same, obj, cm(), "noop", "", T2), 0);
	CU_ASSERT_EQUAL(managed_count(same), 2);
	json_object_put(same);
	json_object_put(old);
	json_object_put(obj);
}

/* A status write records its subresource; `[{}]` in the body resets. */
static void test_apply__subresource_and_reset(void)
{
	json_object *old = decoded(node(), "{\"metadata\":{\"name\":\"n\"}}");
	json_object *obj = decoded(node(), "{\"metadata\":{\"name\":\"n\",\"managedFields\":[{}]},"
	                                   "\"spec\":{\"unschedulable\":true}}");
	CU_ASSERT_EQUAL(mock_managed_update(old, NULL, node(), "creator", "", T1), 0);
	CU_ASSERT_TRUE(mock_managed_is_reset(obj));
	CU_ASSERT_EQUAL(mock_managed_update(obj, old, node(), "kubelet", "status", T2), 0);
	CU_ASSERT_EQUAL_FATAL(managed_count(obj), 1);
	assert_entry(obj, 0, "kubelet", "Update", "{\"f:spec\":{\"f:unschedulable\":{}}}");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(managed_entry(obj, 0), "subresource"), "status");
	json_object_put(old);
	json_object_put(obj);
}

#define T3 "2024-05-01T12:00:00Z"

static const mock_resource *lease(void)
{
	return mock_resource_get(MOCK_KIND_LEASE);
}

static const char *managed_text(json_object *obj)
{
	json_object *list = NULL;
	json_object_object_get_ex(nl_json_get_path(obj, "metadata"), "managedFields", &list);
	return json_object_to_json_string_ext(list, JSON_C_TO_STRING_PLAIN |
	                                                JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* obj re-read from its own JSON with spec.renewTime (and the labels when
 * given) replaced: the next write of a client that kept the answer. */
static json_object *next_lease(json_object *obj, const char *renew, const char *app)
{
	json_object *next = decoded(lease(), json_object_to_json_string(obj));
	json_object *spec = nl_json_get_path(next, "spec");
	json_object_object_add(spec, "renewTime", json_object_new_string(renew));
	if (app) {
		json_object *labels = json_object_new_object();
		json_object_object_add(labels, "app", json_object_new_string(app));
		json_object_object_add(nl_json_get_path(next, "metadata"), "labels", labels);
	}
	return next;
}

/* A holder that renewed (T1) and a labeler (T2) on one Lease. */
static json_object *two_manager_lease(void)
{
	json_object *created =
	    decoded(lease(), "{\"metadata\":{\"name\":\"l\",\"namespace\":\"d\"},"
	                     "\"spec\":{\"holderIdentity\":\"a\",\"leaseDurationSeconds\":40,"
	                     "\"renewTime\":\"2024-05-01T09:00:00.000000Z\"}}");
	CU_ASSERT_EQUAL(mock_managed_update(created, NULL, lease(), "holder", "", T1), 0);
	json_object *labeled = next_lease(created, "2024-05-01T09:00:00.000000Z", "x");
	CU_ASSERT_EQUAL(mock_managed_update(labeled, created, lease(), "labeler", "", T2), 0);
	json_object_put(created);
	return labeled;
}

/* An entry the decoder reads like the others but that is not written as
 * the field manager writes it ("subresource": ""): the write then takes
 * the path that decodes every entry into field sets. */
static void make_first_entry_unusual(json_object *obj)
{
	json_object *e = managed_entry(obj, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	json_object_object_add(e, "subresource", json_object_new_string(""));
}

/* The renewal: only spec.renewTime changes, a field the holder's entry
 * already owns. The entries stay as they were but for the holder's time,
 * sorted again (T3 now sorts after the labeler's T2); the labeler keeps
 * its labels. */
static void test_apply__renewal_sets_the_holders_time(void)
{
	json_object *old = two_manager_lease();
	CU_ASSERT_STRING_EQUAL(managed_text(old),
	                       "[{\"manager\":\"holder\",\"operation\":\"Update\",\"apiVersion\":"
	                       "\"coordination.k8s.io/v1\",\"time\":\"" T1 "\",\"fieldsType\":"
	                       "\"FieldsV1\",\"fieldsV1\":{\"f:spec\":{\"f:holderIdentity\":"
	                       "{},\"f:leaseDurationSeconds\":{},\"f:renewTime\":{}}}},"
	                       "{\"manager\":\"labeler\",\"operation\":\"Update\",\"apiVersion\":"
	                       "\"coordination.k8s.io/v1\",\"time\":\"" T2 "\",\"fieldsType\":"
	                       "\"FieldsV1\",\"fieldsV1\":{\"f:metadata\":{\"f:labels\":{\".\":{},"
	                       "\"f:app\":{}}}}}]");
	json_object *renewed = next_lease(old, "2024-05-01T12:00:00.000000Z", NULL);
	CU_ASSERT_EQUAL(mock_managed_update(renewed, old, lease(), "holder", "", T3), 0);
	CU_ASSERT_STRING_EQUAL(managed_text(renewed),
	                       "[{\"manager\":\"labeler\",\"operation\":\"Update\",\"apiVersion\":"
	                       "\"coordination.k8s.io/v1\",\"time\":\"" T2 "\",\"fieldsType\":"
	                       "\"FieldsV1\",\"fieldsV1\":{\"f:metadata\":{\"f:labels\":{\".\":{},"
	                       "\"f:app\":{}}}}},"
	                       "{\"manager\":\"holder\",\"operation\":\"Update\",\"apiVersion\":"
	                       "\"coordination.k8s.io/v1\",\"time\":\"" T3 "\",\"fieldsType\":"
	                       "\"FieldsV1\",\"fieldsV1\":{\"f:spec\":{\"f:holderIdentity\":"
	                       "{},\"f:leaseDurationSeconds\":{},\"f:renewTime\":{}}}}]");

	/* Decoding every entry (the general path) gives the same bytes. */
	json_object *general = next_lease(old, "2024-05-01T12:00:00.000000Z", NULL);
	make_first_entry_unusual(general);
	CU_ASSERT_EQUAL(mock_managed_update(general, old, lease(), "holder", "", T3), 0);
	CU_ASSERT_STRING_EQUAL(managed_text(general), managed_text(renewed));
	json_object_put(general);
	json_object_put(renewed);
	json_object_put(old);
}

/* Without managedFields in the body the stored ones are the start; they
 * are not modified (the stored tree is only read). */
static void test_apply__renewal_from_stored_entries_leaves_them(void)
{
	json_object *old = two_manager_lease();
	char *before = strdup(managed_text(old));
	json_object *renewed = next_lease(old, "2024-05-01T12:00:00.000000Z", NULL);
	json_object_object_del(nl_json_get_path(renewed, "metadata"), "managedFields");
	json_object *with = next_lease(old, "2024-05-01T12:00:00.000000Z", NULL);
	CU_ASSERT_EQUAL(mock_managed_update(renewed, old, lease(), "holder", "", T3), 0);
	CU_ASSERT_EQUAL(mock_managed_update(with, old, lease(), "holder", "", T3), 0);
	CU_ASSERT_STRING_EQUAL(managed_text(renewed), managed_text(with));
	CU_ASSERT_STRING_EQUAL(managed_text(old), before);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(managed_entry(renewed, 1), "time"), T3);
	free(before);
	json_object_put(with);
	json_object_put(renewed);
	json_object_put(old);
}

/* Writes that move ownership, create an entry or change nothing give the
 * same managedFields whether or not every entry is written as the field
 * manager writes it. */
static void test_apply__updates_match_the_general_path(void)
{
	static const struct {
		const char *manager, *renew, *app, *time;
	} cases[] = {
	    {"holder", "2024-05-01T12:00:00.000000Z", "y", T3},    /* takes the label */
	    {"labeler", "2024-05-01T12:00:00.000000Z", NULL, T3},  /* takes renewTime */
	    {"newcomer", "2024-05-01T12:00:00.000000Z", NULL, T3}, /* a new entry */
	    {"holder", "2024-05-01T09:00:00.000000Z", "x", T3},    /* no change */
	    {"labeler", "2024-05-01T09:00:00.000000Z", "z", T1},   /* own field, older time */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_object *old = two_manager_lease();
		json_object *a = next_lease(old, cases[i].renew, cases[i].app);
		json_object *b = next_lease(old, cases[i].renew, cases[i].app);
		make_first_entry_unusual(b);
		CU_ASSERT_EQUAL(
		    mock_managed_update(a, old, lease(), cases[i].manager, "", cases[i].time), 0);
		CU_ASSERT_EQUAL(
		    mock_managed_update(b, old, lease(), cases[i].manager, "", cases[i].time), 0);
		if (strcmp(managed_text(a), managed_text(b)) != 0)
			fprintf(stderr, "\n  case %zu\n  fast:    %s\n  general: %s\n", i,
			        managed_text(a), managed_text(b));
		CU_ASSERT_STRING_EQUAL(managed_text(a), managed_text(b));
		json_object_put(a);
		json_object_put(b);
		json_object_put(old);
	}
}

/* FieldsV1 read as is: exactly what mock_fset_to_fields_v1 writes, and set
 * questions answered on it. */
static void test_apply__fields_v1_as_written(void)
{
	static const char *const written[] = {
	    "{\"f:a\":{}}",
	    "{\"f:data\":{\".\":{},\"f:key\":{}},\"f:metadata\":{\"f:labels\":{\"f:x\":{}}}}",
	    "{\"f:status\":{\"f:conditions\":{\"k:{\\\"type\\\":\\\"Ready\\\"}\":{\".\":{},"
	    "\"f:status\":{}}}}}",
	};
	static const char *const not_written[] = {
	    "{}",                                     /* no member */
	    "{\".\":{},\"f:a\":{}}",                  /* the root is no member */
	    "{\"f:b\":{},\"f:a\":{}}",                /* unsorted */
	    "{\"k:{}\":{},\"f:a\":{}}",               /* fields come first */
	    "{\"f:a\":{\".\":{}}}",                   /* written as {} */
	    "{\"f:a\":{\"f:b\":{},\".\":{}}}",        /* "." first */
	    "{\"f:a\":{\".\":{\"x\":1},\"f:b\":{}}}", /* "." is {} */
	    "{\"x:a\":{}}",                           /* not an element */
	    "{\"f:a\":1}",                            /* not a node */
	};
	for (size_t i = 0; i < sizeof(written) / sizeof(written[0]); i++) {
		json_object *fv1 = nl_test_json(written[i]), *set = NULL;
		CU_ASSERT_TRUE(mock_fset_fields_v1_canonical(fv1));
		CU_ASSERT_EQUAL_FATAL(mock_fset_from_fields_v1(&set, fv1), 0);
		assert_fields_v1(set, written[i]);
		json_object_put(set);
		json_object_put(fv1);
	}
	for (size_t i = 0; i < sizeof(not_written) / sizeof(not_written[0]); i++) {
		json_object *fv1 = nl_test_json(not_written[i]);
		if (mock_fset_fields_v1_canonical(fv1))
			fprintf(stderr, "\n  taken as written: %s\n", not_written[i]);
		CU_ASSERT_FALSE(mock_fset_fields_v1_canonical(fv1));
		json_object_put(fv1);
	}

	json_object *fv1 =
	    nl_test_json("{\"f:data\":{\".\":{},\"f:key\":{}},\"f:spec\":{\"f:x\":{}}}");
	json_object *in = NULL, *nested = NULL, *out = NULL, *parent = NULL;
	json_object *k = nl_test_json("{\"f:data\":{\"f:key\":{}}}");
	json_object *n = nl_test_json("{\"f:spec\":{\"f:x\":{\"f:y\":{}}}}");
	json_object *o = nl_test_json("{\"f:spec\":{\"f:y\":{}}}");
	json_object *p = nl_test_json("{\"f:spec\":{\".\":{}}}");
	CU_ASSERT_EQUAL_FATAL(mock_fset_from_fields_v1(&in, k), 0);
	CU_ASSERT_EQUAL_FATAL(mock_fset_from_fields_v1(&nested, n), 0);
	CU_ASSERT_EQUAL_FATAL(mock_fset_from_fields_v1(&out, o), 0);
	CU_ASSERT_EQUAL_FATAL(mock_fset_from_fields_v1(&parent, p), 0);
	CU_ASSERT_TRUE(mock_fset_fields_v1_overlaps(fv1, in));
	CU_ASSERT_TRUE(mock_fset_fields_v1_covers(fv1, in));
	CU_ASSERT_FALSE(mock_fset_fields_v1_overlaps(fv1, nested)); /* below a leaf member */
	CU_ASSERT_FALSE(mock_fset_fields_v1_covers(fv1, nested));
	CU_ASSERT_FALSE(mock_fset_fields_v1_overlaps(fv1, out));
	CU_ASSERT_FALSE(mock_fset_fields_v1_covers(fv1, out));
	CU_ASSERT_FALSE(mock_fset_fields_v1_overlaps(fv1, parent)); /* spec is no member */
	CU_ASSERT_FALSE(mock_fset_fields_v1_covers(fv1, parent));
	json_object *ks[] = {fv1, in, nested, out, parent, k, n, o, p};
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++)
		json_object_put(ks[i]);
}

/* ------------------------------------------------------------ apply */

typedef struct {
	json_object *out;
	nl_status *st;
	int rc;
} applied;

static applied run_apply_at(const mock_resource *r, const char *subresource, json_object *live,
                            const char *config, const char *manager, int force)
{
	applied a = {NULL, NULL, 0};
	json_object *cfg = nl_test_json(config);
	mock_apply_req q = {r, live, cfg, manager, subresource, force, T2};
	a.rc = mock_apply(&a.out, &a.st, &q);
	json_object_put(cfg);
	return a;
}

static applied run_apply(const mock_resource *r, json_object *live, const char *config,
                         const char *manager, int force)
{
	return run_apply_at(r, "", live, config, manager, force);
}

static void applied_free(applied *a)
{
	json_object_put(a->out);
	nl_status_free(a->st);
}

#define CM_CONFIG(data)                                                               \
	"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\"," \
	"\"namespace\":"                                                              \
	"\"d\"},\"data\":" data "}"

static void test_apply__creates_with_apply_entry(void)
{
	applied a = run_apply(cm(), NULL, CM_CONFIG("{\"key\":\"v\"}"), "kubectl", 0);
	CU_ASSERT_EQUAL_FATAL(a.rc, 0);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(a.out, "data.key"), "v");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(a.out, "kind"), "ConfigMap");
	CU_ASSERT_EQUAL_FATAL(managed_count(a.out), 1);
	assert_entry(a.out, 0, "kubectl", "Apply", "{\"f:data\":{\"f:key\":{}}}");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(managed_entry(a.out, 0), "time"), T2);
	applied_free(&a);
}

/* A live object whose data.key belongs to other-manager (an Update). */
static json_object *owned_by_other(void)
{
	json_object *live = decoded(cm(), "{\"metadata\":{\"name\":\"x\",\"namespace\":\"d\","
	                                  "\"resourceVersion\":\"5\"},\"data\":{\"key\":\"old\"}}");
	CU_ASSERT_EQUAL(mock_managed_update(live, NULL, cm(), "other-manager", "", T1), 0);
	return live;
}

/* Changing a field another manager owns is a 409 naming it, as
 * internal.NewConflictError words it. */
static void test_apply__conflict_names_manager_and_field(void)
{
	json_object *live = owned_by_other();
	applied a = run_apply(cm(), live, CM_CONFIG("{\"key\":\"new\"}"), "kubectl", 0);
	CU_ASSERT_EQUAL(a.rc, NL_ECONFLICT);
	CU_ASSERT_PTR_NULL(a.out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a.st);
	CU_ASSERT_EQUAL(a.st->code, 409);
	CU_ASSERT_STRING_EQUAL(a.st->reason, "Conflict");
	CU_ASSERT_STRING_EQUAL(a.st->message, "Apply failed with 1 conflict: conflict with "
	                                      "\"other-manager\" using v1: .data.key");
	CU_ASSERT_EQUAL_FATAL(a.st->ncauses, 1);
	CU_ASSERT_STRING_EQUAL(a.st->causes[0].reason, "FieldManagerConflict");
	CU_ASSERT_STRING_EQUAL(a.st->causes[0].message, "conflict with \"other-manager\" using v1");
	CU_ASSERT_STRING_EQUAL(a.st->causes[0].field, ".data.key");
	applied_free(&a);
	json_object_put(live);
}

/* printManager quotes the manager with %q: a newline in it is \n (this
 * copy escaped only quotes and backslashes). */
static void test_apply__conflict_quotes_manager_like_go(void)
{
	json_object *live = decoded(cm(), "{\"metadata\":{\"name\":\"x\",\"namespace\":\"d\","
	                                  "\"resourceVersion\":\"5\"},\"data\":{\"key\":\"old\"}}");
	CU_ASSERT_EQUAL(mock_managed_update(live, NULL, cm(), "two\nlines", "", T1), 0);
	applied a = run_apply(cm(), live, CM_CONFIG("{\"key\":\"new\"}"), "kubectl", 0);
	CU_ASSERT_EQUAL(a.rc, NL_ECONFLICT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a.st);
	CU_ASSERT_EQUAL_FATAL(a.st->ncauses, 1);
	CU_ASSERT_STRING_EQUAL(a.st->causes[0].message, "conflict with \"two\\nlines\" using v1");
	applied_free(&a);
	json_object_put(live);
}

/* force=true moves the field to the applier. */
static void test_apply__force_takes_ownership(void)
{
	json_object *live = owned_by_other();
	applied a =
	    run_apply(cm(), live, CM_CONFIG("{\"key\":\"new\",\"more\":\"m\"}"), "kubectl", 1);
	CU_ASSERT_EQUAL_FATAL(a.rc, 0);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(a.out, "data.key"), "new");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(a.out, "metadata.resourceVersion"), "5");
	CU_ASSERT_EQUAL_FATAL(managed_count(a.out), 2);
	assert_entry(a.out, 0, "kubectl", "Apply", "{\"f:data\":{\"f:key\":{},\"f:more\":{}}}");
	assert_entry(a.out, 1, "other-manager", "Update", "{\"f:data\":{}}");
	applied_free(&a);
	json_object_put(live);
}

/* Applying the value already there shares the field: no conflict. */
static void test_apply__same_value_shares_ownership(void)
{
	json_object *live = owned_by_other();
	applied a = run_apply(cm(), live, CM_CONFIG("{\"key\":\"old\"}"), "kubectl", 0);
	CU_ASSERT_EQUAL_FATAL(a.rc, 0);
	CU_ASSERT_EQUAL_FATAL(managed_count(a.out), 2);
	assert_entry(a.out, 0, "kubectl", "Apply", "{\"f:data\":{\"f:key\":{}}}");
	assert_entry(a.out, 1, "other-manager", "Update", "{\"f:data\":{\".\":{},\"f:key\":{}}}");
	/* Nothing changed, so the new entry carries no time (as upstream). */
	CU_ASSERT_FALSE(json_object_object_get_ex(managed_entry(a.out, 0), "time", NULL));
	applied_free(&a);
	json_object_put(live);
}

/* Several conflicts: grouped by manager, sorted, each path on a line. */
static void test_apply__conflicts_list_every_field(void)
{
	json_object *live = owned_by_other();
	json_object *next = decoded(cm(), json_object_to_json_string(live));
	json_object *d = nl_json_get_path(next, "data");
	json_object_object_add(d, "second", json_object_new_string("s"));
	CU_ASSERT_EQUAL(mock_managed_update(next, live, cm(), "another", "", T1), 0);
	applied a =
	    run_apply(cm(), next, CM_CONFIG("{\"key\":\"new\",\"second\":\"new\"}"), "kubectl", 0);
	CU_ASSERT_EQUAL(a.rc, NL_ECONFLICT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a.st);
	CU_ASSERT_STRING_EQUAL(a.st->message,
	                       "Apply failed with 2 conflicts: conflicts with "
	                       "\"another\" using v1:\n- .data.second\n"
	                       "conflicts with \"other-manager\" using v1:\n- .data.key");
	CU_ASSERT_EQUAL(a.st->ncauses, 2);
	applied_free(&a);
	json_object_put(live);
	json_object_put(next);
}

/* Fields the manager stops applying go, unless another manager owns them. */
static void test_apply__stopped_fields_are_removed_unless_owned(void)
{
	applied first =
	    run_apply(cm(), NULL, CM_CONFIG("{\"a\":\"1\",\"b\":\"2\",\"c\":\"3\"}"), "kubectl", 0);
	CU_ASSERT_EQUAL_FATAL(first.rc, 0);
	/* Someone else takes a share of c by setting the same value. */
	applied other = run_apply(cm(), first.out, CM_CONFIG("{\"c\":\"3\"}"), "helper", 0);
	CU_ASSERT_EQUAL_FATAL(other.rc, 0);
	applied second = run_apply(cm(), other.out, CM_CONFIG("{\"a\":\"1\"}"), "kubectl", 0);
	CU_ASSERT_EQUAL_FATAL(second.rc, 0);
	NL_ASSERT_JSON_EQ(nl_json_get_path(second.out, "data"), "{\"a\":\"1\",\"c\":\"3\"}");
	assert_entry(second.out, 0, "helper", "Apply", "{\"f:data\":{\"f:c\":{}}}");
	assert_entry(second.out, 1, "kubectl", "Apply", "{\"f:data\":{\"f:a\":{}}}");
	applied_free(&first);
	applied_free(&other);
	applied_free(&second);
}

/* Keyed lists merge by key; the main Node resource ignores status. */
static void test_apply__keyed_list_merges_by_key(void)
{
	json_object *live = decoded(
	    node(),
	    "{\"metadata\":{\"name\":\"n\",\"finalizers\":[\"a\"]},\"status\":{\"conditions\":"
	    "[{\"type\":\"Ready\",\"status\":\"True\"}]}}");
	applied a =
	    run_apply(node(), live,
	              "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n\","
	              "\"finalizers\":[\"b\"]},\"spec\":{\"unschedulable\":true},"
	              "\"status\":{\"conditions\":[]}}",
	              "kubectl", 0);
	CU_ASSERT_EQUAL_FATAL(a.rc, 0);
	NL_ASSERT_JSON_EQ(nl_json_get_path(a.out, "metadata.finalizers"), "[\"a\",\"b\"]");
	json_object *conds = NULL;
	CU_ASSERT_TRUE(
	    json_object_object_get_ex(nl_json_get_path(a.out, "status"), "conditions", &conds));
	CU_ASSERT_EQUAL(json_object_array_length(conds), 1);
	assert_entry(a.out, 0, "kubectl", "Apply",
	             "{\"f:metadata\":{\"f:finalizers\":{\"v:\\\"b\\\"\":{}}},"
	             "\"f:spec\":{\"f:unschedulable\":{}}}");

	/* On /status the conditions merge by type and spec is left alone. */
	applied s = run_apply_at(node(), "status", a.out,
	                         "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":"
	                         "{\"name\":\"n\"},\"spec\":{\"unschedulable\":false},"
	                         "\"status\":{\"conditions\":[{\"type\":\"MemoryPressure\","
	                         "\"status\":\"False\"}]}}",
	                         "kubelet", 0);
	CU_ASSERT_EQUAL_FATAL(s.rc, 0);
	CU_ASSERT_TRUE(json_object_get_boolean(nl_json_get_path(s.out, "spec.unschedulable")));
	CU_ASSERT_TRUE(
	    json_object_object_get_ex(nl_json_get_path(s.out, "status"), "conditions", &conds));
	CU_ASSERT_EQUAL(json_object_array_length(conds), 2);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(json_object_array_get_idx(conds, 0), "type"),
	                       "Ready");
	json_object *e = managed_entry(s.out, 1);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(e, "manager"), "kubelet");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(e, "subresource"), "status");
	applied_free(&s);
	applied_free(&a);
	json_object_put(live);
}

static void test_apply__bad_configurations_are_400(void)
{
	static const struct {
		const char *config;
		const char *message;
	} cases[] = {
	    {"{\"apiVersion\":\"v2\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\"}}",
	     "Incorrect version specified in apply patch. Specified patch version: v2, "
	     "expected: v1"},
	    {"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\","
	     "\"managedFields\":[]}}",
	     "metadata.managedFields must be nil"},
	    {"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\"},"
	     "\"extra\":1}",
	     "failed to create typed patch object (/v1, Kind=ConfigMap): .extra: field not "
	     "declared in schema"},
	    {"{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"x\"}}",
	     "failed to create typed patch object (/v1, Kind=Secret): no corresponding type for "
	     "/v1, Kind=Secret"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		applied a = run_apply(cm(), NULL, cases[i].config, "kubectl", 0);
		CU_ASSERT_EQUAL(a.rc, NL_EBADREQUEST);
		CU_ASSERT_PTR_NOT_NULL_FATAL(a.st);
		CU_ASSERT_EQUAL(a.st->code, 400);
		CU_ASSERT_STRING_EQUAL(a.st->message, cases[i].message);
		applied_free(&a);
	}
}

/* ---- cost ---------------------------------------------------------------- */

/* A Node with n finalizers (a set), n conditions (keyed by type) and n
 * ownerReferences (keyed by uid); tag changes one value of each item so two
 * such objects differ in every item. */
static json_object *node_with_lists(size_t n, const char *tag)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	nl_buf_adds(&b, "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n\","
	                "\"finalizers\":[");
	for (size_t i = 0; i < n; i++)
		nl_buf_printf(&b, "%s\"example.com/f%zu\"", i ? "," : "", i);
	nl_buf_adds(&b, "],\"ownerReferences\":[");
	for (size_t i = 0; i < n; i++)
		nl_buf_printf(&b,
		              "%s{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"%s%zu\","
		              "\"uid\":\"00000000-0000-0000-0000-%012zu\"}",
		              i ? "," : "", tag, i, i);
	nl_buf_adds(&b, "]},\"status\":{\"conditions\":[");
	for (size_t i = 0; i < n; i++)
		nl_buf_printf(&b, "%s{\"type\":\"C%zu\",\"status\":\"True\",\"reason\":\"%s\"}",
		              i ? "," : "", i, tag);
	nl_buf_adds(&b, "]}}");
	CU_ASSERT_PTR_NOT_NULL_FATAL(b.data);
	json_object *o = decoded(node(), b.data);
	nl_buf_free(&b);
	return o;
}

/* The list-item operations compare, merge and remove take for lists of n. */
static unsigned long list_ops(size_t n)
{
	json_object *a = node_with_lists(n, "a"), *b = node_with_lists(n, "b");
	json_object *changed = NULL, *removed = NULL, *merged = NULL, *set = NULL;
	unsigned long before = mock_fset_ops();
	CU_ASSERT_EQUAL(mock_fset_compare(&changed, &removed, node(), a, b), 0);
	CU_ASSERT_EQUAL(mock_fset_merge(&merged, node(), a, b), 0);
	CU_ASSERT_EQUAL(mock_fset_from_object(&set, node(), b, NULL), 0);
	CU_ASSERT_EQUAL(mock_fset_remove_from(merged, set, node()), 0);
	unsigned long used = mock_fset_ops() - before;
	/* Every item changed (reason/name), none was added or removed. */
	json_object *refs = NULL;
	CU_ASSERT_TRUE(json_object_object_get_ex(nl_json_get_path(changed, "f:metadata"),
	                                         "f:ownerReferences", &refs));
	CU_ASSERT_EQUAL((size_t)json_object_object_length(refs), n);
	CU_ASSERT_TRUE(mock_fset_empty(removed));
	/* Everything b sets removed from the merge leaves the lists empty. */
	CU_ASSERT_EQUAL(
	    json_object_array_length(nl_json_get_path(merged, "metadata.ownerReferences")), 0);
	CU_ASSERT_EQUAL(json_object_array_length(nl_json_get_path(merged, "metadata.finalizers")),
	                0);
	CU_ASSERT_EQUAL(json_object_array_length(nl_json_get_path(merged, "status.conditions")), 0);
	json_object_put(a);
	json_object_put(b);
	json_object_put(changed);
	json_object_put(removed);
	json_object_put(merged);
	json_object_put(set);
	return used;
}

/* structured-merge-diff indexes list items by their path element, so an
 * update's managedFields cost O(n log n) in a keyed list's length; a
 * quadratic walk let one 855 KB ConfigMap POST hold the store for seconds
 * (issue 19). Eight times the items may cost at most ~11x (n log n), not
 * 64x. Counted, not timed: the unit tests assert no timings. */
static void test_apply__keyed_list_cost_grows_n_log_n(void)
{
	unsigned long small = list_ops(250), large = list_ops(2000);
	if (large > 16 * small)
		fprintf(stderr, "\n  250 items: %lu operations, 2000 items: %lu\n", small, large);
	CU_ASSERT_TRUE(large <= 16 * small);
	/* And in absolute terms: a few dozen operations per item and log. */
	CU_ASSERT_TRUE(large <= 3 * 2000 * 11 * 40);
}

static CU_TestInfo tests[] = {
    {"config_field_set_owns_keys_not_structs", test_apply__config_field_set_owns_keys_not_structs},
    {"keyed_lists_and_sets_name_items", test_apply__keyed_lists_and_sets_name_items},
    {"unknown_field_is_not_declared", test_apply__unknown_field_is_not_declared},
    {"paths_print_like_fieldpath", test_apply__paths_print_like_fieldpath},
    {"path_values_quote_like_go", test_apply__path_values_quote_like_go},
    {"fields_v1_round_trips", test_apply__fields_v1_round_trips},
    {"set_algebra", test_apply__set_algebra},
    {"create_records_update_entry", test_apply__create_records_update_entry},
    {"update_moves_and_drops_ownership", test_apply__update_moves_and_drops_ownership},
    {"subresource_and_reset", test_apply__subresource_and_reset},
    {"renewal_sets_the_holders_time", test_apply__renewal_sets_the_holders_time},
    {"renewal_from_stored_entries_leaves_them",
     test_apply__renewal_from_stored_entries_leaves_them},
    {"updates_match_the_general_path", test_apply__updates_match_the_general_path},
    {"fields_v1_as_written", test_apply__fields_v1_as_written},
    {"creates_with_apply_entry", test_apply__creates_with_apply_entry},
    {"conflict_names_manager_and_field", test_apply__conflict_names_manager_and_field},
    {"conflict_quotes_manager_like_go", test_apply__conflict_quotes_manager_like_go},
    {"force_takes_ownership", test_apply__force_takes_ownership},
    {"same_value_shares_ownership", test_apply__same_value_shares_ownership},
    {"conflicts_list_every_field", test_apply__conflicts_list_every_field},
    {"stopped_fields_are_removed_unless_owned",
     test_apply__stopped_fields_are_removed_unless_owned},
    {"keyed_list_merges_by_key", test_apply__keyed_list_merges_by_key},
    {"bad_configurations_are_400", test_apply__bad_configurations_are_400},
    {"keyed_list_cost_grows_n_log_n", test_apply__keyed_list_cost_grows_n_log_n},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"apply", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
