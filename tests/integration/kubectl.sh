#!/bin/sh
# kubectl 1.32 against nodelet-mockapi: discovery, get (table and JSON) and a
# stale `kubectl replace` that must print the apiserver's conflict message.
# Skips (exit 77) when no kubectl is installed.
set -u

. "$(dirname "$0")/../kubectl-lib.sh"

KUBECTL=$(find_kubectl) || { echo "SKIP: no kubectl found"; exit 77; }
. "$(dirname "$0")/../mockapi-lib.sh"

start_mockapi --fixtures "$FIXTURES/manifests/sample.yaml" --kubeconfig-out "$work/kubeconfig"
echo "using $KUBECTL against $url"
k() { "$KUBECTL" --server "$url" --cache-dir "$work/cache" "$@"; }

k get nodes,configmaps,leases,events,namespaces -A >"$work/out" 2>&1 || fail "kubectl get -A"
cat "$work/out"
grep -q "edge-1" "$work/out" || fail "node edge-1 not listed"
grep -q "kube-node-lease" "$work/out" || fail "namespace kube-node-lease not listed"

k get configmap counter -o json >"$work/cm.json" 2>"$work/out" || fail "kubectl get -o json"
grep -q '"resourceVersion"' "$work/cm.json" || fail "no resourceVersion in -o json"

# Through the written kubeconfig too, as the agent and users will.
"$KUBECTL" --kubeconfig "$work/kubeconfig" --cache-dir "$work/cache2" get lease -n kube-node-lease \
	>"$work/out" 2>&1 || fail "kubectl via --kubeconfig-out"
grep -q "edge-1" "$work/out" || fail "lease edge-1 not listed via kubeconfig"

# First replace succeeds and bumps the resourceVersion; the same file is then stale.
k replace --validate=false -f "$work/cm.json" >"$work/out" 2>&1 || fail "first replace"
if k replace --validate=false -f "$work/cm.json" >"$work/out" 2>&1; then
	fail "stale replace succeeded"
fi
cat "$work/out"
grep -q 'Operation cannot be fulfilled on configmaps "counter": the object has been modified; please apply your changes to the latest version and try again' "$work/out" ||
	fail "conflict message missing"
echo "PASS: kubectl get, get -o json, kubeconfig-out and stale replace (409) behave as against kube-apiserver"
