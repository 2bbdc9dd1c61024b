/* Authentication (mockapi/auth/authn.c): kube-apiserver's static token file as
 * Go's encoding/csv reads it (tokenfile.NewCSV, errors verbatim), and the
 * authenticator chain's decision — x509, then bearer token, then anonymous
 * (union.NewFailOnError: a bad credential is 401 even with anonymous on),
 * with system:authenticated added to every authenticated user. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cu_main.h"
#include "auth/authn.h"

static mock_tokens *parse_ok(const char *text)
{
	mock_tokens *t = NULL;
	nl_err err = {0};
	int rc = mock_tokens_parse(&t, text, strlen(text), "tokens.csv", &err);
	if (rc != 0)
		fprintf(stderr, "\n%s: %s\n", text, err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	return t;
}

static void parse_bad(const char *text, int want_rc, const char *want_msg)
{
	mock_tokens *t = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL(mock_tokens_parse(&t, text, strlen(text), "tokens.csv", &err), want_rc);
	CU_ASSERT_PTR_NULL(t);
	if (strcmp(err.msg, want_msg) != 0)
		fprintf(stderr, "\n%s\n  want %s\n  got  %s\n", text, want_msg, err.msg);
	CU_ASSERT_STRING_EQUAL(err.msg, want_msg);
}

static void assert_groups(const mock_identity *id, const char *const *want, size_t n)
{
	CU_ASSERT_EQUAL_FATAL(id->ngroups, n);
	for (size_t i = 0; i < n; i++)
		CU_ASSERT_STRING_EQUAL(id->groups[i], want[i]);
}

static void test_authn__token_file_columns_and_quoted_groups(void)
{
	mock_tokens *t = parse_ok("s3cret,system:node:edge-1,uid-1,\"system:nodes,extra\"\n"
	                          "admin-tok,alice,uid-2\n");
	CU_ASSERT_EQUAL(mock_tokens_count(t), 2);
	const mock_identity *id = mock_tokens_find(t, "s3cret");
	CU_ASSERT_PTR_NOT_NULL_FATAL(id);
	CU_ASSERT_STRING_EQUAL(id->user, "system:node:edge-1");
	CU_ASSERT_STRING_EQUAL(id->uid, "uid-1");
	static const char *const g[] = {"system:nodes", "extra"};
	assert_groups(id, g, 2);
	id = mock_tokens_find(t, "admin-tok");
	CU_ASSERT_PTR_NOT_NULL_FATAL(id);
	CU_ASSERT_STRING_EQUAL(id->user, "alice");
	CU_ASSERT_EQUAL(id->ngroups, 0);
	CU_ASSERT_STRING_EQUAL(mock_tokens_first(t), "s3cret");
	CU_ASSERT_PTR_NULL(mock_tokens_find(t, "s3cre"));
	CU_ASSERT_PTR_NULL(mock_tokens_find(t, "s3cret2"));
	CU_ASSERT_PTR_NULL(mock_tokens_find(t, ""));
	mock_tokens_free(t);
}

/* Go's csv: "" inside quotes is a quote, quoted fields may span lines,
 * blank lines are skipped, \r\n is a newline, nothing is trimmed, and
 * strings.Split turns an empty fourth column into one empty group. */
static void test_authn__token_file_go_csv_rules(void)
{
	mock_tokens *t = parse_ok("\r\n\r\n\"a\"\"b\",\" bob \",u1,\"g1\ng2\"\r\n\n"
	                          "t2,carol,u2,\r\n"
	                          "t3,dave,u3,g1,ignored-fifth\n"
	                          "t4,erin,u4");
	CU_ASSERT_EQUAL(mock_tokens_count(t), 4);
	const mock_identity *id = mock_tokens_find(t, "a\"b");
	CU_ASSERT_PTR_NOT_NULL_FATAL(id);
	CU_ASSERT_STRING_EQUAL(id->user, " bob ");
	static const char *const g1[] = {"g1\ng2"};
	assert_groups(id, g1, 1);
	id = mock_tokens_find(t, "t2");
	CU_ASSERT_PTR_NOT_NULL_FATAL(id);
	static const char *const g2[] = {""};
	assert_groups(id, g2, 1);
	id = mock_tokens_find(t, "t3");
	CU_ASSERT_PTR_NOT_NULL_FATAL(id);
	static const char *const g3[] = {"g1"};
	assert_groups(id, g3, 1);
	CU_ASSERT_PTR_NOT_NULL(mock_tokens_find(t, "t4"));
	mock_tokens_free(t);
}

/* An empty token is skipped (a warning upstream); a repeated token: the
 * later record wins. */
