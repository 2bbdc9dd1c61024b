/* Label and field selectors, parsed the way k8s.io/apimachinery's
 * pkg/labels (lexer + recursive descent, Parse) and pkg/fields
 * (ParseSelector) do, error messages included: clients and kubectl users see
 * these strings in 400 responses. */
#include <inttypes.h>
#include <nodelet/errors.h>
#include <nodelet/meta.h>
#include <nodelet/names.h>
#include <nodelet/quote.h>
#include <nodelet/selector.h>

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- shared helpers ---------------------------------------------------------- */

struct strvec {
	char **v;
	size_t n, cap;
};

static int strvec_push(struct strvec *sv, const char *s, size_t len)
{
	if (sv->n == sv->cap) {
		size_t ncap = sv->cap ? sv->cap * 2 : 4;
		char **nv = realloc(sv->v, ncap * sizeof(*nv));
		if (!nv)
			return NL_ENOMEM;
		sv->v = nv;
		sv->cap = ncap;
	}
	if (!(sv->v[sv->n] = strndup(s, len)))
		return NL_ENOMEM;
	sv->n++;
	return 0;
}

static void strvec_free(struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- label selector: lexer ------------------------------------------------------ */

enum label_op {
	OP_EXISTS,
	OP_NOT_EXISTS,
	OP_EQUALS,
	OP_DOUBLE_EQUALS,
	OP_NOT_EQUALS,
	OP_IN,
	OP_NOT_IN,
	OP_GT,
	OP_LT,
};

struct requirement {
	char *key;
	enum label_op op;
	struct strvec values; /* sorted, unique (apimachinery's sets.String.List) */
};

struct nl_label_selector {
	struct requirement *reqs;
	size_t n, cap;
};

enum tok {
	T_EOS,
	T_CLOSE_PAR,
	T_COMMA,
	T_NOT,
	T_DOUBLE_EQUALS,
	T_EQUALS,
	T_GT,
	T_IDENT,
	T_IN,
	T_LT,
	T_NOT_EQUALS,
	T_NOT_IN,
	T_OPEN_PAR,
};

struct token {
	enum tok t;
	const char *s;
	int n;
};

struct parser {
	struct token *toks;
	size_t ntoks, pos;
	char msg[512];
};

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int is_special(char c)
{
	return c && strchr("=!(),><", c) != NULL;
}

static enum tok special_tok(const char *s, int *n)
{
	*n = 1;
	if ((s[0] == '!' || s[0] == '=') && s[1] == '=') {
		*n = 2;
		return s[0] == '!' ? T_NOT_EQUALS : T_DOUBLE_EQUALS;
	}
	switch (s[0]) {
	case '=':
		return T_EQUALS;
	case '!':
		return T_NOT;
	case '(':
		return T_OPEN_PAR;
	case ')':
		return T_CLOSE_PAR;
	case ',':
		return T_COMMA;
	case '>':
		return T_GT;
	default:
		return T_LT;
	}
}

/* Tokens up to and including T_EOS; specials are matched longest first
 * ("!=" before "!"), anything else runs to the next special or blank. */
static int lex(struct parser *p, const char *s)
{
	size_t cap = 0;
	for (;;) {
		while (is_ws(*s))
			s++;
		struct token tk = {T_EOS, s, 0};
		if (*s && is_special(*s)) {
			tk.t = special_tok(s, &tk.n);
		} else if (*s) {
			while (s[tk.n] && !is_special(s[tk.n]) && !is_ws(s[tk.n]))
				tk.n++;
			tk.t = T_IDENT;
			if (tk.n == 2 && memcmp(s, "in", 2) == 0)
				tk.t = T_IN;
			else if (tk.n == 5 && memcmp(s, "notin", 5) == 0)
				tk.t = T_NOT_IN;
		}
		if (p->ntoks == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			struct token *nt = realloc(p->toks, ncap * sizeof(*nt));
			if (!nt)
				return NL_ENOMEM;
			p->toks = nt;
			cap = ncap;
		}
		p->toks[p->ntoks++] = tk;
		if (tk.t == T_EOS)
			return 0;
		s += tk.n;
	}
}

/* ---- label selector: parser ----------------------------------------------------- */

/* In value position "in" and "notin" are plain identifiers ("x in (in)"). */
static enum tok peek(const struct parser *p, int values, const struct token **tk)
{
	*tk = &p->toks[p->pos];
	enum tok t = (*tk)->t;
	return values && (t == T_IN || t == T_NOT_IN) ? T_IDENT : t;
}

static enum tok next(struct parser *p, int values, const struct token **tk)
{
	enum tok t = peek(p, values, tk);
	if (p->pos + 1 < p->ntoks)
		p->pos++;
	return t;
}

__attribute__((format(printf, 2, 3))) static int fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof(p->msg), fmt, ap);
	va_end(ap);
	return NL_EPARSE;
}

