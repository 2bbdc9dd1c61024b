/* The dynamic config checkpoint store, kubelet's fsStore
 * (pkg/kubelet/kubeletconfig/checkpoint/store) on the same layout:
 *
 *   <dir>/meta/assigned          serialized source, or empty = local config
 *   <dir>/meta/last-known-good   same format
 *   <dir>/meta/assigned-time     when the assigned source was set (trial start)
 *   <dir>/checkpoints/<uid>/<resourceVersion>/<one file per ConfigMap key>
 *
 * (<dir> is `<dynamic-config-dir>/store`.) Every write is atomic: a temporary
 * file in the same directory, written, fsynced, renamed over the target, and
 * the directory fsynced; a checkpoint is a temporary directory whose files are
 * each fsynced, renamed into place. A crash at any step leaves either the old
 * or the new state. UIDs, resourceVersions and keys come from the server and
 * become file names: each is checked (non-empty, no '/', not "." or "..",
 * at most 255 bytes) before the filesystem is touched.
 *
 * The trial start is written with the store's clock into meta/assigned-time
 * together with the source it belongs to; when that file is missing or
 * belongs to another source, the mtime of meta/assigned is used (upstream's
 * rule). Setting the source already assigned writes nothing, so a repeated
 * sync does not restart the trial.
 *
 * One store is used from one thread. Errors carry upstream's messages in
 * err ("empty UID is ambiguous", "no checkpoint for source ..."). */
#ifndef NODELET_CHECKPOINT_STORE_H
#define NODELET_CHECKPOINT_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "clock.h"
#include "config_source.h"
#include "errors.h"
#include "fs.h"

/* Longest file name the store writes (upstream's key limit). */
#define NL_CHECKPOINT_NAME_MAX 255
/* Largest config file Load reads. */
#define NL_CHECKPOINT_MAX_FILE (1024u * 1024u)

/* The store's system calls go through an nl_fs_ops table (fs.h), so that
 * tests can fail any one of them (crash-consistency tests). Production code
 * passes NULL to nl_checkpoint_store_new. */

/* One file of a checkpoint: a ConfigMap data key and its value. */
typedef struct {
	const char *name;
	const char *data;
	size_t len;
} nl_checkpoint_file;

typedef struct nl_checkpoint_store nl_checkpoint_store;

/* A store rooted at dir (copied; nothing is touched until _initialize).
 * clock (borrowed, must outlive the store) stamps the trial start; ops NULL
 * uses the real filesystem (copied otherwise). NL_EINVAL without dir or
 * clock; NL_ENOMEM. Free with nl_checkpoint_store_free (accepts NULL). */
int nl_checkpoint_store_new(nl_checkpoint_store **out, const char *dir, nl_clock *clock,
                            const nl_fs_ops *ops);
void nl_checkpoint_store_free(nl_checkpoint_store *s);
/* The root directory (borrowed). */
const char *nl_checkpoint_store_dir(const nl_checkpoint_store *s);

/* Create the root, meta/ with empty assigned and last-known-good files, and
 * checkpoints/, keeping whatever exists. NL_EIO (path and strerror in err),
 * also when one of them exists with the wrong type. */
int nl_checkpoint_store_initialize(nl_checkpoint_store *s, nl_err *err);

/* Whether the checkpoint of src's uid/resourceVersion exists (*out 0/1).
 * NL_EINVAL for an empty or unsafe uid or resourceVersion ("empty UID is
 * ambiguous"); NL_EIO when the path exists but is not a directory. */
int nl_checkpoint_store_exists(int *out, nl_checkpoint_store *s, const nl_config_source *src,
                               nl_err *err);
/* Save a checkpoint of files under checkpoints/<uid>/<rv>/ atomically.
 * NL_EINVAL (nothing written) for an empty or unsafe uid, resourceVersion or
 * file name, or a name given twice; NL_EIO on a filesystem failure (the
 * temporary directory is removed). A checkpoint already present for that
 * uid/resourceVersion is kept (same object version, same content) and 0
 * returned. */
int nl_checkpoint_store_save(nl_checkpoint_store *s, const char *uid, const char *rv,
                             const nl_checkpoint_file *files, size_t nfiles, nl_err *err);
/* Read checkpoints/<uid>/<rv>/<kubeletConfigKey> into *out (NUL-terminated,
 * caller frees) and its length into *len_out. Distinct errors: NL_EINVAL bad
 * source; NL_ENOTFOUND "no checkpoint for source ..."; NL_EIO the file cannot
 * be read (missing key included); NL_ETOOBIG above NL_CHECKPOINT_MAX_FILE;
 * NL_EPARSE the file is empty. */
int nl_checkpoint_store_load(char **out, size_t *len_out, nl_checkpoint_store *s,
                             const nl_config_source *src, nl_err *err);

/* The assigned / last-known-good source; *out NULL means local config.
 * NL_EIO when the meta file cannot be read, NL_EPARSE when it is corrupt. */
int nl_checkpoint_store_assigned(nl_config_source **out, nl_checkpoint_store *s, nl_err *err);
int nl_checkpoint_store_last_known_good(nl_config_source **out, nl_checkpoint_store *s,
                                        nl_err *err);
/* When the assigned source was set (µs since the epoch, the clock's time):
 * from meta/assigned-time when it names the assigned source, else the mtime
 * of meta/assigned. NL_EIO when neither can be read. */
int nl_checkpoint_store_assigned_modified(int64_t *out, nl_checkpoint_store *s, nl_err *err);

/* Record src (NULL = local config: an empty file). NL_EINVAL ("failed to
 * write RemoteConfigSource, empty UID is ambiguous") for a source without
 * uid or resourceVersion or with an unsafe uid, resourceVersion or key.
 * set_assigned writes nothing when src equals the assigned source;
 * otherwise it records the trial start (clock now) first, then the source. */
int nl_checkpoint_store_set_assigned(nl_checkpoint_store *s, const nl_config_source *src,
                                     nl_err *err);
int nl_checkpoint_store_set_last_known_good(nl_checkpoint_store *s, const nl_config_source *src,
                                            nl_err *err);
/* Clear last-known-good, then assigned; *updated_out (may be NULL) says
 * whether assigned was set before. */
int nl_checkpoint_store_reset(int *updated_out, nl_checkpoint_store *s, nl_err *err);

#endif
