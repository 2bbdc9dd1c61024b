/* nodelet-mockapi over HTTPS with libcurl: each authenticator (client
 * certificates, the token file, anonymous) with good, missing, wrong,
 * untrusted and expired credentials gets kube-apiserver's status and body;
 * the control API is for the admin group only; and in Node authorization
 * mode a node registers, renews its lease and reports status while another
 * node's objects and unrelated ConfigMaps stay out of reach (403, store
 * unchanged). Servers in-process on port 0; certificates from
 * --generate-certs. */
#include <curl/curl.h>
#include <nodelet/meta.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../cu_main.h"
#include "auth/certs.h"
#include "mockapi.h"
#include "storage/store.h"

static char dir[64];  /* temporary directory */
static char pki[128]; /* --generate-certs output */
static char tokens[128];
static mock_server *open_srv;   /* generated certs, tokens, anonymous on */
static mock_server *closed_srv; /* same files, --anonymous-auth=false */
static mock_server *node_srv;   /* same files, --authorization-mode Node */
static mock_keypair ca;         /* the generated CA, to issue more */

static const char TOKENS[] = "node-a-token,system:node:a,uid-a,system:nodes\n"
                             "node-b-token,system:node:b,uid-b,system:nodes\n"
                             "alice-token,alice,uid-alice\n"
                             "admin-token,admin,uid-admin,\"system:masters,ops\"\n";

static const char UNAUTHORIZED[] =
    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
    "\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}";

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = calloc(1, 65536);
	if (buf)
		fread(buf, 1, 65535, f);
	fclose(f);
	return buf;
}

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static mock_server *start(const char *mode, int anonymous, int generate)
{
	char cert[160], key[160], cafile[160];
	mock_options o;
	nl_err err = {0};
	mock_server *s = NULL;
	mock_options_init(&o);
	o.port = 0;
	o.token_auth_file = tokens;
	o.anonymous_auth = anonymous;
	o.authorization_mode = mode;
	o.controller_tick_ms = 0; /* no node lifecycle writes behind the test's back */
	if (generate) {
		o.generate_certs_dir = pki;
	} else {
		snprintf(cert, sizeof(cert), "%s/server.crt", pki);
		snprintf(key, sizeof(key), "%s/server.key", pki);
		snprintf(cafile, sizeof(cafile), "%s/ca.crt", pki);
		o.tls_cert_file = cert;
		o.tls_private_key_file = key;
		o.client_ca_file = cafile;
	}
	if (mock_server_new(&s, &o, &err) != 0 || mock_server_start(s, &err) != 0) {
		fprintf(stderr, "cannot start server: %s\n", err.msg);
		mock_server_free(s);
		return NULL;
	}
	return s;
}

