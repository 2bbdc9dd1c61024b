/* The checkpoint store: kubelet's fsStore
 * (pkg/kubelet/kubeletconfig/checkpoint/store/fsstore.go) with its messages,
 * on atomic_fs.c's writes, plus meta/assigned-time for the trial clock. */
#include "atomic_fs.h"

#include <nodelet/doc.h>
#include <nodelet/log.h>
#include <nodelet/meta.h>
#include <nodelet/quote.h>
#include <nodelet/time.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define META_DIR "meta"
#define ASSIGNED_FILE "assigned"
#define LAST_KNOWN_GOOD_FILE "last-known-good"
#define ASSIGNED_TIME_FILE "assigned-time"
#define CHECKPOINTS_DIR "checkpoints"
#define META_MAX_FILE (64u * 1024u)

struct nl_checkpoint_store {
	char *dir;
	nl_clock *clock;
	nl_fs_ops fs;
};

/* --- paths and names ---------------------------------------------------------- */

static char *path_join(const char *a, const char *b, const char *c, const char *d)
{
	char *out = NULL;
	int n = asprintf(&out, "%s/%s%s%s%s%s", a, b, c ? "/" : "", c ? c : "", d ? "/" : "",
	                 d ? d : "");
	return n < 0 ? NULL : out;
}

static char *meta_path(const nl_checkpoint_store *s, const char *name)
{
	return path_join(s->dir, META_DIR, name, NULL);
}

/* WriteTempDir's checks (kubeletconfig/util/files), with its messages, for
 * a name that will become one path component: a key, a UID or a
 * resourceVersion. */
static int check_name(const char *what, const char *name, nl_err *err)
{
	char q[NL_CHECKPOINT_NAME_MAX + 64];
	nl_quote_str(q, sizeof(q), name);
	if (!*name)
		return nl_err_set(err, NL_EINVAL, "invalid %s: must not be empty: \"\"", what);
	if (strchr(name, '/'))
		return nl_err_set(err, NL_EINVAL, "invalid %s %s, only base names are allowed",
		                  what, q);
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return nl_err_set(err, NL_EINVAL, "invalid %s, may not be '.' or '..'", what);
	if (strlen(name) > NL_CHECKPOINT_NAME_MAX)
		return nl_err_set(err, NL_EINVAL, "invalid %s %s, must be less than 255 characters",
		                  what, q);
	return 0;
}

/* What upstream's Exists and Load report for a source: "<APIPath>, UID: …,
 * ResourceVersion: …". */
static void source_text(char *out, size_t outlen, const nl_config_source *src)
{
	char api[512];
	nl_config_source_api_path(api, sizeof(api), src);
	snprintf(out, outlen, "%s, UID: %s, ResourceVersion: %s", api, src->uid,
	         src->resource_version);
}

/* The uid and resourceVersion of a source about to name a directory. */
static int check_source_names(const nl_config_source *src, const char *prefix, nl_err *err)
{
	nl_err why = {0};
	int rc = 0;
	if (!*src->uid)
		rc = nl_err_set(&why, NL_EINVAL, "empty UID is ambiguous");
	else if (!*src->resource_version)
		rc = nl_err_set(&why, NL_EINVAL, "empty ResourceVersion is ambiguous");
	else if ((rc = check_name("UID", src->uid, &why)) == 0)
		rc = check_name("ResourceVersion", src->resource_version, &why);
	if (rc != 0)
		nl_err_set(err, rc, "%s%s", prefix, why.msg);
	return rc;
}

/* --- lifecycle ------------------------------------------------------------------ */

int nl_checkpoint_store_new(nl_checkpoint_store **out, const char *dir, nl_clock *clock,
                            const nl_fs_ops *ops)
{
	if (!dir || !*dir || !clock)
		return NL_EINVAL;
	nl_checkpoint_store *s = calloc(1, sizeof(*s));
	if (!s || !(s->dir = strdup(dir))) {
		free(s);
		return NL_ENOMEM;
	}
	/* "dir/" would make every path "dir//meta". */
	for (size_t n = strlen(s->dir); n > 1 && s->dir[n - 1] == '/'; n--)
		s->dir[n - 1] = '\0';
	s->clock = clock;
	nl__fs_ops_fill(&s->fs, ops);
	*out = s;
	return 0;
}

void nl_checkpoint_store_free(nl_checkpoint_store *s)
{
	if (!s)
		return;
	free(s->dir);
	free(s);
}

const char *nl_checkpoint_store_dir(const nl_checkpoint_store *s)
{
	return s->dir;
}

