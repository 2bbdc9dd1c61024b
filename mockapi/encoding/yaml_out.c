/* JSON → YAML with libyaml's emitter, making go-yaml v2's choices (it is a
 * port of libyaml, so the emitter itself already agrees): which strings must
 * be quoted, literal style for multi-line strings, natural key order. */
#include "yaml_out.h"

#include <ctype.h>
#include <json-c/json.h>
#include <nodelet/doc.h>
#include <nodelet/errors.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* ------------------------------------------------ go-yaml's resolve() */

static int in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return 1;
	return 0;
}

/* ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ */
static int yaml_style_float(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	if (*s == '.') {
		if (!isdigit((unsigned char)s[1]))
			return 0;
		for (s++; isdigit((unsigned char)*s); s++)
			;
	} else {
		if (!isdigit((unsigned char)*s))
			return 0;
		while (isdigit((unsigned char)*s))
			s++;
		if (*s == '.')
			for (s++; isdigit((unsigned char)*s); s++)
				;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			s++;
		if (!isdigit((unsigned char)*s))
			return 0;
		while (isdigit((unsigned char)*s))
			s++;
	}
	return *s == '\0';
}

/* strconv.ParseInt(s, 0, 64) syntax (range not checked: a too large
 * integer still reads back as a number, a float). */
static int go_int_syntax(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	const char *digits = "0123456789";
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		digits = "0123456789abcdefABCDEF", s += 2;
	else if (s[0] == '0' && (s[1] == 'o' || s[1] == 'O'))
		digits = "01234567", s += 2;
	else if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
		digits = "01", s += 2;
	return *s && strspn(s, digits) == strlen(s);
}

/* go-yaml's parseTimestamp accepts YYYY-M-D with an optional time part. */
static int looks_like_timestamp(const char *s)
{
	size_t i = 0;
	while (isdigit((unsigned char)s[i]))
		i++;
	if (i != 4 || s[i] != '-')
		return 0;
	s += 5;
	for (int part = 0; part < 2; part++) {
		size_t n = 0;
		while (isdigit((unsigned char)s[n]))
			n++;
		if (n < 1 || n > 2)
			return 0;
		s += n;
		if (part == 0) {
			if (*s != '-')
				return 0;
			s++;
		}
	}
	return *s == '\0' || *s == 'T' || *s == 't' || *s == ' ';
}

/* ^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$ — quoted on output
 * for other parsers' sake. */
static int base60_float(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	if (!isdigit((unsigned char)*s))
		return 0;
	while (isdigit((unsigned char)*s) || *s == '_')
		s++;
	int groups = 0;
	while (*s == ':') {
		s++;
		if (s[0] >= '0' && s[0] <= '5' && isdigit((unsigned char)s[1]))
			s += 2;
		else if (isdigit((unsigned char)s[0]))
			s += 1;
		else
			return 0;
		groups++;
	}
	if (groups == 0)
		return 0;
	if (*s == '.')
		for (s++; isdigit((unsigned char)*s) || *s == '_'; s++)
			;
	return *s == '\0';
}

int mock_yaml_plain_is_string(const char *s)
{
	static const char *const words[] = {
	    "y",    "Y",    "yes",   "Yes",   "YES",   "true",  "True",  "TRUE",  "on",    "On",
	    "ON",   "n",    "N",     "no",    "No",    "NO",    "false", "False", "FALSE", "off",
	    "Off",  "OFF",  "~",     "null",  "Null",  "NULL",  ".nan",  ".NaN",  ".NAN",  ".inf",
	    ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", "<<",    NULL,
	};
	if (!*s || in_list(s, words) || base60_float(s))
		return 0;
	if (*s == '.')
		return !yaml_style_float(s);
	if (!isdigit((unsigned char)*s) && *s != '+' && *s != '-')
		return 1;
	if (looks_like_timestamp(s))
		return 0;
	/* No length is too long to be a number: go-yaml reads a string of 200
	 * digits as a float. */
	char small[128];
	size_t len = strlen(s), n = 0;
	char *plain = len < sizeof(small) ? small : malloc(len + 1);
	if (!plain)
		return 0; /* quoting is always safe */
	for (const char *p = s; *p; p++)
		if (*p != '_')
			plain[n++] = *p;
	plain[n] = '\0';
	int is_string = !go_int_syntax(plain) && !yaml_style_float(plain);
	if (plain != small)
		free(plain);
	return is_string;
}

/* ------------------------------------------------------- key ordering */

static int is_letter(unsigned char c)
{
	return isalpha(c) || c >= 0x80; /* non-ASCII: UTF-8 letters, approximately */
}

/* go-yaml v2's keyList.Less for string keys: letters after other
 * characters, runs of digits compared as numbers. */
