/* nl_exec_credential_get: client-go's exec credential plugins, run through
 * tests/exec-plugin.sh (as `sh PLUGIN STATEDIR MODE`, which also exercises
 * the $PATH lookup), which records each run in STATEDIR. */
#include "../cu_main.h"

#include <nodelet/config.h>
#include <nodelet/time.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef NL_EXEC_PLUGIN
#define NL_EXEC_PLUGIN "tests/exec-plugin.sh"
#endif

#define V1 "client.authentication.k8s.io/v1"
#define V1BETA1 "client.authentication.k8s.io/v1beta1"

static char state[64];
static nl_exec_credential sentinel;

static char **strv(const char *a, const char *b, const char *c)
{
	char **v = calloc(4, sizeof(*v));
	const char *in[] = {a, b, c};
	for (int i = 0; i < 3 && in[i]; i++)
		v[i] = strdup(in[i]);
	return v;
}

/* A config whose exec runs `sh exec-plugin.sh STATE mode` with env extras. */
static nl_rest_config *plugin_config(const char *mode, const char *api, const char *env1,
                                     const char *env2)
{
	nl_rest_config *c = calloc(1, sizeof(*c));
	c->server = strdup("https://api.example:6443");
	c->exec = calloc(1, sizeof(*c->exec));
	c->exec->api_version = strdup(api);
	c->exec->command = strdup("sh");
	c->exec->args = strv(NL_EXEC_PLUGIN, state, mode);
	c->exec->env = strv(env1, env2, NULL);
	c->exec->interactive_mode = strdup("Never");
	return c;
}

static int setup(void)
{
	strcpy(state, "/tmp/nl-exec-XXXXXX");
	return mkdtemp(state) ? 0 : 1;
}

static int teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", state);
	return system(cmd) == 0 ? 0 : 1;
}

/* Each test starts with no recorded runs. */
static void reset_state(void)
{
	const char *files[] = {"runs", "exec-info", "greeting", "override", "args", "stdin", "fds"};
	char p[128];
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", state, files[i]);
		unlink(p);
	}
}

static char *state_file(const char *name)
{
	char p[128], *buf = calloc(1, 65536);
	snprintf(p, sizeof(p), "%s/%s", state, name);
	FILE *f = fopen(p, "r");
	if (f) {
		size_t n = fread(buf, 1, 65535, f);
		buf[n] = '\0';
		fclose(f);
	}
	return buf;
}

static int runs(void)
{
	char *r = state_file("runs");
	int n = 0;
	for (char *p = r; (p = strstr(p, "run\n")); p += 4)
		n++;
	free(r);
	return n;
}

static nl_exec_credential *get_ok(nl_exec_cache *cache, const nl_rest_config *cfg,
                                  const nl_exec_credential *rejected, int64_t now)
{
	nl_exec_credential *out = NULL;
	nl_err err = {0};
	int rc = nl_exec_credential_get(&out, cache, cfg, rejected, now, &err);
	if (rc)
		fprintf(stderr, "\n  unexpected error %d: %s\n", rc, err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	return out;
}

/* Expect the run to fail with code (and msg when given, exactly). */
static void get_fails(const nl_rest_config *cfg, int timeout_ms, int code, const char *msg)
{
	nl_exec_cache *cache = NULL;
	nl_exec_credential *out = &sentinel;
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(nl_exec_cache_new(&cache, timeout_ms), 0);
	CU_ASSERT_EQUAL(nl_exec_credential_get(&out, cache, cfg, NULL, nl_time_now(), &err), code);
	CU_ASSERT_PTR_EQUAL(out, &sentinel);
	if (msg && strcmp(err.msg, msg) != 0)
		fprintf(stderr, "\n  expected: %s\n  actual:   %s\n", msg, err.msg);
	if (msg)
		CU_ASSERT_STRING_EQUAL(err.msg, msg);
	nl_exec_cache_free(cache);
}

static void test_exec_credential__runs_once_without_expiry(void)
{
	reset_state();
	nl_rest_config *cfg = plugin_config("token", V1, NULL, NULL);
	nl_exec_cache *cache = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_exec_cache_new(&cache, 0), 0);
	int64_t now = nl_time_now();
	nl_exec_credential *a = get_ok(cache, cfg, NULL, now);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_STRING_EQUAL(a->token, "token-1");
	CU_ASSERT_EQUAL(a->expiration_usec, 0);
	CU_ASSERT_EQUAL(a->generation, 1);
	CU_ASSERT_PTR_NULL(a->cert_data);
	/* no expirationTimestamp: cached for the cache's lifetime */
	nl_exec_credential *b = get_ok(cache, cfg, NULL, now + 365LL * 24 * 3600 * 1000000);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_STRING_EQUAL(b->token, "token-1");
	CU_ASSERT_EQUAL(runs(), 1);
	/* the caller owns an independent copy */
	CU_ASSERT_PTR_NOT_EQUAL(a->token, b->token);
	nl_exec_credential_free(a);
	nl_exec_credential_free(b);
	nl_exec_cache_free(cache);
	nl_rest_config_free(cfg);
}

