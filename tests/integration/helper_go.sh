#!/bin/sh
# The Go test helper (mockapi/helpers/go, docs/testing.md): its own tests
# and the docs' example, with go test against the built nodelet-mockapi.
# Fails, never skips, without go: tests/install-deps.sh installs golang-go.
set -u
GO=${NL_GO:-go}
if ! command -v "$GO" >/dev/null 2>&1; then
	echo "FAIL: no go (sh tests/install-deps.sh installs golang-go)"
	exit 1
fi
helper=$(cd "$(dirname "$0")/../../mockapi/helpers/go" && pwd)
mock=${NL_MOCKAPI:-./mockapi/nodelet-mockapi}
NODELET_MOCKAPI=$(cd "$(dirname "$mock")" && pwd)/$(basename "$mock")
export NODELET_MOCKAPI
"$GO" version
# The source tree may be read-only (distcheck): go test writes only to its
# build cache, outside it.
cd "$helper" && exec "$GO" test -count=1 -v ./...
