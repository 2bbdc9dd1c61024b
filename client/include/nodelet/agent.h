/* The nodelet agent as a library object: the client, the event loop and the
 * controllers of one node — registration, the node lease, node status — on
 * one clock. The `nodelet` program is a thin main over it (nl_agent_main);
 * the scenario runner and tests drive the same object in-process on virtual
 * time, step by step (nl_agent_register_node, _sync_lease, _sync_status) or
 * through the clock's timers (nl_agent_start + nl_clock_advance).
 *
 * Threading: an agent is used from one thread, the one that runs its loop
 * (nl_agent_run) or calls its functions; nl_agent_shutdown alone may be
 * called from another thread. See docs/agent.md. */
#ifndef NODELET_AGENT_H
#define NODELET_AGENT_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "client.h"
#include "clock.h"
#include "config.h"
#include "errors.h"
#include "lease_controller.h"
#include "node_conditions.h"
#include "nodelet_config.h"

/* The taint a node gets at registration unless registerWithTaints is given:
 * nodelet runs no pods (docs/decisions/0016-no-pods-node.md). */
#define NL_AGENT_NO_PODS_TAINT_KEY "nodelet.io/no-pods"
#define NL_AGENT_NO_PODS_TAINT_EFFECT "NoSchedule"
/* The Ready condition nodelet posts: kubelet's reason, so tools matching
 * on it work; the message names nodelet (kubelet: "kubelet is posting
 * ready status"). */
#define NL_AGENT_READY_REASON "KubeletReady"
#define NL_AGENT_READY_MESSAGE "nodelet is posting ready status"
/* Ready False when a self-check fails, as kubelet: the errors as the
 * message. */
#define NL_AGENT_NOT_READY_REASON "KubeletNotReady"
/* Graceful node shutdown: the inhibitor's why (kubelet's "Kubelet needs
 * time to handle node shutdown"), and the Ready error while the node
 * shuts down (kubelet's nodeshutdown ShutdownStatus). */
#define NL_SHUTDOWN_INHIBIT_WHY "Nodelet needs time to handle node shutdown"
#define NL_SHUTDOWN_NOT_READY_MESSAGE "node is shutting down"
/* State directories checked by the Ready self-check, at most. */
#define NL_AGENT_MAX_STATE_DIRS 4
/* kubelet's nodeStatusUpdateRetry: status attempts per sync. */
#define NL_AGENT_STATUS_UPDATE_RETRIES 5
/* The status check runs every nodeStatusUpdateFrequency jittered by up to
 * this factor (kubelet: wait.JitterUntil(syncNodeStatus, freq, 0.04)). */
#define NL_AGENT_STATUS_JITTER 0.04
/* kubelet's registerWithAPIServer backoff: 100 ms doubled before each wait
 * (first wait 200 ms), capped at 7 s, no attempt limit. */
#define NL_AGENT_REGISTER_BACKOFF_START_USEC (100 * NL_USEC_PER_MSEC)
#define NL_AGENT_REGISTER_MAX_BACKOFF_USEC (7 * NL_USEC_PER_SEC)
/* The heartbeat client's whole-request timeout is the smaller of this
 * (kubelet's nodeStatusUpdateFrequency) and the lease duration. */
#define NL_AGENT_HEARTBEAT_TIMEOUT_USEC (10 * NL_USEC_PER_SEC)

/* The host's network as address discovery sees it (node_addresses.c): the
 * addresses of every interface and the default routes, in the kernel's
 * order. A view of its own, so tests and scenarios can give one. */
#define NL_HOST_MAX_ADDRS 32
#define NL_HOST_MAX_ROUTES 8
typedef struct {
	char ifname[16];
	int family;  /* AF_INET or AF_INET6 */
	char ip[48]; /* canonical text, as inet_ntop writes it */
	int up;      /* the interface is up */
	int loopback;
} nl_host_addr;
typedef struct {
	char ifname[16];
	int family; /* AF_INET or AF_INET6 */
} nl_host_route;

/* What the node reports about its host (status.nodeInfo, addresses,
 * capacity). Empty strings and zeros are "not known". */
typedef struct {
	char machine_id[64];       /* /etc/machine-id */
	char system_uuid[64];      /* /sys/class/dmi/id/product_uuid (root only) */
	char boot_id[64];          /* /proc/sys/kernel/random/boot_id */
	char kernel_version[128];  /* uname -r */
	char os_image[256];        /* os-release PRETTY_NAME, else "Linux" */
	char operating_system[16]; /* Go's GOOS: "linux" */
	char architecture[16];     /* Go's GOARCH: "amd64", "arm64" ... */
	long cpus;                 /* online CPUs */
	int64_t memory_bytes;      /* physical memory */
	/* The network, for status.addresses: interface addresses, and the
	 * default routes. */
	nl_host_addr addrs[NL_HOST_MAX_ADDRS];
	size_t n_addrs;
	nl_host_route routes[NL_HOST_MAX_ROUTES];
	size_t n_routes;
} nl_host_info;

