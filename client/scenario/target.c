/* Scenario targets (target.h): the embedded server in-process, the control
 * API of a running one over HTTP, or a kubeconfig's cluster. */
#include "target.h"

#include <api/resources.h>
#include <mockapi.h>
#include <nodelet/client.h>
#include <nodelet/fs.h>
#include <nodelet/meta.h>
#include <nodelet/nodelet_config.h>
#include <nodelet/timeline.h>
#include <stdio.h>
#include <stdlib.h>
#include <storage/store.h>
#include <string.h>

#include "config.h"

/* How often the embedded server's controllers run, in scenario time: the
 * node lifecycle controller's own period (5 s by default) is checked on
 * each tick, so passes happen on time. */
#define TICK_USEC NL_USEC_PER_SEC

struct nl_scn_target {
	nl_scn_target_kind kind;
	const nl_scn_target_options *o; /* borrowed */
	nl_clock *clock;
	nl_rest_config *cfg;
	/* embedded */
	mock_server *server;
	mock_options mo;
	uint64_t ticker;
	/* --server: the control API through a client of our own */
	nl_client *control;
	uint64_t journal_seq;
};

unsigned nl_scn_target_provides(nl_scn_target_kind k)
{
	switch (k) {
	case NL_TARGET_EMBEDDED:
		return NL_REQ_ALL;
	case NL_TARGET_SERVER:
		return NL_REQ_FAULTS | NL_REQ_JOURNAL | NL_REQ_VIRTUAL_TIME | NL_REQ_MOCKAPI;
	default:
		return 0;
	}
}

const char *nl_scn_target_name(nl_scn_target_kind k)
{
	switch (k) {
	case NL_TARGET_EMBEDDED:
		return "the embedded server";
	case NL_TARGET_SERVER:
		return "--server";
	default:
		return "--kubeconfig";
	}
}

int nl_scn_target_virtual(nl_scn_target_kind k)
{
	return k != NL_TARGET_CLUSTER;
}

/* --- embedded ---------------------------------------------------------------------------- */

static int64_t server_clock(void *payload)
{
	return nl_clock_now(payload);
}

static void ticker(void *payload)
{
	nl_scn_target *t = payload;
	t->ticker = 0;
	mock_server_tick(t->server);
	if (nl_clock_after(&t->ticker, t->clock, TICK_USEC, ticker, t) != 0)
		t->ticker = 0;
}

static int64_t setting_usec(const nl_scn_scenario *sc, const char *key, int64_t dflt)
{
	json_object *v;
	int64_t d = dflt;
	if (sc->server && json_object_object_get_ex(sc->server, key, &v))
		nl_duration_parse(&d, json_object_get_string(v));
	return d;
}

static void embedded_options(nl_scn_target *t, const nl_scn_target_options *o,
                             const nl_scn_scenario *sc)
{
	json_object *v;
	mock_options *mo = &t->mo;
	mock_options_init(mo);
	mo->port = 0;
	mo->verbosity = o->verbosity;
	mo->random_seed = sc->seed;
	mo->random_seed_set = 1;
	mo->clock = server_clock;
	mo->clock_payload = t->clock;
	mo->controller_tick_ms = 0;
	mo->node_monitor_grace_usec =
	    setting_usec(sc, "nodeMonitorGracePeriod", mo->node_monitor_grace_usec);
	mo->node_startup_grace_usec =
	    setting_usec(sc, "nodeStartupGracePeriod", mo->node_startup_grace_usec);
	mo->node_monitor_period_usec =
	    setting_usec(sc, "nodeMonitorPeriod", mo->node_monitor_period_usec);
	if (sc->server && json_object_object_get_ex(sc->server, "watchCacheSize", &v))
		mo->watch_cache_size = (size_t)json_object_get_int64(v);
	if (sc->server && json_object_object_get_ex(sc->server, "controllers", &v))
		mo->controllers = json_object_get_string(v);
}

static int start_embedded(nl_scn_target *t, const nl_scn_target_options *o,
                          const nl_scn_scenario *sc, nl_err *err)
{
	int rc;
	embedded_options(t, o, sc);
	if ((rc = mock_server_new(&t->server, &t->mo, err)) != 0 ||
	    (rc = mock_server_start(t->server, err)) != 0)
		return rc;
	if (!(t->cfg = calloc(1, sizeof(*t->cfg))) ||
	    !(t->cfg->server = strdup(mock_server_url(t->server))))
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	mock_server_tick(t->server);
	return nl_clock_after(&t->ticker, t->clock, TICK_USEC, ticker, t);
}

