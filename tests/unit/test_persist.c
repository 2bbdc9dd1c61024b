/* The durable store (persist.h): what a restart keeps, what an unclean stop
 * does to the resourceVersion counter, corrupt and truncated files, sync
 * modes, compaction, and the write-ahead rule (a change the log refused is
 * neither stored nor acknowledged). A "kill -9" is a copy of the files taken
 * while the persister is open: what a killed process leaves on disk. */
#include "../cu_main.h"

#include <fcntl.h>
#include <nodelet/errors.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "storage/persist.h"
#include "storage/persist_format.h"
#include "storage/store.h"

static char dir[64];
static char path[128];

static int suite_init(void)
{
	snprintf(dir, sizeof(dir), "/tmp/nl-persist-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/state", dir);
	return 0;
}

static void rm_state(const char *base)
{
	static const char *const suffixes[] = {"",     ".log",     ".lock",   ".tmp",
	                                       ".gen", ".log.tmp", ".gen.tmp"};
	char p[256];
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", base, suffixes[i]);
		unlink(p);
	}
}

static int suite_clean(void)
{
	char p[256];
	rm_state(path);
	snprintf(p, sizeof(p), "%s/copy", dir);
	rm_state(p);
	return rmdir(dir);
}

static const mock_resource *res(mock_kind k)
{
	return mock_resource_get(k);
}

static mock_store *store_new(void)
{
	mock_store *s = NULL;
	CU_ASSERT_EQUAL_FATAL(mock_store_new(&s, NULL, NULL), 0);
	return s;
}

/* The counter's skip after an unclean stop; small in the tests that need
 * more changes than it between two snapshots. */
static uint64_t rv_skip;

static mock_persist *open_at(mock_store *s, const char *p, mock_sync_mode mode, int discard,
                             int *rc_out, nl_err *err)
{
	mock_persist_opts o;
	mock_persist *per = NULL;
	mock_persist_opts_init(&o);
	o.path = p;
	o.sync = mode;
	o.sync_interval_ms = 10;
	o.discard_bad_state = discard;
	if (rv_skip)
		o.rv_skip = rv_skip;
	*rc_out = mock_persist_open(&per, s, &o, err);
	return per;
}

