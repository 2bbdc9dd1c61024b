/* What a node reports about its host, read the cheap way: small files under
 * /etc, /proc and /sys, uname, sysconf; the network view for the addresses
 * is node_addresses.c's. */
#include <ctype.h>
#include <nodelet/agent.h>
#include <nodelet/platform.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* Go's GOOS/GOARCH spelling, as status.nodeInfo and the kubernetes.io/os
 * and /arch labels have it (the client's User-Agent uses the same). */

/* The first line of a small file, whitespace-trimmed; "" when unreadable. */
static void read_line(char *out, size_t outlen, const char *path)
{
	FILE *f = fopen(path, "r");
	out[0] = '\0';
	if (!f)
		return;
	if (fgets(out, (int)outlen, f)) {
		size_t n = strlen(out);
		while (n > 0 && isspace((unsigned char)out[n - 1]))
			out[--n] = '\0';
	}
	fclose(f);
}

/* An os-release value: shell-style, optionally quoted, with \-escapes. */
static void unquote(char *out, size_t outlen, const char *v)
{
	char quote = (*v == '"' || *v == '\'') ? *v++ : '\0';
	size_t n = 0;
	for (; *v && *v != '\n' && n + 1 < outlen; v++) {
		if (quote && *v == quote)
			break;
		if (*v == '\\' && quote != '\'' && v[1])
			v++;
		out[n++] = *v;
	}
	out[n] = '\0';
}

int nl_host_info_os_release(char *out, size_t outlen, const char *path)
{
	char line[512];
	int rc = NL_ENOTFOUND;
	FILE *f = fopen(path, "r");
	if (!f)
		return NL_EIO;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "PRETTY_NAME=", 12) == 0) {
			unquote(out, outlen, line + 12);
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}

void nl_host_info_probe(nl_host_info *out)
{
	struct utsname u;
	memset(out, 0, sizeof(*out));
	read_line(out->machine_id, sizeof(out->machine_id), "/etc/machine-id");
	if (!out->machine_id[0]) /* cAdvisor's fallback */
		read_line(out->machine_id, sizeof(out->machine_id), "/var/lib/dbus/machine-id");
	read_line(out->system_uuid, sizeof(out->system_uuid), "/sys/class/dmi/id/product_uuid");
	read_line(out->boot_id, sizeof(out->boot_id), "/proc/sys/kernel/random/boot_id");
	if (uname(&u) == 0)
		snprintf(out->kernel_version, sizeof(out->kernel_version), "%s", u.release);
	if (nl_host_info_os_release(out->os_image, sizeof(out->os_image), "/etc/os-release") != 0 &&
	    nl_host_info_os_release(out->os_image, sizeof(out->os_image), "/usr/lib/os-release") !=
	        0)
		snprintf(out->os_image, sizeof(out->os_image), "Linux"); /* cAdvisor's default */
	snprintf(out->operating_system, sizeof(out->operating_system), "%s", nl_platform_os());
	snprintf(out->architecture, sizeof(out->architecture), "%s", nl_platform_arch());
	nl_host_info_probe_network(out);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN), pages = sysconf(_SC_PHYS_PAGES),
	     page = sysconf(_SC_PAGESIZE);
	out->cpus = cpus > 0 ? cpus : 0;
	out->memory_bytes = pages > 0 && page > 0 ? (int64_t)pages * page : 0;
}
