/* status.addresses as kubelet 1.32 works them out without a cloud provider:
 * --node-ip parsing (ParseNodeIPArgument) and validation (validateNodeIP),
 * the hostname (GetHostname) and the NodeAddress setter's choice, all on a
 * made-up network view (documentation addresses, never this machine's). */
#include <nodelet/agent.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "../cu_main.h"

static void add_addr(nl_host_info *h, const char *ifname, const char *ip, int up, int loopback)
{
	nl_host_addr *a = &h->addrs[h->n_addrs++];
	snprintf(a->ifname, sizeof(a->ifname), "%s", ifname);
	snprintf(a->ip, sizeof(a->ip), "%s", ip);
	a->family = strchr(ip, ':') ? AF_INET6 : AF_INET;
	a->up = up;
	a->loopback = loopback;
}

static void add_route(nl_host_info *h, const char *ifname, int family)
{
	nl_host_route *r = &h->routes[h->n_routes++];
	snprintf(r->ifname, sizeof(r->ifname), "%s", ifname);
	r->family = family;
}

/* eth0 carries both default routes and an address of each family (plus a
 * link-local one listed first); wlan0 has another IPv4 address. */
static void view(nl_host_info *h)
{
	memset(h, 0, sizeof(*h));
	add_addr(h, "lo", "127.0.0.1", 1, 1);
	add_addr(h, "lo", "::1", 1, 1);
	add_addr(h, "eth0", "fe80::7", 1, 0);
	add_addr(h, "eth0", "192.0.2.7", 1, 0);
	add_addr(h, "eth0", "2001:db8::7", 1, 0);
	add_addr(h, "wlan0", "198.51.100.9", 1, 0);
	add_route(h, "eth0", AF_INET);
	add_route(h, "eth0", AF_INET6);
}

static void test_node_addresses__node_ip_parsing(void)
{
	nl_node_ips ips;
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(nl_node_ips_parse(&ips, "192.0.2.7", &err), 0);
	CU_ASSERT_EQUAL(ips.n, 1);
	CU_ASSERT_STRING_EQUAL(ips.ip[0], "192.0.2.7");
	/* Dual-stack, either order, spaces trimmed, kept in the order given. */
	CU_ASSERT_EQUAL_FATAL(nl_node_ips_parse(&ips, " 2001:DB8::7 , 192.0.2.7 ", &err), 0);
	CU_ASSERT_EQUAL(ips.n, 2);
	CU_ASSERT_STRING_EQUAL(ips.ip[0], "2001:db8::7");
	CU_ASSERT_STRING_EQUAL(ips.ip[1], "192.0.2.7");
	/* ParseIPSloppy: leading zeros are decimal; IPv4-mapped is IPv4. */
	CU_ASSERT_EQUAL_FATAL(nl_node_ips_parse(&ips, "192.000.002.007", &err), 0);
	CU_ASSERT_STRING_EQUAL(ips.ip[0], "192.0.2.7");
	CU_ASSERT_EQUAL_FATAL(nl_node_ips_parse(&ips, "::ffff:192.0.2.7,2001:db8::7", &err), 0);
	CU_ASSERT_EQUAL(ips.n, 2);
	CU_ASSERT_STRING_EQUAL(ips.ip[0], "192.0.2.7");
	/* What does not parse is ignored (kubelet logs it), not an error. */
	CU_ASSERT_EQUAL_FATAL(nl_node_ips_parse(&ips, "bogus,192.0.2.7,256.1.1.1", &err), 0);
	CU_ASSERT_EQUAL(ips.n, 1);
	CU_ASSERT_STRING_EQUAL(ips.ip[0], "192.0.2.7");
	CU_ASSERT_EQUAL_FATAL(nl_node_ips_parse(&ips, "", &err), 0);
	CU_ASSERT_EQUAL(ips.n, 0);
	/* "::" alone is allowed: it only prefers IPv6. */
	CU_ASSERT_EQUAL_FATAL(nl_node_ips_parse(&ips, "::", &err), 0);
	CU_ASSERT_EQUAL(ips.n, 1);
}