static mock_persist *open_ok(mock_store *s, const char *p)
{
	int rc;
	nl_err err = {0};
	mock_persist *per = open_at(s, p, MOCK_SYNC_BATCH, 0, &rc, &err);
	if (rc != 0)
		fprintf(stderr, "\n  open: %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	return per;
}

static int create(mock_store *s, mock_kind k, const char *text)
{
	json_object *o = nl_test_json(text);
	int rc =
	    mock_store_write(s, res(k), MOCK_WRITE_CREATE, o, NULL, NULL, NULL, NULL, NULL, NULL);
	json_object_put(o);
	return rc;
}

static void seed(mock_store *s)
{
	CU_ASSERT_EQUAL(create(s, MOCK_KIND_NAMESPACE, "{\"metadata\":{\"name\":\"default\"}}"), 0);
	CU_ASSERT_EQUAL(create(s, MOCK_KIND_CONFIGMAP,
	                       "{\"metadata\":{\"name\":\"a\",\"namespace\":\"default\","
	                       "\"labels\":{\"app\":\"x\"}},\"data\":{\"k\":\"v\"}}"),
	                0);
	CU_ASSERT_EQUAL(create(s, MOCK_KIND_CONFIGMAP,
	                       "{\"metadata\":{\"name\":\"b\",\"namespace\":\"default\"}}"),
	                0);
	CU_ASSERT_EQUAL(create(s, MOCK_KIND_NODE, "{\"metadata\":{\"name\":\"n1\"}}"), 0);
}

/* Update ConfigMap a's data.k to value (unconditional PUT). */
static void update_a(mock_store *s, const char *value)
{
	char text[256];
	snprintf(
	    text, sizeof(text),
	    "{\"metadata\":{\"name\":\"a\",\"namespace\":\"default\",\"labels\":{\"app\":\"x\"}},"
	    "\"data\":{\"k\":\"%s\"}}",
	    value);
	json_object *o = nl_test_json(text);
	CU_ASSERT_EQUAL(mock_store_write(s, res(MOCK_KIND_CONFIGMAP), MOCK_WRITE_UPDATE, o, NULL,
	                                 NULL, NULL, NULL, NULL, NULL),
	                0);
	json_object_put(o);
}

static char *get(mock_store *s, mock_kind k, const char *ns, const char *name)
{
	char *json = NULL;
	size_t len = 0;
	if (mock_store_get(s, res(k), ns, name, &json, &len, NULL) != 0)
		return NULL;
	return json;
}

/* Every object of a and b byte for byte. */
static void assert_same_objects(mock_store *a, mock_store *b)
{
	static const struct {
		mock_kind k;
		const char *ns, *name;
	} objs[] = {{MOCK_KIND_NAMESPACE, NULL, "default"},
	            {MOCK_KIND_CONFIGMAP, "default", "a"},
	            {MOCK_KIND_CONFIGMAP, "default", "b"},
	            {MOCK_KIND_NODE, NULL, "n1"}};
	for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
		char *x = get(a, objs[i].k, objs[i].ns, objs[i].name);
		char *y = get(b, objs[i].k, objs[i].ns, objs[i].name);
		CU_ASSERT_TRUE((x == NULL) == (y == NULL));
		if (x && y)
			CU_ASSERT_STRING_EQUAL(x, y);
		free(x);
		free(y);
	}
	for (int k = 0; k < MOCK_KIND_COUNT; k++)
		CU_ASSERT_EQUAL(mock_store_count(a, res((mock_kind)k)),
		                mock_store_count(b, res((mock_kind)k)));
}

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CU_ASSERT_FATAL(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		CU_ASSERT_EQUAL(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
}

static off_t file_size(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 ? sb.st_size : -1;
}

/* What kill -9 leaves: the files as they are now, under base "copy". */
static const char *crash_copy(void)
{
	static char copy[160];
	static const char *const suffixes[] = {".log", ".gen"};
	char from[200], to[200];
	snprintf(copy, sizeof(copy), "%s/copy", dir);
	rm_state(copy);
	copy_file(path, copy);
	for (size_t i = 0; i < 2; i++) {
		snprintf(from, sizeof(from), "%s%s", path, suffixes[i]);
		snprintf(to, sizeof(to), "%s%s", copy, suffixes[i]);
		if (file_size(from) >= 0)
			copy_file(from, to);
	}
	return copy;
}

static void patch_byte(const char *p, off_t off, char value)
{
	int fd = open(p, O_WRONLY);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(pwrite(fd, &value, 1, off), 1);
	close(fd);
}

/* ------------------------------------------------------------------------ */

static void test_persist__clean_restart_keeps_objects_and_counter(void)
{
	mock_persist_stats st;
	rm_state(path);
	mock_store *s = store_new();
	mock_persist *p = open_ok(s, path);
	mock_persist_stats_get(p, &st);
	CU_ASSERT_FALSE(st.restored);
	seed(s);
	update_a(s, "v2");
	CU_ASSERT_EQUAL(create(s, MOCK_KIND_NODE, "{\"metadata\":{\"name\":\"gone\"}}"), 0);
	CU_ASSERT_EQUAL(
	    mock_store_delete(s, res(MOCK_KIND_NODE), NULL, "gone", NULL, NULL, NULL, NULL, NULL),
	    0);
	uint64_t rv = mock_store_rv(s);
	mock_persist_close(p);

	mock_store *t = store_new();
	p = open_ok(t, path);
	mock_persist_stats_get(p, &st);
	CU_ASSERT_TRUE(st.restored);
	CU_ASSERT_TRUE(st.clean);
	CU_ASSERT_EQUAL(st.objects, 4);
	CU_ASSERT_EQUAL(st.rv_skipped_from, 0);
	/* A clean stop keeps the counter exactly: no gap for watchers. */
	CU_ASSERT_EQUAL(mock_store_rv(t), rv);
	assert_same_objects(s, t);
	CU_ASSERT_PTR_NULL(get(t, MOCK_KIND_NODE, NULL, "gone"));
	/* Writes go on from there, and are logged again. */
	update_a(t, "v3");
	CU_ASSERT_EQUAL(mock_store_rv(t), rv + 1);
	mock_persist_close(p);
	mock_store_free(s);
	mock_store_free(t);
}

static void test_persist__unclean_stop_keeps_logged_changes_and_skips_ahead(void)
{
	mock_persist_stats st;
	rm_state(path);
	mock_store *s = store_new();
	mock_persist *p = open_ok(s, path);
	seed(s);
	update_a(s, "after-snapshot");
	uint64_t rv = mock_store_rv(s);
	const char *copy = crash_copy();

	mock_store *t = store_new();
	mock_persist *q = open_ok(t, copy);
	mock_persist_stats_get(q, &st);
	CU_ASSERT_TRUE(st.restored);
	CU_ASSERT_FALSE(st.clean);
	CU_ASSERT_EQUAL(st.rv_skipped_from, rv);
	CU_ASSERT_EQUAL(mock_store_rv(t), rv + MOCK_PERSIST_RV_SKIP);
	assert_same_objects(s, t);
	char *a = get(t, MOCK_KIND_CONFIGMAP, "default", "a");
	CU_ASSERT_PTR_NOT_NULL(a);
	CU_ASSERT_PTR_NOT_NULL(a ? strstr(a, "after-snapshot") : NULL);
	free(a);
	/* A restart after the restart was clean: no second skip. */
	uint64_t rv2 = mock_store_rv(t);
	mock_persist_close(q);
	mock_store *u = store_new();
	q = open_ok(u, copy);
	CU_ASSERT_EQUAL(mock_store_rv(u), rv2);
	mock_persist_close(q);
	mock_persist_close(p);
	mock_store_free(s);
	mock_store_free(t);
	mock_store_free(u);
}

static void test_persist__second_process_on_the_same_file_is_refused(void)
{
	int rc;
	nl_err err = {0};
	rm_state(path);
	mock_store *s = store_new(), *t = store_new();
	mock_persist *p = open_ok(s, path);
	mock_persist *q = open_at(t, path, MOCK_SYNC_BATCH, 0, &rc, &err);
	CU_ASSERT_PTR_NULL(q);
	CU_ASSERT_EQUAL(rc, NL_EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "in use"));
	mock_persist_close(p);
	mock_store_free(s);
	mock_store_free(t);
}

/* A crash copy whose log holds the seed's four records, for corrupting. */
static const char *crashed_with_log(mock_store **s_out, mock_persist **p_out, off_t *last_rec)
{
	char logp[200];
	rm_state(path);
	*s_out = store_new();
	*p_out = open_ok(*s_out, path);
	snprintf(logp, sizeof(logp), "%s.log", path);
	seed(*s_out);
	*last_rec = file_size(logp);
	CU_ASSERT_EQUAL(create(*s_out, MOCK_KIND_NODE, "{\"metadata\":{\"name\":\"last\"}}"), 0);
	return crash_copy();
}

