/* The node lease controller against a scripted fake API (the C counterpart
 * of upstream's fake clientset with reactors): every request is recorded with
 * its body and answer, so each test asserts the exact request sequence. The
 * fake behaves like kube-apiserver for Leases (resourceVersion and uid
 * preconditions, 404/409) unless a fault is scripted. */
#include "../cu_main.h"

#include "../../client/agent/lease_internal.h"
#include <nodelet/log.h>
#include <nodelet/meta.h>
#include <nodelet/protobuf.h>
#include <nodelet/time.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MS NL_USEC_PER_MSEC
#define SEC NL_USEC_PER_SEC

static const nl_gr leases_gr = {"coordination.k8s.io", "leases"};
static const nl_gr nodes_gr = {"", "nodes"};

enum { GET_LEASE, CREATE_LEASE, UPDATE_LEASE, GET_NODE, NKINDS };
static const char *const kind_names[NKINDS] = {"GET lease", "CREATE lease", "UPDATE lease",
                                               "GET node"};

typedef struct {
	int kind;
	int rc;
	json_object *body; /* what the controller sent (CREATE/UPDATE), owned */
	int64_t at;
} request;

#define MAX_REQUESTS 512
#define MAX_FAULTS 16

typedef struct {
	nl_clock *clock;
	json_object *lease; /* stored lease or NULL */
	json_object *node;  /* stored node or NULL */
	uint64_t rv;
	int uids;
	/* faults[k] are answered, in order, before kind k behaves normally */
	int faults[NKINDS][MAX_FAULTS];
	size_t nfaults[NKINDS], fault_pos[NKINDS];
	/* every request fails with fail_code while the clock is before fail_until */
	int fail_code;
	int64_t fail_until;
	/* raise the clock's stop flag once this many requests were answered */
	size_t stop_after;
	request reqs[MAX_REQUESTS];
	size_t nreqs, total;
	int hook_calls;
} fake_api;

/* --- the fake API ------------------------------------------------------------ */

static nl_status *status_for(int rc, const nl_gr *gr, const char *name)
{
	switch (rc) {
	case NL_ENOTFOUND:
		return nl_status_not_found(gr, name);
	case NL_ECONFLICT:
		return nl_status_conflict(gr, name, NULL);
	case NL_EEXISTS:
		return nl_status_already_exists(gr, name);
	case NL_ESERVER:
		return nl_status_internal("etcdserver: request timed out");
	case NL_ETIMEOUT:
		return nl_status_new(504, "Timeout", "the server was unable to return a response");
	default:
		return NULL; /* transport errors carry no Status */
	}
}

static void add_fault(fake_api *f, int kind, int rc)
{
	CU_ASSERT_FATAL(f->nfaults[kind] < MAX_FAULTS);
	f->faults[kind][f->nfaults[kind]++] = rc;
}

/* Record the request and decide whether a fault answers it. */
static int begin(fake_api *f, int kind, json_object *body)
{
	int rc = 0;
	if (f->fail_code && nl_clock_now(f->clock) < f->fail_until)
		rc = f->fail_code;
	else if (f->fault_pos[kind] < f->nfaults[kind])
		rc = f->faults[kind][f->fault_pos[kind]++];
	CU_ASSERT_FATAL(f->nreqs < MAX_REQUESTS);
	request *r = &f->reqs[f->nreqs++];
	json_object *copy = NULL;
	if (body)
		CU_ASSERT_EQUAL(json_object_deep_copy(body, &copy, NULL), 0);
	*r = (request){.kind = kind, .rc = rc, .body = copy, .at = nl_clock_now(f->clock)};
	f->total++;
	if (f->stop_after && f->total == f->stop_after)
		nl_clock_stop(f->clock);
	return rc;
}

static int finish(fake_api *f, int rc)
{
	f->reqs[f->nreqs - 1].rc = rc;
	return rc;
}

static int answer(json_object **out, nl_status **status, fake_api *f, int rc, json_object *obj,
                  const nl_gr *gr, const char *name)
{
	if (rc != 0) {
		*status = status_for(rc, gr, name);
		return finish(f, rc);
	}
	CU_ASSERT_EQUAL_FATAL(json_object_deep_copy(obj, out, NULL), 0);
	return finish(f, 0);
}

static void set_rv(json_object *obj, uint64_t rv)
{
	char buf[24];
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)rv);
	nl_meta_set_string(obj, "resourceVersion", buf);
}

static int fake_get_lease(json_object **out, nl_status **status, const char *ns, const char *name,
                          void *payload)
{
	fake_api *f = payload;
	int rc = begin(f, GET_LEASE, NULL);
	CU_ASSERT_STRING_EQUAL(ns, NL_NAMESPACE_NODE_LEASE);
	CU_ASSERT_STRING_EQUAL(name, "foo");
	if (rc == 0 && !f->lease)
		rc = NL_ENOTFOUND;
	return answer(out, status, f, rc, f->lease, &leases_gr, name);
}

static int fake_create_lease(json_object **out, nl_status **status, const char *ns,
                             json_object *lease, void *payload)
{
	fake_api *f = payload;
	int rc = begin(f, CREATE_LEASE, lease);
	char uid[32];
	CU_ASSERT_STRING_EQUAL(ns, NL_NAMESPACE_NODE_LEASE);
	if (rc == 0 && f->lease)
		rc = NL_EEXISTS;
	if (rc == 0) {
		CU_ASSERT_EQUAL_FATAL(json_object_deep_copy(lease, &f->lease, NULL), 0);
		snprintf(uid, sizeof(uid), "lease-uid-%d", ++f->uids);
		nl_meta_set_string(f->lease, "uid", uid);
		set_rv(f->lease, ++f->rv);
	}
	return answer(out, status, f, rc, f->lease, &leases_gr, nl_meta_name(lease));
}

/* kube-apiserver's update: the body's resourceVersion and uid are
 * preconditions; a deleted object with a uid in the body is 409, not 404. */
static int fake_update_lease(json_object **out, nl_status **status, const char *ns,
                             json_object *lease, void *payload)
{
	fake_api *f = payload;
	int rc = begin(f, UPDATE_LEASE, lease);
	const char *uid = nl_meta_uid(lease), *rv = nl_meta_resource_version(lease);
	CU_ASSERT_STRING_EQUAL(ns, NL_NAMESPACE_NODE_LEASE);
	if (rc == 0 && !f->lease)
		rc = uid ? NL_ECONFLICT : NL_ENOTFOUND;
	if (rc == 0 && uid && strcmp(uid, nl_meta_uid(f->lease)) != 0)
		rc = NL_ECONFLICT;
	if (rc == 0 && (!rv || strcmp(rv, nl_meta_resource_version(f->lease)) != 0))
		rc = NL_ECONFLICT;
	if (rc == 0) {
		char keep_uid[64];
		snprintf(keep_uid, sizeof(keep_uid), "%s", nl_meta_uid(f->lease));
		json_object_put(f->lease);
		f->lease = NULL;
		CU_ASSERT_EQUAL_FATAL(json_object_deep_copy(lease, &f->lease, NULL), 0);
		nl_meta_set_string(f->lease, "uid", keep_uid);
		set_rv(f->lease, ++f->rv);
	}
	return answer(out, status, f, rc, f->lease, &leases_gr, nl_meta_name(lease));
}

static int fake_get_node(json_object **out, nl_status **status, const char *name, void *payload)
{
	fake_api *f = payload;
	int rc = begin(f, GET_NODE, NULL);
	CU_ASSERT_STRING_EQUAL(name, "foo");
	if (rc == 0 && !f->node)
		rc = NL_ENOTFOUND;
	return answer(out, status, f, rc, f->node, &nodes_gr, name);
}

static const nl_lease_ops fake_ops_template = {
    .get_lease = fake_get_lease,
    .create_lease = fake_create_lease,
    .update_lease = fake_update_lease,
    .get_node = fake_get_node,
};

static void count_hook(void *payload)
{
	((fake_api *)payload)->hook_calls++;
}

static const char *http_of(int kind, int rc)
{
	switch (rc) {
	case 0:
		return kind == CREATE_LEASE ? "201" : "200";
	case NL_ENOTFOUND:
		return "404";
	case NL_ECONFLICT:
	case NL_EEXISTS:
		return "409";
	case NL_ESERVER:
		return "500";
	case NL_ETIMEOUT:
		return "504";
	default:
		return "ERR";
	}
}

static void trace_reset(fake_api *f)
{
	for (size_t i = 0; i < f->nreqs; i++)
		json_object_put(f->reqs[i].body);
	f->nreqs = 0;
}

/* "GET lease 404, GET node 200, CREATE lease 201" */
static void assert_trace(fake_api *f, const char *expected)
{
	char got[8192] = "";
	size_t len = 0;
	for (size_t i = 0; i < f->nreqs && len < sizeof(got) - 64; i++)
		len += (size_t)snprintf(got + len, sizeof(got) - len, "%s%s %s", i ? ", " : "",
		                        kind_names[f->reqs[i].kind],
		                        http_of(f->reqs[i].kind, f->reqs[i].rc));
	if (strcmp(got, expected) != 0)
		fprintf(stderr, "\n  expected: %s\n  actual:   %s\n", expected, got);
	CU_ASSERT_STRING_EQUAL(got, expected);
}

static int64_t t0(void)
{
	int64_t t;
	CU_ASSERT_EQUAL(nl_time_parse(&t, "2026-11-29T15:04:05Z"), 0);
	return t;
}

static void fake_init(fake_api *f, nl_clock *clock)
{
	memset(f, 0, sizeof(*f));
	f->clock = clock;
}

static void fake_add_node(fake_api *f)
{
	f->node = nl_test_json("{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":"
	                       "\"foo\",\"uid\":\"foo-uid\","
	                       "\"resourceVersion\":\"1\"}}");
}

/* A lease as the server would hold it, with owner and resourceVersion. */
static void fake_put_lease(fake_api *f, const char *text)
{
	json_object_put(f->lease);
	f->lease = nl_test_json(text);
	f->rv = 10;
	set_rv(f->lease, f->rv);
}

#define OWNED_LEASE                                                                                \
	"{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\",\"metadata\":{\"name\":"    \
	"\"foo\",\"namespace\":\"kube-node-lease\",\"uid\":\"lease-uid-0\",\"ownerReferences\":[{" \
	"\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"foo\",\"uid\":\"foo-uid\"}]},"         \
	"\"spec\":{"                                                                               \
	"\"holderIdentity\":\"foo\",\"leaseDurationSeconds\":40,\"renewTime\":"                    \
	"\"2026-11-29T15:00:00.000000Z\"}}"

