/* Token file parsing (Go's encoding/csv, as kube-apiserver reads it) and
 * the authenticator chain's decision. */
#include "authn.h"

#include <errno.h>
#include <nodelet/buf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/log.h"

/* ------------------------------------------------------------------------
 * Identities */

static void free_strings(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

int mock_identity_set(mock_identity *out, const char *user, const char *uid,
                      const char *const *groups, size_t ngroups)
{
	mock_identity id = {0};
	id.user = strdup(user ? user : "");
	id.uid = uid ? strdup(uid) : NULL;
	id.groups = calloc(ngroups ? ngroups : 1, sizeof(char *));
	if (!id.user || (uid && !id.uid) || !id.groups)
		goto fail;
	for (; id.ngroups < ngroups; id.ngroups++)
		if (!(id.groups[id.ngroups] = strdup(groups[id.ngroups])))
			goto fail;
	*out = id;
	return 0;
fail:
	mock_identity_clear(&id);
	return NL_ENOMEM;
}

void mock_identity_clear(mock_identity *id)
{
	if (!id)
		return;
	free(id->user);
	free(id->uid);
	free_strings(id->groups, id->ngroups);
	memset(id, 0, sizeof(*id));
}

int mock_identity_in_group(const mock_identity *id, const char *group)
{
	for (size_t i = 0; i < id->ngroups; i++)
		if (strcmp(id->groups[i], group) == 0)
			return 1;
	return 0;
}

/* ------------------------------------------------------------------------
 * Go's encoding/csv reader (Comma ',', FieldsPerRecord -1, no comments,
 * no LazyQuotes, no TrimLeadingSpace), enough to read token files the way
 * kube-apiserver does, errors included. */

#define ERR_BARE_QUOTE "bare \" in non-quoted-field"
#define ERR_QUOTE "extraneous or missing \" in quoted-field"

typedef struct {
	char **fields;
	size_t n, alloc;
} csv_record;

typedef struct {
	const char *s; /* normalized text: \r\n folded to \n */
	size_t n, i;
	int line, col;
	int rec_line;
} csv_reader;

static void record_clear(csv_record *r)
{
	free_strings(r->fields, r->n);
	memset(r, 0, sizeof(*r));
}

static int record_push(csv_record *r, nl_buf *field)
{
	if (r->n == r->alloc) {
		size_t a = r->alloc ? r->alloc * 2 : 4;
		char **f = realloc(r->fields, a * sizeof(*f));
		if (!f)
			return NL_ENOMEM;
		r->fields = f;
		r->alloc = a;
	}
	char *s = nl_buf_detach(field, NULL);
	if (!s)
		return NL_ENOMEM;
	r->fields[r->n++] = s;
	return 0;
}

static int parse_error(nl_err *err, const csv_reader *c, int line, int col, const char *what)
{
	if (c->rec_line != line)
		return nl_err_set(err, NL_EPARSE,
		                  "record on line %d; parse error on line %d, column %d: %s",
		                  c->rec_line, line, col, what);
	return nl_err_set(err, NL_EPARSE, "parse error on line %d, column %d: %s", line, col, what);
}

/* An unquoted field: up to the next comma or end of line. 1 when a comma
 * follows (another field), 0 at the end of the record. */
static int unquoted_field(csv_reader *c, nl_buf *field, nl_err *err)
{
	size_t j = c->i;
	while (j < c->n && c->s[j] != ',' && c->s[j] != '\n') {
		if (c->s[j] == '"')
			return parse_error(err, c, c->line, c->col + (int)(j - c->i),
			                   ERR_BARE_QUOTE);
		j++;
	}
	if (nl_buf_add(field, c->s + c->i, j - c->i) != 0)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	c->col += (int)(j - c->i) + 1;
	c->i = j + 1;
	if (j < c->n && c->s[j] == ',')
		return 1;
	c->line++;
	return 0;
}

/* A quoted field, c->i at the opening quote. Same results. */
static int quoted_field(csv_reader *c, nl_buf *field, nl_err *err)
{
	c->i++;
	c->col++;
	for (;;) {
		if (c->i >= c->n)
			return parse_error(err, c, c->line, c->col, ERR_QUOTE);
		char ch = c->s[c->i++];
		c->col++;
		if (ch == '"') {
			char next = c->i < c->n ? c->s[c->i] : '\n';
			if (next == '"') {
				ch = '"';
				c->i++;
				c->col++;
			} else if (next == ',' || next == '\n') {
				c->i++;
				c->col++;
				if (next == ',')
					return 1;
				c->line++;
				return 0;
			} else {
				return parse_error(err, c, c->line, c->col - 1, ERR_QUOTE);
			}
		} else if (ch == '\n' && c->i < c->n) {
			/* Go counts the next line only once it has data. */
			c->line++;
			c->col = 1;
		}
		if (nl_buf_add(field, &ch, 1) != 0)
			return nl_err_set(err, NL_ENOMEM, "out of memory");
	}
}

/* The next record into *rec. 1 when one was read, 0 at the end, < 0 on
 * error (err set). */
static int csv_next(csv_record *rec, csv_reader *c, nl_err *err)
{
	while (c->i < c->n && c->s[c->i] == '\n') { /* blank lines */
		c->i++;
		c->line++;
	}
	if (c->i >= c->n)
		return 0;
	c->rec_line = c->line;
	c->col = 1;
	int more;
	do {
		nl_buf field;
		nl_buf_init(&field, 0);
		more = c->s[c->i] == '"' ? quoted_field(c, &field, err)
		                         : unquoted_field(c, &field, err);
		if (more >= 0 && record_push(rec, &field) != 0)
			more = nl_err_set(err, NL_ENOMEM, "out of memory");
		nl_buf_free(&field);
	} while (more == 1);
	return more < 0 ? more : 1;
}

/* Go's readLine: "\r\n" read as "\n", a final "\r" before EOF dropped. */
static char *normalize(const char *text, size_t len, size_t *out_len)
{
	char *s = malloc(len + 1);
	size_t n = 0;
	if (!s)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		if (text[i] == '\r' && (i + 1 == len || text[i + 1] == '\n'))
			continue;
		s[n++] = text[i];
	}
	s[n] = '\0';
	*out_len = n;
	return s;
}

