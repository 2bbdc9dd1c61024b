/* Reading a state back at open (persist_internal.h): the three files, what
 * each held, whether they belong together, and where the counter goes on
 * from (docs/decisions/0029-state-generations.md). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "persist_format.h"
#include "persist_internal.h"

typedef enum { FILE_MISSING, FILE_EMPTY, FILE_PRESENT } file_presence;

/* One file mapped read-only; map NULL unless FILE_PRESENT. */
typedef struct {
	const char *path, *magic;
	const char *map;
	size_t len;
	file_presence presence;
} state_file;

static int map_file(state_file *f, nl_err *err)
{
	struct stat sb;
	f->map = NULL;
	f->len = 0;
	f->presence = FILE_MISSING;
	int fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT
		           ? 0
		           : nl_err_set(err, NL_EIO, "%s: %s", f->path, strerror(errno));
	if (fstat(fd, &sb) != 0) {
		close(fd);
		return nl_err_set(err, NL_EIO, "%s: %s", f->path, strerror(errno));
	}
	f->presence = FILE_EMPTY;
	if (sb.st_size > 0) {
		void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED) {
			close(fd);
			return nl_err_set(err, NL_EIO, "%s: %s", f->path, strerror(errno));
		}
		f->map = m;
		f->len = (size_t)sb.st_size;
		f->presence = FILE_PRESENT;
	}
	close(fd);
	return 0;
}

static void unmap_file(state_file *f)
{
	if (f->map)
		munmap((void *)f->map, f->len);
	f->map = NULL;
}

typedef struct {
	mock_persist *p;
	uint64_t snap_rv;              /* records at or below it are in the snapshot */
	uint64_t last_rv;              /* the log's resourceVersions only go up */
	uint64_t max_rv;               /* the highest resourceVersion seen anywhere */
	uint64_t objects;              /* PUTs read from the snapshot */
	uint64_t applied;              /* log records beyond the snapshot */
	int have_end;                  /* the snapshot's trailer was read */
	int clean;                     /* ... and says the stop was clean */
	uint64_t snap_gen;             /* ... its generation (0: format 1) */
	int have_head;                 /* the log's header was read */
	uint64_t log_gen, log_snap_rv; /* ... the snapshot it continues */
	int have_mark;                 /* FILE.gen's record was read */
	uint64_t mark_gen, ceiling;    /* ... what it says */
	int discarded;                 /* something was left behind */
	const char *why;               /* a record the store refused */
} load_ctx;

static int apply_record(load_ctx *c, const mock_state_rec *rec)
{
	if (rec->rv > c->max_rv)
		c->max_rv = rec->rv;
	if (rec->type == MOCK_REC_PUT)
		return mock_store_restore_put(c->p->store, rec->r, rec->json, rec->json_len,
		                              &c->why);
	int rc = mock_store_restore_delete(c->p->store, rec->r, rec->key);
	return rc == NL_ENOTFOUND ? 0 : rc;
}

static int on_mark_record(const mock_state_rec *rec, size_t off, void *payload)
{
	load_ctx *c = payload;
	(void)off;
	if (rec->type != MOCK_REC_GEN || c->have_mark)
		return c->why = "not a generation marker", NL_EPARSE;
	c->have_mark = 1;
	c->mark_gen = rec->gen;
	c->ceiling = rec->rv;
	return 0;
}

static int on_snap_record(const mock_state_rec *rec, size_t off, void *payload)
{
	load_ctx *c = payload;
	(void)off;
	if (c->have_end)
		return c->why = "records after the snapshot's end record", NL_EPARSE;
	if (rec->type == MOCK_REC_END) {
		if (rec->count != c->objects || rec->rv < c->max_rv)
			return c->why = "the end record does not match the snapshot", NL_EPARSE;
		c->have_end = 1;
		c->clean = rec->clean;
		c->snap_gen = rec->gen;
		c->snap_rv = c->max_rv = rec->rv;
		return 0;
	}
	if (rec->type != MOCK_REC_PUT)
		return c->why = "a record a snapshot does not hold", NL_EPARSE;
	c->objects++;
	return apply_record(c, rec);
}

/* The log's first record, without applying anything: whose log is it? */
#define PEEK_DONE 1
static int on_log_peek(const mock_state_rec *rec, size_t off, void *payload)
{
	load_ctx *c = payload;
	(void)off;
	if (rec->type == MOCK_REC_HEAD) {
		c->have_head = 1;
		c->log_gen = rec->gen;
		c->log_snap_rv = rec->rv;
	}
	return PEEK_DONE;
}