static void fake_free(fake_api *f)
{
	trace_reset(f);
	json_object_put(f->lease);
	json_object_put(f->node);
}

typedef struct {
	nl_clock *clock;
	fake_api api;
	nl_lease_ops ops;
	nl_lease_controller *lc;
} fixture;

static void fixture_init_with(fixture *x, nl_clock *clock, int32_t duration)
{
	nl_lease_controller_options o = {0};
	x->clock = clock;
	fake_init(&x->api, x->clock);
	x->ops = fake_ops_template;
	x->ops.payload = &x->api;
	o.clock = x->clock;
	o.ops = &x->ops;
	o.node_name = "foo";
	o.lease_duration_seconds = duration;
	o.on_repeated_heartbeat_failure = count_hook;
	o.hook_payload = &x->api;
	o.jitter_seed = 1234;
	CU_ASSERT_EQUAL_FATAL(nl_lease_controller_new(&x->lc, &o), 0);
}

static void fixture_init(fixture *x, int32_t duration)
{
	nl_clock *clock;
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&clock, t0()), 0);
	fixture_init_with(x, clock, duration);
}

static void fixture_free(fixture *x)
{
	nl_lease_controller_free(x->lc);
	fake_free(&x->api);
	nl_clock_free(x->clock);
}

static json_object *last_body(fixture *x)
{
	for (size_t i = x->api.nreqs; i > 0; i--)
		if (x->api.reqs[i - 1].body)
			return x->api.reqs[i - 1].body;
	return NULL;
}

static void assert_sleeps(nl_clock *c, const int64_t *want_ms, size_t n)
{
	size_t got_n;
	const int64_t *got = nl_clock_fake_sleeps(c, &got_n, NULL);
	CU_ASSERT_EQUAL(got_n, n);
	for (size_t i = 0; i < n && i < got_n; i++) {
		if (got[i] != want_ms[i] * MS)
			fprintf(stderr, "\n  sleep %zu: got %lld us, want %lld ms\n", i,
			        (long long)got[i], (long long)want_ms[i]);
		CU_ASSERT_EQUAL(got[i], want_ms[i] * MS);
	}
}

/* --- newLease (upstream TestNewNodeLease) ------------------------------------ */

static void test_lease_controller__new_lease_nil_base_without_node(void)
{
	fixture x;
	json_object *lease = NULL;

	fixture_init(&x, 10);
	CU_ASSERT_EQUAL(nl__lease_new_lease(&lease, x.lc, NULL), 0);
	NL_ASSERT_JSON_EQ(lease,
	                  "{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\","
	                  "\"metadata\":{\"name\":\"foo\",\"namespace\":\"kube-node-lease\"},"
	                  "\"spec\":{\"holderIdentity\":\"foo\",\"leaseDurationSeconds\":10,"
	                  "\"renewTime\":\"2026-11-29T15:04:05.000000Z\"}}");
	assert_trace(&x.api, "GET node 404");
	json_object_put(lease);
	fixture_free(&x);
}

static void test_lease_controller__new_lease_nil_base_with_node(void)
{
	fixture x;
	json_object *lease = NULL;

	fixture_init(&x, 10);
	fake_add_node(&x.api);
	CU_ASSERT_EQUAL(nl__lease_new_lease(&lease, x.lc, NULL), 0);
	NL_ASSERT_JSON_EQ(lease, "{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\","
	                         "\"metadata\":{\"name\":\"foo\",\"namespace\":\"kube-node-lease\","
	                         "\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Node\","
	                         "\"name\":\"foo\",\"uid\":\"foo-uid\"}]},"
	                         "\"spec\":{\"holderIdentity\":\"foo\",\"leaseDurationSeconds\":10,"
	                         "\"renewTime\":\"2026-11-29T15:04:05.000000Z\"}}");
	/* The wire form keeps kube-apiserver's key order. */
	CU_ASSERT_STRING_EQUAL(
	    nl_json_compact(lease, NULL),
	    "{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\",\"metadata\":{\"name\":"
	    "\"foo\",\"namespace\":\"kube-node-lease\",\"ownerReferences\":[{\"apiVersion\":\"v1\","
	    "\"kind\":\"Node\",\"name\":\"foo\",\"uid\":\"foo-uid\"}]},\"spec\":{"
	    "\"holderIdentity\":"
	    "\"foo\",\"leaseDurationSeconds\":10,\"renewTime\":\"2026-11-29T15:04:05.000000Z\"}}");
	assert_trace(&x.api, "GET node 200");
	json_object_put(lease);
	fixture_free(&x);
}

static void test_lease_controller__new_lease_base_without_owner_gets_owner_and_renew_time(void)
{
	fixture x;
	json_object *lease = NULL;
	const char *base_text =
	    "{\"metadata\":{\"name\":\"foo\",\"namespace\":\"kube-node-lease\"},"
	    "\"spec\":{\"holderIdentity\":\"foo\",\"leaseDurationSeconds\":10,"
	    "\"renewTime\":\"2026-11-29T15:03:55.000000Z\"}}";

	fixture_init(&x, 10);
	fake_add_node(&x.api);
	json_object *base = nl_test_json(base_text);
	CU_ASSERT_EQUAL(nl__lease_new_lease(&lease, x.lc, base), 0);
	CU_ASSERT_PTR_NOT_EQUAL(lease, base); /* a copy, never the base itself */
	NL_ASSERT_JSON_EQ(lease,
	                  "{\"metadata\":{\"name\":\"foo\",\"namespace\":\"kube-node-lease\","
	                  "\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Node\","
	                  "\"name\":\"foo\",\"uid\":\"foo-uid\"}]},"
	                  "\"spec\":{\"holderIdentity\":\"foo\",\"leaseDurationSeconds\":10,"
	                  "\"renewTime\":\"2026-11-29T15:04:05.000000Z\"}}");
	NL_ASSERT_JSON_EQ(base, base_text); /* the base is untouched */
	assert_trace(&x.api, "GET node 200");
	json_object_put(base);
	json_object_put(lease);
	fixture_free(&x);
}

static void test_lease_controller__new_lease_base_with_owner_only_renews(void)
{
	fixture x;
	json_object *lease = NULL;
	const char *base_text =
	    "{\"metadata\":{\"name\":\"foo\",\"namespace\":\"kube-node-lease\","
	    "\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"foo\","
	    "\"uid\":\"foo-uid\"}]},\"spec\":{\"holderIdentity\":\"foo\",\"leaseDurationSeconds\":"
	    "10,"
	    "\"renewTime\":\"2026-11-29T15:03:55.000000Z\"}}";

	fixture_init(&x, 10);
	fake_add_node(&x.api);
	json_object *base = nl_test_json(base_text);
	CU_ASSERT_EQUAL(nl__lease_new_lease(&lease, x.lc, base), 0);
	CU_ASSERT_PTR_NOT_EQUAL(lease, base);
	NL_ASSERT_JSON_EQ(lease,
	                  "{\"metadata\":{\"name\":\"foo\",\"namespace\":\"kube-node-lease\","
	                  "\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Node\","
	                  "\"name\":\"foo\",\"uid\":\"foo-uid\"}]},"
	                  "\"spec\":{\"holderIdentity\":\"foo\",\"leaseDurationSeconds\":10,"
	                  "\"renewTime\":\"2026-11-29T15:04:05.000000Z\"}}");
	NL_ASSERT_JSON_EQ(base, base_text);
	assert_trace(&x.api, ""); /* owner already set: no Node GET */
	json_object_put(base);
	json_object_put(lease);
	fixture_free(&x);
}

/* --- retryUpdateLease (upstream TestRetryUpdateNodeLease) ------------------- */

static void test_lease_controller__retry_update_no_errors(void)
{
	fixture x;

	fixture_init(&x, 40);
	fake_add_node(&x.api);
	fake_put_lease(&x.api, OWNED_LEASE);
	CU_ASSERT_EQUAL(nl__lease_retry_update(x.lc, x.api.lease), 0);
	assert_trace(&x.api, "UPDATE lease 200");
	CU_ASSERT_EQUAL(x.api.hook_calls, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(nl_lease_controller_latest(x.lc));
	CU_ASSERT_STRING_EQUAL(nl_meta_resource_version(nl_lease_controller_latest(x.lc)), "11");
	fixture_free(&x);
}

static void test_lease_controller__retry_update_connection_errors(void)
{
	fixture x;

	fixture_init(&x, 40);
	fake_add_node(&x.api);
	fake_put_lease(&x.api, OWNED_LEASE);
	for (int i = 0; i < 5; i++)
		add_fault(&x.api, UPDATE_LEASE, NL_ETRANSPORT);
	CU_ASSERT_EQUAL(nl__lease_retry_update(x.lc, x.api.lease), NL_ETRANSPORT);
	assert_trace(&x.api, "UPDATE lease ERR, UPDATE lease ERR, UPDATE lease ERR, "
	                     "UPDATE lease ERR, UPDATE lease ERR");
	/* Never on the first failure: 4 calls for 5 failures. */
	CU_ASSERT_EQUAL(x.api.hook_calls, 4);
	CU_ASSERT_PTR_NULL(nl_lease_controller_latest(x.lc));
	fixture_free(&x);
}

static void test_lease_controller__retry_update_timeout_then_conflict_then_success(void)
{
	fixture x;

	fixture_init(&x, 40);
	fake_add_node(&x.api);
	fake_put_lease(&x.api, OWNED_LEASE);
	add_fault(&x.api, UPDATE_LEASE, NL_ETIMEOUT);
	add_fault(&x.api, UPDATE_LEASE, NL_ECONFLICT);
	CU_ASSERT_EQUAL(nl__lease_retry_update(x.lc, x.api.lease), 0);
	assert_trace(&x.api, "UPDATE lease 504, UPDATE lease 409, GET lease 200, UPDATE lease 200");
	/* The first failure and the conflict are both exempt from the hook. */
	CU_ASSERT_EQUAL(x.api.hook_calls, 0);
	fixture_free(&x);
}

static void test_lease_controller__retry_update_node_not_found_sends_no_update(void)
{
	fixture x;

	fixture_init(&x, 40);
	CU_ASSERT_EQUAL(nl__lease_retry_update(x.lc, NULL), NL_ENOTFOUND);
	assert_trace(&x.api,
	             "GET node 404, GET node 404, GET node 404, GET node 404, GET node 404");
	/* As upstream: a failed preparation counts as a failed attempt. */
	CU_ASSERT_EQUAL(x.api.hook_calls, 4);
	CU_ASSERT_PTR_NULL(nl_lease_controller_latest(x.lc));
	fixture_free(&x);
}

static void test_lease_controller__retry_update_one_failure_does_not_call_hook(void)
{
	fixture x;

	fixture_init(&x, 40);
	fake_add_node(&x.api);
	fake_put_lease(&x.api, OWNED_LEASE);
	add_fault(&x.api, UPDATE_LEASE, NL_ESERVER);
	CU_ASSERT_EQUAL(nl__lease_retry_update(x.lc, x.api.lease), 0);
	assert_trace(&x.api, "UPDATE lease 500, UPDATE lease 200");
	CU_ASSERT_EQUAL(x.api.hook_calls, 0);
	fixture_free(&x);
}

static void test_lease_controller__retry_update_conflicts_never_call_hook(void)
{
	fixture x;

	fixture_init(&x, 40);
	fake_add_node(&x.api);
	fake_put_lease(&x.api, OWNED_LEASE);
	for (int i = 0; i < 5; i++)
		add_fault(&x.api, UPDATE_LEASE, NL_ECONFLICT);
	CU_ASSERT_EQUAL(nl__lease_retry_update(x.lc, x.api.lease), NL_ECONFLICT);
	assert_trace(&x.api, "UPDATE lease 409, GET lease 200, UPDATE lease 409, GET lease 200, "
	                     "UPDATE lease 409, GET lease 200, UPDATE lease 409, GET lease 200, "
	                     "UPDATE lease 409, GET lease 200");
	CU_ASSERT_EQUAL(x.api.hook_calls, 0);
	fixture_free(&x);
}

/* --- sync (upstream TestUpdateUsingLatestLease) ------------------------------ */

static void test_lease_controller__sync_creates_missing_lease(void)
{
	fixture x;

	fixture_init(&x, 40);
	fake_add_node(&x.api);
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x.lc), 0);
	assert_trace(&x.api, "GET lease 404, GET node 200, CREATE lease 201");
	NL_ASSERT_JSON_EQ(last_body(&x),
	                  "{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\","
	                  "\"metadata\":{\"name\":\"foo\",\"namespace\":\"kube-node-lease\","
	                  "\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Node\","
	                  "\"name\":\"foo\",\"uid\":\"foo-uid\"}]},"
	                  "\"spec\":{\"holderIdentity\":\"foo\",\"leaseDurationSeconds\":40,"
	                  "\"renewTime\":\"2026-11-29T15:04:05.000000Z\"}}");
	/* The server's answer is cached, with its resourceVersion. */
	CU_ASSERT_PTR_NOT_NULL_FATAL(nl_lease_controller_latest(x.lc));
	CU_ASSERT_STRING_EQUAL(nl_meta_resource_version(nl_lease_controller_latest(x.lc)), "1");
	fixture_free(&x);
}