static int setup(void)
{
	char path[200];
	strcpy(dir, "/tmp/nodelet-tls-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	snprintf(pki, sizeof(pki), "%s/pki", dir);
	snprintf(tokens, sizeof(tokens), "%s/tokens.csv", dir);
	if (write_text(tokens, TOKENS) != 0)
		return 1;
	open_srv = start("AlwaysAllow", 1, 1);
	closed_srv = start("AlwaysAllow", 0, 0);
	node_srv = start("Node", 1, 0);
	snprintf(path, sizeof(path), "%s/ca.crt", pki);
	ca.cert_pem = slurp(path);
	snprintf(path, sizeof(path), "%s/ca.key", pki);
	ca.key_pem = slurp(path);
	return !open_srv || !closed_srv || !node_srv || !ca.cert_pem || !ca.key_pem;
}

static void rm(const char *name)
{
	char path[200];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
}

static int teardown(void)
{
	static const char *const files[] = {
	    "pki/ca.crt",     "pki/ca.key",   "pki/server.crt", "pki/server.key", "pki/client.crt",
	    "pki/client.key", "tokens.csv",   "node-a.crt",     "node-a.key",     "expired.crt",
	    "expired.key",    "stranger.crt", "stranger.key",   "kubeconfig"};
	mock_server_free(open_srv);
	mock_server_free(closed_srv);
	mock_server_free(node_srv);
	mock_keypair_clear(&ca);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		rm(files[i]);
	rmdir(pki);
	rmdir(dir);
	return 0;
}

/* ------------------------------------------------------------------------
 * An HTTPS client: trusts the generated CA, presents a certificate
 * (cert: a base name under dir/, e.g. "pki/client") or a bearer token. */

typedef struct {
	const char *cert;
	const char *token;
} creds;

static const creds NONE = {NULL, NULL};
static const creds ADMIN = {"pki/client", NULL}; /* kubernetes-admin, system:masters */

typedef struct {
	char *data;
	size_t len;
} sink;

static size_t on_body(char *p, size_t size, size_t n, void *payload)
{
	sink *s = payload;
	char *grown = realloc(s->data, s->len + size * n + 1);
	if (!grown)
		return 0;
	memcpy(grown + s->len, p, size * n);
	s->data = grown;
	s->len += size * n;
	s->data[s->len] = '\0';
	return size * n;
}

/* The HTTP code (-1 on a transport or TLS failure); *body (may be NULL)
 * receives the answer (caller frees). */
static long call(char **body, mock_server *s, const creds *c, const char *method, const char *path,
                 const char *data, const char *ctype)
{
	char url[512], cafile[200], cert[200], key[200], hdr[256], ct[128];
	struct curl_slist *h = NULL;
	sink out = {NULL, 0};
	long code = -1;
	CURL *e = curl_easy_init();
	if (!e)
		return -1;
	snprintf(url, sizeof(url), "%s%s", mock_server_url(s), path);
	snprintf(cafile, sizeof(cafile), "%s/ca.crt", pki);
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_CAINFO, cafile);
	curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, &out);
	curl_easy_setopt(e, CURLOPT_TIMEOUT, 20L);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	if (c->cert) {
		snprintf(cert, sizeof(cert), "%s/%s.crt", dir, c->cert);
		snprintf(key, sizeof(key), "%s/%s.key", dir, c->cert);
		curl_easy_setopt(e, CURLOPT_SSLCERT, cert);
		curl_easy_setopt(e, CURLOPT_SSLKEY, key);
	}
	if (c->token) {
		snprintf(hdr, sizeof(hdr), "Authorization: Bearer %s", c->token);
		h = curl_slist_append(h, hdr);
	}
	snprintf(ct, sizeof(ct), "Content-Type: %s", ctype ? ctype : "application/json");
	h = curl_slist_append(h, ct);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
	if (data)
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, data);
	if (curl_easy_perform(e) == CURLE_OK)
		curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
	curl_slist_free_all(h);
	curl_easy_cleanup(e);
	if (body)
		*body = out.data ? out.data : strdup("");
	else
		free(out.data);
	return code;
}

/* Expect a code; print the body when it differs. Returns the body parsed
 * (caller puts; NULL when not JSON). */
static json_object *expect(long want, mock_server *s, const creds *c, const char *method,
                           const char *path, const char *data, const char *ctype)
{
	char *body = NULL;
	long code = call(&body, s, c, method, path, data, ctype);
	if (code != want)
		fprintf(stderr, "\n%s %s: want %ld got %ld: %s\n", method, path, want, code, body);
	CU_ASSERT_EQUAL(code, want);
	json_object *o = json_tokener_parse(body);
	free(body);
	return o;
}