static int on_log_record(const mock_state_rec *rec, size_t off, void *payload)
{
	load_ctx *c = payload;
	if (rec->type == MOCK_REC_HEAD)
		return off == MOCK_STATE_MAGIC_LEN
		           ? 0
		           : (c->why = "a header record inside the log", NL_EPARSE);
	if (rec->type != MOCK_REC_PUT && rec->type != MOCK_REC_DELETE)
		return c->why = "a record a log does not hold", NL_EPARSE;
	if (rec->rv <= c->last_rv)
		return c->why = "resourceVersion out of order", NL_EPARSE;
	c->last_rv = rec->rv;
	if (rec->rv <= c->snap_rv) /* written before the snapshot was taken */
		return 0;
	c->applied++;
	return apply_record(c, rec);
}

/* The log's last record cut short by a kill during its append (Linux can
 * stop a multi-page pwritev part way) was never acknowledged: dropped, as
 * etcd's WAL repair drops a torn tail. Not after a clean stop, which
 * leaves nothing after the log's header to tear, and not a record the
 * store refused (c->why). */
static int torn_tail(load_ctx *c, const state_file *f, mock_state_rec_fn fn, size_t bad)
{
	if (fn != on_log_record || c->why || (c->have_end && c->clean) ||
	    !mock_state_torn_at(f->map, f->len, bad))
		return 0;
	MOCK_LOG_WARN("The last record is cut short, as a write the server was killed in leaves "
	              "it: dropping it (that write was never answered)",
	              NL_KV_STR("path", f->path), NL_KV_UINT("offset", bad),
	              NL_KV_UINT("droppedBytes", f->len - bad));
	c->p->st.torn_bytes = f->len - bad;
	return 1;
}

/* Scan one file; a bad record is fatal unless discarding, which keeps
 * every record before it. */
static int scan_file(load_ctx *c, const state_file *f, mock_state_rec_fn fn, nl_err *err)
{
	const char *why = NULL;
	size_t bad = 0;
	c->why = NULL;
	int rc = mock_state_scan(f->map, f->len, f->magic, fn, c, &bad, &why);
	if (rc == 0 && fn == on_snap_record && !c->have_end) {
		rc = NL_EPARSE;
		bad = f->len;
		why = "the snapshot ends without its end record (truncated)";
	}
	if (rc == 0 && fn == on_mark_record && !c->have_mark) {
		rc = NL_EPARSE;
		why = "no generation record";
	}
	if (rc == 0)
		return 0;
	if (rc == NL_EPARSE && torn_tail(c, f, fn, bad))
		return 0;
	if (c->why)
		why = c->why;
	if (rc != NL_EPARSE)
		return nl_err_set(err, rc, "%s: offset %zu: %s", f->path, bad,
		                  why ? why : nl_strerror(rc));
	if (!c->p->o.discard_bad_state)
		return nl_err_set(err, NL_EPARSE,
		                  "%s: offset %zu: %s (--discard-bad-state starts from the records "
		                  "before it)",
		                  f->path, bad, why);
	MOCK_LOG_WARN("Bad state record, --discard-bad-state keeps the records before it",
	              NL_KV_STR("path", f->path), NL_KV_UINT("offset", bad),
	              NL_KV_STR("reason", why), NL_KV_UINT("droppedBytes", f->len - bad));
	c->p->st.discarded_bytes += f->len - bad;
	c->discarded = 1;
	if (fn == on_snap_record) {
		c->have_end = 0; /* whatever the snapshot said, the stop was not clean */
		c->clean = 0;
	}
	if (fn == on_mark_record)
		c->have_mark = 0;
	return 0;
}

/* A file that does not fit the state: refused, or with --discard-bad-state
 * logged with what is done instead (then). */
static int mismatch(load_ctx *c, nl_err *err, const char *path, const char *then, const char *fmt,
                    ...) __attribute__((format(printf, 5, 6)));
