/* status.addresses, as kubelet 1.32 works them out without a cloud
 * provider: --node-ip (ParseNodeIPArgument, validateNodeIP), the hostname
 * (GetHostname), and the NodeAddress setter, whose last resort is the
 * address of a default route's interface (apimachinery's
 * ResolveBindAddress). Everything reads an nl_host_info view, which
 * nl_host_info_probe_network fills from this machine, so tests and
 * scenarios can give their own. kubelet's DNS lookup of the node name is
 * left out on purpose: no DNS wait on a device that may have none. */
#include <arpa/inet.h>
#include <ctype.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <nodelet/agent.h>
#include <nodelet/log.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- IPs as Go's net package sees them ------------------------------------------ */

typedef struct {
	int family; /* AF_INET or AF_INET6 */
	unsigned char b[16];
} ip_addr;

/* IPv4 with leading zeros allowed, as netutils.ParseIPSloppy reads it
 * ("010.1.1.1" is 10.1.1.1, not octal). */
static int parse_ipv4_sloppy(unsigned char out[4], const char *s)
{
	for (int i = 0; i < 4; i++) {
		unsigned v = 0;
		int digits = 0;
		while (isdigit((unsigned char)*s)) {
			v = v * 10 + (unsigned)(*s++ - '0');
			if (++digits > 3 || v > 255)
				return -1;
		}
		if (digits == 0 || (i < 3 && *s++ != '.'))
			return -1;
		out[i] = (unsigned char)v;
	}
	return *s ? -1 : 0;
}

static const unsigned char v4_mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

/* An IPv4-mapped IPv6 address is IPv4 to Go (To4() != nil). */
static int parse_ip(ip_addr *out, const char *s)
{
	memset(out, 0, sizeof(*out));
	if (parse_ipv4_sloppy(out->b, s) == 0) {
		out->family = AF_INET;
		return 0;
	}
	if (!strchr(s, ':') || inet_pton(AF_INET6, s, out->b) != 1)
		return -1;
	out->family = AF_INET6;
	if (memcmp(out->b, v4_mapped, 12) == 0) {
		memmove(out->b, out->b + 12, 4);
		memset(out->b + 4, 0, 12);
		out->family = AF_INET;
	}
	return 0;
}

static void ip_text(char out[48], const ip_addr *ip)
{
	if (!inet_ntop(ip->family, ip->b, out, 48))
		out[0] = '\0';
}

static int is_unspecified(const ip_addr *ip)
{
	static const unsigned char zero[16] = {0};
	return memcmp(ip->b, zero, ip->family == AF_INET ? 4 : 16) == 0;
}

static int is_loopback(const ip_addr *ip)
{
	static const unsigned char one[16] = {[15] = 1};
	return ip->family == AF_INET ? ip->b[0] == 127 : memcmp(ip->b, one, 16) == 0;
}

static int is_multicast(const ip_addr *ip)
{
	return ip->family == AF_INET ? (ip->b[0] & 0xf0) == 0xe0 : ip->b[0] == 0xff;
}

static int is_link_local_unicast(const ip_addr *ip)
{
	return ip->family == AF_INET ? ip->b[0] == 169 && ip->b[1] == 254
	                             : ip->b[0] == 0xfe && (ip->b[1] & 0xc0) == 0x80;
}

/* Go's IP.IsGlobalUnicast: what getIPFromInterface accepts. */
static int is_global_unicast(const ip_addr *ip)
{
	static const unsigned char bcast[4] = {255, 255, 255, 255};
	if (ip->family == AF_INET && memcmp(ip->b, bcast, 4) == 0)
		return 0;
	return !is_unspecified(ip) && !is_loopback(ip) && !is_multicast(ip) &&
	       !is_link_local_unicast(ip);
}

/* --- --node-ip ------------------------------------------------------------------ */

int nl_node_ips_parse(nl_node_ips *out, const char *arg, nl_err *err)
{
	nl_node_ips r;
	ip_addr ips[3];
	size_t n = 0;
	memset(&r, 0, sizeof(r));
	/* An empty value is no entry at all, not one bad one. */
	for (const char *p = arg ? arg : ""; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char entry[256];
		ip_addr ip;
		while (len > 0 && isspace((unsigned char)*p))
			p++, len--;
		while (len > 0 && isspace((unsigned char)p[len - 1]))
			len--;
		snprintf(entry, sizeof(entry), "%.*s", (int)(len < 255 ? len : 255), p);
		if (len >= sizeof(entry) || parse_ip(&ip, entry) != 0)
			NL_LOG_INFO("Could not parse node IP. Ignoring", NL_KV_STR("IP", entry));
		else if (n < 3)
			ips[n++] = ip;
		if (!comma)
			break;
		p = comma + 1;
	}
	if (n > 2 || (n == 2 && ips[0].family == ips[1].family))
		return nl_err_set(err, NL_EINVAL,
		                  "must contain either a single IP or a dual-stack pair of IPs");
	if (n == 2 && (is_unspecified(&ips[0]) || is_unspecified(&ips[1])))
		return nl_err_set(err, NL_EINVAL,
		                  "dual-stack node IP cannot include '0.0.0.0' or '::'");
	for (size_t i = 0; i < n; i++)
		ip_text(r.ip[i], &ips[i]);
	r.n = n;
	*out = r;
	return 0;
}

