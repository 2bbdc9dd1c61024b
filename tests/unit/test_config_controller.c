/* The dynamic config controller against a scripted fake API on a fake
 * clock, with its checkpoint store in a mkdtemp directory: upstream's
 * configsync_test.go matrix (node source / assigned), controller_test.go's
 * graduation cases, the e2e flows of the dynamic kubelet config test (bad
 * parse → load error and last-known-good, invalid value → validate error,
 * deleted ConfigMap → download error, recreated → cleared), the
 * annotation source, the trial across an agent restart, a malicious uid,
 * and where and when the status is written.
 *
 * The fake applies PATCHes with nodelet-mockapi's strategic merge engine
 * and validation, and, like kube-apiserver's node status strategy, keeps
 * spec and (in "current cluster" mode) drops status.config. */
#include "../cu_main.h"

#include "api/resources.h"
#include "api/validation.h"
#include "patch/patch.h"
#include <nodelet/config_controller.h>
#include <nodelet/fs.h>
#include <nodelet/json_text.h>
#include <nodelet/log.h>
#include <nodelet/meta.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define T0 (INT64_C(1767225600) * NL_USEC_PER_SEC)
#define SEC NL_USEC_PER_SEC
#define MIN (60 * SEC)
#define NODE "mynode"

#define GOOD_CONFIG "apiVersion: nodelet.io/v1alpha1\nkind: NodeletConfiguration\n"
#define CONFIG_LEASE(n) GOOD_CONFIG "leaseDurationSeconds: " #n "\n"

/* CU_ASSERT_STRING_EQUAL for strings that may be NULL. */
#define ASSERT_STR(actual, expected)                                                      \
	do {                                                                              \
		const char *a__ = (actual);                                               \
		if (!a__ || strcmp(a__, (expected)) != 0)                                 \
			fprintf(stderr, "\n  expected: %s\n  actual:   %s\n", (expected), \
			        a__ ? a__ : "(null)");                                    \
		CU_ASSERT_STRING_EQUAL(a__ ? a__ : "(null)", (expected));                 \
	} while (0)

enum { GET_NODE, GET_CM, PATCH_STATUS, CREATE_EVENT, NKINDS };

typedef struct {
	int kind;
	json_object *body; /* PATCH body or Event, owned */
} request;

#define MAX_REQ 256
#define MAX_CM 8

typedef struct {
	json_object *node; /* NULL: 404 */
	json_object *cms[MAX_CM];
	size_t ncms;
	unsigned long long rv;
	int drop_status_config; /* behave as kube-apiserver >= 1.24 */
	int fail[NKINDS];       /* answer the next calls of a kind with this code */
	request reqs[MAX_REQ];
	size_t nreqs;
} fake_api;

typedef struct {
	char root[64];
	nl_clock *clock;
	fake_api api;
	nl_config_ops ops;
	nl_config_controller *cc;
	int restarts, restart_rc;
	nl_nodelet_config *cfg; /* what the agent runs: bootstrap's or the restart's */
	int transform_lease;    /* flags: --lease-duration-seconds, 0 = none */
	int transform_fail;
	int bootstrap_rc;
} harness;

static const nl_gr nodes_gr = {"", "nodes"};
static const nl_gr cms_gr = {"", "configmaps"};

/* --- the fake API --------------------------------------------------------------- */

static int record(fake_api *f, int kind, json_object *body)
{
	json_object *copy = NULL;
	CU_ASSERT_FATAL(f->nreqs < MAX_REQ);
	if (body)
		CU_ASSERT_EQUAL(json_object_deep_copy(body, &copy, NULL), 0);
	f->reqs[f->nreqs++] = (request){kind, copy};
	int rc = f->fail[kind];
	f->fail[kind] = 0;
	return rc;
}

static void bump(fake_api *f, json_object *obj)
{
	char rv[32];
	snprintf(rv, sizeof(rv), "%llu", ++f->rv);
	nl_meta_set_string(obj, "resourceVersion", rv);
}

static int copy_out(json_object **out, json_object *obj)
{
	CU_ASSERT_EQUAL_FATAL(json_object_deep_copy(obj, out, NULL), 0);
	return 0;
}

static int f_get_node(json_object **out, nl_status **status, const char *name, void *p)
{
	fake_api *f = p;
	int rc = record(f, GET_NODE, NULL);
	if (rc != 0) {
		*status = nl_status_internal("etcdserver: request timed out");
		return rc;
	}
	if (!f->node || strcmp(name, NODE) != 0) {
		*status = nl_status_not_found(&nodes_gr, name);
		return NL_ENOTFOUND;
	}
	return copy_out(out, f->node);
}

static json_object *find_cm(fake_api *f, const char *ns, const char *name, size_t *idx)
{
	for (size_t i = 0; i < f->ncms; i++)
		if (strcmp(nl_meta_namespace(f->cms[i]), ns) == 0 &&
		    strcmp(nl_meta_name(f->cms[i]), name) == 0) {
			if (idx)
				*idx = i;
			return f->cms[i];
		}
	return NULL;
}

static int f_get_cm(json_object **out, nl_status **status, const char *ns, const char *name,
                    void *p)
{
	fake_api *f = p;
	int rc = record(f, GET_CM, NULL);
	if (rc != 0) {
		*status = nl_status_internal("etcdserver: leader changed");
		return rc;
	}
	json_object *cm = find_cm(f, ns, name, NULL);
	if (!cm) {
		*status = nl_status_not_found(&cms_gr, name);
		return NL_ENOTFOUND;
	}
	return copy_out(out, cm);
}

/* PATCH nodes/<name>/status: strategic merge, then the node status
 * strategy (spec kept; status.config dropped unless in use on >= 1.24),
 * then validation. */
static int f_patch_status(json_object **out, nl_status **status, const char *name,
                          const char *patch, size_t len, void *p)
{
	fake_api *f = p;
	json_object *body = json_tokener_parse(patch), *merged = NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(body);
	CU_ASSERT_EQUAL((size_t)strlen(patch), len);
	int rc = record(f, PATCH_STATUS, body);
	if (rc == 0 && (!f->node || strcmp(name, NODE) != 0)) {
		*status = nl_status_not_found(&nodes_gr, name);
		rc = NL_ENOTFOUND;
	}
	const mock_resource *r = mock_resource_get(MOCK_KIND_NODE);
	nl_err err = {0};
	if (rc == 0) {
		rc = mock_patch_strategic(&merged, r, f->node, body, &err);
		CU_ASSERT_EQUAL(rc, 0);
	} else if (!*status) {
		*status = nl_status_internal("injected");
	}
	json_object_put(body);
	if (rc != 0)
		return rc;
	json_object *spec = json_object_object_get(f->node, "spec"), *spec_copy = NULL;
	json_object_deep_copy(spec, &spec_copy, NULL);
	json_object_object_add(merged, "spec", spec_copy);
	if (f->drop_status_config && !nl_json_get_path(f->node, "status.config"))
		json_object_object_del(json_object_object_get(merged, "status"), "config");
	mock_ferrs e;
	mock_ferrs_init(&e);
	mock_validate_object_meta(&e, r, merged);
	r->validate(&e, merged, f->node);
	if (e.n) {
		*status = mock_ferrs_to_status(&e, "Node", "", name);
		fprintf(stderr, "\n  422: %s\n", (*status)->message);
		mock_ferrs_free(&e);
		json_object_put(merged);
		return NL_EINVALID;
	}
	mock_ferrs_free(&e);
	bump(f, merged);
	json_object_put(f->node);
	f->node = merged;
	return copy_out(out, merged);
}

static int f_create_event(json_object **out, nl_status **status, const char *ns, json_object *event,
                          void *p)
{
	fake_api *f = p;
	int rc = record(f, CREATE_EVENT, event);
	ASSERT_STR(ns, "default");
	if (rc != 0) {
		*status = nl_status_internal("injected");
		return rc;
	}
	return copy_out(out, event);
}

static size_t count(const fake_api *f, int kind)
{
	size_t n = 0;
	for (size_t i = 0; i < f->nreqs; i++)
		n += f->reqs[i].kind == kind;
	return n;
}

static json_object *last_body(const fake_api *f, int kind)
{
	for (size_t i = f->nreqs; i > 0; i--)
		if (f->reqs[i - 1].kind == kind)
			return f->reqs[i - 1].body;
	return NULL;
}

static void clear_requests(fake_api *f)
{
	for (size_t i = 0; i < f->nreqs; i++)
		json_object_put(f->reqs[i].body);
	f->nreqs = 0;
}

/* --- objects ---------------------------------------------------------------------- */

static void put_cm(fake_api *f, const char *uid, const char *data_key, const char *value)
{
	char text[2048];
	json_object *data = json_object_new_object();
	json_object_object_add(data, data_key, json_object_new_string(value));
	snprintf(text, sizeof(text),
	         "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"foo\","
	         "\"namespace\":\"bar\",\"uid\":\"%s\"}}",
	         uid);
	json_object *cm = json_tokener_parse(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cm);
	json_object_object_add(cm, "data", data);
	bump(f, cm);
	size_t i;
	if (find_cm(f, "bar", "foo", &i)) {
		json_object_put(f->cms[i]);
		f->cms[i] = cm;
	} else {
		CU_ASSERT_FATAL(f->ncms < MAX_CM);
		f->cms[f->ncms++] = cm;
	}
}

