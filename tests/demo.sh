#!/bin/sh
# The main job, visibly: start nodelet-mockapi with the sample fixtures, read
# a ConfigMap, update it with its resourceVersion (200), then send the same
# update again — now stale — and show the 409 Conflict the real
# kube-apiserver would send. Then start the nodelet agent against the mock
# and watch it register its Node and renew its Lease every second (a 4 s
# lease) for about ten seconds, and stop it with SIGTERM.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
MOCKAPI=${NL_MOCKAPI:-$top/mockapi/nodelet-mockapi}
NODELET=${NL_NODELET:-$top/client/nodelet}
work=$(mktemp -d)
pid=
agent=
trap '[ -n "$agent" ] && kill $agent 2>/dev/null; kill $pid 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT INT TERM

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "starting nodelet-mockapi with fixtures/manifests/sample.yaml"
"$MOCKAPI" --port 0 --fixtures "$top/fixtures/manifests/sample.yaml" -v 2 \
	--kubeconfig-out "$work/kubeconfig" >"$work/out" 2>"$work/log" &
pid=$!
for _ in $(seq 1 100); do grep -q "listening on" "$work/out" 2>/dev/null && break; sleep 0.05; done
url=$(sed -n 's/^nodelet-mockapi listening on //p' "$work/out")
[ -n "$url" ] || { cat "$work/log"; echo "server did not start"; exit 1; }
echo "listening on $url (kubeconfig: $work/kubeconfig)"
cm="$url/api/v1/namespaces/default/configmaps/counter"

step "GET $cm"
curl -sS "$cm" | tee "$work/cm.json"; echo
rv=$(sed -n 's/.*"resourceVersion":"\([0-9]*\)".*/\1/p' "$work/cm.json")
body=$(printf '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"counter","namespace":"default","resourceVersion":"%s"},"data":{"count":"1"}}' "$rv")

step "PUT with resourceVersion $rv (current): accepted"
curl -sS -X PUT -H 'Content-Type: application/json' -d "$body" -w '\nHTTP %{http_code}\n' "$cm"

step "PUT again with resourceVersion $rv (now stale): refused"
code=$(curl -sS -X PUT -H 'Content-Type: application/json' -d "$body" -o "$work/conflict" -w '%{http_code}' "$cm")
cat "$work/conflict"; echo; echo "HTTP $code"
[ "$code" = 409 ] || { echo "expected 409 Conflict"; exit 1; }

step "what the server logged (-v 2)"
cat "$work/log"
echo "the stale update was refused with 409 Conflict"

. "$(dirname "$0")/kubectl-lib.sh"
# NL_KUBECTL="" shows the curl fallback.
KUBECTL=${NL_KUBECTL-$(find_kubectl || true)}
k() { "$KUBECTL" --kubeconfig "$work/kubeconfig" --cache-dir "$work/cache" "$@"; }
lease="$url/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/demo-node"

step "starting nodelet --node-name demo-node --lease-duration-seconds 4 (renews every second)"
"$NODELET" --kubeconfig "$work/kubeconfig" --node-name demo-node --lease-duration-seconds 4 \
	-v 4 2>"$work/agent.log" &
agent=$!
for _ in $(seq 1 50); do curl -sf "$lease" >/dev/null && break; sleep 0.1; done

if [ -n "$KUBECTL" ]; then
	step "kubectl get lease -n kube-node-lease demo-node -w (10 s): each line is a renewal"
	timeout 10 "$KUBECTL" --kubeconfig "$work/kubeconfig" --cache-dir "$work/cache" \
		get lease -n kube-node-lease demo-node -w \
		-o custom-columns='NAME:.metadata.name,HOLDER:.spec.holderIdentity,DURATION:.spec.leaseDurationSeconds,RENEWED:.spec.renewTime' ||
		true
	step "kubectl get node demo-node"
	k get node demo-node
	k get node demo-node -o custom-columns='NAME:.metadata.name,TAINTS:.spec.taints[*].key,EFFECT:.spec.taints[*].effect,READY:.status.conditions[?(@.type=="Ready")].status,REASON:.status.conditions[?(@.type=="Ready")].reason'
else
	step "renewTime of kube-node-lease/demo-node, polled for 10 s (no kubectl found)"
	for _ in $(seq 1 10); do
		printf '%s\n' "$(curl -s "$lease" |
			sed -n 's/.*"holderIdentity":"\([^"]*\)".*"renewTime":"\([^"]*\)".*/holder \1  renewTime \2/p')"
		sleep 1
	done
	step "GET /api/v1/nodes/demo-node: taints and the Ready condition"
	curl -s "$url/api/v1/nodes/demo-node" | grep -o '"taints":\[[^]]*\]\|{"type":"Ready"[^}]*}'
fi

step "SIGTERM to nodelet: it exits 0 and leaves the lease to expire"
kill -TERM "$agent"
rc=0
wait "$agent" || rc=$?
agent=
echo "nodelet exited with status $rc"
[ "$rc" = 0 ] || { cat "$work/agent.log"; exit 1; }
step "what nodelet logged (-v 4, last lines)"
tail -n 6 "$work/agent.log"
step "done: the stale update was refused with 409 Conflict, and nodelet kept its node's lease renewed"
