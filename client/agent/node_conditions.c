/* The pressure conditions' state over time (kubelet's eviction manager
 * synchronize: thresholdsMet, nodeConditionsLastObservedAt,
 * nodeConditionsObservedSince) and their texts (nodestatus/setters.go). */
#include <nodelet/node_conditions.h>

static const struct {
	const char *type;
	const char *reason[2], *message[2]; /* [under pressure] */
} texts[NL_PRESSURE_COUNT] = {
    {"MemoryPressure",
     {"KubeletHasSufficientMemory", "KubeletHasInsufficientMemory"},
     {"kubelet has sufficient memory available", "kubelet has insufficient memory available"}},
    {"DiskPressure",
     {"KubeletHasNoDiskPressure", "KubeletHasDiskPressure"},
     {"kubelet has no disk pressure", "kubelet has disk pressure"}},
    {"PIDPressure",
     {"KubeletHasSufficientPID", "KubeletHasInsufficientPID"},
     {"kubelet has sufficient PID available", "kubelet has insufficient PID available"}},
};

const char *nl_pressure_condition_type(nl_pressure p)
{
	return (unsigned)p < NL_PRESSURE_COUNT ? texts[p].type : "";
}

const char *nl_pressure_reason(nl_pressure p, int under_pressure)
{
	return (unsigned)p < NL_PRESSURE_COUNT ? texts[p].reason[!!under_pressure] : "";
}

const char *nl_pressure_message(nl_pressure p, int under_pressure)
{
	return (unsigned)p < NL_PRESSURE_COUNT ? texts[p].message[!!under_pressure] : "";
}

void nl_pressure_tracker_update(nl_pressure_tracker *t, int out[NL_PRESSURE_COUNT],
                                const nl_eviction_threshold *th, size_t n_th,
                                const nl_eviction_observations *obs, int64_t period, int64_t now)
{
	for (size_t i = 0; i < n_th; i++) {
		if (!nl_eviction_threshold_met(&th[i], obs))
			continue;
		nl_pressure p = nl_eviction_signal_pressure(th[i].signal);
		t->seen[p] = 1;
		t->last_seen[p] = now;
	}
	/* A condition stays while it was last seen less than a period ago,
	 * so a signal hovering at its threshold does not flap. */
	for (int p = 0; p < NL_PRESSURE_COUNT; p++)
		out[p] = t->seen[p] && now - t->last_seen[p] < period;
}
