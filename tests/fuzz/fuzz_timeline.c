/* The report page (nodelet/timeline.h) over text chosen by the network:
 * the input is a journal entry's fields (user agent, name, namespace,
 * reason, fault, path, time, a Node's name and condition), split at NUL
 * bytes, put through nl_timeline_journal_run as the mock's journal page
 * does; and, when the whole input is JSON, that document rendered as is
 * (any shape: runs not a list, titles not strings). Whatever the text, the
 * page keeps exactly its two script elements (no "<script" or "</script"
 * in any case beyond them), no comment opener, and a title without markup. */
#include <nodelet/buf.h>
#include <nodelet/timeline.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fuzz.h"

static size_t count_ci(const char *hay, const char *needle)
{
	size_t n = 0, k = strlen(needle);
	for (const char *p = hay; *p; p++)
		if (strncasecmp(p, needle, k) == 0)
			n++;
	return n;
}

static void check_page(json_object *doc)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	FUZZ_CHECK(nl_timeline_html(&b, doc) == 0);
	FUZZ_CHECK(count_ci(b.data, "<script") == 2);
	FUZZ_CHECK(count_ci(b.data, "</script") == 2);
	FUZZ_CHECK(strstr(b.data, "<!--") == NULL);
	const char *t = strstr(b.data, "<title>"), *end = t ? strstr(t, "</title>") : NULL;
	FUZZ_CHECK(t && end);
	for (const char *p = t + 7; p < end; p++)
		FUZZ_CHECK(*p != '<' && *p != '>');
	nl_buf_free(&b);
}

/* The next NUL-separated field of the input ("" once it is used up). */
static char *field(const uint8_t **p, const uint8_t *end)
{
	const uint8_t *nul = memchr(*p, 0, (size_t)(end - *p));
	size_t n = (size_t)((nul ? nul : end) - *p);
	char *s = fuzz_strndup(*p, n);
	*p += nul ? n + 1 : n;
	return s;
}

static void journal_page(const uint8_t *data, size_t size)
{
	static const char *keys[] = {"userAgent", "name", "namespace", "reason",
	                             "fault",     "path", "time"};
	const uint8_t *p = data, *end = data + size;
	json_object *items = json_object_new_array(), *e = json_object_new_object();
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		char *s = field(&p, end);
		json_object_object_add(e, keys[i], json_object_new_string(s));
		free(s);
	}
	json_object_object_add(e, "code", json_object_new_int(size ? data[0] * 3 : 200));
	json_object_array_add(items, e);

	/* A Node with one condition of the input's text. */
	char *node = field(&p, end), *type = field(&p, end), *status = field(&p, end),
	     *since = field(&p, end);
	json_object *n = json_object_new_object(), *md = json_object_new_object(),
	            *st = json_object_new_object(), *conds = json_object_new_array(),
	            *c = json_object_new_object(), *nodes = json_object_new_array();
	json_object_object_add(md, "name", json_object_new_string(node));
	json_object_object_add(n, "metadata", md);
	json_object_object_add(c, "type", json_object_new_string(type));
	json_object_object_add(c, "status", json_object_new_string(status));
	json_object_object_add(c, "lastTransitionTime", json_object_new_string(since));
	json_object_array_add(conds, c);
	json_object_object_add(st, "conditions", conds);
	json_object_object_add(n, "status", st);
	json_object_array_add(nodes, n);

	json_object *run = nl_timeline_journal_run(items, nodes, node);
	FUZZ_CHECK(run != NULL);
	json_object *ev = json_object_object_get(run, "events");
	FUZZ_CHECK(json_object_array_length(ev) == 2);
	for (size_t i = 0; i < 2; i++)
		FUZZ_CHECK(json_object_get_int64(
		               json_object_object_get(json_object_array_get_idx(ev, i), "t")) >= 0);
	json_object *doc = json_object_new_object(), *runs = json_object_new_array();
	json_object_array_add(runs, run);
	json_object_object_add(doc, "runs", runs);
	json_object_object_add(doc, "title", json_object_new_string(status));
	check_page(doc);
	json_object_put(doc);
	json_object_put(items);
	json_object_put(nodes);
	free(node);
	free(type);
	free(status);
	free(since);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	journal_page(data, size);
	char *text = fuzz_strndup(data, size);
	json_object *doc = json_tokener_parse(text);
	free(text);
	if (doc) {
		check_page(doc);
		json_object_put(doc);
	}
	return 0;
}
