/* The nodelet program's flags and configuration: Go-style flags, usage
 * errors, and the transform — flags given explicitly override the --config
 * file, the file's other fields stay. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../client/tool/cli_internal.h"
#include "../cu_main.h"

/* Parse argv (NULL-terminated) with stdout and stderr silenced. */
static int parse(nl_cli_options *o, const char **argv)
{
	int argc = 0, saved_out = dup(1), saved_err = dup(2), null = open("/dev/null", O_WRONLY);
	char *copy[32];
	while (argv[argc]) {
		copy[argc] = (char *)argv[argc];
		argc++;
	}
	copy[argc] = NULL;
	fflush(stdout);
	fflush(stderr);
	dup2(null, 1);
	dup2(null, 2);
	int rc = nl__cli_parse(o, argc, copy);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	close(null);
	return rc;
}

static char *write_config(const char *text)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/nl-cli-config-XXXXXX");
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void test_cli__flags_are_parsed(void)
{
	nl_cli_options o;
	const char *argv[] = {"nodelet",
	                      "--kubeconfig",
	                      "/k",
	                      "--node-name=edge-1",
	                      "--lease-duration-seconds",
	                      "4",
	                      "--register-node=false",
	                      "--register-with-taints",
	                      "a=b:NoSchedule,c:NoExecute",
	                      "--node-labels=x=1,y=2",
	                      "--dynamic-config-dir",
	                      "/var/lib/nodelet",
	                      "-v",
	                      "4",
	                      "--once",
	                      NULL};
	CU_ASSERT_EQUAL_FATAL(parse(&o, argv), 0);
	CU_ASSERT_STRING_EQUAL(o.kubeconfig, "/k");
	CU_ASSERT_STRING_EQUAL(o.node_name, "edge-1");
	CU_ASSERT_STRING_EQUAL(o.dynamic_config_dir, "/var/lib/nodelet");
	CU_ASSERT_PTR_NULL(o.config_file);
	CU_ASSERT_TRUE(o.once);
	CU_ASSERT_EQUAL(o.flags->lease_duration_seconds, 4);
	CU_ASSERT_EQUAL(o.flags->register_node, 0);
	CU_ASSERT_EQUAL(o.flags->log_verbosity, 4);
	CU_ASSERT_EQUAL(o.flags->n_register_with_taints, 2);
	CU_ASSERT_STRING_EQUAL(o.flags->register_with_taints[1].key, "c");
	CU_ASSERT_STRING_EQUAL(o.flags->register_with_taints[1].effect, "NoExecute");
	CU_ASSERT_EQUAL(o.flags->n_node_labels, 2);
	CU_ASSERT_EQUAL(o.flags->set, NL_NC_LEASE_DURATION_SECONDS | NL_NC_REGISTER_NODE |
	                                  NL_NC_REGISTER_WITH_TAINTS | NL_NC_NODE_LABELS |
	                                  NL_NC_LOG_VERBOSITY);
	nl__cli_options_clear(&o);
}

/* klog's spellings of the verbosity, and flag.Bool's of a boolean. */
static void test_cli__go_flag_spellings(void)
{
	nl_cli_options o;
	const char *a1[] = {"nodelet", "--node-name", "n", "-v=5", "--register-node", NULL};
	CU_ASSERT_EQUAL_FATAL(parse(&o, a1), 0);
	CU_ASSERT_EQUAL(o.flags->log_verbosity, 5);
	CU_ASSERT_EQUAL(o.flags->register_node, 1);
	nl__cli_options_clear(&o);
	const char *a2[] = {"nodelet", "--node-name", "n", "--v=3", "--register-node=F", NULL};
	CU_ASSERT_EQUAL_FATAL(parse(&o, a2), 0);
	CU_ASSERT_EQUAL(o.flags->log_verbosity, 3);
	CU_ASSERT_EQUAL(o.flags->register_node, 0);
	nl__cli_options_clear(&o);
	const char *a3[] = {"nodelet", "--node-name", "n", "-v2", NULL};
	CU_ASSERT_EQUAL_FATAL(parse(&o, a3), 0);
	CU_ASSERT_EQUAL(o.flags->log_verbosity, 2);
	/* Nothing given: nothing set, so the file or the defaults decide. */
	CU_ASSERT_EQUAL(o.flags->set, NL_NC_LOG_VERBOSITY);
	nl__cli_options_clear(&o);
}

