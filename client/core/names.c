/* Hand-written scanners for apimachinery's validation regexes; the messages
 * are copied from k8s.io/apimachinery/pkg/util/validation (1.32) because
 * clients and tests match on them. */
#include <nodelet/errors.h>
#include <nodelet/names.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define QUALIFIED_NAME_MAX 63
#define LABEL_VALUE_MAX 63
#define PATH_COMPONENT_MAX 255

#define DNS1123_LABEL_FMT "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
#define DNS1123_LABEL_MSG                                                                        \
	"a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', " \
	"and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', " \
	"regex used for validation is '" DNS1123_LABEL_FMT "')"
#define DNS1123_SUBDOMAIN_MSG                                                                     \
	"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' " \
	"or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "     \
	"regex used for validation is '" DNS1123_LABEL_FMT "(\\." DNS1123_LABEL_FMT ")*')"
#define CONFIG_KEY_MSG                                                                       \
	"a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. " \
	"'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "          \
	"'[-._a-zA-Z0-9]+')"
#define QUALIFIED_NAME_FMT "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
#define QUALIFIED_NAME_MSG                                                                        \
	"must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "  \
	"an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for " \
	"validation is '" QUALIFIED_NAME_FMT "')"
#define LABEL_VALUE_MSG                                                                          \
	"a valid label must be an empty string or consist of alphanumeric characters, '-', '_' " \
	"or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "    \
	"'my_value',  or '12345', regex used for validation is '(" QUALIFIED_NAME_FMT ")?')"
#define EMPTY_MSG "must be non-empty"

/* Collects messages into the caller's buffer, joined with "; " like Go's
 * callers join the []string a validator returns; truncates silently. */
typedef struct {
	char *buf;
	size_t cap;
	size_t len;
	int count;
} why_writer;

static void why_init(why_writer *w, char *buf, size_t cap)
{
	w->buf = buf;
	w->cap = buf ? cap : 0;
	w->len = 0;
	w->count = 0;
	if (w->cap)
		buf[0] = '\0';
}

static void why_put(why_writer *w, const char *s)
{
	size_t n = strlen(s);
	if (w->cap == 0 || w->len >= w->cap - 1)
		return;
	if (n > w->cap - 1 - w->len)
		n = w->cap - 1 - w->len;
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = '\0';
}

static void why_add(why_writer *w, const char *prefix, const char *msg)
{
	if (w->count++)
		why_put(w, "; ");
	why_put(w, prefix);
	why_put(w, msg);
}

static void why_add_maxlen(why_writer *w, const char *prefix, int max)
{
	char msg[64];
	snprintf(msg, sizeof(msg), "must be no more than %d characters", max);
	why_add(w, prefix, msg);
}

static int why_result(const why_writer *w)
{
	return w->count ? NL_EINVALID : 0;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || is_digit(c);
}

