/* The nodelet-scenario program (client/nodelet-scenario.c is its main). */
#ifndef NL_SCENARIO_CLI_H
#define NL_SCENARIO_CLI_H

/* Parse flags, run the scenarios, print TAP on stdout. Returns the exit
 * status: 0 when none failed, 1 when one did, 2 on a usage error. */
int nl_scn_main(int argc, char **argv);

#endif
