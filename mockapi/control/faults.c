/* Fault schema, matcher and registry (faults.h). */
#include "faults.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mock_fault {
	struct mock_fault *next;
	char id[MOCK_FAULT_ID_MAX];
	int has_id; /* the spec named it */
	/* match; NULL = any */
	char *verb, *resource, *subresource, *group, *ns, *name, *user_agent, *user;
	uint64_t after;
	/* action */
	mock_fault_kind kind;
	unsigned delay_lo, delay_hi;
	int status, retry_after;
	char *body;
	size_t truncate;
	char *malformed;
	mock_watch_fault watch;
	/* budget and counters */
	uint64_t times; /* 0 = until removed */
	double probability;
	uint64_t matched, fired;
	json_object *match_json, *action_json; /* as given, for listing */
};

struct mock_faults {
	pthread_mutex_t lock;
	mock_fault *head;
	/* Changed under the lock; read without it by mock_faults_decide, so
	 * that requests do not take the lock while no fault exists. */
	atomic_size_t n;
	uint64_t next_id;
	uint64_t seed, prng;
};

static const char *const audit_verbs[] = {"get",    "list",  "watch",  "create",
                                          "update", "patch", "delete", "deletecollection",
                                          "post",   "put",   "head",   "options"};

/* ------------------------------------------------------------------------
 * Schema */

static int bad(nl_err *err, const char *field, const char *problem)
{
	return nl_err_set(err, NL_EINVALID, "%s: %s", field, problem);
}

static int get_uint(uint64_t *out, json_object *v, uint64_t max, const char *field, nl_err *err)
{
	if (!json_object_is_type(v, json_type_int))
		return bad(err, field, "must be an integer");
	int64_t x = json_object_get_int64(v);
	if (x < 0 || (uint64_t)x > max)
		return nl_err_set(err, NL_EINVALID, "%s: must be between 0 and %llu", field,
		                  (unsigned long long)max);
	*out = (uint64_t)x;
	return 0;
}

static int get_str(char **out, json_object *v, const char *field, nl_err *err)
{
	if (!json_object_is_type(v, json_type_string))
		return bad(err, field, "must be a string");
	char *s = strdup(json_object_get_string(v));
	if (!s)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	*out = s;
	return 0;
}

static int get_true(int *out, json_object *v, const char *field, nl_err *err)
{
	if (!json_object_is_type(v, json_type_boolean))
		return bad(err, field, "must be a boolean");
	*out = json_object_get_boolean(v);
	return 0;
}

static int known_verb(const char *v)
{
	for (size_t i = 0; i < sizeof(audit_verbs) / sizeof(audit_verbs[0]); i++)
		if (strcmp(audit_verbs[i], v) == 0)
			return 1;
	return 0;
}

/* "nodes" or "nodes/status". */
static int parse_resource(mock_fault *f, json_object *v, nl_err *err)
{
	char *s = NULL;
	int rc = get_str(&s, v, "match.resource", err);
	if (rc != 0)
		return rc;
	char *slash = strchr(s, '/');
	if (!*s || (slash && (slash == s || !slash[1] || strchr(slash + 1, '/')))) {
		free(s);
		return bad(err, "match.resource",
		           "must be \"<resource>\" or \"<resource>/<subresource>\"");
	}
	if (slash) {
		*slash = '\0';
		if (!(f->subresource = strdup(slash + 1))) {
			free(s);
			return nl_err_set(err, NL_ENOMEM, "out of memory");
		}
	} else if (!(f->subresource = strdup(""))) {
		free(s);
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	}
	f->resource = s;
	return 0;
}

