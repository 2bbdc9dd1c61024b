/* Config sync: kubelet's configsync.go (syncConfigSource, the restart and
 * its Event) and watch.go (which informer events signal a sync), with the
 * source read from spec.configSource or the nodelet.io/config-source
 * annotation. */
#include "config_internal.h"

#include <nodelet/buf.h>
#include <nodelet/event.h>
#include <nodelet/json_text.h>
#include <nodelet/log.h>
#include <nodelet/meta.h>
#include <nodelet/names.h>
#include <nodelet/quote.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void restart_with(nl_config_controller *cc, const nl_config_source *src);

int nl__config_call_failed(nl_err *err, int rc, nl_status *status)
{
	nl_err_set(err, rc, "%s",
	           status && status->message && *status->message ? status->message
	                                                         : nl_strerror(rc));
	nl_status_free(status);
	return rc;
}

/* A failed step: the status reason (upstream's sanitized text) and the
 * detail for the log. */
typedef struct {
	const char *reason;
	nl_err detail;
} sync_failure;

static int fail(sync_failure *f, const char *reason, int rc)
{
	f->reason = reason;
	if (!f->detail.code)
		f->detail.code = rc;
	return rc;
}

/* --- where the source comes from ------------------------------------------------ */

static const char *source_annotation(json_object *node)
{
	/* Annotation keys hold dots: no dotted-path lookup. */
	json_object *v = json_object_object_get(nl_json_get_path(node, "metadata.annotations"),
	                                        NL_CONFIG_SOURCE_ANNOTATION);
	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static json_object *spec_source(json_object *node)
{
	json_object *src = nl_json_get_path(node, "spec.configSource");
	return json_object_is_type(src, json_type_null) ? NULL : src;
}

/* The annotation: the same JSON, checked as the API server would check
 * spec.configSource (nobody validated it before us). */
static int annotation_source(nl_config_source **out, const char *text, sync_failure *f)
{
	json_object *obj = json_tokener_parse(text);
	int rc;
	if (!obj) {
		nl_err_set(&f->detail, NL_EPARSE, "%s is not valid JSON: %s",
		           NL_CONFIG_SOURCE_ANNOTATION, text);
		return fail(f, NL_CONFIG_ERR_ANNOTATION, NL_EPARSE);
	}
	rc = nl_config_source_from_json(out, obj, &f->detail);
	json_object_put(obj);
	if (rc != 0)
		return fail(
		    f, rc == NL_EINVAL ? NL_CONFIG_ERR_ALL_NIL_SUBFIELDS : NL_CONFIG_ERR_ANNOTATION,
		    rc);
	rc = nl_config_source_check_reference(*out, &f->detail);
	if (rc != 0) {
		nl_config_source_free(*out);
		*out = NULL;
		return fail(f, NL_CONFIG_ERR_ANNOTATION, rc);
	}
	return 0;
}

/* spec.configSource when set (the seed's API), else the annotation; *out
 * NULL when neither: local config. uid and resourceVersion are cleared: a
 * reference names a ConfigMap, the download says which version. */
static int node_source(nl_config_source **out, json_object *node, sync_failure *f)
{
	json_object *spec = spec_source(node);
	const char *annotation = source_annotation(node);
	int rc = 0;
	*out = NULL;
	if (spec) {
		rc = nl_config_source_from_json(out, spec, &f->detail);
		if (rc != 0)
			return fail(f,
			            rc == NL_EINVAL ? NL_CONFIG_ERR_ALL_NIL_SUBFIELDS
			                            : NL_CONFIG_ERR_INTERNAL,
			            rc);
		rc = nl_config_source_check_reference(*out, &f->detail);
		if (rc != 0) {
			nl_config_source_free(*out);
			*out = NULL;
			return fail(f, NL_CONFIG_ERR_INTERNAL, rc);
		}
	} else if (annotation) {
		rc = annotation_source(out, annotation, f);
		if (rc != 0)
			return rc;
	}
	if (*out) {
		(*out)->uid[0] = '\0';
		(*out)->resource_version[0] = '\0';
	}
	return 0;
}

/* latestNodeConfigSource: the informer's Node, else one GET. */
static int latest_node_source(nl_config_source **out, nl_config_controller *cc, sync_failure *f)
{
	json_object *node = cc->node ? json_object_get(cc->node) : NULL;
	nl_status *status = NULL;
	if (!node) {
		int rc = cc->ops.get_node(&node, &status, cc->node_name, cc->ops.payload);
		if (rc != 0) {
			nl__config_call_failed(&f->detail, rc, status);
			return fail(f, NL_CONFIG_ERR_INTERNAL, rc);
		}
		nl_status_free(status);
	}
	int rc = node_source(out, node, f);
	json_object_put(node);
	return rc;
}

/* --- download and checkpoint ------------------------------------------------------ */

static int cached_configmap(json_object **out, nl_config_controller *cc,
                            const nl_config_source *src)
{
	const char *ns = nl_meta_namespace(cc->configmap), *name = nl_meta_name(cc->configmap);
	if (!cc->configmap || !ns || !name || strcmp(ns, src->namespace_) != 0 ||
	    strcmp(name, src->name) != 0)
		return NL_ENOTFOUND;
	*out = json_object_get(cc->configmap);
	return 0;
}

/* remoteConfigMap.Download: fills in src's uid and resourceVersion. */
static int download(json_object **out, nl_config_controller *cc, nl_config_source *src,
                    sync_failure *f)
{
	char api[512];
	json_object *cm = NULL;
	nl_status *status = NULL;
	nl_config_source_api_path(api, sizeof(api), src);
	if (cached_configmap(&cm, cc, src) == 0) {
		NL_LOG_INFO("Nodelet config controller found the source in the informer's cache",
		            NL_KV_STR("source", api));
	} else {
		NL_LOG_INFO("Nodelet config controller attempting to download the source",
		            NL_KV_STR("source", api));
		int rc = cc->ops.get_configmap(&cm, &status, src->namespace_, src->name,
		                               cc->ops.payload);
		if (rc != 0) {
			nl__config_call_failed(&f->detail, rc, status);
			return fail(f, NL_CONFIG_ERR_DOWNLOAD, rc);
		}
		nl_status_free(status);
	}
	const char *uid = nl_meta_uid(cm), *rv = nl_meta_resource_version(cm);
	char *uid_copy = uid && *uid ? strdup(uid) : NULL, *rv_copy = rv && *rv ? strdup(rv) : NULL;
	if (!uid_copy || !rv_copy) {
		free(uid_copy);
		free(rv_copy);
		json_object_put(cm);
		nl_err_set(&f->detail, NL_EINVAL, "ConfigMap %s has no %s", api,
		           uid && *uid ? "resourceVersion" : "UID");
		return fail(f, NL_CONFIG_ERR_INTERNAL, NL_EINVAL);
	}
	free(src->uid);
	free(src->resource_version);
	src->uid = uid_copy;
	src->resource_version = rv_copy;
	*out = cm;
	return 0;
}

/* IsConfigMapKey, before a key becomes a file name: the API server
 * refuses any other key, so one here is a server we must not trust, and a
 * NUL in it (held as NL_JSON_KEY_NUL by the JSON decoder) must not name
 * the file before it. 0, or NL_EINVAL with the key and the rule in f. */
static int check_data_key(const char *key, sync_failure *f)
{
	char why[1024];
	size_t len = strlen(key);
	char *raw = nl_json_key_has_nul(key) ? nl_json_key_unmark(key, &len) : NULL;
	const char *k = raw ? raw : key;
	int rc = 0;
	if (nl_name_is_config_key_n(k, len, why, sizeof(why)) != 0) {
		nl_buf q;
		nl_buf_init(&q, 0);
		nl_quote_append_n(&q, k, len);
		nl_err_set(&f->detail, NL_EINVAL, "invalid ConfigMap data key %s: %s",
		           q.data ? q.data : "", why);
		nl_buf_free(&q);
		rc = fail(f, NL_CONFIG_ERR_INTERNAL, NL_EINVAL);
	}
	free(raw);
	return rc;
}

/* The ConfigMap's data as checkpoint files (borrowed from cm); binaryData
 * is not part of a payload, as upstream. */
static int payload_files(nl_checkpoint_file **out, size_t *n_out, json_object *cm, sync_failure *f)
{
	json_object *data = json_object_object_get(cm, "data");
	size_t n = json_object_is_type(data, json_type_object)
	               ? (size_t)json_object_object_length(data)
	               : 0;
	nl_checkpoint_file *files = calloc(n ? n : 1, sizeof(*files));
	size_t i = 0;
	if (!files) {
		nl_err_set(&f->detail, NL_ENOMEM, "out of memory");
		return fail(f, NL_CONFIG_ERR_INTERNAL, NL_ENOMEM);
	}
	if (n) {
		json_object_object_foreach(data, key, val)
		{
			if (check_data_key(key, f) != 0) {
				free(files);
				return NL_EINVAL;
			}
			if (!json_object_is_type(val, json_type_string)) {
				free(files);
				nl_err_set(&f->detail, NL_EINVAL, "data[%s] is not a string", key);
				return fail(f, NL_CONFIG_ERR_INTERNAL, NL_EINVAL);
			}
			files[i++] = (nl_checkpoint_file){key, json_object_get_string(val),
			                                  (size_t)json_object_get_string_len(val)};
		}
	}
	*out = files;
	*n_out = i;
	return 0;
}

/* saveConfigCheckpoint: only when not stored yet. */
static int save_checkpoint(nl_config_controller *cc, const nl_config_source *src, json_object *cm,
                           sync_failure *f)
{
	char api[512];
	int exists = 0, rc = nl_checkpoint_store_exists(&exists, cc->store, src, &f->detail);
	if (rc != 0)
		return fail(f, NL_CONFIG_ERR_INTERNAL, rc);
	nl_config_source_api_path(api, sizeof(api), src);
	if (exists) {
		NL_LOG_INFO("Checkpoint already exists", NL_KV_STR("source", api),
		            NL_KV_STR("UID", src->uid),
		            NL_KV_STR("resourceVersion", src->resource_version));
		return 0;
	}
	nl_checkpoint_file *files = NULL;
	size_t n = 0;
	rc = payload_files(&files, &n, cm, f);
	if (rc != 0)
		return rc;
	rc = nl_checkpoint_store_save(cc->store, src->uid, src->resource_version, files, n,
	                              &f->detail);
	free(files);
	return rc != 0 ? fail(f, NL_CONFIG_ERR_INTERNAL, rc) : 0;
}

/* setAssignedConfig: *updated when the assignment changed. */
static int set_assigned(int *updated, nl_config_controller *cc, const nl_config_source *src,
                        sync_failure *f)
{
	nl_config_source *before = NULL;
	int rc = nl_checkpoint_store_assigned(&before, cc->store, &f->detail);
	if (rc == 0)
		rc = nl_checkpoint_store_set_assigned(cc->store, src, &f->detail);
	if (rc == 0)
		*updated = !nl_config_source_equal(before, src);
	nl_config_source_free(before);
	return rc != 0 ? fail(f, NL_CONFIG_ERR_INTERNAL, rc) : 0;
}

static int sync_reset(nl_config_controller *cc, sync_failure *f)
{
	int updated = 0;
	NL_LOG_INFO("Node.Spec.ConfigSource is empty, will reset assigned and last-known-good to "
	            "defaults");
	int rc = nl_checkpoint_store_reset(&updated, cc->store, &f->detail);
	if (rc != 0)
		return fail(f, NL_CONFIG_ERR_INTERNAL, rc);
	/* Upstream leaves a previous sync error standing here; unassigning
	 * resolves it. */
	nl__config_status_set_error_override(&cc->status, NULL);
	if (updated)
		restart_with(cc, NULL);
	return 0;
}

static int sync_remote(nl_config_controller *cc, nl_config_source *src, sync_failure *f)
{
	json_object *cm = NULL;
	int updated = 0;
	NL_LOG_INFO("Node.Spec.ConfigSource is non-empty, will checkpoint source and update config "
	            "if necessary");
	int rc = download(&cm, cc, src, f);
	if (rc == 0)
		rc = save_checkpoint(cc, src, cm, f);
	json_object_put(cm);
	if (rc == 0)
		rc = set_assigned(&updated, cc, src, f);
	if (rc != 0)
		return rc;
	if (updated)
		restart_with(cc, src);
	nl__config_status_set_error_override(&cc->status, NULL);
	return 0;
}

int nl_config_controller_sync_config(nl_config_controller *cc)
{
	sync_failure f = {.reason = NULL};
	nl_config_source *src = NULL;
	char reason[512];
	if (!cc->pending_config)
		return 0;
	cc->pending_config = 0;
	int rc = latest_node_source(&src, cc, &f);
	if (rc == 0)
		rc = src ? sync_remote(cc, src, &f) : sync_reset(cc, &f);
	nl_config_source_free(src);
	if (rc != 0) {
		snprintf(reason, sizeof(reason), NL_CONFIG_SYNC_ERROR_FMT,
		         f.reason ? f.reason : NL_CONFIG_ERR_INTERNAL);
		nl__config_status_set_error_override(&cc->status, reason);
		NL_LOG_ERROR(f.detail.msg, "Config sync failed", NL_KV_STR("reason", reason));
		/* Retried at the next tick. */
		cc->pending_config = 1;
	}
	return rc;
}

/* --- restart ---------------------------------------------------------------------- */

static void post_event(nl_config_controller *cc, const char *message)
{
	json_object *event = NULL, *answer = NULL;
	nl_status *status = NULL;
	nl_err err = {0};
	/* As kubelet's makeEvent: the node name doubles as the uid. */
	nl_event_spec spec = {.kind = "Node",
	                      .name = cc->node_name,
	                      .uid = cc->node_name,
	                      .type = "Normal",
	                      .reason = NL_CONFIG_CHANGED_EVENT_REASON,
	                      .message = message,
	                      .component = "nodelet",
	                      .host = cc->node_name};
	int rc = nl_event_new(&event, &spec, nl_clock_now(cc->clock));
	if (rc == 0) {
		NL_LOG_V(3, "Event occurred", NL_KV_REF("object", NULL, cc->node_name),
		         NL_KV_STR("fieldPath", ""), NL_KV_STR("kind", "Node"),
		         NL_KV_STR("apiVersion", "v1"), NL_KV_STR("type", "Normal"),
		         NL_KV_STR("reason", NL_CONFIG_CHANGED_EVENT_REASON),
		         NL_KV_STR("message", message));
		rc = cc->ops.create_event(&answer, &status, nl_meta_namespace(event), event,
		                          cc->ops.payload);
		if (rc != 0)
			nl__config_call_failed(&err, rc, status);
		else
			nl_status_free(status);
	} else {
		nl_err_set(&err, rc, "%s", nl_strerror(rc));
	}
	if (rc != 0)
		NL_LOG_ERROR(err.msg, "Unable to write event",
		             NL_KV_STR("reason", NL_CONFIG_CHANGED_EVENT_REASON));
	json_object_put(answer);
	json_object_put(event);
}

/* The restart after an assignment change: Event, log, bootstrap, callback.
 * src NULL = local config. */
static void restart_with(nl_config_controller *cc, const nl_config_source *src)
{
	char message[1400], api[512];
	nl_nodelet_config *cfg = NULL;
	nl_err err = {0};
	if (src) {
		nl_config_source_api_path(api, sizeof(api), src);
		snprintf(message, sizeof(message), NL_CONFIG_EVENT_REMOTE_FMT, api, src->uid,
		         src->resource_version, src->kubelet_config_key);
	} else {
		snprintf(message, sizeof(message), "%s", NL_CONFIG_EVENT_LOCAL_MESSAGE);
	}
	post_event(cc, message);
	NL_LOG_INFO("Nodelet config changed, restarting", NL_KV_STR("message", message));
	/* What the restarted process would do first. */
	int rc = nl_config_controller_bootstrap(&cfg, cc, &err);
	if (rc != 0) {
		NL_LOG_ERROR(err.msg, "Failed to bootstrap the new configuration");
	} else {
		/* The Event names the assigned config; a rollback runs another. */
		char using[1100];
		const char *which = nl__config_status_using(using, sizeof(using), &cc->status);
		NL_LOG_INFO("Restarting on a configuration", NL_KV_STR("configuration", which),
		            NL_KV_STR("condition", using));
	}
	if (cc->restart)
		cc->restart(rc, cfg, cc->restart_payload);
	else
		nl_nodelet_config_free(cfg);
}

/* --- informer signals (watch.go) ----------------------------------------------- */

void nl_config_controller_poke(nl_config_controller *cc)
{
	cc->pending_config = 1;
}

static int same_source(json_object *a, json_object *b)
{
	const char *x = source_annotation(a), *y = source_annotation(b);
	return json_object_equal(spec_source(a), spec_source(b)) &&
	       strcmp(x ? x : "", y ? y : "") == 0 && !x == !y;
}

static void cache(json_object **slot, json_object *obj)
{
	json_object *copy = NULL;
	if (obj && json_object_deep_copy(obj, &copy, NULL) != 0) {
		/* Without a copy the next sync GETs instead. */
		NL_LOG_ERROR("out of memory", "Cannot cache an informer object");
		copy = NULL;
	}
	json_object_put(*slot);
	*slot = copy;
}

void nl_config_controller_on_node(nl_config_controller *cc, json_object *old_node,
                                  json_object *new_node)
{
	cache(&cc->node, new_node);
	if (!old_node || !same_source(old_node, new_node))
		nl_config_controller_poke(cc);
}

void nl_config_controller_on_node_delete(nl_config_controller *cc, json_object *node)
{
	(void)node;
	cache(&cc->node, NULL);
	NL_LOG_INFO("Node was deleted, sync-loop will continue because the nodelet might recreate "
	            "the Node",
	            NL_KV_REF("node", NULL, cc->node_name));
}

void nl_config_controller_on_configmap(nl_config_controller *cc, json_object *cm)
{
	cache(&cc->configmap, cm);
	nl_config_controller_poke(cc);
}
