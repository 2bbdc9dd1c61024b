/* --kubeconfig-out: a kubeconfig that points kubectl and the agent here. */
#ifndef MOCK_KUBECONFIG_OUT_H
#define MOCK_KUBECONFIG_OUT_H

#include <nodelet/errors.h>

#include "auth/access.h"

/* Write a kubeconfig for server url to path, crash-safe (temp file in the
 * same directory, fsync, rename) and mode 0600. NL_EIO with errno text. */
int mock_kubeconfig_write(const char *path, const char *url, nl_err *err);
/* The same with the CA and credentials of creds (NULL: none). */
int mock_kubeconfig_write_creds(const char *path, const char *url,
                                const mock_kubeconfig_creds *creds, nl_err *err);

#endif
