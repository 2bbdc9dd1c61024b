/* JSON request bodies and stored objects parsed as the API accepts them
 * (json.h). */
#include "json.h"

#include <nodelet/doc.h>
#include <nodelet/errors.h>
#include <nodelet/json_text.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The body parser, one per thread: freed when the thread ends (the
 * server's worker threads); the main thread's stays for the process. */

static pthread_key_t parser_key;
static pthread_once_t parser_once = PTHREAD_ONCE_INIT;
static int parser_key_ok;

static void parser_free(void *tok)
{
	json_tokener_free(tok);
}

static void parser_key_init(void)
{
	parser_key_ok = pthread_key_create(&parser_key, parser_free) == 0;
}

static struct json_tokener *thread_parser(int *owned)
{
	struct json_tokener *tok = NULL;
	*owned = 0;
	pthread_once(&parser_once, parser_key_init);
	if (parser_key_ok && (tok = pthread_getspecific(parser_key)) != NULL) {
		json_tokener_reset(tok);
		return tok;
	}
	tok = json_tokener_new_ex(NL_DOC_MAX_DEPTH);
	if (tok && (!parser_key_ok || pthread_setspecific(parser_key, tok) != 0))
		*owned = 1; /* cannot keep it: free after this call */
	return tok;
}

int mock_parse_body(json_object **out, const char *body, size_t len, enum json_tokener_error *err,
                    size_t *end)
{
	int owned = 0;
	struct json_tokener *tok = len <= INT32_MAX ? thread_parser(&owned) : NULL;
	if (!tok)
		return NL_ENOMEM;
	/* Strings as Go's decoder reads them (json_text.h): U+FFFD for invalid
	 * UTF-8 and lone surrogates, a marker for a NUL in a member name. */
	char *clean = NULL;
	size_t clean_len = len;
	if (nl_json_text_clean(&clean, &clean_len, body, len) != 0 || clean_len > INT32_MAX) {
		free(clean);
		if (owned)
			json_tokener_free(tok);
		return NL_ENOMEM;
	}
	*out = json_tokener_parse_ex(tok, clean ? clean : body, (int)clean_len);
	*err = json_tokener_get_error(tok);
	*end = json_tokener_get_parse_end(tok);
	/* Offsets are the cleaned text's; all of it used is all of body. */
	if (*end == clean_len)
		*end = len;
	else if (clean && *end > len)
		*end = len - 1;
	free(clean);
	/* Drop what a failed parse left on the parser's stack now. */
	json_tokener_reset(tok);
	if (owned)
		json_tokener_free(tok);
	return 0;
}

void mock_body_summary(char out[MOCK_BODY_SUMMARY_SIZE], const char *body, size_t len)
{
	size_t n = len > 30 ? 30 : len;
	const char *more = len > 30 ? " ..." : "";
	if (len == 0 || !body) {
		snprintf(out, MOCK_BODY_SUMMARY_SIZE, "<empty>");
	} else if (body[0] == '{') {
		snprintf(out, MOCK_BODY_SUMMARY_SIZE, "%.*s%s", (int)n, body, more);
	} else {
		static const char hex[] = "0123456789abcdef";
		size_t o = 0;
		for (size_t i = 0; i < n; i++) {
			out[o++] = hex[(unsigned char)body[i] >> 4];
			out[o++] = hex[(unsigned char)body[i] & 15];
		}
		snprintf(out + o, MOCK_BODY_SUMMARY_SIZE - o, "%s", more);
	}
}
