/* The built-in controllers a node agent meets in a real cluster: node
 * lifecycle (lease-based health, Unknown condition, unreachable taints),
 * the garbage collector (ownerReferences) and the namespace controller
 * (deleting what a Terminating namespace holds). They read and write through the
 * store, so every change they make is a watch event, and run on the
 * server's clock: a background thread ticks them in real time, or an
 * embedder with a virtual clock calls mock_controllers_tick.
 * docs/control-api.md describes what each one does and where it differs
 * from kube-controller-manager. */
#ifndef MOCK_CONTROLLERS_H
#define MOCK_CONTROLLERS_H

#include <json-c/json.h>
#include <nodelet/errors.h>
#include <stdint.h>

#include "core/options.h"
#include "storage/store.h"

#define MOCK_CONTROLLER_NODE_LIFECYCLE 1u
#define MOCK_CONTROLLER_GARBAGE_COLLECTOR 2u
#define MOCK_CONTROLLER_NAMESPACE 4u
#define MOCK_CONTROLLER_TAINT_EVICTION 8u
#define MOCK_CONTROLLER_POD_TERMINATION 16u
#define MOCK_CONTROLLER_CSR_APPROVING 32u
#define MOCK_CONTROLLER_CSR_SIGNING 64u
#define MOCK_CONTROLLERS_ALL                                                  \
	(MOCK_CONTROLLER_NODE_LIFECYCLE | MOCK_CONTROLLER_GARBAGE_COLLECTOR | \
	 MOCK_CONTROLLER_NAMESPACE | MOCK_CONTROLLER_TAINT_EVICTION |         \
	 MOCK_CONTROLLER_POD_TERMINATION | MOCK_CONTROLLER_CSR_APPROVING |    \
	 MOCK_CONTROLLER_CSR_SIGNING)

/* Parse a --controllers value as kube-controller-manager does: a comma list
 * of names, "*" for every controller that is on by default, "-name" to turn
 * one off. Names: nodelifecycle (node-lifecycle-controller),
 * garbagecollector (garbage-collector-controller), tainteviction
 * (taint-eviction-controller), podtermination (pod-termination-controller,
 * the mock's stand-in for kubelets). NULL or "" means "*".
 * NL_EINVAL with the unknown name in err. */
int mock_controllers_parse(unsigned *out, const char *spec, nl_err *err);

/* --- node lifecycle (node_lifecycle.c) --- */

typedef struct mock_node_lifecycle mock_node_lifecycle;

int mock_node_lifecycle_new(mock_node_lifecycle **out, mock_store *s, int64_t grace_usec,
                            int64_t startup_grace_usec);
void mock_node_lifecycle_free(mock_node_lifecycle *n);
/* Forget every node's health record (after a reset). */
void mock_node_lifecycle_reset(mock_node_lifecycle *n);
/* One monitor pass over every Node at now (usec since the epoch). Returns
 * the number of writes made, or a negative NL_E* code. */
int mock_node_lifecycle_run(mock_node_lifecycle *n, int64_t now);

/* --- pods (pods.c) --- */

/* One pass of the kubelet stand-in: pods marked for deletion on a Ready
 * node, or on a node that does not exist, are deleted. Returns the number
 * of deletions or a negative NL_E* code. */
int mock_pod_termination_run(mock_store *s, int64_t now);
/* One pass of the taint eviction controller at now: pods bound to a node
 * with NoExecute taints they do not tolerate (or tolerate for less than
 * has passed since timeAdded) get the DisruptionTarget condition and are
 * deleted. Returns the number of writes or a negative NL_E* code. */
int mock_taint_eviction_run(mock_store *s, int64_t now);

/* --- garbage collector (garbage_collector.c) --- */

/* Collect until nothing changes: an object whose ownerReferences all name
 * absent owners (by kind, namespace, name and uid) is deleted (background
 * propagation); references to absent owners beside a live one are removed.
 * A reference to a kind the mock does not serve counts as a live owner.
 * Returns the number of objects deleted or changed, or a negative code. */
int mock_gc_collect(mock_store *s);
/* The collector the controller thread runs: mock_gc_collect with memory
 * between passes. It remembers every object with ownerReferences (its key
 * and the references' text) and where it left each kind in the store, so a
 * pass looks only at objects whose references changed, or at every
 * remembered object after something was deleted (the only way an owner
 * goes away). Same outcome as mock_gc_collect, without parsing every
 * dependent on every pass. */
