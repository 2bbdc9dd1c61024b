/* expect steps (run_internal.h): each assertion kind, and `within`. */
#include <nodelet/doc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jpath.h"
#include "match.h"
#include "objects.h"
#include "run_internal.h"

#define RETRY_USEC NL_USEC_PER_SEC
/* Files bigger than this are compared by existence only. */
#define MAX_FILE (1u << 20)

/* One attempt's failure: a summary line and the detail. */
typedef struct {
	char path[512]; /* the document path of the failed assertion */
	char why[1024];
	nl_buf detail;
} failure;

__attribute__((format(printf, 3, 4))) static int fail(failure *f, const char *path, const char *fmt,
                                                      ...)
{
	va_list ap;
	snprintf(f->path, sizeof(f->path), "%s", path);
	va_start(ap, fmt);
	vsnprintf(f->why, sizeof(f->why), fmt, ap);
	va_end(ap);
	return 1;
}

static const char *str(json_object *obj, const char *key)
{
	json_object *v;
	return json_object_object_get_ex(obj, key, &v) && json_object_is_type(v, json_type_string)
	           ? json_object_get_string(v)
	           : NULL;
}

/* expected vs actual: 0 when they match, else the differences and a diff
 * into f->detail and 1. */
static int compare(failure *f, const char *path, const char *what, json_object *expected,
                   json_object *actual, int present)
{
	nl_scn_mismatches m = {0};
	int n = nl_scn_match(&m, "", expected, actual, present);
	if (n == 0)
		return 0;
	nl_buf_adds(&f->detail, "differences:\n");
	for (size_t i = 0; i < m.n; i++)
		nl_buf_printf(&f->detail, "  %s%s%s\n", m.items[i].path,
		              m.items[i].path[0] ? ": " : "", m.items[i].message);
	nl_scn_diff(&f->detail, expected, actual, present);
	if (n == 1)
		fail(f, path, "%s: %s%s%s", what, m.items[0].path, m.items[0].path[0] ? ": " : "",
		     m.items[0].message);
	else
		fail(f, path, "%s: %d differences", what, n);
	nl_scn_mismatches_clear(&m);
	return 1;
}

/* --- objects ------------------------------------------------------------------------------- */

static int check_fields(failure *f, const char *path, const char *what, json_object *fields,
                        json_object *obj)
{
	json_object *expected = json_object_new_object(), *actual = json_object_new_object();
	int rc = 0;
	json_object_object_foreach(fields, key, val)
	{
		json_object *v = NULL;
		int found = 0;
		nl_err err = {0};
		if (nl_scn_jpath_lookup(&v, &found, obj, key, &err) != 0) {
			rc = fail(f, path, "%s: %s", what, err.msg);
			break;
		}
		json_object_object_add(expected, key, json_object_get(val));
		if (found)
			json_object_object_add(actual, key, json_object_get(v));
	}
	if (rc == 0)
		rc = compare(f, path, what, expected, actual, 1);
	json_object_put(expected);
	json_object_put(actual);
	return rc;
}

static int check_object(nl_scn__run *r, failure *f, const char *path, json_object *spec)
{
	nl_scn_objref ref;
	nl_result res = NL_RESULT_INIT;
	json_object *obj = NULL, *x;
	char what[600];
	int rc;
	nl_scn_objref_from_ref(&ref, spec);
	nl_scn_objref_describe(what, sizeof(what), &ref);
	if ((rc = nl_scn_obj_get(&obj, r->client, &ref, &res)) != 0) {
		fail(f, path, "%s: %s", what,
		     rc == NL_ENOTFOUND ? "does not exist"
		     : res.message[0]   ? res.message
		                        : nl_strerror(rc));
		nl_result_clear(&res);
		return 1;
	}
	nl_result_clear(&res);
	rc = 0;
	if (json_object_object_get_ex(spec, "match", &x))
		rc = compare(f, path, what, x, obj, 1);
	if (rc == 0 && json_object_object_get_ex(spec, "fields", &x))
		rc = check_fields(f, path, what, x, obj);
	if (rc == 0 && json_object_object_get_ex(spec, "as", &x))
		json_object_object_add(r->vars, json_object_get_string(x), json_object_get(obj));
	json_object_put(obj);
	return rc;
}

