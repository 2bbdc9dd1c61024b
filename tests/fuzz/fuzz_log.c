/* The log line encoders (nodelet/log.h) over any bytes, as a User-Agent,
 * a URI or a server's error message from the network reach them: a JSON
 * line must parse as one object whose msg, err and value are the input
 * (invalid UTF-8 becoming U+FFFD, as zap writes it); a text line must start
 * with the quoted message on one line, whatever the value holds. */
#include <nodelet/log.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static char *logged(nl_log_format f, const char *s, const char *err)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	FUZZ_CHECK(out != NULL);
	nl_log_set_format(f);
	nl_log_set_output(out);
	NL_LOG_ERROR(err, s, NL_KV_STR("value", s), NL_KV_REF("ref", s, s), NL_KV_INT("n", len));
	nl_log_set_output(NULL);
	fclose(out);
	return text;
}

/* Whether s is valid UTF-8 (RFC 3629: no overlong forms, no surrogates,
 * nothing past U+10FFFF); then JSON must give it back unchanged. */
static int valid_utf8(const char *str)
{
	const unsigned char *p = (const unsigned char *)str;
	while (*p) {
		unsigned long r;
		int n;
		if (*p < 0x80) {
			p++;
			continue;
		} else if ((*p & 0xe0) == 0xc0) {
			r = *p & 0x1f, n = 1;
		} else if ((*p & 0xf0) == 0xe0) {
			r = *p & 0x0f, n = 2;
		} else if ((*p & 0xf8) == 0xf0) {
			r = *p & 0x07, n = 3;
		} else {
			return 0;
		}
		for (int i = 1; i <= n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return 0;
			r = r << 6 | (p[i] & 0x3f);
		}
		static const unsigned long min[] = {0, 0x80, 0x800, 0x10000};
		if (r < min[n] || r > 0x10ffff || (r >= 0xd800 && r <= 0xdfff))
			return 0;
		p += n + 1;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_strndup(data, size);
	char *json = logged(NL_LOG_FORMAT_JSON, s, s);
	size_t n = strlen(json);
	FUZZ_CHECK(n > 0 && json[n - 1] == '\n' && strchr(json, '\n') == json + n - 1);
	json_tokener *t = json_tokener_new();
	json_object *o = json_tokener_parse_ex(t, json, (int)n - 1);
	FUZZ_CHECK(o != NULL && json_tokener_get_error(t) == json_tokener_success);
	json_object *msg = NULL, *err = NULL, *value = NULL;
	FUZZ_CHECK(json_object_object_get_ex(o, "msg", &msg));
	FUZZ_CHECK(json_object_object_get_ex(o, "err", &err));
	FUZZ_CHECK(json_object_object_get_ex(o, "value", &value));
	FUZZ_CHECK(!json_object_object_get_ex(o, "v", NULL));
	if (valid_utf8(s)) {
		FUZZ_CHECK(strcmp(json_object_get_string(msg), s) == 0);
		FUZZ_CHECK(strcmp(json_object_get_string(err), s) == 0);
		FUZZ_CHECK(strcmp(json_object_get_string(value), s) == 0);
	}
	json_object_put(o);
	json_tokener_free(t);
	free(json);

	char *text = logged(NL_LOG_FORMAT_TEXT, s, s);
	const char *q = strstr(text, "] \"");
	FUZZ_CHECK(q != NULL);
	/* the quoted message closes before the first line break */
	const char *nl = strchr(text, '\n');
	const char *e = strstr(q, "\" err=");
	FUZZ_CHECK(e != NULL && nl != NULL && e < nl);
	free(text);
	nl_log_set_format(NL_LOG_FORMAT_TEXT);
	free(s);
	return 0;
}
