/* The build's platform in Go's spelling (GOOS/GOARCH). */
#ifndef NODELET_PLATFORM_H
#define NODELET_PLATFORM_H

/* "linux", "darwin", "freebsd" or "unknown"; static storage. */
const char *nl_platform_os(void);
/* "amd64", "arm64", "386", "arm", "ppc64le", "s390x", "riscv64" or
 * "unknown"; static storage. */
const char *nl_platform_arch(void);

#endif
