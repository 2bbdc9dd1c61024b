/* The kinds nodelet-mockapi serves and how each behaves (kube-apiserver's
 * per-kind "strategy": scope, create-on-update, status subresource, schema,
 * validation, selectable fields). One static table; see resources.c. */
#ifndef MOCK_RESOURCES_H
#define MOCK_RESOURCES_H

#include "core/request.h"

#include <json-c/json.h>
#include <nodelet/status.h>
#include <stdint.h>

struct nl_schema;
struct mock_ferrs;

typedef enum {
	MOCK_KIND_NAMESPACE,
	MOCK_KIND_NODE,
	MOCK_KIND_CONFIGMAP,
	MOCK_KIND_EVENT,
	MOCK_KIND_CSR, /* certificates.k8s.io/v1 CertificateSigningRequest */
	MOCK_KIND_LEASE,
	MOCK_KIND_POD,
	MOCK_KIND_COUNT
} mock_kind;

typedef struct mock_resource {
	mock_kind id;
	const char *group;       /* "" for core */
	const char *version;     /* "v1" */
	const char *api_version; /* "v1" or "coordination.k8s.io/v1" */
	const char *plural;      /* "leases" */
	const char *singular;    /* "lease" */
	const char *kind;        /* "Lease" */
	const char *list_kind;   /* "LeaseList" */
	int namespaced;
	const char *const *short_names; /* NULL-terminated, may be NULL */
	int create_on_update;           /* PUT of a missing object creates it (Lease) */
	int unconditional_update;       /* PUT without resourceVersion allowed */
	int has_status;                 /* serves <plural>/status */
	int has_eviction;               /* serves <plural>/eviction (pods) */
	int has_approval;               /* serves <plural>/approval (CSRs) */
	/* field selector names beyond metadata.name/namespace; NULL-terminated */
	const char *const *selectable_fields;
	const struct nl_schema *schema; /* nodelet/schema.h */
	/* The apiserver's defaulting (SetDefaults_*), run on every decoded
	 * object. May be NULL. */
	void (*defaults)(json_object *obj);
	/* Strategy hooks; any may be NULL. */
	/* Fill defaults on create (e.g. Namespace status.phase = Active). */
	void (*prepare_create)(json_object *obj);
	/* Reset fields a plain update may not change, from the stored object
	 * (e.g. Namespace spec.finalizers and status). */
	void (*prepare_update)(json_object *obj, json_object *old);
	/* Validate obj (already decoded); old is NULL on create. */
	void (*validate)(struct mock_ferrs *errs, json_object *obj, json_object *old);
	/* CheckGracefulDelete: the grace period a DELETE gives obj (seconds;
	 * 0 deletes at once) from the requested one (NULL: none given). NULL
	 * for kinds deleted at once. */
	int64_t (*grace_period)(json_object *obj, const int64_t *requested);
	/* The registry returns the deleted object, not a Status (pods). */
	int return_deleted;
	/* Kinds whose strategy depends on who asks and on the endpoint (CSRs);
	 * set, they replace prepare_create, the generic spec/status copy with
	 * prepare_update, and validate. sub is "", "status" or "approval";
	 * now the write's RFC 3339 time; req may be NULL (no requester). */
	void (*prepare_create_as)(json_object *obj, const mock_request *req);
	void (*prepare_endpoint)(json_object *obj, json_object *old, const char *sub,
	                         const char *now);
	void (*validate_endpoint)(struct mock_ferrs *errs, json_object *obj, json_object *old,
	                          const char *sub);
} mock_resource;

/* {group, plural} for Status messages ("leases.coordination.k8s.io"). */
nl_gr mock_resource_gr(const mock_resource *r);

/* Look up by URL parts; NULL when not served. */
const mock_resource *mock_resource_find(const char *group, const char *version, const char *plural);
/* Look up by apiVersion and kind as found in a manifest; NULL when not served. */
const mock_resource *mock_resource_by_kind(const char *api_version, const char *kind);
const mock_resource *mock_resource_get(mock_kind id);

/* The value of r's selectable field in obj as the apiserver's
 * ToSelectableFields gives it (selectable_fields.c): *out is a new
 * string (caller frees), or NULL for a field obj lacks that reads as "".
 * NL_ENOMEM. */
int mock_resource_field_value(char **out, const mock_resource *r, json_object *obj,
                              const char *field);

#endif