static void expect_body(long want, const char *want_body, mock_server *s, const creds *c,
                        const char *method, const char *path, const char *data)
{
	json_object *o = expect(want, s, c, method, path, data, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	NL_ASSERT_JSON_EQ(o, want_body);
	json_object_put(o);
}

/* The 403's message. */
static void expect_forbidden(const char *message, mock_server *s, const creds *c,
                             const char *method, const char *path, const char *data,
                             const char *ctype)
{
	json_object *o = expect(403, s, c, method, path, data, ctype);
	const char *got = o ? nl_json_get_string(o, "message") : NULL;
	if (!got || strcmp(got, message) != 0)
		fprintf(stderr, "\n%s %s\n  want %s\n  got  %s\n", method, path, message,
		        got ? got : "(none)");
	CU_ASSERT_STRING_EQUAL(got ? got : "", message);
	CU_ASSERT_STRING_EQUAL(o ? nl_json_get_string(o, "reason") : "", "Forbidden");
	json_object_put(o);
}

/* The user the journal recorded for the last request to path. */
static void last_user(char *out, size_t outlen, mock_server *s, const char *path)
{
	json_object *j = expect(200, s, &ADMIN, "GET", "/mockapi/v1/requests", NULL, NULL);
	json_object *items = j ? nl_json_get_path(j, "items") : NULL;
	out[0] = '\0';
	for (size_t i = 0; items && i < json_object_array_length(items); i++) {
		json_object *e = json_object_array_get_idx(items, i);
		if (strcmp(nl_json_get_string(e, "path"), path) == 0)
			snprintf(out, outlen, "%s", nl_json_get_string(e, "user"));
	}
	json_object_put(j);
}

/* A client certificate signed by ca (or, ca NULL, by a CA of its own),
 * written to dir/<name>.crt and .key. */
static void make_cert(const char *name, const char *cn, const char *group, int64_t not_before,
                      int64_t not_after, int trusted)
{
	const char *orgs[] = {group};
	mock_cert_spec spec = {.common_name = cn,
	                       .organizations = orgs,
	                       .norganizations = group ? 1 : 0,
	                       .not_before = not_before,
	                       .not_after = not_after,
	                       .client = 1};
	mock_cert_spec other_ca = {.common_name = "someone-else",
	                           .not_before = not_before,
	                           .not_after = time(NULL) + 3600,
	                           .ca = 1};
	mock_keypair k = {NULL, NULL}, own = {NULL, NULL};
	nl_err err = {0};
	if (!trusted)
		CU_ASSERT_EQUAL_FATAL(mock_cert_issue(&own, &other_ca, NULL, &err), 0);
	CU_ASSERT_EQUAL_FATAL(mock_cert_issue(&k, &spec, trusted ? &ca : &own, &err), 0);
	char path[200];
	snprintf(path, sizeof(path), "%s/%s.crt", dir, name);
	CU_ASSERT_EQUAL(write_text(path, k.cert_pem), 0);
	snprintf(path, sizeof(path), "%s/%s.key", dir, name);
	CU_ASSERT_EQUAL(write_text(path, k.key_pem), 0);
	mock_keypair_clear(&k);
	mock_keypair_clear(&own);
}

/* ------------------------------------------------------------------------ */

static void test_tls__serves_https_only(void)
{
	CU_ASSERT_EQUAL(strncmp(mock_server_url(open_srv), "https://127.0.0.1:", 18), 0);
	char url[128];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", mock_server_port(open_srv));
	/* plain HTTP on the HTTPS port gets no HTTP answer */
	CURL *e = curl_easy_init();
	char full[160];
	snprintf(full, sizeof(full), "%s/version", url);
	curl_easy_setopt(e, CURLOPT_URL, full);
	curl_easy_setopt(e, CURLOPT_TIMEOUT, 10L);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	sink s = {NULL, 0};
	curl_easy_setopt(e, CURLOPT_WRITEDATA, &s);
	long code = 0;
	CURLcode rc = curl_easy_perform(e);
	curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
	CU_ASSERT_TRUE(rc != CURLE_OK || code == 0);
	free(s.data);
	curl_easy_cleanup(e);
	/* and HTTPS works */
	json_object *v = expect(200, open_srv, &NONE, "GET", "/version", NULL, NULL);
	CU_ASSERT_STRING_EQUAL(v ? nl_json_get_string(v, "minor") : "", "32");
	json_object_put(v);
}

static void test_tls__client_certificate_names_the_user(void)
{
	char user[128];
	json_object *o =
	    expect(200, open_srv, &ADMIN, "GET", "/api/v1/namespaces/kube-system", NULL, NULL);
	json_object_put(o);
	last_user(user, sizeof(user), open_srv, "/api/v1/namespaces/kube-system");
	CU_ASSERT_STRING_EQUAL(user, "kubernetes-admin");
}

static void test_tls__untrusted_and_expired_certificates_are_401(void)
{
	int64_t now = time(NULL);
	make_cert("stranger", "kubernetes-admin", "system:masters", now - 60, now + 3600, 0);
	make_cert("expired", "kubernetes-admin", "system:masters", now - 7200, now - 3600, 1);
	creds stranger = {"stranger", NULL}, expired = {"expired", NULL};
	/* refused even though anonymous requests are allowed */
	expect_body(401, UNAUTHORIZED, open_srv, &stranger, "GET", "/api/v1/namespaces", NULL);
	expect_body(401, UNAUTHORIZED, open_srv, &expired, "GET", "/api/v1/namespaces", NULL);
	expect_body(401, UNAUTHORIZED, closed_srv, &expired, "GET", "/version", NULL);
	/* a bad certificate refuses writes before anything is stored */
	uint64_t rv = mock_store_rv(mock_server_store(open_srv));
	expect_body(401, UNAUTHORIZED, open_srv, &stranger, "POST",
	            "/api/v1/namespaces/default/configmaps", "{\"metadata\":{\"name\":\"x\"}}");
	CU_ASSERT_EQUAL(mock_store_rv(mock_server_store(open_srv)), rv);
}

static void test_tls__bearer_tokens(void)
{
	char user[128];
	creds alice = {NULL, "alice-token"}, wrong = {NULL, "alice-token2"};
	json_object *o =
	    expect(200, open_srv, &alice, "GET", "/api/v1/namespaces/kube-public", NULL, NULL);
	json_object_put(o);
	last_user(user, sizeof(user), open_srv, "/api/v1/namespaces/kube-public");
	CU_ASSERT_STRING_EQUAL(user, "alice");
	expect_body(401, UNAUTHORIZED, open_srv, &wrong, "GET", "/api/v1/namespaces", NULL);
	expect_body(401, UNAUTHORIZED, closed_srv, &wrong, "GET", "/api/v1/namespaces", NULL);
	o = expect(200, closed_srv, &alice, "GET", "/api/v1/namespaces", NULL, NULL);
	json_object_put(o);
}

static void test_tls__anonymous_requests(void)
{
	char user[128];
	json_object *o =
	    expect(200, open_srv, &NONE, "GET", "/api/v1/namespaces/default", NULL, NULL);
	json_object_put(o);
	last_user(user, sizeof(user), open_srv, "/api/v1/namespaces/default");
	CU_ASSERT_STRING_EQUAL(user, "system:anonymous");
	expect_body(401, UNAUTHORIZED, closed_srv, &NONE, "GET", "/api/v1/namespaces/default",
	            NULL);
	/* the 401 is journaled too, without a user */
	last_user(user, sizeof(user), closed_srv, "/api/v1/namespaces/default");
	CU_ASSERT_STRING_EQUAL(user, "");
}

static void test_tls__control_api_for_the_admin_group(void)
{
	creds alice = {NULL, "alice-token"}, admin = {NULL, "admin-token"};
	expect_forbidden("forbidden: User \"alice\" cannot get path \"/mockapi/v1/requests\"",
	                 open_srv, &alice, "GET", "/mockapi/v1/requests", NULL, NULL);
	expect_forbidden("forbidden: User \"system:anonymous\" cannot post path "
	                 "\"/mockapi/v1/reset\"",
	                 open_srv, &NONE, "POST", "/mockapi/v1/reset", NULL, NULL);
	json_object *o = expect(200, open_srv, &admin, "GET", "/mockapi/v1/requests", NULL, NULL);
	json_object_put(o);
	expect_body(401, UNAUTHORIZED, closed_srv, &NONE, "GET", "/mockapi/v1/requests", NULL);
}

/* A watch client that hangs up is released over TLS too, although its
 * close_notify leaves bytes unread on the parked socket. */
static void test_tls__vanished_watch_client_is_released(void)
{
	char url[256], cafile[200];
	CURL *e = curl_easy_init();
	sink out = {NULL, 0};
	snprintf(url, sizeof(url), "%s/api/v1/namespaces/default/configmaps?watch=1",
	         mock_server_url(open_srv));
	snprintf(cafile, sizeof(cafile), "%s/ca.crt", pki);
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_CAINFO, cafile);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, &out);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 700L); /* then curl hangs up */
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	CU_ASSERT_EQUAL(curl_easy_perform(e), CURLE_OPERATION_TIMEDOUT);
	curl_easy_cleanup(e);
	free(out.data);
	int64_t deadline = time(NULL) + 10;
	while (mock_server_watch_count(open_srv) > 0 && time(NULL) < deadline)
		usleep(100 * 1000);
	CU_ASSERT_EQUAL(mock_server_watch_count(open_srv), 0);
}