static void test_lease_controller__sync_without_node_creates_nothing(void)
{
	fixture x;
	size_t nsleeps;

	fixture_init(&x, 40);
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x.lc), NL_ENOTFOUND);
	assert_trace(&x.api, "GET lease 404, GET node 404");
	CU_ASSERT_PTR_NULL(nl_lease_controller_latest(x.lc));
	/* Not an error for the backoff: no wait, the next interval retries. */
	nl_clock_fake_sleeps(x.clock, &nsleeps, NULL);
	CU_ASSERT_EQUAL(nsleeps, 0);
	fixture_free(&x);
}

static void test_lease_controller__sync_updates_existing_lease(void)
{
	fixture x;

	fixture_init(&x, 40);
	fake_add_node(&x.api);
	fake_put_lease(&x.api, OWNED_LEASE);
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x.lc), 0);
	assert_trace(&x.api, "GET lease 200, UPDATE lease 200");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(last_body(&x), "spec.renewTime"),
	                       "2026-11-29T15:04:05.000000Z");
	CU_ASSERT_STRING_EQUAL(nl_meta_resource_version(nl_lease_controller_latest(x.lc)), "11");
	fixture_free(&x);
}

static void test_lease_controller__sync_updates_from_cache_without_get(void)
{
	fixture x;
	json_object *cached = NULL;

	fixture_init(&x, 40);
	fake_add_node(&x.api);
	fake_put_lease(&x.api, OWNED_LEASE);
	CU_ASSERT_EQUAL_FATAL(json_object_deep_copy(x.api.lease, &cached, NULL), 0);
	nl__lease_set_latest(x.lc, cached);
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x.lc), 0);
	assert_trace(&x.api, "UPDATE lease 200");
	CU_ASSERT_STRING_EQUAL(nl_meta_resource_version(nl_lease_controller_latest(x.lc)), "11");
	fixture_free(&x);
}

static void test_lease_controller__sync_recreates_lease_deleted_behind_cache(void)
{
	fixture x;

	fixture_init(&x, 40);
	fake_add_node(&x.api);
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x.lc), 0);
	trace_reset(&x.api);
	/* Someone deletes the lease; the cached copy still carries its uid, so
	 * the optimistic update is refused with 409 like kube-apiserver does. */
	json_object_put(x.api.lease);
	x.api.lease = NULL;
	nl_clock_advance(x.clock, 10 * SEC);
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x.lc), 0);
	assert_trace(&x.api, "UPDATE lease 409, GET lease 404, GET node 200, CREATE lease 201, "
	                     "UPDATE lease 200");
	CU_ASSERT_STRING_EQUAL(nl_meta_uid(nl_lease_controller_latest(x.lc)), "lease-uid-2");
	CU_ASSERT_EQUAL(x.api.hook_calls, 0);
	fixture_free(&x);
}

static void test_lease_controller__sync_cached_update_not_found_retries(void)
{
	fixture x;
	json_object *cached = NULL;

	/* Upstream's variant: the fake clientset answers 404 once. */
	fixture_init(&x, 40);
	fake_add_node(&x.api);
	fake_put_lease(&x.api, OWNED_LEASE);
	CU_ASSERT_EQUAL_FATAL(json_object_deep_copy(x.api.lease, &cached, NULL), 0);
	nl__lease_set_latest(x.lc, cached);
	add_fault(&x.api, UPDATE_LEASE, NL_ENOTFOUND);
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x.lc), 0);
	assert_trace(&x.api, "UPDATE lease 404, UPDATE lease 200");
	CU_ASSERT_STRING_EQUAL(nl_meta_resource_version(nl_lease_controller_latest(x.lc)), "11");
	fixture_free(&x);
}

static void test_lease_controller__sync_falls_back_after_five_cached_failures(void)
{
	fixture x;
	json_object *cached = NULL;

	fixture_init(&x, 40);
	fake_add_node(&x.api);
	fake_put_lease(&x.api, OWNED_LEASE);
	CU_ASSERT_EQUAL_FATAL(json_object_deep_copy(x.api.lease, &cached, NULL), 0);
	nl__lease_set_latest(x.lc, cached);
	for (int i = 0; i < 5; i++)
		add_fault(&x.api, UPDATE_LEASE, NL_ESERVER);
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x.lc), 0);
	assert_trace(&x.api, "UPDATE lease 500, UPDATE lease 500, UPDATE lease 500, "
	                     "UPDATE lease 500, UPDATE lease 500, GET lease 200, UPDATE lease 200");
	CU_ASSERT_EQUAL(x.api.hook_calls, 4);
	fixture_free(&x);
}

/* --- behaviour over time ------------------------------------------------------- */

static void test_lease_controller__steady_state_one_update_per_interval(void)
{
	fixture x;
	int64_t next, now;
	char want[NL_TIME_BUFSZ];

	fixture_init(&x, 40);
	fake_add_node(&x.api);
	CU_ASSERT_EQUAL(nl_lease_controller_renew_interval(x.lc), 10 * SEC);
	CU_ASSERT_EQUAL(nl_lease_controller_start(x.lc), 0);
	CU_ASSERT_EQUAL(nl_lease_controller_start(x.lc), NL_EINVAL);
	nl_clock_advance(x.clock, 0); /* the first sync runs at once */
	assert_trace(&x.api, "GET lease 404, GET node 200, CREATE lease 201");
	for (int i = 0; i < 10; i++) {
		trace_reset(&x.api);
		now = nl_clock_now(x.clock);
		CU_ASSERT_EQUAL_FATAL(nl_clock_next_deadline(&next, x.clock), 0);
		CU_ASSERT(next - now >= 10 * SEC && next - now <= 10400 * MS);
		/* Nothing happens before the deadline ... */
		nl_clock_advance(x.clock, next - now - 1);
		assert_trace(&x.api, "");
		/* ... and exactly one UPDATE, no GET, at it. */
		nl_clock_advance(x.clock, 1);
		assert_trace(&x.api, "UPDATE lease 200");
		nl_time_format_micro(want, next);
		CU_ASSERT_STRING_EQUAL(nl_json_get_string(last_body(&x), "spec.renewTime"), want);
	}
	CU_ASSERT_EQUAL(x.api.hook_calls, 0);
	nl_lease_controller_stop(x.lc);
	CU_ASSERT_EQUAL(nl_clock_next_deadline(&next, x.clock), NL_ENOTFOUND);
	fixture_free(&x);
}

static void test_lease_controller__node_appearing_later_gets_owned_lease(void)
{
	fixture x;
	int64_t next;

	fixture_init(&x, 40);
	CU_ASSERT_EQUAL(nl_lease_controller_start(x.lc), 0);
	nl_clock_advance(x.clock, 0);
	assert_trace(&x.api, "GET lease 404, GET node 404");
	CU_ASSERT_PTR_NULL(x.api.lease);
	trace_reset(&x.api);

	fake_add_node(&x.api);
	CU_ASSERT_EQUAL_FATAL(nl_clock_next_deadline(&next, x.clock), 0);
	nl_clock_advance(x.clock, next - nl_clock_now(x.clock));
	assert_trace(&x.api, "GET lease 404, GET node 200, CREATE lease 201");
	CU_ASSERT_STRING_EQUAL(
	    nl_json_get_string(json_object_array_get_idx(
	                           nl_json_get_path(x.api.lease, "metadata.ownerReferences"), 0),
	                       "uid"),
	    "foo-uid");
	fixture_free(&x);
}

static void test_lease_controller__other_writer_costs_one_conflict_and_one_get(void)
{
	fixture x;

	fixture_init(&x, 40);
	fake_add_node(&x.api);
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x.lc), 0);
	trace_reset(&x.api);
	/* Another agent writes the lease: its resourceVersion moves on. */
	set_rv(x.api.lease, ++x.api.rv);
	nl_clock_advance(x.clock, 10 * SEC);
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x.lc), 0);
	assert_trace(&x.api, "UPDATE lease 409, GET lease 200, UPDATE lease 200");
	CU_ASSERT_EQUAL(x.api.hook_calls, 0);
	fixture_free(&x);
}

