/* Port of kubelet's node lease controller (pkg/kubelet/nodelease, later
 * component-helpers/apimachinery/lease). Step names follow upstream:
 * sync, backoffEnsureLease, ensureLease, retryUpdateLease, newLease. */
#include "lease_internal.h"

#include <nodelet/log.h>
#include <nodelet/meta.h>
#include <nodelet/time.h>

#include <stdlib.h>
#include <string.h>

struct nl_lease_controller {
	nl_clock *clock;
	nl_lease_ops ops;
	char *node_name;
	char *holder_identity;
	char *lease_name;
	char *lease_namespace;
	int32_t lease_duration_seconds;
	void (*hook)(void *payload);
	void *hook_payload;
	uint64_t seed;
	/* latestLease: the server's answer to our last create or update. */
	json_object *latest;
	nl_jitter_until loop;
};

/* --- small json-c helpers ---------------------------------------------------- */

/* Add val under key, taking ownership; NL_ENOMEM (val released) when val is
 * NULL (a failed json_object_new_*) or the add fails. */
static int put(json_object *obj, const char *key, json_object *val)
{
	if (!val)
		return NL_ENOMEM;
	if (json_object_object_add(obj, key, val) != 0) {
		json_object_put(val);
		return NL_ENOMEM;
	}
	return 0;
}

static int put_string(json_object *obj, const char *key, const char *s)
{
	return put(obj, key, json_object_new_string(s));
}

/* obj.key as an object, created (replacing a non-object) when needed. */
static json_object *child_object(json_object *obj, const char *key)
{
	json_object *child = json_object_object_get(obj, key);
	if (json_object_is_type(child, json_type_object))
		return child;
	child = json_object_new_object();
	return put(obj, key, child) == 0 ? child : NULL;
}

static int has_owner_references(json_object *lease)
{
	json_object *refs = nl_json_get_path(lease, "metadata.ownerReferences");
	return json_object_is_type(refs, json_type_array) && json_object_array_length(refs) > 0;
}

/* Go's err.Error() for a failed call: the server's Status message, else the
 * code's name. Frees the status. */
static int call_failed(nl_err *err, int rc, nl_status *status)
{
	nl_err_set(err, rc, "%s",
	           status && status->message && *status->message ? status->message
	                                                         : nl_strerror(rc));
	nl_status_free(status);
	return rc;
}

static char *dup_or(const char *s, const char *fallback)
{
	return strdup(s ? s : fallback);
}

/* --- newLease ------------------------------------------------------------------ */

/* The bare minimum, as upstream: other Lease fields exist for debugging and
 * legacy, heartbeats do not need them. */
static int lease_skeleton(json_object **out, const nl_lease_controller *lc)
{
	json_object *lease = json_object_new_object(), *meta, *spec;
	if (!lease)
		return NL_ENOMEM;
	if (put_string(lease, "kind", "Lease") != 0 ||
	    put_string(lease, "apiVersion", "coordination.k8s.io/v1") != 0 ||
	    !(meta = child_object(lease, "metadata")) ||
	    put_string(meta, "name", lc->lease_name) != 0 ||
	    put_string(meta, "namespace", lc->lease_namespace) != 0 ||
	    !(spec = child_object(lease, "spec")) ||
	    put_string(spec, "holderIdentity", lc->holder_identity) != 0) {
		json_object_put(lease);
		return NL_ENOMEM;
	}
	*out = lease;
	return 0;
}

static json_object *owner_reference(const char *node_name, const char *uid)
{
	json_object *refs = json_object_new_array(), *ref = json_object_new_object();
	if (!refs || !ref || json_object_array_add(refs, ref) != 0) {
		json_object_put(refs);
		json_object_put(ref);
		return NULL;
	}
	if (put_string(ref, "apiVersion", "v1") != 0 || put_string(ref, "kind", "Node") != 0 ||
	    put_string(ref, "name", node_name) != 0 || put_string(ref, "uid", uid) != 0) {
		json_object_put(refs);
		return NULL;
	}
	return refs;
}

/* Setting the owner needs the Node's uid (not known locally). The Node may
 * not be readable yet when the lease is first written, so every renewal
 * tries again until it succeeds. Only NL_ENOMEM is an error: an unreadable
 * Node leaves the lease without owner, which callers check. */
