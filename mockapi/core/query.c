/* Boolean query parameters (query.h). */
#include "query.h"

#include <string.h>
#include <strings.h>

int mock_query_bool_value(const char *value)
{
	if (!value)
		return -1;
	return !(strcmp(value, "0") == 0 || strcasecmp(value, "false") == 0);
}

int mock_request_query_bool(const mock_request *req, const char *key)
{
	return mock_query_bool_value(mock_request_query(req, key));
}

int mock_go_parse_bool(int *out, const char *s)
{
	static const char *const yes[] = {"1", "t", "T", "TRUE", "true", "True"};
	static const char *const no[] = {"0", "f", "F", "FALSE", "false", "False"};
	for (size_t i = 0; s && i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcmp(s, yes[i]) == 0 || strcmp(s, no[i]) == 0) {
			*out = strcmp(s, yes[i]) == 0;
			return 0;
		}
	}
	return -1;
}
