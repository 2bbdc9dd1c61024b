/* What kube-apiserver 1.32 checks of a Pod (pkg/apis/core/validation
 * ValidatePodCreate / ValidatePodUpdate), as far as the mock goes: the
 * containers (at least one, each with a DNS-1123 label name unique among
 * containers and init containers, and an image without surrounding
 * blanks), restartPolicy and dnsPolicy among the known values, and the
 * spec's immutability on update. Volumes, probes, resources, security
 * contexts and the rest are stored unchecked (docs/mockapi.md). */
#include "validation_internal.h"

#include <ctype.h>
#include <nodelet/meta.h>
#include <nodelet/names.h>
#include <string.h>

static void validate_one_container(mock_ferrs *e, json_object *c, const char *list, size_t i)
{
	char fld[96], why[WHY_MAX];
	const char *name = get_str(c, "name"), *image = get_str(c, "image");
	path(fld, sizeof(fld), "spec.%s[%zu].name", list, i);
	if (!nonempty(name))
		mock_ferr_required(e, fld, NULL);
	else if (nl_name_is_dns1123_label(name, why, sizeof(why)) != 0)
		mock__ferr_invalid_each(e, fld, name, why);
	path(fld, sizeof(fld), "spec.%s[%zu].image", list, i);
	if (!nonempty(image)) {
		mock_ferr_required(e, fld, NULL);
	} else if (isspace((unsigned char)image[0]) ||
	           isspace((unsigned char)image[strlen(image) - 1])) {
		mock__ferr_invalid_str(e, fld, image,
		                       "must not have leading or trailing whitespace");
	}
}

/* A name seen before among the containers, then the init containers. */
static int seen_before(json_object *spec, const char *list, size_t upto, const char *name)
{
	json_object *regular = get(spec, "containers");
	int init = strcmp(list, "initContainers") == 0;
	for (size_t i = 0; init && i < array_len(regular); i++) {
		const char *n = get_str(json_object_array_get_idx(regular, i), "name");
		if (n && strcmp(n, name) == 0)
			return 1;
	}
	json_object *own = get(spec, list);
	for (size_t i = 0; i < upto; i++) {
		const char *n = get_str(json_object_array_get_idx(own, i), "name");
		if (n && strcmp(n, name) == 0)
			return 1;
	}
	return 0;
}

static void validate_containers(mock_ferrs *e, json_object *spec, const char *list)
{
	json_object *cl = get(spec, list);
	char fld[96];
	if (strcmp(list, "containers") == 0 && array_len(cl) == 0)
		mock_ferr_required(e, "spec.containers", NULL);
	for (size_t i = 0; i < array_len(cl); i++) {
		json_object *c = json_object_array_get_idx(cl, i);
		const char *name = get_str(c, "name");
		validate_one_container(e, c, list, i);
		if (nonempty(name) && seen_before(spec, list, i, name)) {
			json_object *v = json_object_new_string(name);
			mock_ferr_duplicate(e, path(fld, sizeof(fld), "spec.%s[%zu].name", list, i),
			                    v);
			json_object_put(v);
		}
	}
}

static void one_of(mock_ferrs *e, json_object *spec, const char *key, const char *const *supported)
{
	char fld[64];
	json_object *v = get(spec, key);
	const char *s = get_str(spec, key);
	path(fld, sizeof(fld), "spec.%s", key);
	if (!nonempty(s)) {
		mock_ferr_required(e, fld, NULL);
		return;
	}
	for (size_t i = 0; supported[i]; i++)
		if (strcmp(s, supported[i]) == 0)
			return;
	mock_ferr_not_supported(e, fld, v, supported);
}

/* The spec less what an update may change: the images, activeDeadlineSeconds,
 * tolerations and terminationGracePeriodSeconds. New object (caller puts). */
static json_object *frozen_spec(json_object *spec)
{
	static const char *const lists[] = {"containers", "initContainers"};
	static const char *const free_keys[] = {"activeDeadlineSeconds", "tolerations",
	                                        "terminationGracePeriodSeconds"};
	json_object *copy = NULL;
	if (!spec || json_object_deep_copy(spec, &copy, NULL) != 0)
		return NULL;
	for (size_t i = 0; i < 3; i++)
		json_object_object_del(copy, free_keys[i]);
	for (size_t l = 0; l < 2; l++) {
		json_object *cl = get(copy, lists[l]);
		for (size_t i = 0; i < array_len(cl); i++)
			json_object_object_del(json_object_array_get_idx(cl, i), "image");
	}
	return copy;
}

static void validate_spec_update(mock_ferrs *e, json_object *spec, json_object *old_spec)
{
	json_object *a = frozen_spec(spec), *b = frozen_spec(old_spec);
	if (a && b && !json_object_equal(a, b))
		mock_ferr_forbidden(
		    e, "spec",
		    "pod updates may not change fields other than `spec.containers[*].image`,"
		    "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
		    "`spec.tolerations` (only additions to existing tolerations),"
		    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was "
		    "previously negative)");
	json_object_put(a);
	json_object_put(b);
}

void mock_validate_pod(mock_ferrs *e, json_object *obj, json_object *old)
{
	static const char *const restart[] = {"Always", "OnFailure", "Never", NULL};
	static const char *const dns[] = {"ClusterFirstWithHostNet", "ClusterFirst", "Default",
	                                  "None", NULL};
	json_object *spec = get(obj, "spec");
	validate_containers(e, spec, "containers");
	validate_containers(e, spec, "initContainers");
	one_of(e, spec, "restartPolicy", restart);
	one_of(e, spec, "dnsPolicy", dns);
	if (old)
		validate_spec_update(e, spec, get(old, "spec"));
}
