/* Every way the client authenticates, end to end against nodelet-mockapi
 * over HTTPS in-process (certificates from the mock's certs code,
 * --client-ca-file, --token-auth-file, --anonymous-auth=false): each
 * configuration is built as a user would — a kubeconfig written by the
 * test, the in-cluster environment, a merged $KUBECONFIG — and the server's
 * journal must name the expected user. Failures: an unknown token and an
 * expired client certificate are the mock's 401 Status unchanged; an
 * untrusted CA and a certificate for another host are NL_ETLS, the latter
 * fixed by tls-server-name. */
#include <nodelet/base64.h>
#include <nodelet/configmap.h>
#include <nodelet/meta.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../cu_main.h"
#include "auth/certs.h"
#include "mockapi.h"

static char dir[64];
static mock_server *srv;   /* serving certificate for 127.0.0.1 */
static mock_server *named; /* serving certificate for kubernetes.default only */
static mock_cert_set pki;  /* CA, server and client (CN cert-user, O devs) */

static const char TOKENS[] = "static-token,token-user,uid-1\n"
                             "file-token,file-user,uid-2\n"
                             "token-1,exec-user,uid-3\n"
                             "token-3,exec-user,uid-3\n"
                             "sa-token,system:serviceaccount:default:nodelet,uid-4\n";

static const char PROBE[] = "apiVersion: v1\nkind: ConfigMap\n"
                            "metadata: {name: probe, namespace: default}\n"
                            "data: {k: v}\n";

static const char *path_in(const char *name)
{
	static char buf[4][256];
	static int next;
	char *p = buf[next++ % 4];
	snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
	return p;
}

static int write_file(const char *name, const char *text)
{
	FILE *f = fopen(path_in(name), "wb");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int write_pair(const char *name, const mock_keypair *k)
{
	char n[128];
	snprintf(n, sizeof(n), "%s.crt", name);
	if (write_file(n, k->cert_pem) != 0)
		return -1;
	snprintf(n, sizeof(n), "%s.key", name);
	return write_file(n, k->key_pem);
}

/* An expired client certificate from the trusted CA, a serving certificate
 * naming only kubernetes.default, and a CA nobody trusts. */
static int make_extra_certs(void)
{
	int64_t now = time(NULL);
	const char *name[] = {"kubernetes.default"};
	mock_cert_spec expired = {.common_name = "old-user",
	                          .not_before = now - 7200,
	                          .not_after = now - 3600,
	                          .client = 1};
	mock_cert_spec server = {.common_name = "kubernetes.default",
	                         .not_before = now - 3600,
	                         .not_after = now + 86400,
	                         .server = 1,
	                         .dns_names = name,
	                         .ndns = 1};
	mock_cert_spec stranger = {.common_name = "stranger-ca",
	                           .not_before = now - 3600,
	                           .not_after = now + 86400,
	                           .ca = 1};
	mock_keypair a = {0}, b = {0}, c = {0};
	nl_err err = {0};
	int rc = -1;
	if (mock_cert_issue(&a, &expired, &pki.ca, &err) != 0 ||
	    mock_cert_issue(&b, &server, &pki.ca, &err) != 0 ||
	    mock_cert_issue(&c, &stranger, NULL, &err) != 0) {
		fprintf(stderr, "certs: %s\n", err.msg);
		goto cleanup;
	}
	if (write_pair("expired", &a) == 0 && write_pair("named", &b) == 0 &&
	    write_pair("stranger", &c) == 0)
		rc = 0;
cleanup:
	mock_keypair_clear(&a);
	mock_keypair_clear(&b);
	mock_keypair_clear(&c);
	return rc;
}

static mock_server *start(const char *cert_name)
{
	char cert[256], key[256], ca[256], tokens[256], fixture[256];
	const char *fixtures[1] = {fixture};
	mock_options o;
	nl_err err = {0};
	mock_server *s = NULL;
	snprintf(cert, sizeof(cert), "%s/%s.crt", dir, cert_name);
	snprintf(key, sizeof(key), "%s/%s.key", dir, cert_name);
	snprintf(ca, sizeof(ca), "%s/pki/ca.crt", dir);
	snprintf(tokens, sizeof(tokens), "%s/tokens.csv", dir);
	snprintf(fixture, sizeof(fixture), "%s/probe.yaml", dir);
	mock_options_init(&o);
	o.port = 0;
	o.controller_tick_ms = 0;
	o.tls_cert_file = cert;
	o.tls_private_key_file = key;
	o.client_ca_file = ca;
	o.token_auth_file = tokens;
	o.anonymous_auth = 0;
	o.fixtures = fixtures;
	o.nfixtures = 1;
	if (mock_server_new(&s, &o, &err) != 0 || mock_server_start(s, &err) != 0) {
		fprintf(stderr, "cannot start server: %s\n", err.msg);
		mock_server_free(s);
		return NULL;
	}
	return s;
}

static int setup(void)
{
	nl_err err = {0};
	strcpy(dir, "/tmp/nl-clientauth-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	if (mock_certs_generate(&pki, "cert-user", "devs", NULL, &err) != 0 ||
	    mock_certs_write_dir(path_in("pki"), &pki, &err) != 0) {
		fprintf(stderr, "certs: %s\n", err.msg);
		return 1;
	}
	if (make_extra_certs() != 0 || write_file("tokens.csv", TOKENS) != 0 ||
	    write_file("probe.yaml", PROBE) != 0 || write_file("file.token", "file-token\n") != 0)
		return 1;
	srv = start("pki/server");
	named = start("named");
	return !srv || !named;
}

static int teardown(void)
{
	char cmd[128];
	mock_server_free(srv);
	mock_server_free(named);
	mock_cert_set_clear(&pki);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : 1;
}

/* ------------------------------------------------------------------------ */

/* base64 of a PEM, for kubeconfig "-data" fields (caller frees). */
static char *b64(const char *pem)
{
	char *out = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_base64_encode(&out, (const unsigned char *)pem, strlen(pem)), 0);
	return out;
}