static void delete_cm(fake_api *f)
{
	size_t i;
	if (find_cm(f, "bar", "foo", &i)) {
		json_object_put(f->cms[i]);
		f->cms[i] = f->cms[--f->ncms];
	}
}

static const char *cm_rv(fake_api *f)
{
	return nl_meta_resource_version(find_cm(f, "bar", "foo", NULL));
}

#define SOURCE_JSON                                                                                \
	"{\"configMap\":{\"namespace\":\"bar\",\"name\":\"foo\",\"kubeletConfigKey\":\"nodelet\"}" \
	"}"

/* Point the Node at bar/foo (key "nodelet") through spec.configSource, or
 * through the annotation, or (both 0) at nothing; then tell the controller
 * as its informer would. */
static void set_node_source(harness *h, int spec, const char *annotation)
{
	json_object *old = NULL;
	json_object_deep_copy(h->api.node, &old, NULL);
	json_object *sp = json_object_object_get(h->api.node, "spec");
	json_object *meta = nl_meta_ensure(h->api.node);
	json_object_object_del(sp, "configSource");
	json_object_object_del(meta, "annotations");
	if (spec)
		json_object_object_add(sp, "configSource", json_tokener_parse(SOURCE_JSON));
	if (annotation) {
		json_object *anns = json_object_new_object();
		json_object_object_add(anns, NL_CONFIG_SOURCE_ANNOTATION,
		                       json_object_new_string(annotation));
		json_object_object_add(meta, "annotations", anns);
	}
	bump(&h->api, h->api.node);
	nl_config_controller_on_node(h->cc, old, h->api.node);
	json_object_put(old);
}

/* --- harness -------------------------------------------------------------------- */

static void on_restart(int rc, nl_nodelet_config *cfg, void *payload)
{
	harness *h = payload;
	h->restarts++;
	h->restart_rc = rc;
	nl_nodelet_config_free(h->cfg);
	h->cfg = cfg;
}

/* The agent's transform: --lease-duration-seconds given on the command line. */
static int transform(nl_nodelet_config *cfg, nl_err *err, void *payload)
{
	harness *h = payload;
	if (h->transform_fail)
		return nl_err_set(err, NL_EINVAL, "cannot apply flags");
	if (h->transform_lease) {
		nl_nodelet_config flags = {.lease_duration_seconds = h->transform_lease,
		                           .set = NL_NC_LEASE_DURATION_SECONDS};
		return nl_nodelet_config_apply_flags(cfg, &flags);
	}
	return 0;
}

static void new_controller(harness *h)
{
	nl_config_controller_options o = {.clock = h->clock,
	                                  .ops = &h->ops,
	                                  .node_name = NODE,
	                                  .dynamic_config_dir = h->root,
	                                  .transform = transform,
	                                  .transform_payload = h,
	                                  .restart = on_restart,
	                                  .restart_payload = h,
	                                  .jitter_seed = 42};
	CU_ASSERT_EQUAL_FATAL(nl_config_controller_new(&h->cc, &o), 0);
}

/* Bootstrap as the agent does at startup; h->cfg is what it runs. */
static int bootstrap(harness *h)
{
	nl_err err = {0};
	nl_nodelet_config *cfg = NULL;
	h->bootstrap_rc = nl_config_controller_bootstrap(&cfg, h->cc, &err);
	if (h->bootstrap_rc == 0) {
		nl_nodelet_config_free(h->cfg);
		h->cfg = cfg;
	}
	return h->bootstrap_rc;
}

