#!/bin/sh
# kubectl 1.32's typed generators against nodelet-mockapi: `create
# configmap` and `create namespace` send protobuf bodies and accept
# protobuf answers (docs/protobuf.md). Created, refused as AlreadyExists
# with kube-apiserver's text, and stored as JSON clients then read back.
# Skips (exit 77) when no kubectl.
set -u

. "$(dirname "$0")/../kubectl-lib.sh"

KUBECTL=$(find_kubectl) || { echo "SKIP: no kubectl found"; exit 77; }
. "$(dirname "$0")/../mockapi-lib.sh"
fail() {
	echo "FAIL: $*"
	for f in out err server.err; do
		[ -s "$work/$f" ] && { echo "--- $f"; cat "$work/$f"; }
	done
	exit 1
}

start_mockapi
echo "using $KUBECTL against $url"
k() { "$KUBECTL" --server "$url" --cache-dir "$work/cache" "$@" >"$work/out" 2>"$work/err"; }

# The request and the answer are protobuf (kubectl logs both headers at -v=8).
k -v=8 create configmap app --from-literal=a=b --from-literal=key2=value2 ||
	fail "create configmap"
grep -q 'Content-Type: application/vnd.kubernetes.protobuf$' "$work/err" ||
	fail "kubectl did not send protobuf"
[ "$(grep -c 'Content-Type: application/vnd.kubernetes.protobuf$' "$work/err")" -ge 2 ] ||
	fail "the answer was not protobuf"
grep -qx 'configmap/app created' "$work/out" || fail "create configmap output"
echo "ok: create configmap in protobuf"

k create configmap app --from-literal=a=b && fail "a second create succeeded"
grep -qx 'error: failed to create configmap: configmaps "app" already exists' "$work/err" ||
	fail "AlreadyExists text for a configmap"
echo "ok: AlreadyExists from a protobuf Status"

k create namespace dev || fail "create namespace"
grep -qx 'namespace/dev created' "$work/out" || fail "create namespace output"
k create namespace dev && fail "a second namespace create succeeded"
grep -qx 'Error from server (AlreadyExists): namespaces "dev" already exists' "$work/err" ||
	fail "AlreadyExists text for a namespace"
echo "ok: create namespace, then AlreadyExists"

# Bytes that are not UTF-8 go as binaryData; JSON clients read the same.
printf 'a\000\377b' >"$work/blob.bin"
k create configmap bin -n dev --from-file="$work/blob.bin" || fail "create binary configmap"
k get configmap bin -n dev -o 'jsonpath={.binaryData.blob\.bin}' || fail "get binary configmap"
[ "$(cat "$work/out")" = "YQD/Yg==" ] || fail "binaryData read back as $(cat "$work/out")"
k get configmap app -o 'jsonpath={.data.a}{.data.key2}{.metadata.namespace}' ||
	fail "get configmap"
[ "$(cat "$work/out")" = "bvalue2default" ] || fail "data read back as $(cat "$work/out")"
k get namespace dev -o 'jsonpath={.status.phase}' || fail "get namespace"
[ "$(cat "$work/out")" = "Active" ] || fail "namespace phase $(cat "$work/out")"
echo "ok: what protobuf created reads back as JSON"

# A create in a namespace that does not exist: NotFound, in protobuf.
k create configmap lost -n nowhere --from-literal=a=b && fail "create in a missing namespace"
grep -q 'namespaces "nowhere" not found' "$work/err" || fail "NotFound text"
echo "ok: NotFound for a missing namespace"
echo "PASS: kubectl protobuf"
