/* Recording core/v1 Events, as client-go's legacy event recorder writes
 * them (name "<object>.<hex nanoseconds>", count 1, first and last
 * timestamp, source and reporting component). Ownership as in api.h. */
#ifndef NODELET_EVENT_H
#define NODELET_EVENT_H

#include <json-c/json.h>
#include <stdint.h>

#include "api.h"

typedef struct {
	/* The object the event is about (involvedObject). */
	const char *kind;
	const char *name;
	const char *namespace_; /* NULL for cluster-scoped objects */
	const char *uid;
	const char *api_version;
	const char *field_path;
	/* What happened. */
	const char *type; /* "Normal" or "Warning" */
	const char *reason;
	const char *message;
	const char *component; /* source.component, reportingComponent */
	const char *host;      /* source.host, reportingInstance */
	int64_t time_usec;     /* wall time; 0 = the client's clock now */
} nl_event_spec;

/* Build the Event; it lives in the object's namespace, or "default" for a
 * cluster-scoped object (as kubelet's node events). NL_EINVAL without kind,
 * name or reason. */
int nl_event_new(json_object **out, const nl_event_spec *s, int64_t now_usec);
/* Create an Event object (in its metadata.namespace). */
int nl_event_create(json_object **out, nl_client *c, json_object *event, nl_result *res);
/* nl_event_new on the client's clock, then nl_event_create. */
int nl_event_record(json_object **out, nl_client *c, const nl_event_spec *s, nl_result *res);
int nl_event_list(json_object **out, nl_client *c, const char *ns, const nl_list_options *o,
                  nl_result *res);

#endif