static void setup(harness *h)
{
	memset(h, 0, sizeof(*h));
	snprintf(h->root, sizeof(h->root), "/tmp/nl-dyncfg-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(h->root));
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&h->clock, T0), 0);
	h->api.node = json_tokener_parse(
	    "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"" NODE "\","
	    "\"uid\":\"mynode-uid\"},\"spec\":{},\"status\":{\"conditions\":[{\"type\":"
	    "\"Ready\",\"status\":\"True\",\"reason\":\"KubeletReady\",\"message\":\"ok\"}]}}");
	bump(&h->api, h->api.node);
	h->ops = (nl_config_ops){f_get_node, f_get_cm, f_patch_status, f_create_event, &h->api};
	new_controller(h);
	CU_ASSERT_EQUAL_FATAL(bootstrap(h), 0);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static void teardown(harness *h)
{
	nl_config_controller_free(h->cc);
	nl_nodelet_config_free(h->cfg);
	clear_requests(&h->api);
	json_object_put(h->api.node);
	for (size_t i = 0; i < h->api.ncms; i++)
		json_object_put(h->api.cms[i]);
	nl_clock_free(h->clock);
	nftw(h->root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Restart the agent process: a new controller on the same directory. */
static void restart_agent(harness *h)
{
	nl_config_controller_free(h->cc);
	new_controller(h);
	CU_ASSERT_EQUAL(bootstrap(h), 0);
}

static int sync_config(harness *h)
{
	return nl_config_controller_sync_config(h->cc);
}

static void expect_status(harness *h, const char *json)
{
	json_object *st = nl_config_controller_status(h->cc);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	NL_ASSERT_JSON_EQ(st, json);
	json_object_put(st);
}

static nl_config_source *assigned_in_store(harness *h)
{
	nl_config_source *a = NULL;
	CU_ASSERT_EQUAL(nl_checkpoint_store_assigned(&a, nl_config_controller_store(h->cc), NULL),
	                0);
	return a;
}

static nl_config_source *lkg_in_store(harness *h)
{
	nl_config_source *l = NULL;
	CU_ASSERT_EQUAL(
	    nl_checkpoint_store_last_known_good(&l, nl_config_controller_store(h->cc), NULL), 0);
	return l;
}

static nl_config_source *foo(const char *uid, const char *rv)
{
	nl_config_source *s = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_config_source_new(&s, "bar", "foo", uid, rv, "nodelet"), 0);
	return s;
}

static void save_checkpoint(harness *h, const char *uid, const char *rv, const char *config)
{
	nl_checkpoint_file files[] = {{"nodelet", config, strlen(config)}};
	CU_ASSERT_EQUAL_FATAL(
	    nl_checkpoint_store_save(nl_config_controller_store(h->cc), uid, rv, files, 1, NULL),
	    0);
}

/* Assign bar/foo with config through spec.configSource (the ConfigMap
 * created or updated first, as its informer reports) and sync once. */
static int assign(harness *h, const char *uid, const char *config)
{
	put_cm(&h->api, uid, "nodelet", config);
	nl_config_controller_on_configmap(h->cc, find_cm(&h->api, "bar", "foo", NULL));
	set_node_source(h, 1, NULL);
	return sync_config(h);
}

/* --- TestSyncConfigSourceKubelet --------------------------------------------------- */

/* A node source / assigned pair: sync once, then check the assignment and
 * whether the agent restarted. */
static void sync_case(int node_src, const char *assigned_uid, const char *cm_uid_,
                      int expect_restart)
{
	harness h;
	setup(&h);
	put_cm(&h.api, cm_uid_, "nodelet", CONFIG_LEASE(12));
	if (assigned_uid) {
		/* assigned = bar/foo at the ConfigMap's current version when the
		 * uids match, else at another version */
		const char *rv = strcmp(assigned_uid, cm_uid_) == 0 ? cm_rv(&h.api) : "1";
		nl_config_source *a = foo(assigned_uid, rv);
		save_checkpoint(&h, assigned_uid, rv, CONFIG_LEASE(7));
		CU_ASSERT_EQUAL(
		    nl_checkpoint_store_set_assigned(nl_config_controller_store(h.cc), a, NULL), 0);
		nl_config_source_free(a);
		CU_ASSERT_EQUAL(bootstrap(&h), 0);
	}
	set_node_source(&h, node_src, NULL);
	nl_config_controller_poke(h.cc); /* as upstream's test does */
	CU_ASSERT_EQUAL(sync_config(&h), 0);
	nl_config_source *got = assigned_in_store(&h);
	nl_config_source *want = node_src ? foo(cm_uid_, cm_rv(&h.api)) : NULL;
	CU_ASSERT_TRUE(nl_config_source_equal(got, want));
	CU_ASSERT_EQUAL(h.restarts, expect_restart);
	CU_ASSERT_EQUAL(count(&h.api, CREATE_EVENT), (size_t)expect_restart);
	nl_config_source_free(got);
	nl_config_source_free(want);
	teardown(&h);
}

static void test_config_controller__sync_source_nil_assigned_nil_no_restart(void)
{
	sync_case(0, NULL, "myconfigmap-12345", 0);
}

static void test_config_controller__sync_source_equal_to_assigned_no_restart(void)
{
	sync_case(1, "myconfigmap-12345", "myconfigmap-12345", 0);
}

static void test_config_controller__sync_source_nil_assigned_set_restarts(void)
{
	sync_case(0, "myconfigmap-12345", "myconfigmap-12345", 1);
}

static void test_config_controller__sync_source_set_assigned_nil_restarts(void)
{
	sync_case(1, NULL, "myconfigmap-12345", 1);
}

static void test_config_controller__sync_source_changed_restarts(void)
{
	sync_case(1, "myconfigmap-12345", "myconfigmap-54321", 1);
}

/* --- bootstrap and restart ----------------------------------------------------------- */

static void test_config_controller__local_config_when_nothing_assigned(void)
{
	harness h;
	setup(&h);
	CU_ASSERT_PTR_NULL(h.cfg);
	expect_status(&h, "{}");
	const char *ns, *name;
	CU_ASSERT_EQUAL(nl_config_controller_watch_target(&ns, &name, h.cc), NL_ENOTFOUND);
	CU_ASSERT_FALSE(nl_config_controller_in_trial(h.cc));
	teardown(&h);
}

static void test_config_controller__assign_restarts_on_the_new_config(void)
{
	harness h;
	setup(&h);
	CU_ASSERT_EQUAL(assign(&h, "uid-1", CONFIG_LEASE(12)), 0);
	CU_ASSERT_EQUAL(h.restarts, 1);
	CU_ASSERT_EQUAL(h.restart_rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h.cfg);
	CU_ASSERT_EQUAL(h.cfg->lease_duration_seconds, 12);
	/* checkpointed under the downloaded uid and resourceVersion */
	char path[256];
	snprintf(path, sizeof(path), "%s/store/checkpoints/uid-1/%s/nodelet", h.root,
	         cm_rv(&h.api));
	CU_ASSERT_EQUAL(access(path, R_OK), 0);
	char want[512];
	snprintf(want, sizeof(want),
	         "{\"assigned\":{\"configMap\":{\"namespace\":\"bar\",\"name\":\"foo\","
	         "\"uid\":\"uid-1\",\"resourceVersion\":\"%s\",\"kubeletConfigKey\":\"nodelet\"}},"
	         "\"active\":{\"configMap\":{\"namespace\":\"bar\",\"name\":\"foo\","
	         "\"uid\":\"uid-1\",\"resourceVersion\":\"%s\",\"kubeletConfigKey\":\"nodelet\"}}}",
	         cm_rv(&h.api), cm_rv(&h.api));
	expect_status(&h, want);
	CU_ASSERT_TRUE(nl_config_controller_in_trial(h.cc));
	const char *ns = NULL, *name = NULL;
	CU_ASSERT_EQUAL(nl_config_controller_watch_target(&ns, &name, h.cc), 0);
	ASSERT_STR(ns, "bar");
	ASSERT_STR(name, "foo");
	/* nothing more to do until signalled */
	clear_requests(&h.api);
	CU_ASSERT_EQUAL(sync_config(&h), 0);
	CU_ASSERT_EQUAL(h.api.nreqs, 0);
	teardown(&h);
}

/* The Event upstream posts before exiting, with its texts. */
static void test_config_controller__restart_posts_the_config_changed_event(void)
{
	harness h;
	char msg[512];
	setup(&h);
	CU_ASSERT_EQUAL(assign(&h, "uid-1", GOOD_CONFIG), 0);
	json_object *ev = last_body(&h.api, CREATE_EVENT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	snprintf(msg, sizeof(msg),
	         "nodelet restarting to use /api/v1/namespaces/bar/configmaps/foo, UID: uid-1, "
	         "ResourceVersion: %s, KubeletConfigKey: nodelet",
	         cm_rv(&h.api));
	ASSERT_STR(nl_json_get_string(ev, "message"), msg);
	ASSERT_STR(nl_json_get_string(ev, "reason"), "NodeletConfigChanged");
	ASSERT_STR(nl_json_get_string(ev, "type"), "Normal");
	ASSERT_STR(nl_json_get_string(ev, "metadata.namespace"), "default");
	ASSERT_STR(nl_json_get_string(ev, "involvedObject.kind"), "Node");
	ASSERT_STR(nl_json_get_string(ev, "involvedObject.name"), NODE);
	ASSERT_STR(nl_json_get_string(ev, "involvedObject.uid"), NODE);
	ASSERT_STR(nl_json_get_string(ev, "source.component"), "nodelet");
	ASSERT_STR(nl_json_get_string(ev, "source.host"), NODE);
	CU_ASSERT_EQUAL(json_object_get_int(json_object_object_get(ev, "count")), 1);
	/* unassign: the local message */
	set_node_source(&h, 0, NULL);
	CU_ASSERT_EQUAL(sync_config(&h), 0);
	CU_ASSERT_EQUAL(h.restarts, 2);
	CU_ASSERT_PTR_NULL(h.cfg);
	ASSERT_STR(nl_json_get_string(last_body(&h.api, CREATE_EVENT), "message"),
	           "nodelet restarting to use local config");
	expect_status(&h, "{}");
	teardown(&h);
}

/* An Event that cannot be posted does not stop the restart. */
static void test_config_controller__event_failure_does_not_block_the_restart(void)
{
	harness h;
	setup(&h);
	h.api.fail[CREATE_EVENT] = NL_ESERVER;
	CU_ASSERT_EQUAL(assign(&h, "uid-1", CONFIG_LEASE(12)), 0);
	CU_ASSERT_EQUAL(h.restarts, 1);
	CU_ASSERT_PTR_NOT_NULL(h.cfg);
	teardown(&h);
}

static void test_config_controller__explicit_flags_win_over_dynamic_config(void)
{
	harness h;
	setup(&h);
	h.transform_lease = 99;
	CU_ASSERT_EQUAL(assign(&h, "uid-1", CONFIG_LEASE(12) "logVerbosity: 4\n"), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h.cfg);
	CU_ASSERT_EQUAL(h.cfg->lease_duration_seconds, 99);
	CU_ASSERT_EQUAL(h.cfg->log_verbosity, 4);
	teardown(&h);
}

static void test_config_controller__transform_failure_is_an_internal_error(void)
{
	harness h;
	setup(&h);
	h.transform_fail = 1;
	CU_ASSERT_EQUAL(assign(&h, "uid-1", GOOD_CONFIG), 0);
	CU_ASSERT_EQUAL(h.restarts, 1);
	CU_ASSERT_PTR_NULL(h.cfg); /* no last-known-good: local */
	json_object *st = nl_config_controller_status(h.cc);
	ASSERT_STR(nl_json_get_string(st, "error"),
	           "internal failure, see nodelet log for details");
	CU_ASSERT_PTR_NULL(json_object_object_get(st, "active"));
	json_object_put(st);
	teardown(&h);
}

/* --- trial and graduation (TestGraduateAssignedToLastKnownGood) ------------------------ */

static void graduation_case(const char *lkg_uid, const char *assigned_uid)
{
	harness h;
	setup(&h);
	nl_checkpoint_store *store = nl_config_controller_store(h.cc);
	nl_config_source *a = foo(assigned_uid, "2"), *l = lkg_uid ? foo(lkg_uid, "1") : NULL;
	save_checkpoint(&h, assigned_uid, "2", CONFIG_LEASE(20));
	if (l)
		save_checkpoint(&h, lkg_uid, "1", CONFIG_LEASE(30));
	CU_ASSERT_EQUAL(nl_checkpoint_store_set_last_known_good(store, l, NULL), 0);
	CU_ASSERT_EQUAL(nl_checkpoint_store_set_assigned(store, a, NULL), 0);
	CU_ASSERT_EQUAL(bootstrap(&h), 0);
	CU_ASSERT_EQUAL(h.cfg ? h.cfg->lease_duration_seconds : 0, 20);
	/* on trial: 10 minutes from the assignment, inclusive */
	CU_ASSERT_EQUAL(nl_clock_advance(h.clock, 10 * MIN), 0);
	CU_ASSERT_EQUAL(nl_config_controller_check_trial(h.cc), 0);
	nl_config_source *got = lkg_in_store(&h);
	CU_ASSERT_TRUE(nl_config_source_equal(got, l));
	nl_config_source_free(got);
	CU_ASSERT_TRUE(nl_config_controller_in_trial(h.cc));
	/* the periodic check (every 10 s) graduates it */
	CU_ASSERT_EQUAL(nl_clock_advance(h.clock, 10 * SEC), 0);
	got = lkg_in_store(&h);
	CU_ASSERT_TRUE(nl_config_source_equal(got, a));
	nl_config_source_free(got);
	CU_ASSERT_FALSE(nl_config_controller_in_trial(h.cc));
	json_object *st = nl_config_controller_status(h.cc);
	ASSERT_STR(nl_json_get_string(st, "lastKnownGood.configMap.uid"), assigned_uid);
	json_object_put(st);
	nl_config_source_free(a);
	nl_config_source_free(l);
	teardown(&h);
}

static void test_config_controller__graduation_nil_lkg_to_assigned(void)
{
	graduation_case(NULL, "uid-1");
}

static void test_config_controller__graduation_lkg_to_other_assigned(void)
{
	graduation_case("uid-1", "uid-2");
}

static void test_config_controller__trial_duration_is_settable(void)
{
	harness h;
	setup(&h);
	nl_config_controller_free(h.cc);
	nl_config_controller_options o = {.clock = h.clock,
	                                  .ops = &h.ops,
	                                  .node_name = NODE,
	                                  .dynamic_config_dir = h.root,
	                                  .trial_duration_usec = 30 * SEC,
	                                  .restart = on_restart,
	                                  .restart_payload = &h};
	CU_ASSERT_EQUAL_FATAL(nl_config_controller_new(&h.cc, &o), 0);
	CU_ASSERT_EQUAL(bootstrap(&h), 0);
	CU_ASSERT_EQUAL(assign(&h, "uid-1", GOOD_CONFIG), 0);
	CU_ASSERT_EQUAL(nl_clock_advance(h.clock, 40 * SEC), 0);
	nl_config_source *l = lkg_in_store(&h);
	CU_ASSERT_PTR_NOT_NULL(l);
	nl_config_source_free(l);
	teardown(&h);
}

/* The trial is measured with the injected clock from the assignment, and
 * survives an agent restart. */
static void test_config_controller__trial_continues_across_an_agent_restart(void)
{
	harness h;
	setup(&h);
	CU_ASSERT_EQUAL(assign(&h, "uid-1", CONFIG_LEASE(12)), 0);
	CU_ASSERT_EQUAL(nl_clock_advance(h.clock, 6 * MIN), 0);
	restart_agent(&h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h.cfg);
	CU_ASSERT_EQUAL(h.cfg->lease_duration_seconds, 12);
	CU_ASSERT_TRUE(nl_config_controller_in_trial(h.cc));
	/* the same source synced again does not restart the trial */
	set_node_source(&h, 1, NULL);
	CU_ASSERT_EQUAL(sync_config(&h), 0);
	CU_ASSERT_EQUAL(h.restarts, 1);
	CU_ASSERT_EQUAL(nl_clock_advance(h.clock, 3 * MIN), 0);
	nl_config_source *l = lkg_in_store(&h);
	CU_ASSERT_PTR_NULL(l);
	CU_ASSERT_EQUAL(nl_clock_advance(h.clock, 1 * MIN + 10 * SEC), 0);
	l = lkg_in_store(&h);
	CU_ASSERT_PTR_NOT_NULL(l);
	ASSERT_STR(l ? l->uid : "", "uid-1");
	nl_config_source_free(l);
	teardown(&h);
}

/* --- rollback (the e2e cases) ------------------------------------------------------- */

/* A good config graduated to last-known-good, then a new assignment. */
static void with_lkg(harness *h)
{
	CU_ASSERT_EQUAL(assign(h, "uid-good", CONFIG_LEASE(12)), 0);
	CU_ASSERT_EQUAL(nl_clock_advance(h->clock, 10 * MIN + 10 * SEC), 0);
	nl_config_source *l = lkg_in_store(h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	nl_config_source_free(l);
}

static void expect_rollback(harness *h, const char *error)
{
	json_object *st = nl_config_controller_status(h->cc);
	ASSERT_STR(nl_json_get_string(st, "error"), error);
	ASSERT_STR(nl_json_get_string(st, "assigned.configMap.uid"), "uid-bad");
	ASSERT_STR(nl_json_get_string(st, "active.configMap.uid"), "uid-good");
	ASSERT_STR(nl_json_get_string(st, "lastKnownGood.configMap.uid"), "uid-good");
	json_object_put(st);
	CU_ASSERT_EQUAL(h->restart_rc, 0);
	CU_ASSERT_PTR_NOT_NULL(h->cfg);
	CU_ASSERT_EQUAL(h->cfg ? h->cfg->lease_duration_seconds : 0, 12);
	CU_ASSERT_FALSE(nl_config_controller_in_trial(h->cc));
}

static void test_config_controller__bad_parse_rolls_back_with_load_error(void)
{
	harness h;
	setup(&h);
	with_lkg(&h);
	CU_ASSERT_EQUAL(assign(&h, "uid-bad", GOOD_CONFIG "leaseDurationSeconds: [oops\n"), 0);
	CU_ASSERT_EQUAL(h.restarts, 2);
	expect_rollback(&h, "failed to load config, see nodelet log for details");
	/* a bad assigned config never graduates */
	CU_ASSERT_EQUAL(nl_clock_advance(h.clock, 20 * MIN), 0);
	nl_config_source *l = lkg_in_store(&h);
	ASSERT_STR(l ? l->uid : "", "uid-good");
	nl_config_source_free(l);
	teardown(&h);
}

static void test_config_controller__invalid_value_rolls_back_with_validate_error(void)
{
	harness h;
	setup(&h);
	with_lkg(&h);
	CU_ASSERT_EQUAL(assign(&h, "uid-bad", CONFIG_LEASE(0)), 0);
	expect_rollback(&h, "failed to validate config, see nodelet log for details");
	teardown(&h);
}

static void test_config_controller__bad_config_without_lkg_uses_local(void)
{
	harness h;
	setup(&h);
	CU_ASSERT_EQUAL(assign(&h, "uid-bad", CONFIG_LEASE(0)), 0);
	CU_ASSERT_EQUAL(h.restarts, 1);
	CU_ASSERT_PTR_NULL(h.cfg);
	json_object *st = nl_config_controller_status(h.cc);
	ASSERT_STR(nl_json_get_string(st, "error"),
	           "failed to validate config, see nodelet log for details");
	CU_ASSERT_PTR_NULL(json_object_object_get(st, "active"));
	json_object_put(st);
	teardown(&h);
}

/* Bootstrap refuses to start when even the last-known-good cannot load. */
static void test_config_controller__bootstrap_fails_when_lkg_fails_too(void)
{
	harness h;
	setup(&h);
	nl_checkpoint_store *store = nl_config_controller_store(h.cc);
	nl_config_source *a = foo("uid-a", "1"), *l = foo("uid-l", "1");
	save_checkpoint(&h, "uid-a", "1", CONFIG_LEASE(0));
	/* no checkpoint for the last-known-good */
	CU_ASSERT_EQUAL(nl_checkpoint_store_set_assigned(store, a, NULL), 0);
	CU_ASSERT_EQUAL(nl_checkpoint_store_set_last_known_good(store, l, NULL), 0);
	nl_config_controller_free(h.cc);
	new_controller(&h);
	nl_nodelet_config *cfg = NULL;
	nl_err err = {0};
	CU_ASSERT_EQUAL(nl_config_controller_bootstrap(&cfg, h.cc, &err), NL_ENOTFOUND);
	CU_ASSERT_PTR_NULL(cfg);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no checkpoint for source"));
	nl_config_source_free(a);
	nl_config_source_free(l);
	teardown(&h);
}

/* --- download errors ---------------------------------------------------------------- */

static void test_config_controller__deleted_configmap_is_a_download_error_until_recreated(void)
{
	harness h;
	setup(&h);
	CU_ASSERT_EQUAL(assign(&h, "uid-1", CONFIG_LEASE(12)), 0);
	nl_config_controller_on_configmap(h.cc, find_cm(&h.api, "bar", "foo", NULL));
	CU_ASSERT_EQUAL(sync_config(&h), 0);
	CU_ASSERT_EQUAL(h.restarts, 1);
	/* deleted: the informer drops it, the GET answers 404 */
	delete_cm(&h.api);
	nl_config_controller_on_configmap(h.cc, NULL);
	CU_ASSERT_EQUAL(sync_config(&h), NL_ENOTFOUND);
	json_object *st = nl_config_controller_status(h.cc);
	ASSERT_STR(nl_json_get_string(st, "error"),
	           "failed to sync: failed to download config, see nodelet log for "
	           "details");
	/* still running the assigned config */
	ASSERT_STR(nl_json_get_string(st, "active.configMap.uid"), "uid-1");
	json_object_put(st);
	/* retried at every tick until it works */
	size_t gets = count(&h.api, GET_CM);
	CU_ASSERT_EQUAL(sync_config(&h), NL_ENOTFOUND);
	CU_ASSERT_EQUAL(count(&h.api, GET_CM), gets + 1);
	/* recreated (a new uid): the error clears and the agent restarts on it */
	put_cm(&h.api, "uid-2", "nodelet", CONFIG_LEASE(15));
	nl_config_controller_on_configmap(h.cc, find_cm(&h.api, "bar", "foo", NULL));
	CU_ASSERT_EQUAL(sync_config(&h), 0);
	st = nl_config_controller_status(h.cc);
	CU_ASSERT_PTR_NULL(json_object_object_get(st, "error"));
	ASSERT_STR(nl_json_get_string(st, "active.configMap.uid"), "uid-2");
	json_object_put(st);
	CU_ASSERT_EQUAL(h.restarts, 2);
	CU_ASSERT_EQUAL(h.cfg ? h.cfg->lease_duration_seconds : 0, 15);
	teardown(&h);
}

static void test_config_controller__download_uses_the_informer_cache(void)
{
	harness h;
	setup(&h);
	put_cm(&h.api, "uid-1", "nodelet", CONFIG_LEASE(12));
	nl_config_controller_on_configmap(h.cc, find_cm(&h.api, "bar", "foo", NULL));
	set_node_source(&h, 1, NULL);
	clear_requests(&h.api);
	CU_ASSERT_EQUAL(sync_config(&h), 0);
	CU_ASSERT_EQUAL(count(&h.api, GET_CM), 0);
	CU_ASSERT_EQUAL(count(&h.api, GET_NODE), 0); /* the informer's Node */
	CU_ASSERT_EQUAL(h.restarts, 1);
	teardown(&h);
}

static void test_config_controller__transient_errors_are_retried(void)
{
	harness h;
	setup(&h);
	put_cm(&h.api, "uid-1", "nodelet", CONFIG_LEASE(12));
	set_node_source(&h, 1, NULL);
	h.api.fail[GET_CM] = NL_ESERVER;
	CU_ASSERT_EQUAL(sync_config(&h), NL_ESERVER);
	CU_ASSERT_EQUAL(h.restarts, 0);
	CU_ASSERT_EQUAL(sync_config(&h), 0);
	CU_ASSERT_EQUAL(h.restarts, 1);
	teardown(&h);
}

/* A server whose ConfigMap uid is a path: refused before the filesystem,
 * nothing written outside the store, nothing assigned. */
static void test_config_controller__malicious_uid_is_refused(void)
{
	harness h;
	setup(&h);
	CU_ASSERT_EQUAL(assign(&h, "../../../../etc", CONFIG_LEASE(12)), NL_EINVAL);
	CU_ASSERT_EQUAL(h.restarts, 0);
	json_object *st = nl_config_controller_status(h.cc);
	ASSERT_STR(nl_json_get_string(st, "error"),
	           "failed to sync: internal failure, see nodelet log for details");
	json_object_put(st);
	nl_config_source *a = assigned_in_store(&h);
	CU_ASSERT_PTR_NULL(a);
	nl_config_source_free(a);
	char p[256];
	snprintf(p, sizeof(p), "%s/etc", h.root);
	CU_ASSERT_NOT_EQUAL(access(p, F_OK), 0);
	snprintf(p, sizeof(p), "%s/store/etc", h.root);
	CU_ASSERT_NOT_EQUAL(access(p, F_OK), 0);
	teardown(&h);
}

static void test_config_controller__malicious_data_key_is_refused(void)
{
	harness h;
	setup(&h);
	put_cm(&h.api, "uid-1", "nodelet", GOOD_CONFIG);
	json_object_object_add(json_object_object_get(find_cm(&h.api, "bar", "foo", NULL), "data"),
	                       "../escape", json_object_new_string("x"));
	set_node_source(&h, 1, NULL);
	CU_ASSERT_EQUAL(sync_config(&h), NL_EINVAL);
	CU_ASSERT_EQUAL(h.restarts, 0);
	char p[256];
	snprintf(p, sizeof(p), "%s/store/checkpoints/escape", h.root);
	CU_ASSERT_NOT_EQUAL(access(p, F_OK), 0);
	snprintf(p, sizeof(p), "%s/store/checkpoints/uid-1", h.root);
	CU_ASSERT_NOT_EQUAL(access(p, F_OK), 0);
	teardown(&h);
}

/* A data key IsConfigMapKey refuses, a NUL in it above all (the JSON
 * decoder holds it as NL_JSON_KEY_NUL, so "ok\u0000x" does not become the
 * file "ok"): the sync fails before any file is written, with an error
 * that names the key, and the config assigned before stays. */
static void test_config_controller__invalid_data_key_keeps_last_good_state(void)
{
	static const char *const bad[] = {"ok" NL_JSON_KEY_NUL "x", "ok" NL_JSON_KEY_NUL, "sp ace",
	                                  "..x"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		harness h;
		setup(&h);
		CU_ASSERT_EQUAL_FATAL(assign(&h, "uid-1", CONFIG_LEASE(12)), 0);
		nl_config_source *before = assigned_in_store(&h);
		put_cm(&h.api, "uid-2", "nodelet", GOOD_CONFIG);
		json_object_object_add(
		    json_object_object_get(find_cm(&h.api, "bar", "foo", NULL), "data"), bad[i],
		    json_object_new_string("x"));
		nl_config_controller_on_configmap(h.cc, find_cm(&h.api, "bar", "foo", NULL));
		set_node_source(&h, 1, NULL);
		CU_ASSERT_EQUAL(sync_config(&h), NL_EINVAL);
		CU_ASSERT_EQUAL(h.restarts, 1); /* only the first assignment's */
		json_object *st = nl_config_controller_status(h.cc);
		ASSERT_STR(nl_json_get_string(st, "error"),
		           "failed to sync: internal failure, see nodelet log for details");
		json_object_put(st);
		nl_config_source *after = assigned_in_store(&h);
		CU_ASSERT_TRUE(nl_config_source_equal(before, after));
		nl_config_source_free(before);
		nl_config_source_free(after);
		char p[256];
		snprintf(p, sizeof(p), "%s/store/checkpoints/uid-2", h.root);
		CU_ASSERT_NOT_EQUAL(access(p, F_OK), 0);
		teardown(&h);
	}
}

/* --- the annotation source ----------------------------------------------------------- */

static void test_config_controller__annotation_is_a_source(void)
{
	harness h;
	setup(&h);
	put_cm(&h.api, "uid-1", "nodelet", CONFIG_LEASE(12));
	set_node_source(&h, 0, SOURCE_JSON);
	CU_ASSERT_EQUAL(sync_config(&h), 0);
	CU_ASSERT_EQUAL(h.restarts, 1);
	CU_ASSERT_EQUAL(h.cfg ? h.cfg->lease_duration_seconds : 0, 12);
	/* bad parse through the annotation: same rollback */
	CU_ASSERT_EQUAL(nl_clock_advance(h.clock, 11 * MIN), 0);
	put_cm(&h.api, "uid-bad", "nodelet", "{not yaml: [");
	nl_config_controller_on_configmap(h.cc, find_cm(&h.api, "bar", "foo", NULL));
	CU_ASSERT_EQUAL(sync_config(&h), 0);
	json_object *st = nl_config_controller_status(h.cc);
	ASSERT_STR(nl_json_get_string(st, "error"),
	           "failed to load config, see nodelet log for details");
	ASSERT_STR(nl_json_get_string(st, "active.configMap.uid"), "uid-1");
	json_object_put(st);
	/* removing the annotation unassigns */
	set_node_source(&h, 0, NULL);
	CU_ASSERT_EQUAL(sync_config(&h), 0);
	CU_ASSERT_PTR_NULL(h.cfg);
	expect_status(&h, "{}");
	teardown(&h);
}

static void test_config_controller__spec_wins_over_the_annotation(void)
{
	harness h;
	setup(&h);
	put_cm(&h.api, "uid-1", "nodelet", CONFIG_LEASE(12));
	set_node_source(&h, 1,
	                "{\"configMap\":{\"namespace\":\"other\",\"name\":\"x\","
	                "\"kubeletConfigKey\":\"k\"}}");
	CU_ASSERT_EQUAL(sync_config(&h), 0);
	nl_config_source *a = assigned_in_store(&h);
	ASSERT_STR(a ? a->namespace_ : "", "bar");
	nl_config_source_free(a);
	teardown(&h);
}

static void expect_sync_error(harness *h, const char *annotation, const char *error)
{
	set_node_source(h, 0, annotation);
	CU_ASSERT_NOT_EQUAL(sync_config(h), 0);
	json_object *st = nl_config_controller_status(h->cc);
	ASSERT_STR(nl_json_get_string(st, "error"), error);
	json_object_put(st);
}

static void test_config_controller__bad_annotations_are_sync_errors(void)
{
	harness h;
	setup(&h);
	expect_sync_error(
	    &h, "{not json",
	    "failed to sync: invalid nodelet.io/config-source annotation, see nodelet "
	    "log for details");
	expect_sync_error(
	    &h, "{\"configMap\":{\"namespace\":\"bar\",\"name\":\"foo\"}}",
	    "failed to sync: invalid nodelet.io/config-source annotation, see nodelet "
	    "log for details");
	expect_sync_error(&h, "{}",
	                  "failed to sync: invalid NodeConfigSource, exactly one subfield must be "
	                  "non-nil, but all were nil");
	/* Nobody validated the annotation: names that would change the URL the
	 * ConfigMap is fetched from, or a key that is not a file name, are
	 * refused before any request (the malicious-server-names scenario
	 * found the gap). */
	const char *bad[] = {
	    "{\"configMap\":{\"namespace\":\"bar\",\"name\":\"..\",\"kubeletConfigKey\":\"k\"}}",
	    "{\"configMap\":{\"namespace\":\"a/b\",\"name\":\"foo\",\"kubeletConfigKey\":\"k\"}}",
	    "{\"configMap\":{\"namespace\":\"bar\",\"name\":\"foo\",\"kubeletConfigKey\":"
	    "\"../meta/assigned\"}}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_sync_error(
		    &h, bad[i],
		    "failed to sync: invalid nodelet.io/config-source annotation, see "
		    "nodelet log for details");
	CU_ASSERT_EQUAL(h.restarts, 0);
	/* unassigning clears the standing error */
	set_node_source(&h, 0, NULL);
	CU_ASSERT_EQUAL(sync_config(&h), 0);
	expect_status(&h, "{}");
	teardown(&h);
}

static void test_config_controller__spec_without_subfield_is_all_nil_error(void)
{
	harness h;
	setup(&h);
	json_object_object_add(json_object_object_get(h.api.node, "spec"), "configSource",
	                       json_object_new_object());
	nl_config_controller_on_node(h.cc, NULL, h.api.node);
	CU_ASSERT_EQUAL(sync_config(&h), NL_EINVAL);
	json_object *st = nl_config_controller_status(h.cc);
	ASSERT_STR(nl_json_get_string(st, "error"),
	           "failed to sync: invalid NodeConfigSource, exactly one subfield must "
	           "be non-nil, but all were nil");
	json_object_put(st);
	teardown(&h);
}

/* --- signals (watch.go) ------------------------------------------------------------------ */

static void test_config_controller__node_updates_signal_only_source_changes(void)
{
	harness h;
	setup(&h);
	put_cm(&h.api, "uid-1", "nodelet", GOOD_CONFIG);
	set_node_source(&h, 1, NULL);
	CU_ASSERT_EQUAL(sync_config(&h), 0);
	clear_requests(&h.api);
	/* a label change: not signalled */
	json_object *old = NULL;
	json_object_deep_copy(h.api.node, &old, NULL);
	nl_meta_set_string(h.api.node, "resourceVersion", "999");
	nl_config_controller_on_node(h.cc, old, h.api.node);
	json_object_put(old);
	CU_ASSERT_EQUAL(sync_config(&h), 0);
	CU_ASSERT_EQUAL(h.api.nreqs, 0);
	/* a source change through the annotation: signalled */
	set_node_source(&h, 1, SOURCE_JSON);
	CU_ASSERT_EQUAL(sync_config(&h), 0);
	CU_ASSERT_EQUAL(count(&h.api, GET_CM), 1);
	/* an added Node always signals */
	clear_requests(&h.api);
	nl_config_controller_on_node(h.cc, NULL, h.api.node);
	CU_ASSERT_EQUAL(sync_config(&h), 0);
	CU_ASSERT_EQUAL(count(&h.api, GET_CM), 1);
	teardown(&h);
}

static void test_config_controller__deleted_node_is_read_again(void)
{
	harness h;
	setup(&h);
	nl_config_controller_on_node(h.cc, NULL, h.api.node);
	nl_config_controller_on_node_delete(h.cc, h.api.node);
	clear_requests(&h.api);
	nl_config_controller_poke(h.cc);
	CU_ASSERT_EQUAL(sync_config(&h), 0);
	CU_ASSERT_EQUAL(count(&h.api, GET_NODE), 1);
	/* a missing Node is an internal sync error, retried */
	json_object_put(h.api.node);
	h.api.node = NULL;
	nl_config_controller_poke(h.cc);
	CU_ASSERT_EQUAL(sync_config(&h), NL_ENOTFOUND);
	json_object *st = nl_config_controller_status(h.cc);
	ASSERT_STR(nl_json_get_string(st, "error"),
	           "failed to sync: internal failure, see nodelet log for details");
	json_object_put(st);
	teardown(&h);
}

/* --- status on the Node ---------------------------------------------------------------- */

static json_object *node_condition(harness *h)
{
	json_object *conds = nl_json_get_path(h->api.node, "status.conditions");
	for (size_t i = 0; i < json_object_array_length(conds); i++) {
		json_object *c = json_object_array_get_idx(conds, i);
		if (strcmp(nl_json_get_string(c, "type"), "NodeletConfigOK") == 0)
			return c;
	}
	return NULL;
}

static const char *status_annotation(harness *h)
{
	json_object *v = json_object_object_get(
	    nl_json_get_path(h->api.node, "metadata.annotations"), "nodelet.io/config-status");
	return v ? json_object_get_string(v) : NULL;
}

static void test_config_controller__local_status_is_reported(void)
{
	harness h;
	setup(&h);
	CU_ASSERT_EQUAL(nl_config_controller_sync_status(h.cc), 0);
	CU_ASSERT_EQUAL(count(&h.api, GET_NODE), 1);
	CU_ASSERT_EQUAL(count(&h.api, PATCH_STATUS), 1);
	json_object *c = node_condition(&h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	ASSERT_STR(nl_json_get_string(c, "status"), "True");
	ASSERT_STR(nl_json_get_string(c, "reason"),
	           "when the config source is nil, the nodelet uses its local config");
	ASSERT_STR(nl_json_get_string(c, "message"), "using current: local");
	ASSERT_STR(nl_json_get_string(c, "lastHeartbeatTime"), "2026-01-01T00:00:00Z");
	ASSERT_STR(status_annotation(&h), "{}");
	/* the other conditions are untouched */
	CU_ASSERT_EQUAL(json_object_array_length(nl_json_get_path(h.api.node, "status.conditions")),
	                2);
	teardown(&h);
}

static void test_config_controller__status_patch_carries_all_three_places(void)
{
	harness h;
	char want[1024], msg[512];
	setup(&h);
	CU_ASSERT_EQUAL(assign(&h, "uid-1", CONFIG_LEASE(12)), 0);
	CU_ASSERT_EQUAL(nl_config_controller_sync_status(h.cc), 0);
	snprintf(want, sizeof(want),
	         "{\"assigned\":{\"configMap\":{\"kubeletConfigKey\":\"nodelet\",\"name\":\"foo\","
	         "\"namespace\":\"bar\",\"resourceVersion\":\"%s\",\"uid\":\"uid-1\"}},"
	         "\"active\":{\"configMap\":{\"kubeletConfigKey\":\"nodelet\",\"name\":\"foo\","
	         "\"namespace\":\"bar\",\"resourceVersion\":\"%s\",\"uid\":\"uid-1\"}}}",
	         cm_rv(&h.api), cm_rv(&h.api));
	NL_ASSERT_JSON_EQ(nl_json_get_path(h.api.node, "status.config"), want);
	const char *ann = status_annotation(&h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ann);
	json_object *parsed = json_tokener_parse(ann);
	NL_ASSERT_JSON_EQ(parsed, want);
	json_object_put(parsed);
	json_object *c = node_condition(&h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	ASSERT_STR(nl_json_get_string(c, "status"), "True");
	ASSERT_STR(nl_json_get_string(c, "reason"), "passing all checks");
	snprintf(msg, sizeof(msg),
	         "using current: /api/v1/namespaces/bar/configmaps/foo, UID: uid-1, "
	         "ResourceVersion: %s",
	         cm_rv(&h.api));
	ASSERT_STR(nl_json_get_string(c, "message"), msg);
	/* one request, on nodes/<name>/status: the node status strategy keeps
	 * metadata, so the annotation rides along */
	json_object *patch = last_body(&h.api, PATCH_STATUS);
	CU_ASSERT_PTR_NOT_NULL(nl_json_get_path(patch, "metadata.annotations"));
	CU_ASSERT_PTR_NOT_NULL(nl_json_get_path(patch, "status.config"));
	CU_ASSERT_PTR_NULL(nl_json_get_path(patch, "spec"));
	teardown(&h);
}

static void test_config_controller__failure_status_uses_last_known_good_texts(void)
{
	harness h;
	char msg[512];
	setup(&h);
	with_lkg(&h);
	const char *good_rv = NULL;
	nl_config_source *l = lkg_in_store(&h);
	good_rv = l ? l->resource_version : "";
	snprintf(msg, sizeof(msg),
	         "using last-known-good: /api/v1/namespaces/bar/configmaps/foo, UID: uid-good, "
	         "ResourceVersion: %s",
	         good_rv);
	CU_ASSERT_EQUAL(assign(&h, "uid-bad", CONFIG_LEASE(0)), 0);
	CU_ASSERT_EQUAL(nl_config_controller_sync_status(h.cc), 0);
	json_object *c = node_condition(&h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	ASSERT_STR(nl_json_get_string(c, "status"), "False");
	ASSERT_STR(nl_json_get_string(c, "reason"),
	           "failed to validate config, see nodelet log for details");
	ASSERT_STR(nl_json_get_string(c, "message"), msg);
	ASSERT_STR(nl_json_get_string(h.api.node, "status.config.error"),
	           "failed to validate config, see nodelet log for details");
	nl_config_source_free(l);
	/* without a last-known-good: "using last-known-good: local" */
	set_node_source(&h, 0, NULL);
	CU_ASSERT_EQUAL(sync_config(&h), 0);
	CU_ASSERT_EQUAL(assign(&h, "uid-worse", CONFIG_LEASE(0)), 0);
	CU_ASSERT_EQUAL(nl_config_controller_sync_status(h.cc), 0);
	c = node_condition(&h);
	ASSERT_STR(nl_json_get_string(c, "message"), "using last-known-good: local");
	/* the patch removed what no longer holds */
	CU_ASSERT_PTR_NULL(nl_json_get_path(h.api.node, "status.config.active"));
	CU_ASSERT_PTR_NULL(nl_json_get_path(h.api.node, "status.config.lastKnownGood"));
	teardown(&h);
}

static void test_config_controller__status_written_only_when_changed(void)
{
	harness h;
	setup(&h);
	CU_ASSERT_EQUAL(nl_config_controller_sync_status(h.cc), 0);
	json_object *c = node_condition(&h);
	const char *transition = c ? nl_json_get_string(c, "lastTransitionTime") : NULL;
	char first[64];
	snprintf(first, sizeof(first), "%s", transition ? transition : "");
	clear_requests(&h.api);
	/* nothing changed: no request at all */
	CU_ASSERT_EQUAL(nl_config_controller_sync_status(h.cc), 0);
	CU_ASSERT_EQUAL(h.api.nreqs, 0);
	/* an agent restart primes a sync, but the Node already shows it: GET only */
	restart_agent(&h);
	CU_ASSERT_EQUAL(nl_config_controller_sync_status(h.cc), 0);
	CU_ASSERT_EQUAL(count(&h.api, GET_NODE), 1);
	CU_ASSERT_EQUAL(count(&h.api, PATCH_STATUS), 0);
	/* a change: patched, and lastTransitionTime moves with the meaning */
	CU_ASSERT_EQUAL(nl_clock_advance(h.clock, MIN), 0);
	CU_ASSERT_EQUAL(assign(&h, "uid-1", GOOD_CONFIG), 0);
	clear_requests(&h.api);
	CU_ASSERT_EQUAL(nl_config_controller_sync_status(h.cc), 0);
	CU_ASSERT_EQUAL(count(&h.api, PATCH_STATUS), 1);
	c = node_condition(&h);
	CU_ASSERT_STRING_NOT_EQUAL(nl_json_get_string(c, "lastTransitionTime")
	                               ? nl_json_get_string(c, "lastTransitionTime")
	                               : first,
	                           first);
	teardown(&h);
}

static void test_config_controller__failed_status_patch_is_retried(void)
{
	harness h;
	setup(&h);
	h.api.fail[PATCH_STATUS] = NL_ESERVER;
	CU_ASSERT_EQUAL(nl_config_controller_sync_status(h.cc), NL_ESERVER);
	CU_ASSERT_EQUAL(nl_config_controller_sync_status(h.cc), 0);
	CU_ASSERT_EQUAL(count(&h.api, PATCH_STATUS), 2);
	CU_ASSERT_PTR_NOT_NULL(node_condition(&h));
	h.api.fail[GET_NODE] = NL_ESERVER;
	CU_ASSERT_EQUAL(assign(&h, "uid-1", GOOD_CONFIG), 0);
	clear_requests(&h.api);
	h.api.fail[GET_NODE] = NL_ESERVER;
	CU_ASSERT_EQUAL(nl_config_controller_sync_status(h.cc), NL_ESERVER);
	CU_ASSERT_EQUAL(count(&h.api, PATCH_STATUS), 0);
	CU_ASSERT_EQUAL(nl_config_controller_sync_status(h.cc), 0);
	CU_ASSERT_EQUAL(count(&h.api, PATCH_STATUS), 1);
	teardown(&h);
}

/* A 1.24+ API server drops status.config: the controller notices and keeps
 * reporting through the condition and the annotation, without endless
 * re-patching. */
static void test_config_controller__current_clusters_drop_status_config(void)
{
	harness h;
	setup(&h);
	h.api.drop_status_config = 1;
	CU_ASSERT_EQUAL(assign(&h, "uid-1", GOOD_CONFIG), 0);
	CU_ASSERT_EQUAL(nl_config_controller_sync_status(h.cc), 0);
	/* sent once, dropped by the server */
	CU_ASSERT_PTR_NOT_NULL(nl_json_get_path(last_body(&h.api, PATCH_STATUS), "status.config"));
	CU_ASSERT_PTR_NULL(nl_json_get_path(h.api.node, "status.config"));
	CU_ASSERT_PTR_NOT_NULL(node_condition(&h));
	CU_ASSERT_PTR_NOT_NULL(status_annotation(&h));
	/* the next change is sent without status.config, and a sync without a
	 * change finds the Node up to date */
	nl_config_controller_on_configmap(h.cc, NULL);
	delete_cm(&h.api);
	CU_ASSERT_NOT_EQUAL(sync_config(&h), 0);
	CU_ASSERT_EQUAL(nl_config_controller_sync_status(h.cc), 0);
	json_object *patch = last_body(&h.api, PATCH_STATUS);
	CU_ASSERT_PTR_NULL(nl_json_get_path(patch, "status.config"));
	ASSERT_STR(nl_json_get_string(node_condition(&h), "reason"),
	           "failed to sync: failed to download config, see nodelet log for "
	           "details");
	/* an agent restart with an up-to-date Node: a GET and no PATCH, the
	 * annotation without status.config telling what the server does */
	CU_ASSERT_EQUAL(nl_config_controller_sync_config(h.cc), NL_ENOTFOUND);
	put_cm(&h.api, "uid-1", "nodelet", GOOD_CONFIG);
	nl_config_controller_on_configmap(h.cc, find_cm(&h.api, "bar", "foo", NULL));
	CU_ASSERT_EQUAL(sync_config(&h), 0); /* same uid, new resourceVersion */
	CU_ASSERT_EQUAL(nl_config_controller_sync_status(h.cc), 0);
	clear_requests(&h.api);
	restart_agent(&h);
	CU_ASSERT_EQUAL(nl_config_controller_sync_status(h.cc), 0);
	CU_ASSERT_EQUAL(count(&h.api, GET_NODE), 1);
	CU_ASSERT_EQUAL(count(&h.api, PATCH_STATUS), 0);
	teardown(&h);
}

/* --- the loops on the clock ------------------------------------------------------------ */

static void test_config_controller__loops_run_on_the_clock(void)
{
	harness h;
	setup(&h);
	put_cm(&h.api, "uid-1", "nodelet", CONFIG_LEASE(12));
	json_object_object_add(json_object_object_get(h.api.node, "spec"), "configSource",
	                       json_tokener_parse(SOURCE_JSON));
	CU_ASSERT_EQUAL(nl_config_controller_start(h.cc), 0);
	CU_ASSERT_EQUAL(nl_config_controller_start(h.cc), NL_EINVAL);
	/* both run at once: the config sync GETs the Node (no informer yet) */
	nl_clock_run_due(h.clock);
	CU_ASSERT_EQUAL(h.restarts, 1);
	CU_ASSERT_TRUE(count(&h.api, PATCH_STATUS) >= 1);
	/* the status reflects the restart by the next tick (10 s + ≤ 20 %) */
	CU_ASSERT_EQUAL(nl_clock_advance(h.clock, 12 * SEC), 0);
	ASSERT_STR(nl_json_get_string(node_condition(&h), "reason"), "passing all checks");
	/* a failing download is retried by the loop */
	delete_cm(&h.api);
	nl_config_controller_on_configmap(h.cc, NULL);
	size_t gets = count(&h.api, GET_CM);
	CU_ASSERT_EQUAL(nl_clock_advance(h.clock, 25 * SEC), 0);
	CU_ASSERT_TRUE(count(&h.api, GET_CM) >= gets + 2);
	nl_config_controller_stop(h.cc);
	size_t n = h.api.nreqs;
	CU_ASSERT_EQUAL(nl_clock_advance(h.clock, 5 * MIN), 0);
	CU_ASSERT_EQUAL(h.api.nreqs, n);
	teardown(&h);
}

static void test_config_controller__options_are_checked(void)
{
	nl_config_controller *cc = NULL;
	nl_clock *clock = NULL;
	fake_api api = {0};
	nl_config_ops ops = {f_get_node, f_get_cm, f_patch_status, f_create_event, &api};
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&clock, T0), 0);
	nl_config_controller_options o = {
	    .clock = clock, .ops = &ops, .node_name = NODE, .dynamic_config_dir = "relative/dir"};
	CU_ASSERT_EQUAL(nl_config_controller_new(&cc, &o), NL_EINVAL);
	o.dynamic_config_dir = "/tmp/x";
	o.node_name = "";
	CU_ASSERT_EQUAL(nl_config_controller_new(&cc, &o), NL_EINVAL);
	o.node_name = NODE;
	ops.create_event = NULL;
	CU_ASSERT_EQUAL(nl_config_controller_new(&cc, &o), NL_EINVAL);
	CU_ASSERT_PTR_NULL(cc);
	nl_clock_free(clock);
}

/* --- what the log says, and what a steady state does not do ------------------------- */

static FILE *quiet;

/* Log into a temporary file from here to log_end. */
static FILE *log_begin(void)
{
	FILE *f = tmpfile();
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	nl_log_set_output(f);
	return f;
}

/* What was logged since log_begin, NUL-terminated into buf. */
static const char *log_end(FILE *f, char *buf, size_t len)
{
	nl_log_set_output(quiet);
	rewind(f);
	size_t n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* A rollback restarts on the last-known-good, and says so in the words of
 * the status condition; only a working assignment is "the assigned". */
static void test_config_controller__restart_logs_the_configuration_it_runs(void)
{
	harness h;
	char buf[16384];
	setup(&h);
	FILE *f = log_begin();
	CU_ASSERT_EQUAL(assign(&h, "uid-good", CONFIG_LEASE(12)), 0);
	log_end(f, buf, sizeof(buf));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "] \"Restarting on a configuration\" "
	                                   "configuration=\"assigned\" condition=\"using current: "
	                                   "/api/v1/namespaces/bar/configmaps/foo, UID: "
	                                   "uid-good, ResourceVersion: "));
	CU_ASSERT_EQUAL(nl_clock_advance(h.clock, 10 * MIN + 10 * SEC), 0);
	f = log_begin();
	CU_ASSERT_EQUAL(assign(&h, "uid-bad", CONFIG_LEASE(0)), 0);
	log_end(f, buf, sizeof(buf));
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(buf, "] \"Restarting on a configuration\" "
	                "configuration=\"last-known-good\" condition=\"using last-known-good: "
	                "/api/v1/namespaces/bar/configmaps/foo, UID: uid-good, "
	                "ResourceVersion: "));
	CU_ASSERT_PTR_NULL(strstr(buf, "configuration=\"assigned\""));
	CU_ASSERT_EQUAL(h.cfg ? h.cfg->lease_duration_seconds : 0, 12);
	/* unassigned: the local configuration */
	f = log_begin();
	set_node_source(&h, 0, NULL);
	CU_ASSERT_EQUAL(sync_config(&h), 0);
	log_end(f, buf, sizeof(buf));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
	                              "] \"Restarting on a configuration\" configuration=\"local\" "
	                              "condition=\"using current: local\"\n"));
	teardown(&h);
}

