/* nl_timeline_html: the report page. What a browser does with it is
 * tests/integration/scenario_html.sh's; here, that untrusted text cannot
 * leave the data element and that the page names nothing outside itself. */
#include "../cu_main.h"

#include <nodelet/timeline.h>

#include <stdlib.h>
#include <string.h>

#define EVIL "</script><script>alert(1)</script><!--"

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static char *page_for(json_object *doc)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	CU_ASSERT_EQUAL_FATAL(nl_timeline_html(&b, doc), 0);
	json_object_put(doc);
	return nl_buf_detach(&b, NULL);
}

static json_object *event(int64_t t, const char *name, int code)
{
	json_object *e = json_object_new_object();
	json_object_object_add(e, "t", json_object_new_int64(t));
	json_object_object_add(e, "verb", json_object_new_string("get"));
	json_object_object_add(e, "resource", json_object_new_string("leases"));
	json_object_object_add(e, "name", json_object_new_string(name));
	json_object_object_add(e, "code", json_object_new_int(code));
	return e;
}

static json_object *doc_with(const char *title, json_object *ev)
{
	json_object *doc = json_object_new_object(), *runs = json_object_new_array(),
	            *run = json_object_new_object(), *events = json_object_new_array();
	json_object_object_add(doc, "title", json_object_new_string(title));
	json_object_array_add(events, ev);
	json_object_object_add(run, "name", json_object_new_string("r"));
	json_object_object_add(run, "detail", json_object_new_string("- a: " EVIL "\n+ a: 1\n"));
	json_object_object_add(run, "events", events);
	json_object_array_add(runs, run);
	json_object_object_add(doc, "runs", runs);
	return doc;
}

static void test_timeline__journal_text_stays_data(void)
{
	char *page = page_for(doc_with("t", event(1, EVIL, 200)));
	/* Two elements end: the data and the script. */
	CU_ASSERT_EQUAL(count(page, "</script"), 2);
	CU_ASSERT_EQUAL(count(page, "<script"), 2);
	CU_ASSERT_PTR_NULL(strstr(page, "alert(1)</"));
	CU_ASSERT_PTR_NULL(strstr(page, "<!--"));
	CU_ASSERT_PTR_NOT_NULL(strstr(page, "\\u003c/script\\u003e\\u003cscript\\u003ealert(1)"));
	free(page);
}

static void test_timeline__title_is_escaped(void)
{
	char *page = page_for(doc_with("<b>&\"x\"</b>", event(1, "edge-1", 200)));
	CU_ASSERT_PTR_NOT_NULL(strstr(page, "<title>&lt;b&gt;&amp;&quot;x&quot;&lt;/b&gt;"));
	CU_ASSERT_PTR_NULL(strstr(page, "<b>"));
	free(page);
}

static void test_timeline__page_is_self_contained(void)
{
	char *page = page_for(doc_with("t", event(1, "edge-1", 200)));
	CU_ASSERT_PTR_NOT_NULL(strstr(page, "<!DOCTYPE html>"));
	CU_ASSERT_PTR_NULL(strstr(page, "http:"));
	CU_ASSERT_PTR_NULL(strstr(page, "https:"));
	CU_ASSERT_PTR_NULL(strstr(page, " src="));
	CU_ASSERT_PTR_NULL(strstr(page, "<link"));
	CU_ASSERT_PTR_NULL(strstr(page, "@import"));
	CU_ASSERT_PTR_NULL(strstr(page, "url("));
	/* A policy stops what the page itself would not do. */
	CU_ASSERT_PTR_NOT_NULL(strstr(page, "Content-Security-Policy"));
	free(page);
}

static void test_timeline__journal_run_times_from_first(void)
{
	json_object *items = json_object_new_array();
	const char *times[] = {"2026-01-02T03:04:05.500000Z", "2026-01-02T03:04:07.000000Z"};
	for (size_t i = 0; i < 2; i++) {
		json_object *e = json_object_new_object();
		json_object_object_add(e, "time", json_object_new_string(times[i]));
		json_object_array_add(items, e);
	}
	json_object *run = nl_timeline_journal_run(items, NULL, "journal");
	json_object *ev = json_object_object_get(run, "events");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(run, "name")),
	                       "journal");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(run, "outcome")),
	                       "journal");
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(ev), 2);
	CU_ASSERT_EQUAL(
	    json_object_get_int64(json_object_object_get(json_object_array_get_idx(ev, 0), "t")),
	    0);
	CU_ASSERT_EQUAL(
	    json_object_get_int64(json_object_object_get(json_object_array_get_idx(ev, 1), "t")),
	    1500000);
	/* The items are borrowed, not changed. */
	CU_ASSERT_PTR_NULL(json_object_object_get(json_object_array_get_idx(items, 0), "t"));
	json_object_put(run);
	json_object_put(items);
}

