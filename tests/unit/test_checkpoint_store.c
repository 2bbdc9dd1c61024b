/* The checkpoint store: every upstream fsstore_test.go case (initialize,
 * exists, save with each invalid key, load, assigned-modified, assigned /
 * last-known-good, set nil and missing uid/resourceVersion, the six Reset
 * combinations), names from the server that try to leave the store, the
 * trial clock, and a crash-consistency matrix: each save is repeated with
 * its Nth system call failing — as a plain error (cleanup runs) and as a
 * crash (nothing after it runs) — and a fresh store must then read either
 * the old or the new state, never a mix. Each test works in its own mkdtemp
 * directory, removed at the end. */
#include "../cu_main.h"

#include <nodelet/checkpoint_store.h>
#include <nodelet/doc.h>
#include <nodelet/log.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#define T0 (INT64_C(1767225600) * NL_USEC_PER_SEC) /* 2026-01-01T00:00:00Z */

/* --- fixtures ------------------------------------------------------------------- */

typedef struct {
	char root[64]; /* mkdtemp directory */
	char dir[128]; /* root/store */
	nl_clock *clock;
	nl_checkpoint_store *store;
} env;

static void env_open_store(env *e, const nl_fs_ops *ops)
{
	nl_checkpoint_store_free(e->store);
	e->store = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_checkpoint_store_new(&e->store, e->dir, e->clock, ops), 0);
}

/* A temporary root with an initialized store in root/store. */
static void env_init(env *e)
{
	nl_err err = {0};
	memset(e, 0, sizeof(*e));
	snprintf(e->root, sizeof(e->root), "/tmp/nl-ckpt-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(e->root));
	snprintf(e->dir, sizeof(e->dir), "%s/store", e->root);
	CU_ASSERT_EQUAL_FATAL(nl_clock_new_fake(&e->clock, T0), 0);
	env_open_store(e, NULL);
	CU_ASSERT_EQUAL_FATAL(nl_checkpoint_store_initialize(e->store, &err), 0);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path);
	return unlink(path);
}

static void rmtree(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void env_done(env *e)
{
	nl_checkpoint_store_free(e->store);
	nl_clock_free(e->clock);
	rmtree(e->root);
}

static char *path_in(const env *e, const char *rel)
{
	char *p = NULL;
	CU_ASSERT_FATAL(asprintf(&p, "%s/%s", e->dir, rel) > 0);
	return p;
}

/* Content of dir/rel, NULL when unreadable (caller frees). */
static char *read_rel(const env *e, const char *rel)
{
	char *p = path_in(e, rel), *data = NULL;
	size_t len;
	if (nl_file_read(&data, &len, p, 1 << 20, NULL) != 0)
		data = NULL;
	free(p);
	return data;
}

static int exists_rel(const env *e, const char *rel)
{
	struct stat st;
	char *p = path_in(e, rel);
	int ok = stat(p, &st) == 0;
	free(p);
	return ok;
}

static nl_config_source *src(const char *name, const char *uid, const char *rv)
{
	nl_config_source *s = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_config_source_new(&s, "namespace", name, uid, rv, "kubelet"), 0);
	return s;
}

/* The listing of every path below root with its size: what "nothing was
 * written" is compared on. Caller frees. */
static char *listing;
static size_t listing_len;

static int list_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)flag;
	(void)ftw;
	char line[4200];
	int n = snprintf(line, sizeof(line), "%s %lld\n", path,
	                 S_ISDIR(st->st_mode) ? 0LL : (long long)st->st_size);
	char *grown = realloc(listing, listing_len + (size_t)n + 1);
	if (!grown)
		return 1;
	listing = grown;
	memcpy(listing + listing_len, line, (size_t)n + 1);
	listing_len += (size_t)n;
	return 0;
}

static char *tree(const char *root)
{
	listing = NULL;
	listing_len = 0;
	nftw(root, list_entry, 16, FTW_PHYS);
	return listing ? listing : strdup("");
}

static int count_tmp(const char *root)
{
	char *t = tree(root);
	int n = 0;
	for (const char *p = t; (p = strstr(p, "/tmp_")); p++)
		n++;
	free(t);
	return n;
}

static void expect_err(int rc, int want_rc, const nl_err *err, const char *want)
{
	CU_ASSERT_EQUAL(rc, want_rc);
	if (!strstr(err->msg, want))
		fprintf(stderr, "\n  expected \"%s\" in: %s\n", want, err->msg);
	CU_ASSERT_PTR_NOT_NULL(strstr(err->msg, want));
}

/* --- TestFsStoreInitialize ----------------------------------------------------------- */

static void test_checkpoint_store__initialize_creates_the_layout(void)
{
	env e;
	env_init(&e);
	CU_ASSERT_TRUE(exists_rel(&e, "meta"));
	CU_ASSERT_TRUE(exists_rel(&e, "checkpoints"));
	char *a = read_rel(&e, "meta/assigned"), *l = read_rel(&e, "meta/last-known-good");
	CU_ASSERT_PTR_NOT_NULL(a);
	CU_ASSERT_PTR_NOT_NULL(l);
	CU_ASSERT_STRING_EQUAL(a ? a : "x", "");
	CU_ASSERT_STRING_EQUAL(l ? l : "x", "");
	free(a);
	free(l);
	env_done(&e);
}

