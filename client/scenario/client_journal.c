/* The client-side journal (client_journal.h). What a request is about
 * comes from the mock's own reading of a request (mock_request_attrs, as
 * kube-apiserver's RequestInfo), so both journals name a request alike. */
#include "client_journal.h"

#include <api/route.h>
#include <core/url.h>
#include <nodelet/time.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct nl_scn_cjournal {
	pthread_mutex_t mu;
	json_object *pending; /* entries not taken yet */
	uint64_t seq;
};

int nl_scn_cjournal_new(nl_scn_cjournal **out)
{
	nl_scn_cjournal *j = calloc(1, sizeof(*j));
	if (!j || !(j->pending = json_object_new_array())) {
		free(j);
		return NL_ENOMEM;
	}
	pthread_mutex_init(&j->mu, NULL);
	*out = j;
	return 0;
}

void nl_scn_cjournal_free(nl_scn_cjournal *j)
{
	if (!j)
		return;
	json_object_put(j->pending);
	pthread_mutex_destroy(&j->mu);
	free(j);
}

/* The decoded value of query parameter key (its first), into out; NULL when
 * absent or too long. */
static const char *query_value(char *out, size_t outlen, const char *query, const char *key)
{
	size_t klen = strlen(key);
	for (const char *p = query; p && *p; p = strchr(p, '&') ? strchr(p, '&') + 1 : NULL) {
		size_t n = strcspn(p, "&");
		if (n > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
			if (n - klen - 1 >= outlen)
				return NULL;
			memcpy(out, p + klen + 1, n - klen - 1);
			out[n - klen - 1] = '\0';
			mock_url_unescape(out);
			return out;
		}
	}
	return NULL;
}

static void add_str(json_object *o, const char *key, const char *v)
{
	json_object_object_add(o, key, json_object_new_string(v ? v : ""));
}

json_object *nl_scn_cjournal_entry(const nl_request_attempt *a, uint64_t seq)
{
	char path[2048], watch[16], fsel[1024], ts[NL_TIME_BUFSZ], ms[32];
	size_t plen = strcspn(a->path, "?");
	const char *query = a->path[plen] == '?' ? a->path + plen + 1 : "";
	mock_req_attrs attrs;
	json_object *o;
	if (plen >= sizeof(path) || !(o = json_object_new_object()))
		return NULL;
	memcpy(path, a->path, plen);
	path[plen] = '\0';
	mock_url_unescape(path);
	mock_request_attrs(&attrs, a->method, path,
	                   query_value(watch, sizeof(watch), query, "watch"),
	                   query_value(fsel, sizeof(fsel), query, "fieldSelector"));
	nl_time_format_micro(ts, a->at);
	json_object_object_add(o, "seq", json_object_new_int64((int64_t)seq));
	add_str(o, "time", ts);
	add_str(o, "verb", attrs.verb);
	add_str(o, "resource", attrs.resource);
	add_str(o, "subresource", attrs.subresource);
	add_str(o, "group", attrs.group);
	add_str(o, "namespace", attrs.ns);
	add_str(o, "name", attrs.name);
	add_str(o, "query", query);
	json_object_object_add(o, "requestBytes", json_object_new_int64((int64_t)a->request_bytes));
	json_object_object_add(o, "code", json_object_new_int((int)a->code));
	add_str(o, "reason", "");
	add_str(o, "userAgent", a->user_agent);
	add_str(o, "user", "");
	snprintf(ms, sizeof(ms), "%.3f", (double)a->duration_usec / 1000.0);
	json_object_object_add(o, "durationMs",
	                       json_object_new_double_s((double)a->duration_usec / 1000.0, ms));
	json_object_object_add(o, "fault", NULL);
	add_str(o, "method", a->method);
	add_str(o, "path", path);
	return o;
}

void nl_scn_cjournal_record(const nl_request_attempt *a, void *payload)
{
	nl_scn_cjournal *j = payload;
	pthread_mutex_lock(&j->mu);
	json_object *e = nl_scn_cjournal_entry(a, j->seq + 1);
	if (e) {
		j->seq++;
		json_object_array_add(j->pending, e);
	}
	pthread_mutex_unlock(&j->mu);
}

json_object *nl_scn_cjournal_take(nl_scn_cjournal *j)
{
	json_object *fresh = json_object_new_array(), *out;
	if (!fresh)
		return NULL;
	pthread_mutex_lock(&j->mu);
	out = j->pending;
	j->pending = fresh;
	pthread_mutex_unlock(&j->mu);
	return out;
}
