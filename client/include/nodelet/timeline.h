/* A run of requests as one self-contained HTML page people look at: per
 * run, a timeline on the run's clock with a row per client and object,
 * each request a mark coloured by its answer, injected faults, lease
 * renewals and Node conditions called out, and a failure drawn where it
 * happened with its diff beside it. nodelet-scenario --html and the mock's
 * GET /mockapi/v1/requests?format=html both write it (decision 0048).
 *
 * The page fetches nothing: its CSS and script are inline. Its data is one
 * JSON document in a <script type="application/json"> element, written
 * with every '<', '>' and '&' as a \u escape, so no text from a journal
 * (an object name is untrusted) can end the element; the script draws it
 * with textContent only, then checks what it drew against the data and
 * says so in <body data-selfcheck="ok"> (or "error: why"). A
 * Content-Security-Policy allows only that style and script, by hash. */
#ifndef NODELET_TIMELINE_H
#define NODELET_TIMELINE_H

#include <json-c/json.h>
#include <nodelet/buf.h>

/* Append the page for doc to out:
 *   {"title": "...",
 *    "runs": [{"name", "file", "outcome": "pass"|"fail"|"skip"|"journal",
 *              "message", "detail", "failedAt": usec,
 *              "events": [journal entries, each with "t" (usec since the
 *                         run began), or nl_timeline_condition's],
 *              "steps": [{"t", "step": "advance", "path": "steps[3]",
 *                         "where": "FILE:LINE"}]}]}
 * Every member but runs is optional. 0, or NL_ENOMEM. doc is borrowed. */
int nl_timeline_html(nl_buf *out, json_object *doc);

/* A journal's items (GET /mockapi/v1/requests) as one run named name, each
 * entry given "t", its time since the first entry's, then the conditions
 * of nodes (Node objects, or NULL), each at its lastTransitionTime (0 when
 * that is before the first entry: a journal has no older history). New
 * reference, NULL when out of memory; items and nodes are borrowed. */
json_object *nl_timeline_journal_run(json_object *items, json_object *nodes, const char *name);

/* A store visitor (the mock's mock_store_visit callback shape) collecting
 * nodes for nl_timeline_journal_run: parses json and appends it to the
 * json_object array payload; text that does not parse is skipped. 0. */
int nl_timeline_collect_object(const char *json, size_t len, void *payload);

/* One Node condition (cond: a NodeCondition, borrowed) as an event at t:
 * {"t", "kind": "condition", "node", "type", "status", "reason", "since"
 * (its lastTransitionTime)}. New reference, NULL when out of memory. */
json_object *nl_timeline_condition(const char *node, json_object *cond, int64_t t);

/* Append s with '<', '>', '&', '"' and '\'' as HTML character references. */
int nl_timeline_html_escape(nl_buf *out, const char *s);

#endif