static void test_checkpoint_store__initialize_keeps_existing_content(void)
{
	env e;
	nl_err err = {0};
	env_init(&e);
	nl_config_source *s = src("name", "uid", "1"), *got = NULL;
	CU_ASSERT_EQUAL(nl_checkpoint_store_set_assigned(e.store, s, &err), 0);
	CU_ASSERT_EQUAL(nl_checkpoint_store_initialize(e.store, &err), 0);
	CU_ASSERT_EQUAL(nl_checkpoint_store_assigned(&got, e.store, &err), 0);
	CU_ASSERT_TRUE(nl_config_source_equal(got, s));
	nl_config_source_free(got);
	nl_config_source_free(s);
	env_done(&e);
}

static void test_checkpoint_store__initialize_refuses_a_file_in_place_of_a_dir(void)
{
	env e;
	nl_err err = {0};
	env_init(&e);
	char *p = path_in(&e, "checkpoints");
	rmtree(p);
	FILE *f = fopen(p, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fclose(f);
	expect_err(nl_checkpoint_store_initialize(e.store, &err), NL_EIO, &err, "expected dir at");
	free(p);
	env_done(&e);
}

/* --- TestFsStoreExists ------------------------------------------------------------- */

static void test_checkpoint_store__exists(void)
{
	env e;
	nl_err err = {0};
	int ok = -1;
	env_init(&e);
	CU_ASSERT_EQUAL(nl_checkpoint_store_save(e.store, "uid", "1", NULL, 0, &err), 0);
	nl_config_source *yes = src("name", "uid", "1"), *no = src("name", "bogus-uid", "bogus-rv");
	nl_config_source *nouid = src("name", "", "bogus-rv"), *norv = src("name", "bogus-uid", "");
	CU_ASSERT_EQUAL(nl_checkpoint_store_exists(&ok, e.store, yes, &err), 0);
	CU_ASSERT_EQUAL(ok, 1);
	CU_ASSERT_EQUAL(nl_checkpoint_store_exists(&ok, e.store, no, &err), 0);
	CU_ASSERT_EQUAL(ok, 0);
	expect_err(nl_checkpoint_store_exists(&ok, e.store, nouid, &err), NL_EINVAL, &err,
	           "empty UID is ambiguous");
	CU_ASSERT_STRING_EQUAL(err.msg,
	                       "failed to determine whether checkpoint exists for source "
	                       "/api/v1/namespaces/namespace/configmaps/name, UID: , "
	                       "ResourceVersion: bogus-rv exists, error: empty UID is ambiguous");
	expect_err(nl_checkpoint_store_exists(&ok, e.store, norv, &err), NL_EINVAL, &err,
	           "empty ResourceVersion is ambiguous");
	nl_config_source_free(yes);
	nl_config_source_free(no);
	nl_config_source_free(nouid);
	nl_config_source_free(norv);
	env_done(&e);
}

/* --- TestFsStoreSave ----------------------------------------------------------------- */

static void test_checkpoint_store__save_valid_payload(void)
{
	env e;
	nl_err err = {0};
	env_init(&e);
	nl_checkpoint_file files[] = {{"foo", "foocontent", 10}, {"bar", "barcontent", 10}};
	CU_ASSERT_EQUAL(nl_checkpoint_store_save(e.store, "uid", "1", files, 2, &err), 0);
	char *foo = read_rel(&e, "checkpoints/uid/1/foo"),
	     *bar = read_rel(&e, "checkpoints/uid/1/bar");
	CU_ASSERT_STRING_EQUAL(foo ? foo : "", "foocontent");
	CU_ASSERT_STRING_EQUAL(bar ? bar : "", "barcontent");
	free(foo);
	free(bar);
	/* exactly those two regular files, and nothing temporary left */
	char *cp = path_in(&e, "checkpoints/uid/1"), *t = tree(cp);
	CU_ASSERT_EQUAL(strlen(t) > 0, 1);
	size_t lines = 0;
	for (const char *p = t; *p; p++)
		lines += *p == '\n';
	CU_ASSERT_EQUAL(lines, 3); /* the directory and two files */
	CU_ASSERT_EQUAL(count_tmp(e.root), 0);
	free(t);
	free(cp);
	env_done(&e);
}

static void test_checkpoint_store__save_refuses_each_invalid_key(void)
{
	static const struct {
		const char *key, *msg;
	} cases[] = {
	    {"", "must not be empty"},
	    {"foo/bar", "only base names are allowed"},
	    {"/bar", "only base names are allowed"},
	    /* Quoted as Go's %q: \n, and a Latin-1 letter kept as it is. */
	    {"a\n/\xc3\xa9", "invalid file key \"a\\n/\xc3\xa9\", only base names are allowed"},
	    {".", "may not be '.' or '..'"},
	    {"..", "may not be '.' or '..'"},
	    {NULL, "must be less than 255 characters"}, /* 256 a's */
	};
	char too_long[257];
	memset(too_long, 'a', 256);
	too_long[256] = '\0';
	env e;
	env_init(&e);
	char *before = tree(e.root);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		nl_err err = {0};
		const char *key = cases[i].key ? cases[i].key : too_long;
		nl_checkpoint_file files[] = {{"ok", "x", 1}, {key, "foocontent", 10}};
		expect_err(nl_checkpoint_store_save(e.store, "uid", "1", files, 2, &err), NL_EINVAL,
		           &err, cases[i].msg);
		char *after = tree(e.root);
		CU_ASSERT_STRING_EQUAL(after, before); /* nothing written */
		free(after);
	}
	/* 255 is allowed */
	too_long[255] = '\0';
	nl_checkpoint_file ok[] = {{too_long, "x", 1}};
	CU_ASSERT_EQUAL(nl_checkpoint_store_save(e.store, "uid", "2", ok, 1, NULL), 0);
	free(before);
	env_done(&e);
}