/* Read this host's facts (never fails: what cannot be read stays empty). */
void nl_host_info_probe(nl_host_info *out);
/* PRETTY_NAME of an os-release file (quotes and escapes removed) into out.
 * NL_EIO when unreadable, NL_ENOTFOUND when it has none. */
int nl_host_info_os_release(char *out, size_t outlen, const char *path);

/* kubelet's --node-ip: none, one address, or a dual-stack pair (one IPv4,
 * one IPv6) in the order given; "0.0.0.0" or "::" alone only chooses the
 * family that address discovery prefers. */
typedef struct {
	size_t n;
	char ip[2][48]; /* canonical text (IPv4-mapped IPv6 as IPv4) */
} nl_node_ips;

/* Parse a --node-ip value as kubelet does (ParseNodeIPArgument without a
 * cloud provider): comma-separated, spaces trimmed, entries that are not
 * IPs logged and ignored. NL_EINVAL with kubelet's reason in err for more
 * than two, two of one family, or a pair with an unspecified address. */
int nl_node_ips_parse(nl_node_ips *out, const char *arg, nl_err *err);
/* kubelet's validateNodeIP against host's interfaces: 0, or NL_EINVAL with
 * kubelet's reason in err ("nodeIP can't be loopback address", "node IP:
 * \"…\" not found in the host's network interfaces" ...). */
int nl_node_ip_validate(const char *ip, const nl_host_info *host, nl_err *err);
/* kubelet's NodeAddress setter without a cloud provider, as a new JSON
 * array (caller frees): the --node-ip pair when both are given, else one
 * InternalIP — the --node-ip, the hostname when it is an IP, or the first
 * global address of a default route's interface (IPv4 first unless ips is
 * "::") — then the Hostname. NL_EINVAL (a --node-ip fails validation) or
 * NL_ENOTFOUND (no address) with kubelet's message in err; NL_ENOMEM. */
int nl_node_addresses(json_object **out, const nl_node_ips *ips, const char *hostname,
                      const char *node_name, const nl_host_info *host, nl_err *err);
/* Read this machine's interfaces and default routes into host's addrs and
 * routes (others untouched; what cannot be read stays empty). */
void nl_host_info_probe_network(nl_host_info *host);

/* kubelet's GetHostname: the override, else the system's hostname,
 * whitespace-trimmed and lowercased, into out. NL_EINVAL ("empty hostname is
 * invalid") with err when nothing is left. */
int nl_node_hostname(char *out, size_t outlen, const char *override, const char *system,
                     nl_err *err);

typedef struct {
	const char *node_name; /* required */
	/* --node-ip (copied); NULL = none. */
	const nl_node_ips *node_ips;
	/* The API server: an existing client (borrowed, must outlive the
	 * agent; its clock is the agent's), else a heartbeat client made from
	 * rest_config (copied) as kubelet makes one: no client-side rate
	 * limit, requests cut after min(10 s, lease duration). */
	nl_client *client;
	const nl_rest_config *rest_config;
	/* The heartbeat client's User-Agent (copied); NULL = the client's
	 * default, "nodelet/<version> (<os>/<arch>)". */
	const char *user_agent;
	/* Told each attempt of the heartbeat client (nl_client_options'
	 * on_attempt; not an existing client's); NULL = nothing. */
	nl_attempt_cb on_attempt;
	void *attempt_payload;
	/* Borrowed; NULL = the client's clock, or a real clock the agent owns.
	 * Must be the client's clock when both are given. */
	nl_clock *clock;
	/* Copied; NULL = defaults. Read: leaseDurationSeconds,
	 * nodeStatusReportFrequency, registerNode, nodeLabels,
	 * registerWithTaints (when set; else the no-pods taint). */
	const nl_nodelet_config *config;
	const char *lease_name;      /* NULL = the node name */
	const char *lease_namespace; /* NULL = kube-node-lease */
	const nl_host_info *host;    /* copied; NULL = nl_host_info_probe() */
	/* Where the eviction signals are read (copied, root included); NULL =
	 * this host. */
	const nl_host_view *host_view;
	/* The agent's state directories (--dynamic-config-dir, ...), copied:
	 * Ready is False while one is not writable, and their filesystems
	 * count for DiskPressure besides "/". At most NL_AGENT_MAX_STATE_DIRS. */
	const char *const *state_dirs;
	size_t n_state_dirs;
	/* Seed of the renew interval's jitter; 0 = from the node name and the
	 * clock (reproducible on a fake clock). */
	uint64_t jitter_seed;
} nl_agent_options;

typedef struct nl_agent nl_agent;