static int parse_match(mock_fault *f, json_object *m, nl_err *err)
{
	if (!json_object_is_type(m, json_type_object))
		return bad(err, "match", "must be an object");
	json_object_object_foreach(m, key, v)
	{
		int rc;
		if (strcmp(key, "verb") == 0) {
			rc = get_str(&f->verb, v, "match.verb", err);
			if (rc == 0 && !known_verb(f->verb))
				rc =
				    bad(err, "match.verb",
				        "must be one of get, list, watch, create, update, patch, "
				        "delete, deletecollection (or post, put, head, options for "
				        "non-resource paths)");
		} else if (strcmp(key, "resource") == 0) {
			rc = parse_resource(f, v, err);
		} else if (strcmp(key, "group") == 0) {
			rc = get_str(&f->group, v, "match.group", err);
		} else if (strcmp(key, "namespace") == 0) {
			rc = get_str(&f->ns, v, "match.namespace", err);
		} else if (strcmp(key, "name") == 0) {
			rc = get_str(&f->name, v, "match.name", err);
		} else if (strcmp(key, "userAgent") == 0) {
			rc = get_str(&f->user_agent, v, "match.userAgent", err);
		} else if (strcmp(key, "user") == 0) {
			rc = get_str(&f->user, v, "match.user", err);
		} else if (strcmp(key, "after") == 0) {
			rc = get_uint(&f->after, v, UINT32_MAX, "match.after", err);
		} else {
			char field[128];
			snprintf(field, sizeof(field), "match.%s", key);
			rc = bad(err, field, "unknown field");
		}
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int parse_delay(mock_fault *f, json_object *v, nl_err *err)
{
	uint64_t lo, hi;
	if (json_object_is_type(v, json_type_array)) {
		if (json_object_array_length(v) != 2)
			return bad(err, "action.delayMs", "a range must be [min, max]");
		if (get_uint(&lo, json_object_array_get_idx(v, 0), MOCK_FAULT_MAX_DELAY_MS,
		             "action.delayMs[0]", err) ||
		    get_uint(&hi, json_object_array_get_idx(v, 1), MOCK_FAULT_MAX_DELAY_MS,
		             "action.delayMs[1]", err))
			return NL_EINVALID;
		if (lo > hi)
			return bad(err, "action.delayMs", "min must not exceed max");
	} else {
		if (get_uint(&lo, v, MOCK_FAULT_MAX_DELAY_MS, "action.delayMs", err))
			return NL_EINVALID;
		hi = lo;
	}
	f->delay_lo = (unsigned)lo;
	f->delay_hi = (unsigned)hi;
	return 0;
}

static int parse_watch(mock_fault *f, json_object *w, nl_err *err)
{
	int n = 0;
	if (!json_object_is_type(w, json_type_object))
		return bad(err, "action.watch", "must be an object");
	json_object_object_foreach(w, key, v)
	{
		uint64_t u;
		int b = 0, rc;
		if (strcmp(key, "closeAfterEvents") == 0) {
			rc = get_uint(&u, v, UINT32_MAX, "action.watch.closeAfterEvents", err);
			if (rc == 0 && u == 0)
				rc =
				    bad(err, "action.watch.closeAfterEvents", "must be at least 1");
			f->watch.close_after_events = (unsigned)u;
			n += rc == 0;
		} else if (strcmp(key, "expire") == 0 || strcmp(key, "stall") == 0) {
			char field[64];
			snprintf(field, sizeof(field), "action.watch.%s", key);
			rc = get_true(&b, v, field, err);
			if (rc == 0 && !b)
				rc = bad(err, field, "must be true");
			*(key[0] == 'e' ? &f->watch.expire : &f->watch.stall) = 1;
			n += rc == 0;
		} else {
			char field[128];
			snprintf(field, sizeof(field), "action.watch.%s", key);
			rc = bad(err, field, "unknown field");
		}
		if (rc != 0)
			return rc;
	}
	if (n != 1)
		return bad(err, "action.watch",
		           "must hold exactly one of closeAfterEvents, expire, stall");
	return 0;
}

/* Record one replacing action; they are mutually exclusive. */
static int set_kind(mock_fault *f, mock_fault_kind k, nl_err *err)
{
	if (f->kind != MOCK_FAULT_DELAY_ONLY && f->kind != k)
		return bad(err, "action",
		           "status, drop, truncate, malformed and watch exclude each other");
	f->kind = k;
	return 0;
}

static int parse_action_field(mock_fault *f, const char *key, json_object *v, int *has_delay,
                              nl_err *err)
{
	uint64_t u;
	int b = 0;
	if (strcmp(key, "status") == 0) {
		if (get_uint(&u, v, 599, "action.status", err))
			return NL_EINVALID;
		if (u < 100)
			return bad(err, "action.status", "must be between 100 and 599");
		f->status = (int)u;
		return set_kind(f, MOCK_FAULT_STATUS, err);
	}
	if (strcmp(key, "retryAfterSeconds") == 0) {
		if (get_uint(&u, v, 86400, "action.retryAfterSeconds", err))
			return NL_EINVALID;
		f->retry_after = (int)u;
		return 0;
	}
	if (strcmp(key, "body") == 0) {
		const char *text =
		    json_object_is_type(v, json_type_string)
		        ? json_object_get_string(v)
		        : json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
		                                                JSON_C_TO_STRING_NOSLASHESCAPE);
		return (f->body = strdup(text)) ? 0 : nl_err_set(err, NL_ENOMEM, "out of memory");
	}
	if (strcmp(key, "delayMs") == 0) {
		*has_delay = 1;
		return parse_delay(f, v, err);
	}
	if (strcmp(key, "drop") == 0) {
		if (get_true(&b, v, "action.drop", err))
			return NL_EINVALID;
		return b ? set_kind(f, MOCK_FAULT_DROP, err) : 0;
	}
	if (strcmp(key, "truncate") == 0) {
		if (get_uint(&u, v, UINT32_MAX, "action.truncate", err))
			return NL_EINVALID;
		f->truncate = (size_t)u;
		return set_kind(f, MOCK_FAULT_TRUNCATE, err);
	}
	if (strcmp(key, "malformed") == 0) {
		if (json_object_is_type(v, json_type_string)) {
			if (!(f->malformed = strdup(json_object_get_string(v))))
				return nl_err_set(err, NL_ENOMEM, "out of memory");
		} else if (get_true(&b, v, "action.malformed", err) || !b) {
			return bad(err, "action.malformed", "must be true or a string");
		}
		return set_kind(f, MOCK_FAULT_MALFORMED, err);
	}
	if (strcmp(key, "watch") == 0) {
		int rc = parse_watch(f, v, err);
		return rc ? rc : set_kind(f, MOCK_FAULT_WATCH, err);
	}
	char field[128];
	snprintf(field, sizeof(field), "action.%s", key);
	return bad(err, field, "unknown field");
}

static int parse_action(mock_fault *f, json_object *a, nl_err *err)
{
	int has_delay = 0;
	if (!json_object_is_type(a, json_type_object))
		return bad(err, "action", "must be an object");
	json_object_object_foreach(a, key, v)
	{
		int rc = parse_action_field(f, key, v, &has_delay, err);
		if (rc != 0)
			return rc;
	}
	if (f->kind == MOCK_FAULT_DELAY_ONLY && !has_delay)
		return bad(err, "action",
		           "needs one of status, delayMs, drop, truncate, malformed, watch");
	if ((f->body || f->retry_after) && f->kind != MOCK_FAULT_STATUS)
		return bad(err, "action", "body and retryAfterSeconds need status");
	if (f->kind == MOCK_FAULT_WATCH && f->verb && strcmp(f->verb, "watch") != 0)
		return bad(err, "action.watch", "only applies to match.verb \"watch\"");
	return 0;
}

static int valid_id(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n >= MOCK_FAULT_ID_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
		      ((s[i] == '-' || s[i] == '.' || s[i] == '_') && i > 0)))
			return 0;
	return 1;
}

