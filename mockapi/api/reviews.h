/* The access review kinds: create-only resources that are never stored,
 * answered from the request's own identity and the mock's authorizer
 * (handlers/access_review.c):
 *
 *   authorization.k8s.io/v1  selfsubjectaccessreviews  SelfSubjectAccessReview
 *   authorization.k8s.io/v1  subjectaccessreviews      SubjectAccessReview
 *   authentication.k8s.io/v1 selfsubjectreviews        SelfSubjectReview
 *
 * Each is a mock_resource with id MOCK_KIND_REVIEW, outside the table of
 * stored kinds (mock_resource_get never returns one), so the store and
 * the watch hub never see them; routing, authorization, discovery and the
 * review handler do. Their wire schemas (JSON and protobuf field numbers
 * of k8s.io/api's generated.proto) are here too. */
#ifndef MOCK_API_REVIEWS_H
#define MOCK_API_REVIEWS_H

#include <nodelet/schema.h>
#include <stddef.h>

#include "resources.h"

/* The id every review kind carries: past the stored kinds. */
#define MOCK_KIND_REVIEW MOCK_KIND_COUNT
/* How many resources mock_resource_served lists. */
#define MOCK_SERVED_COUNT (MOCK_KIND_COUNT + 3)

/* In kube-apiserver's group order: authentication.k8s.io, then
 * authorization.k8s.io. */
typedef enum {
	MOCK_REVIEW_SELF_SUBJECT,
	MOCK_REVIEW_SELF_ACCESS,
	MOCK_REVIEW_ACCESS,
	MOCK_REVIEW_COUNT
} mock_review_kind;

/* The review of URL parts, or NULL. */
const mock_resource *mock_review_find(const char *group, const char *version, const char *plural);
/* The i-th review kind, or NULL past the last. */
const mock_resource *mock_review_get(size_t i);
/* Which review r is (r must be one). */
mock_review_kind mock_review_kind_of(const mock_resource *r);
/* Whether r is a review kind. */
int mock_resource_is_review(const mock_resource *r);

/* Every resource discovery lists, i from 0: the core kinds first, then
 * the named groups in kube-apiserver's order (authentication.k8s.io,
 * authorization.k8s.io, coordination.k8s.io); NULL past the last. */
const mock_resource *mock_resource_served(size_t i);

#endif