static void test_lease_controller__server_errors_back_off_then_renew_on_recovery(void)
{
	fixture x;
	static const int64_t want[] = {200, 400, 800, 1600, 3200, 6400, 7000, 7000, 7000};
	char renew[NL_TIME_BUFSZ];

	fixture_init(&x, 40);
	fake_add_node(&x.api);
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x.lc), 0);
	trace_reset(&x.api);
	int64_t start = nl_clock_now(x.clock);
	x.api.fail_code = NL_ESERVER;
	x.api.fail_until = start + 30 * SEC;

	CU_ASSERT_EQUAL(nl_lease_controller_sync(x.lc), 0);
	/* 5 cached UPDATEs, then GETs at 0, 0.2, 0.6, 1.4, 3.0, 6.2, 12.6, 19.6
	 * and 26.6 s; the server is back at 30 s, the GET at 33.6 s succeeds and
	 * the lease is renewed at once. */
	assert_trace(&x.api, "UPDATE lease 500, UPDATE lease 500, UPDATE lease 500, "
	                     "UPDATE lease 500, UPDATE lease 500, "
	                     "GET lease 500, GET lease 500, GET lease 500, GET lease 500, "
	                     "GET lease 500, GET lease 500, GET lease 500, GET lease 500, "
	                     "GET lease 500, GET lease 200, UPDATE lease 200");
	assert_sleeps(x.clock, want, sizeof(want) / sizeof(want[0]));
	CU_ASSERT_EQUAL(nl_clock_now(x.clock), start + 33600 * MS);
	nl_time_format_micro(renew, start + 33600 * MS);
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(x.api.lease, "spec.renewTime"), renew);
	CU_ASSERT_EQUAL(x.api.hook_calls, 4);
	fixture_free(&x);
}

static void test_lease_controller__unreachable_server_is_not_busy_looped(void)
{
	fixture x;
	size_t nsleeps, gets = 0;

	fixture_init(&x, 40);
	fake_add_node(&x.api);
	x.api.fail_code = NL_ETRANSPORT;
	x.api.fail_until = nl_clock_now(x.clock) + 120 * SEC;
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x.lc), 0);
	const int64_t *sleeps = nl_clock_fake_sleeps(x.clock, &nsleeps, NULL);
	for (size_t i = 0; i < x.api.nreqs; i++)
		gets += x.api.reqs[i].kind == GET_LEASE;
	/* Every failed GET is followed by a wait, capped at 7 s: two minutes
	 * cost 23 GETs, not thousands. */
	CU_ASSERT_EQUAL(gets, nsleeps + 1);
	CU_ASSERT_EQUAL(gets, 23);
	for (size_t i = 6; i < nsleeps; i++)
		CU_ASSERT_EQUAL(sleeps[i], 7 * SEC);
	for (size_t i = 1; i < x.api.nreqs; i++)
		if (x.api.reqs[i].kind == GET_LEASE)
			CU_ASSERT(x.api.reqs[i].at - x.api.reqs[i - 1].at >= 200 * MS);
	fixture_free(&x);
}

static void test_lease_controller__stop_during_backoff_returns_at_once(void)
{
	fixture x;
	static const int64_t want[] = {200, 400};

	fixture_init(&x, 40);
	fake_add_node(&x.api);
	x.api.fail_code = NL_ESERVER;
	x.api.fail_until = INT64_MAX;
	x.api.stop_after = 3; /* shutdown while the third GET is in flight */
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x.lc), NL_ECANCELED);
	assert_trace(&x.api, "GET lease 500, GET lease 500, GET lease 500");
	assert_sleeps(x.clock, want, 2);
	CU_ASSERT_PTR_NULL(nl_lease_controller_latest(x.lc));
	/* A stopped controller sends nothing more. */
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x.lc), NL_ECANCELED);
	CU_ASSERT_EQUAL(x.api.nreqs, 3);
	fixture_free(&x);
}

typedef struct {
	nl_clock *clock;
	long delay_ms;
} stopper;

static void *stop_after_delay(void *payload)
{
	stopper *s = payload;
	struct timespec ts = {s->delay_ms / 1000, (s->delay_ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
	nl_clock_stop(s->clock);
	return NULL;
}

static int64_t mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * SEC + ts.tv_nsec / 1000;
}

static void test_lease_controller__stop_interrupts_real_backoff(void)
{
	fixture x;
	nl_clock *clock;
	pthread_t th;
	stopper s;

	CU_ASSERT_EQUAL_FATAL(nl_clock_new_real(&clock), 0);
	fixture_init_with(&x, clock, 40);
	x.api.fail_code = NL_ETRANSPORT;
	x.api.fail_until = INT64_MAX;
	s = (stopper){clock, 700};
	int64_t begin_at = mono_now();
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, stop_after_delay, &s), 0);
	/* Waits 200, 400, 800 ms ...: stopped at 0.7 s inside the third wait. */
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x.lc), NL_ECANCELED);
	int64_t took = mono_now() - begin_at;
	pthread_join(th, NULL);
	CU_ASSERT(took >= 600 * MS);
	CU_ASSERT(took < 1300 * MS);
	assert_trace(&x.api, "GET lease ERR, GET lease ERR, GET lease ERR");
	fixture_free(&x);
}

static void test_lease_controller__lease_duration_change_is_reasserted(void)
{
	fixture x;

	fixture_init(&x, 40);
	fake_add_node(&x.api);
	/* A lease someone left with another duration is corrected on renewal. */
	fake_put_lease(&x.api, OWNED_LEASE);
	json_object_object_add(json_object_object_get(x.api.lease, "spec"), "leaseDurationSeconds",
	                       json_object_new_int(10));
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x.lc), 0);
	assert_trace(&x.api, "GET lease 200, UPDATE lease 200");
	CU_ASSERT_EQUAL(
	    json_object_get_int(nl_json_get_path(last_body(&x), "spec.leaseDurationSeconds")), 40);
	trace_reset(&x.api);

	/* Dynamic config changes the duration: the next renewal, still from the
	 * cache, writes the new value, and the renew interval follows. */
	CU_ASSERT_EQUAL(nl_lease_controller_set_lease_duration(x.lc, 60), 0);
	CU_ASSERT_EQUAL(nl_lease_controller_set_lease_duration(x.lc, 0), NL_EINVAL);
	CU_ASSERT_EQUAL(nl_lease_controller_renew_interval(x.lc), 15 * SEC);
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x.lc), 0);
	assert_trace(&x.api, "UPDATE lease 200");
	CU_ASSERT_EQUAL(
	    json_object_get_int(nl_json_get_path(last_body(&x), "spec.leaseDurationSeconds")), 60);
	fixture_free(&x);
}

/* --- the periodic sync waits on timers ------------------------------------------------ */

/* Another controller on the same clock: a timer every second, recording
 * when it fired. */
typedef struct {
	nl_clock *clock;
	int64_t at[64];
	size_t n;
} ticker;

static void tick(void *payload)
{
	ticker *t = payload;
	if (t->n < 64)
		t->at[t->n++] = nl_clock_now(t->clock);
	CU_ASSERT_EQUAL(nl_clock_after(NULL, t->clock, SEC, tick, t), 0);
}

/* Started, in a server outage: the periodic sync's ensure backs off 200 ms
 * doubling to 7 s on timers (recorded as the same sleeps), while another
 * timer of the clock fires every second on the dot; the first attempt
 * after the outage creates the lease, and the next sync comes a renew
 * interval after that one ended. */
static void test_lease_controller__periodic_backoff_blocks_no_timer(void)
{
	static const int64_t want[] = {200, 400, 800, 1600, 3200, 6400, 7000, 7000};
	fixture x;
	ticker t = {0};
	int64_t start, next;

	fixture_init(&x, 40);
	start = nl_clock_now(x.clock);
	fake_add_node(&x.api);
	x.api.fail_code = NL_ESERVER;
	x.api.fail_until = start + 20 * SEC;
	t.clock = x.clock;
	CU_ASSERT_EQUAL_FATAL(nl_clock_after(NULL, x.clock, SEC, tick, &t), 0);
	CU_ASSERT_EQUAL(nl_lease_controller_start(x.lc), 0);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 30 * SEC), 0);
	CU_ASSERT_EQUAL(t.n, 30);
	for (size_t i = 0; i < t.n; i++)
		CU_ASSERT_EQUAL(t.at[i], start + (int64_t)(i + 1) * SEC);
	assert_trace(&x.api, "GET lease 500, GET lease 500, GET lease 500, GET lease 500, "
	                     "GET lease 500, GET lease 500, GET lease 500, GET lease 500, "
	                     "GET lease 404, GET node 200, CREATE lease 201");
	assert_sleeps(x.clock, want, sizeof(want) / sizeof(want[0]));
	int64_t created = x.api.reqs[x.api.nreqs - 1].at;
	CU_ASSERT_EQUAL(created, start + 26600 * MS);
	/* Stopped: only the ticker's timer is left. */
	nl_lease_controller_stop(x.lc);
	CU_ASSERT_EQUAL(nl_clock_next_deadline(&next, x.clock), 0);
	CU_ASSERT_EQUAL(next, start + 31 * SEC);
	fixture_free(&x);
}

/* The renew interval is counted from the end of a sync that waited. */
static void test_lease_controller__next_sync_follows_the_backoff(void)
{
	fixture x;
	int64_t start;

	fixture_init(&x, 40);
	start = nl_clock_now(x.clock);
	fake_add_node(&x.api);
	x.api.fail_code = NL_ESERVER;
	x.api.fail_until = start + 1 * SEC;
	CU_ASSERT_EQUAL(nl_lease_controller_start(x.lc), 0);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 1400 * MS), 0);
	/* 0, 0.2, 0.6 fail; at 1.4 s it is created. */
	assert_trace(&x.api, "GET lease 500, GET lease 500, GET lease 500, GET lease 404, "
	                     "GET node 200, CREATE lease 201");
	trace_reset(&x.api);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 10 * SEC - 1), 0);
	CU_ASSERT_EQUAL(x.api.nreqs, 0);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 400 * MS + 1), 0);
	assert_trace(&x.api, "UPDATE lease 200");
	int64_t at = x.api.reqs[0].at - (start + 1400 * MS);
	CU_ASSERT(at >= 10 * SEC && at <= 10400 * MS);
	fixture_free(&x);
}

/* Stopped while its sync waits in the backoff: the wait's timer goes too,
 * nothing more is sent, and the controller starts afresh. */
