/* Node conditions: kubelet's threshold parsing, the signals read from a
 * fake host (files under a temp dir, a statvfs hook), thresholds met, and
 * the transition period on virtual time. */
#include <nodelet/eviction.h>
#include <nodelet/node_conditions.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../cu_main.h"

#define MIB (INT64_C(1) << 20)
#define SEC INT64_C(1000000)

/* --- a fake host ------------------------------------------------------------- */

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[256], dir[256];
	snprintf(path, sizeof(path), "%s%s", root, rel);
	/* mkdir -p of the parent */
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(dir, 0755);
		*p = '/';
	}
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}

static void drop(const char *rel)
{
	char path[256];
	snprintf(path, sizeof(path), "%s%s", root, rel);
	unlink(path);
}

static int fake_root_init(void)
{
	snprintf(root, sizeof(root), "/tmp/nl-host-XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int fake_root_clean(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

#define MEMINFO(total_kb, aa, ia, af)                                                          \
	"MemTotal:       " #total_kb " kB\nMemFree:          100000 kB\n"                      \
	"Active(anon):   " #aa " kB\nInactive(anon): " #ia " kB\nActive(file):   " #af " kB\n" \
	"Inactive(file): 999999 kB\n"

typedef struct {
	nl_fs_stats fs[3]; /* "/", "/state", "/other" */
	int fail;          /* errno for every path */
	int not_writable;  /* errno for writable() */
} fake_fs;

static int fake_statfs(nl_fs_stats *out, const char *path, void *payload)
{
	fake_fs *f = payload;
	if (f->fail)
		return f->fail;
	*out = strcmp(path, "/") == 0        ? f->fs[0]
	       : strcmp(path, "/state") == 0 ? f->fs[1]
	                                     : f->fs[2];
	return 0;
}

static nl_host_view view_of(fake_fs *f)
{
	nl_host_view v = {root, fake_statfs, NULL, f};
	return v;
}

/* --- thresholds ---------------------------------------------------------------- */

static void test_node_conditions__quantities_as_kubernetes_reads_them(void)
{
	int64_t v;
	CU_ASSERT_EQUAL(nl_quantity_parse(&v, "100Mi"), 0);
	CU_ASSERT_EQUAL(v, 100 * MIB);
	CU_ASSERT_EQUAL(nl_quantity_parse(&v, "1.5Gi"), 0);
	CU_ASSERT_EQUAL(v, INT64_C(3) << 29);
	CU_ASSERT_EQUAL(nl_quantity_parse(&v, "1k"), 0);
	CU_ASSERT_EQUAL(v, 1000);
	CU_ASSERT_EQUAL(nl_quantity_parse(&v, "2e3"), 0);
	CU_ASSERT_EQUAL(v, 2000);
	CU_ASSERT_EQUAL(nl_quantity_parse(&v, "1000"), 0);
	CU_ASSERT_EQUAL(v, 1000);
	/* Value() rounds up: 100m is 1. */
	CU_ASSERT_EQUAL(nl_quantity_parse(&v, "100m"), 0);
	CU_ASSERT_EQUAL(v, 1);
	CU_ASSERT_EQUAL(nl_quantity_parse(&v, "-1Ki"), 0);
	CU_ASSERT_EQUAL(v, -1024);
	CU_ASSERT_EQUAL(nl_quantity_parse(&v, ""), NL_EINVALID);
	CU_ASSERT_EQUAL(nl_quantity_parse(&v, "abc"), NL_EINVALID);
	CU_ASSERT_EQUAL(nl_quantity_parse(&v, "10 Mi"), NL_EINVALID);
	CU_ASSERT_EQUAL(nl_quantity_parse(&v, "1.2.3"), NL_EINVALID);
	CU_ASSERT_EQUAL(nl_quantity_parse(&v, "5Xi"), NL_EINVALID);
	CU_ASSERT_EQUAL(nl_quantity_parse(&v, "9Ei"), NL_EINVALID);
}

static void test_node_conditions__threshold_parse_kubelet_rules(void)
{
	nl_eviction_threshold t;
	nl_err err = {0};
	CU_ASSERT_EQUAL(nl_eviction_threshold_parse(&t, "memory.available", "100Mi", &err), 0);
	CU_ASSERT_EQUAL(t.signal, NL_SIGNAL_MEMORY_AVAILABLE);
	CU_ASSERT_FALSE(t.is_percent);
	CU_ASSERT_EQUAL(t.quantity, 100 * MIB);
	CU_ASSERT_EQUAL(nl_eviction_threshold_parse(&t, "nodefs.available", "10%", &err), 0);
	CU_ASSERT(t.is_percent);
	CU_ASSERT_DOUBLE_EQUAL(t.percent, 0.10, 1e-6);
	/* 0% and 100% switch the signal off. */
	CU_ASSERT_EQUAL(nl_eviction_threshold_parse(&t, "imagefs.available", "0%", &err), 1);
	CU_ASSERT_EQUAL(nl_eviction_threshold_parse(&t, "imagefs.available", "100%", &err), 1);
	CU_ASSERT_EQUAL(nl_eviction_threshold_parse(&t, "pid.available", "10", &err), 0);
	CU_ASSERT_EQUAL(nl_eviction_signal_pressure(t.signal), NL_PRESSURE_PID);

	CU_ASSERT_EQUAL(nl_eviction_threshold_parse(&t, "memory.free", "1Mi", &err), NL_EINVALID);
	CU_ASSERT_STRING_EQUAL(err.msg, "unsupported eviction signal memory.free");
	CU_ASSERT_EQUAL(nl_eviction_threshold_parse(&t, "nodefs.available", "110%", &err),
	                NL_EINVALID);
	CU_ASSERT_STRING_EQUAL(
	    err.msg, "eviction percentage threshold nodefs.available must be <= 100%: 110%");
	CU_ASSERT_EQUAL(nl_eviction_threshold_parse(&t, "nodefs.available", "-5%", &err),
	                NL_EINVALID);
	CU_ASSERT_STRING_EQUAL(err.msg,
	                       "eviction percentage threshold nodefs.available must be >= 0%: -5%");
	CU_ASSERT_EQUAL(nl_eviction_threshold_parse(&t, "memory.available", "0", &err),
	                NL_EINVALID);
	CU_ASSERT_STRING_EQUAL(err.msg, "eviction threshold memory.available must be positive: 0");
	CU_ASSERT_EQUAL(nl_eviction_threshold_parse(&t, "memory.available", "lots", &err),
	                NL_EINVALID);
	CU_ASSERT(strstr(err.msg, "quantities must match the regular expression") != NULL);
	CU_ASSERT_EQUAL(nl_eviction_threshold_parse(&t, "memory.available", "x%", &err),
	                NL_EINVALID);
}

static void test_node_conditions__threshold_met_below_value(void)
{
	nl_eviction_observations obs = {0};
	nl_eviction_threshold mem = {NL_SIGNAL_MEMORY_AVAILABLE, 0, 0, 100 * MIB};
	nl_eviction_threshold disk = {NL_SIGNAL_NODEFS_AVAILABLE, 1, 0.10, 0};
	nl_eviction_threshold inodes = {NL_SIGNAL_IMAGEFS_INODES_FREE, 1, 0.05, 0};
	/* Nothing observed: never met. */
	CU_ASSERT_FALSE(nl_eviction_threshold_met(&mem, &obs));
	CU_ASSERT_FALSE(nl_eviction_threshold_met(&disk, &obs));
	obs.memory = (nl_signal_observation){1, 100 * MIB, 1024 * MIB};
	CU_ASSERT_FALSE(nl_eviction_threshold_met(&mem, &obs)); /* not below */
	obs.memory.available--;
	CU_ASSERT(nl_eviction_threshold_met(&mem, &obs));
	/* Disk: met on any filesystem; 10% of 1000 is 100. */
	obs.n_fs = 2;
	obs.fs_bytes[0] = (nl_signal_observation){1, 500, 1000};
	obs.fs_bytes[1] = (nl_signal_observation){1, 100, 1000};
	CU_ASSERT_FALSE(nl_eviction_threshold_met(&disk, &obs));
	obs.fs_bytes[1].available = 99;
	CU_ASSERT(nl_eviction_threshold_met(&disk, &obs));
	/* imagefs is nodefs here: its inode threshold reads the same rows. */
	obs.fs_inodes[0] = (nl_signal_observation){1, 50, 1000};
	CU_ASSERT_FALSE(nl_eviction_threshold_met(&inodes, &obs));
	obs.fs_inodes[0].available = 49;
	CU_ASSERT(nl_eviction_threshold_met(&inodes, &obs));
}

/* --- signals from a fake host ---------------------------------------------------- */

static void test_node_conditions__memory_from_cgroup_v2(void)
{
	nl_signal_observation o;
	fake_fs f = {0};
	nl_host_view v = view_of(&f);
	put("/proc/meminfo", MEMINFO(8388608, 1000, 1000, 1000)); /* 8 GiB */
	/* A cgroup (namespace) root with memory.current: usage − inactive_file. */
	put("/sys/fs/cgroup/memory.current", "3221225472\n"); /* 3 GiB */
	put("/sys/fs/cgroup/memory.stat", "anon 1073741824\nfile 2147483648\nkernel 1\n"
	                                  "active_file 1073741824\ninactive_file 1073741824\n");
	nl_eviction_probe_memory(&o, &v);
	CU_ASSERT(o.observed);
	CU_ASSERT_EQUAL(o.capacity, INT64_C(8) << 30);
	CU_ASSERT_EQUAL(o.available, (INT64_C(8) << 30) - (INT64_C(2) << 30));
	/* The true v2 root has no memory.current: anon + file is the usage. */
	drop("/sys/fs/cgroup/memory.current");
	put("/sys/fs/cgroup/memory.stat", "anon 536870912\nfile 1073741824\n"
	                                  "inactive_file 268435456\n");
	nl_eviction_probe_memory(&o, &v);
	CU_ASSERT_EQUAL(o.available, (INT64_C(8) << 30) - (INT64_C(1280) << 20));
	/* inactive_file above usage: a working set of 0, not negative. */
	put("/sys/fs/cgroup/memory.current", "100\n");
	nl_eviction_probe_memory(&o, &v);
	CU_ASSERT_EQUAL(o.available, INT64_C(8) << 30);
	drop("/sys/fs/cgroup/memory.current");
	drop("/sys/fs/cgroup/memory.stat");
}

static void test_node_conditions__memory_from_cgroup_v1_and_meminfo(void)
{
	nl_signal_observation o;
	fake_fs f = {0};
	nl_host_view v = view_of(&f);
	put("/proc/meminfo", MEMINFO(1048576, 100000, 20000, 30000)); /* 1 GiB */
	put("/sys/fs/cgroup/memory/memory.usage_in_bytes", "524288000\n");
	put("/sys/fs/cgroup/memory/memory.stat", "cache 1\ntotal_cache 2\n"
	                                         "total_inactive_file 104857600\n");
	nl_eviction_probe_memory(&o, &v);
	CU_ASSERT(o.observed);
	CU_ASSERT_EQUAL(o.available, (INT64_C(1) << 30) - (524288000 - 104857600));
	/* No cgroup filesystem: the LRU lists of meminfo. */
	drop("/sys/fs/cgroup/memory/memory.usage_in_bytes");
	drop("/sys/fs/cgroup/memory/memory.stat");
	nl_eviction_probe_memory(&o, &v);
	CU_ASSERT_EQUAL(o.available, (INT64_C(1) << 30) - INT64_C(150000) * 1024);
	/* No meminfo: not observed, so no threshold can be met. */
	drop("/proc/meminfo");
	nl_eviction_probe_memory(&o, &v);
	CU_ASSERT_FALSE(o.observed);
}

static void test_node_conditions__pids_from_proc(void)
{
	nl_signal_observation o;
	fake_fs f = {0};
	nl_host_view v = view_of(&f);
	put("/proc/sys/kernel/pid_max", "4194304\n");
	put("/proc/sys/kernel/threads-max", "63000\n");
	put("/proc/loadavg", "1.36 3.49 4.53 2/3518 3715089\n");
	nl_eviction_probe_pids(&o, &v);
	CU_ASSERT(o.observed);
	CU_ASSERT_EQUAL(o.capacity, 63000); /* the smaller limit */
	CU_ASSERT_EQUAL(o.available, 63000 - 3518);
	put("/proc/sys/kernel/threads-max", "garbage\n");
	nl_eviction_probe_pids(&o, &v);
	CU_ASSERT_EQUAL(o.capacity, 4194304);
	/* A fake host without loadavg: not observed (no sysinfo of the
	 * real machine mixed in). */
	drop("/proc/loadavg");
	nl_eviction_probe_pids(&o, &v);
	CU_ASSERT_FALSE(o.observed);
	drop("/proc/sys/kernel/pid_max");
	drop("/proc/sys/kernel/threads-max");
}

static void test_node_conditions__filesystems_counted_once(void)
{
	nl_eviction_observations obs;
	nl_fs_stats first;
	fake_fs f = {
	    .fs = {{1000, 400, 100, 90, 1}, {2000, 100, 0, 0, 2}, {1000, 400, 100, 90, 1}}};
	nl_host_view v = view_of(&f);
	const char *paths[] = {"/", "/state", "/other"};
	nl_eviction_probe(&obs, &first, &v, paths, 3);
	CU_ASSERT_EQUAL(first.capacity_bytes, 1000);
	CU_ASSERT_EQUAL(obs.n_fs, 2); /* "/other" is "/"'s filesystem */
	CU_ASSERT_EQUAL(obs.fs_bytes[1].available, 100);
	CU_ASSERT_EQUAL(obs.fs_bytes[1].capacity, 2000);
	CU_ASSERT(obs.fs_inodes[0].observed);
	CU_ASSERT_FALSE(obs.fs_inodes[1].observed); /* no inode count (btrfs) */
	f.fail = 2;
	nl_eviction_probe(&obs, &first, &v, paths, 3);
	CU_ASSERT_EQUAL(obs.n_fs, 0);
	CU_ASSERT_EQUAL(first.capacity_bytes, 0);
}

/* The real host through the default view: numbers that make sense. */
static void test_node_conditions__probe_reads_this_host(void)
{
	nl_eviction_observations obs;
	nl_fs_stats first;
	const char *paths[] = {"/"};
	nl_eviction_probe(&obs, &first, NULL, paths, 1);
	CU_ASSERT(obs.memory.observed);
	CU_ASSERT(obs.memory.capacity > 0 && obs.memory.available <= obs.memory.capacity);
	CU_ASSERT(obs.pid.observed);
	CU_ASSERT(obs.pid.available > 0 && obs.pid.available < obs.pid.capacity);
	CU_ASSERT_EQUAL(obs.n_fs, 1);
	CU_ASSERT(first.capacity_bytes > 0);
}

/* --- the transition period -------------------------------------------------------- */

static void test_node_conditions__pressure_holds_for_transition_period(void)
{
	nl_pressure_tracker t;
	memset(&t, 0, sizeof(t));
	int out[NL_PRESSURE_COUNT];
	nl_eviction_threshold th[] = {{NL_SIGNAL_MEMORY_AVAILABLE, 0, 0, 100 * MIB},
	                              {NL_SIGNAL_NODEFS_AVAILABLE, 1, 0.10, 0}};
	nl_eviction_observations obs = {
	    .memory = {1, 500 * MIB, 1024 * MIB}, .fs_bytes = {{1, 500, 1000}}, .n_fs = 1};
	const int64_t period = 300 * SEC;
	int64_t now = 1000 * SEC;
	nl_pressure_tracker_update(&t, out, th, 2, &obs, period, now);
	CU_ASSERT_FALSE(out[NL_PRESSURE_MEMORY] || out[NL_PRESSURE_DISK] || out[NL_PRESSURE_PID]);
	/* Memory under its threshold: True at once. */
	obs.memory.available = 50 * MIB;
	nl_pressure_tracker_update(&t, out, th, 2, &obs, period, now += 10 * SEC);
	CU_ASSERT(out[NL_PRESSURE_MEMORY]);
	CU_ASSERT_FALSE(out[NL_PRESSURE_DISK]);
	int64_t last = now;
	/* Fine again: still True until 5 minutes after it was last seen. */
	obs.memory.available = 900 * MIB;
	for (now += 10 * SEC; now < last + period; now += 10 * SEC) {
		nl_pressure_tracker_update(&t, out, th, 2, &obs, period, now);
		CU_ASSERT(out[NL_PRESSURE_MEMORY]);
	}
	nl_pressure_tracker_update(&t, out, th, 2, &obs, period, last + period);
	CU_ASSERT_FALSE(out[NL_PRESSURE_MEMORY]);
	/* Seen again during the window: the window restarts from then. */
	obs.fs_bytes[0].available = 10;
	nl_pressure_tracker_update(&t, out, th, 2, &obs, period, now = 5000 * SEC);
	obs.fs_bytes[0].available = 500;
	nl_pressure_tracker_update(&t, out, th, 2, &obs, period, now + 200 * SEC);
	CU_ASSERT(out[NL_PRESSURE_DISK]);
	obs.fs_bytes[0].available = 10;
	nl_pressure_tracker_update(&t, out, th, 2, &obs, period, now + 250 * SEC);
	obs.fs_bytes[0].available = 500;
	nl_pressure_tracker_update(&t, out, th, 2, &obs, period, now + 500 * SEC);
	CU_ASSERT(out[NL_PRESSURE_DISK]);
	nl_pressure_tracker_update(&t, out, th, 2, &obs, period, now + 550 * SEC);
	CU_ASSERT_FALSE(out[NL_PRESSURE_DISK]);
}

static void test_node_conditions__texts_are_kubelets(void)
{
	CU_ASSERT_STRING_EQUAL(nl_pressure_condition_type(NL_PRESSURE_MEMORY), "MemoryPressure");
	CU_ASSERT_STRING_EQUAL(nl_pressure_reason(NL_PRESSURE_MEMORY, 0),
	                       "KubeletHasSufficientMemory");
	CU_ASSERT_STRING_EQUAL(nl_pressure_message(NL_PRESSURE_MEMORY, 1),
	                       "kubelet has insufficient memory available");
	CU_ASSERT_STRING_EQUAL(nl_pressure_reason(NL_PRESSURE_DISK, 1), "KubeletHasDiskPressure");
	CU_ASSERT_STRING_EQUAL(nl_pressure_message(NL_PRESSURE_DISK, 0),
	                       "kubelet has no disk pressure");
	CU_ASSERT_STRING_EQUAL(nl_pressure_reason(NL_PRESSURE_PID, 0), "KubeletHasSufficientPID");
	CU_ASSERT_STRING_EQUAL(nl_pressure_message(NL_PRESSURE_PID, 1),
	                       "kubelet has insufficient PID available");
}

static CU_TestInfo tests[] = {
    {"quantities_as_kubernetes_reads_them",
     test_node_conditions__quantities_as_kubernetes_reads_them},
    {"threshold_parse_kubelet_rules", test_node_conditions__threshold_parse_kubelet_rules},
    {"threshold_met_below_value", test_node_conditions__threshold_met_below_value},
    {"memory_from_cgroup_v2", test_node_conditions__memory_from_cgroup_v2},
    {"memory_from_cgroup_v1_and_meminfo", test_node_conditions__memory_from_cgroup_v1_and_meminfo},
    {"pids_from_proc", test_node_conditions__pids_from_proc},
    {"filesystems_counted_once", test_node_conditions__filesystems_counted_once},
    {"probe_reads_this_host", test_node_conditions__probe_reads_this_host},
    {"pressure_holds_for_transition_period",
     test_node_conditions__pressure_holds_for_transition_period},
    {"texts_are_kubelets", test_node_conditions__texts_are_kubelets},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"node_conditions", fake_root_init, fake_root_clean, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
