/* The per-kind Validate* functions of kube-apiserver 1.32's
 * pkg/apis/core/validation (Namespace, Node, ConfigMap, Event) and
 * pkg/apis/coordination/validation (Lease), with field.Error's messages,
 * on validation.c's error list (validation_internal.h). */
#include "validation_internal.h"

#include <nodelet/buf.h>
#include <nodelet/meta.h>
#include <nodelet/names.h>
#include <nodelet/quote.h>

#include <arpa/inet.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ Namespace */

void mock_validate_namespace(mock_ferrs *e, json_object *obj, json_object *old)
{
	static const char *const standard[] = {"kubernetes", "orphan", "foregroundDeletion"};
	json_object *fins = nl_json_get_path(obj, "spec.finalizers");
	char why[WHY_MAX];
	(void)old;
	for (size_t i = 0; i < array_len(fins); i++) {
		const char *f = json_object_get_string(json_object_array_get_idx(fins, i));
		bool known = false;
		f = f ? f : "";
		if (nl_name_is_label_key(f, why, sizeof(why)) != 0)
			mock__ferr_invalid_each(e, "spec.finalizers", f, why);
		for (size_t j = 0; j < 3; j++)
			known |= strcmp(f, standard[j]) == 0;
		if (!strchr(f, '/') && !known)
			mock__ferr_invalid_str(
			    e, "spec.finalizers", f,
			    "name is neither a standard finalizer name nor is it fully "
			    "qualified");
	}
}

/* ValidateNamespaceStatusUpdate: the phase follows the deletion mark. The
 * field path is upstream's, capital P included. */
void mock_validate_namespace_status(mock_ferrs *e, json_object *obj)
{
	const char *phase = nl_json_get_string(obj, "status.phase");
	int deleting = nl_json_get_string(obj, "metadata.deletionTimestamp") != NULL;
	phase = phase ? phase : "";
	if (!deleting && strcmp(phase, "Active") != 0)
		mock__ferr_invalid_str(e, "status.Phase", phase,
		                       "may only be 'Active' if `deletionTimestamp` is empty");
	else if (deleting && strcmp(phase, "Terminating") != 0)
		mock__ferr_invalid_str(e, "status.Phase", phase,
		                       "may only be 'Terminating' if `deletionTimestamp` is not "
		                       "empty");
}

/* ----------------------------------------------------------------- Node */

static void validate_taints(mock_ferrs *e, json_object *taints)
{
	static const char *const effects[] = {"NoSchedule", "PreferNoSchedule", "NoExecute", NULL};
	char why[WHY_MAX], fld[64];
	size_t n = array_len(taints);
	for (size_t i = 0; i < n; i++) {
		json_object *t = json_object_array_get_idx(taints, i);
		const char *key = get_str(t, "key"), *value = get_str(t, "value");
		const char *effect = get_str(t, "effect");
		bool known = false, dup = false;
		key = key ? key : "";
		value = value ? value : "";
		effect = effect ? effect : "";
		/* Go's ValidateNode passes metadata's path, so the errors say so. */
		if (nl_name_is_label_key(key, why, sizeof(why)) != 0)
			mock__ferr_invalid_each(
			    e, path(fld, sizeof(fld), "metadata.taints[%zu].key", i), key, why);
		if (nl_name_is_label_value(value, why, sizeof(why)) != 0) {
			/* joined with ";" here, without the space */
			for (char *p = strstr(why, "; "); p; p = strstr(p, "; "))
				memmove(p + 1, p + 2, strlen(p + 2) + 1);
			mock__ferr_invalid_str(
			    e, path(fld, sizeof(fld), "metadata.taints[%zu].value", i), value, why);
		}
		for (size_t j = 0; effects[j]; j++)
			known |= strcmp(effect, effects[j]) == 0;
		path(fld, sizeof(fld), "metadata.taints[%zu].effect", i);
		if (!*effect) {
			mock_ferr_required(e, fld, NULL);
		} else if (!known) {
			json_object *v = json_object_new_string(effect);
			mock_ferr_not_supported(e, fld, v, effects);
			json_object_put(v);
		}
		for (size_t j = 0; j < i && !dup; j++) {
			json_object *o = json_object_array_get_idx(taints, j);
			const char *ok = get_str(o, "key"), *oe = get_str(o, "effect");
			dup = strcmp(ok ? ok : "", key) == 0 && strcmp(oe ? oe : "", effect) == 0;
		}
		if (dup) {
			nl_buf b;
			nl_buf_init(&b, 0);
			nl_buf_adds(&b, "Duplicate value: core.Taint{Key:");
			nl_quote_append(&b, key);
			nl_buf_adds(&b, ", Value:");
			nl_quote_append(&b, value);
			nl_buf_adds(&b, ", Effect:");
			nl_quote_append(&b, effect);
			nl_buf_printf(&b,
			              ", TimeAdded:(*v1.Time)(%s)}: taints must be unique by key "
			              "and effect pair",
			              get(t, "timeAdded") ? GO_PTR_TEXT : "nil");
			mock__ferr_push(e, NL_CAUSE_DUPLICATE,
			                path(fld, sizeof(fld), "metadata.taints[%zu]", i),
			                nl_buf_detach(&b, NULL));
		}
	}
}

