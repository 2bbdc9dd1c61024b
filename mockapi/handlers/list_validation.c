/* ValidateListOptions for a LIST or a deletecollection (apimachinery's
 * meta/internalversion/validation): what resourceVersionMatch needs and
 * that sendInitialEvents is for watches only. A watch's own rules are in
 * watch_request.c. */
#include <string.h>

#include "api/validation.h"
#include "handlers_internal.h"

static int set(const char *s)
{
	return s && *s;
}

nl_status *mock__handlers_validate_list(const mock_request *req)
{
	static const char *const supported[] = {"Exact", "NotOlderThan", "", NULL};
	const char *match = mock_request_query(req, "resourceVersionMatch");
	const char *rv = mock_request_query(req, "resourceVersion");
	mock_ferrs e;
	mock_ferrs_init(&e);
	if (set(match)) {
		if (!set(rv))
			mock_ferr_forbidden(
			    &e, "resourceVersionMatch",
			    "resourceVersionMatch is forbidden unless resourceVersion is "
			    "provided");
		if (set(mock_request_query(req, "continue")))
			mock_ferr_forbidden(
			    &e, "resourceVersionMatch",
			    "resourceVersionMatch is forbidden when continue is provided");
		if (strcmp(match, "Exact") != 0 && strcmp(match, "NotOlderThan") != 0) {
			json_object *v = json_object_new_string(match);
			mock_ferr_not_supported(&e, "resourceVersionMatch", v, supported);
			json_object_put(v);
		}
		if (strcmp(match, "Exact") == 0 && rv && strcmp(rv, "0") == 0)
			mock_ferr_forbidden(&e, "resourceVersionMatch",
			                    "resourceVersionMatch \"exact\" is forbidden for "
			                    "resourceVersion \"0\"");
	}
	if (mock_request_query(req, "sendInitialEvents"))
		mock_ferr_forbidden(&e, "sendInitialEvents",
		                    "sendInitialEvents is forbidden for list");
	nl_status *st = e.n ? mock_ferrs_to_status(&e, "ListOptions", "meta.k8s.io", "") : NULL;
	mock_ferrs_free(&e);
	return st;
}