/* --- the control API over HTTP ---------------------------------------------------------- */

static int control_call(json_object **out, nl_scn_target *t, const char *method, const char *path,
                        json_object *body, nl_err *err)
{
	nl_response resp = {0};
	nl_result res = NL_RESULT_INIT;
	size_t len = 0;
	const char *text = body ? nl_json_compact(body, &len) : NULL;
	nl_request req = {0};
	req.method = method;
	req.path = path;
	req.body = text;
	req.body_len = len;
	int rc = nl_client_do(&resp, t->control, &req, &res);
	if (rc != 0) {
		nl_err_set(err, rc, "%s %s: %s", method, path, res.message);
		nl_result_clear(&res);
		return rc;
	}
	nl_result_clear(&res);
	if (out && !(*out = json_tokener_parse(resp.body)))
		rc = nl_err_set(err, NL_EPARSE, "%s %s: the answer is not JSON", method, path);
	nl_response_clear(&resp);
	return rc;
}

static int start_server(nl_scn_target *t, const nl_scn_target_options *o, nl_err *err)
{
	nl_client_options co;
	int rc;
	if (!(t->cfg = calloc(1, sizeof(*t->cfg))) || !(t->cfg->server = strdup(o->server_url)))
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	nl_client_options_init(&co);
	co.qps = -1;
	co.max_retries = -1;
	co.user_agent = "nodelet-scenario/" PACKAGE_VERSION;
	if ((rc = nl_client_new(&t->control, t->cfg, &co, err)) != 0)
		return rc;
	/* Each scenario starts from the server's seeded state. */
	return control_call(NULL, t, "POST", "/mockapi/v1/reset", NULL, err);
}

/* --- lifecycle ------------------------------------------------------------------------------- */