static void test_node_addresses__node_ip_errors(void)
{
	static const char *const pair_cases[] = {"192.0.2.1,192.0.2.2", "2001:db8::1,2001:db8::2",
	                                         "192.0.2.1,2001:db8::1,198.51.100.1"};
	nl_node_ips ips = {.n = 9};
	for (size_t i = 0; i < sizeof(pair_cases) / sizeof(pair_cases[0]); i++) {
		nl_err err = {0};
		CU_ASSERT_EQUAL(nl_node_ips_parse(&ips, pair_cases[i], &err), NL_EINVAL);
		CU_ASSERT_STRING_EQUAL(
		    err.msg, "must contain either a single IP or a dual-stack pair of IPs");
	}
	nl_err err = {0};
	CU_ASSERT_EQUAL(nl_node_ips_parse(&ips, "0.0.0.0,2001:db8::1", &err), NL_EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg, "dual-stack node IP cannot include '0.0.0.0' or '::'");
	CU_ASSERT_EQUAL(nl_node_ips_parse(&ips, "192.0.2.1,::", &err), NL_EINVAL);
	CU_ASSERT_EQUAL(ips.n, 9); /* untouched on failure */
}

static void test_node_addresses__node_ip_validation(void)
{
	static const struct {
		const char *ip, *msg;
	} cases[] = {
	    {"nonsense", "nodeIP must be a valid IP address"},
	    {"127.0.0.2", "nodeIP can't be loopback address"},
	    {"::1", "nodeIP can't be loopback address"},
	    {"239.0.0.254", "nodeIP can't be a multicast address"},
	    {"ff02::1", "nodeIP can't be a multicast address"},
	    {"169.254.0.1", "nodeIP can't be a link-local unicast address"},
	    {"fe80::7", "nodeIP can't be a link-local unicast address"},
	    {"0.0.0.0", "nodeIP can't be an all zeros address"},
	    {"::", "nodeIP can't be an all zeros address"},
	    {"203.0.113.1", "node IP: \"203.0.113.1\" not found in the host's network interfaces"},
	    {"2001:DB8::0:1",
	     "node IP: \"2001:db8::1\" not found in the host's network interfaces"},
	};
	nl_host_info h;
	view(&h);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		nl_err err = {0};
		CU_ASSERT_EQUAL(nl_node_ip_validate(cases[i].ip, &h, &err), NL_EINVAL);
		if (strcmp(err.msg, cases[i].msg) != 0)
			fprintf(stderr, "\n  %s: %s\n", cases[i].ip, err.msg);
		CU_ASSERT_STRING_EQUAL(err.msg, cases[i].msg);
	}
	nl_err err = {0};
	CU_ASSERT_EQUAL(nl_node_ip_validate("198.51.100.9", &h, &err), 0);
	CU_ASSERT_EQUAL(nl_node_ip_validate("2001:db8:0::7", &h, &err), 0);
}

/* The addresses for --node-ip arg (NULL: none) on the view, as JSON. */
static json_object *addresses(const char *arg, const char *hostname, const nl_host_info *h,
                              int want_rc, const char *want_msg)
{
	nl_node_ips ips = {0};
	nl_err err = {0};
	json_object *out = NULL;
	if (arg)
		CU_ASSERT_EQUAL_FATAL(nl_node_ips_parse(&ips, arg, &err), 0);
	int rc = nl_node_addresses(&out, &ips, hostname, "n1", h, &err);
	CU_ASSERT_EQUAL(rc, want_rc);
	if (want_msg)
		CU_ASSERT_STRING_EQUAL(err.msg, want_msg);
	return out;
}

#define CHECK_ADDRESSES(arg, hostname, h, expected)                       \
	do {                                                              \
		json_object *got_ = addresses(arg, hostname, h, 0, NULL); \
		NL_ASSERT_JSON_EQ(got_, expected);                        \
		json_object_put(got_);                                    \
	} while (0)