/* A quantity below zero: a '-' sign and a non-zero digit before the suffix. */
static bool quantity_negative(const char *q)
{
	if (*q != '-')
		return false;
	for (q++; *q && (isdigit((unsigned char)*q) || *q == '.'); q++)
		if (*q >= '1' && *q <= '9')
			return true;
	return false;
}

static void validate_resources(mock_ferrs *e, json_object *obj)
{
	static const char *const lists[] = {"capacity", "allocatable"};
	for (size_t i = 0; i < 2; i++) {
		json_object *list = nl_json_get_path(get(obj, "status"), lists[i]);
		if (!json_object_is_type(list, json_type_object))
			continue;
		json_object_object_foreach(list, k, v)
		{
			const char *q = json_object_get_string(v);
			nl_buf b;
			if (!q || !quantity_negative(q))
				continue;
			nl_buf_init(&b, 0);
			nl_buf_printf(&b, "status.%s.%s", lists[i], k);
			char *fld = nl_buf_detach(&b, NULL);
			if (fld)
				mock__ferr_invalid_str(e, fld, q, NONNEGATIVE_MSG);
			free(fld);
		}
	}
}

/* 0 IPv4, 1 IPv6, -1 not a CIDR; netutils.ParseCIDRSloppy, which allows
 * leading zeros in IPv4 octets. */
static int cidr_family(const char *s)
{
	const char *slash = strchr(s, '/');
	char ip[64];
	unsigned char addr[16];
	size_t iplen = slash ? (size_t)(slash - s) : 0;
	int family, bits = 0;
	if (!slash || iplen == 0 || iplen >= sizeof(ip) || !slash[1])
		return -1;
	memcpy(ip, s, iplen);
	ip[iplen] = '\0';
	if (strchr(ip, ':')) {
		if (inet_pton(AF_INET6, ip, addr) != 1)
			return -1;
		family = 1;
	} else {
		int parts = 0;
		for (const char *p = ip; *p; parts++) {
			int v = 0, digits = 0;
			for (; isdigit((unsigned char)*p) && v < 256; p++, digits++)
				v = v * 10 + (*p - '0');
			if (!digits || v > 255 || (*p && *p != '.'))
				return -1;
			if (*p == '.' && !*++p)
				return -1;
		}
		if (parts != 4)
			return -1;
		family = 0;
	}
	for (const char *p = slash + 1; *p; p++) {
		if (!isdigit((unsigned char)*p) || bits > 1000)
			return -1;
		bits = bits * 10 + (*p - '0');
	}
	return bits <= (family ? 128 : 32) ? family : -1;
}

static void validate_pod_cidrs(mock_ferrs *e, json_object *cidrs)
{
	size_t n = array_len(cidrs);
	bool v4 = false, v6 = false;
	char fld[64];
	if (n == 0)
		return;
	char *slice = mock__go_string_slice(cidrs);
	if (!slice)
		return;
	for (size_t i = 0; i < n; i++) {
		int fam = cidr_family(json_object_get_string(json_object_array_get_idx(cidrs, i)));
		if (fam < 0)
			mock_ferr_invalid_raw(e, path(fld, sizeof(fld), "spec.podCIDRs[%zu]", i),
			                      slice, "must be valid CIDR");
		v4 |= fam == 0;
		v6 |= fam == 1;
	}
	if (n > 1) {
		if (!(v4 && v6) || n > 2)
			mock_ferr_invalid_raw(
			    e, "spec.podCIDRs", slice,
			    "may specify no more than one CIDR for each IP family");
		for (size_t i = 1; i < n; i++) {
			json_object *v = json_object_array_get_idx(cidrs, i);
			for (size_t j = 0; j < i; j++) {
				if (!json_object_equal(v, json_object_array_get_idx(cidrs, j)))
					continue;
				mock_ferr_duplicate(
				    e, path(fld, sizeof(fld), "spec.podCIDRs[%zu]", i), v);
				break;
			}
		}
	}
	free(slice);
}