/* Write a kubeconfig named name: one cluster (server s; the cluster's
 * extra YAML lines) and one user (its YAML lines), both indented by the
 * caller for "cluster:" / "user:" (4 spaces). */
static const char *kubeconfig(const char *name, const mock_server *s, const char *cluster,
                              const char *user)
{
	char text[16384];
	snprintf(text, sizeof(text),
	         "apiVersion: v1\nkind: Config\ncurrent-context: ctx\n"
	         "clusters:\n- name: mock\n  cluster:\n    server: %s\n%s"
	         "contexts:\n- name: ctx\n  context: {cluster: mock, user: u}\n"
	         "users:\n- name: u\n  user:\n%s",
	         mock_server_url(s), cluster, user);
	CU_ASSERT_EQUAL_FATAL(write_file(name, text), 0);
	return path_in(name);
}

static const char *ca_file_line(void)
{
	static char line[300];
	snprintf(line, sizeof(line), "    certificate-authority: %s/pki/ca.crt\n", dir);
	return line;
}

static uint64_t journal_last_seq(mock_server *s)
{
	char *text = NULL;
	CU_ASSERT_EQUAL_FATAL(mock_server_journal(&text, s, 0), 0);
	json_object *j = json_tokener_parse(text);
	uint64_t seq = (uint64_t)json_object_get_int64(json_object_object_get(j, "lastSeq"));
	json_object_put(j);
	free(text);
	return seq;
}

/* The user recorded for the last request to the probe after seq, or
 * "(none)" when there was none. */
static void journal_user(char *out, size_t outlen, mock_server *s, uint64_t seq)
{
	char *text = NULL;
	snprintf(out, outlen, "(none)");
	CU_ASSERT_EQUAL_FATAL(mock_server_journal(&text, s, seq), 0);
	json_object *j = json_tokener_parse(text);
	json_object *items = json_object_object_get(j, "items");
	for (size_t i = 0; i < json_object_array_length(items); i++) {
		json_object *e = json_object_array_get_idx(items, i);
		if (strcmp(nl_json_get_string(e, "path"),
		           "/api/v1/namespaces/default/configmaps/probe") == 0)
			snprintf(out, outlen, "%s", nl_json_get_string(e, "user"));
	}
	json_object_put(j);
	free(text);
}

/* GET the probe ConfigMap through a client for cfg (freed here); the
 * result in res, the user the server saw in user. */
