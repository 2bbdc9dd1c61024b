/* The state file's record format (persist.h; docs/decisions/0019-state-file.md).
 *
 * All three files — the snapshot FILE, the log FILE.log and the generation
 * marker FILE.gen — are an 8-byte magic line followed by framed records:
 *
 *   u32 little-endian payload length | u32 little-endian CRC-32 of payload | payload
 *
 * The payload is one text line, then for PUT the object's JSON as stored:
 *
 *   "P <rv> <apiVersion>/<plural>\n<json>"   an object's state at rv
 *   "D <rv> <apiVersion>/<plural> <key>"     its deletion at rv
 *   "E <rv> <count> <clean> <gen>"           snapshot trailer: the state's
 *                                            resourceVersion, its number of
 *                                            objects, 1 after a clean stop,
 *                                            the snapshot's generation
 *   "H <gen> <rv>"                           the log's first record: it
 *                                            continues snapshot generation
 *                                            gen, taken at resourceVersion rv
 *   "G <gen> <ceiling>"                      the marker's one record: the
 *                                            generation the files belong to
 *                                            and a resourceVersion no change
 *                                            has gone past
 *
 * A version-1 snapshot (before issue 19) ends with "E <rv> <count> <clean>"
 * (generation 0 here) and its log has no header; persist.c upgrades it.
 *
 * Text, so `strings FILE.log` is a readable history; framed and
 * checksummed, so a torn or corrupted tail is found at its offset. */
#ifndef MOCK_PERSIST_FORMAT_H
#define MOCK_PERSIST_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "api/resources.h"

#define MOCK_STATE_SNAP_MAGIC "NLSNAP1\n"
#define MOCK_STATE_LOG_MAGIC "NLSLOG1\n"
#define MOCK_STATE_GEN_MAGIC "NLSGEN1\n"
#define MOCK_STATE_MAGIC_LEN 8
#define MOCK_STATE_FRAME_LEN 8
/* A record holds one object; request bodies stop at a few MiB. */
#define MOCK_STATE_MAX_RECORD (64u * 1024u * 1024u)
/* Room for a record's frame and text line (not its JSON). */
#define MOCK_STATE_HEAD_MAX 640

typedef enum {
	MOCK_REC_PUT = 'P',
	MOCK_REC_DELETE = 'D',
	MOCK_REC_END = 'E',
	MOCK_REC_HEAD = 'H',
	MOCK_REC_GEN = 'G',
} mock_rec_type;

typedef struct {
	mock_rec_type type;
	uint64_t rv;            /* HEAD: the snapshot's; GEN: the ceiling */
	const mock_resource *r; /* PUT, DELETE */
	const char *key;        /* DELETE: NUL-terminated, checked ("ns/name" or "name") */
	const char *json;       /* PUT: not NUL-terminated */
	size_t json_len;
	uint64_t count; /* END */
	int clean;      /* END */
	uint64_t gen;   /* END (0: a version-1 snapshot), HEAD, GEN: at least 1 */
} mock_state_rec;

/* CRC-32 (IEEE, as zlib's crc32), continuing from crc (0 to start). */
uint32_t mock_crc32(uint32_t crc, const void *p, size_t n);

/* Write rec's frame and text line into out (at least MOCK_STATE_HEAD_MAX
 * bytes); for PUT the JSON (rec->json, rec->json_len) follows it in the
 * file and is covered by the frame's length and CRC. Returns the bytes
 * written, 0 when rec cannot be encoded (a key or name too long). */
size_t mock_state_rec_head(char *out, const mock_state_rec *rec);

/* Called for each record in file order with its offset in the file; the
 * record's pointers are borrowed for the call. Non-zero stops the scan. */
typedef int (*mock_state_rec_fn)(const mock_state_rec *rec, size_t offset, void *payload);

/* Does the record at off run past the end of buf (len bytes): a frame cut
 * short, or a frame whose in-range length promises more than is there?
 * That is what an append the process was killed in leaves. */
int mock_state_torn_at(const char *buf, size_t len, size_t off);

/* Walk a whole file held in buf. 0 when every record parsed; otherwise
 * NL_EPARSE with *bad_off at the first byte not accounted for and *why a
 * static description (a wrong magic, a torn frame, a bad checksum, an
 * unparsable line, an unknown resource), or fn's non-zero result with
 * *bad_off at that record. Never reads outside buf. */
int mock_state_scan(const char *buf, size_t len, const char *magic, mock_state_rec_fn fn,
                    void *payload, size_t *bad_off, const char **why);

#endif