static int check_absent(nl_scn__run *r, failure *f, const char *path, json_object *spec)
{
	nl_scn_objref ref;
	nl_result res = NL_RESULT_INIT;
	json_object *obj = NULL;
	char what[600];
	nl_scn_objref_from_ref(&ref, spec);
	nl_scn_objref_describe(what, sizeof(what), &ref);
	int rc = nl_scn_obj_get(&obj, r->client, &ref, &res);
	if (rc == 0) {
		nl_buf_adds(&f->detail, "it is:\n");
		nl_scn_render(&f->detail, obj, 2);
		json_object_put(obj);
		rc = fail(f, path, "%s exists; expected it to be absent", what);
	} else if (rc != NL_ENOTFOUND) {
		rc = fail(f, path, "%s: %s", what, res.message);
	} else {
		rc = 0;
	}
	nl_result_clear(&res);
	return rc;
}

static int check_list(nl_scn__run *r, failure *f, const char *path, json_object *spec)
{
	const nl_resource *res_kind = nl_scn_kind(str(spec, "kind"), str(spec, "apiVersion"));
	nl_result res = NL_RESULT_INIT;
	json_object *list = NULL, *items, *x;
	char what[300];
	const char *ns = str(spec, "namespace");
	snprintf(what, sizeof(what), "%s list%s%s", res_kind->kind, ns ? " in " : "", ns ? ns : "");
	int rc = nl_scn_obj_list(&list, r->client, res_kind, ns, str(spec, "labelSelector"),
	                         str(spec, "fieldSelector"), &res);
	if (rc != 0) {
		fail(f, path, "%s: %s", what, res.message);
		nl_result_clear(&res);
		return 1;
	}
	nl_result_clear(&res);
	items = json_object_object_get(list, "items");
	rc = 0;
	if (json_object_object_get_ex(spec, "count", &x)) {
		json_object *n = json_object_new_int((int)json_object_array_length(items));
		if (!nl_scn_match_ok(x, n, 1)) {
			nl_scn_render(&f->detail, items, 0);
			rc = fail(f, path, "%s: expected %s items, got %zu", what,
			          json_object_to_json_string(x), json_object_array_length(items));
		}
		json_object_put(n);
	}
	if (rc == 0 && json_object_object_get_ex(spec, "items", &x))
		rc = compare(f, path, what, x, items, 1);
	if (rc == 0 && json_object_object_get_ex(spec, "contains", &x)) {
		json_object *op = json_object_new_object();
		json_object_object_add(op, "$contains", json_object_get(x));
		rc = compare(f, path, what, op, items, 1);
		json_object_put(op);
	}
	json_object_put(list);
	return rc;
}

static int each(nl_scn__run *r, failure *f, const char *path, json_object *v,
                int (*fn)(nl_scn__run *, failure *, const char *, json_object *))
{
	char p[512];
	if (!json_object_is_type(v, json_type_array))
		return fn(r, f, path, v);
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		snprintf(p, sizeof(p), "%s[%zu]", path, i);
		if (fn(r, f, p, json_object_array_get_idx(v, i)))
			return 1;
	}
	return 0;
}

/* --- the agent, files, errors, events -------------------------------------------------------- */

static int check_agent(nl_scn__run *r, failure *f, const char *path, json_object *spec)
{
	json_object *state = nl_scn_agent_state(nl_scn__run_agent_of(r, r->step)->agent);
	int rc = compare(f, path, "the agent", spec, state, 1);
	json_object_put(state);
	return rc;
}

static json_object *file_state(const char *dir, const char *rel)
{
	char path[PATH_MAX + 256];
	struct stat st;
	json_object *s = json_object_new_object(), *doc = NULL;
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	int exists = stat(path, &st) == 0;
	json_object_object_add(s, "exists", json_object_new_boolean(exists));
	if (!exists || !S_ISREG(st.st_mode))
		return s;
	char *text = NULL;
	size_t len = 0;
	if (nl_file_read(&text, &len, path, MAX_FILE, NULL) != 0)
		return s;
	json_object_object_add(s, "content", json_object_new_string_len(text, (int)len));
	if (len && nl_doc_parse_one(&doc, text, len, rel, NULL) == 0)
		json_object_object_add(s, "json", doc);
	free(text);
	return s;
}

static int check_files(nl_scn__run *r, failure *f, const char *path, json_object *spec)
{
	json_object_object_foreach(spec, key, val)
	{
		char what[400];
		json_object *want = val,
		            *actual = file_state(nl_scn__run_agent_of(r, r->step)->dyn_dir, key);
		if (json_object_is_type(val, json_type_boolean)) {
			want = json_object_new_object();
			json_object_object_add(want, "exists", json_object_get(val));
		} else {
			json_object_get(want);
		}
		snprintf(what, sizeof(what), "file %s", key);
		int rc = compare(f, path, what, want, actual, 1);
		json_object_put(want);
		json_object_put(actual);
		if (rc)
			return 1;
	}
	return 0;
}

