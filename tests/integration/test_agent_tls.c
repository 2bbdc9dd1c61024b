/* TLS bootstrap end to end, in-process on virtual time: nodelet-mockapi
 * over HTTPS with a bootstrap token (group system:bootstrappers), Node
 * authorization, csrapproving and csrsigning issuing one-hour
 * certificates; an agent that starts with only the bootstrap kubeconfig
 * gets its certificate, registers, heartbeats, rotates the certificate at
 * its deadline and keeps renewing its Lease with the new one. Every
 * assertion on traffic reads the mock's request journal (its "user" is
 * who the server authenticated). */
#include <nodelet/agent.h>
#include <nodelet/agent_tls.h>
#include <nodelet/log.h>
#include <nodelet/meta.h>
#include <nodelet/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../mockapi/core/log.h"
#include "../cu_main.h"
#include "mockapi.h"

#define SEC NL_USEC_PER_SEC
/* Virtual time starts a minute after the wall clock: the mock's generated
 * CA is dated by the wall clock and its validity is judged too. */
#define START (nl_time_now() / SEC * SEC + 60 * SEC)

static nl_clock *virt;
static char dir[64];
static FILE *quiet;

static int64_t mock_clock(void *payload)
{
	(void)payload;
	return nl_clock_now(virt);
}

static int setup(void)
{
	strcpy(dir, "/tmp/nodelet-tls-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	if (getenv("NL_TEST_VERBOSE"))
		nl_log_domain_set_verbosity(&mock_log_domain, 4);
	else {
		quiet = fopen("/dev/null", "w");
		nl_log_set_output(quiet);
	}
	return 0;
}

static int teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), getenv("NL_TEST_KEEP") ? "true" : "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	nl_log_set_output(NULL);
	if (quiet)
		fclose(quiet);
	return 0;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

static const nl_host_info HOST = {
    .machine_id = "0123456789abcdef0123456789abcdef",
    .boot_id = "b0070000-0000-4000-8000-000000000001",
    .kernel_version = "6.1.0-test",
    .os_image = "Debian GNU/Linux 12 (bookworm)",
    .operating_system = "linux",
    .architecture = "amd64",
    .cpus = 4,
    .memory_bytes = (int64_t)4 << 30,
};

/* Journal entries matching verb, a path prefix and (when given) a user. */
static int journal_count(mock_server *s, const char *verb, const char *path, const char *user,
                         int code, int64_t after)
{
	char *text = NULL;
	mock_server_journal(&text, s, 0);
	json_object *j = json_tokener_parse(text);
	free(text);
	json_object *items = json_object_object_get(j, "items");
	int n = 0;
	for (size_t i = 0; items && i < json_object_array_length(items); i++) {
		json_object *e = json_object_array_get_idx(items, i);
		const char *v = nl_json_get_string(e, "verb");
		const char *p = nl_json_get_string(e, "path");
		const char *u = nl_json_get_string(e, "user");
		const char *t = nl_json_get_string(e, "time");
		int64_t at = 0;
		if (t)
			nl_time_parse_micro(&at, t);
		json_object *c = json_object_object_get(e, "code");
		if (v && !strcmp(v, verb) && p && !strncmp(p, path, strlen(path)) &&
		    (!user || (u && !strcmp(u, user))) &&
		    (!code || json_object_get_int(c) == code) && (!after || !t || at >= after))
			n++;
	}
	json_object_put(j);
	return n;
}

/* Virtual time in one-second steps, the mock's controllers ticked each. */
static void run_for(mock_server *s, int64_t usec)
{
	for (int64_t t = 0; t < usec; t += SEC) {
		nl_clock_advance(virt, SEC);
		mock_server_tick(s);
	}
}

