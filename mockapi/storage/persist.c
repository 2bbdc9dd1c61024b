/* The durable store (persist.h): the write-ahead log, syncing, compaction
 * and the generation marker. Loading is persist_load.c's, the record
 * format persist_format.c's. */
#include "persist.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "persist_format.h"
#include "persist_internal.h"
#include <nodelet/fs.h>

#define DEFAULT_SYNC_INTERVAL_MS 1000u
#define DEFAULT_COMPACT_MIN (16u * 1024u * 1024u)
#define SNAP_BUFSZ (1u << 20)

void mock_persist_opts_init(mock_persist_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->sync = MOCK_SYNC_BATCH;
	o->sync_interval_ms = DEFAULT_SYNC_INTERVAL_MS;
	o->compact_min_bytes = DEFAULT_COMPACT_MIN;
	o->rv_skip = MOCK_PERSIST_RV_SKIP;
}

int mock_sync_mode_parse(const char *s, mock_sync_mode *out)
{
	if (s && strcmp(s, "always") == 0)
		*out = MOCK_SYNC_ALWAYS;
	else if (s && strcmp(s, "batch") == 0)
		*out = MOCK_SYNC_BATCH;
	else if (s && strcmp(s, "never") == 0)
		*out = MOCK_SYNC_NEVER;
	else
		return NL_EINVAL;
	return 0;
}

/* ------------------------------------------------------------------------
 * Small file helpers */

static char *path_with(const char *base, const char *suffix)
{
	size_t a = strlen(base), b = strlen(suffix);
	char *p = malloc(a + b + 1);
	if (p) {
		memcpy(p, base, a);
		memcpy(p + a, suffix, b + 1);
	}
	return p;
}

/* ------------------------------------------------------------------------
 * Snapshots */

typedef struct {
	mock_persist *p;
	FILE *f;
	uint64_t count;
	uint64_t log_off; /* the log's size when the state was frozen */
	uint64_t rv;      /* ... and the store's resourceVersion then */
	uint64_t gen;     /* the generation this snapshot is */
	int clean;
} snap_ctx;

static int snap_put(const mock_resource *r, const char *key, const char *json, size_t len,
                    uint64_t rv, void *payload)
{
	snap_ctx *c = payload;
	char head[MOCK_STATE_HEAD_MAX];
	mock_state_rec rec = {
	    .type = MOCK_REC_PUT, .rv = rv, .r = r, .json = json, .json_len = len};
	(void)key;
	size_t n = mock_state_rec_head(head, &rec);
	if (n == 0 || fwrite(head, 1, n, c->f) != n || fwrite(json, 1, len, c->f) != len)
		return NL_EIO;
	c->count++;
	return 0;
}

static int snap_end(uint64_t rv, void *payload)
{
	snap_ctx *c = payload;
	char head[MOCK_STATE_HEAD_MAX];
	mock_state_rec rec = {
	    .type = MOCK_REC_END, .rv = rv, .count = c->count, .clean = c->clean, .gen = c->gen};
	size_t n = mock_state_rec_head(head, &rec);
	c->rv = rv;
	/* Writers wait for the store lock we hold, so the log stands still:
	 * everything in it up to here is in this snapshot. */
	pthread_mutex_lock(&c->p->mu);
	c->log_off = c->p->log_size;
	pthread_mutex_unlock(&c->p->mu);
	return n && fwrite(head, 1, n, c->f) == n ? 0 : NL_EIO;
}