static int host_has(const nl_host_info *host, const ip_addr *ip)
{
	for (size_t i = 0; i < host->n_addrs; i++) {
		ip_addr a;
		if (parse_ip(&a, host->addrs[i].ip) == 0 && a.family == ip->family &&
		    memcmp(a.b, ip->b, 16) == 0)
			return 1;
	}
	return 0;
}

int nl_node_ip_validate(const char *text, const nl_host_info *host, nl_err *err)
{
	ip_addr ip;
	char canon[48];
	if (!text || parse_ip(&ip, text) != 0)
		return nl_err_set(err, NL_EINVAL, "nodeIP must be a valid IP address");
	if (is_loopback(&ip))
		return nl_err_set(err, NL_EINVAL, "nodeIP can't be loopback address");
	if (is_multicast(&ip))
		return nl_err_set(err, NL_EINVAL, "nodeIP can't be a multicast address");
	if (is_link_local_unicast(&ip))
		return nl_err_set(err, NL_EINVAL, "nodeIP can't be a link-local unicast address");
	if (is_unspecified(&ip))
		return nl_err_set(err, NL_EINVAL, "nodeIP can't be an all zeros address");
	if (host_has(host, &ip))
		return 0;
	ip_text(canon, &ip);
	return nl_err_set(err, NL_EINVAL,
	                  "node IP: \"%s\" not found in the host's network interfaces", canon);
}

/* --- the hostname ----------------------------------------------------------------- */

int nl_node_hostname(char *out, size_t outlen, const char *override, const char *system,
                     nl_err *err)
{
	const char *h = override && *override ? override : system ? system : "";
	size_t len = strlen(h);
	while (len > 0 && isspace((unsigned char)*h))
		h++, len--;
	while (len > 0 && isspace((unsigned char)h[len - 1]))
		len--;
	if (len == 0)
		return nl_err_set(err, NL_EINVAL, "empty hostname is invalid");
	if (len >= outlen)
		return nl_err_set(err, NL_EINVAL, "hostname is longer than %zu bytes", outlen - 1);
	for (size_t i = 0; i < len; i++)
		out[i] = (char)tolower((unsigned char)h[i]);
	out[len] = '\0';
	return 0;
}

/* --- the NodeAddress setter -------------------------------------------------------- */

/* The first global address of the given family on ifname, when it is up
 * (getIPFromInterface); with loopback set, on any up loopback interface
 * instead (getIPFromLoopbackInterface: the global address of an RFC 5549
 * host, whose other interfaces have only link-local ones). */
static const char *interface_ip(const nl_host_info *host, const char *ifname, int loopback,
                                int family)
{
	for (size_t i = 0; i < host->n_addrs; i++) {
		const nl_host_addr *a = &host->addrs[i];
		ip_addr ip;
		if (!a->up || (loopback ? !a->loopback : strcmp(a->ifname, ifname) != 0) ||
		    parse_ip(&ip, a->ip) != 0 || ip.family != family || !is_global_unicast(&ip))
			continue;
		return a->ip;
	}
	return NULL;
}

/* chooseHostInterfaceFromRoute: each default route of the preferred family
 * in order, then the other family's. */
static const char *default_route_ip(const nl_host_info *host, int prefer_v6)
{
	const int families[2] = {prefer_v6 ? AF_INET6 : AF_INET, prefer_v6 ? AF_INET : AF_INET6};
	for (int f = 0; f < 2; f++) {
		for (size_t i = 0; i < host->n_routes; i++) {
			const nl_host_route *r = &host->routes[i];
			const char *ip;
			if (r->family != families[f])
				continue;
			if ((ip = interface_ip(host, r->ifname, 0, r->family)) ||
			    (ip = interface_ip(host, NULL, 1, r->family)))
				return ip;
		}
	}
	return NULL;
}

static int append(json_object *list, const char *type, const char *address)
{
	json_object *o = json_object_new_object(), *t = json_object_new_string(type),
	            *v = json_object_new_string(address);
	if (!o || !t || !v || json_object_object_add(o, "type", t) != 0) {
		json_object_put(o);
		json_object_put(t);
		json_object_put(v);
		return NL_ENOMEM;
	}
	if (json_object_object_add(o, "address", v) != 0 || json_object_array_add(list, o) != 0) {
		json_object_put(o);
		return NL_ENOMEM;
	}
	return 0;
}

/* Which --node-ip entries are "specified": given and not 0.0.0.0 or ::. */
static int specified(const nl_node_ips *ips, size_t i, ip_addr *out)
{
	return ips && i < ips->n && parse_ip(out, ips->ip[i]) == 0 && !is_unspecified(out);
}