static void test_node_addresses__setter_order_and_rules(void)
{
	nl_host_info h;
	view(&h);
	/* No --node-ip: the default route's interface, IPv4 first, then the
	 * Hostname; one InternalIP only, as kubelet reports. */
	CHECK_ADDRESSES(NULL, "n1", &h,
	                "[{\"type\":\"InternalIP\",\"address\":\"192.0.2.7\"},"
	                "{\"type\":\"Hostname\",\"address\":\"n1\"}]");
	CHECK_ADDRESSES("0.0.0.0", "n1", &h,
	                "[{\"type\":\"InternalIP\",\"address\":\"192.0.2.7\"},"
	                "{\"type\":\"Hostname\",\"address\":\"n1\"}]");
	/* "::" prefers IPv6 (and skips the link-local fe80::7). */
	CHECK_ADDRESSES("::", "n1", &h,
	                "[{\"type\":\"InternalIP\",\"address\":\"2001:db8::7\"},"
	                "{\"type\":\"Hostname\",\"address\":\"n1\"}]");
	/* One --node-ip: that one, wherever it lives. */
	CHECK_ADDRESSES("198.51.100.9", "n1", &h,
	                "[{\"type\":\"InternalIP\",\"address\":\"198.51.100.9\"},"
	                "{\"type\":\"Hostname\",\"address\":\"n1\"}]");
	/* A dual-stack pair: both, in the order given. */
	CHECK_ADDRESSES("2001:db8::7,198.51.100.9", "n1", &h,
	                "[{\"type\":\"InternalIP\",\"address\":\"2001:db8::7\"},"
	                "{\"type\":\"InternalIP\",\"address\":\"198.51.100.9\"},"
	                "{\"type\":\"Hostname\",\"address\":\"n1\"}]");
	/* A hostname that is an IP is the InternalIP. */
	CHECK_ADDRESSES(NULL, "203.0.113.5", &h,
	                "[{\"type\":\"InternalIP\",\"address\":\"203.0.113.5\"},"
	                "{\"type\":\"Hostname\",\"address\":\"203.0.113.5\"}]");
}

static void test_node_addresses__setter_failures(void)
{
	nl_host_info h;
	view(&h);
	CU_ASSERT_PTR_NULL(
	    addresses("203.0.113.1", "n1", &h, NL_EINVAL,
	              "failed to validate nodeIP: node IP: \"203.0.113.1\" not found in the host's "
	              "network interfaces"));
	CU_ASSERT_PTR_NULL(
	    addresses("192.0.2.7,2001:db8::99", "n1", &h, NL_EINVAL,
	              "failed to validate secondaryNodeIP: node IP: "
	              "\"2001:db8::99\" not found in the host's network interfaces"));
	h.n_routes = 0;
	CU_ASSERT_PTR_NULL(addresses(NULL, "n1", &h, NL_ENOTFOUND,
	                             "can't get ip address of node n1. error: unable to select an "
	                             "IP from default routes."));
}