static int parse_key(struct parser *p, char **key, enum label_op *op, int *has_op)
{
	const struct token *tk;
	char why[400], q[200];
	*has_op = 0;
	enum tok t = next(p, 1, &tk);
	if (t == T_NOT) {
		*op = OP_NOT_EXISTS;
		*has_op = 1;
		t = next(p, 1, &tk);
	}
	if (t != T_IDENT)
		return fail(p, "found '%.*s', expected: identifier", tk->n, tk->s);
	if (!(*key = strndup(tk->s, (size_t)tk->n)))
		return NL_ENOMEM;
	if (nl_name_is_label_key(*key, why, sizeof(why))) {
		nl_quote_str(q, sizeof(q), *key);
		/* apimachinery validates with a nil field path, hence "<nil>". */
		return fail(p, "<nil>: Invalid value: %s: %s", q, why);
	}
	t = peek(p, 1, &tk);
	if ((t == T_EOS || t == T_COMMA) && !*has_op) {
		*op = OP_EXISTS;
		*has_op = 1;
	}
	return 0;
}

static int parse_operator(struct parser *p, enum label_op *op)
{
	const struct token *tk;
	switch (next(p, 0, &tk)) {
	case T_IN:
		*op = OP_IN;
		return 0;
	case T_EQUALS:
		*op = OP_EQUALS;
		return 0;
	case T_DOUBLE_EQUALS:
		*op = OP_DOUBLE_EQUALS;
		return 0;
	case T_GT:
		*op = OP_GT;
		return 0;
	case T_LT:
		*op = OP_LT;
		return 0;
	case T_NOT_IN:
		*op = OP_NOT_IN;
		return 0;
	case T_NOT_EQUALS:
		*op = OP_NOT_EQUALS;
		return 0;
	default:
		/* sic: apimachinery's message lacks the quote before notin */
		return fail(p, "found '%.*s', expected: '=', '!=', '==', 'in', notin'", tk->n,
		            tk->s);
	}
}

static int set_insert(struct strvec *set, const char *s, size_t len)
{
	for (size_t i = 0; i < set->n; i++)
		if (strlen(set->v[i]) == len && memcmp(set->v[i], s, len) == 0)
			return 0;
	return strvec_push(set, s, len);
}

/* "a, b" after "(": empty entries ("(,a" "a,,b" "a,)") stand for "". */
static int parse_identifiers(struct parser *p, struct strvec *set)
{
	const struct token *tk, *tk2;
	int rc;
	for (;;) {
		switch (next(p, 1, &tk)) {
		case T_IDENT:
			if ((rc = set_insert(set, tk->s, (size_t)tk->n)))
				return rc;
			switch (peek(p, 1, &tk2)) {
			case T_COMMA:
				continue;
			case T_CLOSE_PAR:
				return 0;
			default:
				return fail(p, "found '%.*s', expected: ',' or ')'", tk2->n,
				            tk2->s);
			}
		case T_COMMA:
			if (set->n == 0 && (rc = set_insert(set, "", 0)))
				return rc;
			switch (peek(p, 1, &tk2)) {
			case T_CLOSE_PAR:
				return set_insert(set, "", 0);
			case T_COMMA:
				next(p, 1, &tk2);
				if ((rc = set_insert(set, "", 0)))
					return rc;
				break;
			default:
				break;
			}
			break;
		default:
			return fail(p, "found '%.*s', expected: ',', or identifier", tk->n, tk->s);
		}
	}
}

static int parse_values(struct parser *p, struct strvec *set)
{
	const struct token *tk;
	if (next(p, 1, &tk) != T_OPEN_PAR)
		return fail(p, "found '%.*s' expected: '('", tk->n, tk->s);
	switch (peek(p, 1, &tk)) {
	case T_IDENT:
	case T_COMMA: {
		const struct token *first = tk;
		int rc = parse_identifiers(p, set);
		if (rc)
			return rc;
		if (next(p, 1, &tk) != T_CLOSE_PAR)
			return fail(p, "found '%.*s', expected: ')'", first->n, first->s);
		return 0;
	}
	case T_CLOSE_PAR:
		next(p, 1, &tk);
		return set_insert(set, "", 0);
	default:
		return fail(p, "found '%.*s', expected: ',', ')' or identifier", tk->n, tk->s);
	}
}