/* With authentication, a fault can single out one user. */
static void test_tls__faults_match_the_authenticated_user(void)
{
	creds alice = {NULL, "alice-token"};
	char *id = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(mock_server_add_fault(&id, open_srv,
	                                            "{\"match\":{\"user\":\"alice\"},\"action\":"
	                                            "{\"status\":503}}",
	                                            &err),
	                      0);
	json_object *o = expect(503, open_srv, &alice, "GET", "/api/v1/namespaces", NULL, NULL);
	json_object_put(o);
	o = expect(200, open_srv, &NONE, "GET", "/api/v1/namespaces", NULL, NULL);
	json_object_put(o);
	CU_ASSERT_EQUAL(mock_server_remove_fault(open_srv, id), 0);
	free(id);
}

/* ------------------------------------------------------------------------
 * Node mode */

#define LEASES "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"
#define MERGE "application/merge-patch+json"

static const char *rv_of(json_object *o)
{
	const char *rv = o ? nl_meta_resource_version(o) : NULL;
	return rv ? rv : "";
}

/* The admin prepares node b, its lease and two ConfigMaps. */
static void node_fixture(void)
{
	static const char *const posts[][2] = {
	    {"/api/v1/nodes", "{\"metadata\":{\"name\":\"b\"}}"},
	    {LEASES, "{\"metadata\":{\"name\":\"b\"},\"spec\":{\"holderIdentity\":\"b\"}}"},
	    {"/api/v1/namespaces/kube-system/configmaps",
	     "{\"metadata\":{\"name\":\"a-config\"},\"data\":{\"kubelet\":\"{}\"}}"},
	    {"/api/v1/namespaces/kube-system/configmaps",
	     "{\"metadata\":{\"name\":\"other\"},\"data\":{\"secret\":\"x\"}}"},
	};
	for (size_t i = 0; i < sizeof(posts) / sizeof(posts[0]); i++) {
		json_object *o =
		    expect(201, node_srv, &ADMIN, "POST", posts[i][0], posts[i][1], NULL);
		json_object_put(o);
	}
}

