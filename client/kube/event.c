/* core/v1 Events as client-go's legacy recorder writes them. */
#include <nodelet/event.h>
#include <nodelet/meta.h>
#include <nodelet/time.h>
#include <stdio.h>

#include "kube.h"

static void add_str(json_object *o, const char *key, const char *v)
{
	if (v && *v)
		json_object_object_add(o, key, json_object_new_string(v));
}

int nl_event_new(json_object **out, const nl_event_spec *s, int64_t now_usec)
{
	char name[512], ts[NL_TIME_BUFSZ];
	if (!s || !s->kind || !s->name || !*s->name || !s->reason)
		return NL_EINVAL;
	int64_t t = s->time_usec ? s->time_usec : now_usec;
	const char *ns = s->namespace_ && *s->namespace_ ? s->namespace_ : "default";
	/* recorder.go: fmt.Sprintf("%v.%x", ref.Name, t.UnixNano()). */
	snprintf(name, sizeof(name), "%s.%llx", s->name, (unsigned long long)t * 1000ULL);
	json_object *ev;
	int rc = nl__object_new(&ev, "v1", "Event", ns, name);
	if (rc)
		return rc;
	json_object *ref = json_object_new_object(), *src = json_object_new_object();
	if (!ref || !src) {
		json_object_put(ref);
		json_object_put(src);
		json_object_put(ev);
		return NL_ENOMEM;
	}
	add_str(ref, "kind", s->kind);
	add_str(ref, "namespace", s->namespace_);
	add_str(ref, "name", s->name);
	add_str(ref, "uid", s->uid);
	add_str(ref, "apiVersion", s->api_version);
	add_str(ref, "fieldPath", s->field_path);
	json_object_object_add(ev, "involvedObject", ref);
	add_str(ev, "reason", s->reason);
	add_str(ev, "message", s->message);
	add_str(src, "component", s->component);
	add_str(src, "host", s->host);
	json_object_object_add(ev, "source", src);
	nl_time_format(ts, t);
	json_object_object_add(ev, "firstTimestamp", json_object_new_string(ts));
	json_object_object_add(ev, "lastTimestamp", json_object_new_string(ts));
	json_object_object_add(ev, "count", json_object_new_int(1));
	add_str(ev, "type", s->type ? s->type : "Normal");
	json_object_object_add(ev, "reportingComponent",
	                       json_object_new_string(s->component ? s->component : ""));
	json_object_object_add(ev, "reportingInstance",
	                       json_object_new_string(s->host ? s->host : ""));
	*out = ev;
	return 0;
}

int nl_event_create(json_object **out, nl_client *c, json_object *event, nl_result *res)
{
	char path[NL__PATH_MAX];
	int rc = nl__path(path, &nl_resource_events, nl__obj_namespace(event, c), NULL, NULL, res);
	return rc ? rc : nl_api_create(out, c, path, event, NULL, res);
}

int nl_event_record(json_object **out, nl_client *c, const nl_event_spec *s, nl_result *res)
{
	json_object *ev;
	int rc = nl_event_new(&ev, s, nl_clock_now(nl_client_clock(c)));
	if (rc != 0) {
		nl__result_reset(res);
		return nl__result_fail(res, rc, "cannot build the event");
	}
	rc = nl_event_create(out, c, ev, res);
	json_object_put(ev);
	return rc;
}

int nl_event_list(json_object **out, nl_client *c, const char *ns, const nl_list_options *o,
                  nl_result *res)
{
	char path[NL__PATH_MAX];
	int rc =
	    nl__path(path, &nl_resource_events, ns ? ns : nl_client_namespace(c), NULL, NULL, res);
	return rc ? rc : nl_api_list(out, c, path, o, res);
}
