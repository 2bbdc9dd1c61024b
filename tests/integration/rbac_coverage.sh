#!/bin/sh
# docs/deploy/20-rbac.yaml grants exactly what nodelet uses: run the nodelet
# program as the virtual node of docs/deploy/ against a nodelet-mockapi
# process through registration, lease renewals, status reports and a dynamic
# config assignment (its ConfigMap in nodelet-system, the NodeletConfigChanged
# Event), then check the mock's request journal against the rules
# (tests/integration/rbac_check.c): nothing missing, nothing extra.
set -u
MOCKAPI=${NL_MOCKAPI:-./mockapi/nodelet-mockapi}
NODELET=${NL_NODELET:-./client/nodelet}
CHECK=${NL_RBAC_CHECK:-./tests/integration/rbac_check}
top=${NL_FIXTURES_DIR:-$(dirname "$0")/../../fixtures}/..
node=virtual-edge-1
work=$(mktemp -d)
mock= agent=
trap '[ -n "$agent" ] && kill $agent 2>/dev/null; [ -n "$mock" ] && kill $mock 2>/dev/null; rm -rf "$work"' EXIT INT TERM
fail() { echo "FAIL: $*"; tail -20 "$work/agent.log" 2>/dev/null; exit 1; }
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }
[ -x "$NODELET" ] || { echo "SKIP: $NODELET not built"; exit 77; }

"$MOCKAPI" --port 0 --kubeconfig-out "$work/kubeconfig" >"$work/mock.out" 2>"$work/mock.log" &
mock=$!
for _ in $(seq 1 100); do grep -q "listening on" "$work/mock.out" && break; sleep 0.05; done
url=$(sed -n 's/.*listening on //p' "$work/mock.out")
[ -n "$url" ] || fail "mock did not start"
post() { curl -sf -X POST -H 'Content-Type: application/json' "$url$1" -d "$2" >/dev/null || fail "POST $1"; }
# until PATH PATTERN: up to 30 s for GET PATH to answer a body with PATTERN.
until_get() {
	for _ in $(seq 1 300); do
		curl -s "$url$1" 2>/dev/null | grep -q "$2" && return 0
		sleep 0.1
	done
	fail "GET $1 never showed $2"
}

post /api/v1/namespaces '{"metadata":{"name":"nodelet-system"}}'
post /api/v1/namespaces/nodelet-system/configmaps \
	'{"metadata":{"name":"nodelet-config"},"data":{"nodelet":"apiVersion: nodelet.io/v1alpha1\nkind: NodeletConfiguration\nleaseDurationSeconds: 8\n"}}'

"$NODELET" --kubeconfig "$work/kubeconfig" --node-name $node --lease-duration-seconds 4 \
	--dynamic-config-dir "$work/dyn" -v 2 >"$work/agent.log" 2>&1 &
agent=$!
until_get /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/$node '"renewTime"'
curl -sf -X PATCH -H 'Content-Type: application/merge-patch+json' "$url/api/v1/nodes/$node" \
	-d '{"spec":{"configSource":{"configMap":{"namespace":"nodelet-system","name":"nodelet-config","kubeletConfigKey":"nodelet"}}}}' \
	>/dev/null || fail "assigning the config"
until_get /api/v1/namespaces/default/events NodeletConfigChanged
until_get /api/v1/nodes/$node '"leaseDurationSeconds"\|"active"'
sleep 2 # a renewal and a status report on the new configuration
kill $agent; wait $agent; agent=

curl -sf "$url/mockapi/v1/requests" >"$work/journal.json" || fail "reading the journal"
"$CHECK" "$top/docs/deploy/20-rbac.yaml" "$work/journal.json"
