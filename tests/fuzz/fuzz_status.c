/* The Status parser (nl_status_parse), as a client meets a hostile
 * server's error body: whatever parses encodes back to a Status that parses
 * to the same fields. */
#include <nodelet/errors.h>
#include <nodelet/status.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static int same_str(const char *a, const char *b)
{
	/* "" and absent encode alike (omitempty). */
	return strcmp(a ? a : "", b ? b : "") == 0;
}

static void check_same(const nl_status *a, const nl_status *b)
{
	FUZZ_CHECK(same_str(a->status, b->status));
	FUZZ_CHECK(same_str(a->message, b->message));
	FUZZ_CHECK(same_str(a->reason, b->reason));
	FUZZ_CHECK(a->code == b->code);
	FUZZ_CHECK(same_str(a->name, b->name));
	FUZZ_CHECK(same_str(a->group, b->group));
	FUZZ_CHECK(same_str(a->kind, b->kind));
	FUZZ_CHECK(same_str(a->uid, b->uid));
	FUZZ_CHECK(a->retry_after_seconds == b->retry_after_seconds);
	FUZZ_CHECK(a->ncauses == b->ncauses);
	for (size_t i = 0; i < a->ncauses && i < b->ncauses; i++) {
		FUZZ_CHECK(same_str(a->causes[i].reason, b->causes[i].reason));
		FUZZ_CHECK(same_str(a->causes[i].message, b->causes[i].message));
		FUZZ_CHECK(same_str(a->causes[i].field, b->causes[i].field));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	nl_status *st = NULL;
	int rc = nl_status_parse(&st, (const char *)data, size);
	if (rc != 0) {
		FUZZ_CHECK(st == NULL);
		FUZZ_CHECK(rc == NL_EPARSE || rc == NL_ENOMEM);
		return 0;
	}
	FUZZ_CHECK(st != NULL);
	char *text = nl_status_to_string(st);
	FUZZ_CHECK(text != NULL);
	nl_status *back = NULL;
	FUZZ_CHECK(nl_status_parse(&back, text, strlen(text)) == 0);
	check_same(st, back);
	nl_status_free(back);
	free(text);
	nl_status_free(st);
	return 0;
}