static int parse_budget(mock_fault *f, const char *key, json_object *v, nl_err *err)
{
	if (strcmp(key, "times") == 0)
		return get_uint(&f->times, v, UINT32_MAX, "times", err);
	if (strcmp(key, "probability") == 0) {
		if (!json_object_is_type(v, json_type_double) &&
		    !json_object_is_type(v, json_type_int))
			return bad(err, "probability", "must be a number");
		f->probability = json_object_get_double(v);
		if (!(f->probability >= 0.0 && f->probability <= 1.0))
			return bad(err, "probability", "must be between 0 and 1");
		return 0;
	}
	if (strcmp(key, "id") == 0) {
		if (!json_object_is_type(v, json_type_string) ||
		    !valid_id(json_object_get_string(v)))
			return bad(err, "id",
			           "must be 1-63 characters of [a-z0-9._-] starting with a "
			           "letter or digit");
		snprintf(f->id, sizeof(f->id), "%s", json_object_get_string(v));
		f->has_id = 1;
		return 0;
	}
	/* What GET /mockapi/v1/faults adds, so a listed fault can be posted back. */
	if (strcmp(key, "remaining") == 0 || strcmp(key, "matched") == 0 ||
	    strcmp(key, "fired") == 0)
		return 0;
	return bad(err, key, "unknown field");
}

