/* Encoding and scanning of state-file records (persist_format.h). */
#include "persist_format.h"

#include <inttypes.h>
#include <nodelet/errors.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NAME_MAX_LEN 253
#define RES_MAX_LEN 200

static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

uint32_t mock_crc32(uint32_t crc, const void *p, size_t n)
{
	const unsigned char *b = p;
	pthread_once(&crc_once, crc_init);
	crc = ~crc;
	while (n--)
		crc = crc_table[(crc ^ *b++) & 0xFF] ^ (crc >> 8);
	return ~crc;
}

static void put_u32(char *out, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		out[i] = (char)((v >> (8 * i)) & 0xFF);
}

static uint32_t get_u32(const char *in)
{
	const unsigned char *b = (const unsigned char *)in;
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

size_t mock_state_rec_head(char *out, const mock_state_rec *rec)
{
	char *line = out + MOCK_STATE_FRAME_LEN;
	size_t room = MOCK_STATE_HEAD_MAX - MOCK_STATE_FRAME_LEN;
	int n;
	switch (rec->type) {
	case MOCK_REC_PUT:
		n = snprintf(line, room, "P %" PRIu64 " %s/%s\n", rec->rv, rec->r->api_version,
		             rec->r->plural);
		break;
	case MOCK_REC_DELETE:
		n = snprintf(line, room, "D %" PRIu64 " %s/%s %s", rec->rv, rec->r->api_version,
		             rec->r->plural, rec->key);
		break;
	case MOCK_REC_END:
		n = snprintf(line, room, "E %" PRIu64 " %" PRIu64 " %d %" PRIu64, rec->rv,
		             rec->count, rec->clean ? 1 : 0, rec->gen);
		break;
	case MOCK_REC_HEAD:
	case MOCK_REC_GEN:
		n = snprintf(line, room, "%c %" PRIu64 " %" PRIu64, (char)rec->type, rec->gen,
		             rec->rv);
		break;
	default:
		return 0;
	}
	if (n < 0 || (size_t)n >= room)
		return 0;
	size_t json_len = rec->type == MOCK_REC_PUT ? rec->json_len : 0;
	if ((size_t)n + json_len > MOCK_STATE_MAX_RECORD)
		return 0;
	uint32_t crc = mock_crc32(0, line, (size_t)n);
	if (json_len)
		crc = mock_crc32(crc, rec->json, json_len);
	put_u32(out, (uint32_t)((size_t)n + json_len));
	put_u32(out + 4, crc);
	return MOCK_STATE_FRAME_LEN + (size_t)n;
}

/* ------------------------------------------------------------------------
 * Scanning: every field is checked, the input may be anything. */

typedef struct {
	const char *p, *end;
} cursor;

static int take_u64(cursor *c, uint64_t *out)
{
	uint64_t v = 0;
	const char *start = c->p;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		unsigned d = (unsigned)(*c->p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return NL_EPARSE;
		v = v * 10 + d;
		c->p++;
	}
	if (c->p == start || (c->p - start > 1 && *start == '0'))
		return NL_EPARSE;
	*out = v;
	return 0;
}

static int take_char(cursor *c, char ch)
{
	if (c->p >= c->end || *c->p != ch)
		return NL_EPARSE;
	c->p++;
	return 0;
}

/* A token up to a space, a newline or the end, copied NUL-terminated. */
static int take_token(cursor *c, char *out, size_t outlen)
{
	size_t n = 0;
	while (c->p < c->end && *c->p != ' ' && *c->p != '\n') {
		if (*c->p == '\0' || n + 1 >= outlen)
			return NL_EPARSE;
		out[n++] = *c->p++;
	}
	out[n] = '\0';
	return n ? 0 : NL_EPARSE;
}

/* "<apiVersion>/<plural>": the group, if any, is before the first '/'. */
static const mock_resource *resource_of(char *tok)
{
	char *last = strrchr(tok, '/');
	if (!last)
		return NULL;
	*last = '\0';
	char *slash = strchr(tok, '/');
	const char *group = "", *version = tok;
	if (slash) {
		*slash = '\0';
		group = tok;
		version = slash + 1;
	}
	return mock_resource_find(group, version, last + 1);
}

static int name_ok(const char *s, size_t n)
{
	return n > 0 && n <= NAME_MAX_LEN && !memchr(s, '/', n);
}

static int key_ok(const mock_resource *r, const char *key)
{
	size_t n = strlen(key);
	const char *slash = memchr(key, '/', n);
	if (!r->namespaced)
		return name_ok(key, n);
	return slash && name_ok(key, (size_t)(slash - key)) &&
	       name_ok(slash + 1, n - (size_t)(slash - key) - 1);
}

static int parse_payload(mock_state_rec *rec, const char *p, size_t n, char *key, size_t keylen,
                         const char **why)
{
	char res[RES_MAX_LEN];
	cursor c = {p, p + n};
	memset(rec, 0, sizeof(*rec));
	if (n < 2 || p[1] != ' ')
		return *why = "unknown record type", NL_EPARSE;
	rec->type = (mock_rec_type)p[0];
	c.p += 2;
	if (rec->type == MOCK_REC_HEAD || rec->type == MOCK_REC_GEN) {
		/* Generations start at 1; the resourceVersion may be 0 (the
		 * snapshot of an empty store). */
		if (take_u64(&c, &rec->gen) || rec->gen == 0 || take_char(&c, ' ') ||
		    take_u64(&c, &rec->rv) || c.p != c.end)
			return *why = rec->type == MOCK_REC_HEAD ? "bad log header record"
			                                         : "bad generation record",
			       NL_EPARSE;
		return 0;
	}
	/* Only an empty store's snapshot ends at resourceVersion 0. */
	if (take_u64(&c, &rec->rv) != 0 || (rec->rv == 0 && rec->type != MOCK_REC_END))
		return *why = "bad resourceVersion in record", NL_EPARSE;
	if (rec->type == MOCK_REC_END) {
		uint64_t clean = 0;
		if (take_char(&c, ' ') || take_u64(&c, &rec->count) || take_char(&c, ' ') ||
		    take_u64(&c, &clean) || clean > 1)
			return *why = "bad end record", NL_EPARSE;
		/* Without a generation: a version-1 snapshot. */
		if (c.p != c.end && (take_char(&c, ' ') || take_u64(&c, &rec->gen) ||
		                     rec->gen == 0 || c.p != c.end))
			return *why = "bad end record", NL_EPARSE;
		rec->clean = (int)clean;
		return 0;
	}
	if (rec->type != MOCK_REC_PUT && rec->type != MOCK_REC_DELETE)
		return *why = "unknown record type", NL_EPARSE;
	if (take_char(&c, ' ') || take_token(&c, res, sizeof(res)) || !(rec->r = resource_of(res)))
		return *why = "unknown resource in record", NL_EPARSE;
	if (rec->type == MOCK_REC_PUT) {
		if (take_char(&c, '\n'))
			return *why = "bad object record", NL_EPARSE;
		rec->json = c.p;
		rec->json_len = (size_t)(c.end - c.p);
		return 0;
	}
	if (take_char(&c, ' ') || take_token(&c, key, keylen) || c.p != c.end ||
	    !key_ok(rec->r, key))
		return *why = "bad key in deletion record", NL_EPARSE;
	rec->key = key;
	return 0;
}

int mock_state_torn_at(const char *buf, size_t len, size_t off)
{
	if (off >= len)
		return 0;
	if (len - off < MOCK_STATE_FRAME_LEN)
		return 1;
	uint32_t n = get_u32(buf + off);
	return n <= MOCK_STATE_MAX_RECORD && len - off - MOCK_STATE_FRAME_LEN < n;
}

int mock_state_scan(const char *buf, size_t len, const char *magic, mock_state_rec_fn fn,
                    void *payload, size_t *bad_off, const char **why)
{
	char key[2 * NAME_MAX_LEN + 2];
	size_t off = MOCK_STATE_MAGIC_LEN;
	if (len < MOCK_STATE_MAGIC_LEN || memcmp(buf, magic, MOCK_STATE_MAGIC_LEN) != 0) {
		*bad_off = 0;
		*why = "not a nodelet-mockapi state file (bad magic)";
		return NL_EPARSE;
	}
	while (off < len) {
		mock_state_rec rec;
		*bad_off = off;
		if (len - off < MOCK_STATE_FRAME_LEN)
			return *why = "truncated record frame", NL_EPARSE;
		uint32_t n = get_u32(buf + off), crc = get_u32(buf + off + 4);
		if (n > MOCK_STATE_MAX_RECORD)
			return *why = "record length out of range", NL_EPARSE;
		if (len - off - MOCK_STATE_FRAME_LEN < n)
			return *why = "truncated record", NL_EPARSE;
		const char *p = buf + off + MOCK_STATE_FRAME_LEN;
		if (mock_crc32(0, p, n) != crc)
			return *why = "bad checksum", NL_EPARSE;
		int rc = parse_payload(&rec, p, n, key, sizeof(key), why);
		if (rc == 0)
			rc = fn(&rec, off, payload);
		if (rc != 0)
			return rc;
		off += MOCK_STATE_FRAME_LEN + n;
	}
	return 0;
}
