/* The access review kinds and their wire schemas (reviews.h); the field
 * numbers are k8s.io/api authorization/v1 and authentication/v1
 * generated.proto's. */
#include "reviews.h"

#include <string.h>

#define OE NL_F_OMITEMPTY
#define F(n, t, fl, gt, num)                                                          \
	{                                                                             \
		.name = (n), .type = (t), .flags = (fl), .go_type = (gt), .pb = (num) \
	}
#define STR(n, num) F(n, NL_FT_STRING, OE, "string", num)
#define OBJ(n, fl, gt, s, num)                                                                  \
	{                                                                                       \
		.name = (n), .type = NL_FT_OBJECT, .flags = (fl), .go_type = (gt), .sub = &(s), \
		.pb = (num)                                                                     \
	}
#define STRINGS(n, num)                                                               \
	{                                                                             \
		.name = (n), .type = NL_FT_ARRAY, .flags = OE, .go_type = "[]string", \
		.elem = NL_FT_STRING, .pb = (num)                                     \
	}
#define SCHEMA(var, goname, fields) \
	static const nl_schema var = {(goname), (fields), sizeof(fields) / sizeof((fields)[0])}
#define TYPEMETA                                                  \
	F("kind", NL_FT_STRING, OE | NL_F_TYPEMETA, "string", 0), \
	    F("apiVersion", NL_FT_STRING, OE | NL_F_TYPEMETA, "string", 0)
#define METADATA OBJ("metadata", 0, "v1.ObjectMeta", nl_schema_object_meta, 1)

static const nl_field resource_attributes_fields[] = {
    STR("namespace", 1), STR("verb", 2),        STR("group", 3), STR("version", 4),
    STR("resource", 5),  STR("subresource", 6), STR("name", 7),
};
SCHEMA(resource_attributes, "ResourceAttributes", resource_attributes_fields);

static const nl_field non_resource_attributes_fields[] = {STR("path", 1), STR("verb", 2)};
SCHEMA(non_resource_attributes, "NonResourceAttributes", non_resource_attributes_fields);

static const nl_field self_access_spec_fields[] = {
    OBJ("resourceAttributes", OE | NL_F_PTR, "v1.ResourceAttributes", resource_attributes, 1),
    OBJ("nonResourceAttributes", OE | NL_F_PTR, "v1.NonResourceAttributes", non_resource_attributes,
        2),
};
SCHEMA(self_access_spec, "SelfSubjectAccessReviewSpec", self_access_spec_fields);

static const nl_field access_spec_fields[] = {
    OBJ("resourceAttributes", OE | NL_F_PTR, "v1.ResourceAttributes", resource_attributes, 1),
    OBJ("nonResourceAttributes", OE | NL_F_PTR, "v1.NonResourceAttributes", non_resource_attributes,
        2),
    STR("user", 3),
    STRINGS("groups", 4),
    STR("uid", 6),
};
SCHEMA(access_spec, "SubjectAccessReviewSpec", access_spec_fields);

static const nl_field access_status_fields[] = {
    F("allowed", NL_FT_BOOL, 0, "bool", 1),
    F("denied", NL_FT_BOOL, OE, "bool", 4),
    STR("reason", 2),
    STR("evaluationError", 3),
};
SCHEMA(access_status, "SubjectAccessReviewStatus", access_status_fields);

static const nl_field self_access_fields[] = {
    TYPEMETA,
    METADATA,
    OBJ("spec", 0, "v1.SelfSubjectAccessReviewSpec", self_access_spec, 2),
    OBJ("status", OE, "v1.SubjectAccessReviewStatus", access_status, 3),
};
SCHEMA(self_access, "SelfSubjectAccessReview", self_access_fields);

static const nl_field access_fields[] = {
    TYPEMETA,
    METADATA,
    OBJ("spec", 0, "v1.SubjectAccessReviewSpec", access_spec, 2),
    OBJ("status", OE, "v1.SubjectAccessReviewStatus", access_status, 3),
};
SCHEMA(access, "SubjectAccessReview", access_fields);