int nl_checkpoint_store_initialize(nl_checkpoint_store *s, nl_err *err)
{
	NL_LOG_INFO("Nodelet config controller initializing config checkpoints directory",
	            NL_KV_STR("path", s->dir));
	char *meta = path_join(s->dir, META_DIR, NULL, NULL);
	char *assigned = meta_path(s, ASSIGNED_FILE), *lkg = meta_path(s, LAST_KNOWN_GOOD_FILE);
	char *checkpoints = path_join(s->dir, CHECKPOINTS_DIR, NULL, NULL);
	int rc = NL_ENOMEM;
	if (meta && assigned && lkg && checkpoints) {
		rc = nl__fs_ensure_dir(&s->fs, s->dir, err);
		if (rc == 0)
			rc = nl__fs_ensure_dir(&s->fs, meta, err);
		if (rc == 0)
			rc = nl__fs_ensure_file(&s->fs, assigned, err);
		if (rc == 0)
			rc = nl__fs_ensure_file(&s->fs, lkg, err);
		if (rc == 0)
			rc = nl__fs_ensure_dir(&s->fs, checkpoints, err);
	}
	free(meta);
	free(assigned);
	free(lkg);
	free(checkpoints);
	return rc;
}

/* --- checkpoints ------------------------------------------------------------------ */

static int checkpoint_exists(int *out, nl_checkpoint_store *s, const nl_config_source *src,
                             nl_err *err)
{
	char text[1400], prefix[1500];
	source_text(text, sizeof(text), src);
	snprintf(
	    prefix, sizeof(prefix),
	    "failed to determine whether checkpoint exists for source %s exists, error: ", text);
	int rc = check_source_names(src, prefix, err);
	if (rc != 0)
		return rc;
	char *path = path_join(s->dir, CHECKPOINTS_DIR, src->uid, src->resource_version);
	if (!path)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	nl_err why = {0};
	rc = nl__fs_dir_exists(path, &why);
	free(path);
	if (rc < 0)
		return nl_err_set(err, rc, "%s%s", prefix, why.msg);
	*out = rc;
	return 0;
}

int nl_checkpoint_store_exists(int *out, nl_checkpoint_store *s, const nl_config_source *src,
                               nl_err *err)
{
	return checkpoint_exists(out, s, src, err);
}

static int check_files(const nl_checkpoint_file *files, size_t nfiles, nl_err *err)
{
	for (size_t i = 0; i < nfiles; i++) {
		int rc = check_name("file key", files[i].name ? files[i].name : "", err);
		if (rc != 0)
			return rc;
		for (size_t j = 0; j < i; j++)
			if (strcmp(files[i].name, files[j].name) == 0)
				return nl_err_set(err, NL_EINVAL, "duplicate file key \"%s\"",
				                  files[i].name);
	}
	return 0;
}

int nl_checkpoint_store_save(nl_checkpoint_store *s, const char *uid, const char *rv,
                             const nl_checkpoint_file *files, size_t nfiles, nl_err *err)
{
	/* Everything the server chose is checked before the filesystem is
	 * touched: a uid of "../../etc" must not create anything anywhere. */
	int rc = check_files(files, nfiles, err);
	if (rc == 0 && (!uid || !*uid))
		rc =
		    nl_err_set(err, NL_EINVAL, "failed to save checkpoint, empty UID is ambiguous");
	if (rc == 0 && (!rv || !*rv))
		rc = nl_err_set(err, NL_EINVAL,
		                "failed to save checkpoint, empty ResourceVersion is ambiguous");
	if (rc == 0)
		rc = check_name("UID", uid, err);
	if (rc == 0)
		rc = check_name("ResourceVersion", rv, err);
	if (rc != 0)
		return rc;
	char *parent = path_join(s->dir, CHECKPOINTS_DIR, uid, NULL);
	char *path = path_join(s->dir, CHECKPOINTS_DIR, uid, rv);
	rc = parent && path ? nl__fs_ensure_dir(&s->fs, parent, err)
	                    : nl_err_set(err, NL_ENOMEM, "out of memory");
	if (rc == 0)
		rc = nl__fs_create_dir(&s->fs, path, files, nfiles, err);
	if (rc == NL_EEXISTS) {
		/* A uid/resourceVersion names one immutable object version, and the
		 * directory only ever appears complete (rename), so it holds these
		 * very files already. */
		NL_LOG_INFO("Checkpoint already exists", NL_KV_STR("UID", uid),
		            NL_KV_STR("resourceVersion", rv));
		rc = 0;
	}
	free(parent);
	free(path);
	return rc;
}