static void test_tls__node_registers_and_heartbeats(void)
{
	int64_t now = time(NULL);
	make_cert("node-a", "system:node:a", "system:nodes", now - 60, now + 3600, 1);
	creds a_cert = {"node-a", NULL}, a_token = {NULL, "node-a-token"};
	node_fixture();

	json_object *o = expect(201, node_srv, &a_cert, "POST", "/api/v1/nodes",
	                        "{\"metadata\":{\"name\":\"a\"}}", NULL);
	json_object_put(o);
	o = expect(201, node_srv, &a_token, "POST", LEASES,
	           "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"holderIdentity\":\"a\","
	           "\"leaseDurationSeconds\":40}}",
	           NULL);
	char body[256];
	snprintf(body, sizeof(body),
	         "{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"%s\"},\"spec\":{"
	         "\"holderIdentity\":\"a\",\"leaseDurationSeconds\":40,\"renewTime\":"
	         "\"2024-05-01T10:00:00.000000Z\"}}",
	         rv_of(o));
	json_object_put(o);
	o = expect(200, node_srv, &a_cert, "PUT", LEASES "/a", body, NULL);
	json_object_put(o);
	o = expect(200, node_srv, &a_token, "PATCH", "/api/v1/nodes/a/status",
	           "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}",
	           MERGE);
	json_object_put(o);
	/* it reads every Node */
	o = expect(200, node_srv, &a_cert, "GET", "/api/v1/nodes/b", NULL, NULL);
	json_object_put(o);
	o = expect(200, node_srv, &a_cert, "GET", "/api/v1/nodes", NULL, NULL);
	json_object_put(o);
}

