/* nodelet: a kubelet-style node agent without pods (docs/agent.md). */
#include "tool/tool.h"

int main(int argc, char **argv)
{
	return nl_agent_main(argc, argv);
}