int nl_node_addresses(json_object **out, const nl_node_ips *ips, const char *hostname,
                      const char *node_name, const nl_host_info *host, nl_err *err)
{
	ip_addr first, second, h;
	int has_first = specified(ips, 0, &first), has_second = specified(ips, 1, &second);
	int prefer_v6 = ips && ips->n > 0 && parse_ip(&h, ips->ip[0]) == 0 && h.family == AF_INET6;
	nl_err why = {0};
	char hostname_ip[48];
	const char *internal[2] = {NULL, NULL};
	if (has_first && nl_node_ip_validate(ips->ip[0], host, &why) != 0)
		return nl_err_set(err, NL_EINVAL, "failed to validate nodeIP: %s", why.msg);
	if (has_second && nl_node_ip_validate(ips->ip[1], host, &why) != 0)
		return nl_err_set(err, NL_EINVAL, "failed to validate secondaryNodeIP: %s",
		                  why.msg);
	if (has_first && has_second) {
		internal[0] = ips->ip[0];
		internal[1] = ips->ip[1];
	} else if (has_first) {
		internal[0] = ips->ip[0];
	} else if (parse_ip(&h, hostname) == 0) {
		ip_text(hostname_ip, &h);
		internal[0] = hostname_ip;
	} else if (!(internal[0] = default_route_ip(host, prefer_v6))) {
		return nl_err_set(err, NL_ENOTFOUND,
		                  "can't get ip address of node %s. error: unable to select an IP "
		                  "from default routes.",
		                  node_name);
	}
	json_object *list = json_object_new_array();
	int rc = list ? 0 : NL_ENOMEM;
	for (int i = 0; rc == 0 && i < 2 && internal[i]; i++)
		rc = append(list, "InternalIP", internal[i]);
	if (rc == 0)
		rc = append(list, "Hostname", hostname);
	if (rc != 0) {
		json_object_put(list);
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	}
	*out = list;
	return 0;
}

/* --- reading this machine ------------------------------------------------------------ */

/* IPv4 default routes from /proc/net/route: destination 0, up. */
static void read_v4_routes(nl_host_info *host)
{
	char line[256], name[IF_NAMESIZE];
	unsigned long dest, gw, flags;
	FILE *f = fopen("/proc/net/route", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && host->n_routes < NL_HOST_MAX_ROUTES) {
		if (sscanf(line, "%15s %lx %lx %lx", name, &dest, &gw, &flags) != 4)
			continue; /* the header */
		if (dest != 0 || !(flags & 0x1 /* RTF_UP */))
			continue;
		nl_host_route *r = &host->routes[host->n_routes++];
		snprintf(r->ifname, sizeof(r->ifname), "%s", name);
		r->family = AF_INET;
	}
	fclose(f);
}

/* IPv6 default routes from /proc/net/ipv6_route: ::/0, up, not a reject
 * route (the kernel lists an unreachable ::/0 on lo when there is none). */
static void read_v6_routes(nl_host_info *host)
{
	char line[512], dest[33], plen[3], name[IF_NAMESIZE];
	unsigned long flags;
	FILE *f = fopen("/proc/net/ipv6_route", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && host->n_routes < NL_HOST_MAX_ROUTES) {
		if (sscanf(line, "%32s %2s %*s %*s %*s %*s %*s %*s %lx %15s", dest, plen, &flags,
		           name) != 4)
			continue;
		if (strcmp(dest, "00000000000000000000000000000000") != 0 ||
		    strcmp(plen, "00") != 0 || !(flags & 0x1 /* RTF_UP */) ||
		    (flags & 0x200 /* RTF_REJECT */))
			continue;
		nl_host_route *r = &host->routes[host->n_routes++];
		snprintf(r->ifname, sizeof(r->ifname), "%s", name);
		r->family = AF_INET6;
	}
	fclose(f);
}

void nl_host_info_probe_network(nl_host_info *host)
{
	struct ifaddrs *ifs = NULL;
	host->n_addrs = host->n_routes = 0;
	read_v4_routes(host);
	read_v6_routes(host);
	if (getifaddrs(&ifs) != 0)
		return;
	for (struct ifaddrs *i = ifs; i && host->n_addrs < NL_HOST_MAX_ADDRS; i = i->ifa_next) {
		if (!i->ifa_addr ||
		    (i->ifa_addr->sa_family != AF_INET && i->ifa_addr->sa_family != AF_INET6))
			continue;
		nl_host_addr *a = &host->addrs[host->n_addrs];
		const void *bytes =
		    i->ifa_addr->sa_family == AF_INET
		        ? (const void *)&((const struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr
		        : (const void *)&((const struct sockaddr_in6 *)(void *)i->ifa_addr)
		              ->sin6_addr;
		if (!inet_ntop(i->ifa_addr->sa_family, bytes, a->ip, sizeof(a->ip)))
			continue;
		snprintf(a->ifname, sizeof(a->ifname), "%s", i->ifa_name);
		a->family = i->ifa_addr->sa_family;
		a->up = (i->ifa_flags & IFF_UP) != 0;
		a->loopback = (i->ifa_flags & IFF_LOOPBACK) != 0;
		host->n_addrs++;
	}
	freeifaddrs(ifs);
}