static bool is_alnum(char c)
{
	return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

/* [a-z0-9]([-a-z0-9]*[a-z0-9])? over exactly len bytes */
static bool match_dns_label(const char *s, size_t len)
{
	if (len == 0 || !is_lower_alnum(s[0]) || !is_lower_alnum(s[len - 1]))
		return false;
	for (size_t i = 1; i + 1 < len; i++)
		if (!is_lower_alnum(s[i]) && s[i] != '-')
			return false;
	return true;
}

/* label(\.label)* over exactly len bytes */
static bool match_dns_subdomain(const char *s, size_t len)
{
	size_t start = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && s[i] != '.')
			continue;
		if (!match_dns_label(s + start, i - start))
			return false;
		start = i + 1;
	}
	return true;
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9] over exactly len bytes */
static bool match_qualified_name(const char *s, size_t len)
{
	if (len == 0 || !is_alnum(s[0]) || !is_alnum(s[len - 1]))
		return false;
	for (size_t i = 1; i + 1 < len; i++)
		if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

static void check_subdomain(why_writer *w, const char *prefix, const char *s, size_t len)
{
	if (len > NL_DNS1123_SUBDOMAIN_MAX)
		why_add_maxlen(w, prefix, NL_DNS1123_SUBDOMAIN_MAX);
	if (!match_dns_subdomain(s, len))
		why_add(w, prefix, DNS1123_SUBDOMAIN_MSG);
}

int nl_name_is_dns1123_subdomain_n(const char *s, size_t len, char *why, size_t whylen)
{
	why_writer w;
	why_init(&w, why, whylen);
	if (!s)
		return NL_EINVAL;
	check_subdomain(&w, "", s, len);
	return why_result(&w);
}

int nl_name_is_dns1123_subdomain(const char *s, char *why, size_t whylen)
{
	return nl_name_is_dns1123_subdomain_n(s, s ? strlen(s) : 0, why, whylen);
}

int nl_name_is_dns1123_label(const char *s, char *why, size_t whylen)
{
	return nl_name_is_dns1123_label_n(s, s ? strlen(s) : 0, why, whylen);
}

int nl_name_is_dns1123_label_n(const char *s, size_t len, char *why, size_t whylen)
{
	why_writer w;
	why_init(&w, why, whylen);
	if (!s)
		return NL_EINVAL;
	if (len > NL_DNS1123_LABEL_MAX)
		why_add_maxlen(&w, "", NL_DNS1123_LABEL_MAX);
	/* A valid subdomain that is not a valid label can only differ by its dots
	 * (the regexes ignore length), and apimachinery says so plainly. */
	if (!match_dns_label(s, len))
		why_add(&w, "",
		        match_dns_subdomain(s, len) ? "must not contain dots" : DNS1123_LABEL_MSG);
	return why_result(&w);
}

/* hasChDirPrefix: data keys become file names in a projected volume. */
static void check_chdir_prefix(why_writer *w, const char *s, size_t len)
{
	if (len == 1 && s[0] == '.')
		why_add(w, "", "must not be '.'");
	else if (len == 2 && memcmp(s, "..", 2) == 0)
		why_add(w, "", "must not be '..'");
	else if (len > 2 && memcmp(s, "..", 2) == 0)
		why_add(w, "", "must not start with '..'");
}

int nl_name_is_config_key(const char *s, char *why, size_t whylen)
{
	return nl_name_is_config_key_n(s, s ? strlen(s) : 0, why, whylen);
}

int nl_name_is_config_key_n(const char *s, size_t len, char *why, size_t whylen)
{
	why_writer w;
	why_init(&w, why, whylen);
	if (!s)
		return NL_EINVAL;
	bool ok = len > 0;
	for (size_t i = 0; ok && i < len; i++)
		ok = is_alnum(s[i]) || s[i] == '-' || s[i] == '_' || s[i] == '.';
	if (len > NL_CONFIGMAP_KEY_MAX)
		why_add_maxlen(&w, "", NL_CONFIGMAP_KEY_MAX);
	if (!ok)
		why_add(&w, "", CONFIG_KEY_MSG);
	check_chdir_prefix(&w, s, len);
	return why_result(&w);
}

/* IsQualifiedName: [prefix/]name, prefix a DNS subdomain, name <= 63. */
int nl_name_is_label_key(const char *s, char *why, size_t whylen)
{
	return nl_name_is_label_key_n(s, s ? strlen(s) : 0, why, whylen);
}

int nl_name_is_label_key_n(const char *s, size_t len, char *why, size_t whylen)
{
	why_writer w;
	why_init(&w, why, whylen);
	if (!s)
		return NL_EINVAL;
	const char *end = s + len;
	const char *slash = memchr(s, '/', len);
	const char *name = s;
	if (slash && memchr(slash + 1, '/', (size_t)(end - slash - 1))) {
		why_add(&w, "a qualified name ",
		        QUALIFIED_NAME_MSG " with an optional DNS subdomain prefix and '/' (e.g. "
		                           "'example.com/MyName')");
		return why_result(&w);
	}
	if (slash) {
		size_t plen = (size_t)(slash - s);
		if (plen == 0)
			why_add(&w, "prefix part ", EMPTY_MSG);
		else
			check_subdomain(&w, "prefix part ", s, plen);
		name = slash + 1;
	}
	size_t nlen = (size_t)(end - name);
	if (nlen == 0)
		why_add(&w, "name part ", EMPTY_MSG);
	else if (nlen > QUALIFIED_NAME_MAX)
		why_add_maxlen(&w, "name part ", QUALIFIED_NAME_MAX);
	if (!match_qualified_name(name, nlen))
		why_add(&w, "name part ", QUALIFIED_NAME_MSG);
	return why_result(&w);
}

int nl_name_is_label_value(const char *s, char *why, size_t whylen)
{
	return nl_name_is_label_value_n(s, s ? strlen(s) : 0, why, whylen);
}

int nl_name_is_label_value_n(const char *s, size_t len, char *why, size_t whylen)
{
	why_writer w;
	why_init(&w, why, whylen);
	if (!s)
		return NL_EINVAL;
	if (len > LABEL_VALUE_MAX)
		why_add_maxlen(&w, "", LABEL_VALUE_MAX);
	if (len > 0 && !match_qualified_name(s, len))
		why_add(&w, "", LABEL_VALUE_MSG);
	return why_result(&w);
}

int nl_name_is_path_component(const char *s, char *why, size_t whylen)
{
	why_writer w;
	why_init(&w, why, whylen);
	if (!s)
		return NL_EINVAL;
	size_t len = strlen(s);
	if (len == 0) {
		why_add(&w, "", EMPTY_MSG);
		return why_result(&w);
	}
	if (len > PATH_COMPONENT_MAX)
		why_add_maxlen(&w, "", PATH_COMPONENT_MAX);
	if (strchr(s, '/'))
		why_add(&w, "", "must not contain '/'");
	if (strcmp(s, ".") == 0)
		why_add(&w, "", "must not be '.'");
	else if (strcmp(s, "..") == 0)
		why_add(&w, "", "must not be '..'");
	return why_result(&w);
}