static int mismatch(load_ctx *c, nl_err *err, const char *path, const char *then, const char *fmt,
                    ...)
{
	char what[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (!c->p->o.discard_bad_state)
		return nl_err_set(err, NL_EPARSE,
		                  "%s: %s (--discard-bad-state starts from what is intact)", path,
		                  what);
	MOCK_LOG_WARN("State file does not fit, --discard-bad-state goes on",
	              NL_KV_STR("path", path), NL_KV_STR("reason", what),
	              NL_KV_STR("action", then));
	c->discarded = 1;
	return 0;
}

static const char *presence_text(file_presence p)
{
	return p == FILE_MISSING ? "missing" : "empty";
}

/* Does the log continue the snapshot just read? The log is restarted after
 * each snapshot's rename, so a crash between the two leaves the log of the
 * generation before: both are whole. */
static int log_continues_snapshot(const load_ctx *c)
{
	if (!c->have_head) /* format 1; or the first snapshot of an upgrade */
		return c->snap_gen <= 1;
	if (c->log_gen == c->snap_gen)
		return c->log_snap_rv == c->snap_rv;
	return c->log_gen + 1 == c->snap_gen && c->log_snap_rv <= c->snap_rv;
}

/* The checks between the files; each failure names the file to blame. */
static int check_files(load_ctx *c, const state_file *mark, const state_file *snap,
                       const state_file *log, int *replay_log, nl_err *err)
{
	int rc = 0;
	*replay_log = log->presence == FILE_PRESENT;
	if (snap->presence != FILE_PRESENT) {
		*replay_log = 0;
		return mismatch(c, err, snap->path, "starting without it, and without the log",
		                "%s, but %s is there", presence_text(snap->presence),
		                mark->presence != FILE_MISSING ? mark->path : log->path);
	}
	if (log->presence != FILE_PRESENT)
		rc = mismatch(c, err, log->path, "going on without it", "%s, but %s is there",
		              presence_text(log->presence), snap->path);
	if (rc == 0 && !c->have_end) /* a corrupt snapshot, discarded: nothing to check */
		return 0;
	if (rc == 0 && c->have_mark && c->snap_gen != c->mark_gen && c->snap_gen != c->mark_gen + 1)
		/* A backup put back, say: kept, and the counter still goes on
		 * past the marker's ceiling. */
		rc = mismatch(c, err, snap->path,
		              "keeping it; resourceVersions continue past the marker's ceiling",
		              "generation %" PRIu64 ", but %s names generation %" PRIu64
		              ": a snapshot of another time or state",
		              c->snap_gen, mark->path, c->mark_gen);
	if (rc == 0 && !c->have_mark && mark->presence == FILE_MISSING && c->snap_gen > 1)
		rc = mismatch(c, err, mark->path, "going on without it",
		              "missing, but %s is generation %" PRIu64, snap->path, c->snap_gen);
	if (rc == 0 && *replay_log &&
	    (!log_continues_snapshot(c) ||
	     (c->have_mark && c->have_head && c->log_gen < c->mark_gen))) {
		*replay_log = 0;
		if (c->have_head)
			rc = mismatch(
			    c, err, log->path, "dropping the log",
			    "continues snapshot generation %" PRIu64 " (resourceVersion %" PRIu64
			    "), not %s's generation %" PRIu64 " (resourceVersion %" PRIu64
			    "): a log of another time or state",
			    c->log_gen, c->log_snap_rv, snap->path, c->snap_gen, c->snap_rv);
		else
			rc = mismatch(
			    c, err, log->path, "dropping the log",
			    "has no header (state format 1), but %s is generation %" PRIu64,
			    snap->path, c->snap_gen);
	}
	return rc;
}

/* Where the counter goes on from; the log lines that say why. */
static void move_counter(mock_persist *p, const load_ctx *c)
{
	uint64_t counter = c->max_rv;
	if (p->st.restored && !p->st.clean) {
		/* Past anything a client may have seen: the changes a lost sync
		 * or a lost log took with it, and (from the marker) every
		 * resourceVersion ever handed out. */
		counter = c->max_rv + p->o.rv_skip;
		if (c->have_mark && c->ceiling > counter)
			counter = c->ceiling;
		p->st.rv_skipped_from = c->max_rv;
		MOCK_LOG_WARN("The last stop was not clean, resourceVersions skip ahead",
		              NL_KV_STR("path", p->snap_path),
		              NL_KV_UINT("resourceVersion", counter),
		              NL_KV_UINT("lastResourceVersion", c->max_rv));
	}
	mock_store_advance_rv(p->store, counter);
	p->ceiling = counter + p->o.rv_skip;
	if (p->st.restored)
		MOCK_LOG_V(1, "Restored the state", NL_KV_STR("path", p->snap_path),
		           NL_KV_UINT("objects", p->st.objects),
		           NL_KV_UINT("resourceVersion", counter));
}

static uint64_t max3(uint64_t a, uint64_t b, uint64_t c)
{
	return a > b ? (a > c ? a : c) : (b > c ? b : c);
}

static int load_files(mock_persist *p, load_ctx *c, state_file *mark, state_file *snap,
                      state_file *log, nl_err *err)
{
	int rc = map_file(mark, err);
	if (rc == 0)
		rc = map_file(snap, err);
	if (rc == 0)
		rc = map_file(log, err);
	if (rc != 0)
		return rc;
	if (mark->presence == FILE_MISSING && snap->presence == FILE_MISSING &&
	    log->presence == FILE_MISSING) {
		p->st.first_start = 1;
		MOCK_LOG_V(0, "No state there yet, first start with an empty store",
		           NL_KV_STR("path", p->snap_path));
		return 0;
	}
	p->st.restored = 1;
	if (mark->presence == FILE_PRESENT)
		rc = scan_file(c, mark, on_mark_record, err);
	else if (mark->presence == FILE_EMPTY)
		rc = mismatch(c, err, mark->path, "going on without it", "empty");
	if (rc == 0 && snap->presence == FILE_PRESENT)
		rc = scan_file(c, snap, on_snap_record, err);
	if (rc == 0 && log->presence == FILE_PRESENT) {
		size_t bad;
		const char *why;
		/* A log whose first record is corrupt says so when it is read. */
		mock_state_scan(log->map, log->len, log->magic, on_log_peek, c, &bad, &why);
	}
	/* The first start stopped after its snapshot, before its log: that
	 * snapshot is of an empty store, and nothing was acknowledged. */
	if (rc == 0 && mark->presence == FILE_MISSING && log->presence == FILE_MISSING &&
	    c->have_end && c->snap_gen == 1 && c->objects == 0 && c->snap_rv == 0) {
		p->st.restored = 0;
		p->st.first_start = 1;
		MOCK_LOG_V(0, "The first start did not finish, first start with an empty store",
		           NL_KV_STR("path", p->snap_path));
		return 0;
	}
	int replay_log = 0;
	if (rc == 0)
		rc = check_files(c, mark, snap, log, &replay_log, err);
	if (rc == 0 && replay_log)
		rc = scan_file(c, log, on_log_record, err);
	else if (rc == 0 && log->presence == FILE_PRESENT)
		p->st.discarded_bytes += log->len;
	if (rc == 0 && c->have_mark && c->max_rv > c->ceiling)
		rc = mismatch(c, err, mark->path, "going on past the state's resourceVersion",
		              "its ceiling %" PRIu64 " is below resourceVersion %" PRIu64
		              " of the state: not this state's marker",
		              c->ceiling, c->max_rv);
	if (rc == 0 && !c->have_mark && c->snap_gen == 0 && c->have_end && !c->discarded) {
		p->st.upgraded = 1;
		MOCK_LOG_V(
		    0, "State written by an older nodelet-mockapi (state format 1), upgrading it",
		    NL_KV_STR("path", p->snap_path));
	}
	return rc;
}

int mock__persist_load(mock_persist *p, nl_err *err)
{
	load_ctx c = {.p = p};
	state_file mark = {.path = p->gen_path, .magic = MOCK_STATE_GEN_MAGIC};
	state_file snap = {.path = p->snap_path, .magic = MOCK_STATE_SNAP_MAGIC};
	state_file log = {.path = p->log_path, .magic = MOCK_STATE_LOG_MAGIC};
	int rc = load_files(p, &c, &mark, &snap, &log, err);
	unmap_file(&mark);
	unmap_file(&snap);
	unmap_file(&log);
	if (rc != 0)
		return rc;
	for (int k = 0; k < MOCK_KIND_COUNT; k++)
		p->st.objects += mock_store_count(p->store, mock_resource_get((mock_kind)k));
	p->st.clean = p->st.restored && c.have_end && c.clean && c.applied == 0 && !c.discarded &&
	              p->st.discarded_bytes == 0;
	/* Generations only go up, whatever was discarded. */
	p->gen = max3(c.snap_gen, c.log_gen, c.mark_gen);
	p->mark_gen = c.have_mark ? c.mark_gen : 0;
	move_counter(p, &c);
	return 0;
}
