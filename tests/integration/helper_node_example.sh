#!/bin/sh
# docs/testing.md's example, mockapi/helpers/node/example/
# client-node.test.mjs: @kubernetes/client-node through the Node helper.
# The package comes from npm, which tests never reach: like node_client.sh
# this skips (77) unless tests/clients/node_client/node_modules is there
# (sh tests/install-client-deps.sh; .ci/run's clients stage).
# NL_NODE_MODULES names another node_modules holding the package.
set -u
NODE=${NL_NODE:-node}
top=$(cd "$(dirname "$0")/../.." && pwd)
modules=${NL_NODE_MODULES:-$top/tests/clients/node_client/node_modules}
if ! command -v "$NODE" >/dev/null 2>&1; then
	echo "FAIL: no node (sh tests/install-deps.sh installs nodejs)"
	exit 1
fi
if [ ! -d "$modules/@kubernetes/client-node" ]; then
	echo "SKIP: no $modules (sh tests/install-client-deps.sh runs npm ci)"
	exit 77
fi
mock=${NL_MOCKAPI:-./mockapi/nodelet-mockapi}
NODELET_MOCKAPI=$(cd "$(dirname "$mock")" && pwd)/$(basename "$mock")
export NODELET_MOCKAPI
# Copies beside a node_modules link, as in a user's project: node resolves
# the example's import from the file's real directory upwards.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
mkdir "$work/example"
cp "$top/mockapi/helpers/node/mockapi.mjs" "$work/"
cp "$top/mockapi/helpers/node/example/client-node.test.mjs" "$work/example/"
ln -s "$modules" "$work/node_modules"
"$NODE" --test "$work/example/client-node.test.mjs"