static void test_cli__usage_errors(void)
{
	static const char *const cases[][6] = {
	    {"nodelet", "--node-name", "  ", NULL},
	    {"nodelet", "--node-name", "Bad_Name", NULL},
	    {"nodelet", "--hostname-override", "a", "--node-name", "b", NULL},
	    {"nodelet", "--node-name", "n", "--node-ip", "192.0.2.1,192.0.2.2", NULL},
	    {"nodelet", "--node-name", "n", "--node-ip", "::,192.0.2.2", NULL},
	    {"nodelet", "--node-name", "n", "--bogus", NULL},
	    {"nodelet", "--node-name", "n", "extra", NULL},
	    {"nodelet", "--node-name", "n", "--lease-duration-seconds", "ten", NULL},
	    {"nodelet", "--node-name", "n", "--register-node=maybe", NULL},
	    {"nodelet", "--node-name", "n", "--node-labels", "novalue", NULL},
	    {"nodelet", "--node-name", "n", "--register-with-taints", "k=v", NULL},
	    {"nodelet", "--node-name", "n", "-v", "x", NULL},
	    {"nodelet", "--node-name", "n", "--kube-api-content-type=application/yaml", NULL},
	    {"nodelet", "--node-name", "n", "--kube-api-content-type", "", NULL},
	    {"nodelet", "--node-name", NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		nl_cli_options o;
		int rc = parse(&o, (const char **)cases[i]);
		if (rc != -1)
			fprintf(stderr, "\n  case %zu accepted\n", i);
		CU_ASSERT_EQUAL(rc, -1);
		nl__cli_options_clear(&o);
	}
}

/* kubelet's --hostname-override and GetHostname: the node name is the
 * flag or the system's hostname, trimmed and lowercased; --node-name is the
 * same flag under nodelet's older name. */
static void test_cli__node_name_is_the_hostname(void)
{
	nl_cli_options o;
	char system[256] = "", want[256];
	nl_err err = {0};
	const char *none[] = {"nodelet", NULL};
	CU_ASSERT_EQUAL_FATAL(gethostname(system, sizeof(system) - 1), 0);
	CU_ASSERT_EQUAL_FATAL(nl_node_hostname(want, sizeof(want), NULL, system, &err), 0);
	CU_ASSERT_EQUAL_FATAL(parse(&o, none), 0);
	CU_ASSERT_STRING_EQUAL(o.node_name, want);
	nl__cli_options_clear(&o);
	const char *over[] = {"nodelet", "--hostname-override", " Edge-7 ", NULL};
	CU_ASSERT_EQUAL_FATAL(parse(&o, over), 0);
	CU_ASSERT_STRING_EQUAL(o.node_name, "edge-7");
	nl__cli_options_clear(&o);
	const char *both[] = {"nodelet", "--node-name=edge-7", "--hostname-override=edge-7", NULL};
	CU_ASSERT_EQUAL_FATAL(parse(&o, both), 0);
	CU_ASSERT_STRING_EQUAL(o.node_name, "edge-7");
	nl__cli_options_clear(&o);
}

static void test_cli__node_ip(void)
{
	nl_cli_options o;
	const char *none[] = {"nodelet", "--node-name", "n", NULL};
	CU_ASSERT_EQUAL_FATAL(parse(&o, none), 0);
	CU_ASSERT_EQUAL(o.node_ips.n, 0);
	nl__cli_options_clear(&o);
	const char *pair[] = {"nodelet", "--node-name", "n", "--node-ip", "2001:db8::1, 192.0.2.1",
	                      NULL};
	CU_ASSERT_EQUAL_FATAL(parse(&o, pair), 0);
	CU_ASSERT_EQUAL(o.node_ips.n, 2);
	CU_ASSERT_STRING_EQUAL(o.node_ips.ip[0], "2001:db8::1");
	CU_ASSERT_STRING_EQUAL(o.node_ips.ip[1], "192.0.2.1");
	nl__cli_options_clear(&o);
}

static void test_cli__help_and_version_end_the_run(void)
{
	nl_cli_options o;
	const char *h[] = {"nodelet", "--help", NULL};
	const char *v[] = {"nodelet", "--version", NULL};
	CU_ASSERT_EQUAL(parse(&o, h), 1);
	nl__cli_options_clear(&o);
	CU_ASSERT_EQUAL(parse(&o, v), 1);
	nl__cli_options_clear(&o);
}

/* The seed's transform: a flag given on the command line wins over the
 * file; fields the command line did not give keep the file's values. */
static void test_cli__explicit_flags_override_the_file(void)
{
	nl_cli_options o;
	nl_nodelet_config *cfg = NULL;
	nl_err err = {0};
	char *path = write_config("apiVersion: nodelet.io/v1alpha1\n"
	                          "kind: NodeletConfiguration\n"
	                          "leaseDurationSeconds: 60\n"
	                          "nodeStatusReportFrequency: 1m\n"
	                          "logVerbosity: 2\n"
	                          "nodeLabels: {zone: a}\n");
	const char *argv[] = {"nodelet",  "--node-name", "n",
	                      "--config", path,          "--lease-duration-seconds",
	                      "20",       NULL};
	CU_ASSERT_EQUAL_FATAL(parse(&o, argv), 0);
	CU_ASSERT_EQUAL_FATAL(nl__cli_config(&cfg, &o, &err), 0);
	CU_ASSERT_EQUAL(cfg->lease_duration_seconds, 20);
	CU_ASSERT_EQUAL(cfg->node_status_report_frequency_usec, 60 * INT64_C(1000000));
	CU_ASSERT_EQUAL(cfg->log_verbosity, 2);
	CU_ASSERT_EQUAL_FATAL(cfg->n_node_labels, 1);
	CU_ASSERT_STRING_EQUAL(cfg->node_labels[0].key, "zone");
	CU_ASSERT_EQUAL(cfg->register_node, 1);
	nl_nodelet_config_free(cfg);
	nl__cli_options_clear(&o);
	unlink(path);
}

/* Without --config the defaults apply; values out of range are refused
 * with the configuration's field error; a missing file is an error. */
static void test_cli__config_is_validated(void)
{
	nl_cli_options o;
	nl_nodelet_config *cfg = NULL;
	nl_err err = {0};
	const char *ok[] = {"nodelet", "--node-name", "n", NULL};
	CU_ASSERT_EQUAL_FATAL(parse(&o, ok), 0);
	CU_ASSERT_EQUAL_FATAL(nl__cli_config(&cfg, &o, &err), 0);
	CU_ASSERT_EQUAL(cfg->lease_duration_seconds, 40);
	CU_ASSERT_EQUAL(cfg->node_status_report_frequency_usec, 300 * INT64_C(1000000));
	nl_nodelet_config_free(cfg);
	nl__cli_options_clear(&o);

	const char *bad[] = {"nodelet", "--node-name", "n", "--lease-duration-seconds", "0", NULL};
	CU_ASSERT_EQUAL_FATAL(parse(&o, bad), 0);
	cfg = NULL;
	CU_ASSERT_EQUAL(nl__cli_config(&cfg, &o, &err), NL_EINVALID);
	CU_ASSERT_PTR_NULL(cfg);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "leaseDurationSeconds: Invalid value: 0"));
	nl__cli_options_clear(&o);

	const char *missing[] = {"nodelet",  "--node-name",       "n",
	                         "--config", "/nonexistent.yaml", NULL};
	CU_ASSERT_EQUAL_FATAL(parse(&o, missing), 0);
	CU_ASSERT_EQUAL(nl__cli_config(&cfg, &o, &err), NL_EIO);
	CU_ASSERT_PTR_NULL(cfg);
	nl__cli_options_clear(&o);
}

