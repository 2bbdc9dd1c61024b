/* nl_fs (nodelet/fs.h): the crash-safe file replacement both halves use.
 * Each step's failure is injected through nl_fs_ops; after any of them the
 * target keeps its old content and no temporary file is left. */
#include "../cu_main.h"

#include <nodelet/fs.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];
static char target[128];

static int setup(void)
{
	strcpy(dir, "/tmp/nodelet-fs-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(target, sizeof(target), "%s/file", dir);
	return 0;
}

static int teardown(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[sizeof(dir) + 256 + 2];
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	return rmdir(dir);
}

/* How many entries dir holds (temporary files included). */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static mode_t mode_of(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? st.st_mode & 0777 : (mode_t)-1;
}

static void test_fs__replace_writes_with_the_exact_mode(void)
{
	nl_err err = {0};
	mode_t old = umask(077);
	CU_ASSERT_EQUAL(nl_fs_replace_file(NULL, target, "one", 3, 0644, &err), 0);
	CU_ASSERT_EQUAL(mode_of(target), 0644); /* not masked to 0600 */
	umask(022);
	CU_ASSERT_EQUAL(nl_fs_replace_file(NULL, target, "two", 3, 0600, &err), 0);
	umask(old);
	CU_ASSERT_EQUAL(mode_of(target), 0600);
	CU_ASSERT_STRING_EQUAL(slurp(target), "two");
	CU_ASSERT_EQUAL(entries(), 1);
	CU_ASSERT_EQUAL(nl_fs_replace_file(NULL, target, "", 0, 0600, &err), 0);
	CU_ASSERT_STRING_EQUAL(slurp(target), "");
}

static void test_fs__replace_in_a_missing_directory_fails(void)
{
	nl_err err = {0};
	CU_ASSERT_EQUAL(nl_fs_replace_file(NULL, "/nonexistent/dir/file", "x", 1, 0600, &err),
	                NL_EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "cannot create temporary file /nonexistent/dir/"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "No such file or directory"));
	CU_ASSERT_EQUAL(nl_fs_replace_file(NULL, NULL, "x", 1, 0600, &err), NL_EINVAL);
}

/* Fails the Nth call that goes through the table (1-based). */
typedef struct {
	int calls, fail_at;
	size_t chunk; /* when set, each write writes at most this many bytes */
	int eintr;    /* writes that fail with EINTR first */
} injector;

static int inject(injector *in)
{
	return ++in->calls == in->fail_at;
}

static int h_open(const char *path, int flags, mode_t mode, void *p)
{
	if (inject(p))
		return errno = EACCES, -1;
	return open(path, flags | O_CLOEXEC, mode);
}

static ssize_t h_write(int fd, const void *buf, size_t len, void *p)
{
	injector *in = p;
	if (inject(in))
		return errno = ENOSPC, -1;
	if (in->eintr > 0) {
		in->eintr--;
		return errno = EINTR, -1;
	}
	return write(fd, buf, in->chunk && len > in->chunk ? in->chunk : len);
}

static int h_fsync(int fd, void *p)
{
	return inject(p) ? (errno = EIO, -1) : fsync(fd);
}

static int h_close(int fd, void *p)
{
	int failed = inject(p);
	close(fd);
	return failed ? (errno = EIO, -1) : 0;
}

static int h_rename(const char *from, const char *to, void *p)
{
	return inject(p) ? (errno = EXDEV, -1) : rename(from, to);
}

static nl_fs_ops ops_for(injector *in)
{
	nl_fs_ops o = {.open = h_open,
	               .write = h_write,
	               .fsync = h_fsync,
	               .close = h_close,
	               .rename = h_rename,
	               .payload = in};
	return o;
}

