#!/bin/sh
# The official Python client (Debian python3-kubernetes, /usr/bin/python3)
# against nodelet-mockapi: tests/clients/python_client.py. Skips (exit 77)
# when the client is not installed; tests/install-client-deps.sh installs it.
set -u

PYTHON=${NL_PYTHON:-/usr/bin/python3}
clients=$(dirname "$0")/../clients
if ! "$PYTHON" -c 'import kubernetes' 2>/dev/null; then
	echo "SKIP: $PYTHON cannot import kubernetes (install python3-kubernetes: sh tests/install-client-deps.sh)"
	exit 77
fi
# shellcheck source=tests/mockapi-lib.sh
. "$(dirname "$0")/../mockapi-lib.sh"
start_mockapi --fixtures "$FIXTURES/manifests/sample.yaml" --kubeconfig-out "$work/kubeconfig"
echo "nodelet-mockapi at $url"
echo "python kubernetes client $("$PYTHON" -c 'import kubernetes; print(kubernetes.__version__)')"
"$PYTHON" "$clients/python_client.py" "$work/kubeconfig" || { sed 's/^/server: /' "$work/server.err" | tail -20; exit 1; }