static int set_node_owner(json_object *lease, nl_lease_controller *lc)
{
	json_object *node = NULL, *meta, *refs;
	nl_status *status = NULL;
	nl_err err;
	int rc = lc->ops.get_node(&node, &status, lc->node_name, lc->ops.payload);

	if (rc != 0) {
		call_failed(&err, rc, status);
		NL_LOG_ERROR("failed to get node \"%s\" when trying to set owner ref to the node "
		             "lease: %s",
		             lc->node_name, err.msg);
		return 0;
	}
	nl_status_free(status);
	const char *uid = nl_meta_uid(node);
	if (!uid || !*uid) {
		/* An owner without uid would be rejected (422); treat as unreadable. */
		NL_LOG_ERROR(
		    "node \"%s\" has no metadata.uid; cannot set owner ref to the node lease",
		    lc->node_name);
		json_object_put(node);
		return 0;
	}
	rc = NL_ENOMEM;
	if ((meta = nl_meta_ensure(lease)) && (refs = owner_reference(lc->node_name, uid)))
		rc = put(meta, "ownerReferences", refs);
	json_object_put(node);
	return rc;
}

int nl__lease_new_lease(json_object **out, nl_lease_controller *lc, json_object *base)
{
	json_object *lease = NULL, *spec;
	char renew[NL_TIME_BUFSZ];
	int rc;

	if (base) {
		/* A deep copy: the cached lease must stay as the server sent it. */
		if (json_object_deep_copy(base, &lease, NULL) != 0)
			return NL_ENOMEM;
	} else if ((rc = lease_skeleton(&lease, lc)) != 0) {
		return rc;
	}
	nl_time_format_micro(renew, nl_clock_now(lc->clock));
	/* Later upstream fix: the duration is asserted on every renewal, since
	 * the configuration may have changed since the lease was created. */
	rc = NL_ENOMEM;
	if (!(spec = child_object(lease, "spec")) ||
	    put(spec, "leaseDurationSeconds", json_object_new_int(lc->lease_duration_seconds)) ||
	    put_string(spec, "renewTime", renew))
		goto fail;
	if (!has_owner_references(lease) && (rc = set_node_owner(lease, lc)) != 0)
		goto fail;
	*out = lease;
	return 0;

fail:
	json_object_put(lease);
	return rc;
}

/* --- ensureLease / backoffEnsureLease ------------------------------------------- */

/* GET the lease; create it when missing. *out NULL (and 0) when it is missing
 * and the Node cannot be read: creating it without an owner is never right,
 * the next sync tries again. */
static int ensure_lease(json_object **out, int *created, nl_lease_controller *lc, nl_err *err)
{
	json_object *lease = NULL, *fresh = NULL;
	nl_status *status = NULL;
	int rc = lc->ops.get_lease(&lease, &status, lc->lease_namespace, lc->lease_name,
	                           lc->ops.payload);

	if (rc == 0) {
		nl_status_free(status);
		*out = lease;
		*created = 0;
		return 0;
	}
	if (rc != NL_ENOTFOUND)
		return call_failed(err, rc, status);
	nl_status_free(status);
	status = NULL;

	if ((rc = nl__lease_new_lease(&fresh, lc, NULL)) != 0)
		return nl_err_set(err, rc, "%s", nl_strerror(rc));
	if (!has_owner_references(fresh)) {
		json_object_put(fresh);
		*out = NULL;
		*created = 0;
		return 0;
	}
	rc = lc->ops.create_lease(&lease, &status, lc->lease_namespace, fresh, lc->ops.payload);
	json_object_put(fresh);
	if (rc != 0)
		return call_failed(err, rc, status);
	nl_status_free(status);
	*out = lease;
	*created = 1;
	return 0;
}

/* Retry ensure_lease with waits of 200 ms doubling to 7 s, without an
 * attempt limit: only shutdown (NL_ECANCELED) ends it unsuccessfully. */
static int backoff_ensure_lease(json_object **out, int *created, nl_lease_controller *lc)
{
	int64_t sleep = NL_LEASE_BACKOFF_START_USEC;
	char d[NL_DURATION_BUFSZ];
	nl_err err;

	for (;;) {
		if (nl_clock_stopped(lc->clock))
			return NL_ECANCELED;
		if (ensure_lease(out, created, lc, &err) == 0)
			return 0;
		sleep =
		    2 * sleep < NL_LEASE_MAX_BACKOFF_USEC ? 2 * sleep : NL_LEASE_MAX_BACKOFF_USEC;
		nl_duration_format(d, sleep);
		NL_LOG_ERROR("failed to ensure node lease exists, will retry in %s, error: %s", d,
		             err.msg);
		if (nl_clock_sleep(lc->clock, sleep) == NL_ECANCELED)
			return NL_ECANCELED;
	}
}

