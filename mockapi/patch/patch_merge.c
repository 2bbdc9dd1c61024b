/* RFC 7386 JSON merge patch (application/merge-patch+json). */
#include <stdlib.h>

#include "patch.h"
#include "patch_internal.h"

static int merge_into(json_object **target, json_object *patch);

static int merge_member(json_object *target, const char *key, json_object *val)
{
	if (!val) {
		json_object_object_del(target, key);
		return 0;
	}
	json_object *child = NULL;
	if (json_object_object_get_ex(target, key, &child))
		json_object_get(child); /* target is our own copy */
	int rc = merge_into(&child, val);
	if (rc == 0 && json_object_object_add(target, key, child) != 0)
		rc = NL_ENOMEM;
	if (rc)
		json_object_put(child);
	return rc;
}

/* RFC 7386 MergePatch(Target, Patch) over an owned target. */
static int merge_into(json_object **target, json_object *patch)
{
	if (!mock__patch_is_object(patch)) {
		json_object *v = NULL;
		int rc = mock__patch_copy(&v, patch);
		if (rc)
			return rc;
		json_object_put(*target);
		*target = v;
		return 0;
	}
	if (!mock__patch_is_object(*target)) {
		json_object *obj = json_object_new_object();
		if (!obj)
			return NL_ENOMEM;
		json_object_put(*target);
		*target = obj;
	}
	json_object_object_foreach(patch, key, val)
	{
		int rc = merge_member(*target, key, val);
		if (rc)
			return rc;
	}
	return 0;
}

int mock_patch_merge(json_object **out, json_object *doc, json_object *patch, nl_err *err)
{
	json_object *result = NULL;
	int rc = mock__patch_copy(&result, doc);
	if (rc == 0)
		rc = merge_into(&result, patch);
	if (rc) {
		json_object_put(result);
		return mock__patch_oom(err);
	}
	*out = result;
	return 0;
}