int mock_fault_parse(mock_fault **out, json_object *spec, nl_err *err)
{
	if (!json_object_is_type(spec, json_type_object))
		return nl_err_set(err, NL_EINVALID, "a fault must be a JSON object");
	mock_fault *f = calloc(1, sizeof(*f));
	if (!f)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	f->times = 1;
	f->probability = 1.0;
	json_object *match = NULL, *action = NULL;
	int rc = 0;
	json_object_object_foreach(spec, key, v)
	{
		if (strcmp(key, "match") == 0)
			match = v;
		else if (strcmp(key, "action") == 0)
			action = v;
		else if ((rc = parse_budget(f, key, v, err)) != 0)
			goto fail;
	}
	if (match && (rc = parse_match(f, match, err)) != 0)
		goto fail;
	if (!action) {
		rc = bad(err, "action", "is required");
		goto fail;
	}
	if ((rc = parse_action(f, action, err)) != 0)
		goto fail;
	f->match_json = match ? json_object_get(match) : json_object_new_object();
	f->action_json = json_object_get(action);
	if (!f->match_json) {
		rc = nl_err_set(err, NL_ENOMEM, "out of memory");
		goto fail;
	}
	*out = f;
	return 0;
fail:
	mock_fault_free(f);
	return rc;
}

void mock_fault_free(mock_fault *f)
{
	if (!f)
		return;
	free(f->verb);
	free(f->resource);
	free(f->subresource);
	free(f->group);
	free(f->ns);
	free(f->name);
	free(f->user_agent);
	free(f->user);
	free(f->body);
	free(f->malformed);
	json_object_put(f->match_json);
	json_object_put(f->action_json);
	free(f);
}

/* ------------------------------------------------------------------------
 * Matching */

static int eq_opt(const char *want, const char *have)
{
	return !want || strcmp(want, have ? have : "") == 0;
}

int mock_fault_matches(const mock_fault *f, const mock_fault_request *r)
{
	const mock_req_attrs *a = r->attrs;
	int watch = strcmp(a->verb, "watch") == 0;
	/* Stream faults only make sense on watches; body faults only elsewhere. */
	if (f->kind == MOCK_FAULT_WATCH && !watch)
		return 0;
	if ((f->kind == MOCK_FAULT_TRUNCATE || f->kind == MOCK_FAULT_MALFORMED) && watch)
		return 0;
	if (!eq_opt(f->verb, a->verb) || !eq_opt(f->resource, a->resource) ||
	    !eq_opt(f->subresource, a->subresource) || !eq_opt(f->group, a->group) ||
	    !eq_opt(f->ns, a->ns) || !eq_opt(f->name, a->name) || !eq_opt(f->user, r->user))
		return 0;
	if (f->user_agent && !(r->user_agent && strstr(r->user_agent, f->user_agent)))
		return 0;
	return 1;
}

/* ------------------------------------------------------------------------
 * Registry */

