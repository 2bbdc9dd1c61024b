#!/bin/sh
# nodelet, the program itself, under valgrind memcheck against a
# nodelet-mockapi that injects every kind of wire fault
# (fixtures/faults/agent-chaos.yaml) on a share of its requests, with
# dynamic config assigned half-way through. The unit and integration
# programs run under valgrind in tests/run-valgrind.sh; this covers the
# agent's main loop, its retries and its shutdown as a user runs them.
# Fails on any valgrind error or definite/indirect leak, and when the agent
# stopped working (no renewal got through the faults).
# Usage: tests/agent-valgrind.sh BUILDDIR [SECONDS]
set -u
b=${1:-.}
secs=${2:-${NL_AGENT_VALGRIND_SECONDS:-30}}
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
mock_pid=
agent_pid=
cleanup() {
	[ -n "$agent_pid" ] && kill "$agent_pid" 2>/dev/null
	[ -n "$mock_pid" ] && kill "$mock_pid" 2>/dev/null
	wait 2>/dev/null
	[ -n "${NL_KEEP_WORK:-}" ] || rm -rf "$work"
}
trap cleanup EXIT INT TERM
fail() {
	echo "FAIL: $*"
	for f in "$work"/*.log "$work"/*.err; do
		[ -f "$f" ] && { echo "--- $f"; tail -40 "$f"; }
	done
	exit 1
}

cat >"$work/objects.yaml" <<'EOF'
apiVersion: v1
kind: ConfigMap
metadata: {name: edge-config, namespace: kube-system}
data:
  nodelet: |
    apiVersion: nodelet.io/v1alpha1
    kind: NodeletConfiguration
    leaseDurationSeconds: 12
EOF

"$b/mockapi/nodelet-mockapi" --port 0 --random-seed 7 --node-monitor-grace-period 20s \
	--fixtures "$work/objects.yaml" --faults "$src/fixtures/faults/agent-chaos.yaml" \
	--kubeconfig-out "$work/kubeconfig" >"$work/mock.out" 2>"$work/mock.err" &
mock_pid=$!
for _ in $(seq 1 100); do
	grep -q "listening on" "$work/mock.out" 2>/dev/null && break
	sleep 0.05
done
url=$(sed -n 's/^nodelet-mockapi listening on //p' "$work/mock.out")
[ -n "$url" ] || fail "nodelet-mockapi did not start"

mkdir "$work/config"
valgrind -q --error-exitcode=99 --leak-check=full \
	--errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
	--suppressions="$src/tests/valgrind.supp" \
	"$b/client/nodelet" --kubeconfig "$work/kubeconfig" --node-name edge-v \
	--lease-duration-seconds 8 --dynamic-config-dir "$work/config" -v 4 \
	>"$work/agent.log" 2>&1 &
agent_pid=$!

# Assign the dynamic config half-way with a merge patch of the Node (the
# faults match only nodelet's User-Agent, not curl's), so the download and
# the restart on the new config also run under valgrind.
half=$((secs / 2))
sleep "$half"
kill -0 "$agent_pid" 2>/dev/null || fail "nodelet exited early"
patch='{"metadata":{"annotations":{"nodelet.io/config-source":"{\"configMap\":{\"namespace\":\"kube-system\",\"name\":\"edge-config\",\"kubeletConfigKey\":\"nodelet\"}}"}}}'
curl -fsS -XPATCH "$url/api/v1/nodes/edge-v" -H 'Content-Type: application/merge-patch+json' \
	-d "$patch" >"$work/assign.log" 2>&1 || fail "could not assign the config (is the Node registered?)"
sleep $((secs - half))

kill -TERM "$agent_pid"
wait "$agent_pid"
rc=$?
agent_pid=
[ "$rc" -eq 0 ] || fail "nodelet exited $rc under valgrind (99: memcheck errors)"

renewals=$(curl -fsS "$url/mockapi/v1/requests" | grep -o '"verb":"update","resource":"leases"[^}]*"code":200' | wc -l)
faults=$(curl -fsS "$url/mockapi/v1/requests" | grep -o '"fault":"chaos-[a-z0-9-]*"' | sort | uniq -c)
echo "nodelet under valgrind for ${secs}s: $renewals renewals answered 200; faults fired:"
echo "$faults"
[ "$renewals" -ge 2 ] || fail "the agent renewed its lease $renewals times through the faults"
echo "PASS: no valgrind errors or leaks"