static json_object *node_with(const char *name, const char *status, const char *since)
{
	json_object *n = json_object_new_object(), *md = json_object_new_object(),
	            *st = json_object_new_object(), *conds = json_object_new_array(),
	            *c = json_object_new_object();
	json_object_object_add(md, "name", json_object_new_string(name));
	json_object_object_add(n, "metadata", md);
	json_object_object_add(c, "type", json_object_new_string("Ready"));
	json_object_object_add(c, "status", json_object_new_string(status));
	json_object_object_add(c, "reason", json_object_new_string("NodeStatusUnknown"));
	json_object_object_add(c, "lastTransitionTime", json_object_new_string(since));
	json_object_array_add(conds, c);
	json_object_object_add(st, "conditions", conds);
	json_object_object_add(n, "status", st);
	return n;
}

static void test_timeline__journal_run_with_node_conditions(void)
{
	json_object *items = json_object_new_array(), *nodes = json_object_new_array();
	json_object *e = json_object_new_object();
	json_object_object_add(e, "time", json_object_new_string("2026-01-02T03:04:05Z"));
	json_object_array_add(items, e);
	/* One changed after the first request, one long before it. */
	json_object_array_add(nodes, node_with("edge-1", "Unknown", "2026-01-02T03:04:09Z"));
	json_object_array_add(nodes, node_with("edge-2", "True", "2024-01-01T00:00:00Z"));
	json_object *run = nl_timeline_journal_run(items, nodes, "journal");
	json_object *ev = json_object_object_get(run, "events");
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(ev), 3);
	json_object *c1 = json_object_array_get_idx(ev, 1), *c2 = json_object_array_get_idx(ev, 2);
	CU_ASSERT_STRING_EQUAL(
	    json_object_to_json_string_ext(c1, JSON_C_TO_STRING_PLAIN),
	    "{\"t\":4000000,\"kind\":\"condition\",\"node\":\"edge-1\",\"type\":\"Ready\","
	    "\"status\":\"Unknown\",\"reason\":\"NodeStatusUnknown\","
	    "\"since\":\"2026-01-02T03:04:09Z\"}");
	CU_ASSERT_EQUAL(json_object_get_int64(json_object_object_get(c2, "t")), 0);
	json_object_put(run);
	json_object_put(items);
	json_object_put(nodes);
}

/* A condition without the fields a page needs still has them, as text. */
static void test_timeline__condition_of_junk(void)
{
	json_object *junk = json_object_new_int(7);
	json_object *e = nl_timeline_condition(NULL, junk, 5);
	CU_ASSERT_STRING_EQUAL(json_object_to_json_string_ext(e, JSON_C_TO_STRING_PLAIN),
	                       "{\"t\":5,\"kind\":\"condition\",\"node\":\"\",\"type\":\"\","
	                       "\"status\":\"\"}");
	json_object_put(e);
	json_object_put(junk);
}

/* The policy allows the page's own style and script by hash, and no other
 * inline code; the script element holds exactly the hashed file. */
static void test_timeline__policy_by_hash(void)
{
	char *page = page_for(doc_with("t", event(1, "edge-1", 200)));
	CU_ASSERT_PTR_NOT_NULL(strstr(page, "content=\"default-src 'none'; style-src 'sha256-"));
	CU_ASSERT_PTR_NOT_NULL(strstr(page, "; script-src 'sha256-"));
	CU_ASSERT_PTR_NULL(strstr(page, "unsafe-inline"));
	CU_ASSERT_PTR_NOT_NULL(strstr(page, "</script>\n<script>/* The report page's script"));
	CU_ASSERT_PTR_NOT_NULL(strstr(page, "<style>/* The report page's style"));
	free(page);
}

/* What a journal carries is text the network chose: each field of an
 * entry, through the journal run, stays inside the data element. */
static void test_timeline__journal_fields_stay_data(void)
{
	const char *fields[] = {"userAgent", "user",      "reason", "fault",
	                        "path",      "namespace", "time"};
	json_object *items = json_object_new_array(), *e = json_object_new_object();
	for (size_t i = 0; i < sizeof(fields) / sizeof(*fields); i++)
		json_object_object_add(e, fields[i], json_object_new_string(EVIL "</SCRIPT >"));
	json_object_array_add(items, e);
	json_object *doc = json_object_new_object(), *runs = json_object_new_array();
	json_object_array_add(runs, nl_timeline_journal_run(items, NULL, EVIL));
	json_object_object_add(doc, "runs", runs);
	json_object_object_add(doc, "title", json_object_new_string(EVIL));
	char *page = page_for(doc);
	CU_ASSERT_EQUAL(count(page, "</script"), 2);
	CU_ASSERT_EQUAL(count(page, "</SCRIPT"), 0);
	CU_ASSERT_EQUAL(count(page, "<script"), 2);
	CU_ASSERT_PTR_NULL(strstr(page, "<!--"));
	free(page);
	json_object_put(items);
}

static CU_TestInfo tests[] = {
    {"journal_run_with_node_conditions", test_timeline__journal_run_with_node_conditions},
    {"condition_of_junk", test_timeline__condition_of_junk},
    {"policy_by_hash", test_timeline__policy_by_hash},
    {"journal_fields_stay_data", test_timeline__journal_fields_stay_data},
    {"journal_text_stays_data", test_timeline__journal_text_stays_data},
    {"title_is_escaped", test_timeline__title_is_escaped},
    {"page_is_self_contained", test_timeline__page_is_self_contained},
    {"journal_run_times_from_first", test_timeline__journal_run_times_from_first},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"timeline", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