int nl_checkpoint_store_load(char **out, size_t *len_out, nl_checkpoint_store *s,
                             const nl_config_source *src, nl_err *err)
{
	char text[1400];
	int exists = 0;
	int rc = checkpoint_exists(&exists, s, src, err);
	if (rc != 0)
		return rc;
	source_text(text, sizeof(text), src);
	if (!exists)
		return nl_err_set(err, NL_ENOTFOUND, "no checkpoint for source %s", text);
	rc = check_name("file key", src->kubelet_config_key, err);
	if (rc != 0)
		return rc;
	NL_LOG_INFO("Nodelet config controller loading nodelet configuration checkpoint",
	            NL_KV_STR("source", text));
	char *path = path_join(s->dir, CHECKPOINTS_DIR, src->uid, src->resource_version);
	char *file = path ? path_join(path, src->kubelet_config_key, NULL, NULL) : NULL;
	char *data = NULL;
	size_t len = 0;
	nl_err why = {0};
	if (!file) {
		rc = nl_err_set(err, NL_ENOMEM, "out of memory");
		goto cleanup;
	}
	rc = nl_file_read(&data, &len, file, NL_CHECKPOINT_MAX_FILE, &why);
	if (rc != 0) {
		rc = nl_err_set(err,
		                rc == NL_ENOMEM    ? rc
		                : rc == NL_ETOOBIG ? rc
		                                   : NL_EIO,
		                "failed to read nodelet config file \"%s\", error: %s", file,
		                why.msg);
		goto cleanup;
	}
	if (len == 0) {
		free(data);
		rc = nl_err_set(err, NL_EPARSE, "nodelet config file \"%s\" was empty", file);
		goto cleanup;
	}
	*out = data;
	if (len_out)
		*len_out = len;
cleanup:
	free(path);
	free(file);
	return rc;
}

/* --- meta files ------------------------------------------------------------------- */

static int read_source(nl_config_source **out, nl_checkpoint_store *s, const char *name,
                       nl_err *err)
{
	char *path = meta_path(s, name), *data = NULL;
	size_t len = 0;
	if (!path)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	int rc = nl_file_read(&data, &len, path, META_MAX_FILE, err);
	if (rc == 0) {
		nl_err why = {0};
		rc = nl_config_source_decode(out, data, len, &why);
		if (rc != 0)
			nl_err_set(err, rc, "%s: %s", path, why.msg);
	}
	free(data);
	free(path);
	return rc;
}

int nl_checkpoint_store_assigned(nl_config_source **out, nl_checkpoint_store *s, nl_err *err)
{
	return read_source(out, s, ASSIGNED_FILE, err);
}

int nl_checkpoint_store_last_known_good(nl_config_source **out, nl_checkpoint_store *s, nl_err *err)
{
	return read_source(out, s, LAST_KNOWN_GOOD_FILE, err);
}

/* The checks writeRemoteConfigSource makes, plus the names a later Load
 * will turn into a path. */
static int check_writable(const nl_config_source *src, nl_err *err)
{
	static const char *const prefix = "failed to write RemoteConfigSource, ";
	int rc = check_source_names(src, prefix, err);
	if (rc == 0) {
		nl_err why = {0};
		rc = check_name("file key", src->kubelet_config_key, &why);
		if (rc != 0)
			nl_err_set(err, rc, "%s%s", prefix, why.msg);
	}
	return rc;
}

static int write_source(nl_checkpoint_store *s, const char *name, const nl_config_source *src,
                        nl_err *err)
{
	char *data = NULL, *path = NULL;
	size_t len = 0;
	int rc = 0;
	if (src) {
		rc = check_writable(src, err);
		if (rc == 0 && nl_config_source_encode(&data, &len, src) != 0)
			rc = nl_err_set(err, NL_ENOMEM, "out of memory");
	}
	if (rc == 0 && !(path = meta_path(s, name)))
		rc = nl_err_set(err, NL_ENOMEM, "out of memory");
	if (rc == 0)
		rc = nl_fs_replace_file(&s->fs, path, data ? data : "", len, 0644, err);
	free(data);
	free(path);
	return rc;
}

/* meta/assigned-time: {"source": <the assigned source>, "time": MicroTime}.
 * Naming the source makes a stale file (a crash between the two writes, a
 * source set by an older nodelet) detectable. */
