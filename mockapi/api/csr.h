/* certificates.k8s.io/v1 CertificateSigningRequest: kube-apiserver 1.32's
 * strategy for the main resource and its /status and /approval endpoints
 * (csr_strategy.c), its validation (csr_validation.c), and the PEM block
 * reader both use. */
#ifndef MOCK_CSR_H
#define MOCK_CSR_H

#include "core/request.h"

#include <json-c/json.h>
#include <stddef.h>

struct mock_ferrs;

#define MOCK_CSR_SIGNER_KUBELET_CLIENT "kubernetes.io/kube-apiserver-client-kubelet"
#define MOCK_CSR_SIGNER_CLIENT "kubernetes.io/kube-apiserver-client"

/* PrepareForCreate: spec.username, uid and groups are the requester's
 * (req->user; none when the mock checks no credentials), whatever the
 * client sent; extra is cleared; status is empty. */
void mock_csr_prepare_create(json_object *obj, const mock_request *req);
/* PrepareForUpdate of the endpoint sub ("" main, "status", "approval"):
 * main keeps the stored spec and status; /status the stored spec and
 * Approved/Denied conditions; /approval the stored spec and everything of
 * status but the conditions. Conditions without lastUpdateTime get now,
 * without lastTransitionTime the stored one of the same type and status,
 * or now. now is an RFC 3339 time. */
void mock_csr_prepare_update(json_object *obj, json_object *old, const char *sub, const char *now);
/* ValidateCertificateSigningRequest{Create,Update,StatusUpdate,
 * ApprovalUpdate}, without ObjectMeta (old NULL on create). */
void mock_validate_csr(struct mock_ferrs *e, json_object *obj, json_object *old, const char *sub);
/* ValidateCertificateSigningRequestSignerName at field. */
void mock_validate_signer_name(struct mock_ferrs *e, const char *field, const char *name);

/* One PEM block as Go's pem.Decode finds it: the first "-----BEGIN T-----"
 * line with a matching END line at or after *cursor. start/len span the
 * whole block (for GnuTLS's PEM import), pointing into the input. */
typedef struct {
	char type[64];
	const char *start;
	size_t len;
	int has_headers; /* a "Key: value" line right after BEGIN */
} mock_pem_block;

/* 1 and the block (moving *cursor past it), or 0 at the end of the input. */
int mock_pem_next(const char **cursor, const char *end, mock_pem_block *out);

#endif
