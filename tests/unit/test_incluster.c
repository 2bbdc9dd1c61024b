/* nl_incluster_load and nl_rest_config_token: client-go's InClusterConfig
 * from env + a service account directory the test creates, and the token
 * file re-read at most once a minute (time injected). */
#include "../cu_main.h"

#include <nodelet/config.h>
#include <nodelet/time.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SEC 1000000LL

static char sa[64];
static nl_rest_config sentinel;

static void put(const char *name, const char *text)
{
	char p[128];
	snprintf(p, sizeof(p), "%s/%s", sa, name);
	FILE *f = fopen(p, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

static void drop(const char *name)
{
	char p[128];
	snprintf(p, sizeof(p), "%s/%s", sa, name);
	unlink(p);
}

static char *sa_path(const char *name)
{
	char *p = NULL;
	CU_ASSERT_FATAL(asprintf(&p, "%s/%s", sa, name) > 0);
	return p;
}

static int setup(void)
{
	strcpy(sa, "/tmp/nl-sa-XXXXXX");
	return mkdtemp(sa) ? 0 : 1;
}

static int teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", sa);
	return system(cmd) == 0 ? 0 : 1;
}

/* A pod's view: env, token, CA and namespace. */
static void pod(const char *host)
{
	setenv("KUBERNETES_SERVICE_HOST", host, 1);
	setenv("KUBERNETES_SERVICE_PORT", "443", 1);
	unsetenv("POD_NAMESPACE");
	put("token", "  tok-1\n");
	put("ca.crt", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
	put("namespace", "kube-system\n");
}

static void leave_pod(void)
{
	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("KUBERNETES_SERVICE_PORT");
	unsetenv("POD_NAMESPACE");
}

static nl_rest_config *load_ok(void)
{
	nl_rest_config *c = NULL;
	nl_err err = {0};
	int rc = nl_incluster_load(&c, sa, &err);
	if (rc)
		fprintf(stderr, "\n  unexpected error %d: %s\n", rc, err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	return c;
}

static char *token_at(nl_rest_config *c, int64_t now)
{
	char *tok = NULL;
	nl_err err = {0};
	int rc = nl_rest_config_token(&tok, c, now, &err);
	if (rc)
		fprintf(stderr, "\n  unexpected error %d: %s\n", rc, err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	return tok;
}

static void assert_token_at(nl_rest_config *c, int64_t now, const char *want)
{
	char *tok = token_at(c, now);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tok);
	CU_ASSERT_STRING_EQUAL(tok, want);
	free(tok);
}

static void test_incluster__loads_service_account(void)
{
	pod("10.96.0.1");
	nl_rest_config *c = load_ok();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	char *ca = sa_path("ca.crt"), *tok = sa_path("token");
	CU_ASSERT_STRING_EQUAL(c->server, "https://10.96.0.1:443");
	CU_ASSERT_STRING_EQUAL(c->ca_file, ca);
	CU_ASSERT_STRING_EQUAL(c->bearer_token, "tok-1");
	CU_ASSERT_STRING_EQUAL(c->bearer_token_file, tok);
	CU_ASSERT_STRING_EQUAL(c->namespace_, "kube-system");
	CU_ASSERT_STRING_EQUAL(c->source, "in-cluster");
	CU_ASSERT_EQUAL(c->insecure_skip_tls_verify, 0);
	CU_ASSERT_PTR_NULL(c->exec);
	nl_rest_config_free(c);
	free(ca);
	free(tok);
	leave_pod();
}

static void test_incluster__ipv6_host_is_bracketed(void)
{
	pod("fd00:10:96::1");
	nl_rest_config *c = load_ok();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_STRING_EQUAL(c->server, "https://[fd00:10:96::1]:443");
	nl_rest_config_free(c);
	leave_pod();
}

static void test_incluster__requires_both_variables(void)
{
	const char *msg = "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and "
	                  "KUBERNETES_SERVICE_PORT must be defined";
	nl_rest_config *c = &sentinel;
	nl_err err = {0};
	pod("10.96.0.1");
	unsetenv("KUBERNETES_SERVICE_PORT");
	CU_ASSERT_EQUAL(nl_incluster_load(&c, sa, &err), NL_ECONFIG);
	CU_ASSERT_STRING_EQUAL(err.msg, msg);
	setenv("KUBERNETES_SERVICE_PORT", "443", 1);
	setenv("KUBERNETES_SERVICE_HOST", "", 1);
	CU_ASSERT_EQUAL(nl_incluster_load(&c, sa, &err), NL_ECONFIG);
	CU_ASSERT_PTR_EQUAL(c, &sentinel);
	leave_pod();
}

static void test_incluster__token_must_be_readable(void)
{
	nl_rest_config *c = &sentinel;
	nl_err err = {0};
	pod("10.96.0.1");
	drop("token");
	char *tok = sa_path("token");
	CU_ASSERT_EQUAL(nl_incluster_load(&c, sa, &err), NL_EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, tok));
	CU_ASSERT_PTR_EQUAL(c, &sentinel);
	free(tok);
	leave_pod();
}

static void test_incluster__ca_and_namespace_fallbacks(void)
{
	pod("10.96.0.1");
	/* not a certificate: client-go leaves CAFile unset (system roots) */
	put("ca.crt", "garbage\n");
	drop("namespace");
	nl_rest_config *c = load_ok();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_PTR_NULL(c->ca_file);
	CU_ASSERT_PTR_NULL(c->namespace_);
	nl_rest_config_free(c);
	/* the downward API's POD_NAMESPACE wins over the file */
	pod("10.96.0.1");
	setenv("POD_NAMESPACE", "from-env", 1);
	c = load_ok();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_STRING_EQUAL(c->namespace_, "from-env");
	nl_rest_config_free(c);
	leave_pod();
}

static void test_incluster__token_rotation_reread_after_a_minute(void)
{
	pod("10.96.0.1");
	nl_rest_config *c = load_ok();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	int64_t t0 = 1000 * SEC;
	assert_token_at(c, t0, "tok-1");
	/* the kubelet rotates the projected token */
	put("token", "tok-2\n");
	assert_token_at(c, t0 + 30 * SEC, "tok-1");
	assert_token_at(c, t0 + 60 * SEC - 1, "tok-1");
	assert_token_at(c, t0 + 60 * SEC, "tok-2");
	/* a failed re-read keeps the last good token */
	drop("token");
	assert_token_at(c, t0 + 200 * SEC, "tok-2");
	/* and the file is tried again on the next call */
	put("token", "tok-3");
	assert_token_at(c, t0 + 201 * SEC, "tok-3");
	nl_rest_config_free(c);
	leave_pod();
}

static void test_incluster__token_sources_by_hand(void)
{
	nl_rest_config *c = calloc(1, sizeof(*c));
	char *tok = &sa[0];
	nl_err err = {0};
	/* no credentials: NULL, not an error */
	CU_ASSERT_EQUAL(nl_rest_config_token(&tok, c, 0, &err), 0);
	CU_ASSERT_PTR_NULL(tok);
	c->bearer_token = strdup("static");
	assert_token_at(c, 0, "static");
	/* an unreadable file falls back to the static token */
	c->bearer_token_file = sa_path("no-such-token");
	assert_token_at(c, 0, "static");
	/* with no static token to fall back on, the file's error is returned */
	free(c->bearer_token);
	c->bearer_token = NULL;
	tok = &sa[0];
	CU_ASSERT_EQUAL(nl_rest_config_token(&tok, c, 0, &err), NL_EIO);
	CU_ASSERT_PTR_EQUAL(tok, &sa[0]);
	CU_ASSERT_EQUAL(nl_rest_config_token(NULL, c, 0, &err), NL_EINVAL);
	nl_rest_config_free(c);
}

/* nl_rest_config_load: kubeconfig first, in-cluster only when there is none. */
static void test_incluster__default_loading_order(void)
{
	char *missing = sa_path("no-kubeconfig"), *kc = sa_path("kubeconfig");
	nl_rest_config *c = &sentinel;
	nl_err err = {0};
	setenv("KUBECONFIG", missing, 1);
	CU_ASSERT_EQUAL(nl_rest_config_load(&c, NULL, NULL, &err), NL_ECONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no configuration has been provided"));
	/* in a pod, no kubeconfig means the service account (the default
	 * directory, which this machine lacks) */
	setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
	setenv("KUBERNETES_SERVICE_PORT", "443", 1);
	CU_ASSERT_EQUAL(nl_rest_config_load(&c, NULL, NULL, &err), NL_EIO);
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(err.msg, "/var/run/secrets/kubernetes.io/serviceaccount/token"));
	/* an explicit kubeconfig is never replaced by in-cluster */
	CU_ASSERT_EQUAL(nl_rest_config_load(&c, missing, NULL, &err), NL_EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "stat "));
	CU_ASSERT_PTR_EQUAL(c, &sentinel);
	/* and a kubeconfig that exists wins over the pod's environment */
	put("kubeconfig",
	    "current-context: c\nclusters:\n- name: c\n  cluster: {server: "
	    "'https://outside.example'}\ncontexts:\n- name: c\n  context: {cluster: c}\n");
	setenv("KUBECONFIG", kc, 1);
	c = NULL;
	CU_ASSERT_EQUAL(nl_rest_config_load(&c, NULL, NULL, &err), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_STRING_EQUAL(c->server, "https://outside.example");
	nl_rest_config_free(c);
	unsetenv("KUBECONFIG");
	leave_pod();
	free(missing);
	free(kc);
}

static CU_TestInfo tests[] = {
    {"loads_service_account", test_incluster__loads_service_account},
    {"ipv6_host_is_bracketed", test_incluster__ipv6_host_is_bracketed},
    {"requires_both_variables", test_incluster__requires_both_variables},
    {"token_must_be_readable", test_incluster__token_must_be_readable},
    {"ca_and_namespace_fallbacks", test_incluster__ca_and_namespace_fallbacks},
    {"token_rotation_reread_after_a_minute", test_incluster__token_rotation_reread_after_a_minute},
    {"token_sources_by_hand", test_incluster__token_sources_by_hand},
    {"default_loading_order", test_incluster__default_loading_order},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"incluster", setup, teardown, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
