/* TAP and JUnit output (report.h). */
#include "report.h"

#include <errno.h>
#include <nodelet/timeline.h>
#include <string.h>

void nl_scn_report_tap_plan(FILE *f, size_t n)
{
	fprintf(f, "TAP version 13\n1..%zu\n", n);
	fflush(f);
}

/* Text as a YAML block scalar, each line indented. */
static void block(FILE *f, const char *key, const char *text)
{
	fprintf(f, "  %s: |\n", key);
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		fprintf(f, "    %.*s\n", (int)n, p);
		p += n;
		if (*p)
			p++;
	}
}

void nl_scn_report_ran_on(const char **target, const char **clock, nl_scn_target_kind k,
                          const nl_scn_suite_item *it)
{
	*target = *clock = NULL;
	if (!it->sc || it->result.outcome == NL_OUTCOME_SKIP)
		return;
	*target = k == NL_TARGET_EMBEDDED ? "embedded"
	          : k == NL_TARGET_SERVER ? "server"
	                                  : "kubeconfig";
	*clock = nl_scn_target_virtual(k) ? "virtual" : "real";
}

static void tap_ran_on(FILE *f, const nl_scn_suite_item *it, nl_scn_target_kind k)
{
	const char *target, *clock;
	nl_scn_report_ran_on(&target, &clock, k, it);
	if (target)
		fprintf(f, "# ran %s: target=%s clock=%s\n", it->name, target, clock);
	else
		fprintf(f, "# ran %s: not run\n", it->name);
}

void nl_scn_report_tap_item(FILE *f, const nl_scn_suite_item *it, size_t number,
                            nl_scn_target_kind k, nl_scn_report_counts *c)
{
	const nl_scn_run_result *r = &it->result;
	switch (r->outcome) {
	case NL_OUTCOME_PASS:
		c->passed++;
		fprintf(f, "ok %zu - %s\n", number, it->name);
		break;
	case NL_OUTCOME_SKIP:
		c->skipped++;
		fprintf(f, "ok %zu - %s # SKIP %s\n", number, it->name,
		        r->message ? r->message : "");
		break;
	default:
		c->failed++;
		fprintf(f, "not ok %zu - %s\n  ---\n  file: %s\n", number, it->name, it->file);
		if (r->message)
			block(f, "message", r->message);
		if (r->detail)
			block(f, "detail", r->detail);
		fprintf(f, "  ...\n");
		break;
	}
	tap_ran_on(f, it, k);
	fflush(f);
}

void nl_scn_report_summary(FILE *f, const nl_scn_report_counts *c)
{
	fprintf(f, "%zu passed, %zu failed, %zu skipped\n", c->passed, c->failed, c->skipped);
	fflush(f);
}

static void xml_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			/* XML 1.0 has no place for other control characters. */
			if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
				fputc(*s, f);
		}
	}
}

int nl_scn_report_junit(const char *path, const nl_scn_suite *s, nl_scn_target_kind k, nl_err *err)
{
	nl_scn_report_counts c = {0};
	double total = 0;
	FILE *f = fopen(path, "w");
	if (!f)
		return nl_err_set(err, NL_EIO, "%s: %s", path, strerror(errno));
	for (size_t i = 0; i < s->n; i++) {
		nl_scn_outcome o = s->items[i].result.outcome;
		c.failed += o == NL_OUTCOME_FAIL;
		c.skipped += o == NL_OUTCOME_SKIP;
		total += s->items[i].seconds;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f,
	        "<testsuites>\n<testsuite name=\"nodelet-scenario\" tests=\"%zu\" failures=\"%zu\" "
	        "errors=\"0\" skipped=\"%zu\" time=\"%.3f\">\n",
	        s->n, c.failed, c.skipped, total);
	for (size_t i = 0; i < s->n; i++) {
		const nl_scn_suite_item *it = &s->items[i];
		fputs("  <testcase classname=\"", f);
		xml_text(f, it->file);
		fputs("\" name=\"", f);
		xml_text(f, it->name);
		fprintf(f, "\" time=\"%.3f\">", it->seconds);
		const char *target, *clock;
		nl_scn_report_ran_on(&target, &clock, k, it);
		fprintf(f,
		        "<properties><property name=\"target\" value=\"%s\"/>"
		        "<property name=\"clock\" value=\"%s\"/></properties>",
		        target ? target : "none", clock ? clock : "none");
		if (it->result.outcome == NL_OUTCOME_SKIP) {
			fputs("<skipped message=\"", f);
			xml_text(f, it->result.message);
			fputs("\"/>", f);
		} else if (it->result.outcome == NL_OUTCOME_FAIL) {
			fputs("\n    <failure message=\"", f);
			xml_text(f, it->result.message);
			fputs("\">", f);
			xml_text(f, it->result.message);
			fputs("\n", f);
			xml_text(f, it->result.detail);
			fputs("</failure>\n  ", f);
		}
		fputs("</testcase>\n", f);
	}
	fputs("</testsuite>\n</testsuites>\n", f);
	if (fclose(f) != 0)
		return nl_err_set(err, NL_EIO, "%s: %s", path, strerror(errno));
	return 0;
}