/* validateConfigMapNodeConfigSource: the reference itself. */
static void validate_config_ref(mock_ferrs *e, json_object *cm, const char *base)
{
	static const struct {
		const char *key;
		const char *required;
		int (*check)(const char *, char *, size_t);
	} parts[] = {
	    {"namespace", "namespace must be set", nl_name_is_dns1123_label},
	    {"name", "name must be set", nl_name_is_dns1123_subdomain},
	    {"kubeletConfigKey", "kubeletConfigKey must be set", nl_name_is_config_key},
	};
	char why[WHY_MAX], fld[128];
	for (size_t i = 0; i < 3; i++) {
		const char *v = get_str(cm, parts[i].key);
		path(fld, sizeof(fld), "%s.%s", base, parts[i].key);
		if (!nonempty(v))
			mock_ferr_required(e, fld, parts[i].required);
		else if (parts[i].check(v, why, sizeof(why)) != 0)
			mock__ferr_invalid_each(e, fld, v, why);
	}
}

/* validateNodeConfigSourceSpec / validateNodeConfigSourceStatus: exactly one
 * reference; uid and resourceVersion forbidden in spec, required in status. */
static void validate_config_source(mock_ferrs *e, json_object *src, const char *base, bool status)
{
	json_object *cm = get(src, "configMap");
	char fld[128], cmbase[128];
	if (cm) {
		path(cmbase, sizeof(cmbase), "%s.configMap", base);
		static const char *const keys[] = {"uid", "resourceVersion"};
		for (size_t i = 0; i < 2; i++) {
			char detail[64];
			bool set = nonempty(get_str(cm, keys[i]));
			path(fld, sizeof(fld), "%s.%s", cmbase, keys[i]);
			if (!status && set) {
				snprintf(detail, sizeof(detail), "%s must not be set in spec",
				         keys[i]);
				mock_ferr_forbidden(e, fld, detail);
			} else if (status && !set) {
				snprintf(detail, sizeof(detail), "%s must be set in status",
				         keys[i]);
				mock_ferr_required(e, fld, detail);
			}
		}
		validate_config_ref(e, cm, cmbase);
		return;
	}
	mock_ferr_invalid_raw(
	    e, base, "core.NodeConfigSource{ConfigMap:(*core.ConfigMapNodeConfigSource)(nil)}",
	    "exactly one reference subfield must be non-nil");
}

static void validate_node_config(mock_ferrs *e, json_object *obj)
{
	static const char *const which[] = {"assigned", "active", "lastKnownGood"};
	json_object *src = nl_json_get_path(obj, "spec.configSource");
	json_object *config = nl_json_get_path(obj, "status.config");
	char base[64];
	if (src)
		validate_config_source(e, src, "spec.configSource", false);
	for (size_t i = 0; config && i < 3; i++) {
		json_object *s = get(config, which[i]);
		if (s)
			validate_config_source(
			    e, s, path(base, sizeof(base), "status.config.%s", which[i]), true);
	}
}

/* %#v of a core.NodeAddress. */
static char *go_node_address(json_object *a)
{
	nl_buf b;
	const char *t = get_str(a, "type"), *addr = get_str(a, "address");
	nl_buf_init(&b, 0);
	nl_buf_adds(&b, "core.NodeAddress{Type:");
	nl_quote_append(&b, t ? t : "");
	nl_buf_adds(&b, ", Address:");
	nl_quote_append(&b, addr ? addr : "");
	nl_buf_adds(&b, "}");
	return nl_buf_detach(&b, NULL);
}

