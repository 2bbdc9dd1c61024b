/* The agent's requests (run_internal.h): the journal, filtered to the
 * agent, and `expect: requests`. */
#include <nodelet/clock.h>
#include <nodelet/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "match.h"
#include "reqpat.h"
#include "run_internal.h"

/* The agents' User-Agent starts so; the runner's own is RUNNER_UA. */
#define AGENT_UA "nodelet/"
#define RUNNER_UA "nodelet-scenario/"

static int64_t entry_t(json_object *e)
{
	json_object *v;
	return json_object_object_get_ex(e, "t", &v) ? json_object_get_int64(v) : 0;
}

int nl_scn__run_journal(nl_scn__run *r, nl_err *err)
{
	json_object *items = NULL, *v;
	if (r->cjournal) {
		if (!(items = nl_scn_cjournal_take(r->cjournal)))
			return nl_err_set(err, NL_ENOMEM, "out of memory");
	} else {
		int rc = nl_scn_target_journal(&items, r->target, err);
		if (rc != 0)
			return rc;
	}
	for (size_t i = 0; i < json_object_array_length(items); i++) {
		json_object *e = json_object_array_get_idx(items, i);
		int64_t at = 0;
		if (json_object_object_get_ex(e, "time", &v))
			nl_time_parse(&at, json_object_get_string(v));
		json_object_object_add(e, "t", json_object_new_int64(at - r->journal_t0));
		/* The page shows everyone's, the runner's too: when it looked. */
		nl_scn__run_tl_request(r, e);
		/* The runner's setup and checks are not what is measured. */
		if (json_object_object_get_ex(e, "userAgent", &v) &&
		    strncmp(json_object_get_string(v), RUNNER_UA, strlen(RUNNER_UA)) == 0)
			continue;
		json_object_array_add(r->block, json_object_get(e));
		json_object_array_add(r->history, json_object_get(e));
	}
	json_object_put(items);
	return 0;
}

const char *nl_scn__run_sender(nl_scn__run *r, json_object *e)
{
	json_object *v;
	const char *ua;
	if (!json_object_object_get_ex(e, "userAgent", &v) || !(ua = json_object_get_string(v)) ||
	    strncmp(ua, AGENT_UA, strlen(AGENT_UA)) != 0)
		return NULL;
	if (!r->sc->several)
		return r->sc->nagents ? r->sc->agents[0].node_name : NULL;
	for (size_t i = 0; i < r->sc->nagents; i++)
		if (strcmp(ua, r->agents[i].user_agent) == 0)
			return r->sc->agents[i].node_name;
	return NULL;
}

/* Who sent e, before the request in journal lines: nothing for the only
 * agent (the single agent: form reads as before), the node name with
 * several, the User-Agent for a program. */
static void describe_sender(char *out, size_t outlen, nl_scn__run *r, json_object *e)
{
	const char *who = nl_scn__run_sender(r, e);
	json_object *v;
	out[0] = '\0';
	if (who && r->sc->several)
		snprintf(out, outlen, "%s: ", who);
	else if (!who)
		snprintf(out, outlen, "%s: ",
		         json_object_object_get_ex(e, "userAgent", &v) ? json_object_get_string(v)
		                                                       : "(no User-Agent)");
}

static void describe_at(char *out, size_t outlen, nl_scn__run *r, json_object *e)
{
	char d[NL_DURATION_BUFSZ], what[400], who[300];
	json_object *fault;
	nl_duration_format(d, entry_t(e));
	nl_scn_reqpat_describe(what, sizeof(what), e, 0, 0);
	describe_sender(who, sizeof(who), r, e);
	if (json_object_object_get_ex(e, "fault", &fault) && fault)
		snprintf(out, outlen, "@%s %s%s (fault %s)", d, who, what,
		         json_object_get_string(fault));
	else
		snprintf(out, outlen, "@%s %s%s", d, who, what);
}

void nl_scn__run_journal_tail(nl_scn__run *r, nl_buf *out, size_t n)
{
	size_t len = json_object_array_length(r->history);
	for (size_t i = len > n ? len - n : 0; i < len; i++) {
		char line[512];
		describe_at(line, sizeof(line), r, json_object_array_get_idx(r->history, i));
		nl_buf_printf(out, "  %s\n", line);
	}
}