static const nl_field user_info_fields[] = {STR("username", 1), STR("uid", 2),
                                            STRINGS("groups", 3)};
SCHEMA(user_info, "UserInfo", user_info_fields);

static const nl_field self_subject_status_fields[] = {
    OBJ("userInfo", OE, "v1.UserInfo", user_info, 1),
};
SCHEMA(self_subject_status, "SelfSubjectReviewStatus", self_subject_status_fields);

static const nl_field self_subject_fields[] = {
    TYPEMETA,
    METADATA,
    OBJ("status", OE, "v1.SelfSubjectReviewStatus", self_subject_status, 2),
};
SCHEMA(self_subject, "SelfSubjectReview", self_subject_fields);

#define REVIEW(grp, api, plural_, singular_, kind_, schema_)                                    \
	{                                                                                       \
		.id = MOCK_KIND_REVIEW, .group = (grp), .version = "v1", .api_version = (api),  \
		.plural = (plural_), .singular = (singular_), .kind = (kind_), .namespaced = 0, \
		.schema = &(schema_)                                                            \
	}

static const mock_resource reviews[MOCK_REVIEW_COUNT] = {
    [MOCK_REVIEW_SELF_ACCESS] =
        REVIEW("authorization.k8s.io", "authorization.k8s.io/v1", "selfsubjectaccessreviews",
               "selfsubjectaccessreview", "SelfSubjectAccessReview", self_access),
    [MOCK_REVIEW_ACCESS] =
        REVIEW("authorization.k8s.io", "authorization.k8s.io/v1", "subjectaccessreviews",
               "subjectaccessreview", "SubjectAccessReview", access),
    [MOCK_REVIEW_SELF_SUBJECT] =
        REVIEW("authentication.k8s.io", "authentication.k8s.io/v1", "selfsubjectreviews",
               "selfsubjectreview", "SelfSubjectReview", self_subject),
};

const mock_resource *mock_review_find(const char *group, const char *version, const char *plural)
{
	for (size_t i = 0; group && version && plural && i < MOCK_REVIEW_COUNT; i++)
		if (strcmp(reviews[i].group, group) == 0 &&
		    strcmp(reviews[i].version, version) == 0 &&
		    strcmp(reviews[i].plural, plural) == 0)
			return &reviews[i];
	return NULL;
}

const mock_resource *mock_review_get(size_t i)
{
	return i < MOCK_REVIEW_COUNT ? &reviews[i] : NULL;
}

mock_review_kind mock_review_kind_of(const mock_resource *r)
{
	return (mock_review_kind)(r - reviews);
}

int mock_resource_is_review(const mock_resource *r)
{
	return r && r->id == MOCK_KIND_REVIEW;
}

const mock_resource *mock_resource_served(size_t i)
{
	/* The core kinds, the reviews, then the stored kinds of named groups
	 * (each list in its own order). */
	size_t core = 0;
	for (size_t k = 0; k < MOCK_KIND_COUNT; k++)
		core += mock_resource_get((mock_kind)k)->group[0] == '\0';
	for (size_t k = 0, seen = 0; k < MOCK_KIND_COUNT; k++) {
		const mock_resource *r = mock_resource_get((mock_kind)k);
		if (r->group[0] == '\0' && seen++ == i)
			return r;
	}
	if (i < core + MOCK_REVIEW_COUNT)
		return mock_review_get(i - core);
	for (size_t k = 0, seen = core + MOCK_REVIEW_COUNT; k < MOCK_KIND_COUNT; k++) {
		const mock_resource *r = mock_resource_get((mock_kind)k);
		if (r->group[0] != '\0' && seen++ == i)
			return r;
	}
	return NULL;
}

_Static_assert(MOCK_SERVED_COUNT == MOCK_KIND_COUNT + MOCK_REVIEW_COUNT, "MOCK_SERVED_COUNT");