static void test_exec_credential__request_and_environment(void)
{
	reset_state();
	setenv("NL_TEST_OVERRIDE", "from-parent", 1);
	nl_rest_config *cfg =
	    plugin_config("token", V1, "PLUGIN_GREETING=hello", "NL_TEST_OVERRIDE=from-kubeconfig");
	nl_exec_cache *cache = NULL;
	/* a descriptor the agent forgot to mark close-on-exec must not leak */
	int leak = open("/dev/null", O_RDONLY);
	char leak_name[16];
	snprintf(leak_name, sizeof(leak_name), "\n%d\n", leak);
	CU_ASSERT_EQUAL_FATAL(nl_exec_cache_new(&cache, 0), 0);
	nl_exec_credential *c = get_ok(cache, cfg, NULL, nl_time_now());
	close(leak);
	unsetenv("NL_TEST_OVERRIDE");
	nl_exec_credential_free(c);

	char *info = state_file("exec-info");
	json_object *got = nl_test_json(info);
	NL_ASSERT_JSON_EQ(got, "{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1
	                       "\",\"spec\":{\"interactive\":false}}");
	json_object_put(got);
	free(info);

	char *s = state_file("greeting");
	CU_ASSERT_STRING_EQUAL(s, "hello");
	free(s);
	s = state_file("override");
	CU_ASSERT_STRING_EQUAL(s, "from-kubeconfig");
	free(s);
	s = state_file("args");
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "\ntoken\n"));
	free(s);
	s = state_file("stdin");
	CU_ASSERT_STRING_EQUAL(s, "/dev/null\n");
	free(s);
	s = state_file("fds");
	char *fds = NULL;
	CU_ASSERT_FATAL(asprintf(&fds, "\n%s", s) > 0);
	CU_ASSERT_PTR_NULL(strstr(fds, leak_name));
	CU_ASSERT_PTR_NOT_NULL(strstr(fds, "\n1\n"));
	free(fds);
	free(s);
	nl_exec_cache_free(cache);
	nl_rest_config_free(cfg);
}

static void test_exec_credential__provides_cluster_info(void)
{
	reset_state();
	nl_rest_config *cfg = plugin_config("token", V1, NULL, NULL);
	nl_exec_cache *cache = NULL;
	cfg->exec->provide_cluster_info = 1;
	cfg->tls_server_name = strdup("api.internal");
	cfg->proxy_url = strdup("http://proxy:3128");
	cfg->ca_data = (unsigned char *)strdup("CA PEM\n");
	cfg->ca_data_len = 7;
	CU_ASSERT_EQUAL_FATAL(nl_exec_cache_new(&cache, 0), 0);
	nl_exec_credential_free(get_ok(cache, cfg, NULL, nl_time_now()));
	char *info = state_file("exec-info");
	json_object *got = nl_test_json(info);
	NL_ASSERT_JSON_EQ(got, "{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1 "\","
	                       "\"spec\":{\"cluster\":{\"server\":\"https://api.example:6443\","
	                       "\"tls-server-name\":\"api.internal\","
	                       "\"certificate-authority-data\":\"Q0EgUEVNCg==\","
	                       "\"proxy-url\":\"http://proxy:3128\"},\"interactive\":false}}");
	json_object_put(got);
	free(info);
	nl_exec_cache_free(cache);
	nl_rest_config_free(cfg);
}