static void validate_node_update(mock_ferrs *e, json_object *obj, json_object *old)
{
	json_object *addrs = nl_json_get_path(obj, "status.addresses");
	json_object *cidrs = nl_json_get_path(obj, "spec.podCIDRs");
	json_object *old_cidrs = nl_json_get_path(old, "spec.podCIDRs");
	const char *pid = nl_json_get_string(obj, "spec.providerID");
	const char *old_pid = nl_json_get_string(old, "spec.providerID");
	const char *ext = nl_json_get_string(obj, "spec.externalID");
	const char *old_ext = nl_json_get_string(old, "spec.externalID");
	const char *cidr_msg = "node updates may not change podCIDR except from \"\" to valid";
	char fld[64];

	for (size_t i = 1; i < array_len(addrs); i++) {
		json_object *a = json_object_array_get_idx(addrs, i);
		for (size_t j = 0; j < i; j++) {
			if (!json_object_equal(a, json_object_array_get_idx(addrs, j)))
				continue;
			char *text = go_node_address(a);
			if (text)
				mock__ferr_pushf(e, NL_CAUSE_DUPLICATE,
				                 path(fld, sizeof(fld), "status.addresses[%zu]", i),
				                 "Duplicate value: %s", text);
			free(text);
			break;
		}
	}
	if (array_len(old_cidrs) > 0) {
		if (array_len(old_cidrs) != array_len(cidrs)) {
			mock_ferr_forbidden(e, "spec.podCIDRs", cidr_msg);
		} else {
			for (size_t i = 0; i < array_len(cidrs); i++)
				if (!json_object_equal(json_object_array_get_idx(cidrs, i),
				                       json_object_array_get_idx(old_cidrs, i)))
					mock_ferr_forbidden(e, "spec.podCIDRs", cidr_msg);
		}
	}
	if (nonempty(old_pid) && strcmp(old_pid, pid ? pid : "") != 0)
		mock_ferr_forbidden(e, "spec.providerID",
		                    "node updates may not change providerID except from \"\" to "
		                    "valid");
	validate_node_config(e, obj);
	if (strcmp(ext ? ext : "", old_ext ? old_ext : "") != 0)
		mock_ferr_forbidden(e, "spec.externalID", "may not be updated");
}

/* ValidateNode, then on update ValidateNodeUpdate (whose repeats of the
 * taint and resource checks are left out: they would only duplicate causes).
 * Unlike 1.32, which drops spec.configSource on create, the mock keeps it and
 * so checks it on create too. */
void mock_validate_node(mock_ferrs *e, json_object *obj, json_object *old)
{
	validate_taints(e, nl_json_get_path(obj, "spec.taints"));
	validate_resources(e, obj);
	validate_pod_cidrs(e, nl_json_get_path(obj, "spec.podCIDRs"));
	if (old)
		validate_node_update(e, obj, old);
	else
		validate_node_config(e, obj);
}

/* ------------------------------------------------------------ ConfigMap */

/* Decoded binaryData is canonical base64, so its size follows from the text. */
static size_t b64_decoded_len(const char *s)
{
	size_t len = strlen(s);
	size_t n = len / 4 * 3;
	if (len >= 1 && s[len - 1] == '=')
		n--;
	if (len >= 2 && s[len - 2] == '=')
		n--;
	return n;
}

void mock_validate_configmap(mock_ferrs *e, json_object *obj, json_object *old)
{
	json_object *data = get(obj, "data"), *bin = get(obj, "binaryData");
	char why[WHY_MAX];
	nl_buf fld;
	size_t total = 0;

	if (old && json_object_get_boolean(get(old, "immutable"))) {
		json_object *old_data = get(old, "data"), *old_bin = get(old, "binaryData");
		if (!json_object_get_boolean(get(obj, "immutable")))
			mock_ferr_forbidden(e, "immutable", IMMUTABLE_WHEN_SET_MSG);
		if (!json_object_equal(data, old_data))
			mock_ferr_forbidden(e, "data", IMMUTABLE_WHEN_SET_MSG);
		if (!json_object_equal(bin, old_bin))
			mock_ferr_forbidden(e, "binaryData", IMMUTABLE_WHEN_SET_MSG);
	}
	nl_buf_init(&fld, 0);
	if (json_object_is_type(data, json_type_object)) {
		json_object_object_foreach(data, k, v)
		{
			/* k may hold a marked NUL (validation.h): the field path keeps
			 * the mark, the Status turns it into the NUL Go prints there. */
			mock_gostr key;
			mock__gostr_key(&key, k);
			nl_buf_reset(&fld);
			nl_buf_printf(&fld, "data[%s]", k);
			if (nl_name_is_config_key_n(key.s, key.len, why, sizeof(why)) != 0)
				mock__ferr_invalid_each_n(e, fld.data, key.s, key.len, why);
			if (get(bin, k))
				mock__ferr_invalid_strn(e, fld.data, key.s, key.len,
				                        "duplicate of key present in binaryData");
			total += (size_t)json_object_get_string_len(v);
			mock__gostr_free(&key);
		}
	}
	if (json_object_is_type(bin, json_type_object)) {
		json_object_object_foreach(bin, k, v)
		{
			const char *b64 = json_object_get_string(v);
			mock_gostr key;
			mock__gostr_key(&key, k);
			nl_buf_reset(&fld);
			nl_buf_printf(&fld, "binaryData[%s]", k);
			if (nl_name_is_config_key_n(key.s, key.len, why, sizeof(why)) != 0)
				mock__ferr_invalid_each_n(e, fld.data, key.s, key.len, why);
			total += b64 ? b64_decoded_len(b64) : 0;
			mock__gostr_free(&key);
		}
	}
	nl_buf_free(&fld);
	/* field.NewPath("") prints as "[]": the error is about the whole object */
	if (total > MAX_SECRET_SIZE)
		mock_ferr_too_long(e, "[]", MAX_SECRET_SIZE);
}