/* splitmix64: tiny, fast, and the same sequence on every platform. */
static uint64_t prng_next(mock_faults *fs)
{
	uint64_t z = (fs->prng += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double prng_unit(mock_faults *fs)
{
	return (double)(prng_next(fs) >> 11) * 0x1.0p-53;
}

int mock_faults_new(mock_faults **out, uint64_t seed)
{
	mock_faults *fs = calloc(1, sizeof(*fs));
	if (!fs)
		return NL_ENOMEM;
	if (pthread_mutex_init(&fs->lock, NULL) != 0) {
		free(fs);
		return NL_ERROR;
	}
	atomic_init(&fs->n, 0);
	fs->seed = fs->prng = seed;
	*out = fs;
	return 0;
}

static void free_list(mock_fault *f)
{
	while (f) {
		mock_fault *next = f->next;
		mock_fault_free(f);
		f = next;
	}
}

void mock_faults_free(mock_faults *fs)
{
	if (!fs)
		return;
	free_list(fs->head);
	pthread_mutex_destroy(&fs->lock);
	free(fs);
}

uint64_t mock_faults_seed(const mock_faults *fs)
{
	return fs->seed;
}

static int exhausted(const mock_fault *f)
{
	return f->times && f->fired >= f->times;
}

static json_object *fault_json(const mock_fault *f)
{
	json_object *o = json_object_new_object();
	if (!o)
		return NULL;
	json_object_object_add(o, "id", json_object_new_string(f->id));
	json_object_object_add(o, "match", json_object_get(f->match_json));
	json_object_object_add(o, "action", json_object_get(f->action_json));
	json_object_object_add(o, "times", json_object_new_int64((int64_t)f->times));
	json_object_object_add(o, "probability", json_object_new_double(f->probability));
	json_object_object_add(o, "remaining",
	                       f->times ? json_object_new_int64((int64_t)(f->times - f->fired))
	                                : NULL);
	json_object_object_add(o, "matched", json_object_new_int64((int64_t)f->matched));
	json_object_object_add(o, "fired", json_object_new_int64((int64_t)f->fired));
	return o;
}

static mock_fault *find_locked(mock_faults *fs, const char *id, mock_fault ***link)
{
	for (mock_fault **p = &fs->head; *p; p = &(*p)->next)
		if (strcmp((*p)->id, id) == 0) {
			if (link)
				*link = p;
			return *p;
		}
	return NULL;
}

/* Make room by forgetting exhausted faults (their counters were visible
 * until now). */
static void purge_exhausted_locked(mock_faults *fs)
{
	mock_fault **p = &fs->head;
	while (*p) {
		if (exhausted(*p)) {
			mock_fault *dead = *p;
			*p = dead->next;
			mock_fault_free(dead);
			fs->n--;
		} else {
			p = &(*p)->next;
		}
	}
}

static int add_locked(mock_faults *fs, mock_fault *f)
{
	if (fs->n >= MOCK_FAULTS_MAX)
		purge_exhausted_locked(fs);
	if (fs->n >= MOCK_FAULTS_MAX)
		return NL_ETOOBIG;
	if (!f->has_id) {
		do
			snprintf(f->id, sizeof(f->id), "fault-%llu",
			         (unsigned long long)++fs->next_id);
		while (find_locked(fs, f->id, NULL));
	} else if (find_locked(fs, f->id, NULL)) {
		return NL_EEXISTS;
	}
	mock_fault **tail = &fs->head;
	while (*tail)
		tail = &(*tail)->next;
	*tail = f;
	fs->n++;
	return 0;
}

int mock_faults_add(mock_faults *fs, mock_fault *f, char id_out[MOCK_FAULT_ID_MAX])
{
	pthread_mutex_lock(&fs->lock);
	int rc = add_locked(fs, f);
	if (rc == 0 && id_out)
		memcpy(id_out, f->id, MOCK_FAULT_ID_MAX);
	pthread_mutex_unlock(&fs->lock);
	if (rc != 0)
		mock_fault_free(f);
	return rc;
}

/* Parse every element first, so a bad element adds nothing. */
static int parse_all(mock_fault ***out, size_t *n_out, json_object *spec, nl_err *err)
{
	int list = json_object_is_type(spec, json_type_array);
	size_t n = list ? json_object_array_length(spec) : 1;
	mock_fault **v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		int rc =
		    mock_fault_parse(&v[i], list ? json_object_array_get_idx(spec, i) : spec, err);
		if (rc != 0) {
			if (list && err) {
				char msg[sizeof(err->msg)];
				snprintf(msg, sizeof(msg), "%s", err->msg);
				nl_err_set(err, rc, "[%zu].%s", i, msg);
			}
			for (size_t j = 0; j < i; j++)
				mock_fault_free(v[j]);
			free(v);
			return rc;
		}
	}
	*out = v;
	*n_out = n;
	return 0;
}

/* Undo the first n additions of v (all or nothing). */
static void unlink_added_locked(mock_faults *fs, mock_fault **v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		mock_fault **link = NULL;
		if (find_locked(fs, v[i]->id, &link) == v[i]) {
			*link = v[i]->next;
			fs->n--;
		}
	}
}