/* --- retryUpdateLease ---------------------------------------------------------- */

void nl__lease_set_latest(nl_lease_controller *lc, json_object *lease)
{
	json_object_put(lc->latest);
	lc->latest = lease;
}

/* One UPDATE of newLease(base). NL_ENOTFOUND without a request when the
 * Node cannot be read and the lease has no owner yet (later upstream: a
 * deleted Node must not be kept alive by its lease). */
static int update_once(nl_lease_controller *lc, json_object *base)
{
	json_object *lease = NULL, *updated = NULL;
	nl_status *status = NULL;
	nl_err err;
	int rc = nl__lease_new_lease(&lease, lc, base);

	if (rc != 0) {
		NL_LOG_ERROR("failed to prepare node lease: %s", nl_strerror(rc));
		return rc;
	}
	if (!has_owner_references(lease)) {
		NL_LOG_ERROR("failed to prepare node lease: node \"%s\" cannot be read, not "
		             "renewing",
		             lc->node_name);
		json_object_put(lease);
		return NL_ENOTFOUND;
	}
	rc = lc->ops.update_lease(&updated, &status, lc->lease_namespace, lease, lc->ops.payload);
	if (rc == 0) {
		nl_status_free(status);
		NL_LOG_V(4, "renewed node lease %s/%s: renewTime %s, resourceVersion %s",
		         lc->lease_namespace, lc->lease_name,
		         nl_json_get_string(lease, "spec.renewTime"),
		         nl_meta_resource_version(updated) ? nl_meta_resource_version(updated)
		                                           : "");
		json_object_put(lease);
		nl__lease_set_latest(lc, updated);
		return 0;
	}
	json_object_put(lease);
	call_failed(&err, rc, status);
	NL_LOG_ERROR("failed to update node lease, error: %s", err.msg);
	return rc;
}

int nl__lease_retry_update(nl_lease_controller *lc, json_object *base)
{
	json_object *refetched = NULL; /* owned base after a conflict */
	int rc = NL_ERROR;

	for (int i = 0; i < NL_LEASE_MAX_UPDATE_RETRIES; i++) {
		if (nl_clock_stopped(lc->clock)) {
			rc = NL_ECANCELED;
			break;
		}
		/* base may be lc->latest, which a success replaces: not used after. */
		if ((rc = update_once(lc, base)) == 0)
			break;
		if (rc == NL_ECONFLICT) {
			/* Optimistic lock lost: take the server's current lease. Not a
			 * connectivity problem, so no hook. */
			json_object *fresh = NULL;
			int created;
			if (backoff_ensure_lease(&fresh, &created, lc) == NL_ECANCELED) {
				rc = NL_ECANCELED;
				break;
			}
			json_object_put(refetched);
			base = refetched = fresh;
			continue;
		}
		if (i > 0 && lc->hook)
			lc->hook(lc->hook_payload);
	}
	json_object_put(refetched);
	return rc;
}

/* --- sync -------------------------------------------------------------------------- */

int nl_lease_controller_sync(nl_lease_controller *lc)
{
	json_object *lease = NULL;
	int created = 0, rc;
	char d[NL_DURATION_BUFSZ];

	if (lc->latest) {
		/* The lease is (almost) only written by us: update from the
		 * cached copy and skip the GET, sparing etcd and the apiserver. */
		rc = nl__lease_retry_update(lc, lc->latest);
		if (rc == 0 || rc == NL_ECANCELED)
			return rc;
		NL_LOG_INFO("failed to update lease using latest lease, fallback to ensure lease, "
		            "err: failed %d attempts to update node lease",
		            NL_LEASE_MAX_UPDATE_RETRIES);
	}
	rc = backoff_ensure_lease(&lease, &created, lc);
	/* As upstream, the cache takes whatever ensure produced, none included. */
	nl__lease_set_latest(lc, rc == 0 ? lease : NULL);
	if (rc != 0)
		return rc;
	if (!lease)
		return NL_ENOTFOUND;
	if (created) {
		NL_LOG_V(4, "created node lease %s/%s", lc->lease_namespace, lc->lease_name);
		return 0;
	}
	rc = nl__lease_retry_update(lc, lease);
	if (rc != 0 && rc != NL_ECANCELED) {
		nl_duration_format(d, nl_lease_controller_renew_interval(lc));
		NL_LOG_ERROR("failed %d attempts to update node lease, will retry after %s",
		             NL_LEASE_MAX_UPDATE_RETRIES, d);
	}
	return rc;
}