static int parse_exact_value(struct parser *p, struct strvec *set)
{
	const struct token *tk;
	enum tok t = peek(p, 1, &tk);
	if (t == T_EOS || t == T_COMMA)
		return set_insert(set, "", 0);
	if (next(p, 1, &tk) == T_IDENT)
		return set_insert(set, tk->s, (size_t)tk->n);
	return fail(p, "found '%.*s', expected: identifier", tk->n, tk->s);
}

/* strconv.ParseInt(s, 10, 64) */
static int parse_int10(const char *s, long long *out)
{
	char *end;
	if (!*s || is_ws(*s))
		return -1;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (*end || errno == ERANGE)
		return -1;
	*out = v;
	return 0;
}

/* Error texts end up in nl_err's fixed buffer, so truncation is expected. */
__attribute__((format(printf, 3, 4))) static void fmt_into(char *buf, size_t cap, const char *fmt,
                                                           ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, cap, fmt, ap);
	va_end(ap);
}

/* Appends one field error to an aggregate ("a" or "[a, b]" once finished). */
static void agg_add(char *buf, size_t cap, int *count, const char *msg)
{
	size_t len = strlen(buf);
	fmt_into(buf + len, cap - len, "%s%s", *count ? ", " : "", msg);
	(*count)++;
}

/* The value checks of apimachinery's NewRequirement (the key was checked
 * while parsing, the value-count rules cannot fail for parsed input). */
static int validate_values(struct parser *p, const struct requirement *r)
{
	char all[512] = "", one[512], why[400], q[200];
	int count = 0;
	long long ignored;
	if (r->op == OP_GT || r->op == OP_LT) {
		for (size_t i = 0; i < r->values.n; i++) {
			if (parse_int10(r->values.v[i], &ignored) == 0)
				continue;
			nl_quote_str(q, sizeof(q), r->values.v[i]);
			fmt_into(
			    one, sizeof(one),
			    "values[%zu]: Invalid value: %s: for 'Gt', 'Lt' operators, the value "
			    "must be an integer",
			    i, q);
			agg_add(all, sizeof(all), &count, one);
		}
	}
	for (size_t i = 0; i < r->values.n; i++) {
		if (nl_name_is_label_value(r->values.v[i], why, sizeof(why)) == 0)
			continue;
		nl_quote_str(q, sizeof(q), r->values.v[i]);
		fmt_into(one, sizeof(one), "values[%zu][%s]: Invalid value: %s: %s", i, r->key, q,
		         why);
		agg_add(all, sizeof(all), &count, one);
	}
	if (count == 0)
		return 0;
	return count == 1 ? fail(p, "%s", all) : fail(p, "[%s]", all);
}

static int parse_requirement(struct parser *p, struct requirement *r)
{
	int has_op, rc = parse_key(p, &r->key, &r->op, &has_op);
	if (rc)
		return rc;
	if (!has_op) {
		if ((rc = parse_operator(p, &r->op)))
			return rc;
		rc = (r->op == OP_IN || r->op == OP_NOT_IN) ? parse_values(p, &r->values)
		                                            : parse_exact_value(p, &r->values);
		if (rc)
			return rc;
		qsort(r->values.v, r->values.n, sizeof(*r->values.v), cmp_str);
	}
	return validate_values(p, r);
}

static void requirement_free(struct requirement *r)
{
	free(r->key);
	strvec_free(&r->values);
}

static int selector_add(nl_label_selector *sel, struct requirement *r)
{
	if (sel->n == sel->cap) {
		size_t ncap = sel->cap ? sel->cap * 2 : 4;
		struct requirement *nr = realloc(sel->reqs, ncap * sizeof(*nr));
		if (!nr)
			return NL_ENOMEM;
		sel->reqs = nr;
		sel->cap = ncap;
	}
	sel->reqs[sel->n++] = *r;
	return 0;
}

static int parse_selector(struct parser *p, nl_label_selector *sel)
{
	const struct token *tk;
	for (;;) {
		enum tok t = peek(p, 1, &tk);
		if (t == T_EOS)
			return 0;
		if (t != T_IDENT && t != T_NOT)
			return fail(p, "found '%.*s', expected: !, identifier, or 'end of string'",
			            tk->n, tk->s);
		struct requirement r = {0};
		int rc = parse_requirement(p, &r);
		if (rc == 0)
			rc = selector_add(sel, &r);
		if (rc) {
			requirement_free(&r);
			if (rc == NL_EPARSE) {
				char inner[sizeof(p->msg)];
				memcpy(inner, p->msg, sizeof(inner));
				fail(p, "unable to parse requirement: %s", inner);
			}
			return rc;
		}
		t = next(p, 1, &tk);
		if (t == T_EOS)
			return 0;
		if (t != T_COMMA)
			return fail(p, "found '%.*s', expected: ',' or 'end of string'", tk->n,
			            tk->s);
		t = peek(p, 1, &tk);
		if (t != T_IDENT && t != T_NOT)
			return fail(p, "found '%.*s', expected: identifier after ','", tk->n,
			            tk->s);
	}
}

