/* The state file reader (mockapi/storage/persist_format.h, persist.h): the input is
 * a whole snapshot or log file. Every record that scans is applied to a
 * store as a restart would; then the store is written out as a snapshot
 * again, which must scan cleanly and restore the same objects — what the
 * next restart reads back from what this one wrote. */
#include <nodelet/errors.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "storage/persist_format.h"
#include "storage/store.h"

static int apply(const mock_state_rec *rec, size_t off, void *payload)
{
	mock_store *s = payload;
	(void)off;
	if (rec->type == MOCK_REC_PUT) {
		const char *why = NULL;
		int rc = mock_store_restore_put(s, rec->r, rec->json, rec->json_len, &why);
		FUZZ_CHECK(rc == 0 || why != NULL);
	} else if (rec->type == MOCK_REC_DELETE) {
		mock_store_restore_delete(s, rec->r, rec->key);
	}
	return 0;
}

typedef struct {
	char *buf;
	size_t len, cap;
	size_t count;
} out_buf;

static void add(out_buf *o, const char *p, size_t n)
{
	if (o->len + n > o->cap) {
		o->cap = (o->len + n) * 2;
		o->buf = realloc(o->buf, o->cap);
		FUZZ_CHECK(o->buf != NULL);
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static int dump_put(const mock_resource *r, const char *key, const char *json, size_t len,
                    uint64_t rv, void *payload)
{
	char head[MOCK_STATE_HEAD_MAX];
	mock_state_rec rec = {
	    .type = MOCK_REC_PUT, .rv = rv, .r = r, .json = json, .json_len = len};
	(void)key;
	size_t n = mock_state_rec_head(head, &rec);
	FUZZ_CHECK(n > 0);
	add(payload, head, n);
	add(payload, json, len);
	((out_buf *)payload)->count++;
	return 0;
}

/* The store as snapshot records (no end record). Caller frees o->buf. */
static void dump(mock_store *s, out_buf *o)
{
	memset(o, 0, sizeof(*o));
	add(o, MOCK_STATE_SNAP_MAGIC, MOCK_STATE_MAGIC_LEN);
	FUZZ_CHECK(mock_store_dump(s, dump_put, NULL, o) == 0);
}

/* libFuzzer cannot forge CRCs: a copy with every frame's checksum made
 * right lets it reach the payload parser and the store. */
static uint8_t *fix_checksums(const uint8_t *data, size_t size)
{
	uint8_t *c = malloc(size ? size : 1);
	FUZZ_CHECK(c != NULL);
	memcpy(c, data, size);
	for (size_t off = MOCK_STATE_MAGIC_LEN; off + MOCK_STATE_FRAME_LEN <= size;) {
		uint32_t n = (uint32_t)c[off] | (uint32_t)c[off + 1] << 8 |
		             (uint32_t)c[off + 2] << 16 | (uint32_t)c[off + 3] << 24;
		if (n > size - off - MOCK_STATE_FRAME_LEN)
			break;
		uint32_t crc = mock_crc32(0, c + off + MOCK_STATE_FRAME_LEN, n);
		for (int i = 0; i < 4; i++)
			c[off + 4 + (size_t)i] = (uint8_t)(crc >> (8 * i));
		off += MOCK_STATE_FRAME_LEN + n;
	}
	return c;
}

static void check_one(const uint8_t *data, size_t size)
{
	static const char *const magics[] = {MOCK_STATE_SNAP_MAGIC, MOCK_STATE_LOG_MAGIC};
	for (size_t m = 0; m < 2; m++) {
		mock_store *s = NULL, *t = NULL;
		size_t bad = 0;
		const char *why = NULL;
		out_buf a, b;
		FUZZ_CHECK(mock_store_new(&s, NULL, NULL) == 0);
		int rc = mock_state_scan((const char *)data, size, magics[m], apply, s, &bad, &why);
		FUZZ_CHECK(rc == 0 || (rc == NL_EPARSE && why != NULL && bad <= size));

		dump(s, &a);
		FUZZ_CHECK(mock_store_new(&t, NULL, NULL) == 0);
		FUZZ_CHECK(mock_state_scan(a.buf, a.len, MOCK_STATE_SNAP_MAGIC, apply, t, &bad,
		                           &why) == 0);
		dump(t, &b);
		FUZZ_CHECK(a.len == b.len && memcmp(a.buf, b.buf, a.len) == 0);
		FUZZ_CHECK(mock_store_rv(t) <= mock_store_rv(s));
		free(a.buf);
		free(b.buf);
		mock_store_free(s);
		mock_store_free(t);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *fixed = fix_checksums(data, size);
	check_one(data, size);
	check_one(fixed, size);
	free(fixed);
	return 0;
}
