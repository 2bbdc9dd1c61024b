/* The state file loader (mockapi/storage/persist.h, persist_load.c) on
 * hostile files: the input is the three files of a state — the marker
 * FILE.gen, the snapshot FILE and the log FILE.log, in that order,
 * separated by "\n==\n"; a part that is exactly "absent" is a file that is
 * not there. Every frame's CRC is made right first (so mutations reach the
 * consistency checks; the record scanner on its own is the state target's),
 * unless the input starts with 'R'. Written to a private temporary
 * directory and opened as nodelet-mockapi would:
 *
 * - without --discard-bad-state: it starts, or it refuses with an error
 *   naming one of the files, and then nothing on disk changed;
 * - with it: it always starts, and the state it leaves behind starts again
 *   cleanly, without the flag, with the same objects and counter. */
#include <fcntl.h>
#include <nodelet/errors.h>
#include <nodelet/log.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "storage/persist.h"
#include "storage/persist_format.h"
#include "storage/store.h"

static char dir[64], base[96];
static const char *const suffixes[] = {".gen", "", ".log"};

/* At exit: the files of the last input, then the directory. */
static void teardown(void)
{
	static const char *const all[] = {".gen", "",         ".log",    ".lock",
	                                  ".tmp", ".log.tmp", ".gen.tmp"};
	char p[128];
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", base, all[i]);
		unlink(p);
	}
	rmdir(dir);
}

static void setup(void)
{
	if (dir[0])
		return;
	const char *root = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(dir, sizeof(dir), "%s/nl-fuzz-state-XXXXXX", root);
	FUZZ_CHECK(mkdtemp(dir) != NULL);
	snprintf(base, sizeof(base), "%s/state", dir);
	atexit(teardown);
	/* Refusals and discards log a line each: thousands a second. */
	nl_log_set_output(fopen("/dev/null", "w"));
}

static void path_of(char *out, size_t outlen, size_t i)
{
	snprintf(out, outlen, "%s%s", base, suffixes[i]);
}

/* libFuzzer cannot forge CRCs: every whole frame gets the right one. */
static void fix_checksums(char *c, size_t size)
{
	for (size_t off = MOCK_STATE_MAGIC_LEN; off + MOCK_STATE_FRAME_LEN <= size;) {
		const unsigned char *u = (const unsigned char *)c + off;
		uint32_t n = (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 |
		             (uint32_t)u[3] << 24;
		if (n > size - off - MOCK_STATE_FRAME_LEN)
			break;
		uint32_t crc = mock_crc32(0, c + off + MOCK_STATE_FRAME_LEN, n);
		for (int i = 0; i < 4; i++)
			c[off + 4 + (size_t)i] = (char)(crc >> (8 * i));
		off += MOCK_STATE_FRAME_LEN + n;
	}
}

static void write_part(size_t i, const fuzz_part *part, int fix)
{
	char p[128];
	path_of(p, sizeof(p), i);
	unlink(p);
	if (part->len == 6 && memcmp(part->p, "absent", 6) == 0)
		return;
	char *copy = malloc(part->len ? part->len : 1);
	FUZZ_CHECK(copy != NULL);
	memcpy(copy, part->p, part->len);
	if (fix)
		fix_checksums(copy, part->len);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(write(fd, copy, part->len) == (ssize_t)part->len);
	close(fd);
	free(copy);
}

/* The three files' sizes and modification times, -1 when absent. */
typedef struct {
	off_t size[3];
	long long mtime_ns[3];
} files_seen;

static void look(files_seen *out)
{
	for (size_t i = 0; i < 3; i++) {
		char p[128];
		struct stat sb;
		path_of(p, sizeof(p), i);
		if (stat(p, &sb) != 0) {
			out->size[i] = -1;
			out->mtime_ns[i] = -1;
		} else {
			out->size[i] = sb.st_size;
			out->mtime_ns[i] =
			    (long long)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec;
		}
	}
}

static int open_state(mock_store **s, mock_persist **p, int discard, nl_err *err)
{
	mock_persist_opts o;
	mock_persist_opts_init(&o);
	o.path = base;
	o.sync = MOCK_SYNC_NEVER; /* nothing here outlives the process */
	o.discard_bad_state = discard;
	FUZZ_CHECK(mock_store_new(s, NULL, NULL) == 0);
	*p = NULL;
	return mock_persist_open(p, *s, &o, err);
}

static uint64_t total(mock_store *s)
{
	uint64_t n = 0;
	for (int k = 0; k < MOCK_KIND_COUNT; k++)
		n += mock_store_count(s, mock_resource_get((mock_kind)k));
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	int fix = !(size > 0 && in[0] == 'R');
	fuzz_part parts[3], rest;
	setup();
	if (!fix)
		in++, size--;
	rest = (fuzz_part){in, size};
	for (size_t i = 0; i < 3; i++) {
		if (i < 2)
			fuzz_split(&parts[i], &rest, rest.p, rest.len, "\n==\n");
		else
			parts[i] = rest;
		write_part(i, &parts[i], fix);
	}

	nl_err err = {0};
	mock_store *s = NULL;
	mock_persist *p = NULL;
	files_seen before, after;
	look(&before);
	int rc = open_state(&s, &p, 0, &err);
	if (rc != 0) {
		/* A refusal names the file to blame and leaves the files alone. */
		FUZZ_CHECK(rc == NL_EPARSE);
		FUZZ_CHECK(strstr(err.msg, base) != NULL);
		FUZZ_CHECK(p == NULL);
		look(&after);
		FUZZ_CHECK(memcmp(&before, &after, sizeof(before)) == 0);
	} else {
		FUZZ_CHECK(mock_persist_close(p) == 0);
	}
	mock_store_free(s);

	/* With the flag: whatever is there, a start; and what it leaves is a
	 * whole state. Its counter never goes back over a clean restart. */
	rc = open_state(&s, &p, 1, &err);
	FUZZ_CHECK(rc == 0);
	uint64_t rv = mock_store_rv(s), n = total(s);
	FUZZ_CHECK(mock_persist_close(p) == 0);
	mock_store_free(s);
	rc = open_state(&s, &p, 0, &err);
	FUZZ_CHECK(rc == 0);
	mock_persist_stats st;
	mock_persist_stats_get(p, &st);
	FUZZ_CHECK(st.clean);
	FUZZ_CHECK(mock_store_rv(s) == rv);
	FUZZ_CHECK(total(s) == n);
	FUZZ_CHECK(mock_persist_close(p) == 0);
	mock_store_free(s);
	return 0;
}