static void test_lease_controller__stop_cancels_a_waiting_sync(void)
{
	fixture x;
	int64_t next;

	fixture_init(&x, 40);
	fake_add_node(&x.api);
	x.api.fail_code = NL_ESERVER;
	x.api.fail_until = INT64_MAX;
	CU_ASSERT_EQUAL(nl_lease_controller_start(x.lc), 0);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 1 * SEC), 0);
	assert_trace(&x.api, "GET lease 500, GET lease 500, GET lease 500");
	nl_lease_controller_stop(x.lc);
	CU_ASSERT_EQUAL(nl_clock_next_deadline(&next, x.clock), NL_ENOTFOUND);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 60 * SEC), 0);
	CU_ASSERT_EQUAL(x.api.nreqs, 3);
	/* Restarted: a new sync, from the first wait. */
	x.api.fail_until = 0;
	trace_reset(&x.api);
	CU_ASSERT_EQUAL(nl_lease_controller_start(x.lc), 0);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 0), 0);
	assert_trace(&x.api, "GET lease 404, GET node 200, CREATE lease 201");
	fixture_free(&x);
}

/* nl_lease_controller_sync while the periodic sync waits: that sync is
 * finished here, blocking (its remaining waits are sleeps), and the
 * periodic run goes on from its end. */
static void test_lease_controller__sync_finishes_the_waiting_one(void)
{
	/* The periodic sync's 200 ms wait (recorded when it was scheduled),
	 * slept out here since no time had passed, then 400 and 800 ms. */
	static const int64_t want[] = {200, 200, 400, 800};
	fixture x;
	int64_t start, next;

	fixture_init(&x, 40);
	start = nl_clock_now(x.clock);
	fake_add_node(&x.api);
	x.api.fail_code = NL_ESERVER;
	x.api.fail_until = start + 1 * SEC;
	CU_ASSERT_EQUAL(nl_lease_controller_start(x.lc), 0);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 0), 0);
	assert_trace(&x.api, "GET lease 500");
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x.lc), 0);
	assert_trace(&x.api, "GET lease 500, GET lease 500, GET lease 500, GET lease 404, "
	                     "GET node 200, CREATE lease 201");
	assert_sleeps(x.clock, want, 4);
	CU_ASSERT_EQUAL(nl_clock_now(x.clock), start + 1400 * MS);
	CU_ASSERT_EQUAL(x.api.reqs[1].at, start + 200 * MS);
	CU_ASSERT_EQUAL(x.api.reqs[2].at, start + 600 * MS);
	CU_ASSERT_EQUAL(nl_clock_next_deadline(&next, x.clock), 0);
	CU_ASSERT(next - nl_clock_now(x.clock) >= 10 * SEC);
	CU_ASSERT(next - nl_clock_now(x.clock) <= 10400 * MS);
	fixture_free(&x);
}

/* Kicked (the Node was just registered): a controller idle for want of a
 * Node syncs at once; one that has its lease, or has a sync due anyway,
 * does not change its schedule. */
static void test_lease_controller__kick_syncs_a_controller_waiting_for_its_node(void)
{
	fixture x;
	int64_t next, before;

	fixture_init(&x, 40);
	CU_ASSERT_EQUAL(nl_lease_controller_kick(x.lc), 0); /* not started: nothing */
	CU_ASSERT_EQUAL(nl_clock_next_deadline(&next, x.clock), NL_ENOTFOUND);
	CU_ASSERT_EQUAL(nl_lease_controller_start(x.lc), 0);
	CU_ASSERT_EQUAL(nl_lease_controller_kick(x.lc), 0); /* due already */
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 0), 0);
	assert_trace(&x.api, "GET lease 404, GET node 404");
	trace_reset(&x.api);
	fake_add_node(&x.api);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, SEC), 0);
	CU_ASSERT_EQUAL(x.api.nreqs, 0);
	CU_ASSERT_EQUAL(nl_lease_controller_kick(x.lc), 0);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 0), 0);
	assert_trace(&x.api, "GET lease 404, GET node 200, CREATE lease 201");
	trace_reset(&x.api);
	CU_ASSERT_EQUAL(nl_clock_next_deadline(&before, x.clock), 0);
	CU_ASSERT_EQUAL(nl_lease_controller_kick(x.lc), 0); /* has its lease */
	CU_ASSERT_EQUAL(nl_clock_next_deadline(&next, x.clock), 0);
	CU_ASSERT_EQUAL(next, before);
	CU_ASSERT_EQUAL(nl_clock_advance(x.clock, 0), 0);
	CU_ASSERT_EQUAL(x.api.nreqs, 0);
	fixture_free(&x);
}

static void collect_intervals(int64_t *gaps, size_t n, uint64_t seed)
{
	fixture x;
	nl_lease_controller_options o = {0};
	nl_clock *clock;
	int64_t next;

	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&clock, t0()), 0);
	fixture_init_with(&x, clock, 40);
	fake_add_node(&x.api);
	/* Rebuild with the requested seed. */
	nl_lease_controller_free(x.lc);
	o.clock = clock;
	o.ops = &x.ops;
	o.node_name = "foo";
	o.jitter_seed = seed;
	CU_ASSERT_EQUAL_FATAL(nl_lease_controller_new(&x.lc, &o), 0);
	CU_ASSERT_EQUAL(nl_lease_controller_start(x.lc), 0);
	nl_clock_advance(clock, 0);
	for (size_t i = 0; i < n; i++) {
		CU_ASSERT_EQUAL_FATAL(nl_clock_next_deadline(&next, clock), 0);
		gaps[i] = next - nl_clock_now(clock);
		nl_clock_advance(clock, gaps[i]);
		trace_reset(&x.api);
	}
	fixture_free(&x);
}

static void test_lease_controller__renew_interval_jitter_bounds(void)
{
	int64_t a[50], b[50], c[50];
	int varied = 0;

	collect_intervals(a, 50, 7);
	collect_intervals(b, 50, 7);
	collect_intervals(c, 50, 8);
	for (size_t i = 0; i < 50; i++) {
		CU_ASSERT(a[i] >= 10 * SEC && a[i] <= 10400 * MS);
		varied += a[i] != a[0];
	}
	CU_ASSERT(varied > 40);
	/* A fixed seed gives the same schedule; another seed another one. */
	CU_ASSERT_EQUAL(memcmp(a, b, sizeof(a)), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(a, c, sizeof(a)), 0);
}

static void test_lease_controller__options_are_validated_and_defaulted(void)
{
	fixture x;
	nl_lease_controller *lc = NULL;
	nl_lease_controller_options o = {0};
	nl_lease_ops partial;

	fixture_init(&x, 0);
	CU_ASSERT_EQUAL(nl_lease_controller_renew_interval(x.lc), 10 * SEC); /* 40 s default */
	o.clock = x.clock;
	o.ops = &x.ops;
	CU_ASSERT_EQUAL(nl_lease_controller_new(&lc, &o), NL_EINVAL); /* no node name */
	o.node_name = "foo";
	o.lease_duration_seconds = -1;
	CU_ASSERT_EQUAL(nl_lease_controller_new(&lc, &o), NL_EINVAL);
	o.lease_duration_seconds = 0;
	partial = x.ops;
	partial.get_node = NULL;
	o.ops = &partial;
	CU_ASSERT_EQUAL(nl_lease_controller_new(&lc, &o), NL_EINVAL);
	CU_ASSERT_PTR_NULL(lc);
	nl_lease_controller_free(NULL);
	fixture_free(&x);
}

static int custom_get_lease(json_object **out, nl_status **status, const char *ns, const char *name,
                            void *payload)
{
	(void)out;
	(void)payload;
	CU_ASSERT_STRING_EQUAL(ns, "custom-ns");
	CU_ASSERT_STRING_EQUAL(name, "foo-lease");
	*status = nl_status_not_found(&leases_gr, name);
	return NL_ENOTFOUND;
}

static int custom_create_lease(json_object **out, nl_status **status, const char *ns,
                               json_object *lease, void *payload)
{
	(void)status;
	(void)payload;
	CU_ASSERT_STRING_EQUAL(ns, "custom-ns");
	CU_ASSERT_STRING_EQUAL(nl_meta_namespace(lease), "custom-ns");
	CU_ASSERT_STRING_EQUAL(nl_meta_name(lease), "foo-lease");
	CU_ASSERT_STRING_EQUAL(nl_json_get_string(lease, "spec.holderIdentity"), "foo-holder");
	return json_object_deep_copy(lease, out, NULL) == 0 ? 0 : NL_ENOMEM;
}

static void test_lease_controller__lease_name_namespace_and_holder_settable(void)
{
	fixture x;
	nl_lease_controller *lc;
	nl_lease_controller_options o = {0};
	json_object *lease = NULL;

	fixture_init(&x, 40);
	fake_add_node(&x.api);
	x.ops.get_lease = custom_get_lease;
	o.clock = x.clock;
	o.ops = &x.ops;
	o.node_name = "foo";
	o.holder_identity = "foo-holder";
	o.lease_name = "foo-lease";
	o.lease_namespace = "custom-ns";
	CU_ASSERT_EQUAL_FATAL(nl_lease_controller_new(&lc, &o), 0);
	CU_ASSERT_EQUAL(nl__lease_new_lease(&lease, lc, NULL), 0);
	NL_ASSERT_JSON_EQ(lease, "{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\","
	                         "\"metadata\":{\"name\":\"foo-lease\",\"namespace\":\"custom-ns\","
	                         "\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Node\","
	                         "\"name\":\"foo\",\"uid\":\"foo-uid\"}]},"
	                         "\"spec\":{\"holderIdentity\":\"foo-holder\","
	                         "\"leaseDurationSeconds\":40,"
	                         "\"renewTime\":\"2026-11-29T15:04:05.000000Z\"}}");
	json_object_put(lease);
	/* GET and CREATE go to the custom name and namespace (checked in the
	 * callbacks). */
	x.ops.create_lease = custom_create_lease;
	nl_lease_controller_free(lc);
	CU_ASSERT_EQUAL_FATAL(nl_lease_controller_new(&lc, &o), 0);
	CU_ASSERT_EQUAL(nl_lease_controller_sync(lc), 0);
	CU_ASSERT_STRING_EQUAL(nl_meta_name(nl_lease_controller_latest(lc)), "foo-lease");
	nl_lease_controller_free(lc);
	fixture_free(&x);
}

/* --- the text update (update_lease_text) ---------------------------------------- */

/* When set, the text update answers this instead of the fake's lease. */
static const char *canned_answer;

