#!/bin/sh
# kubectl 1.32 writing through PATCH against nodelet-mockapi: `patch` in all
# three --types (and on nodes/status), `label`, `annotate`, `edit` with a
# scripted editor, client-side `apply -f` twice (the second is a three-way
# strategic patch), `apply --server-side` with a conflicting second manager
# (refused, then --force-conflicts) and `delete`. Skips (exit 77) when no
# kubectl is installed.
set -u

. "$(dirname "$0")/../kubectl-lib.sh"

KUBECTL=$(find_kubectl) || { echo "SKIP: no kubectl found"; exit 77; }
. "$(dirname "$0")/../mockapi-lib.sh"

start_mockapi --fixtures "$FIXTURES/manifests/sample.yaml"
echo "using $KUBECTL against $url"
k() { "$KUBECTL" --server "$url" --cache-dir "$work/cache" "$@"; }
# Run a kubectl command that must succeed and print want.
ok() {
	want=$1
	shift
	k "$@" >"$work/out" 2>&1 || fail "kubectl $*"
	grep -q -- "$want" "$work/out" || fail "kubectl $*: no \"$want\""
}
value() { k get "$@" >"$work/value" 2>&1 || fail "kubectl get $*"; cat "$work/value"; }

# --- patch, in each type ---------------------------------------------------
ok "configmap/counter patched" patch configmap counter --type=merge -p '{"data":{"count":"1"}}'
[ "$(value configmap counter -o 'jsonpath={.data.count}')" = 1 ] || fail "merge patch"
ok "configmap/counter patched" patch configmap counter --type=json \
	-p '[{"op":"replace","path":"/data/count","value":"2"}]'
[ "$(value configmap counter -o 'jsonpath={.data.count}')" = 2 ] || fail "json patch"
ok "configmap/counter patched" patch configmap counter -p '{"data":{"count":"3"}}'
[ "$(value configmap counter -o 'jsonpath={.data.count}')" = 3 ] || fail "strategic patch"
ok "configmap/counter patched (no change)" patch configmap counter --type=strategic \
	-p '{"data":{"count":"3"}}'
# nodes/status: conditions merge by type, spec stays.
ok "node/edge-1 patched" patch node edge-1 --subresource=status --type=strategic \
	-p '{"status":{"conditions":[{"type":"Ready","status":"True","reason":"KubeletReady"}]}}'
[ "$(value node edge-1 -o 'jsonpath={.status.conditions[0].reason}')" = KubeletReady ] ||
	fail "nodes/status patch"
[ "$(value node edge-1 -o 'jsonpath={.spec.configSource.configMap.name}')" = edge-config ] ||
	fail "nodes/status patch lost spec"

# --- label, annotate (merge patches), edit (strategic) ----------------------
ok "configmap/counter labeled" label configmap counter tier=edge
ok "configmap/counter annotated" annotate configmap counter note=hi
[ "$(value configmap counter -o 'jsonpath={.metadata.labels.tier}/{.metadata.annotations.note}')" = edge/hi ] ||
	fail "label/annotate"
printf '#!/bin/sh\nsed -i "s/tier: edge/tier: core/" "$1"\n' >"$work/editor"
chmod +x "$work/editor"
EDITOR="$work/editor" KUBE_EDITOR="$work/editor" k edit configmap counter >"$work/out" 2>&1 ||
	fail "kubectl edit"
grep -q "configmap/counter edited" "$work/out" || fail "kubectl edit output"
[ "$(value configmap counter -o 'jsonpath={.metadata.labels.tier}')" = core ] || fail "edit"
managers=$(value configmap counter --show-managed-fields -o 'jsonpath={.metadata.managedFields[*].manager}')
for m in kubectl-patch kubectl-label kubectl-annotate kubectl-edit; do
	echo "$managers" | grep -q "$m" || fail "no managedFields entry for $m: $managers"
done

# --- client-side apply, twice ------------------------------------------------
cat >"$work/applied.yaml" <<'EOF'
apiVersion: v1
kind: ConfigMap
metadata:
  name: applied
  namespace: default
data:
  a: "1"
  gone: "x"
EOF
ok "configmap/applied created" apply -f "$work/applied.yaml"
sed -i -e 's/a: "1"/a: "2"/' -e '/gone:/d' "$work/applied.yaml"
printf '  b: "3"\n' >>"$work/applied.yaml"
ok "configmap/applied configured" apply -f "$work/applied.yaml"
[ "$(value configmap applied -o 'jsonpath={.data.a}/{.data.b}/{.data.gone}')" = 2/3/ ] ||
	fail "three-way apply: $(cat "$work/value")"

# --- server-side apply --------------------------------------------------------
cat >"$work/ssa.yaml" <<'EOF'
apiVersion: v1
kind: ConfigMap
metadata:
  name: ssa
  namespace: default
data:
  key: one
EOF
ok "configmap/ssa serverside-applied" apply --server-side -f "$work/ssa.yaml"
sed 's/key: one/key: two/' "$work/ssa.yaml" >"$work/ssa2.yaml"
if k apply --server-side --field-manager=other -f "$work/ssa2.yaml" >"$work/out" 2>&1; then
	fail "conflicting server-side apply succeeded"
fi
grep -q 'Apply failed with 1 conflict: conflict with "kubectl": .data.key' "$work/out" ||
	fail "conflict message"
ok "configmap/ssa serverside-applied" apply --server-side --field-manager=other \
	--force-conflicts -f "$work/ssa2.yaml"
[ "$(value configmap ssa -o 'jsonpath={.data.key}')" = two ] || fail "force-conflicts"

# --- delete ------------------------------------------------------------------
ok 'configmap "applied" deleted' delete configmap applied
ok 'configmap "ssa" deleted' delete configmap ssa
if k get configmap ssa >"$work/out" 2>&1; then fail "ssa still there"; fi
echo "PASS: kubectl patch (merge, json, strategic, status), label, annotate, edit, apply (client-side twice, server-side with conflict and force) and delete"
