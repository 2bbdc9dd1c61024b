#!/bin/sh
# What tests/integration/python_client.sh and node_client.sh need beyond
# tests/install-deps.sh: the official Python client (Debian
# python3-kubernetes, for /usr/bin/python3), node and npm, and
# @kubernetes/client-node 1.x in tests/clients/node_client/node_modules
# (from package-lock.json). Called by .ci/run before the clients stage; the
# tests themselves never install anything and skip without these.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
missing=
/usr/bin/python3 -c 'import kubernetes' 2>/dev/null || missing="$missing python3-kubernetes"
command -v node >/dev/null 2>&1 || missing="$missing nodejs"
command -v npm >/dev/null 2>&1 || missing="$missing npm"
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "install-client-deps.sh:$missing missing; run as root to install (apt-get)" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# shellcheck disable=SC2086 # a list of package names
	apt-get install -y -q --no-install-recommends $missing
fi
cd "$top/tests/clients/node_client"
if [ -f package-lock.json ]; then
	npm ci --no-audit --no-fund
else
	npm install --no-audit --no-fund
fi
