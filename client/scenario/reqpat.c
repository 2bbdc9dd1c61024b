/* Request patterns (reqpat.h). */
#include "reqpat.h"

#include <fnmatch.h>
#include <nodelet/clock.h>
#include <nodelet/nodelet_config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad(nl_err *err, const char *s, const char *why)
{
	return nl_err_set(err, NL_EPARSE, "request pattern \"%s\": %s", s, why);
}

static int copy_token(char *out, size_t outlen, const char *tok, size_t len)
{
	if (len >= outlen)
		return NL_ETOOBIG;
	memcpy(out, tok, len);
	out[len] = '\0';
	return 0;
}

static int parse_target(nl_scn_reqpat *p, const char *tok, size_t len)
{
	const char *slash = memchr(tok, '/', len);
	if (!slash)
		return copy_token(p->resource, sizeof(p->resource), tok, len);
	if (copy_token(p->resource, sizeof(p->resource), tok, (size_t)(slash - tok)) != 0)
		return NL_ETOOBIG;
	const char *name = slash + 1, *end = tok + len;
	const char *sub = memchr(name, '/', (size_t)(end - name));
	p->has_name = 1;
	if (!sub)
		return copy_token(p->name, sizeof(p->name), name, (size_t)(end - name));
	if (copy_token(p->name, sizeof(p->name), name, (size_t)(sub - name)) != 0)
		return NL_ETOOBIG;
	return copy_token(p->subresource, sizeof(p->subresource), sub + 1, (size_t)(end - sub - 1));
}

static int parse_code(nl_scn_reqpat *p, const char *tok, size_t len)
{
	if (len == 0 || len > 3)
		return NL_EPARSE;
	for (size_t i = 0; i < len; i++)
		if (!((tok[i] >= '0' && tok[i] <= '9') || tok[i] == '*' || tok[i] == '?'))
			return NL_EPARSE;
	return copy_token(p->code, sizeof(p->code), tok, len);
}

static int parse_timing(nl_scn_reqpat *p, const char *tok, size_t len)
{
	char d[64];
	if (len < 2 || copy_token(d, sizeof(d), tok + 1, len - 1) != 0 ||
	    nl_duration_parse(&p->at, d) != 0 || p->at < 0)
		return NL_EPARSE;
	p->timing = tok[0];
	return 0;
}

int nl_scn_reqpat_parse(nl_scn_reqpat *out, const char *s, nl_err *err)
{
	nl_scn_reqpat p;
	const char *tok[5];
	size_t len[5], n = 0;
	memset(&p, 0, sizeof(p));
	for (const char *c = s; *c;) {
		while (*c == ' ')
			c++;
		if (!*c)
			break;
		if (n == 5)
			return bad(err, s,
			           "too many words (expected VERB TARGET [CODE] [+TIME|@TIME])");
		tok[n] = c;
		while (*c && *c != ' ')
			c++;
		len[n] = (size_t)(c - tok[n]);
		n++;
	}
	if (n < 2)
		return bad(err, s,
		           "expected VERB TARGET [CODE] [+TIME|@TIME], e.g. \"get leases/edge-1\"");
	if (copy_token(p.verb, sizeof(p.verb), tok[0], len[0]) != 0)
		return bad(err, s, "verb too long");
	if (parse_target(&p, tok[1], len[1]) != 0 || !p.resource[0] || (p.has_name && !p.name[0]))
		return bad(err, s, "expected RESOURCE[/NAME[/SUBRESOURCE]] as the second word");
	for (size_t i = 2; i < n; i++) {
		if (tok[i][0] == '+' || tok[i][0] == '@') {
			if (p.timing || parse_timing(&p, tok[i], len[i]) != 0)
				return bad(err, s, "expected one timing like +200ms or @10s");
		} else if (p.code[0] || p.timing || parse_code(&p, tok[i], len[i]) != 0) {
			return bad(err, s,
			           "expected an HTTP code like 409 (or 4*) before the timing");
		}
	}
	*out = p;
	return 0;
}

static const char *field(json_object *entry, const char *key)
{
	json_object *v;
	return json_object_object_get_ex(entry, key, &v) && json_object_is_type(v, json_type_string)
	           ? json_object_get_string(v)
	           : "";
}

static int64_t entry_t(json_object *entry)
{
	json_object *v;
	return json_object_object_get_ex(entry, "t", &v) ? json_object_get_int64(v) : 0;
}

static int entry_code(json_object *entry)
{
	json_object *v;
	return json_object_object_get_ex(entry, "code", &v) ? json_object_get_int(v) : 0;
}

int nl_scn_reqpat_match(const nl_scn_reqpat *p, json_object *entry, int64_t prev_t)
{
	char code[16];
	if (fnmatch(p->verb, field(entry, "verb"), 0) != 0 ||
	    fnmatch(p->resource, field(entry, "resource"), 0) != 0)
		return 0;
	const char *name = field(entry, "name"), *sub = field(entry, "subresource");
	if (p->has_name ? fnmatch(p->name, name, 0) != 0 : name[0] != '\0')
		return 0;
	if (p->subresource[0] ? fnmatch(p->subresource, sub, 0) != 0 : sub[0] != '\0')
		return 0;
	snprintf(code, sizeof(code), "%d", entry_code(entry));
	if (p->code[0] && fnmatch(p->code, code, 0) != 0)
		return 0;
	if (p->timing == '+')
		return entry_t(entry) - prev_t == p->at;
	if (p->timing == '@')
		return entry_t(entry) == p->at;
	return 1;
}

void nl_scn_reqpat_describe(char *out, size_t outlen, json_object *entry, int64_t prev_t,
                            int with_timing)
{
	char d[NL_DURATION_BUFSZ] = "";
	const char *name = field(entry, "name"), *sub = field(entry, "subresource");
	if (with_timing)
		nl_duration_format(d, entry_t(entry) - prev_t);
	snprintf(out, outlen, "%s %s%s%s%s%s %d%s%s", field(entry, "verb"),
	         field(entry, "resource"), name[0] ? "/" : "", name, sub[0] ? "/" : "", sub,
	         entry_code(entry), with_timing ? " +" : "", d);
}
