/* nl_kubeconfig_load: kubectl's loading rules (clientcmd loader.go), merge
 * order, context selection, relative paths, inline data and clientcmd's
 * validation messages. Fixtures: fixtures/kubeconfigs/. */
#include "../cu_main.h"

#include <nodelet/config.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static nl_rest_config sentinel;

static char *fixture(const char *rel)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "kubeconfigs/%s", rel);
	return strdup(nl_test_fixture(path));
}

/* Load and expect success; the config is freed by the caller. */
static nl_rest_config *load_ok(const char *path, const char *context)
{
	nl_rest_config *c = NULL;
	nl_err err = {0};
	int rc = nl_kubeconfig_load(&c, path, context, &err);
	if (rc)
		fprintf(stderr, "\n  unexpected error %d: %s\n", rc, err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	return c;
}

/* Load and expect failure with code and exactly msg; out stays untouched. */
static void load_fails(const char *path, const char *context, int code, const char *msg)
{
	nl_rest_config *c = &sentinel;
	nl_err err = {0};
	CU_ASSERT_EQUAL(nl_kubeconfig_load(&c, path, context, &err), code);
	CU_ASSERT_EQUAL(err.code, code);
	CU_ASSERT_PTR_EQUAL(c, &sentinel);
	if (msg && strcmp(err.msg, msg) != 0)
		fprintf(stderr, "\n  expected: %s\n  actual:   %s\n", msg, err.msg);
	if (msg)
		CU_ASSERT_STRING_EQUAL(err.msg, msg);
}

static void fails_in(const char *fixture_name, const char *context, const char *msg)
{
	char *p = fixture(fixture_name);
	load_fails(p, context, NL_ECONFIG, msg);
	free(p);
}

static char *temp_dir(void)
{
	char tmpl[] = "/tmp/nl-kubeconfig-XXXXXX";
	char *d = mkdtemp(tmpl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	return strdup(d);
}

static char *write_file(const char *dir, const char *name, const char *text)
{
	char *path = NULL;
	CU_ASSERT_FATAL(asprintf(&path, "%s/%s", dir, name) > 0);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void remove_tree(const char *dir)
{
	char *cmd = NULL;
	CU_ASSERT_FATAL(asprintf(&cmd, "rm -rf '%s'", dir) > 0);
	CU_ASSERT_EQUAL(system(cmd), 0);
	free(cmd);
}

/* Both name the same existing file (fixture paths may contain "..", so the
 * comparison is through realpath). */
static void assert_same_file(const char *actual, const char *expected_fixture)
{
	char a[PATH_MAX], e[PATH_MAX];
	char *want = fixture(expected_fixture);
	CU_ASSERT_PTR_NOT_NULL_FATAL(actual);
	CU_ASSERT_EQUAL(actual[0], '/');
	CU_ASSERT_PTR_NULL(strstr(actual, "/./"));
	CU_ASSERT_PTR_NULL(strstr(actual, "/../"));
	CU_ASSERT_PTR_NOT_NULL(realpath(actual, a));
	CU_ASSERT_PTR_NOT_NULL(realpath(want, e));
	CU_ASSERT_STRING_EQUAL(a, e);
	free(want);
}

/* ---- one file --------------------------------------------------------------- */

static void test_kubeconfig__uses_current_context(void)
{
	char *p = fixture("single.yaml");
	nl_rest_config *c = load_ok(p, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	/* a trailing slash names the same server */
	CU_ASSERT_STRING_EQUAL(c->server, "https://prod.example.com:6443");
	CU_ASSERT_STRING_EQUAL(c->tls_server_name, "api.prod.internal");
	CU_ASSERT_STRING_EQUAL(c->proxy_url, "http://proxy.example.com:3128");
	CU_ASSERT_EQUAL(c->insecure_skip_tls_verify, 0);
	CU_ASSERT_PTR_NULL(c->ca_file);
	CU_ASSERT_STRING_EQUAL(
	    (const char *)c->ca_data,
	    "-----BEGIN CERTIFICATE-----\ninline-ca\n-----END CERTIFICATE-----\n");
	CU_ASSERT_STRING_EQUAL(c->bearer_token, "alice-token");
	CU_ASSERT_PTR_NULL(c->bearer_token_file);
	CU_ASSERT_PTR_NULL(c->username);
	CU_ASSERT_PTR_NULL(c->exec);
	CU_ASSERT_STRING_EQUAL(c->namespace_, "kube-system");
	CU_ASSERT_STRING_EQUAL(c->source, p);
	nl_rest_config_free(c);
	free(p);
}

static void test_kubeconfig__chosen_context_overrides_current(void)
{
	char *p = fixture("single.yaml");
	nl_rest_config *c = load_ok(p, "dev");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_STRING_EQUAL(c->server, "http://127.0.0.1:8080");
	CU_ASSERT_EQUAL(c->insecure_skip_tls_verify, 1);
	CU_ASSERT_STRING_EQUAL(c->username, "carol");
	CU_ASSERT_STRING_EQUAL(c->password, "s3cret");
	CU_ASSERT_PTR_NULL(c->bearer_token);
	CU_ASSERT_PTR_NULL(c->namespace_);
	nl_rest_config_free(c);

	/* a context without a user means no credentials, as with kubectl */
	c = load_ok(p, "anonymous");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_PTR_NULL(c->bearer_token);
	CU_ASSERT_PTR_NULL(c->username);
	CU_ASSERT_PTR_NULL(c->cert_data);
	nl_rest_config_free(c);
	free(p);
}

static void test_kubeconfig__missing_chosen_context(void)
{
	fails_in("single.yaml", "staging", "context \"staging\" does not exist");
}

static void test_kubeconfig__inline_data_is_decoded_in_memory(void)
{
	char *p = fixture("inline.yaml");
	nl_rest_config *c = load_ok(p, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	const char *ca = "-----BEGIN CERTIFICATE-----\ninline-ca\n-----END CERTIFICATE-----\n";
	const char *cert =
	    "-----BEGIN CERTIFICATE-----\ninline-client\n-----END CERTIFICATE-----\n";
	const char *key = "-----BEGIN PRIVATE KEY-----\ninline-key\n-----END PRIVATE KEY-----\n";
	CU_ASSERT_EQUAL(c->ca_data_len, strlen(ca));
	CU_ASSERT_EQUAL(memcmp(c->ca_data, ca, strlen(ca)), 0);
	CU_ASSERT_EQUAL(c->cert_data_len, strlen(cert));
	CU_ASSERT_EQUAL(memcmp(c->cert_data, cert, strlen(cert)), 0);
	CU_ASSERT_EQUAL(c->key_data_len, strlen(key));
	CU_ASSERT_EQUAL(memcmp(c->key_data, key, strlen(key)), 0);
	CU_ASSERT_PTR_NULL(c->ca_file);
	CU_ASSERT_PTR_NULL(c->cert_file);
	CU_ASSERT_PTR_NULL(c->key_file);
	nl_rest_config_free(c);
	free(p);
}

static void test_kubeconfig__relative_paths_resolve_against_the_file(void)
{
	char *p = fixture("relative/config");
	nl_rest_config *c = load_ok(p, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	assert_same_file(c->ca_file, "relative/certs/ca.crt");
	assert_same_file(c->cert_file, "relative/certs/client.crt");
	assert_same_file(c->key_file, "relative/certs/client.key");
	assert_same_file(c->bearer_token_file, "relative/sub/token");
	/* tokenFile is read at load time, whitespace trimmed */
	CU_ASSERT_STRING_EQUAL(c->bearer_token, "file-token");
	nl_rest_config_free(c);
	free(p);
}

static void test_kubeconfig__relative_kubeconfig_path_uses_cwd(void)
{
	char cwd[PATH_MAX], *dir = fixture("");
	CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof(cwd)));
	CU_ASSERT_EQUAL_FATAL(chdir(dir), 0);
	setenv("KUBECONFIG", "relative/config", 1);
	nl_rest_config *c = load_ok(NULL, NULL);
	unsetenv("KUBECONFIG");
	CU_ASSERT_EQUAL_FATAL(chdir(cwd), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	assert_same_file(c->ca_file, "relative/certs/ca.crt");
	assert_same_file(c->bearer_token_file, "relative/sub/token");
	nl_rest_config_free(c);
	free(dir);
}

static void test_kubeconfig__exec_plugin_settings(void)
{
	char *p = fixture("exec.yaml");
	nl_rest_config *c = load_ok(p, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->exec);
	nl_exec_config *e = c->exec;
	CU_ASSERT_STRING_EQUAL(e->api_version, "client.authentication.k8s.io/v1");
	/* a bare name is left for the $PATH lookup */
	CU_ASSERT_STRING_EQUAL(e->command, "example-plugin");
	CU_ASSERT_STRING_EQUAL(e->args[0], "get-token");
	CU_ASSERT_STRING_EQUAL(e->args[1], "--cluster");
	CU_ASSERT_STRING_EQUAL(e->args[2], "c");
	CU_ASSERT_PTR_NULL(e->args[3]);
	CU_ASSERT_STRING_EQUAL(e->env[0], "PLUGIN_MODE=test");
	CU_ASSERT_STRING_EQUAL(e->env[1], "EMPTY=");
	CU_ASSERT_PTR_NULL(e->env[2]);
	CU_ASSERT_STRING_EQUAL(e->install_hint, "install example-plugin with your package manager");
	CU_ASSERT_EQUAL(e->provide_cluster_info, 1);
	CU_ASSERT_STRING_EQUAL(e->interactive_mode, "Never");
	nl_rest_config_free(c);

	/* v1beta1 defaults interactiveMode to IfAvailable; no args is an empty list */
	c = load_ok(p, "beta");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_STRING_EQUAL(c->exec->interactive_mode, "IfAvailable");
	CU_ASSERT_STRING_EQUAL(c->exec->command, "/usr/local/bin/beta-plugin");
	CU_ASSERT_PTR_NULL(c->exec->args[0]);
	CU_ASSERT_PTR_NULL(c->exec->env[0]);
	CU_ASSERT_EQUAL(c->exec->provide_cluster_info, 0);
	nl_rest_config_free(c);

	/* a command with a '/' is a path relative to the kubeconfig */
	c = load_ok(p, "relative");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	const char *cmd = c->exec->command, *tail = "/kubeconfigs/bin/plugin";
	CU_ASSERT_EQUAL(cmd[0], '/');
	CU_ASSERT_PTR_NULL(strstr(cmd, "/./"));
	CU_ASSERT(strlen(cmd) > strlen(tail) &&
	          strcmp(cmd + strlen(cmd) - strlen(tail), tail) == 0);
	nl_rest_config_free(c);
	free(p);
}

static void test_kubeconfig__exec_validation(void)
{
	fails_in("exec.yaml", "unnamed-env",
	         "invalid configuration: env variable name must be specified for unnamed-env-user "
	         "to use exec authentication plugin");
	fails_in("exec.yaml", "no-mode",
	         "invalid configuration: interactiveMode must be specified for no-mode-user to use "
	         "exec authentication plugin");
}

/* ---- which files ------------------------------------------------------------ */

static void test_kubeconfig__explicit_path_must_exist(void)
{
	char *p = fixture("no-such-file.yaml"), *want = NULL;
	CU_ASSERT_FATAL(asprintf(&want, "stat %s: no such file or directory", p) > 0);
	/* even with a usable $KUBECONFIG: the explicit path is not a fallback */
	char *single = fixture("single.yaml");
	setenv("KUBECONFIG", single, 1);
	load_fails(p, NULL, NL_EIO, want);
	unsetenv("KUBECONFIG");
	free(want);
	free(single);
	free(p);
}

static void test_kubeconfig__explicit_path_wins_over_env(void)
{
	char *a = fixture("merge-a.yaml"), *single = fixture("single.yaml");
	setenv("KUBECONFIG", a, 1);
	nl_rest_config *c = load_ok(single, NULL);
	unsetenv("KUBECONFIG");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_STRING_EQUAL(c->server, "https://prod.example.com:6443");
	nl_rest_config_free(c);
	free(a);
	free(single);
}

static void set_kubeconfig_list(const char *first, const char *second)
{
	char *a = fixture(first), *b = fixture(second), *missing = fixture("missing.yaml");
	char *list = NULL;
	/* a missing file and empty entries in the list are skipped */
	CU_ASSERT_FATAL(asprintf(&list, "%s::%s:%s", a, missing, b) > 0);
	setenv("KUBECONFIG", list, 1);
	free(list);
	free(a);
	free(b);
	free(missing);
}

static void test_kubeconfig__merge_first_file_wins_by_name(void)
{
	set_kubeconfig_list("merge-a.yaml", "merge-b.yaml");
	/* current-context: a sets none, so b's applies */
	nl_rest_config *c = load_ok(NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_STRING_EQUAL(c->server, "https://b-only.example:6443");
	CU_ASSERT_STRING_EQUAL(c->username, "bob");
	nl_rest_config_free(c);

	/* "shared" and "shared-user" come whole from a: b's insecure flag is dropped */
	c = load_ok(NULL, "ctx-a");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_STRING_EQUAL(c->server, "https://a.example:6443");
	CU_ASSERT_EQUAL(c->insecure_skip_tls_verify, 0);
	CU_ASSERT_STRING_EQUAL(c->bearer_token, "token-a");
	CU_ASSERT_STRING_EQUAL(c->namespace_, "from-a");
	nl_rest_config_free(c);

	/* the context defined in both files is a's */
	c = load_ok(NULL, "shared-ctx");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_STRING_EQUAL(c->server, "https://a-only.example:6443");
	CU_ASSERT_STRING_EQUAL(c->bearer_token, "token-a");
	CU_ASSERT_PTR_NULL(c->username);
	nl_rest_config_free(c);
	unsetenv("KUBECONFIG");
}

static void test_kubeconfig__merge_order_matters(void)
{
	set_kubeconfig_list("merge-b.yaml", "merge-a.yaml");
	nl_rest_config *c = load_ok(NULL, "ctx-a");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_STRING_EQUAL(c->server, "https://b.example:6443");
	CU_ASSERT_EQUAL(c->insecure_skip_tls_verify, 1);
	CU_ASSERT_STRING_EQUAL(c->bearer_token, "token-b");
	/* the context itself came from a */
	char *a = fixture("merge-a.yaml");
	CU_ASSERT_STRING_EQUAL(c->source, a);
	free(a);
	nl_rest_config_free(c);

	c = load_ok(NULL, "shared-ctx");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_STRING_EQUAL(c->server, "https://b-only.example:6443");
	CU_ASSERT_STRING_EQUAL(c->username, "bob");
	nl_rest_config_free(c);
	unsetenv("KUBECONFIG");
}

static void test_kubeconfig__first_current_context_wins(void)
{
	char *a = fixture("single.yaml"), *b = fixture("merge-b.yaml"), *list = NULL;
	CU_ASSERT_FATAL(asprintf(&list, "%s:%s", b, a) > 0);
	setenv("KUBECONFIG", list, 1);
	nl_rest_config *c = load_ok(NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_STRING_EQUAL(c->server, "https://b-only.example:6443");
	nl_rest_config_free(c);
	unsetenv("KUBECONFIG");
	free(list);
	free(a);
	free(b);
}

static void test_kubeconfig__no_files_is_no_configuration(void)
{
	const char *msg = "invalid configuration: no configuration has been provided, try "
	                  "setting KUBERNETES_MASTER environment variable";
	char *missing = fixture("missing.yaml"), *empty = fixture("empty.yaml");
	setenv("KUBECONFIG", missing, 1);
	load_fails(NULL, NULL, NL_ECONFIG, msg);
	/* a file holding only a comment is an empty configuration */
	load_fails(empty, NULL, NL_ECONFIG, msg);
	unsetenv("KUBECONFIG");
	free(missing);
	free(empty);
}

static void test_kubeconfig__home_default(void)
{
	char *home = temp_dir(), *kube = NULL, *p;
	const char *old = getenv("HOME");
	char *saved = old ? strdup(old) : NULL;
	CU_ASSERT_FATAL(asprintf(&kube, "%s/.kube", home) > 0);
	CU_ASSERT_EQUAL_FATAL(mkdir(kube, 0700), 0);
	p = write_file(kube, "config",
	               "apiVersion: v1\nkind: Config\ncurrent-context: home\n"
	               "clusters:\n- name: home\n  cluster: {server: 'https://home.example'}\n"
	               "contexts:\n- name: home\n  context: {cluster: home}\n");
	setenv("HOME", home, 1);
	unsetenv("KUBECONFIG");
	nl_rest_config *c = load_ok(NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL(c);
	if (c)
		CU_ASSERT_STRING_EQUAL(c->server, "https://home.example");
	nl_rest_config_free(c);
	/* an empty $KUBECONFIG counts as unset */
	setenv("KUBECONFIG", "", 1);
	c = load_ok(NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL(c);
	nl_rest_config_free(c);
	unsetenv("KUBECONFIG");
	if (saved)
		setenv("HOME", saved, 1);
	else
		unsetenv("HOME");
	remove_tree(home);
	free(saved);
	free(p);
	free(kube);
	free(home);
}

/* ---- what cannot be loaded -------------------------------------------------- */

static void expect_file_error(const char *name, int code, const char *detail)
{
	char *p = fixture(name), *want = NULL;
	CU_ASSERT_FATAL(asprintf(&want, "error loading config file \"%s\": %s", p, detail) > 0);
	load_fails(p, NULL, code, want);
	/* the same failure through $KUBECONFIG: a broken file is not skipped */
	setenv("KUBECONFIG", p, 1);
	load_fails(NULL, NULL, code, want);
	unsetenv("KUBECONFIG");
	free(want);
	free(p);
}

static void test_kubeconfig__bad_yaml_reports_line_and_column(void)
{
	expect_file_error("bad-yaml.yaml", NL_EPARSE,
	                  "yaml: line 6, column 1: found unexpected end of stream (while scanning "
	                  "a quoted scalar at line 5, column 13)");
}

static void test_kubeconfig__bad_base64(void)
{
	expect_file_error("bad-base64.yaml", NL_EPARSE,
	                  "clusters[0].cluster.certificate-authority-data: illegal base64 data at "
	                  "input byte 4");
}

static void test_kubeconfig__wrong_types(void)
{
	expect_file_error("bad-type.yaml", NL_EPARSE,
	                  "users[0].user.token: expected string, got number");
	expect_file_error("duplicate.yaml", NL_EPARSE, "duplicate name \"twice\" in clusters");
}

static void test_kubeconfig__not_a_config(void)
{
	char *dir = temp_dir(), *want = NULL;
	char *p = write_file(dir, "pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n");
	CU_ASSERT_FATAL(asprintf(&want,
	                         "error loading config file \"%s\": no kind \"Pod\" is registered "
	                         "for version \"v1\"",
	                         p) > 0);
	load_fails(p, NULL, NL_EPARSE, want);
	free(want);
	free(p);
	p = write_file(dir, "list.yaml", "- a\n- b\n");
	CU_ASSERT_FATAL(asprintf(&want,
	                         "error loading config file \"%s\": expected a mapping at the top "
	                         "level, got array",
	                         p) > 0);
	load_fails(p, NULL, NL_EPARSE, want);
	/* a directory cannot be read as a file */
	load_fails(dir, NULL, NL_EIO, NULL);
	remove_tree(dir);
	free(want);
	free(p);
	free(dir);
}

static void test_kubeconfig__unreadable_token_file(void)
{
	char *dir = temp_dir();
	char *p = write_file(dir, "config",
	                     "current-context: c\nclusters:\n- name: c\n  cluster: {server: "
	                     "'https://c'}\nusers:\n- name: u\n  user: {tokenFile: "
	                     "missing-token}\ncontexts:\n- name: c\n  context: {cluster: c, user: "
	                     "u}\n");
	char *tok = NULL;
	CU_ASSERT_FATAL(asprintf(&tok, "%s/missing-token", dir) > 0);
	nl_rest_config *c = &sentinel;
	nl_err err = {0};
	CU_ASSERT_EQUAL(nl_kubeconfig_load(&c, p, NULL, &err), NL_EIO);
	CU_ASSERT_PTR_EQUAL(c, &sentinel);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, tok));
	/* an empty token file is refused as client-go's file token source does */
	free(write_file(dir, "missing-token", " \n"));
	CU_ASSERT_EQUAL(nl_kubeconfig_load(&c, p, NULL, &err), NL_EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "read empty token from file"));
	remove_tree(dir);
	free(tok);
	free(p);
	free(dir);
}

static void test_kubeconfig__unusable_entries(void)
{
	fails_in("invalid.yaml", NULL,
	         "invalid configuration: context was not found for specified context: ghost");
	fails_in("invalid.yaml", "missing-refs",
	         "invalid configuration: [cluster \"nowhere\" was not found for context "
	         "\"missing-refs\", user \"nobody\" was not found for context \"missing-refs\"]");
	fails_in("invalid.yaml", "no-server",
	         "invalid configuration: no server found for cluster \"no-server\"");
	fails_in("invalid.yaml", "ca-twice",
	         "invalid configuration: [certificate-authority-data and certificate-authority are "
	         "both specified for ca-twice. certificate-authority-data will override., unable "
	         "to read certificate-authority /nonexistent/ca.crt for ca-twice due to open "
	         "/nonexistent/ca.crt: No such file or directory]");
	fails_in("invalid.yaml", "insecure-ca",
	         "invalid configuration: specifying a root certificates file with the insecure "
	         "flag is not allowed");
	fails_in("invalid.yaml", "two-methods",
	         "invalid configuration: more than one authentication method found for "
	         "two-methods; found [token basicAuth], only one is allowed");
	fails_in("invalid.yaml", "cert-no-key",
	         "invalid configuration: client-key-data or client-key must be specified for "
	         "cert-no-key to use the clientCert authentication method.");
	fails_in("invalid.yaml", "bad-namespace",
	         "invalid configuration: namespace \"Not_A_Label\" for context \"bad-namespace\" "
	         "does not conform to the kubernetes DNS_LABEL rules");
	fails_in("invalid.yaml", "socks4",
	         "invalid configuration: invalid 'proxy-url' \"socks4://proxy:1080\" for cluster "
	         "\"socks4\": unsupported scheme \"socks4\", must be http, https, or socks5");
	fails_in("invalid.yaml", "no-cluster",
	         "invalid configuration: [cluster was not specified for context \"no-cluster\", "
	         "more than one authentication method found for two-methods; found [token "
	         "basicAuth], only one is allowed]");
}

static void test_kubeconfig__no_context_chosen(void)
{
	fails_in("merge-a.yaml", NULL,
	         "invalid configuration: no context chosen (current-context is not set and no "
	         "context was given)");
}

static void test_kubeconfig__free_accepts_null(void)
{
	nl_rest_config_free(NULL);
	CU_ASSERT_EQUAL(nl_kubeconfig_load(NULL, NULL, NULL, NULL), NL_EINVAL);
}

static CU_TestInfo tests[] = {
    {"uses_current_context", test_kubeconfig__uses_current_context},
    {"chosen_context_overrides_current", test_kubeconfig__chosen_context_overrides_current},
    {"missing_chosen_context", test_kubeconfig__missing_chosen_context},
    {"inline_data_is_decoded_in_memory", test_kubeconfig__inline_data_is_decoded_in_memory},
    {"relative_paths_resolve_against_the_file",
     test_kubeconfig__relative_paths_resolve_against_the_file},
    {"relative_kubeconfig_path_uses_cwd", test_kubeconfig__relative_kubeconfig_path_uses_cwd},
    {"exec_plugin_settings", test_kubeconfig__exec_plugin_settings},
    {"exec_validation", test_kubeconfig__exec_validation},
    {"explicit_path_must_exist", test_kubeconfig__explicit_path_must_exist},
    {"explicit_path_wins_over_env", test_kubeconfig__explicit_path_wins_over_env},
    {"merge_first_file_wins_by_name", test_kubeconfig__merge_first_file_wins_by_name},
    {"merge_order_matters", test_kubeconfig__merge_order_matters},
    {"first_current_context_wins", test_kubeconfig__first_current_context_wins},
    {"no_files_is_no_configuration", test_kubeconfig__no_files_is_no_configuration},
    {"home_default", test_kubeconfig__home_default},
    {"bad_yaml_reports_line_and_column", test_kubeconfig__bad_yaml_reports_line_and_column},
    {"bad_base64", test_kubeconfig__bad_base64},
    {"wrong_types", test_kubeconfig__wrong_types},
    {"not_a_config", test_kubeconfig__not_a_config},
    {"unreadable_token_file", test_kubeconfig__unreadable_token_file},
    {"unusable_entries", test_kubeconfig__unusable_entries},
    {"no_context_chosen", test_kubeconfig__no_context_chosen},
    {"free_accepts_null", test_kubeconfig__free_accepts_null},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"kubeconfig", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
