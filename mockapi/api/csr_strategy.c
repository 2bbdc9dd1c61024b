/* kube-apiserver 1.32's pkg/registry/certificates/certificates strategy:
 * what create and each update endpoint keep, reset and fill in. */
#include "csr.h"

#include "schema.h"

#include <nodelet/schema.h>

#include <string.h>

static json_object *child(json_object *obj, const char *key)
{
	json_object *v = NULL;
	if (json_object_is_type(obj, json_type_object))
		json_object_object_get_ex(obj, key, &v);
	return v;
}

static const nl_schema *sub_schema(const nl_schema *s, const char *name)
{
	for (size_t i = 0; i < s->nfields; i++)
		if (strcmp(s->fields[i].name, name) == 0)
			return s->fields[i].sub;
	return NULL;
}

/* obj[key] = a copy of old[key], or nothing when old has none. */
static void copy_from(json_object *obj, json_object *old, const char *key)
{
	json_object *v = child(old, key), *copy = NULL;
	json_object_object_del(obj, key);
	if (v && json_object_deep_copy(v, &copy, NULL) == 0)
		json_object_object_add(obj, key, copy);
}

void mock_csr_prepare_create(json_object *obj, const mock_request *req)
{
	json_object *spec = child(obj, "spec");
	if (spec) {
		static const char *const cleared[] = {"username", "uid", "groups", "extra"};
		for (size_t i = 0; i < 4; i++)
			json_object_object_del(spec, cleared[i]);
		if (req && req->user) {
			json_object_object_add(spec, "username", json_object_new_string(req->user));
			if (req->uid && *req->uid)
				json_object_object_add(spec, "uid",
				                       json_object_new_string(req->uid));
			if (req->ngroups) {
				json_object *g = json_object_new_array();
				for (size_t i = 0; g && i < req->ngroups; i++)
					json_object_array_add(
					    g, json_object_new_string(req->groups[i]));
				json_object_object_add(spec, "groups", g);
			}
			/* no authenticator of the mock gives a user extra attributes */
		}
		mock_schema_sort_object(spec, sub_schema(&nl_schema_csr, "spec"));
	}
	/* "users cannot create pre-approved certificate requests" */
	json_object_object_add(obj, "status", json_object_new_object());
}

static const char *cond_str(json_object *c, const char *key)
{
	const char *s = json_object_get_string(child(c, key));
	return s ? s : "";
}

/* populateConditionTimestamps. */
static void fill_timestamps(json_object *conds, json_object *old_conds, const char *now)
{
	const nl_schema *cs = sub_schema(sub_schema(&nl_schema_csr, "status"), "conditions");
	for (size_t i = 0;
	     json_object_is_type(conds, json_type_array) && i < json_object_array_length(conds);
	     i++) {
		json_object *c = json_object_array_get_idx(conds, i);
		int changed = 0;
		if (!json_object_is_type(c, json_type_object))
			continue;
		if (!child(c, "lastUpdateTime")) {
			json_object_object_add(c, "lastUpdateTime", json_object_new_string(now));
			changed = 1;
		}
		if (!child(c, "lastTransitionTime")) {
			const char *when = now;
			for (size_t j = 0; json_object_is_type(old_conds, json_type_array) &&
			                   j < json_object_array_length(old_conds);
			     j++) {
				json_object *o = json_object_array_get_idx(old_conds, j);
				if (strcmp(cond_str(o, "type"), cond_str(c, "type")) == 0 &&
				    strcmp(cond_str(o, "status"), cond_str(c, "status")) == 0 &&
				    child(o, "lastTransitionTime")) {
					when = cond_str(o, "lastTransitionTime");
					break;
				}
			}
			json_object_object_add(c, "lastTransitionTime",
			                       json_object_new_string(when));
			changed = 1;
		}
		if (changed)
			mock_schema_sort_object(c, cs);
	}
}

static size_t count_type(json_object *conds, const char *type, size_t *idx, size_t max)
{
	size_t n = 0;
	for (size_t i = 0;
	     json_object_is_type(conds, json_type_array) && i < json_object_array_length(conds);
	     i++)
		if (strcmp(cond_str(json_object_array_get_idx(conds, i), "type"), type) == 0) {
			if (idx && n < max)
				idx[n] = i;
			n++;
		}
	return n;
}

/* preserveConditionInstances: the stored conditions of type back in
 * their places, when the update kept their number. */
static void preserve_type(json_object *conds, json_object *old_conds, const char *type)
{
	size_t oi[16], ni[16];
	size_t on = count_type(old_conds, type, oi, 16), nn = count_type(conds, type, ni, 16);
	if (on != nn || on > 16)
		return;
	for (size_t i = 0; i < on; i++) {
		json_object *copy = NULL;
		if (json_object_deep_copy(json_object_array_get_idx(old_conds, oi[i]), &copy,
		                          NULL) == 0)
			json_object_array_put_idx(conds, ni[i], copy);
	}
}

void mock_csr_prepare_update(json_object *obj, json_object *old, const char *sub, const char *now)
{
	const nl_schema *ss = sub_schema(&nl_schema_csr, "status");
	copy_from(obj, old, "spec");
	if (!sub || !*sub) {
		copy_from(obj, old, "status");
	} else if (strcmp(sub, "status") == 0) {
		json_object *status = child(obj, "status");
		json_object *old_conds = child(child(old, "status"), "conditions");
		json_object *conds = child(status, "conditions");
		preserve_type(conds, old_conds, "Approved");
		preserve_type(conds, old_conds, "Denied");
		fill_timestamps(conds, old_conds, now);
	} else { /* approval */
		json_object *status = child(obj, "status"), *conds = child(status, "conditions");
		json_object *old_conds = child(child(old, "status"), "conditions");
		fill_timestamps(conds, old_conds, now);
		json_object_get(conds);
		copy_from(obj, old, "status");
		status = child(obj, "status");
		if (!status) {
			status = json_object_new_object();
			json_object_object_add(obj, "status", status);
		}
		json_object_object_del(status, "conditions");
		if (conds)
			json_object_object_add(status, "conditions", conds);
		mock_schema_sort_object(status, ss);
	}
	mock_schema_sort_object(obj, &nl_schema_csr);
}