static void test_agent_tls__bootstrap_token_to_rotation(void)
{
	char pki[128], tokens[128], boot[128], kubeconfig[128], certs[128], ca[160];
	snprintf(pki, sizeof(pki), "%s/pki", dir);
	snprintf(tokens, sizeof(tokens), "%s/tokens.csv", dir);
	snprintf(boot, sizeof(boot), "%s/bootstrap.kubeconfig", dir);
	snprintf(kubeconfig, sizeof(kubeconfig), "%s/kubelet.kubeconfig", dir);
	snprintf(certs, sizeof(certs), "%s/certs", dir);
	snprintf(ca, sizeof(ca), "%s/ca.crt", pki);
	write_file(tokens,
	           "07401b.f395accd246ae52d,system:bootstrap:07401b,,system:bootstrappers\n");
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&virt, START), 0);

	mock_options mo;
	mock_options_init(&mo);
	mo.port = 0;
	mo.clock = mock_clock;
	mo.controller_tick_ms = 0;
	mo.generate_certs_dir = pki;
	mo.token_auth_file = tokens;
	mo.authorization_mode = "Node";
	mo.cluster_signing_duration_usec = 3600 * SEC;
	mock_server *srv = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(mock_server_new(&srv, &mo, &err), 0);
	CU_ASSERT_EQUAL_FATAL(mock_server_start(srv, &err), 0);

	char text[2048];
	snprintf(text, sizeof(text),
	         "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n"
	         "    server: %s\n    certificate-authority: %s\n"
	         "users:\n- name: boot\n  user:\n    token: 07401b.f395accd246ae52d\n"
	         "contexts:\n- name: x\n  context:\n    cluster: c\n    user: boot\n"
	         "current-context: x\n",
	         mock_server_url(srv), ca);
	write_file(boot, text);

	nl_agent_tls_options to = {0};
	to.kubeconfig = kubeconfig;
	to.bootstrap_kubeconfig = boot;
	to.cert_dir = certs;
	to.node_name = "edge-1";
	to.rotate = 1;
	to.clock = virt;
	to.jitter_seed = 11;
	nl_agent_tls *tls = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_agent_tls_new(&tls, &to, &err), 0);
	struct stat st;
	CU_ASSERT(stat(kubeconfig, &st) == 0 && (st.st_mode & 07777) == 0600);
	nl_cert_manager *m = nl_agent_tls_manager(tls);
	CU_ASSERT_EQUAL_FATAL(nl_agent_tls_start(tls), 0);
	for (int i = 0; i < 30 && !nl_cert_manager_current(m, NULL); i++)
		run_for(srv, SEC);
	CU_ASSERT_TRUE_FATAL(nl_cert_manager_current(m, NULL));
	CU_ASSERT_EQUAL(journal_count(srv, "create",
	                              "/apis/certificates.k8s.io/v1/"
	                              "certificatesigningrequests",
	                              "system:bootstrap:07401b", 201, 0),
	                1);

	/* The agent runs on the kubeconfig written for it. */
	nl_rest_config *rest = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_kubeconfig_load(&rest, kubeconfig, NULL, &err), 0);
	nl_agent_options ao;
	nl_agent_options_init(&ao);
	ao.node_name = "edge-1";
	ao.rest_config = rest;
	ao.clock = virt;
	ao.host = &HOST;
	ao.jitter_seed = 5;
	nl_agent *a = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_agent_new(&a, &ao, &err), 0);
	nl_rest_config_free(rest);
	nl_agent_tls_set_client(tls, nl_agent_client(a));
	CU_ASSERT_EQUAL_FATAL(nl_agent_start(a), 0);
	run_for(srv, 30 * SEC);
	CU_ASSERT_TRUE(nl_agent_registered(a));
	CU_ASSERT(journal_count(srv, "create", "/api/v1/nodes", "system:node:edge-1", 201, 0) == 1);
	int renewals = journal_count(srv, "update",
	                             "/apis/coordination.k8s.io/v1/namespaces/"
	                             "kube-node-lease/leases/edge-1",
	                             "system:node:edge-1", 200, 0);
	CU_ASSERT(renewals >= 2);

	/* The certificate lives 1 h (+ the signer's 5 min backdate): rotation
	 * in 70-90 % of it, with the current certificate. */
	nl_cert_info first;
	nl_cert_manager_current(m, &first);
	int64_t d = nl_cert_manager_deadline(m);
	int64_t life = first.not_after_usec - first.not_before_usec;
	CU_ASSERT(d >= first.not_before_usec + life * 7 / 10);
	CU_ASSERT(d < first.not_before_usec + life * 9 / 10);
	run_for(srv, d - nl_clock_now(virt) + 30 * SEC);
	CU_ASSERT_EQUAL(nl_cert_manager_rotations(m), 2);
	CU_ASSERT_EQUAL(journal_count(srv, "create",
	                              "/apis/certificates.k8s.io/v1/"
	                              "certificatesigningrequests",
	                              "system:node:edge-1", 201, 0),
	                1);
	nl_cert_info second;
	nl_cert_manager_current(m, &second);
	CU_ASSERT(second.not_after_usec > first.not_after_usec);

	/* Past the first certificate's expiry the Lease is still renewed: the
	 * connections were reset and present the new certificate. */
	run_for(srv, first.not_after_usec - nl_clock_now(virt) + 60 * SEC);
	int after = journal_count(srv, "update",
	                          "/apis/coordination.k8s.io/v1/namespaces/"
	                          "kube-node-lease/leases/edge-1",
	                          "system:node:edge-1", 200, first.not_after_usec);
	CU_ASSERT(after >= 4);
	CU_ASSERT_EQUAL(journal_count(srv, "update", "/apis/coordination.k8s.io/", NULL, 401, 0),
	                0);

	nl_agent_free(a);
	nl_agent_tls_free(tls);
	mock_server_free(srv);
	nl_clock_free(virt);
	virt = NULL;
}

static CU_TestInfo tests[] = {
    {"bootstrap_token_to_rotation", test_agent_tls__bootstrap_token_to_rotation},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"agent_tls", setup, teardown, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
