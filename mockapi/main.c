/* nodelet-mockapi: a thin main over the mockapi library. */
#include "mockapi.h"

int main(int argc, char **argv)
{
	return mock_main(argc, argv);
}