void nl_agent_options_init(nl_agent_options *o);

/* Create an agent; nothing is sent yet. NL_EINVAL (with err) for a missing
 * node name, no client and no rest config, or a clock other than the
 * client's; NL_ECONFIG from the client; NL_ENOMEM. *out belongs to the
 * caller: nl_agent_free (accepts NULL), which stops it first. */
int nl_agent_new(nl_agent **out, const nl_agent_options *o, nl_err *err);
void nl_agent_free(nl_agent *a);

/* Schedule the controllers on the clock: registration (when registerNode)
 * at once and retried with kubelet's backoff until it succeeds, the lease
 * controller (first sync at once, after the registration attempt), and node
 * status reports every nodeStatusReportFrequency. NL_EINVAL when running. */
int nl_agent_start(nl_agent *a);
/* Cancel everything scheduled; a no-op when not running. The lease is left
 * to expire, as kubelet leaves it. */
void nl_agent_stop(nl_agent *a);
/* Run the loop (timers and network) until the clock is stopped; 0, or the
 * loop's error. */
int nl_agent_run(nl_agent *a);
/* Stop the clock, from any thread (not from a signal handler: forward the
 * signal, see nl_clock_stop): nl_agent_run returns, sleeps end. */
void nl_agent_shutdown(nl_agent *a);

/* Whether the node shutdown manager holds its systemd-logind delay
 * inhibitor lock now (shutdownGracePeriod > 0, logind reachable, no
 * shutdown under way). */
int nl_agent_shutdown_lock_held(const nl_agent *a);
/* Whether logind announced a shutdown (PrepareForShutdown(true)) that was
 * not cancelled: Ready is False "node is shutting down". */
int nl_agent_shutting_down(const nl_agent *a);

/* --- one step at a time (tests, the scenario runner, --once) -------------- */

/* One registration attempt, as kubelet's tryRegisterWithAPIServer: CREATE
 * the Node; if it exists (409 AlreadyExists), GET it and reconcile the
 * labels kubelet manages (hostname, os, arch and their beta forms) with one
 * PATCH of nodes/<name>/status when they differ. 0 when registered
 * (already, or now); else the failed call's code. */
int nl_agent_register_node(nl_agent *a);
/* One lease controller sync (nl_lease_controller_sync). */
int nl_agent_sync_lease(nl_agent *a);
/* kubelet's updateNodeStatus: GET the Node (the first try from the API
 * server's cache, resourceVersion=0), and PATCH nodes/<name>/status
 * (strategic merge, no resourceVersion) when what it shows differs from
 * what this agent reports or a report is due (nodeStatusReportFrequency
 * since the last one). Up to 5 tries; the heartbeat-failure hook runs
 * after each failed try but the first. 0 when done, else the last code. */
int nl_agent_sync_status(nl_agent *a);
/* Run on another configuration (dynamic config): lease duration, report
 * frequency, log verbosity take effect at once and node status is checked
 * at once; labels and taints only matter for a registration, as kubelet's.
 * cfg is copied. NL_ENOMEM. */
int nl_agent_set_config(nl_agent *a, const nl_nodelet_config *cfg);

/* --- state (borrowed, for assertions and the scenario runner) ------------- */

nl_client *nl_agent_client(const nl_agent *a);
nl_clock *nl_agent_clock(const nl_agent *a);
nl_lease_controller *nl_agent_lease_controller(const nl_agent *a);
const nl_nodelet_config *nl_agent_config(const nl_agent *a);
const char *nl_agent_node_name(const nl_agent *a);
/* The lease the server last returned to the controller, or NULL. */
json_object *nl_agent_lease(const nl_agent *a);
/* Its metadata.resourceVersion, or NULL. */
const char *nl_agent_lease_resource_version(const nl_agent *a);
/* Whether registration succeeded (always 0 with registerNode false). */
int nl_agent_registered(const nl_agent *a);
/* How often the on-repeated-heartbeat-failure hook ran (lease and status),
 * i.e. how often the client's connections were closed. */
unsigned long nl_agent_heartbeat_failures(const nl_agent *a);
/* Node status reports sent and accepted (registration's CREATE included),
 * and the clock time of the last one (0 = none). */
unsigned long nl_agent_status_reports(const nl_agent *a);
int64_t nl_agent_last_status_report(const nl_agent *a);

/* Whether the last status sync found pressure p (transition period
 * included), and the Ready self-check's errors ("" when Ready). */
int nl_agent_under_pressure(const nl_agent *a, nl_pressure p);
const char *nl_agent_not_ready_message(const nl_agent *a);

/* The Node this agent would CREATE now (registration), for tests and the
 * scenario runner. New reference (caller frees). NL_ENOMEM. */
int nl_agent_initial_node(json_object **out, nl_agent *a);

#endif
