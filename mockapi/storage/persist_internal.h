/* Shared by persist.c (the log, syncing, compaction) and persist_load.c
 * (reading a state back at open): the persister itself. */
#ifndef MOCK_PERSIST_INTERNAL_H
#define MOCK_PERSIST_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "persist.h"

struct mock_persist {
	mock_store *store;
	mock_persist_opts o;
	char *snap_path, *snap_tmp, *log_path, *log_tmp, *gen_path, *gen_tmp, *lock_path;
	int lock_fd;

	/* Guarded by mu: the log and everything the hook touches. */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int log_fd;
	uint64_t log_size, snap_size;
	/* The snapshot generation on disk: the log's header and the marker
	 * name it. Written under compact_mu and mu, read under either. */
	uint64_t gen;
	uint64_t mark_gen; /* the generation FILE.gen names; under mu */
	/* No resourceVersion past it is handed out before FILE.gen says so:
	 * what a restart continues from when the log is lost. */
	uint64_t ceiling;
	int dirty;   /* appended since the last fdatasync */
	int failed;  /* a sync failed: what the log holds is unknown, refuse writes */
	int compact; /* the hook asked the thread for a snapshot */
	int stopping;
	mock_persist_stats st;

	pthread_mutex_t compact_mu; /* one snapshot at a time */
	pthread_t thread;
	int thread_started;
};

/* Read FILE.gen, FILE and FILE.log into p->store, check that they belong
 * together, and move the store's counter on (mock_persist_open's rules,
 * docs/decisions/0029-*.md). Sets p->gen (the highest generation seen),
 * p->ceiling and p->st. 0, or an error in err naming the file. */
int mock__persist_load(mock_persist *p, nl_err *err);

#endif
