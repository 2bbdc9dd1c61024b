/* TLS end to end against `openssl s_server` (the mock has no TLS yet):
 * verification with a CA from a file and from memory, tls-server-name,
 * insecure-skip-tls-verify, client certificates from files and memory, and
 * the failures — unknown CA, wrong host, expired certificate, missing client
 * certificate — as NL_ETLS with libcurl's reason. Skipped (with a note)
 * when the openssl program is not installed. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <nodelet/client.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../cu_main.h"

static char dir[] = "/tmp/nl-tls-XXXXXX";
static int have_openssl;

/* A CA; a server certificate for IP 127.0.0.1; one for the name
 * kubernetes.default only; an expired one; a client certificate. EC keys:
 * fast to make. */
static const char make_certs[] =
    "set -e; cd '%s'\n"
    "ec='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes'\n"
    "openssl req -x509 $ec -days 2 -subj /CN=test-ca -keyout ca.key -out ca.crt\n"
    "cert() { openssl req $ec -subj /CN=$1 -keyout $1.key -out $1.csr\n"
    "  printf '%%s\\n' \"$2\" > $1.ext\n"
    "  openssl x509 -req -in $1.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days $3 "
    "-extfile $1.ext -out $1.crt; }\n"
    "cert ip 'subjectAltName=IP:127.0.0.1' 2\n"
    "cert named 'subjectAltName=DNS:kubernetes.default' 2\n"
    "cert old 'subjectAltName=IP:127.0.0.1' 0\n"
    "cert client 'extendedKeyUsage=clientAuth' 2\n";

static int setup(void)
{
	char cmd[2048];
	if (system("openssl version >/dev/null 2>&1") != 0) {
		fprintf(stderr, "\n  SKIPPED: no openssl program to run a TLS server\n");
		return 0;
	}
	if (!mkdtemp(dir))
		return 1;
	snprintf(cmd, sizeof(cmd), "(%s) >/dev/null 2>&1", make_certs);
	char full[4096];
	snprintf(full, sizeof(full), cmd, dir);
	if (system(full) != 0) {
		fprintf(stderr, "cannot make test certificates\n");
		return 1;
	}
	have_openssl = 1;
	return 0;
}

static int teardown(void)
{
	char cmd[128];
	if (!have_openssl)
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : 1;
}

static int free_port(void)
{
	struct sockaddr_in a = {0};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bind(fd, (struct sockaddr *)&a, sizeof(a));
	getsockname(fd, (struct sockaddr *)&a, &len);
	close(fd);
	return ntohs(a.sin_port);
}

typedef struct {
	pid_t pid;
	int port;
} tls_server;

/* openssl s_server answering GET with a status page; name is the cert's. */
static int server_start(tls_server *s, const char *name, int want_client_cert)
{
	char cert[256], key[256], ca[256], port[16];
	snprintf(cert, sizeof(cert), "%s/%s.crt", dir, name);
	snprintf(key, sizeof(key), "%s/%s.key", dir, name);
	snprintf(ca, sizeof(ca), "%s/ca.crt", dir);
	s->port = free_port();
	snprintf(port, sizeof(port), "%d", s->port);
	s->pid = fork();
	if (s->pid == 0) {
		int null = open("/dev/null", 0);
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		/* TLS 1.2: a refused client certificate fails the handshake
		 * itself, not the first read after it. */
		if (want_client_cert)
			execlp("openssl", "openssl", "s_server", "-quiet", "-www", "-tls1_2",
			       "-accept", port, "-cert", cert, "-key", key, "-Verify", "1",
			       "-CAfile", ca, (char *)NULL);
		else
			execlp("openssl", "openssl", "s_server", "-quiet", "-www", "-tls1_2",
			       "-accept", port, "-cert", cert, "-key", key, (char *)NULL);
		_exit(127);
	}
	/* Ready once it accepts connections. */
	for (int i = 0; i < 200; i++) {
		struct sockaddr_in a = {0};
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		a.sin_family = AF_INET;
		a.sin_port = htons((uint16_t)s->port);
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		int ok = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
		close(fd);
		if (ok)
			return 0;
		usleep(20000);
	}
	return -1;
}

static void server_stop(tls_server *s)
{
	kill(s->pid, SIGTERM);
	waitpid(s->pid, NULL, 0);
}

static unsigned char *slurp(const char *name, size_t *len)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	unsigned char *buf = malloc(65536);
	*len = fread(buf, 1, 65536, f);
	fclose(f);
	return buf;
}