int nl_scn_target_start(nl_scn_target **out, const nl_scn_target_options *o,
                        const nl_scn_scenario *sc, nl_clock *clock, nl_err *err)
{
	nl_scn_target *t = calloc(1, sizeof(*t));
	int rc;
	if (!t)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	t->kind = o->kind;
	t->o = o;
	t->clock = clock;
	if (o->kind == NL_TARGET_EMBEDDED)
		rc = start_embedded(t, o, sc, err);
	else if (o->kind == NL_TARGET_SERVER)
		rc = start_server(t, o, err);
	else
		rc = nl_kubeconfig_load(&t->cfg, o->kubeconfig, o->context, err);
	if (rc != 0) {
		nl_scn_target_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

void nl_scn_target_free(nl_scn_target *t)
{
	if (!t)
		return;
	if (t->ticker)
		nl_clock_cancel(t->clock, t->ticker);
	mock_server_free(t->server);
	nl_client_free(t->control);
	nl_rest_config_free(t->cfg);
	free(t);
}

const nl_rest_config *nl_scn_target_rest_config(const nl_scn_target *t)
{
	return t->cfg;
}

/* --- faults, journal, restarts ------------------------------------------------------------ */

int nl_scn_target_add_fault(nl_scn_target *t, json_object *fault, nl_err *err)
{
	if (t->kind == NL_TARGET_EMBEDDED)
		return mock_server_add_fault(NULL, t->server, nl_json_compact(fault, NULL), err);
	if (t->kind == NL_TARGET_SERVER)
		return control_call(NULL, t, "POST", "/mockapi/v1/faults", fault, err);
	return nl_err_set(err, NL_EINVAL, "faults need nodelet-mockapi");
}

int nl_scn_target_clear_faults(nl_scn_target *t, const char *id, nl_err *err)
{
	char path[256];
	if (t->kind == NL_TARGET_EMBEDDED) {
		int rc = mock_server_remove_fault(t->server, id);
		return rc ? nl_err_set(err, rc, "fault \"%s\" not found", id) : 0;
	}
	if (t->kind != NL_TARGET_SERVER)
		return nl_err_set(err, NL_EINVAL, "faults need nodelet-mockapi");
	snprintf(path, sizeof(path), "/mockapi/v1/faults%s%s", id ? "/" : "", id ? id : "");
	return control_call(NULL, t, "DELETE", path, NULL, err);
}

int nl_scn_target_journal(json_object **out, nl_scn_target *t, nl_err *err)
{
	json_object *doc = NULL, *items, *last;
	char path[128];
	int rc;
	if (t->kind == NL_TARGET_EMBEDDED) {
		char *text = NULL;
		if ((rc = mock_server_journal(&text, t->server, t->journal_seq)) != 0)
			return nl_err_set(err, rc, "cannot read the journal");
		doc = json_tokener_parse(text);
		free(text);
	} else if (t->kind == NL_TARGET_SERVER) {
		snprintf(path, sizeof(path), "/mockapi/v1/requests?since=%llu",
		         (unsigned long long)t->journal_seq);
		if ((rc = control_call(&doc, t, "GET", path, NULL, err)) != 0)
			return rc;
	} else {
		return nl_err_set(err, NL_EINVAL, "the journal needs nodelet-mockapi");
	}
	if (!json_object_object_get_ex(doc, "items", &items) ||
	    !json_object_is_type(items, json_type_array)) {
		json_object_put(doc);
		return nl_err_set(err, NL_EPARSE, "the journal has no items");
	}
	if (json_object_object_get_ex(doc, "lastSeq", &last))
		t->journal_seq = (uint64_t)json_object_get_int64(last);
	*out = json_object_get(items);
	json_object_put(doc);
	return 0;
}

int nl_scn_target_kubeconfig(const char **use, nl_scn_target *t, const char *path, nl_err *err)
{
	char text[2048];
	*use = path;
	if (t->kind == NL_TARGET_EMBEDDED)
		return mock_server_write_kubeconfig(t->server, path, err);
	if (t->kind == NL_TARGET_CLUSTER) {
		*use = t->o->kubeconfig;
		return 0;
	}
	int n =
	    snprintf(text, sizeof(text),
	             "apiVersion: v1\nkind: Config\n"
	             "clusters:\n- name: mockapi\n  cluster: {server: \"%s\"}\n"
	             "users:\n- name: mockapi\n  user: {}\n"
	             "contexts:\n- name: mockapi\n  context: {cluster: mockapi, user: mockapi}\n"
	             "current-context: mockapi\n",
	             t->o->server_url);
	if (n < 0 || (size_t)n >= sizeof(text))
		return nl_err_set(err, NL_EINVAL, "the server URL is too long");
	return nl_fs_replace_file(NULL, path, text, (size_t)n, 0600, err);
}

/* The Nodes of GET /mockapi/v1/objects. */
static int server_nodes(json_object *out, nl_scn_target *t, nl_err *err)
{
	json_object *dump = NULL, *items;
	int rc = control_call(&dump, t, "GET", "/mockapi/v1/objects", NULL, err);
	if (rc == 0 && json_object_object_get_ex(dump, "items", &items))
		for (size_t i = 0; i < json_object_array_length(items); i++) {
			json_object *o = json_object_array_get_idx(items, i);
			const char *kind =
			    json_object_get_string(json_object_object_get(o, "kind"));
			if (kind && strcmp(kind, "Node") == 0)
				json_object_array_add(out, json_object_get(o));
		}
	json_object_put(dump);
	return rc;
}

int nl_scn_target_nodes(json_object **out, nl_scn_target *t, nl_err *err)
{
	json_object *nodes = json_object_new_array();
	uint64_t rv;
	int rc;
	if (!nodes)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	if (t->kind == NL_TARGET_EMBEDDED)
		rc = mock_store_visit(mock_server_store(t->server),
		                      mock_resource_get(MOCK_KIND_NODE), NULL,
		                      nl_timeline_collect_object, nodes, &rv, NULL)
		         ? nl_err_set(err, NL_ERROR, "cannot read the Nodes")
		         : 0;
	else if (t->kind == NL_TARGET_SERVER)
		rc = server_nodes(nodes, t, err);
	else
		rc = nl_err_set(err, NL_EINVAL, "no store to read on a cluster");
	if (rc != 0) {
		json_object_put(nodes);
		return rc;
	}
	*out = nodes;
	return 0;
}

int nl_scn_target_restart_server(nl_scn_target *t, nl_err *err)
{
	if (t->kind != NL_TARGET_EMBEDDED)
		return nl_err_set(err, NL_EINVAL, "restartServer needs the embedded server");
	return mock_server_restart(t->server, err);
}

void nl_scn_target_tick(nl_scn_target *t)
{
	if (t->kind == NL_TARGET_EMBEDDED)
		mock_server_tick(t->server);
}
