/* NodeletConfiguration: the agent's configuration file (`--config`) and the
 * payload of a dynamic config ConfigMap key, like kubelet's
 * KubeletConfiguration (apiVersion nodelet.io/v1alpha1).
 *
 * A document is YAML or JSON. Absent fields take their defaults; unknown
 * fields are logged as warnings and ignored (kubelet's lenient fallback);
 * a field of the wrong type, a bad apiVersion or kind is an error.
 * Validation reports apimachinery-style field errors
 * ("leaseDurationSeconds: Invalid value: 0: must be between 1 and 3600");
 * several are joined as Go's utilerrors aggregate: "[a, b]".
 *
 * Explicit command-line flags win over the file and over the dynamic config
 * (the seed's transform): the agent parses its flags into an
 * nl_nodelet_config whose `set` mask says which fields were given and merges
 * it over a loaded config with nl_nodelet_config_apply_flags. */
#ifndef NODELET_NODELET_CONFIG_H
#define NODELET_NODELET_CONFIG_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "client.h"
#include "duration.h"
#include "errors.h"

#define NL_NODELET_CONFIG_API_VERSION "nodelet.io/v1alpha1"
#define NL_NODELET_CONFIG_KIND "NodeletConfiguration"

#define NL_NODELET_CONFIG_DEFAULT_LEASE_DURATION_SECONDS 40
#define NL_NODELET_CONFIG_MIN_LEASE_DURATION_SECONDS 1
#define NL_NODELET_CONFIG_MAX_LEASE_DURATION_SECONDS 3600
/* kubelet's nodeStatusReportFrequency default: 5 minutes. */
#define NL_NODELET_CONFIG_DEFAULT_STATUS_REPORT_FREQUENCY_USEC (INT64_C(300) * INT64_C(1000000))
#define NL_NODELET_CONFIG_DEFAULT_STATUS_UPDATE_FREQUENCY_USEC (INT64_C(10) * INT64_C(1000000))
#define NL_NODELET_CONFIG_MAX_LOG_VERBOSITY 10

/* Bits of nl_nodelet_config.set: which fields a document or the command line
 * gave explicitly. */
enum {
	NL_NC_LEASE_DURATION_SECONDS = 1u << 0,
	NL_NC_NODE_STATUS_REPORT_FREQUENCY = 1u << 1,
	NL_NC_NODE_LABELS = 1u << 2,
	NL_NC_REGISTER_WITH_TAINTS = 1u << 3,
	NL_NC_LOG_VERBOSITY = 1u << 4,
	NL_NC_REGISTER_NODE = 1u << 5,
	NL_NC_CONTENT_TYPE = 1u << 6,
	NL_NC_NODE_STATUS_UPDATE_FREQUENCY = 1u << 7,
	NL_NC_EVICTION_HARD = 1u << 8,
	NL_NC_EVICTION_PRESSURE_TRANSITION_PERIOD = 1u << 9,
	NL_NC_SHUTDOWN_GRACE_PERIOD = 1u << 10,
	NL_NC_SHUTDOWN_GRACE_PERIOD_CRITICAL_PODS = 1u << 11,
};

typedef struct {
	char *key;
	char *value;
} nl_label;

typedef struct {
	char *key;
	char *value; /* may be "" */
	char *effect;
} nl_taint;

