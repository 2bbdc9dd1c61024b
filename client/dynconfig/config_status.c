/* The dynamic config status (kubelet's kubeletconfig/status) and where it is
 * written on the Node: status.config, the NodeletConfigOK condition and the
 * nodelet.io/config-status annotation, in one strategic merge patch of
 * nodes/<name>/status. The status subresource keeps metadata changes (the
 * node status strategy resets only spec), so the annotation needs no second
 * request; servers since 1.24 drop status.config unless already set. */
#include "config_internal.h"

#include <nodelet/log.h>
#include <nodelet/meta.h>
#include <nodelet/time.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- state -------------------------------------------------------------------- */

void nl__config_status_reset(nl__config_status *st)
{
	int drops = st->server_drops_config;
	nl_config_source_free(st->assigned);
	nl_config_source_free(st->active);
	nl_config_source_free(st->last_known_good);
	free(st->error);
	free(st->error_override);
	/* A new process primes its status to sync once (NewNodeConfigStatus);
	 * what it learnt about the server still holds. */
	*st = (nl__config_status){.pending = 1, .server_drops_config = drops};
}

static int set_source(nl__config_status *st, nl_config_source **slot, const nl_config_source *src)
{
	nl_config_source *copy = NULL;
	if (nl_config_source_equal(*slot, src))
		return 0;
	if (nl_config_source_dup(&copy, src) != 0)
		return NL_ENOMEM;
	nl_config_source_free(*slot);
	*slot = copy;
	st->pending = 1;
	return 0;
}

int nl__config_status_set_assigned(nl__config_status *st, const nl_config_source *src)
{
	return set_source(st, &st->assigned, src);
}

int nl__config_status_set_active(nl__config_status *st, const nl_config_source *src)
{
	return set_source(st, &st->active, src);
}

int nl__config_status_set_last_known_good(nl__config_status *st, const nl_config_source *src)
{
	return set_source(st, &st->last_known_good, src);
}

static int set_string(nl__config_status *st, char **slot, const char *s)
{
	char *copy = NULL;
	if (strcmp(*slot ? *slot : "", s ? s : "") == 0)
		return 0;
	if (s && *s && !(copy = strdup(s)))
		return NL_ENOMEM;
	free(*slot);
	*slot = copy;
	st->pending = 1;
	return 0;
}

int nl__config_status_set_error(nl__config_status *st, const char *error)
{
	return set_string(st, &st->error, error);
}

int nl__config_status_set_error_override(nl__config_status *st, const char *error)
{
	return set_string(st, &st->error_override, error);
}

static const char *effective_error(const nl__config_status *st)
{
	return st->error_override ? st->error_override : st->error ? st->error : "";
}

static int add_source(json_object *o, const char *key, const nl_config_source *src)
{
	if (!src)
		return 0;
	json_object *v = nl_config_source_to_json(src);
	if (!v || json_object_object_add(o, key, v) != 0) {
		json_object_put(v);
		return NL_ENOMEM;
	}
	return 0;
}

