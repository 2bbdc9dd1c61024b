/* Duplicate member names in a JSON request body, as the apiserver's
 * strict decoding (sigs.k8s.io/json with DisallowDuplicateFields) reports
 * them under fieldValidation=Strict: `duplicate field "data.a"`, the path
 * of the repeated member written as the decoder's field stack (keys joined
 * with ".", list items as "[i]"). json-c keeps only the last value of a
 * repeated name, so this reads the text itself. */
#ifndef MOCK_HANDLERS_STRICT_DUPLICATES_H
#define MOCK_HANDLERS_STRICT_DUPLICATES_H

#include <stddef.h>

/* Most paths reported (the decoder keeps at most 100 strict errors). */
#define MOCK_STRICT_MAX_ERRORS 100

typedef struct {
	char *paths[MOCK_STRICT_MAX_ERRORS]; /* owned, in document order */
	size_t n;
} mock_duplicates;

/* Fill *out with the paths of the members of text (len bytes of JSON)
 * whose name was already seen in the same object, each path once. Text
 * that does not scan as JSON yields what was found before the point it
 * stopped (the body was parsed already; its errors are reported
 * elsewhere). 0 or NL_ENOMEM; free with mock_duplicates_free. */
int mock_duplicates_find(mock_duplicates *out, const char *text, size_t len);
void mock_duplicates_free(mock_duplicates *d);

#endif