static char *copy_text(const char *s, size_t n)
{
	char *c = malloc(n + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	memcpy(c, s, n);
	c[n] = '\0';
	return c;
}

/* The same fake API, spoken in text as bench_heartbeat does. */
static int fake_update_lease_text(char **out, size_t *out_len, nl_status **status, const char *ns,
                                  const char *name, const char *body, size_t len, void *payload)
{
	fake_api *f = payload;
	json_tokener *tok = json_tokener_new();
	json_object *lease = json_tokener_parse_ex(tok, body, (int)len), *answer = NULL;
	size_t n;
	int rc;

	json_tokener_free(tok);
	CU_ASSERT_PTR_NOT_NULL_FATAL(lease);
	CU_ASSERT_STRING_EQUAL(name, "foo");
	if (canned_answer) {
		begin(f, UPDATE_LEASE, lease);
		finish(f, 0);
		*out = copy_text(canned_answer, strlen(canned_answer));
		*out_len = strlen(canned_answer);
		json_object_put(lease);
		return 0;
	}
	rc = fake_update_lease(&answer, status, ns, lease, payload);
	json_object_put(lease);
	if (rc == 0) {
		const char *text = nl_json_compact(answer, &n);
		*out = copy_text(text, n);
		*out_len = n;
		json_object_put(answer);
	}
	return rc;
}

static void fixture_init_text(fixture *x)
{
	nl_lease_controller_options o = {0};

	canned_answer = NULL;
	fixture_init(x, 40);
	nl_lease_controller_free(x->lc);
	o.clock = x->clock;
	o.ops = &x->ops;
	o.node_name = "foo";
	o.on_repeated_heartbeat_failure = count_hook;
	o.hook_payload = &x->api;
	o.jitter_seed = 1234;
	o.update_lease_text = fake_update_lease_text;
	CU_ASSERT_EQUAL_FATAL(nl_lease_controller_new(&x->lc, &o), 0);
}

/* The same story told to a tree-update and a text-update controller: the
 * same requests with the same bodies, the same cached lease. */
static void run_story(fixture *x)
{
	fake_add_node(&x->api);
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x->lc), 0); /* creates */
	nl_clock_advance(x->clock, 10 * SEC);
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x->lc), 0); /* renews from the cache */
	set_rv(x->api.lease, ++x->api.rv);                   /* another writer */
	nl_clock_advance(x->clock, 10 * SEC);
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x->lc), 0); /* 409, GET, UPDATE */
	CU_ASSERT_EQUAL(nl_lease_controller_set_lease_duration(x->lc, 60), 0);
	nl_clock_advance(x->clock, 10 * SEC);
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x->lc), 0); /* the new duration */
}

static void test_lease_controller__text_update_sends_what_tree_update_sends(void)
{
	fixture a, b;

	fixture_init(&a, 40);
	fixture_init_text(&b);
	run_story(&a);
	run_story(&b);
	assert_trace(&b.api, "GET lease 404, GET node 200, CREATE lease 201, UPDATE lease 200, "
	                     "UPDATE lease 409, GET lease 200, UPDATE lease 200, UPDATE lease 200");
	CU_ASSERT_EQUAL_FATAL(a.api.nreqs, b.api.nreqs);
	for (size_t i = 0; i < a.api.nreqs; i++) {
		CU_ASSERT_EQUAL(a.api.reqs[i].kind, b.api.reqs[i].kind);
		CU_ASSERT_EQUAL(a.api.reqs[i].rc, b.api.reqs[i].rc);
		CU_ASSERT(json_object_equal(a.api.reqs[i].body, b.api.reqs[i].body));
	}
	CU_ASSERT_EQUAL(
	    json_object_get_int(nl_json_get_path(last_body(&b), "spec.leaseDurationSeconds")), 60);
	CU_ASSERT(
	    json_object_equal(nl_lease_controller_latest(a.lc), nl_lease_controller_latest(b.lc)));
	CU_ASSERT_STRING_EQUAL(nl_meta_resource_version(nl_lease_controller_latest(b.lc)), "5");
	fixture_free(&a);
	fixture_free(&b);
}

static void test_lease_controller__text_answer_must_be_one_json_object(void)
{
	static const char *const bad[] = {
	    "",           "[1]",       "{\"a\":1,}",       "{\"a\":tru}",
	    "{\"a\":01}", "{} {}",     "{\"a\":\"\x01\"}", "{\"a\":\"\\x\"}",
	    "{\"a\":-}",  "{\"a\" 1}", "{\"a\":[1,]}",     "{\"a\":1.}",
	};
	fixture x;

	fixture_init_text(&x);
	fake_add_node(&x.api);
	fake_put_lease(&x.api, OWNED_LEASE);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		trace_reset(&x.api);
		x.api.hook_calls = 0;
		canned_answer = bad[i];
		/* Each answer is a failed attempt, as an undecodable one is for
		 * the client: five UPDATEs, the hook after the first. */
		CU_ASSERT_EQUAL(nl__lease_retry_update(x.lc, x.api.lease), NL_EPARSE);
		CU_ASSERT_EQUAL(x.api.nreqs, 5);
		CU_ASSERT_EQUAL(x.api.hook_calls, 4);
		CU_ASSERT_PTR_NULL(nl_lease_controller_latest(x.lc));
	}
	/* Whitespace, every kind of value and escapes are fine. */
	canned_answer = " {\"a\" : [1, -2.5e-3, 0, true, false, null, \"\\u00e9\\n\", {}], "
	                "\"metadata\":{\"resourceVersion\":\"12\"}} \n";
	CU_ASSERT_EQUAL(nl__lease_retry_update(x.lc, x.api.lease), 0);
	CU_ASSERT_STRING_EQUAL(nl_meta_resource_version(nl_lease_controller_latest(x.lc)), "12");
	/* Parsed once per answer: the same tree until the cache changes. */
	CU_ASSERT_PTR_EQUAL(nl_lease_controller_latest(x.lc), nl_lease_controller_latest(x.lc));
	canned_answer = NULL;
	fixture_free(&x);
}

#define OWNER_REF "[{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"foo\",\"uid\":\"foo-uid\"}]"
#define LEASE_META                                                                              \
	"\"metadata\":{\"name\":\"foo\",\"namespace\":\"kube-node-lease\",\"uid\":\"lease-uid-" \
	"0\","                                                                                  \
	"\"resourceVersion\":\"10\""

/* The server answers `answer` to one renewal; the next renewal, from that
 * cached answer, must send `want` (as newLease on json-c's reading of it). */
static void assert_renewal_from(const char *answer, const char *want, const char *trace)
{
	fixture x;
	char renew[NL_TIME_BUFSZ], expected[2048];

	fixture_init_text(&x);
	fake_add_node(&x.api);
	fake_put_lease(&x.api, OWNED_LEASE);
	canned_answer = answer;
	CU_ASSERT_EQUAL(nl__lease_retry_update(x.lc, x.api.lease), 0);
	canned_answer = NULL;
	trace_reset(&x.api);
	nl_clock_advance(x.clock, 10 * SEC);
	nl_time_format_micro(renew, nl_clock_now(x.clock));
	snprintf(expected, sizeof(expected), want, renew);
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x.lc), 0);
	assert_trace(&x.api, trace);
	NL_ASSERT_JSON_EQ(last_body(&x), expected);
	fixture_free(&x);
}

static void test_lease_controller__text_base_of_unusual_shape_renews_like_json_c_reads_it(void)
{
	/* The usual shape: only the two values change, wherever they are. */
	assert_renewal_from(
	    "{\"spec\":{\"renewTime\":\"old\",\"holderIdentity\":\"foo\","
	    "\"leaseDurationSeconds\":10}," LEASE_META ",\"ownerReferences\":" OWNER_REF "}}",
	    "{\"spec\":{\"renewTime\":\"%s\",\"holderIdentity\":\"foo\","
	    "\"leaseDurationSeconds\":40}," LEASE_META ",\"ownerReferences\":" OWNER_REF "}}",
	    "UPDATE lease 200");
	/* A key twice: json-c keeps the last value. */
	assert_renewal_from("{" LEASE_META ",\"ownerReferences\":" OWNER_REF "},\"spec\":{"
	                    "\"holderIdentity\":\"foo\",\"renewTime\":\"one\","
	                    "\"leaseDurationSeconds\":40,\"renewTime\":\"two\"}}",
	                    "{" LEASE_META ",\"ownerReferences\":" OWNER_REF "},\"spec\":{"
	                    "\"holderIdentity\":\"foo\",\"renewTime\":\"%s\","
	                    "\"leaseDurationSeconds\":40}}",
	                    "UPDATE lease 200");
	/* A key spelled with an escape is the same key to json-c. */
	assert_renewal_from("{" LEASE_META ",\"ownerReferences\":" OWNER_REF "},\"spec\":{"
	                    "\"holderIdentity\":\"foo\",\"renewTime\":\"a\","
	                    "\"leaseDurationSeconds\":40},\"\\u0073pec\":{\"holderIdentity\":"
	                    "\"other\",\"renewTime\":\"b\",\"leaseDurationSeconds\":40}}",
	                    "{" LEASE_META ",\"ownerReferences\":" OWNER_REF "},\"spec\":{"
	                    "\"holderIdentity\":\"other\",\"renewTime\":\"%s\","
	                    "\"leaseDurationSeconds\":40}}",
	                    "UPDATE lease 200");
	/* A field missing is added. */
	assert_renewal_from("{" LEASE_META ",\"ownerReferences\":" OWNER_REF "},\"spec\":{"
	                    "\"holderIdentity\":\"foo\",\"leaseDurationSeconds\":40}}",
	                    "{" LEASE_META ",\"ownerReferences\":" OWNER_REF "},\"spec\":{"
	                    "\"holderIdentity\":\"foo\",\"leaseDurationSeconds\":40,"
	                    "\"renewTime\":\"%s\"}}",
	                    "UPDATE lease 200");
	/* No owner: the Node is read and the owner added. */
	assert_renewal_from("{" LEASE_META ",\"ownerReferences\":[]},\"spec\":{"
	                    "\"holderIdentity\":\"foo\",\"leaseDurationSeconds\":40,"
	                    "\"renewTime\":\"old\"}}",
	                    "{" LEASE_META ",\"ownerReferences\":" OWNER_REF "},\"spec\":{"
	                    "\"holderIdentity\":\"foo\",\"leaseDurationSeconds\":40,"
	                    "\"renewTime\":\"%s\"}}",
	                    "GET node 200, UPDATE lease 200");
	/* A spec that is no object is replaced by one. */
	assert_renewal_from("{" LEASE_META ",\"ownerReferences\":" OWNER_REF "},\"spec\":null}",
	                    "{" LEASE_META ",\"ownerReferences\":" OWNER_REF "},\"spec\":{"
	                    "\"leaseDurationSeconds\":40,\"renewTime\":\"%s\"}}",
	                    "UPDATE lease 200");
}

static FILE *devnull;

