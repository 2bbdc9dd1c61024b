/* Crash-safe file replacement: a temporary file in the same directory,
 * fsync, rename over the target, fsync of the directory. A reader sees the
 * old content or the new, never a torn file. */
#ifndef MOCK_ATOMIC_FILE_H
#define MOCK_ATOMIC_FILE_H

#include <nodelet/errors.h>
#include <stddef.h>
#include <sys/types.h>

/* Replace path with len bytes of data, created with mode (e.g. 0600: the
 * temporary file has it from the start, so secrets are never readable by
 * others). NL_EIO with the path and errno text in err. */
int mock_atomic_write(const char *path, const void *data, size_t len, mode_t mode, nl_err *err);

/* The building blocks, for writers that stream (persist.c): write all n
 * bytes (retrying short writes and EINTR), 0 or -1 with errno; fsync the
 * directory holding path, so a rename into it survives a crash, 0 or -1
 * with errno. */
int mock_write_all(int fd, const void *p, size_t n);
int mock_sync_dir_of(const char *path);

#endif