int mock_faults_add_json(json_object **out, mock_faults *fs, json_object *spec, nl_err *err)
{
	mock_fault **v = NULL;
	size_t n = 0, i;
	int rc = parse_all(&v, &n, spec, err);
	if (rc != 0)
		return rc;
	json_object *added = json_object_new_array();
	pthread_mutex_lock(&fs->lock);
	for (i = 0; i < n && rc == 0; i++) {
		v[i]->next = NULL;
		rc = add_locked(fs, v[i]);
		if (rc == 0 && added)
			json_object_array_add(added, fault_json(v[i]));
	}
	if (rc != 0) {
		i--; /* v[i] was not added */
		unlink_added_locked(fs, v, i);
		char where[32] = "";
		if (json_object_is_type(spec, json_type_array))
			snprintf(where, sizeof(where), "[%zu].", i);
		if (rc == NL_EEXISTS)
			nl_err_set(err, rc, "%sid: a fault named \"%s\" already exists", where,
			           v[i]->id);
		else
			nl_err_set(err, rc, "at most %d faults may exist at once", MOCK_FAULTS_MAX);
	}
	pthread_mutex_unlock(&fs->lock);
	if (rc != 0) {
		for (size_t j = 0; j < n; j++)
			mock_fault_free(v[j]);
		json_object_put(added);
	} else if (out) {
		*out = added;
	} else {
		json_object_put(added);
	}
	free(v);
	return rc;
}

int mock_faults_remove(json_object **out, mock_faults *fs, const char *id)
{
	mock_fault **link = NULL;
	pthread_mutex_lock(&fs->lock);
	mock_fault *f = find_locked(fs, id, &link);
	if (f) {
		*link = f->next;
		fs->n--;
	}
	pthread_mutex_unlock(&fs->lock);
	if (!f)
		return NL_ENOTFOUND;
	if (out)
		*out = fault_json(f);
	mock_fault_free(f);
	return 0;
}

static json_object *list_json(const mock_fault *f)
{
	json_object *a = json_object_new_array();
	for (; a && f; f = f->next)
		json_object_array_add(a, fault_json(f));
	return a;
}

void mock_faults_clear(json_object **out, mock_faults *fs)
{
	pthread_mutex_lock(&fs->lock);
	mock_fault *all = fs->head;
	fs->head = NULL;
	fs->n = 0;
	pthread_mutex_unlock(&fs->lock);
	if (out)
		*out = list_json(all);
	free_list(all);
}

json_object *mock_faults_list_json(mock_faults *fs)
{
	pthread_mutex_lock(&fs->lock);
	json_object *a = list_json(fs->head);
	pthread_mutex_unlock(&fs->lock);
	return a;
}

json_object *mock_faults_get(mock_faults *fs, const char *id)
{
	pthread_mutex_lock(&fs->lock);
	mock_fault *f = find_locked(fs, id, NULL);
	json_object *o = f ? fault_json(f) : NULL;
	pthread_mutex_unlock(&fs->lock);
	return o;
}

static int fire(mock_faults *fs, mock_fault *f, mock_fault_hit *hit)
{
	memset(hit, 0, sizeof(*hit));
	if ((f->body && !(hit->body = strdup(f->body))) ||
	    (f->malformed && !(hit->malformed = strdup(f->malformed)))) {
		mock_fault_hit_clear(hit);
		return NL_ENOMEM;
	}
	memcpy(hit->id, f->id, sizeof(hit->id));
	hit->kind = f->kind;
	hit->delay_ms = f->delay_lo;
	if (f->delay_hi > f->delay_lo)
		hit->delay_ms += (unsigned)(prng_next(fs) % (f->delay_hi - f->delay_lo + 1u));
	hit->status = f->status;
	hit->retry_after = f->retry_after;
	hit->truncate = f->truncate;
	hit->watch = f->watch;
	f->fired++;
	return 0;
}

int mock_faults_decide(mock_faults *fs, const mock_fault_request *r, mock_fault_hit *hit)
{
	int fired = 0;
	if (!fs || atomic_load(&fs->n) == 0)
		return 0;
	pthread_mutex_lock(&fs->lock);
	for (mock_fault *f = fs->head; f; f = f->next) {
		if (!mock_fault_matches(f, r))
			continue;
		f->matched++;
		if (fired || f->matched <= f->after || exhausted(f))
			continue;
		if (f->probability < 1.0 && !(prng_unit(fs) < f->probability))
			continue;
		fired = fire(fs, f, hit) == 0;
	}
	pthread_mutex_unlock(&fs->lock);
	return fired;
}