typedef struct {
	int32_t lease_duration_seconds; /* leaseDurationSeconds, default 40 */
	/* nodeStatusReportFrequency, default 5m; when only
	 * nodeStatusUpdateFrequency is given, that value (kubelet's
	 * backward-compatible defaulting). */
	int64_t node_status_report_frequency_usec;
	/* nodeStatusUpdateFrequency, default 10s: how often the status is
	 * compared with the server's (a PATCH only on change or when due). */
	int64_t node_status_update_frequency_usec;
	int32_t log_verbosity; /* logVerbosity, default 0 */
	int register_node;     /* registerNode, default true */
	/* contentType (kubelet's KubeletConfiguration field and its
	 * --kube-api-content-type flag): "application/vnd.kubernetes.protobuf"
	 * (the default) or "application/json". Read when the agent makes its
	 * client; a dynamic config change takes effect at the next start. */
	nl_content_type content_type;
	nl_label *node_labels; /* nodeLabels, in document order */
	size_t n_node_labels;
	nl_taint *register_with_taints; /* registerWithTaints */
	size_t n_register_with_taints;
	/* evictionHard: signal name to threshold ("memory.available" to
	 * "100Mi"), as kubelet's map; default kubelet's Linux defaults
	 * (NL_EVICTION_HARD_DEFAULTS, nodelet/eviction.h). A document that
	 * gives the map replaces it whole, as kubelet's defaulting does. Only
	 * the node conditions follow from it: nodelet evicts nothing. */
	nl_label *eviction_hard;
	size_t n_eviction_hard;
	/* evictionPressureTransitionPeriod, default 5m: how long a pressure
	 * condition stays True after its threshold was last met. */
	int64_t eviction_pressure_transition_period_usec;
	/* shutdownGracePeriod, default 0 = off (kubelet's default): above 0
	 * the agent holds a systemd-logind delay inhibitor lock and reports
	 * Ready=False when the machine shuts down (docs/agent.md). Their sum
	 * with shutdownGracePeriodCriticalPods is what kubelet asks logind's
	 * InhibitDelayMaxSec for; the critical part is kept because kubelet
	 * has it, and must not exceed the whole. */
	int64_t shutdown_grace_period_usec;
	int64_t shutdown_grace_period_critical_pods_usec;
	/* NL_NC_* bits of the fields given explicitly. Registration checks
	 * NL_NC_REGISTER_WITH_TAINTS to decide whether its default taint
	 * applies. */
	unsigned set;
} nl_nodelet_config;

/* A configuration holding the defaults, nothing set (evictionHard holds
 * kubelet's defaults, allocated). *out belongs to the
 * caller: nl_nodelet_config_free. NL_ENOMEM. */
int nl_nodelet_config_new(nl_nodelet_config **out);
void nl_nodelet_config_free(nl_nodelet_config *c);
/* A deep copy (caller frees). NL_ENOMEM. */
int nl_nodelet_config_copy(nl_nodelet_config **out, const nl_nodelet_config *c);
/* Equal field by field (labels and taints in order), `set` ignored. */
int nl_nodelet_config_equal(const nl_nodelet_config *a, const nl_nodelet_config *b);

/* Decode one YAML or JSON document, defaults filled in. Not validated.
 * NL_EPARSE with "<name>: <why>" in err for YAML/JSON syntax, a field of the
 * wrong type (Go's "json: cannot unmarshal string into Go struct field
 * NodeletConfiguration.leaseDurationSeconds of type int32"), an invalid
 * duration or a wrong apiVersion/kind; NL_ENOMEM. *out belongs to the
 * caller. name labels messages (a path, or "<input>"). */
int nl_nodelet_config_parse(nl_nodelet_config **out, const char *buf, size_t len, const char *name,
                            nl_err *err);
/* Read path (NL_EIO, NL_ETOOBIG above 1 MiB) and nl_nodelet_config_parse it. */
int nl_nodelet_config_load_file(nl_nodelet_config **out, const char *path, nl_err *err);

/* Check every field; 0 or NL_EINVALID with the field errors in err. */
int nl_nodelet_config_validate(const nl_nodelet_config *c, nl_err *err);

/* The seed's transform: copy into dst every field flags->set marks (deep
 * copies), and add those bits to dst->set. On NL_ENOMEM dst is unchanged. */
int nl_nodelet_config_apply_flags(nl_nodelet_config *dst, const nl_nodelet_config *flags);

/* The configuration as a NodeletConfiguration document, every field
 * present (what /configz would show). New reference, caller frees. NULL on
 * allocation failure. */
json_object *nl_nodelet_config_to_json(const nl_nodelet_config *c);

/* --- values of the agent's flags ------------------------------------------ */

/* `--kube-api-content-type TYPE`: "application/vnd.kubernetes.protobuf" or
 * "application/json", marked set. NL_EINVAL with a message for anything
 * else (kubelet passes other values to client-go unchecked; nodelet speaks
 * only these two). */
int nl_nodelet_config_parse_content_type_flag(nl_nodelet_config *c, const char *value, nl_err *err);
/* `--node-labels k=v,k2=v2` (kubelet's mapStringString): replaces the
 * labels and marks them set. NL_EINVAL with a message for an item without
 * '='; keys and values are checked by nl_nodelet_config_validate. */
int nl_nodelet_config_parse_labels_flag(nl_nodelet_config *c, const char *value, nl_err *err);
/* `--register-with-taints key=value:Effect,key:Effect` (kubelet's
 * taints.ParseTaints spec): replaces the taints and marks them set.
 * NL_EINVAL with a message for an item without ':' or with an empty key. */
int nl_nodelet_config_parse_taints_flag(nl_nodelet_config *c, const char *value, nl_err *err);

#endif