static void test_checkpoint_store__save_refuses_duplicate_keys(void)
{
	env e;
	nl_err err = {0};
	env_init(&e);
	nl_checkpoint_file files[] = {{"a", "1", 1}, {"a", "2", 1}};
	expect_err(nl_checkpoint_store_save(e.store, "uid", "1", files, 2, &err), NL_EINVAL, &err,
	           "duplicate file key");
	CU_ASSERT_FALSE(exists_rel(&e, "checkpoints/uid"));
	env_done(&e);
}

/* A server answering with a uid or resourceVersion that is a path must not
 * make the store write anywhere, inside or outside it. */
static void test_checkpoint_store__malicious_uid_or_rv_writes_nothing(void)
{
	char too_long[300];
	memset(too_long, 'u', 256);
	too_long[256] = '\0';
	const char *const bad[] = {"../../etc", "..", ".", "/", "a/b", "/etc/passwd", "", too_long};
	env e;
	env_init(&e);
	char *before = tree(e.root);
	nl_checkpoint_file files[] = {{"kubelet", "pwned", 5}};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		nl_err err = {0};
		CU_ASSERT_EQUAL(nl_checkpoint_store_save(e.store, bad[i], "1", files, 1, &err),
		                NL_EINVAL);
		CU_ASSERT_EQUAL(nl_checkpoint_store_save(e.store, "uid", bad[i], files, 1, &err),
		                NL_EINVAL);
		nl_config_source *s = src("name", bad[i], "1");
		int ok = 0;
		char *data = NULL;
		CU_ASSERT_EQUAL(nl_checkpoint_store_exists(&ok, e.store, s, &err), NL_EINVAL);
		CU_ASSERT_EQUAL(nl_checkpoint_store_load(&data, NULL, e.store, s, &err), NL_EINVAL);
		CU_ASSERT_EQUAL(nl_checkpoint_store_set_assigned(e.store, s, &err), NL_EINVAL);
		CU_ASSERT_EQUAL(nl_checkpoint_store_set_last_known_good(e.store, s, &err),
		                NL_EINVAL);
		nl_config_source_free(s);
		char *after = tree(e.root);
		CU_ASSERT_STRING_EQUAL(after, before);
		free(after);
	}
	char *outside = NULL;
	CU_ASSERT_FATAL(asprintf(&outside, "%s/etc", e.root) > 0);
	CU_ASSERT_NOT_EQUAL(access(outside, F_OK), 0);
	free(outside);
	free(before);
	env_done(&e);
}

static void test_checkpoint_store__malicious_config_key_is_refused(void)
{
	env e;
	nl_err err = {0};
	char *data = NULL;
	env_init(&e);
	nl_checkpoint_file files[] = {{"kubelet", "x", 1}};
	CU_ASSERT_EQUAL(nl_checkpoint_store_save(e.store, "uid", "1", files, 1, &err), 0);
	nl_config_source *s = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_config_source_new(&s, "ns", "n", "uid", "1", "../../../x"), 0);
	expect_err(nl_checkpoint_store_load(&data, NULL, e.store, s, &err), NL_EINVAL, &err,
	           "only base names are allowed");
	expect_err(nl_checkpoint_store_set_assigned(e.store, s, &err), NL_EINVAL, &err,
	           "failed to write RemoteConfigSource, invalid file key");
	CU_ASSERT_PTR_NULL(data);
	nl_config_source_free(s);
	env_done(&e);
}

static void test_checkpoint_store__save_keeps_an_existing_checkpoint(void)
{
	env e;
	nl_err err = {0};
	env_init(&e);
	nl_checkpoint_file one[] = {{"kubelet", "first", 5}};
	nl_checkpoint_file two[] = {{"kubelet", "second", 6}};
	CU_ASSERT_EQUAL(nl_checkpoint_store_save(e.store, "uid", "1", one, 1, &err), 0);
	CU_ASSERT_EQUAL(nl_checkpoint_store_save(e.store, "uid", "1", two, 1, &err), 0);
	char *got = read_rel(&e, "checkpoints/uid/1/kubelet");
	CU_ASSERT_STRING_EQUAL(got ? got : "", "first");
	CU_ASSERT_EQUAL(count_tmp(e.root), 0);
	free(got);
	env_done(&e);
}

/* --- TestFsStoreLoad ---------------------------------------------------------------- */

