/* Validation of a NodeletConfiguration with apimachinery's field error
 * texts (field.Invalid, field.Required, field.NotSupported, field.Duplicate)
 * aggregated as utilerrors.NewAggregate prints them. */
#include <nodelet/buf.h>
#include <nodelet/clock.h>
#include <nodelet/eviction.h>
#include <nodelet/names.h>
#include <nodelet/nodelet_config.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define WHY_MAX 1024

typedef struct {
	nl_buf all; /* "a, b, c" */
	size_t n;
	int oom;
} ferrs;

static void push(ferrs *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void push(ferrs *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if ((e->n && nl_buf_adds(&e->all, ", ") != 0) || nl_buf_vprintf(&e->all, fmt, ap) != 0)
		e->oom = 1;
	va_end(ap);
	e->n++;
}

/* One field.Invalid per "; "-separated message of a names.h check, as
 * apimachinery appends one error per message. */
static void invalid_each(ferrs *e, const char *field, const char *value, const char *why)
{
	char copy[WHY_MAX];
	snprintf(copy, sizeof(copy), "%s", why);
	for (char *msg = copy, *next; msg; msg = next) {
		next = strstr(msg, "; ");
		if (next) {
			*next = '\0';
			next += 2;
		}
		push(e, "%s: Invalid value: \"%s\": %s", field, value, msg);
	}
}

static void check_range(ferrs *e, const char *field, int32_t v, int32_t lo, int32_t hi)
{
	if (v < lo || v > hi)
		push(e, "%s: Invalid value: %d: must be between %d and %d", field, v, lo, hi);
}

static void check_labels(ferrs *e, const nl_nodelet_config *c)
{
	char why[WHY_MAX];
	for (size_t i = 0; i < c->n_node_labels; i++) {
		const nl_label *l = &c->node_labels[i];
		if (nl_name_is_label_key(l->key, why, sizeof(why)) != 0)
			invalid_each(e, "nodeLabels", l->key, why);
		if (nl_name_is_label_value(l->value, why, sizeof(why)) != 0)
			invalid_each(e, "nodeLabels", l->value, why);
	}
}

static int known_effect(const char *effect)
{
	return strcmp(effect, "NoSchedule") == 0 || strcmp(effect, "PreferNoSchedule") == 0 ||
	       strcmp(effect, "NoExecute") == 0;
}

/* validateNodeTaints: key, value and effect of each, then uniqueness of
 * the key and effect pair. */
static void check_taint(ferrs *e, const nl_nodelet_config *c, size_t i)
{
	const nl_taint *t = &c->register_with_taints[i];
	char field[64], why[WHY_MAX];
	snprintf(field, sizeof(field), "registerWithTaints[%zu].key", i);
	if (!*t->key)
		push(e, "%s: Required value", field);
	else if (nl_name_is_label_key(t->key, why, sizeof(why)) != 0)
		invalid_each(e, field, t->key, why);
	snprintf(field, sizeof(field), "registerWithTaints[%zu].value", i);
	if (nl_name_is_label_value(t->value, why, sizeof(why)) != 0)
		invalid_each(e, field, t->value, why);
	snprintf(field, sizeof(field), "registerWithTaints[%zu].effect", i);
	if (!*t->effect)
		push(e, "%s: Required value", field);
	else if (!known_effect(t->effect))
		push(e,
		     "%s: Unsupported value: \"%s\": supported values: \"NoSchedule\", "
		     "\"PreferNoSchedule\", \"NoExecute\"",
		     field, t->effect);
	for (size_t j = 0; j < i; j++) {
		const nl_taint *o = &c->register_with_taints[j];
		if (strcmp(o->key, t->key) == 0 && strcmp(o->effect, t->effect) == 0) {
			push(e,
			     "registerWithTaints[%zu]: Duplicate value: \"%s:%s\": taints must be "
			     "unique by key and effect pair",
			     i, t->key, t->effect);
			break;
		}
	}
}

/* Each entry as kubelet's ParseThresholdConfig reads it, with its message. */
static void check_eviction_hard(ferrs *e, const nl_nodelet_config *c)
{
	for (size_t i = 0; i < c->n_eviction_hard; i++) {
		const nl_label *l = &c->eviction_hard[i];
		nl_eviction_threshold t;
		nl_err why = {0};
		if (nl_eviction_threshold_parse(&t, l->key, l->value, &why) < 0)
			push(e, "evictionHard[%s]: Invalid value: \"%s\": %s", l->key, l->value,
			     why.msg);
	}
}

static void check_positive_duration(ferrs *e, const char *field, int64_t usec)
{
	if (usec <= 0) {
		char d[NL_DURATION_BUFSZ];
		nl_duration_format(d, usec);
		push(e, "%s: Invalid value: \"%s\": must be greater than 0", field, d);
	}
}

/* kubelet's checks of the two shutdown fields (its validation.go, with the
 * GracefulNodeShutdown gate on, as it is by default): Go prints a
 * metav1.Duration with %v as "{30s}". */
static void check_shutdown(ferrs *e, const nl_nodelet_config *c)
{
	char g[NL_DURATION_BUFSZ], k[NL_DURATION_BUFSZ];
	int64_t grace = c->shutdown_grace_period_usec;
	int64_t crit = c->shutdown_grace_period_critical_pods_usec;
	nl_duration_format(g, grace);
	nl_duration_format(k, crit);
	if (crit > grace)
		push(e,
		     "invalid configuration: shutdownGracePeriodCriticalPods {%s} must be <= "
		     "shutdownGracePeriod {%s}",
		     k, g);
	if (grace < 0 || (grace > 0 && grace < NL_USEC_PER_SEC))
		push(e,
		     "invalid configuration: shutdownGracePeriod {%s} must be either zero or "
		     "otherwise >= 1 sec",
		     g);
	if (crit < 0 || (crit > 0 && crit < NL_USEC_PER_SEC))
		push(e,
		     "invalid configuration: shutdownGracePeriodCriticalPods {%s} must be either "
		     "zero or otherwise >= 1 sec",
		     k);
}

int nl_nodelet_config_validate(const nl_nodelet_config *c, nl_err *err)
{
	ferrs e = {.n = 0};
	nl_buf_init(&e.all, 0);
	check_range(&e, "leaseDurationSeconds", c->lease_duration_seconds,
	            NL_NODELET_CONFIG_MIN_LEASE_DURATION_SECONDS,
	            NL_NODELET_CONFIG_MAX_LEASE_DURATION_SECONDS);
	check_positive_duration(&e, "nodeStatusReportFrequency",
	                        c->node_status_report_frequency_usec);
	check_positive_duration(&e, "nodeStatusUpdateFrequency",
	                        c->node_status_update_frequency_usec);
	check_range(&e, "logVerbosity", c->log_verbosity, 0, NL_NODELET_CONFIG_MAX_LOG_VERBOSITY);
	check_labels(&e, c);
	for (size_t i = 0; i < c->n_register_with_taints; i++)
		check_taint(&e, c, i);
	check_eviction_hard(&e, c);
	check_positive_duration(&e, "evictionPressureTransitionPeriod",
	                        c->eviction_pressure_transition_period_usec);
	check_shutdown(&e, c);
	int rc = 0;
	if (e.oom)
		rc = nl_err_set(err, NL_ENOMEM, "out of memory");
	else if (e.n == 1)
		rc = nl_err_set(err, NL_EINVALID, "%s", e.all.data);
	else if (e.n > 1)
		rc = nl_err_set(err, NL_EINVALID, "[%s]", e.all.data);
	nl_buf_free(&e.all);
	return rc;
}
