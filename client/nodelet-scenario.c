/* nodelet-scenario: run fixture scenarios against the embedded
 * nodelet-mockapi, a running one, or any cluster (docs/scenarios.md). */
#include "scenario/cli.h"

int main(int argc, char **argv)
{
	return nl_scn_main(argc, argv);
}