/* open temp, write, fsync, close, rename, open dir, fsync dir, close dir. */
static void test_fs__a_failed_step_keeps_the_old_content(void)
{
	static const char *const want[] = {
	    "cannot create temporary file",
	    "cannot write",
	    "cannot fsync",
	    "cannot close",
	    "cannot rename",
	    "cannot open directory",
	    "cannot fsync directory",
	    "cannot close directory",
	};
	nl_err err = {0};
	CU_ASSERT_EQUAL_FATAL(nl_fs_replace_file(NULL, target, "old", 3, 0600, &err), 0);
	for (int step = 1; step <= 8; step++) {
		injector in = {.fail_at = step};
		nl_fs_ops ops = ops_for(&in);
		memset(&err, 0, sizeof(err));
		CU_ASSERT_EQUAL(nl_fs_replace_file(&ops, target, "new", 3, 0600, &err), NL_EIO);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want[step - 1]));
		/* Up to the rename the old content stays; after it only the
		 * directory's fsync failed and the new content is in place. */
		CU_ASSERT_STRING_EQUAL(slurp(target), step <= 5 ? "old" : "new");
		CU_ASSERT_EQUAL(entries(), 1); /* no temporary file left */
		CU_ASSERT_EQUAL_FATAL(nl_fs_replace_file(NULL, target, "old", 3, 0600, &err), 0);
	}
	injector none = {0};
	nl_fs_ops ops = ops_for(&none);
	CU_ASSERT_EQUAL(nl_fs_replace_file(&ops, target, "new", 3, 0600, &err), 0);
	CU_ASSERT_EQUAL(none.calls, 8);
}

static void test_fs__write_all_retries_short_writes_and_eintr(void)
{
	injector in = {.chunk = 3, .eintr = 2};
	nl_fs_ops ops = ops_for(&in);
	int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(nl_fs_write_all(&ops, fd, "0123456789", 10), 0);
	close(fd);
	CU_ASSERT_STRING_EQUAL(slurp(target), "0123456789");
	CU_ASSERT_EQUAL(in.calls, 2 + 4); /* two EINTR, then 3+3+3+1 */

	injector fail = {.fail_at = 2, .chunk = 4};
	ops = ops_for(&fail);
	fd = open(target, O_WRONLY | O_TRUNC);
	CU_ASSERT_EQUAL(nl_fs_write_all(&ops, fd, "0123456789", 10), -1);
	CU_ASSERT_EQUAL(errno, ENOSPC);
	close(fd);
	CU_ASSERT_EQUAL(nl_fs_sync_dir_of(NULL, target), 0);
	CU_ASSERT_EQUAL(nl_fs_sync_dir_of(NULL, "/nonexistent/dir/file"), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
}

/* Through a temporary name the caller chose (the mock's state marker):
 * a leftover by that name is truncated, the mode is exact, a symbolic link
 * there is refused rather than followed, and a failed step leaves neither
 * the temporary file nor new content. */
static void test_fs__replace_via_a_named_temporary_file(void)
{
	char tmp[160], other[160];
	nl_err err = {0};
	snprintf(tmp, sizeof(tmp), "%s/file.tmp", dir);
	snprintf(other, sizeof(other), "%s/other", dir);
	FILE *f = fopen(tmp, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("a leftover longer than the new content", f);
	fclose(f);
	mode_t old = umask(077);
	CU_ASSERT_EQUAL(nl_fs_replace_file_via(NULL, target, tmp, "one", 3, 0644, &err), 0);
	umask(old);
	CU_ASSERT_STRING_EQUAL(slurp(target), "one");
	CU_ASSERT_EQUAL(mode_of(target), 0644);
	CU_ASSERT_EQUAL(entries(), 1);

	CU_ASSERT_EQUAL_FATAL(symlink(other, tmp), 0);
	CU_ASSERT_EQUAL(nl_fs_replace_file_via(NULL, target, tmp, "two", 3, 0600, &err), NL_EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "cannot create temporary file"));
	CU_ASSERT_EQUAL(access(other, F_OK), -1); /* not created through the link */
	unlink(tmp);

	for (int step = 2; step <= 5; step++) {
		injector in = {.fail_at = step};
		nl_fs_ops ops = ops_for(&in);
		CU_ASSERT_EQUAL(nl_fs_replace_file_via(&ops, target, tmp, "new", 3, 0600, &err),
		                NL_EIO);
		CU_ASSERT_STRING_EQUAL(slurp(target), "one");
		CU_ASSERT_EQUAL(entries(), 1);
	}
	CU_ASSERT_EQUAL(nl_fs_replace_file_via(NULL, target, NULL, "x", 1, 0600, &err), NL_EINVAL);
}

static CU_TestInfo tests[] = {
    {"replace_writes_with_the_exact_mode", test_fs__replace_writes_with_the_exact_mode},
    {"replace_in_a_missing_directory_fails", test_fs__replace_in_a_missing_directory_fails},
    {"a_failed_step_keeps_the_old_content", test_fs__a_failed_step_keeps_the_old_content},
    {"write_all_retries_short_writes_and_eintr", test_fs__write_all_retries_short_writes_and_eintr},
    {"replace_via_a_named_temporary_file", test_fs__replace_via_a_named_temporary_file},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"fs", setup, teardown, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