/* Without a last-known-good, a failed assignment runs the local config in
 * its place: kubelet's "using last-known-good: local". */
static void test_config_controller__rollback_to_local_logs_last_known_good_local(void)
{
	harness h;
	char buf[16384];
	setup(&h);
	FILE *f = log_begin();
	CU_ASSERT_EQUAL(assign(&h, "uid-bad", CONFIG_LEASE(0)), 0);
	log_end(f, buf, sizeof(buf));
	CU_ASSERT_PTR_NULL(h.cfg);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "] \"Restarting on a configuration\" "
	                                   "configuration=\"last-known-good\" "
	                                   "condition=\"using last-known-good: local\"\n"));
	teardown(&h);
}

typedef struct {
	int lkg_writes;
} rename_counter;

static int count_rename(const char *from, const char *to, void *payload)
{
	rename_counter *c = payload;
	size_t n = strlen(to), k = strlen("/meta/last-known-good");
	if (n >= k && strcmp(to + n - k, "/meta/last-known-good") == 0)
		c->lkg_writes++;
	return rename(from, to);
}

/* graduate compares before it writes: once the assigned config is the
 * last-known-good, the check every 10 s writes (and fsyncs) nothing. */
static void test_config_controller__graduated_steady_state_writes_nothing(void)
{
	harness h;
	rename_counter c = {0};
	nl_fs_ops fs = {.rename = count_rename, .payload = &c};
	setup(&h);
	nl_config_controller_free(h.cc);
	nl_config_controller_options o = {.clock = h.clock,
	                                  .ops = &h.ops,
	                                  .node_name = NODE,
	                                  .dynamic_config_dir = h.root,
	                                  .restart = on_restart,
	                                  .restart_payload = &h,
	                                  .fs_ops = &fs};
	CU_ASSERT_EQUAL_FATAL(nl_config_controller_new(&h.cc, &o), 0);
	CU_ASSERT_EQUAL(bootstrap(&h), 0);
	CU_ASSERT_EQUAL(assign(&h, "uid-1", CONFIG_LEASE(12)), 0);
	CU_ASSERT_EQUAL(nl_clock_advance(h.clock, 10 * MIN + 10 * SEC), 0);
	CU_ASSERT_EQUAL(c.lkg_writes, 1);
	nl_config_source *l = lkg_in_store(&h);
	ASSERT_STR(l ? l->uid : "", "uid-1");
	nl_config_source_free(l);
	/* 30 more checks */
	CU_ASSERT_EQUAL(nl_clock_advance(h.clock, 5 * MIN), 0);
	CU_ASSERT_EQUAL(c.lkg_writes, 1);
	teardown(&h);
}

