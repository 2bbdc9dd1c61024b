/* Typed helpers for coordination.k8s.io/v1 Lease over the generic API
 * (api.h): json-c objects in and out, so fields this library does not know
 * survive a read-modify-write, plus nl_lease_spec to read and write the spec
 * as C values.
 *
 * Ownership as in api.h: *out is a new reference (json_object_put), objects
 * passed in are borrowed and never modified. */
#ifndef NODELET_LEASE_H
#define NODELET_LEASE_H

#include <json-c/json.h>
#include <stdint.h>

#include "api.h"
#include "lease_controller.h"

typedef struct {
	const char *holder_identity;    /* NULL = unset; borrowed */
	int32_t lease_duration_seconds; /* 0 = unset */
	int64_t acquire_time;           /* MicroTime, usec since the epoch; 0 = unset */
	int64_t renew_time;             /* MicroTime; 0 = unset */
	int32_t lease_transitions;      /* < 0 = unset */
} nl_lease_spec;

/* Read spec from a Lease; holder_identity points into lease (borrowed).
 * Missing fields read as unset. NL_EPARSE for a time that is not a
 * MicroTime. */
int nl_lease_spec_read(nl_lease_spec *out, json_object *lease);
/* Write spec's fields into lease's spec (unset ones are removed; fields
 * nl_lease_spec does not cover are kept). NL_ENOMEM / NL_EINVAL. */
int nl_lease_spec_write(json_object *lease, const nl_lease_spec *spec);
/* A new Lease object {apiVersion, kind, metadata {name, namespace}, spec}. */
int nl_lease_new(json_object **out, const char *ns, const char *name, const nl_lease_spec *spec);

/* ns NULL = the client's default namespace. */
int nl_lease_get(json_object **out, nl_client *c, const char *ns, const char *name, nl_result *res);
int nl_lease_list(json_object **out, nl_client *c, const char *ns, const nl_list_options *o,
                  nl_result *res);
/* Create / update lease in metadata.namespace (else the client's default). */
int nl_lease_create(json_object **out, nl_client *c, json_object *lease, nl_result *res);
int nl_lease_update(json_object **out, nl_client *c, json_object *lease, nl_result *res);
int nl_lease_delete(nl_client *c, const char *ns, const char *name, const nl_delete_options *o,
                    nl_result *res);

int nl_lease_get_async(nl_call **out, nl_client *c, const char *ns, const char *name,
                       nl_object_cb cb, void *payload);
int nl_lease_update_async(nl_call **out, nl_client *c, json_object *lease, nl_object_cb cb,
                          void *payload);
int nl_lease_create_async(nl_call **out, nl_client *c, json_object *lease, nl_object_cb cb,
                          void *payload);

/* The lease controller's API calls (lease_controller.h) on a client's
 * blocking calls: plug a real server into nl_lease_controller_options.ops.
 * The client is borrowed and must outlive the controller. */
void nl_lease_ops_init(nl_lease_ops *ops, nl_client *c);
/* The lease controller's protobuf UPDATE on a client
 * (nl_lease_controller_options.update_lease_protobuf, payload the
 * nl_client, borrowed): PUT body (an enveloped protobuf Lease) as
 * application/vnd.kubernetes.protobuf to lease `name` in ns, with the
 * client's Accept. On success *out is the answer's body (malloc'd,
 * NUL-terminated, *out_len bytes) and *out_protobuf whether its
 * Content-Type is protobuf. On failure *status (owned by the caller) is the
 * server's Status, or one describing a transport error. */
int nl_lease_update_protobuf(char **out, size_t *out_len, int *out_protobuf, nl_status **status,
                             const char *ns, const char *name, const void *body, size_t len,
                             void *payload);

#endif