static void test_checkpoint_store__load(void)
{
	env e;
	nl_err err = {0};
	char *data = NULL;
	size_t len = 0;
	env_init(&e);
	const char *config = "apiVersion: nodelet.io/v1alpha1\nkind: NodeletConfiguration\n";
	nl_checkpoint_file files[] = {{"kubelet", config, strlen(config)}};
	CU_ASSERT_EQUAL(nl_checkpoint_store_save(e.store, "uid", "1", files, 1, &err), 0);
	nl_config_source *yes = src("name", "uid", "1"), *no = src("name", "bogus-uid", "bogus-rv");
	nl_config_source *nouid = src("name", "", "bogus-rv"), *norv = src("name", "bogus-uid", "");
	CU_ASSERT_EQUAL(nl_checkpoint_store_load(&data, &len, e.store, yes, &err), 0);
	CU_ASSERT_EQUAL(len, strlen(config));
	CU_ASSERT_STRING_EQUAL(data ? data : "", config);
	free(data);
	data = NULL;
	expect_err(nl_checkpoint_store_load(&data, &len, e.store, no, &err), NL_ENOTFOUND, &err,
	           "no checkpoint for source /api/v1/namespaces/namespace/configmaps/name, UID: "
	           "bogus-uid, ResourceVersion: bogus-rv");
	expect_err(nl_checkpoint_store_load(&data, &len, e.store, nouid, &err), NL_EINVAL, &err,
	           "empty UID is ambiguous");
	expect_err(nl_checkpoint_store_load(&data, &len, e.store, norv, &err), NL_EINVAL, &err,
	           "empty ResourceVersion is ambiguous");
	CU_ASSERT_PTR_NULL(data);
	nl_config_source_free(yes);
	nl_config_source_free(no);
	nl_config_source_free(nouid);
	nl_config_source_free(norv);
	env_done(&e);
}

/* Missing checkpoint, unreadable file and empty file are three errors. */
static void test_checkpoint_store__load_errors_are_distinct(void)
{
	env e;
	nl_err err = {0};
	char *data = NULL;
	env_init(&e);
	nl_checkpoint_file files[] = {{"other", "x", 1}, {"empty", "", 0}};
	CU_ASSERT_EQUAL(nl_checkpoint_store_save(e.store, "uid", "1", files, 2, &err), 0);
	nl_config_source *s = NULL;
	CU_ASSERT_EQUAL_FATAL(nl_config_source_new(&s, "ns", "n", "uid", "1", "kubelet"), 0);
	expect_err(nl_checkpoint_store_load(&data, NULL, e.store, s, &err), NL_EIO, &err,
	           "failed to read nodelet config file");
	free(s->kubelet_config_key);
	s->kubelet_config_key = strdup("empty");
	expect_err(nl_checkpoint_store_load(&data, NULL, e.store, s, &err), NL_EPARSE, &err,
	           "was empty");
	/* unreadable even for root: the key names a directory */
	char *p = path_in(&e, "checkpoints/uid/1/dir");
	CU_ASSERT_EQUAL(mkdir(p, 0755), 0);
	free(p);
	free(s->kubelet_config_key);
	s->kubelet_config_key = strdup("dir");
	expect_err(nl_checkpoint_store_load(&data, NULL, e.store, s, &err), NL_EIO, &err,
	           "failed to read nodelet config file");
	CU_ASSERT_PTR_NULL(data);
	nl_config_source_free(s);
	env_done(&e);
}

/* --- TestFsStoreAssignedModified and the trial clock ----------------------------------- */

