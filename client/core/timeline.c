/* The report page (<nodelet/timeline.h>): a fixed head, the data as
 * escaped JSON, and the inline style and script of timeline.css and
 * timeline.js (embedded at build time as timeline_assets.inc). */
#include <nodelet/errors.h>
#include <nodelet/time.h>
#include <nodelet/timeline.h>
#include <string.h>

#include "timeline_assets.inc"

/* The page may use only itself: no fetch, image, font or frame. */
#define CSP "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'"

int nl_timeline_html_escape(nl_buf *out, const char *s)
{
	int rc = 0;
	for (; s && *s && rc == 0; s++) {
		switch (*s) {
		case '<':
			rc = nl_buf_adds(out, "&lt;");
			break;
		case '>':
			rc = nl_buf_adds(out, "&gt;");
			break;
		case '&':
			rc = nl_buf_adds(out, "&amp;");
			break;
		case '"':
			rc = nl_buf_adds(out, "&quot;");
			break;
		case '\'':
			rc = nl_buf_adds(out, "&#39;");
			break;
		default:
			rc = nl_buf_add(out, s, 1);
		}
	}
	return rc;
}

/* JSON text for a script element's content. '<', '>' and '&' occur in
 * JSON text only inside strings, where their \u escapes mean the same, so
 * neither "</script" nor "<!--" can appear. */
static int add_json(nl_buf *out, json_object *doc)
{
	const char *p = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
	                                                        JSON_C_TO_STRING_NOSLASHESCAPE);
	int rc = p ? 0 : NL_ENOMEM;
	for (; p && *p && rc == 0; p++) {
		if (*p == '<' || *p == '>' || *p == '&')
			rc = nl_buf_printf(out, "\\u%04x", (unsigned)*p);
		else
			rc = nl_buf_add(out, p, 1);
	}
	return rc;
}

int nl_timeline_html(nl_buf *out, json_object *doc)
{
	json_object *title = NULL;
	int rc = nl_buf_adds(
	    out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	         "<meta http-equiv=\"Content-Security-Policy\" content=\"" CSP "\">\n"
	         "<title>");
	json_object_object_get_ex(doc, "title", &title);
	rc = rc ? rc
	        : nl_timeline_html_escape(out, title ? json_object_get_string(title) : "timeline");
	rc = rc ? rc : nl_buf_adds(out, "</title>\n<style>\n");
	rc = rc ? rc : nl_buf_adds(out, timeline_css);
	rc =
	    rc ? rc
	       : nl_buf_adds(out, "</style>\n</head>\n<body>\n"
	                          "<noscript>This report draws itself with its inline script."
	                          "</noscript>\n<script type=\"application/json\" id=\"nl-data\">");
	rc = rc ? rc : add_json(out, doc);
	rc = rc ? rc : nl_buf_adds(out, "</script>\n<script>\n");
	rc = rc ? rc : nl_buf_adds(out, timeline_js);
	rc = rc ? rc : nl_buf_adds(out, "</script>\n</body>\n</html>\n");
	return rc ? NL_ENOMEM : 0;
}

static int64_t entry_time(json_object *e)
{
	json_object *v;
	int64_t at = 0;
	if (json_object_object_get_ex(e, "time", &v))
		nl_time_parse(&at, json_object_get_string(v));
	return at;
}

json_object *nl_timeline_journal_run(json_object *items, const char *name)
{
	json_object *run = json_object_new_object(), *events = json_object_new_array();
	size_t n = json_object_array_length(items);
	int64_t t0 = n ? entry_time(json_object_array_get_idx(items, 0)) : 0;
	if (!run || !events) {
		json_object_put(run);
		json_object_put(events);
		return NULL;
	}
	json_object_object_add(run, "name", json_object_new_string(name));
	json_object_object_add(run, "outcome", json_object_new_string("journal"));
	json_object_object_add(run, "events", events);
	for (size_t i = 0; i < n; i++) {
		json_object *e = NULL;
		/* A copy: the caller's entries stay as they were. */
		if (json_object_deep_copy(json_object_array_get_idx(items, i), &e, NULL) != 0) {
			json_object_put(run);
			return NULL;
		}
		json_object_object_add(e, "t", json_object_new_int64(entry_time(e) - t0));
		json_object_array_add(events, e);
	}
	return run;
}