char *nl_scn__run_journal_text(nl_scn__run *r)
{
	nl_buf b;
	nl_buf_init(&b, 0);
	/* A program runs on real time, so its requests' times (and the
	 * agents' after it) differ from run to run: the journal says so on its
	 * first line, and the determinism check leaves such journals out. */
	if (!r->fake)
		nl_buf_adds(&b, NL_SCN_JOURNAL_CLUSTER "\n");
	else if (r->sc->programs)
		nl_buf_adds(&b, NL_SCN_JOURNAL_REAL_TIME "\n");
	for (size_t i = 0; i < json_object_array_length(r->history); i++) {
		char line[512];
		describe_at(line, sizeof(line), r, json_object_array_get_idx(r->history, i));
		nl_buf_printf(&b, "%s\n", line);
	}
	nl_buf_add(&b, "", 0);
	return nl_buf_detach(&b, NULL);
}

/* --- patterns -------------------------------------------------------------------------------- */

/* A pattern (string or journal-field mapping) against one entry. */
static int pattern_matches(json_object *pat, json_object *e, int64_t prev_t)
{
	nl_scn_reqpat p;
	if (json_object_is_type(pat, json_type_object))
		return nl_scn_match_ok(pat, e, 1);
	if (nl_scn_reqpat_parse(&p, json_object_get_string(pat), NULL) != 0)
		return 0;
	return nl_scn_reqpat_match(&p, e, prev_t);
}

static json_object *pattern_text(json_object *pat)
{
	if (json_object_is_type(pat, json_type_string))
		return json_object_get(pat);
	return json_object_new_string(json_object_to_json_string_ext(pat, JSON_C_TO_STRING_PLAIN));
}

static json_object *entry_text(json_object *e, int64_t prev_t)
{
	char line[512];
	nl_scn_reqpat_describe(line, sizeof(line), e, prev_t, 1);
	return json_object_new_string(line);
}

/* The block as lines: an entry its pattern matches prints as the pattern,
 * so the diff shows only what differs. */
static int check_exactly(nl_scn__run *r, json_object *pats, char *why, size_t whylen,
                         nl_buf *detail)
{
	json_object *block = r->block, *expected = json_object_new_array(),
	            *actual = json_object_new_array();
	size_t np = json_object_array_length(pats), ne = json_object_array_length(block);
	int64_t prev = r->mark_t;
	int bad = np != ne;
	size_t first_bad = np < ne ? np : ne;
	for (size_t i = 0; i < np; i++)
		json_object_array_add(expected, pattern_text(json_object_array_get_idx(pats, i)));
	for (size_t i = 0; i < ne; i++) {
		json_object *e = json_object_array_get_idx(block, i);
		json_object *p = i < np ? json_object_array_get_idx(pats, i) : NULL;
		if (p && pattern_matches(p, e, prev)) {
			json_object_array_add(actual, pattern_text(p));
		} else {
			if (!bad || i < first_bad)
				first_bad = i;
			bad = 1;
			json_object_array_add(actual, entry_text(e, prev));
		}
		prev = entry_t(e);
	}
	if (bad) {
		nl_scn_diff(detail, expected, actual, 1);
		if (first_bad < np && first_bad < ne)
			snprintf(
			    why, whylen, "request %zu: expected \"%s\", got \"%s\"", first_bad + 1,
			    json_object_get_string(json_object_array_get_idx(expected, first_bad)),
			    json_object_get_string(json_object_array_get_idx(actual, first_bad)));
		else
			snprintf(why, whylen, "expected %zu request%s, the agent sent %zu", np,
			         np == 1 ? "" : "s", ne);
	}
	json_object_put(expected);
	json_object_put(actual);
	return bad;
}

static void list_block(nl_scn__run *r, nl_buf *detail)
{
	int64_t prev = r->mark_t;
	nl_buf_adds(detail, "the agent's requests since the previous expect:\n");
	for (size_t i = 0; i < json_object_array_length(r->block); i++) {
		json_object *e = json_object_array_get_idx(r->block, i);
		json_object *t = entry_text(e, prev);
		nl_buf_printf(detail, "  %s\n", json_object_get_string(t));
		json_object_put(t);
		prev = entry_t(e);
	}
}

