/* klog's structured lines, text or JSON (nodelet/log.h). A line is built
 * in an nl_buf and written with one fwrite, so lines of several threads
 * never interleave. */
#include <nodelet/buf.h>
#include <nodelet/log.h>
#include <nodelet/quote.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* A line never grows past this (a value is cut first): logs are read by
 * people and by line-oriented collectors. */
#define LOG_LINE_CAP (64 * 1024)

static nl_log_domain default_domain = NL_LOG_DOMAIN_INIT;
static _Atomic(FILE *) output;
static atomic_int format = NL_LOG_FORMAT_TEXT;

void nl_log_domain_set_verbosity(nl_log_domain *d, int v)
{
	atomic_store(&d->verbosity, v);
}

int nl_log_domain_get_verbosity(nl_log_domain *d)
{
	return atomic_load(&d->verbosity);
}

int nl_log_domain_enabled(nl_log_domain *d, int level)
{
	return level <= atomic_load(&d->verbosity);
}

void nl_log_set_verbosity(int v)
{
	nl_log_domain_set_verbosity(&default_domain, v);
}

int nl_log_get_verbosity(void)
{
	return nl_log_domain_get_verbosity(&default_domain);
}

int nl_log_enabled(int level)
{
	return nl_log_domain_enabled(&default_domain, level);
}

void nl_log_set_output(FILE *f)
{
	atomic_store(&output, f);
}

void nl_log_set_format(nl_log_format f)
{
	atomic_store(&format, (int)f);
}

nl_log_format nl_log_get_format(void)
{
	return (nl_log_format)atomic_load(&format);
}

int nl_log_format_parse(nl_log_format *out, const char *name)
{
	if (strcmp(name, "text") == 0)
		*out = NL_LOG_FORMAT_TEXT;
	else if (strcmp(name, "json") == 0)
		*out = NL_LOG_FORMAT_JSON;
	else
		return -1;
	return 0;
}

void nl_log_format_error(char *out, size_t cap, const char *name)
{
	/* field.Invalid(fldPath.Child("format"), c.Format, "Unsupported log
	 * format"), the value as %q. */
	char q[256];
	nl_quote_str(q, sizeof(q), name);
	snprintf(out, cap, "format: Invalid value: %s: Unsupported log format", q);
}

/* ------------------------------------------------------------------------
 * Text: klog's header, then "msg" and key=value pairs (klog's
 * serialize.KVListFormat). */

/* A string value: %q on one line; with line breaks klog's block, each
 * line tab-indented and the end delimiter " >" on a line of its own. */
static void text_string(nl_buf *b, const char *v)
{
	v = v ? v : "";
	const char *nl = strchr(v, '\n');
	if (!nl) {
		nl_quote_append(b, v);
		return;
	}
	nl_buf_adds(b, "<\n");
	while (nl) {
		nl_buf_adds(b, "\t");
		nl_buf_add(b, v, (size_t)(nl - v) + 1);
		v = nl + 1;
		nl = strchr(v, '\n');
	}
	if (*v)
		nl_buf_printf(b, "\t%s\n >", v);
	else
		nl_buf_adds(b, " >");
}

static void text_value(nl_buf *b, const nl_log_kv *kv)
{
	switch (kv->type) {
	case NL_KV_T_STR:
		text_string(b, kv->s);
		break;
	case NL_KV_T_INT:
		nl_buf_printf(b, "%lld", kv->i);
		break;
	case NL_KV_T_UINT:
		nl_buf_printf(b, "%llu", kv->u);
		break;
	case NL_KV_T_BOOL:
		nl_buf_adds(b, kv->i ? "true" : "false");
		break;
	case NL_KV_T_REF:
		/* ObjectRef.String(), quoted as a Stringer's text */
		if (kv->ns && kv->ns[0]) {
			nl_buf nsname;
			nl_buf_init(&nsname, LOG_LINE_CAP);
			nl_buf_printf(&nsname, "%s/%s", kv->ns, kv->s ? kv->s : "");
			text_string(b, nsname.data ? nsname.data : "");
			nl_buf_free(&nsname);
		} else {
			text_string(b, kv->s);
		}
		break;
	}
}

static void text_line(nl_buf *b, char sev, const struct timeval *tv, const char *file, int line,
                      const char *err, const char *msg, const nl_log_kv *kv, size_t n)
{
	struct tm tm;
	const char *base = strrchr(file, '/');
	gmtime_r(&tv->tv_sec, &tm);
	nl_buf_printf(b, "%c%02d%02d %02d:%02d:%02d.%06ld %7d %s:%d] ", sev, tm.tm_mon + 1,
	              tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (long)tv->tv_usec,
	              (int)getpid(), base ? base + 1 : file, line);
	/* klog quotes the message even when it holds line breaks. */
	nl_quote_append(b, msg);
	if (err) {
		nl_buf_adds(b, " err=");
		text_string(b, err);
	}
	for (size_t i = 0; i < n; i++) {
		nl_buf_printf(b, " %s=", kv[i].key);
		text_value(b, &kv[i]);
	}
	nl_buf_adds(b, "\n");
}

/* ------------------------------------------------------------------------
 * JSON: zap's JSON encoder as component-base configures it. */

static int utf8_len(const unsigned char *p)
{
	unsigned c = p[0];
	int n = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
	for (int i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	/* overlong forms and surrogates are invalid, as Go decodes them */
	if (n == 3 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0)))
		return 0;
	if (n == 4 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90)))
		return 0;
	return n;
}

