/* Many clients doing read-modify-write on one ConfigMap counter over HTTP:
 * optimistic concurrency must lose no update (final value == successes) and
 * every failed write must be a 409 Conflict. */
#include <nodelet/meta.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../cu_main.h"
#include "http_client.h"

#define THREADS 8
#define ROUNDS 40

static const char *base;
static const char *path = "/api/v1/namespaces/default/configmaps/race";

typedef struct {
	int ok;
	int conflicts;
	int other;
} tally;

static void *worker(void *arg)
{
	tally *t = arg;
	for (int i = 0; i < ROUNDS; i++) {
		nl_http_resp g, u;
		if (nl_http(&g, base, "GET", path, NULL, NULL) != 0 || g.code != 200) {
			t->other++;
			nl_http_resp_free(&g);
			continue;
		}
		json_object *o = nl_http_json(&g);
		nl_http_resp_free(&g);
		const char *count = nl_json_get_string(o, "data.count");
		char next[32];
		snprintf(next, sizeof(next), "%d", count ? atoi(count) + 1 : -1000000);
		json_object_object_add(json_object_object_get(o, "data"), "count",
		                       json_object_new_string(next));
		if (nl_http(&u, base, "PUT", path, json_object_to_json_string(o), NULL) != 0)
			t->other++;
		else if (u.code == 200)
			t->ok++;
		else if (u.code == 409)
			t->conflicts++;
		else
			t->other++;
		nl_http_resp_free(&u);
		json_object_put(o);
	}
	return NULL;
}

static void test_concurrency__no_lost_update(void)
{
	mock_server *s = nl_test_server_start(NULL, 0);
	base = mock_server_url(s);
	nl_http_resp c;
	CU_ASSERT_EQUAL_FATAL(
	    nl_http(&c, base, "POST", "/api/v1/namespaces/default/configmaps",
	            "{\"metadata\":{\"name\":\"race\"},\"data\":{\"count\":\"0\"}}", NULL),
	    0);
	CU_ASSERT_EQUAL(c.code, 201);
	nl_http_resp_free(&c);

	pthread_t th[THREADS];
	tally t[THREADS];
	memset(t, 0, sizeof(t));
	for (int i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, worker, &t[i]);
	int ok = 0, conflicts = 0, other = 0;
	for (int i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		ok += t[i].ok;
		conflicts += t[i].conflicts;
		other += t[i].other;
	}
	nl_http_resp g;
	CU_ASSERT_EQUAL_FATAL(nl_http(&g, base, "GET", path, NULL, NULL), 0);
	json_object *o = nl_http_json(&g);
	const char *count = nl_json_get_string(o, "data.count");
	CU_ASSERT_PTR_NOT_NULL_FATAL(count);
	printf("\n  %d updates, %d conflicts, final count %s\n", ok, conflicts, count);
	CU_ASSERT_EQUAL(atoi(count), ok);
	CU_ASSERT_EQUAL(other, 0);
	CU_ASSERT_EQUAL(ok + conflicts, THREADS * ROUNDS);
	CU_ASSERT_TRUE(ok > 0);
	json_object_put(o);
	nl_http_resp_free(&g);
	mock_server_free(s);
}

static CU_TestInfo tests[] = {
    {"no_lost_update", test_concurrency__no_lost_update},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"concurrency", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
