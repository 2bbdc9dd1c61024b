/* The journal's report page (journal_page.h). */
#include "journal_page.h"

#include <nodelet/status.h>
#include <nodelet/timeline.h>

#include "api/resources.h"

/* {"title", "runs": [the journal as one run]}, NULL when out of memory. */
static json_object *page_doc(mock_journal *j, mock_store *store, uint64_t since)
{
	uint64_t rv;
	json_object *journal = mock_journal_to_json(j, since), *nodes = json_object_new_array();
	json_object *doc = json_object_new_object(), *runs = json_object_new_array(), *run = NULL;
	if (nodes)
		mock_store_visit(store, mock_resource_get(MOCK_KIND_NODE), NULL,
		                 nl_timeline_collect_object, nodes, &rv, NULL);
	if (journal && nodes && doc && runs)
		run = nl_timeline_journal_run(json_object_object_get(journal, "items"), nodes,
		                              "nodelet-mockapi journal");
	json_object_put(journal);
	json_object_put(nodes);
	if (!run || json_object_array_add(runs, run) != 0) {
		json_object_put(run);
		json_object_put(runs);
		json_object_put(doc);
		return NULL;
	}
	json_object_object_add(doc, "title", json_object_new_string("nodelet-mockapi journal"));
	json_object_object_add(doc, "runs", runs);
	return doc;
}

void mock_journal_page(mock_response *resp, mock_journal *j, mock_store *store, uint64_t since)
{
	nl_buf b;
	size_t len = 0;
	json_object *doc = page_doc(j, store, since);
	nl_buf_init(&b, 0);
	if (!doc || nl_timeline_html(&b, doc) != 0) {
		json_object_put(doc);
		nl_buf_free(&b);
		mock_response_status(resp, nl_status_internal("out of memory"));
		return;
	}
	json_object_put(doc);
	char *page = nl_buf_detach(&b, &len);
	nl_buf_free(&b);
	if (!page) {
		mock_response_status(resp, nl_status_internal("out of memory"));
		return;
	}
	mock_response_json_take(resp, 200, page, len);
	resp->content_type = "text/html; charset=utf-8";
}