static void test_checkpoint_store__assigned_modified_falls_back_to_mtime(void)
{
	env e;
	nl_err err = {0};
	int64_t got = 0;
	env_init(&e);
	/* an assigned file written by someone else: no assigned-time */
	char *data = NULL, *p = path_in(&e, "meta/assigned");
	nl_config_source *s = src("name", "uid", "1");
	CU_ASSERT_EQUAL_FATAL(nl_config_source_encode(&data, NULL, s), 0);
	FILE *f = fopen(p, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(data, f);
	fclose(f);
	struct timeval tv[2] = {{1700000000, 0}, {1700000000, 0}};
	CU_ASSERT_EQUAL(utimes(p, tv), 0);
	CU_ASSERT_EQUAL(nl_checkpoint_store_assigned_modified(&got, e.store, &err), 0);
	CU_ASSERT_EQUAL(got, INT64_C(1700000000) * NL_USEC_PER_SEC);
	free(data);
	free(p);
	nl_config_source_free(s);
	env_done(&e);
}

static void test_checkpoint_store__trial_start_comes_from_the_clock(void)
{
	env e;
	nl_err err = {0};
	int64_t got = 0;
	env_init(&e);
	nl_config_source *a = src("a", "uid-a", "1"), *b = src("b", "uid-b", "1");
	nl_clock_advance(e.clock, 60 * NL_USEC_PER_SEC);
	CU_ASSERT_EQUAL(nl_checkpoint_store_set_assigned(e.store, a, &err), 0);
	CU_ASSERT_EQUAL(nl_checkpoint_store_assigned_modified(&got, e.store, &err), 0);
	CU_ASSERT_EQUAL(got, T0 + 60 * NL_USEC_PER_SEC);
	/* the same source again: nothing written, the trial goes on */
	nl_clock_advance(e.clock, 60 * NL_USEC_PER_SEC);
	char *before = tree(e.root);
	CU_ASSERT_EQUAL(nl_checkpoint_store_set_assigned(e.store, a, &err), 0);
	char *after = tree(e.root);
	CU_ASSERT_STRING_EQUAL(after, before);
	CU_ASSERT_EQUAL(nl_checkpoint_store_assigned_modified(&got, e.store, &err), 0);
	CU_ASSERT_EQUAL(got, T0 + 60 * NL_USEC_PER_SEC);
	/* another source restarts it */
	CU_ASSERT_EQUAL(nl_checkpoint_store_set_assigned(e.store, b, &err), 0);
	CU_ASSERT_EQUAL(nl_checkpoint_store_assigned_modified(&got, e.store, &err), 0);
	CU_ASSERT_EQUAL(got, T0 + 120 * NL_USEC_PER_SEC);
	/* a store opened again (agent restart) reads the same start */
	env_open_store(&e, NULL);
	CU_ASSERT_EQUAL(nl_checkpoint_store_assigned_modified(&got, e.store, &err), 0);
	CU_ASSERT_EQUAL(got, T0 + 120 * NL_USEC_PER_SEC);
	free(before);
	free(after);
	nl_config_source_free(a);
	nl_config_source_free(b);
	env_done(&e);
}

/* --- TestFsStoreAssigned / LastKnownGood / SetAssigned / SetLastKnownGood ------------- */

typedef int (*set_fn)(nl_checkpoint_store *, const nl_config_source *, nl_err *);
typedef int (*get_fn)(nl_config_source **, nl_checkpoint_store *, nl_err *);

static void check_get_set(set_fn set, get_fn get, const char *file)
{
	env e;
	nl_err err = {0};
	nl_config_source *got = NULL;
	env_init(&e);
	nl_config_source *s = src("name", "uid", "1");
	/* default source */
	CU_ASSERT_EQUAL(set(e.store, s, &err), 0);
	CU_ASSERT_EQUAL(set(e.store, NULL, &err), 0);
	char *data = read_rel(&e, file);
	CU_ASSERT_STRING_EQUAL(data ? data : "x", ""); /* nil → empty file */
	free(data);
	CU_ASSERT_EQUAL(get(&got, e.store, &err), 0);
	CU_ASSERT_PTR_NULL(got);
	/* non-default source */
	CU_ASSERT_EQUAL(set(e.store, s, &err), 0);
	data = read_rel(&e, file);
	CU_ASSERT_STRING_EQUAL(data ? data : "",
	                       "{\"apiVersion\":\"nodelet.io/v1alpha1\",\"kind\":"
	                       "\"SerializedNodeConfigSource\",\"source\":{\"configMap\":{"
	                       "\"kubeletConfigKey\":\"kubelet\",\"name\":\"name\",\"namespace\":"
	                       "\"namespace\",\"resourceVersion\":\"1\",\"uid\":\"uid\"}}}\n");
	free(data);
	CU_ASSERT_EQUAL(get(&got, e.store, &err), 0);
	CU_ASSERT_TRUE(nl_config_source_equal(got, s));
	nl_config_source_free(got);
	/* missing UID / ResourceVersion */
	nl_config_source *nouid = src("name", "", "1"), *norv = src("name", "uid", "");
	CU_ASSERT_EQUAL(set(e.store, nouid, &err), NL_EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg,
	                       "failed to write RemoteConfigSource, empty UID is ambiguous");
	CU_ASSERT_EQUAL(set(e.store, norv, &err), NL_EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg,
	                       "failed to write RemoteConfigSource, empty ResourceVersion is "
	                       "ambiguous");
	CU_ASSERT_EQUAL(get(&got, e.store, &err), 0);
	CU_ASSERT_TRUE(nl_config_source_equal(got, s)); /* unchanged */
	nl_config_source_free(got);
	nl_config_source_free(nouid);
	nl_config_source_free(norv);
	nl_config_source_free(s);
	env_done(&e);
}

static void test_checkpoint_store__assigned_get_and_set(void)
{
	check_get_set(nl_checkpoint_store_set_assigned, nl_checkpoint_store_assigned,
	              "meta/assigned");
}

static void test_checkpoint_store__last_known_good_get_and_set(void)
{
	check_get_set(nl_checkpoint_store_set_last_known_good, nl_checkpoint_store_last_known_good,
	              "meta/last-known-good");
}

static void test_checkpoint_store__reads_upstream_yaml_meta_files(void)
{
	env e;
	nl_config_source *got = NULL;
	env_init(&e);
	char *p = path_in(&e, "meta/last-known-good");
	FILE *f = fopen(p, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: SerializedNodeConfigSource\n"
	      "source:\n  configMap:\n    kubeletConfigKey: kubelet\n    name: name\n"
	      "    namespace: namespace\n    resourceVersion: \"1\"\n    uid: uid\n",
	      f);
	fclose(f);
	nl_config_source *want = src("name", "uid", "1");
	CU_ASSERT_EQUAL(nl_checkpoint_store_last_known_good(&got, e.store, NULL), 0);
	CU_ASSERT_TRUE(nl_config_source_equal(got, want));
	nl_config_source_free(got);
	nl_config_source_free(want);
	free(p);
	env_done(&e);
}

static void test_checkpoint_store__corrupt_meta_file_is_a_parse_error(void)
{
	env e;
	nl_err err = {0};
	nl_config_source *got = NULL;
	env_init(&e);
	char *p = path_in(&e, "meta/assigned");
	FILE *f = fopen(p, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("{\"apiVersion\":\"nodelet.io/v1alpha1\",\"kind\":\"Pod\"}", f);
	fclose(f);
	expect_err(nl_checkpoint_store_assigned(&got, e.store, &err), NL_EPARSE, &err,
	           "failed to decode");
	CU_ASSERT_PTR_NULL(got);
	free(p);
	env_done(&e);
}

/* --- TestFsStoreReset ---------------------------------------------------------------- */

static void test_checkpoint_store__reset_all_six_combinations(void)
{
	nl_config_source *s = src("name", "uid", "1"), *o = src("other-name", "other-uid", "1");
	const struct {
		const char *desc;
		nl_config_source *assigned, *lkg;
		int updated;
	} cases[] = {
	    {"nil -> nil", NULL, NULL, 0},      {"source -> nil", s, NULL, 1},
	    {"nil -> source", NULL, s, 0},      {"source -> source", s, s, 1},
	    {"source -> otherSource", s, o, 1}, {"otherSource -> source", o, s, 1},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		env e;
		nl_err err = {0};
		nl_config_source *a = NULL, *l = NULL;
		int updated = -1;
		env_init(&e);
		CU_ASSERT_EQUAL(nl_checkpoint_store_set_assigned(e.store, cases[i].assigned, &err),
		                0);
		CU_ASSERT_EQUAL(
		    nl_checkpoint_store_set_last_known_good(e.store, cases[i].lkg, &err), 0);
		CU_ASSERT_EQUAL(nl_checkpoint_store_reset(&updated, e.store, &err), 0);
		char *ad = read_rel(&e, "meta/assigned"),
		     *ld = read_rel(&e, "meta/last-known-good");
		CU_ASSERT_STRING_EQUAL(ad ? ad : "x", "");
		CU_ASSERT_STRING_EQUAL(ld ? ld : "x", "");
		CU_ASSERT_EQUAL(nl_checkpoint_store_assigned(&a, e.store, &err), 0);
		CU_ASSERT_EQUAL(nl_checkpoint_store_last_known_good(&l, e.store, &err), 0);
		CU_ASSERT_PTR_NULL(a);
		CU_ASSERT_PTR_NULL(l);
		if (updated != cases[i].updated)
			fprintf(stderr, "\n  case %s: updated %d\n", cases[i].desc, updated);
		CU_ASSERT_EQUAL(updated, cases[i].updated);
		free(ad);
		free(ld);
		env_done(&e);
	}
	nl_config_source_free(s);
	nl_config_source_free(o);
}

/* --- crash consistency ------------------------------------------------------------- */

/* Fails the Nth system call the store makes. As an error, later calls run
 * (the store cleans up); as a crash, every later call fails too, which
 * leaves the disk as a killed process would. A failing write first writes
 * half its buffer (a torn write). */
typedef struct {
	int calls;
	int fail_at; /* 1-based; 0 = never */
	int crash;
	int failed;
} injector;

static int inject(injector *in)
{
	in->calls++;
	if (in->failed && in->crash)
		return 1;
	if (in->fail_at && in->calls == in->fail_at) {
		in->failed = 1;
		return 1;
	}
	return 0;
}

static int h_open(const char *path, int flags, mode_t mode, void *p)
{
	if (inject(p)) {
		errno = EIO;
		return -1;
	}
	return open(path, flags | O_CLOEXEC, mode);
}

static ssize_t h_write(int fd, const void *buf, size_t len, void *p)
{
	if (inject(p)) {
		if (len > 1 && write(fd, buf, len / 2) < 0)
			return -1;
		errno = EIO;
		return -1;
	}
	return write(fd, buf, len);
}

static int h_fsync(int fd, void *p)
{
	if (inject(p)) {
		errno = EIO;
		return -1;
	}
	return fsync(fd);
}

static int h_close(int fd, void *p)
{
	/* A dead process's descriptors are closed by the kernel anyway. */
	int failing = inject(p);
	int rc = close(fd);
	if (failing) {
		errno = EIO;
		return -1;
	}
	return rc;
}

static int h_rename(const char *from, const char *to, void *p)
{
	if (inject(p)) {
		errno = EIO;
		return -1;
	}
	return rename(from, to);
}

static int h_mkdir(const char *path, mode_t mode, void *p)
{
	if (inject(p)) {
		errno = EIO;
		return -1;
	}
	return mkdir(path, mode);
}

static int h_unlink(const char *path, void *p)
{
	if (inject(p)) {
		errno = EIO;
		return -1;
	}
	return unlink(path);
}

static int h_rmdir(const char *path, void *p)
{
	if (inject(p)) {
		errno = EIO;
		return -1;
	}
	return rmdir(path);
}

static nl_fs_ops hooks(injector *in)
{
	return (nl_fs_ops){h_open,  h_write,  h_fsync, h_close, h_rename,
	                   h_mkdir, h_unlink, h_rmdir, in};
}

/* One save under test: prepare the old state, perform the save, check that
 * what a fresh store reads is the old or the new state (returns 1 for new,
 * 0 for old, -1 for anything else). */
typedef struct {
	const char *name;
	void (*prepare)(env *e);
	int (*save)(nl_checkpoint_store *s, nl_err *err);
	int (*state)(env *e);
} save_case;

#define FILE_OF(name, text)                  \
	{                                    \
		name, text, sizeof(text) - 1 \
	}
static nl_checkpoint_file big_files[] = {
    FILE_OF("kubelet", "apiVersion: nodelet.io/v1alpha1\nkind: NodeletConfiguration\n"),
    FILE_OF("extra", "some other key"),
    FILE_OF("third", "x"),
};

static void prepare_nothing(env *e)
{
	(void)e;
}

static int save_checkpoint(nl_checkpoint_store *s, nl_err *err)
{
	return nl_checkpoint_store_save(s, "uid", "7", big_files, 3, err);
}

static int state_checkpoint(env *e)
{
	nl_config_source *s = NULL;
	int ok = -1, result = -1;
	CU_ASSERT_EQUAL_FATAL(nl_config_source_new(&s, "ns", "n", "uid", "7", "kubelet"), 0);
	if (nl_checkpoint_store_exists(&ok, e->store, s, NULL) == 0 && ok == 0) {
		result = 0;
	} else if (ok == 1) {
		result = 1;
		for (size_t i = 0; i < 3; i++) {
			char rel[64];
			snprintf(rel, sizeof(rel), "checkpoints/uid/7/%s", big_files[i].name);
			char *d = read_rel(e, rel);
			if (!d || strlen(d) != big_files[i].len ||
			    strcmp(d, big_files[i].data) != 0)
				result = -1;
			free(d);
		}
	}
	nl_config_source_free(s);
	return result;
}

static nl_config_source *old_src, *new_src;
#define OLD_TIME (T0 + 5 * NL_USEC_PER_SEC)
#define NEW_TIME (T0 + 9 * NL_USEC_PER_SEC)

static void prepare_assigned(env *e)
{
	nl_clock_advance(e->clock, OLD_TIME - nl_clock_now(e->clock));
	CU_ASSERT_EQUAL_FATAL(nl_checkpoint_store_set_assigned(e->store, old_src, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(nl_checkpoint_store_set_last_known_good(e->store, old_src, NULL), 0);
	nl_clock_advance(e->clock, NEW_TIME - OLD_TIME);
}

static int save_assigned(nl_checkpoint_store *s, nl_err *err)
{
	return nl_checkpoint_store_set_assigned(s, new_src, err);
}

/* The assigned source, and the trial start that goes with it: a new
 * source must never come with the old start (its trial would be over). */
static int state_assigned(env *e)
{
	nl_config_source *a = NULL;
	int64_t t = 0;
	int result = -1;
	if (nl_checkpoint_store_assigned(&a, e->store, NULL) != 0 ||
	    nl_checkpoint_store_assigned_modified(&t, e->store, NULL) != 0)
		return -1;
	if (nl_config_source_equal(a, new_src))
		result = t == NEW_TIME ? 1 : -1;
	else if (nl_config_source_equal(a, old_src))
		result = t != NEW_TIME ? 0 : -1;
	nl_config_source_free(a);
	return result;
}

static int save_lkg(nl_checkpoint_store *s, nl_err *err)
{
	return nl_checkpoint_store_set_last_known_good(s, new_src, err);
}

static int state_lkg(env *e)
{
	nl_config_source *l = NULL;
	int result = -1;
	if (nl_checkpoint_store_last_known_good(&l, e->store, NULL) != 0)
		return -1;
	if (nl_config_source_equal(l, new_src))
		result = 1;
	else if (nl_config_source_equal(l, old_src))
		result = 0;
	nl_config_source_free(l);
	return result;
}

static int save_unassign(nl_checkpoint_store *s, nl_err *err)
{
	return nl_checkpoint_store_set_assigned(s, NULL, err);
}

static int state_unassign(env *e)
{
	nl_config_source *a = NULL;
	int result = -1;
	if (nl_checkpoint_store_assigned(&a, e->store, NULL) != 0)
		return -1;
	if (!a)
		result = 1;
	else if (nl_config_source_equal(a, old_src))
		result = 0;
	nl_config_source_free(a);
	return result;
}

/* Reset writes two files: each is atomic, so the one intermediate state
 * is last-known-good cleared with assigned still set (as upstream). */
static int save_reset(nl_checkpoint_store *s, nl_err *err)
{
	return nl_checkpoint_store_reset(NULL, s, err);
}

static int state_reset(env *e)
{
	nl_config_source *a = NULL, *l = NULL;
	int result = -1;
	if (nl_checkpoint_store_assigned(&a, e->store, NULL) == 0 &&
	    nl_checkpoint_store_last_known_good(&l, e->store, NULL) == 0) {
		if (!a && !l)
			result = 1;
		else if (nl_config_source_equal(a, old_src) &&
		         (!l || nl_config_source_equal(l, old_src)))
			result = 0;
	}
	nl_config_source_free(a);
	nl_config_source_free(l);
	return result;
}

static void prepare_uninitialized(env *e)
{
	rmtree(e->dir);
}

static int save_initialize(nl_checkpoint_store *s, nl_err *err)
{
	return nl_checkpoint_store_initialize(s, err);
}

static int state_initialize(env *e)
{
	/* A half-initialized store is completed by the next initialize. */
	nl_err err = {0};
	nl_config_source *a = NULL;
	if (nl_checkpoint_store_initialize(e->store, &err) != 0 ||
	    nl_checkpoint_store_assigned(&a, e->store, NULL) != 0 || a)
		return -1;
	return 1;
}

static const save_case save_cases[] = {
    {"save checkpoint", prepare_nothing, save_checkpoint, state_checkpoint},
    {"set assigned", prepare_assigned, save_assigned, state_assigned},
    {"set last-known-good", prepare_assigned, save_lkg, state_lkg},
    {"unassign", prepare_assigned, save_unassign, state_unassign},
    {"reset", prepare_assigned, save_reset, state_reset},
    {"initialize", prepare_uninitialized, save_initialize, state_initialize},
};

/* How many system calls the save makes when nothing fails. */
static int count_calls(const save_case *c)
{
	env e;
	injector in = {0};
	nl_fs_ops ops = hooks(&in);
	env_init(&e);
	c->prepare(&e);
	env_open_store(&e, &ops);
	CU_ASSERT_EQUAL(c->save(e.store, NULL), 0);
	env_done(&e);
	return in.calls;
}

/* Temporary files found after simulated crashes: proof that the crash
 * mode really stops the writer half-way. */
static int crash_leftovers;

static void run_failure(const save_case *c, int at, int crash)
{
	env e;
	nl_err err = {0};
	injector in = {.fail_at = at, .crash = crash};
	nl_fs_ops ops = hooks(&in);
	env_init(&e);
	c->prepare(&e);
	env_open_store(&e, &ops);
	int rc = c->save(e.store, &err);
	/* A failure after the last rename (the directory's fsync) reports an
	 * error over the new state; either way the caller retries. */
	CU_ASSERT_NOT_EQUAL(rc, 0);
	env_open_store(&e, NULL);
	int st = c->state(&e);
	if (st < 0)
		fprintf(stderr, "\n  %s: call %d failing (%s) left a mixed state\n", c->name, at,
		        crash ? "crash" : "error");
	CU_ASSERT(st == 0 || st == 1);
	int tmp = count_tmp(e.root);
	crash_leftovers += crash ? tmp : 0;
	if (!crash && tmp != 0) {
		fprintf(stderr, "\n  %s: call %d failing left temporary files\n", c->name, at);
		CU_FAIL("temporary files left behind after an error");
	}
	/* After a crash the next attempt succeeds despite the leftovers. */
	CU_ASSERT_EQUAL(c->save(e.store, &err), 0);
	CU_ASSERT_EQUAL(c->state(&e), 1);
	env_done(&e);
}

static void test_checkpoint_store__crash_at_every_step_leaves_old_or_new(void)
{
	old_src = src("old", "uid-old", "3");
	new_src = src("new", "uid-new", "4");
	crash_leftovers = 0;
	for (size_t i = 0; i < sizeof(save_cases) / sizeof(save_cases[0]); i++) {
		int total = count_calls(&save_cases[i]);
		CU_ASSERT(total >= 4); /* open, write, fsync, close, rename … */
		for (int at = 1; at <= total; at++) {
			run_failure(&save_cases[i], at, 0);
			run_failure(&save_cases[i], at, 1);
		}
	}
	CU_ASSERT(crash_leftovers > 0);
	nl_config_source_free(old_src);
	nl_config_source_free(new_src);
}

/* The steps for one file: temp file, write, fsync, close, rename,
 * directory fsync. */
static void test_checkpoint_store__replace_file_order(void)
{
	env e;
	injector in = {0};
	nl_fs_ops ops = hooks(&in);
	env_init(&e);
	nl_config_source *s = src("name", "uid", "1");
	env_open_store(&e, &ops);
	CU_ASSERT_EQUAL(nl_checkpoint_store_set_last_known_good(e.store, s, NULL), 0);
	/* open tmp, write, fsync, close, rename, open dir, fsync dir, close dir */
	CU_ASSERT_EQUAL(in.calls, 8);
	nl_config_source_free(s);
	env_done(&e);
}

static CU_TestInfo tests[] = {
    {"initialize_creates_the_layout", test_checkpoint_store__initialize_creates_the_layout},
    {"initialize_keeps_existing_content", test_checkpoint_store__initialize_keeps_existing_content},
    {"initialize_refuses_a_file_in_place_of_a_dir",
     test_checkpoint_store__initialize_refuses_a_file_in_place_of_a_dir},
    {"exists", test_checkpoint_store__exists},
    {"save_valid_payload", test_checkpoint_store__save_valid_payload},
    {"save_refuses_each_invalid_key", test_checkpoint_store__save_refuses_each_invalid_key},
    {"save_refuses_duplicate_keys", test_checkpoint_store__save_refuses_duplicate_keys},
    {"malicious_uid_or_rv_writes_nothing",
     test_checkpoint_store__malicious_uid_or_rv_writes_nothing},
    {"malicious_config_key_is_refused", test_checkpoint_store__malicious_config_key_is_refused},
    {"save_keeps_an_existing_checkpoint", test_checkpoint_store__save_keeps_an_existing_checkpoint},
    {"load", test_checkpoint_store__load},
    {"load_errors_are_distinct", test_checkpoint_store__load_errors_are_distinct},
    {"assigned_modified_falls_back_to_mtime",
     test_checkpoint_store__assigned_modified_falls_back_to_mtime},
    {"trial_start_comes_from_the_clock", test_checkpoint_store__trial_start_comes_from_the_clock},
    {"assigned_get_and_set", test_checkpoint_store__assigned_get_and_set},
    {"last_known_good_get_and_set", test_checkpoint_store__last_known_good_get_and_set},
    {"reads_upstream_yaml_meta_files", test_checkpoint_store__reads_upstream_yaml_meta_files},
    {"corrupt_meta_file_is_a_parse_error",
     test_checkpoint_store__corrupt_meta_file_is_a_parse_error},
    {"reset_all_six_combinations", test_checkpoint_store__reset_all_six_combinations},
    {"replace_file_order", test_checkpoint_store__replace_file_order},
    {"crash_at_every_step_leaves_old_or_new",
     test_checkpoint_store__crash_at_every_step_leaves_old_or_new},
    CU_TEST_INFO_NULL,
};

static FILE *quiet;

/* The store logs at info level; keep the test output readable. */
static int suite_init(void)
{
	quiet = fopen("/dev/null", "w");
	nl_log_set_output(quiet);
	return 0;
}

static int suite_cleanup(void)
{
	nl_log_set_output(NULL);
	if (quiet)
		fclose(quiet);
	return 0;
}

CU_SuiteInfo nl_test_suites[] = {
    {"checkpoint_store", suite_init, suite_cleanup, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
