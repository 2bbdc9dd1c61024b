/* NodeletConfiguration values: defaults, copies, comparison, the flag
 * transform and the list-valued flags' syntax. */
#include <nodelet/eviction.h>
#include <nodelet/nodelet_config.h>

#include <stdlib.h>
#include <string.h>

static void set_defaults(nl_nodelet_config *c)
{
	*c = (nl_nodelet_config){
	    .lease_duration_seconds = NL_NODELET_CONFIG_DEFAULT_LEASE_DURATION_SECONDS,
	    .node_status_report_frequency_usec =
	        NL_NODELET_CONFIG_DEFAULT_STATUS_REPORT_FREQUENCY_USEC,
	    .node_status_update_frequency_usec =
	        NL_NODELET_CONFIG_DEFAULT_STATUS_UPDATE_FREQUENCY_USEC,
	    .log_verbosity = 0,
	    .register_node = 1,
	    .content_type = NL_CONTENT_PROTOBUF,
	    .eviction_pressure_transition_period_usec =
	        NL_EVICTION_DEFAULT_PRESSURE_TRANSITION_PERIOD_USEC,
	};
}

static void free_labels(nl_label *l, size_t n);

/* kubelet's DefaultEvictionHard as the map a document would give. */
static int default_eviction_hard(nl_nodelet_config *c)
{
	static const struct {
		const char *signal, *value;
	} defaults[NL_EVICTION_HARD_N_DEFAULTS] = NL_EVICTION_HARD_DEFAULTS;
	nl_label *l = calloc(NL_EVICTION_HARD_N_DEFAULTS, sizeof(*l));
	if (!l)
		return NL_ENOMEM;
	for (size_t i = 0; i < NL_EVICTION_HARD_N_DEFAULTS; i++) {
		l[i].key = strdup(defaults[i].signal);
		l[i].value = strdup(defaults[i].value);
		if (!l[i].key || !l[i].value) {
			free_labels(l, NL_EVICTION_HARD_N_DEFAULTS);
			return NL_ENOMEM;
		}
	}
	c->eviction_hard = l;
	c->n_eviction_hard = NL_EVICTION_HARD_N_DEFAULTS;
	return 0;
}

int nl_nodelet_config_new(nl_nodelet_config **out)
{
	nl_nodelet_config *c = malloc(sizeof(*c));
	if (!c)
		return NL_ENOMEM;
	set_defaults(c);
	if (default_eviction_hard(c) != 0) {
		free(c);
		return NL_ENOMEM;
	}
	*out = c;
	return 0;
}

static void free_labels(nl_label *l, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(l[i].key);
		free(l[i].value);
	}
	free(l);
}

static void free_taints(nl_taint *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(t[i].key);
		free(t[i].value);
		free(t[i].effect);
	}
	free(t);
}

void nl_nodelet_config_free(nl_nodelet_config *c)
{
	if (!c)
		return;
	free_labels(c->node_labels, c->n_node_labels);
	free_taints(c->register_with_taints, c->n_register_with_taints);
	free_labels(c->eviction_hard, c->n_eviction_hard);
	free(c);
}

static int copy_labels(nl_label **out, const nl_label *l, size_t n)
{
	nl_label *copy = n ? calloc(n, sizeof(*copy)) : NULL;
	if (n && !copy)
		return NL_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		copy[i].key = strdup(l[i].key);
		copy[i].value = strdup(l[i].value);
		if (!copy[i].key || !copy[i].value) {
			free_labels(copy, i + 1);
			return NL_ENOMEM;
		}
	}
	*out = copy;
	return 0;
}

static int copy_taints(nl_taint **out, const nl_taint *t, size_t n)
{
	nl_taint *copy = n ? calloc(n, sizeof(*copy)) : NULL;
	if (n && !copy)
		return NL_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		copy[i].key = strdup(t[i].key);
		copy[i].value = strdup(t[i].value);
		copy[i].effect = strdup(t[i].effect);
		if (!copy[i].key || !copy[i].value || !copy[i].effect) {
			free_taints(copy, i + 1);
			return NL_ENOMEM;
		}
	}
	*out = copy;
	return 0;
}

int nl_nodelet_config_copy(nl_nodelet_config **out, const nl_nodelet_config *c)
{
	nl_nodelet_config *copy = malloc(sizeof(*copy));
	if (!copy)
		return NL_ENOMEM;
	*copy = *c;
	copy->node_labels = NULL;
	copy->register_with_taints = NULL;
	copy->eviction_hard = NULL;
	if (copy_labels(&copy->node_labels, c->node_labels, c->n_node_labels) != 0) {
		free(copy);
		return NL_ENOMEM;
	}
	if (copy_taints(&copy->register_with_taints, c->register_with_taints,
	                c->n_register_with_taints) != 0 ||
	    copy_labels(&copy->eviction_hard, c->eviction_hard, c->n_eviction_hard) != 0) {
		free_labels(copy->node_labels, copy->n_node_labels);
		free_taints(copy->register_with_taints, copy->n_register_with_taints);
		free(copy);
		return NL_ENOMEM;
	}
	*out = copy;
	return 0;
}