/* --- lifecycle ----------------------------------------------------------------------- */

static uint64_t default_seed(const char *node_name, int64_t now)
{
	/* FNV-1a of the node name mixed with the start time: nodes started
	 * together still spread their heartbeats. */
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	for (const char *p = node_name; *p; p++)
		h = (h ^ (unsigned char)*p) * UINT64_C(0x100000001b3);
	return h ^ (uint64_t)now;
}

int nl_lease_controller_new(nl_lease_controller **out, const nl_lease_controller_options *opts)
{
	const nl_lease_ops *ops = opts ? opts->ops : NULL;
	nl_lease_controller *lc;

	if (!opts || !opts->clock || !ops || !ops->get_lease || !ops->create_lease ||
	    !ops->update_lease || !ops->get_node || !opts->node_name || !*opts->node_name ||
	    opts->lease_duration_seconds < 0)
		return NL_EINVAL;
	if (!(lc = calloc(1, sizeof(*lc))))
		return NL_ENOMEM;
	lc->clock = opts->clock;
	lc->ops = *ops;
	lc->node_name = strdup(opts->node_name);
	lc->holder_identity = dup_or(opts->holder_identity, opts->node_name);
	lc->lease_name = dup_or(opts->lease_name, opts->node_name);
	lc->lease_namespace = dup_or(opts->lease_namespace, NL_NAMESPACE_NODE_LEASE);
	if (!lc->node_name || !lc->holder_identity || !lc->lease_name || !lc->lease_namespace) {
		nl_lease_controller_free(lc);
		return NL_ENOMEM;
	}
	lc->lease_duration_seconds = opts->lease_duration_seconds
	                                 ? opts->lease_duration_seconds
	                                 : NL_LEASE_DEFAULT_DURATION_SECONDS;
	lc->hook = opts->on_repeated_heartbeat_failure;
	lc->hook_payload = opts->hook_payload;
	lc->seed = opts->jitter_seed ? opts->jitter_seed
	                             : default_seed(opts->node_name, nl_clock_now(opts->clock));
	*out = lc;
	return 0;
}

void nl_lease_controller_free(nl_lease_controller *lc)
{
	if (!lc)
		return;
	nl_lease_controller_stop(lc);
	json_object_put(lc->latest);
	free(lc->node_name);
	free(lc->holder_identity);
	free(lc->lease_name);
	free(lc->lease_namespace);
	free(lc);
}

int64_t nl_lease_controller_renew_interval(const nl_lease_controller *lc)
{
	return (int64_t)((double)lc->lease_duration_seconds * (double)NL_USEC_PER_SEC *
	                 NL_LEASE_RENEW_INTERVAL_FRACTION);
}

static void sync_tick(void *payload)
{
	/* Failures are logged inside and retried at the next interval. */
	nl_lease_controller_sync(payload);
}

int nl_lease_controller_start(nl_lease_controller *lc)
{
	if (lc->loop.running)
		return NL_EINVAL;
	return nl_jitter_until_start(&lc->loop, lc->clock, nl_lease_controller_renew_interval(lc),
	                             NL_LEASE_JITTER_FACTOR, 1, lc->seed, sync_tick, lc);
}

void nl_lease_controller_stop(nl_lease_controller *lc)
{
	nl_jitter_until_stop(&lc->loop);
}

int nl_lease_controller_set_lease_duration(nl_lease_controller *lc, int32_t seconds)
{
	if (seconds <= 0)
		return NL_EINVAL;
	lc->lease_duration_seconds = seconds;
	lc->loop.period = nl_lease_controller_renew_interval(lc);
	return 0;
}

json_object *nl_lease_controller_latest(const nl_lease_controller *lc)
{
	return lc->latest;
}
