/* Decoding a NodeletConfiguration document (YAML or JSON), the way kubelet
 * decodes KubeletConfiguration: sigs.k8s.io/yaml, then encoding/json into
 * the typed struct with defaults for what is absent. Type errors keep Go's
 * wording; unknown fields are warned about and ignored (kubelet's lenient
 * fallback after a strict decoding failure). */
#include <nodelet/clock.h>
#include <nodelet/doc.h>
#include <nodelet/log.h>
#include <nodelet/meta.h>
#include <nodelet/nodelet_config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STRUCT_NAME "NodeletConfiguration"
#define MAX_CONFIG_FILE (1024u * 1024u)

static int type_error(nl_err *err, json_object *v, const char *field, const char *go_type)
{
	return nl_err_set(err, NL_EPARSE,
	                  "json: cannot unmarshal %s into Go struct field " STRUCT_NAME
	                  ".%s of type %s",
	                  nl_json_go_kind(v), field, go_type);
}

static int decode_int32(int32_t *out, json_object *v, const char *field, nl_err *err)
{
	if (json_object_is_type(v, json_type_int)) {
		int64_t x = json_object_get_int64(v);
		if (x >= INT32_MIN && x <= INT32_MAX) {
			*out = (int32_t)x;
			return 0;
		}
	} else if (json_object_is_type(v, json_type_double)) {
		double d = json_object_get_double(v);
		/* sigs.k8s.io/yaml turns 40.0 into 40, which decodes. */
		if (d >= INT32_MIN && d <= INT32_MAX && d == (double)(int32_t)d) {
			*out = (int32_t)d;
			return 0;
		}
	} else {
		return type_error(err, v, field, "int32");
	}
	return nl_err_set(err, NL_EPARSE,
	                  "json: cannot unmarshal number %s into Go struct field " STRUCT_NAME
	                  ".%s of type int32",
	                  json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN), field);
}

static int decode_lease_duration(nl_nodelet_config *c, json_object *v, nl_err *err)
{
	return decode_int32(&c->lease_duration_seconds, v, "leaseDurationSeconds", err);
}

static int decode_log_verbosity(nl_nodelet_config *c, json_object *v, nl_err *err)
{
	return decode_int32(&c->log_verbosity, v, "logVerbosity", err);
}

static int decode_register_node(nl_nodelet_config *c, json_object *v, nl_err *err)
{
	if (!json_object_is_type(v, json_type_boolean))
		return type_error(err, v, "registerNode", "bool");
	c->register_node = json_object_get_boolean(v);
	return 0;
}

/* metav1.Duration: a string for time.ParseDuration. */
static int decode_duration(int64_t *out, json_object *v, const char *field, nl_err *err)
{
	if (!json_object_is_type(v, json_type_string))
		return type_error(err, v, field, "string");
	const char *s = json_object_get_string(v);
	if (nl_duration_parse(out, s) != 0)
		return nl_err_set(err, NL_EPARSE, "time: invalid duration \"%s\"", s);
	return 0;
}

static int decode_report_frequency(nl_nodelet_config *c, json_object *v, nl_err *err)
{
	return decode_duration(&c->node_status_report_frequency_usec, v,
	                       "nodeStatusReportFrequency", err);
}

static int decode_update_frequency(nl_nodelet_config *c, json_object *v, nl_err *err)
{
	return decode_duration(&c->node_status_update_frequency_usec, v,
	                       "nodeStatusUpdateFrequency", err);
}

/* A map[string]string field into (key, value) pairs in document order;
 * the pairs replace what *list held. */
static int decode_string_map(nl_label **list, size_t *count, json_object *v, const char *field,
                             nl_err *err)
{
	if (!json_object_is_type(v, json_type_object))
		return type_error(err, v, field, "map[string]string");
	size_t n = (size_t)json_object_object_length(v), i = 0;
	nl_label *labels = n ? calloc(n, sizeof(*labels)) : NULL;
	int rc = n && !labels ? NL_ENOMEM : 0;
	json_object_object_foreach(v, key, val)
	{
		if (rc != 0)
			break;
		if (!json_object_is_type(val, json_type_string)) {
			rc = type_error(err, val, field, "string");
			break;
		}
		labels[i].key = strdup(key);
		labels[i].value = strdup(json_object_get_string(val));
		rc = labels[i].key && labels[i].value ? 0 : NL_ENOMEM;
		i++;
	}
	if (rc != 0) {
		for (size_t j = 0; labels && j < n; j++) {
			free(labels[j].key);
			free(labels[j].value);
		}
		free(labels);
		return rc == NL_ENOMEM ? nl_err_set(err, rc, "out of memory") : rc;
	}
	for (size_t j = 0; j < *count; j++) {
		free((*list)[j].key);
		free((*list)[j].value);
	}
	free(*list);
	*list = labels;
	*count = n;
	return 0;
}