static void test_exec_credential__reruns_after_expiry(void)
{
	reset_state();
	nl_rest_config *cfg =
	    plugin_config("expiring", V1, "NL_TEST_EXPIRY=2030-01-01T00:00:00Z", NULL);
	nl_exec_cache *cache = NULL;
	int64_t expiry;
	CU_ASSERT_EQUAL_FATAL(nl_time_parse(&expiry, "2030-01-01T00:00:00Z"), 0);
	CU_ASSERT_EQUAL_FATAL(nl_exec_cache_new(&cache, 0), 0);
	nl_exec_credential *a = get_ok(cache, cfg, NULL, expiry - 3600LL * 1000000);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL(a->expiration_usec, expiry);
	CU_ASSERT_STRING_EQUAL(a->token, "token-1");
	nl_exec_credential *b = get_ok(cache, cfg, NULL, expiry);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_STRING_EQUAL(b->token, "token-1");
	CU_ASSERT_EQUAL(runs(), 1);
	/* after expirationTimestamp the plugin runs again */
	nl_exec_credential *c = get_ok(cache, cfg, NULL, expiry + 1000000);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_STRING_EQUAL(c->token, "token-2");
	CU_ASSERT_EQUAL(c->generation, 2);
	CU_ASSERT_EQUAL(runs(), 2);
	nl_exec_credential_free(a);
	nl_exec_credential_free(b);
	nl_exec_credential_free(c);
	nl_exec_cache_free(cache);
	nl_rest_config_free(cfg);
}

static void test_exec_credential__reruns_after_401_once(void)
{
	reset_state();
	nl_rest_config *cfg = plugin_config("token", V1, NULL, NULL);
	nl_exec_cache *cache = NULL;
	int64_t now = nl_time_now();
	CU_ASSERT_EQUAL_FATAL(nl_exec_cache_new(&cache, 0), 0);
	nl_exec_credential *first = get_ok(cache, cfg, NULL, now);
	CU_ASSERT_PTR_NOT_NULL_FATAL(first);
	/* the server refused token-1: forced re-run */
	nl_exec_credential *second = get_ok(cache, cfg, first, now);
	CU_ASSERT_PTR_NOT_NULL_FATAL(second);
	CU_ASSERT_STRING_EQUAL(second->token, "token-2");
	CU_ASSERT_EQUAL(runs(), 2);
	/* another request that failed with token-1 finds it already replaced */
	nl_exec_credential *third = get_ok(cache, cfg, first, now);
	CU_ASSERT_PTR_NOT_NULL_FATAL(third);
	CU_ASSERT_STRING_EQUAL(third->token, "token-2");
	CU_ASSERT_EQUAL(runs(), 2);
	nl_exec_credential_free(first);
	nl_exec_credential_free(second);
	nl_exec_credential_free(third);
	nl_exec_cache_free(cache);
	nl_rest_config_free(cfg);
}

static void test_exec_credential__v1beta1_and_yaml_output(void)
{
	reset_state();
	nl_rest_config *cfg = plugin_config("beta", V1BETA1, NULL, NULL);
	nl_exec_cache *cache = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_exec_cache_new(&cache, 0), 0);
	nl_exec_credential *c = get_ok(cache, cfg, NULL, nl_time_now());
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_STRING_EQUAL(c->token, "beta-1");
	char *info = state_file("exec-info");
	CU_ASSERT_PTR_NOT_NULL(strstr(info, "\"apiVersion\":\"" V1BETA1 "\""));
	free(info);
	nl_exec_credential_free(c);
	nl_exec_cache_free(cache);
	nl_rest_config_free(cfg);
}

static void test_exec_credential__client_certificate(void)
{
	reset_state();
	nl_rest_config *cfg = plugin_config("cert", V1, NULL, NULL);
	nl_exec_cache *cache = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_exec_cache_new(&cache, 0), 0);
	nl_exec_credential *c = get_ok(cache, cfg, NULL, nl_time_now());
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_PTR_NULL(c->token);
	CU_ASSERT_STRING_EQUAL((const char *)c->cert_data, "CERT 1\n");
	CU_ASSERT_EQUAL(c->cert_data_len, 7);
	CU_ASSERT_STRING_EQUAL((const char *)c->key_data, "KEY 1\n");
	CU_ASSERT_EQUAL(c->key_data_len, 6);
	nl_exec_credential_free(c);
	nl_exec_cache_free(cache);
	nl_rest_config_free(cfg);
}