int nl_label_selector_parse(nl_label_selector **out, const char *s, nl_err *err)
{
	struct parser p = {0};
	nl_label_selector *sel;
	int rc;
	if (!out)
		return nl_err_set(err, NL_EINVAL, "nl_label_selector_parse: out is NULL");
	if (!(sel = calloc(1, sizeof(*sel))))
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	rc = lex(&p, s ? s : "");
	if (rc == 0)
		rc = parse_selector(&p, sel);
	free(p.toks);
	if (rc) {
		nl_label_selector_free(sel);
		if (rc == NL_EPARSE)
			return nl_err_set(err, rc, "%s", p.msg);
		return nl_err_set(err, rc, "out of memory");
	}
	*out = sel;
	return 0;
}

static int requirement_matches(const struct requirement *r, json_object *labels)
{
	json_object *v = NULL;
	int has = labels && json_object_object_get_ex(labels, r->key, &v);
	const char *val = has && v ? json_object_get_string(v) : "";
	int in = 0;
	for (size_t i = 0; has && i < r->values.n && !in; i++)
		in = strcmp(r->values.v[i], val) == 0;
	switch (r->op) {
	case OP_EXISTS:
		return has;
	case OP_NOT_EXISTS:
		return !has;
	case OP_EQUALS:
	case OP_DOUBLE_EQUALS:
	case OP_IN:
		return has && in;
	case OP_NOT_EQUALS:
	case OP_NOT_IN:
		/* an object without the key matches != and notin */
		return !has || !in;
	case OP_GT:
	case OP_LT: {
		long long lv, rv;
		if (!has || r->values.n != 1 || parse_int10(val, &lv) ||
		    parse_int10(r->values.v[0], &rv))
			return 0;
		return r->op == OP_GT ? lv > rv : lv < rv;
	}
	}
	return 0;
}

int nl_label_selector_matches(const nl_label_selector *sel, json_object *labels)
{
	for (size_t i = 0; sel && i < sel->n; i++)
		if (!requirement_matches(&sel->reqs[i], labels))
			return 0;
	return 1;
}

int nl_label_selector_empty(const nl_label_selector *sel)
{
	return !sel || sel->n == 0;
}

void nl_label_selector_free(nl_label_selector *sel)
{
	if (!sel)
		return;
	for (size_t i = 0; i < sel->n; i++)
		requirement_free(&sel->reqs[i]);
	free(sel->reqs);
	free(sel);
}

/* ---- field selector ---------------------------------------------------------- */

struct field_term {
	char *field;
	char *value;
	int negate;
};

struct nl_field_selector {
	struct field_term *terms;
	size_t n;
};

/* fields.splitTerms: commas split terms unless backslash-escaped; the
 * backslash stays for UnescapeValue. */
static int split_terms(struct strvec *terms, const char *s)
{
	const char *start = s;
	int in_slash = 0, rc;
	for (; *s; s++) {
		if (in_slash)
			in_slash = 0;
		else if (*s == '\\')
			in_slash = 1;
		else if (*s == ',') {
			if ((rc = strvec_push(terms, start, (size_t)(s - start))))
				return rc;
			start = s + 1;
		}
	}
	return strvec_push(terms, start, (size_t)(s - start));
}

static int utf8_len(unsigned char c)
{
	return c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
}

/* fields.UnescapeValue: only \\ \, \= are escapes; a bare , or = is refused. */
static int unescape_value(char **out, const char *s, char *msg, size_t msglen)
{
	char *v = malloc(strlen(s) + 1), *o = v;
	if (!v)
		return NL_ENOMEM;
	for (; *s; s++) {
		if (*s == '\\') {
			s++;
			if (*s == '\\' || *s == ',' || *s == '=') {
				*o++ = *s;
				continue;
			}
			int n = *s ? utf8_len((unsigned char)*s) : 0;
			snprintf(msg, msglen,
			         "invalid field selector: invalid escape sequence: \\%.*s", n, s);
			free(v);
			return NL_EPARSE;
		}
		if (*s == ',' || *s == '=') {
			/* Go prints the rune with %v, i.e. its number */
			snprintf(msg, msglen,
			         "invalid field selector: unescaped character in value: %d", *s);
			free(v);
			return NL_EPARSE;
		}
		*o++ = *s;
	}
	*o = '\0';
	*out = v;
	return 0;
}

