/* The node lease controller: creates and renews this node's Lease in
 * kube-node-lease, a port of kubelet's pkg/kubelet/nodelease controller with
 * the fixes of later upstream versions (docs/agent.md lists every difference).
 *
 * The controller talks to the API server only through nl_lease_ops, so the
 * same code runs against the real client, the in-process mock or a scripted
 * fake, and only through an nl_clock, so it runs on real or virtual time.
 * One controller is used from one thread (the one that runs its clock's
 * timers, or calls nl_lease_controller_sync). */
#ifndef NODELET_LEASE_CONTROLLER_H
#define NODELET_LEASE_CONTROLLER_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include "errors.h"
#include "status.h"

#define NL_NAMESPACE_NODE_LEASE "kube-node-lease"
/* kubelet's default nodeLeaseDurationSeconds. */
#define NL_LEASE_DEFAULT_DURATION_SECONDS 40
/* Upstream constants: renewIntervalFraction, maxUpdateRetries, maxBackoff,
 * the ensure-lease backoff's start (doubled before each wait, so the first
 * wait is 200 ms) and the renew interval's jitter (JitterUntil's 0.04). */
#define NL_LEASE_RENEW_INTERVAL_FRACTION 0.25
#define NL_LEASE_MAX_UPDATE_RETRIES 5
#define NL_LEASE_MAX_BACKOFF_USEC (7 * NL_USEC_PER_SEC)
#define NL_LEASE_BACKOFF_START_USEC (100 * NL_USEC_PER_MSEC)
#define NL_LEASE_JITTER_FACTOR 0.04

/* The API calls the controller makes. Each returns 0 or a negative NL_E*
 * code: NL_ENOTFOUND for 404, NL_ECONFLICT for 409 (stale resourceVersion or
 * uid precondition), anything else for other server answers or transport
 * failures. On success *out is a new object owned by the controller (the
 * server's answer). On failure *status (if the callee sets it) is the
 * server's Status, or one describing a transport error, owned by the
 * controller; its message is logged. Bodies passed in are borrowed. */
typedef struct {
	int (*get_lease)(json_object **out, nl_status **status, const char *ns, const char *name,
	                 void *payload);
	int (*create_lease)(json_object **out, nl_status **status, const char *ns,
	                    json_object *lease, void *payload);
	int (*update_lease)(json_object **out, nl_status **status, const char *ns,
	                    json_object *lease, void *payload);
	int (*get_node)(json_object **out, nl_status **status, const char *name, void *payload);
	void *payload;
} nl_lease_ops;

typedef struct {
	nl_clock *clock;         /* borrowed; must outlive the controller */
	const nl_lease_ops *ops; /* copied */
	const char *node_name;   /* required: owner of the lease */
	/* NULL means the node name (kubelet's holder identity and lease name). */
	const char *holder_identity;
	const char *lease_name;
	const char *lease_namespace;    /* NULL means kube-node-lease */
	int32_t lease_duration_seconds; /* 0 means 40 */
	/* Called when a renewal fails again within one retry round (not on the
	 * first failure, never for 409): kubelet closes its connections here so
	 * a dead TCP connection is not reused. May be NULL. */
	void (*on_repeated_heartbeat_failure)(void *payload);
	void *hook_payload;
	/* Seed for the renew interval's jitter; 0 derives one from the node
	 * name and the clock (reproducible on a fake clock). */
	uint64_t jitter_seed;
	/* Optional: UPDATE with the lease as JSON text (len bytes, borrowed) to
	 * `name`, handing back the server's answer as text: on success *out is
	 * a NUL-terminated malloc'd buffer of *out_len bytes, owned by the
	 * controller; payload is ops->payload. When set, every UPDATE goes
	 * through it instead of ops->update_lease, and a renewal from the cached
	 * lease builds no json-c tree at all (thousands of controllers in one
	 * process: bench_heartbeat). Codes as ops->update_lease; an answer that
	 * is not one JSON object is NL_EPARSE. (Here rather than in nl_lease_ops
	 * so that positional initializers of the ops stay complete.) */
	int (*update_lease_text)(char **out, size_t *out_len, nl_status **status, const char *ns,
	                         const char *name, const char *body, size_t len, void *payload);
	/* Optional, protobuf (application/vnd.kubernetes.protobuf): UPDATE with
	 * the lease as an enveloped protobuf Lease (nl_pb_encode_object's
	 * bytes, len, borrowed) to `name`; on success *out is the answer's
	 * body, malloc'd, *out_len bytes, and *out_protobuf says whether it is
	 * protobuf (1) or JSON text (0: a server that answered in JSON). When
	 * set, it replaces update_lease_text and ops->update_lease for every
	 * UPDATE: the controller keeps its cached lease as protobuf bytes and a
	 * renewal writes the two new spec fields into them (no json-c tree,
	 * nl_lease_ops_init's nl_lease_update_protobuf on a real client). Codes
	 * as ops->update_lease; an answer that is no enveloped object is
	 * NL_EPARSE. */
	int (*update_lease_protobuf)(char **out, size_t *out_len, int *out_protobuf,
	                             nl_status **status, const char *ns, const char *name,
	                             const void *body, size_t len, void *payload);
} nl_lease_controller_options;

