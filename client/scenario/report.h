/* Reporting a suite: TAP on a stream (one line per scenario, a YAML block
 * under a failure with its message and detail, then the closing line
 * "N passed, N failed, N skipped"), JUnit XML for CI systems, and the HTML
 * report page for people. */
#ifndef NL_SCENARIO_REPORT_H
#define NL_SCENARIO_REPORT_H

#include <nodelet/errors.h>
#include <stdio.h>

#include "suite.h"
#include "target.h"

typedef struct {
	size_t passed, failed, skipped;
} nl_scn_report_counts;

void nl_scn_report_tap_plan(FILE *f, size_t n);
/* Where a scenario that ran on a kind of target ran: *target "embedded",
 * "server" or "kubeconfig", *clock (the scenario's) "virtual" or "real";
 * both NULL when it did not run (skipped, or it did not parse). Static
 * texts. */
void nl_scn_report_ran_on(const char **target, const char **clock, nl_scn_target_kind k,
                          const nl_scn_suite_item *it);
/* One scenario (number is 1-based), then a TAP comment saying where it ran
 * ("# ran NAME: target=kubeconfig clock=real", or "# ran NAME: not run"),
 * so two runs against different targets can be diffed; counts are
 * updated. */
void nl_scn_report_tap_item(FILE *f, const nl_scn_suite_item *it, size_t number,
                            nl_scn_target_kind k, nl_scn_report_counts *c);
/* "N passed, N failed, N skipped". */
void nl_scn_report_summary(FILE *f, const nl_scn_report_counts *c);
/* Write the suite as JUnit XML to path, each test case with the properties
 * target and clock (nl_scn_report_ran_on; "none" when it did not run).
 * NL_EIO with err set. */
int nl_scn_report_junit(const char *path, const nl_scn_suite *s, nl_scn_target_kind k, nl_err *err);
/* Write the suite as the report page (<nodelet/timeline.h>) to path: a run
 * per scenario with its timeline when it ran with one. NL_EIO / NL_ENOMEM
 * with err set. */
int nl_scn_report_html(const char *path, const nl_scn_suite *s, nl_err *err);

#endif
