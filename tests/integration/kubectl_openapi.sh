#!/bin/sh
# kubectl 1.32 and the mock's OpenAPI documents: kubectl explain prints our
# descriptions (from /openapi/v3, and from /openapi/v2 with
# --output=plaintext-openapiv2); apply -f of a kind: List file, create -f of
# a multi-document file and a multi-object edit pass kubectl's default
# validation, which for a List checks each item client-side against the
# /openapi/v2 protobuf (and then sends fieldValidation=Strict), with no
# warning and no fallback. Skips (exit 77) when no kubectl is installed.
set -u

. "$(dirname "$0")/../kubectl-lib.sh"

KUBECTL=$(find_kubectl) || { echo "SKIP: no kubectl found"; exit 77; }
. "$(dirname "$0")/../mockapi-lib.sh"
fail() {
	echo "FAIL: $*"
	for f in out err; do [ -s "$work/$f" ] && { echo "--- $f"; cat "$work/$f"; }; done
	exit 1
}
expect() { grep -q -- "$1" "$work/out" || fail "$2"; }
# kubectl wrote nothing on stderr but -v=6 info lines (klog's I...): no
# warning (W..., "Warning:") and no error.
quiet() {
	if grep -Ev '^I[0-9]{4} ' "$work/err" | grep -q .; then
		fail "$1: kubectl wrote to stderr"
	fi
}

start_mockapi
echo "using $KUBECTL against $url"
k() { "$KUBECTL" --server "$url" --cache-dir "$work/cache" "$@"; }

# --- explain: field descriptions, from v3 and from v2 -------------------------
explain() { # FIELD TEXT [flags]
	f=$1 text=$2
	shift 2
	k explain "$f" "$@" -v=6 >"$work/out" 2>"$work/err" || fail "explain $f $*"
	tr -s ' \n' ' ' <"$work/out" >"$work/flat"
	grep -qF -- "$text" "$work/flat" || fail "explain $f $*: no '$text'"
	quiet "explain $f"
}
explain configmap.data "Text values by key."
explain lease.spec.renewTime "When the holder last renewed the lease, with microseconds."
explain node.status.conditions "The node's health, one entry per type"
explain node.status.conditions "True, False or Unknown." # a field of NodeCondition
explain namespace.status.phase "Active, or Terminating once deletion has begun."
explain event.involvedObject "The object the event is about."
explain configmap.metadata.ownerReferences "garbage collector"
# explain read v3; no v2 fallback.
grep -q 'GET .*/openapi/v3/api/v1?hash=.* 200 OK' "$work/err" || fail "explain did not read v3"
grep -q '/openapi/v2' "$work/err" && fail "explain fell back to /openapi/v2"
explain lease.spec.renewTime "When the holder last renewed the lease" --output=plaintext-openapiv2
grep -q 'GET .*/openapi/v2?timeout=32s 200 OK' "$work/err" || fail "explain v2 did not read v2"

# --- apply -f of a kind: List -------------------------------------------------
cat >"$work/list.yaml" <<'YAML'
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: listed
    namespace: default
  data:
    mode: fast
- apiVersion: coordination.k8s.io/v1
  kind: Lease
  metadata:
    name: listed-lock
    namespace: default
  spec:
    holderIdentity: app-0
    leaseDurationSeconds: 15
YAML
k apply -f "$work/list.yaml" -v=6 >"$work/out" 2>"$work/err" || fail "apply -f list.yaml"
expect "configmap/listed created" "apply: configmap not created"
expect "lease.coordination.k8s.io/listed-lock created" "apply: lease not created"
quiet "apply -f list.yaml"
grep -q 'GET .*/openapi/v2?timeout=32s 200 OK' "$work/err" ||
	fail "apply of a List did not validate against /openapi/v2"
grep -q 'POST .*/configmaps?fieldManager=kubectl-client-side-apply&fieldValidation=Strict 201' \
	"$work/err" || fail "apply of a List: no strict POST"
# Again, changed: a strategic-merge PATCH each.
sed 's/mode: fast/mode: slow/' "$work/list.yaml" >"$work/list2.yaml"
k apply -f "$work/list2.yaml" >"$work/out" 2>"$work/err" || fail "apply -f list2.yaml"
expect "configmap/listed configured" "apply: configmap not configured"
expect "lease.coordination.k8s.io/listed-lock unchanged" "apply: lease changed"
quiet "apply -f list2.yaml"
k get configmap listed -n default -o jsonpath='{.data.mode}' >"$work/out" 2>"$work/err"
expect "^slow$" "apply did not change the configmap"

# An unknown field in an item is refused by kubectl, as against kube-apiserver.
sed 's/^  data:$/  bogus: 1\n  data:/' "$work/list.yaml" >"$work/bad.yaml"
if k apply -f "$work/bad.yaml" >"$work/out" 2>&1; then fail "apply accepted an unknown field"; fi
expect 'unknown field "bogus" in io.k8s.api.core.v1.ConfigMap' "apply: no unknown-field error"

# --- create -f: several documents, one of them a List -------------------------
cat >"$work/multi.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata:
  name: multi-1
  namespace: default
data:
  a: "1"
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: multi-2
    namespace: default
  data:
    a: "1"
- apiVersion: v1
  kind: Namespace
  metadata:
    name: multi-ns
YAML
k create -f "$work/multi.yaml" >"$work/out" 2>"$work/err" || fail "create -f multi.yaml"
expect "configmap/multi-1 created" "create: multi-1"
expect "configmap/multi-2 created" "create: multi-2"
expect "namespace/multi-ns created" "create: multi-ns"
quiet "create -f multi.yaml"

# --- edit of several objects at once (kubectl edits them as a List) -----------
cat >"$work/editor.sh" <<'SH'
#!/bin/sh
sed -i 's/^    a: "1"$/    a: "2"/' "$1"
SH
chmod +x "$work/editor.sh"
EDITOR="$work/editor.sh" k edit configmap multi-1 multi-2 -n default >"$work/out" 2>"$work/err" ||
	fail "edit of two configmaps"
expect "configmap/multi-1 edited" "edit: multi-1"
expect "configmap/multi-2 edited" "edit: multi-2"
quiet "edit"
k get configmap multi-1 multi-2 -n default -o jsonpath='{.items[*].data.a}' >"$work/out" \
	2>"$work/err"
expect "^2 2$" "edit did not change both"
echo "ok: explain, apply -f List, create -f, multi-object edit"