typedef struct mock_gc mock_gc;
int mock_gc_new(mock_gc **out, mock_store *s);
void mock_gc_free(mock_gc *g);
/* Forget everything: the next pass looks at every object. */
void mock_gc_reset(mock_gc *g);
/* One collection (as mock_gc_collect). */
int mock_gc_run(mock_gc *g);
/* Owners being deleted with the "orphan" finalizer: every reference to
 * them removed from their dependents, then the finalizer; with
 * "foregroundDeletion": their dependents deleted, and the finalizer
 * removed once none whose reference has blockOwnerDeletion is left. The
 * store deletes an owner whose last finalizer goes. mock_gc_run does this
 * in every round (gc_finalizers.c). Returns the number of writes, or a
 * negative code. */
int mock_gc_finish_owners(mock_store *s);
/* Remove every ownerReference to owner_uid from the objects that hold one
 * (what the "orphan" finalizer asks). Returns the number of objects
 * changed, or a negative code. */
int mock_gc_orphan(mock_store *s, const char *owner_uid);

/* --- namespace controller (namespace_controller.c) --- */

/* Empties and finalizes Terminating namespaces (see the .c file). */
typedef struct mock_namespace_controller mock_namespace_controller;
/* now: the server clock at the start (usec since the epoch). */
int mock_namespace_controller_new(mock_namespace_controller **out, mock_store *s, int64_t now);
void mock_namespace_controller_free(mock_namespace_controller *c);
/* Forget the queue: the next pass looks at every namespace again. */
void mock_namespace_controller_reset(mock_namespace_controller *c);
/* Queue the namespaces being deleted that changed since the last pass (5 s
 * on), then sync those due at now (usec since the epoch). Returns the
 * number of syncs, or a negative NL_E* code. */
int mock_namespace_controller_run(mock_namespace_controller *c, int64_t now);

/* --- CSR approver and signer (csr_controllers.c) --- */

/* What the CSR controllers need from above this layer (installed by the
 * control layer): allows, a SubjectAccessReview of a user for verb on
 * group/resource/subresource (1 allowed); sign, the CA's certificate for a
 * PEM request with validity [not_before, not_after] (seconds) and the
 * CSR's usages into *cert (PEM, caller frees), 0 or an NL_E* code. */
typedef struct {
	int (*allows)(void *payload, const char *user, const char *const *groups, size_t ngroups,
	              const char *verb, const char *group, const char *resource,
	              const char *subresource);
	int (*sign)(void *payload, char **cert, const char *csr_pem, size_t len, int64_t not_before,
	            int64_t not_after, const char *const *usages, size_t nusages, nl_err *err);
	void *payload;
} mock_csr_hooks;

/* One pass over every CSR at now (usec): with MOCK_CONTROLLER_CSR_APPROVING
 * in enabled, approve node client CSRs whose requester the SubjectAccessReview
 * allows; with MOCK_CONTROLLER_CSR_SIGNING, sign approved ones of the
 * kube-apiserver client signers for min(expirationSeconds, max_usec),
 * backdated 5 minutes. Returns the number of writes. */
int mock_csr_controllers_run(mock_store *s, const mock_csr_hooks *h, unsigned enabled, int64_t now,
                             int64_t max_usec);

/* --- the controller manager (controllers.c) --- */

typedef struct mock_controllers mock_controllers;

/* Controllers for store s as o configures them (--controllers, grace
 * periods, clock, tick). o is borrowed and must outlive the result. */
int mock_controllers_new(mock_controllers **out, mock_store *s, const mock_options *o, nl_err *err);
/* Start the background thread (when o->controller_tick_ms > 0). */
int mock_controllers_start(mock_controllers *c, nl_err *err);
/* Stop the thread; safe to call twice. */
void mock_controllers_stop(mock_controllers *c);
void mock_controllers_free(mock_controllers *c);
int mock_controllers_enabled(const mock_controllers *c, unsigned which);
/* Run the work due now on the server's clock; serialised with the thread. */
int mock_controllers_tick(mock_controllers *c);
/* Install the CSR controllers' hooks (copied). */
void mock_controllers_set_csr_hooks(mock_controllers *c, const mock_csr_hooks *h);
/* Forget controller state (after a reset). */
void mock_controllers_reset(mock_controllers *c);
/* Something was deleted: the thread collects garbage now rather than at
 * its throttled pace. NULL ok. */
void mock_controllers_kick(mock_controllers *c);

#endif