static void test_tls__node_cannot_touch_other_nodes(void)
{
	creds a = {"node-a", NULL};
	mock_store *st = mock_server_store(node_srv);
	uint64_t rv = mock_store_rv(st);
	expect_forbidden("leases.coordination.k8s.io \"b\" is forbidden: User \"system:node:a\" "
	                 "cannot update resource \"leases\" in API group \"coordination.k8s.io\" "
	                 "in the namespace \"kube-node-lease\": can only access node lease with "
	                 "the same name as the requesting node",
	                 node_srv, &a, "PUT", LEASES "/b",
	                 "{\"metadata\":{\"name\":\"b\"},\"spec\":{\"holderIdentity\":\"a\"}}",
	                 NULL);
	expect_forbidden("leases.coordination.k8s.io \"b\" is forbidden: User \"system:node:a\" "
	                 "cannot delete resource \"leases\" in API group \"coordination.k8s.io\" "
	                 "in the namespace \"kube-node-lease\": can only access node lease with "
	                 "the same name as the requesting node",
	                 node_srv, &a, "DELETE", LEASES "/b", NULL, NULL);
	expect_forbidden("leases.coordination.k8s.io \"c\" is forbidden: can only access node "
	                 "lease with the same name as the requesting node",
	                 node_srv, &a, "POST", LEASES, "{\"metadata\":{\"name\":\"c\"}}", NULL);
	expect_forbidden("nodes \"b\" is forbidden: node \"a\" is not allowed to modify node "
	                 "\"b\"",
	                 node_srv, &a, "PATCH", "/api/v1/nodes/b",
	                 "{\"metadata\":{\"labels\":{\"x\":\"y\"}}}", MERGE);
	expect_forbidden("nodes \"b\" is forbidden: node \"a\" is not allowed to modify node "
	                 "\"b\"",
	                 node_srv, &a, "PATCH", "/api/v1/nodes/b/status",
	                 "{\"status\":{\"phase\":\"x\"}}", MERGE);
	expect_forbidden("nodes \"c\" is forbidden: node \"a\" is not allowed to modify node "
	                 "\"c\"",
	                 node_srv, &a, "POST", "/api/v1/nodes", "{\"metadata\":{\"name\":\"c\"}}",
	                 NULL);
	expect_forbidden("nodes \"b\" is forbidden: User \"system:node:a\" cannot delete resource "
	                 "\"nodes\" in API group \"\" at the cluster scope",
	                 node_srv, &a, "DELETE", "/api/v1/nodes/b", NULL, NULL);
	expect_forbidden("nodes \"a\" is forbidden: node \"a\" is not allowed to modify taints",
	                 node_srv, &a, "PATCH", "/api/v1/nodes/a",
	                 "{\"spec\":{\"taints\":[{\"key\":\"k\",\"effect\":\"NoSchedule\"}]}}",
	                 MERGE);
	CU_ASSERT_EQUAL(mock_store_rv(st), rv);
}

/* ConfigMaps only through the node's config source, read-only. */
static void test_tls__node_reads_only_its_config_map(void)
{
	creds a = {"node-a", NULL};
	const char *cm = "/api/v1/namespaces/kube-system/configmaps/a-config";
	expect_forbidden("configmaps \"a-config\" is forbidden: User \"system:node:a\" cannot get "
	                 "resource \"configmaps\" in API group \"\" in the namespace "
	                 "\"kube-system\": no relationship found between node 'a' and this object",
	                 node_srv, &a, "GET", cm, NULL, NULL);
	/* the admin points node a at it (a node may not: NodeRestriction) */
	expect_forbidden(
	    "nodes \"a\" is forbidden: node \"a\" is not allowed to update "
	    "configSource to a new non-nil configSource",
	    node_srv, &a, "PATCH", "/api/v1/nodes/a",
	    "{\"spec\":{\"configSource\":{\"configMap\":{\"namespace\":\"kube-system\","
	    "\"name\":\"a-config\",\"kubeletConfigKey\":\"kubelet\"}}}}",
	    MERGE);
	json_object *o =
	    expect(200, node_srv, &ADMIN, "PATCH", "/api/v1/nodes/a",
	           "{\"spec\":{\"configSource\":{\"configMap\":{\"namespace\":\"kube-system\","
	           "\"name\":\"a-config\",\"kubeletConfigKey\":\"kubelet\"}}}}",
	           MERGE);
	json_object_put(o);
	o = expect(200, node_srv, &a, "GET", cm, NULL, NULL);
	json_object_put(o);
	o = expect(
	    200, node_srv, &a, "GET",
	    "/api/v1/namespaces/kube-system/configmaps?fieldSelector=metadata.name%3Da-config",
	    NULL, NULL);
	CU_ASSERT_EQUAL(o ? json_object_array_length(nl_json_get_path(o, "items")) : 0, 1);
	json_object_put(o);
	expect_forbidden("configmaps \"other\" is forbidden: User \"system:node:a\" cannot get "
	                 "resource \"configmaps\" in API group \"\" in the namespace "
	                 "\"kube-system\": no relationship found between node 'a' and this object",
	                 node_srv, &a, "GET", "/api/v1/namespaces/kube-system/configmaps/other",
	                 NULL, NULL);
	expect_forbidden("configmaps \"a-config\" is forbidden: User \"system:node:a\" cannot "
	                 "patch resource \"configmaps\" in API group \"\" in the namespace "
	                 "\"kube-system\": can only read resources of this type",
	                 node_srv, &a, "PATCH", cm, "{\"data\":{\"x\":\"y\"}}", MERGE);
	/* and a node keeping its configSource as it is may still update itself */
	o = expect(200, node_srv, &a, "PATCH", "/api/v1/nodes/a",
	           "{\"metadata\":{\"labels\":{\"kubernetes.io/hostname\":\"a\"}}}", MERGE);
	json_object_put(o);
}

