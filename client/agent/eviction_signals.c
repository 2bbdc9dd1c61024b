/* The eviction signals, read the cheap way at each status sync: a few small
 * files under /proc and /sys/fs/cgroup into a stack buffer (no allocation)
 * and one statvfs per filesystem. What kubelet gets from cAdvisor's root
 * container and pidlimit.Stats, computed the same way. */
#include <nodelet/node_conditions.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/sysinfo.h>
#include <unistd.h>

/* memory.stat is about 1.5 KiB, meminfo a little more. */
#define FILE_MAX 8192

/* root + path into a stack buffer, NUL-terminated; -1 when unreadable. */
static ssize_t read_small(char *buf, size_t len, const nl_host_view *v, const char *path)
{
	char full[4096];
	const char *root = v && v->root ? v->root : "";
	if ((size_t)snprintf(full, sizeof(full), "%s%s", root, path) >= sizeof(full))
		return -1;
	int fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t got = 0;
	while (got + 1 < len) {
		ssize_t n = read(fd, buf + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	return (ssize_t)got;
}

/* The value after "key" at a line start ("key 123" or "key:  123 kB"). */
static int field(uint64_t *out, const char *text, const char *key)
{
	size_t klen = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, klen) != 0 || (p[klen] != ' ' && p[klen] != ':'))
			continue;
		char *end;
		const char *q = p + klen + (p[klen] == ':');
		errno = 0;
		unsigned long long x = strtoull(q, &end, 10);
		if (end == q || errno)
			return 0;
		*out = x;
		return 1;
	}
	return 0;
}

static int read_u64(uint64_t *out, const nl_host_view *v, const char *path)
{
	char buf[64], *end;
	if (read_small(buf, sizeof(buf), v, path) <= 0)
		return 0;
	errno = 0;
	unsigned long long x = strtoull(buf, &end, 10);
	if (end == buf || errno || (*end && *end != '\n'))
		return 0;
	*out = x;
	return 1;
}

/* The cgroup's working set: usage minus inactive_file (cAdvisor's
 * setMemoryStats), 0 when it has none. */
static int cgroup_working_set(uint64_t *out, const nl_host_view *v)
{
	char stat[FILE_MAX];
	uint64_t usage = 0, inactive = 0, anon, file;
	if (read_small(stat, sizeof(stat), v, "/sys/fs/cgroup/memory.stat") > 0) {
		/* v2: the root cgroup has no memory.current; runc counts
		 * anon + file there, as v1's usage_in_bytes would. */
		if (!read_u64(&usage, v, "/sys/fs/cgroup/memory.current")) {
			if (!field(&anon, stat, "anon") || !field(&file, stat, "file"))
				return 0;
			usage = anon + file;
		}
		field(&inactive, stat, "inactive_file");
	} else if (read_small(stat, sizeof(stat), v, "/sys/fs/cgroup/memory/memory.stat") > 0 &&
	           read_u64(&usage, v, "/sys/fs/cgroup/memory/memory.usage_in_bytes")) {
		field(&inactive, stat, "total_inactive_file");
	} else {
		return 0;
	}
	*out = usage > inactive ? usage - inactive : 0;
	return 1;
}

void nl_eviction_probe_memory(nl_signal_observation *out, const nl_host_view *v)
{
	char info[FILE_MAX];
	uint64_t total, ws = 0;
	memset(out, 0, sizeof(*out));
	if (read_small(info, sizeof(info), v, "/proc/meminfo") <= 0 ||
	    !field(&total, info, "MemTotal"))
		return;
	total *= 1024;
	if (!cgroup_working_set(&ws, v)) {
		/* The pages anon + file − inactive_file counts, from the LRU
		 * lists: anon and shmem sit on the anon lists, the rest of the
		 * page cache on the file lists. */
		uint64_t aa = 0, ia = 0, af = 0;
		field(&aa, info, "Active(anon)");
		field(&ia, info, "Inactive(anon)");
		field(&af, info, "Active(file)");
		ws = (aa + ia + af) * 1024;
	}
	out->observed = 1;
	out->capacity = (int64_t)total;
	out->available = (int64_t)total - (int64_t)ws;
}

/* "1.36 3.49 4.53 2/3518 3715089": 3518 tasks. */
static int loadavg_tasks(uint64_t *out, const nl_host_view *v)
{
	char buf[256];
	unsigned long long running, total;
	if (read_small(buf, sizeof(buf), v, "/proc/loadavg") <= 0 ||
	    sscanf(buf, "%*s %*s %*s %llu/%llu", &running, &total) != 2)
		return 0;
	*out = total;
	return 1;
}

void nl_eviction_probe_pids(nl_signal_observation *out, const nl_host_view *v)
{
	uint64_t pid_max = 0, threads_max = 0, tasks = 0;
	int has_pid = read_u64(&pid_max, v, "/proc/sys/kernel/pid_max");
	int has_threads = read_u64(&threads_max, v, "/proc/sys/kernel/threads-max");
	memset(out, 0, sizeof(*out));
	if (!has_pid && !has_threads)
		return;
	uint64_t max = !has_pid                               ? threads_max
	               : has_threads && threads_max < pid_max ? threads_max
	                                                      : pid_max;
	if (!loadavg_tasks(&tasks, v)) {
		struct sysinfo si;
		if ((v && v->root && *v->root) || sysinfo(&si) != 0)
			return;
		tasks = si.procs;
	}
	out->observed = 1;
	out->capacity = (int64_t)max;
	out->available = (int64_t)max - (int64_t)tasks;
}

static int real_statfs(nl_fs_stats *out, const char *path, void *payload)
{
	struct statvfs s;
	(void)payload;
	if (statvfs(path, &s) != 0)
		return errno;
	out->capacity_bytes = (uint64_t)s.f_blocks * s.f_frsize;
	out->available_bytes = (uint64_t)s.f_bavail * s.f_frsize;
	out->inodes = s.f_files;
	out->inodes_free = s.f_ffree;
	out->fsid = s.f_fsid;
	return 0;
}

void nl_eviction_probe(nl_eviction_observations *out, nl_fs_stats *first_fs, const nl_host_view *v,
                       const char *const *paths, size_t n_paths)
{
	uint64_t seen[NL_EVICTION_MAX_FS];
	memset(out, 0, sizeof(*out));
	memset(first_fs, 0, sizeof(*first_fs));
	nl_eviction_probe_memory(&out->memory, v);
	nl_eviction_probe_pids(&out->pid, v);
	for (size_t i = 0; i < n_paths; i++) {
		nl_fs_stats fs = {0};
		int rc = v && v->statfs ? v->statfs(&fs, paths[i], v->payload)
		                        : real_statfs(&fs, paths[i], NULL);
		if (rc != 0)
			continue;
		if (i == 0)
			*first_fs = fs;
		size_t j = 0;
		while (j < out->n_fs && seen[j] != fs.fsid)
			j++;
		if (j < out->n_fs || out->n_fs == NL_EVICTION_MAX_FS)
			continue;
		seen[out->n_fs] = fs.fsid;
		out->fs_bytes[out->n_fs] = (nl_signal_observation){1, (int64_t)fs.available_bytes,
		                                                   (int64_t)fs.capacity_bytes};
		/* Inodes: a filesystem without a fixed count reports 0 and
		 * has no inode pressure. */
		out->fs_inodes[out->n_fs] = (nl_signal_observation){
		    fs.inodes > 0, (int64_t)fs.inodes_free, (int64_t)fs.inodes};
		out->n_fs++;
	}
}