static void test_persist__bad_checksum_names_the_offset(void)
{
	int rc;
	nl_err err = {0};
	off_t last;
	char logp[200], want[300];
	mock_store *s, *t = store_new();
	mock_persist *p;
	const char *copy = crashed_with_log(&s, &p, &last);
	snprintf(logp, sizeof(logp), "%s.log", copy);
	/* A byte inside the last record's JSON. */
	patch_byte(logp, last + MOCK_STATE_FRAME_LEN + 20, 'Z');
	mock_persist *q = open_at(t, copy, MOCK_SYNC_BATCH, 0, &rc, &err);
	CU_ASSERT_PTR_NULL(q);
	CU_ASSERT_EQUAL(rc, NL_EPARSE);
	snprintf(want, sizeof(want), "%s: offset %lld: bad checksum", logp, (long long)last);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
	if (!strstr(err.msg, want))
		fprintf(stderr, "\n  got: %s\n  want: %s\n", err.msg, want);
	/* Refusing to start changed nothing on disk. */
	CU_ASSERT_EQUAL(file_size(logp), file_size(logp));

	/* --discard-bad-state: everything before the bad record. */
	mock_store *u = store_new();
	q = open_at(u, copy, MOCK_SYNC_BATCH, 1, &rc, &err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	mock_persist_stats st;
	mock_persist_stats_get(q, &st);
	CU_ASSERT_TRUE(st.discarded_bytes > 0);
	CU_ASSERT_FALSE(st.clean);
	CU_ASSERT_EQUAL(mock_store_count(u, res(MOCK_KIND_CONFIGMAP)), 2);
	CU_ASSERT_PTR_NULL(get(u, MOCK_KIND_NODE, NULL, "last"));
	char *n1 = get(u, MOCK_KIND_NODE, NULL, "n1");
	CU_ASSERT_PTR_NOT_NULL(n1);
	free(n1);
	/* The counter still never goes back past what was acknowledged. */
	CU_ASSERT_TRUE(mock_store_rv(u) > mock_store_rv(s));
	mock_persist_close(q);
	mock_persist_close(p);
	mock_store_free(s);
	mock_store_free(t);
	mock_store_free(u);
}

/* A kill during the last append can leave that record cut short (Linux
 * may stop a multi-page pwritev part way): the write was never answered,
 * so the start drops it and goes on, as etcd's WAL repair does. */
static void torn_tail_is_dropped(off_t cut)
{
	int rc;
	nl_err err = {0};
	off_t last;
	char logp[200];
	mock_store *s, *t = store_new();
	mock_persist *p;
	const char *copy = crashed_with_log(&s, &p, &last);
	snprintf(logp, sizeof(logp), "%s.log", copy);
	CU_ASSERT_EQUAL(truncate(logp, last + cut), 0);
	mock_persist *q = open_at(t, copy, MOCK_SYNC_BATCH, 0, &rc, &err);
	CU_ASSERT_EQUAL(rc, 0);
	if (rc != 0)
		fprintf(stderr, "\n  cut %lld: %s\n", (long long)cut, err.msg);
	if (q) {
		mock_persist_stats st;
		mock_persist_stats_get(q, &st);
		CU_ASSERT_EQUAL(st.torn_bytes, (uint64_t)cut);
		CU_ASSERT_FALSE(st.clean);
		CU_ASSERT_EQUAL(mock_store_count(t, res(MOCK_KIND_CONFIGMAP)), 2);
		CU_ASSERT_EQUAL(mock_store_count(t, res(MOCK_KIND_NODE)), 1);
		CU_ASSERT_PTR_NULL(get(t, MOCK_KIND_NODE, NULL, "last"));
		/* Past anything the killed server handed out. */
		CU_ASSERT_TRUE(mock_store_rv(t) > mock_store_rv(s));
		mock_persist_close(q);
	}
	mock_store_free(t);
	/* The start wrote a state without it: the next start is clean. */
	t = store_new();
	q = open_at(t, copy, MOCK_SYNC_BATCH, 0, &rc, &err);
	CU_ASSERT_EQUAL(rc, 0);
	if (q) {
		mock_persist_stats st;
		mock_persist_stats_get(q, &st);
		CU_ASSERT_EQUAL(st.torn_bytes, 0);
		CU_ASSERT_TRUE(st.clean);
		mock_persist_close(q);
	}
	mock_store_free(t);
	mock_persist_close(p);
	mock_store_free(s);
}

static void test_persist__torn_last_record_of_a_killed_server_is_dropped(void)
{
	torn_tail_is_dropped(5);  /* inside the frame */
	torn_tail_is_dropped(20); /* inside the payload */
}

/* After a clean stop nothing may follow the log's header: a cut record
 * there is not a kill's torn write, and is refused with its offset. */
static void test_persist__truncated_log_after_a_clean_stop_names_the_offset(void)
{
	int rc;
	nl_err err = {0};
	char logp[200], want[300];
	rm_state(path);
	mock_store *s = store_new(), *t = store_new();
	mock_persist *p = open_ok(s, path);
	seed(s);
	mock_persist_close(p);
	snprintf(logp, sizeof(logp), "%s.log", path);
	off_t end = file_size(logp);
	FILE *f = fopen(logp, "ab");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fwrite("\x40\0\0\0\1\2\3\4PUT ", 1, 12, f); /* a frame promising 64 bytes */
	fclose(f);
	CU_ASSERT_PTR_NULL(open_at(t, path, MOCK_SYNC_BATCH, 0, &rc, &err));
	CU_ASSERT_EQUAL(rc, NL_EPARSE);
	snprintf(want, sizeof(want), "offset %lld: truncated record", (long long)end);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
	CU_ASSERT_EQUAL(truncate(logp, end + 5), 0); /* a cut frame */
	CU_ASSERT_PTR_NULL(open_at(t, path, MOCK_SYNC_BATCH, 0, &rc, &err));
	snprintf(want, sizeof(want), "offset %lld: truncated record frame", (long long)end);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
	mock_store_free(t);
	t = store_new();
	mock_persist *q = open_at(t, path, MOCK_SYNC_BATCH, 1, &rc, &err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(mock_store_count(t, res(MOCK_KIND_CONFIGMAP)), 2);
	mock_persist_close(q);
	mock_store_free(s);
	mock_store_free(t);
}

static void test_persist__corrupt_snapshot_is_refused(void)
{
	int rc;
	nl_err err = {0};
	rm_state(path);
	mock_store *s = store_new();
	mock_persist *p = open_ok(s, path);
	seed(s);
	mock_persist_close(p); /* everything is in the snapshot now */
	off_t size = file_size(path);

	/* Without its end record the snapshot may be missing objects. */
	CU_ASSERT_EQUAL(truncate(path, size - 3), 0);
	mock_store *t = store_new();
	CU_ASSERT_PTR_NULL(open_at(t, path, MOCK_SYNC_BATCH, 0, &rc, &err));
	CU_ASSERT_EQUAL(rc, NL_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "truncated record"));

	/* A failed open leaves part of the state behind: a new store. */
	mock_store_free(t);
	t = store_new();
	patch_byte(path, 0, 'X');
	CU_ASSERT_PTR_NULL(open_at(t, path, MOCK_SYNC_BATCH, 0, &rc, &err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "offset 0: not a nodelet-mockapi state file"));
	/* Discarding a snapshot with a bad magic keeps nothing of it. */
	p = open_at(t, path, MOCK_SYNC_BATCH, 1, &rc, &err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(mock_store_count(t, res(MOCK_KIND_CONFIGMAP)), 0);
	mock_persist_close(p);
	mock_store_free(s);
	mock_store_free(t);
}

static void test_persist__sync_modes(void)
{
	static const mock_sync_mode modes[] = {MOCK_SYNC_ALWAYS, MOCK_SYNC_NEVER, MOCK_SYNC_BATCH};
	for (size_t i = 0; i < 3; i++) {
		int rc;
		nl_err err = {0};
		mock_persist_stats st;
		rm_state(path);
		mock_store *s = store_new();
		mock_persist *p = open_at(s, path, modes[i], 0, &rc, &err);
		CU_ASSERT_EQUAL_FATAL(rc, 0);
		seed(s);
		mock_persist_stats_get(p, &st);
		CU_ASSERT_EQUAL(st.records, 4);
		if (modes[i] == MOCK_SYNC_ALWAYS)
			CU_ASSERT_EQUAL(st.syncs, 4);
		if (modes[i] == MOCK_SYNC_NEVER)
			CU_ASSERT_EQUAL(st.syncs, 0);
		if (modes[i] == MOCK_SYNC_BATCH) {
			/* One sync for the batch within the 10 ms interval;
			 * wait for it without asserting any timing. */
			for (int tries = 0; tries < 500 && st.syncs == 0; tries++) {
				struct timespec ts = {0, 10 * 1000 * 1000};
				nanosleep(&ts, NULL);
				mock_persist_stats_get(p, &st);
			}
			CU_ASSERT_TRUE(st.syncs >= 1 && st.syncs < 4);
		}
		mock_persist_close(p);
		mock_store_free(s);
	}
	CU_ASSERT_EQUAL(mock_sync_mode_parse("sometimes", &(mock_sync_mode){0}), NL_EINVAL);
}

static void test_persist__compaction_restarts_the_log(void)
{
	mock_persist_stats st;
	char logp[200];
	nl_err err = {0};
	rm_state(path);
	snprintf(logp, sizeof(logp), "%s.log", path);
	mock_store *s = store_new();
	mock_persist *p = open_ok(s, path);
	seed(s);
	for (int i = 0; i < 50; i++)
		update_a(s, "churn");
	CU_ASSERT_TRUE(file_size(logp) > 50 * 100);
	CU_ASSERT_EQUAL(mock_persist_compact(p, &err), 0);
	mock_persist_stats_get(p, &st);
	/* The magic and the header naming the new snapshot: no changes. */
	CU_ASSERT_TRUE(file_size(logp) < 64);
	CU_ASSERT_EQUAL(st.log_bytes, (uint64_t)file_size(logp));
	CU_ASSERT_EQUAL(st.compactions, 2); /* open's and this one */
	update_a(s, "after-compaction");
	const char *copy = crash_copy();
	mock_store *t = store_new();
	mock_persist *q = open_ok(t, copy);
	assert_same_objects(s, t);
	mock_persist_close(q);
	mock_persist_close(p);
	mock_store_free(s);
	mock_store_free(t);
}

static void test_persist__background_compaction_when_the_log_outgrows_it(void)
{
	int rc;
	nl_err err = {0};
	mock_persist_opts o;
	mock_persist_stats st;
	mock_persist *p = NULL;
	rm_state(path);
	mock_store *s = store_new();
	mock_persist_opts_init(&o);
	o.path = path;
	o.compact_min_bytes = 4096;
	rc = mock_persist_open(&p, s, &o, &err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	seed(s);
	for (int i = 0; i < 100; i++)
		update_a(s, "churn");
	mock_persist_stats_get(p, &st);
	/* Once writes stop, a log over the threshold (and the snapshot) is
	 * compacted: wait for that, with no timing asserted. */
	for (int tries = 0; tries < 500 && (st.compactions < 2 || st.log_bytes > 4096); tries++) {
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
		mock_persist_stats_get(p, &st);
	}
	CU_ASSERT_TRUE(st.compactions >= 2);
	CU_ASSERT_TRUE(st.log_bytes <= 4096);
	const char *copy = crash_copy();
	mock_store *t = store_new();
	mock_persist *q = open_ok(t, copy);
	assert_same_objects(s, t);
	mock_persist_close(q);
	mock_persist_close(p);
	mock_store_free(s);
	mock_store_free(t);
}

static int refuse(const mock_resource *r, mock_store_event ev, const char *key, const char *json,
                  size_t len, uint64_t rv, void *payload)
{
	(void)r, (void)ev, (void)key, (void)json, (void)len, (void)rv;
	return *(int *)payload ? NL_EIO : 0;
}

/* Write-ahead: a change the log did not take is not applied, not
 * acknowledged (500) and takes no resourceVersion. */
static void test_persist__refused_change_leaves_the_store_unchanged(void)
{
	int refusing = 0;
	nl_status *st = NULL;
	mock_store *s = store_new();
	mock_store_set_persist(s, refuse, &refusing);
	seed(s);
	uint64_t rv = mock_store_rv(s);
	char *before = get(s, MOCK_KIND_CONFIGMAP, "default", "a");
	refusing = 1;
	json_object *o = nl_test_json("{\"metadata\":{\"name\":\"a\",\"namespace\":\"default\"}}");
	CU_ASSERT_EQUAL(mock_store_write(s, res(MOCK_KIND_CONFIGMAP), MOCK_WRITE_UPDATE, o, NULL,
	                                 NULL, NULL, NULL, NULL, &st),
	                NL_EIO);
	CU_ASSERT_EQUAL(st ? st->code : 0, 500);
	nl_status_free(st);
	st = NULL;
	json_object_put(o);
	CU_ASSERT_EQUAL(create(s, MOCK_KIND_NODE, "{\"metadata\":{\"name\":\"n2\"}}"), NL_EIO);
	CU_ASSERT_EQUAL(mock_store_delete(s, res(MOCK_KIND_NAMESPACE), NULL, "default", NULL, NULL,
	                                  NULL, NULL, &st),
	                NL_EIO);
	CU_ASSERT_EQUAL(st ? st->code : 0, 500);
	nl_status_free(st);
	char *after = get(s, MOCK_KIND_CONFIGMAP, "default", "a");
	CU_ASSERT_STRING_EQUAL(after, before);
	CU_ASSERT_EQUAL(mock_store_rv(s), rv);
	CU_ASSERT_EQUAL(mock_store_count(s, res(MOCK_KIND_NODE)), 1);
	CU_ASSERT_EQUAL(mock_store_count(s, res(MOCK_KIND_CONFIGMAP)), 2);
	free(before);
	free(after);
	mock_store_free(s);
}

/* ------------------------------------------------------------------------
 * The record format on its own */

typedef struct {
	int n;
	mock_state_rec last;
} scan_seen;

static int count_rec(const mock_state_rec *rec, size_t off, void *payload)
{
	scan_seen *seen = payload;
	(void)off;
	seen->n++;
	seen->last = *rec;
	return 0;
}

/* A log of the given payloads, each framed with its length and CRC. */
static size_t framed(char *out, const char *const *payloads, size_t n)
{
	size_t len = MOCK_STATE_MAGIC_LEN;
	memcpy(out, MOCK_STATE_LOG_MAGIC, MOCK_STATE_MAGIC_LEN);
	for (size_t i = 0; i < n; i++) {
		size_t pl = strlen(payloads[i]);
		uint32_t crc = mock_crc32(0, payloads[i], pl);
		for (int b = 0; b < 4; b++) {
			out[len + (size_t)b] = (char)((pl >> (8 * b)) & 0xFF);
			out[len + 4 + (size_t)b] = (char)((crc >> (8 * b)) & 0xFF);
		}
		memcpy(out + len + 8, payloads[i], pl);
		len += 8 + pl;
	}
	return len;
}

static void test_persist__format_rejects_bad_records(void)
{
	static const struct {
		const char *payload, *why;
	} bad[] = {
	    {"X 1 v1/nodes n", "unknown record type"},
	    {"P 0 v1/nodes\n{}", "bad resourceVersion"},
	    {"P 01 v1/nodes\n{}", "bad resourceVersion"},
	    {"P 99999999999999999999 v1/nodes\n{}", "bad resourceVersion"},
	    {"P 1 v1/services\n{}", "unknown resource"},
	    {"P 1 v1/nodes {}", "bad object record"},
	    {"D 1 v1/configmaps noslash", "bad key"},
	    {"D 1 v1/nodes a/b", "bad key"},
	    {"D 1 v1/configmaps a/b c", "bad key"},
	    {"E 1 2", "bad end record"},
	    {"E 1 2 7", "bad end record"},
	    {"E 1 2 1 0", "bad end record"},
	    {"E 1 2 1 3 4", "bad end record"},
	    {"H 0 5", "bad log header"},
	    {"H 1", "bad log header"},
	    {"G 1 2 3", "bad generation record"},
	};
	char buf[512];
	const char *why = NULL;
	size_t off = 0;
	scan_seen seen = {0};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *const one[] = {"D 1 v1/nodes n1", bad[i].payload};
		size_t len = framed(buf, one, 2);
		why = NULL;
		CU_ASSERT_EQUAL(
		    mock_state_scan(buf, len, MOCK_STATE_LOG_MAGIC, count_rec, &seen, &off, &why),
		    NL_EPARSE);
		CU_ASSERT_EQUAL(off, MOCK_STATE_MAGIC_LEN + 8 + strlen(one[0]));
		CU_ASSERT_PTR_NOT_NULL(why ? strstr(why, bad[i].why) : NULL);
		if (!why || !strstr(why, bad[i].why))
			fprintf(stderr, "\n  %s: got %s\n", bad[i].payload, why ? why : "(null)");
	}
	const char *const good[] = {"P 7 coordination.k8s.io/v1/leases\n{\"x\":1}",
	                            "D 8 v1/configmaps default/a"};
	memset(&seen, 0, sizeof(seen));
	size_t len = framed(buf, good, 2);
	CU_ASSERT_EQUAL(
	    mock_state_scan(buf, len, MOCK_STATE_LOG_MAGIC, count_rec, &seen, &off, &why), 0);
	CU_ASSERT_EQUAL(seen.n, 2);
	CU_ASSERT_EQUAL(seen.last.type, MOCK_REC_DELETE);
	CU_ASSERT_EQUAL(seen.last.rv, 8);
	CU_ASSERT_PTR_EQUAL(seen.last.r, res(MOCK_KIND_CONFIGMAP));
	/* A frame claiming more than the limit is corrupt, not an allocation. */
	memset(buf + MOCK_STATE_MAGIC_LEN, 0xFF, 8);
	CU_ASSERT_EQUAL(
	    mock_state_scan(buf, len, MOCK_STATE_LOG_MAGIC, count_rec, &seen, &off, &why),
	    NL_EPARSE);
	CU_ASSERT_STRING_EQUAL(why, "record length out of range");
	/* CRC-32 check value. */
	CU_ASSERT_EQUAL(mock_crc32(0, "123456789", 9), 0xCBF43926u);
}

/* ------------------------------------------------------------------------
 * Files that went missing, were emptied or replaced (issue 19): refused
 * with the file's name, unless --discard-bad-state; the counter never goes
 * back over a restart that is accepted. */

static const char *with(const char *base, const char *suffix)
{
	static char out[4][200];
	static int next;
	char *p = out[next++ % 4];
	snprintf(p, sizeof(out[0]), "%s%s", base, suffix);
	return p;
}

static void empty_file(const char *p)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
}

/* Open base expecting a refusal whose message holds want (and the file). */
static void assert_refused(const char *base, const char *file, const char *want)
{
	int rc;
	nl_err err = {0};
	mock_store *t = store_new();
	mock_persist *q = open_at(t, base, MOCK_SYNC_BATCH, 0, &rc, &err);
	CU_ASSERT_PTR_NULL(q);
	CU_ASSERT_EQUAL(rc, NL_EPARSE);
	int ok = strstr(err.msg, file) && strstr(err.msg, want) &&
	         strstr(err.msg, "--discard-bad-state");
	CU_ASSERT_TRUE(ok);
	if (!ok)
		fprintf(stderr, "\n  got: %s\n  want: %s ... %s\n", err.msg, file, want);
	mock_persist_close(q);
	mock_store_free(t);
}

/* Open base with --discard-bad-state; the counter must be past rv. */
static mock_store *discard_open(const char *base, uint64_t rv, mock_persist_stats *st)
{
	int rc;
	nl_err err = {0};
	mock_store *t = store_new();
	mock_persist *q = open_at(t, base, MOCK_SYNC_BATCH, 1, &rc, &err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	mock_persist_stats_get(q, st);
	CU_ASSERT_FALSE(st->clean);
	CU_ASSERT_TRUE(mock_store_rv(t) > rv);
	/* Changes go on, and the state is whole again for the next start. */
	static int n;
	char node[96];
	snprintf(node, sizeof(node), "{\"metadata\":{\"name\":\"after-discard-%d\"}}", ++n);
	CU_ASSERT_EQUAL(create(t, MOCK_KIND_NODE, node), 0);
	uint64_t after = mock_store_rv(t);
	mock_persist_close(q);
	mock_store_free(t);
	t = store_new();
	q = open_ok(t, base);
	CU_ASSERT_EQUAL(mock_store_rv(t), after);
	mock_persist_close(q);
	return t;
}

/* A clean stop of the seeded store at path; returns its counter. */
static uint64_t clean_state(void)
{
	rm_state(path);
	mock_store *s = store_new();
	mock_persist *p = open_ok(s, path);
	seed(s);
	update_a(s, "v2");
	uint64_t rv = mock_store_rv(s);
	mock_persist_close(p);
	mock_store_free(s);
	return rv;
}

static void test_persist__fresh_directory_is_a_first_start(void)
{
	mock_persist_stats st;
	rm_state(path);
	mock_store *s = store_new();
	mock_persist *p = open_ok(s, path);
	mock_persist_stats_get(p, &st);
	CU_ASSERT_TRUE(st.first_start);
	CU_ASSERT_FALSE(st.restored);
	CU_ASSERT_EQUAL(st.generation, 1);
	/* All three files are there from the first start on. */
	CU_ASSERT_TRUE(file_size(path) > MOCK_STATE_MAGIC_LEN);
	CU_ASSERT_TRUE(file_size(with(path, ".log")) > MOCK_STATE_MAGIC_LEN);
	CU_ASSERT_TRUE(file_size(with(path, ".gen")) > MOCK_STATE_MAGIC_LEN);
	mock_persist_close(p);
	p = open_ok(s = (mock_store_free(s), store_new()), path);
	mock_persist_stats_get(p, &st);
	CU_ASSERT_FALSE(st.first_start);
	CU_ASSERT_TRUE(st.restored && st.clean);
	CU_ASSERT_EQUAL(st.generation, 3); /* first open, clean stop, this open */
	mock_persist_close(p);
	mock_store_free(s);
}

static void test_persist__missing_or_empty_snapshot_is_refused(void)
{
	mock_persist_stats st;
	uint64_t rv = clean_state();
	CU_ASSERT_EQUAL(unlink(path), 0);
	assert_refused(path, path, "missing");
	mock_store_free(discard_open(path, rv, &st));

	rv = clean_state();
	empty_file(path);
	assert_refused(path, path, "empty");
	mock_store_free(discard_open(path, rv, &st));

	/* The magic alone: empty of records, refused the same way. */
	rv = clean_state();
	CU_ASSERT_EQUAL(truncate(path, MOCK_STATE_MAGIC_LEN), 0);
	assert_refused(path, path, "without its end record");
	mock_store_free(discard_open(path, rv, &st));

	/* And the state everything else is missing from: the snapshot and the
	 * log gone, the marker left. */
	rv = clean_state();
	CU_ASSERT_EQUAL(unlink(path), 0);
	CU_ASSERT_EQUAL(unlink(with(path, ".log")), 0);
	assert_refused(path, path, "missing");
	mock_store_free(discard_open(path, rv, &st));
}

static void test_persist__missing_or_empty_log_is_refused(void)
{
	mock_persist_stats st;
	/* An unclean stop: the log holds changes the snapshot does not. */
	rm_state(path);
	mock_store *s = store_new();
	mock_persist *p = open_ok(s, path);
	seed(s);
	uint64_t rv = mock_store_rv(s);
	const char *copy = crash_copy();
	CU_ASSERT_EQUAL(unlink(with(copy, ".log")), 0);
	assert_refused(copy, with(copy, ".log"), "missing");
	mock_store *t = discard_open(copy, rv, &st);
	/* The log's changes are gone; what was not lost is the counter. */
	CU_ASSERT_PTR_NULL(get(t, MOCK_KIND_NODE, NULL, "n1"));
	mock_store_free(t);

	copy = crash_copy();
	empty_file(with(copy, ".log"));
	assert_refused(copy, with(copy, ".log"), "empty");
	mock_store_free(discard_open(copy, rv, &st));

	/* After a clean stop too: the files belong together. */
	mock_persist_close(p);
	mock_store_free(s);
	rv = clean_state();
	CU_ASSERT_EQUAL(unlink(with(path, ".log")), 0);
	assert_refused(path, with(path, ".log"), "missing");
	mock_store_free(discard_open(path, rv, &st));
}

/* Copy base's snapshot and log aside (suffix ".old"), to put back later. */
static void save_pair(const char *base)
{
	copy_file(base, with(base, ".old"));
	copy_file(with(base, ".log"), with(base, ".log.old"));
}

static void test_persist__replaced_files_are_refused(void)
{
	nl_err err = {0};
	mock_persist_stats st;
	rm_state(path);
	mock_store *s = store_new();
	mock_persist *p = open_ok(s, path);
	seed(s);
	mock_persist_close(p); /* generation 2 */
	save_pair(path);
	p = open_ok(s = (mock_store_free(s), store_new()), path);
	update_a(s, "newer");
	CU_ASSERT_EQUAL(mock_persist_compact(p, &err), 0);
	uint64_t rv = mock_store_rv(s);
	mock_persist_close(p); /* generation 5 */
	mock_store_free(s);

	/* An older snapshot put back: it is not the one the state ends with. */
	copy_file(with(path, ".old"), path);
	assert_refused(path, path, "generation 2");
	mock_store_free(discard_open(path, rv, &st));

	/* An older log beside the newest snapshot. */
	p = open_ok(s = store_new(), path);
	mock_persist_close(p);
	mock_store_free(s);
	copy_file(with(path, ".log.old"), with(path, ".log"));
	assert_refused(path, with(path, ".log"), "generation 2");

	/* Both put back, a consistent older pair: the marker says otherwise,
	 * and accepting it would move the counter back. */
	clean_state();
	save_pair(path);
	p = open_ok(s = store_new(), path);
	update_a(s, "newer");
	rv = mock_store_rv(s);
	mock_persist_close(p);
	mock_store_free(s);
	copy_file(with(path, ".old"), path);
	copy_file(with(path, ".log.old"), with(path, ".log"));
	assert_refused(path, path, "generation");
	mock_store_free(discard_open(path, rv, &st));
	unlink(with(path, ".old"));
	unlink(with(path, ".log.old"));
}

/* The marker holds a ceiling the counter has not passed: a lost log cannot
 * take the counter back, however many changes it held. */
static void test_persist__lost_log_never_moves_the_counter_back(void)
{
	mock_persist_stats st;
	rv_skip = 10;
	rm_state(path);
	mock_store *s = store_new();
	mock_persist *p = open_ok(s, path);
	seed(s);
	for (int i = 0; i < 35; i++)
		update_a(s, "churn");
	uint64_t rv = mock_store_rv(s);
	const char *copy = crash_copy();
	CU_ASSERT_EQUAL(unlink(with(copy, ".log")), 0);
	mock_store_free(discard_open(copy, rv, &st));
	mock_persist_close(p);
	mock_store_free(s);
	rv_skip = 0;
}

/* A raw state file of the given payloads (framed as the format says). */
static void write_framed(const char *p, const char *magic, const char *const *payloads, size_t n)
{
	char buf[2048];
	size_t len = framed(buf, payloads, n);
	memcpy(buf, magic, MOCK_STATE_MAGIC_LEN);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

#define V1_NODE(name, rv)                                                                      \
	"P " #rv                                                                               \
	" v1/nodes\n{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"" name   \
	"\",\"uid\":\"0b1c2d3e-0000-4000-8000-00000000000" #rv "\",\"resourceVersion\":\"" #rv \
	"\"}}"

/* A state written before issue 19 (no generations, no marker) still loads,
 * once, and is written in the new format from then on. */
static void test_persist__version1_state_is_upgraded(void)
{
	mock_persist_stats st;
	static const char *const snap[] = {V1_NODE("old", 5), "E 7 1 0"};
	static const char *const log[] = {V1_NODE("logged", 8)};
	rm_state(path);
	write_framed(path, MOCK_STATE_SNAP_MAGIC, snap, 2);
	write_framed(with(path, ".log"), MOCK_STATE_LOG_MAGIC, log, 1);
	mock_store *s = store_new();
	mock_persist *p = open_ok(s, path);
	mock_persist_stats_get(p, &st);
	CU_ASSERT_TRUE(st.upgraded);
	CU_ASSERT_TRUE(st.restored);
	CU_ASSERT_FALSE(st.clean);
	CU_ASSERT_EQUAL(mock_store_count(s, res(MOCK_KIND_NODE)), 2);
	CU_ASSERT_EQUAL(mock_store_rv(s), 8 + MOCK_PERSIST_RV_SKIP);
	CU_ASSERT_TRUE(file_size(with(path, ".gen")) > 0);
	mock_persist_close(p);
	mock_store_free(s);
	s = store_new();
	p = open_ok(s, path);
	mock_persist_stats_get(p, &st);
	CU_ASSERT_FALSE(st.upgraded);
	CU_ASSERT_TRUE(st.clean);
	mock_persist_close(p);
	mock_store_free(s);

	/* A version-1 snapshot without its log is refused like any other. */
	rm_state(path);
	write_framed(path, MOCK_STATE_SNAP_MAGIC, snap, 2);
	assert_refused(path, with(path, ".log"), "missing");
}

/* A compaction that fails half-way (the log's temp file on a full disk:
 * linked to /dev/full; the marker's, which is never written through a
 * link, refused), twice: the files must still be a state the next start
 * takes, with every change. */
static void test_persist__failed_compactions_leave_a_state_that_starts(void)
{
	static const char *const tmps[] = {".log.tmp", ".gen.tmp"};
	for (size_t i = 0; i < 2; i++) {
		nl_err err = {0};
		rm_state(path);
		mock_store *s = store_new();
		mock_persist *p = open_ok(s, path);
		seed(s);
		for (int k = 0; k < 2; k++) {
			/* A failure removes the log's temp file (the marker's
			 * link stays): link it again. */
			unlink(with(path, tmps[i]));
			CU_ASSERT_EQUAL_FATAL(symlink("/dev/full", with(path, tmps[i])), 0);
			CU_ASSERT_NOT_EQUAL(mock_persist_compact(p, &err), 0);
			CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, tmps[i]));
		}
		const char *copy = crash_copy();
		mock_store *t = store_new();
		mock_persist *q = open_ok(t, copy);
		assert_same_objects(s, t);
		mock_persist_close(q);
		mock_store_free(t);
		unlink(with(path, tmps[i]));
		mock_persist_close(p);
		mock_store_free(s);
	}
}

static CU_TestInfo tests[] = {
    {"clean_restart_keeps_objects_and_counter",
     test_persist__clean_restart_keeps_objects_and_counter},
    {"unclean_stop_keeps_logged_changes_and_skips_ahead",
     test_persist__unclean_stop_keeps_logged_changes_and_skips_ahead},
    {"second_process_on_the_same_file_is_refused",
     test_persist__second_process_on_the_same_file_is_refused},
    {"bad_checksum_names_the_offset", test_persist__bad_checksum_names_the_offset},
    {"torn_last_record_of_a_killed_server_is_dropped",
     test_persist__torn_last_record_of_a_killed_server_is_dropped},
    {"truncated_log_after_a_clean_stop_names_the_offset",
     test_persist__truncated_log_after_a_clean_stop_names_the_offset},
    {"corrupt_snapshot_is_refused", test_persist__corrupt_snapshot_is_refused},
    {"sync_modes", test_persist__sync_modes},
    {"compaction_restarts_the_log", test_persist__compaction_restarts_the_log},
    {"background_compaction_when_the_log_outgrows_it",
     test_persist__background_compaction_when_the_log_outgrows_it},
    {"refused_change_leaves_the_store_unchanged",
     test_persist__refused_change_leaves_the_store_unchanged},
    {"format_rejects_bad_records", test_persist__format_rejects_bad_records},
    {"fresh_directory_is_a_first_start", test_persist__fresh_directory_is_a_first_start},
    {"missing_or_empty_snapshot_is_refused", test_persist__missing_or_empty_snapshot_is_refused},
    {"missing_or_empty_log_is_refused", test_persist__missing_or_empty_log_is_refused},
    {"replaced_files_are_refused", test_persist__replaced_files_are_refused},
    {"lost_log_never_moves_the_counter_back", test_persist__lost_log_never_moves_the_counter_back},
    {"version1_state_is_upgraded", test_persist__version1_state_is_upgraded},
    {"failed_compactions_leave_a_state_that_starts",
     test_persist__failed_compactions_leave_a_state_that_starts},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"persist", suite_init, suite_clean, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