/* ------------------------------------------------------------------------
 * Token table */

typedef struct {
	char *token;
	mock_identity id;
} token_entry;

struct mock_tokens {
	token_entry *v;
	size_t n, alloc;
};

void mock_tokens_free(mock_tokens *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].token);
		mock_identity_clear(&t->v[i].id);
	}
	free(t->v);
	free(t);
}

size_t mock_tokens_count(const mock_tokens *t)
{
	return t ? t->n : 0;
}

const char *mock_tokens_first(const mock_tokens *t)
{
	return t && t->n ? t->v[0].token : NULL;
}

/* Equal strings, in time that depends on the lengths only. */
static int const_eq(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char diff = la != lb;
	for (size_t i = 0; i < la && i < lb; i++)
		diff |= (unsigned char)(a[i] ^ b[i]);
	return diff == 0;
}

const mock_identity *mock_tokens_find(const mock_tokens *t, const char *token)
{
	const mock_identity *found = NULL;
	for (size_t i = 0; t && token && i < t->n; i++)
		if (const_eq(t->v[i].token, token))
			found = &t->v[i].id;
	return found;
}

/* Split "a,b" on every comma as strings.Split does ("" is one empty group). */
static int split_groups(char ***out, size_t *n_out, const char *s)
{
	size_t n = 1;
	for (const char *p = s; *p; p++)
		n += *p == ',';
	char **v = calloc(n, sizeof(char *));
	if (!v)
		return NL_ENOMEM;
	const char *start = s;
	for (size_t i = 0; i < n; i++) {
		const char *comma = strchr(start, ',');
		size_t len = comma ? (size_t)(comma - start) : strlen(start);
		if (!(v[i] = strndup(start, len))) {
			free_strings(v, i);
			return NL_ENOMEM;
		}
		start = comma ? comma + 1 : start + len;
	}
	*out = v;
	*n_out = n;
	return 0;
}

static int add_record(mock_tokens *t, csv_record *rec)
{
	const char *token = rec->fields[0];
	mock_identity id = {0};
	char **groups = NULL;
	size_t ngroups = 0;
	if (rec->n >= 4 && split_groups(&groups, &ngroups, rec->fields[3]) != 0)
		return NL_ENOMEM;
	int rc = mock_identity_set(&id, rec->fields[1], rec->fields[2], (const char *const *)groups,
	                           ngroups);
	free_strings(groups, ngroups);
	if (rc != 0)
		return rc;
	for (size_t i = 0; i < t->n; i++) {
		if (strcmp(t->v[i].token, token) == 0) {
			mock_identity_clear(&t->v[i].id);
			t->v[i].id = id;
			return 1; /* a duplicate: the later record wins */
		}
	}
	if (t->n == t->alloc) {
		size_t a = t->alloc ? t->alloc * 2 : 8;
		token_entry *v = realloc(t->v, a * sizeof(*v));
		if (!v) {
			mock_identity_clear(&id);
			return NL_ENOMEM;
		}
		t->v = v;
		t->alloc = a;
	}
	t->v[t->n].token = strdup(token);
	if (!t->v[t->n].token) {
		mock_identity_clear(&id);
		return NL_ENOMEM;
	}
	t->v[t->n++].id = id;
	return 0;
}

