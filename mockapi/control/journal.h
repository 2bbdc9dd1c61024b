/* The request journal: every request the server answered, in order, in a
 * bounded ring (oldest dropped). Recording costs one allocation holding the
 * entry and its strings, under a mutex; JSON is built only when someone
 * reads (GET /mockapi/v1/requests). See
 * docs/decisions/0005-faults-and-journal.md. */
#ifndef MOCK_JOURNAL_H
#define MOCK_JOURNAL_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "api/route.h"

#define MOCK_JOURNAL_DEFAULT_SIZE 100000

/* One request as recorded; every pointer is borrowed for the call. */
typedef struct {
	int64_t time_usec; /* server clock at arrival */
	const char *method;
	const char *path;
	const mock_req_attrs *attrs;
	const char *query; /* canonical query string, "" for none */
	size_t request_bytes;
	int code;           /* 0: no answer was sent (a drop fault) */
	const char *reason; /* Status reason of an error answer, or "" */
	const char *user_agent;
	const char *user;
	int64_t duration_usec;
	const char *fault; /* id of the fault that fired, or NULL */
} mock_journal_in;

typedef struct mock_journal mock_journal;

/* A journal keeping the last cap entries (0 = record nothing). */
int mock_journal_new(mock_journal **out, size_t cap);
void mock_journal_free(mock_journal *j);

/* Record one request; returns its sequence number (1, 2, ...; 0 when the
 * journal keeps nothing or memory ran out). Sequence numbers never repeat,
 * not even after mock_journal_clear. */
uint64_t mock_journal_record(mock_journal *j, const mock_journal_in *in);

/* {"items":[...entries with seq > since, oldest first...],"lastSeq":N}
 * (new reference). Entry fields: seq, time (RFC 3339 micro), verb,
 * resource, subresource, group, namespace, name, query, requestBytes, code,
 * reason, userAgent, user, durationMs, fault (null when none), plus method
 * and path. */
json_object *mock_journal_to_json(mock_journal *j, uint64_t since);

/* Forget every entry; returns how many there were. */
size_t mock_journal_clear(mock_journal *j);

/* The query string in a canonical form, for the journal: key=value pairs in
 * request order joined by '&', keys and values percent-encoded except for
 * unreserved characters (RFC 3986). keys/values are parallel arrays; a NULL
 * value is written as a bare key. Caller frees; NULL when out of memory. */
char *mock_journal_query_string(const char *const *keys, const char *const *values, size_t n);

#endif