/* Write the snapshot to the temp file and rename it into place. */
static int write_snapshot(mock_persist *p, snap_ctx *c, nl_err *err)
{
	int fd = open(p->snap_tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return nl_err_set(err, NL_EIO, "%s: %s", p->snap_tmp, strerror(errno));
	c->f = fdopen(fd, "w");
	if (!c->f) {
		close(fd);
		unlink(p->snap_tmp);
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	}
	setvbuf(c->f, NULL, _IOFBF, SNAP_BUFSZ);
	int rc =
	    fwrite(MOCK_STATE_SNAP_MAGIC, 1, MOCK_STATE_MAGIC_LEN, c->f) == MOCK_STATE_MAGIC_LEN
	        ? mock_store_dump(p->store, snap_put, snap_end, c)
	        : NL_EIO;
	if (rc == 0 && (fflush(c->f) != 0 || fsync(fileno(c->f)) != 0))
		rc = NL_EIO;
	int saved = errno;
	long size = rc == 0 ? ftell(c->f) : -1;
	if (fclose(c->f) != 0 && rc == 0) {
		rc = NL_EIO;
		saved = errno;
	}
	if (rc == 0 && rename(p->snap_tmp, p->snap_path) != 0) {
		rc = NL_EIO;
		saved = errno;
	}
	if (rc != 0) {
		unlink(p->snap_tmp);
		return nl_err_set(err, rc, "%s: %s", p->snap_tmp, strerror(saved));
	}
	/* On disk now, synced directory or not: what the log and the marker
	 * name from here on. */
	pthread_mutex_lock(&p->mu);
	p->gen = c->gen;
	pthread_mutex_unlock(&p->mu);
	if (nl_fs_sync_dir_of(NULL, p->snap_path) != 0)
		return nl_err_set(err, NL_EIO, "%s: syncing its directory: %s", p->snap_path,
		                  strerror(errno));
	pthread_mutex_lock(&p->mu);
	p->snap_size = (uint64_t)size;
	p->st.snapshot_bytes = (uint64_t)size;
	pthread_mutex_unlock(&p->mu);
	return 0;
}

/* FILE.gen: the generation on disk and the ceiling, replaced through
 * FILE.gen.tmp (the name lock_files removes after a crash). Called with mu
 * held. */
static int write_marker(mock_persist *p, uint64_t ceiling, nl_err *err)
{
	char buf[MOCK_STATE_MAGIC_LEN + MOCK_STATE_HEAD_MAX];
	mock_state_rec rec = {.type = MOCK_REC_GEN, .gen = p->gen, .rv = ceiling};
	memcpy(buf, MOCK_STATE_GEN_MAGIC, MOCK_STATE_MAGIC_LEN);
	size_t n = MOCK_STATE_MAGIC_LEN + mock_state_rec_head(buf + MOCK_STATE_MAGIC_LEN, &rec);
	int rc = nl_fs_replace_file_via(NULL, p->gen_path, p->gen_tmp, buf, n, 0600, err);
	if (rc != 0)
		return rc;
	p->ceiling = ceiling;
	p->mark_gen = p->gen;
	return 0;
}

/* A new log: a header naming the snapshot just written (generation p->gen
 * at resourceVersion snap_rv), then the old log's bytes from off on: the
 * changes made while the snapshot was written. Called with mu held. */
static int restart_log(mock_persist *p, uint64_t off, uint64_t snap_rv, nl_err *err)
{
	char head[MOCK_STATE_MAGIC_LEN + MOCK_STATE_HEAD_MAX];
	mock_state_rec rec = {.type = MOCK_REC_HEAD, .gen = p->gen, .rv = snap_rv};
	memcpy(head, MOCK_STATE_LOG_MAGIC, MOCK_STATE_MAGIC_LEN);
	size_t hn = MOCK_STATE_MAGIC_LEN + mock_state_rec_head(head + MOCK_STATE_MAGIC_LEN, &rec);
	/* Read-write: the next compaction copies its tail with pread. */
	int fd = open(p->log_tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return nl_err_set(err, NL_EIO, "%s: %s", p->log_tmp, strerror(errno));
	int rc = nl_fs_write_all(NULL, fd, head, hn);
	uint64_t size = hn;
	char buf[65536];
	while (rc == 0 && p->log_fd >= 0 && off < p->log_size) {
		size_t want =
		    p->log_size - off < sizeof(buf) ? (size_t)(p->log_size - off) : sizeof(buf);
		ssize_t n = pread(p->log_fd, buf, want, (off_t)off);
		if (n <= 0 || nl_fs_write_all(NULL, fd, buf, (size_t)n) != 0) {
			rc = -1;
			break;
		}
		off += (uint64_t)n;
		size += (uint64_t)n;
	}
	if (rc == 0)
		rc = fdatasync(fd);
	if (rc == 0)
		rc = rename(p->log_tmp, p->log_path);
	if (rc == 0)
		rc = nl_fs_sync_dir_of(NULL, p->log_path);
	if (rc != 0) {
		int saved = errno;
		close(fd);
		unlink(p->log_tmp);
		return nl_err_set(err, NL_EIO, "%s: %s", p->log_tmp, strerror(saved));
	}
	if (p->log_fd >= 0)
		close(p->log_fd);
	p->log_fd = fd;
	p->log_size = size;
	p->st.log_bytes = size;
	p->dirty = 0;
	return 0;
}

/* With mu held. */
static int log_too_big(const mock_persist *p)
{
	return p->log_size > p->o.compact_min_bytes && p->log_size > p->snap_size;
}

/* Snapshot, then log, then marker: a crash between two steps leaves files
 * one generation apart, which the next start accepts (persist_load.c). */
static int compact(mock_persist *p, int clean, nl_err *err)
{
	snap_ctx c = {.p = p, .clean = clean};
	int rc = 0;
	pthread_mutex_lock(&p->compact_mu);
	pthread_mutex_lock(&p->mu);
	/* A marker a failed compaction left behind goes first: a snapshot
	 * two generations past it would not be taken at the next start. */
	if (p->mark_gen && p->mark_gen != p->gen)
		rc = write_marker(p, p->ceiling, err);
	c.gen = p->gen + 1;
	pthread_mutex_unlock(&p->mu);
	if (rc == 0)
		rc = write_snapshot(p, &c, err);
	if (rc == 0) {
		pthread_mutex_lock(&p->mu);
		rc = restart_log(p, c.log_off, c.rv, err);
		/* The snapshot is on disk but the log still continues the one
		 * before: the next try writes this generation again. */
		if (rc != 0)
			p->gen = c.gen - 1;
		if (rc == 0)
			rc = write_marker(p, p->ceiling, err);
		if (rc == 0) {
			p->st.compactions++;
			p->st.generation = p->gen;
		}
		/* Changes made while the snapshot was written may already be
		 * over the threshold: no later write has to ask again. */
		p->compact = rc == 0 && !clean && log_too_big(p);
		pthread_mutex_unlock(&p->mu);
	}
	pthread_mutex_unlock(&p->compact_mu);
	return rc;
}

int mock_persist_compact(mock_persist *p, nl_err *err)
{
	return compact(p, 0, err);
}

/* ------------------------------------------------------------------------
 * The write-ahead hook */

static int log_failed(mock_persist *p, const char *what)
{
	MOCK_LOG_ERROR(strerror(errno), "State log write failed, refusing the change",
	               NL_KV_STR("path", p->log_path), NL_KV_STR("step", what));
	/* Leave no torn record behind for the next append. */
	if (ftruncate(p->log_fd, (off_t)p->log_size) != 0)
		p->failed = 1;
	return NL_EIO;
}

static int on_change(const mock_resource *r, mock_store_event ev, const char *key, const char *json,
                     size_t len, uint64_t rv, void *payload)
{
	mock_persist *p = payload;
	char head[MOCK_STATE_HEAD_MAX];
	mock_state_rec rec = {.type = ev == MOCK_STORE_DELETED ? MOCK_REC_DELETE : MOCK_REC_PUT,
	                      .rv = rv,
	                      .r = r,
	                      .key = key,
	                      .json = json,
	                      .json_len = json ? len : 0};
	size_t n = mock_state_rec_head(head, &rec);
	if (n == 0)
		return NL_ETOOBIG;
	struct iovec iov[2] = {{head, n}, {(void *)json, rec.json_len}};
	int rc = 0;
	pthread_mutex_lock(&p->mu);
	if (p->failed || p->log_fd < 0) {
		rc = NL_EIO;
		goto done;
	}
	/* Once per rv_skip changes: the marker moves the ceiling on before a
	 * resourceVersion past it is handed out. */
	if (rv > p->ceiling) {
		nl_err err = {0};
		if (write_marker(p, rv + p->o.rv_skip, &err) != 0) {
			MOCK_LOG_ERROR(err.msg, "Refusing the change");
			rc = NL_EIO;
			goto done;
		}
	}
	size_t total = n + rec.json_len;
	ssize_t w = pwritev(p->log_fd, iov, rec.json_len ? 2 : 1, (off_t)p->log_size);
	if (w != (ssize_t)total) {
		if (w >= 0)
			errno = ENOSPC; /* a short write: the device is full */
		rc = log_failed(p, "cannot append");
		goto done;
	}
	if (p->o.sync == MOCK_SYNC_ALWAYS) {
		p->st.syncs++;
		if (fdatasync(p->log_fd) != 0) {
			rc = log_failed(p, "cannot sync");
			p->failed = 1; /* the kernel may have dropped other pages too */
			goto done;
		}
	} else {
		p->dirty = 1;
	}
	p->log_size += total;
	p->st.log_bytes = p->log_size;
	p->st.records++;
	if (!p->compact && log_too_big(p)) {
		p->compact = 1;
		pthread_cond_signal(&p->cv);
	}
done:
	pthread_mutex_unlock(&p->mu);
	return rc;
}

/* ------------------------------------------------------------------------
 * The background thread: batch syncs and compaction */

static void deadline_in(struct timespec *ts, unsigned ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static void sync_batch(mock_persist *p)
{
	/* mu held on entry and exit; the fsync runs without it so writers keep
	 * appending, and under compact_mu so no snapshot replaces the fd. */
	p->dirty = 0;
	pthread_mutex_unlock(&p->mu);
	pthread_mutex_lock(&p->compact_mu);
	int rc = fdatasync(p->log_fd);
	int saved = errno;
	pthread_mutex_unlock(&p->compact_mu);
	pthread_mutex_lock(&p->mu);
	p->st.syncs++;
	if (rc != 0) {
		MOCK_LOG_ERROR(strerror(saved),
		               "Cannot sync the state log, refusing further changes",
		               NL_KV_STR("path", p->log_path));
		p->failed = 1;
	}
}

static void *thread_main(void *arg)
{
	mock_persist *p = arg;
	struct timespec ts;
	unsigned interval =
	    p->o.sync_interval_ms ? p->o.sync_interval_ms : DEFAULT_SYNC_INTERVAL_MS;
	pthread_mutex_lock(&p->mu);
	deadline_in(&ts, interval);
	while (!p->stopping) {
		if (p->compact) {
			nl_err err = {0};
			pthread_mutex_unlock(&p->mu);
			if (compact(p, 0, &err) != 0)
				MOCK_LOG_ERROR(err.msg, "State file compaction failed");
			pthread_mutex_lock(&p->mu);
			continue;
		}
		if (pthread_cond_timedwait(&p->cv, &p->mu, &ts) == ETIMEDOUT) {
			if (p->dirty && p->o.sync == MOCK_SYNC_BATCH)
				sync_batch(p);
			deadline_in(&ts, interval);
		}
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* ------------------------------------------------------------------------
 * Open and close */

static void persist_free(mock_persist *p)
{
	if (p->log_fd >= 0)
		close(p->log_fd);
	if (p->lock_fd >= 0)
		close(p->lock_fd); /* releases the flock */
	pthread_mutex_destroy(&p->mu);
	pthread_mutex_destroy(&p->compact_mu);
	pthread_cond_destroy(&p->cv);
	free(p->snap_path);
	free(p->snap_tmp);
	free(p->log_path);
	free(p->log_tmp);
	free(p->gen_path);
	free(p->gen_tmp);
	free(p->lock_path);
	free(p);
}

static int paths_init(mock_persist *p, const char *path)
{
	p->snap_path = strdup(path);
	p->snap_tmp = path_with(path, ".tmp");
	p->log_path = path_with(path, ".log");
	p->log_tmp = path_with(path, ".log.tmp");
	p->gen_path = path_with(path, ".gen");
	p->gen_tmp = path_with(path, ".gen.tmp");
	p->lock_path = path_with(path, ".lock");
	return p->snap_path && p->snap_tmp && p->log_path && p->log_tmp && p->gen_path &&
	               p->gen_tmp && p->lock_path
	           ? 0
	           : NL_ENOMEM;
}

static int sync_init(mock_persist *p)
{
	pthread_condattr_t ca;
	if (pthread_condattr_init(&ca) != 0)
		return NL_ERROR;
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	int rc = pthread_cond_init(&p->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (rc != 0)
		return NL_ERROR;
	pthread_mutex_init(&p->mu, NULL);
	pthread_mutex_init(&p->compact_mu, NULL);
	return 0;
}

/* One mock per state file: a second would interleave its log with ours. */
static int lock_files(mock_persist *p, nl_err *err)
{
	p->lock_fd = open(p->lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (p->lock_fd < 0)
		return nl_err_set(err, NL_EIO, "%s: %s", p->lock_path, strerror(errno));
	if (flock(p->lock_fd, LOCK_EX | LOCK_NB) != 0)
		return nl_err_set(err, NL_EIO, "%s: %s", p->snap_path,
		                  errno == EWOULDBLOCK ? "in use by another nodelet-mockapi"
		                                       : strerror(errno));
	/* Leftovers of a snapshot that was being written when we stopped. */
	unlink(p->snap_tmp);
	unlink(p->log_tmp);
	unlink(p->gen_tmp);
	return 0;
}

int mock_persist_open(mock_persist **out, mock_store *store, const mock_persist_opts *o,
                      nl_err *err)
{
	if (!out || !store || !o || !o->path || !*o->path)
		return nl_err_set(err, NL_EINVAL, "no state file given");
	mock_persist *p = calloc(1, sizeof(*p));
	if (!p)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	p->store = store;
	p->o = *o;
	p->o.path = NULL; /* borrowed; snap_path is ours */
	if (!p->o.compact_min_bytes)
		p->o.compact_min_bytes = DEFAULT_COMPACT_MIN;
	if (!p->o.rv_skip)
		p->o.rv_skip = MOCK_PERSIST_RV_SKIP;
	p->log_fd = p->lock_fd = -1;
	int rc = sync_init(p);
	if (rc != 0) {
		free(p);
		return nl_err_set(err, rc, "cannot create the state file's locks");
	}
	rc = paths_init(p, o->path);
	if (rc != 0)
		nl_err_set(err, rc, "out of memory");
	if (rc == 0)
		rc = lock_files(p, err);
	if (rc == 0)
		rc = mock__persist_load(p, err);
	/* A fresh snapshot marked unclean: from now on a kill leaves a state
	 * that says so. */
	if (rc == 0)
		rc = compact(p, 0, err);
	if (rc == 0 && pthread_create(&p->thread, NULL, thread_main, p) != 0)
		rc = nl_err_set(err, NL_ERROR, "cannot start the state file's thread");
	if (rc != 0) {
		persist_free(p);
		return rc;
	}
	p->thread_started = 1;
	mock_store_set_persist(store, on_change, p);
	*out = p;
	return 0;
}

void mock_persist_stats_get(mock_persist *p, mock_persist_stats *out)
{
	pthread_mutex_lock(&p->mu);
	*out = p->st;
	pthread_mutex_unlock(&p->mu);
}

int mock_persist_close(mock_persist *p)
{
	nl_err err = {0};
	int rc = 0;
	if (!p)
		return 0;
	pthread_mutex_lock(&p->mu);
	p->stopping = 1;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	if (p->thread_started)
		pthread_join(p->thread, NULL);
	/* The final snapshot is taken with the hook still installed: a write
	 * racing with close is either in it or refused, never lost. */
	pthread_mutex_lock(&p->mu);
	int failed = p->failed;
	pthread_mutex_unlock(&p->mu);
	if (failed) {
		MOCK_LOG_ERROR("the log could not be synced", "State file not marked clean",
		               NL_KV_STR("path", p->snap_path));
		rc = NL_EIO;
	} else if (compact(p, 1, &err) != 0) {
		/* The last unclean snapshot and the log still hold every
		 * acknowledged change: the next start skips ahead. */
		MOCK_LOG_ERROR(err.msg, "Final snapshot failed, the stop is not clean");
		rc = NL_EIO;
	}
	mock_store_set_persist(p->store, NULL, NULL);
	persist_free(p);
	return rc;
}