/* --- the report page ---------------------------------------------------------------------- */

static const char *outcome_name(nl_scn_outcome o)
{
	return o == NL_OUTCOME_PASS ? "pass" : o == NL_OUTCOME_SKIP ? "skip" : "fail";
}

static void add_text(json_object *o, const char *key, const char *v)
{
	if (v)
		json_object_object_add(o, key, json_object_new_string(v));
}

/* {name, file, outcome, message, detail} and the timeline's members. */
static json_object *html_run(const nl_scn_suite_item *it)
{
	json_object *run = json_object_new_object();
	if (!run)
		return NULL;
	add_text(run, "name", it->name);
	add_text(run, "file", it->file);
	add_text(run, "outcome", outcome_name(it->result.outcome));
	add_text(run, "message", it->result.message);
	add_text(run, "detail", it->result.detail);
	/* A scenario that did not run (skipped, did not parse) has none. */
	if (!json_object_is_type(it->result.timeline, json_type_object))
		return run;
	json_object_object_foreach(it->result.timeline, key, v)
	{
		json_object_object_add(run, key, json_object_get(v));
	}
	return run;
}

static json_object *html_doc(const nl_scn_suite *s)
{
	char title[128];
	nl_scn_report_counts c = {0};
	json_object *doc = json_object_new_object(), *runs = json_object_new_array();
	if (!doc || !runs) {
		json_object_put(doc);
		json_object_put(runs);
		return NULL;
	}
	for (size_t i = 0; i < s->n; i++) {
		nl_scn_outcome o = s->items[i].result.outcome;
		c.passed += o == NL_OUTCOME_PASS;
		c.failed += o == NL_OUTCOME_FAIL;
		c.skipped += o == NL_OUTCOME_SKIP;
		json_object_array_add(runs, html_run(&s->items[i]));
	}
	snprintf(title, sizeof(title), "nodelet-scenario: %zu passed, %zu failed, %zu skipped",
	         c.passed, c.failed, c.skipped);
	json_object_object_add(doc, "title", json_object_new_string(title));
	json_object_object_add(doc, "runs", runs);
	return doc;
}

int nl_scn_report_html(const char *path, const nl_scn_suite *s, nl_err *err)
{
	nl_buf b;
	json_object *doc = html_doc(s);
	nl_buf_init(&b, 0);
	if (!doc || nl_timeline_html(&b, doc) != 0) {
		json_object_put(doc);
		nl_buf_free(&b);
		return nl_err_set(err, NL_ENOMEM, "%s: out of memory", path);
	}
	json_object_put(doc);
	FILE *f = fopen(path, "w");
	int bad = !f || fwrite(b.data, 1, b.len, f) != b.len;
	if (f && fclose(f) != 0)
		bad = 1;
	nl_buf_free(&b);
	return bad ? nl_err_set(err, NL_EIO, "%s: %s", path, strerror(errno)) : 0;
}