/* A JSON string as zap escapes it: \\ \" \n \r \t, other bytes below
 * 0x20 as \u00xx, invalid UTF-8 as \ufffd, everything else as is. */
static void json_string(nl_buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	nl_buf_adds(b, "\"");
	while (*p) {
		unsigned c = *p;
		if (c >= 0x80) {
			int n = utf8_len(p);
			if (n == 0) {
				nl_buf_adds(b, "\\ufffd");
				p++;
			} else {
				nl_buf_add(b, (const char *)p, (size_t)n);
				p += n;
			}
			continue;
		}
		if (c == '\\' || c == '"') {
			char e[2] = {'\\', (char)c};
			nl_buf_add(b, e, 2);
		} else if (c == '\n') {
			nl_buf_adds(b, "\\n");
		} else if (c == '\r') {
			nl_buf_adds(b, "\\r");
		} else if (c == '\t') {
			nl_buf_adds(b, "\\t");
		} else if (c < 0x20) {
			char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
			nl_buf_add(b, e, 6);
		} else {
			nl_buf_add(b, (const char *)p, 1);
		}
		p++;
	}
	nl_buf_adds(b, "\"");
}

/* strconv.FormatFloat(f, 'f', -1, 64): the fewest digits after the point
 * that read back as the same double. */
static void json_float(nl_buf *b, double f)
{
	char s[64];
	for (int prec = 0; prec <= 17; prec++) {
		snprintf(s, sizeof(s), "%.*f", prec, f);
		if (strtod(s, NULL) == f)
			break;
	}
	nl_buf_adds(b, s);
}

/* zap's ShortCallerEncoder: the last directory and the file. */
static const char *short_caller(const char *file)
{
	const char *last = strrchr(file, '/');
	if (!last)
		return file;
	for (const char *p = last - 1; p >= file; p--)
		if (*p == '/')
			return p + 1;
	return file;
}

static void json_pairs(nl_buf *b, const nl_log_kv *kv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		nl_buf_adds(b, ",");
		json_string(b, kv[i].key);
		nl_buf_adds(b, ":");
		switch (kv[i].type) {
		case NL_KV_T_STR:
			json_string(b, kv[i].s);
			break;
		case NL_KV_T_INT:
			nl_buf_printf(b, "%lld", kv[i].i);
			break;
		case NL_KV_T_UINT:
			nl_buf_printf(b, "%llu", kv[i].u);
			break;
		case NL_KV_T_BOOL:
			nl_buf_adds(b, kv[i].i ? "true" : "false");
			break;
		case NL_KV_T_REF:
			/* ObjectRef's MarshalLog: namespace omitted when empty */
			nl_buf_adds(b, "{\"name\":");
			json_string(b, kv[i].s);
			if (kv[i].ns && kv[i].ns[0]) {
				nl_buf_adds(b, ",\"namespace\":");
				json_string(b, kv[i].ns);
			}
			nl_buf_adds(b, "}");
			break;
		}
	}
}

static void json_line(nl_buf *b, char sev, int v, const struct timeval *tv, const char *file,
                      int line, const char *err, const char *msg, const nl_log_kv *kv, size_t n)
{
	nl_buf_adds(b, "{\"ts\":");
	json_float(b, (double)tv->tv_sec * 1000.0 + (double)tv->tv_usec / 1000.0);
	nl_buf_printf(b, ",\"caller\":\"%s:%d\",\"msg\":", short_caller(file), line);
	json_string(b, msg);
	/* klog hands warnings and infos to logr's Info (with "v"), errors to
	 * Error, whose err zapr appends after the pairs. */
	if (sev != 'E')
		nl_buf_printf(b, ",\"v\":%d", v);
	json_pairs(b, kv, n);
	if (sev == 'E' && err) {
		nl_buf_adds(b, ",\"err\":");
		json_string(b, err);
	}
	nl_buf_adds(b, "}\n");
}

void nl_log_s(char sev, int v, const char *file, int line, const char *err, const char *msg,
              const nl_log_kv *kv, size_t n)
{
	struct timeval tv;
	nl_buf b;
	FILE *out = atomic_load(&output);

	/* klog stamps lines with the wall clock, not an injected one: logs are
	 * read next to other processes' logs. */
	gettimeofday(&tv, NULL);
	nl_buf_init(&b, LOG_LINE_CAP);
	if (nl_log_get_format() == NL_LOG_FORMAT_JSON)
		json_line(&b, sev, v, &tv, file, line, err, msg, kv, n);
	else
		text_line(&b, sev, &tv, file, line, err, msg, kv, n);
	if (b.len > 0 && b.data[b.len - 1] != '\n') {
		/* cut at the cap: still one line */
		if (b.len >= LOG_LINE_CAP)
			b.len = LOG_LINE_CAP - 1;
		nl_buf_adds(&b, "\n");
	}
	if (b.len > 0 && b.data[b.len - 1] == '\n') {
		fwrite(b.data, 1, b.len, out ? out : stderr);
	} else {
		/* Out of memory: the message alone, which needs none. */
		char q[512];
		nl_quote_str(q, sizeof(q), msg);
		fprintf(out ? out : stderr, "%c %s\n", sev, q);
	}
	nl_buf_free(&b);
}
