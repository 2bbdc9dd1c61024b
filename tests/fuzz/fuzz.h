/* Shared by the libFuzzer targets in tests/fuzz/ (docs/fuzzing.md).
 *
 * Each target is one file defining LLVMFuzzerTestOneInput. A target checks
 * cheap invariants of the code under test with FUZZ_CHECK: a failed check
 * aborts, which libFuzzer reports as a crash with the input saved, exactly
 * like a sanitizer error. */
#ifndef NL_FUZZ_H
#define NL_FUZZ_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

/* libFuzzer's entry points (declared here for -Wmissing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Report a broken invariant and abort. */
__attribute__((noreturn)) void fuzz_fail(const char *file, int line, const char *what);
#define FUZZ_CHECK(cond)                                      \
	do {                                                  \
		if (!(cond))                                  \
			fuzz_fail(__FILE__, __LINE__, #cond); \
	} while (0)

/* A NUL-terminated copy of data (the code under test mostly takes C
 * strings; a NUL inside the input then simply ends the string). Never
 * NULL: aborts when out of memory. Caller frees. */
char *fuzz_strndup(const uint8_t *data, size_t size);

/* A slice of the input. */
typedef struct {
	const char *p;
	size_t len;
} fuzz_part;

/* Split [data, data+size) at the first occurrence of sep into *a and *b
 * (sep itself in neither). Without sep: all of it in *a, *b empty; returns
 * 0 then, 1 when sep was found. */
int fuzz_split(fuzz_part *a, fuzz_part *b, const char *data, size_t size, const char *sep);

/* Parse exactly len bytes as one JSON value with json-c (trailing
 * whitespace allowed). NULL when invalid, including json-c's extension
 * NaN/Infinity; a JSON null also gives NULL, with *is_null set (is_null
 * may be NULL). */
json_object *fuzz_json(const char *p, size_t len, int *is_null);

/* The patch targets' input: a JSON document, a line "---", a JSON patch.
 * 0 and both parsed (*patch NULL for a JSON null patch; the document is
 * never null) or -1 when either is not JSON. Caller puts both. */
int fuzz_doc_and_patch(json_object **doc, json_object **patch, const uint8_t *data, size_t size);

/* Whether o holds NaN or an infinity, which json-c reads ("NaN",
 * "-Infinity") but JSON, and Go's decoder, do not. */
int fuzz_json_has_non_finite(json_object *o);

/* Deep equality of two JSON values with numbers compared by value (1 and
 * 1.0 are equal, as the loader reads 1.0 as 1), and json-c's saturation of
 * integers beyond 64 bits allowed for: json-c reads 1e20 written as digits
 * as UINT64_MAX where Go reads a float64. */
int fuzz_json_same(json_object *a, json_object *b);

/* Compact JSON text of obj (borrowed from obj; "null" for NULL). */
const char *fuzz_json_text(json_object *obj);

#endif