/* A sync that fails and then succeeds with the same assignment (no
 * restart, which would reset the status anyway) clears the sync error. */
static void test_config_controller__successful_sync_clears_the_error_without_restart(void)
{
	harness h;
	setup(&h);
	CU_ASSERT_EQUAL(assign(&h, "uid-1", CONFIG_LEASE(12)), 0);
	CU_ASSERT_EQUAL(h.restarts, 1);
	/* the informer's copy gone, the GET fails once */
	nl_config_controller_on_configmap(h.cc, NULL);
	h.api.fail[GET_CM] = NL_ESERVER;
	CU_ASSERT_EQUAL(sync_config(&h), NL_ESERVER);
	json_object *st = nl_config_controller_status(h.cc);
	ASSERT_STR(nl_json_get_string(st, "error"),
	           "failed to sync: failed to download config, see nodelet log for details");
	json_object_put(st);
	CU_ASSERT_EQUAL(sync_config(&h), 0);
	CU_ASSERT_EQUAL(h.restarts, 1);
	st = nl_config_controller_status(h.cc);
	CU_ASSERT_PTR_NULL(json_object_object_get(st, "error"));
	ASSERT_STR(nl_json_get_string(st, "active.configMap.uid"), "uid-1");
	json_object_put(st);
	teardown(&h);
}

