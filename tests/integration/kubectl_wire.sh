#!/bin/sh
# kubectl 1.32 against nodelet-mockapi, the wire details it shows: the
# Audit-Id and APF response headers (-v=8), a list big enough to come
# gzip-encoded, field selectors on spec.unschedulable=false and Event
# source, /version's buildDate, the strict decoder's duplicate-field text
# and a list's ListOptions 422. Skips (exit 77) when no kubectl is installed.
set -u

. "$(dirname "$0")/../kubectl-lib.sh"

KUBECTL=$(find_kubectl) || { echo "SKIP: no kubectl found"; exit 77; }
. "$(dirname "$0")/../mockapi-lib.sh"

start_mockapi --fixtures "$FIXTURES/manifests/sample.yaml"
echo "using $KUBECTL against $url"
k() { "$KUBECTL" --server "$url" --cache-dir "$work/cache" "$@"; }

# Response headers as kubectl -v=8 prints them.
k get configmap counter -v=8 >"$work/out" 2>&1 || fail "kubectl get -v=8"
grep -Eq 'Audit-Id: [0-9a-f-]{36}$' "$work/out" || fail "no Audit-Id header"
grep -Eq 'X-Kubernetes-Pf-Flowschema-Uid: [0-9a-f-]{36}$' "$work/out" || fail "no FlowSchema uid"
grep -Eq 'X-Kubernetes-Pf-Prioritylevel-Uid: [0-9a-f-]{36}$' "$work/out" ||
	fail "no PriorityLevel uid"

# Three 60 KiB ConfigMaps: a list over 128 KiB, which Go's transport asks
# for gzip-encoded and inflates.
head -c 61440 /dev/zero | tr '\0' 'x' >"$work/blob"
for i in 1 2 3; do
	k create configmap "big-$i" --from-file=blob="$work/blob" >"$work/out" 2>&1 ||
		fail "create big-$i"
done
k get configmaps -o json >"$work/list.json" 2>"$work/out" || fail "get the big list"
[ "$(wc -c <"$work/list.json")" -gt 131072 ] || fail "the list is not over 128 KiB"
[ "$(grep -c '"name": "big-' "$work/list.json")" = 3 ] || fail "big ConfigMaps not all listed"
curl -s -H 'Accept-Encoding: gzip' -D "$work/headers" -o "$work/list.gz" \
	"$url/api/v1/namespaces/default/configmaps" || fail "curl the big list"
grep -qi '^Content-Encoding: gzip' "$work/headers" || fail "the big list is not gzipped"

# spec.unschedulable=false selects a Node without the field; a cordoned
# one is left out.
k get nodes --field-selector spec.unschedulable=false -o name >"$work/out" 2>&1 ||
	fail "field selector spec.unschedulable=false"
grep -qx 'node/edge-1' "$work/out" || fail "edge-1 not selected by spec.unschedulable=false"
k cordon edge-1 >/dev/null 2>&1 || fail "cordon"
k get nodes --field-selector spec.unschedulable=false -o name >"$work/out" 2>&1
grep -q 'edge-1' "$work/out" && fail "a cordoned node selected by spec.unschedulable=false"
k get nodes --field-selector spec.unschedulable=true -o name >"$work/out" 2>&1
grep -qx 'node/edge-1' "$work/out" || fail "cordoned edge-1 not selected"

cat >"$work/event.yaml" <<'YAML'
apiVersion: v1
kind: Event
metadata:
  name: from-kubelet
  namespace: default
involvedObject:
  kind: Node
  name: edge-1
reason: Starting
source:
  component: kubelet
  host: edge-1
YAML
k create -f "$work/event.yaml" >"$work/out" 2>&1 || fail "create the event"
k get events --field-selector source=kubelet -o name >"$work/out" 2>&1 ||
	fail "field selector source=kubelet"
grep -qx 'event/from-kubelet' "$work/out" || fail "event not selected by source=kubelet"

k version -o json >"$work/out" 2>&1 || fail "kubectl version"
grep -Eq '"buildDate": "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z"' "$work/out" ||
	fail "buildDate is not RFC 3339"

# create --raw sends the file as it is, repeated member included.
printf '%s' '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup"},"data":{"k":"1","k":"2"}}' \
	>"$work/dup.json"
if k create --raw '/api/v1/namespaces/default/configmaps?fieldValidation=Strict' \
	-f "$work/dup.json" >"$work/out" 2>&1; then
	fail "a repeated field passed strict decoding"
fi
grep -q 'strict decoding error: duplicate field "data.k"' "$work/out" ||
	fail "duplicate field message"

if k get --raw '/api/v1/configmaps?resourceVersionMatch=Exact' >"$work/out" 2>&1; then
	fail "resourceVersionMatch without resourceVersion listed"
fi
grep -q 'resourceVersionMatch is forbidden unless resourceVersion is provided' "$work/out" ||
	fail "ListOptions message"
echo "PASS: Audit-Id/APF headers, gzip, field selectors, buildDate, duplicate fields and ListOptions as kubectl sees them"
