#!/bin/sh
# @kubernetes/client-node 1.x against nodelet-mockapi:
# tests/clients/node_client/test.mjs. Never installs anything (tests run
# without network): skips (exit 77) unless node and the package's
# node_modules are present; tests/install-client-deps.sh provides both.
set -u

NODE=${NL_NODE:-node}
clients=$(dirname "$0")/../clients
if ! command -v "$NODE" >/dev/null 2>&1; then
	echo "SKIP: no node (sh tests/install-client-deps.sh installs it)"
	exit 77
fi
if [ ! -d "$clients/node_client/node_modules/@kubernetes/client-node" ]; then
	echo "SKIP: no $clients/node_client/node_modules (sh tests/install-client-deps.sh runs npm ci)"
	exit 77
fi
# shellcheck source=tests/mockapi-lib.sh
. "$(dirname "$0")/../mockapi-lib.sh"
start_mockapi --fixtures "$FIXTURES/manifests/sample.yaml" --kubeconfig-out "$work/kubeconfig"
echo "nodelet-mockapi at $url"
echo "node $("$NODE" --version), @kubernetes/client-node $(sed -n 's/^ *"version": "\(.*\)",$/\1/p' \
	"$clients/node_client/node_modules/@kubernetes/client-node/package.json" | head -1)"
"$NODE" "$clients/node_client/test.mjs" "$work/kubeconfig" || { sed 's/^/server: /' "$work/server.err" | tail -20; exit 1; }
