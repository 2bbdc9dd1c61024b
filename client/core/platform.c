/* The machine's OS and architecture in Go's GOOS/GOARCH spelling, as
 * client-go's User-Agent and the kubelet's node labels and nodeInfo use it.
 * Shared by the client (User-Agent) and the agent (registration). */
#include <nodelet/platform.h>

const char *nl_platform_arch(void)
{
#if defined(__x86_64__)
	return "amd64";
#elif defined(__aarch64__)
	return "arm64";
#elif defined(__i386__)
	return "386";
#elif defined(__arm__)
	return "arm";
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
	return "ppc64le";
#elif defined(__s390x__)
	return "s390x";
#elif defined(__riscv) && __riscv_xlen == 64
	return "riscv64";
#else
	return "unknown";
#endif
}

const char *nl_platform_os(void)
{
#if defined(__linux__)
	return "linux";
#elif defined(__APPLE__)
	return "darwin";
#elif defined(__FreeBSD__)
	return "freebsd";
#else
	return "unknown";
#endif
}