int nl_nodelet_config_equal(const nl_nodelet_config *a, const nl_nodelet_config *b)
{
	if (a->lease_duration_seconds != b->lease_duration_seconds ||
	    a->node_status_report_frequency_usec != b->node_status_report_frequency_usec ||
	    a->node_status_update_frequency_usec != b->node_status_update_frequency_usec ||
	    a->log_verbosity != b->log_verbosity || !a->register_node != !b->register_node ||
	    a->content_type != b->content_type || a->n_node_labels != b->n_node_labels ||
	    a->n_register_with_taints != b->n_register_with_taints ||
	    a->eviction_pressure_transition_period_usec !=
	        b->eviction_pressure_transition_period_usec ||
	    a->n_eviction_hard != b->n_eviction_hard ||
	    a->shutdown_grace_period_usec != b->shutdown_grace_period_usec ||
	    a->shutdown_grace_period_critical_pods_usec !=
	        b->shutdown_grace_period_critical_pods_usec)
		return 0;
	for (size_t i = 0; i < a->n_eviction_hard; i++)
		if (strcmp(a->eviction_hard[i].key, b->eviction_hard[i].key) != 0 ||
		    strcmp(a->eviction_hard[i].value, b->eviction_hard[i].value) != 0)
			return 0;
	for (size_t i = 0; i < a->n_node_labels; i++)
		if (strcmp(a->node_labels[i].key, b->node_labels[i].key) != 0 ||
		    strcmp(a->node_labels[i].value, b->node_labels[i].value) != 0)
			return 0;
	for (size_t i = 0; i < a->n_register_with_taints; i++) {
		const nl_taint *x = &a->register_with_taints[i], *y = &b->register_with_taints[i];
		if (strcmp(x->key, y->key) != 0 || strcmp(x->value, y->value) != 0 ||
		    strcmp(x->effect, y->effect) != 0)
			return 0;
	}
	return 1;
}

int nl_nodelet_config_apply_flags(nl_nodelet_config *dst, const nl_nodelet_config *flags)
{
	nl_label *labels = NULL, *eviction = NULL;
	nl_taint *taints = NULL;
	/* Copy the lists first so a failure leaves dst untouched. */
	if ((flags->set & NL_NC_NODE_LABELS) &&
	    copy_labels(&labels, flags->node_labels, flags->n_node_labels) != 0)
		return NL_ENOMEM;
	if (((flags->set & NL_NC_REGISTER_WITH_TAINTS) &&
	     copy_taints(&taints, flags->register_with_taints, flags->n_register_with_taints) !=
	         0) ||
	    ((flags->set & NL_NC_EVICTION_HARD) &&
	     copy_labels(&eviction, flags->eviction_hard, flags->n_eviction_hard) != 0)) {
		free_labels(labels, flags->n_node_labels);
		free_taints(taints, taints ? flags->n_register_with_taints : 0);
		return NL_ENOMEM;
	}
	if (flags->set & NL_NC_LEASE_DURATION_SECONDS)
		dst->lease_duration_seconds = flags->lease_duration_seconds;
	if (flags->set & NL_NC_NODE_STATUS_REPORT_FREQUENCY)
		dst->node_status_report_frequency_usec = flags->node_status_report_frequency_usec;
	if (flags->set & NL_NC_NODE_STATUS_UPDATE_FREQUENCY)
		dst->node_status_update_frequency_usec = flags->node_status_update_frequency_usec;
	if (flags->set & NL_NC_LOG_VERBOSITY)
		dst->log_verbosity = flags->log_verbosity;
	if (flags->set & NL_NC_REGISTER_NODE)
		dst->register_node = flags->register_node;
	if (flags->set & NL_NC_CONTENT_TYPE)
		dst->content_type = flags->content_type;
	if (flags->set & NL_NC_EVICTION_PRESSURE_TRANSITION_PERIOD)
		dst->eviction_pressure_transition_period_usec =
		    flags->eviction_pressure_transition_period_usec;
	if (flags->set & NL_NC_SHUTDOWN_GRACE_PERIOD)
		dst->shutdown_grace_period_usec = flags->shutdown_grace_period_usec;
	if (flags->set & NL_NC_SHUTDOWN_GRACE_PERIOD_CRITICAL_PODS)
		dst->shutdown_grace_period_critical_pods_usec =
		    flags->shutdown_grace_period_critical_pods_usec;
	if (flags->set & NL_NC_EVICTION_HARD) {
		free_labels(dst->eviction_hard, dst->n_eviction_hard);
		dst->eviction_hard = eviction;
		dst->n_eviction_hard = flags->n_eviction_hard;
	}
	if (flags->set & NL_NC_NODE_LABELS) {
		free_labels(dst->node_labels, dst->n_node_labels);
		dst->node_labels = labels;
		dst->n_node_labels = flags->n_node_labels;
	}
	if (flags->set & NL_NC_REGISTER_WITH_TAINTS) {
		free_taints(dst->register_with_taints, dst->n_register_with_taints);
		dst->register_with_taints = taints;
		dst->n_register_with_taints = flags->n_register_with_taints;
	}
	dst->set |= flags->set;
	return 0;
}