static int quiet_logs(void)
{
	/* Failures are logged at error level on purpose; keep test output
	 * readable unless asked for (NL_TEST_LOGS=1). */
	const char *show = getenv("NL_TEST_LOGS");
	if (show && strcmp(show, "1") == 0) {
		nl_log_set_verbosity(4);
		return 0;
	}
	devnull = fopen("/dev/null", "w");
	nl_log_set_output(devnull);
	return 0;
}

static int restore_logs(void)
{
	nl_log_set_output(NULL);
	if (devnull)
		fclose(devnull);
	devnull = NULL;
	return 0;
}

/* --- the protobuf update (update_lease_protobuf) ---------------------------------- */

/* Every body the protobuf update was given, as bytes. */
static struct {
	nl_buf body[MAX_REQUESTS];
	size_t n;
} pb_sent;

static nl_buf pb_encode(json_object *obj)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL_FATAL(nl_pb_encode_object(&b, obj), 0);
	return b;
}

/* The fake API spoken in protobuf, as a kube-apiserver would: the body
 * decoded, the answer encoded. */
static int fake_update_lease_protobuf(char **out, size_t *out_len, int *out_protobuf,
                                      nl_status **status, const char *ns, const char *name,
                                      const void *body, size_t len, void *payload)
{
	json_object *lease = NULL, *answer = NULL;
	nl_err err = {0};
	CU_ASSERT_FATAL(pb_sent.n < MAX_REQUESTS);
	nl_buf_init(&pb_sent.body[pb_sent.n], 0);
	CU_ASSERT_EQUAL_FATAL(nl_buf_add(&pb_sent.body[pb_sent.n++], body, len), 0);
	CU_ASSERT_EQUAL_FATAL(nl_pb_decode_object(&lease, NULL, body, len, &err), 0);
	CU_ASSERT_STRING_EQUAL(name, "foo");
	int rc = fake_update_lease(&answer, status, ns, lease, payload);
	json_object_put(lease);
	if (rc == 0) {
		nl_buf b = pb_encode(answer);
		*out = nl_buf_detach(&b, out_len);
		*out_protobuf = 1;
		nl_buf_free(&b);
		json_object_put(answer);
	}
	return rc;
}

static void pb_sent_clear(void)
{
	for (size_t i = 0; i < pb_sent.n; i++)
		nl_buf_free(&pb_sent.body[i]);
	pb_sent.n = 0;
}

static void fixture_init_protobuf(fixture *x)
{
	nl_lease_controller_options o = {0};

	fixture_init(x, 40);
	nl_lease_controller_free(x->lc);
	o.clock = x->clock;
	o.ops = &x->ops;
	o.node_name = "foo";
	o.on_repeated_heartbeat_failure = count_hook;
	o.hook_payload = &x->api;
	o.jitter_seed = 1234;
	o.update_lease_protobuf = fake_update_lease_protobuf;
	CU_ASSERT_EQUAL_FATAL(nl_lease_controller_new(&x->lc, &o), 0);
}

/* The story of the text test, told to a protobuf controller: every UPDATE
 * goes through the protobuf update, and its bytes are exactly
 * nl_pb_encode_object of the body the tree controller sends at the same
 * step (renewTime with microseconds, the changed duration included). */
static void test_lease_controller__protobuf_renewal_bytes_equal_encoder(void)
{
	fixture a, b;

	pb_sent_clear();
	fixture_init(&a, 40);
	fixture_init_protobuf(&b);
	nl_clock_advance(a.clock, 123457);
	nl_clock_advance(b.clock, 123457);
	run_story(&a);
	run_story(&b);
	assert_trace(&b.api, "GET lease 404, GET node 200, CREATE lease 201, UPDATE lease 200, "
	                     "UPDATE lease 409, GET lease 200, UPDATE lease 200, UPDATE lease 200");
	CU_ASSERT_EQUAL_FATAL(a.api.nreqs, b.api.nreqs);
	size_t k = 0;
	for (size_t i = 0; i < a.api.nreqs; i++) {
		CU_ASSERT_EQUAL(a.api.reqs[i].kind, b.api.reqs[i].kind);
		CU_ASSERT_EQUAL(a.api.reqs[i].rc, b.api.reqs[i].rc);
		if (a.api.reqs[i].kind != UPDATE_LEASE)
			continue;
		CU_ASSERT_FATAL(k < pb_sent.n);
		nl_buf want = pb_encode(a.api.reqs[i].body);
		CU_ASSERT_EQUAL(pb_sent.body[k].len, want.len);
		CU_ASSERT(pb_sent.body[k].len == want.len &&
		          memcmp(pb_sent.body[k].data, want.data, want.len) == 0);
		nl_buf_free(&want);
		k++;
	}
	CU_ASSERT_EQUAL(k, pb_sent.n); /* no UPDATE went another way */
	CU_ASSERT_EQUAL(k, 4);
	/* The same cached lease, as protobuf says it (decoding writes the JSON
	 * kube-apiserver would, so compare the encodings, not the trees). */
	nl_buf la = pb_encode(nl_lease_controller_latest(a.lc)),
	       lb = pb_encode(nl_lease_controller_latest(b.lc));
	CU_ASSERT(la.len == lb.len && memcmp(la.data, lb.data, la.len) == 0);
	nl_buf_free(&la);
	nl_buf_free(&lb);
	CU_ASSERT_STRING_EQUAL(nl_meta_resource_version(nl_lease_controller_latest(b.lc)), "5");
	CU_ASSERT_PTR_NOT_NULL(strstr(
	    nl_json_get_string(nl_lease_controller_latest(b.lc), "spec.renewTime"), ".123457Z"));
	pb_sent_clear();
	fixture_free(&a);
	fixture_free(&b);
}

/* The splice itself: the renewed bytes equal the encoder's for the renewed
 * Lease, whatever the varint lengths do (a long holder identity pushes the
 * Lease past 127 bytes, so its length prefix grows); an unusual lease is
 * left to the tree path. */
static void test_lease_controller__protobuf_splice_equals_encoder(void)
{
	static const char *const before =
	    "{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\",\"metadata\":{\"name\":"
	    "\"foo\",\"namespace\":\"kube-node-lease\",\"uid\":\"u\",\"resourceVersion\":\"9\","
	    "\"creationTimestamp\":\"2024-01-01T00:00:00Z\",\"ownerReferences\":[{\"apiVersion\":"
	    "\"v1\",\"kind\":\"Node\",\"name\":\"foo\",\"uid\":\"n\"}],\"managedFields\":[{"
	    "\"manager\":"
	    "\"nodelet\",\"operation\":\"Update\",\"apiVersion\":\"coordination.k8s.io/"
	    "v1\",\"time\":"
	    "\"2024-01-01T00:00:00Z\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:spec\":{}}}]},"
	    "\"spec\":{\"holderIdentity\":\"%s\",\"leaseDurationSeconds\":40,\"renewTime\":"
	    "\"2024-01-01T00:00:01.000000Z\"}}";
	static const char *const holders[] = {"foo", "a-holder-identity-long-enough-to-move-the-"
	                                             "length-prefixes-past-one-byte-"
	                                             "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"};
	for (size_t h = 0; h < 2; h++) {
		char text[2048];
		snprintf(text, sizeof(text), before, holders[h]);
		json_object *lease = nl_test_json(text);
		nl_buf base = pb_encode(lease);
		int64_t renew;
		CU_ASSERT_EQUAL_FATAL(nl_time_parse_micro(&renew, "2024-06-01T12:34:56.789012Z"),
		                      0);
		char *out = NULL;
		size_t out_len = 0;
		CU_ASSERT_EQUAL_FATAL(
		    nl__lease_splice_protobuf(&out, &out_len, base.data, base.len, 3600, renew), 0);
		json_object *spec = json_object_object_get(lease, "spec");
		json_object_object_add(spec, "leaseDurationSeconds", json_object_new_int(3600));
		json_object_object_add(spec, "renewTime",
		                       json_object_new_string("2024-06-01T12:34:56.789012Z"));
		nl_buf want = pb_encode(lease);
		CU_ASSERT_EQUAL(out_len, want.len);
		CU_ASSERT(out_len == want.len && memcmp(out, want.data, want.len) == 0);
		char rv[16];
		nl__lease_protobuf_resource_version(rv, sizeof(rv), out, out_len);
		CU_ASSERT_STRING_EQUAL(rv, "9");
		free(out);
		nl_buf_free(&want);
		nl_buf_free(&base);
		json_object_put(lease);
	}
	/* No ownerReference, no renewTime, not protobuf: the tree path's. */
	static const char *const unusual[] = {
	    "{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\",\"metadata\":{\"name\":"
	    "\"foo\"},\"spec\":{\"leaseDurationSeconds\":40,\"renewTime\":\"2024-01-01T00:00:01."
	    "000000Z\"}}",
	    "{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\",\"metadata\":{\"name\":"
	    "\"foo\",\"ownerReferences\":[{\"name\":\"foo\"}]},\"spec\":{\"leaseDurationSeconds\":"
	    "40}}",
	};
	for (size_t i = 0; i < 2; i++) {
		json_object *lease = nl_test_json(unusual[i]);
		nl_buf base = pb_encode(lease);
		char *out = NULL;
		size_t out_len = 0;
		CU_ASSERT_EQUAL(
		    nl__lease_splice_protobuf(&out, &out_len, base.data, base.len, 40, 1),
		    NL_ENOTFOUND);
		CU_ASSERT_PTR_NULL(out);
		nl_buf_free(&base);
		json_object_put(lease);
	}
	char *out = NULL;
	size_t out_len = 0;
	CU_ASSERT_EQUAL(nl__lease_splice_protobuf(&out, &out_len, "{}", 2, 40, 1), NL_ENOTFOUND);
	CU_ASSERT_FALSE(nl__lease_protobuf_is_object("k8s", 3));
}

/* A server answering JSON to the protobuf update: the answer is converted
 * once and the next renewal splices again. */
static int json_answer_update(char **out, size_t *out_len, int *out_protobuf, nl_status **status,
                              const char *ns, const char *name, const void *body, size_t len,
                              void *payload)
{
	int rc = fake_update_lease_protobuf(out, out_len, out_protobuf, status, ns, name, body, len,
	                                    payload);
	if (rc == 0) {
		json_object *tree = NULL;
		CU_ASSERT_EQUAL_FATAL(nl_pb_decode_object(&tree, NULL, *out, *out_len, NULL), 0);
		free(*out);
		size_t n;
		const char *text = nl_json_compact(tree, &n);
		*out = strdup(text);
		*out_len = n;
		*out_protobuf = 0;
		json_object_put(tree);
	}
	return rc;
}

/* An unusual cached lease (no renewTime) renews through the tree, still in
 * protobuf and with the encoder's bytes. */
