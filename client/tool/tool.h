/* The `nodelet` program (client/tool, not installed): what client/nodelet.c's
 * main calls. */
#ifndef NL_TOOL_H
#define NL_TOOL_H

/* Flags (--help lists them), run until SIGINT or SIGTERM. Returns the exit
 * status: 0, 1 on failure, 2 on a usage error. */
int nl_agent_main(int argc, char **argv);

#endif