static void test_exec_credential__failing_plugin(void)
{
	reset_state();
	nl_rest_config *cfg = plugin_config("fail", V1, NULL, NULL);
	get_fails(cfg, 0, NL_ERROR, "exec: executable sh failed with exit code 3");
	nl_rest_config_free(cfg);
}

static void test_exec_credential__failure_keeps_cached_credential(void)
{
	reset_state();
	nl_rest_config *cfg = plugin_config("token", V1, NULL, NULL);
	nl_exec_cache *cache = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(nl_exec_cache_new(&cache, 0), 0);
	nl_exec_credential *first = get_ok(cache, cfg, NULL, nl_time_now());
	CU_ASSERT_PTR_NOT_NULL_FATAL(first);
	/* the plugin breaks: a forced refresh fails and changes nothing */
	free(cfg->exec->args[2]);
	cfg->exec->args[2] = strdup("fail");
	nl_exec_credential *out = &sentinel;
	CU_ASSERT_EQUAL(nl_exec_credential_get(&out, cache, cfg, first, nl_time_now(), &err),
	                NL_ERROR);
	CU_ASSERT_PTR_EQUAL(out, &sentinel);
	nl_exec_credential *again = get_ok(cache, cfg, NULL, nl_time_now());
	CU_ASSERT_PTR_NOT_NULL_FATAL(again);
	CU_ASSERT_STRING_EQUAL(again->token, "token-1");
	CU_ASSERT_EQUAL(again->generation, first->generation);
	nl_exec_credential_free(first);
	nl_exec_credential_free(again);
	nl_exec_cache_free(cache);
	nl_rest_config_free(cfg);
}

static void test_exec_credential__missing_binary(void)
{
	nl_rest_config *cfg = plugin_config("token", V1, NULL, NULL);
	free(cfg->exec->command);
	cfg->exec->command = strdup("nodelet-no-such-plugin");
	get_fails(cfg, 0, NL_ENOTFOUND,
	          "exec: executable nodelet-no-such-plugin not found\n\nIt looks like you are "
	          "trying to use a client-go credential plugin that is not installed.\n\nTo learn "
	          "more about this feature, consult the documentation available at:\n      "
	          "https://kubernetes.io/docs/reference/access-authn-authz/authentication/"
	          "#client-go-credential-plugins");
	cfg->exec->install_hint = strdup("Install it with: apt-get install nodelet-plugin");
	nl_exec_cache *cache = NULL;
	nl_exec_credential *out = &sentinel;
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(nl_exec_cache_new(&cache, 0), 0);
	CU_ASSERT_EQUAL(nl_exec_credential_get(&out, cache, cfg, NULL, 0, &err), NL_ENOTFOUND);
	const char *tail = "\n\nInstall it with: apt-get install nodelet-plugin";
	CU_ASSERT_STRING_EQUAL(err.msg + strlen(err.msg) - strlen(tail), tail);
	nl_exec_cache_free(cache);
	/* a path is used as is: no $PATH search */
	free(cfg->exec->command);
	cfg->exec->command = strdup("/nonexistent/bin/sh");
	get_fails(cfg, 0, NL_ENOTFOUND, NULL);
	nl_rest_config_free(cfg);
}

/* Go's exec.ErrDot: a command found through a relative $PATH entry (here
 * "." while in /bin) is not run. */
static void test_exec_credential__relative_path_entries_are_refused(void)
{
	char cwd[4096];
	const char *old = getenv("PATH");
	char *saved = old ? strdup(old) : NULL;
	nl_rest_config *cfg = plugin_config("token", V1, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof(cwd)));
	CU_ASSERT_EQUAL_FATAL(chdir("/bin"), 0);
	setenv("PATH", ".", 1);
	get_fails(cfg, 0, NL_ENOTFOUND, NULL);
	if (saved)
		setenv("PATH", saved, 1);
	CU_ASSERT_EQUAL(chdir(cwd), 0);
	free(saved);
	nl_rest_config_free(cfg);
}

