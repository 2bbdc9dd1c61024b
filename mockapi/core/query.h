/* Boolean query parameters, read as kube-apiserver reads them.
 *
 * The parameter codec converts a query value into a bool or *bool field
 * (ListOptions.Watch, AllowWatchBookmarks, SendInitialEvents,
 * DeleteOptions.OrphanDependents, PatchOptions.Force) with
 * runtime.Convert_Slice_string_To_bool: only "0" and a case-insensitive
 * "false" are false, anything else — an empty value included — is true.
 * `pretty` alone is read with strconv.ParseBool (the negotiation's
 * isPrettyPrint). */
#ifndef MOCK_CORE_QUERY_H
#define MOCK_CORE_QUERY_H

#include "request.h"

/* A present value as the codec converts it: 0 for "0" or any case of
 * "false", else 1 (""). -1 for NULL (the parameter is absent). */
int mock_query_bool_value(const char *value);

/* mock_query_bool_value of the first value of key in req's query. */
int mock_request_query_bool(const mock_request *req, const char *key);

/* Go's strconv.ParseBool: 1, t, T, TRUE, true, True / 0, f, F, FALSE,
 * false, False into *out and 0; -1 for anything else (out untouched). */
int mock_go_parse_bool(int *out, const char *s);

#endif