void mock_fault_hit_clear(mock_fault_hit *h)
{
	free(h->body);
	free(h->malformed);
	h->body = h->malformed = NULL;
}

/* ------------------------------------------------------------------------
 * Status bodies */

static nl_status *invalid_status(const mock_req_attrs *a)
{
	nl_status *st = nl_status_invalid(a->res->kind, a->res->group, a->name);
	char msg[400];
	snprintf(msg, sizeof(msg), "Invalid value: \"%s\": fault injected by nodelet-mockapi",
	         a->name);
	if (st && (nl_status_add_cause(st, NL_CAUSE_INVALID, msg, "metadata.name") != 0 ||
	           nl_status_finish_invalid(st) != 0)) {
		nl_status_free(st);
		return NULL;
	}
	return st;
}

static nl_status *forbidden_status(const mock_req_attrs *a, const nl_gr *gr)
{
	char grs[300];
	nl_gr_string(grs, sizeof(grs), gr);
	nl_status *st = nl_status_newf(403, "Forbidden",
	                               "%s \"%s\" is forbidden: fault injected by nodelet-mockapi",
	                               grs, a->name);
	if (st && nl_status_set_details(st, a->name, a->group, a->resource, NULL) != 0) {
		nl_status_free(st);
		return NULL;
	}
	return st;
}

/* The Status for a resource request; non-resource requests get the
 * generic forms. */
static nl_status *resource_status(int code, const mock_req_attrs *a, const char *rv_requested,
                                  uint64_t current_rv)
{
	nl_gr gr = {a->group, a->resource};
	switch (code) {
	case 403:
		return forbidden_status(a, &gr);
	case 404:
		return a->name[0] ? nl_status_not_found(&gr, a->name) : nl_status_unknown_path();
	case 409:
		return nl_status_conflict(&gr, a->name, NULL);
	case 410:
		return nl_status_expired(rv_requested && *rv_requested ? rv_requested : "1",
		                         (unsigned long long)current_rv);
	case 422:
		return invalid_status(a);
	default:
		return NULL;
	}
}

static nl_status *generic_status(int code, size_t max_body)
{
	switch (code) {
	case 400:
		return nl_status_bad_request("fault injected by nodelet-mockapi");
	case 401:
		return nl_status_new(401, "Unauthorized", "Unauthorized");
	case 403:
		return nl_status_new(403, "Forbidden",
		                     "forbidden: fault injected by nodelet-mockapi");
	case 404:
		return nl_status_unknown_path();
	case 405:
		return nl_status_method_not_allowed();
	case 409:
		return nl_status_new(409, "Conflict", "fault injected by nodelet-mockapi");
	case 413:
		return nl_status_too_large(max_body);
	case 422:
		return nl_status_new(422, "Invalid", "fault injected by nodelet-mockapi");
	case 429:
		return nl_status_new(429, "TooManyRequests",
		                     "Too many requests, please try again later.");
	case 500:
		return nl_status_internal("fault injected by nodelet-mockapi");
	case 503:
		return nl_status_new(503, "ServiceUnavailable",
		                     "the server is currently unable to handle the request");
	case 504:
		/* The apiserver's request timeout filter. */
		return nl_status_new(504, "Timeout",
		                     "Timeout: request did not complete within requested timeout "
		                     "- context deadline exceeded");
	default:
		return nl_status_newf(code, NULL, "fault injected by nodelet-mockapi");
	}
}

nl_status *mock_fault_status(const mock_fault_hit *h, const mock_req_attrs *a,
                             const char *rv_requested, uint64_t current_rv, size_t max_body)
{
	nl_status *st;
	if (h->status < 300) {
		char *success = strdup("Success");
		st = success ? nl_status_new(h->status, NULL, NULL) : NULL;
		if (st) {
			free(st->status);
			st->status = success;
		} else {
			free(success);
		}
	} else {
		st = a->res ? resource_status(h->status, a, rv_requested, current_rv) : NULL;
		if (!st)
			st = generic_status(h->status, max_body);
	}
	if (!st)
		return NULL;
	int retry = h->retry_after ? h->retry_after : (h->status == 429 ? 1 : 0);
	if (retry > 0) {
		st->retry_after_seconds = retry;
		st->has_details = 1;
	}
	return st;
}