static CU_TestInfo tests[] = {
    {"sync_source_nil_assigned_nil_no_restart",
     test_config_controller__sync_source_nil_assigned_nil_no_restart},
    {"sync_source_equal_to_assigned_no_restart",
     test_config_controller__sync_source_equal_to_assigned_no_restart},
    {"sync_source_nil_assigned_set_restarts",
     test_config_controller__sync_source_nil_assigned_set_restarts},
    {"sync_source_set_assigned_nil_restarts",
     test_config_controller__sync_source_set_assigned_nil_restarts},
    {"sync_source_changed_restarts", test_config_controller__sync_source_changed_restarts},
    {"local_config_when_nothing_assigned",
     test_config_controller__local_config_when_nothing_assigned},
    {"assign_restarts_on_the_new_config",
     test_config_controller__assign_restarts_on_the_new_config},
    {"restart_posts_the_config_changed_event",
     test_config_controller__restart_posts_the_config_changed_event},
    {"event_failure_does_not_block_the_restart",
     test_config_controller__event_failure_does_not_block_the_restart},
    {"explicit_flags_win_over_dynamic_config",
     test_config_controller__explicit_flags_win_over_dynamic_config},
    {"transform_failure_is_an_internal_error",
     test_config_controller__transform_failure_is_an_internal_error},
    {"graduation_nil_lkg_to_assigned", test_config_controller__graduation_nil_lkg_to_assigned},
    {"graduation_lkg_to_other_assigned", test_config_controller__graduation_lkg_to_other_assigned},
    {"trial_duration_is_settable", test_config_controller__trial_duration_is_settable},
    {"trial_continues_across_an_agent_restart",
     test_config_controller__trial_continues_across_an_agent_restart},
    {"bad_parse_rolls_back_with_load_error",
     test_config_controller__bad_parse_rolls_back_with_load_error},
    {"invalid_value_rolls_back_with_validate_error",
     test_config_controller__invalid_value_rolls_back_with_validate_error},
    {"bad_config_without_lkg_uses_local",
     test_config_controller__bad_config_without_lkg_uses_local},
    {"bootstrap_fails_when_lkg_fails_too",
     test_config_controller__bootstrap_fails_when_lkg_fails_too},
    {"deleted_configmap_is_a_download_error_until_recreated",
     test_config_controller__deleted_configmap_is_a_download_error_until_recreated},
    {"download_uses_the_informer_cache", test_config_controller__download_uses_the_informer_cache},
    {"transient_errors_are_retried", test_config_controller__transient_errors_are_retried},
    {"malicious_uid_is_refused", test_config_controller__malicious_uid_is_refused},
    {"malicious_data_key_is_refused", test_config_controller__malicious_data_key_is_refused},
    {"invalid_data_key_keeps_last_good_state",
     test_config_controller__invalid_data_key_keeps_last_good_state},
    {"annotation_is_a_source", test_config_controller__annotation_is_a_source},
    {"spec_wins_over_the_annotation", test_config_controller__spec_wins_over_the_annotation},
    {"bad_annotations_are_sync_errors", test_config_controller__bad_annotations_are_sync_errors},
    {"spec_without_subfield_is_all_nil_error",
     test_config_controller__spec_without_subfield_is_all_nil_error},
    {"node_updates_signal_only_source_changes",
     test_config_controller__node_updates_signal_only_source_changes},
    {"deleted_node_is_read_again", test_config_controller__deleted_node_is_read_again},
    {"local_status_is_reported", test_config_controller__local_status_is_reported},
    {"status_patch_carries_all_three_places",
     test_config_controller__status_patch_carries_all_three_places},
    {"failure_status_uses_last_known_good_texts",
     test_config_controller__failure_status_uses_last_known_good_texts},
    {"status_written_only_when_changed", test_config_controller__status_written_only_when_changed},
    {"failed_status_patch_is_retried", test_config_controller__failed_status_patch_is_retried},
    {"current_clusters_drop_status_config",
     test_config_controller__current_clusters_drop_status_config},
    {"loops_run_on_the_clock", test_config_controller__loops_run_on_the_clock},
    {"options_are_checked", test_config_controller__options_are_checked},
    {"restart_logs_the_configuration_it_runs",
     test_config_controller__restart_logs_the_configuration_it_runs},
    {"rollback_to_local_logs_last_known_good_local",
     test_config_controller__rollback_to_local_logs_last_known_good_local},
    {"graduated_steady_state_writes_nothing",
     test_config_controller__graduated_steady_state_writes_nothing},
    {"successful_sync_clears_the_error_without_restart",
     test_config_controller__successful_sync_clears_the_error_without_restart},
    CU_TEST_INFO_NULL,
};

static int suite_init(void)
{
	quiet = fopen("/dev/null", "w");
	nl_log_set_output(quiet);
	return 0;
}

static int suite_cleanup(void)
{
	nl_log_set_output(NULL);
	if (quiet)
		fclose(quiet);
	return 0;
}

CU_SuiteInfo nl_test_suites[] = {
    {"config_controller", suite_init, suite_cleanup, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
