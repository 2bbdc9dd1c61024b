/* The lease controller's steps, exposed to its unit tests (upstream tests
 * call newLease and retryUpdateLease directly). Not installed. */
#ifndef NL_AGENT_LEASE_INTERNAL_H
#define NL_AGENT_LEASE_INTERNAL_H

#include <nodelet/lease_controller.h>

/* newLease: a new lease (base NULL) or a deep copy of base, with
 * leaseDurationSeconds and renewTime asserted and an ownerReference to the
 * Node added when missing and the Node is readable (one GET node). The result
 * lacks ownerReferences when the Node could not be read; callers check.
 * 0 or NL_ENOMEM; *out is new, owned by the caller. */
int nl__lease_new_lease(json_object **out, nl_lease_controller *lc, json_object *base);
/* retryUpdateLease: up to 5 UPDATEs of newLease(base) (borrowed). 0 when one
 * succeeded (the answer is cached); NL_ECANCELED on stop; else the last
 * failure's code (NL_ENOTFOUND when the Node could not be read). */
int nl__lease_retry_update(nl_lease_controller *lc, json_object *base);
/* Replace the cached lease (ownership of lease passes; NULL clears). */
void nl__lease_set_latest(nl_lease_controller *lc, json_object *lease);

/* newLease on the cached lease as an enveloped protobuf Lease (base, len
 * bytes): *out (malloc'd, NUL-terminated, *out_len bytes) is base with
 * spec.leaseDurationSeconds = duration and spec.renewTime = renew_usec (a
 * MicroTime), the bytes nl_pb_encode_object writes for the renewed Lease.
 * NL_ENOTFOUND when base has not the usual shape (no ownerReference, a spec
 * field missing or twice, malformed); NL_ENOMEM. lease_protobuf.c. */
int nl__lease_splice_protobuf(char **out, size_t *out_len, const char *base, size_t len,
                              int32_t duration, int64_t renew_usec);
/* metadata.resourceVersion of an enveloped protobuf Lease into buf (cut to
 * size - 1), "" when absent or malformed. */
void nl__lease_protobuf_resource_version(char *buf, size_t size, const char *pb, size_t len);
/* pb (len bytes) is an enveloped object whose envelope parses and has a
 * raw message: what the renewal needs before caching an answer. */
int nl__lease_protobuf_is_object(const char *pb, size_t len);

#endif