/* Each pattern, in order, somewhere after the previous one. */
static int check_contains(nl_scn__run *r, json_object *pats, char *why, size_t whylen,
                          nl_buf *detail)
{
	size_t at = 0, ne = json_object_array_length(r->block);
	int64_t prev = r->mark_t;
	for (size_t i = 0; i < json_object_array_length(pats); i++) {
		json_object *p = json_object_array_get_idx(pats, i);
		int found = 0;
		for (; at < ne && !found; at++) {
			json_object *e = json_object_array_get_idx(r->block, at);
			found = pattern_matches(p, e, prev);
			prev = entry_t(e);
		}
		if (!found) {
			json_object *t = pattern_text(p);
			snprintf(why, whylen, "no request \"%s\"%s", json_object_get_string(t),
			         i ? " after the ones before it" : "");
			json_object_put(t);
			list_block(r, detail);
			return 1;
		}
	}
	return 0;
}

static int check_none(nl_scn__run *r, json_object *pats, char *why, size_t whylen, nl_buf *detail)
{
	int64_t prev = r->mark_t;
	for (size_t i = 0; i < json_object_array_length(r->block); i++) {
		json_object *e = json_object_array_get_idx(r->block, i);
		for (size_t j = 0; j < json_object_array_length(pats); j++) {
			json_object *p = json_object_array_get_idx(pats, j);
			if (pattern_matches(p, e, prev)) {
				json_object *t = entry_text(e, prev);
				snprintf(why, whylen, "unexpected request \"%s\"",
				         json_object_get_string(t));
				json_object_put(t);
				list_block(r, detail);
				return 1;
			}
		}
		prev = entry_t(e);
	}
	return 0;
}

static int check_count(nl_scn__run *r, json_object *counts, char *why, size_t whylen,
                       nl_buf *detail)
{
	json_object_object_foreach(counts, key, want)
	{
		nl_scn_reqpat p;
		int64_t n = 0, prev = r->mark_t;
		int all = strcmp(key, "*") == 0;
		if (!all && nl_scn_reqpat_parse(&p, key, NULL) != 0)
			continue;
		for (size_t i = 0; i < json_object_array_length(r->block); i++) {
			json_object *e = json_object_array_get_idx(r->block, i);
			n += all || nl_scn_reqpat_match(&p, e, prev);
			prev = entry_t(e);
		}
		json_object *got = json_object_new_int64(n);
		int ok = nl_scn_match_ok(want, got, 1);
		json_object_put(got);
		if (!ok) {
			snprintf(why, whylen, "%s: expected %s request%s, got %lld",
			         all ? "all requests" : key, json_object_to_json_string(want),
			         json_object_is_type(want, json_type_int) &&
			                 json_object_get_int64(want) == 1
			             ? ""
			             : "s",
			         (long long)n);
			list_block(r, detail);
			return 1;
		}
	}
	return 0;
}

static int check_requests(nl_scn__run *r, json_object *spec, char *why, size_t whylen,
                          nl_buf *detail)
{
	json_object *x;
	if (json_object_is_type(spec, json_type_array))
		return check_exactly(r, spec, why, whylen, detail);
	if (json_object_object_get_ex(spec, "exactly", &x) &&
	    check_exactly(r, x, why, whylen, detail))
		return 1;
	if (json_object_object_get_ex(spec, "contains", &x) &&
	    check_contains(r, x, why, whylen, detail))
		return 1;
	if (json_object_object_get_ex(spec, "none", &x) && check_none(r, x, why, whylen, detail))
		return 1;
	if (json_object_object_get_ex(spec, "count", &x) && check_count(r, x, why, whylen, detail))
		return 1;
	return 0;
}

/* With `agent:` beside the expect, only that agent's requests count. */
int nl_scn__run_check_requests(nl_scn__run *r, const nl_scn_step *st, json_object *spec, char *why,
                               size_t whylen, nl_buf *detail)
{
	if (st->agent < 0)
		return check_requests(r, spec, why, whylen, detail);
	const char *name = r->sc->agents[st->agent].node_name;
	json_object *all = r->block, *mine = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(all); i++) {
		json_object *e = json_object_array_get_idx(all, i);
		const char *who = nl_scn__run_sender(r, e);
		if (who && strcmp(who, name) == 0)
			json_object_array_add(mine, json_object_get(e));
	}
	r->block = mine;
	int rc = check_requests(r, spec, why, whylen, detail);
	r->block = all;
	json_object_put(mine);
	return rc;
}
