#!/bin/sh
# The Node test helper's own tests (mockapi/helpers/node/mockapi.test.mjs,
# docs/testing.md), node --test against the built nodelet-mockapi.
# Fails, never skips, without node: tests/install-deps.sh installs nodejs.
# The @kubernetes/client-node example is helper_node_example.sh.
set -u
NODE=${NL_NODE:-node}
if ! command -v "$NODE" >/dev/null 2>&1; then
	echo "FAIL: no node (sh tests/install-deps.sh installs nodejs)"
	exit 1
fi
helper=$(cd "$(dirname "$0")/../../mockapi/helpers/node" && pwd)
mock=${NL_MOCKAPI:-./mockapi/nodelet-mockapi}
NODELET_MOCKAPI=$(cd "$(dirname "$mock")" && pwd)/$(basename "$mock")
export NODELET_MOCKAPI
echo "node $("$NODE" --version)"
exec "$NODE" --test "$helper/mockapi.test.mjs"