static int write_assigned_time(nl_checkpoint_store *s, const nl_config_source *src, nl_err *err)
{
	char ts[NL_TIME_BUFSZ], *path = meta_path(s, ASSIGNED_TIME_FILE);
	json_object *doc = json_object_new_object(), *js = nl_config_source_to_json(src);
	int rc = nl_err_set(err, NL_ENOMEM, "out of memory");
	nl_time_format_micro(ts, nl_clock_now(s->clock));
	if (path && doc && js && json_object_object_add(doc, "source", js) == 0) {
		js = NULL;
		if (json_object_object_add(doc, "time", json_object_new_string(ts)) == 0) {
			size_t len;
			const char *text = nl_json_compact(doc, &len);
			rc = text ? nl_fs_replace_file(&s->fs, path, text, len, 0644, err) : rc;
		}
	}
	json_object_put(js);
	json_object_put(doc);
	free(path);
	return rc;
}

/* The recorded trial start when it belongs to assigned; NL_ENOTFOUND when
 * missing or stale. */
static int read_assigned_time(int64_t *out, nl_checkpoint_store *s,
                              const nl_config_source *assigned)
{
	char *path = meta_path(s, ASSIGNED_TIME_FILE);
	json_object *doc = NULL;
	nl_config_source *src = NULL;
	int64_t t;
	int rc = NL_ENOTFOUND;
	if (path && nl_doc_load_file(&doc, path, NULL) == 0 && json_object_array_length(doc) == 1) {
		json_object *d = json_object_array_get_idx(doc, 0);
		const char *ts = nl_json_get_string(d, "time");
		if (ts && nl_time_parse(&t, ts) == 0 &&
		    nl_config_source_from_json(&src, json_object_object_get(d, "source"), NULL) ==
		        0 &&
		    nl_config_source_equal(src, assigned)) {
			*out = t;
			rc = 0;
		}
	}
	nl_config_source_free(src);
	json_object_put(doc);
	free(path);
	return rc;
}

int nl_checkpoint_store_assigned_modified(int64_t *out, nl_checkpoint_store *s, nl_err *err)
{
	nl_config_source *assigned = NULL;
	if (nl_checkpoint_store_assigned(&assigned, s, NULL) == 0 && assigned &&
	    read_assigned_time(out, s, assigned) == 0) {
		nl_config_source_free(assigned);
		return 0;
	}
	nl_config_source_free(assigned);
	char *path = meta_path(s, ASSIGNED_FILE);
	struct stat st;
	if (!path)
		return nl_err_set(err, NL_ENOMEM, "out of memory");
	int rc = 0;
	if (stat(path, &st) != 0)
		rc = nl_err_set(err, NL_EIO,
		                "failed to stat \"%s\" while checking modification time, error: %s",
		                path, strerror(errno));
	else
		*out = (int64_t)st.st_mtim.tv_sec * NL_USEC_PER_SEC + st.st_mtim.tv_nsec / 1000;
	free(path);
	return rc;
}

int nl_checkpoint_store_set_assigned(nl_checkpoint_store *s, const nl_config_source *src,
                                     nl_err *err)
{
	nl_config_source *current = NULL;
	int rc = src ? check_writable(src, err) : 0;
	if (rc != 0)
		return rc;
	/* An unreadable current file is simply replaced. */
	if (nl_checkpoint_store_assigned(&current, s, NULL) == 0 &&
	    nl_config_source_equal(current, src)) {
		nl_config_source_free(current);
		return 0;
	}
	nl_config_source_free(current);
	/* The trial start first: were the process to die between the two
	 * writes, the new time would name a source that is not assigned and be
	 * ignored. The other order could leave a new source with an old time,
	 * ending its trial at once. */
	if (src && (rc = write_assigned_time(s, src, err)) != 0)
		return rc;
	return write_source(s, ASSIGNED_FILE, src, err);
}

int nl_checkpoint_store_set_last_known_good(nl_checkpoint_store *s, const nl_config_source *src,
                                            nl_err *err)
{
	return write_source(s, LAST_KNOWN_GOOD_FILE, src, err);
}

int nl_checkpoint_store_reset(int *updated_out, nl_checkpoint_store *s, nl_err *err)
{
	nl_config_source *assigned = NULL;
	nl_err why = {0};
	int rc = nl_checkpoint_store_assigned(&assigned, s, err);
	if (rc != 0)
		return rc;
	int updated = assigned != NULL;
	nl_config_source_free(assigned);
	rc = nl_checkpoint_store_set_last_known_good(s, NULL, &why);
	if (rc != 0)
		return nl_err_set(
		    err, rc, "failed to reset last-known-good UID in checkpoint store, error: %s",
		    why.msg);
	rc = write_source(s, ASSIGNED_FILE, NULL, &why);
	if (rc != 0)
		return nl_err_set(err, rc,
		                  "failed to reset assigned UID in checkpoint store, error: %s",
		                  why.msg);
	if (updated_out)
		*updated_out = updated;
	return 0;
}