int mock_tokens_parse(mock_tokens **out, const char *text, size_t len, const char *path,
                      nl_err *err)
{
	size_t n = 0;
	char *s = normalize(text, len, &n);
	mock_tokens *t = calloc(1, sizeof(*t));
	csv_reader c = {.s = s, .n = n, .line = 1, .col = 1};
	csv_record rec = {0};
	int rc = 0, recno = 0;
	if (!s || !t) {
		rc = nl_err_set(err, NL_ENOMEM, "out of memory");
		goto done;
	}
	while ((rc = csv_next(&rec, &c, err)) == 1) {
		if (rec.n < 3) {
			rc = nl_err_set(err, NL_EINVALID,
			                "token file '%s' must have at least 3 columns (token, user "
			                "name, user uid), found %zu",
			                path, rec.n);
			break;
		}
		recno++;
		if (rec.fields[0][0] == '\0') {
			MOCK_LOG_WARN("Empty token has been found in token file",
			              NL_KV_STR("path", path), NL_KV_INT("recordNumber", recno));
		} else if ((rc = add_record(t, &rec)) < 0) {
			nl_err_set(err, rc, "out of memory");
			break;
		} else if (rc == 1) {
			MOCK_LOG_WARN("Duplicate token has been found in token file",
			              NL_KV_STR("path", path), NL_KV_INT("recordNumber", recno));
		}
		record_clear(&rec);
	}
done:
	record_clear(&rec);
	free(s);
	if (rc < 0) {
		mock_tokens_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

int mock_tokens_load(mock_tokens **out, const char *path, nl_err *err)
{
	FILE *f = fopen(path, "rb");
	nl_buf b;
	char chunk[4096];
	size_t got;
	if (!f)
		return nl_err_set(err, NL_EIO, "open %s: %s", path, strerror(errno));
	nl_buf_init(&b, 64u * 1024u * 1024u);
	int rc = 0;
	while (rc == 0 && (got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		rc = nl_buf_add(&b, chunk, got);
	if (rc == 0 && ferror(f))
		rc = NL_EIO;
	fclose(f);
	if (rc != 0)
		nl_err_set(err, rc, "read %s: %s", path, rc == NL_EIO ? "I/O error" : "too large");
	else
		rc = mock_tokens_parse(out, b.data ? b.data : "", b.len, path, err);
	nl_buf_free(&b);
	return rc;
}

/* ------------------------------------------------------------------------
 * The authenticator chain */

/* The bearer token of an Authorization header (bearertoken.go): trimmed,
 * split on single spaces, scheme "bearer" in any case, token non-empty.
 * Copies it into out (NUL-terminated); 0 when there is none. */
static int bearer_token(char **out, const char *authorization)
{
	if (!authorization)
		return 0;
	while (*authorization == ' ' || *authorization == '\t')
		authorization++;
	if (strncasecmp(authorization, "bearer ", 7) != 0)
		return 0;
	const char *tok = authorization + 7;
	size_t len = strcspn(tok, " ");
	/* TrimSpace of the whole header removed trailing blanks already. */
	while (len > 0 && (tok[len - 1] == '\t' || tok[len - 1] == '\r' || tok[len - 1] == '\n'))
		len--;
	if (len == 0)
		return 0;
	*out = strndup(tok, len);
	return *out ? 1 : NL_ENOMEM;
}

/* group.AuthenticatedGroupAdder: system:authenticated for everyone but
 * anonymous, unless a group already says (un)authenticated. */
static int with_authenticated(mock_identity *out, const mock_identity *id)
{
	if (mock_identity_in_group(id, MOCK_GROUP_AUTHENTICATED) ||
	    mock_identity_in_group(id, MOCK_GROUP_UNAUTHENTICATED))
		return mock_identity_set(out, id->user, id->uid, (const char *const *)id->groups,
		                         id->ngroups);
	const char **g = calloc(id->ngroups + 1, sizeof(char *));
	if (!g)
		return NL_ENOMEM;
	for (size_t i = 0; i < id->ngroups; i++)
		g[i] = id->groups[i];
	g[id->ngroups] = MOCK_GROUP_AUTHENTICATED;
	int rc = mock_identity_set(out, id->user, id->uid, g, id->ngroups + 1);
	free(g);
	return rc;
}

int mock_authn_decide(mock_identity *out, const mock_authn *a, mock_cert_state cert,
                      const mock_identity *cert_id, const char *authorization)
{
	int failed = 0;
	if (cert == MOCK_CERT_VALID && cert_id && cert_id->user && *cert_id->user)
		return with_authenticated(out, cert_id);
	if (cert == MOCK_CERT_INVALID)
		failed = 1;
	if (a->tokens) {
		char *token = NULL;
		int rc = bearer_token(&token, authorization);
		if (rc < 0)
			return rc;
		if (rc == 1) {
			const mock_identity *id = mock_tokens_find(a->tokens, token);
			free(token);
			if (id)
				return with_authenticated(out, id);
			failed = 1; /* "invalid bearer token" */
		}
	}
	if (failed || !a->anonymous)
		return NL_EUNAUTHORIZED;
	static const char *const anon_groups[] = {MOCK_GROUP_UNAUTHENTICATED};
	return mock_identity_set(out, MOCK_USER_ANONYMOUS, NULL, anon_groups, 1);
}

nl_status *mock_authn_unauthorized(void)
{
	return nl_status_new(401, "Unauthorized", "Unauthorized");
}
