/* Kubeconfig parsing (client/config): the decoder of one file (nl__kc_decode,
 * client/config/kubeconfig.h), kubectl's merge of two files, and the whole
 * nl_kubeconfig_load on the input written to a file in a private temporary
 * directory (so relative paths in it resolve to files that do not exist).
 * Invariants: failures leave *out alone and say why; merging a file with
 * itself adds nothing; a loaded config has a server. */
#include <nodelet/config.h>
#include <nodelet/errors.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/kubeconfig.h"
#include "fuzz.h"

static char dir[64];
static char file[96];

static void cleanup(void)
{
	unlink(file);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	snprintf(dir, sizeof(dir), "%s", "/tmp/nodelet-fuzz-kubeconfig.XXXXXX");
	FUZZ_CHECK(mkdtemp(dir) != NULL);
	snprintf(file, sizeof(file), "%s/config", dir);
	atexit(cleanup);
	return 0;
}

static void fuzz_decode(const char *data, size_t size)
{
	struct kc_config a = {0}, b = {0};
	nl_err err = {0};
	int rc = nl__kc_decode(&a, data, size, "fuzz", &err);
	if (rc != 0) {
		FUZZ_CHECK(rc == NL_EPARSE || rc == NL_ENOMEM || rc == NL_ETOOBIG);
		FUZZ_CHECK(err.msg[0] != '\0');
		nl__kc_config_free(&a);
		return;
	}
	FUZZ_CHECK(nl__kc_decode(&b, data, size, "fuzz-again", &err) == 0);
	size_t nc = a.nclusters, nu = a.nusers, nx = a.ncontexts;
	FUZZ_CHECK(nl__kc_merge(&a, &b) == 0);
	FUZZ_CHECK(a.nclusters == nc && a.nusers == nu && a.ncontexts == nx);
	for (size_t i = 0; i < a.nclusters; i++)
		FUZZ_CHECK(a.clusters[i].origin && strcmp(a.clusters[i].origin, "fuzz") == 0);
	nl__kc_config_free(&a);
	nl__kc_config_free(&b);
}

/* Device and process files could make a tokenFile read block (a FIFO, a
 * terminal) or run long (/dev/zero up to the size cap): not a bug, so such
 * inputs skip the load. */
static int names_special_files(const char *data, size_t size)
{
	static const char *const bad[] = {"/dev", "/proc", "/sys", "/run"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (memmem(data, size, bad[i], strlen(bad[i])))
			return 1;
	return 0;
}

static void fuzz_load(const char *data, size_t size)
{
	FILE *f = fopen(file, "wb");
	FUZZ_CHECK(f != NULL);
	FUZZ_CHECK(fwrite(data, 1, size, f) == size);
	FUZZ_CHECK(fclose(f) == 0);
	nl_rest_config *cfg = (nl_rest_config *)&cfg;
	nl_err err = {0};
	int rc = nl_kubeconfig_load(&cfg, file, NULL, &err);
	if (rc != 0) {
		FUZZ_CHECK(rc == NL_EIO || rc == NL_EPARSE || rc == NL_ECONFIG || rc == NL_ENOMEM ||
		           rc == NL_ETOOBIG || rc == NL_ENOTFOUND);
		FUZZ_CHECK(cfg == (nl_rest_config *)&cfg);
		FUZZ_CHECK(err.msg[0] != '\0');
		return;
	}
	FUZZ_CHECK(cfg->server && cfg->server[0] != '\0');
	FUZZ_CHECK(cfg->source != NULL);
	nl_rest_config_free(cfg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_decode((const char *)data, size);
	if (!names_special_files((const char *)data, size))
		fuzz_load((const char *)data, size);
	return 0;
}
