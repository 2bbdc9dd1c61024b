/* The report page (<nodelet/timeline.h>): a fixed head, the data as
 * escaped JSON, and the inline style and script of timeline.css and
 * timeline.js (embedded at build time as timeline_assets.inc). */
#include <nodelet/errors.h>
#include <nodelet/time.h>
#include <nodelet/timeline.h>
#include <string.h>

#include "timeline_assets.inc"

/* The page may use only itself: no fetch, image, font or frame, and of
 * inline code only its own style and script, each allowed by its hash
 * (a fixed file has no use for a nonce). Anything else, were it ever
 * injected, would not run. */
#define CSP                                                          \
	"default-src 'none'; style-src 'sha256-" TIMELINE_css_SHA256 \
	"'; script-src 'sha256-" TIMELINE_js_SHA256 "'; base-uri 'none'; form-action 'none'"

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
	rc = rc ? rc : nl_buf_adds(out, "</title>\n<style>");
	rc = rc ? rc : nl_buf_adds(out, timeline_css);
	rc =
	    rc ? rc
	       : nl_buf_adds(out, "</style>\n</head>\n<body>\n"
	                          "<noscript>This report draws itself with its inline script."
	                          "</noscript>\n<script type=\"application/json\" id=\"nl-data\">");
	rc = rc ? rc : add_json(out, doc);
	/* The element's text must be the file's bytes exactly: its hash. */
	rc = rc ? rc : nl_buf_adds(out, "</script>\n<script>");
	rc = rc ? rc : nl_buf_adds(out, timeline_js);
	rc = rc ? rc : nl_buf_adds(out, "</script>\n</body>\n</html>\n");
	return rc ? NL_ENOMEM : 0;
}

static int64_t time_of(json_object *o, const char *key)
{
	json_object *v;
	int64_t at = 0;
	if (json_object_object_get_ex(o, key, &v))
		nl_time_parse(&at, json_object_get_string(v));
	return at;
}

static void put_text(json_object *o, const char *key, json_object *from, const char *from_key)
{
	json_object *v;
	if (json_object_object_get_ex(from, from_key, &v) &&
	    json_object_is_type(v, json_type_string))
		json_object_object_add(o, key, json_object_get(v));
}

int nl_timeline_collect_object(const char *json, size_t len, void *payload)
{
	json_object *o = json_tokener_parse(json); /* stored text ends in a NUL */
	(void)len;
	if (o)
		json_object_array_add(payload, o);
	return 0;
}

json_object *nl_timeline_condition(const char *node, json_object *cond, int64_t t)
{
	json_object *e = json_object_new_object();
	if (!e)
		return NULL;
	json_object_object_add(e, "t", json_object_new_int64(t));
	json_object_object_add(e, "kind", json_object_new_string("condition"));
	json_object_object_add(e, "node", json_object_new_string(node ? node : ""));
	json_object_object_add(e, "type", json_object_new_string(""));
	json_object_object_add(e, "status", json_object_new_string(""));
	put_text(e, "type", cond, "type");
	put_text(e, "status", cond, "status");
	put_text(e, "reason", cond, "reason");
	put_text(e, "since", cond, "lastTransitionTime");
	return e;
}

/* Each Node's conditions where they last changed, never before t0. */
static int add_conditions(json_object *events, json_object *nodes, int64_t t0)
{
	if (!json_object_is_type(nodes, json_type_array))
		return 0;
	for (size_t i = 0; i < json_object_array_length(nodes); i++) {
		json_object *n = json_object_array_get_idx(nodes, i), *md, *name = NULL, *st,
		            *conds;
		if (json_object_object_get_ex(n, "metadata", &md))
			json_object_object_get_ex(md, "name", &name);
		if (!json_object_object_get_ex(n, "status", &st) ||
		    !json_object_object_get_ex(st, "conditions", &conds) ||
		    !json_object_is_type(conds, json_type_array))
			continue;
		for (size_t c = 0; c < json_object_array_length(conds); c++) {
			json_object *cond = json_object_array_get_idx(conds, c);
			int64_t t = time_of(cond, "lastTransitionTime") - t0;
			json_object *e = nl_timeline_condition(json_object_get_string(name), cond,
			                                       t > 0 ? t : 0);
			if (!e || json_object_array_add(events, e) != 0)
				return NL_ENOMEM;
		}
	}
	return 0;
}

json_object *nl_timeline_journal_run(json_object *items, json_object *nodes, const char *name)
{
	json_object *run = json_object_new_object(), *events = json_object_new_array();
	size_t n =
	    json_object_is_type(items, json_type_array) ? json_object_array_length(items) : 0;
	int64_t t0 = n ? time_of(json_object_array_get_idx(items, 0), "time") : 0;
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
		int64_t t = time_of(e, "time") - t0;
		/* A clock set back, or no time: the start, not before it. */
		json_object_object_add(e, "t", json_object_new_int64(t > 0 ? t : 0));
		json_object_array_add(events, e);
	}
	if (add_conditions(events, nodes, t0) != 0) {
		json_object_put(run);
		return NULL;
	}
	return run;
}
