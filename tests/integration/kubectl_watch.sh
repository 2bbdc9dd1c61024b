#!/bin/sh
# kubectl 1.32 `get -w` against nodelet-mockapi: the initial ADDED, then
# ADDED, MODIFIED and DELETED in order while another client (curl) creates,
# updates and deletes a ConfigMap. Skips (exit 77) when no kubectl or curl.
set -u

. "$(dirname "$0")/../kubectl-lib.sh"

KUBECTL=$(find_kubectl) || { echo "SKIP: no kubectl found"; exit 77; }
command -v curl >/dev/null 2>&1 || { echo "SKIP: no curl found"; exit 77; }
. "$(dirname "$0")/../mockapi-lib.sh"
kpid=
cleanup() {
	stop_pid "$kpid"
	mockapi_cleanup
}
fail() {
	echo "FAIL: $*"
	for f in events kubectl.err server.err; do
		[ -s "$work/$f" ] && { echo "--- $f"; cat "$work/$f"; }
	done
	exit 1
}

start_mockapi --fixtures "$FIXTURES/manifests/sample.yaml"
echo "using $KUBECTL against $url"

# One event per line, "TYPE name", whatever indentation kubectl prints with.
events() {
	tr -d ' \n' <"$work/events" | sed 's/}{"type"/}\n{"type"/g' |
		sed -n 's/^{"type":"\([A-Z]*\)".*"name":"\([^"]*\)".*/\1 \2/p'
}
wait_for() { # wait_for "TYPE name": up to 10 s
	for _ in $(seq 1 200); do
		events | grep -qx "$1" && return 0
		kill -0 "$kpid" 2>/dev/null || fail "kubectl exited while waiting for $1"
		sleep 0.05
	done
	fail "no \"$1\" event from kubectl get -w"
}

# kubectl lists (printing ADDED for what exists), then watches from the
# list's resourceVersion.
"$KUBECTL" --server "$url" --cache-dir "$work/cache" get configmaps -n default -w \
	--output-watch-events -o json >"$work/events" 2>"$work/kubectl.err" &
kpid=$!
wait_for "ADDED counter"

cm='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"watched"},"data":{"v":"%s"}}'
api="$url/api/v1/namespaces/default/configmaps"
# shellcheck disable=SC2059
curl -sf -X POST -H 'Content-Type: application/json' -d "$(printf "$cm" 1)" "$api" >/dev/null ||
	fail "create"
# shellcheck disable=SC2059
curl -sf -X PUT -H 'Content-Type: application/json' -d "$(printf "$cm" 2)" "$api/watched" \
	>/dev/null || fail "update"
curl -sf -X DELETE "$api/watched" >/dev/null || fail "delete"
wait_for "DELETED watched"

got=$(events | grep ' watched$' | tr '\n' ',')
[ "$got" = "ADDED watched,MODIFIED watched,DELETED watched," ] ||
	fail "events out of order or repeated: $got"
echo "PASS: kubectl get -w saw ADDED, MODIFIED and DELETED in order"
