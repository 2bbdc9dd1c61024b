/* What a node reports about its host, read the cheap way: small files under
 * /etc, /proc and /sys, uname, sysconf, and the default route's interface
 * for the InternalIP (kubelet's last resort, ResolveBindAddress, without its
 * DNS lookup of the node name: no DNS wait on a device that may have none). */
#include <arpa/inet.h>
#include <ctype.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
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

/* The interface of the IPv4 default route (/proc/net/route: destination 0,
 * the lowest metric). */
static int default_route_interface(char ifname[IF_NAMESIZE])
{
	char line[256], name[IF_NAMESIZE];
	unsigned long dest, gw, flags, refcnt, use, metric, best = (unsigned long)-1;
	FILE *f = fopen("/proc/net/route", "r");
	int found = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%15s %lx %lx %lx %lu %lu %lu", name, &dest, &gw, &flags, &refcnt,
		           &use, &metric) != 7)
			continue; /* the header */
		if (dest != 0 || !(flags & 0x1 /* RTF_UP */) || metric >= best)
			continue;
		best = metric;
		memcpy(ifname, name, IF_NAMESIZE);
		found = 1;
	}
	fclose(f);
	return found;
}

/* kubelet's validateNodeIP rejects these for an InternalIP. */
static int usable_ipv4(const struct in_addr *a)
{
	uint32_t ip = ntohl(a->s_addr);
	return ip != 0 && (ip >> 24) != 127 && (ip >> 16) != 0xa9fe /* 169.254/16 */ &&
	       (ip >> 28) != 0xe /* multicast */;
}

static void internal_ip(char *out, size_t outlen)
{
	char ifname[IF_NAMESIZE];
	struct ifaddrs *ifs = NULL;
	out[0] = '\0';
	if (!default_route_interface(ifname) || getifaddrs(&ifs) != 0)
		return;
	for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
		    strcmp(i->ifa_name, ifname) != 0)
			continue;
		const struct in_addr *a =
		    &((const struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr;
		if (usable_ipv4(a) && inet_ntop(AF_INET, a, out, (socklen_t)outlen))
			break;
		out[0] = '\0';
	}
	freeifaddrs(ifs);
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
	internal_ip(out->internal_ip, sizeof(out->internal_ip));
	long cpus = sysconf(_SC_NPROCESSORS_ONLN), pages = sysconf(_SC_PHYS_PAGES),
	     page = sysconf(_SC_PAGESIZE);
	out->cpus = cpus > 0 ? cpus : 0;
	out->memory_bytes = pages > 0 && page > 0 ? (int64_t)pages * page : 0;
}
