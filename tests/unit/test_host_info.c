/* Host facts for status.nodeInfo: os-release parsing and the probe. */
#include <nodelet/agent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../cu_main.h"

static char *write_tmp(const char *text)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/nl-os-release-XXXXXX");
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void test_host_info__os_release_pretty_name(void)
{
	char out[256];
	char *p = write_tmp("NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 "
	                    "(bookworm)\"\nID=debian\n");
	CU_ASSERT_EQUAL(nl_host_info_os_release(out, sizeof(out), p), 0);
	CU_ASSERT_STRING_EQUAL(out, "Debian GNU/Linux 12 (bookworm)");
	unlink(p);
	/* Unquoted, single-quoted, and escapes inside double quotes. */
	p = write_tmp("PRETTY_NAME=Alpine\n");
	CU_ASSERT_EQUAL(nl_host_info_os_release(out, sizeof(out), p), 0);
	CU_ASSERT_STRING_EQUAL(out, "Alpine");
	unlink(p);
	p = write_tmp("PRETTY_NAME='Raspbian \\ 11'\n");
	CU_ASSERT_EQUAL(nl_host_info_os_release(out, sizeof(out), p), 0);
	CU_ASSERT_STRING_EQUAL(out, "Raspbian \\ 11");
	unlink(p);
	p = write_tmp("PRETTY_NAME=\"Say \\\"hi\\\" \\$HOME\"\n");
	CU_ASSERT_EQUAL(nl_host_info_os_release(out, sizeof(out), p), 0);
	CU_ASSERT_STRING_EQUAL(out, "Say \"hi\" $HOME");
	unlink(p);
}

static void test_host_info__os_release_missing(void)
{
	char out[64] = "unchanged";
	char *p = write_tmp("NAME=x\n");
	CU_ASSERT_EQUAL(nl_host_info_os_release(out, sizeof(out), p), NL_ENOTFOUND);
	unlink(p);
	CU_ASSERT_EQUAL(nl_host_info_os_release(out, sizeof(out), "/nonexistent/os-release"),
	                NL_EIO);
	CU_ASSERT_STRING_EQUAL(out, "unchanged");
}

/* The probe reads this machine: what is always there must be there, in
 * the spellings status.nodeInfo uses. */
static void test_host_info__probe_reads_this_host(void)
{
	nl_host_info h;
	struct utsname u;
	nl_host_info_probe(&h);
	CU_ASSERT_EQUAL_FATAL(uname(&u), 0);
	CU_ASSERT_STRING_EQUAL(h.kernel_version, u.release);
	CU_ASSERT_STRING_EQUAL(h.operating_system, "linux");
	CU_ASSERT(strcmp(h.architecture, "unknown") != 0 && h.architecture[0]);
	CU_ASSERT(h.os_image[0] != '\0');
	CU_ASSERT(h.cpus >= 1);
	CU_ASSERT(h.memory_bytes > 0);
	if (access("/proc/sys/kernel/random/boot_id", R_OK) == 0)
		CU_ASSERT_EQUAL(strlen(h.boot_id), 36);
	/* The network view has the loopback interface every Linux host has. */
	int loopback = 0;
	for (size_t i = 0; i < h.n_addrs; i++)
		loopback |= h.addrs[i].loopback && strcmp(h.addrs[i].ip, "127.0.0.1") == 0;
	CU_ASSERT(loopback);
}

static CU_TestInfo tests[] = {
    {"os_release_pretty_name", test_host_info__os_release_pretty_name},
    {"os_release_missing", test_host_info__os_release_missing},
    {"probe_reads_this_host", test_host_info__probe_reads_this_host},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo nl_test_suites[] = {
    {"host_info", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