json_object *nl__config_status_json(const nl__config_status *st)
{
	json_object *o = json_object_new_object();
	const char *error = effective_error(st);
	if (!o || add_source(o, "assigned", st->assigned) != 0 ||
	    add_source(o, "active", st->active) != 0 ||
	    add_source(o, "lastKnownGood", st->last_known_good) != 0 ||
	    (*error && json_object_object_add(o, "error", json_object_new_string(error)) != 0)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* --- the NodeletConfigOK condition ------------------------------------------- */

typedef struct {
	const char *status;
	char reason[512];
	char message[1024];
} condition;

static void remote_message(char *out, size_t outlen, const char *fmt, const nl_config_source *s)
{
	char api[512];
	nl_config_source_api_path(api, sizeof(api), s);
	snprintf(out, outlen, fmt, api, s->uid, s->resource_version);
}

/* Upstream's ConfigOK texts: which config is in use, and why. */
static void build_condition(condition *c, const nl__config_status *st)
{
	const char *error = effective_error(st);
	c->status = *error ? "False" : "True";
	if (*error)
		snprintf(c->reason, sizeof(c->reason), "%s", error);
	else
		snprintf(c->reason, sizeof(c->reason), "%s",
		         st->assigned ? NL_CONFIG_REASON_CURRENT_REMOTE_OK
		                      : NL_CONFIG_REASON_CURRENT_LOCAL_OK);
	nl__config_status_using(c->message, sizeof(c->message), st);
}

const char *nl__config_status_using(char *out, size_t outlen, const nl__config_status *st)
{
	/* No active source with one assigned: the assigned config failed and
	 * there was no last-known-good, so the local config stands in for it. */
	if (!st->active) {
		snprintf(out, outlen, "%s",
		         st->assigned ? NL_CONFIG_MSG_LKG_LOCAL : NL_CONFIG_MSG_CURRENT_LOCAL);
		return st->assigned ? "last-known-good" : "local";
	}
	if (nl_config_source_equal(st->active, st->assigned)) {
		remote_message(out, outlen, NL_CONFIG_MSG_CURRENT_REMOTE_FMT, st->active);
		return "assigned";
	}
	remote_message(out, outlen, NL_CONFIG_MSG_LKG_REMOTE_FMT, st->active);
	return "last-known-good";
}

static json_object *find_condition(json_object *node)
{
	json_object *conds = nl_json_get_path(node, "status.conditions");
	size_t n =
	    json_object_is_type(conds, json_type_array) ? json_object_array_length(conds) : 0;
	for (size_t i = 0; i < n; i++) {
		json_object *c = json_object_array_get_idx(conds, i);
		const char *type = nl_json_get_string(c, "type");
		if (type && strcmp(type, NL_CONFIG_CONDITION_TYPE) == 0)
			return c;
	}
	return NULL;
}

static int str_eq(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

/* utilequal.KubeletConfigOkEq: timestamps aside. */
static int condition_equal(json_object *remote, const condition *c)
{
	return remote && str_eq(nl_json_get_string(remote, "status"), c->status) &&
	       str_eq(nl_json_get_string(remote, "reason"), c->reason) &&
	       str_eq(nl_json_get_string(remote, "message"), c->message);
}

/* --- the patch ------------------------------------------------------------------- */

static int put(json_object *o, const char *key, json_object *v)
{
	if (!v || json_object_object_add(o, key, v) != 0) {
		json_object_put(v);
		return NL_ENOMEM;
	}
	return 0;
}

static json_object *child(json_object *o, const char *key)
{
	json_object *c = json_object_new_object();
	return put(o, key, c) == 0 ? c : NULL;
}

static json_object *condition_json(const condition *c, json_object *remote, int64_t now)
{
	char ts[NL_TIME_BUFSZ];
	const char *transition = NULL;
	json_object *o = json_object_new_object();
	nl_time_format(ts, now);
	/* lastTransitionTime moves only when the condition changes meaning. */
	if (condition_equal(remote, c))
		transition = nl_json_get_string(remote, "lastTransitionTime");
	if (!o || put(o, "type", json_object_new_string(NL_CONFIG_CONDITION_TYPE)) != 0 ||
	    put(o, "status", json_object_new_string(c->status)) != 0 ||
	    put(o, "lastHeartbeatTime", json_object_new_string(ts)) != 0 ||
	    put(o, "lastTransitionTime", json_object_new_string(transition ? transition : ts)) !=
	        0 ||
	    put(o, "reason", json_object_new_string(c->reason)) != 0 ||
	    put(o, "message", json_object_new_string(c->message)) != 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* status.config as a strategic merge patch: every part present, absent
 * ones as null so that a value the Node still shows is removed. */
static json_object *config_patch(json_object *desired)
{
	static const char *const keys[] = {"assigned", "active", "lastKnownGood", "error"};
	json_object *o = json_object_new_object();
	for (size_t i = 0; o && i < 4; i++) {
		json_object *v = json_object_object_get(desired, keys[i]), *copy = NULL;
		if (v && json_object_deep_copy(v, &copy, NULL) != 0) {
			json_object_put(o);
			return NULL;
		}
		/* json-c stores a NULL value as JSON null. */
		if (json_object_object_add(o, keys[i], copy) != 0) {
			json_object_put(copy);
			json_object_put(o);
			return NULL;
		}
	}
	return o;
}

static int build_patch(json_object **out, json_object *desired, const char *annotation,
                       json_object *cond, int with_config)
{
	json_object *patch = json_object_new_object(), *meta, *anns, *status, *conds;
	int rc = NL_ENOMEM;
	if (!patch || !(meta = child(patch, "metadata")) || !(anns = child(meta, "annotations")) ||
	    put(anns, NL_CONFIG_STATUS_ANNOTATION, json_object_new_string(annotation)) != 0 ||
	    !(status = child(patch, "status")) ||
	    put(status, "conditions", json_object_new_array()) != 0 ||
	    !(conds = json_object_object_get(status, "conditions")))
		goto fail;
	if (json_object_array_add(conds, json_object_get(cond)) != 0) {
		json_object_put(cond);
		goto fail;
	}
	if (with_config && put(status, "config", config_patch(desired)) != 0)
		goto fail;
	*out = patch;
	return 0;
fail:
	json_object_put(patch);
	return rc;
}

/* --- sync ---------------------------------------------------------------------- */

/* Whether the Node already shows desired everywhere we write it. The
 * annotation and status.config travel in one PATCH, so a Node showing our
 * annotation without status.config is on a server that drops the field:
 * remembered, so that an agent restart does not re-send it. */
static int node_shows(nl__config_status *st, json_object *node, json_object *desired,
                      const char *annotation, const condition *c)
{
	/* Annotation keys hold dots: no dotted-path lookup. */
	json_object *anns = nl_json_get_path(node, "metadata.annotations");
	json_object *remote = json_object_object_get(anns, NL_CONFIG_STATUS_ANNOTATION);
	if (!json_object_is_type(remote, json_type_string) ||
	    strcmp(json_object_get_string(remote), annotation) != 0)
		return 0;
	if (!condition_equal(find_condition(node), c))
		return 0;
	if (st->server_drops_config)
		return 1;
	json_object *cfg = nl_json_get_path(node, "status.config");
	if (cfg)
		return json_object_equal(cfg, desired);
	if (json_object_object_length(desired) > 0)
		st->server_drops_config = 1;
	return 1;
}

static int patch_status(nl_config_controller *cc, json_object *node, json_object *desired,
                        const condition *c, const char *annotation, nl_err *err)
{
	nl__config_status *st = &cc->status;
	json_object *cond = condition_json(c, find_condition(node), nl_clock_now(cc->clock));
	json_object *patch = NULL, *answer = NULL;
	nl_status *status = NULL;
	int rc = cond ? build_patch(&patch, desired, annotation, cond, !st->server_drops_config)
	              : NL_ENOMEM;
	json_object_put(cond);
	if (rc != 0)
		return nl_err_set(err, rc, "cannot build the status patch: out of memory");
	size_t len;
	const char *body = nl_json_compact(patch, &len);
	rc = cc->ops.patch_node_status(&answer, &status, cc->node_name, body, len, cc->ops.payload);
	json_object_put(patch);
	if (rc != 0)
		return nl__config_call_failed(err, rc, status);
	nl_status_free(status);
	if (!st->server_drops_config && json_object_object_length(desired) > 0 &&
	    !nl_json_get_path(answer, "status.config")) {
		/* Kubernetes 1.24+: Node.status.config is dropped unless already
		 * set; the condition and the annotation carry the status. */
		st->server_drops_config = 1;
		NL_LOG_INFO("The API server does not keep Node.status.config, reporting the config "
		            "status in a condition and an annotation only",
		            NL_KV_STR("condition", NL_CONFIG_CONDITION_TYPE),
		            NL_KV_STR("annotation", NL_CONFIG_STATUS_ANNOTATION));
	}
	json_object_put(answer);
	return 0;
}

static int sync_with_node(nl_config_controller *cc, json_object *node, nl_err *err)
{
	nl__config_status *st = &cc->status;
	json_object *desired = nl__config_status_json(st);
	condition c;
	if (!desired)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	build_condition(&c, st);
	const char *annotation = nl_json_compact(desired, NULL);
	int rc = 0;
	if (!annotation)
		rc = nl_err_set(err, NL_ENOMEM, "out of memory");
	else if (node_shows(st, node, desired, annotation, &c))
		NL_LOG_V(4, "Node.Status.Config is up to date");
	else
		rc = patch_status(cc, node, desired, &c, annotation, err);
	json_object_put(desired);
	return rc;
}

int nl__config_status_sync(nl_config_controller *cc)
{
	nl__config_status *st = &cc->status;
	json_object *node = NULL;
	nl_status *status = NULL;
	nl_err err = {0};
	if (!st->pending)
		return 0;
	st->pending = 0;
	NL_LOG_INFO("Updating Node.Status.Config");
	int rc = cc->ops.get_node(&node, &status, cc->node_name, cc->ops.payload);
	if (rc != 0) {
		nl__config_call_failed(&err, rc, status);
		NL_LOG_ERROR(err.msg, "Could not get Node, will not sync status",
		             NL_KV_REF("node", NULL, cc->node_name));
	} else {
		nl_status_free(status);
		rc = sync_with_node(cc, node, &err);
		if (rc != 0)
			NL_LOG_ERROR(err.msg, "Failed to patch node status");
		json_object_put(node);
	}
	/* Retried at the next tick (upstream drops a failed patch). */
	if (rc != 0)
		st->pending = 1;
	return rc;
}