static void test_authn__token_file_empty_and_duplicate_tokens(void)
{
	mock_tokens *t = parse_ok(",nobody,u0\ndup,first,u1\ndup,second,u2\n");
	CU_ASSERT_EQUAL(mock_tokens_count(t), 1);
	const mock_identity *id = mock_tokens_find(t, "dup");
	CU_ASSERT_PTR_NOT_NULL_FATAL(id);
	CU_ASSERT_STRING_EQUAL(id->user, "second");
	CU_ASSERT_STRING_EQUAL(id->uid, "u2");
	mock_tokens_free(t);

	t = parse_ok("");
	CU_ASSERT_EQUAL(mock_tokens_count(t), 0);
	CU_ASSERT_PTR_NULL(mock_tokens_first(t));
	mock_tokens_free(t);
}

/* The errors kube-apiserver refuses to start with. */
static void test_authn__token_file_bad_lines(void)
{
	parse_bad("tok,user\n", NL_EINVALID,
	          "token file 'tokens.csv' must have at least 3 columns (token, user name, user "
	          "uid), found 2");
	parse_bad("ok,user,uid\n   \n", NL_EINVALID,
	          "token file 'tokens.csv' must have at least 3 columns (token, user name, user "
	          "uid), found 1");
	parse_bad("a\"b,user,uid\n", NL_EPARSE,
	          "parse error on line 1, column 2: bare \" in non-quoted-field");
	parse_bad("ok,u,i\nt,user,u\"id\n", NL_EPARSE,
	          "parse error on line 2, column 9: bare \" in non-quoted-field");
	parse_bad("tok,user,uid,\"g1\"x\n", NL_EPARSE,
	          "parse error on line 1, column 17: extraneous or missing \" in quoted-field");
	parse_bad("tok,user,uid,\"g1,g2\n", NL_EPARSE,
	          "parse error on line 1, column 21: extraneous or missing \" in quoted-field");
	parse_bad("tok,user,uid,\"g1,g2", NL_EPARSE,
	          "parse error on line 1, column 20: extraneous or missing \" in quoted-field");
	parse_bad("t,u,i,\"g1\nx\"y\n", NL_EPARSE,
	          "record on line 1; parse error on line 2, column 2: extraneous or missing \" in "
	          "quoted-field");
}

static void test_authn__token_file_load(void)
{
	char path[] = "/tmp/nodelet-test-tokens-XXXXXX";
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	static const char text[] = "t1,system:node:a,u1,system:nodes\n";
	CU_ASSERT_EQUAL(write(fd, text, sizeof(text) - 1), (ssize_t)(sizeof(text) - 1));
	close(fd);
	mock_tokens *t = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(mock_tokens_load(&t, path, &err), 0);
	CU_ASSERT_PTR_NOT_NULL(mock_tokens_find(t, "t1"));
	mock_tokens_free(t);
	unlink(path);

	t = NULL;
	CU_ASSERT_EQUAL(mock_tokens_load(&t, "/nonexistent/tokens.csv", &err), NL_EIO);
	CU_ASSERT_PTR_NULL(t);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/nonexistent/tokens.csv"));
}

/* ------------------------------------------------------------------------
 * The chain */

static mock_tokens *chain_tokens(void)
{
	return parse_ok("good,system:node:a,ua,system:nodes\n"
	                "admin,alice,ub,\"system:masters,system:authenticated\"\n");
}

/* Run the chain; returns its code and fills user and groups ("a|b"). */
static int decide(char *user, char *groups, int anonymous, mock_cert_state cert,
                  const char *cert_user, const char *authorization)
{
	mock_tokens *t = chain_tokens();
	mock_authn a = {t, anonymous};
	mock_identity cid = {0}, id = {0};
	static const char *const cert_groups[] = {"ops"};
	if (cert_user)
		CU_ASSERT_EQUAL_FATAL(mock_identity_set(&cid, cert_user, NULL, cert_groups, 1), 0);
	int rc = mock_authn_decide(&id, &a, cert, &cid, authorization);
	user[0] = groups[0] = '\0';
	if (rc == 0) {
		strcpy(user, id.user);
		for (size_t i = 0; i < id.ngroups; i++) {
			strcat(groups, i ? "|" : "");
			strcat(groups, id.groups[i]);
		}
	}
	mock_identity_clear(&id);
	mock_identity_clear(&cid);
	mock_tokens_free(t);
	return rc;
}

