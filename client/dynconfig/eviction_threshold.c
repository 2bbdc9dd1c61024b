/* Eviction hard thresholds: kubelet's signal names, its parsing of an
 * `evictionHard` entry (parseThresholdStatement, resource.ParseQuantity)
 * and its test of a threshold against what was observed (thresholdsMet). */
#include <nodelet/eviction.h>

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const signal_names[NL_SIGNAL_COUNT] = {
    "memory.available",      "allocatableMemory.available", "nodefs.available",
    "nodefs.inodesFree",     "imagefs.available",           "imagefs.inodesFree",
    "containerfs.available", "containerfs.inodesFree",      "pid.available",
};

/* resource.ParseQuantity's error for anything it cannot read. */
#define QUANTITY_SYNTAX                                 \
	"quantities must match the regular expression " \
	"'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"

const char *nl_eviction_signal_name(nl_eviction_signal s)
{
	return (unsigned)s < NL_SIGNAL_COUNT ? signal_names[s] : "";
}

int nl_eviction_signal_parse(nl_eviction_signal *out, const char *name)
{
	for (int i = 0; i < NL_SIGNAL_COUNT; i++)
		if (name && strcmp(name, signal_names[i]) == 0) {
			*out = (nl_eviction_signal)i;
			return 0;
		}
	return NL_ENOTFOUND;
}

nl_pressure nl_eviction_signal_pressure(nl_eviction_signal s)
{
	switch (s) {
	case NL_SIGNAL_MEMORY_AVAILABLE:
	case NL_SIGNAL_ALLOCATABLE_MEMORY_AVAILABLE:
		return NL_PRESSURE_MEMORY;
	case NL_SIGNAL_PID_AVAILABLE:
		return NL_PRESSURE_PID;
	default:
		return NL_PRESSURE_DISK;
	}
}

/* The multiplier of a quantity suffix; 0 when unknown. */
static double suffix_scale(const char *s)
{
	static const struct {
		const char *suffix;
		double scale;
	} table[] = {
	    {"", 1},        {"n", 1e-9},    {"u", 1e-6},    {"m", 1e-3},
	    {"k", 1e3},     {"M", 1e6},     {"G", 1e9},     {"T", 1e12},
	    {"P", 1e15},    {"E", 1e18},    {"Ki", 1024.0}, {"Mi", 1048576.0},
	    {"Gi", 0x1p30}, {"Ti", 0x1p40}, {"Pi", 0x1p50}, {"Ei", 0x1p60},
	};
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (strcmp(s, table[i].suffix) == 0)
			return table[i].scale;
	if ((s[0] == 'e' || s[0] == 'E') && s[1]) {
		char *end;
		errno = 0;
		long exp = strtol(s + 1, &end, 10);
		if (*end || errno || exp < -30 || exp > 30 ||
		    !(isdigit((unsigned char)s[1]) || s[1] == '+' || s[1] == '-'))
			return 0;
		double scale = 1;
		for (long i = 0; i < (exp < 0 ? -exp : exp); i++)
			scale = exp < 0 ? scale / 10 : scale * 10;
		return scale;
	}
	return 0;
}

int nl_quantity_parse(int64_t *out, const char *s)
{
	const char *p = s;
	if (!s || !*s)
		return NL_EINVALID;
	if (*p == '+' || *p == '-')
		p++;
	int dots = 0, digits = 0;
	for (; isdigit((unsigned char)*p) || *p == '.'; p++) {
		dots += *p == '.';
		digits += *p != '.';
	}
	if (!digits || dots > 1)
		return NL_EINVALID;
	char mantissa[64];
	size_t n = (size_t)(p - s);
	if (n >= sizeof(mantissa))
		return NL_EINVALID;
	memcpy(mantissa, s, n);
	mantissa[n] = '\0';
	double scale = suffix_scale(p);
	if (scale == 0)
		return NL_EINVALID;
	/* Exact for integers with binary or plain suffixes below 2^53, which
	 * covers every threshold a device has; larger ones round up. */
	double v = strtod(mantissa, NULL) * scale;
	if (!(v > -9.2e18 && v < 9.2e18))
		return NL_EINVALID;
	int64_t i = (int64_t)v;
	*out = (double)i < v ? i + 1 : i; /* Value() rounds up */
	return 0;
}

int nl_eviction_threshold_parse(nl_eviction_threshold *out, const char *name, const char *value,
                                nl_err *err)
{
	nl_eviction_threshold t = {0};
	if (nl_eviction_signal_parse(&t.signal, name) != 0)
		return nl_err_set(err, NL_EINVALID, "unsupported eviction signal %s",
		                  name ? name : "");
	size_t len = strlen(value);
	if (len > 0 && value[len - 1] == '%') {
		if (strcmp(value, "0%") == 0 || strcmp(value, "100%") == 0)
			return 1;
		char num[64], *end;
		if (len - 1 >= sizeof(num) || len == 1)
			return nl_err_set(err, NL_EINVALID,
			                  "strconv.ParseFloat: parsing \"%.*s\": invalid syntax",
			                  (int)(len - 1), value);
		memcpy(num, value, len - 1);
		num[len - 1] = '\0';
		errno = 0;
		/* float32, as kubelet's parsePercentage keeps it. */
		float pct = (float)strtod(num, &end) / 100;
		if (*end || isspace((unsigned char)num[0]) || errno)
			return nl_err_set(err, NL_EINVALID,
			                  "strconv.ParseFloat: parsing \"%s\": invalid syntax",
			                  num);
		if (pct < 0)
			return nl_err_set(err, NL_EINVALID,
			                  "eviction percentage threshold %s must be >= 0%%: %s",
			                  name, value);
		if (pct > 1)
			return nl_err_set(err, NL_EINVALID,
			                  "eviction percentage threshold %s must be <= 100%%: %s",
			                  name, value);
		t.is_percent = 1;
		t.percent = pct;
		*out = t;
		return 0;
	}
	if (nl_quantity_parse(&t.quantity, value) != 0)
		return nl_err_set(err, NL_EINVALID, QUANTITY_SYNTAX);
	if (t.quantity <= 0)
		return nl_err_set(err, NL_EINVALID, "eviction threshold %s must be positive: %s",
		                  name, value);
	*out = t;
	return 0;
}

/* kubelet's GetThresholdQuantity: percent of capacity, truncated. */
static int met(const nl_eviction_threshold *t, const nl_signal_observation *o)
{
	if (!o->observed)
		return 0;
	int64_t v = t->is_percent ? (int64_t)((double)o->capacity * t->percent) : t->quantity;
	return o->available < v;
}

int nl_eviction_threshold_met(const nl_eviction_threshold *t, const nl_eviction_observations *obs)
{
	const nl_signal_observation *rows = NULL;
	switch (t->signal) {
	case NL_SIGNAL_MEMORY_AVAILABLE:
		return met(t, &obs->memory);
	case NL_SIGNAL_PID_AVAILABLE:
		return met(t, &obs->pid);
	case NL_SIGNAL_ALLOCATABLE_MEMORY_AVAILABLE:
		/* Measured on the pods' cgroup; nodelet has no pods. */
		return 0;
	case NL_SIGNAL_NODEFS_AVAILABLE:
	case NL_SIGNAL_IMAGEFS_AVAILABLE:
	case NL_SIGNAL_CONTAINERFS_AVAILABLE:
		rows = obs->fs_bytes;
		break;
	default:
		rows = obs->fs_inodes;
		break;
	}
	for (size_t i = 0; i < obs->n_fs && i < NL_EVICTION_MAX_FS; i++)
		if (met(t, &rows[i]))
			return 1;
	return 0;
}