static int check_error(nl_scn__run *r, failure *f, const char *path, json_object *spec)
{
	json_object *e = r->error;
	const char *code = str(e, "code"), *reason = str(e, "reason");
	if (!spec) {
		if (!e)
			return 0;
		return fail(f, path, "expected no error, got %s", str(e, "message"));
	}
	if (!e) {
		nl_buf_adds(&f->detail, "the step succeeded\n");
		return fail(f, path, "expected an error (%s), the step succeeded",
		            json_object_is_type(spec, json_type_string)
		                ? json_object_get_string(spec)
		                : json_object_to_json_string_ext(spec, JSON_C_TO_STRING_PLAIN));
	}
	if (!json_object_is_type(spec, json_type_string))
		return compare(f, path, "the error", spec, e, 1);
	const char *want = json_object_get_string(spec);
	if ((reason && strcmp(reason, want) == 0) || (code && strcmp(code, want) == 0))
		return 0;
	nl_scn_render(&f->detail, e, 2);
	return fail(f, path, "expected the error %s, got %s (%s)", want, reason ? reason : code,
	            str(e, "message"));
}

static int check_events(nl_scn__run *r, failure *f, const char *path, json_object *spec)
{
	return compare(f, path, "the watch events", spec, r->events, r->events != NULL);
}

/* --- one attempt ---------------------------------------------------------------------------- */

static int attempt(nl_scn__run *r, const nl_scn_step *st, json_object *spec, failure *f)
{
	char path[256];
	nl_err err = {0};
	if (nl_scn__run_journal(r, &err) != 0)
		return fail(f, st->path, "%s", err.msg);
	json_object_object_foreach(spec, key, val)
	{
		int rc = 0;
		snprintf(path, sizeof(path), "%s.expect.%s", st->path, key);
		if (strcmp(key, "object") == 0 || strcmp(key, "objects") == 0)
			rc = each(r, f, path, val, check_object);
		else if (strcmp(key, "absent") == 0)
			rc = each(r, f, path, val, check_absent);
		else if (strcmp(key, "list") == 0)
			rc = each(r, f, path, val, check_list);
		else if (strcmp(key, "requests") == 0)
			rc = nl_scn__run_check_requests(r, st, val, f->why, sizeof(f->why),
			                                &f->detail)
			         ? (snprintf(f->path, sizeof(f->path), "%s", path), 1)
			         : 0;
		else if (strcmp(key, "agent") == 0)
			rc = check_agent(r, f, path, val);
		else if (strcmp(key, "files") == 0)
			rc = check_files(r, f, path, val);
		else if (strcmp(key, "error") == 0)
			rc = check_error(r, f, path, val);
		else if (strcmp(key, "events") == 0)
			rc = check_events(r, f, path, val);
		if (rc)
			return 1;
	}
	return 0;
}

int nl_scn__run_expect(nl_scn__run *r, const nl_scn_step *st)
{
	failure f;
	json_object *spec = NULL;
	int64_t start = nl_scn__run_now(r);
	int rc;
	if (r->error && !json_object_object_get_ex(st->arg, "error", NULL)) {
		const nl_scn_step *bad = r->error_step;
		return nl_scn__run_fail(
		    r, bad, NULL, "%s failed: %s", nl_scn_step_name(bad->kind),
		    json_object_get_string(json_object_object_get(r->error, "message")));
	}
	memset(&f, 0, sizeof(f));
	nl_buf_init(&f.detail, 0);
	for (;;) {
		if (nl_scn__run_expand(&spec, r, st, NULL, st->arg)) {
			nl_buf_free(&f.detail);
			return 1;
		}
		f.why[0] = '\0';
		nl_buf_reset(&f.detail);
		rc = attempt(r, st, spec, &f);
		json_object_put(spec);
		spec = NULL;
		int64_t waited = nl_scn__run_now(r) - start;
		if (rc == 0 || waited >= st->usec)
			break;
		int64_t step = st->usec - waited < RETRY_USEC ? st->usec - waited : RETRY_USEC;
		nl_scn__run_pass_time(r, step);
	}
	if (rc != 0) {
		nl_scn__run_fail(r, st, f.path[0] ? f.path : NULL, "%s", f.why);
		if (f.detail.data)
			nl_buf_adds(&r->detail, f.detail.data);
	}
	nl_buf_free(&f.detail);
	/* The next expect looks at what happened after this one. */
	json_object_put(r->block);
	r->block = json_object_new_array();
	r->mark_t = nl_scn__run_now(r);
	json_object_put(r->error);
	r->error = NULL;
	/* The sleeps are the scenario clock's: one agent clears them all. */
	if (r->sc->nagents)
		nl_scn_agent_clear_sleeps(r->agents[0].agent);
	return rc;
}
