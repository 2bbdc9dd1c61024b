/* What the verb handlers (handlers_read.c, handlers_write.c,
 * handlers_delete.c) share. */
#ifndef MOCK_HANDLERS_INTERNAL_H
#define MOCK_HANDLERS_INTERNAL_H

#include "handlers.h"

/* The route's namespace, NULL for none. */
static inline const char *mock__handlers_ns(const mock_route *rt)
{
	return rt->ns[0] ? rt->ns : NULL;
}

/* A query parameter of ListOptions' int64 fields (timeoutSeconds) as the
 * apiserver's parameter codec converts it, with strconv.ParseInt(s, 10, 64):
 * an optional sign and decimal digits only. 0 with *out set; otherwise the
 * 400 BadRequest Status upstream answers ("strconv.ParseInt: parsing
 * \"1e999\": invalid syntax", "...: value out of range"). */
nl_status *mock__handlers_query_int64(long long *out, const char *s);

/* Create/Update/DeleteOptions (422) before the body is read, as the
 * apiserver: 0, or -1 with the answer in resp. */
int mock__handlers_check_options(const mock_request *req, const char *kind, mock_response *resp);

/* ValidateListOptions of a LIST or deletecollection (list_validation.c):
 * NULL, or the 422 `ListOptions.meta.k8s.io "" is invalid: ...` Status
 * (caller frees). */
nl_status *mock__handlers_validate_list(const mock_request *req);

/* LIST (delete 0) or DELETE (delete 1) of the selection the query makes
 * (400 for a bad selector or limit); a dry-run delete answers the whole
 * selection, now. */
void mock__handlers_select(mock_api *api, const mock_route *rt, const mock_request *req,
                           mock_response *resp, int delete);

#endif