static int natural_cmp(const void *pa, const void *pb)
{
	const char *a = *(const char *const *)pa, *b = *(const char *const *)pb;
	size_t la = strlen(a), lb = strlen(b);
	for (size_t i = 0; i < la && i < lb; i++) {
		unsigned char ca = (unsigned char)a[i], cb = (unsigned char)b[i];
		if (ca == cb)
			continue;
		int al = is_letter(ca), bl = is_letter(cb);
		if (al && bl)
			return ca < cb ? -1 : 1;
		if (al || bl)
			return bl ? -1 : 1;
		long long an = 0, bn = 0;
		size_t ai, bi;
		if (ca == '0' || cb == '0') {
			for (size_t j = i; j-- > 0 && isdigit((unsigned char)a[j]);) {
				if (a[j] != '0') {
					an = bn = 1;
					break;
				}
			}
		}
		/* Go's int64 wraps on a long digit run; so does this (unsigned
		 * arithmetic, two's complement conversion) instead of signed
		 * overflow, which is undefined in C (found by fuzzing). */
		for (ai = i; ai < la && isdigit((unsigned char)a[ai]); ai++)
			an = (long long)((unsigned long long)an * 10 + (unsigned)(a[ai] - '0'));
		for (bi = i; bi < lb && isdigit((unsigned char)b[bi]); bi++)
			bn = (long long)((unsigned long long)bn * 10 + (unsigned)(b[bi] - '0'));
		if (an != bn)
			return an < bn ? -1 : 1;
		if (ai != bi)
			return ai < bi ? -1 : 1;
		return ca < cb ? -1 : 1;
	}
	return la < lb ? -1 : la > lb ? 1 : 0;
}

/* ------------------------------------------------------------ emitting */

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
	return nl_buf_add(data, buffer, size) == 0;
}

static int scalar(yaml_emitter_t *e, const char *text, size_t len, int is_string)
{
	yaml_event_t ev;
	yaml_scalar_style_t style = YAML_PLAIN_SCALAR_STYLE;
	if (is_string && memchr(text, '\n', len))
		style = YAML_LITERAL_SCALAR_STYLE;
	else if (is_string && !mock_yaml_plain_is_string(text))
		style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
	if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)text, (int)len, 1, 1,
	                                  style))
		return NL_ENOMEM;
	return yaml_emitter_emit(e, &ev) ? 0 : NL_ENOMEM;
}

static int node(yaml_emitter_t *e, json_object *o);

static int mapping(yaml_emitter_t *e, json_object *o)
{
	yaml_event_t ev;
	size_t n = (size_t)json_object_object_length(o), i = 0;
	const char **keys = n ? calloc(n, sizeof(*keys)) : NULL;
	int rc = 0;
	if (n && !keys)
		return NL_ENOMEM;
	json_object_object_foreach(o, k, v)
	{
		(void)v;
		keys[i++] = k;
	}
	if (n > 1) /* keys is NULL for {}, and qsort's pointer must not be */
		qsort(keys, n, sizeof(*keys), natural_cmp);
	if (!yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE) ||
	    !yaml_emitter_emit(e, &ev))
		rc = NL_ENOMEM;
	for (i = 0; rc == 0 && i < n; i++) {
		rc = scalar(e, keys[i], strlen(keys[i]), 1);
		if (rc == 0)
			rc = node(e, json_object_object_get(o, keys[i]));
	}
	free(keys);
	if (rc == 0 && (!yaml_mapping_end_event_initialize(&ev) || !yaml_emitter_emit(e, &ev)))
		rc = NL_ENOMEM;
	return rc;
}

static int sequence(yaml_emitter_t *e, json_object *o)
{
	yaml_event_t ev;
	int rc = 0;
	if (!yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE) ||
	    !yaml_emitter_emit(e, &ev))
		return NL_ENOMEM;
	for (size_t i = 0; rc == 0 && i < json_object_array_length(o); i++)
		rc = node(e, json_object_array_get_idx(o, i));
	if (rc == 0 && (!yaml_sequence_end_event_initialize(&ev) || !yaml_emitter_emit(e, &ev)))
		rc = NL_ENOMEM;
	return rc;
}

static int node(yaml_emitter_t *e, json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_object:
		return mapping(e, o);
	case json_type_array:
		return sequence(e, o);
	case json_type_string:
		return scalar(e, json_object_get_string(o), (size_t)json_object_get_string_len(o),
		              1);
	case json_type_null:
		return scalar(e, "null", 4, 0);
	default: {
		/* Numbers and booleans as JSON writes them, which YAML reads
		 * back as the same type. */
		const char *t = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
		return scalar(e, t, strlen(t), 0);
	}
	}
}

static int emit_document(yaml_emitter_t *e, json_object *root)
{
	yaml_event_t ev;
	if (!yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) ||
	    !yaml_emitter_emit(e, &ev) ||
	    !yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) ||
	    !yaml_emitter_emit(e, &ev))
		return NL_ENOMEM;
	int rc = node(e, root);
	if (rc == 0 && (!yaml_document_end_event_initialize(&ev, 1) || !yaml_emitter_emit(e, &ev) ||
	                !yaml_stream_end_event_initialize(&ev) || !yaml_emitter_emit(e, &ev) ||
	                !yaml_emitter_flush(e)))
		rc = NL_ENOMEM;
	return rc;
}

int mock_yaml_from_json(nl_buf *out, const char *json, size_t len)
{
	struct json_tokener *tok = json_tokener_new_ex(NL_DOC_MAX_DEPTH);
	if (!tok)
		return NL_ENOMEM;
	json_object *root = json_tokener_parse_ex(tok, json, (int)len);
	int complete = json_tokener_get_error(tok) == json_tokener_success &&
	               json_tokener_get_parse_end(tok) == len;
	json_tokener_free(tok);
	if (!complete) {
		json_object_put(root);
		return NL_EPARSE;
	}
	yaml_emitter_t e;
	if (!yaml_emitter_initialize(&e)) {
		json_object_put(root);
		return NL_ENOMEM;
	}
	yaml_emitter_set_output(&e, write_handler, out);
	yaml_emitter_set_unicode(&e, 1);
	int rc = emit_document(&e, root);
	yaml_emitter_delete(&e);
	json_object_put(root);
	return rc;
}
