/* A suite of scenario files: found (files, or directories searched for
 * *.yaml), parsed, filtered, run one per child process (up to -j at once,
 * each killed at its timeout) and reported in file order. */
#ifndef NL_SCENARIO_SUITE_H
#define NL_SCENARIO_SUITE_H

#include <stddef.h>

#include "run.h"
#include "scenario.h"

typedef struct {
	char *file;
	char *name;          /* the scenario's name, or the file's when it did not parse */
	nl_scn_scenario *sc; /* NULL when it did not parse */
	nl_scn_run_result result;
	double seconds; /* real time it took */
	int done;
} nl_scn_suite_item;

typedef struct {
	nl_scn_suite_item *items;
	size_t n;
	/* Journals that could not be written (each reported on stderr). */
	size_t journal_errors;
} nl_scn_suite;

/* Collect and parse every scenario under paths (sorted; a file that does
 * not parse is an item that fails with its parse error). NL_EIO when a path
 * does not exist, NL_ENOMEM. */
int nl_scn_suite_load(nl_scn_suite *s, char **paths, size_t npaths, const char *fixtures_dir,
                      nl_err *err);
void nl_scn_suite_free(nl_scn_suite *s);
/* Keep the items whose name, file or one of whose tags matches one of the
 * shell patterns. */
void nl_scn_suite_filter(nl_scn_suite *s, char **patterns, size_t n);

typedef struct {
	nl_scn_run_options run;
	/* Scenarios run at once, each in its own process; 0 runs them one by
	 * one in this process (debuggers, valgrind), without timeouts. */
	unsigned jobs;
	/* Write <dir>/<name>.journal with each scenario's requests, or NULL. */
	const char *journal_dir;
} nl_scn_suite_options;

/* Called once per item, in item order, as soon as it and every item before
 * it are done. */
typedef void (*nl_suite_done_fn)(const nl_scn_suite_item *it, size_t index, void *payload);

/* Run every item. 0, or NL_EIO / NL_ENOMEM when processes or files cannot
 * be made. */
int nl_scn_suite_run(nl_scn_suite *s, const nl_scn_suite_options *o, nl_suite_done_fn done,
                     void *payload);

#endif