/* ---------------------------------------------------------------- Event */

/* legacyValidateEvent, all a core/v1 Event gets (ValidateEventCreate and
 * ValidateEventUpdate stop there for v1). */
void mock_validate_event(mock_ferrs *e, json_object *obj, json_object *old)
{
	static const struct {
		const char *key;
		size_t max;
		bool required;
	} limits[] = {
	    {"reportingInstance", 128, true},
	    {"action", 128, true},
	    {"reason", 128, true},
	    {"message", 1024, false},
	};
	const char *ns = nl_meta_namespace(obj);
	const char *ins = nl_json_get_string(obj, "involvedObject.namespace");
	const char *ctrl = get_str(obj, "reportingComponent");
	char why[WHY_MAX];
	(void)old;
	ns = ns ? ns : "";
	ins = ins ? ins : "";
	ctrl = ctrl ? ctrl : "";

	if (!json_object_is_type(get(obj, "eventTime"), json_type_string)) {
		/* an old-style Event: namespaces must agree ("" or default when the
		 * involved object has none) */
		bool ok = *ins ? strcmp(ns, ins) == 0 : !*ns || strcmp(ns, "default") == 0;
		if (!ok)
			mock__ferr_invalid_str(e, "involvedObject.namespace", ins,
			                       "does not match event.namespace");
	} else {
		if (!*ins && strcmp(ns, "default") != 0 && strcmp(ns, "kube-system") != 0)
			mock__ferr_invalid_str(e, "involvedObject.namespace", ins,
			                       "does not match event.namespace");
		if (!*ctrl)
			mock_ferr_required(e, "reportingController", NULL);
		if (nl_name_is_label_key(ctrl, why, sizeof(why)) != 0)
			mock__ferr_invalid_each(e, "reportingController", ctrl, why);
		for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
			const char *v = get_str(obj, limits[i].key);
			char detail[48];
			if (limits[i].required && !nonempty(v))
				mock_ferr_required(e, limits[i].key, NULL);
			if (v && strlen(v) > limits[i].max) {
				snprintf(detail, sizeof(detail), "can have at most %zu characters",
				         limits[i].max);
				mock__ferr_invalid_str(e, limits[i].key, "", detail);
			}
		}
	}
	if (nl_name_is_dns1123_subdomain(ns, why, sizeof(why)) != 0)
		mock__ferr_invalid_each(e, "namespace", ns, why);
}

/* ---------------------------------------------------------------- Lease */

void mock_validate_lease(mock_ferrs *e, json_object *obj, json_object *old)
{
	json_object *spec = get(obj, "spec");
	json_object *dur = get(spec, "leaseDurationSeconds");
	json_object *trans = get(spec, "leaseTransitions");
	const char *strategy = get_str(spec, "strategy");
	const char *preferred = get_str(spec, "preferredHolder");
	(void)old;
	if (dur && json_object_get_int64(dur) <= 0)
		mock__ferr_invalid_int(e, "spec.leaseDurationSeconds", json_object_get_int64(dur),
		                       "must be greater than 0");
	if (trans && json_object_get_int64(trans) < 0)
		mock__ferr_invalid_int(e, "spec.leaseTransitions", json_object_get_int64(trans),
		                       NONNEGATIVE_MSG);
	/* Reachable only if a caller keeps strategy: 1.32's decoding drops it. */
	if (strategy && !strchr(strategy, '/') && strcmp(strategy, "OldestEmulationVersion") != 0) {
		static const char *const known[] = {"OldestEmulationVersion", NULL};
		json_object *v = json_object_new_string(strategy);
		mock_ferr_not_supported(e, "spec.strategy.strategy", v, known);
		json_object_put(v);
	}
	if (nonempty(preferred) && !nonempty(strategy))
		mock_ferr_forbidden(e, "spec.preferredHolder",
		                    "may only be specified if `strategy` is defined");
}
