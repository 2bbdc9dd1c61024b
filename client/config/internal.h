/* Helpers shared by the files of client/config (kubeconfig, in-cluster, exec
 * credentials); not part of the public API. */
#ifndef NODELET_CONFIG_INTERNAL_H
#define NODELET_CONFIG_INTERNAL_H

#include <nodelet/buf.h>
#include <nodelet/config.h>

#include <stddef.h>

/* The default service account directory of a pod. */
#define NL__SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"
/* Largest token or namespace file read (projected tokens are ~1 KiB). */
#define NL__SMALL_FILE_MAX (1024u * 1024u)

/* nl_kubeconfig_load that also says, on failure, whether no configuration
 * was found at all (so nl_rest_config_load may fall back to in-cluster). */
int nl__kubeconfig_load(nl_rest_config **out, const char *path, const char *context, int *no_config,
                        nl_err *err);

/* Read a token file as client-go's file token source does: whitespace
 * trimmed, empty is an error ("read empty token from file \"f\""). */
int nl__token_file_read(char **out, const char *path, nl_err *err);

/* Go's filepath.Clean of base + "/" + rel (rel returned cleaned as-is when
 * absolute). New string, NULL on allocation failure. */
char *nl__path_join(const char *base, const char *rel);
/* Go's filepath.Abs(filepath.Dir(file)): the absolute, cleaned directory. */
char *nl__path_abs_dir(const char *file);

/* Wipe and free secrets; accept NULL. */
void nl__free_secret(void *p, size_t len);
void nl__free_secret_str(char *s);

/* Duplicate a string (NULL stays NULL); sets *failed on allocation failure. */
char *nl__strdup_opt(const char *s, int *failed);

void nl__exec_config_free(nl_exec_config *e);

/* "open PATH: strerror" unless the file can be opened for reading now. */
int nl__check_readable(const char *path, char *why, size_t whylen);

/* Append err-style messages joined as apimachinery's aggregate error does:
 * one message alone, several as "[a, b]". */
typedef struct {
	nl_buf text;
	size_t count;
	int failed; /* allocation failure while collecting */
} nl__errlist;

void nl__errlist_init(nl__errlist *l);
void nl__errlist_add(nl__errlist *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sets err to code and "prefix" + the aggregate; frees the list; returns code. */
int nl__errlist_finish(nl__errlist *l, nl_err *err, int code, const char *prefix);
void nl__errlist_free(nl__errlist *l);

/* ---- running a credential plugin (exec_run.c) ---------------------------- */

/* exec.LookPath: a name containing '/' is used as is, otherwise the first
 * executable regular file of that name in $PATH ("" entries mean ".", and a
 * match through a relative entry is refused, as Go's exec.ErrDot). *out is
 * a new string; -1 when nothing executable is found (or on allocation
 * failure, with *out NULL and *nomem set). */
int nl__exec_lookpath(char **out, const char *cmd, int *nomem);

/* Run path with argv/envp, stdin from /dev/null, stdout captured into out
 * (at most max bytes), stderr inherited, no other descriptor inherited, in
 * its own process group which is killed after timeout_ms. Returns 0 when the
 * command exited with status 0; otherwise the error (messages name `cmd`):
 * NL_ERROR for a non-zero exit, a signal or a failed execve, NL_ETIMEOUT,
 * NL_ETOOBIG, NL_EIO, NL_ENOMEM. */
int nl__exec_run(nl_buf *out, const char *cmd, const char *path, char *const argv[],
                 char *const envp[], int timeout_ms, size_t max, nl_err *err);

#endif