typedef struct nl_lease_controller nl_lease_controller;

/* A controller with nothing cached. Copies every string. NL_EINVAL when the
 * clock, ops (all four calls) or node name are missing or the duration is
 * negative; NL_ENOMEM. Free with nl_lease_controller_free (accepts NULL),
 * which stops it first. */
int nl_lease_controller_new(nl_lease_controller **out, const nl_lease_controller_options *opts);
void nl_lease_controller_free(nl_lease_controller *lc);

/* One sync, as the controller's periodic run does (the scenario runner's
 * `sync: lease` step), blocking: its backoff waits are nl_clock_sleep.
 * Update from the cached lease without a GET; otherwise,
 * or if that failed, ensure the lease exists (GET, CREATE with an
 * ownerReference to the Node), backing off 200 ms doubling to 7 s without an
 * attempt limit, and update it unless it was just created.
 * Returns 0 when the lease was created or renewed; NL_ECANCELED when the
 * clock was stopped meanwhile; NL_ENOTFOUND when the lease is missing and
 * the Node cannot be read (nothing created; the next sync tries again);
 * otherwise the code of the last failed update. */
int nl_lease_controller_sync(nl_lease_controller *lc);

/* Run syncs on the clock's timers: the first at once, then every renew
 * interval (0.25 x lease duration) plus up to 4% jitter, counted from the end
 * of the previous sync. The backoff waits of these syncs are timers too
 * (nl_clock_sleep_async): the thread running the clock is never blocked by
 * them, and other timers fire on time meanwhile. nl_lease_controller_sync
 * during such a wait finishes that sync, blocking. NL_EINVAL when already
 * started. */
int nl_lease_controller_start(nl_lease_controller *lc);
/* Cancel the scheduled syncs and a sync waiting in its backoff (the cached
 * lease stays); a no-op when not started. Call from the clock's thread (or
 * after nl_clock_run returned). */
void nl_lease_controller_stop(nl_lease_controller *lc);
/* The Node may have just appeared (registration succeeded): a started
 * controller idle between syncs with no lease syncs at once instead of a
 * renew interval later; otherwise nothing changes (one in its backoff tries
 * again within one step anyway). 0, or NL_ENOMEM. */
int nl_lease_controller_kick(nl_lease_controller *lc);

/* Change the lease duration (dynamic config): the next renewal writes it and
 * the next renew interval is derived from it. NL_EINVAL when <= 0. */
int nl_lease_controller_set_lease_duration(nl_lease_controller *lc, int32_t seconds);
/* The renew interval in microseconds (without jitter). */
int64_t nl_lease_controller_renew_interval(const nl_lease_controller *lc);
/* The lease last returned by the server for this controller's create or
 * update, or NULL. Borrowed until the next sync or free. (The controller
 * keeps that answer as JSON text, ~1 KiB, where a json-c tree of it takes
 * ~20 KiB; the tree is parsed here on first use.) */
json_object *nl_lease_controller_latest(const nl_lease_controller *lc);

#endif
