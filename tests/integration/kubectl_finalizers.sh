#!/bin/sh
# kubectl 1.32 deleting a ConfigMap with a finalizer: `delete --wait=false`
# leaves it marked (deletionTimestamp), `delete` (which waits) returns once
# another client removes the finalizer, and the object is gone. Skips (exit
# 77) when no kubectl.
set -u

. "$(dirname "$0")/../kubectl-lib.sh"

KUBECTL=$(find_kubectl) || { echo "SKIP: no kubectl found"; exit 77; }
. "$(dirname "$0")/../mockapi-lib.sh"
kpid=
cleanup() {
	stop_pid "$kpid"
	mockapi_cleanup
}
fail() {
	echo "FAIL: $*"
	for f in out delete.out server.err; do
		[ -s "$work/$f" ] && { echo "--- $f"; cat "$work/$f"; }
	done
	exit 1
}

start_mockapi
k() { "$KUBECTL" --server "$url" --cache-dir "$work/cache" -n default "$@"; }

cat >"$work/cm.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata:
  name: held
  finalizers: [example.com/hold]
data: {k: v}
YAML
k create -f "$work/cm.yaml" >"$work/out" 2>&1 || fail "create"
k delete configmap held --wait=false >"$work/out" 2>&1 || fail "delete --wait=false"
grep -q 'configmap "held" deleted' "$work/out" || fail "delete did not report the deletion"
ts=$(k get configmap held -o 'jsonpath={.metadata.deletionTimestamp}' 2>"$work/out") ||
	fail "the marked ConfigMap is gone"
[ -n "$ts" ] || fail "no deletionTimestamp after the DELETE"

# `kubectl delete` waits for the object to go: it must return once the
# finalizer is removed, not before.
k delete configmap held --timeout=20s >"$work/delete.out" 2>&1 &
kpid=$!
sleep 1
kill -0 "$kpid" 2>/dev/null || fail "kubectl delete returned while the finalizer was pending"
k patch configmap held --type=merge -p '{"metadata":{"finalizers":null}}' >"$work/out" 2>&1 ||
	fail "patch removing the finalizer"
wait "$kpid" || { kpid=; fail "kubectl delete --wait failed"; }
kpid=
if k get configmap held >"$work/out" 2>&1; then
	fail "the ConfigMap is still there"
fi
grep -q 'NotFound\|not found' "$work/out" || fail "get after the finalizer went: $(cat "$work/out")"
echo "PASS: kubectl delete kept the object for its finalizer and waited for it to go"