/* fields.splitTerm: the first "!=", "==" or "=" splits; the field name has
 * no escaping. */
static int split_term(const char *term, size_t *lhs_len, int *negate, const char **rhs)
{
	for (const char *c = term; *c; c++) {
		if (c[0] == '!' && c[1] == '=') {
			*negate = 1;
			*rhs = c + 2;
		} else if (c[0] == '=') {
			*negate = 0;
			*rhs = c + (c[1] == '=' ? 2 : 1);
		} else {
			continue;
		}
		*lhs_len = (size_t)(c - term);
		return 0;
	}
	return -1;
}

static int parse_term(struct field_term *t, const char *sel, const char *term, char *msg,
                      size_t msglen)
{
	size_t lhs_len;
	const char *rhs;
	if (split_term(term, &lhs_len, &t->negate, &rhs)) {
		snprintf(msg, msglen, "invalid selector: '%s'; can't understand '%s'", sel, term);
		return NL_EPARSE;
	}
	int rc = unescape_value(&t->value, rhs, msg, msglen);
	if (rc)
		return rc;
	if (!(t->field = strndup(term, lhs_len))) {
		free(t->value);
		return NL_ENOMEM;
	}
	return 0;
}

int nl_field_selector_parse(nl_field_selector **out, const char *s, nl_err *err)
{
	struct strvec terms = {0};
	char msg[512] = "out of memory";
	nl_field_selector *sel;
	int rc = 0;
	if (!out)
		return nl_err_set(err, NL_EINVAL, "nl_field_selector_parse: out is NULL");
	if (!(sel = calloc(1, sizeof(*sel))))
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	if (s && *s && (rc = split_terms(&terms, s)) == 0) {
		/* sorted as apimachinery does, which fixes the error reported first */
		qsort(terms.v, terms.n, sizeof(*terms.v), cmp_str);
		if (!(sel->terms = calloc(terms.n, sizeof(*sel->terms))))
			rc = NL_ENOMEM;
	}
	for (size_t i = 0; rc == 0 && i < terms.n; i++) {
		if (terms.v[i][0] == '\0')
			continue;
		rc = parse_term(&sel->terms[sel->n], s, terms.v[i], msg, sizeof(msg));
		if (rc == 0)
			sel->n++;
	}
	strvec_free(&terms);
	if (rc) {
		nl_field_selector_free(sel);
		return nl_err_set(err, rc, "%s", msg);
	}
	*out = sel;
	return 0;
}

int nl_field_selector_matches(const nl_field_selector *sel, nl_field_getter get, void *payload)
{
	for (size_t i = 0; sel && i < sel->n; i++) {
		const struct field_term *t = &sel->terms[i];
		const char *v = get ? get(t->field, payload) : NULL;
		int eq = strcmp(v ? v : "", t->value) == 0;
		if (eq == t->negate)
			return 0;
	}
	return 1;
}

int nl_field_selector_each_field(const nl_field_selector *sel,
                                 int (*fn)(const char *field, void *payload), void *payload)
{
	for (size_t i = 0; sel && i < sel->n; i++) {
		int rc = fn(sel->terms[i].field, payload);
		if (rc)
			return rc;
	}
	return 0;
}

const char *nl_field_selector_exact(const nl_field_selector *sel, const char *field)
{
	for (size_t i = 0; sel && field && i < sel->n; i++)
		if (!sel->terms[i].negate && strcmp(sel->terms[i].field, field) == 0)
			return sel->terms[i].value;
	return NULL;
}

void nl_field_selector_free(nl_field_selector *sel)
{
	if (!sel)
		return;
	for (size_t i = 0; i < sel->n; i++) {
		free(sel->terms[i].field);
		free(sel->terms[i].value);
	}
	free(sel->terms);
	free(sel);
}

int nl_field_value(char **out, json_object *obj, const char *path)
{
	json_object *v = nl_json_get_path(obj, path);
	const char *s = NULL;
	char num[32];
	switch (json_object_get_type(v)) {
	case json_type_string:
		s = json_object_get_string(v);
		break;
	case json_type_boolean:
		s = json_object_get_boolean(v) ? "true" : "false";
		break;
	case json_type_int:
		snprintf(num, sizeof(num), "%" PRId64, json_object_get_int64(v));
		s = num;
		break;
	default:
		*out = NULL;
		return 0;
	}
	*out = strdup(s);
	return *out ? 0 : NL_ENOMEM;
}
