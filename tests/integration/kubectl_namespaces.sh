#!/bin/sh
# kubectl 1.32 on Namespaces: label, annotate, client-side apply and its
# re-apply of a changed manifest, server-side apply, replace; delete, which
# waits while the namespace is Terminating and the built-in namespace
# controller (5 s after the DELETE) empties and finalizes it; a create in a
# Terminating namespace is NamespaceLifecycle's 403; default cannot be
# deleted. Then a --state-file restart in the middle of a termination: the
# controller goes on after the restart. Skips (exit 77) when no kubectl.
set -u

. "$(dirname "$0")/../kubectl-lib.sh"

KUBECTL=$(find_kubectl) || { echo "SKIP: no kubectl found"; exit 77; }
. "$(dirname "$0")/../mockapi-lib.sh"

start_mockapi --state-file "$work/state"
k() { "$KUBECTL" --server "$url" --cache-dir "$work/cache" "$@"; }

k create namespace dev >"$work/out" 2>&1 || fail "create namespace"
k label namespace dev team=a >"$work/out" 2>&1 || fail "label"
grep -q 'namespace/dev labeled' "$work/out" || fail "label output"
k annotate namespace dev owner=me >"$work/out" 2>&1 || fail "annotate"
[ "$(k get ns dev -o 'jsonpath={.metadata.labels.team}/{.metadata.annotations.owner}')" = a/me ] ||
	fail "label and annotation not stored"

cat >"$work/ns.yaml" <<'YAML'
apiVersion: v1
kind: Namespace
metadata:
  name: app
  labels: {tier: one}
YAML
k apply -f "$work/ns.yaml" >"$work/out" 2>&1 || fail "apply"
grep -q 'namespace/app created' "$work/out" || fail "apply create output"
sed -i 's/tier: one/tier: two/' "$work/ns.yaml"
k apply -f "$work/ns.yaml" >"$work/out" 2>&1 || fail "re-apply"
grep -q 'namespace/app configured' "$work/out" || fail "re-apply output"
[ "$(k get ns app -o 'jsonpath={.metadata.labels.tier}')" = two ] || fail "re-apply did not change it"
sed -i 's/tier: two/tier: three/' "$work/ns.yaml"
k apply --server-side --force-conflicts -f "$work/ns.yaml" >"$work/out" 2>&1 || fail "apply --server-side"
grep -q 'namespace/app serverside-applied' "$work/out" || fail "server-side apply output"
k get ns app -o yaml >"$work/app.yaml" 2>"$work/out" || fail "get -o yaml"
sed -i 's/tier: three/tier: four/' "$work/app.yaml"
k replace -f "$work/app.yaml" >"$work/out" 2>&1 || fail "replace"
grep -q 'namespace/app replaced' "$work/out" || fail "replace output"
[ "$(k get ns app -o 'jsonpath={.metadata.labels.tier}/{.spec.finalizers[0]}/{.status.phase}')" = \
	four/kubernetes/Active ] || fail "replace: $(k get ns app -o yaml)"

k delete namespace default >"$work/out" 2>&1 && fail "deleting default succeeded"
grep -q 'namespaces "default" is forbidden: this namespace may not be deleted' "$work/out" ||
	fail "delete default: $(cat "$work/out")"

# A namespace with content: Terminating until the controller has run.
k create configmap c1 -n app --from-literal=a=b >"$work/out" 2>&1 || fail "create configmap"
k delete namespace app --wait=false >"$work/out" 2>&1 || fail "delete --wait=false"
grep -q 'namespace "app" deleted' "$work/out" || fail "delete output"
k get ns app -o yaml >"$work/out" 2>&1 || fail "get while Terminating"
grep -q 'phase: Terminating' "$work/out" || fail "not Terminating: $(cat "$work/out")"
grep -q 'deletionTimestamp:' "$work/out" || fail "no deletionTimestamp"
k create configmap late -n app --from-literal=a=b >"$work/out" 2>&1 && fail "create in a Terminating namespace"
grep -q 'configmaps "late" is forbidden: unable to create new content in namespace app because it is being terminated' \
	"$work/out" || fail "create in Terminating: $(cat "$work/out")"
start=$(date +%s)
k delete namespace app --timeout=30s >"$work/out" 2>&1 || fail "delete --wait: $(cat "$work/out")"
k get ns app >"$work/out" 2>&1 && fail "the namespace is still there"
grep -q 'namespaces "app" not found' "$work/out" || fail "get after the deletion: $(cat "$work/out")"
k get configmap c1 -n app >"$work/out" 2>&1 && fail "its ConfigMap is still there"
[ $(($(date +%s) - start)) -le 20 ] || fail "the deletion took too long"

# A restart mid-termination: a ConfigMap's finalizer holds the namespace.
k create namespace held >"$work/out" 2>&1 || fail "create held"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: h, namespace: held, finalizers: [example.com/hold]}\n' |
	k create -f - >"$work/out" 2>&1 || fail "create the held ConfigMap"
k delete namespace held --wait=false >"$work/out" 2>&1 || fail "delete held"
for _ in $(seq 1 100); do
	k get ns held -o 'jsonpath={.status.conditions[?(@.type=="NamespaceFinalizersRemaining")].reason}' \
		>"$work/reason" 2>/dev/null
	[ "$(cat "$work/reason")" = SomeFinalizersRemain ] && break
	sleep 0.2
done
[ "$(cat "$work/reason")" = SomeFinalizersRemain ] || fail "no NamespaceFinalizersRemaining: $(k get ns held -o yaml)"
kill "$pid" && wait "$pid" 2>/dev/null
pid=
port=${url##*:}
start_mockapi --state-file "$work/state" --port "$port"
k get ns held -o 'jsonpath={.status.phase}' >"$work/out" 2>&1 || fail "held lost in the restart"
[ "$(cat "$work/out")" = Terminating ] || fail "held not Terminating after the restart"
k patch configmap h -n held --type=merge -p '{"metadata":{"finalizers":null}}' >"$work/out" 2>&1 ||
	fail "remove the finalizer"
k delete namespace held --timeout=30s >"$work/out" 2>&1 || fail "delete held --wait: $(cat "$work/out")"
k get ns held >"$work/out" 2>&1 && fail "held is still there after the restart"
echo "PASS: kubectl label/annotate/apply/replace/delete on namespaces, Terminating and its 403"
