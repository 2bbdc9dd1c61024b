/* The durable store: --state-file (docs/decisions/0019-state-file.md).
 *
 * FILE is a snapshot of every object and the resourceVersion counter;
 * FILE.log an append-only log of the changes after it; FILE.gen a small
 * marker naming the generation the two belong to and a resourceVersion
 * ceiling (format in persist_format.h). A snapshot or log that is missing,
 * empty or from another generation is refused, so a state cannot silently
 * shrink and the counter never goes back (docs/decisions/0029-state-generations.md). Every change
 * is appended to the log before it is applied in memory (store.h's persist hook), so a change is
 * acknowledged only once the log has it; when the log outgrows the snapshot a background thread
 * writes a new snapshot (temp file, fsync, rename) and restarts the log from the changes made
 * meanwhile.
 *
 * Threads: the hook runs on request threads under the store's write lock
 * and takes the persister's mutex (lock order: store, then persister);
 * one background thread syncs (batch mode) and compacts. */
#ifndef MOCK_PERSIST_H
#define MOCK_PERSIST_H

#include <nodelet/errors.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

typedef enum {
	MOCK_SYNC_BATCH = 0, /* fdatasync every sync interval: at most that much is lost */
	MOCK_SYNC_ALWAYS,    /* fdatasync before a change is acknowledged */
	MOCK_SYNC_NEVER,     /* the kernel writes back when it likes */
} mock_sync_mode;

/* After an unclean stop the counter skips ahead by this much: more changes
 * than the mock acknowledges in any sync interval, so a resourceVersion a
 * client saw before the crash is never handed out again. */
#define MOCK_PERSIST_RV_SKIP 1000000u

typedef struct {
	const char *path;          /* the snapshot; the log is path + ".log" */
	mock_sync_mode sync;       /* default batch */
	unsigned sync_interval_ms; /* batch mode; default 1000 */
	int discard_bad_state;     /* start from what is intact instead of failing */
	/* The unclean-stop skip, and how far the marker's ceiling runs ahead
	 * of the counter; default MOCK_PERSIST_RV_SKIP (tests make it small). */
	uint64_t rv_skip;
	/* Compact once the log is this big and bigger than the snapshot;
	 * default 16 MiB. */
	size_t compact_min_bytes;
} mock_persist_opts;

typedef struct {
	int restored;             /* a snapshot or log was read at open */
	int clean;                /* ... and it was written by a clean stop */
	int first_start;          /* no state was there: an empty store */
	int upgraded;             /* a state of format 1 (no generations) was read */
	uint64_t generation;      /* the snapshot generation on disk */
	uint64_t objects;         /* objects restored at open */
	uint64_t rv_skipped_from; /* the counter before an unclean-stop skip, else 0 */
	uint64_t discarded_bytes; /* bytes left behind by --discard-bad-state */
	uint64_t torn_bytes;      /* a killed write's cut-short last log record, dropped */
	uint64_t records;         /* changes appended since open */
	uint64_t syncs;           /* fdatasync calls on the log */
	uint64_t compactions;     /* snapshots written (open and close included) */
	uint64_t log_bytes;       /* the log's current size */
	uint64_t snapshot_bytes;  /* the snapshot's current size */
} mock_persist_stats;

typedef struct mock_persist mock_persist;

/* Fill the defaults above (path NULL). */
void mock_persist_opts_init(mock_persist_opts *o);

/* Load FILE and FILE.log into store (which must be empty), move its
 * counter on (skipping ahead after an unclean stop), write a fresh
 * snapshot, and from then on log every change of store. None of the files
 * there is a first start. A corrupt or truncated file is NL_EPARSE with err
 * naming the file and the offset; a missing, empty or mismatched one
 * (another generation than FILE.gen names) NL_EPARSE naming the file; both
 * unless o->discard_bad_state. NL_EIO for I/O errors and when another
 * process has the file open (an flock on FILE.lock). On failure the store
 * may hold part of the state: free it.  *out belongs to the caller:
 * mock_persist_close. */
int mock_persist_open(mock_persist **out, mock_store *store, const mock_persist_opts *o,
                      nl_err *err);

/* Write a snapshot now (the background thread does this by itself when the
 * log grows). */
int mock_persist_compact(mock_persist *p, nl_err *err);

void mock_persist_stats_get(mock_persist *p, mock_persist_stats *out);

/* Stop logging, write a final snapshot marked clean (so the next start
 * keeps the counter exactly), and free p. The store is left as it is.
 * 0, or NL_EIO (logged) when the stop could not be made clean: the files
 * hold every acknowledged change, and the next start skips ahead. NULL p
 * is 0. */
int mock_persist_close(mock_persist *p);

/* Parse a --sync-writes value. 0, or NL_EINVAL. */
int mock_sync_mode_parse(const char *s, mock_sync_mode *out);

#endif
