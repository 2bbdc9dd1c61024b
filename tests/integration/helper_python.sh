#!/bin/sh
# The pytest plugin (mockapi/helpers/python, docs/testing.md): its own
# tests and the docs' example, with Debian's pytest and python3-kubernetes
# against the built nodelet-mockapi. Fails, never skips, without them:
# tests/install-deps.sh installs python3-pytest and python3-kubernetes.
set -u
PYTHON=${NL_PYTHON:-/usr/bin/python3}
for m in pytest kubernetes; do
	if ! "$PYTHON" -c "import $m" 2>/dev/null; then
		echo "FAIL: $PYTHON cannot import $m (sh tests/install-deps.sh installs python3-pytest python3-kubernetes)"
		exit 1
	fi
done
helper=$(cd "$(dirname "$0")/../../mockapi/helpers/python" && pwd)
mock=${NL_MOCKAPI:-./mockapi/nodelet-mockapi}
NODELET_MOCKAPI=$(cd "$(dirname "$mock")" && pwd)/$(basename "$mock")
export NODELET_MOCKAPI
# Nothing written to the source tree, which may be read-only (distcheck).
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$helper exec "$PYTHON" -m pytest -p no:cacheprovider \
	-p nodelet_mockapi -v --rootdir "$helper" "$helper"
