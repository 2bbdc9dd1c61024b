#!/bin/sh
# The nodelet program against a nodelet-mockapi process, in real time, with
# a 4 s lease (renewed every second): it registers its Node, keeps
# renewTime advancing, kubectl 1.32 shows the Lease's HOLDER and the Node
# Ready with the no-pods taint, SIGHUP is logged and ignored, and SIGTERM
# (and SIGINT) end it with status
# 0, the lease left in place to expire. The kubectl part is skipped with a
# message when no kubectl is installed.
set -u
MOCKAPI=${NL_MOCKAPI:-./mockapi/nodelet-mockapi}
NODELET=${NL_NODELET:-./client/nodelet}
work=$(mktemp -d)
mock_pid=
agent_pid=
cleanup() {
	[ -n "$agent_pid" ] && kill "$agent_pid" 2>/dev/null
	[ -n "$mock_pid" ] && kill "$mock_pid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT INT TERM
fail() {
	echo "FAIL: $*"
	for f in agent.log server.err out; do
		[ -s "$work/$f" ] && { echo "--- $f"; tail -n 30 "$work/$f"; }
	done
	exit 1
}

. "$(dirname "$0")/../kubectl-lib.sh"

"$MOCKAPI" --port 0 --kubeconfig-out "$work/kubeconfig" >"$work/server.out" 2>"$work/server.err" &
mock_pid=$!
for _ in $(seq 1 100); do
	grep -q "listening on" "$work/server.out" 2>/dev/null && break
	sleep 0.05
done
url=$(sed -n 's/^nodelet-mockapi listening on //p' "$work/server.out")
[ -n "$url" ] || fail "server did not start"
lease="$url/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/agent-sh"
renew_time() { curl -s "$lease" | sed -n 's/.*"renewTime":"\([^"]*\)".*/\1/p'; }

"$NODELET" --kubeconfig "$work/kubeconfig" --node-name agent-sh --lease-duration-seconds 4 \
	--node-labels site=ci -v 4 >"$work/agent.log" 2>&1 &
agent_pid=$!

# The lease appears once the Node is registered.
first=
for _ in $(seq 1 50); do
	first=$(renew_time)
	[ -n "$first" ] && break
	sleep 0.1
done
[ -n "$first" ] || fail "no lease after 5 s"
echo "lease created, renewTime $first"

# About six seconds: a renewal every second, each one later than the last.
prev=$first
seen=0
for _ in $(seq 1 12); do
	sleep 0.5
	now=$(renew_time)
	if [ "$now" != "$prev" ]; then
		[ "$(printf '%s\n%s\n' "$prev" "$now" | sort | tail -n 1)" = "$now" ] ||
			fail "renewTime went backwards: $prev then $now"
		seen=$((seen + 1))
		prev=$now
	fi
done
echo "renewTime advanced $seen times in 6 s, now $prev"
[ "$seen" -ge 4 ] || fail "renewTime advanced only $seen times in 6 s"
kill -0 "$agent_pid" 2>/dev/null || fail "nodelet exited"
grep -q '"Renewed node lease" lease="kube-node-lease/agent-sh" renewTime="' "$work/agent.log" || fail "no renewal logged at -v 4"
grep -q '^I[0-9]\{4\} [0-9:.]\{15\} ' "$work/agent.log" || fail "logs are not klog-style"

curl -s "$url/api/v1/nodes/agent-sh" >"$work/node.json"
grep -q '"site":"ci"' "$work/node.json" || fail "node label from --node-labels missing"
grep -q '"kubeletVersion":"nodelet/' "$work/node.json" || fail "nodeInfo.kubeletVersion"

if KUBECTL=$(find_kubectl); then
	k() { "$KUBECTL" --kubeconfig "$work/kubeconfig" --cache-dir "$work/cache" "$@"; }
	k get lease -n kube-node-lease agent-sh >"$work/out" 2>&1 || fail "kubectl get lease"
	cat "$work/out"
	grep -q '^NAME  *HOLDER' "$work/out" || fail "no HOLDER column"
	grep -q '^agent-sh  *agent-sh ' "$work/out" || fail "lease holder is not agent-sh"
	k get node agent-sh >"$work/out" 2>&1 || fail "kubectl get node"
	cat "$work/out"
	grep -q '^agent-sh  *Ready ' "$work/out" || fail "node is not Ready"
	grep -q 'nodelet/' "$work/out" || fail "VERSION column does not show nodelet"
	# (describe node would also list pods, which the mock does not serve.)
	k get node agent-sh -o custom-columns='NAME:.metadata.name,TAINT:.spec.taints[*].key,EFFECT:.spec.taints[*].effect,READY:.status.conditions[?(@.type=="Ready")].reason' \
		>"$work/out" 2>&1 || fail "kubectl get node -o custom-columns"
	cat "$work/out"
	grep -q '^agent-sh  *nodelet.io/no-pods  *NoSchedule  *KubeletReady$' "$work/out" ||
		fail "the no-pods taint or the Ready reason is not shown"
	echo "kubectl: lease held by agent-sh, node Ready with nodelet.io/no-pods:NoSchedule"
else
	echo "SKIP (kubectl part): no kubectl found"
fi

# SIGHUP: logged and ignored; the agent keeps renewing.
kill -HUP "$agent_pid"
for _ in $(seq 1 50); do grep -q '"Received SIGHUP' "$work/agent.log" && break; sleep 0.1; done
grep -q '] "Received SIGHUP, ignored: nodelet does not reload its configuration, restart it to apply changes"$' "$work/agent.log" || fail "SIGHUP not logged"
before=$(renew_time)
for _ in $(seq 1 40); do [ "$(renew_time)" != "$before" ] && break; sleep 0.1; done
kill -0 "$agent_pid" 2>/dev/null || fail "nodelet exited on SIGHUP"
[ "$(renew_time)" != "$before" ] || fail "no renewal after SIGHUP"

# SIGTERM: exit 0, the lease is left in place (to expire).
kill -TERM "$agent_pid"
wait "$agent_pid"
rc=$?
agent_pid=
[ "$rc" -eq 0 ] || fail "nodelet exited $rc on SIGTERM"
grep -q '] "Received signal, shutting down, the node lease is left to expire" signal="SIGTERM"$' "$work/agent.log" || fail "shutdown not logged"
[ -n "$(renew_time)" ] || fail "the lease was deleted on shutdown"

# SIGINT: exit 0 as well.
"$NODELET" --kubeconfig "$work/kubeconfig" --node-name agent-sh-2 --lease-duration-seconds 4 \
	>"$work/agent.log" 2>&1 &
agent_pid=$!
sleep 0.5
kill -INT "$agent_pid"
wait "$agent_pid"
rc=$?
agent_pid=
[ "$rc" -eq 0 ] || fail "nodelet exited $rc on SIGINT"

# The startup line shows the configuration the agent runs: here the
# checkpointed dynamic config (20 s), not the local default (40 s).
dyn="$work/dyn/store"
mkdir -p "$dyn/meta" "$dyn/checkpoints/uid-20/7"
printf '%s' '{"apiVersion":"nodelet.io/v1alpha1","kind":"SerializedNodeConfigSource","source":{"configMap":{"namespace":"kube-system","name":"agent-sh-5","uid":"uid-20","resourceVersion":"7","kubeletConfigKey":"nodelet"}}}' \
	>"$dyn/meta/assigned"
: >"$dyn/meta/last-known-good"
printf 'apiVersion: nodelet.io/v1alpha1\nkind: NodeletConfiguration\nleaseDurationSeconds: 20\n' \
	>"$dyn/checkpoints/uid-20/7/nodelet"
"$NODELET" --kubeconfig "$work/kubeconfig" --node-name agent-sh-5 \
	--dynamic-config-dir "$work/dyn" >"$work/agent.log" 2>&1 &
agent_pid=$!
for _ in $(seq 1 100); do grep -q '"Starting nodelet"' "$work/agent.log" && break; sleep 0.05; done
grep -q '] "Starting nodelet" version="[^"]*" node="agent-sh-5" server="http[^"]*" leaseDurationSeconds=20$' "$work/agent.log" ||
	fail "the startup line does not show the checkpointed lease duration"
kill -TERM "$agent_pid"
wait "$agent_pid"
agent_pid=

# --once: register, renew, report, exit 0; a server that is not there: exit 1.
"$NODELET" --kubeconfig "$work/kubeconfig" --node-name agent-sh-3 --once >"$work/agent.log" 2>&1 ||
	fail "--once failed"
curl -s "$url/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/agent-sh-3" |
	grep -q '"holderIdentity":"agent-sh-3"' || fail "--once did not create the lease"
kill "$mock_pid"
wait "$mock_pid" 2>/dev/null
mock_pid=
"$NODELET" --kubeconfig "$work/kubeconfig" --node-name agent-sh-4 --once >"$work/agent.log" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "--once against no server exited $rc, not 1"
grep -q '^E[0-9]\{4\} .*] "Unable to register node with API server" err=".*" node="agent-sh-4"$' "$work/agent.log" ||
	fail "registration failure not logged at error level"
echo "PASS"