static void test_authn__chain_table(void)
{
	static const struct {
		int anonymous;
		mock_cert_state cert;
		const char *cert_user; /* CN of a valid certificate */
		const char *authorization;
		int want_rc;
		const char *want_user, *want_groups;
	} cases[] = {
	    /* nothing presented */
	    {1, MOCK_CERT_NONE, NULL, NULL, 0, "system:anonymous", "system:unauthenticated"},
	    {0, MOCK_CERT_NONE, NULL, NULL, NL_EUNAUTHORIZED, "", ""},
	    /* certificates: valid wins, invalid fails even with anonymous */
	    {1, MOCK_CERT_VALID, "bob", NULL, 0, "bob", "ops|system:authenticated"},
	    {0, MOCK_CERT_VALID, "bob", NULL, 0, "bob", "ops|system:authenticated"},
	    {1, MOCK_CERT_INVALID, NULL, NULL, NL_EUNAUTHORIZED, "", ""},
	    {0, MOCK_CERT_INVALID, NULL, NULL, NL_EUNAUTHORIZED, "", ""},
	    /* a valid certificate without CN has no opinion */
	    {1, MOCK_CERT_VALID, "", NULL, 0, "system:anonymous", "system:unauthenticated"},
	    {0, MOCK_CERT_VALID, "", NULL, NL_EUNAUTHORIZED, "", ""},
	    /* tokens */
	    {1, MOCK_CERT_NONE, NULL, "Bearer good", 0, "system:node:a",
	     "system:nodes|system:authenticated"},
	    {1, MOCK_CERT_NONE, NULL, "bearer good", 0, "system:node:a",
	     "system:nodes|system:authenticated"},
	    {1, MOCK_CERT_NONE, NULL, "BEARER good extra", 0, "system:node:a",
	     "system:nodes|system:authenticated"},
	    {1, MOCK_CERT_NONE, NULL, "Bearer admin", 0, "alice",
	     "system:masters|system:authenticated"},
	    {1, MOCK_CERT_NONE, NULL, "Bearer nope", NL_EUNAUTHORIZED, "", ""},
	    {0, MOCK_CERT_NONE, NULL, "Bearer nope", NL_EUNAUTHORIZED, "", ""},
	    /* not a bearer token, or an empty one: no opinion */
	    {1, MOCK_CERT_NONE, NULL, "Basic YTpi", 0, "system:anonymous",
	     "system:unauthenticated"},
	    {1, MOCK_CERT_NONE, NULL, "Bearer ", 0, "system:anonymous", "system:unauthenticated"},
	    {1, MOCK_CERT_NONE, NULL, "Bearer", 0, "system:anonymous", "system:unauthenticated"},
	    {0, MOCK_CERT_NONE, NULL, "Basic YTpi", NL_EUNAUTHORIZED, "", ""},
	    /* x509 first: a valid certificate wins over any token ... */
	    {1, MOCK_CERT_VALID, "bob", "Bearer nope", 0, "bob", "ops|system:authenticated"},
	    /* ... and a good token rescues a bad certificate */
	    {1, MOCK_CERT_INVALID, NULL, "Bearer good", 0, "system:node:a",
	     "system:nodes|system:authenticated"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char user[128], groups[256];
		int rc = decide(user, groups, cases[i].anonymous, cases[i].cert, cases[i].cert_user,
		                cases[i].authorization);
		if (rc != cases[i].want_rc || strcmp(user, cases[i].want_user) != 0 ||
		    strcmp(groups, cases[i].want_groups) != 0)
			fprintf(stderr, "\ncase %zu: rc %d user %s groups %s\n", i, rc, user,
			        groups);
		CU_ASSERT_EQUAL(rc, cases[i].want_rc);
		CU_ASSERT_STRING_EQUAL(user, cases[i].want_user);
		CU_ASSERT_STRING_EQUAL(groups, cases[i].want_groups);
	}
}

/* Without --token-auth-file bearer tokens are not looked at at all. */
static void test_authn__tokens_ignored_without_token_file(void)
{
	mock_authn a = {NULL, 1};
	mock_identity id = {0};
	CU_ASSERT_EQUAL_FATAL(mock_authn_decide(&id, &a, MOCK_CERT_NONE, NULL, "Bearer anything"),
	                      0);
	CU_ASSERT_STRING_EQUAL(id.user, "system:anonymous");
	mock_identity_clear(&id);
	a.anonymous = 0;
	CU_ASSERT_EQUAL(mock_authn_decide(&id, &a, MOCK_CERT_NONE, NULL, "Bearer anything"),
	                NL_EUNAUTHORIZED);
	CU_ASSERT_PTR_NULL(id.user);
}

/* kube-apiserver's 401 body, byte for byte. */
static void test_authn__unauthorized_status(void)
{
	nl_status *st = mock_authn_unauthorized();
	char *s = nl_status_to_string(st);
	CU_ASSERT_STRING_EQUAL(s, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
	                          "\"status\":\"Failure\",\"message\":\"Unauthorized\","
	                          "\"reason\":\"Unauthorized\",\"code\":401}");
	free(s);
	nl_status_free(st);
}

static CU_TestInfo tests[] = {
    {"token_file_columns_and_quoted_groups", test_authn__token_file_columns_and_quoted_groups},
    {"token_file_go_csv_rules", test_authn__token_file_go_csv_rules},
    {"token_file_empty_and_duplicate_tokens", test_authn__token_file_empty_and_duplicate_tokens},
    {"token_file_bad_lines", test_authn__token_file_bad_lines},
    {"token_file_load", test_authn__token_file_load},
    {"chain_table", test_authn__chain_table},
    {"tokens_ignored_without_token_file", test_authn__tokens_ignored_without_token_file},
    {"unauthorized_status", test_authn__unauthorized_status},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"authn", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
