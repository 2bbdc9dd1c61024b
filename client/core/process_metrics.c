/* process_* (nodelet/process_metrics.h): CPU time, memory, file
 * descriptors and start time of this process, read from /proc at each
 * scrape. Like procfs, USER_HZ is taken as 100 (what Linux reports to user
 * space on every architecture it runs on). */
#include <dirent.h>
#include <nodelet/errors.h>
#include <nodelet/process_metrics.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define USER_HZ 100.0

/* The whole of a small /proc file into buf; -1 when unreadable. */
static int slurp(char *buf, size_t cap, const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, cap - 1, f);
	fclose(f);
	buf[n] = '\0';
	return 0;
}

/* /proc/<pid>/stat: the fields after "(comm)", which may hold spaces and
 * parentheses, so read from the last ')'. */
static int read_stat(nl_process_stats *s, const char *dir, double btime)
{
	char path[512], buf[2048];
	snprintf(path, sizeof(path), "%s/stat", dir);
	if (slurp(buf, sizeof(buf), path) != 0)
		return NL_EIO;
	const char *p = strrchr(buf, ')');
	unsigned long long utime, stime, start, vsize;
	long long rss;
	/* state ppid pgrp session tty tpgid flags minflt cminflt majflt
	 * cmajflt utime stime cutime cstime priority nice threads itreal
	 * starttime vsize rss */
	if (!p || sscanf(p + 1,
	                 " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d "
	                 "%*d %*d %llu %llu %lld",
	                 &utime, &stime, &start, &vsize, &rss) != 5)
		return NL_EPARSE;
	s->cpu_seconds = (double)(utime + stime) / USER_HZ;
	s->start_time = btime + (double)start / USER_HZ;
	s->virtual_bytes = (double)vsize;
	s->resident_bytes = (double)rss * (double)sysconf(_SC_PAGESIZE);
	return 0;
}

static int read_btime(double *out, const char *stat_path)
{
	char buf[16384];
	if (slurp(buf, sizeof(buf), stat_path) != 0)
		return NL_EIO;
	const char *p = strstr(buf, "\nbtime ");
	unsigned long long v;
	if (!p || sscanf(p + 7, "%llu", &v) != 1)
		return NL_EPARSE;
	*out = (double)v;
	return 0;
}

static int count_fds(double *out, const char *dir)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/fd", dir);
	DIR *d = opendir(path);
	if (!d)
		return NL_EIO;
	unsigned long n = 0;
	const struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	*out = (double)n;
	return 0;
}

/* "Max open files            1024                 1048576              files" */
static int read_max_fds(double *out, const char *dir)
{
	char path[512], buf[4096], soft[32];
	snprintf(path, sizeof(path), "%s/limits", dir);
	if (slurp(buf, sizeof(buf), path) != 0)
		return NL_EIO;
	const char *p = strstr(buf, "Max open files");
	if (!p || sscanf(p + strlen("Max open files"), " %31s", soft) != 1)
		return NL_EPARSE;
	/* procfs reads "unlimited" as the largest uint64. */
	*out = strcmp(soft, "unlimited") == 0 ? 18446744073709551615.0 : strtod(soft, NULL);
	return 0;
}

int nl_process_stats_read(nl_process_stats *out, const char *dir, const char *stat_path)
{
	nl_process_stats s;
	double btime = 0;
	int rc = read_btime(&btime, stat_path);
	if (rc == 0)
		rc = read_stat(&s, dir, btime);
	if (rc == 0)
		rc = count_fds(&s.open_fds, dir);
	if (rc == 0)
		rc = read_max_fds(&s.max_fds, dir);
	if (rc == 0)
		*out = s;
	return rc;
}

int nl_process_metrics_render(nl_buf *out, const nl_process_stats *s)
{
	/* client_golang's names and help texts, sorted by name as it gathers. */
	return nl_buf_printf(
	    out,
	    "# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n"
	    "# TYPE process_cpu_seconds_total counter\n"
	    "process_cpu_seconds_total %.15g\n"
	    "# HELP process_max_fds Maximum number of open file descriptors.\n"
	    "# TYPE process_max_fds gauge\n"
	    "process_max_fds %.15g\n"
	    "# HELP process_open_fds Number of open file descriptors.\n"
	    "# TYPE process_open_fds gauge\n"
	    "process_open_fds %.15g\n"
	    "# HELP process_resident_memory_bytes Resident memory size in bytes.\n"
	    "# TYPE process_resident_memory_bytes gauge\n"
	    "process_resident_memory_bytes %.15g\n"
	    "# HELP process_start_time_seconds Start time of the process since unix epoch in "
	    "seconds.\n"
	    "# TYPE process_start_time_seconds gauge\n"
	    "process_start_time_seconds %.15g\n"
	    "# HELP process_virtual_memory_bytes Virtual memory size in bytes.\n"
	    "# TYPE process_virtual_memory_bytes gauge\n"
	    "process_virtual_memory_bytes %.15g\n",
	    s->cpu_seconds, s->max_fds, s->open_fds, s->resident_bytes, s->start_time,
	    s->virtual_bytes);
}

int nl_process_metrics_render_self(nl_buf *out)
{
	nl_process_stats ps;
	/* Without a readable /proc (not Linux, a sandbox) there are no
	 * process_* metrics. */
	if (nl_process_stats_read(&ps, "/proc/self", "/proc/stat") != 0)
		return 0;
	return nl_process_metrics_render(out, &ps);
}