static int decode_labels(nl_nodelet_config *c, json_object *v, nl_err *err)
{
	return decode_string_map(&c->node_labels, &c->n_node_labels, v, "nodeLabels", err);
}

/* Replaces the defaults whole: kubelet defaults evictionHard only when the
 * map is absent, so {} means no thresholds. */
static int decode_eviction_hard(nl_nodelet_config *c, json_object *v, nl_err *err)
{
	return decode_string_map(&c->eviction_hard, &c->n_eviction_hard, v, "evictionHard", err);
}

static int decode_transition_period(nl_nodelet_config *c, json_object *v, nl_err *err)
{
	return decode_duration(&c->eviction_pressure_transition_period_usec, v,
	                       "evictionPressureTransitionPeriod", err);
}

static int decode_shutdown_grace(nl_nodelet_config *c, json_object *v, nl_err *err)
{
	return decode_duration(&c->shutdown_grace_period_usec, v, "shutdownGracePeriod", err);
}

static int decode_shutdown_grace_critical(nl_nodelet_config *c, json_object *v, nl_err *err)
{
	return decode_duration(&c->shutdown_grace_period_critical_pods_usec, v,
	                       "shutdownGracePeriodCriticalPods", err);
}

static int taint_string(char **out, json_object *t, const char *key, nl_err *err)
{
	char field[64];
	json_object *v = json_object_object_get(t, key);
	if (v && !json_object_is_type(v, json_type_string)) {
		snprintf(field, sizeof(field), "registerWithTaints.%s", key);
		return type_error(err, v, field, "string");
	}
	*out = strdup(v ? json_object_get_string(v) : "");
	return *out ? 0 : nl_err_set(err, NL_ENOMEM, "out of memory");
}

static int decode_taints(nl_nodelet_config *c, json_object *v, nl_err *err)
{
	if (!json_object_is_type(v, json_type_array))
		return type_error(err, v, "registerWithTaints", "[]v1.Taint");
	size_t n = json_object_array_length(v);
	nl_taint *taints = n ? calloc(n, sizeof(*taints)) : NULL;
	int rc = n && !taints ? nl_err_set(err, NL_ENOMEM, "out of memory") : 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		json_object *t = json_object_array_get_idx(v, i);
		if (!json_object_is_type(t, json_type_object)) {
			rc = type_error(err, t, "registerWithTaints", "v1.Taint");
			break;
		}
		rc = taint_string(&taints[i].key, t, "key", err);
		if (rc == 0)
			rc = taint_string(&taints[i].value, t, "value", err);
		if (rc == 0)
			rc = taint_string(&taints[i].effect, t, "effect", err);
	}
	if (rc != 0) {
		for (size_t j = 0; taints && j < n; j++) {
			free(taints[j].key);
			free(taints[j].value);
			free(taints[j].effect);
		}
		free(taints);
		return rc;
	}
	c->register_with_taints = taints;
	c->n_register_with_taints = n;
	return 0;
}

/* Not left to validation: the field is an enum once decoded. */
static int decode_content_type(nl_nodelet_config *c, json_object *v, nl_err *err)
{
	if (!json_object_is_type(v, json_type_string))
		return type_error(err, v, "contentType", "string");
	if (nl_content_type_parse(&c->content_type, json_object_get_string(v)) != 0)
		return nl_err_set(err, NL_EPARSE,
		                  "contentType: Unsupported value: \"%s\": supported values: "
		                  "\"%s\", \"%s\"",
		                  json_object_get_string(v),
		                  nl_content_type_name(NL_CONTENT_PROTOBUF), NL_CONTENT_TYPE_JSON);
	return 0;
}

