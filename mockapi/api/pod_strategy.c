/* The Pod kind's strategy (resources.h hooks): the v1 defaults clients see
 * (pkg/apis/core/v1/defaults.go SetDefaults_PodSpec, _Container,
 * _ContainerPort, _Pod), PrepareForCreate's status (Pending, the QoS
 * class, qos.GetPodQOS), the DefaultTolerationSeconds admission plugin
 * run at create, and CheckGracefulDelete. */
#include "pod_strategy.h"

#include "schema.h"

#include <nodelet/meta.h>
#include <nodelet/schema.h>

#include <string.h>

/* DefaultTolerationSeconds' --default-not-ready-toleration-seconds and
 * --default-unreachable-toleration-seconds. */
#define DEFAULT_TOLERATION_SECONDS 300

static json_object *child(json_object *obj, const char *key)
{
	json_object *v = NULL;
	if (!json_object_is_type(obj, json_type_object) || !json_object_object_get_ex(obj, key, &v))
		return NULL;
	return v;
}

static const char *child_str(json_object *obj, const char *key)
{
	json_object *v = child(obj, key);
	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static size_t arr_len(json_object *a)
{
	return json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

static const nl_schema *sub_schema(const nl_schema *s, const char *name)
{
	for (size_t i = 0; s && i < s->nfields; i++)
		if (strcmp(s->fields[i].name, name) == 0)
			return s->fields[i].sub;
	return NULL;
}

/* Set obj[key] when it is missing (or not of the wanted JSON type); 1 when
 * it was set, so the caller re-sorts. Takes v. */
static int set_default(json_object *obj, const char *key, json_object *v, json_type want)
{
	if (json_object_is_type(child(obj, key), want)) {
		json_object_put(v);
		return 0;
	}
	return json_object_object_add(obj, key, v) == 0;
}

static int set_default_str(json_object *obj, const char *key, const char *value)
{
	const char *cur = child_str(obj, key);
	if (cur && *cur)
		return 0;
	return json_object_object_add(obj, key, json_object_new_string(value)) == 0;
}

/* SetDefaults_Container's image pull policy: Always for ":latest" or no
 * tag at all (a digest counts as a tag), IfNotPresent otherwise
 * (parsers.ParseImageName reads the tag after the last ':' of the last
 * path component). */
static const char *pull_policy(const char *image)
{
	const char *slash = strrchr(image, '/');
	const char *last = slash ? slash + 1 : image;
	const char *colon = strrchr(last, ':');
	if (strchr(image, '@'))
		return "IfNotPresent";
	if (!colon || strcmp(colon + 1, "latest") == 0)
		return "Always";
	return "IfNotPresent";
}

static void container_defaults(json_object *c, const nl_schema *cs)
{
	int changed = 0;
	const char *image = child_str(c, "image");
	json_object *ports = child(c, "ports");
	if (!json_object_is_type(c, json_type_object))
		return;
	if (image && *image)
		changed |= set_default_str(c, "imagePullPolicy", pull_policy(image));
	changed |= set_default_str(c, "terminationMessagePath", "/dev/termination-log");
	changed |= set_default_str(c, "terminationMessagePolicy", "File");
	for (size_t i = 0; i < arr_len(ports); i++) {
		json_object *p = json_object_array_get_idx(ports, i);
		if (set_default_str(p, "protocol", "TCP"))
			mock_schema_sort_object(p, sub_schema(cs, "ports"));
	}
	if (changed)
		mock_schema_sort_object(c, cs);
}

/* SetDefaults_Pod: a container's limits fill its missing requests. */
static void requests_from_limits(json_object *c, const nl_schema *cs)
{
	json_object *res = child(c, "resources"), *limits = child(res, "limits");
	json_object *requests = child(res, "requests");
	int added = 0;
	if (!json_object_is_type(limits, json_type_object))
		return;
	if (!json_object_is_type(requests, json_type_object)) {
		requests = json_object_new_object();
		if (!requests || json_object_object_add(res, "requests", requests) != 0) {
			json_object_put(requests);
			return;
		}
		added = 1;
	}
	json_object_object_foreach(limits, k, v)
	{
		if (!child(requests, k))
			json_object_object_add(requests, k, json_object_get(v));
	}
	mock_json_sort_keys(requests);
	if (added)
		mock_schema_sort_object(res, sub_schema(cs, "resources"));
}

void mock_pod_defaults(json_object *obj)
{
	const nl_schema *ss = sub_schema(&nl_schema_pod, "spec");
	const nl_schema *cs = sub_schema(ss, "containers");
	json_object *spec = child(obj, "spec");
	static const char *const lists[] = {"initContainers", "containers"};
	int changed = 0;
	if (!json_object_is_type(spec, json_type_object))
		return;
	changed |= set_default_str(spec, "dnsPolicy", "ClusterFirst");
	changed |= set_default_str(spec, "restartPolicy", "Always");
	changed |= set_default(spec, "securityContext", json_object_new_object(), json_type_object);
	changed |= set_default(spec, "terminationGracePeriodSeconds", json_object_new_int64(30),
	                       json_type_int);
	changed |= set_default_str(spec, "schedulerName", "default-scheduler");
	changed |=
	    set_default(spec, "enableServiceLinks", json_object_new_boolean(1), json_type_boolean);
	if (changed)
		mock_schema_sort_object(spec, ss);
	for (size_t l = 0; l < 2; l++) {
		json_object *cl = child(spec, lists[l]);
		for (size_t i = 0; i < arr_len(cl); i++) {
			json_object *c = json_object_array_get_idx(cl, i);
			container_defaults(c, cs);
			requests_from_limits(c, cs);
		}
	}
}

/* ------------------------------------------------------------ QoS class */

static int quantity_zero(json_object *q)
{
	const char *s = json_object_get_string(q);
	if (!s)
		return 1;
	for (; *s; s++) {
		if (*s >= '1' && *s <= '9')
			return 0;
		if (*s != '0' && *s != '.' && *s != '+' && *s != '-')
			break;
	}
	return 1;
}

/* qos.GetPodQOS over cpu and memory of every container (init included):
 * BestEffort without any non-zero request or limit; Guaranteed when every
 * container limits both and requests equal the limits; Burstable else.
 * Quantities are compared as written. */
static const char *pod_qos(json_object *spec)
{
	static const char *const lists[] = {"initContainers", "containers"};
	static const char *const names[] = {"cpu", "memory"};
	int any = 0, guaranteed = 1;
	for (size_t l = 0; l < 2; l++) {
		json_object *cl = child(spec, lists[l]);
		for (size_t i = 0; i < arr_len(cl); i++) {
			json_object *res = child(json_object_array_get_idx(cl, i), "resources");
			json_object *req = child(res, "requests"), *lim = child(res, "limits");
			for (size_t n = 0; n < 2; n++) {
				json_object *r = child(req, names[n]), *m = child(lim, names[n]);
				any |= (r && !quantity_zero(r)) || (m && !quantity_zero(m));
				if (!m || quantity_zero(m) ||
				    (r && strcmp(json_object_get_string(r),
				                 json_object_get_string(m)) != 0))
					guaranteed = 0;
			}
		}
	}
	if (!any)
		return "BestEffort";
	return guaranteed ? "Guaranteed" : "Burstable";
}

/* ------------------------------------------------ DefaultTolerationSeconds */

static int tolerates_key(json_object *tols, const char *key)
{
	for (size_t i = 0; i < arr_len(tols); i++) {
		json_object *t = json_object_array_get_idx(tols, i);
		const char *k = child_str(t, "key"), *effect = child_str(t, "effect");
		/* as the plugin reads it: the key or an empty one, NoExecute or
		 * an empty effect (the operator is not looked at) */
		int key_ok = !k || !*k || strcmp(k, key) == 0;
		int effect_ok = !effect || !*effect || strcmp(effect, "NoExecute") == 0;
		if (key_ok && effect_ok)
			return 1;
	}
	return 0;
}

static void add_default_tolerations(json_object *spec)
{
	static const char *const keys[] = {"node.kubernetes.io/not-ready",
	                                   "node.kubernetes.io/unreachable"};
	json_object *tols = child(spec, "tolerations");
	int created = 0;
	for (size_t i = 0; i < 2; i++) {
		json_object *t;
		if (tolerates_key(tols, keys[i]))
			continue;
		if (!json_object_is_type(tols, json_type_array)) {
			tols = json_object_new_array();
			if (!tols || json_object_object_add(spec, "tolerations", tols) != 0) {
				json_object_put(tols);
				return;
			}
			created = 1;
		}
		t = json_object_new_object();
		if (!t)
			return;
		json_object_object_add(t, "key", json_object_new_string(keys[i]));
		json_object_object_add(t, "operator", json_object_new_string("Exists"));
		json_object_object_add(t, "effect", json_object_new_string("NoExecute"));
		json_object_object_add(t, "tolerationSeconds",
		                       json_object_new_int64(DEFAULT_TOLERATION_SECONDS));
		json_object_array_add(tols, t);
	}
	if (created)
		mock_schema_sort_object(spec, sub_schema(&nl_schema_pod, "spec"));
}

void mock_pod_prepare_create(json_object *obj)
{
	json_object *spec = child(obj, "spec"), *status = json_object_new_object();
	if (!status)
		return;
	json_object_object_add(status, "phase", json_object_new_string("Pending"));
	json_object_object_add(status, "qosClass", json_object_new_string(pod_qos(spec)));
	json_object_object_add(obj, "status", status);
	if (json_object_is_type(spec, json_type_object))
		add_default_tolerations(spec);
}

/* ------------------------------------------------------------ conditions */

void mock_pod_set_condition(json_object *pod, const char *type, const char *reason,
                            const char *message, const char *now)
{
	json_object *status = child(pod, "status"), *conds = child(status, "conditions");
	json_object *c = NULL;
	if (!json_object_is_type(status, json_type_object))
		return;
	if (!json_object_is_type(conds, json_type_array)) {
		conds = json_object_new_array();
		if (!conds || json_object_object_add(status, "conditions", conds) != 0) {
			json_object_put(conds);
			return;
		}
	}
	for (size_t i = 0; i < json_object_array_length(conds) && !c; i++) {
		json_object *x = json_object_array_get_idx(conds, i);
		const char *t = nl_json_get_string(x, "type");
		if (t && strcmp(t, type) == 0)
			c = x;
	}
	if (!c) {
		c = json_object_new_object();
		if (!c || json_object_array_add(conds, c) != 0) {
			json_object_put(c);
			return;
		}
		json_object_object_add(c, "type", json_object_new_string(type));
	}
	const char *was = nl_json_get_string(c, "status");
	if (!was || strcmp(was, "True") != 0 || !child(c, "lastTransitionTime"))
		json_object_object_add(c, "lastTransitionTime", json_object_new_string(now));
	json_object_object_add(c, "status", json_object_new_string("True"));
	json_object_object_add(c, "lastProbeTime", NULL);
	json_object_object_add(c, "reason", json_object_new_string(reason));
	json_object_object_add(c, "message", json_object_new_string(message));
	/* PodCondition's field order: type, status, lastProbeTime, lastTransitionTime, ... */
	static const char *const order[] = {
	    "type", "status", "lastProbeTime", "lastTransitionTime", "reason", "message"};
	for (size_t i = 0; i < 6; i++) {
		json_object *v = json_object_get(child(c, order[i]));
		json_object_object_del(c, order[i]);
		json_object_object_add(c, order[i], v);
	}
}

/* ------------------------------------------------------- graceful delete */

int64_t mock_pod_grace_period(json_object *pod, const int64_t *requested)
{
	int64_t period = 0;
	const char *node = nl_json_get_string(pod, "spec.nodeName");
	const char *phase = nl_json_get_string(pod, "status.phase");
	json_object *tgps = nl_json_get_path(pod, "spec.terminationGracePeriodSeconds");
	if (requested)
		period = *requested;
	else if (json_object_is_type(tgps, json_type_int))
		period = json_object_get_int64(tgps);
	if (!node || !*node)
		period = 0; /* never scheduled: nothing runs it */
	if (phase && (strcmp(phase, "Failed") == 0 || strcmp(phase, "Succeeded") == 0))
		period = 0; /* already terminated */
	return period < 0 ? 1 : period;
}