static void test_node_addresses__default_route_interface(void)
{
	nl_host_info h;
	/* An interface that is down is passed over for the next route's. */
	memset(&h, 0, sizeof(h));
	add_addr(&h, "eth0", "192.0.2.7", 0, 0);
	add_addr(&h, "eth1", "198.51.100.9", 1, 0);
	add_route(&h, "eth0", AF_INET);
	add_route(&h, "eth1", AF_INET);
	CHECK_ADDRESSES(NULL, "n1", &h,
	                "[{\"type\":\"InternalIP\",\"address\":\"198.51.100.9\"},"
	                "{\"type\":\"Hostname\",\"address\":\"n1\"}]");
	/* No global IPv4 on the IPv4 route's interface: IPv6 next. */
	memset(&h, 0, sizeof(h));
	add_addr(&h, "eth0", "169.254.3.3", 1, 0);
	add_addr(&h, "eth0", "2001:db8::3", 1, 0);
	add_route(&h, "eth0", AF_INET);
	add_route(&h, "eth0", AF_INET6);
	CHECK_ADDRESSES(NULL, "n1", &h,
	                "[{\"type\":\"InternalIP\",\"address\":\"2001:db8::3\"},"
	                "{\"type\":\"Hostname\",\"address\":\"n1\"}]");
	/* RFC 5549: only link-local on the route's interface, the global
	 * address on loopback. */
	memset(&h, 0, sizeof(h));
	add_addr(&h, "lo", "127.0.0.1", 1, 1);
	add_addr(&h, "lo", "192.0.2.33", 1, 1);
	add_addr(&h, "eth0", "fe80::3", 1, 0);
	add_route(&h, "eth0", AF_INET);
	CHECK_ADDRESSES(NULL, "n1", &h,
	                "[{\"type\":\"InternalIP\",\"address\":\"192.0.2.33\"},"
	                "{\"type\":\"Hostname\",\"address\":\"n1\"}]");
}

static void test_node_addresses__hostname_is_trimmed_and_lowercased(void)
{
	char out[64];
	nl_err err = {0};
	CU_ASSERT_EQUAL(nl_node_hostname(out, sizeof(out), NULL, " Edge-1.Example.COM\n", &err), 0);
	CU_ASSERT_STRING_EQUAL(out, "edge-1.example.com");
	/* The override wins, and is lowercased too. */
	CU_ASSERT_EQUAL(nl_node_hostname(out, sizeof(out), "Rack-7", "ignored", &err), 0);
	CU_ASSERT_STRING_EQUAL(out, "rack-7");
	CU_ASSERT_EQUAL(nl_node_hostname(out, sizeof(out), "", "Sys", &err), 0);
	CU_ASSERT_STRING_EQUAL(out, "sys");
	CU_ASSERT_EQUAL(nl_node_hostname(out, sizeof(out), "  ", NULL, &err), NL_EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg, "empty hostname is invalid");
	CU_ASSERT_EQUAL(nl_node_hostname(out, 4, "toolong", NULL, &err), NL_EINVAL);
}

/* The probe reads this machine: a view that the setter can use, whatever
 * it holds (no address of this machine appears in an assertion). */
static void test_node_addresses__probe_gives_a_usable_view(void)
{
	nl_host_info h;
	memset(&h, 0, sizeof(h));
	nl_host_info_probe_network(&h);
	CU_ASSERT(h.n_addrs <= NL_HOST_MAX_ADDRS && h.n_routes <= NL_HOST_MAX_ROUTES);
	for (size_t i = 0; i < h.n_addrs; i++)
		CU_ASSERT(h.addrs[i].family == AF_INET || h.addrs[i].family == AF_INET6);
	json_object *out = NULL;
	nl_err err = {0};
	nl_node_ips none = {0};
	int rc = nl_node_addresses(&out, &none, "n1", "n1", &h, &err);
	CU_ASSERT(rc == 0 || rc == NL_ENOTFOUND);
	if (rc == 0)
		CU_ASSERT_EQUAL(json_object_array_length(out), 2);
	json_object_put(out);
}

static CU_TestInfo tests[] = {
    {"node_ip_parsing", test_node_addresses__node_ip_parsing},
    {"node_ip_errors", test_node_addresses__node_ip_errors},
    {"node_ip_validation", test_node_addresses__node_ip_validation},
    {"setter_order_and_rules", test_node_addresses__setter_order_and_rules},
    {"setter_failures", test_node_addresses__setter_failures},
    {"default_route_interface", test_node_addresses__default_route_interface},
    {"hostname_is_trimmed_and_lowercased", test_node_addresses__hostname_is_trimmed_and_lowercased},
    {"probe_gives_a_usable_view", test_node_addresses__probe_gives_a_usable_view},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"node_addresses", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