static const struct {
	const char *name;
	unsigned bit;
	int (*decode)(nl_nodelet_config *c, json_object *v, nl_err *err);
} fields[] = {
    {"leaseDurationSeconds", NL_NC_LEASE_DURATION_SECONDS, decode_lease_duration},
    {"nodeStatusReportFrequency", NL_NC_NODE_STATUS_REPORT_FREQUENCY, decode_report_frequency},
    {"nodeStatusUpdateFrequency", NL_NC_NODE_STATUS_UPDATE_FREQUENCY, decode_update_frequency},
    {"nodeLabels", NL_NC_NODE_LABELS, decode_labels},
    {"registerWithTaints", NL_NC_REGISTER_WITH_TAINTS, decode_taints},
    {"logVerbosity", NL_NC_LOG_VERBOSITY, decode_log_verbosity},
    {"registerNode", NL_NC_REGISTER_NODE, decode_register_node},
    {"contentType", NL_NC_CONTENT_TYPE, decode_content_type},
    {"evictionHard", NL_NC_EVICTION_HARD, decode_eviction_hard},
    {"evictionPressureTransitionPeriod", NL_NC_EVICTION_PRESSURE_TRANSITION_PERIOD,
     decode_transition_period},
    {"shutdownGracePeriod", NL_NC_SHUTDOWN_GRACE_PERIOD, decode_shutdown_grace},
    {"shutdownGracePeriodCriticalPods", NL_NC_SHUTDOWN_GRACE_PERIOD_CRITICAL_PODS,
     decode_shutdown_grace_critical},
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

/* apiVersion and kind must name this type (the scheme's check). */
static int check_type_meta(json_object *doc, nl_err *err)
{
	static const struct {
		const char *key, *want;
	} meta[] = {{"apiVersion", NL_NODELET_CONFIG_API_VERSION},
	            {"kind", NL_NODELET_CONFIG_KIND}};
	for (size_t i = 0; i < 2; i++) {
		json_object *v = json_object_object_get(doc, meta[i].key);
		if (!v || json_object_is_type(v, json_type_null))
			return nl_err_set(err, NL_EPARSE, "%s: Required value", meta[i].key);
		if (!json_object_is_type(v, json_type_string))
			return type_error(err, v, meta[i].key, "string");
		if (strcmp(json_object_get_string(v), meta[i].want) != 0)
			return nl_err_set(err, NL_EPARSE,
			                  "%s: Unsupported value: \"%s\": supported values: \"%s\"",
			                  meta[i].key, json_object_get_string(v), meta[i].want);
	}
	return 0;
}

static int known_key(const char *key)
{
	if (strcmp(key, "apiVersion") == 0 || strcmp(key, "kind") == 0)
		return 1;
	for (size_t i = 0; i < NFIELDS; i++)
		if (strcmp(key, fields[i].name) == 0)
			return 1;
	return 0;
}

static int decode_document(nl_nodelet_config *c, json_object *doc, const char *name, nl_err *err)
{
	if (!json_object_is_type(doc, json_type_object))
		return nl_err_set(err, NL_EPARSE,
		                  "json: cannot unmarshal %s into Go value of type " STRUCT_NAME,
		                  nl_json_go_kind(doc));
	int rc = check_type_meta(doc, err);
	for (size_t i = 0; i < NFIELDS && rc == 0; i++) {
		json_object *v = json_object_object_get(doc, fields[i].name);
		/* null leaves the default, as encoding/json does. */
		if (!v || json_object_is_type(v, json_type_null))
			continue;
		rc = fields[i].decode(c, v, err);
		if (rc == 0)
			c->set |= fields[i].bit;
	}
	if (rc != 0)
		return rc;
	/* kubelet's defaulting, for configurations written before the report
	 * frequency existed: an explicit update frequency is the report one. */
	if ((c->set & NL_NC_NODE_STATUS_UPDATE_FREQUENCY) &&
	    !(c->set & NL_NC_NODE_STATUS_REPORT_FREQUENCY))
		c->node_status_report_frequency_usec = c->node_status_update_frequency_usec;
	json_object_object_foreach(doc, key, val)
	{
		(void)val;
		if (!known_key(key))
			NL_LOG_WARN("Strict decoding error: unknown field, ignored",
			            NL_KV_STR("path", name), NL_KV_STR("field", key));
	}
	return 0;
}

int nl_nodelet_config_parse(nl_nodelet_config **out, const char *buf, size_t len, const char *name,
                            nl_err *err)
{
	json_object *doc = NULL;
	nl_nodelet_config *c = NULL;
	nl_err why = {0};
	name = name ? name : "<input>";
	int rc = nl_doc_parse_one(&doc, buf, len, name, &why);
	if (rc != 0)
		return nl_err_set(err, rc, "%s", why.msg);
	rc = nl_nodelet_config_new(&c);
	if (rc == 0)
		rc = decode_document(c, doc, name, &why);
	json_object_put(doc);
	if (rc != 0) {
		nl_nodelet_config_free(c);
		return nl_err_set(err, rc, "%s: %s", name,
		                  rc == NL_ENOMEM && !why.msg[0] ? "out of memory" : why.msg);
	}
	*out = c;
	return 0;
}

int nl_nodelet_config_load_file(nl_nodelet_config **out, const char *path, nl_err *err)
{
	char *data = NULL;
	size_t len = 0;
	int rc = nl_file_read(&data, &len, path, MAX_CONFIG_FILE, err);
	if (rc != 0)
		return rc;
	rc = nl_nodelet_config_parse(out, data, len, path, err);
	free(data);
	return rc;
}

/* --- encoding ------------------------------------------------------------------ */

static int add(json_object *o, const char *key, json_object *v)
{
	if (!v || json_object_object_add(o, key, v) != 0) {
		json_object_put(v);
		return NL_ENOMEM;
	}
	return 0;
}

static json_object *map_json(const nl_label *l, size_t n)
{
	json_object *o = json_object_new_object();
	for (size_t i = 0; o && i < n; i++)
		if (add(o, l[i].key, json_object_new_string(l[i].value)) != 0) {
			json_object_put(o);
			return NULL;
		}
	return o;
}

static json_object *taints_json(const nl_nodelet_config *c)
{
	json_object *a = json_object_new_array();
	for (size_t i = 0; a && i < c->n_register_with_taints; i++) {
		const nl_taint *t = &c->register_with_taints[i];
		json_object *o = json_object_new_object();
		if (!o || json_object_array_add(a, o) != 0 ||
		    add(o, "key", json_object_new_string(t->key)) != 0 ||
		    (*t->value && add(o, "value", json_object_new_string(t->value)) != 0) ||
		    add(o, "effect", json_object_new_string(t->effect)) != 0) {
			if (o && json_object_array_length(a) <= i)
				json_object_put(o);
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

json_object *nl_nodelet_config_to_json(const nl_nodelet_config *c)
{
	char freq[NL_DURATION_BUFSZ], upd[NL_DURATION_BUFSZ], period[NL_DURATION_BUFSZ];
	char grace[NL_DURATION_BUFSZ], critical[NL_DURATION_BUFSZ];
	json_object *o = json_object_new_object();
	nl_duration_format(grace, c->shutdown_grace_period_usec);
	nl_duration_format(critical, c->shutdown_grace_period_critical_pods_usec);
	nl_duration_format(freq, c->node_status_report_frequency_usec);
	nl_duration_format(upd, c->node_status_update_frequency_usec);
	nl_duration_format(period, c->eviction_pressure_transition_period_usec);
	if (!o ||
	    add(o, "apiVersion", json_object_new_string(NL_NODELET_CONFIG_API_VERSION)) != 0 ||
	    add(o, "kind", json_object_new_string(NL_NODELET_CONFIG_KIND)) != 0 ||
	    add(o, "leaseDurationSeconds", json_object_new_int(c->lease_duration_seconds)) != 0 ||
	    add(o, "nodeStatusReportFrequency", json_object_new_string(freq)) != 0 ||
	    add(o, "nodeStatusUpdateFrequency", json_object_new_string(upd)) != 0 ||
	    add(o, "nodeLabels", map_json(c->node_labels, c->n_node_labels)) != 0 ||
	    add(o, "registerWithTaints", taints_json(c)) != 0 ||
	    add(o, "logVerbosity", json_object_new_int(c->log_verbosity)) != 0 ||
	    add(o, "registerNode", json_object_new_boolean(c->register_node)) != 0 ||
	    add(o, "contentType",
	        json_object_new_string(nl_content_type_name(c->content_type)
	                                   ? nl_content_type_name(c->content_type)
	                                   : "")) != 0 ||
	    add(o, "evictionHard", map_json(c->eviction_hard, c->n_eviction_hard)) != 0 ||
	    add(o, "evictionPressureTransitionPeriod", json_object_new_string(period)) != 0 ||
	    add(o, "shutdownGracePeriod", json_object_new_string(grace)) != 0 ||
	    add(o, "shutdownGracePeriodCriticalPods", json_object_new_string(critical)) != 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}