/* --- flag values ----------------------------------------------------------------- */

int nl_nodelet_config_parse_content_type_flag(nl_nodelet_config *c, const char *value, nl_err *err)
{
	if (nl_content_type_parse(&c->content_type, value) != 0)
		return nl_err_set(err, NL_EINVAL,
		                  "unsupported content type \"%s\": must be \"%s\" or \"%s\"",
		                  value ? value : "", nl_content_type_name(NL_CONTENT_PROTOBUF),
		                  NL_CONTENT_TYPE_JSON);
	c->set |= NL_NC_CONTENT_TYPE;
	return 0;
}

/* Split value on ',' into a NULL-terminated array of copies (caller frees
 * with free_items). Empty items are dropped, as pflag's string slices do
 * for a trailing comma. */
static char **split_items(const char *value, size_t *n_out)
{
	size_t cap = 1;
	for (const char *p = value; *p; p++)
		cap += *p == ',';
	char **items = calloc(cap + 1, sizeof(*items));
	size_t n = 0;
	if (!items)
		return NULL;
	for (const char *p = value;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len > 0 && !(items[n++] = strndup(p, len))) {
			for (size_t i = 0; i < n; i++)
				free(items[i]);
			free(items);
			return NULL;
		}
		if (!end)
			break;
		p = end + 1;
	}
	*n_out = n;
	return items;
}

static void free_items(char **items)
{
	for (size_t i = 0; items && items[i]; i++)
		free(items[i]);
	free(items);
}

int nl_nodelet_config_parse_labels_flag(nl_nodelet_config *c, const char *value, nl_err *err)
{
	size_t n = 0;
	char **items = split_items(value ? value : "", &n);
	nl_label *labels = n ? calloc(n, sizeof(*labels)) : NULL;
	int rc = 0;
	if (!items || (n && !labels))
		rc = nl_err_set(err, NL_ENOMEM, "out of memory");
	for (size_t i = 0; i < n && rc == 0; i++) {
		char *eq = strchr(items[i], '=');
		if (!eq) {
			rc = nl_err_set(err, NL_EINVAL, "%s must be formatted as key=value",
			                items[i]);
			break;
		}
		*eq = '\0';
		labels[i].key = strdup(items[i]);
		labels[i].value = strdup(eq + 1);
		if (!labels[i].key || !labels[i].value)
			rc = nl_err_set(err, NL_ENOMEM, "out of memory");
	}
	free_items(items);
	if (rc != 0) {
		free_labels(labels, labels ? n : 0);
		return rc;
	}
	free_labels(c->node_labels, c->n_node_labels);
	c->node_labels = labels;
	c->n_node_labels = n;
	c->set |= NL_NC_NODE_LABELS;
	return 0;
}

/* taints.parseTaint: "key=value:Effect" or "key:Effect". */
static int parse_taint(nl_taint *t, const char *spec, nl_err *err)
{
	const char *colon = strrchr(spec, ':');
	if (!colon)
		return nl_err_set(err, NL_EINVAL, "invalid taint spec: %s", spec);
	const char *eq = memchr(spec, '=', (size_t)(colon - spec));
	const char *key_end = eq ? eq : colon;
	if (key_end == spec)
		return nl_err_set(err, NL_EINVAL, "invalid taint spec: %s", spec);
	t->key = strndup(spec, (size_t)(key_end - spec));
	t->value = eq ? strndup(eq + 1, (size_t)(colon - eq - 1)) : strdup("");
	t->effect = strdup(colon + 1);
	if (!t->key || !t->value || !t->effect)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	return 0;
}

int nl_nodelet_config_parse_taints_flag(nl_nodelet_config *c, const char *value, nl_err *err)
{
	size_t n = 0;
	char **items = split_items(value ? value : "", &n);
	nl_taint *taints = n ? calloc(n, sizeof(*taints)) : NULL;
	int rc = 0;
	if (!items || (n && !taints)) {
		free(taints);
		free_items(items);
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = parse_taint(&taints[i], items[i], err);
	free_items(items);
	if (rc != 0) {
		free_taints(taints, n);
		return rc;
	}
	free_taints(c->register_with_taints, c->n_register_with_taints);
	c->register_with_taints = taints;
	c->n_register_with_taints = n;
	c->set |= NL_NC_REGISTER_WITH_TAINTS;
	return 0;
}