static int probe(nl_rest_config *cfg, mock_server *s, nl_result *res, char *user, size_t userlen)
{
	nl_client *c = NULL;
	nl_client_options o;
	nl_err err = {0};
	json_object *cm = NULL;
	nl_client_options_init(&o);
	o.qps = -1;
	o.timeout_ms = 20000;
	int rc = nl_client_new(&c, cfg, &o, &err);
	if (rc != 0)
		fprintf(stderr, "\nclient: %s\n", err.msg);
	nl_rest_config_free(cfg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	uint64_t seq = journal_last_seq(s);
	rc = nl_configmap_get(&cm, c, "default", "probe", res);
	if (rc == 0)
		CU_ASSERT_STRING_EQUAL(nl_configmap_data(cm, "k"), "v");
	journal_user(user, userlen, s, seq);
	json_object_put(cm);
	nl_client_free(c);
	return rc;
}

static nl_rest_config *load(const char *path)
{
	nl_rest_config *cfg = NULL;
	nl_err err = {0};
	int rc = nl_kubeconfig_load(&cfg, path, NULL, &err);
	if (rc != 0)
		fprintf(stderr, "\nkubeconfig: %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	return cfg;
}

/* The kubeconfig at path authenticates as want. */
static void expect_user(const char *path, mock_server *s, const char *want)
{
	nl_result res = NL_RESULT_INIT;
	char user[128];
	int rc = probe(load(path), s, &res, user, sizeof(user));
	if (rc != 0)
		fprintf(stderr, "\n%s: %s\n", path, res.message);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_STRING_EQUAL(user, want);
	nl_result_clear(&res);
}

/* The kubeconfig at path gets kube-apiserver's 401, message unchanged. */
static void expect_unauthorized(const char *path)
{
	nl_result res = NL_RESULT_INIT;
	char user[128];
	CU_ASSERT_EQUAL(probe(load(path), srv, &res, user, sizeof(user)), NL_EUNAUTHORIZED);
	CU_ASSERT_EQUAL(res.http_status, 401);
	CU_ASSERT_STRING_EQUAL(res.message, "Unauthorized");
	CU_ASSERT_STRING_EQUAL(nl_result_reason(&res), "Unauthorized");
	CU_ASSERT_TRUE(nl_is_unauthorized(&res));
	CU_ASSERT_STRING_EQUAL(user, "");
	nl_result_clear(&res);
}

/* ------------------------------------------------------------------------ */

static void test_client_auth__token(void)
{
	expect_user(kubeconfig("token.yaml", srv, ca_file_line(), "    token: static-token\n"), srv,
	            "token-user");
}

/* A relative tokenFile is found next to the kubeconfig; CA inline. */
static void test_client_auth__token_file_and_ca_data(void)
{
	char cluster[8192];
	char *ca = b64(pki.ca.cert_pem);
	snprintf(cluster, sizeof(cluster), "    certificate-authority-data: %s\n", ca);
	free(ca);
	expect_user(kubeconfig("tokenfile.yaml", srv, cluster, "    tokenFile: file.token\n"), srv,
	            "file-user");
}

static void test_client_auth__client_certificate_files(void)
{
	char user[512];
	snprintf(user, sizeof(user),
	         "    client-certificate: %s/pki/client.crt\n    client-key: %s/pki/client.key\n",
	         dir, dir);
	expect_user(kubeconfig("certfile.yaml", srv, ca_file_line(), user), srv, "cert-user");
}

static void test_client_auth__client_certificate_data(void)
{
	char cluster[8192], user[16384];
	char *ca = b64(pki.ca.cert_pem), *cert = b64(pki.client.cert_pem),
	     *key = b64(pki.client.key_pem);
	snprintf(cluster, sizeof(cluster), "    certificate-authority-data: %s\n", ca);
	snprintf(user, sizeof(user), "    client-certificate-data: %s\n    client-key-data: %s\n",
	         cert, key);
	free(ca);
	free(cert);
	free(key);
	expect_user(kubeconfig("certdata.yaml", srv, cluster, user), srv, "cert-user");
}

static int count_lines(const char *name)
{
	FILE *f = fopen(path_in(name), "r");
	int n = 0, ch;
	if (!f)
		return -1;
	while ((ch = fgetc(f)) != EOF)
		n += ch == '\n';
	fclose(f);
	return n;
}

static const char *exec_user(const char *state)
{
	static char user[1024];
	snprintf(
	    user, sizeof(user),
	    "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
	    "      command: sh\n      args: [%s, %s/%s, token]\n      interactiveMode: Never\n",
	    NL_EXEC_PLUGIN, dir, state);
	return user;
}

/* tests/exec-plugin.sh prints token-N on its Nth run. */
static void test_client_auth__exec_plugin(void)
{
	CU_ASSERT_EQUAL_FATAL(mkdir(path_in("exec1"), 0700), 0);
	expect_user(kubeconfig("exec.yaml", srv, ca_file_line(), exec_user("exec1")), srv,
	            "exec-user");
	CU_ASSERT_EQUAL(count_lines("exec1/runs"), 1);
}

/* The first run's token-2 is unknown: the 401 makes the client run the
 * plugin again and retry with token-3. */
static void test_client_auth__exec_plugin_rerun_after_401(void)
{
	CU_ASSERT_EQUAL_FATAL(mkdir(path_in("exec2"), 0700), 0);
	CU_ASSERT_EQUAL_FATAL(write_file("exec2/runs", "run\n"), 0);
	expect_user(kubeconfig("exec2.yaml", srv, ca_file_line(), exec_user("exec2")), srv,
	            "exec-user");
	CU_ASSERT_EQUAL(count_lines("exec2/runs"), 3);
}

/* A plugin may return a client certificate instead of a token. */
static void test_client_auth__exec_plugin_client_certificate(void)
{
	char user[1024];
	json_object *cred = json_object_new_object(), *status = json_object_new_object();
	json_object_object_add(cred, "apiVersion",
	                       json_object_new_string("client.authentication.k8s.io/v1"));
	json_object_object_add(cred, "kind", json_object_new_string("ExecCredential"));
	json_object_object_add(status, "clientCertificateData",
	                       json_object_new_string(pki.client.cert_pem));
	json_object_object_add(status, "clientKeyData", json_object_new_string(pki.client.key_pem));
	json_object_object_add(cred, "status", status);
	CU_ASSERT_EQUAL(write_file("cred.json", json_object_to_json_string(cred)), 0);
	json_object_put(cred);
	snprintf(user, sizeof(user),
	         "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
	         "      command: cat\n      args: [%s/cred.json]\n      interactiveMode: Never\n",
	         dir);
	expect_user(kubeconfig("execcert.yaml", srv, ca_file_line(), user), srv, "cert-user");
}

static void test_client_auth__in_cluster(void)
{
	char port[16];
	nl_rest_config *cfg = NULL;
	nl_result res = NL_RESULT_INIT;
	nl_err err = {0};
	char user[128];
	CU_ASSERT_EQUAL_FATAL(mkdir(path_in("sa"), 0700), 0);
	CU_ASSERT_EQUAL_FATAL(write_file("sa/ca.crt", pki.ca.cert_pem), 0);
	CU_ASSERT_EQUAL_FATAL(write_file("sa/token", "sa-token\n"), 0);
	CU_ASSERT_EQUAL_FATAL(write_file("sa/namespace", "default"), 0);
	snprintf(port, sizeof(port), "%d", mock_server_port(srv));
	setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1", 1);
	setenv("KUBERNETES_SERVICE_PORT", port, 1);
	int rc = nl_incluster_load(&cfg, path_in("sa"), &err);
	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("KUBERNETES_SERVICE_PORT");
	if (rc != 0)
		fprintf(stderr, "\nin-cluster: %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_STRING_EQUAL(cfg->server, mock_server_url(srv));
	CU_ASSERT_EQUAL(probe(cfg, srv, &res, user, sizeof(user)), 0);
	CU_ASSERT_STRING_EQUAL(user, "system:serviceaccount:default:nodelet");
	nl_result_clear(&res);
}

static void test_client_auth__insecure_skip_tls_verify(void)
{
	expect_user(kubeconfig("insecure.yaml", srv, "    insecure-skip-tls-verify: true\n",
	                       "    token: static-token\n"),
	            srv, "token-user");
}

/* The cluster (with current-context) in one file, the user in the other. */
static void test_client_auth__merged_kubeconfig(void)
{
	char a[16384], b[512], env[600];
	nl_rest_config *cfg = NULL;
	nl_err err = {0};
	nl_result res = NL_RESULT_INIT;
	char user[128];
	snprintf(a, sizeof(a),
	         "apiVersion: v1\nkind: Config\ncurrent-context: ctx\n"
	         "clusters:\n- name: mock\n  cluster:\n    server: %s\n%s"
	         "contexts:\n- name: ctx\n  context: {cluster: mock, user: u}\n",
	         mock_server_url(srv), ca_file_line());
	snprintf(b, sizeof(b),
	         "apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n"
	         "    client-certificate: pki/client.crt\n    client-key: pki/client.key\n");
	CU_ASSERT_EQUAL_FATAL(write_file("merge-a.yaml", a), 0);
	CU_ASSERT_EQUAL_FATAL(write_file("merge-b.yaml", b), 0);
	snprintf(env, sizeof(env), "%s/merge-a.yaml:%s/merge-b.yaml", dir, dir);
	setenv("KUBECONFIG", env, 1);
	int rc = nl_kubeconfig_load(&cfg, NULL, NULL, &err);
	unsetenv("KUBECONFIG");
	if (rc != 0)
		fprintf(stderr, "\nmerged: %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(probe(cfg, srv, &res, user, sizeof(user)), 0);
	CU_ASSERT_STRING_EQUAL(user, "cert-user");
	nl_result_clear(&res);
}

/* ---- failures ------------------------------------------------------------ */

static void test_client_auth__unknown_token_is_the_servers_401(void)
{
	expect_unauthorized(kubeconfig("badtoken.yaml", srv, ca_file_line(), "    token: nope\n"));
}

static void test_client_auth__no_credentials_without_anonymous_is_401(void)
{
	expect_unauthorized(kubeconfig("nocreds.yaml", srv, ca_file_line(), "    {}\n"));
}

static void test_client_auth__expired_client_certificate_is_401(void)
{
	char user[512];
	snprintf(user, sizeof(user),
	         "    client-certificate: %s/expired.crt\n    client-key: %s/expired.key\n", dir,
	         dir);
	expect_unauthorized(kubeconfig("expired.yaml", srv, ca_file_line(), user));
}

/* NL_ETLS, "<METHOD> <url>: <why>" with libcurl's reason containing want. */
static void expect_tls_error(const char *path, mock_server *s, const char *want)
{
	nl_result res = NL_RESULT_INIT;
	char user[128];
	CU_ASSERT_EQUAL(probe(load(path), s, &res, user, sizeof(user)), NL_ETLS);
	CU_ASSERT_EQUAL(res.http_status, 0);
	CU_ASSERT_PTR_NULL(res.status);
	CU_ASSERT_EQUAL(strncmp(res.message, "GET https://127.0.0.1:", 22), 0);
	if (!strstr(res.message, want))
		fprintf(stderr, "\nwant \"%s\" in: %s\n", want, res.message);
	CU_ASSERT_PTR_NOT_NULL(strstr(res.message, want));
	/* never reached the handler */
	CU_ASSERT_STRING_EQUAL(user, "(none)");
	nl_result_clear(&res);
}

static void test_client_auth__untrusted_ca_is_a_tls_error(void)
{
	char cluster[300];
	snprintf(cluster, sizeof(cluster), "    certificate-authority: %s/stranger.crt\n", dir);
	expect_tls_error(kubeconfig("stranger.yaml", srv, cluster, "    token: static-token\n"),
	                 srv, "certificate");
}

/* The certificate names kubernetes.default, the server is 127.0.0.1. */
static void test_client_auth__wrong_host_until_tls_server_name(void)
{
	char cluster[600];
	expect_tls_error(
	    kubeconfig("wronghost.yaml", named, ca_file_line(), "    token: static-token\n"), named,
	    "127.0.0.1");
	snprintf(cluster, sizeof(cluster), "%s    tls-server-name: kubernetes.default\n",
	         ca_file_line());
	expect_user(kubeconfig("servername.yaml", named, cluster, "    token: static-token\n"),
	            named, "token-user");
}

static CU_TestInfo tests[] = {
    {"token", test_client_auth__token},
    {"token_file_and_ca_data", test_client_auth__token_file_and_ca_data},
    {"client_certificate_files", test_client_auth__client_certificate_files},
    {"client_certificate_data", test_client_auth__client_certificate_data},
    {"exec_plugin", test_client_auth__exec_plugin},
    {"exec_plugin_rerun_after_401", test_client_auth__exec_plugin_rerun_after_401},
    {"exec_plugin_client_certificate", test_client_auth__exec_plugin_client_certificate},
    {"in_cluster", test_client_auth__in_cluster},
    {"insecure_skip_tls_verify", test_client_auth__insecure_skip_tls_verify},
    {"merged_kubeconfig", test_client_auth__merged_kubeconfig},
    {"unknown_token_is_the_servers_401", test_client_auth__unknown_token_is_the_servers_401},
    {"no_credentials_without_anonymous_is_401",
     test_client_auth__no_credentials_without_anonymous_is_401},
    {"expired_client_certificate_is_401", test_client_auth__expired_client_certificate_is_401},
    {"untrusted_ca_is_a_tls_error", test_client_auth__untrusted_ca_is_a_tls_error},
    {"wrong_host_until_tls_server_name", test_client_auth__wrong_host_until_tls_server_name},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {{"client_auth", setup, teardown, NULL, NULL, tests},
                                 CU_SUITE_INFO_NULL};