static void test_tls__node_mode_refuses_anonymous_and_others(void)
{
	creds alice = {NULL, "alice-token"};
	expect_forbidden("nodes is forbidden: User \"system:anonymous\" cannot list resource "
	                 "\"nodes\" in API group \"\" at the cluster scope",
	                 node_srv, &NONE, "GET", "/api/v1/nodes", NULL, NULL);
	expect_forbidden("forbidden: User \"system:anonymous\" cannot get path \"/version\"",
	                 node_srv, &NONE, "GET", "/version", NULL, NULL);
	expect_forbidden("configmaps is forbidden: User \"alice\" cannot list resource "
	                 "\"configmaps\" in API group \"\" in the namespace \"default\"",
	                 node_srv, &alice, "GET", "/api/v1/namespaces/default/configmaps", NULL,
	                 NULL);
	/* discovery is every authenticated user's */
	json_object *o = expect(200, node_srv, &alice, "GET", "/api", NULL, NULL);
	json_object_put(o);
}

static void test_tls__kubeconfig_carries_ca_and_client_certificate(void)
{
	char path[200];
	nl_err err = {0};
	snprintf(path, sizeof(path), "%s/kubeconfig", dir);
	CU_ASSERT_EQUAL_FATAL(mock_server_write_kubeconfig(open_srv, path, &err), 0);
	char *text = slurp(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, mock_server_url(open_srv)));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "certificate-authority-data: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "client-certificate-data: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "client-key-data: "));
	free(text);
	/* with files of the user's own and no generated client: the first token */
	CU_ASSERT_EQUAL_FATAL(mock_server_write_kubeconfig(closed_srv, path, &err), 0);
	text = slurp(path);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "    token: \"node-a-token\"\n"));
	free(text);
}

static CU_TestInfo tests[] = {
    {"serves_https_only", test_tls__serves_https_only},
    {"client_certificate_names_the_user", test_tls__client_certificate_names_the_user},
    {"untrusted_and_expired_certificates_are_401",
     test_tls__untrusted_and_expired_certificates_are_401},
    {"bearer_tokens", test_tls__bearer_tokens},
    {"anonymous_requests", test_tls__anonymous_requests},
    {"control_api_for_the_admin_group", test_tls__control_api_for_the_admin_group},
    {"faults_match_the_authenticated_user", test_tls__faults_match_the_authenticated_user},
    {"vanished_watch_client_is_released", test_tls__vanished_watch_client_is_released},
    {"node_registers_and_heartbeats", test_tls__node_registers_and_heartbeats},
    {"node_cannot_touch_other_nodes", test_tls__node_cannot_touch_other_nodes},
    {"node_reads_only_its_config_map", test_tls__node_reads_only_its_config_map},
    {"node_mode_refuses_anonymous_and_others", test_tls__node_mode_refuses_anonymous_and_others},
    {"kubeconfig_carries_ca_and_client_certificate",
     test_tls__kubeconfig_carries_ca_and_client_certificate},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"tls", setup, teardown, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
