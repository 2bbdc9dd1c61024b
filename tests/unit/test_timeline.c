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
	json_object *run = nl_timeline_journal_run(items, "journal");
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

static CU_TestInfo tests[] = {
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