/* kubelet's --kube-api-content-type: protobuf by default, JSON when asked. */
static void test_cli__kube_api_content_type(void)
{
	static const char *const json[] = {"nodelet", "--node-name", "n",
	                                   "--kube-api-content-type=application/json", NULL};
	static const char *const none[] = {"nodelet", "--node-name", "n", NULL};
	nl_cli_options o;
	nl_nodelet_config *cfg = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(parse(&o, (const char **)json), 0);
	CU_ASSERT_EQUAL_FATAL(nl__cli_config(&cfg, &o, &err), 0);
	CU_ASSERT_EQUAL(cfg->content_type, NL_CONTENT_JSON);
	nl_nodelet_config_free(cfg);
	nl__cli_options_clear(&o);
	CU_ASSERT_EQUAL_FATAL(parse(&o, (const char **)none), 0);
	CU_ASSERT_EQUAL_FATAL(nl__cli_config(&cfg, &o, &err), 0);
	CU_ASSERT_EQUAL(cfg->content_type, NL_CONTENT_PROTOBUF);
	nl_nodelet_config_free(cfg);
	nl__cli_options_clear(&o);
}

static CU_TestInfo tests[] = {
    {"node_name_is_the_hostname", test_cli__node_name_is_the_hostname},
    {"node_ip", test_cli__node_ip},
    {"flags_are_parsed", test_cli__flags_are_parsed},
    {"go_flag_spellings", test_cli__go_flag_spellings},
    {"usage_errors", test_cli__usage_errors},
    {"help_and_version_end_the_run", test_cli__help_and_version_end_the_run},
    {"explicit_flags_override_the_file", test_cli__explicit_flags_override_the_file},
    {"config_is_validated", test_cli__config_is_validated},
    {"kube_api_content_type", test_cli__kube_api_content_type},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"cli", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