/* GET / with cfg against the server; the code, the message in msg. */
static int get(nl_rest_config *cfg, const tls_server *s, const char *host, char *msg, size_t msglen)
{
	char url[128];
	nl_client *c = NULL;
	nl_client_options o;
	nl_err err = {0};
	nl_result res = NL_RESULT_INIT;
	snprintf(url, sizeof(url), "https://%s:%d", host, s->port);
	cfg->server = url;
	nl_client_options_init(&o);
	o.qps = -1;
	o.timeout_ms = 10000;
	int rc = nl_client_new(&c, cfg, &o, &err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	nl_request req = {0};
	req.method = "GET";
	req.path = "/";
	req.accept = "text/html";
	nl_response resp = {0};
	rc = nl_client_do(&resp, c, &req, &res);
	if (rc == 0)
		CU_ASSERT_EQUAL(resp.http_status, 200);
	snprintf(msg, msglen, "%s", res.message);
	nl_response_clear(&resp);
	nl_result_clear(&res);
	nl_client_free(c);
	return rc;
}

#define NEED_OPENSSL()             \
	do {                       \
		if (!have_openssl) \
			return;    \
	} while (0)

static void test_client_tls__ca_from_file_and_from_memory(void)
{
	NEED_OPENSSL();
	tls_server s;
	char msg[1024], ca[256];
	CU_ASSERT_EQUAL_FATAL(server_start(&s, "ip", 0), 0);
	nl_rest_config cfg = {0};
	snprintf(ca, sizeof(ca), "%s/ca.crt", dir);
	cfg.ca_file = ca;
	CU_ASSERT_EQUAL(get(&cfg, &s, "127.0.0.1", msg, sizeof(msg)), 0);
	nl_rest_config mem = {0};
	mem.ca_data = slurp("ca.crt", &mem.ca_data_len);
	CU_ASSERT_EQUAL(get(&mem, &s, "127.0.0.1", msg, sizeof(msg)), 0);
	free(mem.ca_data);
	server_stop(&s);
}

static void test_client_tls__unknown_ca_is_refused(void)
{
	NEED_OPENSSL();
	tls_server s;
	char msg[1024];
	CU_ASSERT_EQUAL_FATAL(server_start(&s, "ip", 0), 0);
	nl_rest_config cfg = {0};
	CU_ASSERT_EQUAL(get(&cfg, &s, "127.0.0.1", msg, sizeof(msg)), NL_ETLS);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "certificate"));
	/* ... unless verification is off. */
	cfg.insecure_skip_tls_verify = 1;
	CU_ASSERT_EQUAL(get(&cfg, &s, "127.0.0.1", msg, sizeof(msg)), 0);
	server_stop(&s);
}

/* The certificate names kubernetes.default, the server is reached by IP:
 * refused, until tls-server-name says which name to verify. */
static void test_client_tls__wrong_host_and_tls_server_name(void)
{
	NEED_OPENSSL();
	tls_server s;
	char msg[1024], ca[256];
	CU_ASSERT_EQUAL_FATAL(server_start(&s, "named", 0), 0);
	nl_rest_config cfg = {0};
	snprintf(ca, sizeof(ca), "%s/ca.crt", dir);
	cfg.ca_file = ca;
	CU_ASSERT_EQUAL(get(&cfg, &s, "127.0.0.1", msg, sizeof(msg)), NL_ETLS);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "127.0.0.1"));
	cfg.tls_server_name = "kubernetes.default";
	CU_ASSERT_EQUAL(get(&cfg, &s, "127.0.0.1", msg, sizeof(msg)), 0);
	server_stop(&s);
}

static void test_client_tls__expired_certificate(void)
{
	NEED_OPENSSL();
	tls_server s;
	char msg[1024], ca[256];
	sleep(1); /* "old" was valid for zero days from setup */
	CU_ASSERT_EQUAL_FATAL(server_start(&s, "old", 0), 0);
	nl_rest_config cfg = {0};
	snprintf(ca, sizeof(ca), "%s/ca.crt", dir);
	cfg.ca_file = ca;
	CU_ASSERT_EQUAL(get(&cfg, &s, "127.0.0.1", msg, sizeof(msg)), NL_ETLS);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "expired"));
	server_stop(&s);
}

static void test_client_tls__client_certificate(void)
{
	NEED_OPENSSL();
	tls_server s;
	char msg[1024], ca[256], cert[256], key[256];
	CU_ASSERT_EQUAL_FATAL(server_start(&s, "ip", 1), 0);
	nl_rest_config cfg = {0};
	snprintf(ca, sizeof(ca), "%s/ca.crt", dir);
	cfg.ca_file = ca;
	CU_ASSERT_EQUAL(get(&cfg, &s, "127.0.0.1", msg, sizeof(msg)), NL_ETLS);
	snprintf(cert, sizeof(cert), "%s/client.crt", dir);
	snprintf(key, sizeof(key), "%s/client.key", dir);
	cfg.cert_file = cert;
	cfg.key_file = key;
	CU_ASSERT_EQUAL(get(&cfg, &s, "127.0.0.1", msg, sizeof(msg)), 0);
	nl_rest_config mem = {0};
	mem.ca_file = ca;
	mem.cert_data = slurp("client.crt", &mem.cert_data_len);
	mem.key_data = slurp("client.key", &mem.key_data_len);
	CU_ASSERT_EQUAL(get(&mem, &s, "127.0.0.1", msg, sizeof(msg)), 0);
	/* Bytes that are not a key: a TLS error naming the problem. */
	memcpy(mem.key_data, "garbage", 7);
	CU_ASSERT_EQUAL(get(&mem, &s, "127.0.0.1", msg, sizeof(msg)), NL_ETLS);
	free(mem.cert_data);
	free(mem.key_data);
	server_stop(&s);
}

static CU_TestInfo tests[] = {
    {"ca_from_file_and_from_memory", test_client_tls__ca_from_file_and_from_memory},
    {"unknown_ca_is_refused", test_client_tls__unknown_ca_is_refused},
    {"wrong_host_and_tls_server_name", test_client_tls__wrong_host_and_tls_server_name},
    {"expired_certificate", test_client_tls__expired_certificate},
    {"client_certificate", test_client_tls__client_certificate},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {{"client_tls", setup, teardown, NULL, NULL, tests},
                                 CU_SUITE_INFO_NULL};