static void test_lease_controller__protobuf_tree_fallback_and_json_answer(void)
{
	fixture x;
	pb_sent_clear();
	fixture_init_protobuf(&x);
	fake_add_node(&x.api);
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x.lc), 0); /* creates */
	json_object *cached = nl_lease_controller_latest(x.lc), *copy = NULL;
	CU_ASSERT_EQUAL_FATAL(json_object_deep_copy(cached, &copy, NULL), 0);
	json_object_object_del(json_object_object_get(copy, "spec"), "renewTime");
	nl__lease_set_latest(x.lc, copy);
	nl_clock_advance(x.clock, 10 * SEC);
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x.lc), 0);
	CU_ASSERT_EQUAL_FATAL(pb_sent.n, 1);
	nl_buf want = pb_encode(last_body(&x));
	CU_ASSERT(pb_sent.body[0].len == want.len &&
	          memcmp(pb_sent.body[0].data, want.data, want.len) == 0);
	nl_buf_free(&want);
	pb_sent_clear();
	nl_lease_controller_free(x.lc);

	nl_lease_controller_options o = {0};
	o.clock = x.clock;
	o.ops = &x.ops;
	o.node_name = "foo";
	o.update_lease_protobuf = json_answer_update;
	CU_ASSERT_EQUAL_FATAL(nl_lease_controller_new(&x.lc, &o), 0);
	nl_clock_advance(x.clock, 10 * SEC);
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x.lc), 0); /* GET, UPDATE (JSON answer) */
	nl_clock_advance(x.clock, 10 * SEC);
	CU_ASSERT_EQUAL(nl_lease_controller_sync(x.lc), 0); /* from the converted cache */
	CU_ASSERT_EQUAL(pb_sent.n, 2);
	CU_ASSERT_STRING_EQUAL(nl_meta_resource_version(nl_lease_controller_latest(x.lc)),
	                       nl_meta_resource_version(x.api.lease));
	pb_sent_clear();
	fixture_free(&x);
}

/* --- what a failed round logs ---------------------------------------------------- */

/* Run sync with the log captured into buf. */
static int sync_logged(fixture *x, char *buf, size_t len)
{
	FILE *f = tmpfile();
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	nl_log_set_output(f);
	int rc = nl_lease_controller_sync(x->lc);
	nl_log_set_output(devnull);
	rewind(f);
	size_t n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return rc;
}

/* Five UPDATEs answered 500: the seed's "failed 5 attempts". */
static void test_lease_controller__failed_cached_round_logs_its_attempts(void)
{
	fixture x;
	json_object *cached = NULL;
	char buf[16384];
	fixture_init(&x, 40);
	fake_add_node(&x.api);
	fake_put_lease(&x.api, OWNED_LEASE);
	CU_ASSERT_EQUAL_FATAL(json_object_deep_copy(x.api.lease, &cached, NULL), 0);
	nl__lease_set_latest(x.lc, cached);
	for (int i = 0; i < 5; i++)
		add_fault(&x.api, UPDATE_LEASE, NL_ESERVER);
	CU_ASSERT_EQUAL(sync_logged(&x, buf, sizeof(buf)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
	                              "] \"failed to update lease using latest lease, fallback "
	                              "to ensure lease\" err=\"failed 5 attempts to update node "
	                              "lease\"\n"));
	fixture_free(&x);
}

/* The cached lease has no owner and the Node cannot be read: no attempt
 * sent an UPDATE, and neither message claims five failed updates. */
static void test_lease_controller__unreadable_node_round_logs_no_update_sent(void)
{
	fixture x;
	json_object *cached = NULL;
	char buf[16384];
	fixture_init(&x, 40);
	fake_put_lease(&x.api, "{" LEASE_META "},\"spec\":{\"holderIdentity\":\"foo\"}}");
	CU_ASSERT_EQUAL_FATAL(json_object_deep_copy(x.api.lease, &cached, NULL), 0);
	nl__lease_set_latest(x.lc, cached);
	CU_ASSERT_EQUAL(sync_logged(&x, buf, sizeof(buf)), NL_ENOTFOUND);
	CU_ASSERT_EQUAL(x.api.nreqs, 11); /* 5 GET node, GET lease, 5 GET node */
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
	                              "] \"failed to update lease using latest lease, fallback "
	                              "to ensure lease\" err=\"node \\\"foo\\\" cannot be "
	                              "read, no node lease update sent in 5 attempts\"\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "] \"Will retry updating lease\" err=\"node \\\"foo\\\" "
	                                   "cannot be read, no node lease update sent in 5 "
	                                   "attempts\" interval=\"10s\"\n"));
	CU_ASSERT_PTR_NULL(strstr(buf, "failed 5 attempts"));
	fixture_free(&x);
}

/* The Node readable for the first attempts only: the message counts both. */
static void test_lease_controller__partly_unsent_round_logs_both(void)
{
	fixture x;
	char buf[16384];
	fixture_init(&x, 40);
	fake_add_node(&x.api);
	fake_put_lease(&x.api, "{" LEASE_META "},\"spec\":{\"holderIdentity\":\"foo\"}}");
	add_fault(&x.api, GET_NODE, 0);
	add_fault(&x.api, GET_NODE, 0);
	for (int i = 0; i < 3; i++)
		add_fault(&x.api, GET_NODE, NL_ESERVER);
	add_fault(&x.api, UPDATE_LEASE, NL_ESERVER);
	add_fault(&x.api, UPDATE_LEASE, NL_ESERVER);
	CU_ASSERT_NOT_EQUAL(sync_logged(&x, buf, sizeof(buf)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
	                              "] \"Will retry updating lease\" err=\"failed 5 "
	                              "attempts to update node lease, 3 of them not sent: node "
	                              "\\\"foo\\\" cannot be read\" interval=\"10s\"\n"));
	fixture_free(&x);
}

static CU_TestInfo lease_tests[] = {
    {"periodic_backoff_blocks_no_timer", test_lease_controller__periodic_backoff_blocks_no_timer},
    {"next_sync_follows_the_backoff", test_lease_controller__next_sync_follows_the_backoff},
    {"stop_cancels_a_waiting_sync", test_lease_controller__stop_cancels_a_waiting_sync},
    {"sync_finishes_the_waiting_one", test_lease_controller__sync_finishes_the_waiting_one},
    {"kick_syncs_a_controller_waiting_for_its_node",
     test_lease_controller__kick_syncs_a_controller_waiting_for_its_node},
    {"new_lease_nil_base_without_node", test_lease_controller__new_lease_nil_base_without_node},
    {"new_lease_nil_base_with_node", test_lease_controller__new_lease_nil_base_with_node},
    {"new_lease_base_without_owner_gets_owner_and_renew_time",
     test_lease_controller__new_lease_base_without_owner_gets_owner_and_renew_time},
    {"new_lease_base_with_owner_only_renews",
     test_lease_controller__new_lease_base_with_owner_only_renews},
    {"retry_update_no_errors", test_lease_controller__retry_update_no_errors},
    {"retry_update_connection_errors", test_lease_controller__retry_update_connection_errors},
    {"retry_update_timeout_then_conflict_then_success",
     test_lease_controller__retry_update_timeout_then_conflict_then_success},
    {"retry_update_node_not_found_sends_no_update",
     test_lease_controller__retry_update_node_not_found_sends_no_update},
    {"retry_update_one_failure_does_not_call_hook",
     test_lease_controller__retry_update_one_failure_does_not_call_hook},
    {"retry_update_conflicts_never_call_hook",
     test_lease_controller__retry_update_conflicts_never_call_hook},
    {"sync_creates_missing_lease", test_lease_controller__sync_creates_missing_lease},
    {"sync_without_node_creates_nothing", test_lease_controller__sync_without_node_creates_nothing},
    {"sync_updates_existing_lease", test_lease_controller__sync_updates_existing_lease},
    {"sync_updates_from_cache_without_get",
     test_lease_controller__sync_updates_from_cache_without_get},
    {"sync_recreates_lease_deleted_behind_cache",
     test_lease_controller__sync_recreates_lease_deleted_behind_cache},
    {"sync_cached_update_not_found_retries",
     test_lease_controller__sync_cached_update_not_found_retries},
    {"sync_falls_back_after_five_cached_failures",
     test_lease_controller__sync_falls_back_after_five_cached_failures},
    {"steady_state_one_update_per_interval",
     test_lease_controller__steady_state_one_update_per_interval},
    {"node_appearing_later_gets_owned_lease",
     test_lease_controller__node_appearing_later_gets_owned_lease},
    {"other_writer_costs_one_conflict_and_one_get",
     test_lease_controller__other_writer_costs_one_conflict_and_one_get},
    {"server_errors_back_off_then_renew_on_recovery",
     test_lease_controller__server_errors_back_off_then_renew_on_recovery},
    {"unreachable_server_is_not_busy_looped",
     test_lease_controller__unreachable_server_is_not_busy_looped},
    {"stop_during_backoff_returns_at_once",
     test_lease_controller__stop_during_backoff_returns_at_once},
    {"stop_interrupts_real_backoff", test_lease_controller__stop_interrupts_real_backoff},
    {"lease_duration_change_is_reasserted",
     test_lease_controller__lease_duration_change_is_reasserted},
    {"renew_interval_jitter_bounds", test_lease_controller__renew_interval_jitter_bounds},
    {"options_are_validated_and_defaulted",
     test_lease_controller__options_are_validated_and_defaulted},
    {"lease_name_namespace_and_holder_settable",
     test_lease_controller__lease_name_namespace_and_holder_settable},
    {"text_update_sends_what_tree_update_sends",
     test_lease_controller__text_update_sends_what_tree_update_sends},
    {"text_answer_must_be_one_json_object",
     test_lease_controller__text_answer_must_be_one_json_object},
    {"text_base_of_unusual_shape_renews_like_json_c_reads_it",
     test_lease_controller__text_base_of_unusual_shape_renews_like_json_c_reads_it},
    {"protobuf_renewal_bytes_equal_encoder",
     test_lease_controller__protobuf_renewal_bytes_equal_encoder},
    {"protobuf_splice_equals_encoder", test_lease_controller__protobuf_splice_equals_encoder},
    {"protobuf_tree_fallback_and_json_answer",
     test_lease_controller__protobuf_tree_fallback_and_json_answer},
    {"failed_cached_round_logs_its_attempts",
     test_lease_controller__failed_cached_round_logs_its_attempts},
    {"unreadable_node_round_logs_no_update_sent",
     test_lease_controller__unreadable_node_round_logs_no_update_sent},
    {"partly_unsent_round_logs_both", test_lease_controller__partly_unsent_round_logs_both},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"lease_controller", quiet_logs, restore_logs, NULL, NULL, lease_tests},
    CU_SUITE_INFO_NULL,
};
