/* The C interface of mockapi.h beyond the server's lifecycle: the control
 * API's entry points for in-process tests, and --kubeconfig-out. */
#include <nodelet/doc.h>
#include <nodelet/meta.h>
#include <stdlib.h>
#include <string.h>

#include "kubeconfig_out.h"
#include "nonresource/metrics.h"
#include "server_internal.h"
#include "storage/store.h"
#include "watch/watch.h"

int mock_server_add_fault(char **id_out, mock_server *s, const char *json, nl_err *err)
{
	mock_control *c = s->ctl;
	json_object *spec = NULL;
	mock_fault *f = NULL;
	char id[MOCK_FAULT_ID_MAX];
	if (!json || nl_doc_parse_one(&spec, json, strlen(json), "fault", err) != 0)
		return json ? NL_EPARSE : nl_err_set(err, NL_EINVAL, "no fault given");
	int rc = mock_fault_parse(&f, spec, err);
	json_object_put(spec);
	if (rc != 0)
		return rc;
	rc = mock_faults_add(c->faults, f, id);
	if (rc == NL_EEXISTS)
		return nl_err_set(err, rc, "id: a fault named that already exists");
	if (rc != 0)
		return nl_err_set(err, rc, "at most %d faults may exist at once", MOCK_FAULTS_MAX);
	if (!id_out)
		return 0;
	char *copy = strdup(id);
	if (!copy) {
		mock_faults_remove(NULL, c->faults, id);
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	}
	*id_out = copy;
	return 0;
}

int mock_server_remove_fault(mock_server *s, const char *id)
{
	mock_control *c = s->ctl;
	if (!id) {
		mock_faults_clear(NULL, c->faults);
		return 0;
	}
	return mock_faults_remove(NULL, c->faults, id);
}

int mock_server_journal(char **out, mock_server *s, uint64_t since)
{
	json_object *o = mock_journal_to_json(s->ctl->journal, since);
	const char *text = o ? nl_json_compact(o, NULL) : NULL;
	char *copy = text ? strdup(text) : NULL;
	json_object_put(o);
	if (!copy)
		return NL_ENOMEM;
	*out = copy;
	return 0;
}

int mock_server_reset(mock_server *s, nl_err *err)
{
	return mock_control_reset(s->ctl, err);
}

int mock_server_save(mock_server *s)
{
	struct mock_store_saved *saved = NULL;
	if (s->daemon || s->persist)
		return NL_EINVAL;
	int rc = mock_store_save(&saved, s->api.store);
	if (rc != 0)
		return rc;
	mock_store_saved_free(s->saved);
	s->saved = saved;
	return 0;
}

int mock_server_rewind(mock_server *s)
{
	if (!s->saved || s->daemon || s->persist || mock_watch_hub_count(s->api.watch) > 0)
		return NL_EINVAL;
	int rc = mock_store_rewind(s->api.store, s->saved);
	if (rc != 0)
		return rc;
	/* The hub saw the changes undone; no watcher is open to mind. */
	rc = mock_watch_hub_rewind(s->api.watch);
	mock_control_forget(s->ctl);
	mock_metrics_clear(s->api.metrics);
	return rc;
}

int mock_server_tick(mock_server *s)
{
	return mock_controllers_tick(s->ctl->controllers);
}

int mock_server_write_kubeconfig(mock_server *s, const char *path, nl_err *err)
{
	mock_kubeconfig_creds creds;
	mock_access_kubeconfig_creds(&creds, s->api.access);
	return mock_kubeconfig_write_creds(path, mock_server_url(s), &creds, err);
}