static void test_exec_credential__bad_output(void)
{
	struct {
		const char *mode, *msg;
	} cases[] = {
	    {"wrongversion", "exec plugin is configured to use API version " V1
	                     ", plugin returned version " V1BETA1},
	    {"nostatus", "exec plugin didn't return a status field"},
	    {"certonly", "exec plugin returned only certificate or key, not both"},
	    {"empty", "exec plugin didn't return a token or cert/key pair"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		nl_rest_config *cfg = plugin_config(cases[i].mode, V1, NULL, NULL);
		get_fails(cfg, 0, NL_EPARSE, cases[i].msg);
		nl_rest_config_free(cfg);
	}
	nl_rest_config *cfg = plugin_config("badjson", V1, NULL, NULL);
	nl_exec_cache *cache = NULL;
	nl_exec_credential *out = &sentinel;
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(nl_exec_cache_new(&cache, 0), 0);
	CU_ASSERT_EQUAL(nl_exec_credential_get(&out, cache, cfg, NULL, 0, &err), NL_EPARSE);
	CU_ASSERT_EQUAL(strncmp(err.msg, "decoding stdout: ", 17), 0);
	nl_exec_cache_free(cache);
	nl_rest_config_free(cfg);
}

static void test_exec_credential__timeout_kills_the_plugin(void)
{
	nl_rest_config *cfg = plugin_config("sleep", V1, NULL, NULL);
	time_t start = time(NULL);
	get_fails(cfg, 300, NL_ETIMEOUT, "exec: executable sh did not finish within 300 ms");
	CU_ASSERT(time(NULL) - start < 10);
	nl_rest_config_free(cfg);
}

static void test_exec_credential__output_is_capped(void)
{
	nl_rest_config *cfg = plugin_config("big", V1, NULL, NULL);
	get_fails(cfg, 0, NL_ETOOBIG,
	          "exec: executable sh wrote more than 1048576 bytes to stdout");
	nl_rest_config_free(cfg);
}

static void test_exec_credential__unsupported_settings(void)
{
	nl_rest_config *cfg = plugin_config("token", V1, NULL, NULL);
	free(cfg->exec->interactive_mode);
	cfg->exec->interactive_mode = strdup("Always");
	get_fails(cfg, 0, NL_ECONFIG,
	          "exec plugin cannot support interactive mode: nodelet runs credential plugins "
	          "without a terminal");
	free(cfg->exec->api_version);
	cfg->exec->api_version = strdup("client.authentication.k8s.io/v1alpha1");
	get_fails(cfg, 0, NL_ECONFIG,
	          "exec plugin: invalid apiVersion \"client.authentication.k8s.io/v1alpha1\"");
	nl_exec_config *e = cfg->exec;
	cfg->exec = NULL;
	get_fails(cfg, 0, NL_EINVAL, NULL);
	cfg->exec = e;
	nl_rest_config_free(cfg);
	CU_ASSERT_EQUAL(nl_exec_cache_new(NULL, 0), NL_EINVAL);
	nl_exec_cache_free(NULL);
	nl_exec_credential_free(NULL);
}

static CU_TestInfo tests[] = {
    {"runs_once_without_expiry", test_exec_credential__runs_once_without_expiry},
    {"request_and_environment", test_exec_credential__request_and_environment},
    {"provides_cluster_info", test_exec_credential__provides_cluster_info},
    {"reruns_after_expiry", test_exec_credential__reruns_after_expiry},
    {"reruns_after_401_once", test_exec_credential__reruns_after_401_once},
    {"v1beta1_and_yaml_output", test_exec_credential__v1beta1_and_yaml_output},
    {"client_certificate", test_exec_credential__client_certificate},
    {"failing_plugin", test_exec_credential__failing_plugin},
    {"failure_keeps_cached_credential", test_exec_credential__failure_keeps_cached_credential},
    {"missing_binary", test_exec_credential__missing_binary},
    {"relative_path_entries_are_refused", test_exec_credential__relative_path_entries_are_refused},
    {"bad_output", test_exec_credential__bad_output},
    {"timeout_kills_the_plugin", test_exec_credential__timeout_kills_the_plugin},
    {"output_is_capped", test_exec_credential__output_is_capped},
    {"unsupported_settings", test_exec_credential__unsupported_settings},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"exec_credential", setup, teardown, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
