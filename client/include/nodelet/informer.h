/* An informer: list, then watch from the list's resourceVersion, keeping a
 * cache of the objects and calling add/update/delete handlers — client-go's
 * reflector + store + shared informer, single-threaded on the client's loop.
 *
 * - The list is paged (limit, continue) and replaces the cache: objects new
 *   to it are added, changed ones (another resourceVersion) updated, missing
 *   ones deleted.
 * - The watch resumes by itself after disconnects (watch.h); when the
 *   resourceVersion expires (410) the informer lists again.
 * - Every resync period each cached object is passed to on_update(obj, obj),
 *   as client-go's resync does, so a handler can re-check its work.
 *
 * Objects handed to handlers and returned by getters are borrowed from the
 * cache: valid until the loop next runs (json_object_get to keep one).
 * Cached objects carry kind and apiVersion even when they came from a list
 * (whose items lack them). Handlers may call nl_informer_stop. */
#ifndef NODELET_INFORMER_H
#define NODELET_INFORMER_H

#include <json-c/json.h>
#include <stdint.h>

#include "client.h"
#include "result.h"

typedef struct {
	void (*on_add)(json_object *obj, void *payload);
	void (*on_update)(json_object *old_obj, json_object *new_obj, void *payload);
	/* obj: the last state (from the DELETED event, or the cache when a
	 * relist found it gone). */
	void (*on_delete)(json_object *obj, void *payload);
} nl_informer_handlers;

typedef struct {
	const char *path; /* collection: "/api/v1/nodes" */
	const char *label_selector;
	const char *field_selector;
	int64_t resync_usec;           /* 0 = no periodic resync */
	long page_size;                /* list limit; 0 = 500 */
	int watch_timeout_seconds;     /* 0 = random in [300, 600) */
	nl_informer_handlers handlers; /* each may be NULL */
	/* A list or watch failed (informational: the informer retries). */
	void (*on_error)(const nl_result *res, void *payload);
	void *payload;
} nl_informer_options;

typedef struct nl_informer nl_informer;

/* Start listing on c's loop (loop thread only). Strings are copied. *out
 * belongs to the caller: nl_informer_stop. NL_EINVAL / NL_ENOMEM. */
int nl_informer_start(nl_informer **out, nl_client *c, const nl_informer_options *o);
/* Stop and free (also from a handler). Accepts NULL. */
void nl_informer_stop(nl_informer *inf);

/* 1 once the first list has been applied (client-go's HasSynced). */
int nl_informer_synced(const nl_informer *inf);
/* The cached object, borrowed; NULL when absent. ns NULL or "" for
 * cluster-scoped objects. */
json_object *nl_informer_get(const nl_informer *inf, const char *ns, const char *name);
size_t nl_informer_count(const nl_informer *inf);
/* Call fn for every cached object (borrowed), in no particular order. */
void nl_informer_foreach(const nl_informer *inf, void (*fn)(json_object *obj, void *payload),
                         void *payload);
/* The resourceVersion the cache is at (borrowed). */
const char *nl_informer_resource_version(const nl_informer *inf);
/* Lists made so far (the first included): tests and metrics. */
unsigned nl_informer_lists(const nl_informer *inf);

#endif
